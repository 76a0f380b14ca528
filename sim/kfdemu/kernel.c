// SPDX-License-Identifier: MIT
/*
 * kernel.c - kernel descriptors -> model kernels, by name (the emulated /dev/kfd's front end).
 *
 * A dispatch's kernel_object is the address of a kernel descriptor that ROCr's loader copied
 * into memory it allocated through the KFD. The loader copies a code object's loadable segments from
 * virtual address 0, so the image starts with the ELF header, followed (in the first
 * segment) by the program headers, .dynsym, .dynstr and .hash, and the kernel descriptors
 * (.rodata). The face walks back from the descriptor, page by page inside the allocation
 * that holds it, to an ELF header for EM_AMDGPU, follows PT_DYNAMIC to the dynamic symbol
 * table, and takes the name of the STT_OBJECT symbol "<kernel>.kd" whose value is the
 * descriptor's offset in the image: that is the kernel's name. Nothing is read outside the
 * allocation, and every table is bounds-checked against it.
 *
 * The model kernel's per-workgroup duration comes from a table keyed by kernel name
 * ($HSAQM_KFDEMU_KERNELS: lines "name duration_ns", '#' comments), default
 * $HSAQM_KFDEMU_KERNEL_NS or 10 us (assumption). Waves per workgroup come from the dispatch
 * (work-items / 64, rounded up), so one model kernel is registered per (descriptor, waves).
 *
 * ROCr's own blit kernels are not code objects: ROCr assembles them behind an
 * amd_kernel_code_t header whose register counts it sets itself (ROCr amd_gpu_agent.cpp,
 * AssembleShader: CopyAligned 32 SGPRs / 12 VGPRs, CopyMisaligned 23 / 10, Fill 19 / 8), so
 * the granulated counts in compute_pgm_rsrc1 tell them apart. These are the kernels that
 * *do* something on the model: "Kernels do not compute; copies do". Their workgroup callback
 * (workgroup 0, on the model's thread, when the model runs the kernel) performs the copy or
 * fill their kernel arguments describe (ROCr amd_blit_kernel.h, KernelArgs: the copy is
 * [phase1_src_start, last phase end), the fill [phase1_dst_start, phase2_dst_end) of dwords),
 * only between ranges the face handed out or registered. The loader's copy of a code object
 * into device memory goes through them, which is how kernel descriptors get their names.
 * Any other descriptor outside a code object is "rocr-internal-shader".
 *
 * Kernels of code objects whose effects programs depend on (ROCclr's blit kernels, hsaqm's
 * probe kernel: effect.c) are found by name, their arguments by name in the same image's
 * metadata (code_object.c), once per descriptor. A blit's effect is performed whole by
 * workgroup 0's callback, the probe kernel's by each workgroup's; the probe kernel's model
 * duration comes from its iteration count, so one model kernel is registered per
 * (descriptor, waves, duration). The dispatch's shape (which work-items exist) reaches the
 * callback through a small table of dispatches in flight, keyed by kernarg address; a
 * dispatch it lost (more in flight than it holds) is performed as covering what its
 * arguments describe, as ROCclr's dispatches always do.
 */
#include <elf.h>
#include <stddef.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hsa/amd_hsa_kernel_code.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-sim/sim.h"
#include "kfd_face_internal.h"
#include "kfdemu_internal.h"
#include "hsaqm-common/log.h"
#include "hsaqm-common/text.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

#define KFDEMU_DEFAULT_KERNEL_NS 10000ull /* assumption: a short kernel's workgroup */
#define KFDEMU_MAX_SCAN (64ull << 20)     /* how far back an image header may be */
#define KFDEMU_FLIGHTS 256                /* dispatches with effects in flight, tracked */
/* Model kernels per descriptor and waves (the probe's durations): beyond, the nearest is used. */
#define KFDEMU_MAX_DURATIONS 64

enum blit { BLIT_NONE, BLIT_COPY_ALIGNED, BLIT_COPY_MISALIGNED, BLIT_FILL };

struct kstat {
	char name[128];
	enum blit blit;
	uint64_t duration_ns;  /* the table's; kernels timed by their arguments: the last one's */
	uint64_t dispatches;   /* atomic */
	uint64_t workgroups;   /* atomic: the model's workgroup callback counts */
	enum kfdemu_effect_kind effect;
	uint64_t performed;    /* atomic: dispatches whose effect was performed */
	uint64_t refused;      /* atomic: ... refused (outside GPU memory, bad arguments) */
	bool time_only;        /* a descriptor of this name is not performed: said once */
};

/* One kernel descriptor: its name's statistics and the effect it has. Never freed. */
struct kdesc {
	uint64_t kobj;
	struct kstat *st;
	struct kfdemu_effect eff;   /* kind NONE for kernels that only take time */
};

/* One model kernel: (descriptor, waves per workgroup, per-workgroup duration). */
struct kentry {
	struct kdesc *kd;
	uint32_t waves;
	uint64_t duration_ns;
	uint64_t handle;
};

static struct {
	pthread_mutex_t lock;
	struct kentry *e;
	size_t n, cap;
	struct kstat **st;
	size_t nst, capst;
	struct kdesc **kd;
	size_t nkd, capkd;
} kt = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * Where a dispatch's memory is in this process: the memory objects holding its kernel
 * arguments and buffers, found when the translator hands it over. A workgroup callback
 * cannot ask the KFD face: an ioctl holding the face's lock may be waiting for the very
 * model thread that runs the callback (DBG_TRAP SUSPEND_QUEUES waits for the device to save
 * its waves), so every address the callback touches is found here instead.
 */
#define KPIN_OBJECTS 6

struct kpin {
	unsigned int n;
	struct {
		uint64_t base, size;
		uint8_t *host;
	} obj[KPIN_OBJECTS];
};

/* A dispatch with an effect, between its hand-over and its last workgroup. */
struct kflight {
	uint64_t kernarg;      /* 0: free */
	uint64_t left;         /* workgroup callbacks still to come */
	uint64_t seq;          /* age, for eviction */
	bool known;            /* g is the dispatch's shape (else: unknown) */
	struct kfdemu_geom g;
	struct kpin pin;
};

static struct {
	pthread_mutex_t lock;  /* a leaf: nothing is called while it is held */
	struct kflight f[KFDEMU_FLIGHTS];
	uint64_t seq;
} fl = { .lock = PTHREAD_MUTEX_INITIALIZER };

void *kfdemu_gpu_ptr(uint64_t va, uint64_t len)
{
	uint64_t base, size;
	void *host;

	if (!va || sim_kfd_face_gpu_object(kfdemu_sim(), va, &base, &size, &host))
		return NULL;
	if (len > size || va - base > size - len)
		return NULL; /* runs past the object: a GPU would fault there */
	return (char *)host + (va - base);
}

/* [off, off + len) inside an image of @size bytes. */
static bool in_image(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* Name of the ".kd" symbol at offset @off of the ELF image at @img (@size readable bytes). */
static bool name_from_image(const uint8_t *img, uint64_t size, uint64_t off, char *out,
			    size_t outlen)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	uint64_t symtab = 0, strtab = 0, strsz = 0, hash = 0, dyn = 0, dynsz = 0;

	if (!in_image(0, sizeof(*eh), size) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_AMDGPU ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    !in_image(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), size))
		return false;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(img + eh->e_phoff);

	for (unsigned int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC) {
			dyn = ph[i].p_vaddr;
			dynsz = ph[i].p_memsz;
		}
	if (!dyn || !in_image(dyn, dynsz, size))
		return false;
	for (const Elf64_Dyn *d = (const Elf64_Dyn *)(img + dyn);
	     (const uint8_t *)(d + 1) <= img + dyn + dynsz && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_SYMTAB)
			symtab = d->d_un.d_ptr;
		else if (d->d_tag == DT_STRTAB)
			strtab = d->d_un.d_ptr;
		else if (d->d_tag == DT_STRSZ)
			strsz = d->d_un.d_val;
		else if (d->d_tag == DT_HASH)
			hash = d->d_un.d_ptr;
	}
	if (!symtab || !strtab || !in_image(strtab, strsz, size))
		return false;
	uint64_t nsym;

	if (hash && in_image(hash, 8, size))
		nsym = ((const uint32_t *)(img + hash))[1]; /* nchain = number of symbols */
	else if (strtab > symtab)
		nsym = (strtab - symtab) / sizeof(Elf64_Sym); /* lld puts .dynstr after .dynsym */
	else
		return false;
	if (!in_image(symtab, nsym * sizeof(Elf64_Sym), size))
		return false;
	const Elf64_Sym *sym = (const Elf64_Sym *)(img + symtab);
	const char *str = (const char *)(img + strtab);

	for (uint64_t i = 0; i < nsym; i++) {
		if (sym[i].st_value != off || ELF64_ST_TYPE(sym[i].st_info) != STT_OBJECT ||
		    sym[i].st_name >= strsz)
			continue;
		const char *nm = str + sym[i].st_name;
		size_t len = strnlen(nm, strsz - sym[i].st_name);

		if (len < 4 || len == strsz - sym[i].st_name || strcmp(nm + len - 3, ".kd"))
			continue;
		snprintf(out, outlen, "%.*s", (int)(len - 3), nm);
		return true;
	}
	return false;
}

/* One of ROCr's assembled blit shaders at @kobj (an amd_kernel_code_t), or BLIT_NONE. */
static enum blit blit_kind(uint64_t kobj)
{
	const amd_kernel_code_t *k = kfdemu_gpu_ptr(kobj, sizeof(*k));

	if (!k || k->kernel_code_entry_byte_offset != (int64_t)sizeof(amd_kernel_code_t))
		return BLIT_NONE;
	uint32_t vgpr = k->compute_pgm_rsrc1 & 0x3f, sgpr = (k->compute_pgm_rsrc1 >> 6) & 0xf;

	if (sgpr == (32 - 1) / 8 && vgpr == (12 - 1) / 4)
		return BLIT_COPY_ALIGNED;
	if (sgpr == (23 - 1) / 8 && vgpr == (10 - 1) / 4)
		return BLIT_COPY_MISALIGNED;
	if (sgpr == (19 - 1) / 8 && vgpr == (8 - 1) / 4)
		return BLIT_FILL;
	return BLIT_NONE;
}

static const char *const blit_names[] = {
	[BLIT_NONE] = "rocr-internal-shader",
	[BLIT_COPY_ALIGNED] = "rocr-blit-copy-aligned",
	[BLIT_COPY_MISALIGNED] = "rocr-blit-copy-misaligned",
	[BLIT_FILL] = "rocr-blit-fill",
};

/* ROCr's blit kernel arguments (amd_blit_kernel.h, union KernelArgs), as laid out there. */
struct blit_copy_aligned_args {
	uint64_t phase_start[8]; /* src/dst pairs of phases 1-4 */
	uint64_t src_end, dst_end;
	uint32_t num_workitems;
};
struct blit_copy_misaligned_args {
	uint64_t phase_start[4];
	uint64_t src_end, dst_end;
	uint32_t num_workitems;
};
struct blit_fill_args {
	uint64_t phase1_dst_start, phase2_dst_start, phase2_dst_end;
	uint32_t fill_value, num_workitems;
};

/* The buffers a ROCr blit reaches (its copy's source and destination, its fill's start). */
static unsigned int blit_buffers(enum blit kind, const uint8_t *ka, uint64_t *va)
{
	if (kind == BLIT_FILL) {
		memcpy(va, ka + offsetof(struct blit_fill_args, phase1_dst_start), 8);
		return 1;
	}
	/* Both copy layouts start with the phase-1 source and destination. */
	memcpy(va, ka, 16);
	return 2;
}

/* Workgroup 0 of a ROCr blit (or its hand-over in shared mode): the whole copy or fill. */
static void blit_wg(struct kstat *st, uint64_t kernarg_va, kfdemu_xlate_fn xlate, void *ctx)
{
	const void *kernarg = xlate(ctx, kernarg_va, sizeof(struct blit_copy_aligned_args));
	uint64_t src, dst, len;
	void *d;
	const void *s;

	if (!kernarg)
		return;
	if (st->blit == BLIT_FILL) {
		const struct blit_fill_args *a = kernarg;

		dst = a->phase1_dst_start;
		len = a->phase2_dst_end - dst;
		d = a->phase2_dst_end >= dst ? xlate(ctx, dst, len) : NULL;
		if (!d) {
			hsaqm_log_warn("kfdemu: blit fill outside the process's GPU memory, skipped");
			return;
		}
		for (uint64_t i = 0; i + 4 <= len; i += 4)
			memcpy((uint8_t *)d + i, &a->fill_value, 4);
		return;
	}
	if (st->blit == BLIT_COPY_ALIGNED) {
		const struct blit_copy_aligned_args *a = kernarg;

		src = a->phase_start[0];
		dst = a->phase_start[1];
		len = a->src_end - src;
	} else {
		const struct blit_copy_misaligned_args *a = kernarg;

		src = a->phase_start[0];
		dst = a->phase_start[1];
		len = a->src_end - src;
	}
	s = xlate(ctx, src, len);
	d = xlate(ctx, dst, len);
	if (!s || !d) {
		hsaqm_log_warn("kfdemu: blit copy of %llu bytes outside the process's GPU memory, "
			       "skipped", (unsigned long long)len);
		return;
	}
	memmove(d, s, len);
}

/*
 * The name of descriptor @kobj, and the code object image it is in (*img NULL for ROCr's
 * own shaders, which are in none).
 */
static void kernel_name(uint64_t kobj, char *out, size_t outlen, const uint8_t **img_out,
			uint64_t *img_size)
{
	uint64_t base, size;
	void *host;

	*img_out = NULL;
	*img_size = 0;
	snprintf(out, outlen, "%s", blit_names[blit_kind(kobj)]);
	/* The image is read where the GPU reads it: the object's memory (device memory too). */
	if (sim_kfd_face_gpu_object(kfdemu_sim(), kobj, &base, &size, &host))
		return;
	const uint8_t *obj = host;
	uint64_t off = kobj - base;

	for (uint64_t img = off & ~(uint64_t)4095; off - img <= KFDEMU_MAX_SCAN; img -= 4096) {
		if (name_from_image(obj + img, size - img, off - img, out, outlen)) {
			*img_out = obj + img;
			*img_size = size - img;
			return;
		}
		if (img < 4096)
			break;
	}
}

/* The effect kernel @name of the image has, found in its metadata (NONE for most kernels). */
static void kernel_effect(const char *name, const uint8_t *img, uint64_t size,
			  struct kfdemu_effect *eff)
{
	struct kfdemu_co_kernel *k;
	const uint8_t *md;
	uint64_t md_len;
	int err;

	memset(eff, 0, sizeof(*eff));
	if (!img || kfdemu_effect_bind(name, &(struct kfdemu_co_kernel){ 0 }, eff) == -ENOENT)
		return; /* not a kernel the emulation performs: its metadata is not read */
	k = calloc(1, sizeof(*k));
	if (!k)
		return;
	err = kfdemu_co_metadata(img, size, &md, &md_len);
	if (!err)
		err = kfdemu_co_kernel_args(md, md_len, name, k);
	if (!err)
		err = kfdemu_effect_bind(name, k, eff);
	if (err) {
		static int said;

		/* Its effect will be missing where the program expects it: say so once. */
		hsaqm_log_notice(&said, "kfdemu: kernel %s has an argument list the emulation "
				 "does not know (%s): its effect is not performed", name,
				 strerror(-err));
	} else {
		hsaqm_log_info("kfdemu: kernel %s is performed as %s (arguments %s)", name,
			       kfdemu_effect_name(eff->kind),
			       eff->by_position ? "by position: no names in its metadata" : "by name");
	}
	free(k);
}

/* The KFD face's view (any thread but a model thread's callback). */
static void *gpu_xlate(void *ctx, uint64_t va, uint64_t len)
{
	(void)ctx;
	return kfdemu_gpu_ptr(va, len);
}

/* Translator thread: remember the memory object holding @va (false: none, or no room). */
static bool pin_add(struct kpin *p, uint64_t va)
{
	uint64_t base, size;
	void *host;

	for (unsigned int i = 0; i < p->n; i++)
		if (va >= p->obj[i].base && va - p->obj[i].base < p->obj[i].size)
			return true;
	if (p->n == KPIN_OBJECTS ||
	    sim_kfd_face_gpu_object(kfdemu_sim(), va, &base, &size, &host))
		return false;
	p->obj[p->n].base = base;
	p->obj[p->n].size = size;
	p->obj[p->n].host = host;
	p->n++;
	return true;
}

/* A model thread's view: only inside the objects pinned at hand-over (else a fault). */
static void *pin_xlate(void *ctx, uint64_t va, uint64_t len)
{
	const struct kpin *p = ctx;

	for (unsigned int i = 0; i < p->n; i++) {
		uint64_t off = va - p->obj[i].base;

		if (va >= p->obj[i].base && off < p->obj[i].size && len <= p->obj[i].size - off)
			return p->obj[i].host + off;
	}
	return NULL;
}

/* Perform @kd's effect for workgroup @wg of the dispatch whose arguments are at @kernarg_va. */
static void effect_run(struct kdesc *kd, uint64_t kernarg_va, const struct kfdemu_geom *g,
		       uint64_t wg, kfdemu_xlate_fn xlate, void *ctx)
{
	const uint8_t *ka = xlate(ctx, kernarg_va, kd->eff.span);
	int err = ka ? kfdemu_effect_run(&kd->eff, ka, g, wg, xlate, ctx) : -EFAULT;

	/* Counted once per dispatch: at its workgroup 0, or when done at once. */
	if (wg == 0 || wg == KFDEMU_EFFECT_ALL_WGS)
		hsaqm_fetch_add(err ? &kd->st->refused : &kd->st->performed, 1u);
	if (err)
		hsaqm_log_warn("kfdemu: %s (%s) workgroup %lld not performed: %s", kd->st->name,
			       kfdemu_effect_name(kd->eff.kind),
			       wg == KFDEMU_EFFECT_ALL_WGS ? -1ll : (long long)wg,
			       err == -EFAULT ? "outside the process's GPU memory" : strerror(-err));
}

/*
 * Translator thread: remember a dispatch with an effect until its workgroups have run: its
 * shape (@g, NULL when unknown) and the memory objects its effect reaches.
 */
static void flight_add(struct kdesc *kd, uint64_t kernarg, const struct kfdemu_geom *g,
		       uint64_t nwg)
{
	struct kflight nf = { .kernarg = kernarg, .left = nwg, .known = g != NULL };
	struct kflight *slot = NULL;
	uint64_t va[KPIN_OBJECTS];
	unsigned int n = 0;
	const uint8_t *ka;

	if (g)
		nf.g = *g;
	/* Its arguments' object first: the buffers are read from there. */
	if (!pin_add(&nf.pin, kernarg))
		return; /* not GPU memory: its workgroup 0 finds no entry and says so */
	ka = pin_xlate(&nf.pin, kernarg, kd->st->blit != BLIT_NONE ?
			sizeof(struct blit_copy_aligned_args) : kd->eff.span);
	if (ka && kd->st->blit != BLIT_NONE)
		n = blit_buffers(kd->st->blit, ka, va);
	else if (ka)
		n = kfdemu_effect_buffers(&kd->eff, ka, va, KPIN_OBJECTS - 1);
	for (unsigned int i = 0; i < n; i++)
		pin_add(&nf.pin, va[i]); /* one it cannot pin: the effect's range there faults */
	pthread_mutex_lock(&fl.lock);
	for (unsigned int i = 0; i < KFDEMU_FLIGHTS; i++) {
		struct kflight *f = &fl.f[i];

		/* The same arguments again: the runtime reused them, so that dispatch is over. */
		if (f->kernarg == kernarg) {
			slot = f;
			break;
		}
		/* Else a free entry, else the oldest (whose effect is then not performed). */
		if (!slot || (slot->kernarg && (!f->kernarg || f->seq < slot->seq)))
			slot = f;
	}
	nf.seq = ++fl.seq;
	*slot = nf;
	pthread_mutex_unlock(&fl.lock);
}

/*
 * Model thread, at a workgroup's end: the dispatch's entry into *out (false: not tracked);
 * @take_all ends it now (a blit's workgroup 0 does all of it).
 */
static bool flight_get(uint64_t kernarg, bool take_all, struct kflight *out)
{
	bool found = false;

	pthread_mutex_lock(&fl.lock);
	for (unsigned int i = 0; i < KFDEMU_FLIGHTS; i++) {
		struct kflight *f = &fl.f[i];

		if (f->kernarg != kernarg)
			continue;
		*out = *f;
		found = true;
		if (take_all || --f->left == 0)
			f->kernarg = 0;
		break;
	}
	pthread_mutex_unlock(&fl.lock);
	return found;
}

/* Per-workgroup duration for @name from $HSAQM_KFDEMU_KERNELS, else the default. */
static uint64_t kernel_duration(const char *name)
{
	const char *path = getenv("HSAQM_KFDEMU_KERNELS");
	const char *dflt = getenv("HSAQM_KFDEMU_KERNEL_NS");
	static int dflt_said, table_said;
	unsigned long long ns = KFDEMU_DEFAULT_KERNEL_NS;
	char line[256], nm[160];
	FILE *f;

	if (dflt && *dflt && hsaqm_parse_uint(dflt, 10, 1, 1000000000000ull, &ns)) {
		ns = KFDEMU_DEFAULT_KERNEL_NS;
		hsaqm_log_notice(&dflt_said, "HSAQM_KFDEMU_KERNEL_NS=\"%s\" is not a duration in ns "
				 "(1..10^12): using %llu", dflt, ns);
	}
	if (!path || !*path)
		return ns;
	if (!(f = fopen(path, "r"))) {
		hsaqm_log_notice(&table_said, "HSAQM_KFDEMU_KERNELS=%s: %s: every kernel takes %llu ns "
				 "per workgroup", path, strerror(errno), ns);
		return ns;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%159s %llu", nm, &v) == 2 && !strcmp(nm, name) && v) {
			ns = v;
			break;
		}
	}
	fclose(f);
	return ns;
}

static void wg_done(void *arg, uint64_t dispatch_id, uint32_t wg_index, void *kernarg)
{
	struct kdesc *kd = arg;
	struct kstat *st = kd->st;
	uint64_t ka = (uint64_t)(uintptr_t)kernarg;
	bool per_wg = kfdemu_effect_per_wg(&kd->eff);

	(void)dispatch_id;
	/* A blit's whole effect at its workgroup 0, the probe kernel's workgroup by workgroup. */
	if ((st->blit != BLIT_NONE || kd->eff.kind != KFDEMU_EFFECT_NONE) &&
	    (per_wg || wg_index == 0)) {
		struct kflight f;

		if (!flight_get(ka, !per_wg, &f)) {
			static int said;

			/* Lost (more dispatches in flight than tracked) or not GPU memory. */
			hsaqm_log_notice(&said, "kfdemu: the effect of a dispatch of %s was "
					 "not performed (not tracked at hand-over)", st->name);
			if (wg_index == 0 && kd->eff.kind != KFDEMU_EFFECT_NONE)
				/* Counters the report reads at exit: atomic for the count only. */
				hsaqm_fetch_add(&st->refused, 1u);
		} else if (st->blit != BLIT_NONE) {
			blit_wg(st, ka, pin_xlate, &f.pin);
		} else {
			effect_run(kd, ka, f.known ? &f.g : NULL,
				   per_wg ? wg_index : KFDEMU_EFFECT_ALL_WGS, pin_xlate, &f.pin);
		}
	}
	/* As above: a count. */
	hsaqm_fetch_add(&st->workgroups, 1u);
}

static struct kstat *stat_for(const char *name)
{
	for (size_t i = 0; i < kt.nst; i++)
		if (!strcmp(kt.st[i]->name, name))
			return kt.st[i];
	if (kt.nst == kt.capst) {
		size_t cap = kt.capst ? kt.capst * 2 : 16;
		struct kstat **s = realloc(kt.st, cap * sizeof(*s));

		if (!s)
			return NULL;
		kt.st = s;
		kt.capst = cap;
	}
	struct kstat *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	snprintf(st->name, sizeof(st->name), "%s", name);
	st->duration_ns = kernel_duration(name);
	st->effect = KFDEMU_EFFECT_NONE;
	for (unsigned int b = BLIT_COPY_ALIGNED; b <= BLIT_FILL; b++)
		if (!strcmp(name, blit_names[b]))
			st->blit = (enum blit)b;
	kt.st[kt.nst++] = st;
	return st;
}

/*
 * Shared mode: the device process never calls into its clients, so the dispatch's workgroups
 * are counted and a blit's or another kernel's effect is performed as the translator hands
 * it over (before the model runs it: kernels compute nothing, so only copies order against
 * copies, and the translator keeps each queue's order and holds packets behind unsatisfied
 * barriers).
 */
static void shared_dispatch(struct kdesc *kd, uint64_t nwg, uint64_t kernarg,
			    const struct kfdemu_geom *g)
{
	if (!kfdemu_shared())
		return;
	if (kd->st->blit != BLIT_NONE && nwg)
		blit_wg(kd->st, kernarg, gpu_xlate, NULL);
	if (kd->eff.kind != KFDEMU_EFFECT_NONE && nwg) {
		if (g || !kfdemu_effect_per_wg(&kd->eff))
			effect_run(kd, kernarg, g, KFDEMU_EFFECT_ALL_WGS, gpu_xlate, NULL);
		else /* shape unknown: each of its workgroups, as their callbacks would */
			for (uint64_t w = 0; w < nwg; w++)
				effect_run(kd, kernarg, NULL, w, gpu_xlate, NULL);
	}
	/* As above: a count. */
	hsaqm_fetch_add(&kd->st->workgroups, nwg);
}

/* Called with kt.lock held: the descriptor's record, made on first use. */
static struct kdesc *desc_for(uint64_t kobj)
{
	for (size_t i = 0; i < kt.nkd; i++)
		if (kt.kd[i]->kobj == kobj)
			return kt.kd[i];
	if (kt.nkd == kt.capkd) {
		size_t cap = kt.capkd ? kt.capkd * 2 : 16;
		struct kdesc **a = realloc(kt.kd, cap * sizeof(*a));

		if (!a)
			return NULL;
		kt.kd = a;
		kt.capkd = cap;
	}
	char name[128];
	const uint8_t *img;
	uint64_t img_size;
	struct kdesc *kd = calloc(1, sizeof(*kd));

	if (!kd)
		return NULL;
	kernel_name(kobj, name, sizeof(name), &img, &img_size);
	kd->kobj = kobj;
	kd->st = stat_for(name);
	if (!kd->st) {
		free(kd);
		return NULL;
	}
	kernel_effect(name, img, img_size, &kd->eff);
	if (kd->eff.kind != KFDEMU_EFFECT_NONE)
		kd->st->effect = kd->eff.kind;
	else if (kd->st->blit == BLIT_NONE && !kd->st->time_only) {
		kd->st->time_only = true;
		/*
		 * A notice to the person, whatever HSAQM_LOG says: the program runs on without an
		 * error and reads whatever its output buffers held before, which looks like a
		 * result. Once per kernel name, however often it is dispatched.
		 */
		fprintf(stderr, "hsaqm: emulated GPU: kernel %s is timed, not run: its results "
			"are not computed (the memory it would write keeps its old contents; "
			"docs/real-stack.md, \"Kernels the emulation performs\")\n", kd->st->name);
	}
	kt.kd[kt.nkd++] = kd;
	return kd;
}

/* Called with kt.lock held: the model kernel for (@kd, @waves, @ns), registered on first use. */
static int model_for(struct hsaqm_sim *sim, struct kdesc *kd, uint32_t waves, uint64_t ns,
		     uint64_t *handle)
{
	struct kentry *near = NULL;
	unsigned int same = 0;

	for (size_t i = 0; i < kt.n; i++) {
		struct kentry *e = &kt.e[i];

		if (e->kd != kd || e->waves != waves)
			continue;
		if (e->duration_ns == ns) {
			*handle = e->handle;
			return 0;
		}
		same++;
		if (!near || (e->duration_ns > ns ? e->duration_ns - ns : ns - e->duration_ns) <
			     (near->duration_ns > ns ? near->duration_ns - ns : ns - near->duration_ns))
			near = e;
	}
	if (same >= KFDEMU_MAX_DURATIONS) {
		static int said;

		/* Model kernels are never freed: bound them, at the cost of this one's length. */
		hsaqm_log_notice(&said, "kfdemu: kernel %s ran with more than %u lengths: "
				 "later ones take the nearest length already modelled",
				 kd->st->name, KFDEMU_MAX_DURATIONS);
		*handle = near->handle;
		return 0;
	}
	if (kt.n == kt.cap) {
		size_t cap = kt.cap ? kt.cap * 2 : 16;
		struct kentry *e = realloc(kt.e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		kt.e = e;
		kt.cap = cap;
	}
	struct hsaqm_sim_kernel_desc d = {
		.name = kd->st->name, .duration_ns = ns, .dist = HSAQM_SIM_DIST_FIXED,
		.waves_per_wg = waves,
		.wg_callback = kfdemu_shared() ? NULL : wg_done, .wg_callback_arg = kd,
	};
	uint64_t h;
	int err = hsaqm_sim_kernel_register(sim, &d, &h);

	if (err)
		return err;
	kt.e[kt.n++] = (struct kentry){ .kd = kd, .waves = waves, .duration_ns = ns, .handle = h };
	hsaqm_log_info("kfdemu: kernel descriptor %#llx is \"%s\" (%u waves/workgroup, %llu ns)",
		       (unsigned long long)kd->kobj, kd->st->name, waves, (unsigned long long)ns);
	*handle = h;
	return 0;
}

/* @g: the dispatch's shape, or NULL when the caller does not know it. */
static int resolve(uint64_t kobj, uint32_t waves, uint64_t nwg, uint64_t kernarg,
		   const struct kfdemu_geom *g, uint64_t *model_handle)
{
	struct hsaqm_sim *sim = kfdemu_sim();
	int err;

	if (!sim)
		return -ENODEV;
	pthread_mutex_lock(&kt.lock);
	struct kdesc *kd = desc_for(kobj);

	if (!kd) {
		pthread_mutex_unlock(&kt.lock);
		return -ENOMEM;
	}
	uint64_t ns = kd->st->duration_ns;
	bool effect = kd->eff.kind != KFDEMU_EFFECT_NONE;

	if (effect) {
		/* Arguments the runtime wrote before publishing the packet. */
		const uint8_t *ka = kfdemu_gpu_ptr(kernarg, kd->eff.span);
		uint64_t arg_ns;

		if (ka && kfdemu_effect_wg_ns(&kd->eff, ka, &arg_ns))
			ns = kd->st->duration_ns = arg_ns;
	}
	err = model_for(sim, kd, waves, ns, model_handle);
	if (!err) {
		/* A count the report reads (kt.lock held, other counters are not). */
		hsaqm_fetch_add(&kd->st->dispatches, 1u);
		if ((effect || kd->st->blit != BLIT_NONE) && !kfdemu_shared() && nwg)
			flight_add(kd, kernarg, g, nwg);
		shared_dispatch(kd, nwg, kernarg, g);
	}
	pthread_mutex_unlock(&kt.lock);
	return err;
}

int kfdemu_kernel_resolve_dispatch(const struct hsaqm_aql_dispatch *d, uint64_t *model_handle)
{
	if (!d || !model_handle || !d->workgroup_size_x || !d->workgroup_size_y ||
	    !d->workgroup_size_z)
		return -EINVAL;
	uint64_t items = (uint64_t)d->workgroup_size_x * d->workgroup_size_y * d->workgroup_size_z;
	struct kfdemu_geom g = {
		.grid = { d->grid_size_x, d->grid_size_y, d->grid_size_z },
		.wg = { d->workgroup_size_x, d->workgroup_size_y, d->workgroup_size_z },
	};
	uint64_t nwg = 1;

	for (unsigned int i = 0; i < 3; i++)
		nwg *= ((uint64_t)g.grid[i] + g.wg[i] - 1) / g.wg[i];
	return resolve(d->kernel_object, (uint32_t)((items + 63) / 64), nwg, d->kernarg_address,
		       &g, model_handle);
}

/* One line per kernel name: dispatches, workgroups the model ran, per-workgroup model ns. */
void kfdemu_kernel_report_to(FILE *f)
{
	pthread_mutex_lock(&kt.lock);
	for (size_t i = 0; i < kt.nst; i++) {
		const struct kstat *st = kt.st[i];

		/* Acquire: the counters' latest increments (counts; nothing else published). */
		fprintf(f, "kernel %s dispatches %llu workgroups %llu duration_ns %llu", st->name,
			(unsigned long long)hsaqm_load_acquire(&st->dispatches),
			(unsigned long long)hsaqm_load_acquire(&st->workgroups),
			(unsigned long long)st->duration_ns);
		/* Kernels the emulation performs: how many dispatches it did, how many it could not. */
		if (st->effect != KFDEMU_EFFECT_NONE)
			fprintf(f, " effect %s performed %llu refused %llu",
				kfdemu_effect_name(st->effect),
				(unsigned long long)hsaqm_load_acquire(&st->performed),
				(unsigned long long)hsaqm_load_acquire(&st->refused));
		else if (st->time_only)
			fputs(" effect none: not computed, timing only", f);
		fputc('\n', f);
	}
	pthread_mutex_unlock(&kt.lock);
}
