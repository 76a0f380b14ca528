/* SPDX-License-Identifier: MIT */
/*
 * t-dclient: a process that uses hsaqm's daemon client as the tool library will, driven line
 * by line on stdin by the hsaqmd tests, reporting every callback on stdout with the time it
 * ran (CLOCK_MONOTONIC, shared by every process of the machine).
 *
 *   t-dclient [--socket PATH] [--priority N] [--name NAME] [--retry 1]
 *     stdin:  add GPU [PRIO_ADJ] | ready I | idle I | remove I | prio N | held I | connected |
 *             exit
 *     stdout: open ok granted=N | open rc=E
 *             added I qid=N held=H | prio rc=E granted=N | held I H | removed I | connected C
 *             ev preempt I T | ev resume I T | ev lost - T | ev connected - T
 *   t-dclient --socket PATH --churn SECONDS [--clients K]
 *     K clients at once, each with two queues marked ready and idle, closed and opened
 *     again until SECONDS have passed; prints "churn cycles=N errors=E".
 *
 * A queue marked ready and not held makes progress (hsaqm_dclient_queue_progress) every
 * 20 ms, from a thread of its own, as a process whose GPU work moves does; a held one makes
 * none, as the tool's gated queues make none; SIGSTOP stops it too.
 *
 * Exit: 0; 3 when the daemon was not there at start; 1 on a usage or client error.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hsaqm-dclient/daemon_client.h"
#include "t_time.h"

#define MAXQ 64

static struct hsaqm_dclient_queue *queues[MAXQ];
static bool ready[MAXQ];
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER; /* queues[], ready[] */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

static void on_event(enum hsaqm_dclient_event ev, struct hsaqm_dclient_queue *q, void *qarg,
		     void *arg)
{
	static const char *const names[] = { "?", "preempt", "resume", "lost", "connected" };
	uint64_t t = t_mono_ns();

	(void)q;
	(void)arg;
	if (qarg)
		say("ev %s %d %llu", names[ev], (int)(intptr_t)qarg - 1, (unsigned long long)t);
	else
		say("ev %s - %llu", names[ev], (unsigned long long)t);
}

/* Ready queues make progress, as a working process's do, until held (docs/daemon.md
 * "Liveness"): the daemon must never take a held queue's silence for a stall. */
static void *progress_main(void *arg)
{
	(void)arg;
	for (;;) {
		/* Pace: progress every 20 ms, as a working process's queues complete work. */
		t_sleep_ms(20);
		pthread_mutex_lock(&q_lock);
		for (int i = 0; i < MAXQ; i++)
			if (queues[i] && ready[i] && hsaqm_dclient_queue_held(queues[i]) == 0)
				hsaqm_dclient_queue_progress(queues[i]);
		pthread_mutex_unlock(&q_lock);
	}
	return NULL;
}

static int run_churn(const char *sock, double seconds, int k)
{
	struct hsaqm_dclient **cl = calloc((size_t)k, sizeof(*cl));
	uint64_t end = t_mono_ns() + (uint64_t)(seconds * 1e9);
	unsigned long cycles = 0, errors = 0;
	unsigned int seed = (unsigned int)getpid();

	if (!cl)
		return 1;
	while (t_mono_ns() < end) {
		for (int i = 0; i < k; i++) {
			struct hsaqm_dclient_config cfg = { .socket_path = sock,
							    .priority = (int)(rand_r(&seed) % 3) - 1,
							    .callback = NULL };
			struct hsaqm_dclient_queue *q[2];
			int held;

			if (cl[i]) {
				hsaqm_dclient_close(cl[i]);
				cl[i] = NULL;
			}
			if (hsaqm_dclient_open(&cfg, &cl[i])) {
				cl[i] = NULL;
				errors++;
				continue;
			}
			for (int j = 0; j < 2; j++) {
				struct hsaqm_dclient_queue_config qc = {
					.gpu_id = 100 + (uint32_t)(rand_r(&seed) % 2),
					.kfd_queue_id = UINT32_MAX, .hsa_queue_id = (uint64_t)j,
					.level = HSAQM_LEVEL_2, .arg = NULL,
				};

				if (hsaqm_dclient_queue_add(cl[i], &qc, &q[j], &held)) {
					errors++;
					q[j] = NULL;
				}
			}
			for (int r = 0; r < 3; r++)
				for (int j = 0; j < 2; j++)
					if (q[j])
						hsaqm_dclient_queue_mark(q[j], r % 2 == 0);
			/* Half leave with their queues registered: the daemon must drop them. */
			if (rand_r(&seed) % 2 && q[0])
				hsaqm_dclient_queue_remove(q[0]);
			cycles++;
		}
	}
	for (int i = 0; i < k; i++)
		hsaqm_dclient_close(cl[i]);
	free(cl);
	say("churn cycles=%lu errors=%lu", cycles, errors);
	return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct hsaqm_dclient_config cfg = { .callback = on_event };
	struct hsaqm_dclient *c;
	double churn = 0;
	int clients = 8, rc, granted;
	char line[256];

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--socket"))
			cfg.socket_path = argv[i + 1];
		else if (!strcmp(argv[i], "--priority"))
			cfg.priority = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--name"))
			cfg.name = argv[i + 1];
		else if (!strcmp(argv[i], "--churn"))
			churn = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--clients"))
			clients = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--retry"))
			cfg.flags = atoi(argv[i + 1]) ? HSAQM_DCLIENT_RETRY : 0;
		else
			return 1;
	}
	if (churn > 0)
		return run_churn(cfg.socket_path, churn, clients);
	rc = hsaqm_dclient_open(&cfg, &c);
	if (rc) {
		say("open rc=%d", rc);
		return rc == -ENOENT ? 3 : 1;
	}
	hsaqm_dclient_set_priority(c, cfg.priority, &granted);
	say("open ok granted=%d", granted);
	pthread_t pt;

	pthread_create(&pt, NULL, progress_main, NULL);
	pthread_detach(pt);
	while (fgets(line, sizeof(line), stdin)) {
		unsigned int gpu;
		int a = 0, i;

		if (sscanf(line, "add %u %d", &gpu, &a) >= 1) {
			struct hsaqm_dclient_queue_config qc = { .gpu_id = gpu, .kfd_queue_id = UINT32_MAX,
								 .level = HSAQM_LEVEL_2, .prio_adj = a };
			int held = -1;

			struct hsaqm_dclient_queue *nq = NULL;

			for (i = 0; i < MAXQ && queues[i]; i++)
				;
			qc.hsa_queue_id = (uint64_t)i;
			qc.arg = (void *)(intptr_t)(i + 1);
			rc = i < MAXQ ? hsaqm_dclient_queue_add(c, &qc, &nq, &held) : -ENOSPC;
			pthread_mutex_lock(&q_lock);
			if (!rc)
				queues[i] = nq;
			pthread_mutex_unlock(&q_lock);
			if (rc)
				say("added rc=%d", rc);
			else
				say("added %d qid=%u held=%d", i, hsaqm_dclient_queue_id(queues[i]), held);
		} else if (sscanf(line, "ready %d", &i) == 1 && i >= 0 && i < MAXQ && queues[i]) {
			hsaqm_dclient_queue_mark(queues[i], true);
			pthread_mutex_lock(&q_lock);
			ready[i] = true;
			pthread_mutex_unlock(&q_lock);
		} else if (sscanf(line, "idle %d", &i) == 1 && i >= 0 && i < MAXQ && queues[i]) {
			hsaqm_dclient_queue_mark(queues[i], false);
			pthread_mutex_lock(&q_lock);
			ready[i] = false;
			pthread_mutex_unlock(&q_lock);
		} else if (sscanf(line, "remove %d", &i) == 1 && i >= 0 && i < MAXQ && queues[i]) {
			pthread_mutex_lock(&q_lock);
			hsaqm_dclient_queue_remove(queues[i]);
			queues[i] = NULL;
			ready[i] = false;
			pthread_mutex_unlock(&q_lock);
			say("removed %d", i);
		} else if (sscanf(line, "held %d", &i) == 1 && i >= 0 && i < MAXQ && queues[i]) {
			say("held %d %d", i, hsaqm_dclient_queue_held(queues[i]));
		} else if (!strncmp(line, "connected", 9)) {
			say("connected %d", hsaqm_dclient_connected(c));
		} else if (sscanf(line, "prio %d", &a) == 1) {
			rc = hsaqm_dclient_set_priority(c, a, &granted);
			say("prio rc=%d granted=%d", rc, granted);
		} else if (!strncmp(line, "exit", 4)) {
			break;
		} else {
			say("bad command");
		}
	}
	/* The progress thread no longer names a handle that close frees. */
	pthread_mutex_lock(&q_lock);
	for (int i = 0; i < MAXQ; i++)
		queues[i] = NULL;
	pthread_mutex_unlock(&q_lock);
	hsaqm_dclient_close(c);
	return 0;
}
