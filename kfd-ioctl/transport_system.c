// SPDX-License-Identifier: MIT
/*
 * transport_system.c - the real KFD: /dev/kfd and /sys. The only place in hsaqm that calls
 * ioctl(2) on /dev/kfd; everything else goes through hsaqm_kfd_ioctl() and a transport.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfd_internal.h"

#define SYSTEM_KFD_PATH "/dev/kfd"

static int system_open(void *ctx)
{
	int fd;

	(void)ctx;
	/* O_CLOEXEC: an exec'd program must open its own KFD, the KFD would refuse ours. */
	do {
		fd = open(SYSTEM_KFD_PATH, O_RDWR | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	return fd < 0 ? -errno : fd;
}

static int system_close(void *ctx, int handle)
{
	(void)ctx;
	/* No retry on EINTR: on Linux the descriptor is gone whatever close() returns. */
	return close(handle) < 0 && errno != EINTR ? -errno : 0;
}

static int system_ioctl(void *ctx, int handle, unsigned long request, void *arg)
{
	int ret;

	(void)ctx;
	ret = ioctl(handle, request, arg);
	return ret < 0 ? -errno : ret;
}

static void *system_mmap(void *ctx, int handle, void *addr, size_t len, int prot, int flags,
			 off_t offset)
{
	(void)ctx;
	return mmap(addr, len, prot, flags, handle, offset);
}

static int system_munmap(void *ctx, void *addr, size_t len)
{
	(void)ctx;
	return munmap(addr, len) < 0 ? -errno : 0;
}

static const struct hsaqm_kfd_transport system_transport = {
	.name = "kfd",
	.dev_path = SYSTEM_KFD_PATH,
	.sysfs_root = "/sys",
	.ctx = NULL,
	.open = system_open,
	.close = system_close,
	.ioctl = system_ioctl,
	.mmap = system_mmap,
	.munmap = system_munmap,
	.doorbell_written = NULL, /* the hardware sees the MMIO store itself */
};

const struct hsaqm_kfd_transport *hsaqm_kfd_transport_system(void)
{
	return &system_transport;
}
