/* SPDX-License-Identifier: MIT */
/* The latency histogram: buckets within 1/32 of their values, percentiles within 1.6 %, 4 KiB. */
#include <stdio.h>
#include <stdlib.h>

#include "hsaqm-common/hist.h"
#include "t_cunit.h"

static void test_hist_every_value_lies_in_a_narrow_bucket(void)
{
	uint64_t v = 0, low, high;
	uint32_t prev = 0;

	/* Walk values densely at the bottom, geometrically above. */
	while (v < HSAQM_HIST_LIMIT_NS) {
		uint32_t b = hsaqm_hist_bucket_of(v);

		hsaqm_hist_bucket_range(b, &low, &high);
		CU_ASSERT_FATAL(low <= v && v <= high);
		CU_ASSERT_FATAL(b >= prev); /* monotone */
		CU_ASSERT_FATAL(b < HSAQM_HIST_BUCKETS);
		if (v >= HSAQM_HIST_SUB)
			CU_ASSERT_FATAL((high - low + 1) * HSAQM_HIST_SUB <= v);
		prev = b;
		v = v < 4096 ? v + 1 : v + v / 97;
	}
	CU_ASSERT_EQUAL(hsaqm_hist_bucket_of(HSAQM_HIST_LIMIT_NS - 1), HSAQM_HIST_BUCKETS - 1);
	CU_ASSERT_EQUAL(hsaqm_hist_bucket_of(UINT64_MAX), HSAQM_HIST_BUCKETS - 1);
}

static void test_hist_quantiles_of_uniform_values_within_two_digits(void)
{
	struct hsaqm_hist *h = malloc(sizeof(*h));

	hsaqm_hist_init(h);
	for (uint64_t v = 1; v <= 1000000; v++)
		hsaqm_hist_record(h, v * 100); /* 100 ns .. 100 ms */
	CU_ASSERT_EQUAL(h->count, 1000000);
	CU_ASSERT_EQUAL(h->min_ns, 100);
	CU_ASSERT_EQUAL(h->max_ns, 100000000);
	CU_ASSERT_DOUBLE_EQUAL(hsaqm_hist_quantile(h, 5000), 50e6, 50e6 * 0.016);
	CU_ASSERT_DOUBLE_EQUAL(hsaqm_hist_quantile(h, 9900), 99e6, 99e6 * 0.016);
	CU_ASSERT_DOUBLE_EQUAL(hsaqm_hist_quantile(h, 9990), 99.9e6, 99.9e6 * 0.016);
	CU_ASSERT_EQUAL(hsaqm_hist_quantile(h, 10000), 100000000); /* clamped to the max */
	free(h);
}

static void test_hist_tail_percentile_sees_rare_outliers(void)
{
	struct hsaqm_hist h;

	hsaqm_hist_init(&h);
	for (int i = 0; i < 990; i++)
		hsaqm_hist_record(&h, 10000);   /* 10 us */
	for (int i = 0; i < 10; i++)
		hsaqm_hist_record(&h, 5000000); /* 5 ms: the slowest 1 % */
	CU_ASSERT_DOUBLE_EQUAL(hsaqm_hist_quantile(&h, 5000), 10000, 10000 * 0.016);
	CU_ASSERT_DOUBLE_EQUAL(hsaqm_hist_quantile(&h, 9900), 10000, 10000 * 0.016);
	CU_ASSERT_DOUBLE_EQUAL(hsaqm_hist_quantile(&h, 9990), 5000000, 5000000 * 0.016);
}

static void test_hist_huge_values_clamp_and_keep_exact_max(void)
{
	struct hsaqm_hist h;

	hsaqm_hist_init(&h);
	CU_ASSERT_EQUAL(hsaqm_hist_quantile(&h, 5000), 0); /* empty */
	hsaqm_hist_record(&h, 1ull << 40);
	CU_ASSERT_EQUAL(h.buckets[HSAQM_HIST_BUCKETS - 1], 1);
	CU_ASSERT_EQUAL(h.max_ns, 1ull << 40);
	CU_ASSERT_EQUAL(hsaqm_hist_quantile(&h, 5000), 1ull << 40);
	hsaqm_hist_record(&h, 0);
	CU_ASSERT_EQUAL(h.min_ns, 0);
	CU_ASSERT_EQUAL(hsaqm_hist_quantile(&h, 1), 0);
}

static void test_hist_fits_in_4_kib(void)
{
	printf("sizeof(struct hsaqm_hist) = %zu\n", sizeof(struct hsaqm_hist));
	CU_ASSERT(sizeof(((struct hsaqm_hist *)0)->buckets) <= 4096);
	CU_ASSERT(sizeof(struct hsaqm_hist) <= 4096 + 32);
}

static const struct t_case hist_cases[] = {
	T_CASE(test_hist_every_value_lies_in_a_narrow_bucket),
	T_CASE(test_hist_quantiles_of_uniform_values_within_two_digits),
	T_CASE(test_hist_tail_percentile_sees_rare_outliers),
	T_CASE(test_hist_huge_values_clamp_and_keep_exact_max),
	T_CASE(test_hist_fits_in_4_kib),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "lib-hist", NULL, NULL, hist_cases },
		T_SUITES_END,
	};
	return t_run("test-lib-hist", suites);
}
