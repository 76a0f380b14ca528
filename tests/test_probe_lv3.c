/* SPDX-License-Identifier: MIT */
/*
 * hsa-queue-probe in-process against the device model: every verdict path of the Lv3 check with
 * its reason code and exit code (supported with figures and proof; KFD 1.11, no HWS, CWSR off,
 * EPERM, EALREADY, no device kernel for the GPU), and the SIGINT path (the queue is resumed
 * before it is destroyed, nothing is left behind).
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

/* ---- verdict paths ------------------------------------------------------------------------ */

static void test_lv3_supported_on_the_model_with_figures_and_proof(void)
{
	struct hsaqm_sim *sim = t_probe_sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 2, .checks = T_PROBE_LV3 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	struct hsaqm_probe_report *r = t_probe_run_model(sim, &o, NULL);
	const struct hsaqm_probe_check *k = t_probe_lv3(r);

	t_probe_explain(k, HSAQM_PROBE_SUPPORTED);
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
	struct hsaqm_sim *sim = t_probe_sim_real(cfg);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1, .checks = T_PROBE_LV3 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	struct hsaqm_probe_report *r = t_probe_run_model(sim, &o, NULL);
	t_probe_explain(t_probe_lv3(r), v);
	CU_ASSERT_EQUAL(t_probe_lv3(r)->verdict, v);
	CU_ASSERT_STRING_EQUAL(t_probe_lv3(r)->reason_code, code);
	CU_ASSERT_NOT_EQUAL(t_probe_lv3(r)->remedy[0], '\0');
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
	struct hsaqm_sim *sim = t_probe_sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1, .checks = T_PROBE_LV3 };
	struct hsaqm_probe_env env;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_env_sim(&env, sim), 0);
	t_probe_quiet_host(&env);
	/* A runtime that never enabled the KFD's runtime (no RUNTIME_ENABLE, as before ROCr
	 * called it): the probe makes its queue through the KFD itself, so the HSA face opens no
	 * queue and never enables it, and the probe does not either; the KFD answers EPERM. */
	env.queues_via_kfd = true;
	env.runtime_enable = false;
	struct hsaqm_probe_report *r = t_probe_run_model(sim, &o, &env);
	CU_ASSERT_EQUAL(t_probe_lv3(r)->verdict, HSAQM_PROBE_NOT_SUPPORTED);
	CU_ASSERT_STRING_EQUAL(t_probe_lv3(r)->reason_code, "eperm");
	CU_ASSERT_PTR_NOT_NULL(strstr(t_probe_lv3(r)->reason, "EPERM"));
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_MODEL);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(sim), 0);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

static void test_lv3_ealready_when_another_debugger_holds_dbg_trap(void)
{
	struct hsaqm_sim *sim = t_probe_sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1, .checks = T_PROBE_LV3 };
	struct hsaqm_probe_env env;
	struct hsaqm_kfd *kfd = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_env_sim(&env, sim), 0);
	t_probe_quiet_host(&env);
	/*
	 * "Another debugger": the runtime enabled first (ROCr's hsa_init), then a debugger took
	 * DBG_TRAP on the process the probe runs in (rocgdb attaching).
	 */
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(env.tp, &kfd), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_runtime_enable(kfd, 0, true), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_dbg_enable(kfd, 0, NULL), 0);
	env.kfd = kfd;
	struct hsaqm_probe_report *r = t_probe_run_model(sim, &o, &env);
	CU_ASSERT_EQUAL(t_probe_lv3(r)->verdict, HSAQM_PROBE_COULD_NOT_TEST);
	CU_ASSERT_STRING_EQUAL(t_probe_lv3(r)->reason_code, "debugger_attached");
	CU_ASSERT_PTR_NOT_NULL(strstr(t_probe_lv3(r)->reason, "EALREADY"));
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
	struct hsaqm_sim *sim = t_probe_sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1, .checks = T_PROBE_LV3 };
	struct hsaqm_probe_env env;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_env_sim(&env, sim), 0);
	t_probe_quiet_host(&env);
	/* As on hardware: only code objects count; this build has none for gfx942 (clang-14). */
	env.sim = NULL;
	struct hsaqm_probe_report *r = t_probe_run_model(sim, &o, &env);
	bool embedded = false;
	for (unsigned int i = 0; i < probe_n_code_objects; i++)
		embedded |= !strcmp(probe_code_objects[i].target, "gfx942");
	if (embedded) {
		/* A build whose clang knows gfx942: the gate passes (then model kernels fail). */
		CU_ASSERT_TRUE(r->gpus[0].have_kernel);
	} else {
		CU_ASSERT_FALSE(r->gpus[0].have_kernel);
		CU_ASSERT_EQUAL(t_probe_lv3(r)->verdict, HSAQM_PROBE_COULD_NOT_TEST);
		CU_ASSERT_STRING_EQUAL(t_probe_lv3(r)->reason_code, "no_device_kernel");
		CU_ASSERT_PTR_NOT_NULL(strstr(t_probe_lv3(r)->reason, "no device kernel for gfx942"));
		CU_ASSERT_PTR_NOT_NULL(strstr(t_probe_lv3(r)->remedy, "gpu_targets"));
	}
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
	struct hsaqm_sim *sim = t_probe_sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 3,
					 .checks = T_PROBE_LV3 | T_PROBE_UPD, .allow_disruptive = true };
	struct hsaqm_probe_env env;
	struct sig_watch w = { .suspended_wave_state = 1, .after_wave_state = 1 };
	struct sigaction old_int, old_term;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_env_sim(&env, sim), 0);
	t_probe_quiet_host(&env);
	env.test_hook = sig_hook;
	env.test_hook_ctx = &w;
	sigaction(SIGINT, NULL, &old_int);
	sigaction(SIGTERM, NULL, &old_term);
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_signals_install(), 0);
	hsaqm_probe_interrupt_reset();
	struct hsaqm_probe_report *r = t_probe_run_model(sim, &o, &env);

	CU_ASSERT_EQUAL(hsaqm_probe_interrupted(), SIGINT);
	CU_ASSERT_TRUE(r->interrupted);
	CU_ASSERT_FALSE(r->failed);
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_FAILURE);
	CU_ASSERT_EQUAL(t_probe_lv3(r)->verdict, HSAQM_PROBE_COULD_NOT_TEST);
	CU_ASSERT_STRING_EQUAL(t_probe_lv3(r)->reason_code, "interrupted");
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

static const struct t_case cases[] = {
	T_CASE(test_lv3_supported_on_the_model_with_figures_and_proof),
	T_CASE(test_lv3_old_kfd_1_11_is_not_supported),
	T_CASE(test_lv3_no_hws_is_not_supported),
	T_CASE(test_lv3_cwsr_off_is_not_supported),
	T_CASE(test_lv3_eperm_without_runtime_enable),
	T_CASE(test_lv3_ealready_when_another_debugger_holds_dbg_trap),
	T_CASE(test_lv3_no_device_kernel_for_gfx942_says_how_to_rebuild),
	T_CASE(test_sigint_during_lv3_resumes_the_queue_and_leaves_nothing),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "probe-lv3", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("probe-lv3", suites);
}
