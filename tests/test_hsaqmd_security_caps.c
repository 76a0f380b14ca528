/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd with a second uid: a non-root process takes at most its uid's cap, cannot raise itself
 * above it later, cannot change another uid's process or queue, and cannot set the node's
 * policy; root can. A user sees only its own processes.
 *
 * Usage (meson passes the binaries): test-hsaqmd-security-* HSAQMD HSAQMCTL T-DCLIENT.
 * Needs root (a second uid); skipped (77) otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hsaqm-dclient/proto.h"

#include "t_cunit.h"
#include "t_proc.h"
#include "t_hsaqmd_security.h"

/* The "priority" of the process with @pid in `hsaqmctl list --json`, or -1000. */
static int listed_priority(pid_t pid)
{
	char out[16384], key[64];
	char *p;

	if (t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL))
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

	CU_ASSERT_FATAL(t_client_start(&root_cl, &t_dmn, 5, T_SAME_UID, line, sizeof(line)) == 0);
	CU_ASSERT_STRING_EQUAL(line, "open ok granted=5");
	t_client_send(&root_cl, "add 1");
	CU_ASSERT_FATAL(t_client_expect(&root_cl, "added", T_WAIT_MS, line, sizeof(line)) == 0);
	CU_ASSERT_FATAL(sscanf(line, "added 0 qid=%u", &root_q) == 1);

	/* nobody asks for 50 and gets its cap, 3. */
	CU_ASSERT_FATAL(t_client_start(&nob, &t_dmn, 50, T_NOBODY, line, sizeof(line)) == 0);
	CU_ASSERT_STRING_EQUAL(line, "open ok granted=3");
	/* Later, above the cap: refused, nothing changes; within it: fine. */
	t_client_send(&nob, "prio 10");
	CU_ASSERT(t_client_sees(&nob, "prio rc=-1 granted=3", T_WAIT_MS)); /* -EPERM */
	t_client_send(&nob, "prio 2");
	CU_ASSERT(t_client_sees(&nob, "prio rc=0 granted=2", T_WAIT_MS));
	/* A queue adjustment cannot lift it past the cap either. */
	t_client_send(&nob, "add 1 50");
	CU_ASSERT_FATAL(t_client_expect(&nob, "added", T_WAIT_MS, line, sizeof(line)) == 0);
	CU_ASSERT_FATAL(sscanf(line, "added 0 qid=%u", &nob_q) == 1);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	snprintf(q, sizeof(q), "\"queue\": \"q%u\"", nob_q);
	char *p = strstr(out, q);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_PTR_NOT_NULL(strstr(p, "\"priority\": 3,"));
	/* And so it does not preempt root's queue of priority 5. */
	t_client_send(&root_cl, "ready 0");
	t_client_send(&nob, "ready 0");
	CU_ASSERT(t_client_sees(&nob, "ev preempt 0", T_WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&root_cl, "ev preempt", 200));

	/* hsaqmctl as nobody: root's process and root's queue are not its to change. */
	snprintf(pid, sizeof(pid), "%d", (int)root_cl.pid);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_NOBODY, out, sizeof(out), "set-priority", pid, "-50", NULL), 1);
	CU_ASSERT_EQUAL(listed_priority(root_cl.pid), 5);
	snprintf(q, sizeof(q), "q%u", root_q);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_NOBODY, out, sizeof(out), "set-priority", q, "-50", NULL), 1);
	CU_ASSERT_FALSE(t_client_sees(&root_cl, "ev preempt", 200));
	/* Its own process: within the cap yes, above no. */
	snprintf(pid, sizeof(pid), "%d", (int)nob.pid);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_NOBODY, out, sizeof(out), "set-priority", pid, "1", NULL), 0);
	CU_ASSERT_EQUAL(listed_priority(nob.pid), 1);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_NOBODY, out, sizeof(out), "set-priority", pid, "4", NULL), 1);
	CU_ASSERT_EQUAL(listed_priority(nob.pid), 1);
	/* The node's policy is root's, and the refusal says so (not set-priority's words). */
	const char *pol[] = { t_bins.hsaqmctl, "--socket", t_dmn.sock, "policy", "all", "none", NULL };

	CU_ASSERT_EQUAL(t_exec(T_NOBODY, false, 5000, out, sizeof(out), pol), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "a policy is set by root or the daemon's own user"));
	CU_ASSERT_FALSE(t_client_sees(&nob, "ev resume", 200));
	/* Root may lift nobody's process past its cap: now nobody's queue wins. */
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "set-priority", pid, "20", NULL), 0);
	CU_ASSERT(t_client_sees(&nob, "ev resume 0", T_WAIT_MS));
	CU_ASSERT(t_client_sees(&root_cl, "ev preempt 0", T_WAIT_MS));

	/* A uid without a cap line gets the default cap, 0. */
	CU_ASSERT_FATAL(t_client_start(&other, &t_dmn, 1, T_OTHER_UID, line, sizeof(line)) == 0);
	CU_ASSERT_STRING_EQUAL(line, "open ok granted=0");
	t_client_stop(&other);
	t_client_stop(&nob);
	t_client_stop(&root_cl);
}

/* Issue 18 item 9: a user sees its own processes only; root sees everyone. */
static void test_a_user_sees_only_its_own_processes(void)
{
	struct t_client root_cl, nob;
	char line[256], out[16384], key[64];

	CU_ASSERT_FATAL(t_client_start(&root_cl, &t_dmn, 1, T_SAME_UID, line, sizeof(line)) == 0);
	CU_ASSERT_FATAL(t_client_start(&nob, &t_dmn, 0, T_NOBODY, line, sizeof(line)) == 0);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_NOBODY, out, sizeof(out), "list", "--json", NULL), 0);
	snprintf(key, sizeof(key), "\"pid\": %d,", (int)nob.pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, key));
	snprintf(key, sizeof(key), "\"pid\": %d,", (int)root_cl.pid);
	CU_ASSERT_PTR_NULL(strstr(out, key));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"hidden\": 1"));
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_NOBODY, out, sizeof(out), "list", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "(1 process of other users not shown"));
	/* Root sees both. */
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, key));
	snprintf(key, sizeof(key), "\"pid\": %d,", (int)nob.pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, key));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"hidden\": 0"));
	/* The metrics follow the same rule: nobody's view has its own series only. */
	const char *met[] = { t_bins.hsaqmctl, "--socket", t_dmn.sock, "metrics", NULL };

	CU_ASSERT_EQUAL(t_exec(T_NOBODY, false, 5000, out, sizeof(out), met), 0);
	snprintf(key, sizeof(key), "hsaqmd_process_priority{pid=\"%d\"", (int)nob.pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, key));
	snprintf(key, sizeof(key), "hsaqmd_process_priority{pid=\"%d\"", (int)root_cl.pid);
	CU_ASSERT_PTR_NULL(strstr(out, key));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "hsaqmd_processes_hidden 1"));
	/* What it cannot see it cannot name either: "no such process", not "not permitted". */
	snprintf(key, sizeof(key), "%d", (int)root_cl.pid);
	CU_ASSERT_EQUAL(t_ctl(&t_dmn, T_NOBODY, out, sizeof(out), "set-priority", key, "0", NULL), 1);
	t_client_stop(&nob);
	t_client_stop(&root_cl);
}

static const struct t_case cases[] = {
	T_CASE(test_second_uid_is_capped_and_cannot_touch_the_first),
	T_CASE(test_a_user_sees_only_its_own_processes),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsaqmd-security-caps", t_security_suite_init, t_security_suite_fini, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (t_hsaqmd_args(argc, argv, ""))
		return T_EXIT_FAIL;
	if (geteuid() != 0)
		return t_skip("hsaqmd-security-caps", "needs root to run a second uid (setuid nobody)");
	return t_run("hsaqmd-security-caps", suites);
}
