/* SPDX-License-Identifier: MIT */
/*
 * The tool library's choice of Lv3 mechanism and spatial mode (docs/tool.md, "Lv3 mechanism
 * and spatial"), on the in-process device model (real time), loaded by hsa_init as in
 * test-tool-lv3 (the model registers its KFD in libhsaqm.so, where the tool's copy of
 * kfd-ioctl finds it).
 *
 * Proves: the new variables' syntax (HSAQM_LV3_MECHANISM, HSAQM_SPATIAL, HSAQM_GPU_PROFILE and
 * its default path); HSAQM_LV3_MECHANISM=update_queue stops a running low kernel with
 * UPDATE_QUEUE, every workgroup once, and the stats say so; a GPU profile that says DBG_TRAP does
 * not work moves the GPU to UPDATE_QUEUE with that reason; without any Lv3 mechanism the queue
 * runs at Lv2 with the spatial fallback (HSAQM_SPATIAL=auto), confined while held and given
 * every CU back after;
 * HSAQM_SPATIAL=static confines the queues at or below the default priority only, and a
 * priority change above it gives the CUs back; a named profile that cannot be read is said and
 * Lv3 is decided without it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsaqm-kfd/kfd_lv3.h"
#include "hsaqm-kfd/kfd_transport.h"
#include "kfd_face_internal.h"
#include "t_cunit.h"
#include "t_fill.h"
#include "t_tool.h"
#include "tool_internal.h"

static unsigned long long json_u64(const char *obj, const char *field)
{
	char key[64];
	const char *s;

	snprintf(key, sizeof(key), "\"%s\":", field);
	s = strstr(obj, key);
	return s ? strtoull(s + strlen(key), NULL, 10) : ~0ull;
}

/* The queue's object in a fresh stats document, or "" (printed when a check fails). */
static void stats_of(struct t_proc *p, const char *prio, char *obj, size_t size)
{
	char *js = t_proc_stats(p);

	obj[0] = '\0';
	CU_ASSERT_PTR_NOT_NULL_FATAL(js);
	CU_ASSERT(t_tool_queue_json(js, prio, obj, size));
	free(js);
}

static bool has(const char *obj, const char *needle)
{
	if (strstr(obj, needle))
		return true;
	printf("\n    wanted %s in %s\n", needle, obj);
	return false;
}

/* The proxy's CU mask, first word (the tool maps the proxy to its hardware queue). */
static uint32_t mask0(struct t_hsa *h, struct hsaqm_hsa_queue *q)
{
	uint32_t m[4] = { 0 };

	CU_ASSERT_EQUAL(h->amd->hsa_amd_queue_cu_get_mask_fn(q, 128, m), HSAQM_HSA_STATUS_SUCCESS);
	return m[0];
}

/*
 * A low kernel that fills the device, then a high one mid-kernel: the high one completes, then
 * the low one, every low workgroup once.
 */
static void low_then_high(struct t_hsa *h, struct hsaqm_hsa_queue *lo, struct hsaqm_hsa_queue *hi)
{
	uint64_t klo = t_fill_low_kernel(h, "mech-low");
	uint64_t khi = t_fill_high_kernel(h, "mech-high");
	struct hsaqm_hsa_signal cs_lo = t_hsa_signal(h, 1), cs_hi = t_hsa_signal(h, 1);

	CU_ASSERT_FATAL(klo && khi);
	t_fill_start_low(h, lo, klo, cs_lo);
	t_fill_submit_high(h, hi, khi, cs_hi);
	CU_ASSERT_FATAL(t_hsa_wait_le(h, cs_hi, 0, 20 * T_S));
	CU_ASSERT_FATAL(t_hsa_wait_le(h, cs_lo, 0, 30 * T_S));
	t_fill_assert_each_once();
	h->core->hsa_signal_destroy_fn(cs_hi);
	h->core->hsa_signal_destroy_fn(cs_lo);
}

/* ---- the variables' syntax ------------------------------------------------------------- */

static const char *const *g_env; /* "K=V" strings the getter answers from */

static const char *env_get(const char *name)
{
	size_t n = strlen(name);

	for (const char *const *e = g_env; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static void read_cfg(struct hsaqm_tool_config *cfg, const char *const *env)
{
	g_env = env;
	memset(cfg, 0, sizeof(*cfg));
	hsaqm_tool_config_read(cfg, env_get);
}

static void test_the_variables_syntax(void)
{
	static const struct {
		const char *text;
		int ok;
		enum hsaqm_spatial mode;
		uint32_t reserve;
	} sp[] = {
		{ "off", 1, HSAQM_SPATIAL_OFF, 0 },
		{ "OFF", 1, HSAQM_SPATIAL_OFF, 0 },
		{ "auto", 1, HSAQM_SPATIAL_AUTO, 250 },
		{ "static", 1, HSAQM_SPATIAL_STATIC, 250 },
		{ "dynamic:100", 1, HSAQM_SPATIAL_DYNAMIC, 100 },
		{ "static:999", 1, HSAQM_SPATIAL_STATIC, 999 },
		{ "static:0", 0, 0, 0 },
		{ "static:1000", 0, 0, 0 },
		{ "dynamic:", 0, 0, 0 },
		{ "statics", 0, 0, 0 },
		{ "static:25%", 0, 0, 0 },
		{ "", 0, 0, 0 },
	};
	struct hsaqm_tool_config cfg;

	for (size_t i = 0; i < sizeof(sp) / sizeof(sp[0]); i++) {
		enum hsaqm_spatial m = HSAQM_SPATIAL_AUTO;
		uint32_t r = 7;
		int rc = hsaqm_tool_parse_spatial(sp[i].text, &m, &r);

		CU_ASSERT_EQUAL(rc, sp[i].ok ? 0 : -EINVAL);
		if (sp[i].ok && (m != sp[i].mode || r != sp[i].reserve))
			CU_FAIL(sp[i].text);
	}

	/* Defaults: auto preference, spatial off (250 permille once named), the XDG path. */
	read_cfg(&cfg, (const char *const[]){ "XDG_CONFIG_HOME=/x", "HOME=/h", NULL });
	CU_ASSERT_EQUAL(cfg.bad, 0u);
	CU_ASSERT_EQUAL(cfg.lv3_mech, HSAQM_KFD_PREF_AUTO);
	CU_ASSERT_EQUAL(cfg.spatial, HSAQM_SPATIAL_OFF);
	CU_ASSERT_EQUAL(cfg.spatial_reserve, 250u);
	CU_ASSERT_STRING_EQUAL(cfg.gpu_profile, "/x/hsaqm/gpu-profile");
	CU_ASSERT_FALSE(cfg.gpu_profile_asked);
	read_cfg(&cfg, (const char *const[]){ "HOME=/h", NULL });
	CU_ASSERT_STRING_EQUAL(cfg.gpu_profile, "/h/.config/hsaqm/gpu-profile");
	read_cfg(&cfg, (const char *const[]){ NULL });
	CU_ASSERT_STRING_EQUAL(cfg.gpu_profile, "");

	read_cfg(&cfg, (const char *const[]){ "HSAQM_LV3_MECHANISM=update_queue",
					      "HSAQM_SPATIAL=static:100",
					      "HSAQM_GPU_PROFILE=/p/gpu", "HOME=/h", NULL });
	CU_ASSERT_EQUAL(cfg.bad, 0u);
	CU_ASSERT_EQUAL(cfg.lv3_mech, HSAQM_KFD_PREF_UPDATE_QUEUE);
	CU_ASSERT_EQUAL(cfg.spatial, HSAQM_SPATIAL_STATIC);
	CU_ASSERT_EQUAL(cfg.spatial_reserve, 100u);
	CU_ASSERT_STRING_EQUAL(cfg.gpu_profile, "/p/gpu");
	CU_ASSERT_TRUE(cfg.gpu_profile_asked);

	/* Refused values are counted (each said once) and the defaults stay. */
	read_cfg(&cfg, (const char *const[]){ "HSAQM_LV3_MECHANISM=debugger",
					      "HSAQM_SPATIAL=half", NULL });
	CU_ASSERT_EQUAL(cfg.bad, 2u);
	CU_ASSERT_EQUAL(cfg.lv3_mech, HSAQM_KFD_PREF_AUTO);
	CU_ASSERT_EQUAL(cfg.spatial, HSAQM_SPATIAL_OFF);
	CU_ASSERT_EQUAL(cfg.spatial_reserve, 250u);
	g_env = NULL;
}

/* ---- on the model ----------------------------------------------------------------------- */

static void test_update_queue_asked_by_the_environment(void)
{
	static const char *const env[] = { "HSAQM_LEVEL=3", "HSAQM_LV3_MECHANISM=update_queue",
					    "HSAQM_GPU_PROFILE=/nonexistent/hsaqm-profile", NULL };
	struct t_hsa h;
	struct t_proc p;
	struct hsaqm_hsa_queue *lo, *hi;
	char obj[4096], *js;

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), env, &t_fill_cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	lo = t_hsa_queue(&h, 64, HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW);
	hi = t_hsa_queue(&h, 64, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	CU_ASSERT_FATAL(lo && hi && t_tool_is_proxy(&h, lo) && t_tool_is_proxy(&h, hi));
	low_then_high(&h, lo, hi);

	js = t_proc_stats(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(js);
	CU_ASSERT(has(js, "\"lv3_mechanism\":\"update_queue\""));
	/* A named profile that is not there: said, and Lv3 decided without it. */
	CU_ASSERT(has(js, "\"gpu_profile\":{\"path\":\"/nonexistent/hsaqm-profile\","
			  "\"state\":\"absent\"}"));
	free(js);
	stats_of(&p, "low", obj, sizeof(obj));
	CU_ASSERT(has(obj, "\"effective_level\":\"lv3\""));
	CU_ASSERT(has(obj, "\"mechanism\":\"update_queue\""));
	CU_ASSERT(has(obj, "(asked for)"));
	CU_ASSERT(json_u64(obj, "preemptions") >= 1 && json_u64(obj, "preemptions") != ~0ull);
	CU_ASSERT(has(obj, "\"confined\":false"));

	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(hi), HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(lo), HSAQM_HSA_STATUS_SUCCESS);
	t_proc_unbind(&p);
	t_tool_close(&h, env);
}

/* The model's gpu_id for t_fill_cfg (a function of the configuration: sim/sysfs.c). */
static uint32_t model_gpu_id(void)
{
	struct hsaqm_sim *s = NULL;
	uint32_t id;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&t_fill_cfg, &s), 0);
	id = sim_kfd_gpu_id(s, 0);
	hsaqm_sim_destroy(s);
	return id;
}

static void test_the_gpu_profile_moves_a_gpu_to_update_queue(void)
{
	char path[] = "/tmp/hsaqm-test-profile-XXXXXX", setting[128], obj[4096], *js;
	const char *env[] = { "HSAQM_LEVEL=3", setting, NULL };
	struct t_hsa h;
	struct t_proc p;
	struct hsaqm_hsa_queue *lo, *hi;
	uint32_t id = model_gpu_id();
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "# written by test-tool-mech\nhsaqm-gpu-profile 1\n"
		   "gpu 0x%x dbg_trap not_supported 0 0\n"
		   "gpu 0x%x update_queue supported 140000 60000\n", id, id);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	snprintf(setting, sizeof(setting), "HSAQM_GPU_PROFILE=%s", path);

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), env, &t_fill_cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	lo = t_hsa_queue(&h, 64, HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW);
	hi = t_hsa_queue(&h, 64, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	CU_ASSERT_FATAL(lo && hi && t_tool_is_proxy(&h, lo));
	low_then_high(&h, lo, hi);
	js = t_proc_stats(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(js);
	CU_ASSERT(has(js, "\"state\":\"loaded\""));
	CU_ASSERT(has(js, "\"lv3_mechanism\":\"auto\""));
	free(js);
	stats_of(&p, "low", obj, sizeof(obj));
	CU_ASSERT(has(obj, "\"effective_level\":\"lv3\""));
	CU_ASSERT(has(obj, "\"mechanism\":\"update_queue\""));
	CU_ASSERT(has(obj, "UPDATE_QUEUE instead of DBG_TRAP"));
	CU_ASSERT(has(obj, "profile of this GPU says DBG_TRAP suspension does not work"));
	CU_ASSERT(json_u64(obj, "preemptions") >= 1 && json_u64(obj, "preemptions") != ~0ull);

	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(hi), HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(lo), HSAQM_HSA_STATUS_SUCCESS);
	t_proc_unbind(&p);
	t_tool_close(&h, env);
	unlink(path);
}

/*
 * The chain's end: no Lv3 mechanism (HSAQM_LV3_MECHANISM=none) -> Lv2, with spatial auto
 * confining the low queue while it is held; every CU back afterwards; every workgroup once.
 */
static void test_without_lv3_the_tool_runs_lv2_with_spatial(void)
{
	static const char *const env[] = { "HSAQM_LEVEL=3", "HSAQM_LV3_MECHANISM=none",
					    "HSAQM_SPATIAL=auto", "HSAQM_GPU_PROFILE=", NULL };
	struct t_hsa h;
	struct t_proc p;
	struct hsaqm_hsa_queue *lo, *hi;
	char obj[4096];
	uint64_t end;

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), env, &t_fill_cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	lo = t_hsa_queue(&h, 64, HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW);
	hi = t_hsa_queue(&h, 64, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	CU_ASSERT_FATAL(lo && hi && t_tool_is_proxy(&h, lo));
	low_then_high(&h, lo, hi);
	/* Unconfined once lib saw the high queue idle (its marker handler, a moment later). */
	end = t_mono_ns() + 5 * T_S;
	do {
		stats_of(&p, "low", obj, sizeof(obj));
		if (strstr(obj, "\"confined\":false"))
			break;
		t_sleep_us(1000);
	} while (t_mono_ns() < end);
	CU_ASSERT(has(obj, "\"requested_level\":\"lv3\",\"effective_level\":\"lv2\""));
	CU_ASSERT(has(obj, "\"mechanism\":\"gate\""));
	CU_ASSERT(has(obj, "spatial dynamic"));
	CU_ASSERT(has(obj, "\"spatial\":\"auto\""));
	CU_ASSERT(has(obj, "\"confined\":false"));
	CU_ASSERT(json_u64(obj, "confinements") >= 1 && json_u64(obj, "confinements") != ~0ull);
	CU_ASSERT_EQUAL(mask0(&h, lo), 0xffffffffu);

	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(hi), HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(lo), HSAQM_HSA_STATUS_SUCCESS);
	t_proc_unbind(&p);
	t_tool_close(&h, env);
}

/*
 * HSAQM_SPATIAL=static: a reservation for the queues above the default priority. The low and
 * normal queues lose the first 20 of the 80 CUs at once; the high one keeps them all; the
 * normal queue raised to high gets them back.
 */
static void test_static_spatial_reserves_cus_for_the_high_queues(void)
{
	static const char *const env[] = { "HSAQM_LEVEL=2", "HSAQM_SPATIAL=static:250", NULL };
	struct t_hsa h;
	struct t_proc p;
	struct hsaqm_hsa_queue *lo, *no, *hi;
	char obj[4096];

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), env, &t_fill_cfg), 0);
	CU_ASSERT_EQUAL_FATAL(t_proc_bind(&p), 0);
	lo = t_hsa_queue(&h, 64, HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW);
	no = t_hsa_queue(&h, 64, HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	hi = t_hsa_queue(&h, 64, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	CU_ASSERT_FATAL(lo && no && hi && t_tool_is_proxy(&h, lo));
	stats_of(&p, "low", obj, sizeof(obj));
	CU_ASSERT(has(obj, "\"spatial\":\"static\""));
	CU_ASSERT(has(obj, "\"cu_reserve_permille\":250"));
	CU_ASSERT(has(obj, "\"confined\":true"));
	stats_of(&p, "high", obj, sizeof(obj));
	CU_ASSERT(has(obj, "\"spatial\":\"off\""));
	CU_ASSERT(has(obj, "\"confined\":false"));
	CU_ASSERT_EQUAL(mask0(&h, lo), 0xfff00000u);
	CU_ASSERT_EQUAL(mask0(&h, no), 0xfff00000u);
	CU_ASSERT_EQUAL(mask0(&h, hi), 0xffffffffu);
	/* The work still runs (on the CUs left to it), every workgroup once. */
	low_then_high(&h, lo, hi);

	CU_ASSERT_EQUAL(h.amd->hsa_amd_queue_set_priority_fn(no, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH),
			HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(mask0(&h, no), 0xffffffffu);
	CU_ASSERT_EQUAL(mask0(&h, lo), 0xfff00000u);

	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(hi), HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(no), HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(lo), HSAQM_HSA_STATUS_SUCCESS);
	t_proc_unbind(&p);
	t_tool_close(&h, env);
}

static const struct t_case cases[] = {
	T_CASE(test_the_variables_syntax),
	T_CASE(test_update_queue_asked_by_the_environment),
	T_CASE(test_the_gpu_profile_moves_a_gpu_to_update_queue),
	T_CASE(test_without_lv3_the_tool_runs_lv2_with_spatial),
	T_CASE(test_static_spatial_reserves_cus_for_the_high_queues),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "tool-mech", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	if (!t_tool_path())
		return t_skip("tool-mech", "HSAQM_TEST_TOOL_LIB is not set (run through meson test)");
	return t_run("tool-mech", suites);
}
