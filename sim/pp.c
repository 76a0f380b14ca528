/* SPDX-License-Identifier: MIT */
/*
 * The packet processor of a mapped queue (what the MEC firmware does for an AQL queue),
 * following HSA 1.2:
 *   - it reads the slot at the read index, and only slots below the write index (as the CP
 *     reads up to its write pointer); an INVALID header stops it until a doorbell: the
 *     headers are the truth, a doorbell is a hint to look again;
 *   - packets are taken strictly in order; one with the barrier bit waits until every
 *     earlier packet of the queue completed;
 *   - a kernel dispatch is consumed when it is launched (at most max_inflight_dispatches
 *     launched and unfinished per queue); its completion signal is decremented when its
 *     last workgroup finished, after every workgroup callback;
 *   - a barrier-AND (all dependencies 0, a zero handle counts as satisfied), barrier-OR (any
 *     dependency 0, a zero handle never satisfies) or AMD BARRIER_VALUE packet holds the
 *     queue until satisfied, then is consumed and completes; the engine watches its signals
 *     (device_watch) instead of polling them;
 *   - "consumed" = the slot's header is set to INVALID and then the read index moves past
 *     it, both with release: this is what AMD's MEC firmware does (J. Bridgman, amd-gfx,
 *     2020-12-22: resetting headers to INVALID and writing completion signals are done by the
 *     MEC firmware) and what ring.h expects of a consumer; a producer reuses the slot as soon
 *     as the read index passes it;
 *   - a malformed packet puts the queue in the error state with the HSA status ROCr reports
 *     for the CP's error code (ROCr AqlQueue::DynamicScratchHandler: invalid dimension ->
 *     INCOMPATIBLE_ARGUMENTS, invalid group memory -> INVALID_ALLOCATION, invalid code
 *     object -> INVALID_CODE_OBJECT, invalid/vendor format -> INVALID_PACKET_FORMAT, group
 *     too large -> INVALID_ARGUMENT); other queues run on.
 * Acquire/release fence scopes need no action: model memory is coherent.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "hsaqm-common/json.h"
#include "hsaqm-hsa/hsa_abi.h"
#include "hsaqm-common/log.h"

/* HSA statuses (hsa.h; the model must not need the header). */
#define ST_INVALID_ARGUMENT 0x1001
#define ST_INVALID_ALLOCATION 0x1003
#define ST_INVALID_SIGNAL 0x1006
#define ST_INVALID_PACKET_FORMAT 0x1009
#define ST_INCOMPATIBLE_ARGUMENTS 0x100D
#define ST_INVALID_CODE_OBJECT 0x1010

/* Workgroup size limit of a dispatch (work-items), as the hardware enforces it. */
#define MAX_WG_WORKITEMS 1024u

/*
 * The CP's report of a queue error to the runtime: it finds the queue's amd_queue_t from the
 * read pointer it was given (read_dispatch_id sits at read_dispatch_id_field_base_byte_offset
 * in it, a field stored right after read_dispatch_id) and writes the error into the
 * amd_queue_t's queue_inactive_signal, on which ROCr keeps an async handler that calls the
 * queue's error callback. A queue whose read pointer is not in an amd_queue_t (a test's bare
 * ring, a queue of a runtime that is not ROCr) gets nothing: every field is checked before
 * it is trusted, so arbitrary memory behind a read pointer cannot take the model down.
 *
 * The value: the MEC writes its own error code (bits: 2 invalid dim, 4 invalid group
 * memory, 8 invalid code, 32 invalid format, 64 group too large, 256 vendor packet ...),
 * and ROCr's handler (AqlQueue::DynamicQueueEventsHandler<true>) turns it into the HSA
 * status. The model stores that HSA status itself (model choice: the HSA face's handler
 * passes the value on unchanged, and there is no CP code for the model's INVALID_SIGNAL).
 * A CAS from 0: the first error stays, and a queue being destroyed (the runtime stored its
 * retire mark, ROCr's 0x8000000000000000) does not report anything.
 */
void sim_cp_report_error(struct sim_hwq *q, int hsa_status, uint64_t t)
{
	struct hsaqm_sim *sim = q->dev->sim;
	const struct sim_arena *mem = sim_hwq_mem(q);
	const uintptr_t rd_off = offsetof(struct hsaqm_amd_queue, read_dispatch_id);
	/* Integer arithmetic: the read pointer may be anywhere, even the arena's first bytes. */
	uintptr_t base = (uintptr_t)q->read_ptr - rd_off;
	uint32_t *field = (uint32_t *)(base + offsetof(struct hsaqm_amd_queue,
						       read_dispatch_id_field_base_byte_offset));

	if (!sim_arena_contains(mem, field, sizeof(*field)))
		return;
	/* The runtime wrote it before creating the queue (the create request orders it). */
	if (HSAQM_READ_ONCE(*field) != rd_off)
		return;
	/* ROCr allocates it 64-byte aligned: anything else is not its layout. */
	if (base > (uintptr_t)q->read_ptr || base % HSAQM_AMD_QUEUE_ALIGN ||
	    !sim_arena_contains(mem, (const void *)base, sizeof(struct hsaqm_amd_queue)))
		return;
	struct hsaqm_amd_queue *amd = (struct hsaqm_amd_queue *)base;
	uint64_t handle = HSAQM_READ_ONCE(amd->queue_inactive_signal.handle);
	struct sim_signal *s = sim_signal_from_handle_in(mem, handle);
	if (s)
		sim_signal_cas_at(sim, s, 0, hsa_status, t);
}

void sim_pp_error(struct sim_hwq *q, int hsa_status, const char *why, uint64_t t)
{
	struct sim_device *dev = q->dev;
	char args[512];

	if (q->error)
		return;
	q->error = true;
	sim_pp_unwatch(q);
	q->wait = SIM_WAIT_NONE;
	hsaqm_log_info("device %u queue %u: error 0x%x at packet %" PRIu64 ": %s", dev->index,
		       q->queue_index, hsa_status, q->rd, why);
	if (sim_trace_on(dev->sim)) {
		/* Through the one writer: @why is escaped (a quote in it broke the trace). */
		char short_why[151];
		FILE *f = fmemopen(args, sizeof(args), "w");
		struct hsaqm_json j;

		snprintf(short_why, sizeof(short_why), "%s", why);
		if (f) {
			hsaqm_json_init(&j, f);
			hsaqm_json_begin_object(&j, NULL);
			hsaqm_json_int(&j, "status", hsa_status);
			hsaqm_json_uint(&j, "packet", q->rd);
			hsaqm_json_string(&j, "why", short_why);
			hsaqm_json_end_object(&j);
			/* A full buffer leaves no valid object: the instant goes without arguments. */
			if (fflush(f) || ferror(f) || ftell(f) >= (long)sizeof(args))
				args[0] = '\0';
			fclose(f);
		} else {
			args[0] = '\0';
		}
		sim_trace_instant_at(dev->sim, dev->index, SIM_TRACK_QUEUE(q->queue_index), "queue error",
				     t, args[0] ? args : NULL);
	}
	sim_hws_publish_state(q);
	dev->hws_dirty = true;
	/* The CP's write first, then the KFD's part (the face's callback), as on hardware. */
	sim_cp_report_error(q, hsa_status, t);
	/* Engine thread, no model lock held: the callback may not block (sim_internal.h). */
	if (q->error_fn)
		q->error_fn(q->error_ctx, q, hsa_status);
}

/*
 * One past the last packet the packet processor may look at: below the write index (the CP
 * reads up to its write pointer) and covered by a doorbell already applied at the current
 * model time (so an engine handling events late does not see packets from its future).
 */
static uint64_t visible_end(const struct sim_hwq *q)
{
	/* Acquire: pairs with the producer's write-index update. */
	uint64_t wr = hsaqm_load_acquire(q->write_ptr);

	return wr < q->db_limit ? wr : q->db_limit;
}

bool sim_pp_has_work(const struct sim_hwq *q)
{
	if (q->ninflight || q->launch_busy || q->wait != SIM_WAIT_NONE || !sim_list_empty(&q->saved) ||
	    !sim_list_empty(&q->restore))
		return true;
	return q->rd < visible_end(q);
}

/* Mark the packet at the read index consumed: INVALID header, then the read index. */
static void consume(struct sim_hwq *q)
{
	union hsaqm_aql_packet *slot = &q->ring[q->rd & (q->ring_slots - 1)];

	/* Release: our reads of the packet happen before the slot is marked free. */
	hsaqm_aql_slot_invalidate(slot);
	q->rd++;
	/* Release: the INVALID header before the index that lets a producer reuse the slot. */
	hsaqm_store_release(q->read_ptr, q->rd);
}

static void complete_signal(struct hsaqm_sim *sim, struct sim_signal *cs, uint64_t start, uint64_t end)
{
	if (!cs)
		return;
	HSAQM_WRITE_ONCE(cs->start_ts, (int64_t)start);
	HSAQM_WRITE_ONCE(cs->end_ts, (int64_t)end);
	/* acq_rel: every effect of the packet (callbacks, counters) happens-before the new value. */
	sim_signal_add_at(sim, cs, -1, end);
}

void sim_pp_unwatch(struct sim_hwq *q)
{
	struct sim_device *dev = q->dev;

	for (uint32_t i = 0; i < q->wait_nsig; i++) {
		struct sim_signal *s = q->wait_sig[i];
		bool shared = false;

		if (!s)
			continue;
		/* Another queue of this device may wait on the same signal: keep the bit then. */
		for (struct sim_list *l = dev->queues.next; l != &dev->queues && !shared; l = l->next) {
			struct sim_hwq *o = sim_container_of(l, struct sim_hwq, link);

			if (o == q || o->wait == SIM_WAIT_NONE)
				continue;
			for (uint32_t j = 0; j < o->wait_nsig; j++)
				shared |= o->wait_sig[j] == s;
		}
		/*
		 * acq_rel RMW: other devices' watch bits in the word are kept; a writer that
		 * still sees ours only wakes us once more.
		 */
		if (!shared)
			hsaqm_fetch_and(&s->device_watch, ~(1u << dev->index));
		q->wait_sig[i] = NULL;
	}
	q->wait_nsig = 0;
}

/* The time of a signal's last change, read after its value (see writer_enter in signal.c). */
static uint64_t changed_at(const struct sim_signal *s)
{
	return HSAQM_READ_ONCE(((struct sim_signal *)s)->change_time);
}

/*
 * Is the waiting barrier satisfied? If so, *@at is the model time from which it is (the
 * change that satisfied it, conservatively the latest change of the signals involved).
 */
static bool wait_satisfied(const struct sim_hwq *q, uint64_t *at)
{
	uint64_t when = 0;

	switch (q->wait) {
	case SIM_WAIT_AND:
		for (uint32_t i = 0; i < q->wait_nsig; i++) {
			if (sim_signal_load(q->wait_sig[i]) != 0)
				return false;
			if (changed_at(q->wait_sig[i]) > when)
				when = changed_at(q->wait_sig[i]);
		}
		break;
	case SIM_WAIT_OR:
		when = UINT64_MAX;
		for (uint32_t i = 0; i < q->wait_nsig; i++)
			if (sim_signal_load(q->wait_sig[i]) == 0 && changed_at(q->wait_sig[i]) < when)
				when = changed_at(q->wait_sig[i]);
		if (when == UINT64_MAX)
			return false;
		break;
	case SIM_WAIT_VALUE:
		if (!q->wait_nsig)
			break;
		if (!sim_cond_holds((enum sim_cond)q->wait_cond,
				    sim_signal_load(q->wait_sig[0]) & q->wait_mask, q->wait_value))
			return false;
		when = changed_at(q->wait_sig[0]);
		break;
	default:
		break;
	}
	*at = when;
	return true;
}

/* The waiting barrier packet is satisfied: consume it and complete it. */
static void finish_wait(struct sim_hwq *q, uint64_t t)
{
	struct sim_device *dev = q->dev;
	static const char *const names[] = { "", "barrier-and wait", "barrier-or wait",
					     "barrier-value wait" };
	struct sim_signal *cs = q->wait_cs;
	enum sim_wait_kind kind = q->wait;

	sim_pp_unwatch(q);
	q->wait = SIM_WAIT_NONE;
	q->wait_cs = NULL;
	consume(q);
	if (sim_trace_on(dev->sim) && t > q->wait_since) {
		char args[64];

		snprintf(args, sizeof(args), "{\"packet\":%" PRIu64 "}", q->rd - 1);
		sim_trace_span(dev->sim, dev->index, SIM_TRACK_QUEUE(q->queue_index), names[kind],
			       q->wait_since, t - q->wait_since, args);
	}
	/* Counted before the signal: whoever sees the completion also sees the count. */
	HSAQM_WRITE_ONCE(q->pub->info_completed, q->pub->info_completed + 1);
	complete_signal(dev->sim, cs, q->wait_since, t);
}

/* Set our watch bit on each dependency; the caller re-checks them afterwards. */
static void watch_deps(struct sim_hwq *q)
{
	/*
	 * acq_rel RMW: the other devices' bits are kept; ordered before the values re-read below
	 * by the fence.
	 */
	for (uint32_t i = 0; i < q->wait_nsig; i++)
		hsaqm_fetch_or(&q->wait_sig[i]->device_watch, 1u << q->dev->index);
	/* Store-load: the watch bits before re-reading the values (a writer stores, fences, reads the bits). */
	hsaqm_smp_mb();
}

/* Validate a kernel dispatch; on success fill *@k, *@cs and *@wgs. Returns 0 or an HSA status. */
static int check_dispatch(struct sim_hwq *q, const struct hsaqm_aql_dispatch *p,
			  const struct sim_kernel **k, struct sim_signal **cs, uint64_t *wgs,
			  const char **why)
{
	struct sim_device *dev = q->dev;
	uint32_t wg[3] = { p->workgroup_size_x, p->workgroup_size_y, p->workgroup_size_z };
	uint32_t grid[3] = { p->grid_size_x, p->grid_size_y, p->grid_size_z };
	unsigned int dims = p->setup & 3u;

	if (p->setup & HSAQM_AQL_SETUP_RESERVED_MASK) {
		*why = "reserved bits set in the dispatch setup";
		return ST_INVALID_PACKET_FORMAT;
	}
	if (dims == 0) {
		*why = "dispatch with 0 dimensions";
		return ST_INCOMPATIBLE_ARGUMENTS;
	}
	/* HSA wants unused dimensions to be 1; the hardware ignores them, so does the model. */
	for (unsigned int i = dims; i < 3; i++)
		wg[i] = grid[i] = 1;
	uint64_t total = 1, items = 1;
	for (unsigned int i = 0; i < dims; i++) {
		if (!wg[i] || !grid[i]) {
			*why = "zero grid or workgroup dimension";
			return ST_INCOMPATIBLE_ARGUMENTS;
		}
		if (wg[i] > grid[i]) {
			*why = "workgroup larger than the grid";
			return ST_INVALID_ARGUMENT;
		}
		items *= wg[i];
		total *= (grid[i] + (uint64_t)wg[i] - 1) / wg[i];
	}
	if (items > MAX_WG_WORKITEMS) {
		*why = "workgroup of more than 1024 work-items";
		return ST_INVALID_ARGUMENT;
	}
	if (total > UINT32_MAX) {
		*why = "more than 2^32 - 1 workgroups";
		return ST_INVALID_ARGUMENT;
	}
	if (p->group_segment_size > dev->prof.lds_size_kb * 1024u && dev->prof.lds_size_kb) {
		*why = "group segment larger than the LDS";
		return ST_INVALID_ALLOCATION;
	}
	*k = sim_kernel_lookup_in(sim_hwq_mem(q), p->kernel_object);
	if (!*k) {
		*why = "kernel object is not a registered model kernel";
		return ST_INVALID_CODE_OBJECT;
	}
	*cs = NULL;
	if (p->completion_signal) {
		*cs = sim_signal_from_handle_in(sim_hwq_mem(q), p->completion_signal);
		if (!*cs) {
			*why = "completion signal is not a live signal";
			return ST_INVALID_SIGNAL;
		}
	}
	*wgs = total;
	return 0;
}

/* Returns false when the queue stops (error). */
static bool take_deps(struct sim_hwq *q, const uint64_t *handles, unsigned int n)
{
	q->wait_nsig = 0;
	for (unsigned int i = 0; i < n; i++) {
		if (!handles[i])
			continue;
		struct sim_signal *s = sim_signal_from_handle_in(sim_hwq_mem(q), handles[i]);

		if (!s)
			return false;
		q->wait_sig[q->wait_nsig++] = s;
	}
	return true;
}

static void launch_dispatch(struct sim_hwq *q, const struct hsaqm_aql_dispatch *p,
			    const struct sim_kernel *k, struct sim_signal *cs, uint64_t wgs, uint64_t t)
{
	struct sim_device *dev = q->dev;
	struct sim_dispatch *d = calloc(1, sizeof(*d));

	if (!d) {
		hsaqm_log_err("out of memory launching a dispatch");
		abort();
	}
	d->q = q;
	/* The engine's own copy, checked once (the descriptor may be a client's memory). */
	d->kc = *k;
	d->kc.name[sizeof(d->kc.name) - 1] = '\0';
	if (q->arena) {
		/* A device process never calls into a client; its counters must be its own memory. */
		d->kc.wg_callback = NULL;
		if (d->kc.counters &&
		    !sim_arena_contains(q->arena, d->kc.counters, (size_t)d->kc.counters_len * sizeof(uint32_t)))
			d->kc.counters = NULL;
	}
	if (d->kc.waves_per_wg == 0 || d->kc.waves_per_wg > dev->waves_per_cu)
		d->kc.waves_per_wg = 1;
	d->k = &d->kc;
	d->dispatch_id = q->rd;
	d->kernarg = (void *)(uintptr_t)p->kernarg_address;
	d->completion = cs;
	d->total_wgs = wgs;
	d->launch_time = t;
	d->lane = sim_lane_get(dev);
	consume(q);
	q->inflight[q->ninflight++] = d;
	q->launching = d;
	q->launch_busy = true;
	HSAQM_WRITE_ONCE(q->pub->info_launched, q->pub->info_launched + 1);
	sim_ev_schedule(dev, &q->ev_launch, t + dev->prof.dispatch_launch_ns);
}

void sim_pp_launch_done(struct sim_hwq *q, uint64_t t)
{
	q->launch_busy = false;
	if (q->launching) {
		q->launching->ready = true;
		q->launching = NULL;
	}
	q->dev->dispatch_dirty = true;
	sim_pp_run(q, t);
}

void sim_pp_run(struct sim_hwq *q, uint64_t t)
{
	struct sim_device *dev = q->dev;
	const char *why = NULL;

	while (q->hstate == SIM_HQ_MAPPED && !q->error && !q->launch_busy) {
		if (q->wait != SIM_WAIT_NONE) {
			uint64_t at;

			if (!wait_satisfied(q, &at))
				return;
			if (at > t) {
				/* Satisfied by a change from our future (we run late): act at its time. */
				sim_ev_schedule(dev, &q->ev_pp, at);
				return;
			}
			finish_wait(q, t);
			continue;
		}
		if (q->rd >= visible_end(q))
			return;
		union hsaqm_aql_packet *slot = &q->ring[q->rd & (q->ring_slots - 1)];
		uint32_t word = hsaqm_aql_slot_load_header(slot);
		uint32_t type = word & 0xffu;
		struct hsaqm_aql_header h;
		union hsaqm_aql_packet pkt;

		if (type == HSAQM_AQL_TYPE_INVALID)
			return; /* not published yet: wait for a doorbell */
		if (type > HSAQM_AQL_TYPE_MAX) {
			sim_pp_error(q, ST_INVALID_PACKET_FORMAT, "reserved packet type", t);
			return;
		}
		if (hsaqm_aql_header_decode((uint16_t)word, &h) < 0) {
			sim_pp_error(q, ST_INVALID_PACKET_FORMAT, "reserved header bits or fence scope", t);
			return;
		}
		if (h.barrier && q->ninflight)
			return; /* the barrier bit: earlier packets must complete first */

		/* The header load above was an acquire: the body is whole. */
		pkt.u32[0] = word;
		memcpy(&pkt.bytes[4], &slot->bytes[4], HSAQM_AQL_PACKET_SIZE - 4);

		switch (type) {
		case HSAQM_AQL_TYPE_KERNEL_DISPATCH: {
			const struct sim_kernel *k = NULL;
			struct sim_signal *cs = NULL;
			uint64_t wgs = 0;
			int st = check_dispatch(q, &pkt.dispatch, &k, &cs, &wgs, &why);

			if (st) {
				sim_pp_error(q, st, why, t);
				return;
			}
			if (q->ninflight >= dev->prof.max_inflight_dispatches)
				return; /* no launch slot: a completion re-runs us */
			launch_dispatch(q, &pkt.dispatch, k, cs, wgs, t);
			return; /* launch overhead: the CP takes the next packet after it */
		}
		case HSAQM_AQL_TYPE_BARRIER_AND:
		case HSAQM_AQL_TYPE_BARRIER_OR:
			if (!take_deps(q, pkt.barrier.dep_signal, HSAQM_AQL_MAX_DEPS)) {
				sim_pp_error(q, ST_INVALID_SIGNAL, "dependency signal is not a live signal", t);
				return;
			}
			q->wait = type == HSAQM_AQL_TYPE_BARRIER_AND ? SIM_WAIT_AND : SIM_WAIT_OR;
			q->wait_cs = NULL;
			if (pkt.barrier.completion_signal) {
				q->wait_cs = sim_signal_from_handle_in(sim_hwq_mem(q), pkt.barrier.completion_signal);
				if (!q->wait_cs) {
					q->wait = SIM_WAIT_NONE;
					sim_pp_error(q, ST_INVALID_SIGNAL, "completion signal is not a live signal", t);
					return;
				}
			}
			break;
		case HSAQM_AQL_TYPE_VENDOR:
			if (pkt.barrier_value.amd_format != HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE) {
				sim_pp_error(q, ST_INVALID_PACKET_FORMAT, "unsupported AMD vendor packet format", t);
				return;
			}
			if (pkt.barrier_value.cond > HSAQM_AQL_COND_MAX) {
				sim_pp_error(q, ST_INVALID_PACKET_FORMAT, "barrier-value condition out of range", t);
				return;
			}
			if (!take_deps(q, &pkt.barrier_value.signal, 1)) {
				sim_pp_error(q, ST_INVALID_SIGNAL, "barrier-value signal is not a live signal", t);
				return;
			}
			q->wait = SIM_WAIT_VALUE;
			q->wait_value = pkt.barrier_value.value;
			q->wait_mask = pkt.barrier_value.mask;
			q->wait_cond = pkt.barrier_value.cond;
			q->wait_cs = NULL;
			if (pkt.barrier_value.completion_signal) {
				q->wait_cs = sim_signal_from_handle_in(sim_hwq_mem(q), pkt.barrier_value.completion_signal);
				if (!q->wait_cs) {
					q->wait = SIM_WAIT_NONE;
					sim_pp_unwatch(q);
					sim_pp_error(q, ST_INVALID_SIGNAL, "completion signal is not a live signal", t);
					return;
				}
			}
			break;
		default: /* AGENT_DISPATCH: a GPU kernel queue does not take agent packets */
			sim_pp_error(q, ST_INVALID_PACKET_FORMAT, "agent dispatch packet on a kernel queue", t);
			return;
		}
		/* A barrier packet: watch its signals, then the loop top checks them (no lost wake-up). */
		q->wait_since = t;
		watch_deps(q);
	}
}

void sim_pp_dispatch_complete(struct sim_dispatch *d, uint64_t t)
{
	struct sim_hwq *q = d->q;
	struct sim_device *dev = q->dev;

	for (uint32_t i = 0; i < q->ninflight; i++) {
		if (q->inflight[i] == d) {
			memmove(&q->inflight[i], &q->inflight[i + 1], (q->ninflight - i - 1) * sizeof(d));
			q->ninflight--;
			break;
		}
	}
	if (sim_trace_on(dev->sim)) {
		char name[96], args[128];

		snprintf(name, sizeof(name), "%s", d->k->name);
		snprintf(args, sizeof(args), "{\"queue\":%u,\"packet\":%" PRIu64 ",\"workgroups\":%" PRIu64 "}",
			 q->queue_index, d->dispatch_id, d->total_wgs);
		sim_trace_name_track(dev->sim, dev->index, SIM_TRACK_DISPATCH(d->lane >= 0 ? d->lane : 0),
				     "dispatches");
		sim_trace_span(dev->sim, dev->index, SIM_TRACK_DISPATCH(d->lane >= 0 ? d->lane : 0), name,
			       d->launch_time, t - d->launch_time, args);
	}
	sim_lane_put(dev, d->lane);
	/* Counted before the signal: whoever sees the completion also sees the count. */
	HSAQM_WRITE_ONCE(q->pub->info_completed, q->pub->info_completed + 1);
	complete_signal(dev->sim, d->completion, d->launch_time, t);
	sim_dispatch_free(d);
	dev->hws_dirty = true;
	sim_pp_run(q, t);
}

void sim_pp_recheck_waits(struct sim_device *dev, uint64_t t)
{
	for (struct sim_list *l = dev->queues.next; l != &dev->queues; l = l->next) {
		struct sim_hwq *q = sim_container_of(l, struct sim_hwq, link);

		if (q->wait != SIM_WAIT_NONE && q->hstate == SIM_HQ_MAPPED)
			sim_pp_run(q, t);
	}
}
