/* SPDX-License-Identifier: MIT */
/*
 * 64 clients (8 processes of 8) connecting and leaving in a loop against one hsaqmd, some
 * processes SIGKILLed and started again on the way. Afterwards the daemon holds exactly the
 * fds it had before, its resident memory has not grown, it stops cleanly (under ASan, LSan
 * checks its heap at that exit), and its RSS with 64 clients stays under 16 MiB (printed).
 *
 * Usage: test-hsaqmd-churn HSAQMD HSAQMCTL T-DCLIENT [--minutes N]   (default: 10 seconds)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_cunit.h"
#include "t_proc.h"

#define PROCS 8
#define PER_PROC 8
#define RSS_LIMIT_KIB (16 * 1024)

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static double seconds = 10;

static pid_t spawn_churn(const struct t_daemon *d, double secs)
{
	char s[32], k[16];
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", 1);

		dup2(null, 1); /* its summary line: not needed */
		snprintf(s, sizeof(s), "%.3f", secs);
		snprintf(k, sizeof(k), "%d", PER_PROC);
		execl(t_bins.dclient, "t-dclient", "--socket", d->sock, "--churn", s, "--clients", k,
		      (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* A number after "key": in hsaqmctl stats --json. */
static long stat_of(const struct t_daemon *d, const char *key)
{
	char out[4096], k[64];
	char *p;

	if (t_ctl(d, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL))
		return -1;
	snprintf(k, sizeof(k), "\"%s\": ", key);
	p = strstr(out, k);
	return p ? strtol(p + strlen(k), NULL, 10) : -1;
}

static long wait_clients_zero(const struct t_daemon *d)
{
	long n = -1;

	/* Each look runs hsaqmctl: every 10 ms is often enough. */
	T_UNTIL_EVERY((n = stat_of(d, "clients")) == 0, 20 * T_S, 10 * T_MS);
	return n;
}

/* The daemon's fd count once it has handled the last hang-ups (a ctl that just exited). */
static int settled_fds(pid_t pid)
{
	int a = t_count_fds(pid), b;

	/* Settled: two counts 50 ms apart agree (a look needs time between its two counts). */
	T_UNTIL_EVERY((t_sleep_ms(50), b = a, a = t_count_fds(pid), a == b), 10 * T_S, 0);
	return a;
}

static int run_round(const struct t_daemon *d, double secs, long *peak_rss, long *peak_clients,
		     int *killed)
{
	pid_t pids[PROCS];
	uint64_t end = t_mono_ns() + (uint64_t)(secs * 1e9), next_kill = t_mono_ns() + 1000000000ull;
	int failures = 0, victim = 0;

	for (int i = 0; i < PROCS; i++)
		pids[i] = spawn_churn(d, secs);
	while (t_mono_ns() < end) {
		long rss = t_rss_kib(d->pid), n = stat_of(d, "clients");

		if (rss > *peak_rss)
			*peak_rss = rss;
		if (n > *peak_clients)
			*peak_clients = n;
		/* Once a second a process dies holding its clients; another takes its place. */
		if (t_mono_ns() >= next_kill && end - t_mono_ns() > 1500000000ull) {
			int st;

			kill(pids[victim], SIGKILL);
			waitpid(pids[victim], &st, 0);
			pids[victim] = spawn_churn(d, (double)(end - t_mono_ns()) / 1e9);
			victim = (victim + 1) % PROCS;
			(*killed)++;
			next_kill += 1000000000ull;
		}
		/* Pace of the sampling and the kills, not a wait for anything. */
		t_sleep_ms(100);
	}
	for (int i = 0; i < PROCS; i++) {
		int st;

		waitpid(pids[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failures++;
	}
	return failures;
}

static void test_64_clients_connect_and_leave_without_leaks(void)
{
	struct t_daemon d;
	long peak_rss = 0, peak_clients = 0, rss_warm, rss_end;
	int fds_start, fds_end, killed = 0, status;

	CU_ASSERT_FATAL(t_daemon_init(&d) == 0);
	CU_ASSERT_FATAL(t_daemon_start(&d) == 0);
	/* Warm-up: the allocator reaches its working size. */
	CU_ASSERT_EQUAL(run_round(&d, 2.0, &peak_rss, &peak_clients, &killed), 0);
	CU_ASSERT_EQUAL(wait_clients_zero(&d), 0);
	rss_warm = t_rss_kib(d.pid);
	/* Counted now, not at start: the daemon closes its ready fd just after it listens. */
	fds_start = settled_fds(d.pid);
	killed = 0;
	peak_rss = peak_clients = 0;
	CU_ASSERT_EQUAL(run_round(&d, seconds, &peak_rss, &peak_clients, &killed), 0);
	CU_ASSERT_EQUAL(wait_clients_zero(&d), 0);
	rss_end = t_rss_kib(d.pid);
	fds_end = settled_fds(d.pid);
	long total = stat_of(&d, "clients_total"), lost = stat_of(&d, "clients_lost");

	printf("\n    %.0f s: %ld connections in all, %ld left holding queues, %d processes "
	       "SIGKILLed\n    peak clients %ld, daemon RSS peak %ld KiB (limit %d KiB%s), "
	       "after warm-up %ld KiB, at the end %ld KiB\n    daemon fds %d after warm-up, %d at the end\n",
	       seconds, total, lost, killed, peak_clients, peak_rss, RSS_LIMIT_KIB,
	       SANITIZED ? ", not enforced under a sanitizer" : "", rss_warm, rss_end, fds_start,
	       fds_end);
	CU_ASSERT(peak_clients >= 48); /* ~64 at once (each process reopens one at a time) */
	CU_ASSERT(total > 64 * 4);
	CU_ASSERT_EQUAL(fds_end, fds_start);
	if (!SANITIZED) {
		CU_ASSERT(peak_rss > 0 && peak_rss < RSS_LIMIT_KIB);
		/* No leak: nothing grew past the warm-up's working size (slack for the allocator). */
		CU_ASSERT(rss_end - rss_warm < 512);
	}
	/* It stops cleanly (under ASan, LeakSanitizer runs at this exit and fails it). */
	status = t_daemon_stop(&d, SIGTERM);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	t_daemon_fini(&d);
}

static const struct t_case cases[] = {
	T_CASE(test_64_clients_connect_and_leave_without_leaks),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsaqmd-churn", NULL, NULL, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (t_hsaqmd_args(argc, argv, "[--minutes N]"))
		return T_EXIT_FAIL;
	if (argc == 6 && !strcmp(argv[4], "--minutes"))
		seconds = atof(argv[5]) * 60;
	return t_run("hsaqmd-churn", suites);
}
