/* SPDX-License-Identifier: MIT */
/*
 * t_cunit.h - the runner every hsaqm CUnit test binary uses.
 *
 * Exit codes follow the automake/meson convention: 0 all passed, 1 a failure (any failed
 * assertion, not only a registry error: CU_get_error() alone would hide them), 77 skipped
 * because the binary needs something absent (an AMD GPU).
 */
#ifndef T_CUNIT_H
#define T_CUNIT_H

#include <CUnit/CUnit.h>

#define T_EXIT_PASS 0
#define T_EXIT_FAIL 1
#define T_EXIT_SKIP 77

struct t_case {
	const char *name;
	void (*fn)(void);
};

struct t_suite {
	const char *name;
	int (*init)(void);
	int (*clean)(void);
	const struct t_case *cases; /* ends with { NULL, NULL } */
};

#define T_CASE(fn) { #fn, fn }
#define T_CASES_END { NULL, NULL }
#define T_SUITES_END { NULL, NULL, NULL, NULL }

/*
 * Run every suite (or, when the environment names T_FILTER, only cases whose
 * name contains it). Returns the exit code for main().
 */
int t_run(const char *area, const struct t_suite *suites);

/* Print why a binary skips and return T_EXIT_SKIP (for main() to return). */
int t_skip(const char *area, const char *why);

#endif /* T_CUNIT_H */
