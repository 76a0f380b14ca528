/* SPDX-License-Identifier: MIT */
/*
 * t_kfdemu_co.h - the code objects of the emulation's kernel tests (test-kfdemu-kernels-*):
 * their paths (argv: rocclr_blits_v1/v2/v3.cl built with -cl-kernel-arg-info, as ROCclr compiles
 * its own, and the probe's spin kernel as tools/ builds it), each loaded as ROCr's loader lays
 * it out, and model memory to run a kernel's effect on. Header-only; include once.
 */
#ifndef T_KFDEMU_CO_H
#define T_KFDEMU_CO_H

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfdemu_internal.h"
#include "t_cunit.h"

static const char *t_co_path[4]; /* v1, v2, v3, spin */

/* ---- helpers ---------------------------------------------------------------------------- */

/* A code object file laid out as ROCr's loader lays it out: each PT_LOAD at its vaddr. */
static inline uint8_t *t_load_image(const char *path, uint64_t *size)
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
static inline void t_kernel(unsigned int which, const char *name, struct kfdemu_co_kernel *k,
		     struct kfdemu_effect *e)
{
	uint64_t size, mdlen;
	const uint8_t *md;
	uint8_t *img = t_load_image(t_co_path[which], &size);

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

static inline void *t_xlate(void *ctx, uint64_t va, uint64_t len)
{
	struct t_mem *m = ctx;

	if (va < T_BASE || va - T_BASE > T_SIZE || len > T_SIZE - (va - T_BASE))
		return NULL;
	return m->host + (va - T_BASE);
}

static uint64_t t_rng_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t t_rnd(void)
{
	/* xorshift64*: deterministic, so a failure reproduces. */
	t_rng_state ^= t_rng_state >> 12;
	t_rng_state ^= t_rng_state << 25;
	t_rng_state ^= t_rng_state >> 27;
	return t_rng_state * 0x2545f4914f6cdd1dull;
}

static inline uint64_t t_rnd_in(uint64_t lo, uint64_t hi)
{
	return lo + t_rnd() % (hi - lo + 1);
}

/* Two copies of the same random memory: one for the emulation, one for the reference. */
static inline void t_mem_pair(struct t_mem *a, struct t_mem *b)
{
	a->host = malloc(T_SIZE);
	b->host = malloc(T_SIZE);
	CU_ASSERT_FATAL(a->host && b->host);
	for (unsigned int i = 0; i < T_SIZE; i++)
		a->host[i] = b->host[i] = (uint8_t)t_rnd();
}

static inline void t_mem_free(struct t_mem *a, struct t_mem *b)
{
	free(a->host);
	free(b->host);
}

static inline void t_put(uint8_t *ka, const struct kfdemu_effect *e, unsigned int i, uint64_t v,
		unsigned int size)
{
	memcpy(ka + e->off[i], &v, size);
}

/* Host pointer of fake GPU address @va in @m (the reference works on host memory). */
static inline uint8_t *t_hp(struct t_mem *m, uint64_t va)
{
	return m->host + (va - T_BASE);
}

static inline struct kfdemu_geom t_geom1(uint32_t grid, uint16_t wg)
{
	return (struct kfdemu_geom){ .grid = { grid, 1, 1 }, .wg = { wg, 1, 1 } };
}

#endif /* T_KFDEMU_CO_H */
