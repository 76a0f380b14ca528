/* SPDX-License-Identifier: MIT */
/*
 * t_sim_shared_eo.h - the exactly-once client of the shared-mode tests: a client process with
 * queues, producers and a chaos thread (suspend/resume, gates, priorities) that checks every
 * workgroup ran once, each queue launched in order and every completion signal is right, and
 * reports it through a pipe. Sanitizer builds run fewer dispatches and say so. Header-only;
 * include once.
 */
#ifndef T_SIM_SHARED_EO_H
#define T_SIM_SHARED_EO_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"
#include "hsa_face_internal.h"
#include "hsaqm-hsa/hsa_abi.h"
#include "hsaqm-kfd/kfd.h"
#include "kfd_face_internal.h"
#include "hsaqm-hsa/api_table.h"
#include "hsaqm-hsa/ring.h"
#include "hsaqm-common/log.h"
#include "shared_internal.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"
#include "t_sim_shared.h"

#if defined(__SANITIZE_THREAD__)
#define T_EO_TOTAL_DISPATCHES 20000
#define T_EO_RING_SLOTS 32
#define T_EO_DURATION_SCALE 20
#define T_EO_SCALE_NOTE                                                                      \
	"ThreadSanitizer build: 20000 dispatches instead of 100000, 32-slot rings, kernels 20x " \
	"longer"
#elif defined(__SANITIZE_ADDRESS__)
#define T_EO_TOTAL_DISPATCHES 100000
#define T_EO_RING_SLOTS 64
#define T_EO_DURATION_SCALE 1
#define T_EO_SCALE_NOTE "AddressSanitizer build: 64-slot rings"
#else
#define T_EO_TOTAL_DISPATCHES 100000
#define T_EO_RING_SLOTS 256
#define T_EO_DURATION_SCALE 1
#define T_EO_SCALE_NOTE NULL
#endif

#define T_EO_NQ 16              /* queues over both clients */

#define T_EO_MAX_WG 8

#define T_EO_PRODUCERS 2        /* per client */

/* ------------------------------------------------------------------------------------
 * Small helpers.
 */
static inline uint64_t t_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ------------------------------------------------------------------------------------
 * The exactly-once client: @nq queues, producers, chaos, and the checks.
 */
struct t_eo_report {
	int ok;             /* every check below held */
	int stage;          /* how far it got (diagnostics) */
	uint64_t dispatches, packets, workgroups, bad_counts, order_violations, bad_signals;
	uint64_t suspends, gate_closes, prio_changes, calls_failed, preemptions, waves_saved;
	uint64_t waves_restored, completed_mismatch, errors;
	double seconds;
	char msg[160];
};

struct t_eo_args {
	const char *path;
	unsigned int nq;
	unsigned int first_prio;
	uint32_t per_queue;
	uint64_t seed;
	bool chaos;
	int go_fd;          /* -1, or: report "ready" and wait for a byte before checking */
	bool endless;       /* never finish: submit until killed (the victim) */
};

struct t_eo_queue {
	struct t_q tq;
	struct hsaqm_ring ring;
	uint64_t *kernels;          /* one per dispatch: its counters are the dispatch's */
	uint32_t *counters;         /* model memory: per_queue x T_EO_MAX_WG */
	struct sim_signal **sig;    /* per dispatch: 1 -> 0, start_ts = launch time */
	uint8_t *nwg;
	struct sim_signal *gates_done; /* completion of the gate barriers: bias - gates */
	struct sim_signal *gate;    /* 0 open, 1 closed */
	uint64_t gates;
	uint64_t packets;
	uint32_t submitted;
};

struct t_eo_client {
	struct t_eo_args a;
	struct hsaqm_sim *sim;
	struct t_eo_queue q[T_EO_NQ];
	uint32_t producers_done;
	uint32_t stop;
	struct t_eo_report r;
	pthread_mutex_t rlock;
};

static inline void t_eo_doorbell(void *ctx, uint64_t last_index)
{
	sim_hwq_doorbell(ctx, last_index);
}

struct t_eo_prod {
	struct t_eo_client *c;
	unsigned int p;
	int failed;
};

static inline void *t_eo_producer(void *arg)
{
	struct t_eo_prod *pr = arg;
	struct t_eo_client *c = pr->c;
	uint64_t s = c->a.seed * 0x9e3779b97f4a7c15ull + pr->p + 1;

	for (uint32_t seq = 0; seq < c->a.per_queue || c->a.endless; seq++) {
		/* Acquire: pairs with a release of stop; none is made (the victim is killed). */
		if (hsaqm_load_acquire(&c->stop))
			break;
		for (unsigned int qi = pr->p; qi < c->a.nq; qi += T_EO_PRODUCERS) {
			struct t_eo_queue *q = &c->q[qi];
			union hsaqm_aql_packet pk[2];
			uint32_t n = 0, d = c->a.endless ? seq % c->a.per_queue : seq;

			if (t_rnd(&s) % 10 == 0) {
				uint64_t dep = t_handle(q->gate);
				pk[n++] = t_barrier_and(&dep, 1, t_handle(q->gates_done), false);
				q->gates++;
			}
			if (c->a.endless)
				/*
				 * Re-armed to 1; what orders it before the packet that
				 * decrements it is the header's release below.
				 */
				hsaqm_store_release(&q->sig[d]->value, (int64_t)1);
			q->nwg[d] = (uint8_t)(1 + t_rnd(&s) % T_EO_MAX_WG);
			pk[n++] = t_dispatch(q->kernels[d], q->nwg[d], t_handle(q->sig[d]), false);
			int err = hsaqm_ring_submit_sp(&q->ring, pk, n, 60ull * T_S);
			if (err) {
				snprintf(c->r.msg, sizeof(c->r.msg), "producer %u: submit: %s", pr->p,
					 strerror(-err));
				pr->failed = 1;
				return NULL;
			}
			q->packets += n;
			/* Release: pairs with t_eo_client_main's wait for the first packets. */
			hsaqm_store_release(&q->submitted, seq + 1);
		}
	}
	return NULL;
}

static inline void *t_eo_chaos(void *arg)
{
	struct t_eo_client *c = arg;
	uint64_t s = c->a.seed + 12345;

	/* The victim keeps its queue 0 suspended (t_eo_client_main): the chaos leaves it alone. */
	unsigned int q0 = c->a.endless ? 1 : 0, nq = c->a.nq - q0;

	/* Acquire: producers_done pairs with t_eo_client_main's release; stop as above. */
	while (!hsaqm_load_acquire(&c->producers_done) && !hsaqm_load_acquire(&c->stop)) {
		unsigned int op = (unsigned int)(t_rnd(&s) % 3);
		struct t_eo_queue *q = &c->q[q0 + t_rnd(&s) % nq];

		if (op == 0) {
			struct sim_hwq *v[3];
			uint32_t n = 1 + (uint32_t)(t_rnd(&s) % 3);

			for (uint32_t i = 0; i < n; i++)
				v[i] = c->q[q0 + t_rnd(&s) % nq].tq.hwq;
			if (sim_hwq_suspend(v, n, (uint32_t)(t_rnd(&s) % 100)))
				c->r.calls_failed++;
			c->r.suspends++;
			t_sleep_us(200 + (unsigned int)(t_rnd(&s) % 800));
			if (sim_hwq_resume(v, n))
				c->r.calls_failed++;
		} else if (op == 1) {
			sim_signal_store(c->sim, q->gate, 1);
			c->r.gate_closes++;
			t_sleep_us(100 + (unsigned int)(t_rnd(&s) % 900));
			sim_signal_store(c->sim, q->gate, 0);
		} else {
			if (sim_hwq_update(q->tq.hwq, q->tq.ring, T_EO_RING_SLOTS * 64,
					   (uint32_t)(t_rnd(&s) % 16), true))
				c->r.calls_failed++;
			c->r.prio_changes++;
		}
		t_sleep_us(100 + (unsigned int)(t_rnd(&s) % 400));
	}
	return NULL;
}

static inline int t_eo_setup(struct t_eo_client *c)
{
	int err = hsaqm_sim_connect(c->a.path, &c->sim);

	if (err) {
		snprintf(c->r.msg, sizeof(c->r.msg), "connect: %s", strerror(-err));
		return err;
	}
	for (unsigned int i = 0; i < c->a.nq; i++) {
		struct t_eo_queue *q = &c->q[i];
		unsigned int gi = c->a.first_prio + i; /* queue number over both clients */
		uint64_t dur = (2 + (uint64_t)gi) * T_EO_DURATION_SCALE * T_US;

		err = t_q_create(&q->tq, c->sim, 0, T_EO_RING_SLOTS, gi % 16);
		if (!err)
			err = hsaqm_ring_init(&q->ring, q->tq.ring, T_EO_RING_SLOTS, q->tq.wr, q->tq.rd,
					      t_eo_doorbell, q->tq.hwq);
		if (err) {
			snprintf(c->r.msg, sizeof(c->r.msg), "queue %u: %s", i, strerror(-err));
			return err;
		}
		q->kernels = calloc(c->a.per_queue, sizeof(*q->kernels));
		q->sig = calloc(c->a.per_queue, sizeof(*q->sig));
		q->nwg = calloc(c->a.per_queue, 1);
		q->counters = hsaqm_sim_mem_alloc(c->sim, (size_t)c->a.per_queue * T_EO_MAX_WG * 4, 64);
		q->gates_done = sim_signal_create(c->sim, (int64_t)1 << 40);
		q->gate = sim_signal_create(c->sim, 0);
		if (!q->kernels || !q->sig || !q->nwg || !q->counters || !q->gates_done || !q->gate)
			return -ENOMEM;
		for (uint32_t d = 0; d < c->a.per_queue; d++) {
			struct hsaqm_sim_kernel_desc kd = {
				.name = "shared-chaos", .duration_ns = dur, .waves_per_wg = 1 + gi % 8,
				.wg_counters = &q->counters[d * T_EO_MAX_WG], .wg_counters_len = T_EO_MAX_WG,
			};

			err = hsaqm_sim_kernel_register(c->sim, &kd, &q->kernels[d]);
			q->sig[d] = sim_signal_create(c->sim, 1);
			if (err || !q->sig[d]) {
				snprintf(c->r.msg, sizeof(c->r.msg), "kernel/signal %u: %s", d, strerror(-err));
				return err ? err : -ENOMEM;
			}
		}
	}
	return 0;
}

/* Wait for everything, then check; fills c->r. */
static inline void t_eo_check(struct t_eo_client *c)
{
	struct t_eo_report *r = &c->r;

	for (unsigned int i = 0; i < c->a.nq; i++) {
		struct t_eo_queue *q = &c->q[i];

		sim_signal_add(c->sim, q->gates_done, -(((int64_t)1 << 40) - (int64_t)q->gates));
		sim_signal_store(c->sim, q->gate, 0);
	}
	for (unsigned int i = 0; i < c->a.nq; i++) {
		struct t_eo_queue *q = &c->q[i];
		int64_t last_start = -1;

		/* The futex wait wakes on the device process's decrement. */
		if (sim_signal_wait(c->sim, q->gates_done, SIM_COND_EQ, 0, 60 * T_S) != 0)
			r->bad_signals++;
		for (uint32_t d = 0; d < c->a.per_queue; d++) {
			struct sim_signal *s = q->sig[d];

			if (sim_signal_wait(c->sim, s, SIM_COND_EQ, 0, 60 * T_S) != 0)
				r->bad_signals++;
			/* Launch order: each dispatch launched after the previous one of its queue. */
			int64_t st = HSAQM_READ_ONCE(s->start_ts);
			if (st <= last_start)
				r->order_violations++;
			last_start = st;
			/* Acquire: pairs with the device engine's adds, before its decrement. */
			for (uint32_t w = 0; w < T_EO_MAX_WG; w++) {
				uint32_t n = hsaqm_load_acquire(&q->counters[d * T_EO_MAX_WG + w]);

				r->bad_counts += n != (w < q->nwg[d] ? 1u : 0u);
				r->workgroups += n;
			}
		}
		struct sim_hwq_info info;
		struct sim_hwq_stats st;
		sim_hwq_get_info(q->tq.hwq, &info);
		sim_hwq_get_stats(q->tq.hwq, &st);
		r->completed_mismatch += info.packets_completed != q->packets;
		r->errors += info.state == SIM_HWQ_ERROR || q->tq.errors;
		r->preemptions += st.unmaps;
		r->waves_saved += st.waves_saved_total;
		r->waves_restored += st.waves_restored_total;
		r->packets += q->packets;
		r->dispatches += c->a.per_queue;
	}
	/* Still 0 a moment later: nothing completed twice. */
	t_sleep_us(2000);
	for (unsigned int i = 0; i < c->a.nq; i++) {
		for (uint32_t d = 0; d < c->a.per_queue; d++)
			r->bad_signals += sim_signal_load(c->q[i].sig[d]) != 0;
		r->bad_signals += sim_signal_load(c->q[i].gates_done) != 0;
	}
	r->ok = !r->bad_counts && !r->order_violations && !r->bad_signals && !r->calls_failed &&
		!r->completed_mismatch && !r->errors && r->waves_saved == r->waves_restored;
}

static inline void t_eo_client_main(void *arg, int report)
{
	struct t_eo_client *c = calloc(1, sizeof(*c));
	pthread_t prod[T_EO_PRODUCERS], chaos;
	struct t_eo_prod pr[T_EO_PRODUCERS];

	c->a = *(struct t_eo_args *)arg;
	c->r.stage = 1;
	uint64_t t0 = t_mono_ns();
	if (t_eo_setup(c))
		goto out;
	c->r.stage = 2;
	if (c->a.chaos)
		pthread_create(&chaos, NULL, t_eo_chaos, c);
	for (unsigned int p = 0; p < T_EO_PRODUCERS; p++) {
		pr[p] = (struct t_eo_prod){ c, p, 0 };
		pthread_create(&prod[p], NULL, t_eo_producer, &pr[p]);
	}
	if (c->a.go_fd >= 0) {
		/* Tell the test we run, then wait for its go (or, the victim, to be killed). */
		int ready = 1;
		char go;

		/* Acquire: pairs with t_eo_producer's release of the last queue's count. */
		while (!T_UNTIL(hsaqm_load_acquire(&c->q[c->a.nq - 1].submitted) != 0, T_S))
			;
		/* The victim dies with a queue suspended (work in it): the device must clean up. */
		if (c->a.endless && sim_hwq_suspend(&c->q[0].tq.hwq, 1, 0))
			ready = 0;
		t_write_all(report, &ready, sizeof(ready));
		t_read_all(c->a.go_fd, &go, 1, -1);
	}
	int failed = 0;
	for (unsigned int p = 0; p < T_EO_PRODUCERS; p++) {
		pthread_join(prod[p], NULL);
		failed |= pr[p].failed;
	}
	hsaqm_store_release(&c->producers_done, 1u); /* release: pairs with t_eo_chaos's acquire */
	if (c->a.chaos)
		pthread_join(chaos, NULL);
	c->r.stage = 3;
	if (!failed)
		t_eo_check(c);
	c->r.seconds = (double)(t_mono_ns() - t0) / 1e9;
out:
	t_write_all(report, &c->r, sizeof(c->r));
	/* Queues left to hsaqm_sim_destroy(): the device destroys them when we hang up. */
	hsaqm_sim_destroy(c->sim);
	for (unsigned int i = 0; i < T_EO_NQ; i++) {
		free(c->q[i].kernels);
		free(c->q[i].sig);
		free(c->q[i].nwg);
	}
	free(c);
	exit(0); /* LeakSanitizer checks the client too */
}

static inline void t_eo_print_report(const char *who, const struct t_eo_report *r)
{
	printf("\n  %s: %llu dispatches, %llu packets, %llu workgroups in %.2f s; %llu suspend/resume, "
	       "%llu gate closes, %llu priority changes; %llu preemptions, %llu waves saved",
	       who, (unsigned long long)r->dispatches, (unsigned long long)r->packets,
	       (unsigned long long)r->workgroups, r->seconds, (unsigned long long)r->suspends,
	       (unsigned long long)r->gate_closes, (unsigned long long)r->prio_changes,
	       (unsigned long long)r->preemptions, (unsigned long long)r->waves_saved);
	if (!r->ok)
		printf("\n  %s FAILED at stage %d: %s; bad counts %llu, order %llu, signals %llu, calls %llu, "
		       "completed %llu, errors %llu, restored %llu",
		       who, r->stage, r->msg, (unsigned long long)r->bad_counts,
		       (unsigned long long)r->order_violations, (unsigned long long)r->bad_signals,
		       (unsigned long long)r->calls_failed, (unsigned long long)r->completed_mismatch,
		       (unsigned long long)r->errors, (unsigned long long)r->waves_restored);
}

#endif /* T_SIM_SHARED_EO_H */
