/* SPDX-License-Identifier: MIT */
/*
 * The preemption engine's bad input: -EINVAL everywhere, and what was wrong said under
 * HSAQM_LOG.
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
	f = t_log_capture_start();
	CU_ASSERT_EQUAL(hsaqm_xq_set_priority(bq.xq, 1000), -EINVAL);
	t_log_capture_end(f);
	CU_ASSERT_STRING_EQUAL(t_log_buf, "");
	free(t_log_buf);
	/* HSAQM_LOG=error: one line naming the value. */
	hsaqm_log_set_level(HSAQM_LOG_ERROR);
	f = t_log_capture_start();
	CU_ASSERT_EQUAL(hsaqm_xq_set_priority(bq.xq, 1000), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_level(bq.xq, (enum hsaqm_level)8), -EINVAL);
	t_log_capture_end(f);
	hsaqm_log_set_level(HSAQM_LOG_NONE);
	CU_ASSERT_PTR_NOT_NULL(strstr(t_log_buf, "priority 1000 is outside -100..100"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t_log_buf, "unknown level 8"));
	free(t_log_buf);
	t_log_buf = NULL;
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

static const struct t_case cases[] = {
	T_CASE(test_bad_input_is_einval_everywhere),
	T_CASE(test_bad_input_logs_what_was_wrong_under_hsaqm_log),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "lib-engine-bad-input", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-lib-engine-bad-input", suites);
}
