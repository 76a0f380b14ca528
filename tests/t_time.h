/* SPDX-License-Identifier: MIT */
/*
 * t_time.h - time in tests: the monotonic clock, sleeping, and waiting for a condition by
 * polling it. A test waits for what it needs with T_UNTIL (it returns as soon as the condition
 * holds, and its timeout is only the point where the test gives up, never what it measures),
 * and sleeps only to prove that something did NOT happen, or to let time pass on purpose.
 * Header-only.
 */
#ifndef T_TIME_H
#define T_TIME_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* A microsecond, a millisecond and a second in nanoseconds (the unit of every time here). */
#define T_US 1000ull
#define T_MS 1000000ull
#define T_S 1000000000ull

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t t_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * T_S + (uint64_t)ts.tv_nsec;
}

/* Sleep at least @ns (a signal does not cut it short). */
static inline void t_sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / T_S), .tv_nsec = (long)(ns % T_S) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline void t_sleep_us(uint64_t us)
{
	t_sleep_ns(us * T_US);
}

static inline void t_sleep_ms(uint64_t ms)
{
	t_sleep_ns(ms * T_MS);
}

/*
 * Evaluates to true as soon as @cond holds, false when it still does not after @timeout_ns
 * (looks again every @every_ns: a condition that is costly to look at, such as one that runs a
 * process, is looked at less often). @cond is re-evaluated each time; it may have side effects.
 */
#define T_UNTIL_EVERY(cond, timeout_ns, every_ns)                                         \
	__extension__({                                                                  \
		uint64_t t_until_end_ = t_mono_ns() + (uint64_t)(timeout_ns);            \
		bool t_until_ok_;                                                        \
		while (!(t_until_ok_ = (cond)) && t_mono_ns() < t_until_end_)            \
			t_sleep_ns(every_ns);                                            \
		t_until_ok_;                                                             \
	})

/* T_UNTIL_EVERY looking every 20 us. */
#define T_UNTIL(cond, timeout_ns) T_UNTIL_EVERY(cond, timeout_ns, 20 * T_US)

#endif /* T_TIME_H */
