/* SPDX-License-Identifier: MIT */
/*
 * tool_node.c - the tool library's client of hsaqmd: priorities across processes
 * (docs/daemon.md, docs/tool.md "Across processes: hsaqmd").
 *
 * Each process keeps scheduling its own queues with lib (in-process HPF/UTIL as before); the
 * daemon decides which queues of the node must hold, per device, and this file carries its
 * decisions out with lib's public API: PREEMPT = hsaqm_xq_suspend() (the queue's gate closes
 * at Lv2, the hardware queue is suspended at Lv3, nothing more is released at Lv1),
 * RESUME = hsaqm_xq_resume() unless the process is suspended by hand too.
 *
 * Ready and idle: the doorbell wrapper marks a queue ready before it hands the packets to
 * lib (so the daemon hears at once) and checks again after lib took them (one load each
 * while it is marked already). lib's idle hook (hsaqm_ctx_set_idle_hook(), called when a
 * queue completed everything) wakes a watcher thread, which asks lib whether each marked
 * queue is idle and marks it idle; while queues are marked it also looks every
 * NODE_IDLE_FALLBACK_US, for a doorbell that brought no new packet (no completion will
 * follow it). The race
 * between the two is closed by lib's device lock: the watcher clears `marked` before it
 * reads the queue's state under that lock, and the doorbell reads `marked` after
 * hsaqm_xq_submitted() took the same lock, so one of them sees the other (see
 * watch_queue()).
 *
 * Nothing on the application's submission path waits for the socket: marking is a store in
 * the shared page and, at most, one non-blocking eventfd write (hsaqm_dclient_queue_mark).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "hsa_backend_internal.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-dclient/daemon_client.h"
#include "hsaqm-hsa/hsa_backend.h"
#include "hsaqm/hsaqm.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-kfd/kfd_transport.h"
#include "hsaqm-common/json.h"
#include "hsaqm-common/log.h"
#include "hsaqm-common/rt.h"
#include "tool_internal.h"

/*
 * How often the watcher looks at marked queues without an idle hook call. Completions call
 * the hook, so this only bounds how long a queue marked by a doorbell that brought nothing
 * stays marked (the daemon holds lower processes meanwhile). Assumption: 5 ms, 200 wake-ups
 * a second while a queue is marked, is cheap and rare enough (session 2 polled every 200 us).
 */
#define NODE_IDLE_FALLBACK_US 5000u
/* How often a process without a daemon looks again (at a queue creation). */
#define NODE_RETRY_NS (1000ull * 1000 * 1000)
/* Slots of the proxy -> queue map: twice the daemon's 128 queues per client, a power of 2. */
#define NODE_MAP_SIZE 256u
#define NODE_MAP_TOMB ((struct hsaqm_hsa_proxy *)(uintptr_t)1)

/* Published in tool_queue.node by a CAS (release); every reader loads it with acquire. */
struct tool_node_queue {
	struct tool_queue *tq;
	struct hsaqm_dclient_queue *dq;
	pthread_mutex_t mark_lock; /* serialises hsaqm_dclient_queue_mark() for the queue */
	uint32_t marked;           /* atomic: what the daemon was told (1 ready) */
	pthread_mutex_t hold_lock; /* daemon_held, applied: the callback vs suspend by hand */
	bool daemon_held;
	bool applied;              /* hsaqm_xq_suspend() in force through us */
	uint64_t holds;            /* PREEMPTs applied */
	uint64_t last_hold_ns;     /* CLOCK_MONOTONIC after the suspend returned */
	uint64_t last_resume_ns;
	uint32_t qid;
	uint64_t completed; /* lib's count when the watcher last looked (progress) */
};

static struct {
	pthread_mutex_t lock; /* everything below but the map and the atomics */
	pthread_cond_t cond;
	const struct tool_node_host *host;
	struct hsaqm_dclient *client;
	bool exiting;
	bool atexit_done;
	uint64_t last_try_ns;
	int last_err;
	pthread_t watcher;
	bool watcher_started;
	bool watch_wake;
	bool idle_kick; /* lib's idle hook ran since the watcher last looked */
	/* Counters for the stats document. */
	uint64_t holds, resumes, losts, connects;
	uint64_t last_hold_ns, last_resume_ns, last_lost_ns;
	struct { struct hsaqm_hsa_proxy *p; struct tool_node_queue *nq; } map[NODE_MAP_SIZE];
	uint32_t nmarked; /* atomic: queues marked ready (the watcher sleeps at 0) */
} n = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

uint32_t tool_node_on;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- proxy -> queue: a lock-free read side, written under n.lock ------------------------ */

static uint32_t map_hash(const struct hsaqm_hsa_proxy *p)
{
	uint64_t v = (uint64_t)(uintptr_t)p;

	return (uint32_t)((v >> 4) * 0x9e3779b97f4a7c15ull >> 56) & (NODE_MAP_SIZE - 1);
}

static int map_put(struct hsaqm_hsa_proxy *p, struct tool_node_queue *nq)
{
	for (uint32_t i = 0, h = map_hash(p); i < NODE_MAP_SIZE; i++, h = (h + 1) & (NODE_MAP_SIZE - 1)) {
		struct hsaqm_hsa_proxy *cur = HSAQM_READ_ONCE(n.map[h].p);

		if (cur == NULL || cur == NODE_MAP_TOMB) {
			HSAQM_WRITE_ONCE(n.map[h].nq, nq);
			/* Release: the value is visible to a reader that finds the key. */
			hsaqm_store_release(&n.map[h].p, p);
			return 0;
		}
	}
	return -ENOSPC;
}

static struct tool_node_queue *map_get(const struct hsaqm_hsa_proxy *p)
{
	for (uint32_t i = 0, h = map_hash(p); i < NODE_MAP_SIZE; i++, h = (h + 1) & (NODE_MAP_SIZE - 1)) {
		/* Acquire: pairs with map_put's release of the key. */
		struct hsaqm_hsa_proxy *cur = hsaqm_load_acquire(&n.map[h].p);

		if (cur == p)
			return HSAQM_READ_ONCE(n.map[h].nq);
		if (cur == NULL)
			return NULL;
	}
	return NULL;
}

static void map_del(const struct hsaqm_hsa_proxy *p)
{
	for (uint32_t i = 0, h = map_hash(p); i < NODE_MAP_SIZE; i++, h = (h + 1) & (NODE_MAP_SIZE - 1)) {
		struct hsaqm_hsa_proxy *cur = HSAQM_READ_ONCE(n.map[h].p);

		if (cur == p) {
			HSAQM_WRITE_ONCE(n.map[h].p, NODE_MAP_TOMB);
			return;
		}
		if (cur == NULL)
			return;
	}
}

/* ---- holding ------------------------------------------------------------------------- */

/* hold_lock held: make the queue's hand-hold what the daemon and the process want. */
static void apply_locked(struct tool_node_queue *nq)
{
	bool want = nq->daemon_held || n.host->process_suspended();
	int rc;

	if (want == nq->applied)
		return;
	rc = want ? hsaqm_xq_suspend(nq->tq->xq) : hsaqm_xq_resume(nq->tq->xq);
	if (rc && rc != -EOPNOTSUPP)
		hsaqm_log_warn("hsaqmd: %s a queue: %s", want ? "holding" : "resuming",
			       strerror(-rc));
	nq->applied = want;
}

void tool_node_apply_hold(struct tool_queue *tq)
{
	/* Acquire: pairs with the CAS that publishes the node record (queue_add): it is whole. */
	struct tool_node_queue *nq = hsaqm_load_acquire(&tq->node);

	if (!nq) {
		/* Not registered: the process-wide hold alone decides. */
		if (n.host && n.host->process_suspended())
			hsaqm_xq_suspend(tq->xq);
		else
			hsaqm_xq_resume(tq->xq);
		return;
	}
	pthread_mutex_lock(&nq->hold_lock);
	/* Suspend by hand is not nested in lib: force the call even when "applied" agrees. */
	nq->applied = !(nq->daemon_held || n.host->process_suspended());
	apply_locked(nq);
	pthread_mutex_unlock(&nq->hold_lock);
}

static void node_callback(enum hsaqm_dclient_event ev, struct hsaqm_dclient_queue *q,
			  void *queue_arg, void *arg)
{
	struct tool_node_queue *nq = queue_arg;
	uint64_t t;

	(void)q;
	(void)arg;
	switch (ev) {
	case HSAQM_DCLIENT_PREEMPT:
	case HSAQM_DCLIENT_RESUME:
		pthread_mutex_lock(&nq->hold_lock);
		nq->daemon_held = ev == HSAQM_DCLIENT_PREEMPT;
		apply_locked(nq);
		t = mono_ns();
		if (nq->daemon_held) {
			nq->holds++;
			nq->last_hold_ns = t;
		} else {
			nq->last_resume_ns = t;
		}
		pthread_mutex_unlock(&nq->hold_lock);
		pthread_mutex_lock(&n.lock);
		if (ev == HSAQM_DCLIENT_PREEMPT) {
			n.holds++;
			n.last_hold_ns = t;
		} else {
			n.resumes++;
			n.last_resume_ns = t;
		}
		pthread_mutex_unlock(&n.lock);
		break;
	case HSAQM_DCLIENT_LOST:
		/* Every held queue got RESUME just before: the process schedules locally. */
		pthread_mutex_lock(&n.lock);
		n.losts++;
		n.last_lost_ns = mono_ns();
		pthread_mutex_unlock(&n.lock);
		break;
	case HSAQM_DCLIENT_CONNECTED:
		pthread_mutex_lock(&n.lock);
		n.connects++;
		pthread_mutex_unlock(&n.lock);
		break;
	}
}

/* ---- ready / idle -------------------------------------------------------------------- */

static void wake_watcher(void)
{
	pthread_mutex_lock(&n.lock);
	n.watch_wake = true;
	pthread_cond_signal(&n.cond);
	pthread_mutex_unlock(&n.lock);
}

/*
 * @after: called again once lib took the doorbell's packets. Unmarked then means the watcher
 * ran in between: either its answer predates the packets (lib has work: mark again) or the
 * packets already completed and it told the daemon "idle" correctly (lib is idle: marking
 * would leave the queue marked with no completion to clear it). Asked under mark_lock, which
 * the watcher takes too, so its next look follows this mark.
 */
void tool_node_doorbell_proxy(struct hsaqm_hsa_proxy *p, bool after)
{
	struct tool_node_queue *nq = map_get(p);
	struct hsaqm_xq_info info;

	if (!nq)
		return;
	/* A doorbell is progress: the daemon lets a ready queue hold others only while it
	 * moves (a stopped process must not hold anyone). One atomic add in the shared page. */
	if (!after) {
		struct hsaqm_dclient_queue *dq = HSAQM_READ_ONCE(nq->dq);

		if (dq)
			hsaqm_dclient_queue_progress(dq);
	}
	/* Marked already: the common case costs the lookup and this load. */
	if (HSAQM_READ_ONCE(nq->marked))
		return;
	pthread_mutex_lock(&nq->mark_lock);
	if (!HSAQM_READ_ONCE(nq->marked) && nq->dq &&
	    !(after && hsaqm_xq_get_info(nq->tq->xq, &info) == 0 &&
	      info.state == HSAQM_XQ_IDLE)) {
		HSAQM_WRITE_ONCE(nq->marked, 1u);
		hsaqm_dclient_queue_mark(nq->dq, true);
		/* A count the watch thread reads; mark_lock orders the queue's own mark. */
		hsaqm_fetch_add(&n.nmarked, 1u);
		pthread_mutex_unlock(&nq->mark_lock);
		wake_watcher();
		return;
	}
	pthread_mutex_unlock(&nq->mark_lock);
}

/*
 * Whether the marked queue went idle; if so, tell the daemon. `marked` is cleared before
 * lib is asked (under its device lock) and the doorbell reads it after lib took its packets
 * (under the same lock): if lib's answer predates the doorbell's packets, the doorbell sees
 * marked == 0 and marks again; otherwise lib's answer is not idle and marked is restored.
 */
static void watch_queue(struct tool_queue *tq, void *arg)
{
	/* Acquire: pairs with the CAS that publishes the node record (queue_add): it is whole. */
	struct tool_node_queue *nq = hsaqm_load_acquire(&tq->node);
	struct hsaqm_xq_info info;

	(void)arg;
	if (!nq || !HSAQM_READ_ONCE(nq->marked))
		return;
	pthread_mutex_lock(&nq->mark_lock);
	if (HSAQM_READ_ONCE(nq->marked) && nq->dq) {
		HSAQM_WRITE_ONCE(nq->marked, 0u);
		bool ok = hsaqm_xq_get_info(tq->xq, &info) == 0;

		if (ok && info.completed != nq->completed) {
			/* Work completed since the last look: progress (see the doorbell). */
			nq->completed = info.completed;
			hsaqm_dclient_queue_progress(nq->dq);
		}
		/*
		 * A queue whose head waited past the bound on what no queue of this process
		 * can end (a signal another process sets: an IPC event) is no demand for the
		 * node either: told idle, it holds no other process (docs/lib.md
		 * "Dependencies"); its next doorbell marks it again.
		 */
		struct hsaqm_xq_deps deps;

		if (ok && hsaqm_xq_get_deps(tq->xq, &deps) == 0) {
			hsaqm_dclient_queue_dep_stalls(nq->dq, (uint32_t)deps.stalls);
			if (deps.stalled)
				info.state = HSAQM_XQ_IDLE;
		}
		if (ok && info.state == HSAQM_XQ_IDLE) {
			hsaqm_dclient_queue_mark(nq->dq, false);
			/* A count the watch thread reads; mark_lock orders the queue's own mark. */
			hsaqm_fetch_add(&n.nmarked, (uint32_t)-1);
		} else {
			HSAQM_WRITE_ONCE(nq->marked, 1u);
		}
	}
	pthread_mutex_unlock(&nq->mark_lock);
}

/* lib's idle hook (hsaqm_ctx_set_idle_hook()): on the completing thread, so only a wake-up. */
void tool_node_idle_hook(void *arg)
{
	(void)arg;
	/* Not "nothing marked": a doorbell may be marking under mark_lock right now, after
	 * lib told it the queue had work; the watcher's look must follow that mark. */
	if (!HSAQM_READ_ONCE(tool_node_on))
		return;
	pthread_mutex_lock(&n.lock);
	n.idle_kick = true;
	pthread_cond_signal(&n.cond);
	pthread_mutex_unlock(&n.lock);
}

static void *watcher_main(void *arg)
{
	int prio = HSAQM_RT_PRIO_CLIENT;
	enum hsaqm_rt_mode mode = hsaqm_rt_from_env(&prio, NULL);

	(void)arg;
	prctl(PR_SET_NAME, "hsaqm-idle", 0, 0, 0);
	/* It tells the daemon a queue went idle, which lets the others run: under load it must
	 * not wait for a time slice either (hsaqm-common/rt.h). Quiet when refused: said once at
	 * the connection when HSAQM_REALTIME asked for it. */
	hsaqm_rt_self(mode, prio);
	pthread_mutex_lock(&n.lock);
	for (;;) {
		while (!n.exiting && !n.watch_wake && !n.idle_kick &&
		       HSAQM_READ_ONCE(n.nmarked) == 0)
			pthread_cond_wait(&n.cond, &n.lock);
		n.watch_wake = false;
		/*
		 * Queues are marked: wait for the idle hook, not for the doorbell that woke us
		 * (looking now would catch the queue before lib has its packets and tell the
		 * daemon "idle" for an instant).
		 */
		if (!n.idle_kick && !n.exiting) {
			struct timespec dl;

			clock_gettime(CLOCK_REALTIME, &dl); /* the condition variable's clock */
			dl.tv_nsec += NODE_IDLE_FALLBACK_US * 1000l;
			if (dl.tv_nsec >= 1000000000l) {
				dl.tv_sec++;
				dl.tv_nsec -= 1000000000l;
			}
			while (!n.idle_kick && !n.exiting &&
			       pthread_cond_timedwait(&n.cond, &n.lock, &dl) == 0)
				;
		}
		if (n.exiting)
			break;
		n.idle_kick = false;
		pthread_mutex_unlock(&n.lock);
		tool_queues_foreach(watch_queue, NULL);
		pthread_mutex_lock(&n.lock);
	}
	pthread_mutex_unlock(&n.lock);
	return NULL;
}

/* ---- registration -------------------------------------------------------------------- */

static uint32_t gpu_id_of(uint32_t node)
{
	struct hsaqm_topology_node tn;

	/* The KFD gpu_id names a device the same way in every process; the node id would too
	 * on one machine, but the registry promises gpu_ids. */
	if (n.host->kfd && n.host->kfd->sysfs_root &&
	    hsaqm_topology_node_load(n.host->kfd->sysfs_root, node, &tn) == 0 && tn.gpu_id)
		return tn.gpu_id;
	return node;
}

static void queue_config(struct tool_queue *tq, struct tool_node_queue *nq,
			 struct hsaqm_dclient_queue_config *qc)
{
	struct hsaqm_xq_info info;
	const struct hsaqm_hsa_queue *hq = hsaqm_hsa_proxy_queue(tq->proxy);

	memset(qc, 0, sizeof(*qc));
	qc->gpu_id = gpu_id_of(tq->device);
	qc->kfd_queue_id = tq->proxy->lv3_state == HSAQM_HSA_LV3_READY ? tq->proxy->kfd_queue_id
									 : UINT32_MAX;
	qc->hsa_queue_id = hq->id;
	qc->level = hsaqm_xq_get_info(tq->xq, &info) == 0 ? info.effective_level : HSAQM_LEVEL_NONE;
	qc->prio_adj = n.host->queue_adjust(tq);
	qc->arg = nq;
}

static int cur_priority = HSAQM_PRIORITY_DEFAULT; /* under n.lock */

void tool_node_queue_add(struct tool_queue *tq)
{
	struct hsaqm_dclient_queue_config qc;
	struct tool_node_queue *nq, *expected = NULL;
	struct hsaqm_dclient_queue *dq = NULL;
	struct hsaqm_dclient *c;
	int held = 0, rc;

	pthread_mutex_lock(&n.lock);
	c = n.client;
	pthread_mutex_unlock(&n.lock);
	/* Acquire: pairs with the CAS that publishes the node record (queue_add): it is whole. */
	if (!c || hsaqm_load_acquire(&tq->node))
		return;
	nq = calloc(1, sizeof(*nq));
	if (!nq)
		return;
	nq->tq = tq;
	pthread_mutex_init(&nq->mark_lock, NULL);
	pthread_mutex_init(&nq->hold_lock, NULL);
	/*
	 * hold_lock across the registration: a command the daemon changes right after its reply
	 * comes as a callback, which must find daemon_held already set from @held; and whoever
	 * finds the queue meanwhile (dq still NULL) waits here or skips it.
	 */
	pthread_mutex_lock(&nq->hold_lock);
	/* Claim: the first queue creation and a (re)connection's sweep may both get here. */
	if (!hsaqm_cas(&tq->node, &expected, nq)) {
		pthread_mutex_unlock(&nq->hold_lock);
		pthread_mutex_destroy(&nq->mark_lock);
		pthread_mutex_destroy(&nq->hold_lock);
		free(nq);
		return;
	}
	queue_config(tq, nq, &qc);
	rc = hsaqm_dclient_queue_add(c, &qc, &dq, &held);
	/* Atomic: the doorbell reads it without a lock (progress). */
	HSAQM_WRITE_ONCE(nq->dq, rc ? NULL : dq);
	if (rc) {
		/* Kept (dq NULL = not registered) for whoever holds it; freed at remove. */
		apply_locked(nq);
		pthread_mutex_unlock(&nq->hold_lock);
		hsaqm_log_warn("hsaqmd: registering a queue: %s (it is scheduled in-process only)",
			       strerror(-rc));
		return;
	}
	nq->qid = hsaqm_dclient_queue_id(nq->dq);
	/* TC3: created while its process is held on that device: held before its first packet. */
	nq->daemon_held = held;
	apply_locked(nq);
	if (held) {
		nq->holds++;
		nq->last_hold_ns = mono_ns();
	}
	pthread_mutex_unlock(&nq->hold_lock);
	pthread_mutex_lock(&n.lock);
	if (map_put(tq->proxy, nq))
		hsaqm_log_warn("hsaqmd: more queues than the map holds: doorbells of this one are "
			       "not reported");
	pthread_mutex_unlock(&n.lock);
}

void tool_node_queue_remove(struct tool_queue *tq)
{
	/* Acquire: pairs with the CAS that publishes the node record (queue_add): it is whole. */
	struct tool_node_queue *nq = hsaqm_load_acquire(&tq->node);
	struct hsaqm_dclient_queue *dq;

	if (!nq)
		return;
	pthread_mutex_lock(&n.lock);
	map_del(tq->proxy);
	pthread_mutex_unlock(&n.lock);
	pthread_mutex_lock(&nq->hold_lock);
	pthread_mutex_lock(&nq->mark_lock);
	dq = nq->dq;
	HSAQM_WRITE_ONCE(nq->dq, NULL);
	pthread_mutex_unlock(&nq->mark_lock);
	pthread_mutex_unlock(&nq->hold_lock);
	/* Waits for a running callback naming it (which takes hold_lock: not held here); none
	 * comes after. */
	if (dq)
		hsaqm_dclient_queue_remove(dq);
	HSAQM_WRITE_ONCE(tq->node, NULL);
	pthread_mutex_lock(&nq->mark_lock);
	if (HSAQM_READ_ONCE(nq->marked))
		/* A count the watch thread reads; mark_lock orders the queue's own mark. */
		hsaqm_fetch_add(&n.nmarked, (uint32_t)-1);
	pthread_mutex_unlock(&nq->mark_lock);
	pthread_mutex_lock(&nq->hold_lock);
	/* The destroy that follows lets go of everything; the process hold is lib's to drop. */
	if (nq->applied && !n.host->process_suspended())
		hsaqm_xq_resume(tq->xq);
	/* No callback comes any more (above): the count is final; the stats keep it. */
	HSAQM_WRITE_ONCE(tq->daemon_holds_past, HSAQM_READ_ONCE(tq->daemon_holds_past) + nq->holds);
	pthread_mutex_unlock(&nq->hold_lock);
	pthread_mutex_destroy(&nq->mark_lock);
	pthread_mutex_destroy(&nq->hold_lock);
	free(nq);
}

uint64_t tool_node_queue_holds(const struct tool_queue *tq)
{
	/* Acquire: pairs with the CAS that publishes the node record (queue_add): it is whole. */
	struct tool_node_queue *nq = hsaqm_load_acquire(&tq->node);
	uint64_t holds = HSAQM_READ_ONCE(tq->daemon_holds_past);

	if (nq) {
		pthread_mutex_lock(&nq->hold_lock);
		holds += nq->holds;
		pthread_mutex_unlock(&nq->hold_lock);
	}
	return holds;
}

void tool_node_queue_update(struct tool_queue *tq)
{
	/* Acquire: pairs with the CAS that publishes the node record (queue_add): it is whole. */
	struct tool_node_queue *nq = hsaqm_load_acquire(&tq->node);
	struct hsaqm_dclient_queue_config qc;

	if (!nq)
		return;
	queue_config(tq, nq, &qc);
	pthread_mutex_lock(&nq->hold_lock);
	if (nq->dq)
		hsaqm_dclient_queue_update(nq->dq, &qc);
	pthread_mutex_unlock(&nq->hold_lock);
}

void tool_node_priority(int priority)
{
	struct hsaqm_dclient *c;
	int granted = priority, rc;

	pthread_mutex_lock(&n.lock);
	cur_priority = priority;
	c = n.client;
	pthread_mutex_unlock(&n.lock);
	if (!c)
		return;
	rc = hsaqm_dclient_set_priority(c, priority, &granted);
	if (rc == -EPERM)
		hsaqm_log_warn("hsaqmd: priority %d is above this user's cap: %d stays in force "
			       "across processes", priority, granted);
	/* The queues' adjustments are relative to the process priority: they follow it. */
}

static void register_one(struct tool_queue *tq, void *arg)
{
	(void)arg;
	tool_node_queue_add(tq);
}

static void node_atexit(void)
{
	tool_node_stop();
}

/* HSAQM_REALTIME asked for real-time threads explicitly: say once whether it is permitted. */
static void realtime_notice(struct hsaqm_dclient *c)
{
	static int said;
	int prio = HSAQM_RT_PRIO_CLIENT, bad = 0;
	enum hsaqm_rt_mode mode = hsaqm_rt_from_env(&prio, &bad);
	int rt = 0;

	if (bad)
		hsaqm_log_notice(&said, "HSAQM_REALTIME=\"%s\" is not valid (auto, on, off or "
				 "1..99): using auto", getenv("HSAQM_REALTIME"));
	if (mode != HSAQM_RT_ON)
		return;
	/* The client's thread has tried by the time its first connection is made. */
	for (int i = 0; i < 100 && (rt = hsaqm_dclient_thread_realtime(c)) == 0; i++)
		usleep(1000);
	if (rt < 0)
		hsaqm_log_notice(&said, "HSAQM_REALTIME: SCHED_FIFO not permitted (%s): hsaqm's "
				 "threads run SCHED_OTHER; run as root or with CAP_SYS_NICE",
				 strerror(-rt));
}

int tool_node_start(const struct tool_node_host *host, int priority)
{
	/* RETRY: a daemon that refuses us for now (its limits, a busy node) is tried again by
	 * the client's thread, with back-off, instead of at the next queue creation only. */
	struct hsaqm_dclient_config cfg = { .priority = priority, .callback = node_callback,
					    .flags = HSAQM_DCLIENT_RETRY };
	struct hsaqm_dclient *c = NULL;
	uint64_t now = mono_ns();
	int rc;

	pthread_mutex_lock(&n.lock);
	if (n.client || n.exiting) {
		rc = n.client != NULL;
		pthread_mutex_unlock(&n.lock);
		return rc;
	}
	if (n.last_try_ns && now - n.last_try_ns < NODE_RETRY_NS) {
		pthread_mutex_unlock(&n.lock);
		return 0;
	}
	n.last_try_ns = now;
	n.host = host;
	/* The connection is made under n.lock: two first queues must not open two clients. */
	rc = hsaqm_dclient_open(&cfg, &c);
	n.last_err = rc;
	if (rc) {
		static int said;

		pthread_mutex_unlock(&n.lock);
		/*
		 * A socket in a directory another user owns or could write: the user must hear
		 * why the node's priorities do not hold for this process; the client library
		 * logged which directory and which of the two (daemon-client/path.c).
		 */
		if (rc == -EPERM)
			hsaqm_log_notice(&said, "hsaqmd: not connecting: the daemon's socket is in a "
					 "directory another user owns or can write to; scheduling "
					 "in-process only (HSAQM_LOG=warn names the directory and why)");
		else if (rc != -ENOENT)
			hsaqm_log_warn("hsaqmd: cannot connect (%s): scheduling in-process only",
				       strerror(-rc));
		return 0;
	}
	n.client = c;
	cur_priority = priority;
	n.connects++;
	if (!n.watcher_started) {
		sigset_t all, old;

		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		n.watcher_started = pthread_create(&n.watcher, NULL, watcher_main, NULL) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	/*
	 * Registered after lib's context (made with the first queue), so this exit handler runs
	 * before lib's: the daemon is left, and no callback acts, while lib lets go of queues.
	 */
	if (!n.atexit_done && atexit(node_atexit) == 0)
		n.atexit_done = true;
	pthread_mutex_unlock(&n.lock);
	/* Release: the map and the client are set up for the doorbells that see this. */
	hsaqm_store_release(&tool_node_on, 1u);
	hsaqm_log_info("hsaqmd: connected; priorities hold across processes");
	realtime_notice(c);
	tool_queues_foreach(register_one, NULL);
	return 1;
}

static void unregister_one(struct tool_queue *tq, void *arg)
{
	(void)arg;
	tool_node_queue_remove(tq);
}

void tool_node_stop(void)
{
	struct hsaqm_dclient *c;
	bool join;

	pthread_mutex_lock(&n.lock);
	c = n.client;
	if (!c) {
		pthread_mutex_unlock(&n.lock);
		return;
	}
	n.exiting = true;
	join = n.watcher_started;
	pthread_cond_broadcast(&n.cond);
	pthread_mutex_unlock(&n.lock);
	HSAQM_WRITE_ONCE(tool_node_on, 0u);
	if (join)
		pthread_join(n.watcher, NULL);
	tool_queues_foreach(unregister_one, NULL);
	hsaqm_dclient_close(c);
	pthread_mutex_lock(&n.lock);
	n.client = NULL;
	n.watcher_started = false;
	n.exiting = false;
	n.last_try_ns = 0;
	pthread_mutex_unlock(&n.lock);
}

bool tool_node_connected(void)
{
	struct hsaqm_dclient *c;
	bool v;

	pthread_mutex_lock(&n.lock);
	c = n.client;
	v = c && hsaqm_dclient_connected(c) == 1;
	pthread_mutex_unlock(&n.lock);
	return v;
}

void tool_node_json(struct hsaqm_json *j, const char *key)
{
	pthread_mutex_lock(&n.lock);
	hsaqm_json_begin_object(j, key);
	if (!n.client && !n.connects) {
		hsaqm_json_bool(j, "client", false);
		hsaqm_json_bool(j, "connected", false);
		hsaqm_json_string(j, "error", n.last_try_ns ? strerror(-n.last_err) : "not tried");
	} else {
		/* After tool_node_stop() (the exit path, before the stats file is written) the
		 * counters stay: "client" false, "left" true says the process left the daemon. */
		hsaqm_json_bool(j, "client", n.client != NULL);
		hsaqm_json_bool(j, "connected", n.client && hsaqm_dclient_connected(n.client) == 1);
		hsaqm_json_bool(j, "left", n.client == NULL);
		hsaqm_json_int(j, "priority", cur_priority);
		hsaqm_json_uint(j, "holds", n.holds);
		hsaqm_json_uint(j, "resumes", n.resumes);
		hsaqm_json_uint(j, "lost", n.losts);
		hsaqm_json_uint(j, "connects", n.connects);
		hsaqm_json_uint(j, "last_hold_ns", n.last_hold_ns);
		hsaqm_json_uint(j, "last_resume_ns", n.last_resume_ns);
		hsaqm_json_uint(j, "last_lost_ns", n.last_lost_ns);
	}
	hsaqm_json_end_object(j);
	pthread_mutex_unlock(&n.lock);
}

void tool_node_queue_json(struct hsaqm_json *j, const struct tool_queue *tq)
{
	/* Acquire: pairs with the CAS that publishes the node record (queue_add): it is whole. */
	struct tool_node_queue *nq = hsaqm_load_acquire(&tq->node);

	if (!nq)
		return;
	pthread_mutex_lock(&nq->hold_lock);
	hsaqm_json_begin_object(j, "daemon");
	hsaqm_json_uint(j, "qid", nq->qid);
	hsaqm_json_bool(j, "held", nq->daemon_held);
	hsaqm_json_bool(j, "marked_ready", HSAQM_READ_ONCE(nq->marked));
	hsaqm_json_uint(j, "holds", nq->holds);
	hsaqm_json_uint(j, "last_hold_ns", nq->last_hold_ns);
	hsaqm_json_uint(j, "last_resume_ns", nq->last_resume_ns);
	hsaqm_json_end_object(j);
	pthread_mutex_unlock(&nq->hold_lock);
}
