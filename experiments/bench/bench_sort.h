/* SPDX-License-Identifier: MIT */
/*
 * bench_sort.h - the orderings the benchmarks sort their samples with before reading medians and
 * percentiles, one copy for all of them. Header-only, for the programs of this folder.
 */
#ifndef HSAQM_BENCH_SORT_H
#define HSAQM_BENCH_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline int bench_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static inline int bench_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static inline void bench_sort_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_u64);
}

static inline void bench_sort_i64(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_i64);
}

static inline void bench_sort_double(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
}

/* The median of @n > 0 samples; sorts @v in place. */
static inline double bench_median_double(double *v, size_t n)
{
	bench_sort_double(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* HSAQM_BENCH_SORT_H */
