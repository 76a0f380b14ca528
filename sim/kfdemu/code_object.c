// SPDX-License-Identifier: MIT
/*
 * code_object.c - what a loaded AMDGPU code object says about its kernels' arguments.
 *
 * A kernel's argument list (name, offset and size of each argument in the kernarg segment)
 * is in the code object's AMDGPU metadata: an ELF note of type NT_AMDGPU_METADATA (32) owned
 * by "AMDGPU", whose descriptor is a MessagePack map (code object v3 and later: ROCm 5.2's
 * default v4 to 7.x's v5/v6; LLVM AMDGPUUsage, "Code Object V3 Metadata"):
 *
 *   { "amdhsa.kernels": [ { ".name": str, ".symbol": str, ".kernarg_segment_size": uint,
 *                           ".args": [ { ".name": str, ".offset": uint, ".size": uint,
 *                                        ".value_kind": str, ... }, ... ], ... }, ... ], ... }
 *
 * Argument names are there when the compiler kept them: ROCclr compiles its blit kernels
 * with -cl-kernel-arg-info (rocclr/compiler/lib/utils/options.cpp adds it to every
 * program), a plain clang OpenCL build drops them (it discards value names), and hidden
 * arguments never have one. Readers below find an argument by name, or let the caller
 * fall back to the explicit arguments' order.
 *
 * The note lies in the first loadable segment, which ROCr's loader copies to GPU memory
 * with the rest of the image, so it is read where the kernel descriptor's image is. The
 * image and the note come from a process the emulation serves, i.e. untrusted bytes: every
 * read is bounds-checked, nesting is walked without recursion, and anything malformed is
 * "no metadata", never a crash.
 */
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "kfdemu_internal.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif
#define NT_AMDGPU_METADATA 32u

/* [off, off + len) inside @size bytes, without overflow. */
static bool span_ok(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

int kfdemu_co_metadata(const uint8_t *img, uint64_t size, const uint8_t **md, uint64_t *md_len)
{
	Elf64_Ehdr eh;

	if (!img || !md || !md_len || size < sizeof(eh))
		return -EINVAL;
	memcpy(&eh, img, sizeof(eh)); /* the image may be any alignment in a test */
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_AMDGPU ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    !span_ok(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr), size))
		return -EINVAL;
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, img + eh.e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph));
		/* The loader places segments at their virtual addresses from the image start. */
		if (ph.p_type != PT_NOTE || !span_ok(ph.p_vaddr, ph.p_memsz, size))
			continue;
		/* Entries are padded to 4 bytes (8 when the segment says so). */
		uint64_t align = ph.p_align == 8 ? 8 : 4;
		uint64_t p = ph.p_vaddr, end = ph.p_vaddr + ph.p_memsz;

		while (end - p >= 12) {
			uint32_t nh[3]; /* namesz, descsz, type */

			memcpy(nh, img + p, sizeof(nh));
			uint64_t name = p + 12, desc = name + round_up(nh[0], align);

			if (!span_ok(name, nh[0], end) || desc > end ||
			    !span_ok(desc, nh[1], end))
				break;
			if (nh[2] == NT_AMDGPU_METADATA && nh[0] == 7 &&
			    !memcmp(img + name, "AMDGPU", 7)) {
				*md = img + desc;
				*md_len = nh[1];
				return 0;
			}
			uint64_t next = desc + round_up(nh[1], align);

			if (next <= p || next > end)
				break;
			p = next;
		}
	}
	return -ENOENT;
}

/* ---- A MessagePack reader: what the metadata uses, every read bounds-checked ------------- */

enum mp_type {
	MP_NIL, MP_BOOL, MP_UINT, MP_INT, MP_FLOAT, MP_STR, MP_BIN, MP_EXT, MP_ARRAY, MP_MAP
};

struct mp {
	const uint8_t *p, *end;
};

struct mp_obj {
	enum mp_type t;
	uint64_t u;           /* MP_UINT; MP_INT (two's complement); MP_ARRAY/MP_MAP: count */
	const uint8_t *s;     /* MP_STR/MP_BIN/MP_EXT: the payload */
	uint32_t n;           /* its length */
};

static bool mp_take(struct mp *m, size_t n, const uint8_t **out)
{
	if ((size_t)(m->end - m->p) < n)
		return false;
	*out = m->p;
	m->p += n;
	return true;
}

/* Big-endian unsigned of @n bytes (1, 2, 4, 8). */
static bool mp_be(struct mp *m, unsigned int n, uint64_t *v)
{
	const uint8_t *b;

	if (!mp_take(m, n, &b))
		return false;
	*v = 0;
	for (unsigned int i = 0; i < n; i++)
		*v = *v << 8 | b[i];
	return true;
}

static bool mp_payload(struct mp *m, struct mp_obj *o, enum mp_type t, uint64_t len)
{
	o->t = t;
	o->n = (uint32_t)len;
	return len <= UINT32_MAX && mp_take(m, (size_t)len, &o->s);
}

/*
 * One object's header. A string, binary or extension is consumed whole; an array or a map
 * leaves its elements (o->u of them, pairs for a map) to the caller.
 */
static bool mp_next(struct mp *m, struct mp_obj *o)
{
	const uint8_t *b;
	uint64_t v;

	if (!mp_take(m, 1, &b))
		return false;
	uint8_t c = *b;

	memset(o, 0, sizeof(*o));
	if (c <= 0x7f) {
		o->t = MP_UINT;
		o->u = c;
		return true;
	}
	if (c >= 0xe0) {
		o->t = MP_INT;
		o->u = (uint64_t)(int64_t)(int8_t)c;
		return true;
	}
	if ((c & 0xf0) == 0x80 || (c & 0xf0) == 0x90) {
		o->t = (c & 0xf0) == 0x80 ? MP_MAP : MP_ARRAY;
		o->u = c & 0x0f;
		return true;
	}
	if ((c & 0xe0) == 0xa0)
		return mp_payload(m, o, MP_STR, c & 0x1f);
	switch (c) {
	case 0xc0: o->t = MP_NIL; return true;
	case 0xc2: case 0xc3: o->t = MP_BOOL; o->u = c & 1; return true;
	case 0xc4: case 0xc5: case 0xc6:
		return mp_be(m, 1u << (c - 0xc4), &v) && mp_payload(m, o, MP_BIN, v);
	case 0xc7: case 0xc8: case 0xc9: /* ext 8/16/32: length, type byte, data */
		return mp_be(m, 1u << (c - 0xc7), &v) && mp_take(m, 1, &b) &&
		       mp_payload(m, o, MP_EXT, v);
	case 0xca: o->t = MP_FLOAT; return mp_be(m, 4, &o->u);
	case 0xcb: o->t = MP_FLOAT; return mp_be(m, 8, &o->u);
	case 0xcc: case 0xcd: case 0xce: case 0xcf:
		o->t = MP_UINT;
		return mp_be(m, 1u << (c - 0xcc), &o->u);
	case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
		unsigned int n = 1u << (c - 0xd0);

		o->t = MP_INT;
		if (!mp_be(m, n, &o->u))
			return false;
		if (n < 8 && (o->u >> (8 * n - 1)) & 1) /* sign-extend */
			o->u |= ~0ull << (8 * n);
		return true;
	}
	case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: /* fixext 1-16 */
		return mp_take(m, 1, &b) && mp_payload(m, o, MP_EXT, 1u << (c - 0xd4));
	case 0xd9: case 0xda: case 0xdb:
		return mp_be(m, 1u << (c - 0xd9), &v) && mp_payload(m, o, MP_STR, v);
	case 0xdc: case 0xdd:
		o->t = MP_ARRAY;
		return mp_be(m, c == 0xdc ? 2 : 4, &o->u);
	case 0xde: case 0xdf:
		o->t = MP_MAP;
		return mp_be(m, c == 0xde ? 2 : 4, &o->u);
	}
	return false; /* 0xc1: never used */
}

/* Skip @n whole objects. No recursion: nested elements join the count still to skip. */
static bool mp_skip(struct mp *m, uint64_t n)
{
	struct mp_obj o;

	while (n) {
		/* Every object takes at least one byte: the loop ends with the buffer. */
		if (!mp_next(m, &o))
			return false;
		n--;
		if (o.t == MP_ARRAY || o.t == MP_MAP) {
			uint64_t add = o.t == MP_MAP ? 2 * o.u : o.u;

			/* Each pending element needs a byte: more than are left is malformed. */
			if (add > (uint64_t)(m->end - m->p) || n + add > (uint64_t)(m->end - m->p))
				return false;
			n += add;
		}
	}
	return true;
}

/* One whole value: a container's elements are skipped (o->t still says what it was). */
static bool mp_value(struct mp *m, struct mp_obj *o)
{
	if (!mp_next(m, o))
		return false;
	if (o->t == MP_ARRAY || o->t == MP_MAP)
		return mp_skip(m, o->t == MP_MAP ? 2 * o->u : o->u);
	return true;
}

static bool mp_is(const struct mp_obj *o, const char *s)
{
	size_t n = strlen(s);

	return o->t == MP_STR && o->n == n && !memcmp(o->s, s, n);
}

/* A non-negative integer that fits 32 bits. */
static bool mp_u32(const struct mp_obj *o, uint32_t *v)
{
	if ((o->t != MP_UINT && o->t != MP_INT) || o->u > UINT32_MAX)
		return false;
	*v = (uint32_t)o->u;
	return true;
}

/* One entry of .args; false for an entry that is not a map with .offset and .size. */
static bool parse_arg(struct mp *m, struct kfdemu_co_arg *a, bool *broken)
{
	struct mp_obj o, key, v;
	bool has_off = false, has_size = false;

	memset(a, 0, sizeof(*a));
	*broken = false;
	if (!mp_next(m, &o))
		return *broken = true, false;
	if (o.t != MP_MAP) {
		*broken = (o.t == MP_ARRAY && !mp_skip(m, o.u));
		return false;
	}
	for (uint64_t i = 0; i < o.u; i++) {
		if (!mp_value(m, &key) || !mp_value(m, &v))
			return *broken = true, false;
		if (mp_is(&key, ".name") && v.t == MP_STR) {
			a->name = (const char *)v.s;
			a->name_len = v.n;
		} else if (mp_is(&key, ".value_kind") && v.t == MP_STR) {
			a->kind = (const char *)v.s;
			a->kind_len = v.n;
		} else if (mp_is(&key, ".offset")) {
			has_off = mp_u32(&v, &a->offset);
		} else if (mp_is(&key, ".size")) {
			has_size = mp_u32(&v, &a->size) && a->size;
		}
	}
	return has_off && has_size;
}

/* One entry of amdhsa.kernels into @k; *match when its .name or .symbol names @name. */
static bool parse_kernel(struct mp *m, const char *name, struct kfdemu_co_kernel *k, bool *match)
{
	struct mp_obj o, key, v;
	size_t nl = strlen(name);

	*match = false;
	memset(k, 0, sizeof(*k));
	if (!mp_next(m, &o))
		return false;
	if (o.t != MP_MAP)
		return o.t == MP_ARRAY ? mp_skip(m, o.u) : true;
	for (uint64_t i = 0; i < o.u; i++) {
		if (!mp_value(m, &key))
			return false;
		if (!mp_is(&key, ".args")) {
			if (!mp_value(m, &v))
				return false;
			/* ".symbol" is "<name>.kd" */
			if ((mp_is(&key, ".name") && v.t == MP_STR && v.n == nl &&
			     !memcmp(v.s, name, nl)) ||
			    (mp_is(&key, ".symbol") && v.t == MP_STR && v.n == nl + 3 &&
			     !memcmp(v.s, name, nl) && !memcmp(v.s + nl, ".kd", 3)))
				*match = true;
			else if (mp_is(&key, ".kernarg_segment_size"))
				mp_u32(&v, &k->kernarg_size);
			continue;
		}
		struct mp_obj arr;

		if (!mp_next(m, &arr))
			return false;
		if (arr.t != MP_ARRAY) {
			if (arr.t == MP_MAP && !mp_skip(m, 2 * arr.u))
				return false;
			k->incomplete = true;
			continue;
		}
		for (uint64_t j = 0; j < arr.u; j++) {
			struct kfdemu_co_arg a;
			bool broken;

			if (!parse_arg(m, &a, &broken)) {
				if (broken)
					return false;
				k->incomplete = true; /* an entry we cannot use: the rest still counts */
				continue;
			}
			if (k->nargs < KFDEMU_CO_MAX_ARGS)
				k->arg[k->nargs++] = a;
			else
				k->incomplete = true;
		}
	}
	return true;
}

int kfdemu_co_kernel_args(const uint8_t *md, uint64_t len, const char *name,
			  struct kfdemu_co_kernel *out)
{
	struct mp m = { md, md + len };
	struct mp_obj o, key, arr;

	if (!md || !name || !out || !*name)
		return -EINVAL;
	if (!mp_next(&m, &o) || o.t != MP_MAP)
		return -EINVAL;
	for (uint64_t i = 0; i < o.u; i++) {
		if (!mp_value(&m, &key))
			return -EINVAL;
		if (!mp_is(&key, "amdhsa.kernels")) {
			if (!mp_skip(&m, 1))
				return -EINVAL;
			continue;
		}
		if (!mp_next(&m, &arr) || arr.t != MP_ARRAY)
			return -EINVAL;
		for (uint64_t j = 0; j < arr.u; j++) {
			bool match;

			if (!parse_kernel(&m, name, out, &match))
				return -EINVAL;
			if (match)
				return 0;
		}
		return -ENOENT;
	}
	return -ENOENT;
}

const struct kfdemu_co_arg *kfdemu_co_arg(const struct kfdemu_co_kernel *k, const char *name)
{
	size_t n = strlen(name);

	for (uint32_t i = 0; i < k->nargs; i++)
		if (k->arg[i].name && k->arg[i].name_len == n && !memcmp(k->arg[i].name, name, n))
			return &k->arg[i];
	return NULL;
}

bool kfdemu_co_arg_hidden(const struct kfdemu_co_arg *a)
{
	return a->kind && a->kind_len >= 7 && !memcmp(a->kind, "hidden_", 7);
}
