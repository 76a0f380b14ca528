/* SPDX-License-Identifier: MIT */
/*
 * Model signals in virtual time: a wait runs the model until each condition holds, a timeout
 * moves time to the deadline, wait-any returns the first satisfied, an async handler runs when
 * its condition holds and rearms, and blocking calls from a callback return -EDEADLK.
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
		uint64_t done = t_run_kernel(sim, &q, 3 * T_MS, cs);
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

	uint64_t done = t_run_kernel(sim, &q, 2 * T_MS, b);
	CU_ASSERT_EQUAL(sim_signal_wait_any(sim, 2, s, conds, cmp, T_S, &v), 1);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), done);
	/* Timeout: returns n. */
	sim_signal_store(sim, b, 5);
	CU_ASSERT_EQUAL(sim_signal_wait_any(sim, 2, s, conds, cmp, T_MS, &v), 2);
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
}

static void test_virtual_async_handler_runs_when_condition_holds_and_rearms(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct sim_signal *s = sim_signal_create(sim, 1);
	struct t_hcount h = { .keep_for = 2 };

	CU_ASSERT_EQUAL(sim_signal_async_handler(sim, s, SIM_COND_LT, 1, t_count_handler, &h), 0);
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

static const struct t_case cases[] = {
	T_CASE(test_virtual_wait_runs_the_model_until_each_condition),
	T_CASE(test_virtual_wait_timeout_moves_time_to_the_deadline),
	T_CASE(test_virtual_wait_any_returns_the_first_satisfied),
	T_CASE(test_virtual_async_handler_runs_when_condition_holds_and_rearms),
	T_CASE(test_blocking_calls_from_a_callback_return_edeadlk),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-signal-virtual", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-sim-signal-virtual", suites);
}
