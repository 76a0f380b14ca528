/* SPDX-License-Identifier: MIT */
/*
 * The emulated /dev/kfd performs ROCclr's copy blits (v1, v2 and v3; aligned and rectangular)
 * exactly as their sources define, work-item by work-item.
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

static void put4(uint8_t *ka, const struct kfdemu_effect *e, unsigned int i, const uint64_t v[4])
{
	memcpy(ka + e->off[i], v, 32);
}

/* ---- the effects, against the kernel sources run work-item by work-item --------------------- */

/* ROCm 6.4/7.2 copyBuffer, one work-item at a time (blitcl.cpp). */
static void ref_copy_v2(struct t_mem *m, uint64_t src, uint64_t dst, uint64_t size,
			uint32_t remainder, uint32_t aligned_size, uint64_t end_ptr,
			uint32_t next_chunk, uint32_t grid)
{
	uint32_t es = aligned_size == 16 ? 16 : 4;

	for (uint64_t gid = 0; gid < grid; gid++) {
		uint64_t id = gid;

		while (dst + id * es < end_ptr) {
			memcpy(t_hp(m, dst + id * es), t_hp(m, src + id * es), es);
			id += next_chunk;
		}
		if (remainder && gid == 0)
			for (uint64_t i = size - remainder; i < size; ++i)
				*t_hp(m, dst + i) = *t_hp(m, src + i);
	}
}

static void test_effect_copy_v2_v3_match_the_kernel(void)
{
	for (unsigned int v = 1; v <= 2; v++) {
		struct kfdemu_co_kernel k;
		struct kfdemu_effect e;

		t_kernel(v, "__amd_rocclr_copyBuffer", &k, &e);
		for (unsigned int trial = 0; trial < 300; trial++) {
			struct t_mem a, b;
			uint8_t ka[256] = { 0 };

			t_mem_pair(&a, &b);
			/* Source in the first half, destination in the second: no overlap. */
			uint64_t src = T_BASE + t_rnd_in(0, 1000), dst = T_BASE + T_SIZE / 2 + t_rnd_in(0, 1000);
			uint64_t size = t_rnd_in(0, 5000);
			bool aligned = t_rnd() & 1;
			uint32_t es = aligned ? 16 : 4, rem = (uint32_t)(size % es);
			uint64_t end_ptr = dst + size - rem;
			uint32_t units = (uint32_t)(size / es + (rem != 0));
			/* ROCclr: grid = units rounded up to the workgroup, next_chunk = grid. */
			uint16_t wg = aligned ? 512 : 1024;
			uint32_t grid = (units + wg - 1) / wg * wg, nc = grid;

			if (trial % 3 == 1)
				nc = (uint32_t)t_rnd_in(1, 300); /* a grid-stride loop */
			if (trial % 3 == 2)
				grid = (uint32_t)t_rnd_in(1, 300); /* fewer work-items: holes */
			if (!grid)
				grid = 1;
			t_put(ka, &e, 0, src, 8);
			t_put(ka, &e, 1, dst, 8);
			t_put(ka, &e, 2, size, 8);
			t_put(ka, &e, 3, rem, 4);
			t_put(ka, &e, 4, es, 4);
			t_put(ka, &e, 5, end_ptr, 8);
			t_put(ka, &e, 6, nc, 4);
			if (v == 2)
				t_put(ka, &e, 7, wg, 4);
			struct kfdemu_geom g = t_geom1(grid, wg);

			CU_ASSERT_EQUAL(kfdemu_effect_run(&e, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a),
					0);
			ref_copy_v2(&b, src, dst, size, rem, es, end_ptr, nc, grid);
			CU_ASSERT_EQUAL(memcmp(a.host, b.host, T_SIZE), 0);
			t_mem_free(&a, &b);
		}
	}
}

/* ROCm 5.2/6.1 copyBuffer (amdblit.cl __amd_copyBuffer), one work-item at a time. */
static void ref_copy_v1(struct t_mem *m, uint64_t srcI, uint64_t dstI, uint64_t so, uint64_t dof,
			uint64_t size, uint32_t remain, uint32_t grid)
{
	for (uint64_t id = 0; id < grid; id++) {
		if (id >= size)
			continue;
		uint8_t *s = t_hp(m, srcI + so), *d = t_hp(m, dstI + dof);

		if (remain == 8)
			d[id] = s[id];
		else if (id < size - 1)
			memcpy(d + id * 4, s + id * 4, 4);
		else
			for (uint32_t i = 0; i < remain; ++i)
				d[id * 4 + i] = s[id * 4 + i];
	}
}

static void test_effect_copy_v1_matches_the_kernel(void)
{
	struct kfdemu_co_kernel k;
	struct kfdemu_effect e;

	t_kernel(0, "__amd_rocclr_copyBuffer", &k, &e);
	for (unsigned int trial = 0; trial < 300; trial++) {
		struct t_mem a, b;
		uint8_t ka[256] = { 0 };

		t_mem_pair(&a, &b);
		uint64_t srcI = T_BASE + t_rnd_in(0, 100), dstI = T_BASE + T_SIZE / 2 + t_rnd_in(0, 100);
		uint64_t so = t_rnd_in(0, 900), dof = t_rnd_in(0, 900);
		uint32_t remain = (trial & 1) ? 8 : (uint32_t)t_rnd_in(1, 4);
		uint64_t size = remain == 8 ? t_rnd_in(0, 6000) : t_rnd_in(0, 1500);
		uint32_t grid = (trial % 3 == 2) ? (uint32_t)t_rnd_in(1, 2000) : (uint32_t)size + 256;

		t_put(ka, &e, 0, srcI, 8);
		t_put(ka, &e, 1, dstI, 8);
		t_put(ka, &e, 2, so, 8);
		t_put(ka, &e, 3, dof, 8);
		t_put(ka, &e, 4, size, 8);
		t_put(ka, &e, 5, remain, 4);
		struct kfdemu_geom g = t_geom1(grid, 256);

		CU_ASSERT_EQUAL(kfdemu_effect_run(&e, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a), 0);
		ref_copy_v1(&b, srcI, dstI, so, dof, size, remain, grid);
		CU_ASSERT_EQUAL(memcmp(a.host, b.host, T_SIZE), 0);
		t_mem_free(&a, &b);
	}
}

static void test_effect_copy_aligned_and_rect_match_the_kernels(void)
{
	struct kfdemu_co_kernel k;
	struct kfdemu_effect ea, er, era;

	t_kernel(0, "__amd_rocclr_copyBufferAligned", &k, &ea);
	t_kernel(0, "__amd_rocclr_copyBufferRect", &k, &er);
	t_kernel(0, "__amd_rocclr_copyBufferRectAligned", &k, &era);
	for (unsigned int trial = 0; trial < 300; trial++) {
		struct t_mem a, b;
		uint8_t ka[256] = { 0 };

		t_mem_pair(&a, &b);
		uint64_t src = T_BASE + 16 * t_rnd_in(0, 8), dst = T_BASE + T_SIZE / 2 + 16 * t_rnd_in(0, 8);

		if (trial % 3 == 0) {
			/* copyBufferAligned: element (origin + id), 16 or 4 bytes, id < size. */
			uint32_t al = (trial & 1) ? 16 : 4;
			uint64_t so = t_rnd_in(0, 50), dof = t_rnd_in(0, 50), size = t_rnd_in(0, 900);
			uint32_t grid = (uint32_t)t_rnd_in(1, 1000);

			t_put(ka, &ea, 0, src, 8);
			t_put(ka, &ea, 1, dst, 8);
			t_put(ka, &ea, 2, so, 8);
			t_put(ka, &ea, 3, dof, 8);
			t_put(ka, &ea, 4, size, 8);
			t_put(ka, &ea, 5, al, 4);
			struct kfdemu_geom g = t_geom1(grid, 64);

			CU_ASSERT_EQUAL(kfdemu_effect_run(&ea, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate,
							  &a), 0);
			for (uint64_t id = 0; id < grid && id < size; id++)
				memcpy(t_hp(&b, dst + (dof + id) * al), t_hp(&b, src + (so + id) * al), al);
		} else {
			/* copyBufferRect(Aligned): x, y, z over the grid, inside size. */
			bool aligned = trial % 3 == 2;
			const struct kfdemu_effect *e = aligned ? &era : &er;
			uint64_t sz[4] = { t_rnd_in(1, 40), t_rnd_in(1, 12), t_rnd_in(1, 3), 0 };
			uint32_t es = 1;

			if (aligned) {
				sz[3] = (trial & 1) ? 16 : 4;
				es = (uint32_t)sz[3];
			}
			uint64_t sr[4] = { sz[0] + t_rnd_in(0, 9), 0, t_rnd_in(0, 30), 0 };
			uint64_t dr[4] = { sz[0] + t_rnd_in(0, 9), 0, t_rnd_in(0, 30), 0 };

			sr[1] = sr[0] * sz[1] + t_rnd_in(0, 5);
			dr[1] = dr[0] * sz[1] + t_rnd_in(0, 5);
			/* Grids are rounded up (16 x 16); sometimes they fall short. */
			struct kfdemu_geom g = {
				.grid = { (uint32_t)t_rnd_in(1, 48), (uint32_t)t_rnd_in(1, 16),
					  (uint32_t)t_rnd_in(1, 4) },
				.wg = { 16, 16, 1 },
			};

			if (es * (dr[2] + sz[0] + (sz[1] - 1) * dr[0] + (sz[2] - 1) * dr[1]) >
				    T_SIZE / 2 - 128 ||
			    es * (sr[2] + sz[0] + (sz[1] - 1) * sr[0] + (sz[2] - 1) * sr[1]) >
				    T_SIZE / 2 - 128) {
				t_mem_free(&a, &b);
				continue;
			}
			t_put(ka, e, 0, src, 8);
			t_put(ka, e, 1, dst, 8);
			put4(ka, e, 2, sr);
			put4(ka, e, 3, dr);
			put4(ka, e, 4, sz);
			CU_ASSERT_EQUAL(kfdemu_effect_run(e, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a),
					0);
			for (uint64_t z = 0; z < g.grid[2]; z++)
				for (uint64_t y = 0; y < g.grid[1]; y++)
					for (uint64_t x = 0; x < g.grid[0]; x++) {
						if (x >= sz[0] || y >= sz[1] || z >= sz[2])
							continue;
						uint64_t os = sr[2] + x + y * sr[0] + z * sr[1];
						uint64_t od = dr[2] + x + y * dr[0] + z * dr[1];

						memcpy(t_hp(&b, dst + od * es), t_hp(&b, src + os * es), es);
					}
		}
		CU_ASSERT_EQUAL(memcmp(a.host, b.host, T_SIZE), 0);
		t_mem_free(&a, &b);
	}
}

static const struct t_case cases[] = {
	T_CASE(test_effect_copy_v2_v3_match_the_kernel),
	T_CASE(test_effect_copy_v1_matches_the_kernel),
	T_CASE(test_effect_copy_aligned_and_rect_match_the_kernels),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "kfdemu-kernels-copy", NULL, NULL, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (argc != 5 || !*argv[1] || !*argv[4])
		return t_skip("test-kfdemu-kernels-copy",
			      "no AMDGPU clang at build time: no code objects to read");
	for (int i = 0; i < 4; i++)
		t_co_path[i] = argv[i + 1];
	return t_run("test-kfdemu-kernels-copy", suites);
}
