/* SPDX-License-Identifier: MIT */
/*
 * The model's KFD face, tested through kfd-ioctl's public API: queues as amdkfd makes them:
 * CREATE_QUEUE's checks, queue ids and doorbells, unknown queues, packets rung through the mapped
 * doorbell, UPDATE_QUEUE priority and percentage 0, SET_CU_MASK, GET_QUEUE_WAVE_STATE and
 * sched_policy 1 (docs/sim.md, "The KFD face", names the source of each rule).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine_internal.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"

static void test_create_queue_validates_like_amdkfd(void)
{
	struct hsaqm_kfd_create_queue_args a;
	struct t_kfd_env e;
	struct t_kfd_q q;
	uint64_t *host = calloc(512, 8);

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
#define TRY(field, value, err)                                                   \
	do {                                                                     \
		t_kfd_q_args(&e, &q, 64, 7, 100, &a);                            \
		a.field = value;                                                 \
		CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_CREATE_QUEUE, &a), err); \
	} while (0)
	TRY(queue_priority, 16, -EINVAL);
	TRY(queue_percentage, 101, -EINVAL);
	TRY(ring_size, 3000, -EINVAL);
	TRY(gpu_id, e.gpu_id ^ 0x5a5a, -EINVAL);
	TRY(queue_type, 9, -524); /* kernel-internal ENOTSUPP leaks out */
	TRY(queue_type, HSAQM_KFD_QUEUE_TYPE_SDMA, -EOPNOTSUPP); /* not modelled */
	TRY(ring_base_address, (uint64_t)(uintptr_t)host, -EFAULT);
	TRY(ring_base_address, 0, -EFAULT);
	TRY(write_pointer_address, (uint64_t)(uintptr_t)host, -EFAULT);
	TRY(read_pointer_address, 0, -EFAULT);
#undef TRY
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 0);

	/* A ring below 1 KiB is raised to KFD_MIN_QUEUE_RING_SIZE and the caller sees it. */
	t_kfd_q_args(&e, &q, 16, 7, 100, &a);
	a.ring_size = 256;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(e.kfd, &a), 0);
	CU_ASSERT_EQUAL(a.ring_size, HSAQM_KFD_MIN_QUEUE_RING_SIZE);
	struct sim_hwq_info info;
	q.id = a.queue_id;
	CU_ASSERT_EQUAL(sim_hwq_get_info(t_kfd_hwq(&e, &q), &info), 0);
	CU_ASSERT_EQUAL(info.ring_size_bytes, HSAQM_KFD_MIN_QUEUE_RING_SIZE);
	t_kfd_env_close(&e);
	free(host);
}

static void test_queue_ids_are_the_lowest_free_and_doorbells_encode_the_gpu(void)
{
	struct t_kfd_env e;
	struct t_kfd_q q[4];

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(t_kfd_q_create(&e, &q[i], 16, 7), 0);
		CU_ASSERT_EQUAL(q[i].id, (uint32_t)i);
		CU_ASSERT_EQUAL(q[i].doorbell_offset >> 62, 3u); /* KFD_MMAP_TYPE_DOORBELL */
		CU_ASSERT_EQUAL((q[i].doorbell_offset >> 46) & 0xffff, e.gpu_id);
		CU_ASSERT_EQUAL(q[i].doorbell_offset & (T_KFD_DB_SLICE - 1), (uint64_t)i * 8);
	}
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, 1), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, 1), -EINVAL); /* gone */
	CU_ASSERT_EQUAL(t_kfd_q_create(&e, &q[3], 16, 7), 0);
	CU_ASSERT_EQUAL(q[3].id, 1);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 3);
	t_kfd_env_close(&e);
}

static void test_unknown_queue_is_einval_for_destroy_and_efault_for_the_rest(void)
{
	struct t_kfd_env e;
	uint32_t mask[4] = { 0xffffffffu, 0xffffffffu, 0xffffffffu, 0 };
	uint8_t stack[64];

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, 42), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, 42, 0, 0, 100, 7), -EFAULT);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_set_cu_mask(e.kfd, 42, mask, 128), -EFAULT);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(e.kfd, 42, stack, NULL, NULL), -EFAULT);
	t_kfd_env_close(&e);
}

static void test_queue_runs_packets_rung_through_the_mapped_doorbell(void)
{
	struct t_kfd_env e;
	struct t_kfd_q q;
	static struct t_wg_rec r;
	void *page = NULL;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_map(&e, &q), 0);
	uint64_t k = t_kfd_kernel(e.sim, 100 * T_US, 4, &r);
	struct sim_signal *cs = sim_signal_create(e.sim, 2);
	union hsaqm_aql_packet p1 = t_dispatch(k, 20, t_handle(cs), false);
	union hsaqm_aql_packet p2 = t_dispatch(k, 20, t_handle(cs), false);

	CU_ASSERT_NOT_EQUAL(t_kfd_q_submit(&e, &q, &p1), UINT64_MAX);
	CU_ASSERT_NOT_EQUAL(t_kfd_q_submit(&e, &q, &p2), UINT64_MAX);
	CU_ASSERT_EQUAL(sim_signal_wait(e.sim, cs, SIM_COND_EQ, 0, T_S), 0);
	/* Acquire: pairs with t_wg_rec_cb's adds and with the packet processor's release of rd. */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&r.count), 40);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(q.rd), 2); /* consumed */

	/* The doorbell page: exactly the process's slice, on a known GPU, page-aligned. */
	CU_ASSERT_EQUAL(hsaqm_kfd_mmap(e.kfd, NULL, 4096, PROT_WRITE, MAP_SHARED,
				       (off_t)(q.doorbell_offset & ~8191ull), &page), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_mmap(e.kfd, NULL, T_KFD_DB_SLICE, PROT_WRITE, MAP_SHARED,
				       (off_t)((3ull << 62) | ((uint64_t)(e.gpu_id ^ 1) << 46)),
				       &page), -ENODEV);
	CU_ASSERT_EQUAL(hsaqm_kfd_mmap(e.kfd, NULL, T_KFD_DB_SLICE, PROT_WRITE, MAP_SHARED,
				       (off_t)((q.doorbell_offset & ~8191ull) | 8), &page),
			-EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_mmap(e.kfd, NULL, 4096, PROT_READ, MAP_SHARED,
				       (off_t)(2ull << 62), &page), -EINVAL); /* no events page */
	sim_signal_destroy(e.sim, cs);
	t_kfd_env_close(&e);
}

static void test_update_queue_priority_reaches_the_hardware_queue(void)
{
	struct t_kfd_env e;
	struct t_kfd_q q;
	struct sim_hwq_info info;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 3), 0);
	CU_ASSERT_EQUAL(sim_hwq_get_info(t_kfd_hwq(&e, &q), &info), 0);
	CU_ASSERT_EQUAL(info.priority, 3);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, q.id, (uint64_t)(uintptr_t)q.ring, 1024, 100,
					       15), 0);
	CU_ASSERT_EQUAL(sim_hwq_get_info(t_kfd_hwq(&e, &q), &info), 0);
	CU_ASSERT_EQUAL(info.priority, 15);
	/* The face's own checks (the layer's are bypassed). */
	struct hsaqm_kfd_update_queue_args u = { .queue_id = q.id, .queue_percentage = 100,
						 .queue_priority = 16 };
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_UPDATE_QUEUE, &u), -EINVAL);
	u.queue_priority = 5;
	u.ring_size = 1000;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_UPDATE_QUEUE, &u), -EINVAL);
	u.ring_size = 1024;
	u.ring_base_address = (uint64_t)(uintptr_t)&u; /* not model memory */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_UPDATE_QUEUE, &u), -EFAULT);
	t_kfd_env_close(&e);
}

static void test_percentage_zero_deactivates_and_unmaps_every_queue_of_the_device(void)
{
	struct t_kfd_env e;
	struct t_kfd_q a, b;
	static struct t_wg_rec ra, rb;
	struct sim_hwq_stats before, after;
	struct sim_hwq_info info;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &a, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &b, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_map(&e, &a), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_map(&e, &b), 0);
	uint64_t ka = t_kfd_kernel(e.sim, 2 * T_MS, 8, &ra);
	uint64_t kb = t_kfd_kernel(e.sim, 2 * T_MS, 8, &rb);
	struct sim_signal *csa = sim_signal_create(e.sim, 1), *csb = sim_signal_create(e.sim, 1);
	union hsaqm_aql_packet pa = t_dispatch(ka, 4, t_handle(csa), false);
	union hsaqm_aql_packet pb = t_dispatch(kb, 4, t_handle(csb), false);

	CU_ASSERT_NOT_EQUAL(t_kfd_q_submit(&e, &a, &pa), UINT64_MAX);
	CU_ASSERT_NOT_EQUAL(t_kfd_q_submit(&e, &b, &pb), UINT64_MAX);
	hsaqm_sim_advance(e.sim, 500 * T_US);
	sim_hwq_get_stats(t_kfd_hwq(&e, &a), &before);
	/* B inactive: the KFD unmaps every dynamic queue to do it, A included. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, b.id, (uint64_t)(uintptr_t)b.ring, 1024, 0,
					       7), 0);
	sim_hwq_get_stats(t_kfd_hwq(&e, &a), &after);
	CU_ASSERT_EQUAL(after.unmaps, before.unmaps + 1);
	CU_ASSERT(after.waves_saved_total > before.waves_saved_total); /* A's waves were saved */
	CU_ASSERT_EQUAL(sim_hwq_get_info(t_kfd_hwq(&e, &b), &info), 0);
	CU_ASSERT_EQUAL(info.state, SIM_HWQ_SUSPENDED);
	/* A finishes; B does not move while inactive, and its wave state is readable. */
	CU_ASSERT_EQUAL(sim_signal_wait(e.sim, csa, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT(t_wg_each_once(&ra, 4));
	hsaqm_sim_advance(e.sim, 10 * T_MS);
	CU_ASSERT_EQUAL(sim_signal_load(csb), 1);
	uint32_t used = 0, save = 0;
	uint8_t *stack = calloc(1, 8192);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(e.kfd, b.id, stack, &used, &save), 0);
	CU_ASSERT_EQUAL(used, 40 + 8 * 32);
	CU_ASSERT(save > 0);
	free(stack);
	/* Back to 100 %: B resumes and every workgroup still runs once. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, b.id, (uint64_t)(uintptr_t)b.ring, 1024, 100,
					       7), 0);
	CU_ASSERT_EQUAL(sim_signal_wait(e.sim, csb, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT(t_wg_each_once(&rb, 4));
	/* A NULL ring (6.12+) deactivates too. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, a.id, 0, 0, 100, 7), 0);
	CU_ASSERT_EQUAL(sim_hwq_get_info(t_kfd_hwq(&e, &a), &info), 0);
	CU_ASSERT_EQUAL(info.state, SIM_HWQ_SUSPENDED);
	sim_signal_destroy(e.sim, csa);
	sim_signal_destroy(e.sim, csb);
	t_kfd_env_close(&e);
}

static uint64_t run_full_cu_kernel(struct t_kfd_env *e, const uint32_t *mask, uint32_t bits)
{
	struct t_kfd_q q;
	static struct t_wg_rec r;

	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_map(e, &q), 0);
	if (mask)
		CU_ASSERT_EQUAL(hsaqm_kfd_queue_set_cu_mask(e->kfd, q.id, mask, bits), 0);
	/* A workgroup fills a CU (4 SIMDs x 8 waves): one CU runs one at a time. */
	uint64_t k = t_kfd_kernel(e->sim, 100 * T_US, 32, &r);
	struct sim_signal *cs = sim_signal_create(e->sim, 1);
	union hsaqm_aql_packet p = t_dispatch(k, 4, t_handle(cs), false);
	uint64_t t0 = hsaqm_sim_now_ns(e->sim);

	CU_ASSERT_NOT_EQUAL(t_kfd_q_submit(e, &q, &p), UINT64_MAX);
	CU_ASSERT_EQUAL(sim_signal_wait(e->sim, cs, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT(t_wg_each_once(&r, 4));
	sim_signal_destroy(e->sim, cs);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e->kfd, q.id), 0);
	return hsaqm_sim_now_ns(e->sim) - t0;
}

static void test_set_cu_mask_restricts_the_queue_and_checks_its_count(void)
{
	struct t_kfd_env e;
	uint32_t one_cu[32] = { 1 }; /* 1024 bits, CU 0 only */
	struct hsaqm_kfd_set_cu_mask_args m = { .num_cu_mask = 40 };
	struct t_kfd_q q;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	uint64_t all = run_full_cu_kernel(&e, NULL, 0);
	uint64_t one = run_full_cu_kernel(&e, one_cu, 1024);
	CU_ASSERT(all < 200 * T_US);
	CU_ASSERT(one >= 400 * T_US); /* four workgroups one after the other */

	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	m.queue_id = q.id;
	m.cu_mask_ptr = (uint64_t)(uintptr_t)one_cu;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_CU_MASK, &m), -EINVAL);
	m.num_cu_mask = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_CU_MASK, &m), -EINVAL);
	m.num_cu_mask = 2048; /* bits past 1024 are dropped */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_CU_MASK, &m), 0);
	m.cu_mask_ptr = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_CU_MASK, &m), -EFAULT);
	t_kfd_env_close(&e);
}

static void test_wave_state_is_einval_while_active_or_without_cwsr(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .cwsr_disable = 1 };
	uint8_t *stack = calloc(1, 8192);
	struct t_kfd_env e;
	struct t_kfd_q q;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(e.kfd, q.id, stack, NULL, NULL), -EINVAL);
	t_kfd_env_close(&e);

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, q.id, (uint64_t)(uintptr_t)q.ring, 1024, 0,
					       7), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(e.kfd, q.id, stack, NULL, NULL), -EINVAL);
	t_kfd_env_close(&e);
	free(stack);
}

static void test_sched_policy_1_refuses_oversubscription_with_eperm(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .sched_policy = 1 };
	struct t_kfd_env e;
	struct t_kfd_q q;
	uint32_t slots;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open_cfg(&e, &cfg), 0);
	slots = sim_device_profile(e.sim, 0)->hqd_slots;
	for (uint32_t i = 0; i < slots; i++)
		CU_ASSERT_EQUAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL(t_kfd_q_create(&e, &q, 16, 7), -EPERM);
	/* An inactive queue does not count. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, 0, 0, 0, 0, 7), 0);
	CU_ASSERT_EQUAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	t_kfd_env_close(&e);
}

static const struct t_case cases[] = {
	T_CASE(test_create_queue_validates_like_amdkfd),
	T_CASE(test_queue_ids_are_the_lowest_free_and_doorbells_encode_the_gpu),
	T_CASE(test_unknown_queue_is_einval_for_destroy_and_efault_for_the_rest),
	T_CASE(test_queue_runs_packets_rung_through_the_mapped_doorbell),
	T_CASE(test_update_queue_priority_reaches_the_hardware_queue),
	T_CASE(test_percentage_zero_deactivates_and_unmaps_every_queue_of_the_device),
	T_CASE(test_set_cu_mask_restricts_the_queue_and_checks_its_count),
	T_CASE(test_wave_state_is_einval_while_active_or_without_cwsr),
	T_CASE(test_sched_policy_1_refuses_oversubscription_with_eperm),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-kfd-queues", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-kfd-queues", suites);
}
