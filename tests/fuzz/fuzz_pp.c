/* SPDX-License-Identifier: MIT */
/*
 * A fuzz target for the device model's packet processor (sim/pp.c) and what drives it: the
 * doorbells, the HWS control calls and the workgroup dispatcher, in VIRTUAL time.
 *
 * Each input is a program (fuzz_pp.h): up to three fuzz queues fed raw or templated 64-byte
 * packets (reserved types, bad dimensions, zero grids, unknown kernel objects, dead and
 * garbage signal handles, barrier-value packets with bad conditions...), interleaved with
 * doorbells (right, wrong and overrunning indices), time advances, signal operations, host
 * waits, async handlers, suspend/resume, priority and ring updates, CU masks, destroys and
 * creates. A control queue that the program never touches runs a known kernel alongside.
 *
 * After every operation and at the end, the harness asserts what docs/sim.md promises and
 * aborts (so the fuzzer reports it) when something does not hold:
 *   - the control queue never fails and both of its dispatches complete, every workgroup once;
 *   - a queue that only ever saw valid packets and in-bounds doorbells never fails;
 *   - a queue fails at most once, with a status the packet at its read index explains (the
 *     docs/sim.md table) or after an overrunning doorbell, and consumes nothing afterwards;
 *     a packet with a problem from that table never runs a workgroup nor completes;
 *   - the read index never decreases, never passes the write index nor the highest doorbell,
 *     and every slot it passed reads INVALID;
 *   - a suspended or inactive queue consumes, launches, completes and runs nothing;
 *   - a workgroup callback names the kernel and ring slot of the packet it belongs to, its
 *     index is below the packet's workgroup count, it runs at most once, never on a destroyed
 *     queue, and always before the packet's completion signal;
 *   - a completion signal is decremented at most once and only after every workgroup ran;
 *     packets of a queue launch in order, the barrier bit and barrier packets hold later ones;
 *     a barrier-AND/OR/value completes only when its dependencies satisfy it;
 *   - liveness: once the model is idle at an instant, a mapped queue that was told about a
 *     packet is blocked only for a reason the rules give, and no satisfied barrier still waits;
 *   - a host wait returns a value that satisfies it, or exactly at its deadline;
 *   - kernel counters match the callbacks; the model strands no control request.
 * Then the model is destroyed: with ASan/LSan, a leak is a finding too.
 *
 * Model time per input is bounded (FZ_BUDGET_NS for the program, then a short final phase)
 * and kernels are short, so an input costs well under 10 ms.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_internal.h"
#include "fuzz_pp.h"
#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-sim/sim.h"
#include "sim_internal.h"

#define FZ_US 1000ull
#define FZ_MAX_QUEUES 12 /* queue creations per input, the initial ones included */
#define FZ_SLOTS 3       /* fuzz queues alive at once */
#define FZ_NPOOL 4       /* shared signals the program operates on */
/*
 * The first FZ_NGATES shared signals change only through the program's signal operations
 * (never as a completion signal, never from a handler), and those run no model time: so when a
 * barrier is seen complete after an operation, their values now are the values it completed on.
 */
#define FZ_NGATES 2
#define FZ_MAX_RECS 512 /* packets written per input that the harness follows */
#define FZ_MAX_OWN 64   /* packets with a completion signal of their own */
#define FZ_MAX_OPS 192
#define FZ_MAX_HOLES 16
#define FZ_BUDGET_NS (1500 * FZ_US) /* model time the program may use */
#define FZ_FINAL_STEP_NS (20 * FZ_US)
#define FZ_FINAL_MAX_NS (5000 * FZ_US) /* the control queue must finish within this */
#define FZ_CONTROL_WGS 4u
#define FZ_COUNTERS 16u

/* kernarg of every dispatch the harness writes: a tag naming its record (never dereferenced). */
#define FZ_TAG 0x7a5a000000000000ull
#define FZ_TAG_MASK 0xffffffffffff0000ull

/* HSA statuses (hsa.h), as bits of a problem mask. */
#define ST_INVALID_ARGUMENT 0x1001
#define ST_INVALID_ALLOCATION 0x1003
#define ST_INVALID_SIGNAL 0x1006
#define ST_INVALID_PACKET_FORMAT 0x1009
#define ST_INCOMPATIBLE_ARGUMENTS 0x100D
#define ST_INVALID_CODE_OBJECT 0x1010
#define P_ARG (1u << 0)
#define P_ALLOC (1u << 1)
#define P_SIGNAL (1u << 2)
#define P_FORMAT (1u << 3)
#define P_DIM (1u << 4)
#define P_CODE (1u << 5)

#define FZ_FAIL(...)                                                                           \
	do {                                                                                   \
		fprintf(stderr, "fuzz-pp: invariant violated at %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);                                                  \
		fputc('\n', stderr);                                                           \
		abort();                                                                       \
	} while (0)
#define FZ_CHECK(cond, ...)                   \
	do {                                  \
		if (!(cond))                  \
			FZ_FAIL(__VA_ARGS__); \
	} while (0)

struct fz;

struct fz_q {
	struct fz *fz;
	struct sim_hwq *hwq;
	uint32_t serial;
	union hsaqm_aql_packet *ring;
	uint32_t slots;
	uint64_t *wr;
	uint64_t *rd;
	bool control;
	bool live;      /* created and not destroyed */
	bool suspended; /* sim_hwq_suspend returned 0, no resume since */
	bool inactive;  /* updated to inactive (or a NULL ring) */
	bool anomalous; /* a write broke the one-packet-per-index correspondence */
	bool clean;     /* only valid packets and in-bounds doorbells so far */
	bool overrun_rung;
	bool ring_changed; /* during the current operation */
	bool unrung; /* written or reserved since the last doorbell: the model need not look */
	uint32_t switch_slots; /* an update to a ring of this size is under way (0: none) */
	int errors;
	int status;
	uint64_t rd_at_error;
	uint64_t launched_at_error;
	uint64_t max_db1; /* 1 + highest doorbell value rung (UINT64_MAX excluded) */
	uint64_t last_rd;
	uint64_t last_completed;
	uint64_t frozen_rd, frozen_launched, frozen_completed;
	uint64_t holes[FZ_MAX_HOLES];
	uint32_t nholes;
};

struct fz_rec {
	struct fz_q *q;
	uint64_t index; /* ring index written */
	uint32_t slots; /* ring size then */
	uint8_t type;
	bool barrier;
	uint64_t kobj;
	uint64_t total_wgs;         /* the model's rule; only meaningful for dispatches */
	uint32_t problems;          /* P_*: a packet with any must never run nor complete */
	union hsaqm_aql_packet pkt; /* as written */
	bool deps_checked;
	bool superseded; /* an INVALID packet a later write replaced before it was consumed */
	struct sim_signal *own;
	uint64_t cb_count;
	uint8_t *seen; /* bit per workgroup whose callback ran */
	uint64_t seen_bytes;
};

struct fz_kcb {
	struct fz *fz;
	int k;
};

struct fz_handler {
	struct fz *fz;
	unsigned int action; /* what it does when it fires (handler_fn) */
	unsigned int target;
};

struct fz {
	struct hsaqm_sim *sim;
	const uint8_t *in;
	size_t left;
	uint32_t lds_bytes;
	uint32_t ncu;
	uint64_t kobj[FZ_K_NOCB + 2]; /* the five fuzz kernels, then the control kernel */
	struct fz_kcb kcb[FZ_K_NOCB + 2];
	uint32_t *counters;           /* FZ_K_NORMAL's counters, model memory */
	uint32_t shadow[FZ_COUNTERS]; /* what its callbacks saw */
	struct sim_signal *pool[FZ_NPOOL];
	/*
	 * Every signal is created at setup, before the program runs: a handle the fuzzer learned
	 * in an earlier input can then never become a signal the harness hands out later.
	 */
	struct sim_signal *own[FZ_MAX_OWN]; /* handed out in order */
	uint32_t nown;
	struct sim_signal *ctl_sig[2]; /* the control queue's two completion signals */
	uint32_t nctl;
	uint64_t dead; /* zeroed model memory: neither a signal nor a kernel */
	struct fz_q qs[FZ_MAX_QUEUES + 1];
	uint32_t nqs;
	struct fz_q *slot[FZ_SLOTS];
	struct fz_q *control;
	struct fz_rec recs[FZ_MAX_RECS];
	uint32_t nrecs;
	bool tags_exhausted;
	struct fz_handler handlers[8];
	uint32_t nhandlers;
	uint64_t t0;
	struct fz_stats stats;
};

static struct fz g_fz;
/* Timing file of the "tight" configuration (sched_policy 3 in the configuration byte). */
static char g_timing_path[64];
static struct fz_stats g_last;
static bool g_verbose; /* FZ_VERBOSE=1: one line per operation (debugging a finding) */

/* ------------------------------------------------------------------------------------
 * Input.
 */
static uint8_t in_u8(struct fz *fz)
{
	if (!fz->left)
		return 0;
	fz->left--;
	return *fz->in++;
}

static uint64_t in_u64(struct fz *fz)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)in_u8(fz) << (8 * i);
	return v;
}

static void in_packet(struct fz *fz, union hsaqm_aql_packet *p)
{
	for (int i = 0; i < 64; i++)
		p->bytes[i] = in_u8(fz);
}

/* ------------------------------------------------------------------------------------
 * What the harness knows about handles.
 */
static uint64_t sig_handle(const struct sim_signal *s)
{
	return (uint64_t)(uintptr_t)s;
}

static bool is_owned_signal(const struct fz *fz, uint64_t h);

static bool is_live_signal(const struct fz *fz, uint64_t h)
{
	if (!h)
		return false;
	for (int i = 0; i < FZ_NPOOL; i++)
		if (h == sig_handle(fz->pool[i]))
			return true;
	return is_owned_signal(fz, h);
}

/* A signal only one packet may complete: a packet's own, or a control dispatch's. */
static bool is_owned_signal(const struct fz *fz, uint64_t h)
{
	for (uint32_t i = 0; i < FZ_MAX_OWN; i++)
		if (h == sig_handle(fz->own[i]))
			return true;
	return h == sig_handle(fz->ctl_sig[0]) || h == sig_handle(fz->ctl_sig[1]);
}

static struct sim_signal *gate_of(const struct fz *fz, uint64_t h)
{
	for (int i = 0; i < FZ_NGATES; i++)
		if (h && h == sig_handle(fz->pool[i]))
			return fz->pool[i];
	return NULL;
}

static bool is_gate(const struct fz *fz, uint64_t h)
{
	return gate_of(fz, h) != NULL;
}

static bool is_kernel(const struct fz *fz, uint64_t h)
{
	for (int i = 0; i < FZ_K_NOCB + 2; i++)
		if (h && h == fz->kobj[i])
			return true;
	return false;
}

static struct sim_signal *own_new(struct fz *fz)
{
	return fz->nown < FZ_MAX_OWN ? fz->own[fz->nown++] : NULL;
}

/* A signal selector (FZ_SIG_*) as a handle; OWN makes a fresh signal. */
static uint64_t sig_sel(struct fz *fz, unsigned int sel)
{
	switch (sel & 7) {
	case FZ_SIG_NONE:
		return 0;
	case FZ_SIG_OWN: {
		struct sim_signal *s = own_new(fz);

		return s ? sig_handle(s) : 0;
	}
	case FZ_SIG_DEAD:
		return fz->dead;
	case FZ_SIG_JUNK:
		return 0xdeadbeef0003ull;
	default:
		return sig_handle(fz->pool[(sel & 7) - FZ_SIG_POOL0]);
	}
}

/* Dependency selector: like sig_sel, but never a fresh signal (nobody would ever set it). */
static uint64_t dep_sel(struct fz *fz, unsigned int sel)
{
	return (sel & 7) == FZ_SIG_OWN ? sig_handle(fz->pool[0]) : sig_sel(fz, sel);
}

static uint64_t kernel_sel(const struct fz *fz, unsigned int sel)
{
	switch (sel & 7) {
	case FZ_K_DEAD:
		return fz->dead;
	case FZ_K_MISALIGNED:
		return fz->kobj[FZ_K_SHORT] + 4;
	case FZ_K_ZERO:
		return 0;
	default:
		return fz->kobj[sel & 7];
	}
}

/* ------------------------------------------------------------------------------------
 * The oracle: the problems docs/sim.md's error table gives a packet, as a mask of P_*, and
 * whether the packet is valid beyond doubt (no problem, every reserved field 0).
 */
static uint64_t dispatch_wgs(const struct hsaqm_aql_dispatch *d)
{
	uint32_t wg[3] = { d->workgroup_size_x, d->workgroup_size_y, d->workgroup_size_z };
	uint32_t grid[3] = { d->grid_size_x, d->grid_size_y, d->grid_size_z };
	unsigned int dims = d->setup & 3u;
	uint64_t total = 1;

	if (!dims)
		return 0;
	for (unsigned int i = 0; i < dims; i++) {
		if (!wg[i] || !grid[i])
			return 0;
		total *= (grid[i] + (uint64_t)wg[i] - 1) / wg[i];
	}
	return total;
}

static uint32_t problems(const struct fz *fz, const union hsaqm_aql_packet *p, bool *valid)
{
	uint32_t word = p->u32[0], type = word & 0xffu, pr = 0;
	uint16_t header = (uint16_t)word;
	bool reserved_zero = true;

	*valid = false;
	if (type == HSAQM_AQL_TYPE_INVALID) {
		*valid = true; /* the queue stalls on it, which is no error */
		return 0;
	}
	if (type > HSAQM_AQL_TYPE_MAX)
		return P_FORMAT;
	if ((header & HSAQM_AQL_HEADER_RESERVED_MASK) || ((header >> 9) & 3u) == 3u ||
	    ((header >> 11) & 3u) == 3u)
		pr |= P_FORMAT;
	switch (type) {
	case HSAQM_AQL_TYPE_KERNEL_DISPATCH: {
		const struct hsaqm_aql_dispatch *d = &p->dispatch;
		uint32_t wg[3] = { d->workgroup_size_x, d->workgroup_size_y, d->workgroup_size_z };
		uint32_t grid[3] = { d->grid_size_x, d->grid_size_y, d->grid_size_z };
		unsigned int dims = d->setup & 3u;
		uint64_t items = 1, total = 1;

		if (d->setup & HSAQM_AQL_SETUP_RESERVED_MASK)
			pr |= P_FORMAT;
		if (!dims)
			pr |= P_DIM;
		for (unsigned int i = 0; i < dims; i++) {
			if (!wg[i] || !grid[i]) {
				pr |= P_DIM;
				continue;
			}
			if (wg[i] > grid[i])
				pr |= P_ARG;
			items *= wg[i];
			total *= (grid[i] + (uint64_t)wg[i] - 1) / wg[i];
		}
		if (items > 1024 || total > UINT32_MAX)
			pr |= P_ARG;
		if (fz->lds_bytes && d->group_segment_size > fz->lds_bytes)
			pr |= P_ALLOC;
		if (!is_kernel(fz, d->kernel_object))
			pr |= P_CODE;
		if (d->completion_signal && !is_live_signal(fz, d->completion_signal))
			pr |= P_SIGNAL;
		for (unsigned int i = dims ? dims : 3; i < 3; i++)
			reserved_zero &= wg[i] == 1 && grid[i] == 1;
		reserved_zero &=
			d->reserved0 == 0 && d->reserved2 == 0 && d->private_segment_size == 0;
		break;
	}
	case HSAQM_AQL_TYPE_BARRIER_AND:
	case HSAQM_AQL_TYPE_BARRIER_OR:
		for (unsigned int i = 0; i < HSAQM_AQL_MAX_DEPS; i++)
			if (p->barrier.dep_signal[i] &&
			    !is_live_signal(fz, p->barrier.dep_signal[i]))
				pr |= P_SIGNAL;
		if (p->barrier.completion_signal &&
		    !is_live_signal(fz, p->barrier.completion_signal))
			pr |= P_SIGNAL;
		reserved_zero = p->barrier.reserved0 == 0 && p->barrier.reserved1 == 0 &&
		                p->barrier.reserved2 == 0;
		break;
	case HSAQM_AQL_TYPE_VENDOR: {
		const struct hsaqm_aql_barrier_value *v = &p->barrier_value;

		if (v->amd_format != HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE) {
			pr |= P_FORMAT;
			break;
		}
		if (v->cond > HSAQM_AQL_COND_MAX)
			pr |= P_FORMAT;
		if (v->signal && !is_live_signal(fz, v->signal))
			pr |= P_SIGNAL;
		if (v->completion_signal && !is_live_signal(fz, v->completion_signal))
			pr |= P_SIGNAL;
		reserved_zero = v->reserved == 0 && v->reserved0 == 0 && v->reserved1 == 0 &&
		                v->reserved2 == 0 && v->reserved3 == 0;
		break;
	}
	default: /* agent dispatch on a kernel queue */
		pr |= P_FORMAT;
		break;
	}
	*valid = !pr && reserved_zero;
	return pr;
}

static uint32_t status_bit(int status)
{
	switch (status) {
	case ST_INVALID_ARGUMENT:
		return P_ARG;
	case ST_INVALID_ALLOCATION:
		return P_ALLOC;
	case ST_INVALID_SIGNAL:
		return P_SIGNAL;
	case ST_INVALID_PACKET_FORMAT:
		return P_FORMAT;
	case ST_INCOMPATIBLE_ARGUMENTS:
		return P_DIM;
	case ST_INVALID_CODE_OBJECT:
		return P_CODE;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------------------------
 * Callbacks (model thread = this thread, inside the event loop).
 */
static bool frozen(const struct fz_q *q)
{
	return q->suspended || q->inactive;
}

static void error_cb(void *ctx, struct sim_hwq *hwq, int status)
{
	struct fz_q *q = ctx;
	struct fz *fz = q->fz;
	struct sim_hwq_info info;
	union hsaqm_aql_packet pkt;
	bool valid;

	FZ_CHECK(hwq == q->hwq, "error callback for another queue's handle");
	FZ_CHECK(!q->control, "the control queue failed with status 0x%x", status);
	FZ_CHECK(q->live, "error callback on destroyed queue %u", q->serial);
	FZ_CHECK(q->errors == 0, "queue %u failed twice (0x%x, then 0x%x)", q->serial, q->status,
	         status);
	FZ_CHECK(!q->clean, "queue %u failed (0x%x) although it only ever had valid packets",
	         q->serial, status);
	FZ_CHECK(status_bit(status), "queue %u failed with unknown status 0x%x", q->serial, status);
	FZ_CHECK(sim_hwq_get_info(hwq, &info) == 0, "get_info in the error callback");
	q->errors = 1;
	q->status = status;
	/* Acquire: the model's read-index store (its packet processor runs on this thread). */
	q->rd_at_error = hsaqm_load_acquire(q->rd);
	q->launched_at_error = info.dispatches_launched;
	fz->stats.errors++;

	/* The packet at the read index must explain the status, unless a doorbell overran. */
	const union hsaqm_aql_packet *ring =
		(const union hsaqm_aql_packet *)(uintptr_t)info.ring_base;
	uint32_t slots = info.ring_size_bytes / 64u;
	memcpy(&pkt, &ring[q->rd_at_error & (slots - 1)], sizeof(pkt));
	uint32_t pr = problems(fz, &pkt, &valid);
	if (status == ST_INVALID_PACKET_FORMAT && q->overrun_rung)
		return;
	FZ_CHECK(pr & status_bit(status),
	         "queue %u failed with 0x%x at index %" PRIu64 ", but the packet there (first word "
	         "0x%08x) has problems 0x%x",
	         q->serial, status, q->rd_at_error, pkt.u32[0], pr);
}

static void wg_cb(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct fz_kcb *kc = arg;
	struct fz *fz = kc->fz;
	uint64_t tag = (uint64_t)(uintptr_t)kernarg;

	fz->stats.callbacks++;
	if (kc->k == FZ_K_NORMAL && wg < FZ_COUNTERS)
		fz->shadow[wg]++;
	if ((tag & FZ_TAG_MASK) != FZ_TAG) {
		FZ_CHECK(tag == 0 && fz->tags_exhausted,
		         "workgroup callback with kernarg 0x%" PRIx64 ", which no packet carried",
		         tag);
		return;
	}
	uint32_t i = (uint32_t)(tag & ~FZ_TAG_MASK);
	FZ_CHECK(i < fz->nrecs, "kernarg tag %u beyond the %u packets written", i, fz->nrecs);
	struct fz_rec *r = &fz->recs[i];

	FZ_CHECK(r->type == HSAQM_AQL_TYPE_KERNEL_DISPATCH, "workgroup of a non-dispatch packet");
	FZ_CHECK(!r->problems,
	         "a workgroup ran for packet %u (queue %u, index %" PRIu64 "), which has "
	         "problems 0x%x and should have failed its queue",
	         i, r->q->serial, r->index, r->problems);
	FZ_CHECK(r->kobj == fz->kobj[kc->k], "packet %u named kernel 0x%" PRIx64 ", kernel %d ran",
	         i, r->kobj, kc->k);
	FZ_CHECK((dispatch_id & (r->slots - 1)) == (r->index & (r->slots - 1)),
	         "dispatch id %" PRIu64 " is not the slot packet %u was written to (index %" PRIu64
	         ")",
	         dispatch_id, i, r->index);
	FZ_CHECK(wg < r->total_wgs, "workgroup %u of a %" PRIu64 "-workgroup dispatch", wg,
	         r->total_wgs);
	FZ_CHECK(r->q->live, "workgroup ran for destroyed queue %u", r->q->serial);
	FZ_CHECK(!frozen(r->q), "workgroup ran for suspended/inactive queue %u", r->q->serial);
	if (r->own)
		FZ_CHECK(sim_signal_load(r->own) == 1,
		         "workgroup %u ran after its completion signal "
		         "was decremented",
		         wg);
	uint64_t need = wg / 8 + 1;
	if (need > r->seen_bytes) {
		/* Grows with the highest workgroup seen: bounded by what ran, not by the grid. */
		uint64_t cap = r->seen_bytes ? r->seen_bytes * 2 : 8, max = (r->total_wgs + 7) / 8;
		if (cap < need)
			cap = need;
		if (cap > max)
			cap = max;
		uint8_t *s = realloc(r->seen, cap);
		FZ_CHECK(s, "out of memory");
		memset(s + r->seen_bytes, 0, cap - r->seen_bytes);
		r->seen = s;
		r->seen_bytes = cap;
	}
	FZ_CHECK(!(r->seen[wg / 8] & (1u << (wg % 8))),
	         "workgroup %u of packet %u (queue %u, index %" PRIu64 ") ran twice", wg, i,
	         r->q->serial, r->index);
	r->seen[wg / 8] |= (uint8_t)(1u << (wg % 8));
	r->cb_count++;
}

/* ------------------------------------------------------------------------------------
 * Queues and packets.
 */
static int q_create(struct fz *fz, struct fz_q *q, uint32_t prio, uint32_t slots, bool control)
{
	memset(q, 0, sizeof(*q));
	q->fz = fz;
	q->serial = (uint32_t)(q - fz->qs);
	q->control = control;
	q->slots = slots;
	q->clean = true;
	q->ring = hsaqm_sim_mem_alloc(fz->sim, (size_t)slots * 64, 64);
	uint64_t *idx = hsaqm_sim_mem_alloc(fz->sim, 64, 64);
	FZ_CHECK(q->ring && idx, "model memory exhausted");
	for (uint32_t i = 0; i < slots; i++)
		q->ring[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	q->wr = &idx[0];
	q->rd = &idx[1];
	struct sim_hwq_desc d = {
		.dev = 0,
		.ring_base = q->ring,
		.ring_size_bytes = slots * 64,
		.write_ptr = q->wr,
		.read_ptr = q->rd,
		.priority = prio,
		.active = true,
		.pasid = 1 + q->serial,
		.error_fn = error_cb,
		.error_ctx = q,
	};
	int err = sim_hwq_create(fz->sim, &d, &q->hwq);

	FZ_CHECK(err == (prio > 15 ? -EINVAL : 0), "sim_hwq_create(priority %u) = %d", prio, err);
	q->live = err == 0;
	return err;
}

static void ring_doorbell(struct fz_q *q, uint64_t v)
{
	/* Acquire: the read index as the model last published it (nothing runs concurrently). */
	uint64_t rd = hsaqm_load_acquire(q->rd);
	/* A handler may ring while an update swaps the ring: either size may be in force. */
	uint32_t slots = q->switch_slots && q->switch_slots < q->slots ? q->switch_slots : q->slots;

	if (v >= rd && v - rd >= slots) {
		q->overrun_rung = true;
		q->clean = false;
	}
	if (v != UINT64_MAX && v + 1 > q->max_db1)
		q->max_db1 = v + 1;
	q->unrung = false;
	if (g_verbose)
		fprintf(stderr, "  doorbell q%u %" PRIu64 " (read %" PRIu64 ", %u slots)%s\n",
		        q->serial, v, rd, q->slots, q->overrun_rung ? " overrun" : "");
	sim_hwq_doorbell(q->hwq, v);
}

/*
 * Write packet @p at ring index @idx of @q (body, then the first word with release, as a
 * producer does), after the harness's own edits: every dispatch gets a fresh kernarg tag.
 */
static void write_packet(struct fz *fz, struct fz_q *q, uint64_t idx, union hsaqm_aql_packet *p,
                         struct sim_signal *own)
{
	union hsaqm_aql_packet *slot = &q->ring[idx & (q->slots - 1)];
	/* Acquire: pairs with the packet processor's release of the read index. */
	uint64_t rd = hsaqm_load_acquire(q->rd);
	uint8_t type = p->bytes[0];
	struct fz_rec *r = NULL;
	bool valid;

	/* The last record is kept for the control queue's final dispatch. */
	if (fz->nrecs < (q->control ? FZ_MAX_RECS : FZ_MAX_RECS - 1)) {
		r = &fz->recs[fz->nrecs];
		memset(r, 0, sizeof(*r));
		r->q = q;
		r->index = idx;
		r->slots = q->slots;
		r->type = type;
		r->barrier = (p->bytes[1] & 1u) != 0;
		r->own = own;
		if (type == HSAQM_AQL_TYPE_KERNEL_DISPATCH) {
			p->dispatch.kernarg_address = FZ_TAG | fz->nrecs;
			r->kobj = p->dispatch.kernel_object;
			r->total_wgs = dispatch_wgs(&p->dispatch);
		}
		fz->nrecs++;
	} else if (type == HSAQM_AQL_TYPE_KERNEL_DISPATCH) {
		p->dispatch.kernarg_address = 0;
		fz->tags_exhausted = true;
	}
	/*
	 * The fuzzer learns handles through comparison tracing (one process runs every input, so
	 * the arena often lands at the same address). A completion signal that another packet
	 * owns, or the control queue's, would be decremented twice: make it a shared one.
	 */
	uint64_t cs = p->u64[7];
	if (cs && cs != sig_handle(own) && (is_owned_signal(fz, cs) || is_gate(fz, cs)))
		p->u64[7] = sig_handle(fz->pool[FZ_NPOOL - 1]);
	/*
	 * A write over an unconsumed packet, or outside [read, read + size): producer bug.
	 * Acquire: pairs with the packet processor's release of the INVALID header.
	 */
	if (idx < rd || idx - rd >= q->slots ||
	    hsaqm_load_acquire(&slot->u32[0]) != HSAQM_AQL_INVALID_WORD) {
		q->anomalous = true;
		q->clean = false;
	} else {
		/*
		 * A slot that still holds the INVALID word may be written again (a producer
		 * may rewrite what it has not published): an INVALID packet recorded there
		 * before is replaced, and the read index passing it says nothing about it.
		 */
		for (uint32_t i = 0; i < fz->nrecs; i++)
			if (&fz->recs[i] != r && fz->recs[i].q == q && fz->recs[i].index == idx &&
			    fz->recs[i].type == HSAQM_AQL_TYPE_INVALID)
				fz->recs[i].superseded = true;
	}
	uint32_t pr = problems(fz, p, &valid);
	if (r) {
		r->problems = pr;
		r->pkt = *p;
	}
	if (!valid)
		q->clean = false;
	q->unrung = true;
	memcpy(&slot->bytes[4], &p->bytes[4], 60);
	/* Release: the body before the first word that makes the slot a packet. */
	hsaqm_store_release(&slot->u32[0], p->u32[0]);
}

static uint16_t header_of(unsigned int type, bool barrier, unsigned int scopes)
{
	static const uint8_t scope[4] = { HSAQM_AQL_FENCE_SCOPE_SYSTEM, HSAQM_AQL_FENCE_SCOPE_NONE,
		                          HSAQM_AQL_FENCE_SCOPE_AGENT, 3 };
	uint32_t s = scope[scopes & 3];

	return (uint16_t)(type | (barrier ? 1u << HSAQM_AQL_HEADER_BARRIER_SHIFT : 0) |
	                  s << HSAQM_AQL_HEADER_ACQUIRE_SHIFT |
	                  s << HSAQM_AQL_HEADER_RELEASE_SHIFT);
}

/* Build a packet from a 4-byte template (fuzz_pp.h). Returns its own signal, if any. */
static struct sim_signal *build_tpl(struct fz *fz, union hsaqm_aql_packet *p)
{
	uint8_t t0 = in_u8(fz), t1 = in_u8(fz), t2 = in_u8(fz), t3 = in_u8(fz);
	unsigned int kind = t0 & 3u, cs_sel = (t0 >> 3) & 7u;
	bool barrier = (t0 >> 2) & 1u;
	uint64_t cs = sig_sel(fz, cs_sel);
	struct sim_signal *own =
		cs_sel == FZ_SIG_OWN && cs ? (struct sim_signal *)(uintptr_t)cs : NULL;

	memset(p, 0, sizeof(*p));
	switch (kind) {
	case 0: {
		static const uint16_t wg_size[8] = { 64, 1, 256, 1024, 32, 0, 512, 100 };
		static const uint32_t group[4] = { 0, 1024, 65536, 65537 };
		unsigned int shape = (t1 >> 3) & 3u, dims = shape == 3 ? 0 : shape + 1;
		uint16_t wgx = wg_size[t3 & 7u];
		uint32_t rows = 1 + ((t3 >> 3) & 3u);
		struct hsaqm_aql_dispatch *d = &p->dispatch;

		d->header = header_of(HSAQM_AQL_TYPE_KERNEL_DISPATCH, barrier, t0 >> 6);
		d->setup = (uint16_t)dims;
		d->workgroup_size_x = wgx;
		d->workgroup_size_y = 1;
		d->workgroup_size_z = 1;
		d->grid_size_x = (uint32_t)(1 + t2 % 64) * wgx;
		if (t2 ==
		    255) /* 2^32 - 1 items: with rows, more workgroups than a dispatch may have */
			d->grid_size_x = UINT32_MAX;
		if ((t3 >> 5) & 1u)
			d->grid_size_x = wgx ? wgx - 1u : 0;
		d->grid_size_y = dims >= 2 ? rows : 1;
		d->grid_size_z = dims == 3 ? rows : 1;
		d->group_segment_size = group[t3 >> 6];
		d->kernel_object = kernel_sel(fz, t1);
		d->completion_signal = cs;
		break;
	}
	case 1:
	case 2: {
		uint32_t bits = t1 | (uint32_t)t2 << 8 | (uint32_t)t3 << 16;

		p->barrier.header = header_of(kind == 1 ? HSAQM_AQL_TYPE_BARRIER_AND
		                                        : HSAQM_AQL_TYPE_BARRIER_OR,
		                              barrier, t0 >> 6);
		for (unsigned int i = 0; i < HSAQM_AQL_MAX_DEPS; i++)
			p->barrier.dep_signal[i] = dep_sel(fz, (bits >> (3 * i)) & 7u);
		p->barrier.completion_signal = cs;
		break;
	}
	default: {
		struct hsaqm_aql_barrier_value *v = &p->barrier_value;

		v->header = header_of(HSAQM_AQL_TYPE_VENDOR, barrier, t0 >> 6);
		v->amd_format = HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE;
		v->signal = dep_sel(fz, t1 & 7u);
		v->cond = (t1 >> 3) & 7u;
		v->value = (int8_t)t2;
		v->mask = t3 ? t3 : -1;
		v->completion_signal = cs;
		break;
	}
	}
	return own;
}

/* Apply raw-packet fixups (FZ_FIX_*). Returns the packet's own signal, if any. */
static struct sim_signal *fix_raw(struct fz *fz, union hsaqm_aql_packet *p, uint8_t fix)
{
	uint8_t type = p->bytes[0];
	struct sim_signal *own = NULL;

	if ((fix & FZ_FIX_KERNEL) && type == HSAQM_AQL_TYPE_KERNEL_DISPATCH)
		p->dispatch.kernel_object = kernel_sel(fz, (fix >> 4) & 7u);
	if (fix & FZ_FIX_OWN_CS) {
		own = own_new(fz);
		p->dispatch.completion_signal = own ? sig_handle(own) : 0;
	} else if (fix & FZ_FIX_POOL_CS) {
		p->dispatch.completion_signal = sig_handle(fz->pool[(fix >> 4) & 3u]);
	}
	if (fix & FZ_FIX_DEPS) {
		if (type == HSAQM_AQL_TYPE_BARRIER_AND || type == HSAQM_AQL_TYPE_BARRIER_OR)
			for (unsigned int i = 0; i < HSAQM_AQL_MAX_DEPS; i++)
				p->barrier.dep_signal[i] =
					dep_sel(fz, p->barrier.dep_signal[i] & 7u);
		else if (type == HSAQM_AQL_TYPE_VENDOR)
			p->barrier_value.signal = dep_sel(fz, p->barrier_value.signal & 7u);
	}
	return own;
}

static struct fz_q *q_pick(struct fz *fz, uint8_t b)
{
	struct fz_q *q = fz->slot[(b & 3u) % FZ_SLOTS];

	return q && q->live ? q : NULL;
}

static uint64_t reserve(struct fz_q *q, uint64_t n)
{
	q->unrung = true;
	/* acq_rel: a producer's reservation of the write index. */
	return hsaqm_fetch_add(q->wr, n);
}

/* ------------------------------------------------------------------------------------
 * Invariants.
 */
static void check_queue(struct fz *fz, struct fz_q *q)
{
	struct sim_hwq_info info;

	if (!q->live)
		return;
	FZ_CHECK(sim_hwq_get_info(q->hwq, &info) == 0, "sim_hwq_get_info failed");
	/* Acquire: pairs with the model's release of the read index. */
	uint64_t rd = hsaqm_load_acquire(q->rd), wr = hsaqm_load_acquire(q->wr);

	FZ_CHECK(rd <= wr, "queue %u: read index %" PRIu64 " passed write index %" PRIu64,
	         q->serial, rd, wr);
	FZ_CHECK(rd >= q->last_rd, "queue %u: read index went back from %" PRIu64 " to %" PRIu64,
	         q->serial, q->last_rd, rd);
	FZ_CHECK(rd == q->last_rd || rd <= q->max_db1,
	         "queue %u: read index %" PRIu64 " beyond every doorbell (highest + 1 = %" PRIu64
	         ")",
	         q->serial, rd, q->max_db1);
	if (!q->ring_changed) {
		FZ_CHECK(rd - q->last_rd <= q->slots,
		         "queue %u consumed more than a ring in one step", q->serial);
		/* Acquire: pairs with the packet processor's release of the INVALID header. */
		for (uint64_t i = q->last_rd; i < rd; i++)
			FZ_CHECK(hsaqm_load_acquire(&q->ring[i & (q->slots - 1)].u32[0]) ==
			                 HSAQM_AQL_INVALID_WORD,
			         "queue %u: consumed slot of index %" PRIu64 " is not INVALID",
			         q->serial, i);
	}
	FZ_CHECK(info.dispatches_launched <= rd && info.packets_completed <= rd,
	         "queue %u: %" PRIu64 " launched, %" PRIu64 " completed, only %" PRIu64 " consumed",
	         q->serial, info.dispatches_launched, info.packets_completed, rd);
	FZ_CHECK(info.packets_completed >= q->last_completed, "queue %u: completed count went back",
	         q->serial);
	FZ_CHECK((info.state == SIM_HWQ_ERROR) == (q->errors == 1),
	         "queue %u: state %d but %d error callbacks", q->serial, (int)info.state,
	         q->errors);
	if (q->errors) {
		FZ_CHECK(rd == q->rd_at_error,
		         "queue %u consumed after its error (%" PRIu64 " -> %" PRIu64 ")",
		         q->serial, q->rd_at_error, rd);
		FZ_CHECK(info.dispatches_launched == q->launched_at_error,
		         "queue %u launched after its error", q->serial);
	}
	if (frozen(q)) {
		FZ_CHECK(rd == q->frozen_rd && info.dispatches_launched == q->frozen_launched &&
		                 info.packets_completed == q->frozen_completed,
		         "suspended/inactive queue %u moved: read %" PRIu64 "->%" PRIu64
		         ", launched %" PRIu64 "->%" PRIu64 ", completed %" PRIu64 "->%" PRIu64,
		         q->serial, q->frozen_rd, rd, q->frozen_launched, info.dispatches_launched,
		         q->frozen_completed, info.packets_completed);
		FZ_CHECK(info.workgroups_running == 0,
		         "suspended/inactive queue %u runs workgroups", q->serial);
		FZ_CHECK(info.state == SIM_HWQ_SUSPENDED || info.state == SIM_HWQ_ERROR,
		         "suspended/inactive queue %u reports state %d", q->serial,
		         (int)info.state);
	} else {
		FZ_CHECK(info.state != SIM_HWQ_SUSPENDED, "running queue %u reports SUSPENDED",
		         q->serial);
	}
	q->last_rd = rd;
	q->last_completed = info.packets_completed;
}

static void freeze(struct fz_q *q)
{
	struct sim_hwq_info info;

	if (frozen(q))
		return;
	FZ_CHECK(sim_hwq_get_info(q->hwq, &info) == 0, "sim_hwq_get_info failed");
	/* Acquire: pairs with the packet processor's release of the read index. */
	q->frozen_rd = hsaqm_load_acquire(q->rd);
	q->frozen_launched = info.dispatches_launched;
	q->frozen_completed = info.packets_completed;
}

/* A barrier packet just seen complete: the gates among its dependencies must satisfy it. */
static void check_deps(struct fz *fz, uint32_t i, const struct fz_rec *r)
{
	const union hsaqm_aql_packet *p = &r->pkt;
	struct sim_signal *g;

	switch (r->type) {
	case HSAQM_AQL_TYPE_BARRIER_AND:
		for (unsigned int d = 0; d < HSAQM_AQL_MAX_DEPS; d++)
			if ((g = gate_of(fz, p->barrier.dep_signal[d])))
				FZ_CHECK(sim_signal_load(g) == 0,
				         "barrier-AND %u completed with dependency %u "
				         "at %" PRId64,
				         i, d, sim_signal_load(g));
		break;
	case HSAQM_AQL_TYPE_BARRIER_OR: {
		bool conclusive = true, any = false;

		for (unsigned int d = 0; d < HSAQM_AQL_MAX_DEPS; d++) {
			uint64_t h = p->barrier.dep_signal[d];

			if (!h)
				continue; /* never satisfies an OR */
			if ((g = gate_of(fz, h)))
				any |= sim_signal_load(g) == 0;
			else
				conclusive = false;
		}
		FZ_CHECK(!conclusive || any, "barrier-OR %u completed with no dependency at 0", i);
		break;
	}
	case HSAQM_AQL_TYPE_VENDOR:
		if ((g = gate_of(fz, p->barrier_value.signal)))
			FZ_CHECK(sim_cond_holds((enum sim_cond)p->barrier_value.cond,
			                        sim_signal_load(g) & p->barrier_value.mask,
			                        p->barrier_value.value),
			         "barrier-value %u completed with its signal at %" PRId64, i,
			         sim_signal_load(g));
		break;
	default:
		break;
	}
}

static void check_recs(struct fz *fz)
{
	uint64_t now = hsaqm_sim_now_ns(fz->sim);

	for (uint32_t i = 0; i < fz->nrecs; i++) {
		struct fz_rec *r = &fz->recs[i];

		if (!r->own)
			continue;
		int64_t v = sim_signal_load(r->own);
		if (r->superseded) {
			FZ_CHECK(v == 1,
			         "packet %u (an INVALID packet replaced at index %" PRIu64
			         ") was never consumed, yet its completion signal is %" PRId64,
			         i, r->index, v);
			continue;
		}
		FZ_CHECK(v == 0 || v == 1,
		         "packet %u's completion signal is %" PRId64 " (decremented "
		         "more than once?)",
		         i, v);
		bool kernel = r->type == HSAQM_AQL_TYPE_KERNEL_DISPATCH;
		bool tracked = r->q->live && !r->q->anomalous;
		uint64_t rd = r->q->last_rd;

		if (v == 0) {
			int64_t s = HSAQM_READ_ONCE(r->own->start_ts),
				e = HSAQM_READ_ONCE(r->own->end_ts);

			FZ_CHECK(!r->problems,
			         "packet %u (queue %u, index %" PRIu64 ", first word 0x%02x) "
			         "completed although it has problems 0x%x",
			         i, r->q->serial, r->index, r->type, r->problems);
			FZ_CHECK(s >= 0 && s <= e && (uint64_t)e <= now,
			         "packet %u: start %" PRId64 " end %" PRId64 " now %" PRIu64, i, s,
			         e, now);
			if (!kernel && !r->deps_checked) {
				check_deps(fz, i, r);
				r->deps_checked = true;
			}
			if (kernel && r->kobj != fz->kobj[FZ_K_NOCB])
				FZ_CHECK(r->cb_count == r->total_wgs,
				         "packet %u completed after %" PRIu64 " of %" PRIu64 " work"
				                                                             "group"
				                                                             "s",
				         i, r->cb_count, r->total_wgs);
			if (tracked)
				FZ_CHECK(rd > r->index,
				         "packet %u (index %" PRIu64 ") completed but the read "
				         "index is %" PRIu64,
				         i, r->index, rd);
		} else if (tracked && !kernel && rd > r->index) {
			FZ_FAIL("barrier packet %u (index %" PRIu64 ") consumed but not completed",
			        i, r->index);
		}
	}
	/* Acquire: pairs with the workgroup callbacks' increments (the engine thread). */
	for (uint32_t w = 0; w < FZ_COUNTERS; w++)
		FZ_CHECK(hsaqm_load_acquire(&fz->counters[w]) == fz->shadow[w],
		         "counter %u is %u, callbacks saw %u", w, fz->counters[w], fz->shadow[w]);
	FZ_CHECK(fz->sim->dev[0]->stranded_requests == 0, "the device stranded a control request");
}

/* Does the barrier a queue waits in hold now? (docs/sim.md: AND, OR, BARRIER_VALUE rules) */
static bool wait_holds(const struct sim_hwq *h)
{
	switch (h->wait) {
	case SIM_WAIT_AND:
		for (uint32_t i = 0; i < h->wait_nsig; i++)
			if (sim_signal_load(h->wait_sig[i]))
				return false;
		return true;
	case SIM_WAIT_OR:
		for (uint32_t i = 0; i < h->wait_nsig; i++)
			if (!sim_signal_load(h->wait_sig[i]))
				return true;
		return false;
	case SIM_WAIT_VALUE:
		return !h->wait_nsig ||
		       sim_cond_holds((enum sim_cond)h->wait_cond,
		                      sim_signal_load(h->wait_sig[0]) & h->wait_mask,
		                      h->wait_value);
	default:
		return false;
	}
}

/*
 * Liveness, once the device has nothing left to do at this instant: a mapped packet processor
 * that is not launching, not failed, and has been told (a doorbell after the last write) about
 * a packet at its read index must be blocked for a reason the rules give: an INVALID header,
 * the barrier bit with dispatches in flight, no launch slot, or a barrier that does not hold.
 * Anything else is a queue that should have failed (a malformed packet) or should have run.
 */
static void check_live(struct fz *fz)
{
	struct sim_device *dev = fz->sim->dev[0];

	if (sim_device_has_stimulus(dev) || sim_device_next_event(dev) <= dev->now ||
	    dev->rl_current || dev->hws_dirty || dev->dispatch_dirty || dev->sig_check)
		return;
	for (uint32_t i = 0; i < fz->nqs; i++) {
		struct fz_q *q = &fz->qs[i];
		struct sim_hwq *h = q->hwq;

		if (!q->live || q->unrung || h->hstate != SIM_HQ_MAPPED || h->error ||
		    h->launch_busy || h->ndb)
			continue;
		if (h->wait != SIM_WAIT_NONE) {
			FZ_CHECK(!wait_holds(h),
			         "queue %u still waits in a barrier (kind %d) that holds",
			         q->serial, (int)h->wait);
			continue;
		}
		/* Acquire: pairs with reserve()'s increment of the write index. */
		uint64_t wr = hsaqm_load_acquire(h->write_ptr);
		uint64_t end = wr < h->db_limit ? wr : h->db_limit;
		if (h->rd >= end)
			continue;
		union hsaqm_aql_packet pkt;
		struct hsaqm_aql_header hdr;
		bool valid;

		memcpy(&pkt, &h->ring[h->rd & (h->ring_slots - 1)], sizeof(pkt));
		if ((pkt.u32[0] & 0xffu) == HSAQM_AQL_TYPE_INVALID)
			continue;
		uint32_t pr = problems(fz, &pkt, &valid);
		bool header_ok = hsaqm_aql_header_decode(pkt.common.header, &hdr) == 0;
		if (header_ok && hdr.barrier && h->ninflight)
			continue;
		FZ_CHECK(!pr,
		         "queue %u idles at index %" PRIu64 " on a packet with problems 0x%x "
		                                            "(first "
		         "word 0x%08x) instead of failing",
		         q->serial, h->rd, pr, pkt.u32[0]);
		if (hdr.type == HSAQM_AQL_TYPE_KERNEL_DISPATCH &&
		    h->ninflight >= dev->prof.max_inflight_dispatches)
			continue;
		FZ_FAIL("queue %u idles at index %" PRIu64 " on a packet it could take (first word "
		        "0x%08x, %u dispatches in flight)",
		        q->serial, h->rd, pkt.u32[0], h->ninflight);
	}
}

static void check_all(struct fz *fz)
{
	for (uint32_t i = 0; i < fz->nqs; i++) {
		check_queue(fz, &fz->qs[i]);
		fz->qs[i].ring_changed = false;
	}
	check_recs(fz);
	check_live(fz);
}

static int rec_by_index(const void *a, const void *b)
{
	const struct fz_rec *x = *(const struct fz_rec *const *)a,
			    *y = *(const struct fz_rec *const *)b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* In-order launch, the barrier bit and barrier packets, over the packets with own signals. */
static void check_order(struct fz *fz, struct fz_q *q)
{
	struct fz_rec *list[FZ_MAX_OWN + 2];
	uint32_t n = 0;

	if (q->anomalous)
		return;
	for (uint32_t i = 0; i < fz->nrecs && n < FZ_MAX_OWN + 2; i++)
		if (fz->recs[i].q == q && fz->recs[i].own && !fz->recs[i].superseded)
			list[n++] = &fz->recs[i];
	qsort(list, n, sizeof(list[0]), rec_by_index);
	int64_t max_start = 0, max_end = 0, max_barrier_end = 0;
	bool all_done = true, barriers_done = true;

	for (uint32_t j = 0; j < n; j++) {
		struct fz_rec *r = list[j];
		bool done = sim_signal_load(r->own) == 0;
		bool kernel = r->type == HSAQM_AQL_TYPE_KERNEL_DISPATCH;
		int64_t s = HSAQM_READ_ONCE(r->own->start_ts), e = HSAQM_READ_ONCE(r->own->end_ts);

		if (done) {
			FZ_CHECK(s >= max_start,
			         "queue %u: index %" PRIu64 " launched before an earlier "
			         "packet",
			         q->serial, r->index);
			FZ_CHECK(barriers_done && s >= max_barrier_end,
			         "queue %u: index %" PRIu64 " launched before an earlier barrier "
			                                    "packet completed",
			         q->serial, r->index);
			if (r->barrier)
				FZ_CHECK(all_done && s >= max_end,
				         "queue %u: index %" PRIu64 " has the barrier "
				         "bit but launched before earlier packets completed",
				         q->serial, r->index);
			max_start = s;
			if (e > max_end)
				max_end = e;
			if (!kernel && e > max_barrier_end)
				max_barrier_end = e;
		} else {
			all_done = false;
			if (!kernel)
				barriers_done = false;
		}
	}
}

/* ------------------------------------------------------------------------------------
 * Operations.
 */
static void op_pub(struct fz *fz)
{
	uint8_t b = in_u8(fz);
	struct fz_q *q = q_pick(fz, b);
	unsigned int n = 1 + ((b >> 2) & 3u), mode = (b >> 4) & 3u;
	uint64_t first = 0, idx = 0;

	for (unsigned int i = 0; i < n; i++) {
		union hsaqm_aql_packet p;
		struct sim_signal *own = build_tpl(fz, &p);

		if (!q)
			continue;
		idx = reserve(q, 1);
		if (!i)
			first = idx;
		write_packet(fz, q, idx, &p, own);
		if (mode == 3)
			ring_doorbell(q, idx);
	}
	if (q && mode == 0)
		ring_doorbell(q, idx);
	else if (q && mode == 2)
		ring_doorbell(q, first);
}

static void op_raw(struct fz *fz, bool scribble)
{
	uint8_t b = in_u8(fz), off = scribble ? in_u8(fz) : 0, fix = in_u8(fz);
	union hsaqm_aql_packet p;
	struct fz_q *q = q_pick(fz, b);

	in_packet(fz, &p);
	if (!q)
		return;
	struct sim_signal *own = fix_raw(fz, &p, fix);
	uint64_t idx;

	/* Acquire: pairs with the packet processor's release of the read index. */
	if (scribble)
		idx = hsaqm_load_acquire(q->rd) + off % (2u * q->slots);
	else
		idx = reserve(q, 1);
	write_packet(fz, q, idx, &p, own);
	if (b & 4u)
		ring_doorbell(q, idx);
}

static void op_doorbell(struct fz *fz)
{
	uint8_t b = in_u8(fz), mode = in_u8(fz);
	struct fz_q *q = q_pick(fz, b);
	uint64_t v;

	if (mode & 0x80u) {
		v = in_u64(fz);
	} else {
		int delta = (int)(mode & 0x7fu) - 64;

		/* Acquire: pairs with reserve()'s increment (this thread's own, in practice). */
		v = q ? hsaqm_load_acquire(q->wr) - 1 + (uint64_t)(int64_t)delta : 0;
	}
	if (q)
		ring_doorbell(q, v);
}

static bool budget_left(const struct fz *fz)
{
	return hsaqm_sim_now_ns(fz->sim) - fz->t0 < FZ_BUDGET_NS;
}

static void op_signal(struct fz *fz)
{
	uint8_t b = in_u8(fz);
	int64_t v = (int8_t)in_u8(fz);
	struct sim_signal *s = fz->pool[b & 3u];

	switch ((b >> 2) & 7u) {
	case 0:
		sim_signal_store(fz->sim, s, v);
		break;
	case 1:
		sim_signal_add(fz->sim, s, v);
		break;
	case 2:
		sim_signal_add(fz->sim, s, -v);
		break;
	case 3:
		sim_signal_and(fz->sim, s, v);
		break;
	case 4:
		sim_signal_or(fz->sim, s, v);
		break;
	case 5:
		sim_signal_xor(fz->sim, s, v);
		break;
	case 6:
		sim_signal_exchange(fz->sim, s, v);
		break;
	default:
		sim_signal_cas(fz->sim, s, 1, v);
		break;
	}
}

/* The live fuzz queues named by a 3-bit mask. */
static uint32_t q_mask(struct fz *fz, uint8_t mask, struct sim_hwq **hwq, struct fz_q **fq)
{
	uint32_t n = 0;

	for (int i = 0; i < FZ_SLOTS; i++) {
		if (!((mask >> i) & 1u) || !fz->slot[i] || !fz->slot[i]->live)
			continue;
		fq[n] = fz->slot[i];
		hwq[n++] = fz->slot[i]->hwq;
	}
	return n;
}

static void op_suspend(struct fz *fz, bool resume)
{
	static const uint32_t grace[4] = { 0, 1, 10, 100 };
	uint8_t b = in_u8(fz);
	struct sim_hwq *hwq[FZ_SLOTS];
	struct fz_q *fq[FZ_SLOTS];
	uint32_t n = q_mask(fz, b & 7u, hwq, fq);

	if (!n)
		return;
	if (!resume) {
		int err = sim_hwq_suspend(hwq, n, grace[(b >> 3) & 3u]);

		FZ_CHECK(err == 0, "sim_hwq_suspend = %d", err);
		for (uint32_t i = 0; i < n; i++) {
			freeze(fq[i]);
			fq[i]->suspended = true;
		}
		return;
	}
	bool all = true;
	for (uint32_t i = 0; i < n; i++)
		all &= fq[i]->suspended;
	/*
	 * A resume that will succeed maps the queues before it returns (its dbg_resume_ns comes
	 * after the runlist change): they may run inside the call.
	 */
	if (all)
		for (uint32_t i = 0; i < n; i++)
			fq[i]->suspended = false;
	int err = sim_hwq_resume(hwq, n);
	FZ_CHECK(err == (all ? 0 : -EINVAL), "sim_hwq_resume of %s suspended queues = %d",
	         all ? "only" : "not only", err);
	if (!err)
		for (uint32_t i = 0; i < n; i++)
			fq[i]->suspended = false;
}

static void op_update(struct fz *fz)
{
	uint8_t b = in_u8(fz), pb = in_u8(fz);
	struct fz_q *q = q_pick(fz, b);
	uint32_t prio = pb & 31u, mode = (b >> 2) & 3u;
	bool active = (pb >> 5) & 1u;
	void *ring = NULL;
	uint32_t slots = 0;

	if (!q)
		return;
	if (mode == 0 || mode == 3) {
		ring = q->ring;
		slots = q->slots;
	} else if (mode == 2) {
		slots = 4u << ((b >> 4) % 5u);
		ring = hsaqm_sim_mem_alloc(fz->sim, (size_t)slots * 64, 64);
		FZ_CHECK(ring, "model memory exhausted");
		for (uint32_t i = 0; i < slots; i++)
			((union hsaqm_aql_packet *)ring)[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	}
	bool going_inactive = !ring || !active;
	q->switch_slots = mode == 2 ? slots : 0;
	int err = sim_hwq_update(q->hwq, ring, slots * 64, prio, active);
	q->switch_slots = 0;
	FZ_CHECK(err == (prio > 15 ? -EINVAL : 0), "sim_hwq_update(priority %u) = %d", prio, err);
	if (err)
		return;
	if (mode == 2) {
		q->ring = ring;
		q->slots = slots;
		q->ring_changed = true;
		q->anomalous = true; /* packets left on the old ring are never read */
	}
	if (going_inactive) {
		/* Frozen from the update's return: what ran during the unmap is in the snapshot. */
		q->inactive = false;
		freeze(q);
		q->inactive = true;
	} else {
		q->inactive = false;
	}
}

static void op_destroy(struct fz *fz)
{
	struct fz_q *q = q_pick(fz, in_u8(fz));

	if (!q)
		return;
	int err = sim_hwq_destroy(q->hwq);
	FZ_CHECK(err == 0, "sim_hwq_destroy = %d", err);
	q->live = false;
	q->hwq = NULL;
}

static void op_create(struct fz *fz)
{
	uint8_t b = in_u8(fz);
	int s;

	for (s = 0; s < FZ_SLOTS; s++)
		if (!fz->slot[s] || !fz->slot[s]->live)
			break;
	if (s == FZ_SLOTS || fz->nqs == FZ_MAX_QUEUES + 1)
		return;
	struct fz_q *q = &fz->qs[fz->nqs++];
	if (q_create(fz, q, b & 31u, 4u << ((b >> 5) % 5u), false) == 0)
		fz->slot[s] = q;
}

static void op_cu_mask(struct fz *fz)
{
	static const uint32_t widths[8] = { 32, 64, 96, 128, 0, 48, 80, 1 };
	uint8_t b = in_u8(fz), w = in_u8(fz);
	uint32_t mask[4], nbits = widths[w & 7u];
	struct fz_q *q = q_pick(fz, b);
	bool any = false;

	for (int i = 0; i < 4; i++)
		mask[i] = in_u8(fz) * 0x01010101u;
	if (!q)
		return;
	for (uint32_t cu = 0; cu < fz->ncu && cu < nbits; cu++)
		any |= (mask[cu / 32] >> (cu % 32)) & 1u;
	int expect = !nbits || nbits % 32 || !any ? -EINVAL : 0;
	int err = sim_hwq_set_cu_mask(q->hwq, mask, nbits);
	FZ_CHECK(err == expect, "sim_hwq_set_cu_mask(%u bits) = %d, expected %d", nbits, err,
	         expect);
}

static void op_reserve(struct fz *fz)
{
	uint8_t b = in_u8(fz);
	struct fz_q *q = q_pick(fz, b);
	uint64_t n = 1 + ((b >> 2) & 7u);

	if (!q)
		return;
	uint64_t first = reserve(q, n);
	for (uint64_t i = 0; i < n && q->nholes < FZ_MAX_HOLES; i++)
		q->holes[q->nholes++] = first + i;
}

static void op_fill(struct fz *fz)
{
	uint8_t b = in_u8(fz), h = in_u8(fz);
	struct fz_q *q = q_pick(fz, b);
	union hsaqm_aql_packet p;
	struct sim_signal *own = build_tpl(fz, &p);

	if (!q || !q->nholes)
		return;
	uint32_t k = h % q->nholes;
	uint64_t idx = q->holes[k];
	q->holes[k] = q->holes[--q->nholes];
	write_packet(fz, q, idx, &p, own);
	if (b & 4u)
		ring_doorbell(q, idx);
}

static void op_wait(struct fz *fz)
{
	uint8_t b = in_u8(fz), t = in_u8(fz);
	enum sim_cond cond = (enum sim_cond)((b >> 2) & 3u);
	int64_t cmp = (b >> 5) & 7u;
	uint64_t start = hsaqm_sim_now_ns(fz->sim), timeout = t * FZ_US;

	if (!(b & 0x10u)) {
		struct sim_signal *s = fz->pool[b & 3u];
		int64_t v = sim_signal_wait(fz->sim, s, cond, cmp, timeout);

		if (sim_cond_holds(cond, v, cmp))
			FZ_CHECK(sim_signal_load(s) == v,
			         "wait returned %" PRId64 ", the signal holds %" PRId64, v,
			         sim_signal_load(s));
		else
			FZ_CHECK(hsaqm_sim_now_ns(fz->sim) == start + timeout,
			         "an unsatisfied wait of %" PRIu64 " ns returned after %" PRIu64
			         " ns",
			         timeout, hsaqm_sim_now_ns(fz->sim) - start);
		return;
	}
	enum sim_cond conds[FZ_NPOOL];
	int64_t cmps[FZ_NPOOL], v = 0;
	for (int i = 0; i < FZ_NPOOL; i++) {
		conds[i] = cond;
		cmps[i] = cmp;
	}
	uint32_t i = sim_signal_wait_any(fz->sim, FZ_NPOOL, fz->pool, conds, cmps, timeout, &v);
	if (i < FZ_NPOOL)
		FZ_CHECK(sim_cond_holds(cond, v, cmp) && sim_signal_load(fz->pool[i]) == v,
		         "wait_any: signal %u satisfied with %" PRId64 "?", i, v);
	else
		FZ_CHECK(i == FZ_NPOOL && hsaqm_sim_now_ns(fz->sim) == start + timeout,
		         "wait_any returned %u after %" PRIu64 " ns of a %" PRIu64 " ns timeout", i,
		         hsaqm_sim_now_ns(fz->sim) - start, timeout);
}

/* An async handler, run inside the event loop: it may only use non-blocking calls. */
static bool handler_fn(int64_t value, void *arg)
{
	struct fz_handler *h = arg;
	struct fz *fz = h->fz;

	(void)value;
	switch (h->action) {
	case 0:
		sim_signal_store(fz->sim, fz->pool[FZ_NGATES + (h->target & 1u)], 0);
		break;
	case 1:
		sim_signal_add(fz->sim, fz->pool[FZ_NGATES + (h->target & 1u)], -1);
		break;
	case 2: {
		struct fz_q *q = q_pick(fz, (uint8_t)h->target);

		/* Acquire: pairs with reserve()'s increment of the write index. */
		if (q)
			ring_doorbell(q, hsaqm_load_acquire(q->wr) - 1);
		break;
	}
	default:
		/* Blocking calls from a callback must refuse, not block or run the loop. */
		FZ_CHECK(hsaqm_sim_advance(fz->sim, 1) == -EDEADLK, "advance from a handler");
		FZ_CHECK(hsaqm_sim_run_until_idle(fz->sim, 1) == -EDEADLK, "run_until_idle from a "
		                                                           "handler");
		break;
	}
	return false; /* one-shot: two handlers feeding each other would never let time move */
}

static void op_handler(struct fz *fz)
{
	uint8_t b = in_u8(fz);
	int64_t cmp = (int8_t)in_u8(fz);

	if (fz->nhandlers == sizeof(fz->handlers) / sizeof(fz->handlers[0]))
		return;
	struct fz_handler *h = &fz->handlers[fz->nhandlers++];
	h->fz = fz;
	h->action = (b >> 4) & 3u;
	h->target = b >> 6;
	int err = sim_signal_async_handler(fz->sim, fz->pool[b & 3u],
	                                   (enum sim_cond)((b >> 2) & 3u), cmp, handler_fn, h);
	FZ_CHECK(err == 0, "sim_signal_async_handler = %d", err);
}

static void run_op(struct fz *fz, uint8_t op)
{
	switch (op % FZ_NOPS) {
	case FZ_OP_PUB:
		op_pub(fz);
		break;
	case FZ_OP_RAW:
		op_raw(fz, false);
		break;
	case FZ_OP_DOORBELL:
		op_doorbell(fz);
		break;
	case FZ_OP_ADVANCE: {
		uint8_t n = in_u8(fz);
		FZ_CHECK(hsaqm_sim_advance(fz->sim, n * 500ull) == 0, "hsaqm_sim_advance failed");
		break;
	}
	case FZ_OP_SIGNAL:
		op_signal(fz);
		break;
	case FZ_OP_SUSPEND:
		op_suspend(fz, false);
		break;
	case FZ_OP_RESUME:
		op_suspend(fz, true);
		break;
	case FZ_OP_UPDATE:
		op_update(fz);
		break;
	case FZ_OP_DESTROY:
		op_destroy(fz);
		break;
	case FZ_OP_CREATE:
		op_create(fz);
		break;
	case FZ_OP_CU_MASK:
		op_cu_mask(fz);
		break;
	case FZ_OP_RUN_IDLE: {
		int err = hsaqm_sim_run_until_idle(fz->sim, in_u8(fz) * FZ_US);
		FZ_CHECK(err == 0 || err == -ETIMEDOUT, "hsaqm_sim_run_until_idle = %d", err);
		break;
	}
	case FZ_OP_SCRIBBLE:
		op_raw(fz, true);
		break;
	case FZ_OP_RESERVE:
		op_reserve(fz);
		break;
	case FZ_OP_FILL:
		op_fill(fz);
		break;
	case FZ_OP_WAIT:
		op_wait(fz);
		break;
	default:
		op_handler(fz);
		break;
	}
}

/* ------------------------------------------------------------------------------------
 * Setup, the control queue, the final phase.
 */
static void setup(struct fz *fz, uint8_t cfgb)
{
	static const struct {
		const char *name;
		uint64_t dur, spread;
		enum hsaqm_sim_dist dist;
		uint32_t waves;
		bool cb;
	} kd[FZ_K_NOCB + 2] = {
		{ "fz-short", 20 * FZ_US, 0, HSAQM_SIM_DIST_FIXED, 4, true },
		{ "fz-wide", 50 * FZ_US, 0, HSAQM_SIM_DIST_FIXED, 2, true },
		{ "fz-uniform", 40 * FZ_US, 30 * FZ_US, HSAQM_SIM_DIST_UNIFORM, 8, true },
		{ "fz-normal", 60 * FZ_US, 20 * FZ_US, HSAQM_SIM_DIST_NORMAL, 32, true },
		{ "fz-nocb", 30 * FZ_US, 0, HSAQM_SIM_DIST_FIXED, 1, false },
		{ "fz-control", 20 * FZ_US, 0, HSAQM_SIM_DIST_FIXED, 1, true },
	};
	unsigned int policy = (cfgb >> 3) & 3u;
	struct hsaqm_sim_config cfg = {
		.num_devices = 1,
		.time_mode = HSAQM_SIM_TIME_VIRTUAL,
		.cwsr_disable = (cfgb >> 2) & 1u,
		.sched_policy = policy == 3 ? 0 : (int)policy,
		.seed = 1 + (cfgb >> 5),
		.timing_path = policy == 3 && g_timing_path[0] ? g_timing_path : NULL,
	};

	FZ_CHECK(hsaqm_sim_create(&cfg, &fz->sim) == 0, "hsaqm_sim_create failed");
	const struct sim_profile *prof = sim_device_profile(fz->sim, 0);
	fz->lds_bytes = prof->lds_size_kb * 1024u;
	fz->ncu = prof->cu_count;
	fz->counters = hsaqm_sim_mem_alloc(fz->sim, FZ_COUNTERS * sizeof(uint32_t), 64);
	void *dead = hsaqm_sim_mem_alloc(fz->sim, 256, 64);
	FZ_CHECK(fz->counters && dead, "model memory exhausted");
	fz->dead = (uint64_t)(uintptr_t)dead;
	for (int k = 0; k < FZ_K_NOCB + 2; k++) {
		struct hsaqm_sim_kernel_desc d = {
			.name = kd[k].name,
			.duration_ns = kd[k].dur,
			.spread_ns = kd[k].spread,
			.dist = kd[k].dist,
			.waves_per_wg = kd[k].waves,
			.wg_callback = kd[k].cb ? wg_cb : NULL,
			.wg_callback_arg = &fz->kcb[k],
		};

		if (k == FZ_K_NORMAL) {
			d.wg_counters = fz->counters;
			d.wg_counters_len = FZ_COUNTERS;
		}
		fz->kcb[k].fz = fz;
		fz->kcb[k].k = k;
		FZ_CHECK(hsaqm_sim_kernel_register(fz->sim, &d, &fz->kobj[k]) == 0, "kernel "
		                                                                    "register");
	}
	for (int i = 0; i < FZ_NPOOL; i++) {
		fz->pool[i] = sim_signal_create(fz->sim, i & 1);
		FZ_CHECK(fz->pool[i], "sim_signal_create failed");
	}
	for (int i = 0; i < FZ_MAX_OWN; i++) {
		fz->own[i] = sim_signal_create(fz->sim, 1);
		FZ_CHECK(fz->own[i], "sim_signal_create failed");
	}
	for (int i = 0; i < 2; i++) {
		fz->ctl_sig[i] = sim_signal_create(fz->sim, 1);
		FZ_CHECK(fz->ctl_sig[i], "sim_signal_create failed");
	}
}

/* A dispatch of the control kernel on the control queue, with its own completion signal. */
static void control_submit(struct fz *fz)
{
	struct fz_q *q = fz->control;
	struct sim_signal *cs = fz->ctl_sig[fz->nctl++];
	union hsaqm_aql_packet p;
	struct hsaqm_aql_dispatch_desc d = {
		.dims = 1,
		.workgroup_size = { 64, 1, 1 },
		.grid_size = { FZ_CONTROL_WGS * 64, 1, 1 },
		.kernel_object = fz->kobj[FZ_K_NOCB + 1],
		.acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
		.release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
	};

	d.completion_signal = sig_handle(cs);
	memset(&p, 0, sizeof(p));
	FZ_CHECK(hsaqm_aql_dispatch_build(&p, &d) == 0, "dispatch build");
	FZ_CHECK(fz->nrecs < FZ_MAX_RECS, "no record left for the control queue");
	uint64_t idx = reserve(q, 1);
	write_packet(fz, q, idx, &p, cs);
	ring_doorbell(q, idx);
}

static void final_phase(struct fz *fz)
{
	struct fz_rec *ctl[2];
	uint32_t n = 0;

	control_submit(fz);
	for (uint32_t i = 0; i < fz->nrecs; i++)
		if (fz->recs[i].q == fz->control)
			ctl[n++] = &fz->recs[i];
	FZ_CHECK(n == 2, "the control queue has %u packets", n);
	uint64_t start = hsaqm_sim_now_ns(fz->sim);
	while (sim_signal_load(ctl[0]->own) || sim_signal_load(ctl[1]->own)) {
		FZ_CHECK(hsaqm_sim_now_ns(fz->sim) - start < FZ_FINAL_MAX_NS,
		         "the control queue did not finish within %llu us of model time (signals "
		         "%" PRId64 ", %" PRId64 ")",
		         FZ_FINAL_MAX_NS / FZ_US, sim_signal_load(ctl[0]->own),
		         sim_signal_load(ctl[1]->own));
		FZ_CHECK(hsaqm_sim_advance(fz->sim, FZ_FINAL_STEP_NS) == 0, "hsaqm_sim_advance "
		                                                            "failed");
		check_all(fz);
	}
	check_all(fz);
	for (int i = 0; i < 2; i++)
		FZ_CHECK(ctl[i]->cb_count == FZ_CONTROL_WGS,
		         "control dispatch %d ran %" PRIu64 " workgroups", i, ctl[i]->cb_count);
	for (uint32_t i = 0; i < fz->nqs; i++)
		if (fz->qs[i].live)
			check_order(fz, &fz->qs[i]);
}

static void trace_op(struct fz *fz, uint8_t op)
{
	fprintf(stderr, "op %u (%u) at %" PRIu64 " ns, %" PRIu64 " callbacks:", fz->stats.ops - 1,
	        op % FZ_NOPS, hsaqm_sim_now_ns(fz->sim) - fz->t0, fz->stats.callbacks);
	for (uint32_t i = 0; i < fz->nqs; i++) {
		struct fz_q *q = &fz->qs[i];
		struct sim_hwq_info info;

		if (!q->live || sim_hwq_get_info(q->hwq, &info))
			continue;
		/* The write index for a report (acquire: reserve()'s increment). */
		fprintf(stderr,
		        " q%u[st %d rd %" PRIu64 " wr %" PRIu64 " l %" PRIu64 " c %" PRIu64
		        " run %" PRIu64 "%s%s%s]",
		        q->serial, (int)info.state, q->last_rd, hsaqm_load_acquire(q->wr),
		        info.dispatches_launched, info.packets_completed, info.workgroups_running,
		        q->clean ? " clean" : "", q->anomalous ? " anom" : "",
		        frozen(q) ? " frozen" : "");
	}
	fputc('\n', stderr);
}

static void teardown(struct fz *fz)
{
	g_last = fz->stats;
	g_last.model_ns = fz->sim ? hsaqm_sim_now_ns(fz->sim) : 0;
	hsaqm_sim_destroy(fz->sim);
	fz->sim = NULL;
	for (uint32_t i = 0; i < fz->nrecs; i++)
		free(fz->recs[i].seen);
}

static void timing_unlink(void)
{
	if (g_timing_path[0])
		unlink(g_timing_path);
}

/*
 * The tight configuration: with 2 HQD slots the control queue and up to 3 fuzz queues
 * oversubscribe the HWS (time slices, map/unmap with CWSR); 2 launch slots per queue and a
 * non-zero default grace period reach the paths the MI308X defaults rarely do.
 */
static void timing_write(void)
{
	static const char text[] = "hqd_slots 2  # fuzz: oversubscribed\n"
				   "hws_quantum_ns 40000  # fuzz: short slices\n"
				   "max_inflight_dispatches 2  # fuzz\n"
				   "hws_default_grace_units 10  # fuzz\n";
	char path[] = "/tmp/hsaqm-fuzz-timing-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return;
	if (write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1)) {
		snprintf(g_timing_path, sizeof(g_timing_path), "%s", path);
		atexit(timing_unlink);
	} else {
		unlink(path);
	}
	close(fd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!g_timing_path[0])
		timing_write();
	/* A small arena: the model maps one per input (16 MiB is its minimum). */
	setenv("HSAQM_SIM_ARENA_MB", "16", 0);
	g_verbose = getenv("FZ_VERBOSE") && *getenv("FZ_VERBOSE") == '1';
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz *fz = &g_fz;

	memset(fz, 0, sizeof(*fz));
	fz->in = data;
	fz->left = size;
	uint8_t cfgb = in_u8(fz);
	unsigned int nq = 1 + (cfgb & 3u) % 3u;

	setup(fz, cfgb);
	/* The control queue: created first, highest priority, never touched by the program. */
	fz->control = &fz->qs[fz->nqs++];
	q_create(fz, fz->control, 15, 16, true);
	for (unsigned int i = 0; i < nq; i++) {
		uint8_t qb = in_u8(fz);
		struct fz_q *q = &fz->qs[fz->nqs++];

		q_create(fz, q, qb & 15u, 4u << ((qb >> 4) % 5u), false);
		fz->slot[i] = q;
	}
	control_submit(fz);
	fz->t0 = hsaqm_sim_now_ns(fz->sim);
	check_all(fz);
	while (fz->left && fz->stats.ops < FZ_MAX_OPS && budget_left(fz)) {
		uint8_t op = in_u8(fz);

		run_op(fz, op);
		fz->stats.ops++;
		check_all(fz);
		if (g_verbose)
			trace_op(fz, op);
	}
	final_phase(fz);
	teardown(fz);
	return 0;
}

void fz_last_stats(struct fz_stats *out)
{
	*out = g_last;
}
