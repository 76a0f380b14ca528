/* SPDX-License-Identifier: MIT */
/*
 * t_hsaqmd.h - the setup shared by the test-hsaqmd-* binaries: one daemon per binary (started by
 * the suite, with the test's DAEMON-OPTION, e.g. --busy-poll), clients with queues, raw protocol
 * clients, and the numbers in hsaqmctl's JSON. Header-only; include once.
 */
#ifndef T_HSAQMD_H
#define T_HSAQMD_H

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

#define T_WAIT_MS 5000

static struct t_daemon t_dmn;

static inline int t_hsaqmd_suite_init(void)
{
	if (t_daemon_init(&t_dmn) || t_daemon_start(&t_dmn))
		return -1;
	return 0;
}

static inline int t_hsaqmd_suite_fini(void)
{
	t_daemon_fini(&t_dmn);
	return 0;
}

/* A client at @prio with queues on @gpus[0..n). */
static inline int t_client_with_queues(struct t_client *c, int prio, const unsigned int *gpus,
				       int n)
{
	char line[256];

	if (t_client_start(c, &t_dmn, prio, T_SAME_UID, line, sizeof(line)) ||
	    strncmp(line, "open ok", 7))
		return -1;
	for (int i = 0; i < n; i++) {
		t_client_send(c, "add %u", gpus[i]);
		if (t_client_expect(c, "added", T_WAIT_MS, line, sizeof(line)) ||
		    !strstr(line, "held="))
			return -1;
	}
	return 0;
}

/* ---- raw protocol clients -------------------------------------------------------------- */

static inline int t_raw_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, t_dmn.sock);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	struct timeval tv = { .tv_sec = 5 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static inline int t_msg_build(void *buf, unsigned int type, const void *body)
{
	return hsaqmd_msg_build(buf, type, 1, body);
}

/* ---- numbers in hsaqmctl's JSON -------------------------------------------------------- */

/* The number after @key in hsaqmctl's JSON (a field named once there), or -1. */
static inline double t_hsaqmd_json_num(const char *json, const char *key)
{
	const char *p = strstr(json, key);

	return p ? strtod(p + strlen(key), NULL) : -1.0;
}

/* One segment's field, e.g. seg "ready_acked", field "max_us". */
static inline double t_handoff_num(const char *json, const char *seg, const char *field)
{
	char key[96];
	const char *p = strstr(json, seg);

	snprintf(key, sizeof(key), "\"%s\": ", field);
	return p ? t_hsaqmd_json_num(p, key) : -1.0;
}

/* A raw client (this process): HELLO as a client, its page mapped, one queue on @gpu. */
struct t_raw_client {
	int fd, kick;
	struct hsaqmd_shm *shm;
};

static inline int t_raw_client_open(struct t_raw_client *rc, unsigned int gpu, int prio)
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
	rc->fd = t_raw_connect();
	len = t_msg_build(buf, HSAQMD_HELLO, &h);
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
	len = t_msg_build(buf, HSAQMD_QUEUE_ADD, &add);
	if (rc->shm == MAP_FAILED || send(rc->fd, buf, (size_t)len, 0) != len ||
	    recv(rc->fd, buf, sizeof(buf), 0) <= 0)
		return -1;
	return 0;
}

static inline void t_raw_client_kick(struct t_raw_client *rc)
{
	uint64_t one = 1;

	/*
	 * seq_cst: the state stores before it come first; the daemon's on_kick() exchange of
	 * the flag pairs with it before it scans them (the client library uses an exchange).
	 */
	__atomic_store_n(&rc->shm->kick_daemon, 1u, __ATOMIC_SEQ_CST);
	CU_ASSERT(write(rc->kick, &one, sizeof(one)) == sizeof(one));
}

/* The value of "key": N in a JSON text, or -1. */
static inline long long t_hsaqmd_json_key(const char *out, const char *key)
{
	char k[64];

	snprintf(k, sizeof(k), "\"%s\": ", key);
	return (long long)t_hsaqmd_json_num(out, k);
}

/* hsaqmd with @extra arguments (NULL-terminated, at most 6); its output in @out. */
static inline int t_run_hsaqmd(char *out, size_t len, const char *a0, const char *a1,
			       const char *a2, const char *a3)
{
	const char *argv[8] = { t_bins.hsaqmd, a0, a1, a2, a3, NULL };

	return t_exec(T_SAME_UID, false, 10000, out, len, argv);
}

#endif /* T_HSAQMD_H */
