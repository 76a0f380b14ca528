/* SPDX-License-Identifier: MIT */
/*
 * hsa-queue-probe in-process (tools/probe/probe.h) against the device model and the MI308X
 * fixtures: the inventory of the real properties file, the debugfs hqds/rls dumps and the
 * kfd/proc scan on a generated sysfs tree, every verdict path of the Lv3 and UPDATE_QUEUE
 * checks with its reason code and exit code, the SIGINT path (the queue is resumed before it
 * is destroyed, nothing is left behind), the model-timing file the model loads back, and the
 * renderers.
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

#define LV3 (1u << HSAQM_PROBE_CHECK_LV3)
#define UPD (1u << HSAQM_PROBE_CHECK_UPDATE_QUEUE)

static struct hsaqm_sim *sim_real(const struct hsaqm_sim_config *over)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL };
	struct hsaqm_sim *sim = NULL;

	if (over) {
		cfg = *over;
		cfg.time_mode = HSAQM_SIM_TIME_REAL;
	}
	if (hsaqm_sim_create(&cfg, &sim))
		return NULL;
	return sim;
}

/* The host preflight looks at paths that do not exist: tests must not depend on the machine. */
static void quiet_host(struct hsaqm_probe_env *env)
{
	env->host_sysfs_root = "/nonexistent-hsaqm-sys";
	env->host_dev_kfd = "/nonexistent-hsaqm-kfd";
	env->host_debugfs_root = "/nonexistent-hsaqm-debug";
}

static struct hsaqm_probe_report *run_model(struct hsaqm_sim *sim, struct hsaqm_probe_options *o,
					    struct hsaqm_probe_env *env_out)
{
	struct hsaqm_probe_env env;
	struct hsaqm_probe_report *r = NULL;

	if (!env_out) {
		CU_ASSERT_EQUAL_FATAL(hsaqm_probe_env_sim(&env, sim), 0);
		quiet_host(&env);
		env_out = &env;
	}
	CU_ASSERT_EQUAL(hsaqm_probe_run(o, env_out, &r), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	return r;
}

/* Says why a check did not give the verdict a test wanted (CUnit's assertions cannot). */
static void explain(const struct hsaqm_probe_check *k, enum hsaqm_probe_verdict want)
{
	if (k->verdict != want)
		fprintf(stderr, "check verdict %s (%s): %s\n", hsaqm_probe_verdict_name(k->verdict),
			k->reason_code, k->reason);
}

/* A check's fact by key, "" when absent. */
static const char *fact(const struct hsaqm_probe_check *k, const char *key)
{
	for (uint32_t i = 0; i < k->nfacts; i++)
		if (!strcmp(k->facts[i].key, key))
			return k->facts[i].value;
	return "";
}

static const struct hsaqm_probe_check *lv3(const struct hsaqm_probe_report *r)
{
	return &r->gpus[0].checks[HSAQM_PROBE_CHECK_LV3];
}

/* ---- helpers ---------------------------------------------------------------------------- */

static char *render(const struct hsaqm_probe_report *r, enum hsaqm_probe_format fmt, bool color);

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
	struct hsaqm_sim *sim = sim_real(&cfg);
	struct hsaqm_probe_options o = { .device = -1, .no_live = true };

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	struct hsaqm_probe_report *r = run_model(sim, &o, NULL);
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
	quiet_host(&env);
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
	char *js = render(r, HSAQM_PROBE_FORMAT_JSON, false);

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

/* ---- verdict paths ------------------------------------------------------------------------ */

static void test_lv3_supported_on_the_model_with_figures_and_proof(void)
{
	struct hsaqm_sim *sim = sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 2, .checks = LV3 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	struct hsaqm_probe_report *r = run_model(sim, &o, NULL);
	const struct hsaqm_probe_check *k = lv3(r);

	explain(k, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_TRUE(k->ran);
	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_STRING_EQUAL(k->reason_code, "ok");
	CU_ASSERT_EQUAL(k->trials, 4); /* 2 at full occupancy + 2 with one wave */
	const struct hsaqm_probe_figure *f = probe_find_figure(k, "stop_full");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->n, 2);
	CU_ASSERT(f->min <= f->median && f->median <= f->p99 && f->p99 <= f->max);
	/* 2560 waves, 32 on each of the 80 CUs, saved by the CUs in parallel at the model's
	 * 1 us per wave: the full suspend is only ~31 us longer than a one-wave one, inside
	 * this real-time run's noise, so the two are not compared here (test-sim-hws checks
	 * the save cost exactly, in virtual time). The suspend does take the DBG_TRAP cost. */
	CU_ASSERT(f->median >= 50000);
	CU_ASSERT_PTR_NOT_NULL(probe_find_figure(k, "restart_full"));
	CU_ASSERT_PTR_NOT_NULL(probe_find_figure(k, "stop_1wave"));
	CU_ASSERT_PTR_NOT_NULL(probe_find_figure(k, "save_area_used_full"));
	bool waves = false, results = false;
	for (uint32_t i = 0; i < k->nfacts; i++) {
		if (!strcmp(k->facts[i].key, "waves_saved"))
			waves = !strncmp(k->facts[i].value, "yes", 3);
		if (!strcmp(k->facts[i].key, "results"))
			results = strstr(k->facts[i].value, "4 of 4") != NULL;
	}
	CU_ASSERT_TRUE(waves);
	CU_ASSERT_TRUE(results);
	CU_ASSERT_FALSE(r->gpus[0].checks[HSAQM_PROBE_CHECK_UPDATE_QUEUE].ran);
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_MODEL);
	/* Nothing left behind: the probe's queue is gone, nothing is registered as held. */
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(sim), 0);
	CU_ASSERT_EQUAL(probe_hold_release_all(), 0);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

static void expect_lv3(const struct hsaqm_sim_config *cfg, const char *code,
		       enum hsaqm_probe_verdict v)
{
	struct hsaqm_sim *sim = sim_real(cfg);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1, .checks = LV3 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	struct hsaqm_probe_report *r = run_model(sim, &o, NULL);
	explain(lv3(r), v);
	CU_ASSERT_EQUAL(lv3(r)->verdict, v);
	CU_ASSERT_STRING_EQUAL(lv3(r)->reason_code, code);
	CU_ASSERT_NOT_EQUAL(lv3(r)->remedy[0], '\0');
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_MODEL);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(sim), 0);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

static void test_lv3_old_kfd_1_11_is_not_supported(void)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .kfd_minor_version = 11 };

	expect_lv3(&cfg, "kfd_too_old", HSAQM_PROBE_NOT_SUPPORTED);
}

static void test_lv3_no_hws_is_not_supported(void)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .sched_policy = 2 };

	expect_lv3(&cfg, "no_hws", HSAQM_PROBE_NOT_SUPPORTED);
}

static void test_lv3_cwsr_off_is_not_supported(void)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .cwsr_disable = 1 };

	expect_lv3(&cfg, "cwsr_off", HSAQM_PROBE_NOT_SUPPORTED);
}

static void test_lv3_eperm_without_runtime_enable(void)
{
	struct hsaqm_sim *sim = sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1, .checks = LV3 };
	struct hsaqm_probe_env env;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_env_sim(&env, sim), 0);
	quiet_host(&env);
	/* A runtime that never enabled the KFD's runtime (no RUNTIME_ENABLE, as before ROCr
	 * called it): the probe makes its queue through the KFD itself, so the HSA face opens no
	 * queue and never enables it, and the probe does not either; the KFD answers EPERM. */
	env.queues_via_kfd = true;
	env.runtime_enable = false;
	struct hsaqm_probe_report *r = run_model(sim, &o, &env);
	CU_ASSERT_EQUAL(lv3(r)->verdict, HSAQM_PROBE_NOT_SUPPORTED);
	CU_ASSERT_STRING_EQUAL(lv3(r)->reason_code, "eperm");
	CU_ASSERT_PTR_NOT_NULL(strstr(lv3(r)->reason, "EPERM"));
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_MODEL);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(sim), 0);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

static void test_lv3_ealready_when_another_debugger_holds_dbg_trap(void)
{
	struct hsaqm_sim *sim = sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1, .checks = LV3 };
	struct hsaqm_probe_env env;
	struct hsaqm_kfd *kfd = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_env_sim(&env, sim), 0);
	quiet_host(&env);
	/*
	 * "Another debugger": the runtime enabled first (ROCr's hsa_init), then a debugger took
	 * DBG_TRAP on the process the probe runs in (rocgdb attaching).
	 */
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(env.tp, &kfd), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_runtime_enable(kfd, 0, true), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_dbg_enable(kfd, 0, NULL), 0);
	env.kfd = kfd;
	struct hsaqm_probe_report *r = run_model(sim, &o, &env);
	CU_ASSERT_EQUAL(lv3(r)->verdict, HSAQM_PROBE_COULD_NOT_TEST);
	CU_ASSERT_STRING_EQUAL(lv3(r)->reason_code, "debugger_attached");
	CU_ASSERT_PTR_NOT_NULL(strstr(lv3(r)->reason, "EALREADY"));
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_MODEL);
	/* The other debugger's session is left alone, and the probe's queue is gone. */
	CU_ASSERT(hsaqm_kfd_dbg_event_fd(kfd) >= 0);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(sim), 0);
	hsaqm_probe_report_free(r);
	CU_ASSERT_EQUAL(hsaqm_kfd_close(kfd), 0);
	hsaqm_sim_destroy(sim);
}

static void test_lv3_no_device_kernel_for_gfx942_says_how_to_rebuild(void)
{
	struct hsaqm_sim *sim = sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1, .checks = LV3 };
	struct hsaqm_probe_env env;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_env_sim(&env, sim), 0);
	quiet_host(&env);
	/* As on hardware: only code objects count; this build has none for gfx942 (clang-14). */
	env.sim = NULL;
	struct hsaqm_probe_report *r = run_model(sim, &o, &env);
	bool embedded = false;
	for (unsigned int i = 0; i < probe_n_code_objects; i++)
		embedded |= !strcmp(probe_code_objects[i].target, "gfx942");
	if (embedded) {
		/* A build whose clang knows gfx942: the gate passes (then model kernels fail). */
		CU_ASSERT_TRUE(r->gpus[0].have_kernel);
	} else {
		CU_ASSERT_FALSE(r->gpus[0].have_kernel);
		CU_ASSERT_EQUAL(lv3(r)->verdict, HSAQM_PROBE_COULD_NOT_TEST);
		CU_ASSERT_STRING_EQUAL(lv3(r)->reason_code, "no_device_kernel");
		CU_ASSERT_PTR_NOT_NULL(strstr(lv3(r)->reason, "no device kernel for gfx942"));
		CU_ASSERT_PTR_NOT_NULL(strstr(lv3(r)->remedy, "gpu_targets"));
	}
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

/* ---- UPDATE_QUEUE ------------------------------------------------------------------------- */

/* A KFD handle with one queue on device @dev of the model (in the calling OS process's KFD process). */
static int other_process_on(struct hsaqm_sim *sim, unsigned int dev, struct hsaqm_kfd **out)
{
	const struct hsaqm_kfd_transport *tp = hsaqm_sim_kfd_transport(sim);
	union hsaqm_aql_packet *ring = hsaqm_sim_mem_alloc(sim, 64 * 64, 4096);
	uint64_t *idx = hsaqm_sim_mem_alloc(sim, 64, 64);
	struct hsaqm_kfd_create_queue_args a;
	int err;

	if (!ring || !idx)
		return -ENOMEM;
	for (int i = 0; i < 64; i++)
		ring[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	err = hsaqm_kfd_open(tp, out);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.ring_base_address = (uint64_t)(uintptr_t)ring;
	a.write_pointer_address = (uint64_t)(uintptr_t)&idx[0];
	a.read_pointer_address = (uint64_t)(uintptr_t)&idx[1];
	a.ring_size = 64 * 64;
	a.gpu_id = sim_kfd_gpu_id(sim, dev);
	a.queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL;
	a.queue_percentage = 100;
	a.queue_priority = 7;
	a.ctl_stack_size = 8192;
	return hsaqm_kfd_queue_create(*out, &a);
}

static int other_process(struct hsaqm_sim *sim, struct hsaqm_kfd **out)
{
	return other_process_on(sim, 0, out);
}

static int read_text(const char *path, char *buf, size_t len)
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
 * Another application on the same GPU is another OS process, and the KFD keeps one process
 * per OS process: so "another process" is a real one, a client of a shared device process
 * (sim/ shared mode), and the test process is the other client the probe runs in.
 */
struct shared_node {
	pid_t device, other;
	int dev_cmd;   /* a byte or EOF stops the device */
	int other_cmd; /* EOF ends the other process */
	char path[108];
};

static void *node_serve(void *arg)
{
	return (void *)(intptr_t)hsaqm_sim_serve(arg, NULL);
}

static void node_device_main(const char *path, unsigned int ndev, int cmd, int ready)
{
	struct hsaqm_sim_config cfg = { .num_devices = ndev, .time_mode = HSAQM_SIM_TIME_REAL };
	struct hsaqm_sim *sim;
	pthread_t th;
	char c = 1;

	if (hsaqm_sim_create(&cfg, &sim) || hsaqm_sim_listen(sim, path) ||
	    pthread_create(&th, NULL, node_serve, sim))
		_exit(3);
	if (write(ready, &c, 1) != 1 || read(cmd, &c, 1) < 0)
		c = 0; /* stop either way */
	hsaqm_sim_serve_stop(sim);
	pthread_join(th, NULL);
	hsaqm_sim_destroy(sim);
	exit(0); /* exit(): LeakSanitizer checks the child too */
}

/* The other application: a KFD process with one queue on device @dev, until told to go. */
static void node_other_main(const char *path, unsigned int dev, int cmd, int ready)
{
	struct hsaqm_sim *sim = NULL;
	struct hsaqm_kfd *k = NULL;
	char c = 1;

	if (hsaqm_sim_connect(path, &sim) || other_process_on(sim, dev, &k))
		c = 0;
	if (write(ready, &c, 1) != 1 || read(cmd, &c, 1) < 0)
		c = 0;
	if (k)
		hsaqm_kfd_close(k);
	hsaqm_sim_destroy(sim);
	exit(0);
}

/* Fork a device process with @ndev GPUs and the other application; 0 when both are up. */
static int node_start(struct shared_node *n, unsigned int ndev, unsigned int other_dev)
{
	int cmd[2], ready[2];
	char c = 0;

	memset(n, 0, sizeof(*n));
	snprintf(n->path, sizeof(n->path), "/tmp/hsaqm-probe-%d.sock", (int)getpid());
	if (pipe(cmd) || pipe(ready))
		return -1;
	fflush(NULL);
	n->device = fork();
	if (n->device == 0) {
		close(cmd[1]);
		close(ready[0]);
		node_device_main(n->path, ndev, cmd[0], ready[1]);
	}
	close(cmd[0]);
	close(ready[1]);
	n->dev_cmd = cmd[1];
	if (n->device < 0 || read(ready[0], &c, 1) != 1 || !c)
		return -1;
	close(ready[0]);
	if (pipe(cmd) || pipe(ready))
		return -1;
	n->other = fork();
	if (n->other == 0) {
		close(cmd[1]);
		close(ready[0]);
		close(n->dev_cmd);
		node_other_main(n->path, other_dev, cmd[0], ready[1]);
	}
	close(cmd[0]);
	close(ready[1]);
	n->other_cmd = cmd[1];
	c = 0;
	if (n->other < 0 || read(ready[0], &c, 1) != 1 || !c)
		return -1;
	close(ready[0]);
	return 0;
}

/* The other application exits; returns its exit status. */
static int node_other_exit(struct shared_node *n)
{
	int st = -1;

	if (n->other <= 0)
		return -1;
	close(n->other_cmd);
	waitpid(n->other, &st, 0);
	n->other = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int node_stop(struct shared_node *n)
{
	int st = -1;

	node_other_exit(n);
	close(n->dev_cmd);
	if (n->device > 0)
		waitpid(n->device, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * The model's sysfs kfd/proc as the KFD writes it, node-wide: the other application (another
 * OS process, a client of the same device process) is listed under its own pid with its
 * queue on the GPU it made it on, and only there; its PASID is the device's, not the
 * probe's; the probe reads it with the same scan as on hardware; when that process exits,
 * its queue and its folder go.
 */
static void test_kfd_proc_view_lists_other_processes_per_gpu(void)
{
	struct shared_node node;
	struct hsaqm_sim *sim = NULL;
	struct hsaqm_probe_options o = { .device = -1, .no_live = true };
	char path[PATH_MAX], buf[64];

	CU_ASSERT_EQUAL_FATAL(node_start(&node, 2, 1), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_connect(node.path, &sim), 0);
	struct hsaqm_probe_report *r = run_model(sim, &o, NULL);
	CU_ASSERT_EQUAL_FATAL(r->ngpus, 2);
	const struct hsaqm_probe_others *o0 = &r->gpus[0].others, *o1 = &r->gpus[1].others;
	CU_ASSERT_TRUE(o0->known);
	CU_ASSERT_EQUAL(o0->queues, 0);
	CU_ASSERT_EQUAL(o0->processes, 0);
	CU_ASSERT_TRUE(o1->known);
	CU_ASSERT_EQUAL(o1->processes, 1);
	CU_ASSERT_EQUAL(o1->queues, 1);
	CU_ASSERT_STRING_EQUAL(o1->source, "model sysfs kfd/proc");
	/* Listed under its real pid; the files are the KFD's: pasid, queues/<id>/gpuid... */
	CU_ASSERT_EQUAL(o1->pids[0], (uint32_t)node.other);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%u/queues/0/gpuid",
		 hsaqm_sim_sysfs_root(sim), o1->pids[0]);
	CU_ASSERT_EQUAL_FATAL(read_text(path, buf, sizeof(buf)), 0);
	snprintf(path, sizeof(path), "%u", r->gpus[1].gpu_id); /* no newline, as the KFD */
	CU_ASSERT_STRING_EQUAL(buf, path);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%u/queues/0/size",
		 hsaqm_sim_sysfs_root(sim), o1->pids[0]);
	CU_ASSERT_EQUAL(read_text(path, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "4096");
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%u/pasid", hsaqm_sim_sysfs_root(sim),
		 o1->pids[0]);
	CU_ASSERT_EQUAL(read_text(path, buf, sizeof(buf)), 0);
	unsigned long other_pasid = strtoul(buf, NULL, 10);
	CU_ASSERT(other_pasid >= 0x8001);
	/* The probe's own KFD process (this one) is there too, with a PASID of its own. */
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/pasid", hsaqm_sim_sysfs_root(sim),
		 (int)getpid());
	CU_ASSERT_EQUAL(read_text(path, buf, sizeof(buf)), 0);
	CU_ASSERT(strtoul(buf, NULL, 10) >= 0x8001);
	CU_ASSERT_NOT_EQUAL(strtoul(buf, NULL, 10), other_pasid);
	uint32_t pid = o1->pids[0];
	hsaqm_probe_report_free(r);

	/* The process exits: its queue goes, and so does its folder. */
	CU_ASSERT_EQUAL(node_other_exit(&node), 0);
	r = run_model(sim, &o, NULL);
	CU_ASSERT_TRUE(r->gpus[1].others.known);
	CU_ASSERT_EQUAL(r->gpus[1].others.queues, 0);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%u", hsaqm_sim_sysfs_root(sim), pid);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
	CU_ASSERT_EQUAL(node_stop(&node), 0);
}

/*
 * UPDATE_QUEUE 0 % and DBG_TRAP suspend both unmap every queue of the GPU: both run by
 * default on a GPU nobody else uses (no --allow-disruptive any more), and the queue id of the
 * runtime's queue comes from the KFD's sysfs kfd/proc, without a debugger session.
 */
static void test_update_queue_runs_by_default_with_the_id_from_kfd_proc(void)
{
	struct hsaqm_sim *sim = sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1, .checks = UPD };

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	struct hsaqm_probe_report *r = run_model(sim, &o, NULL);
	const struct hsaqm_probe_check *k = &r->gpus[0].checks[HSAQM_PROBE_CHECK_UPDATE_QUEUE];
	explain(k, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(fact(k, "queue"), "sysfs kfd/proc"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fact(k, "queue"), "no debugger"));
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

static void test_update_queue_refused_when_another_process_has_queues(void)
{
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1,
					 .checks = UPD | LV3 };
	struct shared_node node;
	struct hsaqm_sim *sim = NULL;

	/* Another application (another OS process) has a queue on the GPU. */
	CU_ASSERT_EQUAL_FATAL(node_start(&node, 1, 0), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_connect(node.path, &sim), 0);
	struct hsaqm_probe_report *r = run_model(sim, &o, NULL);
	const struct hsaqm_probe_gpu *g = &r->gpus[0];
	const struct hsaqm_probe_check *k = &g->checks[HSAQM_PROBE_CHECK_UPDATE_QUEUE];
	CU_ASSERT_TRUE(g->others.known);
	CU_ASSERT_EQUAL(g->others.queues, 1);
	CU_ASSERT_EQUAL(g->others.pids[0], (uint32_t)node.other);
	CU_ASSERT_STRING_EQUAL(g->others.source, "model sysfs kfd/proc");
	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_COULD_NOT_TEST);
	CU_ASSERT_STRING_EQUAL(k->reason_code, "shared_gpu");
	CU_ASSERT_PTR_NOT_NULL(strstr(k->reason, "1 other process(es) have 1 KFD queue(s)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(k->remedy, "--force"));
	CU_ASSERT_EQUAL(k->nfig, 0); /* nothing was run */
	/* DBG_TRAP suspend unmaps every queue of the GPU as well: treated alike. */
	k = &g->checks[HSAQM_PROBE_CHECK_LV3];
	CU_ASSERT_STRING_EQUAL(k->reason_code, "shared_gpu");
	CU_ASSERT_EQUAL(k->nfig, 0);
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_MODEL);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
	CU_ASSERT_EQUAL(node_stop(&node), 0);

	/*
	 * --force overrides: the check runs, and the queue that was there is still there. In
	 * process (the probe's model kernel needs a host callback, which a client of a shared
	 * device cannot register): the queue is then the probe's own process's, made before the
	 * probe, which the model's view counts too (probe_sim.c does not skip its own pid).
	 */
	struct hsaqm_kfd *other = NULL;

	sim = sim_real(NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL_FATAL(other_process(sim, &other), 0);
	o.force = true;
	r = run_model(sim, &o, NULL);
	k = &r->gpus[0].checks[HSAQM_PROBE_CHECK_UPDATE_QUEUE];
	CU_ASSERT_EQUAL(r->gpus[0].others.queues, 1);
	explain(k, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(probe_find_figure(k, "stop_full"));
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(sim), 1);
	hsaqm_probe_report_free(r);
	CU_ASSERT_EQUAL(hsaqm_kfd_close(other), 0);
	hsaqm_sim_destroy(sim);
}

static void test_update_queue_supported_on_an_unshared_model_gpu(void)
{
	struct hsaqm_sim *sim = sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 2, .checks = UPD };

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	struct hsaqm_probe_report *r = run_model(sim, &o, NULL);
	const struct hsaqm_probe_check *k = &r->gpus[0].checks[HSAQM_PROBE_CHECK_UPDATE_QUEUE];
	explain(k, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_EQUAL(k->trials, 4); /* 2 at full occupancy, 2 with one wave */
	CU_ASSERT_PTR_NOT_NULL(probe_find_figure(k, "restart_full"));
	CU_ASSERT_PTR_NOT_NULL(probe_find_figure(k, "stop_1wave"));
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(sim), 0);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

/* ---- SIGINT in the middle of the Lv3 check ------------------------------------------------- */

struct sig_watch {
	int suspended_wave_state; /* GET_QUEUE_WAVE_STATE while suspended: 0 */
	int after_wave_state;     /* ... once cleanup resumed it: -EINVAL (active queue) */
	int suspended_events, destroy_events;
};

static void sig_hook(void *ctx, enum hsaqm_probe_event ev, struct hsaqm_kfd *kfd, uint32_t qid)
{
	struct sig_watch *w = ctx;
	static char ctl[1 << 16];

	if (ev == HSAQM_PROBE_EV_SUSPENDED) {
		w->suspended_events++;
		w->suspended_wave_state = hsaqm_kfd_queue_get_wave_state(kfd, qid, ctl, NULL, NULL);
		/* The user presses Ctrl-C while the queue is suspended. */
		raise(SIGINT);
	} else if (ev == HSAQM_PROBE_EV_BEFORE_DESTROY) {
		w->destroy_events++;
		w->after_wave_state = hsaqm_kfd_queue_get_wave_state(kfd, qid, ctl, NULL, NULL);
	}
}

static void test_sigint_during_lv3_resumes_the_queue_and_leaves_nothing(void)
{
	struct hsaqm_sim *sim = sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 3,
					 .checks = LV3 | UPD, .allow_disruptive = true };
	struct hsaqm_probe_env env;
	struct sig_watch w = { .suspended_wave_state = 1, .after_wave_state = 1 };
	struct sigaction old_int, old_term;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_env_sim(&env, sim), 0);
	quiet_host(&env);
	env.test_hook = sig_hook;
	env.test_hook_ctx = &w;
	sigaction(SIGINT, NULL, &old_int);
	sigaction(SIGTERM, NULL, &old_term);
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_signals_install(), 0);
	hsaqm_probe_interrupt_reset();
	struct hsaqm_probe_report *r = run_model(sim, &o, &env);

	CU_ASSERT_EQUAL(hsaqm_probe_interrupted(), SIGINT);
	CU_ASSERT_TRUE(r->interrupted);
	CU_ASSERT_FALSE(r->failed);
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_FAILURE);
	CU_ASSERT_EQUAL(lv3(r)->verdict, HSAQM_PROBE_COULD_NOT_TEST);
	CU_ASSERT_STRING_EQUAL(lv3(r)->reason_code, "interrupted");
	/* The run stopped at the first suspend: one suspended window, no further check. */
	CU_ASSERT_EQUAL(w.suspended_events, 1);
	CU_ASSERT_FALSE(r->gpus[0].checks[HSAQM_PROBE_CHECK_UPDATE_QUEUE].ran);
	/* Suspended in the window (wave state readable), resumed before destroy (active again). */
	CU_ASSERT_EQUAL(w.suspended_wave_state, 0);
	CU_ASSERT_EQUAL(w.destroy_events, 1);
	CU_ASSERT_EQUAL(w.after_wave_state, -EINVAL);
	/* Nothing left behind: no queue in the model, nothing registered as held. */
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(sim), 0);
	CU_ASSERT_EQUAL(probe_hold_release_all(), 0);
	hsaqm_probe_report_free(r);
	hsaqm_probe_interrupt_reset();
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	hsaqm_sim_destroy(sim);
}

/* ---- outputs -------------------------------------------------------------------------------- */

static char *render(const struct hsaqm_probe_report *r, enum hsaqm_probe_format fmt, bool color)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_EQUAL(hsaqm_probe_report_write(r, fmt, f, color), 0);
	fclose(f);
	return buf;
}

static void test_renderers_mark_model_figures_and_colour_only_when_asked(void)
{
	struct hsaqm_sim *sim = sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1, .checks = LV3 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	struct hsaqm_probe_report *r = run_model(sim, &o, NULL);
	char *plain = render(r, HSAQM_PROBE_FORMAT_TEXT, false);
	char *color = render(r, HSAQM_PROBE_FORMAT_TEXT, true);
	char *md = render(r, HSAQM_PROBE_FORMAT_MARKDOWN, true);
	char *js = render(r, HSAQM_PROBE_FORMAT_JSON, true);

	CU_ASSERT_PTR_NULL(strchr(plain, '\033'));
	CU_ASSERT_PTR_NOT_NULL(strchr(color, '\033'));
	CU_ASSERT_PTR_NULL(strchr(md, '\033'));
	CU_ASSERT_PTR_NULL(strchr(js, '\033'));
	CU_ASSERT_PTR_NOT_NULL(strstr(plain, "MODEL FIGURES, NOT HARDWARE"));
	CU_ASSERT_PTR_NOT_NULL(strstr(plain, "figure (MODEL, not hardware)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "| figure (model) | median | P99 |"));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"schema\": \"hsaqm-probe-report\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"schema_version\": 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"figures_are\": \"model\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"source\": \"model\""));
	CU_ASSERT_PTR_NULL(strstr(js, "\"source\": \"hardware\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"exit_code\": 3"));
	CU_ASSERT_EQUAL(hsaqm_probe_report_write(r, (enum hsaqm_probe_format)9, stdout, false),
			-EINVAL);
	free(plain);
	free(color);
	free(md);
	free(js);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

static void test_emitted_profile_is_loaded_by_the_model(void)
{
	struct hsaqm_sim *sim = sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 2, .checks = LV3 };
	char path[] = "/tmp/hsaqm-probe-profile-XXXXXX";
	int fd = mkstemp(path);

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	struct hsaqm_probe_report *r = run_model(sim, &o, NULL);
	CU_ASSERT_EQUAL_FATAL(lv3(r)->verdict, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_EQUAL(hsaqm_probe_emit_sim_profile(r, 0, path), 0);
	CU_ASSERT_EQUAL(hsaqm_probe_emit_sim_profile(r, 5, path), -EINVAL);

	/* The model loads it, and its dump names the measured source. */
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL,
					.timing_path = path };
	struct hsaqm_sim *sim2 = NULL;
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim2), 0);
	char *dump = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&dump, &len);
	CU_ASSERT_EQUAL(hsaqm_sim_profile_dump(sim2, 0, f), 0);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(dump, "dbg_suspend_ns"));
	CU_ASSERT_PTR_NOT_NULL(strstr(dump, "measured: hsa-queue-probe"));
	free(dump);
	hsaqm_sim_destroy(sim2);

	/* Nothing measured (Lv3 not run): nothing written. */
	struct hsaqm_probe_options none = { .device = -1, .no_live = true };
	struct hsaqm_probe_report *r2 = run_model(sim, &none, NULL);
	CU_ASSERT_EQUAL(hsaqm_probe_emit_sim_profile(r2, 0, path), -ENODATA);
	hsaqm_probe_report_free(r2);
	hsaqm_probe_report_free(r);
	unlink(path);
	hsaqm_sim_destroy(sim);
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

int main(void)
{
	static const struct t_case helpers[] = {
		T_CASE(test_gfx_name_from_target_version),
		T_CASE(test_lcg_jump_matches_the_loop),
		T_CASE(test_run_rejects_bad_arguments),
		T_CASE(test_rocr_table_is_built_from_the_library_exports),
		T_CASES_END,
	};
	static const struct t_case inventory[] = {
		T_CASE(test_inventory_of_the_real_mi308x_properties),
		T_CASE(test_inventory_reads_debugfs_dumps_and_kfd_proc),
		T_CASES_END,
	};
	static const struct t_case verdicts[] = {
		T_CASE(test_lv3_supported_on_the_model_with_figures_and_proof),
		T_CASE(test_lv3_old_kfd_1_11_is_not_supported),
		T_CASE(test_lv3_no_hws_is_not_supported),
		T_CASE(test_lv3_cwsr_off_is_not_supported),
		T_CASE(test_lv3_eperm_without_runtime_enable),
		T_CASE(test_lv3_ealready_when_another_debugger_holds_dbg_trap),
		T_CASE(test_lv3_no_device_kernel_for_gfx942_says_how_to_rebuild),
		T_CASE(test_update_queue_runs_by_default_with_the_id_from_kfd_proc),
		T_CASE(test_kfd_proc_view_lists_other_processes_per_gpu),
		T_CASE(test_update_queue_refused_when_another_process_has_queues),
		T_CASE(test_update_queue_supported_on_an_unshared_model_gpu),
		T_CASE(test_sigint_during_lv3_resumes_the_queue_and_leaves_nothing),
		T_CASES_END,
	};
	static const struct t_case outputs[] = {
		T_CASE(test_renderers_mark_model_figures_and_colour_only_when_asked),
		T_CASE(test_emitted_profile_is_loaded_by_the_model),
		T_CASES_END,
	};
	static const struct t_suite suites[] = {
		{ "probe-helpers", NULL, NULL, helpers },
		{ "probe-inventory", NULL, NULL, inventory },
		{ "probe-verdicts", NULL, NULL, verdicts },
		{ "probe-outputs", NULL, NULL, outputs },
		T_SUITES_END,
	};

	return t_run("probe", suites);
}
