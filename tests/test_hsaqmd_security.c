/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd's security with a second uid: a non-root process takes at most its uid's cap, cannot
 * raise itself above it later, cannot change another uid's process or queue, and cannot set
 * the node's policy; root can. And the hostile local user of issue 18: connection
 * exhaustion (per-uid limits, the HELLO deadline, the reserved slots, clients that get in by
 * themselves afterwards), socket directories another user owns (refused by the daemon, by
 * clients and hsaqmctl; the same default socket found by all three), fake gpu_ids and quotas,
 * who sees whom, and a daemon not permitted real time saying so once. The second uid is
 * nobody (a forked child that setuid()s), others are uids without a name; so this needs root:
 * skipped (77) otherwise.
 *
 * Usage (meson passes the binaries): test-hsaqmd-security HSAQMD HSAQMCTL T-DCLIENT
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
	/* The node's policy is root's, and the refusal says so (not set-priority's words). */
	const char *pol[] = { t_bins.hsaqmctl, "--socket", dmn.sock, "policy", "all", "none", NULL };

	CU_ASSERT_EQUAL(t_exec(T_NOBODY, false, 5000, out, sizeof(out), pol), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "a policy is set by root or the daemon's own user"));
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

/* Issue 18 item 9: a user sees its own processes only; root sees everyone. */
static void test_a_user_sees_only_its_own_processes(void)
{
	struct t_client root_cl, nob;
	char line[256], out[16384], key[64];

	CU_ASSERT_FATAL(t_client_start(&root_cl, &dmn, 1, T_SAME_UID, line, sizeof(line)) == 0);
	CU_ASSERT_FATAL(t_client_start(&nob, &dmn, 0, T_NOBODY, line, sizeof(line)) == 0);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_NOBODY, out, sizeof(out), "list", "--json", NULL), 0);
	snprintf(key, sizeof(key), "\"pid\": %d,", (int)nob.pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, key));
	snprintf(key, sizeof(key), "\"pid\": %d,", (int)root_cl.pid);
	CU_ASSERT_PTR_NULL(strstr(out, key));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"hidden\": 1"));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_NOBODY, out, sizeof(out), "list", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "(1 process of other users not shown"));
	/* Root sees both. */
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, key));
	snprintf(key, sizeof(key), "\"pid\": %d,", (int)nob.pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, key));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"hidden\": 0"));
	/* The metrics follow the same rule: nobody's view has its own series only. */
	const char *met[] = { t_bins.hsaqmctl, "--socket", dmn.sock, "metrics", NULL };

	CU_ASSERT_EQUAL(t_exec(T_NOBODY, false, 5000, out, sizeof(out), met), 0);
	snprintf(key, sizeof(key), "hsaqmd_process_priority{pid=\"%d\"", (int)nob.pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, key));
	snprintf(key, sizeof(key), "hsaqmd_process_priority{pid=\"%d\"", (int)root_cl.pid);
	CU_ASSERT_PTR_NULL(strstr(out, key));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "hsaqmd_processes_hidden 1"));
	/* What it cannot see it cannot name either: "no such process", not "not permitted". */
	snprintf(key, sizeof(key), "%d", (int)root_cl.pid);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_NOBODY, out, sizeof(out), "set-priority", key, "0", NULL), 1);
	t_client_stop(&nob);
	t_client_stop(&root_cl);
}

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
		usleep(150 * 1000); /* refusals are at once; the HELLO deadline is 300 ms */
	snprintf(line, sizeof(line), "%d\n", count_open(fds, n, hello));
	if (write(report, line, strlen(line)) < 0)
		_exit(1);
	if (!hello) {
		usleep(500 * 1000); /* past the deadline: every silent one is closed by now */
		snprintf(line, sizeof(line), "%d\n", count_open(fds, n, false));
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
	CU_ASSERT_EQUAL(t_client_start(&other, &sd, 0, OTHER_UID, line, sizeof(line)), 0);
	CU_ASSERT_STRING_EQUAL(line, "open ok granted=0");
	t_client_stop(&other);
	CU_ASSERT_EQUAL(attacker_count(&a), 0); /* the HELLO deadline */
	attacker_stop(&a);
	CU_ASSERT_EQUAL(t_ctl(&sd, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"uid_limit\": 36"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"hello_timeout\": 4"));

	/* Three users at their limit: 12 = every slot but the 4 reserved ones. */
	CU_ASSERT_FATAL(attacker_start(&a, T_NOBODY, sd.sock, 4, true) == 0);
	CU_ASSERT_FATAL(attacker_start(&b, OTHER_UID, sd.sock, 4, true) == 0);
	CU_ASSERT_FATAL(attacker_start(&c, OTHER_UID + 1, sd.sock, 4, true) == 0);
	CU_ASSERT_EQUAL(attacker_count(&a), 4);
	CU_ASSERT_EQUAL(attacker_count(&b), 4);
	CU_ASSERT_EQUAL(attacker_count(&c), 4);
	CU_ASSERT_EQUAL(t_ctl(&sd, OTHER_UID + 2, out, sizeof(out), "list", NULL), 3);
	CU_ASSERT_EQUAL(t_ctl(&sd, T_SAME_UID, out, sizeof(out), "list", NULL), 0);
	attacker_stop(&b);
	attacker_stop(&c);
	/* nobody's slots taken: its new client waits in the background and gets in by itself. */
	CU_ASSERT_FATAL(t_client_start_opt(&late, sd.sock, 0, T_NOBODY, true, line,
					   sizeof(line)) == 0);
	CU_ASSERT_STRING_EQUAL(line, "open ok granted=0");
	t_client_send(&late, "connected");
	CU_ASSERT(t_client_sees(&late, "connected 0", WAIT_MS));
	t_client_send(&late, "add 1");
	CU_ASSERT(t_client_sees(&late, "added 0", WAIT_MS)); /* registered when connected */
	attacker_stop(&a);
	CU_ASSERT(t_client_sees(&late, "ev connected", WAIT_MS));
	t_client_send(&late, "connected");
	CU_ASSERT(t_client_sees(&late, "connected 1", WAIT_MS));
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
	CU_ASSERT(t_client_sees(&nob, "added rc=-19", WAIT_MS)); /* -ENODEV */
	t_client_send(&nob, "add 4242");
	CU_ASSERT(t_client_sees(&nob, "added 0", WAIT_MS));
	t_client_send(&nob, "add 4343");
	CU_ASSERT(t_client_sees(&nob, "added rc=-122", WAIT_MS)); /* -EDQUOT: one device */
	t_client_send(&nob, "add 4242");
	CU_ASSERT(t_client_sees(&nob, "added 1", WAIT_MS));
	t_client_send(&nob, "add 4242");
	CU_ASSERT(t_client_sees(&nob, "added 2", WAIT_MS));
	t_client_send(&nob, "add 4242");
	CU_ASSERT(t_client_sees(&nob, "added rc=-122", WAIT_MS)); /* three queues */
	/* Another user's real queue, and root's, are not refused. */
	CU_ASSERT_FATAL(t_client_start(&other, &sd, 0, OTHER_UID, line, sizeof(line)) == 0);
	t_client_send(&other, "add 4343");
	CU_ASSERT(t_client_sees(&other, "added 0", WAIT_MS));
	CU_ASSERT_FATAL(t_client_start(&root_cl, &sd, 0, T_SAME_UID, line, sizeof(line)) == 0);
	t_client_send(&root_cl, "add 4343");
	CU_ASSERT(t_client_sees(&root_cl, "added 0", WAIT_MS));
	CU_ASSERT_EQUAL(t_ctl(&sd, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"device\": 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"quota\": 2"));
	t_client_stop(&root_cl);
	t_client_stop(&other);
	t_client_stop(&nob);
	rm_topology(topo);
	t_daemon_fini(&sd);
}

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
	snprintf(dir, sizeof(dir), "%s/theirs", dmn.dir);
	CU_ASSERT_FATAL(mkdir(dir, 0755) == 0 && chown(dir, OTHER_UID, OTHER_UID) == 0);
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
			chown(NOBODY_DIR, OTHER_UID, OTHER_UID) == 0);
	CU_ASSERT_EQUAL(t_exec(T_NOBODY, true, 10000, out, sizeof(out), daemon_default), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "refusing the socket " NOBODY_DIR "/hsaqmd.sock"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "is owned by uid 1234"));
	CU_ASSERT_FATAL(t_daemon_init(&hostile) == 0);
	rmdir(hostile.dir);
	snprintf(hostile.dir, sizeof(hostile.dir), "%s", NOBODY_DIR);
	snprintf(hostile.sock, sizeof(hostile.sock), NOBODY_DIR "/hsaqmd.sock");
	hostile.uid = OTHER_UID;
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
	T_CASE(test_second_uid_is_capped_and_cannot_touch_the_first),
	T_CASE(test_a_user_sees_only_its_own_processes),
	T_CASE(test_one_user_cannot_lock_the_others_out),
	T_CASE(test_fake_gpu_ids_and_quotas_cannot_fill_the_device_table),
	T_CASE(test_socket_directories_of_other_users_are_refused),
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
