/* SPDX-License-Identifier: MIT */
/*
 * The HSA backend's Lv3 fallback chain DBG_TRAP -> UPDATE_QUEUE -> Lv2 + spatial on the device
 * model, with the reason in the stats: a debugger elsewhere, or DBG_TRAP refused at the
 * suspend, moves on to UPDATE_QUEUE; without either the chain ends at Lv2 with spatial; static
 * spatial masks the reserve off, and turning it off gives it back.
 *
 * Real time: the resume runs in the marker handler, which may block on the model only in real
 * time.
 */
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
#include "t_hsa_backend_lv3.h"

static uint32_t mask_word(struct t_hsa *h, struct t_app *a, uint32_t word);

/* Chain, step one: DBG_TRAP held by another debugger (EALREADY) -> UPDATE_QUEUE, said why. */
static void test_a_debugger_elsewhere_moves_lv3_to_update_queue(void)
{
	struct t_hsa h;
	struct t_app lo, hi;
	struct hsaqm_kfd *dbg = NULL;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open(&h, HSAQM_SIM_TIME_REAL, 1), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_lv3_setup(&h), 0);
	CU_ASSERT_EQUAL_FATAL(hsa_face_kfd_ready(h.sim), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(hsaqm_sim_kfd_transport(h.sim), &dbg), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_dbg_enable(dbg, 0, NULL), 0); /* "rocgdb" */
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, hsaqm_kfd_transport_default()), 0);
	t_open_pair(&h, &lo, &hi);
	struct hsaqm_xq_info info = t_app_xinfo(&lo);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL(info.mechanism, HSAQM_MECH_UPDATE_QUEUE);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.mechanism_reason, "UPDATE_QUEUE instead of DBG_TRAP"));
	CU_ASSERT_PTR_NOT_NULL(strstr(info.mechanism_reason, "EALREADY"));
	t_preempt_round(&h, &lo, &hi, HSAQM_MECH_UPDATE_QUEUE);
	char *json = NULL;
	CU_ASSERT_EQUAL(hsaqm_ctx_stats_json(h.ctx, &json), 0);
	CU_ASSERT_PTR_NOT_NULL(json && strstr(json, "\"mechanism\":\"update_queue\""));
	free(json);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(lo.proxy), 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(hi.proxy), 0);
	hsaqm_kfd_dbg_disable(dbg);
	hsaqm_kfd_close(dbg);
	t_hsa_close(&h);
}

/* A compute queue made through the KFD before the runtime's first: RUNTIME_ENABLE then fails. */
static int early_kfd_queue(struct t_hsa *h, struct hsaqm_kfd *kfd)
{
	struct hsaqm_kfd_create_queue_args a;
	uint32_t slots = 64;
	union hsaqm_aql_packet *ring = hsaqm_sim_mem_alloc(h->sim, (size_t)slots * 64, 64);
	uint64_t *idx = hsaqm_sim_mem_alloc(h->sim, 64, 64);

	if (!ring || !idx)
		return -ENOMEM;
	for (uint32_t i = 0; i < slots; i++)
		ring[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	memset(&a, 0, sizeof(a));
	a.ring_base_address = (uint64_t)(uintptr_t)ring;
	a.write_pointer_address = (uint64_t)(uintptr_t)&idx[0];
	a.read_pointer_address = (uint64_t)(uintptr_t)&idx[1];
	a.ring_size = slots * 64;
	a.gpu_id = sim_kfd_gpu_id(h->sim, 0);
	a.queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL;
	a.queue_percentage = 100;
	a.queue_priority = 7;
	a.ctl_stack_size = 8192;
	return hsaqm_kfd_queue_create(kfd, &a);
}

/*
 * Chain, at the suspend: DBG_TRAP ENABLE works but SUSPEND_QUEUES is refused with EPERM (the
 * runtime never enabled the debugger interface): the same suspend goes on with UPDATE_QUEUE,
 * and later queues start with it.
 */
static void test_dbg_trap_refused_at_the_suspend_moves_on_to_update_queue(void)
{
	struct t_hsa h;
	struct t_app lo, hi;
	struct hsaqm_kfd *early = NULL;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open(&h, HSAQM_SIM_TIME_REAL, 1), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_lv3_setup(&h), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(hsaqm_sim_kfd_transport(h.sim), &early), 0);
	CU_ASSERT_EQUAL_FATAL(early_kfd_queue(&h, early), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, hsaqm_kfd_transport_default()), 0);
	t_open_pair(&h, &lo, &hi);
	/* ENABLE and the snapshot work: DBG_TRAP is chosen; its SUSPEND will be refused. */
	CU_ASSERT_EQUAL(t_app_xinfo(&lo).mechanism, HSAQM_MECH_DBG_TRAP);
	t_preempt_round(&h, &lo, &hi, HSAQM_MECH_UPDATE_QUEUE);
	struct hsaqm_xq_info info = t_app_xinfo(&lo);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_3);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.mechanism_reason, "EPERM"));
	/* The runtime learned it: the high queue's mechanism is UPDATE_QUEUE too. */
	CU_ASSERT_EQUAL(t_app_xinfo(&hi).mechanism, HSAQM_MECH_UPDATE_QUEUE);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(lo.proxy), 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(hi.proxy), 0);
	hsaqm_kfd_close(early); /* before the model goes */
	t_hsa_close(&h);
}

/*
 * Chain, last step: no Lv3 mechanism at all (CWSR off) -> Lv2 with spatial (auto), the reason
 * in the stats. Without CWSR the mask change waits for the running workgroups (docs/sim.md):
 * spatial then keeps the reserve free from the next workgroup on.
 */
static void test_without_lv3_the_chain_ends_at_lv2_with_spatial(void)
{
	struct hsaqm_sim_config c = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL,
				      .cwsr_disable = 1 };
	struct t_hsa h;
	struct t_app lo, hi;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_cfg(&h, &c), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_lv3_setup(&h), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, hsaqm_kfd_transport_default()), 0);
	t_open_pair(&h, &lo, &hi);
	struct hsaqm_xq *lx = hsaqm_hsa_proxy_xq(lo.proxy);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lx, HSAQM_SPATIAL_AUTO, 250), 0);
	uint64_t klo = t_lv3_kernel(&h, 20 * T_MS, 1, &t_wg_lo);
	struct hsaqm_hsa_signal lcs = t_hsa_signal(&h, 1), hcs = t_hsa_signal(&h, 1);
	uint64_t khi = t_lv3_kernel(&h, 5 * T_MS, 1, &t_wg_hi);

	t_lv3_submit(&lo, klo, 2560, lcs);
	CU_ASSERT_FATAL(t_wait_running(&h, &lo));
	t_lv3_submit(&hi, khi, 1, hcs);
	struct hsaqm_xq_info info = t_app_xinfo(&lo);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(info.mechanism, HSAQM_MECH_GATE);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.mechanism_reason, "cwsr_enable=0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(info.mechanism_reason, "spatial dynamic"));
	CU_ASSERT_TRUE(info.confined);
	CU_ASSERT_EQUAL(mask_word(&h, &lo, 0), 0xfff00000u); /* CUs 0-19 off */
	CU_ASSERT_TRUE(t_hsa_wait_le(&h, hcs, 0, 5 * T_S));
	CU_ASSERT_TRUE(t_hsa_wait_le(&h, lcs, 0, 5 * T_S));
	CU_ASSERT(t_each_once(&t_wg_lo, 2560));
	/* Every CU back once lib saw the high queue go idle (its marker handler, a moment later). */
	uint64_t end = t_mono_ns() + 5 * T_S;
	while (t_app_xinfo(&lo).confined && t_mono_ns() < end)
		t_sleep_us(200);
	CU_ASSERT_FALSE(t_app_xinfo(&lo).confined);
	CU_ASSERT_EQUAL(mask_word(&h, &lo, 0), 0xffffffffu);
	h.core->hsa_signal_destroy_fn(lcs);
	h.core->hsa_signal_destroy_fn(hcs);
	t_close_pair(&h, &lo, &hi);
}

/* The hardware queue's CU mask as the runtime reports it. */
static uint32_t mask_word(struct t_hsa *h, struct t_app *a, uint32_t word)
{
	uint32_t m[4] = { 0 };

	CU_ASSERT_EQUAL(h->amd->hsa_amd_queue_cu_get_mask_fn(hsaqm_hsa_proxy_hw_queue(a->proxy),
							      128, m), HSAQM_HSA_STATUS_SUCCESS);
	return word < 4 ? m[word] : 0;
}

/* Static spatial: the first quarter of the 80 CUs kept free; off gives them back; destroy while confined. */
static void test_static_spatial_masks_the_reserve_off_and_off_gives_it_back(void)
{
	struct t_hsa h;
	struct t_app lo, hi;

	t_lv3_open_model(&h, HSAQM_KFD_PREF_AUTO);
	t_open_pair(&h, &lo, &hi);
	struct hsaqm_xq *lx = hsaqm_hsa_proxy_xq(lo.proxy);
	/* The application's own mask (CUs 0-63) is kept under the confinement. */
	uint32_t app[3] = { 0xffffffffu, 0xffffffffu, 0 };
	CU_ASSERT_EQUAL(h.amd->hsa_amd_queue_cu_set_mask_fn(hsaqm_hsa_proxy_hw_queue(lo.proxy), 96,
							     app), HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lx, HSAQM_SPATIAL_STATIC, 250), 0);
	/* 20 CUs reserved: CUs 20-63 left (the application had no 64-79). */
	CU_ASSERT_EQUAL(mask_word(&h, &lo, 0), 0xfff00000u);
	CU_ASSERT_EQUAL(mask_word(&h, &lo, 1), 0xffffffffu);
	CU_ASSERT_EQUAL(mask_word(&h, &lo, 2), 0);
	CU_ASSERT_TRUE(t_app_xinfo(&lo).confined);
	/* Off again: the application's mask comes back. */
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lx, HSAQM_SPATIAL_OFF, 0), 0);
	CU_ASSERT_EQUAL(mask_word(&h, &lo, 0), 0xffffffffu);
	CU_ASSERT_EQUAL(mask_word(&h, &lo, 2), 0);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lx, HSAQM_SPATIAL_STATIC, 500), 0);
	CU_ASSERT_EQUAL(mask_word(&h, &lo, 0), 0);
	CU_ASSERT_EQUAL(mask_word(&h, &lo, 1), 0xffffff00u); /* CUs 40-63 */
	/* Work submitted while confined runs, once, on the CUs it has. */
	uint64_t klo = t_lv3_kernel(&h, T_MS, 1, &t_wg_lo);
	struct hsaqm_hsa_signal lcs = t_hsa_signal(&h, 1);
	t_lv3_submit(&lo, klo, 100, lcs);
	CU_ASSERT_TRUE(t_hsa_wait_le(&h, lcs, 0, 5 * T_S));
	CU_ASSERT(t_each_once(&t_wg_lo, 100));
	h.core->hsa_signal_destroy_fn(lcs);
	/*
	 * Destroy while confined: lib's detach gives the CUs back before the hardware queue goes
	 * (lib's side of it: test-lib-engine, "given back on detach"); here, that it completes.
	 * Not hsaqm_xq_detach() by hand: the proxy's marker handler may still report to lib.
	 */
	CU_ASSERT_TRUE(t_app_xinfo(&lo).confined);
	t_close_pair(&h, &lo, &hi);
}

static const struct t_case cases[] = {
	T_CASE(test_a_debugger_elsewhere_moves_lv3_to_update_queue),
	T_CASE(test_dbg_trap_refused_at_the_suspend_moves_on_to_update_queue),
	T_CASE(test_without_lv3_the_chain_ends_at_lv2_with_spatial),
	T_CASE(test_static_spatial_masks_the_reserve_off_and_off_gives_it_back),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsa-backend-lv3-fallback", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-hsa-backend-lv3-fallback", suites);
}
