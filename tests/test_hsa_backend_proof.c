/* SPDX-License-Identifier: MIT */
/*
 * The HSA backend's proof on the device model (real time, 4 devices, Lv3 through the KFD
 * face): 64 proxy queues with random priorities, levels and launch settings, fed by four
 * application threads with 10^6 dispatches whose every workgroup runs a host callback,
 * while a chaos thread changes priorities (hsaqm's and the hardware queue's), levels, guardian
 * intervals, and holds queues by hand. At the end: every workgroup ran exactly once, each
 * queue's kernels ran in order, every completion signal reached 0, no queue failed open or
 * fell back from Lv3, and no Lv1 queue ever had more than its threshold on the hardware.
 * Sanitizer builds run fewer dispatches and say so.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsa_backend_internal.h"
#include "t_cunit.h"
#include "t_hsa.h"

#if defined(__SANITIZE_THREAD__)
#define TOTAL_DISPATCHES 128000u
#define SCALE_NOTE "ThreadSanitizer build: 128000 dispatches instead of 1000000"
#elif defined(__SANITIZE_ADDRESS__)
#define TOTAL_DISPATCHES 384000u
#define SCALE_NOTE "AddressSanitizer build: 384000 dispatches instead of 1000000"
#else
#define TOTAL_DISPATCHES 1000000u
#define SCALE_NOTE NULL
#endif

#define NDEV 4
#define NQ 64
#define PER_Q (TOTAL_DISPATCHES / NQ)
#define PRODUCERS 4
#define MAX_WG 4

struct krec {
	uint32_t nwg;
	uint32_t done_wgs;
	uint32_t qid;
	uint32_t seq;
};

struct qstate {
	struct t_app app;
	uint64_t kobj;
	struct hsaqm_hsa_signal cs;
	struct krec *recs;
	enum hsaqm_level level;
	uint32_t lv1_threshold;
	/* Counted by the model's threads. */
	uint64_t kernels_done;
	uint32_t last_seq;
	uint32_t order_violations;
	uint32_t extra_wgs;
};

static struct t_hsa g_h;
static struct qstate g_q[NQ];
static uint32_t g_producers_done;
static uint32_t g_lv1_violations;
static uint32_t g_lv1_checks;

static void wg_done(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct krec *r = kernarg;
	struct qstate *q = &g_q[r->qid];
	uint32_t n;

	(void)arg, (void)dispatch_id, (void)wg;
	/* A queue's callbacks run on its device's engine thread, in placement order. */
	if (r->seq < HSAQM_READ_ONCE(q->last_seq))
		HSAQM_WRITE_ONCE(q->order_violations, q->order_violations + 1);
	HSAQM_WRITE_ONCE(q->last_seq, r->seq);
	/*
	 * acq_rel: the kernel is counted once, by its last workgroup; kernels_done pairs with
	 * lv1_check's and the test's acquire loads.
	 */
	n = hsaqm_fetch_add(&r->done_wgs, 1u) + 1;
	if (n == r->nwg)
		hsaqm_fetch_add(&q->kernels_done, 1ull);
	else if (n > r->nwg)
		hsaqm_fetch_add(&q->extra_wgs, 1u); /* read once the completion signal reached 0 */
}

/* After every release (lib's device lock held): an Lv1 queue's packets on the hardware. */
static void lv1_check(struct hsaqm_hsa_proxy *p, uint64_t first, uint32_t n, const uint8_t *kinds,
		      const uint64_t *app_index)
{
	(void)first, (void)n, (void)kinds, (void)app_index;
	for (int i = 0; i < NQ; i++) {
		struct qstate *q = &g_q[i];

		if (q->app.proxy != p || q->level != HSAQM_LEVEL_1)
			continue;
		/*
		 * Released minus really finished: never fewer than what markers proved. Acquire:
		 * pairs with wg_done's add; the counts below come from many threads.
		 */
		if (p->released - hsaqm_load_acquire(&q->kernels_done) > q->lv1_threshold)
			hsaqm_fetch_add(&g_lv1_violations, 1u);
		hsaqm_fetch_add(&g_lv1_checks, 1u);
	}
}

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 17;
}

static void *producer_main(void *arg)
{
	int p = (int)(intptr_t)arg;
	uint32_t seq[NQ / PRODUCERS] = { 0 };
	uint64_t pause_until[NQ / PRODUCERS] = { 0 };
	uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(p + 1);

	for (bool more = true; more;) {
		bool progress = false;

		more = false;
		for (int j = 0; j < NQ / PRODUCERS; j++) {
			int qi = p * (NQ / PRODUCERS) + j;
			struct qstate *q = &g_q[qi];
			union hsaqm_aql_packet pk[8];
			uint32_t n;

			if (seq[j] == PER_Q)
				continue;
			more = true;
			/* Bursts: queues pause now and then: higher ones go idle, come back. */
			if (pause_until[j] && t_mono_ns() < pause_until[j])
				continue;
			n = 1 + (uint32_t)(rnd(&s) % 8);
			if (n > PER_Q - seq[j])
				n = PER_Q - seq[j];
			for (uint32_t i = 0; i < n; i++) {
				struct krec *r = &q->recs[seq[j] + i];

				r->nwg = 1 + (uint32_t)(rnd(&s) % MAX_WG);
				r->qid = (uint32_t)qi;
				r->seq = seq[j] + i;
				/* Now and then an in-order (barrier-bit) kernel, as HIP issues. */
				pk[i] = t_hsa_dispatch(q->kobj, r->nwg, q->cs.handle,
						       rnd(&s) % 8 == 0, r);
			}
			/* Non-blocking: a held queue's ring fills, the producer moves on. */
			if (hsaqm_ring_submit(&q->app.ring, pk, n, 0) == 0) {
				seq[j] += n;
				progress = true;
				pause_until[j] = rnd(&s) % 16 == 0
					? t_mono_ns() + (100 + rnd(&s) % 900) * T_US : 0;
			}
		}
		if (!progress)
			t_sleep_us(50);
	}
	return NULL;
}

struct chaos_stats {
	uint32_t prio, hw_prio, level, launch, holds, failures;
};

static void *chaos_main(void *arg)
{
	struct chaos_stats *st = arg;
	uint64_t s = 4242;

	/* Acquire: pairs with the main thread's release once every producer has joined. */
	while (!hsaqm_load_acquire(&g_producers_done)) {
		struct qstate *q = &g_q[rnd(&s) % NQ];
		struct hsaqm_xq *xq = hsaqm_hsa_proxy_xq(q->app.proxy);
		int rc = 0;

		switch (rnd(&s) % 5) {
		case 0:
			rc = hsaqm_xq_set_priority(xq, (int)(rnd(&s) % 5) * 10);
			st->prio++;
			break;
		case 1:
			rc = hsaqm_hsa_proxy_set_priority(q->app.proxy, (uint32_t)(rnd(&s) % 3),
							  (int)(rnd(&s) % 5) * 10, 5);
			st->hw_prio++;
			break;
		case 2:
			/* Lv1 queues keep their level: the bound is checked on them. */
			if (q->level != HSAQM_LEVEL_1) {
				rc = hsaqm_xq_set_level(xq, rnd(&s) & 1 ? HSAQM_LEVEL_3
								  : HSAQM_LEVEL_2);
				st->level++;
			}
			break;
		case 3:
			if (q->level != HSAQM_LEVEL_1) {
				rc = hsaqm_xq_set_launch(xq, 0, 0, 1 + (uint32_t)(rnd(&s) % 4));
				st->launch++;
			}
			break;
		default:
			rc = hsaqm_xq_suspend(xq);
			t_sleep_us(200 + (unsigned int)(rnd(&s) % 600));
			if (!rc)
				rc = hsaqm_xq_resume(xq);
			st->holds++;
			break;
		}
		if (rc)
			st->failures++;
		t_sleep_us(300 + (unsigned int)(rnd(&s) % 700));
	}
	return NULL;
}

static void test_64_queues_4_devices_every_workgroup_once_in_order_under_chaos(void)
{
	struct hsaqm_sim_config cfg = { .num_devices = NDEV, .time_mode = HSAQM_SIM_TIME_REAL,
					.seed = 5 };
	pthread_t prod[PRODUCERS], chaos;
	struct chaos_stats cst = { 0 };
	uint64_t s = 77, t0, t1, wgs = 0, preemptions = 0, guardians = 0, markers = 0;
	uint64_t gate_closes = 0, suspends = 0, resumes = 0;
	const char *note = SCALE_NOTE;
	unsigned int by_level[4] = { 0 };

	if (note)
		printf("\n  note: %s\n  ", note);
	memset(g_q, 0, sizeof(g_q));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open_cfg(&g_h, &cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_lv3_setup(&g_h), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&g_h, hsaqm_kfd_transport_default()), 0);
	for (int i = 0; i < NQ; i++) {
		struct qstate *q = &g_q[i];
		uint32_t thr = rnd(&s) & 1 ? 16 : 4;
		struct hsaqm_xq_config xc = {
			.device = (uint32_t)(i % NDEV),
			.priority = (int)(rnd(&s) % 4) * 10,
			.level = (enum hsaqm_level)(1 + rnd(&s) % 3),
			.lv1_threshold = thr,
			.lv1_batch = thr / 2,
			.lv2_interval = rnd(&s) & 1 ? 1 : 4,
		};
		struct hsaqm_sim_kernel_desc kd = {
			.name = "proof", .duration_ns = (1 + (uint64_t)(i % 20)) * T_US,
			.waves_per_wg = 1 + (uint32_t)(i % 8), .wg_callback = wg_done,
		};

		q->level = xc.level;
		q->lv1_threshold = thr;
		by_level[xc.level]++;
		unsigned int gpu = (unsigned int)(i % NDEV);

		CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&g_h, gpu, 256, &xc, &q->app), 0);
		CU_ASSERT_EQUAL_FATAL(hsaqm_sim_kernel_register(g_h.sim, &kd, &q->kobj), 0);
		q->cs = t_hsa_signal(&g_h, PER_Q);
		q->recs = calloc(PER_Q, sizeof(struct krec));
		CU_ASSERT_PTR_NOT_NULL_FATAL(q->recs);
		CU_ASSERT_EQUAL(hsaqm_hsa_proxy_set_priority(q->app.proxy, (uint32_t)(rnd(&s) % 3),
							     xc.priority, 5), 0);
		struct hsaqm_xq_info info;
		hsaqm_xq_get_info(hsaqm_hsa_proxy_xq(q->app.proxy), &info);
		CU_ASSERT_EQUAL(info.effective_level, xc.level);
	}
	HSAQM_WRITE_ONCE(hsaqm_hsa_release_hook, lv1_check);
	t0 = t_mono_ns();
	pthread_create(&chaos, NULL, chaos_main, &cst);
	for (int p = 0; p < PRODUCERS; p++)
		pthread_create(&prod[p], NULL, producer_main, (void *)(intptr_t)p);
	for (int p = 0; p < PRODUCERS; p++)
		pthread_join(prod[p], NULL);
	hsaqm_store_release(&g_producers_done, 1u); /* release: pairs with chaos_main's acquire */
	pthread_join(chaos, NULL);
	for (int i = 0; i < NQ; i++)
		CU_ASSERT_TRUE(t_hsa_wait_le(&g_h, g_q[i].cs, 0, 60 * T_S));
	t1 = t_mono_ns();
	HSAQM_WRITE_ONCE(hsaqm_hsa_release_hook, NULL);

	for (int i = 0; i < NQ; i++) {
		struct qstate *q = &g_q[i];
		struct hsaqm_xq *xq = hsaqm_hsa_proxy_xq(q->app.proxy);
		struct hsaqm_xq_info info;
		struct hsaqm_xq_stats st;
		uint32_t bad = 0;

		CU_ASSERT_EQUAL(g_h.core->hsa_signal_load_scacquire_fn(q->cs), 0);
		/* Acquire: pairs with wg_done's add; the completion wait came first. */
		CU_ASSERT_EQUAL(hsaqm_load_acquire(&q->kernels_done), PER_Q);
		CU_ASSERT_EQUAL(q->extra_wgs, 0);
		CU_ASSERT_EQUAL(q->order_violations, 0);
		for (uint32_t k = 0; k < PER_Q; k++) {
			bad += q->recs[k].done_wgs != q->recs[k].nwg;
			wgs += q->recs[k].done_wgs;
		}
		CU_ASSERT_EQUAL(bad, 0);
		/* The last marker completes after the last kernel; its handler reports it after. */
		uint64_t until = t_mono_ns() + 5 * T_S;
		do {
			CU_ASSERT_EQUAL(hsaqm_xq_get_info(xq, &info), 0);
			if (info.completed == PER_Q)
				break;
			t_sleep_us(100);
		} while (t_mono_ns() < until);
		CU_ASSERT_FALSE(info.failed_open);
		CU_ASSERT_EQUAL(info.submitted, PER_Q);
		CU_ASSERT_EQUAL(info.released, PER_Q);
		CU_ASSERT_EQUAL(info.completed, PER_Q);
		CU_ASSERT_EQUAL(info.state, HSAQM_XQ_IDLE);
		if (info.effective_level != info.requested_level)
			printf("\n  queue %d: %s\n", i, info.level_reason);
		CU_ASSERT_EQUAL(info.effective_level, info.requested_level);
		CU_ASSERT_EQUAL(hsaqm_xq_get_stats(xq, &st), 0);
		preemptions += st.preemptions;
		gate_closes += q->app.proxy->n_gate_close;
		suspends += q->app.proxy->n_suspend;
		resumes += q->app.proxy->n_resume;
		guardians += st.guardians;
		markers += st.markers;
	}
	CU_ASSERT_EQUAL(g_lv1_violations, 0);
	CU_ASSERT(g_lv1_checks > 0 || by_level[1] == 0);
	CU_ASSERT_EQUAL(cst.failures, 0);
	printf("\n  %u dispatches (%u per queue), %llu workgroups on %d devices in %.2f s; "
	       "levels 1/2/3: %u/%u/%u queues\n  %llu preemptions (%llu gate closes, %llu DBG_TRAP "
	       "suspends, %llu resumes), %llu guardians, %llu markers, "
	       "%u Lv1 bound checks; chaos: %u priority, %u hardware priority, %u level, "
	       "%u launch changes, %u holds by hand\n  ",
	       PER_Q * NQ, PER_Q, (unsigned long long)wgs, NDEV, (double)(t1 - t0) / 1e9,
	       by_level[1], by_level[2], by_level[3], (unsigned long long)preemptions,
	       (unsigned long long)gate_closes, (unsigned long long)suspends,
	       (unsigned long long)resumes, (unsigned long long)guardians,
	       (unsigned long long)markers, g_lv1_checks, cst.prio,
	       cst.hw_prio, cst.level, cst.launch, cst.holds);
	CU_ASSERT(preemptions > 0);
	CU_ASSERT(gate_closes > 0);
	CU_ASSERT(by_level[3] == 0 || suspends > 0);
	CU_ASSERT_EQUAL(suspends, resumes); /* decision 4: every suspend has its resume */
	for (int i = 0; i < NQ; i++) {
		CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(g_q[i].app.proxy), 0);
		g_h.core->hsa_signal_destroy_fn(g_q[i].cs);
		free(g_q[i].recs);
	}
	t_hsa_close(&g_h);
}

static const struct t_case cases[] = {
	T_CASE(test_64_queues_4_devices_every_workgroup_once_in_order_under_chaos),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsa-backend-proof", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("hsa-backend-proof", suites);
}
