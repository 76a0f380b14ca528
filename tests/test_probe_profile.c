/* SPDX-License-Identifier: MIT */
/*
 * The probe's self-consistency: on the model it measures a device whose costs are known, so
 * what it emits can be checked. A timing file of distinctive costs is loaded into a model, the
 * probe's stop checks run on it, and every constant --emit-sim-profile writes must come back
 * within +-10 % of what was configured. In virtual time: the figures are device time, which
 * the host's load cannot stretch (no wall-clock outcome is asserted). The GPU profile written
 * from the same run is read back with kfd-ioctl's reader, as the tool reads it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsaqm-kfd/kfd_lv3.h"
#include "hsaqm-sim/sim.h"
#include "probe.h"
#include "probe_internal.h"
#include "sim_internal.h"
#include "t_cunit.h"

/* What the model is told, none of them its default (docs/sim.md, "Constants"). */
static const struct {
	const char *name;
	uint64_t value;
} known[] = {
	{ "cwsr_save_ns_per_wave", 3000 },  { "cwsr_restore_ns_per_wave", 2000 },
	{ "hws_unmap_ns", 30000 },          { "hws_map_ns", 25000 },
	{ "dbg_suspend_ns", 80000 },        { "dbg_resume_ns", 60000 },
};
#define NKNOWN (sizeof(known) / sizeof(known[0]))

static void tmp_path(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "/tmp/hsaqm-probe-profile-%ld-%s", (long)getpid(), what);
}

static void write_timing(const char *path)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	for (size_t i = 0; i < NKNOWN; i++)
		fprintf(f, "%s %llu  # test-probe-profile: a known cost\n", known[i].name,
			(unsigned long long)known[i].value);
	fclose(f);
}

/* The value of @name in an emitted timing file, or -1. */
static long long emitted(const char *path, const char *name)
{
	char line[512];
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(name);

		if (!strncmp(line, name, n) && line[n] == ' ')
			v = atoll(line + n + 1);
	}
	fclose(f);
	return v;
}

static struct hsaqm_probe_report *run_probe(struct hsaqm_sim *sim, uint32_t checks)
{
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 3,
					 .checks = checks };
	struct hsaqm_probe_env env;
	struct hsaqm_probe_report *r = NULL;

	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_env_sim(&env, sim), 0);
	env.host_sysfs_root = "/nonexistent-sysfs";
	env.host_dev_kfd = "/nonexistent-kfd";
	env.host_debugfs_root = "/nonexistent-debugfs";
	CU_ASSERT_EQUAL(hsaqm_probe_run(&o, &env, &r), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	return r;
}

static void test_emitted_constants_come_back_within_10_percent(void)
{
	char timing[256], out[256];
	struct hsaqm_sim *sim = NULL;

	tmp_path(timing, sizeof(timing), "known.timing");
	tmp_path(out, sizeof(out), "emitted.timing");
	write_timing(timing);
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL,
					.timing_path = timing };
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	struct hsaqm_probe_report *r = run_probe(sim, (1u << HSAQM_PROBE_CHECK_LV3) |
						      (1u << HSAQM_PROBE_CHECK_UPDATE_QUEUE));
	CU_ASSERT_EQUAL(r->gpus[0].checks[HSAQM_PROBE_CHECK_LV3].verdict, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_EQUAL(r->gpus[0].checks[HSAQM_PROBE_CHECK_UPDATE_QUEUE].verdict,
			HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_EQUAL(hsaqm_probe_emit_sim_profile(r, 0, out), 0);
	for (size_t i = 0; i < NKNOWN; i++) {
		long long v = emitted(out, known[i].name);
		double err = (double)(v - (long long)known[i].value) / (double)known[i].value;

		printf("\n    %-26s configured %7llu, emitted %7lld (%+.1f %%) [MODEL figures]",
		       known[i].name, (unsigned long long)known[i].value, v, 100 * err);
		CU_ASSERT(v >= 0);
		CU_ASSERT(err > -0.10 && err < 0.10);
	}
	printf("\n");
	/* What was emitted is a timing file the model takes. */
	struct sim_profile p;
	CU_ASSERT_EQUAL(sim_profile_load(&p, NULL, out), 0);
	CU_ASSERT_EQUAL(p.dbg_suspend_ns, (uint64_t)emitted(out, "dbg_suspend_ns"));
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
	unlink(timing);
	unlink(out);
}

static void test_one_stop_check_emits_what_it_identifies_and_says_why_not_the_rest(void)
{
	char timing[256], out[256], line[512];
	struct hsaqm_sim *sim = NULL;
	bool said = false;

	tmp_path(timing, sizeof(timing), "known2.timing");
	tmp_path(out, sizeof(out), "emitted2.timing");
	write_timing(timing);
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL,
					.timing_path = timing };
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	struct hsaqm_probe_report *r = run_probe(sim, 1u << HSAQM_PROBE_CHECK_LV3);
	CU_ASSERT_EQUAL(hsaqm_probe_emit_sim_profile(r, 0, out), 0);
	/* DBG_TRAP alone cannot separate its own cost from the unmap: not written, said why. */
	CU_ASSERT_EQUAL(emitted(out, "dbg_suspend_ns"), -1);
	CU_ASSERT_EQUAL(emitted(out, "hws_unmap_ns"), -1);
	CU_ASSERT_EQUAL(emitted(out, "cwsr_save_ns_per_wave"), 3000);
	CU_ASSERT_EQUAL(emitted(out, "dbg_resume_ns"), 60000);
	FILE *f = fopen(out, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof(line), f))
		said |= !strncmp(line, "# dbg_suspend_ns not written: needs both", 40);
	fclose(f);
	CU_ASSERT(said);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
	unlink(timing);
	unlink(out);
}

static void test_gpu_profile_lists_each_mechanism_the_tool_can_choose(void)
{
	char path[256];
	struct hsaqm_sim *sim = NULL;
	struct hsaqm_kfd_profile p;

	tmp_path(path, sizeof(path), "gpu-profile");
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	struct hsaqm_probe_report *r = run_probe(sim, (1u << HSAQM_PROBE_CHECK_LV3) |
						      (1u << HSAQM_PROBE_CHECK_UPDATE_QUEUE) |
						      (1u << HSAQM_PROBE_CHECK_CU_MASK));
	const struct hsaqm_probe_gpu *g = &r->gpus[0];
	CU_ASSERT_EQUAL(g->checks[HSAQM_PROBE_CHECK_CU_MASK].verdict, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_STRING_EQUAL(g->lv3.mechanism, "dbg_trap");
	CU_ASSERT_EQUAL(g->lv3.level, 3);
	CU_ASSERT_EQUAL(hsaqm_probe_write_gpu_profile(r, path), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_profile_load(path, &p), 0);
	const struct hsaqm_kfd_profile_gpu *pg = hsaqm_kfd_profile_find(&p, g->gpu_id);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pg);
	CU_ASSERT_EQUAL(pg->verdict[HSAQM_KFD_MECH_DBG_TRAP], HSAQM_KFD_PROFILE_YES);
	CU_ASSERT_EQUAL(pg->verdict[HSAQM_KFD_MECH_UPDATE_QUEUE], HSAQM_KFD_PROFILE_YES);
	CU_ASSERT_EQUAL(pg->verdict[HSAQM_KFD_MECH_CU_MASK], HSAQM_KFD_PROFILE_YES);
	/* Default model costs: 32 waves x 1 us + 20 us unmap + 50 us DBG_TRAP's own. */
	CU_ASSERT_EQUAL(pg->stop_ns[HSAQM_KFD_MECH_DBG_TRAP], 102000);
	CU_ASSERT_EQUAL(pg->stop_ns[HSAQM_KFD_MECH_UPDATE_QUEUE], 52000);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.source, "MODEL figures"));
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
	unlink(path);
	/* Nothing measured: nothing written. */
	struct hsaqm_probe_report empty;
	memset(&empty, 0, sizeof(empty));
	CU_ASSERT_EQUAL(hsaqm_probe_write_gpu_profile(&empty, path), -ENODATA);
	CU_ASSERT_EQUAL(hsaqm_probe_write_gpu_profile(NULL, path), -EINVAL);
}

/*
 * The spatial check: with CWSR a mask change frees the reserved CUs mid-kernel (the model's
 * assumption: restored waves go only to the CUs the mask allows); without it the change waits
 * for the running workgroups: mask_after_kernel, with the static reservation as the remedy.
 */
static void test_cu_mask_check_tells_mid_kernel_from_after_the_kernel(void)
{
	for (int cwsr_off = 0; cwsr_off <= 1; cwsr_off++) {
		struct hsaqm_sim *sim = NULL;
		struct hsaqm_sim_config cfg = { .num_devices = 1,
						.time_mode = HSAQM_SIM_TIME_VIRTUAL,
						.cwsr_disable = cwsr_off };

		CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
		struct hsaqm_probe_report *r = run_probe(sim, 1u << HSAQM_PROBE_CHECK_CU_MASK);
		const struct hsaqm_probe_check *k = &r->gpus[0].checks[HSAQM_PROBE_CHECK_CU_MASK];
		const struct hsaqm_probe_figure *fe = probe_find_figure(k, "mask_effect");

		CU_ASSERT_PTR_NOT_NULL_FATAL(fe);
		CU_ASSERT_PTR_NOT_NULL(probe_find_figure(k, "reserve_kept"));
		CU_ASSERT_PTR_NOT_NULL(probe_find_figure(k, "mask_call"));
		printf("\n    CWSR %s: %s (%s), mask_effect median %llu ns [MODEL figure]",
		       cwsr_off ? "off" : "on", k->reason_code, k->reason,
		       (unsigned long long)fe->median);
		if (!cwsr_off) {
			CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_SUPPORTED);
			CU_ASSERT_STRING_EQUAL(k->reason_code, "ok");
		} else {
			CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_NOT_SUPPORTED);
			CU_ASSERT_STRING_EQUAL(k->reason_code, "mask_after_kernel");
			CU_ASSERT_PTR_NOT_NULL(strstr(k->remedy, "HSAQM_SPATIAL=static"));
		}
		hsaqm_probe_report_free(r);
		hsaqm_sim_destroy(sim);
	}
	printf("\n");
}

int main(void)
{
	static const struct t_case cases[] = {
		T_CASE(test_emitted_constants_come_back_within_10_percent),
		T_CASE(test_one_stop_check_emits_what_it_identifies_and_says_why_not_the_rest),
		T_CASE(test_gpu_profile_lists_each_mechanism_the_tool_can_choose),
		T_CASE(test_cu_mask_check_tells_mid_kernel_from_after_the_kernel),
		T_CASES_END,
	};
	static const struct t_suite suites[] = { { "probe-profile", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-probe-profile", suites);
}
