/* SPDX-License-Identifier: MIT */
/*
 * libhsaqm-tool.so on the device model: HIP and process priorities reach the xqueues, suspend
 * and resume of the whole process hold and release every queue, and a second priority on a
 * shared queue is said once and counted.
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

/* ---- Priorities and the process registry ---------------------------------------------------- */

static int json_int_after(const char *js, const char *name, const char *key)
{
	const char *s = strstr(js, name);

	if (!s || !(s = strstr(s, key)))
		return INT32_MIN;
	return atoi(s + strlen(key));
}

static void test_hip_and_process_priorities_reach_the_xqueues(void)
{
	static const char *const env[] = { "HSAQM_PRIORITY=low", "HSAQM_PRIORITY_STEP=7", NULL };
	struct t_hsa h;
	struct t_proc p;
	struct hsaqm_hsa_queue *qa, *qb;
	int prio = 0;
	char *js;

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), env, &t_tool_cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	qa = t_tool_queue(&h, 64); /* gpu<N>-q0 */
	qb = t_tool_queue(&h, 64); /* gpu<N>-q1 */
	CU_ASSERT_FATAL(qa && qb);
	CU_ASSERT_EQUAL(h.amd->hsa_amd_queue_set_priority_fn(qa, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH),
			HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.amd->hsa_amd_queue_set_priority_fn(qb, 7), /* not a priority */
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(p.get_priority(&prio), 0);
	CU_ASSERT_EQUAL(prio, HSAQM_TOOL_PRIORITY_LOW);
	js = t_proc_stats(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(js);
	CU_ASSERT_EQUAL(json_int_after(js, "-q0\"", "\"priority\":"), -50 + 7);
	CU_ASSERT_EQUAL(json_int_after(js, "-q1\"", "\"priority\":"), -50);
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"hsa_priority\":\"high\""));
	free(js);
	/* The process priority moves every queue, the HIP offset kept. */
	CU_ASSERT_EQUAL(p.set_priority(60), 0);
	CU_ASSERT_EQUAL(p.set_priority(101), -EINVAL);
	js = t_proc_stats(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(js);
	CU_ASSERT_EQUAL(json_int_after(js, "-q0\"", "\"priority\":"), 67);
	CU_ASSERT_EQUAL(json_int_after(js, "-q1\"", "\"priority\":"), 60);
	free(js);
	h.core->hsa_queue_destroy_fn(qa);
	h.core->hsa_queue_destroy_fn(qb);
	/* Destroyed queues stay in the document, marked. */
	js = t_proc_stats(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(js);
	CU_ASSERT_EQUAL(t_count(js, "\"destroyed\":true"), 2u);
	free(js);
	t_proc_unbind(&p);
	t_tool_close(&h, env);
}

static void test_process_suspend_holds_every_queue_and_resume_releases(void)
{
	struct t_hsa h;
	struct t_proc p;
	struct hsaqm_hsa_queue *qa, *qb;
	struct hsaqm_hsa_signal cs;
	uint64_t k;

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), NULL, &t_tool_cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	k = t_tool_kernel(&h, T_TOOL_KERNEL_NS, 1);
	qa = t_tool_queue(&h, 64);
	CU_ASSERT_EQUAL(p.suspend(), 0);
	qb = t_tool_queue(&h, 64); /* created while suspended: held too */
	CU_ASSERT_FATAL(qa && qb);
	cs = t_hsa_signal(&h, 20);
	for (int i = 0; i < 10; i++) {
		t_tool_submit(&h, qa, k, 1, cs);
		t_tool_submit(&h, qb, k, 1, cs);
	}
	/* 50 kernel lengths later nothing has completed (gates closed before any release). */
	t_sleep_us(50 * T_TOOL_KERNEL_NS / 1000);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 20);
	CU_ASSERT_EQUAL(p.resume(), 0);
	CU_ASSERT(t_hsa_wait_le(&h, cs, 0, 10 * T_S));
	h.core->hsa_queue_destroy_fn(qa);
	h.core->hsa_queue_destroy_fn(qb);
	h.core->hsa_signal_destroy_fn(cs);
	t_proc_unbind(&p);
	t_tool_close(&h, NULL);
}

/* ---- Priorities hsaqm cannot honour -------------------------------------------------------- */

struct prio_call {
	struct t_hsa *h;
	struct hsaqm_hsa_queue *q;
	hsaqm_hsa_amd_queue_priority_t prio;
};

static int set_prio(void *arg)
{
	struct prio_call *c = arg;

	return (int)c->h->amd->hsa_amd_queue_set_priority_fn(c->q, c->prio);
}

/* What hsa_amd_queue_set_priority(@q, @prio) printed on stderr (malloc'ed; "" for nothing). */
static char *prio_said(struct t_hsa *h, struct hsaqm_hsa_queue *q,
		       hsaqm_hsa_amd_queue_priority_t prio)
{
	struct prio_call c = { h, q, prio };
	int rc = -1;
	char *err = t_capture_stderr(set_prio, &c, &rc);

	CU_ASSERT_EQUAL(rc, HSAQM_HSA_STATUS_SUCCESS);
	return err;
}

static unsigned long long queue_conflicts(struct t_proc *p, const char *hsa_prio)
{
	char key[64], obj[4096], *js = t_proc_stats(p);
	unsigned long long n = ~0ull;

	snprintf(key, sizeof(key), "\"hsa_priority\":\"%s\"", hsa_prio);
	if (js && t_json_object_with(js, key, obj, sizeof(obj)))
		n = t_json_u64(obj, "priority_conflicts");
	free(js);
	return n;
}

static void test_a_second_priority_on_a_shared_queue_is_said_once_and_counted(void)
{
	struct t_hsa h;
	struct t_proc p;
	struct hsaqm_hsa_queue *q, *q2;
	struct hsaqm_hsa_signal cs;
	char *err;
	uint64_t k;

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), NULL, &t_tool_cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	k = t_tool_kernel(&h, T_TOOL_KERNEL_NS, 1);
	q = t_tool_queue(&h, 64);
	q2 = t_tool_queue(&h, 64);
	CU_ASSERT_FATAL(q && q2);
	/* ROCclr's way: one priority, set once on the new (idle) queue. Nothing to say. */
	err = prio_said(&h, q, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	CU_ASSERT_STRING_EQUAL(err ? err : "?", "");
	free(err);
	CU_ASSERT_EQUAL(queue_conflicts(&p, "high"), 0ull);
	/* High work held (the process suspended), then the queue asked to be low: its high
	 * work would run low. Said once, counted. */
	CU_ASSERT_EQUAL(p.suspend(), 0);
	cs = t_hsa_signal(&h, 4);
	for (int i = 0; i < 4; i++)
		t_tool_submit(&h, q, k, 1, cs);
	err = prio_said(&h, q, HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_EQUAL(t_count(err, "\n"), 1u);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "priority low asked for while it held work of priority high"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "priority_conflicts"));
	free(err);
	/* Back again: counted, not said twice. */
	err = prio_said(&h, q, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	CU_ASSERT_STRING_EQUAL(err ? err : "?", "");
	free(err);
	CU_ASSERT_EQUAL(queue_conflicts(&p, "high"), 2ull);
	CU_ASSERT_EQUAL(p.resume(), 0);
	CU_ASSERT(t_hsa_wait_le(&h, cs, 0, 10 * T_S));
	/* A second priority for an idle queue that had one: two kinds of stream share it. */
	err = prio_said(&h, q2, HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW);
	CU_ASSERT_STRING_EQUAL(err ? err : "?", "");
	free(err);
	err = prio_said(&h, q2, HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "priority normal asked for while it had priority low"));
	free(err);
	CU_ASSERT_EQUAL(queue_conflicts(&p, "normal"), 1ull);
	h.core->hsa_queue_destroy_fn(q);
	h.core->hsa_queue_destroy_fn(q2);
	h.core->hsa_signal_destroy_fn(cs);
	t_proc_unbind(&p);
	t_tool_close(&h, NULL);
}

static const struct t_case cases[] = {
	T_CASE(test_hip_and_process_priorities_reach_the_xqueues),
	T_CASE(test_process_suspend_holds_every_queue_and_resume_releases),
	T_CASE(test_a_second_priority_on_a_shared_queue_is_said_once_and_counted),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "tool-priorities", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	if (!t_tool_path())
		return t_skip("tool-priorities", "HSAQM_TEST_TOOL_LIB is not set (run through meson test)");
	return t_run("tool-priorities", suites);
}
