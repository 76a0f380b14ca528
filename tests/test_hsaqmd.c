/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd with real processes: the daemon, test clients using the client library (t-dclient)
 * and hsaqmctl, each its own process. Proves the registry, HPF across processes and devices,
 * TC3, both fail-open cases timed after SIGKILL, and that malformed messages close only the
 * client that sent them.
 *
 * Usage (meson passes the binaries): test-hsaqmd HSAQMD HSAQMCTL T-DCLIENT [--busy-poll]
 * With --busy-poll every case runs against a daemon started with it (docs/daemon.md).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon_internal.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-dclient/path.h"
#include "hsaqm-common/policy.h"
#include "hsaqm-common/policy_text.h"
#include "hsaqm-dclient/proto.h"
#include "hsaqm-common/rt.h"
#include "t_cunit.h"
#include "t_proc.h"
#include "t_time.h"

/*
 * The fail-open target is 100 ms (the tests print each figure: about 2 ms here). What
 * they assert is the mechanism, which no load can fake: the resume comes from the hang-up,
 * long before the heartbeat's bound could have let go. A wall-clock bound of 100 ms would
 * measure the machine's load as much as hsaqm (docs/testing.md "Under load").
 */
#define FAILOPEN_TARGET_MS 100
#define FAILOPEN_NS ((uint64_t)HSAQMD_HEARTBEAT_STALE_MS / 2 * 1000000ull)
#define WAIT_MS 5000

static struct t_daemon dmn;

static int suite_init(void)
{
	if (t_daemon_init(&dmn) || t_daemon_start(&dmn))
		return -1;
	return 0;
}

static int suite_fini(void)
{
	t_daemon_fini(&dmn);
	return 0;
}

/* A client at @prio with queues on @gpus[0..n). */
static int client_with_queues(struct t_client *c, int prio, const unsigned int *gpus, int n)
{
	char line[256];

	if (t_client_start(c, &dmn, prio, T_SAME_UID, line, sizeof(line)) ||
	    strncmp(line, "open ok", 7))
		return -1;
	for (int i = 0; i < n; i++) {
		t_client_send(c, "add %u", gpus[i]);
		if (t_client_expect(c, "added", WAIT_MS, line, sizeof(line)) ||
		    !strstr(line, "held="))
			return -1;
	}
	return 0;
}

/* A process at 10 and one at 0, a queue each on @gpu, both ready: the lower one is held. */
static void held_pair(struct t_client *hi, struct t_client *lo, const unsigned int *gpu)
{
	CU_ASSERT_FATAL(client_with_queues(hi, 10, gpu, 1) == 0);
	CU_ASSERT_FATAL(client_with_queues(lo, 0, gpu, 1) == 0);
	t_client_send(lo, "ready 0");
	t_client_send(hi, "ready 0");
	CU_ASSERT_FATAL(t_client_sees(lo, "ev preempt 0", WAIT_MS));
}

static void test_registry_lists_processes_and_queues(void)
{
	static const unsigned int gpus[] = { 4001, 4002 };
	struct t_client c;
	char out[8192], pid[32];

	CU_ASSERT_FATAL(client_with_queues(&c, 7, gpus, 2) == 0);
	snprintf(pid, sizeof(pid), "\"pid\": %d,", (int)c.pid);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
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
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "list", NULL), 0);
	snprintf(pid, sizeof(pid), "%d ", (int)c.pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, pid));
	/* After it leaves, it is gone from the registry. */
	t_client_stop(&c);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	snprintf(pid, sizeof(pid), "\"pid\": %d,", (int)c.pid);
	CU_ASSERT_PTR_NULL(strstr(out, pid));
}

static void test_hpf_across_processes_preempts_lower_and_resumes(void)
{
	static const unsigned int gpu[] = { 5001 };
	struct t_client hi, lo;

	CU_ASSERT_FATAL(client_with_queues(&hi, 10, gpu, 1) == 0);
	CU_ASSERT_FATAL(client_with_queues(&lo, 0, gpu, 1) == 0);
	t_client_send(&lo, "ready 0");
	t_client_send(&hi, "ready 0");
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", WAIT_MS));
	t_client_send(&lo, "held 0");
	CU_ASSERT(t_client_sees(&lo, "held 0 1", WAIT_MS));
	t_client_send(&hi, "idle 0");
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", WAIT_MS));
	/* The higher one was never held. */
	CU_ASSERT_FALSE(t_client_sees(&hi, "ev preempt", 100));
	/* A priority change from the process itself reverses the order. */
	t_client_send(&hi, "ready 0");
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", WAIT_MS));
	t_client_send(&hi, "prio -5");
	CU_ASSERT(t_client_sees(&hi, "prio rc=0 granted=-5", WAIT_MS));
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", WAIT_MS));
	CU_ASSERT(t_client_sees(&hi, "ev preempt 0", WAIT_MS));
	t_client_stop(&hi);
	t_client_stop(&lo);
}

/* TC3: a queue created while its process is preempted on that device starts preempted. */
static void test_queue_created_while_preempted_starts_preempted(void)
{
	static const unsigned int gpu[] = { 6001 };
	struct t_client hi, lo;
	char line[256];

	CU_ASSERT_FATAL(client_with_queues(&hi, 10, gpu, 1) == 0);
	CU_ASSERT_FATAL(client_with_queues(&lo, 0, NULL, 0) == 0);
	t_client_send(&hi, "ready 0");
	/* Give the daemon the kick (a mark is asynchronous), then create the low queue. */
	usleep(100000);
	t_client_send(&lo, "add 6001");
	CU_ASSERT_EQUAL(t_client_expect(&lo, "added", WAIT_MS, line, sizeof(line)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "held=1"));
	/* On another device nothing holds it. */
	t_client_send(&lo, "add 6002");
	CU_ASSERT_EQUAL(t_client_expect(&lo, "added", WAIT_MS, line, sizeof(line)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "held=0"));
	t_client_send(&hi, "idle 0");
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&lo, "ev resume 1", 100));
	t_client_stop(&hi);
	t_client_stop(&lo);
}

static void test_three_processes_three_priorities_two_devices(void)
{
	static const unsigned int g12[] = { 7001, 7002 }, g1[] = { 7001 };
	struct t_client p1, p2, p3;
	char out[8192];

	CU_ASSERT_FATAL(client_with_queues(&p1, 10, g12, 2) == 0);
	CU_ASSERT_FATAL(client_with_queues(&p2, 5, g1, 1) == 0);
	CU_ASSERT_FATAL(client_with_queues(&p3, 0, g12, 2) == 0);
	/* The lowest alone runs on both devices. */
	t_client_send(&p3, "ready 0");
	t_client_send(&p3, "ready 1");
	CU_ASSERT_FALSE(t_client_sees(&p3, "ev preempt", 200));
	/* Device 1: the middle one comes; only device 1's lowest stops. */
	t_client_send(&p2, "ready 0");
	CU_ASSERT(t_client_sees(&p3, "ev preempt 0", WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&p3, "ev preempt 1", 200));
	/* Device 2: the highest comes; device 2's lowest stops, the middle one is untouched. */
	t_client_send(&p1, "ready 1");
	CU_ASSERT(t_client_sees(&p3, "ev preempt 1", WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&p2, "ev preempt", 200));
	/* Device 1: the highest comes; the middle stops too. */
	t_client_send(&p1, "ready 0");
	CU_ASSERT(t_client_sees(&p2, "ev preempt 0", WAIT_MS));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"state\": \"preempted\""));
	/* Unwinding: each step resumes exactly the next one down. */
	t_client_send(&p1, "idle 0");
	CU_ASSERT(t_client_sees(&p2, "ev resume 0", WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&p3, "ev resume 0", 200));
	t_client_send(&p2, "idle 0");
	CU_ASSERT(t_client_sees(&p3, "ev resume 0", WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&p3, "ev resume 1", 200));
	t_client_send(&p1, "idle 1");
	CU_ASSERT(t_client_sees(&p3, "ev resume 1", WAIT_MS));
	CU_ASSERT_FALSE(t_client_sees(&p1, "ev preempt", 100));
	t_client_stop(&p1);
	t_client_stop(&p2);
	t_client_stop(&p3);
}

/* A stopped (or hung) daemon keeps its socket open: the heartbeat is what lets go. */
static void test_daemon_stopped_held_client_resumes_after_missed_heartbeats(void)
{
	static const unsigned int gpu[] = { 14001 };
	struct t_client hi, lo;
	char line[256];
	uint64_t t0, dt;

	held_pair(&hi, &lo, gpu);
	t0 = t_now_ns();
	kill(dmn.pid, SIGSTOP);
	CU_ASSERT_EQUAL(t_client_expect(&lo, "ev resume 0", HSAQMD_HEARTBEAT_STALE_MS + WAIT_MS,
					line, sizeof(line)), 0);
	dt = t_event_time(line) - t0;
	printf("\n    daemon SIGSTOP -> held queue resumed in the client: %.0f ms (bound %u ms of "
	       "silence + one period)\n", dt / 1e6, HSAQMD_HEARTBEAT_STALE_MS);
	/* It is the heartbeat that let go (the last change seen may predate the stop by up to
	 * two periods): not much before the bound. How long after depends on the machine's
	 * load, not on hsaqm: t_client_expect's window is the only upper bound. */
	CU_ASSERT(dt >= (uint64_t)(HSAQMD_HEARTBEAT_STALE_MS - 300) * 1000000ull);
	CU_ASSERT(t_client_sees(&lo, "ev lost", WAIT_MS));
	/* The higher process held nothing: it stays connected. */
	CU_ASSERT_FALSE(t_client_sees(&hi, "ev lost", 100));
	/* The daemon continues: the low process reconnects and is held again. */
	kill(dmn.pid, SIGCONT);
	CU_ASSERT(t_client_sees(&lo, "ev connected", WAIT_MS));
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", WAIT_MS));
	t_client_send(&hi, "idle 0");
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", WAIT_MS));
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
	t0 = t_now_ns();
	t_daemon_stop(&dmn, SIGKILL);
	CU_ASSERT_EQUAL(t_client_expect(&lo, "ev resume 0", WAIT_MS, line, sizeof(line)), 0);
	uint64_t dt = t_event_time(line) - t0;

	printf("\n    daemon SIGKILL -> held queue resumed in the client: %.2f ms (target %d ms)\n",
	       dt / 1e6, FAILOPEN_TARGET_MS);
	CU_ASSERT(t_event_time(line) > t0 && dt < FAILOPEN_NS);
	CU_ASSERT(t_client_sees(&lo, "ev lost", WAIT_MS));
	CU_ASSERT(t_client_sees(&hi, "ev lost", WAIT_MS));
	/* Local scheduling now: marks go nowhere and nothing is held. */
	t_client_send(&lo, "held 0");
	CU_ASSERT(t_client_sees(&lo, "held 0 0", WAIT_MS));
	/* The daemon returns: both reconnect, and the order holds again. */
	CU_ASSERT_FATAL(t_daemon_start(&dmn) == 0);
	CU_ASSERT(t_client_sees(&lo, "ev connected", WAIT_MS));
	CU_ASSERT(t_client_sees(&hi, "ev connected", WAIT_MS));
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", WAIT_MS));
	t_client_send(&hi, "idle 0");
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", WAIT_MS));
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
	t0 = t_now_ns();
	kill(hi.pid, SIGKILL);
	CU_ASSERT_EQUAL(t_client_expect(&lo, "ev resume 0", WAIT_MS, line, sizeof(line)), 0);
	uint64_t dt = t_event_time(line) - t0;

	printf("\n    client SIGKILL -> the queue it held back resumed: %.2f ms (target %d ms)\n",
	       dt / 1e6, FAILOPEN_TARGET_MS);
	CU_ASSERT(t_event_time(line) > t0 && dt < FAILOPEN_NS);
	t_client_kill(&hi);
	CU_ASSERT_FALSE(t_client_sees(&lo, "ev lost", 100));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_PTR_NULL(strstr(out, "\"clients_lost\": 0,"));
	t_client_stop(&lo);
}

/* ---- malformed messages --------------------------------------------------------------- */

static int raw_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, dmn.sock);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	struct timeval tv = { .tv_sec = 5 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static int build(void *buf, unsigned int type, const void *body)
{
	return hsaqmd_msg_build(buf, type, 1, body);
}

/* The daemon closes the connection: recv sees the end (0), skipping any RESULT first. */
static int closed_by_daemon(int fd, int *result)
{
	char buf[HSAQMD_MSG_MAX + 1];
	struct hsaqmd_msg m;

	for (int i = 0; i < 4; i++) {
		ssize_t r = recv(fd, buf, sizeof(buf), 0);

		if (r == 0)
			return 1;
		if (r < 0)
			return 0; /* timed out: still open */
		if (result && !hsaqmd_msg_parse(buf, (size_t)r, &m) && m.hdr.type == HSAQMD_RESULT)
			*result = m.u.result.status;
	}
	return 0;
}

static int send_and_check(const void *buf, size_t n, bool hello_first)
{
	struct hsaqmd_hello h = { .role = HSAQMD_ROLE_CTL, .comm = "raw" };
	char hb[HSAQMD_MSG_MAX];
	int fd = raw_connect(), ok;

	if (fd < 0)
		return 0;
	if (hello_first) {
		int len = build(hb, HSAQMD_HELLO, &h);

		if (send(fd, hb, (size_t)len, 0) != len || recv(fd, hb, sizeof(hb), 0) <= 0) {
			close(fd);
			return 0;
		}
	}
	ok = send(fd, buf, n, MSG_NOSIGNAL) == (ssize_t)n && closed_by_daemon(fd, NULL);
	close(fd);
	return ok;
}

static void test_malformed_messages_close_only_that_client(void)
{
	static const unsigned int gpu[] = { 10001 };
	struct hsaqmd_hello hello = { .role = HSAQMD_ROLE_CLIENT, .comm = "raw" };
	struct hsaqmd_queue_add add = { .gpu_id = 1, .kfd_queue_id = HSAQMD_NO_KFD_QUEUE };
	struct t_client bystander;
	char buf[1024], out[4096];
	struct hsaqmd_hdr *h = (struct hsaqmd_hdr *)buf;
	int len, cases = 0;

	CU_ASSERT_FATAL(client_with_queues(&bystander, 0, gpu, 1) == 0);
	t_client_send(&bystander, "ready 0");

	CU_ASSERT(send_and_check("abc", 3, false)); /* shorter than a header */
	cases++;
	len = build(buf, HSAQMD_HELLO, &hello);
	h->magic ^= 1; /* not our protocol */
	CU_ASSERT(send_and_check(buf, (size_t)len, false));
	cases++;
	len = build(buf, HSAQMD_HELLO, &hello);
	CU_ASSERT(send_and_check(buf, (size_t)len - 8, false)); /* truncated: len says more */
	cases++;
	len = build(buf, HSAQMD_HELLO, &hello);
	h->len = 1000; /* a length that lies */
	CU_ASSERT(send_and_check(buf, (size_t)len, false));
	cases++;
	len = build(buf, HSAQMD_HELLO, &hello);
	memset(buf + len, 0, 600 - (size_t)len);
	h->len = 600; /* larger than any message: received truncated */
	CU_ASSERT(send_and_check(buf, 600, false));
	cases++;
	len = build(buf, HSAQMD_HELLO, &hello);
	h->type = 99;
	CU_ASSERT(send_and_check(buf, (size_t)len, false));
	cases++;
	len = build(buf, HSAQMD_LIST, NULL); /* no hello first */
	CU_ASSERT(send_and_check(buf, (size_t)len, false));
	cases++;
	struct hsaqmd_hello bad_role = hello;

	bad_role.role = 7;
	len = build(buf, HSAQMD_HELLO, &bad_role);
	CU_ASSERT(send_and_check(buf, (size_t)len, false));
	cases++;
	struct hsaqmd_hello bad_comm = hello;

	memset(bad_comm.comm, 'x', sizeof(bad_comm.comm)); /* not NUL-terminated */
	len = build(buf, HSAQMD_HELLO, &bad_comm);
	CU_ASSERT(send_and_check(buf, (size_t)len, false));
	cases++;
	struct hsaqmd_hello bad_prio = hello;

	bad_prio.priority = 1000;
	len = build(buf, HSAQMD_HELLO, &bad_prio);
	CU_ASSERT(send_and_check(buf, (size_t)len, false));
	cases++;
	add.slot = HSAQMD_SLOTS; /* out of range, after a good hello */
	len = build(buf, HSAQMD_QUEUE_ADD, &add);
	CU_ASSERT(send_and_check(buf, (size_t)len, true));
	cases++;
	len = build(buf, HSAQMD_HELLO, &hello); /* a second hello */
	CU_ASSERT(send_and_check(buf, (size_t)len, true));
	cases++;
	len = build(buf, HSAQMD_RESULT, &(struct hsaqmd_result){ 0, 0 }); /* a reply type */
	CU_ASSERT(send_and_check(buf, (size_t)len, true));
	cases++;

	/* A message carrying an fd: the fd is closed by the daemon, the client dropped. */
	{
		int fd = raw_connect(), pass = open("/dev/null", O_RDONLY);
		union {
			char b[CMSG_SPACE(sizeof(int))];
			struct cmsghdr a;
		} ctrl;
		struct iovec iov;
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl.b,
				     .msg_controllen = sizeof(ctrl.b) };
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

		len = build(buf, HSAQMD_HELLO, &hello);
		iov.iov_base = buf;
		iov.iov_len = (size_t)len;
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass, sizeof(int));
		CU_ASSERT(sendmsg(fd, &mh, 0) == len && closed_by_daemon(fd, NULL));
		close(pass);
		close(fd);
		cases++;
	}
	/* Another protocol version: told why, in ours, then closed. */
	{
		int fd = raw_connect(), status = 0;

		len = build(buf, HSAQMD_HELLO, &hello);
		h->version = HSAQMD_PROTO_VERSION + 1;
		CU_ASSERT(send(fd, buf, (size_t)len, 0) == len && closed_by_daemon(fd, &status));
		CU_ASSERT_EQUAL(status, -EPROTONOSUPPORT);
		close(fd);
		cases++;
	}
	/* The bystander never noticed; the daemon counted every one and still serves. */
	CU_ASSERT_FALSE(t_client_sees(&bystander, "ev lost", 100));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	char *p = strstr(out, "\"bad_messages\": ");

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	printf("\n    malformed messages sent: %d; daemon counted %ld\n", cases,
	       strtol(p + 16, NULL, 10));
	CU_ASSERT(strtol(p + 16, NULL, 10) >= cases);
	t_client_send(&bystander, "prio -3");
	CU_ASSERT(t_client_sees(&bystander, "prio rc=0 granted=-3", WAIT_MS));
	t_client_stop(&bystander);
}

static void test_hsaqmctl_sets_queue_priority_and_policy(void)
{
	static const unsigned int gpu[] = { 11001 };
	struct t_client a, b;
	char line[256], out[4096], q[16];
	unsigned int qid;

	CU_ASSERT_FATAL(client_with_queues(&a, 0, gpu, 1) == 0);
	CU_ASSERT_FATAL(t_client_start(&b, &dmn, 0, T_SAME_UID, line, sizeof(line)) == 0);
	t_client_send(&b, "add 11001");
	CU_ASSERT_FATAL(t_client_expect(&b, "added", WAIT_MS, line, sizeof(line)) == 0);
	CU_ASSERT_FATAL(sscanf(line, "added 0 qid=%u", &qid) == 1);
	t_client_send(&a, "ready 0");
	t_client_send(&b, "ready 0");
	CU_ASSERT_FALSE(t_client_sees(&a, "ev preempt", 200));
	/* Lift b's queue by hand: a stops. */
	snprintf(q, sizeof(q), "q%u", qid);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "set-priority", q, "5", NULL), 0);
	CU_ASSERT(t_client_sees(&a, "ev preempt 0", WAIT_MS));
	/* The same device under "none": nobody is held. */
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "policy", "11001", "none", NULL),
			0);
	CU_ASSERT(t_client_sees(&a, "ev resume 0", WAIT_MS));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "policy", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "gpu 11001    none"));
	/* Bad arguments (a floor slice longer than its period): usage (2); unknown targets:
	 * refused (1). */
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "policy", "11001", "hpf", "10",
			      "20", NULL), 2);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "set-priority", "q999999", "1",
			      NULL), 1);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "set-priority", "x", "1", NULL),
			2);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "bogus", NULL), 2);
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

	CU_ASSERT_FATAL(t_client_start(&a, &dmn, 0, T_SAME_UID, line, sizeof(line)) == 0);
	t_client_send(&a, "add 13001 10");
	CU_ASSERT_FATAL(t_client_expect(&a, "added 0", WAIT_MS, line, sizeof(line)) == 0);
	t_client_send(&a, "add 13001 -10");
	CU_ASSERT_FATAL(t_client_expect(&a, "added 1", WAIT_MS, line, sizeof(line)) == 0);
	/* Both of A's queues ready and nobody else: A's low one is lib's business, not ours. */
	t_client_send(&a, "ready 1");
	t_client_send(&a, "ready 0");
	CU_ASSERT_FALSE(t_client_sees(&a, "ev preempt", 300));
	/* B at 0 joins: A's high queue outranks it, so B's queue starts held, and A's low
	 * queue stays with A (lib holds it in-process). */
	CU_ASSERT_FATAL(t_client_start(&b, &dmn, 0, T_SAME_UID, line, sizeof(line)) == 0);
	t_client_send(&b, "add %u", gpu[0]);
	CU_ASSERT_FATAL(t_client_expect(&b, "added 0", WAIT_MS, line, sizeof(line)) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "held=1"));
	t_client_send(&b, "ready 0");
	CU_ASSERT_FALSE(t_client_sees(&a, "ev preempt", 300));
	/* A's high queue goes idle: A now competes at -10, below B: B runs, A's low is held. */
	t_client_send(&a, "idle 0");
	CU_ASSERT(t_client_sees(&b, "ev resume 0", WAIT_MS));
	CU_ASSERT(t_client_sees(&a, "ev preempt 1", WAIT_MS));
	/* A's high queue is ready again: A competes at 10, B is held and A's low released. */
	t_client_send(&a, "ready 0");
	CU_ASSERT(t_client_sees(&b, "ev preempt 0", WAIT_MS));
	CU_ASSERT(t_client_sees(&a, "ev resume 1", WAIT_MS));
	t_client_stop(&a);
	CU_ASSERT(t_client_sees(&b, "ev resume 0", WAIT_MS));
	t_client_stop(&b);
}

/* ---- hand-off timing ------------------------------------------------------------------- */

/* The number after @key in hsaqmctl's JSON (a field named once there), or -1. */
static double json_num(const char *json, const char *key)
{
	const char *p = strstr(json, key);

	return p ? strtod(p + strlen(key), NULL) : -1.0;
}

/* One segment's field, e.g. seg "ready_acked", field "max_us". */
static double handoff_num(const char *json, const char *seg, const char *field)
{
	char key[96];
	const char *p = strstr(json, seg);

	snprintf(key, sizeof(key), "\"%s\": ", field);
	return p ? json_num(p, key) : -1.0;
}

/* `stats --json` into @out until @n holds are timed (an ack follows its callback's return), or 1 s. */
static void stats_until_timed(char *out, size_t size, double n)
{
	for (int i = 0; i < 100; i++) {
		CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, size, "stats", "--json", NULL), 0);
		if (handoff_num(out, "\"ready_acked\"", "count") == n)
			return;
		usleep(10000);
	}
}

/*
 * Each hold the daemon commands for another process's ready queue is timed from the ready
 * process's state store to the held process's ack, in three segments that add up to it,
 * each inside the wall time the test saw pass around them.
 */
static void test_handoff_times_each_hold_within_the_wall_time(void)
{
	static const unsigned int gpu[] = { 13001 };
	static const char *const segs[] = { "\"ready_seen\"", "\"seen_sent\"", "\"sent_acked\"",
					    "\"ready_acked\"" };
	struct t_daemon saved = dmn;
	struct t_client hi, lo;
	char out[4096];
	uint64_t t0, t1;

	/* A daemon of its own: the figures are this test's samples only. */
	CU_ASSERT_FATAL(t_daemon_init(&dmn) == 0 && t_daemon_start(&dmn) == 0);
	CU_ASSERT_FATAL(client_with_queues(&hi, 10, gpu, 1) == 0);
	CU_ASSERT_FATAL(client_with_queues(&lo, 0, gpu, 1) == 0);
	t_client_send(&lo, "ready 0");
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	t0 = t_now_ns();
	t_client_send(&hi, "ready 0");
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", WAIT_MS));
	stats_until_timed(out, sizeof(out), 1);
	t1 = t_now_ns();
	double sum = 0, total = handoff_num(out, segs[3], "max_us");

	printf("\n    one hold: ready -> acked %.1f us (the test saw %.1f us pass)\n", total,
	       (t1 - t0) / 1e3);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(handoff_num(out, segs[i], "count"), 1);
	for (int i = 0; i < 3; i++) {
		double v = handoff_num(out, segs[i], "max_us");

		CU_ASSERT(v >= 0 && v <= total);
		sum += v;
	}
	/* One sample: each maximum is exact, and the segments are its parts. */
	CU_ASSERT(total > 0 && total * 1e3 <= (double)(t1 - t0));
	CU_ASSERT(sum > total - 0.01 && sum < total + 0.01);
	CU_ASSERT_EQUAL(json_num(out, "\"holds_unacked\": "), 0);
	CU_ASSERT_EQUAL(json_num(out, "\"stamps_discarded\": "), 0);
	/* A resume is not timed; the next hold is. */
	t_client_send(&hi, "idle 0");
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", WAIT_MS));
	t_client_send(&hi, "ready 0");
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", WAIT_MS));
	stats_until_timed(out, sizeof(out), 2);
	CU_ASSERT_EQUAL(handoff_num(out, segs[3], "count"), 2);
	/* The text form shows the same table. */
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "ready -> acked"));
	t_client_stop(&hi);
	t_client_stop(&lo);
	t_daemon_fini(&dmn);
	dmn = saved;
}

/* A raw client (this process): HELLO as a client, its page mapped, one queue on @gpu. */
struct raw_client {
	int fd, kick;
	struct hsaqmd_shm *shm;
};

static int raw_client_open(struct raw_client *rc, unsigned int gpu, int prio)
{
	struct hsaqmd_hello h = { .role = HSAQMD_ROLE_CLIENT, .priority = prio, .comm = "raw" };
	struct hsaqmd_queue_add add = { .gpu_id = gpu, .kfd_queue_id = HSAQMD_NO_KFD_QUEUE,
					.level = 2 };
	char buf[HSAQMD_MSG_MAX], cbuf[CMSG_SPACE(3 * sizeof(int))];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int fds[3], len;

	h.pid = (uint32_t)getpid();
	rc->fd = raw_connect();
	len = build(buf, HSAQMD_HELLO, &h);
	if (rc->fd < 0 || send(rc->fd, buf, (size_t)len, 0) != len || recvmsg(rc->fd, &mh, 0) <= 0)
		return -1;
	c = CMSG_FIRSTHDR(&mh);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(3 * sizeof(int)))
		return -1;
	memcpy(fds, CMSG_DATA(c), sizeof(fds));
	rc->shm = mmap(NULL, HSAQMD_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	close(fds[0]);
	close(fds[2]);
	rc->kick = fds[1];
	len = build(buf, HSAQMD_QUEUE_ADD, &add);
	if (rc->shm == MAP_FAILED || send(rc->fd, buf, (size_t)len, 0) != len ||
	    recv(rc->fd, buf, sizeof(buf), 0) <= 0)
		return -1;
	return 0;
}

static void raw_client_kick(struct raw_client *rc)
{
	uint64_t one = 1;

	/*
	 * seq_cst: the state stores before it come first; the daemon's on_kick() exchange of
	 * the flag pairs with it before it scans them (the client library uses an exchange).
	 */
	__atomic_store_n(&rc->shm->kick_daemon, 1u, __ATOMIC_SEQ_CST);
	CU_ASSERT(write(rc->kick, &one, sizeof(one)) == sizeof(one));
}

/* Whether @c's queue 0 is (or within WAIT_MS becomes) not held. */
static bool runs_soon(struct t_client *c)
{
	char line[256];

	for (int i = 0; i < WAIT_MS / 20; i++) {
		t_client_send(c, "held 0");
		if (t_client_expect(c, "held 0 ", WAIT_MS, line, sizeof(line)) == 0 &&
		    !strcmp(line, "held 0 0"))
			return true;
		usleep(20000);
	}
	return false;
}

/*
 * The shared page is the client's to scribble on: random state words, stamps, acks and kick
 * flags from a raw client at a higher priority never crash the daemon nor keep a lower
 * process held once the scribbler says idle; bad stamps are dropped from the figures.
 */
static void test_client_scribbling_its_page_spoils_only_its_own_stats(void)
{
	static const unsigned int gpu[] = { 14001 };
	struct raw_client raw = { .fd = -1, .kick = -1, .shm = MAP_FAILED };
	struct t_client lo;
	char out[4096];
	unsigned int seed = 14001;

	CU_ASSERT_FATAL(raw_client_open(&raw, gpu[0], 10) == 0);
	CU_ASSERT_FATAL(client_with_queues(&lo, 0, gpu, 1) == 0);
	t_client_send(&lo, "ready 0");
	uint32_t *words = (uint32_t *)raw.shm;

	for (int i = 0; i < 20000; i++) {
		/* Any word of the page, header included, any value; 1 often (ready). */
		size_t w = (size_t)rand_r(&seed) % (HSAQMD_SHM_SIZE / 4);
		uint32_t v = rand_r(&seed) % 3 ? (uint32_t)rand_r(&seed) : 1u;

		__atomic_store_n(&words[w], v, __ATOMIC_RELAXED);
		/* Release, as the client library's: the daemon's scan acquires the state word. */
		hsaqm_store_release(&raw.shm->slot[0].state, rand_r(&seed) & 1);
		if (i % 64 == 0) {
			raw_client_kick(&raw);
			usleep(50);
		}
	}
	/* Idle at last: the lower process must run. */
	hsaqm_store_release(&raw.shm->slot[0].state, 0u); /* the daemon's scan acquires it */
	raw_client_kick(&raw);
	CU_ASSERT(runs_soon(&lo));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"handoff\""));
	printf("\n    after 20000 random words: %.0f holds timed, %.0f unacked, %.0f stamps dropped\n",
	       handoff_num(out, "\"ready_acked\"", "count"), json_num(out, "\"holds_unacked\": "),
	       json_num(out, "\"stamps_discarded\": "));
	/* Whatever was kept is a sane figure (a stamp out of range never gets in). */
	CU_ASSERT(handoff_num(out, "\"ready_acked\"", "max_us") < 1e6 * 3);
	/* And the scribbler leaving resumes nothing wrongly: the lower one still runs. */
	munmap(raw.shm, HSAQMD_SHM_SIZE);
	close(raw.kick);
	close(raw.fd);
	CU_ASSERT(runs_soon(&lo));
	t_client_stop(&lo);
}

/* Busy-polling spins only while a submission in one process could preempt another. */
static void test_busy_poll_spins_only_with_two_clients(void)
{
	static const unsigned int gpu[] = { 12001 };
	const bool on = t_bins.daemon_flag && !strcmp(t_bins.daemon_flag, "--busy-poll");
	struct t_client a, b;
	char out[4096];

	CU_ASSERT_FATAL(client_with_queues(&a, 5, gpu, 1) == 0);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"busy_polling\": false"));
	CU_ASSERT_FATAL(client_with_queues(&b, 0, gpu, 1) == 0);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, on ? "\"busy_polling\": true"
					      : "\"busy_polling\": false"));
	/* Polling or not, a state change without a wake-up is seen: preempt, then resume. */
	t_client_send(&b, "ready 0");
	t_client_send(&a, "ready 0");
	CU_ASSERT(t_client_sees(&b, "ev preempt 0", WAIT_MS));
	t_client_send(&a, "idle 0");
	CU_ASSERT(t_client_sees(&b, "ev resume 0", WAIT_MS));
	t_client_stop(&a);
	/* Back to one client: the daemon sleeps again (the stats round trip follows the switch,
	 * which happens before the daemon next waits). */
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"busy_polling\": false"));
	/* And the remaining client still gets decisions after the switch back. */
	CU_ASSERT_FATAL(client_with_queues(&a, 5, gpu, 1) == 0);
	t_client_send(&a, "ready 0");
	CU_ASSERT(t_client_sees(&b, "ev preempt 0", WAIT_MS));
	t_client_stop(&a);
	CU_ASSERT(t_client_sees(&b, "ev resume 0", WAIT_MS));
	t_client_stop(&b);
}

static void test_config_busy_poll_takes_yes_or_no_only(void)
{
	struct hsaqmd_config cfg;
	char err[128] = "";
	char yes[] = "busy_poll = yes\n", no[] = "busy_poll = no\n", bad[] = "busy_poll = 1\n";

	hsaqmd_config_default(&cfg);
	CU_ASSERT_FALSE(cfg.busy_poll);
	CU_ASSERT_EQUAL(hsaqmd_config_parse(&cfg, yes, strlen(yes), err, sizeof(err)), 0);
	CU_ASSERT_TRUE(cfg.busy_poll);
	CU_ASSERT_EQUAL(hsaqmd_config_parse(&cfg, no, strlen(no), err, sizeof(err)), 0);
	CU_ASSERT_FALSE(cfg.busy_poll);
	CU_ASSERT_EQUAL(hsaqmd_config_parse(&cfg, bad, strlen(bad), err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "busy_poll must be yes or no"));
	CU_ASSERT_FALSE(cfg.busy_poll);
}

/* A ctl connection (HELLO done) in non-blocking mode, or -1. */
static int raw_ctl(void)
{
	struct hsaqmd_hello h = { .role = HSAQMD_ROLE_CTL, .comm = "raw" };
	char hb[HSAQMD_MSG_MAX];
	int fd = raw_connect(), len;

	if (fd < 0)
		return -1;
	len = build(hb, HSAQMD_HELLO, &h);
	if (send(fd, hb, (size_t)len, 0) != len || recv(fd, hb, sizeof(hb), 0) <= 0) {
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

/* The value of "key": N in a JSON text, or -1. */
static long long json_key(const char *out, const char *key)
{
	char k[64];

	snprintf(k, sizeof(k), "\"%s\": ", key);
	return (long long)json_num(out, k);
}

/*
 * Issue 18 item 2: six connections that send LIST after LIST and never read used to stall the
 * daemon 50 ms per reply they could not take. Now their replies wait in their own buffers,
 * their requests wait with them, a preemption meanwhile takes its usual time, stats answer,
 * and after 5 s without reading they are dropped.
 */
static void test_clients_that_never_read_never_delay_a_preemption(void)
{
	static const unsigned int gpu[] = { 15001 };
	char lst[HSAQMD_MSG_MAX], line[256], out[8192];
	struct t_client hi, lo;
	int fds[6], len = build(lst, HSAQMD_LIST, NULL);
	long sent = 0;

	CU_ASSERT_FATAL(client_with_queues(&hi, 10, gpu, 1) == 0);
	CU_ASSERT_FATAL(client_with_queues(&lo, 0, gpu, 1) == 0);
	for (int i = 0; i < 6; i++) {
		fds[i] = raw_ctl();
		CU_ASSERT_FATAL(fds[i] >= 0);
		/* Until the socket takes no more requests: the daemon stopped reading it. */
		for (int k = 0; k < 5000 && send(fds[i], lst, (size_t)len, MSG_NOSIGNAL) == len; k++)
			sent++;
	}
	t_client_send(&lo, "ready 0");
	usleep(20000);
	uint64_t t0 = t_now_ns();

	t_client_send(&hi, "ready 0");
	CU_ASSERT_FATAL(t_client_expect(&lo, "ev preempt 0", WAIT_MS, line, sizeof(line)) == 0);
	uint64_t dt = t_event_time(line) - t0;
	uint64_t s0 = t_now_ns();
	int rc = t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL);
	uint64_t ds = t_now_ns() - s0;

	printf("\n    %ld LISTs sent by 6 connections that never read: preemption %.2f ms, "
	       "hsaqmctl stats %.1f ms", sent, dt / 1e6, ds / 1e6);
	CU_ASSERT_EQUAL(rc, 0);
	/* Bounds far above an idle daemon's (~0.1 ms, ~30 ms) and far below what the replies
	 * once cost: 50 ms each, and hundreds were waiting (tens of seconds). The room is for a
	 * loaded machine, not for hsaqm. */
	CU_ASSERT(dt < 2000 * 1000000ull);
	CU_ASSERT(ds < 5000 * 1000000ull);
	t_client_send(&hi, "idle 0");
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", WAIT_MS));
	/* Slow readers go after 5 s: each socket ends (what was sent, then end of file). */
	for (int i = 0; i < 6; i++) {
		char buf[HSAQMD_MSG_MAX + 1];
		ssize_t r;
		uint64_t end = t_now_ns() + 10000 * 1000000ull;

		fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) & ~O_NONBLOCK);
		/* Read nothing for 6 s first: the daemon must give up on its own. */
		if (i == 0)
			usleep(6000 * 1000);
		do
			r = recv(fds[i], buf, sizeof(buf), 0);
		while (r > 0 && t_now_ns() < end);
		/* Closed by the daemon: the end, or a reset (its requests were left unread). */
		CU_ASSERT(r == 0 || (r < 0 && errno == ECONNRESET));
		close(fds[i]);
	}
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT(json_key(out, "slow_reader") >= 6);
	t_client_stop(&hi);
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
	t0 = t_now_ns();
	kill(hi.pid, SIGSTOP);
	CU_ASSERT_FATAL(t_client_expect(&lo, "ev resume 0", 3000 + WAIT_MS, line,
					sizeof(line)) == 0);
	dt = t_event_time(line) - t0;
	printf("\n    holder SIGSTOPped -> the lower process ran again after %.0f ms (bound %u ms "
	       "without progress + the 100 ms check)", dt / 1e6, HSAQMD_DEFAULT_HOLD_PROGRESS_MS);
	/* Its last progress is at most 20 ms before the stop (t-dclient's period). */
	CU_ASSERT(dt >= (HSAQMD_DEFAULT_HOLD_PROGRESS_MS - 50) * 1000000ull);
	/* After: the 100 ms check, and whatever a loaded machine adds. */
	CU_ASSERT(dt < (HSAQMD_DEFAULT_HOLD_PROGRESS_MS + 3000) * 1000000ull);
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"stalled\": true"));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT(json_key(out, "stalls") >= 1);
	/* It continues: progress again, and it holds again. */
	kill(hi.pid, SIGCONT);
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", WAIT_MS));
	t_client_send(&hi, "idle 0");
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", WAIT_MS));
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
	struct raw_client *rc;
	pthread_t thread;
	int run; /* atomic: cleared to stop (the word then freezes, as a SIGSTOPped process's) */
};

static void *mover_main(void *arg)
{
	struct mover *m = arg;

	while (__atomic_load_n(&m->run, __ATOMIC_RELAXED)) {
		/* The daemon only compares the word with its last reading: no order needed. */
		__atomic_fetch_add(&m->rc->shm->slot[0].progress, 1u, __ATOMIC_RELAXED);
		usleep(20000);
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
	struct raw_client hi = { .fd = -1, .kick = -1, .shm = MAP_FAILED };
	struct t_daemon saved = dmn;
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
	CU_ASSERT_FATAL(t_daemon_init(&dmn) == 0);
	snprintf(dmn.config, sizeof(dmn.config), "%s/hsaqmd.conf", dmn.dir);
	fd = open(dmn.config, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, "hold_progress_ms = 2000\n", 24) == 24);
	close(fd);
	snprintf(dmn.log, sizeof(dmn.log), "%s/hsaqmd.log", dmn.dir);
	dmn.uid = T_SAME_UID;
	if (t_daemon_start_as(&dmn) != 0) {
		/* The cases after this one need the suite's daemon back. */
		CU_FAIL("hsaqmd with hold_progress_ms = 2000 did not start");
		unlink(dmn.log);
		t_daemon_fini(&dmn);
		dmn = saved;
		return;
	}

	CU_ASSERT_FATAL(client_with_queues(&lo, 0, gpu, 0) == 0);
	lo_pid = lo.pid;
	t_client_send(&lo, "add %u", gpu[0]);
	CU_ASSERT_FATAL(t_client_expect(&lo, "added 0", WAIT_MS, line, sizeof(line)) == 0);
	CU_ASSERT_FATAL(sscanf(line, "added 0 qid=%u", &lo_qid) == 1);
	t_client_send(&lo, "ready 0");
	CU_ASSERT_FATAL(raw_client_open(&hi, gpu[0], 10) == 0);
	/* It moves from before it holds anyone until (2): however slow the checks below are
	 * on a loaded machine, it is never without progress meanwhile. */
	struct mover mv = { .rc = &hi, .run = 1 };

	CU_ASSERT_FATAL(pthread_create(&mv.thread, NULL, mover_main, &mv) == 0);
	hsaqm_store_release(&hi.shm->slot[0].state, 1u); /* the daemon's scan acquires it */
	raw_client_kick(&hi);
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", WAIT_MS));

	/* (1) Held twice hold_progress_ms by a holder that moves: nothing is stalled. */
	usleep(4000 * 1000);
	CU_ASSERT_FALSE(t_client_sees(&lo, "ev resume 0", 0));
	t_client_send(&lo, "held 0");
	CU_ASSERT(t_client_expect(&lo, "held 0 ", WAIT_MS, line, sizeof(line)) == 0 &&
		  !strcmp(line, "held 0 1"));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	CU_ASSERT_EQUAL(queue_stalled(out, lo_qid), 0);
	CU_ASSERT_PTR_NULL(strstr(out, "\"stalled\": true"));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_EQUAL(json_key(out, "stalls"), 0);

	/* (2) The holder's word freezes (as a SIGSTOPped process's): the low one runs. */
	__atomic_store_n(&mv.run, 0, __ATOMIC_RELAXED);
	pthread_join(mv.thread, NULL);
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", 6000 + WAIT_MS));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	CU_ASSERT_EQUAL(queue_stalled(out, lo_qid), 0);
	/* The other queue, the holder's, is the one stalled. */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"stalled\": true"));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_EQUAL(json_key(out, "stalls"), 1);

	/* (3) It moves again (and keeps moving): it holds again, nothing is stalled. */
	__atomic_store_n(&mv.run, 1, __ATOMIC_RELAXED);
	CU_ASSERT_FATAL(pthread_create(&mv.thread, NULL, mover_main, &mv) == 0);
	CU_ASSERT(t_client_sees(&lo, "ev preempt 0", WAIT_MS));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "list", "--json", NULL), 0);
	CU_ASSERT_PTR_NULL(strstr(out, "\"stalled\": true"));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_EQUAL(json_key(out, "stalls"), 1);

	hsaqm_store_release(&hi.shm->slot[0].state, 0u); /* the daemon's scan acquires it */
	raw_client_kick(&hi);
	CU_ASSERT(t_client_sees(&lo, "ev resume 0", WAIT_MS));
	__atomic_store_n(&mv.run, 0, __ATOMIC_RELAXED);
	pthread_join(mv.thread, NULL);
	t_client_stop(&lo);
	munmap(hi.shm, HSAQMD_SHM_SIZE);
	close(hi.kick);
	close(hi.fd);
	t_daemon_stop(&dmn, SIGTERM);

	/* One line, naming the holder (this process) and whom it held: the low one. */
	CU_ASSERT_EQUAL(log_lines(dmn.log, "made no progress", line, sizeof(line)), 1);
	printf("\n    %s", line);
	snprintf(name, sizeof(name), "hsaqmd: pid %d (", (int)getpid());
	CU_ASSERT_PTR_NOT_NULL(strstr(line, name));
	snprintf(name, sizeof(name), "holding 1 queue of pid %d:", (int)lo_pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, name));
	snprintf(name, sizeof(name), "pid %d (", (int)lo_pid);
	CU_ASSERT_EQUAL(log_lines(dmn.log, name, NULL, 0), 0);
	unlink(dmn.log);
	t_daemon_fini(&dmn);
	dmn = saved;
}

/* hsaqmd with @extra arguments (NULL-terminated, at most 6); its output in @out. */
static int run_hsaqmd(char *out, size_t len, const char *a0, const char *a1, const char *a2,
		      const char *a3)
{
	const char *argv[8] = { t_bins.hsaqmd, a0, a1, a2, a3, NULL };

	return t_exec(T_SAME_UID, false, 10000, out, len, argv);
}

/* Issue 18 item 6: --socket naming a file (or a directory) never removes it. */
static void test_a_socket_path_that_is_not_a_socket_is_never_replaced(void)
{
	static const char data[] = "my notes\n";
	char file[128], out[2048], back[32] = "";
	int fd;

	snprintf(file, sizeof(file), "%s/notes.txt", dmn.dir);
	fd = open(file, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, data, sizeof(data) - 1) == (ssize_t)sizeof(data) - 1);
	close(fd);
	CU_ASSERT_EQUAL(run_hsaqmd(out, sizeof(out), "--socket", file, NULL, NULL), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "is a file, not a socket"));
	CU_ASSERT_PTR_NULL(strchr(out, '\n') ? strchr(strchr(out, '\n') + 1, '\n') : NULL);
	fd = open(file, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(read(fd, back, sizeof(back)) == (ssize_t)sizeof(data) - 1);
	close(fd);
	CU_ASSERT_STRING_EQUAL(back, data);
	unlink(file);
	/* A directory: said as such (not "Address already in use"), once. */
	CU_ASSERT_EQUAL(run_hsaqmd(out, sizeof(out), "--socket", dmn.dir, NULL, NULL), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "is a directory, not a socket"));
	CU_ASSERT_PTR_NULL(strstr(out, "in use"));
	/* One line. */
	CU_ASSERT_PTR_NULL(strchr(out, '\n') ? strchr(strchr(out, '\n') + 1, '\n') : NULL);
}

/* Issue 18 item 7: a NUL byte would hide every line after it: refused with FILE:LINE. */
static void test_a_config_with_a_nul_byte_is_refused_at_its_line(void)
{
	static const char text[] = "cap.default = 0\n\0cap.default = 50\n";
	struct hsaqmd_config cfg;
	char conf[128], sock[128], out[2048], expect[160], err[256];

	hsaqmd_config_default(&cfg);
	CU_ASSERT_EQUAL(hsaqmd_config_parse(&cfg, text, sizeof(text) - 1, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "2: a NUL byte"));
	snprintf(conf, sizeof(conf), "%s/nul.conf", dmn.dir);
	snprintf(sock, sizeof(sock), "%s/nul.sock", dmn.dir);
	int fd = open(conf, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1);
	close(fd);
	CU_ASSERT_EQUAL(run_hsaqmd(out, sizeof(out), "--config", conf, "--socket", sock), 2);
	snprintf(expect, sizeof(expect), "hsaqmd: %s:2: a NUL byte", conf);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	CU_ASSERT_EQUAL(access(sock, F_OK), -1); /* it never started */
	unlink(conf);
}

/* SCHED_FIFO policy (1) of task @tid of @pid, from /proc; -1 when unreadable. */
static int task_policy(pid_t pid, pid_t tid)
{
	char path[96], buf[1024];
	int fd, n, policy = -1;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* Field 41 (policy), counting from after the command's closing parenthesis (field 2). */
	char *p = strrchr(buf, ')');

	for (int f = 2; p && f < 41; f++)
		p = strchr(p + 1, ' ');
	if (p)
		policy = atoi(p + 1);
	return policy;
}

/* The task of @pid named @comm, or -1. */
static pid_t task_named(pid_t pid, const char *comm)
{
	char path[96], name[32];
	struct dirent *e;
	pid_t tid = -1;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	while (dir && (e = readdir(dir)) && tid < 0) {
		int fd, n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.32s/comm", (int)pid, e->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = (int)read(fd, name, sizeof(name) - 1);
		close(fd);
		name[n > 0 ? n : 0] = '\0';
		if (!strncmp(name, comm, strlen(comm)))
			tid = atoi(e->d_name);
	}
	if (dir)
		closedir(dir);
	return tid;
}

/*
 * Issue 18 item 10: as root (CAP_SYS_NICE), the daemon's thread and the client's thread run
 * SCHED_FIFO; hsaqmctl stats says the priority. Not with busy_poll (a spinning real-time
 * thread would keep a core from everything else).
 */
static void test_control_threads_run_sched_fifo_where_permitted(void)
{
	const bool busy = t_bins.daemon_flag && !strcmp(t_bins.daemon_flag, "--busy-poll");
	static const unsigned int gpu[] = { 17001 };
	struct t_client c;
	char out[8192];

	if (geteuid() != 0) {
		printf("\n    not root: real-time scheduling is not permitted here (checked as nobody "
		       "in hsaqmd-security)");
		return;
	}
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "stats", "--json", NULL), 0);
	CU_ASSERT_EQUAL(json_key(out, "realtime"), busy ? 0 : HSAQM_RT_PRIO_DAEMON);
	CU_ASSERT_EQUAL(task_policy(dmn.pid, dmn.pid), busy ? 0 : 1 /* SCHED_FIFO */);
	CU_ASSERT_FATAL(client_with_queues(&c, 0, gpu, 1) == 0);
	/* The client's thread names itself and asks for SCHED_FIFO once it runs, which on a
	 * loaded machine can be after the queues are registered (a CI run looked too soon). */
	pid_t tid = -1;

	CU_ASSERT(T_UNTIL((tid = task_named(c.pid, "hsaqm-dclient")) > 0 &&
				  task_policy(c.pid, tid) == 1,
			  5 * T_NS_PER_S));
	CU_ASSERT(tid > 0);
	t_client_stop(&c);
}

/*
 * Issue 17: every malformed hsaqmctl argument gets one line naming it and exit 2 (not the
 * usage alone, not a dropped connection, not a loop): `top abc` used to run forever, `top -1`
 * exited 0 silently, `set-priority PID 101` made the daemon hang up.
 */
static void test_hsaqmctl_names_each_bad_argument_and_exits_2(void)
{
	static const struct {
		const char *args[6];
		const char *named;
	} forms[] = {
		{ { "bogus" }, "\"bogus\"" },
		{ { "list", "extra" }, "\"extra\"" },
		{ { "list", "--jsn" }, "\"--jsn\"" },
		{ { "list", "--json", "x" }, "\"x\"" },
		{ { "stats", "x" }, "\"x\"" },
		{ { "set-priority" }, "set-priority takes" },
		{ { "set-priority", "1" }, "set-priority takes" },
		{ { "set-priority", "abc", "1" }, "\"abc\"" },
		{ { "set-priority", "1", "abc" }, "\"abc\"" },
		{ { "set-priority", "q", "1" }, "\"q\"" },
		{ { "set-priority", "qx", "1" }, "\"qx\"" },
		{ { "set-priority", "1", "2", "3" }, "\"3\"" },
		{ { "set-priority", "1", "101" }, "\"101\"" },
		{ { "set-priority", "q1", "201" }, "\"201\"" },
		{ { "set-priority", "-5", "1" }, "\"-5\"" },
		/* hsaqm-common/text.h's numbers: no blank, no '+', no octal gpu_id. */
		{ { "set-priority", " 5", "1" }, "\" 5\"" },
		{ { "set-priority", "1", "+5" }, "\"+5\"" },
		{ { "set-priority", "q+1", "5" }, "\"q+1\"" },
		{ { "policy", "010", "hpf" }, "\"010\"" },
		{ { "policy", "0x", "hpf" }, "\"0x\"" },
		{ { "policy", " 7", "hpf" }, "\" 7\"" },
		{ { "policy", "abc", "hpf" }, "\"abc\"" },
		{ { "policy", "-1", "hpf" }, "\"-1\"" },
		{ { "policy", "all" }, "which policy" },
		{ { "policy", "all", "bogus" }, "\"bogus\"" },
		{ { "policy", "all", "hpf", "1" }, "\"hpf 1\"" },
		{ { "policy", "all", "hpf", "10", "20" }, "\"hpf 10 20\"" },
		{ { "policy", "all", "util", "x" }, "\"util x\"" },
		{ { "policy", "all", "none", "1" }, "\"none 1\"" },
		{ { "top", "abc" }, "\"abc\"" },
		{ { "top", "-1" }, "\"-1\"" },
		{ { "top", "0" }, "\"0\"" },
		{ { "top", "1", "2" }, "\"2\"" },
		{ { "metrics", "x" }, "\"x\"" },
	};
	char out[2048];

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const char *argv[10] = { t_bins.hsaqmctl, "--socket", dmn.sock };
		int n = 3, rc;

		for (int k = 0; k < 6 && forms[i].args[k]; k++)
			argv[n++] = forms[i].args[k];
		argv[n] = NULL;
		rc = t_exec(T_SAME_UID, false, 5000, out, sizeof(out), argv);
		if (rc != 2 || strncmp(out, "hsaqmctl: ", 10) || !strstr(out, forms[i].named) ||
		    strchr(out, '\n') != out + strlen(out) - 1)
			printf("\n    form %zu (%s %s ...): exit %d, said: %s", i, forms[i].args[0],
			       forms[i].args[1] ? forms[i].args[1] : "", rc, out);
		CU_ASSERT_EQUAL(rc, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, forms[i].named));
		/* One line, not the usage. */
		CU_ASSERT_PTR_NULL(strstr(out, "usage:"));
		CU_ASSERT(strchr(out, '\n') == out + strlen(out) - 1);
	}
	/* "--socket" without its path, before the command. */
	const char *nosock[] = { t_bins.hsaqmctl, "--socket", NULL };

	CU_ASSERT_EQUAL(t_exec(T_SAME_UID, false, 5000, out, sizeof(out), nosock), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "--socket needs a path"));
	/* A refusal is said for what was asked: set-priority's, not the policy's. */
	const char *noq[] = { t_bins.hsaqmctl, "--socket", dmn.sock, "set-priority", "q999999",
			      "1", NULL };

	CU_ASSERT_EQUAL(t_exec(T_SAME_UID, false, 5000, out, sizeof(out), noq), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no such process or queue"));
	/* The old "hpf PERIOD SLICE" still works, and says it is deprecated. */
	const char *old[] = { t_bins.hsaqmctl, "--socket", dmn.sock, "policy", "18001", "hpf",
			      "10000", "1000", NULL };

	CU_ASSERT_EQUAL(t_exec(T_SAME_UID, false, 5000, out, sizeof(out), old), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "deprecated: write \"hpf 10000:1000\""));
	CU_ASSERT_EQUAL(t_ctl(&dmn, T_SAME_UID, out, sizeof(out), "policy", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "gpu 18001    hpf 10000:1000"));
}

/* Issue 17: hsaqmd --ready-fd abc wrote "ready" to fd 0; now it says which argument. */
static void test_hsaqmd_refuses_a_ready_fd_that_is_not_one(void)
{
	char out[1024], sock[128];

	snprintf(sock, sizeof(sock), "%s/rfd.sock", dmn.dir);
	CU_ASSERT_EQUAL(run_hsaqmd(out, sizeof(out), "--ready-fd", "abc", "--socket", sock), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "--ready-fd \"abc\" is not an open file descriptor"));
	CU_ASSERT_EQUAL(run_hsaqmd(out, sizeof(out), "--ready-fd", "987", "--socket", sock), 2);
	CU_ASSERT_EQUAL(run_hsaqmd(out, sizeof(out), "--socket", sock, "extra", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"extra\""));
	CU_ASSERT_EQUAL(access(sock, F_OK), -1);
}

/*
 * Issue 17: one policy syntax (hsaqm-common/policy_text.h) for HSAQM_POLICY, hsaqmd.conf and
 * hsaqmctl; the old conf/ctl form "hpf PERIOD SLICE" still read, flagged deprecated.
 */
static void test_one_policy_syntax_for_the_tool_the_config_and_hsaqmctl(void)
{
	static const struct {
		const char *text;
		int rc;
		bool old;
		const char *back;
	} cases[] = {
		{ "hpf", 0, false, "hpf" },
		{ "HPF 100000:5000", 0, false, "hpf 100000:5000" },
		{ "  util\t20000 ", 0, false, "util 20000" },
		{ "util", 0, false, "util" },
		{ "none", 0, false, "none" },
		{ "hpf 100000 5000", 0, true, "hpf 100000:5000" },
		{ "hpf 5:10", -EINVAL, false, NULL },
		{ "hpf 10:10", -EINVAL, false, NULL },
		{ "hpf 0:0", -EINVAL, false, NULL },
		{ "hpf 100000", -EINVAL, false, NULL },
		{ "hpf 1:x", -EINVAL, false, NULL },
		{ "hpf 200000000:1", -EINVAL, false, NULL },
		{ "util 0", -EINVAL, false, NULL },
		{ "util 1 2", -EINVAL, false, NULL },
		{ "none 1", -EINVAL, false, NULL },
		{ "fifo", -EINVAL, false, NULL },
		{ "", -EINVAL, false, NULL },
	};
	struct hsaqm_policy_config cfg;
	char buf[64], why[128];
	bool old;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = hsaqm_policy_parse(cases[i].text, &cfg, &old, why, sizeof(why));

		CU_ASSERT_EQUAL(rc, cases[i].rc);
		if (rc)
			continue;
		CU_ASSERT_EQUAL(old, cases[i].old);
		CU_ASSERT_EQUAL(hsaqm_policy_check(&cfg), 0);
		hsaqm_policy_format(&cfg, buf, sizeof(buf));
		CU_ASSERT_STRING_EQUAL(buf, cases[i].back);
	}
	/* The configuration takes the same text; its old form starts, with one line. */
	struct hsaqmd_config c;
	char err[256], conf[128], sock[128], out[2048];
	static const char text[] = "policy.default = hpf 100000:5000\npolicy.7 = util 20000\n";

	hsaqmd_config_default(&c);
	CU_ASSERT_EQUAL(hsaqmd_config_parse(&c, text, strlen(text), err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.policy.floor_period_us, 100000u);
	CU_ASSERT_EQUAL(c.policies[0].cfg.util_period_us, 20000u);
	CU_ASSERT_EQUAL(c.deprecated_line, 0);
	snprintf(conf, sizeof(conf), "%s/old.conf", dmn.dir);
	snprintf(sock, sizeof(sock), "%s/old.sock", dmn.dir);
	int fd = open(conf, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, "\npolicy.default = hpf 100000 5000\n", 34) == 34);
	close(fd);
	/* A file at the socket's path: it reads the configuration, says its line, exits. */
	fd = open(sock, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	close(fd);
	CU_ASSERT_EQUAL(run_hsaqmd(out, sizeof(out), "--config", conf, "--socket", sock), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ":2: \"hpf PERIOD SLICE\" is deprecated"));
	unlink(sock);
	unlink(conf);
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
	dclient_with_env("HSAQM_DAEMON", dmn.dir, NULL, out, sizeof(out));
	snprintf(expect, sizeof(expect), "HSAQM_DAEMON=\"%s\" is not valid (a directory, not a "
		 "socket;", dmn.dir);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	/* hsaqmctl searches the same way and says the same. */
	setenv("HSAQM_DAEMON", "/etc/passwd", 1);
	t_exec(T_SAME_UID, false, 10000, out, sizeof(out), ctl);
	unsetenv("HSAQM_DAEMON");
	CU_ASSERT_EQUAL(count_of(out, "HSAQM_DAEMON=\"/etc/passwd\" is not valid"), 1);

	/* Right values: quiet. Off means never; nothing there yet is no daemon; a socket is. */
	dclient_with_env("HSAQM_DAEMON", "off", NULL, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "open rc=-2\n");
	snprintf(path, sizeof(path), "%s/later.sock", dmn.dir);
	dclient_with_env("HSAQM_DAEMON", path, NULL, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "open rc=-2\n");
	dclient_with_env("HSAQM_DAEMON", dmn.sock, NULL, out, sizeof(out));
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

	snprintf(dir, sizeof(dir), "%s/sockdir", dmn.dir);
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

	snprintf(file, sizeof(file), "%s/notes.txt", dmn.dir);
	snprintf(conf, sizeof(conf), "%s/from.conf", dmn.dir);
	fd = open(file, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	n = snprintf(text, sizeof(text), "# the socket\nsocket = %s\n", file);
	fd = open(conf, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, text, (size_t)n) == n);
	close(fd);
	CU_ASSERT_EQUAL(run_hsaqmd(out, sizeof(out), "--config", conf, NULL, NULL), 1);
	snprintf(expect, sizeof(expect), "is a file, not a socket: refusing to replace it (the "
		 "path is %s:2 (socket =): make it the path of the socket itself)", conf);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	CU_ASSERT_PTR_NULL(strstr(out, "--socket"));
	/* --socket wins over the file, and the advice says so. */
	CU_ASSERT_EQUAL(run_hsaqmd(out, sizeof(out), "--config", conf, "--socket", file), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "(give --socket the path of the socket itself)"));
	CU_ASSERT_PTR_NULL(strstr(out, "socket ="));
	unlink(conf);
	unlink(file);
}

static const struct t_case cases[] = {
	T_CASE(test_registry_lists_processes_and_queues),
	T_CASE(test_hpf_across_processes_preempts_lower_and_resumes),
	T_CASE(test_queue_created_while_preempted_starts_preempted),
	T_CASE(test_three_processes_three_priorities_two_devices),
	T_CASE(test_client_killed_daemon_resumes_others_on_the_hangup),
	T_CASE(test_malformed_messages_close_only_that_client),
	T_CASE(test_hsaqmctl_sets_queue_priority_and_policy),
	T_CASE(test_daemon_holds_processes_not_queues_within_one),
	T_CASE(test_daemon_stopped_held_client_resumes_after_missed_heartbeats),
	T_CASE(test_busy_poll_spins_only_with_two_clients),
	T_CASE(test_handoff_times_each_hold_within_the_wall_time),
	T_CASE(test_client_scribbling_its_page_spoils_only_its_own_stats),
	T_CASE(test_config_busy_poll_takes_yes_or_no_only),
	T_CASE(test_no_daemon_is_quiet_enoent),
	T_CASE(test_a_socket_path_that_is_not_a_socket_is_never_replaced),
	T_CASE(test_hsaqmctl_names_each_bad_argument_and_exits_2),
	T_CASE(test_hsaqmd_refuses_a_ready_fd_that_is_not_one),
	T_CASE(test_one_policy_syntax_for_the_tool_the_config_and_hsaqmctl),
	T_CASE(test_a_config_with_a_nul_byte_is_refused_at_its_line),
	T_CASE(test_control_threads_run_sched_fifo_where_permitted),
	T_CASE(test_a_stopped_holder_lets_lower_processes_run_after_hold_progress_ms),
	T_CASE(test_only_a_holder_without_progress_is_stalled_never_the_held),
	T_CASE(test_a_bad_hsaqm_daemon_or_realtime_is_said_once_and_the_default_stands),
	T_CASE(test_a_refused_socket_directory_is_said_with_its_own_reason),
	T_CASE(test_a_socket_refusal_names_where_the_path_came_from),
	T_CASE(test_clients_that_never_read_never_delay_a_preemption),
	/* Last: it kills and restarts the daemon. */
	T_CASE(test_daemon_killed_clients_resume_on_the_hangup_and_reconnect),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsaqmd", suite_init, suite_fini, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s HSAQMD HSAQMCTL T-DCLIENT\n", argv[0]);
		return T_EXIT_FAIL;
	}
	t_bins.hsaqmd = argv[1];
	t_bins.hsaqmctl = argv[2];
	t_bins.dclient = argv[3];
	t_bins.daemon_flag = argc > 4 ? argv[4] : NULL;
	signal(SIGPIPE, SIG_IGN);
	return t_run("hsaqmd", suites);
}
