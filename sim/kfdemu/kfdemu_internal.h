/* SPDX-License-Identifier: MIT */
/*
 * kfdemu_internal.h - the emulated /dev/kfd (docs/real-stack.md): a preload library that makes
 * an unmodified process see the device model as an AMD GPU at the system-call boundary.
 *
 *   interpose.c  libc's open/stat/access/readlink/opendir/fopen family (paths), close/dup/
 *                fcntl (descriptors), ioctl and mmap: the only symbols the library exports
 *   kfdemu.c     the model behind it (made at first use), configuration, the report
 *   kfd.c        /dev/kfd: every ioctl goes to the model's KFD face (sim/kfd_face*.c);
 *                queue creation and destruction also go through the front end
 *   drm.c        /dev/dri/renderD*: the amdgpu DRM ioctls libdrm_amdgpu and the thunk issue
 *   front.c      the CP's front end: translates each runtime AQL ring into a ring the model
 *                runs, completes the runtime's signals, fires its events (end of pipe)
 *   sdma.c       the SDMA engines the runtime's blit path drives (not in the model)
 *   kernel.c     kernel descriptors -> model kernels by name; ROCr's blit kernels performed
 *
 * Why at the system-call boundary: from ROCm 6.3 ROCr links libhsakmt statically and exports
 * only hsa_*, so nothing above the kernel interface can put the model under it. Everything a
 * runtime does up to the ioctl is its own code, unchanged; kfd-ioctl's system transport in the
 * same process (hsaqm's Lv3) opens /dev/kfd like any program and reaches the same KFD.
 */
#ifndef HSAQM_KFDEMU_INTERNAL_H
#define HSAQM_KFDEMU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

struct hsaqm_sim;
struct hsaqm_kfd_transport;

/* DRM render nodes: minors 128.. (drm_render_minor in the topology), major 226. */
#define KFDEMU_DRM_MAJOR 226u
#define KFDEMU_RENDER_MINOR_BASE 128u
/* The KFD's character device major is dynamic; 236 is what it usually gets (assumption). */
#define KFDEMU_KFD_MAJOR 236u

/* ---- kfdemu.c ----------------------------------------------------------------------------- */

/* The model, made on first use (in-process, or a client of $HSAQM_SIM_DEVICE); NULL if it
 * cannot be made (said once on stderr). */
struct hsaqm_sim *kfdemu_sim(void);
/* Its KFD face as a transport, and its generated sysfs tree (NULL as above). */
const struct hsaqm_kfd_transport *kfdemu_kfd(void);
const char *kfdemu_sysfs_root(void);
/* True when the model is a client of a shared device process (no workgroup callbacks). */
bool kfdemu_shared(void);
/* Model devices (GPU nodes), and the render minor of device @dev. */
unsigned int kfdemu_devices(void);
/* The device of render minor @minor, or -1. */
int kfdemu_render_dev(unsigned int minor);
/* Lines for $HSAQM_KFDEMU_REPORT, written at process exit (HIP never closes the KFD). */
void kfdemu_report_add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An ioctl the emulation does not know: one log line per number, counted in the report. */
void kfdemu_unknown_ioctl(const char *what, unsigned long request);

/* ---- kfd.c -------------------------------------------------------------------------------- */

/* One open() of /dev/kfd: a handle of the model's KFD face, or -errno. */
int kfdemu_kfd_open(void);
int kfdemu_kfd_close(int handle);
/* 0 (or the ioctl's count), or -errno. */
int kfdemu_kfd_ioctl(int handle, unsigned long request, void *arg);
void *kfdemu_kfd_mmap(int handle, void *addr, size_t len, int prot, int flags, off_t offset);

/* ---- drm.c -------------------------------------------------------------------------------- */

int kfdemu_drm_ioctl(unsigned int minor, unsigned long request, void *arg);
void *kfdemu_drm_mmap(unsigned int minor, void *addr, size_t len, int prot, int flags,
		      off_t offset);

/* ---- front.c ------------------------------------------------------------------------------ */

/*
 * CREATE_QUEUE through the front end: an AQL queue gets a shadow ring the model runs, an SDMA
 * queue an engine of sdma.c; then the face's CREATE_QUEUE with the runtime's ring. @a is the
 * caller's argument (its size per @request). Return: the ioctl's result.
 */
int kfdemu_front_create(int handle, unsigned long request, void *a);
/* DESTROY_QUEUE: the face's, then the front's own teardown. */
int kfdemu_front_destroy(int handle, unsigned long request, void *a);
/* Look at every queue now (a runtime is about to sleep in WAIT_EVENTS). */
void kfdemu_front_kick(void);
/*
 * What the CP's end-of-pipe interrupt does for a signal naming event @id at @mailbox: write
 * the id there and raise the interrupt (the KFD face signals the event).
 */
void kfdemu_event_fire(uint64_t mailbox, uint32_t id);
/* The report lines of the front's queues, and the engines' (at exit). */
void kfdemu_front_report(void);

/* ---- sdma.c ------------------------------------------------------------------------------- */

struct kfdemu_sdma;
/* An SDMA engine queue on @dev with the runtime's ring and byte pointers. 0 or -errno. */
int kfdemu_sdma_create(unsigned int dev, void *ring, uint64_t size, uint64_t *rptr,
		       uint64_t *wptr, struct kfdemu_sdma **out);
void kfdemu_sdma_set_id(struct kfdemu_sdma *q, uint32_t kfd_id);
void kfdemu_sdma_destroy(struct kfdemu_sdma *q, uint32_t kfd_id);
/* Run every SDMA queue as far as it can go: true if anything ran; *waiting when a queue waits. */
bool kfdemu_sdma_run(bool *waiting);
void kfdemu_sdma_report(void);

/* ---- kernel.c ----------------------------------------------------------------------------- */

/*
 * The model kernel for a dispatch of kernel descriptor @kernel_object with @waves waves per
 * workgroup and @nwg workgroups, registered on first use, by name. Returns 0 and
 * *model_handle, or -errno.
 */
int kfdemu_kernel_resolve(uint64_t kernel_object, uint32_t waves, uint64_t nwg, void *kernarg,
			  uint64_t *model_handle);
/* The report's per-kernel lines (dispatches, workgroups, model duration) into @f. */
void kfdemu_kernel_report_to(FILE *f);
/*
 * Where a GPU access to [@va, @va + @len) lands in this process (the memory object's model
 * memory, or the runtime's own pages for userptr memory), or NULL when no single memory object
 * of the process holds it (where a GPU would fault).
 */
void *kfdemu_gpu_ptr(uint64_t va, uint64_t len);

#endif /* HSAQM_KFDEMU_INTERNAL_H */
