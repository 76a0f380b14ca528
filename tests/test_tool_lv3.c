/* SPDX-License-Identifier: MIT */
/*
 * Lv3 of libhsaqm-tool.so on the in-process device model (docs/tool.md, "Lv3 on the model").
 *
 * The tool library carries its own copy of kfd-ioctl, yet the default transport's state is
 * kept once per process, in libhsaqm.so: the model's HSA face registers itself as the
 * process's KFD there (hsaqm_kfd_transport_set_provider, docs/kfd-ioctl.md), and the tool's
 * copy reads it, with no link option on this executable. The HSA face makes its queues on
 * that same KFD, with RUNTIME_ENABLE as ROCr, so the tool's DBG_TRAP suspend reaches the
 * proxies' hardware queues.
 *
 * Proves: the default transport is the model's exactly while the process has one model with an
 * HSA face, and /dev/kfd otherwise (none, or two: no single KFD); with HSAQM_LEVEL=3 loaded by
 * hsa_init, a low queue running a kernel that fills the device stays at effective level 3 (no
 * fallback), a high queue's short kernel preempts it mid-kernel and completes long before a low
 * workgroup could have finished, and every low workgroup still runs exactly once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-kfd/kfd_transport.h"
#include "t_cunit.h"
#include "t_fill.h"
#include "t_json.h"
#include "t_tool.h"

static void test_default_transport_is_the_models_kfd_only_with_one_model(void)
{
	struct t_hsa h;
	struct hsaqm_sim *other = NULL;

	/* No model: the system's /dev/kfd, as on a machine with a GPU. */
	CU_ASSERT_STRING_EQUAL(hsaqm_kfd_transport_default()->name, "kfd");
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), hsaqm_kfd_transport_system());
	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, NULL, NULL, &t_fill_cfg), 0);
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), hsaqm_sim_kfd_transport(h.sim));
	CU_ASSERT_STRING_EQUAL(hsaqm_kfd_transport_default()->name, "sim");
	/* Two models with an HSA face: no single KFD, so the system's. */
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&t_fill_cfg, &other), 0);
	CU_ASSERT_PTR_NOT_NULL(hsaqm_sim_hsa_table(other));
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), hsaqm_kfd_transport_system());
	hsaqm_sim_destroy(other);
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), hsaqm_sim_kfd_transport(h.sim));
	/* One installed still wins over the model's provider. */
	CU_ASSERT_EQUAL(hsaqm_kfd_transport_set_default(hsaqm_kfd_transport_system()), 0);
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), hsaqm_kfd_transport_system());
	CU_ASSERT_EQUAL(hsaqm_kfd_transport_set_default(NULL), 0);
	t_tool_close(&h, NULL);
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_default(), hsaqm_kfd_transport_system());
}

/*
 * What Lv3 guarantees is an order, not a latency: the high kernel completes before any low
 * workgroup running at its arrival (they are saved, not waited for). Natively, or at Lv2, a
 * round of them finishes first (the high kernel arriving 5 ms into a round waits 15 ms for
 * CUs). Its latency is printed (seen: 0.2-0.8 ms; once 4.5 ms under ASan while another
 * real-time model ran beside the suite: a host stall shows in model time).
 */
static void test_tool_lv3_preempts_a_running_low_kernel_for_the_high_queue(void)
{
	static const char *const env[] = { "HSAQM_LEVEL=3", NULL };
	struct t_hsa h;
	struct t_proc p;
	struct hsaqm_hsa_queue *lo, *hi;
	struct hsaqm_hsa_signal cs_lo, cs_hi;
	uint64_t klo, khi, t0, t1;
	uint32_t low_done_at_submit, low_done_at_high;
	char *js, obj[2048];

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), env, &t_fill_cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	klo = t_fill_low_kernel(&h, "lv3-low");
	khi = t_fill_high_kernel(&h, "lv3-high");
	lo = t_hsa_queue(&h, 64, HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW);
	hi = t_hsa_queue(&h, 64, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	CU_ASSERT_FATAL(klo && khi);
	CU_ASSERT_FATAL(lo && hi && t_tool_is_proxy(&h, lo) && t_tool_is_proxy(&h, hi));
	cs_lo = t_hsa_signal(&h, 1);
	cs_hi = t_hsa_signal(&h, 1);

	/* The low kernel fills every CU (eight rounds of 640 workgroups), its first round running. */
	t_fill_start_low(&h, lo, klo, cs_lo);
	low_done_at_submit = t_fill_done();

	t0 = hsaqm_sim_now_ns(h.sim);
	t_fill_submit_high(&h, hi, khi, cs_hi);
	CU_ASSERT_FATAL(t_hsa_wait_le(&h, cs_hi, 0, 20 * T_S));
	t1 = hsaqm_sim_now_ns(h.sim);
	low_done_at_high = t_fill_done();
	/* Natively the high kernel waits for a running low workgroup; Lv3 saved them instead. */
	printf("\n    high latency %.0f us (model), low workgroups done at its submission %u, at "
	       "its completion %u, of %u\n", (double)(t1 - t0) / 1000.0, low_done_at_submit,
	       low_done_at_high, T_FILL_LOW_WG);
	/* No low workgroup finished while the high kernel waited: mid-kernel, saved. */
	CU_ASSERT_EQUAL(low_done_at_high, low_done_at_submit);
	CU_ASSERT(low_done_at_high < T_FILL_LOW_WG);

	/* The low kernel resumes and finishes: every workgroup exactly once. */
	CU_ASSERT_FATAL(t_hsa_wait_le(&h, cs_lo, 0, 30 * T_S));
	t_fill_assert_each_once();

	/* The tool's view: both queues at effective level 3, the low one preempted. */
	js = t_proc_stats(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(js);
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"level\":\"lv3\""));
	CU_ASSERT_FATAL(t_tool_queue_json(js, "low", obj, sizeof(obj)));
	CU_ASSERT_PTR_NOT_NULL(strstr(obj, "\"requested_level\":\"lv3\",\"effective_level\":\"lv3\","
					   "\"level_reason\":\"\""));
	CU_ASSERT(t_json_u64(obj, "preemptions") >= 1 && t_json_u64(obj, "preemptions") != ~0ull);
	if (!strstr(obj, "\"effective_level\":\"lv3\""))
		printf("\n    low queue: %s\n", obj);
	CU_ASSERT_FATAL(t_tool_queue_json(js, "high", obj, sizeof(obj)));
	CU_ASSERT_PTR_NOT_NULL(strstr(obj, "\"effective_level\":\"lv3\""));
	CU_ASSERT_EQUAL(t_json_u64(obj, "preemptions"), 0ull);
	free(js);

	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(hi), HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(lo), HSAQM_HSA_STATUS_SUCCESS);
	h.core->hsa_signal_destroy_fn(cs_hi);
	h.core->hsa_signal_destroy_fn(cs_lo);
	t_proc_unbind(&p);
	t_tool_close(&h, env);
}

static const struct t_case cases[] = {
	T_CASE(test_default_transport_is_the_models_kfd_only_with_one_model),
	T_CASE(test_tool_lv3_preempts_a_running_low_kernel_for_the_high_queue),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "tool-lv3", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	if (!t_tool_path())
		return t_skip("tool-lv3", "HSAQM_TEST_TOOL_LIB is not set (run through meson test)");
	return t_run("tool-lv3", suites);
}
