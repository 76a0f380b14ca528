/* SPDX-License-Identifier: MIT */
/*
 * The scheduler's iteration and hooks on the test backend: foreach visits every queue of every
 * device, and the idle hook fires once each time a queue completes everything.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "t_backend.h"
#include "t_cunit.h"
#include "t_time.h"
#include "xq_internal.h"

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

static const struct t_case cases[] = {
	T_CASE(test_foreach_visits_every_queue_of_every_device),
	T_CASE(test_idle_hook_fires_once_each_time_a_queue_completes_everything),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "lib-sched-hooks", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-lib-sched-hooks", suites);
}
