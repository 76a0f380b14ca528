/* SPDX-License-Identifier: MIT */
/*
 * The preemption engine on the test backend, level by level: the Lv1 bound (in flight never
 * above the threshold, a marker after every batch and after a short tail), Lv2 guardians every
 * interval and a closed gate stopping within one, Lv3 suspension through the backend and its
 * fallback to Lv2 with a reason, an effective level below the requested one saying why, and an
 * xqueue well under 8 KiB.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hsaqm-common/log.h"
#include "t_backend.h"
#include "t_cunit.h"
#include "xq_internal.h"
#include "t_engine.h"

static unsigned int seed = 12345;

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)rand_r(&seed) % n;
}

/* -- Lv1 ------------------------------------------------------------------------------- */

static void test_lv1_in_flight_never_exceeds_threshold_and_everything_runs(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq bq;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_1, .lv1_threshold = 16, .lv1_batch = 8 };

	t_bq_init(&bq, HSAQM_LEVEL_3);
	bq.lv1_bound = 16;
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &bq, &bq.xq), 0);
	for (int round = 0; round < 300; round++) {
		CU_ASSERT_EQUAL(t_bq_submit(&bq, 1 + rnd(9)), 0);
		CU_ASSERT(bq.released - bq.covered_done <= 16);
		t_bq_run(&bq, rnd(12));
	}
	while (bq.ran < bq.submitted) {
		uint64_t before = bq.ran;

		t_bq_run(&bq, UINT64_MAX);
		CU_ASSERT_FATAL(bq.ran > before); /* never stuck with packets held */
	}
	struct hsaqm_xq_info info = t_xq_info(bq.xq);
	CU_ASSERT_EQUAL(info.released, bq.submitted);
	CU_ASSERT_EQUAL(info.completed, bq.submitted);
	CU_ASSERT_EQUAL(info.state, HSAQM_XQ_IDLE);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_1);
	CU_ASSERT_EQUAL(bq.violations, 0);
	CU_ASSERT_EQUAL(bq.guards, 0); /* Lv1 writes no guardians */
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

static void test_lv1_marker_after_every_batch(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq bq;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_1, .lv1_threshold = 16, .lv1_batch = 8 };

	t_bq_init(&bq, HSAQM_LEVEL_1);
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &bq, &bq.xq), 0);
	t_bq_submit(&bq, 40);
	/* 16 out (the threshold), a marker after each 8. */
	CU_ASSERT_EQUAL(bq.released, 16);
	CU_ASSERT_EQUAL(bq.markers, 2);
	CU_ASSERT_EQUAL(bq.ring[8].kind, T_MARKER);
	CU_ASSERT_EQUAL(bq.ring[8].cover, 8);
	CU_ASSERT_EQUAL(bq.ring[17].kind, T_MARKER);
	/* Run 8: the first marker completes and 8 more go out. */
	t_bq_run(&bq, 8);
	CU_ASSERT_EQUAL(bq.released, 24);
	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(bq.ran, 40);
	CU_ASSERT_EQUAL(t_xq_stats(bq.xq).markers, 5);
	CU_ASSERT_EQUAL(t_state(bq.xq), HSAQM_XQ_IDLE);
	CU_ASSERT_EQUAL(bq.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

static void test_lv1_tail_smaller_than_a_batch_is_marked(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq bq;

	t_bq_init(&bq, HSAQM_LEVEL_1);
	t_bq_attach(ctx, &bq, 0, 0, HSAQM_LEVEL_1);
	t_bq_submit(&bq, 3);
	CU_ASSERT_EQUAL(bq.released, 3);
	CU_ASSERT_EQUAL(bq.markers, 1); /* otherwise idleness would never be seen */
	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(t_state(bq.xq), HSAQM_XQ_IDLE);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

/* -- Lv2 ------------------------------------------------------------------------------- */

static void test_lv2_guardians_every_interval_across_doorbells(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq bq;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .lv2_interval = 4 };

	t_bq_init(&bq, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &bq, &bq.xq), 0);
	t_bq_submit(&bq, 10);
	CU_ASSERT(bq.last_flags & HSAQM_RELEASE_GUARDED);
	CU_ASSERT_EQUAL(bq.last_interval, 4);
	CU_ASSERT_EQUAL(bq.guards, 3); /* before packets 0, 4, 8 */
	/* One packet per doorbell: still one guardian per 4 packets (12 is next). */
	for (int i = 0; i < 5; i++)
		t_bq_submit(&bq, 1);
	CU_ASSERT_EQUAL(bq.guards, 4);
	CU_ASSERT_EQUAL(t_xq_stats(bq.xq).guardians, bq.guards);
	/* Every guardian sits right before a kernel whose index is a multiple of 4. */
	for (uint64_t i = 0; i + 1 < bq.tail; i++)
		if (bq.ring[i].kind == T_GUARD)
			CU_ASSERT(bq.ring[i + 1].kind == T_KERNEL && bq.ring[i + 1].val % 4 == 0);
	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(bq.ran, 15);
	CU_ASSERT_EQUAL(t_state(bq.xq), HSAQM_XQ_IDLE);
	CU_ASSERT_EQUAL(bq.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

static void test_lv2_closed_gate_stops_within_interval(void)
{
	for (uint32_t interval = 1; interval <= 4; interval++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct t_bq lo, hi;

		t_preempt_setup(ctx, &lo, &hi, HSAQM_LEVEL_2, interval);
		CU_ASSERT_TRUE(lo.gate_closed);
		CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_PREEMPTED);
		t_bq_run(&lo, UINT64_MAX);
		CU_ASSERT(lo.ran_after_close <= interval);
		CU_ASSERT(lo.ran < 20);
		/* The high queue finishes: the gate opens and the rest runs; nothing was lost. */
		t_bq_run(&hi, UINT64_MAX);
		CU_ASSERT_FALSE(lo.gate_closed);
		t_bq_run(&lo, UINT64_MAX);
		CU_ASSERT_EQUAL(lo.ran, 20);
		CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_IDLE);
		CU_ASSERT_EQUAL(lo.violations + hi.violations, 0);
		hsaqm_ctx_destroy(ctx);
		t_bq_fini(&lo);
		t_bq_fini(&hi);
	}
}

/* -- Lv3 ------------------------------------------------------------------------------- */

static void test_lv3_suspends_and_resumes_through_backend(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;

	t_preempt_setup(ctx, &lo, &hi, HSAQM_LEVEL_3, 1);
	CU_ASSERT_TRUE(lo.suspended);
	CU_ASSERT_FALSE(lo.gate_closed);
	CU_ASSERT_EQUAL(t_bq_run(&lo, UINT64_MAX), 0); /* suspended: nothing runs */
	t_bq_run(&hi, UINT64_MAX);
	CU_ASSERT_FALSE(lo.suspended);
	CU_ASSERT_EQUAL(lo.n_resume, 1);
	/* Proven: later releases carry no guardians. */
	uint64_t guards = lo.guards;
	t_bq_submit(&lo, 5);
	CU_ASSERT_EQUAL(lo.guards, guards);
	t_bq_run(&lo, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.ran, 25);
	struct hsaqm_xq_info info = t_xq_info(lo.xq);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_3);
	CU_ASSERT_STRING_EQUAL(info.level_reason, "");
	CU_ASSERT_EQUAL(lo.violations + hi.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
}

static void test_lv3_refused_suspend_falls_back_to_lv2_with_reason(void)
{
	static const struct {
		int err;
		const char *name;
	} errs[] = { { -EPERM, "EPERM" }, { -EALREADY, "EALREADY" }, { -EOPNOTSUPP, "EOPNOTSUPP" } };

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_3 };
		struct t_bq lo, hi;

		t_bq_init(&lo, HSAQM_LEVEL_3);
		t_bq_init(&hi, HSAQM_LEVEL_3);
		lo.suspend_err = errs[i].err;
		CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &lo, &lo.xq), 0);
		cfg.priority = 10;
		CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &hi, &hi.xq), 0);
		t_bq_submit(&lo, 20);
		/* Until Lv3 is proven its releases are guarded, so the fallback works at once. */
		CU_ASSERT(lo.last_flags & HSAQM_RELEASE_GUARDED);
		t_bq_submit(&hi, 1);

		struct hsaqm_xq_info info = t_xq_info(lo.xq);
		struct hsaqm_xq_stats st = t_xq_stats(lo.xq);
		CU_ASSERT_EQUAL(info.requested_level, HSAQM_LEVEL_3);
		CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_2);
		CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, errs[i].name));
		CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, "Lv2"));
		CU_ASSERT_EQUAL(st.effective_level, HSAQM_LEVEL_2);
		CU_ASSERT_EQUAL(st.requested_level, HSAQM_LEVEL_3);
		CU_ASSERT_FALSE(info.failed_open);
		CU_ASSERT_TRUE(lo.gate_closed);
		CU_ASSERT_EQUAL(info.state, HSAQM_XQ_PREEMPTED);
		t_bq_run(&lo, UINT64_MAX);
		CU_ASSERT(lo.ran <= 1);

		/* The reason reaches the JSON export too. */
		char *json = NULL;
		CU_ASSERT_EQUAL(hsaqm_ctx_stats_json(ctx, &json), 0);
		CU_ASSERT_PTR_NOT_NULL(json && strstr(json, errs[i].name));
		free(json);

		t_bq_run(&hi, UINT64_MAX);
		t_bq_run(&lo, UINT64_MAX);
		CU_ASSERT_EQUAL(lo.ran, 20);
		CU_ASSERT_EQUAL(lo.violations + hi.violations, 0);
		hsaqm_ctx_destroy(ctx);
		t_bq_fini(&lo);
		t_bq_fini(&hi);
	}
}

static void test_effective_level_below_requested_says_why(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq bq, nogate;
	struct hsaqm_backend_ops ops = t_backend_ops;

	t_bq_init(&bq, HSAQM_LEVEL_1);
	snprintf(bq.max_why, sizeof(bq.max_why), "no CWSR on this device");
	t_bq_attach(ctx, &bq, 0, 0, HSAQM_LEVEL_3);
	struct hsaqm_xq_info info = t_xq_info(bq.xq);
	CU_ASSERT_EQUAL(info.requested_level, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_1);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, "no CWSR on this device"));
	CU_ASSERT_EQUAL(t_xq_stats(bq.xq).effective_level, HSAQM_LEVEL_1);

	/* A backend without gate operations cannot do Lv2 whatever it claims. */
	ops.gate_close = NULL;
	ops.gate_open = NULL;
	t_bq_init(&nogate, HSAQM_LEVEL_3);
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2 };
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &ops, &nogate, &nogate.xq), 0);
	info = t_xq_info(nogate.xq);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_1);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, "gate"));

	/* Asking for no more than allowed: no reason. */
	CU_ASSERT_EQUAL(hsaqm_xq_set_level(bq.xq, HSAQM_LEVEL_1), 0);
	info = t_xq_info(bq.xq);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_1);
	CU_ASSERT_STRING_EQUAL(info.level_reason, "");
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
	t_bq_fini(&nogate);
}

static void test_xq_memory_is_well_under_8_kib(void)
{
	printf("sizeof(struct hsaqm_xq) = %zu bytes\n", hsaqm_xq_sizeof());
	CU_ASSERT(hsaqm_xq_sizeof() < 8192);
}

static const struct t_case cases[] = {
	T_CASE(test_lv1_in_flight_never_exceeds_threshold_and_everything_runs),
	T_CASE(test_lv1_marker_after_every_batch),
	T_CASE(test_lv1_tail_smaller_than_a_batch_is_marked),
	T_CASE(test_lv2_guardians_every_interval_across_doorbells),
	T_CASE(test_lv2_closed_gate_stops_within_interval),
	T_CASE(test_lv3_suspends_and_resumes_through_backend),
	T_CASE(test_lv3_refused_suspend_falls_back_to_lv2_with_reason),
	T_CASE(test_effective_level_below_requested_says_why),
	T_CASE(test_xq_memory_is_well_under_8_kib),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "lib-engine-levels", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-lib-engine-levels", suites);
}
