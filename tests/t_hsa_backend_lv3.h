/* SPDX-License-Identifier: MIT */
/*
 * t_hsa_backend_lv3.h - the rig of the HSA backend's Lv3 tests on the device model in real time
 * (test-hsa-backend-lv3-*): kernels that count their workgroups, a low queue's kernel waited
 * for until it runs, a high queue preempting it, the hardware queue's suspension as the model
 * sees it. Header-only; include once.
 */
#ifndef T_HSA_BACKEND_LV3_H
#define T_HSA_BACKEND_LV3_H

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hsa_backend_internal.h"
#include "hsaqm-kfd/kfd_lv3.h"
#include "kfd_face_internal.h"
#include "t_cunit.h"
#include "t_hsa.h"

struct t_wgcount {
	uint32_t n;
	uint32_t per_wg[2560];
};

static struct t_wgcount t_wg_lo, t_wg_hi;

/* Model engine thread, once per workgroup. */
static inline void t_lv3_count_wg(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct t_wgcount *c = arg;

	(void)dispatch_id, (void)kernarg;
	/* acq_rel: the test reads the counts after a completion-signal wait. */
	hsaqm_fetch_add(&c->n, 1u);
	if (wg < 2560)
		hsaqm_fetch_add(&c->per_wg[wg], 1u);
}

/* Whether the backend has the queue stopped (under lv3_lock, which orders its writes). */
static inline bool t_hw_suspended(struct t_app *a)
{
	bool v;

	pthread_mutex_lock(&a->proxy->lv3_lock);
	v = a->proxy->suspended;
	pthread_mutex_unlock(&a->proxy->lv3_lock);
	return v;
}

static inline bool t_each_once(struct t_wgcount *c, uint32_t n)
{
	/* Acquire: pairs with the engine's increments (the callers waited for completion). */
	for (uint32_t i = 0; i < n; i++)
		if (hsaqm_load_acquire(&c->per_wg[i]) != 1)
			return false;
	return hsaqm_load_acquire(&c->n) == n;
}

static inline uint64_t t_lv3_kernel(struct t_hsa *h, uint64_t ns, uint32_t waves,
				    struct t_wgcount *c)
{
	struct hsaqm_sim_kernel_desc kd = { .name = "k", .duration_ns = ns, .waves_per_wg = waves,
					    .wg_callback = t_lv3_count_wg, .wg_callback_arg = c };
	uint64_t k = 0;

	memset(c, 0, sizeof(*c));
	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(h->sim, &kd, &k), 0);
	return k;
}

static inline void t_lv3_submit(struct t_app *a, uint64_t kobj, uint32_t nwg,
				struct hsaqm_hsa_signal cs)
{
	union hsaqm_aql_packet p = t_hsa_dispatch(kobj, nwg, cs.handle, true, NULL);

	CU_ASSERT_EQUAL(hsaqm_ring_submit(&a->ring, &p, 1, 10 * T_S), 0);
}

/* Until the queue has workgroups on the CUs (wall clock, bounded). */
static inline bool t_wait_running(struct t_hsa *h, struct t_app *a)
{
	uint64_t end = t_mono_ns() + 2 * T_S;

	while (t_app_hwinfo(h, a).workgroups_running == 0) {
		if (t_mono_ns() > end)
			return false;
		t_sleep_us(100);
	}
	return true;
}

/* A real-time model with hsaqm's runtime on its KFD, Lv3 preference @pref. */
static inline void t_lv3_open_model(struct t_hsa *h, int pref)
{
	CU_ASSERT_EQUAL_FATAL(t_hsa_open(h, HSAQM_SIM_TIME_REAL, 1), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_lv3_setup(h), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(h, hsaqm_kfd_transport_default()), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_hsa_runtime_set_lv3(&h->rt, pref, NULL), 0);
}

/*
 * A low queue runs 2560 one-wave workgroups of 50 ms (every wave slot); a high one arrives:
 * the low one is stopped with its Lv3 mechanism; the high kernel runs long before the low
 * workgroups would have ended; then everything of the low queue runs once.
 */
static inline void t_preempt_round(struct t_hsa *h, struct t_app *lo, struct t_app *hi,
			  enum hsaqm_mechanism want)
{
	uint64_t klo = t_lv3_kernel(h, 50 * T_MS, 1, &t_wg_lo);
	uint64_t khi = t_lv3_kernel(h, 5 * T_MS, 32, &t_wg_hi);
	struct hsaqm_hsa_signal lcs = t_hsa_signal(h, 1), hcs = t_hsa_signal(h, 1);

	t_lv3_submit(lo, klo, 2560, lcs);
	CU_ASSERT_FATAL(t_wait_running(h, lo));
	t_sleep_us(2000);
	uint64_t t0 = hsaqm_sim_now_ns(h->sim);
	t_lv3_submit(hi, khi, 1, hcs);
	/* The reaction ran inline in t_lv3_submit(): the low queue is off the hardware already. */
	struct sim_hwq_info li = t_app_hwinfo(h, lo);
	CU_ASSERT_EQUAL(li.state, SIM_HWQ_SUSPENDED);
	CU_ASSERT_EQUAL(li.waves_saved, 2560);
	CU_ASSERT_EQUAL(t_app_xinfo(lo).mechanism, want);
	CU_ASSERT_TRUE(t_hsa_wait_le(h, hcs, 0, 5 * T_S));
	struct hsaqm_hsa_amd_profiling_dispatch_time dt = { 0, 0 };
	h->amd->hsa_amd_profiling_get_dispatch_time_fn(h->gpu[0], hcs, &dt);
	CU_ASSERT_TRUE(t_hsa_wait_le(h, lcs, 0, 5 * T_S));
	/*
	 * The high kernel ended before the low kernel did: without the suspension it needs
	 * the wave slots that every low workgroup holds for 50 ms, so it could only end after
	 * them. An order of model times, which no host stall can fake (a bound of 25 ms after
	 * the submission once failed under TSan on a busy machine: the real-time model's clock
	 * runs on while the host stalls).
	 */
	struct hsaqm_hsa_amd_profiling_dispatch_time ldt = { 0, 0 };

	h->amd->hsa_amd_profiling_get_dispatch_time_fn(h->gpu[0], lcs, &ldt);
	CU_ASSERT(dt.end > t0 && ldt.end > 0 && dt.end < ldt.end);
	CU_ASSERT(t_each_once(&t_wg_lo, 2560));
	CU_ASSERT(t_each_once(&t_wg_hi, 1));
	CU_ASSERT_FALSE(t_hw_suspended(lo));
	h->core->hsa_signal_destroy_fn(lcs);
	h->core->hsa_signal_destroy_fn(hcs);
}

static inline void t_open_pair(struct t_hsa *h, struct t_app *lo, struct t_app *hi)
{
	struct hsaqm_xq_config lcfg = { .level = HSAQM_LEVEL_3, .priority = 0, .name = "low" };
	struct hsaqm_xq_config hcfg = { .level = HSAQM_LEVEL_3, .priority = 10, .name = "high" };

	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(h, 0, 64, &lcfg, lo), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(h, 0, 64, &hcfg, hi), 0);
}

static inline void t_close_pair(struct t_hsa *h, struct t_app *lo, struct t_app *hi)
{
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(lo->proxy), 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(hi->proxy), 0);
	t_hsa_close(h);
}

#endif /* T_HSA_BACKEND_LV3_H */
