/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-common/hist.h - a fixed-size log-linear latency histogram.
 *
 * Values are nanoseconds. Below 32 ns every value has its own bucket; above, each power of
 * two [2^e, 2^(e+1)) is split into 32 equal buckets, so a bucket is at most 1/32 (3.1 %)
 * of its values wide and the midpoint a percentile reports is within 1.6 % of any value
 * in it: about two significant digits, as HDR histograms give. 1024 buckets of 32-bit
 * counts (exactly 4 KiB) reach 2^36 ns (68.7 s); longer values land in the last bucket
 * (the exact maximum is kept beside). A bucket's count saturates rather than wrapping.
 */
#ifndef HSAQM_COMMON_HIST_H
#define HSAQM_COMMON_HIST_H

#include <stdint.h>

#define HSAQM_HIST_SUB_BITS 5
#define HSAQM_HIST_SUB (1u << HSAQM_HIST_SUB_BITS)
#define HSAQM_HIST_BUCKETS 1024u
/* The first value that no longer has a bucket of its own width. */
#define HSAQM_HIST_LIMIT_NS (1ull << 36)

struct hsaqm_hist {
	uint64_t count;
	uint64_t min_ns;
	uint64_t max_ns;
	uint32_t buckets[HSAQM_HIST_BUCKETS];
};

/* Zero the histogram. */
void hsaqm_hist_init(struct hsaqm_hist *h);

/* Count one value. */
void hsaqm_hist_record(struct hsaqm_hist *h, uint64_t value_ns);

/*
 * The value at quantile @q_permyriad / 10000 (5000 = P50, 9900 = P99, 9990 = P99.9): the
 * midpoint of the bucket holding the ceil(q * count)-th smallest value, clamped to the
 * minimum and maximum seen. 0 when the histogram is empty.
 */
uint64_t hsaqm_hist_quantile(const struct hsaqm_hist *h, uint32_t q_permyriad);

/* Bucket arithmetic, exposed for the tests: index of a value, and a bucket's [low, high]. */
uint32_t hsaqm_hist_bucket_of(uint64_t value_ns);
void hsaqm_hist_bucket_range(uint32_t bucket, uint64_t *low_ns, uint64_t *high_ns);

#endif /* HSAQM_COMMON_HIST_H */
