/* SPDX-License-Identifier: MIT */
/*
 * libhsaqm-tool.so on the device model: queues of a GPU become proxies and run what a
 * ROCclr-style client submits (the stats document is lib's schema, extended); the table is left
 * alone on an unknown layout (one line on stderr, the application runs); OnLoad again keeps the
 * table scheduled and says so truthfully.
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

/* ---- Loading ------------------------------------------------------------------------------- */

/*
 * The tool's statistics document parses, and its one queue is lib's per-queue object
 * (docs/stats.md: launch parameters, latency with its minimum) with the tool's members added.
 */
static void stats_document_is_libs_schema_extended(const char *js, bool destroyed)
{
	static const char *const lib_keys[] = {
		"\"name\":", "\"device\":", "\"priority\":", "\"group\":", "\"share_permille\":",
		"\"level_reason\":", "\"state\":", "\"lv1_threshold\":", "\"lv1_batch\":",
		"\"lv2_interval\":", "\"submitted\":40,", "\"markers\":", "\"min\":", "\"p999\":",
	};
	static const char *const tool_keys[] = { "\"queue_id\":", "\"size\":256,",
						   "\"hsa_priority\":\"normal\"" };
	char obj[2048];

	CU_ASSERT(t_json_valid(js));
	CU_ASSERT_FATAL(t_json_object_with(js, "\"queue_id\":", obj, sizeof(obj)));
	for (size_t i = 0; i < sizeof(lib_keys) / sizeof(lib_keys[0]); i++)
		CU_ASSERT_PTR_NOT_NULL(strstr(obj, lib_keys[i]));
	for (size_t i = 0; i < sizeof(tool_keys) / sizeof(tool_keys[0]); i++)
		CU_ASSERT_PTR_NOT_NULL(strstr(obj, tool_keys[i]));
	CU_ASSERT_PTR_NOT_NULL(strstr(obj, destroyed ? "\"destroyed\":true" : "\"destroyed\":false"));
	CU_ASSERT_EQUAL(t_count(js, "\"queue_id\":"), 1u);
}

static void test_hsa_init_loads_the_tool_and_gpu_queues_become_proxies(void)
{
	struct t_hsa h;
	struct t_proc p;
	hsaqm_hsa_queue_create_fn orig_create;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_hsa_signal cs;
	char status[256], *js;
	uint64_t k;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&t_tool_cfg, &h.sim), 0);
	orig_create = ((struct hsaqm_api_root_v3 *)hsaqm_sim_hsa_table(h.sim))->core->hsa_queue_create_fn;
	hsaqm_sim_destroy(h.sim);

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), NULL, &t_tool_cfg), 0);
	/* OnLoad replaced the entry (the face's own function is the same in every model). */
	CU_ASSERT_PTR_NOT_EQUAL(h.core->hsa_queue_create_fn, orig_create);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	CU_ASSERT_EQUAL(p.status(status, sizeof(status)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(status, "active: "));
	CU_ASSERT_PTR_NULL(strstr(status, "inactive"));

	k = t_tool_kernel(&h, T_TOOL_KERNEL_NS, 1);
	q = t_tool_queue(&h, 256);
	CU_ASSERT_FATAL(q != NULL);
	CU_ASSERT(t_tool_is_proxy(&h, q));
	CU_ASSERT_EQUAL(q->size, 256u);
	/* The proxy mirrors the hardware queue's amd_queue_t fields clients read (ROCclr). */
	CU_ASSERT_NOT_EQUAL(((struct hsaqm_amd_queue *)q)->group_segment_aperture_base_hi, 0u);

	cs = t_hsa_signal(&h, 40);
	hsaqm_store_release(&t_k.wgs, 0u); /* release: zeroed before the 40 are submitted */
	for (int i = 0; i < 40; i++)
		t_tool_submit(&h, q, k, 2, cs);
	CU_ASSERT(t_hsa_wait_le(&h, cs, 0, 10 * T_S));
	/* Acquire: pairs with t_wg_count's add, made before cs was decremented. */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&t_k.wgs), 80u);
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_read_index_scacquire_fn(q), 40u);
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_write_index_relaxed_fn(q), 40u);

	js = t_proc_stats(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(js);
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"submitted\":40"));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"effective_level\":\"lv2\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"active\":true"));
	stats_document_is_libs_schema_extended(js, false);
	free(js);

	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), HSAQM_HSA_STATUS_SUCCESS);
	/* The destroyed queue keeps its final object, in the same schema. */
	js = t_proc_stats(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(js);
	stats_document_is_libs_schema_extended(js, true);
	free(js);
	h.core->hsa_signal_destroy_fn(cs);
	t_proc_unbind(&p);
	/* hsa_shut_down: OnUnload, then the table is the runtime's again. */
	h.core->hsa_shut_down_fn();
	CU_ASSERT_PTR_EQUAL(h.core->hsa_queue_create_fn, orig_create);
	h.core = NULL; /* already shut down */
	t_tool_close(&h, NULL);
	/* Unregistered (the tool stays mapped: -z nodelete keeps its exit path valid). */
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	CU_ASSERT_EQUAL(p.status(status, sizeof(status)), 0);
	CU_ASSERT_STRING_EQUAL(status, "not loaded");
	t_proc_unbind(&p);
}

static int open_unknown_layout(void *arg)
{
	struct t_hsa *h = arg;
	struct hsaqm_api_root_v3 *root;
	int rc;

	rc = hsaqm_sim_create(&t_tool_cfg, &h->sim);
	if (rc)
		return rc;
	root = hsaqm_sim_hsa_table(h->sim);
	/* A root major no ROCm release had: the detector refuses it. */
	root->version.major_id = 99;
	setenv("HSA_TOOLS_LIB", t_tool_path(), 1);
	rc = root->core->hsa_init_fn() == HSAQM_HSA_STATUS_SUCCESS ? 0 : -EIO;
	root->version.major_id = 3;
	h->root = root;
	h->core = root->core;
	h->amd = root->amd_ext;
	h->core->hsa_iterate_agents_fn(t_hsa_collect_agent, h);
	return rc;
}

static void test_unknown_layout_installs_nothing_says_one_line_app_runs(void)
{
	struct t_hsa h;
	struct t_proc p;
	struct hsaqm_core_api_table before;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_hsa_signal cs;
	char status[256], *err;
	int rc = -1;

	memset(&h, 0, sizeof(h));
	err = t_capture_stderr(open_unknown_layout, &h, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_EQUAL(t_count(err, "\n"), 1u);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown HSA API table layout"));
	free(err);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	p.status(status, sizeof(status));
	CU_ASSERT_PTR_NOT_NULL(strstr(status, "inactive: unknown HSA API table layout"));
	/* Nothing replaced: the table is what the model built (compare with a fresh model's). */
	before = *h.core;
	{
		struct hsaqm_sim *other = NULL;

		CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&t_tool_cfg, &other), 0);
		CU_ASSERT_PTR_EQUAL(before.hsa_queue_create_fn,
				    ((struct hsaqm_api_root_v3 *)hsaqm_sim_hsa_table(other))
					    ->core->hsa_queue_create_fn);
		CU_ASSERT_PTR_EQUAL(before.hsa_signal_store_screlease_fn,
				    ((struct hsaqm_api_root_v3 *)hsaqm_sim_hsa_table(other))
					    ->core->hsa_signal_store_screlease_fn);
		hsaqm_sim_destroy(other);
	}
	/* The application runs on, unscheduled. */
	q = t_tool_queue(&h, 64);
	CU_ASSERT_FATAL(q != NULL);
	CU_ASSERT(!t_tool_is_proxy(&h, q));
	cs = t_hsa_signal(&h, 5);
	for (int i = 0; i < 5; i++)
		t_tool_submit(&h, q, t_tool_kernel(&h, T_TOOL_KERNEL_NS, 1), 1, cs);
	CU_ASSERT(t_hsa_wait_le(&h, cs, 0, 10 * T_S));
	h.core->hsa_queue_destroy_fn(q);
	h.core->hsa_signal_destroy_fn(cs);
	t_proc_unbind(&p);
	t_tool_close(&h, NULL);
}

/* ---- OnLoad called again ---------------------------------------------------------------------- */

typedef bool (*onload_fn)(void *table, uint64_t runtime_version, uint64_t failed_tool_count,
			  const char *const *failed_tool_names);

struct onload_call {
	onload_fn onload;
	void *table;
};

static int call_onload(void *arg)
{
	struct onload_call *c = arg;

	return c->onload(c->table, 3, 0, NULL) ? 1 : 0;
}

static void test_onload_again_keeps_the_table_scheduled_and_says_so_truthfully(void)
{
	struct t_hsa h;
	struct t_proc p;
	struct hsaqm_sim *other = NULL;
	struct hsaqm_hsa_queue *q;
	struct onload_call c;
	char status[256], *err;
	void *lib;
	int rc = -1;

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), NULL, &t_tool_cfg), 0);
	lib = dlopen(t_tool_path(), RTLD_NOW | RTLD_NOLOAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lib);
	*(void **)&c.onload = dlsym(lib, "OnLoad");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.onload);
	/* The table it wraps already: true (not a failed tool), nothing on stderr. */
	c.table = h.root;
	err = t_capture_stderr(call_onload, &c, &rc);
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_STRING_EQUAL(err, "");
	free(err);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	p.status(status, sizeof(status));
	CU_ASSERT_PTR_NOT_NULL(strstr(status, "active: "));
	CU_ASSERT_PTR_NULL(strstr(status, "inactive"));
	t_proc_unbind(&p);
	/* Still scheduled: a new queue is a proxy. */
	q = t_tool_queue(&h, 64);
	CU_ASSERT(q && t_tool_is_proxy(&h, q));
	/* Another table: left alone, one line that says so, still true. */
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&t_tool_cfg, &other), 0);
	c.table = hsaqm_sim_hsa_table(other);
	err = t_capture_stderr(call_onload, &c, &rc);
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_EQUAL(t_count(err, "\n"), 1u);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "second HSA API table"));
	free(err);
	hsaqm_sim_destroy(other);
	if (q)
		h.core->hsa_queue_destroy_fn(q);
	dlclose(lib);
	t_tool_close(&h, NULL);
}

static const struct t_case cases[] = {
	T_CASE(test_hsa_init_loads_the_tool_and_gpu_queues_become_proxies),
	T_CASE(test_unknown_layout_installs_nothing_says_one_line_app_runs),
	T_CASE(test_onload_again_keeps_the_table_scheduled_and_says_so_truthfully),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "tool-load", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	if (!t_tool_path())
		return t_skip("tool-load", "HSAQM_TEST_TOOL_LIB is not set (run through meson test)");
	return t_run("tool-load", suites);
}
