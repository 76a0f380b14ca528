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

static void json_xq(FILE *f, const struct hsaqm_xq *xq, uint64_t now)
{
	struct hsaqm_xq_stats st;
	char reason[128], mreason[192];
	enum hsaqm_mechanism mech;

	xq_stats_locked(xq, now, &st);
	hsaqm_engine_reason(xq, reason, sizeof(reason));
	mech = hsaqm_engine_mechanism(xq, mreason, sizeof(mreason));
	fputs("{\"name\":", f);
	hsaqm_json_str(f, xq->name);
	fprintf(f, ",\"device\":%u,\"priority\":%d,\"group\":%u,\"share_permille\":%u",
		xq->dev->id, xq->priority, xq->group, xq->share);
	fprintf(f, ",\"requested_level\":\"%s\",\"effective_level\":\"%s\",\"level_reason\":",
		hsaqm_level_name(st.requested_level), hsaqm_level_name(st.effective_level));
	hsaqm_json_str(f, reason);
	fprintf(f, ",\"mechanism\":\"%s\",\"mechanism_reason\":", hsaqm_mechanism_name(mech));
	hsaqm_json_str(f, mreason);
	fprintf(f, ",\"spatial\":\"%s\",\"spatial_in_force\":\"%s\",\"cu_reserve_permille\":%u"
		",\"confined\":%s,\"confinements\":%llu",
		hsaqm_spatial_name((enum hsaqm_spatial)xq->spatial),
		hsaqm_spatial_name(hsaqm_engine_spatial(xq)), xq->reserve,
		xq->confined ? "true" : "false", (unsigned long long)xq->confinements);
	fprintf(f, ",\"state\":\"%s\",\"held_by_hand\":%s,\"failed_open\":%s",
		hsaqm_xq_state_name(hsaqm_engine_state(xq)), xq->by_hand ? "true" : "false",
		xq->failed_open ? "true" : "false");
	fprintf(f, ",\"lv1_threshold\":%u,\"lv1_batch\":%u,\"lv2_interval\":%u", xq->lv1_threshold,
		xq->lv1_batch, xq->lv2_interval);
	fprintf(f,
		",\"submitted\":%llu,\"released\":%llu,\"completed\":%llu,\"preemptions\":%llu"
		",\"preempted_ns\":%llu,\"guardians\":%llu,\"markers\":%llu",
		(unsigned long long)st.submitted, (unsigned long long)st.released,
		(unsigned long long)st.completed, (unsigned long long)st.preemptions,
		(unsigned long long)st.preempted_ns, (unsigned long long)st.guardians,
		(unsigned long long)st.markers);
	fprintf(f,
		",\"latency_ns\":{\"count\":%llu,\"min\":%llu,\"p50\":%llu,\"p99\":%llu,\"p999\":%llu"
		",\"max\":%llu}}",
		(unsigned long long)st.latency_count, (unsigned long long)xq->hist.min_ns,
		(unsigned long long)st.latency_p50_ns, (unsigned long long)st.latency_p99_ns,
		(unsigned long long)st.latency_p999_ns, (unsigned long long)st.latency_max_ns);
}

int hsaqm_ctx_stats_json(struct hsaqm_ctx *ctx, char **json)
{
	char *buf = NULL;
	size_t len = 0;
	bool first_dev = true, first_xq = true;
	FILE *f;

	if (!hsaqm_ctx_valid(ctx) || !json) {
		hsaqm_log_err("NULL or foreign argument (ctx %p, json %p)", (const void *)ctx,
			      (void *)json);
		return -EINVAL;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	pthread_mutex_lock(&ctx->lock);
	fprintf(f, "{\"hsaqm_version\":\"%s\",\"devices\":[", hsaqm_version_string());
	for (struct hsaqm_dev *dev = ctx->devs; dev; dev = dev->next) {
		pthread_mutex_lock(&dev->lock);
		fprintf(f,
			"%s{\"device\":%u,\"policy\":\"%s\",\"floor_period_us\":%u,\"floor_slice_us\":%u"
			",\"util_period_us\":%u,\"queues\":%u}",
			first_dev ? "" : ",", dev->id, hsaqm_policy_name(dev->policy.kind),
			dev->policy.floor_period_us, dev->policy.floor_slice_us,
			dev->policy.util_period_us, dev->nxq);
		pthread_mutex_unlock(&dev->lock);
		first_dev = false;
	}
	fputs("],\"queues\":[", f);
	for (struct hsaqm_dev *dev = ctx->devs; dev; dev = dev->next) {
		pthread_mutex_lock(&dev->lock);
		uint64_t now = hsaqm_ctx_now(ctx);

		for (uint32_t i = 0; i < dev->nxq; i++) {
			if (!first_xq)
				fputc(',', f);
			json_xq(f, dev->xqs[i], now);
			first_xq = false;
		}
		pthread_mutex_unlock(&dev->lock);
	}
	fputs("]}\n", f);
	pthread_mutex_unlock(&ctx->lock);
	if (fclose(f) != 0 || !buf) {
		free(buf);
		return -ENOMEM;
	}
	*json = buf;
	return 0;
}
