/* SPDX-License-Identifier: MIT */
/*
 * The device model's packet processor follows the HSA 1.2 AQL rules for barriers, one test per
 * rule: the barrier bit waits for earlier packets, its absence lets kernels overlap; barrier-AND
 * (a zero handle satisfied), barrier-OR (a zero handle unsatisfied) and barrier-value (each
 * condition, with its mask)
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

static void test_barrier_bit_waits_for_earlier_packets_to_complete(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct t_rec r;
	uint64_t t0 = t_aql_setup(&sim, &q, &r);
	uint64_t klong = t_aql_kernel(sim, 100 * T_US, 1, &r);
	uint64_t kshort = t_aql_kernel(sim, 10 * T_US, 1, &r);
	union hsaqm_aql_packet a = t_dispatch(klong, 1, 0, false), b = t_dispatch(kshort, 1, 0, true);

	t_q_submit(&q, &a);
	t_q_submit(&q, &b);
	hsaqm_sim_run_until_idle(sim, T_S);
	CU_ASSERT_EQUAL_FATAL(r.n, 2);
	CU_ASSERT_EQUAL(r.ids[0], 0);
	CU_ASSERT_EQUAL(r.times[0], t0 + T_LAUNCH_NS + 100 * T_US);
	/* B launches only once A completed: its own launch overhead starts then. */
	CU_ASSERT_EQUAL(r.ids[1], 1);
	CU_ASSERT_EQUAL(r.times[1], r.times[0] + T_LAUNCH_NS + 10 * T_US);
	t_aql_teardown(sim, &q);
}

static void test_no_barrier_bit_lets_kernels_overlap(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct t_rec r;
	uint64_t t0 = t_aql_setup(&sim, &q, &r);
	uint64_t klong = t_aql_kernel(sim, 100 * T_US, 1, &r);
	uint64_t kshort = t_aql_kernel(sim, 10 * T_US, 1, &r);
	union hsaqm_aql_packet a = t_dispatch(klong, 1, 0, false), b = t_dispatch(kshort, 1, 0, false);

	t_q_submit(&q, &a);
	t_q_submit(&q, &b);
	hsaqm_sim_run_until_idle(sim, T_S);
	CU_ASSERT_EQUAL_FATAL(r.n, 2);
	/* B started right after A's launch and finished first, while A still ran. */
	CU_ASSERT_EQUAL(r.ids[0], 1);
	CU_ASSERT_EQUAL(r.times[0], t0 + 2 * T_LAUNCH_NS + 10 * T_US);
	CU_ASSERT_EQUAL(r.ids[1], 0);
	CU_ASSERT_EQUAL(r.times[1], t0 + T_LAUNCH_NS + 100 * T_US);
	t_aql_teardown(sim, &q);
}

static void test_barrier_and_waits_for_every_dependency_zero_handle_satisfied(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct t_rec r;
	t_aql_setup(&sim, &q, &r);
	uint64_t k = t_aql_kernel(sim, 10 * T_US, 1, &r);
	struct sim_signal *s1 = sim_signal_create(sim, 1), *s2 = sim_signal_create(sim, 1);
	struct sim_signal *bcs = sim_signal_create(sim, 1);
	uint64_t deps[3] = { t_handle(s1), 0, t_handle(s2) };
	union hsaqm_aql_packet bar = t_barrier_and(deps, 3, t_handle(bcs), false);
	union hsaqm_aql_packet kd = t_dispatch(k, 1, 0, false);

	t_q_submit(&q, &bar);
	t_q_submit(&q, &kd);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 0); /* not consumed while it waits */
	CU_ASSERT_EQUAL(r.count, 0);
	sim_signal_store(sim, s1, 0);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(r.count, 0); /* s2 still 1; the zero handle counts as satisfied */
	CU_ASSERT_EQUAL(sim_signal_load(bcs), 1);
	uint64_t t_open = hsaqm_sim_now_ns(sim);
	sim_signal_store(sim, s2, 0);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(sim_signal_load(bcs), 0);
	CU_ASSERT_EQUAL(r.count, 1);
	CU_ASSERT_EQUAL(r.times[0], t_open + T_LAUNCH_NS + 10 * T_US);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 2);

	/* No dependency at all (five zero handles): satisfied at once. */
	struct sim_signal *cs2 = sim_signal_create(sim, 1);
	union hsaqm_aql_packet empty = t_barrier_and(NULL, 0, t_handle(cs2), false);
	t_q_submit(&q, &empty);
	hsaqm_sim_advance(sim, 0);
	CU_ASSERT_EQUAL(sim_signal_load(cs2), 0);
	t_aql_teardown(sim, &q);
}

static void test_barrier_or_any_dependency_zero_handle_unsatisfied(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct t_rec r;
	t_aql_setup(&sim, &q, &r);
	struct sim_signal *s1 = sim_signal_create(sim, 1), *s2 = sim_signal_create(sim, 1);
	struct sim_signal *cs = sim_signal_create(sim, 1);
	uint64_t deps[5] = { 0, t_handle(s1), 0, t_handle(s2), 0 };
	union hsaqm_aql_packet bar = t_barrier_or_raw(deps, t_handle(cs));

	t_q_submit(&q, &bar);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 1); /* the zero handles do not satisfy it */
	sim_signal_store(sim, s2, 0);
	hsaqm_sim_advance(sim, 0);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 0);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 1);

	/* Only zero handles: never satisfied, the queue stays blocked. */
	uint64_t none[5] = { 0, 0, 0, 0, 0 };
	struct sim_signal *cs2 = sim_signal_create(sim, 1);
	union hsaqm_aql_packet never = t_barrier_or_raw(none, t_handle(cs2));
	t_q_submit(&q, &never);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, 10 * T_MS), -ETIMEDOUT);
	CU_ASSERT_EQUAL(sim_signal_load(cs2), 1);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 1);
	t_aql_teardown(sim, &q);
}

static void test_barrier_value_each_condition_with_mask(void)
{
	static const struct {
		uint32_t cond;
		int64_t compare;
		int64_t before, after; /* signal values: blocked, then satisfied */
	} cases[] = {
		/* (value & 0xff) COND compare; the bits above the mask never matter. */
		{ HSAQM_AQL_COND_EQ, 0x34, 0x1233, 0x7734 },
		{ HSAQM_AQL_COND_NE, 0x34, 0x5534, 0x5535 },
		{ HSAQM_AQL_COND_LT, 0x30, 0x0f30, 0x0f2f },
		{ HSAQM_AQL_COND_GTE, 0x30, 0x7f2f, 0x0030 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hsaqm_sim *sim;
		struct t_q q;

		t_aql_setup(&sim, &q, NULL);
		struct sim_signal *s = sim_signal_create(sim, cases[i].before);
		struct sim_signal *cs = sim_signal_create(sim, 1);
		union hsaqm_aql_packet p = t_barrier_value(t_handle(s), cases[i].compare, 0xff,
							   cases[i].cond, t_handle(cs));

		t_q_submit(&q, &p);
		hsaqm_sim_advance(sim, T_MS);
		CU_ASSERT_EQUAL(sim_signal_load(cs), 1);
		sim_signal_store(sim, s, cases[i].after);
		hsaqm_sim_advance(sim, 0);
		CU_ASSERT_EQUAL(sim_signal_load(cs), 0);
		CU_ASSERT_EQUAL(t_q_read_index(&q), 1);
		t_aql_teardown(sim, &q);
	}
}

static const struct t_case cases[] = {
	T_CASE(test_barrier_bit_waits_for_earlier_packets_to_complete),
	T_CASE(test_no_barrier_bit_lets_kernels_overlap),
	T_CASE(test_barrier_and_waits_for_every_dependency_zero_handle_satisfied),
	T_CASE(test_barrier_or_any_dependency_zero_handle_unsatisfied),
	T_CASE(test_barrier_value_each_condition_with_mask),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-aql-barriers", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-sim-aql-barriers", suites);
}
