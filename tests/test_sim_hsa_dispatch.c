/* SPDX-License-Identifier: MIT */
/*
 * The device model's HSA face: what a queue's packets and settings do on the hardware queue: a
 * barrier-AND across two queues, priorities as KFD priorities, the CU mask, profiling times in
 * model ns, a malformed packet (the queue's error callback; other queues run on); each with the
 * face's queues made directly and through the KFD face.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"

/* Prototypes of the entries the mirror types as hsaqm_api_fn. */
typedef hsaqm_hsa_status_t (*convert_tick_fn)(struct hsaqm_hsa_agent, uint64_t, uint64_t *);
typedef hsaqm_hsa_status_t (*copy_time_fn)(struct hsaqm_hsa_signal, void *);

static void run_barrier_and_across_two_queues_waits_for_both_signals(bool kfd)
{
	struct t_face h;

	CU_ASSERT_FATAL(t_face_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	struct hsaqm_hsa_queue *qa = t_face_queue(&h, 0, 64, NULL, NULL);
	struct hsaqm_hsa_queue *qb = t_face_queue(&h, 0, 64, NULL, NULL);
	uint64_t long_k = t_face_kernel(&h, 300 * T_US, 1, NULL, NULL);
	uint64_t short_k = t_face_kernel(&h, 10 * T_US, 1, NULL, NULL);
	struct hsaqm_hsa_signal sa = t_face_signal(&h, 1), host = t_face_signal(&h, 1),
				sbar = t_face_signal(&h, 1), sb = t_face_signal(&h, 1);

	union hsaqm_aql_packet pa = t_face_dispatch(long_k, 1, sa.handle);
	t_face_submit(&h, qa, &pa);
	uint64_t deps[2] = { sa.handle, host.handle };
	union hsaqm_aql_packet bar = t_face_barrier_and(deps, 2, sbar.handle);
	union hsaqm_aql_packet pb = t_face_dispatch(short_k, 1, sb.handle);
	t_face_submit(&h, qb, &bar);
	t_face_submit(&h, qb, &pb);

	/* Queue A's kernel completes; B still waits for the host's signal. */
	CU_ASSERT_EQUAL(t_face_wait_eq(&h, sa, 0, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_advance(h.sim, 1 * T_MS), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(sb), 1);
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_read_index_scacquire_fn(qb), 0);
	uint64_t t_host = hsaqm_sim_now_ns(h.sim);
	h.core->hsa_signal_store_screlease_fn(host, 0);
	CU_ASSERT_EQUAL(t_face_wait_eq(&h, sb, 0, UINT64_MAX), 0);
	/* Launch order: B's kernel started after both dependencies were satisfied. */
	struct hsaqm_hsa_amd_profiling_dispatch_time ta = t_face_dispatch_time(&h, sa),
						     tb = t_face_dispatch_time(&h, sb),
						     tbar = t_face_dispatch_time(&h, sbar);
	CU_ASSERT(tb.start >= ta.end);
	CU_ASSERT(tb.start >= t_host);
	CU_ASSERT(tbar.end >= t_host);
	CU_ASSERT(tb.start >= tbar.end);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(qa), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(qb), 0);
	t_face_close(&h);
}

static void test_barrier_and_across_two_queues_waits_for_both_signals_direct(void)
{
	run_barrier_and_across_two_queues_waits_for_both_signals(false);
}

static void test_barrier_and_across_two_queues_waits_for_both_signals_via_kfd(void)
{
	run_barrier_and_across_two_queues_waits_for_both_signals(true);
}

static void run_set_priority_reaches_the_hardware_queue_as_kfd_priorities(bool kfd)
{
	struct t_face h;
	struct sim_hwq_info info;

	CU_ASSERT_FATAL(t_face_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 64, NULL, NULL);
	hsaqm_hsa_amd_queue_set_priority_fn setp = h.amd->hsa_amd_queue_set_priority_fn;
	/* HSA LOW/NORMAL/HIGH -> libhsakmt -3/0/+2 -> KFD 0/7/11 (ROCm 6.2+). */
	const uint32_t expect[3] = { 0, 7, 11 };

	for (uint32_t p = 0; p < 3; p++) {
		CU_ASSERT_EQUAL(setp(q, p), 0);
		CU_ASSERT_EQUAL(sim_hwq_get_info(t_face_hwq(q), &info), 0);
		CU_ASSERT_EQUAL(info.priority, expect[p]);
	}
	CU_ASSERT_EQUAL(setp(q, 3), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(setp(NULL, 0), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	struct hsaqm_amd_queue other;
	memset(&other, 0, sizeof(other));
	CU_ASSERT_EQUAL(setp(&other.hsa_queue, 0), HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE);
	/* The queue still runs after the runlist change. */
	struct hsaqm_hsa_signal cs = t_face_signal(&h, 1);
	union hsaqm_aql_packet p = t_face_dispatch(t_face_kernel(&h, 5 * T_US, 1, NULL, NULL), 1,
						cs.handle);
	t_face_submit(&h, q, &p);
	CU_ASSERT_EQUAL(t_face_wait_eq(&h, cs, 0, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	t_face_close(&h);
}

static void test_set_priority_reaches_the_hardware_queue_as_kfd_priorities_direct(void)
{
	run_set_priority_reaches_the_hardware_queue_as_kfd_priorities(false);
}

static void test_set_priority_reaches_the_hardware_queue_as_kfd_priorities_via_kfd(void)
{
	run_set_priority_reaches_the_hardware_queue_as_kfd_priorities(true);
}

/* Model time a kernel of 4 workgroups, each filling a whole CU (32 waves), takes on @q. */
static uint64_t four_cu_kernel_time(struct t_face *h, struct hsaqm_hsa_queue *q, uint64_t k)
{
	struct hsaqm_hsa_signal cs = t_face_signal(h, 1);
	union hsaqm_aql_packet p = t_face_dispatch(k, 4, cs.handle);

	t_face_submit(h, q, &p);
	CU_ASSERT_EQUAL(t_face_wait_eq(h, cs, 0, UINT64_MAX), 0);
	struct hsaqm_hsa_amd_profiling_dispatch_time t = t_face_dispatch_time(h, cs);
	h->core->hsa_signal_destroy_fn(cs);
	return t.end - t.start;
}

static void run_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus(bool kfd)
{
	struct t_face h;
	uint32_t mask[4], got[4];

	CU_ASSERT_FATAL(t_face_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	hsaqm_hsa_amd_queue_cu_set_mask_fn set = h.amd->hsa_amd_queue_cu_set_mask_fn;
	hsaqm_hsa_amd_queue_cu_get_mask_fn get = h.amd->hsa_amd_queue_cu_get_mask_fn;
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 64, NULL, NULL);
	uint64_t k = t_face_kernel(&h, 100 * T_US, 32, NULL, NULL);

	/* Default: every CU; four CU-filling workgroups run side by side (5 us launch + 100 us). */
	CU_ASSERT_EQUAL(get(q, 96, got), 0);
	CU_ASSERT_EQUAL(got[0], UINT32_MAX);
	CU_ASSERT_EQUAL(got[1], UINT32_MAX);
	CU_ASSERT_EQUAL(got[2], 0xffff);
	CU_ASSERT_EQUAL(four_cu_kernel_time(&h, q, k), 105 * T_US);
	/* One CU: the hardware queue now runs them one after another. */
	memset(mask, 0, sizeof(mask));
	mask[0] = 1u << 5;
	CU_ASSERT_EQUAL(set(q, 32, mask), 0);
	CU_ASSERT_EQUAL(get(q, 96, got), 0);
	CU_ASSERT_EQUAL(got[0], 1u << 5);
	CU_ASSERT_EQUAL(got[1], 0);
	CU_ASSERT_EQUAL(four_cu_kernel_time(&h, q, k), 405 * T_US);
	/* Two CUs, with bits past the device's 80: set, reported reduced. */
	mask[0] = 1u << 1;
	mask[1] = 1u << 2;
	mask[3] = 1u << 31;
	CU_ASSERT_EQUAL(set(q, 128, mask), HSAQM_HSA_STATUS_CU_MASK_REDUCED);
	CU_ASSERT_EQUAL(four_cu_kernel_time(&h, q, k), 205 * T_US);
	/* Count 0 restores every CU. */
	CU_ASSERT_EQUAL(set(q, 0, NULL), 0);
	CU_ASSERT_EQUAL(four_cu_kernel_time(&h, q, k), 105 * T_US);
	/* Bad masks. */
	CU_ASSERT_EQUAL(set(q, 31, mask), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	memset(mask, 0, sizeof(mask));
	CU_ASSERT_EQUAL(set(q, 64, mask),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT); /* no CU at all */
	mask[3] = 1;
	CU_ASSERT_EQUAL(set(q, 128, mask),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT); /* none of ours */
	CU_ASSERT_EQUAL(get(q, 33, got), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	t_face_close(&h);
}

static void test_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus_direct(void)
{
	run_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus(false);
}

static void test_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus_via_kfd(void)
{
	run_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus(true);
}

static void run_profiling_dispatch_times_are_ordered_and_in_model_ns(bool kfd)
{
	struct t_face h;
	uint64_t sys = 0;

	CU_ASSERT_FATAL(t_face_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 64, NULL, NULL);
	struct hsaqm_amd_queue *a = (struct hsaqm_amd_queue *)q;
	CU_ASSERT_EQUAL(h.amd->hsa_amd_profiling_set_profiler_enabled_fn(q, 1), 0);
	CU_ASSERT_TRUE(a->queue_properties & HSAQM_AMD_QUEUE_PROPERTIES_ENABLE_PROFILING);
	CU_ASSERT_TRUE(a->queue_properties & HSAQM_AMD_QUEUE_PROPERTIES_IS_PTR64); /* kept */
	CU_ASSERT_EQUAL(hsaqm_sim_advance(h.sim, 3 * T_MS), 0);
	uint64_t k = t_face_kernel(&h, 250 * T_US, 1, NULL, NULL);
	struct hsaqm_hsa_signal c1 = t_face_signal(&h, 1), c2 = t_face_signal(&h, 1);
	union hsaqm_aql_packet p1 = t_face_dispatch(k, 1, c1.handle),
			       p2 = t_face_dispatch(k, 1, c2.handle);
	p2.dispatch.header |= 1u << HSAQM_AQL_HEADER_BARRIER_SHIFT; /* after the first completes */
	t_face_submit(&h, q, &p1);
	t_face_submit(&h, q, &p2);
	CU_ASSERT_EQUAL(t_face_wait_eq(&h, c2, 0, UINT64_MAX), 0);
	struct hsaqm_hsa_amd_profiling_dispatch_time t1 = t_face_dispatch_time(&h, c1),
						     t2 = t_face_dispatch_time(&h, c2);
	CU_ASSERT(t1.start >= 3 * T_MS);
	CU_ASSERT(t1.end - t1.start >= 250 * T_US);
	CU_ASSERT(t2.start >= t1.end);
	CU_ASSERT(t2.end > t2.start);
	CU_ASSERT(t2.end <= hsaqm_sim_now_ns(h.sim));
	convert_tick_fn conv = (convert_tick_fn)
				       h.amd->hsa_amd_profiling_convert_tick_to_system_domain_fn;
	CU_ASSERT_EQUAL(conv(h.gpu[0], t1.end, &sys), 0);
	CU_ASSERT_EQUAL(sys, t1.end);
	/* Unsupported and bad input. */
	copy_time_fn copy_time = (copy_time_fn)h.amd->hsa_amd_profiling_get_async_copy_time_fn;
	uint64_t ct[2];
	CU_ASSERT_EQUAL(copy_time(c1, ct), HSAQM_HSA_STATUS_ERROR);
	struct hsaqm_hsa_amd_profiling_dispatch_time t;
	CU_ASSERT_EQUAL(h.amd->hsa_amd_profiling_get_dispatch_time_fn(h.cpu, c1, &t),
			HSAQM_HSA_STATUS_ERROR_INVALID_AGENT);
	struct hsaqm_hsa_signal bad = { 24 };
	CU_ASSERT_EQUAL(h.amd->hsa_amd_profiling_get_dispatch_time_fn(h.gpu[0], bad, &t),
			HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL);
	CU_ASSERT_EQUAL(h.amd->hsa_amd_profiling_set_profiler_enabled_fn(q, 0), 0);
	CU_ASSERT_FALSE(a->queue_properties & HSAQM_AMD_QUEUE_PROPERTIES_ENABLE_PROFILING);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	t_face_close(&h);
}

static void test_profiling_dispatch_times_are_ordered_and_in_model_ns_direct(void)
{
	run_profiling_dispatch_times_are_ordered_and_in_model_ns(false);
}

static void test_profiling_dispatch_times_are_ordered_and_in_model_ns_via_kfd(void)
{
	run_profiling_dispatch_times_are_ordered_and_in_model_ns(true);
}

static void test_malformed_packet_fires_the_queue_error_callback_and_others_run_on(void)
{
	struct t_face h;
	struct t_face_err e1 = { 0 }, e2 = { 0 };

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	struct hsaqm_hsa_queue *bad = t_face_queue(&h, 0, 64, t_face_record_error, &e1);
	struct hsaqm_hsa_queue *bad2 = t_face_queue(&h, 0, 64, t_face_record_error, &e2);
	struct hsaqm_hsa_queue *good = t_face_queue(&h, 0, 64, t_face_record_error, &e2);
	uint64_t k = t_face_kernel(&h, 20 * T_US, 1, NULL, NULL);

	/* A dispatch with a zero grid: the CP's "invalid dim". */
	union hsaqm_aql_packet p = t_face_dispatch(k, 1, 0);
	p.dispatch.grid_size_x = 0;
	t_face_submit_raw(&h, bad, &p);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, T_S), 0);
	CU_ASSERT_EQUAL(e1.calls, 1);
	CU_ASSERT_EQUAL(e1.status, HSAQM_HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
	CU_ASSERT_PTR_EQUAL(e1.queue, bad);
	CU_ASSERT_PTR_EQUAL(e1.data, &e1);
	/* A reserved packet type. */
	memset(&p, 0, sizeof(p));
	p.u32[0] = 7;
	t_face_submit_raw(&h, bad2, &p);
	/* Another queue runs on. */
	struct hsaqm_hsa_signal cs = t_face_signal(&h, 1);
	union hsaqm_aql_packet ok = t_face_dispatch(k, 1, cs.handle);
	t_face_submit(&h, good, &ok);
	CU_ASSERT_EQUAL(t_face_wait_eq(&h, cs, 0, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, T_S), 0);
	CU_ASSERT_EQUAL(e2.calls, 1);
	CU_ASSERT_EQUAL(e2.status, HSAQM_HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
	CU_ASSERT_PTR_EQUAL(e2.queue, bad2);
	CU_ASSERT_EQUAL(e1.calls, 1); /* once */
	/* The error is in the queue's queue_inactive_signal, as the CP leaves it. */
	struct hsaqm_amd_queue *a = (struct hsaqm_amd_queue *)bad;
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_relaxed_fn(a->queue_inactive_signal),
			HSAQM_HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(bad), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(bad2), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(good), 0);
	CU_ASSERT_EQUAL(e2.calls, 1); /* destroying a queue does not call back */
	t_face_close(&h);
}

static const struct t_case cases[] = {
	T_CASE(test_barrier_and_across_two_queues_waits_for_both_signals_direct),
	T_CASE(test_barrier_and_across_two_queues_waits_for_both_signals_via_kfd),
	T_CASE(test_set_priority_reaches_the_hardware_queue_as_kfd_priorities_direct),
	T_CASE(test_set_priority_reaches_the_hardware_queue_as_kfd_priorities_via_kfd),
	T_CASE(test_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus_direct),
	T_CASE(test_cu_mask_reaches_the_hardware_queue_and_restricts_its_cus_via_kfd),
	T_CASE(test_profiling_dispatch_times_are_ordered_and_in_model_ns_direct),
	T_CASE(test_profiling_dispatch_times_are_ordered_and_in_model_ns_via_kfd),
	T_CASE(test_malformed_packet_fires_the_queue_error_callback_and_others_run_on),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-hsa-dispatch", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-hsa-dispatch", suites);
}
