/* SPDX-License-Identifier: MIT */
/*
 * The preemption engine on the test backend, spatially: dynamic (a held queue confined, its CUs
 * given back), static (confined at once, every exit gives the CUs back), auto after an Lv3
 * fallback; the Lv3 mechanism and its reason from the backend in the stats; a refused
 * confinement ending spatial, bad settings refused; fail-open giving every CU back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hsaqm-common/log.h"
#include "t_backend.h"
#include "t_cunit.h"
#include "xq_internal.h"
#include "t_engine.h"

/* -- spatial and the Lv3 mechanism --------------------------------------------------------- */

/* A low and a high queue on the spatial test backend. */
static void spatial_pair(struct hsaqm_ctx *ctx, struct t_bq *lo, struct t_bq *hi,
			 enum hsaqm_level lo_level)
{
	struct hsaqm_xq_config cfg = { .level = lo_level };

	t_bq_init(lo, HSAQM_LEVEL_3);
	t_bq_init(hi, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops_spatial, lo, &lo->xq), 0);
	cfg.priority = 10;
	cfg.level = HSAQM_LEVEL_2;
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops_spatial, hi, &hi->xq), 0);
}

static void test_dynamic_spatial_confines_a_held_queue_and_gives_its_cus_back(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;

	spatial_pair(ctx, &lo, &hi, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_DYNAMIC, 250), 0);
	CU_ASSERT_EQUAL(lo.confined, 0); /* running alone: every CU */
	t_bq_submit(&lo, 4);
	t_bq_submit(&hi, 1);
	/* Held with work in flight: the kernel in flight leaves the reserve, the gate closes. */
	CU_ASSERT_EQUAL(lo.confined, 250);
	CU_ASSERT_TRUE(lo.gate_closed);
	struct hsaqm_xq_info info = t_xq_info(lo.xq);
	CU_ASSERT_TRUE(info.confined);
	CU_ASSERT_EQUAL(info.spatial, HSAQM_SPATIAL_DYNAMIC);
	CU_ASSERT_EQUAL(info.cu_reserve_permille, 250);
	CU_ASSERT_EQUAL(info.mechanism, HSAQM_MECH_GATE);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.mechanism_reason, "spatial dynamic"));
	/* The high queue ends: the low one gets every CU back and runs everything. */
	t_bq_run(&hi, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.confined, 0);
	CU_ASSERT_FALSE(lo.gate_closed);
	t_bq_run(&lo, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.ran, 4);
	CU_ASSERT_EQUAL(t_xq_stats(lo.xq).confinements, 1);
	/* An idle low queue held lazily is not confined: nothing of it runs to move. */
	t_bq_submit(&hi, 1);
	CU_ASSERT_EQUAL(lo.confined, 0);
	t_bq_run(&hi, UINT64_MAX);
	char *json = NULL;
	CU_ASSERT_EQUAL(hsaqm_ctx_stats_json(ctx, &json), 0);
	CU_ASSERT_PTR_NOT_NULL(json && strstr(json, "\"spatial\":\"dynamic\""));
	CU_ASSERT_PTR_NOT_NULL(json && strstr(json, "\"confinements\":1"));
	CU_ASSERT_PTR_NOT_NULL(json && strstr(json, "\"mechanism\":\"gate\""));
	free(json);
	CU_ASSERT_EQUAL(lo.violations + hi.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
}

static void test_static_spatial_confines_at_once_and_every_exit_gives_the_cus_back(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;

	spatial_pair(ctx, &lo, &hi, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_STATIC, 500), 0);
	CU_ASSERT_EQUAL(lo.confined, 500);
	t_bq_submit(&lo, 3);
	t_bq_run(&lo, UINT64_MAX); /* runs confined, never let out */
	CU_ASSERT_EQUAL(lo.confined, 500);
	CU_ASSERT_EQUAL(lo.ran, 3);
	/* Detach: the backend's detached() checks the queue has every CU back. */
	CU_ASSERT_EQUAL(hsaqm_xq_detach(lo.xq), 0);
	CU_ASSERT_EQUAL(lo.confined, 0);
	CU_ASSERT_TRUE(lo.detached);
	/* Context destroy while confined (static): the same. */
	struct t_bq other;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2 };
	t_bq_init(&other, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL_FATAL(hsaqm_xq_attach(ctx, &cfg, &t_backend_ops_spatial, &other,
					      &other.xq), 0);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(other.xq, HSAQM_SPATIAL_STATIC, 100), 0);
	CU_ASSERT_EQUAL(other.confined, 100);
	hsaqm_ctx_destroy(ctx);
	CU_ASSERT_EQUAL(other.confined, 0);
	CU_ASSERT_EQUAL(lo.violations + hi.violations + other.violations, 0);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
	t_bq_fini(&other);
}

/* The fallback chain: Lv3 refused -> Lv2 with spatial (AUTO turns DYNAMIC), reason said. */
static void test_auto_spatial_joins_the_lv2_fallback_of_a_refused_lv3(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;

	spatial_pair(ctx, &lo, &hi, HSAQM_LEVEL_3);
	lo.suspend_err = -EPERM;
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_AUTO, 250), 0);
	t_bq_submit(&lo, 6);
	CU_ASSERT_EQUAL(lo.confined, 0); /* Lv3 in force: auto is off */
	t_bq_submit(&hi, 1);
	struct hsaqm_xq_info info = t_xq_info(lo.xq);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(lo.confined, 250);
	CU_ASSERT_TRUE(lo.gate_closed);
	CU_ASSERT_EQUAL(info.mechanism, HSAQM_MECH_GATE);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.mechanism_reason, "EPERM"));
	CU_ASSERT_PTR_NOT_NULL(strstr(info.mechanism_reason, "spatial dynamic"));
	t_bq_run(&hi, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.confined, 0);
	t_bq_run(&lo, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.ran, 6);
	CU_ASSERT_EQUAL(lo.violations + hi.violations, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
}

static void test_lv3_mechanism_and_its_reason_come_from_the_backend(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;

	spatial_pair(ctx, &lo, &hi, HSAQM_LEVEL_3);
	lo.mech = HSAQM_MECH_UPDATE_QUEUE;
	snprintf(lo.mech_why, sizeof(lo.mech_why), "UPDATE_QUEUE instead of DBG_TRAP: test");
	struct hsaqm_xq_info info = t_xq_info(lo.xq);
	CU_ASSERT_EQUAL(info.mechanism, HSAQM_MECH_UPDATE_QUEUE);
	CU_ASSERT_STRING_EQUAL(info.mechanism_reason, lo.mech_why);
	CU_ASSERT_EQUAL(t_xq_stats(lo.xq).mechanism, HSAQM_MECH_UPDATE_QUEUE);
	/* Lv3 is not also confined: the suspend stops the kernel outright. */
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_DYNAMIC, 250), 0);
	t_bq_submit(&lo, 2);
	t_bq_submit(&hi, 1);
	CU_ASSERT_TRUE(lo.suspended);
	CU_ASSERT_EQUAL(lo.confined, 0);
	CU_ASSERT_EQUAL(t_xq_info(hi.xq).mechanism, HSAQM_MECH_GATE);
	CU_ASSERT_STRING_EQUAL(hsaqm_mechanism_name(HSAQM_MECH_UPDATE_QUEUE), "update_queue");
	CU_ASSERT_STRING_EQUAL(hsaqm_mechanism_name((enum hsaqm_mechanism)9), "?");
	CU_ASSERT_STRING_EQUAL(hsaqm_spatial_name(HSAQM_SPATIAL_AUTO), "auto");
	t_bq_run(&hi, UINT64_MAX);
	t_bq_run(&lo, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.ran, 2);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
}

static void test_refused_confinement_ends_spatial_and_bad_settings_are_refused(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi, plain;

	spatial_pair(ctx, &lo, &hi, HSAQM_LEVEL_2);
	lo.confine_err = -EBUSY; /* the debugger's CU workaround owns the mask */
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_DYNAMIC, 250), 0);
	t_bq_submit(&lo, 2);
	t_bq_submit(&hi, 1);
	CU_ASSERT_EQUAL(lo.confined, 0);
	CU_ASSERT_TRUE(lo.gate_closed); /* Lv2 still holds it */
	char *json = NULL;
	CU_ASSERT_EQUAL(hsaqm_ctx_stats_json(ctx, &json), 0);
	CU_ASSERT_PTR_NOT_NULL(json && strstr(json, "\"spatial_in_force\":\"off\""));
	free(json);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_DYNAMIC, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_DYNAMIC, 1000), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, (enum hsaqm_spatial)9, 250), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(NULL, HSAQM_SPATIAL_OFF, 0), -EINVAL);
	/* A backend without cu_confine cannot. */
	t_bq_init(&plain, HSAQM_LEVEL_2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t_bq_attach(ctx, &plain, 0, 0, HSAQM_LEVEL_2));
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(plain.xq, HSAQM_SPATIAL_STATIC, 250), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(plain.xq, HSAQM_SPATIAL_OFF, 0), 0);
	t_bq_run(&hi, UINT64_MAX);
	t_bq_run(&lo, UINT64_MAX);
	CU_ASSERT_EQUAL(lo.ran, 2);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
	t_bq_fini(&plain);
}

static void test_fail_open_gives_a_confined_queue_every_cu_back(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;

	spatial_pair(ctx, &lo, &hi, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(hsaqm_xq_set_spatial(lo.xq, HSAQM_SPATIAL_STATIC, 250), 0);
	CU_ASSERT_EQUAL(lo.confined, 250);
	lo.release_err = -EIO;
	t_bq_submit(&lo, 2);
	CU_ASSERT_TRUE(t_xq_info(lo.xq).failed_open);
	CU_ASSERT_EQUAL(lo.confined, 0);
	CU_ASSERT_EQUAL(t_xq_info(lo.xq).mechanism, HSAQM_MECH_NONE);
	lo.release_err = 0;
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
}

static const struct t_case cases[] = {
	T_CASE(test_dynamic_spatial_confines_a_held_queue_and_gives_its_cus_back),
	T_CASE(test_static_spatial_confines_at_once_and_every_exit_gives_the_cus_back),
	T_CASE(test_auto_spatial_joins_the_lv2_fallback_of_a_refused_lv3),
	T_CASE(test_lv3_mechanism_and_its_reason_come_from_the_backend),
	T_CASE(test_refused_confinement_ends_spatial_and_bad_settings_are_refused),
	T_CASE(test_fail_open_gives_a_confined_queue_every_cu_back),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "lib-engine-spatial", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-lib-engine-spatial", suites);
}
