/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-common/time.h - CLOCK_MONOTONIC in nanoseconds: the one clock read of hsaqm's C code (lib's
 * default context clock, the HSA layer's timeouts, the tool, the workload runner); and the
 * CPU's time-stamp counter, which only lib's latency stamps use (lib/ctx.c says when).
 * Header-only and not installed, as hsaqm-common/json.h.
 */
#ifndef HSAQM_COMMON_TIME_H
#define HSAQM_COMMON_TIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t hsaqm_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The time-stamp counter, one unserialised read: the stamp may move a few cycles against the
 * instructions around it, which a latency of microseconds does not see; serialising it
 * (lfence, rdtscp) would cost what it is there to save. 0 where the CPU has none we use.
 */
#if defined(__x86_64__)
#include <x86intrin.h>
#define HSAQM_HAVE_TSC 1
static inline uint64_t hsaqm_tsc(void)
{
	return __rdtsc();
}
#else
#define HSAQM_HAVE_TSC 0
static inline uint64_t hsaqm_tsc(void)
{
	return 0;
}
#endif

#endif /* HSAQM_COMMON_TIME_H */
