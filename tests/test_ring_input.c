/* SPDX-License-Identifier: MIT */
/*
 * The ring writer refuses bad input: NULL, bad sizes, misalignment and bad indices at init; bad
 * arguments to reserve, publish and submit.
 */
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
#include "t_ring.h"

/* ---- bad input ---- */

/* hsaqm_ring_init() on the fixture's queue (doorbell context &fx). */
#define INIT(ring, base, size, w, r, db) hsaqm_ring_init(ring, base, size, w, r, db, &fx)
#define DB t_fixture_doorbell

static void test_init_refuses_null_bad_sizes_misalignment_and_bad_indices(void)
{
	struct t_fixture fx;
	struct hsaqm_ring ring;
	static const uint32_t bad_sizes[] = { 0, 3, 6, 12, 255, 257, 0x80000001u, 0xffffffffu };
	uint64_t *w_odd, *r_odd;

	t_fixture_init(&fx, 8, 0);
	CU_ASSERT_EQUAL(INIT(NULL, fx.slots, 8, &fx.write, &fx.read, DB), -EINVAL);
	CU_ASSERT_EQUAL(INIT(&ring, NULL, 8, &fx.write, &fx.read, DB), -EINVAL);
	CU_ASSERT_EQUAL(INIT(&ring, fx.slots, 8, NULL, &fx.read, DB), -EINVAL);
	CU_ASSERT_EQUAL(INIT(&ring, fx.slots, 8, &fx.write, NULL, DB), -EINVAL);
	CU_ASSERT_EQUAL(INIT(&ring, fx.slots, 8, &fx.write, &fx.read, NULL), -EINVAL);
	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++)
		CU_ASSERT_EQUAL(INIT(&ring, fx.slots, bad_sizes[i], &fx.write, &fx.read, DB),
				-EINVAL);
	/* The ring must be packet-aligned, the indices 8-byte aligned (never dereferenced here). */
	w_odd = (uint64_t *)(void *)((char *)&fx.write + 4);
	r_odd = (uint64_t *)(void *)((char *)&fx.read + 4);
	CU_ASSERT_EQUAL(INIT(&ring, (char *)fx.slots + 32, 4, &fx.write, &fx.read, DB), -EINVAL);
	CU_ASSERT_EQUAL(INIT(&ring, fx.slots, 4, w_odd, &fx.read, DB), -EINVAL);
	CU_ASSERT_EQUAL(INIT(&ring, fx.slots, 4, &fx.write, r_odd, DB), -EINVAL);
	/* Indices of a corrupt queue: read past write, or more in flight than slots. */
	fx.write = 5, fx.read = 6;
	CU_ASSERT_EQUAL(INIT(&ring, fx.slots, 8, &fx.write, &fx.read, DB), -EINVAL);
	fx.write = 15, fx.read = 6;
	CU_ASSERT_EQUAL(INIT(&ring, fx.slots, 8, &fx.write, &fx.read, DB), -EINVAL);
	/* A full ring is consistent; so are the extreme sizes (init does not touch the slots). */
	fx.write = 14, fx.read = 6;
	CU_ASSERT_EQUAL(INIT(&ring, fx.slots, 8, &fx.write, &fx.read, DB), 0);
	CU_ASSERT_EQUAL(ring.mask, 7);
	fx.write = fx.read = 0;
	CU_ASSERT_EQUAL(INIT(&ring, fx.slots, 1, &fx.write, &fx.read, DB), 0);
	CU_ASSERT_EQUAL(INIT(&ring, fx.slots, 1u << 31, &fx.write, &fx.read, DB), 0);
	CU_ASSERT_EQUAL(ring.mask, 0x7fffffffu);
	t_fixture_fini(&fx);
}

static void test_reserve_publish_submit_refuse_bad_arguments(void)
{
	struct t_fixture fx;
	union hsaqm_aql_packet pkts[9];
	uint64_t first = 0x77;

	t_fixture_init(&fx, 8, 0);
	for (int i = 0; i < 9; i++)
		pkts[i] = t_tagged(i + 1);
	CU_ASSERT_EQUAL(hsaqm_ring_reserve(NULL, 1, 0, &first), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_reserve(&fx.ring, 1, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_reserve(&fx.ring, 0, 0, &first), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_reserve(&fx.ring, 9, 0, &first), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_reserve(&fx.ring, UINT32_MAX, HSAQM_RING_WAIT_FOREVER, &first),
			-EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_reserve_sp(NULL, 1, 0, &first), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_reserve_sp(&fx.ring, 1, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_reserve_sp(&fx.ring, 0, 0, &first), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_reserve_sp(&fx.ring, 9, 0, &first), -EINVAL);
	CU_ASSERT_EQUAL(first, 0x77);
	/* A batch larger than the ring could never be published: refused, not waited for. */
	CU_ASSERT_EQUAL(hsaqm_ring_submit(&fx.ring, pkts, 9, HSAQM_RING_WAIT_FOREVER), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_submit_sp(&fx.ring, pkts, 9, HSAQM_RING_WAIT_FOREVER), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_submit(&fx.ring, pkts, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_submit(&fx.ring, NULL, 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_submit(NULL, pkts, 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_submit_sp(NULL, pkts, 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_submit_sp(&fx.ring, NULL, 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_publish(NULL, 0, pkts, 1), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_publish(&fx.ring, 0, NULL, 1), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_publish(&fx.ring, 0, pkts, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_publish(&fx.ring, 0, pkts, 9), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_doorbell(NULL, 0), -EINVAL);
	CU_ASSERT_PTR_NULL(hsaqm_ring_slot(NULL, 0));
	/* One INVALID packet in a batch: nothing reserved, nothing written, no doorbell. */
	pkts[2].u32[0] = HSAQM_AQL_INVALID_WORD;
	CU_ASSERT_EQUAL(hsaqm_ring_submit(&fx.ring, pkts, 3, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_submit_sp(&fx.ring, pkts, 3, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ring_publish(&fx.ring, 0, pkts, 3), -EINVAL);
	pkts[2].u32[0] = 0x0042; /* reserved type */
	CU_ASSERT_EQUAL(hsaqm_ring_submit(&fx.ring, pkts, 3, 0), -EINVAL);
	CU_ASSERT_EQUAL(fx.write, 0);
	CU_ASSERT_EQUAL(fx.doorbell_calls, 0);
	CU_ASSERT_EQUAL(t_visible(&fx), 0);
	CU_ASSERT_EQUAL(fx.slots[0].u64[1], 0x5a5a5a5a5a5a5a5aull);
	t_fixture_fini(&fx);
}

static const struct t_case cases[] = {
	T_CASE(test_init_refuses_null_bad_sizes_misalignment_and_bad_indices),
	T_CASE(test_reserve_publish_submit_refuse_bad_arguments),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "ring-input", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-ring-input", suites);
}
