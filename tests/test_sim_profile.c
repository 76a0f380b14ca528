/* SPDX-License-Identifier: MIT */
/* The model's profile: read from the real MI308X capture, every constant with its source. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_internal.h"
#include "t_cunit.h"

static char fixture[4096];

static const char *fixture_path(void)
{
	const char *dir = getenv("HSAQM_FIXTURES");

	if (!dir) {
		fprintf(stderr, "HSAQM_FIXTURES is not set (meson test sets it to tests/fixtures)\n");
		exit(1);
	}
	snprintf(fixture, sizeof(fixture), "%s/mi308x-sr18/node2.properties", dir);
	return fixture;
}

static void test_profile_reads_mi308x_capture(void)
{
	struct sim_profile p;

	CU_ASSERT_EQUAL_FATAL(sim_profile_load(&p, fixture_path(), NULL), 0);
	CU_ASSERT_EQUAL(p.gfx_target_version, 90402);
	CU_ASSERT_EQUAL(p.device_id, 0x74a2);
	CU_ASSERT_EQUAL(p.cu_count, 80);
	CU_ASSERT_EQUAL(p.num_xcc, 4);
	CU_ASSERT_EQUAL(p.simd_per_cu, 4);
	CU_ASSERT_EQUAL(p.max_waves_per_simd, 8);
	CU_ASSERT_EQUAL(p.wave_front_size, 64);
	CU_ASSERT_EQUAL(p.max_engine_clk_mhz, 1420);
	CU_ASSERT_EQUAL(p.num_cp_queues, 24);
	CU_ASSERT_EQUAL(p.capability, 0x2c77a280u);
	CU_ASSERT_EQUAL(p.fw_version, 165);
}

static void test_profile_builtin_matches_fixture_file(void)
{
	struct sim_profile builtin, captured;
	char text[4096];

	CU_ASSERT_EQUAL_FATAL(sim_profile_load(&builtin, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(sim_profile_load(&captured, fixture_path(), NULL), 0);
	FILE *f = fopen(fixture_path(), "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	/* The built-in copy is the capture, byte for byte. */
	CU_ASSERT_STRING_EQUAL(builtin.properties_text, text);
	CU_ASSERT_EQUAL(builtin.cu_count, captured.cu_count);
}

static void test_profile_every_constant_names_a_source(void)
{
	struct sim_profile p;

	CU_ASSERT_EQUAL_FATAL(sim_profile_load(&p, NULL, NULL), 0);
	CU_ASSERT(p.nconsts >= 15);
	for (unsigned int i = 0; i < p.nconsts; i++) {
		const char *s = p.consts[i].source;
		CU_ASSERT(!strncmp(s, "captured:", 9) || !strncmp(s, "source:", 7) ||
			  !strncmp(s, "assumption", 10));
	}
	CU_ASSERT_EQUAL(p.hqd_slots, 24);
}

static void test_profile_timing_file_overrides_with_its_source(void)
{
	struct sim_profile p;
	char path[] = "/tmp/hsaqm-timing-XXXXXX";
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	const char *text = "# measured by hsa-queue-probe\n"
			   "cwsr_save_ns_per_wave 2500  # measured: probe on host x\n"
			   "hws_quantum_ns 5000000\n";
	CU_ASSERT_EQUAL((size_t)write(fd, text, strlen(text)), strlen(text));
	close(fd);
	CU_ASSERT_EQUAL_FATAL(sim_profile_load(&p, NULL, path), 0);
	CU_ASSERT_EQUAL(p.cwsr_save_ns_per_wave, 2500);
	CU_ASSERT_EQUAL(p.hws_quantum_ns, 5000000);
	int found = 0;
	for (unsigned int i = 0; i < p.nconsts; i++)
		if (!strcmp(p.consts[i].name, "cwsr_save_ns_per_wave"))
			found = strstr(p.consts[i].source, "measured: probe on host x") != NULL;
	CU_ASSERT(found);
	unlink(path);
}

static void test_profile_default_grace_is_a_dumped_assumption_a_timing_file_may_change(void)
{
	struct sim_profile p;
	char path[] = "/tmp/hsaqm-timing-XXXXXX";
	char buf[4096] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	int fd;

	CU_ASSERT_EQUAL_FATAL(sim_profile_load(&p, NULL, NULL), 0);
	CU_ASSERT_EQUAL(p.hws_default_grace_units, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	sim_profile_dump(&p, f);
	fclose(f);
	const char *line = strstr(buf, "hws_default_grace_units");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "# assumption"));

	/* Overridden by name; 0xffffffff ("use the default" in the uapi) and 2^32 are refused. */
	const char *texts[3] = { "hws_default_grace_units 7\n",
				 "hws_default_grace_units 0xffffffff\n",
				 "hws_default_grace_units 4294967296\n" };
	const int want[3] = { 0, -EINVAL, -EINVAL };
	for (int i = 0; i < 3; i++) {
		strcpy(path, "/tmp/hsaqm-timing-XXXXXX");
		fd = mkstemp(path);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_EQUAL((size_t)write(fd, texts[i], strlen(texts[i])), strlen(texts[i]));
		close(fd);
		CU_ASSERT_EQUAL(sim_profile_load(&p, NULL, path), want[i]);
		if (!want[i])
			CU_ASSERT_EQUAL(p.hws_default_grace_units, 7);
		unlink(path);
	}
}

static void test_profile_rejects_bad_files(void)
{
	struct sim_profile p;
	char path[] = "/tmp/hsaqm-timing-XXXXXX";
	int fd = mkstemp(path);

	CU_ASSERT_EQUAL(sim_profile_load(&p, "/nonexistent/properties", NULL), -ENOENT);
	CU_ASSERT_EQUAL(sim_profile_parse_properties(&p, "cpu_cores_count 64\nsimd_count 0\n"), -EINVAL);
	CU_ASSERT_EQUAL(sim_profile_parse_properties(&p, "simd_count three\n"), -EINVAL);
	CU_ASSERT_EQUAL(sim_profile_load(NULL, NULL, NULL), -EINVAL);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, "no_such_constant 5\n", 19) == 19);
	close(fd);
	CU_ASSERT_EQUAL(sim_profile_load(&p, NULL, path), -EINVAL);
	unlink(path);
}

static const struct t_case cases[] = {
	T_CASE(test_profile_reads_mi308x_capture),
	T_CASE(test_profile_builtin_matches_fixture_file),
	T_CASE(test_profile_every_constant_names_a_source),
	T_CASE(test_profile_timing_file_overrides_with_its_source),
	T_CASE(test_profile_default_grace_is_a_dumped_assumption_a_timing_file_may_change),
	T_CASE(test_profile_rejects_bad_files),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-profile", NULL, NULL, cases }, T_SUITES_END };
	return t_run("test-sim-profile", suites);
}
