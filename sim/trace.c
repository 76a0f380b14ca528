/* SPDX-License-Identifier: MIT */
/*
 * Chrome trace JSON (the "JSON array" format Perfetto and chrome://tracing open): one
 * process per device ("pid"), one thread per track ("tid": a queue's packets, a queue's HWS
 * state, and lanes for dispatches and workgroup batches so spans on a track never overlap).
 * Spans are "ph":"X" with microsecond "ts"/"dur" in model time; instants are "ph":"i".
 *
 * Events are written as they happen, under a mutex (several engine threads write), to a
 * stdio stream; the closing bracket is written at hsaqm_sim_destroy(), so the file is valid
 * JSON whenever the model was destroyed, however early. (The format also tolerates a
 * missing bracket, so even a crashed run leaves a readable trace.)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "hsaqm-common/json.h"
#include "hsaqm-common/log.h"

struct sim_trace {
	pthread_mutex_t lock;
	FILE *f;
	bool first;
	/* (dev, tid) pairs already named: open addressing, 0 = empty. */
	uint64_t *named;
	uint32_t named_cap;
	uint32_t named_n;
};

static void put_meta(struct sim_trace *t, const char *what, unsigned int pid, uint32_t tid,
		     const char *name);

int sim_trace_open(struct hsaqm_sim *sim, const char *path)
{
	struct sim_trace *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->f = fopen(path, "w");
	if (!t->f) {
		int err = -errno;

		hsaqm_log_err("cannot write the trace %s: %s", path, strerror(-err));
		free(t);
		return err;
	}
	pthread_mutex_init(&t->lock, NULL);
	t->first = true;
	fputs("[\n", t->f);
	sim->trace = t;
	for (unsigned int d = 0; d < sim->ndev; d++) {
		char name[64];

		snprintf(name, sizeof(name), "device %u (model)", d);
		pthread_mutex_lock(&t->lock);
		put_meta(t, "process_name", d, 0, name);
		pthread_mutex_unlock(&t->lock);
	}
	return 0;
}

void sim_trace_close(struct hsaqm_sim *sim)
{
	struct sim_trace *t = sim->trace;

	if (!t)
		return;
	sim->trace = NULL;
	fputs("\n]\n", t->f);
	fclose(t->f);
	pthread_mutex_destroy(&t->lock);
	free(t->named);
	free(t);
}

/*
 * One event: its separator, then an object through lib's JSON writer (hsaqm-common/json.h),
 * which escapes the names. Events go one a line inside the document's array. The caller
 * holds the lock.
 */
static void put_head(struct sim_trace *t, struct hsaqm_json *j, const char *name, const char *ph,
		     unsigned int pid, uint32_t tid)
{
	if (!t->first)
		fputs(",\n", t->f);
	t->first = false;
	hsaqm_json_init(j, t->f);
	hsaqm_json_begin_object(j, NULL);
	hsaqm_json_string(j, "name", name);
	hsaqm_json_string(j, "ph", ph);
	if (ph[0] == 'i')
		hsaqm_json_string(j, "s", "t"); /* an instant on its thread's track */
	hsaqm_json_uint(j, "pid", pid);
	hsaqm_json_uint(j, "tid", tid);
}

/* Microseconds with three decimals, exact: the model's nanoseconds split, no double. */
static void put_ts(struct hsaqm_json *j, const char *key, uint64_t ns)
{
	hsaqm_json_key(j, key);
	fprintf(j->f, "%" PRIu64 ".%03u", ns / 1000, (unsigned int)(ns % 1000));
}

static void put_tail(struct hsaqm_json *j, const char *args_json)
{
	if (args_json)
		hsaqm_json_raw(j, "args", args_json);
	hsaqm_json_end_object(j);
}

/* A metadata event naming a process (a device) or a thread (a track). */
static void put_meta(struct sim_trace *t, const char *what, unsigned int pid, uint32_t tid,
		     const char *name)
{
	struct hsaqm_json j;

	put_head(t, &j, what, "M", pid, tid);
	hsaqm_json_begin_object(&j, "args");
	hsaqm_json_string(&j, "name", name);
	hsaqm_json_end_object(&j);
	hsaqm_json_end_object(&j);
}

void sim_trace_span(struct hsaqm_sim *sim, unsigned int dev, uint32_t tid, const char *name,
		    uint64_t ts_ns, uint64_t dur_ns, const char *args_json)
{
	struct sim_trace *t = sim->trace;
	struct hsaqm_json j;

	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	put_head(t, &j, name, "X", dev, tid);
	put_ts(&j, "ts", ts_ns);
	put_ts(&j, "dur", dur_ns);
	put_tail(&j, args_json);
	pthread_mutex_unlock(&t->lock);
}

void sim_trace_instant_at(struct hsaqm_sim *sim, unsigned int dev, uint32_t tid, const char *name,
			  uint64_t ts_ns, const char *args_json)
{
	struct sim_trace *t = sim->trace;
	struct hsaqm_json j;

	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	put_head(t, &j, name, "i", dev, tid);
	put_ts(&j, "ts", ts_ns);
	put_tail(&j, args_json);
	pthread_mutex_unlock(&t->lock);
}

void sim_trace_instant(struct hsaqm_sim *sim, unsigned int dev, uint32_t track, const char *name,
		       const char *args_json)
{
	if (!sim || !sim->trace || !name)
		return;
	sim_trace_instant_at(sim, dev, track, name, sim_clock_now(sim), args_json);
}

/* Returns true if (dev, tid) was not named before (and records it). Caller holds the lock. */
static bool name_once(struct sim_trace *t, unsigned int dev, uint32_t tid)
{
	uint64_t key = ((uint64_t)(dev + 1) << 32) | tid;

	if (t->named_n * 2 >= t->named_cap) {
		uint32_t cap = t->named_cap ? t->named_cap * 2 : 256;
		uint64_t *n = calloc(cap, sizeof(*n));

		if (!n)
			return false;
		for (uint32_t i = 0; i < t->named_cap; i++) {
			if (!t->named[i])
				continue;
			uint32_t j = (uint32_t)(t->named[i] * 0x9e3779b97f4a7c15ull >> 40) & (cap - 1);
			while (n[j])
				j = (j + 1) & (cap - 1);
			n[j] = t->named[i];
		}
		free(t->named);
		t->named = n;
		t->named_cap = cap;
	}
	uint32_t j = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 40) & (t->named_cap - 1);
	while (t->named[j]) {
		if (t->named[j] == key)
			return false;
		j = (j + 1) & (t->named_cap - 1);
	}
	t->named[j] = key;
	t->named_n++;
	return true;
}

void sim_trace_name_track(struct hsaqm_sim *sim, unsigned int dev, uint32_t tid, const char *name)
{
	struct sim_trace *t = sim->trace;

	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	if (name_once(t, dev, tid))
		put_meta(t, "thread_name", dev, tid, name);
	pthread_mutex_unlock(&t->lock);
}
