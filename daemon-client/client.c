/* SPDX-License-Identifier: MIT */
/*
 * The client side of hsaqmd (hsaqm-dclient/daemon_client.h, docs/daemon.md).
 *
 * Two things never change for the life of a client, so that an application thread marking a
 * queue never touches memory or an fd that a reconnection just replaced:
 *   - the shared memory's address: reserved at open; each connection maps its memfd over it
 *     (MAP_FIXED), and a loss maps anonymous memory back over it;
 *   - the fd number the kicks go to: each connection's eventfd is dup2()ed onto it, and a
 *     loss dup2()s a local eventfd onto it.
 * And each queue keeps one slot (its state and command words) for its whole life: the daemon
 * accepts the slot the client chose, so a reconnection never moves a queue's words.
 *
 * Locks: cb_lock (held while callbacks run, so that a removed queue is never called back)
 * before lock (the connection, the queue list, requests). The fast path takes neither.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "hsaqm-common/barrier.h"
#include "hsaqm-dclient/daemon_client.h"
#include "hsaqm-common/log.h"
#include "hsaqm-dclient/path.h"
#include "hsaqm-dclient/proto.h"
#include "hsaqm-common/rt.h"

#define RECONNECT_MAX_MS 2000u

/*
 * The shared page is remapped in place (MAP_FIXED) while application threads store into it:
 * by design (the memory is mapped at every instant, the old or the new page takes the store,
 * and publish_state() re-stores what the new page must hold). ThreadSanitizer counts the
 * mapping as a write racing those stores; it is told to look away for the remap only.
 */
#if defined(__SANITIZE_THREAD__)
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
#define REMAP_BEGIN() __tsan_ignore_thread_begin()
#define REMAP_END() __tsan_ignore_thread_end()
#else
#define REMAP_BEGIN() do { } while (0)
#define REMAP_END() do { } while (0)
#endif

/* Map @fd (-1: anonymous memory) over the shared page at its fixed address. */
static int remap_page(void *at, int fd)
{
	void *p;

	REMAP_BEGIN();
	p = fd < 0 ? mmap(at, HSAQMD_SHM_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
		   : mmap(at, HSAQMD_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	REMAP_END();
	return p == MAP_FAILED ? -errno : 0;
}
#define PRIO_ADJ_MAX (2 * HSAQM_PRIORITY_MAX)

struct hsaqm_dclient_queue {
	struct hsaqm_dclient *c;
	struct hsaqm_dclient_queue *next, *prev;
	struct hsaqm_dclient_queue_config cfg;
	uint32_t slot;     /* for the queue's life */
	uint32_t ready;    /* what the application said last (the state word mirrors it) */
	uint32_t qid;      /* daemon-wide id; 0 = never registered */
	bool registered;   /* with the current connection */
	bool held;         /* the daemon holds it (and the callback was told) */
	bool removed;      /* removed from inside a callback: freed when the callbacks end */
	uint32_t cmd_seen; /* the last command word applied */
	char mech[HSAQMD_MECH_LEN];
};

struct hsaqm_dclient {
	pthread_mutex_t lock;
	pthread_mutex_t cb_lock;
	pthread_t thread;
	bool thread_started;
	bool stop;
	bool connected;
	int sock;
	int kick_fd;  /* fixed number: the daemon's kick eventfd, or local_fd's duplicate */
	int local_fd; /* a local eventfd standing in for the daemon's while disconnected */
	int in_fd;    /* the daemon kicks us here; -1 while disconnected */
	int wake_fd;  /* wakes the thread: a rescan, or stop */
	struct hsaqmd_shm *shm;
	uint32_t seq;
	int priority; /* wanted (sent at each hello) */
	int granted;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char name[HSAQMD_COMM_LEN];
	hsaqm_dclient_cb cb;
	void *arg;
	uint32_t reconnect_ms, timeout_ms;
	struct hsaqm_dclient_queue *queues;
	struct hsaqm_dclient_queue *grave; /* removed from a callback, not yet freed */
	struct hsaqm_dclient_queue *slots[HSAQMD_SLOTS];
	uint32_t hb_seen;    /* the daemon's heartbeat word when last seen changing */
	uint64_t hb_at_ms;   /* ... and when */
	bool named;          /* the socket path was named (any owner), not found by default */
	uint32_t flags;
	int rt;              /* the thread's SCHED_FIFO priority, 0 none, -EPERM refused */
};

/* One action the thread calls back once the locks it read under are dropped. */
struct action {
	enum hsaqm_dclient_event ev;
	struct hsaqm_dclient_queue *q;
	uint32_t cmd;
	bool ack;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The low 32 bits of CLOCK_MONOTONIC in ns: the hand-off stamps' unit (hsaqm-dclient/proto.h). */
static uint32_t stamp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
}

/*
 * Acknowledge @cmd on @slot. The ack of a hold is stamped first: the daemon reads the stamp
 * after it sees the ack (release/acquire on the ack word) to time its hand-off.
 */
static void ack_store(struct hsaqm_dclient *c, uint32_t slot, uint32_t cmd)
{
	if (cmd & HSAQMD_CMD_HOLD)
		HSAQM_WRITE_ONCE(c->shm->stamp[slot].ack_ns, stamp_now());
	/* Release: the stamp above before the ack the daemon acquires. */
	hsaqm_store_release(&c->shm->slot[slot].ack, cmd);
}

/* ---- the socket ------------------------------------------------------------------------ */

static int connect_path(const char *path, bool named)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char why[PATH_MAX + 96];
	int fd, rc;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	/* A socket another user could have put there is not our daemon (hsaqm-dclient/path.h). */
	rc = hsaqm_sock_dir_check(path, named ? (uid_t)-1 : geteuid(), why, sizeof(why));
	if (rc == -EPERM) {
		hsaqm_log_warn("hsaqmd client: not connecting to %s: %s", path, why);
		return rc;
	}
	if (rc < 0) /* the directory is not there: no daemon */
		return -ENOENT;
	/* Non-blocking: a daemon whose backlog is full answers EAGAIN at once instead of
	 * holding the caller (a queue creation) for as long as it stays full. */
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		close(fd);
		/* No daemon: whatever the reason, the caller's answer is the same. */
		return rc == -ECONNREFUSED || rc == -ENOENT || rc == -ENOTDIR ? -ENOENT : rc;
	}
	/* Requests wait for their replies with poll() and a deadline (request()). */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/*
 * Send one request and wait for its reply (matched by seq: a reply to an earlier request
 * that timed out is skipped). @fds receives up to 3 fds when the reply carries them.
 * Called with c->lock held.
 */
static int request(struct hsaqm_dclient *c, unsigned int type, const void *body,
		   struct hsaqmd_msg *reply, int *fds, int *nfds)
{
	char buf[HSAQMD_MSG_MAX + 1];
	uint32_t seq = ++c->seq;
	uint64_t deadline;
	int len = hsaqmd_msg_build(buf, type, seq, body);

	if (nfds)
		*nfds = 0;
	if (len < 0)
		return len;
	if (c->sock < 0)
		return -ENOTCONN;
	if (send(c->sock, buf, (size_t)len, MSG_NOSIGNAL) != len)
		return -ECONNRESET;
	deadline = now_ms() + c->timeout_ms;
	for (;;) {
		union {
			char buf[CMSG_SPACE(3 * sizeof(int))];
			struct cmsghdr align;
		} ctrl;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl.buf,
				     .msg_controllen = sizeof(ctrl.buf) };
		struct pollfd pfd = { .fd = c->sock, .events = POLLIN };
		uint64_t now = now_ms();
		int got = 0, got_fds[3];

		if (now >= deadline)
			return -ETIMEDOUT;
		int pr = poll(&pfd, 1, (int)(deadline - now));

		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return pr == 0 ? -ETIMEDOUT : -errno;
		ssize_t r = recvmsg(c->sock, &mh, MSG_CMSG_CLOEXEC);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -ECONNRESET;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
				continue;
			size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < k; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
				if (got < 3)
					got_fds[got++] = fd;
				else
					close(fd);
			}
		}
		int rc = hsaqmd_msg_parse(buf, (size_t)r, reply);

		if (rc == 0 && reply->hdr.seq == seq && fds && nfds) {
			memcpy(fds, got_fds, (size_t)got * sizeof(int));
			*nfds = got;
			got = 0;
		}
		while (got)
			close(got_fds[--got]);
		if (rc < 0)
			return -EPROTO; /* the daemon said something we cannot read: leave */
		if (reply->hdr.seq != seq)
			continue;
		if (reply->hdr.type == HSAQMD_RESULT && reply->u.result.status == -EPROTONOSUPPORT)
			return -EPROTO;
		return 0;
	}
}

/* A RESULT's status, or 0 when the reply is the expected type. */
static int reply_status(const struct hsaqmd_msg *m, unsigned int want)
{
	if (m->hdr.type == HSAQMD_RESULT)
		return m->u.result.status ? m->u.result.status
					  : want == HSAQMD_RESULT ? 0 : -EPROTO;
	return m->hdr.type == want ? 0 : -EPROTO;
}

/* ---- queues on the wire ---------------------------------------------------------------- */

/* Mirror the application's ready flags into the state words (after a new mapping). The
 * application may mark concurrently: recheck after the store, so the last word written
 * is the last value it set. */
static void publish_state(struct hsaqm_dclient *c, struct hsaqm_dclient_queue *q)
{
	uint32_t r;

	do {
		r = HSAQM_READ_ONCE(q->ready);
		hsaqm_store_release(&c->shm->slot[q->slot].state, r);
		/* Orders our store before the re-read; pairs with the fence in queue_mark(). */
		hsaqm_smp_mb();
	} while (HSAQM_READ_ONCE(q->ready) != r);
}

static int queue_register(struct hsaqm_dclient *c, struct hsaqm_dclient_queue *q)
{
	struct hsaqmd_queue_add a = {
		.gpu_id = q->cfg.gpu_id, .kfd_queue_id = q->cfg.kfd_queue_id,
		.hsa_queue_id = q->cfg.hsa_queue_id, .level = (uint32_t)q->cfg.level,
		.prio_adj = q->cfg.prio_adj, .group = q->cfg.group,
		.share = q->cfg.share_permille, .slot = q->slot,
	};

	memcpy(a.mech, q->mech, sizeof(a.mech));
	struct hsaqmd_msg m;
	int rc = request(c, HSAQMD_QUEUE_ADD, &a, &m, NULL, NULL);

	if (rc < 0)
		return rc;
	rc = reply_status(&m, HSAQMD_QUEUE_ADD_OK);
	if (rc < 0)
		return rc;
	q->qid = m.u.queue_add_ok.qid;
	q->cmd_seen = m.u.queue_add_ok.cmd;
	q->registered = true;
	return 0;
}

/* ---- connection ---------------------------------------------------------------------- */

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Put the local stand-ins back: anonymous memory at the shared address, the local eventfd
 * at the kick fd. Stray stores and kicks of application threads land there harmlessly. */
static void disconnect_locked(struct hsaqm_dclient *c)
{
	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
	if (c->in_fd >= 0)
		close(c->in_fd);
	c->in_fd = -1;
	c->connected = false;
	if (remap_page(c->shm, -1) < 0)
		hsaqm_log_err("hsaqmd client: cannot remap its memory: %s", strerror(errno));
	/* Nobody listens: a kick would only fill the local eventfd. */
	hsaqm_store_relaxed(&c->shm->kick_daemon, 1u);
	dup3(c->local_fd, c->kick_fd, O_CLOEXEC); /* dup2 would drop close-on-exec */
	for (struct hsaqm_dclient_queue *q = c->queues; q; q = q->next)
		q->registered = false;
}

/*
 * Connect, say hello, map the shared memory, register every queue. Called with c->lock
 * held. Appends a PREEMPT action for each queue that starts held.
 */
static int connect_locked(struct hsaqm_dclient *c, struct action *acts, size_t *nacts)
{
	struct hsaqmd_hello h = { .role = HSAQMD_ROLE_CLIENT, .priority = c->priority,
				  .pid = (uint32_t)getpid() };
	struct hsaqmd_msg m;
	int fds[3], nfds = 0, rc, fd;

	fd = connect_path(c->path, c->named);
	if (fd < 0)
		return fd;
	c->sock = fd;
	memcpy(h.comm, c->name, sizeof(h.comm));
	rc = request(c, HSAQMD_HELLO, &h, &m, fds, &nfds);
	if (rc == 0)
		rc = reply_status(&m, HSAQMD_HELLO_OK);
	if (rc == 0 && (nfds != 3 || m.u.hello_ok.shm_size != HSAQMD_SHM_SIZE ||
			m.u.hello_ok.slots != HSAQMD_SLOTS))
		rc = -EPROTO;
	if (rc == 0)
		rc = remap_page(c->shm, fds[0]);
	if (rc == 0 && dup3(fds[1], c->kick_fd, O_CLOEXEC) < 0)
		rc = -errno;
	for (int i = 0; i < nfds; i++)
		if (i != 2 || rc)
			close(fds[i]);
	if (rc) {
		disconnect_locked(c);
		return rc;
	}
	c->in_fd = fds[2];
	set_nonblock(c->in_fd);
	c->granted = m.u.hello_ok.priority;
	for (struct hsaqm_dclient_queue *q = c->queues; q; q = q->next)
		publish_state(c, q);
	for (struct hsaqm_dclient_queue *q = c->queues; q; q = q->next) {
		rc = queue_register(c, q);
		if (rc < 0) {
			hsaqm_log_warn("hsaqmd client: registering queue slot %u: %s", q->slot,
				       strerror(-rc));
			disconnect_locked(c);
			return rc;
		}
		/* The application was told nothing is held while we were away: say it now. */
		if (q->cmd_seen & HSAQMD_CMD_HOLD) {
			q->held = true;
			acts[(*nacts)++] = (struct action){ HSAQM_DCLIENT_PREEMPT, q, q->cmd_seen, true };
		} else {
			ack_store(c, q->slot, q->cmd_seen);
		}
	}
	c->connected = true;
	/* Acquire: pairs with the daemon's release of its heartbeat (a count; orders nothing more). */
	c->hb_seen = hsaqm_load_acquire(&c->shm->heartbeat);
	c->hb_at_ms = now_ms();
	return 0;
}

/* ---- the client's thread ---------------------------------------------------------------- */

/* Called with c->lock held: a queue is held by the daemon. */
static bool any_held_locked(const struct hsaqm_dclient *c)
{
	for (const struct hsaqm_dclient_queue *q = c->queues; q; q = q->next)
		if (q->held)
			return true;
	return false;
}

/*
 * Called with c->lock held, connected: whether the daemon's heartbeat stopped while it holds
 * some of our queues (a daemon stopped with SIGSTOP, or hung, keeps its socket open: only
 * the heartbeat tells). A daemon without a heartbeat (heartbeat_ms 0) is never judged.
 */
static bool heartbeat_stale_locked(struct hsaqm_dclient *c)
{
	/* Acquire: as in the connect path, the daemon's heartbeat release. */
	uint32_t hb = hsaqm_load_acquire(&c->shm->heartbeat);
	uint64_t now = now_ms();

	if (hb != c->hb_seen || !any_held_locked(c)) {
		/* Alive, or nothing at stake: measure staleness from here. */
		c->hb_seen = hb;
		c->hb_at_ms = now;
		return false;
	}
	return c->shm->heartbeat_ms && now - c->hb_at_ms > HSAQMD_HEARTBEAT_STALE_MS;
}

static void run_actions(struct hsaqm_dclient *c, const struct action *acts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct action *a = &acts[i];

		/* An earlier callback of this batch removed it: no more news for it. */
		if (a->q && a->q->removed)
			continue;
		if (c->cb)
			c->cb(a->ev, a->q, a->q ? a->q->cfg.arg : NULL, c->arg);
		/* The daemon reads the ack as "its gates are closed": only after the callback.
		 * Release: whatever the callback stored is visible before the ack. */
		if (a->ack && !a->q->removed)
			ack_store(c, a->q->slot, a->cmd);
	}
	/* Only this thread runs callbacks, and it holds cb_lock: nobody else sees the grave. */
	while (c->grave) {
		struct hsaqm_dclient_queue *q = c->grave;

		c->grave = q->next;
		free(q);
	}
}

/* Apply the command words that changed (cb_lock held). */
static void scan(struct hsaqm_dclient *c)
{
	struct action acts[HSAQMD_SLOTS];
	size_t n = 0;

	pthread_mutex_lock(&c->lock);
	if (!c->connected) {
		pthread_mutex_unlock(&c->lock);
		return;
	}
	/* Clear the flag before reading: a command written after this kicks again. acq_rel:
	 * the daemon's command stores (before its own exchange) are visible below. */
	hsaqm_exchange(&c->shm->kick_client, 0u);
	for (struct hsaqm_dclient_queue *q = c->queues; q; q = q->next) {
		if (!q->registered)
			continue;
		/* Acquire: pairs with the daemon's release of the command (its stamp written before). */
		uint32_t cmd = hsaqm_load_acquire(&c->shm->slot[q->slot].cmd);
		bool hold = cmd & HSAQMD_CMD_HOLD;

		if (cmd == q->cmd_seen)
			continue;
		q->cmd_seen = cmd;
		if (hold != q->held) {
			q->held = hold;
			acts[n++] = (struct action){ hold ? HSAQM_DCLIENT_PREEMPT : HSAQM_DCLIENT_RESUME,
						     q, cmd, true };
		} else {
			/* A command that changed twice back to where it was: nothing to do. */
			ack_store(c, q->slot, cmd);
		}
	}
	pthread_mutex_unlock(&c->lock);
	run_actions(c, acts, n);
}

/* The daemon is gone: resume everything it held, then say so (cb_lock held). */
static void lost(struct hsaqm_dclient *c, const char *why)
{
	struct action acts[HSAQMD_SLOTS + 1];
	size_t n = 0;

	pthread_mutex_lock(&c->lock);
	if (!c->connected) {
		pthread_mutex_unlock(&c->lock);
		return;
	}
	disconnect_locked(c);
	for (struct hsaqm_dclient_queue *q = c->queues; q; q = q->next) {
		if (q->held) {
			q->held = false;
			acts[n++] = (struct action){ HSAQM_DCLIENT_RESUME, q, 0, false };
		}
	}
	acts[n++] = (struct action){ HSAQM_DCLIENT_LOST, NULL, 0, false };
	pthread_mutex_unlock(&c->lock);
	hsaqm_log_warn("hsaqmd client: %s; scheduling locally", why);
	run_actions(c, acts, n);
}

static void drain(int fd)
{
	uint64_t v;

	while (read(fd, &v, sizeof(v)) == sizeof(v))
		;
}

static void *client_thread(void *arg)
{
	struct hsaqm_dclient *c = arg;
	uint32_t backoff = c->reconnect_ms;

	prctl(PR_SET_NAME, "hsaqm-dclient", 0, 0, 0);
	{
		/* Its wake-up is half of a hand-off: on a host whose cores are all busy it must
		 * not wait for a time slice (hsaqm-common/rt.h). Quietly as started when refused. */
		int prio = HSAQM_RT_PRIO_CLIENT;
		enum hsaqm_rt_mode mode = hsaqm_rt_from_env(&prio, NULL);
		int rt = hsaqm_rt_self(mode, prio);

		pthread_mutex_lock(&c->lock);
		c->rt = rt;
		pthread_mutex_unlock(&c->lock);
		if (rt < 0)
			hsaqm_log_info("hsaqmd client: SCHED_FIFO not permitted (%s)", strerror(-rt));
	}
	for (;;) {
		struct pollfd pfd[3];
		int n = 0, timeout = -1;

		pthread_mutex_lock(&c->lock);
		if (c->stop) {
			pthread_mutex_unlock(&c->lock);
			break;
		}
		pfd[n++] = (struct pollfd){ .fd = c->wake_fd, .events = POLLIN };
		if (c->connected) {
			/* No POLLIN on the socket: replies belong to whoever asked; we only watch
			 * for the daemon hanging up. */
			pfd[n++] = (struct pollfd){ .fd = c->sock, .events = POLLRDHUP };
			pfd[n++] = (struct pollfd){ .fd = c->in_fd, .events = POLLIN };
			/* Held: look at the daemon's heartbeat every period (fail-open on a hang). */
			if (c->shm->heartbeat_ms && any_held_locked(c))
				timeout = (int)c->shm->heartbeat_ms;
		} else {
			timeout = (int)backoff;
		}
		pthread_mutex_unlock(&c->lock);

		int pr = poll(pfd, (nfds_t)n, timeout);

		if (pr < 0 && errno != EINTR)
			break;
		if (pfd[0].revents & POLLIN)
			drain(c->wake_fd);
		pthread_mutex_lock(&c->cb_lock);
		if (n == 1) {
			/* Disconnected: the timeout (or a wake) is the moment to try again. */
			struct action acts[HSAQMD_SLOTS + 1];
			size_t na = 1;
			int rc = -ENOTCONN;

			pthread_mutex_lock(&c->lock);
			if (!c->stop && pr == 0) {
				acts[0] = (struct action){ HSAQM_DCLIENT_CONNECTED, NULL, 0, false };
				rc = connect_locked(c, acts, &na);
			}
			pthread_mutex_unlock(&c->lock);
			if (rc == 0) {
				hsaqm_log_info("hsaqmd client: connected again");
				backoff = c->reconnect_ms;
				run_actions(c, acts, na);
			} else if (pr == 0) {
				backoff = backoff * 2 > RECONNECT_MAX_MS ? RECONNECT_MAX_MS
									 : backoff * 2;
			}
		} else if (pfd[1].revents & (POLLHUP | POLLERR | POLLRDHUP | POLLNVAL)) {
			lost(c, "the daemon went away");
		} else {
			bool stale;

			if (pfd[2].revents & POLLIN)
				drain(pfd[2].fd);
			scan(c);
			pthread_mutex_lock(&c->lock);
			stale = c->connected && heartbeat_stale_locked(c);
			pthread_mutex_unlock(&c->lock);
			if (stale)
				lost(c, "the daemon stopped answering (no heartbeat while it holds "
					"queues)");
		}
		pthread_mutex_unlock(&c->cb_lock);
	}
	return NULL;
}

static void wake_thread(struct hsaqm_dclient *c)
{
	uint64_t one = 1;

	if (write(c->wake_fd, &one, sizeof(one)) < 0)
		hsaqm_log_debug("wake: %s", strerror(errno));
}

/* ---- public API ------------------------------------------------------------------------ */

static int pick_path(const struct hsaqm_dclient_config *cfg, char *path, size_t size,
		     bool *named)
{
	int n;

	if (!cfg->socket_path)
		return hsaqm_sock_find(path, size, named);
	*named = true;
	n = snprintf(path, size, "%s", cfg->socket_path);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Whether a failed first connection is one to keep trying in the background: a socket is
 * there (a daemon, busy or refusing us for now), as opposed to no daemon at all. */
static bool retry_later(const struct hsaqm_dclient *c, int rc)
{
	struct stat st;

	if (!(c->flags & HSAQM_DCLIENT_RETRY) || rc == -EPERM || rc == -EPROTO ||
	    rc == -EINVAL || rc == -ENAMETOOLONG)
		return false;
	return stat(c->path, &st) == 0 && S_ISSOCK(st.st_mode);
}

static void client_free(struct hsaqm_dclient *c)
{
	if (c->sock >= 0)
		close(c->sock);
	if (c->in_fd >= 0)
		close(c->in_fd);
	if (c->kick_fd >= 0)
		close(c->kick_fd);
	if (c->local_fd >= 0)
		close(c->local_fd);
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	if (c->shm)
		munmap(c->shm, HSAQMD_SHM_SIZE);
	while (c->queues) {
		struct hsaqm_dclient_queue *q = c->queues;

		c->queues = q->next;
		free(q);
	}
	while (c->grave) {
		struct hsaqm_dclient_queue *q = c->grave;

		c->grave = q->next;
		free(q);
	}
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->cb_lock);
	free(c);
}

/*
 * A bad HSAQM_REALTIME, said once as every other variable's, when the open fails: no thread
 * of ours then runs at all, and the user's typo must not pass unseen. Once connected the
 * tool says it itself, with whether SCHED_FIFO was permitted (hsa-layer/tool/tool_node.c),
 * so this stays quiet then: one line either way.
 */
static void realtime_bad_notice(void)
{
	static int said;
	int prio = HSAQM_RT_PRIO_CLIENT, bad = 0;

	hsaqm_rt_from_env(&prio, &bad);
	if (bad)
		hsaqm_log_notice(&said, "HSAQM_REALTIME=\"%s\" is not valid (auto, on, off or "
				 "1..99): using auto", getenv("HSAQM_REALTIME"));
}

int hsaqm_dclient_open(const struct hsaqm_dclient_config *cfg, struct hsaqm_dclient **out)
{
	struct hsaqm_dclient *c;
	struct action acts[1];
	size_t na = 0;
	sigset_t all, old;
	int rc;

	if (!cfg || !out || cfg->priority < HSAQM_PRIORITY_MIN ||
	    cfg->priority > HSAQM_PRIORITY_MAX)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->sock = c->in_fd = -1;
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->cb_lock, NULL);
	c->priority = c->granted = cfg->priority;
	c->cb = cfg->callback;
	c->arg = cfg->arg;
	c->reconnect_ms = cfg->reconnect_ms ? cfg->reconnect_ms : 100;
	c->timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : 2000;
	c->flags = cfg->flags;
	if (cfg->name)
		snprintf(c->name, sizeof(c->name), "%s", cfg->name);
	else
		prctl(PR_GET_NAME, c->name, 0, 0, 0);
	c->name[sizeof(c->name) - 1] = '\0';
	rc = pick_path(cfg, c->path, sizeof(c->path), &c->named);
	c->local_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	c->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	c->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	c->shm = mmap(NULL, HSAQMD_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (c->shm == MAP_FAILED)
		c->shm = NULL;
	if (rc == 0 && (c->local_fd < 0 || c->kick_fd < 0 || c->wake_fd < 0 || !c->shm))
		rc = -ENOMEM;
	if (rc == 0) {
		pthread_mutex_lock(&c->lock);
		rc = connect_locked(c, acts, &na);
		pthread_mutex_unlock(&c->lock);
		/* Refused for now (a limit, a busy daemon): the thread keeps trying. */
		if (rc && retry_later(c, rc)) {
			hsaqm_log_info("hsaqmd client: %s refused us (%s): trying again in the "
				       "background", c->path, strerror(-rc));
			pthread_mutex_lock(&c->lock);
			disconnect_locked(c); /* the stand-ins, as after a loss */
			pthread_mutex_unlock(&c->lock);
			rc = 0;
		}
	}
	if (rc == 0) {
		/* The thread takes no signal of the application's. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		rc = -pthread_create(&c->thread, NULL, client_thread, c);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		c->thread_started = rc == 0;
	}
	if (rc) {
		client_free(c);
		realtime_bad_notice();
		return rc;
	}
	*out = c;
	return 0;
}

void hsaqm_dclient_close(struct hsaqm_dclient *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_mutex_unlock(&c->lock);
	wake_thread(c);
	if (c->thread_started)
		pthread_join(c->thread, NULL);
	/* Closing the socket is the goodbye: the daemon drops our queues and decides again. */
	client_free(c);
}

int hsaqm_dclient_set_priority(struct hsaqm_dclient *c, int priority, int *granted)
{
	struct hsaqmd_proc_set p = { .priority = priority };
	struct hsaqmd_msg m;
	int rc = 0;

	if (!c || priority < HSAQM_PRIORITY_MIN || priority > HSAQM_PRIORITY_MAX)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	if (c->connected && request(c, HSAQMD_PROC_SET, &p, &m, NULL, NULL) == 0) {
		rc = reply_status(&m, HSAQMD_RESULT);
		if (rc == 0)
			c->granted = m.u.result.value;
	} else if (!c->connected) {
		c->granted = priority;
	}
	if (rc == 0)
		c->priority = priority;
	if (granted)
		*granted = c->granted;
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int hsaqm_dclient_connected(struct hsaqm_dclient *c)
{
	int v;

	if (!c)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	v = c->connected;
	pthread_mutex_unlock(&c->lock);
	return v;
}

static bool mech_ok(const char *m)
{
	size_t n = 0;

	for (; m && m[n]; n++)
		if (n + 1 >= HSAQMD_MECH_LEN ||
		    !((m[n] >= 'a' && m[n] <= 'z') || (m[n] >= '0' && m[n] <= '9') || m[n] == '_'))
			return false;
	return true;
}

static int queue_config_ok(const struct hsaqm_dclient_queue_config *qc)
{
	return qc && qc->gpu_id != HSAQMD_ALL_GPUS && (unsigned int)qc->level <= HSAQM_LEVEL_3 &&
	       qc->prio_adj >= -PRIO_ADJ_MAX && qc->prio_adj <= PRIO_ADJ_MAX &&
	       qc->share_permille <= HSAQM_SHARE_MAX && mech_ok(qc->mechanism);
}

static void mech_copy(char *dst, const char *m)
{
	memset(dst, 0, HSAQMD_MECH_LEN);
	if (m)
		memcpy(dst, m, strlen(m)); /* mech_ok: shorter than the field */
}

/* Takes @q off the client's list (c->lock held). */
static void queue_unlink_locked(struct hsaqm_dclient *c, struct hsaqm_dclient_queue *q)
{
	if (q->prev)
		q->prev->next = q->next;
	else
		c->queues = q->next;
	if (q->next)
		q->next->prev = q->prev;
}

int hsaqm_dclient_queue_add(struct hsaqm_dclient *c, const struct hsaqm_dclient_queue_config *qc,
			    struct hsaqm_dclient_queue **out, int *held)
{
	struct hsaqm_dclient_queue *q;
	uint32_t s;
	int rc = 0;

	if (!c || !out || !queue_config_ok(qc))
		return -EINVAL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->c = c;
	q->cfg = *qc;
	q->cfg.mechanism = NULL; /* the caller's string may go; the copy stays */
	mech_copy(q->mech, qc->mechanism);
	pthread_mutex_lock(&c->lock);
	for (s = 0; s < HSAQMD_SLOTS && c->slots[s]; s++)
		;
	if (s == HSAQMD_SLOTS) {
		pthread_mutex_unlock(&c->lock);
		free(q);
		return -ENOSPC;
	}
	q->slot = s;
	c->slots[s] = q;
	q->next = c->queues;
	if (c->queues)
		c->queues->prev = q;
	c->queues = q;
	if (c->connected) {
		/* A new queue is idle; its slot may hold an earlier queue's word. */
		publish_state(c, q);
		rc = queue_register(c, q);
		if (rc == -ECONNRESET || rc == -ETIMEDOUT || rc == -ENOTCONN) {
			rc = 0; /* the thread sees the loss and registers it when it reconnects */
		} else if (rc == 0) {
			q->held = q->cmd_seen & HSAQMD_CMD_HOLD;
			ack_store(c, s, q->cmd_seen);
		}
	}
	if (rc) {
		c->slots[s] = NULL;
		queue_unlink_locked(c, q);
		pthread_mutex_unlock(&c->lock);
		free(q);
		return rc;
	}
	if (held)
		*held = q->held;
	pthread_mutex_unlock(&c->lock);
	/* A command may have changed between the daemon's reply and our noting it. */
	wake_thread(c);
	*out = q;
	return 0;
}

int hsaqm_dclient_queue_update(struct hsaqm_dclient_queue *q,
			       const struct hsaqm_dclient_queue_config *qc)
{
	struct hsaqm_dclient *c;
	struct hsaqmd_msg m;
	int rc = 0;

	if (!q || !queue_config_ok(qc))
		return -EINVAL;
	c = q->c;
	pthread_mutex_lock(&c->lock);
	q->cfg.kfd_queue_id = qc->kfd_queue_id;
	q->cfg.level = qc->level;
	q->cfg.prio_adj = qc->prio_adj;
	q->cfg.group = qc->group;
	q->cfg.share_permille = qc->share_permille;
	q->cfg.arg = qc->arg;
	mech_copy(q->mech, qc->mechanism);
	if (c->connected && q->registered) {
		struct hsaqmd_queue_set s = {
			.slot = q->slot, .what = HSAQMD_SET_ALL, .kfd_queue_id = qc->kfd_queue_id,
			.level = (uint32_t)qc->level, .prio_adj = qc->prio_adj, .group = qc->group,
			.share = qc->share_permille,
		};

		memcpy(s.mech, q->mech, sizeof(s.mech));

		if (request(c, HSAQMD_QUEUE_SET, &s, &m, NULL, NULL) == 0)
			rc = reply_status(&m, HSAQMD_RESULT);
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int hsaqm_dclient_queue_mark(struct hsaqm_dclient_queue *q, bool ready)
{
	struct hsaqm_dclient *c;
	uint32_t r = ready ? 1u : 0u;
	uint64_t one = 1;

	if (!q)
		return -EINVAL;
	c = q->c;
	if (HSAQM_READ_ONCE(q->ready) == r)
		return 0;
	HSAQM_WRITE_ONCE(q->ready, r);
	/* Orders the flag before the word: a reconnection's publish_state() that stored an
	 * older value after ours re-reads the flag after its own fence and stores again. */
	hsaqm_smp_mb();
	/* The slot never moves and the memory is always mapped (the daemon's, or a stand-in).
	 * The stamp goes first: the daemon reads it after the word (release/acquire). */
	if (r)
		HSAQM_WRITE_ONCE(c->shm->stamp[q->slot].ready_ns, stamp_now());
	hsaqm_store_release(&c->shm->slot[q->slot].state, r);
	/* acq_rel: the word is visible before the flag the daemon clears and reads after.
	 * Only 0 -> 1 needs the wake-up: a set flag means the daemon has yet to look. */
	if (hsaqm_exchange(&c->shm->kick_daemon, 1u) == 0 &&
	    write(c->kick_fd, &one, sizeof(one)) < 0)
		hsaqm_log_debug("kick: %s", strerror(errno));
	return 0;
}

int hsaqm_dclient_queue_progress(struct hsaqm_dclient_queue *q)
{
	if (!q)
		return -EINVAL;
	/* Only the change matters to the daemon: no other word rides on it. The slot never
	 * moves and the memory is always mapped (the daemon's, or a stand-in). */
	hsaqm_fetch_add(&q->c->shm->slot[q->slot].progress, 1u);
	return 0;
}

int hsaqm_dclient_queue_dep_stalls(struct hsaqm_dclient_queue *q, uint32_t stalls)
{
	if (!q)
		return -EINVAL;
	/* Relaxed: a figure the daemon only shows; no other word rides on it. */
	HSAQM_WRITE_ONCE(q->c->shm->dep_stalls[q->slot], stalls);
	return 0;
}

int hsaqm_dclient_thread_realtime(struct hsaqm_dclient *c)
{
	int v;

	if (!c)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	v = c->rt;
	pthread_mutex_unlock(&c->lock);
	return v;
}

int hsaqm_dclient_queue_held(struct hsaqm_dclient_queue *q)
{
	int v;

	if (!q)
		return -EINVAL;
	pthread_mutex_lock(&q->c->lock);
	v = q->held;
	pthread_mutex_unlock(&q->c->lock);
	return v;
}

uint32_t hsaqm_dclient_queue_id(struct hsaqm_dclient_queue *q)
{
	uint32_t v;

	if (!q)
		return 0;
	pthread_mutex_lock(&q->c->lock);
	v = q->qid;
	pthread_mutex_unlock(&q->c->lock);
	return v;
}

int hsaqm_dclient_queue_remove(struct hsaqm_dclient_queue *q)
{
	struct hsaqm_dclient *c;
	bool on_thread;
	struct hsaqmd_msg m;

	if (!q)
		return -EINVAL;
	c = q->c;
	/* From the callback, cb_lock is ours already; from elsewhere, wait for callbacks. */
	on_thread = c->thread_started && pthread_equal(pthread_self(), c->thread);
	if (!on_thread)
		pthread_mutex_lock(&c->cb_lock);
	pthread_mutex_lock(&c->lock);
	if (c->connected && q->registered) {
		struct hsaqmd_queue_del d = { .slot = q->slot };

		request(c, HSAQMD_QUEUE_DEL, &d, &m, NULL, NULL);
	}
	c->slots[q->slot] = NULL;
	queue_unlink_locked(c, q);
	if (on_thread) {
		/* Later actions of the running batch may name it: free it after them. */
		q->removed = true;
		q->next = c->grave;
		c->grave = q;
	}
	pthread_mutex_unlock(&c->lock);
	if (!on_thread) {
		pthread_mutex_unlock(&c->cb_lock);
		free(q);
	}
	return 0;
}
