/* SPDX-License-Identifier: MIT */
/*
 * A device: its compute units, its event loop (the engine thread in REAL mode), the
 * workgroup dispatcher and the control requests host threads post to it.
 *
 * The event loop is the same in both modes: sim_device_run(dev, limit) turns pending
 * stimuli (doorbells, requests, watched signal changes) into an event at the time they
 * happened, then handles every event due up to @limit in (time, sequence) order. The engine
 * thread calls it with "now" and then sleeps on a futex until its next event or a wake-up;
 * the VIRTUAL loop (sim.c) calls it with the virtual clock.
 *
 * Each event handler works at the event's own time, not at the time the engine got round to
 * it: a late wake-up of the engine thread delays when the host sees a result, but never
 * shifts the model's timeline, so lateness does not accumulate over a chain of kernels. The
 * other half of that rule: host inputs are stamped with the model time they happened at
 * (doorbell log, request and signal stimuli, a signal's change_time), and a late engine
 * never acts on an input from its own future.
 *
 * Workgroup dispatcher: when wave slots free (or new work appears), queues with placeable
 * workgroups are served by pipe priority level (high, medium, low), round robin within a
 * level, one workgroup at a time, each on the next CU (round robin over the CUs the queue's
 * CU mask allows) with enough free wave slots. A running workgroup is never preempted by
 * priority. Workgroups of one dispatch placed in the same pass with the same duration form
 * a batch ending in one event; callbacks still run once per workgroup.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "engine_internal.h"
#include "hsaqm-common/log.h"
#include "hsaqm-common/text.h"

static _Thread_local unsigned int engine_depth;

bool sim_in_engine(void)
{
	return engine_depth != 0;
}

void sim_engine_enter(void)
{
	engine_depth++;
}

void sim_engine_leave(void)
{
	engine_depth--;
}

/* ------------------------------------------------------------------------------------
 * Event heap: binary min-heap on (time, seq).
 */
static bool ev_before(const struct sim_event *a, const struct sim_event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void heap_set(struct sim_device *dev, uint32_t i, struct sim_event *ev)
{
	dev->heap[i] = ev;
	ev->heap_idx = (int32_t)i;
}

static void heap_up(struct sim_device *dev, uint32_t i)
{
	struct sim_event *ev = dev->heap[i];

	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (!ev_before(ev, dev->heap[p]))
			break;
		heap_set(dev, i, dev->heap[p]);
		i = p;
	}
	heap_set(dev, i, ev);
}

static void heap_down(struct sim_device *dev, uint32_t i)
{
	struct sim_event *ev = dev->heap[i];

	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		struct sim_event *best = ev;

		if (l < dev->nheap && ev_before(dev->heap[l], best)) {
			m = l;
			best = dev->heap[l];
		}
		if (r < dev->nheap && ev_before(dev->heap[r], best)) {
			m = r;
			best = dev->heap[r];
		}
		if (m == i)
			break;
		heap_set(dev, i, best);
		i = m;
	}
	heap_set(dev, i, ev);
}

void sim_ev_init(struct sim_event *ev, enum sim_ev_kind kind, void *obj)
{
	memset(ev, 0, sizeof(*ev));
	ev->heap_idx = -1;
	ev->kind = (uint8_t)kind;
	ev->obj = obj;
}

void sim_ev_cancel(struct sim_device *dev, struct sim_event *ev)
{
	if (ev->heap_idx < 0)
		return;
	uint32_t i = (uint32_t)ev->heap_idx;
	struct sim_event *last = dev->heap[--dev->nheap];

	ev->heap_idx = -1;
	if (i < dev->nheap) {
		heap_set(dev, i, last);
		heap_up(dev, i);
		heap_down(dev, (uint32_t)last->heap_idx);
	}
}

void sim_ev_schedule(struct sim_device *dev, struct sim_event *ev, uint64_t time)
{
	sim_ev_cancel(dev, ev);
	if (dev->nheap == dev->capheap) {
		uint32_t cap = dev->capheap ? dev->capheap * 2 : 256;
		struct sim_event **h = realloc(dev->heap, cap * sizeof(*h));

		if (!h) {
			/* Losing an event would hang a queue forever: this model cannot go on. */
			hsaqm_log_err("out of memory for the event heap");
			abort();
		}
		dev->heap = h;
		dev->capheap = cap;
	}
	ev->time = time < dev->now ? dev->now : time;
	ev->seq = dev->ev_seq++;
	dev->heap[dev->nheap] = ev;
	ev->heap_idx = (int32_t)dev->nheap++;
	heap_up(dev, (uint32_t)ev->heap_idx);
}

uint64_t sim_device_next_event(const struct sim_device *dev)
{
	return dev->nheap ? dev->heap[0]->time : UINT64_MAX;
}

/* ------------------------------------------------------------------------------------
 * Requests and wake-ups (REAL mode): who writes what, in which order, and why no wake-up
 * is lost. docs/sim.md, "Requests and wake-ups", says the same for maintainers.
 *
 * The words are in the arena header (struct sim_dev_wake), futexes shared between
 * processes: kicks and sig_dirty ("look at your queues / your watched signals"), stim_time
 * (the earliest model time of a stimulus not yet seen), word (a wake-up counter the engine
 * sleeps on) and sleeping (1 while the engine is about to sleep or sleeps). The payloads:
 * a control request in dev->reqs (under req_lock), a doorbell in its queue's log (under
 * db_lock) plus q->kick, a signal's value.
 *
 * A stimulator (any host thread; also the engine, whose own signal changes wake itself):
 *   S1  publishes the payload: request linked under req_lock / doorbell logged, then
 *       q->kick = 1 (release) / signal value stored;
 *   S2  lowers stim_time to its model time (CAS);
 *   S3  sets its flag, kicks or sig_dirty (release: S1 and S2 before it);
 *   S4  bumps word (acq_rel), full barrier, reads sleeping; if set, FUTEX_WAKE on word.
 * The engine thread:
 *   E1  seen = word (acquire);
 *   E2  runs the loop: exchanges kicks and sig_dirty to 0, then stim_time (gather_stimuli),
 *       and at the stimulus event takes the payloads: every posted request under req_lock,
 *       each queue's q->kick (exchange) and doorbell log, the watched signals' values;
 *   E3  if a flag is set again or an event is already due, back to E1;
 *   E4  sleeping = 1, full barrier, re-reads word; only if it still equals seen,
 *       FUTEX_WAIT(word, seen, next event's deadline), which the kernel refuses if word
 *       moved; then sleeping = 0.
 * Why no wake-up is lost: if a stimulator's S4 bump comes before E1, its flag (S3, ordered
 * before the bump) is seen in E2 or E3, and its payload (S1, ordered before the flag) with
 * it. If it comes after E1, word != seen: either E4's re-read sees it and the engine does
 * not sleep, or it does not, and then the two full barriers (stimulator: bump word, read
 * sleeping; engine: write sleeping, read word - a store-buffer pair) guarantee the
 * stimulator reads sleeping == 1 and wakes the futex, before or after the engine queued on
 * it; before, the kernel's atomic "word == seen?" check in FUTEX_WAIT fails. A payload
 * published after the engine's E2 exchange brings its own flag and bump, so a later pass
 * takes it: the payload lists are the truth, the flags only say "look".
 *
 * Requests, further: the engine moves every posted request, in posting order, to its own
 * list reqs_taken; settle() starts the head when nothing else is in progress and the model
 * time has reached the request's stamp (req->time: a request never acts before it was
 * made, even when the engine runs late and handles an earlier stimulus first); if the
 * stamp is still ahead, ev_req is scheduled for it. So after every sim_device_run() either
 * reqs_taken is empty, or a request is in progress (rl_current, finished by an event of its
 * victims' unmaps), or ev_req is pending - sim_device_run() asserts it (stranded_requests),
 * and a caller that sees its request still in the posted list after SIM_REQ_STALL_NS asserts
 * the wake-up side (lost_wakeups). A request from the engine thread itself (a callback) is
 * refused with -EDEADLK before it is posted: the engine cannot wait for itself.
 *
 * VIRTUAL mode has no engine thread and no sleep: every sim_device_run() runs under
 * vloop_lock, in the thread that then checks its own condition (sim_vloop_until), so two
 * threads never run a device's loop at once and there is no sleep to miss a wake-up.
 */
void sim_device_wake(struct sim_device *dev)
{
	struct sim_dev_wake *w = dev->wake;

	/* acq_rel: the engine that reads the new word also sees the flags set before it. */
	hsaqm_fetch_add(&w->word, 1u);
	/* Store-load: the word before the sleeping flag (the engine sets sleeping, fences, re-reads word). */
	hsaqm_smp_mb();
	if (HSAQM_READ_ONCE(w->sleeping))
		sim_futex_wake(&w->word, 1);
}

void sim_device_stimulate(struct sim_device *dev, uint64_t t, uint32_t *flag)
{
	struct sim_dev_wake *w = dev->wake;
	uint64_t cur = HSAQM_READ_ONCE(w->stim_time);

	/* Keep the earliest stimulus time: the engine handles it as if it ran then. */
	while (t < cur && !hsaqm_cas(&w->stim_time, &cur, t))
		;
	/* Release: the stimulus time (and the caller's flags, e.g. q->kick) before the flag. */
	hsaqm_store_release(flag, 1u);
	sim_device_wake(dev);
}

bool sim_device_has_stimulus(const struct sim_device *dev)
{
	/*
	 * Acquire, each: pairs with the stimulator's release of the flag; what it stored before
	 * is seen.
	 */
	return hsaqm_load_acquire(&dev->wake->kicks) || hsaqm_load_acquire(&dev->wake->sig_dirty);
}

/* Turn pending stimuli into the device's STIM event, at the time they happened. */
static void gather_stimuli(struct sim_device *dev, uint64_t limit)
{
	struct sim_dev_wake *w = dev->wake;
	/* acq_rel exchanges: flags first, then the time the stimulator stored before them. */
	uint32_t kicks = hsaqm_exchange(&w->kicks, 0u);
	uint32_t sig = hsaqm_exchange(&w->sig_dirty, 0u);

	if (!kicks && !sig)
		return;
	/* acq_rel: after the flags above, so a time stored before a flag we took is taken too. */
	uint64_t ts = hsaqm_exchange(&w->stim_time, UINT64_MAX);
	/*
	 * A stimulus stamped after the engine read its clock (ts > limit) waits for its own time
	 * (the next run handles it): handling it at "limit" would let a kernel start before the
	 * doorbell that launched it. A flag whose time an earlier gather already took happened
	 * before this run's clock reading: "limit" is late enough for it.
	 */
	uint64_t t = ts == UINT64_MAX ? limit : ts;
	if (t < dev->now)
		t = dev->now;
	if (kicks) {
		dev->hws_dirty = true;
		dev->stim_kicks = true;
	}
	if (sig)
		dev->sig_check = true;
	if (!sim_ev_pending(&dev->ev_stim) || dev->ev_stim.time > t)
		sim_ev_schedule(dev, &dev->ev_stim, t);
}

static void handle_stim(struct sim_device *dev, uint64_t t)
{
	bool kicked = dev->stim_kicks;

	dev->stim_kicks = false;
	if (kicked) {
		pthread_mutex_lock(&dev->req_lock);
		while (!sim_list_empty(&dev->reqs)) {
			struct sim_list *n = dev->reqs.next;

			sim_list_del(n);
			sim_list_add_tail(&dev->reqs_taken, n);
		}
		pthread_mutex_unlock(&dev->req_lock);

		uint64_t later = UINT64_MAX;

		for (struct sim_list *n = dev->queues.next; n != &dev->queues; n = n->next) {
			struct sim_hwq *q = sim_container_of(n, struct sim_hwq, link);

			/* Shared mode: the client's flags are in the queue's shared page. */
			uint32_t *kick = q->shm ? &q->shm->kick : &q->kick;
			uint32_t *overrun = q->shm ? &q->shm->overrun : &q->overrun;

			/* acq_rel: the doorbell's ring writes are visible once we took its kick. */
			if (!hsaqm_exchange(kick, 0u))
				continue;
			uint64_t next = sim_hwq_apply_doorbells(q, t);
			if (next != UINT64_MAX) {
				/* A doorbell from our future (we run late): it is handled at its time. */
				HSAQM_WRITE_ONCE(*kick, 1u);
				if (next < later)
					later = next;
			}
			/*
			 * Acquire: pairs with the doorbell's release of overrun
			 * (sim_hwq_doorbell); the ring state it saw is seen.
			 */
			if (hsaqm_load_acquire(overrun) && !q->error) {
				sim_pp_error(q, 0x1009 /* HSA_STATUS_ERROR_INVALID_PACKET_FORMAT */,
					     "doorbell beyond read index + ring size (producer overran the ring)", t);
				continue;
			}
			if (q->hstate == SIM_HQ_MAPPED)
				sim_pp_run(q, t);
			else
				/*
				 * Unmapped: only the scheduler can give it an HQD, and the pass
				 * that gather_stimuli() asked for may have run before this
				 * doorbell's time (a doorbell from our future, applied now), when
				 * the queue had nothing visible. Without a new pass a queue whose
				 * last doorbell came late waited forever (a lost request, once in
				 * 15 runs of 40 streams).
				 */
				dev->hws_dirty = true;
		}
		if (later != UINT64_MAX) {
			dev->stim_kicks = true;
			if (!sim_ev_pending(&dev->ev_stim) || dev->ev_stim.time > later)
				sim_ev_schedule(dev, &dev->ev_stim, later);
		}
	}
}

static void handle_event(struct sim_device *dev, struct sim_event *ev, uint64_t t)
{
	switch (ev->kind) {
	case SIM_EV_STIM:
		handle_stim(dev, t);
		break;
	case SIM_EV_BATCH_END:
		sim_batch_end(dev, ev->obj, t);
		break;
	case SIM_EV_LAUNCH:
		sim_pp_launch_done(ev->obj, t);
		break;
	case SIM_EV_PP:
		sim_pp_run(ev->obj, t);
		break;
	case SIM_EV_REQ:
		break; /* settle() starts the request once this instant's events ran */
	default:
		sim_hws_event(dev, ev, t);
		break;
	}
}

/* What has to be redone once every event of the current instant ran. */
static void settle(struct sim_device *dev, uint64_t t)
{
	for (;;) {
		/* Requests one at a time, in order (the KFD holds its dqm lock across each). */
		if (!dev->rl_current && !sim_list_empty(&dev->reqs_taken)) {
			struct sim_req *req =
				sim_container_of(dev->reqs_taken.next, struct sim_req, link);

			if (req->time <= t) {
				sim_ev_cancel(dev, &dev->ev_req);
				sim_list_del(&req->link);
				sim_hws_request(dev, req, t);
				continue;
			}
			/* Taken early (a late engine, an earlier stimulus): it waits for its time. */
			if (!sim_ev_pending(&dev->ev_req) || dev->ev_req.time != req->time)
				sim_ev_schedule(dev, &dev->ev_req, req->time);
		}
		if (dev->hws_dirty) {
			dev->hws_dirty = false;
			sim_hws_schedule(dev, t);
			continue;
		}
		if (dev->sig_check) {
			dev->sig_check = false;
			sim_pp_recheck_waits(dev, t);
			continue;
		}
		if (dev->dispatch_dirty) {
			sim_dispatch_pass(dev, t);
			continue;
		}
		break;
	}
}

bool sim_device_run(struct sim_device *dev, uint64_t limit)
{
	bool did = false;

	for (;;) {
		gather_stimuli(dev, limit);
		if (!dev->nheap || dev->heap[0]->time > limit)
			break;
		struct sim_event *ev = dev->heap[0];

		sim_ev_cancel(dev, ev);
		if (ev->time > dev->now)
			dev->now = ev->time;
		handle_event(dev, ev, dev->now);
		did = true;
		if (!dev->nheap || dev->heap[0]->time > dev->now || sim_device_has_stimulus(dev))
			settle(dev, dev->now);
	}
	/*
	 * The invariant of "Requests and wake-ups": a taken request is in progress, or waits for
	 * its time with ev_req pending. A breach is a model bug: counted (tests assert 0),
	 * logged, and repaired by scheduling the request now rather than leaving its caller
	 * blocked for ever.
	 */
	if (!dev->rl_current && !sim_list_empty(&dev->reqs_taken) &&
	    !sim_ev_pending(&dev->ev_req)) {
		dev->stranded_requests++;
		hsaqm_log_err("device %u: a control request was left queued, nothing in progress, "
			      "at %llu ns", dev->index, (unsigned long long)dev->now);
		sim_ev_schedule(dev, &dev->ev_req, dev->now);
		did = true;
	}
	return did;
}

/* ------------------------------------------------------------------------------------
 * The engine thread (REAL mode).
 */

/*
 * How early the engine leaves its futex sleep before the next event and yields the rest of
 * the way, in microseconds of host time (HSAQM_SIM_ENGINE_SPIN_US, default 0 = off, at most
 * 1000). The host's timers wake a sleeping thread 50-60 us late on the development VM (the
 * nanosleep baseline of hsaqm-bench-sim-clock), which is 5 % of a 1 ms kernel; spinning the
 * last stretch removes that lag at the price of CPU while events are closer than the
 * window, which is why it is off by default on a 2-core machine shared by many models.
 */
static uint64_t engine_spin_ns(void)
{
	static int once;
	const char *s = getenv("HSAQM_SIM_ENGINE_SPIN_US");
	unsigned long long us;

	if (!s || !*s)
		return 0;
	if (hsaqm_parse_uint(s, 10, 0, 1000, &us)) { /* the one rule: hsaqm-common/text.h */
		hsaqm_log_notice(&once, "HSAQM_SIM_ENGINE_SPIN_US=\"%s\" is not 0..1000, using 0",
				 s);
		return 0;
	}
	return (uint64_t)us * 1000u;
}

static void *engine_main(void *arg)
{
	struct sim_device *dev = arg;
	struct hsaqm_sim *sim = dev->sim;
	struct sim_dev_wake *w = dev->wake;
	uint64_t spin_ns = engine_spin_ns();

	/* 1 ns timer slack: the default 50 us would be 5 % of a 1 ms kernel. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	sim_engine_enter();
	for (;;) {
		/* Acquire: pairs with the wakers' fetch_add; their flags are visible below. */
		uint32_t seen = hsaqm_load_acquire(&w->word);

		/*
		 * Acquire: pairs with sim_device_stop()'s release; the stopper's writes are seen
		 * before we leave.
		 */
		if (hsaqm_load_acquire(&dev->stop))
			break;
		sim_device_run(dev, sim_clock_now(sim));
		uint64_t next = sim_device_next_event(dev);
		if (sim_device_has_stimulus(dev) || (next != UINT64_MAX && next <= sim_clock_now(sim)))
			continue;
		uint64_t due = next == UINT64_MAX ? UINT64_MAX : sim_clock_to_mono(sim, next);

		if (spin_ns && due != UINT64_MAX) {
			uint64_t mono = sim_mono_ns();

			if (due <= mono + spin_ns) {
				/* Inside the window: yield, then look again (word, stimulus, time). */
				sched_yield();
				continue;
			}
			due -= spin_ns;
		}
		HSAQM_WRITE_ONCE(w->sleeping, 1u);
		/* Store-load: sleeping before re-reading the word (a waker bumps word, fences, reads sleeping). */
		hsaqm_smp_mb();
		if (HSAQM_READ_ONCE(w->word) == seen)
			sim_futex_wait(&w->word, seen, due);
		HSAQM_WRITE_ONCE(w->sleeping, 0u);
	}
	sim_engine_leave();
	return NULL;
}

int sim_device_start(struct sim_device *dev)
{
	int err = pthread_create(&dev->thread, NULL, engine_main, dev);

	if (err)
		return -err;
	dev->thread_started = true;
	return 0;
}

void sim_device_stop(struct sim_device *dev)
{
	if (!dev->thread_started)
		return;
	/* Release: everything the stopper did comes before the engine sees stop (acquire). */
	hsaqm_store_release(&dev->stop, 1u);
	sim_device_wake(dev);
	pthread_join(dev->thread, NULL);
	dev->thread_started = false;
}

/* ------------------------------------------------------------------------------------
 * Requests.
 */
/*
 * The wake-up half of the requests' invariant, checked from the caller's side: a request
 * still in the posted list (never taken) this long after posting means the engine missed
 * its wake-up. Wall-clock time: a REAL-mode engine takes a request within microseconds of
 * being woken, even under sanitizers on a loaded machine.
 */
#define SIM_REQ_STALL_NS (10ull * 1000 * 1000 * 1000)

static void request_stalled(struct sim_device *dev, struct sim_req *req)
{
	struct sim_dev_wake *w = dev->wake;
	bool posted = false;

	/* dev->reqs only changes under req_lock: the membership test is exact. */
	pthread_mutex_lock(&dev->req_lock);
	for (struct sim_list *n = dev->reqs.next; n != &dev->reqs; n = n->next)
		posted |= n == &req->link;
	pthread_mutex_unlock(&dev->req_lock);
	if (!posted) {
		/* Taken and in progress (or queued behind others): slow, not lost. */
		hsaqm_log_warn("device %u: control request (kind %d) not done after %llu s",
			       dev->index, (int)req->kind,
			       (unsigned long long)(SIM_REQ_STALL_NS / 1000000000ull));
		return;
	}
	/* acq_rel: a counter the tests read once the callers returned; nothing else to order. */
	hsaqm_fetch_add(&dev->lost_wakeups, 1ull);
	/* Diagnostics only: each word as it is now (acquire, as the engine reads them). */
	hsaqm_log_err("device %u: control request (kind %d) never taken: kicks %u sig_dirty %u "
		      "word %u sleeping %u; waking the engine again", dev->index, (int)req->kind,
		      hsaqm_load_acquire(&w->kicks), hsaqm_load_acquire(&w->sig_dirty),
		      hsaqm_load_acquire(&w->word), hsaqm_load_acquire(&w->sleeping));
	sim_device_stimulate(dev, req->time, &w->kicks);
}

static _Thread_local uint64_t tl_req_at, tl_req_done_at;

void sim_device_request_stamp(uint64_t model_ns)
{
	tl_req_at = model_ns;
	tl_req_done_at = 0;
}

uint64_t sim_device_request_done_at(void)
{
	return tl_req_done_at;
}

int sim_device_request(struct sim_device *dev, struct sim_req *req)
{
	struct hsaqm_sim *sim = dev->sim;

	if (sim_in_engine())
		return -EDEADLK;
	req->done = 0;
	req->result = 0;
	req->time = sim_clock_now(sim);
	/* Never in the future (a client's clock is this one), never before the device's past:
	 * the engine handles a stimulus no earlier than the instant it has reached. */
	if (tl_req_at && tl_req_at < req->time)
		req->time = tl_req_at;
	/* S1..S4 of "Requests and wake-ups": in the list (under the lock) before flag and bump. */
	pthread_mutex_lock(&dev->req_lock);
	sim_list_add_tail(&dev->reqs, &req->link);
	pthread_mutex_unlock(&dev->req_lock);
	sim_device_stimulate(dev, req->time, &dev->wake->kicks);

	if (sim->mode == HSAQM_SIM_TIME_VIRTUAL) {
		int err = sim_vloop_until(sim, &req->done);

		if (err)
			return err;
	} else {
		uint64_t check = sim_mono_ns() + SIM_REQ_STALL_NS;

		/* Acquire: the device's work on the request happens-before our return. */
		while (!hsaqm_load_acquire(&req->done)) {
			sim_futex_wait(&req->done, 0u, check);
			/* Acquire, as above: done may have come with the timeout. */
			if (check != UINT64_MAX && !hsaqm_load_acquire(&req->done) &&
			    sim_mono_ns() >= check) {
				request_stalled(dev, req);
				check = UINT64_MAX;
			}
		}
	}
	if (req->done_at > tl_req_done_at)
		tl_req_done_at = req->done_at;
	return req->result;
}

/* ------------------------------------------------------------------------------------
 * Trace lanes: each concurrently open span gets the lowest free lane, so spans on one
 * track never overlap (Perfetto wants nested slices per thread).
 */
int32_t sim_lane_get(struct sim_device *dev)
{
	if (!sim_trace_on(dev->sim))
		return -1;
	for (uint32_t i = 0; i < dev->nlanes; i++) {
		if (!dev->lane_used[i]) {
			dev->lane_used[i] = 1;
			return (int32_t)i;
		}
	}
	uint32_t n = dev->nlanes ? dev->nlanes * 2 : 64;
	uint8_t *u = realloc(dev->lane_used, n);
	if (!u)
		return -1;
	memset(u + dev->nlanes, 0, n - dev->nlanes);
	dev->lane_used = u;
	int32_t lane = (int32_t)dev->nlanes;
	dev->nlanes = n;
	dev->lane_used[lane] = 1;
	return lane;
}

void sim_lane_put(struct sim_device *dev, int32_t lane)
{
	if (lane >= 0 && (uint32_t)lane < dev->nlanes)
		dev->lane_used[lane] = 0;
}

/* ------------------------------------------------------------------------------------
 * Batches and the workgroup dispatcher.
 */
static struct sim_batch *batch_new(struct sim_device *dev, struct sim_dispatch *d, uint32_t wg_first,
				   uint32_t waves, uint64_t start, uint64_t end, uint64_t pass)
{
	struct sim_batch *b = dev->batch_free;

	if (b) {
		dev->batch_free = b->next_free;
	} else {
		b = malloc(dev->batch_bytes);
		if (!b) {
			hsaqm_log_err("out of memory for a workgroup batch");
			abort();
		}
	}
	memset(b, 0, dev->batch_bytes);
	sim_ev_init(&b->ev, SIM_EV_BATCH_END, b);
	b->d = d;
	b->wg_first = wg_first;
	b->waves_per_wg = waves;
	b->start = start;
	b->end = end;
	b->pass = pass;
	b->cu_lo = UINT32_MAX;
	b->lane = sim_lane_get(dev); /* held for the batch's whole span (-1 without a trace) */
	sim_list_add_tail(&d->q->running, &b->qlink);
	sim_ev_schedule(dev, &b->ev, end);
	return b;
}

static void batch_release(struct sim_device *dev, struct sim_batch *b)
{
	sim_lane_put(dev, b->lane);
	sim_list_del(&b->qlink);
	sim_ev_cancel(dev, &b->ev);
	b->next_free = dev->batch_free;
	dev->batch_free = b;
}

/* Give the batch's wave slots back to its CUs. */
static void batch_free_cus(struct sim_device *dev, struct sim_batch *b)
{
	if (b->cu_lo == UINT32_MAX)
		return;
	for (uint32_t cu = b->cu_lo; cu <= b->cu_hi; cu++) {
		uint32_t w = (uint32_t)b->cu_wgs[cu] * b->waves_per_wg;

		dev->cu_free[cu] = (uint16_t)(dev->cu_free[cu] + w);
		dev->free_waves += w;
	}
}

static void batch_take_cu(struct sim_device *dev, struct sim_batch *b, uint32_t cu)
{
	dev->cu_free[cu] = (uint16_t)(dev->cu_free[cu] - b->waves_per_wg);
	dev->free_waves -= b->waves_per_wg;
	b->cu_wgs[cu]++;
	b->wg_count++;
	if (cu < b->cu_lo)
		b->cu_lo = cu;
	if (cu > b->cu_hi)
		b->cu_hi = cu;
}

static void trace_batch(struct sim_device *dev, struct sim_batch *b, uint64_t end, const char *what)
{
	struct hsaqm_sim *sim = dev->sim;
	char name[96], args[160];

	if (!sim_trace_on(sim) || b->lane < 0)
		return;
	snprintf(name, sizeof(name), "%s%s", b->d->k->name, what);
	snprintf(args, sizeof(args),
		 "{\"queue\":%u,\"dispatch\":%llu,\"wg_first\":%u,\"wgs\":%u,\"waves_per_wg\":%u}",
		 b->d->q->queue_index, (unsigned long long)b->d->dispatch_id, b->wg_first, b->wg_count,
		 b->waves_per_wg);
	sim_trace_name_track(sim, dev->index, SIM_TRACK_WG(b->lane), "workgroups");
	sim_trace_span(sim, dev->index, SIM_TRACK_WG(b->lane), name, b->start, end - b->start, args);
}

void sim_batch_end(struct sim_device *dev, struct sim_batch *b, uint64_t t)
{
	struct sim_dispatch *d = b->d;
	struct sim_hwq *q = d->q;
	const struct sim_kernel *k = d->k;

	batch_free_cus(dev, b);
	d->running_wgs -= b->wg_count;
	q->wgs_running_n -= b->wg_count;
	trace_batch(dev, b, t, b->restored ? " (restored)" : "");

	/*
	 * Once per workgroup, on this thread, no model lock held. The completion signal is
	 * decremented later (sim_pp_dispatch_complete), so every callback happens-before it.
	 */
	for (uint32_t i = 0; i < b->wg_count; i++) {
		uint32_t wg = b->wg_first + i;

		if (k->wg_callback)
			k->wg_callback(k->wg_callback_arg, d->dispatch_id, wg, d->kernarg);
		if (k->counters && wg < k->counters_len)
			hsaqm_fetch_add(&k->counters[wg], 1u); /* acq_rel: ordered before the completion signal */
	}
	d->done_wgs += b->wg_count;
	/*
	 * acq_rel: a counter other processes read (shared mode); the workgroup callbacks above
	 * come first.
	 */
	hsaqm_fetch_add(&q->pub->stats.workgroups_done, (uint64_t)b->wg_count);
	HSAQM_WRITE_ONCE(q->pub->info_running, q->wgs_running_n);
	batch_release(dev, b);
	dev->dispatch_dirty = true;

	if (d->done_wgs == d->total_wgs)
		sim_pp_dispatch_complete(d, t);
	if (q->hstate == SIM_HQ_PREEMPTING && q->wgs_running_n == 0 && !q->in_save)
		sim_hws_wgs_drained(q, t);
}

uint64_t sim_queue_save_running(struct sim_hwq *q, uint64_t t)
{
	struct sim_device *dev = q->dev;
	uint64_t waves = 0, cu_max = 0;
	uint32_t *cu_waves = calloc(dev->ncu ? dev->ncu : 1, sizeof(*cu_waves));

	if (!cu_waves) {
		hsaqm_log_err("out of memory saving workgroups");
		abort();
	}
	q->in_save = true;
	/* Workgroups whose end is due now finish normally: there is nothing left to save. */
	for (struct sim_list *n = q->running.next; n != &q->running;) {
		struct sim_batch *b = sim_container_of(n, struct sim_batch, qlink);

		n = n->next;
		if (b->end <= t)
			sim_batch_end(dev, b, t);
	}
	while (!sim_list_empty(&q->running)) {
		struct sim_batch *b = sim_container_of(q->running.next, struct sim_batch, qlink);
		struct sim_saved *s = calloc(1, sizeof(*s));

		if (!s) {
			hsaqm_log_err("out of memory saving workgroups");
			abort();
		}
		s->d = b->d;
		s->wg_first = b->wg_first;
		s->wg_count = b->wg_count;
		s->waves_per_wg = b->waves_per_wg;
		s->remaining_ns = b->end - t;
		sim_list_add_tail(&q->saved, &s->link);
		for (uint32_t cu = b->cu_lo; b->cu_lo != UINT32_MAX && cu <= b->cu_hi; cu++) {
			cu_waves[cu] += (uint32_t)b->cu_wgs[cu] * b->waves_per_wg;
			if (cu_waves[cu] > cu_max)
				cu_max = cu_waves[cu];
		}
		batch_free_cus(dev, b);
		b->d->running_wgs -= b->wg_count;
		b->d->saved_wgs += b->wg_count;
		q->wgs_running_n -= b->wg_count;
		waves += (uint64_t)b->wg_count * b->waves_per_wg;
		trace_batch(dev, b, t, " (saved)");
		batch_release(dev, b);
	}
	q->in_save = false;
	free(cu_waves);
	q->save_cu_max = cu_max;
	q->waves_saved_cu_max += cu_max;
	q->waves_saved_n += waves;
	/*
	 * acq_rel: a counter read from other threads and processes; the save's bookkeeping above
	 * comes first.
	 */
	hsaqm_fetch_add(&q->pub->stats.waves_saved_total, waves);
	HSAQM_WRITE_ONCE(q->pub->info_running, q->wgs_running_n);
	HSAQM_WRITE_ONCE(q->pub->info_waves_saved, q->waves_saved_n);
	dev->dispatch_dirty = true;
	return waves;
}

void sim_dispatch_free(struct sim_dispatch *d)
{
	free(d);
}

void sim_queue_discard_work(struct sim_hwq *q)
{
	struct sim_device *dev = q->dev;

	while (!sim_list_empty(&q->running)) {
		struct sim_batch *b = sim_container_of(q->running.next, struct sim_batch, qlink);

		batch_free_cus(dev, b);
		q->wgs_running_n -= b->wg_count;
		trace_batch(dev, b, dev->now, " (discarded)");
		batch_release(dev, b);
	}
	struct sim_list *lists[2] = { &q->saved, &q->restore };
	for (int i = 0; i < 2; i++) {
		while (!sim_list_empty(lists[i])) {
			struct sim_saved *s = sim_container_of(lists[i]->next, struct sim_saved, link);

			sim_list_del(&s->link);
			free(s);
		}
	}
	q->waves_saved_n = 0;
	q->waves_saved_cu_max = 0;
	for (uint32_t i = 0; i < q->ninflight; i++) {
		sim_lane_put(dev, q->inflight[i]->lane);
		sim_dispatch_free(q->inflight[i]);
	}
	q->ninflight = 0;
	sim_ev_cancel(dev, &q->ev_launch);
	sim_ev_cancel(dev, &q->ev_pp);
	q->launch_busy = false;
	sim_pp_unwatch(q);
	dev->dispatch_dirty = true;
	HSAQM_WRITE_ONCE(q->pub->info_running, 0ull);
	HSAQM_WRITE_ONCE(q->pub->info_waves_saved, 0ull);
}

static bool cu_allowed(const struct sim_hwq *q, uint32_t cu)
{
	return (q->cu_mask[cu / 32] >> (cu % 32)) & 1u;
}

/* The next CU (round robin) this queue may use with @waves free slots; -1 if none. */
static int find_cu(struct sim_device *dev, const struct sim_hwq *q, uint32_t waves)
{
	if (dev->free_waves < waves)
		return -1;
	for (uint32_t i = 0; i < dev->ncu; i++) {
		uint32_t cu = dev->cu_cursor + i;

		if (cu >= dev->ncu)
			cu -= dev->ncu;
		if (dev->cu_free[cu] >= waves && cu_allowed(q, cu)) {
			dev->cu_cursor = cu + 1 == dev->ncu ? 0 : cu + 1;
			return (int)cu;
		}
	}
	return -1;
}

/* The dispatch whose workgroups the queue places next (in launch order), or NULL. */
static struct sim_dispatch *current_dispatch(const struct sim_hwq *q)
{
	for (uint32_t i = 0; i < q->ninflight; i++) {
		struct sim_dispatch *d = q->inflight[i];

		if (d->next_wg < d->total_wgs)
			return d->ready ? d : NULL;
	}
	return NULL;
}

static bool placeable(const struct sim_hwq *q)
{
	return q->hstate == SIM_HQ_MAPPED && (!sim_list_empty(&q->restore) || current_dispatch(q));
}

/* Place one workgroup of @q. Returns false when it has none or none fits. */
static bool place_one(struct sim_device *dev, struct sim_hwq *q, uint64_t t, uint64_t pass)
{
	if (!sim_list_empty(&q->restore)) {
		struct sim_saved *s = sim_container_of(q->restore.next, struct sim_saved, link);
		int cu = find_cu(dev, q, s->waves_per_wg);

		if (cu < 0)
			return false;
		struct sim_batch *b = s->open_batch;
		if (!b || s->open_pass != pass) {
			b = batch_new(dev, s->d, s->wg_first, s->waves_per_wg, t, t + s->remaining_ns, pass);
			b->restored = true;
			s->open_batch = b;
			s->open_pass = pass;
		}
		batch_take_cu(dev, b, (uint32_t)cu);
		s->wg_first++;
		s->wg_count--;
		s->d->saved_wgs--;
		s->d->running_wgs++;
		q->wgs_running_n++;
		q->waves_saved_n -= s->waves_per_wg;
		if (!q->waves_saved_n)
			q->waves_saved_cu_max = 0;
		/*
		 * acq_rel: as waves_saved_total: read elsewhere, after the restore's
		 * bookkeeping.
		 */
		hsaqm_fetch_add(&q->pub->stats.waves_restored_total, (uint64_t)s->waves_per_wg);
		if (!s->wg_count) {
			sim_list_del(&s->link);
			free(s);
		}
		return true;
	}

	struct sim_dispatch *d = current_dispatch(q);
	if (!d)
		return false;
	int cu = find_cu(dev, q, d->k->waves_per_wg);
	if (cu < 0)
		return false;
	uint64_t end = t + sim_kernel_draw(d->k, dev->rng);
	struct sim_batch *b = d->open_batch;
	if (!b || d->open_pass != pass || b->end != end) {
		b = batch_new(dev, d, (uint32_t)d->next_wg, d->k->waves_per_wg, t, end, pass);
		d->open_batch = b;
		d->open_pass = pass;
	}
	batch_take_cu(dev, b, (uint32_t)cu);
	d->next_wg++;
	d->running_wgs++;
	q->wgs_running_n++;
	return true;
}

void sim_dispatch_pass(struct sim_device *dev, uint64_t t)
{
	struct sim_hwq **cand = dev->cand;

	dev->dispatch_dirty = false;
	if (!dev->free_waves)
		return;
	uint64_t pass = ++dev->pass;

	for (int level = SIM_LEVELS - 1; level >= 0 && dev->free_waves; level--) {
		uint32_t n = 0, start = 0;

		for (struct sim_list *l = dev->queues.next; l != &dev->queues && n < dev->capcand; l = l->next) {
			struct sim_hwq *q = sim_container_of(l, struct sim_hwq, link);

			if (sim_hws_level(q->priority) == level && placeable(q))
				cand[n++] = q;
		}
		if (!n)
			continue;
		/* Round robin: start with the first queue after the one served last at this level. */
		while (start < n && cand[start]->queue_index < dev->rr_next[level])
			start++;
		if (start == n)
			start = 0;
		uint32_t i = start;
		while (n && dev->free_waves) {
			struct sim_hwq *q = cand[i];

			if (place_one(dev, q, t, pass)) {
				dev->rr_next[level] = q->queue_index + 1;
				i = i + 1 == n ? 0 : i + 1;
			} else {
				memmove(&cand[i], &cand[i + 1], (n - i - 1) * sizeof(cand[0]));
				n--;
				if (i >= n)
					i = 0;
			}
		}
	}
	for (struct sim_list *l = dev->queues.next; l != &dev->queues; l = l->next) {
		struct sim_hwq *q = sim_container_of(l, struct sim_hwq, link);

		HSAQM_WRITE_ONCE(q->pub->info_running, q->wgs_running_n);
		HSAQM_WRITE_ONCE(q->pub->info_waves_saved, q->waves_saved_n);
	}
}

/* ------------------------------------------------------------------------------------
 * Device lifetime.
 */
int sim_device_create(struct hsaqm_sim *sim, unsigned int index, const char *properties_path,
		      const char *timing_path, struct sim_device **out)
{
	struct sim_device *dev = calloc(1, sizeof(*dev));
	int err;

	if (!dev)
		return -ENOMEM;
	dev->sim = sim;
	dev->index = index;
	err = sim_profile_load(&dev->prof, properties_path, timing_path);
	if (err) {
		free(dev);
		return err;
	}
	dev->wake = &sim->arena.hdr->dev[index];
	dev->ncu = dev->prof.cu_count;
	dev->waves_per_cu = dev->prof.simd_per_cu * dev->prof.max_waves_per_simd;
	if (dev->waves_per_cu > UINT16_MAX || dev->ncu == 0) {
		free(dev);
		return -EINVAL;
	}
	dev->cu_free = calloc(dev->ncu, sizeof(*dev->cu_free));
	dev->slots = calloc(dev->prof.hqd_slots, sizeof(*dev->slots));
	if (!dev->cu_free || !dev->slots) {
		free(dev->cu_free);
		free(dev->slots);
		free(dev);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < dev->ncu; i++)
		dev->cu_free[i] = (uint16_t)dev->waves_per_cu;
	dev->free_waves = (uint64_t)dev->ncu * dev->waves_per_cu;
	dev->batch_bytes = sizeof(struct sim_batch) + dev->ncu * sizeof(uint16_t);
	sim_list_init(&dev->queues);
	sim_list_init(&dev->reqs);
	sim_list_init(&dev->reqs_taken);
	pthread_mutex_init(&dev->req_lock, NULL);
	sim_ev_init(&dev->ev_stim, SIM_EV_STIM, NULL);
	sim_ev_init(&dev->ev_quantum, SIM_EV_QUANTUM, dev);
	sim_ev_init(&dev->ev_req, SIM_EV_REQ, dev);
	dev->rl_victims_named = sim->cfg.sched_policy == 2;
	sim_rng_seed(dev->rng, (sim->cfg.seed ? sim->cfg.seed : 0x5eed5eedull) + index * 0x9e37ull);
	*out = dev;
	return 0;
}

void sim_device_destroy(struct sim_device *dev)
{
	if (!dev)
		return;
	sim_device_stop(dev);
	while (!sim_list_empty(&dev->queues)) {
		struct sim_hwq *q = sim_container_of(dev->queues.next, struct sim_hwq, link);

		sim_hwq_unlink(dev, q);
		sim_hwq_free(q);
	}
	while (dev->batch_free) {
		struct sim_batch *b = dev->batch_free;

		dev->batch_free = b->next_free;
		free(b);
	}
	pthread_mutex_destroy(&dev->req_lock);
	free(dev->heap);
	free(dev->cand);
	free(dev->lane_used);
	free(dev->cu_free);
	free(dev->slots);
	free(dev);
}

bool sim_device_idle(const struct sim_device *dev)
{
	if (dev->nheap || dev->rl_current || !sim_list_empty(&dev->reqs_taken) ||
	    sim_device_has_stimulus(dev))
		return false;
	for (struct sim_list *l = dev->queues.next; l != &dev->queues; l = l->next) {
		const struct sim_hwq *q = sim_container_of(l, struct sim_hwq, link);

		if (q->suspended || !q->active || q->error || q->destroyed)
			continue;
		if (sim_pp_has_work(q))
			return false;
	}
	return true;
}
