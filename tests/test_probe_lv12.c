/* SPDX-License-Identifier: MIT */
/*
 * hsa-queue-probe's Lv1 and Lv2 checks in-process on the device model (tools/probe/
 * check_lv12.c), through lib's HSA backend and the model's HSA face: each verdict path and
 * what the figures measure, in model time (the runtime's clock and dispatch timestamps).
 *   - Lv1 supported: the drain is bounded by the in-flight window (4 kernels of 1 ms), no
 *     held kernel launched during the hold, every result exact;
 *   - Lv2 at a guardian per kernel: nothing launches after the close (launches_stop 0,
 *     exactly), the queue runs dry within one kernel;
 *   - Lv2 at a guardian every 4 kernels: kernels already past the last guardian launch after
 *     the close (launches_stop > 0 in some trial), never more than the interval;
 *   - a hold that does not hold (the test reopens the queue): Lv1 "not_held", Lv2
 *     "not_stopped";
 *   - a runtime table the backend refuses: "hsa_backend_refused";
 *   - SIGINT during the hold: "interrupted", the queue released, the run stops, exit 1.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-hsa/api_table.h"
#include "hsaqm/hsaqm.h"
#include "hsaqm-sim/sim.h"
#include "kfd_face_internal.h"
#include "probe.h"
#include "probe_internal.h"
#include "t_cunit.h"

#define LV1 (1u << HSAQM_PROBE_CHECK_LV1)
#define LV2 (1u << HSAQM_PROBE_CHECK_LV2)
#define KERNEL_NS 1000000ull /* --quick: 1 ms model kernels */

static struct hsaqm_sim *sim_real(void)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL };
	struct hsaqm_sim *sim = NULL;

	return hsaqm_sim_create(&cfg, &sim) ? NULL : sim;
}

static void model_env(struct hsaqm_sim *sim, struct hsaqm_probe_env *env)
{
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_env_sim(env, sim), 0);
	/* The host preflight must not depend on this machine. */
	env->host_sysfs_root = "/nonexistent-hsaqm-sys";
	env->host_dev_kfd = "/nonexistent-hsaqm-kfd";
	env->host_debugfs_root = "/nonexistent-hsaqm-debug";
}

static struct hsaqm_probe_report *run(const struct hsaqm_probe_options *o,
				      const struct hsaqm_probe_env *env)
{
	struct hsaqm_probe_report *r = NULL;

	CU_ASSERT_EQUAL(hsaqm_probe_run(o, env, &r), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	return r;
}

static const struct hsaqm_probe_check *check(const struct hsaqm_probe_report *r, int id)
{
	const struct hsaqm_probe_check *k = &r->gpus[0].checks[id];

	if (k->verdict != HSAQM_PROBE_SUPPORTED)
		fprintf(stderr, "%s: %s (%s): %s\n", hsaqm_probe_check_name(id),
			hsaqm_probe_verdict_name(k->verdict), k->reason_code, k->reason);
	return k;
}

static const struct hsaqm_probe_figure *fig(const struct hsaqm_probe_check *k, const char *name,
					    uint32_t n)
{
	const struct hsaqm_probe_figure *f = probe_find_figure(k, name);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->n, n);
	CU_ASSERT(f->min <= f->median && f->median <= f->p99 && f->p99 <= f->max);
	return f;
}

static const char *fact(const struct hsaqm_probe_check *k, const char *key)
{
	for (uint32_t i = 0; i < k->nfacts; i++)
		if (!strcmp(k->facts[i].key, key))
			return k->facts[i].value;
	return "";
}

static void test_lv1_drain_is_bounded_by_the_in_flight_window(void)
{
	struct hsaqm_sim *sim = sim_real();
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 3, .checks = LV1 };
	struct hsaqm_probe_env env;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	model_env(sim, &env);
	struct hsaqm_probe_report *r = run(&o, &env);
	const struct hsaqm_probe_check *k = check(r, HSAQM_PROBE_CHECK_LV1);

	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_STRING_EQUAL(k->reason_code, "ok");
	CU_ASSERT_EQUAL(k->trials, 3);
	/*
	 * At most 4 released kernels of 1 model-ms each are left at the hold. (Fewer, even none,
	 * when the host released late: lib releases from the completion handler, so a slow host
	 * leaves the GPU idle, and the drain is then honestly short.)
	 */
	const struct hsaqm_probe_figure *w = fig(k, "inflight_at_hold", 3);
	CU_ASSERT(w->max <= 4);
	const struct hsaqm_probe_figure *d = fig(k, "drain", 3);
	CU_ASSERT(d->max <= 4 * KERNEL_NS + KERNEL_NS / 10);
	/* The trial with the most in flight drained at least all but the running one. */
	if (w->max)
		CU_ASSERT(d->max >= (w->max - 1) * KERNEL_NS && d->max > 0);
	fig(k, "launches_resume", 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(fact(k, "clock"), "model time"));
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_MODEL);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

static void test_lv2_guardian_per_kernel_stops_launches_at_once(void)
{
	struct hsaqm_sim *sim = sim_real();
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 3, .checks = LV2 };
	struct hsaqm_probe_env env;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	model_env(sim, &env);
	struct hsaqm_probe_report *r = run(&o, &env);
	const struct hsaqm_probe_check *k = check(r, HSAQM_PROBE_CHECK_LV2);

	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_SUPPORTED);
	/*
	 * Each guardian carries its kernel's barrier bit: it is evaluated after the kernel
	 * before it ended, so once the gate is closed no kernel launches. Exactly 0, in model
	 * time; what the close costs is the running kernel's rest (the drain, < 1 kernel).
	 */
	CU_ASSERT_EQUAL(fig(k, "launched_after_close", 3)->max, 0);
	CU_ASSERT_EQUAL(fig(k, "launches_stop", 3)->max, 0);
	const struct hsaqm_probe_figure *d = fig(k, "drain", 3);
	CU_ASSERT(d->max <= KERNEL_NS);
	fig(k, "launches_resume", 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(fact(k, "interval"), "every 1 kernel"));
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

static void test_lv2_interval_4_lets_kernels_past_the_guardian_launch(void)
{
	struct hsaqm_sim *sim = sim_real();
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 6, .checks = LV2,
					 .lv2_interval = 4 };
	struct hsaqm_probe_env env;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	model_env(sim, &env);
	struct hsaqm_probe_report *r = run(&o, &env);
	const struct hsaqm_probe_check *k = check(r, HSAQM_PROBE_CHECK_LV2);

	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_SUPPORTED);
	const struct hsaqm_probe_figure *a = fig(k, "launched_after_close", 6);
	const struct hsaqm_probe_figure *s = fig(k, "launches_stop", 6);
	const struct hsaqm_probe_figure *d = fig(k, "drain", 6);
	/*
	 * The close lands at a different point of the interval in each trial (the probe moves
	 * it by 3/4 kernel): some trial has kernels that were past the guardian and launch
	 * after it, never more than the interval, each launch within the interval's kernels.
	 */
	CU_ASSERT(a->max >= 1);
	CU_ASSERT(a->max <= 4);
	CU_ASSERT(s->max > 0);
	CU_ASSERT(s->max <= 4 * KERNEL_NS);
	/* The queue runs dry after its last launch: the drain holds that kernel too. */
	CU_ASSERT(d->max >= s->max + KERNEL_NS / 2);
	CU_ASSERT(d->max <= 5 * KERNEL_NS);
	CU_ASSERT_PTR_NOT_NULL(strstr(fact(k, "interval"), "every 4 kernels"));
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

/* A hold that does not hold: the test releases the queue as soon as lib held it. */
static void break_hold(void *ctx, int check_id, struct hsaqm_xq *xq)
{
	int *calls = ctx;

	(void)check_id;
	(*calls)++;
	hsaqm_xq_resume(xq);
}

static void expect_broken(uint32_t checks, int id, const char *code)
{
	struct hsaqm_sim *sim = sim_real();
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 2,
					 .checks = checks };
	struct hsaqm_probe_env env;
	int calls = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	model_env(sim, &env);
	env.test_lv12_hook = break_hold;
	env.test_hook_ctx = &calls;
	struct hsaqm_probe_report *r = run(&o, &env);
	const struct hsaqm_probe_check *k = &r->gpus[0].checks[id];

	CU_ASSERT(calls >= 1);
	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_NOT_SUPPORTED);
	CU_ASSERT_STRING_EQUAL(k->reason_code, code);
	if (strcmp(k->reason_code, code))
		fprintf(stderr, "verdict %s: %s\n", k->reason_code, k->reason);
	CU_ASSERT_NOT_EQUAL(k->remedy[0], '\0');
	/* Still a report on the model, and nothing lost: the figures are there. */
	CU_ASSERT_PTR_NOT_NULL(probe_find_figure(k, "drain"));
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_MODEL);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

static void test_lv1_not_held_when_held_kernels_launch(void)
{
	expect_broken(LV1, HSAQM_PROBE_CHECK_LV1, "not_held");
}

static void test_lv2_not_stopped_when_the_gate_lets_kernels_through(void)
{
	expect_broken(LV2, HSAQM_PROBE_CHECK_LV2, "not_stopped");
}

static void test_lv12_could_not_test_when_the_backend_refuses_the_table(void)
{
	struct hsaqm_sim *sim = sim_real();
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1,
					 .checks = LV1 | LV2 };
	struct hsaqm_probe_env env;
	struct hsaqm_api_layout l;
	struct hsaqm_api_root_v3 root;
	struct hsaqm_amd_ext_table_v2 amd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	model_env(sim, &env);
	/* The model's table without hsa_amd_signal_async_handler, which lib cannot do without. */
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(env.hsa_root_table, 0, &l), 0);
	memcpy(&root, env.hsa_root_table, sizeof(root));
	memcpy(&amd, root.amd_ext, sizeof(amd));
	root.amd_ext = &amd;
	void **slot = hsaqm_api_table_slot(&root, &l, HSAQM_API_AMD_SIGNAL_ASYNC_HANDLER);
	CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
	*slot = NULL;
	env.hsa_root_table = &root;
	struct hsaqm_probe_report *r = run(&o, &env);
	for (int id = HSAQM_PROBE_CHECK_LV1; id <= HSAQM_PROBE_CHECK_LV2; id++) {
		const struct hsaqm_probe_check *k = &r->gpus[0].checks[id];

		CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_COULD_NOT_TEST);
		CU_ASSERT_STRING_EQUAL(k->reason_code, "hsa_backend_refused");
		CU_ASSERT_EQUAL(k->nfig, 0);
	}
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_MODEL);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

/* The user presses Ctrl-C while Lv2 holds the queue. */
static void interrupt_hold(void *ctx, int check_id, struct hsaqm_xq *xq)
{
	struct hsaqm_xq_info *seen = ctx;

	(void)check_id;
	hsaqm_xq_get_info(xq, seen);
	raise(SIGINT);
}

static void test_sigint_during_the_lv2_hold_releases_the_queue(void)
{
	struct hsaqm_sim *sim = sim_real();
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 3,
					 .checks = LV2 | (1u << HSAQM_PROBE_CHECK_LV3) };
	struct hsaqm_probe_env env;
	struct hsaqm_xq_info seen = { .held_by_hand = 0 };
	struct sigaction old_int, old_term;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	model_env(sim, &env);
	env.test_lv12_hook = interrupt_hold;
	env.test_hook_ctx = &seen;
	sigaction(SIGINT, NULL, &old_int);
	sigaction(SIGTERM, NULL, &old_term);
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_signals_install(), 0);
	hsaqm_probe_interrupt_reset();
	struct hsaqm_probe_report *r = run(&o, &env);
	const struct hsaqm_probe_check *k = &r->gpus[0].checks[HSAQM_PROBE_CHECK_LV2];

	CU_ASSERT_EQUAL(seen.held_by_hand, 1); /* the signal came while lib held it */
	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_COULD_NOT_TEST);
	CU_ASSERT_STRING_EQUAL(k->reason_code, "interrupted");
	CU_ASSERT_TRUE(r->interrupted);
	CU_ASSERT_FALSE(r->gpus[0].checks[HSAQM_PROBE_CHECK_LV3].ran);
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_FAILURE);
	/* Nothing left behind: no queue in the model, nothing registered as stopped. */
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(sim), 0);
	CU_ASSERT_EQUAL(probe_hold_release_all(), 0);
	hsaqm_probe_report_free(r);
	hsaqm_probe_interrupt_reset();
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	hsaqm_sim_destroy(sim);
}

int main(void)
{
	static const struct t_case cases[] = {
		T_CASE(test_lv1_drain_is_bounded_by_the_in_flight_window),
		T_CASE(test_lv2_guardian_per_kernel_stops_launches_at_once),
		T_CASE(test_lv2_interval_4_lets_kernels_past_the_guardian_launch),
		T_CASE(test_lv1_not_held_when_held_kernels_launch),
		T_CASE(test_lv2_not_stopped_when_the_gate_lets_kernels_through),
		T_CASE(test_lv12_could_not_test_when_the_backend_refuses_the_table),
		T_CASE(test_sigint_during_the_lv2_hold_releases_the_queue),
		T_CASES_END,
	};
	static const struct t_suite suites[] = {
		{ "probe-lv12", NULL, NULL, cases },
		T_SUITES_END,
	};

	return t_run("probe-lv12", suites);
}
