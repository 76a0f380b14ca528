/* SPDX-License-Identifier: MIT */
/*
 * t_fill.h - the device-filling low kernel of the tool's Lv3 tests (test-tool-lv3,
 * test-tool-mech): the model's configuration, the low kernel that occupies every CU for several
 * rounds, the high one that arrives mid-kernel, and the count of each low workgroup's runs that
 * proves none was lost or run twice across a preemption. Header-only; include once per test.
 */
#ifndef T_FILL_H
#define T_FILL_H

#include <string.h>

#include "t_cunit.h"
#include "t_tool.h"

/*
 * The low kernel: 4 waves per workgroup, 640 fit on the profile's 80 CUs at once (32 waves/CU):
 * eight rounds of 20 ms, so the high kernel surely arrives mid-kernel even when this thread is
 * descheduled for tens of ms (TSan on a loaded machine).
 */
#define T_FILL_LOW_WG 5120u
#define T_FILL_LOW_WAVES 4u
#define T_FILL_LOW_NS (20ull * 1000 * 1000) /* per workgroup: native would wait up to this */
#define T_FILL_HIGH_WG 4u
#define T_FILL_HIGH_NS (50ull * 1000)

/* One real-time device (Lv3 is about the host's threads meeting the model's engine). */
static const struct hsaqm_sim_config t_fill_cfg = { .num_devices = 1,
						    .time_mode = HSAQM_SIM_TIME_REAL,
						    .seed = 9 };

static uint32_t t_fill_runs[T_FILL_LOW_WG]; /* atomic: runs per low workgroup */
static uint32_t t_fill_total;               /* atomic: low workgroups run */

/* The low kernel's workgroup body (engine thread, before its completion signal's decrement:
 * the test's wait on that signal orders the counters' last writes before its reads). */
static inline void t_fill_low_wg(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	(void)arg, (void)dispatch_id, (void)kernarg;
	if (wg < T_FILL_LOW_WG)
		hsaqm_fetch_add(&t_fill_runs[wg], 1u);
	hsaqm_fetch_add(&t_fill_total, 1u);
}

/* The low kernel (@name) and the high one (@name "-high"), registered on @h; 0 on failure. */
static inline uint64_t t_fill_low_kernel(struct t_hsa *h, const char *name)
{
	return t_hsa_kernel(h, name, T_FILL_LOW_NS, T_FILL_LOW_WAVES, t_fill_low_wg);
}

static inline uint64_t t_fill_high_kernel(struct t_hsa *h, const char *name)
{
	return t_hsa_kernel(h, name, T_FILL_HIGH_NS, 1, NULL);
}

/*
 * Zero the counters, submit the low kernel @klo to @lo (completion signal @cs), and return once
 * its first round is surely running: a quarter of a workgroup's time has passed in model time.
 */
static inline void t_fill_start_low(struct t_hsa *h, struct hsaqm_hsa_queue *lo, uint64_t klo,
				    struct hsaqm_hsa_signal cs)
{
	union hsaqm_aql_packet pk;
	uint64_t start;

	memset(t_fill_runs, 0, sizeof(t_fill_runs));
	t_fill_total = 0;
	pk = t_hsa_dispatch(klo, T_FILL_LOW_WG, cs.handle, true, NULL);
	pk.dispatch.workgroup_size_x = 64 * T_FILL_LOW_WAVES;
	pk.dispatch.grid_size_x = T_FILL_LOW_WG * 64 * T_FILL_LOW_WAVES;
	t_rocclr_submit(h->core, lo, &pk, NULL, NULL);
	/* Model time, not a wall-clock pause: the engine must have started its first round. */
	start = hsaqm_sim_now_ns(h->sim);
	while (hsaqm_sim_now_ns(h->sim) - start < T_FILL_LOW_NS / 4)
		t_sleep_us(500);
}

/* Submit the high kernel @khi to @hi (completion signal @cs). */
static inline void t_fill_submit_high(struct t_hsa *h, struct hsaqm_hsa_queue *hi, uint64_t khi,
				      struct hsaqm_hsa_signal cs)
{
	union hsaqm_aql_packet pk = t_hsa_dispatch(khi, T_FILL_HIGH_WG, cs.handle, true, NULL);

	t_rocclr_submit(h->core, hi, &pk, NULL, NULL);
}

/* Low workgroups run so far. */
static inline uint32_t t_fill_done(void)
{
	return HSAQM_READ_ONCE(t_fill_total);
}

/* Asserts every low workgroup ran exactly once (call after the low kernel's signal reached 0). */
static inline void t_fill_assert_each_once(void)
{
	unsigned int once = 0;

	for (unsigned int i = 0; i < T_FILL_LOW_WG; i++)
		once += HSAQM_READ_ONCE(t_fill_runs[i]) == 1;
	CU_ASSERT_EQUAL(once, T_FILL_LOW_WG);
	CU_ASSERT_EQUAL(HSAQM_READ_ONCE(t_fill_total), T_FILL_LOW_WG);
}

#endif /* T_FILL_H */
