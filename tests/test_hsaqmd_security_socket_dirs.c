/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd against the hostile local user of issue 18: socket directories another user owns are
 * refused by the daemon, by clients and by hsaqmctl; the same default socket is found by all
 * three; a daemon not permitted real time says so once.
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

/* ---- issue 18 item 3: socket directories ---------------------------------------------------- */

#define NOBODY_DIR "/tmp/hsaqm-65534"

/*
 * A daemon refuses a socket directory another user owns; nobody's daemon without
 * XDG_RUNTIME_DIR refuses /tmp/hsaqm-65534 made by another user, and nobody's client and
 * hsaqmctl do not connect to the daemon that user put there. With the directory its own,
 * nobody's daemon, client and hsaqmctl all find the same socket; the daemon, not permitted
 * real time, says so in one line.
 */
static void test_socket_directories_of_other_users_are_refused(void)
{
	struct t_daemon hostile, mine;
	struct t_client c;
	char dir[128], sock[160], out[4096], line[256];
	const char *argv[4] = { t_bins.hsaqmd, "--socket", sock, NULL };
	const char *ctl[3] = { t_bins.hsaqmctl, "list", NULL };
	const char *daemon_default[2] = { t_bins.hsaqmd, NULL };

	/* A directory of uid 1234 under the test's own: root's daemon will not bind there. */
	snprintf(dir, sizeof(dir), "%s/theirs", t_dmn.dir);
	CU_ASSERT_FATAL(mkdir(dir, 0755) == 0 && chown(dir, T_OTHER_UID, T_OTHER_UID) == 0);
	snprintf(sock, sizeof(sock), "%s/hsaqmd.sock", dir);
	CU_ASSERT_EQUAL(t_exec(T_SAME_UID, false, 10000, out, sizeof(out), argv), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "is owned by uid 1234"));
	CU_ASSERT_EQUAL(access(sock, F_OK), -1);
	rmdir(dir);

	if (access(NOBODY_DIR, F_OK) == 0) {
		printf("\n    " NOBODY_DIR " exists on this machine: the default-path cases skipped");
		return;
	}
	/* Uid 1234 made nobody's default directory first, and runs its own daemon in it. */
	CU_ASSERT_FATAL(mkdir(NOBODY_DIR, 0755) == 0 &&
			chown(NOBODY_DIR, T_OTHER_UID, T_OTHER_UID) == 0);
	CU_ASSERT_EQUAL(t_exec(T_NOBODY, true, 10000, out, sizeof(out), daemon_default), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "refusing the socket " NOBODY_DIR "/hsaqmd.sock"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "is owned by uid 1234"));
	CU_ASSERT_FATAL(t_daemon_init(&hostile) == 0);
	rmdir(hostile.dir);
	snprintf(hostile.dir, sizeof(hostile.dir), "%s", NOBODY_DIR);
	snprintf(hostile.sock, sizeof(hostile.sock), NOBODY_DIR "/hsaqmd.sock");
	hostile.uid = T_OTHER_UID;
	CU_ASSERT_FATAL(t_daemon_start_as(&hostile) == 0);
	/* nobody's client and hsaqmctl, searching as they do, find that socket and refuse it. */
	CU_ASSERT_EQUAL(t_client_start_opt(&c, NULL, 0, T_NOBODY, false, line, sizeof(line)), 0);
	CU_ASSERT_STRING_EQUAL(line, "open rc=-1"); /* -EPERM */
	t_client_stop(&c);
	CU_ASSERT_EQUAL(t_exec(T_NOBODY, true, 10000, out, sizeof(out), ctl), 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "not connecting to " NOBODY_DIR "/hsaqmd.sock"));
	t_daemon_fini(&hostile); /* stops it, removes the directory */

	/* Its own directory: daemon, client and hsaqmctl all find the same default socket. */
	CU_ASSERT_FATAL(t_daemon_init(&mine) == 0);
	snprintf(mine.log, sizeof(mine.log), "%s/nobody.log", mine.dir);
	chmod(mine.dir, 0777); /* the log, written as nobody */
	snprintf(mine.sock, sizeof(mine.sock), NOBODY_DIR "/hsaqmd.sock");
	mine.uid = T_NOBODY;
	mine.default_socket = true;
	CU_ASSERT_FATAL(t_daemon_start_as(&mine) == 0);
	CU_ASSERT_EQUAL(t_client_start_opt(&c, NULL, 0, T_NOBODY, false, line, sizeof(line)), 0);
	CU_ASSERT_STRING_EQUAL(line, "open ok granted=0");
	CU_ASSERT_EQUAL(t_exec(T_NOBODY, true, 10000, out, sizeof(out), ctl), 0);
	snprintf(line, sizeof(line), "%d ", (int)c.pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, line));
	t_client_stop(&c);
	t_daemon_stop(&mine, SIGTERM);
	/* Item 10: not permitted SCHED_FIFO, it said so, once. */
	FILE *f = fopen(mine.log, "r");
	int lines = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof(line), f))
		lines += strstr(line, "SCHED_FIFO not permitted") != NULL;
	fclose(f);
	CU_ASSERT_EQUAL(lines, 1);
	unlink(mine.log);
	t_daemon_fini(&mine);
	unlink(NOBODY_DIR "/hsaqmd.sock");
	rmdir(NOBODY_DIR);
}

static const struct t_case cases[] = {
	T_CASE(test_socket_directories_of_other_users_are_refused),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsaqmd-security-socket-dirs", t_security_suite_init, t_security_suite_fini, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (t_hsaqmd_args(argc, argv, ""))
		return T_EXIT_FAIL;
	if (geteuid() != 0)
		return t_skip("hsaqmd-security-socket-dirs", "needs root to run a second uid (setuid nobody)");
	return t_run("hsaqmd-security-socket-dirs", suites);
}
