/* SPDX-License-Identifier: MIT */
/*
 * shared_state.c - kfd-ioctl's default-transport state, kept in libhsaqm.so so that a process
 * has one copy of it (hsaqm-common/shared_state.h). The tool library carries kfd-ioctl's objects
 * and a program embedding the device model carries its own: were the pointers in kfd-ioctl,
 * each copy would have its own, and what the model installs would never reach the tool.
 */
#include "hsaqm-common/barrier.h"
#include "hsaqm-common/shared_state.h"

static const struct hsaqm_kfd_transport *slot_transport;
static hsaqm_kfd_provider_fn slot_provider;

void hsaqm_kfd_slot_set_transport(const struct hsaqm_kfd_transport *tp)
{
	/* Release: the caller's writes to *tp happen before any reader sees the pointer. */
	hsaqm_store_release(&slot_transport, tp);
}

const struct hsaqm_kfd_transport *hsaqm_kfd_slot_get_transport(void)
{
	/* Acquire: pairs with the release above; the transport is whole when seen. */
	return hsaqm_load_acquire(&slot_transport);
}

void hsaqm_kfd_slot_set_provider(hsaqm_kfd_provider_fn fn)
{
	/* Release: whatever the provider reads was set up before it is seen registered. */
	hsaqm_store_release(&slot_provider, fn);
}

hsaqm_kfd_provider_fn hsaqm_kfd_slot_get_provider(void)
{
	/* Acquire: pairs with the release above. */
	return hsaqm_load_acquire(&slot_provider);
}
