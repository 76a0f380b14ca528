/* SPDX-License-Identifier: MIT */
/*
 * The model's numeric settings follow hsaqm-common/text.h's one rule: HSAQM_SIM_ARENA_MB and
 * HSAQM_SIM_ENGINE_SPIN_US in the environment, hsaqm-simd's --time-scale on its command line
 * (argv[1] is the hsaqm-simd binary). A refused value is named in the message and the default
 * (or exit 2) follows; the values taken before are taken as before.
 *
 * Each value in a child process: the model says a refused setting once per process.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hsaqm-sim/sim.h"
#include "hsaqm-common/log.h"
#include "t_cunit.h"

static const char *simd_path;

/*
 * A real-time model made in a child with @var=@val (its engine thread reads the spin setting
 * as it starts); what the model said, then "alloc32=1" when 32 MiB of model memory could be
 * had, in @out. Returns the child's exit status.
 */
static int model_with(const char *var, const char *val, char *out, size_t len)
{
	FILE *f = tmpfile();
	int status = -1;
	size_t n;
	pid_t pid;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_REAL };
		struct hsaqm_sim *sim = NULL;

		setenv(var, val, 1);
		hsaqm_log_set_sink(f);
		if (hsaqm_sim_create(&cfg, &sim))
			_exit(3);
		fprintf(f, "alloc32=%d\n", hsaqm_sim_mem_alloc(sim, 32u << 20, 64) != NULL);
		hsaqm_sim_destroy(sim);
		fflush(f);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	rewind(f);
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Did the child name @val, quoted, in its message? */
static bool named(const char *out, const char *var, const char *val)
{
	char want[128];

	snprintf(want, sizeof(want), "%s=\"%s\"", var, val);
	if (!strstr(out, want))
		fprintf(stderr, "\nwant %s in: %s\n", want, out);
	return strstr(out, want) != NULL;
}

static void test_arena_mb_refuses_what_is_not_a_decimal_number_and_names_it(void)
{
	static const char *const bad[] = { " 64", "+64", "64 ", "64MB", "1e3", "nan", "-1", "0x40",
					   "15", "99999999999999999999" };
	char out[1024];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(model_with("HSAQM_SIM_ARENA_MB", bad[i], out, sizeof(out)), 0);
		CU_ASSERT(named(out, "HSAQM_SIM_ARENA_MB", bad[i]));
		/* The default (4 GiB) was used instead. */
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "alloc32=1"));
	}
}

static void test_arena_mb_takes_decimal_sizes_as_before(void)
{
	static const char *const small[] = { "16", "016" }; /* base 10: 016 was and is 16 */
	char out[1024];

	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
		CU_ASSERT_EQUAL(model_with("HSAQM_SIM_ARENA_MB", small[i], out, sizeof(out)), 0);
		CU_ASSERT_PTR_NULL(strstr(out, "HSAQM_SIM_ARENA_MB=\""));
		/* 16 MiB of model memory: 32 MiB do not fit (the model says its memory is full). */
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "alloc32=0"));
	}
	CU_ASSERT_EQUAL(model_with("HSAQM_SIM_ARENA_MB", "64", out, sizeof(out)), 0);
	CU_ASSERT_PTR_NULL(strstr(out, "HSAQM_SIM_ARENA_MB=\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "alloc32=1"));
}

static void test_engine_spin_us_refuses_what_is_not_a_decimal_number_and_names_it(void)
{
	static const char *const bad[] = { " 5", "+5", "5 ", "5us", "1e2", "nan", "-1", "0x10",
					   "1001" };
	static const char *const good[] = { "0", "500", "1000", "010" };
	char out[1024];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(model_with("HSAQM_SIM_ENGINE_SPIN_US", bad[i], out, sizeof(out)), 0);
		CU_ASSERT(named(out, "HSAQM_SIM_ENGINE_SPIN_US", bad[i]));
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		CU_ASSERT_EQUAL(model_with("HSAQM_SIM_ENGINE_SPIN_US", good[i], out, sizeof(out)), 0);
		CU_ASSERT_PTR_NULL(strstr(out, "HSAQM_SIM_ENGINE_SPIN_US=\""));
	}
}

/* hsaqm-simd -x @val -h: its exit status; what it wrote on stderr in @err. */
static int simd_time_scale(const char *val, char *err, size_t len)
{
	FILE *f = tmpfile();
	int status = -1;
	size_t n;
	pid_t pid;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		/* -h after -x: exit 0 once -x was taken, before any model or socket is made. */
		dup2(null, 1);
		dup2(fileno(f), 2);
		execl(simd_path, simd_path, "-x", val, "-h", (char *)NULL);
		_exit(127);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	rewind(f);
	n = fread(err, 1, len - 1, f);
	err[n] = '\0';
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_simd_time_scale_refuses_what_is_not_a_decimal_fraction_and_names_it(void)
{
	static const char *const bad[] = { " 2", "+2", "2 ", "2x", "1e999", "nan", "inf", "0x2",
					   "0", "-1", "" };
	char err[4096], want[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(simd_time_scale(bad[i], err, sizeof(err)), 2);
		snprintf(want, sizeof(want), "bad value \"%s\"", bad[i]);
		if (!strstr(err, want))
			fprintf(stderr, "\nwant %s in: %s\n", want, err);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	}
}

static void test_simd_time_scale_takes_fractions_as_before(void)
{
	static const char *const good[] = { "1", "2.5", ".5", "1e-3", "010" };
	char err[4096];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int rc = simd_time_scale(good[i], err, sizeof(err));

		if (rc)
			fprintf(stderr, "\n-x %s: exit %d: %s\n", good[i], rc, err);
		CU_ASSERT_EQUAL(rc, 0);
	}
}

static const struct t_case cases[] = {
	T_CASE(test_arena_mb_refuses_what_is_not_a_decimal_number_and_names_it),
	T_CASE(test_arena_mb_takes_decimal_sizes_as_before),
	T_CASE(test_engine_spin_us_refuses_what_is_not_a_decimal_number_and_names_it),
	T_CASE(test_simd_time_scale_refuses_what_is_not_a_decimal_fraction_and_names_it),
	T_CASE(test_simd_time_scale_takes_fractions_as_before),
	T_CASES_END,
};

int main(int argc, char **argv)
{
	static const struct t_suite suites[] = { { "sim-settings", NULL, NULL, cases },
						 T_SUITES_END };

	if (argc < 2) {
		fprintf(stderr, "usage: %s HSAQM_SIMD\n", argv[0]);
		return 1;
	}
	simd_path = argv[1];
	return t_run("test-sim-settings", suites);
}
