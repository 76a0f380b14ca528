/* SPDX-License-Identifier: MIT */
/*
 * SDMA queues of the libhsakmt face: the copy engines ROCr's BlitSdma drives (host <-> device
 * copies, fills) are modelled here, in the face, not in sim/ (the model has no SDMA engine).
 *
 * What ROCr 5.2.3 expects of an SDMA queue on a gfx9 agent (BlitSdmaV4, facts from
 * ROCr amd_blit_sdma.cpp and sdma_registers.h): a 1 MiB ring of dword packets that ROCr
 * allocates; the read and write pointers are 64-bit *byte* offsets that only grow (the ring
 * position is offset % size) and live in memory the thunk provides (Queue_read_ptr,
 * Queue_write_ptr, as libhsakmt does for non-AQL queues); ROCr writes the write pointer, then
 * the same value to the doorbell; the engine moves the read pointer past each packet it has
 * executed; ROCr never lets a packet wrap (it pads the ring's end with zero dwords = NOPs).
 *
 * Packets executed (dword counts in brackets): NOP [1 + count], COPY LINEAR [7] (count =
 * bytes - 1), COPY LINEAR RECT [13], CONSTANT FILL [5] (dword fill, count = bytes - 4),
 * FENCE [4] (32-bit store), POLL REGMEM [6] (memory poll: the queue waits until the masked
 * dword compares true; a register poll — ROCr's HDP flush — is a no-op: no registers here),
 * ATOMIC [8] (ADD64, what ROCr decrements a completion signal with), TIMESTAMP [3] (the
 * global timestamp: model ns, the same counter hsaKmtGetClockCounters reports as the GPU's),
 * TRAP [2] (the interrupt that makes the KFD fire the event named by the context id).
 * Anything else stops the queue (an engine hang on hardware), logged as an error.
 *
 * Bytes really move: a copy or fill is a memmove/store on the translator thread, between
 * ranges the face allocated or registered (anything else is skipped with a warning, where
 * hardware would fault). Time: the engine is busy for bytes / THUNK_SDMA_BYTES_PER_NS of
 * model time after each copy or fill, and executes nothing else meanwhile.
 *
 * The engines are run by the face's translator thread (thunk_queue.c), which polls them as it
 * polls AQL rings: a doorbell is a plain store nothing can trap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm/barrier.h"
#include "log_internal.h"
#include "sim_internal.h"
#include "thunk_internal.h"

/* Assumption: a PCIe 5 x16 link's practical rate, 50 GB/s = 50 bytes per ns. */
#define THUNK_SDMA_BYTES_PER_NS 50u

enum {
	SDMA_OP_NOP = 0, SDMA_OP_COPY = 1, SDMA_OP_FENCE = 5, SDMA_OP_TRAP = 6,
	SDMA_OP_POLL_REGMEM = 8, SDMA_OP_ATOMIC = 10, SDMA_OP_CONST_FILL = 11,
	SDMA_OP_TIMESTAMP = 13,
};
#define SDMA_SUBOP_COPY_LINEAR 0u
#define SDMA_SUBOP_COPY_LINEAR_RECT 4u
#define SDMA_ATOMIC_ADD64 47u

struct squeue {
	HSA_QUEUEID id;
	unsigned int dev;
	uint8_t *ring;
	uint64_t size;
	/* What ROCr reads and writes: byte offsets, monotonic. Own cache lines. */
	uint64_t *rptr, *wptr;
	uint64_t busy_until;   /* model ns: a copy in progress */
	bool stopped;          /* an unknown packet: the engine hangs */
	uint64_t packets, bytes;
	struct squeue *link;
};

static struct {
	pthread_mutex_t lock; /* the list; engines run under it, so destroy waits for them */
	struct squeue *queues;
	unsigned int count[HSAQM_SIM_MAX_DEVICES];
} sq = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool addr_ok(uint64_t addr, uint64_t len)
{
	const void *p = (const void *)(uintptr_t)addr;

	return thunk_mem_known(p, len) || thunk_event_page(p, len);
}

static uint32_t dw(const uint32_t *p, unsigned int i)
{
	return p[i];
}

static uint64_t addr64(const uint32_t *p, unsigned int lo)
{
	return (uint64_t)p[lo] | (uint64_t)p[lo + 1] << 32;
}

static bool poll_holds(unsigned int func, uint32_t v, uint32_t ref)
{
	switch (func) {
	case 0: return true;
	case 1: return v < ref;
	case 2: return v <= ref;
	case 3: return v == ref;
	case 4: return v != ref;
	case 5: return v >= ref;
	case 6: return v > ref;
	}
	return false;
}

static void copy_rect(struct squeue *q, const uint32_t *p)
{
	unsigned int el = (dw(p, 0) >> 29) & 7;
	uint64_t src = addr64(p, 1), dst = addr64(p, 6);
	uint64_t sx = dw(p, 3) & 0x3fff, sy = (dw(p, 3) >> 16) & 0x3fff, sz = dw(p, 4) & 0x7ff;
	uint64_t dx = dw(p, 8) & 0x3fff, dy = (dw(p, 8) >> 16) & 0x3fff, dz = dw(p, 9) & 0x7ff;
	uint64_t spitch = ((dw(p, 4) >> 13) & 0x7ffff) + 1ull;
	uint64_t dpitch = ((dw(p, 9) >> 13) & 0x7ffff) + 1ull;
	uint64_t sslice = (dw(p, 5) & 0xfffffff) + 1ull, dslice = (dw(p, 10) & 0xfffffff) + 1ull;
	uint64_t nx = (dw(p, 11) & 0x3fff) + 1ull, ny = ((dw(p, 11) >> 16) & 0x3fff) + 1ull;
	uint64_t nz = (dw(p, 12) & 0x7ff) + 1ull, row = nx << el;

	for (uint64_t z = 0; z < nz; z++)
		for (uint64_t y = 0; y < ny; y++) {
			uint64_t s = src + ((sx + (sy + y) * spitch + (sz + z) * sslice) << el);
			uint64_t d = dst + ((dx + (dy + y) * dpitch + (dz + z) * dslice) << el);

			if (!addr_ok(s, row) || !addr_ok(d, row)) {
				hsaqm_log_warn("thunk: sdma rect row outside known memory, skipped");
				continue;
			}
			memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, row);
			q->bytes += row;
		}
}

/* Dwords of the packet whose header is at @p, or 0 for a packet the engine does not know. */
static uint32_t packet_dwords(const uint32_t *p)
{
	unsigned int op = dw(p, 0) & 0xff, sub = (dw(p, 0) >> 8) & 0xff;

	switch (op) {
	case SDMA_OP_NOP: return 1 + ((dw(p, 0) >> 16) & 0x3fff);
	case SDMA_OP_COPY:
		return sub == SDMA_SUBOP_COPY_LINEAR ? 7 : sub == SDMA_SUBOP_COPY_LINEAR_RECT ? 13 : 0;
	case SDMA_OP_FENCE: return 4;
	case SDMA_OP_TRAP: return 2;
	case SDMA_OP_POLL_REGMEM: return 6;
	case SDMA_OP_ATOMIC: return 8;
	case SDMA_OP_CONST_FILL: return 5;
	case SDMA_OP_TIMESTAMP: return 3;
	}
	return 0;
}

/*
 * Execute one packet. Returns 1 when done, 0 when it must wait (a poll not yet true), -1 for
 * a packet the engine does not know.
 */
static int execute(struct hsaqm_sim *sim, struct squeue *q, const uint32_t *p)
{
	unsigned int op = dw(p, 0) & 0xff, sub = (dw(p, 0) >> 8) & 0xff;
	uint64_t a, len;

	switch (op) {
	case SDMA_OP_NOP:
		return 1;
	case SDMA_OP_COPY:
		if (sub == SDMA_SUBOP_COPY_LINEAR_RECT) {
			uint64_t before = q->bytes;

			copy_rect(q, p);
			q->busy_until = hsaqm_sim_now_ns(sim) +
					(q->bytes - before) / THUNK_SDMA_BYTES_PER_NS;
			return 1;
		}
		len = (dw(p, 1) & 0x3fffff) + 1ull;
		a = addr64(p, 3);
		if (!addr_ok(a, len) || !addr_ok(addr64(p, 5), len)) {
			hsaqm_log_warn("thunk: sdma copy of %llu bytes outside known memory, skipped",
				       (unsigned long long)len);
			return 1;
		}
		memmove((void *)(uintptr_t)addr64(p, 5), (const void *)(uintptr_t)a, len);
		q->bytes += len;
		q->busy_until = hsaqm_sim_now_ns(sim) + len / THUNK_SDMA_BYTES_PER_NS;
		return 1;
	case SDMA_OP_CONST_FILL: {
		unsigned int fillsize = (dw(p, 0) >> 30) & 3;
		uint32_t v = dw(p, 3);

		len = (dw(p, 4) & 0x3fffff) + (1ull << fillsize);
		a = addr64(p, 1);
		if (fillsize != 2 || !addr_ok(a, len)) {
			hsaqm_log_warn("thunk: sdma fill (size code %u, %llu bytes) skipped", fillsize,
				       (unsigned long long)len);
			return 1;
		}
		for (uint64_t i = 0; i + 4 <= len; i += 4)
			memcpy((uint8_t *)(uintptr_t)a + i, &v, 4);
		q->bytes += len;
		q->busy_until = hsaqm_sim_now_ns(sim) + len / THUNK_SDMA_BYTES_PER_NS;
		return 1;
	}
	case SDMA_OP_FENCE:
		a = addr64(p, 1);
		if (!addr_ok(a, 4) || (a & 3)) {
			hsaqm_log_warn("thunk: sdma fence to an unknown address, skipped");
			return 1;
		}
		/* Release: every earlier packet's bytes before the fence value. */
		hsaqm_store_release((uint32_t *)(uintptr_t)a, dw(p, 3));
		return 1;
	case SDMA_OP_TRAP:
		thunk_event_interrupt(dw(p, 1) & 0xfffffff);
		return 1;
	case SDMA_OP_POLL_REGMEM: {
		unsigned int func = (dw(p, 0) >> 28) & 7;

		if (!((dw(p, 0) >> 31) & 1))
			return 1; /* a register poll (HDP flush): no registers in the model */
		a = addr64(p, 1);
		if (!addr_ok(a, 4) || (a & 3)) {
			hsaqm_log_warn("thunk: sdma poll of an unknown address, skipped");
			return 1;
		}
		/* Acquire: what the writer of the polled value did before it, before what follows. */
		uint32_t v = hsaqm_load_acquire((uint32_t *)(uintptr_t)a);

		/* retry_count 0xfff is "forever" (ROCr's only use): every poll waits until true. */
		return poll_holds(func, v & dw(p, 4), dw(p, 3) & dw(p, 4)) ? 1 : 0;
	}
	case SDMA_OP_ATOMIC: {
		unsigned int opn = (dw(p, 0) >> 25) & 0x7f;

		a = addr64(p, 1);
		if (opn != SDMA_ATOMIC_ADD64)
			return -1;
		if (!addr_ok(a, 8) || (a & 7)) {
			hsaqm_log_warn("thunk: sdma atomic on an unknown address, skipped");
			return 1;
		}
		/* Acq_rel: the copies before it are visible to whoever sees the new value. */
		hsaqm_fetch_add((uint64_t *)(uintptr_t)a, addr64(p, 3));
		return 1;
	}
	case SDMA_OP_TIMESTAMP:
		if (sub == 0)
			return 1; /* set the local timestamp: the model's clock is not settable */
		a = addr64(p, 1);
		if (!addr_ok(a, 8) || (a & 7)) {
			hsaqm_log_warn("thunk: sdma timestamp to an unknown address, skipped");
			return 1;
		}
		hsaqm_store_release((uint64_t *)(uintptr_t)a, hsaqm_sim_now_ns(sim));
		return 1;
	}
	return -1;
}

/* Run @q as far as it can go now. Returns true if it executed anything. Under sq.lock. */
static bool engine_run(struct hsaqm_sim *sim, struct squeue *q, bool *waiting)
{
	bool moved = false;

	while (!q->stopped) {
		/* Acquire: ROCr writes the packets, then (release fence) the write pointer. */
		uint64_t w = hsaqm_load_acquire(q->wptr), r = *q->rptr;

		if (r >= w)
			break;
		if (q->busy_until > hsaqm_sim_now_ns(sim)) {
			*waiting = true;
			break;
		}
		uint64_t off = r % q->size;
		const uint32_t *p = (const uint32_t *)(q->ring + off);
		uint32_t n = packet_dwords(p);
		int done;

		if (n && (off + n * 4ull > q->size || r + n * 4ull > w))
			n = 0; /* wraps the ring or is not all published: ROCr never does either */
		done = n ? execute(sim, q, p) : -1;
		if (done < 0) {
			hsaqm_log_err("thunk: sdma queue %llu: unknown packet %#x at %#llx, engine stopped",
				      (unsigned long long)q->id, dw(p, 0), (unsigned long long)r);
			q->stopped = true;
			break;
		}
		if (done == 0) {
			*waiting = true;
			break;
		}
		q->packets++;
		moved = true;
		/* Release: the packet's effects before ROCr sees its space free. */
		hsaqm_store_release(q->rptr, r + n * 4ull);
	}
	return moved;
}

bool thunk_sdma_run(bool *waiting)
{
	struct hsaqm_sim *sim = thunk_sim();
	bool moved = false;

	if (!sim)
		return false;
	pthread_mutex_lock(&sq.lock);
	for (struct squeue *q = sq.queues; q; q = q->link)
		moved |= engine_run(sim, q, waiting);
	pthread_mutex_unlock(&sq.lock);
	return moved;
}

HSAKMT_STATUS thunk_sdma_create(unsigned int dev, HSA_QUEUE_TYPE type, HSA_QUEUE_PRIORITY prio,
				void *ring, HSAuint64 size, HsaQueueResource *res)
{
	const struct sim_profile *pr = sim_device_profile(thunk_sim(), dev);
	unsigned int max = pr->num_sdma_engines * pr->num_sdma_queues_per_engine;
	HSA_QUEUEID id;
	uint64_t *db;

	if (!res || !ring || size < 4096 || (size & (size - 1)) || size > (1ull << 30) ||
	    !thunk_mem_known(ring, size))
		return HSAKMT_STATUS_INVALID_PARAMETER;
	struct squeue *q = calloc(1, sizeof(*q));
	uint64_t *ptrs = aligned_alloc(64, 128);

	if (!q || !ptrs) {
		free(q);
		free(ptrs);
		return HSAKMT_STATUS_NO_MEMORY;
	}
	memset(ptrs, 0, 128);
	q->dev = dev;
	q->ring = ring;
	q->size = size;
	q->rptr = ptrs;
	q->wptr = ptrs + 8; /* its own cache line */
	pthread_mutex_lock(&sq.lock);
	if (sq.count[dev] >= max || thunk_doorbell_alloc(&id, &db)) {
		pthread_mutex_unlock(&sq.lock);
		free(q);
		free(ptrs);
		return HSAKMT_STATUS_OUT_OF_RESOURCES;
	}
	q->id = id;
	sq.count[dev]++;
	q->link = sq.queues;
	sq.queues = q;
	pthread_mutex_unlock(&sq.lock);

	res->QueueId = id;
	res->Queue_DoorBell_aql = db;
	res->Queue_read_ptr_aql = q->rptr;
	res->Queue_write_ptr_aql = q->wptr;
	thunk_report_add("queue-create id %llu node %u type %s priority %d ring_bytes %llu",
			 (unsigned long long)id, dev + 1,
			 type == HSA_QUEUE_SDMA_XGMI ? "sdma-xgmi" : "sdma", (int)prio,
			 (unsigned long long)size);
	thunk_translator_kick();
	return HSAKMT_STATUS_SUCCESS;
}

static void report_and_free(struct squeue *q)
{
	thunk_report_add("sdma-queue id %llu packets %llu bytes %llu%s", (unsigned long long)q->id,
			 (unsigned long long)q->packets, (unsigned long long)q->bytes,
			 q->stopped ? " stopped" : "");
	thunk_doorbell_free(q->id);
	free(q->rptr);
	free(q);
}

int thunk_sdma_destroy(HSA_QUEUEID id)
{
	struct squeue *q, **pp;

	pthread_mutex_lock(&sq.lock);
	for (pp = &sq.queues; *pp && (*pp)->id != id; pp = &(*pp)->link)
		;
	q = *pp;
	if (q) {
		*pp = q->link;
		sq.count[q->dev]--;
	}
	pthread_mutex_unlock(&sq.lock);
	if (!q)
		return -ENOENT;
	thunk_report_add("queue-destroy id %llu", (unsigned long long)id);
	report_and_free(q);
	return 0;
}

void thunk_sdma_report(void)
{
	pthread_mutex_lock(&sq.lock);
	for (struct squeue *q = sq.queues; q; q = q->link)
		thunk_report_add("sdma-queue id %llu packets %llu bytes %llu%s",
				 (unsigned long long)q->id, (unsigned long long)q->packets,
				 (unsigned long long)q->bytes, q->stopped ? " stopped" : "");
	pthread_mutex_unlock(&sq.lock);
}

void thunk_sdma_fini(void)
{
	pthread_mutex_lock(&sq.lock);
	struct squeue *qs = sq.queues;

	sq.queues = NULL;
	memset(sq.count, 0, sizeof(sq.count));
	pthread_mutex_unlock(&sq.lock);
	while (qs) {
		struct squeue *q = qs;

		qs = q->link;
		report_and_free(q);
	}
}
