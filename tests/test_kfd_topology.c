/* SPDX-License-Identifier: MIT */
/*
 * Topology from a sysfs tree built in /tmp around the real MI308X node properties (fixture
 * node2.properties): the inventory, capability names, module parameters, CWSR sizes from the
 * formula (checked against a hand computation and the capture's own HQD registers) and from
 * sysfs when the kernel prints them, and clear errors for missing or garbled files.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hsaqm-kfd/kfd.h"
#include "t_cunit.h"

#define NODES "class/kfd/kfd/topology/nodes"
#define PARAMS "module/amdgpu/parameters"
#define MI308X_GPU_ID 63420u /* 0xf7bc, node 2's gpu_id in the capture's debugfs dumps */

static char root[64]; /* a mkdtemp() name under /tmp */
static char *node2_text; /* the fixture file */

static const char cpu_node_properties[] =
	"cpu_cores_count 96\nsimd_count 0\nmem_banks_count 1\ncaches_count 0\n"
	"io_links_count 9\ncpu_core_id_base 0\nsimd_id_base 0\nmax_waves_per_simd 0\n"
	"lds_size_in_kb 0\ngds_size_in_kb 0\nwave_front_size 0\narray_count 0\n"
	"simd_arrays_per_engine 0\ncu_per_simd_array 0\nsimd_per_cu 0\n"
	"max_slots_scratch_cu 0\ngfx_target_version 0\nvendor_id 0\ndevice_id 0\n"
	"location_id 0\ndomain 0\ndrm_render_minor 0\nhive_id 0\nnum_sdma_engines 0\n"
	"num_sdma_xgmi_engines 0\nnum_sdma_queues_per_engine 0\nnum_cp_queues 0\n"
	"max_engine_clk_ccompute 3800\n";

static int write_file(const char *rel, const char *text)
{
	char path[PATH_MAX], dir[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	/* mkdir -p of the directory part */
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int read_fixture(void)
{
	const char *dir = getenv("HSAQM_FIXTURES");
	char path[PATH_MAX];
	size_t len;

	if (!dir || !*dir) {
		fprintf(stderr, "HSAQM_FIXTURES is not set\n");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/mi308x-sr18/node2.properties", dir);
	if (hsaqm_debugfs_read(path, &node2_text, &len)) {
		fprintf(stderr, "cannot read %s\n", path);
		return -1;
	}
	return 0;
}

/* The standard tree: CPU nodes 0 and 1, the MI308X as node 2, amdgpu parameters. */
static int suite_init(void)
{
	char gpu_id[32];

	if (read_fixture())
		return -1;
	snprintf(root, sizeof(root), "/tmp/hsaqm-topology-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(gpu_id, sizeof(gpu_id), "%u\n", MI308X_GPU_ID);
	if (write_file(NODES "/0/properties", cpu_node_properties) ||
	    write_file(NODES "/0/gpu_id", "0\n") ||
	    write_file(NODES "/1/properties", cpu_node_properties) ||
	    write_file(NODES "/1/gpu_id", "0\n") ||
	    write_file(NODES "/2/properties", node2_text) ||
	    write_file(NODES "/2/gpu_id", gpu_id) ||
	    write_file(PARAMS "/cwsr_enable", "1\n") || write_file(PARAMS "/sched_policy", "0\n") ||
	    write_file(PARAMS "/hws_max_conc_proc", "8\n") ||
	    write_file(PARAMS "/queue_preemption_timeout_ms", "9000\n") ||
	    write_file(PARAMS "/mes", "0\n"))
		return -1;
	return 0;
}

static int suite_clean(void)
{
	free(node2_text);
	return root[0] ? nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS) : 0;
}

static void test_topology_loads_cpu_and_mi308x_nodes(void)
{
	struct hsaqm_topology *topo = NULL;
	const struct hsaqm_topology_node *gpu;
	uint64_t v = 0;

	CU_ASSERT_EQUAL_FATAL(hsaqm_topology_load(root, &topo), 0);
	CU_ASSERT_EQUAL(topo->n_nodes, 3);
	CU_ASSERT_FALSE(topo->nodes[0].is_gpu);
	CU_ASSERT_FALSE(topo->nodes[1].is_gpu);
	CU_ASSERT_EQUAL(topo->nodes[0].cpu_cores_count, 96);
	gpu = hsaqm_topology_find_gpu(topo, MI308X_GPU_ID);
	CU_ASSERT_PTR_EQUAL_FATAL(gpu, &topo->nodes[2]);
	CU_ASSERT(gpu->is_gpu);
	CU_ASSERT_EQUAL(gpu->node_id, 2);
	/* hardware-facts.md, "MI308X (gfx942) - captured". */
	CU_ASSERT_EQUAL(gpu->cu_count, 80);
	CU_ASSERT_EQUAL(gpu->num_xcc, 4);
	CU_ASSERT_EQUAL(gpu->gfx_target_version, 90402);
	CU_ASSERT_EQUAL(gpu->device_id, 0x74a2);
	CU_ASSERT_EQUAL(gpu->simd_count, 320);
	CU_ASSERT_EQUAL(gpu->simd_per_cu, 4);
	CU_ASSERT_EQUAL(gpu->num_cp_queues, 24);
	CU_ASSERT_EQUAL(gpu->max_waves_per_simd, 8);
	CU_ASSERT_EQUAL(gpu->fw_version, 165);
	CU_ASSERT_EQUAL(gpu->capability, 746037888u);
	CU_ASSERT_EQUAL(gpu->debug_prop, 1511);
	CU_ASSERT_EQUAL(gpu->hive_id, 11874769713031422079ull);
	CU_ASSERT_FALSE(gpu->has_cwsr_size);
	CU_ASSERT_EQUAL(gpu->n_props, 38); /* every line of the fixture */
	CU_ASSERT_EQUAL(hsaqm_topology_node_prop(gpu, "max_engine_clk_ccompute", &v), 0);
	CU_ASSERT_EQUAL(v, 3800);
	CU_ASSERT_EQUAL(hsaqm_topology_node_prop(gpu, "no_such_property", &v), -ENOENT);
	CU_ASSERT_PTR_NULL(hsaqm_topology_find_gpu(topo, 0));
	CU_ASSERT_PTR_NULL(hsaqm_topology_find_gpu(topo, 1234));
	hsaqm_topology_free(topo);
}

static void test_capability_bits_decoded_by_name(void)
{
	const uint32_t cap = 746037888u; /* 0x2c77a280 */
	char text[512];
	int n;

	CU_ASSERT(cap & HSAQM_KFD_CAP_TRAP_DEBUG_SUPPORT);
	CU_ASSERT(cap & HSAQM_KFD_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED);
	CU_ASSERT_FALSE(cap & HSAQM_KFD_CAP_PER_QUEUE_RESET_SUPPORTED);
	CU_ASSERT_STRING_EQUAL(hsaqm_topology_cap_name(0x8000), "TRAP_DEBUG_SUPPORT");
	CU_ASSERT_STRING_EQUAL(hsaqm_topology_cap_name(0x20000000),
			       "TRAP_DEBUG_FIRMWARE_SUPPORTED");
	CU_ASSERT_STRING_EQUAL(hsaqm_topology_cap_name(0x80000000), "PER_QUEUE_RESET_SUPPORTED");
	CU_ASSERT_PTR_NULL(hsaqm_topology_cap_name(0x100)); /* part of a field, not a flag */

	/* Worked out by hand from 0x2c77a280: flags 0x80, 0x8000, 0x10000, 0x20000, 0x40000,
	 * 0x100000, 0x200000, 0x4000000, 0x8000000, 0x20000000; fields bits 8-11 = 2,
	 * 12-13 = 2, 22-25 = 1. */
	n = hsaqm_topology_cap_decode(cap, text, sizeof(text));
	CU_ASSERT_STRING_EQUAL(text,
		"WATCH_POINTS_SUPPORTED|TRAP_DEBUG_SUPPORT|"
		"TRAP_DEBUG_WAVE_LAUNCH_TRAP_OVERRIDE_SUPPORTED|"
		"TRAP_DEBUG_WAVE_LAUNCH_MODE_SUPPORTED|"
		"TRAP_DEBUG_PRECISE_MEMORY_OPERATIONS_SUPPORTED|MEM_EDCSUPPORTED|RASEVENTNOTIFY|"
		"SRAM_EDCSUPPORTED|SVMAPI_SUPPORTED|TRAP_DEBUG_FIRMWARE_SUPPORTED "
		"watch_points_bits=2 doorbell_type=2 asic_revision=1");
	CU_ASSERT_EQUAL(n, (int)strlen(text));
	CU_ASSERT(strstr(text, "PER_QUEUE_RESET") == NULL);

	CU_ASSERT_EQUAL(hsaqm_topology_cap_decode(cap, text, 20), -ENOSPC);
	CU_ASSERT_EQUAL(strlen(text), 19); /* cut, still terminated */
	CU_ASSERT_EQUAL(hsaqm_topology_cap_decode(0, text, sizeof(text)), (int)strlen(text));
	CU_ASSERT_STRING_EQUAL(text, "watch_points_bits=0 doorbell_type=0 asic_revision=0");
	CU_ASSERT_EQUAL(hsaqm_topology_cap_decode(cap, NULL, 10), -EINVAL);
}

static void test_cwsr_formula_for_4_xcc_of_20_cu(void)
{
	struct hsaqm_topology_node node = { .node_id = 2, .gpu_id = MI308X_GPU_ID };
	struct hsaqm_cwsr_sizes s;

	CU_ASSERT_EQUAL_FATAL(hsaqm_topology_parse_properties(node2_text, strlen(node2_text),
							      &node), 0);
	node.is_gpu = true;
	if (sysconf(_SC_PAGESIZE) != 4096) {
		printf("\n  page size is not 4 KiB: the hand-computed figures do not apply\n");
		return;
	}
	CU_ASSERT_EQUAL_FATAL(hsaqm_cwsr_sizes_get(&node, &s), 0);
	/*
	 * By hand, per XCC: 320 SIMDs / 4 per CU / 4 XCCs = 20 CUs.
	 *   waves:      min(20 x 40, 16 / 1 x 512) = 800
	 *   wg data:    20 x (VGPR 0x80000 + SGPR 0x4000 + LDS 0x10000 + HWREG 0x1000)
	 *             = 20 x 0x95000 = 12206080 (0xba4000), already page-aligned
	 *   ctl stack:  40 + 800 x 8 + 8 = 6448 -> 8192 (0x2000)
	 *   cwsr size:  8192 + 12206080 = 12214272 (0xba6000)
	 *   debug:      800 x 32 = 25600, a multiple of 64
	 *   total:      (12214272 + 25600) x 4 = 48959488 bytes = 46.69 MiB (~47 MiB)
	 * 0xba6000 and 0x2000 are also what the capture's HQDs hold in CP_HQD_CTX_SAVE_SIZE and
	 * CP_HQD_CNTL_STACK_SIZE (test-kfd-debugfs checks that side).
	 */
	CU_ASSERT_EQUAL(s.cu_per_xcc, 20);
	CU_ASSERT_EQUAL(s.num_xcc, 4);
	CU_ASSERT_EQUAL(s.wave_num, 800);
	CU_ASSERT_EQUAL(s.wg_data_size, 12206080u);
	CU_ASSERT_EQUAL(s.ctl_stack_size, 8192u);
	CU_ASSERT_EQUAL(s.cwsr_size, 12214272u);
	CU_ASSERT_EQUAL(s.cwsr_size, 0xba6000u);
	CU_ASSERT_EQUAL(s.debug_memory_size, 25600u);
	CU_ASSERT_EQUAL(s.total_size, 48959488ull);
	CU_ASSERT_EQUAL(s.eop_buffer_size, 4096u);
	CU_ASSERT_FALSE(s.from_sysfs);
}

static void test_cwsr_formula_other_generations(void)
{
	struct hsaqm_cwsr_sizes s;

	/* gfx90a (MI200, one XCC, 104 CUs): waves min(4160, 8 x 512 = 4096). */
	CU_ASSERT_EQUAL(hsaqm_cwsr_formula(90010, 416, 4, 1, 8, 1, 64, 4096, &s), 0);
	CU_ASSERT_EQUAL(s.wave_num, 4096);
	CU_ASSERT_EQUAL(s.ctl_stack_size, 36864u); /* 40 + 4096 x 8 + 8 = 32816 -> 36864 */
	CU_ASSERT_EQUAL(s.wg_data_size, 104u * 0x95000u);
	/* gfx1100 (navi31, 48 CUs): 32 waves per CU, 12-byte entries, 384 KiB VGPRs. */
	CU_ASSERT_EQUAL(hsaqm_cwsr_formula(110000, 96, 2, 1, 12, 2, 64, 4096, &s), 0);
	CU_ASSERT_EQUAL(s.wave_num, 1536);
	CU_ASSERT_EQUAL(s.ctl_stack_size, 20480u); /* 40 + 1536 x 12 + 8 = 18480 -> 20480 */
	CU_ASSERT_EQUAL(s.wg_data_size, 48u * (0x60000u + 0x4000u + 0x10000u + 0x1000u));
	/* gfx1010, 80 CUs: 2560 waves x 12 + 48 = 30768 -> 32768, capped at 0x7000. */
	CU_ASSERT_EQUAL(hsaqm_cwsr_formula(100100, 160, 2, 1, 8, 2, 64, 4096, &s), 0);
	CU_ASSERT_EQUAL(s.ctl_stack_size, 0x7000u);
	/* Bad input and no CWSR. */
	CU_ASSERT_EQUAL(hsaqm_cwsr_formula(70000, 32, 4, 1, 8, 1, 64, 4096, &s), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_cwsr_formula(90402, 0, 4, 1, 8, 1, 64, 4096, &s), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_cwsr_formula(90402, 320, 4, 4, 16, 1, 64, 3000, &s), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_cwsr_formula(90402, 320, 4, 4, 16, 0, 64, 4096, &s), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_cwsr_formula(90402, 320, 4, 4, 16, 1, 64, 4096, NULL), -EINVAL);
}

static void test_cwsr_sizes_from_sysfs_when_printed(void)
{
	char *text, path[PATH_MAX];
	struct hsaqm_topology_node node;
	struct hsaqm_cwsr_sizes s;
	size_t len = strlen(node2_text);

	/* A late-2025 kernel prints both; numbers chosen unlike the formula's. */
	text = malloc(len + 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	snprintf(text, len + 64, "%scwsr_size 12218368\nctl_stack_size 12288\n", node2_text);
	CU_ASSERT_EQUAL_FATAL(write_file(NODES "/3/properties", text), 0);
	CU_ASSERT_EQUAL_FATAL(write_file(NODES "/3/gpu_id", "4242\n"), 0);
	free(text);

	CU_ASSERT_EQUAL_FATAL(hsaqm_topology_node_load(root, 3, &node), 0);
	CU_ASSERT(node.has_cwsr_size);
	CU_ASSERT(node.has_ctl_stack_size);
	CU_ASSERT_EQUAL(node.gpu_id, 4242);
	CU_ASSERT_EQUAL_FATAL(hsaqm_cwsr_sizes_get(&node, &s), 0);
	CU_ASSERT(s.from_sysfs);
	CU_ASSERT_EQUAL(s.cwsr_size, 12218368u);
	CU_ASSERT_EQUAL(s.ctl_stack_size, 12288u);
	CU_ASSERT_EQUAL(s.debug_memory_size, 25600u); /* never printed: still the formula's */
	if (sysconf(_SC_PAGESIZE) == 4096)
		CU_ASSERT_EQUAL(s.total_size, (12218368ull + 25600) * 4);

	snprintf(path, sizeof(path), "%s/" NODES "/3", root);
	nftw(path, remove_entry, 4, FTW_DEPTH | FTW_PHYS);
}

static void test_missing_and_garbled_files_give_clear_errno(void)
{
	struct hsaqm_topology_node node;
	struct hsaqm_topology *topo = NULL;
	char empty_root[PATH_MAX], path[PATH_MAX];

	CU_ASSERT_EQUAL(hsaqm_topology_node_load(root, 7, &node), -ENOENT);

	CU_ASSERT_EQUAL_FATAL(write_file(NODES "/5/properties", "simd_count abc\n"), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_node_load(root, 5, &node), -EBADMSG);
	CU_ASSERT_EQUAL_FATAL(write_file(NODES "/5/properties", "simd_count -4\n"), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_node_load(root, 5, &node), -EBADMSG);
	CU_ASSERT_EQUAL_FATAL(write_file(NODES "/5/properties", "just_a_name\n"), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_node_load(root, 5, &node), -EBADMSG);
	CU_ASSERT_EQUAL_FATAL(write_file(NODES "/5/properties", ""), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_node_load(root, 5, &node), -EBADMSG);
	CU_ASSERT_EQUAL_FATAL(write_file(NODES "/5/properties",
					 "simd_count 18446744073709551616\n"), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_node_load(root, 5, &node), -EBADMSG); /* 2^64 */
	CU_ASSERT_EQUAL_FATAL(write_file(NODES "/5/properties", node2_text), 0);
	CU_ASSERT_EQUAL_FATAL(write_file(NODES "/5/gpu_id", "f7bc\n"), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_node_load(root, 5, &node), -EBADMSG);
	snprintf(path, sizeof(path), "%s/" NODES "/5/gpu_id", root);
	unlink(path);
	CU_ASSERT_EQUAL(hsaqm_topology_node_load(root, 5, &node), -ENOENT); /* a GPU needs one */
	snprintf(path, sizeof(path), "%s/" NODES "/5", root);
	nftw(path, remove_entry, 4, FTW_DEPTH | FTW_PHYS);

	snprintf(empty_root, sizeof(empty_root), "%s/empty", root);
	CU_ASSERT_EQUAL(mkdir(empty_root, 0755), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_load(empty_root, &topo), -ENOENT);
	CU_ASSERT_PTR_NULL(topo);
	CU_ASSERT_EQUAL(rmdir(empty_root), 0);

	CU_ASSERT_EQUAL(hsaqm_topology_load(NULL, &topo), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_topology_node_load(root, 2, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_topology_parse_properties(NULL, 0, &node), -EINVAL);
}

static void test_module_parameters(void)
{
	struct hsaqm_kfd_module_params p;
	char empty_root[PATH_MAX], path[PATH_MAX];
	long v = 0;

	CU_ASSERT_EQUAL_FATAL(hsaqm_topology_module_params(root, &p), 0);
	CU_ASSERT_EQUAL(p.cwsr_enable, 1);
	CU_ASSERT_EQUAL(p.sched_policy, 0);
	CU_ASSERT_EQUAL(p.hws_max_conc_proc, 8);
	CU_ASSERT_EQUAL(p.queue_preemption_timeout_ms, 9000);
	CU_ASSERT_EQUAL(p.mes, 0);
	CU_ASSERT_EQUAL(p.present, HSAQM_KFD_PARAM_CWSR_ENABLE | HSAQM_KFD_PARAM_SCHED_POLICY |
					   HSAQM_KFD_PARAM_HWS_MAX_CONC_PROC |
					   HSAQM_KFD_PARAM_QUEUE_PREEMPTION_TIMEOUT_MS |
					   HSAQM_KFD_PARAM_MES);

	/* An older amdgpu without "mes": the rest still read, mes marked absent. */
	snprintf(path, sizeof(path), "%s/" PARAMS "/mes", root);
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_module_params(root, &p), 0);
	CU_ASSERT_EQUAL(p.mes, -1);
	CU_ASSERT_FALSE(p.present & HSAQM_KFD_PARAM_MES);
	CU_ASSERT(p.present & HSAQM_KFD_PARAM_SCHED_POLICY);
	CU_ASSERT_EQUAL(hsaqm_topology_module_param(root, "mes", &v), -ENOENT);

	/* Y/N parameters, negative values, garbage. */
	CU_ASSERT_EQUAL(write_file(PARAMS "/mes", "Y\n"), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_module_param(root, "mes", &v), 0);
	CU_ASSERT_EQUAL(v, 1);
	CU_ASSERT_EQUAL(write_file(PARAMS "/mes", "-1\n"), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_module_param(root, "mes", &v), 0);
	CU_ASSERT_EQUAL(v, -1);
	CU_ASSERT_EQUAL(write_file(PARAMS "/sched_policy", "hws\n"), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_module_params(root, &p), -EBADMSG);
	CU_ASSERT_EQUAL(write_file(PARAMS "/sched_policy", "\n"), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_module_param(root, "sched_policy", &v), -EBADMSG);
	CU_ASSERT_EQUAL(write_file(PARAMS "/sched_policy", "0\n"), 0);
	CU_ASSERT_EQUAL(write_file(PARAMS "/mes", "0\n"), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_module_param(root, "../mes", &v), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_topology_module_param(root, "", &v), -EINVAL);

	/* No amdgpu at all. */
	snprintf(empty_root, sizeof(empty_root), "%s/noamdgpu", root);
	CU_ASSERT_EQUAL(mkdir(empty_root, 0755), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_module_params(empty_root, &p), -ENOENT);
	CU_ASSERT_EQUAL(rmdir(empty_root), 0);
}

static const struct t_case topology_cases[] = {
	T_CASE(test_topology_loads_cpu_and_mi308x_nodes),
	T_CASE(test_capability_bits_decoded_by_name),
	T_CASE(test_cwsr_formula_for_4_xcc_of_20_cu),
	T_CASE(test_cwsr_formula_other_generations),
	T_CASE(test_cwsr_sizes_from_sysfs_when_printed),
	T_CASE(test_missing_and_garbled_files_give_clear_errno),
	T_CASE(test_module_parameters),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "kfd-topology", suite_init, suite_clean, topology_cases },
		T_SUITES_END,
	};

	return t_run("kfd-topology", suites);
}
