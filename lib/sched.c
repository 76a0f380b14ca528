/* SPDX-License-Identifier: MIT */
/*
 * The per-device scheduler: turns events (a queue became active or idle, a priority,
 * share or hand hold changed, a timer fired) into a policy decision and applies it,
 * preempting first and resuming after. Called with dev->lock held.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-common/log.h"
#include "xq_internal.h"

/* A queue in group 0 is a group of its own: a key no explicit group id can take. */
static uint64_t xq_group_key(const struct hsaqm_xq *xq)
{
	return xq->group ? xq->group : (1ull << 32) | xq->id;
}

void hsaqm_dev_arm(struct hsaqm_dev *dev)
{
	uint64_t at = dev->policy_deadline < dev->retry_deadline ? dev->policy_deadline
								 : dev->retry_deadline;

	if (dev->dep_deadline < at)
		at = dev->dep_deadline;

	if (at != HSAQM_NO_DEADLINE)
		hsaqm_timer_arm(dev->ctx, at);
}

void hsaqm_dev_decide(struct hsaqm_dev *dev, uint64_t now)
{
	/* Waits first: who stalled past the bound (no demand), who inherits (docs/lib.md). */
	hsaqm_dep_resolve(dev, now);
	for (uint32_t i = 0; i < dev->nxq; i++) {
		const struct hsaqm_xq *xq = dev->xqs[i];
		struct hsaqm_policy_queue *pq = &dev->pq[i];

		pq->priority = xq->priority;
		pq->group = xq_group_key(xq);
		pq->share_permille = xq->share;
		/*
		 * A queue held by hand does not compete: it must not keep others down; nor does
		 * one whose head waited past the bound on what no queue here can end.
		 */
		pq->active = !hsaqm_xq_idle(xq) && !xq->by_hand && !xq->stalled;
	}
	dev->policy_deadline = hsaqm_policy_decide(&dev->policy, &dev->pstate, dev->pq, dev->nxq,
						   now);
	hsaqm_dev_arm(dev);
	/*
	 * The policy's answer, then inheritance on top: a queue a running waiter needs runs
	 * although the policy (or a hand) holds it, released only up to what the waiter needs.
	 */
	for (uint32_t i = 0; i < dev->nxq; i++) {
		struct hsaqm_xq *xq = dev->xqs[i];
		bool only = xq->inherit && (!dev->pq[i].run || xq->by_hand);

		xq->dec_was_running = hsaqm_engine_wants_run(xq);
		xq->run = dev->pq[i].run;
		if (only && !xq->inherit_only) {
			xq->dep_inherited++;
			hsaqm_log_info("queue %s: runs up to packet %llu for a higher queue that waits "
				       "on it (priority %d)", xq->name,
				       (unsigned long long)xq->inh_upto, xq->inh_prio);
		}
		xq->inherit_only = only;
	}
	/* Preempt before resuming: stopping the lower queues is what the reaction is for. */
	for (uint32_t i = 0; i < dev->nxq; i++) {
		struct hsaqm_xq *xq = dev->xqs[i];

		if (xq->dec_was_running && !hsaqm_engine_wants_run(xq))
			hsaqm_engine_apply(xq, now);
	}
	/* Then what may go: newly let run, or inheriting with more to release than before. */
	for (uint32_t i = 0; i < dev->nxq; i++) {
		struct hsaqm_xq *xq = dev->xqs[i];

		if (hsaqm_engine_wants_run(xq) && (!xq->dec_was_running || xq->inherit_only))
			hsaqm_engine_apply(xq, now);
	}
}

void hsaqm_dev_timer(struct hsaqm_dev *dev, uint64_t now)
{
	if (dev->policy_deadline <= now || dev->dep_deadline <= now)
		hsaqm_dev_decide(dev, now);
	if (dev->retry_deadline <= now) {
		dev->retry_deadline = HSAQM_NO_DEADLINE;
		for (uint32_t i = 0; i < dev->nxq; i++)
			if (dev->xqs[i]->retry_pending)
				hsaqm_engine_apply(dev->xqs[i], now);
	}
	hsaqm_dev_arm(dev);
}

int hsaqm_dev_add(struct hsaqm_dev *dev, struct hsaqm_xq *xq)
{
	if (dev->nxq == dev->cap) {
		uint32_t cap = dev->cap ? dev->cap * 2 : 8;
		struct hsaqm_xq **xqs = realloc(dev->xqs, cap * sizeof(*xqs));

		if (!xqs)
			return -ENOMEM;
		dev->xqs = xqs;
		struct hsaqm_policy_queue *pq = realloc(dev->pq, cap * sizeof(*pq));

		if (!pq)
			return -ENOMEM;
		dev->pq = pq;
		dev->cap = cap;
	}
	xq->slot = dev->nxq;
	dev->xqs[dev->nxq] = xq;
	/* Fresh policy state (floor clocks); the caller decides again at once. */
	memset(&dev->pq[dev->nxq], 0, sizeof(dev->pq[0]));
	dev->nxq++;
	return 0;
}

void hsaqm_dev_remove(struct hsaqm_dev *dev, struct hsaqm_xq *xq)
{
	uint32_t last = dev->nxq - 1;

	if (xq->slot != last) {
		dev->xqs[xq->slot] = dev->xqs[last];
		dev->pq[xq->slot] = dev->pq[last];
		dev->xqs[xq->slot]->slot = xq->slot;
	}
	dev->nxq--;
}
