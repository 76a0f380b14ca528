// SPDX-License-Identifier: MIT
/*
 * transport_default.c - the default-transport seam: which KFD code reaches when it does not
 * choose a transport itself (the HSA backend's Lv3). The system transport unless a test or
 * the device model's client library installed another. Nothing here knows the model.
 */
#include <errno.h>
#include <stddef.h>

#include "hsaqm/barrier.h"
#include "kfd_internal.h"

/* NULL means the system transport. */
static const struct hsaqm_kfd_transport *default_tp;

const struct hsaqm_kfd_transport *hsaqm_kfd_transport_default(void)
{
	/* Acquire: pairs with the release in set_default(); the transport is whole when seen. */
	const struct hsaqm_kfd_transport *tp = hsaqm_load_acquire(&default_tp);

	return tp ? tp : hsaqm_kfd_transport_system();
}

int hsaqm_kfd_transport_set_default(const struct hsaqm_kfd_transport *tp)
{
	if (tp && (!tp->open || !tp->close || !tp->ioctl))
		return -EINVAL;
	/* Release: the caller's writes to *tp happen before any reader sees the pointer. */
	hsaqm_store_release(&default_tp, tp);
	return 0;
}
