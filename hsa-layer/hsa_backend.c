/* SPDX-License-Identifier: MIT */
/*
 * hsa_backend.c - lib's backend operations on a proxy queue (hsaqm/backend.h): release
 * (copy proxy packets into the hardware ring with guardians and a marker), the Lv2 gate,
 * Lv3 suspend and resume through kfd-ioctl (DBG_TRAP, or UPDATE_QUEUE 0 / 100), the CU mask
 * of the spatial fallback, and the level and mechanism the queue can have. lib calls all of them under its device lock; none blocks for long except the Lv3
 * ioctls, which are the preemption itself. docs/hsa-backend.md.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hsa_backend_internal.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-common/log.h"

void (*hsaqm_hsa_release_hook)(struct hsaqm_hsa_proxy *p, uint64_t hw_first, uint32_t n,
			       const uint8_t *kinds, const uint64_t *app_index);
void (*hsaqm_hsa_gate_hook)(struct hsaqm_hsa_proxy *p, bool closed);

/*
 * Packets whose headers are published together, the first one last: the bodies go straight
 * into the hardware ring, only their header words wait here (256 bytes of stack).
 */
#define RELEASE_CHUNK 64u

#define HEADER_BARRIER_BIT (1u << HSAQM_AQL_HEADER_BARRIER_SHIFT)

struct release_out {
	const struct hsaqm_ring *ring;
	uint64_t first; /* hardware index of the chunk's first packet */
	uint32_t m;     /* packets of the chunk written */
	uint32_t hdr[RELEASE_CHUNK];
};

static inline void out_flush(struct release_out *o)
{
	if (!o->m)
		return;
	/*
	 * Type checks skipped on purpose: an application packet of a reserved type must reach
	 * the packet processor, which reports it to the application as ROCr's would.
	 */
	__hsaqm_ring_publish_headers(o->ring, o->first, o->hdr, 1, o->m, NULL);
	o->first += o->m;
	o->m = 0;
}

/* The body of @src (bytes 4..63) into the next hardware slot; @hdr goes with its chunk. */
static inline void out_put(struct release_out *o, const union hsaqm_aql_packet *src, uint32_t hdr)
{
	union hsaqm_aql_packet *slot = &o->ring->base[(o->first + o->m) & o->ring->mask];

	/* Plain stores: the slot's header stays INVALID until its chunk is published. */
	memcpy(&slot->bytes[4], &src->bytes[4], HSAQM_AQL_PACKET_SIZE - 4);
	o->hdr[o->m++] = hdr;
	if (o->m == RELEASE_CHUNK)
		out_flush(o);
}

/*
 * A release lib should never ask for (its bookkeeping is off): said, refused. Out of line:
 * lib is the boundary that checks, this only keeps a bug from writing a wrong ring.
 */
static int __attribute__((cold, noinline))
release_refused(const struct hsaqm_hsa_proxy *p, const struct hsaqm_release *rel)
{
	if (rel->first != p->released) {
		hsaqm_log_err("release from %llu, but %llu packets were released",
			      (unsigned long long)rel->first, (unsigned long long)p->released);
		return -EIO;
	}
	if (rel->first + rel->n > HSAQM_READ_ONCE(p->scan_end)) {
		hsaqm_log_err("release of %u packets past the %llu submitted", rel->n,
			      (unsigned long long)HSAQM_READ_ONCE(p->scan_end));
		return -EIO;
	}
	return -EINVAL; /* a guardian rhythm with interval 0 or skip >= interval */
}

/*
 * The test hook's view of a release (hsaqm_hsa_release_hook): what each hardware slot got.
 * Built after the fact from the release's own rhythm, so the hot path records nothing; the
 * tests compare it with the hardware slots themselves.
 */
static void __attribute__((cold, noinline))
release_report(struct hsaqm_hsa_proxy *p, const struct hsaqm_release *rel, uint64_t hw_first,
	       uint32_t total, uint64_t first_guard, uint32_t interval, bool marker)
{
	void (*hook)(struct hsaqm_hsa_proxy *, uint64_t, uint32_t, const uint8_t *,
		     const uint64_t *) = HSAQM_READ_ONCE(hsaqm_hsa_release_hook);
	uint8_t *kinds = malloc(total);
	uint64_t *app = malloc(total * sizeof(uint64_t));
	uint64_t next_guard = first_guard;
	uint32_t k = 0;

	if (hook && kinds && app) {
		for (uint32_t i = 0; i < rel->n; i++) {
			if (i == next_guard) {
				kinds[k] = HSAQM_HSA_SLOT_GUARD;
				app[k++] = 0;
				next_guard += interval;
			}
			kinds[k] = HSAQM_HSA_SLOT_APP;
			app[k++] = rel->first + i;
		}
		if (marker) {
			kinds[k] = HSAQM_HSA_SLOT_MARKER;
			app[k++] = 0;
		}
		hook(p, hw_first, k, kinds, app);
	}
	free(kinds);
	free(app);
}

/*
 * Move rel->n proxy packets, in order, into the hardware ring, with guardians where @rel
 * says and a marker after them if asked; then free their proxy slots.
 *
 * A guardian takes the barrier bit of the packet it guards. It never adds serialisation
 * (that packet waits for everything before it anyway), and it makes the gate count at the
 * last moment: without it the packet processor would pass the guardian of kernel i + 1 as
 * soon as kernel i launched, and a gate closed while kernel i runs would stop the queue one
 * kernel later than it could. A guardian before a packet without the barrier bit has none
 * (design decision 3: gating launch, not serialising kernels).
 *
 * This is the hot path of every dispatch (lib calls it from the doorbell): each packet is
 * copied once, proxy slot to hardware slot, and nothing else runs per packet.
 */
static int be_release(void *bq, const struct hsaqm_release *rel)
{
	struct hsaqm_hsa_proxy *p = bq;
	const uint32_t n = rel->n;
	const bool guarded = (rel->flags & HSAQM_RELEASE_GUARDED) && n;
	const bool marker = rel->flags & HSAQM_RELEASE_MARKER;
	const uint32_t interval = guarded ? rel->guard_interval : 0;
	uint64_t hw_first, next_guard = guarded ? rel->guard_skip : UINT64_MAX;
	const uint64_t first_guard = next_guard;
	uint32_t guards = 0, total;
	struct release_out o;
	int rc;

	if (!n && !marker)
		return 0;
	/* Relaxed scan_end: lib releases only what the doorbell reported, after it stored this. */
	if (__builtin_expect(rel->first != p->released ||
			     rel->first + n > HSAQM_READ_ONCE(p->scan_end) ||
			     (guarded && (!interval || rel->guard_skip >= interval)), 0))
		return release_refused(p, rel);
	if (guarded && n > rel->guard_skip)
		guards = (n - rel->guard_skip - 1) / interval + 1;
	total = n + guards + (marker ? 1u : 0u);
	if (total > p->hw_ring.size)
		return -EAGAIN; /* lib halves and tries again */
	/* Single producer: lib serialises release() per queue, and nothing else writes here. */
	rc = hsaqm_ring_reserve_sp(&p->hw_ring, total, 0, &hw_first);
	if (rc)
		return rc;

	o.ring = &p->hw_ring;
	o.first = hw_first;
	o.m = 0;
	if (marker) {
		if (!p->mk_first_seq) {
			/* Relaxed: the marker's publication below orders it before completion. */
			HSAQM_WRITE_ONCE(p->mk_first_seq, rel->marker_seq);
		} else if (rel->marker_seq != p->mk_first_seq + p->mk_written) {
			hsaqm_log_err("marker %llu released, %llu expected",
				      (unsigned long long)rel->marker_seq,
				      (unsigned long long)(p->mk_first_seq + p->mk_written));
		}
		/* Relaxed: counted before the marker is published, read by the marker handler. */
		HSAQM_WRITE_ONCE(p->mk_written, p->mk_written + 1);
	}
	for (uint32_t i = 0; i < n; i++) {
		const union hsaqm_aql_packet *slot = &p->ring[(rel->first + i) & p->mask];
		/* Acquire: the application's release of this header; its body is whole now. */
		uint32_t word = hsaqm_aql_slot_load_header(slot);

		if (i == next_guard) {
			out_put(&o, &p->guard_pkt, p->guard_pkt.u32[0] | (word & HEADER_BARRIER_BIT));
			next_guard += interval;
		}
		/* A waiting packet: remember where it went (lib's head_waits(), hsa_dep.c). */
		if (__builtin_expect((word & 0xffu) != HSAQM_AQL_TYPE_KERNEL_DISPATCH, 0))
			hsaqm_hsa_dep_released(p, slot, word, o.first + o.m);
		out_put(&o, slot, word);
	}
	if (marker)
		out_put(&o, &p->marker_pkt, p->marker_pkt.u32[0]);
	out_flush(&o);
	/* The callback stores with release: every header above precedes it. */
	hsaqm_ring_doorbell(&p->hw_ring, hw_first + total - 1);

	/*
	 * Give the slots back: INVALID first (each a release store), then the read index
	 * (release): an application that sees the index free reuses slots we no longer read.
	 */
	for (uint32_t i = 0; i < n; i++)
		hsaqm_aql_slot_invalidate(&p->ring[(rel->first + i) & p->mask]);
	p->released += n;
	/* Release: the INVALID stores above precede the index the producers wait on. */
	hsaqm_store_release((uint64_t *)(uintptr_t)&p->amd->read_dispatch_id, p->released);
	p->guards_written += guards;
	/* Relaxed, as every read of a hook: tests set and clear them while queues run. */
	if (__builtin_expect(HSAQM_READ_ONCE(hsaqm_hsa_release_hook) != NULL, 0))
		release_report(p, rel, hw_first, total, first_guard, interval, marker);
	return 0;
}

static int gate_store(struct hsaqm_hsa_proxy *p, hsaqm_hsa_signal_value_t v)
{
	/*
	 * The runtime's release store: the packet processor, waiting in a guardian on this
	 * signal, sees it (the runtime wakes it), and nothing is reordered across it.
	 */
	p->rt->signal_store_screlease(p->gate, v);
	void (*hook)(struct hsaqm_hsa_proxy *, bool) = HSAQM_READ_ONCE(hsaqm_hsa_gate_hook);

	if (hook)
		hook(p, v != 0);
	return 0;
}

static int be_gate_close(void *bq)
{
	struct hsaqm_hsa_proxy *p = bq;

	if (!p)
		return -EINVAL;
	p->n_gate_close++;
	return gate_store(p, 1);
}

static int be_gate_open(void *bq)
{
	return bq ? gate_store(bq, 0) : -EINVAL;
}

/* One DBG_TRAP suspend or resume of the queue: 0, a refusal lib falls back on, or -EIO. */
static int dbg_one(struct hsaqm_hsa_proxy *p, bool suspend)
{
	uint32_t id = p->kfd_queue_id;
	int rc, st;

	if (suspend)
		rc = hsaqm_kfd_dbg_suspend_queues(p->rtp->kfd, &id, 1, HSAQM_HSA_LV3_GRACE_UNITS,
						  0);
	else
		rc = hsaqm_kfd_dbg_resume_queues(p->rtp->kfd, &id, 1);
	if (rc < 0)
		return rc; /* EPERM, EINVAL... lib tells a refusal from a failure */
	st = hsaqm_kfd_dbg_entry_status(id);
	if (st == HSAQM_KFD_DBG_ENTRY_INVALID)
		return -EINVAL; /* unknown, new or being destroyed: the KFD refuses this queue */
	if (st == HSAQM_KFD_DBG_ENTRY_ERROR || rc != 1)
		return -EIO;
	return 0;
}

/*
 * UPDATE_QUEUE with percentage 0 / 100, the queue's own ring, size and KFD priority, as ROCr
 * suspends its queues (lv3_lock held). A resume with an application priority change that
 * waited goes through the runtime's own set_priority, which reactivates the queue with the
 * new priority (ROCr's UpdateQueue(100, priority)).
 */
static int update_one(struct hsaqm_hsa_proxy *p, bool suspend)
{
	uint64_t ring = (uint64_t)(uintptr_t)p->hwq->base_address;
	uint32_t bytes = p->hwq->size * HSAQM_AQL_PACKET_SIZE;

	if (suspend)
		return hsaqm_kfd_queue_deactivate(p->rtp->kfd, p->kfd_queue_id, ring, bytes,
						  p->kfd_priority);
	/* Acquire: the error callback's store; a faulted queue stays inactive (ROCr's choice). */
	if (hsaqm_load_acquire(&p->hw_error))
		return 0;
	if (p->pending_prio >= 0) {
		hsaqm_hsa_status_t st = p->rt->amd_queue_set_priority(
			p->hwq, (hsaqm_hsa_amd_queue_priority_t)p->pending_prio);

		p->pending_prio = -1;
		if (st == HSAQM_HSA_STATUS_SUCCESS)
			return 0;
	}
	return hsaqm_kfd_queue_activate(p->rtp->kfd, p->kfd_queue_id, ring, bytes,
					p->kfd_priority);
}

/* Stop or restart the queue with its mechanism (lv3_lock held). */
static int lv3_one(struct hsaqm_hsa_proxy *p, enum hsaqm_kfd_mech m, bool suspend)
{
	return m == HSAQM_KFD_MECH_UPDATE_QUEUE ? update_one(p, suspend) : dbg_one(p, suspend);
}

/* Refusals that make the backend try the next mechanism (the rest fail open in lib). */
static bool refusal(int rc)
{
	return rc == -EPERM || rc == -EALREADY || rc == -EOPNOTSUPP || rc == -ENOTTY ||
	       rc == -ENOSYS || rc == -EINVAL || rc == -EACCES;
}

/*
 * The fallback chain's first steps: DBG_TRAP, and if the KFD refuses it, UPDATE_QUEUE (kfd-
 * ioctl's decision, told of the refusal). Only when no mechanism is left does a refusal go
 * back to lib, which falls back to Lv2 (and spatial).
 */
static int be_suspend(void *bq)
{
	struct hsaqm_hsa_proxy *p = bq;
	int rc;

	if (!p)
		return -EINVAL;
	if (hsaqm_hsa_lv3_stale(p))
		p->lv3_state = HSAQM_HSA_LV3_UNRESOLVED; /* another queue met a refusal: again */
	rc = hsaqm_hsa_lv3_resolve(p);
	for (int tries = 0; !rc && tries < HSAQM_KFD_NMECH; tries++) {
		enum hsaqm_kfd_mech m = p->mech;

		pthread_mutex_lock(&p->lv3_lock);
		rc = lv3_one(p, m, true);
		if (rc == 0) {
			p->suspended = true;
			p->suspended_by = m;
			p->n_suspend++;
		}
		pthread_mutex_unlock(&p->lv3_lock);
		if (rc == 0 || !refusal(rc))
			return rc;
		rc = hsaqm_hsa_lv3_refused(p, rc);
	}
	return rc;
}

static int be_resume(void *bq)
{
	struct hsaqm_hsa_proxy *p = bq;
	int rc;

	if (!p)
		return -EINVAL;
	if (p->lv3_state != HSAQM_HSA_LV3_READY || !p->suspended)
		return -EIO; /* never suspended through us: lib's bookkeeping is off */
	pthread_mutex_lock(&p->lv3_lock);
	rc = lv3_one(p, p->suspended_by, false);
	if (rc == 0) {
		p->suspended = false;
		p->n_resume++;
	}
	pthread_mutex_unlock(&p->lv3_lock);
	return rc;
}

static int be_mechanism(void *bq, char *why, uint32_t why_len)
{
	struct hsaqm_hsa_proxy *p = bq;
	struct hsaqm_kfd_lv3 d;
	enum hsaqm_kfd_mech m;

	if (!p)
		return -EINVAL;
	if (p->lv3_state == HSAQM_HSA_LV3_READY && !hsaqm_hsa_lv3_stale(p)) {
		m = p->mech;
		if (why && why_len)
			snprintf(why, why_len, "%s", p->mech_why);
	} else {
		/* Not looked up yet: what the decision would give now. */
		hsaqm_hsa_lv3_decision(p->rtp, p->gpu_node, &d);
		m = d.mech;
		if (why && why_len)
			snprintf(why, why_len, "%s", d.reason);
	}
	return m == HSAQM_KFD_MECH_UPDATE_QUEUE ? HSAQM_MECH_UPDATE_QUEUE : HSAQM_MECH_DBG_TRAP;
}

/*
 * Spatial: the queue's CU mask without the first @reserve_permille of the device's CUs (at
 * least one CU each side), intersected with the mask the application set; 0 restores that
 * mask. Through the runtime's public hsa_amd_queue_cu_set_mask: no debugger, no KFD id. On
 * HWS the KFD applies a mask with a runlist change, like UPDATE_QUEUE (kfd_chardev.c
 * set_cu_mask -> the dqm's update_queue): the running waves are saved and come back where the
 * new mask allows, if the hardware does so (hsa-queue-probe's cu_mask check measures it).
 */
static int be_cu_confine(void *bq, uint32_t reserve_permille)
{
	struct hsaqm_hsa_proxy *p = bq;
	const struct hsaqm_hsa_runtime *rt;
	uint32_t m[32], ncu, words, reserve;
	hsaqm_hsa_status_t st;

	if (!p || reserve_permille > 999)
		return -EINVAL;
	rt = p->rt;
	if (!rt->amd_queue_cu_set_mask)
		return -EOPNOTSUPP;
	ncu = p->hw_amd->max_cu_id + 1;
	words = (ncu + 31) / 32;
	if (words > 32 || ncu < 2)
		return -EOPNOTSUPP;
	if (!reserve_permille) {
		if (!p->confined)
			return 0;
		memset(m, 0xff, sizeof(m));
		st = rt->amd_queue_cu_set_mask(p->hwq, (p->saved_words ? p->saved_words : words) * 32,
					       p->saved_words ? p->saved_mask : m);
	} else {
		/* The application's mask (every CU when the runtime cannot say), kept to restore. */
		if (!p->confined) {
			p->saved_words = 0;
			if (rt->amd_queue_cu_get_mask &&
			    rt->amd_queue_cu_get_mask(p->hwq, words * 32, p->saved_mask) ==
				    HSAQM_HSA_STATUS_SUCCESS)
				p->saved_words = words;
		}
		reserve = (uint32_t)(((uint64_t)ncu * reserve_permille + 999) / 1000);
		if (reserve >= ncu)
			reserve = ncu - 1;
		memset(m, 0, sizeof(m));
		for (uint32_t cu = reserve; cu < ncu; cu++)
			if (!p->saved_words || ((p->saved_mask[cu / 32] >> (cu % 32)) & 1u))
				m[cu / 32] |= 1u << (cu % 32);
		st = rt->amd_queue_cu_set_mask(p->hwq, words * 32, m);
	}
	if (st != HSAQM_HSA_STATUS_SUCCESS && st != HSAQM_HSA_STATUS_CU_MASK_REDUCED)
		return st == HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT ? -EINVAL :
		       hsaqm_hsa_errno_from_status(st);
	p->confined = reserve_permille != 0;
	if (p->confined)
		p->n_confine++;
	return 0;
}

static int be_max_level(void *bq, char *why, uint32_t why_len)
{
	struct hsaqm_hsa_proxy *p = bq;

	if (!p)
		return -EINVAL;
	if (why && why_len)
		snprintf(why, why_len, "%s", p->max_why);
	return p->max_level;
}

/*
 * lib forgot the queue without hsaqm_hsa_proxy_destroy() (its context was destroyed first):
 * everything held was released, the gate is open, the queue resumed. From now on the proxy
 * passes packets straight through (decision 5: the application keeps running unscheduled).
 * Runs with lib's context lock held; the locks taken here are never held while taking it.
 */
static void be_detached(void *bq)
{
	struct hsaqm_hsa_proxy *p = bq;

	/* A proxy being destroyed: hsaqm_hsa_proxy_destroy() is letting go, nothing to do here. */
	if (!p || !hsaqm_hsa_proxy_lock_live(p))
		return;
	pthread_mutex_lock(&p->mslot->lock);
	p->mslot->proxy = NULL;
	p->xq = NULL;
	p->detached = true;
	pthread_mutex_unlock(&p->mslot->lock);
	pthread_mutex_unlock(&p->db_lock);
	hsaqm_log_notice(NULL, "queue %llu: its scheduling context is gone; it runs "
			       "unscheduled", (unsigned long long)p->amd->hsa_queue.id);
}

int hsaqm_hsa_pass_through(struct hsaqm_hsa_proxy *p, uint64_t end)
{
	struct timespec pause = { 0, 50000 };
	int rc = 0;

	/* 10 s of a full hardware ring: the packets stay in the proxy until the next doorbell. */
	for (int tries = 0; p->released < end && tries < 200000; tries++) {
		struct hsaqm_release rel = { .first = p->released };
		uint64_t n = end - p->released;

		rel.n = n > p->hw_ring.size ? p->hw_ring.size : (uint32_t)n;
		rc = be_release(p, &rel);
		if (rc == -EAGAIN) {
			nanosleep(&pause, NULL);
			continue;
		}
		if (rc)
			break;
	}
	return rc;
}

static int be_head_waits(void *bq)
{
	return bq ? hsaqm_hsa_dep_head_waits(bq) : -EINVAL;
}

const struct hsaqm_backend_ops hsaqm_hsa_backend_ops = {
	.release = be_release,
	.gate_close = be_gate_close,
	.gate_open = be_gate_open,
	.suspend = be_suspend,
	.resume = be_resume,
	.max_level = be_max_level,
	.detached = be_detached,
	.mechanism = be_mechanism,
	.cu_confine = be_cu_confine,
	.head_waits = be_head_waits,
};
