/* SPDX-License-Identifier: MIT */
/*
 * The scheduler on the test backend, on a manual clock: the starvation floor gives a preempted
 * queue its slices, and UTIL shares hold over periods.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "t_backend.h"
#include "t_cunit.h"
#include "t_time.h"
#include "xq_internal.h"

static void test_floor_gives_preempted_queue_slices_on_manual_clock(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct hsaqm_policy_config pol = { .kind = HSAQM_POLICY_HPF, .floor_period_us = 10000,
					   .floor_slice_us = 2000 };
	struct t_bq hi, lo;
	uint64_t t0, next;
	struct hsaqm_xq_stats st;

	t_bq_init(&hi, HSAQM_LEVEL_3);
	t_bq_init(&lo, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL(hsaqm_ctx_set_policy(ctx, 0, &pol), 0);
	t_bq_attach(ctx, &hi, 0, 10, HSAQM_LEVEL_2);
	t_bq_attach(ctx, &lo, 0, 0, HSAQM_LEVEL_2);
	t0 = t_clock_ns;
	t_bq_submit(&lo, 100);
	t_bq_submit(&hi, 100); /* kept busy: never run */
	CU_ASSERT_TRUE(lo.gate_closed);
	next = t_clock_set(ctx, t0 + 5 * T_MS);
	CU_ASSERT_EQUAL(next, t0 + 10 * T_MS);
	CU_ASSERT_TRUE(lo.gate_closed);
	next = t_clock_set(ctx, t0 + 10 * T_MS);
	CU_ASSERT_FALSE(lo.gate_closed); /* its slice */
	CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_READY);
	CU_ASSERT_EQUAL(t_state(hi.xq), HSAQM_XQ_READY); /* the high one is not stopped */
	CU_ASSERT_EQUAL(next, t0 + 12 * T_MS);
	next = t_clock_set(ctx, t0 + 12 * T_MS);
	CU_ASSERT_TRUE(lo.gate_closed);
	CU_ASSERT_EQUAL(next, t0 + 20 * T_MS); /* a slice every period */
	/* Preempted from t0 to t0+10 and from t0+12 to t0+20, when the next slice opens. */
	t_clock_set(ctx, t0 + 20 * T_MS);
	CU_ASSERT_FALSE(lo.gate_closed);
	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(lo.xq, &st), 0);
	CU_ASSERT_EQUAL(st.preemptions, 2);
	CU_ASSERT_EQUAL(st.preempted_ns, 18 * T_MS);
	/* A second of slices. */
	uint64_t open_ns = 0, now = t0 + 20 * T_MS;
	while (now < t0 + 1020 * T_MS) {
		bool open = !lo.gate_closed;

		now += 100 * T_US;
		t_clock_set(ctx, now);
		if (open)
			open_ns += 100 * T_US;
	}
	CU_ASSERT(open_ns >= 198 * T_MS && open_ns <= 202 * T_MS);
	CU_ASSERT_EQUAL(hi.violations + lo.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&hi);
	t_bq_fini(&lo);
}

static void test_util_shares_enforced_over_periods_on_manual_clock(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct hsaqm_policy_config pol = { .kind = HSAQM_POLICY_UTIL, .util_period_us = 10000 };
	struct t_bq a, b;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .share_permille = 700 };
	uint64_t t0 = t_clock_ns, now, run_a = 0, run_b = 0, both = 0;

	t_bq_init(&a, HSAQM_LEVEL_3);
	t_bq_init(&b, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL(hsaqm_ctx_set_policy(ctx, 0, &pol), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &a, &a.xq), 0);
	cfg.share_permille = 300;
	cfg.priority = 50; /* priorities mean nothing to UTIL */
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &b, &b.xq), 0);
	t_bq_submit(&a, 1000);
	t_bq_submit(&b, 1000);
	for (now = t0; now < t0 + 1000 * T_MS; now += 100 * T_US) {
		bool ra = t_state(a.xq) == HSAQM_XQ_READY, rb = t_state(b.xq) == HSAQM_XQ_READY;

		run_a += ra ? 100 * T_US : 0;
		run_b += rb ? 100 * T_US : 0;
		both += ra && rb;
		/* A queue that may run has its gate open. */
		CU_ASSERT_FATAL(!(ra && a.gate_closed) && !(rb && b.gate_closed));
		t_clock_set(ctx, now + 100 * T_US);
	}
	CU_ASSERT_DOUBLE_EQUAL((double)run_a / (1000 * T_MS), 0.7, 0.02);
	CU_ASSERT_DOUBLE_EQUAL((double)run_b / (1000 * T_MS), 0.3, 0.02);
	CU_ASSERT_EQUAL(both, 0);
	/* One goes idle: the other gets the whole device. */
	t_bq_run(&b, UINT64_MAX); /* b runs only in its slices; drain until idle */
	while (t_state(b.xq) != HSAQM_XQ_IDLE) {
		now += 100 * T_US;
		t_clock_set(ctx, now);
		t_bq_run(&b, UINT64_MAX);
	}
	CU_ASSERT_EQUAL(t_state(a.xq), HSAQM_XQ_READY);
	CU_ASSERT_EQUAL(t_clock_set(ctx, now + 50 * T_MS), HSAQM_NO_DEADLINE);
	CU_ASSERT_EQUAL(t_state(a.xq), HSAQM_XQ_READY);
	/* Shares can change while running. */
	CU_ASSERT_EQUAL(hsaqm_xq_set_share(b.xq, 0, 500), 0);
	CU_ASSERT_EQUAL(a.violations + b.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&a);
	t_bq_fini(&b);
}

static const struct t_case cases[] = {
	T_CASE(test_floor_gives_preempted_queue_slices_on_manual_clock),
	T_CASE(test_util_shares_enforced_over_periods_on_manual_clock),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "lib-sched-shares", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-lib-sched-shares", suites);
}
