/* SPDX-License-Identifier: MIT */
/* hsaqm-common/text.h's one rule for numbers a person wrote: what it takes, what it refuses. */
#include <errno.h>
#include <float.h>
#include <stdint.h>

#include "t_cunit.h"
#include "hsaqm-common/text.h"

static void test_uint_takes_decimal_octal_and_0x_hex_only_as_asked(void)
{
	unsigned long long v = 0;

	CU_ASSERT_EQUAL(hsaqm_parse_uint("010", 10, 0, 100, &v), 0);
	CU_ASSERT_EQUAL(v, 10); /* base 10: a leading zero is not octal */
	CU_ASSERT_EQUAL(hsaqm_parse_uint("0755", 8, 0, 07777, &v), 0);
	CU_ASSERT_EQUAL(v, 0755);
	CU_ASSERT_EQUAL(hsaqm_parse_uint("0x1a2B", 16, 1, UINT32_MAX, &v), 0);
	CU_ASSERT_EQUAL(v, 0x1a2b);
	CU_ASSERT_EQUAL(hsaqm_parse_uint("18446744073709551615", 10, 0, UINT64_MAX, &v), 0);
	CU_ASSERT_EQUAL(v, UINT64_MAX);
	v = 7;
	CU_ASSERT_EQUAL(hsaqm_parse_uint("1a2b", 16, 0, UINT32_MAX, &v), -EINVAL); /* no 0x */
	CU_ASSERT_EQUAL(hsaqm_parse_uint("0x", 16, 0, UINT32_MAX, &v), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_uint("0x-1", 16, 0, UINT32_MAX, &v), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_uint("0x10", 10, 0, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_uint("5", 0, 0, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_uint("5", 2, 0, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(v, 7); /* untouched on error */
}

static void test_uint_and_int_refuse_spaces_plus_junk_and_out_of_range(void)
{
	static const char *const bad[] = { " 5", "+5", "5 ", "5x", "", "-5", "1e3", "nan" };
	unsigned long long u;
	long long i;

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		CU_ASSERT_EQUAL(hsaqm_parse_uint(bad[k], 10, 0, 100, &u), -EINVAL);
		if (bad[k][0] != '-')
			CU_ASSERT_EQUAL(hsaqm_parse_int(bad[k], 10, -100, 100, &i), -EINVAL);
	}
	CU_ASSERT_EQUAL(hsaqm_parse_uint(NULL, 10, 0, 100, &u), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_uint("101", 10, 0, 100, &u), -ERANGE);
	CU_ASSERT_EQUAL(hsaqm_parse_uint("99999999999999999999", 10, 0, UINT64_MAX, &u), -ERANGE);
	CU_ASSERT_EQUAL(hsaqm_parse_int("-5", 10, -100, 100, &i), 0);
	CU_ASSERT_EQUAL(i, -5);
	CU_ASSERT_EQUAL(hsaqm_parse_int("--5", 10, -100, 100, &i), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_int("-101", 10, -100, 100, &i), -ERANGE);
}

static void test_gpu_id_is_decimal_or_0x_hex_and_nothing_octal(void)
{
	uint32_t id = 7;

	CU_ASSERT_EQUAL(hsaqm_parse_gpu_id("6699", &id), 0);
	CU_ASSERT_EQUAL(id, 6699);
	CU_ASSERT_EQUAL(hsaqm_parse_gpu_id("0x1a2b", &id), 0);
	CU_ASSERT_EQUAL(id, 0x1a2b);
	CU_ASSERT_EQUAL(hsaqm_parse_gpu_id("0", &id), 0);
	CU_ASSERT_EQUAL(id, 0);
	id = 7;
	CU_ASSERT_EQUAL(hsaqm_parse_gpu_id("010", &id), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_gpu_id(" 5", &id), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_gpu_id("+5", &id), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_gpu_id("0x", &id), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_gpu_id("1a2b", &id), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_gpu_id("4294967295", &id), -ERANGE);
	CU_ASSERT_EQUAL(hsaqm_parse_gpu_id(NULL, &id), -EINVAL);
	CU_ASSERT_EQUAL(id, 7);
}

static void test_double_takes_decimal_fractions_and_exponents(void)
{
	static const struct { const char *s; double v; } good[] = {
		{ "2.5", 2.5 }, { "0", 0 }, { "-1.25", -1.25 }, { ".5", 0.5 }, { "1.", 1 },
		{ "1e-3", 1e-3 }, { "2E+2", 200 }, { "010", 10 }, { "-0.5e1", -5 },
	};
	double v;

	for (size_t k = 0; k < sizeof(good) / sizeof(good[0]); k++) {
		v = -99;
		CU_ASSERT_EQUAL(hsaqm_parse_double(good[k].s, -DBL_MAX, DBL_MAX, &v), 0);
		CU_ASSERT_DOUBLE_EQUAL(v, good[k].v, 1e-12);
	}
}

static void test_double_refuses_what_strtod_alone_would_take(void)
{
	static const char *const bad[] = {
		" 5", "+5", "5 ", "5x", "", "nan", "NAN", "inf", "-inf", "infinity", "0x1p3",
		"0x10", "1.2.3", "5e", "1e", ".", "-", ".e1", "1e+", "1-2", "\t5",
	};
	double v = 7;

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		int rc = hsaqm_parse_double(bad[k], -DBL_MAX, DBL_MAX, &v);

		if (rc != -EINVAL)
			fprintf(stderr, "\n\"%s\": %d\n", bad[k], rc);
		CU_ASSERT_EQUAL(rc, -EINVAL);
	}
	CU_ASSERT_EQUAL(hsaqm_parse_double(NULL, 0, 1, &v), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_double("1e999", -DBL_MAX, DBL_MAX, &v), -ERANGE);
	CU_ASSERT_EQUAL(hsaqm_parse_double("-1e999", -DBL_MAX, DBL_MAX, &v), -ERANGE);
	CU_ASSERT_EQUAL(hsaqm_parse_double("1e-999", -DBL_MAX, DBL_MAX, &v), -ERANGE);
	CU_ASSERT_EQUAL(hsaqm_parse_double("1000.5", 0.01, 1000, &v), -ERANGE);
	CU_ASSERT_EQUAL(hsaqm_parse_double("0.001", 0.01, 1000, &v), -ERANGE);
	CU_ASSERT_DOUBLE_EQUAL(v, 7, 0); /* untouched on error */
}

static void test_double_unit_splits_the_number_from_its_unit(void)
{
	const char *unit = NULL;
	double v = 0;

	CU_ASSERT_EQUAL(hsaqm_parse_double_unit("2.5ms", 0, DBL_MAX, &v, &unit), 0);
	CU_ASSERT_DOUBLE_EQUAL(v, 2.5, 0);
	CU_ASSERT_STRING_EQUAL(unit, "ms");
	CU_ASSERT_EQUAL(hsaqm_parse_double_unit("1e3us", 0, DBL_MAX, &v, &unit), 0);
	CU_ASSERT_DOUBLE_EQUAL(v, 1000, 0);
	CU_ASSERT_STRING_EQUAL(unit, "us");
	CU_ASSERT_EQUAL(hsaqm_parse_double_unit("40", 0, DBL_MAX, &v, &unit), 0);
	CU_ASSERT_STRING_EQUAL(unit, "");
	CU_ASSERT_EQUAL(hsaqm_parse_double_unit("5es", 0, DBL_MAX, &v, &unit), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_double_unit("+5s", 0, DBL_MAX, &v, &unit), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_double_unit("nans", 0, DBL_MAX, &v, &unit), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_parse_double_unit("-1s", 0, DBL_MAX, &v, &unit), -ERANGE);
	CU_ASSERT_EQUAL(hsaqm_parse_double_unit("1e999s", 0, DBL_MAX, &v, &unit), -ERANGE);
}

static const struct t_case cases[] = {
	T_CASE(test_uint_takes_decimal_octal_and_0x_hex_only_as_asked),
	T_CASE(test_uint_and_int_refuse_spaces_plus_junk_and_out_of_range),
	T_CASE(test_gpu_id_is_decimal_or_0x_hex_and_nothing_octal),
	T_CASE(test_double_takes_decimal_fractions_and_exponents),
	T_CASE(test_double_refuses_what_strtod_alone_would_take),
	T_CASE(test_double_unit_splits_the_number_from_its_unit),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "text", NULL, NULL, cases }, T_SUITES_END };
	return t_run("test-text", suites);
}
