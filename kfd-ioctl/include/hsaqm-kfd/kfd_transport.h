/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-kfd/kfd_transport.h - what kfd-ioctl/ needs from "a KFD": open it, issue ioctls with
 * the real uapi structs, map its pages, read its sysfs. The real transport does exactly
 * that on /dev/kfd and /sys; sim/'s KFD face implements the same operations on the device
 * model. Code above this seam (kfd-ioctl/, the probe, the HSA backend) cannot tell which
 * one it runs on.
 */
#ifndef HSAQM_KFD_TRANSPORT_H
#define HSAQM_KFD_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hsaqm_kfd_transport {
	const char *name;       /* "kfd" for the real device, "sim" for the model */
	const char *dev_path;   /* "/dev/kfd" or the model's stand-in name, for messages */
	const char *sysfs_root; /* "/sys" or the model's generated tree */
	void *ctx;

	/* Open the KFD like open(dev_path, O_RDWR | O_CLOEXEC): a handle >= 0, or -errno. */
	int (*open)(void *ctx);
	/* Close a handle from open(): 0 or -errno. Its queues are destroyed, as at process exit. */
	int (*close)(void *ctx, int handle);
	/*
	 * One ioctl with a uapi request number and its argument struct: the kernel's result,
	 * which is 0 or, for DBG_TRAP SUSPEND_QUEUES/RESUME_QUEUES, the number of queues handled;
	 * or -errno exactly as the kernel would fail it (the caller retries EINTR/EAGAIN, the
	 * transport does not).
	 */
	int (*ioctl)(void *ctx, int handle, unsigned long request, void *arg);
	/* mmap of the KFD handle (doorbell pages, events page): the address or MAP_FAILED (errno set). */
	void *(*mmap)(void *ctx, int handle, void *addr, size_t len, int prot, int flags, off_t offset);
	int (*munmap)(void *ctx, void *addr, size_t len);
	/*
	 * Optional; NULL for the real device. Called after user space stored @value into a
	 * doorbell it mapped through mmap(): hardware notices the MMIO store by itself, a model
	 * needs to be told.
	 */
	void (*doorbell_written)(void *ctx, int handle, volatile void *doorbell, uint64_t value);
	/*
	 * Optional; NULL for the real device, whose <sysfs_root>/class/kfd/kfd/proc is always
	 * current (amdkfd adds and removes a queue's folder as the queue comes and goes). A model
	 * writes that tree from its state when asked: call this before reading it. 0 or -errno.
	 */
	int (*proc_refresh)(void *ctx);
};

/**
 * hsaqm_kfd_transport_system() - the real transport: /dev/kfd and /sys.
 *
 * Return: a static transport (never NULL). Opening it on a machine without an AMD GPU
 * fails with -ENOENT (no /dev/kfd) or -EACCES (not in the render/video group).
 */
const struct hsaqm_kfd_transport *hsaqm_kfd_transport_system(void);

/**
 * hsaqm_kfd_transport_default() - the transport code that does not choose one uses: the one
 * installed with hsaqm_kfd_transport_set_default(), else the transport of the KFD stand-in
 * registered with hsaqm_kfd_transport_set_provider(), else the system transport
 * (docs/kfd-ioctl.md, "The default transport"). Both are kept once per process, in
 * libhsaqm.so, so every copy of kfd-ioctl in the process (the tool library's, a program's)
 * answers the same.
 *
 * The HSA backend opens the KFD its runtime's queues live on through this seam, so that a
 * test, or a KFD stand-in such as the device model, can point it at the model's KFD face,
 * while on a real system it is /dev/kfd. Thread-safe, and cheap (two acquire loads and the
 * provider's call).
 * Return: the transport (never NULL).
 */
const struct hsaqm_kfd_transport *hsaqm_kfd_transport_default(void);

/**
 * hsaqm_kfd_transport_set_default() - install the transport hsaqm_kfd_transport_default()
 * returns from now on, in the whole process; NULL removes it.
 * @tp: must stay valid until it is replaced (it is not copied).
 *
 * Handles opened earlier keep the transport they were opened on.
 * Return: 0; -EINVAL for a transport without open, close or ioctl.
 */
int hsaqm_kfd_transport_set_default(const struct hsaqm_kfd_transport *tp);

/*
 * A KFD stand-in's provider: the transport of the process's KFD when the stand-in (the
 * device model's HSA face) is that KFD right now, else NULL. Called at each
 * hsaqm_kfd_transport_default() that no installed transport answers; it must be cheap and
 * thread-safe, and stay callable while registered.
 */
typedef const struct hsaqm_kfd_transport *(*hsaqm_kfd_transport_provider_fn)(void);

/**
 * hsaqm_kfd_transport_set_provider() - register the process's KFD stand-in; NULL removes it.
 * @fn: see hsaqm_kfd_transport_provider_fn. A later registration replaces an earlier one.
 *
 * An explicit call, not a name looked up in the process: the stand-in says it is the KFD, and
 * a process without one (a real system) never has a provider. A NULL answer, or a transport
 * without open, close or ioctl, falls through to the system transport.
 * Return: 0.
 */
int hsaqm_kfd_transport_set_provider(hsaqm_kfd_transport_provider_fn fn);

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_KFD_TRANSPORT_H */
