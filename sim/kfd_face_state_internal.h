/* SPDX-License-Identifier: MIT */
/*
 * kfd_face_state_internal.h - the state of the model's KFD face, shared by its files:
 * kfd_face.c (open/close, the ioctl table, queues, DBG_TRAP), kfd_face_mem.c (apertures,
 * VM, memory objects, mmap) and kfd_face_event.c (events). Like amdkfd's kfd_priv.h: one
 * struct per KFD object (the face = the driver, a process, a per-device part of a process,
 * a queue). Nothing outside those files includes it.
 */
#ifndef HSAQM_SIM_KFD_FACE_STATE_INTERNAL_H
#define HSAQM_SIM_KFD_FACE_STATE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "hsaqm-kfd/kfd_transport.h"
#include "hsaqm-kfd/kfd_uapi.h"
#include "kfd_face_internal.h"

struct kfd_bo;
struct kfd_events;

/* Open handles per model; handles are numbered from KFD_HANDLE_BASE like descriptors. */
#define KFD_MAX_HANDLES 256
/* KFD processes per model face (one per OS process that opened it). */
#define KFD_MAX_PROCS 64
/* KFD PASIDs start above the graphics ones. */
#define KFD_PASID_BASE 0x8001u
#define KFD_HANDLE_BASE 1000
/* ioctl numbers only ROCm's out-of-tree amdgpu driver had (kfd_ioctl.h "non-upstream"). */
#define KFD_DKMS_IOCTL_FIRST 0x80u
#define KFD_DKMS_IOCTL_LAST 0x86u
/* KFD_MAX_NUM_OF_QUEUES_PER_PROCESS (kfd_priv.h): queue ids and doorbells per process. */
#define KFD_MAX_QUEUES 1024u
/* SOC15 doorbells are 64-bit; a process's doorbells fill 2 pages (kfd_doorbell.c). */
#define KFD_DOORBELL_BYTES 8u
#define KFD_DOORBELL_SLICE (KFD_MAX_QUEUES * KFD_DOORBELL_BYTES)
/* mmap offset encoding (kfd_priv.h KFD_MMAP_*, hsaqm-kfd/kfd_uapi.h). */
#define KFD_MMAP_TYPE_MASK HSAQM_KFD_MMAP_TYPE_MASK
#define KFD_MMAP_TYPE_DOORBELL HSAQM_KFD_MMAP_TYPE_DOORBELL
#define KFD_MMAP_TYPE_EVENTS HSAQM_KFD_MMAP_TYPE_EVENTS
#define KFD_MMAP_TYPE_MMIO HSAQM_KFD_MMAP_TYPE_MMIO
#define KFD_MMAP_GPU_ID_SHIFT HSAQM_KFD_MMAP_GPU_ID_SHIFT
#define KFD_MMAP_GPU_ID_MASK HSAQM_KFD_MMAP_GPU_ID_MASK
#define KFD_PAGE_SIZE 4096u
/* VMIDs the KFD owns on gfx9 (8-15): processes a device takes with sched_policy=1. */
#define KFD_VMIDS 8u
/* Kernel-internal ENOTSUPP, which set_queue_properties_from_user() leaks for a bad type. */
#define KFD_ENOTSUPP 524
/* Watch points per device (kfd_debug.c MAX_WATCH_ADDRESSES). */
#define KFD_MAX_WATCH 4u
/* DBG_TRAP SET_FLAGS bits and wave launch modes (kfd_ioctl.h). */
#define KFD_DBG_FLAG_SINGLE_MEM_OP 1u
#define KFD_DBG_FLAG_SINGLE_ALU_OP 2u
#define KFD_DBG_FLAG_LDS_OUT_OF_ADDR_RANGE 4u
#define KFD_WAVE_LAUNCH_NORMAL 0u
#define KFD_WAVE_LAUNCH_HALT 1u
#define KFD_WAVE_LAUNCH_DEBUG 3u
/*
 * VIRTUAL mode: how long (wall clock) a KFD wait that only another host thread can end
 * (destroy of a suspended queue, a blocked RUNTIME_ENABLE) waits before it fails with
 * EINTR, as the kernel's interruptible wait does when a signal arrives. Model time does not
 * move while it waits; the ioctl wrapper retries EINTR, so a caller waits about 64 x this.
 */
#define KFD_VIRTUAL_WAIT_NS (5ull * 1000 * 1000)


struct kfd_queue {
	struct kfd_queue *next; /* process list, newest first (the pqm's list_add) */
	struct kfd_proc *proc;
	uint32_t id;
	unsigned int dev;
	uint32_t doorbell_id;
	struct sim_hwq *hwq;
	uint32_t type;
	uint64_t ring_base;
	uint32_t ring_size;
	uint64_t wptr, rptr;
	uint64_t ctx_save_addr;
	uint32_t ctx_save_size;
	uint32_t ctl_stack_size;
	uint32_t percentage;
	uint32_t priority;
	uint64_t exception_status;
	uint64_t hw_exception; /* atomic: set by the queue's error callback (engine thread) */
	bool suspended;
	bool being_destroyed;
	/* A front end's queue (sim_kfd_face_front_next()): what the packet processor runs. */
	bool front_only; /* the front runs it entirely (SDMA): no hardware queue in the model */
	void *front_ring;
	sim_hwq_error_fn front_error_fn;
	void *front_error_ctx;
};

struct kfd_pdd {
	void *doorbells;                          /* model memory, KFD_DOORBELL_SLICE; atomic */
	struct sim_hwq *db_hwq[KFD_MAX_QUEUES];   /* doorbell slot -> queue; atomic */
	uint8_t db_used[KFD_MAX_QUEUES];
	uint32_t nqueues;
	uint64_t exception_status;
	uint32_t watch_ids;
	/* Process state the thunk sets up (kfd_face_mem.c). */
	bool vm_acquired;        /* ACQUIRE_VM */
	uint64_t scratch_va;     /* SET_SCRATCH_BACKING_VA */
	uint64_t tba, tma;       /* SET_TRAP_HANDLER */
	uint32_t default_policy; /* SET_MEMORY_POLICY */
	void *mmio_page;         /* model memory behind the MMIO remap page; atomic */
};

struct kfd_proc {
	struct kfd_face *face;
	int slot;        /* in face->procs */
	pid_t owner;
	uint32_t pasid;
	uint32_t refs;   /* open handles */
	bool shared_pasid; /* the PASID came from the device process (shared mode) */
	uint32_t busy;   /* ioctls in progress: close waits for them */
	bool closing;
	struct kfd_queue *queues;
	uint8_t qid_used[KFD_MAX_QUEUES];
	struct kfd_pdd pdd[HSAQM_SIM_MAX_DEVICES];
	/* RUNTIME_ENABLE */
	uint32_t runtime_state;
	uint64_t r_debug;
	uint32_t ttmp_setup;
	bool runtime_retry;
	uint32_t runtime_sema;
	/* DBG_TRAP */
	bool dbg_enabled;
	int dbg_fd; /* our own reference to the debugger's file, as the KFD's fget() */
	uint64_t exception_enable_mask;
	uint64_t exception_status;
	uint32_t dbg_flags;
	/* Memory objects (kfd_face_mem.c): sorted by id; ids count from 1. */
	struct kfd_bo **bos;
	uint32_t nbos, capbos, next_bo_id;
	uint32_t last_bo; /* index of the last object sim_kfd_face_gpu_object() found */
	int32_t xnack; /* SET_XNACK_MODE: 0 off (gfx9.4 default without the kernel option) */
	/* Events (kfd_face_event.c). */
	struct kfd_events *ev;
};

struct kfd_face {
	struct hsaqm_sim *sim;
	struct hsaqm_kfd_transport tp;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC: destroy and runtime waits, close */
	/*
	 * DESTROY_QUEUEs waiting for a debugger's resume (under lock). A resume wakes the cond
	 * only when one waits: every WAIT_EVENTS sleeps on it too, and waking them all made the
	 * runtime's event threads race the resuming call for the lock, tens of microseconds of
	 * its length on two cores.
	 */
	unsigned int destroy_waiters;
	struct kfd_proc *handles[KFD_MAX_HANDLES]; /* handle -> process; atomic */
	struct kfd_proc *procs[KFD_MAX_PROCS]; /* atomic: doorbell_written reads them unlocked */
	uint32_t next_pasid;
	uint32_t db_users; /* doorbell_written() calls in flight */
	uint32_t minor;
	uint64_t unmodelled; /* ioctls the face does not model, answered with an error; atomic */
	uint64_t dkms_only;  /* ROCm-driver-only numbers (0x80..), -EINVAL as upstream; atomic */
	bool virtual_time;
	bool cwsr;
	int sched_policy;
};


/* ---- kfd_face.c helpers the other files use -------------------------------------------- */

void kfd_face_lock(struct kfd_face *f);
void kfd_face_unlock(struct kfd_face *f);
/* Sleep on the face's condition (lock held); see kfd_face.c. */
int kfd_face_wait(struct kfd_face *f, const struct timespec *deadline);
/* The process of @handle (lock held or not: the pointer is published with release). */
struct kfd_proc *kfd_face_proc(struct kfd_face *f, int handle);
/* The calling process's live KFD process, or NULL (lock held). */
struct kfd_proc *kfd_face_proc_of_caller(struct kfd_face *f);
/* The face of @sim, made on first use. */
struct kfd_face *kfd_face_of(struct hsaqm_sim *sim);

/* ---- kfd_face_mem.c ------------------------------------------------------------------------ */

/* The ioctls of the memory family (lock held, as the table's functions). */
int kfd_face_get_process_apertures(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_get_process_apertures_new(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_acquire_vm(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_alloc_memory(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_free_memory(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_map_memory(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_unmap_memory(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_available_memory(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_set_memory_policy(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_set_scratch_backing_va(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_get_tile_config(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_set_trap_handler(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_set_xnack_mode(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_get_clock_counters(struct kfd_face *f, struct kfd_proc *p, void *arg);
/*
 * True when [addr, addr + len) is memory the GPU of @p can reach: model memory, or inside
 * one of @p's memory objects (the KFD checks a queue's ring and pointers against the VM).
 */
bool kfd_face_mem_ok(const struct kfd_face *f, const struct kfd_proc *p, uint64_t addr,
		     size_t len);
/* The memory object @handle of @p, or NULL (lock held). */
struct kfd_bo *kfd_face_bo(struct kfd_proc *p, uint64_t handle);
/* Its model memory (NULL for a userptr object) and size. */
void *kfd_face_bo_mem(const struct kfd_bo *bo, uint64_t *size);
/* mmap of a memory object's KFD offset (MMIO remap) or DRM offset; errno style. */
void *kfd_face_bo_mmap(struct kfd_face *f, struct kfd_proc *p, void *addr, size_t len, int prot,
		       int flags, uint64_t offset, bool render_node);
/* Process exit: every memory object goes. */
void kfd_face_mem_teardown(struct kfd_face *f, struct kfd_proc *p);

/* ---- kfd_face_event.c --------------------------------------------------------------------- */

int kfd_face_create_event(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_destroy_event(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_set_event(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_reset_event(struct kfd_face *f, struct kfd_proc *p, void *arg);
int kfd_face_wait_events(struct kfd_face *f, struct kfd_proc *p, void *arg);
/* The events page the KFD allocated itself (no page given at the first create), for mmap. */
void *kfd_face_events_page(struct kfd_proc *p, size_t *len);
void kfd_face_event_teardown(struct kfd_face *f, struct kfd_proc *p);

#endif /* HSAQM_SIM_KFD_FACE_STATE_INTERNAL_H */
