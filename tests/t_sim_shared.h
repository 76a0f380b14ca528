/* SPDX-License-Identifier: MIT */
/*
 * t_sim_shared.h - the processes of the shared-mode tests (docs/sim.md, "Shared mode"): a device
 * process (a fork of the test calling hsaqm_sim_serve(), or the hsaqm-simd executable of
 * argv[1]), client processes (forks that attach with hsaqm_sim_connect() and report through a
 * pipe), and the main() of every test-sim-shared-* binary. Header-only; include once.
 */
#ifndef T_SIM_SHARED_H
#define T_SIM_SHARED_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"
#include "hsa_face_internal.h"
#include "hsaqm-hsa/hsa_abi.h"
#include "hsaqm-kfd/kfd.h"
#include "kfd_face_internal.h"
#include "hsaqm-hsa/api_table.h"
#include "hsaqm-hsa/ring.h"
#include "hsaqm-common/log.h"
#include "shared_internal.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"

static const char *t_simd; /* the hsaqm-simd executable (argv[1]), or NULL */

static char t_dir[64];     /* a temporary folder for sockets */

static inline void t_sock_path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", t_dir, name);
}

static inline int t_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read exactly @n bytes within @ms milliseconds. 0, or -1 on EOF, error or timeout. */
static inline int t_read_all(int fd, void *p, size_t n, int ms)
{
	char *c = p;

	while (n) {
		struct pollfd pf = { fd, POLLIN, 0 };
		int r = poll(&pf, 1, ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		ssize_t got = read(fd, c, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		c += got;
		n -= (size_t)got;
	}
	return 0;
}

/* ------------------------------------------------------------------------------------
 * The device process: a fork that serves until told to stop. Commands on a pipe: 'q' asks
 * for the number of clients and of their queues, 'x' stops it.
 */
struct t_device {
	pid_t pid;
	int cmd;   /* to the device */
	int reply; /* from the device */
	char path[108];
};

struct t_dev_counts {
	uint32_t clients, queues;
};

static inline void *t_serve_thread(void *arg)
{
	struct hsaqm_sim *sim = arg;

	return (void *)(intptr_t)hsaqm_sim_serve(sim, NULL);
}

/* The next t_device_start()'s call_return_ns (a test sets it before; the fork inherits it). */
static uint64_t t_device_call_return_ns;

static inline void t_device_main(const char *path, int cmd, int reply, unsigned int ndev)
{
	struct hsaqm_sim_config cfg = { .num_devices = ndev, .time_mode = HSAQM_SIM_TIME_REAL, .seed = 7,
					.call_return_ns = t_device_call_return_ns };
	struct hsaqm_sim *sim;
	pthread_t th;
	int ok = 1;

	if (hsaqm_sim_create(&cfg, &sim) || hsaqm_sim_listen(sim, path))
		_exit(3);
	if (pthread_create(&th, NULL, t_serve_thread, sim))
		_exit(4);
	t_write_all(reply, &ok, sizeof(ok)); /* listening */
	for (;;) {
		char c;

		if (t_read_all(cmd, &c, 1, -1))
			c = 'x'; /* the test went away */
		if (c == 'q') {
			struct t_dev_counts n = { sim_shared_client_count(sim), sim_shared_queue_count(sim) };

			t_write_all(reply, &n, sizeof(n));
		} else {
			break;
		}
	}
	hsaqm_sim_serve_stop(sim);
	void *rv;
	pthread_join(th, &rv);
	uint64_t stranded = 0, lost = 0;
	for (unsigned int d = 0; d < sim->ndev; d++) {
		stranded += sim->dev[d]->stranded_requests;
		/* Acquire: pairs with the add of a request's waiter that found its wake-up lost. */
		lost += hsaqm_load_acquire(&sim->dev[d]->lost_wakeups);
	}
	hsaqm_sim_destroy(sim);
	/* exit(), not _exit(): LeakSanitizer checks the device process too. */
	exit(rv == NULL && !stranded && !lost ? 0 : 5);
}

static inline int t_device_start(struct t_device *d, const char *name, unsigned int ndev)
{
	int a[2], b[2], ok = 0;

	t_sock_path(d->path, sizeof(d->path), name);
	if (pipe(a) || pipe(b))
		return -1;
	fflush(NULL);
	d->pid = fork();
	if (d->pid < 0)
		return -1;
	if (d->pid == 0) {
		close(a[1]);
		close(b[0]);
		t_device_main(d->path, a[0], b[1], ndev);
	}
	close(a[0]);
	close(b[1]);
	d->cmd = a[1];
	d->reply = b[0];
	return t_read_all(d->reply, &ok, sizeof(ok), 20000) == 0 && ok ? 0 : -1;
}

static inline struct t_dev_counts t_device_counts(struct t_device *d)
{
	struct t_dev_counts n = { 99, 99 };

	t_write_all(d->cmd, "q", 1);
	t_read_all(d->reply, &n, sizeof(n), 20000);
	return n;
}

/* Stop the device; returns its exit status (0 = clean, no stranded request, no lost wake-up). */
static inline int t_device_stop(struct t_device *d)
{
	int st = -1;

	t_write_all(d->cmd, "x", 1);
	close(d->cmd);
	close(d->reply);
	if (waitpid(d->pid, &st, 0) != d->pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Run @fn(@arg, fd) in a child process; its report comes back on the returned fd. */
static inline pid_t t_child_start(void (*fn)(void *, int), void *arg, int *report)
{
	int p[2];

	if (pipe(p))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		fn(arg, p[1]);
		exit(0);
	}
	close(p[1]);
	*report = p[0];
	return pid;
}

static inline int t_child_wait(pid_t pid)
{
	int st = -1;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * The main() of a test-sim-shared-* binary: argv[1] is hsaqm-simd; the sockets live in a
 * fresh folder (removed at the end) with a short path, as a socket path has at most 107 bytes.
 */
static inline int t_sim_shared_main(int argc, char **argv, const char *name,
				    const struct t_suite *suites)
{
	const char *tmp = getenv("TMPDIR");

	if (argc > 1)
		t_simd = argv[1];
	signal(SIGPIPE, SIG_IGN);
	snprintf(t_dir, sizeof(t_dir), "%s/hsaqm-shm-XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
	if (!mkdtemp(t_dir)) {
		perror("mkdtemp");
		return 1;
	}
	int rc = t_run(name, suites);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t_dir);
	if (system(cmd)) {
		/* nothing to do: a leftover folder in $TMPDIR */
	}
	return rc;
}

#endif /* T_SIM_SHARED_H */
