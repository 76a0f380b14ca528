/* SPDX-License-Identifier: MIT */
/*
 * test_kfdemu_kernels.c - the emulated /dev/kfd reads kernels' arguments from code objects
 * built by clang, never reads outside a truncated or corrupt note, and performs ROCclr's
 * blit kernels and the probe kernel exactly as their sources define, work-item by work-item.
 *
 * Arguments: the code objects tests/meson.build builds (rocclr_blits_v1/v2/v3.cl with
 * -cl-kernel-arg-info, as ROCclr compiles its own; and the probe's spin kernel as tools/
 * builds it, without argument names). Exits 77 when the build had no AMDGPU clang.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfdemu_internal.h"
#include "t_cunit.h"

static const char *co_path[4]; /* v1, v2, v3, spin */

/* ---- helpers ---------------------------------------------------------------------------- */

/* A code object file laid out as ROCr's loader lays it out: each PT_LOAD at its vaddr. */
static uint8_t *t_load_image(const char *path, uint64_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *file = NULL, *img = NULL;
	long n = -1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	if (fseek(f, 0, SEEK_END) == 0)
		n = ftell(f);
	CU_ASSERT_FATAL(n > 0 && fseek(f, 0, SEEK_SET) == 0);
	file = malloc((size_t)n);
	CU_ASSERT_FATAL(file && fread(file, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(file + eh->e_phoff);
	uint64_t end = 0;

	for (unsigned int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr + ph[i].p_memsz > end)
			end = ph[i].p_vaddr + ph[i].p_memsz;
	img = calloc(1, end);
	CU_ASSERT_PTR_NOT_NULL_FATAL(img);
	for (unsigned int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD)
			memcpy(img + ph[i].p_vaddr, file + ph[i].p_offset, ph[i].p_filesz);
	free(file);
	*size = end;
	return img;
}

/* Kernel @name of code object @which, its arguments and bound effect. */
static void t_kernel(unsigned int which, const char *name, struct kfdemu_co_kernel *k,
		     struct kfdemu_effect *e)
{
	uint64_t size, mdlen;
	const uint8_t *md;
	uint8_t *img = t_load_image(co_path[which], &size);

	CU_ASSERT_EQUAL_FATAL(kfdemu_co_metadata(img, size, &md, &mdlen), 0);
	CU_ASSERT_EQUAL_FATAL(kfdemu_co_kernel_args(md, mdlen, name, k), 0);
	if (e)
		CU_ASSERT_EQUAL_FATAL(kfdemu_effect_bind(name, k, e), 0);
	/* Names point into the image: keep only what the caller uses after it is freed. */
	for (uint32_t i = 0; i < k->nargs; i++)
		k->arg[i].name = k->arg[i].kind = NULL;
	free(img);
}

/* A fake GPU address space: one block at T_BASE. */
#define T_BASE 0x7f0000000000ull
#define T_SIZE (1u << 16)

struct t_mem {
	uint8_t *host;
};

static void *t_xlate(void *ctx, uint64_t va, uint64_t len)
{
	struct t_mem *m = ctx;

	if (va < T_BASE || va - T_BASE > T_SIZE || len > T_SIZE - (va - T_BASE))
		return NULL;
	return m->host + (va - T_BASE);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so a failure reproduces. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint64_t rnd_in(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

/* Two copies of the same random memory: one for the emulation, one for the reference. */
static void t_mem_pair(struct t_mem *a, struct t_mem *b)
{
	a->host = malloc(T_SIZE);
	b->host = malloc(T_SIZE);
	CU_ASSERT_FATAL(a->host && b->host);
	for (unsigned int i = 0; i < T_SIZE; i++)
		a->host[i] = b->host[i] = (uint8_t)rnd();
}

static void t_mem_free(struct t_mem *a, struct t_mem *b)
{
	free(a->host);
	free(b->host);
}

static void put(uint8_t *ka, const struct kfdemu_effect *e, unsigned int i, uint64_t v,
		unsigned int size)
{
	memcpy(ka + e->off[i], &v, size);
}

static void put4(uint8_t *ka, const struct kfdemu_effect *e, unsigned int i, const uint64_t v[4])
{
	memcpy(ka + e->off[i], v, 32);
}

/* Host pointer of fake GPU address @va in @m (the reference works on host memory). */
static uint8_t *H(struct t_mem *m, uint64_t va)
{
	return m->host + (va - T_BASE);
}

static struct kfdemu_geom geom1(uint32_t grid, uint16_t wg)
{
	return (struct kfdemu_geom){ .grid = { grid, 1, 1 }, .wg = { wg, 1, 1 } };
}

/* ---- the metadata reader ---------------------------------------------------------------- */

static void test_co_reads_rocclr_argument_offsets_by_name(void)
{
	struct kfdemu_co_kernel k;
	uint64_t size, mdlen;
	const uint8_t *md;
	uint8_t *img = t_load_image(co_path[1], &size);

	CU_ASSERT_EQUAL_FATAL(kfdemu_co_metadata(img, size, &md, &mdlen), 0);
	/* md is inside the image, where the loader put the note. */
	CU_ASSERT(md > img && md + mdlen <= img + size);
	CU_ASSERT_EQUAL_FATAL(kfdemu_co_kernel_args(md, mdlen, "__amd_rocclr_copyBuffer", &k), 0);
	/* The OpenCL ABI's offsets, as libamdhip64 6.4.3's own copyBuffer has them. */
	static const char *const names[] = { "src", "dst", "size", "remainder", "aligned_size",
					     "end_ptr", "next_chunk" };
	static const uint32_t off[] = { 0, 8, 16, 24, 28, 32, 40 }, sz[] = { 8, 8, 8, 4, 4, 8, 4 };

	for (unsigned int i = 0; i < 7; i++) {
		const struct kfdemu_co_arg *a = kfdemu_co_arg(&k, names[i]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		CU_ASSERT_EQUAL(a->offset, off[i]);
		CU_ASSERT_EQUAL(a->size, sz[i]);
		CU_ASSERT_FALSE(kfdemu_co_arg_hidden(a));
	}
	CU_ASSERT_PTR_NULL(kfdemu_co_arg(&k, "srcI"));
	CU_ASSERT(k.kernarg_size >= 44);
	/* By its symbol too, and not a kernel the object lacks. */
	CU_ASSERT_EQUAL(kfdemu_co_kernel_args(md, mdlen, "__amd_rocclr_fillBufferAligned", &k), 0);
	CU_ASSERT_EQUAL(kfdemu_co_arg(&k, "next_chunk")->offset, 32u);
	CU_ASSERT_EQUAL(kfdemu_co_kernel_args(md, mdlen, "__amd_rocclr_copyBufferRect", &k),
			-ENOENT);
	free(img);
}

static void test_co_binds_each_rocclr_generation(void)
{
	struct kfdemu_co_kernel k;
	struct kfdemu_effect e;

	t_kernel(0, "__amd_rocclr_copyBuffer", &k, &e);
	CU_ASSERT_EQUAL(e.kind, KFDEMU_EFFECT_COPY_V1);
	CU_ASSERT_FALSE(e.by_position);
	t_kernel(1, "__amd_rocclr_copyBuffer", &k, &e);
	CU_ASSERT_EQUAL(e.kind, KFDEMU_EFFECT_COPY_V2);
	t_kernel(2, "__amd_rocclr_copyBuffer", &k, &e);
	CU_ASSERT_EQUAL(e.kind, KFDEMU_EFFECT_COPY_V3);
	CU_ASSERT_EQUAL(e.off[7], 44u);
	t_kernel(0, "__amd_rocclr_fillBufferAligned", &k, &e);
	CU_ASSERT_EQUAL(e.kind, KFDEMU_EFFECT_FILL_V1);
	t_kernel(1, "__amd_rocclr_fillBufferAligned", &k, &e);
	CU_ASSERT_EQUAL(e.kind, KFDEMU_EFFECT_FILL_V2);
	t_kernel(2, "__amd_rocclr_fillBufferAligned", &k, &e);
	CU_ASSERT_EQUAL(e.kind, KFDEMU_EFFECT_FILL_V3);
	t_kernel(0, "__amd_rocclr_copyBufferRect", &k, &e);
	CU_ASSERT_EQUAL(e.kind, KFDEMU_EFFECT_COPY_RECT);
	CU_ASSERT_EQUAL(e.off[2], 32u); /* a ulong4 is 32-byte aligned */
	CU_ASSERT_EQUAL(e.span, 128u);
}

static void test_co_binds_probe_kernel_by_position_without_names(void)
{
	struct kfdemu_co_kernel k;
	struct kfdemu_effect e;

	t_kernel(3, "hsaqm_probe_spin", &k, &e);
	/* tools/ builds it without -cl-kernel-arg-info: the signature's order decides. */
	CU_ASSERT_EQUAL(e.kind, KFDEMU_EFFECT_PROBE_SPIN);
	CU_ASSERT_TRUE(e.by_position);
	CU_ASSERT_EQUAL(e.off[0], 0u);
	CU_ASSERT_EQUAL(e.off[1], 8u);
	CU_ASSERT_EQUAL(e.off[2], 12u);
	CU_ASSERT_EQUAL(e.off[3], 16u);
	/* A kernel the emulation does not perform, and a known name with an unknown list. */
	CU_ASSERT_EQUAL(kfdemu_effect_bind("hsaqm_k_short", &k, &e), -ENOENT);
	CU_ASSERT_EQUAL(kfdemu_effect_bind("__amd_rocclr_copyBuffer", &k, &e), -EINVAL);
}

/* Every prefix of a loaded image: an error or the full answer, never a read past its end. */
static void test_co_truncated_image_is_never_read_past(void)
{
	uint64_t size, mdlen, full_end;
	const uint8_t *md;
	uint8_t *img = t_load_image(co_path[1], &size);
	struct kfdemu_co_kernel *k = malloc(sizeof(*k));

	CU_ASSERT_EQUAL_FATAL(kfdemu_co_metadata(img, size, &md, &mdlen), 0);
	full_end = (uint64_t)(md - img) + mdlen;
	for (uint64_t n = 0; n <= full_end + 64 && n <= size; n++) {
		/* An exactly sized copy: ASan reports any read past it. */
		uint8_t *cut = malloc(n ? n : 1);
		const uint8_t *m2;
		uint64_t l2;

		memcpy(cut, img, n);
		int r = kfdemu_co_metadata(cut, n, &m2, &l2);

		if (n >= full_end) {
			CU_ASSERT_EQUAL(r, 0);
		} else {
			CU_ASSERT(r == -EINVAL || r == -ENOENT);
		}
		if (!r)
			CU_ASSERT(kfdemu_co_kernel_args(m2, l2, "__amd_rocclr_copyBuffer", k) == 0);
		free(cut);
	}
	free(k);
	free(img);
}

/* Every prefix of the metadata: a clean error, or (the kernel's map already whole) the answer. */
static void test_co_truncated_metadata_is_never_read_past(void)
{
	uint64_t size, mdlen;
	const uint8_t *md;
	uint8_t *img = t_load_image(co_path[0], &size);
	struct kfdemu_co_kernel *full = malloc(sizeof(*full)), *k = malloc(sizeof(*k));

	CU_ASSERT_EQUAL_FATAL(kfdemu_co_metadata(img, size, &md, &mdlen), 0);
	CU_ASSERT_EQUAL_FATAL(kfdemu_co_kernel_args(md, mdlen, "__amd_rocclr_fillBufferAligned2D",
						     full), 0);
	for (uint64_t n = 0; n < mdlen; n++) {
		uint8_t *cut = malloc(n ? n : 1);

		memcpy(cut, md, n);
		int r = kfdemu_co_kernel_args(cut, n, "__amd_rocclr_fillBufferAligned2D", k);

		CU_ASSERT(r == 0 || r == -EINVAL || r == -ENOENT);
		if (r == 0) {
			CU_ASSERT_EQUAL(k->nargs, full->nargs);
			for (uint32_t i = 0; i < k->nargs && i < full->nargs; i++)
				CU_ASSERT_EQUAL(k->arg[i].offset, full->arg[i].offset);
		}
		free(cut);
	}
	free(full);
	free(k);
	free(img);
}

/* Random byte changes in the note: any answer but a crash or a read outside it. */
static void test_co_corrupt_metadata_never_crashes(void)
{
	uint64_t size, mdlen;
	const uint8_t *md;
	uint8_t *img = t_load_image(co_path[2], &size);
	struct kfdemu_co_kernel *k = malloc(sizeof(*k));
	struct kfdemu_effect e;
	unsigned int answered = 0;

	CU_ASSERT_EQUAL_FATAL(kfdemu_co_metadata(img, size, &md, &mdlen), 0);
	uint8_t *bad = malloc(mdlen);

	for (unsigned int trial = 0; trial < 20000; trial++) {
		memcpy(bad, md, mdlen);
		for (unsigned int f = rnd_in(1, 4); f; f--)
			bad[rnd() % mdlen] = (uint8_t)rnd();
		int r = kfdemu_co_kernel_args(bad, mdlen, "__amd_rocclr_copyBuffer", k);

		CU_ASSERT(r == 0 || r == -EINVAL || r == -ENOENT);
		if (!r) {
			answered++;
			/* Offsets a corrupt note gives are bounded: binding checks the sizes. */
			r = kfdemu_effect_bind("__amd_rocclr_copyBuffer", k, &e);
			CU_ASSERT(r == 0 || r == -EINVAL);
			for (uint32_t i = 0; i < k->nargs; i++)
				CU_ASSERT(!k->arg[i].name ||
					  ((const uint8_t *)k->arg[i].name >= bad &&
					   (const uint8_t *)k->arg[i].name + k->arg[i].name_len <=
						   bad + mdlen));
		}
	}
	/* Most flips hit bytes that do not matter: the reader still answers then. */
	CU_ASSERT(answered > 1000);
	free(bad);
	free(k);
	free(img);
}

/* Hand-made MessagePack a hostile runtime could place: bounded time, no recursion, no overread. */
static void test_co_hostile_messagepack_is_refused(void)
{
	struct kfdemu_co_kernel *k = malloc(sizeof(*k));
	/* map32 claiming 2^32-1 pairs in 5 bytes */
	static const uint8_t huge_map[] = { 0xdf, 0xff, 0xff, 0xff, 0xff };
	/* str32 claiming 4 GiB */
	static const uint8_t huge_str[] = { 0x81, 0xdb, 0xff, 0xff, 0xff, 0xff, 'x' };
	/* {"amdhsa.kernels": [[[[...]]]]} nested 200000 deep */
	size_t deep_n = 200000 + 20;
	uint8_t *deep = malloc(deep_n);
	size_t p = 0;

	deep[p++] = 0x81;
	deep[p++] = 0xa0 | 14;
	memcpy(deep + p, "amdhsa.kernels", 14);
	p += 14;
	deep[p++] = 0x91; /* the kernels array, one entry: */
	while (p < deep_n)
		deep[p++] = 0x91;
	CU_ASSERT_EQUAL(kfdemu_co_kernel_args(huge_map, sizeof(huge_map), "k", k), -EINVAL);
	CU_ASSERT_EQUAL(kfdemu_co_kernel_args(huge_str, sizeof(huge_str), "k", k), -EINVAL);
	CU_ASSERT_EQUAL(kfdemu_co_kernel_args(deep, deep_n, "k", k), -EINVAL);
	/* Not a map at the top; an empty buffer; the reserved byte 0xc1. */
	static const uint8_t arr[] = { 0x90 }, resv[] = { 0x81, 0xc1, 0xc0 };

	CU_ASSERT_EQUAL(kfdemu_co_kernel_args(arr, sizeof(arr), "k", k), -EINVAL);
	CU_ASSERT_EQUAL(kfdemu_co_kernel_args(arr, 0, "k", k), -EINVAL);
	CU_ASSERT_EQUAL(kfdemu_co_kernel_args(resv, sizeof(resv), "k", k), -EINVAL);
	free(deep);
	free(k);
}

/* ELF headers that point outside the image, and notes whose sizes lie. */
static void test_co_lying_elf_headers_are_refused(void)
{
	uint64_t size;
	const uint8_t *md;
	uint64_t mdlen;
	uint8_t *img = t_load_image(co_path[1], &size);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + eh->e_phoff);
	Elf64_Ehdr save = *eh;

	eh->e_phoff = size - 8;
	CU_ASSERT_EQUAL(kfdemu_co_metadata(img, size, &md, &mdlen), -EINVAL);
	*eh = save;
	eh->e_phnum = 0xffff;
	CU_ASSERT_EQUAL(kfdemu_co_metadata(img, size, &md, &mdlen), -EINVAL);
	*eh = save;
	eh->e_machine = 62; /* x86-64 */
	CU_ASSERT_EQUAL(kfdemu_co_metadata(img, size, &md, &mdlen), -EINVAL);
	*eh = save;
	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_NOTE)
			continue;
		Elf64_Phdr keep = ph[i];
		uint32_t *nh = (uint32_t *)(img + ph[i].p_vaddr);
		uint32_t n0 = nh[0], n1 = nh[1];

		ph[i].p_memsz = size; /* past the image */
		CU_ASSERT_EQUAL(kfdemu_co_metadata(img, size, &md, &mdlen), -ENOENT);
		ph[i] = keep;
		nh[1] = 0xfffffff0u; /* a descriptor larger than the segment */
		CU_ASSERT_EQUAL(kfdemu_co_metadata(img, size, &md, &mdlen), -ENOENT);
		nh[1] = n1;
		nh[0] = 0xfffffffdu; /* a name that wraps the offset arithmetic on 32 bits */
		CU_ASSERT_EQUAL(kfdemu_co_metadata(img, size, &md, &mdlen), -ENOENT);
		nh[0] = n0;
	}
	CU_ASSERT_EQUAL(kfdemu_co_metadata(img, size, &md, &mdlen), 0);
	free(img);
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
			memcpy(H(m, dst + id * es), H(m, src + id * es), es);
			id += next_chunk;
		}
		if (remainder && gid == 0)
			for (uint64_t i = size - remainder; i < size; ++i)
				*H(m, dst + i) = *H(m, src + i);
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
			uint64_t src = T_BASE + rnd_in(0, 1000), dst = T_BASE + T_SIZE / 2 + rnd_in(0, 1000);
			uint64_t size = rnd_in(0, 5000);
			bool aligned = rnd() & 1;
			uint32_t es = aligned ? 16 : 4, rem = (uint32_t)(size % es);
			uint64_t end_ptr = dst + size - rem;
			uint32_t units = (uint32_t)(size / es + (rem != 0));
			/* ROCclr: grid = units rounded up to the workgroup, next_chunk = grid. */
			uint16_t wg = aligned ? 512 : 1024;
			uint32_t grid = (units + wg - 1) / wg * wg, nc = grid;

			if (trial % 3 == 1)
				nc = (uint32_t)rnd_in(1, 300); /* a grid-stride loop */
			if (trial % 3 == 2)
				grid = (uint32_t)rnd_in(1, 300); /* fewer work-items: holes */
			if (!grid)
				grid = 1;
			put(ka, &e, 0, src, 8);
			put(ka, &e, 1, dst, 8);
			put(ka, &e, 2, size, 8);
			put(ka, &e, 3, rem, 4);
			put(ka, &e, 4, es, 4);
			put(ka, &e, 5, end_ptr, 8);
			put(ka, &e, 6, nc, 4);
			if (v == 2)
				put(ka, &e, 7, wg, 4);
			struct kfdemu_geom g = geom1(grid, wg);

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
		uint8_t *s = H(m, srcI + so), *d = H(m, dstI + dof);

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
		uint64_t srcI = T_BASE + rnd_in(0, 100), dstI = T_BASE + T_SIZE / 2 + rnd_in(0, 100);
		uint64_t so = rnd_in(0, 900), dof = rnd_in(0, 900);
		uint32_t remain = (trial & 1) ? 8 : (uint32_t)rnd_in(1, 4);
		uint64_t size = remain == 8 ? rnd_in(0, 6000) : rnd_in(0, 1500);
		uint32_t grid = (trial % 3 == 2) ? (uint32_t)rnd_in(1, 2000) : (uint32_t)size + 256;

		put(ka, &e, 0, srcI, 8);
		put(ka, &e, 1, dstI, 8);
		put(ka, &e, 2, so, 8);
		put(ka, &e, 3, dof, 8);
		put(ka, &e, 4, size, 8);
		put(ka, &e, 5, remain, 4);
		struct kfdemu_geom g = geom1(grid, 256);

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
		uint64_t src = T_BASE + 16 * rnd_in(0, 8), dst = T_BASE + T_SIZE / 2 + 16 * rnd_in(0, 8);

		if (trial % 3 == 0) {
			/* copyBufferAligned: element (origin + id), 16 or 4 bytes, id < size. */
			uint32_t al = (trial & 1) ? 16 : 4;
			uint64_t so = rnd_in(0, 50), dof = rnd_in(0, 50), size = rnd_in(0, 900);
			uint32_t grid = (uint32_t)rnd_in(1, 1000);

			put(ka, &ea, 0, src, 8);
			put(ka, &ea, 1, dst, 8);
			put(ka, &ea, 2, so, 8);
			put(ka, &ea, 3, dof, 8);
			put(ka, &ea, 4, size, 8);
			put(ka, &ea, 5, al, 4);
			struct kfdemu_geom g = geom1(grid, 64);

			CU_ASSERT_EQUAL(kfdemu_effect_run(&ea, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate,
							  &a), 0);
			for (uint64_t id = 0; id < grid && id < size; id++)
				memcpy(H(&b, dst + (dof + id) * al), H(&b, src + (so + id) * al), al);
		} else {
			/* copyBufferRect(Aligned): x, y, z over the grid, inside size. */
			bool aligned = trial % 3 == 2;
			const struct kfdemu_effect *e = aligned ? &era : &er;
			uint64_t sz[4] = { rnd_in(1, 40), rnd_in(1, 12), rnd_in(1, 3), 0 };
			uint32_t es = 1;

			if (aligned) {
				sz[3] = (trial & 1) ? 16 : 4;
				es = (uint32_t)sz[3];
			}
			uint64_t sr[4] = { sz[0] + rnd_in(0, 9), 0, rnd_in(0, 30), 0 };
			uint64_t dr[4] = { sz[0] + rnd_in(0, 9), 0, rnd_in(0, 30), 0 };

			sr[1] = sr[0] * sz[1] + rnd_in(0, 5);
			dr[1] = dr[0] * sz[1] + rnd_in(0, 5);
			/* Grids are rounded up (16 x 16); sometimes they fall short. */
			struct kfdemu_geom g = {
				.grid = { (uint32_t)rnd_in(1, 48), (uint32_t)rnd_in(1, 16),
					  (uint32_t)rnd_in(1, 4) },
				.wg = { 16, 16, 1 },
			};

			if (es * (dr[2] + sz[0] + (sz[1] - 1) * dr[0] + (sz[2] - 1) * dr[1]) >
				    T_SIZE / 2 - 128 ||
			    es * (sr[2] + sz[0] + (sz[1] - 1) * sr[0] + (sz[2] - 1) * sr[1]) >
				    T_SIZE / 2 - 128) {
				t_mem_free(&a, &b);
				continue;
			}
			put(ka, e, 0, src, 8);
			put(ka, e, 1, dst, 8);
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

						memcpy(H(&b, dst + od * es), H(&b, src + os * es), es);
					}
		}
		CU_ASSERT_EQUAL(memcmp(a.host, b.host, T_SIZE), 0);
		t_mem_free(&a, &b);
	}
}

/* ROCm 6.4/7.2 fillBufferAligned, one work-item at a time. */
static void ref_fill_v2(struct t_mem *m, uint64_t buf, uint64_t pat, uint32_t ps, uint32_t al,
			uint64_t end_ptr, uint32_t nc, uint32_t grid)
{
	uint32_t es = al == 16 ? 16 : al == 8 ? 8 : al == 4 ? 4 : al == 2 ? 2 : 1;

	for (uint64_t id = 0; id < grid; id++)
		for (uint64_t el = buf + id * ps * es; el < end_ptr; el += (uint64_t)nc * es)
			for (uint32_t i = 0; i < ps; ++i)
				memcpy(H(m, el + i * es), H(m, pat + i * es), es);
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
			uint32_t al = als[rnd() % 5], ps = (uint32_t)rnd_in(1, 4);
			uint64_t buf = T_BASE + T_SIZE / 2 + al * rnd_in(0, 64);
			uint64_t pat = T_BASE + 16 * rnd_in(0, 64);
			uint64_t blocks = rnd_in(0, 400), end_ptr = buf + blocks * ps * al;
			uint32_t grid = (uint32_t)rnd_in(1, 600), nc = grid * ps;

			if (trial % 3 == 1)
				nc = ps * (uint32_t)rnd_in(1, 700); /* stride unlike the grid */
			put(ka, &e, 0, buf, 8);
			put(ka, &e, 1, pat, 8);
			put(ka, &e, 2, ps, 4);
			put(ka, &e, 3, al, 4);
			put(ka, &e, 4, end_ptr, 8);
			put(ka, &e, 5, nc, 4);
			if (v == 2)
				put(ka, &e, 6, 256, 4);
			struct kfdemu_geom g = geom1(grid, 256);

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
		unsigned int nbufs = v0 ? 2 : 4, which = (unsigned int)(rnd() % nbufs);
		static const uint32_t w0[2] = { 1, 4 }, w1[4] = { 1, 2, 4, 8 };
		uint32_t es = v0 ? w0[which] : w1[which], ps = (uint32_t)rnd_in(1, 4);
		uint64_t buf = T_BASE + T_SIZE / 2, pat = T_BASE + 8 * rnd_in(0, 64);
		uint64_t off = rnd_in(0, 100), size = rnd_in(0, 600);
		uint32_t grid = (uint32_t)rnd_in(1, 700);

		/* The chosen buffer and, as ROCclr passes them, null for the others. */
		put(ka, e, which, buf, 8);
		put(ka, e, nbufs, pat, 8);
		put(ka, e, nbufs + 1, ps, 4);
		put(ka, e, nbufs + 2, off, 8);
		put(ka, e, nbufs + 3, size, 8);
		struct kfdemu_geom g = geom1(grid, 256);

		CU_ASSERT_EQUAL(kfdemu_effect_run(e, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a), 0);
		for (uint64_t id = 0; id < grid && id < size; id++)
			for (uint32_t i = 0; i < ps; i++)
				memcpy(H(&b, buf + (off + id * ps + i) * es), H(&b, pat + i * es), es);
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
		unsigned int which = (unsigned int)(rnd() % 4);
		static const uint32_t w[4] = { 1, 2, 4, 8 };
		uint32_t es = w[which];
		/* ROCclr divides the pattern into one element: 1; 2 shows the lockstep order. */
		uint32_t ps = trial % 5 == 4 ? 2 : 1;
		uint64_t buf = T_BASE + T_SIZE / 2, pat = T_BASE + 8 * rnd_in(0, 64);
		uint64_t width = rnd_in(1, 60), height = rnd_in(1, 20), pitch = width + rnd_in(0, 20);
		uint64_t origin = rnd_in(0, 50);
		struct kfdemu_geom g = {
			.grid = { (uint32_t)rnd_in(1, 80), (uint32_t)rnd_in(1, 32), 1 },
			.wg = { 16, 16, 1 },
		};

		put(ka, &e, which, buf, 8);
		put(ka, &e, 4, pat, 8);
		put(ka, &e, 5, ps, 4);
		put(ka, &e, 6, origin, 8);
		put(ka, &e, 7, width, 8);
		put(ka, &e, 8, height, 8);
		put(ka, &e, 9, pitch, 8);
		CU_ASSERT_EQUAL(kfdemu_effect_run(&e, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a), 0);
		/* Each row's lanes store pattern element i together, i ascending. */
		for (uint64_t y = 0; y < g.grid[1] && y < height; y++)
			for (uint32_t i = 0; i < ps; i++)
				for (uint64_t x = 0; x < g.grid[0] && x < width; x++)
					memcpy(H(&b, buf + (origin + y * pitch + x + i) * es),
					       H(&b, pat + i * es), es);
		CU_ASSERT_EQUAL(memcmp(a.host, b.host, T_SIZE), 0);
		t_mem_free(&a, &b);
	}
}

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

	put(ka, &e, 0, T_BASE, 8);
	put(ka, &e, 1, dst, 8);
	put(ka, &e, 2, 256, 8);
	put(ka, &e, 3, 0, 4);
	put(ka, &e, 4, 16, 4);
	put(ka, &e, 5, dst + 256, 8);
	put(ka, &e, 6, 512, 4);
	struct kfdemu_geom g = geom1(512, 512);

	CU_ASSERT_EQUAL(kfdemu_effect_run(&e, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a), -EFAULT);
	CU_ASSERT_EQUAL(memcmp(a.host, b.host, T_SIZE), 0);
	/* An end pointer that wraps the address space: refused, not a giant copy. */
	put(ka, &e, 1, T_BASE + T_SIZE / 2, 8);
	put(ka, &e, 5, UINT64_MAX, 8);
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
	put(ka, &e, 0, src, 8);
	put(ka, &e, 1, dst, 8);
	put(ka, &e, 2, 259, 8);
	put(ka, &e, 3, 3, 4);
	put(ka, &e, 4, 4, 4);
	put(ka, &e, 5, dst + 256, 8);
	put(ka, &e, 6, 1024, 4);
	CU_ASSERT_EQUAL(kfdemu_effect_run(&e, ka, NULL, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a), 0);
	CU_ASSERT_EQUAL(memcmp(H(&a, dst), H(&a, src), 259), 0);
	CU_ASSERT_EQUAL(memcmp(H(&a, dst + 259), H(&b, dst + 259), 64), 0);
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
	put(ka, &e, 0, out, 8);
	put(ka, &e, 1, 1000, 4);
	put(ka, &e, 2, 7, 4);
	put(ka, &e, 3, 64, 4);
	/* 5 workgroups of 64 with the last one partial: 300 work-items. */
	struct kfdemu_geom g = geom1(300, 64);

	/* Workgroup 2 only: out[128..191], nothing else. */
	CU_ASSERT_EQUAL(kfdemu_effect_run(&e, ka, &g, 2, t_xlate, &a), 0);
	for (uint32_t gid = 0; gid < 320; gid++) {
		uint32_t v, old;

		memcpy(&v, H(&a, out + 4 * gid), 4);
		memcpy(&old, H(&b, out + 4 * gid), 4);
		CU_ASSERT_EQUAL(v, gid >= 128 && gid < 192 ? lcg_slow(7 ^ gid, 1000) : old);
	}
	/* All of them: 300 values, not one past the grid. */
	CU_ASSERT_EQUAL(kfdemu_effect_run(&e, ka, &g, KFDEMU_EFFECT_ALL_WGS, t_xlate, &a), 0);
	for (uint32_t gid = 0; gid < 320; gid++) {
		uint32_t v, old;

		memcpy(&v, H(&a, out + 4 * gid), 4);
		memcpy(&old, H(&b, out + 4 * gid), 4);
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
	put(ka, &e, 1, 1u << 16, 4);
	CU_ASSERT_TRUE_FATAL(kfdemu_effect_wg_ns(&e, ka, &ns));
	CU_ASSERT_EQUAL(ns, (1ull << 16) * KFDEMU_SPIN_STEP_NS);
	put(ka, &e, 1, 4000000000u, 4);
	CU_ASSERT_TRUE(kfdemu_effect_wg_ns(&e, ka, &ns));
	CU_ASSERT_EQUAL(ns, 4000000000ull * KFDEMU_SPIN_STEP_NS);
	put(ka, &e, 1, 0, 4);
	CU_ASSERT_TRUE(kfdemu_effect_wg_ns(&e, ka, &ns));
	CU_ASSERT_EQUAL(ns, 1u); /* a model kernel needs a length */
	/* A blit's length is the kernel table's. */
	t_kernel(1, "__amd_rocclr_copyBuffer", &k, &copy);
	CU_ASSERT_FALSE(kfdemu_effect_wg_ns(&copy, ka, &ns));
}

int main(int argc, char **argv)
{
	static const struct t_case co_cases[] = {
		T_CASE(test_co_reads_rocclr_argument_offsets_by_name),
		T_CASE(test_co_binds_each_rocclr_generation),
		T_CASE(test_co_binds_probe_kernel_by_position_without_names),
		T_CASE(test_co_truncated_image_is_never_read_past),
		T_CASE(test_co_truncated_metadata_is_never_read_past),
		T_CASE(test_co_corrupt_metadata_never_crashes),
		T_CASE(test_co_hostile_messagepack_is_refused),
		T_CASE(test_co_lying_elf_headers_are_refused),
		T_CASES_END,
	};
	static const struct t_case effect_cases[] = {
		T_CASE(test_effect_copy_v2_v3_match_the_kernel),
		T_CASE(test_effect_copy_v1_matches_the_kernel),
		T_CASE(test_effect_copy_aligned_and_rect_match_the_kernels),
		T_CASE(test_effect_fill_v2_v3_match_the_kernel),
		T_CASE(test_effect_fill_v0_v1_match_the_kernels),
		T_CASE(test_effect_fill_2d_matches_the_kernel),
		T_CASE(test_effect_outside_memory_writes_nothing),
		T_CASE(test_effect_unknown_grid_covers_the_arguments),
		T_CASE(test_effect_probe_writes_each_workgroups_lcg),
		T_CASE(test_effect_probe_duration_is_proportional_to_iters),
		T_CASES_END,
	};
	static const struct t_suite suites[] = {
		{ "code-object", NULL, NULL, co_cases },
		{ "effect", NULL, NULL, effect_cases },
		T_SUITES_END,
	};

	if (argc != 5 || !*argv[1] || !*argv[4])
		return t_skip("test-kfdemu-kernels",
			      "no AMDGPU clang at build time: no code objects to read");
	for (int i = 0; i < 4; i++)
		co_path[i] = argv[i + 1];
	return t_run("test-kfdemu-kernels", suites);
}
