/* SPDX-License-Identifier: MIT */
/*
 * The ring writer under 1 and 4 producers pushing 10^6 packets through a 256-slot ring to a
 * consumer thread acting as the packet processor: nothing lost, torn, reordered or duplicated,
 * a doorbell for the last index of every batch. HSAQM_TEST_RING_PACKETS=N changes the packet
 * count (default 10^6 in every build).
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
	st->slots = t_ring_alloc(STRESS_RING);
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

static const struct t_case cases[] = {
	T_CASE(test_stress_one_producer_single_producer_path),
	T_CASE(test_stress_four_producers_multi_producer_path),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "ring-stress", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-ring-stress", suites);
}
