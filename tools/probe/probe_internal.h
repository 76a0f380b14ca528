/* SPDX-License-Identifier: MIT */
/*
 * probe_internal.h - what the probe's sources share: the HSA functions it calls (taken from
 * a root table, ROCr's or the model's), its check queue, device kernels, the safety registry
 * that resumes suspended queues on every path, and small helpers.
 */
#ifndef HSAQM_PROBE_INTERNAL_H
#define HSAQM_PROBE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "hsaqm-hsa/api_table.h"
#include "hsaqm-hsa/hsa_abi.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-kfd/kfd_lv3.h"
#include "probe.h"

/* ---- HSA values the probe uses that hsa_abi.h does not carry (hsa.h, hsa_ext_amd.h) ---- */
enum {
	PROBE_HSA_SYSTEM_INFO_VERSION_MAJOR = 0,
	PROBE_HSA_SYSTEM_INFO_VERSION_MINOR = 1,
	PROBE_HSA_SYSTEM_INFO_TIMESTAMP = 2,
	PROBE_HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY = 3,
	PROBE_HSA_AMD_SYSTEM_INFO_BUILD_VERSION = 0x200,
	PROBE_HSA_AGENT_INFO_NAME = 0,
	PROBE_HSA_AGENT_INFO_NODE = 16,
	PROBE_HSA_AGENT_INFO_DEVICE = 17,
	PROBE_HSA_AMD_AGENT_INFO_DRIVER_NODE_ID = 0xA004,
	PROBE_HSA_AMD_AGENT_INFO_PRODUCT_NAME = 0xA009,
	PROBE_HSA_DEVICE_TYPE_GPU = 1,
	PROBE_HSA_REGION_INFO_SEGMENT = 0,
	PROBE_HSA_REGION_INFO_GLOBAL_FLAGS = 1,
	PROBE_HSA_REGION_SEGMENT_GLOBAL = 0,
	PROBE_HSA_REGION_GLOBAL_FLAG_KERNARG = 1,
	PROBE_HSA_REGION_GLOBAL_FLAG_FINE_GRAINED = 2,
	PROBE_HSA_PROFILE_BASE = 0,
	PROBE_HSA_PROFILE_FULL = 1,
	PROBE_HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT = 0,
	PROBE_HSA_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE = 11,
	PROBE_HSA_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE = 13,
	PROBE_HSA_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE = 14,
	PROBE_HSA_SYMBOL_INFO_KERNEL_OBJECT = 22,
};

/* ---- the HSA functions (hsa_rt.c) ----------------------------------------------------- */

typedef hsaqm_hsa_status_t (*probe_system_get_info_fn)(uint32_t attribute, void *value);
typedef hsaqm_hsa_status_t (*probe_iterate_regions_fn)(
	struct hsaqm_hsa_agent agent,
	hsaqm_hsa_status_t (*cb)(struct hsaqm_hsa_region region, void *data), void *data);
typedef hsaqm_hsa_status_t (*probe_region_get_info_fn)(struct hsaqm_hsa_region region,
						       uint32_t attribute, void *value);
typedef hsaqm_hsa_status_t (*probe_memory_allocate_fn)(struct hsaqm_hsa_region region,
						       size_t size, void **ptr);
typedef hsaqm_hsa_status_t (*probe_memory_free_fn)(void *ptr);
typedef hsaqm_hsa_status_t (*probe_reader_from_memory_fn)(const void *code, size_t size,
							  uint64_t *reader);
typedef hsaqm_hsa_status_t (*probe_reader_destroy_fn)(uint64_t reader);
typedef hsaqm_hsa_status_t (*probe_executable_create_alt_fn)(uint32_t profile, uint32_t rounding,
							     const char *options, uint64_t *exe);
typedef hsaqm_hsa_status_t (*probe_executable_destroy_fn)(uint64_t exe);
typedef hsaqm_hsa_status_t (*probe_load_agent_code_object_fn)(uint64_t exe,
							      struct hsaqm_hsa_agent agent,
							      uint64_t reader, const char *options,
							      uint64_t *loaded);
typedef hsaqm_hsa_status_t (*probe_executable_freeze_fn)(uint64_t exe, const char *options);
typedef hsaqm_hsa_status_t (*probe_get_symbol_by_name_fn)(uint64_t exe, const char *name,
							  const struct hsaqm_hsa_agent *agent,
							  uint64_t *symbol);
typedef hsaqm_hsa_status_t (*probe_symbol_get_info_fn)(uint64_t symbol, uint32_t attribute,
						       void *value);

/* The runtime functions the probe calls; every one is required unless said otherwise. */
struct probe_hsa {
	struct hsaqm_api_layout layout;
	void *root;                     /* the table they came from */
	hsaqm_hsa_init_fn init;
	hsaqm_hsa_shut_down_fn shut_down;
	probe_system_get_info_fn system_get_info;
	hsaqm_hsa_iterate_agents_fn iterate_agents;
	hsaqm_hsa_agent_get_info_fn agent_get_info;
	hsaqm_hsa_queue_create_fn queue_create;
	hsaqm_hsa_queue_destroy_fn queue_destroy;
	hsaqm_hsa_signal_create_fn signal_create;
	hsaqm_hsa_signal_destroy_fn signal_destroy;
	hsaqm_hsa_signal_load_fn signal_load;
	hsaqm_hsa_signal_store_fn signal_store;
	hsaqm_hsa_signal_wait_fn signal_wait;
	/* Dispatch timestamps; NULL when the table lacks it (the checks then say so). */
	hsaqm_hsa_amd_profiling_dispatch_time_fn get_dispatch_time;
	/* Optional: ROCr records dispatch timestamps only on a queue with profiling on. */
	hsaqm_hsa_amd_profiling_enable_fn set_profiler_enabled;
	/* Optional: the CU-mask check (hsa_amd_queue_cu_set_mask, public, no debugger). */
	hsaqm_hsa_amd_queue_cu_set_mask_fn cu_set_mask;
	probe_iterate_regions_fn iterate_regions;
	probe_region_get_info_fn region_get_info;
	probe_memory_allocate_fn memory_allocate;
	probe_memory_free_fn memory_free;
	/* Code objects: only the hardware path needs them (the model runs model kernels). */
	probe_reader_from_memory_fn reader_from_memory;
	probe_reader_destroy_fn reader_destroy;
	probe_executable_create_alt_fn executable_create_alt;
	probe_executable_destroy_fn executable_destroy;
	probe_load_agent_code_object_fn load_agent_code_object;
	probe_executable_freeze_fn executable_freeze;
	probe_get_symbol_by_name_fn get_symbol_by_name;
	probe_symbol_get_info_fn symbol_get_info;
	bool initialized; /* hsa_init succeeded */
	uint64_t ts_hz;   /* HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, read once */
};

/**
 * probe_hsa_from_table() - take the functions the probe calls from a root HsaApiTable.
 * Return: 0; -EINVAL for NULL; -ENOTSUP for a layout hsaqm does not know or a missing entry
 * (@why says which).
 */
int probe_hsa_from_table(struct probe_hsa *h, void *root, char *why, size_t why_len);

/* ROCr loaded with dlopen, and a root table built from its exported functions. */
struct probe_rocr;

/**
 * probe_rocr_load() - dlopen libhsa-runtime64 (the names ROCm and Debian install), build a
 * root HsaApiTable of its exported functions (layout ROCm 6.1+, the one the HSA face
 * presents), so the same code runs on ROCr and on the model.
 * @path: the library's path as found (for the report), may be NULL.
 * Return: 0; -ENOENT no ROCm runtime (@why has dlerror()); -ENOTSUP a function is missing.
 */
int probe_rocr_load(struct probe_rocr **out, void **root_table, char *path, size_t path_len,
		    char *why, size_t why_len);
/** probe_rocr_unload() - free the table (the library stays loaded; NULL is fine). */
void probe_rocr_unload(struct probe_rocr *r);
/** probe_rocr_table_filled() - table slots filled from the library (tests). */
unsigned int probe_rocr_table_filled(const struct probe_rocr *r);

/**
 * probe_hsa_now() - the runtime's system clock in ns: the domain of
 * hsa_amd_profiling_get_dispatch_time (model ns on the model's face).
 * Return: 0; -EIO when the runtime gives no timestamp or frequency.
 */
int probe_hsa_now(const struct probe_hsa *h, uint64_t *ns);
/* Ticks of the runtime's system clock as ns (0 when the frequency is unknown). */
uint64_t probe_hsa_ticks_ns(const struct probe_hsa *h, uint64_t ticks);

/* The GPU agent whose KFD node id is @node_id (or the @index-th GPU when no node matches). */
int probe_hsa_find_gpu(const struct probe_hsa *h, uint32_t node_id, uint32_t index,
		       struct hsaqm_hsa_agent *out);
/*
 * Fine-grained kernarg memory the host and the GPU both see (kernarg, outputs, model rings).
 * @zero: clear it (ROCr does not; a CWSR area must not be touched: the model's is sparse).
 */
void *probe_hsa_alloc(const struct probe_hsa *h, struct hsaqm_hsa_agent agent, size_t size,
		      bool zero);
void probe_hsa_free(const struct probe_hsa *h, void *p);

/* ---- device kernels (kernels.c) ------------------------------------------------------- */

/* Kernel arguments of the spin kernel (tools/probe/kernels/spin.cl), in its order. */
struct probe_spin_args {
	uint64_t out;      /* uint32_t[grid]: each work-item's final LCG state */
	uint32_t iters;    /* LCG steps per work-item: sets the kernel's length on hardware */
	uint32_t seed;
	uint32_t wg_size;  /* work-items per workgroup (the kernel needs no device library) */
	uint32_t pad;
};

#define PROBE_SPIN_WG_SIZE 64u /* one wave64 per workgroup */

/* The LCG the spin kernel runs: x' = a x + c mod 2^32, from x0 = seed ^ global id. */
#define PROBE_LCG_A 1664525u
#define PROBE_LCG_C 1013904223u

/** probe_lcg_jump() - the state after @n steps from @x (O(log n)). */
uint32_t probe_lcg_jump(uint32_t x, uint64_t n);

struct probe_kernel {
	uint64_t kernel_object;
	uint32_t kernarg_size;
	uint32_t group_size, private_size;
	bool model;            /* a model kernel: its duration is fixed, iters only feed the LCG */
	uint64_t model_wg_ns;  /* model kernels: duration of each workgroup */
	char what[96];         /* "model kernel", "embedded gfx90a code object", ... */
	uint64_t exe, reader;  /* hardware: the executable and reader to destroy */
};

/* Code objects compiled at build time (probe_kernels_gen.c). */
struct probe_code_object {
	const char *target;
	const unsigned char *data;
	size_t size;
};
extern const struct probe_code_object probe_code_objects[];
extern const unsigned int probe_n_code_objects;
extern const char probe_kernels_compiler[]; /* the clang used, or "" when none was found */
extern const char probe_kernels_missing[];  /* "gfx942: clang-14 does not know it; ..." */

/**
 * probe_kernel_available() - whether a device kernel exists for @gfx (on the model always).
 * @text: what will be used, or why nothing can (with the rebuild command).
 */
bool probe_kernel_available(const struct hsaqm_probe_env *env, const char *kernel_dir,
			    const char *gfx, char *text, size_t len);

/**
 * probe_kernel_load() - the spin kernel for @agent: a model kernel on the model, else the
 * embedded (or --kernel-dir) code object for @gfx loaded through the HSA table.
 * Return: 0; -ENOENT no code object for @gfx; -EIO the runtime refused it (@why).
 */
int probe_kernel_load(const struct hsaqm_probe_env *env, const struct probe_hsa *h,
		      struct hsaqm_hsa_agent agent, const char *gfx, const char *kernel_dir,
		      uint64_t model_wg_ns, struct probe_kernel *k, char *why, size_t why_len);
void probe_kernel_unload(const struct probe_hsa *h, struct probe_kernel *k);

/* ---- the check queue (pqueue.c) ------------------------------------------------------- */

struct probe_queue {
	struct hsaqm_hsa_queue *hsa_queue; /* HSA path: ROCr's queue */
	struct hsaqm_amd_queue *amd;       /* KFD path: our amd_queue_t in device-visible memory */
	void *ring;
	uint32_t size;                     /* packets */
	volatile uint64_t *wr, *rd;        /* write and read dispatch ids */
	struct hsaqm_hsa_signal doorbell_signal; /* HSA path */
	volatile uint64_t *doorbell;       /* KFD path: the mapped doorbell */
	void *doorbell_page;
	void *eop, *cwsr;
	bool via_kfd;
	bool have_id;
	uint32_t queue_id;                 /* KFD queue id */
	/* The id the KFD's sysfs kfd/proc listing showed appear at creation (no debugger). */
	bool have_sysfs_id;
	uint32_t sysfs_id;
	int sysfs_err;                     /* why not: -ENOENT no kfd/proc, -EEXIST ambiguous */
	uint64_t ring_base;                /* what the KFD knows the queue by */
	uint32_t ring_bytes;
	uint64_t create_ns;                /* how long creation took */
	/* The KFD's ctx_save_restore_area_size of the queue (its snapshot), 0 when unknown. */
	uint32_t save_area_size;
};

struct probe_ctx;

/**
 * probe_queue_create() - a queue for the checks on @agent / @gpu_id: through the KFD
 * (env->queues_via_kfd) or through the HSA runtime.
 * Return: 0; the runtime's failure as -errno; the KFD's errno.
 */
int probe_queue_create(struct probe_ctx *c, struct hsaqm_hsa_agent agent,
		       const struct hsaqm_probe_gpu *gpu, uint32_t packets, struct probe_queue *q,
		       char *why, size_t why_len);
/** probe_queue_destroy() - destroy (resume first: a suspended queue blocks its destroy). */
int probe_queue_destroy(struct probe_ctx *c, struct probe_queue *q);
/**
 * probe_queue_find_id() - the KFD queue id of @q by its ring address (GET_QUEUE_SNAPSHOT, which
 * also clears EC_QUEUE_NEW so the queue can be suspended). Needs a DBG_TRAP session.
 * Return: 0; -ENOENT not among the process's queues; the snapshot's error.
 */
/* The process's other compute queues on @gpu_id (DBG_TRAP snapshot); 0 or -errno. */
int probe_queue_others(struct probe_ctx *c, const struct probe_queue *q, uint32_t gpu_id,
		       uint32_t *ids, uint32_t max, uint32_t *n);
int probe_queue_find_id(struct probe_ctx *c, struct probe_queue *q);
/** probe_queue_dispatch() - publish one spin dispatch and ring the doorbell. */
int probe_queue_dispatch(struct probe_ctx *c, struct probe_queue *q, const struct probe_kernel *k,
			 uint32_t nwg, void *kernarg, struct hsaqm_hsa_signal done);

/* ---- run context ------------------------------------------------------------------------ */

struct probe_ctx {
	const struct hsaqm_probe_options *o;
	/* A signal nothing stores to: waits on it are sleeps in the runtime's clock. */
	struct hsaqm_hsa_signal never;
	bool have_never;
	const struct hsaqm_probe_env *env;
	struct hsaqm_probe_report *r;
	struct hsaqm_kfd *kfd;     /* the target's handle (opened by the probe or given) */
	bool own_kfd;
	struct hsaqm_topology *topo;
	struct probe_hsa hsa;
	bool hsa_tried, hsa_ok;
	char hsa_why[200];
	struct probe_rocr *rocr;
	bool runtime_enabled;
	int runtime_enable_err;
	unsigned int trials;
	uint64_t check_timeout_ns;
	bool progress_open_line; /* a trial line waits to be overwritten (terminal) */
	/* What the stop checks learned per GPU: the refusal of DBG_TRAP, of UPDATE_QUEUE. */
	int dbg_err[HSAQM_PROBE_MAX_GPUS];
	int update_err[HSAQM_PROBE_MAX_GPUS];
};

/* Load the HSA runtime once (the model's table or ROCr); false with c->hsa_why. */
bool probe_hsa_ready(struct probe_ctx *c);

/* Preflight of the host, then of the target's KFD when it is hardware (preflight.c). */
void probe_preflight(struct probe_ctx *c);
void probe_preflight_target(struct probe_ctx *c);
/* Inventory of the target's GPUs (inventory.c). */
int probe_inventory(struct probe_ctx *c);
/* Other processes' KFD queues on a GPU of the target (inventory.c). */
void probe_others(struct probe_ctx *c, struct hsaqm_probe_gpu *g);
/*
 * probe_scan_proc() - count the queues on @gpu_id of every process listed in
 * <sysfs>/class/kfd/kfd/proc but @self (the KFD's own per-process view; "unknown" in
 * @o->source when the folder is missing).
 */
void probe_scan_proc(const char *sysfs, uint32_t gpu_id, long self,
		     struct hsaqm_probe_others *o);

/*
 * The GPU's Lv3 decision (kfd-ioctl's hsaqm_kfd_lv3_decide(), the one the HSA backend takes),
 * from the target's KFD, sysfs and what the checks learned (@dbg_err, @update_err; 0 none).
 */
void probe_lv3_decide(struct probe_ctx *c, struct hsaqm_probe_gpu *g, int dbg_err,
		      int update_err, struct hsaqm_kfd_lv3 *out);
/* Put the GPU's decision, with what the checks learned so far, into the report. */
void probe_lv3_note(struct probe_ctx *c, struct hsaqm_probe_gpu *g);

/* Checks. */
void probe_check_lv1(struct probe_ctx *c, struct hsaqm_probe_gpu *g, struct hsaqm_probe_check *k);
void probe_check_lv2(struct probe_ctx *c, struct hsaqm_probe_gpu *g, struct hsaqm_probe_check *k);
void probe_check_lv3(struct probe_ctx *c, struct hsaqm_probe_gpu *g, struct hsaqm_probe_check *k);
void probe_check_update_queue(struct probe_ctx *c, struct hsaqm_probe_gpu *g,
			      struct hsaqm_probe_check *k);
void probe_check_cu_mask(struct probe_ctx *c, struct hsaqm_probe_gpu *g,
			 struct hsaqm_probe_check *k);

/* ---- safety (safety.c) ----------------------------------------------------------------- */

enum probe_hold_kind { PROBE_HOLD_DBG = 1, PROBE_HOLD_UPDATE = 2, PROBE_HOLD_CU_MASK = 3 };

/*
 * A queue the probe holds stopped. Registered before the stopping ioctl and released after
 * the restarting one, so that every exit path (an error, an interrupt, exit()) restarts it.
 */
struct probe_hold {
	enum probe_hold_kind kind;
	struct hsaqm_kfd *kfd;
	uint32_t queue_id;
	/* DBG: the process's other compute queues on the GPU, suspended and resumed with it. */
	uint32_t others[8];
	uint32_t nothers;
	uint64_t ring_base; /* UPDATE: what to restore */
	uint32_t ring_bytes;
	uint32_t priority;
	/* CU_MASK: the queue and the function that gives it every CU back. */
	hsaqm_hsa_amd_queue_cu_set_mask_fn cu_set_mask;
	struct hsaqm_hsa_queue *hsa_queue;
	uint32_t cu_words;
	bool active;
};

void probe_hold_register(struct probe_hold *h);
/* probe_hold_forget() - unregister without a restart (the stopping ioctl failed). */
void probe_hold_forget(struct probe_hold *h);
/** probe_hold_release() - restart the queue if still held, unregister. Return: 0 or -errno. */
int probe_hold_release(struct probe_hold *h);
/** probe_hold_release_all() - restart every registered queue (cleanup, atexit).
 * Return: the number of queues that could not be restarted. */
int probe_hold_release_all(void);

/* Sleep up to @ns, in short steps, returning early (false) when interrupted. */
bool probe_sleep_ns(uint64_t ns);
uint64_t probe_now_ns(void);

/* ---- the stop session shared by the Lv3, UPDATE_QUEUE and CU-mask checks (stop.c) ---------- */

enum probe_stop_kind { PROBE_STOP_DBG, PROBE_STOP_UPDATE };

struct probe_session {
	struct probe_ctx *c;
	struct hsaqm_probe_gpu *g;
	struct hsaqm_probe_check *k;
	struct hsaqm_hsa_agent agent;
	struct probe_queue q;
	bool have_q;
	struct probe_kernel kern;
	bool have_kern;
	struct hsaqm_hsa_signal done;
	bool have_done;
	struct probe_spin_args *args;
	uint32_t *out;
	uint32_t full_wg;     /* workgroups (one wave each) that fill every wave slot */
	uint32_t iters;
	uint64_t kernel_ns;   /* how long one spin kernel runs */
	/* Unstopped length from the dispatch timestamps, runtime clock: [0] full, [1] one wave. */
	uint64_t plain_ns[2];
	bool timestamps;      /* the runtime gives dispatch timestamps */
	/* DBG_TRAP: the process's other compute queues on the GPU, stopped with the probe's. */
	uint32_t others[8];
	uint32_t nothers;
	bool dbg_enabled;     /* this session enabled DBG_TRAP (and disables it) */
	void *ctl_stack;      /* GET_QUEUE_WAVE_STATE buffer */
	uint32_t ctl_stack_size;
	uint64_t deadline;    /* host clock */
	struct probe_hold hold;
	bool trial_pending;   /* a kernel may still be running */
};

/* What one stop-and-restart trial found; times in ns of the runtime's clock unless *_host. */
struct probe_trial {
	bool ran_before_stop;  /* the kernel was still running when stopped */
	bool completed_while_stopped;
	bool completed;
	bool wave_state;
	uint32_t ctl_used, save_used;
	uint64_t stop, restart;          /* the stopping / restarting call */
	uint64_t stop_host, restart_host;
	int64_t lost;    /* the kernel's run beyond its unstopped length, less its hold: the map
			  * and restore the stop cost it (dispatch timestamps); INT64_MIN unknown */
	uint64_t finish; /* restart to the kernel's completion */
	uint32_t wrong;  /* work-items with a wrong result */
	int err;         /* the stop's or restart's error */
};

struct probe_series {
	uint64_t *stop, *restart, *stop_host, *lost, *finish, *ctl, *save;
	uint32_t done, nlost, inconclusive, not_stopped, lost_work, wrong, wrong_trials, wave_state;
};

/* Runtime, agent, kernel, buffers, queue (with its figure queue_create); false: verdict set. */
bool probe_session_open(struct probe_session *s, uint32_t max_wg);
void probe_session_close(struct probe_session *s);
/* The kernel's length: fixed on the model, calibrated on hardware; then plain_ns. 0 or -errno. */
int probe_session_calibrate(struct probe_session *s);
/* Gates every stop check shares (the runtime, a device kernel); false: verdict set. */
bool probe_session_gates(struct probe_session *s);
/* The launch and end of the last dispatch of @done in ns of the runtime's clock. */
int probe_dispatch_times(struct probe_ctx *c, struct hsaqm_hsa_agent agent,
			 struct hsaqm_hsa_signal done, uint64_t *start, uint64_t *end);
int probe_series_alloc(struct probe_series *x, uint32_t n);
void probe_series_free(struct probe_series *x);
/* @n trials of stop @kind with @nwg workgroups. 0, -EINTR, -ETIMEDOUT or the stop's error. */
int probe_stop_series(struct probe_session *s, enum probe_stop_kind kind, uint32_t nwg,
		      uint32_t n, const char *label, struct probe_series *out, bool first_series);
/* The check's verdict from a series; false when it is not "supported". */
bool probe_series_verdict(struct probe_session *s, const struct probe_series *x,
			  const char *what);
/* Figures stop_<sfx>, restart_<sfx>, lost_<sfx>, finish_<sfx> (and stop_host_full). */
void probe_series_figures(struct probe_session *s, const struct probe_series *x,
			  const char *suffix);
/* The facts of the saved waves (wave state, or inferred). */
void probe_series_waves_fact(struct probe_session *s, struct probe_series *x);
/* The verdict for a stop the KFD refused. */
void probe_stop_refused(struct probe_session *s, enum probe_stop_kind kind, int err);
/* Waves of one queue on one CU at full occupancy (the per-wave slopes' unit). */
uint32_t probe_session_waves_per_cu(const struct probe_session *s);

/* ---- waiting in the runtime's clock (wait.c) ---------------------------------------------- */

/*
 * Wait until @sig (handle 0: none) reaches 0 or the runtime's clock reaches @until (ns),
 * through the runtime's own signal waits: on hardware they sleep in host time; on a
 * virtual-time model they move model time, so the host's load cannot stretch a figure.
 * Steps of at most 5 ms of the runtime's clock, so an interrupt is seen in time.
 * Return: 1 the signal reached 0; 0 the clock reached @until; -EINTR interrupted; -EIO the
 * runtime gives no clock.
 */
int probe_wait(struct probe_ctx *c, struct hsaqm_hsa_signal sig, uint64_t until);
/* probe_wait() for @ns from now, on no signal: true unless interrupted. */
bool probe_wait_ns(struct probe_ctx *c, uint64_t ns);
/* The runtime's clock now (ns); 0 when it has none. */
uint64_t probe_clock(struct probe_ctx *c);

/* ---- helpers ------------------------------------------------------------------------------ */

void probe_set_verdict(struct hsaqm_probe_check *k, enum hsaqm_probe_verdict v, const char *code,
		       const char *remedy, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void probe_add_fact(struct hsaqm_probe_check *k, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Figures from @n samples (sorted in place); @first is samples[0] before sorting. */
void probe_add_figure(struct hsaqm_probe_check *k, const char *name, const char *unit,
		      uint64_t *samples, uint32_t n);
const struct hsaqm_probe_figure *probe_find_figure(const struct hsaqm_probe_check *k,
						   const char *name);
void probe_progress(const struct probe_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A trial line: on a terminal it overwrites the previous trial line instead of adding one. */
void probe_progress_trial(const struct probe_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void probe_add_finding(struct hsaqm_probe_report *r, enum hsaqm_probe_level level,
		       const char *what, const char *remedy, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Copy with truncation, always NUL-terminated. */
void probe_strlcpy(char *dst, const char *src, size_t size);
/* Error text for a negative errno (strerror with its name: "EPERM: Operation not permitted"). */
const char *probe_errname(int err);

#endif /* HSAQM_PROBE_INTERNAL_H */
