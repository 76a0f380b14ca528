/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd: one scheduler for the queues of every process on the node (docs/daemon.md).
 *
 * One thread, one epoll: the listening socket, each client's socket and its "kick" eventfd,
 * a timerfd for the policies' deadlines, a signalfd. No locks: everything below runs on that
 * thread. Per device, the queues of all processes go through lib's pure policy function
 * (hsaqm-common/policy.h), the very code a process runs for its own queues.
 *
 * The hot path: a client stores a queue's state word in its shared memory and kicks; the
 * daemon reads the words of that client, decides the devices that changed, writes command
 * words into the other clients' shared memory and kicks them. The socket only registers,
 * queries and controls.
 *
 * This file: setting up, the loop and its dispatch, polling, leaving. The rest, by what it
 * holds: listen.c (the socket), session.c + send.c + requests.c (connections, replies,
 * requests), registry.c (devices, uids), arbitrate.c (decisions), metrics.c + http.c.
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

#include "arbitrate_internal.h"
#include "daemon_internal.h"
#include "daemon_log_internal.h"
#include "hsaqm-common/hist.h"
#include "hsaqm-common/barrier.h"
#include "listen_internal.h"
#include "hsaqm-dclient/path.h"
#include "hsaqm-common/policy.h"
#include "hsaqm-dclient/proto.h"
#include "registry_internal.h"
#include "hsaqm-common/rt.h"
#include "session_internal.h"

uint64_t hsaqmd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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
		 * hsaqmd_client_kicked() does). On: a client that still finds the flag clear kicks
		 * once; hsaqmd_client_kicked() then sets it. */
		hsaqm_exchange(&cl->shm->kick_daemon, on ? 1u : 0u);
		if (!on)
			hsaqmd_scan_states(cl);
	}
	if (!on)
		hsaqmd_decide_all(d, false);
	hsaqmd_log_info("busy-polling %s (%u clients)", on ? "on" : "off", d->nclients);
}

/* Spins on the state words for up to POLL_EPOLL_NS (less at the end of a spin_us window),
 * then returns what epoll has. */
static int poll_spin(struct hsaqmd *d, struct epoll_event *evs, int maxevs)
{
	uint64_t now = hsaqmd_now_ns(), until = now + POLL_EPOLL_NS;

	do {
		bool changed = false;

		for (struct dclient *cl = d->clients; cl; cl = cl->next)
			if (cl->role == HSAQMD_ROLE_CLIENT && !cl->dead && cl->shm)
				changed |= hsaqmd_scan_states(cl);
		now = hsaqmd_now_ns();
		if (changed) {
			d->last_change_ns = now;
			hsaqmd_decide_all(d, false);
		}
		hsaqm_cpu_relax();
	} while (now < until && want_polling(d, now));
	return epoll_wait(d->epfd, evs, maxevs, 0);
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
			hsaqmd_log_notice("not real-time: %s would keep a core from the "
					  "threads a hand-off needs at SCHED_FIFO",
					  d->cfg.busy_poll ? "busy_poll" : "spin_us");
		return;
	}
	rc = hsaqm_rt_self(mode, d->cfg.realtime_prio);
	if (rc > 0) {
		d->rt_prio = rc;
		hsaqmd_log_info("SCHED_FIFO priority %d", rc);
	} else {
		/* One line, also in auto mode: under load the reaction will wait for a slice. */
		hsaqmd_log_notice("SCHED_FIFO not permitted (%s): reactions may wait behind "
				  "busy cores; run as root or with CAP_SYS_NICE (realtime = off silences "
				  "this)", strerror(-rc));
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
		hsaqmd_log_err("out of memory");
		return -ENOMEM;
	}
	if (d->epfd < 0 || d->tfd < 0 || d->sfd < 0 || d->hbfd < 0) {
		rc = -errno;
		hsaqmd_log_err("cannot set up its event loop: %s", strerror(-rc));
		return rc;
	}
	if ((rc = hsaqmd_listen_socket(d)) < 0)
		return rc; /* it said why */
	if ((rc = add_watch(d, d->lfd, &d->listen_w, W_LISTEN)) < 0 ||
	    (rc = add_watch(d, d->tfd, &d->timer_w, W_TIMER)) < 0 ||
	    (rc = add_watch(d, d->sfd, &d->signal_w, W_SIGNAL)) < 0 ||
	    (rc = add_watch(d, d->hbfd, &d->beat_w, W_BEAT)) < 0 ||
	    (timerfd_settime(d->hbfd, 0, &beat, NULL) && (rc = -errno))) {
		hsaqmd_log_err("cannot set up its event loop: %s", strerror(-rc));
		return rc;
	}
	if ((rc = hsaqmd_http_setup(d)) < 0)
		return rc; /* it said why */
	if (d->cfg.gpu_ids_mode == HSAQMD_GPU_IDS_AUTO) {
		hsaqmd_topo_load(d);
		if (!d->ntopo)
			hsaqmd_log_info("no GPU in %s: gpu_ids are not checked (per-uid quotas only)",
					d->cfg.topology);
	}
	go_realtime(d);
	hsaqmd_log_info("listening on %s (mode %03o), policy %s", d->path, d->cfg.socket_mode,
			hsaqm_policy_name(d->cfg.policy.kind));
	if (ready_fd >= 0) {
		if (write(ready_fd, "ready\n", 6) < 0)
			hsaqmd_log_warn("ready fd: %s", strerror(errno));
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
	hsaqmd_decide_all(d, true);
}

static void on_beat(struct hsaqmd *d)
{
	uint64_t v;

	if (read(d->hbfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	hsaqmd_heartbeat(d);
}

static void on_signal(struct hsaqmd *d)
{
	struct signalfd_siginfo si;

	if (read(d->sfd, &si, sizeof(si)) == sizeof(si)) {
		hsaqmd_log_info("signal %u: leaving", si.ssi_signo);
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
			hsaqmd_client_kicked(d, w->cl);
	}
	for (int i = 0; i < n && !d->stop; i++) {
		struct watch *w = evs[i].data.ptr;

		switch (w->kind) {
		case W_LISTEN:
			hsaqmd_clients_accept(d);
			break;
		case W_SOCK:
			if (!w->cl->dead)
				hsaqmd_client_sock(d, w->cl, evs[i].events);
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
	hsaqmd_free_zombies(d);
}

static int daemon_loop(struct hsaqmd *d)
{
	struct epoll_event evs[64];

	while (!d->stop) {
		bool want_poll = want_polling(d, hsaqmd_now_ns());
		int n;

		if (want_poll != d->polling)
			poll_switch(d, want_poll);
		n = d->polling ? poll_spin(d, evs, 64) : epoll_wait(d->epfd, evs, 64, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int rc = -errno;

			hsaqmd_log_err("epoll_wait: %s", strerror(-rc));
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
		hsaqmd_client_drop(d, d->clients, "daemon stopping");
	hsaqmd_free_zombies(d);
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
	d->start_ns = hsaqmd_now_ns();
	hsaqm_hist_init(&d->h_ready_seen);
	hsaqm_hist_init(&d->h_seen_sent);
	hsaqm_hist_init(&d->h_sent_acked);
	hsaqm_hist_init(&d->h_ready_acked);
	if (cfg->socket_path[0])
		snprintf(path, sizeof(path), "%s", cfg->socket_path);
	else if ((rc = hsaqm_sock_default_daemon(path, sizeof(path))) < 0) {
		hsaqmd_log_err("the default socket path is too long (XDG_RUNTIME_DIR)");
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
