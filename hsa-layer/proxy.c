/* SPDX-License-Identifier: MIT */
/*
 * proxy.c - proxy queues (design decision 1): the amd_queue_t the application gets instead of
 * the hardware queue, its doorbell, the lookups a tool needs on every call, creation and
 * teardown. The packets' way into the hardware ring is hsa_backend.c. docs/hsa-backend.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hsa_backend_internal.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-common/log.h"
#include "hsaqm-common/time.h"

/* One wait while draining: 1e6 ticks (1 ms at 1 GHz, 10 ms at 100 MHz). */
#define DRAIN_STEP_TICKS 1000000ull

/*
 * Bumped when the runtime says some hardware queue's scratch fields changed (a tool's scratch
 * event): each proxy compares it with the generation it last refreshed at, at its doorbell.
 */
static uint64_t desc_stale_gen;

static void refresh_locked(struct hsaqm_hsa_proxy *p);

/* ---- Lookups --------------------------------------------------------------------------------
 *
 * Two open-addressing sets, keyed by the application queue's address and by the doorbell
 * signal's handle. A tool asks them on every signal store of the process, so a lookup is
 * lock-free and reads nothing but the table: a pointer that is not a proxy is answered
 * without being dereferenced. Writers (create, destroy) are serialised by one mutex.
 */
#define LK_SLOTS 4096u /* a power of two; far more than the queues a process may have */
#define LK_EMPTY 0ull
#define LK_TOMB UINT64_MAX

struct lk_entry {
	uint64_t key;
	struct hsaqm_hsa_proxy *proxy;
};

static struct lk_entry lk_queue[LK_SLOTS];
static struct lk_entry lk_doorbell[LK_SLOTS];
static pthread_mutex_t lk_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t lk_hash(uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 52) & (LK_SLOTS - 1);
}

static struct hsaqm_hsa_proxy *lk_find(struct lk_entry *t, uint64_t key)
{
	if (key == LK_EMPTY || key == LK_TOMB)
		return NULL;
	for (uint32_t i = lk_hash(key), probes = 0; probes < LK_SLOTS;
	     i = (i + 1) & (LK_SLOTS - 1), probes++) {
		/* Acquire: pairs with the insert's release of the key; the proxy field is set. */
		uint64_t k = hsaqm_load_acquire(&t[i].key);

		if (k == LK_EMPTY)
			return NULL;
		if (k == key)
			return HSAQM_READ_ONCE(t[i].proxy);
	}
	return NULL;
}

/* lk_lock held. */
static int lk_insert(struct lk_entry *t, uint64_t key, struct hsaqm_hsa_proxy *p)
{
	uint32_t slot = LK_SLOTS;

	if (key == LK_EMPTY || key == LK_TOMB)
		return -EINVAL;
	for (uint32_t i = lk_hash(key), probes = 0; probes < LK_SLOTS;
	     i = (i + 1) & (LK_SLOTS - 1), probes++) {
		uint64_t k = HSAQM_READ_ONCE(t[i].key);

		if (k == key)
			return -EEXIST;
		if (k == LK_TOMB && slot == LK_SLOTS)
			slot = i;
		if (k == LK_EMPTY) {
			if (slot == LK_SLOTS)
				slot = i;
			break;
		}
	}
	if (slot == LK_SLOTS)
		return -ENOMEM;
	HSAQM_WRITE_ONCE(t[slot].proxy, p);
	/* Release: the proxy field above is visible to whoever sees the key. */
	hsaqm_store_release(&t[slot].key, key);
	return 0;
}

/* lk_lock held. */
static void lk_erase(struct lk_entry *t, uint64_t key)
{
	for (uint32_t i = lk_hash(key), probes = 0; probes < LK_SLOTS;
	     i = (i + 1) & (LK_SLOTS - 1), probes++) {
		uint64_t k = HSAQM_READ_ONCE(t[i].key);

		if (k == LK_EMPTY)
			return;
		if (k != key)
			continue;
		/* Release: a reader that still finds the key sees a proxy field that was set. */
		hsaqm_store_release(&t[i].key, LK_TOMB);
		/*
		 * A tombstone followed by an empty slot ends no probe chain: make it (and the
		 * tombstones before it) empty again, so misses stay one or two probes however
		 * many queues came and went. Safe against readers: a key they look for lies
		 * before the first empty slot of its chain, never past this one.
		 */
		if (HSAQM_READ_ONCE(t[(i + 1) & (LK_SLOTS - 1)].key) == LK_EMPTY) {
			uint32_t j = i;

			while (HSAQM_READ_ONCE(t[j].key) == LK_TOMB) {
				/* Release: ordered after the tombstone stores, as any key store. */
				hsaqm_store_release(&t[j].key, LK_EMPTY);
				j = (j - 1) & (LK_SLOTS - 1);
			}
		}
		return;
	}
}

int hsaqm_hsa_lookup_add(struct hsaqm_hsa_proxy *p)
{
	int rc;

	pthread_mutex_lock(&lk_lock);
	rc = lk_insert(lk_queue, (uint64_t)(uintptr_t)p->amd, p);
	if (rc == 0) {
		rc = lk_insert(lk_doorbell, p->doorbell.handle, p);
		if (rc)
			lk_erase(lk_queue, (uint64_t)(uintptr_t)p->amd);
	}
	pthread_mutex_unlock(&lk_lock);
	return rc;
}

void hsaqm_hsa_lookup_remove(struct hsaqm_hsa_proxy *p)
{
	pthread_mutex_lock(&lk_lock);
	lk_erase(lk_queue, (uint64_t)(uintptr_t)p->amd);
	lk_erase(lk_doorbell, p->doorbell.handle);
	pthread_mutex_unlock(&lk_lock);
}

struct hsaqm_hsa_proxy *hsaqm_hsa_proxy_from_queue(const struct hsaqm_hsa_queue *queue)
{
	return lk_find(lk_queue, (uint64_t)(uintptr_t)queue);
}

struct hsaqm_hsa_proxy *hsaqm_hsa_proxy_from_doorbell(struct hsaqm_hsa_signal signal)
{
	return lk_find(lk_doorbell, signal.handle);
}

/* ---- Accessors ------------------------------------------------------------------------------ */

struct hsaqm_hsa_queue *hsaqm_hsa_proxy_queue(const struct hsaqm_hsa_proxy *proxy)
{
	return proxy ? &proxy->amd->hsa_queue : NULL;
}

struct hsaqm_hsa_queue *hsaqm_hsa_proxy_hw_queue(const struct hsaqm_hsa_proxy *proxy)
{
	return proxy ? proxy->hwq : NULL;
}

struct hsaqm_xq *hsaqm_hsa_proxy_xq(const struct hsaqm_hsa_proxy *proxy)
{
	return proxy ? proxy->xq : NULL;
}

/* ---- The doorbell ---------------------------------------------------------------------------- */

void hsaqm_hsa_proxy_doorbell(struct hsaqm_hsa_proxy *p, hsaqm_hsa_signal_value_t value)
{
	uint64_t read, end;

	/*
	 * @value is not stored into the doorbell signal: nobody may read it. ROCr's doorbell
	 * signals refuse loads and waits (core::DoorbellSignal asserts), so no client reads a
	 * doorbell, and the scan below goes by the headers, not by the value.
	 */
	(void)value;
	if (!p || !hsaqm_hsa_proxy_lock_live(p))
		return;
	/* Scratch changed somewhere since the last look (rare): mirror it before new work. */
	{
		/* Acquire: pairs with the scratch event's release of the new generation. */
		uint64_t gen = hsaqm_load_acquire(&desc_stale_gen);

		if (__builtin_expect(gen != p->desc_gen, 0)) {
			p->desc_gen = gen;
			refresh_locked(p);
		}
	}
	/*
	 * Acquire: pairs with release()'s store of the read index, after which the slots below
	 * it are INVALID: every slot in [read, read + size) is either INVALID or holds the
	 * packet of its index in this lap, never one of the last lap.
	 */
	read = hsaqm_load_acquire(&p->amd->read_dispatch_id);
	end = p->scan_end;
	/*
	 * The headers are the truth, the doorbell value only a hint: with several producers a
	 * packet below @value may still be in writing. Stop at the first INVALID header.
	 */
	while (end - read < p->size) {
		const union hsaqm_aql_packet *pkt = &p->ring[end & p->mask];
		/* Acquire: pairs with the application's release of the header: the body is whole. */
		uint32_t w = hsaqm_aql_slot_load_header(pkt);

		uint32_t type = w & HSAQM_AQL_FIELD_MASK(HSAQM_AQL_HEADER_TYPE_WIDTH);

		if (type == HSAQM_AQL_TYPE_INVALID)
			break;
		/*
		 * Dependencies (hsa_dep.c), in the scan that reads every packet anyway: who will
		 * fire each completion signal, and what a waiting packet waits on (lib must know
		 * before the packet is reported, so a lower queue it needs is not held).
		 * Every packet type keeps its completion signal at byte 56.
		 */
		if (!p->detached) {
			if (__builtin_expect(type != HSAQM_AQL_TYPE_KERNEL_DISPATCH, 0))
				hsaqm_hsa_dep_scan_wait(p, pkt, type, end);
			if (pkt->dispatch.completion_signal)
				hsaqm_hsa_dep_note(p->rtp, pkt->dispatch.completion_signal, p->dep_id,
						   end + 1);
		}
		end++;
	}
	if (end != p->scan_end) {
		/* Relaxed: release() reads it only as a bound, and only after lib saw @end. */
		HSAQM_WRITE_ONCE(p->scan_end, end);
		if (p->detached)
			hsaqm_hsa_pass_through(p, end); /* no scheduler any more */
		else
			/* The reaction path: lib decides, preempts lower ones, releases, inline. */
			hsaqm_xq_submitted(p->xq, end);
	}
	pthread_mutex_unlock(&p->db_lock);
}

/* ---- Statistics that hold what completed -------------------------------------------------- */

int hsaqm_hsa_proxy_settle(struct hsaqm_hsa_proxy *p, uint64_t timeout_ns)
{
	uint64_t deadline;

	if (!p || p->magic != HSAQM_HSA_PROXY_MAGIC)
		return -EINVAL;
	deadline = hsaqm_mono_ns() + timeout_ns;
	for (;;) {
		const struct hsaqm_hsa_runtime *rt = p->rt;
		struct hsaqm_xq *xq = hsaqm_hsa_proxy_xq(p);
		struct hsaqm_xq_stats st;
		hsaqm_hsa_signal_value_t v;

		/* The marker handler may not have run yet for markers that completed. */
		hsaqm_hsa_mslot_sync(p->mslot);
		if (!xq || HSAQM_READ_ONCE(p->hw_error) || hsaqm_xq_get_stats(xq, &st) ||
		    st.completed >= st.released)
			return 0;
		if (hsaqm_mono_ns() >= deadline)
			return -ETIMEDOUT;
		/* Until the next marker completes (a completion, not a poll). */
		v = rt->signal_load_scacquire(p->mslot->signal);
		hsaqm_hsa_wait_step(rt, p->mslot->signal, HSAQM_HSA_SIGNAL_CONDITION_LT, v,
				    DRAIN_STEP_TICKS);
	}
}

/* ---- Priority ----------------------------------------------------------------------------- */

int hsaqm_hsa_queue_priority(int base_priority, int prio, int step)
{
	long v = base_priority;

	if (prio == HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH)
		v += step;
	else if (prio == HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW)
		v -= step;
	if (v < HSAQM_PRIORITY_MIN)
		return HSAQM_PRIORITY_MIN;
	if (v > HSAQM_PRIORITY_MAX)
		return HSAQM_PRIORITY_MAX;
	return (int)v;
}

int hsaqm_hsa_proxy_set_priority(struct hsaqm_hsa_proxy *p, hsaqm_hsa_amd_queue_priority_t prio,
				 int base_priority, int step)
{
	hsaqm_hsa_status_t st;

	if (!p || prio > HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH)
		return -EINVAL;
	if (!p->rt->amd_queue_set_priority)
		return -EOPNOTSUPP;
	/* Deferred while UPDATE_QUEUE holds the queue: ROCr's call would reactivate it. */
	st = hsaqm_hsa_status_from_errno(hsaqm_hsa_lv3_set_priority(p, prio));
	if (st != HSAQM_HSA_STATUS_SUCCESS)
		return hsaqm_hsa_errno_from_status(st);
	return hsaqm_xq_set_priority(p->xq, hsaqm_hsa_queue_priority(base_priority, (int)prio, step));
}

/* ---- Creation ------------------------------------------------------------------------------- */

/* The hardware queue failed: remember it (destroy then skips the drain), tell the application. */
static void hw_error_cb(hsaqm_hsa_status_t status, struct hsaqm_hsa_queue *source, void *data)
{
	struct hsaqm_hsa_proxy *p = data;

	(void)source;
	/* Relaxed: a flag for destroy, which only skips a wait on it. */
	HSAQM_WRITE_ONCE(p->hw_error, (uint32_t)status ? (uint32_t)status : 1u);
	if (p->callback)
		p->callback(status, &p->amd->hsa_queue, p->callback_data);
}

/* The ring writer's doorbell: the runtime's release store to the hardware queue's doorbell. */
static void hw_doorbell(void *ctx, uint64_t last_index)
{
	struct hsaqm_hsa_proxy *p = ctx;

	p->rt->signal_store_screlease(p->hwq->doorbell_signal,
				      (hsaqm_hsa_signal_value_t)last_index);
}

/*
 * The words of the first 256 bytes a refresh copies: all but the proxy's own (the hsa_queue_t
 * head, the dispatch ids, the legacy doorbell words). What the words from 184 on mean differs
 * by era (hsaqm-hsa/hsa_abi.h); copying them needs no meaning.
 */
static const struct {
	uint16_t from, to;
} mirrored[] = {
	{ offsetof(struct hsaqm_amd_queue, caps),
	  offsetof(struct hsaqm_amd_queue, write_dispatch_id) },
	{ offsetof(struct hsaqm_amd_queue, group_segment_aperture_base_hi),
	  offsetof(struct hsaqm_amd_queue, max_legacy_doorbell_dispatch_id_plus_1) },
	{ offsetof(struct hsaqm_amd_queue, reserved2),
	  offsetof(struct hsaqm_amd_queue, read_dispatch_id) },
	{ offsetof(struct hsaqm_amd_queue, read_dispatch_id_field_base_byte_offset),
	  sizeof(struct hsaqm_amd_queue) },
};

HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue, reserved2) ==
			    offsetof(struct hsaqm_amd_queue, legacy_doorbell_lock) + 4 &&
		    offsetof(struct hsaqm_amd_queue, read_dispatch_id_field_base_byte_offset) ==
			    offsetof(struct hsaqm_amd_queue, read_dispatch_id) + 8,
		    "the mirrored ranges skip exactly the proxy's own words");

/* Copy the mirrored words; relaxed: the runtime may be writing them, a client reading them. */
static void refresh_locked(struct hsaqm_hsa_proxy *p)
{
	uint32_t *dst = (uint32_t *)(void *)p->amd;
	const uint32_t *src = (const uint32_t *)(const void *)p->hw_amd;

	for (size_t r = 0; r < sizeof(mirrored) / sizeof(mirrored[0]); r++)
		for (size_t w = mirrored[r].from / 4; w < mirrored[r].to / 4u; w++)
			HSAQM_WRITE_ONCE(dst[w], HSAQM_READ_ONCE(src[w]));
}

/*
 * The proxy's descriptor: HSAQM_PROXY_QUEUE_DESC_SIZE zeroed bytes (past the first 256 they
 * stay zero: CP's per-XCC scratch indices of amd_queue_v2_t belong to the hardware queue,
 * and ROCr's queue object pointer must read NULL at 256 and 2304), then the hardware
 * queue's amd_queue_t field for field (clients read the apertures, scratch fields,
 * properties, CU and wave limits, the id), except what makes it the proxy: its ring, size
 * and type, its doorbell, and its own dispatch ids (0).
 */
static void mirror_hw_queue(struct hsaqm_hsa_proxy *p, uint32_t type)
{
	struct hsaqm_amd_queue *a = p->amd;

	memset(a, 0, HSAQM_PROXY_QUEUE_DESC_SIZE);
	a->hsa_queue = p->hw_amd->hsa_queue;
	a->hsa_queue.type = type;
	a->hsa_queue.base_address = p->ring;
	a->hsa_queue.doorbell_signal = p->doorbell;
	a->hsa_queue.size = p->size;
	/* Acquire: pairs with the release that bumps the generation after the descriptor's new layout. */
	p->desc_gen = hsaqm_load_acquire(&desc_stale_gen);
	refresh_locked(p);
}

void hsaqm_hsa_proxy_refresh(struct hsaqm_hsa_proxy *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->db_lock);
	refresh_locked(p);
	pthread_mutex_unlock(&p->db_lock);
}

void hsaqm_hsa_proxies_stale(void)
{
	/* Acq_rel (release half): pairs with the doorbell's acquire load of the generation, so
	 * a doorbell that sees it also sees the runtime's field stores made before its event. */
	hsaqm_fetch_add(&desc_stale_gen, 1);
}

static int build_templates(struct hsaqm_hsa_proxy *p)
{
	uint64_t gate = p->gate.handle;
	/* Guardian (decision 3): barrier-AND on the gate, no barrier bit, no completion signal. */
	struct hsaqm_aql_barrier_desc g = { .dep_signals = &gate, .num_deps = 1 };
	/* Marker: completes only after everything before it, then decrements the marker signal. */
	struct hsaqm_aql_barrier_desc m = {
		.completion_signal = p->mslot->signal.handle,
		.barrier = true,
		.release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
	};
	int rc = hsaqm_aql_barrier_and_build(&p->guard_pkt, &g);

	return rc ? rc : hsaqm_aql_barrier_and_build(&p->marker_pkt, &m);
}

uint32_t hsaqm_hsa_agent_u32(const struct hsaqm_hsa_runtime *rt, struct hsaqm_hsa_agent agent,
			     uint32_t attr, uint32_t dflt)
{
	uint32_t v = 0;

	if (rt->agent_get_info(agent, attr, &v) != HSAQM_HSA_STATUS_SUCCESS)
		return dflt;
	return v;
}

static void proxy_free(struct hsaqm_hsa_proxy *p)
{
	const struct hsaqm_hsa_runtime *rt = p->rt;

	if (p->gate.handle)
		rt->signal_destroy(p->gate);
	if (p->doorbell.handle)
		rt->signal_destroy(p->doorbell);
	free(p->ring); /* the descriptor with it */
	free(p->waits);
	pthread_mutex_destroy(&p->db_lock);
	pthread_mutex_destroy(&p->lv3_lock);
	p->magic = 0;
	free(p);
}

/* The Lv3 verdict for the queue, for max_level(): checks, and the KFD queue when asked for. */
static void lv3_decide(struct hsaqm_hsa_proxy *p, const struct hsaqm_hsa_proxy_config *cfg)
{
	p->max_level = hsaqm_hsa_lv3_check(p->rtp, p->gpu_node, p->max_why, sizeof(p->max_why));
	if (p->max_level < HSAQM_LEVEL_3) {
		p->lv3_state = HSAQM_HSA_LV3_REFUSED;
		p->lv3_err = -EOPNOTSUPP;
		return;
	}
	snprintf(p->max_why, sizeof(p->max_why),
		 "Lv3 available; the KFD queue is looked up at the first suspend");
	/* Asked for now: look the queue up at once, so that the reason shows at attach. */
	if (cfg->xq.level >= HSAQM_LEVEL_3 && hsaqm_hsa_lv3_resolve(p))
		p->max_level = HSAQM_LEVEL_2;
	else if (p->lv3_state == HSAQM_HSA_LV3_READY)
		snprintf(p->max_why, sizeof(p->max_why), "Lv3: KFD queue %u", p->kfd_queue_id);
}

int hsaqm_hsa_proxy_create(const struct hsaqm_hsa_runtime *rt, struct hsaqm_ctx *ctx,
			   const struct hsaqm_hsa_proxy_config *cfg, struct hsaqm_hsa_proxy **out)
{
	struct hsaqm_hsa_proxy *p;
	hsaqm_hsa_status_t st;
	uint32_t qmin, qmax, hw_size;
	int rc;

	if (!rt || !rt->priv || !ctx || !cfg || !out)
		return -EINVAL;
	if (!cfg->size || (cfg->size & (cfg->size - 1)))
		return -EINVAL;
	qmin = hsaqm_hsa_agent_u32(rt, cfg->agent, HSAQM_HSA_AGENT_INFO_QUEUE_MIN_SIZE, 1);
	qmax = hsaqm_hsa_agent_u32(rt, cfg->agent, HSAQM_HSA_AGENT_INFO_QUEUE_MAX_SIZE,
				   HSAQM_RING_MAX_SIZE);
	/* As the runtime checks a size: too small is invalid, too large out of resources. */
	if (cfg->size < qmin)
		return -EINVAL;
	if (cfg->size > qmax)
		return -ENOMEM;
	/* Room for a guardian before every packet, and the markers; capped at the agent's limit. */
	hw_size = cfg->size <= qmax / 2 ? cfg->size * 2 : qmax;
	if (hw_size < qmin)
		hw_size = qmin;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->magic = HSAQM_HSA_PROXY_MAGIC;
	p->rt = rt;
	p->rtp = rt->priv;
	p->ctx = ctx;
	p->size = cfg->size;
	p->mask = cfg->size - 1;
	p->callback = cfg->callback;
	p->callback_data = cfg->callback_data;
	pthread_mutex_init(&p->db_lock, NULL);
	pthread_mutex_init(&p->lv3_lock, NULL);
	p->kfd_priority = 7; /* ROCr makes its queues at NORMAL: KFD priority 7 */
	p->pending_prio = -1;
	/*
	 * The ring, and the descriptor right after it (64-byte aligned: the ring is whole
	 * packets) in the same allocation: a ring of the usual size is page-rounded memory
	 * whose tail has room for it, so the descriptor's zeros cost no more pages.
	 */
	{
		size_t ring_bytes = (size_t)cfg->size * HSAQM_AQL_PACKET_SIZE;
		void *mem = NULL;

		if (posix_memalign(&mem, 4096, ring_bytes + HSAQM_PROXY_QUEUE_DESC_SIZE)) {
			rc = -ENOMEM;
			goto err_free;
		}
		p->ring = mem;
		p->amd = (struct hsaqm_amd_queue *)(void *)((char *)mem + ring_bytes);
	}
	memset(p->amd, 0, HSAQM_PROXY_QUEUE_DESC_SIZE);
	/* As hsa_queue_create leaves a ring: every slot INVALID (consumers stop at it). */
	for (uint32_t i = 0; i < cfg->size; i++) {
		memset(&p->ring[i], 0, sizeof(p->ring[i]));
		p->ring[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	}
	st = rt->signal_create(0, 0, NULL, &p->doorbell);
	if (st == HSAQM_HSA_STATUS_SUCCESS)
		st = rt->signal_create(0, 0, NULL, &p->gate);
	if (st != HSAQM_HSA_STATUS_SUCCESS) {
		rc = hsaqm_hsa_errno_from_status(st);
		goto err_free;
	}
	/* Lv3 without a debugger needs the KFD id: the queue that appears in sysfs kfd/proc. */
	p->gpu_node = hsaqm_hsa_agent_u32(rt, cfg->agent, HSAQM_HSA_AGENT_INFO_DRIVER_NODE_ID,
					  UINT32_MAX);
	hsaqm_hsa_lv3_before_create(p, cfg->xq.level >= HSAQM_LEVEL_3);
	st = rt->queue_create(cfg->agent, hw_size, cfg->type, hw_error_cb, p,
			      cfg->private_segment_size, cfg->group_segment_size, &p->hwq);
	hsaqm_hsa_lv3_after_create(p, st == HSAQM_HSA_STATUS_SUCCESS);
	if (st != HSAQM_HSA_STATUS_SUCCESS) {
		rc = hsaqm_hsa_errno_from_status(st);
		goto err_free;
	}
	p->hw_amd = (struct hsaqm_amd_queue *)p->hwq;
	rc = hsaqm_ring_init(&p->hw_ring, p->hwq->base_address, p->hwq->size,
			     (uint64_t *)(uintptr_t)&p->hw_amd->write_dispatch_id,
			     (uint64_t *)(uintptr_t)&p->hw_amd->read_dispatch_id, hw_doorbell, p);
	if (rc)
		goto err_hwq;
	mirror_hw_queue(p, cfg->type);
	rc = hsaqm_hsa_mslot_get(p->rtp, p);
	if (rc)
		goto err_hwq;
	rc = build_templates(p);
	if (rc)
		goto err_mslot;
	lv3_decide(p, cfg);
	rc = hsaqm_hsa_lookup_add(p);
	if (rc)
		goto err_mslot;
	rc = hsaqm_xq_attach(ctx, &cfg->xq, &hsaqm_hsa_backend_ops, p, &p->xq);
	if (rc)
		goto err_lookup;
	p->dep_id = hsaqm_xq_get_id(p->xq);
	/* From here the marker handler reports this queue's completions to lib. */
	pthread_mutex_lock(&p->mslot->lock);
	p->mslot->proxy = p;
	pthread_mutex_unlock(&p->mslot->lock);
	*out = p;
	return 0;

err_lookup:
	hsaqm_hsa_lookup_remove(p);
err_mslot:
	hsaqm_hsa_mslot_put(p->rtp, p->mslot, true);
err_hwq:
	rt->queue_destroy(p->hwq);
err_free:
	proxy_free(p);
	return rc;
}

/* ---- Teardown ------------------------------------------------------------------------------ */

/*
 * Wait until the hardware queue has run everything released: a barrier packet with the
 * barrier bit behind it completes only then. Bounded; 0 or -ETIMEDOUT (or another -errno).
 */
static int drain(struct hsaqm_hsa_proxy *p)
{
	const struct hsaqm_hsa_runtime *rt = p->rt;
	struct hsaqm_hsa_signal done = { 0 };
	union hsaqm_aql_packet pkt;
	uint64_t deadline = hsaqm_mono_ns() + HSAQM_HSA_DRAIN_TIMEOUT_NS;
	hsaqm_hsa_status_t st;
	int rc;

	st = rt->signal_create(1, 0, NULL, &done);
	if (st != HSAQM_HSA_STATUS_SUCCESS)
		return hsaqm_hsa_errno_from_status(st);
	struct hsaqm_aql_barrier_desc d = {
		.completion_signal = done.handle,
		.barrier = true,
		.release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
	};
	rc = hsaqm_aql_barrier_and_build(&pkt, &d);
	/* lib has let go: nobody else writes this ring, the single-producer path is ours. */
	if (!rc)
		rc = hsaqm_ring_submit_sp(&p->hw_ring, &pkt, 1, HSAQM_HSA_DRAIN_TIMEOUT_NS);
	while (!rc && rt->signal_load_scacquire(done) > 0) {
		if (HSAQM_READ_ONCE(p->hw_error)) {
			rc = -EIO; /* the queue failed meanwhile: nothing more will run */
			break;
		}
		if (hsaqm_mono_ns() >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		hsaqm_hsa_wait_step(rt, done, HSAQM_HSA_SIGNAL_CONDITION_LT, 1, DRAIN_STEP_TICKS);
	}
	/*
	 * A drain that timed out leaves the packet in the ring; the queue is destroyed next,
	 * and the runtime (ROCr, the model) never touches a completion signal of a destroyed
	 * queue's discarded packets, so the signal can go.
	 */
	rt->signal_destroy(done);
	return rc;
}

int hsaqm_hsa_proxy_destroy(struct hsaqm_hsa_proxy *p)
{
	const struct hsaqm_hsa_runtime *rt;
	hsaqm_hsa_status_t st;
	bool detached;
	int rc = 0, err;

	if (!p)
		return 0;
	if (p->magic != HSAQM_HSA_PROXY_MAGIC)
		return -EINVAL;
	rt = p->rt;
	hsaqm_hsa_lookup_remove(p);
	/* Doorbells stop reaching lib; one in progress finishes first (it holds db_lock). */
	pthread_mutex_lock(&p->db_lock);
	p->dead = true;
	detached = p->detached;
	pthread_mutex_unlock(&p->db_lock);
	/* Completions stop reaching lib; a handler in progress finishes first (slot lock). */
	pthread_mutex_lock(&p->mslot->lock);
	p->mslot->proxy = NULL;
	pthread_mutex_unlock(&p->mslot->lock);
	/*
	 * lib releases everything held, opens the gate, resumes the queue (decision 4). A
	 * queue whose context already went was let go then (be_detached()).
	 */
	err = detached ? 0 : hsaqm_xq_detach(p->xq);
	if (err) {
		hsaqm_log_warn("queue %llu: detach: %s", (unsigned long long)p->amd->hsa_queue.id,
			       strerror(-err));
		rc = err;
	}
	if (!HSAQM_READ_ONCE(p->hw_error)) {
		err = drain(p);
		if (err && err != -EIO) {
			hsaqm_log_notice(NULL,
					 "queue %llu: destroyed before its work ran (%s)",
					 (unsigned long long)p->amd->hsa_queue.id, strerror(-err));
			if (!rc)
				rc = err;
		}
	}
	st = rt->queue_destroy(p->hwq);
	if (st != HSAQM_HSA_STATUS_SUCCESS && !rc)
		rc = hsaqm_hsa_errno_from_status(st);
	/* The queue is gone, nothing decrements the marker signal now: reusable if so. */
	hsaqm_hsa_mslot_put(p->rtp, p->mslot, st == HSAQM_HSA_STATUS_SUCCESS);
	proxy_free(p);
	return rc;
}
