/* SPDX-License-Identifier: MIT */
/*
 * The emulated /dev/kfd reads kernels' arguments from code objects built by clang (ROCclr's by
 * name, in each of its generations; the probe's by position, without names), and never reads
 * outside a truncated or corrupt note: truncated images and metadata, corrupt metadata, hostile
 * MessagePack and lying ELF headers are refused.
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

/* ---- the metadata reader ---------------------------------------------------------------- */

static void test_co_reads_rocclr_argument_offsets_by_name(void)
{
	struct kfdemu_co_kernel k;
	uint64_t size, mdlen;
	const uint8_t *md;
	uint8_t *img = t_load_image(t_co_path[1], &size);

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
	uint8_t *img = t_load_image(t_co_path[1], &size);
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
	uint8_t *img = t_load_image(t_co_path[0], &size);
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
	uint8_t *img = t_load_image(t_co_path[2], &size);
	struct kfdemu_co_kernel *k = malloc(sizeof(*k));
	struct kfdemu_effect e;
	unsigned int answered = 0;

	CU_ASSERT_EQUAL_FATAL(kfdemu_co_metadata(img, size, &md, &mdlen), 0);
	uint8_t *bad = malloc(mdlen);

	for (unsigned int trial = 0; trial < 20000; trial++) {
		memcpy(bad, md, mdlen);
		for (unsigned int f = t_rnd_in(1, 4); f; f--)
			bad[t_rnd() % mdlen] = (uint8_t)t_rnd();
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
	uint8_t *img = t_load_image(t_co_path[1], &size);
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

static const struct t_case cases[] = {
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

static const struct t_suite suites[] = {
	{ "kfdemu-kernels-co", NULL, NULL, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	if (argc != 5 || !*argv[1] || !*argv[4])
		return t_skip("test-kfdemu-kernels-co",
			      "no AMDGPU clang at build time: no code objects to read");
	for (int i = 0; i < 4; i++)
		t_co_path[i] = argv[i + 1];
	return t_run("test-kfdemu-kernels-co", suites);
}
