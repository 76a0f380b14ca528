/* SPDX-License-Identifier: MIT */
/*
 * The preemption engine on the test backend when the backend fails: -EAGAIN keeps packets held
 * until the next marker (or a timer retries), and an unexpected gate, resume or release error
 * fails open: the queue runs unscheduled, nothing stays held, and it recovers when the backend
 * does.
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
	CU_ASSERT_EQUAL(t_xq_info(bq.xq).submitted - t_xq_info(bq.xq).released, 3);
	/* The marker completes: the rest goes out with a new one. */
	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(bq.released, 10);
	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(bq.ran, 10);
	CU_ASSERT_EQUAL(t_state(bq.xq), HSAQM_XQ_IDLE);
	CU_ASSERT_FALSE(t_xq_info(bq.xq).failed_open); /* -EAGAIN is not a failure */
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

static void test_fail_open_on_unexpected_gate_error_runs_unscheduled(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;
	FILE *f = t_log_capture_start();
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .name = "victim" };

	t_bq_init(&lo, HSAQM_LEVEL_3);
	t_bq_init(&hi, HSAQM_LEVEL_3);
	lo.gate_close_err = -EIO;
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &lo, &lo.xq), 0);
	t_bq_attach(ctx, &hi, 0, 10, HSAQM_LEVEL_2);
	t_bq_submit(&lo, 10);
	t_bq_submit(&hi, 1);
	t_bq_submit(&lo, 5); /* a failed-open queue is never held */
	t_log_capture_end(f);

	struct hsaqm_xq_info info = t_xq_info(lo.xq);
	CU_ASSERT_TRUE(info.failed_open);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_NONE);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, "gate_close"));
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, "EIO"));
	CU_ASSERT_EQUAL(info.state, HSAQM_XQ_READY);
	CU_ASSERT_EQUAL(lo.released, 15);
	/* One line, shown although logging is off. */
	CU_ASSERT_PTR_NOT_NULL(strstr(t_log_buf, "victim"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t_log_buf, "fail-open"));
	CU_ASSERT_PTR_NULL(strstr(strstr(t_log_buf, "fail-open") + 1, "fail-open"));
	/* And a queue that runs unscheduled cannot be held by hand. */
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(lo.xq), -EOPNOTSUPP);
	t_bq_run(&lo, UINT64_MAX);
	t_bq_run(&hi, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.ran, 15);
	CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_IDLE);
	free(t_log_buf);
	t_log_buf = NULL;
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
}

static void test_fail_open_on_resume_error_leaves_nothing_held(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;
	FILE *f = t_log_capture_start();

	t_preempt_setup(ctx, &lo, &hi, HSAQM_LEVEL_3, 1);
	CU_ASSERT_TRUE(lo.suspended);
	t_bq_submit(&lo, 3); /* held */
	lo.resume_err = -EIO;
	t_bq_run(&hi, UINT64_MAX); /* high idle: resume fails */
	t_log_capture_end(f);
	struct hsaqm_xq_info info = t_xq_info(lo.xq);
	CU_ASSERT_TRUE(info.failed_open);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, "resume"));
	CU_ASSERT_EQUAL(lo.released, 23); /* everything held went out */
	CU_ASSERT_PTR_NOT_NULL(strstr(t_log_buf, "fail-open"));
	free(t_log_buf);
	t_log_buf = NULL;
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
	FILE *f = t_log_capture_start();

	t_bq_init(&bq, HSAQM_LEVEL_3);
	bq.release_err = -ENODEV;
	t_bq_attach(ctx, &bq, 0, 0, HSAQM_LEVEL_2);
	t_bq_submit(&bq, 4);
	t_log_capture_end(f);
	CU_ASSERT_TRUE(t_xq_info(bq.xq).failed_open);
	CU_ASSERT_EQUAL(bq.released, 0);
	bq.release_err = 0;
	t_bq_submit(&bq, 1);
	CU_ASSERT_EQUAL(bq.released, 5);
	CU_ASSERT_EQUAL(bq.guards, 0); /* pass-through from now on */
	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(t_state(bq.xq), HSAQM_XQ_IDLE);
	free(t_log_buf);
	t_log_buf = NULL;
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

static const struct t_case cases[] = {
	T_CASE(test_eagain_keeps_packets_held_until_next_marker),
	T_CASE(test_eagain_without_marker_outstanding_retries_on_timer),
	T_CASE(test_fail_open_on_unexpected_gate_error_runs_unscheduled),
	T_CASE(test_fail_open_on_resume_error_leaves_nothing_held),
	T_CASE(test_fail_open_on_release_error_and_recovers_when_backend_does),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "lib-engine-fail-open", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-lib-engine-fail-open", suites);
}
