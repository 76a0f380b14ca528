/* SPDX-License-Identifier: MIT */
/*
 * The one rule for a socket's path before bind() (hsaqm-common/sockfile.h), and the two programs
 * that follow it: a socket somebody listens on is never replaced, one nobody answers on (its
 * listener died) is, and a file, a directory or a symbolic link at the path is refused and left
 * as it was. hsaqmd and hsaqm-simd each start on a dead socket and refuse a live one.
 *
 * Usage (meson passes the binaries): test-sockfile HSAQMD HSAQM-SIMD
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hsaqm-common/sockfile.h"
#include "t_cunit.h"
#include "t_time.h"

static const char *g_hsaqmd, *g_simd;
static char g_dir[40];
static char g_path[128];

static struct sockaddr_un addr(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	snprintf(a.sun_path, sizeof(a.sun_path), "%.100s", path);
	return a;
}

/* A socket of @type bound at @path; listening when @listening. The fd, or -1. */
static int bound(const char *path, int type, bool listening)
{
	struct sockaddr_un a = addr(path);
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    (listening && listen(fd, 4) < 0)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* A socket file whose listener died: bound, listened on, closed. */
static bool dead_socket(const char *path)
{
	int fd = bound(path, SOCK_SEQPACKET, true);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool can_connect(const char *path)
{
	struct sockaddr_un a = addr(path);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;

	if (fd >= 0)
		close(fd);
	return ok;
}

static ino_t inode(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? st.st_ino : 0;
}

static void case_setup(const char *name)
{
	snprintf(g_path, sizeof(g_path), "%s/%s", g_dir, name);
	unlink(g_path);
}

static void test_nothing_at_the_path_is_free(void)
{
	case_setup("none.sock");
	CU_ASSERT_EQUAL(hsaqm_sockfile_clear(g_path, SOCK_SEQPACKET, NULL), 0);
}

static void test_a_dead_socket_is_removed(void)
{
	case_setup("dead.sock");
	CU_ASSERT_FATAL(dead_socket(g_path));
	CU_ASSERT_EQUAL(hsaqm_sockfile_clear(g_path, SOCK_SEQPACKET, NULL), 0);
	CU_ASSERT_EQUAL(access(g_path, F_OK), -1);
}

static void test_a_live_socket_is_never_removed(void)
{
	int fd;

	case_setup("live.sock");
	fd = bound(g_path, SOCK_SEQPACKET, true);
	CU_ASSERT_FATAL(fd >= 0);
	ino_t before = inode(g_path);

	CU_ASSERT_EQUAL(hsaqm_sockfile_clear(g_path, SOCK_SEQPACKET, NULL), -EADDRINUSE);
	CU_ASSERT_EQUAL(inode(g_path), before);
	CU_ASSERT(can_connect(g_path)); /* the listener still answers */
	close(fd);
	unlink(g_path);
}

/* A live stream listener probed as a seqpacket one (EPROTOTYPE) is alive all the same. */
static void test_a_live_socket_of_another_type_is_never_removed(void)
{
	int fd;

	case_setup("stream.sock");
	fd = bound(g_path, SOCK_STREAM, true);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(hsaqm_sockfile_clear(g_path, SOCK_SEQPACKET, NULL), -EADDRINUSE);
	CU_ASSERT_EQUAL(access(g_path, F_OK), 0);
	close(fd);
	unlink(g_path);
}

static void test_a_regular_file_is_refused_and_kept(void)
{
	static const char data[] = "precious data\n";
	char back[32] = "";
	mode_t mode = 0;
	int fd;

	case_setup("notes.txt");
	fd = open(g_path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, data, sizeof(data) - 1) == (ssize_t)sizeof(data) - 1);
	close(fd);
	CU_ASSERT_EQUAL(hsaqm_sockfile_clear(g_path, SOCK_SEQPACKET, &mode), -EEXIST);
	CU_ASSERT(S_ISREG(mode));
	fd = open(g_path, O_RDONLY | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(read(fd, back, sizeof(back)) == (ssize_t)sizeof(data) - 1);
	close(fd);
	CU_ASSERT_STRING_EQUAL(back, data);
	unlink(g_path);
}

static void test_a_directory_is_refused_and_kept(void)
{
	mode_t mode = 0;

	case_setup("dir.sock");
	CU_ASSERT_FATAL(mkdir(g_path, 0700) == 0);
	CU_ASSERT_EQUAL(hsaqm_sockfile_clear(g_path, SOCK_SEQPACKET, &mode), -EEXIST);
	CU_ASSERT(S_ISDIR(mode));
	CU_ASSERT_EQUAL(rmdir(g_path), 0);
}

/* A link is not followed: even one to a dead socket is somebody's, not ours to remove. */
static void test_a_symbolic_link_is_refused_and_kept(void)
{
	char target[160];

	case_setup("link.sock");
	snprintf(target, sizeof(target), "%s/target.sock", g_dir);
	unlink(target);
	CU_ASSERT_FATAL(dead_socket(target));
	CU_ASSERT_FATAL(symlink(target, g_path) == 0);
	CU_ASSERT_EQUAL(hsaqm_sockfile_clear(g_path, SOCK_SEQPACKET, NULL), -EEXIST);
	CU_ASSERT_EQUAL(access(target, F_OK), 0);
	CU_ASSERT_EQUAL(unlink(g_path), 0);
	unlink(target);
}

static void test_bad_arguments_are_einval(void)
{
	CU_ASSERT_EQUAL(hsaqm_sockfile_clear(NULL, SOCK_SEQPACKET, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_sockfile_clear("", SOCK_SEQPACKET, NULL), -EINVAL);
}

/* ---- the programs ------------------------------------------------------------------- */

/* Start @argv with stderr into @errpath. The pid, or -1. */
static pid_t spawn(const char *const argv[], const char *errpath)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		int err = open(errpath, O_CREAT | O_WRONLY | O_TRUNC, 0600);

		dup2(null, 1);
		dup2(err, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* The program's exit code, -1 if it did not exit within 10 s (then killed). */
static int exit_code(pid_t pid)
{
	int status = 0;

	if (!T_UNTIL(waitpid(pid, &status, WNOHANG) == pid, 10 * T_S)) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Whether the file at @path contains @needle; prints the file when it does not. */
static bool file_has(const char *path, const char *needle)
{
	char buf[4096] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (strstr(buf, needle))
		return true;
	fprintf(stderr, "expected \"%s\" in:\n%s\n", needle, buf);
	return false;
}

/* @prog on a dead socket at the path starts and answers there; then it is stopped. */
static void program_replaces_a_dead_socket(const char *const argv[])
{
	char errpath[160];
	pid_t pid;

	snprintf(errpath, sizeof(errpath), "%s/stderr", g_dir);
	CU_ASSERT_FATAL(dead_socket(g_path));
	CU_ASSERT_FATAL(!can_connect(g_path));
	pid = spawn(argv, errpath);
	CU_ASSERT_FATAL(pid > 0);
	/* Somebody answers where nobody did: the program's own socket. */
	CU_ASSERT(T_UNTIL(can_connect(g_path), 10 * T_S));
	/* Its exit status is not the point (a SIGTERM may come before hsaqm-simd handles it). */
	kill(pid, SIGTERM);
	exit_code(pid);
	unlink(g_path);
	unlink(errpath);
}

/* @prog on a live socket at the path refuses (exit 1, @said on stderr); the socket stays. */
static void program_refuses_a_live_socket(const char *const argv[], const char *said)
{
	char errpath[160];
	int fd;

	snprintf(errpath, sizeof(errpath), "%s/stderr", g_dir);
	fd = bound(g_path, SOCK_SEQPACKET, true);
	CU_ASSERT_FATAL(fd >= 0);
	ino_t live = inode(g_path);
	pid_t pid = spawn(argv, errpath);

	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(exit_code(pid), 1);
	CU_ASSERT(file_has(errpath, said));
	CU_ASSERT_EQUAL(inode(g_path), live);
	CU_ASSERT(can_connect(g_path));
	close(fd);
	unlink(g_path);
	unlink(errpath);
}

static void test_hsaqmd_replaces_a_dead_socket_and_refuses_a_live_one(void)
{
	const char *argv[] = { g_hsaqmd, "--config", "/dev/null", "--socket", g_path, NULL };
	char said[200];

	case_setup("hsaqmd.sock");
	program_replaces_a_dead_socket(argv);
	snprintf(said, sizeof(said), "another daemon listens on %s", g_path);
	program_refuses_a_live_socket(argv, said);
}

static void test_simd_replaces_a_dead_socket_and_refuses_a_live_one(void)
{
	const char *argv[] = { g_simd, "--socket", g_path, NULL };
	char said[200];

	case_setup("simd.sock");
	program_replaces_a_dead_socket(argv);
	snprintf(said, sizeof(said), "cannot listen on %s: %s", g_path, strerror(EADDRINUSE));
	program_refuses_a_live_socket(argv, said);
}

static const struct t_case cases[] = {
	T_CASE(test_nothing_at_the_path_is_free),
	T_CASE(test_a_dead_socket_is_removed),
	T_CASE(test_a_live_socket_is_never_removed),
	T_CASE(test_a_live_socket_of_another_type_is_never_removed),
	T_CASE(test_a_regular_file_is_refused_and_kept),
	T_CASE(test_a_directory_is_refused_and_kept),
	T_CASE(test_a_symbolic_link_is_refused_and_kept),
	T_CASE(test_bad_arguments_are_einval),
	T_CASE(test_hsaqmd_replaces_a_dead_socket_and_refuses_a_live_one),
	T_CASE(test_simd_replaces_a_dead_socket_and_refuses_a_live_one),
	T_CASES_END,
};

static int suite_init(void)
{
	strcpy(g_dir, "/tmp/hsaqm-sockfile-XXXXXX");
	return mkdtemp(g_dir) ? 0 : -1;
}

static int suite_fini(void)
{
	return rmdir(g_dir) == 0 ? 0 : -1;
}

static const struct t_suite suites[] = {
	{ "sockfile", suite_init, suite_fini, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s HSAQMD HSAQM-SIMD\n", argv[0]);
		return T_EXIT_FAIL;
	}
	g_hsaqmd = argv[1];
	g_simd = argv[2];
	signal(SIGPIPE, SIG_IGN);
	return t_run("sockfile", suites);
}
