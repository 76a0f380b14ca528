/* SPDX-License-Identifier: MIT */
/*
 * The ring writer at a full ring: it refuses (nonblocking) and waits (timed), and goes on once
 * the read index moves, on the single- and multi-producer paths; a read index ahead of the
 * write index is reported; the indices wrap around the ring.
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

/* ---- full ring ---- */

static void full_ring_case(bool sp)
{
	int (*reserve)(struct hsaqm_ring *, uint32_t, uint64_t, uint64_t *) =
		sp ? hsaqm_ring_reserve_sp : hsaqm_ring_reserve;
	int (*submit)(struct hsaqm_ring *, const union hsaqm_aql_packet *, uint32_t, uint64_t) =
		sp ? hsaqm_ring_submit_sp : hsaqm_ring_submit;
	struct t_fixture fx;
	union hsaqm_aql_packet pkts[8], got;
	uint64_t first = 0xdead, t0, waited;

	t_fixture_init(&fx, 8, 100);
	for (int i = 0; i < 8; i++)
		pkts[i] = t_tagged(100 + i);
	CU_ASSERT_EQUAL(submit(&fx.ring, pkts, 5, 0), 0);
	CU_ASSERT_EQUAL(submit(&fx.ring, pkts + 5, 3, 0), 0);
	CU_ASSERT_EQUAL(fx.write - fx.read, 8);
	/* write - read == size: nothing fits, and a failed call reserves nothing. */
	CU_ASSERT_EQUAL(reserve(&fx.ring, 1, 0, &first), -EAGAIN);
	CU_ASSERT_EQUAL(submit(&fx.ring, pkts, 1, 0), -EAGAIN);
	CU_ASSERT_EQUAL(first, 0xdead);
	t0 = t_mono_ns();
	CU_ASSERT_EQUAL(reserve(&fx.ring, 1, 2000000, &first), -ETIMEDOUT);
	waited = t_mono_ns() - t0;
	CU_ASSERT(waited >= 2000000);
	CU_ASSERT(waited < 1000000000);
	CU_ASSERT_EQUAL(submit(&fx.ring, pkts, 1, 3000000), -ETIMEDOUT);
	CU_ASSERT_EQUAL(fx.write, 108);
	CU_ASSERT_EQUAL(fx.doorbell_calls, 2);

	/* The packet processor consumes one packet: exactly one slot frees up. */
	CU_ASSERT_EQUAL(t_consume_one(&fx, &got), 0);
	CU_ASSERT_EQUAL(t_tag_of(&got), 100);
	CU_ASSERT_EQUAL(reserve(&fx.ring, 2, 0, &first), -EAGAIN);
	CU_ASSERT_EQUAL(reserve(&fx.ring, 1, 0, &first), 0);
	CU_ASSERT_EQUAL(first, 108);
	CU_ASSERT_EQUAL(reserve(&fx.ring, 1, 0, &first), -EAGAIN);
	CU_ASSERT_EQUAL(hsaqm_ring_publish(&fx.ring, 108, &pkts[0], 1), 0);
	CU_ASSERT_EQUAL(hsaqm_ring_doorbell(&fx.ring, 108), 0);
	CU_ASSERT_EQUAL(fx.doorbell_log[2], 108);
	/* Everything comes out in order, the wrapped packet last. */
	for (int i = 1; i < 8; i++) {
		CU_ASSERT_EQUAL(t_consume_one(&fx, &got), 0);
		CU_ASSERT_EQUAL(t_tag_of(&got), 100 + (uint64_t)i);
	}
	CU_ASSERT_EQUAL(t_consume_one(&fx, &got), 0);
	CU_ASSERT_EQUAL(t_tag_of(&got), 100);
	CU_ASSERT_EQUAL(t_consume_one(&fx, NULL), -EAGAIN);
	/* Empty again: a whole-ring batch fits. */
	CU_ASSERT_EQUAL(submit(&fx.ring, pkts, 8, 0), 0);
	CU_ASSERT_EQUAL(t_visible(&fx), 8);
	t_fixture_fini(&fx);
}

static void test_full_ring_refuses_then_accepts_after_read_index_moves(void)
{
	full_ring_case(false);
}

static void test_full_ring_single_producer_path_sees_read_index_move(void)
{
	full_ring_case(true);
}

struct late_consumer {
	struct t_fixture *fx;
	long delay_ns;
	uint64_t consumed_at;
};

static void *late_consumer_main(void *arg)
{
	struct late_consumer *lc = arg;

	t_sleep_ns(lc->delay_ns);
	/* Relaxed: read after pthread_join, which orders it. */
	hsaqm_store_relaxed(&lc->consumed_at, t_mono_ns());
	if (t_consume_one(lc->fx, NULL))
		abort();
	return NULL;
}

/* A timed (and an unbounded) wait ends when the packet processor frees a slot. */
static void test_waiting_reserve_succeeds_when_consumer_frees_a_slot(void)
{
	for (int sp = 0; sp <= 1; sp++) {
		struct t_fixture fx;
		union hsaqm_aql_packet p = t_tagged(1);
		struct late_consumer lc = { .delay_ns = 20000000 };
		pthread_t t;
		uint64_t first = 0, t0;

		t_fixture_init(&fx, 2, 0);
		lc.fx = &fx;
		CU_ASSERT_EQUAL(hsaqm_ring_submit(&fx.ring, &p, 1, 0), 0);
		CU_ASSERT_EQUAL(hsaqm_ring_submit(&fx.ring, &p, 1, 0), 0);
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, late_consumer_main, &lc), 0);
		t0 = t_mono_ns();
		if (sp) {
			CU_ASSERT_EQUAL(hsaqm_ring_reserve_sp(&fx.ring, 1, HSAQM_RING_WAIT_FOREVER,
							      &first), 0);
		} else {
			CU_ASSERT_EQUAL(hsaqm_ring_reserve(&fx.ring, 1, 5000000000ull, &first), 0);
		}
		pthread_join(t, NULL);
		CU_ASSERT_EQUAL(first, 2);
		/* It did wait for the consumer: success came after the slot was freed. */
		CU_ASSERT(t_mono_ns() >= lc.consumed_at);
		CU_ASSERT(t_mono_ns() - t0 >= 15000000);
		CU_ASSERT_EQUAL(hsaqm_ring_publish(&fx.ring, first, &p, 1), 0);
		t_fixture_fini(&fx);
	}
}

static void test_read_index_ahead_of_write_index_is_reported(void)
{
	struct t_fixture fx;
	uint64_t first = 0;

	t_fixture_init(&fx, 4, 10);
	fx.read = 12; /* a corrupt queue: consumed more than was ever reserved */
	CU_ASSERT_EQUAL(hsaqm_ring_reserve(&fx.ring, 1, 0, &first), -EIO);
	fx.ring.sp_read_cache = 0; /* force the single-producer path to look at the read index */
	CU_ASSERT_EQUAL(hsaqm_ring_reserve_sp(&fx.ring, 1, 0, &first), -EIO);
	CU_ASSERT_EQUAL(hsaqm_ring_submit(&fx.ring, &(union hsaqm_aql_packet){ .u32 = { 2 } }, 1,
					  0),
			-EIO);
	CU_ASSERT_EQUAL(fx.write, 10);
	t_fixture_fini(&fx);
}

/* ---- wrap-around ---- */

static void test_indices_wrap_around_the_ring(void)
{
	static const uint32_t sizes[] = { 1, 4 };

	for (size_t s = 0; s < 2; s++) {
		struct t_fixture fx;
		uint32_t size = sizes[s];
		uint64_t tag = 0, want = 0;

		/* Start near a slot boundary so that the first batch already wraps. */
		t_fixture_init(&fx, size, 3 * (uint64_t)size - 1);
		for (int round = 0; round < 20; round++) {
			union hsaqm_aql_packet pkts[4], got;
			uint32_t n = 1 + (uint32_t)round % size;
			uint64_t first = fx.write;

			for (uint32_t i = 0; i < n; i++)
				pkts[i] = t_tagged(++tag);
			CU_ASSERT_EQUAL_FATAL(hsaqm_ring_submit_sp(&fx.ring, pkts, n, 0), 0);
			CU_ASSERT_EQUAL(fx.doorbell_log[round], first + n - 1);
			for (uint32_t i = 0; i < n; i++) {
				/* Index i lands in slot i & (size - 1). */
				CU_ASSERT_PTR_EQUAL(hsaqm_ring_slot(&fx.ring, first + i),
						    &fx.slots[(first + i) % size]);
				CU_ASSERT_EQUAL(t_tag_of(&fx.slots[(first + i) % size]),
						want + 1 + i);
			}
			for (uint32_t i = 0; i < n; i++) {
				CU_ASSERT_EQUAL(t_consume_one(&fx, &got), 0);
				CU_ASSERT_EQUAL(t_tag_of(&got), ++want);
			}
		}
		CU_ASSERT_EQUAL(fx.read, 3 * (uint64_t)size - 1 + tag);
		t_fixture_fini(&fx);
	}
}

static const struct t_case cases[] = {
	T_CASE(test_full_ring_refuses_then_accepts_after_read_index_moves),
	T_CASE(test_full_ring_single_producer_path_sees_read_index_move),
	T_CASE(test_waiting_reserve_succeeds_when_consumer_frees_a_slot),
	T_CASE(test_read_index_ahead_of_write_index_is_reported),
	T_CASE(test_indices_wrap_around_the_ring),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "ring-full", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-ring-full", suites);
}
