/* SPDX-License-Identifier: MIT */
/*
 * The preemption engine on the test backend: Lv1 bound, Lv2 guardians, Lv3 suspension and
 * its fallback, effective levels, -EAGAIN, fail-open, detach/destroy letting go, bad input;
 * spatial (static, dynamic, auto after an Lv3 fallback) and the Lv3 mechanism in the stats.
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

static struct hsaqm_xq_info info_of(struct hsaqm_xq *xq)
{
	struct hsaqm_xq_info info;

	CU_ASSERT_EQUAL(hsaqm_xq_get_info(xq, &info), 0);
	return info;
}

static struct hsaqm_xq_stats stats_of(struct hsaqm_xq *xq)
{
	struct hsaqm_xq_stats st;

	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(xq, &st), 0);
	return st;
}

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
	struct hsaqm_xq_info info = info_of(bq.xq);
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
	CU_ASSERT_EQUAL(stats_of(bq.xq).markers, 5);
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
	CU_ASSERT_EQUAL(stats_of(bq.xq).guardians, bq.guards);
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

/* A busy low queue at @level and a high one; returns after the high queue submitted. */
static void preempt_setup(struct hsaqm_ctx *ctx, struct t_bq *lo, struct t_bq *hi, int level,
			  uint32_t interval)
{
	struct hsaqm_xq_config cfg = { .level = level, .lv2_interval = interval };

	t_bq_init(lo, HSAQM_LEVEL_3);
	t_bq_init(hi, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, lo, &lo->xq), 0);
	cfg.priority = 10;
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, hi, &hi->xq), 0);
	t_bq_submit(lo, 20);
	t_bq_run(lo, 1);
	t_bq_submit(hi, 2);
}

static void test_lv2_closed_gate_stops_within_interval(void)
{
	for (uint32_t interval = 1; interval <= 4; interval++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct t_bq lo, hi;

		preempt_setup(ctx, &lo, &hi, HSAQM_LEVEL_2, interval);
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

	preempt_setup(ctx, &lo, &hi, HSAQM_LEVEL_3, 1);
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
	struct hsaqm_xq_info info = info_of(lo.xq);
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

		struct hsaqm_xq_info info = info_of(lo.xq);
		struct hsaqm_xq_stats st = stats_of(lo.xq);
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
	struct hsaqm_xq_info info = info_of(bq.xq);
	CU_ASSERT_EQUAL(info.requested_level, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_1);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, "no CWSR on this device"));
	CU_ASSERT_EQUAL(stats_of(bq.xq).effective_level, HSAQM_LEVEL_1);

	/* A backend without gate operations cannot do Lv2 whatever it claims. */
	ops.gate_close = NULL;
	ops.gate_open = NULL;
	t_bq_init(&nogate, HSAQM_LEVEL_3);
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2 };
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &ops, &nogate, &nogate.xq), 0);
	info = info_of(nogate.xq);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_1);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, "gate"));

	/* Asking for no more than allowed: no reason. */
	CU_ASSERT_EQUAL(hsaqm_xq_set_level(bq.xq, HSAQM_LEVEL_1), 0);
	info = info_of(bq.xq);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_1);
	CU_ASSERT_STRING_EQUAL(info.level_reason, "");
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
	t_bq_fini(&nogate);
}

/* -- -EAGAIN --------------------------------------------------------------------------- */

static void test_eagain_keeps_packets_held_until_next_marker(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq bq;

	t_bq_init(&bq, HSAQM_LEVEL_3);
	bq.ring_cap = 8;
	t_bq_attach(ctx, &bq, 0, 0, HSAQM_LEVEL_NONE);
	t_bq_submit(&bq, 6); /* 6 + a marker: 7 entries */
	CU_ASSERT_EQUAL(bq.released, 6);
	t_bq_submit(&bq, 4); /* only 1 fits */
	CU_ASSERT(bq.n_eagain > 0);
	CU_ASSERT_EQUAL(bq.released, 7);
	CU_ASSERT_EQUAL(info_of(bq.xq).submitted - info_of(bq.xq).released, 3);
	/* The marker completes: the rest goes out with a new one. */
	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(bq.released, 10);
	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(bq.ran, 10);
	CU_ASSERT_EQUAL(t_state(bq.xq), HSAQM_XQ_IDLE);
	CU_ASSERT_FALSE(info_of(bq.xq).failed_open); /* -EAGAIN is not a failure */
	CU_ASSERT_EQUAL(bq.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

static void test_eagain_without_marker_outstanding_retries_on_timer(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq bq;
	uint64_t t0 = t_clock_ns, next;

	t_bq_init(&bq, HSAQM_LEVEL_3);
	bq.eagain_next = 1000;
	t_bq_attach(ctx, &bq, 0, 0, HSAQM_LEVEL_2);
	t_bq_submit(&bq, 5);
	CU_ASSERT_EQUAL(bq.released, 0);
	next = t_clock_set(ctx, t0);
	CU_ASSERT_EQUAL(next, t0 + HSAQM_RETRY_NS); /* a retry is planned */
	bq.eagain_next = 0;
	t_clock_set(ctx, t0 + HSAQM_RETRY_NS);
	CU_ASSERT_EQUAL(bq.released, 5);
	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(t_state(bq.xq), HSAQM_XQ_IDLE);
	CU_ASSERT_EQUAL(bq.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

/* -- fail open ------------------------------------------------------------------------- */

static char *log_buf;
static size_t log_len;

static FILE *capture_start(void)
{
	FILE *f = open_memstream(&log_buf, &log_len);

	hsaqm_log_set_sink(f);
	return f;
}

static void capture_end(FILE *f)
{
	hsaqm_log_set_sink(NULL);
	fclose(f);
}

static void test_fail_open_on_unexpected_gate_error_runs_unscheduled(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;
	FILE *f = capture_start();
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .name = "victim" };

	t_bq_init(&lo, HSAQM_LEVEL_3);
	t_bq_init(&hi, HSAQM_LEVEL_3);
	lo.gate_close_err = -EIO;
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &lo, &lo.xq), 0);
	t_bq_attach(ctx, &hi, 0, 10, HSAQM_LEVEL_2);
	t_bq_submit(&lo, 10);
	t_bq_submit(&hi, 1);
	t_bq_submit(&lo, 5); /* a failed-open queue is never held */
	capture_end(f);

	struct hsaqm_xq_info info = info_of(lo.xq);
	CU_ASSERT_TRUE(info.failed_open);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_NONE);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, "gate_close"));
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, "EIO"));
	CU_ASSERT_EQUAL(info.state, HSAQM_XQ_READY);
	CU_ASSERT_EQUAL(lo.released, 15);
	/* One line, shown although logging is off. */
	CU_ASSERT_PTR_NOT_NULL(strstr(log_buf, "victim"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log_buf, "fail-open"));
	CU_ASSERT_PTR_NULL(strstr(strstr(log_buf, "fail-open") + 1, "fail-open"));
	/* And a queue that runs unscheduled cannot be held by hand. */
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(lo.xq), -EOPNOTSUPP);
	t_bq_run(&lo, UINT64_MAX);
	t_bq_run(&hi, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.ran, 15);
	CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_IDLE);
	free(log_buf);
	log_buf = NULL;
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
}

static void test_fail_open_on_resume_error_leaves_nothing_held(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;
	FILE *f = capture_start();

	preempt_setup(ctx, &lo, &hi, HSAQM_LEVEL_3, 1);
	CU_ASSERT_TRUE(lo.suspended);
	t_bq_submit(&lo, 3); /* held */
	lo.resume_err = -EIO;
	t_bq_run(&hi, UINT64_MAX); /* high idle: resume fails */
	capture_end(f);
	struct hsaqm_xq_info info = info_of(lo.xq);
	CU_ASSERT_TRUE(info.failed_open);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, "resume"));
	CU_ASSERT_EQUAL(lo.released, 23); /* everything held went out */
	CU_ASSERT_PTR_NOT_NULL(strstr(log_buf, "fail-open"));
	free(log_buf);
	log_buf = NULL;
	lo.resume_err = 0;
	lo.suspended = false; /* the test backend's resume failed; a real queue would be stuck */
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
}

static void test_fail_open_on_release_error_and_recovers_when_backend_does(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq bq;
	FILE *f = capture_start();

	t_bq_init(&bq, HSAQM_LEVEL_3);
	bq.release_err = -ENODEV;
	t_bq_attach(ctx, &bq, 0, 0, HSAQM_LEVEL_2);
	t_bq_submit(&bq, 4);
	capture_end(f);
	CU_ASSERT_TRUE(info_of(bq.xq).failed_open);
	CU_ASSERT_EQUAL(bq.released, 0);
	bq.release_err = 0;
	t_bq_submit(&bq, 1);
	CU_ASSERT_EQUAL(bq.released, 5);
	CU_ASSERT_EQUAL(bq.guards, 0); /* pass-through from now on */
	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(t_state(bq.xq), HSAQM_XQ_IDLE);
	free(log_buf);
	log_buf = NULL;
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

/* -- detach / destroy ------------------------------------------------------------------ */

static void test_detach_while_preempted_lets_go_at_each_level(void)
{
	for (int level = HSAQM_LEVEL_1; level <= HSAQM_LEVEL_3; level++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct t_bq lo, hi;

		preempt_setup(ctx, &lo, &hi, level, 1);
		t_bq_submit(&lo, 7); /* held while preempted */
		CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_PREEMPTED);
		CU_ASSERT(lo.released < lo.submitted);
		CU_ASSERT_EQUAL(hsaqm_xq_detach(lo.xq), 0);
		CU_ASSERT_TRUE(lo.detached); /* t_detached() checked: gate open, resumed */
		CU_ASSERT_FALSE(lo.gate_closed);
		CU_ASSERT_FALSE(lo.suspended);
		CU_ASSERT_EQUAL(lo.released, lo.submitted);
		t_bq_run(&lo, UINT64_MAX);
		CU_ASSERT_EQUAL(lo.ran, 27);
		CU_ASSERT_EQUAL(lo.violations + hi.violations, 0);
		hsaqm_ctx_destroy(ctx);
		t_bq_fini(&lo);
		t_bq_fini(&hi);
	}
}

static void test_detach_of_the_high_queue_resumes_the_low_one(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;

	preempt_setup(ctx, &lo, &hi, HSAQM_LEVEL_2, 1);
	CU_ASSERT_TRUE(lo.gate_closed);
	CU_ASSERT_EQUAL(hsaqm_xq_detach(hi.xq), 0);
	CU_ASSERT_FALSE(lo.gate_closed);
	CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_READY);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
}

static void test_destroy_while_preempted_and_held_lets_go_at_each_level(void)
{
	for (int level = HSAQM_LEVEL_1; level <= HSAQM_LEVEL_3; level++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct t_bq lo, hi, byhand;

		preempt_setup(ctx, &lo, &hi, level, 1);
		t_bq_submit(&lo, 7);
		t_bq_init(&byhand, HSAQM_LEVEL_3);
		t_bq_attach(ctx, &byhand, 1, 0, level);
		t_bq_submit(&byhand, 4);
		CU_ASSERT_EQUAL(hsaqm_xq_suspend(byhand.xq), 0);
		t_bq_submit(&byhand, 4);
		hsaqm_ctx_destroy(ctx);
		CU_ASSERT_TRUE(lo.detached && hi.detached && byhand.detached);
		CU_ASSERT_EQUAL(lo.released, lo.submitted);
		CU_ASSERT_EQUAL(byhand.released, byhand.submitted);
		CU_ASSERT_FALSE(lo.gate_closed || lo.suspended || byhand.gate_closed ||
				byhand.suspended);
		CU_ASSERT_EQUAL(lo.violations + hi.violations + byhand.violations, 0);
		t_bq_fini(&lo);
		t_bq_fini(&hi);
		t_bq_fini(&byhand);
	}
}

/* Decision 4: a process that exits with a suspended queue resumes it (atexit). */
static int exit_pipe[2];

static int exit_resume(void *p)
{
	(void)p;
	if (write(exit_pipe[1], "R", 1) != 1)
		return -EIO;
	return 0;
}

static void test_exit_resumes_suspended_queues(void)
{
	pid_t pid;
	char c = 0;
	int status;

	CU_ASSERT_EQUAL_FATAL(pipe(exit_pipe), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		/* Static: reachable at exit, so LeakSanitizer does not count them. */
		static struct hsaqm_backend_ops ops;
		static struct hsaqm_ctx *ctx;
		static struct t_bq lo, hi;

		ctx = t_ctx_manual();

		ops = t_backend_ops;
		ops.resume = exit_resume;
		close(exit_pipe[0]);
		t_bq_init(&lo, HSAQM_LEVEL_3);
		t_bq_init(&hi, HSAQM_LEVEL_3);
		struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_3 };
		if (hsaqm_xq_attach(ctx, &cfg, &ops, &lo, &lo.xq))
			_exit(2);
		t_bq_attach(ctx, &hi, 0, 10, HSAQM_LEVEL_3);
		t_bq_submit(&lo, 5);
		t_bq_submit(&hi, 1);
		if (!lo.suspended)
			_exit(3);
		exit(0); /* no destroy: the exit path must resume */
	}
	close(exit_pipe[1]);
	CU_ASSERT_EQUAL(read(exit_pipe[0], &c, 1), 1);
	CU_ASSERT_EQUAL(c, 'R');
	close(exit_pipe[0]);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* -- bad input ------------------------------------------------------------------------- */

static void test_bad_input_is_einval_everywhere(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct hsaqm_xq_config cfg = { 0 };
	struct hsaqm_policy_config pol = { .kind = HSAQM_POLICY_HPF };
	struct hsaqm_xq_info info;
	struct hsaqm_xq_stats st;
	struct hsaqm_backend_ops noops = { 0 };
	struct t_bq bq;
	struct hsaqm_xq *xq = NULL;
	/* Readable memory that is not a handle. */
	uint64_t fake_mem[64] = { 0 };
	struct hsaqm_xq *fake = (struct hsaqm_xq *)fake_mem;
	struct hsaqm_ctx *fake_ctx = (struct hsaqm_ctx *)fake_mem;
	char *json;

	t_bq_init(&bq, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL(hsaqm_ctx_create(NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_attach(NULL, &cfg, &t_backend_ops, &bq, &xq), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_attach(fake_ctx, &cfg, &t_backend_ops, &bq, &xq), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_attach(ctx, NULL, &t_backend_ops, &bq, &xq), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_attach(ctx, &cfg, NULL, &bq, &xq), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_attach(ctx, &cfg, &noops, &bq, &xq), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &bq, NULL), -EINVAL);
	cfg.priority = HSAQM_PRIORITY_MAX + 1;
	CU_ASSERT_EQUAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &bq, &xq), -EINVAL);
	cfg.priority = HSAQM_PRIORITY_MIN - 1;
	CU_ASSERT_EQUAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &bq, &xq), -EINVAL);
	cfg.priority = 0;
	cfg.level = (enum hsaqm_level)4;
	CU_ASSERT_EQUAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &bq, &xq), -EINVAL);
	cfg.level = (enum hsaqm_level)-1;
	CU_ASSERT_EQUAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &bq, &xq), -EINVAL);
	cfg.level = HSAQM_LEVEL_1;
	cfg.lv1_threshold = 4;
	cfg.lv1_batch = 5;
	CU_ASSERT_EQUAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &bq, &xq), -EINVAL);
	cfg.lv1_batch = 0;
	cfg.share_permille = 1001;
	CU_ASSERT_EQUAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &bq, &xq), -EINVAL);
	CU_ASSERT_PTR_NULL(xq);
	cfg.share_permille = 0;
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &bq, &xq), 0);
	bq.xq = xq;

	CU_ASSERT_EQUAL(hsaqm_xq_set_priority(NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_priority(fake, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_priority(xq, 101), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_priority(xq, -101), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_level(xq, (enum hsaqm_level)9), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_level(NULL, HSAQM_LEVEL_1), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_launch(xq, 4, 8, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_launch(xq, 0, 17, 0), -EINVAL); /* threshold stays 4 */
	CU_ASSERT_EQUAL(hsaqm_xq_set_launch(NULL, 0, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_share(xq, 0, 1001), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_share(NULL, 0, 1), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_resume(fake), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_get_info(xq, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_get_info(NULL, &info), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(xq, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(fake, &st), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_detach(fake), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_detach(NULL), 0);
	CU_ASSERT_EQUAL(hsaqm_xq_submitted(NULL, 1), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_marker_done(NULL, 1), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_marker_done(xq, 1), -EINVAL); /* never released */
	CU_ASSERT_EQUAL(hsaqm_xq_marker_done(xq, 0), -EINVAL);
	CU_ASSERT_EQUAL(t_bq_submit(&bq, 2), 0);
	CU_ASSERT_EQUAL(hsaqm_xq_submitted(xq, 1), -EINVAL); /* behind */
	CU_ASSERT_EQUAL(hsaqm_xq_submitted(xq, 2), 0);       /* same: no-op */

	pol.kind = (enum hsaqm_policy_kind)5;
	CU_ASSERT_EQUAL(hsaqm_ctx_set_policy(ctx, 0, &pol), -EINVAL);
	pol.kind = HSAQM_POLICY_HPF;
	pol.floor_period_us = 100;
	pol.floor_slice_us = 100;
	CU_ASSERT_EQUAL(hsaqm_ctx_set_policy(ctx, 0, &pol), -EINVAL);
	pol.floor_period_us = 0;
	CU_ASSERT_EQUAL(hsaqm_ctx_set_policy(ctx, 0, &pol), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ctx_set_policy(ctx, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ctx_set_policy(NULL, 0, &pol), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ctx_get_policy(ctx, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ctx_foreach_xq(ctx, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ctx_foreach_xq(fake_ctx, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ctx_stats_json(ctx, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ctx_stats_json(NULL, &json), -EINVAL);
	hsaqm_ctx_destroy(fake_ctx); /* refused, no crash */
	CU_ASSERT_STRING_EQUAL(hsaqm_level_name((enum hsaqm_level)7), "?");
	CU_ASSERT_STRING_EQUAL(hsaqm_policy_name(HSAQM_POLICY_UTIL), "util");
	CU_ASSERT_STRING_EQUAL(hsaqm_xq_state_name(HSAQM_XQ_PREEMPTED), "preempted");

	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(bq.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

static void test_bad_input_logs_what_was_wrong_under_hsaqm_log(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq bq;
	FILE *f;

	t_bq_init(&bq, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &bq, 0, 0, HSAQM_LEVEL_2);
	/* Silent by default. */
	f = capture_start();
	CU_ASSERT_EQUAL(hsaqm_xq_set_priority(bq.xq, 1000), -EINVAL);
	capture_end(f);
	CU_ASSERT_STRING_EQUAL(log_buf, "");
	free(log_buf);
	/* HSAQM_LOG=error: one line naming the value. */
	hsaqm_log_set_level(HSAQM_LOG_ERROR);
	f = capture_start();
	CU_ASSERT_EQUAL(hsaqm_xq_set_priority(bq.xq, 1000), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_level(bq.xq, (enum hsaqm_level)8), -EINVAL);
	capture_end(f);
	hsaqm_log_set_level(HSAQM_LOG_NONE);
	CU_ASSERT_PTR_NOT_NULL(strstr(log_buf, "priority 1000 is outside -100..100"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log_buf, "unknown level 8"));
	free(log_buf);
	log_buf = NULL;
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

static int detach_inside(struct hsaqm_xq *xq, void *arg)
{
	int *rc = arg;

	*rc = hsaqm_xq_detach(xq);
	return 1;
}

static void test_detach_inside_foreach_is_refused(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq bq;
	int rc = 0;

	t_bq_init(&bq, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &bq, 0, 0, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(hsaqm_ctx_foreach_xq(ctx, detach_inside, &rc), 1);
	CU_ASSERT_EQUAL(rc, -EDEADLK);
	CU_ASSERT_EQUAL(t_state(bq.xq), HSAQM_XQ_IDLE); /* still attached */
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

/* -- spatial and the Lv3 mechanism --------------------------------------------------------- */

/* A low and a high queue on the spatial test backend. */
static void spatial_pair(struct hsaqm_ctx *ctx, struct t_bq *lo, struct t_bq *hi,
			 enum hsaqm_level lo_level)
{
	struct hsaqm_xq_config cfg = { .level = lo_level };

	t_bq_init(lo, HSAQM_LEVEL_3);
	t_bq_init(hi, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops_spatial, lo, &lo->xq), 0);
	cfg.priority = 10;
	cfg.level = HSAQM_LEVEL_2;
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops_spatial, hi, &hi->xq), 0);
}

static void test_dynamic_spatial_confines_a_held_queue_and_gives_its_cus_back(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;

	spatial_pair(ctx, &lo, &hi, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_DYNAMIC, 250), 0);
	CU_ASSERT_EQUAL(lo.confined, 0); /* running alone: every CU */
	t_bq_submit(&lo, 4);
	t_bq_submit(&hi, 1);
	/* Held with work in flight: the kernel in flight leaves the reserve, the gate closes. */
	CU_ASSERT_EQUAL(lo.confined, 250);
	CU_ASSERT_TRUE(lo.gate_closed);
	struct hsaqm_xq_info info = info_of(lo.xq);
	CU_ASSERT_TRUE(info.confined);
	CU_ASSERT_EQUAL(info.spatial, HSAQM_SPATIAL_DYNAMIC);
	CU_ASSERT_EQUAL(info.cu_reserve_permille, 250);
	CU_ASSERT_EQUAL(info.mechanism, HSAQM_MECH_GATE);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.mechanism_reason, "spatial dynamic"));
	/* The high queue ends: the low one gets every CU back and runs everything. */
	t_bq_run(&hi, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.confined, 0);
	CU_ASSERT_FALSE(lo.gate_closed);
	t_bq_run(&lo, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.ran, 4);
	CU_ASSERT_EQUAL(stats_of(lo.xq).confinements, 1);
	/* An idle low queue held lazily is not confined: nothing of it runs to move. */
	t_bq_submit(&hi, 1);
	CU_ASSERT_EQUAL(lo.confined, 0);
	t_bq_run(&hi, UINT64_MAX);
	char *json = NULL;
	CU_ASSERT_EQUAL(hsaqm_ctx_stats_json(ctx, &json), 0);
	CU_ASSERT_PTR_NOT_NULL(json && strstr(json, "\"spatial\":\"dynamic\""));
	CU_ASSERT_PTR_NOT_NULL(json && strstr(json, "\"confinements\":1"));
	CU_ASSERT_PTR_NOT_NULL(json && strstr(json, "\"mechanism\":\"gate\""));
	free(json);
	CU_ASSERT_EQUAL(lo.violations + hi.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
}

static void test_static_spatial_confines_at_once_and_every_exit_gives_the_cus_back(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;

	spatial_pair(ctx, &lo, &hi, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_STATIC, 500), 0);
	CU_ASSERT_EQUAL(lo.confined, 500);
	t_bq_submit(&lo, 3);
	t_bq_run(&lo, UINT64_MAX); /* runs confined, never let out */
	CU_ASSERT_EQUAL(lo.confined, 500);
	CU_ASSERT_EQUAL(lo.ran, 3);
	/* Detach: the backend's detached() checks the queue has every CU back. */
	CU_ASSERT_EQUAL(hsaqm_xq_detach(lo.xq), 0);
	CU_ASSERT_EQUAL(lo.confined, 0);
	CU_ASSERT_TRUE(lo.detached);
	/* Context destroy while confined (static): the same. */
	struct t_bq other;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2 };
	t_bq_init(&other, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops_spatial, &other,
					      &other.xq), 0);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(other.xq, HSAQM_SPATIAL_STATIC, 100), 0);
	CU_ASSERT_EQUAL(other.confined, 100);
	hsaqm_ctx_destroy(ctx);
	CU_ASSERT_EQUAL(other.confined, 0);
	CU_ASSERT_EQUAL(lo.violations + hi.violations + other.violations, 0);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
	t_bq_fini(&other);
}

/* The fallback chain: Lv3 refused -> Lv2 with spatial (AUTO turns DYNAMIC), reason said. */
static void test_auto_spatial_joins_the_lv2_fallback_of_a_refused_lv3(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;

	spatial_pair(ctx, &lo, &hi, HSAQM_LEVEL_3);
	lo.suspend_err = -EPERM;
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_AUTO, 250), 0);
	t_bq_submit(&lo, 6);
	CU_ASSERT_EQUAL(lo.confined, 0); /* Lv3 in force: auto is off */
	t_bq_submit(&hi, 1);
	struct hsaqm_xq_info info = info_of(lo.xq);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(lo.confined, 250);
	CU_ASSERT_TRUE(lo.gate_closed);
	CU_ASSERT_EQUAL(info.mechanism, HSAQM_MECH_GATE);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.mechanism_reason, "EPERM"));
	CU_ASSERT_PTR_NOT_NULL(strstr(info.mechanism_reason, "spatial dynamic"));
	t_bq_run(&hi, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.confined, 0);
	t_bq_run(&lo, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.ran, 6);
	CU_ASSERT_EQUAL(lo.violations + hi.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
}

static void test_lv3_mechanism_and_its_reason_come_from_the_backend(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;

	spatial_pair(ctx, &lo, &hi, HSAQM_LEVEL_3);
	lo.mech = HSAQM_MECH_UPDATE_QUEUE;
	snprintf(lo.mech_why, sizeof(lo.mech_why), "UPDATE_QUEUE instead of DBG_TRAP: test");
	struct hsaqm_xq_info info = info_of(lo.xq);
	CU_ASSERT_EQUAL(info.mechanism, HSAQM_MECH_UPDATE_QUEUE);
	CU_ASSERT_STRING_EQUAL(info.mechanism_reason, lo.mech_why);
	CU_ASSERT_EQUAL(stats_of(lo.xq).mechanism, HSAQM_MECH_UPDATE_QUEUE);
	/* Lv3 is not also confined: the suspend stops the kernel outright. */
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_DYNAMIC, 250), 0);
	t_bq_submit(&lo, 2);
	t_bq_submit(&hi, 1);
	CU_ASSERT_TRUE(lo.suspended);
	CU_ASSERT_EQUAL(lo.confined, 0);
	CU_ASSERT_EQUAL(info_of(hi.xq).mechanism, HSAQM_MECH_GATE);
	CU_ASSERT_STRING_EQUAL(hsaqm_mechanism_name(HSAQM_MECH_UPDATE_QUEUE), "update_queue");
	CU_ASSERT_STRING_EQUAL(hsaqm_mechanism_name((enum hsaqm_mechanism)9), "?");
	CU_ASSERT_STRING_EQUAL(hsaqm_spatial_name(HSAQM_SPATIAL_AUTO), "auto");
	t_bq_run(&hi, UINT64_MAX);
	t_bq_run(&lo, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.ran, 2);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
}

static void test_refused_confinement_ends_spatial_and_bad_settings_are_refused(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi, plain;

	spatial_pair(ctx, &lo, &hi, HSAQM_LEVEL_2);
	lo.confine_err = -EBUSY; /* the debugger's CU workaround owns the mask */
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_DYNAMIC, 250), 0);
	t_bq_submit(&lo, 2);
	t_bq_submit(&hi, 1);
	CU_ASSERT_EQUAL(lo.confined, 0);
	CU_ASSERT_TRUE(lo.gate_closed); /* Lv2 still holds it */
	char *json = NULL;
	CU_ASSERT_EQUAL(hsaqm_ctx_stats_json(ctx, &json), 0);
	CU_ASSERT_PTR_NOT_NULL(json && strstr(json, "\"spatial_in_force\":\"off\""));
	free(json);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_DYNAMIC, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_DYNAMIC, 1000), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, (enum hsaqm_spatial)9, 250), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(NULL, HSAQM_SPATIAL_OFF, 0), -EINVAL);
	/* A backend without cu_confine cannot. */
	t_bq_init(&plain, HSAQM_LEVEL_2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t_bq_attach(ctx, &plain, 0, 0, HSAQM_LEVEL_2));
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(plain.xq, HSAQM_SPATIAL_STATIC, 250), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(plain.xq, HSAQM_SPATIAL_OFF, 0), 0);
	t_bq_run(&hi, UINT64_MAX);
	t_bq_run(&lo, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.ran, 2);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
	t_bq_fini(&plain);
}

static void test_fail_open_gives_a_confined_queue_every_cu_back(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;

	spatial_pair(ctx, &lo, &hi, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_STATIC, 250), 0);
	CU_ASSERT_EQUAL(lo.confined, 250);
	lo.release_err = -EIO;
	t_bq_submit(&lo, 2);
	CU_ASSERT_TRUE(info_of(lo.xq).failed_open);
	CU_ASSERT_EQUAL(lo.confined, 0);
	CU_ASSERT_EQUAL(info_of(lo.xq).mechanism, HSAQM_MECH_NONE);
	lo.release_err = 0;
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
}

static void test_xq_memory_is_well_under_8_kib(void)
{
	printf("sizeof(struct hsaqm_xq) = %zu bytes\n", hsaqm_xq_sizeof());
	CU_ASSERT(hsaqm_xq_sizeof() < 8192);
}

static const struct t_case engine_cases[] = {
	T_CASE(test_lv1_in_flight_never_exceeds_threshold_and_everything_runs),
	T_CASE(test_lv1_marker_after_every_batch),
	T_CASE(test_lv1_tail_smaller_than_a_batch_is_marked),
	T_CASE(test_lv2_guardians_every_interval_across_doorbells),
	T_CASE(test_lv2_closed_gate_stops_within_interval),
	T_CASE(test_lv3_suspends_and_resumes_through_backend),
	T_CASE(test_lv3_refused_suspend_falls_back_to_lv2_with_reason),
	T_CASE(test_effective_level_below_requested_says_why),
	T_CASE(test_eagain_keeps_packets_held_until_next_marker),
	T_CASE(test_eagain_without_marker_outstanding_retries_on_timer),
	T_CASE(test_fail_open_on_unexpected_gate_error_runs_unscheduled),
	T_CASE(test_fail_open_on_resume_error_leaves_nothing_held),
	T_CASE(test_fail_open_on_release_error_and_recovers_when_backend_does),
	T_CASE(test_detach_while_preempted_lets_go_at_each_level),
	T_CASE(test_detach_of_the_high_queue_resumes_the_low_one),
	T_CASE(test_destroy_while_preempted_and_held_lets_go_at_each_level),
	T_CASE(test_exit_resumes_suspended_queues),
	T_CASE(test_bad_input_is_einval_everywhere),
	T_CASE(test_bad_input_logs_what_was_wrong_under_hsaqm_log),
	T_CASE(test_detach_inside_foreach_is_refused),
	T_CASE(test_dynamic_spatial_confines_a_held_queue_and_gives_its_cus_back),
	T_CASE(test_static_spatial_confines_at_once_and_every_exit_gives_the_cus_back),
	T_CASE(test_auto_spatial_joins_the_lv2_fallback_of_a_refused_lv3),
	T_CASE(test_lv3_mechanism_and_its_reason_come_from_the_backend),
	T_CASE(test_refused_confinement_ends_spatial_and_bad_settings_are_refused),
	T_CASE(test_fail_open_gives_a_confined_queue_every_cu_back),
	T_CASE(test_xq_memory_is_well_under_8_kib),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "lib-engine", NULL, NULL, engine_cases },
		T_SUITES_END,
	};
	return t_run("test-lib-engine", suites);
}
