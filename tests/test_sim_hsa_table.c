/* SPDX-License-Identifier: MIT */
/*
 * The device model's HSA face, its table: what ROCr 6.3 hands a tool's OnLoad (the detector
 * says so; a tool can wrap and chain entries), init's reference count, one table and state per
 * model, system info and status strings, the entries it does not offer, and its constants
 * against the installed HSA headers. Every call goes through the table, as a client's would.
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

#if defined(__has_include)
#if __has_include(<hsa/hsa.h>) && __has_include(<hsa/hsa_ext_amd.h>)
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#define HAVE_HSA_HEADERS 1
#endif
#endif

/* Prototypes of the entries the mirror types as hsaqm_api_fn. */
typedef hsaqm_hsa_status_t (*sysinfo_fn)(uint32_t, void *);
typedef hsaqm_hsa_status_t (*status_string_fn)(hsaqm_hsa_status_t, const char **);
typedef hsaqm_hsa_status_t (*ptr_fn)(void *);
typedef hsaqm_hsa_status_t (*group_create_fn)(uint32_t, const struct hsaqm_hsa_signal *, uint32_t,
					      const struct hsaqm_hsa_agent *, void *);
typedef hsaqm_hsa_status_t (*exec_create_fn)(uint32_t, uint32_t, const char *, void *);

static void test_table_is_detected_as_rocm_6_1_plus_with_every_entry_present(void)
{
	struct t_face h;
	struct hsaqm_api_layout l;

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	/* Headers exactly as ROCr 6.3 writes them. */
	CU_ASSERT_EQUAL(h.root->version.major_id, 3);
	CU_ASSERT_EQUAL(h.root->version.minor_id, 64);
	CU_ASSERT_EQUAL(h.root->version.step_id, 1);
	CU_ASSERT_EQUAL(h.core->version.major_id, 2);
	CU_ASSERT_EQUAL(h.core->version.minor_id, 1016);
	CU_ASSERT_EQUAL(h.core->version.step_id, 0);
	CU_ASSERT_EQUAL(h.amd->version.major_id, 2);
	CU_ASSERT_EQUAL(h.amd->version.minor_id, 584);
	CU_ASSERT_EQUAL(h.amd->version.step_id, 4);
	CU_ASSERT_PTR_NOT_NULL(h.root->tools);

	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(h.root, h.root->version.major_id, &l), 0);
	CU_ASSERT_EQUAL(l.id, HSAQM_API_LAYOUT_ROCM_6_1);
	for (int e = 0; e < HSAQM_API_ENTRY_COUNT; e++) {
		/* Everything up to 6.3 is there; development-only entries (step >= 9) are not. */
		bool dev_only = e == HSAQM_API_AMD_COUNTED_QUEUE_ACQUIRE ||
				e == HSAQM_API_AMD_COUNTED_QUEUE_RELEASE ||
				e == HSAQM_API_AMD_QUEUE_CREATE;
		CU_ASSERT_EQUAL(l.entry[e].present, !dev_only);
		if (l.entry[e].present) {
			void **slot = hsaqm_api_table_slot(h.root, &l, (enum hsaqm_api_entry)e);

			CU_ASSERT_PTR_NOT_NULL(slot);
			CU_ASSERT_PTR_NOT_NULL(slot ? *slot : NULL);
		}
	}
	/* Never a NULL slot: a client cannot crash on any entry the headers declare. */
	const hsaqm_api_fn *core_fns = (const hsaqm_api_fn *)((const char *)h.core + 16);
	for (size_t i = 0; i < (1016 - 16) / 8; i++)
		CU_ASSERT_PTR_NOT_NULL(core_fns[i]);
	const hsaqm_api_fn *amd_fns = (const hsaqm_api_fn *)((const char *)h.amd + 16);
	for (size_t i = 0; i < (584 - 16) / 8; i++)
		CU_ASSERT_PTR_NOT_NULL(amd_fns[i]);
	const struct hsa_face_tools_table *tools = h.root->tools;
	CU_ASSERT_EQUAL(tools->version.major_id, 1);
	CU_ASSERT_EQUAL(tools->version.minor_id, 64);
	CU_ASSERT_PTR_NOT_NULL(tools->scratch_event_alloc_start_fn);
	CU_ASSERT_PTR_NOT_NULL(tools->scratch_event_async_reclaim_end_fn);
	t_face_close(&h);
}

/* A tool as hsaqm's: OnLoad wraps hsa_queue_create and the doorbell store, and chains. */
static struct {
	hsaqm_hsa_queue_create_fn queue_create;
	hsaqm_hsa_signal_store_fn store_screlease;
	int creates;
	int stores;
	uint64_t runtime_version;
} tool;

static hsaqm_hsa_status_t tool_queue_create(struct hsaqm_hsa_agent agent, uint32_t size,
					    uint32_t type, hsaqm_hsa_queue_callback_fn cb,
					    void *data, uint32_t priv, uint32_t group,
					    struct hsaqm_hsa_queue **queue)
{
	tool.creates++;
	return tool.queue_create(agent, size, type, cb, data, priv, group, queue);
}

static void tool_store_screlease(struct hsaqm_hsa_signal s, int64_t v)
{
	tool.stores++;
	tool.store_screlease(s, v);
}

static bool tool_on_load(void *table, uint64_t runtime_version, uint64_t failed_tool_count,
			 const char *const *failed_tool_names)
{
	struct hsaqm_api_layout l;

	tool.runtime_version = runtime_version;
	if (hsaqm_api_table_detect(table, runtime_version, &l) || l.id != HSAQM_API_LAYOUT_ROCM_6_1)
		return false;
	void **qc = hsaqm_api_table_slot(table, &l, HSAQM_API_QUEUE_CREATE);
	void **st = hsaqm_api_table_slot(table, &l, HSAQM_API_SIGNAL_STORE_SCRELEASE);
	if (!qc || !st)
		return false;
	/* Save the runtime's function, store the wrapper: what every tool does. */
	memcpy(&tool.queue_create, qc, sizeof(tool.queue_create));
	memcpy(&tool.store_screlease, st, sizeof(tool.store_screlease));
	hsaqm_hsa_queue_create_fn w1 = tool_queue_create;
	hsaqm_hsa_signal_store_fn w2 = tool_store_screlease;
	memcpy(qc, &w1, sizeof(w1));
	memcpy(st, &w2, sizeof(w2));
	return true;
}

static void test_tool_onload_receives_the_table_and_wraps_and_chains_entries(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct hsaqm_sim *sim;
	struct t_face h;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	struct hsaqm_api_root_v3 *root = hsaqm_sim_hsa_table(sim);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_PTR_EQUAL(hsaqm_sim_hsa_table(sim), root); /* one table per model */
	memset(&tool, 0, sizeof(tool));
	/* As ROCr's runtime.cpp: OnLoad(&table, table.version.major_id, 0, NULL), before use. */
	CU_ASSERT_TRUE(tool_on_load(root, root->version.major_id, 0, NULL));
	CU_ASSERT_EQUAL(tool.runtime_version, 3);

	memset(&h, 0, sizeof(h));
	h.sim = sim;
	h.root = root;
	h.core = root->core;
	h.amd = root->amd_ext;
	CU_ASSERT_EQUAL_FATAL(h.core->hsa_init_fn(), 0);
	CU_ASSERT_EQUAL_FATAL(h.core->hsa_iterate_agents_fn(t_face_collect_agent, &h), 0);
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 64, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	CU_ASSERT_EQUAL(tool.creates, 1);

	/* The client's submissions go through the wrapped doorbell store, and still run. */
	uint64_t k = t_face_kernel(&h, 10 * T_US, 1, NULL, NULL);
	struct hsaqm_hsa_signal cs = t_face_signal(&h, 1);
	union hsaqm_aql_packet p = t_face_dispatch(k, 2, cs.handle);
	t_face_submit(&h, q, &p);
	CU_ASSERT_EQUAL(tool.stores, 1);
	CU_ASSERT_EQUAL(t_face_wait_eq(&h, cs, 0, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_read_index_relaxed_fn(q), 1);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	t_face_close(&h);
}

static void test_calls_before_init_fail_and_init_is_reference_counted(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct hsaqm_sim *sim;
	struct hsaqm_hsa_signal s;
	uint16_t major = 0;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	struct hsaqm_api_root_v3 *root = hsaqm_sim_hsa_table(sim);
	struct hsaqm_core_api_table *c = root->core;
	sysinfo_fn get_info = (sysinfo_fn)c->hsa_system_get_info_fn;

	CU_ASSERT_EQUAL(c->hsa_iterate_agents_fn(t_face_collect_agent, NULL),
			HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(get_info(SIM_HSA_SYSTEM_INFO_VERSION_MAJOR, &major),
			HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(c->hsa_signal_create_fn(0, 0, NULL, &s),
			HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(c->hsa_shut_down_fn(), HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED);

	CU_ASSERT_EQUAL(c->hsa_init_fn(), 0);
	CU_ASSERT_EQUAL(c->hsa_init_fn(), 0);
	CU_ASSERT_EQUAL(c->hsa_shut_down_fn(), 0);
	CU_ASSERT_EQUAL(get_info(SIM_HSA_SYSTEM_INFO_VERSION_MAJOR, &major), 0); /* still one ref */
	CU_ASSERT_EQUAL(major, 1);
	/* The last shut-down takes the queues with it, as ROCr unloading. */
	struct t_face h = { .sim = sim, .root = root, .core = c, .amd = root->amd_ext };
	CU_ASSERT_EQUAL(c->hsa_iterate_agents_fn(t_face_collect_agent, &h), 0);
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 64, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL(q);
	CU_ASSERT_EQUAL(c->hsa_shut_down_fn(), 0);
	CU_ASSERT_EQUAL(c->hsa_queue_destroy_fn(q), HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE);
	CU_ASSERT_EQUAL(c->hsa_shut_down_fn(), HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(c->hsa_queue_create_fn(h.gpu[0], 64, 0, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED);
	hsaqm_sim_destroy(sim);
}

static void test_two_models_have_separate_tables_and_state(void)
{
	struct t_face a;
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct hsaqm_sim *sim_b;

	CU_ASSERT_FATAL(t_face_open(&a, HSAQM_SIM_TIME_VIRTUAL, 1));
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim_b), 0);
	struct hsaqm_api_root_v3 *b = hsaqm_sim_hsa_table(sim_b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_EQUAL(b, a.root);
	/* The entries without a handle are per model: B is not initialized by A's hsa_init. */
	CU_ASSERT_PTR_NOT_EQUAL((void *)b->core->hsa_init_fn, (void *)a.core->hsa_init_fn);
	CU_ASSERT_EQUAL(b->core->hsa_iterate_agents_fn(t_face_collect_agent, NULL),
			HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(b->core->hsa_init_fn(), 0);
	struct t_face hb = { .sim = sim_b, .root = b, .core = b->core, .amd = b->amd_ext };
	CU_ASSERT_EQUAL(b->core->hsa_iterate_agents_fn(t_face_collect_agent, &hb), 0);
	CU_ASSERT_NOT_EQUAL(hb.gpu[0].handle, a.gpu[0].handle);
	/* A signal of B lives in B's memory. */
	struct hsaqm_hsa_signal s = t_face_signal(&hb, 3);
	CU_ASSERT_TRUE(sim_mem_contains(sim_b, (void *)(uintptr_t)s.handle, 8));
	CU_ASSERT_FALSE(sim_mem_contains(a.sim, (void *)(uintptr_t)s.handle, 8));
	CU_ASSERT_EQUAL(b->core->hsa_shut_down_fn(), 0);
	hsaqm_sim_destroy(sim_b);
	t_face_close(&a);
}

static void test_system_info_version_timestamps_and_status_strings(void)
{
	struct t_face h;
	uint16_t v16 = 0;
	uint64_t v64 = 0, t0 = 0, t1 = 0;
	uint32_t v32 = 9;
	const char *str = NULL;

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	sysinfo_fn get = (sysinfo_fn)h.core->hsa_system_get_info_fn;
	CU_ASSERT_EQUAL(get(SIM_HSA_SYSTEM_INFO_VERSION_MAJOR, &v16), 0);
	CU_ASSERT_EQUAL(v16, 1);
	CU_ASSERT_EQUAL(get(SIM_HSA_SYSTEM_INFO_VERSION_MINOR, &v16), 0);
	CU_ASSERT_EQUAL(v16, 1);
	CU_ASSERT_EQUAL(get(SIM_HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &v64), 0);
	CU_ASSERT_EQUAL(v64, 1000000000ull);
	/* Timestamps are model nanoseconds. */
	CU_ASSERT_EQUAL(get(SIM_HSA_SYSTEM_INFO_TIMESTAMP, &t0), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_advance(h.sim, 12345), 0);
	CU_ASSERT_EQUAL(get(SIM_HSA_SYSTEM_INFO_TIMESTAMP, &t1), 0);
	CU_ASSERT_EQUAL(t1 - t0, 12345);
	CU_ASSERT_EQUAL(get(SIM_HSA_SYSTEM_INFO_ENDIANNESS, &v32), 0);
	CU_ASSERT_EQUAL(v32, SIM_HSA_ENDIANNESS_LITTLE);
	CU_ASSERT_EQUAL(get(SIM_HSA_SYSTEM_INFO_MACHINE_MODEL, &v32), 0);
	CU_ASSERT_EQUAL(v32, SIM_HSA_MACHINE_MODEL_LARGE);
	CU_ASSERT_EQUAL(get(SIM_HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT, &v64), 0);
	CU_ASSERT_EQUAL(v64, UINT64_MAX);
	CU_ASSERT_EQUAL(get(0x1234, &v64), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(get(SIM_HSA_SYSTEM_INFO_TIMESTAMP, NULL),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);

	status_string_fn sstr = (status_string_fn)h.core->hsa_status_string_fn;
	CU_ASSERT_EQUAL(sstr(HSAQM_HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, &str), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(str);
	CU_ASSERT_PTR_NOT_NULL(strstr(str, "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT"));
	CU_ASSERT_EQUAL(sstr(0x7777, &str), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	t_face_close(&h);
}

static void test_unsupported_entries_return_an_error_instead_of_crashing(void)
{
	struct t_face h;
	size_t n = 0;

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	/* Group signals are not modelled. */
	group_create_fn gc = (group_create_fn)h.core->hsa_signal_group_create_fn;
	struct hsaqm_hsa_signal s = t_face_signal(&h, 0);
	uint64_t group = 0;
	CU_ASSERT_EQUAL(gc(1, &s, 0, NULL, &group), HSAQM_HSA_STATUS_ERROR);
	exec_create_fn ec = (exec_create_fn)h.core->hsa_executable_create_fn;
	CU_ASSERT_EQUAL(ec(0, 0, "", &group), HSAQM_HSA_STATUS_ERROR);
	CU_ASSERT_EQUAL(((ptr_fn)h.amd->hsa_amd_pointer_info_fn)(NULL), HSAQM_HSA_STATUS_ERROR);
	CU_ASSERT_EQUAL(h.amd->hsa_amd_queue_intercept_register_fn(NULL, NULL, NULL),
			HSAQM_HSA_STATUS_ERROR);
	CU_ASSERT_PTR_NOT_NULL(hsa_face_unsupported_names(&n));
	CU_ASSERT(n > 50);
	t_face_close(&h);
}

static void test_face_constants_match_the_installed_hsa_headers(void)
{
#ifdef HAVE_HSA_HEADERS
	CU_ASSERT_EQUAL(SIM_HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY,
			HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY);
	CU_ASSERT_EQUAL(SIM_HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT,
			HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT);
	CU_ASSERT_EQUAL(SIM_HSA_AGENT_INFO_NAME, HSA_AGENT_INFO_NAME);
	CU_ASSERT_EQUAL(SIM_HSA_AGENT_INFO_QUEUE_MAX_SIZE, HSA_AGENT_INFO_QUEUE_MAX_SIZE);
	CU_ASSERT_EQUAL(SIM_HSA_AGENT_INFO_DEVICE, HSA_AGENT_INFO_DEVICE);
	CU_ASSERT_EQUAL(SIM_HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES,
			HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES);
	CU_ASSERT_EQUAL(SIM_HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT,
			HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT);
	CU_ASSERT_EQUAL(SIM_HSA_AMD_AGENT_INFO_DRIVER_NODE_ID, HSA_AMD_AGENT_INFO_DRIVER_NODE_ID);
	CU_ASSERT_EQUAL(SIM_HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT,
			HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT);
	CU_ASSERT_EQUAL(SIM_HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT,
			HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT);
	CU_ASSERT_EQUAL(SIM_HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED,
			HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED);
	CU_ASSERT_EQUAL(SIM_HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE,
			HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE);
	CU_ASSERT_EQUAL(SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT,
			HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT);
	CU_ASSERT_EQUAL(SIM_HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS,
			HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS);
	CU_ASSERT_EQUAL(SIM_HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT,
			HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT);
	CU_ASSERT_EQUAL(SIM_HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR,
			HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
	CU_ASSERT_EQUAL(SIM_HSA_MACHINE_MODEL_LARGE, HSA_MACHINE_MODEL_LARGE);
#else
	printf(" (no HSA headers installed: only the face's own values are used)");
#endif
	/* Values the installed 5.2.3 headers predate (hsa_ext_amd.h of ROCm 6.x). */
	CU_ASSERT_EQUAL(SIM_HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY, 0xA016);
	CU_ASSERT_EQUAL(SIM_HSA_AMD_AGENT_INFO_NUM_XCC, 0xA111);
	CU_ASSERT_EQUAL(SIM_HSA_AMD_MEMORY_POOL_INFO_LOCATION, 17);
	CU_ASSERT_EQUAL(SIM_HSA_AMD_QUEUE_INFO_DOORBELL_ID, 1);
}

static const struct t_case cases[] = {
	T_CASE(test_table_is_detected_as_rocm_6_1_plus_with_every_entry_present),
	T_CASE(test_tool_onload_receives_the_table_and_wraps_and_chains_entries),
	T_CASE(test_calls_before_init_fail_and_init_is_reference_counted),
	T_CASE(test_two_models_have_separate_tables_and_state),
	T_CASE(test_system_info_version_timestamps_and_status_strings),
	T_CASE(test_unsupported_entries_return_an_error_instead_of_crashing),
	T_CASE(test_face_constants_match_the_installed_hsa_headers),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-hsa-table", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-hsa-table", suites);
}
