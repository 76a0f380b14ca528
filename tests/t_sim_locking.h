/* SPDX-License-Identifier: MIT */
/*
 * t_sim_locking.h - the rig of the model's lock-order tests (test-sim-locking-*): each case
 * under a watchdog that fails the binary instead of hanging, one VIRTUAL-time model reached
 * through both faces (its KFD face's GPU, a queue, signals), and the calls that take each
 * face's lock. Header-only; include once.
 */
#ifndef T_SIM_LOCKING_H
#define T_SIM_LOCKING_H

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hsa_face_internal.h"
#include "kfd_face_internal.h"
#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-kfd/kfd_uapi.h"
#include "hsaqm-sim/sim.h"
#include "sim_internal.h"
#include "t_cunit.h"
#include "t_time.h"

/* A case that has not finished after this long is stuck: the watchdog fails the binary. */
#define T_WATCHDOG_S 30u

/* ---- Watchdog: run jobs on their own threads; a deadlock fails the test, never hangs it. -- */

struct t_job {
	void *(*fn)(void *arg);
	void *arg;
	pthread_t th;
	uint32_t done;
};

static inline void *t_job_main(void *arg)
{
	struct t_job *j = arg;

	j->fn(j->arg);
	/* Release: the job's results before the flag the watchdog reads. */
	hsaqm_store_release(&j->done, 1u);
	return NULL;
}

static inline void t_run_bounded(const char *what, struct t_job *jobs, unsigned int n)
{
	uint64_t deadline = t_mono_ns() + T_WATCHDOG_S * 1000000000ull;

	for (unsigned int i = 0; i < n; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&jobs[i].th, NULL, t_job_main, &jobs[i]), 0);
	for (;;) {
		unsigned int done = 0;

		for (unsigned int i = 0; i < n; i++)
			/* Acquire: pairs with t_job_main's release. */
			done += hsaqm_load_acquire(&jobs[i].done);
		if (done == n)
			break;
		if (t_mono_ns() > deadline) {
			/* The threads are stuck on the model's locks: nothing can be cleaned up. */
			fprintf(stderr, "%s: not finished after %u s: deadlock\n", what,
				T_WATCHDOG_S);
			fflush(stderr);
			_exit(T_EXIT_FAIL);
		}
		t_sleep_ms(5);
	}
	for (unsigned int i = 0; i < n; i++)
		pthread_join(jobs[i].th, NULL);
}

/* ---- One virtual-time model: its HSA face (hsa_init done) and a KFD of our own. ---------- */

struct t_lock_env {
	struct hsaqm_sim *sim;
	struct hsaqm_core_api_table *core;
	struct hsaqm_amd_ext_table_v2 *amd;
	struct hsaqm_hsa_agent gpu;
	struct hsaqm_kfd *kfd;
	/* A KFD queue of our own, made with CREATE_QUEUE as ROCr makes one. */
	union hsaqm_aql_packet *ring;
	uint64_t *idx;
	uint32_t qid;
};

#define T_LOCK_RING_SLOTS 64u

static inline hsaqm_hsa_status_t t_find_gpu(struct hsaqm_hsa_agent a, void *data)
{
	struct t_lock_env *e = data;
	uint32_t type = 99;

	e->core->hsa_agent_get_info_fn(a, SIM_HSA_AGENT_INFO_DEVICE, &type);
	if (type == SIM_HSA_DEVICE_TYPE_GPU && !e->gpu.handle)
		e->gpu = a;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static inline void t_lock_env_open(struct t_lock_env *e)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL,
					.seed = 7 };
	struct hsaqm_api_root_v3 *root;

	memset(e, 0, sizeof(*e));
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &e->sim), 0);
	root = hsaqm_sim_hsa_table(e->sim);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	e->core = root->core;
	e->amd = root->amd_ext;
	CU_ASSERT_EQUAL_FATAL(e->core->hsa_init_fn(), HSAQM_HSA_STATUS_SUCCESS);
	e->core->hsa_iterate_agents_fn(t_find_gpu, e);
	CU_ASSERT_FATAL(e->gpu.handle != 0);
	/* The face makes its queues through the KFD face, as ROCr through libhsakmt. */
	CU_ASSERT_EQUAL_FATAL(hsa_face_set_queue_path(e->sim, true), 0);

	/* Our own KFD handle: the same KFD process as the HSA face's (one per OS process). */
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(hsaqm_sim_kfd_transport(e->sim), &e->kfd), 0);
	e->ring = hsaqm_sim_mem_alloc(e->sim, T_LOCK_RING_SLOTS * 64u, 64);
	e->idx = hsaqm_sim_mem_alloc(e->sim, 64, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->ring);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->idx);
	for (uint32_t i = 0; i < T_LOCK_RING_SLOTS; i++)
		e->ring[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	struct hsaqm_kfd_create_queue_args a = {
		.ring_base_address = (uint64_t)(uintptr_t)e->ring,
		.write_pointer_address = (uint64_t)(uintptr_t)&e->idx[0],
		.read_pointer_address = (uint64_t)(uintptr_t)&e->idx[1],
		.ring_size = T_LOCK_RING_SLOTS * 64u,
		.gpu_id = sim_kfd_gpu_id(e->sim, 0),
		.queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL,
		.queue_percentage = 100,
		.queue_priority = 7,
		.ctl_stack_size = 8192,
	};
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_queue_create(e->kfd, &a), 0);
	e->qid = a.queue_id;
}

static inline void t_lock_env_close(struct t_lock_env *e)
{
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e->kfd, e->qid), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_close(e->kfd), 0);
	CU_ASSERT_EQUAL(e->core->hsa_shut_down_fn(), HSAQM_HSA_STATUS_SUCCESS);
	hsaqm_sim_destroy(e->sim);
	memset(e, 0, sizeof(*e));
}

/* UPDATE_QUEUE: the face holds its lock while sim_hwq_update() runs the event loop. */
static inline int t_kfd_update(struct t_lock_env *e, uint32_t priority)
{
	return hsaqm_kfd_queue_update(e->kfd, e->qid, (uint64_t)(uintptr_t)e->ring,
				      T_LOCK_RING_SLOTS * 64u, 100, priority);
}

static inline struct hsaqm_hsa_signal t_sig_new(struct t_lock_env *e, int64_t v)
{
	struct hsaqm_hsa_signal s = { 0 };

	CU_ASSERT_EQUAL(e->core->hsa_signal_create_fn(v, 0, NULL, &s), HSAQM_HSA_STATUS_SUCCESS);
	return s;
}

/* An HSA call that takes the HSA face's lock (it checks that the runtime is open). */
static inline hsaqm_hsa_status_t t_hsa_touch(struct t_lock_env *e)
{
	uint32_t type = 99;
	hsaqm_hsa_status_t st = e->core->hsa_agent_get_info_fn(e->gpu, SIM_HSA_AGENT_INFO_DEVICE,
								 &type);

	return st == HSAQM_HSA_STATUS_SUCCESS && type != SIM_HSA_DEVICE_TYPE_GPU ?
		       HSAQM_HSA_STATUS_ERROR : st;
}

#endif /* T_SIM_LOCKING_H */
