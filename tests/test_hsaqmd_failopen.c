/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd with real processes: nothing stays held by what is gone or stuck. Proves both
 * fail-open cases after SIGKILL (a client, the daemon: the others resume on the hang-up) and
 * after a stopped daemon's missed heartbeats, and that only a holder without progress is
 * stalled (after hold_progress_ms), never the held.
 *
 * Usage (meson passes the binaries): test-hsaqmd-* HSAQMD HSAQMCTL T-DCLIENT [--busy-poll]
 * With --busy-poll every case runs against a daemon started with it (docs/daemon.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_hsaqmd.h"

/*
 * The fail-open target is 100 ms (the tests print each figure: about 2 ms here). What
 * they assert is the mechanism, which no load can fake: the resume comes from the hang-up,
 * long before the heartbeat's bound could have let go. A wall-clock bound of 100 ms would
 * measure the machine's load as much as hsaqm (docs/testing.md "Under load").
 */
#define FAILOPEN_TARGET_MS 100
#define FAILOPEN_NS ((uint64_t)HSAQMD_HEARTBEAT_STALE_MS / 2 * 1000000ull)

/* A process at 10 and one at 0, a queue each on @gpu, both ready: the lower one is held. */
static void held_pair(struct t_client *hi, struct t_client *lo, const unsigned int *gpu)
{
	CU_ASSERT_FATAL(t_client_with_queues(hi, 10, gpu, 1) == 0);
	CU_ASSERT_FATAL(t_client_with_queues(lo, 0, gpu, 1) == 0);
	t_client_send(lo, "ready 0");
	t_client_send(hi, "ready 0");
	CU_ASSERT_FATAL(t_client_sees(lo, "ev preempt 0", T_WAIT_MS));
}

/* A stopped (or hung) daemon keeps its socket open: the heartbeat is what lets go. */
static void test_daemon_stopped_held_client_resumes_after_missed_heartbeats(void)
{
	static const unsigned int gpu[] = { 14001 };
	struct t_client hi, lo;
	char line[256];
	uint64_t t0, dt;

	held_pair(&hi, &lo, gpu);
	t0 = t_mono_ns();
	kill(t_dmn.pid, SIGSTOP);
	CU_ASSERT_EQUAL(t_client_expect(&lo, "ev resume 0", HSAQMD_HEARTBEAT_STALE_MS + T_WAIT_MS,
					line, sizeof(line)), 0);
	dt = t_event_time(line) - t0;
	printf("\n    daemon SIGSTOP -> held queue resumed in the client: %.0f ms (bound %u ms of "
	       "silence + one period)\n", dt / 1e6, HSAQMD_HEARTBEAT_STALE_MS);
	/* It is the heartbeat that let go (the last change seen may predate the stop by up to
	 * two periods): not much before the bound. How long after depends on the machine's
	 * load, not on hsaqm: t_client_expect's window is the only upper bound. */
	CU_ASSERT(dt >= (uint64_t)(HSAQMD_HEARTBEAT_STALE_MS - 300) * 1000000ull);
	CU_ASSERT(t_client_sees(&lo, "ev lost", T_WAIT_MS));
	/* The higher process held nothing: it stays connected. */
	CU_ASSERT_FALSE(t_client_sees(&hi, "ev lost", 100));
	/* The daemon continues: the low process reconnects and is held again. */
	kill(t_dmn.pid, SIGCONT);
	CU_ASSERT(t_client_sees(&lo, "ev connected", T_WAIT_MS));
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", T_WAIT_MS));
	t_client_send(&hi, "idle 0");
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", T_WAIT_MS));
	t_client_stop(&hi);
	t_client_stop(&lo);
}

static void test_daemon_killed_clients_resume_on_the_hangup_and_reconnect(void)
{
	static const unsigned int gpu[] = { 8001 };
	struct t_client hi, lo;
	char line[256];
	uint64_t t0;

	held_pair(&hi, &lo, gpu);
	t0 = t_mono_ns();
	t_daemon_stop(&t_dmn, SIGKILL);
	CU_ASSERT_EQUAL(t_client_expect(&lo, "ev resume 0", T_WAIT_MS, line, sizeof(line)), 0);
	uint64_t dt = t_event_time(line) - t0;

	printf("\n    daemon SIGKILL -> held queue resumed in the client: %.2f ms (target %d ms)\n",
	       dt / 1e6, FAILOPEN_TARGET_MS);
	CU_ASSERT(t_event_time(line) > t0 && dt < FAILOPEN_NS);
	CU_ASSERT(t_client_sees(&lo, "ev lost", T_WAIT_MS));
	CU_ASSERT(t_client_sees(&hi, "ev lost", T_WAIT_MS));
	/* Local scheduling now: marks go nowhere and nothing is held. */
	t_client_send(&lo, "held 0");
	CU_ASSERT(t_client_sees(&lo, "held 0 0", T_WAIT_MS));
	/* The daemon returns: both reconnect, and the order holds again. */
	CU_ASSERT_FATAL(t_daemon_start(&t_dmn) == 0);
	CU_ASSERT(t_client_sees(&lo, "ev connected", T_WAIT_MS));
	CU_ASSERT(t_client_sees(&hi, "ev connected", T_WAIT_MS));
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", T_WAIT_MS));
	t_client_send(&hi, "idle 0");
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", T_WAIT_MS));
	t_client_stop(&hi);
	t_client_stop(&lo);
}

static void test_client_killed_daemon_resumes_others_on_the_hangup(void)
{
	static const unsigned int gpu[] = { 9001 };
	struct t_client hi, lo;
	char line[256], out[4096];
	uint64_t t0;

	held_pair(&hi, &lo, gpu);
	t0 = t_mono_ns();
	kill(hi.pid, SIGKILL);
	CU_ASSERT_EQUAL(t_client_expect(&lo, "ev resume 0", T_WAIT_MS, line, sizeof(line)), 0);
	uint64_t dt = t_event_time(line) - t0;

	printf("\n    client SIGKILL -> the queue it held back resumed: %.2f ms (target %d ms)\n",
	       dt / 1e6, FAILOPEN_TARGET_MS);
	CU_ASSERT(t_event_time(line) > t0 && dt < FAILOPEN_NS);
	t_client_kill(&hi);
	CU_ASSERT_FALSE(t_client_sees(&lo, "ev lost", 100));
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_PTR_NULL(strstr(out, "\"clients_lost\": 0,"));
	t_client_stop(&lo);
}

/*
 * Issue 18 item 4: a higher process whose queue is ready and which then stops (SIGSTOP) holds
 * the lower one only until hold_progress_ms (1000 by default) passes without progress; when
 * it continues (its progress moves again), it holds again.
 */
static void test_a_stopped_holder_lets_lower_processes_run_after_hold_progress_ms(void)
{
	static const unsigned int gpu[] = { 16001 };
	struct t_client hi, lo;
	char line[256], out[8192];
	uint64_t t0, dt;

	held_pair(&hi, &lo, gpu);
	t0 = t_mono_ns();
	kill(hi.pid, SIGSTOP);
	CU_ASSERT_FATAL(t_client_expect(&lo, "ev resume 0", 3000 + T_WAIT_MS, line,
					sizeof(line)) == 0);
	dt = t_event_time(line) - t0;
	printf("\n    holder SIGSTOPped -> the lower process ran again after %.0f ms (bound %u ms "
	       "without progress + the 100 ms check)", dt / 1e6, HSAQMD_DEFAULT_HOLD_PROGRESS_MS);
	/* Its last progress is at most 20 ms before the stop (t-dclient's period). */
	CU_ASSERT(dt >= (HSAQMD_DEFAULT_HOLD_PROGRESS_MS - 50) * 1000000ull);
	/* After: the 100 ms check, and whatever a loaded machine adds. */
	CU_ASSERT(dt < (HSAQMD_DEFAULT_HOLD_PROGRESS_MS + 3000) * 1000000ull);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"stalled\": true"));
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT(t_hsaqmd_json_key(out, "stalls") >= 1);
	/* It continues: progress again, and it holds again. */
	kill(hi.pid, SIGCONT);
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", T_WAIT_MS));
	t_client_send(&hi, "idle 0");
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", T_WAIT_MS));
	t_client_stop(&hi);
	t_client_stop(&lo);
}

/* Lines of @path containing @needle; the first one into @first. */
static int log_lines(const char *path, const char *needle, char *first, size_t len)
{
	char line[1024];
	int n = 0;
	FILE *f = fopen(path, "r");

	if (first && len)
		first[0] = '\0';
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, needle))
			continue;
		if (!n++ && first)
			snprintf(first, len, "%s", line);
	}
	fclose(f);
	return n;
}

/* The "stalled" value of queue q@qid in a `list --json` text: 1 true, 0 false, -1 absent. */
static int queue_stalled(const char *json, unsigned int qid)
{
	char key[32];
	const char *q, *end, *v;

	snprintf(key, sizeof(key), "\"queue\": \"q%u\"", qid);
	q = strstr(json, key);
	end = q ? strchr(q, '}') : NULL;
	v = q ? strstr(q, "\"stalled\": ") : NULL;
	if (!v || v > end)
		return -1;
	return !strncmp(v + 11, "true", 4);
}

/* A holder whose work moves: a thread bumping a raw client's progress word every 20 ms. */
struct mover {
	struct t_raw_client *rc;
	pthread_t thread;
	int run; /* atomic: cleared to stop (the word then freezes, as a SIGSTOPped process's) */
};

static void *mover_main(void *arg)
{
	struct mover *m = arg;

	while (__atomic_load_n(&m->run, __ATOMIC_RELAXED)) {
		/* The daemon only compares the word with its last reading: no order needed. */
		__atomic_fetch_add(&m->rc->shm->slot[0].progress, 1u, __ATOMIC_RELAXED);
		/* Pace: progress every 20 ms, as t-dclient's working queues make it. */
		t_sleep_ms(20);
	}
	return NULL;
}

/*
 * Issue 24 item 4: the progress rule is about holders. A low process held by a busy high one
 * makes no progress by design: it is never stalled, counted or named, however long the
 * hold. When the high one stops moving it is the one found stalled, counted and named (with
 * whom it held), and the low one is released; when it moves again it holds again and its
 * stalled flag clears. The high one is a raw client whose progress word this test moves.
 */
static void test_only_a_holder_without_progress_is_stalled_never_the_held(void)
{
	static const unsigned int gpu[] = { 17001 };
	struct t_raw_client hi = { .fd = -1, .kick = -1, .shm = MAP_FAILED };
	struct t_daemon saved = t_dmn;
	struct t_client lo;
	char line[1024], out[8192], name[64];
	unsigned int lo_qid = 0;
	pid_t lo_pid;
	int fd;

	/*
	 * A daemon of its own: its stderr in a file, its counters, and a hold_progress_ms of 2 s:
	 * far above the mover's 20 ms steps even when a loaded host starves its thread (at 500 ms
	 * a sanitizer run beside stress-ng saw the holder go 599 ms without a step: a real stall
	 * of this process, but not the one this case is about).
	 */
	CU_ASSERT_FATAL(t_daemon_init(&t_dmn) == 0);
	snprintf(t_dmn.config, sizeof(t_dmn.config), "%s/hsaqmd.conf", t_dmn.dir);
	fd = open(t_dmn.config, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, "hold_progress_ms = 2000\n", 24) == 24);
	close(fd);
	snprintf(t_dmn.log, sizeof(t_dmn.log), "%s/hsaqmd.log", t_dmn.dir);
	t_dmn.uid = T_SAME_UID;
	if (t_daemon_start_as(&t_dmn) != 0) {
		/* The cases after this one need the suite's daemon back. */
		CU_FAIL("hsaqmd with hold_progress_ms = 2000 did not start");
		unlink(t_dmn.log);
		t_daemon_fini(&t_dmn);
		t_dmn = saved;
		return;
	}

	CU_ASSERT_FATAL(t_client_with_queues(&lo, 0, gpu, 0) == 0);
	lo_pid = lo.pid;
	t_client_send(&lo, "add %u", gpu[0]);
	CU_ASSERT_FATAL(t_client_expect(&lo, "added 0", T_WAIT_MS, line, sizeof(line)) == 0);
	CU_ASSERT_FATAL(sscanf(line, "added 0 qid=%u", &lo_qid) == 1);
	t_client_send(&lo, "ready 0");
	CU_ASSERT_FATAL(t_raw_client_open(&hi, gpu[0], 10) == 0);
	/* It moves from before it holds anyone until (2): however slow the checks below are
	 * on a loaded machine, it is never without progress meanwhile. */
	struct mover mv = { .rc = &hi, .run = 1 };

	CU_ASSERT_FATAL(pthread_create(&mv.thread, NULL, mover_main, &mv) == 0);
	hsaqm_store_release(&hi.shm->slot[0].state, 1u); /* the daemon's scan acquires it */
	t_raw_client_kick(&hi);
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", T_WAIT_MS));

	/* (1) Held twice hold_progress_ms by a holder that moves: nothing is stalled (time let
	 * pass on purpose: proving that something does not happen). */
	t_sleep_ms(4000);
	CU_ASSERT_FALSE(t_client_sees(&lo, "ev resume 0", 0));
	t_client_send(&lo, "held 0");
	CU_ASSERT(t_client_expect(&lo, "held 0 ", T_WAIT_MS, line, sizeof(line)) == 0 &&
		  !strcmp(line, "held 0 1"));
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	CU_ASSERT_EQUAL(queue_stalled(out, lo_qid), 0);
	CU_ASSERT_PTR_NULL(strstr(out, "\"stalled\": true"));
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_EQUAL(t_hsaqmd_json_key(out, "stalls"), 0);

	/* (2) The holder's word freezes (as a SIGSTOPped process's): the low one runs. */
	__atomic_store_n(&mv.run, 0, __ATOMIC_RELAXED);
	pthread_join(mv.thread, NULL);
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", 6000 + T_WAIT_MS));
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	CU_ASSERT_EQUAL(queue_stalled(out, lo_qid), 0);
	/* The other queue, the holder's, is the one stalled. */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"stalled\": true"));
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_EQUAL(t_hsaqmd_json_key(out, "stalls"), 1);

	/* (3) It moves again (and keeps moving): it holds again, nothing is stalled. */
	__atomic_store_n(&mv.run, 1, __ATOMIC_RELAXED);
	CU_ASSERT_FATAL(pthread_create(&mv.thread, NULL, mover_main, &mv) == 0);
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", T_WAIT_MS));
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	CU_ASSERT_PTR_NULL(strstr(out, "\"stalled\": true"));
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_EQUAL(t_hsaqmd_json_key(out, "stalls"), 1);

	hsaqm_store_release(&hi.shm->slot[0].state, 0u); /* the daemon's scan acquires it */
	t_raw_client_kick(&hi);
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", T_WAIT_MS));
	__atomic_store_n(&mv.run, 0, __ATOMIC_RELAXED);
	pthread_join(mv.thread, NULL);
	t_client_stop(&lo);
	munmap(hi.shm, HSAQMD_SHM_SIZE);
	close(hi.kick);
	close(hi.fd);
	t_daemon_stop(&t_dmn, SIGTERM);

	/* One line, naming the holder (this process) and whom it held: the low one. */
	CU_ASSERT_EQUAL(log_lines(t_dmn.log, "made no progress", line, sizeof(line)), 1);
	printf("\n    %s", line);
	snprintf(name, sizeof(name), "hsaqmd: pid %d (", (int)getpid());
	CU_ASSERT_PTR_NOT_NULL(strstr(line, name));
	snprintf(name, sizeof(name), "holding 1 queue of pid %d:", (int)lo_pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, name));
	snprintf(name, sizeof(name), "pid %d (", (int)lo_pid);
	CU_ASSERT_EQUAL(log_lines(t_dmn.log, name, NULL, 0), 0);
	unlink(t_dmn.log);
	t_daemon_fini(&t_dmn);
	t_dmn = saved;
}

static const struct t_case cases[] = {
	T_CASE(test_client_killed_daemon_resumes_others_on_the_hangup),
	T_CASE(test_daemon_stopped_held_client_resumes_after_missed_heartbeats),
	T_CASE(test_a_stopped_holder_lets_lower_processes_run_after_hold_progress_ms),
	T_CASE(test_only_a_holder_without_progress_is_stalled_never_the_held),
	/* Last: it kills and restarts the daemon. */
	T_CASE(test_daemon_killed_clients_resume_on_the_hangup_and_reconnect),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsaqmd-failopen", t_hsaqmd_suite_init, t_hsaqmd_suite_fini, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (t_hsaqmd_args(argc, argv, "[DAEMON-OPTION]"))
		return T_EXIT_FAIL;
	t_bins.daemon_flag = argc > 4 ? argv[4] : NULL;
	return t_run("hsaqmd-failopen", suites);
}
