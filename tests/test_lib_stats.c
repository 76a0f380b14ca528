/* SPDX-License-Identifier: MIT */
/* Statistics: submission-to-completion latency, time preempted, and a JSON export that parses. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_backend.h"
#include "t_cunit.h"
#include "hsaqm-common/json.h"
#include "hsaqm-common/log.h"
#include "t_json.h"
#include "t_time.h"
#include "xq_internal.h"

#define US 1000ull
#define MS 1000000ull

static void test_json_checker_rejects_broken_documents(void)
{
	CU_ASSERT_TRUE(t_json_valid("{\"a\":[1,2.5e3,-0,true,null,\"x\\u00e9\\\"\"]}"));
	CU_ASSERT_FALSE(t_json_valid("{\"a\":1,}"));
	CU_ASSERT_FALSE(t_json_valid("{\"a\" 1}"));
	CU_ASSERT_FALSE(t_json_valid("[01]"));
	CU_ASSERT_FALSE(t_json_valid("\"tab\there\""));
	CU_ASSERT_FALSE(t_json_valid("{} x"));
}

/* -- latency ------------------------------------------------------------------------- */

static void test_latency_is_doorbell_to_marker_per_batch(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq bq;
	struct hsaqm_xq_stats st;
	uint64_t now = t_clock_ns;

	t_bq_init(&bq, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &bq, 0, 0, HSAQM_LEVEL_2);
	/* 100 batches, the i-th completing i * 10 us after its doorbell. */
	for (int i = 1; i <= 100; i++) {
		t_clock_set(ctx, now);
		t_bq_submit(&bq, 3);
		now += (uint64_t)i * 10 * US;
		t_clock_set(ctx, now);
		t_bq_run(&bq, UINT64_MAX);
		now += 1 * MS;
	}
	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(bq.xq, &st), 0);
	CU_ASSERT_EQUAL(st.latency_count, 100);
	CU_ASSERT_EQUAL(st.submitted, 300);
	CU_ASSERT_EQUAL(st.completed, 300);
	CU_ASSERT_DOUBLE_EQUAL(st.latency_p50_ns, 500 * US, 500 * US * 0.016);
	CU_ASSERT_DOUBLE_EQUAL(st.latency_p99_ns, 990 * US, 990 * US * 0.016);
	CU_ASSERT_DOUBLE_EQUAL(st.latency_p999_ns, 1000 * US, 1000 * US * 0.016);
	CU_ASSERT_EQUAL(st.latency_max_ns, 1000 * US);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

static void test_latency_ring_merges_batches_when_full(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq bq;
	struct hsaqm_xq_stats st;
	uint64_t t0 = t_clock_ns;

	t_bq_init(&bq, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &bq, 0, 0, HSAQM_LEVEL_NONE);
	for (int i = 0; i < 100; i++) {
		t_clock_set(ctx, t0 + (uint64_t)i * US);
		t_bq_submit(&bq, 1);
	}
	t_clock_set(ctx, t0 + 1 * MS);
	t_bq_run(&bq, UINT64_MAX);
	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(bq.xq, &st), 0);
	/* 64 entries: the last one took batches 63..99 and kept batch 63's time (an upper bound). */
	CU_ASSERT_EQUAL(st.latency_count, HSAQM_XQ_LAT_RING);
	CU_ASSERT_EQUAL(st.latency_max_ns, 1 * MS);
	CU_ASSERT_EQUAL(st.completed, 100);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

/*
 * -- latency stamps (lib/ctx.c): the TSC where the kernel's clock is the TSC, else the clock.
 * The bounds are brackets of clock readings around the stamps, so a stalled host widens them
 * instead of failing the test.
 */

/* The kernel builds CLOCK_MONOTONIC from the TSC here (what lib checks, read independently). */
static bool t_kernel_clock_is_tsc(void)
{
	char buf[16] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	return strcmp(buf, "tsc\n") == 0;
}

static void test_stamps_use_the_tsc_only_where_the_kernel_clock_is_the_tsc(void)
{
	struct hsaqm_ctx *ctx = NULL, *manual = t_ctx_manual();

	CU_ASSERT_FATAL(hsaqm_ctx_create(&ctx) == 0);
	CU_ASSERT_EQUAL(ctx->stamp_tsc, HSAQM_HAVE_TSC && t_kernel_clock_is_tsc());
	/* A context with a clock of its own (the model's time) stamps with that clock. */
	CU_ASSERT_FALSE(manual->stamp_tsc);
	t_clock_set(manual, 123 * US);
	CU_ASSERT_EQUAL(hsaqm_ctx_stamp(manual, HSAQM_NOW_UNREAD), 123 * US);
	CU_ASSERT_EQUAL(hsaqm_ctx_stamp_ns(manual, 5 * US), 5 * US);
	hsaqm_ctx_destroy(manual);
	hsaqm_ctx_destroy(ctx);
}

static void test_stamps_follow_the_clock_when_told_to(void)
{
	struct hsaqm_ctx *ctx = NULL;
	uint64_t a, s, b;

	setenv("HSAQM_STAMP_CLOCK", "1", 1);
	CU_ASSERT_FATAL(hsaqm_ctx_create(&ctx) == 0);
	unsetenv("HSAQM_STAMP_CLOCK");
	CU_ASSERT_FALSE(ctx->stamp_tsc);
	a = t_mono_ns();
	s = hsaqm_ctx_stamp(ctx, HSAQM_NOW_UNREAD);
	b = t_mono_ns();
	CU_ASSERT_TRUE(a <= s && s <= b);
	hsaqm_ctx_destroy(ctx);
}

static void test_a_bad_stamp_clock_value_is_said_once_and_ignored(void)
{
	struct hsaqm_ctx *a = NULL, *b = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *sink = open_memstream(&text, &len);

	CU_ASSERT_FATAL(sink != NULL);
	hsaqm_log_set_sink(sink);
	setenv("HSAQM_STAMP_CLOCK", "yes", 1);
	CU_ASSERT_FATAL(hsaqm_ctx_create(&a) == 0);
	CU_ASSERT_FATAL(hsaqm_ctx_create(&b) == 0);
	unsetenv("HSAQM_STAMP_CLOCK");
	hsaqm_log_set_sink(NULL);
	fclose(sink);
	/* Ignored: the default stands (the TSC where the kernel's clock is the TSC). */
	CU_ASSERT_EQUAL(a->stamp_tsc, HSAQM_HAVE_TSC && t_kernel_clock_is_tsc());
	/* Said once, naming the variable and the value, for two contexts. */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "HSAQM_STAMP_CLOCK=\"yes\" is not 0 or 1"));
	CU_ASSERT_PTR_NULL(strstr(strstr(text, "HSAQM_STAMP_CLOCK") + 1, "HSAQM_STAMP_CLOCK"));
	free(text);
	hsaqm_ctx_destroy(b);
	hsaqm_ctx_destroy(a);
}

static void test_stamp_differences_are_the_clock_s_nanoseconds(void)
{
	struct hsaqm_ctx *ctx = NULL;

	CU_ASSERT_FATAL(hsaqm_ctx_create(&ctx) == 0);
	for (int i = 0; i < 3; i++) {
		uint64_t a = t_mono_ns(), s0 = hsaqm_ctx_stamp(ctx, HSAQM_NOW_UNREAD);
		uint64_t b = t_mono_ns(), c, s1, d, ns;

		t_sleep_ms(10);
		c = t_mono_ns();
		s1 = hsaqm_ctx_stamp(ctx, HSAQM_NOW_UNREAD);
		d = t_mono_ns();
		ns = hsaqm_ctx_stamp_ns(ctx, s1 - s0);
		/* The calibration is within 0.1 %; 1 us covers the stamp's own placement. */
		CU_ASSERT_TRUE(ns + 1 * US >= (c - b) - (c - b) / 1000);
		CU_ASSERT_TRUE(ns <= (d - a) + (d - a) / 1000 + 1 * US);
	}
	hsaqm_ctx_destroy(ctx);
}

static void test_latency_with_the_real_clock_is_doorbell_to_marker(void)
{
	struct hsaqm_ctx *ctx = NULL;
	struct hsaqm_xq_stats st;
	struct t_bq bq;
	uint64_t a, b, c, d;

	CU_ASSERT_FATAL(hsaqm_ctx_create(&ctx) == 0);
	t_bq_init(&bq, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &bq, 0, 0, HSAQM_LEVEL_2);
	a = t_mono_ns();
	t_bq_submit(&bq, 2);
	b = t_mono_ns();
	t_sleep_ms(5);
	c = t_mono_ns();
	t_bq_run(&bq, UINT64_MAX);
	d = t_mono_ns();
	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(bq.xq, &st), 0);
	CU_ASSERT_EQUAL(st.latency_count, 1);
	CU_ASSERT_EQUAL(st.completed, 2);
	CU_ASSERT_TRUE(st.latency_max_ns + 1 * US >= (c - b) - (c - b) / 1000);
	CU_ASSERT_TRUE(st.latency_max_ns <= (d - a) + (d - a) / 1000 + 1 * US);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&bq);
}

static void test_time_preempted_counts_the_current_spell(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq hi, lo;
	struct hsaqm_xq_stats st;
	uint64_t t0 = t_clock_ns;

	t_bq_init(&hi, HSAQM_LEVEL_3);
	t_bq_init(&lo, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &hi, 0, 1, HSAQM_LEVEL_2);
	t_bq_attach(ctx, &lo, 0, 0, HSAQM_LEVEL_2);
	t_bq_submit(&lo, 5);
	t_bq_submit(&hi, 5);
	t_clock_set(ctx, t0 + 3 * MS);
	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(lo.xq, &st), 0);
	CU_ASSERT_EQUAL(st.preempted_ns, 3 * MS);
	CU_ASSERT_EQUAL(st.preemptions, 1);
	t_clock_set(ctx, t0 + 5 * MS);
	t_bq_run(&hi, UINT64_MAX);
	t_clock_set(ctx, t0 + 9 * MS);
	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(lo.xq, &st), 0);
	CU_ASSERT_EQUAL(st.preempted_ns, 5 * MS);
	CU_ASSERT_EQUAL(st.preemptions, 1);
	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(hi.xq, &st), 0);
	CU_ASSERT_EQUAL(st.preemptions, 0);
	CU_ASSERT_EQUAL(st.preempted_ns, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&hi);
	t_bq_fini(&lo);
}

/* -- JSON ---------------------------------------------------------------------------- */

static void test_stats_json_parses_and_has_the_documented_fields(void)
{
	static const char *const keys[] = {
		"\"hsaqm_version\":", "\"devices\":", "\"policy\":\"util\"", "\"floor_period_us\":",
		"\"util_period_us\":", "\"queues\":", "\"name\":", "\"device\":", "\"priority\":",
		"\"group\":", "\"share_permille\":", "\"requested_level\":\"lv3\"",
		"\"effective_level\":\"lv1\"", "\"level_reason\":", "\"state\":\"preempted\"",
		"\"held_by_hand\":", "\"failed_open\":false", "\"lv1_threshold\":", "\"lv1_batch\":",
		"\"lv2_interval\":", "\"submitted\":", "\"released\":", "\"completed\":",
		"\"preemptions\":", "\"preempted_ns\":", "\"guardians\":", "\"markers\":",
		"\"priority_conflicts\":0,", "\"dep_waits\":0,", "\"dep_inherited\":0,",
		"\"dep_stalls\":0,", "\"dep_inheriting\":false,", "\"dep_stalled\":false,",
		"\"latency_ns\":", "\"count\":", "\"min\":", "\"p50\":", "\"p99\":", "\"p999\":",
		"\"max\":",
	};
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct hsaqm_policy_config util = { .kind = HSAQM_POLICY_UTIL };
	struct t_bq q[3];
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_3, .name = "we\"ird\\name\n" };
	char *json = NULL;

	for (int i = 0; i < 3; i++)
		t_bq_init(&q[i], i == 0 ? HSAQM_LEVEL_1 : HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, &q[0], &q[0].xq), 0);
	t_bq_attach(ctx, &q[1], 0, 5, HSAQM_LEVEL_2);
	t_bq_attach(ctx, &q[2], 7, 0, HSAQM_LEVEL_NONE);
	CU_ASSERT_EQUAL(hsaqm_ctx_set_policy(ctx, 7, &util), 0);
	t_bq_submit(&q[0], 20);
	t_bq_submit(&q[1], 2);
	t_bq_submit(&q[2], 2);
	t_bq_run(&q[2], UINT64_MAX);

	CU_ASSERT_EQUAL_FATAL(hsaqm_ctx_stats_json(ctx, &json), 0);
	CU_ASSERT_TRUE(t_json_valid(json));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!strstr(json, keys[i]))
			printf("missing %s in %s\n", keys[i], json);
		CU_ASSERT_PTR_NOT_NULL(strstr(json, keys[i]));
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"we\\\"ird\\\\name\\u000a\""));
	free(json);
	hsaqm_ctx_destroy(ctx);
	for (int i = 0; i < 3; i++)
		t_bq_fini(&q[i]);
}

static void test_stats_json_of_empty_context_parses(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	char *json = NULL;

	CU_ASSERT_EQUAL_FATAL(hsaqm_ctx_stats_json(ctx, &json), 0);
	CU_ASSERT_TRUE(t_json_valid(json));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"queues\":[]"));
	free(json);
	hsaqm_ctx_destroy(ctx);
}

/* One queue's report is what the context's document says of it, and what the single getters say. */
static void test_xq_report_is_the_ctx_documents_entry_and_the_getters_answers(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct hsaqm_xq_report r;
	struct hsaqm_xq_info info;
	struct hsaqm_xq_stats st;
	struct hsaqm_xq_deps deps;
	struct t_bq q;
	char *all = NULL, obj[2048], want[128];

	t_bq_init(&q, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &q, 0, 5, HSAQM_LEVEL_2);
	t_bq_submit(&q, 4);
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_set_launch(q.xq, 12, 6, 3), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_get_report(q.xq, &r), 0);
	/* A manual context's clock does not move: the getters answer for the same instant. */
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_get_info(q.xq, &info), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_get_stats(q.xq, &st), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_get_deps(q.xq, &deps), 0);
	CU_ASSERT_EQUAL(memcmp(&r.info, &info, sizeof(info)), 0);
	CU_ASSERT_EQUAL(memcmp(&r.stats, &st, sizeof(st)), 0);
	CU_ASSERT_EQUAL(memcmp(&r.deps, &deps, sizeof(deps)), 0);
	CU_ASSERT_EQUAL(r.id, hsaqm_xq_get_id(q.xq));
	CU_ASSERT_EQUAL(r.lv1_threshold, 12);
	CU_ASSERT_EQUAL(r.lv1_batch, 6);
	CU_ASSERT_EQUAL(r.lv2_interval, 3);
	CU_ASSERT_EQUAL(r.stats.submitted, 4);
	CU_ASSERT_EQUAL(r.info.priority, 5);
	/* The document writes the report's values under docs/stats.md's names. */
	CU_ASSERT_EQUAL_FATAL(hsaqm_ctx_stats_json(ctx, &all), 0);
	CU_ASSERT_FATAL(t_json_object_with(all, "\"lv2_interval\":", obj, sizeof(obj)));
	snprintf(want, sizeof(want), "\"lv1_threshold\":%u,\"lv1_batch\":%u,\"lv2_interval\":%u,",
		 r.lv1_threshold, r.lv1_batch, r.lv2_interval);
	CU_ASSERT_PTR_NOT_NULL(strstr(obj, want));
	snprintf(want, sizeof(want), "\"submitted\":%llu,\"released\":%llu,",
		 (unsigned long long)r.stats.submitted, (unsigned long long)r.stats.released);
	CU_ASSERT_PTR_NOT_NULL(strstr(obj, want));
	snprintf(want, sizeof(want), "\"effective_level\":\"%s\"",
		 hsaqm_level_name(r.info.effective_level));
	CU_ASSERT_PTR_NOT_NULL(strstr(obj, want));
	CU_ASSERT_EQUAL(hsaqm_xq_get_report(NULL, &r), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_get_report(q.xq, NULL), -EINVAL);
	free(all);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&q);
}

/* A priority an integration could not honour is counted, in get_stats and the JSON alike. */
static void test_priority_conflicts_are_counted_per_queue(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct hsaqm_xq_stats st;
	struct t_bq a, b;
	char *js = NULL;

	t_bq_init(&a, HSAQM_LEVEL_3);
	t_bq_init(&b, HSAQM_LEVEL_3);
	t_bq_attach(ctx, &a, 0, 0, HSAQM_LEVEL_2);
	t_bq_attach(ctx, &b, 0, 0, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(hsaqm_xq_count_priority_conflict(a.xq), 0);
	CU_ASSERT_EQUAL(hsaqm_xq_count_priority_conflict(a.xq), 0);
	CU_ASSERT_EQUAL(hsaqm_xq_count_priority_conflict(NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(a.xq, &st), 0);
	CU_ASSERT_EQUAL(st.priority_conflicts, 2);
	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(b.xq, &st), 0);
	CU_ASSERT_EQUAL(st.priority_conflicts, 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_ctx_stats_json(ctx, &js), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"priority_conflicts\":2,"));
	free(js);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&a);
	t_bq_fini(&b);
}

/* The writer keeps its commas at every depth and writes what JSON cannot hold as null. */
static void test_json_writer_separates_members_at_every_depth(void)
{
	struct hsaqm_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	hsaqm_json_init(&j, f);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_begin_array(&j, "a");
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_end_object(&j);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_int(&j, "i", -3);
	hsaqm_json_end_object(&j);
	hsaqm_json_uint(&j, NULL, 18446744073709551615ull);
	hsaqm_json_end_array(&j);
	hsaqm_json_fixed(&j, "f", 1.0 / 3.0, 3);
	hsaqm_json_number(&j, "g", 0.0 / 0.0, 6);
	hsaqm_json_bool(&j, "b", true);
	hsaqm_json_string(&j, "s", "t\x01\"");
	hsaqm_json_raw(&j, "r", NULL);
	hsaqm_json_end_object(&j);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	CU_ASSERT_STRING_EQUAL(buf, "{\"a\":[{},{\"i\":-3},18446744073709551615],\"f\":0.333,"
				    "\"g\":null,\"b\":true,\"s\":\"t\\u0001\\\"\",\"r\":null}");
	CU_ASSERT(t_json_valid(buf));
	free(buf);
}

/* A document for people: indented members, empty containers as [] and {}, inline lists on a line. */
static void test_json_writer_indents_and_keeps_inline_lists_on_one_line(void)
{
	struct hsaqm_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	hsaqm_json_init_pretty(&j, f, 2);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_int(&j, "a", 1);
	hsaqm_json_begin_array(&j, "empty");
	hsaqm_json_end_array(&j);
	hsaqm_json_begin_array(&j, "l");
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_null(&j, "n");
	hsaqm_json_begin_inline_array(&j, "in");
	hsaqm_json_uint(&j, NULL, 1);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_uint(&j, "x", 2);
	hsaqm_json_bool(&j, "y", false);
	hsaqm_json_end_object(&j);
	hsaqm_json_end_array(&j);
	hsaqm_json_end_object(&j);
	hsaqm_json_end_array(&j);
	hsaqm_json_begin_object(&j, "o");
	hsaqm_json_end_object(&j);
	hsaqm_json_end_object(&j);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	CU_ASSERT_STRING_EQUAL(buf, "{\n  \"a\": 1,\n  \"empty\": [],\n  \"l\": [\n    {\n"
				    "      \"n\": null,\n      \"in\": [1, {\"x\": 2, \"y\": false}]\n"
				    "    }\n  ],\n  \"o\": {}\n}");
	CU_ASSERT(t_json_valid(buf));
	free(buf);
	/* Indent 0: one line, ", " and ": " (hsaqmctl's documents). */
	buf = NULL;
	f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	hsaqm_json_init_pretty(&j, f, 0);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_int(&j, "a", 1);
	hsaqm_json_begin_array(&j, "b");
	hsaqm_json_string(&j, NULL, "c");
	hsaqm_json_string(&j, NULL, "d");
	hsaqm_json_end_array(&j);
	hsaqm_json_end_object(&j);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	CU_ASSERT_STRING_EQUAL(buf, "{\"a\": 1, \"b\": [\"c\", \"d\"]}");
	free(buf);
}

static const struct t_case stats_cases[] = {
	T_CASE(test_json_checker_rejects_broken_documents),
	T_CASE(test_latency_is_doorbell_to_marker_per_batch),
	T_CASE(test_latency_ring_merges_batches_when_full),
	T_CASE(test_stamps_use_the_tsc_only_where_the_kernel_clock_is_the_tsc),
	T_CASE(test_stamps_follow_the_clock_when_told_to),
	T_CASE(test_a_bad_stamp_clock_value_is_said_once_and_ignored),
	T_CASE(test_stamp_differences_are_the_clock_s_nanoseconds),
	T_CASE(test_latency_with_the_real_clock_is_doorbell_to_marker),
	T_CASE(test_time_preempted_counts_the_current_spell),
	T_CASE(test_stats_json_parses_and_has_the_documented_fields),
	T_CASE(test_stats_json_of_empty_context_parses),
	T_CASE(test_xq_report_is_the_ctx_documents_entry_and_the_getters_answers),
	T_CASE(test_json_writer_separates_members_at_every_depth),
	T_CASE(test_json_writer_indents_and_keeps_inline_lists_on_one_line),
	T_CASE(test_priority_conflicts_are_counted_per_queue),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "lib-stats", NULL, NULL, stats_cases },
		T_SUITES_END,
	};
	return t_run("test-lib-stats", suites);
}
