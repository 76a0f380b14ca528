/* SPDX-License-Identifier: MIT */
/*
 * The device model's HSA face in real time: a barrier-AND waiting for a kernel and a host thread,
 * waits woken by another thread and their timeouts, async handlers and error callbacks on a model
 * thread, a queue destroyed from its own error callback. In the 'threaded' suite (TSan).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"

struct setter {
	const struct t_face *h;
	struct hsaqm_hsa_signal s;
	int64_t v;
	uint64_t delay;
};

static void *set_later(void *arg)
{
	struct setter *st = arg;

	t_sleep_ns(st->delay);
	st->h->core->hsa_signal_store_screlease_fn(st->s, st->v);
	return NULL;
}

static void test_real_time_barrier_and_waits_for_a_kernel_and_a_host_thread(void)
{
	struct t_face h;
	pthread_t t;

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_REAL, 1));
	struct hsaqm_hsa_queue *qa = t_face_queue(&h, 0, 64, NULL, NULL);
	struct hsaqm_hsa_queue *qb = t_face_queue(&h, 0, 64, NULL, NULL);
	struct hsaqm_hsa_signal sa = t_face_signal(&h, 1), host = t_face_signal(&h, 1),
				sb = t_face_signal(&h, 1);
	union hsaqm_aql_packet pa = t_face_dispatch(t_face_kernel(&h, 2 * T_MS, 1, NULL, NULL), 1,
						 sa.handle);
	uint64_t deps[2] = { sa.handle, host.handle };
	union hsaqm_aql_packet bar = t_face_barrier_and(deps, 2, 0);
	union hsaqm_aql_packet pb = t_face_dispatch(t_face_kernel(&h, 10 * T_US, 1, NULL, NULL), 1,
						 sb.handle);

	t_face_submit(&h, qa, &pa);
	t_face_submit(&h, qb, &bar);
	t_face_submit(&h, qb, &pb);
	struct setter st = { &h, host, 0, 10 * T_MS };
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, set_later, &st), 0);
	CU_ASSERT_EQUAL(t_face_wait_eq(&h, sa, 0, 5 * T_S), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(sb), 1); /* host has not stored yet */
	CU_ASSERT_EQUAL(t_face_wait_eq(&h, sb, 0, 5 * T_S), 0);
	pthread_join(t, NULL);
	struct hsaqm_hsa_amd_profiling_dispatch_time ta = t_face_dispatch_time(&h, sa),
						     tb = t_face_dispatch_time(&h, sb);
	CU_ASSERT(tb.start >= ta.end);
	CU_ASSERT(tb.start >= 10 * T_MS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(qa), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(qb), 0);
	t_face_close(&h);
}

static void test_real_time_waits_woken_by_another_thread_and_timeouts(void)
{
	struct t_face h;
	pthread_t t;
	int64_t v = 0;

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_REAL, 1));
	struct hsaqm_hsa_signal s = t_face_signal(&h, 5);
	struct setter st = { &h, s, 2, 5 * T_MS };
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, set_later, &st), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_wait_relaxed_fn(s, HSAQM_HSA_SIGNAL_CONDITION_LT, 3,
							   UINT64_MAX,
							   HSAQM_HSA_WAIT_STATE_BLOCKED),
			2);
	pthread_join(t, NULL);
	/* A timeout of 20 ms (ticks are ns) with nobody storing. */
	uint64_t t0 = hsaqm_sim_now_ns(h.sim);
	CU_ASSERT_EQUAL(h.core->hsa_signal_wait_scacquire_fn(s, HSAQM_HSA_SIGNAL_CONDITION_EQ, 9,
							     20 * T_MS,
							     HSAQM_HSA_WAIT_STATE_ACTIVE),
			2);
	CU_ASSERT(hsaqm_sim_now_ns(h.sim) - t0 >= 20 * T_MS);
	/* wait_any woken by another thread. */
	struct hsaqm_hsa_signal ss[2] = { t_face_signal(&h, 1), t_face_signal(&h, 1) };
	uint32_t conds[2] = { HSAQM_HSA_SIGNAL_CONDITION_EQ, HSAQM_HSA_SIGNAL_CONDITION_EQ };
	int64_t vals[2] = { 0, 0 };
	struct setter st2 = { &h, ss[1], 0, 5 * T_MS };
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, set_later, &st2), 0);
	CU_ASSERT_EQUAL(h.amd->hsa_amd_signal_wait_any_fn(2, ss, conds, vals, UINT64_MAX,
							  HSAQM_HSA_WAIT_STATE_BLOCKED, &v), 1);
	CU_ASSERT_EQUAL(v, 0);
	pthread_join(t, NULL);
	t0 = hsaqm_sim_now_ns(h.sim);
	vals[1] = 5;
	CU_ASSERT_EQUAL(h.amd->hsa_amd_signal_wait_any_fn(2, ss, conds, vals, 10 * T_MS, 0, &v),
			UINT32_MAX);
	CU_ASSERT(hsaqm_sim_now_ns(h.sim) - t0 >= 10 * T_MS);
	t_face_close(&h);
}

struct thread_handler {
	pthread_t ran_on;
	uint32_t calls;
	int64_t value;
};

static bool note_thread(int64_t value, void *arg)
{
	struct thread_handler *t = arg;

	t->ran_on = pthread_self();
	t->value = value;
	/* Release: ran_on and value before the count the test polls. */
	hsaqm_fetch_add(&t->calls, 1u);
	return false;
}

static void test_real_time_async_handler_runs_on_a_model_thread(void)
{
	struct t_face h;
	struct thread_handler th = { 0 };

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_REAL, 1));
	struct hsaqm_hsa_signal s = t_face_signal(&h, 1);
	CU_ASSERT_EQUAL(h.amd->hsa_amd_signal_async_handler_fn(s, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0,
							       note_thread, &th), 0);
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 64, NULL, NULL);
	union hsaqm_aql_packet p =
		t_face_dispatch(t_face_kernel(&h, 1 * T_MS, 1, NULL, NULL), 1, s.handle);
	t_face_submit(&h, q, &p);
	/* Acquire: pairs with note_thread's add, made after it stored ran_on and value. */
	T_UNTIL(hsaqm_load_acquire(&th.calls) != 0, 10 * T_S);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&th.calls), 1);
	CU_ASSERT_EQUAL(th.value, 0);
	CU_ASSERT_FALSE(pthread_equal(th.ran_on, pthread_self()));
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	t_face_close(&h);
}

static void test_real_time_error_callback_runs_on_a_model_thread(void)
{
	struct t_face h;
	struct t_face_err e = { 0 };

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_REAL, 1));
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 64, t_face_record_error, &e);
	union hsaqm_aql_packet p =
		t_face_dispatch(t_face_kernel(&h, 1 * T_US, 1, NULL, NULL), 1, 0);
	p.dispatch.kernel_object = 0x1234000; /* not a registered kernel */
	t_face_submit_raw(&h, q, &p);
	/* Acquire: pairs with t_face_record_error's release of done. */
	T_UNTIL(hsaqm_load_acquire(&e.done) != 0, 10 * T_S);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&e.done), 1);
	CU_ASSERT_EQUAL(e.calls, 1);
	CU_ASSERT_EQUAL(e.status, 0x1010); /* HSA_STATUS_ERROR_INVALID_CODE_OBJECT */
	CU_ASSERT_PTR_EQUAL(e.queue, q);
	CU_ASSERT_FALSE(pthread_equal(e.thread, pthread_self()));
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	t_face_close(&h);
}

static void destroy_in_callback(hsaqm_hsa_status_t status, struct hsaqm_hsa_queue *q, void *data)
{
	struct t_face_err *r = data;

	r->status = status;
	r->calls++;
	/* A client destroying its queue from the error callback (the handler thread may block). */
	r->destroy_status = r->h->core->hsa_queue_destroy_fn(q);
	/* Release: status and destroy_status before the flag the test polls. */
	hsaqm_store_release(&r->done, 1u);
}

static void test_real_time_queue_destroyed_from_its_own_error_callback(void)
{
	struct t_face h;
	struct t_face_err e = { 0 };

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_REAL, 1));
	e.h = &h;
	e.destroy_status = 0xdead;
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 64, destroy_in_callback, &e);
	union hsaqm_aql_packet p;
	memset(&p, 0, sizeof(p));
	p.u32[0] = 6; /* reserved packet type */
	t_face_submit_raw(&h, q, &p);
	/* Acquire: pairs with destroy_in_callback's release of done. */
	T_UNTIL(hsaqm_load_acquire(&e.done) != 0, 10 * T_S);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&e.done), 1);
	CU_ASSERT_EQUAL(e.status, HSAQM_HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
	CU_ASSERT_EQUAL(e.destroy_status, HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE);
	/* Another queue works afterwards (and reaps the first). */
	struct hsaqm_hsa_queue *q2 = t_face_queue(&h, 0, 64, NULL, NULL);
	struct hsaqm_hsa_signal cs = t_face_signal(&h, 1);
	union hsaqm_aql_packet ok = t_face_dispatch(t_face_kernel(&h, 10 * T_US, 1, NULL, NULL), 1,
						 cs.handle);
	t_face_submit(&h, q2, &ok);
	CU_ASSERT_EQUAL(t_face_wait_eq(&h, cs, 0, 5 * T_S), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q2), 0);
	t_face_close(&h);
}

static const struct t_case cases[] = {
	T_CASE(test_real_time_barrier_and_waits_for_a_kernel_and_a_host_thread),
	T_CASE(test_real_time_waits_woken_by_another_thread_and_timeouts),
	T_CASE(test_real_time_async_handler_runs_on_a_model_thread),
	T_CASE(test_real_time_error_callback_runs_on_a_model_thread),
	T_CASE(test_real_time_queue_destroyed_from_its_own_error_callback),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-hsa-realtime", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-hsa-realtime", suites);
}
