/* SPDX-License-Identifier: MIT */
/*
 * hsa-queue-probe in-process (tools/probe/probe.h): what it reads. The GPU name from the target
 * version, the LCG jump, bad arguments refused, the ROCr table built from the library's
 * exports, the inventory of the real MI308X properties file (tests/fixtures), and the debugfs
 * hqds/rls dumps and the kfd/proc scan on a generated sysfs tree.
 */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-sim/sim.h"
#include "kfd_face_internal.h"
#include "probe.h"
#include "probe_internal.h"
#include "t_cunit.h"
#include "t_json.h"
#include "t_probe.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static void test_gfx_name_from_target_version(void)
{
	char b[16];

	CU_ASSERT_EQUAL(hsaqm_probe_gfx_name(90402, b, sizeof(b)), 0);
	CU_ASSERT_STRING_EQUAL(b, "gfx942");
	CU_ASSERT_EQUAL(hsaqm_probe_gfx_name(90010, b, sizeof(b)), 0);
	CU_ASSERT_STRING_EQUAL(b, "gfx90a");
	CU_ASSERT_EQUAL(hsaqm_probe_gfx_name(100300, b, sizeof(b)), 0);
	CU_ASSERT_STRING_EQUAL(b, "gfx1030");
	CU_ASSERT_EQUAL(hsaqm_probe_gfx_name(0, b, sizeof(b)), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_probe_gfx_name(90402, NULL, 16), -EINVAL);
}

static void test_lcg_jump_matches_the_loop(void)
{
	const uint64_t steps[] = { 0, 1, 2, 3, 77, 1000, 65537 };

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		uint32_t x = 0x12345678u;

		for (uint64_t n = 0; n < steps[i]; n++)
			x = x * PROBE_LCG_A + PROBE_LCG_C;
		CU_ASSERT_EQUAL(probe_lcg_jump(0x12345678u, steps[i]), x);
	}
}

static void test_run_rejects_bad_arguments(void)
{
	struct hsaqm_probe_env env = { 0 };
	struct hsaqm_probe_options o = { .device = -1, .trials = HSAQM_PROBE_TRIALS_MAX + 1 };
	struct hsaqm_probe_report *r = NULL;

	CU_ASSERT_EQUAL(hsaqm_probe_run(NULL, &env, &r), -EINVAL); /* no transport */
	env.tp = hsaqm_kfd_transport_system();
	CU_ASSERT_EQUAL(hsaqm_probe_run(&o, &env, &r), -EINVAL);
	o.trials = 1;
	o.device = -2;
	CU_ASSERT_EQUAL(hsaqm_probe_run(&o, &env, &r), -EINVAL);
	o.device = -1;
	o.checks = 1u << HSAQM_PROBE_NCHECKS;
	CU_ASSERT_EQUAL(hsaqm_probe_run(&o, &env, &r), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_probe_run(&o, &env, NULL), -EINVAL);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(NULL), HSAQM_PROBE_EXIT_FAILURE);
}

/* ---- inventory ---------------------------------------------------------------------------- */

static void test_inventory_of_the_real_mi308x_properties(void)
{
	char path[PATH_MAX];
	const char *fx = getenv("HSAQM_FIXTURES");

	CU_ASSERT_PTR_NOT_NULL_FATAL(fx);
	snprintf(path, sizeof(path), "%s/mi308x-sr18/node2.properties", fx);
	struct hsaqm_sim_config cfg = { .num_devices = 1, .properties_path = path };
	struct hsaqm_sim *sim = t_probe_sim_real(&cfg);
	struct hsaqm_probe_options o = { .device = -1, .no_live = true };

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	struct hsaqm_probe_report *r = t_probe_run_model(sim, &o, NULL);
	CU_ASSERT_EQUAL_FATAL(r->ngpus, 1);
	const struct hsaqm_probe_gpu *g = &r->gpus[0];
	CU_ASSERT_STRING_EQUAL(g->gfx, "gfx942");
	CU_ASSERT_EQUAL(g->gfx_target_version, 90402);
	CU_ASSERT_EQUAL(g->device_id, 0x74a2);
	CU_ASSERT_EQUAL(g->num_xcc, 4);
	CU_ASSERT_EQUAL(g->cu_count, 80);
	CU_ASSERT_EQUAL(g->simd_per_cu, 4);
	CU_ASSERT_EQUAL(g->max_waves_per_simd, 8);
	CU_ASSERT_EQUAL(g->hqd_slots_per_xcc, 24);
	CU_ASSERT_EQUAL(g->max_engine_clk_mhz, 1420);
	CU_ASSERT_EQUAL(g->fw_version, 165);
	CU_ASSERT_EQUAL(g->sdma_fw_version, 21);
	CU_ASSERT_EQUAL(g->capability, 0x2c77a280u);
	CU_ASSERT_TRUE(g->cap_trap_debug);
	CU_ASSERT_TRUE(g->cap_trap_debug_fw);
	CU_ASSERT_FALSE(g->cap_per_queue_reset);
	CU_ASSERT_PTR_NOT_NULL(strstr(g->capability_text, "TRAP_DEBUG_FIRMWARE_SUPPORTED"));
	CU_ASSERT_PTR_NULL(strstr(g->capability_text, "PER_QUEUE_RESET"));
	CU_ASSERT_EQUAL(g->cwsr_bytes_per_queue, 48959488u); /* docs/kfd-ioctl.md */
	CU_ASSERT_STRING_EQUAL(g->name_source, "hsa agent");
	CU_ASSERT_PTR_NOT_NULL(strstr(g->name, "MI308X"));
	CU_ASSERT_TRUE(g->have_kernel); /* the model always has its kernel */
	CU_ASSERT_TRUE(g->others.known);
	CU_ASSERT_EQUAL(g->others.queues, 0);
	/* The model's KFD: 1.17, HWS, CWSR on. */
	CU_ASSERT_TRUE(r->kfd_open);
	CU_ASSERT_EQUAL(r->kfd_minor, 17);
	CU_ASSERT_EQUAL(r->sched_policy, 0);
	CU_ASSERT_EQUAL(r->cwsr_enable, 1);
	for (int i = 0; i < HSAQM_PROBE_NCHECKS; i++)
		CU_ASSERT_FALSE(g->checks[i].ran);
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_MODEL);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

/*
 * A sysfs and debugfs of our own: nodes 0-1 CPUs, node 2 the MI308X of the capture with its
 * gpu_id (0xf7bc), the amdgpu parameters, one other KFD process (pid 4242, a queue on it),
 * and debugfs kfd/hqds and kfd/rls linked to the real dumps.
 */
static void test_inventory_reads_debugfs_dumps_and_kfd_proc(void)
{
	char root[] = "/tmp/hsaqm-probe-XXXXXX", p[PATH_MAX], q[PATH_MAX + 64];
	const char *fx = getenv("HSAQM_FIXTURES");
	struct hsaqm_kfd_transport tp = *hsaqm_kfd_transport_system();
	struct hsaqm_probe_env env = { 0 };
	struct hsaqm_probe_options o = { .device = -1, .no_live = true };
	struct hsaqm_probe_report *r = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(fx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
	for (int n = 0; n < 3; n++) {
		snprintf(p, sizeof(p), "%s/sys/class/kfd/kfd/topology/nodes/%d", root, n);
		CU_ASSERT_EQUAL_FATAL(mkdirs(p), 0);
		snprintf(q, sizeof(q), "%s/gpu_id", p);
		CU_ASSERT_EQUAL(write_text(q, n == 2 ? "63420\n" : "0\n"), 0);
		snprintf(q, sizeof(q), "%s/properties", p);
		if (n == 2) {
			char src[PATH_MAX];

			snprintf(src, sizeof(src), "%s/mi308x-sr18/node2.properties", fx);
			CU_ASSERT_EQUAL(symlink(src, q), 0);
		} else {
			CU_ASSERT_EQUAL(write_text(q, "cpu_cores_count 48\nsimd_count 0\n"), 0);
		}
	}
	snprintf(p, sizeof(p), "%s/sys/module/amdgpu/parameters", root);
	CU_ASSERT_EQUAL_FATAL(mkdirs(p), 0);
	snprintf(q, sizeof(q), "%s/cwsr_enable", p);
	write_text(q, "1\n");
	snprintf(q, sizeof(q), "%s/sched_policy", p);
	write_text(q, "0\n");
	snprintf(p, sizeof(p), "%s/sys/class/kfd/kfd/proc/4242/queues/3", root);
	CU_ASSERT_EQUAL_FATAL(mkdirs(p), 0);
	snprintf(q, sizeof(q), "%s/gpuid", p);
	write_text(q, "63420\n");
	snprintf(p, sizeof(p), "%s/debug/kfd", root);
	CU_ASSERT_EQUAL_FATAL(mkdirs(p), 0);
	snprintf(p, sizeof(p), "%s/debug/kfd/hqds", root);
	snprintf(q, sizeof(q), "%s/mi308x-sr18/debugfs-kfd-hqds.txt", fx);
	CU_ASSERT_EQUAL(symlink(q, p), 0);
	snprintf(p, sizeof(p), "%s/debug/kfd/rls", root);
	snprintf(q, sizeof(q), "%s/mi308x-sr18/debugfs-kfd-rls.txt", fx);
	CU_ASSERT_EQUAL(symlink(q, p), 0);

	char sysroot[PATH_MAX], dbgroot[PATH_MAX];
	snprintf(sysroot, sizeof(sysroot), "%s/sys", root);
	snprintf(dbgroot, sizeof(dbgroot), "%s/debug", root);
	tp.dev_path = "/nonexistent-hsaqm-kfd"; /* the system transport: it cannot open here */
	env.tp = &tp;
	env.sysfs_root = sysroot;
	env.debugfs_root = dbgroot;
	t_probe_quiet_host(&env);
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_run(&o, &env, &r), 0);
	CU_ASSERT_EQUAL_FATAL(r->ngpus, 1);
	const struct hsaqm_probe_gpu *g = &r->gpus[0];
	CU_ASSERT_EQUAL(g->node_id, 2);
	CU_ASSERT_EQUAL(g->gpu_id, 0xf7bc);
	CU_ASSERT_EQUAL(r->sched_policy, 0);
	CU_ASSERT_EQUAL(r->cwsr_enable, 1);
	/* hqds: 4 XCC, 24 user slots each, 5 active per XCC (pipe 0 q2-3, pipes 1-3 q2). */
	CU_ASSERT_TRUE_FATAL(g->have_hqds);
	CU_ASSERT_EQUAL(g->hqds_xcc, 4);
	CU_ASSERT_EQUAL(g->hqds_slots_per_xcc, 24);
	for (int x = 0; x < 4; x++)
		CU_ASSERT_EQUAL(g->hqds_active[x], 5);
	/* rls of node 2: pasid 0x800c (3 queues, none mapped), then 0x8009 (7, all mapped). */
	CU_ASSERT_TRUE_FATAL(g->have_rls);
	CU_ASSERT_TRUE(g->rls_active);
	CU_ASSERT_EQUAL_FATAL(g->rl_nprocs, 2);
	CU_ASSERT_EQUAL(g->rl_procs[0].pasid, 0x800c);
	CU_ASSERT_EQUAL(g->rl_procs[0].num_queues, 3);
	CU_ASSERT_EQUAL(g->rl_procs[0].mapped, 0);
	CU_ASSERT_EQUAL(g->rl_procs[1].pasid, 0x8009);
	CU_ASSERT_EQUAL(g->rl_procs[1].num_queues, 7);
	CU_ASSERT_EQUAL(g->rl_procs[1].mapped, 7);
	/* kfd/proc: pid 4242 with one queue on this GPU. */
	CU_ASSERT_TRUE(g->others.known);
	CU_ASSERT_EQUAL(g->others.processes, 1);
	CU_ASSERT_EQUAL(g->others.queues, 1);
	CU_ASSERT_EQUAL(g->others.pids[0], 4242);
	/* No KFD: no live check; a hardware target, so exit 0 would mean "report on hardware". */
	CU_ASSERT_FALSE(r->kfd_open);
	CU_ASSERT_EQUAL(r->kfd_open_errno, ENOENT);
	CU_ASSERT_FALSE(g->checks[HSAQM_PROBE_CHECK_LV3].ran);
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_HARDWARE);
	/* The JSON keeps the debugfs lists on one line each, inside the indented report. */
	char *js = t_probe_render(r, HSAQM_PROBE_FORMAT_JSON, false);

	CU_ASSERT(t_json_valid(js));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\n          \"active\": [5, 5, 5, 5]\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"processes\": [{\"pasid\": 32780, \"queues\": 3, "
					  "\"mapped\": 0}, {\"pasid\": 32777, \"queues\": 7, "
					  "\"mapped\": 7}]\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"pids\": [4242],"));
	free(js);
	hsaqm_probe_report_free(r);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* ---- the ROCr seam ------------------------------------------------------------------------ */

static void test_rocr_table_is_built_from_the_library_exports(void)
{
	struct probe_rocr *rocr = NULL;
	void *root = NULL;
	char path[256], why[256];
	struct probe_hsa h;

	int err = probe_rocr_load(&rocr, &root, path, sizeof(path), why, sizeof(why));
	if (err == -ENOENT) {
		/* No ROCm runtime installed: the probe says so, and that is all to check. */
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "no ROCm runtime"));
		return;
	}
	CU_ASSERT_EQUAL_FATAL(err, 0);
	CU_ASSERT(probe_rocr_table_filled(rocr) > 60);
	/* The same code reads ROCr's table and the model's: every function the probe calls. */
	CU_ASSERT_EQUAL(probe_hsa_from_table(&h, root, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(h.layout.id, HSAQM_API_LAYOUT_ROCM_6_1);
	CU_ASSERT_PTR_NOT_NULL(h.queue_create);
	CU_ASSERT_PTR_NOT_NULL(h.reader_from_memory);
	CU_ASSERT_PTR_NOT_NULL(h.get_symbol_by_name);
	probe_rocr_unload(rocr);
}

static const struct t_case cases[] = {
	T_CASE(test_gfx_name_from_target_version),
	T_CASE(test_lcg_jump_matches_the_loop),
	T_CASE(test_run_rejects_bad_arguments),
	T_CASE(test_rocr_table_is_built_from_the_library_exports),
	T_CASE(test_inventory_of_the_real_mi308x_properties),
	T_CASE(test_inventory_reads_debugfs_dumps_and_kfd_proc),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "probe-inventory", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("probe-inventory", suites);
}
