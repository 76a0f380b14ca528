// SPDX-License-Identifier: MIT
/*
 * transport_default.c - the default-transport seam: which KFD code reaches when it does not
 * choose a transport itself (the HSA backend's Lv3, the tool library). In order:
 *
 *   1. the transport installed with hsaqm_kfd_transport_set_default() in this copy of
 *      kfd-ioctl (a test that drives the HSA backend itself);
 *   2. the transport of a *KFD stand-in* loaded in the process: an object that exports the
 *      function HSAQM_KFD_TRANSPORT_PROVIDER (below), found with dlsym() in the global scope
 *      and in libhsakmt.so.1 if that is loaded (docs/kfd-ioctl.md, "The default transport");
 *   3. the system transport, /dev/kfd.
 *
 * Why a symbol and not a setter: the tool library (libhsaqm-tool.so) carries its own copy
 * of kfd-ioctl's objects, so a setter called by the model's copy is never seen by the tool's
 * copy; a symbol lookup reaches across copies. Why not an environment variable naming a
 * provider library: the environment is inherited by every child, so it could point a real
 * GPU process at a model; the symbol exists exactly when the object that *is* the process's
 * KFD (the model's libhsakmt.so.1, an executable embedding the model) is loaded. On a real
 * system no loaded object exports it (the real libhsakmt does not), and step 3 is taken.
 * Nothing here knows the model.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#include "hsaqm/barrier.h"
#include "kfd_internal.h"

/*
 * The provider's name and type: const struct hsaqm_kfd_transport *provider(void), returning
 * the transport of the process's KFD stand-in, or NULL when it has none open right now
 * (then the system transport is used). It is called each time the default is asked for.
 */
#define HSAQM_KFD_TRANSPORT_PROVIDER "hsaqm_kfd_transport_provider"
typedef const struct hsaqm_kfd_transport *(*hsaqm_kfd_transport_provider_fn)(void);

/* Where a KFD stand-in that is a libhsakmt lives when it was loaded with RTLD_LOCAL. */
#define HSAQM_KFD_PROVIDER_LIBRARY "libhsakmt.so.1"

/* NULL means "no transport installed here". */
static const struct hsaqm_kfd_transport *default_tp;

static hsaqm_kfd_transport_provider_fn provider_lookup(void)
{
	void *fn = dlsym(RTLD_DEFAULT, HSAQM_KFD_TRANSPORT_PROVIDER);

	if (!fn) {
		/*
		 * A HIP program loaded by a Python interpreter has ROCr and its libhsakmt in a
		 * local scope: RTLD_DEFAULT does not see them. NOLOAD finds the loaded one (and
		 * loads nothing); the handle is dropped at once, the reference it took is ours.
		 */
		void *h = dlopen(HSAQM_KFD_PROVIDER_LIBRARY, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);

		if (h) {
			fn = dlsym(h, HSAQM_KFD_TRANSPORT_PROVIDER);
			dlclose(h);
		}
	}
	return (hsaqm_kfd_transport_provider_fn)fn;
}

const struct hsaqm_kfd_transport *hsaqm_kfd_transport_default(void)
{
	/* Acquire: pairs with the release in set_default(); the transport is whole when seen. */
	const struct hsaqm_kfd_transport *tp = hsaqm_load_acquire(&default_tp);
	hsaqm_kfd_transport_provider_fn provider;

	if (tp)
		return tp;
	provider = provider_lookup();
	if (provider) {
		tp = provider();
		/* A provider's transport is held to the same rule as set_default()'s. */
		if (tp && tp->open && tp->close && tp->ioctl)
			return tp;
	}
	return hsaqm_kfd_transport_system();
}

int hsaqm_kfd_transport_set_default(const struct hsaqm_kfd_transport *tp)
{
	if (tp && (!tp->open || !tp->close || !tp->ioctl))
		return -EINVAL;
	/* Release: the caller's writes to *tp happen before any reader sees the pointer. */
	hsaqm_store_release(&default_tp, tp);
	return 0;
}
