/* SPDX-License-Identifier: MIT */
/*
 * hsaqm/hsaqm.h - public API of libhsaqm.
 *
 * Every function returns 0 or a negative errno unless its comment says otherwise.
 */
#ifndef HSAQM_HSAQM_H
#define HSAQM_HSAQM_H

#include <stdint.h>

#include "hsaqm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HSAQM_VERSION_MAJOR 0
#define HSAQM_VERSION_MINOR 1
#define HSAQM_VERSION_PATCH 0

/**
 * hsaqm_version_string() - the library's version as "MAJOR.MINOR.PATCH".
 *
 * Return: a static string; never NULL.
 */
HSAQM_API const char *hsaqm_version_string(void);

/**
 * hsaqm_version() - the library's version as MAJOR << 16 | MINOR << 8 | PATCH.
 *
 * Lets a program built against one header check the library it runs with.
 * Return: the encoded version (always positive).
 */
HSAQM_API uint32_t hsaqm_version(void);

/* ---------------------------------------------------------------------------------------
 * Levels, states, priorities
 *
 * Bad input (a NULL or foreign handle, a priority out of range, an unknown level or policy)
 * makes every function below return -EINVAL and, under HSAQM_LOG=error or more, log one
 * line saying what was wrong. Handles carry a magic number: a pointer that is not a live
 * handle of the right type is refused when its memory is readable (use after free is still
 * the caller's bug).
 */

/* Preemption levels (design.md). A queue asks for one and gets the highest its backend can do. */
enum hsaqm_level {
	HSAQM_LEVEL_NONE = 0, /* pass-through: every packet released at once, never preempted */
	HSAQM_LEVEL_1 = 1,    /* progressive launch: at most `lv1_threshold` packets in flight */
	HSAQM_LEVEL_2 = 2,    /* guardian packets: a closed gate stops the queue within `lv2_interval` kernels */
	HSAQM_LEVEL_3 = 3,    /* hardware suspension with CWSR, mid-kernel */
};

enum hsaqm_xq_state {
	HSAQM_XQ_IDLE = 0,      /* nothing held back, nothing in flight */
	HSAQM_XQ_READY = 1,     /* has work and may run */
	HSAQM_XQ_PREEMPTED = 2, /* has work but is held at its level */
};

/* Priorities: higher wins. The range leaves room for the HIP stream priorities (-1/0/1 ->
 * high/normal/low are mapped by the tool library) and for per-process offsets. */
#define HSAQM_PRIORITY_MIN (-100)
#define HSAQM_PRIORITY_MAX 100
#define HSAQM_PRIORITY_DEFAULT 0

/* Launch parameters; 0 in a config means the default below. */
#define HSAQM_LV1_THRESHOLD_DEFAULT 16 /* XSched's default */
#define HSAQM_LV1_BATCH_DEFAULT 8      /* XSched's default */
#define HSAQM_LV2_INTERVAL_DEFAULT 1

/* UTIL shares are in permille of a device. */
#define HSAQM_SHARE_MAX 1000

struct hsaqm_ctx;
struct hsaqm_xq;
struct hsaqm_backend_ops;

/** hsaqm_level_name() - "none", "lv1", "lv2", "lv3"; "?" for anything else. Never NULL. */
HSAQM_API const char *hsaqm_level_name(enum hsaqm_level level);

/** hsaqm_xq_state_name() - "idle", "ready", "preempted"; "?" for anything else. Never NULL. */
HSAQM_API const char *hsaqm_xq_state_name(enum hsaqm_xq_state state);

/* How a queue is stopped at its effective level (hsaqm_xq_get_info(), the stats). */
enum hsaqm_mechanism {
	HSAQM_MECH_NONE = 0,         /* never stopped: level none, or failed open */
	HSAQM_MECH_HOLD = 1,         /* Lv1: lib stops releasing packets */
	HSAQM_MECH_GATE = 2,         /* Lv2: the guardian gate */
	HSAQM_MECH_DBG_TRAP = 3,     /* Lv3: KFD DBG_TRAP SUSPEND_QUEUES */
	HSAQM_MECH_UPDATE_QUEUE = 4, /* Lv3: KFD UPDATE_QUEUE with percentage 0 */
};

/** hsaqm_mechanism_name() - "none", "hold", "gate", "dbg_trap", "update_queue"; "?" else. */
HSAQM_API const char *hsaqm_mechanism_name(enum hsaqm_mechanism m);

/*
 * Spatial: a share of the device's CUs kept free of a queue through its CU mask, so that
 * higher-priority work finds CUs without waiting for this queue's running kernel
 * (hsaqm_xq_set_spatial(); docs/lib.md, "Spatial").
 */
enum hsaqm_spatial {
	HSAQM_SPATIAL_OFF = 0,
	HSAQM_SPATIAL_STATIC = 1,  /* confined from now on, whatever the scheduler does */
	HSAQM_SPATIAL_DYNAMIC = 2, /* confined while held with work in flight; all CUs otherwise */
	HSAQM_SPATIAL_AUTO = 3,    /* off; DYNAMIC once an Lv3 request falls back to Lv2 */
};

/** hsaqm_spatial_name() - "off", "static", "dynamic", "auto"; "?" else. */
HSAQM_API const char *hsaqm_spatial_name(enum hsaqm_spatial s);

/* ---------------------------------------------------------------------------------------
 * Context: one scheduling domain (a process's tool library, or the daemon)
 */

/**
 * hsaqm_ctx_create() - create a scheduling context with the HPF policy on every device.
 * @out: receives the context.
 *
 * The context owns one timer thread (the only thread libhsaqm creates), which serves the
 * starvation floor and the UTIL time slices; it sleeps until a deadline, it never polls.
 * At process exit (atexit), every queue of every live context is resumed and its gate
 * opened, whatever state it was in (design decision 4).
 * Return: 0; -EINVAL for a NULL @out; -ENOMEM; -EAGAIN when its timer thread cannot start.
 */
HSAQM_API int hsaqm_ctx_create(struct hsaqm_ctx **out);

/**
 * hsaqm_ctx_destroy() - stop the timer thread, detach every queue (hsaqm_xq_detach()) and
 * free the context. NULL is a no-op. The backends must have stopped calling
 * hsaqm_xq_submitted() and hsaqm_xq_marker_done() for its queues.
 */
HSAQM_API void hsaqm_ctx_destroy(struct hsaqm_ctx *ctx);

enum hsaqm_policy_kind {
	/*
	 * Highest priority first: the highest-priority non-idle queues of a device run; every
	 * lower one is preempted at its level and resumed when they all go idle.
	 */
	HSAQM_POLICY_HPF = 0,
	/* Utilization partition: each queue (or group) gets its share of every period. */
	HSAQM_POLICY_UTIL = 1,
	/* No scheduling: queues are never preempted (levels still bound what is in flight). */
	HSAQM_POLICY_NONE = 2,
};

/** hsaqm_policy_name() - "hpf", "util", "none"; "?" for anything else. Never NULL. */
HSAQM_API const char *hsaqm_policy_name(enum hsaqm_policy_kind kind);

struct hsaqm_policy_config {
	enum hsaqm_policy_kind kind;
	/*
	 * HPF starvation floor: a queue HPF keeps preempted runs `floor_slice_us` every
	 * `floor_period_us` (beside the higher queues, which are not stopped for it);
	 * both 0 = off.
	 */
	uint32_t floor_period_us;
	uint32_t floor_slice_us;
	/* UTIL: the period the shares divide; 0 = 10000 us. */
	uint32_t util_period_us;
};

/**
 * hsaqm_ctx_set_policy() - choose the policy of one device of the context, and decide again
 * at once for its queues.
 * @device: the device id queues are (or will be) attached with.
 *
 * Return: 0; -EINVAL for a NULL argument, an unknown kind, a floor slice without a period
 * (or a period without a slice), or a slice not shorter than its period; -ENOMEM.
 */
HSAQM_API int hsaqm_ctx_set_policy(struct hsaqm_ctx *ctx, uint32_t device,
				   const struct hsaqm_policy_config *policy);

/**
 * hsaqm_ctx_get_policy() - the policy of one device (HPF with no floor if never set).
 * Return: 0; -EINVAL for NULL arguments.
 */
HSAQM_API int hsaqm_ctx_get_policy(struct hsaqm_ctx *ctx, uint32_t device,
				   struct hsaqm_policy_config *policy);

/**
 * hsaqm_ctx_foreach_xq() - call @fn for every attached queue until it returns non-zero.
 *
 * @fn may read and set queues (hsaqm_xq_get_info(), hsaqm_xq_set_priority()...) but must
 * not attach or detach queues of @ctx: those calls return -EDEADLK from inside @fn. Other
 * threads that attach or detach wait until the iteration ends.
 * Return: 0, or the first non-zero value @fn returned; -EINVAL for NULL arguments.
 */
HSAQM_API int hsaqm_ctx_foreach_xq(struct hsaqm_ctx *ctx, int (*fn)(struct hsaqm_xq *xq, void *arg),
				   void *arg);

/**
 * hsaqm_ctx_set_idle_hook() - call @fn(@arg) each time a queue of @ctx has completed
 * everything submitted to it (it went idle), so that a caller who reports idleness elsewhere
 * (the tool library to hsaqmd) need not poll.
 *
 * The hook runs on the thread that reported the completion (the backend's, inside
 * hsaqm_xq_marker_done()), after lib released its locks: it may call any hsaqm function,
 * but it delays the completions behind it, so it should only note or wake. It names no
 * queue (the queue may be detached by the time it runs): ask hsaqm_xq_get_info() about the
 * queues you track. One hook per context, for its lifetime.
 * Return: 0; -EINVAL for a NULL @fn or a foreign @ctx; -EBUSY when a hook is set already.
 */
HSAQM_API int hsaqm_ctx_set_idle_hook(struct hsaqm_ctx *ctx, void (*fn)(void *arg), void *arg);

/* The default bound on a wait hsaqm cannot attribute (docs/lib.md "Dependencies"). */
#define HSAQM_DEP_BOUND_DEFAULT_NS (2ull * 1000 * 1000)
/* The shortest bound that may be set: below it the check would cost more than it saves. */
#define HSAQM_DEP_BOUND_MIN_NS (100ull * 1000)

/**
 * hsaqm_ctx_set_dep_bound() - how long a queue's head may wait on a dependency before the
 * queue stops counting as demand: it then holds no lower queue until it moves again, so a
 * wait on something hsaqm cannot attribute (a signal the host sets later, memory a lower
 * queue's kernel writes, another process) never becomes a deadlock. Each time it happens is
 * counted per queue (dep_stalls) and said once per queue on stderr. The default is
 * HSAQM_DEP_BOUND_DEFAULT_NS, or HSAQM_DEP_BOUND_MS from the environment when the context is
 * created (docs/environment.md).
 * Return: 0; -EINVAL for a foreign @ctx or a bound below HSAQM_DEP_BOUND_MIN_NS.
 */
HSAQM_API int hsaqm_ctx_set_dep_bound(struct hsaqm_ctx *ctx, uint64_t bound_ns);

/* ---------------------------------------------------------------------------------------
 * xqueues: one per hardware queue
 */

struct hsaqm_xq_config {
	uint32_t device;        /* queues on the same device compete */
	int priority;           /* HSAQM_PRIORITY_MIN..MAX */
	enum hsaqm_level level; /* requested level */
	uint32_t lv1_threshold; /* 0 = default */
	uint32_t lv1_batch;     /* 0 = default; <= lv1_threshold */
	uint32_t lv2_interval;  /* dispatches per guardian; 0 = default */
	uint32_t group;         /* UTIL policy: queues of a group share one share; 0 = own group */
	uint32_t share_permille;/* UTIL policy: share of the device, 1..1000; 0 = equal shares */
	const char *name;       /* copied (31 characters kept); for stats and logs; NULL = "xq<N>" */
};

/**
 * hsaqm_xq_attach() - put a hardware queue under hsaqm.
 * @ops, @bq: the backend and its queue; @ops is not copied and must outlive the queue.
 * @out: receives the xqueue.
 *
 * The effective level is min(requested, ops->max_level()); when lower, the reason is in
 * hsaqm_xq_get_info() and logged once at warn level. A batch of 0 with a threshold below
 * the default batch takes the threshold as its batch.
 * Return: 0; -EINVAL for NULL arguments (@ops->release and @ops->max_level are required;
 * a backend without gate_close/gate_open gets at most Lv1, one without suspend/resume at
 * most Lv2, with that reason), a priority out of range, an unknown level, a
 * batch larger than the threshold, a share above 1000; -EDEADLK from inside
 * hsaqm_ctx_foreach_xq(); -ENOMEM.
 */
HSAQM_API int hsaqm_xq_attach(struct hsaqm_ctx *ctx, const struct hsaqm_xq_config *cfg,
			      const struct hsaqm_backend_ops *ops, void *bq, struct hsaqm_xq **out);

/**
 * hsaqm_xq_detach() - release everything the queue holds back, open its gate, resume it,
 * give the scheduler's decision back to the others, and free it. Nothing is lost: held
 * packets go to the hardware queue (if its ring stays full, detach retries for up to one
 * second). NULL is a no-op. The backend must have stopped calling hsaqm_xq_submitted() and
 * hsaqm_xq_marker_done() for this queue; ops->detached() is called last.
 *
 * Return: 0; -EINVAL for a foreign handle; -EDEADLK from inside hsaqm_ctx_foreach_xq() (the
 * queue stays attached); otherwise the first backend error met while letting go (the queue
 * is freed anyway).
 */
HSAQM_API int hsaqm_xq_detach(struct hsaqm_xq *xq);

/**
 * hsaqm_xq_set_priority() - change the priority and decide again at once (a running queue
 * may be preempted, a preempted one resumed).
 * Return: 0; -EINVAL for NULL or a priority outside HSAQM_PRIORITY_MIN..MAX.
 */
HSAQM_API int hsaqm_xq_set_priority(struct hsaqm_xq *xq, int priority);

/**
 * hsaqm_xq_set_level() - request another level; takes effect for packets released from
 * now on (guardians already in the ring stay). The effective level is still bounded by the
 * backend, by an earlier Lv3 fallback and by fail-open.
 * Return: 0; -EINVAL for NULL or an unknown level.
 */
HSAQM_API int hsaqm_xq_set_level(struct hsaqm_xq *xq, enum hsaqm_level level);

/**
 * hsaqm_xq_set_launch() - Lv1 threshold and batch, Lv2 guardian interval (0 = unchanged).
 * Return: 0; -EINVAL for NULL or a batch larger than the threshold (the values after the
 * change are compared).
 */
HSAQM_API int hsaqm_xq_set_launch(struct hsaqm_xq *xq, uint32_t lv1_threshold, uint32_t lv1_batch,
				  uint32_t lv2_interval);

/**
 * hsaqm_xq_set_share() - UTIL policy share (1..1000 permille, 0 = equal) and group (0 =
 * own); decides again at once.
 * Return: 0; -EINVAL for NULL or a share above 1000.
 */
HSAQM_API int hsaqm_xq_set_share(struct hsaqm_xq *xq, uint32_t group, uint32_t share_permille);

/**
 * hsaqm_xq_set_spatial() - keep the first @reserve_permille of the device's CUs free of this
 * queue: at once and for good (STATIC), while the queue is held with work in flight
 * (DYNAMIC: the kernel in flight moves off the reserved CUs, every CU comes back when the
 * queue runs again), or only after an Lv3 request fell back to Lv2 (AUTO). The backend's
 * cu_confine() does it; a queue lib lets go (detach, exit, fail-open) gets every CU back.
 * @reserve_permille: 1..999 (ignored with OFF).
 *
 * Return: 0; -EINVAL for NULL, an unknown mode or a share out of range; -EOPNOTSUPP when the
 * backend cannot set CU masks (no cu_confine: the queue stays unconfined).
 */
HSAQM_API int hsaqm_xq_set_spatial(struct hsaqm_xq *xq, enum hsaqm_spatial mode,
				   uint32_t reserve_permille);

/**
 * hsaqm_xq_suspend() - hold the queue by hand at its effective level until
 * hsaqm_xq_resume(), whatever the policy decides. Nesting is not counted. A queue held by
 * hand does not compete: it does not keep lower queues preempted.
 * Return: 0 (also when Lv3 fell back to Lv2 on the way: see hsaqm_xq_get_info());
 * -EINVAL for NULL; -EOPNOTSUPP when the effective level is HSAQM_LEVEL_NONE (nothing can
 * hold it); a backend error (the queue then fails open: it runs unscheduled).
 */
HSAQM_API int hsaqm_xq_suspend(struct hsaqm_xq *xq);

/**
 * hsaqm_xq_resume() - undo hsaqm_xq_suspend(); the policy decides again.
 * Return: 0 (also when not suspended by hand); -EINVAL for NULL; a backend error (the
 * queue then fails open).
 */
HSAQM_API int hsaqm_xq_resume(struct hsaqm_xq *xq);

struct hsaqm_xq_info {
	char name[32];
	uint32_t device;
	int priority;
	enum hsaqm_level requested_level;
	enum hsaqm_level effective_level;
	char level_reason[128]; /* why effective < requested (backend limit, Lv3 fallback, fail-open); "" otherwise */
	enum hsaqm_xq_state state;
	int held_by_hand;       /* hsaqm_xq_suspend() in force */
	int failed_open;        /* a backend error made the queue run unscheduled for good */
	uint32_t group;
	uint32_t share_permille;
	uint64_t submitted;     /* packets the application published */
	uint64_t released;      /* packets moved to the hardware queue */
	uint64_t completed;     /* packets known complete (marker granularity) */
	enum hsaqm_mechanism mechanism; /* how it is stopped at its effective level */
	char mechanism_reason[192];     /* why this mechanism (the backend's decision, a fallback) */
	enum hsaqm_spatial spatial;     /* its spatial mode ... */
	uint32_t cu_reserve_permille;   /* ... and reserve */
	int confined;                   /* its CU mask keeps the reserve free right now */
};

/** hsaqm_xq_get_info() - Return: 0; -EINVAL for NULL arguments or a foreign handle. */
HSAQM_API int hsaqm_xq_get_info(const struct hsaqm_xq *xq, struct hsaqm_xq_info *info);

/**
 * hsaqm_xq_get_id() - the queue's id within its context (from 1, never reused while the
 * context lives): what a backend names in struct hsaqm_dep's on_id.
 * Return: the id; 0 for a NULL or foreign @xq.
 */
HSAQM_API uint32_t hsaqm_xq_get_id(const struct hsaqm_xq *xq);

/* Dependencies of a queue and what they made hsaqm do (docs/lib.md "Dependencies"). */
struct hsaqm_xq_deps {
	uint64_t waits;      /* waits the backend reported (hsaqm_xq_depend()) */
	uint64_t inherited;  /* times the queue ran, held otherwise, because a higher queue waited on it */
	uint64_t stalls;     /* times its head waited past the bound and it stopped counting as demand */
	uint32_t live;       /* waits not over yet */
	int inheriting;      /* runs now only for a queue that waits on it, up to upto */
	int stalled;         /* its head waits past the bound now: it holds nobody */
	uint32_t waiting_on; /* the id of a queue its oldest live wait needs, 0 if none or unknown */
	uint64_t upto;       /* while inheriting: it is released up to this packet */
};

/** hsaqm_xq_get_deps() - Return: 0; -EINVAL for NULL arguments or a foreign handle. */
HSAQM_API int hsaqm_xq_get_deps(const struct hsaqm_xq *xq, struct hsaqm_xq_deps *deps);

/* ---------------------------------------------------------------------------------------
 * Statistics
 */

struct hsaqm_xq_stats {
	uint64_t submitted;
	uint64_t released;
	uint64_t completed;
	uint64_t preemptions;     /* times the queue entered the preempted state (held with work) */
	uint64_t preempted_ns;    /* total time preempted, the current spell included */
	uint64_t guardians;       /* guardian packets written (Lv2, and Lv3 until proven) */
	uint64_t markers;         /* completion markers written */
	/* Priorities the queue could not honour: a second priority asked for while it held work
	 * of another (streams of different priority sharing it); hsaqm_xq_count_priority_conflict(). */
	uint64_t priority_conflicts;
	enum hsaqm_level requested_level;
	enum hsaqm_level effective_level;
	enum hsaqm_mechanism mechanism; /* how it is stopped at its effective level */
	uint64_t confinements;    /* times its CU mask was shrunk to keep the reserve free */
	/* Submission (doorbell) to completion (marker), per doorbell batch, nanoseconds. */
	uint64_t latency_count;
	uint64_t latency_p50_ns;
	uint64_t latency_p99_ns;
	uint64_t latency_p999_ns;
	uint64_t latency_max_ns;
};

/** hsaqm_xq_get_stats() - Return: 0; -EINVAL for NULL arguments or a foreign handle. */
HSAQM_API int hsaqm_xq_get_stats(const struct hsaqm_xq *xq, struct hsaqm_xq_stats *stats);

/**
 * hsaqm_xq_count_priority_conflict() - an integration saw the queue asked for a priority it
 * cannot give to only part of its work: a second priority while it held work of another, as
 * when streams of different priority share one HSA queue. An xqueue has one priority, so all
 * its work now runs at the last one; this counts it (priority_conflicts in the stats, so it is
 * said rather than hidden). The integration tells the person (the tool library: once per
 * queue on stderr, docs/tool.md).
 * Return: 0; -EINVAL for a NULL or foreign @xq.
 */
HSAQM_API int hsaqm_xq_count_priority_conflict(struct hsaqm_xq *xq);

/*
 * Everything lib reports of one queue, read at one instant (under one lock): the typed form of
 * one object of hsaqm_ctx_stats_json()'s "queues", whose members docs/stats.md names after these
 * fields. An integration that publishes statistics of its own (the tool library) writes its
 * queues from this, with its own members beside lib's, instead of editing lib's JSON text.
 */
struct hsaqm_xq_report {
	uint32_t id;                 /* hsaqm_xq_get_id() */
	struct hsaqm_xq_info info;
	struct hsaqm_xq_stats stats;
	struct hsaqm_xq_deps deps;
	enum hsaqm_spatial spatial_in_force; /* the mode acting now (AUTO: OFF, or DYNAMIC after an Lv3 fallback) */
	uint32_t lv1_threshold;      /* hsaqm_xq_set_launch()'s values in force */
	uint32_t lv1_batch;
	uint32_t lv2_interval;
	uint64_t latency_min_ns;     /* the smallest submission-to-completion latency seen (0: none yet) */
};

/**
 * hsaqm_xq_get_report() - fill @report with the queue's info, statistics and dependencies,
 * all read at one instant.
 * Return: 0; -EINVAL for NULL arguments or a foreign handle.
 */
HSAQM_API int hsaqm_xq_get_report(const struct hsaqm_xq *xq, struct hsaqm_xq_report *report);

/**
 * hsaqm_ctx_stats_json() - the context's devices and every queue's struct hsaqm_xq_report as
 * one JSON document (schema in docs/stats.md), malloc'ed into *@json (free() it). A
 * serialisation only: each queue's values come from hsaqm_xq_get_report()'s structure, a
 * device's from hsaqm_ctx_get_policy().
 * Return: 0; -EINVAL for NULL arguments; -ENOMEM.
 */
HSAQM_API int hsaqm_ctx_stats_json(struct hsaqm_ctx *ctx, char **json);

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_HSAQM_H */
