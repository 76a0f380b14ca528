/* SPDX-License-Identifier: MIT */
/*
 * hsa_runtime.c - the HSA backend's view of one runtime: the table entries it calls, the
 * marker signals it keeps for the runtime's whole life, and the Lv3 state (one KFD handle,
 * one DBG_TRAP session, the mechanism per GPU and what was refused, the queue ids from the
 * KFD's sysfs kfd/proc). docs/hsa-backend.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hsa_backend_internal.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-common/log.h"
#include "hsaqm-common/time.h"

/* hsa_amd_agent_info_t: the KFD topology node of an agent (hsa_ext_amd.h). */
#define AGENT_INFO_DRIVER_NODE_ID 0xA004u

/* How long fini waits for the marker handlers to retire. */
#define FINI_WAIT_NS 1000000000ull
/* One wait on a signal while fini or destroy wait: 1e6 ticks (1 ms at 1 GHz, 10 ms at 100 MHz). */
#define WAIT_STEP_TICKS 1000000ull

int hsaqm_hsa_errno_from_status(hsaqm_hsa_status_t status)
{
	switch (status) {
	case HSAQM_HSA_STATUS_SUCCESS:
		return 0;
	case HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES:
		return -ENOMEM;
	case HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT:
		return -EINVAL;
	case HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE_CREATION:
		return -EOPNOTSUPP;
	case HSAQM_HSA_STATUS_ERROR_INVALID_AGENT:
		return -ENODEV;
	case HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE:
		return -EBADF;
	case HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL:
		return -EBADMSG;
	case HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED:
		return -EPERM;
	default:
		return -EIO;
	}
}

hsaqm_hsa_status_t hsaqm_hsa_status_from_errno(int err)
{
	switch (err) {
	case 0:
		return HSAQM_HSA_STATUS_SUCCESS;
	case -ENOMEM:
		return HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES;
	case -EINVAL:
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	case -EOPNOTSUPP:
		return HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE_CREATION;
	case -ENODEV:
		return HSAQM_HSA_STATUS_ERROR_INVALID_AGENT;
	case -EBADF:
		return HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE;
	case -EBADMSG:
		return HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL;
	case -EPERM:
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	default:
		return HSAQM_HSA_STATUS_ERROR;
	}
}

/* Copy one table entry into a typed function pointer (NULL when the table lacks it). */
static void take(void *root, const struct hsaqm_api_layout *l, enum hsaqm_api_entry e, void *fn)
{
	void **slot = hsaqm_api_table_slot(root, l, e);

	/* memcpy: the slot holds a function pointer typed as void * by the mirror. */
	if (slot)
		memcpy(fn, slot, sizeof(void *));
	else
		memset(fn, 0, sizeof(void *));
}

int hsaqm_hsa_runtime_init(struct hsaqm_hsa_runtime *rt, void *root_table, uint64_t runtime_version,
			   const struct hsaqm_kfd_transport *kfd)
{
	struct hsaqm_hsa_rt_private *rtp;
	int rc;

	if (!rt || !root_table)
		return -EINVAL;
	memset(rt, 0, sizeof(*rt));
	rc = hsaqm_api_table_detect(root_table, runtime_version, &rt->layout);
	if (rc)
		return rc;
	take(root_table, &rt->layout, HSAQM_API_SYSTEM_GET_INFO, &rt->system_get_info);
	take(root_table, &rt->layout, HSAQM_API_ITERATE_AGENTS, &rt->iterate_agents);
	take(root_table, &rt->layout, HSAQM_API_AGENT_GET_INFO, &rt->agent_get_info);
	take(root_table, &rt->layout, HSAQM_API_QUEUE_CREATE, &rt->queue_create);
	take(root_table, &rt->layout, HSAQM_API_QUEUE_DESTROY, &rt->queue_destroy);
	take(root_table, &rt->layout, HSAQM_API_QUEUE_INACTIVATE, &rt->queue_inactivate);
	take(root_table, &rt->layout, HSAQM_API_SIGNAL_CREATE, &rt->signal_create);
	take(root_table, &rt->layout, HSAQM_API_SIGNAL_DESTROY, &rt->signal_destroy);
	take(root_table, &rt->layout, HSAQM_API_SIGNAL_LOAD_SCACQUIRE, &rt->signal_load_scacquire);
	take(root_table, &rt->layout, HSAQM_API_SIGNAL_LOAD_RELAXED, &rt->signal_load_relaxed);
	take(root_table, &rt->layout, HSAQM_API_SIGNAL_STORE_SCRELEASE,
	     &rt->signal_store_screlease);
	take(root_table, &rt->layout, HSAQM_API_SIGNAL_STORE_RELAXED, &rt->signal_store_relaxed);
	take(root_table, &rt->layout, HSAQM_API_SIGNAL_WAIT_SCACQUIRE, &rt->signal_wait_scacquire);
	take(root_table, &rt->layout, HSAQM_API_AMD_SIGNAL_ASYNC_HANDLER,
	     &rt->amd_signal_async_handler);
	take(root_table, &rt->layout, HSAQM_API_AMD_QUEUE_SET_PRIORITY,
	     &rt->amd_queue_set_priority);
	take(root_table, &rt->layout, HSAQM_API_AMD_QUEUE_CU_SET_MASK, &rt->amd_queue_cu_set_mask);
	take(root_table, &rt->layout, HSAQM_API_AMD_QUEUE_CU_GET_MASK, &rt->amd_queue_cu_get_mask);
	take(root_table, &rt->layout, HSAQM_API_AMD_PROFILING_SET_PROFILER_ENABLED,
	     &rt->amd_profiling_set_profiler_enabled);
	take(root_table, &rt->layout, HSAQM_API_AMD_QUEUE_GET_INFO, &rt->amd_queue_get_info);
	/* What no proxy can do without: queues, signals, waits, and completions (markers). */
	if (!rt->agent_get_info || !rt->queue_create || !rt->queue_destroy || !rt->signal_create ||
	    !rt->signal_destroy || !rt->signal_load_scacquire || !rt->signal_store_screlease ||
	    !rt->signal_store_relaxed || !rt->signal_wait_scacquire ||
	    !rt->amd_signal_async_handler) {
		hsaqm_log_err("runtime table (%s) lacks a queue, signal or async-handler entry",
			      rt->layout.name);
		memset(rt, 0, sizeof(*rt));
		return -ENOTSUP;
	}
	rt->kfd = kfd;
	rtp = calloc(1, sizeof(*rtp));
	if (!rtp) {
		memset(rt, 0, sizeof(*rt));
		return -ENOMEM;
	}
	rtp->rt = rt;
	pthread_mutex_init(&rtp->lock, NULL);
	pthread_mutex_init(&rtp->create_lock, NULL);
	pthread_mutex_init(&rtp->settings_lock, NULL);
	rt->priv = rtp;
	return 0;
}

/* ---- Marker signals ---------------------------------------------------------------------- */

/*
 * The async handler of a marker signal. Markers complete in release order (each has the
 * barrier bit), each decrementing the signal by one, so the owner's completed markers are
 * its base value minus the value now. The handler re-arms itself with "less than the value
 * just seen" and returns false, which is how ROCr wants a handler renewed (one that stays
 * armed on a condition that stays true would run again at once).
 */
/* s->lock held. Report the owner's markers that @value (the signal now) says completed. */
static void mslot_report(struct hsaqm_hsa_mslot *s, hsaqm_hsa_signal_value_t value)
{
	struct hsaqm_hsa_proxy *p = s->proxy;

	if (p) {
		/*
		 * Relaxed: release() set these before it published the marker that this value
		 * counts, and the signal's decrement and our load of it (acquire) order them.
		 */
		uint64_t first = HSAQM_READ_ONCE(p->mk_first_seq);
		uint64_t written = HSAQM_READ_ONCE(p->mk_written);
		uint64_t done = (uint64_t)(p->mk_base - value);

		if (done > written) {
			hsaqm_log_err("marker signal counts %llu markers, %llu were written",
				      (unsigned long long)done, (unsigned long long)written);
			done = written;
		}
		if (first && done > p->mk_reported) {
			p->mk_reported = done;
			hsaqm_xq_marker_done(p->xq, first + done - 1);
		}
	}
}

static bool mslot_handler(hsaqm_hsa_signal_value_t value, void *arg)
{
	struct hsaqm_hsa_mslot *s = arg;
	const struct hsaqm_hsa_runtime *rt = s->rtp->rt;
	hsaqm_hsa_status_t st;

	pthread_mutex_lock(&s->lock);
	if (s->retiring) {
		pthread_mutex_unlock(&s->lock);
		/*
		 * Release, and our last access to the slot: fini reads it with acquire and then
		 * destroys the lock and frees the slot, so it comes after the unlock.
		 */
		hsaqm_store_release(&s->retired, 1u);
		return false;
	}
	mslot_report(s, value);
	pthread_mutex_unlock(&s->lock);
	st = rt->amd_signal_async_handler(s->signal, HSAQM_HSA_SIGNAL_CONDITION_LT, value,
					  mslot_handler, s);
	/* acq_rel: one handler says it; fini reads the flag only to stop waiting for this slot. */
	if (st != HSAQM_HSA_STATUS_SUCCESS && !hsaqm_fetch_or(&s->rearm_failed, 1u))
		hsaqm_log_notice(NULL, "cannot re-arm a marker handler (status 0x%x): "
				       "completions of its queue are no longer seen", st);
	return false;
}

void hsaqm_hsa_mslot_sync(struct hsaqm_hsa_mslot *s)
{
	pthread_mutex_lock(&s->lock);
	/* Acquire (the runtime's load): as the handler's value, it orders what the markers cover. */
	if (!s->retiring)
		mslot_report(s, s->rtp->rt->signal_load_scacquire(s->signal));
	pthread_mutex_unlock(&s->lock);
}

int hsaqm_hsa_mslot_get(struct hsaqm_hsa_rt_private *rtp, struct hsaqm_hsa_proxy *p)
{
	const struct hsaqm_hsa_runtime *rt = rtp->rt;
	struct hsaqm_hsa_mslot *s;
	hsaqm_hsa_status_t st;

	pthread_mutex_lock(&rtp->lock);
	s = rtp->mslots_free;
	if (s) {
		rtp->mslots_free = s->next_free;
	} else {
		s = calloc(1, sizeof(*s));
		if (!s) {
			pthread_mutex_unlock(&rtp->lock);
			return -ENOMEM;
		}
		s->rtp = rtp;
		pthread_mutex_init(&s->lock, NULL);
		st = rt->signal_create(HSAQM_HSA_MARKER_START, 0, NULL, &s->signal);
		if (st == HSAQM_HSA_STATUS_SUCCESS)
			st = rt->amd_signal_async_handler(s->signal, HSAQM_HSA_SIGNAL_CONDITION_LT,
							  HSAQM_HSA_MARKER_START, mslot_handler, s);
		else
			s->signal.handle = 0;
		if (st != HSAQM_HSA_STATUS_SUCCESS) {
			/* No handler was armed: the signal can go at once. */
			if (s->signal.handle)
				rt->signal_destroy(s->signal);
			pthread_mutex_destroy(&s->lock);
			free(s);
			pthread_mutex_unlock(&rtp->lock);
			return hsaqm_hsa_errno_from_status(st);
		}
		s->next = rtp->mslots;
		rtp->mslots = s;
	}
	pthread_mutex_unlock(&rtp->lock);
	/*
	 * The previous owner's hardware queue is destroyed: nothing decrements the signal but
	 * our markers from here on, so the count starts at the value now.
	 */
	pthread_mutex_lock(&s->lock);
	p->mk_base = rt->signal_load_scacquire(s->signal);
	p->mslot = s;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/*
 * Unbind the slot: its handler stops reporting to lib at once. Back to the pool only when
 * its queue is gone (nothing else may decrement it then).
 */
void hsaqm_hsa_mslot_put(struct hsaqm_hsa_rt_private *rtp, struct hsaqm_hsa_mslot *s,
			 bool reusable)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->proxy = NULL;
	pthread_mutex_unlock(&s->lock);
	if (!reusable)
		return; /* its queue may still decrement it: keep it out of the pool for good */
	pthread_mutex_lock(&rtp->lock);
	s->next_free = rtp->mslots_free;
	rtp->mslots_free = s;
	pthread_mutex_unlock(&rtp->lock);
}

/* hsa_system_info_t's TIMESTAMP_FREQUENCY (HSA 1.2, table 2-2). */
#define SYSTEM_INFO_TIMESTAMP_FREQUENCY 3u
/* How long a wait step sleeps when the runtime's timed wait cannot be trusted. */
#define UNTIMED_STEP_NS 100000l

void hsaqm_hsa_wait_step(const struct hsaqm_hsa_runtime *rt, struct hsaqm_hsa_signal signal,
			 hsaqm_hsa_signal_condition_t cond, hsaqm_hsa_signal_value_t value,
			 uint64_t ticks)
{
	uint64_t hz = 0;
	struct timespec ts = { 0, UNTIMED_STEP_NS };

	if (rt->system_get_info &&
	    rt->system_get_info(SYSTEM_INFO_TIMESTAMP_FREQUENCY, &hz) == HSAQM_HSA_STATUS_SUCCESS &&
	    hz) {
		/* A wait also runs a virtual-time model's event loop, where its handlers run. */
		rt->signal_wait_scacquire(signal, cond, value, ticks, HSAQM_HSA_WAIT_STATE_BLOCKED);
		return;
	}
	/*
	 * ROCr turns a timeout into time with this frequency; when the query fails (ROCm 7.x
	 * calls a tool's OnUnload after the runtime already counts as shut down) it divides by
	 * 0 and the wait never times out. Sleep instead: the caller's loop looks again.
	 */
	nanosleep(&ts, NULL);
}

void hsaqm_hsa_runtime_fini(struct hsaqm_hsa_runtime *rt)
{
	struct hsaqm_hsa_rt_private *rtp = rt ? rt->priv : NULL;
	uint64_t deadline;

	if (!rtp)
		return;
	/* Retire every handler: it runs once more, sees retiring and does not re-arm. */
	for (struct hsaqm_hsa_mslot *s = rtp->mslots; s; s = s->next) {
		pthread_mutex_lock(&s->lock);
		s->retiring = true;
		pthread_mutex_unlock(&s->lock);
		/* Below anything the handler waits for ("less than the last value seen"). */
		rt->signal_store_screlease(s->signal, INT64_MIN);
	}
	deadline = hsaqm_mono_ns() + FINI_WAIT_NS;
	for (struct hsaqm_hsa_mslot *s = rtp->mslots; s; s = s->next) {
		/* Acquire: pairs with the handler's release; then the handler is done with s. */
		/*
		 * Acquire: pairs with the handler's release of retired, after its last access to
		 * the slot.
		 */
		while (!hsaqm_load_acquire(&s->retired) && !HSAQM_READ_ONCE(s->rearm_failed) &&
		       hsaqm_mono_ns() < deadline)
			hsaqm_hsa_wait_step(rt, s->signal, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0,
					    WAIT_STEP_TICKS);
	}
	for (struct hsaqm_hsa_mslot *s = rtp->mslots; s;) {
		struct hsaqm_hsa_mslot *next = s->next;

		/* Acquire: pairs with the handler's release of retired (its last touch of s). */
		if (hsaqm_load_acquire(&s->retired) || HSAQM_READ_ONCE(s->rearm_failed)) {
			pthread_mutex_destroy(&s->lock);
			free(s);
		} else {
			/* Never free what a handler may still be handed: leak it, say so. */
			hsaqm_log_warn("a marker handler did not retire within 1 s; slot leaked");
		}
		s = next;
	}
	if (rtp->kfd)
		hsaqm_kfd_close(rtp->kfd); /* ends the DBG_TRAP session: resumes anything left */
	pthread_mutex_destroy(&rtp->create_lock);
	pthread_mutex_destroy(&rtp->settings_lock);
	pthread_mutex_destroy(&rtp->lock);
	free(rtp);
	rt->priv = NULL;
}

/* ---- Lv3 ----------------------------------------------------------------------------------- */

/*
 * Lv3 is decided once, by kfd-ioctl (hsaqm_kfd_lv3_decide(), hsaqm-kfd/kfd_lv3.h): the same
 * decision, in the same words, as hsa-queue-probe's. The runtime gives it the facts (the KFD,
 * its sysfs), the user's preference, the probe's profile and what it learned (a refusal).
 */

/* Open the KFD once per runtime (lock held). */
static void lv3_open(struct hsaqm_hsa_rt_private *rtp)
{
	const struct hsaqm_kfd_transport *tp = rtp->rt->kfd;
	int rc;

	if (rtp->lv3_checked)
		return;
	rtp->lv3_checked = true;
	if (!tp) {
		rtp->kfd_err = -ENODEV;
		return;
	}
	rc = hsaqm_kfd_open(tp, &rtp->kfd);
	if (rc) {
		rtp->kfd = NULL;
		rtp->kfd_err = rc;
	}
}

/* A node's facts, read once (lock held); NULL for an unknown node or no room. */
static struct hsaqm_hsa_lv3_node *lv3_node(struct hsaqm_hsa_rt_private *rtp, uint32_t node_id)
{
	const struct hsaqm_kfd_transport *tp = rtp->rt->kfd;
	struct hsaqm_hsa_lv3_node *n = NULL;

	for (unsigned int i = 0; i < rtp->nnodes; i++)
		if (rtp->nodes[i].node_id == node_id)
			n = &rtp->nodes[i];
	if (!n && rtp->nnodes < HSAQM_HSA_LV3_MAX_NODES) {
		n = &rtp->nodes[rtp->nnodes++];
		memset(n, 0, sizeof(*n));
		n->node_id = node_id;
	}
	if (n && !n->checked) {
		struct hsaqm_topology_node *node = calloc(1, sizeof(*node));

		n->checked = true;
		hsaqm_kfd_lv3_facts_read(rtp->kfd, rtp->kfd_err, tp ? tp->sysfs_root : NULL,
					 node_id, &n->facts);
		if (node && tp && tp->sysfs_root &&
		    hsaqm_topology_node_load(tp->sysfs_root, node_id, node) == 0)
			n->gpu_id = node->gpu_id;
		free(node);
	}
	return n;
}

/* The decision for a node (lock held). */
static void lv3_decide_locked(struct hsaqm_hsa_rt_private *rtp, uint32_t node_id,
			      struct hsaqm_kfd_lv3 *out)
{
	struct hsaqm_kfd_lv3_facts f;
	struct hsaqm_hsa_lv3_node *n;

	int pref;

	lv3_open(rtp);
	n = node_id == UINT32_MAX ? NULL : lv3_node(rtp, node_id);
	if (!n)
		hsaqm_kfd_lv3_facts_read(rtp->kfd, rtp->kfd_err,
					 rtp->rt->kfd ? rtp->rt->kfd->sysfs_root : NULL, UINT32_MAX,
					 &f);
	else
		f = n->facts;
	pthread_mutex_lock(&rtp->settings_lock);
	if (n && rtp->have_profile)
		hsaqm_kfd_lv3_facts_profile(&f, hsaqm_kfd_profile_find(&rtp->profile, n->gpu_id));
	pref = rtp->pref;
	pthread_mutex_unlock(&rtp->settings_lock);
	f.dbg_err = rtp->dbg_err;
	f.update_err = rtp->update_err;
	hsaqm_kfd_lv3_decide(&f, (enum hsaqm_kfd_mech_pref)pref, out);
}

int hsaqm_hsa_lv3_prepare(struct hsaqm_hsa_runtime *rt)
{
	struct hsaqm_hsa_rt_private *rtp = rt ? rt->priv : NULL;
	struct hsaqm_kfd_lv3 d;
	int rc = -EOPNOTSUPP;

	if (!rtp)
		return -EINVAL;
	/*
	 * No rtp->lock: OnLoad holds the runtime's init lock, and elsewhere rtp->lock is taken
	 * before calls into the runtime (a lock-order inversion). Nothing else uses @rt yet:
	 * OnLoad made it and publishes it after this (the state's release in the tool).
	 */
	lv3_decide_locked(rtp, UINT32_MAX, &d);
	if (d.mech == HSAQM_KFD_MECH_DBG_TRAP && rtp->kfd) {
		/*
		 * The KFD suspends queues only for a process whose runtime is enabled, and enables
		 * it only while the process has no queue (EEXIST after). ROCr from 5.5 enables it in
		 * hsa_init (EBUSY here: nothing to do); ROCm 5.2's libhsakmt tries its out-of-tree
		 * driver's ioctl instead, which an upstream KFD refuses, so such a process would
		 * never be suspendable by DBG_TRAP: enable it now, as ROCr would, without an
		 * r_debug (a debugger attaching later then finds no code object list).
		 */
		rc = hsaqm_kfd_runtime_enable(rtp->kfd, 0, false);
		if (rc == -EBUSY)
			rc = 0;
		else if (rc)
			hsaqm_log_info("RUNTIME_ENABLE: %s (Lv3 suspends will tell)", strerror(-rc));
	}
	return rc;
}

void hsaqm_hsa_lv3_decision(struct hsaqm_hsa_rt_private *rtp, uint32_t node_id,
			    struct hsaqm_kfd_lv3 *out)
{
	pthread_mutex_lock(&rtp->lock);
	lv3_decide_locked(rtp, node_id, out);
	pthread_mutex_unlock(&rtp->lock);
}

int hsaqm_hsa_lv3_check(struct hsaqm_hsa_rt_private *rtp, uint32_t node_id, char *why,
			size_t why_len)
{
	struct hsaqm_kfd_lv3 d;

	hsaqm_hsa_lv3_decision(rtp, node_id, &d);
	snprintf(why, why_len, "%s", d.reason);
	return d.level >= 3 ? HSAQM_LEVEL_3 : HSAQM_LEVEL_2;
}

int hsaqm_hsa_runtime_set_lv3(struct hsaqm_hsa_runtime *rt, int pref,
			      const struct hsaqm_kfd_profile *profile)
{
	struct hsaqm_hsa_rt_private *rtp = rt ? rt->priv : NULL;

	if (!rtp || pref < HSAQM_KFD_PREF_AUTO || pref > HSAQM_KFD_PREF_NONE)
		return -EINVAL;
	pthread_mutex_lock(&rtp->settings_lock);
	rtp->pref = pref;
	rtp->have_profile = profile != NULL;
	if (profile)
		rtp->profile = *profile;
	pthread_mutex_unlock(&rtp->settings_lock);
	return 0;
}

/* Errors lib treats as "Lv3 refused, fall back to Lv2" (backend.h); others fail open. */
static int as_refusal(int err)
{
	switch (err) {
	case -EPERM:
	case -EALREADY:
	case -EOPNOTSUPP:
	case -ENOTTY:
	case -ENOSYS:
	case -EINVAL:
		return err;
	default:
		return -EOPNOTSUPP;
	}
}

static int lv3_refuse(struct hsaqm_hsa_proxy *p, int err, const char *why)
{
	p->lv3_state = HSAQM_HSA_LV3_REFUSED;
	p->lv3_err = as_refusal(err);
	p->mech = HSAQM_KFD_MECH_NONE;
	if (why != p->max_why)
		snprintf(p->max_why, sizeof(p->max_why), "%.*s", (int)sizeof(p->max_why) - 1, why);
	snprintf(p->mech_why, sizeof(p->mech_why), "%s", p->max_why);
	hsaqm_log_warn("queue %llu: Lv3 unavailable: %s",
		       (unsigned long long)p->amd->hsa_queue.id, why);
	return p->lv3_err;
}

/* The KFD queue whose ring is @ring_base (lock held). 0 and *id, -ENOENT, or -errno. */
static int lv3_find_queue(struct hsaqm_hsa_rt_private *rtp, uint64_t ring_base, uint32_t *id)
{
	struct hsaqm_kfd_queue_snapshot_entry *e = NULL;
	uint32_t cap = 64, n;
	int rc = -ENOENT;

	for (int tries = 0; tries < 4; tries++) {
		free(e);
		e = calloc(cap, sizeof(*e));
		if (!e)
			return -ENOMEM;
		n = cap;
		/* Clear QUEUE_NEW: a queue created after DBG_TRAP ENABLE is refused until then. */
		rc = hsaqm_kfd_dbg_queue_snapshot(rtp->kfd,
						  HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW), e, &n);
		if (rc)
			break;
		if (n <= cap) {
			rc = -ENOENT;
			for (uint32_t i = 0; i < n; i++) {
				if (e[i].ring_base_address == ring_base) {
					*id = e[i].queue_id;
					rc = 0;
					break;
				}
			}
			break;
		}
		cap = n + 16; /* more queues than room: again with room for all */
	}
	free(e);
	return rc;
}

/*
 * DBG_TRAP: ENABLE once per runtime (it makes the process "debugged"), the id by ring address
 * (lock held). 0, or the refusal, which the caller records before choosing again.
 */
static int lv3_dbg_ready(struct hsaqm_hsa_proxy *p, char *why, size_t len)
{
	struct hsaqm_hsa_rt_private *rtp = p->rtp;
	uint32_t id = 0;
	int rc;

	if (!rtp->dbg_enabled) {
		rc = hsaqm_kfd_dbg_enable(rtp->kfd, 0, NULL);
		if (rc) {
			snprintf(why, len, "DBG_TRAP ENABLE: %s", strerror(-rc));
			return rc;
		}
		rtp->dbg_enabled = true;
	}
	rc = lv3_find_queue(rtp, (uint64_t)(uintptr_t)p->hwq->base_address, &id);
	if (rc == -ENOENT) {
		/* This queue's trouble, not the mechanism's (-ENOENT: not noted for the runtime). */
		snprintf(why, len, "the KFD has no queue with this ring (the runtime did not "
			 "create it through the KFD hsaqm opened)");
		return -ENOENT;
	}
	if (rc) {
		snprintf(why, len, "DBG_TRAP GET_QUEUE_SNAPSHOT failed: %s", strerror(-rc));
		return rc;
	}
	if (p->have_sysfs_id && p->sysfs_id != id)
		hsaqm_log_warn("queue %llu: sysfs kfd/proc said KFD queue %u, the snapshot %u",
			       (unsigned long long)p->amd->hsa_queue.id, p->sysfs_id, id);
	p->kfd_queue_id = id;
	return 0;
}

/* UPDATE_QUEUE: the id from sysfs kfd/proc, no debugger. 0 or -ENOENT (this queue's) with @why. */
static int lv3_update_ready(struct hsaqm_hsa_proxy *p, char *why, size_t len)
{
	if (!p->have_sysfs_id) {
		snprintf(why, len, "the KFD id of the queue is unknown (sysfs kfd/proc: %s)",
			 p->sysfs_err == -EEXIST ? "another queue of the same size appeared at "
			 "the same time" : p->sysfs_err == -ENOTSUP ? "listed only around the "
			 "creation of a queue that asks for Lv3" : strerror(-p->sysfs_err));
		return -ENOENT;
	}
	p->kfd_queue_id = p->sysfs_id;
	return 0;
}

/* Remember a mechanism's refusal for the runtime (lock held). */
static void lv3_note_refusal(struct hsaqm_hsa_rt_private *rtp, enum hsaqm_kfd_mech m, int err)
{
	/* Relaxed stores: read unlocked by hsaqm_hsa_lv3_stale(), a hint checked again locked. */
	if (m == HSAQM_KFD_MECH_DBG_TRAP && !rtp->dbg_err)
		HSAQM_WRITE_ONCE(rtp->dbg_err, err);
	else if (m == HSAQM_KFD_MECH_UPDATE_QUEUE && !rtp->update_err)
		HSAQM_WRITE_ONCE(rtp->update_err, err);
}

bool hsaqm_hsa_lv3_stale(const struct hsaqm_hsa_proxy *p)
{
	const struct hsaqm_hsa_rt_private *rtp = p->rtp;

	return p->lv3_state == HSAQM_HSA_LV3_READY &&
	       ((p->mech == HSAQM_KFD_MECH_DBG_TRAP && HSAQM_READ_ONCE(rtp->dbg_err)) ||
		(p->mech == HSAQM_KFD_MECH_UPDATE_QUEUE && HSAQM_READ_ONCE(rtp->update_err)));
}

int hsaqm_hsa_lv3_resolve(struct hsaqm_hsa_proxy *p)
{
	struct hsaqm_hsa_rt_private *rtp = p->rtp;
	struct hsaqm_kfd_lv3 d;
	char why[160] = "";
	int rc = 0;

	if (p->lv3_state == HSAQM_HSA_LV3_READY)
		return 0;
	if (p->lv3_state == HSAQM_HSA_LV3_REFUSED)
		return p->lv3_err;
	pthread_mutex_lock(&rtp->lock);
	/* At most one refusal per mechanism: DBG_TRAP, then UPDATE_QUEUE, then none. */
	for (int round = 0; round < 3; round++) {
		lv3_decide_locked(rtp, p->gpu_node, &d);
		if (d.mech == HSAQM_KFD_MECH_DBG_TRAP)
			rc = lv3_dbg_ready(p, why, sizeof(why));
		else if (d.mech == HSAQM_KFD_MECH_UPDATE_QUEUE)
			rc = lv3_update_ready(p, why, sizeof(why));
		else
			break;
		if (!rc) {
			p->mech = d.mech;
			snprintf(p->mech_why, sizeof(p->mech_why), "%.*s",
				 (int)sizeof(p->mech_why) - 1, d.reason);
			p->lv3_state = HSAQM_HSA_LV3_READY;
			pthread_mutex_unlock(&rtp->lock);
			return 0;
		}
		if (rc == -ENOENT)
			break; /* this queue's id, not the mechanism: said below, nothing noted */
		lv3_note_refusal(rtp, d.mech, rc);
	}
	pthread_mutex_unlock(&rtp->lock);
	if (d.mech == HSAQM_KFD_MECH_NONE)
		return lv3_refuse(p, rc ? rc : -EOPNOTSUPP, d.reason);
	return lv3_refuse(p, rc == -ENOENT ? -EINVAL : rc, why);
}

int hsaqm_hsa_lv3_refused(struct hsaqm_hsa_proxy *p, int err)
{
	struct hsaqm_hsa_rt_private *rtp = p->rtp;

	pthread_mutex_lock(&rtp->lock);
	lv3_note_refusal(rtp, p->mech, err);
	pthread_mutex_unlock(&rtp->lock);
	p->lv3_state = HSAQM_HSA_LV3_UNRESOLVED;
	return hsaqm_hsa_lv3_resolve(p);
}

void hsaqm_hsa_lv3_before_create(struct hsaqm_hsa_proxy *p, bool lv3)
{
	const struct hsaqm_kfd_transport *tp = p->rt->kfd;
	struct hsaqm_hsa_rt_private *rtp = p->rtp;
	int pref;

	pthread_mutex_lock(&rtp->settings_lock);
	pref = rtp->pref;
	pthread_mutex_unlock(&rtp->settings_lock);
	p->sysfs_listing = lv3 && tp && pref != HSAQM_KFD_PREF_DBG_TRAP &&
			   pref != HSAQM_KFD_PREF_NONE;
	if (!p->sysfs_listing) {
		p->sysfs_err = -ENOTSUP;
		return;
	}
	pthread_mutex_lock(&p->rtp->create_lock);
	p->sysfs_before = NULL;
	p->sysfs_nbefore = 0;
	p->sysfs_err = hsaqm_kfd_proc_queues(tp, (long)getpid(), &p->sysfs_before,
					     &p->sysfs_nbefore);
}

void hsaqm_hsa_lv3_after_create(struct hsaqm_hsa_proxy *p, bool created)
{
	const struct hsaqm_kfd_transport *tp = p->rt->kfd;
	struct hsaqm_kfd_proc_queue *after = NULL;
	uint32_t nafter = 0, gpu_id = 0;

	if (!p->sysfs_listing)
		return;
	p->sysfs_listing = false;
	if (created && !p->sysfs_err) {
		struct hsaqm_topology_node *node = calloc(1, sizeof(*node));

		/* The GPU of the queue's agent: its node's gpu_id, as kfd/proc prints it. */
		if (node && tp->sysfs_root && p->gpu_node != UINT32_MAX &&
		    hsaqm_topology_node_load(tp->sysfs_root, p->gpu_node, node) == 0)
			gpu_id = node->gpu_id;
		free(node);
		p->sysfs_err = hsaqm_kfd_proc_queues(tp, (long)getpid(), &after, &nafter);
		if (!p->sysfs_err)
			p->sysfs_err = hsaqm_kfd_proc_queue_new(
				p->sysfs_before, p->sysfs_nbefore, after, nafter, gpu_id,
				(uint64_t)p->hwq->size * HSAQM_AQL_PACKET_SIZE, &p->sysfs_id);
		p->have_sysfs_id = p->sysfs_err == 0;
		free(after);
	}
	pthread_mutex_unlock(&p->rtp->create_lock);
	free(p->sysfs_before);
	p->sysfs_before = NULL;
}

/* KFD queue priority of an HSA priority, as ROCr maps it (libhsakmt -3/0/+2, HIGH +3 < 6.2). */
static uint32_t kfd_priority_of(const struct hsaqm_hsa_runtime *rt,
				hsaqm_hsa_amd_queue_priority_t prio)
{
	if (prio == HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW)
		return 0;
	if (prio == HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH)
		return rt->amd_queue_get_info ? 11 : 15; /* hsa_amd_queue_get_info came with 6.2 */
	return 7;
}

int hsaqm_hsa_lv3_set_priority(struct hsaqm_hsa_proxy *p, hsaqm_hsa_amd_queue_priority_t prio)
{
	hsaqm_hsa_status_t st = HSAQM_HSA_STATUS_SUCCESS;

	if (!p->rt->amd_queue_set_priority)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&p->lv3_lock);
	if (p->suspended && p->suspended_by == HSAQM_KFD_MECH_UPDATE_QUEUE)
		p->pending_prio = (int)prio; /* applied by the resume */
	else
		st = p->rt->amd_queue_set_priority(p->hwq, prio);
	if (st == HSAQM_HSA_STATUS_SUCCESS)
		p->kfd_priority = kfd_priority_of(p->rt, prio);
	pthread_mutex_unlock(&p->lv3_lock);
	return hsaqm_hsa_errno_from_status(st);
}
