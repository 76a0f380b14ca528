/* SPDX-License-Identifier: MIT */
/*
 * send.c - replies to clients, never blocking: a message goes at once when the socket takes it,
 * else it waits in the client's own buffer (OUT_MAX), sent as the client reads.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "registry_internal.h"
#include "session_internal.h"

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

bool hsaqmd_outq_empty(const struct outq *o)
{
	return o->off == o->len;
}

void hsaqmd_outq_free(struct outq *o)
{
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

/* Send what waits, in order, until the socket is full. Return: 0; -errno (the client goes). */
int hsaqmd_outq_flush(struct hsaqmd *d, struct dclient *cl)
{
	struct outq *o = &cl->out;

	while (!hsaqmd_outq_empty(o)) {
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
		o->progress_ns = hsaqmd_now_ns();
	}
	o->off = o->len = 0;
	sock_events(d, cl, false);
	return 0;
}

int hsaqmd_send_fds(struct dclient *cl, const void *buf, size_t len, const int *fds, int nfds)
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

	if (hsaqmd_outq_empty(&cl->out)) {
		rc = hsaqmd_send_fds(cl, buf, len, NULL, 0);
		if (rc != -EAGAIN)
			return rc;
		cl->out.progress_ns = hsaqmd_now_ns();
		sock_events(d, cl, true);
	}
	rc = outq_push(&cl->out, buf, len);
	if (rc == -ENOBUFS)
		d->st.refused_slow++;
	return rc;
}

int hsaqmd_send_msg(struct hsaqmd *d, struct dclient *cl, unsigned int type, uint32_t seq,
		    const void *body)
{
	char buf[HSAQMD_MSG_MAX];
	int len = hsaqmd_msg_build(buf, type, seq, body);

	if (len < 0)
		return len;
	return send_raw(d, cl, buf, (size_t)len);
}

int hsaqmd_send_result(struct hsaqmd *d, struct dclient *cl, uint32_t seq, int status, int value)
{
	struct hsaqmd_result r = { .status = status, .value = value };

	return hsaqmd_send_msg(d, cl, HSAQMD_RESULT, seq, &r);
}
