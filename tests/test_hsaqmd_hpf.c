/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd with real processes: who runs. Proves the registry (hsaqmctl list), HPF across
 * processes and devices, TC3 (a queue created while a higher one runs starts held), that the
 * daemon holds processes rather than queues, and hsaqmctl's priority and policy changes.
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

static void test_registry_lists_processes_and_queues(void)
{
	static const unsigned int gpus[] = { 4001, 4002 };
	struct t_client c;
	char out[8192], pid[32];

	CU_ASSERT_FATAL(t_client_with_queues(&c, 7, gpus, 2) == 0);
	snprintf(pid, sizeof(pid), "\"pid\": %d,", (int)c.pid);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	char *p = strstr(out, pid);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_PTR_NOT_NULL(strstr(p, "\"comm\": \"t-dclient\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(p, "\"priority\": 7"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p, "\"gpu_id\": 4001"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p, "\"gpu_id\": 4002"));
	/* A queue's members carry lib's names (docs/stats.md), version 2 of the document. */
	CU_ASSERT_PTR_NOT_NULL(strstr(p, "\"effective_level\": \"lv2\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(p, "\"preempted_ns\": 0,"));
	CU_ASSERT_PTR_NULL(strstr(out, "\"held_s\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"version\": 2,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p, "\"state\": \"idle\""));
	char uid[32];

	snprintf(uid, sizeof(uid), "\"uid\": %u", (unsigned int)getuid());
	CU_ASSERT_PTR_NOT_NULL(strstr(p, uid));
	/* The text form names the same process. */
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "list", NULL), 0);
	snprintf(pid, sizeof(pid), "%d ", (int)c.pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, pid));
	/* After it leaves, it is gone from the registry. */
	t_client_stop(&c);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	snprintf(pid, sizeof(pid), "\"pid\": %d,", (int)c.pid);
	CU_ASSERT_PTR_NULL(strstr(out, pid));
}

static void test_hpf_across_processes_preempts_lower_and_resumes(void)
{
	static const unsigned int gpu[] = { 5001 };
	struct t_client hi, lo;

	CU_ASSERT_FATAL(t_client_with_queues(&hi, 10, gpu, 1) == 0);
	CU_ASSERT_FATAL(t_client_with_queues(&lo, 0, gpu, 1) == 0);
	t_client_send(&lo, "ready 0");
	t_client_send(&hi, "ready 0");
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", T_WAIT_MS));
	t_client_send(&lo, "held 0");
	CU_ASSERT(t_client_sees(&lo, "held 0 1", T_WAIT_MS));
	t_client_send(&hi, "idle 0");
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", T_WAIT_MS));
	/* The higher one was never held. */
	CU_ASSERT_FALSE(t_client_sees(&hi, "ev preempt", 100));
	/* A priority change from the process itself reverses the order. */
	t_client_send(&hi, "ready 0");
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", T_WAIT_MS));
	t_client_send(&hi, "prio -5");
	CU_ASSERT(t_client_sees(&hi, "prio rc=0 granted=-5", T_WAIT_MS));
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", T_WAIT_MS));
	CU_ASSERT(t_client_sees(&hi, "ev preempt 0", T_WAIT_MS));
	t_client_stop(&hi);
	t_client_stop(&lo);
}

/* TC3: a queue created while its process is preempted on that device starts preempted. */
static void test_queue_created_while_preempted_starts_preempted(void)
{
	static const unsigned int gpu[] = { 6001 };
	struct t_client hi, lo;
	char line[256];

	CU_ASSERT_FATAL(t_client_with_queues(&hi, 10, gpu, 1) == 0);
	CU_ASSERT_FATAL(t_client_with_queues(&lo, 0, NULL, 0) == 0);
	t_client_send(&hi, "ready 0");
	/* A mark is asynchronous: once the daemon shows the queue ready, create the low one. */
	CU_ASSERT_FATAL(t_ctl_list_shows(&t_dmn, "\"state\": \"ready\"", T_WAIT_MS));
	t_client_send(&lo, "add 6001");
	CU_ASSERT_EQUAL(t_client_expect(&lo, "added", T_WAIT_MS, line, sizeof(line)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "held=1"));
	/* On another device nothing holds it. */
	t_client_send(&lo, "add 6002");
	CU_ASSERT_EQUAL(t_client_expect(&lo, "added", T_WAIT_MS, line, sizeof(line)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "held=0"));
	t_client_send(&hi, "idle 0");
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", T_WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&lo, "ev resume 1", 100));
	t_client_stop(&hi);
	t_client_stop(&lo);
}

static void test_three_processes_three_priorities_two_devices(void)
{
	static const unsigned int g12[] = { 7001, 7002 }, g1[] = { 7001 };
	struct t_client p1, p2, p3;
	char out[8192];

	CU_ASSERT_FATAL(t_client_with_queues(&p1, 10, g12, 2) == 0);
	CU_ASSERT_FATAL(t_client_with_queues(&p2, 5, g1, 1) == 0);
	CU_ASSERT_FATAL(t_client_with_queues(&p3, 0, g12, 2) == 0);
	/* The lowest alone runs on both devices. */
	t_client_send(&p3, "ready 0");
	t_client_send(&p3, "ready 1");
	CU_ASSERT_FALSE(t_client_sees(&p3, "ev preempt", 200));
	/* Device 1: the middle one comes; only device 1's lowest stops. */
	t_client_send(&p2, "ready 0");
	CU_ASSERT(t_client_sees(&p3, "ev preempt 0", T_WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&p3, "ev preempt 1", 200));
	/* Device 2: the highest comes; device 2's lowest stops, the middle one is untouched. */
	t_client_send(&p1, "ready 1");
	CU_ASSERT(t_client_sees(&p3, "ev preempt 1", T_WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&p2, "ev preempt", 200));
	/* Device 1: the highest comes; the middle stops too. */
	t_client_send(&p1, "ready 0");
	CU_ASSERT(t_client_sees(&p2, "ev preempt 0", T_WAIT_MS));
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"state\": \"preempted\""));
	/* Unwinding: each step resumes exactly the next one down. */
	t_client_send(&p1, "idle 0");
	CU_ASSERT(t_client_sees(&p2, "ev resume 0", T_WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&p3, "ev resume 0", 200));
	t_client_send(&p2, "idle 0");
	CU_ASSERT(t_client_sees(&p3, "ev resume 0", T_WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&p3, "ev resume 1", 200));
	t_client_send(&p1, "idle 1");
	CU_ASSERT(t_client_sees(&p3, "ev resume 1", T_WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&p1, "ev preempt", 100));
	t_client_stop(&p1);
	t_client_stop(&p2);
	t_client_stop(&p3);
}

static void test_hsaqmctl_sets_queue_priority_and_policy(void)
{
	static const unsigned int gpu[] = { 11001 };
	struct t_client a, b;
	char line[256], out[4096], q[16];
	unsigned int qid;

	CU_ASSERT_FATAL(t_client_with_queues(&a, 0, gpu, 1) == 0);
	CU_ASSERT_FATAL(t_client_start(&b, &t_dmn, 0, T_SAME_UID, line, sizeof(line)) == 0);
	t_client_send(&b, "add 11001");
	CU_ASSERT_FATAL(t_client_expect(&b, "added", T_WAIT_MS, line, sizeof(line)) == 0);
	CU_ASSERT_FATAL(sscanf(line, "added 0 qid=%u", &qid) == 1);
	t_client_send(&a, "ready 0");
	t_client_send(&b, "ready 0");
	CU_ASSERT_FALSE(t_client_sees(&a, "ev preempt", 200));
	/* Lift b's queue by hand: a stops. */
	snprintf(q, sizeof(q), "q%u", qid);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "set-priority", q, "5", NULL), 0);
	CU_ASSERT(t_client_sees(&a, "ev preempt 0", T_WAIT_MS));
	/* The same device under "none": nobody is held. */
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "policy", "11001", "none", NULL),
			0);
	CU_ASSERT(t_client_sees(&a, "ev resume 0", T_WAIT_MS));
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "policy", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "gpu 11001    none"));
	/* Bad arguments (a floor slice longer than its period): usage (2); unknown targets:
	 * refused (1). */
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "policy", "11001", "hpf", "10",
			      "20", NULL), 2);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "set-priority", "q999999", "1",
			      NULL), 1);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "set-priority", "x", "1", NULL),
			2);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "bogus", NULL), 2);
	t_client_stop(&a);
	t_client_stop(&b);
}

/*
 * The daemon arbitrates processes; lib orders the queues inside one (its floor included).
 * Process A: queue 0 at +10 (adjustment), queue 1 at -10; process B: one queue at 0.
 */
static void test_daemon_holds_processes_not_queues_within_one(void)
{
	static const unsigned int gpu[] = { 13001 };
	struct t_client a, b;
	char line[256];

	CU_ASSERT_FATAL(t_client_start(&a, &t_dmn, 0, T_SAME_UID, line, sizeof(line)) == 0);
	t_client_send(&a, "add 13001 10");
	CU_ASSERT_FATAL(t_client_expect(&a, "added 0", T_WAIT_MS, line, sizeof(line)) == 0);
	t_client_send(&a, "add 13001 -10");
	CU_ASSERT_FATAL(t_client_expect(&a, "added 1", T_WAIT_MS, line, sizeof(line)) == 0);
	/* Both of A's queues ready and nobody else: A's low one is lib's business, not ours. */
	t_client_send(&a, "ready 1");
	t_client_send(&a, "ready 0");
	CU_ASSERT_FALSE(t_client_sees(&a, "ev preempt", 300));
	/* B at 0 joins: A's high queue outranks it, so B's queue starts held, and A's low
	 * queue stays with A (lib holds it in-process). */
	CU_ASSERT_FATAL(t_client_start(&b, &t_dmn, 0, T_SAME_UID, line, sizeof(line)) == 0);
	t_client_send(&b, "add %u", gpu[0]);
	CU_ASSERT_FATAL(t_client_expect(&b, "added 0", T_WAIT_MS, line, sizeof(line)) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "held=1"));
	t_client_send(&b, "ready 0");
	CU_ASSERT_FALSE(t_client_sees(&a, "ev preempt", 300));
	/* A's high queue goes idle: A now competes at -10, below B: B runs, A's low is held. */
	t_client_send(&a, "idle 0");
	CU_ASSERT(t_client_sees(&b, "ev resume 0", T_WAIT_MS));
	CU_ASSERT(t_client_sees(&a, "ev preempt 1", T_WAIT_MS));
	/* A's high queue is ready again: A competes at 10, B is held and A's low released. */
	t_client_send(&a, "ready 0");
	CU_ASSERT(t_client_sees(&b, "ev preempt 0", T_WAIT_MS));
	CU_ASSERT(t_client_sees(&a, "ev resume 1", T_WAIT_MS));
	t_client_stop(&a);
	CU_ASSERT(t_client_sees(&b, "ev resume 0", T_WAIT_MS));
	t_client_stop(&b);
}

static const struct t_case cases[] = {
	T_CASE(test_registry_lists_processes_and_queues),
	T_CASE(test_hpf_across_processes_preempts_lower_and_resumes),
	T_CASE(test_queue_created_while_preempted_starts_preempted),
	T_CASE(test_three_processes_three_priorities_two_devices),
	T_CASE(test_hsaqmctl_sets_queue_priority_and_policy),
	T_CASE(test_daemon_holds_processes_not_queues_within_one),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsaqmd-hpf", t_hsaqmd_suite_init, t_hsaqmd_suite_fini, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (t_hsaqmd_args(argc, argv, "[DAEMON-OPTION]"))
		return T_EXIT_FAIL;
	t_bins.daemon_flag = argc > 4 ? argv[4] : NULL;
	return t_run("hsaqmd-hpf", suites);
}
