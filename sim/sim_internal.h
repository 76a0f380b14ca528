/* SPDX-License-Identifier: MIT */
/*
 * sim_internal.h - the contract inside sim/ between the device model (the "hardware":
 * clock, CUs, packet processors, HWS, CWSR, signals) and its two faces:
 *   - kfd_face.c plays the KFD driver: processes, queue ids, validation, errno, the
 *     debugger state (DBG_TRAP enable, EC_QUEUE_NEW, suspend bookkeeping). It drives the
 *     hardware only through the sim_hwq_* calls below.
 *   - hsa_face.c plays ROCr: signals, agents, memory pools, AQL queues. Like ROCr over
 *     libhsakmt, it creates its queues through the KFD face, never through sim_hwq_* directly.
 * Private to sim/ (with kfdemu/), the model's tests and the benches that measure it
 * (experiments/bench); the rest of the tree has hsaqm-sim/sim.h.
 *
 * Threads: in REAL mode every device has an engine thread; sim_hwq_* calls come from any
 * host thread and are posted to the engine, and the ones that must wait (suspend, destroy)
 * block until the engine has done them. In VIRTUAL mode there is no engine thread: a call
 * that must wait runs the event loop itself, advancing model time as far as needed.
 *
 * Functions return 0 or a negative errno unless their comment says otherwise.
 */
#ifndef HSAQM_SIM_INTERNAL_H
#define HSAQM_SIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hsaqm-sim/sim.h"

/* ------------------------------------------------------------------------------------
 * Profile: the device's constants, each with its source (docs/sim.md, "Constants").
 */

struct sim_const {
	const char *name;   /* e.g. "hws_quantum_ns" */
	uint64_t value;
	char source[160];   /* "captured: ...", "source: ...", or "assumption" */
};

struct sim_profile {
	/* From the KFD properties file. */
	uint32_t gfx_target_version; /* 90402 */
	uint32_t device_id;
	uint32_t vendor_id;
	uint32_t num_xcc;
	uint32_t cu_count;           /* simd_count / simd_per_cu */
	uint32_t simd_per_cu;
	uint32_t max_waves_per_simd;
	uint32_t wave_front_size;
	uint32_t lds_size_kb;
	uint32_t num_cp_queues;
	uint32_t max_engine_clk_mhz; /* max_engine_clk_fcompute */
	uint32_t fw_version;
	uint64_t capability;
	uint32_t debug_prop;
	uint32_t num_sdma_engines;
	uint32_t num_sdma_xgmi_engines;
	uint32_t num_sdma_queues_per_engine;
	uint32_t drm_render_minor;
	uint64_t unique_id;
	char properties_text[4096];  /* the file as read, for the generated sysfs tree */

	/* Timing and structural constants (named entries, with sources). */
	uint32_t hqd_slots;              /* user queues mapped at once */
	uint64_t queue_create_ns;
	uint64_t hws_quantum_ns;
	uint64_t hws_map_ns;
	uint64_t hws_unmap_ns;
	uint64_t dispatch_launch_ns;
	uint32_t max_inflight_dispatches; /* launched, unfinished dispatches per queue */
	uint64_t cwsr_save_ns_per_wave;
	uint64_t cwsr_restore_ns_per_wave;
	uint64_t dbg_suspend_ns;
	uint64_t dbg_resume_ns;
	uint32_t hws_default_grace_units; /* grace of preemptions with USE_DEFAULT_GRACE_PERIOD */

	struct sim_const consts[32]; /* every constant above with its source, for dumps */
	unsigned int nconsts;
};

/*
 * Fill @p from a KFD properties file (NULL: the built-in copy of the MI308X capture) and
 * a timing file (NULL: defaults; format "name value  # source" per line).
 * Return: 0; -ENOENT; -EINVAL for a malformed file (the log names the line).
 */
int sim_profile_load(struct sim_profile *p, const char *properties_path, const char *timing_path);
int sim_profile_parse_properties(struct sim_profile *p, const char *text);
void sim_profile_dump(const struct sim_profile *p, FILE *out);

/* ------------------------------------------------------------------------------------
 * Model memory (arena.c): memfd-backed, zeroed, mapped at the same address in a client and
 * in a device process. Signals, rings and counters the model touches must live here.
 */
void *sim_mem_alloc(struct hsaqm_sim *sim, size_t size, size_t align);
void sim_mem_free(struct hsaqm_sim *sim, void *ptr);
bool sim_mem_contains(const struct hsaqm_sim *sim, const void *ptr, size_t len);
/*
 * sim_mem_map_at() - map model memory [@ptr, @ptr + @len) a second time, at exactly @addr
 * (both page-aligned), with @prot: the same pages behind two addresses, as a GPU buffer is
 * behind each CPU mapping of it. Return: @addr, or MAP_FAILED with errno set.
 * sim_mem_available() - model memory not allocated (advisory).
 */
void *sim_mem_map_at(struct hsaqm_sim *sim, void *ptr, size_t len, void *addr, int prot);
size_t sim_mem_available(const struct hsaqm_sim *sim);
/* The size of model memory (the arena). */
size_t sim_mem_size(const struct hsaqm_sim *sim);
/* Whether the sysfs tree is the runtime's (sysfs.c); set once, before the tree exists. */
bool sim_runtime_topology(const struct hsaqm_sim *sim);
void sim_set_runtime_topology(struct hsaqm_sim *sim);

/* ------------------------------------------------------------------------------------
 * Signals (signal.c). A signal's handle is the address of its struct sim_signal in model
 * memory, as ROCr's handle is the address of its amd_signal_t.
 */

#define SIM_SIGNAL_MAGIC 0x5349474eu /* "SIGN" */

enum sim_signal_kind {
	SIM_SIGNAL_USER = 0,
	SIM_SIGNAL_DOORBELL = 1, /* a queue's doorbell: a store rings the hardware queue */
};

struct sim_hwq;

struct sim_signal {
	int64_t value;          /* every access atomic (barrier.h) */
	uint32_t seq;           /* bumped on every change: host waiters futex-wait on it */
	uint32_t host_waiters;  /* futex wake only when non-zero */
	uint32_t device_watch;  /* bit d: device d's engine waits on this signal */
	uint32_t magic;         /* SIM_SIGNAL_MAGIC while alive, 0 after destroy */
	uint32_t kind;          /* enum sim_signal_kind */
	uint32_t writers;       /* operations in progress: destroy waits for them (was padding) */
	struct sim_hwq *hwq;    /* DOORBELL: the queue it rings */
	uint64_t event_mailbox; /* reserved for an interrupt event (issue 9) */
	uint64_t event_id;
	int64_t start_ts;       /* profiling: model ns, filled on completion-signal use */
	int64_t end_ts;
	uint64_t change_time;   /* model time of the last change: an engine handling an event
				 * late never acts on a change from its future */
	/*
	 * Not NULL: loads read this instead of value (sim_signal_set_external()); stores still
	 * go to value and wake as ever. The emulated /dev/kfd's stand-ins for a runtime's
	 * signals, in its process only: the model reads the runtime's value when it evaluates.
	 */
	const int64_t *ext_value;
};

struct sim_signal *sim_signal_create(struct hsaqm_sim *sim, int64_t initial);
void sim_signal_destroy(struct hsaqm_sim *sim, struct sim_signal *s);
/* NULL when @handle is not a live signal of this model (checked, never dereferenced blindly). */
struct sim_signal *sim_signal_from_handle(const struct hsaqm_sim *sim, uint64_t handle);

int64_t sim_signal_load(const struct sim_signal *s);
/*
 * Make @s's loads read *@ext (NULL: its own value again). For a signal that stands for one the
 * model cannot be told about (a runtime's, written by its host without a system call): the
 * packet processor then reads it where a CP reads memory, at the moment it evaluates, and the
 * owner stores to @s only to wake it. Only where @ext is mapped: never in a shared device
 * process.
 */
void sim_signal_set_external(struct sim_signal *s, const int64_t *ext);
/* Every change wakes host waiters and the engines that watch the signal. */
void sim_signal_store(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v);
int64_t sim_signal_exchange(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v);
int64_t sim_signal_cas(struct hsaqm_sim *sim, struct sim_signal *s, int64_t expected, int64_t v);
int64_t sim_signal_add(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v); /* returns old */
int64_t sim_signal_and(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v);
int64_t sim_signal_or(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v);
int64_t sim_signal_xor(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v);

enum sim_cond { SIM_COND_EQ = 0, SIM_COND_NE = 1, SIM_COND_LT = 2, SIM_COND_GTE = 3 };

/*
 * Wait until the condition holds or @timeout_ns (model time; UINT64_MAX = forever) passes.
 * In VIRTUAL mode a wait runs the event loop. Returns the last value observed.
 */
int64_t sim_signal_wait(struct hsaqm_sim *sim, struct sim_signal *s, enum sim_cond cond,
			int64_t compare, uint64_t timeout_ns);
/* Any of @n signals; returns the index satisfied, or n on timeout. */
uint32_t sim_signal_wait_any(struct hsaqm_sim *sim, uint32_t n, struct sim_signal *const *s,
			     const enum sim_cond *conds, const int64_t *compares, uint64_t timeout_ns,
			     int64_t *value);

/*
 * Asynchronous handler (hsa_amd_signal_async_handler): @fn runs on a model thread when the
 * condition holds; it returns true to stay armed. One handler thread per model.
 */
typedef bool (*sim_signal_handler_fn)(int64_t value, void *arg);
int sim_signal_async_handler(struct hsaqm_sim *sim, struct sim_signal *s, enum sim_cond cond,
			     int64_t compare, sim_signal_handler_fn fn, void *arg);

/* ------------------------------------------------------------------------------------
 * Hardware queues (device.c, pp.c, hws.c): what the CP and the HWS see of a queue (an MQD).
 */

enum sim_hwq_state {
	SIM_HWQ_UNMAPPED = 0, /* in the runlist, waiting for an HQD slot or its time slice */
	SIM_HWQ_MAPPED = 1,   /* on an HQD: the packet processor runs */
	SIM_HWQ_SUSPENDED = 2,/* suspended (debugger) or inactive (percentage 0): never mapped */
	SIM_HWQ_ERROR = 3,    /* stopped on a malformed packet; never runs again */
};

/* Called on the engine thread when the queue enters the error state; @hsa_status is the
 * HSA status a GPU would report (e.g. HSA_STATUS_ERROR_INVALID_PACKET_FORMAT 0x1009). */
typedef void (*sim_hwq_error_fn)(void *ctx, struct sim_hwq *q, int hsa_status);

struct sim_hwq_desc {
	unsigned int dev;          /* device index */
	void *ring_base;           /* model memory, 64-byte aligned */
	uint32_t ring_size_bytes;  /* power of two, multiple of 64 */
	uint64_t *write_ptr;       /* model memory: where the producer's write index lives */
	uint64_t *read_ptr;        /* model memory: where the packet processor writes consumed index */
	uint32_t priority;         /* KFD 0..15 */
	bool active;               /* false = percentage 0 */
	uint32_t pasid;            /* owning process, for traces and "other processes present" */
	bool kfd_queue;            /* a KFD queue (listed in kfd/proc), with this KFD queue id: */
	uint32_t kfd_queue_id;
	sim_hwq_error_fn error_fn;
	void *error_ctx;
};

/*
 * Add a queue to the device's runlist. Like every runlist change on HWS (create, destroy,
 * update, CU mask, suspend, resume) it unmaps every queue of the device and maps the runlist
 * again (amdkfd execute_queues_cpsch); the call returns once the unmap is done.
 * Return: 0; -EINVAL; -ENOMEM; -EDEADLK from a model callback.
 */
int sim_hwq_create(struct hsaqm_sim *sim, const struct sim_hwq_desc *d, struct sim_hwq **out);
/*
 * Remove it: unmapped (running workgroups are discarded, their packets never complete).
 * The caller (the KFD face) is responsible for refusing or waiting when it is suspended.
 */
int sim_hwq_destroy(struct sim_hwq *q);
/*
 * UPDATE_QUEUE: ring (NULL = keep it and deactivate, as a null ring on 6.12+), priority, active.
 * Any update unmaps every queue of the device once (as the KFD's update_queue on HWS);
 * an inactive queue is then not mapped again until reactivated.
 */
int sim_hwq_update(struct sim_hwq *q, void *ring_base, uint32_t ring_size_bytes, uint32_t priority,
		   bool active);
/* SET_CU_MASK: bit i = CU i may run this queue's workgroups; @nbits multiple of 32. */
int sim_hwq_set_cu_mask(struct sim_hwq *q, const uint32_t *mask, uint32_t nbits);
/*
 * The doorbell, @value = index of the last packet published (HSA doorbell semantics). The
 * packet processor looks at the ring again, up to the highest index rung (values out of
 * order are fine); a value a whole ring beyond the read index is an overrun (queue error).
 */
void sim_hwq_doorbell(struct sim_hwq *q, uint64_t value);

/*
 * @grace_units of sim_hwq_suspend() meaning "the device's default grace period" (the uapi's
 * USE_DEFAULT_GRACE_PERIOD, 0xffffffff): the profile's hws_default_grace_units, which a
 * timing file may override.
 */
#define SIM_HWQ_GRACE_DEFAULT UINT32_MAX

/*
 * Suspend @n queues (DBG_TRAP SUSPEND_QUEUES semantics on the hardware side): no new
 * workgroup starts; running ones get @grace_units x 1024 GPU clocks (SIM_HWQ_GRACE_DEFAULT:
 * the device's default), then the rest are saved with CWSR (or, CWSR off, awaited). Blocks
 * until all are off the hardware.
 * Return: 0; -EINVAL; -ENOMEM; -EDEADLK from a model callback.
 */
int sim_hwq_suspend(struct sim_hwq *const *q, uint32_t n, uint32_t grace_units);
/* Resume: restore saved waves, map again, continue. Return: 0; -EINVAL if not suspended. */
int sim_hwq_resume(struct sim_hwq *const *q, uint32_t n);

struct sim_hwq_info {
	enum sim_hwq_state state;
	uint32_t queue_index;        /* per device, stable */
	uint32_t priority;
	uint64_t dispatches_launched;
	uint64_t packets_completed;
	uint64_t workgroups_running; /* on CUs now */
	uint64_t waves_saved;        /* held in the CWSR area now */
	uint64_t ctl_stack_used_bytes;
	uint64_t save_area_used_bytes;
	uint64_t ring_base;
	uint32_t ring_size_bytes;
	uint64_t *write_ptr;
	uint64_t *read_ptr;
	uint32_t pasid;
	unsigned int dev;
};
int sim_hwq_get_info(const struct sim_hwq *q, struct sim_hwq_info *info);

/* Device-wide view for the KFD face (sysfs, "other processes present"). */
const struct sim_profile *sim_device_profile(const struct hsaqm_sim *sim, unsigned int dev);
unsigned int sim_device_count(const struct hsaqm_sim *sim);

/* Trace (trace.c): no-ops when the model has no trace file. */
void sim_trace_instant(struct hsaqm_sim *sim, unsigned int dev, uint32_t track, const char *name,
		       const char *args_json);

/* ------------------------------------------------------------------------------------
 * What the faces need from the core besides the hardware (added with the core).
 */

/* The configuration the model was created with (defaults filled in: num_devices >= 1,
 * time_scale > 0, kfd_minor_version 11..18). Never NULL for a live model. */
const struct hsaqm_sim_config *sim_config(const struct hsaqm_sim *sim);

enum sim_face {
	SIM_FACE_HSA = 0,
	SIM_FACE_KFD = 1,
	SIM_FACE_SYSFS = 2,
};

typedef void *(*sim_face_init_fn)(struct hsaqm_sim *sim);
typedef void (*sim_face_fini_fn)(struct hsaqm_sim *sim, void *state);

/*
 * A face's per-model state, created on first use: returns the state stored for @face, or
 * calls @init (once, under a model mutex) and stores what it returns with @fini. At
 * hsaqm_sim_destroy() the finis run in the order HSA, KFD, SYSFS (the HSA face's queues go
 * through the KFD face) while the engines still run, so a fini may still destroy its
 * queues with sim_hwq_destroy().
 * @init may itself ask for another face (the lock is recursive).
 * Return: the state, or NULL if @init returned NULL (nothing stored; a later call retries).
 */
void *sim_face_state(struct hsaqm_sim *sim, enum sim_face face, sim_face_init_fn init,
		     sim_face_fini_fn fini);

/*
 * Callbacks (kernel workgroup callbacks, queue error callbacks, and signal async handlers)
 * run on a model thread with no model lock held: kernel and queue error callbacks on the
 * device's engine thread in REAL mode, in the event loop (vloop_lock held) in VIRTUAL mode.
 * Async handlers run on the model's handler thread in REAL mode, which may block; in VIRTUAL
 * mode on the host thread that ran the loop, after it released the loop and its last face
 * lock (sim_face_unlock), so they may take any face lock (docs/sim.md, "Locks and callbacks").
 * Callbacks may call the non-blocking functions:
 * sim_signal_load/store/exchange/cas/add/and/or/xor, sim_hwq_doorbell, sim_hwq_get_info,
 * hsaqm_sim_now_ns, sim_mem_alloc/free, sim_trace_instant (and, VIRTUAL async handlers, the
 * faces' calls that do not wait for the model). They must not block the model:
 * sim_signal_wait/wait_any then return at once with the current value, and
 * sim_hwq_create/destroy/update/set_cu_mask/suspend/resume, hsaqm_sim_advance and
 * hsaqm_sim_run_until_idle return -EDEADLK. A face that must react to an error with a
 * blocking call (ROCr deactivates a queue in error) does it from another thread (e.g. its
 * async-handler thread), as ROCr itself does. Kernel and queue error callbacks must not take
 * a face lock (they run inside the loop, which a face may run with its lock held).
 */

/*
 * The faces' locks (the KFD face's, the HSA face's, the HSA face's graveyard): every face
 * takes them with these, so the core knows whether the calling thread holds one. The lock
 * order is HSA face -> KFD face -> the core (vloop_lock and below). A VIRTUAL loop run under
 * a face lock leaves the async handlers it found due; sim_face_unlock() of the thread's last
 * face lock runs them (@sim: the model whose handlers to run; NULL for none).
 */
void sim_face_lock(pthread_mutex_t *m);
void sim_face_unlock(struct hsaqm_sim *sim, pthread_mutex_t *m);

/* ------------------------------------------------------------------------------------
 * The KFD's per-process view in the generated sysfs tree (class/kfd/kfd/proc), which is
 * how a process learns which other processes have queues on a GPU.
 */

/* One KFD queue as the KFD's sysfs lists it. */
struct sim_proc_queue {
	uint32_t pid;      /* the folder name: the OS pid of the KFD process */
	uint32_t pasid;
	uint32_t queue_id; /* the process's KFD queue id; SIM_PROC_NO_QUEUE: the process only */
	uint32_t gpu_id;
	uint32_t type;     /* the KFD's internal queue type: 0 compute (AQL or PM4), 1 SDMA */
	uint64_t size;     /* ring bytes */
};

/* queue_id of an entry that only says the process exists (its folder, its pasid). */
#define SIM_PROC_NO_QUEUE UINT32_MAX

/*
 * sim_sysfs_proc_write() - rewrite class/kfd/kfd/proc from @q (sysfs.c): one folder per pid
 * with its pasid and a queues folder, and queues/<id>/{size, type, gpuid} for each queue.
 * Return: 0; -EINVAL; -errno of the file system.
 */
int sim_sysfs_proc_write(struct hsaqm_sim *sim, const struct sim_proc_queue *q, unsigned int n);

/*
 * sim_proc_view_sync() - bring class/kfd/kfd/proc up to date with every KFD process of the
 * node and its queues (proc_view.c). The KFD has one process per OS process, listed under
 * its pid: in-process, the KFD face's processes (sim_kfd_face_procs); in shared mode, every
 * client's, as the device process knows them (sim_shared_proc_list), so each client sees the
 * others. A snapshot, taken under the lists' own locks (queues may come and go meanwhile).
 * Return: 0; -EINVAL for NULL; -ENOMEM; -EPIPE, -EPROTO (device gone); the errors of
 * sim_sysfs_proc_write().
 */
int sim_proc_view_sync(struct hsaqm_sim *sim);

/*
 * Shared mode's half of the node-wide view (shared.c). sim_shared_kfd_process(): a client's
 * KFD face tells the device process that its KFD process opens (@open: returns the PASID the
 * device gives it, > 0) or ends (@open false, @pasid: returns 0). Outside a client, or when the
 * device cannot answer, it returns 0 (open: the face numbers the PASID itself).
 * sim_shared_proc_list(): every client's KFD processes and KFD queues, from the device; *@out
 * is malloc'ed. Return: 0; -EINVAL (not a client); -ENOMEM; -EPIPE; -EPROTO.
 */
int sim_shared_kfd_process(struct hsaqm_sim *sim, bool open, uint32_t pasid);
int sim_shared_proc_list(struct hsaqm_sim *sim, struct sim_proc_queue **out, unsigned int *n);

#endif /* HSAQM_SIM_INTERNAL_H */
