/* SPDX-License-Identifier: MIT */
/*
 * wl_parse.c - the workload file parser (format: docs/experiments.md).
 *
 * Line oriented: "[section]" or "[section name]", "key = value", comments from '#' or ';'
 * to the end of a line. Kernel, stream and task lines take "k=v" tokens. Names are
 * resolved when the whole file has been read, so sections may come in any order. The first
 * error stops the parse and is reported with its line.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-common/json.h"
#include "hsaqm-common/text.h"
#include "wl.h"

#define LINE_MAX_LEN 1024

enum section { SEC_NONE, SEC_WORKLOAD, SEC_MODEL, SEC_PROCESS, SEC_CONFIG, SEC_REFERENCE, SEC_PASS };

/* A task's stream and model by name, resolved at the end. */
struct pending {
	char stream[HSAQM_WL_NAME_MAX];
	char model[HSAQM_WL_NAME_MAX];
};

struct parser {
	const char *fname;
	int line;
	char *err;
	size_t errlen;
	struct hsaqm_wl_file *wl;
	enum section sec;
	void *cur; /* the model, process or config being filled */
	char ref_config[HSAQM_WL_NAME_MAX];
	bool have_workload, have_length, have_pass;
	struct pending pend[HSAQM_WL_MAX_PROCESSES][HSAQM_WL_MAX_TASKS];
};

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->err || !p->errlen)
		return -EINVAL;
	n = snprintf(p->err, p->errlen, "%s:%d: ", p->fname, p->line);
	if (n < 0 || (size_t)n >= p->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool valid_name(const char *s)
{
	if (!*s || strlen(s) >= HSAQM_WL_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			return false;
	return true;
}

/* ---- Values ----------------------------------------------------------------------------- */

/* The numbers of a workload file follow hsaqm-common/text.h's rule; the messages name the key. */
static int parse_u64(struct parser *p, const char *key, const char *v, uint64_t min, uint64_t max,
		     uint64_t *out)
{
	unsigned long long x;
	int rc = hsaqm_parse_uint(v, 10, min, max, &x);

	if (rc == -ERANGE)
		return fail(p, "%s: %s is out of range (%llu..%llu)", key, v, (unsigned long long)min,
			    (unsigned long long)max);
	if (rc)
		return fail(p, "%s: '%s' is not a whole number", key, v);
	*out = x;
	return 0;
}

static int parse_u32(struct parser *p, const char *key, const char *v, uint32_t min, uint32_t max,
		     uint32_t *out)
{
	uint64_t x;
	int rc = parse_u64(p, key, v, min, max, &x);

	if (!rc)
		*out = (uint32_t)x;
	return rc;
}

static int parse_int(struct parser *p, const char *key, const char *v, int min, int max, int *out)
{
	long long x;
	int rc = hsaqm_parse_int(v, 10, min, max, &x);

	if (rc == -ERANGE)
		return fail(p, "%s: %s is out of range (%d..%d)", key, v, min, max);
	if (rc)
		return fail(p, "%s: '%s' is not a whole number", key, v);
	*out = (int)x;
	return 0;
}

static int parse_double(struct parser *p, const char *key, const char *v, double min, double max,
			double *out)
{
	double x;
	int rc = hsaqm_parse_double(v, min, max, &x);

	if (rc == -ERANGE)
		return fail(p, "%s: %s is out of range (%g..%g)", key, v, min, max);
	if (rc)
		return fail(p, "%s: '%s' is not a number", key, v);
	*out = x;
	return 0;
}

/* "12.5ms", "40us", "3s", "500ns"; a unit is required (a bare number is ambiguous). */
static int parse_duration(struct parser *p, const char *key, const char *v, bool zero_ok,
			  uint64_t *out)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "min", 60e9 },
	};
	const char *end;
	double x;

	if (hsaqm_parse_double_unit(v, 0, DBL_MAX, &x, &end))
		return fail(p, "%s: '%s' is not a duration (e.g. 40us, 2.5ms, 60s)", key, v);
	if (!*end)
		return fail(p, "%s: '%s' needs a unit (ns, us, ms, s, min)", key, v);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		x *= units[i].mult;
		if (x > 1e18)
			return fail(p, "%s: '%s' is too long", key, v);
		if (!zero_ok && x < 1)
			return fail(p, "%s: must be longer than 0", key);
		*out = (uint64_t)llround(x);
		return 0;
	}
	return fail(p, "%s: unknown unit '%s' (ns, us, ms, s, min)", key, end);
}

static int parse_bool(struct parser *p, const char *key, const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0")) {
		*out = false;
		return 0;
	}
	return fail(p, "%s: '%s' is not yes or no", key, v);
}

static int parse_prio(struct parser *p, const char *key, const char *v, enum hsaqm_wl_prio *out)
{
	if (!strcmp(v, "normal"))
		*out = HSAQM_WL_PRIO_NORMAL;
	else if (!strcmp(v, "high"))
		*out = HSAQM_WL_PRIO_HIGH;
	else if (!strcmp(v, "low"))
		*out = HSAQM_WL_PRIO_LOW;
	else
		return fail(p, "%s: '%s' is not high, normal or low", key, v);
	return 0;
}

static int copy_name(struct parser *p, const char *what, const char *v, char *dst)
{
	if (!valid_name(v))
		return fail(p, "%s: '%s' is not a name (letters, digits, '-', '_'; at most %d)",
			    what, v, HSAQM_WL_NAME_MAX - 1);
	strcpy(dst, v);
	return 0;
}

static int copy_text(struct parser *p, const char *key, const char *v, char *dst)
{
	if (strlen(v) >= HSAQM_WL_TEXT_MAX)
		return fail(p, "%s: longer than %d characters", key, HSAQM_WL_TEXT_MAX - 1);
	strcpy(dst, v);
	return 0;
}

/*
 * Split "k=v k=v ..." into tokens, calling @fn for each. Values have no spaces. A key given
 * twice on one line is an error (which of the two was meant?).
 */
typedef int (*token_fn)(struct parser *p, void *obj, const char *k, const char *v);

#define TOKENS_MAX 32

static int for_tokens(struct parser *p, const char *what, char *s, void *obj, token_fn fn)
{
	const char *keys[TOKENS_MAX];
	unsigned int nkeys = 0;
	char *save = NULL;
	bool any = false;

	for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(t, '=');
		int rc;

		if (!eq || eq == t || !eq[1])
			return fail(p, "%s: '%s' is not key=value", what, t);
		*eq = '\0';
		for (unsigned int i = 0; i < nkeys; i++)
			if (!strcmp(keys[i], t))
				return fail(p, "%s: %s is given twice", what, t);
		if (nkeys == TOKENS_MAX)
			return fail(p, "%s: more than %d key=value pairs", what, TOKENS_MAX);
		keys[nkeys++] = t;
		rc = fn(p, obj, t, eq + 1);
		if (rc)
			return rc;
		any = true;
	}
	if (!any)
		return fail(p, "%s: empty", what);
	return 0;
}

/* ---- [model] ---------------------------------------------------------------------------- */

struct ktok {
	struct hsaqm_wl_kernel *k;
	bool count, wg, time, dist, spread;
};

static int kernel_token(struct parser *p, void *obj, const char *k, const char *v)
{
	struct ktok *t = obj;

	if (!strcmp(k, "count")) {
		t->count = true;
		return parse_u32(p, "kernel count", v, 1, 1000000, &t->k->count);
	}
	if (!strcmp(k, "wg")) {
		t->wg = true;
		return parse_u32(p, "kernel wg", v, 1, 100000000, &t->k->wgs);
	}
	if (!strcmp(k, "waves"))
		return parse_u32(p, "kernel waves", v, 1, 32, &t->k->waves);
	if (!strcmp(k, "time")) {
		t->time = true;
		return parse_duration(p, "kernel time", v, false, &t->k->time_ns);
	}
	if (!strcmp(k, "spread")) {
		t->spread = true;
		return parse_duration(p, "kernel spread", v, true, &t->k->spread_ns);
	}
	if (!strcmp(k, "dist")) {
		t->dist = true;
		if (!strcmp(v, "fixed"))
			t->k->dist = HSAQM_WL_DIST_FIXED;
		else if (!strcmp(v, "uniform"))
			t->k->dist = HSAQM_WL_DIST_UNIFORM;
		else if (!strcmp(v, "normal"))
			t->k->dist = HSAQM_WL_DIST_NORMAL;
		else
			return fail(p, "kernel dist: '%s' is not fixed, uniform or normal", v);
		return 0;
	}
	return fail(p, "kernel: unknown key '%s' (count, wg, waves, time, dist, spread)", k);
}

static int model_key(struct parser *p, struct hsaqm_wl_model *m, const char *key, char *v)
{
	if (!strcmp(key, "batch"))
		return parse_u32(p, key, v, 1, 1000000, &m->batch);
	if (!strcmp(key, "note"))
		return copy_text(p, key, v, m->note);
	if (!strcmp(key, "kernel")) {
		struct hsaqm_wl_kernel *k;
		struct ktok t = { 0 };
		int rc;

		if (m->nk == HSAQM_WL_MAX_KGROUPS)
			return fail(p, "model %s: more than %d kernel lines", m->name,
				    HSAQM_WL_MAX_KGROUPS);
		k = &m->k[m->nk];
		memset(k, 0, sizeof(*k));
		k->count = 1;
		k->waves = 4;
		k->line = p->line;
		t.k = k;
		rc = for_tokens(p, "kernel", v, &t, kernel_token);
		if (rc)
			return rc;
		if (!t.wg || !t.time)
			return fail(p, "kernel: wg= and time= are required");
		if (k->dist != HSAQM_WL_DIST_FIXED && !t.spread)
			return fail(p, "kernel: dist=%s needs spread=",
				    k->dist == HSAQM_WL_DIST_UNIFORM ? "uniform" : "normal");
		if (k->dist == HSAQM_WL_DIST_FIXED && t.spread && k->spread_ns)
			return fail(p, "kernel: spread= needs dist=uniform or dist=normal");
		if (k->dist == HSAQM_WL_DIST_UNIFORM && k->spread_ns >= k->time_ns)
			return fail(p, "kernel: a uniform spread must be shorter than time");
		m->nk++;
		m->kernels += k->count;
		return 0;
	}
	return fail(p, "[model]: unknown key '%s' (batch, note, kernel)", key);
}

/* ---- [process] -------------------------------------------------------------------------- */

struct stok {
	struct parser *p;
	struct hsaqm_wl_stream *s;
	bool name, prio_set;
};

static int stream_token(struct parser *p, void *obj, const char *k, const char *v)
{
	struct stok *t = obj;

	if (!strcmp(k, "name")) {
		t->name = true;
		return copy_name(p, "stream name", v, t->s->name);
	}
	if (!strcmp(k, "priority"))
		return parse_prio(p, "stream priority", v, &t->s->prio);
	if (!strcmp(k, "hsaqm_priority")) {
		t->prio_set = true;
		return parse_int(p, "stream hsaqm_priority", v, -100, 100, &t->s->hsaqm_priority);
	}
	if (!strcmp(k, "ring")) {
		int rc = parse_u32(p, "stream ring", v, 64, 131072, &t->s->ring);

		if (!rc && (t->s->ring & (t->s->ring - 1)))
			return fail(p, "stream ring: %u is not a power of two", t->s->ring);
		return rc;
	}
	if (!strcmp(k, "create"))
		return parse_duration(p, "stream create", v, true, &t->s->create_ns);
	return fail(p, "stream: unknown key '%s' (name, priority, hsaqm_priority, ring, create)", k);
}

struct ttok {
	struct hsaqm_wl_task *t;
	struct pending *pend;
	bool name, arrival, rate, period, depth, burst, think, jitter;
};

static int task_token(struct parser *p, void *obj, const char *k, const char *v)
{
	struct ttok *t = obj;
	struct hsaqm_wl_task *task = t->t;

	if (!strcmp(k, "name")) {
		t->name = true;
		return copy_name(p, "task name", v, task->name);
	}
	if (!strcmp(k, "group"))
		return copy_name(p, "task group", v, task->group);
	if (!strcmp(k, "stream"))
		return copy_name(p, "task stream", v, t->pend->stream);
	if (!strcmp(k, "model"))
		return copy_name(p, "task model", v, t->pend->model);
	if (!strcmp(k, "arrival")) {
		t->arrival = true;
		if (!strcmp(v, "periodic"))
			task->arrival = HSAQM_WL_ARR_PERIODIC;
		else if (!strcmp(v, "poisson"))
			task->arrival = HSAQM_WL_ARR_POISSON;
		else if (!strcmp(v, "closed"))
			task->arrival = HSAQM_WL_ARR_CLOSED;
		else if (!strcmp(v, "burst"))
			task->arrival = HSAQM_WL_ARR_BURST;
		else
			return fail(p, "task arrival: '%s' is not periodic, poisson, closed or "
				    "burst", v);
		return 0;
	}
	if (!strcmp(k, "rate")) {
		t->rate = true;
		return parse_double(p, "task rate", v, 1e-6, 1e7, &task->rate);
	}
	if (!strcmp(k, "period")) {
		t->period = true;
		return parse_duration(p, "task period", v, false, &task->period_ns);
	}
	if (!strcmp(k, "jitter")) {
		t->jitter = true;
		return parse_duration(p, "task jitter", v, true, &task->jitter_ns);
	}
	if (!strcmp(k, "think")) {
		t->think = true;
		return parse_duration(p, "task think", v, true, &task->think_ns);
	}
	if (!strcmp(k, "depth")) {
		t->depth = true;
		return parse_u32(p, "task depth", v, 1, 64, &task->depth);
	}
	if (!strcmp(k, "burst")) {
		t->burst = true;
		return parse_u32(p, "task burst", v, 1, 64, &task->burst);
	}
	if (!strcmp(k, "start"))
		return parse_duration(p, "task start", v, true, &task->start_ns);
	if (!strcmp(k, "requests"))
		return parse_u32(p, "task requests", v, 1, 100000000, &task->requests);
	if (!strcmp(k, "launch"))
		return parse_duration(p, "task launch", v, true, &task->launch_ns);
	return fail(p, "task: unknown key '%s' (name, group, stream, model, arrival, rate, period, "
		    "jitter, think, depth, burst, start, requests, launch)", k);
}

static int task_check(struct parser *p, struct ttok *t)
{
	struct hsaqm_wl_task *task = t->t;

	if (!t->name)
		return fail(p, "task: name= is required");
	if (!t->pend->model[0])
		return fail(p, "task %s: model= is required", task->name);
	if (!t->arrival)
		return fail(p, "task %s: arrival= is required (periodic, poisson, closed, burst)",
			    task->name);
	switch (task->arrival) {
	case HSAQM_WL_ARR_PERIODIC:
	case HSAQM_WL_ARR_BURST:
		if (t->rate == t->period)
			return fail(p, "task %s: arrival=%s needs exactly one of rate= and period=",
				    task->name, hsaqm_wl_arrival_name(task->arrival));
		if (t->rate)
			task->period_ns = (uint64_t)llround(1e9 / task->rate);
		if (!task->period_ns)
			return fail(p, "task %s: the period is below 1 ns", task->name);
		if (task->arrival == HSAQM_WL_ARR_BURST && !t->burst)
			return fail(p, "task %s: arrival=burst needs burst=", task->name);
		if (task->jitter_ns * 2 > task->period_ns)
			return fail(p, "task %s: jitter must be at most half the period",
				    task->name);
		break;
	case HSAQM_WL_ARR_POISSON:
		if (!t->rate)
			return fail(p, "task %s: arrival=poisson needs rate=", task->name);
		break;
	case HSAQM_WL_ARR_CLOSED:
		if (t->rate || t->period)
			return fail(p, "task %s: arrival=closed takes think= and depth=, not a "
				    "rate", task->name);
		break;
	}
	if (task->arrival != HSAQM_WL_ARR_CLOSED && (t->think || t->depth))
		return fail(p, "task %s: think= and depth= belong to arrival=closed", task->name);
	if (task->arrival != HSAQM_WL_ARR_BURST && t->burst)
		return fail(p, "task %s: burst= belongs to arrival=burst", task->name);
	/* Closed loop: jitter= spreads the think time (a host's sleep is never exact). */
	if (task->arrival == HSAQM_WL_ARR_CLOSED && task->jitter_ns > task->think_ns)
		return fail(p, "task %s: jitter must be at most the think time", task->name);
	if (task->arrival != HSAQM_WL_ARR_PERIODIC && task->arrival != HSAQM_WL_ARR_CLOSED &&
	    t->jitter)
		return fail(p, "task %s: jitter= belongs to arrival=periodic or closed", task->name);
	return 0;
}

static int process_key(struct parser *p, struct hsaqm_wl_process *pr, const char *key, char *v)
{
	unsigned int pi = (unsigned int)(pr - p->wl->procs);

	if (!strcmp(key, "role")) {
		if (!strcmp(v, "online"))
			pr->role = HSAQM_WL_ROLE_ONLINE;
		else if (!strcmp(v, "offline"))
			pr->role = HSAQM_WL_ROLE_OFFLINE;
		else
			return fail(p, "role: '%s' is not online or offline", v);
		return 0;
	}
	if (!strcmp(key, "host_lock"))
		return parse_bool(p, key, v, &pr->host_lock);
	if (!strcmp(key, "stream")) {
		struct hsaqm_wl_stream *s;
		struct stok t = { 0 };
		int rc;

		if (pr->nstreams == HSAQM_WL_MAX_STREAMS)
			return fail(p, "process %s: more than %d streams", pr->name,
				    HSAQM_WL_MAX_STREAMS);
		s = &pr->streams[pr->nstreams];
		memset(s, 0, sizeof(*s));
		s->ring = 4096;
		s->line = p->line;
		t.s = s;
		rc = for_tokens(p, "stream", v, &t, stream_token);
		if (rc)
			return rc;
		if (!t.name)
			return fail(p, "stream: name= is required");
		for (unsigned int i = 0; i < pr->nstreams; i++)
			if (!strcmp(pr->streams[i].name, s->name))
				return fail(p, "stream %s: defined twice in process %s", s->name,
					    pr->name);
		if (!t.prio_set)
			s->hsaqm_priority = s->prio == HSAQM_WL_PRIO_HIGH  ? 10
					    : s->prio == HSAQM_WL_PRIO_LOW ? -10 : 0;
		pr->nstreams++;
		return 0;
	}
	if (!strcmp(key, "task")) {
		struct hsaqm_wl_task *task;
		struct ttok t = { 0 };
		int rc;

		if (pr->ntasks == HSAQM_WL_MAX_TASKS)
			return fail(p, "process %s: more than %d tasks", pr->name,
				    HSAQM_WL_MAX_TASKS);
		task = &pr->tasks[pr->ntasks];
		memset(task, 0, sizeof(*task));
		memset(&p->pend[pi][pr->ntasks], 0, sizeof(p->pend[pi][pr->ntasks]));
		task->depth = 1;
		task->burst = 1;
		task->line = p->line;
		t.t = task;
		t.pend = &p->pend[pi][pr->ntasks];
		rc = for_tokens(p, "task", v, &t, task_token);
		if (!rc)
			rc = task_check(p, &t);
		if (rc)
			return rc;
		for (unsigned int i = 0; i < pr->ntasks; i++)
			if (!strcmp(pr->tasks[i].name, task->name))
				return fail(p, "task %s: defined twice in process %s", task->name,
					    pr->name);
		if (!task->group[0])
			strcpy(task->group, task->name);
		pr->ntasks++;
		return 0;
	}
	return fail(p, "[process]: unknown key '%s' (role, host_lock, stream, task)", key);
}

/* ---- [config], [reference], [pass], [workload] -------------------------------------------- */

static int config_key(struct parser *p, struct hsaqm_wl_config *c, const char *key, char *v)
{
	if (!strcmp(key, "mode")) {
		if (!strcmp(v, "native"))
			c->mode = HSAQM_WL_MODE_NATIVE;
		else if (!strcmp(v, "hip-priority"))
			c->mode = HSAQM_WL_MODE_HIP;
		else if (!strcmp(v, "hsaqm"))
			c->mode = HSAQM_WL_MODE_HSAQM;
		else
			return fail(p, "mode: '%s' is not native, hip-priority or hsaqm", v);
		return 0;
	}
	if (!strcmp(key, "label")) {
		if (strlen(v) >= HSAQM_WL_NAME_MAX)
			return fail(p, "label: longer than %d characters", HSAQM_WL_NAME_MAX - 1);
		strcpy(c->label, v);
		return 0;
	}
	if (!strcmp(key, "level"))
		return parse_int(p, key, v, 0, 3, &c->level);
	if (!strcmp(key, "lv1_threshold"))
		return parse_u32(p, key, v, 1, 1u << 20, &c->lv1_threshold);
	if (!strcmp(key, "lv1_batch"))
		return parse_u32(p, key, v, 1, 1u << 20, &c->lv1_batch);
	if (!strcmp(key, "lv2_interval"))
		return parse_u32(p, key, v, 1, 1u << 20, &c->lv2_interval);
	if (!strcmp(key, "policy")) {
		if (!strcmp(v, "hpf"))
			c->policy = 0;
		else if (!strcmp(v, "util"))
			c->policy = 1;
		else if (!strcmp(v, "none"))
			c->policy = 2;
		else
			return fail(p, "policy: '%s' is not hpf, util or none", v);
		return 0;
	}
	if (!strcmp(key, "floor_period") || !strcmp(key, "floor_slice")) {
		uint64_t ns;
		int rc = parse_duration(p, key, v, true, &ns);

		if (rc)
			return rc;
		if (ns / 1000 > UINT32_MAX)
			return fail(p, "%s: too long", key);
		*(key[6] == 'p' ? &c->floor_period_us : &c->floor_slice_us) = (uint32_t)(ns / 1000);
		return 0;
	}
	if (!strcmp(key, "spatial")) {
		/* HSAQM_SPATIAL's syntax (docs/tool.md): off, or auto|static|dynamic[:1..999]. */
		static const char *const modes[] = { "off", "auto", "static", "dynamic" };
		const char *colon = strchr(v, ':');
		size_t n = colon ? (size_t)(colon - v) : strlen(v);
		bool known = false;
		uint32_t permille;

		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			known |= strlen(modes[i]) == n && !strncmp(v, modes[i], n);
		if (!known || strlen(v) >= sizeof(c->spatial) || (colon && !strncmp(v, "off", 3)))
			return fail(p, "spatial: '%s' is not off, or auto, static or dynamic with an "
				    "optional :PERMILLE", v);
		if (colon) {
			int rc = parse_u32(p, key, colon + 1, 1, 999, &permille);

			if (rc)
				return rc;
		}
		strcpy(c->spatial, v);
		return 0;
	}
	if (!strcmp(key, "hip_priority"))
		return parse_bool(p, key, v, &c->hip_priority);
	if (!strcmp(key, "time_scale"))
		return parse_double(p, key, v, 0.01, 1000, &c->time_scale);
	return fail(p, "[config]: unknown key '%s' (mode, label, level, lv1_threshold, lv1_batch, "
		    "lv2_interval, policy, floor_period, floor_slice, spatial, hip_priority, "
		    "time_scale)",
		    key);
}

static const char *const metrics[] = {
	"latency_avg_ms", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "latency_max_ms",
	"throughput_rps", "throughput_ips", "images_per_sec",
};

static int reference_key(struct parser *p, const char *key, char *v)
{
	struct hsaqm_wl_ref *r;
	const char *dot = strrchr(key, '.');
	char *dd;
	bool known = false;

	if (p->wl->nrefs == HSAQM_WL_MAX_REFS)
		return fail(p, "more than %d reference figures", HSAQM_WL_MAX_REFS);
	r = &p->wl->refs[p->wl->nrefs];
	memset(r, 0, sizeof(*r));
	if (!dot || dot == key || (size_t)(dot - key) >= HSAQM_WL_NAME_MAX)
		return fail(p, "reference: '%s' is not PROCESS.METRIC", key);
	memcpy(r->process, key, (size_t)(dot - key));
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
		known |= !strcmp(dot + 1, metrics[i]);
	if (!known)
		return fail(p, "reference: unknown metric '%s' (latency_avg_ms, latency_p50_ms, "
			    "latency_p95_ms, latency_p99_ms, latency_max_ms, throughput_rps, "
			    "throughput_ips, images_per_sec)", dot + 1);
	strcpy(r->metric, dot + 1);
	strcpy(r->config, p->ref_config);
	dd = strstr(v, "..");
	if (dd)
		*dd = '\0';
	if (hsaqm_parse_double(v, 0, DBL_MAX, &r->lo) || !(r->lo > 0))
		return fail(p, "reference %s: '%s' is not a positive number", key, v);
	r->hi = r->lo;
	if (dd) {
		if (hsaqm_parse_double(dd + 2, r->lo, DBL_MAX, &r->hi))
			return fail(p, "reference %s: the range must be LOW..HIGH, LOW <= HIGH",
				    key);
	}
	r->line = p->line;
	p->wl->nrefs++;
	return 0;
}

static int pass_key(struct parser *p, const char *key, char *v)
{
	struct hsaqm_wl_file *wl = p->wl;

	if (!strcmp(key, "online_p99"))
		return parse_double(p, key, v, 0.5, 100, &wl->pass_online_p99);
	if (!strcmp(key, "offline_throughput"))
		return parse_double(p, key, v, 0.0, 1.0, &wl->pass_offline_tput);
	if (!strcmp(key, "latency_tolerance"))
		return parse_double(p, key, v, 0.0, 10, &wl->latency_tolerance);
	if (!strcmp(key, "throughput_tolerance"))
		return parse_double(p, key, v, 0.0, 10, &wl->throughput_tolerance);
	if (!strcmp(key, "online_max_ms"))
		return parse_double(p, key, v, 0.001, 1e6, &wl->pass_online_max_ms);
	if (!strcmp(key, "offline_loss"))
		return parse_double(p, key, v, 0.0001, 1.0, &wl->pass_offline_loss);
	return fail(p, "[pass]: unknown key '%s' (online_p99, offline_throughput, "
		    "latency_tolerance, throughput_tolerance, online_max_ms, offline_loss)", key);
}

static int workload_key(struct parser *p, const char *key, char *v)
{
	struct hsaqm_wl_file *wl = p->wl;

	if (!strcmp(key, "name"))
		return copy_name(p, key, v, wl->name);
	if (!strcmp(key, "description"))
		return copy_text(p, key, v, wl->description);
	if (!strcmp(key, "length")) {
		p->have_length = true;
		return parse_duration(p, key, v, false, &wl->length_ns);
	}
	if (!strcmp(key, "warmup"))
		return parse_duration(p, key, v, true, &wl->warmup_ns);
	if (!strcmp(key, "seed"))
		return parse_u64(p, key, v, 0, UINT64_MAX, &wl->seed);
	if (!strcmp(key, "time_scale"))
		return parse_double(p, key, v, 0.01, 1000, &wl->time_scale);
	if (!strcmp(key, "calibration"))
		return parse_bool(p, key, v, &wl->calibration);
	if (!strcmp(key, "edge_checks"))
		return parse_bool(p, key, v, &wl->edge_checks);
	return fail(p, "[workload]: unknown key '%s' (name, description, length, warmup, seed, "
		    "time_scale, calibration, edge_checks)", key);
}

/* ---- Sections ---------------------------------------------------------------------------- */

static int open_section(struct parser *p, char *s)
{
	struct hsaqm_wl_file *wl = p->wl;
	char *close = strchr(s, ']'), *kind, *name;

	if (!close)
		return fail(p, "section header without ']'");
	if (*hsaqm_trim(close + 1))
		return fail(p, "text after the section header");
	*close = '\0';
	kind = hsaqm_trim(s + 1);
	name = kind;
	while (*name && !isspace((unsigned char)*name))
		name++;
	if (*name)
		*name++ = '\0';
	name = hsaqm_trim(name);
	p->cur = NULL;

	if (!strcmp(kind, "workload") || !strcmp(kind, "pass")) {
		bool *seen = kind[0] == 'w' ? &p->have_workload : &p->have_pass;

		if (*name)
			return fail(p, "[%s] takes no name", kind);
		if (*seen)
			return fail(p, "[%s] appears twice", kind);
		*seen = true;
		p->sec = kind[0] == 'w' ? SEC_WORKLOAD : SEC_PASS;
		return 0;
	}
	if (!strcmp(kind, "reference")) {
		p->sec = SEC_REFERENCE;
		return copy_name(p, "[reference CONFIG]", name, p->ref_config);
	}
	if (!strcmp(kind, "model")) {
		struct hsaqm_wl_model *m;

		if (wl->nmodels == HSAQM_WL_MAX_MODELS)
			return fail(p, "more than %d models", HSAQM_WL_MAX_MODELS);
		m = &wl->models[wl->nmodels];
		memset(m, 0, sizeof(*m));
		if (copy_name(p, "[model NAME]", name, m->name))
			return -EINVAL;
		for (unsigned int i = 0; i < wl->nmodels; i++)
			if (!strcmp(wl->models[i].name, name))
				return fail(p, "model %s: defined twice (line %d)", name,
					    wl->models[i].line);
		m->batch = 1;
		m->line = p->line;
		wl->nmodels++;
		p->sec = SEC_MODEL;
		p->cur = m;
		return 0;
	}
	if (!strcmp(kind, "process")) {
		struct hsaqm_wl_process *pr;

		if (wl->nprocs == HSAQM_WL_MAX_PROCESSES)
			return fail(p, "more than %d processes", HSAQM_WL_MAX_PROCESSES);
		pr = &wl->procs[wl->nprocs];
		memset(pr, 0, sizeof(*pr));
		if (copy_name(p, "[process NAME]", name, pr->name))
			return -EINVAL;
		for (unsigned int i = 0; i < wl->nprocs; i++)
			if (!strcmp(wl->procs[i].name, name))
				return fail(p, "process %s: defined twice (line %d)", name,
					    wl->procs[i].line);
		pr->line = p->line;
		wl->nprocs++;
		p->sec = SEC_PROCESS;
		p->cur = pr;
		return 0;
	}
	if (!strcmp(kind, "config")) {
		struct hsaqm_wl_config *c;

		if (wl->nconfigs == HSAQM_WL_MAX_CONFIGS)
			return fail(p, "more than %d configurations", HSAQM_WL_MAX_CONFIGS);
		c = &wl->configs[wl->nconfigs];
		memset(c, 0, sizeof(*c));
		if (copy_name(p, "[config NAME]", name, c->name))
			return -EINVAL;
		if (!strcmp(name, "standalone"))
			return fail(p, "config standalone: the name is reserved (each process run "
				    "alone, natively)");
		for (unsigned int i = 0; i < wl->nconfigs; i++)
			if (!strcmp(wl->configs[i].name, name))
				return fail(p, "config %s: defined twice (line %d)", name,
					    wl->configs[i].line);
		c->line = p->line;
		c->hip_priority = true;
		c->level = -1;
		wl->nconfigs++;
		p->sec = SEC_CONFIG;
		p->cur = c;
		return 0;
	}
	return fail(p, "unknown section [%s] (workload, model, process, config, reference, pass)",
		    kind);
}

static int end_config(struct parser *p, struct hsaqm_wl_config *c)
{
	p->line = c->line;
	if (c->mode == HSAQM_WL_MODE_HSAQM) {
		if (c->level < 0)
			return fail(p, "config %s: mode=hsaqm needs level= (0-3)", c->name);
		if (c->lv1_threshold && c->lv1_batch > c->lv1_threshold)
			return fail(p, "config %s: lv1_batch is larger than lv1_threshold",
				    c->name);
		if (!c->floor_period_us != !c->floor_slice_us)
			return fail(p, "config %s: floor_period and floor_slice go together",
				    c->name);
		if (c->floor_period_us && c->floor_slice_us >= c->floor_period_us)
			return fail(p, "config %s: floor_slice must be shorter than floor_period",
				    c->name);
	} else if (c->level >= 0 || c->lv1_threshold || c->lv1_batch || c->lv2_interval ||
		   c->floor_period_us || c->policy || c->spatial[0]) {
		return fail(p, "config %s: level, launch and policy settings need mode=hsaqm",
			    c->name);
	}
	if (c->level < 0)
		c->level = 0;
	if (!c->label[0])
		strcpy(c->label, c->name);
	return 0;
}

/* Names used before they are defined, and what must be there at all. */
static int finish(struct parser *p)
{
	struct hsaqm_wl_file *wl = p->wl;
	int rc;

	p->line = 0;
	if (!p->have_workload)
		return fail(p, "no [workload] section");
	if (!wl->name[0])
		return fail(p, "[workload] needs name=");
	if (!p->have_length)
		return fail(p, "[workload] needs length=");
	if (!wl->nprocs)
		return fail(p, "no [process] section");
	for (unsigned int m = 0; m < wl->nmodels; m++) {
		p->line = wl->models[m].line;
		if (!wl->models[m].nk)
			return fail(p, "model %s: no kernel lines", wl->models[m].name);
	}
	for (unsigned int i = 0; i < wl->nprocs; i++) {
		struct hsaqm_wl_process *pr = &wl->procs[i];

		p->line = pr->line;
		if (!pr->ntasks)
			return fail(p, "process %s: no task", pr->name);
		if (!pr->nstreams) {
			/* One stream at normal priority, as a process that never names one. */
			strcpy(pr->streams[0].name, "default");
			pr->streams[0].ring = 4096;
			pr->streams[0].line = pr->line;
			pr->nstreams = 1;
		}
		for (unsigned int t = 0; t < pr->ntasks; t++) {
			struct hsaqm_wl_task *task = &pr->tasks[t];
			struct pending *pe = &p->pend[i][t];
			bool found = false;

			p->line = task->line;
			if (!pe->stream[0]) {
				if (pr->nstreams > 1)
					return fail(p, "task %s: stream= is required when process %s "
						    "has several streams", task->name, pr->name);
				task->stream = 0;
				found = true;
			}
			for (unsigned int s = 0; !found && s < pr->nstreams; s++)
				if (!strcmp(pr->streams[s].name, pe->stream)) {
					task->stream = s;
					found = true;
				}
			if (!found)
				return fail(p, "task %s: no stream '%s' in process %s", task->name,
					    pe->stream, pr->name);
			/* A stream's queue does not exist before its create= instant. */
			if (task->start_ns < pr->streams[task->stream].create_ns)
				return fail(p, "task %s: start= (%.6g s) is before stream %s's create= "
					    "(%.6g s)", task->name, (double)task->start_ns / 1e9,
					    pr->streams[task->stream].name,
					    (double)pr->streams[task->stream].create_ns / 1e9);
			found = false;
			for (unsigned int m = 0; m < wl->nmodels; m++)
				if (!strcmp(wl->models[m].name, pe->model)) {
					task->model = m;
					found = true;
				}
			if (!found)
				return fail(p, "task %s: no [model %s]", task->name, pe->model);
		}
	}
	for (unsigned int c = 0; c < wl->nconfigs; c++) {
		rc = end_config(p, &wl->configs[c]);
		if (rc)
			return rc;
	}
	if (!wl->nconfigs) {
		/* A file that names no configuration compares nothing: it runs natively. */
		strcpy(wl->configs[0].name, "native");
		strcpy(wl->configs[0].label, "Native");
		wl->configs[0].hip_priority = true;
		wl->nconfigs = 1;
	}
	for (unsigned int r = 0; r < wl->nrefs; r++) {
		struct hsaqm_wl_ref *ref = &wl->refs[r];

		p->line = ref->line;
		if (strcmp(ref->config, "standalone") && hsaqm_wl_find_config(wl, ref->config) < 0)
			return fail(p, "[reference %s]: no [config %s]", ref->config, ref->config);
		if (hsaqm_wl_find_process(wl, ref->process) < 0)
			return fail(p, "reference: no [process %s]", ref->process);
	}
	return 0;
}

int hsaqm_wl_parse(const char *text, const char *fname, struct hsaqm_wl_file *out, char *err,
		   size_t errlen)
{
	struct parser *p;
	const char *s;
	int rc = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!text || !out)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(out, 0, sizeof(*out));
	out->seed = 1;
	out->time_scale = 1.0;
	out->latency_tolerance = 0.25;
	out->throughput_tolerance = 0.10;
	p->fname = fname ? fname : "<workload>";
	p->err = err;
	p->errlen = errlen;
	p->wl = out;
	s = text;
	while (*s && !rc) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char buf[LINE_MAX_LEN], *line, *eq, *key, *val;

		p->line++;
		if (len >= sizeof(buf)) {
			rc = fail(p, "line longer than %d characters", LINE_MAX_LEN - 1);
			break;
		}
		memcpy(buf, s, len);
		buf[len] = '\0';
		s = nl ? nl + 1 : s + len;
		for (char *c = buf; *c; c++)
			if (*c == '#' || *c == ';') {
				*c = '\0';
				break;
			}
		line = hsaqm_trim(buf);
		if (!*line)
			continue;
		if (*line == '[') {
			rc = open_section(p, line);
			continue;
		}
		eq = strchr(line, '=');
		if (!eq) {
			rc = fail(p, "expected 'key = value' or '[section]', got '%s'", line);
			break;
		}
		*eq = '\0';
		key = hsaqm_trim(line);
		val = hsaqm_trim(eq + 1);
		if (!*key) {
			rc = fail(p, "a value without a key");
			break;
		}
		if (!*val) {
			rc = fail(p, "%s: empty value", key);
			break;
		}
		switch (p->sec) {
		case SEC_NONE:
			rc = fail(p, "'%s' outside any section", key);
			break;
		case SEC_WORKLOAD:
			rc = workload_key(p, key, val);
			break;
		case SEC_MODEL:
			rc = model_key(p, p->cur, key, val);
			break;
		case SEC_PROCESS:
			rc = process_key(p, p->cur, key, val);
			break;
		case SEC_CONFIG:
			rc = config_key(p, p->cur, key, val);
			break;
		case SEC_REFERENCE:
			rc = reference_key(p, key, val);
			break;
		case SEC_PASS:
			rc = pass_key(p, key, val);
			break;
		}
	}
	if (!rc)
		rc = finish(p);
	free(p);
	return rc;
}

int hsaqm_wl_load(const char *path, struct hsaqm_wl_file *out, char *err, size_t errlen)
{
	FILE *f;
	char *text = NULL;
	size_t len = 0, cap = 0;
	int rc;

	if (!path || !out)
		return -EINVAL;
	f = fopen(path, "r");
	if (!f) {
		rc = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *n = realloc(text, cap = cap ? 2 * cap : 8192);

			if (!n) {
				free(text);
				fclose(f);
				return -ENOMEM;
			}
			text = n;
		}
		size_t got = fread(text + len, 1, 4096, f);

		len += got;
		if (got < 4096)
			break;
	}
	if (ferror(f)) {
		free(text);
		fclose(f);
		if (err && errlen)
			snprintf(err, errlen, "%s: read error", path);
		return -EIO;
	}
	fclose(f);
	text[len] = '\0';
	rc = hsaqm_wl_parse(text, path, out, err, errlen);
	free(text);
	return rc;
}

int hsaqm_wl_find_config(const struct hsaqm_wl_file *wl, const char *name)
{
	for (unsigned int i = 0; wl && name && i < wl->nconfigs; i++)
		if (!strcmp(wl->configs[i].name, name))
			return (int)i;
	return -ENOENT;
}

int hsaqm_wl_find_process(const struct hsaqm_wl_file *wl, const char *name)
{
	for (unsigned int i = 0; wl && name && i < wl->nprocs; i++)
		if (!strcmp(wl->procs[i].name, name))
			return (int)i;
	return -ENOENT;
}

const char *hsaqm_wl_mode_name(enum hsaqm_wl_mode mode)
{
	switch (mode) {
	case HSAQM_WL_MODE_NATIVE:
		return "native";
	case HSAQM_WL_MODE_HIP:
		return "hip-priority";
	case HSAQM_WL_MODE_HSAQM:
		return "hsaqm";
	}
	return "?";
}

const char *hsaqm_wl_arrival_name(enum hsaqm_wl_arrival a)
{
	switch (a) {
	case HSAQM_WL_ARR_PERIODIC:
		return "periodic";
	case HSAQM_WL_ARR_POISSON:
		return "poisson";
	case HSAQM_WL_ARR_CLOSED:
		return "closed";
	case HSAQM_WL_ARR_BURST:
		return "burst";
	}
	return "?";
}

const char *hsaqm_wl_prio_name(enum hsaqm_wl_prio p)
{
	switch (p) {
	case HSAQM_WL_PRIO_NORMAL:
		return "normal";
	case HSAQM_WL_PRIO_HIGH:
		return "high";
	case HSAQM_WL_PRIO_LOW:
		return "low";
	}
	return "?";
}

/* ---- JSON dump ---------------------------------------------------------------------------- */

int hsaqm_wl_dump_json(const struct hsaqm_wl_file *wl, char **json)
{
	static const char *const policies[] = { "hpf", "util", "none" };
	static const char *const dists[] = { "fixed", "uniform", "normal" };
	struct hsaqm_json j;
	size_t len = 0;
	FILE *f;

	if (!wl || !json)
		return -EINVAL;
	f = open_memstream(json, &len);
	if (!f)
		return -ENOMEM;
	hsaqm_json_init(&j, f);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_string(&j, "name", wl->name);
	hsaqm_json_string(&j, "description", wl->description);
	hsaqm_json_number(&j, "length_s", (double)wl->length_ns / 1e9, 9);
	hsaqm_json_number(&j, "warmup_s", (double)wl->warmup_ns / 1e9, 9);
	hsaqm_json_uint(&j, "seed", wl->seed);
	hsaqm_json_number(&j, "time_scale", wl->time_scale, 6);
	hsaqm_json_bool(&j, "calibration", wl->calibration);
	hsaqm_json_bool(&j, "edge_checks", wl->edge_checks);
	hsaqm_json_begin_object(&j, "pass");
	hsaqm_json_number(&j, "online_p99", wl->pass_online_p99, 6);
	hsaqm_json_number(&j, "offline_throughput", wl->pass_offline_tput, 6);
	hsaqm_json_number(&j, "latency_tolerance", wl->latency_tolerance, 6);
	hsaqm_json_number(&j, "throughput_tolerance", wl->throughput_tolerance, 6);
	hsaqm_json_number(&j, "online_max_ms", wl->pass_online_max_ms, 6);
	hsaqm_json_number(&j, "offline_loss", wl->pass_offline_loss, 6);
	hsaqm_json_end_object(&j);
	hsaqm_json_begin_array(&j, "models");
	for (unsigned int m = 0; m < wl->nmodels; m++) {
		const struct hsaqm_wl_model *md = &wl->models[m];
		double ms = 0;

		hsaqm_json_begin_object(&j, NULL);
		hsaqm_json_string(&j, "name", md->name);
		hsaqm_json_uint(&j, "batch", md->batch);
		hsaqm_json_uint(&j, "kernels", md->kernels);
		hsaqm_json_string(&j, "note", md->note);
		hsaqm_json_begin_array(&j, "groups");
		for (unsigned int k = 0; k < md->nk; k++) {
			const struct hsaqm_wl_kernel *kg = &md->k[k];

			hsaqm_json_begin_object(&j, NULL);
			hsaqm_json_uint(&j, "count", kg->count);
			hsaqm_json_uint(&j, "wg", kg->wgs);
			hsaqm_json_uint(&j, "waves", kg->waves);
			hsaqm_json_fixed(&j, "time_us", (double)kg->time_ns / 1e3, 3);
			hsaqm_json_string(&j, "dist", dists[kg->dist]);
			hsaqm_json_fixed(&j, "spread_us", (double)kg->spread_ns / 1e3, 3);
			hsaqm_json_end_object(&j);
			ms += (double)kg->count * (double)kg->time_ns / 1e6;
		}
		hsaqm_json_end_array(&j);
		hsaqm_json_fixed(&j, "sum_wg_time_ms", ms, 4);
		hsaqm_json_end_object(&j);
	}
	hsaqm_json_end_array(&j);
	hsaqm_json_begin_array(&j, "processes");
	for (unsigned int i = 0; i < wl->nprocs; i++) {
		const struct hsaqm_wl_process *pr = &wl->procs[i];

		hsaqm_json_begin_object(&j, NULL);
		hsaqm_json_string(&j, "name", pr->name);
		hsaqm_json_string(&j, "role", pr->role == HSAQM_WL_ROLE_ONLINE ? "online" : "offline");
		hsaqm_json_bool(&j, "host_lock", pr->host_lock);
		hsaqm_json_begin_array(&j, "streams");
		for (unsigned int s = 0; s < pr->nstreams; s++) {
			const struct hsaqm_wl_stream *st = &pr->streams[s];

			hsaqm_json_begin_object(&j, NULL);
			hsaqm_json_string(&j, "name", st->name);
			hsaqm_json_string(&j, "priority", hsaqm_wl_prio_name(st->prio));
			hsaqm_json_int(&j, "hsaqm_priority", st->hsaqm_priority);
			hsaqm_json_uint(&j, "ring", st->ring);
			hsaqm_json_fixed(&j, "create_ms", (double)st->create_ns / 1e6, 6);
			hsaqm_json_end_object(&j);
		}
		hsaqm_json_end_array(&j);
		hsaqm_json_begin_array(&j, "tasks");
		for (unsigned int t = 0; t < pr->ntasks; t++) {
			const struct hsaqm_wl_task *tk = &pr->tasks[t];

			hsaqm_json_begin_object(&j, NULL);
			hsaqm_json_string(&j, "name", tk->name);
			hsaqm_json_string(&j, "group", tk->group);
			hsaqm_json_string(&j, "stream", pr->streams[tk->stream].name);
			hsaqm_json_string(&j, "model", wl->models[tk->model].name);
			hsaqm_json_string(&j, "arrival", hsaqm_wl_arrival_name(tk->arrival));
			hsaqm_json_number(&j, "period_ms", (double)tk->period_ns / 1e6, 6);
			hsaqm_json_number(&j, "rate", tk->rate, 6);
			hsaqm_json_number(&j, "think_ms", (double)tk->think_ns / 1e6, 6);
			hsaqm_json_uint(&j, "depth", tk->depth);
			hsaqm_json_uint(&j, "burst", tk->burst);
			hsaqm_json_uint(&j, "requests", tk->requests);
			hsaqm_json_number(&j, "launch_us", (double)tk->launch_ns / 1e3, 6);
			hsaqm_json_fixed(&j, "start_ms", (double)tk->start_ns / 1e6, 6);
			hsaqm_json_number(&j, "jitter_ms", (double)tk->jitter_ns / 1e6, 6);
			hsaqm_json_end_object(&j);
		}
		hsaqm_json_end_array(&j);
		hsaqm_json_end_object(&j);
	}
	hsaqm_json_end_array(&j);
	hsaqm_json_begin_array(&j, "configs");
	for (unsigned int c = 0; c < wl->nconfigs; c++) {
		const struct hsaqm_wl_config *cf = &wl->configs[c];

		hsaqm_json_begin_object(&j, NULL);
		hsaqm_json_string(&j, "name", cf->name);
		hsaqm_json_string(&j, "label", cf->label);
		hsaqm_json_string(&j, "mode", hsaqm_wl_mode_name(cf->mode));
		hsaqm_json_int(&j, "level", cf->level);
		hsaqm_json_uint(&j, "lv1_threshold", cf->lv1_threshold);
		hsaqm_json_uint(&j, "lv1_batch", cf->lv1_batch);
		hsaqm_json_uint(&j, "lv2_interval", cf->lv2_interval);
		hsaqm_json_string(&j, "policy", policies[cf->policy]);
		hsaqm_json_uint(&j, "floor_period_us", cf->floor_period_us);
		hsaqm_json_uint(&j, "floor_slice_us", cf->floor_slice_us);
		hsaqm_json_string(&j, "spatial", cf->spatial);
		hsaqm_json_bool(&j, "hip_priority", cf->hip_priority);
		hsaqm_json_number(&j, "time_scale", cf->time_scale ? cf->time_scale : wl->time_scale, 6);
		hsaqm_json_end_object(&j);
	}
	hsaqm_json_end_array(&j);
	hsaqm_json_begin_array(&j, "references");
	for (unsigned int r = 0; r < wl->nrefs; r++) {
		const struct hsaqm_wl_ref *rf = &wl->refs[r];

		hsaqm_json_begin_object(&j, NULL);
		hsaqm_json_string(&j, "config", rf->config);
		hsaqm_json_string(&j, "process", rf->process);
		hsaqm_json_string(&j, "metric", rf->metric);
		hsaqm_json_number(&j, "lo", rf->lo, 9);
		hsaqm_json_number(&j, "hi", rf->hi, 9);
		hsaqm_json_end_object(&j);
	}
	hsaqm_json_end_array(&j);
	hsaqm_json_end_object(&j);
	fputc('\n', f);
	if (fclose(f))
		return -ENOMEM;
	return 0;
}
