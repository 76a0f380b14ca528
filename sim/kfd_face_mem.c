// SPDX-License-Identifier: MIT
/*
 * kfd_face_mem.c - the model KFD's process and memory family: apertures, ACQUIRE_VM, memory
 * objects (alloc, free, map, unmap, available memory), the small per-process settings (memory
 * policy, scratch backing, trap handler, XNACK mode, tile configuration) and the clock
 * counters. What a runtime's thunk (libhsakmt) issues before and around its queues; hsaqm
 * itself issues none of them. The rules are amdkfd's, read in (facts only):
 *   kfd_chardev.c      argument checks, handles, mmap offsets, the errno of each refusal
 *   kfd_flat_memory.c  the gfx9 apertures
 *   amdgpu_amdkfd_gpuvm.c, amdgpu_vm.c  what "mapped to the GPU" means (a VM range)
 *
 * Memory objects. The KFD's buffer objects live in VRAM or GTT, and the runtime maps them
 * for the CPU by mmap() of the DRM render node at the object's offset. Here every VRAM/GTT
 * object is model memory (sim_mem_alloc: the memfd every mode shares), which the render
 * node's mmap maps again at the runtime's address, so CPU and "GPU" see one set of pages and
 * the events page or a ring written through one address is read through the other. A
 * userptr object is the runtime's own memory: only its range is recorded. Doorbell and MMIO
 * remap objects are the process's doorbell slice and a page of model memory standing for the
 * HDP flush registers (writes to it do nothing, as the flush has nothing to flush here).
 *
 * The GPU's view of a process is its memory objects: a queue's ring, read and write pointers
 * must lie inside one (kfd_queue_acquire_buffers on current kernels checks the VM the same
 * way), or in model memory for hsaqm's own in-process users of the face.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hsaqm-common/barrier.h"
#include "kfd_face_state_internal.h"
#include "hsaqm-common/log.h"

/*
 * gfx9 apertures (kfd_flat_memory.c kfd_init_apertures_v9): LDS at 1 << 48 and scratch at
 * 2 << 48, each a 4 GiB window; GPUVM from the bottom reserve (AMDGPU_VA_RESERVED_BOTTOM,
 * 64 KiB) to the end of a 48-bit VM's lower half.
 */
#define KFD_LDS_BASE (1ull << 48)
#define KFD_SCRATCH_BASE (2ull << 48)
#define KFD_APERTURE_LIMIT(base) (((base) & 0xffffffff00000000ull) | 0xffffffffull)
#define KFD_GPUVM_BASE (1ull << 16)
#define KFD_GPUVM_LIMIT ((1ull << 47) - 1)
/*
 * GB_ADDR_CONFIG the model reports for GET_TILE_CONFIG (gfx9 has no tile mode tables):
 * assumption, a gfx9 value with 4 pipes, 256-byte interleave; nothing in the model reads it.
 */
#define KFD_GB_ADDR_CONFIG 0x22014042u
/* A memory object's DRM mmap offset: its id in bits 40 and up (page-aligned, unique). */
#define KFD_BO_OFFSET_SHIFT 40

enum kfd_bo_kind { BO_MEM, BO_USERPTR, BO_DOORBELL, BO_MMIO };

struct kfd_bo {
	uint32_t id;
	uint32_t gpu_id;
	unsigned int dev;
	enum kfd_bo_kind kind;
	uint32_t flags;
	uint64_t va, size;
	uint64_t mmap_offset;
	void *mem;             /* model memory (BO_MEM), NULL otherwise */
	uint32_t mapped;       /* devices it is mapped on, one bit each */
};

static uint64_t bo_handle(const struct kfd_bo *bo)
{
	return (uint64_t)bo->gpu_id << 32 | bo->id; /* MAKE_HANDLE(gpu_id, idr_handle) */
}

/* The pdd of @gpu_id in @p, and its device index; NULL for an id the node does not have. */
static struct kfd_pdd *pdd_of(struct kfd_face *f, struct kfd_proc *p, uint32_t gpu_id, int *dev)
{
	int d = sim_kfd_gpu_dev(f->sim, gpu_id);

	if (d < 0)
		return NULL;
	if (dev)
		*dev = d;
	return &p->pdd[d];
}

struct kfd_bo *kfd_face_bo(struct kfd_proc *p, uint64_t handle)
{
	uint32_t id = (uint32_t)handle, lo = 0, hi = p->nbos;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (p->bos[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->nbos && p->bos[lo]->id == id && p->bos[lo]->gpu_id == (uint32_t)(handle >> 32))
		return p->bos[lo];
	return NULL;
}

void *kfd_face_bo_mem(const struct kfd_bo *bo, uint64_t *size)
{
	if (size)
		*size = bo->size;
	return bo->mem;
}

bool kfd_face_mem_ok(const struct kfd_face *f, const struct kfd_proc *p, uint64_t addr,
		     size_t len)
{
	if (!addr)
		return false;
	if (sim_mem_contains(f->sim, (const void *)(uintptr_t)addr, len))
		return true;
	for (uint32_t i = 0; p && i < p->nbos; i++) {
		const struct kfd_bo *bo = p->bos[i];

		if (addr >= bo->va && len <= bo->size && addr - bo->va <= bo->size - len)
			return true;
	}
	return false;
}

/* ---- apertures, VM ------------------------------------------------------------------------ */

static void fill_apertures(struct kfd_face *f, unsigned int d,
			   struct hsaqm_kfd_process_device_apertures *a)
{
	memset(a, 0, sizeof(*a));
	a->lds_base = KFD_LDS_BASE;
	a->lds_limit = KFD_APERTURE_LIMIT(KFD_LDS_BASE);
	a->scratch_base = KFD_SCRATCH_BASE;
	a->scratch_limit = KFD_APERTURE_LIMIT(KFD_SCRATCH_BASE);
	a->gpuvm_base = KFD_GPUVM_BASE;
	a->gpuvm_limit = KFD_GPUVM_LIMIT;
	a->gpu_id = sim_kfd_gpu_id(f->sim, d);
}

/* The old form: at most NUM_OF_SUPPORTED_GPUS devices inline. */
int kfd_face_get_process_apertures(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_get_process_apertures_args *a = arg;
	unsigned int n = sim_device_count(f->sim);

	(void)p;
	a->num_of_nodes = 0;
	for (unsigned int d = 0; d < n && d < HSAQM_KFD_NUM_OF_SUPPORTED_GPUS; d++)
		fill_apertures(f, d, &a->process_apertures[a->num_of_nodes++]);
	return 0;
}

int kfd_face_get_process_apertures_new(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_get_process_apertures_new_args *a = arg;
	unsigned int n = sim_device_count(f->sim);
	struct hsaqm_kfd_process_device_apertures *out;

	(void)p;
	/* num_of_nodes 0: the caller asks how many (kfd_ioctl_get_process_apertures_new). */
	if (a->num_of_nodes == 0) {
		a->num_of_nodes = n;
		return 0;
	}
	if (a->num_of_nodes < n)
		n = a->num_of_nodes;
	out = (void *)(uintptr_t)a->kfd_process_device_apertures_ptr;
	if (!out)
		return -EFAULT;
	for (unsigned int d = 0; d < n; d++)
		fill_apertures(f, d, &out[d]);
	a->num_of_nodes = n;
	return 0;
}

/*
 * The process takes over the render node's VM (the runtime's DRM file). The model has one
 * address space per process, so there is nothing to take over; memory objects need it done.
 */
int kfd_face_acquire_vm(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_acquire_vm_args *a = arg;
	struct kfd_pdd *pdd = pdd_of(f, p, a->gpu_id, NULL);

	if (!pdd)
		return -EINVAL;
	pdd->vm_acquired = true;
	return 0;
}

/* ---- memory objects ----------------------------------------------------------------------- */

static int bo_insert(struct kfd_proc *p, struct kfd_bo *bo)
{
	if (p->nbos == p->capbos) {
		uint32_t cap = p->capbos ? p->capbos * 2 : 64;
		struct kfd_bo **v = realloc(p->bos, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->bos = v;
		p->capbos = cap;
	}
	/* Ids only grow, so appending keeps the array sorted. */
	bo->id = ++p->next_bo_id;
	p->bos[p->nbos++] = bo;
	return 0;
}

static void bo_remove(struct kfd_proc *p, struct kfd_bo *bo)
{
	for (uint32_t i = 0; i < p->nbos; i++) {
		if (p->bos[i] == bo) {
			memmove(&p->bos[i], &p->bos[i + 1], (p->nbos - i - 1) * sizeof(*p->bos));
			p->nbos--;
			return;
		}
	}
}

int kfd_face_alloc_memory(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_alloc_memory_of_gpu_args *a = arg;
	uint32_t kinds = a->flags & (HSAQM_KFD_ALLOC_MEM_VRAM | HSAQM_KFD_ALLOC_MEM_GTT |
				     HSAQM_KFD_ALLOC_MEM_USERPTR | HSAQM_KFD_ALLOC_MEM_DOORBELL |
				     HSAQM_KFD_ALLOC_MEM_MMIO_REMAP);
	struct kfd_pdd *pdd;
	struct kfd_bo *bo;
	int dev, err;

	pdd = pdd_of(f, p, a->gpu_id, &dev);
	if (!pdd)
		return -EINVAL;
	/* Exactly one kind (the KFD takes the first it checks; a runtime sets one). */
	if (!kinds || (kinds & (kinds - 1)) || !a->size)
		return -EINVAL;
	if (!pdd->vm_acquired)
		return -EINVAL; /* kfd_bind_process_to_device(): no VM yet */
	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return -ENOMEM;
	bo->gpu_id = a->gpu_id;
	bo->dev = (unsigned int)dev;
	bo->flags = a->flags;
	bo->va = a->va_addr;
	bo->size = a->size;
	if (kinds == HSAQM_KFD_ALLOC_MEM_DOORBELL) {
		/* Exactly the process's doorbell slice (kfd_ioctl_alloc_memory_of_gpu). */
		if (a->size != KFD_DOORBELL_SLICE) {
			free(bo);
			return -EINVAL;
		}
		bo->kind = BO_DOORBELL;
		bo->mmap_offset = KFD_MMAP_TYPE_DOORBELL |
				  ((uint64_t)a->gpu_id << KFD_MMAP_GPU_ID_SHIFT & KFD_MMAP_GPU_ID_MASK);
	} else if (kinds == HSAQM_KFD_ALLOC_MEM_MMIO_REMAP) {
		if (a->size != KFD_PAGE_SIZE) {
			free(bo);
			return -EINVAL;
		}
		bo->kind = BO_MMIO;
		bo->mmap_offset = KFD_MMAP_TYPE_MMIO |
				  ((uint64_t)a->gpu_id << KFD_MMAP_GPU_ID_SHIFT & KFD_MMAP_GPU_ID_MASK);
	} else if (kinds == HSAQM_KFD_ALLOC_MEM_USERPTR) {
		/* The runtime's own pages; mmap_offset carries their CPU address. */
		if (!a->mmap_offset || (a->mmap_offset & (KFD_PAGE_SIZE - 1))) {
			free(bo);
			return -EINVAL;
		}
		bo->kind = BO_USERPTR;
		bo->mmap_offset = a->mmap_offset;
	} else {
		uint64_t size = (a->size + KFD_PAGE_SIZE - 1) & ~(uint64_t)(KFD_PAGE_SIZE - 1);

		bo->kind = BO_MEM;
		bo->mem = sim_mem_alloc(f->sim, size, KFD_PAGE_SIZE);
		if (!bo->mem) {
			free(bo);
			return -ENOMEM; /* VRAM/GTT exhausted: what the runtime sees as out of memory */
		}
	}
	err = bo_insert(p, bo);
	if (err) {
		sim_mem_free(f->sim, bo->mem);
		free(bo);
		return err;
	}
	if (bo->kind == BO_MEM)
		bo->mmap_offset = (uint64_t)bo->id << KFD_BO_OFFSET_SHIFT;
	a->handle = bo_handle(bo);
	a->mmap_offset = bo->mmap_offset;
	return 0;
}

int kfd_face_free_memory(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_free_memory_of_gpu_args *a = arg;
	struct kfd_bo *bo = kfd_face_bo(p, a->handle);

	if (!bo)
		return -EINVAL;
	/* The events page stays while events use it (the KFD holds a reference). */
	if (p->ev && bo->mem && kfd_face_events_page(p, NULL) == bo->mem)
		return -EBUSY;
	bo_remove(p, bo);
	sim_mem_free(f->sim, bo->mem);
	free(bo);
	return 0;
}

/* MAP (@map) or UNMAP: every device in the array, resuming at n_success as the KFD does. */
static int map_unmap(struct kfd_face *f, struct kfd_proc *p, void *arg, bool map)
{
	struct hsaqm_kfd_map_memory_to_gpu_args *a = arg;
	struct kfd_bo *bo = kfd_face_bo(p, a->handle);
	const uint32_t *ids = (const uint32_t *)(uintptr_t)a->device_ids_array_ptr;

	if (!bo || !a->n_devices || a->n_success > a->n_devices)
		return -EINVAL;
	if (!ids)
		return -EFAULT;
	for (uint32_t i = a->n_success; i < a->n_devices; i++) {
		int dev;

		if (!pdd_of(f, p, ids[i], &dev))
			return -EINVAL;
		if (map)
			bo->mapped |= 1u << dev;
		else
			bo->mapped &= ~(1u << dev);
		a->n_success = i + 1;
	}
	return 0;
}

int kfd_face_map_memory(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	return map_unmap(f, p, arg, true);
}

int kfd_face_unmap_memory(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	return map_unmap(f, p, arg, false);
}

int kfd_face_available_memory(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_get_available_memory_args *a = arg;

	if (!pdd_of(f, p, a->gpu_id, NULL))
		return -EINVAL;
	a->available = sim_mem_available(f->sim);
	return 0;
}

void *kfd_face_bo_mmap(struct kfd_face *f, struct kfd_proc *p, void *addr, size_t len, int prot,
		       int flags, uint64_t offset, bool render_node)
{
	void *mem = NULL, *ret;
	int err = 0;

	kfd_face_lock(f);
	if (!render_node) {
		/* The MMIO remap page of the offset's device. */
		int dev = sim_kfd_gpu_dev(f->sim, (uint32_t)((offset & KFD_MMAP_GPU_ID_MASK) >>
							    KFD_MMAP_GPU_ID_SHIFT));

		if (dev < 0)
			err = ENODEV;
		else if (len != KFD_PAGE_SIZE)
			err = EINVAL; /* kfd_mmio_mmap(): exactly one page */
		else if (!(mem = p->pdd[dev].mmio_page)) {
			mem = sim_mem_alloc(f->sim, KFD_PAGE_SIZE, KFD_PAGE_SIZE);
			if (!mem)
				err = ENOMEM;
			/* Release: a zeroed page before another thread's unlocked look at it. */
			hsaqm_store_release(&p->pdd[dev].mmio_page, mem);
		}
	} else {
		struct kfd_bo *bo = NULL;

		for (uint32_t i = 0; i < p->nbos && !bo; i++)
			if (p->bos[i]->kind == BO_MEM && p->bos[i]->mmap_offset ==
			    (offset & ~(((uint64_t)1 << KFD_BO_OFFSET_SHIFT) - 1)))
				bo = p->bos[i];
		uint64_t within = offset & (((uint64_t)1 << KFD_BO_OFFSET_SHIFT) - 1);

		if (!bo || within > bo->size || len > bo->size - within)
			err = EINVAL; /* no object at that offset, or beyond its end */
		else
			mem = (char *)bo->mem + within;
	}
	if (err) {
		kfd_face_unlock(f);
		errno = err;
		return MAP_FAILED;
	}
	if ((flags & MAP_FIXED) && addr)
		ret = sim_mem_map_at(f->sim, mem, len, addr, prot);
	else
		ret = mem; /* model memory is mapped already: that mapping serves */
	kfd_face_unlock(f);
	return ret;
}

void *sim_kfd_face_render_mmap(struct hsaqm_sim *sim, void *addr, size_t len, int prot, int flags,
			       uint64_t offset)
{
	struct kfd_face *f = sim ? kfd_face_of(sim) : NULL;
	struct kfd_proc *p = NULL;

	if (!f) {
		errno = ENODEV;
		return MAP_FAILED;
	}
	kfd_face_lock(f);
	/* The render node is opened per process: the objects are the calling process's. */
	p = kfd_face_proc_of_caller(f);
	kfd_face_unlock(f);
	if (!p) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return kfd_face_bo_mmap(f, p, addr, len, prot, flags, offset, true);
}

/* Where the GPU's accesses to @bo land in this process (lock held). */
static void *bo_host(struct kfd_proc *p, const struct kfd_bo *bo)
{
	switch (bo->kind) {
	case BO_MEM:
		return bo->mem;
	case BO_USERPTR:
		return (void *)(uintptr_t)bo->mmap_offset; /* the runtime's own pages */
	case BO_DOORBELL:
		return p->pdd[bo->dev].doorbells;
	case BO_MMIO:
		return p->pdd[bo->dev].mmio_page;
	}
	return NULL;
}

int sim_kfd_face_gpu_object(struct hsaqm_sim *sim, uint64_t va, uint64_t *base, uint64_t *size,
			    void **host)
{
	struct kfd_face *f = sim ? kfd_face_of(sim) : NULL;
	int err = -ENOENT;

	if (!f)
		return -ENODEV;
	kfd_face_lock(f);
	for (unsigned int s = 0; s < KFD_MAX_PROCS && err; s++) {
		struct kfd_proc *p = f->procs[s];

		if (!p || p->owner != getpid() || p->closing)
			continue;
		/* The last hit first: copies and signal writes come in runs on one object. */
		if (p->last_bo < p->nbos) {
			const struct kfd_bo *bo = p->bos[p->last_bo];

			if (va >= bo->va && va - bo->va < bo->size && bo_host(p, bo)) {
				*base = bo->va;
				*size = bo->size;
				*host = bo_host(p, bo);
				err = 0;
				break;
			}
		}
		for (uint32_t i = 0; i < p->nbos; i++) {
			const struct kfd_bo *bo = p->bos[i];

			if (va >= bo->va && va - bo->va < bo->size && bo_host(p, bo)) {
				*base = bo->va;
				*size = bo->size;
				*host = bo_host(p, bo);
				p->last_bo = i;
				err = 0;
				break;
			}
		}
	}
	kfd_face_unlock(f);
	return err;
}

void kfd_face_mem_teardown(struct kfd_face *f, struct kfd_proc *p)
{
	for (uint32_t i = 0; i < p->nbos; i++) {
		sim_mem_free(f->sim, p->bos[i]->mem);
		free(p->bos[i]);
	}
	free(p->bos);
	p->bos = NULL;
	p->nbos = p->capbos = 0;
}

/* ---- small per-process settings ----------------------------------------------------------- */

int kfd_face_set_memory_policy(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_set_memory_policy_args *a = arg;
	struct kfd_pdd *pdd = pdd_of(f, p, a->gpu_id, NULL);

	/* KFD_IOC_CACHE_POLICY_COHERENT 0, _NONCOHERENT 1: anything else is refused. */
	if (!pdd || a->default_policy > 1 || a->alternate_policy > 1)
		return -EINVAL;
	pdd->default_policy = a->default_policy;
	return 0;
}

int kfd_face_set_scratch_backing_va(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_set_scratch_backing_va_args *a = arg;
	struct kfd_pdd *pdd = pdd_of(f, p, a->gpu_id, NULL);

	if (!pdd)
		return -EINVAL;
	pdd->scratch_va = a->va_addr;
	return 0;
}

int kfd_face_get_tile_config(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_get_tile_config_args *a = arg;

	if (!pdd_of(f, p, a->gpu_id, NULL))
		return -EINVAL;
	/* gfx9: no tile mode tables; the address configuration register only. */
	a->gb_addr_config = KFD_GB_ADDR_CONFIG;
	a->num_banks = 0;
	a->num_ranks = 0;
	a->num_tile_configs = 0;
	a->num_macro_tile_configs = 0;
	return 0;
}

int kfd_face_set_trap_handler(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_set_trap_handler_args *a = arg;
	struct kfd_pdd *pdd = pdd_of(f, p, a->gpu_id, NULL);

	if (!pdd)
		return -EINVAL;
	/* Recorded only: the model's waves run no code and never trap. */
	pdd->tba = a->tba_addr;
	pdd->tma = a->tma_addr;
	return 0;
}

int kfd_face_set_xnack_mode(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_set_xnack_mode_args *a = arg;

	(void)f;
	if (a->xnack_enabled >= 0) {
		/* kfd_ioctl_set_xnack_mode(): no change once the process has queues. */
		if (p->queues && (a->xnack_enabled != 0) != (p->xnack != 0))
			return -EBUSY;
		p->xnack = a->xnack_enabled != 0;
	}
	a->xnack_enabled = p->xnack;
	return 0;
}

/* ns of a host clock. */
static uint64_t host_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * As the KFD: the GPU's counter (here model ns, the domain of the timestamps the emulated
 * front end writes into completion signals), the CPU's raw monotonic clock and the system
 * clock, CLOCK_BOOTTIME (ktime_get_raw_ns, ktime_get_boottime_ns), read at one instant. A
 * runtime maps GPU timestamps onto the system clock through pairs of these, and ROCr's
 * HSA_SYSTEM_INFO_TIMESTAMP reads CLOCK_BOOTTIME itself: so profiling times and the
 * runtime's clock are one domain, as on a GPU (model time runs at host speed, scale 1).
 */
int kfd_face_get_clock_counters(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_get_clock_counters_args *a = arg;

	a->gpu_clock_counter = pdd_of(f, p, a->gpu_id, NULL) ? hsaqm_sim_now_ns(f->sim) : 0;
	a->cpu_clock_counter = host_clock_ns(CLOCK_MONOTONIC_RAW);
	a->system_clock_counter = host_clock_ns(CLOCK_BOOTTIME);
	a->system_clock_freq = 1000000000ull;
	return 0;
}
