/* SPDX-License-Identifier: MIT */
/*
 * The HSA backend's UPDATE_QUEUE mechanism on the device model: it suspends a running kernel
 * with every workgroup run once; the queue's KFD id comes from sysfs kfd/proc; a priority change
 * waits while UPDATE_QUEUE holds the queue; destroy while suspended runs everything.
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

static void test_update_queue_suspends_mid_kernel_and_every_workgroup_runs_once(void)
{
	struct t_hsa h;
	struct t_app lo, hi;

	t_lv3_open_model(&h, HSAQM_KFD_PREF_UPDATE_QUEUE);
	t_open_pair(&h, &lo, &hi);
	struct hsaqm_xq_info info = t_app_xinfo(&lo);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL(info.mechanism, HSAQM_MECH_UPDATE_QUEUE);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.mechanism_reason, "asked for"));
	t_preempt_round(&h, &lo, &hi, HSAQM_MECH_UPDATE_QUEUE);
	CU_ASSERT(lo.proxy->n_suspend >= 1 && lo.proxy->n_suspend == lo.proxy->n_resume);
	/* No debugger session: another one can still attach to this process. */
	struct hsaqm_kfd *dbg = NULL;
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(hsaqm_sim_kfd_transport(h.sim), &dbg), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(dbg, 0, NULL), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(dbg), 0);
	hsaqm_kfd_close(dbg);
	t_close_pair(&h, &lo, &hi);
}

/* The KFD id the backend took from sysfs kfd/proc is the queue's (the debugger's view agrees). */
static void test_the_kfd_queue_id_comes_from_sysfs_kfd_proc(void)
{
	struct t_hsa h;
	struct t_app lo, hi;
	struct hsaqm_kfd_queue_snapshot_entry e[8];
	uint32_t n = 8;
	struct hsaqm_kfd *dbg = NULL;

	t_lv3_open_model(&h, HSAQM_KFD_PREF_UPDATE_QUEUE);
	t_open_pair(&h, &lo, &hi);
	CU_ASSERT_TRUE(lo.proxy->have_sysfs_id);
	CU_ASSERT_TRUE(hi.proxy->have_sysfs_id);
	CU_ASSERT_NOT_EQUAL(lo.proxy->sysfs_id, hi.proxy->sysfs_id);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(hsaqm_sim_kfd_transport(h.sim), &dbg), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_dbg_enable(dbg, 0, NULL), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(dbg, 0, e, &n), 0);
	for (uint32_t i = 0; i < n && i < 8; i++) {
		if (e[i].ring_base_address == (uint64_t)(uintptr_t)lo.proxy->hwq->base_address)
			CU_ASSERT_EQUAL(e[i].queue_id, lo.proxy->sysfs_id);
		if (e[i].ring_base_address == (uint64_t)(uintptr_t)hi.proxy->hwq->base_address)
			CU_ASSERT_EQUAL(e[i].queue_id, hi.proxy->sysfs_id);
	}
	hsaqm_kfd_dbg_disable(dbg);
	hsaqm_kfd_close(dbg);
	t_close_pair(&h, &lo, &hi);
}

/* Priority changes while UPDATE_QUEUE holds the queue wait for the resume (ROCr's would wake it). */
static void test_a_priority_change_waits_while_update_queue_holds_the_queue(void)
{
	struct t_hsa h;
	struct t_app lo, hi;

	t_lv3_open_model(&h, HSAQM_KFD_PREF_UPDATE_QUEUE);
	t_open_pair(&h, &lo, &hi);
	uint64_t klo = t_lv3_kernel(&h, 20 * T_MS, 1, &t_wg_lo);
	uint64_t khi = t_lv3_kernel(&h, 20 * T_MS, 32, &t_wg_hi);
	struct hsaqm_hsa_signal lcs = t_hsa_signal(&h, 1), hcs = t_hsa_signal(&h, 1);

	t_lv3_submit(&lo, klo, 2560, lcs);
	CU_ASSERT_FATAL(t_wait_running(&h, &lo));
	t_lv3_submit(&hi, khi, 1, hcs);
	CU_ASSERT_EQUAL(t_app_hwinfo(&h, &lo).state, SIM_HWQ_SUSPENDED);
	/* The application asks for HIGH on the low queue: still held, priority waits. */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_set_priority(lo.proxy, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH,
						     0, 0), 0);
	CU_ASSERT_EQUAL(t_app_hwinfo(&h, &lo).state, SIM_HWQ_SUSPENDED);
	CU_ASSERT_EQUAL(t_app_hwinfo(&h, &lo).priority, 7);
	CU_ASSERT_TRUE(t_hsa_wait_le(&h, hcs, 0, 5 * T_S));
	CU_ASSERT_TRUE(t_hsa_wait_le(&h, lcs, 0, 5 * T_S));
	/* Resumed by the runtime's own set_priority: the new priority, everything once. */
	CU_ASSERT_EQUAL(t_app_hwinfo(&h, &lo).priority, 11);
	CU_ASSERT(t_each_once(&t_wg_lo, 2560));
	h.core->hsa_signal_destroy_fn(lcs);
	h.core->hsa_signal_destroy_fn(hcs);
	t_close_pair(&h, &lo, &hi);
}

/* Destroy while UPDATE_QUEUE holds the queue: resumed, everything runs, nothing left stopped. */
static void test_destroy_while_update_suspended_runs_everything(void)
{
	struct t_hsa h;
	struct t_app lo, hi;

	t_lv3_open_model(&h, HSAQM_KFD_PREF_UPDATE_QUEUE);
	t_open_pair(&h, &lo, &hi);
	uint64_t klo = t_lv3_kernel(&h, 20 * T_MS, 1, &t_wg_lo);
	uint64_t khi = t_lv3_kernel(&h, 200 * T_MS, 32, &t_wg_hi);
	struct hsaqm_hsa_signal lcs = t_hsa_signal(&h, 1), hcs = t_hsa_signal(&h, 1);

	t_lv3_submit(&lo, klo, 2560, lcs);
	CU_ASSERT_FATAL(t_wait_running(&h, &lo));
	t_lv3_submit(&hi, khi, 1, hcs);
	CU_ASSERT_EQUAL(t_app_hwinfo(&h, &lo).state, SIM_HWQ_SUSPENDED);
	CU_ASSERT_TRUE(t_hw_suspended(&lo));
	/* Destroy drains: the low queue is reactivated and runs to the end before it goes. */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(lo.proxy), 0);
	CU_ASSERT(t_each_once(&t_wg_lo, 2560));
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(lcs), 0);
	CU_ASSERT_TRUE(t_hsa_wait_le(&h, hcs, 0, 5 * T_S));
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(hi.proxy), 0);
	h.core->hsa_signal_destroy_fn(lcs);
	h.core->hsa_signal_destroy_fn(hcs);
	t_hsa_close(&h);
}

static const struct t_case cases[] = {
	T_CASE(test_update_queue_suspends_mid_kernel_and_every_workgroup_runs_once),
	T_CASE(test_the_kfd_queue_id_comes_from_sysfs_kfd_proc),
	T_CASE(test_a_priority_change_waits_while_update_queue_holds_the_queue),
	T_CASE(test_destroy_while_update_suspended_runs_everything),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsa-backend-lv3-update-queue", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-hsa-backend-lv3-update-queue", suites);
}
