/* SPDX-License-Identifier: MIT */
/*
 * Exactly once, in real time with many threads: 16 queues fed by several producer threads
 * (through hsa-layer's ring writer) while a chaos thread suspends and resumes queues, closes
 * and opens the gates the producers put in front of their work (barrier-AND packets), and
 * changes priorities. Every workgroup runs exactly once, each queue launches its packets in
 * order, and every completion signal ends at its expected value.
 *
 * Sanitizer builds scale the dispatch count down (they are 3-10x slower) and say so.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"
#include "hsaqm-hsa/ring.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"

/*
 * Sanitizer builds also use smaller rings and, under TSan, 20x longer kernels. A control
 * call takes effect at the model time it is made, once the engine has modelled everything
 * before it. An engine that needs more CPU per packet than the packet lasts in model time
 * (TSan: ~0.1 ms per packet against 2-17 us kernels) falls behind the clock by about one ring
 * of packets per queue (producers refill a slot as soon as it is consumed); each chaos call
 * then waits that long, and the queues, refilled only every "lag" of model time, are idle at
 * most instants a call lands on, so it rarely catches a running workgroup to save. Kernels
 * that last longer than their cost to model keep the engine on time.
 */
#if defined(__SANITIZE_THREAD__)
#define TOTAL_DISPATCHES 20000
#define RING_SLOTS 32
#define DURATION_SCALE 20
#define SCALE_NOTE "ThreadSanitizer build: 20000 dispatches instead of 100000, 32-slot rings, " \
		   "kernels 20x longer"
#elif defined(__SANITIZE_ADDRESS__)
#define TOTAL_DISPATCHES 50000
#define RING_SLOTS 64
#define DURATION_SCALE 1
#define SCALE_NOTE "AddressSanitizer build: 50000 dispatches instead of 100000, 64-slot rings"
#else
#define TOTAL_DISPATCHES 100000
#define RING_SLOTS 256
#define DURATION_SCALE 1
#define SCALE_NOTE NULL
#endif

#define NQ 16
#define PRODUCERS 4
#define PER_QUEUE (TOTAL_DISPATCHES / NQ)
#define MAX_WG 8

/* One dispatch as the producer described it; the kernel argument points here. */
struct drec {
	uint32_t q;
	uint32_t seq;
	uint32_t nwg;
	uint8_t counts[MAX_WG];
};

struct qstate {
	struct t_q tq;
	struct hsaqm_ring ring;
	struct drec *recs;
	struct sim_signal *done;   /* initial = packets to come; each completion takes 1 */
	struct sim_signal *gate;   /* 0 open, 1 closed (chaos) */
	uint64_t kernel;
	uint64_t packets;          /* submitted by the producer */
	uint32_t last_seq_seen;    /* engine thread only (workgroup callbacks) */
	uint32_t order_violations;
	int suspended;             /* chaos thread only */
};

static struct hsaqm_sim *g_sim;
static struct qstate g_q[NQ];
static int g_producers_done;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void doorbell(void *ctx, uint64_t last_index)
{
	sim_hwq_doorbell(ctx, last_index);
}

/* Engine thread, once per workgroup. */
static void wg_done(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct drec *r = kernarg;
	struct qstate *q = &g_q[r->q];

	(void)arg, (void)dispatch_id;
	if (wg < MAX_WG)
		r->counts[wg]++;
	/*
	 * Fixed per-queue durations and in-order workgroup placement: a queue's workgroups end
	 * in launch order, so a smaller sequence number after a larger one means a later packet
	 * launched before an earlier one.
	 */
	if (r->seq < q->last_seq_seen)
		q->order_violations++;
	q->last_seq_seen = r->seq;
}

static void *producer_main(void *arg)
{
	int p = (int)(intptr_t)arg;
	uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(p + 1);

	for (uint32_t seq = 0; seq < PER_QUEUE; seq++) {
		for (int qi = p; qi < NQ; qi += PRODUCERS) {
			struct qstate *q = &g_q[qi];
			union hsaqm_aql_packet pk[2];
			uint32_t n = 0;

			/* Now and then a gate the chaos thread may have closed. */
			if (rnd(&s) % 10 == 0) {
				uint64_t dep = t_handle(q->gate);
				pk[n++] = t_barrier_and(&dep, 1, t_handle(q->done), false);
			}
			struct drec *r = &q->recs[seq];
			r->q = (uint32_t)qi;
			r->seq = seq;
			r->nwg = 1 + (uint32_t)(rnd(&s) % MAX_WG);
			pk[n] = t_dispatch(q->kernel, r->nwg, t_handle(q->done), false);
			pk[n].dispatch.kernarg_address = (uint64_t)(uintptr_t)r;
			n++;
			int err = hsaqm_ring_submit_sp(&q->ring, pk, n, 60ull * T_S);
			if (err) {
				fprintf(stderr, "producer %d: submit: %s\n", p, strerror(-err));
				return (void *)1;
			}
			q->packets += n;
		}
	}
	return NULL;
}

struct chaos_stats {
	unsigned int suspends, resumes, gate_closes, prio_changes, calls_failed;
};

static void *chaos_main(void *arg)
{
	struct chaos_stats *st = arg;
	uint64_t s = 12345;

	/* Acquire: pairs with the main thread's release once the producers have joined. */
	while (!hsaqm_load_acquire(&g_producers_done)) {
		unsigned int op = (unsigned int)(rnd(&s) % 3);
		struct qstate *q = &g_q[rnd(&s) % NQ];

		if (op == 0) {
			struct sim_hwq *v[3];
			uint32_t n = 1 + (uint32_t)(rnd(&s) % 3);

			for (uint32_t i = 0; i < n; i++)
				v[i] = g_q[rnd(&s) % NQ].tq.hwq;
			if (sim_hwq_suspend(v, n, (uint32_t)(rnd(&s) % 100)))
				st->calls_failed++;
			st->suspends++;
			t_sleep_us(200 + (unsigned int)(rnd(&s) % 800));
			if (sim_hwq_resume(v, n))
				st->calls_failed++;
			st->resumes++;
		} else if (op == 1) {
			sim_signal_store(g_sim, q->gate, 1);
			st->gate_closes++;
			t_sleep_us(100 + (unsigned int)(rnd(&s) % 900));
			sim_signal_store(g_sim, q->gate, 0);
		} else {
			if (sim_hwq_update(q->tq.hwq, q->tq.ring, RING_SLOTS * 64, (uint32_t)(rnd(&s) % 16), true))
				st->calls_failed++;
			st->prio_changes++;
		}
		t_sleep_us(100 + (unsigned int)(rnd(&s) % 400));
	}
	return NULL;
}

static void test_exactly_once_under_suspend_gate_and_priority_chaos(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_REAL, .seed = 7 };
	pthread_t prod[PRODUCERS], chaos;
	struct chaos_stats cst = { 0 };

	const char *note = SCALE_NOTE;

	if (note)
		printf("\n  note: %s\n  ", note);
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &g_sim), 0);
	for (int i = 0; i < NQ; i++) {
		struct qstate *q = &g_q[i];
		/* Each queue its own fixed duration (2-17 us, x DURATION_SCALE) and occupancy. */
		uint64_t dur = (2 + (uint64_t)i) * DURATION_SCALE * T_US;
		struct hsaqm_sim_kernel_desc kd = { .name = "chaos", .duration_ns = dur,
						    .waves_per_wg = 1 + (uint32_t)i % 8, .wg_callback = wg_done };

		memset(q, 0, sizeof(*q));
		CU_ASSERT_EQUAL_FATAL(t_q_create(&q->tq, g_sim, 0, RING_SLOTS, (uint32_t)i % 16), 0);
		CU_ASSERT_EQUAL_FATAL(hsaqm_ring_init(&q->ring, q->tq.ring, RING_SLOTS, q->tq.wr, q->tq.rd,
						      doorbell, q->tq.hwq), 0);
		CU_ASSERT_EQUAL_FATAL(hsaqm_sim_kernel_register(g_sim, &kd, &q->kernel), 0);
		q->recs = calloc(PER_QUEUE, sizeof(*q->recs));
		CU_ASSERT_PTR_NOT_NULL_FATAL(q->recs);
		/* Gates come at random: the signal starts high and is lowered by what was submitted. */
		q->done = sim_signal_create(g_sim, 0);
		q->gate = sim_signal_create(g_sim, 0);
	}
	/* Count up before anything can count down: a big bias removed at the end. */
	for (int i = 0; i < NQ; i++)
		sim_signal_store(g_sim, g_q[i].done, (int64_t)1 << 40);

	uint64_t t0 = t_mono_ns();
	pthread_create(&chaos, NULL, chaos_main, &cst);
	for (int p = 0; p < PRODUCERS; p++)
		pthread_create(&prod[p], NULL, producer_main, (void *)(intptr_t)p);
	int producer_failed = 0;
	for (int p = 0; p < PRODUCERS; p++) {
		void *rv;

		pthread_join(prod[p], &rv);
		producer_failed |= rv != NULL;
	}
	hsaqm_store_release(&g_producers_done, 1); /* release: pairs with chaos_main's acquire */
	pthread_join(chaos, NULL);
	CU_ASSERT_FALSE(producer_failed);
	CU_ASSERT_EQUAL(cst.calls_failed, 0);

	/* Everything was submitted: remove the bias, so each signal must reach exactly 0. */
	for (int i = 0; i < NQ; i++) {
		sim_signal_add(g_sim, g_q[i].done, -(((int64_t)1 << 40) - (int64_t)g_q[i].packets));
		sim_signal_store(g_sim, g_q[i].gate, 0);
	}
	uint64_t wgs = 0, bad = 0, packets = 0, violations = 0, unmaps = 0, saved = 0;
	for (int i = 0; i < NQ; i++) {
		struct qstate *q = &g_q[i];
		struct sim_hwq_stats st;
		struct sim_hwq_info info;

		CU_ASSERT_EQUAL(sim_signal_wait(g_sim, q->done, SIM_COND_EQ, 0, 60 * T_S), 0);
		for (uint32_t d = 0; d < PER_QUEUE; d++) {
			for (uint32_t w = 0; w < MAX_WG; w++) {
				bad += q->recs[d].counts[w] != (w < q->recs[d].nwg);
				wgs += q->recs[d].counts[w];
			}
		}
		sim_hwq_get_info(q->tq.hwq, &info);
		sim_hwq_get_stats(q->tq.hwq, &st);
		packets += q->packets;
		CU_ASSERT_EQUAL(info.packets_completed, q->packets);
		violations += q->order_violations;
		unmaps += st.unmaps;
		saved += st.waves_saved_total;
		CU_ASSERT_EQUAL(st.waves_saved_total, st.waves_restored_total);
	}
	/* Still 0 a moment later: nothing completed twice. */
	t_sleep_us(2000);
	for (int i = 0; i < NQ; i++)
		CU_ASSERT_EQUAL(sim_signal_load(g_q[i].done), 0);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(violations, 0);
	printf("\n  %u dispatches, %llu packets, %llu workgroups in %.2f s; chaos: %u suspend/resume, "
	       "%u gate closes, %u priority changes; %llu preemptions, %llu waves saved and restored\n  ",
	       NQ * PER_QUEUE, (unsigned long long)packets, (unsigned long long)wgs,
	       (double)(t_mono_ns() - t0) / 1e9, cst.suspends, cst.gate_closes, cst.prio_changes,
	       (unsigned long long)unmaps, (unsigned long long)saved);
	CU_ASSERT(cst.suspends > 0 && cst.gate_closes > 0 && cst.prio_changes > 0);
	CU_ASSERT(saved > 0); /* the chaos really preempted running workgroups */
	CU_ASSERT_EQUAL(g_sim->dev[0]->stranded_requests, 0);
	/* Acquire: pairs with the add of a request's waiter that found its wake-up lost. */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_sim->dev[0]->lost_wakeups), 0);

	for (int i = 0; i < NQ; i++) {
		t_q_destroy(&g_q[i].tq);
		free(g_q[i].recs);
	}
	hsaqm_sim_destroy(g_sim);
	g_sim = NULL;
}

static const struct t_case cases[] = {
	T_CASE(test_exactly_once_under_suspend_gate_and_priority_chaos),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-exactly-once", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-sim-exactly-once", suites);
}
