/* SPDX-License-Identifier: MIT */
/*
 * Model signals: every operation, waits with each condition and with timeouts, wait-any,
 * async handlers, in virtual and real time; no lost wake-up with many host threads storing
 * while host threads and a device engine wait.
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

static struct hsaqm_sim *real_sim(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_REAL };
	struct hsaqm_sim *sim = NULL;

	CU_ASSERT_EQUAL(hsaqm_sim_create(&cfg, &sim), 0);
	return sim;
}

static void test_signal_ops_return_old_values(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct sim_signal *s = sim_signal_create(sim, 10);

	CU_ASSERT_EQUAL(sim_signal_load(s), 10);
	sim_signal_store(sim, s, 12);
	CU_ASSERT_EQUAL(sim_signal_load(s), 12);
	CU_ASSERT_EQUAL(sim_signal_exchange(sim, s, 5), 12);
	CU_ASSERT_EQUAL(sim_signal_cas(sim, s, 4, 9), 5); /* fails: returns the current value */
	CU_ASSERT_EQUAL(sim_signal_load(s), 5);
	CU_ASSERT_EQUAL(sim_signal_cas(sim, s, 5, 9), 5);
	CU_ASSERT_EQUAL(sim_signal_load(s), 9);
	CU_ASSERT_EQUAL(sim_signal_add(sim, s, -4), 9);
	CU_ASSERT_EQUAL(sim_signal_and(sim, s, 0x4), 5);
	CU_ASSERT_EQUAL(sim_signal_or(sim, s, 0x3), 4);
	CU_ASSERT_EQUAL(sim_signal_xor(sim, s, 0x1), 7);
	CU_ASSERT_EQUAL(sim_signal_load(s), 6);
	sim_signal_destroy(sim, s);
	hsaqm_sim_destroy(sim);
}

static void test_model_memory_is_zeroed_aligned_and_reusable(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	size_t big = 3u << 20; /* zeroed through the page cache */

	for (int round = 0; round < 2; round++) {
		unsigned char *a = hsaqm_sim_mem_alloc(sim, big, 4096);
		unsigned char *b = hsaqm_sim_mem_alloc(sim, 100, 256);
		int dirty = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_EQUAL((uintptr_t)a % 4096, 0);
		CU_ASSERT_EQUAL((uintptr_t)b % 256, 0);
		CU_ASSERT(sim_mem_contains(sim, a, big) && sim_mem_contains(sim, b, 100));
		for (size_t i = 0; i < big; i += 997)
			dirty |= a[i];
		for (int i = 0; i < 100; i++)
			dirty |= b[i];
		CU_ASSERT_EQUAL(dirty, 0); /* the second round reuses the first round's dirty blocks */
		memset(a, 0xa5, big);
		memset(b, 0x5a, 100);
		hsaqm_sim_mem_free(sim, a);
		hsaqm_sim_mem_free(sim, b);
	}
	errno = 0;
	CU_ASSERT_PTR_NULL(hsaqm_sim_mem_alloc(sim, 0, 64));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(hsaqm_sim_mem_alloc(sim, 64, 48));
	CU_ASSERT_PTR_NULL(hsaqm_sim_mem_alloc(sim, 64, 0));
	CU_ASSERT_PTR_NULL(hsaqm_sim_mem_alloc(NULL, 64, 64));
	errno = 0;
	CU_ASSERT_PTR_NULL(hsaqm_sim_mem_alloc(sim, (size_t)1 << 40, 64));
	CU_ASSERT_EQUAL(errno, ENOMEM);
	int on_stack;
	CU_ASSERT_FALSE(sim_mem_contains(sim, &on_stack, sizeof(on_stack)));
	hsaqm_sim_mem_free(sim, NULL);
	hsaqm_sim_destroy(sim);
}

static void test_handle_lookup_accepts_only_live_model_signals(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct sim_signal *s = sim_signal_create(sim, 0);
	struct sim_signal heap = { 0 };
	uint64_t *mem = hsaqm_sim_mem_alloc(sim, 128, 64);

	heap.magic = SIM_SIGNAL_MAGIC; /* right magic, but not model memory */
	CU_ASSERT_PTR_EQUAL(sim_signal_from_handle(sim, t_handle(s)), s);
	CU_ASSERT_PTR_NULL(sim_signal_from_handle(sim, 0));
	CU_ASSERT_PTR_NULL(sim_signal_from_handle(sim, t_handle(s) + 4));
	CU_ASSERT_PTR_NULL(sim_signal_from_handle(sim, (uint64_t)(uintptr_t)&heap));
	CU_ASSERT_PTR_NULL(sim_signal_from_handle(sim, (uint64_t)(uintptr_t)mem));
	sim_signal_destroy(sim, s);
	CU_ASSERT_PTR_NULL(sim_signal_from_handle(sim, t_handle(s)));
	hsaqm_sim_mem_free(sim, mem);
	hsaqm_sim_destroy(sim);
}

/* A queue running one kernel of @dur that decrements @cs; returns the completion time. */
static uint64_t run_kernel(struct hsaqm_sim *sim, struct t_q *q, uint64_t dur, struct sim_signal *cs)
{
	struct hsaqm_sim_kernel_desc kd = { .name = "k", .duration_ns = dur };
	uint64_t k;
	union hsaqm_aql_packet p;

	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(sim, &kd, &k), 0);
	p = t_dispatch(k, 1, t_handle(cs), false);
	uint64_t t = hsaqm_sim_now_ns(sim);
	t_q_submit(q, &p);
	return t + 5 * T_US + dur;
}

static void test_virtual_wait_runs_the_model_until_each_condition(void)
{
	static const struct {
		enum sim_cond cond;
		int64_t compare;
	} c[] = { { SIM_COND_EQ, 0 }, { SIM_COND_NE, 1 }, { SIM_COND_LT, 1 }, { SIM_COND_GTE, 0 } };

	for (unsigned int i = 0; i < 4; i++) {
		struct hsaqm_sim *sim = t_sim_virtual(1);
		struct t_q q;

		CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
		hsaqm_sim_run_until_idle(sim, T_S);
		/* GTE 0 holds from the start: the wait returns at once, time does not move. */
		struct sim_signal *cs = sim_signal_create(sim, c[i].cond == SIM_COND_GTE ? 1 : 1);
		uint64_t t0 = hsaqm_sim_now_ns(sim);
		uint64_t done = run_kernel(sim, &q, 3 * T_MS, cs);
		int64_t v = sim_signal_wait(sim, cs, c[i].cond, c[i].compare, T_S);

		if (c[i].cond == SIM_COND_GTE) {
			CU_ASSERT_EQUAL(v, 1);
			CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t0);
		} else {
			CU_ASSERT_EQUAL(v, 0);
			CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), done);
		}
		t_q_destroy(&q);
		hsaqm_sim_destroy(sim);
	}
}

static void test_virtual_wait_timeout_moves_time_to_the_deadline(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct sim_signal *s = sim_signal_create(sim, 7);
	uint64_t t0 = hsaqm_sim_now_ns(sim);

	CU_ASSERT_EQUAL(sim_signal_wait(sim, s, SIM_COND_EQ, 0, 5 * T_MS), 7);
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t0 + 5 * T_MS);
	/* Forever with nothing left to happen: returns at once instead of hanging. */
	CU_ASSERT_EQUAL(sim_signal_wait(sim, s, SIM_COND_EQ, 0, UINT64_MAX), 7);
	CU_ASSERT_EQUAL(sim_signal_wait(sim, s, SIM_COND_EQ, 0, 0), 7);
	hsaqm_sim_destroy(sim);
}

static void test_virtual_wait_any_returns_the_first_satisfied(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q q;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	struct sim_signal *a = sim_signal_create(sim, 1), *b = sim_signal_create(sim, 1);
	struct sim_signal *const s[2] = { a, b };
	const enum sim_cond conds[2] = { SIM_COND_EQ, SIM_COND_LT };
	const int64_t cmp[2] = { 0, 1 };
	int64_t v = 99;

	uint64_t done = run_kernel(sim, &q, 2 * T_MS, b);
	CU_ASSERT_EQUAL(sim_signal_wait_any(sim, 2, s, conds, cmp, T_S, &v), 1);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), done);
	/* Timeout: returns n. */
	sim_signal_store(sim, b, 5);
	CU_ASSERT_EQUAL(sim_signal_wait_any(sim, 2, s, conds, cmp, T_MS, &v), 2);
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
}

struct hcount {
	int runs;
	int64_t last;
	int keep_for;
};

static bool count_handler(int64_t value, void *arg)
{
	struct hcount *h = arg;
	int n = HSAQM_READ_ONCE(h->runs) + 1;

	HSAQM_WRITE_ONCE(h->last, value);
	HSAQM_WRITE_ONCE(h->runs, n);
	return n < h->keep_for;
}

static void test_virtual_async_handler_runs_when_condition_holds_and_rearms(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct sim_signal *s = sim_signal_create(sim, 1);
	struct hcount h = { .keep_for = 2 };

	CU_ASSERT_EQUAL(sim_signal_async_handler(sim, s, SIM_COND_LT, 1, count_handler, &h), 0);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(h.runs, 0);
	sim_signal_store(sim, s, 0);
	hsaqm_sim_advance(sim, 0);
	CU_ASSERT_EQUAL(h.runs, 1);
	/* Still true but unchanged: an armed handler waits for a change. */
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(h.runs, 1);
	sim_signal_store(sim, s, -3);
	hsaqm_sim_advance(sim, 0);
	CU_ASSERT_EQUAL(h.runs, 2);
	CU_ASSERT_EQUAL(h.last, -3);
	/* It returned false the second time: gone. */
	sim_signal_store(sim, s, -4);
	hsaqm_sim_advance(sim, 0);
	CU_ASSERT_EQUAL(h.runs, 2);
	CU_ASSERT_EQUAL(sim_signal_async_handler(sim, s, SIM_COND_LT, 1, NULL, NULL), -EINVAL);
	hsaqm_sim_destroy(sim);
}

struct cb_probe {
	struct hsaqm_sim *sim;
	struct sim_hwq *hwq;
	struct sim_signal *s;
	int suspend_rc;
	int advance_rc;
	int64_t waited;
	int calls;
};

static void probe_cb(void *arg, uint64_t id, uint32_t wg, void *kernarg)
{
	struct cb_probe *p = arg;

	(void)id, (void)wg, (void)kernarg;
	p->calls++;
	p->suspend_rc = sim_hwq_suspend(&p->hwq, 1, 0);
	p->advance_rc = hsaqm_sim_advance(p->sim, T_MS);
	p->waited = sim_signal_wait(p->sim, p->s, SIM_COND_EQ, 0, T_S); /* returns at once */
	sim_signal_store(p->sim, p->s, 42); /* non-blocking calls are fine */
}

static void test_blocking_calls_from_a_callback_return_edeadlk(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q q;
	static struct cb_probe p;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	memset(&p, 0, sizeof(p));
	p.sim = sim;
	p.hwq = q.hwq;
	p.s = sim_signal_create(sim, 3);
	struct hsaqm_sim_kernel_desc kd = { .name = "probe", .duration_ns = T_US, .wg_callback = probe_cb,
					    .wg_callback_arg = &p };
	uint64_t k;
	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(sim, &kd, &k), 0);
	union hsaqm_aql_packet pk = t_dispatch(k, 1, 0, false);
	t_q_submit(&q, &pk);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	CU_ASSERT_EQUAL(p.calls, 1);
	CU_ASSERT_EQUAL(p.suspend_rc, -EDEADLK);
	CU_ASSERT_EQUAL(p.advance_rc, -EDEADLK);
	CU_ASSERT_EQUAL(p.waited, 3);
	CU_ASSERT_EQUAL(sim_signal_load(p.s), 42);
	CU_ASSERT_EQUAL(t_q_state(&q), SIM_HWQ_MAPPED);
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
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
	struct hcount h = { .keep_for = 1 };

	CU_ASSERT_EQUAL(sim_signal_async_handler(sim, s, SIM_COND_EQ, 0, count_handler, &h), 0);
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
	run_kernel(sim, &q, 2 * T_MS, cs);
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
	uint64_t done0 = run_kernel(sim, &q0, 3 * T_MS, cs0);
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
	run_kernel(sim, &q, 50 * T_MS, cs);
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

/*
 * Destroying a signal with an armed async handler drops the handler with it: the loop never
 * reads the freed signal (ASan would report it) and never runs the handler again, even once
 * the memory is reused by a new signal whose value satisfies the old condition.
 */
static void test_destroying_a_signal_drops_its_armed_handlers(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct sim_signal *s = sim_signal_create(sim, 1);
	struct hcount h = { .keep_for = 100 };

	CU_ASSERT_EQUAL(sim_signal_async_handler(sim, s, SIM_COND_LT, 1, count_handler, &h), 0);
	sim_signal_store(sim, s, 0);
	hsaqm_sim_advance(sim, 0);
	CU_ASSERT_EQUAL(h.runs, 1);
	sim_signal_destroy(sim, s);
	struct sim_signal *t = sim_signal_create(sim, 1); /* often the same memory */
	sim_signal_store(sim, t, -1);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(h.runs, 1);
	sim_signal_destroy(sim, t);
	hsaqm_sim_destroy(sim);
}

static const struct t_case cases[] = {
	T_CASE(test_destroying_a_signal_drops_its_armed_handlers),
	T_CASE(test_signal_ops_return_old_values),
	T_CASE(test_model_memory_is_zeroed_aligned_and_reusable),
	T_CASE(test_handle_lookup_accepts_only_live_model_signals),
	T_CASE(test_virtual_wait_runs_the_model_until_each_condition),
	T_CASE(test_virtual_wait_timeout_moves_time_to_the_deadline),
	T_CASE(test_virtual_wait_any_returns_the_first_satisfied),
	T_CASE(test_virtual_async_handler_runs_when_condition_holds_and_rearms),
	T_CASE(test_blocking_calls_from_a_callback_return_edeadlk),
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

int main(void)
{
	static const struct t_suite suites[] = { { "sim-signal", NULL, NULL, cases }, T_SUITES_END };
	return t_run("test-sim-signal", suites);
}
