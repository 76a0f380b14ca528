/* SPDX-License-Identifier: MIT */
/*
 * The device model's HSA face: the HsaApiTable it hands out is what ROCr 6.3 hands a tool's
 * OnLoad (the detector says so, a tool can wrap and chain entries), and every entry a client
 * uses behaves as ROCr's does on the model: init, agents, pools, queues (creation errors, the
 * amd_queue_t, index functions, priority, CU mask, info, profiling, errors, inactivate,
 * destroy), signals (every operation, waits, wait-any, async handlers).
 *
 * Built twice: test-sim-hsa runs the virtual-time cases (deterministic, no threads);
 * test-sim-hsa-threaded (SIM_HSA_THREADED) runs the real-time cases with client threads,
 * including a ROCclr-style multi-producer submission, under TSan in `make test-tsan`.
 * Every call goes through the table, as a client's would.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hsa_face_internal.h"
#include "kfd_face_internal.h"
#include "hsaqm/aql.h"
#include "hsaqm/api_table.h"
#include "hsaqm/barrier.h"
#include "hsaqm/sim.h"
#include "sim_internal.h"
#include "t_cunit.h"
#include "t_time.h"

#if defined(__has_include)
#if __has_include(<hsa/hsa.h>) && __has_include(<hsa/hsa_ext_amd.h>)
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#define HAVE_HSA_HEADERS 1
#endif
#endif

#define US 1000ull
#define MS 1000000ull
#define SEC 1000000000ull

/* Prototypes of the entries the mirror types as hsaqm_api_fn. */
typedef hsaqm_hsa_status_t (*sysinfo_fn)(uint32_t, void *);
typedef hsaqm_hsa_status_t (*status_string_fn)(hsaqm_hsa_status_t, const char **);
typedef hsaqm_hsa_status_t (*pool_cb)(struct hsaqm_hsa_amd_memory_pool, void *);
typedef hsaqm_hsa_status_t (*iter_pools_fn)(struct hsaqm_hsa_agent, pool_cb, void *);
typedef hsaqm_hsa_status_t (*pool_info_fn)(struct hsaqm_hsa_amd_memory_pool, uint32_t, void *);
typedef hsaqm_hsa_status_t (*agent_pool_info_fn)(struct hsaqm_hsa_agent,
						 struct hsaqm_hsa_amd_memory_pool, uint32_t,
						 void *);
typedef hsaqm_hsa_status_t (*pool_alloc_fn)(struct hsaqm_hsa_amd_memory_pool, size_t, uint32_t,
					    void **);
typedef hsaqm_hsa_status_t (*ptr_fn)(void *);
typedef hsaqm_hsa_status_t (*region_cb)(struct hsaqm_hsa_region, void *);
typedef hsaqm_hsa_status_t (*iter_regions_fn)(struct hsaqm_hsa_agent, region_cb, void *);
typedef hsaqm_hsa_status_t (*region_info_fn)(struct hsaqm_hsa_region, uint32_t, void *);
typedef hsaqm_hsa_status_t (*mem_alloc_fn)(struct hsaqm_hsa_region, size_t, void **);
typedef hsaqm_hsa_status_t (*allow_access_fn)(uint32_t, const struct hsaqm_hsa_agent *,
					      const uint32_t *, const void *);
typedef hsaqm_hsa_status_t (*amd_signal_create_fn)(int64_t, uint32_t,
						   const struct hsaqm_hsa_agent *, uint64_t,
						   struct hsaqm_hsa_signal *);
typedef hsaqm_hsa_status_t (*convert_tick_fn)(struct hsaqm_hsa_agent, uint64_t, uint64_t *);
typedef hsaqm_hsa_status_t (*copy_time_fn)(struct hsaqm_hsa_signal, void *);
typedef hsaqm_hsa_status_t (*value_pointer_fn)(struct hsaqm_hsa_signal, volatile int64_t **);
typedef hsaqm_hsa_status_t (*group_create_fn)(uint32_t, const struct hsaqm_hsa_signal *, uint32_t,
					      const struct hsaqm_hsa_agent *, void *);
typedef hsaqm_hsa_status_t (*exec_create_fn)(uint32_t, uint32_t, const char *, void *);

/* ---- A client of the table -------------------------------------------------------------- */

struct hsa {
	struct hsaqm_sim *sim;
	struct hsaqm_api_root_v3 *root;
	struct hsaqm_core_api_table *core;
	struct hsaqm_amd_ext_table_v2 *amd;
	struct hsaqm_hsa_agent cpu;
	struct hsaqm_hsa_agent gpu[HSAQM_SIM_MAX_DEVICES];
	unsigned int ngpu;
	unsigned int nagents;
};

static hsaqm_hsa_status_t collect_agent(struct hsaqm_hsa_agent a, void *data)
{
	struct hsa *h = data;
	uint32_t type = 99;

	CU_ASSERT_EQUAL(h->core->hsa_agent_get_info_fn(a, SIM_HSA_AGENT_INFO_DEVICE, &type), 0);
	if (type == SIM_HSA_DEVICE_TYPE_CPU)
		h->cpu = a;
	else if (type == SIM_HSA_DEVICE_TYPE_GPU && h->ngpu < HSAQM_SIM_MAX_DEVICES)
		h->gpu[h->ngpu++] = a;
	h->nagents++;
	return HSAQM_HSA_STATUS_SUCCESS;
}

/* A model with its table, hsa_init done and the agents found. */
static bool hsa_open(struct hsa *h, enum hsaqm_sim_time_mode mode, unsigned int ndev)
{
	struct hsaqm_sim_config cfg = { .num_devices = ndev, .time_mode = mode };

	memset(h, 0, sizeof(*h));
	if (hsaqm_sim_create(&cfg, &h->sim))
		return false;
	h->root = hsaqm_sim_hsa_table(h->sim);
	if (!h->root)
		return false;
	h->core = h->root->core;
	h->amd = h->root->amd_ext;
	if (h->core->hsa_init_fn() != HSAQM_HSA_STATUS_SUCCESS)
		return false;
	return h->core->hsa_iterate_agents_fn(collect_agent, h) == HSAQM_HSA_STATUS_SUCCESS &&
	       h->ngpu == ndev && h->cpu.handle;
}

/* The same, with the face's queues made through the KFD face (kfd) or with the core directly. */
static bool hsa_open_path(struct hsa *h, enum hsaqm_sim_time_mode mode, unsigned int ndev, bool kfd)
{
	return hsa_open(h, mode, ndev) && hsa_face_set_queue_path(h->sim, kfd) == 0;
}

static void hsa_close(struct hsa *h)
{
	CU_ASSERT_EQUAL(h->core->hsa_shut_down_fn(), HSAQM_HSA_STATUS_SUCCESS);
	hsaqm_sim_destroy(h->sim);
}

static struct hsaqm_hsa_signal sig_new(struct hsa *h, int64_t v)
{
	struct hsaqm_hsa_signal s = { 0 };

	CU_ASSERT_EQUAL(h->core->hsa_signal_create_fn(v, 0, NULL, &s), HSAQM_HSA_STATUS_SUCCESS);
	return s;
}

static struct hsaqm_hsa_queue *queue_new(struct hsa *h, unsigned int gpu, uint32_t size,
					 hsaqm_hsa_queue_callback_fn cb, void *data)
{
	struct hsaqm_hsa_queue *q = NULL;

	CU_ASSERT_EQUAL(h->core->hsa_queue_create_fn(h->gpu[gpu], size, HSAQM_HSA_QUEUE_TYPE_MULTI,
						     cb, data, UINT32_MAX, UINT32_MAX, &q),
			HSAQM_HSA_STATUS_SUCCESS);
	return q;
}

/* The hardware queue behind a face queue: its doorbell signal points at it. */
static inline struct sim_hwq *hwq_of(const struct hsaqm_hsa_queue *q)
{
	struct sim_signal *db = (struct sim_signal *)(uintptr_t)q->doorbell_signal.handle;

	return HSAQM_READ_ONCE(db->hwq);
}

static uint64_t kernel_new(struct hsa *h, uint64_t dur, uint32_t waves, hsaqm_sim_wg_fn cb,
			   void *arg)
{
	struct hsaqm_sim_kernel_desc d = { .name = "k", .duration_ns = dur, .waves_per_wg = waves,
					   .wg_callback = cb, .wg_callback_arg = arg };
	uint64_t k = 0;

	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(h->sim, &d, &k), 0);
	return k;
}

static union hsaqm_aql_packet pkt_dispatch(uint64_t kobj, uint32_t nwg, uint64_t cs)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_dispatch_desc d = {
		.dims = 1,
		.workgroup_size = { 64, 1, 1 },
		.grid_size = { nwg * 64u, 1, 1 },
		.kernel_object = kobj,
		.completion_signal = cs,
		.acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
		.release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
	};

	memset(&p, 0, sizeof(p));
	CU_ASSERT_EQUAL(hsaqm_aql_dispatch_build(&p, &d), 0);
	return p;
}

static union hsaqm_aql_packet pkt_barrier_and(const uint64_t *deps, unsigned int n, uint64_t cs)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_barrier_desc d = { .dep_signals = deps,
					    .num_deps = n,
					    .completion_signal = cs };

	memset(&p, 0, sizeof(p));
	CU_ASSERT_EQUAL(hsaqm_aql_barrier_and_build(&p, &d), 0);
	return p;
}

/*
 * Submit exactly as ROCclr does: reserve an index (add_write_index_screlease), wait while the
 * ring is full (load_read_index), write the body, publish with one 32-bit release store of
 * header | setup << 16, ring the doorbell with the packet's index (store_screlease).
 */
/* Submissions that found the ring full and waited for the packet processor. */
static uint64_t full_waits;

static uint64_t submit(const struct hsa *h, struct hsaqm_hsa_queue *q,
		       const union hsaqm_aql_packet *p)
{
	uint64_t idx = h->core->hsa_queue_add_write_index_screlease_fn(q, 1);
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (idx - h->core->hsa_queue_load_read_index_scacquire_fn(q) >= q->size)
		hsaqm_fetch_add(&full_waits, 1ull); /* shared by producers; read after the join */
	while (idx - h->core->hsa_queue_load_read_index_scacquire_fn(q) >= q->size) {
		/* A model that stopped consuming fails the test instead of hanging it (10 s). */
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 10)
			return UINT64_MAX;
		sched_yield();
	}
	union hsaqm_aql_packet *slot = (union hsaqm_aql_packet *)q->base_address +
				       (idx & (q->size - 1));
	hsaqm_aql_slot_write_body(slot, p);
	/* Release: body before header (ROCclr's __atomic_store_n(..., __ATOMIC_RELEASE)). */
	hsaqm_store_release(&slot->u32[0], p->u32[0]);
	h->core->hsa_signal_store_screlease_fn(q->doorbell_signal, (int64_t)idx);
	return idx;
}

/* A raw packet image (malformed ones included), published the same way. */
static uint64_t submit_raw(const struct hsa *h, struct hsaqm_hsa_queue *q,
			   const union hsaqm_aql_packet *p)
{
	uint64_t idx = h->core->hsa_queue_add_write_index_screlease_fn(q, 1);
	union hsaqm_aql_packet *slot = (union hsaqm_aql_packet *)q->base_address +
				       (idx & (q->size - 1));

	memcpy(&slot->bytes[4], &p->bytes[4], 60);
	/* Release: body before header, as in submit(); the packet processor acquires it. */
	hsaqm_store_release(&slot->u32[0], p->u32[0]);
	h->core->hsa_signal_store_screlease_fn(q->doorbell_signal, (int64_t)idx);
	return idx;
}

static int64_t wait_eq(const struct hsa *h, struct hsaqm_hsa_signal s, int64_t v, uint64_t timeout)
{
	return h->core->hsa_signal_wait_scacquire_fn(s, HSAQM_HSA_SIGNAL_CONDITION_EQ, v, timeout,
						     HSAQM_HSA_WAIT_STATE_BLOCKED);
}

static struct hsaqm_hsa_amd_profiling_dispatch_time dispatch_time(const struct hsa *h,
								   struct hsaqm_hsa_signal s)
{
	struct hsaqm_hsa_amd_profiling_dispatch_time t = { 0, 0 };

	CU_ASSERT_EQUAL(h->amd->hsa_amd_profiling_get_dispatch_time_fn(h->gpu[0], s, &t), 0);
	return t;
}

/* ---- Error callbacks ---------------------------------------------------------------------- */

struct err_rec {
	int calls;
	hsaqm_hsa_status_t status;
	struct hsaqm_hsa_queue *queue;
	void *data;
	pthread_t thread;
	const struct hsa *h;
	hsaqm_hsa_status_t destroy_status; /* destroy_in_callback */
	uint32_t done;
};

static void record_error(hsaqm_hsa_status_t status, struct hsaqm_hsa_queue *q, void *data)
{
	struct err_rec *r = data;

	r->status = status;
	r->queue = q;
	r->data = data;
	r->thread = pthread_self();
	r->calls++;
	/* Release: the fields above before the flag the test thread polls. */
	hsaqm_store_release(&r->done, 1u);
}

#ifndef SIM_HSA_THREADED

/* =========================================================================================
 * Virtual time: deterministic, single-threaded.
 */

static void test_table_is_detected_as_rocm_6_1_plus_with_every_entry_present(void)
{
	struct hsa h;
	struct hsaqm_api_layout l;

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
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
	hsa_close(&h);
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
	struct hsa h;

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
	CU_ASSERT_EQUAL_FATAL(h.core->hsa_iterate_agents_fn(collect_agent, &h), 0);
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 64, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	CU_ASSERT_EQUAL(tool.creates, 1);

	/* The client's submissions go through the wrapped doorbell store, and still run. */
	uint64_t k = kernel_new(&h, 10 * US, 1, NULL, NULL);
	struct hsaqm_hsa_signal cs = sig_new(&h, 1);
	union hsaqm_aql_packet p = pkt_dispatch(k, 2, cs.handle);
	submit(&h, q, &p);
	CU_ASSERT_EQUAL(tool.stores, 1);
	CU_ASSERT_EQUAL(wait_eq(&h, cs, 0, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_read_index_relaxed_fn(q), 1);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	hsa_close(&h);
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

	CU_ASSERT_EQUAL(c->hsa_iterate_agents_fn(collect_agent, NULL),
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
	struct hsa h = { .sim = sim, .root = root, .core = c, .amd = root->amd_ext };
	CU_ASSERT_EQUAL(c->hsa_iterate_agents_fn(collect_agent, &h), 0);
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 64, NULL, NULL);
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
	struct hsa a;
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct hsaqm_sim *sim_b;

	CU_ASSERT_FATAL(hsa_open(&a, HSAQM_SIM_TIME_VIRTUAL, 1));
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim_b), 0);
	struct hsaqm_api_root_v3 *b = hsaqm_sim_hsa_table(sim_b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_EQUAL(b, a.root);
	/* The entries without a handle are per model: B is not initialized by A's hsa_init. */
	CU_ASSERT_PTR_NOT_EQUAL((void *)b->core->hsa_init_fn, (void *)a.core->hsa_init_fn);
	CU_ASSERT_EQUAL(b->core->hsa_iterate_agents_fn(collect_agent, NULL),
			HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(b->core->hsa_init_fn(), 0);
	struct hsa hb = { .sim = sim_b, .root = b, .core = b->core, .amd = b->amd_ext };
	CU_ASSERT_EQUAL(b->core->hsa_iterate_agents_fn(collect_agent, &hb), 0);
	CU_ASSERT_NOT_EQUAL(hb.gpu[0].handle, a.gpu[0].handle);
	/* A signal of B lives in B's memory. */
	struct hsaqm_hsa_signal s = sig_new(&hb, 3);
	CU_ASSERT_TRUE(sim_mem_contains(sim_b, (void *)(uintptr_t)s.handle, 8));
	CU_ASSERT_FALSE(sim_mem_contains(a.sim, (void *)(uintptr_t)s.handle, 8));
	CU_ASSERT_EQUAL(b->core->hsa_shut_down_fn(), 0);
	hsaqm_sim_destroy(sim_b);
	hsa_close(&a);
}

static void test_system_info_version_timestamps_and_status_strings(void)
{
	struct hsa h;
	uint16_t v16 = 0;
	uint64_t v64 = 0, t0 = 0, t1 = 0;
	uint32_t v32 = 9;
	const char *str = NULL;

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
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
	hsa_close(&h);
}

static hsaqm_hsa_status_t stop_at_first(struct hsaqm_hsa_agent a, void *data)
{
	(*(int *)data)++;
	return HSAQM_HSA_STATUS_INFO_BREAK;
}

static void test_agents_are_a_cpu_then_one_gfx942_gpu_per_device(void)
{
	struct hsa h;
	char name[64];
	uint32_t v = 0;
	uint16_t dim[3];
	uint64_t v64;
	struct hsaqm_hsa_agent cpu;
	int visits = 0;

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 2));
	CU_ASSERT_EQUAL(h.nagents, 3);
	CU_ASSERT_EQUAL(h.core->hsa_iterate_agents_fn(stop_at_first, &visits),
			HSAQM_HSA_STATUS_INFO_BREAK);
	CU_ASSERT_EQUAL(visits, 1);
	hsaqm_hsa_agent_get_info_fn info = h.core->hsa_agent_get_info_fn;

	CU_ASSERT_EQUAL(info(h.cpu, SIM_HSA_AGENT_INFO_FEATURE, &v), 0);
	CU_ASSERT_EQUAL(v & SIM_HSA_AGENT_FEATURE_KERNEL_DISPATCH, 0);
	for (unsigned int g = 0; g < 2; g++) {
		struct hsaqm_hsa_agent a = h.gpu[g];

		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_NAME, name), 0);
		CU_ASSERT_STRING_EQUAL(name, "gfx942");
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_VENDOR_NAME, name), 0);
		CU_ASSERT_STRING_EQUAL(name, "AMD");
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_FEATURE, &v), 0);
		CU_ASSERT_EQUAL(v, SIM_HSA_AGENT_FEATURE_KERNEL_DISPATCH);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_QUEUE_MIN_SIZE, &v), 0);
		CU_ASSERT_EQUAL(v, 64);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_QUEUE_MAX_SIZE, &v), 0);
		CU_ASSERT_EQUAL(v, 131072);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_QUEUES_MAX, &v), 0);
		CU_ASSERT_EQUAL(v, 128);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_QUEUE_TYPE, &v), 0);
		CU_ASSERT_EQUAL(v, HSAQM_HSA_QUEUE_TYPE_MULTI);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_WAVEFRONT_SIZE, &v), 0);
		CU_ASSERT_EQUAL(v, 64);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, &v), 0);
		CU_ASSERT_EQUAL(v, 1024);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_WORKGROUP_MAX_DIM, dim), 0);
		CU_ASSERT_EQUAL(dim[0], 1024);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_GRID_MAX_SIZE, &v), 0);
		CU_ASSERT_EQUAL(v, UINT32_MAX);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_DEVICE, &v), 0);
		CU_ASSERT_EQUAL(v, SIM_HSA_DEVICE_TYPE_GPU);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_NODE, &v), 0);
		CU_ASSERT_EQUAL(v, 1 + g);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_DRIVER_NODE_ID, &v), 0);
		CU_ASSERT_EQUAL(v, 1 + g);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &v), 0);
		CU_ASSERT_EQUAL(v, 80);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_CHIP_ID, &v), 0);
		CU_ASSERT_EQUAL(v, 0x74a2);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU, &v), 0);
		CU_ASSERT_EQUAL(v, 32);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU, &v), 0);
		CU_ASSERT_EQUAL(v, 4);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_NUM_XCC, &v), 0);
		CU_ASSERT_EQUAL(v, 4);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY, &v), 0);
		CU_ASSERT_EQUAL(v, 1420);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES, &v), 0);
		CU_ASSERT_EQUAL(v, 16); /* array_count 16 / simd_arrays_per_engine 1 */
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY, &v64), 0);
		CU_ASSERT_EQUAL(v64, 1000000000ull);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_NEAREST_CPU, &cpu), 0);
		CU_ASSERT_EQUAL(cpu.handle, h.cpu.handle);
		CU_ASSERT_EQUAL(info(a, 0xBEEF, &v), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	}
	CU_ASSERT_NOT_EQUAL(h.gpu[0].handle, h.gpu[1].handle);
	struct hsaqm_hsa_agent bogus = { h.gpu[0].handle + 1 };
	CU_ASSERT_EQUAL(info(bogus, SIM_HSA_AGENT_INFO_NAME, name),
			HSAQM_HSA_STATUS_ERROR_INVALID_AGENT);
	struct hsaqm_hsa_agent zero = { 0 };
	CU_ASSERT_EQUAL(info(zero, SIM_HSA_AGENT_INFO_NAME, name),
			HSAQM_HSA_STATUS_ERROR_INVALID_AGENT);
	hsa_close(&h);
}

struct pools {
	struct hsaqm_hsa_amd_memory_pool p[4];
	struct hsaqm_hsa_region r[4];
	unsigned int np, nr;
};

static hsaqm_hsa_status_t collect_pool(struct hsaqm_hsa_amd_memory_pool p, void *data)
{
	struct pools *ps = data;

	if (ps->np < 4)
		ps->p[ps->np++] = p;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t collect_region(struct hsaqm_hsa_region r, void *data)
{
	struct pools *ps = data;

	if (ps->nr < 4)
		ps->r[ps->nr++] = r;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static void test_memory_pools_hand_out_model_memory_and_refuse_foreign_frees(void)
{
	struct hsa h;
	struct pools cpu = { 0 }, gpu = { 0 };
	uint32_t flags, loc, access;
	size_t size = 0;
	void *p = NULL;

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	iter_pools_fn iter = (iter_pools_fn)h.amd->hsa_amd_agent_iterate_memory_pools_fn;
	pool_info_fn pinfo = (pool_info_fn)h.amd->hsa_amd_memory_pool_get_info_fn;
	agent_pool_info_fn apinfo = (agent_pool_info_fn)
					    h.amd->hsa_amd_agent_memory_pool_get_info_fn;
	pool_alloc_fn palloc = (pool_alloc_fn)h.amd->hsa_amd_memory_pool_allocate_fn;
	ptr_fn pfree = (ptr_fn)h.amd->hsa_amd_memory_pool_free_fn;

	CU_ASSERT_EQUAL(iter(h.cpu, collect_pool, &cpu), 0);
	CU_ASSERT_EQUAL(iter(h.gpu[0], collect_pool, &gpu), 0);
	CU_ASSERT_EQUAL_FATAL(cpu.np, 2);
	CU_ASSERT_EQUAL_FATAL(gpu.np, 1);
	/* System pools: fine-grained with kernarg, coarse-grained; the GPU's: coarse, on it. */
	CU_ASSERT_EQUAL(pinfo(cpu.p[0], SIM_HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags), 0);
	CU_ASSERT_EQUAL(flags, SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT |
				       SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
	CU_ASSERT_EQUAL(pinfo(cpu.p[1], SIM_HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags), 0);
	CU_ASSERT_EQUAL(flags, SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
	CU_ASSERT_EQUAL(pinfo(gpu.p[0], SIM_HSA_AMD_MEMORY_POOL_INFO_LOCATION, &loc), 0);
	CU_ASSERT_EQUAL(loc, SIM_HSA_AMD_MEMORY_POOL_LOCATION_GPU);
	CU_ASSERT_EQUAL(pinfo(cpu.p[0], SIM_HSA_AMD_MEMORY_POOL_INFO_SIZE, &size), 0);
	CU_ASSERT(size >= (64u << 20));
	CU_ASSERT_EQUAL(
		apinfo(h.gpu[0], cpu.p[0], SIM_HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access), 0);
	CU_ASSERT_EQUAL(access, SIM_HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT);
	CU_ASSERT_EQUAL(apinfo(h.cpu, gpu.p[0], SIM_HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access),
			0);
	CU_ASSERT_EQUAL(access, SIM_HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT);

	for (unsigned int i = 0; i < 3; i++) {
		struct hsaqm_hsa_amd_memory_pool pool = i < 2 ? cpu.p[i] : gpu.p[0];

		p = NULL;
		CU_ASSERT_EQUAL(palloc(pool, 100, 0, &p), 0);
		CU_ASSERT_TRUE(sim_mem_contains(h.sim, p, 100)); /* the model can read it */
		CU_ASSERT_EQUAL((uintptr_t)p % 4096, 0);
		CU_ASSERT_EQUAL(pfree(p), 0);
		CU_ASSERT_EQUAL(pfree(p),
				HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT); /* double free */
	}
	CU_ASSERT_EQUAL(palloc(cpu.p[0], 0, 0, &p), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	void *foreign = malloc(64);
	CU_ASSERT_EQUAL(pfree(foreign), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	free(foreign);
	struct hsaqm_hsa_amd_memory_pool bad = { cpu.p[0].handle + 8 };
	CU_ASSERT_EQUAL(palloc(bad, 64, 0, &p), HSAQM_HSA_STATUS_ERROR_INVALID_MEMORY_POOL);

	/* Regions: a GPU sees its own and the system ones, kernarg among them. */
	iter_regions_fn riter = (iter_regions_fn)h.core->hsa_agent_iterate_regions_fn;
	region_info_fn rinfo = (region_info_fn)h.core->hsa_region_get_info_fn;
	mem_alloc_fn malloc_r = (mem_alloc_fn)h.core->hsa_memory_allocate_fn;
	ptr_fn mfree = (ptr_fn)h.core->hsa_memory_free_fn;
	struct pools regs = { 0 };
	CU_ASSERT_EQUAL(riter(h.gpu[0], collect_region, &regs), 0);
	CU_ASSERT_EQUAL(regs.nr, 3);
	int kernarg = -1;
	for (unsigned int i = 0; i < regs.nr; i++) {
		CU_ASSERT_EQUAL(rinfo(regs.r[i], SIM_HSA_REGION_INFO_GLOBAL_FLAGS, &flags), 0);
		if (flags & SIM_HSA_REGION_GLOBAL_FLAG_KERNARG)
			kernarg = (int)i;
	}
	CU_ASSERT_FATAL(kernarg >= 0);
	CU_ASSERT_EQUAL(malloc_r(regs.r[kernarg], 256, &p), 0);
	CU_ASSERT_TRUE(sim_mem_contains(h.sim, p, 256));
	allow_access_fn allow = (allow_access_fn)h.amd->hsa_amd_agents_allow_access_fn;
	CU_ASSERT_EQUAL(allow(1, &h.gpu[0], NULL, p), 0);
	CU_ASSERT_EQUAL(allow(0, &h.gpu[0], NULL, p), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(mfree(p), 0);
	hsa_close(&h);
}

static void run_queue_create_refuses_bad_arguments_as_rocr(bool kfd)
{
	struct hsa h;
	struct hsaqm_hsa_queue *q = NULL;

	CU_ASSERT_FATAL(hsa_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	hsaqm_hsa_queue_create_fn create = h.core->hsa_queue_create_fn;
	struct hsaqm_hsa_agent g = h.gpu[0];

	CU_ASSERT_EQUAL(create(g, 0, 0, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(create(g, 100, 0, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(create(g, 32, 0, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(create(g, 0x40000, 0, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES);
	CU_ASSERT_EQUAL(create(g, 64, 7, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(create(g, 64, 0, NULL, NULL, 0, 0, NULL),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(create(g, 64, HSAQM_HSA_QUEUE_TYPE_COOPERATIVE, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
	CU_ASSERT_EQUAL(create(h.cpu, 64, 0, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
	struct hsaqm_hsa_agent bad = { 12345 };
	CU_ASSERT_EQUAL(create(bad, 64, 0, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_AGENT);
	CU_ASSERT_PTR_NULL(q);
	/* The limits themselves are accepted. */
	CU_ASSERT_EQUAL(create(g, 64, HSAQM_HSA_QUEUE_TYPE_SINGLE, NULL, NULL, 0, 0, &q), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	CU_ASSERT_EQUAL(create(g, 131072, 0, NULL, NULL, UINT32_MAX, UINT32_MAX, &q), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	hsa_close(&h);
}

static void test_queue_create_refuses_bad_arguments_as_rocr_direct(void)
{
	run_queue_create_refuses_bad_arguments_as_rocr(false);
}

static void test_queue_create_refuses_bad_arguments_as_rocr_via_kfd(void)
{
	run_queue_create_refuses_bad_arguments_as_rocr(true);
}

static void run_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory(bool kfd)
{
	struct hsa h;
	struct sim_hwq_info info;

	CU_ASSERT_FATAL(hsa_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 256, NULL, NULL);
	struct hsaqm_hsa_queue *q2 = queue_new(&h, 0, 64, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q2);
	struct hsaqm_amd_queue *a = (struct hsaqm_amd_queue *)q;

	CU_ASSERT_EQUAL((uintptr_t)a % 64, 0);
	CU_ASSERT_TRUE(sim_mem_contains(h.sim, a, sizeof(*a)));
	CU_ASSERT_EQUAL(q->type, HSAQM_HSA_QUEUE_TYPE_MULTI);
	CU_ASSERT_EQUAL(q->features, HSAQM_HSA_QUEUE_FEATURE_KERNEL_DISPATCH);
	CU_ASSERT_EQUAL(q->size, 256);
	CU_ASSERT_NOT_EQUAL(q->id, q2->id);
	CU_ASSERT_TRUE(sim_mem_contains(h.sim, q->base_address, 256 * 64));
	const union hsaqm_aql_packet *ring = q->base_address;
	unsigned int invalid = 0;
	for (unsigned int i = 0; i < 256; i++)
		invalid += hsaqm_aql_slot_load_header(&ring[i]) == HSAQM_AQL_INVALID_WORD;
	CU_ASSERT_EQUAL(invalid, 256);
	struct sim_signal *db = sim_signal_from_handle(h.sim, q->doorbell_signal.handle);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(db->kind, SIM_SIGNAL_DOORBELL);
	CU_ASSERT_PTR_NOT_NULL(sim_signal_from_handle(h.sim, a->queue_inactive_signal.handle));
	CU_ASSERT_EQUAL(a->write_dispatch_id, 0);
	CU_ASSERT_EQUAL(a->read_dispatch_id, 0);
	CU_ASSERT_EQUAL(a->group_segment_aperture_base_hi, 0x10000);
	CU_ASSERT_EQUAL(a->private_segment_aperture_base_hi, 0x20000);
	CU_ASSERT_EQUAL(a->max_cu_id, 79);
	CU_ASSERT_EQUAL(a->max_wave_id, 31);
	CU_ASSERT_EQUAL(a->read_dispatch_id_field_base_byte_offset, 128);
	CU_ASSERT_TRUE(a->queue_properties & HSAQM_AMD_QUEUE_PROPERTIES_IS_PTR64);
	/* The hardware queue reads the ring and the amd_queue_t's own index fields. */
	CU_ASSERT_EQUAL_FATAL(sim_hwq_get_info(hwq_of(q), &info), 0);
	CU_ASSERT_EQUAL(info.ring_base, (uint64_t)(uintptr_t)q->base_address);
	CU_ASSERT_EQUAL(info.ring_size_bytes, 256 * 64);
	CU_ASSERT_PTR_EQUAL(info.write_ptr, (uint64_t *)&a->write_dispatch_id);
	CU_ASSERT_PTR_EQUAL(info.read_ptr, (uint64_t *)&a->read_dispatch_id);
	CU_ASSERT_EQUAL(info.priority, 7); /* NORMAL through libhsakmt's map */
	/* On the KFD path the KFD face holds the queues, as the kernel would. */
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(h.sim), kfd ? 2 : 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q2), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(h.sim), 0);
	hsa_close(&h);
}

static void test_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory_direct(void)
{
	run_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory(false);
}

static void test_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory_via_kfd(void)
{
	run_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory(true);
}

static void run_every_index_function_acts_on_the_amd_queue_fields(bool kfd)
{
	struct hsa h;
	const struct hsaqm_core_api_table *c;

	CU_ASSERT_FATAL(hsa_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	c = h.core;
	/* Any amd_queue_t, not only the face's: a proxy queue in host memory is served alike. */
	struct hsaqm_amd_queue *proxy = aligned_alloc(64, sizeof(*proxy));
	CU_ASSERT_PTR_NOT_NULL_FATAL(proxy);
	memset(proxy, 0, sizeof(*proxy));
	struct hsaqm_hsa_queue *q = &proxy->hsa_queue;

	c->hsa_queue_store_write_index_relaxed_fn(q, 5);
	CU_ASSERT_EQUAL(proxy->write_dispatch_id, 5);
	c->hsa_queue_store_write_index_screlease_fn(q, 6);
	CU_ASSERT_EQUAL(c->hsa_queue_load_write_index_relaxed_fn(q), 6);
	CU_ASSERT_EQUAL(c->hsa_queue_load_write_index_scacquire_fn(q), 6);
	CU_ASSERT_EQUAL(c->hsa_queue_add_write_index_relaxed_fn(q, 1), 6);
	CU_ASSERT_EQUAL(c->hsa_queue_add_write_index_scacquire_fn(q, 2), 7);
	CU_ASSERT_EQUAL(c->hsa_queue_add_write_index_screlease_fn(q, 3), 9);
	CU_ASSERT_EQUAL(c->hsa_queue_add_write_index_scacq_screl_fn(q, 4), 12);
	CU_ASSERT_EQUAL(proxy->write_dispatch_id, 16);
	/* CAS returns the value observed: the expected one on success. */
	CU_ASSERT_EQUAL(c->hsa_queue_cas_write_index_relaxed_fn(q, 16, 17), 16);
	CU_ASSERT_EQUAL(c->hsa_queue_cas_write_index_scacquire_fn(q, 17, 18), 17);
	CU_ASSERT_EQUAL(c->hsa_queue_cas_write_index_screlease_fn(q, 18, 19), 18);
	CU_ASSERT_EQUAL(c->hsa_queue_cas_write_index_scacq_screl_fn(q, 19, 20), 19);
	CU_ASSERT_EQUAL(c->hsa_queue_cas_write_index_scacq_screl_fn(q, 99, 0), 20); /* fails */
	CU_ASSERT_EQUAL(c->hsa_queue_cas_write_index_relaxed_fn(q, 98, 0), 20);
	CU_ASSERT_EQUAL(proxy->write_dispatch_id, 20);
	c->hsa_queue_store_read_index_relaxed_fn(q, 3);
	CU_ASSERT_EQUAL(proxy->read_dispatch_id, 3);
	CU_ASSERT_EQUAL(c->hsa_queue_load_read_index_relaxed_fn(q), 3);
	c->hsa_queue_store_read_index_screlease_fn(q, 4);
	CU_ASSERT_EQUAL(c->hsa_queue_load_read_index_scacquire_fn(q), 4);
	free(proxy);

	/* And on a live queue the read index is the packet processor's: consumed packets. */
	struct hsaqm_hsa_queue *lq = queue_new(&h, 0, 64, NULL, NULL);
	uint64_t k = kernel_new(&h, 1 * US, 1, NULL, NULL);
	struct hsaqm_hsa_signal cs = sig_new(&h, 3);
	for (int i = 0; i < 3; i++) {
		union hsaqm_aql_packet p = pkt_dispatch(k, 1, cs.handle);

		submit(&h, lq, &p);
	}
	CU_ASSERT_EQUAL(wait_eq(&h, cs, 0, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(c->hsa_queue_load_read_index_scacquire_fn(lq), 3);
	CU_ASSERT_EQUAL(c->hsa_queue_load_write_index_scacquire_fn(lq), 3);
	CU_ASSERT_EQUAL(c->hsa_queue_destroy_fn(lq), 0);
	hsa_close(&h);
}

static void test_every_index_function_acts_on_the_amd_queue_fields_direct(void)
{
	run_every_index_function_acts_on_the_amd_queue_fields(false);
}

static void test_every_index_function_acts_on_the_amd_queue_fields_via_kfd(void)
{
	run_every_index_function_acts_on_the_amd_queue_fields(true);
}

static void test_every_signal_operation_in_every_memory_order(void)
{
	struct hsa h;
	const struct hsaqm_core_api_table *c;

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	c = h.core;
	struct hsaqm_hsa_signal s = sig_new(&h, 10);
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
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 64, NULL, NULL);
	CU_ASSERT_EQUAL(c->hsa_signal_destroy_fn(q->doorbell_signal),
			HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL);
	CU_ASSERT_EQUAL(c->hsa_queue_destroy_fn(q), 0);
	hsa_close(&h);
}

static void test_waits_each_condition_both_orders_and_timeouts_in_ticks(void)
{
	struct hsa h;
	const struct hsaqm_core_api_table *c;

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	c = h.core;
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 64, NULL, NULL);
	uint64_t k = kernel_new(&h, 100 * US, 1, NULL, NULL);
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
			struct hsaqm_hsa_signal cs = sig_new(&h, 1);
			union hsaqm_aql_packet p = pkt_dispatch(k, 1, cs.handle);
			uint64_t t0 = hsaqm_sim_now_ns(h.sim);
			int64_t v;

			submit(&h, q, &p);
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
			CU_ASSERT(hsaqm_sim_now_ns(h.sim) - t0 >= 100 * US);
			c->hsa_signal_destroy_fn(cs);
		}
		/* A timeout in ticks (model ns): the wait returns the current value at its end. */
		struct hsaqm_hsa_signal s = sig_new(&h, 3);
		uint64_t t0 = hsaqm_sim_now_ns(h.sim);
		CU_ASSERT_EQUAL(waits[w](s, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0, 2500, 1), 3);
		CU_ASSERT_EQUAL(hsaqm_sim_now_ns(h.sim) - t0, 2500);
		CU_ASSERT_EQUAL(waits[w](s, HSAQM_HSA_SIGNAL_CONDITION_LT, 0, 0, 0),
				3); /* 0: one look */
		CU_ASSERT_EQUAL(waits[w](s, 9 /* not a condition */, 0, 1000, 0), 3);
		c->hsa_signal_destroy_fn(s);
	}
	CU_ASSERT_EQUAL(c->hsa_queue_destroy_fn(q), 0);
	hsa_close(&h);
}

static void test_wait_any_returns_the_first_satisfied_or_uint32_max(void)
{
	struct hsa h;
	int64_t v = 0;

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	hsaqm_hsa_amd_signal_wait_any_fn any = h.amd->hsa_amd_signal_wait_any_fn;
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 64, NULL, NULL);
	uint64_t k = kernel_new(&h, 50 * US, 1, NULL, NULL);
	struct hsaqm_hsa_signal s[3] = { sig_new(&h, 5), sig_new(&h, 1), sig_new(&h, 7) };
	uint32_t conds[3] = { HSAQM_HSA_SIGNAL_CONDITION_EQ, HSAQM_HSA_SIGNAL_CONDITION_EQ,
			      HSAQM_HSA_SIGNAL_CONDITION_LT };
	int64_t vals[3] = { 0, 0, 0 };

	union hsaqm_aql_packet p = pkt_dispatch(k, 1, s[1].handle);
	submit(&h, q, &p);
	uint64_t t0 = hsaqm_sim_now_ns(h.sim);
	CU_ASSERT_EQUAL(any(3, s, conds, vals, UINT64_MAX, HSAQM_HSA_WAIT_STATE_BLOCKED, &v), 1);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT(hsaqm_sim_now_ns(h.sim) - t0 >= 50 * US);
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
	hsa_close(&h);
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
	struct hsa h;
	struct handler_rec r = { 0, 0, true };

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	hsaqm_hsa_amd_signal_async_handler_fn reg = h.amd->hsa_amd_signal_async_handler_fn;
	struct hsaqm_hsa_signal s = sig_new(&h, 0);

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
	struct hsaqm_hsa_signal cs = sig_new(&h, 1);
	CU_ASSERT_EQUAL(reg(cs, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0, count_handler, &r2), 0);
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 64, NULL, NULL);
	union hsaqm_aql_packet p = pkt_dispatch(kernel_new(&h, 10 * US, 1, NULL, NULL), 1,
						cs.handle);
	submit(&h, q, &p);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, SEC), 0);
	CU_ASSERT_EQUAL(r2.calls, 1);
	/* Bad input. */
	struct hsaqm_hsa_signal bad = { 16 };
	CU_ASSERT_EQUAL(reg(bad, 0, 0, count_handler, &r), HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL);
	CU_ASSERT_EQUAL(reg(s, 0, 0, NULL, &r), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(reg(s, 4, 0, count_handler, &r), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	hsa_close(&h);
}

static void run_barrier_and_across_two_queues_waits_for_both_signals(bool kfd)
{
	struct hsa h;

	CU_ASSERT_FATAL(hsa_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	struct hsaqm_hsa_queue *qa = queue_new(&h, 0, 64, NULL, NULL);
	struct hsaqm_hsa_queue *qb = queue_new(&h, 0, 64, NULL, NULL);
	uint64_t long_k = kernel_new(&h, 300 * US, 1, NULL, NULL);
	uint64_t short_k = kernel_new(&h, 10 * US, 1, NULL, NULL);
	struct hsaqm_hsa_signal sa = sig_new(&h, 1), host = sig_new(&h, 1), sbar = sig_new(&h, 1),
				sb = sig_new(&h, 1);

	union hsaqm_aql_packet pa = pkt_dispatch(long_k, 1, sa.handle);
	submit(&h, qa, &pa);
	uint64_t deps[2] = { sa.handle, host.handle };
	union hsaqm_aql_packet bar = pkt_barrier_and(deps, 2, sbar.handle);
	union hsaqm_aql_packet pb = pkt_dispatch(short_k, 1, sb.handle);
	submit(&h, qb, &bar);
	submit(&h, qb, &pb);

	/* Queue A's kernel completes; B still waits for the host's signal. */
	CU_ASSERT_EQUAL(wait_eq(&h, sa, 0, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_advance(h.sim, 1 * MS), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(sb), 1);
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_read_index_scacquire_fn(qb), 0);
	uint64_t t_host = hsaqm_sim_now_ns(h.sim);
	h.core->hsa_signal_store_screlease_fn(host, 0);
	CU_ASSERT_EQUAL(wait_eq(&h, sb, 0, UINT64_MAX), 0);
	/* Launch order: B's kernel started after both dependencies were satisfied. */
	struct hsaqm_hsa_amd_profiling_dispatch_time ta = dispatch_time(&h, sa),
						     tb = dispatch_time(&h, sb),
						     tbar = dispatch_time(&h, sbar);
	CU_ASSERT(tb.start >= ta.end);
	CU_ASSERT(tb.start >= t_host);
	CU_ASSERT(tbar.end >= t_host);
	CU_ASSERT(tb.start >= tbar.end);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(qa), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(qb), 0);
	hsa_close(&h);
}

static void test_barrier_and_across_two_queues_waits_for_both_signals_direct(void)
{
	run_barrier_and_across_two_queues_waits_for_both_signals(false);
}

static void test_barrier_and_across_two_queues_waits_for_both_signals_via_kfd(void)
{
	run_barrier_and_across_two_queues_waits_for_both_signals(true);
}

static void run_set_priority_reaches_the_hardware_queue_as_kfd_priorities(bool kfd)
{
	struct hsa h;
	struct sim_hwq_info info;

	CU_ASSERT_FATAL(hsa_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 64, NULL, NULL);
	hsaqm_hsa_amd_queue_set_priority_fn setp = h.amd->hsa_amd_queue_set_priority_fn;
	/* HSA LOW/NORMAL/HIGH -> libhsakmt -3/0/+2 -> KFD 0/7/11 (ROCm 6.2+). */
	const uint32_t expect[3] = { 0, 7, 11 };

	for (uint32_t p = 0; p < 3; p++) {
		CU_ASSERT_EQUAL(setp(q, p), 0);
		CU_ASSERT_EQUAL(sim_hwq_get_info(hwq_of(q), &info), 0);
		CU_ASSERT_EQUAL(info.priority, expect[p]);
	}
	CU_ASSERT_EQUAL(setp(q, 3), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(setp(NULL, 0), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	struct hsaqm_amd_queue other;
	memset(&other, 0, sizeof(other));
	CU_ASSERT_EQUAL(setp(&other.hsa_queue, 0), HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE);
	/* The queue still runs after the runlist change. */
	struct hsaqm_hsa_signal cs = sig_new(&h, 1);
	union hsaqm_aql_packet p = pkt_dispatch(kernel_new(&h, 5 * US, 1, NULL, NULL), 1,
						cs.handle);
	submit(&h, q, &p);
	CU_ASSERT_EQUAL(wait_eq(&h, cs, 0, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	hsa_close(&h);
}

static void test_set_priority_reaches_the_hardware_queue_as_kfd_priorities_direct(void)
{
	run_set_priority_reaches_the_hardware_queue_as_kfd_priorities(false);
}

static void test_set_priority_reaches_the_hardware_queue_as_kfd_priorities_via_kfd(void)
{
	run_set_priority_reaches_the_hardware_queue_as_kfd_priorities(true);
}

/* Model time a kernel of 4 workgroups, each filling a whole CU (32 waves), takes on @q. */
static uint64_t four_cu_kernel_time(struct hsa *h, struct hsaqm_hsa_queue *q, uint64_t k)
{
	struct hsaqm_hsa_signal cs = sig_new(h, 1);
	union hsaqm_aql_packet p = pkt_dispatch(k, 4, cs.handle);

	submit(h, q, &p);
	CU_ASSERT_EQUAL(wait_eq(h, cs, 0, UINT64_MAX), 0);
	struct hsaqm_hsa_amd_profiling_dispatch_time t = dispatch_time(h, cs);
	h->core->hsa_signal_destroy_fn(cs);
	return t.end - t.start;
}

static void run_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus(bool kfd)
{
	struct hsa h;
	uint32_t mask[4], got[4];

	CU_ASSERT_FATAL(hsa_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	hsaqm_hsa_amd_queue_cu_set_mask_fn set = h.amd->hsa_amd_queue_cu_set_mask_fn;
	hsaqm_hsa_amd_queue_cu_get_mask_fn get = h.amd->hsa_amd_queue_cu_get_mask_fn;
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 64, NULL, NULL);
	uint64_t k = kernel_new(&h, 100 * US, 32, NULL, NULL);

	/* Default: every CU; four CU-filling workgroups run side by side (5 us launch + 100 us). */
	CU_ASSERT_EQUAL(get(q, 96, got), 0);
	CU_ASSERT_EQUAL(got[0], UINT32_MAX);
	CU_ASSERT_EQUAL(got[1], UINT32_MAX);
	CU_ASSERT_EQUAL(got[2], 0xffff);
	CU_ASSERT_EQUAL(four_cu_kernel_time(&h, q, k), 105 * US);
	/* One CU: the hardware queue now runs them one after another. */
	memset(mask, 0, sizeof(mask));
	mask[0] = 1u << 5;
	CU_ASSERT_EQUAL(set(q, 32, mask), 0);
	CU_ASSERT_EQUAL(get(q, 96, got), 0);
	CU_ASSERT_EQUAL(got[0], 1u << 5);
	CU_ASSERT_EQUAL(got[1], 0);
	CU_ASSERT_EQUAL(four_cu_kernel_time(&h, q, k), 405 * US);
	/* Two CUs, with bits past the device's 80: set, reported reduced. */
	mask[0] = 1u << 1;
	mask[1] = 1u << 2;
	mask[3] = 1u << 31;
	CU_ASSERT_EQUAL(set(q, 128, mask), HSAQM_HSA_STATUS_CU_MASK_REDUCED);
	CU_ASSERT_EQUAL(four_cu_kernel_time(&h, q, k), 205 * US);
	/* Count 0 restores every CU. */
	CU_ASSERT_EQUAL(set(q, 0, NULL), 0);
	CU_ASSERT_EQUAL(four_cu_kernel_time(&h, q, k), 105 * US);
	/* Bad masks. */
	CU_ASSERT_EQUAL(set(q, 31, mask), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	memset(mask, 0, sizeof(mask));
	CU_ASSERT_EQUAL(set(q, 64, mask),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT); /* no CU at all */
	mask[3] = 1;
	CU_ASSERT_EQUAL(set(q, 128, mask),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT); /* none of ours */
	CU_ASSERT_EQUAL(get(q, 33, got), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	hsa_close(&h);
}

static void test_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus_direct(void)
{
	run_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus(false);
}

static void test_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus_via_kfd(void)
{
	run_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus(true);
}

static void run_profiling_dispatch_times_are_ordered_and_in_model_ns(bool kfd)
{
	struct hsa h;
	uint64_t sys = 0;

	CU_ASSERT_FATAL(hsa_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 64, NULL, NULL);
	struct hsaqm_amd_queue *a = (struct hsaqm_amd_queue *)q;
	CU_ASSERT_EQUAL(h.amd->hsa_amd_profiling_set_profiler_enabled_fn(q, 1), 0);
	CU_ASSERT_TRUE(a->queue_properties & HSAQM_AMD_QUEUE_PROPERTIES_ENABLE_PROFILING);
	CU_ASSERT_TRUE(a->queue_properties & HSAQM_AMD_QUEUE_PROPERTIES_IS_PTR64); /* kept */
	CU_ASSERT_EQUAL(hsaqm_sim_advance(h.sim, 3 * MS), 0);
	uint64_t k = kernel_new(&h, 250 * US, 1, NULL, NULL);
	struct hsaqm_hsa_signal c1 = sig_new(&h, 1), c2 = sig_new(&h, 1);
	union hsaqm_aql_packet p1 = pkt_dispatch(k, 1, c1.handle),
			       p2 = pkt_dispatch(k, 1, c2.handle);
	p2.dispatch.header |= 1u << HSAQM_AQL_HEADER_BARRIER_SHIFT; /* after the first completes */
	submit(&h, q, &p1);
	submit(&h, q, &p2);
	CU_ASSERT_EQUAL(wait_eq(&h, c2, 0, UINT64_MAX), 0);
	struct hsaqm_hsa_amd_profiling_dispatch_time t1 = dispatch_time(&h, c1),
						     t2 = dispatch_time(&h, c2);
	CU_ASSERT(t1.start >= 3 * MS);
	CU_ASSERT(t1.end - t1.start >= 250 * US);
	CU_ASSERT(t2.start >= t1.end);
	CU_ASSERT(t2.end > t2.start);
	CU_ASSERT(t2.end <= hsaqm_sim_now_ns(h.sim));
	convert_tick_fn conv = (convert_tick_fn)
				       h.amd->hsa_amd_profiling_convert_tick_to_system_domain_fn;
	CU_ASSERT_EQUAL(conv(h.gpu[0], t1.end, &sys), 0);
	CU_ASSERT_EQUAL(sys, t1.end);
	/* Unsupported and bad input. */
	copy_time_fn copy_time = (copy_time_fn)h.amd->hsa_amd_profiling_get_async_copy_time_fn;
	uint64_t ct[2];
	CU_ASSERT_EQUAL(copy_time(c1, ct), HSAQM_HSA_STATUS_ERROR);
	struct hsaqm_hsa_amd_profiling_dispatch_time t;
	CU_ASSERT_EQUAL(h.amd->hsa_amd_profiling_get_dispatch_time_fn(h.cpu, c1, &t),
			HSAQM_HSA_STATUS_ERROR_INVALID_AGENT);
	struct hsaqm_hsa_signal bad = { 24 };
	CU_ASSERT_EQUAL(h.amd->hsa_amd_profiling_get_dispatch_time_fn(h.gpu[0], bad, &t),
			HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL);
	CU_ASSERT_EQUAL(h.amd->hsa_amd_profiling_set_profiler_enabled_fn(q, 0), 0);
	CU_ASSERT_FALSE(a->queue_properties & HSAQM_AMD_QUEUE_PROPERTIES_ENABLE_PROFILING);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	hsa_close(&h);
}

static void test_profiling_dispatch_times_are_ordered_and_in_model_ns_direct(void)
{
	run_profiling_dispatch_times_are_ordered_and_in_model_ns(false);
}

static void test_profiling_dispatch_times_are_ordered_and_in_model_ns_via_kfd(void)
{
	run_profiling_dispatch_times_are_ordered_and_in_model_ns(true);
}

static void test_malformed_packet_fires_the_queue_error_callback_and_others_run_on(void)
{
	struct hsa h;
	struct err_rec e1 = { 0 }, e2 = { 0 };

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	struct hsaqm_hsa_queue *bad = queue_new(&h, 0, 64, record_error, &e1);
	struct hsaqm_hsa_queue *bad2 = queue_new(&h, 0, 64, record_error, &e2);
	struct hsaqm_hsa_queue *good = queue_new(&h, 0, 64, record_error, &e2);
	uint64_t k = kernel_new(&h, 20 * US, 1, NULL, NULL);

	/* A dispatch with a zero grid: the CP's "invalid dim". */
	union hsaqm_aql_packet p = pkt_dispatch(k, 1, 0);
	p.dispatch.grid_size_x = 0;
	submit_raw(&h, bad, &p);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, SEC), 0);
	CU_ASSERT_EQUAL(e1.calls, 1);
	CU_ASSERT_EQUAL(e1.status, HSAQM_HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
	CU_ASSERT_PTR_EQUAL(e1.queue, bad);
	CU_ASSERT_PTR_EQUAL(e1.data, &e1);
	/* A reserved packet type. */
	memset(&p, 0, sizeof(p));
	p.u32[0] = 7;
	submit_raw(&h, bad2, &p);
	/* Another queue runs on. */
	struct hsaqm_hsa_signal cs = sig_new(&h, 1);
	union hsaqm_aql_packet ok = pkt_dispatch(k, 1, cs.handle);
	submit(&h, good, &ok);
	CU_ASSERT_EQUAL(wait_eq(&h, cs, 0, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, SEC), 0);
	CU_ASSERT_EQUAL(e2.calls, 1);
	CU_ASSERT_EQUAL(e2.status, HSAQM_HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
	CU_ASSERT_PTR_EQUAL(e2.queue, bad2);
	CU_ASSERT_EQUAL(e1.calls, 1); /* once */
	/* The error is in the queue's queue_inactive_signal, as the CP leaves it. */
	struct hsaqm_amd_queue *a = (struct hsaqm_amd_queue *)bad;
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_relaxed_fn(a->queue_inactive_signal),
			HSAQM_HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(bad), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(bad2), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(good), 0);
	CU_ASSERT_EQUAL(e2.calls, 1); /* destroying a queue does not call back */
	hsa_close(&h);
}

static void run_inactivate_stops_the_queue_and_destroy_releases_it(bool kfd)
{
	struct hsa h;
	struct hsaqm_hsa_agent ag = { 0 };
	uint64_t dbid = UINT64_MAX;

	CU_ASSERT_FATAL(hsa_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 64, NULL, NULL);
	hsaqm_hsa_amd_queue_get_info_fn info = h.amd->hsa_amd_queue_get_info_fn;
	CU_ASSERT_EQUAL(info(q, SIM_HSA_AMD_QUEUE_INFO_AGENT, &ag), 0);
	CU_ASSERT_EQUAL(ag.handle, h.gpu[0].handle);
	CU_ASSERT_EQUAL(info(q, SIM_HSA_AMD_QUEUE_INFO_DOORBELL_ID, &dbid), 0);
	CU_ASSERT_NOT_EQUAL(dbid, UINT64_MAX);
	CU_ASSERT_EQUAL(info(q, 42, &dbid), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);

	CU_ASSERT_EQUAL(h.core->hsa_queue_inactivate_fn(q), 0);
	CU_ASSERT_PTR_NULL(hwq_of(q));
	CU_ASSERT_EQUAL(h.core->hsa_queue_inactivate_fn(q), 0); /* again: nothing to do */
	/* Packets published now are never processed; the doorbell rings nothing. */
	struct hsaqm_hsa_signal cs = sig_new(&h, 1);
	union hsaqm_aql_packet p = pkt_dispatch(kernel_new(&h, 5 * US, 1, NULL, NULL), 1,
						cs.handle);
	submit(&h, q, &p);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, SEC), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_relaxed_fn(cs), 1);
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_read_index_relaxed_fn(q), 0);
	CU_ASSERT_EQUAL(h.amd->hsa_amd_queue_set_priority_fn(q, 2),
			HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE);
	uint32_t m = 1;
	CU_ASSERT_EQUAL(h.amd->hsa_amd_queue_cu_set_mask_fn(q, 32, &m),
			HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(NULL),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(info(q, SIM_HSA_AMD_QUEUE_INFO_AGENT, &ag),
			HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE);
	/* Queues left at the model's destroy are destroyed with it (the face's fini). */
	CU_ASSERT_PTR_NOT_NULL(queue_new(&h, 0, 64, NULL, NULL));
	hsa_close(&h);
}

static void test_inactivate_stops_the_queue_and_destroy_releases_it_direct(void)
{
	run_inactivate_stops_the_queue_and_destroy_releases_it(false);
}

static void test_inactivate_stops_the_queue_and_destroy_releases_it_via_kfd(void)
{
	run_inactivate_stops_the_queue_and_destroy_releases_it(true);
}

static void test_unsupported_entries_return_an_error_instead_of_crashing(void)
{
	struct hsa h;
	size_t n = 0;

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	/* Group signals are not modelled. */
	group_create_fn gc = (group_create_fn)h.core->hsa_signal_group_create_fn;
	struct hsaqm_hsa_signal s = sig_new(&h, 0);
	uint64_t group = 0;
	CU_ASSERT_EQUAL(gc(1, &s, 0, NULL, &group), HSAQM_HSA_STATUS_ERROR);
	exec_create_fn ec = (exec_create_fn)h.core->hsa_executable_create_fn;
	CU_ASSERT_EQUAL(ec(0, 0, "", &group), HSAQM_HSA_STATUS_ERROR);
	CU_ASSERT_EQUAL(((ptr_fn)h.amd->hsa_amd_pointer_info_fn)(NULL), HSAQM_HSA_STATUS_ERROR);
	CU_ASSERT_EQUAL(h.amd->hsa_amd_queue_intercept_register_fn(NULL, NULL, NULL),
			HSAQM_HSA_STATUS_ERROR);
	CU_ASSERT_PTR_NOT_NULL(hsa_face_unsupported_names(&n));
	CU_ASSERT(n > 50);
	hsa_close(&h);
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
	T_CASE(test_agents_are_a_cpu_then_one_gfx942_gpu_per_device),
	T_CASE(test_memory_pools_hand_out_model_memory_and_refuse_foreign_frees),
	T_CASE(test_queue_create_refuses_bad_arguments_as_rocr_direct),
	T_CASE(test_queue_create_refuses_bad_arguments_as_rocr_via_kfd),
	T_CASE(test_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory_direct),
	T_CASE(test_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory_via_kfd),
	T_CASE(test_every_index_function_acts_on_the_amd_queue_fields_direct),
	T_CASE(test_every_index_function_acts_on_the_amd_queue_fields_via_kfd),
	T_CASE(test_every_signal_operation_in_every_memory_order),
	T_CASE(test_waits_each_condition_both_orders_and_timeouts_in_ticks),
	T_CASE(test_wait_any_returns_the_first_satisfied_or_uint32_max),
	T_CASE(test_async_handler_runs_when_its_condition_holds),
	T_CASE(test_barrier_and_across_two_queues_waits_for_both_signals_direct),
	T_CASE(test_barrier_and_across_two_queues_waits_for_both_signals_via_kfd),
	T_CASE(test_set_priority_reaches_the_hardware_queue_as_kfd_priorities_direct),
	T_CASE(test_set_priority_reaches_the_hardware_queue_as_kfd_priorities_via_kfd),
	T_CASE(test_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus_direct),
	T_CASE(test_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus_via_kfd),
	T_CASE(test_profiling_dispatch_times_are_ordered_and_in_model_ns_direct),
	T_CASE(test_profiling_dispatch_times_are_ordered_and_in_model_ns_via_kfd),
	T_CASE(test_malformed_packet_fires_the_queue_error_callback_and_others_run_on),
	T_CASE(test_inactivate_stops_the_queue_and_destroy_releases_it_direct),
	T_CASE(test_inactivate_stops_the_queue_and_destroy_releases_it_via_kfd),
	T_CASE(test_unsupported_entries_return_an_error_instead_of_crashing),
	T_CASE(test_face_constants_match_the_installed_hsa_headers),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-hsa", NULL, NULL, cases }, T_SUITES_END };
	return t_run("test-sim-hsa", suites);
}

#else /* SIM_HSA_THREADED */

/* =========================================================================================
 * Real time, with client threads.
 */

struct producer {
	const struct hsa *h;
	struct hsaqm_hsa_queue *q;
	union hsaqm_aql_packet
		pkt; /* built on the test thread: CUnit asserts are not thread-safe */
	unsigned int n;
	struct hsaqm_hsa_signal done; /* starts at n, each dispatch decrements it */
	int64_t final;
};

static uint64_t wg_runs;

static void count_wg(void *arg, uint64_t dispatch_id, uint32_t wg_index, void *kernarg)
{
	/* Engine thread; acq_rel: pairs with the test's acquire once the producers are joined. */
	hsaqm_fetch_add(&wg_runs, 1ull);
}

static void *rocclr_producer(void *arg)
{
	struct producer *p = arg;

	for (unsigned int i = 0; i < p->n; i++) {
		if (submit(p->h, p->q, &p->pkt) == UINT64_MAX) {
			p->final = -1; /* the ring never drained */
			return NULL;
		}
	}
	p->final = wait_eq(p->h, p->done, 0, 20 * SEC);
	return NULL;
}

static void run_rocclr_style_producers_share_small_rings_and_every_dispatch_completes(bool kfd)
{
	struct hsa h;
	enum { NQ = 2, PER_Q = 2, N = 150 };
	struct producer prod[NQ * PER_Q];
	pthread_t th[NQ * PER_Q];
	struct hsaqm_hsa_queue *q[NQ];

	CU_ASSERT_FATAL(hsa_open_path(&h, HSAQM_SIM_TIME_REAL, 1, kfd));
	/* Release: zeroed before any producer starts or any kernel of count_wg runs. */
	hsaqm_store_release(&wg_runs, 0ull);
	hsaqm_store_release(&full_waits, 0ull);
	uint64_t k = kernel_new(&h, 5 * US, 1, count_wg, NULL);
	for (int i = 0; i < NQ; i++)
		q[i] = queue_new(&h, 0, 64, NULL, NULL); /* 64 slots: producers wait for space */
	for (int i = 0; i < NQ * PER_Q; i++) {
		struct hsaqm_hsa_signal done = sig_new(&h, N);

		prod[i] = (struct producer){ &h, q[i % NQ], pkt_dispatch(k, 2, done.handle),
					     N,	 done,	    -1 };
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, rocclr_producer, &prod[i]), 0);
	}
	for (int i = 0; i < NQ * PER_Q; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(prod[i].final, 0);
	}
	/* The producers outran the packet processor and waited for space, as ROCclr does. */
	CU_ASSERT(hsaqm_load_acquire(&full_waits) > 0); /* pairs with submit()'s add */
	/*
	 * Every workgroup of every dispatch ran exactly once; every packet was consumed.
	 * Acquire: pairs with count_wg's add; each producer saw its signal reach 0 first.
	 */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&wg_runs), (uint64_t)NQ * PER_Q * N * 2);
	for (int i = 0; i < NQ; i++) {
		CU_ASSERT_EQUAL(h.core->hsa_queue_load_read_index_scacquire_fn(q[i]), PER_Q * N);
		CU_ASSERT_EQUAL(h.core->hsa_queue_load_write_index_scacquire_fn(q[i]), PER_Q * N);
		CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q[i]), 0);
	}
	hsa_close(&h);
}

static void test_rocclr_style_producers_share_small_rings_and_every_dispatch_completes_direct(void)
{
	run_rocclr_style_producers_share_small_rings_and_every_dispatch_completes(false);
}

static void test_rocclr_style_producers_share_small_rings_and_every_dispatch_completes_via_kfd(void)
{
	run_rocclr_style_producers_share_small_rings_and_every_dispatch_completes(true);
}

struct setter {
	const struct hsa *h;
	struct hsaqm_hsa_signal s;
	int64_t v;
	uint64_t delay;
};

static void *set_later(void *arg)
{
	struct setter *st = arg;

	t_sleep_ns(st->delay);
	st->h->core->hsa_signal_store_screlease_fn(st->s, st->v);
	return NULL;
}

static void test_real_time_barrier_and_waits_for_a_kernel_and_a_host_thread(void)
{
	struct hsa h;
	pthread_t t;

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_REAL, 1));
	struct hsaqm_hsa_queue *qa = queue_new(&h, 0, 64, NULL, NULL);
	struct hsaqm_hsa_queue *qb = queue_new(&h, 0, 64, NULL, NULL);
	struct hsaqm_hsa_signal sa = sig_new(&h, 1), host = sig_new(&h, 1), sb = sig_new(&h, 1);
	union hsaqm_aql_packet pa = pkt_dispatch(kernel_new(&h, 2 * MS, 1, NULL, NULL), 1,
						 sa.handle);
	uint64_t deps[2] = { sa.handle, host.handle };
	union hsaqm_aql_packet bar = pkt_barrier_and(deps, 2, 0);
	union hsaqm_aql_packet pb = pkt_dispatch(kernel_new(&h, 10 * US, 1, NULL, NULL), 1,
						 sb.handle);

	submit(&h, qa, &pa);
	submit(&h, qb, &bar);
	submit(&h, qb, &pb);
	struct setter st = { &h, host, 0, 10 * MS };
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, set_later, &st), 0);
	CU_ASSERT_EQUAL(wait_eq(&h, sa, 0, 5 * SEC), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(sb), 1); /* host has not stored yet */
	CU_ASSERT_EQUAL(wait_eq(&h, sb, 0, 5 * SEC), 0);
	pthread_join(t, NULL);
	struct hsaqm_hsa_amd_profiling_dispatch_time ta = dispatch_time(&h, sa),
						     tb = dispatch_time(&h, sb);
	CU_ASSERT(tb.start >= ta.end);
	CU_ASSERT(tb.start >= 10 * MS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(qa), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(qb), 0);
	hsa_close(&h);
}

static void test_real_time_waits_woken_by_another_thread_and_timeouts(void)
{
	struct hsa h;
	pthread_t t;
	int64_t v = 0;

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_REAL, 1));
	struct hsaqm_hsa_signal s = sig_new(&h, 5);
	struct setter st = { &h, s, 2, 5 * MS };
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, set_later, &st), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_wait_relaxed_fn(s, HSAQM_HSA_SIGNAL_CONDITION_LT, 3,
							   UINT64_MAX,
							   HSAQM_HSA_WAIT_STATE_BLOCKED),
			2);
	pthread_join(t, NULL);
	/* A timeout of 20 ms (ticks are ns) with nobody storing. */
	uint64_t t0 = hsaqm_sim_now_ns(h.sim);
	CU_ASSERT_EQUAL(h.core->hsa_signal_wait_scacquire_fn(s, HSAQM_HSA_SIGNAL_CONDITION_EQ, 9,
							     20 * MS, HSAQM_HSA_WAIT_STATE_ACTIVE),
			2);
	CU_ASSERT(hsaqm_sim_now_ns(h.sim) - t0 >= 20 * MS);
	/* wait_any woken by another thread. */
	struct hsaqm_hsa_signal ss[2] = { sig_new(&h, 1), sig_new(&h, 1) };
	uint32_t conds[2] = { HSAQM_HSA_SIGNAL_CONDITION_EQ, HSAQM_HSA_SIGNAL_CONDITION_EQ };
	int64_t vals[2] = { 0, 0 };
	struct setter st2 = { &h, ss[1], 0, 5 * MS };
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, set_later, &st2), 0);
	CU_ASSERT_EQUAL(h.amd->hsa_amd_signal_wait_any_fn(2, ss, conds, vals, UINT64_MAX,
							  HSAQM_HSA_WAIT_STATE_BLOCKED, &v), 1);
	CU_ASSERT_EQUAL(v, 0);
	pthread_join(t, NULL);
	t0 = hsaqm_sim_now_ns(h.sim);
	vals[1] = 5;
	CU_ASSERT_EQUAL(h.amd->hsa_amd_signal_wait_any_fn(2, ss, conds, vals, 10 * MS, 0, &v),
			UINT32_MAX);
	CU_ASSERT(hsaqm_sim_now_ns(h.sim) - t0 >= 10 * MS);
	hsa_close(&h);
}

struct thread_handler {
	pthread_t ran_on;
	uint32_t calls;
	int64_t value;
};

static bool note_thread(int64_t value, void *arg)
{
	struct thread_handler *t = arg;

	t->ran_on = pthread_self();
	t->value = value;
	/* Release: ran_on and value before the count the test polls. */
	hsaqm_fetch_add(&t->calls, 1u);
	return false;
}

static void test_real_time_async_handler_runs_on_a_model_thread(void)
{
	struct hsa h;
	struct thread_handler th = { 0 };

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_REAL, 1));
	struct hsaqm_hsa_signal s = sig_new(&h, 1);
	CU_ASSERT_EQUAL(h.amd->hsa_amd_signal_async_handler_fn(s, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0,
							       note_thread, &th), 0);
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 64, NULL, NULL);
	union hsaqm_aql_packet p = pkt_dispatch(kernel_new(&h, 1 * MS, 1, NULL, NULL), 1, s.handle);
	submit(&h, q, &p);
	/* Acquire: pairs with note_thread's add, made after it stored ran_on and value. */
	T_UNTIL(hsaqm_load_acquire(&th.calls) != 0, 10 * T_NS_PER_S);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&th.calls), 1);
	CU_ASSERT_EQUAL(th.value, 0);
	CU_ASSERT_FALSE(pthread_equal(th.ran_on, pthread_self()));
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	hsa_close(&h);
}

static void test_real_time_error_callback_runs_on_a_model_thread(void)
{
	struct hsa h;
	struct err_rec e = { 0 };

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_REAL, 1));
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 64, record_error, &e);
	union hsaqm_aql_packet p = pkt_dispatch(kernel_new(&h, 1 * US, 1, NULL, NULL), 1, 0);
	p.dispatch.kernel_object = 0x1234000; /* not a registered kernel */
	submit_raw(&h, q, &p);
	/* Acquire: pairs with record_error's release of done. */
	T_UNTIL(hsaqm_load_acquire(&e.done) != 0, 10 * T_NS_PER_S);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&e.done), 1);
	CU_ASSERT_EQUAL(e.calls, 1);
	CU_ASSERT_EQUAL(e.status, 0x1010); /* HSA_STATUS_ERROR_INVALID_CODE_OBJECT */
	CU_ASSERT_PTR_EQUAL(e.queue, q);
	CU_ASSERT_FALSE(pthread_equal(e.thread, pthread_self()));
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	hsa_close(&h);
}

static void destroy_in_callback(hsaqm_hsa_status_t status, struct hsaqm_hsa_queue *q, void *data)
{
	struct err_rec *r = data;

	r->status = status;
	r->calls++;
	/* A client destroying its queue from the error callback (the handler thread may block). */
	r->destroy_status = r->h->core->hsa_queue_destroy_fn(q);
	/* Release: status and destroy_status before the flag the test polls. */
	hsaqm_store_release(&r->done, 1u);
}

static void test_real_time_queue_destroyed_from_its_own_error_callback(void)
{
	struct hsa h;
	struct err_rec e = { 0 };

	CU_ASSERT_FATAL(hsa_open(&h, HSAQM_SIM_TIME_REAL, 1));
	e.h = &h;
	e.destroy_status = 0xdead;
	struct hsaqm_hsa_queue *q = queue_new(&h, 0, 64, destroy_in_callback, &e);
	union hsaqm_aql_packet p;
	memset(&p, 0, sizeof(p));
	p.u32[0] = 6; /* reserved packet type */
	submit_raw(&h, q, &p);
	/* Acquire: pairs with destroy_in_callback's release of done. */
	T_UNTIL(hsaqm_load_acquire(&e.done) != 0, 10 * T_NS_PER_S);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&e.done), 1);
	CU_ASSERT_EQUAL(e.status, HSAQM_HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
	CU_ASSERT_EQUAL(e.destroy_status, HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE);
	/* Another queue works afterwards (and reaps the first). */
	struct hsaqm_hsa_queue *q2 = queue_new(&h, 0, 64, NULL, NULL);
	struct hsaqm_hsa_signal cs = sig_new(&h, 1);
	union hsaqm_aql_packet ok = pkt_dispatch(kernel_new(&h, 10 * US, 1, NULL, NULL), 1,
						 cs.handle);
	submit(&h, q2, &ok);
	CU_ASSERT_EQUAL(wait_eq(&h, cs, 0, 5 * SEC), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q2), 0);
	hsa_close(&h);
}

struct churn {
	const struct hsa *h;
	uint64_t kobj;
	int ok;
};

/* pkt_dispatch without CUnit asserts, for client threads. */
static union hsaqm_aql_packet pkt_dispatch_quiet(uint64_t kobj, uint64_t cs)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_dispatch_desc d = {
		.dims = 1, .workgroup_size = { 64, 1, 1 }, .grid_size = { 64, 1, 1 },
		.kernel_object = kobj, .completion_signal = cs,
	};

	memset(&p, 0, sizeof(p));
	hsaqm_aql_dispatch_build(&p, &d);
	return p;
}

static void *create_submit_destroy(void *arg)
{
	struct churn *c = arg;

	for (int i = 0; i < 6; i++) {
		struct hsaqm_hsa_queue *q = NULL;
		struct hsaqm_hsa_signal cs = { 0 };

		if (c->h->core->hsa_queue_create_fn(c->h->gpu[0], 64, 0, NULL, NULL, 0, 0, &q) ||
		    c->h->core->hsa_signal_create_fn(3, 0, NULL, &cs))
			return NULL;
		for (int j = 0; j < 3; j++) {
			union hsaqm_aql_packet p = pkt_dispatch_quiet(c->kobj, cs.handle);

			submit(c->h, q, &p);
		}
		if (wait_eq(c->h, cs, 0, 10 * SEC) == 0 &&
		    c->h->core->hsa_queue_destroy_fn(q) == 0 &&
		    c->h->core->hsa_signal_destroy_fn(cs) == 0)
			c->ok++;
	}
	return NULL;
}

static void run_queues_created_fed_and_destroyed_from_many_threads(bool kfd)
{
	struct hsa h;
	enum { NT = 4 };
	pthread_t th[NT];
	struct churn c[NT];

	CU_ASSERT_FATAL(hsa_open_path(&h, HSAQM_SIM_TIME_REAL, 1, kfd));
	uint64_t k = kernel_new(&h, 20 * US, 1, NULL, NULL);
	for (int i = 0; i < NT; i++) {
		c[i] = (struct churn){ &h, k, 0 };
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, create_submit_destroy, &c[i]),
				      0);
	}
	for (int i = 0; i < NT; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(c[i].ok, 6);
	}
	hsa_close(&h);
}

static void test_queues_created_fed_and_destroyed_from_many_threads_direct(void)
{
	run_queues_created_fed_and_destroyed_from_many_threads(false);
}

static void test_queues_created_fed_and_destroyed_from_many_threads_via_kfd(void)
{
	run_queues_created_fed_and_destroyed_from_many_threads(true);
}

static const struct t_case cases[] = {
	T_CASE(test_rocclr_style_producers_share_small_rings_and_every_dispatch_completes_direct),
	T_CASE(test_rocclr_style_producers_share_small_rings_and_every_dispatch_completes_via_kfd),
	T_CASE(test_real_time_barrier_and_waits_for_a_kernel_and_a_host_thread),
	T_CASE(test_real_time_waits_woken_by_another_thread_and_timeouts),
	T_CASE(test_real_time_async_handler_runs_on_a_model_thread),
	T_CASE(test_real_time_error_callback_runs_on_a_model_thread),
	T_CASE(test_real_time_queue_destroyed_from_its_own_error_callback),
	T_CASE(test_queues_created_fed_and_destroyed_from_many_threads_direct),
	T_CASE(test_queues_created_fed_and_destroyed_from_many_threads_via_kfd),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-hsa-threaded", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-hsa-threaded", suites);
}

#endif /* SIM_HSA_THREADED */
