/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-hsa/ring.h - the producer side of an AQL queue's ring.
 *
 * A queue's ring is `size` 64-byte slots (a power of two) plus two 64-bit indices that live
 * in the queue structure (in ROCr's amd_queue_t: write_dispatch_id at byte 56 and
 * read_dispatch_id at byte 128; the caller passes their addresses) and a doorbell.
 *
 *   write index  slots reserved by producers so far (not "published": a reserved slot stays
 *                INVALID until its producer stores its header);
 *   read index   slots the packet processor has consumed, i.e. read and marked INVALID. It
 *                never means "completed": completion is reported by completion signals;
 *   doorbell     tells the packet processor that packets up to an index may be there. Its
 *                store must go through the runtime (an HSA signal), so the caller supplies
 *                a callback (the HSA backend passes one that calls hsa_signal_store_screlease).
 *
 * Publishing follows HSA 1.2 and ROCclr: reserve indices, wait until index - read < size,
 * write the bodies, store each header with release, then ring the doorbell with the last
 * index (not last + 1). For a batch the first packet's header is stored last, so a consumer
 * that processes slots in order and stops at the first INVALID header sees none of the batch
 * until all of it is valid.
 *
 * What a consumer (packet processor, the device model, a test) must assume:
 *   - headers are the truth, the doorbell is a hint. With several producers the doorbell
 *     can be rung out of order (B, whose batch follows A's, may ring before A), so doorbell
 *     values are not monotonic, and a doorbell value does not mean every packet up to it is
 *     valid: producer A may still be writing. A consumer processes slots in index order,
 *     waits at the first INVALID header and may treat any doorbell as "look again";
 *   - it must mark a slot INVALID (hsaqm_aql_slot_invalidate()) before storing a read index
 *     past it, with release: a producer reuses a slot as soon as the read index passes it.
 *
 * Waiting for space spins briefly (the packet processor usually frees slots within
 * microseconds), then yields the CPU, then, after about a millisecond of waiting, sleeps
 * 50 us between looks so that a gated or stalled queue does not burn a core.
 *
 * Sizes: any power of two from 1 to 2^31 slots (hsa_queue_create accepts any power of two
 * from 1; nothing is gained by refusing 1, which simply makes every publish wait for the
 * previous packet to be consumed).
 */
#ifndef HSAQM_RING_H
#define HSAQM_RING_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HSAQM_RING_MIN_SIZE 1u
#define HSAQM_RING_MAX_SIZE (1u << 31)

/* A timeout that never expires. */
#define HSAQM_RING_WAIT_FOREVER UINT64_MAX

/*
 * Rings the queue's doorbell with the index of the last packet just published. Called from
 * the producer's thread after that packet's header is stored. It must store with release
 * semantics (hsa_signal_store_screlease does) so that a consumer woken by it sees the headers.
 */
typedef void (*hsaqm_ring_doorbell_fn)(void *ctx, uint64_t last_index);

struct hsaqm_ring {
	union hsaqm_aql_packet *base; /* slot i is base[i & mask] */
	uint32_t size;
	uint32_t mask;
	uint64_t *write_index;
	uint64_t *read_index;
	hsaqm_ring_doorbell_fn doorbell;
	void *doorbell_ctx;
	/* The single-producer path's last look at the read index; only that producer uses it. */
	uint64_t sp_read_cache;
};

/**
 * hsaqm_ring_init() - describe a queue's ring for its producers.
 * @ring: filled in; the queue's memory is not touched (its slots must already be INVALID,
 *        as hsa_queue_create leaves them).
 * @base: the ring, aligned to 64 bytes.
 * @size: slots, a power of two from 1 to 2^31.
 * @write_index: the queue's write index (8-byte aligned).
 * @read_index: the queue's read index (8-byte aligned).
 * @doorbell: the doorbell callback; required (a queue nobody rings never runs).
 * @doorbell_ctx: passed to @doorbell.
 *
 * Return: 0; -EINVAL if a pointer is NULL or misaligned, @size is not a power of two in
 * range, or the indices are inconsistent (read > write or write - read > size).
 */
int hsaqm_ring_init(struct hsaqm_ring *ring, void *base, uint32_t size, uint64_t *write_index,
		    uint64_t *read_index, hsaqm_ring_doorbell_fn doorbell, void *doorbell_ctx);

/**
 * hsaqm_ring_reserve() - reserve @n consecutive slots, any number of producers at once.
 * @ring: the ring.
 * @n: slots, 1..size.
 * @timeout_ns: how long to wait for space: 0 = do not wait, HSAQM_RING_WAIT_FOREVER = no limit.
 * @first: receives the index of the first reserved slot.
 *
 * Space is checked before the write index is moved (compare-and-swap), so a failed call
 * reserves nothing; a successful one obliges the caller to publish all @n slots, since the
 * packet processor stops at the first unpublished one.
 *
 * Return: 0; -EINVAL if @ring or @first is NULL or @n is 0 or larger than the ring;
 * -EAGAIN if @timeout_ns is 0 and fewer than @n slots are free; -ETIMEDOUT if they did not
 * become free in time; -EIO if the read index is ahead of the write index (a corrupt queue).
 */
int hsaqm_ring_reserve(struct hsaqm_ring *ring, uint32_t n, uint64_t timeout_ns, uint64_t *first);

/**
 * hsaqm_ring_publish() - publish packets into reserved slots [@first, @first + @n).
 * @ring: the ring.
 * @first: the first reserved index.
 * @pkts: @n packet images.
 * @n: 1..size.
 *
 * Writes the bodies of all packets, then the headers of packets 1..n-1, then the header of
 * packet 0 (each header one 32-bit release store), so that nothing of the batch is visible
 * to an in-order consumer until all of it is valid. Does not ring the doorbell.
 *
 * Return: 0; -EINVAL if a pointer is NULL, @n is 0 or larger than the ring, or a packet's
 * type is INVALID or reserved. On error nothing is written, and the reserved slots still
 * have to be published by the caller (a barrier-AND without dependencies is a no-op).
 */
int hsaqm_ring_publish(const struct hsaqm_ring *ring, uint64_t first,
		       const union hsaqm_aql_packet *pkts, uint32_t n);

/**
 * hsaqm_ring_doorbell() - call the ring's doorbell callback with @last_index.
 *
 * Return: 0; -EINVAL if @ring is NULL.
 */
int hsaqm_ring_doorbell(const struct hsaqm_ring *ring, uint64_t last_index);

/**
 * hsaqm_ring_submit() - reserve, publish and ring the doorbell for @n packets (any number of
 * producers).
 * @ring: the ring.
 * @pkts: @n packet images.
 * @n: 1..size.
 * @timeout_ns: as for hsaqm_ring_reserve().
 *
 * Packets are checked before anything is reserved, so no error leaves a hole in the ring.
 *
 * Return: 0; -EINVAL (NULL, @n out of range, a packet of type INVALID or reserved), -EAGAIN,
 * -ETIMEDOUT or -EIO as hsaqm_ring_reserve(); on error nothing was reserved or written.
 */
int hsaqm_ring_submit(struct hsaqm_ring *ring, const union hsaqm_aql_packet *pkts, uint32_t n,
		      uint64_t timeout_ns);

/*
 * The single-producer hot path is inline, as liburing's is: at one packet per call the
 * function call, its argument checks and register saves would otherwise cost more than
 * the 64 bytes it copies (see experiments/bench). Only the waiting is out of line.
 */

/* Internal: the single-producer path's wait for space (ring.c). Not for callers. */
int __hsaqm_ring_reserve_sp_wait(struct hsaqm_ring *ring, uint64_t write, uint32_t n,
				 uint64_t timeout_ns);

/* 1 <= n <= size in one comparison (n = 0 wraps to UINT32_MAX); free when n is a constant 1. */
static inline bool __hsaqm_ring_n_valid(const struct hsaqm_ring *ring, uint32_t n)
{
	return n - 1 <= ring->mask;
}

static inline bool __hsaqm_ring_publishable(const union hsaqm_aql_packet *pkts, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (!hsaqm_aql_type_publishable(pkts[i].u32[0]))
			return false;
	}
	return true;
}

/*
 * Internal: the header half of the publishing sequence, for bodies already in their slots
 * (written with plain stores while every header stayed INVALID). Header i is words[i * stride]:
 * stride 16 reads the first word of packet images, stride 1 an array of header words (the
 * HSA backend writes bodies in place and keeps only their headers). Arguments checked by the
 * caller.
 */
static inline __attribute__((always_inline)) void
__hsaqm_ring_publish_headers(const struct hsaqm_ring *ring, uint64_t first, const uint32_t *words,
			     uint32_t stride, uint32_t n,
			     void (*hook)(const struct hsaqm_ring *ring, uint64_t first, uint32_t n,
					  int stage))
{
	union hsaqm_aql_packet *base = ring->base;
	uint32_t mask = ring->mask;

	if (hook)
		hook(ring, first, n, 0);
	/*
	 * Release, each: orders every body above before this header, so each packet is whole
	 * to whoever sees its header, even a consumer that peeks past the first slot.
	 */
	for (uint32_t i = 1; i < n; i++)
		hsaqm_store_release(&base[(first + i) & mask].u32[0], words[i * stride]);
	if (hook)
		hook(ring, first, n, 1);
	/*
	 * Release, last: an in-order consumer stops at this slot until now; this store orders
	 * all bodies and headers of the batch before the one header that opens it.
	 */
	hsaqm_store_release(&base[first & mask].u32[0], words[0]);
}

/*
 * Internal: the publishing sequence, written once for every path (hsaqm_ring_publish() runs
 * it with a test hook, the submit paths without). Arguments checked by the caller.
 */
static inline __attribute__((always_inline)) void
__hsaqm_ring_publish_seq(const struct hsaqm_ring *ring, uint64_t first,
			 const union hsaqm_aql_packet *pkts, uint32_t n,
			 void (*hook)(const struct hsaqm_ring *ring, uint64_t first, uint32_t n,
				      int stage))
{
	union hsaqm_aql_packet *base = ring->base;
	uint32_t mask = ring->mask;

	/* Plain stores: every slot's first word stays INVALID, so no consumer reads these yet. */
	for (uint32_t i = 0; i < n; i++)
		memcpy(&base[(first + i) & mask].bytes[4], &pkts[i].bytes[4],
		       HSAQM_AQL_PACKET_SIZE - 4);
	__hsaqm_ring_publish_headers(ring, first, &pkts[0].u32[0],
				     HSAQM_AQL_PACKET_SIZE / sizeof(uint32_t), n, hook);
}

/**
 * hsaqm_ring_slot() - the slot of an index (index & (size - 1): indices only grow, slots wrap).
 *
 * Return: the slot; NULL if @ring is NULL.
 */
static inline union hsaqm_aql_packet *hsaqm_ring_slot(const struct hsaqm_ring *ring, uint64_t index)
{
	if (!ring)
		return NULL;
	return &ring->base[index & ring->mask];
}

/**
 * hsaqm_ring_reserve_sp() - hsaqm_ring_reserve() for a ring with exactly one producer.
 *
 * Precondition: no other thread or process moves this queue's write index while this ring
 * is used through the _sp functions, and only one thread calls them (the write index is
 * loaded and stored without compare-and-swap, and the read index is re-read only when a
 * cached value says the ring is full).
 *
 * Return: as hsaqm_ring_reserve().
 */
static inline int hsaqm_ring_reserve_sp(struct hsaqm_ring *ring, uint32_t n, uint64_t timeout_ns,
					uint64_t *first)
{
	uint64_t w;

	if (!ring || !first || !__hsaqm_ring_n_valid(ring, n))
		return -EINVAL;
	/* Relaxed: by the precondition this thread is the only writer of the write index. */
	w = hsaqm_load_relaxed(ring->write_index);
	/*
	 * The cached read index is one this thread loaded with acquire, and the real one only
	 * grows: space it shows is really free, and the consumer is done with it.
	 */
	if (__builtin_expect(w - ring->sp_read_cache > ring->mask - (n - 1), 0)) {
		int err = __hsaqm_ring_reserve_sp_wait(ring, w, n, timeout_ns);

		if (err)
			return err;
	}
	/*
	 * Relaxed: the write index only says how far slots are reserved; no reader may infer a
	 * slot's contents from it (headers, stored with release, say that).
	 */
	hsaqm_store_relaxed(ring->write_index, w + n);
	*first = w;
	return 0;
}

/**
 * hsaqm_ring_submit_sp() - hsaqm_ring_submit() through the single-producer path (same
 * precondition as hsaqm_ring_reserve_sp()).
 *
 * Return: as hsaqm_ring_submit().
 */
static inline int hsaqm_ring_submit_sp(struct hsaqm_ring *ring, const union hsaqm_aql_packet *pkts,
				       uint32_t n, uint64_t timeout_ns)
{
	uint64_t first;
	int err;

	if (!ring || !pkts || !__hsaqm_ring_n_valid(ring, n) || !__hsaqm_ring_publishable(pkts, n))
		return -EINVAL;
	err = hsaqm_ring_reserve_sp(ring, n, timeout_ns, &first);
	if (err)
		return err;
	__hsaqm_ring_publish_seq(ring, first, pkts, n, NULL);
	/* The callback stores with release (its contract): the headers above precede it. */
	ring->doorbell(ring->doorbell_ctx, first + n - 1);
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_RING_H */
