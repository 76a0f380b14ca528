/* SPDX-License-Identifier: MIT */
/*
 * The KFD requests built as the uapi says: queue creation with the kernel's struct size, bad
 * queue arguments refused before the kernel; the debugger API gated on interface 1.13, suspend
 * and resume sent for the process itself with their entries decoded, DBG_ENABLE handing the KFD
 * a writable pipe (and leaving no session when it fails), snapshots and event queries, the
 * runtime-enable modes.
 *
 * The KFD here is a scripted test transport (t_kfd_script.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hsaqm-kfd/kfd.h"
#include "hsaqm-common/log.h"
#include "t_cunit.h"
#include "t_kfd_script.h"

/* ---- queues -------------------------------------------------------------------------------- */

static struct hsaqm_kfd_create_queue_args good_queue(void)
{
	return (struct hsaqm_kfd_create_queue_args){
		.ring_base_address = 0x7f0000000000,
		.write_pointer_address = 0x7f0000100000,
		.read_pointer_address = 0x7f0000100080,
		.ring_size = 1 << 20,
		.gpu_id = 0xf7bc,
		.queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL,
		.queue_percentage = 100,
		.queue_priority = 7,
	};
}

static void test_queue_create_uses_the_kernel_struct_size(void)
{
	struct hsaqm_kfd *kfd = t_open_version(1, 11);
	struct hsaqm_kfd_create_queue_args q = good_queue();

	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), 0);
	CU_ASSERT_EQUAL(t_sc.last_request, HSAQM_KFD_IOC_CREATE_QUEUE_1_11);
	CU_ASSERT_EQUAL(q.queue_id, 5);
	CU_ASSERT_EQUAL(q.doorbell_offset, 0x1234);
	q = good_queue();
	q.queue_type = HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID;
	t_sc.calls = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EOPNOTSUPP);
	q = good_queue();
	q.sdma_engine_id = 3; /* a 1.11 kernel would drop it silently */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EINVAL);
	CU_ASSERT_EQUAL(t_sc.calls, 0);
	hsaqm_kfd_close(kfd);

	kfd = t_open_version(1, 17);
	q = good_queue();
	q.queue_type = HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID;
	q.sdma_engine_id = 3;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), 0);
	CU_ASSERT_EQUAL(t_sc.last_request, HSAQM_KFD_IOC_CREATE_QUEUE);
	CU_ASSERT_EQUAL(t_sc.last_create.sdma_engine_id, 3);
	hsaqm_kfd_close(kfd);
}

static void test_queue_calls_refuse_bad_arguments_before_the_kernel(void)
{
	struct hsaqm_kfd *kfd = t_open_version(1, 17);
	struct hsaqm_kfd_create_queue_args q;
	uint32_t mask[2] = { ~0u, ~0u };
	char stack[64];

	q = good_queue();
	q.queue_priority = 16;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EINVAL);
	q = good_queue();
	q.queue_percentage = 101;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EINVAL);
	q = good_queue();
	q.ring_size = 3000;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EINVAL);
	q = good_queue();
	q.queue_type = 9;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EINVAL);
	q = good_queue();
	q.metadata_ring_size = 100;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(kfd, 1, 0, 4096, 100, 16), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(kfd, 1, 0, 4096, 101, 1), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_set_cu_mask(kfd, 1, mask, 48), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_set_cu_mask(kfd, 1, mask, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_set_cu_mask(kfd, 1, NULL, 64), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(kfd, 1, NULL, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(t_sc.calls, 0);

	/* And the good ones go through with the kernel's answer. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_set_cu_mask(kfd, 1, mask, 64), 0);
	CU_ASSERT_EQUAL(t_sc.last_request, HSAQM_KFD_IOC_SET_CU_MASK);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(kfd, 1, 0, 4096, 0, 15), 0);
	CU_ASSERT_EQUAL(t_sc.last_request, HSAQM_KFD_IOC_UPDATE_QUEUE);
	t_sc.fallback = -EFAULT;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(kfd, 1, stack, NULL, NULL), -EFAULT);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(kfd, 99), -EFAULT);
	hsaqm_kfd_close(kfd);
}

/* ---- the debugger API --------------------------------------------------------------------- */

static void test_debugger_api_refused_before_1_13(void)
{
	struct hsaqm_kfd *kfd = t_open_version(1, 11);
	struct hsaqm_kfd_queue_snapshot_entry e[2];
	struct hsaqm_kfd_dbg_device_info_entry d[1];
	uint32_t ids[1] = { 1 }, n = 2;
	uint64_t status;

	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(kfd, 0, false), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_disable(kfd), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(kfd, 0, NULL), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(kfd), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(kfd, ids, 1, 0, 0), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(kfd, ids, 1), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(kfd, 0, e, &n), -EOPNOTSUPP);
	n = 1;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_device_snapshot(kfd, 0, d, &n), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(kfd, 0, &status, NULL, NULL), -EOPNOTSUPP);
	/* A 1.11 kernel would answer ENOTTY: nothing may have been sent. */
	CU_ASSERT_EQUAL(t_sc.calls, 0);
	CU_ASSERT_EQUAL(ids[0], 1);
	hsaqm_kfd_close(kfd);
}

static void test_suspend_resume_send_self_and_decode_entries(void)
{
	struct hsaqm_kfd *kfd = t_open_version(1, 13);
	uint32_t ids[3] = { 2, 3, 4 };

	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(kfd, ids, 3, 100,
						     HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW)), 1);
	CU_ASSERT_EQUAL(t_sc.last_request, HSAQM_KFD_IOC_DBG_TRAP);
	CU_ASSERT_EQUAL(t_sc.last_dbg.pid, (uint32_t)getpid());
	CU_ASSERT_EQUAL(t_sc.last_dbg.op, HSAQM_KFD_DBG_TRAP_SUSPEND_QUEUES);
	CU_ASSERT_EQUAL(t_sc.last_dbg.suspend_queues.num_queues, 3);
	CU_ASSERT_EQUAL(t_sc.last_dbg.suspend_queues.grace_period, 100);
	CU_ASSERT_EQUAL(t_sc.last_dbg.suspend_queues.queue_array_ptr, (uint64_t)(uintptr_t)ids);
	CU_ASSERT_EQUAL(t_sc.last_dbg.suspend_queues.exception_mask, 1ull << 30);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_status(ids[0]), HSAQM_KFD_DBG_ENTRY_OK);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_status(ids[1]), HSAQM_KFD_DBG_ENTRY_INVALID);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_status(ids[2]), HSAQM_KFD_DBG_ENTRY_ERROR);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_queue_id(ids[1]), 3);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_queue_id(ids[2]), 4);

	ids[0] = 2;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(kfd, ids, 1), 1);
	CU_ASSERT_EQUAL(t_sc.last_dbg.op, HSAQM_KFD_DBG_TRAP_RESUME_QUEUES);
	CU_ASSERT_EQUAL(t_sc.last_dbg.resume_queues.num_queues, 1);

	/* The kernel's refusal comes back as is (EPERM: runtime not enabled). */
	t_sc.fallback = -EPERM;
	ids[0] = 2;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(kfd, ids, 1, 0, 0), -EPERM);
	t_sc.fallback = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(kfd, NULL, 1, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(kfd, ids, 0, 0, 0), -EINVAL);
	hsaqm_kfd_close(kfd);
}

static void test_dbg_enable_hands_kfd_a_writable_pipe(void)
{
	struct hsaqm_kfd *kfd = t_open_version(1, 13);
	struct hsaqm_kfd_runtime_info info;
	char byte = 0;
	int fd;

	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_event_fd(kfd), -ENOENT);
	t_sc.poke_dbg_fd = true;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(kfd, HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW), &info),
			0);
	CU_ASSERT_EQUAL(t_sc.last_dbg.op, HSAQM_KFD_DBG_TRAP_ENABLE);
	CU_ASSERT_EQUAL(t_sc.last_dbg.enable.exception_mask, 1ull << 30);
	CU_ASSERT_EQUAL(t_sc.last_dbg.enable.rinfo_size, sizeof(struct hsaqm_kfd_runtime_info));
	fd = hsaqm_kfd_dbg_event_fd(kfd);
	CU_ASSERT(fd >= 0);
	/* The byte the "KFD" wrote into dbg_fd arrives on the event fd. */
	CU_ASSERT_EQUAL(read(fd, &byte, 1), 1);
	CU_ASSERT_EQUAL(byte, '.');
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(kfd, 0, NULL), -EALREADY);

	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(kfd), 0);
	CU_ASSERT_EQUAL(t_sc.last_dbg.op, HSAQM_KFD_DBG_TRAP_DISABLE);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_event_fd(kfd), -ENOENT);
	CU_ASSERT_EQUAL(fcntl(fd, F_GETFD), -1); /* closed */

	/* A session still open at close is ended first: no queue stays suspended. */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(kfd, 0, NULL), 0);
	t_sc.n_dbg_ops = 0;
	hsaqm_kfd_close(kfd);
	CU_ASSERT_EQUAL(t_sc.n_dbg_ops, 1);
	CU_ASSERT_EQUAL(t_sc.dbg_ops[0], HSAQM_KFD_DBG_TRAP_DISABLE);
}

static void test_dbg_enable_failure_leaves_no_session(void)
{
	struct hsaqm_kfd *kfd = t_open_version(1, 13);

	t_sc.fallback = -EALREADY; /* rocgdb holds the process */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(kfd, 0, NULL), -EALREADY);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_event_fd(kfd), -ENOENT);
	t_sc.n_dbg_ops = 0;
	/* No session of ours: nothing to end, and the kernel (EINVAL) is not asked. */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(kfd), 0);
	t_sc.fallback = 0;
	hsaqm_kfd_close(kfd);
	CU_ASSERT_EQUAL(t_sc.n_dbg_ops, 0);
}

static void test_snapshot_and_query_event(void)
{
	struct hsaqm_kfd *kfd = t_open_version(1, 13);
	struct hsaqm_kfd_queue_snapshot_entry e[2];
	uint32_t n = 2, gpu = 0, queue = 0;
	uint64_t status = 0;

	memset(e, 0xff, sizeof(e));
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(kfd, HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW),
						     e, &n), 0);
	CU_ASSERT_EQUAL(t_sc.last_dbg.op, HSAQM_KFD_DBG_TRAP_GET_QUEUE_SNAPSHOT);
	CU_ASSERT_EQUAL(t_sc.last_dbg.queue_snapshot.entry_size, 64);
	CU_ASSERT_EQUAL(t_sc.last_dbg.queue_snapshot.exception_mask, 1ull << 30);
	CU_ASSERT_EQUAL(n, 3); /* the process has more queues than the buffer */
	CU_ASSERT_EQUAL(e[0].queue_id, 9);
	CU_ASSERT_EQUAL(e[1].queue_id, 0); /* zeroed before the call */
	n = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(kfd, 0, NULL, &n), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(kfd, 0, NULL, NULL), -EINVAL);

	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(kfd, 0, &status, &gpu, &queue), 0);
	CU_ASSERT_EQUAL(status, HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW));
	CU_ASSERT_EQUAL(gpu, 0xf7bc);
	CU_ASSERT_EQUAL(queue, 4);
	/* "Nothing raised" is one answer, not a reason to ask 64 times. */
	t_sc.fallback = -EAGAIN;
	t_sc.calls = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(kfd, 0, &status, NULL, NULL), -EAGAIN);
	CU_ASSERT_EQUAL(t_sc.calls, 1);
	t_sc.fallback = 0;
	hsaqm_kfd_close(kfd);
}

static void test_runtime_enable_modes(void)
{
	struct hsaqm_kfd *kfd = t_open_version(1, 14);
	const int script[] = { -EINTR, 0 };

	/* A RUNTIME_ENABLE waiting for a debugger is interrupted and must be re-issued. */
	t_script_set(script, 2);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(kfd, 0x1000, true), 0);
	CU_ASSERT_EQUAL(t_sc.calls, 2);
	CU_ASSERT_EQUAL(t_sc.last_request, HSAQM_KFD_IOC_RUNTIME_ENABLE);
	t_sc.fallback = -EBUSY;
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(kfd, 0, false), -EBUSY);
	t_sc.fallback = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_disable(kfd), 0);
	hsaqm_kfd_close(kfd);
}

static const struct t_case cases[] = {
	T_CASE(test_queue_create_uses_the_kernel_struct_size),
	T_CASE(test_queue_calls_refuse_bad_arguments_before_the_kernel),
	T_CASE(test_debugger_api_refused_before_1_13),
	T_CASE(test_suspend_resume_send_self_and_decode_entries),
	T_CASE(test_dbg_enable_hands_kfd_a_writable_pipe),
	T_CASE(test_dbg_enable_failure_leaves_no_session),
	T_CASE(test_snapshot_and_query_event),
	T_CASE(test_runtime_enable_modes),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "kfd-ioctl-requests", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("kfd-ioctl-requests", suites);
}
