/* SPDX-License-Identifier: MIT */
/*
 * t_ring.h - a queue as the ring writer's tests own it (test-ring-*): a ring whose every header
 * is INVALID (as hsa_queue_create leaves one), indices on their own cache lines (as amd_queue_t's),
 * a doorbell that logs each index it is rung with, and packets tagged and consumed in order.
 * Header-only; include once.
 */
#ifndef T_RING_H
#define T_RING_H

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-hsa/ring.h"
#include "ring_internal.h"
#include "t_cunit.h"
#include "t_time.h"

static inline union hsaqm_aql_packet *t_ring_alloc(uint32_t size)
{
	union hsaqm_aql_packet *slots = aligned_alloc(64, (size_t)size * 64);

	if (!slots)
		abort();
	memset(slots, 0x5a, (size_t)size * 64);
	/* As hsa_queue_create leaves a ring: every header INVALID. */
	for (uint32_t i = 0; i < size; i++)
		hsaqm_aql_slot_invalidate(&slots[i]);
	return slots;
}

/* A queue as the tests own it: indices on their own cache lines, like amd_queue_t's. */
struct t_fixture {
	alignas(64) uint64_t write;
	alignas(64) uint64_t read;
	alignas(64) uint64_t doorbell_calls;
	uint64_t doorbell_log[64];
	union hsaqm_aql_packet *slots;
	uint32_t size;
	struct hsaqm_ring ring;
};

static inline void t_fixture_doorbell(void *ctx, uint64_t last_index)
{
	struct t_fixture *fx = ctx;
	/* Atomic so that a doorbell rung by a helper thread counts; no ordering needed. */
	uint64_t n = hsaqm_fetch_add(&fx->doorbell_calls, 1);

	if (n < 64)
		fx->doorbell_log[n] = last_index;
}

static inline void t_fixture_init(struct t_fixture *fx, uint32_t size, uint64_t start)
{
	memset(fx, 0, sizeof(*fx));
	fx->size = size;
	fx->slots = t_ring_alloc(size);
	fx->write = start;
	fx->read = start;
	CU_ASSERT_EQUAL_FATAL(hsaqm_ring_init(&fx->ring, fx->slots, size, &fx->write, &fx->read,
					      t_fixture_doorbell, fx), 0);
}

static inline void t_fixture_fini(struct t_fixture *fx)
{
	free(fx->slots);
	fx->slots = NULL;
}

/* A valid packet that says which one it is: a barrier-AND whose dep_signal[0] is the tag. */
static inline union hsaqm_aql_packet t_tagged(uint64_t tag)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_barrier_desc d = { .dep_signals = &tag, .num_deps = 1,
					    .release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM };

	if (hsaqm_aql_barrier_and_build(&p, &d))
		abort();
	return p;
}

/* Packets an in-order consumer would process now: valid headers from the read index on. */
static inline uint32_t t_visible(struct t_fixture *fx)
{
	/* Acquire: slots below r were consumed; what we read from r on is the producers'. */
	uint64_t r = hsaqm_load_acquire(&fx->read);
	uint32_t n = 0;

	while (n < fx->size &&
	       (hsaqm_aql_slot_load_header(&fx->slots[(r + n) & (fx->size - 1)]) & 0xff) !=
		       HSAQM_AQL_TYPE_INVALID)
		n++;
	return n;
}

/* The packet processor's step, in the test thread: read, mark INVALID, advance. */
static inline int t_consume_one(struct t_fixture *fx, union hsaqm_aql_packet *out)
{
	/* Relaxed: the consumer is the read index's only writer. */
	uint64_t r = hsaqm_load_relaxed(&fx->read);
	union hsaqm_aql_packet *slot = &fx->slots[r & (fx->size - 1)];
	uint32_t word = hsaqm_aql_slot_load_header(slot);

	if ((word & 0xff) == HSAQM_AQL_TYPE_INVALID)
		return -EAGAIN;
	if (out) {
		*out = *slot;
		out->u32[0] = word;
	}
	hsaqm_aql_slot_invalidate(slot);
	/* Release: our reads of the slot and its INVALID mark come before a producer reuses it. */
	hsaqm_store_release(&fx->read, r + 1);
	return 0;
}

static inline uint64_t t_tag_of(const union hsaqm_aql_packet *p)
{
	return p->barrier.dep_signal[0];
}

#endif /* T_RING_H */
