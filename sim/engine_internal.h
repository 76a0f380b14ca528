/* SPDX-License-Identifier: MIT */
/*
 * engine_internal.h - the inside of the device model's hardware core (clock, arena, signals,
 * kernels, devices with their event loop, packet processors, HWS, CWSR, trace). The faces
 * see only sim_internal.h; this header is for the core's sources and for the model's own
 * tests, which look at counters the faces have no use for.
 *
 * Ownership, in one paragraph: everything a device does (its queues' packet processors, its
 * CUs, its HWS slots, its event heap) is touched only by the thread running that device's
 * event loop: the engine thread in REAL mode, the caller of a blocking function or of
 * hsaqm_sim_advance() in VIRTUAL mode (under sim->vloop_lock). Host threads reach a device
 * only through atomics (doorbell flags, signal values, statistics) and through the request
 * list (a mutex). So event handlers and the callbacks they run hold no model lock.
 */
#ifndef HSAQM_SIM_ENGINE_INTERNAL_H
#define HSAQM_SIM_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"
#include "sim_internal.h"

/* ------------------------------------------------------------------------------------
 * Small intrusive list (circular, with a head node).
 */
struct sim_list {
	struct sim_list *prev, *next;
};

static inline void sim_list_init(struct sim_list *h)
{
	h->prev = h->next = h;
}

static inline bool sim_list_empty(const struct sim_list *h)
{
	return h->next == h;
}

static inline void sim_list_add_tail(struct sim_list *h, struct sim_list *n)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void sim_list_del(struct sim_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->prev = n->next = n;
}

#define sim_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/* ------------------------------------------------------------------------------------
 * Futexes and clocks (clock.c). Futexes are never FUTEX_PRIVATE: the words live in model
 * memory, which a device process and its clients map at the same address (shared mode).
 */
uint64_t sim_mono_ns(void);
/* Sleep while *@addr == @expected, until CLOCK_MONOTONIC reaches @abs_mono_ns (UINT64_MAX = no limit). */
void sim_futex_wait(uint32_t *addr, uint32_t expected, uint64_t abs_mono_ns);
void sim_futex_wake(uint32_t *addr, int n);

/* Model time now: REAL = (monotonic - start) x scale; VIRTUAL = the loop's clock. */
uint64_t sim_clock_now(const struct hsaqm_sim *sim);
/* The CLOCK_MONOTONIC instant at which REAL model time reaches @model_ns (saturating). */
uint64_t sim_clock_to_mono(const struct hsaqm_sim *sim, uint64_t model_ns);
/* Absolute model deadline now + @rel (saturating at UINT64_MAX = forever). */
uint64_t sim_clock_deadline(const struct hsaqm_sim *sim, uint64_t rel_ns);

/* ------------------------------------------------------------------------------------
 * Arena (arena.c). Its header sits at the start of the mapping so every process mapping it
 * shares the allocator and the wake words below.
 */
#define SIM_ARENA_MAGIC 0x41524e41u /* "ARNA" */

/* Per device: how a signal writer or a doorbell (in any process) wakes that device's engine. */
struct sim_dev_wake {
	uint32_t word;      /* bumped by every waker; the engine futex-waits on it */
	uint32_t sleeping;  /* 1 while the engine is about to sleep or sleeps */
	uint32_t sig_dirty; /* a signal this device watches changed */
	uint32_t kicks;     /* a doorbell or a request is pending (the engine scans its queues) */
	uint64_t stim_time; /* model time of the earliest stimulus not yet seen (UINT64_MAX none) */
};

struct sim_arena_hdr {
	uint32_t magic;
	uint32_t version;
	uint64_t size;
	uint32_t lock;          /* allocator lock (futex mutex: 0 free, 1 held, 2 held + waiters) */
	uint32_t pad0;
	uint64_t free_head;     /* offset of the first free extent, 0 = none */
	uint64_t used_bytes;
	uint32_t epoch;         /* bumped when a signal with host waiters changes (multi-signal waits) */
	uint32_t epoch_waiters; /* threads waiting on several signals at once */
	struct sim_dev_wake dev[HSAQM_SIM_MAX_DEVICES];
	/* Shared mode, a client's arena: bumped by the device when one of the client's queues
	 * fails (its error thread futex-waits on it and calls the queues' error callbacks). */
	uint32_t client_err_seq;
	uint32_t pad1;
};

struct sim_arena {
	void *base;
	size_t size;
	int fd;
	struct sim_arena_hdr *hdr;
};

int sim_arena_init(struct sim_arena *a, size_t size);
void sim_arena_fini(struct sim_arena *a);
/*
 * Shared mode. sim_arena_init_at(): a fresh arena mapped at exactly @addr (the device
 * process makes one per client). sim_arena_attach(): map the arena behind @fd (size @size)
 * at exactly @addr, as its creator did (a client); the arena takes @fd.
 * Return: 0; -EADDRINUSE when something is mapped there already; -errno of memfd/mmap.
 */
int sim_arena_init_at(struct sim_arena *a, size_t size, void *addr);
int sim_arena_attach(struct sim_arena *a, int fd, size_t size, void *addr);
/* Is [ptr, ptr + len) inside the allocatable part of arena @a? (false for NULL @a) */
bool sim_arena_contains(const struct sim_arena *a, const void *ptr, size_t len);
/* A live signal of arena @a, or NULL (sim_signal_from_handle() on one arena). */
struct sim_signal *sim_signal_from_handle_in(const struct sim_arena *a, uint64_t handle);

/* ------------------------------------------------------------------------------------
 * Signals (signal.c).
 */
/* Wake whoever waits on @s after its value changed at model time @t (host waiters, devices). */
void sim_signal_notify(struct hsaqm_sim *sim, struct sim_signal *s, uint64_t t);
/* sim_signal_add() by the engine, at the model time @t of the event doing it. */
int64_t sim_signal_add_at(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v, uint64_t t);
/* sim_signal_cas() by the engine, at model time @t. Returns the value observed. */
int64_t sim_signal_cas_at(struct hsaqm_sim *sim, struct sim_signal *s, int64_t expected, int64_t v,
			  uint64_t t);
/* Apply the doorbells of @q up to model time @t. Returns the earliest later one (UINT64_MAX none). */
uint64_t sim_hwq_apply_doorbells(struct sim_hwq *q, uint64_t t);
/*
 * VIRTUAL mode. sim_signal_handlers_collect(): the event loop marks the async handlers whose
 * condition holds as due (it never runs them itself). Returns true if it marked any.
 * sim_signal_handlers_drain(): run the due handlers, one drainer at a time, marked in-engine
 * (blocking model calls from them are -EDEADLK, as from any callback). The caller holds no
 * model or face lock. @wait: block until the current drainer is done (a waiter that wants
 * their effects); else leave them to it. A no-op in REAL mode (the handler thread runs them).
 */
bool sim_signal_handlers_collect(struct hsaqm_sim *sim);
void sim_signal_handlers_drain(struct hsaqm_sim *sim, bool wait);
void sim_signal_handlers_stop(struct hsaqm_sim *sim);
bool sim_cond_holds(enum sim_cond cond, int64_t v, int64_t compare);

/* ------------------------------------------------------------------------------------
 * Kernels (kernel.c). The handle is the kernel's address in model memory, as a real kernel
 * object is the address of its descriptor in GPU-visible memory.
 */
#define SIM_KERNEL_MAGIC 0x4b45524eu /* "KERN" */

struct sim_kernel {
	uint32_t magic;
	uint32_t waves_per_wg;
	uint64_t duration_ns;
	uint64_t spread_ns;
	uint32_t dist;
	uint32_t counters_len;
	uint32_t *counters;
	hsaqm_sim_wg_fn wg_callback;
	void *wg_callback_arg;
	char name[64];
};

/* A registered kernel of arena @a (a queue's memory, sim_hwq_mem()), or NULL. */
const struct sim_kernel *sim_kernel_lookup_in(const struct sim_arena *a, uint64_t kernel_object);

/* One workgroup's duration (>= 1 ns), drawn from the device's PRNG. */
uint64_t sim_kernel_draw(const struct sim_kernel *k, uint64_t rng[4]);
void sim_rng_seed(uint64_t rng[4], uint64_t seed);
uint64_t sim_rng_next(uint64_t rng[4]);

/* ------------------------------------------------------------------------------------
 * Events: intrusive, each embedded in the object it concerns, so cancelling one is a heap
 * removal and no event ever points at freed memory.
 */
enum sim_ev_kind {
	SIM_EV_STIM = 1,   /* device: doorbells, requests, signal changes seen by the engine */
	SIM_EV_BATCH_END,  /* batch: its workgroups finish */
	SIM_EV_LAUNCH,     /* queue: the dispatch being launched becomes runnable */
	SIM_EV_GRACE,      /* queue: preemption grace period over */
	SIM_EV_UNMAP,      /* queue: unmap done, HQD slot free */
	SIM_EV_MAP,        /* queue: map (and CWSR restore) done */
	SIM_EV_QUANTUM,    /* device: time slice over */
	SIM_EV_PP,         /* queue: a dependency it saw was satisfied at a later time: look then */
	SIM_EV_REQ,        /* device: the next control request's model time has come */
	SIM_EV_REQ_TAIL,   /* request: the KFD's own work after the runlist change is over */
};

struct sim_event {
	uint64_t time;
	uint64_t seq;     /* FIFO among events of the same time: determinism */
	int32_t heap_idx; /* -1 when not scheduled */
	uint8_t kind;
	void *obj;
};

struct sim_device;
void sim_ev_init(struct sim_event *ev, enum sim_ev_kind kind, void *obj);
/* (Re)schedule @ev at @time (moves it if already scheduled). */
void sim_ev_schedule(struct sim_device *dev, struct sim_event *ev, uint64_t time);
void sim_ev_cancel(struct sim_device *dev, struct sim_event *ev);
static inline bool sim_ev_pending(const struct sim_event *ev)
{
	return ev->heap_idx >= 0;
}

/* ------------------------------------------------------------------------------------
 * Workgroups in flight.
 */
struct sim_dispatch;

/*
 * Workgroups of one dispatch placed at the same instant with the same duration: they end in
 * one event. Their indices are contiguous [wg_first, wg_first + wg_count).
 */
struct sim_batch {
	struct sim_event ev;
	struct sim_list qlink;   /* queue's running batches */
	struct sim_dispatch *d;
	uint32_t wg_first;
	uint32_t wg_count;
	uint32_t waves_per_wg;
	int32_t lane;            /* trace lane, -1 none */
	uint32_t cu_lo, cu_hi;   /* CUs used are within [cu_lo, cu_hi] */
	bool restored;           /* CWSR-restored workgroups (trace label) */
	uint64_t start;
	uint64_t end;
	uint64_t pass;           /* dispatcher pass that opened it (later placements may join) */
	struct sim_batch *next_free;
	uint16_t cu_wgs[];       /* workgroups of this batch on each CU */
};

/* Workgroups saved by CWSR: kept with the time they still need. */
struct sim_saved {
	struct sim_list link;
	struct sim_dispatch *d;
	uint32_t wg_first;
	uint32_t wg_count;
	uint32_t waves_per_wg;
	uint64_t remaining_ns;
	struct sim_batch *open_batch; /* restore placement in the current pass */
	uint64_t open_pass;
};

/* A launched kernel dispatch. */
struct sim_dispatch {
	struct sim_hwq *q;
	const struct sim_kernel *k;
	uint64_t dispatch_id;   /* ring index of its packet */
	void *kernarg;
	struct sim_signal *completion;
	uint64_t total_wgs;
	uint64_t next_wg;       /* next workgroup index to place */
	uint64_t done_wgs;
	uint64_t running_wgs;
	uint64_t saved_wgs;
	uint64_t launch_time;
	bool ready;             /* launch overhead over: its workgroups may be placed */
	struct sim_batch *open_batch;
	uint64_t open_pass;
	int32_t lane;           /* trace lane of its span */
	/*
	 * The kernel as it was at launch (k points here): in shared mode the descriptor is in a
	 * client's memory, which that client may rewrite at any time; the engine trusts only
	 * its own copy, checked once.
	 */
	struct sim_kernel kc;
};

/* ------------------------------------------------------------------------------------
 * Hardware queues.
 */
enum sim_hws_state {
	SIM_HQ_UNMAPPED = 0,
	SIM_HQ_MAPPING,    /* HQD slot taken, map (+ restore) under way */
	SIM_HQ_MAPPED,     /* the packet processor runs, workgroups are placed */
	SIM_HQ_PREEMPTING, /* HQD slot taken: grace period, CWSR save or drain, unmap */
};

enum sim_wait_kind { SIM_WAIT_NONE = 0, SIM_WAIT_AND, SIM_WAIT_OR, SIM_WAIT_VALUE };

struct sim_hwq_stats {
	uint64_t maps;           /* times the queue was mapped onto an HQD */
	uint64_t unmaps;         /* times it was unmapped (preemptions) */
	uint64_t waves_saved_total;
	uint64_t waves_restored_total;
	uint64_t workgroups_done;
	uint64_t last_unmap_time;
	uint64_t last_map_time;
};

/*
 * What host threads read of a queue (sim_hwq_get_info/get_stats, the doorbell's overrun
 * check): written by the engine, every field an atomic. In-process it is part of the queue;
 * in shared mode it is in the queue's shared page (struct sim_hwq_shm), in the client's
 * memory, so the client reads it without asking the device.
 */
struct sim_hwq_pub {
	uint32_t info_state;
	uint32_t ring_slots;
	uint32_t priority;
	uint32_t ring_size_bytes;
	uint64_t ring_base;
	uint64_t info_launched;
	uint64_t info_completed;
	uint64_t info_running;
	uint64_t info_waves_saved;
	struct sim_hwq_stats stats;
};

struct sim_hwq_shm;

struct sim_hwq {
	struct sim_device *dev;
	/*
	 * Shared mode (docs/sim.md, "Shared mode"). arena: the memory the queue's packets may
	 * name (its client's arena; NULL = the model's own). shm: the queue's shared page in that
	 * memory (doorbell log, kick, overrun, pub), NULL in-process. pub: &own_pub or
	 * &shm->pub. remote: in a client, the device's handle of the queue.
	 */
	const struct sim_arena *arena;
	struct sim_hwq_shm *shm;
	struct sim_hwq_pub *pub;
	struct sim_hwq_pub own_pub;
	uint64_t remote;
	uint64_t shm_head;        /* engine-owned: next entry of shm's doorbell log */
	bool err_reported;        /* client: error callback called */
	struct sim_list link;     /* device runlist, creation order */
	uint32_t queue_index;
	uint32_t pasid;
	sim_hwq_error_fn error_fn;
	void *error_ctx;

	/* Ring (engine-owned; replaced by UPDATE_QUEUE). */
	union hsaqm_aql_packet *ring;
	uint32_t ring_slots;      /* host threads read it (doorbell overrun check): atomic */
	uint32_t ring_size_bytes;
	uint64_t *write_ptr;
	uint64_t *read_ptr;
	uint32_t priority;
	bool active;
	uint32_t *cu_mask;        /* dev->ncu bits */

	/* Host-side stimuli (atomics). */
	uint32_t kick;
	uint32_t overrun;
	/*
	 * Doorbells not yet applied, each with its model time: the packet processor reads only
	 * packets a doorbell at or before the current event's time covered (db_limit), so an
	 * engine running late never launches a packet before the doorbell that submitted it.
	 */
	pthread_mutex_t db_lock;
	struct sim_db { uint64_t value, time; } *db; /* [dbhead, ndb): in time order */
	uint32_t dbhead;
	uint32_t ndb;
	uint32_t capdb;
	uint64_t db_limit;        /* engine-owned: 1 + highest doorbell value applied */

	/* Packet processor (engine-owned). */
	uint64_t rd;              /* next packet to consume */
	bool launch_busy;
	bool error;
	uint32_t ninflight;       /* launched kernel dispatches not complete */
	struct sim_dispatch **inflight; /* launch order, max_inflight_dispatches */
	enum sim_wait_kind wait;
	struct sim_signal *wait_sig[HSAQM_AQL_MAX_DEPS];
	uint32_t wait_nsig;
	int64_t wait_value;
	int64_t wait_mask;
	uint32_t wait_cond;
	struct sim_signal *wait_cs;
	uint64_t wait_since;
	struct sim_event ev_launch;
	struct sim_event ev_pp;

	/* Workgroups (engine-owned). */
	struct sim_list running;  /* sim_batch.qlink */
	struct sim_list saved;    /* CWSR-saved, waiting for the queue to be mapped again */
	struct sim_list restore;  /* restored: placed before any new workgroup */
	uint64_t wgs_running_n;
	uint64_t waves_saved_n;
	/* Largest count of this queue's waves on one CU in the last save, and the sum of those
	 * over the saves not yet restored: CUs save and restore in parallel (docs/sim.md). */
	uint64_t save_cu_max;
	uint64_t waves_saved_cu_max;
	bool in_save;             /* CWSR save in progress: batch ends do not report "drained" */

	/* HWS (engine-owned). */
	enum sim_hws_state hstate;
	int32_t slot;
	bool suspended;
	bool destroying;
	bool destroyed;
	uint64_t wait_order;      /* round robin among unmapped queues */
	uint64_t map_time;
	uint64_t map_start;
	uint64_t preempt_start;
	uint64_t preempt_deadline;
	uint64_t preempt_waves;
	struct sim_dispatch *launching;
	struct sim_event ev_grace;
	struct sim_event ev_unmap;
	struct sim_event ev_map;

	/* What host threads read (sim_hwq_get_info, get_stats) is in *pub (above). */
};

/*
 * A queue's shared page (shared mode): allocated by the client in its own arena, adopted by
 * the device at creation. The client's doorbells go into the log (producers serialise on
 * db_lock, a futex lock only client threads take) and the engine takes them from db_head:
 * the engine never waits for a client. Everything here is untrusted by the device: it
 * checks the log's indices before use.
 */
#define SIM_HWQ_SHM_LOG 256u
#define SIM_HWQ_SHM_MAGIC 0x53484d51u /* "SHMQ" */

struct sim_hwq_shm {
	uint32_t magic;
	uint32_t kick;
	uint32_t overrun;
	uint32_t db_lock;
	int32_t error_status;     /* first error of the queue (device, CAS from 0) */
	uint32_t pad;
	uint64_t db_head;         /* engine: entries before it are applied */
	uint64_t db_tail;         /* producers: next entry */
	struct sim_db db[SIM_HWQ_SHM_LOG];
	struct sim_hwq_pub pub;
};

/* ------------------------------------------------------------------------------------
 * Control requests: posted by host threads, done by the device's loop. A request lives on
 * its caller's stack: posted (dev->reqs, under req_lock) -> taken by the engine (reqs_taken,
 * engine-only, in posting order) -> started once nothing else is in progress and the model
 * time has reached its stamp (rl_current) -> finished (done = 1, futex wake; the caller
 * returns and the memory goes). device.c, "Requests and wake-ups", has the whole protocol.
 */
enum sim_req_kind {
	SIM_REQ_CREATE = 1,
	SIM_REQ_DESTROY,
	SIM_REQ_UPDATE,
	SIM_REQ_CU_MASK,
	SIM_REQ_SUSPEND,
	SIM_REQ_RESUME,
};

struct sim_req {
	struct sim_list link;
	enum sim_req_kind kind;
	struct sim_hwq **q;
	uint32_t n;
	uint32_t grace_units;
	/* UPDATE */
	void *ring_base;
	uint32_t ring_size_bytes;
	uint32_t priority;
	bool active;
	/* CU_MASK */
	uint32_t *cu_mask;
	uint64_t time; /* model time it was posted at: it never starts earlier */
	/*
	 * The KFD's own work after the runlist change (DBG_TRAP suspend and resume: the profile's
	 * dbg_suspend_ns / dbg_resume_ns): the HWS acts at once, the caller returns this much
	 * later. ev_tail carries the wait; the next request may start meanwhile.
	 */
	struct sim_event ev_tail;
	int result;
	uint64_t done_at; /* model time the device finished it */
	uint32_t done; /* futex word: 1 when the device finished it */
};

/* ------------------------------------------------------------------------------------
 * Devices.
 */
#define SIM_LEVELS 3 /* pipe priority: 0 low, 1 medium, 2 high */

struct sim_device {
	struct hsaqm_sim *sim;
	unsigned int index;
	struct sim_profile prof;
	struct sim_dev_wake *wake; /* in the arena header */

	/* Compute units: free wave slots per CU. */
	uint32_t ncu;
	uint32_t waves_per_cu;
	uint16_t *cu_free;
	uint32_t cu_cursor;
	uint64_t free_waves;

	/* Event heap and the time of the event being handled. */
	struct sim_event **heap;
	uint32_t nheap;
	uint32_t capheap;
	uint64_t ev_seq;
	uint64_t now;
	struct sim_event ev_stim;
	struct sim_event ev_quantum;
	struct sim_event ev_req;   /* the head of reqs_taken waits for its model time */

	/* Queues. */
	struct sim_list queues;
	uint32_t nqueues;
	uint32_t next_queue_index;
	struct sim_hwq **slots;
	uint32_t slots_used;
	uint64_t wait_counter;

	/* Requests: the list is shared with host threads (req_lock); the rest is engine-owned. */
	pthread_mutex_t req_lock;
	struct sim_list reqs;
	struct sim_list reqs_taken;
	struct sim_req *rl_current;
	bool rl_victims_named; /* sched_policy 2: only the request's queues are unmapped */
	/*
	 * Assertions that must stay 0 (tests check them; each occurrence is logged as an error):
	 * a request taken but neither started nor waiting for its time when the loop stopped
	 * (engine-owned, sim_device_run), and a request a caller saw sitting in the posted list
	 * for SIM_REQ_STALL_NS while the engine did not take it, i.e. a lost wake-up (atomic,
	 * sim_device_request).
	 */
	uint64_t stranded_requests;
	uint64_t lost_wakeups;

	/* Dispatcher. */
	struct sim_hwq **cand; /* scratch: candidate queues of one level */
	uint32_t capcand;
	bool stim_kicks;
	bool dispatch_dirty;
	bool hws_dirty;
	bool sig_check;
	uint64_t pass;
	uint32_t rr_next[SIM_LEVELS];

	uint64_t rng[4];
	struct sim_batch *batch_free;
	size_t batch_bytes;

	/* Trace lanes for workgroup batches and dispatch spans. */
	uint8_t *lane_used;
	uint32_t nlanes;

	/* Engine thread (REAL mode). */
	pthread_t thread;
	bool thread_started;
	uint32_t stop;
};

struct sim_handler;

enum sim_face_slot_ids { SIM_FACE_SLOTS = 3 };

/* In-process model, a device process serving clients, or a client of one (shared.c). */
enum sim_role { SIM_ROLE_LOCAL = 0, SIM_ROLE_DEVICE = 1, SIM_ROLE_CLIENT = 2 };

struct sim_shared;

struct hsaqm_sim {
	struct hsaqm_sim_config cfg;
	enum sim_role role;
	struct sim_shared *shared; /* shared.c: the server's or the client's state */
	enum hsaqm_sim_time_mode mode;
	double scale;
	uint64_t start_mono;
	uint64_t vnow;             /* VIRTUAL: model time (atomic) */
	pthread_mutex_t vloop_lock;
	struct sim_arena arena;
	unsigned int ndev;
	struct sim_device *dev[HSAQM_SIM_MAX_DEVICES];
	struct sim_trace *trace;

	/* Async signal handlers. */
	pthread_mutex_t handler_lock;
	struct sim_handler *handlers;
	pthread_mutex_t handler_run_lock; /* VIRTUAL: held by the one thread running due handlers */
	uint32_t handlers_pending;        /* VIRTUAL: due or running handlers (atomic) */
	pthread_t handler_thread;
	bool handler_thread_started;
	uint32_t handler_stop;
	uint32_t handler_kick;

	/* The sysfs tree is the one a runtime reads (sim_sysfs_runtime_topology()). */
	bool runtime_topology;

	/* Faces' per-model state (sim_face_state). */
	pthread_mutex_t face_lock;
	void *face_state[SIM_FACE_SLOTS];
	void (*face_fini[SIM_FACE_SLOTS])(struct hsaqm_sim *sim, void *state);
};

/* The memory @q's packets may name: its client's arena in a device process, else the model's. */
static inline const struct sim_arena *sim_hwq_mem(const struct sim_hwq *q)
{
	return q->arena ? q->arena : &q->dev->sim->arena;
}

/* True on a thread that is running a device's event loop (callbacks run there). */
bool sim_in_engine(void);
void sim_engine_enter(void);
void sim_engine_leave(void);

int sim_device_create(struct hsaqm_sim *sim, unsigned int index, const char *properties_path,
		      const char *timing_path, struct sim_device **out);
void sim_device_destroy(struct sim_device *dev);
int sim_device_start(struct sim_device *dev);
void sim_device_stop(struct sim_device *dev);

/* Tell the device's loop that something happened at model time @t. */
void sim_device_stimulate(struct sim_device *dev, uint64_t t, uint32_t *flag);
void sim_device_wake(struct sim_device *dev);

/*
 * Run every stimulus and event of @dev up to model time @limit. Returns true if it did
 * anything. Caller: the engine thread, or the VIRTUAL loop (holding vloop_lock).
 */
bool sim_device_run(struct sim_device *dev, uint64_t limit);
uint64_t sim_device_next_event(const struct sim_device *dev);
bool sim_device_has_stimulus(const struct sim_device *dev);
/* VIRTUAL idle test: nothing scheduled and no runnable queue has unfinished work. */
bool sim_device_idle(const struct sim_device *dev);

/* Post @req to its device and wait until it is done (both modes). Return: req->result or -EDEADLK. */
int sim_device_request(struct sim_device *dev, struct sim_req *req);
/*
 * The model time this thread's next requests were made at (shared mode: a client's call,
 * stamped in the client; 0: now). A request is stamped with it when it is earlier than now,
 * so it acts when its caller made it, not when the device process read the socket.
 */
void sim_device_request_stamp(uint64_t model_ns);
/* The latest model time at which the device finished a request this thread made since its
 * last sim_device_request_stamp() (0: none). */
uint64_t sim_device_request_done_at(void);

/* VIRTUAL: run the loop until *@done is non-zero or nothing is left to happen. Return 0 or -EDEADLK. */
int sim_vloop_until(struct hsaqm_sim *sim, const uint32_t *done);
/*
 * VIRTUAL, caller holds vloop_lock and is marked in-engine: if handlers are due and this
 * thread holds no face lock, release the loop, run them (sim_signal_handlers_drain), take the
 * loop again and return true (the caller re-checks its condition); else return false.
 */
bool sim_vloop_drain(struct hsaqm_sim *sim);
/*
 * VIRTUAL, caller holds vloop_lock and is marked in-engine: do everything due at the current
 * model time; if there was nothing, move time to the next event if it is at or before
 * @limit. Return: true if anything ran or time moved (call again), false if nothing happens
 * until @limit.
 */
bool sim_vloop_step(struct hsaqm_sim *sim, uint64_t limit);

/* Dispatcher (device.c). */
void sim_dispatch_pass(struct sim_device *dev, uint64_t t);
void sim_batch_end(struct sim_device *dev, struct sim_batch *b, uint64_t t);
/* Finish batches of @q ending at or before @t; save the others with CWSR. Returns waves saved. */
uint64_t sim_queue_save_running(struct sim_hwq *q, uint64_t t);
void sim_queue_discard_work(struct sim_hwq *q);
void sim_dispatch_free(struct sim_dispatch *d);
int32_t sim_lane_get(struct sim_device *dev);
void sim_lane_put(struct sim_device *dev, int32_t lane);

/* Packet processor (pp.c). */
void sim_pp_run(struct sim_hwq *q, uint64_t t);
void sim_pp_launch_done(struct sim_hwq *q, uint64_t t);
void sim_pp_dispatch_complete(struct sim_dispatch *d, uint64_t t);
void sim_pp_recheck_waits(struct sim_device *dev, uint64_t t);
void sim_pp_unwatch(struct sim_hwq *q);
void sim_pp_error(struct sim_hwq *q, int hsa_status, const char *why, uint64_t t);
/* The CP's half of a queue error: @hsa_status into the queue's inactive signal, when its
 * read pointer sits in a runtime's amd_queue_t (pp.c). Shared mode's client calls it for a
 * device process that died (shared.c). */
void sim_cp_report_error(struct sim_hwq *q, int hsa_status, uint64_t t);
bool sim_pp_has_work(const struct sim_hwq *q);

/* HWS (hws.c). */
void sim_hws_request(struct sim_device *dev, struct sim_req *req, uint64_t t);
void sim_hws_schedule(struct sim_device *dev, uint64_t t);
void sim_hws_event(struct sim_device *dev, struct sim_event *ev, uint64_t t);
void sim_hws_wgs_drained(struct sim_hwq *q, uint64_t t);
void sim_hws_publish_state(struct sim_hwq *q);
int sim_hws_level(uint32_t priority);
uint64_t sim_hws_grace_ns(const struct sim_device *dev, uint64_t grace_units);

/* Free a queue the device no longer knows (never linked, or destroyed). */
void sim_hwq_free(struct sim_hwq *q);

/*
 * Take @q off @dev (queue destroy, device teardown): its leftover work is dropped and none of
 * its events may fire afterwards, as the queue is about to be freed or marked destroyed.
 */
static inline void sim_hwq_unlink(struct sim_device *dev, struct sim_hwq *q)
{
	sim_queue_discard_work(q);
	sim_ev_cancel(dev, &q->ev_grace);
	sim_ev_cancel(dev, &q->ev_unmap);
	sim_ev_cancel(dev, &q->ev_map);
	sim_ev_cancel(dev, &q->ev_pp);
	sim_list_del(&q->link);
}

/*
 * Shared mode (shared.c). The device side: sim_hwq_create_in() makes a queue whose packets
 * may name only memory of @arena, with the shared page @shm (both of a client).
 * sim_shared_hdr_of(): the header of the client arena holding @p (device role), for the
 * signal wake-ups. The client side: the sim_hwq_* calls forward to the device.
 * sim_shared_detach()/sim_shared_release(): hsaqm_sim_destroy()'s two steps.
 */
int sim_hwq_create_in(struct hsaqm_sim *sim, const struct sim_arena *arena, struct sim_hwq_shm *shm,
		      const struct sim_hwq_desc *d, struct sim_hwq **out);
struct sim_arena_hdr *sim_shared_hdr_of(const struct hsaqm_sim *sim, const void *p);
int sim_client_hwq_create(struct hsaqm_sim *sim, const struct sim_hwq_desc *d, struct sim_hwq **out);
int sim_client_hwq_destroy(struct sim_hwq *q);
int sim_client_hwq_update(struct sim_hwq *q, void *ring_base, uint32_t ring_size_bytes,
			  uint32_t priority, bool active);
int sim_client_hwq_set_cu_mask(struct sim_hwq *q, const uint32_t *mask, uint32_t nbits);
int sim_client_hwq_suspend_resume(struct sim_hwq *const *q, uint32_t n, uint32_t grace_units,
				  bool suspend);
void sim_client_hwq_doorbell(struct sim_hwq *q, uint64_t value);
void sim_shared_detach(struct hsaqm_sim *sim);
void sim_shared_release(struct hsaqm_sim *sim);

/* Test view of counters the faces do not need. Return: 0; -EINVAL for NULL. */
int sim_hwq_get_stats(const struct sim_hwq *q, struct sim_hwq_stats *out);

/* Trace (trace.c). Track ids inside a device ("tid" in the JSON). */
#define SIM_TRACK_QUEUE(qi) (1000u + (qi) * 16u)        /* packets: barrier waits, errors */
#define SIM_TRACK_HWS(qi) (1000u + (qi) * 16u + 1u)     /* map / preempt / suspend spans */
#define SIM_TRACK_DISPATCH(lane) (100000u + (uint32_t)(lane)) /* dispatch spans */
#define SIM_TRACK_WG(lane) (200000u + (uint32_t)(lane))       /* workgroup batches */

struct sim_trace;
int sim_trace_open(struct hsaqm_sim *sim, const char *path);
void sim_trace_close(struct hsaqm_sim *sim);
static inline bool sim_trace_on(const struct hsaqm_sim *sim)
{
	return sim->trace != NULL;
}
void sim_trace_span(struct hsaqm_sim *sim, unsigned int dev, uint32_t tid, const char *name,
		    uint64_t ts_ns, uint64_t dur_ns, const char *args_json);
void sim_trace_instant_at(struct hsaqm_sim *sim, unsigned int dev, uint32_t tid, const char *name,
			  uint64_t ts_ns, const char *args_json);
void sim_trace_name_track(struct hsaqm_sim *sim, unsigned int dev, uint32_t tid, const char *name);

#endif /* HSAQM_SIM_ENGINE_INTERNAL_H */
