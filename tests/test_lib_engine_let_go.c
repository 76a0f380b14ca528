/* SPDX-License-Identifier: MIT */
/*
 * The preemption engine on the test backend lets go: detach and destroy while preempted (at each
 * level), detach of the high queue resuming the low one, the process's exit resuming suspended
 * queues, and a detach from inside a foreach refused.
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

/* -- detach / destroy ------------------------------------------------------------------ */

static void test_detach_while_preempted_lets_go_at_each_level(void)
{
	for (int level = HSAQM_LEVEL_1; level <= HSAQM_LEVEL_3; level++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct t_bq lo, hi;

		t_preempt_setup(ctx, &lo, &hi, level, 1);
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

	t_preempt_setup(ctx, &lo, &hi, HSAQM_LEVEL_2, 1);
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

		t_preempt_setup(ctx, &lo, &hi, level, 1);
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

static const struct t_case cases[] = {
	T_CASE(test_detach_while_preempted_lets_go_at_each_level),
	T_CASE(test_detach_of_the_high_queue_resumes_the_low_one),
	T_CASE(test_destroy_while_preempted_and_held_lets_go_at_each_level),
	T_CASE(test_exit_resumes_suspended_queues),
	T_CASE(test_detach_inside_foreach_is_refused),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "lib-engine-let-go", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-lib-engine-let-go", suites);
}
