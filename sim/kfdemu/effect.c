// SPDX-License-Identifier: MIT
/*
 * effect.c - the kernels whose effects the emulated /dev/kfd performs.
 *
 * The model runs no GPU code: a dispatch takes its model time and computes nothing. That is
 * right for a workload's kernels (only their timing matters to a scheduler) but not for the
 * few kernels a program reads the results of as part of how it works:
 *
 *   - ROCclr's blit kernels (HIP's hipMemcpy between device buffers, small or staged host
 *     copies, hipMemset, hipMemcpy2D): rocclr/device/blitcl.cpp, and the device library's
 *     amdblit.cl that its older kernels call;
 *   - hsaqm's probe kernel hsaqm_probe_spin (tools/probe/kernels/spin.cl), whose results the
 *     probe checks and whose length it calibrates from its iteration count.
 *
 * A kernel is recognised by its name, then by its arguments' names and sizes in the code
 * object's metadata (code_object.c): ROCclr changed these lists between releases (ROCm 5.2
 * and 6.1 pass srcI, dstI, srcOrigin, dstOrigin, size, remain; 6.4 src, dst, size,
 * remainder, aligned_size, end_ptr, next_chunk; 7.2 adds workgroup_size), and every offset
 * comes from the metadata, never from a release's layout. Each kind below is performed as its
 * kernel source defines it, from the kernel arguments and the dispatch's shape: which
 * global ids exist (the grid), and what each work-item writes. Where work-items would write
 * the same element in an unspecified order, the order of a wave's lockstep stores is kept.
 *
 * Memory is reached only through the translator the caller gives (the emulation's memory
 * objects): a range outside them is refused whole, where a GPU would fault.
 */
#include <errno.h>
#include <string.h>

#include "kfdemu_internal.h"
#include "hsaqm-common/log.h"

/* One argument list a kernel of that name has had. */
struct sig {
	const char *kernel;
	enum kfdemu_effect_kind kind;
	uint32_t nargs;
	const char *arg[KFDEMU_EFFECT_MAX_ARGS];
	uint8_t size[KFDEMU_EFFECT_MAX_ARGS];
	uint16_t ptrs;   /* which arguments are buffers (bit i: argument i) */
};

/*
 * Tried in order: a list with more arguments before its prefix (7.2's workgroup_size).
 * Pointers are 8 bytes, ulong 8, uint 4, ulong4 32.
 */
static const struct sig sigs[] = {
	{ "__amd_rocclr_copyBuffer", KFDEMU_EFFECT_COPY_V3, 8,
	  { "src", "dst", "size", "remainder", "aligned_size", "end_ptr", "next_chunk",
	    "workgroup_size" }, { 8, 8, 8, 4, 4, 8, 4, 4 }, 0x3 },
	{ "__amd_rocclr_copyBuffer", KFDEMU_EFFECT_COPY_V2, 7,
	  { "src", "dst", "size", "remainder", "aligned_size", "end_ptr", "next_chunk" },
	  { 8, 8, 8, 4, 4, 8, 4 }, 0x3 },
	{ "__amd_rocclr_copyBuffer", KFDEMU_EFFECT_COPY_V1, 6,
	  { "srcI", "dstI", "srcOrigin", "dstOrigin", "size", "remain" }, { 8, 8, 8, 8, 8, 4 },
	  0x3 },
	{ "__amd_rocclr_copyBufferAligned", KFDEMU_EFFECT_COPY_ALIGNED, 6,
	  { "src", "dst", "srcOrigin", "dstOrigin", "size", "alignment" }, { 8, 8, 8, 8, 8, 4 },
	  0x3 },
	{ "__amd_rocclr_copyBufferRect", KFDEMU_EFFECT_COPY_RECT, 5,
	  { "src", "dst", "srcRect", "dstRect", "size" }, { 8, 8, 32, 32, 32 }, 0x3 },
	{ "__amd_rocclr_copyBufferRectAligned", KFDEMU_EFFECT_COPY_RECT_ALIGNED, 5,
	  { "src", "dst", "srcRect", "dstRect", "size" }, { 8, 8, 32, 32, 32 }, 0x3 },
	{ "__amd_rocclr_fillBuffer", KFDEMU_EFFECT_FILL_V0, 6,
	  { "bufUChar", "bufUInt", "pattern", "patternSize", "offset", "size" },
	  { 8, 8, 8, 4, 8, 8 }, 0x7 },
	{ "__amd_rocclr_fillBufferAligned", KFDEMU_EFFECT_FILL_V3, 7,
	  { "buf", "pattern", "pattern_size", "alignment", "end_ptr", "next_chunk",
	    "workgroup_size" }, { 8, 8, 4, 4, 8, 4, 4 }, 0x3 },
	{ "__amd_rocclr_fillBufferAligned", KFDEMU_EFFECT_FILL_V2, 6,
	  { "buf", "pattern", "pattern_size", "alignment", "end_ptr", "next_chunk" },
	  { 8, 8, 4, 4, 8, 4 }, 0x3 },
	{ "__amd_rocclr_fillBufferAligned", KFDEMU_EFFECT_FILL_V1, 8,
	  { "bufUChar", "bufUShort", "bufUInt", "bufULong", "pattern", "patternSize", "offset",
	    "size" }, { 8, 8, 8, 8, 8, 4, 8, 8 }, 0x1f },
	{ "__amd_rocclr_fillBufferAligned2D", KFDEMU_EFFECT_FILL_2D, 10,
	  { "bufUChar", "bufUShort", "bufUInt", "bufULong", "pattern", "patternSize", "offset",
	    "width", "height", "pitch" }, { 8, 8, 8, 8, 8, 4, 8, 8, 8, 8 }, 0x1f },
	{ "hsaqm_probe_spin", KFDEMU_EFFECT_PROBE_SPIN, 4,
	  { "out", "iters", "seed", "wg_size" }, { 8, 4, 4, 4 }, 0x1 },
};

static const char *const kind_names[KFDEMU_EFFECT_KINDS] = {
	[KFDEMU_EFFECT_NONE] = "none",
	[KFDEMU_EFFECT_COPY_V1] = "rocclr-copy-v1",
	[KFDEMU_EFFECT_COPY_V2] = "rocclr-copy-v2",
	[KFDEMU_EFFECT_COPY_V3] = "rocclr-copy-v3",
	[KFDEMU_EFFECT_COPY_ALIGNED] = "rocclr-copy-aligned",
	[KFDEMU_EFFECT_COPY_RECT] = "rocclr-copy-rect",
	[KFDEMU_EFFECT_COPY_RECT_ALIGNED] = "rocclr-copy-rect-aligned",
	[KFDEMU_EFFECT_FILL_V0] = "rocclr-fill-v0",
	[KFDEMU_EFFECT_FILL_V1] = "rocclr-fill-v1",
	[KFDEMU_EFFECT_FILL_V2] = "rocclr-fill-v2",
	[KFDEMU_EFFECT_FILL_V3] = "rocclr-fill-v3",
	[KFDEMU_EFFECT_FILL_2D] = "rocclr-fill-2d",
	[KFDEMU_EFFECT_PROBE_SPIN] = "probe-spin",
};

const char *kfdemu_effect_name(enum kfdemu_effect_kind kind)
{
	return (unsigned int)kind < KFDEMU_EFFECT_KINDS ? kind_names[kind] : "?";
}

static bool bind_sig(const struct sig *s, const struct kfdemu_co_kernel *k, bool by_position,
		     struct kfdemu_effect *e)
{
	const struct kfdemu_co_arg *explicit[KFDEMU_CO_MAX_ARGS];
	uint32_t nexp = 0;

	memset(e, 0, sizeof(*e));
	if (by_position) {
		/* The signature's arguments come first in the metadata, the hidden ones after. */
		for (uint32_t i = 0; i < k->nargs; i++)
			if (!kfdemu_co_arg_hidden(&k->arg[i]))
				explicit[nexp++] = &k->arg[i];
		if (k->incomplete || nexp != s->nargs)
			return false;
	}
	for (uint32_t i = 0; i < s->nargs; i++) {
		const struct kfdemu_co_arg *a = by_position ? explicit[i] : kfdemu_co_arg(k, s->arg[i]);

		if (!a || a->size != s->size[i] || a->offset > UINT32_MAX - a->size)
			return false;
		e->off[i] = a->offset;
		if (a->offset + a->size > e->span)
			e->span = a->offset + a->size;
	}
	e->kind = s->kind;
	e->nargs = s->nargs;
	e->ptrs = s->ptrs;
	e->by_position = by_position;
	return true;
}

int kfdemu_effect_bind(const char *name, const struct kfdemu_co_kernel *k,
		       struct kfdemu_effect *e)
{
	bool known = false, named = false;

	if (!name || !k || !e)
		return -EINVAL;
	for (uint32_t i = 0; i < k->nargs; i++)
		named |= k->arg[i].name != NULL;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (strcmp(sigs[i].kernel, name))
			continue;
		known = true;
		if (bind_sig(&sigs[i], k, !named, e))
			return 0;
	}
	memset(e, 0, sizeof(*e));
	return known ? -EINVAL : -ENOENT;
}

unsigned int kfdemu_effect_buffers(const struct kfdemu_effect *e, const uint8_t *ka,
				   uint64_t *va, unsigned int max)
{
	unsigned int n = 0;

	for (uint32_t i = 0; e && ka && i < e->nargs && n < max; i++) {
		uint64_t v = 0;

		if (!(e->ptrs & (1u << i)))
			continue;
		memcpy(&v, ka + e->off[i], 8);
		if (v)
			va[n++] = v;
	}
	return n;
}

bool kfdemu_effect_per_wg(const struct kfdemu_effect *e)
{
	return e && e->kind == KFDEMU_EFFECT_PROBE_SPIN;
}

/* Argument @i (by the kind's list) as an unsigned of its size (4 or 8 bytes). */
static uint64_t arg_u(const struct kfdemu_effect *e, const uint8_t *ka, unsigned int i,
		      unsigned int size)
{
	uint64_t v = 0;

	/* Little-endian, like the GPU (and every host this runs on). */
	memcpy(&v, ka + e->off[i], size);
	return v;
}

#define U64(i) arg_u(e, ka, (i), 8)
#define U32(i) ((uint32_t)arg_u(e, ka, (i), 4))

/* A ulong4 argument. */
static void arg_u4(const struct kfdemu_effect *e, const uint8_t *ka, unsigned int i,
		   uint64_t v[4])
{
	memcpy(v, ka + e->off[i], 32);
}

bool kfdemu_effect_wg_ns(const struct kfdemu_effect *e, const uint8_t *ka, uint64_t *ns)
{
	if (!e || !ka || e->kind != KFDEMU_EFFECT_PROBE_SPIN)
		return false;
	/* iters < 2^32 and the step is small: the product cannot overflow. */
	*ns = (uint64_t)U32(1) * KFDEMU_SPIN_STEP_NS;
	if (!*ns)
		*ns = 1;
	return true;
}

uint32_t kfdemu_lcg_jump(uint32_t x, uint64_t n)
{
	/* x -> a x + c composed n times is x -> A x + C; square the map for each bit of n. */
	uint32_t mul = 1, add = 0, a = 1664525u, c = 1013904223u;

	for (; n; n >>= 1) {
		if (n & 1) {
			mul *= a;
			add = add * a + c;
		}
		c = c * a + c;
		a *= a;
	}
	return mul * x + add;
}

/* ---- performing ---------------------------------------------------------------------------- */

struct xl {
	kfdemu_xlate_fn fn;
	void *ctx;
};

static void *xl_at(const struct xl *x, uint64_t va, uint64_t len)
{
	/* An empty range still names memory: the GPU would not touch it, nothing is needed. */
	return x->fn(x->ctx, va, len ? len : 1);
}

/* Global ids that exist in dimension @d: the grid's, or all of them when it is unknown. */
static uint64_t ids(const struct kfdemu_geom *g, unsigned int d)
{
	return g ? g->grid[d] : UINT64_MAX;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * ROCclr 6.4+'s copy loop: work-item id copies elements id, id + next_chunk, ... (of @es
 * bytes) while dst + element * es < end_ptr. Element i is copied when its first work-item,
 * i mod next_chunk, exists (< @nid). ROCclr sets next_chunk to the grid: every element.
 */
static int strided_copy(const struct xl *x, uint64_t dst, uint64_t src, uint32_t es,
			uint64_t end_ptr, uint64_t nc, uint64_t nid)
{
	static int said;

	if (end_ptr <= dst)
		return 0;
	if (!nc) {
		/* The loop never advances: on a GPU the kernel would not end. */
		hsaqm_log_notice(&said, "kfdemu: a copyBuffer with next_chunk 0 (it would "
				 "never end on a GPU) is not performed");
		return -EINVAL;
	}
	uint64_t n = (end_ptr - dst + es - 1) / es, bytes = n * es;

	if (src + bytes < src)
		return -EINVAL;
	uint8_t *d = xl_at(x, dst, bytes);
	const uint8_t *s = xl_at(x, src, bytes);

	if (!d || !s)
		return -EFAULT;
	if (nc <= nid) {
		memmove(d, s, bytes);
		return 0;
	}
	for (uint64_t i = 0; i < n; i++)
		if (i % nc < nid)
			memmove(d + i * es, s + i * es, es);
	return 0;
}

/*
 * ROCclr 6.4+'s fill loop: work-item id writes the pattern's @ps elements (of @es bytes) at
 * element id * ps, then every next_chunk elements, while the block starts below end_ptr (a
 * block is written whole). With next_chunk a multiple of ps, block b is written when its
 * first work-item, b mod (next_chunk / ps), exists; ROCclr sets next_chunk to grid * ps.
 */
static int strided_fill(const struct xl *x, uint64_t buf, const uint8_t *pat, uint32_t ps,
			uint32_t es, uint64_t end_ptr, uint64_t nc, uint64_t nid)
{
	static int said;
	uint64_t block = (uint64_t)ps * es;

	if (end_ptr <= buf || !ps)
		return 0; /* no pattern element: the loop writes nothing */
	if (!nc || nc % ps) {
		hsaqm_log_notice(&said, "kfdemu: a fillBufferAligned with next_chunk %llu "
				 "for pattern_size %u (ROCclr never does that) is not performed",
				 (unsigned long long)nc, ps);
		return -EINVAL;
	}
	uint64_t nblk = (end_ptr - buf + block - 1) / block, stride = nc / ps, bytes = nblk * block;
	uint8_t *d = xl_at(x, buf, bytes);

	if (!d)
		return -EFAULT;
	for (uint64_t b = 0; b < nblk; b++)
		if (stride <= nid || b % stride < nid)
			memcpy(d + b * block, pat, block);
	return 0;
}

/* ROCclr 6.4+ copyBuffer: the aligned body by the strided loop, the tail by work-item 0. */
static int copy_v2(const struct kfdemu_effect *e, const uint8_t *ka, const struct kfdemu_geom *g,
		   const struct xl *x)
{
	uint64_t src = U64(0), dst = U64(1), size = U64(2), end_ptr = U64(5);
	uint32_t remainder = U32(3), es = U32(4) == 16 ? 16 : 4, next_chunk = U32(6);

	if (e->kind == KFDEMU_EFFECT_COPY_V3 && g && U32(7) != g->wg[0]) {
		/* id = group * workgroup_size + lane: ROCclr passes the dispatch's size. */
		static int said;

		hsaqm_log_notice(&said, "kfdemu: copyBuffer's workgroup_size %u is not the "
				 "dispatch's %u: performed as if it were", U32(7), g->wg[0]);
	}
	int err = strided_copy(x, dst, src, es, end_ptr, next_chunk, ids(g, 0));

	/* size - remainder wraps when remainder > size: the kernel's tail loop then runs none. */
	if (err || !remainder || remainder > size)
		return err;
	if (dst + size < dst || src + size < src)
		return -EINVAL;
	uint8_t *d = xl_at(x, dst + size - remainder, remainder);
	const uint8_t *s = xl_at(x, src + size - remainder, remainder);

	if (!d || !s)
		return -EFAULT;
	memmove(d, s, remainder);
	return 0;
}

/* ROCm <= 6.1 copyBuffer (amdblit.cl __amd_copyBuffer): dwords, the last one @remain bytes. */
static int copy_v1(const struct kfdemu_effect *e, const uint8_t *ka, const struct kfdemu_geom *g,
		   const struct xl *x)
{
	uint64_t src = U64(0) + U64(2), dst = U64(1) + U64(3), size = U64(4);
	uint32_t remain = U32(5);
	uint64_t n = min_u64(size, ids(g, 0)), bytes;

	if (!n)
		return 0;
	if (remain == 8) {
		bytes = n; /* one byte per work-item */
	} else if (n < size) {
		bytes = n * 4; /* the last, partial dword's work-item does not exist */
		if (bytes / 4 != n)
			return -EINVAL;
	} else {
		if (__builtin_mul_overflow(n - 1, 4, &bytes) || bytes + remain < bytes)
			return -EINVAL;
		bytes += remain;
	}
	uint8_t *d = xl_at(x, dst, bytes);
	const uint8_t *s = xl_at(x, src, bytes);

	if (!d || !s)
		return -EFAULT;
	memmove(d, s, bytes);
	return 0;
}

/* copyBufferAligned: elements of 16 bytes (alignment 16) or dwords, origins in elements. */
static int copy_aligned(const struct kfdemu_effect *e, const uint8_t *ka,
			const struct kfdemu_geom *g, const struct xl *x)
{
	uint64_t es = U32(5) == 16 ? 16 : 4, n = min_u64(U64(4), ids(g, 0)), so, dof, bytes;

	if (!n)
		return 0;
	if (__builtin_mul_overflow(U64(2), es, &so) || __builtin_mul_overflow(U64(3), es, &dof) ||
	    __builtin_mul_overflow(n, es, &bytes))
		return -EINVAL;
	uint8_t *d = xl_at(x, U64(1) + dof, bytes);
	const uint8_t *s = xl_at(x, U64(0) + so, bytes);

	if (!d || !s)
		return -EFAULT;
	memmove(d, s, bytes);
	return 0;
}

/* Offset of element (x, y, z) of a rect {row pitch, slice pitch, origin} in elements. */
static bool rect_off(const uint64_t r[4], uint64_t x, uint64_t y, uint64_t z, uint64_t *off)
{
	uint64_t a, b;

	return !__builtin_mul_overflow(y, r[0], &a) && !__builtin_mul_overflow(z, r[1], &b) &&
	       !__builtin_add_overflow(a, b, off) && !__builtin_add_overflow(*off, r[2], off) &&
	       !__builtin_add_overflow(*off, x, off);
}

/* copyBufferRect(Aligned): rows of size.x elements; a rect is {row pitch, slice pitch, origin}. */
static int copy_rect(const struct kfdemu_effect *e, const uint8_t *ka,
		     const struct kfdemu_geom *g, const struct xl *x)
{
	uint64_t sr[4], dr[4], sz[4];

	arg_u4(e, ka, 2, sr);
	arg_u4(e, ka, 3, dr);
	arg_u4(e, ka, 4, sz);
	uint64_t es = e->kind == KFDEMU_EFFECT_COPY_RECT ? 1 : sz[3] == 16 ? 16 : 4;
	uint64_t nx = min_u64(sz[0], ids(g, 0)), ny = min_u64(sz[1], ids(g, 1)),
		 nz = min_u64(sz[2], ids(g, 2));
	uint64_t slo, shi, dlo, dhi;

	if (!nx || !ny || !nz)
		return 0;
	/* The whole span each side touches, checked once: pitches may be anything. */
	if (!rect_off(sr, 0, 0, 0, &slo) || !rect_off(dr, 0, 0, 0, &dlo) ||
	    !rect_off(sr, nx, ny - 1, nz - 1, &shi) || !rect_off(dr, nx, ny - 1, nz - 1, &dhi) ||
	    shi < slo || dhi < dlo)
		return -EINVAL;
	uint64_t sbytes, dbytes, sbase, dbase, row;

	if (__builtin_mul_overflow(shi - slo, es, &sbytes) ||
	    __builtin_mul_overflow(dhi - dlo, es, &dbytes) ||
	    __builtin_mul_overflow(slo, es, &sbase) || __builtin_mul_overflow(dlo, es, &dbase) ||
	    __builtin_mul_overflow(nx, es, &row))
		return -EINVAL;
	uint8_t *d = xl_at(x, U64(1) + dbase, dbytes);
	const uint8_t *s = xl_at(x, U64(0) + sbase, sbytes);

	if (!d || !s)
		return -EFAULT;
	for (uint64_t z = 0; z < nz; z++)
		for (uint64_t y = 0; y < ny; y++) {
			uint64_t so, dof;

			/* Inside the checked spans: below their ends, so no overflow. */
			if (!rect_off(sr, 0, y, z, &so) || !rect_off(dr, 0, y, z, &dof))
				return -EINVAL;
			memmove(d + (dof - dlo) * es, s + (so - slo) * es, row);
		}
	return 0;
}

/*
 * The older fills (amdblit.cl __amd_fillBuffer, __amd_fillBufferAligned): work-item id < size
 * writes the pattern's @ps elements at element offset + id * ps of the first non-null buffer
 * among @bufs (widest first; bytes when none is set).
 */
static int fill_v01(const struct kfdemu_effect *e, const uint8_t *ka, const struct kfdemu_geom *g,
		    const struct xl *x)
{
	bool v0 = e->kind == KFDEMU_EFFECT_FILL_V0;
	/* V0: bufUChar, bufUInt; V1: bufUChar, bufUShort, bufUInt, bufULong. */
	unsigned int nbufs = v0 ? 2 : 4, ip = nbufs, ips = nbufs + 1, ioff = nbufs + 2,
		     isz = nbufs + 3;
	static const uint32_t v0_es[2] = { 1, 4 }, v1_es[4] = { 1, 2, 4, 8 };
	uint64_t buf = U64(0);
	uint32_t es = 1;

	for (unsigned int i = nbufs; i-- > 1;)
		if (U64(i)) {
			buf = U64(i);
			es = v0 ? v0_es[i] : v1_es[i];
			break;
		}
	uint64_t ps = U32(ips), n = min_u64(U64(isz), ids(g, 0)), first, count, bytes, pbytes;

	if (!n || !ps)
		return 0;
	if (__builtin_mul_overflow(n, ps, &count) || __builtin_mul_overflow(count, es, &bytes) ||
	    __builtin_mul_overflow(U64(ioff), es, &first) || __builtin_mul_overflow(ps, es, &pbytes))
		return -EINVAL;
	uint8_t *d = xl_at(x, buf + first, bytes);
	const uint8_t *pat = xl_at(x, U64(ip), pbytes);

	if (!d || !pat)
		return -EFAULT;
	for (uint64_t i = 0; i < n; i++)
		memcpy(d + i * pbytes, pat, pbytes);
	return 0;
}

/* ROCclr 6.4+ fillBufferAligned: pattern blocks of pattern_size elements, strided loop. */
static int fill_v2(const struct kfdemu_effect *e, const uint8_t *ka, const struct kfdemu_geom *g,
		   const struct xl *x)
{
	uint32_t ps = U32(2), align = U32(3), es;

	es = align == 16 ? 16 : align == 8 ? 8 : align == 4 ? 4 : align == 2 ? 2 : 1;
	if (!ps)
		return 0; /* nothing written per block, the loop only advances */
	if (e->kind == KFDEMU_EFFECT_FILL_V3 && g && U32(6) != g->wg[0]) {
		static int said;

		hsaqm_log_notice(&said, "kfdemu: fillBufferAligned's workgroup_size %u is "
				 "not the dispatch's %u: performed as if it were", U32(6), g->wg[0]);
	}
	const uint8_t *pat = xl_at(x, U64(1), (uint64_t)ps * es);

	if (!pat)
		return -EFAULT;
	return strided_fill(x, U64(0), pat, ps, es, U64(4), U32(5), ids(g, 0));
}

/*
 * fillBufferAligned2D (amdblit.cl, later blitcl.cpp): work-item (x < width, y < height)
 * writes patternSize elements from element origin + y * pitch + x. With patternSize > 1
 * neighbours overlap: a wave's lanes store pattern element i together, i ascending, so the
 * later i wins: performed in that order.
 */
static int fill_2d(const struct kfdemu_effect *e, const uint8_t *ka, const struct kfdemu_geom *g,
		   const struct xl *x)
{
	static const uint32_t wid[4] = { 1, 2, 4, 8 };
	uint64_t buf = U64(0);
	uint32_t es = 1;

	for (unsigned int i = 4; i-- > 1;)
		if (U64(i)) {
			buf = U64(i);
			es = wid[i];
			break;
		}
	uint64_t ps = U32(5), origin = U64(6), pitch = U64(9);
	uint64_t nx = min_u64(U64(7), ids(g, 0)), ny = min_u64(U64(8), ids(g, 1));
	uint64_t hi, bytes, lo, pbytes;

	if (!nx || !ny || !ps)
		return 0;
	/* Elements [origin, origin + span), span = (ny - 1) * pitch + nx - 1 + ps. */
	if (__builtin_mul_overflow(ny - 1, pitch, &hi) || __builtin_add_overflow(hi, nx - 1, &hi) ||
	    __builtin_add_overflow(hi, ps, &hi) || __builtin_mul_overflow(hi, es, &bytes) ||
	    __builtin_mul_overflow(origin, es, &lo) || __builtin_mul_overflow(ps, es, &pbytes))
		return -EINVAL;
	uint8_t *d = xl_at(x, buf + lo, bytes);
	const uint8_t *pat = xl_at(x, U64(4), pbytes);

	if (!d || !pat)
		return -EFAULT;
	for (uint64_t y = 0; y < ny; y++)
		for (uint64_t i = 0; i < ps; i++)
			for (uint64_t xi = 0; xi < nx; xi++)
				memcpy(d + ((y * pitch + xi + i) * es), pat + i * es, es);
	return 0;
}

/*
 * hsaqm_probe_spin: work-item l of workgroup (gx, ...) stores LCG^iters(seed ^ gid) at
 * out[gid], gid = gx * wg_size + l (32-bit, as the kernel computes it), l < the workgroup's
 * work-items in x. Workgroups with the same gx (y, z > 1) store the same values.
 */
static int probe_wg(const struct kfdemu_effect *e, const uint8_t *ka, const struct kfdemu_geom *g,
		    uint64_t gx, const struct xl *x)
{
	uint64_t out = U64(0);
	uint32_t iters = U32(1), seed = U32(2), wsz = U32(3);
	uint64_t lanes = g ? g->wg[0] : wsz;

	if (g) {
		uint64_t first = gx * g->wg[0];

		if (first >= g->grid[0])
			return 0;
		lanes = min_u64(lanes, g->grid[0] - first); /* the last workgroup may be partial */
	}
	uint32_t gid0 = (uint32_t)(gx * wsz);

	/* Up to two runs: gid wraps at 2^32 as the kernel's uint does. */
	for (uint64_t l = 0; l < lanes;) {
		uint32_t gid = gid0 + (uint32_t)l;
		uint64_t run = min_u64(lanes - l, (uint64_t)UINT32_MAX - gid + 1);
		uint32_t *o = xl_at(x, out + (uint64_t)gid * 4, run * 4);

		if (!o)
			return -EFAULT;
		for (uint64_t i = 0; i < run; i++)
			o[i] = kfdemu_lcg_jump(seed ^ (gid + (uint32_t)i), iters);
		l += run;
	}
	return 0;
}

static int probe(const struct kfdemu_effect *e, const uint8_t *ka, const struct kfdemu_geom *g,
		 uint64_t wg, const struct xl *x)
{
	uint64_t nx = 1;

	if (g) {
		if (!g->wg[0] || !g->wg[1] || !g->wg[2])
			return -EINVAL;
		nx = ((uint64_t)g->grid[0] + g->wg[0] - 1) / g->wg[0];
	} else if (wg == KFDEMU_EFFECT_ALL_WGS) {
		return -EINVAL; /* all of an unknown grid */
	}
	if (wg != KFDEMU_EFFECT_ALL_WGS)
		return probe_wg(e, ka, g, g ? wg % nx : wg, x); /* workgroups go x fastest */
	for (uint64_t gx = 0; gx < nx; gx++) {
		int err = probe_wg(e, ka, g, gx, x);

		if (err)
			return err;
	}
	return 0;
}

int kfdemu_effect_run(const struct kfdemu_effect *e, const uint8_t *kernarg,
		      const struct kfdemu_geom *g, uint64_t wg, kfdemu_xlate_fn xlate, void *ctx)
{
	const struct xl x = { xlate, ctx };

	if (!e || !kernarg || !xlate)
		return -EINVAL;
	if (g && (!g->grid[0] || !g->grid[1] || !g->grid[2]))
		return 0; /* an empty grid runs no work-item */
	switch (e->kind) {
	case KFDEMU_EFFECT_COPY_V1: return copy_v1(e, kernarg, g, &x);
	case KFDEMU_EFFECT_COPY_V2:
	case KFDEMU_EFFECT_COPY_V3: return copy_v2(e, kernarg, g, &x);
	case KFDEMU_EFFECT_COPY_ALIGNED: return copy_aligned(e, kernarg, g, &x);
	case KFDEMU_EFFECT_COPY_RECT:
	case KFDEMU_EFFECT_COPY_RECT_ALIGNED: return copy_rect(e, kernarg, g, &x);
	case KFDEMU_EFFECT_FILL_V0:
	case KFDEMU_EFFECT_FILL_V1: return fill_v01(e, kernarg, g, &x);
	case KFDEMU_EFFECT_FILL_V2:
	case KFDEMU_EFFECT_FILL_V3: return fill_v2(e, kernarg, g, &x);
	case KFDEMU_EFFECT_FILL_2D: return fill_2d(e, kernarg, g, &x);
	case KFDEMU_EFFECT_PROBE_SPIN: return probe(e, kernarg, g, wg, &x);
	default: return -EINVAL;
	}
}
