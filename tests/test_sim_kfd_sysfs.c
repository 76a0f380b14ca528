/* SPDX-License-Identifier: MIT */
/*
 * The model's generated sysfs tree, read through kfd-ioctl: the topology equals the profile, the
 * module parameters follow the model's configuration, and the tree goes with the model.
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

static void test_topology_from_the_generated_sysfs_equals_the_profile(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .num_devices = 2 };
	struct hsaqm_topology *topo = NULL;
	struct hsaqm_cwsr_sizes sz;
	char decoded[512], path[PATH_MAX], name[64] = { 0 };
	struct t_kfd_env e;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.tp->sysfs_root);
	CU_ASSERT_STRING_EQUAL(e.tp->sysfs_root, hsaqm_sim_sysfs_root(e.sim));
	CU_ASSERT_EQUAL_FATAL(hsaqm_topology_load(e.tp->sysfs_root, &topo), 0);
	CU_ASSERT_EQUAL(topo->n_nodes, 3);
	CU_ASSERT_FALSE(topo->nodes[0].is_gpu);
	CU_ASSERT(topo->nodes[0].cpu_cores_count > 0);
	for (unsigned int d = 0; d < 2; d++) {
		const struct hsaqm_topology_node *n = &topo->nodes[d + 1];

		CU_ASSERT(n->is_gpu);
		CU_ASSERT_EQUAL(n->gpu_id, sim_kfd_gpu_id(e.sim, d));
		CU_ASSERT_PTR_EQUAL(hsaqm_topology_find_gpu(topo, n->gpu_id), n);
		CU_ASSERT_EQUAL(n->cu_count, 80);
		CU_ASSERT_EQUAL(n->num_xcc, 4);
		CU_ASSERT_EQUAL(n->gfx_target_version, 90402);
		CU_ASSERT_EQUAL(n->capability, 0x2c77a280u);
		CU_ASSERT_EQUAL(n->num_cp_queues, 24);
	}
	CU_ASSERT_NOT_EQUAL(topo->nodes[1].gpu_id, topo->nodes[2].gpu_id);
	CU_ASSERT(hsaqm_topology_cap_decode(topo->nodes[1].capability, decoded,
					    sizeof(decoded)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(decoded, "TRAP_DEBUG_SUPPORT"));
	CU_ASSERT_PTR_NOT_NULL(strstr(decoded, "TRAP_DEBUG_FIRMWARE_SUPPORTED"));
	CU_ASSERT_PTR_NULL(strstr(decoded, "PER_QUEUE_RESET"));
	CU_ASSERT_EQUAL(hsaqm_cwsr_sizes_get(&topo->nodes[1], &sz), 0);
	CU_ASSERT_EQUAL(sz.cwsr_size, 12214272);
	CU_ASSERT_EQUAL(sz.ctl_stack_size, 8192);

	/* The properties file is the profile's, byte for byte; the name is the KFD's. */
	char *text = NULL;
	size_t len = 0;
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/topology/nodes/1/properties",
		 e.tp->sysfs_root);
	CU_ASSERT_EQUAL(hsaqm_debugfs_read(path, &text, &len), 0);
	CU_ASSERT_STRING_EQUAL(text, sim_device_profile(e.sim, 0)->properties_text);
	free(text);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/topology/nodes/1/name", e.tp->sysfs_root);
	FILE *f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(fgets(name, sizeof(name), f));
	fclose(f);
	CU_ASSERT_STRING_EQUAL(name, "ip discovery\n");
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/topology/generation_id", e.tp->sysfs_root);
	CU_ASSERT_EQUAL(access(path, R_OK), 0);
	hsaqm_topology_free(topo);
	t_kfd_env_close(&e);
}

static void test_module_parameters_follow_the_model_config(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .cwsr_disable = 1,
					.sched_policy = 2 };
	struct hsaqm_kfd_module_params mp;
	struct t_kfd_env e;

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_module_params(e.tp->sysfs_root, &mp), 0);
	CU_ASSERT_EQUAL(mp.present, 0x1f);
	CU_ASSERT_EQUAL(mp.cwsr_enable, 1);
	CU_ASSERT_EQUAL(mp.sched_policy, 0);
	CU_ASSERT_EQUAL(mp.hws_max_conc_proc, -1);
	CU_ASSERT_EQUAL(mp.queue_preemption_timeout_ms, 9000);
	CU_ASSERT_EQUAL(mp.mes, 0);
	t_kfd_env_close(&e);

	CU_ASSERT_EQUAL_FATAL(t_kfd_env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_module_params(e.tp->sysfs_root, &mp), 0);
	CU_ASSERT_EQUAL(mp.cwsr_enable, 0);
	CU_ASSERT_EQUAL(mp.sched_policy, 2);
	t_kfd_env_close(&e);
}

static void test_sysfs_tree_is_removed_at_model_destroy(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	char root[PATH_MAX];

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_PTR_NOT_NULL_FATAL(hsaqm_sim_sysfs_root(sim));
	snprintf(root, sizeof(root), "%s", hsaqm_sim_sysfs_root(sim));
	CU_ASSERT_EQUAL(access(root, F_OK), 0);
	CU_ASSERT_PTR_EQUAL(hsaqm_sim_sysfs_root(sim), hsaqm_sim_sysfs_root(sim)); /* made once */
	hsaqm_sim_destroy(sim);
	CU_ASSERT_EQUAL(access(root, F_OK), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_PTR_NULL(hsaqm_sim_sysfs_root(NULL));
	CU_ASSERT_PTR_NULL(hsaqm_sim_kfd_transport(NULL));
}

static const struct t_case cases[] = {
	T_CASE(test_topology_from_the_generated_sysfs_equals_the_profile),
	T_CASE(test_module_parameters_follow_the_model_config),
	T_CASE(test_sysfs_tree_is_removed_at_model_destroy),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-kfd-sysfs", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-kfd-sysfs", suites);
}
