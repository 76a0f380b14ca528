/* SPDX-License-Identifier: MIT */
/* Names, per-queue statistics and reports, and their JSON serialisation (schema: docs/stats.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-common/json.h"
#include "hsaqm-common/log.h"
#include "hsaqm-common/stats_json.h"
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

/* hsaqm_xq_get_report()'s answer, under dev->lock. */
static void xq_report_locked(const struct hsaqm_xq *xq, uint64_t now, struct hsaqm_xq_report *r)
{
	memset(r, 0, sizeof(*r));
	r->id = hsaqm_xq_get_id(xq);
	hsaqm_xq_info_locked(xq, &r->info);
	xq_stats_locked(xq, now, &r->stats);
	hsaqm_xq_deps_locked(xq, &r->deps);
	r->spatial_in_force = hsaqm_engine_spatial(xq);
	r->lv1_threshold = xq->lv1_threshold;
	r->lv1_batch = xq->lv1_batch;
	r->lv2_interval = xq->lv2_interval;
	r->latency_min_ns = xq->hist.min_ns;
}

int hsaqm_xq_get_report(const struct hsaqm_xq *xq, struct hsaqm_xq_report *report)
{
	if (!hsaqm_xq_valid(xq) || !report) {
		hsaqm_log_err("NULL or foreign argument (xq %p, report %p)", (const void *)xq,
			      (void *)report);
		return -EINVAL;
	}
	pthread_mutex_lock(&xq->dev->lock);
	xq_report_locked(xq, hsaqm_ctx_now(xq->dev->ctx), report);
	pthread_mutex_unlock(&xq->dev->lock);
	return 0;
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

		for (uint32_t i = 0; i < dev->nxq; i++) {
			struct hsaqm_xq_report r;

			xq_report_locked(dev->xqs[i], now, &r);
			hsaqm_json_begin_object(&j, NULL);
			hsaqm_xq_report_members(&j, &r);
			hsaqm_json_end_object(&j);
		}
		pthread_mutex_unlock(&dev->lock);
	}
	hsaqm_json_end_array(&j);
	hsaqm_json_end_object(&j);
	fputc('\n', j.f);
	pthread_mutex_unlock(&ctx->lock);
	return json_close(f, &buf, json);
}
