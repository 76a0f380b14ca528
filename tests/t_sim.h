/* SPDX-License-Identifier: MIT */
/*
 * t_sim.h - helpers the device-model tests share: a hardware queue on a ring in model
 * memory, written the way a producer writes it (reserve an index, write the body, release
 * the header, ring the doorbell with the packet's index), and packet builders.
 * Also a client of the HSA face's table (struct t_face, as test-sim-hsa-* call it) and of the
 * KFD face through kfd-ioctl (struct t_kfd_env, as test-sim-kfd-* do).
 * Header-only: each test binary includes it once.
 */
#ifndef T_SIM_H
#define T_SIM_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hsa_face_internal.h"
#include "hsaqm-hsa/aql.h"
#include "hsaqm-hsa/api_table.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-sim/sim.h"
#include "kfd_face_internal.h"
#include "sim_internal.h"
#include "t_cunit.h"
#include "t_time.h"

/* HSA statuses the model reports (hsa.h). */
#define T_ST_INVALID_ARGUMENT 0x1001
#define T_ST_INVALID_ALLOCATION 0x1003
#define T_ST_INVALID_SIGNAL 0x1006
#define T_ST_INVALID_PACKET_FORMAT 0x1009
#define T_ST_INCOMPATIBLE_ARGUMENTS 0x100D
#define T_ST_INVALID_CODE_OBJECT 0x1010

struct t_q {
	struct hsaqm_sim *sim;
	struct sim_hwq *hwq;
	union hsaqm_aql_packet *ring;
	uint32_t slots;
	uint64_t *wr;
	uint64_t *rd;
	int errors;      /* error callbacks seen */
	int last_status; /* status of the last one */
};

static inline void t_q_error_cb(void *ctx, struct sim_hwq *hwq, int status)
{
	struct t_q *q = ctx;

	(void)hwq;
	HSAQM_WRITE_ONCE(q->last_status, status);
	HSAQM_WRITE_ONCE(q->errors, q->errors + 1);
}

/* A queue of @slots packets on device @dev with KFD priority @prio. Returns 0 or -errno. */
static inline int t_q_create(struct t_q *q, struct hsaqm_sim *sim, unsigned int dev, uint32_t slots,
			     uint32_t prio)
{
	memset(q, 0, sizeof(*q));
	q->sim = sim;
	q->slots = slots;
	q->ring = hsaqm_sim_mem_alloc(sim, (size_t)slots * 64, 64);
	uint64_t *idx = hsaqm_sim_mem_alloc(sim, 64, 64);
	if (!q->ring || !idx)
		return -12;
	/* As hsa_queue_create leaves it: every slot INVALID. */
	for (uint32_t i = 0; i < slots; i++)
		q->ring[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	q->wr = &idx[0];
	q->rd = &idx[1];
	struct sim_hwq_desc d = {
		.dev = dev, .ring_base = q->ring, .ring_size_bytes = slots * 64, .write_ptr = q->wr,
		.read_ptr = q->rd, .priority = prio, .active = true, .pasid = 1,
		.error_fn = t_q_error_cb, .error_ctx = q,
	};
	return sim_hwq_create(sim, &d, &q->hwq);
}

static inline void t_q_destroy(struct t_q *q)
{
	if (q->hwq)
		sim_hwq_destroy(q->hwq);
	q->hwq = NULL;
}

/* Reserve one index (no space check: tests size their rings). */
static inline uint64_t t_q_reserve(struct t_q *q)
{
	/* acq_rel: the reservation, as a producer makes it; the packet processor acquires it. */
	return hsaqm_fetch_add(q->wr, 1ull);
}

static inline void t_q_publish(struct t_q *q, uint64_t idx, const union hsaqm_aql_packet *p)
{
	hsaqm_aql_publish(&q->ring[idx & (q->slots - 1)], p);
}

/* Publish a raw packet image even if its type is INVALID or reserved (malformed-packet tests). */
static inline void t_q_publish_raw(struct t_q *q, uint64_t idx, const union hsaqm_aql_packet *p)
{
	union hsaqm_aql_packet *slot = &q->ring[idx & (q->slots - 1)];

	memcpy(&slot->bytes[4], &p->bytes[4], 60);
	/* Release: body before header, as a producer does; the packet processor acquires it. */
	hsaqm_store_release(&slot->u32[0], p->u32[0]);
}

static inline uint64_t t_q_submit(struct t_q *q, const union hsaqm_aql_packet *p)
{
	uint64_t idx = t_q_reserve(q);

	t_q_publish(q, idx, p);
	sim_hwq_doorbell(q->hwq, idx);
	return idx;
}

static inline uint64_t t_q_read_index(const struct t_q *q)
{
	/* Acquire: pairs with the packet processor's release of the read index (sim/pp.c). */
	return hsaqm_load_acquire(q->rd);
}

static inline union hsaqm_aql_packet t_dispatch3(uint64_t kobj, const uint32_t grid[3],
						 const uint16_t wg[3], unsigned int dims, uint64_t cs,
						 bool barrier)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_dispatch_desc d = {
		.dims = dims, .kernel_object = kobj, .completion_signal = cs, .barrier = barrier,
		.acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM, .release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
	};

	for (int i = 0; i < 3; i++) {
		d.grid_size[i] = grid[i];
		d.workgroup_size[i] = wg[i];
	}
	memset(&p, 0, sizeof(p));
	hsaqm_aql_dispatch_build(&p, &d);
	return p;
}

/* A 1-D dispatch of @nwg workgroups of 64 work-items. */
static inline union hsaqm_aql_packet t_dispatch(uint64_t kobj, uint32_t nwg, uint64_t cs, bool barrier)
{
	const uint32_t grid[3] = { nwg * 64u, 1, 1 };
	const uint16_t wg[3] = { 64, 1, 1 };

	return t_dispatch3(kobj, grid, wg, 1, cs, barrier);
}

static inline union hsaqm_aql_packet t_barrier_and(const uint64_t *deps, unsigned int n, uint64_t cs,
						   bool barrier)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_barrier_desc d = { .dep_signals = deps, .num_deps = n, .completion_signal = cs,
					    .barrier = barrier };

	memset(&p, 0, sizeof(p));
	hsaqm_aql_barrier_and_build(&p, &d);
	return p;
}

/* Barrier-OR built by hand: the builder refuses an OR with only zero handles, tests need it. */
static inline union hsaqm_aql_packet t_barrier_or_raw(const uint64_t deps[5], uint64_t cs)
{
	union hsaqm_aql_packet p;

	memset(&p, 0, sizeof(p));
	p.barrier.header = HSAQM_AQL_TYPE_BARRIER_OR;
	for (int i = 0; i < 5; i++)
		p.barrier.dep_signal[i] = deps[i];
	p.barrier.completion_signal = cs;
	return p;
}

static inline union hsaqm_aql_packet t_barrier_value(uint64_t sig, int64_t value, int64_t mask,
						     uint32_t cond, uint64_t cs)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_barrier_value_desc d = { .signal = sig, .value = value, .mask = mask,
						  .cond = cond, .completion_signal = cs };

	memset(&p, 0, sizeof(p));
	hsaqm_aql_barrier_value_build(&p, &d);
	return p;
}

static inline uint64_t t_handle(struct sim_signal *s)
{
	return (uint64_t)(uintptr_t)s;
}

static inline enum sim_hwq_state t_q_state(const struct t_q *q)
{
	struct sim_hwq_info info;

	sim_hwq_get_info(q->hwq, &info);
	return info.state;
}

static inline struct hsaqm_sim *t_sim_virtual(unsigned int ndev)
{
	struct hsaqm_sim_config cfg = { .num_devices = ndev, .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct hsaqm_sim *sim = NULL;

	if (hsaqm_sim_create(&cfg, &sim))
		return NULL;
	return sim;
}

/* ==== A client of the HSA face's table ======================================================= */

struct t_face {
	struct hsaqm_sim *sim;
	struct hsaqm_api_root_v3 *root;
	struct hsaqm_core_api_table *core;
	struct hsaqm_amd_ext_table_v2 *amd;
	struct hsaqm_hsa_agent cpu;
	struct hsaqm_hsa_agent gpu[HSAQM_SIM_MAX_DEVICES];
	unsigned int ngpu;
	unsigned int nagents;
};

static inline hsaqm_hsa_status_t t_face_collect_agent(struct hsaqm_hsa_agent a, void *data)
{
	struct t_face *h = data;
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
static inline bool t_face_open(struct t_face *h, enum hsaqm_sim_time_mode mode, unsigned int ndev)
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
	if (h->core->hsa_iterate_agents_fn(t_face_collect_agent, h) != HSAQM_HSA_STATUS_SUCCESS)
		return false;
	return h->ngpu == ndev && h->cpu.handle;
}

/* The same, with the face's queues made through the KFD face (kfd) or with the core directly. */
static inline bool t_face_open_path(struct t_face *h, enum hsaqm_sim_time_mode mode,
				    unsigned int ndev, bool kfd)
{
	return t_face_open(h, mode, ndev) && hsa_face_set_queue_path(h->sim, kfd) == 0;
}

static inline void t_face_close(struct t_face *h)
{
	CU_ASSERT_EQUAL(h->core->hsa_shut_down_fn(), HSAQM_HSA_STATUS_SUCCESS);
	hsaqm_sim_destroy(h->sim);
}

static inline struct hsaqm_hsa_signal t_face_signal(struct t_face *h, int64_t v)
{
	struct hsaqm_hsa_signal s = { 0 };

	CU_ASSERT_EQUAL(h->core->hsa_signal_create_fn(v, 0, NULL, &s), HSAQM_HSA_STATUS_SUCCESS);
	return s;
}

static inline struct hsaqm_hsa_queue *t_face_queue(struct t_face *h, unsigned int gpu,
						   uint32_t size, hsaqm_hsa_queue_callback_fn cb,
						   void *data)
{
	struct hsaqm_hsa_queue *q = NULL;

	CU_ASSERT_EQUAL(h->core->hsa_queue_create_fn(h->gpu[gpu], size, HSAQM_HSA_QUEUE_TYPE_MULTI,
						     cb, data, UINT32_MAX, UINT32_MAX, &q),
			HSAQM_HSA_STATUS_SUCCESS);
	return q;
}

/* The hardware queue behind a face queue: its doorbell signal points at it. */
static inline struct sim_hwq *t_face_hwq(const struct hsaqm_hsa_queue *q)
{
	struct sim_signal *db = (struct sim_signal *)(uintptr_t)q->doorbell_signal.handle;

	return HSAQM_READ_ONCE(db->hwq);
}

static inline uint64_t t_face_kernel(struct t_face *h, uint64_t dur, uint32_t waves,
				     hsaqm_sim_wg_fn cb, void *arg)
{
	struct hsaqm_sim_kernel_desc d = { .name = "k", .duration_ns = dur, .waves_per_wg = waves,
					   .wg_callback = cb, .wg_callback_arg = arg };
	uint64_t k = 0;

	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(h->sim, &d, &k), 0);
	return k;
}

static inline union hsaqm_aql_packet t_face_dispatch(uint64_t kobj, uint32_t nwg, uint64_t cs)
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

static inline union hsaqm_aql_packet t_face_barrier_and(const uint64_t *deps, unsigned int n,
							uint64_t cs)
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
static uint64_t t_face_full_waits;

static inline uint64_t t_face_submit(const struct t_face *h, struct hsaqm_hsa_queue *q,
				     const union hsaqm_aql_packet *p)
{
	uint64_t idx = h->core->hsa_queue_add_write_index_screlease_fn(q, 1);
	uint64_t t0 = t_mono_ns();

	if (idx - h->core->hsa_queue_load_read_index_scacquire_fn(q) >= q->size)
		hsaqm_fetch_add(&t_face_full_waits, 1ull); /* producers share it; read after join */
	while (idx - h->core->hsa_queue_load_read_index_scacquire_fn(q) >= q->size) {
		/* A model that stopped consuming fails the test instead of hanging it (10 s). */
		if (t_mono_ns() - t0 > 10 * T_S)
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
static inline uint64_t t_face_submit_raw(const struct t_face *h, struct hsaqm_hsa_queue *q,
					 const union hsaqm_aql_packet *p)
{
	uint64_t idx = h->core->hsa_queue_add_write_index_screlease_fn(q, 1);
	union hsaqm_aql_packet *slot = (union hsaqm_aql_packet *)q->base_address +
				       (idx & (q->size - 1));

	memcpy(&slot->bytes[4], &p->bytes[4], 60);
	/* Release: body before header, as in t_face_submit(); the packet processor acquires it. */
	hsaqm_store_release(&slot->u32[0], p->u32[0]);
	h->core->hsa_signal_store_screlease_fn(q->doorbell_signal, (int64_t)idx);
	return idx;
}

static inline int64_t t_face_wait_eq(const struct t_face *h, struct hsaqm_hsa_signal s, int64_t v,
				     uint64_t timeout)
{
	return h->core->hsa_signal_wait_scacquire_fn(s, HSAQM_HSA_SIGNAL_CONDITION_EQ, v, timeout,
						     HSAQM_HSA_WAIT_STATE_BLOCKED);
}

static inline struct hsaqm_hsa_amd_profiling_dispatch_time
t_face_dispatch_time(const struct t_face *h, struct hsaqm_hsa_signal s)
{
	struct hsaqm_hsa_amd_profiling_dispatch_time t = { 0, 0 };

	CU_ASSERT_EQUAL(h->amd->hsa_amd_profiling_get_dispatch_time_fn(h->gpu[0], s, &t), 0);
	return t;
}

/* ---- Error callbacks ---------------------------------------------------------------------- */

struct t_face_err {
	int calls;
	hsaqm_hsa_status_t status;
	struct hsaqm_hsa_queue *queue;
	void *data;
	pthread_t thread;
	const struct t_face *h;
	hsaqm_hsa_status_t destroy_status; /* test-sim-hsa-realtime's destroy_in_callback */
	uint32_t done;
};

static inline void t_face_record_error(hsaqm_hsa_status_t status, struct hsaqm_hsa_queue *q,
				       void *data)
{
	struct t_face_err *r = data;

	r->status = status;
	r->queue = q;
	r->data = data;
	r->thread = pthread_self();
	r->calls++;
	/* Release: the fields above before the flag the test thread polls. */
	hsaqm_store_release(&r->done, 1u);
}

/* ==== A process of the KFD face, through kfd-ioctl =========================================== */

#define T_KFD_DB_SLICE 8192u
#define T_EC(x) HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_##x)
#define T_KFD_INVALID HSAQM_KFD_DBG_QUEUE_INVALID_MASK
#define T_KFD_ERRBIT HSAQM_KFD_DBG_QUEUE_ERROR_MASK

struct t_kfd_env {
	struct hsaqm_sim *sim;
	const struct hsaqm_kfd_transport *tp;
	struct hsaqm_kfd *kfd;
	uint32_t gpu_id;
};

/* A queue as ROCr makes one: ring and indices in model memory, doorbell page mapped. */
struct t_kfd_q {
	union hsaqm_aql_packet *ring;
	uint64_t *wr, *rd;
	uint32_t slots;
	uint32_t id;
	uint64_t doorbell_offset;
	volatile uint64_t *db;
};

/* Workgroup bookkeeping of a model kernel. */
struct t_wg_rec {
	uint32_t count;
	uint32_t per_wg[256];
};

static inline void t_wg_rec_cb(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct t_wg_rec *r = arg;

	(void)dispatch_id, (void)kernarg;
	/* Engine thread in REAL mode: the test reads them after a completion-signal wait. */
	hsaqm_fetch_add(&r->count, 1u);
	if (wg < 256)
		hsaqm_fetch_add(&r->per_wg[wg], 1u);
}

static inline bool t_wg_each_once(struct t_wg_rec *r, uint32_t n)
{
	/* Acquire: pairs with the engine's increments (the callers waited for completion). */
	for (uint32_t i = 0; i < n; i++)
		if (hsaqm_load_acquire(&r->per_wg[i]) != 1)
			return false;
	return hsaqm_load_acquire(&r->count) == n;
}

static inline uint64_t t_kfd_kernel(struct hsaqm_sim *sim, uint64_t dur, uint32_t waves,
				    struct t_wg_rec *r)
{
	struct hsaqm_sim_kernel_desc d = { .name = "k",
					   .duration_ns = dur,
					   .waves_per_wg = waves,
					   .wg_callback = r ? t_wg_rec_cb : NULL,
					   .wg_callback_arg = r };
	uint64_t k = 0;

	if (r)
		memset(r, 0, sizeof(*r));
	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(sim, &d, &k), 0);
	return k;
}

static inline int t_kfd_env_open_cfg(struct t_kfd_env *e, const struct hsaqm_sim_config *cfg)
{
	int err;

	memset(e, 0, sizeof(*e));
	err = hsaqm_sim_create(cfg, &e->sim);
	if (err)
		return err;
	e->tp = hsaqm_sim_kfd_transport(e->sim);
	if (!e->tp)
		return -ENOMEM;
	e->gpu_id = sim_kfd_gpu_id(e->sim, 0);
	return hsaqm_kfd_open(e->tp, &e->kfd);
}

static inline int t_kfd_env_open(struct t_kfd_env *e)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL };

	return t_kfd_env_open_cfg(e, &cfg);
}

static inline void t_kfd_env_close(struct t_kfd_env *e)
{
	if (e->kfd)
		CU_ASSERT_EQUAL(hsaqm_kfd_close(e->kfd), 0);
	hsaqm_sim_destroy(e->sim);
	memset(e, 0, sizeof(*e));
}

static inline void t_kfd_q_args(struct t_kfd_env *e, struct t_kfd_q *q, uint32_t slots,
				uint32_t prio, uint32_t pct, struct hsaqm_kfd_create_queue_args *a)
{
	memset(q, 0, sizeof(*q));
	q->slots = slots;
	q->ring = hsaqm_sim_mem_alloc(e->sim, (size_t)slots * 64, 64);
	q->wr = hsaqm_sim_mem_alloc(e->sim, 64, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q->ring);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q->wr);
	q->rd = q->wr + 1;
	for (uint32_t i = 0; i < slots; i++)
		q->ring[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	memset(a, 0, sizeof(*a));
	a->ring_base_address = (uint64_t)(uintptr_t)q->ring;
	a->write_pointer_address = (uint64_t)(uintptr_t)q->wr;
	a->read_pointer_address = (uint64_t)(uintptr_t)q->rd;
	a->ring_size = slots * 64;
	a->gpu_id = e->gpu_id;
	a->queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL;
	a->queue_percentage = pct;
	a->queue_priority = prio;
	a->ctl_stack_size = 8192; /* the MI308X node's, per XCC (docs/kfd-ioctl.md) */
}

static inline int t_kfd_q_create(struct t_kfd_env *e, struct t_kfd_q *q, uint32_t slots,
				 uint32_t prio)
{
	struct hsaqm_kfd_create_queue_args a;
	int err;

	t_kfd_q_args(e, q, slots, prio, 100, &a);
	err = hsaqm_kfd_queue_create(e->kfd, &a);
	q->id = a.queue_id;
	q->doorbell_offset = a.doorbell_offset;
	return err;
}

/* Map the queue's doorbell page through the KFD handle, as libhsakmt does. */
static inline int t_kfd_q_map(struct t_kfd_env *e, struct t_kfd_q *q)
{
	void *page = NULL;
	int err = hsaqm_kfd_mmap(e->kfd, NULL, T_KFD_DB_SLICE, PROT_READ | PROT_WRITE, MAP_SHARED,
				 (off_t)(q->doorbell_offset & ~(uint64_t)(T_KFD_DB_SLICE - 1)),
				 &page);

	if (!err)
		q->db = (volatile uint64_t *)((char *)page +
					      (q->doorbell_offset & (T_KFD_DB_SLICE - 1)));
	return err;
}

/*
 * Reserve, publish with the ring protocol, ring the mapped doorbell, tell the model.
 * Returns the packet's index, or UINT64_MAX if the packet could not be published (no
 * CUnit assertion here: other threads submit too).
 */
static inline uint64_t t_kfd_q_submit(struct t_kfd_env *e, struct t_kfd_q *q,
				      const union hsaqm_aql_packet *p)
{
	/* acq_rel: the reservation, as a producer makes it; the packet processor acquires it. */
	uint64_t idx = hsaqm_fetch_add(q->wr, 1ull);

	if (hsaqm_aql_publish(&q->ring[idx & (q->slots - 1)], p))
		return UINT64_MAX;
	/* Release: the published packet before the doorbell value that covers it. */
	hsaqm_store_release((uint64_t *)q->db, idx);
	e->tp->doorbell_written(e->tp->ctx, -1, q->db, idx);
	return idx;
}

static inline struct sim_hwq *t_kfd_hwq(struct t_kfd_env *e, const struct t_kfd_q *q)
{
	/* The layer keeps its handle private; the face's first handle is its base, 1000. */
	return sim_kfd_face_hwq(e->sim, 1000, q->id);
}

/* Clear EC_QUEUE_NEW on every queue (a snapshot with the clear mask), as a debugger does. */
static inline void t_kfd_clear_new(struct t_kfd_env *e)
{
	uint32_t n = 0;

	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(e->kfd, T_EC(QUEUE_NEW), NULL, &n), 0);
	struct hsaqm_kfd_queue_snapshot_entry *ent = calloc(n ? n : 1, sizeof(*ent));
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(e->kfd, T_EC(QUEUE_NEW), ent, &n), 0);
	free(ent);
}

static inline int t_kfd_dbg_trap_raw(struct t_kfd_env *e, uint32_t op,
				     struct hsaqm_kfd_dbg_trap_args *a)
{
	a->pid = (uint32_t)getpid();
	a->op = op;
	return hsaqm_kfd_ioctl(e->kfd, HSAQM_KFD_IOC_DBG_TRAP, a);
}

static inline struct hsaqm_kfd_queue_snapshot_entry t_kfd_snapshot_of(struct t_kfd_env *e,
									      uint32_t id)
{
	struct hsaqm_kfd_queue_snapshot_entry ent[8], none;
	uint32_t n = 8;

	memset(&none, 0xff, sizeof(none));
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(e->kfd, 0, ent, &n), 0);
	for (uint32_t i = 0; i < n && i < 8; i++)
		if (ent[i].queue_id == id)
			return ent[i];
	return none;
}

#endif /* T_SIM_H */
