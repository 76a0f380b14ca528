/* SPDX-License-Identifier: MIT */
/*
 * ring.c - the producer side of an AQL ring: reserve, wait for space, publish, doorbell.
 *
 * Index arithmetic: indices are 64-bit and only grow (at one packet per nanosecond they
 * wrap after 584 years), so "write - read" is the number of slots in use and a slot is
 * index & mask. Space for n packets means write + n - read <= size, i.e. the last index
 * reserved is less than read + size, HSA's "index - read < size".
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "hsaqm-common/barrier.h"
#include "hsaqm-hsa/ring.h"
#include "ring_internal.h"
#include "hsaqm-common/time.h"

void (*hsaqm_ring_publish_hook)(const struct hsaqm_ring *ring, uint64_t first, uint32_t n,
				int stage);

/* Spins before the first yield: a packet processor frees a slot within a few microseconds. */
#define RING_SPIN_LIMIT 256u
/* Check the clock every this many spins, so short timeouts are honoured while spinning. */
#define RING_SPIN_CLOCK_EVERY 32u
/* After this long yielding, sleep between looks: the queue is gated or stalled. */
#define RING_YIELD_NS 1000000ull
#define RING_SLEEP_NS 50000l

struct ring_wait {
	uint64_t start;
	uint64_t deadline;
	unsigned int spins;
	bool started;
};

/*
 * One step of waiting for the read index to move. Returns 0 to look again, -EAGAIN when the
 * caller may not wait at all, -ETIMEDOUT once the deadline has passed.
 */
static __attribute__((noinline)) int ring_wait_step(struct ring_wait *w, uint64_t timeout_ns)
{
	uint64_t now;

	if (timeout_ns == 0)
		return -EAGAIN;
	if (!w->started) {
		w->started = true;
		w->start = hsaqm_mono_ns();
		/* WAIT_FOREVER is UINT64_MAX, which saturates like any other huge timeout. */
		w->deadline = timeout_ns > UINT64_MAX - w->start ? UINT64_MAX
								 : w->start + timeout_ns;
	}
	if (w->spins < RING_SPIN_LIMIT) {
		w->spins++;
		hsaqm_cpu_relax();
		if (w->spins % RING_SPIN_CLOCK_EVERY || w->deadline == UINT64_MAX)
			return 0;
		return hsaqm_mono_ns() >= w->deadline ? -ETIMEDOUT : 0;
	}
	now = hsaqm_mono_ns();
	if (now >= w->deadline)
		return -ETIMEDOUT;
	if (now - w->start < RING_YIELD_NS) {
		sched_yield();
	} else {
		struct timespec ts = { .tv_sec = 0, .tv_nsec = RING_SLEEP_NS };

		nanosleep(&ts, NULL);
	}
	return 0;
}

static bool is_aligned(const void *p, uintptr_t align)
{
	return ((uintptr_t)p & (align - 1)) == 0;
}

int hsaqm_ring_init(struct hsaqm_ring *ring, void *base, uint32_t size, uint64_t *write_index,
		    uint64_t *read_index, hsaqm_ring_doorbell_fn doorbell, void *doorbell_ctx)
{
	uint64_t w, r;

	if (!ring || !base || !write_index || !read_index || !doorbell)
		return -EINVAL;
	if (size < HSAQM_RING_MIN_SIZE || size > HSAQM_RING_MAX_SIZE || (size & (size - 1)))
		return -EINVAL;
	if (!is_aligned(base, HSAQM_AQL_PACKET_SIZE) || !is_aligned(write_index, 8) ||
	    !is_aligned(read_index, 8))
		return -EINVAL;
	/*
	 * Acquire on the read index: the consumer may be running already, and the cached value
	 * below lets the single-producer path reuse slots below it, so the consumer's reads of
	 * those slots must happen before our later writes.
	 */
	r = hsaqm_load_acquire(read_index);
	/* No ordering: only the value is checked, nothing is read on the strength of it. */
	w = HSAQM_READ_ONCE(*write_index);
	if (r > w || w - r > size)
		return -EINVAL;
	ring->base = base;
	ring->size = size;
	ring->mask = size - 1;
	ring->write_index = write_index;
	ring->read_index = read_index;
	ring->doorbell = doorbell;
	ring->doorbell_ctx = doorbell_ctx;
	ring->sp_read_cache = r;
	return 0;
}

/* Inlined into both callers so that the reserved index stays in a register. */
static inline __attribute__((always_inline)) int
ring_reserve(struct hsaqm_ring *ring, uint32_t n, uint64_t timeout_ns, uint64_t *first)
{
	struct ring_wait wait = { 0 };
	int err;

	for (;;) {
		/*
		 * Acquire: pairs with the consumer's release of the read index, so its reads of
		 * the slots below r (and its INVALID marks) happen before we write them again.
		 * Loaded before the write index: then write >= read holds for what we see.
		 */
		uint64_t r = hsaqm_load_acquire(ring->read_index);
		/* No ordering: the compare-and-swap below checks the value. */
		uint64_t w = HSAQM_READ_ONCE(*ring->write_index);

		if (r > w)
			return -EIO;
		if (w - r <= ring->size - n) {
			/*
			 * acq_rel compare-and-swap: claims [w, w + n) against every other producer;
			 * nothing is written before it succeeds. On failure another producer moved
			 * the index: look at both indices again.
			 */
			if (hsaqm_cas(ring->write_index, &w, w + n)) {
				*first = w;
				return 0;
			}
			continue;
		}
		err = ring_wait_step(&wait, timeout_ns);
		if (err)
			return err;
	}
}

int hsaqm_ring_reserve(struct hsaqm_ring *ring, uint32_t n, uint64_t timeout_ns, uint64_t *first)
{
	if (!ring || !first || !__hsaqm_ring_n_valid(ring, n))
		return -EINVAL;
	return ring_reserve(ring, n, timeout_ns, first);
}

/* The single-producer path when its cached read index says the ring is full. */
int __hsaqm_ring_reserve_sp_wait(struct hsaqm_ring *ring, uint64_t w, uint32_t n,
				 uint64_t timeout_ns)
{
	struct ring_wait wait = { 0 };
	int err;

	for (;;) {
		/* Acquire: as in hsaqm_ring_reserve(), the consumer is done with slots below r. */
		uint64_t r = hsaqm_load_acquire(ring->read_index);

		if (r > w)
			return -EIO;
		ring->sp_read_cache = r;
		if (w - r <= ring->size - n)
			return 0;
		err = ring_wait_step(&wait, timeout_ns);
		if (err)
			return err;
	}
}

int hsaqm_ring_publish(const struct hsaqm_ring *ring, uint64_t first,
		       const union hsaqm_aql_packet *pkts, uint32_t n)
{
	/* Plain load: tests set the hook only while no producer runs. */
	void (*hook)(const struct hsaqm_ring *, uint64_t, uint32_t, int) = hsaqm_ring_publish_hook;

	if (!ring || !pkts || !__hsaqm_ring_n_valid(ring, n) || !__hsaqm_ring_publishable(pkts, n))
		return -EINVAL;
	if (hook)
		__hsaqm_ring_publish_seq(ring, first, pkts, n, hook);
	else
		__hsaqm_ring_publish_seq(ring, first, pkts, n, NULL);
	return 0;
}

int hsaqm_ring_doorbell(const struct hsaqm_ring *ring, uint64_t last_index)
{
	if (!ring)
		return -EINVAL;
	/* The callback stores with release (its contract): the headers above precede it. */
	ring->doorbell(ring->doorbell_ctx, last_index);
	return 0;
}

int hsaqm_ring_submit(struct hsaqm_ring *ring, const union hsaqm_aql_packet *pkts, uint32_t n,
		      uint64_t timeout_ns)
{
	uint64_t first;
	int err;

	if (!ring || !pkts || !__hsaqm_ring_n_valid(ring, n) || !__hsaqm_ring_publishable(pkts, n))
		return -EINVAL;
	err = ring_reserve(ring, n, timeout_ns, &first);
	if (err)
		return err;
	__hsaqm_ring_publish_seq(ring, first, pkts, n, NULL);
	/* The callback stores with release (its contract): the headers above precede it. */
	ring->doorbell(ring->doorbell_ctx, first + n - 1);
	return 0;
}
