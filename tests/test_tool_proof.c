/* SPDX-License-Identifier: MIT */
/*
 * The tool library's proof on the device model (issue 5), loaded as ROCr loads it (HSA_TOOLS_LIB,
 * OnLoad from the model's hsa_init):
 *
 *  1. HIP-like client threads submit exactly as ROCclr does (t_rocclr.h) through the wrapped
 *     table, two streams pooled onto each HSA queue from different threads, 8 queues at each of
 *     3 HIP priorities (hsa_amd_queue_set_priority), 10^5 dispatches (scaled down under the
 *     sanitizers, said in the output): every dispatch ran exactly once, each queue in its
 *     reservation order, each stream in its own order, every stream's completion signal exactly
 *     0, no queue failed open.
 *  2. At Lv2, a high-priority kernel's latency (model time, submission to completion) while a
 *     low-priority stream keeps the GPU full of kernels of length T is within 1.2 T of the same
 *     kernel's latency alone (medians; the maximum is reported).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_cunit.h"
#include "t_tool.h"

#if defined(__SANITIZE_THREAD__)
#define TOTAL 12000u
#define SCALE_NOTE "ThreadSanitizer build: 12000 dispatches instead of 100000"
#elif defined(__SANITIZE_ADDRESS__)
#define TOTAL 30000u
#define SCALE_NOTE "AddressSanitizer build: 30000 dispatches instead of 100000"
#else
#define TOTAL 100000u
#define SCALE_NOTE ""
#endif

#define NPRIO 3
#define QPP 8 /* queues per priority */
#define NQ (NPRIO * QPP)
#define SPQ 2 /* streams pooled onto each queue */
#define NSTREAMS (NQ * SPQ)
#define NTHREADS 6
#define PER_STREAM (TOTAL / NSTREAMS)

struct rec {
	uint32_t q, stream, seq;
	uint64_t index; /* the reserved proxy index, written before the header is published */
	uint32_t runs;  /* atomic */
};

struct stream {
	uint32_t q;
	struct hsaqm_hsa_signal cs;
	struct rec *recs;
	uint32_t next;     /* client thread only */
	uint32_t done_seq; /* engine thread only */
	uint32_t order_violations;
};

struct qstate {
	struct hsaqm_hsa_queue *q;
	uint64_t last_index;
	bool any;
	uint32_t order_violations;
};

static struct t_hsa g_h;
static struct qstate g_q[NQ];
static struct stream g_s[NSTREAMS];
static uint64_t g_kobj;
static uint32_t g_extra_runs;

static void wg_done(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct rec *r = kernarg;
	struct qstate *q = &g_q[r->q];
	struct stream *s = &g_s[r->stream];

	(void)arg, (void)dispatch_id, (void)wg;
	/* acq_rel: the test reads runs and g_extra_runs by acquire after every stream's wait. */
	if (hsaqm_fetch_add(&r->runs, 1u) != 0)
		hsaqm_fetch_add(&g_extra_runs, 1u);
	/*
	 * One queue's kernels finish on its device's engine thread, and in order: each has the
	 * barrier bit (HIP streams are in order). Relaxed: read after the run by the main thread.
	 */
	if (HSAQM_READ_ONCE(q->any) && r->index <= HSAQM_READ_ONCE(q->last_index))
		HSAQM_WRITE_ONCE(q->order_violations, q->order_violations + 1);
	HSAQM_WRITE_ONCE(q->last_index, r->index);
	HSAQM_WRITE_ONCE(q->any, true);
	if (r->seq != HSAQM_READ_ONCE(s->done_seq))
		HSAQM_WRITE_ONCE(s->order_violations, s->order_violations + 1);
	HSAQM_WRITE_ONCE(s->done_seq, r->seq + 1);
}

static void fill_index(void *arg, uint64_t index)
{
	struct rec *r = arg;

	r->index = index; /* published by the header's release store */
}

static void *client(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	bool more = true;

	while (more) {
		more = false;
		/* This thread's streams: t, t + NTHREADS, ... (a queue's two streams on two threads). */
		for (uint32_t si = t; si < NSTREAMS; si += NTHREADS) {
			struct stream *s = &g_s[si];
			struct rec *r;
			union hsaqm_aql_packet pk;

			if (s->next == PER_STREAM)
				continue;
			more = true;
			r = &s->recs[s->next];
			r->q = s->q;
			r->stream = si;
			r->seq = s->next;
			pk = t_hsa_dispatch(g_kobj, 1, s->cs.handle, true, r);
			t_rocclr_submit(g_h.core, g_q[s->q].q, &pk, fill_index, r);
			s->next++;
		}
	}
	return NULL;
}

static void test_rocclr_clients_8_queues_x_3_priorities_exactly_once_in_order(void)
{
	static const char *const env[] = { "HSAQM_LEVEL=lv2", NULL };
	static const hsaqm_hsa_amd_queue_priority_t prios[NPRIO] = {
		HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH, HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL,
		HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW,
	};
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL,
					.seed = 17 };
	struct hsaqm_sim_kernel_desc kd = { .name = "short", .duration_ns = 2 * T_US,
					    .waves_per_wg = 1, .wg_callback = wg_done };
	pthread_t th[NTHREADS];
	struct t_proc p;
	uint64_t t0, never_ran = 0;
	uint32_t qviol = 0, sviol = 0, bad_cs = 0;
	char *js;

	if (SCALE_NOTE[0])
		printf("(%s) ", SCALE_NOTE);
	memset(g_q, 0, sizeof(g_q));
	memset(g_s, 0, sizeof(g_s));
	g_extra_runs = 0;
	CU_ASSERT_EQUAL_FATAL(t_tool_open(&g_h, t_tool_path(), env, &cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_kernel_register(g_h.sim, &kd, &g_kobj), 0);
	for (uint32_t i = 0; i < NQ; i++) {
		CU_ASSERT_EQUAL_FATAL(g_h.core->hsa_queue_create_fn(g_h.gpu[0], 1024,
								    HSAQM_HSA_QUEUE_TYPE_MULTI, NULL,
								    NULL, 0, 0, &g_q[i].q),
				      HSAQM_HSA_STATUS_SUCCESS);
		CU_ASSERT_FATAL(t_tool_is_proxy(&g_h, g_q[i].q));
		CU_ASSERT_EQUAL(g_h.amd->hsa_amd_queue_set_priority_fn(g_q[i].q, prios[i / QPP]),
				HSAQM_HSA_STATUS_SUCCESS);
	}
	for (uint32_t si = 0; si < NSTREAMS; si++) {
		g_s[si].q = si / SPQ;
		g_s[si].cs = t_hsa_signal(&g_h, PER_STREAM);
		g_s[si].recs = calloc(PER_STREAM, sizeof(struct rec));
		CU_ASSERT_PTR_NOT_NULL_FATAL(g_s[si].recs);
	}
	t0 = t_mono_ns();
	for (uint32_t t = 0; t < NTHREADS; t++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[t], NULL, client, (void *)(uintptr_t)t), 0);
	for (uint32_t t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	for (uint32_t si = 0; si < NSTREAMS; si++)
		CU_ASSERT(t_hsa_wait_le(&g_h, g_s[si].cs, 0, 60 * T_S));
	printf("(%u dispatches in %.2f s wall) ", PER_STREAM * NSTREAMS,
	       (double)(t_mono_ns() - t0) / 1e9);

	for (uint32_t si = 0; si < NSTREAMS; si++) {
		/* Exactly 0: every dispatch decremented it once, none twice. */
		bad_cs += g_h.core->hsa_signal_load_scacquire_fn(g_s[si].cs) != 0;
		sviol += HSAQM_READ_ONCE(g_s[si].order_violations);
		/* Acquire: pairs with wg_done's add of runs. */
		for (uint32_t i = 0; i < PER_STREAM; i++)
			never_ran += hsaqm_load_acquire(&g_s[si].recs[i].runs) == 0;
	}
	for (uint32_t i = 0; i < NQ; i++)
		qviol += HSAQM_READ_ONCE(g_q[i].order_violations);
	CU_ASSERT_EQUAL(never_ran, 0u);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_extra_runs), 0u); /* pairs with wg_done's add */
	CU_ASSERT_EQUAL(qviol, 0u);
	CU_ASSERT_EQUAL(sviol, 0u);
	CU_ASSERT_EQUAL(bad_cs, 0u);

	js = t_proc_stats(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(js);
	CU_ASSERT_EQUAL(t_count(js, "\"effective_level\":\"lv2\""), NQ);
	CU_ASSERT_EQUAL(t_count(js, "\"failed_open\":true"), 0u);
	CU_ASSERT_EQUAL(t_count(js, "\"hsa_priority\":\"high\""), QPP);
	CU_ASSERT_EQUAL(t_count(js, "\"hsa_priority\":\"low\""), QPP);
	free(js);

	for (uint32_t i = 0; i < NQ; i++)
		CU_ASSERT_EQUAL(g_h.core->hsa_queue_destroy_fn(g_q[i].q), HSAQM_HSA_STATUS_SUCCESS);
	for (uint32_t si = 0; si < NSTREAMS; si++) {
		g_h.core->hsa_signal_destroy_fn(g_s[si].cs);
		free(g_s[si].recs);
	}
	t_proc_unbind(&p);
	t_tool_close(&g_h, env);
}

/* ---- Latency at Lv2 ------------------------------------------------------------------------ */

#define LAT_T (1 * T_MS)
#define HIGH_NS (20 * T_US)
#define LOW_WGS 80u /* one wave each: every CU of the model's MI308X busy */
#define SAMPLES 11
#define OUTSTANDING 6u

struct lat {
	struct t_hsa h;
	struct hsaqm_hsa_queue *lo, *hi;
	uint64_t k_low, k_high;
	struct hsaqm_hsa_signal low_cs, high_cs;
	uint64_t low_submitted;
	uint32_t stop;
};

static void *low_producer(void *arg)
{
	struct lat *l = arg;

	/* Acquire: pairs with the test's release of stop after its last sample. */
	while (!hsaqm_load_acquire(&l->stop)) {
		int64_t left = l->h.core->hsa_signal_load_scacquire_fn(l->low_cs);
		/* low_cs counts down from 2^40: what is outstanding is submitted - completed. */
		uint64_t done = (uint64_t)((INT64_C(1) << 40) - left);

		if (l->low_submitted - done >= OUTSTANDING) {
			t_sleep_us(100);
			continue;
		}
		union hsaqm_aql_packet pk = t_hsa_dispatch(l->k_low, LOW_WGS, l->low_cs.handle, true,
							   NULL);
		t_rocclr_submit(l->h.core, l->lo, &pk, NULL, NULL);
		l->low_submitted++;
	}
	return NULL;
}

/* One high kernel: model ns from submission to completion, or UINT64_MAX. */
static uint64_t high_sample(struct lat *l)
{
	struct hsaqm_hsa_amd_profiling_dispatch_time dt = { 0, 0 };
	union hsaqm_aql_packet pk;
	uint64_t t_sub;

	l->h.core->hsa_signal_store_relaxed_fn(l->high_cs, 1);
	pk = t_hsa_dispatch(l->k_high, 1, l->high_cs.handle, true, NULL);
	t_sub = hsaqm_sim_now_ns(l->h.sim);
	t_rocclr_submit(l->h.core, l->hi, &pk, NULL, NULL);
	if (!t_hsa_wait_le(&l->h, l->high_cs, 0, 10 * T_S))
		return UINT64_MAX;
	l->h.amd->hsa_amd_profiling_get_dispatch_time_fn(l->h.gpu[0], l->high_cs, &dt);
	return dt.end > t_sub ? dt.end - t_sub : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_lv2_high_priority_latency_within_1_2_kernels_of_standalone(void)
{
	static const char *const env[] = { "HSAQM_LEVEL=lv2", "HSAQM_LV2_INTERVAL=1", NULL };
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL,
					.seed = 3 };
	struct hsaqm_sim_kernel_desc kl = { .name = "low", .duration_ns = LAT_T, .waves_per_wg = 1 };
	struct hsaqm_sim_kernel_desc kh = { .name = "high", .duration_ns = HIGH_NS,
					    .waves_per_wg = 32 };
	uint64_t alone[SAMPLES], loaded[SAMPLES], seed = 7;
	struct lat *l = calloc(1, sizeof(*l));
	pthread_t prod;

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	CU_ASSERT_EQUAL_FATAL(t_tool_open(&l->h, t_tool_path(), env, &cfg), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_kernel_register(l->h.sim, &kl, &l->k_low), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_kernel_register(l->h.sim, &kh, &l->k_high), 0);
	CU_ASSERT_EQUAL_FATAL(l->h.core->hsa_queue_create_fn(l->h.gpu[0], 256,
							     HSAQM_HSA_QUEUE_TYPE_MULTI, NULL, NULL,
							     0, 0, &l->lo),
			      HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(l->h.core->hsa_queue_create_fn(l->h.gpu[0], 256,
							     HSAQM_HSA_QUEUE_TYPE_MULTI, NULL, NULL,
							     0, 0, &l->hi),
			      HSAQM_HSA_STATUS_SUCCESS);
	/* What HIP does for hipStreamCreateWithPriority. */
	l->h.amd->hsa_amd_queue_set_priority_fn(l->lo, HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW);
	l->h.amd->hsa_amd_queue_set_priority_fn(l->hi, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	l->low_cs = t_hsa_signal(&l->h, INT64_C(1) << 40);
	l->high_cs = t_hsa_signal(&l->h, 0);

	for (int i = 0; i < SAMPLES; i++)
		alone[i] = high_sample(l);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&prod, NULL, low_producer, l), 0);
	/* Steady state: the low stream has kernels running. */
	while (l->h.core->hsa_signal_load_scacquire_fn(l->low_cs) > (INT64_C(1) << 40) - 2)
		t_sleep_us(200);
	for (int i = 0; i < SAMPLES; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		/* Arrivals anywhere within a low kernel: a pause in [T, 3T). */
		t_sleep_us((unsigned int)((LAT_T + (seed >> 33) % (2 * LAT_T)) / 1000));
		loaded[i] = high_sample(l);
	}
	hsaqm_store_release(&l->stop, 1u); /* release: pairs with low_producer's acquire */
	pthread_join(prod, NULL);

	qsort(alone, SAMPLES, sizeof(alone[0]), cmp_u64);
	qsort(loaded, SAMPLES, sizeof(loaded[0]), cmp_u64);
	printf("(MODEL FIGURES: high kernel latency alone median %.1f us; beside T = %.0f us low "
	       "kernels at Lv2 median %.1f us, max %.1f us; bound alone + 1.2 T = %.1f us) ",
	       alone[SAMPLES / 2] / 1e3, LAT_T / 1e3, loaded[SAMPLES / 2] / 1e3,
	       loaded[SAMPLES - 1] / 1e3, (alone[SAMPLES / 2] + 1.2 * LAT_T) / 1e3);
	CU_ASSERT(alone[SAMPLES - 1] != UINT64_MAX);
	CU_ASSERT(loaded[SAMPLES - 1] != UINT64_MAX);
	CU_ASSERT((double)loaded[SAMPLES / 2] <= (double)alone[SAMPLES / 2] + 1.2 * LAT_T);

	/* Destroy with the low stream's kernels still queued: drained, not lost. */
	CU_ASSERT_EQUAL(l->h.core->hsa_queue_destroy_fn(l->lo), HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(l->h.core->hsa_signal_load_scacquire_fn(l->low_cs),
			(INT64_C(1) << 40) - (int64_t)l->low_submitted);
	CU_ASSERT_EQUAL(l->h.core->hsa_queue_destroy_fn(l->hi), HSAQM_HSA_STATUS_SUCCESS);
	l->h.core->hsa_signal_destroy_fn(l->low_cs);
	l->h.core->hsa_signal_destroy_fn(l->high_cs);
	t_tool_close(&l->h, env);
	free(l);
}

static const struct t_case cases[] = {
	T_CASE(test_rocclr_clients_8_queues_x_3_priorities_exactly_once_in_order),
	T_CASE(test_lv2_high_priority_latency_within_1_2_kernels_of_standalone),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "tool-proof", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	if (!t_tool_path())
		return t_skip("tool-proof", "HSAQM_TEST_TOOL_LIB is not set (run through meson test)");
	return t_run("tool-proof", suites);
}
