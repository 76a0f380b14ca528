/* SPDX-License-Identifier: MIT */
/*
 * test-sim-sysfs-lifetime: the model's generated sysfs tree does not outlive its process. A
 * process that exits with its model alive leaves no hsaqm-sim-sysfs-* folder; one killed with
 * SIGKILL leaves its folder until the next process makes a tree, which sweeps it; a live
 * process's tree is never swept; a forked child exiting does not take its parent's tree.
 * Every process here is a child of the test, with TMPDIR a private folder the test counts in.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_cunit.h"
#include "hsaqm-sim/sim.h"

static char tmpdir[] = "/tmp/hsaqm-t-sysfs-life-XXXXXX";
/* Reachable at exit, so LeakSanitizer sees the model a child never destroys as still in use. */
static struct hsaqm_sim *kept;

/* hsaqm-sim-sysfs-* folders in the private TMPDIR. */
static int trees(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += strncmp(de->d_name, "hsaqm-sim-sysfs-", 16) == 0;
	closedir(d);
	return n;
}

/* In a child: a real-time model (threads running) and its tree; the tree's path to @fd. */
static void child_make_model(int fd)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL };
	char path[PATH_MAX + 64] = "";
	const char *root;

	if (hsaqm_sim_create(&cfg, &kept) || !(root = hsaqm_sim_sysfs_root(kept)))
		_exit(90);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/topology/generation_id", root);
	if (access(path, R_OK))
		_exit(91);
	snprintf(path, sizeof(path), "%s", root);
	if (write(fd, path, sizeof(path)) != (ssize_t)sizeof(path))
		_exit(92);
}

/* Fork a child that makes a model, then waits for a byte on @go (or not, go < 0) and exits. */
static pid_t spawn(int report[2], int go, char *root, size_t len)
{
	char path[PATH_MAX + 64];
	pid_t pid;

	fflush(NULL); /* CUnit's buffered output must not be written again by the child */
	pid = fork();
	if (pid == 0) {
		char c;

		close(report[0]);
		child_make_model(report[1]);
		if (go >= 0 && read(go, &c, 1) < 0)
			_exit(93);
		exit(0); /* exit handlers run; the model is never destroyed */
	}
	if (pid < 0 || read(report[0], path, sizeof(path)) != (ssize_t)sizeof(path)) {
		printf("\n  the child made no model (pid %d)\n", (int)pid);
		return -1;
	}
	snprintf(root, len, "%s", path);
	return pid;
}

static int reap(pid_t pid)
{
	int st = -1;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static void test_sysfs_tree_gone_when_process_exits_with_model_alive(void)
{
	int p[2];
	char root[PATH_MAX + 64];
	pid_t pid;
	int st;

	CU_ASSERT_FATAL(pipe(p) == 0);
	pid = spawn(p, -1, root, sizeof(root));
	CU_ASSERT_FATAL(pid > 0);
	st = reap(pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		printf("\n  child status 0x%x\n", st);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (access(root, F_OK) == 0 || trees())
		printf("\n  left behind: %s (%d trees in %s)\n", root, trees(), tmpdir);
	CU_ASSERT_EQUAL(access(root, F_OK), -1);
	CU_ASSERT_EQUAL(trees(), 0);
	close(p[0]);
	close(p[1]);
}

static void test_sysfs_tree_of_killed_process_swept_by_next_one(void)
{
	int p[2], go[2];
	char killed[PATH_MAX + 64], next[PATH_MAX + 64];
	pid_t pid;

	CU_ASSERT_FATAL(pipe(p) == 0 && pipe(go) == 0);
	pid = spawn(p, go[0], killed, sizeof(killed));
	CU_ASSERT_FATAL(pid > 0);
	kill(pid, SIGKILL);
	reap(pid);
	/* No exit handler ran: the tree is there, and only a later process can remove it. */
	CU_ASSERT_EQUAL(access(killed, F_OK), 0);
	CU_ASSERT_EQUAL(trees(), 1);
	pid = spawn(p, -1, next, sizeof(next));
	CU_ASSERT_FATAL(pid > 0);
	reap(pid);
	if (access(killed, F_OK) == 0)
		printf("\n  the killed process's tree %s was not swept\n", killed);
	CU_ASSERT_EQUAL(access(killed, F_OK), -1);
	CU_ASSERT_EQUAL(trees(), 0);
	close(p[0]), close(p[1]), close(go[0]), close(go[1]);
}

static void test_sysfs_tree_of_live_process_never_swept(void)
{
	int p[2], go[2];
	char live[PATH_MAX + 64], other[PATH_MAX + 64];
	pid_t lpid, pid;

	CU_ASSERT_FATAL(pipe(p) == 0 && pipe(go) == 0);
	lpid = spawn(p, go[0], live, sizeof(live));
	CU_ASSERT_FATAL(lpid > 0);
	/* Another process making its tree (and sweeping) while the first one lives. */
	pid = spawn(p, -1, other, sizeof(other));
	CU_ASSERT_FATAL(pid > 0);
	reap(pid);
	if (access(live, F_OK))
		printf("\n  the live process's tree %s was removed\n", live);
	CU_ASSERT_EQUAL(access(live, F_OK), 0);
	CU_ASSERT_EQUAL(trees(), 1);
	CU_ASSERT_EQUAL(write(go[1], "x", 1), 1);
	reap(lpid);
	CU_ASSERT_EQUAL(access(live, F_OK), -1);
	CU_ASSERT_EQUAL(trees(), 0);
	close(p[0]), close(p[1]), close(go[0]), close(go[1]);
}

static void test_sysfs_forked_child_exit_leaves_parent_tree(void)
{
	int p[2], r[2];
	char root[PATH_MAX + 64];
	int kept_after = -1;
	pid_t pid;

	CU_ASSERT_FATAL(pipe(p) == 0 && pipe(r) == 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char path[PATH_MAX + 64];
		pid_t g;
		int ok;

		child_make_model(p[1]);
		snprintf(path, sizeof(path), "%s", hsaqm_sim_sysfs_root(kept));
		g = fork();
		if (g == 0)
			exit(0); /* the grandchild's exit handlers see the parent's tree */
		waitpid(g, NULL, 0);
		ok = access(path, F_OK) == 0;
		if (write(r[1], &ok, sizeof(ok)) != (ssize_t)sizeof(ok))
			_exit(94);
		exit(0);
	}
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(read(p[0], root, sizeof(root)), (ssize_t)sizeof(root));
	CU_ASSERT_EQUAL(read(r[0], &kept_after, sizeof(kept_after)), (ssize_t)sizeof(kept_after));
	reap(pid);
	if (kept_after != 1)
		printf("\n  a forked child's exit removed its parent's tree %s\n", root);
	CU_ASSERT_EQUAL(kept_after, 1);
	CU_ASSERT_EQUAL(trees(), 0);
	close(p[0]), close(p[1]), close(r[0]), close(r[1]);
}

static int suite_init(void)
{
	if (!mkdtemp(tmpdir))
		return -1;
	return setenv("TMPDIR", tmpdir, 1);
}

static int suite_clean(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static const struct t_case cases[] = {
	T_CASE(test_sysfs_tree_gone_when_process_exits_with_model_alive),
	T_CASE(test_sysfs_tree_of_killed_process_swept_by_next_one),
	T_CASE(test_sysfs_tree_of_live_process_never_swept),
	T_CASE(test_sysfs_forked_child_exit_leaves_parent_tree),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "sim-sysfs-lifetime", suite_init, suite_clean, cases }, T_SUITES_END
	};
	return t_run("test-sim-sysfs-lifetime", suites);
}
