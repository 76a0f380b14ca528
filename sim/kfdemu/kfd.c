// SPDX-License-Identifier: MIT
/*
 * kfd.c - /dev/kfd of the emulation: one handle of the model's KFD face (sim/kfd_face*.c) per
 * open(), every ioctl answered by the face with the KFD's own rules and errno. Two requests
 * also go through the front end (front.c), because the CP reads the runtime's rings and the
 * model runs its own: CREATE_QUEUE and DESTROY_QUEUE. WAIT_EVENTS first makes the front end
 * look at every ring, as a doorbell would have (a runtime about to sleep has just rung one).
 */
#include <errno.h>
#include <sys/mman.h>

#include "hsaqm/barrier.h"
#include "hsaqm/kfd_transport.h"
#include "hsaqm/kfd_uapi.h"
#include "kfdemu_internal.h"
#include "log_internal.h"

int kfdemu_kfd_open(void)
{
	const struct hsaqm_kfd_transport *tp = kfdemu_kfd();

	if (!tp)
		return -ENODEV;
	return tp->open(tp->ctx);
}

int kfdemu_kfd_close(int handle)
{
	const struct hsaqm_kfd_transport *tp = kfdemu_kfd();

	return tp ? tp->close(tp->ctx, handle) : -EBADF;
}

static int kfd_ioctl(const struct hsaqm_kfd_transport *tp, int handle, unsigned long request,
		     void *arg)
{
	switch (HSAQM_KFD_IOC_NR(request)) {
	case 0x02: /* CREATE_QUEUE */
		return kfdemu_front_create(handle, request, arg);
	case 0x03: /* DESTROY_QUEUE */
		return kfdemu_front_destroy(handle, request, arg);
	case 0x0C: /* WAIT_EVENTS */
		kfdemu_front_kick();
		break;
	default:
		break;
	}
	return tp->ioctl(tp->ctx, handle, request, arg);
}

int kfdemu_kfd_ioctl(int handle, unsigned long request, void *arg)
{
	const struct hsaqm_kfd_transport *tp = kfdemu_kfd();
	int r;

	if (!tp)
		return -EBADF;
	if (_IOC_TYPE(request) != HSAQM_KFD_IOCTL_BASE) {
		kfdemu_unknown_ioctl("kfd", request);
		return -ENOTTY;
	}
	r = kfd_ioctl(tp, handle, request, arg);
	unsigned long nr = HSAQM_KFD_IOC_NR(request);

	if (nr >= 0x80 && nr <= 0x86) {
		static uint32_t seen;

		/*
		 * ROCm's own driver's numbers (the face answers what an upstream KFD answers): the
		 * report names each once, so a reader sees which call a program's runtime made.
		 */
		if (!(hsaqm_fetch_or(&seen, 1u << (nr - 0x80)) & (1u << (nr - 0x80))))
			kfdemu_report_add("dkms-only-ioctl nr %#lx request %#lx -> %d", nr, request, r);
	}
	/* HSAQM_LOG=debug traces every request: what strace would show on a real KFD. */
	hsaqm_log_debug("kfdemu: kfd ioctl nr 0x%02lx -> %d", (unsigned long)HSAQM_KFD_IOC_NR(request),
			r);
	return r;
}

void *kfdemu_kfd_mmap(int handle, void *addr, size_t len, int prot, int flags, off_t offset)
{
	const struct hsaqm_kfd_transport *tp = kfdemu_kfd();

	if (!tp) {
		errno = EBADF;
		return MAP_FAILED;
	}
	return tp->mmap(tp->ctx, handle, addr, len, prot, flags, offset);
}
