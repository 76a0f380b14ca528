/* SPDX-License-Identifier: MIT */
/*
 * t_sim.h - helpers the device-model tests share: a hardware queue on a ring in model
 * memory, written the way a producer writes it (reserve an index, write the body, release
 * the header, ring the doorbell with the packet's index), and packet builders.
 * Header-only: each test binary includes it once.
 */
#ifndef T_SIM_H
#define T_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hsaqm/aql.h"
#include "hsaqm/barrier.h"
#include "hsaqm/sim.h"
#include "sim_internal.h"

/* HSA statuses the model reports (hsa.h). */
#define T_ST_INVALID_ARGUMENT 0x1001
#define T_ST_INVALID_ALLOCATION 0x1003
#define T_ST_INVALID_SIGNAL 0x1006
#define T_ST_INVALID_PACKET_FORMAT 0x1009
#define T_ST_INCOMPATIBLE_ARGUMENTS 0x100D
#define T_ST_INVALID_CODE_OBJECT 0x1010

#define T_US 1000ull
#define T_MS 1000000ull
#define T_S 1000000000ull

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

#endif /* T_SIM_H */
