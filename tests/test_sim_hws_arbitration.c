/* SPDX-License-Identifier: MIT */
/*
 * The model's hardware scheduler shares the device: more queues than HQD slots are time sliced
 * and all finish, a higher pipe level is served first without preempting what runs, queues of
 * one level share the CUs round robin, a CU mask keeps a queue to its CUs.
 *
 * Virtual time, default MI308X profile: map/unmap 20 us, launch 5 us, CWSR 1 us per wave each
 * way, quantum 10 ms, 80 CUs x 32 wave slots, grace unit 1024 clocks at 1420 MHz.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_internal.h"
#include "t_cunit.h"
#include "t_json.h"
#include "t_sim.h"
#include "t_sim_hws.h"

static uint32_t count_mapped(struct t_q *q, int n)
{
	uint32_t m = 0;

	for (int i = 0; i < n; i++)
		m += t_q_state(&q[i]) == SIM_HWQ_MAPPED;
	return m;
}

static void test_more_queues_than_hqd_slots_are_time_sliced_and_all_finish(void)
{
	enum { NQ = 30 };
	struct hsaqm_sim *sim = t_sim_virtual(1);
	static struct t_q q[NQ];
	static struct t_hws_rec r[NQ];
	struct sim_signal *cs[NQ];

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	for (int i = 0; i < NQ; i++)
		CU_ASSERT_EQUAL_FATAL(t_q_create(&q[i], sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	/* Idle queues: the first 24 are mapped, the rest wait. */
	CU_ASSERT_EQUAL(count_mapped(q, NQ), 24);
	for (int i = 0; i < NQ; i++) {
		uint64_t k = t_hws_kernel(sim, 25 * T_MS, 8, &r[i]);
		union hsaqm_aql_packet p;

		cs[i] = sim_signal_create(sim, 1);
		p = t_dispatch(k, 2, t_handle(cs[i]), false);
		t_q_submit(&q[i], &p);
	}
	uint32_t max_mapped = 0;
	for (int step = 0; step < 400; step++) {
		hsaqm_sim_advance(sim, T_MS / 2);
		uint32_t m = count_mapped(q, NQ);
		if (m > max_mapped)
			max_mapped = m;
	}
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, 10 * T_S), 0);
	CU_ASSERT(max_mapped <= 24);
	uint64_t preempted = 0;
	for (int i = 0; i < NQ; i++) {
		struct sim_hwq_stats st;

		CU_ASSERT_EQUAL(sim_signal_load(cs[i]), 0);
		CU_ASSERT(t_each_once(&r[i], 2));
		sim_hwq_get_stats(q[i].hwq, &st);
		CU_ASSERT(st.maps >= 1);
		preempted += st.waves_saved_total;
		/* Saved waves came back: restored exactly what was saved. */
		CU_ASSERT_EQUAL(st.waves_saved_total, st.waves_restored_total);
	}
	CU_ASSERT(preempted > 0); /* time slicing saved running waves */
	for (int i = 0; i < NQ; i++)
		t_q_destroy(&q[i]);
	hsaqm_sim_destroy(sim);
}

static void test_priority_serves_higher_pipe_level_first_without_preempting_running(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q lo, hi;
	static struct t_hws_rec rl, rh;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&lo, sim, 0, 16, 0), 0);   /* pipe LOW */
	CU_ASSERT_EQUAL_FATAL(t_q_create(&hi, sim, 0, 16, 15), 0);  /* pipe HIGH */
	hsaqm_sim_run_until_idle(sim, T_S);
	/* 32 waves per workgroup: one workgroup fills a CU, 80 at a time. */
	uint64_t kl = t_hws_kernel(sim, 100 * T_US, 32, &rl), kh = t_hws_kernel(sim, 100 * T_US, 32, &rh);
	struct sim_signal *csl = sim_signal_create(sim, 1), *csh = sim_signal_create(sim, 1);
	union hsaqm_aql_packet pl = t_dispatch(kl, 400, t_handle(csl), false);
	union hsaqm_aql_packet ph = t_dispatch(kh, 80, t_handle(csh), false);
	uint64_t t0 = hsaqm_sim_now_ns(sim);

	t_q_submit(&lo, &pl);
	hsaqm_sim_advance(sim, 50 * T_US);
	t_q_submit(&hi, &ph);
	/* The low queue's first 80 workgroups run to their end: priority never preempts. */
	hsaqm_sim_advance(sim, T_HWS_LAUNCH + 100 * T_US - 50 * T_US);
	CU_ASSERT_EQUAL(rl.count, 80);
	CU_ASSERT_EQUAL(rl.last_time, t0 + T_HWS_LAUNCH + 100 * T_US);
	/* Then every freed CU went to the high queue first. */
	CU_ASSERT_EQUAL(sim_signal_wait(sim, csh, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t0 + T_HWS_LAUNCH + 200 * T_US);
	CU_ASSERT_EQUAL(rl.count, 80);
	CU_ASSERT(t_each_once(&rh, 80));
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	CU_ASSERT(t_each_once(&rl, 400));
	/* 400 low + 80 high workgroups on 80 CUs: 6 rounds in all. */
	CU_ASSERT_EQUAL(rl.last_time, t0 + T_HWS_LAUNCH + 600 * T_US);
	t_q_destroy(&lo);
	t_q_destroy(&hi);
	hsaqm_sim_destroy(sim);
}

static void test_same_level_queues_share_cus_round_robin(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q a, b, m;
	static struct t_hws_rec ra, rb, rm;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&a, sim, 0, 16, 11), 0); /* HIGH */
	CU_ASSERT_EQUAL_FATAL(t_q_create(&b, sim, 0, 16, 15), 0); /* HIGH too */
	CU_ASSERT_EQUAL_FATAL(t_q_create(&m, sim, 0, 16, 9), 0);  /* MEDIUM */
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t ka = t_hws_kernel(sim, 100 * T_US, 32, &ra), kb = t_hws_kernel(sim, 100 * T_US, 32, &rb);
	uint64_t km = t_hws_kernel(sim, 100 * T_US, 32, &rm);
	struct sim_signal *csa = sim_signal_create(sim, 1), *csb = sim_signal_create(sim, 1);
	struct sim_signal *csm = sim_signal_create(sim, 1);
	union hsaqm_aql_packet pa = t_dispatch(ka, 80, t_handle(csa), false);
	union hsaqm_aql_packet pb = t_dispatch(kb, 80, t_handle(csb), false);
	union hsaqm_aql_packet pm = t_dispatch(km, 80, t_handle(csm), false);
	uint64_t t0 = hsaqm_sim_now_ns(sim);

	t_q_submit(&m, &pm);
	t_q_submit(&a, &pa);
	t_q_submit(&b, &pb);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	/* A and B alternate workgroup by workgroup: 40 + 40 per round, both done after round 2. */
	CU_ASSERT_EQUAL(ra.last_time, t0 + T_HWS_LAUNCH + 200 * T_US);
	CU_ASSERT_EQUAL(rb.last_time, t0 + T_HWS_LAUNCH + 200 * T_US);
	/* The medium queue waited for both. */
	CU_ASSERT_EQUAL(rm.last_time, t0 + T_HWS_LAUNCH + 300 * T_US);
	CU_ASSERT(t_each_once(&ra, 80) && t_each_once(&rb, 80) && t_each_once(&rm, 80));
	t_q_destroy(&a);
	t_q_destroy(&b);
	t_q_destroy(&m);
	hsaqm_sim_destroy(sim);
}

static void test_cu_mask_restricts_the_queue_to_its_cus(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q q;
	static struct t_hws_rec r;
	uint32_t mask[3] = { 0x3ff, 0, 0 }; /* CUs 0-9 */
	uint32_t none[3] = { 0, 0, 0 };

	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL(sim_hwq_set_cu_mask(q.hwq, mask, 96), 0);
	CU_ASSERT_EQUAL(sim_hwq_set_cu_mask(q.hwq, none, 96), -EINVAL);
	CU_ASSERT_EQUAL(sim_hwq_set_cu_mask(q.hwq, mask, 40), -EINVAL);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t k = t_hws_kernel(sim, 10 * T_US, 32, &r);
	union hsaqm_aql_packet p = t_dispatch(k, 100, 0, false);
	uint64_t t0 = hsaqm_sim_now_ns(sim);

	t_q_submit(&q, &p);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	/* 100 whole-CU workgroups on 10 CUs: 10 rounds (on all 80 CUs it would be 2). */
	CU_ASSERT_EQUAL(r.last_time, t0 + T_HWS_LAUNCH + 100 * T_US);
	CU_ASSERT(t_each_once(&r, 100));
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
}

static const struct t_case cases[] = {
	T_CASE(test_more_queues_than_hqd_slots_are_time_sliced_and_all_finish),
	T_CASE(test_priority_serves_higher_pipe_level_first_without_preempting_running),
	T_CASE(test_same_level_queues_share_cus_round_robin),
	T_CASE(test_cu_mask_restricts_the_queue_to_its_cus),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-hws-arbitration", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-sim-hws-arbitration", suites);
}
