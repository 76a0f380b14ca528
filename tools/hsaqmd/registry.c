/* SPDX-License-Identifier: MIT */
/*
 * registry.c - what hsaqmd knows of the node: the devices and, per device, the queues of every
 * registered process; what each uid holds (docs/daemon.md "Security model"); which gpu_ids
 * exist; who may see whom.
 *
 * The daemon is not a second scheduler (docs/daemon.md "Priorities and policies"): it decides
 * which processes' queues must hold on each device, across processes, at each process's
 * priority; lib decides which of a process's own queues run, and applies both decisions to
 * the hardware (gates, suspension, inheritance, fallback). lib/sched.c's struct hsaqm_dev
 * keeps the process's own xqueues under the device lock; struct ddev here keeps records of
 * other processes' queues, which the daemon can neither hold nor release: a slot in their
 * client's shared memory, the last command, the hand-off's stamps, the liveness clock. What is
 * the same in both is shared: the policy's input (struct hsaqm_policy_queue) and
 * hsaqm_policy_decide(). The array bookkeeping around it (grow by doubling, swap the last in)
 * looks alike but is not shared: a common container would change fields of struct hsaqm_dev
 * that four files of lib/ index directly, for about 25 lines.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "registry_internal.h"

static const struct hsaqm_policy_config *config_policy(const struct hsaqmd_config *cfg,
						       uint32_t gpu_id, bool *own)
{
	for (size_t i = 0; i < cfg->npolicies; i++) {
		if (cfg->policies[i].gpu_id == gpu_id) {
			*own = true;
			return &cfg->policies[i].cfg;
		}
	}
	*own = false;
	return &cfg->policy;
}

struct ddev *hsaqmd_dev_find(struct hsaqmd *d, uint32_t gpu_id)
{
	for (size_t i = 0; i < d->ndevs; i++)
		if (d->devs[i]->gpu_id == gpu_id)
			return d->devs[i];
	return NULL;
}

struct ddev *hsaqmd_dev_get(struct hsaqmd *d, uint32_t gpu_id)
{
	struct ddev *dev = hsaqmd_dev_find(d, gpu_id), **n;

	if (dev)
		return dev;
	if (d->ndevs >= MAX_DEVICES)
		return NULL;
	dev = calloc(1, sizeof(*dev));
	n = realloc(d->devs, (d->ndevs + 1) * sizeof(*n));
	if (!dev || !n) {
		free(dev);
		if (n)
			d->devs = n;
		return NULL;
	}
	d->devs = n;
	dev->gpu_id = gpu_id;
	dev->cfg = *config_policy(&d->cfg, gpu_id, &dev->own_policy);
	dev->deadline = HSAQM_POLICY_NO_DEADLINE;
	d->devs[d->ndevs++] = dev;
	return dev;
}

/* A device without queues and without a policy of its own is forgotten. */
void hsaqmd_dev_maybe_free(struct hsaqmd *d, struct ddev *dev)
{
	if (dev->n || dev->own_policy)
		return;
	for (size_t i = 0; i < d->ndevs; i++) {
		if (d->devs[i] == dev) {
			d->devs[i] = d->devs[--d->ndevs];
			break;
		}
	}
	free(dev->q);
	free(dev->pq);
	free(dev);
}

int hsaqmd_dev_add_queue(struct ddev *dev, struct dqueue *q)
{
	if (dev->n == dev->cap) {
		size_t cap = dev->cap ? dev->cap * 2 : 8;
		struct dqueue **nq = realloc(dev->q, cap * sizeof(*nq));

		if (!nq)
			return -ENOMEM;
		dev->q = nq;
		struct hsaqm_policy_queue *np = realloc(dev->pq, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		dev->pq = np;
		dev->cap = cap;
	}
	memset(&dev->pq[dev->n], 0, sizeof(dev->pq[0]));
	/* A new queue has not run yet: the policy's "run" starts as what the command says (run),
	 * so a decision that lets it run sends nothing. lib starts its own at zero instead and
	 * applies the first decision to the queue itself. */
	dev->pq[dev->n].run = true;
	dev->q[dev->n] = q;
	q->dev = dev;
	q->dev_idx = dev->n++;
	dev->dirty = true;
	return 0;
}

void hsaqmd_dev_remove_queue(struct ddev *dev, struct dqueue *q)
{
	size_t i = q->dev_idx, last = --dev->n;

	if (i != last) {
		dev->q[i] = dev->q[last];
		dev->pq[i] = dev->pq[last];
		dev->q[i]->dev_idx = i;
	}
	q->dev = NULL;
	dev->dirty = true;
}

int hsaqmd_queue_priority(const struct dqueue *q)
{
	int p = q->cl->priority + q->prio_adj;
	/* A queue's adjustment cannot lift it above what its uid may take (root may have set
	 * the process above the cap by hand: that value stands). */
	int cap = q->cl->cap > q->cl->priority ? q->cl->cap : q->cl->priority;

	if (p > cap)
		p = cap;
	if (p > HSAQM_PRIORITY_MAX)
		p = HSAQM_PRIORITY_MAX;
	if (p < HSAQM_PRIORITY_MIN)
		p = HSAQM_PRIORITY_MIN;
	return p;
}

static struct duid *uid_get(struct hsaqmd *d, uint32_t uid)
{
	struct duid *spare = NULL;

	for (size_t i = 0; i < d->nuids; i++) {
		if (d->uids[i].uid == uid)
			return &d->uids[i];
		if (!spare && !d->uids[i].conns && !d->uids[i].queues)
			spare = &d->uids[i];
	}
	/* Clients point into the table, so it never moves: max_clients entries, made at start
	 * (each connection has one uid), an entry nobody uses taken again. */
	if (!spare && d->nuids < d->capuids)
		spare = &d->uids[d->nuids++];
	if (spare)
		*spare = (struct duid){ .uid = uid };
	return spare;
}

/* Root and the daemon's own user: no per-uid limit, the reserved slots, everyone in LIST. */
bool hsaqmd_uid_privileged(uint32_t uid)
{
	return uid == 0 || uid == (uint32_t)geteuid();
}

/*
 * Whether a new connection of @uid may have a slot: the total bound (max_clients, of which
 * reserved_clients only for privileged uids) and the uid's own. Counts the refusal.
 */
const char *hsaqmd_uid_admit(struct hsaqmd *d, uint32_t uid, struct duid **u)
{
	unsigned int used = d->nclients + d->nctls;
	bool priv = hsaqmd_uid_privileged(uid);

	if (used >= d->cfg.max_clients ||
	    (!priv && used >= d->cfg.max_clients - d->cfg.reserved_clients)) {
		d->st.refused_full++;
		return "no free connection slot";
	}
	*u = uid_get(d, uid);
	if (!*u) {
		d->st.refused_full++;
		return "too many users connected";
	}
	if (!priv && (*u)->conns >= d->cfg.max_clients_per_uid) {
		d->st.refused_uid_limit++;
		return "the user's connections are at max_clients_per_uid";
	}
	return NULL;
}

/* The gpu_ids of the node's GPUs, from the KFD topology (or the model's, `topology`). */
void hsaqmd_topo_load(struct hsaqmd *d)
{
	char path[512];
	struct dirent *e;
	DIR *dir;

	d->ntopo = 0;
	d->topo_read_ns = hsaqmd_now_ns();
	snprintf(path, sizeof(path), "%s/nodes", d->cfg.topology);
	dir = opendir(path);
	if (!dir)
		return;
	while ((e = readdir(dir)) && d->ntopo < MAX_DEVICES) {
		unsigned long v = 0;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/nodes/%.64s/gpu_id", d->cfg.topology, e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		/* 0: a CPU node. */
		if (fscanf(f, "%lu", &v) == 1 && v && v < UINT32_MAX) {
			uint32_t *n = realloc(d->topo_ids, (d->ntopo + 1) * sizeof(*n));

			if (n) {
				d->topo_ids = n;
				d->topo_ids[d->ntopo++] = (uint32_t)v;
			}
		}
		fclose(f);
	}
	closedir(dir);
}

static bool in_list(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Whether a queue may name @gpu_id: a fake one must not take a slot of the device table. */
bool hsaqmd_gpu_id_allowed(struct hsaqmd *d, uint32_t gpu_id)
{
	switch (d->cfg.gpu_ids_mode) {
	case HSAQMD_GPU_IDS_ANY:
		return true;
	case HSAQMD_GPU_IDS_LIST:
		return in_list(d->cfg.gpu_ids, d->cfg.ngpu_ids, gpu_id);
	default:
		if (!d->ntopo) /* no KFD on this node: nothing to check against (said at start) */
			return true;
		if (in_list(d->topo_ids, d->ntopo, gpu_id))
			return true;
		/* A GPU may have appeared (hot-plug, a partition mode change): look again, once
		 * a second at most. */
		if (hsaqmd_now_ns() - d->topo_read_ns < 1000000000ull)
			return false;
		hsaqmd_topo_load(d);
		return in_list(d->topo_ids, d->ntopo, gpu_id);
	}
}

/* Devices on which @uid has queues (quota of distinct gpu_ids). */
static bool uid_on_device(const struct ddev *dev, uint32_t uid)
{
	for (size_t i = 0; i < dev->n; i++)
		if (dev->q[i]->cl->uid == uid)
			return true;
	return false;
}

int hsaqmd_uid_quota(struct hsaqmd *d, struct dclient *cl, uint32_t gpu_id)
{
	struct ddev *dev = hsaqmd_dev_find(d, gpu_id);
	unsigned int ndev = 0;

	if (cl->privileged)
		return 0;
	if (cl->u->queues >= d->cfg.max_queues_per_uid)
		return -EDQUOT;
	if (dev && uid_on_device(dev, cl->uid))
		return 0;
	for (size_t i = 0; i < d->ndevs; i++)
		ndev += uid_on_device(d->devs[i], cl->uid);
	return ndev >= d->cfg.max_devices_per_uid ? -EDQUOT : 0;
}

/*
 * Who sees whom (docs/daemon.md "Security model"): root and the daemon's own user see every
 * process; any other user sees its own processes only (their pids, commands, priorities and
 * queue states are nobody else's business), and how many it does not see.
 */
bool hsaqmd_may_see(const struct dclient *req, const struct dclient *t)
{
	return req->privileged || req->uid == t->uid;
}
