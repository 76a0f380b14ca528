/* SPDX-License-Identifier: MIT */
/*
 * The end and the priority of an HSA backend queue: destroy with held work (released and run
 * first) and with a closed gate (opened, everything runs), a closed runtime (no timed wait;
 * destroy and fini still finish), and a priority change reaching the hardware queue and the
 * xqueue.
 *
 * In virtual time (deterministic, no engine threads), on the device model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsa_backend_internal.h"
#include "hsaqm-kfd/kfd_lv3.h"
#include "t_cunit.h"
#include "t_hsa.h"
#include "t_hsa_backend.h"

static void test_destroy_releases_held_packets_and_runs_them_first(void)
{
	struct t_hsa h;
	struct t_app a;
	struct t_krec recs[10] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_1, .lv1_threshold = 1, .lv1_batch = 1 };
	struct hsaqm_hsa_signal cs;
	uint64_t k;

	memset(t_kernels_done, 0, sizeof(t_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	k = t_kernel(&h, 50 * T_US, 1);
	cs = t_hsa_signal(&h, 10);
	t_submit(&a, k, 10, cs, false, recs, 0);
	CU_ASSERT_EQUAL(a.proxy->released, 1);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).submitted, 10);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	/* Nothing lost: destroy released the 9 held and waited until all 10 ran. */
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&t_kernels_done[0]), 10); /* pairs with t_count_wg's add */
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

static void test_destroy_with_a_closed_gate_opens_it_and_runs_everything(void)
{
	struct t_hsa h;
	struct t_app a;
	struct t_krec recs[10] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .lv2_interval = 1 };
	struct hsaqm_hsa_signal cs, gate;
	uint64_t k;

	memset(t_kernels_done, 0, sizeof(t_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	k = t_kernel(&h, 50 * T_US, 1);
	cs = t_hsa_signal(&h, 10);
	t_submit(&a, k, 5, cs, true, recs, 0);
	CU_ASSERT_EQUAL(hsaqm_sim_advance(h.sim, 70 * T_US), 0);
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(hsaqm_hsa_proxy_xq(a.proxy)), 0);
	gate = a.proxy->gate;
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(gate), 1);
	t_submit(&a, k, 5, cs, true, recs + 5, 0); /* held by lib */
	CU_ASSERT_EQUAL(a.proxy->released, 5);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 5 * T_MS), -ETIMEDOUT);
	/* Acquire, both: pair with t_count_wg's add, made while the model ran. */
	CU_ASSERT(hsaqm_load_acquire(&t_kernels_done[0]) < 5);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&t_kernels_done[0]), 10);
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

/*
 * ROCr times a wait's timeout with hsa_system_get_info(TIMESTAMP_FREQUENCY); ROCm 7.x calls a
 * tool's OnUnload when that query already fails, and its waits then never time out. These
 * stand-ins fail the query while g_rt_closed and count every timed wait made meanwhile.
 */
static uint32_t g_rt_closed;
static uint32_t g_untimeable_waits;
static hsaqm_hsa_system_get_info_fn g_real_info;
static hsaqm_hsa_signal_wait_fn g_real_wait;

static hsaqm_hsa_status_t closing_system_get_info(uint32_t attribute, void *value)
{
	/* Acquire: pairs with the test's release; nothing else is published with it. */
	if (hsaqm_load_acquire(&g_rt_closed))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	return g_real_info(attribute, value);
}

static hsaqm_hsa_signal_value_t closing_wait(struct hsaqm_hsa_signal signal,
					     hsaqm_hsa_signal_condition_t cond,
					     hsaqm_hsa_signal_value_t value, uint64_t ticks,
					     hsaqm_hsa_wait_state_t state)
{
	/* Acquire: as above. */
	if (hsaqm_load_acquire(&g_rt_closed)) {
		hsaqm_fetch_add(&g_untimeable_waits, 1u); /* destroy, fini wait on this thread */
		ticks = 1; /* where ROCr would wait forever; the count fails the test */
	}
	return g_real_wait(signal, cond, value, ticks, state);
}

static void test_a_closed_runtime_gets_no_timed_wait_and_destroy_and_fini_still_finish(void)
{
	struct t_hsa h;
	struct t_app a;
	struct t_krec recs[5] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .lv2_interval = 1 };
	struct hsaqm_hsa_signal cs;
	uint64_t k;

	memset(t_kernels_done, 0, sizeof(t_kernels_done));
	/* Real time: with no wait the virtual clock would not move, a real one does. */
	CU_ASSERT_EQUAL_FATAL(t_hsa_open(&h, HSAQM_SIM_TIME_REAL, 1), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h.rt.system_get_info);
	g_real_info = h.rt.system_get_info;
	g_real_wait = h.rt.signal_wait_scacquire;
	h.rt.system_get_info = closing_system_get_info;
	h.rt.signal_wait_scacquire = closing_wait;
	/* Release: open before the proxy exists; pairs with the stand-ins' acquire. */
	hsaqm_store_release(&g_rt_closed, 0u);
	g_untimeable_waits = 0;
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &cfg, &a), 0);
	k = t_kernel(&h, 200 * T_US, 1);
	cs = t_hsa_signal(&h, 5);
	t_submit(&a, k, 5, cs, true, recs, 0);
	/* Release: the runtime counts as shut down from here on (the stand-ins read it). */
	hsaqm_store_release(&g_rt_closed, 1u);
	/* The drain of a queue the program left, as OnUnload does: all five still run. */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	/* Acquire: pairs with t_count_wg's add on the engine thread (real time). */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&t_kernels_done[0]), 5);
	hsaqm_hsa_runtime_fini(&h.rt);
	h.rt_ok = false;
	CU_ASSERT_EQUAL(g_untimeable_waits, 0);
	hsaqm_store_release(&g_rt_closed, 0u); /* release: open again for later tests */
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

static void test_set_priority_reaches_the_hardware_queue_and_the_xqueue(void)
{
	struct t_hsa h;
	struct t_app a;
	struct sim_hwq *hwq;
	struct sim_hwq_info hi;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &t_lv2, &a), 0);
	hwq = t_hsa_sim_hwq(&h, hsaqm_hsa_proxy_hw_queue(a.proxy));
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_set_priority(a.proxy, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH, 5,
						     10), 0);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).priority, 15);
	sim_hwq_get_info(hwq, &hi);
	CU_ASSERT_EQUAL(hi.priority, 11); /* the face's KFD priority for HIGH */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_set_priority(a.proxy, HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW, 5,
						     10), 0);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).priority, -5);
	sim_hwq_get_info(hwq, &hi);
	CU_ASSERT_EQUAL(hi.priority, 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_set_priority(a.proxy, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH, 95,
						     10), 0);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).priority, HSAQM_PRIORITY_MAX); /* clamped */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_set_priority(a.proxy, 3, 0, 1), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_set_priority(NULL, 1, 0, 1), -EINVAL);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).priority, HSAQM_PRIORITY_MAX);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	t_hsa_close(&h);
}

static const struct t_case cases[] = {
	T_CASE(test_destroy_releases_held_packets_and_runs_them_first),
	T_CASE(test_destroy_with_a_closed_gate_opens_it_and_runs_everything),
	T_CASE(test_a_closed_runtime_gets_no_timed_wait_and_destroy_and_fini_still_finish),
	T_CASE(test_set_priority_reaches_the_hardware_queue_and_the_xqueue),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsa-backend-destroy", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("hsa-backend-destroy", suites);
}
