/* SPDX-License-Identifier: MIT */
/*
 * hsaqmctl - look at and steer hsaqmd (docs/daemon.md "hsaqmctl").
 *
 *   hsaqmctl [--socket PATH] list [--json]
 *   hsaqmctl [--socket PATH] set-priority PID|qN VALUE
 *   hsaqmctl [--socket PATH] stats [--json]
 *   hsaqmctl [--socket PATH] policy [GPU_ID|all POLICY]
 *   hsaqmctl [--socket PATH] top [SECONDS]
 *   hsaqmctl [--socket PATH] metrics
 *
 * Every argument is checked before the daemon is asked; a bad one gets one line naming it.
 * Exit: 0 done; 1 the daemon refused (the reason is printed) or went away; 2 usage; 3 no
 * daemon.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctl_internal.h"
#include "hsaqm/hsaqm.h"
#include "hsaqm-common/json.h"
#include "hsaqm-dclient/path.h"
#include "hsaqm-common/policy_text.h"
#include "hsaqm-dclient/proto.h"
#include "hsaqm-common/text.h"

#define TIMEOUT_MS 3000
#define MAX_ENTRIES (1 << 20)
#define TOP_MAX_SECONDS 86400

static int sock = -1;
static uint32_t seq;

/* ---- the connection ----------------------------------------------------------------------- */

static int ctl_connect(const char *path, bool named)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct hsaqmd_hello h = { .role = HSAQMD_ROLE_CTL, .priority = 0, .pid = (uint32_t)getpid() };
	struct hsaqmd_msg m;
	char why[4200];
	int rc;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	/* Not a daemon another user could have put there (hsaqm-dclient/path.h). */
	rc = hsaqm_sock_dir_check(path, named ? (uid_t)-1 : geteuid(), why, sizeof(why));
	if (rc == -EPERM) {
		fprintf(stderr, "hsaqmctl: not connecting to %s: %s\n", path, why);
		return rc;
	}
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	strcpy(h.comm, "hsaqmctl");
	rc = ctl_send(HSAQMD_HELLO, &h);
	if (!rc)
		rc = ctl_recv(&m);
	if (!rc && m.hdr.type != HSAQMD_HELLO_OK)
		rc = m.hdr.type == HSAQMD_RESULT ? m.u.result.status : -EPROTO;
	return rc;
}

int ctl_send(unsigned int type, const void *body)
{
	char buf[HSAQMD_MSG_MAX];
	int len = hsaqmd_msg_build(buf, type, ++seq, body);

	if (len < 0)
		return len;
	return send(sock, buf, (size_t)len, MSG_NOSIGNAL) == len ? 0 : -ECONNRESET;
}

int ctl_recv(struct hsaqmd_msg *m)
{
	char buf[HSAQMD_MSG_MAX + 1];
	struct pollfd p = { .fd = sock, .events = POLLIN };
	ssize_t r;
	int pr;

	do
		pr = poll(&p, 1, TIMEOUT_MS);
	while (pr < 0 && errno == EINTR);
	if (pr <= 0)
		return -ETIMEDOUT;
	r = recv(sock, buf, sizeof(buf), 0);
	if (r <= 0)
		return -ECONNRESET;
	return hsaqmd_msg_parse(buf, (size_t)r, m) ? -EPROTO : 0;
}

static int result(void)
{
	struct hsaqmd_msg m;
	int rc = ctl_recv(&m);

	if (rc)
		return rc;
	return m.hdr.type == HSAQMD_RESULT ? m.u.result.status : -EPROTO;
}

const char *ctl_state_name(uint32_t s)
{
	return s == HSAQMD_QSTATE_PREEMPTED ? "preempted" : s == HSAQMD_QSTATE_READY ? "ready"
										      : "idle";
}

/* ---- snapshots ------------------------------------------------------------------------------ */

void ctl_snapshot_free(struct ctl_snapshot *s)
{
	free(s->procs);
	free(s->queues);
	memset(s, 0, sizeof(*s));
}

/* Room for one more entry in *@v (of @n). */
static int grow(void **v, size_t n, size_t size)
{
	void *nv = realloc(*v, (n + 1) * size);

	if (!nv)
		return -ENOMEM;
	*v = nv;
	return 0;
}

int ctl_snapshot_take(struct ctl_snapshot *s)
{
	struct hsaqmd_msg m;
	struct timespec ts;
	int rc;

	ctl_snapshot_free(s);
	rc = ctl_send(HSAQMD_STATS, NULL);
	if (!rc)
		rc = ctl_recv(&m);
	if (rc)
		return rc;
	if (m.hdr.type != HSAQMD_STATS_OK)
		return -EPROTO;
	s->stats = m.u.stats_ok;
	rc = ctl_send(HSAQMD_LIST, NULL);
	for (int i = 0; !rc && i < MAX_ENTRIES; i++) {
		rc = ctl_recv(&m);
		if (rc)
			break;
		if (m.hdr.type == HSAQMD_END) {
			s->hidden = m.u.end.hidden;
			break;
		}
		if (m.hdr.type == HSAQMD_LIST_PROC) {
			rc = grow((void **)&s->procs, s->nprocs, sizeof(*s->procs));
			if (!rc)
				s->procs[s->nprocs++] = m.u.list_proc;
		} else if (m.hdr.type == HSAQMD_LIST_QUEUE) {
			rc = grow((void **)&s->queues, s->nqueues, sizeof(*s->queues));
			if (!rc)
				s->queues[s->nqueues++] = m.u.list_queue;
		} else {
			rc = -EPROTO;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->taken_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return rc;
}

/* ---- list, stats ------------------------------------------------------------------------------ */

/*
 * One queue of `list --json` (docs/daemon.md): lib's per-queue names (docs/stats.md) where the
 * daemon knows the same thing (effective_level, priority, state, group, share_permille,
 * preemptions, preempted_ns, mechanism, dep_stalls), the daemon's own otherwise.
 */
static void queue_json(struct hsaqm_json *j, const struct hsaqmd_list_queue *q)
{
	char name[16];

	snprintf(name, sizeof(name), "q%u", q->qid);
	hsaqm_json_begin_object(j, NULL);
	hsaqm_json_string(j, "queue", name);
	hsaqm_json_uint(j, "gpu_id", q->gpu_id);
	hsaqm_json_uint(j, "hsa_queue_id", q->hsa_queue_id);
	if (q->kfd_queue_id == HSAQMD_NO_KFD_QUEUE)
		hsaqm_json_null(j, "kfd_queue_id");
	else
		hsaqm_json_uint(j, "kfd_queue_id", q->kfd_queue_id);
	hsaqm_json_string(j, "effective_level", hsaqm_level_name((enum hsaqm_level)q->level));
	hsaqm_json_int(j, "priority", q->priority);
	hsaqm_json_int(j, "priority_adjust", q->prio_adj);
	hsaqm_json_string(j, "state", ctl_state_name(q->state));
	hsaqm_json_bool(j, "acked", q->acked);
	hsaqm_json_uint(j, "group", q->group);
	hsaqm_json_uint(j, "share_permille", q->share);
	hsaqm_json_uint(j, "preemptions", q->preemptions);
	hsaqm_json_string(j, "mechanism", q->mech);
	hsaqm_json_uint(j, "preempted_ns", q->held_ns);
	hsaqm_json_bool(j, "stalled", q->stalled);
	hsaqm_json_uint(j, "stalls", q->stalls);
	hsaqm_json_uint(j, "dep_stalls", q->dep_stalls);
	hsaqm_json_end_object(j);
}

static void list_json(const struct ctl_snapshot *s)
{
	struct hsaqm_json j;

	hsaqm_json_init_pretty(&j, stdout, 2);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_int(&j, "version", 2);
	hsaqm_json_begin_array(&j, "processes");
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct hsaqmd_list_proc *p = &s->procs[i];

		hsaqm_json_begin_object(&j, NULL);
		hsaqm_json_uint(&j, "pid", p->pid_ns);
		hsaqm_json_uint(&j, "pid_client_ns", p->pid);
		hsaqm_json_uint(&j, "uid", p->uid);
		hsaqm_json_string(&j, "comm", p->comm);
		hsaqm_json_int(&j, "priority", p->priority);
		hsaqm_json_int(&j, "cap", p->cap);
		hsaqm_json_uint(&j, "client_id", p->client_id);
		hsaqm_json_begin_array(&j, "queues");
		for (size_t k = 0; k < s->nqueues; k++)
			if (s->queues[k].client_id == p->client_id)
				queue_json(&j, &s->queues[k]);
		hsaqm_json_end_array(&j);
		hsaqm_json_end_object(&j);
	}
	hsaqm_json_end_array(&j);
	hsaqm_json_uint(&j, "hidden", s->hidden);
	hsaqm_json_end_object(&j);
	putchar('\n');
}

static void print_queue_text(const struct hsaqmd_list_queue *q)
{
	char kfd[16];

	if (q->kfd_queue_id == HSAQMD_NO_KFD_QUEUE)
		strcpy(kfd, "-");
	else
		snprintf(kfd, sizeof(kfd), "%u", q->kfd_queue_id);
	printf("    q%-5u gpu %-6u hsa %-6llu kfd %-4s %-4s prio %4d  %-9s%s%s preemptions %llu",
	       q->qid, q->gpu_id, (unsigned long long)q->hsa_queue_id, kfd,
	       hsaqm_level_name((enum hsaqm_level)q->level), q->priority, ctl_state_name(q->state),
	       q->acked ? "" : " (not acked)", q->stalled ? " (stalled)" : "",
	       (unsigned long long)q->preemptions);
	/* Its head waited past the dependency bound (docs/lib.md): said only when it did. */
	if (q->dep_stalls)
		printf(" dep-stalls %u", q->dep_stalls);
	printf("\n");
}

static int cmd_list(bool json)
{
	struct ctl_snapshot s = { 0 };
	int rc = ctl_snapshot_take(&s);

	if (rc) {
		ctl_snapshot_free(&s);
		return rc;
	}
	if (json) {
		list_json(&s);
		ctl_snapshot_free(&s);
		return 0;
	}
	printf("%-8s %-8s %-6s %-16s %5s %4s\n", "PID", "NSPID", "UID", "COMM", "PRIO", "CAP");
	for (size_t i = 0; i < s.nprocs; i++) {
		const struct hsaqmd_list_proc *p = &s.procs[i];

		printf("%-8u %-8u %-6u %-16s %5d %4d\n", p->pid_ns, p->pid, p->uid, p->comm,
		       p->priority, p->cap);
		for (size_t j = 0; j < s.nqueues; j++)
			if (s.queues[j].client_id == p->client_id)
				print_queue_text(&s.queues[j]);
	}
	if (s.hidden)
		printf("(%u process%s of other users not shown: root sees every process)\n", s.hidden,
		       s.hidden == 1 ? "" : "es");
	ctl_snapshot_free(&s);
	return 0;
}

static const char *const handoff_names[] = { "ready_seen", "seen_sent", "sent_acked",
					     "ready_acked" };

/* The hand-off segments (docs/daemon.md "Hand-off timing"), @s's in the order of handoff_names. */
static void handoff_segments(const struct hsaqmd_stats_ok *s, const struct hsaqmd_lat *l[4])
{
	l[0] = &s->ready_seen;
	l[1] = &s->seen_sent;
	l[2] = &s->sent_acked;
	l[3] = &s->ready_acked;
}

static void stats_text(const struct hsaqmd_stats_ok *s)
{
	static const char *const labels[] = { "ready -> seen", "seen -> sent", "sent -> acked",
					      "ready -> acked" };
	const struct hsaqmd_lat *l[4];

	printf("uptime          %.1f s\n"
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
	       (double)s->uptime_ns / 1e9, s->clients, s->ctls, s->queues, s->devices,
	       (unsigned long long)s->messages, (unsigned long long)s->bad_messages,
	       (unsigned long long)s->decisions, (unsigned long long)s->commands,
	       (unsigned long long)s->kicks_in, (unsigned long long)s->kicks_out,
	       (unsigned long long)s->clients_total, (unsigned long long)s->clients_lost,
	       (unsigned long long)s->rss_kib, s->fds, s->polling ? "yes" : "no",
	       s->spinning ? "yes" : "no", s->realtime, (unsigned long long)s->stalls,
	       (unsigned long long)s->refused_full, (unsigned long long)s->refused_uid_limit,
	       (unsigned long long)s->refused_hello, (unsigned long long)s->refused_slow,
	       (unsigned long long)s->refused_device, (unsigned long long)s->refused_quota);
	printf("hand-off        holds timed: %llu (%llu unacked before the next command, "
	       "%llu stamps discarded)\n"
	       "                   count    P50 us    P90 us    P99 us    max us\n",
	       (unsigned long long)s->ready_acked.count, (unsigned long long)s->holds_unacked,
	       (unsigned long long)s->stamps_discarded);
	handoff_segments(s, l);
	for (int i = 0; i < 4; i++)
		printf("  %-14s %9llu %9.1f %9.1f %9.1f %9.1f\n", labels[i],
		       (unsigned long long)l[i]->count, l[i]->p50_ns / 1e3, l[i]->p90_ns / 1e3,
		       l[i]->p99_ns / 1e3, l[i]->max_ns / 1e3);
}

/* `stats --json` (docs/daemon.md): the same counters as stats_text(), by name. */
static void stats_json(const struct hsaqmd_stats_ok *s)
{
	const struct hsaqmd_lat *l[4];
	struct hsaqm_json j;

	hsaqm_json_init_pretty(&j, stdout, 2);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_int(&j, "version", 1);
	hsaqm_json_fixed(&j, "uptime_s", (double)s->uptime_ns / 1e9, 3);
	hsaqm_json_uint(&j, "clients", s->clients);
	hsaqm_json_uint(&j, "ctl_connections", s->ctls);
	hsaqm_json_uint(&j, "queues", s->queues);
	hsaqm_json_uint(&j, "devices", s->devices);
	hsaqm_json_uint(&j, "messages", s->messages);
	hsaqm_json_uint(&j, "bad_messages", s->bad_messages);
	hsaqm_json_uint(&j, "decisions", s->decisions);
	hsaqm_json_uint(&j, "commands", s->commands);
	hsaqm_json_uint(&j, "kicks_in", s->kicks_in);
	hsaqm_json_uint(&j, "kicks_out", s->kicks_out);
	hsaqm_json_uint(&j, "clients_total", s->clients_total);
	hsaqm_json_uint(&j, "clients_lost", s->clients_lost);
	hsaqm_json_uint(&j, "rss_kib", s->rss_kib);
	hsaqm_json_uint(&j, "fds", s->fds);
	hsaqm_json_bool(&j, "busy_polling", s->polling);
	hsaqm_json_bool(&j, "spinning", s->spinning);
	hsaqm_json_uint(&j, "realtime", s->realtime);
	hsaqm_json_uint(&j, "stalls", s->stalls);
	hsaqm_json_begin_object(&j, "refused");
	hsaqm_json_uint(&j, "full", s->refused_full);
	hsaqm_json_uint(&j, "uid_limit", s->refused_uid_limit);
	hsaqm_json_uint(&j, "hello_timeout", s->refused_hello);
	hsaqm_json_uint(&j, "slow_reader", s->refused_slow);
	hsaqm_json_uint(&j, "device", s->refused_device);
	hsaqm_json_uint(&j, "quota", s->refused_quota);
	hsaqm_json_end_object(&j);
	hsaqm_json_begin_object(&j, "handoff");
	handoff_segments(s, l);
	for (int i = 0; i < 4; i++) {
		hsaqm_json_begin_inline_object(&j, handoff_names[i]);
		hsaqm_json_uint(&j, "count", l[i]->count);
		hsaqm_json_fixed(&j, "p50_us", l[i]->p50_ns / 1e3, 3);
		hsaqm_json_fixed(&j, "p90_us", l[i]->p90_ns / 1e3, 3);
		hsaqm_json_fixed(&j, "p99_us", l[i]->p99_ns / 1e3, 3);
		hsaqm_json_fixed(&j, "max_us", l[i]->max_ns / 1e3, 3);
		hsaqm_json_end_object(&j);
	}
	hsaqm_json_uint(&j, "holds_unacked", s->holds_unacked);
	hsaqm_json_uint(&j, "stamps_discarded", s->stamps_discarded);
	hsaqm_json_end_object(&j);
	hsaqm_json_end_object(&j);
	putchar('\n');
}

static int cmd_stats(bool json)
{
	struct hsaqmd_msg m;
	int rc = ctl_send(HSAQMD_STATS, NULL);

	if (!rc)
		rc = ctl_recv(&m);
	if (rc)
		return rc;
	if (m.hdr.type != HSAQMD_STATS_OK)
		return -EPROTO;
	if (json)
		stats_json(&m.u.stats_ok);
	else
		stats_text(&m.u.stats_ok);
	return 0;
}

/* ---- set-priority, policy, metrics ---------------------------------------------------------- */

static int cmd_set_priority(const struct hsaqmd_ctl_set_prio *c)
{
	int rc = ctl_send(HSAQMD_CTL_SET_PRIO, c);

	return rc ? rc : result();
}

static int cmd_policy_get(void)
{
	struct hsaqmd_msg m;
	int rc = ctl_send(HSAQMD_POLICY_GET, NULL);

	for (int i = 0; !rc && i < MAX_ENTRIES; i++) {
		const struct hsaqmd_policy_entry *p = &m.u.policy;
		struct hsaqm_policy_config cfg;
		char who[32], text[64];

		rc = ctl_recv(&m);
		if (rc || m.hdr.type != HSAQMD_POLICY_ENTRY)
			break;
		if (p->gpu_id == HSAQMD_ALL_GPUS)
			strcpy(who, "default");
		else
			snprintf(who, sizeof(who), "gpu %u", p->gpu_id);
		cfg = (struct hsaqm_policy_config){
			.kind = (enum hsaqm_policy_kind)p->kind, .floor_period_us = p->floor_period_us,
			.floor_slice_us = p->floor_slice_us, .util_period_us = p->util_period_us,
		};
		/* The syntax `policy` takes back (hsaqm-common/policy_text.h). */
		hsaqm_policy_format(&cfg, text, sizeof(text));
		printf("%-12s %s", who, text);
		if (p->gpu_id != HSAQMD_ALL_GPUS)
			printf("  (%u queues)", p->nqueues);
		printf("\n");
	}
	return rc;
}

static int cmd_policy_set(const struct hsaqmd_policy_entry *e)
{
	int rc = ctl_send(HSAQMD_POLICY_SET, e);

	return rc ? rc : result();
}

/* The Prometheus text exposition (docs/daemon.md "Metrics"), for node_exporter's textfile
 * collector: `hsaqmctl metrics > /var/lib/node_exporter/hsaqmd.prom.$$ && mv ...`. */
static int cmd_metrics(void)
{
	struct hsaqmd_msg m;
	int rc = ctl_send(HSAQMD_METRICS, NULL);

	while (!rc) {
		rc = ctl_recv(&m);
		if (rc || m.hdr.type == HSAQMD_END)
			break;
		if (m.hdr.type != HSAQMD_TEXT)
			return m.hdr.type == HSAQMD_RESULT ? m.u.result.status : -EPROTO;
		fwrite(m.u.text.text, 1, m.u.text.len, stdout);
	}
	return rc;
}

/* ---- arguments -------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: hsaqmctl [--socket PATH] COMMAND\n"
		   "  list [--json]                      processes and their queues\n"
		   "  set-priority PID|qN VALUE          a process's priority (-100..100), or a queue's\n"
		   "                                     adjustment (-200..200)\n"
		   "  stats [--json]                     the daemon's counters\n"
		   "  policy                             each device's policy\n"
		   "  policy GPU_ID|all POLICY           set one: hpf, hpf PERIOD_US:SLICE_US, util,\n"
		   "                                     util PERIOD_US or none\n"
		   "  top [SECONDS]                      a live view (q quits); SECONDS: stop after\n"
		   "  metrics                            the Prometheus text format\n"
		   "The socket: --socket, else $HSAQM_DAEMON, else the default of hsaqmd.\n"
		   "Exit: 0 done, 1 refused, 2 usage, 3 no daemon.\n");
}

/* One line naming the bad input; exit 2. */
static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int bad(const char *fmt, ...)
{
	va_list ap;

	fputs("hsaqmctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (hsaqmctl --help)\n", stderr);
	return CTL_EXIT_USAGE;
}

/*
 * A whole decimal integer in [lo, hi], by the project's one rule for numbers a person writes
 * (hsaqm-common/text.h): no blanks, no '+', "010" is ten.
 */
static bool int_in(const char *s, long lo, long hi, long *out)
{
	long long v;

	if (hsaqm_parse_int(s, 10, lo, hi, &v))
		return false;
	*out = (long)v;
	return true;
}

/* What one command was asked, checked. */
struct request {
	enum { R_LIST, R_STATS, R_SET, R_POLICY_GET, R_POLICY_SET, R_TOP, R_METRICS } kind;
	bool json;
	struct hsaqmd_ctl_set_prio set;
	struct hsaqmd_policy_entry policy;
	unsigned int seconds;
};

static int parse_json_flag(const char *cmd, int argc, char **argv, bool *json)
{
	if (argc > 1)
		return bad("%s: unexpected \"%s\" (%s takes --json only)", cmd, argv[1], cmd);
	if (argc == 1 && strcmp(argv[0], "--json"))
		return bad("%s: unexpected \"%s\" (%s takes --json only)", cmd, argv[0], cmd);
	*json = argc == 1;
	return 0;
}

static int parse_set(int argc, char **argv, struct hsaqmd_ctl_set_prio *c)
{
	const char *t = argc > 0 ? argv[0] : NULL;
	long target, v;

	if (argc != 2)
		return bad("set-priority takes a PID or qN, then a VALUE%s%s%s", argc > 2 ? ": \"" : "",
			   argc > 2 ? argv[2] : "", argc > 2 ? "\" is one too many" : "");
	c->target_kind = t[0] == 'q' ? HSAQMD_TARGET_QUEUE : HSAQMD_TARGET_PID;
	if (!int_in(t + (t[0] == 'q'), 1, UINT32_MAX - 1l, &target))
		return bad("set-priority: \"%s\" is neither a process id nor a queue (qN)", t);
	if (c->target_kind == HSAQMD_TARGET_PID &&
	    !int_in(argv[1], HSAQM_PRIORITY_MIN, HSAQM_PRIORITY_MAX, &v))
		return bad("set-priority: \"%s\" is not a process priority (%d..%d)", argv[1],
			   HSAQM_PRIORITY_MIN, HSAQM_PRIORITY_MAX);
	if (c->target_kind == HSAQMD_TARGET_QUEUE &&
	    !int_in(argv[1], -2 * HSAQM_PRIORITY_MAX, 2 * HSAQM_PRIORITY_MAX, &v))
		return bad("set-priority: \"%s\" is not a queue adjustment (%d..%d)", argv[1],
			   -2 * HSAQM_PRIORITY_MAX, 2 * HSAQM_PRIORITY_MAX);
	c->target = (uint32_t)target;
	c->priority = (int32_t)v;
	return 0;
}

static int parse_policy(int argc, char **argv, struct request *r)
{
	struct hsaqm_policy_config cfg;
	char text[256] = "", why[128];
	bool old;
	size_t n = 0;

	if (argc == 0) {
		r->kind = R_POLICY_GET;
		return 0;
	}
	r->kind = R_POLICY_SET;
	if (!strcmp(argv[0], "all") || !strcmp(argv[0], "default")) {
		r->policy.gpu_id = HSAQMD_ALL_GPUS;
	} else if (hsaqm_parse_gpu_id(argv[0], &r->policy.gpu_id)) {
		return bad("policy: \"%s\" is not a gpu_id (decimal without a leading 0, or 0x hex) "
			   "nor all", argv[0]);
	}
	if (argc == 1)
		return bad("policy %s: which policy? (hpf, hpf PERIOD_US:SLICE_US, util, "
			   "util PERIOD_US or none)", argv[0]);
	for (int i = 1; i < argc && n < sizeof(text) - 1; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s", i > 1 ? " " : "", argv[i]);
	/* One syntax with HSAQM_POLICY and hsaqmd.conf (hsaqm-common/policy_text.h). */
	if (hsaqm_policy_parse(text, &cfg, &old, why, sizeof(why)))
		return bad("policy: \"%s\": %s", text, why);
	if (old)
		fprintf(stderr, "hsaqmctl: \"%s\" is deprecated: write \"hpf %u:%u\"\n", text,
			cfg.floor_period_us, cfg.floor_slice_us);
	r->policy.kind = (uint32_t)cfg.kind;
	r->policy.floor_period_us = cfg.floor_period_us;
	r->policy.floor_slice_us = cfg.floor_slice_us;
	r->policy.util_period_us = cfg.util_period_us;
	return 0;
}

static int parse_request(const char *cmd, int argc, char **argv, struct request *r)
{
	long v;

	memset(r, 0, sizeof(*r));
	if (!strcmp(cmd, "list")) {
		r->kind = R_LIST;
		return parse_json_flag(cmd, argc, argv, &r->json);
	}
	if (!strcmp(cmd, "stats")) {
		r->kind = R_STATS;
		return parse_json_flag(cmd, argc, argv, &r->json);
	}
	if (!strcmp(cmd, "set-priority")) {
		r->kind = R_SET;
		return parse_set(argc, argv, &r->set);
	}
	if (!strcmp(cmd, "policy"))
		return parse_policy(argc, argv, r);
	if (!strcmp(cmd, "top")) {
		r->kind = R_TOP;
		if (argc > 1)
			return bad("top: unexpected \"%s\" (top takes SECONDS only)", argv[1]);
		if (argc == 1 && !int_in(argv[0], 1, TOP_MAX_SECONDS, &v))
			return bad("top: \"%s\" is not a number of seconds (1..%d)", argv[0],
				   TOP_MAX_SECONDS);
		r->seconds = argc ? (unsigned int)v : 0;
		return 0;
	}
	if (!strcmp(cmd, "metrics")) {
		r->kind = R_METRICS;
		return argc ? bad("metrics: unexpected \"%s\" (metrics takes nothing)", argv[0]) : 0;
	}
	return bad("unknown command \"%s\" (list, set-priority, stats, policy, top, metrics)", cmd);
}

/* A refusal, said for what was asked. */
static int refused(const struct request *r, int rc)
{
	const char *why = strerror(-rc);

	if (rc == -EPERM)
		why = r->kind == R_POLICY_SET
			      ? "not permitted: a policy is set by root or the daemon's own user"
			      : "not permitted: root, or the process's own user within its cap";
	else if (rc == -ESRCH)
		why = "no such process or queue registered (or not yours to see)";
	else if (rc == -ECONNRESET || rc == -ETIMEDOUT)
		why = rc == -ETIMEDOUT ? "the daemon did not answer"
				       : "the daemon closed the connection";
	fprintf(stderr, "hsaqmctl: %s\n", why);
	return CTL_EXIT_REFUSED;
}

int main(int argc, char **argv)
{
	char pathbuf[128];
	const char *path = NULL;
	struct request r;
	bool named = true;
	int i = 1, rc;

	signal(SIGPIPE, SIG_IGN);
	if (i < argc && !strcmp(argv[i], "--socket")) {
		if (i + 1 >= argc || !argv[i + 1][0])
			return bad("--socket needs a path");
		path = argv[i + 1];
		i += 2;
	}
	if (i < argc && (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (i >= argc) {
		usage(stderr);
		return CTL_EXIT_USAGE;
	}
	rc = parse_request(argv[i], argc - i - 1, argv + i + 1, &r);
	if (rc)
		return rc;
	if (!path) {
		/* The same search as every client's (hsaqm-dclient/path.h). */
		if (hsaqm_sock_find(pathbuf, sizeof(pathbuf), &named) < 0) {
			fprintf(stderr, "hsaqmctl: HSAQM_DAEMON=%s: no daemon to ask\n",
				getenv("HSAQM_DAEMON"));
			return CTL_EXIT_NO_DAEMON;
		}
		path = pathbuf;
	}
	rc = ctl_connect(path, named);
	if (rc == -EPERM)
		return CTL_EXIT_NO_DAEMON; /* said why */
	if (rc) {
		fprintf(stderr, "hsaqmctl: no daemon at %s (%s)\n", path, strerror(-rc));
		return CTL_EXIT_NO_DAEMON;
	}
	switch (r.kind) {
	case R_LIST:
		rc = cmd_list(r.json);
		break;
	case R_STATS:
		rc = cmd_stats(r.json);
		break;
	case R_SET:
		rc = cmd_set_priority(&r.set);
		break;
	case R_POLICY_GET:
		rc = cmd_policy_get();
		break;
	case R_POLICY_SET:
		rc = cmd_policy_set(&r.policy);
		break;
	case R_TOP:
		return ctl_top(r.seconds);
	case R_METRICS:
		rc = cmd_metrics();
		break;
	}
	return rc ? refused(&r, rc) : 0;
}
