/* SPDX-License-Identifier: MIT */
/*
 * The device model's packet processor follows the HSA 1.2 AQL rules for dispatches, one test
 * per rule: the grid over the workgroup size rounded up, large grids in rounds (each workgroup
 * once), the completion signal decremented once per packet after the callbacks, the read index
 * advancing at consume, an INVALID header stopping processing until published, no later packet
 * launching before an earlier one, launch slots bounding dispatches in flight
 * (virtual time: every instant asserted below is exact).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "hsaqm-hsa/hsa_abi.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_sim_aql.h"

static void test_dispatch_runs_grid_over_wg_rounded_up_workgroups(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct t_rec r;
	uint64_t t0 = t_aql_setup(&sim, &q, &r);
	uint64_t k = t_aql_kernel(sim, 100 * T_US, 1, &r);
	struct sim_signal *cs = sim_signal_create(sim, 1);
	/* 10 x 6 x 3 grid, 4 x 4 x 2 workgroups: 3 x 2 x 2 = 12 workgroups (partial ones count). */
	const uint32_t grid[3] = { 10, 6, 3 };
	const uint16_t wg[3] = { 4, 4, 2 };
	union hsaqm_aql_packet p = t_dispatch3(k, grid, wg, 3, t_handle(cs), false);

	t_q_submit(&q, &p);
	/* Launch overhead then one 100 us round: every workgroup fits the 80 CUs at once. */
	hsaqm_sim_advance(sim, T_LAUNCH_NS + 100 * T_US - 1);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 1);
	CU_ASSERT_EQUAL(r.count, 0);
	hsaqm_sim_advance(sim, 1);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 0);
	CU_ASSERT_EQUAL(r.count, 12);
	for (int i = 0; i < 12; i++)
		CU_ASSERT_EQUAL(r.per_wg[i], 1);
	CU_ASSERT_EQUAL(r.per_wg[12], 0);
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t0 + T_LAUNCH_NS + 100 * T_US);
	sim_signal_destroy(sim, cs);
	t_aql_teardown(sim, &q);
}

static void test_large_grid_runs_in_rounds_each_workgroup_once(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct t_rec r;
	uint64_t t0 = t_aql_setup(&sim, &q, &r);
	/* 8 waves per workgroup: a CU (32 slots) holds 4, the device 320 at a time. */
	uint64_t k = t_aql_kernel(sim, 10 * T_US, 8, &r);
	struct sim_signal *cs = sim_signal_create(sim, 1);
	union hsaqm_aql_packet p = t_dispatch(k, 1000, t_handle(cs), false);

	t_q_submit(&q, &p);
	CU_ASSERT_EQUAL(sim_signal_wait(sim, cs, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT_EQUAL(r.count, 1000);
	for (int i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(r.per_wg[i], 1);
	/* ceil(1000 / 320) = 4 rounds of 10 us. */
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t0 + T_LAUNCH_NS + 4 * 10 * T_US);
	sim_signal_destroy(sim, cs);
	t_aql_teardown(sim, &q);
}

static void test_completion_signal_decremented_once_per_packet_after_callbacks(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct t_rec r;
	t_aql_setup(&sim, &q, &r);
	uint64_t k = t_aql_kernel(sim, 10 * T_US, 1, &r);
	/* One signal for three packets: each completion takes exactly 1 off it. */
	struct sim_signal *cs = sim_signal_create(sim, 3);
	r.peek = cs;
	union hsaqm_aql_packet p = t_dispatch(k, 4, t_handle(cs), true);

	for (int i = 0; i < 3; i++)
		t_q_submit(&q, &p);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 0);
	CU_ASSERT_EQUAL_FATAL(r.n, 12);
	/* Every callback of packet i saw the value before packet i's decrement. */
	for (unsigned int i = 0; i < 12; i++)
		CU_ASSERT_EQUAL(r.peeked[i], 3 - (int64_t)r.ids[i]);
	/* Profiling timestamps: launch and completion of the last packet. */
	CU_ASSERT(cs->end_ts > cs->start_ts);
	t_aql_teardown(sim, &q);
}

static void test_read_index_advances_at_consume_not_at_completion(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	t_aql_setup(&sim, &q, NULL);
	uint64_t k = t_aql_kernel(sim, 10 * T_MS, 1, NULL);
	struct sim_signal *cs = sim_signal_create(sim, 1);
	union hsaqm_aql_packet p = t_dispatch(k, 1, t_handle(cs), false);

	uint64_t idx = t_q_submit(&q, &p);
	hsaqm_sim_advance(sim, 0);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 1);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 1);
	/* The packet processor marks the consumed slot INVALID before moving the read index. */
	CU_ASSERT_EQUAL(q.ring[idx].u32[0], HSAQM_AQL_INVALID_WORD);
	hsaqm_sim_advance(sim, 20 * T_MS);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 0);
	t_aql_teardown(sim, &q);
}

static void test_invalid_header_stops_processing_until_published_and_doorbell(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct t_rec r;
	t_aql_setup(&sim, &q, &r);
	uint64_t k = t_aql_kernel(sim, 10 * T_US, 1, &r);
	union hsaqm_aql_packet p = t_dispatch(k, 1, 0, false);

	uint64_t i0 = t_q_reserve(&q), i1 = t_q_reserve(&q);
	t_q_publish(&q, i1, &p);
	sim_hwq_doorbell(q.hwq, i1);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 0); /* slot 0 is still INVALID: nothing runs */
	CU_ASSERT_EQUAL(r.count, 0);
	t_q_publish(&q, i0, &p);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 0); /* published, but nobody rang */
	sim_hwq_doorbell(q.hwq, i0);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 2);
	CU_ASSERT_EQUAL(r.count, 2);
	t_aql_teardown(sim, &q);
}

static void test_later_packets_never_launch_before_earlier_ones(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct t_rec r;
	t_aql_setup(&sim, &q, &r);
	uint64_t k = t_aql_kernel(sim, 50 * T_US, 1, &r);
	struct sim_signal *gate = sim_signal_create(sim, 1);
	uint64_t dep = t_handle(gate);
	union hsaqm_aql_packet g = t_barrier_and(&dep, 1, 0, false), p = t_dispatch(k, 1, 0, false);
	struct sim_hwq_info info;

	/* Kernels after a closed gate stay unlaunched even with free CUs and launch slots. */
	t_q_submit(&q, &p);
	t_q_submit(&q, &g);
	for (int i = 0; i < 20; i++)
		t_q_submit(&q, &p);
	hsaqm_sim_advance(sim, T_MS);
	sim_hwq_get_info(q.hwq, &info);
	CU_ASSERT_EQUAL(info.dispatches_launched, 1);
	CU_ASSERT_EQUAL(r.count, 1);
	sim_signal_store(sim, gate, 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	CU_ASSERT_EQUAL_FATAL(r.n, 21);
	/* Equal kernels launched one launch overhead apart finish in ring order. */
	for (unsigned int i = 1; i < r.n; i++) {
		CU_ASSERT(r.ids[i] > r.ids[i - 1]);
		CU_ASSERT(r.times[i] >= r.times[i - 1]);
	}
	t_aql_teardown(sim, &q);
}

static void test_launch_slots_limit_inflight_dispatches(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	t_aql_setup(&sim, &q, NULL);
	uint64_t k = t_aql_kernel(sim, 10 * T_MS, 1, NULL);
	union hsaqm_aql_packet p = t_dispatch(k, 1, 0, false);
	struct sim_hwq_info info;

	for (int i = 0; i < 12; i++)
		t_q_submit(&q, &p);
	hsaqm_sim_advance(sim, T_MS);
	sim_hwq_get_info(q.hwq, &info);
	/* max_inflight_dispatches (8): the 9th waits for a completion, unconsumed. */
	CU_ASSERT_EQUAL(info.dispatches_launched, 8);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 8);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	sim_hwq_get_info(q.hwq, &info);
	CU_ASSERT_EQUAL(info.packets_completed, 12);
	t_aql_teardown(sim, &q);
}

static const struct t_case cases[] = {
	T_CASE(test_dispatch_runs_grid_over_wg_rounded_up_workgroups),
	T_CASE(test_large_grid_runs_in_rounds_each_workgroup_once),
	T_CASE(test_completion_signal_decremented_once_per_packet_after_callbacks),
	T_CASE(test_read_index_advances_at_consume_not_at_completion),
	T_CASE(test_invalid_header_stops_processing_until_published_and_doorbell),
	T_CASE(test_later_packets_never_launch_before_earlier_ones),
	T_CASE(test_launch_slots_limit_inflight_dispatches),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-aql-dispatch", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-sim-aql-dispatch", suites);
}
