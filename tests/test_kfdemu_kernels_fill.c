/* SPDX-License-Identifier: MIT */
/*
 * The emulated /dev/kfd performs ROCclr's fill blits (v0 to v3, and 2D) exactly as their sources
 * define, work-item by work-item.
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

/* ROCm 6.4/7.2 fillBufferAligned, one work-item at a time. */
static void ref_fill_v2(struct t_mem *m, uint64_t buf, uint64_t pat, uint32_t ps, uint32_t al,
			uint64_t end_ptr, uint32_t nc, uint32_t grid)
{
	uint32_t es = al == 16 ? 16 : al == 8 ? 8 : al == 4 ? 4 : al == 2 ? 2 : 1;

	for (uint64_t id = 0; id < grid; id++)
		for (uint64_t el = buf + id * ps * es; el < end_ptr; el += (uint64_t)nc * es)
			for (uint32_t i = 0; i < ps; ++i)
				memcpy(t_hp(m, el + i * es), t_hp(m, pat + i * es), es);
}

static void test_effect_fill_v2_v3_match_the_kernel(void)
{
	for (unsigned int v = 1; v <= 2; v++) {
		struct kfdemu_co_kernel k;
		struct kfdemu_effect e;

		t_kernel(v, "__amd_rocclr_fillBufferAligned", &k, &e);
		for (unsigned int trial = 0; trial < 300; trial++) {
			struct t_mem a, b;
			uint8_t ka[256] = { 0 };

			t_mem_pair(&a, &b);
			static const uint32_t als[] = { 1, 2, 4, 8, 16 };
			uint32_t al = als[t_rnd() % 5], ps = (uint32_t)t_rnd_in(1, 4);
			uint64_t buf = T_BASE + T_SIZE / 2 + al * t_rnd_in(0, 64);
			uint64_t pat = T_BASE + 16 * t_rnd_in(0, 64);
			uint64_t blocks = t_rnd_in(0, 400), end_ptr = buf + blocks * ps * al;
			uint32_t grid = (uint32_t)t_rnd_in(1, 600), nc = grid * ps;

			if (trial % 3 == 1)
				nc = ps * (uint32_t)t_rnd_in(1, 700); /* stride unlike the grid */
			t_put(ka, &e, 0, buf, 8);
			t_put(ka, &e, 1, pat, 8);
			t_put(ka, &e, 2, ps, 4);
			t_put(ka, &e, 3, al, 4);
			t_put(ka, &e, 4, end_ptr, 8);
			t_put(ka, &e, 5, nc, 4);
			if (v == 2)
				t_put(ka, &e, 6, 256, 4);
			struct kfdemu_geom g = t_geom1(grid, 256);

			CU_ASSERT_EQUAL(kfdemu_effect_run(&e, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a),
					0);
			ref_fill_v2(&b, buf, pat, ps, al, end_ptr, nc, grid);
			CU_ASSERT_EQUAL(memcmp(a.host, b.host, T_SIZE), 0);
			t_mem_free(&a, &b);
		}
	}
}

/* ROCm 5.2/6.1 fillBufferAligned and the older fillBuffer, one work-item at a time. */
static void test_effect_fill_v0_v1_match_the_kernels(void)
{
	struct kfdemu_co_kernel k;
	struct kfdemu_effect e0, e1;

	t_kernel(0, "__amd_rocclr_fillBuffer", &k, &e0);
	t_kernel(0, "__amd_rocclr_fillBufferAligned", &k, &e1);
	for (unsigned int trial = 0; trial < 300; trial++) {
		struct t_mem a, b;
		uint8_t ka[256] = { 0 };

		t_mem_pair(&a, &b);
		bool v0 = trial & 1;
		const struct kfdemu_effect *e = v0 ? &e0 : &e1;
		unsigned int nbufs = v0 ? 2 : 4, which = (unsigned int)(t_rnd() % nbufs);
		static const uint32_t w0[2] = { 1, 4 }, w1[4] = { 1, 2, 4, 8 };
		uint32_t es = v0 ? w0[which] : w1[which], ps = (uint32_t)t_rnd_in(1, 4);
		uint64_t buf = T_BASE + T_SIZE / 2, pat = T_BASE + 8 * t_rnd_in(0, 64);
		uint64_t off = t_rnd_in(0, 100), size = t_rnd_in(0, 600);
		uint32_t grid = (uint32_t)t_rnd_in(1, 700);

		/* The chosen buffer and, as ROCclr passes them, null for the others. */
		t_put(ka, e, which, buf, 8);
		t_put(ka, e, nbufs, pat, 8);
		t_put(ka, e, nbufs + 1, ps, 4);
		t_put(ka, e, nbufs + 2, off, 8);
		t_put(ka, e, nbufs + 3, size, 8);
		struct kfdemu_geom g = t_geom1(grid, 256);

		CU_ASSERT_EQUAL(kfdemu_effect_run(e, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a), 0);
		for (uint64_t id = 0; id < grid && id < size; id++)
			for (uint32_t i = 0; i < ps; i++)
				memcpy(t_hp(&b, buf + (off + id * ps + i) * es), t_hp(&b, pat + i * es), es);
		CU_ASSERT_EQUAL(memcmp(a.host, b.host, T_SIZE), 0);
		t_mem_free(&a, &b);
	}
}

static void test_effect_fill_2d_matches_the_kernel(void)
{
	struct kfdemu_co_kernel k;
	struct kfdemu_effect e;

	t_kernel(0, "__amd_rocclr_fillBufferAligned2D", &k, &e);
	for (unsigned int trial = 0; trial < 300; trial++) {
		struct t_mem a, b;
		uint8_t ka[256] = { 0 };

		t_mem_pair(&a, &b);
		unsigned int which = (unsigned int)(t_rnd() % 4);
		static const uint32_t w[4] = { 1, 2, 4, 8 };
		uint32_t es = w[which];
		/* ROCclr divides the pattern into one element: 1; 2 shows the lockstep order. */
		uint32_t ps = trial % 5 == 4 ? 2 : 1;
		uint64_t buf = T_BASE + T_SIZE / 2, pat = T_BASE + 8 * t_rnd_in(0, 64);
		uint64_t width = t_rnd_in(1, 60), height = t_rnd_in(1, 20), pitch = width + t_rnd_in(0, 20);
		uint64_t origin = t_rnd_in(0, 50);
		struct kfdemu_geom g = {
			.grid = { (uint32_t)t_rnd_in(1, 80), (uint32_t)t_rnd_in(1, 32), 1 },
			.wg = { 16, 16, 1 },
		};

		t_put(ka, &e, which, buf, 8);
		t_put(ka, &e, 4, pat, 8);
		t_put(ka, &e, 5, ps, 4);
		t_put(ka, &e, 6, origin, 8);
		t_put(ka, &e, 7, width, 8);
		t_put(ka, &e, 8, height, 8);
		t_put(ka, &e, 9, pitch, 8);
		CU_ASSERT_EQUAL(kfdemu_effect_run(&e, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a), 0);
		/* Each row's lanes store pattern element i together, i ascending. */
		for (uint64_t y = 0; y < g.grid[1] && y < height; y++)
			for (uint32_t i = 0; i < ps; i++)
				for (uint64_t x = 0; x < g.grid[0] && x < width; x++)
					memcpy(t_hp(&b, buf + (origin + y * pitch + x + i) * es),
					       t_hp(&b, pat + i * es), es);
		CU_ASSERT_EQUAL(memcmp(a.host, b.host, T_SIZE), 0);
		t_mem_free(&a, &b);
	}
}

static const struct t_case cases[] = {
	T_CASE(test_effect_fill_v2_v3_match_the_kernel),
	T_CASE(test_effect_fill_v0_v1_match_the_kernels),
	T_CASE(test_effect_fill_2d_matches_the_kernel),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "kfdemu-kernels-fill", NULL, NULL, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (argc != 5 || !*argv[1] || !*argv[4])
		return t_skip("test-kfdemu-kernels-fill",
			      "no AMDGPU clang at build time: no code objects to read");
	for (int i = 0; i < 4; i++)
		t_co_path[i] = argv[i + 1];
	return t_run("test-kfdemu-kernels-fill", suites);
}
