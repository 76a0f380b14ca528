/* SPDX-License-Identifier: MIT */
/*
 * libhsaqm-tool.so on the device model: destroying a queue while packets are gated (Lv2) or held
 * (Lv1) loses nothing and leaves no gate closed, nothing held.
 *
 * libhsaqm-tool.so is loaded as ROCr loads it: HSA_TOOLS_LIB names it, the model's hsa_init
 * opens it and calls OnLoad with the model's HsaApiTable (sim/hsa_face_tools.c), hsa_shut_down
 * calls OnUnload.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_tool.h"
#include "t_cunit.h"
#include "t_json.h"
#include "t_tool.h"
#include "tool_internal.h"
#include "t_tool_model.h"

/* ---- Destroy while held or gated ----------------------------------------------------------- */

static void destroy_run(const char *const *env)
{
	struct t_hsa h;
	struct t_proc p;
	struct hsaqm_hsa_queue *hi, *lo, *mid;
	struct hsaqm_hsa_signal cs_hi, cs_lo, cs_mid, cs_hi2;
	uint64_t k;

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), env, &t_tool_cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	/* 80 CUs: 80 one-wave workgroups of 200 us fill the device (model profile). */
	k = t_tool_kernel(&h, 200 * T_US, 1);
	hi = t_tool_queue(&h, 64);
	mid = t_tool_queue(&h, 64);
	lo = t_tool_queue(&h, 64);
	CU_ASSERT_FATAL(hi && lo && mid);
	h.amd->hsa_amd_queue_set_priority_fn(hi, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	h.amd->hsa_amd_queue_set_priority_fn(lo, HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW);
	cs_hi = t_hsa_signal(&h, 10);
	cs_mid = t_hsa_signal(&h, 10);
	cs_lo = t_hsa_signal(&h, 10);
	cs_hi2 = t_hsa_signal(&h, 5);
	/* The high queue busy (about 2 ms): the others are preempted at their level. */
	for (int i = 0; i < 10; i++)
		t_tool_submit(&h, hi, k, 80, cs_hi);
	for (int i = 0; i < 10; i++) {
		t_tool_submit(&h, lo, k, 80, cs_lo);
		t_tool_submit(&h, mid, k, 80, cs_mid);
	}
	/* Pace only: lets the preemption close the gates (or hold); what follows holds either way. */
	t_sleep_us(300);
	/* Destroy the low queue while its packets are gated (Lv2) or held (Lv1): all run. */
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(lo), HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs_lo), 0);
	CU_ASSERT(t_hsa_wait_le(&h, cs_hi, 0, 20 * T_S));
	/* Destroy the high queue while it is held by hand with work: all runs. */
	CU_ASSERT_EQUAL(p.suspend(), 0);
	for (int i = 0; i < 5; i++)
		t_tool_submit(&h, hi, k, 80, cs_hi2);
	/* Pace only: the packets reach the held queue; what follows holds either way. */
	t_sleep_us(500);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(hi), HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs_hi2), 0);
	CU_ASSERT_EQUAL(p.resume(), 0);
	/* The queue that was preempted by both is not left gated or held: its work runs. */
	CU_ASSERT(t_hsa_wait_le(&h, cs_mid, 0, 20 * T_S));
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(mid), HSAQM_HSA_STATUS_SUCCESS);
	h.core->hsa_signal_destroy_fn(cs_hi);
	h.core->hsa_signal_destroy_fn(cs_hi2);
	h.core->hsa_signal_destroy_fn(cs_mid);
	h.core->hsa_signal_destroy_fn(cs_lo);
	t_proc_unbind(&p);
	t_tool_close(&h, env);
}

static void test_destroy_while_gated_lv2_loses_nothing_leaves_no_gate_closed(void)
{
	static const char *const env[] = { "HSAQM_LEVEL=lv2", NULL };

	destroy_run(env);
}

static void test_destroy_while_held_lv1_loses_nothing_leaves_nothing_held(void)
{
	static const char *const env[] = { "HSAQM_LEVEL=lv1", "HSAQM_LV1_THRESHOLD=2",
					   "HSAQM_LV1_BATCH=1", NULL };

	destroy_run(env);
}

static const struct t_case cases[] = {
	T_CASE(test_destroy_while_gated_lv2_loses_nothing_leaves_no_gate_closed),
	T_CASE(test_destroy_while_held_lv1_loses_nothing_leaves_nothing_held),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "tool-destroy", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	if (!t_tool_path())
		return t_skip("tool-destroy", "HSAQM_TEST_TOOL_LIB is not set (run through meson test)");
	return t_run("tool-destroy", suites);
}
