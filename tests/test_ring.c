/* SPDX-License-Identifier: MIT */
/*
 * The ring writer refuses bad input, stops at a full ring (nonblocking and timed) and goes
 * on once the read index moves, wraps around, keeps a batch invisible to an in-order
 * consumer until all of it is valid, and under 1 and 4 producers pushing 10^6 packets
 * through a 256-slot ring to a consumer thread acting as the packet processor loses,
 * tears, reorders and duplicates nothing, with a doorbell for the last index of every batch.
 * HSAQM_TEST_RING_PACKETS=N changes the stress packet count (default 10^6 in every build).
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

static union hsaqm_aql_packet *ring_alloc(uint32_t size)
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
struct fixture {
	alignas(64) uint64_t write;
	alignas(64) uint64_t read;
	alignas(64) uint64_t doorbell_calls;
	uint64_t doorbell_log[64];
	union hsaqm_aql_packet *slots;
	uint32_t size;
	struct hsaqm_ring ring;
};

static void fixture_doorbell(void *ctx, uint64_t last_index)
{
	struct fixture *fx = ctx;
	/* Atomic so that a doorbell rung by a helper thread counts; no ordering needed. */
	uint64_t n = hsaqm_fetch_add(&fx->doorbell_calls, 1);

	if (n < 64)
		fx->doorbell_log[n] = last_index;
}

static void fixture_init(struct fixture *fx, uint32_t size, uint64_t start)
{
	memset(fx, 0, sizeof(*fx));
	fx->size = size;
	fx->slots = ring_alloc(size);
	fx->write = start;
	fx->read = start;
	CU_ASSERT_EQUAL_FATAL(hsaqm_ring_init(&fx->ring, fx->slots, size, &fx->write, &fx->read,
					      fixture_doorbell, fx), 0);
}

static void fixture_fini(struct fixture *fx)
{
	free(fx->slots);
	fx->slots = NULL;
}

/* A valid packet that says which one it is: a barrier-AND whose dep_signal[0] is the tag. */
static union hsaqm_aql_packet tagged(uint64_t tag)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_barrier_desc d = { .dep_signals = &tag, .num_deps = 1,
					    .release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM };

	if (hsaqm_aql_barrier_and_build(&p, &d))
		abort();
	return p;
}

/* Packets an in-order consumer would process now: valid headers from the read index on. */
static uint32_t visible(struct fixture *fx)
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
static int consume_one(struct fixture *fx, union hsaqm_aql_packet *out)
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

static uint64_t tag_of(const union hsaqm_aql_packet *p)
{
	return p->barrier.dep_signal[0];
}

/* ---- bad input ---- */

/* hsaqm_ring_init() on the fixture's queue (doorbell context &fx). */
#define INIT(ring, base, size, w, r, db) hsaqm_ring_init(ring, base, size, w, r, db, &fx)
#define DB fixture_doorbell

static void test_init_refuses_null_bad_sizes_misalignment_and_bad_indices(void)
{
	struct fixture fx;
	struct hsaqm_ring ring;
	static const uint32_t bad_sizes[] = { 0, 3, 6, 12, 255, 257, 0x80000001u, 0xffffffffu };
	uint64_t *w_odd, *r_odd;

	fixture_init(&fx, 8, 0);
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
	fixture_fini(&fx);
}

static void test_reserve_publish_submit_refuse_bad_arguments(void)
{
	struct fixture fx;
	union hsaqm_aql_packet pkts[9];
	uint64_t first = 0x77;

	fixture_init(&fx, 8, 0);
	for (int i = 0; i < 9; i++)
		pkts[i] = tagged(i + 1);
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
	CU_ASSERT_EQUAL(visible(&fx), 0);
	CU_ASSERT_EQUAL(fx.slots[0].u64[1], 0x5a5a5a5a5a5a5a5aull);
	fixture_fini(&fx);
}

/* ---- full ring ---- */

static void full_ring_case(bool sp)
{
	int (*reserve)(struct hsaqm_ring *, uint32_t, uint64_t, uint64_t *) =
		sp ? hsaqm_ring_reserve_sp : hsaqm_ring_reserve;
	int (*submit)(struct hsaqm_ring *, const union hsaqm_aql_packet *, uint32_t, uint64_t) =
		sp ? hsaqm_ring_submit_sp : hsaqm_ring_submit;
	struct fixture fx;
	union hsaqm_aql_packet pkts[8], got;
	uint64_t first = 0xdead, t0, waited;

	fixture_init(&fx, 8, 100);
	for (int i = 0; i < 8; i++)
		pkts[i] = tagged(100 + i);
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
	CU_ASSERT_EQUAL(consume_one(&fx, &got), 0);
	CU_ASSERT_EQUAL(tag_of(&got), 100);
	CU_ASSERT_EQUAL(reserve(&fx.ring, 2, 0, &first), -EAGAIN);
	CU_ASSERT_EQUAL(reserve(&fx.ring, 1, 0, &first), 0);
	CU_ASSERT_EQUAL(first, 108);
	CU_ASSERT_EQUAL(reserve(&fx.ring, 1, 0, &first), -EAGAIN);
	CU_ASSERT_EQUAL(hsaqm_ring_publish(&fx.ring, 108, &pkts[0], 1), 0);
	CU_ASSERT_EQUAL(hsaqm_ring_doorbell(&fx.ring, 108), 0);
	CU_ASSERT_EQUAL(fx.doorbell_log[2], 108);
	/* Everything comes out in order, the wrapped packet last. */
	for (int i = 1; i < 8; i++) {
		CU_ASSERT_EQUAL(consume_one(&fx, &got), 0);
		CU_ASSERT_EQUAL(tag_of(&got), 100 + (uint64_t)i);
	}
	CU_ASSERT_EQUAL(consume_one(&fx, &got), 0);
	CU_ASSERT_EQUAL(tag_of(&got), 100);
	CU_ASSERT_EQUAL(consume_one(&fx, NULL), -EAGAIN);
	/* Empty again: a whole-ring batch fits. */
	CU_ASSERT_EQUAL(submit(&fx.ring, pkts, 8, 0), 0);
	CU_ASSERT_EQUAL(visible(&fx), 8);
	fixture_fini(&fx);
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
	struct fixture *fx;
	long delay_ns;
	uint64_t consumed_at;
};

static void *late_consumer_main(void *arg)
{
	struct late_consumer *lc = arg;

	t_sleep_ns(lc->delay_ns);
	/* Relaxed: read after pthread_join, which orders it. */
	hsaqm_store_relaxed(&lc->consumed_at, t_mono_ns());
	if (consume_one(lc->fx, NULL))
		abort();
	return NULL;
}

/* A timed (and an unbounded) wait ends when the packet processor frees a slot. */
static void test_waiting_reserve_succeeds_when_consumer_frees_a_slot(void)
{
	for (int sp = 0; sp <= 1; sp++) {
		struct fixture fx;
		union hsaqm_aql_packet p = tagged(1);
		struct late_consumer lc = { .delay_ns = 20000000 };
		pthread_t t;
		uint64_t first = 0, t0;

		fixture_init(&fx, 2, 0);
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
		fixture_fini(&fx);
	}
}

static void test_read_index_ahead_of_write_index_is_reported(void)
{
	struct fixture fx;
	uint64_t first = 0;

	fixture_init(&fx, 4, 10);
	fx.read = 12; /* a corrupt queue: consumed more than was ever reserved */
	CU_ASSERT_EQUAL(hsaqm_ring_reserve(&fx.ring, 1, 0, &first), -EIO);
	fx.ring.sp_read_cache = 0; /* force the single-producer path to look at the read index */
	CU_ASSERT_EQUAL(hsaqm_ring_reserve_sp(&fx.ring, 1, 0, &first), -EIO);
	CU_ASSERT_EQUAL(hsaqm_ring_submit(&fx.ring, &(union hsaqm_aql_packet){ .u32 = { 2 } }, 1,
					  0),
			-EIO);
	CU_ASSERT_EQUAL(fx.write, 10);
	fixture_fini(&fx);
}

/* ---- wrap-around ---- */

static void test_indices_wrap_around_the_ring(void)
{
	static const uint32_t sizes[] = { 1, 4 };

	for (size_t s = 0; s < 2; s++) {
		struct fixture fx;
		uint32_t size = sizes[s];
		uint64_t tag = 0, want = 0;

		/* Start near a slot boundary so that the first batch already wraps. */
		fixture_init(&fx, size, 3 * (uint64_t)size - 1);
		for (int round = 0; round < 20; round++) {
			union hsaqm_aql_packet pkts[4], got;
			uint32_t n = 1 + (uint32_t)round % size;
			uint64_t first = fx.write;

			for (uint32_t i = 0; i < n; i++)
				pkts[i] = tagged(++tag);
			CU_ASSERT_EQUAL_FATAL(hsaqm_ring_submit_sp(&fx.ring, pkts, n, 0), 0);
			CU_ASSERT_EQUAL(fx.doorbell_log[round], first + n - 1);
			for (uint32_t i = 0; i < n; i++) {
				/* Index i lands in slot i & (size - 1). */
				CU_ASSERT_PTR_EQUAL(hsaqm_ring_slot(&fx.ring, first + i),
						    &fx.slots[(first + i) % size]);
				CU_ASSERT_EQUAL(tag_of(&fx.slots[(first + i) % size]),
						want + 1 + i);
			}
			for (uint32_t i = 0; i < n; i++) {
				CU_ASSERT_EQUAL(consume_one(&fx, &got), 0);
				CU_ASSERT_EQUAL(tag_of(&got), ++want);
			}
		}
		CU_ASSERT_EQUAL(fx.read, 3 * (uint64_t)size - 1 + tag);
		fixture_fini(&fx);
	}
}

/* ---- batch visibility ---- */

static struct fixture *hook_fx;
static unsigned int hook_stages;
static bool hook_ok;

static void check_stage(const struct hsaqm_ring *ring, uint64_t first, uint32_t n, int stage)
{
	struct fixture *fx = hook_fx;

	hook_stages |= 1u << stage;
	/* Whatever else is stored, an in-order consumer sees nothing of the batch yet. */
	if (visible(fx) != 0 || ring != &fx->ring)
		hook_ok = false;
	for (uint32_t i = 0; i < n; i++) {
		const union hsaqm_aql_packet *slot = hsaqm_ring_slot(ring, first + i);
		bool valid = (hsaqm_aql_slot_load_header(slot) & 0xff) != HSAQM_AQL_TYPE_INVALID;

		if (tag_of(slot) != 1000 + first + i) /* bodies are all written before any header */
			hook_ok = false;
		if (stage == HSAQM_RING_STAGE_BODIES_WRITTEN && valid)
			hook_ok = false;
		/* Then every header but the first. */
		if (stage == HSAQM_RING_STAGE_TAIL_HEADERS_SET && valid != (i != 0))
			hook_ok = false;
	}
}

static void test_batch_invisible_until_first_header_stored_last(void)
{
	struct fixture fx;
	union hsaqm_aql_packet pkts[5];
	uint64_t first = 0;

	/* Indices 6..10 of an 8-slot ring: the batch wraps from slot 6 to slot 2. */
	fixture_init(&fx, 8, 6);
	for (int i = 0; i < 5; i++)
		pkts[i] = tagged(1000 + 6 + i);
	hook_fx = &fx;
	hook_stages = 0;
	hook_ok = true;
	/*
	 * hsaqm_ring_publish() runs the very sequence the submit paths inline
	 * (__hsaqm_ring_publish_seq), here with the hook at its two inner points.
	 */
	CU_ASSERT_EQUAL_FATAL(hsaqm_ring_reserve(&fx.ring, 5, 0, &first), 0);
	CU_ASSERT_EQUAL(first, 6);
	hsaqm_ring_publish_hook = check_stage;
	CU_ASSERT_EQUAL(hsaqm_ring_publish(&fx.ring, first, pkts, 5), 0);
	hsaqm_ring_publish_hook = NULL;
	CU_ASSERT_EQUAL(hook_stages, 3); /* both stages were observed */
	CU_ASSERT(hook_ok);
	CU_ASSERT_EQUAL(visible(&fx), 5);
	CU_ASSERT_EQUAL(fx.doorbell_calls, 0); /* publishing alone does not ring */
	fixture_fini(&fx);
}

/*
 * Producer B's batch follows producer A's reserved but unpublished one: the consumer stops
 * at A's first slot although B's packets are valid and B rang the doorbell first; the
 * doorbell goes backwards when A rings, and the headers still tell the truth.
 */
static void test_batch_behind_unpublished_batch_waits_and_doorbell_is_a_hint(void)
{
	struct fixture fx;
	union hsaqm_aql_packet a[2] = { tagged(1), tagged(2) };
	union hsaqm_aql_packet b[3] = { tagged(3), tagged(4), tagged(5) };
	union hsaqm_aql_packet got;
	uint64_t first_a;

	fixture_init(&fx, 8, 0);
	CU_ASSERT_EQUAL(hsaqm_ring_reserve(&fx.ring, 2, 0, &first_a), 0);
	CU_ASSERT_EQUAL(hsaqm_ring_submit(&fx.ring, b, 3, 0), 0);
	CU_ASSERT_EQUAL(fx.doorbell_log[0], 4);
	CU_ASSERT_EQUAL(visible(&fx), 0);
	CU_ASSERT_EQUAL(consume_one(&fx, NULL), -EAGAIN);
	CU_ASSERT_EQUAL(hsaqm_ring_publish(&fx.ring, first_a, a, 2), 0);
	CU_ASSERT_EQUAL(hsaqm_ring_doorbell(&fx.ring, first_a + 1), 0);
	CU_ASSERT_EQUAL(fx.doorbell_log[1], 1); /* lower than the previous doorbell */
	CU_ASSERT_EQUAL(visible(&fx), 5);
	for (uint64_t i = 1; i <= 5; i++) {
		CU_ASSERT_EQUAL(consume_one(&fx, &got), 0);
		CU_ASSERT_EQUAL(tag_of(&got), i);
	}
	fixture_fini(&fx);
}

/* ---- stress: producers against a packet-processor thread ---- */

#define STRESS_RING 256u
#define STRESS_MAX_BATCH 32u
#define STRESS_MAX_PRODUCERS 4u
#define STRESS_TIMEOUT_NS 10000000000ull /* a producer or the consumer stuck this long fails */

struct stress {
	alignas(64) uint64_t write;
	alignas(64) uint64_t read;
	alignas(64) uint64_t doorbell_bad; /* doorbells outside [0, total) */
	struct hsaqm_ring ring;
	union hsaqm_aql_packet *slots;
	uint64_t total;
	unsigned int producers;
	bool sp;
	uint8_t *rung;    /* per index: doorbells rung with it */
	uint8_t *last_of; /* per index: the consumer saw the last packet of a batch there */
	int producer_err[STRESS_MAX_PRODUCERS];
	/* consumer verdicts */
	uint64_t consumed, torn, out_of_order, bad_batch, batch_incomplete, bad_producer, stalled;
	uint64_t next_seq[STRESS_MAX_PRODUCERS];
};

struct producer_arg {
	struct stress *st;
	unsigned int id;
	uint64_t quota;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static uint32_t checksum(const union hsaqm_aql_packet *p)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 15; i++)
		h = mix64(h ^ p->u32[i]);
	return (uint32_t)h;
}

/*
 * Packet seq of producer id, position k of a batch of n. Its header varies with seq (three
 * types, several scopes), every other word is derived from (id, seq), and the last word is
 * a checksum over the first 60 bytes: a packet mixed from two writes (torn, or half of the
 * previous lap) does not pass.
 */
static void stress_packet(union hsaqm_aql_packet *p, unsigned int id, uint64_t seq, uint32_t k,
			  uint32_t n)
{
	static const uint8_t types[3] = { HSAQM_AQL_TYPE_KERNEL_DISPATCH,
					  HSAQM_AQL_TYPE_BARRIER_AND, HSAQM_AQL_TYPE_VENDOR };
	struct hsaqm_aql_header h = { types[seq % 3], (seq >> 2) & 1, (uint8_t)((seq >> 3) % 3),
				      (uint8_t)((seq >> 5) % 3) };
	uint16_t header;

	if (hsaqm_aql_header_encode(&h, &header))
		abort();
	p->u32[0] = header | (uint32_t)(1 + seq % 3) << 16;
	p->u32[1] = id | k << 8 | n << 16;
	p->u64[1] = seq;
	for (int i = 2; i < 7; i++)
		p->u64[i] = mix64(seq * 8 + (uint64_t)i + ((uint64_t)id << 56));
	p->u32[14] = (uint32_t)seq ^ 0xdeadbeefu;
	p->u32[15] = checksum(p);
}

static void stress_doorbell(void *ctx, uint64_t last_index)
{
	struct stress *st = ctx;

	if (last_index >= st->total) {
		/* Atomic because producers ring concurrently; read after join. */
		hsaqm_fetch_add(&st->doorbell_bad, 1);
		return;
	}
	/* Relaxed would do (only read after join); fetch_add keeps concurrent rings countable. */
	hsaqm_fetch_add(&st->rung[last_index], 1);
}

static void *producer_main(void *arg)
{
	static const uint32_t batch_sizes[] = { 1, 1, 1, 1, 1, 2, 3, 4, 5, 8, 13, 16, 31, 32 };
	struct producer_arg *pa = arg;
	struct stress *st = pa->st;
	union hsaqm_aql_packet pkts[STRESS_MAX_BATCH];
	uint64_t rng = 0x1234567ull + pa->id, seq = 0;

	while (seq < pa->quota) {
		uint32_t n;
		int err;

		rng = mix64(rng);
		n = batch_sizes[rng % (sizeof(batch_sizes) / sizeof(batch_sizes[0]))];
		if (n > pa->quota - seq)
			n = (uint32_t)(pa->quota - seq);
		for (uint32_t k = 0; k < n; k++)
			stress_packet(&pkts[k], pa->id, seq + k, k, n);
		err = st->sp ? hsaqm_ring_submit_sp(&st->ring, pkts, n, STRESS_TIMEOUT_NS)
			     : hsaqm_ring_submit(&st->ring, pkts, n, STRESS_TIMEOUT_NS);
		if (err) {
			st->producer_err[pa->id] = err;
			break;
		}
		seq += n;
	}
	return NULL;
}

/* The packet processor: in order, waits for a valid header, checks, invalidates, advances. */
static void *consumer_main(void *arg)
{
	struct stress *st = arg;
	uint64_t batch_start = 0;
	uint32_t batch_id = 0, batch_n = 0;

	for (uint64_t i = 0; i < st->total; i++) {
		union hsaqm_aql_packet *slot = &st->slots[i & (STRESS_RING - 1)];
		union hsaqm_aql_packet p;
		uint32_t word, id, k, n;
		uint64_t spins = 0, since = 0;

		while (((word = hsaqm_aql_slot_load_header(slot)) & 0xff) ==
		       HSAQM_AQL_TYPE_INVALID) {
			if (++spins < 64) {
				hsaqm_cpu_relax();
				continue;
			}
			if (!since)
				since = t_mono_ns();
			else if (t_mono_ns() - since > STRESS_TIMEOUT_NS)
				break;
			sched_yield();
		}
		if ((word & 0xff) == HSAQM_AQL_TYPE_INVALID) {
			st->stalled = i + 1;
			break;
		}
		/* The header was loaded with acquire: the body read here is the one it opens. */
		memcpy(&p.bytes[4], &slot->bytes[4], 60);
		p.u32[0] = word;
		hsaqm_aql_slot_invalidate(slot);
		/* Release: the reads above and the INVALID mark precede the producer's reuse. */
		hsaqm_store_release(&st->read, i + 1);
		st->consumed++;

		if (checksum(&p) != p.u32[15] || p.u32[14] != ((uint32_t)p.u64[1] ^ 0xdeadbeefu)) {
			st->torn++;
			continue;
		}
		id = p.u32[1] & 0xff;
		k = p.u32[1] >> 8 & 0xff;
		n = p.u32[1] >> 16;
		if (id >= st->producers) {
			st->bad_producer++;
			continue;
		}
		/* Per producer: exactly the next sequence number (no loss, duplicate, reorder). */
		if (p.u64[1] != st->next_seq[id])
			st->out_of_order++;
		st->next_seq[id] = p.u64[1] + 1;
		/* A batch occupies consecutive indices, whoever else is producing. */
		if (k == 0) {
			batch_start = i;
			batch_id = id;
			batch_n = n;
			/* The whole batch became visible at once: the rest is valid already. */
			for (uint32_t j = 1; j < n && i + j < st->total; j++) {
				const union hsaqm_aql_packet *next =
					&st->slots[(i + j) & (STRESS_RING - 1)];
				uint32_t type = hsaqm_aql_slot_load_header(next) & 0xff;

				if (type == HSAQM_AQL_TYPE_INVALID)
					st->batch_incomplete++;
			}
		} else if (id != batch_id || n != batch_n || k != i - batch_start) {
			st->bad_batch++;
		}
		if (k == n - 1)
			st->last_of[i] = 1;
	}
	return NULL;
}

static uint64_t stress_total(void)
{
	const char *env = getenv("HSAQM_TEST_RING_PACKETS");

	if (env && *env) {
		char *end;
		unsigned long long v = strtoull(env, &end, 10);

		if (*end == '\0' && v > 0)
			return v;
		printf("\nHSAQM_TEST_RING_PACKETS=%s is not a positive number: ignored\n", env);
	}
	/* Also under ASan and TSan: 10^6 packets take about 1.5 s there on two cores. */
	return 1000000;
}

static void run_stress(unsigned int producers, bool sp)
{
	/* The struct keeps the indices on their own cache lines: allocate it aligned. */
	struct stress *st = aligned_alloc(64, sizeof(*st));
	struct producer_arg pa[STRESS_MAX_PRODUCERS];
	pthread_t prod[STRESS_MAX_PRODUCERS], cons;
	uint64_t batches = 0, rung_total = 0, missing = 0, extra = 0, t0, ns;

	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	memset(st, 0, sizeof(*st));
	st->total = stress_total();
	st->producers = producers;
	st->sp = sp;
	st->slots = ring_alloc(STRESS_RING);
	st->rung = calloc(st->total, 1);
	st->last_of = calloc(st->total, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st->rung);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st->last_of);
	CU_ASSERT_EQUAL_FATAL(hsaqm_ring_init(&st->ring, st->slots, STRESS_RING, &st->write,
					      &st->read, stress_doorbell, st), 0);

	t0 = t_mono_ns();
	CU_ASSERT_EQUAL_FATAL(pthread_create(&cons, NULL, consumer_main, st), 0);
	for (unsigned int i = 0; i < producers; i++) {
		pa[i] = (struct producer_arg){ st, i, st->total / producers +
							     (i < st->total % producers) };
		CU_ASSERT_EQUAL_FATAL(pthread_create(&prod[i], NULL, producer_main, &pa[i]), 0);
	}
	for (unsigned int i = 0; i < producers; i++)
		pthread_join(prod[i], NULL);
	pthread_join(cons, NULL);
	ns = t_mono_ns() - t0;

	for (uint64_t i = 0; i < st->total; i++) {
		batches += st->last_of[i];
		rung_total += st->rung[i];
		missing += st->last_of[i] && st->rung[i] != 1;
		extra += !st->last_of[i] && st->rung[i] != 0;
	}
	printf("\n    %u producer(s), %s path: %" PRIu64 " of %" PRIu64 " packets in %" PRIu64
	       " batches, %.1f ns/packet\n",
	       producers, sp ? "single-producer" : "multi-producer", st->consumed, st->total,
	       batches, (double)ns / (double)st->total);
	for (unsigned int i = 0; i < producers; i++) {
		CU_ASSERT_EQUAL(st->producer_err[i], 0);
		/* Nothing lost at the end: every producer's last packet arrived. */
		CU_ASSERT_EQUAL(st->next_seq[i], pa[i].quota);
	}
	CU_ASSERT_EQUAL(st->stalled, 0);
	CU_ASSERT_EQUAL(st->consumed, st->total);
	CU_ASSERT_EQUAL(st->torn, 0);
	CU_ASSERT_EQUAL(st->out_of_order, 0);
	CU_ASSERT_EQUAL(st->bad_batch, 0);
	CU_ASSERT_EQUAL(st->batch_incomplete, 0);
	CU_ASSERT_EQUAL(st->bad_producer, 0);
	/* One doorbell per batch, with the batch's last index, and no other. */
	CU_ASSERT_EQUAL(missing, 0);
	CU_ASSERT_EQUAL(extra, 0);
	CU_ASSERT_EQUAL(rung_total, batches);
	CU_ASSERT_EQUAL(st->doorbell_bad, 0);
	CU_ASSERT_EQUAL(st->write, st->total);
	CU_ASSERT_EQUAL(st->read, st->total);
	CU_ASSERT(batches < st->total); /* batches really were mixed in */
	if (st->torn || st->out_of_order || st->bad_batch || st->batch_incomplete || st->stalled)
		printf("    torn %" PRIu64 " out-of-order %" PRIu64 " bad-batch %" PRIu64
		       " batch-seen-incomplete %" PRIu64 " stalled-at %" PRIu64 "\n",
		       st->torn, st->out_of_order, st->bad_batch, st->batch_incomplete,
		       st->stalled);
	free(st->rung);
	free(st->last_of);
	free(st->slots);
	free(st);
}

static void test_stress_one_producer_single_producer_path(void)
{
	run_stress(1, true);
}

static void test_stress_four_producers_multi_producer_path(void)
{
	run_stress(4, false);
}

static const struct t_case ring_cases[] = {
	T_CASE(test_init_refuses_null_bad_sizes_misalignment_and_bad_indices),
	T_CASE(test_reserve_publish_submit_refuse_bad_arguments),
	T_CASE(test_full_ring_refuses_then_accepts_after_read_index_moves),
	T_CASE(test_full_ring_single_producer_path_sees_read_index_move),
	T_CASE(test_waiting_reserve_succeeds_when_consumer_frees_a_slot),
	T_CASE(test_read_index_ahead_of_write_index_is_reported),
	T_CASE(test_indices_wrap_around_the_ring),
	T_CASE(test_batch_invisible_until_first_header_stored_last),
	T_CASE(test_batch_behind_unpublished_batch_waits_and_doorbell_is_a_hint),
	T_CASES_END,
};

static const struct t_case stress_cases[] = {
	T_CASE(test_stress_one_producer_single_producer_path),
	T_CASE(test_stress_four_producers_multi_producer_path),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "ring", NULL, NULL, ring_cases },
		{ "ring-stress", NULL, NULL, stress_cases },
		T_SUITES_END,
	};
	return t_run("test-ring", suites);
}
