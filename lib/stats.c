/* SPDX-License-Identifier: MIT */
/* Names, per-queue statistics and their JSON export (schema: docs/stats.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"
#include "log_internal.h"
#include "xq_internal.h"

const char *hsaqm_level_name(enum hsaqm_level level)
{
	switch (level) {
	case HSAQM_LEVEL_NONE:
		return "none";
	case HSAQM_LEVEL_1:
		return "lv1";
	case HSAQM_LEVEL_2:
		return "lv2";
	case HSAQM_LEVEL_3:
		return "lv3";
	}
	return "?";
}

const char *hsaqm_xq_state_name(enum hsaqm_xq_state state)
{
	switch (state) {
	case HSAQM_XQ_IDLE:
		return "idle";
	case HSAQM_XQ_READY:
		return "ready";
	case HSAQM_XQ_PREEMPTED:
		return "preempted";
	}
	return "?";
}

const char *hsaqm_mechanism_name(enum hsaqm_mechanism m)
{
	static const char *const n[] = { "none", "hold", "gate", "dbg_trap", "update_queue" };

	return (unsigned int)m < sizeof(n) / sizeof(n[0]) ? n[m] : "?";
}

const char *hsaqm_spatial_name(enum hsaqm_spatial sp)
{
	static const char *const n[] = { "off", "static", "dynamic", "auto" };

	return (unsigned int)sp < sizeof(n) / sizeof(n[0]) ? n[sp] : "?";
}

const char *hsaqm_policy_name(enum hsaqm_policy_kind kind)
{
	switch (kind) {
	case HSAQM_POLICY_HPF:
		return "hpf";
	case HSAQM_POLICY_UTIL:
		return "util";
	case HSAQM_POLICY_NONE:
		return "none";
	}
	return "?";
}

/* Under dev->lock. */
static void xq_stats_locked(const struct hsaqm_xq *xq, uint64_t now, struct hsaqm_xq_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->submitted = xq->submitted;
	st->released = xq->released;
	st->completed = xq->completed;
	st->preemptions = xq->preemptions;
	st->preempted_ns = xq->preempted_ns;
	if (xq->preempted && now > xq->preempted_since)
		st->preempted_ns += now - xq->preempted_since;
	st->guardians = xq->guardians;
	st->markers = xq->markers;
	st->priority_conflicts = xq->priority_conflicts;
	st->requested_level = (enum hsaqm_level)xq->level_req;
	st->effective_level = (enum hsaqm_level)xq->level_eff;
	st->mechanism = hsaqm_engine_mechanism(xq, NULL, 0);
	st->confinements = xq->confinements;
	st->latency_count = xq->hist.count;
	st->latency_p50_ns = hsaqm_hist_quantile(&xq->hist, 5000);
	st->latency_p99_ns = hsaqm_hist_quantile(&xq->hist, 9900);
	st->latency_p999_ns = hsaqm_hist_quantile(&xq->hist, 9990);
	st->latency_max_ns = xq->hist.max_ns;
}

int hsaqm_xq_get_stats(const struct hsaqm_xq *xq, struct hsaqm_xq_stats *stats)
{
	if (!hsaqm_xq_valid(xq) || !stats) {
		hsaqm_log_err("NULL or foreign argument (xq %p, stats %p)", (const void *)xq,
			      (void *)stats);
		return -EINVAL;
	}
	pthread_mutex_lock(&xq->dev->lock);
	xq_stats_locked(xq, hsaqm_ctx_now(xq->dev->ctx), stats);
	pthread_mutex_unlock(&xq->dev->lock);
	return 0;
}

int hsaqm_xq_count_priority_conflict(struct hsaqm_xq *xq)
{
	if (!hsaqm_xq_valid(xq)) {
		hsaqm_log_err("%p is not an xqueue", (const void *)xq);
		return -EINVAL;
	}
	pthread_mutex_lock(&xq->dev->lock);
	xq->priority_conflicts++;
	pthread_mutex_unlock(&xq->dev->lock);
	return 0;
}

/*
 * One queue's object of the "queues" array (docs/stats.md). Under dev->lock. @extra: members
 * an integration adds (hsaqm_xq_stats_json()), already rendered, or NULL.
 */
static void json_xq(struct hsaqm_json *j, const struct hsaqm_xq *xq, uint64_t now,
		    const char *extra)
{
	struct hsaqm_xq_stats st;
	char reason[128], mreason[192];
	enum hsaqm_mechanism mech;

	xq_stats_locked(xq, now, &st);
	hsaqm_engine_reason(xq, reason, sizeof(reason));
	mech = hsaqm_engine_mechanism(xq, mreason, sizeof(mreason));
	hsaqm_json_begin_object(j, NULL);
	hsaqm_json_string(j, "name", xq->name);
	hsaqm_json_uint(j, "device", xq->dev->id);
	hsaqm_json_int(j, "priority", xq->priority);
	hsaqm_json_uint(j, "group", xq->group);
	hsaqm_json_uint(j, "share_permille", xq->share);
	hsaqm_json_string(j, "requested_level", hsaqm_level_name(st.requested_level));
	hsaqm_json_string(j, "effective_level", hsaqm_level_name(st.effective_level));
	hsaqm_json_string(j, "level_reason", reason);
	/* How it is stopped (DBG_TRAP, UPDATE_QUEUE, the gate) and why; its CU reserve. */
	hsaqm_json_string(j, "mechanism", hsaqm_mechanism_name(mech));
	hsaqm_json_string(j, "mechanism_reason", mreason);
	hsaqm_json_string(j, "spatial", hsaqm_spatial_name((enum hsaqm_spatial)xq->spatial));
	hsaqm_json_string(j, "spatial_in_force", hsaqm_spatial_name(hsaqm_engine_spatial(xq)));
	hsaqm_json_uint(j, "cu_reserve_permille", xq->reserve);
	hsaqm_json_bool(j, "confined", xq->confined);
	hsaqm_json_uint(j, "confinements", xq->confinements);
	hsaqm_json_string(j, "state", hsaqm_xq_state_name(hsaqm_engine_state(xq)));
	hsaqm_json_bool(j, "held_by_hand", xq->by_hand);
	hsaqm_json_bool(j, "failed_open", xq->failed_open);
	hsaqm_json_uint(j, "lv1_threshold", xq->lv1_threshold);
	hsaqm_json_uint(j, "lv1_batch", xq->lv1_batch);
	hsaqm_json_uint(j, "lv2_interval", xq->lv2_interval);
	hsaqm_json_uint(j, "submitted", st.submitted);
	hsaqm_json_uint(j, "released", st.released);
	hsaqm_json_uint(j, "completed", st.completed);
	hsaqm_json_uint(j, "preemptions", st.preemptions);
	hsaqm_json_uint(j, "preempted_ns", st.preempted_ns);
	hsaqm_json_uint(j, "guardians", st.guardians);
	hsaqm_json_uint(j, "markers", st.markers);
	hsaqm_json_uint(j, "priority_conflicts", st.priority_conflicts);
	/* Dependencies (docs/lib.md): what waits told lib, and what lib did about them. */
	hsaqm_json_uint(j, "dep_waits", xq->dep_waits);
	hsaqm_json_uint(j, "dep_inherited", xq->dep_inherited);
	hsaqm_json_uint(j, "dep_stalls", xq->dep_stalls);
	hsaqm_json_bool(j, "dep_inheriting", xq->inherit_only);
	hsaqm_json_bool(j, "dep_stalled", xq->stalled);
	hsaqm_json_begin_object(j, "latency_ns");
	hsaqm_json_uint(j, "count", st.latency_count);
	hsaqm_json_uint(j, "min", xq->hist.min_ns);
	hsaqm_json_uint(j, "p50", st.latency_p50_ns);
	hsaqm_json_uint(j, "p99", st.latency_p99_ns);
	hsaqm_json_uint(j, "p999", st.latency_p999_ns);
	hsaqm_json_uint(j, "max", st.latency_max_ns);
	hsaqm_json_end_object(j);
	if (extra && *extra)
		hsaqm_json_members(j, extra);
	hsaqm_json_end_object(j);
}

/* A memory stream for one document; json_close() hands its text over (or -ENOMEM). */
static FILE *json_open(struct hsaqm_json *j, char **buf, size_t *len)
{
	FILE *f;

	*buf = NULL;
	f = open_memstream(buf, len);
	if (f)
		hsaqm_json_init(j, f);
	return f;
}

/* @buf is the stream's buffer pointer, which fclose() sets. */
static int json_close(FILE *f, char **buf, char **json)
{
	if (fclose(f) != 0 || !*buf) {
		free(*buf);
		return -ENOMEM;
	}
	*json = *buf;
	return 0;
}

int hsaqm_xq_stats_json(const struct hsaqm_xq *xq, const char *extra, char **json)
{
	struct hsaqm_json j;
	char *buf;
	size_t len;
	FILE *f;

	if (!hsaqm_xq_valid(xq) || !json) {
		hsaqm_log_err("NULL or foreign argument (xq %p, json %p)", (const void *)xq,
			      (void *)json);
		return -EINVAL;
	}
	f = json_open(&j, &buf, &len);
	if (!f)
		return -ENOMEM;
	pthread_mutex_lock(&xq->dev->lock);
	json_xq(&j, xq, hsaqm_ctx_now(xq->dev->ctx), extra);
	pthread_mutex_unlock(&xq->dev->lock);
	return json_close(f, &buf, json);
}

int hsaqm_ctx_stats_json(struct hsaqm_ctx *ctx, char **json)
{
	struct hsaqm_json j;
	char *buf;
	size_t len;
	FILE *f;

	if (!hsaqm_ctx_valid(ctx) || !json) {
		hsaqm_log_err("NULL or foreign argument (ctx %p, json %p)", (const void *)ctx,
			      (void *)json);
		return -EINVAL;
	}
	f = json_open(&j, &buf, &len);
	if (!f)
		return -ENOMEM;
	pthread_mutex_lock(&ctx->lock);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_string(&j, "hsaqm_version", hsaqm_version_string());
	hsaqm_json_begin_array(&j, "devices");
	for (struct hsaqm_dev *dev = ctx->devs; dev; dev = dev->next) {
		pthread_mutex_lock(&dev->lock);
		hsaqm_json_begin_object(&j, NULL);
		hsaqm_json_uint(&j, "device", dev->id);
		hsaqm_json_string(&j, "policy", hsaqm_policy_name(dev->policy.kind));
		hsaqm_json_uint(&j, "floor_period_us", dev->policy.floor_period_us);
		hsaqm_json_uint(&j, "floor_slice_us", dev->policy.floor_slice_us);
		hsaqm_json_uint(&j, "util_period_us", dev->policy.util_period_us);
		hsaqm_json_uint(&j, "queues", dev->nxq);
		hsaqm_json_end_object(&j);
		pthread_mutex_unlock(&dev->lock);
	}
	hsaqm_json_end_array(&j);
	hsaqm_json_begin_array(&j, "queues");
	for (struct hsaqm_dev *dev = ctx->devs; dev; dev = dev->next) {
		pthread_mutex_lock(&dev->lock);
		uint64_t now = hsaqm_ctx_now(ctx);

		for (uint32_t i = 0; i < dev->nxq; i++)
			json_xq(&j, dev->xqs[i], now, NULL);
		pthread_mutex_unlock(&dev->lock);
	}
	hsaqm_json_end_array(&j);
	hsaqm_json_end_object(&j);
	fputc('\n', j.f);
	pthread_mutex_unlock(&ctx->lock);
	return json_close(f, &buf, json);
}
