/* SPDX-License-Identifier: MIT */
/*
 * libt-pyhost.so: an HSA application the Python test drives through ctypes. It opens the
 * device model and calls hsa_init (which loads HSA_TOOLS_LIB: the tool library), makes queues
 * and submits dispatches exactly as ROCclr does. Exports only pyhost_* (its own copy of lib
 * stays hidden, so the tool and python/hsaqm.py share libhsaqm.so's).
 */
#include "t_hsa.h"
#include "t_rocclr.h"

#define EXPORT __attribute__((visibility("default")))
#define MAXQ 16

static struct t_hsa h;
static uint64_t kobj;
static struct hsaqm_hsa_queue *qs[MAXQ];
static struct hsaqm_hsa_signal cs[MAXQ];
static int nq;

EXPORT int pyhost_open(void);
EXPORT int pyhost_queue(int hip_priority);
EXPORT int pyhost_submit(int qi, int n);
EXPORT long pyhost_pending(int qi);
EXPORT int pyhost_wait(int qi, int ms);
EXPORT void pyhost_close(void);

EXPORT int pyhost_open(void)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL,
					.seed = 4 };
	struct hsaqm_sim_kernel_desc kd = { .name = "py", .duration_ns = 20 * T_US,
					    .waves_per_wg = 1 };
	int rc = t_hsa_open_cfg(&h, &cfg);

	return rc ? rc : hsaqm_sim_kernel_register(h.sim, &kd, &kobj);
}

/* hip_priority: -1 low, 0 normal, 1 high (as HIP maps stream priorities). Returns the index. */
EXPORT int pyhost_queue(int hip_priority)
{
	if (nq == MAXQ)
		return -ENOSPC;
	if (h.core->hsa_queue_create_fn(h.gpu[0], 256, HSAQM_HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0,
					0, &qs[nq]) != HSAQM_HSA_STATUS_SUCCESS)
		return -EIO;
	if (hip_priority)
		h.amd->hsa_amd_queue_set_priority_fn(qs[nq], hip_priority > 0
								   ? HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH
								   : HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW);
	cs[nq] = t_hsa_signal(&h, 0);
	return nq++;
}

EXPORT int pyhost_submit(int qi, int n)
{
	if (qi < 0 || qi >= nq || n <= 0)
		return -EINVAL;
	h.core->hsa_signal_store_relaxed_fn(cs[qi], n);
	for (int i = 0; i < n; i++) {
		union hsaqm_aql_packet pk = t_hsa_dispatch(kobj, 1, cs[qi].handle, true, NULL);

		t_rocclr_submit(h.core, qs[qi], &pk, NULL, NULL);
	}
	return 0;
}

EXPORT long pyhost_pending(int qi)
{
	if (qi < 0 || qi >= nq)
		return -EINVAL;
	return (long)h.core->hsa_signal_load_scacquire_fn(cs[qi]);
}

EXPORT int pyhost_wait(int qi, int ms)
{
	if (qi < 0 || qi >= nq)
		return -EINVAL;
	return t_hsa_wait_le(&h, cs[qi], 0, (uint64_t)ms * T_MS) ? 0 : -ETIMEDOUT;
}

EXPORT void pyhost_close(void)
{
	for (int i = 0; i < nq; i++) {
		h.core->hsa_queue_destroy_fn(qs[i]);
		h.core->hsa_signal_destroy_fn(cs[i]);
	}
	nq = 0;
	t_hsa_close(&h);
}
