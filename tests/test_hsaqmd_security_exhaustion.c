/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd against the hostile local user of issue 18: connection exhaustion (per-uid limits, the
 * HELLO deadline, the reserved slots, clients that get in by themselves afterwards) cannot lock
 * the others out, and fake gpu_ids and quotas cannot fill the device table.
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

/* ---- issue 18 item 1: connection exhaustion ------------------------------------------------ */

/* A process of a uid holding connections to a socket (after HELLO, or silent). */
struct attacker {
	pid_t pid;
	int report; /* "N\n": connections the daemon kept */
	int quit;   /* closing it ends the attacker */
};

static int count_open(const int *fds, int n, bool hello)
{
	int open = 0;

	for (int i = 0; i < n; i++) {
		struct pollfd p = { .fd = fds[i], .events = POLLIN | POLLRDHUP };
		char buf[HSAQMD_MSG_MAX + 1];

		if (fds[i] < 0)
			continue;
		if (hello) {
			/* Kept: the daemon answered the HELLO. */
			if (poll(&p, 1, 2000) == 1 && recv(fds[i], buf, sizeof(buf), 0) > 0)
				open++;
			continue;
		}
		/* Refused or timed out: closed by the daemon (end of file or reset). */
		if (poll(&p, 1, 0) == 0)
			open++;
	}
	return open;
}

static void attacker_main(uid_t uid, const char *sock, int n, bool hello, int report, int quit)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct hsaqmd_hello h = { .role = HSAQMD_ROLE_CTL, .comm = "attacker" };
	char buf[HSAQMD_MSG_MAX], line[32];
	int fds[256], len;

	/* Nothing of the test's but our two pipes: another attacker's quit pipe held open here
	 * would keep that one from ever seeing its end. */
	for (int fd = 3; fd < 1024; fd++)
		if (fd != report && fd != quit)
			close(fd);
	if (setgroups(0, NULL) < 0 || setgid((gid_t)uid) < 0 || setuid(uid) < 0)
		_exit(126);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	len = hsaqmd_msg_build(buf, HSAQMD_HELLO, 1, &h);
	for (int i = 0; i < n; i++) {
		fds[i] = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (connect(fds[i], (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    (hello && send(fds[i], buf, (size_t)len, MSG_NOSIGNAL) != len)) {
			close(fds[i]);
			fds[i] = -1;
		}
	}
	if (!hello)
		/* Refusals are at once; the HELLO deadline is 300 ms: count in between (a window,
		 * not a wait for a condition: polling for 4 would pass on the way to 0). */
		t_sleep_ms(150);
	snprintf(line, sizeof(line), "%d\n", count_open(fds, n, hello));
	if (write(report, line, strlen(line)) < 0)
		_exit(1);
	if (!hello) {
		int left;

		/* Until the HELLO deadline closed every silent one (10 s: where the test gives up). */
		T_UNTIL_EVERY((left = count_open(fds, n, false)) == 0, 10 * T_S,
			      10 * T_MS);
		snprintf(line, sizeof(line), "%d\n", left);
		if (write(report, line, strlen(line)) < 0)
			_exit(1);
	}
	if (read(quit, line, 1) < 0)
		_exit(1);
	_exit(0);
}

static int attacker_start(struct attacker *a, uid_t uid, const char *sock, int n, bool hello)
{
	int r[2], q[2];

	/* Close-on-exec: the clients and hsaqmctl the test runs meanwhile must not hold them. */
	if (pipe2(r, O_CLOEXEC) < 0 || pipe2(q, O_CLOEXEC) < 0)
		return -1;
	a->pid = fork();
	if (a->pid == 0) {
		close(r[0]);
		close(q[1]);
		attacker_main(uid, sock, n, hello, r[1], q[0]);
	}
	close(r[1]);
	close(q[0]);
	a->report = r[0];
	a->quit = q[1];
	return a->pid > 0 ? 0 : -1;
}

/* The attacker's next count, or -1. */
static int attacker_count(struct attacker *a)
{
	struct pollfd p = { .fd = a->report, .events = POLLIN };
	char line[32];
	int n = 0;

	while (n < (int)sizeof(line) - 1 && poll(&p, 1, 5000) == 1 &&
	       read(a->report, line + n, 1) == 1)
		if (line[n++] == '\n')
			break;
	line[n] = '\0';
	return n ? atoi(line) : -1;
}

static void attacker_stop(struct attacker *a)
{
	int status;

	close(a->quit);
	close(a->report);
	waitpid(a->pid, &status, 0);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int small_daemon(struct t_daemon *d, const char *conf)
{
	if (t_daemon_init(d))
		return -1;
	snprintf(d->config, sizeof(d->config), "%s/hsaqmd.conf", d->dir);
	if (write_file(d->config, conf))
		return -1;
	return t_daemon_start(d);
}

/*
 * 40 silent connections of nobody: 4 kept (max_clients_per_uid), the rest refused at once,
 * and the 4 closed at the HELLO deadline; meanwhile root's hsaqmctl and another user's
 * client get in. Three users at their limits fill every slot but the reserved ones: a fourth
 * user is refused, root is not. And a client of nobody started while nobody's slots are
 * taken gets in by itself once they are free.
 */
static void test_one_user_cannot_lock_the_others_out(void)
{
	struct t_daemon sd;
	struct attacker a, b, c;
	struct t_client other, late;
	char line[256], out[8192];

	CU_ASSERT_FATAL(small_daemon(&sd, "max_clients = 16\nmax_clients_per_uid = 4\n"
					  "reserved_clients = 4\nhello_timeout_ms = 300\n") == 0);
	CU_ASSERT_FATAL(attacker_start(&a, T_NOBODY, sd.sock, 40, false) == 0);
	CU_ASSERT_EQUAL(attacker_count(&a), 4);
	CU_ASSERT_EQUAL(t_ctl(&sd, T_SAME_UID, out, sizeof(out), "list", NULL), 0);
	CU_ASSERT_EQUAL(t_client_start(&other, &sd, 0, T_OTHER_UID, line, sizeof(line)), 0);
	CU_ASSERT_STRING_EQUAL(line, "open ok granted=0");
	t_client_stop(&other);
	CU_ASSERT_EQUAL(attacker_count(&a), 0); /* the HELLO deadline */
	attacker_stop(&a);
	CU_ASSERT_EQUAL(t_ctl(&sd, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"uid_limit\": 36"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"hello_timeout\": 4"));

	/* Three users at their limit: 12 = every slot but the 4 reserved ones. */
	CU_ASSERT_FATAL(attacker_start(&a, T_NOBODY, sd.sock, 4, true) == 0);
	CU_ASSERT_FATAL(attacker_start(&b, T_OTHER_UID, sd.sock, 4, true) == 0);
	CU_ASSERT_FATAL(attacker_start(&c, T_OTHER_UID + 1, sd.sock, 4, true) == 0);
	CU_ASSERT_EQUAL(attacker_count(&a), 4);
	CU_ASSERT_EQUAL(attacker_count(&b), 4);
	CU_ASSERT_EQUAL(attacker_count(&c), 4);
	CU_ASSERT_EQUAL(t_ctl(&sd, T_OTHER_UID + 2, out, sizeof(out), "list", NULL), 3);
	CU_ASSERT_EQUAL(t_ctl(&sd, T_SAME_UID, out, sizeof(out), "list", NULL), 0);
	attacker_stop(&b);
	attacker_stop(&c);
	/* nobody's slots taken: its new client waits in the background and gets in by itself. */
	CU_ASSERT_FATAL(t_client_start_opt(&late, sd.sock, 0, T_NOBODY, true, line,
					   sizeof(line)) == 0);
	CU_ASSERT_STRING_EQUAL(line, "open ok granted=0");
	t_client_send(&late, "connected");
	CU_ASSERT(t_client_sees(&late, "connected 0", T_WAIT_MS));
	t_client_send(&late, "add 1");
	CU_ASSERT(t_client_sees(&late, "added 0", T_WAIT_MS)); /* registered when connected */
	attacker_stop(&a);
	CU_ASSERT(t_client_sees(&late, "ev connected", T_WAIT_MS));
	t_client_send(&late, "connected");
	CU_ASSERT(t_client_sees(&late, "connected 1", T_WAIT_MS));
	CU_ASSERT_EQUAL(t_ctl(&sd, T_SAME_UID, out, sizeof(out), "list", NULL), 0);
	snprintf(line, sizeof(line), "%d ", (int)late.pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, line));
	t_client_stop(&late);
	t_daemon_fini(&sd);
}

/* ---- issue 18 item 5: gpu_ids and quotas ---------------------------------------------------- */

/* A KFD topology with a CPU node (gpu_id 0) and GPUs 4242 and 4343. */
static int fake_topology(const char *dir)
{
	static const char *const ids[] = { "0", "4242", "4343" };
	char p[256];

	snprintf(p, sizeof(p), "%s/nodes", dir);
	if (mkdir(dir, 0755) || mkdir(p, 0755))
		return -1;
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/nodes/%d", dir, i);
		if (mkdir(p, 0755))
			return -1;
		snprintf(p, sizeof(p), "%s/nodes/%d/gpu_id", dir, i);
		if (write_file(p, ids[i]))
			return -1;
	}
	return 0;
}

static void rm_topology(const char *dir)
{
	char p[256];

	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/nodes/%d/gpu_id", dir, i);
		unlink(p);
		snprintf(p, sizeof(p), "%s/nodes/%d", dir, i);
		rmdir(p);
	}
	snprintf(p, sizeof(p), "%s/nodes", dir);
	rmdir(p);
	rmdir(dir);
}

/*
 * A fake gpu_id is refused (-ENODEV), a user's distinct devices and queues are bounded
 * (-EDQUOT), and another user's real queue still gets its place.
 */
static void test_fake_gpu_ids_and_quotas_cannot_fill_the_device_table(void)
{
	struct t_daemon sd;
	struct t_client nob, other, root_cl;
	char conf[512], topo[128], line[256], out[8192];

	CU_ASSERT_FATAL(t_daemon_init(&sd) == 0);
	snprintf(topo, sizeof(topo), "%s/topology", sd.dir);
	CU_ASSERT_FATAL(fake_topology(topo) == 0);
	snprintf(conf, sizeof(conf), "topology = %s\nmax_devices_per_uid = 1\n"
		 "max_queues_per_uid = 3\n", topo);
	snprintf(sd.config, sizeof(sd.config), "%s/hsaqmd.conf", sd.dir);
	CU_ASSERT_FATAL(write_file(sd.config, conf) == 0);
	CU_ASSERT_FATAL(t_daemon_start(&sd) == 0);
	CU_ASSERT_FATAL(t_client_start(&nob, &sd, 0, T_NOBODY, line, sizeof(line)) == 0);
	t_client_send(&nob, "add 9999");
	CU_ASSERT(t_client_sees(&nob, "added rc=-19", T_WAIT_MS)); /* -ENODEV */
	t_client_send(&nob, "add 4242");
	CU_ASSERT(t_client_sees(&nob, "added 0", T_WAIT_MS));
	t_client_send(&nob, "add 4343");
	CU_ASSERT(t_client_sees(&nob, "added rc=-122", T_WAIT_MS)); /* -EDQUOT: one device */
	t_client_send(&nob, "add 4242");
	CU_ASSERT(t_client_sees(&nob, "added 1", T_WAIT_MS));
	t_client_send(&nob, "add 4242");
	CU_ASSERT(t_client_sees(&nob, "added 2", T_WAIT_MS));
	t_client_send(&nob, "add 4242");
	CU_ASSERT(t_client_sees(&nob, "added rc=-122", T_WAIT_MS)); /* three queues */
	/* Another user's real queue, and root's, are not refused. */
	CU_ASSERT_FATAL(t_client_start(&other, &sd, 0, T_OTHER_UID, line, sizeof(line)) == 0);
	t_client_send(&other, "add 4343");
	CU_ASSERT(t_client_sees(&other, "added 0", T_WAIT_MS));
	CU_ASSERT_FATAL(t_client_start(&root_cl, &sd, 0, T_SAME_UID, line, sizeof(line)) == 0);
	t_client_send(&root_cl, "add 4343");
	CU_ASSERT(t_client_sees(&root_cl, "added 0", T_WAIT_MS));
	CU_ASSERT_EQUAL(t_ctl(&sd, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"device\": 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"quota\": 2"));
	t_client_stop(&root_cl);
	t_client_stop(&other);
	t_client_stop(&nob);
	rm_topology(topo);
	t_daemon_fini(&sd);
}

static const struct t_case cases[] = {
	T_CASE(test_one_user_cannot_lock_the_others_out),
	T_CASE(test_fake_gpu_ids_and_quotas_cannot_fill_the_device_table),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsaqmd-security-exhaustion", t_security_suite_init, t_security_suite_fini, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (t_hsaqmd_args(argc, argv, ""))
		return T_EXIT_FAIL;
	if (geteuid() != 0)
		return t_skip("hsaqmd-security-exhaustion", "needs root to run a second uid (setuid nobody)");
	return t_run("hsaqmd-security-exhaustion", suites);
}
