// SPDX-License-Identifier: MIT
/*
 * sdma.c - the SDMA engines of the emulated /dev/kfd: the copy engines a runtime's blit path
 * drives (ROCr's BlitSdma: host <-> device copies, fills), modelled here, not in sim/ (the
 * model has no SDMA engine). The KFD queue is the model face's (id, doorbell, kfd/proc);
 * the face runs nothing behind it (sim/kfd_face_internal.h, a front that "runs all").
 *
 * What ROCr expects of an SDMA queue on a gfx9 agent (BlitSdmaV4, facts from ROCr
 * amd_blit_sdma.cpp and sdma_registers.h): a ring of dword packets that ROCr allocates; the
 * read and write pointers are 64-bit *byte* offsets that only grow (the ring position is
 * offset % size) in memory the thunk allocated and named in CREATE_QUEUE; ROCr writes the
 * write pointer, then the same value to the doorbell; the engine moves the read pointer past
 * each packet it has executed; ROCr never lets a packet wrap (it pads the ring's end with
 * zero dwords = NOPs).
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
 * ranges the runtime allocated or registered with the KFD (anything else is skipped with a
 * warning, where hardware would fault). Time: the engine is busy for bytes /
 * SDMA_BYTES_PER_NS of model time after each copy or fill, and executes nothing else
 * meanwhile.
 *
 * The engines are run by the front end's translator thread (front.c), which polls them as
 * it polls AQL rings: a doorbell is a plain store nothing can trap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-common/barrier.h"
#include "hsaqm-sim/sim.h"
#include "kfd_face_internal.h"
#include "kfdemu_internal.h"
#include "hsaqm-common/log.h"
#include "sim_internal.h"

/* Assumption: a PCIe 5 x16 link's practical rate, 50 GB/s = 50 bytes per ns. */
#define SDMA_BYTES_PER_NS 50u

enum {
	SDMA_OP_NOP = 0, SDMA_OP_COPY = 1, SDMA_OP_FENCE = 5, SDMA_OP_TRAP = 6,
	SDMA_OP_POLL_REGMEM = 8, SDMA_OP_ATOMIC = 10, SDMA_OP_CONST_FILL = 11,
	SDMA_OP_TIMESTAMP = 13,
};
#define SDMA_SUBOP_COPY_LINEAR 0u
#define SDMA_SUBOP_COPY_LINEAR_RECT 4u
#define SDMA_ATOMIC_ADD64 47u

struct kfdemu_sdma {
	uint32_t id;           /* the KFD queue id, once created */
	unsigned int dev;
	uint8_t *ring;
	uint64_t size;
	/* What ROCr reads and writes: byte offsets, monotonic (its memory). */
	uint64_t *rptr, *wptr;
	uint64_t busy_until;   /* model ns: a copy in progress */
	bool stopped;          /* an unknown packet: the engine hangs */
	uint64_t packets, bytes;
	struct kfdemu_sdma *link;
};

static struct {
	pthread_mutex_t lock; /* the list; engines run under it, so destroy waits for them */
	struct kfdemu_sdma *queues;
	unsigned int count[HSAQM_SIM_MAX_DEVICES];
} sq = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Where the engine's access to GPU address [@va, @va + @len) lands, or NULL (a fault). */
static void *gpu(uint64_t va, uint64_t len)
{
	return kfdemu_gpu_ptr(va, len);
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

static void copy_rect(struct kfdemu_sdma *q, const uint32_t *p)
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

			void *hs = gpu(s, row), *hd = gpu(d, row);

			if (!hs || !hd) {
				hsaqm_log_warn("kfdemu: sdma rect row outside GPU memory, skipped");
				continue;
			}
			memmove(hd, hs, row);
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
static int execute(struct hsaqm_sim *sim, struct kfdemu_sdma *q, const uint32_t *p)
{
	unsigned int op = dw(p, 0) & 0xff, sub = (dw(p, 0) >> 8) & 0xff;
	uint64_t a, len;
	const void *hs;
	void *h;

	switch (op) {
	case SDMA_OP_NOP:
		return 1;
	case SDMA_OP_COPY:
		if (sub == SDMA_SUBOP_COPY_LINEAR_RECT) {
			uint64_t before = q->bytes;

			copy_rect(q, p);
			q->busy_until = hsaqm_sim_now_ns(sim) +
					(q->bytes - before) / SDMA_BYTES_PER_NS;
			return 1;
		}
		len = (dw(p, 1) & 0x3fffff) + 1ull;
		hs = gpu(addr64(p, 3), len);
		h = gpu(addr64(p, 5), len);
		if (!hs || !h) {
			hsaqm_log_warn("kfdemu: sdma copy of %llu bytes outside GPU memory, skipped",
				       (unsigned long long)len);
			return 1;
		}
		memmove(h, hs, len);
		q->bytes += len;
		q->busy_until = hsaqm_sim_now_ns(sim) + len / SDMA_BYTES_PER_NS;
		return 1;
	case SDMA_OP_CONST_FILL: {
		unsigned int fillsize = (dw(p, 0) >> 30) & 3;
		uint32_t v = dw(p, 3);

		len = (dw(p, 4) & 0x3fffff) + (1ull << fillsize);
		h = fillsize == 2 ? gpu(addr64(p, 1), len) : NULL;
		if (!h) {
			hsaqm_log_warn("kfdemu: sdma fill (size code %u, %llu bytes) skipped", fillsize,
				       (unsigned long long)len);
			return 1;
		}
		for (uint64_t i = 0; i + 4 <= len; i += 4)
			memcpy((uint8_t *)h + i, &v, 4);
		q->bytes += len;
		q->busy_until = hsaqm_sim_now_ns(sim) + len / SDMA_BYTES_PER_NS;
		return 1;
	}
	case SDMA_OP_FENCE:
		a = addr64(p, 1);
		h = (a & 3) ? NULL : gpu(a, 4);
		if (!h) {
			hsaqm_log_warn("kfdemu: sdma fence to an unknown address, skipped");
			return 1;
		}
		/* Release: every earlier packet's bytes before the fence value. */
		hsaqm_store_release((uint32_t *)h, dw(p, 3));
		return 1;
	case SDMA_OP_TRAP:
		/* The fence before it wrote the event's slot; the interrupt signals the event. */
		sim_kfd_face_signal_interrupt(sim, dw(p, 1) & 0xfffffff);
		return 1;
	case SDMA_OP_POLL_REGMEM: {
		unsigned int func = (dw(p, 0) >> 28) & 7;

		if (!((dw(p, 0) >> 31) & 1))
			return 1; /* a register poll (HDP flush): no registers in the model */
		a = addr64(p, 1);
		h = (a & 3) ? NULL : gpu(a, 4);
		if (!h) {
			hsaqm_log_warn("kfdemu: sdma poll of an unknown address, skipped");
			return 1;
		}
		/* Acquire: what the writer of the polled value did before it, before what follows. */
		uint32_t v = hsaqm_load_acquire((uint32_t *)h);

		/* retry_count 0xfff is "forever" (ROCr's only use): every poll waits until true. */
		return poll_holds(func, v & dw(p, 4), dw(p, 3) & dw(p, 4)) ? 1 : 0;
	}
	case SDMA_OP_ATOMIC: {
		unsigned int opn = (dw(p, 0) >> 25) & 0x7f;

		a = addr64(p, 1);
		if (opn != SDMA_ATOMIC_ADD64)
			return -1;
		h = (a & 7) ? NULL : gpu(a, 8);
		if (!h) {
			hsaqm_log_warn("kfdemu: sdma atomic on an unknown address, skipped");
			return 1;
		}
		/* Acq_rel: the copies before it are visible to whoever sees the new value. */
		hsaqm_fetch_add((uint64_t *)h, addr64(p, 3));
		return 1;
	}
	case SDMA_OP_TIMESTAMP:
		if (sub == 0)
			return 1; /* set the local timestamp: the model's clock is not settable */
		a = addr64(p, 1);
		h = (a & 7) ? NULL : gpu(a, 8);
		if (!h) {
			hsaqm_log_warn("kfdemu: sdma timestamp to an unknown address, skipped");
			return 1;
		}
		/* Release: the timestamp is the packet's only effect; ROCr reads it after a fence. */
		hsaqm_store_release((uint64_t *)h, hsaqm_sim_now_ns(sim));
		return 1;
	}
	return -1;
}

/* Run @q as far as it can go now. Returns true if it executed anything. Under sq.lock. */
static bool engine_run(struct hsaqm_sim *sim, struct kfdemu_sdma *q, bool *waiting)
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
			hsaqm_log_err("kfdemu: sdma queue %llu: unknown packet %#x at %#llx, engine stopped",
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

bool kfdemu_sdma_run(bool *waiting)
{
	struct hsaqm_sim *sim = kfdemu_sim();
	bool moved = false;

	if (!sim)
		return false;
	pthread_mutex_lock(&sq.lock);
	for (struct kfdemu_sdma *q = sq.queues; q; q = q->link)
		moved |= engine_run(sim, q, waiting);
	pthread_mutex_unlock(&sq.lock);
	return moved;
}

int kfdemu_sdma_create(unsigned int dev, void *ring, uint64_t size, uint64_t *rptr,
		       uint64_t *wptr, struct kfdemu_sdma **out)
{
	const struct sim_profile *pr = sim_device_profile(kfdemu_sim(), dev);
	unsigned int max = pr ? pr->num_sdma_engines * pr->num_sdma_queues_per_engine : 0;
	struct kfdemu_sdma *q;

	/* ROCr's rings are 4 KiB to 1 GiB, powers of two; the KFD checked the memory. */
	if (!ring || size < 1024 || (size & (size - 1)) || size > (1ull << 30) || !rptr || !wptr)
		return -EINVAL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->dev = dev;
	q->ring = ring;
	q->size = size;
	q->rptr = rptr;
	q->wptr = wptr;
	pthread_mutex_lock(&sq.lock);
	if (sq.count[dev] >= max) {
		pthread_mutex_unlock(&sq.lock);
		free(q);
		return -ENOSPC; /* the KFD's answer when every SDMA queue slot is taken */
	}
	sq.count[dev]++;
	q->link = sq.queues;
	sq.queues = q;
	pthread_mutex_unlock(&sq.lock);
	*out = q;
	return 0;
}

static void report(const struct kfdemu_sdma *q)
{
	kfdemu_report_add("sdma-queue id %u packets %llu bytes %llu%s", q->id,
			  (unsigned long long)q->packets, (unsigned long long)q->bytes,
			  q->stopped ? " stopped" : "");
}

void kfdemu_sdma_destroy(struct kfdemu_sdma *q, uint32_t kfd_id)
{
	struct kfdemu_sdma **pp;

	pthread_mutex_lock(&sq.lock);
	for (pp = &sq.queues; *pp && *pp != q; pp = &(*pp)->link)
		;
	if (*pp) {
		*pp = q->link;
		sq.count[q->dev]--;
	}
	pthread_mutex_unlock(&sq.lock);
	q->id = kfd_id;
	report(q);
	free(q);
}

/* Set the KFD id a queue got (for the report); under the list lock for the engine's reads. */
void kfdemu_sdma_set_id(struct kfdemu_sdma *q, uint32_t id)
{
	pthread_mutex_lock(&sq.lock);
	q->id = id;
	pthread_mutex_unlock(&sq.lock);
}

void kfdemu_sdma_report(void)
{
	pthread_mutex_lock(&sq.lock);
	for (struct kfdemu_sdma *q = sq.queues; q; q = q->link)
		report(q);
	pthread_mutex_unlock(&sq.lock);
}
