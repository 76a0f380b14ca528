/* SPDX-License-Identifier: MIT */
/*
 * The scheduler on the test backend, HPF: a higher submission preempts lower queues on the same
 * device only, they resume exactly when the higher ones go idle, equal priorities run together,
 * a priority change re-decides, an idle low queue's submission is held while a high one runs,
 * a hand hold holds and does not compete, and policy none never preempts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "t_backend.h"
#include "t_cunit.h"
#include "t_time.h"
#include "xq_internal.h"

/* Is the queue held at its level right now, as the backend sees it? */
static bool held_in_hw(struct t_bq *bq, int level)
{
	switch (level) {
	case HSAQM_LEVEL_2:
		return bq->gate_closed;
	case HSAQM_LEVEL_3:
		return bq->suspended;
	default: {
		/* Lv1: in-flight work completes, yet nothing more is released. */
		uint64_t before = bq->released;

		t_bq_run(bq, UINT64_MAX);
		return bq->released == before && bq->released < bq->submitted;
	}
	}
}

static void test_hpf_high_submission_preempts_lower_on_its_device_only(void)
{
	for (int level = HSAQM_LEVEL_1; level <= HSAQM_LEVEL_3; level++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct t_bq hi, lo1, lo2, other;

		t_bq_init(&hi, HSAQM_LEVEL_3);
		t_bq_init(&lo1, HSAQM_LEVEL_3);
		t_bq_init(&lo2, HSAQM_LEVEL_3);
		t_bq_init(&other, HSAQM_LEVEL_3);
		t_bq_attach(ctx, &hi, 0, 50, level);
		t_bq_attach(ctx, &lo1, 0, 0, level);
		t_bq_attach(ctx, &lo2, 0, 0, level);
		t_bq_attach(ctx, &other, 1, -50, level); /* another device */
		/* Lv1 keeps at most 16 in flight: enough to stay busy either way. */
		t_bq_submit(&lo1, 40);
		t_bq_submit(&lo2, 40);
		t_bq_submit(&other, 40);
		CU_ASSERT_EQUAL(t_state(lo1.xq), HSAQM_XQ_READY);

		t_bq_submit(&hi, 3);
		CU_ASSERT_EQUAL(t_state(hi.xq), HSAQM_XQ_READY);
		CU_ASSERT_EQUAL(hi.released, 3);
		CU_ASSERT_EQUAL(t_state(lo1.xq), HSAQM_XQ_PREEMPTED);
		CU_ASSERT_EQUAL(t_state(lo2.xq), HSAQM_XQ_PREEMPTED);
		CU_ASSERT_TRUE(held_in_hw(&lo1, level));
		CU_ASSERT_TRUE(held_in_hw(&lo2, level));
		/* The other device is none of this device's business. */
		CU_ASSERT_EQUAL(t_state(other.xq), HSAQM_XQ_READY);
		CU_ASSERT_FALSE(other.gate_closed || other.suspended);
		uint64_t before = other.released;
		t_bq_run(&other, 8);
		CU_ASSERT(other.released > before || other.released == other.submitted);

		struct hsaqm_xq_stats st;
		CU_ASSERT_EQUAL(hsaqm_xq_get_stats(lo1.xq, &st), 0);
		CU_ASSERT_EQUAL(st.preemptions, 1);
		CU_ASSERT_EQUAL(hi.violations + lo1.violations + lo2.violations + other.violations, 0);
		hsaqm_ctx_destroy(ctx);
		t_bq_fini(&hi);
		t_bq_fini(&lo1);
		t_bq_fini(&lo2);
		t_bq_fini(&other);
	}
}

static void test_hpf_lower_resumes_exactly_when_higher_goes_idle(void)
{
	for (int level = HSAQM_LEVEL_1; level <= HSAQM_LEVEL_3; level++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct t_bq hi, lo;

		t_bq_init(&hi, HSAQM_LEVEL_3);
		t_bq_init(&lo, HSAQM_LEVEL_3);
		t_bq_attach(ctx, &hi, 0, 10, level);
		t_bq_attach(ctx, &lo, 0, 0, level);
		t_bq_submit(&lo, 30);
		t_bq_submit(&hi, 4);
		t_bq_submit(&hi, 4);
		CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_PREEMPTED);
		/* Part of the high work done: still preempted. */
		t_bq_run(&hi, 5);
		CU_ASSERT_EQUAL(t_state(hi.xq), HSAQM_XQ_READY);
		CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_PREEMPTED);
		/* The last high kernel's marker: the low queue runs again in that same call. */
		t_bq_run(&hi, UINT64_MAX);
		CU_ASSERT_EQUAL(t_state(hi.xq), HSAQM_XQ_IDLE);
		CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_READY);
		CU_ASSERT_FALSE(lo.gate_closed || lo.suspended);
		struct t_bq *all[] = { &lo, &hi };
		t_bq_run_all(all, 2);
		CU_ASSERT_EQUAL(lo.ran, lo.submitted);
		CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_IDLE);
		CU_ASSERT_EQUAL(hi.violations + lo.violations, 0);
		hsaqm_ctx_destroy(ctx);
		t_bq_fini(&hi);
		t_bq_fini(&lo);
	}
}

static void test_hpf_equal_priorities_run_together(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq a, b, lo;

	t_bq_init(&a, HSAQM_LEVEL_3);
	t_bq_init(&b, HSAQM_LEVEL_3);
	t_bq_init(&lo, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &a, 0, 5, HSAQM_LEVEL_2);
	t_bq_attach(ctx, &b, 0, 5, HSAQM_LEVEL_2);
	t_bq_attach(ctx, &lo, 0, 1, HSAQM_LEVEL_2);
	t_bq_submit(&lo, 10);
	t_bq_submit(&a, 10);
	t_bq_submit(&b, 10);
	CU_ASSERT_EQUAL(t_state(a.xq), HSAQM_XQ_READY);
	CU_ASSERT_EQUAL(t_state(b.xq), HSAQM_XQ_READY);
	CU_ASSERT_FALSE(a.gate_closed || b.gate_closed);
	CU_ASSERT_EQUAL(a.released, 10);
	CU_ASSERT_EQUAL(b.released, 10);
	CU_ASSERT_TRUE(lo.gate_closed);
	/* One of the two finishing is not enough for the low one. */
	t_bq_run(&a, UINT64_MAX);
	CU_ASSERT_TRUE(lo.gate_closed);
	t_bq_run(&b, UINT64_MAX);
	CU_ASSERT_FALSE(lo.gate_closed);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&a);
	t_bq_fini(&b);
	t_bq_fini(&lo);
}

static void test_hpf_priority_change_while_running_decides_again(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq x, y;

	t_bq_init(&x, HSAQM_LEVEL_3);
	t_bq_init(&y, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &x, 0, 10, HSAQM_LEVEL_2);
	t_bq_attach(ctx, &y, 0, 0, HSAQM_LEVEL_3);
	t_bq_submit(&y, 10);
	t_bq_submit(&x, 10);
	CU_ASSERT_TRUE(y.suspended);
	CU_ASSERT_EQUAL(hsaqm_xq_set_priority(y.xq, 20), 0);
	CU_ASSERT_FALSE(y.suspended);
	CU_ASSERT_TRUE(x.gate_closed);
	CU_ASSERT_EQUAL(t_state(x.xq), HSAQM_XQ_PREEMPTED);
	CU_ASSERT_EQUAL(hsaqm_xq_set_priority(y.xq, 10), 0); /* equal: both run */
	CU_ASSERT_FALSE(x.gate_closed || y.suspended);
	CU_ASSERT_EQUAL(hsaqm_xq_set_priority(x.xq, -5), 0);
	CU_ASSERT_TRUE(x.gate_closed);
	struct t_bq *all[] = { &x, &y };
	t_bq_run_all(all, 2);
	CU_ASSERT_EQUAL(x.ran + y.ran, 20);
	CU_ASSERT_EQUAL(x.violations + y.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&x);
	t_bq_fini(&y);
}

static void test_idle_low_queue_submission_is_held_while_high_runs(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq hi, lo;

	t_bq_init(&hi, HSAQM_LEVEL_3);
	t_bq_init(&lo, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &hi, 0, 10, HSAQM_LEVEL_2);
	t_bq_attach(ctx, &lo, 0, 0, HSAQM_LEVEL_2);
	t_bq_submit(&hi, 5);
	t_bq_submit(&lo, 5);
	CU_ASSERT_EQUAL(lo.released, 0);
	CU_ASSERT_EQUAL(lo.n_gate_close, 0); /* nothing in flight: nothing to close */
	CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_PREEMPTED);
	t_bq_run(&hi, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.released, 5);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&hi);
	t_bq_fini(&lo);
}

static void test_hand_suspend_holds_and_does_not_compete(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq hi, lo;
	struct hsaqm_xq_info info;

	t_bq_init(&hi, HSAQM_LEVEL_3);
	t_bq_init(&lo, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &hi, 0, 10, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &lo, 0, 0, HSAQM_LEVEL_2);
	t_bq_submit(&lo, 10);
	t_bq_submit(&hi, 10);
	CU_ASSERT_TRUE(lo.gate_closed);
	/* Holding the high queue by hand lets the low one run: a held queue does not compete. */
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(hi.xq), 0);
	CU_ASSERT_TRUE(hi.suspended);
	CU_ASSERT_FALSE(lo.gate_closed);
	CU_ASSERT_EQUAL(hsaqm_xq_get_info(hi.xq, &info), 0);
	CU_ASSERT_TRUE(info.held_by_hand);
	CU_ASSERT_EQUAL(info.state, HSAQM_XQ_PREEMPTED);
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(hi.xq), 0); /* not counted */
	/* Hand holds override the policy: an idle queue held by hand keeps its submissions. */
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(lo.xq), 0);
	t_bq_run(&lo, UINT64_MAX);
	uint64_t before = lo.released;
	t_bq_submit(&lo, 3);
	CU_ASSERT_EQUAL(lo.released, before);
	CU_ASSERT_EQUAL(hsaqm_xq_resume(lo.xq), 0);
	CU_ASSERT_EQUAL(lo.released, before + 3);
	/* Resuming the high queue puts it back on top. */
	CU_ASSERT_EQUAL(hsaqm_xq_resume(hi.xq), 0);
	CU_ASSERT_FALSE(hi.suspended);
	CU_ASSERT_EQUAL(hsaqm_xq_resume(hi.xq), 0); /* harmless again */
	CU_ASSERT_TRUE(lo.gate_closed);
	struct t_bq *all[] = { &hi, &lo };
	t_bq_run_all(all, 2);
	CU_ASSERT_EQUAL(hi.ran + lo.ran, 23);
	CU_ASSERT_EQUAL(hi.violations + lo.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&hi);
	t_bq_fini(&lo);
}

static void test_policy_none_never_preempts(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct hsaqm_policy_config pol = { .kind = HSAQM_POLICY_NONE }, got;
	struct t_bq hi, lo;

	t_bq_init(&hi, HSAQM_LEVEL_3);
	t_bq_init(&lo, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &hi, 3, 10, HSAQM_LEVEL_2);
	t_bq_attach(ctx, &lo, 3, 0, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(hsaqm_ctx_set_policy(ctx, 3, &pol), 0);
	CU_ASSERT_EQUAL(hsaqm_ctx_get_policy(ctx, 3, &got), 0);
	CU_ASSERT_EQUAL(got.kind, HSAQM_POLICY_NONE);
	CU_ASSERT_EQUAL(hsaqm_ctx_get_policy(ctx, 99, &got), 0);
	CU_ASSERT_EQUAL(got.kind, HSAQM_POLICY_HPF); /* the default */
	t_bq_submit(&lo, 10);
	t_bq_submit(&hi, 10);
	CU_ASSERT_FALSE(lo.gate_closed);
	CU_ASSERT_EQUAL(lo.released, 10);
	/* Back to HPF: decided again at once. */
	pol.kind = HSAQM_POLICY_HPF;
	CU_ASSERT_EQUAL(hsaqm_ctx_set_policy(ctx, 3, &pol), 0);
	CU_ASSERT_TRUE(lo.gate_closed);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&hi);
	t_bq_fini(&lo);
}

static const struct t_case cases[] = {
	T_CASE(test_hpf_high_submission_preempts_lower_on_its_device_only),
	T_CASE(test_hpf_lower_resumes_exactly_when_higher_goes_idle),
	T_CASE(test_hpf_equal_priorities_run_together),
	T_CASE(test_hpf_priority_change_while_running_decides_again),
	T_CASE(test_idle_low_queue_submission_is_held_while_high_runs),
	T_CASE(test_hand_suspend_holds_and_does_not_compete),
	T_CASE(test_policy_none_never_preempts),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "lib-sched-hpf", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-lib-sched-hpf", suites);
}
