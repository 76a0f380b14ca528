// SPDX-License-Identifier: MIT
/*
 * probe_sim.c - the probe's target on the device model: the KFD face as transport, the
 * generated sysfs tree, the HSA face's table, model kernels. The checks take the same path as
 * on hardware: the HSA face makes the check queue through the model's KFD (as ROCr goes
 * through libhsakmt) and enables the KFD's runtime as ROCr does, and every open of the model's
 * KFD in a process reaches the same KFD process, so the probe finds the queue by ring address.
 * env.queues_via_kfd (the probe makes its queue through the KFD itself) stays for tests that
 * need a process whose runtime never enabled the KFD's runtime.
 * Other processes' queues are read from the model's sysfs kfd/proc, as on hardware; the
 * model writes that folder from its KFD face when asked (sim/proc_view.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hsaqm-sim/sim.h"
#include "probe_internal.h"

/*
 * The model's kfd/proc is a snapshot of its KFD face: brought up to date, then read by the
 * same scan as the KFD's own tree. The probe's own model process is not skipped by pid (it is
 * listed under its PASID): it counts before it makes a queue of its own.
 */
static int sim_others(void *ctx, uint32_t gpu_id, struct hsaqm_probe_others *out)
{
	struct hsaqm_sim *sim = ctx;
	int err;

	memset(out, 0, sizeof(*out));
	err = hsaqm_sim_proc_view_sync(sim);
	if (err) {
		snprintf(out->source, sizeof(out->source), "unknown: model kfd/proc: %s",
			 strerror(-err));
		return err;
	}
	probe_scan_proc(hsaqm_sim_sysfs_root(sim), gpu_id, -1, out);
	if (out->known)
		probe_strlcpy(out->source, "model sysfs kfd/proc", sizeof(out->source));
	return 0;
}

int hsaqm_probe_env_sim(struct hsaqm_probe_env *env, struct hsaqm_sim *sim)
{
	if (!env || !sim)
		return -EINVAL;
	memset(env, 0, sizeof(*env));
	env->tp = hsaqm_sim_kfd_transport(sim);
	env->hsa_root_table = hsaqm_sim_hsa_table(sim);
	env->sysfs_root = hsaqm_sim_sysfs_root(sim);
	if (!env->tp || !env->hsa_root_table || !env->sysfs_root)
		return -ENODEV;
	env->debugfs_root = NULL; /* the model has no debugfs */
	env->is_model = true;
	env->model_name = "hsaqm device model (sim/, MI308X profile unless configured)";
	env->sim = sim;
	env->queues_via_kfd = false;
	env->runtime_enable = true;
	env->others = sim_others;
	env->others_ctx = sim;
	return 0;
}
