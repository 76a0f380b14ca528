/* SPDX-License-Identifier: MIT */
/*
 * The hardware scheduler (HWS on the MEC, sched_policy 0/1) and the queue control calls the
 * KFD face makes.
 *
 * Mapping: at most hqd_slots queues are on HQDs at once. With more queues that have work,
 * the HWS time-slices (hws_quantum_ns, an assumption): a queue mapped for a quantum is
 * preempted for the one that waited longest. A mapped queue with nothing to do gives its
 * slot up at once to a queue with work (assumption: the firmware notices idle queues).
 *
 * Runlist updates: on HWS every change the KFD makes to the runlist - creating, destroying
 * or updating a queue (priority, ring, percentage, CU mask), suspending or resuming queues
 * - goes through execute_queues_cpsch(): unmap ALL dynamic queues of the device (each pays
 * the preemption below) then map the new runlist (source: amdkfd kfd_device_queue_manager.c
 * update_queue / suspend_queues / resume_queues, filter KFD_UNMAP_QUEUES_FILTER_DYNAMIC_QUEUES).
 * The calling ioctl returns once the unmap is done; the map goes on behind it. The model does
 * the same: a control call blocks until every victim is unmapped, then the device maps the
 * runlist again. With sched_policy 2 (no HWS) only the queue concerned is unmapped.
 *
 * Preemption of a mapped queue: no new workgroup of it starts; its running workgroups get
 * the grace period (grace x 1024 GPU clocks; USE_DEFAULT_GRACE_PERIOD is the profile's
 * hws_default_grace_units, an assumption: 0);
 * those still running after it are saved by CWSR, keeping the time they still need; then the
 * unmap costs hws_unmap_ns. Each wave's trap handler saves its own state and the CUs do so at
 * the same time, so the save costs cwsr_save_ns_per_wave x the largest count of the queue's
 * waves on one CU, not x all its waves (assumption: no memory-bandwidth limit; 2,560 waves
 * of ~17 KiB are ~43 MB, ~9 us at the MI300's ~5 TB/s). Mapping costs hws_map_ns plus
 * cwsr_restore_ns_per_wave x that per-CU count, after which the saved workgroups are placed
 * again before any new one and finish: every workgroup still runs exactly once. With
 * cwsr_enable=0 the preemption waits for the running workgroups instead.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "hsaqm-common/log.h"

int sim_hws_level(uint32_t priority)
{
	/* amdkfd pipe_priority_map: 0-6 low, 7-10 medium, 11-15 high. */
	return priority <= 6 ? 0 : priority <= 10 ? 1 : 2;
}

uint64_t sim_hws_grace_ns(const struct sim_device *dev, uint64_t grace_units)
{
	uint64_t mhz = dev->prof.max_engine_clk_mhz ? dev->prof.max_engine_clk_mhz : 1;

	if (grace_units > UINT64_MAX / 1024000u)
		return UINT64_MAX / 2;
	return grace_units * 1024u * 1000u / mhz;
}

void sim_hws_publish_state(struct sim_hwq *q)
{
	enum sim_hwq_state st;

	if (q->error)
		st = SIM_HWQ_ERROR;
	else if (q->hstate == SIM_HQ_MAPPED || q->hstate == SIM_HQ_PREEMPTING)
		st = SIM_HWQ_MAPPED;
	else if (q->suspended || !q->active)
		st = SIM_HWQ_SUSPENDED;
	else
		st = SIM_HWQ_UNMAPPED;
	HSAQM_WRITE_ONCE(q->pub->info_state, (uint32_t)st);
}

/* May the HWS map this queue? (error queues only while they still have launched work) */
static bool eligible(const struct sim_hwq *q)
{
	if (q->destroyed || q->destroying || q->suspended || !q->active)
		return false;
	if (q->error)
		return q->ninflight || !sim_list_empty(&q->saved) || !sim_list_empty(&q->restore);
	return true;
}

static bool has_work(const struct sim_hwq *q)
{
	if (q->error)
		return q->ninflight || !sim_list_empty(&q->saved) || !sim_list_empty(&q->restore);
	return sim_pp_has_work(q);
}

static void trace_hws(struct sim_hwq *q, const char *name, uint64_t start, uint64_t end,
		      const char *args)
{
	struct sim_device *dev = q->dev;

	if (sim_trace_on(dev->sim))
		sim_trace_span(dev->sim, dev->index, SIM_TRACK_HWS(q->queue_index), name, start,
			       end - start, args);
}

static void slot_take(struct sim_device *dev, struct sim_hwq *q)
{
	for (uint32_t i = 0; i < dev->prof.hqd_slots; i++) {
		if (!dev->slots[i]) {
			dev->slots[i] = q;
			q->slot = (int32_t)i;
			dev->slots_used++;
			return;
		}
	}
}

static void slot_release(struct sim_device *dev, struct sim_hwq *q)
{
	if (q->slot >= 0) {
		dev->slots[q->slot] = NULL;
		q->slot = -1;
		dev->slots_used--;
	}
}

static void map_start(struct sim_hwq *q, uint64_t t)
{
	struct sim_device *dev = q->dev;
	uint64_t per_cu = q->waves_saved_cu_max < q->waves_saved_n ? q->waves_saved_cu_max
								    : q->waves_saved_n;
	uint64_t cost = dev->prof.hws_map_ns + dev->prof.cwsr_restore_ns_per_wave * per_cu;

	slot_take(dev, q);
	q->hstate = SIM_HQ_MAPPING;
	q->map_start = t;
	sim_ev_schedule(dev, &q->ev_map, t + cost);
}

static void map_done(struct sim_hwq *q, uint64_t t)
{
	struct sim_device *dev = q->dev;
	char args[96];

	q->hstate = SIM_HQ_MAPPED;
	q->map_time = t;
	/*
	 * acq_rel: a counter other threads and processes read; nothing else is published with
	 * it.
	 */
	hsaqm_fetch_add(&q->pub->stats.maps, 1ull);
	HSAQM_WRITE_ONCE(q->pub->stats.last_map_time, t);
	snprintf(args, sizeof(args), "{\"slot\":%d,\"waves_restored\":%" PRIu64 "}", q->slot,
		 q->waves_saved_n);
	trace_hws(q, q->waves_saved_n ? "map + CWSR restore" : "map", q->map_start, t, args);
	/* Saved workgroups come back before any new one. */
	while (!sim_list_empty(&q->saved)) {
		struct sim_list *n = q->saved.next;

		sim_list_del(n);
		sim_list_add_tail(&q->restore, n);
	}
	sim_hws_publish_state(q);
	dev->dispatch_dirty = true;
	dev->hws_dirty = true;
	sim_pp_run(q, t);
}

static void unmap_done(struct sim_hwq *q, uint64_t t);

/* Start taking @q off its HQD (grace, CWSR or drain, unmap). */
static void preempt_start(struct sim_hwq *q, uint64_t grace_units, uint64_t t)
{
	struct sim_device *dev = q->dev;
	uint64_t deadline = t + sim_hws_grace_ns(dev, grace_units);
	bool cwsr = !dev->sim->cfg.cwsr_disable;

	switch (q->hstate) {
	case SIM_HQ_UNMAPPED:
		return;
	case SIM_HQ_MAPPING:
		/* Nothing ran on the HQD yet: the map is simply not done (saved waves stay saved). */
		sim_ev_cancel(dev, &q->ev_map);
		slot_release(dev, q);
		q->hstate = SIM_HQ_UNMAPPED;
		q->wait_order = ++dev->wait_counter;
		sim_hws_publish_state(q);
		return;
	case SIM_HQ_PREEMPTING:
		/* A second, shorter grace period (a suspend during a time-slice switch) wins. */
		if (deadline < q->preempt_deadline) {
			q->preempt_deadline = deadline;
			if (sim_ev_pending(&q->ev_grace))
				sim_ev_schedule(dev, &q->ev_grace, deadline);
		}
		return;
	case SIM_HQ_MAPPED:
		break;
	}
	q->hstate = SIM_HQ_PREEMPTING;
	q->preempt_start = t;
	q->preempt_deadline = deadline;
	q->preempt_waves = 0;
	if (q->wgs_running_n == 0)
		sim_ev_schedule(dev, &q->ev_unmap, t + dev->prof.hws_unmap_ns);
	else if (cwsr)
		sim_ev_schedule(dev, &q->ev_grace, deadline);
	/* CWSR off: wait until the running workgroups finish (sim_hws_wgs_drained). */
}

void sim_hws_wgs_drained(struct sim_hwq *q, uint64_t t)
{
	struct sim_device *dev = q->dev;

	sim_ev_cancel(dev, &q->ev_grace);
	if (!sim_ev_pending(&q->ev_unmap))
		sim_ev_schedule(dev, &q->ev_unmap, t + dev->prof.hws_unmap_ns);
}

static void grace_over(struct sim_hwq *q, uint64_t t)
{
	struct sim_device *dev = q->dev;
	uint64_t waves = sim_queue_save_running(q, t);

	q->preempt_waves = waves;
	sim_ev_schedule(dev, &q->ev_unmap,
			t + q->save_cu_max * dev->prof.cwsr_save_ns_per_wave + dev->prof.hws_unmap_ns);
}

static void rl_progress(struct sim_device *dev, uint64_t t);

static void unmap_done(struct sim_hwq *q, uint64_t t)
{
	struct sim_device *dev = q->dev;
	char args[96];

	slot_release(dev, q);
	q->hstate = SIM_HQ_UNMAPPED;
	q->wait_order = ++dev->wait_counter;
	/* acq_rel: as maps above. */
	hsaqm_fetch_add(&q->pub->stats.unmaps, 1ull);
	HSAQM_WRITE_ONCE(q->pub->stats.last_unmap_time, t);
	snprintf(args, sizeof(args), "{\"waves_saved\":%" PRIu64 "}", q->preempt_waves);
	trace_hws(q, "preempt", q->preempt_start, t, args);
	sim_hws_publish_state(q);
	dev->hws_dirty = true;
	rl_progress(dev, t);
}

/* ------------------------------------------------------------------------------------
 * Runlist updates (the KFD's execute_queues_cpsch).
 */
static void req_complete(struct sim_req *req, int result, uint64_t t)
{
	req->result = result;
	req->done_at = t;
	/* Release: the device's work on the request before the caller sees done. */
	hsaqm_store_release(&req->done, 1u);
	sim_futex_wake(&req->done, 1);
}

static bool victims_unmapped(const struct sim_device *dev, const struct sim_req *req)
{
	if (!dev->rl_victims_named)
		return dev->slots_used == 0;
	for (uint32_t i = 0; i < req->n; i++)
		if (req->q[i]->hstate != SIM_HQ_UNMAPPED)
			return false;
	return true;
}

static void rl_finish(struct sim_device *dev, uint64_t t)
{
	struct sim_req *req = dev->rl_current;
	struct sim_hwq *q = req->n ? req->q[0] : NULL;

	switch (req->kind) {
	case SIM_REQ_UPDATE:
		if (req->ring_base) {
			HSAQM_WRITE_ONCE(q->ring, (union hsaqm_aql_packet *)req->ring_base);
			HSAQM_WRITE_ONCE(q->ring_size_bytes, req->ring_size_bytes);
			HSAQM_WRITE_ONCE(q->ring_slots, req->ring_size_bytes / HSAQM_AQL_PACKET_SIZE);
			HSAQM_WRITE_ONCE(q->pub->ring_base, (uint64_t)(uintptr_t)req->ring_base);
			HSAQM_WRITE_ONCE(q->pub->ring_size_bytes, req->ring_size_bytes);
			HSAQM_WRITE_ONCE(q->pub->ring_slots, req->ring_size_bytes / HSAQM_AQL_PACKET_SIZE);
		}
		HSAQM_WRITE_ONCE(q->priority, req->priority);
		HSAQM_WRITE_ONCE(q->pub->priority, req->priority);
		q->active = req->active;
		break;
	case SIM_REQ_CU_MASK:
		memcpy(q->cu_mask, req->cu_mask, ((dev->ncu + 31) / 32) * sizeof(uint32_t));
		break;
	case SIM_REQ_DESTROY:
		/* Running workgroups were saved or drained by the unmap; what is left never completes. */
		sim_hwq_unlink(dev, q);
		dev->nqueues--;
		q->destroyed = true;
		break;
	default:
		break;
	}
	for (struct sim_list *l = dev->queues.next; l != &dev->queues; l = l->next)
		sim_hws_publish_state(sim_container_of(l, struct sim_hwq, link));
	dev->rl_current = NULL;
	dev->hws_dirty = true;
	dev->dispatch_dirty = true;
	/*
	 * DBG_TRAP suspend and resume: the KFD's work after its runlist change (amdkfd
	 * suspend_queues flushes HDP and copies the saved contexts for the debugger after
	 * execute_queues_cpsch; resume_queues wakes waiting destroys) is the profile's
	 * dbg_suspend_ns / dbg_resume_ns, an assumption. The HWS has already acted: the queues
	 * are off the HQDs, the remap goes on now; only the caller waits longer.
	 */
	uint64_t tail = req->kind == SIM_REQ_SUSPEND ? dev->prof.dbg_suspend_ns :
			req->kind == SIM_REQ_RESUME ? dev->prof.dbg_resume_ns : 0;
	if (tail) {
		sim_ev_init(&req->ev_tail, SIM_EV_REQ_TAIL, req);
		sim_ev_schedule(dev, &req->ev_tail, t + tail);
		return; /* the next request may start from settle() meanwhile */
	}
	req_complete(req, 0, t); /* the next request starts from settle() */
}

static void rl_progress(struct sim_device *dev, uint64_t t)
{
	if (dev->rl_current && victims_unmapped(dev, dev->rl_current))
		rl_finish(dev, t);
}

static int grow_cand(struct sim_device *dev)
{
	if (dev->nqueues <= dev->capcand)
		return 0;
	uint32_t cap = dev->capcand ? dev->capcand * 2 : 32;
	while (cap < dev->nqueues)
		cap *= 2;
	struct sim_hwq **c = realloc(dev->cand, cap * sizeof(*c));
	if (!c)
		return -ENOMEM;
	dev->cand = c;
	dev->capcand = cap;
	return 0;
}

/*
 * The trace arguments of a suspend or resume: late_ns, how long after its caller made it the
 * request acted (the device was busy with an earlier one, or its clock was past the call's
 * stamp). Only written when tracing.
 */
static void trace_late(const struct sim_device *dev, const struct sim_req *req, uint64_t t,
		       char *buf, size_t n)
{
	if (sim_trace_on(dev->sim))
		snprintf(buf, n, "{\"late_ns\":%" PRIu64 "}", t - req->time);
}

void sim_hws_request(struct sim_device *dev, struct sim_req *req, uint64_t t)
{
	struct hsaqm_sim *sim = dev->sim;
	uint64_t grace = dev->prof.hws_default_grace_units;
	char name[64];

	switch (req->kind) {
	case SIM_REQ_CREATE: {
		struct sim_hwq *q = req->q[0];

		dev->nqueues++;
		if (grow_cand(dev)) {
			dev->nqueues--;
			req_complete(req, -ENOMEM, t);
			return;
		}
		sim_list_add_tail(&dev->queues, &q->link);
		q->wait_order = ++dev->wait_counter;
		if (sim_trace_on(sim)) {
			snprintf(name, sizeof(name), "queue %u packets", q->queue_index);
			sim_trace_name_track(sim, dev->index, SIM_TRACK_QUEUE(q->queue_index), name);
			snprintf(name, sizeof(name), "queue %u HWS", q->queue_index);
			sim_trace_name_track(sim, dev->index, SIM_TRACK_HWS(q->queue_index), name);
		}
		break;
	}
	case SIM_REQ_DESTROY:
		req->q[0]->destroying = true;
		break;
	case SIM_REQ_SUSPEND:
		if (req->grace_units != SIM_HWQ_GRACE_DEFAULT)
			grace = req->grace_units;
		trace_late(dev, req, t, name, sizeof(name));
		for (uint32_t i = 0; i < req->n; i++) {
			req->q[i]->suspended = true;
			sim_trace_instant_at(sim, dev->index, SIM_TRACK_QUEUE(req->q[i]->queue_index),
					     "suspend", t, name);
		}
		break;
	case SIM_REQ_RESUME:
		for (uint32_t i = 0; i < req->n; i++) {
			if (!req->q[i]->suspended) {
				req_complete(req, -EINVAL, t);
				return;
			}
		}
		trace_late(dev, req, t, name, sizeof(name));
		for (uint32_t i = 0; i < req->n; i++) {
			req->q[i]->suspended = false;
			sim_trace_instant_at(sim, dev->index, SIM_TRACK_QUEUE(req->q[i]->queue_index),
					     "resume", t, name);
		}
		break;
	default:
		break;
	}
	dev->rl_current = req;
	if (dev->rl_victims_named) {
		/* No HWS: the KFD drains or saves just the queue it changes. */
		if (req->kind != SIM_REQ_CREATE)
			for (uint32_t i = 0; i < req->n; i++)
				preempt_start(req->q[i], grace, t);
	} else {
		for (uint32_t i = 0; i < dev->prof.hqd_slots; i++)
			if (dev->slots[i])
				preempt_start(dev->slots[i], grace, t);
	}
	rl_progress(dev, t);
}

/* ------------------------------------------------------------------------------------
 * Mapping and time slicing.
 */
static struct sim_hwq *best_waiting(struct sim_device *dev, bool need_work)
{
	struct sim_hwq *best = NULL;
	bool best_work = false;

	for (struct sim_list *l = dev->queues.next; l != &dev->queues; l = l->next) {
		struct sim_hwq *q = sim_container_of(l, struct sim_hwq, link);

		if (q->hstate != SIM_HQ_UNMAPPED || !eligible(q))
			continue;
		bool w = has_work(q);
		if (need_work && !w)
			continue;
		if (!best || (w && !best_work) || (w == best_work && q->wait_order < best->wait_order)) {
			best = q;
			best_work = w;
		}
	}
	return best;
}

static uint32_t count_waiting_with_work(struct sim_device *dev)
{
	uint32_t n = 0;

	for (struct sim_list *l = dev->queues.next; l != &dev->queues; l = l->next) {
		struct sim_hwq *q = sim_container_of(l, struct sim_hwq, link);

		n += q->hstate == SIM_HQ_UNMAPPED && eligible(q) && has_work(q);
	}
	return n;
}

void sim_hws_schedule(struct sim_device *dev, uint64_t t)
{
	if (dev->rl_current)
		return;
	while (dev->slots_used < dev->prof.hqd_slots) {
		struct sim_hwq *q = best_waiting(dev, false);

		if (!q)
			break;
		map_start(q, t);
	}
	uint32_t waiting = count_waiting_with_work(dev);
	if (!waiting) {
		sim_ev_cancel(dev, &dev->ev_quantum);
		return;
	}
	/* Mapped queues with nothing to do (or that may not run) give their slot up at once. */
	for (uint32_t i = 0; i < dev->prof.hqd_slots && waiting; i++) {
		struct sim_hwq *q = dev->slots[i];

		if (q && q->hstate == SIM_HQ_MAPPED && (!eligible(q) || !has_work(q))) {
			preempt_start(q, dev->prof.hws_default_grace_units, t);
			waiting--;
		}
	}
	if (!waiting || dev->sim->cfg.sched_policy != 0)
		return; /* sched_policy 1: no oversubscription, the rest waits for a free slot */
	uint64_t tq = UINT64_MAX;
	for (uint32_t i = 0; i < dev->prof.hqd_slots; i++) {
		struct sim_hwq *q = dev->slots[i];

		if (q && q->hstate == SIM_HQ_MAPPED && q->map_time + dev->prof.hws_quantum_ns < tq)
			tq = q->map_time + dev->prof.hws_quantum_ns;
	}
	if (tq != UINT64_MAX && (!sim_ev_pending(&dev->ev_quantum) || dev->ev_quantum.time != tq))
		sim_ev_schedule(dev, &dev->ev_quantum, tq);
}

static void quantum_over(struct sim_device *dev, uint64_t t)
{
	uint32_t waiting = count_waiting_with_work(dev);

	/* Preempt the queues whose quantum is over, longest mapped first, one per waiting queue. */
	while (waiting && !dev->rl_current) {
		struct sim_hwq *oldest = NULL;

		for (uint32_t i = 0; i < dev->prof.hqd_slots; i++) {
			struct sim_hwq *q = dev->slots[i];

			if (q && q->hstate == SIM_HQ_MAPPED && q->map_time + dev->prof.hws_quantum_ns <= t &&
			    (!oldest || q->map_time < oldest->map_time))
				oldest = q;
		}
		if (!oldest)
			break;
		preempt_start(oldest, dev->prof.hws_default_grace_units, t);
		waiting--;
	}
	dev->hws_dirty = true;
}

void sim_hws_event(struct sim_device *dev, struct sim_event *ev, uint64_t t)
{
	switch (ev->kind) {
	case SIM_EV_GRACE:
		grace_over(ev->obj, t);
		break;
	case SIM_EV_UNMAP:
		unmap_done(ev->obj, t);
		break;
	case SIM_EV_MAP:
		map_done(ev->obj, t);
		break;
	case SIM_EV_QUANTUM:
		quantum_over(dev, t);
		break;
	case SIM_EV_REQ_TAIL:
		req_complete(ev->obj, 0, t);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------------------------------
 * Control calls (sim_internal.h).
 */
static bool ring_ok(const struct sim_arena *mem, const void *base, uint32_t size)
{
	return base && !((uintptr_t)base & (HSAQM_AQL_PACKET_SIZE - 1)) && size >= HSAQM_AQL_PACKET_SIZE &&
	       !(size & (size - 1)) && sim_arena_contains(mem, base, size);
}

static bool index_ok(const struct sim_arena *mem, const uint64_t *p)
{
	return p && !((uintptr_t)p & 7) && sim_arena_contains(mem, p, sizeof(*p));
}

void sim_hwq_free(struct sim_hwq *q)
{
	pthread_mutex_destroy(&q->db_lock);
	free(q->db);
	free(q->cu_mask);
	free(q->inflight);
	free(q);
}

int sim_hwq_create(struct hsaqm_sim *sim, const struct sim_hwq_desc *d, struct sim_hwq **out)
{
	if (sim && sim->role == SIM_ROLE_CLIENT)
		return sim_client_hwq_create(sim, d, out);
	return sim_hwq_create_in(sim, NULL, NULL, d, out);
}

int sim_hwq_create_in(struct hsaqm_sim *sim, const struct sim_arena *arena, struct sim_hwq_shm *shm,
		      const struct sim_hwq_desc *d, struct sim_hwq **out)
{
	const struct sim_arena *mem = arena ? arena : sim ? &sim->arena : NULL;

	if (!sim || !d || !out || d->dev >= sim->ndev || d->priority > 15 ||
	    !ring_ok(mem, d->ring_base, d->ring_size_bytes) || !index_ok(mem, d->write_ptr) ||
	    !index_ok(mem, d->read_ptr))
		return -EINVAL;
	struct sim_device *dev = sim->dev[d->dev];
	struct sim_hwq *q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->cu_mask = malloc(((dev->ncu + 31) / 32) * sizeof(uint32_t));
	q->inflight = calloc(dev->prof.max_inflight_dispatches, sizeof(*q->inflight));
	if (!q->cu_mask || !q->inflight) {
		free(q->cu_mask);
		free(q->inflight);
		free(q);
		return -ENOMEM;
	}
	memset(q->cu_mask, 0xff, ((dev->ncu + 31) / 32) * sizeof(uint32_t));
	q->dev = dev;
	q->arena = arena;
	q->shm = shm;
	q->pub = shm ? &shm->pub : &q->own_pub;
	/* acq_rel: only the index's uniqueness across creating threads matters. */
	q->queue_index = hsaqm_fetch_add(&dev->next_queue_index, 1u);
	q->pasid = d->pasid;
	q->error_fn = d->error_fn;
	q->error_ctx = d->error_ctx;
	q->ring = d->ring_base;
	q->ring_size_bytes = d->ring_size_bytes;
	q->ring_slots = d->ring_size_bytes / HSAQM_AQL_PACKET_SIZE;
	q->write_ptr = d->write_ptr;
	q->read_ptr = d->read_ptr;
	q->priority = d->priority;
	q->active = d->active;
	/*
	 * Acquire: pairs with whoever stored the read index last (release): the slots below it
	 * are consumed.
	 */
	q->rd = hsaqm_load_acquire(d->read_ptr);
	q->slot = -1;
	/* Relaxed atomics: in shared mode the client reads these in its own process. */
	HSAQM_WRITE_ONCE(q->pub->ring_slots, q->ring_slots);
	HSAQM_WRITE_ONCE(q->pub->ring_size_bytes, q->ring_size_bytes);
	HSAQM_WRITE_ONCE(q->pub->ring_base, (uint64_t)(uintptr_t)q->ring);
	HSAQM_WRITE_ONCE(q->pub->priority, q->priority);
	if (shm) {
		/* The client's log starts where it is (a new page is all zeros). */
		q->shm_head = hsaqm_load_acquire(&shm->db_tail);
		/*
		 * Release, then release: the head before the magic, so a client that sees the
		 * magic (acquire) sees the head.
		 */
		hsaqm_store_release(&shm->db_head, q->shm_head);
		hsaqm_store_release(&shm->magic, SIM_HWQ_SHM_MAGIC);
	}
	sim_list_init(&q->link);
	sim_list_init(&q->running);
	sim_list_init(&q->saved);
	sim_list_init(&q->restore);
	pthread_mutex_init(&q->db_lock, NULL);
	q->db_limit = q->rd;
	sim_ev_init(&q->ev_launch, SIM_EV_LAUNCH, q);
	sim_ev_init(&q->ev_pp, SIM_EV_PP, q);
	sim_ev_init(&q->ev_grace, SIM_EV_GRACE, q);
	sim_ev_init(&q->ev_unmap, SIM_EV_UNMAP, q);
	sim_ev_init(&q->ev_map, SIM_EV_MAP, q);
	sim_hws_publish_state(q);

	struct sim_req req = { .kind = SIM_REQ_CREATE, .q = &q, .n = 1 };
	int err = sim_device_request(dev, &req);
	if (err) {
		/* -EDEADLK before posting, or -ENOMEM from the device (not linked in either way). */
		sim_hwq_free(q);
		return err;
	}
	*out = q;
	return 0;
}

int sim_hwq_destroy(struct sim_hwq *q)
{
	if (!q)
		return -EINVAL;
	if (q->dev->sim->role == SIM_ROLE_CLIENT)
		return sim_client_hwq_destroy(q);
	struct sim_req req = { .kind = SIM_REQ_DESTROY, .q = &q, .n = 1 };
	int err = sim_device_request(q->dev, &req);
	if (err)
		return err;
	sim_hwq_free(q);
	return 0;
}

int sim_hwq_update(struct sim_hwq *q, void *ring_base, uint32_t ring_size_bytes, uint32_t priority,
		   bool active)
{
	if (!q || priority > 15)
		return -EINVAL;
	if (q->dev->sim->role == SIM_ROLE_CLIENT)
		return sim_client_hwq_update(q, ring_base, ring_size_bytes, priority, active);
	/* A NULL ring (kernels from 6.12 on) also means "inactive"; the ring stays what it was. */
	if (ring_base && !ring_ok(sim_hwq_mem(q), ring_base, ring_size_bytes))
		return -EINVAL;
	struct sim_req req = { .kind = SIM_REQ_UPDATE, .q = &q, .n = 1, .ring_base = ring_base,
			       .ring_size_bytes = ring_size_bytes, .priority = priority,
			       .active = ring_base ? active : false };
	return sim_device_request(q->dev, &req);
}

int sim_hwq_set_cu_mask(struct sim_hwq *q, const uint32_t *mask, uint32_t nbits)
{
	if (!q || !mask || !nbits || nbits % 32)
		return -EINVAL;
	if (q->dev->sim->role == SIM_ROLE_CLIENT)
		return sim_client_hwq_set_cu_mask(q, mask, nbits);
	struct sim_device *dev = q->dev;
	uint32_t words = (dev->ncu + 31) / 32;
	uint32_t *m = calloc(words, sizeof(*m));
	if (!m)
		return -ENOMEM;
	bool any = false;
	/* Bits beyond the mask given are CUs the queue may not use; bits beyond the device are ignored. */
	for (uint32_t cu = 0; cu < dev->ncu && cu < nbits; cu++) {
		if ((mask[cu / 32] >> (cu % 32)) & 1u) {
			m[cu / 32] |= 1u << (cu % 32);
			any = true;
		}
	}
	if (!any) {
		free(m);
		return -EINVAL;
	}
	struct sim_req req = { .kind = SIM_REQ_CU_MASK, .q = &q, .n = 1, .cu_mask = m };
	int err = sim_device_request(dev, &req);
	free(m);
	return err;
}

void sim_hwq_doorbell(struct sim_hwq *q, uint64_t value)
{
	if (!q)
		return;
	if (q->shm) {
		/* Shared mode: the doorbell goes through the queue's shared page, never the socket. */
		sim_client_hwq_doorbell(q, value);
		return;
	}
	struct sim_device *dev = q->dev;
	/* Acquire: the read index the device published. It only grows, so a stale one errs on the safe side. */
	uint64_t rd = hsaqm_load_acquire(q->read_ptr);
	uint32_t slots = HSAQM_READ_ONCE(q->ring_slots);

	/*
	 * A producer publishes index i only once i - read < size, so a doorbell for an index a
	 * whole ring beyond the read index means it wrote over a slot not yet consumed. (The
	 * write index alone proves nothing: ROCr and ROCclr reserve indices first and wait for
	 * space afterwards, so it legitimately runs more than a ring ahead.)
	 */
	if (value >= rd && value - rd >= slots)
		hsaqm_store_release(&q->overrun, 1u);

	pthread_mutex_lock(&q->db_lock);
	/*
	 * The time is read under the lock, so the log is in time order (each holder reads the
	 * monotonic clock after the previous one): the engine takes the due doorbells from its
	 * head and stops at the first one from its future, instead of scanning the whole log at
	 * every stimulus - a log that grows long exactly when the engine runs late.
	 */
	uint64_t now = sim_clock_now(dev->sim);
	if (q->ndb == q->capdb && q->dbhead) {
		memmove(q->db, q->db + q->dbhead, (q->ndb - q->dbhead) * sizeof(*q->db));
		q->ndb -= q->dbhead;
		q->dbhead = 0;
	}
	if (q->ndb == q->capdb) {
		uint32_t cap = q->capdb ? q->capdb * 2 : 16;
		struct sim_db *db = realloc(q->db, cap * sizeof(*db));

		if (db) {
			q->db = db;
			q->capdb = cap;
		}
	}
	if (q->ndb < q->capdb) {
		q->db[q->ndb].value = value;
		q->db[q->ndb].time = now;
		q->ndb++;
	} else if (q->ndb) {
		/* Out of memory: fold into the last entry (later time, higher value: still causal). */
		struct sim_db *last = &q->db[q->ndb - 1];

		last->value = value > last->value ? value : last->value;
		last->time = now;
	}
	pthread_mutex_unlock(&q->db_lock);
	/*
	 * Release: the doorbell log entry written under db_lock above precedes the kick the
	 * engine takes (acquire).
	 */
	hsaqm_store_release(&q->kick, 1u);
	sim_device_stimulate(dev, now, &dev->wake->kicks);
}

/*
 * The engine's side of a client's doorbell log (shared page): entries [shm_head, tail) in
 * time order. The client may write anything there, so an impossible tail is an overrun.
 */
static uint64_t apply_shm_doorbells(struct sim_hwq *q, uint64_t t)
{
	struct sim_hwq_shm *m = q->shm;
	/* Acquire: pairs with the producer's release of the tail; the entries below are written. */
	uint64_t tail = hsaqm_load_acquire(&m->db_tail), head = q->shm_head, later = UINT64_MAX;

	if (tail - head > SIM_HWQ_SHM_LOG) {
		/*
		 * Release: pairs with the engine's acquire of overrun; the log state skipped is
		 * ours.
		 */
		hsaqm_store_release(&m->overrun, 1u);
		head = tail;
	}
	while (head != tail) {
		uint64_t v = HSAQM_READ_ONCE(m->db[head % SIM_HWQ_SHM_LOG].value);
		uint64_t at = HSAQM_READ_ONCE(m->db[head % SIM_HWQ_SHM_LOG].time);

		if (at > t) {
			later = at;
			break;
		}
		if (v != UINT64_MAX && v + 1 > q->db_limit)
			q->db_limit = v + 1;
		head++;
	}
	q->shm_head = head;
	/* Release: our reads of the entries before the producer reuses their slots. */
	hsaqm_store_release(&m->db_head, head);
	return later;
}

uint64_t sim_hwq_apply_doorbells(struct sim_hwq *q, uint64_t t)
{
	uint64_t later = UINT64_MAX;

	if (q->shm)
		return apply_shm_doorbells(q, t);
	pthread_mutex_lock(&q->db_lock);
	/* In time order (sim_hwq_doorbell): the due ones are a prefix. */
	while (q->dbhead < q->ndb && q->db[q->dbhead].time <= t) {
		struct sim_db e = q->db[q->dbhead++];

		if (e.value != UINT64_MAX && e.value + 1 > q->db_limit)
			q->db_limit = e.value + 1;
	}
	if (q->dbhead < q->ndb)
		later = q->db[q->dbhead].time;
	else
		q->dbhead = q->ndb = 0;
	pthread_mutex_unlock(&q->db_lock);
	return later;
}

/* Suspend or resume queues, one request per device (as the KFD loops over devices). */
static int suspend_resume(struct sim_hwq *const *qs, uint32_t n, uint32_t grace, enum sim_req_kind kind)
{
	if (!qs || !n)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (!qs[i])
			return -EINVAL;
	if (qs[0]->dev->sim->role == SIM_ROLE_CLIENT)
		return sim_client_hwq_suspend_resume(qs, n, grace, kind == SIM_REQ_SUSPEND);
	if (sim_in_engine())
		return -EDEADLK;
	struct hsaqm_sim *sim = qs[0]->dev->sim;
	struct sim_hwq **group = calloc(n, sizeof(*group));
	if (!group)
		return -ENOMEM;
	int result = 0;
	for (unsigned int d = 0; d < sim->ndev; d++) {
		uint32_t m = 0;

		for (uint32_t i = 0; i < n; i++) {
			if (qs[i]->dev->sim != sim) {
				free(group);
				return -EINVAL;
			}
			bool dup = false;
			for (uint32_t j = 0; j < m; j++)
				dup |= group[j] == qs[i];
			if (qs[i]->dev == sim->dev[d] && !dup)
				group[m++] = qs[i];
		}
		if (!m)
			continue;
		struct sim_req req = { .kind = kind, .q = group, .n = m, .grace_units = grace };
		int err = sim_device_request(sim->dev[d], &req);
		if (err && !result)
			result = err;
	}
	free(group);
	return result;
}

int sim_hwq_suspend(struct sim_hwq *const *q, uint32_t n, uint32_t grace_units)
{
	return suspend_resume(q, n, grace_units, SIM_REQ_SUSPEND);
}

int sim_hwq_resume(struct sim_hwq *const *q, uint32_t n)
{
	return suspend_resume(q, n, 0, SIM_REQ_RESUME);
}

int sim_hwq_get_info(const struct sim_hwq *q, struct sim_hwq_info *info)
{
	if (!q || !info)
		return -EINVAL;
	struct sim_hwq *w = (struct sim_hwq *)q;
	const struct sim_device *dev = q->dev;
	struct sim_hwq_pub *pub = w->pub;
	uint64_t waves = HSAQM_READ_ONCE(pub->info_waves_saved);

	memset(info, 0, sizeof(*info));
	info->state = (enum sim_hwq_state)HSAQM_READ_ONCE(pub->info_state);
	info->queue_index = q->queue_index;
	info->priority = HSAQM_READ_ONCE(pub->priority);
	info->dispatches_launched = HSAQM_READ_ONCE(pub->info_launched);
	info->packets_completed = HSAQM_READ_ONCE(pub->info_completed);
	info->workgroups_running = HSAQM_READ_ONCE(pub->info_running);
	info->waves_saved = waves;
	/*
	 * Estimates from the KFD's CWSR sizing: a control stack of a 40-byte header plus 8 bytes
	 * per wave, and per wave its share of a CU's VGPR + SGPR + HWREG save space.
	 */
	info->ctl_stack_used_bytes = waves ? 40 + 8 * waves : 0;
	info->save_area_used_bytes = waves * ((0x80000ull + 0x4000 + 0x1000) / dev->waves_per_cu);
	info->ring_base = HSAQM_READ_ONCE(pub->ring_base);
	info->ring_size_bytes = HSAQM_READ_ONCE(pub->ring_size_bytes);
	info->write_ptr = q->write_ptr;
	info->read_ptr = q->read_ptr;
	info->pasid = q->pasid;
	info->dev = dev->index;
	return 0;
}

int sim_hwq_get_stats(const struct sim_hwq *q, struct sim_hwq_stats *out)
{
	if (!q || !out)
		return -EINVAL;
	struct sim_hwq *w = (struct sim_hwq *)q;

	struct sim_hwq_stats *st = &w->pub->stats;

	out->maps = HSAQM_READ_ONCE(st->maps);
	out->unmaps = HSAQM_READ_ONCE(st->unmaps);
	out->waves_saved_total = HSAQM_READ_ONCE(st->waves_saved_total);
	out->waves_restored_total = HSAQM_READ_ONCE(st->waves_restored_total);
	out->workgroups_done = HSAQM_READ_ONCE(st->workgroups_done);
	out->last_unmap_time = HSAQM_READ_ONCE(st->last_unmap_time);
	out->last_map_time = HSAQM_READ_ONCE(st->last_map_time);
	return 0;
}
