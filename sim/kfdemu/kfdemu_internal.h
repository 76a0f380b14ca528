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
 *   code_object.c  a loaded code object's metadata: each kernel's arguments (name, offset)
 *   effect.c     the kernels whose effects the emulation performs, found by name and by
 *                their arguments' names: ROCclr's blit kernels, hsaqm's probe kernel
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
/*
 * True once the GPU is lost: the shared device process this client used is gone (said once on
 * stderr). Then the KFD reports a GPU reset with memory lost and nothing runs (kfd.c).
 */
bool kfdemu_kfd_lost(void);

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

struct hsaqm_aql_dispatch;
/*
 * The model kernel for dispatch packet @d (its kernel descriptor's name; its waves per
 * workgroup and workgroup count from the packet), registered on first use. The kernels whose
 * effects the emulation performs (effect.c) know from the packet's grid which work-items
 * exist. Returns 0 and *model_handle; -EINVAL for a zero workgroup size; -ENODEV, -ENOMEM, or
 * the model's error.
 */
int kfdemu_kernel_resolve_dispatch(const struct hsaqm_aql_dispatch *d, uint64_t *model_handle);
/* The report's per-kernel lines (dispatches, workgroups, model duration) into @f. */
void kfdemu_kernel_report_to(FILE *f);
/*
 * Where a GPU access to [@va, @va + @len) lands in this process (the memory object's model
 * memory, or the runtime's own pages for userptr memory), or NULL when no single memory object
 * of the process holds it (where a GPU would fault).
 */
void *kfdemu_gpu_ptr(uint64_t va, uint64_t len);

/* ---- code_object.c ------------------------------------------------------------------------ */

#define KFDEMU_CO_MAX_ARGS 64

/* One kernel argument from the metadata. Strings point into the metadata (not terminated). */
struct kfdemu_co_arg {
	const char *name;     /* NULL when the compiler dropped the names (no -cl-kernel-arg-info) */
	uint32_t name_len;
	const char *kind;     /* .value_kind: "global_buffer", "by_value", "hidden_...", or NULL */
	uint32_t kind_len;
	uint32_t offset, size; /* in the kernarg segment */
};

struct kfdemu_co_kernel {
	uint32_t nargs;            /* in metadata order: the kernel's signature, then hidden ones */
	uint32_t kernarg_size;     /* .kernarg_segment_size, 0 if absent */
	bool incomplete;           /* an entry was unusable or past KFDEMU_CO_MAX_ARGS */
	struct kfdemu_co_arg arg[KFDEMU_CO_MAX_ARGS];
};

/*
 * The NT_AMDGPU_METADATA note of a code object image laid out as ROCr's loader places it
 * (segments at their virtual addresses from the ELF header at @img; @size readable bytes).
 * Returns 0 and the note's MessagePack bytes (inside the image); -EINVAL for an image that is
 * not a 64-bit AMDGPU ELF or whose program headers leave it; -ENOENT without that note.
 */
int kfdemu_co_metadata(const uint8_t *img, uint64_t size, const uint8_t **md, uint64_t *md_len);
/*
 * Kernel @name's arguments (matched by .name, or by .symbol "<name>.kd") from metadata @md.
 * Returns 0; -ENOENT when no kernel has that name; -EINVAL for malformed MessagePack (never
 * reads outside [@md, @md + @len)).
 */
int kfdemu_co_kernel_args(const uint8_t *md, uint64_t len, const char *name,
			  struct kfdemu_co_kernel *out);
/* The argument called @name, or NULL. */
const struct kfdemu_co_arg *kfdemu_co_arg(const struct kfdemu_co_kernel *k, const char *name);
/* True for the arguments the runtime fills (value kind "hidden_*"), not the program. */
bool kfdemu_co_arg_hidden(const struct kfdemu_co_arg *a);

/* ---- effect.c ----------------------------------------------------------------------------- */

enum kfdemu_effect_kind {
	KFDEMU_EFFECT_NONE = 0,
	KFDEMU_EFFECT_COPY_V1,        /* __amd_rocclr_copyBuffer (srcI, dstI, srcOrigin, ...) */
	KFDEMU_EFFECT_COPY_V2,        /* __amd_rocclr_copyBuffer (src, dst, size, remainder, ...) */
	KFDEMU_EFFECT_COPY_V3,        /* ... with workgroup_size */
	KFDEMU_EFFECT_COPY_ALIGNED,   /* __amd_rocclr_copyBufferAligned */
	KFDEMU_EFFECT_COPY_RECT,      /* __amd_rocclr_copyBufferRect */
	KFDEMU_EFFECT_COPY_RECT_ALIGNED,
	KFDEMU_EFFECT_FILL_V0,        /* __amd_rocclr_fillBuffer (bufUChar, bufUInt, ...) */
	KFDEMU_EFFECT_FILL_V1,        /* __amd_rocclr_fillBufferAligned (bufUChar, ..., bufULong) */
	KFDEMU_EFFECT_FILL_V2,        /* __amd_rocclr_fillBufferAligned (buf, pattern, ...) */
	KFDEMU_EFFECT_FILL_V3,        /* ... with workgroup_size */
	KFDEMU_EFFECT_FILL_2D,        /* __amd_rocclr_fillBufferAligned2D */
	KFDEMU_EFFECT_PROBE_SPIN,     /* hsaqm_probe_spin (tools/probe/kernels/spin.cl) */
	KFDEMU_EFFECT_KINDS
};

#define KFDEMU_EFFECT_MAX_ARGS 10

/* A kernel the emulation performs, and where its arguments are in the kernarg segment. */
struct kfdemu_effect {
	enum kfdemu_effect_kind kind;
	bool by_position;          /* the metadata had no names: bound by the signature's order */
	uint16_t ptrs;             /* which arguments are buffers (bit i: argument i) */
	uint32_t nargs;
	uint32_t span;             /* kernarg bytes the arguments occupy */
	uint32_t off[KFDEMU_EFFECT_MAX_ARGS];
};

/*
 * Assumption: one step of the probe kernel's LCG loop on a gfx942 wave. The loop is
 * v_mul_lo_u32 (quarter rate: 16 cycles for a wave64), v_add_u32 (4) and the scalar
 * decrement, compare and branch (about 4): about 24 cycles at the MI308X's 1420 MHz
 * (docs/hardware-facts.md), about 17 ns. Not measured on hardware.
 */
#define KFDEMU_SPIN_STEP_NS 17ull

/* The dispatch's shape (from its AQL packet): work-items per dimension, workgroup size. */
struct kfdemu_geom {
	uint32_t grid[3];
	uint16_t wg[3];
};

/* Where a GPU access to [va, va + len) lands in this process, or NULL (a fault). */
typedef void *(*kfdemu_xlate_fn)(void *ctx, uint64_t va, uint64_t len);

/* Every workgroup's effect at once (kfdemu_effect_run's @wg). */
#define KFDEMU_EFFECT_ALL_WGS UINT64_MAX

/* The kind's name for logs ("rocclr-copy-v2", ...). */
const char *kfdemu_effect_name(enum kfdemu_effect_kind kind);
/*
 * Whether kernel @name with arguments @k is one the emulation performs: by name, then by its
 * arguments' names and sizes (or, without names, the explicit arguments' order and sizes).
 * Returns 0 and *e; -ENOENT for a kernel the emulation does not perform; -EINVAL for a known
 * name whose arguments match none of the argument lists known for it.
 */
int kfdemu_effect_bind(const char *name, const struct kfdemu_co_kernel *k,
		       struct kfdemu_effect *e);
/*
 * The non-null buffer arguments of a dispatch (@ka: its kernel arguments): every address its
 * effect reaches lies in the memory object of one of them. Returns how many (at most @max).
 */
unsigned int kfdemu_effect_buffers(const struct kfdemu_effect *e, const uint8_t *ka,
				   uint64_t *va, unsigned int max);
/* True when each workgroup has its own effect (the probe); blits do theirs at once. */
bool kfdemu_effect_per_wg(const struct kfdemu_effect *e);
/*
 * The per-workgroup model duration the kernel's arguments give (the probe: iters x
 * KFDEMU_SPIN_STEP_NS, at least 1 ns): true and *ns, or false when the kernel's duration is
 * the kernel table's.
 */
bool kfdemu_effect_wg_ns(const struct kfdemu_effect *e, const uint8_t *kernarg, uint64_t *ns);
/*
 * Perform the effect of workgroup @wg (or KFDEMU_EFFECT_ALL_WGS) of a dispatch of @e with
 * kernel arguments @kernarg (e->span readable bytes) and shape @g (NULL: unknown, taken as
 * covering everything the arguments describe, as ROCclr's dispatches do). Memory is reached
 * only through @xlate. Returns 0; -EFAULT when a range is outside the process's GPU memory
 * (nothing is written: where a GPU would fault); -EINVAL for arguments whose ranges overflow.
 */
int kfdemu_effect_run(const struct kfdemu_effect *e, const uint8_t *kernarg,
		      const struct kfdemu_geom *g, uint64_t wg, kfdemu_xlate_fn xlate, void *ctx);
/* The probe's LCG after @n steps from @x (x' = 1664525 x + 1013904223 mod 2^32). */
uint32_t kfdemu_lcg_jump(uint32_t x, uint64_t n);

#endif /* HSAQM_KFDEMU_INTERNAL_H */
