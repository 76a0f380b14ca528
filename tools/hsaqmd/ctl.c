/* SPDX-License-Identifier: MIT */
/*
 * hsaqmctl - look at and steer hsaqmd (docs/daemon.md "hsaqmctl").
 *
 *   hsaqmctl [--socket PATH] list [--json]
 *   hsaqmctl [--socket PATH] set-priority PID|qN VALUE
 *   hsaqmctl [--socket PATH] stats [--json]
 *   hsaqmctl [--socket PATH] policy [GPU_ID|all hpf [PERIOD_US SLICE_US] | util [PERIOD_US] | none]
 *   hsaqmctl [--socket PATH] top [SECONDS]
 *
 * Exit: 0 done; 1 the daemon refused (the reason is printed); 2 usage; 3 no daemon.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "hsaqm/hsaqm.h"
#include "path_internal.h"
#include "policy_internal.h"
#include "proto_internal.h"

#define TIMEOUT_MS 3000
#define MAX_ENTRIES 65536

static int sock = -1;
static uint32_t seq;

static int ctl_connect(const char *path, bool named)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct hsaqmd_hello h = { .role = HSAQMD_ROLE_CTL, .priority = 0, .pid = (uint32_t)getpid() };
	char buf[HSAQMD_MSG_MAX], why[4200];
	struct hsaqmd_msg m;
	ssize_t r;
	int len, rc;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	/* Not a daemon another user could have put there (path_internal.h). */
	rc = hsaqm_sock_dir_check(path, named ? (uid_t)-1 : geteuid(), why, sizeof(why));
	if (rc == -EPERM) {
		fprintf(stderr, "hsaqmctl: not connecting to %s: %s\n", path, why);
		return rc;
	}
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	strcpy(h.comm, "hsaqmctl");
	len = hsaqmd_msg_build(buf, HSAQMD_HELLO, ++seq, &h);
	if (send(sock, buf, (size_t)len, MSG_NOSIGNAL) != len)
		return -errno;
	r = recv(sock, buf, sizeof(buf), 0);
	if (r <= 0 || hsaqmd_msg_parse(buf, (size_t)r, &m) || m.hdr.type != HSAQMD_HELLO_OK)
		return -EPROTO;
	return 0;
}

static int send_req(unsigned int type, const void *body)
{
	char buf[HSAQMD_MSG_MAX];
	int len = hsaqmd_msg_build(buf, type, ++seq, body);

	return send(sock, buf, (size_t)len, MSG_NOSIGNAL) == len ? 0 : -errno;
}

static int recv_msg(struct hsaqmd_msg *m)
{
	char buf[HSAQMD_MSG_MAX + 1];
	struct pollfd p = { .fd = sock, .events = POLLIN };
	ssize_t r;

	if (poll(&p, 1, TIMEOUT_MS) <= 0)
		return -ETIMEDOUT;
	r = recv(sock, buf, sizeof(buf), 0);
	if (r <= 0)
		return -ECONNRESET;
	return hsaqmd_msg_parse(buf, (size_t)r, m) ? -EPROTO : 0;
}

static int result(void)
{
	struct hsaqmd_msg m;
	int rc = recv_msg(&m);

	if (rc)
		return rc;
	if (m.hdr.type != HSAQMD_RESULT)
		return -EPROTO;
	return m.u.result.status;
}

static const char *state_name(uint32_t s)
{
	return s == HSAQMD_QSTATE_PREEMPTED ? "preempted" : s == HSAQMD_QSTATE_READY ? "ready"
										      : "idle";
}

/* JSON strings: comm is printable ASCII (the daemon replaced the rest), escape " and \. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static int cmd_list(int json)
{
	struct hsaqmd_msg m;
	int rc, nproc = 0, nq = 0;
	unsigned int hidden = 0;

	rc = send_req(HSAQMD_LIST, NULL);
	if (rc)
		return rc;
	if (json)
		printf("{\"version\": 1, \"processes\": [");
	else
		printf("%-8s %-8s %-6s %-16s %5s %4s\n", "PID", "NSPID", "UID", "COMM", "PRIO",
		       "CAP");
	for (int i = 0; i < MAX_ENTRIES; i++) {
		rc = recv_msg(&m);
		if (rc)
			return rc;
		if (m.hdr.type == HSAQMD_END) {
			hidden = m.u.end.hidden;
			break;
		}
		if (m.hdr.type == HSAQMD_LIST_PROC) {
			const struct hsaqmd_list_proc *p = &m.u.list_proc;

			if (json) {
				printf("%s\n  {\"pid\": %u, \"pid_client_ns\": %u, \"uid\": %u, "
				       "\"comm\": ", nproc ? "]}," : "", p->pid_ns, p->pid, p->uid);
				json_str(p->comm);
				printf(", \"priority\": %d, \"cap\": %d, \"client_id\": %u, "
				       "\"queues\": [", p->priority, p->cap, p->client_id);
			} else {
				printf("%-8u %-8u %-6u %-16s %5d %4d\n", p->pid_ns, p->pid, p->uid,
				       p->comm, p->priority, p->cap);
			}
			nproc++;
			nq = 0;
		} else if (m.hdr.type == HSAQMD_LIST_QUEUE) {
			const struct hsaqmd_list_queue *q = &m.u.list_queue;
			char kfd[16];

			if (q->kfd_queue_id == HSAQMD_NO_KFD_QUEUE)
				strcpy(kfd, json ? "null" : "-");
			else
				snprintf(kfd, sizeof(kfd), "%u", q->kfd_queue_id);
			if (json)
				printf("%s\n    {\"queue\": \"q%u\", \"gpu_id\": %u, "
				       "\"hsa_queue_id\": %llu, \"kfd_queue_id\": %s, \"level\": \"%s\", "
				       "\"priority\": %d, \"priority_adjust\": %d, \"state\": \"%s\", "
				       "\"acked\": %s, \"group\": %u, \"share_permille\": %u, "
				       "\"preemptions\": %llu, \"mechanism\": \"%s\", "
				       "\"held_s\": %.6f, \"stalled\": %s, \"stalls\": %llu}",
				       nq ? "," : "", q->qid, q->gpu_id,
				       (unsigned long long)q->hsa_queue_id, kfd,
				       hsaqm_level_name((enum hsaqm_level)q->level), q->priority,
				       q->prio_adj, state_name(q->state), q->acked ? "true" : "false",
				       q->group, q->share, (unsigned long long)q->preemptions, q->mech,
				       q->held_ns / 1e9, q->stalled ? "true" : "false",
				       (unsigned long long)q->stalls);
			else
				printf("    q%-5u gpu %-6u hsa %-6llu kfd %-4s %-4s prio %4d  %-9s%s%s "
				       "preemptions %llu\n",
				       q->qid, q->gpu_id, (unsigned long long)q->hsa_queue_id, kfd,
				       hsaqm_level_name((enum hsaqm_level)q->level), q->priority,
				       state_name(q->state), q->acked ? "" : " (not acked)",
				       q->stalled ? " (stalled)" : "",
				       (unsigned long long)q->preemptions);
			nq++;
		}
	}
	if (json)
		printf("%s], \"hidden\": %u}\n", nproc ? "]}\n" : "", hidden);
	else if (hidden)
		printf("(%u process%s of other users not shown: root sees every process)\n", hidden,
		       hidden == 1 ? "" : "es");
	return 0;
}

static int cmd_set_priority(const char *target, const char *value)
{
	struct hsaqmd_ctl_set_prio c = { 0 };
	char *end;
	long v;
	unsigned long t;

	if (target[0] == 'q') {
		c.target_kind = HSAQMD_TARGET_QUEUE;
		target++;
	} else {
		c.target_kind = HSAQMD_TARGET_PID;
	}
	errno = 0;
	t = strtoul(target, &end, 10);
	if (errno || end == target || *end || t > UINT32_MAX)
		return -EINVAL;
	v = strtol(value, &end, 10);
	if (errno || end == value || *end || v < -200 || v > 200)
		return -EINVAL;
	c.target = (uint32_t)t;
	c.priority = (int32_t)v;
	int rc = send_req(HSAQMD_CTL_SET_PRIO, &c);

	return rc ? rc : result();
}

static int get_stats(struct hsaqmd_stats_ok *s)
{
	struct hsaqmd_msg m;
	int rc = send_req(HSAQMD_STATS, NULL);

	if (!rc)
		rc = recv_msg(&m);
	if (rc)
		return rc;
	if (m.hdr.type != HSAQMD_STATS_OK)
		return -EPROTO;
	*s = m.u.stats_ok;
	return 0;
}

/* The hand-off segments (docs/daemon.md "Hand-off timing"); closes the JSON object. */
static void print_handoff(const struct hsaqmd_stats_ok *s, int json)
{
	static const char *const names[] = { "ready_seen", "seen_sent", "sent_acked", "ready_acked" };
	static const char *const labels[] = { "ready -> seen", "seen -> sent", "sent -> acked",
					      "ready -> acked" };
	const struct hsaqmd_lat *l[] = { &s->ready_seen, &s->seen_sent, &s->sent_acked,
					 &s->ready_acked };

	if (json)
		printf(", \"handoff\": {");
	else
		printf("hand-off        holds timed: %llu (%llu unacked before the next command, "
		       "%llu stamps discarded)\n"
		       "                   count    P50 us    P90 us    P99 us    max us\n",
		       (unsigned long long)s->ready_acked.count,
		       (unsigned long long)s->holds_unacked,
		       (unsigned long long)s->stamps_discarded);
	for (int i = 0; i < 4; i++)
		printf(json ? "%s\"%s\": {\"count\": %llu, \"p50_us\": %.3f, \"p90_us\": %.3f, "
			      "\"p99_us\": %.3f, \"max_us\": %.3f}"
			    : "%s%-14s %9llu %9.1f %9.1f %9.1f %9.1f\n",
		       json ? (i ? ", " : "") : "  ", json ? names[i] : labels[i],
		       (unsigned long long)l[i]->count, l[i]->p50_ns / 1e3, l[i]->p90_ns / 1e3,
		       l[i]->p99_ns / 1e3, l[i]->max_ns / 1e3);
	if (json)
		printf(", \"holds_unacked\": %llu, \"stamps_discarded\": %llu}}\n",
		       (unsigned long long)s->holds_unacked, (unsigned long long)s->stamps_discarded);
}

static int cmd_stats(int json)
{
	struct hsaqmd_stats_ok s;
	int rc = get_stats(&s);

	if (rc)
		return rc;
	/* One argument list for both forms, so a counter added to one is not missed by the other. */
	printf(json ? "{\"version\": 1, \"uptime_s\": %.3f, \"clients\": %u, "
		       "\"ctl_connections\": %u, \"queues\": %u, \"devices\": %u, "
		       "\"messages\": %llu, \"bad_messages\": %llu, \"decisions\": %llu, "
		       "\"commands\": %llu, \"kicks_in\": %llu, \"kicks_out\": %llu, "
		       "\"clients_total\": %llu, \"clients_lost\": %llu, \"rss_kib\": %llu, "
		       "\"fds\": %u, \"busy_polling\": %s, \"spinning\": %s, \"realtime\": %u, "
		       "\"stalls\": %llu, \"refused\": {\"full\": %llu, \"uid_limit\": %llu, "
		       "\"hello_timeout\": %llu, \"slow_reader\": %llu, \"device\": %llu, "
		       "\"quota\": %llu}"
		     : "uptime          %.1f s\n"
		       "clients         %u (and %u control connections)\n"
		       "queues          %u on %u devices\n"
		       "messages        %llu (%llu malformed, each closed its connection)\n"
		       "decisions       %llu\n"
		       "commands        %llu (preempt/resume words written)\n"
		       "wake-ups        %llu in, %llu out\n"
		       "connections     %llu since start, %llu left holding queues\n"
		       "resident memory %llu KiB\n"
		       "open fds        %u\n"
		       "busy-polling    %s (spinning now: %s)\n"
		       "real-time       %u (SCHED_FIFO priority; 0: not real-time)\n"
		       "stalls          %llu (holds released: the holder made no progress)\n"
		       "refused         %llu full, %llu at the uid's limit, %llu without HELLO, "
		       "%llu slow readers, %llu unknown gpu_ids, %llu over quota\n",
	       (double)s.uptime_ns / 1e9, s.clients, s.ctls, s.queues, s.devices,
	       (unsigned long long)s.messages, (unsigned long long)s.bad_messages,
	       (unsigned long long)s.decisions, (unsigned long long)s.commands,
	       (unsigned long long)s.kicks_in, (unsigned long long)s.kicks_out,
	       (unsigned long long)s.clients_total, (unsigned long long)s.clients_lost,
	       (unsigned long long)s.rss_kib, s.fds,
	       s.polling ? (json ? "true" : "yes") : (json ? "false" : "no"),
	       s.spinning ? (json ? "true" : "yes") : (json ? "false" : "no"), s.realtime,
	       (unsigned long long)s.stalls, (unsigned long long)s.refused_full,
	       (unsigned long long)s.refused_uid_limit, (unsigned long long)s.refused_hello,
	       (unsigned long long)s.refused_slow, (unsigned long long)s.refused_device,
	       (unsigned long long)s.refused_quota);
	print_handoff(&s, json);
	return 0;
}

static int cmd_policy(int argc, char **argv)
{
	struct hsaqmd_policy_entry e = { 0 };
	struct hsaqmd_msg m;
	int rc;

	if (argc == 0) {
		rc = send_req(HSAQMD_POLICY_GET, NULL);
		if (rc)
			return rc;
		for (int i = 0; i < MAX_ENTRIES; i++) {
			rc = recv_msg(&m);
			if (rc)
				return rc;
			if (m.hdr.type != HSAQMD_POLICY_ENTRY)
				break;
			const struct hsaqmd_policy_entry *p = &m.u.policy;
			char who[32];

			if (p->gpu_id == HSAQMD_ALL_GPUS)
				strcpy(who, "default");
			else
				snprintf(who, sizeof(who), "gpu %u", p->gpu_id);
			printf("%-12s %s", who, hsaqm_policy_name((enum hsaqm_policy_kind)p->kind));
			if (p->kind == HSAQM_POLICY_HPF && p->floor_period_us)
				printf(" floor %u us every %u us", p->floor_slice_us,
				       p->floor_period_us);
			if (p->kind == HSAQM_POLICY_UTIL)
				printf(" period %u us", p->util_period_us ? p->util_period_us : 10000);
			if (p->gpu_id != HSAQMD_ALL_GPUS)
				printf("  (%u queues)", p->nqueues);
			printf("\n");
		}
		return 0;
	}
	if (argc < 2)
		return -EINVAL;
	if (!strcmp(argv[0], "all") || !strcmp(argv[0], "default")) {
		e.gpu_id = HSAQMD_ALL_GPUS;
	} else {
		char *end;
		unsigned long g = strtoul(argv[0], &end, 0);

		if (end == argv[0] || *end || g >= UINT32_MAX)
			return -EINVAL;
		e.gpu_id = (uint32_t)g;
	}
	if (!strcmp(argv[1], "hpf") && (argc == 2 || argc == 4)) {
		e.kind = HSAQM_POLICY_HPF;
		if (argc == 4) {
			e.floor_period_us = (uint32_t)strtoul(argv[2], NULL, 10);
			e.floor_slice_us = (uint32_t)strtoul(argv[3], NULL, 10);
		}
	} else if (!strcmp(argv[1], "util") && argc <= 3) {
		e.kind = HSAQM_POLICY_UTIL;
		if (argc == 3)
			e.util_period_us = (uint32_t)strtoul(argv[2], NULL, 10);
	} else if (!strcmp(argv[1], "none") && argc == 2) {
		e.kind = HSAQM_POLICY_NONE;
	} else {
		return -EINVAL;
	}
	struct hsaqm_policy_config chk = {
		.kind = (enum hsaqm_policy_kind)e.kind, .floor_period_us = e.floor_period_us,
		.floor_slice_us = e.floor_slice_us, .util_period_us = e.util_period_us,
	};

	/* The daemon would take a bad one for a malformed message and hang up: say it here. */
	if (hsaqm_policy_check(&chk) || e.floor_period_us > 100000000u ||
	    e.util_period_us > 100000000u)
		return -EINVAL;
	rc = send_req(HSAQMD_POLICY_SET, &e);
	return rc ? rc : result();
}

/* A live view: stats and the registry, redrawn every second for @seconds (0 = until ^C). */
static int cmd_top(long seconds)
{
	int tty = isatty(STDOUT_FILENO);

	for (long i = 0; seconds == 0 || i < seconds; i++) {
		if (tty)
			printf("\033[H\033[2J");
		int rc = cmd_stats(0);

		if (!rc) {
			printf("\n");
			rc = cmd_list(0);
		}
		if (rc)
			return rc;
		fflush(stdout);
		if (seconds == 0 || i + 1 < seconds)
			sleep(1);
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: hsaqmctl [--socket PATH] COMMAND\n"
		   "  list [--json]                      processes and their queues\n"
		   "  set-priority PID|qN VALUE          a process's priority, or a queue's adjustment\n"
		   "  stats [--json]                     the daemon's counters\n"
		   "  policy                             each device's policy\n"
		   "  policy GPU_ID|all hpf [PERIOD_US SLICE_US] | util [PERIOD_US] | none\n"
		   "  top [SECONDS]                      stats and list, refreshed every second\n"
		   "The socket: --socket, else $HSAQM_DAEMON, else the default of hsaqmd.\n");
}


int main(int argc, char **argv)
{
	char pathbuf[128];
	const char *path = NULL;
	bool named = true;
	int i = 1, rc;

	signal(SIGPIPE, SIG_IGN);
	if (i + 1 < argc && !strcmp(argv[i], "--socket")) {
		path = argv[i + 1];
		i += 2;
	}
	if (i >= argc || !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
		usage(i >= argc ? stderr : stdout);
		return i >= argc ? 2 : 0;
	}
	if (!path) {
		/* The same search as every client's (path_internal.h). */
		if (hsaqm_sock_find(pathbuf, sizeof(pathbuf), &named) < 0) {
			fprintf(stderr, "hsaqmctl: HSAQM_DAEMON=%s: no daemon to ask\n",
				getenv("HSAQM_DAEMON"));
			return 3;
		}
		path = pathbuf;
	}
	const char *cmd = argv[i++];
	int json = i < argc && !strcmp(argv[i], "--json");

	if (!strcmp(cmd, "list") || !strcmp(cmd, "stats")) {
		if (argc - i > json) {
			usage(stderr);
			return 2;
		}
	} else if (!strcmp(cmd, "set-priority")) {
		if (argc - i != 2) {
			usage(stderr);
			return 2;
		}
	} else if (strcmp(cmd, "policy") && strcmp(cmd, "top")) {
		usage(stderr);
		return 2;
	}
	rc = ctl_connect(path, named);
	if (rc == -EPERM)
		return 3;
	if (rc) {
		fprintf(stderr, "hsaqmctl: no daemon at %s (%s)\n", path, strerror(-rc));
		return 3;
	}
	if (!strcmp(cmd, "list"))
		rc = cmd_list(json);
	else if (!strcmp(cmd, "stats"))
		rc = cmd_stats(json);
	else if (!strcmp(cmd, "set-priority"))
		rc = cmd_set_priority(argv[i], argv[i + 1]);
	else if (!strcmp(cmd, "policy"))
		rc = cmd_policy(argc - i, argv + i);
	else
		rc = cmd_top(i < argc ? strtol(argv[i], NULL, 10) : 0);
	if (rc == -EINVAL) {
		usage(stderr);
		return 2;
	}
	if (rc) {
		fprintf(stderr, "hsaqmctl: %s: %s\n", cmd,
			rc == -EPERM ? "not permitted (root or the owning user only, within the cap)"
			: rc == -ESRCH ? "no such process or queue registered"
				       : strerror(-rc));
		return 1;
	}
	return 0;
}
