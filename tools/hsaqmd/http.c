/* SPDX-License-Identifier: MIT */
/*
 * The metrics endpoint (docs/daemon.md "Metrics"): `metrics_listen = 127.0.0.1:PORT`,
 * `[::1]:PORT` or an absolute Unix socket path; off by default. A minimal HTTP/1.0 server on
 * the daemon's own thread that answers GET /metrics with the Prometheus text format and closes.
 *
 * It never delays the reaction path: sockets are non-blocking, a request must arrive within
 * HTTP_REQUEST_MS, a response waits in its connection's buffer and a reader that takes
 * nothing of it for HTTP_SLOW_MS is dropped, at most HTTP_MAX_CONNS connections are open
 * (more are closed at once), and state-word kicks are handled before these events.
 *
 * Only loopback addresses are taken: the text names every process (pid, uid, command), so
 * whoever reaches the endpoint sees them all; bind it where only the collector reaches.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon_log_internal.h"
#include "hsaqm-dclient/path.h"
#include "registry_internal.h"
#include "hsaqm-common/sockfile.h"

#define HTTP_MAX_CONNS 8
#define HTTP_REQUEST_MS 2000u
#define HTTP_SLOW_MS 5000u
#define HTTP_REQUEST_MAX 4096

struct http_conn {
	struct http_conn *next, *prev;
	struct watch w;
	int fd;
	char req[HTTP_REQUEST_MAX];
	size_t rlen;
	char *out;        /* the response, once the request is complete */
	size_t olen, ooff;
	uint64_t start_ns;
	uint64_t progress_ns;
	bool dead; /* closed: later events of this batch skip it; freed after the batch */
};

static bool loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return false;
}

static int bind_unix(struct hsaqmd *d, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char why[PATH_MAX + 96];
	int fd, rc;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		hsaqmd_log_err("metrics_listen %s: the path is too long", path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	rc = hsaqm_sock_dir_check(path, geteuid(), why, sizeof(why));
	if (rc) {
		hsaqmd_log_err("metrics_listen %s: %s", path,
			       rc == -EPERM ? why : strerror(-rc));
		return rc;
	}
	/* Only a socket nobody answers on is replaced (a daemon that died): lib's one rule
	 * (hsaqm-common/sockfile.h), the same as for the daemon's own socket. */
	rc = hsaqm_sockfile_clear(path, SOCK_STREAM, NULL);
	if (rc == -EEXIST) {
		hsaqmd_log_err("metrics_listen %s is not a socket: refusing to "
			       "replace it", path);
		return rc;
	}
	if (rc) {
		hsaqmd_log_err("metrics_listen %s: %s", path,
			       rc == -EADDRINUSE ? "somebody listens there" : strerror(-rc));
		return rc;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(path, d->cfg.socket_gid >= 0 ? 0660 : 0600) < 0 ||
	    (d->cfg.socket_gid >= 0 && chown(path, (uid_t)-1, (gid_t)d->cfg.socket_gid) < 0) ||
	    listen(fd, 16) < 0) {
		rc = -errno;
		hsaqmd_log_err("metrics_listen %s: cannot listen: %s", path,
			       strerror(-rc));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	return fd;
}

static int bind_tcp(const char *spec)
{
	char host[64], *port;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	int fd = -1, rc, one = 1;

	/* HOST:PORT, [V6]:PORT */
	if (snprintf(host, sizeof(host), "%s", spec[0] == '[' ? spec + 1 : spec) >=
	    (int)sizeof(host))
		goto bad;
	port = strrchr(host, ':');
	if (!port || port == host)
		goto bad;
	*port++ = '\0';
	if (spec[0] == '[') {
		size_t n = strlen(host);

		if (!n || host[n - 1] != ']')
			goto bad;
		host[n - 1] = '\0';
	}
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		hsaqmd_log_err("metrics_listen %s: %s", spec, gai_strerror(rc));
		return -EINVAL;
	}
	if (!loopback(ai->ai_addr)) {
		hsaqmd_log_err("metrics_listen %s is not a loopback address: the metrics "
			       "name every process (use 127.0.0.1:PORT, [::1]:PORT or a socket path)",
			       spec);
		freeaddrinfo(ai);
		return -EINVAL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 16) < 0) {
		rc = -errno;
		/* A refused bind says why: the port taken, not permitted... */
		hsaqmd_log_err("metrics_listen %s: cannot bind: %s", spec,
			       strerror(-rc));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return rc;
	}
	freeaddrinfo(ai);
	return fd;
bad:
	hsaqmd_log_err("metrics_listen \"%s\" is not HOST:PORT, [V6]:PORT or an absolute "
		       "socket path", spec);
	return -EINVAL;
}

int hsaqmd_http_setup(struct hsaqmd *d)
{
	const char *spec = d->cfg.metrics_listen;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &d->http_w };
	int fd;

	d->http_fd = -1;
	if (!spec[0])
		return 0;
	fd = spec[0] == '/' ? bind_unix(d, spec) : bind_tcp(spec);
	if (fd < 0)
		return fd;
	d->http_w.kind = W_HTTP_LISTEN;
	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int rc = -errno;

		hsaqmd_log_err("metrics_listen: %s", strerror(-rc));
		close(fd);
		return rc;
	}
	d->http_fd = fd;
	hsaqmd_log_info("metrics on %s", spec);
	return 0;
}

/*
 * Closed now (its fd leaves the epoll set), freed after the batch of events (hsaqmd_http_reap):
 * a deadline met in this batch's heartbeat may close one whose event comes later in it.
 */
static void conn_close(struct hsaqmd *d, struct http_conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		d->http = c->next;
	if (c->next)
		c->next->prev = c->prev;
	close(c->fd);
	c->dead = true;
	c->next = d->http_zombies;
	d->http_zombies = c;
	d->nhttp--;
}

void hsaqmd_http_reap(struct hsaqmd *d)
{
	while (d->http_zombies) {
		struct http_conn *c = d->http_zombies;

		d->http_zombies = c->next;
		free(c->out);
		free(c);
	}
}

void hsaqmd_http_accept(struct hsaqmd *d)
{
	for (;;) {
		int fd = accept4(d->http_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct http_conn *c;

		if (fd < 0)
			return;
		c = d->nhttp < HTTP_MAX_CONNS ? calloc(1, sizeof(*c)) : NULL;
		if (!c) {
			d->http_dropped++;
			close(fd);
			continue;
		}
		c->fd = fd;
		c->w.kind = W_HTTP;
		c->w.hc = c;
		c->start_ns = c->progress_ns = hsaqmd_now_ns();
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = &c->w };

		if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			free(c);
			continue;
		}
		c->next = d->http;
		if (d->http)
			d->http->prev = c;
		d->http = c;
		d->nhttp++;
	}
}

/* The response to a complete request: the text for GET /metrics (or /), 404 else. */
static int respond(struct hsaqmd *d, struct http_conn *c)
{
	static const char hdr[] = "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
				  "Connection: close\r\n\r\n";
	char *body = NULL, *out = NULL;
	size_t blen = 0;
	const char *status = "200 OK";
	const char *type = "text/plain; version=0.0.4; charset=utf-8";
	int n;

	if (!strncmp(c->req, "GET /metrics ", 13) || !strncmp(c->req, "GET / ", 6)) {
		body = hsaqmd_metrics_text(d, NULL, &blen);
		if (!body)
			return -ENOMEM;
		d->http_served++;
	} else {
		status = strncmp(c->req, "GET ", 4) ? "405 Method Not Allowed" : "404 Not Found";
		type = "text/plain; charset=utf-8";
		body = strdup("hsaqmd serves GET /metrics\n");
		blen = body ? strlen(body) : 0;
	}
	n = body ? asprintf(&out, hdr, status, type, blen) : -1;
	if (n < 0 || !(out = realloc(out, (size_t)n + blen))) {
		free(body);
		return -ENOMEM;
	}
	memcpy(out + n, body, blen);
	free(body);
	c->out = out;
	c->olen = (size_t)n + blen;
	c->progress_ns = hsaqmd_now_ns();
	struct epoll_event ev = { .events = EPOLLOUT | EPOLLRDHUP, .data.ptr = &c->w };

	epoll_ctl(d->epfd, EPOLL_CTL_MOD, c->fd, &ev);
	return 0;
}

void hsaqmd_http_event(struct hsaqmd *d, struct http_conn *c, uint32_t events)
{
	if (c->dead)
		return;
	if (!c->out && (events & EPOLLIN)) {
		ssize_t r = recv(c->fd, c->req + c->rlen, sizeof(c->req) - 1 - c->rlen, 0);

		if (r <= 0) {
			if (r == 0 || (errno != EAGAIN && errno != EINTR))
				conn_close(d, c);
			return;
		}
		c->rlen += (size_t)r;
		c->req[c->rlen] = '\0';
		if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n")) {
			if (respond(d, c) < 0)
				conn_close(d, c);
		} else if (c->rlen == sizeof(c->req) - 1) {
			conn_close(d, c); /* no request is that long */
		}
		return;
	}
	if (c->out && (events & EPOLLOUT)) {
		while (c->ooff < c->olen) {
			ssize_t w = send(c->fd, c->out + c->ooff, c->olen - c->ooff,
					 MSG_DONTWAIT | MSG_NOSIGNAL);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0 && errno == EAGAIN)
				return;
			if (w <= 0)
				break;
			c->ooff += (size_t)w;
			c->progress_ns = hsaqmd_now_ns();
		}
		conn_close(d, c);
		return;
	}
	if (events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP))
		conn_close(d, c);
}

void hsaqmd_http_tick(struct hsaqmd *d, uint64_t now)
{
	for (struct http_conn *c = d->http, *next; c; c = next) {
		next = c->next;
		if ((!c->out && now - c->start_ns > HTTP_REQUEST_MS * 1000000ull) ||
		    (c->out && now - c->progress_ns > HTTP_SLOW_MS * 1000000ull)) {
			d->http_dropped++;
			conn_close(d, c);
		}
	}
}

void hsaqmd_http_teardown(struct hsaqmd *d)
{
	while (d->http)
		conn_close(d, d->http);
	hsaqmd_http_reap(d);
	if (d->http_fd >= 0) {
		close(d->http_fd);
		if (d->cfg.metrics_listen[0] == '/')
			unlink(d->cfg.metrics_listen);
		d->http_fd = -1;
	}
}
