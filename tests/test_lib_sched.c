/* SPDX-License-Identifier: MIT */
/*
 * The scheduler on the test backend: HPF preempts lower queues on the same device only,
 * resumes them exactly when the higher ones go idle, re-decides on priority changes and
 * hand holds; the starvation floor and UTIL shares hold on a manual clock.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "t_backend.h"
#include "t_cunit.h"
#include "xq_internal.h"

#define US 1000ull
#define MS 1000000ull

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
	next = t_clock_set(ctx, t0 + 5 * MS);
	CU_ASSERT_EQUAL(next, t0 + 10 * MS);
	CU_ASSERT_TRUE(lo.gate_closed);
	next = t_clock_set(ctx, t0 + 10 * MS);
	CU_ASSERT_FALSE(lo.gate_closed); /* its slice */
	CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_READY);
	CU_ASSERT_EQUAL(t_state(hi.xq), HSAQM_XQ_READY); /* the high one is not stopped */
	CU_ASSERT_EQUAL(next, t0 + 12 * MS);
	next = t_clock_set(ctx, t0 + 12 * MS);
	CU_ASSERT_TRUE(lo.gate_closed);
	CU_ASSERT_EQUAL(next, t0 + 20 * MS); /* a slice every period */
	/* Preempted from t0 to t0+10 and from t0+12 to t0+20, when the next slice opens. */
	t_clock_set(ctx, t0 + 20 * MS);
	CU_ASSERT_FALSE(lo.gate_closed);
	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(lo.xq, &st), 0);
	CU_ASSERT_EQUAL(st.preemptions, 2);
	CU_ASSERT_EQUAL(st.preempted_ns, 18 * MS);
	/* A second of slices. */
	uint64_t open_ns = 0, now = t0 + 20 * MS;
	while (now < t0 + 1020 * MS) {
		bool open = !lo.gate_closed;

		now += 100 * US;
		t_clock_set(ctx, now);
		if (open)
			open_ns += 100 * US;
	}
	CU_ASSERT(open_ns >= 198 * MS && open_ns <= 202 * MS);
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
	for (now = t0; now < t0 + 1000 * MS; now += 100 * US) {
		bool ra = t_state(a.xq) == HSAQM_XQ_READY, rb = t_state(b.xq) == HSAQM_XQ_READY;

		run_a += ra ? 100 * US : 0;
		run_b += rb ? 100 * US : 0;
		both += ra && rb;
		/* A queue that may run has its gate open. */
		CU_ASSERT_FATAL(!(ra && a.gate_closed) && !(rb && b.gate_closed));
		t_clock_set(ctx, now + 100 * US);
	}
	CU_ASSERT_DOUBLE_EQUAL((double)run_a / (1000 * MS), 0.7, 0.02);
	CU_ASSERT_DOUBLE_EQUAL((double)run_b / (1000 * MS), 0.3, 0.02);
	CU_ASSERT_EQUAL(both, 0);
	/* One goes idle: the other gets the whole device. */
	t_bq_run(&b, UINT64_MAX); /* b runs only in its slices; drain until idle */
	while (t_state(b.xq) != HSAQM_XQ_IDLE) {
		now += 100 * US;
		t_clock_set(ctx, now);
		t_bq_run(&b, UINT64_MAX);
	}
	CU_ASSERT_EQUAL(t_state(a.xq), HSAQM_XQ_READY);
	CU_ASSERT_EQUAL(t_clock_set(ctx, now + 50 * MS), HSAQM_NO_DEADLINE);
	CU_ASSERT_EQUAL(t_state(a.xq), HSAQM_XQ_READY);
	/* Shares can change while running. */
	CU_ASSERT_EQUAL(hsaqm_xq_set_share(b.xq, 0, 500), 0);
	CU_ASSERT_EQUAL(a.violations + b.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&a);
	t_bq_fini(&b);
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

static int count_queues(struct hsaqm_xq *xq, void *arg)
{
	struct hsaqm_xq_info info;

	/* Reading and setting from inside the iteration works. */
	if (hsaqm_xq_get_info(xq, &info) || hsaqm_xq_set_priority(xq, info.priority))
		return -1;
	(*(int *)arg)++;
	return 0;
}

static void test_foreach_visits_every_queue_of_every_device(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq q[5];
	int n = 0;

	for (int i = 0; i < 5; i++) {
		t_bq_init(&q[i], HSAQM_LEVEL_3);
		t_bq_attach(ctx, &q[i], i % 2, i, HSAQM_LEVEL_2);
	}
	CU_ASSERT_EQUAL(hsaqm_ctx_foreach_xq(ctx, count_queues, &n), 0);
	CU_ASSERT_EQUAL(n, 5);
	hsaqm_ctx_destroy(ctx);
	for (int i = 0; i < 5; i++)
		t_bq_fini(&q[i]);
}

/* The idle hook: what the hook saw, and a queue to ask about from inside it. */
static struct {
	int calls;
	struct hsaqm_xq *xq;
	enum hsaqm_xq_state seen;
} idle_rec;

static void record_idle(void *arg)
{
	struct hsaqm_xq_info info;

	idle_rec.calls += arg == &idle_rec;
	/* Called outside lib's locks: asking lib from here must not deadlock. */
	if (hsaqm_xq_get_info(idle_rec.xq, &info) == 0)
		idle_rec.seen = info.state;
}

static void test_idle_hook_fires_once_each_time_a_queue_completes_everything(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq bq;
	int x;

	t_bq_init(&bq, HSAQM_LEVEL_3);
	memset(&idle_rec, 0, sizeof(idle_rec));
	idle_rec.xq = t_bq_attach(ctx, &bq, 0, 0, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(hsaqm_ctx_set_idle_hook(ctx, record_idle, &idle_rec), 0);
	CU_ASSERT_EQUAL(hsaqm_ctx_set_idle_hook(ctx, record_idle, NULL), -EBUSY);
	CU_ASSERT_EQUAL(hsaqm_ctx_set_idle_hook(ctx, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ctx_set_idle_hook((struct hsaqm_ctx *)&x, record_idle, NULL), -EINVAL);
	t_bq_submit(&bq, 4);
	t_bq_submit(&bq, 4);
	/* The first batch's marker: work is left, no call. */
	t_bq_run(&bq, 4);
	CU_ASSERT_EQUAL(idle_rec.calls, 0);
	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(idle_rec.calls, 1);
	CU_ASSERT_EQUAL(idle_rec.seen, HSAQM_XQ_IDLE);
	/* Idle again after more work: once more, and nothing while already idle. */
	t_bq_submit(&bq, 3);
	t_bq_run(&bq, UINT64_MAX);
	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(idle_rec.calls, 2);
	CU_ASSERT_EQUAL(bq.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

static const struct t_case sched_cases[] = {
	T_CASE(test_hpf_high_submission_preempts_lower_on_its_device_only),
	T_CASE(test_hpf_lower_resumes_exactly_when_higher_goes_idle),
	T_CASE(test_hpf_equal_priorities_run_together),
	T_CASE(test_hpf_priority_change_while_running_decides_again),
	T_CASE(test_idle_low_queue_submission_is_held_while_high_runs),
	T_CASE(test_hand_suspend_holds_and_does_not_compete),
	T_CASE(test_floor_gives_preempted_queue_slices_on_manual_clock),
	T_CASE(test_util_shares_enforced_over_periods_on_manual_clock),
	T_CASE(test_policy_none_never_preempts),
	T_CASE(test_foreach_visits_every_queue_of_every_device),
	T_CASE(test_idle_hook_fires_once_each_time_a_queue_completes_everything),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "lib-sched", NULL, NULL, sched_cases },
		T_SUITES_END,
	};
	return t_run("test-lib-sched", suites);
}
