/* SPDX-License-Identifier: MIT */
/*
 * The model's KFD face, tested through kfd-ioctl's public API: DBG_TRAP suspend and resume: the
 * per-entry bits and the count, waves saved and every workgroup finished once after resume, a
 * suspended queue's destroy in virtual time, and what disable and close resume (docs/sim.md,
 * "The KFD face").
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

static void test_suspend_resume_per_entry_bits_and_count(void)
{
	struct t_kfd_env e;
	struct t_kfd_q a, b;
	uint32_t ids[3];

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &a, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &b, 16, 7), 0);
	t_kfd_clear_new(&e);
	ids[0] = a.id;
	ids[1] = 777;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 2, 0, 0), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_status(ids[0]), HSAQM_KFD_DBG_ENTRY_OK);
	CU_ASSERT_EQUAL(ids[1], 777u | T_KFD_INVALID);
	CU_ASSERT_EQUAL(t_q_state(&(struct t_q){ .hwq = t_kfd_hwq(&e, &a) }), SIM_HWQ_SUSPENDED);
	/* Already suspended counts as handled; an entry's stale T_KFD_INVALID bit is ignored. */
	ids[0] = a.id | T_KFD_INVALID;
	ids[1] = b.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 2, 0, 0), 2);
	CU_ASSERT_EQUAL(ids[0], a.id);
	CU_ASSERT_EQUAL(ids[1], b.id);
	/* An ERROR bit in the input is part of the id: no queue matches. */
	ids[0] = a.id | T_KFD_ERRBIT;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 0);
	CU_ASSERT_EQUAL(ids[0], a.id | T_KFD_ERRBIT | T_KFD_INVALID);
	ids[0] = a.id;
	ids[1] = 5;
	ids[2] = b.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 3), 2);
	CU_ASSERT_EQUAL(ids[0], a.id);
	CU_ASSERT_EQUAL(ids[1], 5u | T_KFD_INVALID);
	CU_ASSERT_EQUAL(ids[2], b.id);
	/* Resuming a running queue is handled too. */
	ids[0] = a.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 1);
	CU_ASSERT_EQUAL(ids[0], a.id);
	CU_ASSERT_NOT_EQUAL(t_q_state(&(struct t_q){ .hwq = t_kfd_hwq(&e, &a) }),
			    SIM_HWQ_SUSPENDED);
	t_kfd_env_close(&e);
}

static void test_suspend_saves_waves_and_resume_finishes_every_workgroup_once(void)
{
	struct t_kfd_env e;
	struct t_kfd_q q;
	static struct t_wg_rec r;
	uint32_t ids[1], used = 0, save = 0;
	uint8_t *stack = calloc(1, 8192);

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_map(&e, &q), 0);
	t_kfd_clear_new(&e);
	uint64_t k = t_kfd_kernel(e.sim, 5 * T_MS, 8, &r);
	struct sim_signal *cs = sim_signal_create(e.sim, 1);
	union hsaqm_aql_packet p = t_dispatch(k, 10, t_handle(cs), false);

	CU_ASSERT_NOT_EQUAL(t_kfd_q_submit(&e, &q, &p), UINT64_MAX);
	hsaqm_sim_advance(e.sim, T_MS);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	/* 10 workgroups of 8 waves saved by CWSR: the control stack and save area show it. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(e.kfd, q.id, stack, &used, &save), 0);
	CU_ASSERT_EQUAL(used, 40 + 8 * 80);
	CU_ASSERT(save > 0);
	struct hsaqm_kfd_context_save_area_header *h = (void *)stack;
	CU_ASSERT_EQUAL(h->wave_state.control_stack_size, used);
	CU_ASSERT_EQUAL(h->wave_state.control_stack_offset, 8192 - used);
	CU_ASSERT_EQUAL(h->wave_state.wave_state_size, save);
	hsaqm_sim_advance(e.sim, 20 * T_MS);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&r.count), 0); /* pairs with t_wg_rec_cb's add */
	CU_ASSERT_EQUAL(sim_signal_load(cs), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 1);
	CU_ASSERT_EQUAL(sim_signal_wait(e.sim, cs, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT(t_wg_each_once(&r, 10));
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(e.kfd, q.id, stack, NULL, NULL), -EINVAL);
	sim_signal_destroy(e.sim, cs);
	t_kfd_env_close(&e);
	free(stack);
}

static void test_virtual_destroy_of_a_suspended_queue_fails_eintr_and_keeps_it(void)
{
	struct t_kfd_env e;
	struct t_kfd_q q;
	uint32_t ids[1];
	uint64_t t0;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	t_kfd_clear_new(&e);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	/* Nobody else can resume it: each wait ends as an interrupted one, the layer retries. */
	t0 = t_mono_ns();
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, q.id), -EINTR);
	CU_ASSERT(t_mono_ns() - t0 < 10 * T_S);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 1);
	/* Not marked "being destroyed" any more: it still suspends and resumes. */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, q.id), 0);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 0);
	t_kfd_env_close(&e);
}

static void test_dbg_disable_and_close_resume_suspended_queues(void)
{
	struct t_kfd_env e;
	struct t_kfd_q q;
	static struct t_wg_rec r;
	uint32_t ids[1];

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, T_EC(QUEUE_NEW), NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_map(&e, &q), 0);
	t_kfd_clear_new(&e);
	uint64_t k = t_kfd_kernel(e.sim, T_MS, 4, &r);
	struct sim_signal *cs = sim_signal_create(e.sim, 1);
	union hsaqm_aql_packet p = t_dispatch(k, 3, t_handle(cs), false);

	CU_ASSERT_NOT_EQUAL(t_kfd_q_submit(&e, &q, &p), UINT64_MAX);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(e.kfd), 0);
	CU_ASSERT_EQUAL(sim_signal_wait(e.sim, cs, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT(t_wg_each_once(&r, 3));
	/* The exceptions went with the session. */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, T_EC(QUEUE_NEW), NULL), 0);
	CU_ASSERT_EQUAL(t_kfd_snapshot_of(&e, q.id).exception_status, 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	sim_signal_destroy(e.sim, cs);
	/* Process exit with a suspended queue: detach, resume, destroy. */
	CU_ASSERT_EQUAL(hsaqm_kfd_close(e.kfd), 0);
	e.kfd = NULL;
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 0);
	t_kfd_env_close(&e);
}

static const struct t_case cases[] = {
	T_CASE(test_suspend_resume_per_entry_bits_and_count),
	T_CASE(test_suspend_saves_waves_and_resume_finishes_every_workgroup_once),
	T_CASE(test_virtual_destroy_of_a_suspended_queue_fails_eintr_and_keeps_it),
	T_CASE(test_dbg_disable_and_close_resume_suspended_queues),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-kfd-suspend", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-kfd-suspend", suites);
}
