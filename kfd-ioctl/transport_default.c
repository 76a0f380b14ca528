// SPDX-License-Identifier: MIT
/*
 * transport_default.c - the default-transport seam: which KFD code reaches when it does not
 * choose a transport itself (the HSA backend's Lv3, the tool library). In order:
 *
 *   1. the transport installed with hsaqm_kfd_transport_set_default() (a test that drives the
 *      HSA backend itself);
 *   2. the transport of the KFD stand-in registered with hsaqm_kfd_transport_set_provider()
 *      (the device model's HSA face, when the process embeds one model: docs/kfd-ioctl.md,
 *      "The default transport");
 *   3. the system transport, /dev/kfd.
 *
 * Where the two are kept: in libhsaqm.so (lib/shared_state.c), not here. The tool library
 * (libhsaqm-tool.so) carries kfd-ioctl's objects and a program embedding the model carries its
 * own, so statics here would exist once per copy and what the model registers would never
 * reach the tool's copy; libhsaqm.so is loaded once per process and both copies link it. Why
 * a registration and not a name the process is searched for (a symbol, an environment
 * variable): the stand-in that *is* the process's KFD says so, a real system never has one,
 * and nothing inherited by a child or exported by an executable can point a process on a real
 * GPU at a model. Nothing here knows the model.
 */
#include <errno.h>
#include <stddef.h>

#include "kfd_internal.h"
#include "hsaqm-common/shared_state.h"

/* The rule set_default() applies, also held against a provider's answer. */
static bool transport_usable(const struct hsaqm_kfd_transport *tp)
{
	return tp->open && tp->close && tp->ioctl;
}

const struct hsaqm_kfd_transport *hsaqm_kfd_transport_default(void)
{
	const struct hsaqm_kfd_transport *tp = hsaqm_kfd_slot_get_transport();
	hsaqm_kfd_transport_provider_fn provider;

	if (tp)
		return tp;
	provider = hsaqm_kfd_slot_get_provider();
	if (provider) {
		tp = provider();
		if (tp && transport_usable(tp))
			return tp;
	}
	return hsaqm_kfd_transport_system();
}

int hsaqm_kfd_transport_set_default(const struct hsaqm_kfd_transport *tp)
{
	if (tp && !transport_usable(tp))
		return -EINVAL;
	hsaqm_kfd_slot_set_transport(tp);
	return 0;
}

int hsaqm_kfd_transport_set_provider(hsaqm_kfd_transport_provider_fn fn)
{
	hsaqm_kfd_slot_set_provider(fn);
	return 0;
}
