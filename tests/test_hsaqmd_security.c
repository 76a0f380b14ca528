/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd's security with a second uid: a non-root process takes at most its uid's cap, cannot
 * raise itself past it later, cannot change another uid's process or queue, and cannot set
 * the node's policy; root can. The second uid is nobody (a forked child that setuid()s), so
 * this needs root: skipped (77) otherwise.
 *
 * Usage (meson passes the binaries): test-hsaqmd-security HSAQMD HSAQMCTL T-DCLIENT
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_cunit.h"
#include "t_proc.h"

#define WAIT_MS 5000
#define OTHER_UID 1234u /* no cap line: the default cap */

static struct t_daemon dmn;

static int suite_init(void)
{
	FILE *f;

	if (t_daemon_init(&dmn))
		return -1;
	snprintf(dmn.config, sizeof(dmn.config), "%s/hsaqmd.conf", dmn.dir);
	f = fopen(dmn.config, "w");
	if (!f)
		return -1;
	fprintf(f, "# nobody may go up to 3; everyone else non-root to 0\n"
		   "cap.default = 0\ncap.%u = 3\n", T_NOBODY);
	fclose(f);
	return t_daemon_start(&dmn) ? -1 : 0;
}

static int suite_fini(void)
{
	t_daemon_fini(&dmn);
	return 0;
}

/* The "priority" of the process with @pid in `hsaqmctl list --json`, or -1000. */
static int listed_priority(pid_t pid)
{
	char out[16384], key[64];
	char *p;

	if (t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL))
		return -1000;
	snprintf(key, sizeof(key), "\"pid\": %d,", (int)pid);
	p = strstr(out, key);
	p = p ? strstr(p, "\"priority\": ") : NULL;
	return p ? atoi(p + 12) : -1000;
}

static void test_second_uid_is_capped_and_cannot_touch_the_first(void)
{
	struct t_client root_cl, nob, other;
	char line[256], out[4096], pid[32], q[32];
	unsigned int root_q, nob_q;

	CU_ASSERT_FATAL(t_client_start(&root_cl, &dmn, 5, T_SAME_UID, line, sizeof(line)) == 0);
	CU_ASSERT_STRING_EQUAL(line, "open ok granted=5");
	t_client_send(&root_cl, "add 1");
	CU_ASSERT_FATAL(t_client_expect(&root_cl, "added", WAIT_MS, line, sizeof(line)) == 0);
	CU_ASSERT_FATAL(sscanf(line, "added 0 qid=%u", &root_q) == 1);

	/* nobody asks for 50 and gets its cap, 3. */
	CU_ASSERT_FATAL(t_client_start(&nob, &dmn, 50, T_NOBODY, line, sizeof(line)) == 0);
	CU_ASSERT_STRING_EQUAL(line, "open ok granted=3");
	/* Later, above the cap: refused, nothing changes; within it: fine. */
	t_client_send(&nob, "prio 10");
	CU_ASSERT(t_client_sees(&nob, "prio rc=-1 granted=3", WAIT_MS)); /* -EPERM */
	t_client_send(&nob, "prio 2");
	CU_ASSERT(t_client_sees(&nob, "prio rc=0 granted=2", WAIT_MS));
	/* A queue adjustment cannot lift it past the cap either. */
	t_client_send(&nob, "add 1 50");
	CU_ASSERT_FATAL(t_client_expect(&nob, "added", WAIT_MS, line, sizeof(line)) == 0);
	CU_ASSERT_FATAL(sscanf(line, "added 0 qid=%u", &nob_q) == 1);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	snprintf(q, sizeof(q), "\"queue\": \"q%u\"", nob_q);
	char *p = strstr(out, q);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_PTR_NOT_NULL(strstr(p, "\"priority\": 3,"));
	/* And so it does not preempt root's queue of priority 5. */
	t_client_send(&root_cl, "ready 0");
	t_client_send(&nob, "ready 0");
	CU_ASSERT(t_client_sees(&nob, "ev preempt 0", WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&root_cl, "ev preempt", 200));

	/* hsaqmctl as nobody: root's process and root's queue are not its to change. */
	snprintf(pid, sizeof(pid), "%d", (int)root_cl.pid);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_NOBODY, out, sizeof(out), "set-priority", pid, "-50", NULL), 1);
	CU_ASSERT_EQUAL(listed_priority(root_cl.pid), 5);
	snprintf(q, sizeof(q), "q%u", root_q);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_NOBODY, out, sizeof(out), "set-priority", q, "-50", NULL), 1);
	CU_ASSERT_FALSE(t_client_sees(&root_cl, "ev preempt", 200));
	/* Its own process: within the cap yes, above no. */
	snprintf(pid, sizeof(pid), "%d", (int)nob.pid);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_NOBODY, out, sizeof(out), "set-priority", pid, "1", NULL), 0);
	CU_ASSERT_EQUAL(listed_priority(nob.pid), 1);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_NOBODY, out, sizeof(out), "set-priority", pid, "4", NULL), 1);
	CU_ASSERT_EQUAL(listed_priority(nob.pid), 1);
	/* The node's policy is root's. */
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_NOBODY, out, sizeof(out), "policy", "all", "none", NULL), 1);
	CU_ASSERT_FALSE(t_client_sees(&nob, "ev resume", 200));
	/* Root may lift nobody's process past its cap: now nobody's queue wins. */
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "set-priority", pid, "20", NULL), 0);
	CU_ASSERT(t_client_sees(&nob, "ev resume 0", WAIT_MS));
	CU_ASSERT(t_client_sees(&root_cl, "ev preempt 0", WAIT_MS));

	/* A uid without a cap line gets the default cap, 0. */
	CU_ASSERT_FATAL(t_client_start(&other, &dmn, 1, OTHER_UID, line, sizeof(line)) == 0);
	CU_ASSERT_STRING_EQUAL(line, "open ok granted=0");
	t_client_stop(&other);
	t_client_stop(&nob);
	t_client_stop(&root_cl);
}

static const struct t_case cases[] = {
	T_CASE(test_second_uid_is_capped_and_cannot_touch_the_first),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsaqmd-security", suite_init, suite_fini, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s HSAQMD HSAQMCTL T-DCLIENT\n", argv[0]);
		return T_EXIT_FAIL;
	}
	if (geteuid() != 0)
		return t_skip("hsaqmd-security", "needs root to run a second uid (setuid nobody)");
	t_bins.hsaqmd = argv[1];
	t_bins.hsaqmctl = argv[2];
	t_bins.dclient = argv[3];
	signal(SIGPIPE, SIG_IGN);
	return t_run("hsaqmd-security", suites);
}
