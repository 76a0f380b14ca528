/* SPDX-License-Identifier: MIT */
/*
 * Queues of the libhsakmt face, and the translator that feeds them to the model.
 *
 * ROCr's AQL queue is its own ring and amd_queue_t (host memory it allocated), carrying
 * packets whose kernel objects are code-object kernel descriptors and whose signals are
 * ROCr amd_signal_t. The model's packet processor knows neither: it runs registered model
 * kernels and its own signals. So each ROCr queue gets a *shadow* hardware queue in model
 * memory (same size), and one translator thread per process plays the front of the CP.
 * The queue itself is a KFD queue of the model's KFD face, made with ROCr's ring as libhsakmt
 * makes it (thunk_kfd.c), whose packet processor runs the shadow ring: so DBG_TRAP suspend,
 * GET_QUEUE_SNAPSHOT and kfd/proc know ROCr's queues, and hsaqm's Lv3 can preempt them.
 * The translator:
 *
 *   - it notices new packets by looking at every queue's write index and slot headers: a
 *     doorbell store is a plain store into a page of the face's memory, which nothing can
 *     trap, so it polls. Every 50 us while any queue saw activity in the last 20 ms or waits
 *     on a barrier, every 1 ms when idle (assumption: both are the face's choice; a host
 *     about to sleep in hsaKmtWaitOnEvent kicks it at once, so "submit, then wait" does not
 *     pay the period);
 *   - a kernel dispatch is copied with its kernel object replaced by the model kernel of the
 *     same name (thunk_kernel.c) and its completion signal by a model signal; when the model
 *     decrements that signal, an async handler writes the start/end timestamps into ROCr's
 *     signal, decrements its value and, when the signal names an event mailbox, writes the
 *     event id there and fires the event (what the CP's end-of-pipe interrupt does);
 *   - a barrier-AND/OR (and AMD BARRIER_VALUE) waits in the translator until its ROCr
 *     dependency signals satisfy it (the host may write them at any time, unseen by the
 *     model), then goes to the model as a barrier-AND with no dependencies, keeping its
 *     header bits and completion signal, so the model still orders it with the barrier bit;
 *   - a PM4 indirect-buffer packet (ROCr's code cache invalidation) becomes an empty
 *     barrier-AND: the caches it invalidates are not modelled;
 *   - the consumed ROCr slot gets an INVALID header and ROCr's read index moves past it, as
 *     the CP does; the model's own read index trails it (the translator never gets more than
 *     a ring ahead of the model).
 * Indices match one to one: ROCr's packet i is the shadow ring's packet i.
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

#include "hsaqm/aql.h"
#include "hsaqm/barrier.h"
#include "log_internal.h"
#include "kfd_face_internal.h"
#include "sim_internal.h"
#include "thunk_internal.h"

#define THUNK_DOORBELLS 1024u          /* one 8 KiB doorbell page per process (KFD) */
#define THUNK_POLL_ACTIVE_NS 50000ull  /* assumption, see above */
#define THUNK_POLL_IDLE_NS 1000000ull  /* assumption */
#define THUNK_ACTIVE_WINDOW_NS 20000000ull

/* A model completion signal standing for one ROCr signal of one packet in flight. */
struct comp {
	struct sim_signal *s;
	amd_signal_t *target; /* NULL once its queue is destroyed */
	struct tqueue *q;
	struct comp *prev, *next; /* the queue's in-flight list, or the free list (next) */
};

struct tqueue {
	HSA_QUEUEID id;
	unsigned int dev;
	uint32_t slot;            /* doorbell slot */
	/* ROCr's side */
	uint8_t *ring;
	uint32_t nslots;
	volatile uint64_t *wptr;
	volatile uint64_t *rptr;
	uint64_t next;            /* next ROCr index to translate */
	bool blocked;             /* a barrier waits for its dependencies */
	/* the model's side */
	union hsaqm_aql_packet *shadow;
	uint64_t *shadow_wptr, *shadow_rptr; /* model memory */
	struct sim_hwq *hwq;
	uint32_t kfd_id;          /* the queue's id in the model's KFD face (thunk_kfd.c) */
	uint32_t kfd_priority;
	bool active;
	struct comp *inflight;
	struct tqueue *link;
};

static struct {
	pthread_mutex_t lock;     /* the queue list; translation runs under it */
	struct tqueue *queues;
	HSA_QUEUEID next_id;
	uint64_t *doorbells;      /* THUNK_DOORBELLS slots */
	bool slot_used[THUNK_DOORBELLS];
	HSA_QUEUEID slot_sdma[THUNK_DOORBELLS]; /* the SDMA queue on a slot, else 0 */

	pthread_mutex_t wake_lock;
	pthread_cond_t wake;
	bool kick, stop, running;
	pthread_t thread;

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

void thunk_translator_kick(void)
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

	if (t) {
		/* Plain stores: the release of the decrement below publishes them. */
		t->start_ts = (uint64_t)c->s->start_ts;
		t->end_ts = (uint64_t)c->s->end_ts;
		/* Release: the packet's effects and timestamps before the value ROCr waits on. */
		hsaqm_fetch_sub((int64_t *)&t->value, 1);
		if (t->event_mailbox_ptr)
			thunk_event_fire(t->event_mailbox_ptr, t->event_id);
	}
	comp_recycle(c);
	pthread_mutex_unlock(&tq.comp_lock);
	/* A barrier may wait on the signal just completed. */
	thunk_translator_kick();
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
		hsaqm_log_err("thunk: cannot watch a completion signal");
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
			uint64_t items = (uint64_t)d->workgroup_size_x * d->workgroup_size_y *
					 d->workgroup_size_z;
			uint32_t waves = (uint32_t)((items + 63) / 64);
			uint64_t h, nwg = 0;

			if (d->workgroup_size_x && d->workgroup_size_y && d->workgroup_size_z)
				nwg = (((uint64_t)d->grid_size_x + d->workgroup_size_x - 1) /
				       d->workgroup_size_x) *
				      (((uint64_t)d->grid_size_y + d->workgroup_size_y - 1) /
				       d->workgroup_size_y) *
				      (((uint64_t)d->grid_size_z + d->workgroup_size_z - 1) /
				       d->workgroup_size_z);
			if (waves && !thunk_kernel_resolve(d->kernel_object, waves, nwg,
							   (void *)(uintptr_t)d->kernarg_address, &h))
				out.dispatch.kernel_object = h;
			out.dispatch.completion_signal = map_completion(sim, q, d->completion_signal);
			break;
		}
		case HSAQM_AQL_TYPE_BARRIER_AND:
		case HSAQM_AQL_TYPE_BARRIER_OR:
			if (!barrier_ready(&p, type)) {
				q->blocked = true;
				goto stop;
			}
			empty_barrier(&out, hdr, map_completion(sim, q, p.barrier.completion_signal));
			break;
		case HSAQM_AQL_TYPE_VENDOR:
			if (p.barrier_value.amd_format == HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE) {
				if (!barrier_ready(&p, type)) {
					q->blocked = true;
					goto stop;
				}
				empty_barrier(&out, hdr,
					      map_completion(sim, q, p.barrier_value.completion_signal));
			} else if (p.barrier_value.amd_format == 1) {
				/* AMD_AQL_FORMAT_PM4_IB: ROCr's cache invalidation, nothing to do */
				empty_barrier(&out, hdr, map_completion(sim, q, p.u64[7]));
			}
			break;
		default:
			break; /* agent dispatch, reserved types: the model reports them */
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
		struct hsaqm_sim *sim = thunk_sim();
		bool moved = false, blocked = false;

		pthread_mutex_lock(&tq.lock);
		for (struct tqueue *q = tq.queues; sim && q; q = q->link) {
			moved |= translate(sim, q);
			blocked |= q->blocked;
		}
		pthread_mutex_unlock(&tq.lock);
		/* Outside tq.lock: SDMA creation takes the SDMA lock, then tq.lock. */
		moved |= thunk_sdma_run(&blocked);
		uint64_t now = mono_ns();

		if (moved)
			last_activity = now;
		uint64_t period = blocked || now - last_activity < THUNK_ACTIVE_WINDOW_NS ?
					  THUNK_POLL_ACTIVE_NS : THUNK_POLL_IDLE_NS;
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
 * The queue calls
 */

/* Called with tq.lock held. */
static bool doorbells_ready(void)
{
	if (!tq.doorbells) {
		tq.doorbells = aligned_alloc(4096, THUNK_DOORBELLS * sizeof(uint64_t));
		if (tq.doorbells)
			memset(tq.doorbells, 0, THUNK_DOORBELLS * sizeof(uint64_t));
	}
	return tq.doorbells != NULL;
}

int thunk_doorbell_alloc(HSA_QUEUEID *id, uint64_t **doorbell)
{
	uint32_t slot;
	int err = -ENOSPC;

	pthread_mutex_lock(&tq.lock);
	for (slot = 0; slot < THUNK_DOORBELLS && tq.slot_used[slot]; slot++)
		;
	/* The translator runs the SDMA engines too. */
	if (slot < THUNK_DOORBELLS && doorbells_ready() && !translator_start()) {
		tq.slot_used[slot] = true;
		*id = ++tq.next_id;
		tq.slot_sdma[slot] = *id;
		*doorbell = &tq.doorbells[slot];
		err = 0;
	}
	pthread_mutex_unlock(&tq.lock);
	return err;
}

void thunk_doorbell_free(HSA_QUEUEID id)
{
	pthread_mutex_lock(&tq.lock);
	for (uint32_t slot = 0; slot < THUNK_DOORBELLS; slot++)
		if (tq.slot_sdma[slot] == id) {
			tq.slot_sdma[slot] = 0;
			tq.slot_used[slot] = false;
		}
	pthread_mutex_unlock(&tq.lock);
}

/* libhsakmt's priority map: HSA_QUEUE_PRIORITY -3..3 -> KFD 0..15 (queues.c). */
static const uint32_t kfd_priority[7] = { 0, 3, 5, 7, 9, 11, 15 };

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
	amd_queue_t *aq = (amd_queue_t *)((uintptr_t)q->rptr - offsetof(amd_queue_t,
									  read_dispatch_id));

	hsaqm_log_warn("thunk: queue %llu stopped, status %#x", (unsigned long long)q->id,
		       hsa_status);
	if (aq->read_dispatch_id_field_base_byte_offset != offsetof(amd_queue_t, read_dispatch_id))
		return;
	amd_signal_t *s = (amd_signal_t *)(uintptr_t)aq->queue_inactive_signal.handle;

	if (!s)
		return;
	int64_t zero = 0;

	/* Acq_rel CAS from 0: the first error stays, and ROCr's handler reads it after. */
	if (!hsaqm_cas((int64_t *)&s->value, &zero, cp_error_code(hsa_status)))
		return;
	if (s->event_mailbox_ptr)
		thunk_event_fire(s->event_mailbox_ptr, s->event_id);
}

static struct tqueue *find_queue(HSA_QUEUEID id)
{
	for (struct tqueue *q = tq.queues; q; q = q->link)
		if (q->id == id)
			return q;
	return NULL;
}

static void free_shadow(struct hsaqm_sim *sim, struct tqueue *q)
{
	hsaqm_sim_mem_free(sim, q->shadow);
	hsaqm_sim_mem_free(sim, q->shadow_wptr);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueue(HSAuint32 node, HSA_QUEUE_TYPE type, HSAuint32 pct,
					  HSA_QUEUE_PRIORITY prio, void *ring, HSAuint64 size,
					  HsaEvent *event, HsaQueueResource *res)
{
	struct hsaqm_sim *sim = thunk_sim();
	int dev = thunk_node_dev(node);
	HSAKMT_STATUS ret = HSAKMT_STATUS_SUCCESS;

	if (!sim)
		return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	if (dev < 0)
		return HSAKMT_STATUS_INVALID_NODE_UNIT;
	if (type == HSA_QUEUE_SDMA || type == HSA_QUEUE_SDMA_XGMI)
		return thunk_sdma_create((unsigned int)dev, type, prio, ring, size, res);
	if (type != HSA_QUEUE_COMPUTE_AQL) {
		/* PM4 queues are not modelled (ROCr 5.2.3 makes none for compute). */
		thunk_report_add("queue-refused node %u type %d priority %d", node, (int)type,
				 (int)prio);
		return HSAKMT_STATUS_NOT_SUPPORTED;
	}
	if (!res || !ring || !res->Queue_read_ptr_aql || !res->Queue_write_ptr_aql ||
	    pct > 100 || prio < HSA_QUEUE_PRIORITY_MINIMUM || prio > HSA_QUEUE_PRIORITY_MAXIMUM ||
	    size < 1024 || (size & (size - 1)) || size > (1ull << 31))
		return HSAKMT_STATUS_INVALID_PARAMETER;

	struct tqueue *q = calloc(1, sizeof(*q));

	if (!q)
		return HSAKMT_STATUS_NO_MEMORY;
	q->dev = (unsigned int)dev;
	q->ring = ring;
	q->nslots = (uint32_t)(size / 64);
	q->wptr = res->Queue_write_ptr_aql;
	q->rptr = res->Queue_read_ptr_aql;
	q->next = *q->rptr;
	q->kfd_priority = kfd_priority[prio - HSA_QUEUE_PRIORITY_MINIMUM];
	q->active = pct > 0;
	q->shadow = hsaqm_sim_mem_alloc(sim, size, 4096);
	q->shadow_wptr = hsaqm_sim_mem_alloc(sim, 128, 64);
	if (!q->shadow || !q->shadow_wptr) {
		ret = HSAKMT_STATUS_NO_MEMORY;
		goto fail;
	}
	q->shadow_rptr = q->shadow_wptr + 8; /* its own cache line */
	*q->shadow_wptr = q->next;
	*q->shadow_rptr = q->next;
	for (uint32_t i = 0; i < q->nslots; i++)
		q->shadow[i].u32[0] = HSAQM_AQL_INVALID_WORD;

	/*
	 * A KFD queue of ROCr's ring, as libhsakmt creates it, that the model runs through the
	 * shadow ring the translator fills (sim/kfd_face_internal.h, "front"): the KFD, and
	 * whoever else opens it in this process (hsaqm's Lv3), knows ROCr's queue by its ring.
	 */
	struct sim_kfd_front front = {
		.ring = q->shadow, .write_ptr = q->shadow_wptr, .read_ptr = q->shadow_rptr,
		.error_fn = queue_error, .error_ctx = q,
	};

	pthread_mutex_lock(&tq.lock);
	for (q->slot = 0; q->slot < THUNK_DOORBELLS && tq.slot_used[q->slot]; q->slot++)
		;
	if (!doorbells_ready() || q->slot == THUNK_DOORBELLS) {
		pthread_mutex_unlock(&tq.lock);
		ret = HSAKMT_STATUS_OUT_OF_RESOURCES;
		goto fail;
	}
	int err = translator_start();

	if (!err)
		err = thunk_kfd_queue_create(sim, q->dev, ring, (uint32_t)size,
					     (uint64_t *)res->Queue_write_ptr_aql,
					     (uint64_t *)res->Queue_read_ptr_aql, pct, q->kfd_priority,
					     &front, &q->kfd_id, &q->hwq);
	if (err) {
		pthread_mutex_unlock(&tq.lock);
		hsaqm_log_err("thunk: queue creation failed: %s", strerror(-err));
		ret = err == -EINVAL || err == -EFAULT ? HSAKMT_STATUS_INVALID_PARAMETER :
							 HSAKMT_STATUS_OUT_OF_RESOURCES;
		goto fail;
	}
	tq.slot_used[q->slot] = true;
	q->id = ++tq.next_id;
	q->link = tq.queues;
	tq.queues = q;
	pthread_mutex_unlock(&tq.lock);

	res->QueueId = q->id;
	res->Queue_DoorBell_aql = &tq.doorbells[q->slot];
	thunk_report_add("queue-create id %llu node %u type aql priority %d kfd_priority %u "
			 "slots %u kfd_queue %u", (unsigned long long)q->id, node, (int)prio,
			 q->kfd_priority, q->nslots, q->kfd_id);
	thunk_translator_kick();
	return HSAKMT_STATUS_SUCCESS;
fail:
	free_shadow(sim, q);
	free(q);
	return ret;
}

/*
 * Destroy the model's queue and free the shadow. Packets in flight will never complete:
 * their comps are cut loose from ROCr's signals and from @q (so @q may be freed at once),
 * and their signals set to 0 so the handlers run and recycle them.
 */
static void queue_teardown(struct hsaqm_sim *sim, struct tqueue *q)
{
	/* DESTROY_QUEUE waits while a DBG_TRAP suspend holds the queue (the KFD's rule). */
	int err = thunk_kfd_queue_destroy(q->kfd_id);

	if (err)
		hsaqm_log_warn("thunk: DESTROY_QUEUE %u: %s", q->kfd_id, strerror(-err));
	pthread_mutex_lock(&tq.comp_lock);
	for (struct comp *c = q->inflight; c; c = c->next) {
		c->target = NULL;
		c->q = NULL;
		sim_signal_store(sim, c->s, 0);
	}
	q->inflight = NULL;
	pthread_mutex_unlock(&tq.comp_lock);
	free_shadow(sim, q);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyQueue(HSA_QUEUEID id)
{
	struct hsaqm_sim *sim = thunk_sim();
	struct tqueue *q, **pp;

	if (!sim)
		return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	pthread_mutex_lock(&tq.lock);
	for (pp = &tq.queues; *pp && (*pp)->id != id; pp = &(*pp)->link)
		;
	q = *pp;
	if (q) {
		*pp = q->link;
		tq.slot_used[q->slot] = false;
	}
	pthread_mutex_unlock(&tq.lock);
	if (!q)
		return thunk_sdma_destroy(id) ? HSAKMT_STATUS_INVALID_PARAMETER :
						HSAKMT_STATUS_SUCCESS;
	queue_teardown(sim, q);
	thunk_report_add("queue-destroy id %llu", (unsigned long long)id);
	free(q);
	return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtUpdateQueue(HSA_QUEUEID id, HSAuint32 pct, HSA_QUEUE_PRIORITY prio,
					  void *ring, HSAuint64 size, HsaEvent *event)
{
	int err;

	if (pct > 100 || prio < HSA_QUEUE_PRIORITY_MINIMUM || prio > HSA_QUEUE_PRIORITY_MAXIMUM)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	pthread_mutex_lock(&tq.lock);
	struct tqueue *q = find_queue(id);

	if (!q) {
		pthread_mutex_unlock(&tq.lock);
		return HSAKMT_STATUS_INVALID_PARAMETER;
	}
	/*
	 * ROCr passes its own ring again (priority changes, inactivation): UPDATE_QUEUE names
	 * it, as libhsakmt's does, and the model's KFD keeps running the shadow behind it.
	 */
	q->kfd_priority = kfd_priority[prio - HSA_QUEUE_PRIORITY_MINIMUM];
	q->active = pct > 0;
	err = thunk_kfd_queue_update(q->kfd_id, ring, q->nslots * 64u, pct,
				     q->kfd_priority);
	pthread_mutex_unlock(&tq.lock);
	thunk_report_add("queue-update id %llu priority %d kfd_priority %u percentage %u",
			 (unsigned long long)id, (int)prio, kfd_priority[prio + 3], pct);
	return err ? HSAKMT_STATUS_ERROR : HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetQueueCUMask(HSA_QUEUEID id, HSAuint32 count, HSAuint32 *mask)
{
	int err;

	if (!mask || !count || count % 32)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	pthread_mutex_lock(&tq.lock);
	struct tqueue *q = find_queue(id);

	err = q ? thunk_kfd_queue_set_cu_mask(q->kfd_id, mask, count) : -EINVAL;
	pthread_mutex_unlock(&tq.lock);
	return err ? HSAKMT_STATUS_INVALID_PARAMETER : HSAKMT_STATUS_SUCCESS;
}

/* GWS is not modelled (the node reports NumGws 0, so ROCr makes no cooperative queue). */
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocQueueGWS(HSA_QUEUEID id, HSAuint32 n, HSAuint32 *first)
{
	return HSAKMT_STATUS_NOT_SUPPORTED;
}

void thunk_queue_fini(void)
{
	struct hsaqm_sim *sim = thunk_sim();

	pthread_mutex_lock(&tq.wake_lock);
	tq.stop = true;
	bool running = tq.running;

	if (running)
		pthread_cond_signal(&tq.wake);
	pthread_mutex_unlock(&tq.wake_lock);
	if (running) {
		pthread_join(tq.thread, NULL);
		pthread_cond_destroy(&tq.wake);
		tq.running = false;
	}
	thunk_sdma_fini();
	pthread_mutex_lock(&tq.lock);
	struct tqueue *qs = tq.queues;

	tq.queues = NULL;
	memset(tq.slot_used, 0, sizeof(tq.slot_used));
	memset(tq.slot_sdma, 0, sizeof(tq.slot_sdma));
	pthread_mutex_unlock(&tq.lock);
	while (qs) {
		struct tqueue *q = qs;

		qs = q->link;
		queue_teardown(sim, q);
		free(q);
	}
	/*
	 * Every comp's handler must have run before its struct goes (the teardowns set their
	 * signals to 0): wait for all to be back on the free list, at most 5 s. Their signals
	 * die with the model (model memory).
	 */
	for (int i = 0; i < 5000; i++) {
		pthread_mutex_lock(&tq.comp_lock);
		bool all = tq.nfree == tq.ncomps;

		pthread_mutex_unlock(&tq.comp_lock);
		if (all)
			break;
		usleep(1000);
	}
	pthread_mutex_lock(&tq.comp_lock);
	if (tq.nfree != tq.ncomps) {
		hsaqm_log_err("thunk: %zu completion handlers never ran; leaking them",
			      tq.ncomps - tq.nfree);
		tq.all_comps = NULL; /* leak rather than free what a handler may still use */
		tq.ncomps = 0;
	}
	for (size_t i = 0; i < tq.ncomps; i++)
		free(tq.all_comps[i]);
	free(tq.all_comps);
	tq.all_comps = NULL;
	tq.ncomps = tq.capcomps = 0;
	tq.nfree = 0;
	tq.free_comps = NULL;
	pthread_mutex_unlock(&tq.comp_lock);
	free(tq.doorbells);
	tq.doorbells = NULL;
}
