/* SPDX-License-Identifier: MIT */
/* Log-linear latency histogram (hsaqm-common/hist.h). */
#include <string.h>

#include "hsaqm-common/hist.h"

_Static_assert(sizeof(((struct hsaqm_hist *)0)->buckets) == 4096, "histogram counts are 4 KiB");
_Static_assert((HSAQM_HIST_LIMIT_NS >> (36 - HSAQM_HIST_SUB_BITS)) == HSAQM_HIST_SUB,
	       "limit and bucket count agree");

void hsaqm_hist_init(struct hsaqm_hist *h)
{
	memset(h, 0, sizeof(*h));
}

uint32_t hsaqm_hist_bucket_of(uint64_t v)
{
	if (v < HSAQM_HIST_SUB)
		return (uint32_t)v;
	if (v >= HSAQM_HIST_LIMIT_NS)
		return HSAQM_HIST_BUCKETS - 1;
	uint32_t e = 63u - (uint32_t)__builtin_clzll(v); /* 2^e <= v < 2^(e+1), e >= SUB_BITS */
	uint32_t sub = (uint32_t)(v >> (e - HSAQM_HIST_SUB_BITS)) & (HSAQM_HIST_SUB - 1);

	return (e - HSAQM_HIST_SUB_BITS + 1) * HSAQM_HIST_SUB + sub;
}

void hsaqm_hist_bucket_range(uint32_t b, uint64_t *low, uint64_t *high)
{
	if (b >= HSAQM_HIST_BUCKETS)
		b = HSAQM_HIST_BUCKETS - 1;
	if (b < HSAQM_HIST_SUB) {
		*low = *high = b;
		return;
	}
	uint32_t e = b / HSAQM_HIST_SUB + HSAQM_HIST_SUB_BITS - 1;
	uint32_t sub = b % HSAQM_HIST_SUB;
	uint64_t width = 1ull << (e - HSAQM_HIST_SUB_BITS);

	*low = (1ull << e) + sub * width;
	*high = *low + width - 1;
}

void hsaqm_hist_record(struct hsaqm_hist *h, uint64_t v)
{
	uint32_t b = hsaqm_hist_bucket_of(v);

	if (h->buckets[b] != UINT32_MAX)
		h->buckets[b]++;
	if (h->count == 0 || v < h->min_ns)
		h->min_ns = v;
	if (v > h->max_ns)
		h->max_ns = v;
	h->count++;
}

uint64_t hsaqm_hist_quantile(const struct hsaqm_hist *h, uint32_t q)
{
	uint64_t total = 0, seen = 0, rank, low, high, mid;

	/* Rank over the bucket counts, which can be fewer than count once one saturated. */
	for (uint32_t b = 0; b < HSAQM_HIST_BUCKETS; b++)
		total += h->buckets[b];
	if (total == 0)
		return 0;
	if (q > 10000)
		q = 10000;
	rank = (total * q + 9999) / 10000;
	if (rank == 0)
		rank = 1;
	if (rank >= total)
		return h->max_ns; /* the largest value is known exactly */
	for (uint32_t b = 0; b < HSAQM_HIST_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen < rank)
			continue;
		hsaqm_hist_bucket_range(b, &low, &high);
		mid = low + (high - low) / 2;
		if (mid < h->min_ns)
			mid = h->min_ns;
		if (mid > h->max_ns)
			mid = h->max_ns;
		return mid;
	}
	return h->max_ns;
}
