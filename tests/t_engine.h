/* SPDX-License-Identifier: MIT */
/*
 * t_engine.h - helpers of the preemption engine's tests on the test backend (test-lib-engine-*):
 * an xqueue's info and stats (asserted readable), a busy low queue preempted by a high one, and
 * lib's log captured in memory. Header-only; include once.
 */
#ifndef T_ENGINE_H
#define T_ENGINE_H

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

static inline struct hsaqm_xq_info t_xq_info(struct hsaqm_xq *xq)
{
	struct hsaqm_xq_info info;

	CU_ASSERT_EQUAL(hsaqm_xq_get_info(xq, &info), 0);
	return info;
}

static inline struct hsaqm_xq_stats t_xq_stats(struct hsaqm_xq *xq)
{
	struct hsaqm_xq_stats st;

	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(xq, &st), 0);
	return st;
}

/* A busy low queue at @level and a high one; returns after the high queue submitted. */
static inline void t_preempt_setup(struct hsaqm_ctx *ctx, struct t_bq *lo, struct t_bq *hi,
				   int level, uint32_t interval)
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

/* What lib logs between t_log_capture_start() and t_log_capture_end(). */
static char *t_log_buf;
static size_t t_log_len;

static inline FILE *t_log_capture_start(void)
{
	FILE *f = open_memstream(&t_log_buf, &t_log_len);

	hsaqm_log_set_sink(f);
	return f;
}

static inline void t_log_capture_end(FILE *f)
{
	hsaqm_log_set_sink(NULL);
	fclose(f);
}

#endif /* T_ENGINE_H */
