/* SPDX-License-Identifier: MIT */
/*
 * xq_internal.h - contexts, devices and xqueues inside libhsaqm, and the entry points the
 * files of lib/ share. docs/lib.md tells how they work together.
 *
 * Locking (in this order; never the other way):
 *   ctx->lock (recursive)  the device list; attach, detach, foreach, the timer's walk
 *   dev->lock              every xqueue of the device and its scheduling state; backend
 *                          operations of those queues are called under it
 *   ctx->timer_lock        the timer's next wake-up only
 */
#ifndef HSAQM_XQ_INTERNAL_H
#define HSAQM_XQ_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hsaqm-common/hist.h"
#include "hsaqm/backend.h"
#include "hsaqm/hsaqm.h"
#include "hsaqm-common/policy.h"
#include "hsaqm-common/text.h" /* hsaqm_errno_name() */
#include "hsaqm-common/time.h" /* hsaqm_tsc() */

#define HSAQM_CTX_MAGIC 0x68716378u  /* "hqcx" */
#define HSAQM_XQ_MAGIC 0x68717871u   /* "hqxq" */
#define HSAQM_DEAD_MAGIC 0xdeadc0deu

/*
 * Markers outstanding at once, at most. Lv0/2/3 keep one; Lv1 keeps up to
 * ceil(threshold / batch) + 1, so a threshold above 63 batches is limited by this.
 */
#define HSAQM_XQ_MARKERS 64u
/* Doorbell batches waiting for their completion (latency samples); when full, a new
 * batch merges into the newest entry, keeping that entry's older timestamp. */
#define HSAQM_XQ_LAT_RING 64u
/* Most packets one release call moves (bounds what one -EAGAIN can hold up). */
#define HSAQM_RELEASE_CHUNK_MAX (1u << 16)
/* Retry after -EAGAIN when no marker is outstanding to trigger it. */
#define HSAQM_RETRY_NS 200000u
#define HSAQM_NO_DEADLINE UINT64_MAX
/*
 * Live waits a queue keeps (hsaqm_xq_depend()). Streams rarely have more than a few
 * cross-queue waits outstanding; a wait beyond these is kept only as "some wait" (deps_lost),
 * to which the bound still applies.
 */
#define HSAQM_XQ_DEPS 8u

/* One live wait: packet @index of the queue waits on queue @on_id up to its packet @upto. */
struct hsaqm_xq_dep {
	uint64_t index;
	uint64_t upto;
	uint32_t on_id; /* 0: not attributable; only the bound applies */
};

struct hsaqm_ctx;

struct hsaqm_lat_entry {
	uint64_t end;   /* packets up to this index ... */
	uint64_t stamp; /* ... were submitted at this stamp (hsaqm_ctx_stamp()) */
};

struct hsaqm_xq {
	uint32_t magic;
	uint32_t id;
	struct hsaqm_dev *dev;
	const struct hsaqm_backend_ops *ops;
	void *bq;
	uint32_t slot; /* index in dev->xqs and dev->pq */
	char name[32];

	/* Configuration. */
	int priority;
	uint32_t group;
	uint32_t share;
	uint32_t lv1_threshold;
	uint32_t lv1_batch;
	uint32_t lv2_interval;
	uint8_t level_req;
	uint8_t level_max; /* what the backend allows */
	uint8_t level_cap; /* lowered by an Lv3 fallback */
	uint8_t level_eff;

	/* Scheduling and hardware state. */
	bool run;           /* the policy lets it run */
	bool by_hand;       /* hsaqm_xq_suspend() */
	bool gate_closed;   /* we closed its gate and have not opened it */
	bool suspended;     /* we suspended it and have not resumed it */
	bool lv3_proven;    /* a suspend succeeded once: Lv3 releases need no guardians */
	bool failed_open;   /* pass-through for good after a backend error */
	bool retry_pending; /* a release met -EAGAIN */
	bool preempted;     /* in state PREEMPTED (for the time account) */
	bool guard_fresh;   /* the next guarded packet gets a guardian first */
	int notice_once;
	int fail_err;

	/* Packet counts (indices since the queue was created). */
	uint64_t submitted;
	uint64_t released;
	uint64_t completed;
	uint64_t marked;  /* released index the newest marker covers */
	uint64_t mk_next; /* next marker sequence number (from 1) */
	uint64_t mk_done; /* newest marker done (0 = none) */
	uint64_t mk_cover[HSAQM_XQ_MARKERS];
	uint32_t guard_run; /* guarded packets since the last guardian */

	/* Statistics. */
	uint64_t preemptions;
	uint64_t preempted_ns;
	uint64_t preempted_since;
	uint64_t guardians;
	uint64_t markers;
	uint64_t priority_conflicts; /* hsaqm_xq_count_priority_conflict() */
	uint32_t lat_head; /* oldest entry */
	uint32_t lat_len;
	struct hsaqm_lat_entry lat[HSAQM_XQ_LAT_RING];
	struct hsaqm_hist hist;

	char why_max[96];      /* the backend's reason for level_max */
	char why_fallback[128]; /* the Lv3 fallback's reason */
	char why_failopen[96]; /* the fail-open reason */

	/*
	 * Dependencies (docs/lib.md "Dependencies and priority inheritance"): the waits the
	 * backend reported, what they make this queue do for others (inherit: run up to
	 * inh_upto although the policy holds it), and the bound on its own head's wait.
	 */
	struct hsaqm_xq_dep deps[HSAQM_XQ_DEPS];
	uint32_t ndeps;
	bool deps_lost;        /* a wait found no room: "some wait", bound only */
	bool inherit;          /* decide(): a live waiter needs this queue's packets */
	bool inherit_only;     /* it runs only because of that: released up to inh_upto */
	bool stalled;          /* its head waited past the bound: it counts as no demand */
	bool head_waiting;     /* hsaqm_dep_resolve(): its head stands at a wait (head_waits()) */
	bool dec_was_running;  /* decide(): hsaqm_engine_wants_run() before this decision */
	int inh_prio;          /* decide(): the highest waiter priority through the chain */
	uint64_t inh_upto;     /* decide(): the farthest packet a waiter needs */
	uint64_t wait_since;   /* when its head was first seen waiting (0: not waiting) */
	uint64_t wait_progress; /* its waits' producers' completions when last looked at */
	uint64_t dep_waits;
	uint64_t dep_inherited;
	uint64_t dep_stalls;
	int stall_notice;

	/* Spatial (hsaqm_xq_set_spatial): a share of the CUs kept free of this queue. */
	uint8_t spatial;       /* enum hsaqm_spatial asked for */
	bool confined;         /* cu_confine(reserve) in force */
	bool spatial_broken;   /* cu_confine failed once: spatial off for this queue */
	uint32_t reserve;      /* permille of the device's CUs */
	uint64_t confinements;
	char why_spatial[96];  /* why spatial stopped, when it did */
};

struct hsaqm_dev {
	struct hsaqm_dev *next;
	struct hsaqm_ctx *ctx;
	uint32_t id;
	bool exiting; /* the process is exiting: everything passes through */
	pthread_mutex_t lock;
	struct hsaqm_policy_config policy;
	struct hsaqm_policy_state pstate;
	struct hsaqm_xq **xqs;
	struct hsaqm_policy_queue *pq; /* parallel to xqs */
	uint32_t nxq;
	uint32_t cap;
	uint64_t policy_deadline;
	uint64_t retry_deadline;
	uint64_t dep_deadline; /* the next look at heads that wait (the bound) */
};

struct hsaqm_ctx_opts {
	/* The context's clock in ns; NULL = CLOCK_MONOTONIC. With a clock of its own the
	 * context starts no timer thread: the caller runs hsaqm_ctx_timer_poll(). */
	uint64_t (*clock)(void *arg);
	void *clock_arg;
};

struct hsaqm_ctx {
	uint32_t magic;
	pthread_mutex_t lock;
	struct hsaqm_dev *devs;
	uint32_t next_xq_id;
	uint64_t (*clock)(void *arg);
	void *clock_arg;
	/* Latency stamps: the TSC (ns = ticks * stamp_mult >> 32) or, if !stamp_tsc, the clock. */
	bool stamp_tsc;
	uint64_t stamp_mult;
	uint64_t dep_bound_ns; /* hsaqm_ctx_set_dep_bound() */

	pthread_mutex_t timer_lock;
	pthread_cond_t timer_cond;
	uint64_t timer_next;
	bool timer_stop;
	bool timer_thread_running;
	pthread_t timer_thread;

	struct hsaqm_ctx *reg_next; /* the atexit registry */

	/* hsaqm_ctx_set_idle_hook(): written once under lock, then idle_set (release). */
	void (*idle_fn)(void *arg);
	void *idle_arg;
	uint32_t idle_set;
};

/* ctx.c */
/* Call the context's idle hook, if any (no lib lock may be held). */
void hsaqm_ctx_idle_hook_call(struct hsaqm_ctx *ctx);
int hsaqm_ctx_create_opts(struct hsaqm_ctx **out, const struct hsaqm_ctx_opts *opts);
bool hsaqm_ctx_valid(const struct hsaqm_ctx *ctx);
uint64_t hsaqm_ctx_now(const struct hsaqm_ctx *ctx);
/* What hsaqm_engine_apply() is given when nobody read the clock yet: it reads it if it must. */
#define HSAQM_NOW_UNREAD UINT64_MAX
/* The context's clock, unless @now holds it already. */
static inline uint64_t hsaqm_ctx_now_lazy(const struct hsaqm_ctx *ctx, uint64_t now)
{
	return now == HSAQM_NOW_UNREAD ? hsaqm_ctx_now(ctx) : now;
}

/*
 * A latency stamp: the start of a submission's latency, taken on every doorbell (lib/ctx.c
 * explains the TSC). @now is a clock reading the caller has, or HSAQM_NOW_UNREAD; without the
 * TSC the stamp is that reading. Only differences of stamps mean anything;
 * hsaqm_ctx_stamp_ns() makes one nanoseconds.
 */
static inline uint64_t hsaqm_ctx_stamp(const struct hsaqm_ctx *ctx, uint64_t now)
{
	return ctx->stamp_tsc ? hsaqm_tsc() : hsaqm_ctx_now_lazy(ctx, now);
}

static inline uint64_t hsaqm_ctx_stamp_ns(const struct hsaqm_ctx *ctx, uint64_t delta)
{
	if (!ctx->stamp_tsc)
		return delta;
	return (uint64_t)(((unsigned __int128)delta * ctx->stamp_mult) >> 32);
}
/* Find the device, or create it (ctx->lock held). NULL on -ENOMEM. */
struct hsaqm_dev *hsaqm_dev_get(struct hsaqm_ctx *ctx, uint32_t id, bool create);
/* The calling thread is inside hsaqm_ctx_foreach_xq() of @ctx. */
bool hsaqm_ctx_iterating(const struct hsaqm_ctx *ctx);

/* timer.c */
int hsaqm_timer_start(struct hsaqm_ctx *ctx);
void hsaqm_timer_stop(struct hsaqm_ctx *ctx);
/* Make the timer wake at @deadline if that is earlier than planned (any lock may be held). */
void hsaqm_timer_arm(struct hsaqm_ctx *ctx, uint64_t deadline);
/* Run what is due at the context's clock now; return the next deadline. For contexts
 * created with their own clock (tests), and the timer thread's body. */
uint64_t hsaqm_ctx_timer_poll(struct hsaqm_ctx *ctx);

/* sched.c: called with dev->lock held. */
/* Decide again for every queue of the device and apply what changed. */
void hsaqm_dev_decide(struct hsaqm_dev *dev, uint64_t now);
/* A timer deadline of the device may have passed. */
void hsaqm_dev_timer(struct hsaqm_dev *dev, uint64_t now);
/* Tell the timer the device's next deadline (policy or retry). */
void hsaqm_dev_arm(struct hsaqm_dev *dev);
int hsaqm_dev_add(struct hsaqm_dev *dev, struct hsaqm_xq *xq);
void hsaqm_dev_remove(struct hsaqm_dev *dev, struct hsaqm_xq *xq);

/* dep.c: called with dev->lock held. */
/* Prune the waits that are over, apply the bound, work out who inherits (decide's first step). */
void hsaqm_dep_resolve(struct hsaqm_dev *dev, uint64_t now);
/* hsaqm_xq_get_deps()'s answer, under dev->lock. */
void hsaqm_xq_deps_locked(const struct hsaqm_xq *xq, struct hsaqm_xq_deps *deps);

/* engine.c: called with dev->lock held. */
static inline uint64_t hsaqm_xq_held(const struct hsaqm_xq *xq)
{
	return xq->submitted - xq->released;
}

static inline uint64_t hsaqm_xq_inflight(const struct hsaqm_xq *xq)
{
	return xq->released - xq->completed;
}

static inline bool hsaqm_xq_idle(const struct hsaqm_xq *xq)
{
	return xq->submitted == xq->completed;
}

/* It is let run: its level cannot hold it, it failed open, or neither policy nor hand holds it. */
bool hsaqm_engine_wants_run(const struct hsaqm_xq *xq);
/*
 * Make the hardware state follow hsaqm_engine_wants_run(): resume and release, or hold.
 * @now may be HSAQM_NOW_UNREAD: the clock is read only when a state change needs its time.
 */
void hsaqm_engine_apply(struct hsaqm_xq *xq, uint64_t now);
/* Effective level from requested, backend maximum, fallback cap and fail-open. */
void hsaqm_engine_update_level(struct hsaqm_xq *xq);
/* Everything before the marker completed at @stamp: move `completed`, take latency samples. */
void hsaqm_engine_completed(struct hsaqm_xq *xq, uint64_t completed, uint64_t stamp);
/* Record a doorbell batch, submitted at @stamp (hsaqm_ctx_stamp()), for its latency sample. */
void hsaqm_engine_note_submit(struct hsaqm_xq *xq, uint64_t end, uint64_t stamp);
/* Account state changes (preemptions, time preempted); @now may be HSAQM_NOW_UNREAD. */
void hsaqm_engine_note_state(struct hsaqm_xq *xq, uint64_t now);
enum hsaqm_xq_state hsaqm_engine_state(const struct hsaqm_xq *xq);
/*
 * Resume, open the gate and release everything held, without markers (detach, exit).
 * Return: 0 when done (errors met on the way go to *@first_err if it is still 0);
 * -EAGAIN when the ring is full: call again once it has drained.
 */
int hsaqm_engine_let_go(struct hsaqm_xq *xq, int *first_err);
/* Why the effective level is below the requested one ("" if it is not). */
void hsaqm_engine_reason(const struct hsaqm_xq *xq, char *buf, size_t len);
/* How the queue is stopped at its effective level, and why (in @why). */
enum hsaqm_mechanism hsaqm_engine_mechanism(const struct hsaqm_xq *xq, char *why, size_t len);
/* The spatial mode in force now (AUTO becomes DYNAMIC once an Lv3 request runs at Lv2). */
enum hsaqm_spatial hsaqm_engine_spatial(const struct hsaqm_xq *xq);
/* The name of a negative errno value ("EPERM"), or its number. */
const char *hsaqm_errno_name(int err, char *buf, size_t len);

/* xq.c */
bool hsaqm_xq_valid(const struct hsaqm_xq *xq);
/* hsaqm_xq_get_info()'s answer, under dev->lock (hsaqm_xq_get_report() reads all at once). */
void hsaqm_xq_info_locked(const struct hsaqm_xq *xq, struct hsaqm_xq_info *info);
/* Detach with ctx->lock held (ctx destroy and hsaqm_xq_detach()). */
int hsaqm_xq_detach_locked(struct hsaqm_xq *xq);
/* sizeof(struct hsaqm_xq), for the memory report. */
size_t hsaqm_xq_sizeof(void);

#endif /* HSAQM_XQ_INTERNAL_H */
