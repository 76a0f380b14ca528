/* SPDX-License-Identifier: MIT */
/*
 * The real transport on the real /dev/kfd: open, interface version, the topology it serves and
 * the CWSR sizes of each GPU. Skips (77) on a machine without an AMD GPU or without access.
 * Nothing here creates a queue or touches the debugger API.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hsaqm-kfd/kfd.h"
#include "t_cunit.h"

static struct hsaqm_kfd *kfd;

static void test_hw_version_is_1_x(void)
{
	uint32_t major = 0, minor = 0;

	CU_ASSERT_EQUAL(hsaqm_kfd_get_version(kfd, &major, &minor), 0);
	printf("\n  KFD interface %u.%u, debugger API %s\n", major, minor,
	       hsaqm_kfd_version_at_least(kfd, 1, 13) ? "yes" : "no");
	CU_ASSERT_EQUAL(major, 1);
	CU_ASSERT(minor >= 1);
}

static void test_hw_topology_has_a_gpu_with_cwsr_sizes(void)
{
	const struct hsaqm_kfd_transport *tp = hsaqm_kfd_transport_of(kfd);
	struct hsaqm_topology *topo = NULL;
	unsigned int gpus = 0;

	CU_ASSERT_EQUAL_FATAL(hsaqm_topology_load(tp->sysfs_root, &topo), 0);
	for (uint32_t i = 0; i < topo->n_nodes; i++) {
		const struct hsaqm_topology_node *n = &topo->nodes[i];
		struct hsaqm_cwsr_sizes s;
		char caps[512];

		if (!n->is_gpu)
			continue;
		gpus++;
		hsaqm_topology_cap_decode(n->capability, caps, sizeof(caps));
		CU_ASSERT_EQUAL(hsaqm_cwsr_sizes_get(n, &s), 0);
		printf("  node %u gpu_id 0x%x gfx%u %u CUs x%u XCC, CWSR %llu bytes (%s)\n  %s\n",
		       n->node_id, n->gpu_id, n->gfx_target_version, n->cu_count, n->num_xcc,
		       (unsigned long long)s.total_size, s.from_sysfs ? "sysfs" : "formula", caps);
	}
	CU_ASSERT(gpus > 0);
	hsaqm_topology_free(topo);
}

static const struct t_case hw_cases[] = {
	T_CASE(test_hw_version_is_1_x),
	T_CASE(test_hw_topology_has_a_gpu_with_cwsr_sizes),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "kfd-hw", NULL, NULL, hw_cases },
		T_SUITES_END,
	};
	int ret;

	ret = hsaqm_kfd_open(hsaqm_kfd_transport_system(), &kfd);
	if (ret == -ENOENT || ret == -ENODEV || ret == -ENXIO)
		return t_skip("kfd-hw",
			      "no /dev/kfd on this machine (no AMD GPU or amdgpu not loaded)");
	if (ret == -EACCES || ret == -EPERM)
		return t_skip("kfd-hw", "/dev/kfd exists but cannot be opened: add the user to the "
				      "render (or video) group");
	if (ret < 0) {
		fprintf(stderr, "kfd-hw: opening /dev/kfd: %s\n", strerror(-ret));
		return T_EXIT_FAIL;
	}
	ret = t_run("kfd-hw", suites);
	hsaqm_kfd_close(kfd);
	return ret;
}
