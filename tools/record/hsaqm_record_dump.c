/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-record-dump: print recordings (HSAQM_RECORD, hsaqm-run --record) as JSON lines or as
 * a Chrome/Perfetto trace (docs/replay.md, "Recording"). Several files (the processes of one
 * run) are merged by their CLOCK_MONOTONIC time stamps; files of different boots are said
 * to be incomparable on stderr and merged all the same.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/json.h"
#include "record_read.h"

#define EXIT_USAGE 2

struct item {
	const struct hsaqm_rec_record *r;
	const struct hsaqm_record_file *f;
	size_t order; /* file order, for a stable sort */
};

/* Who fires a completion signal: the last packet seen with it (pid, queue, index). */
struct producer {
	uint64_t signal; /* 0: empty */
	uint32_t pid, queue;
	uint64_t index;
};

static struct producer *ptab;
static size_t pmask;

/*
 * Kernel names by (pid, kernel object), from KERNEL records in time order: name is the one in
 * force, next the one being assembled from its pieces (docs/replay.md, "Kernel names").
 */
struct kname {
	uint64_t object; /* 0: empty */
	uint32_t pid;
	uint32_t len, have; /* of next */
	char *name, *next;
};

static struct kname *ktab;

/* What packet (pid, queue, index) was, for its TIMES record's slice: its kind, its kernel. */
struct kdisp {
	uint64_t index;
	uint32_t pid, queue;
	const char *kind; /* NULL: empty */
	uint64_t object;  /* a kernel dispatch's kernel object, else 0 */
};

static struct kdisp *dtab;

static struct kname *kname_slot(uint32_t pid, uint64_t object)
{
	size_t h = (size_t)((object ^ ((uint64_t)pid << 32)) * 0x9e3779b97f4a7c15ull);

	for (size_t i = h & pmask;; i = (i + 1) & pmask)
		if (!ktab[i].object || (ktab[i].object == object && ktab[i].pid == pid))
			return &ktab[i];
}

static struct kdisp *kdisp_slot(uint32_t pid, uint32_t queue, uint64_t index)
{
	size_t h = (size_t)((index ^ ((uint64_t)pid << 40) ^ ((uint64_t)queue << 20)) *
			    0x9e3779b97f4a7c15ull);

	for (size_t i = h & pmask;; i = (i + 1) & pmask)
		if (!dtab[i].kind ||
		    (dtab[i].index == index && dtab[i].pid == pid && dtab[i].queue == queue))
			return &dtab[i];
}

/* The name of @object in process @pid now, or NULL. */
static const char *kname_of(uint32_t pid, uint64_t object)
{
	struct kname *k = object ? kname_slot(pid, object) : NULL;

	return k && k->object ? k->name : NULL;
}

/*
 * Take @it in (in time order) before it is printed: a KERNEL piece goes into its name (true
 * while the name is not whole: that piece is not printed on its own); a kernel dispatch is
 * remembered for its times.
 */
static bool kernel_note(const struct item *it)
{
	const struct hsaqm_rec_record *r = it->r;
	uint32_t pid = it->f->hdr.pid, off, k;
	struct kname *s;

	if (r->kind == HSAQM_REC_PACKET) {
		const union hsaqm_aql_packet pkt = hsaqm_record_packet(r);
		const char *kind = hsaqm_record_packet_kind(r);
		struct kdisp *d = kdisp_slot(pid, r->queue, r->index);

		*d = (struct kdisp){ r->index, pid, r->queue, kind,
				     strcmp(kind, "kernel_dispatch") ? 0 : pkt.dispatch.kernel_object };
		return false;
	}
	if (r->kind != HSAQM_REC_KERNEL || !r->index)
		return false;
	s = kname_slot(pid, r->index);
	s->object = r->index;
	s->pid = pid;
	off = (uint32_t)r->priority;
	if (off == 0) {
		free(s->next);
		s->next = r->aux && r->aux <= HSAQM_REC_KERNEL_NAME_MAX ? calloc(1, r->aux + 1u)
									 : NULL;
		s->len = s->next ? r->aux : 0;
		s->have = 0;
	}
	/* A piece of another length or out of order (a file cut inside a name): no name. */
	if (!s->next || r->aux != s->len || off != s->have || off >= s->len)
		return true;
	k = s->len - off < HSAQM_REC_KERNEL_PIECE ? s->len - off : HSAQM_REC_KERNEL_PIECE;
	memcpy(s->next + off, r->body, k);
	s->have += k;
	if (s->have < s->len)
		return true;
	free(s->name);
	s->name = s->next;
	s->next = NULL;
	return false;
}

static struct producer *producer_slot(uint32_t pid, uint64_t signal)
{
	size_t h = (size_t)((signal ^ ((uint64_t)pid << 32)) * 0x9e3779b97f4a7c15ull);

	for (size_t i = h & pmask;; i = (i + 1) & pmask)
		if (!ptab[i].signal || (ptab[i].signal == signal && ptab[i].pid == pid))
			return &ptab[i];
}

static int by_time(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->r->t_ns != y->r->t_ns)
		return x->r->t_ns < y->r->t_ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void hex(struct hsaqm_json *j, const char *key, uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	hsaqm_json_string(j, key, b);
}

static const char *hsa_prio_name(unsigned int p)
{
	return p == 0 ? "low" : p == 2 ? "high" : "normal";
}

static const char *cond_name(uint32_t c)
{
	static const char *const n[] = { "eq", "ne", "lt", "gte" };

	return c < 4 ? n[c] : "?";
}

/* A dependency on @signal of process @pid, with the packet that fires it when recorded. */
static void dep(struct hsaqm_json *j, uint32_t pid, uint64_t signal)
{
	struct producer *p = producer_slot(pid, signal);

	hsaqm_json_begin_object(j, NULL);
	hex(j, "signal", signal);
	if (p->signal) {
		hsaqm_json_uint(j, "queue", p->queue);
		hsaqm_json_uint(j, "index", p->index);
	}
	hsaqm_json_end_object(j);
}

/* The members of one record (the fields docs/replay.md lists). */
static void members(struct hsaqm_json *j, const struct item *it)
{
	const struct hsaqm_rec_record *r = it->r;
	const union hsaqm_aql_packet pkt = hsaqm_record_packet(r), *p = &pkt;
	uint32_t pid = it->f->hdr.pid;
	const char *pk;

	hsaqm_json_uint(j, "pid", pid);
	hsaqm_json_uint(j, "t_ns", r->t_ns);
	if (r->kind == HSAQM_REC_CLOCK) {
		/* Of the process, not of a queue: no queue or priority to say. */
		struct hsaqm_rec_clock_body cb;

		memcpy(&cb, r->body, sizeof(cb));
		hsaqm_json_string(j, "kind", "clock");
		hsaqm_json_uint(j, "system_ts", cb.system_ts);
		hsaqm_json_uint(j, "system_hz", cb.system_hz);
		hsaqm_json_uint(j, "read_ns", cb.read_ns);
		return;
	}
	if (r->kind == HSAQM_REC_UNTIMED) {
		/* Of the process, at its close: the signalled dispatches that have no times. */
		struct hsaqm_rec_untimed_body ub;

		memcpy(&ub, r->body, sizeof(ub));
		hsaqm_json_string(j, "kind", "untimed");
		hsaqm_json_uint(j, "waiting", ub.waiting);
		hsaqm_json_uint(j, "reused", ub.reused);
		hsaqm_json_uint(j, "full", ub.full);
		hsaqm_json_uint(j, "destroyed", ub.destroyed);
		/* Version 5: dispatches the recorder had no signal of its own for (0 before). */
		hsaqm_json_uint(j, "unsignalled", ub.unsignalled);
		return;
	}
	if (r->kind == HSAQM_REC_KERNEL) {
		/* Of the process: the name in force from now on for this kernel object. */
		const char *name = kname_of(pid, r->index);

		hsaqm_json_string(j, "kind", "kernel");
		hex(j, "kernel_object", r->index);
		if (name)
			hsaqm_json_string(j, "kernel_name", name);
		return;
	}
	hsaqm_json_uint(j, "queue", r->queue);
	hsaqm_json_int(j, "priority", r->priority);
	hsaqm_json_string(j, "hsa_priority", hsa_prio_name(r->hsa_prio));
	if (r->kind != HSAQM_REC_PACKET) {
		hsaqm_json_string(j, "kind", hsaqm_record_kind_name(r->kind));
		if (r->kind == HSAQM_REC_QUEUE) {
			struct hsaqm_rec_queue_body q;

			memcpy(&q, r->body, sizeof(q));
			q.name[sizeof(q.name) - 1] = '\0';
			hsaqm_json_string(j, "name", q.name);
			hsaqm_json_uint(j, "device", q.device);
			hsaqm_json_uint(j, "size", q.size);
			hsaqm_json_uint(j, "hsa_queue", q.hsa_queue);
		} else if (r->kind == HSAQM_REC_LOST) {
			hsaqm_json_uint(j, "count", r->aux);
		} else if (r->kind == HSAQM_REC_LIMIT) {
			hsaqm_json_uint(j, "max_mb", r->aux);
		} else if (r->kind == HSAQM_REC_QUEUE_GONE) {
			hsaqm_json_uint(j, "packets", r->index);
		} else if (r->kind == HSAQM_REC_TIMES) {
			struct hsaqm_rec_times_body tb;

			memcpy(&tb, r->body, sizeof(tb));
			hsaqm_json_uint(j, "index", r->index);
			hsaqm_json_uint(j, "start", tb.start);
			hsaqm_json_uint(j, "end", tb.end);
			hsaqm_json_uint(j, "duration", tb.end >= tb.start ? tb.end - tb.start : 0);
			hex(j, "signal", tb.signal);
		}
		return;
	}
	pk = hsaqm_record_packet_kind(r);
	hsaqm_json_string(j, "kind", pk);
	hsaqm_json_uint(j, "index", r->index);
	hsaqm_json_bool(j, "barrier_bit", (p->dispatch.header >> HSAQM_AQL_HEADER_BARRIER_SHIFT) & 1);
	if (!strcmp(pk, "kernel_dispatch")) {
		const struct hsaqm_aql_dispatch *d = &p->dispatch;

		const char *name = kname_of(pid, d->kernel_object);

		hex(j, "kernel_object", d->kernel_object);
		/* Absent when the recording has no name for it (before version 3, or not known). */
		if (name)
			hsaqm_json_string(j, "kernel_name", name);
		hsaqm_json_begin_array(j, "grid");
		hsaqm_json_uint(j, NULL, d->grid_size_x);
		hsaqm_json_uint(j, NULL, d->grid_size_y);
		hsaqm_json_uint(j, NULL, d->grid_size_z);
		hsaqm_json_end_array(j);
		hsaqm_json_begin_array(j, "workgroup");
		hsaqm_json_uint(j, NULL, d->workgroup_size_x);
		hsaqm_json_uint(j, NULL, d->workgroup_size_y);
		hsaqm_json_uint(j, NULL, d->workgroup_size_z);
		hsaqm_json_end_array(j);
		hsaqm_json_uint(j, "private_segment_size", d->private_segment_size);
		hsaqm_json_uint(j, "group_segment_size", d->group_segment_size);
		hex(j, "kernarg_address", d->kernarg_address);
		/* Timed with the recorder's own completion signal (version 5; the packet has 0). */
		if (r->aux & HSAQM_REC_PACKET_OWN_SIGNAL)
			hsaqm_json_bool(j, "recorder_signal", true);
	} else if (!strcmp(pk, "barrier_and") || !strcmp(pk, "barrier_or")) {
		hsaqm_json_begin_array(j, "deps");
		for (unsigned int i = 0; i < HSAQM_AQL_MAX_DEPS; i++)
			if (p->barrier.dep_signal[i])
				dep(j, pid, p->barrier.dep_signal[i]);
		hsaqm_json_end_array(j);
	} else if (!strcmp(pk, "barrier_value")) {
		hsaqm_json_begin_array(j, "deps");
		if (p->barrier_value.signal)
			dep(j, pid, p->barrier_value.signal);
		hsaqm_json_end_array(j);
		hsaqm_json_int(j, "value", p->barrier_value.value);
		hsaqm_json_int(j, "mask", p->barrier_value.mask);
		hsaqm_json_string(j, "cond", cond_name(p->barrier_value.cond));
	}
	hex(j, "completion_signal", p->dispatch.completion_signal);
}

static void process_line(FILE *out, const struct hsaqm_record_file *f)
{
	struct hsaqm_json j;
	char boot[sizeof(f->hdr.boot_id) + 1], comm[sizeof(f->hdr.comm) + 1],
		host[sizeof(f->hdr.hostname) + 1];

	snprintf(boot, sizeof(boot), "%.*s", (int)sizeof(f->hdr.boot_id), f->hdr.boot_id);
	snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(f->hdr.comm), f->hdr.comm);
	snprintf(host, sizeof(host), "%.*s", (int)sizeof(f->hdr.hostname), f->hdr.hostname);
	hsaqm_json_init(&j, out);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_string(&j, "kind", "process");
	hsaqm_json_string(&j, "file", f->path);
	hsaqm_json_uint(&j, "version", f->hdr.version);
	hsaqm_json_uint(&j, "pid", f->hdr.pid);
	hsaqm_json_string(&j, "comm", comm);
	hsaqm_json_string(&j, "hostname", host);
	hsaqm_json_string(&j, "boot_id", boot);
	hsaqm_json_string(&j, "clock", f->hdr.clock_id == 1 ? "CLOCK_MONOTONIC" : "?");
	hsaqm_json_uint(&j, "start_mono_ns", f->hdr.start_mono_ns);
	hsaqm_json_uint(&j, "start_real_ns", f->hdr.start_real_ns);
	hsaqm_json_int(&j, "priority", f->hdr.priority);
	hsaqm_json_uint(&j, "level", f->hdr.level);
	hsaqm_json_uint(&j, "max_mb", f->hdr.max_mb);
	hsaqm_json_uint(&j, "blocks", f->blocks);
	hsaqm_json_uint(&j, "records", f->nrecs);
	hsaqm_json_bool(&j, "torn", f->torn);
	if (f->torn)
		hsaqm_json_uint(&j, "torn_bytes", f->torn_bytes);
	hsaqm_json_end_object(&j);
	fputc('\n', out);
}

static void note_producer(const struct item *it)
{
	const union hsaqm_aql_packet pkt = hsaqm_record_packet(it->r), *p = &pkt;
	struct producer *s;

	if (it->r->kind != HSAQM_REC_PACKET || !p->dispatch.completion_signal)
		return;
	s = producer_slot(it->f->hdr.pid, p->dispatch.completion_signal);
	s->signal = p->dispatch.completion_signal;
	s->pid = it->f->hdr.pid;
	s->queue = it->r->queue;
	s->index = it->r->index;
}

/* The Chrome trace format Perfetto opens: a track per queue, an instant per packet. */
static void perfetto(FILE *out, struct hsaqm_record_file *files, int nfiles, struct item *items,
		     size_t n)
{
	struct hsaqm_json j;
	/* Each file's latest CLOCK record, to place its dispatches' start and end on t_ns. */
	struct hsaqm_rec_clock_body *clk = calloc((size_t)nfiles, sizeof(*clk));
	uint64_t *clk_t = calloc((size_t)nfiles, sizeof(*clk_t));

	if (!clk || !clk_t) {
		free(clk);
		free(clk_t);
		clk = NULL;
		clk_t = NULL;
	}
	hsaqm_json_init(&j, out);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_string(&j, "displayTimeUnit", "ns");
	hsaqm_json_begin_array(&j, "traceEvents");
	for (int i = 0; i < nfiles; i++) {
		char name[96];

		snprintf(name, sizeof(name), "%.*s (pid %u)", (int)sizeof(files[i].hdr.comm),
			 files[i].hdr.comm, files[i].hdr.pid);
		hsaqm_json_begin_object(&j, NULL);
		hsaqm_json_string(&j, "ph", "M");
		hsaqm_json_string(&j, "name", "process_name");
		hsaqm_json_uint(&j, "pid", files[i].hdr.pid);
		hsaqm_json_begin_object(&j, "args");
		hsaqm_json_string(&j, "name", name);
		hsaqm_json_end_object(&j);
		hsaqm_json_end_object(&j);
	}
	for (size_t i = 0; i < n; i++) {
		const struct hsaqm_rec_record *r = items[i].r;
		const union hsaqm_aql_packet pkt = hsaqm_record_packet(r), *p = &pkt;
		uint32_t pid = items[i].f->hdr.pid;
		const char *kn;
		char name[HSAQM_REC_KERNEL_NAME_MAX + 64];

		if (kernel_note(&items[i]))
			continue; /* a piece of a name not yet whole */
		if (r->kind == HSAQM_REC_QUEUE) {
			struct hsaqm_rec_queue_body q;

			memcpy(&q, r->body, sizeof(q));
			q.name[sizeof(q.name) - 1] = '\0';
			snprintf(name, sizeof(name), "%s (prio %d)", q.name, r->priority);
			hsaqm_json_begin_object(&j, NULL);
			hsaqm_json_string(&j, "ph", "M");
			hsaqm_json_string(&j, "name", "thread_name");
			hsaqm_json_uint(&j, "pid", items[i].f->hdr.pid);
			hsaqm_json_uint(&j, "tid", r->queue);
			hsaqm_json_begin_object(&j, "args");
			hsaqm_json_string(&j, "name", name);
			hsaqm_json_end_object(&j);
			hsaqm_json_end_object(&j);
		}
		if (r->kind == HSAQM_REC_PACKET &&
		    !strcmp(hsaqm_record_packet_kind(r), "kernel_dispatch") &&
		    (kn = kname_of(pid, p->dispatch.kernel_object)))
			snprintf(name, sizeof(name), "%s", kn);
		else if (r->kind == HSAQM_REC_PACKET &&
		    !strcmp(hsaqm_record_packet_kind(r), "kernel_dispatch"))
			snprintf(name, sizeof(name), "kernel 0x%" PRIx64, p->dispatch.kernel_object);
		else if (r->kind == HSAQM_REC_PACKET)
			snprintf(name, sizeof(name), "%s", hsaqm_record_packet_kind(r));
		else
			snprintf(name, sizeof(name), "%s", hsaqm_record_kind_name(r->kind));
		hsaqm_json_begin_object(&j, NULL);
		hsaqm_json_string(&j, "ph", "i");
		hsaqm_json_string(&j, "s", "t");
		hsaqm_json_string(&j, "name", name);
		hsaqm_json_uint(&j, "pid", items[i].f->hdr.pid);
		hsaqm_json_uint(&j, "tid", r->queue);
		hsaqm_json_fixed(&j, "ts", (double)r->t_ns / 1000.0, 3);
		hsaqm_json_begin_object(&j, "args");
		members(&j, &items[i]);
		hsaqm_json_end_object(&j);
		hsaqm_json_end_object(&j);
		note_producer(&items[i]);
		if (clk && r->kind == HSAQM_REC_CLOCK) {
			memcpy(&clk[items[i].f - files], r->body, sizeof(*clk));
			clk_t[items[i].f - files] = r->t_ns;
		} else if (clk && r->kind == HSAQM_REC_TIMES && clk[items[i].f - files].system_hz) {
			/*
			 * The dispatch as a slice: its start placed on t_ns through the latest
			 * CLOCK pair; its length in the runtime's timestamp domain (model ns on
			 * the model, whose clock may run at another rate than the host's).
			 */
			const struct hsaqm_rec_clock_body *c = &clk[items[i].f - files];
			struct hsaqm_rec_times_body tb;
			double hz = (double)c->system_hz, t0;

			memcpy(&tb, r->body, sizeof(tb));
			t0 = (double)clk_t[items[i].f - files] +
			     ((double)tb.start - (double)c->system_ts) * 1e9 / hz;
			hsaqm_json_begin_object(&j, NULL);
			hsaqm_json_string(&j, "ph", "X");
			{
				/* Named by its kernel when the recording says it, else by its kind. */
				struct kdisp *d = kdisp_slot(pid, r->queue, r->index);

				kn = d->object ? kname_of(pid, d->object) : NULL;
				if (kn)
					snprintf(name, sizeof(name), "%s", kn);
				else if (d->kind && strcmp(d->kind, "kernel_dispatch"))
					snprintf(name, sizeof(name), "%s %" PRIu64, d->kind, r->index);
				else
					snprintf(name, sizeof(name), "dispatch %" PRIu64, r->index);
			}
			hsaqm_json_string(&j, "name", name);
			hsaqm_json_uint(&j, "pid", items[i].f->hdr.pid);
			hsaqm_json_uint(&j, "tid", r->queue);
			hsaqm_json_fixed(&j, "ts", t0 / 1000.0, 3);
			hsaqm_json_fixed(&j, "dur",
					 tb.end > tb.start ? (double)(tb.end - tb.start) * 1e6 / hz
							   : 0.0,
					 3);
			hsaqm_json_end_object(&j);
		}
	}
	hsaqm_json_end_array(&j);
	hsaqm_json_end_object(&j);
	fputc('\n', out);
	free(clk);
	free(clk_t);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: hsaqm-record-dump [--perfetto] [-o OUT] FILE...\n"
		"Print the recordings the tool library writes (HSAQM_RECORD; hsaqm-run's record\n"
		"option), several merged by time: one JSON object a line (a \"process\" line per\n"
		"file first), or with --perfetto a Chrome trace that Perfetto (ui.perfetto.dev) opens.\n"
		"A recording cut short (the process killed) is read up to its last whole block.\n"
		"Exit status: 0; 1 when a file is not a readable recording; 2 for a usage error.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "perfetto", no_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hsaqm_record_file *files;
	struct item *items;
	bool trace = false;
	const char *outpath = NULL;
	FILE *out = stdout;
	size_t n = 0, total = 0;
	int c, nfiles, rc = 0;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			trace = true;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	nfiles = argc - optind;
	if (nfiles < 1) {
		fprintf(stderr, "hsaqm-record-dump: no recording given\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	files = calloc((size_t)nfiles, sizeof(*files));
	if (!files)
		return 1;
	for (int i = 0; i < nfiles; i++) {
		char err[4400];

		if (hsaqm_record_file_read(argv[optind + i], &files[i], err, sizeof(err))) {
			fprintf(stderr, "hsaqm-record-dump: %s\n", err);
			rc = 1;
			continue;
		}
		if (files[i].torn)
			fprintf(stderr, "hsaqm-record-dump: %s: cut short (%llu bytes after the last "
				"whole block, at %llu): read up to there\n", files[i].path,
				(unsigned long long)files[i].torn_bytes,
				(unsigned long long)files[i].torn_offset);
		if (i && files[i].hdr.boot_id[0] &&
		    strncmp(files[i].hdr.boot_id, files[0].hdr.boot_id, sizeof(files[0].hdr.boot_id)))
			fprintf(stderr, "hsaqm-record-dump: %s was recorded in another boot than %s: "
				"their times do not compare\n", files[i].path, files[0].path);
		total += files[i].nrecs;
	}
	items = calloc(total ? total : 1, sizeof(*items));
	for (pmask = 16; pmask < 2 * total; pmask *= 2)
		;
	ptab = calloc(pmask, sizeof(*ptab));
	ktab = calloc(pmask, sizeof(*ktab));
	dtab = calloc(pmask, sizeof(*dtab));
	pmask--;
	if (!items || !ptab || !ktab || !dtab) {
		fprintf(stderr, "hsaqm-record-dump: out of memory\n");
		return 1;
	}
	for (int i = 0; i < nfiles; i++)
		for (size_t k = 0; k < files[i].nrecs; k++, n++)
			items[n] = (struct item){ &files[i].recs[k], &files[i], n };
	qsort(items, n, sizeof(*items), by_time);
	if (outpath && !(out = fopen(outpath, "w"))) {
		fprintf(stderr, "hsaqm-record-dump: -o %s: %s\n", outpath, strerror(errno));
		return 1;
	}
	if (trace) {
		perfetto(out, files, nfiles, items, n);
	} else {
		for (int i = 0; i < nfiles; i++)
			if (files[i].hdr.version)
				process_line(out, &files[i]);
		for (size_t i = 0; i < n; i++) {
			struct hsaqm_json j;

			if (kernel_note(&items[i]))
				continue; /* a piece of a name not yet whole */
			hsaqm_json_init(&j, out);
			hsaqm_json_begin_object(&j, NULL);
			members(&j, &items[i]);
			hsaqm_json_end_object(&j);
			fputc('\n', out);
			note_producer(&items[i]);
		}
	}
	if (fflush(out) || (out != stdout && fclose(out))) {
		fprintf(stderr, "hsaqm-record-dump: writing: %s\n", strerror(errno));
		rc = 1;
	}
	for (int i = 0; i < nfiles; i++)
		hsaqm_record_file_free(&files[i]);
	free(files);
	free(items);
	free(ptab);
	for (size_t i = 0; i <= pmask; i++) {
		free(ktab[i].name);
		free(ktab[i].next);
	}
	free(ktab);
	free(dtab);
	return rc;
}
