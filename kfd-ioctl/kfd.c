// SPDX-License-Identifier: MIT
/*
 * kfd.c - the KFD handle: open through a transport, fork detection, close, and the one ioctl
 * wrapper every request of hsaqm goes through.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfd_internal.h"
#include "hsaqm-common/log.h"

static bool transport_usable(const struct hsaqm_kfd_transport *tp)
{
	return tp && tp->open && tp->close && tp->ioctl;
}

bool hsaqm_kfd_is_stale(const struct hsaqm_kfd *kfd)
{
	/*
	 * A pid comparison rather than a pthread_atfork() flag: it also catches children made
	 * by clone() or _Fork(), which run no atfork handlers. getpid() is a cheap system call
	 * next to an ioctl into the KFD.
	 */
	return !kfd || kfd->owner != getpid();
}

int hsaqm_kfd_ioctl_retry(struct hsaqm_kfd *kfd, unsigned long request, void *arg,
			  bool retry_eagain)
{
	static int stale_notice;
	int ret = -EINVAL;

	if (!kfd)
		return -EINVAL;
	if (hsaqm_kfd_is_stale(kfd)) {
		/*
		 * The KFD itself answers EBADF to a process other than the one that opened
		 * the file; say it before the kernel does, and say what to do.
		 */
		hsaqm_log_notice(&stale_notice,
				 "%s was opened by process %d; this is its fork child %d, which "
				 "must reopen it (hsaqm_kfd_reopen)",
				 kfd->tp->dev_path ? kfd->tp->dev_path : "the KFD", (int)kfd->owner,
				 (int)getpid());
		return -EBADF;
	}
	for (int tries = 0; tries < HSAQM_KFD_IOCTL_MAX_TRIES; tries++) {
		ret = kfd->tp->ioctl(kfd->tp->ctx, kfd->handle, request, arg);
		if (ret == -EINTR)
			continue;
		if (ret == -EAGAIN && retry_eagain) {
			/* The kernel asked to come back: give whoever holds the resource a turn. */
			sched_yield();
			continue;
		}
		break;
	}
	if (ret < 0)
		hsaqm_log_debug("ioctl nr 0x%lx: %d", (unsigned long)HSAQM_KFD_IOC_NR(request),
				ret);
	return ret;
}

int hsaqm_kfd_ioctl(struct hsaqm_kfd *kfd, unsigned long request, void *arg)
{
	return hsaqm_kfd_ioctl_retry(kfd, request, arg, true);
}

/* Open the transport for the calling process and read the interface version. */
static int kfd_attach(struct hsaqm_kfd *kfd)
{
	struct hsaqm_kfd_get_version_args ver = { 0 };
	int handle, ret;

	handle = kfd->tp->open(kfd->tp->ctx);
	if (handle < 0) {
		/* Named with its transport: a process may hold several (the model's beside the system's). */
		hsaqm_log_info("%s transport: no KFD (%s: %s)", kfd->tp->name ? kfd->tp->name : "?",
			       kfd->tp->dev_path ? kfd->tp->dev_path : "KFD", strerror(-handle));
		return handle;
	}
	kfd->handle = handle;
	kfd->owner = getpid();
	kfd->dbg_enabled = false;
	kfd->dbg_pipe[0] = kfd->dbg_pipe[1] = -1;

	ret = hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_GET_VERSION, &ver);
	if (ret == 0 && ver.major_version != 1) {
		/* Every layout in kfd_uapi.h belongs to major version 1. */
		hsaqm_log_err("KFD interface %u.%u: only major version 1 is known",
			      ver.major_version, ver.minor_version);
		ret = -EPROTO;
	}
	if (ret < 0) {
		kfd->tp->close(kfd->tp->ctx, kfd->handle);
		kfd->handle = -1;
		return ret;
	}
	kfd->major = ver.major_version;
	kfd->minor = ver.minor_version;
	hsaqm_log_info("%s transport: KFD interface %u.%u (%s)", kfd->tp->name ? kfd->tp->name : "?",
		       kfd->major, kfd->minor, kfd->tp->dev_path ? kfd->tp->dev_path : "KFD");
	return 0;
}

int hsaqm_kfd_open(const struct hsaqm_kfd_transport *tp, struct hsaqm_kfd **out)
{
	struct hsaqm_kfd *kfd;
	int ret;

	if (!out || !transport_usable(tp))
		return -EINVAL;
	kfd = calloc(1, sizeof(*kfd));
	if (!kfd)
		return -ENOMEM;
	kfd->tp = tp;
	kfd->handle = -1;
	ret = kfd_attach(kfd);
	if (ret < 0) {
		free(kfd);
		return ret;
	}
	*out = kfd;
	return 0;
}

/* Drop what a fork child inherited: descriptors only, the parent keeps the KFD state. */
static void kfd_drop_inherited(struct hsaqm_kfd *kfd)
{
	for (int i = 0; i < 2; i++) {
		if (kfd->dbg_pipe[i] >= 0)
			close(kfd->dbg_pipe[i]);
		kfd->dbg_pipe[i] = -1;
	}
	kfd->dbg_enabled = false;
	if (kfd->handle >= 0)
		kfd->tp->close(kfd->tp->ctx, kfd->handle);
	kfd->handle = -1;
}

int hsaqm_kfd_close(struct hsaqm_kfd *kfd)
{
	int ret = 0;

	if (!kfd)
		return -EINVAL;
	if (hsaqm_kfd_is_stale(kfd)) {
		kfd_drop_inherited(kfd);
	} else {
		/* A suspended queue must not outlive its scheduler (design decision 4). */
		hsaqm_kfd_dbg_close(kfd);
		if (kfd->handle >= 0)
			ret = kfd->tp->close(kfd->tp->ctx, kfd->handle);
	}
	free(kfd);
	return ret;
}

int hsaqm_kfd_reopen(struct hsaqm_kfd *kfd)
{
	if (!kfd)
		return -EINVAL;
	if (!hsaqm_kfd_is_stale(kfd))
		return 0;
	kfd_drop_inherited(kfd);
	return kfd_attach(kfd);
}

int hsaqm_kfd_get_version(const struct hsaqm_kfd *kfd, uint32_t *major, uint32_t *minor)
{
	if (!kfd)
		return -EINVAL;
	if (major)
		*major = kfd->major;
	if (minor)
		*minor = kfd->minor;
	return 0;
}

bool hsaqm_kfd_version_at_least(const struct hsaqm_kfd *kfd, uint32_t major, uint32_t minor)
{
	return kfd && hsaqm_kfd_version_code(kfd) >= HSAQM_KFD_VERSION(major, minor);
}

const struct hsaqm_kfd_transport *hsaqm_kfd_transport_of(const struct hsaqm_kfd *kfd)
{
	return kfd ? kfd->tp : NULL;
}

int hsaqm_kfd_mmap(struct hsaqm_kfd *kfd, void *addr, size_t len, int prot, int flags,
		   off_t offset, void **out)
{
	void *p;

	if (!kfd || !out || !len || !kfd->tp->mmap)
		return -EINVAL;
	if (hsaqm_kfd_is_stale(kfd))
		return -EBADF;
	p = kfd->tp->mmap(kfd->tp->ctx, kfd->handle, addr, len, prot, flags, offset);
	if (p == MAP_FAILED)
		return errno ? -errno : -EINVAL;
	*out = p;
	return 0;
}

int hsaqm_kfd_munmap(struct hsaqm_kfd *kfd, void *addr, size_t len)
{
	if (!kfd || !addr || !len || !kfd->tp->munmap)
		return -EINVAL;
	return kfd->tp->munmap(kfd->tp->ctx, addr, len);
}
