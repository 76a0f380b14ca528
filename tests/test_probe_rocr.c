/* SPDX-License-Identifier: MIT */
/*
 * hsa-queue-probe on real ROCr (tools/probe/hsa_rt.c): the root table the probe builds from
 * the installed libhsa-runtime64 holds ROCr's own functions in the slots the probe and lib's
 * HSA backend read (the same code reads the model's table), the backend accepts it, and on a
 * machine with an AMD GPU the Lv1/Lv2 checks run on ROCr through it and say "supported".
 * Without ROCm, or without a GPU, the binary says why and exits 77 (skipped) after the table
 * checks that need no GPU.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hsaqm-hsa/api_table.h"
#include "hsaqm-hsa/hsa_backend.h"
#include "probe.h"
#include "probe_internal.h"
#include "t_cunit.h"

static struct probe_rocr *rocr;
static void *root;
static char why[256];

/* The same library, looked up by name: what the table's slots must hold. */
static void *rocr_sym(const char *name)
{
	void *dl = dlopen("libhsa-runtime64.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	void *p;

	if (!dl)
		dl = dlopen("libhsa-runtime64.so", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!dl)
		dl = dlopen("/opt/rocm/lib/libhsa-runtime64.so.1",
			    RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!dl)
		return NULL;
	p = dlsym(dl, name);
	dlclose(dl); /* the probe's reference keeps it loaded */
	return p;
}

static void test_rocr_table_holds_rocr_functions_where_the_probe_reads_them(void)
{
	struct probe_hsa h;

	CU_ASSERT_EQUAL_FATAL(probe_hsa_from_table(&h, root, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(h.layout.id, HSAQM_API_LAYOUT_ROCM_6_1);
	CU_ASSERT_PTR_EQUAL((void *)h.init, rocr_sym("hsa_init"));
	CU_ASSERT_PTR_EQUAL((void *)h.queue_create, rocr_sym("hsa_queue_create"));
	CU_ASSERT_PTR_EQUAL((void *)h.signal_load, rocr_sym("hsa_signal_load_scacquire"));
	CU_ASSERT_PTR_EQUAL((void *)h.system_get_info, rocr_sym("hsa_system_get_info"));
	CU_ASSERT_PTR_EQUAL((void *)h.memory_allocate, rocr_sym("hsa_memory_allocate"));
	/* Lv1/Lv2 read each kernel's launch and end through it. */
	CU_ASSERT_PTR_NOT_NULL(h.get_dispatch_time);
	CU_ASSERT_PTR_EQUAL((void *)h.get_dispatch_time,
			    rocr_sym("hsa_amd_profiling_get_dispatch_time"));
	CU_ASSERT_PTR_EQUAL((void *)h.reader_from_memory,
			    rocr_sym("hsa_code_object_reader_create_from_memory"));
}

static void test_hsa_backend_accepts_the_rocr_table(void)
{
	struct hsaqm_hsa_runtime rt;

	/* What hsaqm_hsa_runtime_init copies is what ROCr exports under those names. */
	CU_ASSERT_EQUAL_FATAL(hsaqm_hsa_runtime_init(&rt, root, 0, NULL), 0);
	CU_ASSERT_PTR_EQUAL((void *)rt.queue_create, rocr_sym("hsa_queue_create"));
	CU_ASSERT_PTR_EQUAL((void *)rt.queue_destroy, rocr_sym("hsa_queue_destroy"));
	CU_ASSERT_PTR_EQUAL((void *)rt.signal_store_screlease,
			    rocr_sym("hsa_signal_store_screlease"));
	CU_ASSERT_PTR_EQUAL((void *)rt.amd_signal_async_handler,
			    rocr_sym("hsa_amd_signal_async_handler"));
	CU_ASSERT_PTR_EQUAL((void *)rt.amd_profiling_set_profiler_enabled,
			    rocr_sym("hsa_amd_profiling_set_profiler_enabled"));
	hsaqm_hsa_runtime_fini(&rt);
}

/* On a GPU: the probe's Lv1/Lv2 on ROCr through that table, as the executable runs them. */
static void test_lv1_lv2_run_on_rocr(void)
{
	struct hsaqm_probe_options o = { .device = 0, .quick = true, .trials = 3,
					 .checks = (1u << HSAQM_PROBE_CHECK_LV1) |
						   (1u << HSAQM_PROBE_CHECK_LV2) };
	struct hsaqm_probe_env env;
	struct hsaqm_probe_report *r = NULL;

	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_env_system(&env), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_probe_run(&o, &env, &r), 0);
	CU_ASSERT_FALSE(r->is_model);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->hsa_runtime, "ROCr"));
	for (int id = HSAQM_PROBE_CHECK_LV1; id <= HSAQM_PROBE_CHECK_LV2; id++) {
		const struct hsaqm_probe_check *k = &r->gpus[0].checks[id];

		if (k->verdict != HSAQM_PROBE_SUPPORTED)
			fprintf(stderr, "%s: %s (%s): %s\n", hsaqm_probe_check_name(id),
				hsaqm_probe_verdict_name(k->verdict), k->reason_code, k->reason);
		CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_SUPPORTED);
		CU_ASSERT_PTR_NOT_NULL(probe_find_figure(k, "drain"));
	}
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_HARDWARE);
	hsaqm_probe_report_free(r);
}

int main(void)
{
	static const struct t_case table[] = {
		T_CASE(test_rocr_table_holds_rocr_functions_where_the_probe_reads_them),
		T_CASE(test_hsa_backend_accepts_the_rocr_table),
		T_CASES_END,
	};
	static const struct t_case gpu[] = {
		T_CASE(test_lv1_lv2_run_on_rocr),
		T_CASES_END,
	};
	static const struct t_suite table_suite[] = {
		{ "probe-rocr-table", NULL, NULL, table },
		T_SUITES_END,
	};
	static const struct t_suite gpu_suite[] = {
		{ "probe-rocr-gpu", NULL, NULL, gpu },
		T_SUITES_END,
	};
	char path[256];
	int rc;

	if (probe_rocr_load(&rocr, &root, path, sizeof(path), why, sizeof(why)))
		return t_skip("probe-rocr", why);
	rc = t_run("probe-rocr", table_suite);
	/* Lv1/Lv2 need the GPU: ROCr's hsa_init is not even tried without /dev/kfd. */
	if (rc == T_EXIT_PASS && access("/dev/kfd", R_OK | W_OK) != 0)
		rc = t_skip("probe-rocr", "no AMD GPU here (/dev/kfd): the table checks passed, "
			    "Lv1/Lv2 on ROCr not run");
	else if (rc == T_EXIT_PASS)
		rc = t_run("probe-rocr", gpu_suite);
	probe_rocr_unload(rocr);
	return rc;
}
