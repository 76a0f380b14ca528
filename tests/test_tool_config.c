/* SPDX-License-Identifier: MIT */
/*
 * libhsaqm-tool.so's settings: the names, the numbers, and bad values falling back to the
 * defaults.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_tool.h"
#include "t_cunit.h"
#include "t_json.h"
#include "t_tool.h"
#include "tool_internal.h"
#include "t_tool_model.h"

/* ---- Settings ------------------------------------------------------------------------------ */

static const char *const *g_env_table;

static const char *table_get(const char *name)
{
	size_t n = strlen(name);

	for (const char *const *e = g_env_table; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static void test_config_names_numbers_and_bad_values_fall_back(void)
{
	struct hsaqm_tool_config c;
	int p;
	enum hsaqm_level lv;
	static const char *const good[] = {
		"HSAQM_PRIORITY=online", "HSAQM_LEVEL=lv1", "HSAQM_LV1_THRESHOLD=4",
		"HSAQM_LV1_BATCH=2", "HSAQM_LV2_INTERVAL=3", "HSAQM_POLICY=util",
		"HSAQM_FLOOR=10000:1000", "HSAQM_PRIORITY_STEP=20", "HSAQM_STATS_FILE=/tmp/x.json",
		NULL,
	};
	static const char *const bad[] = {
		"HSAQM_PRIORITY=urgent", "HSAQM_LEVEL=lv9", "HSAQM_LV1_THRESHOLD=0",
		"HSAQM_LV2_INTERVAL=abc", "HSAQM_POLICY=fifo", "HSAQM_FLOOR=5:10",
		"HSAQM_PRIORITY_STEP=-1", "HSAQM_TOOL_DISABLE=xyz", NULL,
	};

	CU_ASSERT_EQUAL(hsaqm_tool_parse_priority("high", &p), 0);
	CU_ASSERT_EQUAL(p, HSAQM_TOOL_PRIORITY_HIGH);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_priority("OFFLINE", &p), 0);
	CU_ASSERT_EQUAL(p, HSAQM_TOOL_PRIORITY_LOW);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_priority("-100", &p), 0);
	CU_ASSERT_EQUAL(p, -100);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_priority("101", &p), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_priority("5x", &p), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_priority("", &p), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_level("3", &lv), 0);
	CU_ASSERT_EQUAL(lv, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_level("none", &lv), 0);
	CU_ASSERT_EQUAL(lv, HSAQM_LEVEL_NONE);
	CU_ASSERT_EQUAL(hsaqm_tool_parse_level("4", &lv), -EINVAL);

	g_env_table = good;
	hsaqm_tool_config_read(&c, table_get);
	CU_ASSERT_EQUAL(c.bad, 0u);
	CU_ASSERT_EQUAL(c.priority, HSAQM_TOOL_PRIORITY_HIGH);
	CU_ASSERT_EQUAL(c.level, HSAQM_LEVEL_1);
	CU_ASSERT_EQUAL(c.lv1_threshold, 4u);
	CU_ASSERT_EQUAL(c.lv1_batch, 2u);
	CU_ASSERT_EQUAL(c.lv2_interval, 3u);
	CU_ASSERT_EQUAL(c.policy.kind, HSAQM_POLICY_UTIL);
	CU_ASSERT_EQUAL(c.policy.floor_period_us, 10000u);
	CU_ASSERT_EQUAL(c.policy.floor_slice_us, 1000u);
	CU_ASSERT_EQUAL(c.priority_step, 20);
	CU_ASSERT_STRING_EQUAL(c.stats_file, "/tmp/x.json");

	/* Each bad value: counted (one message each) and the default kept. */
	g_env_table = bad;
	hsaqm_tool_config_read(&c, table_get);
	CU_ASSERT_EQUAL(c.bad, 8u);
	CU_ASSERT_FALSE(c.disabled); /* "xyz" is no switch: said, and the default (enabled) */
	CU_ASSERT_EQUAL(c.priority, 0);
	CU_ASSERT_EQUAL(c.level, HSAQM_TOOL_LEVEL_DEFAULT);
	CU_ASSERT_EQUAL(c.lv1_threshold, 0u);
	CU_ASSERT_EQUAL(c.lv2_interval, 0u);
	CU_ASSERT_EQUAL(c.policy.kind, HSAQM_POLICY_HPF);
	CU_ASSERT_EQUAL(c.policy.floor_period_us, 0u);
	CU_ASSERT_EQUAL(c.priority_step, HSAQM_TOOL_PRIORITY_STEP_DEFAULT);

	/* The disable switch takes the usual spellings, and nothing else. */
	static const char *const off[] = { "HSAQM_TOOL_DISABLE=On", NULL };
	static const char *const on[] = { "HSAQM_TOOL_DISABLE=false", NULL };
	g_env_table = off;
	hsaqm_tool_config_read(&c, table_get);
	CU_ASSERT(c.disabled && c.bad == 0);
	g_env_table = on;
	hsaqm_tool_config_read(&c, table_get);
	CU_ASSERT(!c.disabled && c.bad == 0);

	/* A batch above the threshold is refused (lib would refuse the queue). */
	static const char *const batch[] = { "HSAQM_LV1_THRESHOLD=2", "HSAQM_LV1_BATCH=8", NULL };
	g_env_table = batch;
	hsaqm_tool_config_read(&c, table_get);
	CU_ASSERT_EQUAL(c.bad, 1u);
	CU_ASSERT_EQUAL(c.lv1_threshold, 2u);
	CU_ASSERT_EQUAL(c.lv1_batch, 0u);
}

static const struct t_case cases[] = {
	T_CASE(test_config_names_numbers_and_bad_values_fall_back),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "tool-config", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	if (!t_tool_path())
		return t_skip("tool-config", "HSAQM_TEST_TOOL_LIB is not set (run through meson test)");
	return t_run("tool-config", suites);
}
