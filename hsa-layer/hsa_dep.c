/* SPDX-License-Identifier: MIT */
/*
 * hsa_dep.c - the HSA backend's side of dependencies between queues (docs/hsa-backend.md
 * "Dependencies"; lib's rules in docs/lib.md "Dependencies and priority inheritance").
 *
 * HIP makes one stream wait on another with an AQL barrier-AND on a completion signal that a
 * packet of the other stream's queue decrements (hipStreamWaitEvent, graph edges, the
 * collectives' stream joins), and hipStreamWaitValue with an AMD barrier-value packet. The
 * doorbell scan already reads every packet the application publishes; here it also
 *
 *   - notes, for every packet with a completion signal, which queue and packet will fire it:
 *     a per-runtime table keyed by the signal handle (the newest packet that names a signal
 *     is the one a later wait on it waits for);
 *   - and for every waiting packet whose condition does not hold yet, tells lib what it waits
 *     on (hsaqm_xq_depend()): the producer's queue and packet from the table, or nobody (a
 *     signal the host or another process sets, memory a kernel writes: only the bound then).
 *
 * The table is lossy by design: a slot another signal took since only turns a wait into an
 * unattributed one, which the bound still keeps from hanging. It is written by the doorbells
 * of every queue of the process at once, without a lock or a locked instruction (this is the
 * dispatch path): a slot is two words, the signal and (queue, packet) packed, each stored
 * whole; the writer invalidates the signal word first and publishes it last, and a reader
 * takes the pair only when it read the same signal before and after the packed word. The
 * only mix a reader can take is two producers of the same signal racing, where either
 * answer is one of its producers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hsa_backend_internal.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-common/log.h"

static uint32_t slot_of(uint64_t handle)
{
	/* Signals are 64-byte objects or small ids: mix the bits so neighbours spread. */
	uint64_t h = handle * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32) & (HSAQM_HSA_DEP_SLOTS - 1);
}

void hsaqm_hsa_dep_note(struct hsaqm_hsa_rt_private *rtp, uint64_t signal, uint32_t xq_id,
			uint64_t upto)
{
	struct hsaqm_hsa_dep_slot *s = &rtp->producers[slot_of(signal)];

	if (xq_id > HSAQM_HSA_DEP_ID_MAX || upto >> (64 - HSAQM_HSA_DEP_ID_BITS))
		return; /* not representable: this producer stays unknown */
	/* Relaxed: a reader that sees 0 here, or a signal that changes, drops the slot. */
	HSAQM_WRITE_ONCE(s->handle, 0);
	/*
	 * Release: whoever acquires this packed word also sees the 0 above (or what followed
	 * it), so a reader that took a packed word of ours never re-reads the old signal.
	 */
	hsaqm_store_release(&s->packed, (upto << HSAQM_HSA_DEP_ID_BITS) | xq_id);
	/* Release: the packed word before the signal a reader checks it against. */
	hsaqm_store_release(&s->handle, signal);
}

bool hsaqm_hsa_dep_find(struct hsaqm_hsa_rt_private *rtp, uint64_t signal, uint32_t *xq_id,
			uint64_t *upto)
{
	struct hsaqm_hsa_dep_slot *s = &rtp->producers[slot_of(signal)];
	uint64_t packed;

	/* Acquire: pairs with the writer's release of the signal: its packed word is there. */
	if (hsaqm_load_acquire(&s->handle) != signal)
		return false;
	/* Acquire: pairs with the packed word's release (see hsaqm_hsa_dep_note()). */
	packed = hsaqm_load_acquire(&s->packed);
	/* Relaxed after the acquire above: a writer that replaced the pair changed the signal. */
	if (HSAQM_READ_ONCE(s->handle) != signal || !(packed & HSAQM_HSA_DEP_ID_MAX))
		return false;
	*xq_id = (uint32_t)(packed & HSAQM_HSA_DEP_ID_MAX);
	*upto = packed >> HSAQM_HSA_DEP_ID_BITS;
	return true;
}

static bool value_holds(hsaqm_hsa_signal_value_t v, const struct hsaqm_aql_barrier_value *b)
{
	int64_t x = v & b->mask;

	switch (b->cond) {
	case HSAQM_AQL_COND_EQ:
		return x == b->value;
	case HSAQM_AQL_COND_NE:
		return x != b->value;
	case HSAQM_AQL_COND_LT:
		return x < b->value;
	default:
		return x >= b->value;
	}
}

uint32_t hsaqm_hsa_dep_pending(const struct hsaqm_hsa_runtime *rt, const union hsaqm_aql_packet *pkt,
			       uint32_t type)
{
	uint32_t mask = 0;

	if (type == HSAQM_AQL_TYPE_BARRIER_AND || type == HSAQM_AQL_TYPE_BARRIER_OR) {
		for (uint32_t i = 0; i < HSAQM_AQL_MAX_DEPS; i++) {
			struct hsaqm_hsa_signal sig = { pkt->barrier.dep_signal[i] };

			if (!sig.handle)
				continue;
			if (rt->signal_load_relaxed(sig) == 0) {
				/* OR: one satisfied dependency is enough; AND: this one is done. */
				if (type == HSAQM_AQL_TYPE_BARRIER_OR)
					return 0;
				continue;
			}
			mask |= 1u << i;
		}
	} else if (type == HSAQM_AQL_TYPE_VENDOR &&
		   pkt->barrier_value.amd_format == HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE &&
		   pkt->barrier_value.signal) {
		struct hsaqm_hsa_signal sig = { pkt->barrier_value.signal };

		if (!value_holds(rt->signal_load_relaxed(sig), &pkt->barrier_value))
			mask = 1u;
	}
	return mask;
}

/* The signal the pending dependency @i of @pkt waits on. */
static uint64_t dep_signal(const union hsaqm_aql_packet *pkt, uint32_t type, uint32_t i)
{
	return type == HSAQM_AQL_TYPE_VENDOR ? pkt->barrier_value.signal : pkt->barrier.dep_signal[i];
}

void hsaqm_hsa_dep_scan_wait(struct hsaqm_hsa_proxy *p, const union hsaqm_aql_packet *pkt,
			     uint32_t type, uint64_t index)
{
	uint32_t pending = hsaqm_hsa_dep_pending(p->rt, pkt, type);

	for (uint32_t i = 0; pending; i++, pending >>= 1) {
		struct hsaqm_dep dep = { .index = index };

		if (!(pending & 1))
			continue;
		if (hsaqm_hsa_dep_find(p->rtp, dep_signal(pkt, type, i), &dep.on_id, &dep.upto) &&
		    dep.on_id == p->dep_id)
			continue; /* its own earlier packet: the queue runs in order anyway */
		hsaqm_xq_depend(p->xq, &dep);
	}
}

void hsaqm_hsa_dep_released(struct hsaqm_hsa_proxy *p, const union hsaqm_aql_packet *pkt,
			    uint32_t word, uint64_t hw_index)
{
	uint32_t type = word & HSAQM_AQL_FIELD_MASK(HSAQM_AQL_HEADER_TYPE_WIDTH);
	struct hsaqm_hsa_wait_rec *r;

	if (type != HSAQM_AQL_TYPE_BARRIER_AND && type != HSAQM_AQL_TYPE_BARRIER_OR &&
	    type != HSAQM_AQL_TYPE_VENDOR)
		return;
	if (!p->waits) {
		/* Only queues that ever wait pay for the records. */
		p->waits = calloc(HSAQM_HSA_WAIT_RECS, sizeof(*p->waits));
		if (!p->waits)
			return; /* unknown heads count as not waiting: the bound sees no stall */
	}
	r = &p->waits[p->waits_next++ % HSAQM_HSA_WAIT_RECS];
	r->hw_index = hw_index;
	r->type = type;
	r->used = 1;
	/* The body as it went out, so the head can be judged even after its slot is reused. */
	memcpy(&r->pkt, pkt, sizeof(r->pkt));
}

int hsaqm_hsa_dep_head_waits(struct hsaqm_hsa_proxy *p)
{
	uint64_t rd;

	if (!p->waits)
		return 0;
	/* Acquire: the packet processor's read index; what it has consumed it is done with. */
	rd = hsaqm_load_acquire((uint64_t *)(uintptr_t)&p->hw_amd->read_dispatch_id);
	for (uint32_t i = 0; i < HSAQM_HSA_WAIT_RECS; i++) {
		const struct hsaqm_hsa_wait_rec *r = &p->waits[i];

		/*
		 * At it (the model keeps a waiting barrier at the read index) or just past it (a
		 * packet processor that consumes the packet before it waits): either way the
		 * queue goes on only once the condition holds.
		 */
		if (r->used && (r->hw_index == rd || r->hw_index + 1 == rd) &&
		    hsaqm_hsa_dep_pending(p->rt, &r->pkt, r->type))
			return 1;
	}
	return 0;
}
