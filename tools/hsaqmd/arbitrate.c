/* SPDX-License-Identifier: MIT */
/*
 * arbitrate.c - hsaqmd's decisions: per device, who must hold (lib's policy over the queues of
 * every process, at the process's priority), the command words that say so, the timing of each
 * hand-off, and the liveness rule (a holder that makes no progress holds nobody).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "arbitrate_internal.h"
#include "daemon_log_internal.h"
#include "hsaqm-common/barrier.h"
#include "registry_internal.h"

/* Longer than this is no reaction: a stamp from another clock (a time namespace), or a bad one. */
#define HANDOFF_MAX_NS 1000000000u

/*
 * Times a pending hold once the client acknowledged it. The stamps are the client's words
 * (hsaqm-dclient/proto.h): a sample with a segment outside 0..1 s is dropped and counted, so a
 * client can spoil only the statistics, never a decision. Return: true when it was acked.
 */
static bool handoff_harvest(struct hsaqmd *d, struct dqueue *q)
{
	struct hsaqmd_shm *shm = q->cl->shm;
	uint32_t ack_ns, rs, ss, sa;

	if (!q->pend)
		return true;
	/* Acquire: pairs with the client's release of its ack (after its ack_ns stamp). */
	if (!shm || hsaqm_load_acquire(&shm->slot[q->slot].ack) != q->pend_cmd)
		return false;
	/* After the acquire above: the client stores the stamp before the ack. */
	ack_ns = HSAQM_READ_ONCE(shm->stamp[q->slot].ack_ns);
	q->pend = false;
	rs = (uint32_t)q->pend_seen_ns - q->pend_ready;
	ss = (uint32_t)(q->pend_sent_ns - q->pend_seen_ns);
	sa = ack_ns - (uint32_t)q->pend_sent_ns;
	if (rs >= HANDOFF_MAX_NS || ss >= HANDOFF_MAX_NS || sa >= HANDOFF_MAX_NS) {
		d->st.stamps_discarded++;
		return true;
	}
	hsaqm_hist_record(&d->h_ready_seen, rs);
	hsaqm_hist_record(&d->h_seen_sent, ss);
	hsaqm_hist_record(&d->h_sent_acked, sa);
	hsaqm_hist_record(&d->h_ready_acked, (uint64_t)rs + ss + sa);
	prom_hist_record(&d->p_ready_seen, rs);
	prom_hist_record(&d->p_seen_sent, ss);
	prom_hist_record(&d->p_sent_acked, sa);
	prom_hist_record(&d->p_ready_acked, (uint64_t)rs + ss + sa);
	prom_hist_record(&q->handoff, (uint64_t)rs + ss + sa);
	return true;
}

/* A pending hold is about to lose its meaning (a new command, the queue goes away). */
void hsaqmd_handoff_close(struct hsaqmd *d, struct dqueue *q)
{
	if (!handoff_harvest(d, q)) {
		d->st.holds_unacked++;
		q->pend = false;
	}
}

void hsaqmd_queue_command(struct hsaqmd *d, struct dqueue *q, bool hold)
{
	struct dclient *cl = q->cl;
	uint32_t seq = ++cl->slot_seq[q->slot];

	hsaqmd_handoff_close(d, q);

	q->cmd = seq << 1 | (hold ? HSAQMD_CMD_HOLD : 0);
	if (hold && !q->hold) {
		q->hold_since_ns = hsaqmd_now_ns();
	} else if (!hold && q->hold) {
		q->held_ns += hsaqmd_now_ns() - q->hold_since_ns;
		/* A held queue makes no progress by design: its clock starts at its release, so
		 * it is not found stalled the moment it runs (docs/daemon.md "Liveness"). A
		 * stalled one keeps its word: a move while it was held still clears it. */
		if (!q->stalled) {
			q->progress = HSAQM_READ_ONCE(cl->shm->slot[q->slot].progress);
			q->progress_ns = hsaqmd_now_ns();
		}
	}
	q->hold = hold;
	if (hold)
		q->preemptions++;
	/* Release: the client load-acquires the word; nothing else rides on it but the value. */
	hsaqm_store_release(&cl->shm->slot[q->slot].cmd, q->cmd);
	cl->need_kick = true;
	d->st.commands++;
}

static void client_kick(struct hsaqmd *d, struct dclient *cl)
{
	uint64_t one = 1;

	cl->need_kick = false;
	/* Orders the command words stored above before the flag the client clears and then
	 * reads the words after (acq_rel RMW). Only the 0 -> 1 transition needs a wake-up. */
	if (hsaqm_exchange(&cl->shm->kick_client, 1u) != 0)
		return;
	/* EAGAIN: the client let its counter fill up; it will read the words when it drains. */
	if (write(cl->efd_out, &one, sizeof(one)) == sizeof(one))
		d->st.kicks_out++;
}

/*
 * The daemon arbitrates between processes, not within one: each process's tool library runs
 * lib's policy over its own queues already, with its own floor and the in-process reaction.
 * Holding a queue here for a higher queue of the same process would add a second decider
 * whose floor slices never line up with lib's (a held queue runs only when both let it: the
 * floor was lost). So every queue of a process competes at the highest priority among that
 * process's ready queues on the device (its own when none is ready): a process is held only
 * for another process's higher ready queue, and lib orders the queues inside it.
 */
static void process_priorities(struct ddev *dev)
{
	for (size_t i = 0; i < dev->n; i++)
		dev->q[i]->cl->arb_set = false;
	for (size_t i = 0; i < dev->n; i++) {
		struct dqueue *q = dev->q[i];
		int p = hsaqmd_queue_priority(q);

		if (q->active && !q->stalled && (!q->cl->arb_set || p > q->cl->arb_prio)) {
			q->cl->arb_prio = p;
			q->cl->arb_set = true;
		}
	}
}

void hsaqmd_dev_decide(struct hsaqmd *d, struct ddev *dev, uint64_t now)
{
	process_priorities(dev);
	for (size_t i = 0; i < dev->n; i++) {
		struct dqueue *q = dev->q[i];
		struct hsaqm_policy_queue *pq = &dev->pq[i];

		pq->priority = q->cl->arb_set ? q->cl->arb_prio : hsaqmd_queue_priority(q);
		/* UTIL groups: the process, or a group inside it; never across processes. */
		pq->group = (uint64_t)q->cl->id << 32 | q->group;
		pq->share_permille = q->share;
		/* A ready queue that stopped progressing holds nobody (docs/daemon.md "Liveness"). */
		pq->active = q->active && !q->stalled;
	}
	dev->deadline = hsaqm_policy_decide(&dev->cfg, &dev->st, dev->pq, dev->n, now);
	d->st.decisions++;
	for (size_t i = 0; i < dev->n; i++) {
		struct dqueue *q = dev->q[i];
		bool hold = !dev->pq[i].run;

		if (hold == q->hold)
			continue;
		/* Taken before the store: the client's ack stamp cannot precede it. */
		uint64_t sent = hold && dev->trig ? hsaqmd_now_ns() : 0;

		hsaqmd_queue_command(d, q, hold);
		if (sent) {
			q->pend = true;
			q->pend_cmd = q->cmd;
			q->pend_ready = dev->trig_ready;
			q->pend_seen_ns = dev->trig_seen_ns;
			q->pend_sent_ns = sent;
		}
	}
	dev->trig = false;
	dev->dirty = false;
}

static void arm_timer(struct hsaqmd *d)
{
	uint64_t next = HSAQM_POLICY_NO_DEADLINE;
	struct itimerspec its;

	for (size_t i = 0; i < d->ndevs; i++)
		if (d->devs[i]->deadline < next)
			next = d->devs[i]->deadline;
	if (next == d->armed)
		return;
	memset(&its, 0, sizeof(its));
	if (next != HSAQM_POLICY_NO_DEADLINE) {
		if (next == 0)
			next = 1; /* 0 would disarm */
		its.it_value.tv_sec = (time_t)(next / 1000000000ull);
		its.it_value.tv_nsec = (long)(next % 1000000000ull);
	}
	if (timerfd_settime(d->tfd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
		d->armed = next;
}

/* Decide every dirty device (and every due one), then kick the clients whose words changed. */
void hsaqmd_decide_all(struct hsaqmd *d, bool due_only)
{
	uint64_t now = hsaqmd_now_ns();

	for (size_t i = 0; i < d->ndevs; i++) {
		struct ddev *dev = d->devs[i];

		if (dev->dirty || (due_only && dev->deadline <= now))
			hsaqmd_dev_decide(d, dev, now);
	}
	for (struct dclient *cl = d->clients; cl; cl = cl->next)
		if (cl->need_kick && !cl->dead)
			client_kick(d, cl);
	arm_timer(d);
}

/* Holds acked since their command are timed now, so figures read after include them. */
void hsaqmd_harvest_all(struct hsaqmd *d)
{
	for (size_t i = 0; i < d->ndevs; i++)
		for (size_t j = 0; j < d->devs[i]->n; j++)
			handoff_harvest(d, d->devs[i]->q[j]);
}

/* Reads a client's state words into its queues; true when one changed (its device is dirty). */
bool hsaqmd_scan_states(struct dclient *cl)
{
	bool changed = false;

	for (unsigned int s = 0; s < HSAQMD_SLOTS; s++) {
		struct dqueue *q = cl->slot[s];

		if (!q)
			continue;
		/* Any value but 1 is idle: the word is the client's to scribble on. */
		bool active = hsaqm_load_acquire(&cl->shm->slot[s].state) == 1;

		if (active != q->active) {
			q->active = active;
			q->dev->dirty = true;
			changed = true;
			/* Ready from now: its hold is earned from now (a doorbell is progress). */
			q->progress = HSAQM_READ_ONCE(cl->shm->slot[s].progress);
			q->progress_ns = hsaqmd_now_ns();
			q->stalled = false;
			if (active) {
				/* After the acquire above: the stamp is stored before the word. */
				q->dev->trig = true;
				q->dev->trig_ready = HSAQM_READ_ONCE(cl->shm->stamp[s].ready_ns);
				q->dev->trig_seen_ns = hsaqmd_now_ns();
			}
		}
	}
	return changed;
}

/*
 * Whom @q holds: the ready queues of other processes on its device that are held while @q
 * runs ready. The count of those queues; the distinct pids of their processes (the first
 * @max of them) in @pids; *@npids their number, max + 1 meaning "more than max".
 */
static unsigned int holding(const struct dqueue *q, uint32_t *pids, unsigned int max,
			    unsigned int *npids)
{
	const struct ddev *dev = q->dev;
	unsigned int n = 0;

	*npids = 0;
	for (size_t i = 0; i < dev->n; i++) {
		const struct dqueue *o = dev->q[i];
		unsigned int k;

		if (o->cl == q->cl || !o->hold || !o->active)
			continue;
		n++;
		for (k = 0; k < *npids && k < max && pids[k] != o->cl->pid_ns; k++)
			;
		if (k == *npids) {
			if (k < max)
				pids[k] = o->cl->pid_ns;
			(*npids)++;
		}
	}
	return n;
}

/*
 * A hold is earned by progress (docs/daemon.md "Liveness"): a queue that is ready, not held
 * itself, and holding other processes' ready queues, whose progress word (a doorbell, a
 * completion) has not moved for hold_progress_ms, is stalled: treated as idle, so the
 * processes it held run again; it holds again as soon as it moves. Only such a holder is
 * counted and named: a held queue makes no progress by design (its clock restarts at its
 * release), and a ready queue that holds nobody costs nobody anything. One line a second at
 * most says so whatever the log level: someone's job was being held by a process that does
 * not move.
 */
void hsaqmd_check_progress(struct hsaqmd *d, struct dclient *cl, uint64_t now)
{
	uint64_t limit = (uint64_t)d->cfg.hold_progress_ms * 1000000ull;

	for (unsigned int s = 0; s < HSAQMD_SLOTS; s++) {
		struct dqueue *q = cl->slot[s];
		uint32_t p, pids[4];
		unsigned int nheld, npids;
		char who[96];
		int off = 0;

		if (!q || !q->active)
			continue;
		p = HSAQM_READ_ONCE(cl->shm->slot[s].progress);
		if (p != q->progress) {
			q->progress = p;
			q->progress_ns = now;
			if (q->stalled) {
				q->stalled = false;
				q->dev->dirty = true;
			}
			continue;
		}
		if (q->hold || q->stalled || now - q->progress_ns <= limit)
			continue;
		nheld = holding(q, pids, 4, &npids);
		if (!nheld)
			continue;
		q->stalled = true;
		q->stalls++;
		q->dev->dirty = true;
		d->st.stalls++;
		if (now - d->notice_ns <= 1000000000ull)
			continue;
		d->notice_ns = now;
		for (unsigned int k = 0; k < npids && k < 4; k++)
			off += snprintf(who + off, sizeof(who) - (size_t)off, "%s%u", k ? ", " : "",
					pids[k]);
		if (npids > 4)
			snprintf(who + off, sizeof(who) - (size_t)off, " and others");
		hsaqmd_log_notice("pid %u (uid %u, %s) queue q%u is ready but made no progress "
				  "for %llu ms while holding %u queue%s of %s %s: it holds nobody "
				  "until it moves", cl->pid_ns, cl->uid, cl->comm, q->qid,
				  (unsigned long long)((now - q->progress_ns) / 1000000ull), nheld,
				  nheld == 1 ? "" : "s", npids == 1 ? "pid" : "pids", who);
	}
}
