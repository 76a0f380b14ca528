/* SPDX-License-Identifier: MIT */
/*
 * The emulated /dev/kfd performs the probe kernel as its source defines (each workgroup's LCG,
 * a duration proportional to its iterations), writes nothing outside memory, and covers the
 * arguments with an unknown grid.
 *
 * Arguments: the code objects tests/meson.build builds (t_kfdemu_co.h). Exits 77 when the build
 * had no AMDGPU clang.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfdemu_internal.h"
#include "t_cunit.h"
#include "t_kfdemu_co.h"

/* A range outside the process's memory: nothing is written, -EFAULT. */
static void test_effect_outside_memory_writes_nothing(void)
{
	struct kfdemu_co_kernel k;
	struct kfdemu_effect e;
	struct t_mem a, b;
	uint8_t ka[256] = { 0 };

	t_kernel(1, "__amd_rocclr_copyBuffer", &k, &e);
	t_mem_pair(&a, &b);
	uint64_t dst = T_BASE + T_SIZE - 64; /* 256 bytes from 64 before the end */

	t_put(ka, &e, 0, T_BASE, 8);
	t_put(ka, &e, 1, dst, 8);
	t_put(ka, &e, 2, 256, 8);
	t_put(ka, &e, 3, 0, 4);
	t_put(ka, &e, 4, 16, 4);
	t_put(ka, &e, 5, dst + 256, 8);
	t_put(ka, &e, 6, 512, 4);
	struct kfdemu_geom g = t_geom1(512, 512);

	CU_ASSERT_EQUAL(kfdemu_effect_run(&e, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a), -EFAULT);
	CU_ASSERT_EQUAL(memcmp(a.host, b.host, T_SIZE), 0);
	/* An end pointer that wraps the address space: refused, not a giant copy. */
	t_put(ka, &e, 1, T_BASE + T_SIZE / 2, 8);
	t_put(ka, &e, 5, UINT64_MAX, 8);
	CU_ASSERT(kfdemu_effect_run(&e, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a) < 0);
	CU_ASSERT_EQUAL(memcmp(a.host, b.host, T_SIZE), 0);
	t_mem_free(&a, &b);
}

/* The shape unknown (the front's older call): what the arguments describe is all done. */
static void test_effect_unknown_grid_covers_the_arguments(void)
{
	struct kfdemu_co_kernel k;
	struct kfdemu_effect e;
	struct t_mem a, b;
	uint8_t ka[256] = { 0 };

	t_kernel(1, "__amd_rocclr_copyBuffer", &k, &e);
	t_mem_pair(&a, &b);
	uint64_t src = T_BASE + 3, dst = T_BASE + T_SIZE / 2 + 5;

	/* 259 bytes, misaligned: 64 dwords, then a 3-byte tail; next_chunk 1024. */
	t_put(ka, &e, 0, src, 8);
	t_put(ka, &e, 1, dst, 8);
	t_put(ka, &e, 2, 259, 8);
	t_put(ka, &e, 3, 3, 4);
	t_put(ka, &e, 4, 4, 4);
	t_put(ka, &e, 5, dst + 256, 8);
	t_put(ka, &e, 6, 1024, 4);
	CU_ASSERT_EQUAL(kfdemu_effect_run(&e, ka, NULL, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a), 0);
	CU_ASSERT_EQUAL(memcmp(t_hp(&a, dst), t_hp(&a, src), 259), 0);
	CU_ASSERT_EQUAL(memcmp(t_hp(&a, dst + 259), t_hp(&b, dst + 259), 64), 0);
	t_mem_free(&a, &b);
}

/* ---- the probe kernel ---------------------------------------------------------------------- */

static uint32_t lcg_slow(uint32_t x, uint32_t n)
{
	while (n--)
		x = x * 1664525u + 1013904223u;
	return x;
}

static void test_effect_probe_writes_each_workgroups_lcg(void)
{
	struct kfdemu_co_kernel k;
	struct kfdemu_effect e;
	struct t_mem a, b;
	uint8_t ka[64] = { 0 };
	uint64_t out = T_BASE + 4096;

	t_kernel(3, "hsaqm_probe_spin", &k, &e);
	t_mem_pair(&a, &b);
	t_put(ka, &e, 0, out, 8);
	t_put(ka, &e, 1, 1000, 4);
	t_put(ka, &e, 2, 7, 4);
	t_put(ka, &e, 3, 64, 4);
	/* 5 workgroups of 64 with the last one partial: 300 work-items. */
	struct kfdemu_geom g = t_geom1(300, 64);

	/* Workgroup 2 only: out[128..191], nothing else. */
	CU_ASSERT_EQUAL(kfdemu_effect_run(&e, ka, &g, 2, t_xlate, &a), 0);
	for (uint32_t gid = 0; gid < 320; gid++) {
		uint32_t v, old;

		memcpy(&v, t_hp(&a, out + 4 * gid), 4);
		memcpy(&old, t_hp(&b, out + 4 * gid), 4);
		CU_ASSERT_EQUAL(v, gid >= 128 && gid < 192 ? lcg_slow(7 ^ gid, 1000) : old);
	}
	/* All of them: 300 values, not one past the grid. */
	CU_ASSERT_EQUAL(kfdemu_effect_run(&e, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a), 0);
	for (uint32_t gid = 0; gid < 320; gid++) {
		uint32_t v, old;

		memcpy(&v, t_hp(&a, out + 4 * gid), 4);
		memcpy(&old, t_hp(&b, out + 4 * gid), 4);
		CU_ASSERT_EQUAL(v, gid < 300 ? lcg_slow(7 ^ gid, 1000) : old);
	}
	t_mem_free(&a, &b);
	/* The jump agrees with stepping, and long kernels' values come from it. */
	CU_ASSERT_EQUAL(kfdemu_lcg_jump(12345, 0), 12345u);
	CU_ASSERT_EQUAL(kfdemu_lcg_jump(12345, 77777), lcg_slow(12345, 77777));
}

static void test_effect_probe_duration_is_proportional_to_iters(void)
{
	struct kfdemu_co_kernel k;
	struct kfdemu_effect e, copy;
	uint8_t ka[64] = { 0 };
	uint64_t ns;

	t_kernel(3, "hsaqm_probe_spin", &k, &e);
	t_put(ka, &e, 1, 1u << 16, 4);
	CU_ASSERT_TRUE_FATAL(kfdemu_effect_wg_ns(&e, ka, &ns));
	CU_ASSERT_EQUAL(ns, (1ull << 16) * KFDEMU_SPIN_STEP_NS);
	t_put(ka, &e, 1, 4000000000u, 4);
	CU_ASSERT_TRUE(kfdemu_effect_wg_ns(&e, ka, &ns));
	CU_ASSERT_EQUAL(ns, 4000000000ull * KFDEMU_SPIN_STEP_NS);
	t_put(ka, &e, 1, 0, 4);
	CU_ASSERT_TRUE(kfdemu_effect_wg_ns(&e, ka, &ns));
	CU_ASSERT_EQUAL(ns, 1u); /* a model kernel needs a length */
	/* A blit's length is the kernel table's. */
	t_kernel(1, "__amd_rocclr_copyBuffer", &k, &copy);
	CU_ASSERT_FALSE(kfdemu_effect_wg_ns(&copy, ka, &ns));
}

static const struct t_case cases[] = {
	T_CASE(test_effect_outside_memory_writes_nothing),
	T_CASE(test_effect_unknown_grid_covers_the_arguments),
	T_CASE(test_effect_probe_writes_each_workgroups_lcg),
	T_CASE(test_effect_probe_duration_is_proportional_to_iters),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "kfdemu-kernels-probe", NULL, NULL, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (argc != 5 || !*argv[1] || !*argv[4])
		return t_skip("test-kfdemu-kernels-probe",
			      "no AMDGPU clang at build time: no code objects to read");
	for (int i = 0; i < 4; i++)
		t_co_path[i] = argv[i + 1];
	return t_run("test-kfdemu-kernels-probe", suites);
}
