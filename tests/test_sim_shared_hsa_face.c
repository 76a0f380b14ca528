/* SPDX-License-Identifier: MIT */
/*
 * Shared mode: the data path crosses processes without the socket. An HSA-face wait in a
 * client wakes on the device's store (futex, the waiter sleeps), a client's store wakes a
 * device engine waiting in a barrier packet, and a queue error reaches the client's callback.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"
#include "hsa_face_internal.h"
#include "hsaqm-hsa/hsa_abi.h"
#include "hsaqm-kfd/kfd.h"
#include "kfd_face_internal.h"
#include "hsaqm-hsa/api_table.h"
#include "hsaqm-hsa/ring.h"
#include "hsaqm-common/log.h"
#include "shared_internal.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"
#include "t_sim_shared.h"

/* ------------------------------------------------------------------------------------
 * The data path across processes, through the HSA face.
 */
struct hsa_report {
	int ok;
	int step;
	uint64_t wait_ns, wait_cpu_ns, model_ns, barrier_held, async_value;
	int queue_error_status;
	char msg[160];
};

struct h_agents {
	struct hsaqm_core_api_table *core;
	struct hsaqm_hsa_agent gpu;
	int n;
};

static hsaqm_hsa_status_t h_collect(struct hsaqm_hsa_agent a, void *data)
{
	struct h_agents *h = data;
	uint32_t type = 99;

	h->core->hsa_agent_get_info_fn(a, SIM_HSA_AGENT_INFO_DEVICE, &type);
	if (type == SIM_HSA_DEVICE_TYPE_GPU && !h->n++)
		h->gpu = a;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool h_async(hsaqm_hsa_signal_value_t v, void *arg)
{
	/* Release: pairs with the client's acquire of async_seen; the value is all it carries. */
	hsaqm_store_release((uint64_t *)arg, (uint64_t)v + 1000);
	return false;
}

static void hsa_error_cb(hsaqm_hsa_status_t st, struct hsaqm_hsa_queue *q, void *data)
{
	(void)q;
	/* Release: pairs with the client's acquire of err_status. */
	hsaqm_store_release((int *)data, (int)st);
}

#define H_FAIL(...)                                                   \
	do {                                                          \
		snprintf(r.msg, sizeof(r.msg), __VA_ARGS__);          \
		goto out;                                             \
	} while (0)

static void hsa_client_main(void *arg, int report)
{
	const char *path = arg;
	struct hsa_report r = { 0 };
	struct hsaqm_sim *sim = NULL;
	int err_status = 0;

	r.step = 1;
	if (hsaqm_sim_connect(path, &sim))
		H_FAIL("connect");
	struct hsaqm_api_root_v3 *root = hsaqm_sim_hsa_table(sim);
	struct hsaqm_core_api_table *core = root->core;
	struct hsaqm_amd_ext_table_v2 *amd = root->amd_ext;
	struct h_agents ag = { .core = core };
	if (core->hsa_init_fn() != HSAQM_HSA_STATUS_SUCCESS)
		H_FAIL("hsa_init");
	core->hsa_iterate_agents_fn(h_collect, &ag);
	if (ag.n != 1)
		H_FAIL("%d GPU agents, expected 1", ag.n);
	r.step = 2;
	/* A queue through the client's KFD face, whose control calls go to the device. */
	struct hsaqm_hsa_queue *hq = NULL;
	if (core->hsa_queue_create_fn(ag.gpu, 64, HSAQM_HSA_QUEUE_TYPE_MULTI, hsa_error_cb, &err_status,
				      0, 0, &hq) != HSAQM_HSA_STATUS_SUCCESS)
		H_FAIL("hsa_queue_create");
	uint32_t *counters = hsaqm_sim_mem_alloc(sim, 64, 64);
	uint64_t kobj = 0;
	struct hsaqm_sim_kernel_desc kd = { .name = "long", .duration_ns = 200 * T_MS,
					    .wg_counters = counters, .wg_counters_len = 1 };
	if (!counters || hsaqm_sim_kernel_register(sim, &kd, &kobj))
		H_FAIL("kernel");
	struct hsaqm_hsa_signal done = { 0 }, gate = { 0 }, gdone = { 0 };
	core->hsa_signal_create_fn(1, 0, NULL, &done);
	core->hsa_signal_create_fn(1, 0, NULL, &gate);
	core->hsa_signal_create_fn(1, 0, NULL, &gdone);
	uint64_t async_seen = 0;
	if (amd->hsa_amd_signal_async_handler_fn(done, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0, h_async,
						 &async_seen) != HSAQM_HSA_STATUS_SUCCESS)
		H_FAIL("async handler");

	/* 1. A 200 ms kernel; the wait in this process sleeps until the device's store. */
	r.step = 3;
	union hsaqm_aql_packet *ring = hq->base_address;
	union hsaqm_aql_packet p = t_dispatch(kobj, 1, done.handle, false);
	uint64_t idx = core->hsa_queue_add_write_index_scacq_screl_fn(hq, 1);
	hsaqm_aql_publish(&ring[idx & (hq->size - 1)], &p);
	uint64_t m0 = hsaqm_sim_now_ns(sim), t0 = t_mono_ns(), c0 = thread_cpu_ns();
	core->hsa_signal_store_screlease_fn(hq->doorbell_signal, (int64_t)idx);
	hsaqm_hsa_signal_value_t v = core->hsa_signal_wait_scacquire_fn(
		done, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSAQM_HSA_WAIT_STATE_BLOCKED);
	r.wait_cpu_ns = thread_cpu_ns() - c0;
	r.wait_ns = t_mono_ns() - t0;
	r.model_ns = hsaqm_sim_now_ns(sim) - m0;
	/* Acquire: pairs with the device engine's add, made before its decrement of done. */
	if (v != 0 || hsaqm_load_acquire(&counters[0]) != 1)
		H_FAIL("wait returned %lld, workgroup ran %u times", (long long)v, counters[0]);
	/*
	 * The async handler thread of this process woke too (the arena's epoch futex).
	 * Acquire, both: pair with h_async's release.
	 */
	T_UNTIL(hsaqm_load_acquire(&async_seen) != 0, 10 * T_S);
	r.async_value = hsaqm_load_acquire(&async_seen);

	/* 2. A barrier-AND on a signal only this process stores: the device's engine waits on it. */
	r.step = 4;
	core->hsa_signal_store_screlease_fn(done, 1);
	uint64_t dep = gate.handle;
	union hsaqm_aql_packet b = t_barrier_and(&dep, 1, gdone.handle, false);
	idx = core->hsa_queue_add_write_index_scacq_screl_fn(hq, 1);
	hsaqm_aql_publish(&ring[idx & (hq->size - 1)], &b);
	core->hsa_signal_store_screlease_fn(hq->doorbell_signal, (int64_t)idx);
	/* Time let pass on purpose: the barrier must still hold after it (more time only makes
	 * that harder to pass). */
	t_sleep_us(50000);
	r.barrier_held = core->hsa_signal_load_scacquire_fn(gdone) == 1;
	core->hsa_signal_store_screlease_fn(gate, 0); /* wakes the device's engine */
	v = core->hsa_signal_wait_scacquire_fn(gdone, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0, 10 * T_S,
					       HSAQM_HSA_WAIT_STATE_BLOCKED);
	if (v != 0)
		H_FAIL("barrier not released: %lld", (long long)v);

	/* 3. A bad packet: the device's CP report reaches this process's error callback. */
	r.step = 5;
	union hsaqm_aql_packet bad = t_dispatch(kobj + 64 * 1024, 1, 0, false); /* no kernel there */
	idx = core->hsa_queue_add_write_index_scacq_screl_fn(hq, 1);
	hsaqm_aql_publish(&ring[idx & (hq->size - 1)], &bad);
	core->hsa_signal_store_screlease_fn(hq->doorbell_signal, (int64_t)idx);
	/* Acquire, both: pair with hsa_error_cb's release. */
	T_UNTIL(hsaqm_load_acquire(&err_status) != 0, 10 * T_S);
	r.queue_error_status = hsaqm_load_acquire(&err_status);
	r.step = 6;
	if (core->hsa_queue_destroy_fn(hq) != HSAQM_HSA_STATUS_SUCCESS)
		H_FAIL("hsa_queue_destroy");
	core->hsa_shut_down_fn();
	r.ok = 1;
out:
	t_write_all(report, &r, sizeof(r));
	hsaqm_sim_destroy(sim);
	exit(0);
}

static void test_hsa_face_waits_and_stores_cross_processes_through_futexes(void)
{
	struct t_device dev;
	struct hsa_report r = { 0 };
	int fd = -1;

	CU_ASSERT_EQUAL_FATAL(t_device_start(&dev, "hsa.sock", 1), 0);
	pid_t pid = t_child_start(hsa_client_main, dev.path, &fd);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(t_read_all(fd, &r, sizeof(r), 60000), 0);
	close(fd);
	CU_ASSERT_EQUAL(t_child_wait(pid), 0);
	printf("\n  200 ms kernel: the client's wait took %.1f ms wall, %.1f ms model, %.2f ms CPU",
	       (double)r.wait_ns / 1e6, (double)r.model_ns / 1e6, (double)r.wait_cpu_ns / 1e6);
	if (!r.ok)
		printf("\n  FAILED at step %d: %s", r.step, r.msg);
	CU_ASSERT_TRUE(r.ok);
	CU_ASSERT(r.model_ns >= 200 * T_MS);
	/* It slept: a polling wait would burn ~200 ms of CPU. */
	CU_ASSERT(r.wait_cpu_ns < 50 * T_MS);
	CU_ASSERT_EQUAL(r.async_value, 1000); /* handler ran with value 0 */
	CU_ASSERT_TRUE(r.barrier_held);
	CU_ASSERT_EQUAL(r.queue_error_status, 0x1010); /* INVALID_CODE_OBJECT */
	CU_ASSERT_EQUAL(t_device_stop(&dev), 0);
	printf("\n  ");
}

static const struct t_case cases[] = {
	T_CASE(test_hsa_face_waits_and_stores_cross_processes_through_futexes),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-shared-hsa-face", NULL, NULL, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	return t_sim_shared_main(argc, argv, "test-sim-shared-hsa-face", suites);
}
