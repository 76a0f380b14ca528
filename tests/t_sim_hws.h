/* SPDX-License-Identifier: MIT */
/*
 * t_sim_hws.h - the rig of the hardware scheduler's tests (test-sim-hws-*): the default MI308X
 * profile's costs, kernels whose workgroups record when they ran, each-once and mapped counts.
 * Header-only; include once.
 */
#ifndef T_SIM_HWS_H
#define T_SIM_HWS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_internal.h"
#include "t_cunit.h"
#include "t_json.h"
#include "t_sim.h"

#define T_HWS_LAUNCH (5 * T_US)
#define T_HWS_MAP (20 * T_US)
#define T_HWS_UNMAP (20 * T_US)
/* Profile dbg_suspend_ns / dbg_resume_ns: the suspend and resume calls return this much after
 * their runlist change (the HWS acted at once). */
#define T_HWS_DBG_SUSPEND (50 * T_US)
#define T_HWS_DBG_RESUME (50 * T_US)

struct t_hws_rec {
	struct hsaqm_sim *sim;
	uint32_t count;
	uint32_t per_wg[2048];
	uint64_t last_time;
};

static inline void t_hws_rec_cb(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct t_hws_rec *r = arg;

	(void)dispatch_id, (void)kernarg;
	r->count++;
	if (wg < 2048)
		r->per_wg[wg]++;
	r->last_time = hsaqm_sim_now_ns(r->sim);
}

static inline uint64_t t_hws_kernel(struct hsaqm_sim *sim, uint64_t dur, uint32_t waves,
				    struct t_hws_rec *r)
{
	struct hsaqm_sim_kernel_desc d = { .name = "k", .duration_ns = dur, .waves_per_wg = waves,
					   .wg_callback = r ? t_hws_rec_cb : NULL, .wg_callback_arg = r };
	uint64_t k = 0;

	if (r) {
		memset(r, 0, sizeof(*r));
		r->sim = sim;
	}
	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(sim, &d, &k), 0);
	return k;
}

static inline bool t_each_once(const struct t_hws_rec *r, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (r->per_wg[i] != 1)
			return false;
	return r->count == n;
}

#endif /* T_SIM_HWS_H */
