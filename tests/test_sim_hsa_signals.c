/* SPDX-License-Identifier: MIT */
/*
 * The device model's HSA face: signals: every operation in every memory order, waits on each
 * condition with timeouts in ticks, wait-any, and async handlers (virtual time).
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

/* Prototypes of the entries the mirror types as hsaqm_api_fn. */
typedef hsaqm_hsa_status_t (*amd_signal_create_fn)(int64_t, uint32_t,
						   const struct hsaqm_hsa_agent *, uint64_t,
						   struct hsaqm_hsa_signal *);
typedef hsaqm_hsa_status_t (*value_pointer_fn)(struct hsaqm_hsa_signal, volatile int64_t **);

static void test_every_signal_operation_in_every_memory_order(void)
{
	struct t_face h;
	const struct hsaqm_core_api_table *c;

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	c = h.core;
	struct hsaqm_hsa_signal s = t_face_signal(&h, 10);
	CU_ASSERT_TRUE(sim_mem_contains(h.sim, (void *)(uintptr_t)s.handle, 8));
	CU_ASSERT_EQUAL(c->hsa_signal_load_relaxed_fn(s), 10);
	CU_ASSERT_EQUAL(c->hsa_signal_load_scacquire_fn(s), 10);

	hsaqm_hsa_signal_store_fn stores[] = {
		c->hsa_signal_store_relaxed_fn, c->hsa_signal_store_screlease_fn,
		c->hsa_signal_silent_store_relaxed_fn, c->hsa_signal_silent_store_screlease_fn,
	};
	for (int i = 0; i < 4; i++) {
		stores[i](s, 100 + i);
		CU_ASSERT_EQUAL(c->hsa_signal_load_scacquire_fn(s), 100 + i);
	}
	struct {
		hsaqm_hsa_signal_store_fn fn[4];
		int64_t start, operand, expect;
	} ops[] = {
		{ { c->hsa_signal_and_relaxed_fn, c->hsa_signal_and_scacquire_fn,
		    c->hsa_signal_and_screlease_fn, c->hsa_signal_and_scacq_screl_fn },
		  0xff,
		  0x0f,
		  0x0f },
		{ { c->hsa_signal_or_relaxed_fn, c->hsa_signal_or_scacquire_fn,
		    c->hsa_signal_or_screlease_fn, c->hsa_signal_or_scacq_screl_fn },
		  0xf0,
		  0x0f,
		  0xff },
		{ { c->hsa_signal_xor_relaxed_fn, c->hsa_signal_xor_scacquire_fn,
		    c->hsa_signal_xor_screlease_fn, c->hsa_signal_xor_scacq_screl_fn },
		  0xff,
		  0x0f,
		  0xf0 },
		{ { c->hsa_signal_add_relaxed_fn, c->hsa_signal_add_scacquire_fn,
		    c->hsa_signal_add_screlease_fn, c->hsa_signal_add_scacq_screl_fn },
		  40,
		  2,
		  42 },
		{ { c->hsa_signal_subtract_relaxed_fn, c->hsa_signal_subtract_scacquire_fn,
		    c->hsa_signal_subtract_screlease_fn, c->hsa_signal_subtract_scacq_screl_fn },
		  1,
		  2,
		  -1 },
	};
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		for (int m = 0; m < 4; m++) {
			c->hsa_signal_store_relaxed_fn(s, ops[o].start);
			ops[o].fn[m](s, ops[o].operand);
			CU_ASSERT_EQUAL(c->hsa_signal_load_relaxed_fn(s), ops[o].expect);
		}
	}
	hsaqm_hsa_signal_exchange_fn xchg[] = {
		c->hsa_signal_exchange_relaxed_fn, c->hsa_signal_exchange_scacquire_fn,
		c->hsa_signal_exchange_screlease_fn, c->hsa_signal_exchange_scacq_screl_fn,
	};
	hsaqm_hsa_signal_cas_fn cas[] = {
		c->hsa_signal_cas_relaxed_fn, c->hsa_signal_cas_scacquire_fn,
		c->hsa_signal_cas_screlease_fn, c->hsa_signal_cas_scacq_screl_fn,
	};
	for (int m = 0; m < 4; m++) {
		c->hsa_signal_store_relaxed_fn(s, 7);
		CU_ASSERT_EQUAL(xchg[m](s, 8), 7);
		CU_ASSERT_EQUAL(cas[m](s, 1, 9), 8); /* fails: returns the current value */
		CU_ASSERT_EQUAL(c->hsa_signal_load_relaxed_fn(s), 8);
		CU_ASSERT_EQUAL(cas[m](s, 8, 9), 8); /* succeeds */
		CU_ASSERT_EQUAL(c->hsa_signal_load_relaxed_fn(s), 9);
	}
	/* hsa_amd_signal_create and the value pointer. */
	amd_signal_create_fn amd_create = (amd_signal_create_fn)h.amd->hsa_amd_signal_create_fn;
	struct hsaqm_hsa_signal s2 = { 0 };
	CU_ASSERT_EQUAL(amd_create(-5, 1, &h.gpu[0], HSAQM_HSA_AMD_SIGNAL_AMD_GPU_ONLY, &s2), 0);
	volatile int64_t *vp = NULL;
	CU_ASSERT_EQUAL(((value_pointer_fn)h.amd->hsa_amd_signal_value_pointer_fn)(s2, &vp), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vp);
	CU_ASSERT_EQUAL(*vp, -5);
	/* Bad input: nothing crashes. */
	struct hsaqm_hsa_signal bogus = { s.handle + 8 };
	CU_ASSERT_EQUAL(c->hsa_signal_load_scacquire_fn(bogus), 0);
	c->hsa_signal_store_screlease_fn(bogus, 1);
	CU_ASSERT_EQUAL(c->hsa_signal_create_fn(0, 1, NULL, &s2),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	struct hsaqm_hsa_agent bad_agent = { 77 };
	CU_ASSERT_EQUAL(c->hsa_signal_create_fn(0, 1, &bad_agent, &s2),
			HSAQM_HSA_STATUS_ERROR_INVALID_AGENT);
	CU_ASSERT_EQUAL(c->hsa_signal_destroy_fn(s), 0);
	CU_ASSERT_EQUAL(c->hsa_signal_destroy_fn(s), HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL);
	struct hsaqm_hsa_signal zero = { 0 };
	CU_ASSERT_EQUAL(c->hsa_signal_destroy_fn(zero), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	/* A queue's doorbell is its queue's. */
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 64, NULL, NULL);
	CU_ASSERT_EQUAL(c->hsa_signal_destroy_fn(q->doorbell_signal),
			HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL);
	CU_ASSERT_EQUAL(c->hsa_queue_destroy_fn(q), 0);
	t_face_close(&h);
}

static void test_waits_each_condition_both_orders_and_timeouts_in_ticks(void)
{
	struct t_face h;
	const struct hsaqm_core_api_table *c;

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	c = h.core;
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 64, NULL, NULL);
	uint64_t k = t_face_kernel(&h, 100 * T_US, 1, NULL, NULL);
	hsaqm_hsa_signal_wait_fn waits[2] = { c->hsa_signal_wait_relaxed_fn,
					      c->hsa_signal_wait_scacquire_fn };
	/* cond, compare, and the value a completion leaves (1 -> 0) satisfies it. */
	struct {
		uint32_t cond;
		int64_t compare;
	} conds[] = {
		{ HSAQM_HSA_SIGNAL_CONDITION_EQ, 0 },
		{ HSAQM_HSA_SIGNAL_CONDITION_NE, 1 },
		{ HSAQM_HSA_SIGNAL_CONDITION_LT, 1 },
		{ HSAQM_HSA_SIGNAL_CONDITION_GTE, 0 },
	};

	for (int w = 0; w < 2; w++) {
		for (int i = 0; i < 4; i++) {
			/* Satisfied by a kernel's completion: the wait runs the model to then. */
			struct hsaqm_hsa_signal cs = t_face_signal(&h, 1);
			union hsaqm_aql_packet p = t_face_dispatch(k, 1, cs.handle);
			uint64_t t0 = hsaqm_sim_now_ns(h.sim);
			int64_t v;

			t_face_submit(&h, q, &p);
			if (conds[i].cond == HSAQM_HSA_SIGNAL_CONDITION_GTE) {
				/* GTE 0 already holds at 1: returns at once. */
				v = waits[w](cs, conds[i].cond, conds[i].compare, UINT64_MAX, 0);
				CU_ASSERT_EQUAL(v, 1);
				CU_ASSERT_EQUAL(hsaqm_sim_now_ns(h.sim), t0);
				v = waits[w](cs, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, 0);
			} else {
				v = waits[w](cs, conds[i].cond, conds[i].compare, UINT64_MAX, 0);
			}
			CU_ASSERT_EQUAL(v, 0);
			CU_ASSERT(hsaqm_sim_now_ns(h.sim) - t0 >= 100 * T_US);
			c->hsa_signal_destroy_fn(cs);
		}
		/* A timeout in ticks (model ns): the wait returns the current value at its end. */
		struct hsaqm_hsa_signal s = t_face_signal(&h, 3);
		uint64_t t0 = hsaqm_sim_now_ns(h.sim);
		CU_ASSERT_EQUAL(waits[w](s, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0, 2500, 1), 3);
		CU_ASSERT_EQUAL(hsaqm_sim_now_ns(h.sim) - t0, 2500);
		CU_ASSERT_EQUAL(waits[w](s, HSAQM_HSA_SIGNAL_CONDITION_LT, 0, 0, 0),
				3); /* 0: one look */
		CU_ASSERT_EQUAL(waits[w](s, 9 /* not a condition */, 0, 1000, 0), 3);
		c->hsa_signal_destroy_fn(s);
	}
	CU_ASSERT_EQUAL(c->hsa_queue_destroy_fn(q), 0);
	t_face_close(&h);
}

static void test_wait_any_returns_the_first_satisfied_or_uint32_max(void)
{
	struct t_face h;
	int64_t v = 0;

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	hsaqm_hsa_amd_signal_wait_any_fn any = h.amd->hsa_amd_signal_wait_any_fn;
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 64, NULL, NULL);
	uint64_t k = t_face_kernel(&h, 50 * T_US, 1, NULL, NULL);
	struct hsaqm_hsa_signal s[3] = { t_face_signal(&h, 5), t_face_signal(&h, 1),
					 t_face_signal(&h, 7) };
	uint32_t conds[3] = { HSAQM_HSA_SIGNAL_CONDITION_EQ, HSAQM_HSA_SIGNAL_CONDITION_EQ,
			      HSAQM_HSA_SIGNAL_CONDITION_LT };
	int64_t vals[3] = { 0, 0, 0 };

	union hsaqm_aql_packet p = t_face_dispatch(k, 1, s[1].handle);
	t_face_submit(&h, q, &p);
	uint64_t t0 = hsaqm_sim_now_ns(h.sim);
	CU_ASSERT_EQUAL(any(3, s, conds, vals, UINT64_MAX, HSAQM_HSA_WAIT_STATE_BLOCKED, &v), 1);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT(hsaqm_sim_now_ns(h.sim) - t0 >= 50 * T_US);
	/* Nothing else will happen: a timeout returns UINT32_MAX after exactly its ticks. */
	vals[1] = 99;
	t0 = hsaqm_sim_now_ns(h.sim);
	v = 1234;
	CU_ASSERT_EQUAL(any(3, s, conds, vals, 777, HSAQM_HSA_WAIT_STATE_ACTIVE, &v), UINT32_MAX);
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(h.sim) - t0, 777);
	CU_ASSERT_EQUAL(v, 1234); /* untouched on timeout */
	/* Bad input. */
	CU_ASSERT_EQUAL(any(0, s, conds, vals, 0, 0, NULL), UINT32_MAX);
	struct hsaqm_hsa_signal bad[2] = { s[0], { 8 } };
	CU_ASSERT_EQUAL(any(2, bad, conds, vals, 0, 0, NULL), UINT32_MAX);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	t_face_close(&h);
}

struct handler_rec {
	int calls;
	int64_t last;
	bool keep;
};

static bool count_handler(int64_t value, void *arg)
{
	struct handler_rec *r = arg;

	r->calls++;
	r->last = value;
	return r->keep;
}

static void test_async_handler_runs_when_its_condition_holds(void)
{
	struct t_face h;
	struct handler_rec r = { 0, 0, true };

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	hsaqm_hsa_amd_signal_async_handler_fn reg = h.amd->hsa_amd_signal_async_handler_fn;
	struct hsaqm_hsa_signal s = t_face_signal(&h, 0);

	CU_ASSERT_EQUAL(reg(s, HSAQM_HSA_SIGNAL_CONDITION_GTE, 10, count_handler, &r), 0);
	hsaqm_sim_advance(h.sim, 0);
	CU_ASSERT_EQUAL(r.calls, 0);
	h.core->hsa_signal_store_screlease_fn(s, 12);
	hsaqm_sim_advance(h.sim, 0); /* VIRTUAL: handlers run in the event loop */
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.last, 12);
	/* Armed again: runs after the next change that still satisfies it. */
	r.keep = false;
	h.core->hsa_signal_add_screlease_fn(s, 1);
	hsaqm_sim_advance(h.sim, 0);
	CU_ASSERT_EQUAL(r.calls, 2);
	CU_ASSERT_EQUAL(r.last, 13);
	h.core->hsa_signal_add_screlease_fn(s, 1); /* unregistered: no more calls */
	hsaqm_sim_advance(h.sim, 0);
	CU_ASSERT_EQUAL(r.calls, 2);
	/* Fired by a kernel completion too. */
	struct handler_rec r2 = { 0, 0, false };
	struct hsaqm_hsa_signal cs = t_face_signal(&h, 1);
	CU_ASSERT_EQUAL(reg(cs, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0, count_handler, &r2), 0);
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 64, NULL, NULL);
	union hsaqm_aql_packet p = t_face_dispatch(t_face_kernel(&h, 10 * T_US, 1, NULL, NULL), 1,
						cs.handle);
	t_face_submit(&h, q, &p);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, T_S), 0);
	CU_ASSERT_EQUAL(r2.calls, 1);
	/* Bad input. */
	struct hsaqm_hsa_signal bad = { 16 };
	CU_ASSERT_EQUAL(reg(bad, 0, 0, count_handler, &r), HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL);
	CU_ASSERT_EQUAL(reg(s, 0, 0, NULL, &r), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(reg(s, 4, 0, count_handler, &r), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	t_face_close(&h);
}

static const struct t_case cases[] = {
	T_CASE(test_every_signal_operation_in_every_memory_order),
	T_CASE(test_waits_each_condition_both_orders_and_timeouts_in_ticks),
	T_CASE(test_wait_any_returns_the_first_satisfied_or_uint32_max),
	T_CASE(test_async_handler_runs_when_its_condition_holds),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-hsa-signals", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-hsa-signals", suites);
}
