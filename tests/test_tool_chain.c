/* SPDX-License-Identifier: MIT */
/*
 * libhsaqm-tool.so chained with a fake profiler loaded before it and after it: both see the
 * calls, the work runs.
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

/* ---- Chaining ------------------------------------------------------------------------------ */

static void chain_run(bool fake_first)
{
	const char *fake = getenv("HSAQM_TEST_FAKE_TOOL");
	char tools[8192];
	struct fake_tool_record rec;
	fake_tool_get_fn get;
	struct t_hsa h;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_hsa_signal cs;
	void *fh;
	uint64_t k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(fake);
	/* A library that cannot load comes first: both tools are told about it. */
	snprintf(tools, sizeof(tools), "/nonexistent/libnot-a-tool.so %s %s",
		 fake_first ? fake : t_tool_path(), fake_first ? t_tool_path() : fake);
	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, tools, NULL, &t_tool_cfg), 0);
	fh = dlopen(fake, RTLD_NOW | RTLD_NOLOAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fh);
	*(void **)&get = dlsym(fh, "fake_tool_get");
	CU_ASSERT_PTR_NOT_NULL_FATAL(get);

	k = t_tool_kernel(&h, T_TOOL_KERNEL_NS, 1);
	q = t_tool_queue(&h, 128);
	CU_ASSERT_FATAL(q != NULL);
	CU_ASSERT(t_tool_is_proxy(&h, q));
	cs = t_hsa_signal(&h, 30);
	for (int i = 0; i < 30; i++)
		t_tool_submit(&h, q, k, 1, cs);
	CU_ASSERT(t_hsa_wait_le(&h, cs, 0, 10 * T_S));
	get(&rec);
	/* What the fake tool's create returned is a hardware queue when it sits under hsaqm. */
	CU_ASSERT(rec.ncreated == 1 && t_tool_is_proxy(&h, rec.created[0]) == !fake_first);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), HSAQM_HSA_STATUS_SUCCESS);
	get(&rec);
	CU_ASSERT_EQUAL(rec.loads, 1u);
	CU_ASSERT_EQUAL(rec.runtime_version, 3u);
	CU_ASSERT_EQUAL(rec.ncreated, 1u);
	CU_ASSERT_EQUAL(rec.destroys, 1u);
	CU_ASSERT_EQUAL(rec.destroy_known, 1u);
	if (fake_first) {
		/*
		 * Loaded before hsaqm, it sits under it: it sees the hardware queue hsaqm makes,
		 * hsaqm's stores to that queue's doorbell, and never the application's proxy.
		 */
		CU_ASSERT_EQUAL(rec.failed_count, 1u);
		CU_ASSERT_PTR_NOT_EQUAL(rec.created[0], q);
		CU_ASSERT_EQUAL(rec.index_known, 0u);
		/*
		 * One hardware doorbell per release: at most one per packet plus a marker-only
		 * release each, and one for destroy's drain.
		 */
		CU_ASSERT(rec.doorbell_stores >= 2);
		CU_ASSERT(rec.doorbell_stores <= 61);
	} else {
		/* Loaded after, it sits above: it sees what the application does, to the proxy. */
		CU_ASSERT_EQUAL(rec.failed_count, 1u);
		CU_ASSERT_PTR_EQUAL(rec.created[0], q);
		CU_ASSERT(rec.index_known >= 60); /* one add and at least one read-index load each */
		CU_ASSERT_EQUAL(rec.doorbell_stores, 30u);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(rec.first_failed, "libnot-a-tool.so"));
	h.core->hsa_signal_destroy_fn(cs);
	t_tool_close(&h, NULL);
	/* OnUnload ran (ROCr calls it before closing): the record is gone with the library. */
	dlclose(fh);
}

static void test_chaining_with_a_profiler_loaded_before(void)
{
	chain_run(true);
}

static void test_chaining_with_a_profiler_loaded_after(void)
{
	chain_run(false);
}

static const struct t_case cases[] = {
	T_CASE(test_chaining_with_a_profiler_loaded_before),
	T_CASE(test_chaining_with_a_profiler_loaded_after),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "tool-chain", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	if (!t_tool_path())
		return t_skip("tool-chain", "HSAQM_TEST_TOOL_LIB is not set (run through meson test)");
	return t_run("tool-chain", suites);
}
