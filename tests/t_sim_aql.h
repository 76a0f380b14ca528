/* SPDX-License-Identifier: MIT */
/*
 * t_sim_aql.h - the rig of the packet processor's tests (test-sim-aql-*): a virtual-time model
 * with one queue, kernels whose workgroups record when they ran. Header-only; include once.
 */
#ifndef T_SIM_AQL_H
#define T_SIM_AQL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "hsaqm-hsa/hsa_abi.h"
#include "t_cunit.h"
#include "t_sim.h"

/* Default profile: 5 us launch overhead, 20 us map. */
#define T_LAUNCH_NS (5 * T_US)

struct t_rec {
	struct hsaqm_sim *sim;
	uint32_t count;
	uint32_t per_wg[4096];
	uint32_t n;
	uint64_t ids[256];
	uint64_t times[256];
	struct sim_signal *peek;  /* signal value seen by each callback */
	int64_t peeked[256];
};

static inline void t_rec_cb(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct t_rec *r = arg;

	(void)kernarg;
	r->count++;
	if (wg < 4096)
		r->per_wg[wg]++;
	if (r->n < 256) {
		r->ids[r->n] = dispatch_id;
		r->times[r->n] = hsaqm_sim_now_ns(r->sim);
		r->peeked[r->n] = r->peek ? sim_signal_load(r->peek) : 0;
		r->n++;
	}
}

static inline uint64_t t_aql_kernel(struct hsaqm_sim *sim, uint64_t dur, uint32_t waves,
				    struct t_rec *r)
{
	struct hsaqm_sim_kernel_desc d = { .name = "k", .duration_ns = dur, .waves_per_wg = waves,
					   .wg_callback = r ? t_rec_cb : NULL, .wg_callback_arg = r };
	uint64_t k = 0;

	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(sim, &d, &k), 0);
	return k;
}

/* Model, one queue, mapped and idle; returns the time it is ready. */
static inline uint64_t t_aql_setup(struct hsaqm_sim **sim, struct t_q *q, struct t_rec *r)
{
	*sim = t_sim_virtual(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*sim);
	CU_ASSERT_EQUAL_FATAL(t_q_create(q, *sim, 0, 64, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(*sim, T_S), 0);
	CU_ASSERT_EQUAL(t_q_state(q), SIM_HWQ_MAPPED);
	if (r) {
		memset(r, 0, sizeof(*r));
		r->sim = *sim;
	}
	return hsaqm_sim_now_ns(*sim);
}

static inline void t_aql_teardown(struct hsaqm_sim *sim, struct t_q *q)
{
	t_q_destroy(q);
	hsaqm_sim_destroy(sim);
}

#endif /* T_SIM_AQL_H */
