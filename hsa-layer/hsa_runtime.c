/* SPDX-License-Identifier: MIT */
/*
 * hsa_runtime.c - the HSA backend's view of one runtime: the table entries it calls, the
 * marker signals it keeps for the runtime's whole life, and the Lv3 state (one KFD handle
 * and one DBG_TRAP session per runtime). docs/hsa-backend.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hsa_backend_internal.h"
#include "hsaqm/barrier.h"
#include "hsaqm/kfd.h"
#include "log_internal.h"
#include "time_internal.h"

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
			/* A wait runs a virtual-time model's event loop, where its handlers run. */
			rt->signal_wait_scacquire(s->signal, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0,
						  WAIT_STEP_TICKS, HSAQM_HSA_WAIT_STATE_BLOCKED);
	}
	for (struct hsaqm_hsa_mslot *s = rtp->mslots; s;) {
		struct hsaqm_hsa_mslot *next = s->next;

		/* Acquire: as above: a retired handler is done with the slot, which may go. */
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
	pthread_mutex_destroy(&rtp->lock);
	free(rtp);
	rt->priv = NULL;
}

/* ---- Lv3 ----------------------------------------------------------------------------------- */

/* The runtime-wide checks (lock held): a KFD with DBG_TRAP, HWS, CWSR. */
static void lv3_check_runtime(struct hsaqm_hsa_rt_private *rtp)
{
	const struct hsaqm_kfd_transport *tp = rtp->rt->kfd;
	struct hsaqm_kfd_module_params mp;
	uint32_t major = 0, minor = 0;
	int rc;

	rtp->lv3_checked = true;
	if (!tp) {
		snprintf(rtp->lv3_why, sizeof(rtp->lv3_why),
			 "no KFD transport: Lv3 needs the KFD the runtime's queues live on");
		return;
	}
	rc = hsaqm_kfd_open(tp, &rtp->kfd);
	if (rc) {
		rtp->kfd = NULL;
		snprintf(rtp->lv3_why, sizeof(rtp->lv3_why), "cannot open the KFD %s (%s)",
			 tp->dev_path ? tp->dev_path : "", strerror(-rc));
		return;
	}
	hsaqm_kfd_get_version(rtp->kfd, &major, &minor);
	if (!hsaqm_kfd_version_at_least(rtp->kfd, 1, 13)) {
		snprintf(rtp->lv3_why, sizeof(rtp->lv3_why),
			 "KFD interface %u.%u is older than 1.13: no DBG_TRAP queue suspension",
			 major, minor);
		return;
	}
	if (tp->sysfs_root && hsaqm_topology_module_params(tp->sysfs_root, &mp) == 0) {
		if ((mp.present & HSAQM_KFD_PARAM_SCHED_POLICY) && mp.sched_policy == 2) {
			snprintf(rtp->lv3_why, sizeof(rtp->lv3_why),
				 "amdgpu sched_policy=2 (no HWS): DBG_TRAP refuses to suspend "
				 "queues");
			return;
		}
		if ((mp.present & HSAQM_KFD_PARAM_CWSR_ENABLE) && mp.cwsr_enable == 0) {
			snprintf(rtp->lv3_why, sizeof(rtp->lv3_why),
				 "amdgpu cwsr_enable=0: running waves cannot be saved");
			return;
		}
	}
	rtp->lv3_ok = true;
}

int hsaqm_hsa_lv3_prepare(struct hsaqm_hsa_runtime *rt)
{
	struct hsaqm_hsa_rt_private *rtp = rt ? rt->priv : NULL;
	int rc = -EOPNOTSUPP;

	if (!rtp)
		return -EINVAL;
	pthread_mutex_lock(&rtp->lock);
	if (!rtp->lv3_checked)
		lv3_check_runtime(rtp);
	if (rtp->lv3_ok && rtp->kfd) {
		/*
		 * The KFD suspends queues only for a process whose runtime is enabled, and enables
		 * it only while the process has no queue (EEXIST after). ROCr from 5.5 enables it in
		 * hsa_init (EBUSY here: nothing to do); ROCm 5.2's libhsakmt tries its out-of-tree
		 * driver's ioctl instead, which an upstream KFD refuses, so such a process would
		 * never be suspendable: enable it now, as ROCr would, without an r_debug (a debugger
		 * attaching later then finds no code object list).
		 */
		rc = hsaqm_kfd_runtime_enable(rtp->kfd, 0, false);
		if (rc == -EBUSY)
			rc = 0;
		else if (rc)
			hsaqm_log_info("RUNTIME_ENABLE: %s (Lv3 suspends will tell)", strerror(-rc));
	}
	pthread_mutex_unlock(&rtp->lock);
	return rc;
}

int hsaqm_hsa_lv3_check(struct hsaqm_hsa_rt_private *rtp, uint32_t node_id, char *why,
			size_t why_len)
{
	const struct hsaqm_kfd_transport *tp = rtp->rt->kfd;
	struct hsaqm_hsa_lv3_node *n = NULL;
	int level = HSAQM_LEVEL_3;

	pthread_mutex_lock(&rtp->lock);
	if (!rtp->lv3_checked)
		lv3_check_runtime(rtp);
	if (!rtp->lv3_ok) {
		snprintf(why, why_len, "%s", rtp->lv3_why);
		level = HSAQM_LEVEL_2;
		goto out;
	}
	if (rtp->dbg_err) {
		snprintf(why, why_len, "%s", rtp->dbg_why);
		level = HSAQM_LEVEL_2;
		goto out;
	}
	if (node_id == UINT32_MAX)
		goto out; /* the runtime does not say which node: the suspend will tell */
	for (unsigned int i = 0; i < rtp->nnodes; i++)
		if (rtp->nodes[i].node_id == node_id)
			n = &rtp->nodes[i];
	if (!n && rtp->nnodes < HSAQM_HSA_LV3_MAX_NODES) {
		n = &rtp->nodes[rtp->nnodes++];
		n->node_id = node_id;
	}
	if (n && !n->checked) {
		struct hsaqm_topology_node *node = calloc(1, sizeof(*node));

		n->checked = true;
		n->ok = true;
		if (node && tp->sysfs_root &&
		    hsaqm_topology_node_load(tp->sysfs_root, node_id, node) == 0 &&
		    !(node->capability & HSAQM_KFD_CAP_TRAP_DEBUG_SUPPORT)) {
			n->ok = false;
			snprintf(n->why, sizeof(n->why),
				 "KFD node %u lacks TRAP_DEBUG_SUPPORT (capability 0x%x)", node_id,
				 node->capability);
		}
		free(node);
	}
	if (n && !n->ok) {
		snprintf(why, why_len, "%s", n->why);
		level = HSAQM_LEVEL_2;
	}
out:
	pthread_mutex_unlock(&rtp->lock);
	return level;
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
	if (why != p->max_why)
		snprintf(p->max_why, sizeof(p->max_why), "%.*s", (int)sizeof(p->max_why) - 1, why);
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

int hsaqm_hsa_lv3_resolve(struct hsaqm_hsa_proxy *p)
{
	struct hsaqm_hsa_rt_private *rtp = p->rtp;
	char why[128];
	uint32_t id = 0;
	int rc;

	if (p->lv3_state == HSAQM_HSA_LV3_READY)
		return 0;
	if (p->lv3_state == HSAQM_HSA_LV3_REFUSED)
		return p->lv3_err;
	if (p->max_level < HSAQM_LEVEL_3)
		return lv3_refuse(p, -EOPNOTSUPP, p->max_why);
	pthread_mutex_lock(&rtp->lock);
	if (!rtp->lv3_ok || !rtp->kfd) {
		snprintf(why, sizeof(why), "%s", rtp->lv3_why);
		pthread_mutex_unlock(&rtp->lock);
		return lv3_refuse(p, -EOPNOTSUPP, why);
	}
	if (!rtp->dbg_enabled && !rtp->dbg_err) {
		rc = hsaqm_kfd_dbg_enable(rtp->kfd, 0, NULL);
		if (rc == 0) {
			rtp->dbg_enabled = true;
		} else {
			rtp->dbg_err = rc;
			if (rc == -EALREADY)
				snprintf(rtp->dbg_why, sizeof(rtp->dbg_why), "%s",
					 "another debugger (rocgdb or a profiler) holds the "
					 "process (DBG_TRAP ENABLE: EALREADY)");
			else
				snprintf(rtp->dbg_why, sizeof(rtp->dbg_why),
					 "DBG_TRAP ENABLE failed: %s", strerror(-rc));
		}
	}
	if (rtp->dbg_err) {
		rc = rtp->dbg_err;
		snprintf(why, sizeof(why), "%s", rtp->dbg_why);
		pthread_mutex_unlock(&rtp->lock);
		return lv3_refuse(p, rc, why);
	}
	rc = lv3_find_queue(rtp, (uint64_t)(uintptr_t)p->hwq->base_address, &id);
	pthread_mutex_unlock(&rtp->lock);
	if (rc == -ENOENT)
		return lv3_refuse(p, -EINVAL,
				  "the KFD has no queue with this ring (the runtime did not create "
				  "it through the KFD hsaqm opened)");
	if (rc) {
		snprintf(why, sizeof(why), "DBG_TRAP GET_QUEUE_SNAPSHOT failed: %s", strerror(-rc));
		return lv3_refuse(p, rc, why);
	}
	p->kfd_queue_id = id;
	p->lv3_state = HSAQM_HSA_LV3_READY;
	return 0;
}
