/* SPDX-License-Identifier: MIT */
/*
 * The model's KFD face, tested through kfd-ioctl's public API: RUNTIME_ENABLE and the debugger
 * (DBG_TRAP): once and only before queues, one debugger per process, EPERM without the runtime,
 * EINVAL with sched_policy 2, new queues invalid for suspend until EC_QUEUE_NEW is cleared, the
 * runtime event, queue errors as debugger events, snapshots (docs/sim.md, "The KFD face").
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

static void test_runtime_enable_is_once_and_only_before_queues(void)
{
	struct t_kfd_env e;
	struct t_kfd_q q;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0x1234, true), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), -EBUSY);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_disable(e.kfd), 0);
	CU_ASSERT_EQUAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), -EEXIST);
	t_kfd_env_close(&e);
}

static void test_dbg_trap_needs_enable_and_one_debugger_per_process(void)
{
	struct t_kfd_env e;
	struct hsaqm_kfd_dbg_trap_args a = { 0 };
	struct hsaqm_kfd_runtime_info ri;
	uint32_t ids[1] = { 0 };
	int fds[2];

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0xabc, false), 0);
	/* Before ENABLE every other op is EINVAL (DISABLE too, asked raw). */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(t_kfd_dbg_trap_raw(&e, HSAQM_KFD_DBG_TRAP_DISABLE, &a), -EINVAL);
	/* The KFD takes its own reference to the file: a closed descriptor is EBADF. */
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	close(fds[0]);
	close(fds[1]);
	memset(&a, 0, sizeof(a));
	a.enable.dbg_fd = (uint32_t)fds[1];
	CU_ASSERT_EQUAL(t_kfd_dbg_trap_raw(&e, HSAQM_KFD_DBG_TRAP_ENABLE, &a), -EBADF);
	/* Another process's pid: not a KFD process of this model. */
	memset(&a, 0, sizeof(a));
	a.pid = (uint32_t)getpid() + 1;
	a.op = HSAQM_KFD_DBG_TRAP_ENABLE;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_DBG_TRAP, &a), -ESRCH);

	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, T_EC(QUEUE_NEW), &ri), 0);
	CU_ASSERT_EQUAL(ri.r_debug, 0xabc);
	CU_ASSERT_EQUAL(ri.runtime_state, HSAQM_KFD_RUNTIME_STATE_ENABLED);
	/* A second debugger of the same process, asked raw past the layer's own check. */
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	memset(&a, 0, sizeof(a));
	a.enable.dbg_fd = (uint32_t)fds[1];
	CU_ASSERT_EQUAL(t_kfd_dbg_trap_raw(&e, HSAQM_KFD_DBG_TRAP_ENABLE, &a), -EALREADY);
	close(fds[0]);
	close(fds[1]);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(e.kfd), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0); /* free again after DISABLE */
	t_kfd_env_close(&e);
}

static void test_suspend_without_runtime_enable_is_eperm(void)
{
	struct t_kfd_env e;
	struct t_kfd_q q;
	uint32_t ids[1];

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	t_kfd_clear_new(&e);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), -EPERM);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), -EPERM);
	t_kfd_env_close(&e);
}

static void test_dbg_trap_with_sched_policy_2_is_einval(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .sched_policy = 2 };
	struct t_kfd_env e;
	struct t_kfd_q q;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0); /* not DBG_TRAP */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(t_kfd_q_create(&e, &q, 16, 7), 0); /* queues still work without HWS */
	t_kfd_env_close(&e);
}

static void test_new_queue_is_invalid_for_suspend_until_ec_queue_new_is_cleared(void)
{
	struct t_kfd_env e;
	struct t_kfd_q old, q, q2;
	uint64_t status = 0;
	uint32_t gpu = 0, qid = 99, ids[2];
	struct pollfd pfd;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	/* Before the debugger: not new. */
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &old, 16, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, T_EC(QUEUE_NEW), NULL), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(e.kfd, 0, &status, NULL, NULL), -EAGAIN);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 7), 0);

	/* The debugger hears of it: a byte on its file, the event with the queue. */
	pfd.fd = hsaqm_kfd_dbg_event_fd(e.kfd);
	pfd.events = POLLIN;
	CU_ASSERT_EQUAL(poll(&pfd, 1, 0), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(e.kfd, 0, &status, &gpu, &qid), 0);
	CU_ASSERT_EQUAL(status, T_EC(QUEUE_NEW));
	CU_ASSERT_EQUAL(qid, q.id);
	CU_ASSERT_EQUAL(gpu, e.gpu_id);
	CU_ASSERT_EQUAL(t_kfd_snapshot_of(&e, q.id).exception_status, T_EC(QUEUE_NEW));
	CU_ASSERT_EQUAL(t_kfd_snapshot_of(&e, old.id).exception_status, 0);

	/* Alone, the new queue is refused and nothing is suspended, so nothing is cleared. */
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, T_EC(QUEUE_NEW)), 0);
	CU_ASSERT_EQUAL(ids[0], q.id | T_KFD_INVALID);
	CU_ASSERT_EQUAL(t_kfd_snapshot_of(&e, q.id).exception_status, T_EC(QUEUE_NEW));
	/* With a queue that suspends, the clear mask reaches every listed queue of the device. */
	ids[0] = old.id;
	ids[1] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 2, 0, T_EC(QUEUE_NEW)), 1);
	CU_ASSERT_EQUAL(ids[0], old.id);
	CU_ASSERT_EQUAL(ids[1], q.id | T_KFD_INVALID);
	CU_ASSERT_EQUAL(t_kfd_snapshot_of(&e, q.id).exception_status, 0);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	CU_ASSERT_EQUAL(ids[0], q.id);

	/* The other way to clear it: a snapshot with the clear mask. */
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q2, 16, 7), 0);
	ids[0] = q2.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 0);
	t_kfd_clear_new(&e);
	ids[0] = q2.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	t_kfd_env_close(&e); /* closing with suspended queues resumes and destroys them */
}

static void test_runtime_enable_under_a_debugger_waits_for_its_runtime_event(void)
{
	struct t_kfd_env e;
	struct hsaqm_kfd_dbg_trap_args a = { 0 };
	uint64_t status = 0;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, T_EC(PROCESS_RUNTIME), NULL), 0);
	/* The runtime arrives after the debugger: it waits for the debugger's go (EINTR here). */
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 7, false), -EINTR);
	CU_ASSERT_EQUAL(
		hsaqm_kfd_dbg_query_event(e.kfd, T_EC(PROCESS_RUNTIME), &status, NULL, NULL), 0);
	CU_ASSERT_EQUAL(status, T_EC(PROCESS_RUNTIME));
	a.send_runtime_event.exception_mask = T_EC(PROCESS_RUNTIME);
	CU_ASSERT_EQUAL(t_kfd_dbg_trap_raw(&e, HSAQM_KFD_DBG_TRAP_SEND_RUNTIME_EVENT, &a), 0);
	/* The retry finds the semaphore up: enabled, not EBUSY. */
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 7, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 7, false), -EBUSY);
	t_kfd_env_close(&e);
}

static void test_queue_error_becomes_a_debugger_queue_event(void)
{
	struct t_kfd_env e;
	struct t_kfd_q q;
	uint64_t status = 0;
	uint32_t qid = 99;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, HSAQM_KFD_EC_MASK_QUEUE, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_map(&e, &q), 0);
	t_kfd_clear_new(&e);
	union hsaqm_aql_packet p = t_dispatch(0x1234, 1, 0, false); /* no such kernel */

	CU_ASSERT_NOT_EQUAL(t_kfd_q_submit(&e, &q, &p), UINT64_MAX);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(e.sim, T_S), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(e.kfd, ~0ull, &status, NULL, &qid), 0);
	CU_ASSERT_EQUAL(status, T_EC(QUEUE_PACKET_DISPATCH_CODE_INVALID));
	CU_ASSERT_EQUAL(qid, q.id);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(e.kfd, 0, &status, NULL, NULL), -EAGAIN);
	t_kfd_env_close(&e);
}

static void test_snapshots_fill_entries_from_the_model(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .num_devices = 2 };
	struct hsaqm_kfd_queue_snapshot_entry qe[1];
	struct hsaqm_kfd_dbg_device_info_entry de[1];
	struct t_kfd_env e;
	struct t_kfd_q a, b;
	uint32_t n = 0;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &a, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &b, 32, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(e.kfd, 0, NULL, &n), 0);
	CU_ASSERT_EQUAL(n, 2);
	n = 1; /* room for one: the newest, both counted */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(e.kfd, T_EC(QUEUE_NEW), qe, &n), 0);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(qe[0].queue_id, b.id);
	CU_ASSERT_EQUAL(qe[0].ring_base_address, (uint64_t)(uintptr_t)b.ring);
	CU_ASSERT_EQUAL(qe[0].read_pointer_address, (uint64_t)(uintptr_t)b.rd);
	CU_ASSERT_EQUAL(qe[0].ring_size, 2048);
	CU_ASSERT_EQUAL(qe[0].queue_type, HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL);
	CU_ASSERT_EQUAL(qe[0].gpu_id, e.gpu_id);
	CU_ASSERT_EQUAL(qe[0].exception_status, T_EC(QUEUE_NEW)); /* reported, then cleared */
	CU_ASSERT_EQUAL(t_kfd_snapshot_of(&e, b.id).exception_status, 0);
	/* Not reached. */
	CU_ASSERT_EQUAL(t_kfd_snapshot_of(&e, a.id).exception_status, T_EC(QUEUE_NEW));

	n = 1;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_device_snapshot(e.kfd, 0, de, &n), 0);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(de[0].gpu_id, e.gpu_id);
	CU_ASSERT_EQUAL(de[0].gfx_target_version, 90402);
	CU_ASSERT_EQUAL(de[0].simd_count, 320);
	CU_ASSERT_EQUAL(de[0].num_xcc, 4);
	CU_ASSERT_EQUAL(de[0].array_count, 16);
	CU_ASSERT_EQUAL(de[0].capability, 0x2c77a280u);
	CU_ASSERT_EQUAL(de[0].location_id, 2560);
	CU_ASSERT_NOT_EQUAL(sim_kfd_gpu_id(e.sim, 1), e.gpu_id);
	t_kfd_env_close(&e);
}

static const struct t_case cases[] = {
	T_CASE(test_runtime_enable_is_once_and_only_before_queues),
	T_CASE(test_dbg_trap_needs_enable_and_one_debugger_per_process),
	T_CASE(test_suspend_without_runtime_enable_is_eperm),
	T_CASE(test_dbg_trap_with_sched_policy_2_is_einval),
	T_CASE(test_new_queue_is_invalid_for_suspend_until_ec_queue_new_is_cleared),
	T_CASE(test_runtime_enable_under_a_debugger_waits_for_its_runtime_event),
	T_CASE(test_queue_error_becomes_a_debugger_queue_event),
	T_CASE(test_snapshots_fill_entries_from_the_model),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-kfd-debugger", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-kfd-debugger", suites);
}
