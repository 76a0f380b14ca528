/* SPDX-License-Identifier: MIT */
/*
 * hsa-queue-probe in-process: its outputs. The renderers mark model figures and colour only
 * when asked; the model-timing file it emits is what the model loads back.
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
#include "t_probe.h"

/* ---- outputs -------------------------------------------------------------------------------- */

static void test_renderers_mark_model_figures_and_colour_only_when_asked(void)
{
	struct hsaqm_sim *sim = t_probe_sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1, .checks = T_PROBE_LV3 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	struct hsaqm_probe_report *r = t_probe_run_model(sim, &o, NULL);
	char *plain = t_probe_render(r, HSAQM_PROBE_FORMAT_TEXT, false);
	char *color = t_probe_render(r, HSAQM_PROBE_FORMAT_TEXT, true);
	char *md = t_probe_render(r, HSAQM_PROBE_FORMAT_MARKDOWN, true);
	char *js = t_probe_render(r, HSAQM_PROBE_FORMAT_JSON, true);

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
	struct hsaqm_sim *sim = t_probe_sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 2, .checks = T_PROBE_LV3 };
	char path[] = "/tmp/hsaqm-probe-profile-XXXXXX";
	int fd = mkstemp(path);

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	struct hsaqm_probe_report *r = t_probe_run_model(sim, &o, NULL);
	CU_ASSERT_EQUAL_FATAL(t_probe_lv3(r)->verdict, HSAQM_PROBE_SUPPORTED);
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
	struct hsaqm_probe_report *r2 = t_probe_run_model(sim, &none, NULL);
	CU_ASSERT_EQUAL(hsaqm_probe_emit_sim_profile(r2, 0, path), -ENODATA);
	hsaqm_probe_report_free(r2);
	hsaqm_probe_report_free(r);
	unlink(path);
	hsaqm_sim_destroy(sim);
}

static const struct t_case cases[] = {
	T_CASE(test_renderers_mark_model_figures_and_colour_only_when_asked),
	T_CASE(test_emitted_profile_is_loaded_by_the_model),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "probe-outputs", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("probe-outputs", suites);
}
