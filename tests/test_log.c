/* SPDX-License-Identifier: MIT */
/* The logger is silent by default, honours HSAQM_LOG levels, and rejects bad values with one message. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-common/log.h"
#include "t_cunit.h"

static char *capture(void (*emit)(void))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *sink = open_memstream(&buf, &len);

	hsaqm_log_set_sink(sink);
	emit();
	hsaqm_log_set_sink(NULL);
	fclose(sink);
	return buf;
}

static void emit_all_levels(void)
{
	hsaqm_log_err("e%d", 1);
	hsaqm_log_warn("w%d", 2);
	hsaqm_log_info("i%d", 3);
	hsaqm_log_debug("d%d", 4);
}

static void test_log_parse_accepts_names_and_digits(void)
{
	int level = -1;

	CU_ASSERT_EQUAL(hsaqm_log_parse_level("debug", &level), 0);
	CU_ASSERT_EQUAL(level, HSAQM_LOG_DEBUG);
	CU_ASSERT_EQUAL(hsaqm_log_parse_level("WARN", &level), 0);
	CU_ASSERT_EQUAL(level, HSAQM_LOG_WARN);
	CU_ASSERT_EQUAL(hsaqm_log_parse_level("1", &level), 0);
	CU_ASSERT_EQUAL(level, HSAQM_LOG_ERROR);
	CU_ASSERT_EQUAL(hsaqm_log_parse_level("none", &level), 0);
	CU_ASSERT_EQUAL(level, HSAQM_LOG_NONE);
}

static void test_log_parse_rejects_garbage(void)
{
	int level = 3;

	CU_ASSERT_EQUAL(hsaqm_log_parse_level("loud", &level), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_log_parse_level("5", &level), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_log_parse_level("", &level), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_log_parse_level(NULL, &level), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_log_parse_level("info", NULL), -EINVAL);
	CU_ASSERT_EQUAL(level, 3); /* untouched on error */
}

static void test_log_silent_by_default(void)
{
	/* meson runs this binary with HSAQM_LOG empty, which means the default. */
	const char *env = getenv("HSAQM_LOG");
	CU_ASSERT(env == NULL || *env == '\0');
	CU_ASSERT_EQUAL(hsaqm_log_level(), HSAQM_LOG_NONE);
	char *out = capture(emit_all_levels);
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
}

static void test_log_level_filters_messages(void)
{
	hsaqm_log_set_level(HSAQM_LOG_WARN);
	char *out = capture(emit_all_levels);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "e1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "w2\n"));
	CU_ASSERT_PTR_NULL(strstr(out, "i3"));
	CU_ASSERT_PTR_NULL(strstr(out, "d4"));
	free(out);
	hsaqm_log_set_level(HSAQM_LOG_NONE);
}

static int notice_flag;
static void emit_notice_twice(void)
{
	hsaqm_log_notice(&notice_flag, "fell back to %s", "pass-through");
	hsaqm_log_notice(&notice_flag, "fell back to %s", "pass-through");
}

static void test_log_notice_once_even_when_silent(void)
{
	hsaqm_log_set_level(HSAQM_LOG_NONE);
	char *out = capture(emit_notice_twice);
	CU_ASSERT_STRING_EQUAL(out, "hsaqm: fell back to pass-through\n");
	free(out);
}

static const struct t_case log_cases[] = {
	T_CASE(test_log_parse_accepts_names_and_digits),
	T_CASE(test_log_parse_rejects_garbage),
	T_CASE(test_log_silent_by_default),
	T_CASE(test_log_level_filters_messages),
	T_CASE(test_log_notice_once_even_when_silent),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "log", NULL, NULL, log_cases },
		T_SUITES_END,
	};
	return t_run("test-log", suites);
}
