/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd: one scheduler for the queues of every process on the node (docs/daemon.md).
 *
 * One thread, one epoll: the listening socket, each client's socket and its "kick" eventfd,
 * a timerfd for the policies' deadlines, a signalfd. No locks: everything below runs on that
 * thread. Per device, the queues of all processes go through lib's pure policy function
 * (policy_internal.h), the very code a process runs for its own queues.
 *
 * The hot path: a client stores a queue's state word in its shared memory and kicks; the
 * daemon reads the words of that client, decides the devices that changed, writes command
 * words into the other clients' shared memory and kicks them. The socket only registers,
 * queries and controls.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "daemon_internal.h"
#include "hist_internal.h"
#include "hsaqm/barrier.h"
#include "log_internal.h"
#include "path_internal.h"
#include "policy_internal.h"
#include "proto_internal.h"
#include "registry_internal.h"
#include "rt_internal.h"

uint64_t hsaqmd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return hsaqmd_now_ns();
}

/* ---- devices ---------------------------------------------------------------------- */

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

static struct ddev *dev_find(struct hsaqmd *d, uint32_t gpu_id)
{
	for (size_t i = 0; i < d->ndevs; i++)
		if (d->devs[i]->gpu_id == gpu_id)
			return d->devs[i];
	return NULL;
}

static struct ddev *dev_get(struct hsaqmd *d, uint32_t gpu_id)
{
	struct ddev *dev = dev_find(d, gpu_id), **n;

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
static void dev_maybe_free(struct hsaqmd *d, struct ddev *dev)
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

static int dev_add_queue(struct ddev *dev, struct dqueue *q)
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
	/* A new queue has not run yet: the policy's "run" starts as what the command says. */
	dev->pq[dev->n].run = true;
	dev->q[dev->n] = q;
	q->dev = dev;
	q->dev_idx = dev->n++;
	dev->dirty = true;
	return 0;
}

static void dev_remove_queue(struct ddev *dev, struct dqueue *q)
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

/* ---- decisions -------------------------------------------------------------------- */

static int effective_priority(const struct dqueue *q)
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

int hsaqmd_queue_priority(const struct dqueue *q)
{
	return effective_priority(q);
}

/* Longer than this is no reaction: a stamp from another clock (a time namespace), or a bad one. */
#define HANDOFF_MAX_NS 1000000000u

/*
 * Times a pending hold once the client acknowledged it. The stamps are the client's words
 * (proto_internal.h): a sample with a segment outside 0..1 s is dropped and counted, so a
 * client can spoil only the statistics, never a decision. Return: true when it was acked.
 */
static bool handoff_harvest(struct hsaqmd *d, struct dqueue *q)
{
	struct hsaqmd_shm *shm = q->cl->shm;
	uint32_t ack_ns, rs, ss, sa;

	if (!q->pend)
		return true;
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
static void handoff_close(struct hsaqmd *d, struct dqueue *q)
{
	if (!handoff_harvest(d, q)) {
		d->st.holds_unacked++;
		q->pend = false;
	}
}

static void queue_command(struct hsaqmd *d, struct dqueue *q, bool hold)
{
	struct dclient *cl = q->cl;
	uint32_t seq = ++cl->slot_seq[q->slot];

	handoff_close(d, q);

	q->cmd = seq << 1 | (hold ? HSAQMD_CMD_HOLD : 0);
	if (hold && !q->hold) {
		q->hold_since_ns = now_ns();
	} else if (!hold && q->hold) {
		q->held_ns += now_ns() - q->hold_since_ns;
		/* A held queue makes no progress by design: its clock starts at its release, so
		 * it is not found stalled the moment it runs (docs/daemon.md "Liveness"). A
		 * stalled one keeps its word: a move while it was held still clears it. */
		if (!q->stalled) {
			q->progress = HSAQM_READ_ONCE(cl->shm->slot[q->slot].progress);
			q->progress_ns = now_ns();
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
		int p = effective_priority(q);

		if (q->active && !q->stalled && (!q->cl->arb_set || p > q->cl->arb_prio)) {
			q->cl->arb_prio = p;
			q->cl->arb_set = true;
		}
	}
}

static void dev_decide(struct hsaqmd *d, struct ddev *dev, uint64_t now)
{
	process_priorities(dev);
	for (size_t i = 0; i < dev->n; i++) {
		struct dqueue *q = dev->q[i];
		struct hsaqm_policy_queue *pq = &dev->pq[i];

		pq->priority = q->cl->arb_set ? q->cl->arb_prio : effective_priority(q);
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
		uint64_t sent = hold && dev->trig ? now_ns() : 0;

		queue_command(d, q, hold);
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
static void decide_all(struct hsaqmd *d, bool due_only)
{
	uint64_t now = now_ns();

	for (size_t i = 0; i < d->ndevs; i++) {
		struct ddev *dev = d->devs[i];

		if (dev->dirty || (due_only && dev->deadline <= now))
			dev_decide(d, dev, now);
	}
	for (struct dclient *cl = d->clients; cl; cl = cl->next)
		if (cl->need_kick && !cl->dead)
			client_kick(d, cl);
	arm_timer(d);
}

/* ---- sending: never blocking ------------------------------------------------------- */

static void sock_events(struct hsaqmd *d, struct dclient *cl, bool out)
{
	/* While replies wait, the client's requests wait too (no EPOLLIN): a client that
	 * never reads cannot make the daemon produce more for it. */
	struct epoll_event ev = { .events = (out ? EPOLLOUT : EPOLLIN) | EPOLLRDHUP,
				  .data.ptr = &cl->sock_w };

	epoll_ctl(d->epfd, EPOLL_CTL_MOD, cl->fd, &ev);
}

static int outq_push(struct outq *o, const void *buf, size_t len)
{
	uint32_t n = (uint32_t)len;

	if (o->len - o->off + sizeof(n) + len > OUT_MAX)
		return -ENOBUFS;
	if (o->len + sizeof(n) + len > o->cap) {
		size_t live = o->len - o->off, cap = o->cap ? o->cap : 4096;

		if (live && o->off)
			memmove(o->buf, o->buf + o->off, live);
		o->len = live;
		o->off = 0;
		while (cap < live + sizeof(n) + len)
			cap *= 2;
		if (cap != o->cap) {
			char *nb = realloc(o->buf, cap);

			if (!nb)
				return -ENOMEM;
			o->buf = nb;
			o->cap = cap;
		}
	}
	memcpy(o->buf + o->len, &n, sizeof(n));
	memcpy(o->buf + o->len + sizeof(n), buf, len);
	o->len += sizeof(n) + len;
	return 0;
}

static bool outq_empty(const struct outq *o)
{
	return o->off == o->len;
}

static void outq_free(struct outq *o)
{
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

/* Send what waits, in order, until the socket is full. Return: 0; -errno (the client goes). */
static int outq_flush(struct hsaqmd *d, struct dclient *cl)
{
	struct outq *o = &cl->out;

	while (!outq_empty(o)) {
		uint32_t n;

		memcpy(&n, o->buf + o->off, sizeof(n));
		ssize_t r = send(cl->fd, o->buf + o->off + sizeof(n), n, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return 0;
		if (r != (ssize_t)n)
			return r < 0 ? -errno : -EIO;
		o->off += sizeof(n) + n;
		o->progress_ns = now_ns();
	}
	o->off = o->len = 0;
	sock_events(d, cl, false);
	return 0;
}

static int send_fds(struct dclient *cl, const void *buf, size_t len, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} ctrl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds) {
		memset(&ctrl, 0, sizeof(ctrl));
		mh.msg_control = ctrl.buf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	for (;;) {
		ssize_t r = sendmsg(cl->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (r == (ssize_t)len)
			return 0;
		if (r >= 0)
			return -EIO;
		if (errno != EINTR)
			return -errno; /* EAGAIN: a fresh connection's first reply; never waited for */
	}
}

/*
 * Send one message now if nothing waits before it and the socket takes it, else queue it.
 * Return: 0; -ENOBUFS when the client's queue would pass OUT_MAX (a slow reader: it goes);
 * another negative errno from the socket.
 */
static int send_raw(struct hsaqmd *d, struct dclient *cl, const void *buf, size_t len)
{
	int rc;

	if (outq_empty(&cl->out)) {
		rc = send_fds(cl, buf, len, NULL, 0);
		if (rc != -EAGAIN)
			return rc;
		cl->out.progress_ns = now_ns();
		sock_events(d, cl, true);
	}
	rc = outq_push(&cl->out, buf, len);
	if (rc == -ENOBUFS)
		d->st.refused_slow++;
	return rc;
}

static int send_msg(struct hsaqmd *d, struct dclient *cl, unsigned int type, uint32_t seq, const void *body)
{
	char buf[HSAQMD_MSG_MAX];
	int len = hsaqmd_msg_build(buf, type, seq, body);

	if (len < 0)
		return len;
	return send_raw(d, cl, buf, (size_t)len);
}

static int send_result(struct hsaqmd *d, struct dclient *cl, uint32_t seq, int status, int value)
{
	struct hsaqmd_result r = { .status = status, .value = value };

	return send_msg(d, cl, HSAQMD_RESULT, seq, &r);
}

/* ---- clients ---------------------------------------------------------------------------- */

static void queue_free(struct hsaqmd *d, struct dqueue *q)
{
	struct dclient *cl = q->cl;
	struct ddev *dev = q->dev;

	handoff_close(d, q);
	if (dev) {
		dev_remove_queue(dev, q);
		/* Decide now, while the device still exists, so the others resume at once. */
		dev_decide(d, dev, now_ns());
		dev_maybe_free(d, dev);
	}
	cl->slot[q->slot] = NULL;
	cl->nqueues--;
	cl->u->queues--;
	free(q);
}

/* ---- per-uid accounting (docs/daemon.md "Security model") ------------------------------ */

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
static bool uid_privileged(uint32_t uid)
{
	return uid == 0 || uid == (uint32_t)geteuid();
}

/*
 * Whether a new connection of @uid may have a slot: the total bound (max_clients, of which
 * reserved_clients only for privileged uids) and the uid's own. Counts the refusal.
 */
static const char *admit(struct hsaqmd *d, uint32_t uid, struct duid **u)
{
	unsigned int used = d->nclients + d->nctls;
	bool priv = uid_privileged(uid);

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

static void client_drop(struct hsaqmd *d, struct dclient *cl, const char *why)
{
	if (cl->dead)
		return;
	if (cl->u)
		cl->u->conns--;
	outq_free(&cl->out);
	hsaqm_log_info("client %u (pid %u, uid %u, %s) leaves: %s", cl->id, cl->pid_ns, cl->uid,
		       cl->comm, why);
	if (cl->nqueues)
		d->st.clients_lost++;
	cl->dead = true;
	for (unsigned int s = 0; s < HSAQMD_SLOTS; s++)
		if (cl->slot[s])
			queue_free(d, cl->slot[s]);
	/* close() takes the fds out of the epoll set; events already fetched for this client
	 * are skipped by its dead flag, and it is freed after the batch (zombie list). */
	close(cl->fd);
	if (cl->efd_in >= 0)
		close(cl->efd_in);
	if (cl->efd_out >= 0)
		close(cl->efd_out);
	if (cl->shm)
		munmap(cl->shm, HSAQMD_SHM_SIZE);
	cl->shm = NULL;
	if (cl->prev)
		cl->prev->next = cl->next;
	else
		d->clients = cl->next;
	if (cl->next)
		cl->next->prev = cl->prev;
	if (cl->role == HSAQMD_ROLE_CTL)
		d->nctls--;
	else
		d->nclients--;
	cl->next = d->zombies;
	d->zombies = cl;
	/* The others may run now: resume them before anything else happens. */
	decide_all(d, false);
}

static void accept_clients(struct hsaqmd *d)
{
	for (;;) {
		struct ucred cred;
		socklen_t len = sizeof(cred);
		struct epoll_event ev;
		int fd = accept4(d->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR)
				hsaqm_log_warn("accept: %s", strerror(errno));
			return;
		}
		struct duid *u = NULL;
		const char *no = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0
					 ? strerror(errno) : admit(d, (uint32_t)cred.uid, &u);

		if (no) {
			/* Closed at once: the peer sees its connection reset, and the slot stays
			 * free for the others (a client retries with back-off). */
			hsaqm_log_warn("connection of uid %u refused: %s", (unsigned int)cred.uid, no);
			close(fd);
			continue;
		}
		struct dclient *cl = calloc(1, sizeof(*cl));

		if (!cl) {
			close(fd);
			continue;
		}
		cl->u = u;
		u->conns++;
		cl->privileged = uid_privileged((uint32_t)cred.uid);
		cl->fd = fd;
		cl->efd_in = cl->efd_out = -1;
		cl->pid_ns = (uint32_t)cred.pid;
		cl->uid = (uint32_t)cred.uid;
		cl->id = ++d->next_client_id;
		cl->role = HSAQMD_ROLE_CTL; /* until its hello says otherwise */
		cl->connected_ns = now_ns();
		cl->sock_w.kind = W_SOCK;
		cl->sock_w.cl = cl;
		cl->kick_w.kind = W_KICK;
		cl->kick_w.cl = cl;
		ev.events = EPOLLIN | EPOLLRDHUP;
		ev.data.ptr = &cl->sock_w;
		if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			u->conns--;
			close(fd);
			free(cl);
			continue;
		}
		cl->next = d->clients;
		if (d->clients)
			d->clients->prev = cl;
		d->clients = cl;
		d->nctls++;
		d->st.clients_total++;
	}
}

/* The command name from /proc (trusted: the kernel's) or, in another pid namespace where
 * the pid may not resolve, what the client said. Non-printable bytes become '?'. */
static void client_comm(struct dclient *cl, const char *said)
{
	char path[64], buf[HSAQMD_COMM_LEN];
	ssize_t r = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/comm", cl->pid_ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		r = read(fd, buf, HSAQMD_COMM_LEN - 1);
		close(fd);
	}
	if (r > 0) {
		buf[r] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
	} else {
		memcpy(buf, said, sizeof(buf)); /* NUL-terminated: the parser checked */
	}
	memcpy(cl->comm, buf, sizeof(cl->comm));
	for (char *p = cl->comm; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
}

static int shm_create(struct dclient *cl, int *memfd)
{
	int fd = memfd_create("hsaqmd-client", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *p;

	if (fd < 0)
		return -errno;
	/* Sealed to its size: a client cannot shrink it and make the daemon's reads fault. */
	if (ftruncate(fd, HSAQMD_SHM_SIZE) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	p = mmap(NULL, HSAQMD_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	cl->shm = p;
	cl->shm->magic = HSAQMD_MAGIC;
	cl->shm->version = HSAQMD_PROTO_VERSION;
	cl->shm->slots = HSAQMD_SLOTS;
	cl->shm->size = HSAQMD_SHM_SIZE;
	cl->shm->heartbeat_ms = HSAQMD_HEARTBEAT_MS;
	*memfd = fd;
	return 0;
}

static int on_hello(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	const struct hsaqmd_hello *h = &m->u.hello;
	struct hsaqmd_hello_ok ok = { 0 };
	char buf[HSAQMD_MSG_MAX];
	int fds[3], len, rc, memfd = -1;

	cl->hello = true;
	cl->pid = h->pid;
	cl->cap = hsaqmd_config_cap(&d->cfg, cl->uid);
	client_comm(cl, h->comm);
	cl->priority = h->priority > cl->cap ? cl->cap : h->priority;
	if (cl->priority != h->priority)
		hsaqm_log_warn("client %u (pid %u, uid %u): priority %d capped to %d", cl->id,
			       cl->pid_ns, cl->uid, h->priority, cl->priority);
	ok.client_id = cl->id;
	ok.priority = cl->priority;
	ok.daemon_pid = (uint32_t)getpid();
	if (h->role == HSAQMD_ROLE_CTL) {
		return send_msg(d, cl, HSAQMD_HELLO_OK, m->hdr.seq, &ok);
	}
	cl->role = HSAQMD_ROLE_CLIENT;
	d->nctls--;
	d->nclients++;
	rc = shm_create(cl, &memfd);
	if (rc < 0)
		return rc;
	cl->efd_in = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	cl->efd_out = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (cl->efd_in < 0 || cl->efd_out < 0) {
		close(memfd);
		return -EMFILE;
	}
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &cl->kick_w };

	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, cl->efd_in, &ev) < 0) {
		close(memfd);
		return -errno;
	}
	ok.slots = HSAQMD_SLOTS;
	ok.shm_size = HSAQMD_SHM_SIZE;
	fds[0] = memfd;
	fds[1] = cl->efd_in;
	fds[2] = cl->efd_out;
	len = hsaqmd_msg_build(buf, HSAQMD_HELLO_OK, m->hdr.seq, &ok);
	rc = send_fds(cl, buf, (size_t)len, fds, 3);
	close(memfd); /* the mapping keeps the memory; the client has its own fd */
	hsaqm_log_info("client %u: pid %u (%u here), uid %u, %s, priority %d", cl->id, cl->pid,
		       cl->pid_ns, cl->uid, cl->comm, cl->priority);
	return rc;
}

/* ---- which gpu_ids, how many: the device table is everyone's -------------------------- */

/* The gpu_ids of the node's GPUs, from the KFD topology (or the model's, `topology`). */
static void topo_load(struct hsaqmd *d)
{
	char path[512];
	struct dirent *e;
	DIR *dir;

	d->ntopo = 0;
	d->topo_read_ns = now_ns();
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
static bool gpu_id_allowed(struct hsaqmd *d, uint32_t gpu_id)
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
		if (now_ns() - d->topo_read_ns < 1000000000ull)
			return false;
		topo_load(d);
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

static int uid_quota(struct hsaqmd *d, struct dclient *cl, uint32_t gpu_id)
{
	struct ddev *dev = dev_find(d, gpu_id);
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

static int on_queue_add(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	const struct hsaqmd_queue_add *a = &m->u.queue_add;
	struct hsaqmd_queue_add_ok ok = { 0 };
	struct dqueue *q;
	struct ddev *dev;
	uint32_t s;

	if (cl->role != HSAQMD_ROLE_CLIENT)
		return send_result(d, cl, m->hdr.seq, -EPERM, 0);
	s = a->slot;
	if (cl->slot[s])
		return send_result(d, cl, m->hdr.seq, -EEXIST, 0);
	if (!gpu_id_allowed(d, a->gpu_id)) {
		d->st.refused_device++;
		hsaqm_log_warn("client %u (pid %u, uid %u): gpu_id %u is not a GPU of this node: "
			       "queue refused", cl->id, cl->pid_ns, cl->uid, a->gpu_id);
		return send_result(d, cl, m->hdr.seq, -ENODEV, 0);
	}
	if (uid_quota(d, cl, a->gpu_id)) {
		d->st.refused_quota++;
		hsaqm_log_warn("client %u (pid %u, uid %u): the user's queue or device quota is "
			       "reached: queue refused", cl->id, cl->pid_ns, cl->uid);
		return send_result(d, cl, m->hdr.seq, -EDQUOT, 0);
	}
	q = calloc(1, sizeof(*q));
	dev = q ? dev_get(d, a->gpu_id) : NULL;
	if (!q || !dev || dev_add_queue(dev, q) < 0) {
		free(q);
		if (dev)
			dev_maybe_free(d, dev);
		return send_result(d, cl, m->hdr.seq, -ENOMEM, 0);
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
	q->progress_ns = now_ns();
	cl->slot[s] = q;
	cl->nqueues++;
	cl->u->queues++;
	queue_command(d, q, false);
	d->st.commands--; /* not a change: the first word */
	/* TC3: the decision runs before the reply, so a queue created while its process is
	 * held starts held. */
	decide_all(d, false);
	ok.slot = s;
	ok.qid = q->qid;
	ok.cmd = q->cmd;
	return send_msg(d, cl, HSAQMD_QUEUE_ADD_OK, m->hdr.seq, &ok);
}

static struct dqueue *client_queue(struct dclient *cl, uint32_t slot)
{
	return cl->role == HSAQMD_ROLE_CLIENT && slot < HSAQMD_SLOTS ? cl->slot[slot] : NULL;
}

static int on_queue_del(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	struct dqueue *q = client_queue(cl, m->u.queue_del.slot);

	if (!q)
		return send_result(d, cl, m->hdr.seq, -ENOENT, 0);
	queue_free(d, q);
	decide_all(d, false);
	return send_result(d, cl, m->hdr.seq, 0, 0);
}

static int on_queue_set(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	const struct hsaqmd_queue_set *s = &m->u.queue_set;
	struct dqueue *q = client_queue(cl, s->slot);

	if (!q)
		return send_result(d, cl, m->hdr.seq, -ENOENT, 0);
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
	decide_all(d, false);
	return send_result(d, cl, m->hdr.seq, 0, 0);
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
		return send_result(d, cl, m->hdr.seq, -EPERM, 0);
	if (p > cl->cap)
		return send_result(d, cl, m->hdr.seq, -EPERM, cl->priority);
	client_set_priority(d, cl, p);
	decide_all(d, false);
	return send_result(d, cl, m->hdr.seq, 0, p);
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

static bool may_see(const struct dclient *req, const struct dclient *t)
{
	return hsaqmd_may_see(req, t);
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
			    !may_see(cl, t))
				continue;
			found++;
			rc = ctl_allowed(cl, t, c->priority);
			if (rc)
				break;
		}
		if (!found)
			return send_result(d, cl, m->hdr.seq, -ESRCH, 0);
		if (rc)
			return send_result(d, cl, m->hdr.seq, rc, 0);
		for (struct dclient *t = d->clients; t; t = t->next)
			if (t->role == HSAQMD_ROLE_CLIENT && t->pid_ns == c->target &&
			    may_see(cl, t))
				client_set_priority(d, t, c->priority);
		hsaqm_log_info("uid %u set pid %u's priority to %d", cl->uid, c->target, c->priority);
		decide_all(d, false);
		return send_result(d, cl, m->hdr.seq, 0, c->priority);
	}
	for (struct dclient *t = d->clients; t; t = t->next) {
		for (unsigned int s = 0; t->role == HSAQMD_ROLE_CLIENT && s < HSAQMD_SLOTS; s++) {
			struct dqueue *q = t->slot[s];

			if (!q || q->qid != c->target || !may_see(cl, t))
				continue;
			rc = ctl_allowed(cl, t, t->priority + c->priority);
			if (rc)
				return send_result(d, cl, m->hdr.seq, rc, 0);
			q->prio_adj = c->priority;
			q->dev->dirty = true;
			decide_all(d, false);
			return send_result(d, cl, m->hdr.seq, 0, effective_priority(q));
		}
	}
	return send_result(d, cl, m->hdr.seq, -ESRCH, 0);
}

static int on_list(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	struct hsaqmd_end end = { 0 };
	int rc;

	for (struct dclient *t = d->clients; t; t = t->next) {
		if (t->role != HSAQMD_ROLE_CLIENT)
			continue;
		if (!may_see(cl, t)) {
			end.hidden++;
			continue;
		}
		struct hsaqmd_list_proc p = {
			.client_id = t->id, .pid = t->pid, .pid_ns = t->pid_ns, .uid = t->uid,
			.priority = t->priority, .cap = t->cap, .nqueues = t->nqueues,
			.role = t->role, .connected_ns = t->connected_ns,
		};

		memcpy(p.comm, t->comm, sizeof(p.comm));
		rc = send_msg(d, cl, HSAQMD_LIST_PROC, m->hdr.seq, &p);
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
				.hsa_queue_id = q->hsa_qid, .priority = effective_priority(q),
				.prio_adj = q->prio_adj,
				.state = q->hold ? HSAQMD_QSTATE_PREEMPTED
						 : q->active ? HSAQMD_QSTATE_READY : HSAQMD_QSTATE_IDLE,
				.acked = hsaqm_load_acquire(&t->shm->slot[s].ack) == q->cmd,
				.group = q->group, .share = q->share, .preemptions = q->preemptions,
				.held_ns = q->held_ns + (q->hold ? now_ns() - q->hold_since_ns : 0),
				.stalls = q->stalls,
				/* Only a holder is stalled (check_progress()). */
				.stalled = q->stalled && !q->hold,
				/* Relaxed: the client's figure, shown as it is. */
				.dep_stalls = HSAQM_READ_ONCE(t->shm->dep_stalls[s]),
			};

			snprintf(lq.mech, sizeof(lq.mech), "%s",
				 q->mech[0] ? q->mech : hsaqm_level_name((enum hsaqm_level)q->level));

			rc = send_msg(d, cl, HSAQMD_LIST_QUEUE, m->hdr.seq, &lq);
			if (rc)
				return rc;
			end.count++;
		}
	}
	return send_msg(d, cl, HSAQMD_END, m->hdr.seq, &end);
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

/* Holds acked since their command are timed now, so figures read after include them. */
void hsaqmd_harvest_all(struct hsaqmd *d)
{
	for (size_t i = 0; i < d->ndevs; i++)
		for (size_t j = 0; j < d->devs[i]->n; j++)
			handoff_harvest(d, d->devs[i]->q[j]);
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
		return send_result(d, cl, m->hdr.seq, -ENOMEM, 0);
	for (size_t off = 0; !rc && off < len; off += HSAQMD_TEXT_MAX) {
		struct hsaqmd_text t = { 0 };

		t.len = (uint32_t)(len - off < HSAQMD_TEXT_MAX ? len - off : HSAQMD_TEXT_MAX);
		memcpy(t.text, text + off, t.len);
		rc = send_msg(d, cl, HSAQMD_TEXT, m->hdr.seq, &t);
		end.count++;
	}
	free(text);
	return rc ? rc : send_msg(d, cl, HSAQMD_END, m->hdr.seq, &end);
}

static int on_stats(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
{
	struct hsaqmd_stats_ok s;
	uint32_t queues = 0;

	hsaqmd_harvest_all(d);
	for (size_t i = 0; i < d->ndevs; i++)
		queues += (uint32_t)d->devs[i]->n;
	s = d->st;
	s.uptime_ns = now_ns() - d->start_ns;
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
	return send_msg(d, cl, HSAQMD_STATS_OK, m->hdr.seq, &s);
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
	rc = send_msg(d, cl, HSAQMD_POLICY_ENTRY, m->hdr.seq, &e);
	for (size_t i = 0; !rc && i < d->ndevs; i++) {
		policy_entry(&e, d->devs[i]->gpu_id, &d->devs[i]->cfg, d->devs[i]->n);
		rc = send_msg(d, cl, HSAQMD_POLICY_ENTRY, m->hdr.seq, &e);
		end.count++;
	}
	return rc ? rc : send_msg(d, cl, HSAQMD_END, m->hdr.seq, &end);
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
		return send_result(d, cl, m->hdr.seq, -EPERM, 0);
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
		struct ddev *dev = dev_get(d, e->gpu_id);

		if (!dev)
			return send_result(d, cl, m->hdr.seq, -ENOSPC, 0);
		dev->cfg = p;
		dev->own_policy = true;
		memset(&dev->st, 0, sizeof(dev->st));
		dev->dirty = true;
	}
	hsaqm_log_info("uid %u set the policy of %s to %s", cl->uid,
		       e->gpu_id == HSAQMD_ALL_GPUS ? "every device" : "one device",
		       hsaqm_policy_name(p.kind));
	decide_all(d, false);
	return send_result(d, cl, m->hdr.seq, 0, 0);
}

/* Returns < 0 when the client must go (malformed message, or its socket failed). */
static int handle_msg(struct hsaqmd *d, struct dclient *cl, const void *buf, size_t n)
{
	struct hsaqmd_msg m;
	int rc = hsaqmd_msg_parse(buf, n, &m);

	d->st.messages++;
	if (rc == -EPROTONOSUPPORT) {
		/* Say why in our own version, then close: the client can fall back. */
		memcpy(&m.hdr, buf, sizeof(m.hdr));
		send_result(d, cl, m.hdr.seq, -EPROTONOSUPPORT, HSAQMD_PROTO_VERSION);
		return rc;
	}
	if (rc < 0)
		return rc;
	if (!cl->hello) {
		if (m.hdr.type != HSAQMD_HELLO)
			return -EBADMSG;
		return on_hello(d, cl, &m);
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

static void on_sock(struct hsaqmd *d, struct dclient *cl, uint32_t events)
{
	/* One more than the largest message: a longer datagram shows up as truncated. */
	char buf[HSAQMD_MSG_MAX + 1];
	union {
		char buf[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr align;
	} ctrl;

	if (events & EPOLLOUT) {
		int rc = outq_flush(d, cl);

		if (rc < 0) {
			client_drop(d, cl, strerror(-rc));
			return;
		}
	}
	/* Replies wait: read nothing more until they are taken (sock_events). */
	for (int budget = 64; budget > 0 && !cl->dead && outq_empty(&cl->out); budget--) {
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl.buf,
				     .msg_controllen = sizeof(ctrl.buf) };
		ssize_t r = recvmsg(cl->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		bool fds = false;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (r <= 0) {
			client_drop(d, cl, r == 0 ? "disconnected" : strerror(errno));
			return;
		}
		/* Clients never send fds: close any, and count the message as malformed. */
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

				for (size_t i = 0; i < k; i++) {
					int fd;

					memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
					close(fd);
				}
			}
			fds = true;
		}
		if (fds || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
			d->st.bad_messages++;
			client_drop(d, cl, "malformed message (truncated, or carrying fds)");
			return;
		}
		int rc = handle_msg(d, cl, buf, (size_t)r);

		if (rc == -EBADMSG || rc == -EPROTONOSUPPORT) {
			d->st.bad_messages++;
			hsaqm_log_warn("client %u (pid %u, uid %u): %s message: closing", cl->id,
				       cl->pid_ns, cl->uid,
				       rc == -EBADMSG ? "malformed" : "unsupported protocol version");
			client_drop(d, cl, "malformed message");
			return;
		}
		if (rc < 0) {
			client_drop(d, cl, rc == -ENOBUFS ? "does not read its replies" : strerror(-rc));
			return;
		}
	}
	if (!cl->dead && (events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP))) {
		/* Read what it sent last (above), then let go. */
		client_drop(d, cl, "hung up");
	}
}

/* Reads a client's state words into its queues; true when one changed (its device is dirty). */
static bool scan_states(struct dclient *cl)
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
			q->progress_ns = now_ns();
			q->stalled = false;
			if (active) {
				/* After the acquire above: the stamp is stored before the word. */
				q->dev->trig = true;
				q->dev->trig_ready = HSAQM_READ_ONCE(cl->shm->stamp[s].ready_ns);
				q->dev->trig_seen_ns = now_ns();
			}
		}
	}
	return changed;
}

/* A client changed state words: read them all, decide the devices that changed. */
static void on_kick(struct hsaqmd *d, struct dclient *cl)
{
	uint64_t v;

	if (read(cl->efd_in, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	d->st.kicks_in++;
	/* Clears the flag before reading the words: a store after this point kicks again.
	 * acq_rel: the client's state stores (before its own exchange) are visible below.
	 * While polling the flag stays set instead: the loop reads the words anyway, and a
	 * set flag spares the client its eventfd write. */
	hsaqm_exchange(&cl->shm->kick_daemon, d->polling ? 1u : 0u);
	scan_states(cl);
	d->last_change_ns = now_ns();
	decide_all(d, false);
}

/*
 * Polling (docs/daemon.md "Busy-polling" and "Under load"): while two or more clients are
 * connected a submission in one may preempt another, and the wake-up of a sleeping daemon is
 * half of that path's cost. Polling keeps every client's kick flag set, so clients store
 * their state words without a syscall, and the daemon reads the words in a loop. Two ways:
 * busy_poll = yes polls for as long as two clients are connected (one core); spin_us = N
 * polls only for N us after the last change it saw (a bounded spin before sleeping: a burst
 * of submissions costs one wake-up, an idle node none). Otherwise it sleeps in epoll.
 */
static bool want_polling(const struct hsaqmd *d, uint64_t now)
{
	if (d->nclients < 2)
		return false;
	if (d->cfg.busy_poll)
		return true;
	return d->cfg.spin_us && now - d->last_change_ns < (uint64_t)d->cfg.spin_us * 1000u;
}

static void poll_switch(struct hsaqmd *d, bool on)
{
	d->polling = on;
	for (struct dclient *cl = d->clients; cl; cl = cl->next) {
		if (cl->role != HSAQMD_ROLE_CLIENT || cl->dead || !cl->shm)
			continue;
		/* Off: clear the flags before the final read, so a store after it kicks (as
		 * on_kick). On: a client that still finds the flag clear kicks once; on_kick
		 * then sets it. */
		hsaqm_exchange(&cl->shm->kick_daemon, on ? 1u : 0u);
		if (!on)
			scan_states(cl);
	}
	if (!on)
		decide_all(d, false);
	hsaqm_log_info("busy-polling %s (%u clients)", on ? "on" : "off", d->nclients);
}

/* Spins on the state words for up to POLL_EPOLL_NS (less at the end of a spin_us window),
 * then returns what epoll has. */
static int poll_spin(struct hsaqmd *d, struct epoll_event *evs, int maxevs)
{
	uint64_t now = now_ns(), until = now + POLL_EPOLL_NS;

	do {
		bool changed = false;

		for (struct dclient *cl = d->clients; cl; cl = cl->next)
			if (cl->role == HSAQMD_ROLE_CLIENT && !cl->dead && cl->shm)
				changed |= scan_states(cl);
		now = now_ns();
		if (changed) {
			d->last_change_ns = now;
			decide_all(d, false);
		}
		hsaqm_cpu_relax();
	} while (now < until && want_polling(d, now));
	return epoll_wait(d->epfd, evs, maxevs, 0);
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
static void check_progress(struct hsaqmd *d, struct dclient *cl, uint64_t now)
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
		hsaqm_log_notice(NULL, "hsaqmd: pid %u (uid %u, %s) queue q%u is ready but made no "
				 "progress for %llu ms while holding %u queue%s of %s %s: it holds "
				 "nobody until it moves", cl->pid_ns, cl->uid, cl->comm, q->qid,
				 (unsigned long long)((now - q->progress_ns) / 1000000ull), nheld,
				 nheld == 1 ? "" : "s", npids == 1 ? "pid" : "pids", who);
	}
}

/*
 * Every 100 ms: the heartbeat every client trusts its holds by, and the deadlines of
 * connections: a HELLO late, replies not read, progress not made.
 */
static void heartbeat(struct hsaqmd *d)
{
	uint64_t now = now_ns();
	uint64_t hello_ns = (uint64_t)d->cfg.hello_timeout_ms * 1000000ull;

	for (struct dclient *cl = d->clients, *next; cl; cl = next) {
		next = cl->next;
		if (cl->dead)
			continue;
		if (!cl->hello && now - cl->connected_ns > hello_ns) {
			d->st.refused_hello++;
			client_drop(d, cl, "no HELLO in time");
			continue;
		}
		if (!outq_empty(&cl->out) &&
		    now - cl->out.progress_ns > SLOW_READER_MS * 1000000ull) {
			d->st.refused_slow++;
			client_drop(d, cl, "does not read its replies");
			continue;
		}
		if (cl->role != HSAQMD_ROLE_CLIENT || !cl->shm)
			continue;
		/* Only the change matters: no other word rides on it. */
		hsaqm_fetch_add(&cl->shm->heartbeat, 1u);
		if (d->cfg.hold_progress_ms)
			check_progress(d, cl, now);
	}
	hsaqmd_http_tick(d, now);
	decide_all(d, false);
}

static void free_zombies(struct hsaqmd *d)
{
	hsaqmd_http_reap(d);
	while (d->zombies) {
		struct dclient *cl = d->zombies;

		d->zombies = cl->next;
		free(cl);
	}
}

/* ---- setting up ---------------------------------------------------------------------- */

/* The socket's directory: made when missing (one level), then checked like ssh-agent's. */
static int socket_dir(const struct hsaqmd *d, const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)], why[PATH_MAX + 96];
	char *slash;
	int rc;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		/* Others reach the socket through it (the socket's mode says who may connect);
		 * nobody but us may write in it. */
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			rc = -errno;
			fprintf(stderr, "hsaqmd: cannot create %s: %s\n", dir, strerror(-rc));
			return rc;
		}
	}
	rc = hsaqm_sock_dir_check(path, geteuid(), why, sizeof(why));
	if (rc == -EPERM)
		fprintf(stderr, "hsaqmd: refusing the socket %s%s%s: %s (another user could replace "
			"the socket with their own daemon)\n", path,
			d->cfg.socket_from[0] ? ", from " : " (the default)",
			d->cfg.socket_from, why);
	else if (rc < 0)
		fprintf(stderr, "hsaqmd: the directory of %s: %s\n", path, strerror(-rc));
	return rc;
}

/*
 * What is at the socket's path: nothing, or a socket nobody listens on (a daemon that died),
 * which is removed. Anything else stays where it is and the daemon refuses: a file at the
 * path is somebody's data, a listening socket somebody's daemon.
 */
static int socket_not_a_socket(const struct hsaqmd *d, const char *path)
{
	const char *from = d->cfg.socket_from;
	char advice[400];
	struct stat st;

	if (lstat(path, &st) < 0 || S_ISSOCK(st.st_mode))
		return 0;
	/* The advice names where the path came from: that is where it must change. */
	if (!strcmp(from, "--socket"))
		snprintf(advice, sizeof(advice), "give --socket the path of the socket itself");
	else if (from[0])
		snprintf(advice, sizeof(advice), "the path is %s: make it the path of the socket "
			 "itself", from);
	else
		snprintf(advice, sizeof(advice), "the path is the default: move that away, or "
			 "give --socket or socket = in the configuration another path");
	fprintf(stderr, "hsaqmd: %s is %s, not a socket: refusing to replace it (%s)\n", path,
		S_ISDIR(st.st_mode) ? "a directory" : "a file", advice);
	return -EEXIST;
}

static int socket_clear(const struct hsaqmd *d, const char *path, const struct sockaddr_un *sa)
{
	struct stat st;
	int fd;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "hsaqmd: %s: %s\n", path, strerror(errno));
		return -EIO;
	}
	if (socket_not_a_socket(d, path))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "hsaqmd: socket: %s\n", strerror(errno));
		return -EIO;
	}
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0) {
		fprintf(stderr, "hsaqmd: another daemon listens on %s\n", path);
		close(fd);
		return -EADDRINUSE;
	}
	close(fd);
	if (unlink(path) < 0 && errno != ENOENT) {
		fprintf(stderr, "hsaqmd: cannot remove the stale socket %s: %s\n", path,
			strerror(errno));
		return -errno;
	}
	return 0;
}

static int listen_socket(struct hsaqmd *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, rc;
	mode_t old;

	if (strlen(d->path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "hsaqmd: the socket path %s is longer than %zu bytes\n", d->path,
			sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, d->path);
	/* What is at the path first: a file or directory named by mistake is said as such. */
	if ((rc = socket_not_a_socket(d, d->path)) < 0 || (rc = socket_dir(d, d->path)) < 0 ||
	    (rc = socket_clear(d, d->path, &sa)) < 0)
		return rc;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		fprintf(stderr, "hsaqmd: socket: %s\n", strerror(-rc));
		return rc;
	}
	/* Bound with no permission at all, then given its mode: never briefly too open. */
	old = umask(0777);
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0 || chmod(d->path, d->cfg.socket_mode) < 0 ||
	    (d->cfg.socket_gid >= 0 && chown(d->path, (uid_t)-1, (gid_t)d->cfg.socket_gid) < 0) ||
	    listen(fd, 128) < 0) {
		rc = -errno;
		fprintf(stderr, "hsaqmd: cannot listen on %s: %s\n", d->path, strerror(errno));
		close(fd);
		return rc;
	}
	d->lfd = fd;
	return 0;
}

static int add_watch(struct hsaqmd *d, int fd, struct watch *w, enum watch_kind kind)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = w };

	w->kind = kind;
	return epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	/* Three fds per client (socket, two eventfds): take what the hard limit allows. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * SCHED_FIFO for the daemon's one thread (docs/daemon.md "Under load"), where permitted: on a
 * host whose cores are all busy, a reaction must not wait for a time slice. Never together
 * with polling (busy_poll, spin_us): a real-time thread that polls keeps its core from the
 * very threads a hand-off needs (on the 2-core development VM a 1 ms spin at SCHED_FIFO left
 * the low process held 1.2 ms instead of 0.14 ms: the model's engine waited behind it).
 */
static void go_realtime(struct hsaqmd *d)
{
	enum hsaqm_rt_mode mode = (enum hsaqm_rt_mode)d->cfg.realtime_mode;
	int rc;

	if (mode == HSAQM_RT_OFF)
		return;
	if (d->cfg.busy_poll || d->cfg.spin_us) {
		if (mode == HSAQM_RT_ON)
			fprintf(stderr, "hsaqmd: not real-time: %s would keep a core from the "
				"threads a hand-off needs at SCHED_FIFO\n",
				d->cfg.busy_poll ? "busy_poll" : "spin_us");
		return;
	}
	rc = hsaqm_rt_self(mode, d->cfg.realtime_prio);
	if (rc > 0) {
		d->rt_prio = rc;
		hsaqm_log_info("SCHED_FIFO priority %d", rc);
	} else {
		/* One line, also in auto mode: under load the reaction will wait for a slice. */
		fprintf(stderr, "hsaqmd: SCHED_FIFO not permitted (%s): reactions may wait behind "
			"busy cores; run as root or with CAP_SYS_NICE (realtime = off silences "
			"this)\n", strerror(-rc));
	}
}

/* The fds the loop waits on, the socket, the heartbeat. */
static int daemon_setup(struct hsaqmd *d, int ready_fd)
{
	const struct itimerspec beat = {
		.it_interval = { 0, HSAQMD_HEARTBEAT_MS * 1000000l },
		.it_value = { 0, HSAQMD_HEARTBEAT_MS * 1000000l },
	};
	sigset_t mask;
	int rc;

	raise_fd_limit();
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	d->uids = calloc(d->cfg.max_clients, sizeof(*d->uids));
	d->capuids = d->cfg.max_clients;
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	d->sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	d->hbfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (!d->uids) {
		fprintf(stderr, "hsaqmd: out of memory\n");
		return -ENOMEM;
	}
	if (d->epfd < 0 || d->tfd < 0 || d->sfd < 0 || d->hbfd < 0) {
		rc = -errno;
		fprintf(stderr, "hsaqmd: cannot set up its event loop: %s\n", strerror(-rc));
		return rc;
	}
	if ((rc = listen_socket(d)) < 0)
		return rc; /* it said why */
	if ((rc = add_watch(d, d->lfd, &d->listen_w, W_LISTEN)) < 0 ||
	    (rc = add_watch(d, d->tfd, &d->timer_w, W_TIMER)) < 0 ||
	    (rc = add_watch(d, d->sfd, &d->signal_w, W_SIGNAL)) < 0 ||
	    (rc = add_watch(d, d->hbfd, &d->beat_w, W_BEAT)) < 0 ||
	    (timerfd_settime(d->hbfd, 0, &beat, NULL) && (rc = -errno))) {
		fprintf(stderr, "hsaqmd: cannot set up its event loop: %s\n", strerror(-rc));
		return rc;
	}
	if ((rc = hsaqmd_http_setup(d)) < 0)
		return rc; /* it said why */
	if (d->cfg.gpu_ids_mode == HSAQMD_GPU_IDS_AUTO) {
		topo_load(d);
		if (!d->ntopo)
			hsaqm_log_info("no GPU in %s: gpu_ids are not checked (per-uid quotas only)",
				       d->cfg.topology);
	}
	go_realtime(d);
	hsaqm_log_info("listening on %s (mode %03o), policy %s", d->path, d->cfg.socket_mode,
		       hsaqm_policy_name(d->cfg.policy.kind));
	if (ready_fd >= 0) {
		if (write(ready_fd, "ready\n", 6) < 0)
			hsaqm_log_warn("ready fd: %s", strerror(errno));
		close(ready_fd);
	}
	return 0;
}

static void on_timer(struct hsaqmd *d)
{
	uint64_t v;

	if (read(d->tfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	d->armed = HSAQM_POLICY_NO_DEADLINE;
	decide_all(d, true);
}

static void on_beat(struct hsaqmd *d)
{
	uint64_t v;

	if (read(d->hbfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	heartbeat(d);
}

static void on_signal(struct hsaqmd *d)
{
	struct signalfd_siginfo si;

	if (read(d->sfd, &si, sizeof(si)) == sizeof(si)) {
		hsaqm_log_info("signal %u: leaving", si.ssi_signo);
		d->stop = true;
	}
}

/*
 * One batch of events. Kicks first: the reaction path (a state word changed) never waits
 * behind control traffic of the same batch, whose handlers never block either.
 */
static void dispatch(struct hsaqmd *d, struct epoll_event *evs, int n)
{
	for (int i = 0; i < n; i++) {
		struct watch *w = evs[i].data.ptr;

		if (w->kind == W_KICK && !w->cl->dead)
			on_kick(d, w->cl);
	}
	for (int i = 0; i < n && !d->stop; i++) {
		struct watch *w = evs[i].data.ptr;

		switch (w->kind) {
		case W_LISTEN:
			accept_clients(d);
			break;
		case W_SOCK:
			if (!w->cl->dead)
				on_sock(d, w->cl, evs[i].events);
			break;
		case W_KICK:
			break;
		case W_TIMER:
			on_timer(d);
			break;
		case W_BEAT:
			on_beat(d);
			break;
		case W_SIGNAL:
			on_signal(d);
			break;
		case W_HTTP_LISTEN:
			hsaqmd_http_accept(d);
			break;
		case W_HTTP:
			hsaqmd_http_event(d, w->hc, evs[i].events);
			break;
		}
	}
	free_zombies(d);
}

static int daemon_loop(struct hsaqmd *d)
{
	struct epoll_event evs[64];

	while (!d->stop) {
		bool want_poll = want_polling(d, now_ns());
		int n;

		if (want_poll != d->polling)
			poll_switch(d, want_poll);
		n = d->polling ? poll_spin(d, evs, 64) : epoll_wait(d->epfd, evs, 64, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int rc = -errno;

			fprintf(stderr, "hsaqmd: epoll_wait: %s\n", strerror(-rc));
			return rc;
		}
		dispatch(d, evs, n);
	}
	return 0;
}

/* Leaving: every client sees its socket hang up and resumes what we held (fail-open). */
static void daemon_teardown(struct hsaqmd *d)
{
	while (d->clients)
		client_drop(d, d->clients, "daemon stopping");
	free_zombies(d);
	hsaqmd_http_teardown(d);
	while (d->ndevs) {
		struct ddev *dev = d->devs[--d->ndevs];

		free(dev->q);
		free(dev->pq);
		free(dev);
	}
	free(d->devs);
	free(d->uids);
	free(d->topo_ids);
	if (d->lfd >= 0) {
		close(d->lfd);
		unlink(d->path);
	}
	if (d->epfd >= 0)
		close(d->epfd);
	if (d->tfd >= 0)
		close(d->tfd);
	if (d->sfd >= 0)
		close(d->sfd);
	if (d->hbfd >= 0)
		close(d->hbfd);
}

int hsaqmd_run(const struct hsaqmd_config *cfg, int ready_fd)
{
	struct hsaqmd *d = calloc(1, sizeof(*d));
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int rc;

	if (!d)
		return -ENOMEM;
	d->cfg = *cfg;
	d->lfd = d->epfd = d->tfd = d->sfd = d->hbfd = d->http_fd = -1;
	d->armed = HSAQM_POLICY_NO_DEADLINE;
	d->start_ns = now_ns();
	hsaqm_hist_init(&d->h_ready_seen);
	hsaqm_hist_init(&d->h_seen_sent);
	hsaqm_hist_init(&d->h_sent_acked);
	hsaqm_hist_init(&d->h_ready_acked);
	if (cfg->socket_path[0])
		snprintf(path, sizeof(path), "%s", cfg->socket_path);
	else if ((rc = hsaqm_sock_default_daemon(path, sizeof(path))) < 0) {
		fprintf(stderr, "hsaqmd: the default socket path is too long (XDG_RUNTIME_DIR)\n");
		goto out;
	}
	d->path = path;
	rc = daemon_setup(d, ready_fd);
	if (rc == 0)
		rc = daemon_loop(d);
out:
	daemon_teardown(d);
	free(d);
	return rc;
}
