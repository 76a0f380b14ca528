/* SPDX-License-Identifier: MIT */
/*
 * session.c - hsaqmd's connections: accepting one (admission per uid), its HELLO (the shared
 * memory and eventfds of a client), reading its messages, its kicks, its deadlines (the
 * heartbeat), and its end (its queues go, the others resume).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "arbitrate_internal.h"
#include "daemon_log_internal.h"
#include "hsaqm-common/barrier.h"
#include "registry_internal.h"
#include "session_internal.h"

void hsaqmd_queue_free(struct hsaqmd *d, struct dqueue *q)
{
	struct dclient *cl = q->cl;
	struct ddev *dev = q->dev;

	hsaqmd_handoff_close(d, q);
	if (dev) {
		hsaqmd_dev_remove_queue(dev, q);
		/* Decide now, while the device still exists, so the others resume at once. */
		hsaqmd_dev_decide(d, dev, hsaqmd_now_ns());
		hsaqmd_dev_maybe_free(d, dev);
	}
	cl->slot[q->slot] = NULL;
	cl->nqueues--;
	cl->u->queues--;
	free(q);
}

void hsaqmd_client_drop(struct hsaqmd *d, struct dclient *cl, const char *why)
{
	if (cl->dead)
		return;
	if (cl->u)
		cl->u->conns--;
	hsaqmd_outq_free(&cl->out);
	hsaqmd_log_info("client %u (pid %u, uid %u, %s) leaves: %s", cl->id, cl->pid_ns, cl->uid,
			cl->comm, why);
	if (cl->nqueues)
		d->st.clients_lost++;
	cl->dead = true;
	for (unsigned int s = 0; s < HSAQMD_SLOTS; s++)
		if (cl->slot[s])
			hsaqmd_queue_free(d, cl->slot[s]);
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
	hsaqmd_decide_all(d, false);
}

void hsaqmd_clients_accept(struct hsaqmd *d)
{
	for (;;) {
		struct ucred cred;
		socklen_t len = sizeof(cred);
		struct epoll_event ev;
		int fd = accept4(d->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR)
				hsaqmd_log_warn("accept: %s", strerror(errno));
			return;
		}
		struct duid *u = NULL;
		const char *no = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0
					 ? strerror(errno) : hsaqmd_uid_admit(d, (uint32_t)cred.uid, &u);

		if (no) {
			/* Closed at once: the peer sees its connection reset, and the slot stays
			 * free for the others (a client retries with back-off). */
			hsaqmd_log_warn("connection of uid %u refused: %s", (unsigned int)cred.uid, no);
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
		cl->privileged = hsaqmd_uid_privileged((uint32_t)cred.uid);
		cl->fd = fd;
		cl->efd_in = cl->efd_out = -1;
		cl->pid_ns = (uint32_t)cred.pid;
		cl->uid = (uint32_t)cred.uid;
		cl->id = ++d->next_client_id;
		cl->role = HSAQMD_ROLE_CTL; /* until its hello says otherwise */
		cl->connected_ns = hsaqmd_now_ns();
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

int hsaqmd_client_hello(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m)
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
		hsaqmd_log_warn("client %u (pid %u, uid %u): priority %d capped to %d", cl->id,
				cl->pid_ns, cl->uid, h->priority, cl->priority);
	ok.client_id = cl->id;
	ok.priority = cl->priority;
	ok.daemon_pid = (uint32_t)getpid();
	if (h->role == HSAQMD_ROLE_CTL) {
		return hsaqmd_send_msg(d, cl, HSAQMD_HELLO_OK, m->hdr.seq, &ok);
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
	rc = hsaqmd_send_fds(cl, buf, (size_t)len, fds, 3);
	close(memfd); /* the mapping keeps the memory; the client has its own fd */
	hsaqmd_log_info("client %u: pid %u (%u here), uid %u, %s, priority %d", cl->id, cl->pid,
			cl->pid_ns, cl->uid, cl->comm, cl->priority);
	return rc;
}

void hsaqmd_client_sock(struct hsaqmd *d, struct dclient *cl, uint32_t events)
{
	/* One more than the largest message: a longer datagram shows up as truncated. */
	char buf[HSAQMD_MSG_MAX + 1];
	union {
		char buf[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr align;
	} ctrl;

	if (events & EPOLLOUT) {
		int rc = hsaqmd_outq_flush(d, cl);

		if (rc < 0) {
			hsaqmd_client_drop(d, cl, strerror(-rc));
			return;
		}
	}
	/* Replies wait: read nothing more until they are taken (send.c, sock_events()). */
	for (int budget = 64; budget > 0 && !cl->dead && hsaqmd_outq_empty(&cl->out); budget--) {
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
			hsaqmd_client_drop(d, cl, r == 0 ? "disconnected" : strerror(errno));
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
			hsaqmd_client_drop(d, cl, "malformed message (truncated, or carrying fds)");
			return;
		}
		int rc = hsaqmd_request_handle(d, cl, buf, (size_t)r);

		if (rc == -EBADMSG || rc == -EPROTONOSUPPORT) {
			d->st.bad_messages++;
			hsaqmd_log_warn("client %u (pid %u, uid %u): %s message: closing", cl->id,
					cl->pid_ns, cl->uid,
					rc == -EBADMSG ? "malformed" : "unsupported protocol version");
			hsaqmd_client_drop(d, cl, "malformed message");
			return;
		}
		if (rc < 0) {
			hsaqmd_client_drop(d, cl, rc == -ENOBUFS ? "does not read its replies" : strerror(-rc));
			return;
		}
	}
	if (!cl->dead && (events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP))) {
		/* Read what it sent last (above), then let go. */
		hsaqmd_client_drop(d, cl, "hung up");
	}
}

/* A client changed state words: read them all, decide the devices that changed. */
void hsaqmd_client_kicked(struct hsaqmd *d, struct dclient *cl)
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
	hsaqmd_scan_states(cl);
	d->last_change_ns = hsaqmd_now_ns();
	hsaqmd_decide_all(d, false);
}

/*
 * Every 100 ms: the heartbeat every client trusts its holds by, and the deadlines of
 * connections: a HELLO late, replies not read, progress not made.
 */
void hsaqmd_heartbeat(struct hsaqmd *d)
{
	uint64_t now = hsaqmd_now_ns();
	uint64_t hello_ns = (uint64_t)d->cfg.hello_timeout_ms * 1000000ull;

	for (struct dclient *cl = d->clients, *next; cl; cl = next) {
		next = cl->next;
		if (cl->dead)
			continue;
		if (!cl->hello && now - cl->connected_ns > hello_ns) {
			d->st.refused_hello++;
			hsaqmd_client_drop(d, cl, "no HELLO in time");
			continue;
		}
		if (!hsaqmd_outq_empty(&cl->out) &&
		    now - cl->out.progress_ns > SLOW_READER_MS * 1000000ull) {
			d->st.refused_slow++;
			hsaqmd_client_drop(d, cl, "does not read its replies");
			continue;
		}
		if (cl->role != HSAQMD_ROLE_CLIENT || !cl->shm)
			continue;
		/* Only the change matters: no other word rides on it. */
		hsaqm_fetch_add(&cl->shm->heartbeat, 1u);
		if (d->cfg.hold_progress_ms)
			hsaqmd_check_progress(d, cl, now);
	}
	hsaqmd_http_tick(d, now);
	hsaqmd_decide_all(d, false);
}

void hsaqmd_free_zombies(struct hsaqmd *d)
{
	hsaqmd_http_reap(d);
	while (d->zombies) {
		struct dclient *cl = d->zombies;

		d->zombies = cl->next;
		free(cl);
	}
}
