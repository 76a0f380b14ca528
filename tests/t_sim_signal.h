/* SPDX-License-Identifier: MIT */
/*
 * t_sim_signal.h - helpers of the model signals' tests (test-sim-signal-*): a kernel that
 * decrements a completion signal, and an async handler that counts its runs. Header-only;
 * include once.
 */
#ifndef T_SIM_SIGNAL_H
#define T_SIM_SIGNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"

/* A queue running one kernel of @dur that decrements @cs; returns the completion time. */
static inline uint64_t t_run_kernel(struct hsaqm_sim *sim, struct t_q *q, uint64_t dur,
				    struct sim_signal *cs)
{
	struct hsaqm_sim_kernel_desc kd = { .name = "k", .duration_ns = dur };
	uint64_t k;
	union hsaqm_aql_packet p;

	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(sim, &kd, &k), 0);
	p = t_dispatch(k, 1, t_handle(cs), false);
	uint64_t t = hsaqm_sim_now_ns(sim);
	t_q_submit(q, &p);
	return t + 5 * T_US + dur;
}

struct t_hcount {
	int runs;
	int64_t last;
	int keep_for;
};

static inline bool t_count_handler(int64_t value, void *arg)
{
	struct t_hcount *h = arg;
	int n = HSAQM_READ_ONCE(h->runs) + 1;

	HSAQM_WRITE_ONCE(h->last, value);
	HSAQM_WRITE_ONCE(h->runs, n);
	return n < h->keep_for;
}

#endif /* T_SIM_SIGNAL_H */
