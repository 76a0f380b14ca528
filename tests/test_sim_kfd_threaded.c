/* SPDX-License-Identifier: MIT */
/*
 * The model's KFD face in real time with a second thread blocked in the KFD: a suspended queue's
 * destroy waits until it is resumed or the debugger detaches, and doorbells rung from one thread
 * while another suspends and resumes. In the 'threaded' suite (TSan).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine_internal.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"

struct destroyer {
	struct t_kfd_env *e;
	uint32_t queue_id;
	int result;
	uint32_t done;
};

static void *destroy_thread(void *arg)
{
	struct destroyer *d = arg;

	d->result = hsaqm_kfd_queue_destroy(d->e->kfd, d->queue_id);
	/* Release: the result before the flag the main thread polls. */
	hsaqm_store_release(&d->done, 1u);
	return NULL;
}

static int real_env(struct t_kfd_env *e)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_REAL };

	return t_kfd_env_open_cfg(e, &cfg);
}

static void test_destroy_of_a_suspended_queue_waits_until_it_is_resumed(void)
{
	struct t_kfd_env e;
	struct t_kfd_q q;
	static struct t_wg_rec r;
	struct destroyer d = { 0 };
	pthread_t th;
	uint32_t ids[1];

	CU_ASSERT_EQUAL_FATAL(real_env(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_map(&e, &q), 0);
	t_kfd_clear_new(&e);
	uint64_t k = t_kfd_kernel(e.sim, 500 * T_MS, 8, &r); /* far longer than any wake-up */
	struct sim_signal *cs = sim_signal_create(e.sim, 1);
	union hsaqm_aql_packet p = t_dispatch(k, 4, t_handle(cs), false);

	CU_ASSERT_NOT_EQUAL(t_kfd_q_submit(&e, &q, &p), UINT64_MAX);
	/* Pace only: the suspend should come mid-kernel (500 ms long), but holds either way. */
	t_sleep_ms(2);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	d.e = &e;
	d.queue_id = q.id;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, destroy_thread, &d), 0);
	/* Time let pass on purpose: proves the destroy does NOT return while suspended. */
	t_sleep_ms(100);
	/* Still blocked in the KFD, and the queue is still there (acquire: pairs with done). */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&d.done), 0);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 1);
	/* A second destroy of the same queue meanwhile: the first one owns it. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, q.id), -EBUSY);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 1);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(d.result, 0);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 0);
	/* Destroyed with its work: the kernel never completes. */
	CU_ASSERT_EQUAL(sim_signal_load(cs), 1);
	sim_signal_destroy(e.sim, cs);
	t_kfd_env_close(&e);
}

static void test_debugger_detach_releases_a_blocked_destroy(void)
{
	struct t_kfd_env e;
	struct t_kfd_q q;
	struct destroyer d = { 0 };
	pthread_t th;
	uint32_t ids[1];

	CU_ASSERT_EQUAL_FATAL(real_env(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	t_kfd_clear_new(&e);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	d.e = &e;
	d.queue_id = q.id;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, destroy_thread, &d), 0);
	/* Time let pass on purpose: proves the destroy does NOT return while suspended. */
	t_sleep_ms(50);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&d.done), 0); /* pairs with destroy_thread's release */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(e.kfd), 0); /* resumes everything */
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(d.result, 0);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 0);
	t_kfd_env_close(&e);
}

struct ringer {
	struct t_kfd_env *e;
	struct t_kfd_q *q;
	uint64_t kobj;
	struct sim_signal *cs;
	uint32_t n;
};

static void *ring_thread(void *arg)
{
	struct ringer *r = arg;

	for (uint32_t i = 0; i < r->n; i++) {
		union hsaqm_aql_packet p = t_dispatch(r->kobj, 2, t_handle(r->cs), false);

		/* Acquire: the read index the engine released; space before the next publish. */
		while (hsaqm_load_acquire(r->q->wr) - hsaqm_load_acquire(r->q->rd) >= r->q->slots)
			sched_yield();
		t_kfd_q_submit(r->e, r->q, &p);
	}
	return NULL;
}

static void test_doorbells_from_one_thread_while_another_suspends_and_resumes(void)
{
	struct t_kfd_env e;
	struct t_kfd_q q;
	static struct t_wg_rec r;
	struct ringer rg;
	pthread_t th;
	uint32_t ids[1];

	CU_ASSERT_EQUAL_FATAL(real_env(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_map(&e, &q), 0);
	t_kfd_clear_new(&e);
	rg.e = &e;
	rg.q = &q;
	rg.kobj = t_kfd_kernel(e.sim, 200 * T_US, 4, &r);
	rg.n = 100;
	rg.cs = sim_signal_create(e.sim, rg.n);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, ring_thread, &rg), 0);
	ids[0] = q.id;
	for (int i = 0; i < 10; i++) {
		CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
		t_sleep_ms(1);
		CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 1);
		t_sleep_ms(1);
	}
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(sim_signal_wait(e.sim, rg.cs, SIM_COND_EQ, 0, 10 * T_S), 0);
	/*
	 * Acquire: pairs with t_wg_rec_cb's add on the engine thread, made before rg.cs
	 * reached 0.
	 */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&r.count), 2 * rg.n);
	sim_signal_destroy(e.sim, rg.cs);
	t_kfd_env_close(&e);
}

static const struct t_case cases[] = {
	T_CASE(test_destroy_of_a_suspended_queue_waits_until_it_is_resumed),
	T_CASE(test_debugger_detach_releases_a_blocked_destroy),
	T_CASE(test_doorbells_from_one_thread_while_another_suspends_and_resumes),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-kfd-threaded", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-kfd-threaded", suites);
}
