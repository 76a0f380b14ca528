/* SPDX-License-Identifier: MIT */
/*
 * Dependencies between queues (docs/lib.md "Dependencies and priority inheritance").
 *
 * A packet of one queue may wait on work of another: HIP's hipStreamWaitEvent becomes an AQL
 * barrier-AND on a completion signal that a packet of another queue decrements. If hsaqm holds
 * that other queue because the waiting one is busy (a higher queue holds a lower one), nothing
 * ever moves: a deadlock hsaqm made in a correct program. Two rules prevent it:
 *
 *   - priority inheritance: a queue that a running waiter needs, directly or through a chain,
 *     runs although the policy holds it, and only as far as the packet the waiter needs where
 *     the level can hold the rest (Lv1/Lv2/Lv3 release up to it; what was released before runs);
 *   - the bound: a queue whose head has waited longer than the context's bound on something
 *     hsaqm cannot end (a signal the host sets, memory a kernel writes, another process)
 *     stops counting as demand, so it holds nobody until it moves again.
 *
 * The backend, which reads packets, reports waits with hsaqm_xq_depend() in a form that names
 * no signal: "packet i of this queue waits on queue q up to its packet n". Everything here
 * runs under the device lock; hsaqm_dep_resolve() is the first step of every decision.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "hsaqm-common/barrier.h"
#include "hsaqm-common/log.h"
#include "xq_internal.h"

/* The id a backend names a queue by (hsaqm_xq_get_id()): lib's own counts from 0, 0 means none. */
static uint32_t xq_dep_id(const struct hsaqm_xq *xq)
{
	return xq->id + 1;
}

static struct hsaqm_xq *dev_find(const struct hsaqm_dev *dev, uint32_t id)
{
	for (uint32_t i = 0; id && i < dev->nxq; i++)
		if (xq_dep_id(dev->xqs[i]) == id)
			return dev->xqs[i];
	return NULL;
}

/*
 * The wait is over once the waiter went past it. A producer that completed what the wait
 * needs ends only the inheritance (dep_inherit skips it): the wait stays, and with it the
 * bound, until the waiter moves, because the signal may have been set again since the scan
 * named that producer (a runtime reuses signals: a pool's, an event's re-record, an SDMA
 * copy's that no proxied queue writes), and a head still waiting then must not count as demand
 * for ever.
 */
static bool dep_over(const struct hsaqm_dev *dev, const struct hsaqm_xq *xq,
		     struct hsaqm_xq_dep *d)
{
	if (xq->completed > d->index)
		return true;
	if (d->on_id && !dev_find(dev, d->on_id)) {
		/* Its producer was detached (its work drained first): nothing left to inherit. */
		d->on_id = 0;
	}
	return false;
}

static void dep_prune(const struct hsaqm_dev *dev, struct hsaqm_xq *xq)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < xq->ndeps; i++)
		if (!dep_over(dev, xq, &xq->deps[i]))
			xq->deps[k++] = xq->deps[i];
	xq->ndeps = k;
	/* A wait without room is over at the latest when the queue has completed everything. */
	if (xq->deps_lost && hsaqm_xq_idle(xq))
		xq->deps_lost = false;
}

/* It competes for the device: work outstanding, no hand hold, not stalled on a wait. */
static bool xq_demands(const struct hsaqm_xq *xq)
{
	return !hsaqm_xq_idle(xq) && !xq->by_hand && !xq->stalled;
}

/* The completions a waiter's wait can move with: its own and its producers'. */
static uint64_t dep_progress(const struct hsaqm_dev *dev, const struct hsaqm_xq *xq)
{
	uint64_t sum = xq->completed;

	for (uint32_t i = 0; i < xq->ndeps; i++) {
		const struct hsaqm_xq *on = xq->deps[i].on_id ? dev_find(dev, xq->deps[i].on_id) : NULL;

		if (on)
			sum += on->completed;
	}
	return sum;
}

/*
 * A waiter lends its priority to a producer above which it stands, or to one at its level
 * while a hand holds it: a waiter below cannot be blocked by the policy on the producer's
 * behalf, and lending it run time then would only delay the higher work.
 */
static int xq_lend_prio(const struct hsaqm_xq *w)
{
	return w->inherit && w->inh_prio > w->priority ? w->inh_prio : w->priority;
}

static bool dep_lends(int wp, const struct hsaqm_xq *on)
{
	return wp > on->priority || (on->by_hand && wp >= on->priority);
}

/* How many links of a chain of waits the bound looks through (deeper ones just stall). */
#define DEP_CHAIN_LOOK 4

static bool dep_waits_on_working(const struct hsaqm_dev *dev, const struct hsaqm_xq *xq,
				 unsigned depth);

/*
 * @on moves towards what its waiters need once they lend to it: it has work, did not stall,
 * and its head is busy, or waits on a producer that is itself working. Waits that name each
 * other (a signal reused behind the scan's back) end at @depth, so they stall as before.
 */
static bool dep_working(const struct hsaqm_dev *dev, const struct hsaqm_xq *on, unsigned depth)
{
	if (hsaqm_xq_idle(on) || on->stalled)
		return false;
	if (!on->head_waiting)
		return true;
	return depth && dep_waits_on_working(dev, on, depth - 1);
}

/*
 * The queue waits on a producer of this device that is short of the packet it needs, that
 * it lends to, and that is working: the wait is one this process ends by itself, however long
 * the producer's kernels run, so the bound does not apply to it.
 */
static bool dep_waits_on_working(const struct hsaqm_dev *dev, const struct hsaqm_xq *xq,
				 unsigned depth)
{
	int wp = xq_lend_prio(xq);

	for (uint32_t k = 0; k < xq->ndeps; k++) {
		const struct hsaqm_xq_dep *d = &xq->deps[k];
		const struct hsaqm_xq *on = d->on_id ? dev_find(dev, d->on_id) : NULL;

		if (on && on != xq && on->completed < d->upto && dep_lends(wp, on) &&
		    dep_working(dev, on, depth))
			return true;
	}
	return false;
}

/*
 * Why the head's wait is bounded, in words, for the stall notice: the first wait that is not on
 * a working producer (a stall that a test did not expect says here which rule let it happen).
 */
static void dep_why_bounded(const struct hsaqm_dev *dev, const struct hsaqm_xq *xq, char *buf,
			    size_t len)
{
	int wp = xq_lend_prio(xq);

	for (uint32_t k = 0; k < xq->ndeps; k++) {
		const struct hsaqm_xq_dep *d = &xq->deps[k];
		const struct hsaqm_xq *on = d->on_id ? dev_find(dev, d->on_id) : NULL;
		const char *why;

		if (!on) {
			snprintf(buf, len, "packet %llu waits on a signal no queue of this device "
				 "completes", (unsigned long long)d->index);
			return;
		}
		if (on == xq)
			why = "its own queue";
		else if (on->completed >= d->upto)
			why = "which has completed the packet it needs, but the head has not moved";
		else if (!dep_lends(wp, on))
			why = "which it does not lend to (not below it, not held by hand)";
		else if (hsaqm_xq_idle(on))
			why = "which has nothing outstanding";
		else if (on->stalled)
			why = "which itself passed the bound";
		else if (on->head_waiting)
			why = "whose head waits on what is not working";
		else
			continue;
		snprintf(buf, len, "packet %llu waits on queue %s up to its packet %llu (completed "
			 "%llu), %s", (unsigned long long)d->index, on->name,
			 (unsigned long long)d->upto, (unsigned long long)on->completed, why);
		return;
	}
	if (xq->deps_lost)
		snprintf(buf, len, "a wait beyond the %u hsaqm keeps per queue: not attributed",
			 (unsigned)HSAQM_XQ_DEPS);
	else
		snprintf(buf, len, "a chain of waits longer than %u links", DEP_CHAIN_LOOK);
}

/* Whether the queue's head stands at a wait now (the backend's answer), for every queue first. */
static void dep_look_head(struct hsaqm_xq *xq)
{
	if ((!xq->ndeps && !xq->deps_lost) || hsaqm_xq_idle(xq))
		xq->head_waiting = false;
	else
		xq->head_waiting = (xq->ops->head_waits ? xq->ops->head_waits(xq->bq) : 1) == 1;
}

/*
 * The bound on a queue that has waits. Its clock starts when the head is first seen waiting
 * and restarts with any progress of the queue or of a producer it waits on. It does not run
 * while the head waits on a working producer of this device that it lends to: that wait ends
 * by itself, and a waiter stalled there would stop lending, so the producer, held for others
 * (by the policy, or by hsaqmd once the tool reports the waiter idle), would never reach the
 * packet the waiter needs (a high stream held 170 ms behind a middle process, issue 25). Its
 * kernels may run longer than the bound; the waiter keeps holding lower work meanwhile.
 * Return: true while the queue needs to be looked at again.
 */
static bool dep_check_head(struct hsaqm_dev *dev, struct hsaqm_xq *xq, uint64_t now)
{
	uint64_t bound = HSAQM_READ_ONCE(dev->ctx->dep_bound_ns);
	uint64_t progress;

	if ((!xq->ndeps && !xq->deps_lost) || hsaqm_xq_idle(xq)) {
		xq->wait_since = 0;
		xq->stalled = false;
		return false;
	}
	if (!xq->head_waiting || (!xq->stalled && dep_waits_on_working(dev, xq, DEP_CHAIN_LOOK))) {
		xq->wait_since = 0;
		if (xq->stalled)
			hsaqm_log_info("queue %s: its head moved on; it counts as demand again", xq->name);
		xq->stalled = false;
		return true;
	}
	progress = dep_progress(dev, xq);
	if (!xq->wait_since || progress != xq->wait_progress) {
		xq->wait_since = now ? now : 1;
		xq->wait_progress = progress;
		return true;
	}
	if (!xq->stalled && now - xq->wait_since >= bound) {
		char why[192];

		xq->stalled = true;
		xq->dep_stalls++;
		dep_why_bounded(dev, xq, why, sizeof(why));
		hsaqm_log_notice(&xq->stall_notice,
				 "queue %s (device %u): its head waited %llu ms on a dependency no queue "
				 "here ends by itself (a signal the host sets, memory a kernel writes, "
				 "another process or device; here: %s); it no longer holds lower queues "
				 "until it moves (said once per queue; dep_stalls counts each time, "
				 "HSAQM_DEP_BOUND_MS sets the bound)", xq->name, xq->dev->id,
				 (unsigned long long)((now - xq->wait_since) / 1000000u), why);
	}
	return true;
}

/*
 * Priority inheritance: every queue a running waiter needs, through chains (a waiter that is
 * itself needed runs, so its own waits count). A producer inherits only from a waiter above
 * it (or one at its level while it is held by hand): a waiter below it cannot be blocked by
 * the policy on its behalf, and lending it run time then would only delay the higher work.
 */
static void dep_inherit(struct hsaqm_dev *dev)
{
	for (uint32_t i = 0; i < dev->nxq; i++) {
		struct hsaqm_xq *xq = dev->xqs[i];

		xq->inherit = false;
		xq->inh_prio = INT_MIN;
		xq->inh_upto = 0;
	}
	/* Each round extends chains by one link; nxq rounds cover any chain (cycles stop). */
	for (uint32_t round = 0; round <= dev->nxq; round++) {
		bool changed = false;

		for (uint32_t i = 0; i < dev->nxq; i++) {
			struct hsaqm_xq *w = dev->xqs[i];
			int wp;

			if (!w->ndeps || !(xq_demands(w) || w->inherit))
				continue;
			wp = xq_lend_prio(w);
			for (uint32_t k = 0; k < w->ndeps; k++) {
				const struct hsaqm_xq_dep *d = &w->deps[k];
				struct hsaqm_xq *on = d->on_id ? dev_find(dev, d->on_id) : NULL;

				if (!on || on == w || on->completed >= d->upto)
					continue;
				if (!dep_lends(wp, on))
					continue;
				if (!on->inherit || on->inh_prio < wp || on->inh_upto < d->upto) {
					on->inherit = true;
					if (on->inh_prio < wp)
						on->inh_prio = wp;
					if (on->inh_upto < d->upto)
						on->inh_upto = d->upto;
					changed = true;
				}
			}
		}
		if (!changed)
			break;
	}
}

void hsaqm_dep_resolve(struct hsaqm_dev *dev, uint64_t now)
{
	bool look = false, any = false;

	for (uint32_t i = 0; i < dev->nxq; i++) {
		struct hsaqm_xq *xq = dev->xqs[i];

		any |= xq->ndeps || xq->inherit;
		if (!xq->ndeps && !xq->deps_lost && !xq->stalled && !xq->inherit_only) {
			xq->head_waiting = false;
			continue;
		}
		dep_prune(dev, xq);
		dep_look_head(xq);
	}
	/* The clocks once every head is known: a waiter's depends on its producers' heads. */
	for (uint32_t i = 0; i < dev->nxq; i++) {
		struct hsaqm_xq *xq = dev->xqs[i];

		if (xq->ndeps || xq->deps_lost || xq->stalled || xq->inherit_only || xq->wait_since)
			look |= dep_check_head(dev, xq, now);
	}
	/* The reaction path of a device without waits: no inheritance to work out or undo. */
	if (any)
		dep_inherit(dev);
	if (look) {
		uint64_t step = HSAQM_READ_ONCE(dev->ctx->dep_bound_ns) / 4;

		dev->dep_deadline = now + (step < HSAQM_DEP_BOUND_MIN_NS ? HSAQM_DEP_BOUND_MIN_NS : step);
	} else {
		dev->dep_deadline = HSAQM_NO_DEADLINE;
	}
}

/* ---- the API ----------------------------------------------------------------------------- */

int hsaqm_xq_depend(struct hsaqm_xq *xq, const struct hsaqm_dep *dep)
{
	struct hsaqm_dev *dev;

	if (!hsaqm_xq_valid(xq) || !dep) {
		hsaqm_log_err("hsaqm_xq_depend: %s is NULL or foreign", dep ? "the queue" : "dep");
		return -EINVAL;
	}
	dev = xq->dev;
	pthread_mutex_lock(&dev->lock);
	if (dep->on_id == xq_dep_id(xq) || dep->index < xq->completed) {
		pthread_mutex_unlock(&dev->lock);
		hsaqm_log_err("queue %s: a wait of packet %llu on %s", xq->name,
			      (unsigned long long)dep->index,
			      dep->on_id == xq_dep_id(xq) ? "itself" : "a packet already complete");
		return -EINVAL;
	}
	xq->dep_waits++;
	if (dep->on_id && !dev_find(dev, dep->on_id)) {
		/* Another device's queue (its own scheduler) or one gone: the bound's business. */
		hsaqm_log_debug("queue %s: packet %llu waits on queue %u, not on this device",
				xq->name, (unsigned long long)dep->index, dep->on_id);
	}
	if (xq->ndeps == HSAQM_XQ_DEPS)
		dep_prune(dev, xq);
	if (xq->ndeps < HSAQM_XQ_DEPS) {
		struct hsaqm_xq_dep *d = &xq->deps[xq->ndeps++];

		struct hsaqm_xq *on = dev_find(dev, dep->on_id);

		d->index = dep->index;
		d->upto = dep->upto;
		/* A producer already past what the wait needs cannot end it: the bound's business. */
		d->on_id = on && on->completed < dep->upto ? dep->on_id : 0;
	} else {
		xq->deps_lost = true;
		hsaqm_log_info("queue %s: more than %u waits at once; packet %llu's is bounded only",
			       xq->name, HSAQM_XQ_DEPS, (unsigned long long)dep->index);
	}
	/* At once, whatever the queue's state: a busy waiter decides nothing at its doorbell. */
	hsaqm_dev_decide(dev, hsaqm_ctx_now(dev->ctx));
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

uint32_t hsaqm_xq_get_id(const struct hsaqm_xq *xq)
{
	return hsaqm_xq_valid(xq) ? xq_dep_id(xq) : 0;
}

void hsaqm_xq_deps_locked(const struct hsaqm_xq *xq, struct hsaqm_xq_deps *deps)
{
	memset(deps, 0, sizeof(*deps));
	deps->waits = xq->dep_waits;
	deps->inherited = xq->dep_inherited;
	deps->stalls = xq->dep_stalls;
	deps->live = xq->ndeps + (xq->deps_lost ? 1u : 0u);
	deps->inheriting = xq->inherit_only;
	deps->stalled = xq->stalled;
	deps->waiting_on = xq->ndeps ? xq->deps[0].on_id : 0;
	deps->upto = xq->inherit_only ? xq->inh_upto : 0;
}

int hsaqm_xq_get_deps(const struct hsaqm_xq *xq, struct hsaqm_xq_deps *deps)
{
	if (!hsaqm_xq_valid(xq) || !deps) {
		hsaqm_log_err("hsaqm_xq_get_deps: %s is NULL or foreign", deps ? "the queue" : "deps");
		return -EINVAL;
	}
	pthread_mutex_lock(&xq->dev->lock);
	hsaqm_xq_deps_locked(xq, deps);
	pthread_mutex_unlock(&xq->dev->lock);
	return 0;
}

int hsaqm_ctx_set_dep_bound(struct hsaqm_ctx *ctx, uint64_t bound_ns)
{
	if (!hsaqm_ctx_valid(ctx) || bound_ns < HSAQM_DEP_BOUND_MIN_NS) {
		hsaqm_log_err("hsaqm_ctx_set_dep_bound: %s", !hsaqm_ctx_valid(ctx) ?
			      "the context is NULL or foreign" : "the bound is below 100 us");
		return -EINVAL;
	}
	/* Read under each device's lock by decisions; a torn read is impossible (aligned). */
	HSAQM_WRITE_ONCE(ctx->dep_bound_ns, bound_ns);
	return 0;
}
