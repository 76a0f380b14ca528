/* SPDX-License-Identifier: MIT */
/*
 * A late engine (real time) never starts a control request before the model time it was made
 * at.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"
#include "hsaqm-hsa/ring.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"

/*
 * A late engine: a workgroup callback that sleeps stands for an engine thread descheduled
 * on a loaded machine. While it sleeps, a doorbell (model time T1) and then a suspend
 * (posted at T2 > T1) arrive; when the engine gets going it handles the doorbell at T1 and
 * finds the request already posted, but must not start it before T2: the unmap it causes
 * happens after T2, never at T1.
 */
static uint32_t g_stalled;

static void stall_cb(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	(void)arg, (void)dispatch_id, (void)wg, (void)kernarg;
	/* acq_rel: the test thread waits for it. The stall is the point (time let pass on purpose):
	 * the engine runs late. */
	if (hsaqm_exchange(&g_stalled, 1u) == 0)
		t_sleep_ms(30);
}

static void test_late_engine_never_starts_a_request_before_it_was_posted(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_REAL };
	struct hsaqm_sim *sim;
	struct t_q q1, q2;
	struct sim_hwq_stats st;
	uint64_t k_stall, k_long;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	struct hsaqm_sim_kernel_desc kd1 = { .name = "stall", .duration_ns = 10 * T_US,
					     .wg_callback = stall_cb };
	struct hsaqm_sim_kernel_desc kd2 = { .name = "long", .duration_ns = T_MS };
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_kernel_register(sim, &kd1, &k_stall), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_kernel_register(sim, &kd2, &k_long), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q1, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q2, sim, 0, 16, 7), 0);
	/* Release: reset before the stall kernel exists; stall_cb's exchange reads it. */
	hsaqm_store_release(&g_stalled, 0u);

	union hsaqm_aql_packet p = t_dispatch(k_stall, 1, 0, false);
	t_q_submit(&q1, &p);
	/* Acquire: pairs with the callback's exchange; the engine is asleep in it from now on. */
	T_UNTIL(hsaqm_load_acquire(&g_stalled) != 0, 30 * T_S);
	p = t_dispatch(k_long, 1, 0, false);
	t_q_submit(&q2, &p); /* stamped T1 */
	/* Time let pass on purpose: the engine, asleep in the stall, is late for the request. */
	t_sleep_us(5000);
	uint64_t t2 = hsaqm_sim_now_ns(sim);
	CU_ASSERT_EQUAL(sim_hwq_suspend(&q2.hwq, 1, 0), 0);
	CU_ASSERT_EQUAL(sim_hwq_get_stats(q2.hwq, &st), 0);
	CU_ASSERT(st.unmaps >= 1);
	if (st.last_unmap_time < t2)
		printf("\n  unmapped at %llu ns, request posted at %llu ns\n  ",
		       (unsigned long long)st.last_unmap_time, (unsigned long long)t2);
	CU_ASSERT(st.last_unmap_time >= t2);
	CU_ASSERT_EQUAL(sim_hwq_resume(&q2.hwq, 1), 0);
	CU_ASSERT_EQUAL(sim->dev[0]->stranded_requests, 0);
	/* Acquire: pairs with the add of a request's waiter that found its wake-up lost. */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&sim->dev[0]->lost_wakeups), 0);
	t_q_destroy(&q1);
	t_q_destroy(&q2);
	hsaqm_sim_destroy(sim);
}

static const struct t_case cases[] = {
	T_CASE(test_late_engine_never_starts_a_request_before_it_was_posted),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-late-engine", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-sim-late-engine", suites);
}
