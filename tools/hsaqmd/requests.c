/* SPDX-License-Identifier: MIT */
/*
 * requests.c - what a client or hsaqmctl asks once it said HELLO: its queues (add, remove,
 * settings), priorities, the listing, the statistics, the policies, the metrics.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arbitrate_internal.h"
#include "daemon_log_internal.h"
#include "hsaqm-common/hist.h"
#include "hsaqm-common/barrier.h"
#include "registry_internal.h"
#include "session_internal.h"

static int on_queue_add(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	const struct hsaqmd_queue_add *a = &m->u.queue_add;
	struct hsaqmd_queue_add_ok ok = { 0 };
	struct dqueue *q;
	struct ddev *dev;
	uint32_t s;

	if (cl->role != HSAQMD_ROLE_CLIENT)
		return hsaqmd_send_result(d, cl, m->hdr.seq, -EPERM, 0);
	s = a->slot;
	if (cl->slot[s])
		return hsaqmd_send_result(d, cl, m->hdr.seq, -EEXIST, 0);
	if (!hsaqmd_gpu_id_allowed(d, a->gpu_id)) {
		d->st.refused_device++;
		hsaqmd_log_warn("client %u (pid %u, uid %u): gpu_id %u is not a GPU of this node: "
				"queue refused", cl->id, cl->pid_ns, cl->uid, a->gpu_id);
		return hsaqmd_send_result(d, cl, m->hdr.seq, -ENODEV, 0);
	}
	if (hsaqmd_uid_quota(d, cl, a->gpu_id)) {
		d->st.refused_quota++;
		hsaqmd_log_warn("client %u (pid %u, uid %u): the user's queue or device quota is "
				"reached: queue refused", cl->id, cl->pid_ns, cl->uid);
		return hsaqmd_send_result(d, cl, m->hdr.seq, -EDQUOT, 0);
	}
	q = calloc(1, sizeof(*q));
	dev = q ? hsaqmd_dev_get(d, a->gpu_id) : NULL;
	if (!q || !dev || hsaqmd_dev_add_queue(dev, q) < 0) {
		free(q);
		if (dev)
			hsaqmd_dev_maybe_free(d, dev);
		return hsaqmd_send_result(d, cl, m->hdr.seq, -ENOMEM, 0);
	}
	q->cl = cl;
	q->slot = s;
	q->qid = ++d->next_qid;
	q->gpu_id = a->gpu_id;
	q->kfd_qid = a->kfd_queue_id;
	q->hsa_qid = a->hsa_queue_id;
	q->level = a->level;
	q->prio_adj = a->prio_adj;
	q->group = a->group;
	q->share = a->share;
	memcpy(q->mech, a->mech, sizeof(q->mech));
	/* The client published the state word before it asked (and kicks after any change). */
	q->active = hsaqm_load_acquire(&cl->shm->slot[s].state) == 1;
	/* Liveness starts now: the word's value is whatever an earlier queue left. */
	q->progress = HSAQM_READ_ONCE(cl->shm->slot[s].progress);
	q->progress_ns = hsaqmd_now_ns();
	cl->slot[s] = q;
	cl->nqueues++;
	cl->u->queues++;
	hsaqmd_queue_command(d, q, false);
	d->st.commands--; /* not a change: the first word */
	/* TC3: the decision runs before the reply, so a queue created while its process is
	 * held starts held. */
	hsaqmd_decide_all(d, false);
	ok.slot = s;
	ok.qid = q->qid;
	ok.cmd = q->cmd;
	return hsaqmd_send_msg(d, cl, HSAQMD_QUEUE_ADD_OK, m->hdr.seq, &ok);
}

static struct dqueue *client_queue(struct dclient *cl, uint32_t slot)
{
	return cl->role == HSAQMD_ROLE_CLIENT && slot < HSAQMD_SLOTS ? cl->slot[slot] : NULL;
}

static int on_queue_del(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	struct dqueue *q = client_queue(cl, m->u.queue_del.slot);

	if (!q)
		return hsaqmd_send_result(d, cl, m->hdr.seq, -ENOENT, 0);
	hsaqmd_queue_free(d, q);
	hsaqmd_decide_all(d, false);
	return hsaqmd_send_result(d, cl, m->hdr.seq, 0, 0);
}

static int on_queue_set(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	const struct hsaqmd_queue_set *s = &m->u.queue_set;
	struct dqueue *q = client_queue(cl, s->slot);

	if (!q)
		return hsaqmd_send_result(d, cl, m->hdr.seq, -ENOENT, 0);
	if (s->what & HSAQMD_SET_KFD_ID)
		q->kfd_qid = s->kfd_queue_id;
	if (s->what & HSAQMD_SET_LEVEL)
		q->level = s->level;
	if (s->what & HSAQMD_SET_PRIO_ADJ)
		q->prio_adj = s->prio_adj;
	if (s->what & HSAQMD_SET_SHARE) {
		q->group = s->group;
		q->share = s->share;
	}
	if (s->what & HSAQMD_SET_MECH)
		memcpy(q->mech, s->mech, sizeof(q->mech));
	q->dev->dirty = true;
	hsaqmd_decide_all(d, false);
	return hsaqmd_send_result(d, cl, m->hdr.seq, 0, 0);
}

static void client_set_priority(struct hsaqmd *d, struct dclient *cl, int priority)
{
	cl->priority = priority;
	for (unsigned int s = 0; s < HSAQMD_SLOTS; s++)
		if (cl->slot[s])
			cl->slot[s]->dev->dirty = true;
}

static int on_proc_set(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	int p = m->u.proc_set.priority;

	if (cl->role != HSAQMD_ROLE_CLIENT)
		return hsaqmd_send_result(d, cl, m->hdr.seq, -EPERM, 0);
	if (p > cl->cap)
		return hsaqmd_send_result(d, cl, m->hdr.seq, -EPERM, cl->priority);
	client_set_priority(d, cl, p);
	hsaqmd_decide_all(d, false);
	return hsaqmd_send_result(d, cl, m->hdr.seq, 0, p);
}

/* Only root and the owning uid change a process's priority, and only root above its cap. */
static int ctl_allowed(const struct dclient *req, const struct dclient *target, int prio)
{
	if (req->uid != 0 && req->uid != target->uid)
		return -EPERM;
	if (req->uid != 0 && prio > target->cap)
		return -EPERM;
	return 0;
}

static int on_ctl_set_prio(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	const struct hsaqmd_ctl_set_prio *c = &m->u.ctl_set_prio;
	int found = 0, rc = 0;

	if (c->target_kind == HSAQMD_TARGET_PID) {
		for (struct dclient *t = d->clients; t; t = t->next) {
			if (t->role != HSAQMD_ROLE_CLIENT || t->pid_ns != c->target ||
			    !hsaqmd_may_see(cl, t))
				continue;
			found++;
			rc = ctl_allowed(cl, t, c->priority);
			if (rc)
				break;
		}
		if (!found)
			return hsaqmd_send_result(d, cl, m->hdr.seq, -ESRCH, 0);
		if (rc)
			return hsaqmd_send_result(d, cl, m->hdr.seq, rc, 0);
		for (struct dclient *t = d->clients; t; t = t->next)
			if (t->role == HSAQMD_ROLE_CLIENT && t->pid_ns == c->target &&
			    hsaqmd_may_see(cl, t))
				client_set_priority(d, t, c->priority);
		hsaqmd_log_info("uid %u set pid %u's priority to %d", cl->uid, c->target, c->priority);
		hsaqmd_decide_all(d, false);
		return hsaqmd_send_result(d, cl, m->hdr.seq, 0, c->priority);
	}
	for (struct dclient *t = d->clients; t; t = t->next) {
		for (unsigned int s = 0; t->role == HSAQMD_ROLE_CLIENT && s < HSAQMD_SLOTS; s++) {
			struct dqueue *q = t->slot[s];

			if (!q || q->qid != c->target || !hsaqmd_may_see(cl, t))
				continue;
			rc = ctl_allowed(cl, t, t->priority + c->priority);
			if (rc)
				return hsaqmd_send_result(d, cl, m->hdr.seq, rc, 0);
			q->prio_adj = c->priority;
			q->dev->dirty = true;
			hsaqmd_decide_all(d, false);
			return hsaqmd_send_result(d, cl, m->hdr.seq, 0, hsaqmd_queue_priority(q));
		}
	}
	return hsaqmd_send_result(d, cl, m->hdr.seq, -ESRCH, 0);
}

static int on_list(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	struct hsaqmd_end end = { 0 };
	int rc;

	for (struct dclient *t = d->clients; t; t = t->next) {
		if (t->role != HSAQMD_ROLE_CLIENT)
			continue;
		if (!hsaqmd_may_see(cl, t)) {
			end.hidden++;
			continue;
		}
		struct hsaqmd_list_proc p = {
			.client_id = t->id, .pid = t->pid, .pid_ns = t->pid_ns, .uid = t->uid,
			.priority = t->priority, .cap = t->cap, .nqueues = t->nqueues,
			.role = t->role, .connected_ns = t->connected_ns,
		};

		memcpy(p.comm, t->comm, sizeof(p.comm));
		rc = hsaqmd_send_msg(d, cl, HSAQMD_LIST_PROC, m->hdr.seq, &p);
		if (rc)
			return rc;
		end.count++;
		for (unsigned int s = 0; s < HSAQMD_SLOTS; s++) {
			const struct dqueue *q = t->slot[s];

			if (!q)
				continue;
			struct hsaqmd_list_queue lq = {
				.client_id = t->id, .qid = q->qid, .slot = q->slot,
				.gpu_id = q->gpu_id, .kfd_queue_id = q->kfd_qid, .level = q->level,
				.hsa_queue_id = q->hsa_qid, .priority = hsaqmd_queue_priority(q),
				.prio_adj = q->prio_adj,
				.state = q->hold ? HSAQMD_QSTATE_PREEMPTED
						 : q->active ? HSAQMD_QSTATE_READY : HSAQMD_QSTATE_IDLE,
				/* Acquire: pairs with the client's release of its ack; shown only. */
				.acked = hsaqm_load_acquire(&t->shm->slot[s].ack) == q->cmd,
				.group = q->group, .share = q->share, .preemptions = q->preemptions,
				.held_ns = q->held_ns + (q->hold ? hsaqmd_now_ns() - q->hold_since_ns : 0),
				.stalls = q->stalls,
				/* Only a holder is stalled (hsaqmd_check_progress()). */
				.stalled = q->stalled && !q->hold,
				/* Relaxed: the client's figure, shown as it is. */
				.dep_stalls = HSAQM_READ_ONCE(t->shm->dep_stalls[s]),
			};

			snprintf(lq.mech, sizeof(lq.mech), "%s",
				 q->mech[0] ? q->mech : hsaqm_level_name((enum hsaqm_level)q->level));

			rc = hsaqmd_send_msg(d, cl, HSAQMD_LIST_QUEUE, m->hdr.seq, &lq);
			if (rc)
				return rc;
			end.count++;
		}
	}
	return hsaqmd_send_msg(d, cl, HSAQMD_END, m->hdr.seq, &end);
}

static uint32_t count_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	uint32_t n = 0;

	if (!dir)
		return 0;
	while (readdir(dir))
		n++;
	closedir(dir);
	return n > 3 ? n - 3 : 0; /* ".", "..", and the directory's own fd */
}

static uint64_t rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[128];
	unsigned long long v = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %llu kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static void handoff_lat(struct hsaqmd_lat *l, const struct hsaqm_hist *h)
{
	l->count = h->count;
	l->p50_ns = clamp32(hsaqm_hist_quantile(h, 5000));
	l->p90_ns = clamp32(hsaqm_hist_quantile(h, 9000));
	l->p99_ns = clamp32(hsaqm_hist_quantile(h, 9900));
	l->max_ns = h->count ? clamp32(h->max_ns) : 0;
}

/* The Prometheus text, what @cl may see, in TEXT chunks (a slow reader's wait in its buffer). */
static int on_metrics(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	struct hsaqmd_end end = { 0 };
	size_t len = 0;
	char *text;
	int rc = 0;

	hsaqmd_harvest_all(d);
	text = hsaqmd_metrics_text(d, cl, &len);
	if (!text)
		return hsaqmd_send_result(d, cl, m->hdr.seq, -ENOMEM, 0);
	for (size_t off = 0; !rc && off < len; off += HSAQMD_TEXT_MAX) {
		struct hsaqmd_text t = { 0 };

		t.len = (uint32_t)(len - off < HSAQMD_TEXT_MAX ? len - off : HSAQMD_TEXT_MAX);
		memcpy(t.text, text + off, t.len);
		rc = hsaqmd_send_msg(d, cl, HSAQMD_TEXT, m->hdr.seq, &t);
		end.count++;
	}
	free(text);
	return rc ? rc : hsaqmd_send_msg(d, cl, HSAQMD_END, m->hdr.seq, &end);
}

static int on_stats(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	struct hsaqmd_stats_ok s;
	uint32_t queues = 0;

	hsaqmd_harvest_all(d);
	for (size_t i = 0; i < d->ndevs; i++)
		queues += (uint32_t)d->devs[i]->n;
	s = d->st;
	s.uptime_ns = hsaqmd_now_ns() - d->start_ns;
	s.clients = d->nclients;
	s.ctls = d->nctls;
	s.devices = (uint32_t)d->ndevs;
	s.queues = queues;
	s.rss_kib = rss_kib();
	s.fds = count_fds();
	s.polling = d->polling && d->cfg.busy_poll;
	s.spinning = d->polling && !d->cfg.busy_poll;
	s.realtime = (uint32_t)d->rt_prio;
	handoff_lat(&s.ready_seen, &d->h_ready_seen);
	handoff_lat(&s.seen_sent, &d->h_seen_sent);
	handoff_lat(&s.sent_acked, &d->h_sent_acked);
	handoff_lat(&s.ready_acked, &d->h_ready_acked);
	return hsaqmd_send_msg(d, cl, HSAQMD_STATS_OK, m->hdr.seq, &s);
}

static void policy_entry(struct hsaqmd_policy_entry *e, uint32_t gpu_id,
			 const struct hsaqm_policy_config *p, size_t n)
{
	e->gpu_id = gpu_id;
	e->kind = (uint32_t)p->kind;
	e->floor_period_us = p->floor_period_us;
	e->floor_slice_us = p->floor_slice_us;
	e->util_period_us = p->util_period_us;
	e->nqueues = (uint32_t)n;
}

static int on_policy_get(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	struct hsaqmd_policy_entry e;
	struct hsaqmd_end end = { 0 };
	int rc;

	policy_entry(&e, HSAQMD_ALL_GPUS, &d->cfg.policy, 0);
	rc = hsaqmd_send_msg(d, cl, HSAQMD_POLICY_ENTRY, m->hdr.seq, &e);
	for (size_t i = 0; !rc && i < d->ndevs; i++) {
		policy_entry(&e, d->devs[i]->gpu_id, &d->devs[i]->cfg, d->devs[i]->n);
		rc = hsaqmd_send_msg(d, cl, HSAQMD_POLICY_ENTRY, m->hdr.seq, &e);
		end.count++;
	}
	return rc ? rc : hsaqmd_send_msg(d, cl, HSAQMD_END, m->hdr.seq, &end);
}

static int on_policy_set(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	const struct hsaqmd_policy_entry *e = &m->u.policy;
	struct hsaqm_policy_config p = {
		.kind = (enum hsaqm_policy_kind)e->kind, .floor_period_us = e->floor_period_us,
		.floor_slice_us = e->floor_slice_us, .util_period_us = e->util_period_us,
	};

	/* The node's policy belongs to root and to whoever runs the daemon. */
	if (cl->uid != 0 && cl->uid != (uint32_t)geteuid())
		return hsaqmd_send_result(d, cl, m->hdr.seq, -EPERM, 0);
	if (e->gpu_id == HSAQMD_ALL_GPUS) {
		d->cfg.policy = p;
		for (size_t i = 0; i < d->ndevs; i++) {
			if (!d->devs[i]->own_policy) {
				d->devs[i]->cfg = p;
				memset(&d->devs[i]->st, 0, sizeof(d->devs[i]->st));
				d->devs[i]->dirty = true;
			}
		}
	} else {
		struct ddev *dev = hsaqmd_dev_get(d, e->gpu_id);

		if (!dev)
			return hsaqmd_send_result(d, cl, m->hdr.seq, -ENOSPC, 0);
		dev->cfg = p;
		dev->own_policy = true;
		memset(&dev->st, 0, sizeof(dev->st));
		dev->dirty = true;
	}
	hsaqmd_log_info("uid %u set the policy of %s to %s", cl->uid,
			e->gpu_id == HSAQMD_ALL_GPUS ? "every device" : "one device",
			hsaqm_policy_name(p.kind));
	hsaqmd_decide_all(d, false);
	return hsaqmd_send_result(d, cl, m->hdr.seq, 0, 0);
}

/* Returns < 0 when the client must go (malformed message, or its socket failed). */
int hsaqmd_request_handle(struct hsaqmd *d, struct dclient *cl, const void *buf, size_t n)
{
	struct hsaqmd_msg m;
	int rc = hsaqmd_msg_parse(buf, n, &m);

	d->st.messages++;
	if (rc == -EPROTONOSUPPORT) {
		/* Say why in our own version, then close: the client can fall back. */
		memcpy(&m.hdr, buf, sizeof(m.hdr));
		hsaqmd_send_result(d, cl, m.hdr.seq, -EPROTONOSUPPORT, HSAQMD_PROTO_VERSION);
		return rc;
	}
	if (rc < 0)
		return rc;
	if (!cl->hello) {
		if (m.hdr.type != HSAQMD_HELLO)
			return -EBADMSG;
		return hsaqmd_client_hello(d, cl, &m);
	}
	switch (m.hdr.type) {
	case HSAQMD_QUEUE_ADD:
		return on_queue_add(d, cl, &m);
	case HSAQMD_QUEUE_DEL:
		return on_queue_del(d, cl, &m);
	case HSAQMD_QUEUE_SET:
		return on_queue_set(d, cl, &m);
	case HSAQMD_PROC_SET:
		return on_proc_set(d, cl, &m);
	case HSAQMD_CTL_SET_PRIO:
		return on_ctl_set_prio(d, cl, &m);
	case HSAQMD_LIST:
		return on_list(d, cl, &m);
	case HSAQMD_STATS:
		return on_stats(d, cl, &m);
	case HSAQMD_POLICY_GET:
		return on_policy_get(d, cl, &m);
	case HSAQMD_POLICY_SET:
		return on_policy_set(d, cl, &m);
	case HSAQMD_METRICS:
		return on_metrics(d, cl, &m);
	default:
		/* A reply type, or a second hello: not something a client sends. */
		return -EBADMSG;
	}
}
