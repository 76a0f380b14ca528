/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-common/stats_json.h - lib's per-queue statistics object (docs/stats.md) written from a
 * struct hsaqm_xq_report: the one place that names its members. hsaqm_ctx_stats_json() writes
 * it, and so does the tool library for each of its queues, appending members of its own to the
 * same object (docs/tool.md). Header-only and not installed, as hsaqm-common/json.h: the tool
 * links libhsaqm.so, which exports no writer.
 */
#ifndef HSAQM_COMMON_STATS_JSON_H
#define HSAQM_COMMON_STATS_JSON_H

#include "hsaqm/hsaqm.h"
#include "hsaqm-common/json.h"

/* Lib's members of one queue's object, into the object the caller opened (and closes). */
static inline void hsaqm_xq_report_members(struct hsaqm_json *j, const struct hsaqm_xq_report *r)
{
	const struct hsaqm_xq_info *i = &r->info;
	const struct hsaqm_xq_stats *st = &r->stats;

	hsaqm_json_string(j, "name", i->name);
	hsaqm_json_uint(j, "device", i->device);
	hsaqm_json_int(j, "priority", i->priority);
	hsaqm_json_uint(j, "group", i->group);
	hsaqm_json_uint(j, "share_permille", i->share_permille);
	hsaqm_json_string(j, "requested_level", hsaqm_level_name(i->requested_level));
	hsaqm_json_string(j, "effective_level", hsaqm_level_name(i->effective_level));
	hsaqm_json_string(j, "level_reason", i->level_reason);
	/* How it is stopped (DBG_TRAP, UPDATE_QUEUE, the gate) and why; its CU reserve. */
	hsaqm_json_string(j, "mechanism", hsaqm_mechanism_name(i->mechanism));
	hsaqm_json_string(j, "mechanism_reason", i->mechanism_reason);
	hsaqm_json_string(j, "spatial", hsaqm_spatial_name(i->spatial));
	hsaqm_json_string(j, "spatial_in_force", hsaqm_spatial_name(r->spatial_in_force));
	hsaqm_json_uint(j, "cu_reserve_permille", i->cu_reserve_permille);
	hsaqm_json_bool(j, "confined", i->confined);
	hsaqm_json_uint(j, "confinements", st->confinements);
	hsaqm_json_string(j, "state", hsaqm_xq_state_name(i->state));
	hsaqm_json_bool(j, "held_by_hand", i->held_by_hand);
	hsaqm_json_bool(j, "failed_open", i->failed_open);
	hsaqm_json_uint(j, "lv1_threshold", r->lv1_threshold);
	hsaqm_json_uint(j, "lv1_batch", r->lv1_batch);
	hsaqm_json_uint(j, "lv2_interval", r->lv2_interval);
	hsaqm_json_uint(j, "submitted", st->submitted);
	hsaqm_json_uint(j, "released", st->released);
	hsaqm_json_uint(j, "completed", st->completed);
	hsaqm_json_uint(j, "preemptions", st->preemptions);
	hsaqm_json_uint(j, "preempted_ns", st->preempted_ns);
	hsaqm_json_uint(j, "guardians", st->guardians);
	hsaqm_json_uint(j, "markers", st->markers);
	hsaqm_json_uint(j, "priority_conflicts", st->priority_conflicts);
	/* Dependencies (docs/lib.md): what waits told lib, and what lib did about them. */
	hsaqm_json_uint(j, "dep_waits", r->deps.waits);
	hsaqm_json_uint(j, "dep_inherited", r->deps.inherited);
	hsaqm_json_uint(j, "dep_stalls", r->deps.stalls);
	hsaqm_json_bool(j, "dep_inheriting", r->deps.inheriting);
	hsaqm_json_bool(j, "dep_stalled", r->deps.stalled);
	hsaqm_json_begin_object(j, "latency_ns");
	hsaqm_json_uint(j, "count", st->latency_count);
	hsaqm_json_uint(j, "min", r->latency_min_ns);
	hsaqm_json_uint(j, "p50", st->latency_p50_ns);
	hsaqm_json_uint(j, "p99", st->latency_p99_ns);
	hsaqm_json_uint(j, "p999", st->latency_p999_ns);
	hsaqm_json_uint(j, "max", st->latency_max_ns);
	hsaqm_json_end_object(j);
}

#endif /* HSAQM_COMMON_STATS_JSON_H */
