/* SPDX-License-Identifier: MIT */
/*
 * t_backend.h - a test backend for lib/: a software model of one hardware queue per
 * struct t_bq, for the scheduler and engine tests. Not a device model (sim/ is).
 *
 * The "application" publishes packets with t_bq_submit(), which reports them to lib with
 * hsaqm_xq_submitted(). lib's release() puts kernels, guardians and markers into a FIFO
 * "hardware ring"; t_bq_run() plays the packet processor: it runs kernels in order, stops
 * at a guardian while the gate is closed and at once while the queue is suspended, and
 * reports each marker it passes with hsaqm_xq_marker_done(). Every operation checks the
 * backend contract and counts violations (tests assert there are none):
 *   - release() never moves more than was submitted, starts where the last one ended,
 *     and numbers markers 1, 2, 3...;
 *   - with lv1_bound set, released - covered-by-reported-markers never exceeds it;
 *   - guard_skip < guard_interval; n == 0 only for a marker alone;
 *   - suspend() is not called on a suspended queue, resume() only on one;
 *   - nothing is called after detached(), and at detached() the gate is open, the
 *     queue resumed and given every CU back.
 * Thread safe: one mutex per queue; t_bq_run() drops it around hsaqm_xq_marker_done().
 */
#ifndef T_BACKEND_H
#define T_BACKEND_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "hsaqm/backend.h"
#include "hsaqm/hsaqm.h"

enum t_entry_kind { T_KERNEL = 0, T_GUARD = 1, T_MARKER = 2 };

struct t_entry {
	uint8_t kind;
	uint64_t val; /* kernel: its index; marker: its sequence number */
	uint64_t cover; /* marker: kernels released before it */
};

struct t_bq {
	pthread_mutex_t lock;
	struct hsaqm_xq *xq;

	/* Behaviour, set by the test (under lock if threads run). */
	int max_level;
	char max_why[64];
	uint32_t ring_cap;  /* entries the ring holds; 0 = unbounded */
	int eagain_next;    /* release() returns -EAGAIN this many times first */
	int release_err;    /* release() returns this (0 = works) */
	int gate_close_err;
	int gate_open_err;
	int suspend_err;
	int resume_err;
	uint32_t lv1_bound; /* check released - completed-by-markers <= this; 0 = off */
	int confine_err;    /* cu_confine() returns this (0 = works) */
	int mech;           /* what mechanism() answers (enum hsaqm_mechanism) */
	char mech_why[64];

	/* The application's side. */
	uint64_t submitted;
	/*
	 * A waiting packet (t_bq_wait()): the kernel at wait_index stands for a barrier packet
	 * that holds the queue until wait_on has run wait_upto kernels, or, with no wait_on,
	 * until the test sets wait_host_done (a signal the host sets).
	 */
	bool wait_set;
	uint64_t wait_index;
	struct t_bq *wait_on;
	uint64_t wait_upto;
	bool wait_host_done;

	/* The hardware ring. */
	struct t_entry *ring;
	uint64_t head, tail, alloc;
	bool gate_closed;
	bool suspended;
	uint32_t confined;  /* the reserve cu_confine() keeps free; 0 = every CU */

	/* What happened. */
	uint64_t released;
	uint64_t ran;             /* kernels run (= completed: the model runs one at a time) */
	uint64_t ran_after_close; /* kernels run since the last gate_close */
	uint64_t guards;
	uint64_t markers;
	uint64_t marker_seq;      /* last marker released */
	uint64_t marker_done;     /* last marker reported */
	uint64_t covered_done;    /* kernels the reported markers cover */
	uint64_t n_release, n_eagain, n_gate_close, n_gate_open, n_suspend, n_resume, n_confine;
	uint32_t last_flags;
	uint32_t last_interval;
	bool detached;
	unsigned violations;
	char first_violation[200];
};

extern const struct hsaqm_backend_ops t_backend_ops;
/* The same with cu_confine() and mechanism(): spatial and the Lv3 mechanism tests. */
extern const struct hsaqm_backend_ops t_backend_ops_spatial;

void t_bq_init(struct t_bq *bq, int max_level);
void t_bq_fini(struct t_bq *bq);

/* The application publishes @n packets and rings the doorbell. Returns hsaqm_xq_submitted(). */
int t_bq_submit(struct t_bq *bq, uint64_t n);

/*
 * The packet processor runs up to @max_kernels kernels (UINT64_MAX: until the ring is
 * empty or blocked), passing guardians whose gate is open and reporting markers. Returns
 * the kernels run.
 */
uint64_t t_bq_run(struct t_bq *bq, uint64_t max_kernels);

/* Kernels released but not run yet. */
uint64_t t_bq_pending(struct t_bq *bq);

/*
 * Kernel @index of @bq (not submitted yet) will wait until @on has run @upto kernels, or, with
 * @on NULL, until bq->wait_host_done is set; told to lib with hsaqm_xq_depend(). One wait per
 * queue; single-threaded tests only (the run reads @on's count without its lock).
 * Returns hsaqm_xq_depend()'s result.
 */
int t_bq_wait(struct t_bq *bq, uint64_t index, struct t_bq *on, uint64_t upto);

/* A consistent copy of the counters (threads). */
void t_bq_snapshot(struct t_bq *bq, struct t_bq *copy);

/* -- helpers shared by the lib tests ------------------------------------------------- */

/* The clock of contexts made with t_ctx_manual(): tests move it by hand. */
extern uint64_t t_clock_ns;

/* A context on t_clock_ns with no timer thread (the test runs hsaqm_ctx_timer_poll()). */
struct hsaqm_ctx *t_ctx_manual(void);

/* Set the manual clock and run what is due. Returns the next deadline. */
uint64_t t_clock_set(struct hsaqm_ctx *ctx, uint64_t now_ns);

/* Attach @bq with the given device, priority and level (other settings default). */
struct hsaqm_xq *t_bq_attach(struct hsaqm_ctx *ctx, struct t_bq *bq, uint32_t device,
			     int priority, enum hsaqm_level level);

/* Run every queue of @bqs until nothing more runs (blocked or empty). */
void t_bq_run_all(struct t_bq **bqs, int n);

/* The state of a queue as hsaqm_xq_get_info() reports it. */
enum hsaqm_xq_state t_state(struct hsaqm_xq *xq);

#endif /* T_BACKEND_H */
