/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd's socket and its clients' search for it: no daemon is a quiet -ENOENT; a path that
 * is not a socket is never replaced; a refused socket directory is said with its own reason,
 * and a refusal names where the path came from; a bad HSAQM_DAEMON or HSAQM_REALTIME is said
 * once and the default stands.
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

/* Issue 18 item 6: --socket naming a file (or a directory) never removes it. */
static void test_a_socket_path_that_is_not_a_socket_is_never_replaced(void)
{
	static const char data[] = "my notes\n";
	char file[128], out[2048], back[32] = "";
	int fd;

	snprintf(file, sizeof(file), "%s/notes.txt", t_dmn.dir);
	fd = open(file, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, data, sizeof(data) - 1) == (ssize_t)sizeof(data) - 1);
	close(fd);
	CU_ASSERT_EQUAL(t_run_hsaqmd(out, sizeof(out), "--socket", file, NULL, NULL), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "is a file, not a socket"));
	CU_ASSERT_PTR_NULL(strchr(out, '\n') ? strchr(strchr(out, '\n') + 1, '\n') : NULL);
	fd = open(file, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(read(fd, back, sizeof(back)) == (ssize_t)sizeof(data) - 1);
	close(fd);
	CU_ASSERT_STRING_EQUAL(back, data);
	unlink(file);
	/* A directory: said as such (not "Address already in use"), once. */
	CU_ASSERT_EQUAL(t_run_hsaqmd(out, sizeof(out), "--socket", t_dmn.dir, NULL, NULL), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "is a directory, not a socket"));
	CU_ASSERT_PTR_NULL(strstr(out, "in use"));
	/* One line. */
	CU_ASSERT_PTR_NULL(strchr(out, '\n') ? strchr(strchr(out, '\n') + 1, '\n') : NULL);
}

static void test_no_daemon_is_quiet_enoent(void)
{
	struct t_daemon none;
	struct t_client c;
	char line[256];
	int status;

	CU_ASSERT_FATAL(t_daemon_init(&none) == 0);
	CU_ASSERT_EQUAL(t_client_start(&c, &none, 0, T_SAME_UID, line, sizeof(line)), 0);
	CU_ASSERT_STRING_EQUAL(line, "open rc=-2");
	status = t_client_stop(&c);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	CU_ASSERT_EQUAL(t_ctl(&none, T_SAME_UID, line, sizeof(line), "list", NULL), 3);
	t_daemon_fini(&none);
}

/* Occurrences of @needle in @text. */
static int count_of(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/*
 * t-dclient with @var=@value in its environment (NULL: neither set), its socket @sock (NULL:
 * its own search), stdin empty (it opens, then leaves); its output in @out.
 */
static void dclient_with_env(const char *var, const char *value, const char *sock, char *out,
			     size_t len)
{
	const char *argv[] = { "/bin/sh", "-c", "exec \"$0\" \"$@\" </dev/null", t_bins.dclient,
			       sock ? "--socket" : NULL, sock, NULL };

	if (var)
		setenv(var, value, 1);
	t_exec(T_SAME_UID, false, 10000, out, len, argv);
	if (var)
		unsetenv(var);
}

/*
 * Issue 25 item 7.1: HSAQM_DAEMON and HSAQM_REALTIME say a bad value as every other variable
 * does: once, naming the variable, the value and why, and the default stands. A value that
 * is right (off, a socket, a path with nothing there yet, a priority) is quiet.
 */
static void test_a_bad_hsaqm_daemon_or_realtime_is_said_once_and_the_default_stands(void)
{
	char out[4096], path[192], expect[256];
	const char *ctl[] = { t_bins.hsaqmctl, "list", NULL };

	dclient_with_env("HSAQM_DAEMON", "/etc/passwd", NULL, out, sizeof(out));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "HSAQM_DAEMON=\"/etc/passwd\" is not valid (a file, "
				       "not a socket;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "using the default, /"));
	CU_ASSERT_EQUAL(count_of(out, "HSAQM_DAEMON"), 1);
	dclient_with_env("HSAQM_DAEMON", "hsaqmd.sock", NULL, out, sizeof(out));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "HSAQM_DAEMON=\"hsaqmd.sock\" is not valid (not an "
				       "absolute path;"));
	dclient_with_env("HSAQM_DAEMON", t_dmn.dir, NULL, out, sizeof(out));
	snprintf(expect, sizeof(expect), "HSAQM_DAEMON=\"%s\" is not valid (a directory, not a "
		 "socket;", t_dmn.dir);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	/* hsaqmctl searches the same way and says the same. */
	setenv("HSAQM_DAEMON", "/etc/passwd", 1);
	t_exec(T_SAME_UID, false, 10000, out, sizeof(out), ctl);
	unsetenv("HSAQM_DAEMON");
	CU_ASSERT_EQUAL(count_of(out, "HSAQM_DAEMON=\"/etc/passwd\" is not valid"), 1);

	/* Right values: quiet. Off means never; nothing there yet is no daemon; a socket is. */
	dclient_with_env("HSAQM_DAEMON", "off", NULL, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "open rc=-2\n");
	snprintf(path, sizeof(path), "%s/later.sock", t_dmn.dir);
	dclient_with_env("HSAQM_DAEMON", path, NULL, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "open rc=-2\n");
	dclient_with_env("HSAQM_DAEMON", t_dmn.sock, NULL, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "open ok granted=0\n");

	/* HSAQM_REALTIME: auto, on, off or 1..99 (docs/environment.md); 100 is none of them. */
	dclient_with_env("HSAQM_REALTIME", "100", path, out, sizeof(out));
	CU_ASSERT_EQUAL(count_of(out, "HSAQM_REALTIME=\"100\" is not valid (auto, on, off or "
				      "1..99): using auto"), 1);
	CU_ASSERT_EQUAL(count_of(out, "\n"), 2);
	dclient_with_env("HSAQM_REALTIME", "50", path, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "open rc=-2\n");
	dclient_with_env("HSAQM_REALTIME", "off", path, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "open rc=-2\n");
}

/* hsaqm_sock_dir_check()'s reason for @dir at @mode (checked as @owner): in @why. */
static int dir_reason(const char *dir, mode_t mode, uid_t owner, char *why, size_t len)
{
	char sock[256];

	snprintf(sock, sizeof(sock), "%s/hsaqmd.sock", dir);
	if (chmod(dir, mode) < 0)
		return -errno;
	return hsaqm_sock_dir_check(sock, owner, why, len);
}

/*
 * Issue 25 item 7.2: a socket directory is refused with its own reason, naming it: owned by
 * another uid, or writable by its group, by others, or by both; never one reason for all.
 */
static void test_a_refused_socket_directory_is_said_with_its_own_reason(void)
{
	char dir[160], why[512], expect[512], sock[192], out[2048];
	const char *argv[] = { t_bins.hsaqmd, "--socket", sock, NULL };
	uid_t me = geteuid();

	snprintf(dir, sizeof(dir), "%s/sockdir", t_dmn.dir);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
	CU_ASSERT_EQUAL(dir_reason(dir, 0755, me, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(dir_reason(dir, 0775, me, why, sizeof(why)), -EPERM);
	snprintf(expect, sizeof(expect), "%s is writable by its group (mode 0775)", dir);
	CU_ASSERT_STRING_EQUAL(why, expect);
	CU_ASSERT_EQUAL(dir_reason(dir, 0757, me, why, sizeof(why)), -EPERM);
	snprintf(expect, sizeof(expect), "%s is writable by others (mode 0757)", dir);
	CU_ASSERT_STRING_EQUAL(why, expect);
	CU_ASSERT_EQUAL(dir_reason(dir, 0777, me, why, sizeof(why)), -EPERM);
	snprintf(expect, sizeof(expect), "%s is writable by its group and others (mode 0777)", dir);
	CU_ASSERT_STRING_EQUAL(why, expect);
	/* Another user's: as root, a directory of uid 1234; else ours, checked for uid + 1. */
	if (me == 0) {
		CU_ASSERT_FATAL(chown(dir, 1234, 1234) == 0);
		CU_ASSERT_EQUAL(dir_reason(dir, 0755, 0, why, sizeof(why)), -EPERM);
		snprintf(expect, sizeof(expect), "%s is owned by uid 1234, not by root", dir);
	} else {
		CU_ASSERT_EQUAL(dir_reason(dir, 0755, me + 1, why, sizeof(why)), -EPERM);
		snprintf(expect, sizeof(expect), "%s is owned by uid %u, not by uid %u or root", dir,
			 (unsigned int)me, (unsigned int)me + 1);
	}
	CU_ASSERT_STRING_EQUAL(why, expect);
	/* The daemon says the same, naming where the path came from. */
	snprintf(sock, sizeof(sock), "%s/hsaqmd.sock", dir);
	CU_ASSERT_EQUAL(chown(dir, me, getegid()), 0);
	CU_ASSERT_EQUAL(chmod(dir, 0777), 0);
	CU_ASSERT_EQUAL(t_exec(T_SAME_UID, false, 10000, out, sizeof(out), argv), 1);
	snprintf(expect, sizeof(expect), "hsaqmd: refusing the socket %s, from --socket: %s is "
		 "writable by its group and others (mode 0777)", sock, dir);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	CU_ASSERT_EQUAL(count_of(out, "\n"), 1);
	CU_ASSERT_EQUAL(access(sock, F_OK), -1);
	rmdir(dir);
}

/*
 * Issue 25 item 7.3: a socket path that is a file is refused with advice naming where the
 * path came from: the configuration's line (not --socket) or --socket.
 */
static void test_a_socket_refusal_names_where_the_path_came_from(void)
{
	char conf[160], file[160], out[2048], expect[512], text[256];
	int fd, n;

	snprintf(file, sizeof(file), "%s/notes.txt", t_dmn.dir);
	snprintf(conf, sizeof(conf), "%s/from.conf", t_dmn.dir);
	fd = open(file, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	n = snprintf(text, sizeof(text), "# the socket\nsocket = %s\n", file);
	fd = open(conf, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, text, (size_t)n) == n);
	close(fd);
	CU_ASSERT_EQUAL(t_run_hsaqmd(out, sizeof(out), "--config", conf, NULL, NULL), 1);
	snprintf(expect, sizeof(expect), "is a file, not a socket: refusing to replace it (the "
		 "path is %s:2 (socket =): make it the path of the socket itself)", conf);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	CU_ASSERT_PTR_NULL(strstr(out, "--socket"));
	/* --socket wins over the file, and the advice says so. */
	CU_ASSERT_EQUAL(t_run_hsaqmd(out, sizeof(out), "--config", conf, "--socket", file), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "(give --socket the path of the socket itself)"));
	CU_ASSERT_PTR_NULL(strstr(out, "socket ="));
	unlink(conf);
	unlink(file);
}

static const struct t_case cases[] = {
	T_CASE(test_no_daemon_is_quiet_enoent),
	T_CASE(test_a_socket_path_that_is_not_a_socket_is_never_replaced),
	T_CASE(test_a_bad_hsaqm_daemon_or_realtime_is_said_once_and_the_default_stands),
	T_CASE(test_a_refused_socket_directory_is_said_with_its_own_reason),
	T_CASE(test_a_socket_refusal_names_where_the_path_came_from),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsaqmd-socket", t_hsaqmd_suite_init, t_hsaqmd_suite_fini, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (t_hsaqmd_args(argc, argv, "[DAEMON-OPTION]"))
		return T_EXIT_FAIL;
	t_bins.daemon_flag = argc > 4 ? argv[4] : NULL;
	return t_run("hsaqmd-socket", suites);
}
