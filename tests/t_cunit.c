/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "t_cunit.h"

int t_skip(const char *area, const char *why)
{
	printf("%s: skipped: %s\n", area, why);
	return T_EXIT_SKIP;
}

int t_run(const char *area, const struct t_suite *suites)
{
	const char *filter = getenv("T_FILTER");
	unsigned int failures, run;

	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "%s: CUnit registry: %s\n", area, CU_get_error_msg());
		return T_EXIT_FAIL;
	}
	for (const struct t_suite *s = suites; s->name; s++) {
		CU_pSuite suite = CU_add_suite(s->name, s->init, s->clean);

		if (!suite)
			goto registry_error;
		for (const struct t_case *c = s->cases; c->name; c++) {
			if (filter && *filter && !strstr(c->name, filter))
				continue;
			if (!CU_add_test(suite, c->name, c->fn))
				goto registry_error;
		}
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS)
		goto registry_error;

	failures = CU_get_number_of_failures();
	run = CU_get_number_of_tests_run();
	/* A suite whose init failed runs none of its tests: that is a failure too. */
	failures += CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	printf("%s: %u tests run, %u failures\n", area, run, failures);
	if (failures)
		return T_EXIT_FAIL;
	if (run == 0) {
		printf("%s: no test ran (T_FILTER=%s)\n", area, filter ? filter : "");
		return T_EXIT_FAIL;
	}
	return T_EXIT_PASS;

registry_error:
	fprintf(stderr, "%s: CUnit: %s\n", area, CU_get_error_msg());
	CU_cleanup_registry();
	return T_EXIT_FAIL;
}
