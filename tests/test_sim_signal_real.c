/* SPDX-License-Identifier: MIT */
/*
 * Model signals in real time: waits (each condition, wait-any) woken by another thread, a
 * timeout, an async handler on its thread, a kernel's completion waking the waiter; no lost
 * update or wake-up with many host threads storing while host threads and a device engine wait;
 * a barrier on one device waiting for a kernel on another; a time scale running model time
 * faster.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"
#include "t_sim_signal.h"

static struct hsaqm_sim *real_sim(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_REAL };
	struct hsaqm_sim *sim = NULL;

	CU_ASSERT_EQUAL(hsaqm_sim_create(&cfg, &sim), 0);
	return sim;
}

/* ---- real time ---- */

struct delayed_store {
	struct hsaqm_sim *sim;
	struct sim_signal *s;
	uint64_t delay_ns;
	int64_t value;
};

static void *delayed_store_main(void *arg)
{
	struct delayed_store *d = arg;

	t_sleep_ns(d->delay_ns);
	sim_signal_store(d->sim, d->s, d->value);
	return NULL;
}

static void test_real_wait_each_condition_woken_by_another_thread(void)
{
	static const struct {
		enum sim_cond cond;
		int64_t compare, value;
	} c[] = { { SIM_COND_EQ, 5, 5 }, { SIM_COND_NE, 1, 2 }, { SIM_COND_LT, 0, -1 }, { SIM_COND_GTE, 9, 10 } };
	struct hsaqm_sim *sim = real_sim();

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	for (unsigned int i = 0; i < 4; i++) {
		struct sim_signal *s = sim_signal_create(sim, 1);
		struct delayed_store d = { sim, s, 2 * T_MS, c[i].value };
		pthread_t th;

		/*
		 * t0 before the storer starts: its 2 ms sleep then lies wholly inside the
		 * measured wait, however late this thread is scheduled after the create.
		 */
		uint64_t t0 = hsaqm_sim_now_ns(sim);
		pthread_create(&th, NULL, delayed_store_main, &d);
		int64_t v = sim_signal_wait(sim, s, c[i].cond, c[i].compare, 10 * T_S);
		uint64_t waited = hsaqm_sim_now_ns(sim) - t0;
		pthread_join(th, NULL);
		CU_ASSERT_EQUAL(v, c[i].value);
		CU_ASSERT(waited >= T_MS);
		CU_ASSERT(waited < 5 * T_S);
		sim_signal_destroy(sim, s);
	}
	hsaqm_sim_destroy(sim);
}

static void test_real_wait_times_out_after_the_timeout(void)
{
	struct hsaqm_sim *sim = real_sim();
	struct sim_signal *s = sim_signal_create(sim, 1);
	uint64_t t0 = hsaqm_sim_now_ns(sim);

	CU_ASSERT_EQUAL(sim_signal_wait(sim, s, SIM_COND_EQ, 0, 3 * T_MS), 1);
	uint64_t waited = hsaqm_sim_now_ns(sim) - t0;
	CU_ASSERT(waited >= 3 * T_MS);
	CU_ASSERT(waited < 3 * T_S);
	hsaqm_sim_destroy(sim);
}

static void test_real_wait_any_woken_by_another_thread(void)
{
	struct hsaqm_sim *sim = real_sim();
	struct sim_signal *a = sim_signal_create(sim, 1), *b = sim_signal_create(sim, 1);
	struct sim_signal *const s[2] = { a, b };
	const enum sim_cond conds[2] = { SIM_COND_EQ, SIM_COND_EQ };
	const int64_t cmp[2] = { 0, 0 };
	struct delayed_store d = { sim, b, 2 * T_MS, 0 };
	pthread_t th;
	int64_t v = 7;

	pthread_create(&th, NULL, delayed_store_main, &d);
	CU_ASSERT_EQUAL(sim_signal_wait_any(sim, 2, s, conds, cmp, 10 * T_S, &v), 1);
	CU_ASSERT_EQUAL(v, 0);
	pthread_join(th, NULL);
	uint64_t t0 = hsaqm_sim_now_ns(sim);
	sim_signal_store(sim, b, 1);
	CU_ASSERT_EQUAL(sim_signal_wait_any(sim, 2, s, conds, cmp, 2 * T_MS, &v), 2);
	CU_ASSERT(hsaqm_sim_now_ns(sim) - t0 >= 2 * T_MS);
	hsaqm_sim_destroy(sim);
}

static void test_real_async_handler_runs_on_its_thread(void)
{
	struct hsaqm_sim *sim = real_sim();
	struct sim_signal *s = sim_signal_create(sim, 1), *done = sim_signal_create(sim, 1);
	struct t_hcount h = { .keep_for = 1 };

	CU_ASSERT_EQUAL(sim_signal_async_handler(sim, s, SIM_COND_EQ, 0, t_count_handler, &h), 0);
	sim_signal_store(sim, s, 0);
	T_UNTIL(HSAQM_READ_ONCE(h.runs) != 0, 10 * T_S);
	CU_ASSERT_EQUAL(HSAQM_READ_ONCE(h.runs), 1);
	CU_ASSERT_EQUAL(HSAQM_READ_ONCE(h.last), 0);
	sim_signal_destroy(sim, done);
	hsaqm_sim_destroy(sim);
}

static void test_real_kernel_completion_wakes_the_waiter(void)
{
	struct hsaqm_sim *sim = real_sim();
	struct t_q q;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	struct sim_signal *cs = sim_signal_create(sim, 1);
	uint64_t t0 = hsaqm_sim_now_ns(sim);
	t_run_kernel(sim, &q, 2 * T_MS, cs);
	CU_ASSERT_EQUAL(sim_signal_wait(sim, cs, SIM_COND_EQ, 0, 10 * T_S), 0);
	uint64_t took = hsaqm_sim_now_ns(sim) - t0;
	CU_ASSERT(took >= 2 * T_MS);
	CU_ASSERT(took < 2 * T_S);
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
}

/* Many threads add to one signal; a host waiter and a device barrier wait for the total. */
#define STORERS 4
#define ADDS 2000

struct storer {
	struct hsaqm_sim *sim;
	struct sim_signal *s;
};

static void *storer_main(void *arg)
{
	struct storer *st = arg;

	for (int i = 0; i < ADDS; i++)
		sim_signal_add(st->sim, st->s, -1);
	return NULL;
}

static void test_many_threads_storing_concurrently_lose_no_update_or_wakeup(void)
{
	struct hsaqm_sim *sim = real_sim();
	struct t_q q;
	pthread_t th[STORERS];
	struct storer st;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	st.sim = sim;
	st.s = sim_signal_create(sim, STORERS * ADDS);
	struct sim_signal *bcs = sim_signal_create(sim, 1);
	uint64_t dep = t_handle(st.s);
	union hsaqm_aql_packet bar = t_barrier_and(&dep, 1, t_handle(bcs), false);

	/* The device waits for the signal to reach 0 too (device_watch path). */
	t_q_submit(&q, &bar);
	for (int i = 0; i < STORERS; i++)
		pthread_create(&th[i], NULL, storer_main, &st);
	CU_ASSERT_EQUAL(sim_signal_wait(sim, st.s, SIM_COND_EQ, 0, 20 * T_S), 0);
	for (int i = 0; i < STORERS; i++)
		pthread_join(th[i], NULL);
	CU_ASSERT_EQUAL(sim_signal_load(st.s), 0);
	CU_ASSERT_EQUAL(sim_signal_wait(sim, bcs, SIM_COND_EQ, 0, 20 * T_S), 0);

	/* Gate ping-pong: the engine must never miss an open among many. */
	struct sim_signal *gate = sim_signal_create(sim, 1);
	uint64_t g = t_handle(gate);
	int misses = 0;
	for (int i = 0; i < 300; i++) {
		struct sim_signal *cs = sim_signal_create(sim, 1);
		union hsaqm_aql_packet b = t_barrier_and(&g, 1, t_handle(cs), false);

		sim_signal_store(sim, gate, 1);
		t_q_submit(&q, &b);
		if (i & 1)
			t_sleep_ns(10 * T_US);
		sim_signal_store(sim, gate, 0);
		if (sim_signal_wait(sim, cs, SIM_COND_EQ, 0, 5 * T_S) != 0)
			misses++;
		sim_signal_destroy(sim, cs);
	}
	CU_ASSERT_EQUAL(misses, 0);
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
}

static void test_barrier_on_one_device_waits_for_a_kernel_on_another(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(2);
	struct t_q q0, q1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q0, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q1, sim, 1, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	struct sim_signal *cs0 = sim_signal_create(sim, 1), *cs1 = sim_signal_create(sim, 1);
	uint64_t dep = t_handle(cs0);
	union hsaqm_aql_packet bar = t_barrier_and(&dep, 1, t_handle(cs1), false);

	t_q_submit(&q1, &bar);
	uint64_t done0 = t_run_kernel(sim, &q0, 3 * T_MS, cs0);
	CU_ASSERT_EQUAL(sim_signal_wait(sim, cs1, SIM_COND_EQ, 0, T_S), 0);
	/* Device 1 saw device 0's completion at the instant it happened. */
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), done0);
	CU_ASSERT_EQUAL(sim_signal_load(cs0), 0);
	t_q_destroy(&q0);
	t_q_destroy(&q1);
	hsaqm_sim_destroy(sim);
}

static void test_real_time_scale_runs_model_time_faster(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_REAL, .time_scale = 10.0 };
	struct hsaqm_sim *sim = NULL;
	struct t_q q;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	struct sim_signal *cs = sim_signal_create(sim, 1);
	uint64_t w0 = t_mono_ns(), m0 = hsaqm_sim_now_ns(sim);
	t_run_kernel(sim, &q, 50 * T_MS, cs);
	CU_ASSERT_EQUAL(sim_signal_wait(sim, cs, SIM_COND_EQ, 0, 10 * T_S), 0);
	uint64_t wall = t_mono_ns() - w0, model = hsaqm_sim_now_ns(sim) - m0;
	/* 50 ms of model time took about 5 ms of wall time. */
	CU_ASSERT(model >= 50 * T_MS);
	CU_ASSERT(wall >= 5 * T_MS);
	CU_ASSERT(wall < 45 * T_MS);
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
	struct hsaqm_sim_config bad = { .time_scale = -1.0 };
	CU_ASSERT_EQUAL(hsaqm_sim_create(&bad, &sim), -EINVAL);
}

static const struct t_case cases[] = {
	T_CASE(test_real_wait_each_condition_woken_by_another_thread),
	T_CASE(test_real_wait_times_out_after_the_timeout),
	T_CASE(test_real_wait_any_woken_by_another_thread),
	T_CASE(test_real_async_handler_runs_on_its_thread),
	T_CASE(test_real_kernel_completion_wakes_the_waiter),
	T_CASE(test_many_threads_storing_concurrently_lose_no_update_or_wakeup),
	T_CASE(test_barrier_on_one_device_waits_for_a_kernel_on_another),
	T_CASE(test_real_time_scale_runs_model_time_faster),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-signal-real", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-sim-signal-real", suites);
}
