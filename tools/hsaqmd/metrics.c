/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd's state in the Prometheus text exposition format (version 0.0.4; docs/daemon.md
 * "Metrics"), for `hsaqmctl metrics` (node_exporter's textfile collector) and the optional
 * HTTP endpoint (http.c).
 *
 * Label cardinality is the registry's: a process's and its queues' series exist while the
 * process is registered and go with it; devices while they have queues or a policy of their
 * own. Nothing keyed by a value a client chooses grows without bound (comm and mechanism are
 * at most 15 bytes, one value per queue).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-common/barrier.h"
#include "hsaqm/hsaqm.h"
#include "hsaqm-common/policy_text.h"
#include "registry_internal.h"

/* Hand-off bounds: 10 us .. 100 ms, where a reaction lies on a busy or idle host. */
const uint64_t prom_bounds_ns[PROM_BUCKETS] = {
	10000, 25000, 50000, 100000, 250000, 500000,
	1000000, 2500000, 5000000, 10000000, 25000000, 100000000,
};

void prom_hist_record(struct prom_hist *h, uint64_t ns)
{
	for (int i = 0; i < PROM_BUCKETS; i++) {
		if (ns <= prom_bounds_ns[i]) {
			h->le[i]++;
			break;
		}
	}
	h->count++;
	h->sum_ns += ns;
}

/* A label value: backslash, double quote and line feed escaped, as the format asks. */
static void label(FILE *f, const char *name, const char *v)
{
	fprintf(f, "%s=\"", name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
	fputc('"', f);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The labels of a queue's series: pid, queue, gpu_id. */
static void queue_labels(FILE *f, const struct dqueue *q)
{
	fprintf(f, "pid=\"%u\",queue=\"q%u\",gpu_id=\"%u\"", q->cl->pid_ns, q->qid, q->gpu_id);
}

/* Buckets (cumulative), sum and count of @h, with @labels (may be "") before `le`. */
static void histogram(FILE *f, const char *name, const char *labels, const struct prom_hist *h)
{
	uint64_t cum = 0;
	const char *sep = labels[0] ? "," : "";

	for (int i = 0; i < PROM_BUCKETS; i++) {
		cum += h->le[i];
		fprintf(f, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, sep,
			prom_bounds_ns[i] / 1e9, (unsigned long long)cum);
	}
	fprintf(f, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep,
		(unsigned long long)h->count);
	fprintf(f, "%s_sum{%s} %.9f\n", name, labels, h->sum_ns / 1e9);
	fprintf(f, "%s_count{%s} %llu\n", name, labels, (unsigned long long)h->count);
}

static long proc_value(const char *key)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "re");
	size_t n = strlen(key);

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && sscanf(line + n, " %ld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static long open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	long n = 0;

	if (!dir)
		return -1;
	while (readdir(dir))
		n++;
	closedir(dir);
	return n > 3 ? n - 3 : 0;
}

static void node(FILE *f, struct hsaqmd *d, unsigned int hidden)
{
	const struct hsaqmd_stats_ok *s = &d->st;
	static const struct {
		const char *reason;
		size_t off;
	} refusals[] = {
		{ "full", offsetof(struct hsaqmd_stats_ok, refused_full) },
		{ "uid_limit", offsetof(struct hsaqmd_stats_ok, refused_uid_limit) },
		{ "hello_timeout", offsetof(struct hsaqmd_stats_ok, refused_hello) },
		{ "slow_reader", offsetof(struct hsaqmd_stats_ok, refused_slow) },
		{ "unknown_gpu_id", offsetof(struct hsaqmd_stats_ok, refused_device) },
		{ "quota", offsetof(struct hsaqmd_stats_ok, refused_quota) },
		{ "malformed_message", offsetof(struct hsaqmd_stats_ok, bad_messages) },
	};
	const struct prom_hist *seg[] = { &d->p_ready_seen, &d->p_seen_sent, &d->p_sent_acked,
					  &d->p_ready_acked };
	static const char *const segname[] = { "ready_seen", "seen_sent", "sent_acked",
					       "ready_acked" };
	unsigned int queues = 0;
	long rss = proc_value("VmRSS:"), fds = open_fds();

	for (size_t i = 0; i < d->ndevs; i++)
		queues += (unsigned int)d->devs[i]->n;
	family(f, "hsaqmd_up", "gauge", "1 while the daemon answers.");
	fprintf(f, "hsaqmd_up 1\n");
	family(f, "hsaqmd_info", "gauge", "The daemon's version and protocol.");
	fprintf(f, "hsaqmd_info{version=\"%s\",protocol=\"%d\"} 1\n", hsaqm_version_string(),
		HSAQMD_PROTO_VERSION);
	family(f, "hsaqmd_uptime_seconds", "gauge", "Time since the daemon started.");
	fprintf(f, "hsaqmd_uptime_seconds %.3f\n", (hsaqmd_now_ns() - d->start_ns) / 1e9);
	family(f, "hsaqmd_clients", "gauge", "Processes connected with queues to register.");
	fprintf(f, "hsaqmd_clients %u\n", d->nclients);
	family(f, "hsaqmd_control_connections", "gauge", "hsaqmctl and other control connections.");
	fprintf(f, "hsaqmd_control_connections %u\n", d->nctls);
	family(f, "hsaqmd_queues", "gauge", "Queues registered, every process's.");
	fprintf(f, "hsaqmd_queues %u\n", queues);
	family(f, "hsaqmd_devices", "gauge", "Devices with queues or a policy of their own.");
	fprintf(f, "hsaqmd_devices %zu\n", d->ndevs);
	family(f, "hsaqmd_processes_hidden", "gauge",
	       "Processes of other users this view does not show (0 for root's view).");
	fprintf(f, "hsaqmd_processes_hidden %u\n", hidden);
	family(f, "hsaqmd_realtime_priority", "gauge",
	       "SCHED_FIFO priority of the daemon's thread, 0 when not real time.");
	fprintf(f, "hsaqmd_realtime_priority %d\n", d->rt_prio);
	family(f, "hsaqmd_polling", "gauge", "1 while the daemon polls the state words.");
	fprintf(f, "hsaqmd_polling %d\n", d->polling ? 1 : 0);
	family(f, "hsaqmd_resident_memory_bytes", "gauge", "The daemon's resident memory.");
	fprintf(f, "hsaqmd_resident_memory_bytes %ld\n", rss < 0 ? 0 : rss * 1024);
	family(f, "hsaqmd_open_fds", "gauge", "The daemon's open file descriptors.");
	fprintf(f, "hsaqmd_open_fds %ld\n", fds < 0 ? 0 : fds);
	family(f, "hsaqmd_messages_total", "counter", "Messages received.");
	fprintf(f, "hsaqmd_messages_total %llu\n", (unsigned long long)s->messages);
	family(f, "hsaqmd_decisions_total", "counter", "Policy decisions over a device's queues.");
	fprintf(f, "hsaqmd_decisions_total %llu\n", (unsigned long long)s->decisions);
	family(f, "hsaqmd_commands_total", "counter", "Hold and run commands written.");
	fprintf(f, "hsaqmd_commands_total %llu\n", (unsigned long long)s->commands);
	family(f, "hsaqmd_wakeups_total", "counter", "Eventfd wake-ups, from clients and to them.");
	fprintf(f, "hsaqmd_wakeups_total{direction=\"in\"} %llu\n",
		(unsigned long long)s->kicks_in);
	fprintf(f, "hsaqmd_wakeups_total{direction=\"out\"} %llu\n",
		(unsigned long long)s->kicks_out);
	family(f, "hsaqmd_connections_total", "counter", "Connections accepted since start.");
	fprintf(f, "hsaqmd_connections_total %llu\n", (unsigned long long)s->clients_total);
	family(f, "hsaqmd_fail_open_total", "counter",
	       "Fail-open events the daemon sees: processes that left holding queues (the ones "
	       "they held were resumed at once).");
	fprintf(f, "hsaqmd_fail_open_total{event=\"client_left_holding\"} %llu\n",
		(unsigned long long)s->clients_lost);
	family(f, "hsaqmd_refusals_total", "counter",
	       "Security refusals: connections and requests turned away, by reason.");
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		fprintf(f, "hsaqmd_refusals_total{reason=\"%s\"} %llu\n", refusals[i].reason,
			*(const unsigned long long *)((const char *)s + refusals[i].off));
	family(f, "hsaqmd_stalls_total", "counter",
	       "Holds released because the holding queue made no progress.");
	fprintf(f, "hsaqmd_stalls_total %llu\n", (unsigned long long)s->stalls);
	family(f, "hsaqmd_holds_unacked_total", "counter",
	       "Holds replaced or dropped before the held process acknowledged them.");
	fprintf(f, "hsaqmd_holds_unacked_total %llu\n", (unsigned long long)s->holds_unacked);
	family(f, "hsaqmd_metrics_connections_dropped_total", "counter",
	       "Metrics endpoint connections dropped: too slow, or too many.");
	fprintf(f, "hsaqmd_metrics_connections_dropped_total %llu\n",
		(unsigned long long)d->http_dropped);
	family(f, "hsaqmd_handoff_seconds", "histogram",
	       "Hand-off of each timed hold, by segment: a ready store seen, the hold sent, "
	       "acknowledged; ready_acked is the whole reaction.");
	for (int i = 0; i < 4; i++) {
		char l[48];

		snprintf(l, sizeof(l), "segment=\"%s\"", segname[i]);
		histogram(f, "hsaqmd_handoff_seconds", l, seg[i]);
	}
}

static void devices(FILE *f, struct hsaqmd *d)
{
	char text[64];

	family(f, "hsaqmd_default_policy", "gauge", "The policy of devices without their own.");
	hsaqm_policy_format(&d->cfg.policy, text, sizeof(text));
	fprintf(f, "hsaqmd_default_policy{");
	label(f, "policy", text);
	fprintf(f, "} 1\n");
	family(f, "hsaqmd_device_policy", "gauge", "Each device's policy (hsaqmctl policy's syntax).");
	for (size_t i = 0; i < d->ndevs; i++) {
		hsaqm_policy_format(&d->devs[i]->cfg, text, sizeof(text));
		fprintf(f, "hsaqmd_device_policy{gpu_id=\"%u\",", d->devs[i]->gpu_id);
		label(f, "policy", text);
		fprintf(f, "} 1\n");
	}
	family(f, "hsaqmd_device_queues", "gauge", "Queues registered on each device.");
	for (size_t i = 0; i < d->ndevs; i++)
		fprintf(f, "hsaqmd_device_queues{gpu_id=\"%u\"} %zu\n", d->devs[i]->gpu_id,
			d->devs[i]->n);
}

/* Visible processes' clients, for the loops below. */
static bool shown(const struct dclient *t, const struct dclient *req)
{
	return t->role == HSAQMD_ROLE_CLIENT && !t->dead && (!req || hsaqmd_may_see(req, t));
}

static void processes(FILE *f, struct hsaqmd *d, const struct dclient *req)
{
	family(f, "hsaqmd_process_priority", "gauge", "A registered process's priority.");
	for (const struct dclient *t = d->clients; t; t = t->next) {
		if (!shown(t, req))
			continue;
		fprintf(f, "hsaqmd_process_priority{pid=\"%u\",uid=\"%u\",", t->pid_ns, t->uid);
		label(f, "comm", t->comm);
		fprintf(f, "} %d\n", t->priority);
	}
	family(f, "hsaqmd_process_cap", "gauge", "The highest priority the process's user may take.");
	for (const struct dclient *t = d->clients; t; t = t->next)
		if (shown(t, req))
			fprintf(f, "hsaqmd_process_cap{pid=\"%u\"} %d\n", t->pid_ns, t->cap);
}

static void queues(FILE *f, struct hsaqmd *d, const struct dclient *req)
{
	static const char *const states[] = { "idle", "ready", "preempted", "stalled" };
	uint64_t now = hsaqmd_now_ns();

#define EACH_QUEUE(q)                                                                   \
	for (const struct dclient *t = d->clients; t; t = t->next)                       \
		for (unsigned int s_ = 0; shown(t, req) && s_ < HSAQMD_SLOTS; s_++)       \
			for (const struct dqueue *q = t->slot[s_]; q; q = NULL)
	family(f, "hsaqmd_queue_info", "gauge",
	       "A queue's preemption level and the mechanism the level uses in its process.");
	EACH_QUEUE(q)
	{
		fprintf(f, "hsaqmd_queue_info{");
		queue_labels(f, q);
		fprintf(f, ",level=\"%s\",", hsaqm_level_name((enum hsaqm_level)q->level));
		label(f, "mechanism", q->mech[0] ? q->mech
						 : hsaqm_level_name((enum hsaqm_level)q->level));
		fprintf(f, "} 1\n");
	}
	family(f, "hsaqmd_queue_priority", "gauge", "A queue's effective priority.");
	EACH_QUEUE(q)
	{
		fprintf(f, "hsaqmd_queue_priority{");
		queue_labels(f, q);
		fprintf(f, "} %d\n", hsaqmd_queue_priority(q));
	}
	family(f, "hsaqmd_queue_state", "gauge",
	       "A queue's state: 1 for the one it is in (stalled: a holder without progress, "
	       "holding nobody).");
	EACH_QUEUE(q)
	{
		int st = q->hold ? 2 : q->stalled ? 3 : q->active ? 1 : 0;

		for (int i = 0; i < 4; i++) {
			fprintf(f, "hsaqmd_queue_state{");
			queue_labels(f, q);
			fprintf(f, ",state=\"%s\"} %d\n", states[i], i == st);
		}
	}
	family(f, "hsaqmd_queue_preemptions_total", "counter", "Holds commanded to the queue.");
	EACH_QUEUE(q)
	{
		fprintf(f, "hsaqmd_queue_preemptions_total{");
		queue_labels(f, q);
		fprintf(f, "} %llu\n", (unsigned long long)q->preemptions);
	}
	family(f, "hsaqmd_queue_held_seconds_total", "counter",
	       "Time the queue was commanded to hold, the current hold included.");
	EACH_QUEUE(q)
	{
		fprintf(f, "hsaqmd_queue_held_seconds_total{");
		queue_labels(f, q);
		fprintf(f, "} %.6f\n",
			(q->held_ns + (q->hold ? now - q->hold_since_ns : 0)) / 1e9);
	}
	family(f, "hsaqmd_queue_stalls_total", "counter",
	       "Times the queue's hold on others was released for want of progress.");
	EACH_QUEUE(q)
	{
		fprintf(f, "hsaqmd_queue_stalls_total{");
		queue_labels(f, q);
		fprintf(f, "} %llu\n", (unsigned long long)q->stalls);
	}
	family(f, "hsaqmd_queue_dep_stalls_total", "counter",
	       "Times the queue's head waited past its process's dependency bound (the client's count).");
	EACH_QUEUE(q)
	{
		fprintf(f, "hsaqmd_queue_dep_stalls_total{");
		queue_labels(f, q);
		/* Relaxed: the client's figure, shown as it is. */
		fprintf(f, "} %u\n", HSAQM_READ_ONCE(q->cl->shm->dep_stalls[q->slot]));
	}
	family(f, "hsaqmd_queue_handoff_seconds", "histogram",
	       "The queue's timed holds: another process's ready store to this queue's ack.");
	EACH_QUEUE(q)
	{
		char l[96];

		snprintf(l, sizeof(l), "pid=\"%u\",queue=\"q%u\",gpu_id=\"%u\"", q->cl->pid_ns,
			 q->qid, q->gpu_id);
		histogram(f, "hsaqmd_queue_handoff_seconds", l, &q->handoff);
	}
#undef EACH_QUEUE
}

char *hsaqmd_metrics_text(struct hsaqmd *d, const struct dclient *req, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	unsigned int hidden = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	for (const struct dclient *t = d->clients; t; t = t->next)
		hidden += t->role == HSAQMD_ROLE_CLIENT && !t->dead && req && !hsaqmd_may_see(req, t);
	node(f, d, hidden);
	devices(f, d);
	processes(f, d, req);
	queues(f, d, req);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	if (len)
		*len = n;
	return buf;
}
