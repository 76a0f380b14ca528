/* SPDX-License-Identifier: MIT */
/* kfd_internal.h - what the sources of kfd-ioctl/ share and nothing outside it sees. */
#ifndef HSAQM_KFD_INTERNAL_H
#define HSAQM_KFD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hsaqm-kfd/kfd.h"

struct hsaqm_kfd {
	const struct hsaqm_kfd_transport *tp;
	int handle;   /* the transport's handle (the /dev/kfd descriptor) */
	pid_t owner;  /* the process that opened it: the only one the KFD serves */
	uint32_t major;
	uint32_t minor;
	/* DBG_TRAP session opened through this handle (debug.c). */
	bool dbg_enabled;
	int dbg_pipe[2]; /* [0] read end we keep, [1] the end the KFD writes */
};

/*
 * The retry loop of hsaqm_kfd_ioctl(). @retry_eagain is false for requests where EAGAIN is an
 * answer rather than "try again" (QUERY_DEBUG_EVENT: nothing raised).
 */
int hsaqm_kfd_ioctl_retry(struct hsaqm_kfd *kfd, unsigned long request, void *arg,
			  bool retry_eagain);

/* The interface version as HSAQM_KFD_VERSION(major, minor). */
static inline uint32_t hsaqm_kfd_version_code(const struct hsaqm_kfd *kfd)
{
	return HSAQM_KFD_VERSION(kfd->major, kfd->minor);
}

/* debug.c: end a DBG_TRAP session on close (errors are only logged). */
void hsaqm_kfd_dbg_close(struct hsaqm_kfd *kfd);

/* topology.c: read a small sysfs file whole into @buf (NUL-terminated). 0 or -errno. */
int hsaqm_sysfs_read_small(const char *path, char *buf, size_t size, size_t *len);

#endif /* HSAQM_KFD_INTERNAL_H */
