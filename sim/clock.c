/* SPDX-License-Identifier: MIT */
/*
 * Model time and the two ways the model sleeps.
 *
 * REAL mode: model time = (CLOCK_MONOTONIC - start) x scale, so every thread (and, in shared
 * mode, every process: CLOCK_MONOTONIC is system-wide) computes the same "now" without
 * talking to the engine. VIRTUAL mode: the time the event loop has reached, moved only by
 * the loop.
 *
 * Futexes: engines sleep on an absolute CLOCK_MONOTONIC deadline (FUTEX_WAIT_BITSET takes
 * one, so a wake-up does not drift the way a relative timeout recomputed after each wake
 * would). They are never FUTEX_PRIVATE: the words live in model memory that other
 * processes map too.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"

uint64_t sim_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sim_futex_wait(uint32_t *addr, uint32_t expected, uint64_t abs_mono_ns)
{
	struct timespec ts, *tsp = NULL;

	if (abs_mono_ns != UINT64_MAX) {
		ts.tv_sec = (time_t)(abs_mono_ns / 1000000000ull);
		ts.tv_nsec = (long)(abs_mono_ns % 1000000000ull);
		tsp = &ts;
	}
	/*
	 * EAGAIN (the word already moved), EINTR and ETIMEDOUT all mean "look again": every
	 * caller re-checks its condition in a loop.
	 */
	syscall(SYS_futex, addr, FUTEX_WAIT_BITSET, expected, tsp, NULL, FUTEX_BITSET_MATCH_ANY);
}

void sim_futex_wake(uint32_t *addr, int n)
{
	syscall(SYS_futex, addr, FUTEX_WAKE, n, NULL, NULL, 0);
}

uint64_t sim_clock_now(const struct hsaqm_sim *sim)
{
	/* Acquire: pairs with the loop's release of vnow; what happened up to that time is seen. */
	if (sim->mode == HSAQM_SIM_TIME_VIRTUAL)
		return hsaqm_load_acquire(&((struct hsaqm_sim *)sim)->vnow);

	uint64_t wall = sim_mono_ns() - sim->start_mono;
	if (sim->scale == 1.0)
		return wall;
	double m = (double)wall * sim->scale;
	return m >= 1.8e19 ? UINT64_MAX - 1 : (uint64_t)m;
}

uint64_t sim_clock_to_mono(const struct hsaqm_sim *sim, uint64_t model_ns)
{
	if (model_ns == UINT64_MAX)
		return UINT64_MAX;
	double wall = sim->scale == 1.0 ? (double)model_ns : ceil((double)model_ns / sim->scale);
	double abs = wall + (double)sim->start_mono;
	return abs >= 1.8e19 ? UINT64_MAX : (uint64_t)abs;
}

uint64_t sim_clock_deadline(const struct hsaqm_sim *sim, uint64_t rel_ns)
{
	uint64_t now = sim_clock_now(sim);

	return rel_ns >= UINT64_MAX - now ? UINT64_MAX : now + rel_ns;
}
