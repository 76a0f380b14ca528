/* SPDX-License-Identifier: MIT */
/*
 * time_internal.h - CLOCK_MONOTONIC in nanoseconds: the one clock read of hsaqm's C code (lib's
 * default context clock, the HSA layer's timeouts, the tool, the workload runner). Header-only
 * and private, as json_internal.h.
 */
#ifndef HSAQM_TIME_INTERNAL_H
#define HSAQM_TIME_INTERNAL_H

#include <stdint.h>
#include <time.h>

static inline uint64_t hsaqm_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* HSAQM_TIME_INTERNAL_H */
