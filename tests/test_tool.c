/* SPDX-License-Identifier: MIT */
/*
 * libhsaqm-tool.so on the device model, loaded as ROCr loads it: HSA_TOOLS_LIB names it, the
 * model's hsa_init opens it and calls OnLoad with the model's HsaApiTable (sim/hsa_face_tools.c),
 * hsa_shut_down calls OnUnload. Proves: the settings (names, numbers, bad values), queues of a
 * GPU become proxies and run what a ROCclr-style client submits, the table is left alone on an
 * unknown layout (one line on stderr, the application runs), chaining with a fake profiler
 * loaded before and after, HIP and process priorities reach the xqueues, suspend/resume of the
 * whole process, and destroy while packets are held (Lv1) or gated (Lv2).
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

#define KERNEL_NS (20 * T_US)

struct kstat {
	uint32_t wgs; /* atomic: workgroups run */
};

static struct kstat g_k;

static void wg_count(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct kstat *k = arg;

	(void)dispatch_id, (void)wg, (void)kernarg;
	/* Engine thread; acq_rel: pairs with the test's acquire after the completion wait. */
	hsaqm_fetch_add(&k->wgs, 1u);
}

static const struct hsaqm_sim_config g_cfg = { .num_devices = 1,
					       .time_mode = HSAQM_SIM_TIME_REAL,
					       .seed = 5 };

static uint64_t kernel(struct t_hsa *h, uint64_t ns, uint32_t waves)
{
	struct hsaqm_sim_kernel_desc d = { .name = "k", .duration_ns = ns, .waves_per_wg = waves,
					   .wg_callback = wg_count, .wg_callback_arg = &g_k };
	uint64_t k = 0;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_kernel_register(h->sim, &d, &k), 0);
	return k;
}

static struct hsaqm_hsa_queue *queue(struct t_hsa *h, uint32_t size)
{
	struct hsaqm_hsa_queue *q = NULL;

	CU_ASSERT_EQUAL(h->core->hsa_queue_create_fn(h->gpu[0], size, HSAQM_HSA_QUEUE_TYPE_MULTI,
						     NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_SUCCESS);
	return q;
}

static void submit(struct t_hsa *h, struct hsaqm_hsa_queue *q, uint64_t kobj, uint32_t nwg,
		   struct hsaqm_hsa_signal cs)
{
	union hsaqm_aql_packet pk = t_hsa_dispatch(kobj, nwg, cs.handle, true, NULL);

	t_rocclr_submit(h->core, q, &pk, NULL, NULL);
}

/* ---- Settings ------------------------------------------------------------------------------ */

static const char *const *g_env_table;

static const char *table_get(const char *name)
{
	size_t n = strlen(name);

	for (const char *const *e = g_env_table; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static void test_config_names_numbers_and_bad_values_fall_back(void)
{
	struct hsaqm_tool_config c;
	int p;
	enum hsaqm_level lv;
	static const char *const good[] = {
		"HSAQM_PRIORITY=online", "HSAQM_LEVEL=lv1", "HSAQM_LV1_THRESHOLD=4",
		"HSAQM_LV1_BATCH=2", "HSAQM_LV2_INTERVAL=3", "HSAQM_POLICY=util",
		"HSAQM_FLOOR=10000:1000", "HSAQM_PRIORITY_STEP=20", "HSAQM_STATS_FILE=/tmp/x.json",
		NULL,
	};
	static const char *const bad[] = {
		"HSAQM_PRIORITY=urgent", "HSAQM_LEVEL=lv9", "HSAQM_LV1_THRESHOLD=0",
		"HSAQM_LV2_INTERVAL=abc", "HSAQM_POLICY=fifo", "HSAQM_FLOOR=5:10",
		"HSAQM_PRIORITY_STEP=-1", "HSAQM_TOOL_DISABLE=xyz", NULL,
	};

	CU_ASSERT_EQUAL(hsaqm_tool_parse_priority("high", &p), 0);
	CU_ASSERT_EQUAL(p, HSAQM_TOOL_PRIORITY_HIGH);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_priority("OFFLINE", &p), 0);
	CU_ASSERT_EQUAL(p, HSAQM_TOOL_PRIORITY_LOW);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_priority("-100", &p), 0);
	CU_ASSERT_EQUAL(p, -100);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_priority("101", &p), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_priority("5x", &p), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_priority("", &p), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_level("3", &lv), 0);
	CU_ASSERT_EQUAL(lv, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_level("none", &lv), 0);
	CU_ASSERT_EQUAL(lv, HSAQM_LEVEL_NONE);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_level("4", &lv), -EINVAL);

	g_env_table = good;
	hsaqm_tool_config_read(&c, table_get);
	CU_ASSERT_EQUAL(c.bad, 0u);
	CU_ASSERT_EQUAL(c.priority, HSAQM_TOOL_PRIORITY_HIGH);
	CU_ASSERT_EQUAL(c.level, HSAQM_LEVEL_1);
	CU_ASSERT_EQUAL(c.lv1_threshold, 4u);
	CU_ASSERT_EQUAL(c.lv1_batch, 2u);
	CU_ASSERT_EQUAL(c.lv2_interval, 3u);
	CU_ASSERT_EQUAL(c.policy.kind, HSAQM_POLICY_UTIL);
	CU_ASSERT_EQUAL(c.policy.floor_period_us, 10000u);
	CU_ASSERT_EQUAL(c.policy.floor_slice_us, 1000u);
	CU_ASSERT_EQUAL(c.priority_step, 20);
	CU_ASSERT_STRING_EQUAL(c.stats_file, "/tmp/x.json");

	/* Each bad value: counted (one message each) and the default kept. */
	g_env_table = bad;
	hsaqm_tool_config_read(&c, table_get);
	CU_ASSERT_EQUAL(c.bad, 8u);
	CU_ASSERT_FALSE(c.disabled); /* "xyz" is no switch: said, and the default (enabled) */
	CU_ASSERT_EQUAL(c.priority, 0);
	CU_ASSERT_EQUAL(c.level, HSAQM_TOOL_LEVEL_DEFAULT);
	CU_ASSERT_EQUAL(c.lv1_threshold, 0u);
	CU_ASSERT_EQUAL(c.lv2_interval, 0u);
	CU_ASSERT_EQUAL(c.policy.kind, HSAQM_POLICY_HPF);
	CU_ASSERT_EQUAL(c.policy.floor_period_us, 0u);
	CU_ASSERT_EQUAL(c.priority_step, HSAQM_TOOL_PRIORITY_STEP_DEFAULT);

	/* The disable switch takes the usual spellings, and nothing else. */
	static const char *const off[] = { "HSAQM_TOOL_DISABLE=On", NULL };
	static const char *const on[] = { "HSAQM_TOOL_DISABLE=false", NULL };
	g_env_table = off;
	hsaqm_tool_config_read(&c, table_get);
	CU_ASSERT(c.disabled && c.bad == 0);
	g_env_table = on;
	hsaqm_tool_config_read(&c, table_get);
	CU_ASSERT(!c.disabled && c.bad == 0);

	/* A batch above the threshold is refused (lib would refuse the queue). */
	static const char *const batch[] = { "HSAQM_LV1_THRESHOLD=2", "HSAQM_LV1_BATCH=8", NULL };
	g_env_table = batch;
	hsaqm_tool_config_read(&c, table_get);
	CU_ASSERT_EQUAL(c.bad, 1u);
	CU_ASSERT_EQUAL(c.lv1_threshold, 2u);
	CU_ASSERT_EQUAL(c.lv1_batch, 0u);
}

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

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&g_cfg, &h.sim), 0);
	orig_create = ((struct hsaqm_api_root_v3 *)hsaqm_sim_hsa_table(h.sim))->core->hsa_queue_create_fn;
	hsaqm_sim_destroy(h.sim);

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), NULL, &g_cfg), 0);
	/* OnLoad replaced the entry (the face's own function is the same in every model). */
	CU_ASSERT_PTR_NOT_EQUAL(h.core->hsa_queue_create_fn, orig_create);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	CU_ASSERT_EQUAL(p.status(status, sizeof(status)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(status, "active: "));
	CU_ASSERT_PTR_NULL(strstr(status, "inactive"));

	k = kernel(&h, KERNEL_NS, 1);
	q = queue(&h, 256);
	CU_ASSERT_FATAL(q != NULL);
	CU_ASSERT(t_tool_is_proxy(&h, q));
	CU_ASSERT_EQUAL(q->size, 256u);
	/* The proxy mirrors the hardware queue's amd_queue_t fields clients read (ROCclr). */
	CU_ASSERT_NOT_EQUAL(((struct hsaqm_amd_queue *)q)->group_segment_aperture_base_hi, 0u);

	cs = t_hsa_signal(&h, 40);
	hsaqm_store_release(&g_k.wgs, 0u); /* release: zeroed before the 40 are submitted */
	for (int i = 0; i < 40; i++)
		submit(&h, q, k, 2, cs);
	CU_ASSERT(t_hsa_wait_le(&h, cs, 0, 10 * T_S));
	/* Acquire: pairs with wg_count's add, made before cs was decremented. */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_k.wgs), 80u);
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

/* Run @fn with stderr going to a file; returns what was written (malloc'ed). */
static char *capture_stderr(int (*fn)(void *), void *arg, int *rc)
{
	char path[] = "/tmp/hsaqm-test-tool-XXXXXX";
	int fd = mkstemp(path), saved;
	char *buf = calloc(1, 65536);
	ssize_t n;

	if (fd < 0 || !buf) {
		free(buf);
		return NULL;
	}
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	*rc = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, 65535);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return buf;
}

static int open_unknown_layout(void *arg)
{
	struct t_hsa *h = arg;
	struct hsaqm_api_root_v3 *root;
	int rc;

	rc = hsaqm_sim_create(&g_cfg, &h->sim);
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
	err = capture_stderr(open_unknown_layout, &h, &rc);
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

		CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&g_cfg, &other), 0);
		CU_ASSERT_PTR_EQUAL(before.hsa_queue_create_fn,
				    ((struct hsaqm_api_root_v3 *)hsaqm_sim_hsa_table(other))
					    ->core->hsa_queue_create_fn);
		CU_ASSERT_PTR_EQUAL(before.hsa_signal_store_screlease_fn,
				    ((struct hsaqm_api_root_v3 *)hsaqm_sim_hsa_table(other))
					    ->core->hsa_signal_store_screlease_fn);
		hsaqm_sim_destroy(other);
	}
	/* The application runs on, unscheduled. */
	q = queue(&h, 64);
	CU_ASSERT_FATAL(q != NULL);
	CU_ASSERT(!t_tool_is_proxy(&h, q));
	cs = t_hsa_signal(&h, 5);
	for (int i = 0; i < 5; i++)
		submit(&h, q, kernel(&h, KERNEL_NS, 1), 1, cs);
	CU_ASSERT(t_hsa_wait_le(&h, cs, 0, 10 * T_S));
	h.core->hsa_queue_destroy_fn(q);
	h.core->hsa_signal_destroy_fn(cs);
	t_proc_unbind(&p);
	t_tool_close(&h, NULL);
}

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
	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, tools, NULL, &g_cfg), 0);
	fh = dlopen(fake, RTLD_NOW | RTLD_NOLOAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fh);
	*(void **)&get = dlsym(fh, "fake_tool_get");
	CU_ASSERT_PTR_NOT_NULL_FATAL(get);

	k = kernel(&h, KERNEL_NS, 1);
	q = queue(&h, 128);
	CU_ASSERT_FATAL(q != NULL);
	CU_ASSERT(t_tool_is_proxy(&h, q));
	cs = t_hsa_signal(&h, 30);
	for (int i = 0; i < 30; i++)
		submit(&h, q, k, 1, cs);
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

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), env, &g_cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	qa = queue(&h, 64); /* gpu<N>-q0 */
	qb = queue(&h, 64); /* gpu<N>-q1 */
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

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), NULL, &g_cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	k = kernel(&h, KERNEL_NS, 1);
	qa = queue(&h, 64);
	CU_ASSERT_EQUAL(p.suspend(), 0);
	qb = queue(&h, 64); /* created while suspended: held too */
	CU_ASSERT_FATAL(qa && qb);
	cs = t_hsa_signal(&h, 20);
	for (int i = 0; i < 10; i++) {
		submit(&h, qa, k, 1, cs);
		submit(&h, qb, k, 1, cs);
	}
	/* 50 kernel lengths later nothing has completed (gates closed before any release). */
	t_sleep_us(50 * KERNEL_NS / 1000);
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
	char *err = capture_stderr(set_prio, &c, &rc);

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

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), NULL, &g_cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	k = kernel(&h, KERNEL_NS, 1);
	q = queue(&h, 64);
	q2 = queue(&h, 64);
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
		submit(&h, q, k, 1, cs);
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

/* ---- Destroy while held or gated ----------------------------------------------------------- */

static void destroy_run(const char *const *env)
{
	struct t_hsa h;
	struct t_proc p;
	struct hsaqm_hsa_queue *hi, *lo, *mid;
	struct hsaqm_hsa_signal cs_hi, cs_lo, cs_mid, cs_hi2;
	uint64_t k;

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), env, &g_cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	/* 80 CUs: 80 one-wave workgroups of 200 us fill the device (model profile). */
	k = kernel(&h, 200 * T_US, 1);
	hi = queue(&h, 64);
	mid = queue(&h, 64);
	lo = queue(&h, 64);
	CU_ASSERT_FATAL(hi && lo && mid);
	h.amd->hsa_amd_queue_set_priority_fn(hi, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	h.amd->hsa_amd_queue_set_priority_fn(lo, HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW);
	cs_hi = t_hsa_signal(&h, 10);
	cs_mid = t_hsa_signal(&h, 10);
	cs_lo = t_hsa_signal(&h, 10);
	cs_hi2 = t_hsa_signal(&h, 5);
	/* The high queue busy (about 2 ms): the others are preempted at their level. */
	for (int i = 0; i < 10; i++)
		submit(&h, hi, k, 80, cs_hi);
	for (int i = 0; i < 10; i++) {
		submit(&h, lo, k, 80, cs_lo);
		submit(&h, mid, k, 80, cs_mid);
	}
	t_sleep_us(300);
	/* Destroy the low queue while its packets are gated (Lv2) or held (Lv1): all run. */
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(lo), HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs_lo), 0);
	CU_ASSERT(t_hsa_wait_le(&h, cs_hi, 0, 20 * T_S));
	/* Destroy the high queue while it is held by hand with work: all runs. */
	CU_ASSERT_EQUAL(p.suspend(), 0);
	for (int i = 0; i < 5; i++)
		submit(&h, hi, k, 80, cs_hi2);
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

/* ---- The proxy's descriptor across ROCr's queue structures (issue 15) --------------------- */

/* The model's one hardware queue (behind the one proxy), as ROCr's descriptor; NULL if not one. */
static struct hsaqm_amd_queue *only_hw_queue(struct t_hsa *h)
{
	struct hsa_face *f = (struct hsa_face *)((char *)h->root - offsetof(struct hsa_face, root));
	struct hsaqm_amd_queue *amd = NULL;
	unsigned int n = 0;

	pthread_mutex_lock(&f->lock);
	for (struct hsa_face_queue *fq = f->queues; fq; fq = fq->next, n++)
		amd = fq->amd;
	pthread_mutex_unlock(&f->lock);
	return n == 1 ? amd : NULL;
}

/* Word @w of a descriptor (4-byte words, as hsaqm mirrors them). */
static uint32_t word(const void *desc, size_t w)
{
	uint32_t v;

	memcpy(&v, (const char *)desc + 4 * w, sizeof(v));
	return v;
}

/* Whether byte offset @off is one of the proxy's own words (not mirrored). */
static bool proxy_own(size_t off)
{
	return off < offsetof(struct hsaqm_amd_queue, caps) ||
	       (off >= offsetof(struct hsaqm_amd_queue, write_dispatch_id) &&
		off < offsetof(struct hsaqm_amd_queue, group_segment_aperture_base_hi)) ||
	       (off >= offsetof(struct hsaqm_amd_queue, max_legacy_doorbell_dispatch_id_plus_1) &&
		off < offsetof(struct hsaqm_amd_queue, reserved2)) ||
	       (off >= offsetof(struct hsaqm_amd_queue, read_dispatch_id) &&
		off < offsetof(struct hsaqm_amd_queue, read_dispatch_id_field_base_byte_offset));
}

/* Every mirrored word of the proxy's first 256 bytes equals the hardware queue's. */
static unsigned int mirror_mismatches(const struct hsaqm_hsa_queue *q,
				      const struct hsaqm_amd_queue *hw)
{
	unsigned int bad = 0;

	for (size_t w = 0; w < sizeof(struct hsaqm_amd_queue) / 4; w++)
		if (!proxy_own(4 * w) && word(q, w) != word(hw, w))
			bad++;
	return bad;
}

static void test_proxy_is_an_amd_queue_v2_with_no_queue_object_for_any_rocr(void)
{
	struct t_hsa h;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_amd_queue *hw;
	const unsigned char *bytes;
	void *obj;
	size_t nonzero = 0;

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), NULL, &g_cfg), 0);
	q = queue(&h, 128);
	CU_ASSERT_FATAL(q != NULL && t_tool_is_proxy(&h, q));
	hw = only_hw_queue(&h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(hw);
	CU_ASSERT_EQUAL((uintptr_t)q % HSAQM_AMD_QUEUE_ALIGN, 0u);

	/*
	 * ROCr's Queue::Convert reads its object pointer behind the descriptor: at 256 up to
	 * ROCm 6.3, at 2304 (sizeof(amd_queue_v2_t)) from 6.4. A proxy has NULL at both, and
	 * zeros up to HSAQM_PROXY_QUEUE_DESC_SIZE (ASan reports a read past what was allocated).
	 */
	memcpy(&obj, (const char *)q + HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V1, sizeof(obj));
	CU_ASSERT_PTR_NULL(obj);
	memcpy(&obj, (const char *)q + HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V2, sizeof(obj));
	CU_ASSERT_PTR_NULL(obj);
	bytes = (const unsigned char *)q;
	for (size_t i = sizeof(struct hsaqm_amd_queue); i < HSAQM_PROXY_QUEUE_DESC_SIZE; i++)
		nonzero += bytes[i] != 0;
	CU_ASSERT_EQUAL(nonzero, 0u);

	/* The first 256 bytes mirror the hardware queue's, v2 fields (caps, alternate scratch)
	 * included; the proxy's own words are its own. */
	CU_ASSERT_EQUAL(mirror_mismatches(q, hw), 0u);
	CU_ASSERT_PTR_NOT_EQUAL(q->base_address, hw->hsa_queue.base_address);
	CU_ASSERT_NOT_EQUAL(q->doorbell_signal.handle, hw->hsa_queue.doorbell_signal.handle);
	CU_ASSERT_EQUAL(q->size, 128u);
	CU_ASSERT_EQUAL(q->id, hw->hsa_queue.id);
	CU_ASSERT_EQUAL(((struct hsaqm_amd_queue *)q)->write_dispatch_id, 0u);
	CU_ASSERT_EQUAL(((struct hsaqm_amd_queue *)q)->read_dispatch_id, 0u);

	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), HSAQM_HSA_STATUS_SUCCESS);
	t_tool_close(&h, NULL);
}

static void test_scratch_event_refreshes_the_proxy_at_its_next_doorbell(void)
{
	struct t_hsa h;
	struct hsaqm_api_layout l;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_amd_queue *hw, *pq;
	struct hsaqm_hsa_signal cs;
	hsaqm_hsa_amd_tool_event_fn ev_fn = NULL;
	void **slot;
	uint64_t k;

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), NULL, &g_cfg), 0);
	/* The tool set the event entry of the runtime's ToolsApiTable (the model's: ROCm 6.3). */
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(h.root, 3, &l), 0);
	slot = hsaqm_api_table_slot(h.root, &l, HSAQM_API_TOOLS_SCRATCH_ALLOC_END);
	CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
	memcpy(&ev_fn, slot, sizeof(ev_fn));
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev_fn);

	k = kernel(&h, KERNEL_NS, 1);
	q = queue(&h, 64);
	CU_ASSERT_FATAL(q != NULL && t_tool_is_proxy(&h, q));
	pq = (struct hsaqm_amd_queue *)q;
	hw = only_hw_queue(&h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(hw);

	/* ROCr grows the hardware queue's scratch (the model never reads these fields). */
	hw->caps |= HSAQM_AMD_QUEUE_CAPS_SW_ASYNC_RECLAIM;
	hw->compute_tmpring_size = 0x1234;
	hw->scratch_backing_memory_location = 0x7f0000100000ull;
	hw->scratch_backing_memory_byte_size = 1ull << 26;
	hw->alt_scratch_resource_descriptor[2] = 0xa1;
	hw->alt_compute_tmpring_size = 0x55;

	/* No event yet: a doorbell leaves the proxy's mirror as it was. */
	cs = t_hsa_signal(&h, 1);
	submit(&h, q, k, 1, cs);
	CU_ASSERT(t_hsa_wait_le(&h, cs, 0, 10 * T_S));
	CU_ASSERT_EQUAL(pq->scratch_backing_memory_location, 0u);
	CU_ASSERT_NOT_EQUAL(mirror_mismatches(q, hw), 0u);

	/* The event, as ROCr raises it (the record names the hardware queue). */
	{
		struct hsaqm_hsa_amd_tool_event_scratch rec = {
			.kind = HSAQM_HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_END, .queue = &hw->hsa_queue,
		};
		hsaqm_hsa_amd_tool_event_t ev = { .scratch = &rec };

		CU_ASSERT_EQUAL(ev_fn(ev), HSAQM_HSA_STATUS_SUCCESS);
	}
	/* The next doorbell mirrors the new fields before its packets go. */
	h.core->hsa_signal_store_relaxed_fn(cs, 1);
	submit(&h, q, k, 1, cs);
	CU_ASSERT(t_hsa_wait_le(&h, cs, 0, 10 * T_S));
	CU_ASSERT_EQUAL(mirror_mismatches(q, hw), 0u);
	CU_ASSERT_EQUAL(pq->scratch_backing_memory_location, 0x7f0000100000ull);
	CU_ASSERT_EQUAL(pq->scratch_backing_memory_byte_size, 1ull << 26);
	CU_ASSERT_EQUAL(pq->compute_tmpring_size, 0x1234u);
	CU_ASSERT_EQUAL(pq->alt_compute_tmpring_size, 0x55u);
	CU_ASSERT(pq->caps & HSAQM_AMD_QUEUE_CAPS_SW_ASYNC_RECLAIM);
	/* ... and keeps its own: its ring, its doorbell, its dispatch ids. */
	CU_ASSERT_PTR_NOT_EQUAL(q->base_address, hw->hsa_queue.base_address);
	CU_ASSERT_EQUAL(q->size, 64u);
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_write_index_relaxed_fn(q), 2u);
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_read_index_scacquire_fn(q), 2u);
	/* The descriptor past 256 bytes is still all zero. */
	{
		void *obj;

		memcpy(&obj, (const char *)q + HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V2, sizeof(obj));
		CU_ASSERT_PTR_NULL(obj);
	}

	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), HSAQM_HSA_STATUS_SUCCESS);
	h.core->hsa_signal_destroy_fn(cs);
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

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), NULL, &g_cfg), 0);
	lib = dlopen(t_tool_path(), RTLD_NOW | RTLD_NOLOAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lib);
	*(void **)&c.onload = dlsym(lib, "OnLoad");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.onload);
	/* The table it wraps already: true (not a failed tool), nothing on stderr. */
	c.table = h.root;
	err = capture_stderr(call_onload, &c, &rc);
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
	q = queue(&h, 64);
	CU_ASSERT(q && t_tool_is_proxy(&h, q));
	/* Another table: left alone, one line that says so, still true. */
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&g_cfg, &other), 0);
	c.table = hsaqm_sim_hsa_table(other);
	err = capture_stderr(call_onload, &c, &rc);
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
	T_CASE(test_config_names_numbers_and_bad_values_fall_back),
	T_CASE(test_hsa_init_loads_the_tool_and_gpu_queues_become_proxies),
	T_CASE(test_unknown_layout_installs_nothing_says_one_line_app_runs),
	T_CASE(test_onload_again_keeps_the_table_scheduled_and_says_so_truthfully),
	T_CASE(test_chaining_with_a_profiler_loaded_before),
	T_CASE(test_chaining_with_a_profiler_loaded_after),
	T_CASE(test_hip_and_process_priorities_reach_the_xqueues),
	T_CASE(test_process_suspend_holds_every_queue_and_resume_releases),
	T_CASE(test_a_second_priority_on_a_shared_queue_is_said_once_and_counted),
	T_CASE(test_destroy_while_gated_lv2_loses_nothing_leaves_no_gate_closed),
	T_CASE(test_destroy_while_held_lv1_loses_nothing_leaves_nothing_held),
	T_CASE(test_proxy_is_an_amd_queue_v2_with_no_queue_object_for_any_rocr),
	T_CASE(test_scratch_event_refreshes_the_proxy_at_its_next_doorbell),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "tool", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	if (!t_tool_path())
		return t_skip("tool", "HSAQM_TEST_TOOL_LIB is not set (run through meson test)");
	return t_run("tool", suites);
}
