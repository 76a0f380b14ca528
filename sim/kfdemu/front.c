// SPDX-License-Identifier: MIT
/*
 * front.c - the CP's front end of the emulated /dev/kfd: it reads the runtime's AQL rings and
 * feeds the model.
 *
 * A runtime's AQL queue is its own ring and amd_queue_t (memory it allocated through the KFD),
 * carrying packets whose kernel objects are code-object kernel descriptors and whose signals
 * are ROCr amd_signal_t. The model's packet processor knows neither: it runs registered model
 * kernels and its own signals. So each runtime queue gets a *shadow* ring in model memory
 * (same size), and one translator thread per process plays the front of the CP. The queue
 * itself is a KFD queue of the model's KFD face made with the runtime's ring, as CREATE_QUEUE
 * asked, whose packet processor runs the shadow ring (a "front", sim/kfd_face_internal.h): so
 * DBG_TRAP suspend, UPDATE_QUEUE, GET_QUEUE_SNAPSHOT and kfd/proc know the runtime's queues,
 * and hsaqm's Lv3 can preempt them. The translator:
 *
 *   - notices new packets by looking at every queue's write index and slot headers: a
 *     doorbell store is a plain store into a page of memory, which nothing can trap, so it
 *     polls. Every 50 us while any queue saw activity in the last 20 ms or waits on a
 *     barrier, every 1 ms when idle (assumption: both are the emulation's choice; a runtime
 *     about to sleep in WAIT_EVENTS kicks it at once, so "submit, then wait" does not pay
 *     the period);
 *   - a kernel dispatch is copied with its kernel object replaced by the model kernel of the
 *     same name (kernel.c) and its completion signal by a model signal; when the model
 *     decrements that signal, an async handler writes the start/end timestamps into the
 *     runtime's signal, decrements its value and, when the signal names an event mailbox,
 *     writes the event id there and raises the interrupt (what the CP's end of pipe does);
 *   - a barrier-AND/OR (and AMD BARRIER_VALUE) is read where a CP reads it: once the model's
 *     packet processor has reached it (every earlier packet launched and, with its barrier
 *     bit, completed). One whose signals are satisfied when the translator first sees it goes
 *     to the model at once with model signals (mirrors) in place of the runtime's, which the
 *     translator keeps equal to them at every pass until the model took the packet (the
 *     host may write the runtime's signals at any time, unseen by the model); one that is not
 *     satisfied waits here until the model reached it, then until satisfied, and goes as a
 *     barrier-AND with no dependencies, keeping its header bits and completion signal;
 *   - a PM4 indirect-buffer packet (ROCr's code cache invalidation) becomes an empty
 *     barrier-AND: the caches it invalidates are not modelled;
 *   - the consumed runtime slot gets an INVALID header and the runtime's read index moves
 *     past it, as the CP does; the model's own read index trails it (the translator never
 *     gets more than a ring ahead of the model).
 * Indices match one to one: the runtime's packet i is the shadow ring's packet i.
 * SDMA queues are run by the same thread (sdma.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hsa/hsa.h>
#include <hsa/amd_hsa_queue.h>
#include <hsa/amd_hsa_signal.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-kfd/kfd_transport.h"
#include "hsaqm-kfd/kfd_uapi.h"
#include "hsaqm-sim/sim.h"
#include "kfd_face_internal.h"
#include "kfdemu_internal.h"
#include "hsaqm-common/log.h"
#include "sim_internal.h"

#define FRONT_POLL_ACTIVE_NS 50000ull  /* assumption, see above */
#define FRONT_POLL_IDLE_NS 1000000ull  /* assumption */
#define FRONT_ACTIVE_WINDOW_NS 20000000ull

/* A model completion signal standing for one ROCr signal of one packet in flight. */
struct comp {
	struct sim_signal *s;
	amd_signal_t *target; /* NULL once its queue is destroyed */
	struct tqueue *q;
	struct comp *prev, *next; /* the queue's in-flight list, or the free list (next) */
};

/*
 * A barrier packet handed to the model before its packet processor got there, its signals
 * satisfied at the time: the model's packet waits on model signals (mirrors) that the
 * translator keeps equal to the runtime's signals until the model has taken the packet.
 */
struct pending {
	uint64_t index;
	uint16_t hdr;
	union hsaqm_aql_packet pkt;  /* the runtime's packet: its signals, its condition */
	unsigned int n;
	uint64_t rocr[HSAQM_AQL_MAX_DEPS];
	struct sim_signal *mirror[HSAQM_AQL_MAX_DEPS];
};

struct tqueue {
	int handle;               /* the KFD handle it was created on */
	unsigned int dev;
	/* the runtime's side */
	uint8_t *ring;
	uint32_t nslots;
	volatile uint64_t *wptr;
	volatile uint64_t *rptr;
	uint64_t rptr_va;         /* the read pointer's GPU address (amd_queue_t's field) */
	uint64_t next;            /* next ROCr index to translate */
	uint64_t base;            /* the index the queue started at (the model counts from it) */
	bool blocked;             /* a barrier waits for the head of the queue or its signals */
	bool blocked_logged;      /* that wait was logged (debug) */
	/*
	 * Barrier packets that reached the head and found their signals unsatisfied: each held
	 * the queue (what an hsaqm Lv2 guardian does on a closed gate). For the report.
	 */
	uint32_t priority;        /* its KFD priority (UPDATE_QUEUE changes it), for the report */
	uint64_t holds;
	uint64_t held_ns;         /* model time the holds lasted, the one in force excluded */
	uint64_t hold_at;         /* index + 1 of the packet holding the queue now, 0: none */
	uint64_t hold_since;      /* model time it started holding */
	/* Barriers handed over before the model reached them, with mirrors (barrier_mirror()). */
	struct pending *pend;
	unsigned int npend, cappend;
	/* the model's side */
	union hsaqm_aql_packet *shadow;
	uint64_t *shadow_wptr, *shadow_rptr; /* model memory */
	struct sim_hwq *hwq;
	uint32_t kfd_id;          /* the queue's id in the model's KFD face */
	struct kfdemu_sdma *sdma; /* an SDMA queue: its engine (the fields above unused) */
	struct comp *inflight;
	struct tqueue *link;
};

static struct {
	pthread_mutex_t lock;     /* the queue list; translation runs under it */
	struct tqueue *queues;

	pthread_mutex_t wake_lock;
	pthread_cond_t wake;
	bool kick, stop, running;
	pthread_t thread;

	struct sim_signal **free_mirrors; /* under lock */
	size_t nmirrors, capmirrors;

	pthread_mutex_t comp_lock;
	struct comp *free_comps;
	size_t nfree;
	struct comp **all_comps;  /* every comp ever made, freed at close */
	size_t ncomps, capcomps;
} tq = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake_lock = PTHREAD_MUTEX_INITIALIZER,
	.comp_lock = PTHREAD_MUTEX_INITIALIZER,
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void kfdemu_front_kick(void)
{
	pthread_mutex_lock(&tq.wake_lock);
	tq.kick = true;
	if (tq.running)
		pthread_cond_signal(&tq.wake);
	pthread_mutex_unlock(&tq.wake_lock);
}

/* ------------------------------------------------------------------------------------
 * Completions
 */

static void comp_recycle(struct comp *c);

/* Model handler thread: the model completed the packet; complete it for ROCr. */
static bool comp_done(int64_t value, void *arg)
{
	struct comp *c = arg;

	pthread_mutex_lock(&tq.comp_lock);
	amd_signal_t *t = c->target;

	/* t is NULL for a signal the front added only to be told (translate()). */
	if (t) {
		/* Plain stores: the release of the decrement below publishes them. */
		t->start_ts = (uint64_t)c->s->start_ts;
		t->end_ts = (uint64_t)c->s->end_ts;
		/* Release: the packet's effects and timestamps before the value ROCr waits on. */
		hsaqm_fetch_sub((int64_t *)&t->value, 1);
		if (t->event_mailbox_ptr)
			kfdemu_event_fire(t->event_mailbox_ptr, t->event_id);
	}
	comp_recycle(c);
	pthread_mutex_unlock(&tq.comp_lock);
	/* A barrier may wait on the signal just completed. */
	kfdemu_front_kick();
	return false;
}

/* Called with tq.comp_lock held: @c leaves its queue's in-flight list for the free list. */
static void comp_recycle(struct comp *c)
{
	if (c->q) {
		if (c->prev)
			c->prev->next = c->next;
		else
			c->q->inflight = c->next;
		if (c->next)
			c->next->prev = c->prev;
	}
	c->q = NULL;
	c->target = NULL;
	c->prev = NULL;
	c->next = tq.free_comps;
	tq.free_comps = c;
	tq.nfree++;
}

/* A model signal at 1 that completes ROCr signal @handle when the model decrements it. */
static struct sim_signal *comp_get(struct hsaqm_sim *sim, struct tqueue *q, uint64_t handle)
{
	struct comp *c;

	pthread_mutex_lock(&tq.comp_lock);
	c = tq.free_comps;
	if (c) {
		tq.free_comps = c->next;
		tq.nfree--;
	} else {
		if (tq.ncomps == tq.capcomps) {
			size_t cap = tq.capcomps ? tq.capcomps * 2 : 64;
			struct comp **a = realloc(tq.all_comps, cap * sizeof(*a));

			if (!a)
				goto fail;
			tq.all_comps = a;
			tq.capcomps = cap;
		}
		c = calloc(1, sizeof(*c));
		if (!c)
			goto fail;
		c->s = sim_signal_create(sim, 1);
		if (!c->s) {
			free(c);
			goto fail;
		}
		tq.all_comps[tq.ncomps++] = c;
	}
	sim_signal_store(sim, c->s, 1);
	c->target = (amd_signal_t *)(uintptr_t)handle;
	c->q = q;
	c->prev = NULL;
	c->next = q->inflight;
	if (q->inflight)
		q->inflight->prev = c;
	q->inflight = c;
	pthread_mutex_unlock(&tq.comp_lock);
	if (sim_signal_async_handler(sim, c->s, SIM_COND_LT, 1, comp_done, c)) {
		hsaqm_log_err("kfdemu: cannot watch a completion signal");
		pthread_mutex_lock(&tq.comp_lock);
		comp_recycle(c);
		pthread_mutex_unlock(&tq.comp_lock);
		return NULL; /* the packet then carries ROCr's handle: the model reports it */
	}
	return c->s;
fail:
	pthread_mutex_unlock(&tq.comp_lock);
	return NULL;
}

/* ------------------------------------------------------------------------------------
 * Translation
 */

static int64_t rocr_value(uint64_t handle)
{
	/* Acquire: what the signal's writer did before its store is visible after this load. */
	return hsaqm_load_acquire((int64_t *)&((amd_signal_t *)(uintptr_t)handle)->value);
}

static bool cond_holds(uint32_t cond, int64_t v, int64_t cmp)
{
	switch (cond) {
	case HSAQM_AQL_COND_EQ: return v == cmp;
	case HSAQM_AQL_COND_NE: return v != cmp;
	case HSAQM_AQL_COND_LT: return v < cmp;
	case HSAQM_AQL_COND_GTE: return v >= cmp;
	}
	return true; /* the model reports the bad condition */
}

/* True when a barrier packet's dependencies let it complete. */
static bool barrier_ready(const union hsaqm_aql_packet *p, unsigned int type)
{
	if (type == HSAQM_AQL_TYPE_VENDOR) {
		const struct hsaqm_aql_barrier_value *b = &p->barrier_value;

		return !b->signal || cond_holds(b->cond, rocr_value(b->signal) & b->mask, b->value);
	}
	bool any = false, all = true, some = false;

	for (unsigned int i = 0; i < HSAQM_AQL_MAX_DEPS; i++) {
		uint64_t h = p->barrier.dep_signal[i];

		if (!h)
			continue;
		some = true;
		if (rocr_value(h) == 0)
			any = true;
		else
			all = false;
	}
	if (type == HSAQM_AQL_TYPE_BARRIER_AND)
		return all;
	return any || !some; /* an OR with no dependency never completes; keep it to the model */
}

/* Does the barrier packet name a signal to look at (else it is ready wherever it is)? */
static bool barrier_has_deps(const union hsaqm_aql_packet *p, unsigned int type)
{
	if (type == HSAQM_AQL_TYPE_VENDOR)
		return p->barrier_value.signal != 0;
	for (unsigned int i = 0; i < HSAQM_AQL_MAX_DEPS; i++)
		if (p->barrier.dep_signal[i])
			return true;
	return false;
}

/*
 * Has the model's packet processor reached packet @i of @q, as a CP reaches the packet whose
 * signals it then looks at: every earlier packet launched (the shadow's read index is @i)
 * and, when @hdr has the barrier bit, every earlier packet completed? A barrier's signals
 * read any earlier are read too early: the translator runs up to a ring ahead of the model,
 * so a gate the host closes while earlier kernels still run (hsaqm's Lv2 guardian, a
 * barrier-AND on a gate signal) would be found open and let the kernels behind it launch.
 */
static bool barrier_at_head(struct tqueue *q, uint64_t i, uint16_t hdr)
{
	struct sim_hwq_info info;

	/* Acquire: pairs with the model's release of its read index (pp.c consume()). */
	if (hsaqm_load_acquire(q->shadow_rptr) < i)
		return false;
	if (!(hdr & (1u << HSAQM_AQL_HEADER_BARRIER_SHIFT)))
		return true;
	/*
	 * The model counts every packet it completed since the queue was made; nothing past @i is
	 * in its ring yet, so "all of the i - base consumed ones completed" is stable once true.
	 */
	if (sim_hwq_get_info(q->hwq, &info))
		return true; /* no count to wait on: the model still orders by the barrier bit */
	return info.packets_completed >= i - q->base;
}

/*
 * May barrier packet @i of @q go to the model now: no signal to look at, or at the head of
 * the queue with its signals satisfied? Counts the packets that held the queue at the head.
 */
static bool barrier_passes(struct hsaqm_sim *sim, struct tqueue *q, uint64_t i,
			   const union hsaqm_aql_packet *p, unsigned int type, uint16_t hdr)
{
	if (!barrier_has_deps(p, type))
		return barrier_ready(p, type);
	if (!barrier_at_head(q, i, hdr))
		return false;
	bool ready = barrier_ready(p, type);

	if (!ready && q->hold_at != i + 1) {
		q->hold_at = i + 1;
		q->holds++;
		q->hold_since = hsaqm_sim_now_ns(sim);
	} else if (ready && q->hold_at == i + 1) {
		q->held_ns += hsaqm_sim_now_ns(sim) - q->hold_since;
		q->hold_at = 0;
	}
	return ready;
}

static void empty_barrier(union hsaqm_aql_packet *out, uint16_t hdr, uint64_t completion);
static uint64_t map_completion(struct hsaqm_sim *sim, struct tqueue *q, uint64_t handle);

/*
 * Called with tq.lock held: a model signal to stand for runtime signal @handle. In this
 * process's own model the packet processor reads the runtime's value through it when it
 * evaluates the barrier, as a CP reads memory: a gate the host closes between two passes
 * of the translator still holds (a guardian is such a barrier). A shared device process
 * cannot read this process's memory: there it carries the value the passes give it.
 */
static struct sim_signal *mirror_get(struct hsaqm_sim *sim, uint64_t handle)
{
	int64_t v = rocr_value(handle);
	struct sim_signal *m = tq.nmirrors ? tq.free_mirrors[--tq.nmirrors] :
					     sim_signal_create(sim, v);

	if (m) {
		sim_signal_store(sim, m, v);
		if (!kfdemu_shared())
			sim_signal_set_external(m, (const int64_t *)(uintptr_t)&((amd_signal_t *)(uintptr_t)handle)->value);
	}
	return m;
}

/* Called with tq.lock held: the model has taken @pd's packet; its mirrors are free again. */
static void mirrors_put(struct pending *pd)
{
	for (unsigned int k = 0; k < pd->n; k++) {
		if (tq.nmirrors == tq.capmirrors) {
			size_t cap = tq.capmirrors ? tq.capmirrors * 2 : 64;
			struct sim_signal **a = realloc(tq.free_mirrors, cap * sizeof(*a));

			if (!a)
				return; /* a few model signals lost, nothing wrong */
			tq.free_mirrors = a;
			tq.capmirrors = cap;
		}
		sim_signal_set_external(pd->mirror[k], NULL);
		tq.free_mirrors[tq.nmirrors++] = pd->mirror[k];
	}
	pd->n = 0;
}

/*
 * Hand barrier @p (packet @i, signals satisfied now, the model not there yet) to the model
 * with mirrors in place of its signals, so the translator can go on with the packets behind
 * it and the model reads the barrier at its head with no round trip through this thread.
 * The mirrors follow the runtime's signals at every pass (pending_refresh()): a signal the
 * host changes counts from the next pass, at most a polling period late (assumption, see
 * the top). False when no mirror could be had: the barrier then waits for the head.
 */
static bool barrier_mirror(struct hsaqm_sim *sim, struct tqueue *q, uint64_t i,
			   const union hsaqm_aql_packet *p, unsigned int type, uint16_t hdr,
			   union hsaqm_aql_packet *out)
{
	if (q->npend == q->cappend) {
		unsigned int cap = q->cappend ? q->cappend * 2 : 16;
		struct pending *a = realloc(q->pend, cap * sizeof(*a));

		if (!a)
			return false;
		q->pend = a;
		q->cappend = cap;
	}
	struct pending *pd = &q->pend[q->npend];
	uint64_t *deps = type == HSAQM_AQL_TYPE_VENDOR ? &out->barrier_value.signal :
							  out->barrier.dep_signal;
	unsigned int ndeps = type == HSAQM_AQL_TYPE_VENDOR ? 1 : HSAQM_AQL_MAX_DEPS;

	memset(pd, 0, sizeof(*pd));
	pd->index = i;
	pd->hdr = hdr;
	pd->pkt = *p;
	*out = *p;
	for (unsigned int k = 0; k < ndeps; k++) {
		if (!deps[k])
			continue;
		struct sim_signal *m = mirror_get(sim, deps[k]);

		if (!m) {
			mirrors_put(pd);
			return false;
		}
		pd->rocr[pd->n] = deps[k];
		pd->mirror[pd->n++] = m;
		deps[k] = (uint64_t)(uintptr_t)m;
	}
	/* Every AQL packet has its completion signal at byte 56. */
	out->u64[7] = map_completion(sim, q, p->u64[7]);
	q->npend++;
	return true;
}

/*
 * Called with tq.lock held, before translate(): the model took some pending barriers (their
 * mirrors are free); the others' mirrors get the runtime's signals' values now. A pending
 * barrier the model reached and finds unsatisfied holds the queue (counted as in
 * barrier_passes()). True while any barrier is pending.
 */
static bool pending_refresh(struct hsaqm_sim *sim, struct tqueue *q)
{
	/* Acquire: pairs with the model's release of its read index. */
	uint64_t rd = hsaqm_load_acquire(q->shadow_rptr);
	unsigned int keep = 0;

	for (unsigned int j = 0; j < q->npend; j++) {
		struct pending *pd = &q->pend[j];

		if (rd > pd->index) {
			if (q->hold_at == pd->index + 1) {
				q->held_ns += hsaqm_sim_now_ns(sim) - q->hold_since;
				q->hold_at = 0;
			}
			mirrors_put(pd);
			continue;
		}
		/*
		 * The model at this barrier and the runtime's signals satisfy it now: wake it
		 * whatever the stand-ins hold (with the runtime's value read through them, a gate
		 * closed and opened between two passes leaves their own values unchanged).
		 */
		bool wake = barrier_at_head(q, pd->index, pd->hdr) &&
			    barrier_ready(&pd->pkt, pd->hdr & 0xffu);

		for (unsigned int k = 0; k < pd->n; k++) {
			int64_t v = rocr_value(pd->rocr[k]);

			/* Acquire: the stand-in's own value, which the passes set (not the runtime's). */
			if (wake || hsaqm_load_acquire(&pd->mirror[k]->value) != v)
				sim_signal_store(sim, pd->mirror[k], v);
		}
		if (q->hold_at != pd->index + 1 &&
		    !barrier_ready(&pd->pkt, pd->hdr & 0xffu) &&
		    barrier_at_head(q, pd->index, pd->hdr)) {
			q->hold_at = pd->index + 1;
			q->holds++;
			q->hold_since = hsaqm_sim_now_ns(sim);
		}
		if (keep != j)
			q->pend[keep] = *pd;
		keep++;
	}
	q->npend = keep;
	return keep != 0;
}

/*
 * Barrier packet @p (@i of @q) to the model in @out, or false: it waits here. At the head of
 * the queue its signals decide, read now; before it, a barrier whose signals are satisfied
 * goes with mirrors (barrier_mirror()); one that is not waits for the head.
 */
static bool barrier_route(struct hsaqm_sim *sim, struct tqueue *q, uint64_t i,
			  const union hsaqm_aql_packet *p, unsigned int type, uint16_t hdr,
			  union hsaqm_aql_packet *out)
{
	uint64_t cs = type == HSAQM_AQL_TYPE_VENDOR ? p->barrier_value.completion_signal :
						      p->barrier.completion_signal;

	/* Without a mirror (no memory) it waits for the head, where its signals are read. */
	if (barrier_has_deps(p, type) && !barrier_at_head(q, i, hdr) && barrier_ready(p, type))
		return barrier_mirror(sim, q, i, p, type, hdr, out);
	if (!barrier_passes(sim, q, i, p, type, hdr))
		return false;
	empty_barrier(out, hdr, map_completion(sim, q, cs));
	return true;
}

/* A barrier-AND with no dependencies, keeping @hdr's barrier and fence bits. */
static void empty_barrier(union hsaqm_aql_packet *out, uint16_t hdr, uint64_t completion)
{
	memset(out, 0, sizeof(*out));
	out->barrier.header = (uint16_t)((hdr & ~0xffu) | HSAQM_AQL_TYPE_BARRIER_AND);
	out->barrier.completion_signal = completion;
}

static uint64_t map_completion(struct hsaqm_sim *sim, struct tqueue *q, uint64_t handle)
{
	if (!handle)
		return 0;
	struct sim_signal *s = comp_get(sim, q, handle);

	/* A handle the model does not know makes the model stop the queue, as a GPU faults. */
	return s ? (uint64_t)(uintptr_t)s : handle;
}

/*
 * Is packet @j of @q, already published, a barrier with the barrier bit and signals to look
 * at? Then it will wait (barrier_at_head) for the packet before it to complete.
 */
static bool next_waits_for_completion(struct tqueue *q, uint64_t j)
{
	if (j >= *q->wptr)
		return false;
	const union hsaqm_aql_packet *p = (const void *)(q->ring + (j % q->nslots) * 64);
	/* Acquire: the producer writes the header last, with release. */
	uint16_t hdr = hsaqm_load_acquire(&p->common.header);
	unsigned int type = hdr & 0xffu;

	if (!(hdr & (1u << HSAQM_AQL_HEADER_BARRIER_SHIFT)))
		return false;
	if (type == HSAQM_AQL_TYPE_BARRIER_AND || type == HSAQM_AQL_TYPE_BARRIER_OR)
		return barrier_has_deps(p, type);
	return type == HSAQM_AQL_TYPE_VENDOR &&
	       p->barrier_value.amd_format == HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE &&
	       barrier_has_deps(p, type);
}

/* Translate what ROCr published on @q. Returns true if anything moved. Under tq.lock. */
static bool translate(struct hsaqm_sim *sim, struct tqueue *q)
{
	uint64_t first = q->next;

	q->blocked = false;
	for (;;) {
		uint64_t i = q->next;

		/* Relaxed is enough here: the header's acquire below orders the packet. */
		if (i >= *q->wptr)
			break;
		/* Acquire: the model consumed slot i - nslots before the translator reuses it. */
		if (i - hsaqm_load_acquire(q->shadow_rptr) >= q->nslots)
			break;
		union hsaqm_aql_packet *src = (union hsaqm_aql_packet *)(q->ring +
								       (i % q->nslots) * 64);
		/* Acquire: the producer writes the header last, with release. */
		uint16_t hdr = hsaqm_load_acquire(&src->common.header);
		unsigned int type = hdr & 0xffu;
		union hsaqm_aql_packet p, out;

		if (type == HSAQM_AQL_TYPE_INVALID)
			break;
		memcpy(&p, src, sizeof(p));
		p.common.header = hdr;
		out = p;
		switch (type) {
		case HSAQM_AQL_TYPE_KERNEL_DISPATCH: {
			const struct hsaqm_aql_dispatch *d = &p.dispatch;
			uint64_t h;

			/* The packet itself: a performed kernel's effect needs its grid (effect.c). */
			if (!kfdemu_kernel_resolve_dispatch(d, &h))
				out.dispatch.kernel_object = h;
			out.dispatch.completion_signal = map_completion(sim, q, d->completion_signal);
			break;
		}
		case HSAQM_AQL_TYPE_BARRIER_AND:
		case HSAQM_AQL_TYPE_BARRIER_OR:
			if (!barrier_route(sim, q, i, &p, type, hdr, &out)) {
				if (!q->blocked_logged)
					hsaqm_log_debug("kfdemu: queue %u packet %llu waits on %#llx=%lld "
							"%#llx=%lld", q->kfd_id, (unsigned long long)i,
							(unsigned long long)p.barrier.dep_signal[0],
							p.barrier.dep_signal[0] ?
								(long long)rocr_value(p.barrier.dep_signal[0]) : 0,
							(unsigned long long)p.barrier.dep_signal[1],
							p.barrier.dep_signal[1] ?
								(long long)rocr_value(p.barrier.dep_signal[1]) : 0);
				q->blocked_logged = true;
				q->blocked = true;
				goto stop;
			}
			q->blocked_logged = false;
			break;
		case HSAQM_AQL_TYPE_VENDOR:
			if (p.barrier_value.amd_format == HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE) {
				if (!barrier_route(sim, q, i, &p, type, hdr, &out)) {
					q->blocked = true;
					goto stop;
				}
			} else if (p.barrier_value.amd_format == 1) {
				/* AMD_AQL_FORMAT_PM4_IB: ROCr's cache invalidation, nothing to do */
				empty_barrier(&out, hdr, map_completion(sim, q, p.u64[7]));
			}
			break;
		default:
			break; /* agent dispatch, reserved types: the model reports them */
		}
		/*
		 * A packet without a completion signal followed by a barrier that will wait for it
		 * (an hsaqm guardian after a kernel) gets a model signal whose completion kicks the
		 * translator, so the barrier is looked at when the model completes the packet, not
		 * a polling period later. Every AQL packet has its completion signal at byte 56.
		 */
		unsigned int out_type = out.common.header & 0xffu;

		if (!out.u64[7] && (out_type == HSAQM_AQL_TYPE_KERNEL_DISPATCH ||
				    out_type == HSAQM_AQL_TYPE_BARRIER_AND) &&
		    next_waits_for_completion(q, i + 1)) {
			struct sim_signal *kick = comp_get(sim, q, 0);

			out.u64[7] = (uint64_t)(uintptr_t)kick;
		}
		union hsaqm_aql_packet *dst = &q->shadow[i % q->nslots];

		memcpy((uint8_t *)dst + 4, (uint8_t *)&out + 4, sizeof(out) - 4);
		/* Release: the packet body before its first word, as every AQL producer does. */
		hsaqm_store_release(&dst->u32[0], out.u32[0]);
		/* Release: consumed, as the CP resets it; then ROCr's read index passes it. */
		hsaqm_store_release(&src->u32[0], (uint32_t)HSAQM_AQL_TYPE_INVALID);
		q->next = i + 1;
		hsaqm_store_release(q->rptr, i + 1);
	}
stop:
	if (q->next == first)
		return false;
	/* Release: the shadow packets before the write index the model reads. */
	hsaqm_store_release(q->shadow_wptr, q->next);
	sim_hwq_doorbell(q->hwq, q->next - 1);
	return true;
}

static void *translator(void *arg)
{
	uint64_t last_activity = 0;

	for (;;) {
		struct hsaqm_sim *sim = kfdemu_sim();
		bool moved = false, blocked = false;
		/* A lost GPU's CP reads no ring and its DMA engines move nothing (kfd.c). */
		bool gone = kfdemu_kfd_lost();

		pthread_mutex_lock(&tq.lock);
		for (struct tqueue *q = tq.queues; sim && !gone && q; q = q->link) {
			if (q->sdma)
				continue;
			/* Pending mirrors need the active period: their signals may change. */
			blocked |= pending_refresh(sim, q);
			moved |= translate(sim, q);
			blocked |= q->blocked;
		}
		pthread_mutex_unlock(&tq.lock);
		/* Outside tq.lock: the engines have their own. */
		if (!gone)
			moved |= kfdemu_sdma_run(&blocked);
		uint64_t now = mono_ns();

		if (moved)
			last_activity = now;
		uint64_t period = blocked || now - last_activity < FRONT_ACTIVE_WINDOW_NS ?
					  FRONT_POLL_ACTIVE_NS : FRONT_POLL_IDLE_NS;
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += (long)period;
		if (ts.tv_nsec >= 1000000000l) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000l;
		}
		pthread_mutex_lock(&tq.wake_lock);
		while (!tq.kick && !tq.stop)
			if (pthread_cond_timedwait(&tq.wake, &tq.wake_lock, &ts) == ETIMEDOUT)
				break;
		bool stop = tq.stop;

		tq.kick = false;
		pthread_mutex_unlock(&tq.wake_lock);
		if (stop)
			break;
	}
	return NULL;
}

/* Called with tq.lock held. */
static int translator_start(void)
{
	pthread_condattr_t a;
	int err;

	if (tq.running)
		return 0;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&tq.wake, &a);
	pthread_condattr_destroy(&a);
	tq.stop = false;
	err = pthread_create(&tq.thread, NULL, translator, NULL);
	if (err)
		return -err;
	pthread_mutex_lock(&tq.wake_lock);
	tq.running = true;
	pthread_mutex_unlock(&tq.wake_lock);
	return 0;
}

/* ------------------------------------------------------------------------------------
 * Events: the end of pipe
 */

void kfdemu_event_fire(uint64_t mailbox, uint32_t id)
{
	/* The CP writes through the GPU's view of the mailbox: a bad address would fault. */
	uint64_t *slot = kfdemu_gpu_ptr(mailbox, sizeof(*slot));

	if (!slot) {
		hsaqm_log_warn("kfdemu: event mailbox %#llx is not runtime memory, interrupt dropped",
			       (unsigned long long)mailbox);
		return;
	}
	/* Release: the packet's effects and the signal's value before the slot the KFD reads. */
	hsaqm_store_release(slot, (uint64_t)id);
	sim_kfd_face_signal_interrupt(kfdemu_sim(), id);
}

/* ------------------------------------------------------------------------------------
 * Queue creation and destruction
 */

/* The model's error becomes the CP error code ROCr's DynamicScratchHandler<true> decodes. */
static int64_t cp_error_code(int hsa_status)
{
	switch (hsa_status) {
	case HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: return 2;    /* invalid dim */
	case HSA_STATUS_ERROR_INVALID_ALLOCATION: return 4;        /* invalid group memory */
	case HSA_STATUS_ERROR_INVALID_CODE_OBJECT: return 8;       /* invalid or NULL code */
	case HSA_STATUS_ERROR_INVALID_ARGUMENT: return 64;         /* group too large */
	case HSA_STATUS_ERROR_INVALID_SIGNAL: return 0x20000000;   /* a bad address: a fault */
	default: return 32;                                        /* invalid format */
	}
}

/* Model engine thread: the shadow queue stopped on a bad packet. Report it as the CP does. */
static void queue_error(void *ctx, struct sim_hwq *hwq, int hsa_status)
{
	struct tqueue *q = ctx;
	/* The read pointer ROCr names is its amd_queue_t's read_dispatch_id. */
	amd_queue_t *aq = kfdemu_gpu_ptr(q->rptr_va - offsetof(amd_queue_t, read_dispatch_id),
					 sizeof(*aq));

	(void)hwq;
	hsaqm_log_warn("kfdemu: queue %u stopped, status %#x", q->kfd_id, hsa_status);
	if (!aq ||
	    aq->read_dispatch_id_field_base_byte_offset != offsetof(amd_queue_t, read_dispatch_id))
		return;
	amd_signal_t *s = kfdemu_gpu_ptr(aq->queue_inactive_signal.handle, sizeof(*s));

	if (!s)
		return;
	int64_t zero = 0;

	/* Acq_rel CAS from 0: the first error stays, and ROCr's handler reads it after. */
	if (!hsaqm_cas((int64_t *)&s->value, &zero, cp_error_code(hsa_status)))
		return;
	if (s->event_mailbox_ptr)
		kfdemu_event_fire(s->event_mailbox_ptr, s->event_id);
}

static void free_shadow(struct hsaqm_sim *sim, struct tqueue *q)
{
	hsaqm_sim_mem_free(sim, q->shadow);
	hsaqm_sim_mem_free(sim, q->shadow_wptr);
}

/* The face's CREATE_QUEUE with @front for this thread's call. */
static int face_create(int handle, unsigned long request, void *a,
		       const struct sim_kfd_front *front)
{
	const struct hsaqm_kfd_transport *tp = kfdemu_kfd();
	int r;

	sim_kfd_face_front_next(front);
	r = tp->ioctl(tp->ctx, handle, request, a);
	sim_kfd_face_front_next(NULL);
	return r;
}

static int create_sdma(int handle, unsigned long request, struct hsaqm_kfd_create_queue_args *a,
		       struct tqueue *q)
{
	struct sim_kfd_front front = { .runs_all = true };
	int err;

	void *ring = kfdemu_gpu_ptr(a->ring_base_address, a->ring_size);
	uint64_t *rptr = kfdemu_gpu_ptr(a->read_pointer_address, 8);
	uint64_t *wptr = kfdemu_gpu_ptr(a->write_pointer_address, 8);

	/* What the engine reads must be GPU memory of the process (the KFD checks it too). */
	if (!ring || !rptr || !wptr)
		return -EFAULT;
	err = kfdemu_sdma_create(q->dev, ring, a->ring_size, rptr, wptr, &q->sdma);
	if (err)
		return err;
	err = face_create(handle, request, a, &front);
	if (err) {
		kfdemu_sdma_destroy(q->sdma, UINT32_MAX);
		q->sdma = NULL;
		return err;
	}
	kfdemu_sdma_set_id(q->sdma, a->queue_id);
	return 0;
}

static int create_aql(struct hsaqm_sim *sim, int handle, unsigned long request,
		      struct hsaqm_kfd_create_queue_args *a, struct tqueue *q)
{
	uint32_t size = a->ring_size;
	int err;

	/* The face checks the rest as the KFD does; the shadow needs a sane ring first. */
	if (size < 1024 || (size & (size - 1)) || !a->ring_base_address ||
	    !a->read_pointer_address || !a->write_pointer_address)
		return -EINVAL;
	/* The CP reads the ring and pointers through the GPU's view of the process's memory. */
	q->ring = kfdemu_gpu_ptr(a->ring_base_address, size);
	q->nslots = size / 64u;
	q->wptr = kfdemu_gpu_ptr(a->write_pointer_address, 8);
	q->rptr = kfdemu_gpu_ptr(a->read_pointer_address, 8);
	q->rptr_va = a->read_pointer_address;
	if (!q->ring || !q->wptr || !q->rptr)
		return -EFAULT; /* the face would refuse it: not memory of the process's GPU */
	q->shadow = hsaqm_sim_mem_alloc(sim, size, 4096);
	q->shadow_wptr = hsaqm_sim_mem_alloc(sim, 128, 64);
	if (!q->shadow || !q->shadow_wptr) {
		free_shadow(sim, q);
		return -ENOMEM;
	}
	q->shadow_rptr = q->shadow_wptr + 8; /* its own cache line */
	q->next = *q->rptr;
	q->base = q->next;
	*q->shadow_wptr = q->next;
	*q->shadow_rptr = q->next;
	for (uint32_t i = 0; i < q->nslots; i++)
		q->shadow[i].u32[0] = HSAQM_AQL_INVALID_WORD;

	struct sim_kfd_front front = {
		.ring = q->shadow, .write_ptr = q->shadow_wptr, .read_ptr = q->shadow_rptr,
		.error_fn = queue_error, .error_ctx = q,
	};

	err = face_create(handle, request, a, &front);
	if (err) {
		free_shadow(sim, q);
		return err;
	}
	q->hwq = sim_kfd_face_hwq(sim, handle, a->queue_id);
	return 0;
}

int kfdemu_front_create(int handle, unsigned long request, void *arg)
{
	struct hsaqm_kfd_create_queue_args *a = arg;
	struct hsaqm_sim *sim = kfdemu_sim();
	const struct hsaqm_kfd_transport *tp = kfdemu_kfd();
	struct tqueue *q;
	int dev, err;
	bool sdma;

	if (!sim || !tp)
		return -ENODEV;
	if (!a || _IOC_SIZE(request) < HSAQM_KFD_CREATE_QUEUE_ARGS_SIZE_1_11)
		return -EFAULT;
	dev = sim_kfd_gpu_dev(sim, a->gpu_id);
	sdma = a->queue_type == HSAQM_KFD_QUEUE_TYPE_SDMA ||
	       a->queue_type == HSAQM_KFD_QUEUE_TYPE_SDMA_XGMI ||
	       a->queue_type == HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID;
	/* Anything else (a bad gpu_id, PM4) gets the face's own answer. */
	if (dev < 0 || (!sdma && a->queue_type != HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL))
		return tp->ioctl(tp->ctx, handle, request, a);
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->handle = handle;
	q->dev = (unsigned int)dev;
	pthread_mutex_lock(&tq.lock);
	err = translator_start();
	pthread_mutex_unlock(&tq.lock);
	if (!err)
		err = sdma ? create_sdma(handle, request, a, q) : create_aql(sim, handle, request, a, q);
	if (err) {
		free(q);
		return err;
	}
	q->kfd_id = a->queue_id;
	q->priority = a->queue_priority;
	pthread_mutex_lock(&tq.lock);
	q->link = tq.queues;
	tq.queues = q;
	pthread_mutex_unlock(&tq.lock);
	kfdemu_report_add("queue-create kfd_queue %u gpu %u type %s kfd_priority %u percentage %u "
			  "ring_bytes %u", q->kfd_id, q->dev,
			  sdma ? "sdma" : "aql", a->queue_priority,
			  a->queue_percentage & HSAQM_KFD_QUEUE_PERCENTAGE_MASK, a->ring_size);
	kfdemu_front_kick();
	return 0;
}

/*
 * The model's queue is gone: free the shadow. Packets in flight will never complete: their
 * comps are cut loose from the runtime's signals and from @q (so @q may be freed at once),
 * and their signals set to 0 so the handlers run and recycle them.
 */
static void queue_teardown(struct hsaqm_sim *sim, struct tqueue *q)
{
	if (q->sdma) {
		kfdemu_sdma_destroy(q->sdma, q->kfd_id);
		return;
	}
	pthread_mutex_lock(&tq.comp_lock);
	for (struct comp *c = q->inflight; c; c = c->next) {
		c->target = NULL;
		c->q = NULL;
		sim_signal_store(sim, c->s, 0);
	}
	q->inflight = NULL;
	pthread_mutex_unlock(&tq.comp_lock);
	/* The model's queue is gone, and with it every watch on these. */
	for (unsigned int j = 0; j < q->npend; j++)
		for (unsigned int k = 0; k < q->pend[j].n; k++)
			sim_signal_destroy(sim, q->pend[j].mirror[k]);
	free(q->pend);
	free_shadow(sim, q);
}

/* The barrier holds of an AQL queue, 0 included: a reader finds every queue's priority here. */
static void report_holds(struct hsaqm_sim *sim, const struct tqueue *q, bool live)
{
	uint64_t ns = q->held_ns;

	if (q->sdma)
		return;
	if (q->hold_at)
		ns += hsaqm_sim_now_ns(sim) - q->hold_since;
	/* A live queue's priority now; a destroyed one's was read before it went. */
	struct sim_hwq_info info;
	uint32_t prio = q->priority;

	if (live && q->hwq && !sim_hwq_get_info(q->hwq, &info))
		prio = info.priority;
	kfdemu_report_add("barrier-holds kfd_queue %u kfd_priority %u holds %llu held_ns %llu",
			  q->kfd_id, prio, (unsigned long long)q->holds,
			  (unsigned long long)ns);
}

int kfdemu_front_destroy(int handle, unsigned long request, void *arg)
{
	const struct hsaqm_kfd_destroy_queue_args *a = arg;
	const struct hsaqm_kfd_transport *tp = kfdemu_kfd();
	struct hsaqm_sim *sim = kfdemu_sim();
	struct tqueue *q, **pp;
	int err;

	if (!tp || !sim)
		return -ENODEV;
	if (!a)
		return -EFAULT;
	/*
	 * Out of the translator's list before the face frees the model's queue: the translator
	 * reads the queue's counts (barrier_at_head) and rings its doorbell.
	 */
	pthread_mutex_lock(&tq.lock);
	for (pp = &tq.queues; *pp && ((*pp)->handle != handle || (*pp)->kfd_id != a->queue_id);
	     pp = &(*pp)->link)
		;
	q = *pp;
	if (q)
		*pp = q->link;
	pthread_mutex_unlock(&tq.lock);
	if (q && q->hwq) {
		struct sim_hwq_info info;

		if (!sim_hwq_get_info(q->hwq, &info))
			q->priority = info.priority;
	}
	/* DESTROY_QUEUE waits while a DBG_TRAP suspend holds the queue (the KFD's rule). */
	err = tp->ioctl(tp->ctx, handle, request, arg);
	if (err) {
		if (q) {
			pthread_mutex_lock(&tq.lock);
			q->link = tq.queues;
			tq.queues = q;
			pthread_mutex_unlock(&tq.lock);
		}
		return err;
	}
	if (q) {
		queue_teardown(sim, q);
		kfdemu_report_add("queue-destroy kfd_queue %u", q->kfd_id);
		report_holds(sim, q, false);
		free(q);
	}
	return 0;
}

void kfdemu_front_report(void)
{
	struct hsaqm_sim *sim = kfdemu_sim();

	pthread_mutex_lock(&tq.lock);
	for (struct tqueue *q = tq.queues; q; q = q->link)
		if (!q->sdma) {
			kfdemu_report_add("queue-open kfd_queue %u gpu %u", q->kfd_id, q->dev);
			if (sim)
				report_holds(sim, q, true);
		}
	pthread_mutex_unlock(&tq.lock);
}
