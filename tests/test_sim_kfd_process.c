/* SPDX-License-Identifier: MIT */
/*
 * The model's KFD face, tested through kfd-ioctl's public API on hsaqm_sim_kfd_transport(): the
 * interface version (1.17 by default; 1.11 knows no debugger), the kernel's answers to ioctls the
 * model does not have, one KFD process per OS process, and the kfd/proc view of it
 * (docs/sim.md, "The KFD face", names the source of each rule).
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

static void test_get_version_reports_the_configured_minor_17_by_default(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL,
					.kfd_minor_version = 13 };
	struct t_kfd_env e;
	uint32_t major = 0, minor = 0;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_STRING_EQUAL(e.tp->name, "sim");
	CU_ASSERT_EQUAL(hsaqm_kfd_get_version(e.kfd, &major, &minor), 0);
	CU_ASSERT_EQUAL(major, 1);
	CU_ASSERT_EQUAL(minor, 17);
	t_kfd_env_close(&e);

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_get_version(e.kfd, &major, &minor), 0);
	CU_ASSERT_EQUAL(minor, 13);
	t_kfd_env_close(&e);
}

static void test_kfd_1_11_refuses_the_debugger_as_an_unknown_ioctl(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL,
					.kfd_minor_version = 11 };
	struct hsaqm_kfd_runtime_enable_args rt = { .mode_mask = 1 };
	struct hsaqm_kfd_dbg_trap_args dbg = { 0 };
	struct hsaqm_kfd_create_queue_args a;
	struct t_kfd_env e;
	struct t_kfd_q q;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_FALSE(hsaqm_kfd_version_at_least(e.kfd, 1, 13));
	/* The layer does not even ask such a kernel. */
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), -EOPNOTSUPP);
	/* Asked anyway: the old kernel's kfd_ioctl() answer to a number past its table. */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_RUNTIME_ENABLE, &rt), -EINVAL);
	CU_ASSERT_EQUAL(t_kfd_dbg_trap_raw(&e, HSAQM_KFD_DBG_TRAP_ENABLE, &dbg), -EINVAL);
	/* Queues work, with the 88-byte create_queue; an engine-id SDMA type is unknown. */
	CU_ASSERT_EQUAL(t_kfd_q_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, q.id), 0);
	t_kfd_q_args(&e, &q, 16, 7, 100, &a);
	a.queue_type = HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_CREATE_QUEUE, &a), -524);
	t_kfd_env_close(&e);
}

static void test_ioctls_the_model_does_not_have_get_the_kernels_answers(void)
{
	struct t_kfd_env e;
	uint8_t buf[64] = { 0 };

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	/* 0x27 is newer than 1.18: unknown. */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOWR(0x27, 8), buf), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOWR(0x7f, 8), buf), -EINVAL);
	/* The deprecated debugger ioctls answer EPERM. */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOW(0x0D, 8), buf), -EPERM);
	/* Known to the KFD, not modelled (CRIU). */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOWR(0x22, 32), buf), -EOPNOTSUPP);
	/* Each of the four is counted as not modelled; a modelled one is not. */
	CU_ASSERT_EQUAL(sim_kfd_face_unmodelled(e.sim), 4);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_GET_VERSION, buf), 0);
	CU_ASSERT_EQUAL(sim_kfd_face_unmodelled(e.sim), 4);
	/* A handle that was never opened. */
	CU_ASSERT_EQUAL(e.tp->ioctl(e.tp->ctx, 5, HSAQM_KFD_IOC_GET_VERSION, buf), -EBADF);
	t_kfd_env_close(&e);
}

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

/*
 * A second open in the same OS process reaches the same KFD process (kfd_create_process
 * finds it by mm): its queues, its runtime state and its debugger session are the first
 * open's; the process lives until its last handle closes.
 */
static void test_second_open_in_a_process_is_the_same_kfd_process(void)
{
	struct t_kfd_env e;
	struct hsaqm_kfd *k2 = NULL;
	struct t_kfd_q q;
	uint32_t ids[1];

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(e.tp, &k2), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(k2, 0, false), -EBUSY); /* already enabled */
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 64, 7), 0);
	/* The queue made on the first handle is the second's too: it updates and suspends it. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(k2, q.id, (uint64_t)(uintptr_t)q.ring, 64 * 64, 100,
					       9), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(k2, 0, NULL), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), -EALREADY); /* one session */
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(k2, ids, 1, 0, 0), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(e.kfd), 0);
	/* Closing one handle is not process exit: the queue stays, reachable from the other. */
	CU_ASSERT_EQUAL(hsaqm_kfd_close(k2), 0);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, q.id), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q, 64, 7), 0);
	/* The last close is: the queue goes with the process. */
	CU_ASSERT_EQUAL(hsaqm_kfd_close(e.kfd), 0);
	e.kfd = NULL;
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 0);
	/* A new open afterwards is a new process: the runtime is disabled again. */
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(e.tp, &e.kfd), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	t_kfd_env_close(&e);
}

/*
 * The kfd/proc tree lists the KFD process under its OS pid, with its pasid and a queues
 * folder even before it has a queue, and each queue (gpuid, size, type) on the GPU it is
 * on; a queue destroyed leaves the tree at the next sync, the process at its last close.
 * The listing comes from the face under its lock (sim_kfd_face_procs).
 */
static void test_kfd_proc_view_lists_the_process_under_its_pid(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .num_devices = 2 };
	struct t_kfd_env e;
	struct hsaqm_kfd *k2 = NULL;
	struct t_kfd_q q0, q1;
	char path[PATH_MAX], buf[64], want[32];
	const char *root;
	struct sim_proc_queue *v = NULL;
	unsigned int n = 0;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open_cfg(&e, &cfg), 0);
	root = hsaqm_sim_sysfs_root(e.sim);
	CU_ASSERT_EQUAL_FATAL(sim_proc_view_sync(e.sim), 0);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/pasid", root, (int)getpid());
	CU_ASSERT_EQUAL_FATAL(read_small(path, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(strtoul(buf, NULL, 10), 0x8001);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/queues", root, (int)getpid());
	CU_ASSERT_EQUAL(access(path, F_OK), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q0, 64, 7), 0);
	e.gpu_id = sim_kfd_gpu_id(e.sim, 1);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(e.tp, &k2), 0);
	CU_ASSERT_EQUAL_FATAL(t_kfd_q_create(&e, &q1, 256, 7), 0);
	CU_ASSERT_EQUAL(q1.id, q0.id + 1); /* one process: one queue id space */
	CU_ASSERT_EQUAL_FATAL(sim_kfd_face_procs(e.sim, &v, &n), 0);
	CU_ASSERT_EQUAL(n, 3); /* the process, two queues */
	free(v);
	CU_ASSERT_EQUAL_FATAL(sim_proc_view_sync(e.sim), 0);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/queues/%u/gpuid", root,
		 (int)getpid(), q1.id);
	CU_ASSERT_EQUAL(read_small(path, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%u", sim_kfd_gpu_id(e.sim, 1));
	CU_ASSERT_STRING_EQUAL(buf, want);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/queues/%u/size", root,
		 (int)getpid(), q1.id);
	CU_ASSERT_EQUAL(read_small(path, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "16384");
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(k2, q1.id), 0);
	CU_ASSERT_EQUAL_FATAL(sim_proc_view_sync(e.sim), 0);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_close(k2), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_close(e.kfd), 0);
	e.kfd = NULL;
	CU_ASSERT_EQUAL_FATAL(sim_proc_view_sync(e.sim), 0);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d", root, (int)getpid());
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	t_kfd_env_close(&e);
}

static const struct t_case cases[] = {
	T_CASE(test_second_open_in_a_process_is_the_same_kfd_process),
	T_CASE(test_kfd_proc_view_lists_the_process_under_its_pid),
	T_CASE(test_get_version_reports_the_configured_minor_17_by_default),
	T_CASE(test_kfd_1_11_refuses_the_debugger_as_an_unknown_ioctl),
	T_CASE(test_ioctls_the_model_does_not_have_get_the_kernels_answers),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-kfd-process", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-kfd-process", suites);
}
