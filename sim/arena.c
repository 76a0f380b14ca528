/* SPDX-License-Identifier: MIT */
/*
 * Model memory: the host memory the simulated GPU can see (rings, signals, kernel
 * descriptors, kernel arguments, counters).
 *
 * One memfd, mapped MAP_SHARED. In-process mode maps it once; in shared mode the device
 * process makes one per client and maps it at the same address in itself and in that client
 * (shared.c), as SVM maps the same virtual address on CPU and GPU. So the allocator keeps its state inside the mapping
 * (offsets, no process pointers) under a futex lock that works across processes, and the
 * memfd is sparse: only touched pages cost memory.
 *
 * The allocator is first fit over a free list sorted by offset, coalescing on free: rings
 * and signals are allocated rarely, so simplicity wins over speed. Every block is a multiple
 * of 64 bytes (a cache line, and an AQL packet) and carries a 32-byte header just below the
 * address it returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine_internal.h"
#include "hsaqm-common/log.h"

#define ARENA_GRAIN 64u
#define ARENA_HDR_BYTES 4096u
#define BLOCK_MAGIC 0x424c4b21u /* "BLK!" */

/* Header of an allocated block, just below the returned address. */
struct blk_hdr {
	uint32_t magic;
	uint32_t pad;
	uint64_t block_off;
	uint64_t block_size;
	uint64_t user_size;
};

/* Header of a free extent, at its start. */
struct free_ext {
	uint64_t size;
	uint64_t next; /* offset of the next free extent, 0 = end */
};

_Static_assert(sizeof(struct blk_hdr) == 32, "block header is 32 bytes");
_Static_assert(sizeof(struct sim_arena_hdr) <= ARENA_HDR_BYTES, "arena header fits its page");

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* From this size on, zeroing and freeing go through the page cache instead of memset. */
#define ARENA_PUNCH_MIN (64u * 1024u)
#define ARENA_PAGE 4096u

/*
 * Make [off, off + len) of the arena read as zero and give its whole pages back to the
 * system: a CWSR save area or a big ring costs nothing until it is written, as on a GPU.
 * Partial pages at the ends are cleared with memset.
 */
static void arena_zero(struct sim_arena *a, uint64_t off, uint64_t len)
{
	char *base = a->base;
	uint64_t p0 = align_up(off, ARENA_PAGE), p1 = (off + len) & ~(uint64_t)(ARENA_PAGE - 1);

	if (len < ARENA_PUNCH_MIN || p1 <= p0 ||
	    fallocate(a->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)p0, (off_t)(p1 - p0))) {
		memset(base + off, 0, len);
		return;
	}
	memset(base + off, 0, p0 - off);
	memset(base + p1, 0, off + len - p1);
}

/* A futex mutex (0 free, 1 held, 2 held with waiters) usable by every process mapping the arena. */
static void arena_lock(uint32_t *l)
{
	uint32_t c = 0;

	/* acq_rel CAS: acquiring the lock orders the free-list reads below after the previous holder's writes. */
	if (hsaqm_cas(l, &c, 1))
		return;
	/* acq_rel: taking the lock (now contended, 2) orders as the CAS above does. */
	if (c != 2)
		c = hsaqm_exchange(l, 2);
	while (c != 0) {
		sim_futex_wait(l, 2, UINT64_MAX);
		/* acq_rel: as above, after each wake-up. */
		c = hsaqm_exchange(l, 2);
	}
}

static void arena_unlock(uint32_t *l)
{
	/* Release (acq_rel exchange): our free-list writes are visible to the next holder. */
	if (hsaqm_exchange(l, 0) == 2)
		sim_futex_wake(l, 1);
}

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/*
 * Map @fd at exactly @addr (NULL: anywhere). MAP_FIXED_NOREPLACE refuses to replace a
 * mapping (EEXIST); a kernel older than 4.17 takes the flag as a hint, so the address is
 * checked too.
 */
static void *map_at(int fd, size_t size, void *addr)
{
	int flags = MAP_SHARED | (addr ? MAP_FIXED_NOREPLACE : 0);
	void *base = mmap(addr, size, PROT_READ | PROT_WRITE, flags, fd, 0);

	if (base == MAP_FAILED) {
		if (errno == EEXIST)
			errno = EADDRINUSE;
		return MAP_FAILED;
	}
	if (addr && base != addr) {
		munmap(base, size);
		errno = EADDRINUSE;
		return MAP_FAILED;
	}
	return base;
}

int sim_arena_init(struct sim_arena *a, size_t size)
{
	return sim_arena_init_at(a, size, NULL);
}

int sim_arena_attach(struct sim_arena *a, int fd, size_t size, void *addr)
{
	memset(a, 0, sizeof(*a));
	a->fd = -1;
	void *base = map_at(fd, size, addr);
	if (base == MAP_FAILED)
		return -errno;
	a->base = base;
	a->size = size;
	a->fd = fd;
	a->hdr = base;
	/* Acquire: the creator initialised the header before handing the fd over. */
	if (hsaqm_load_acquire(&a->hdr->magic) != SIM_ARENA_MAGIC || a->hdr->size != size) {
		munmap(base, size);
		memset(a, 0, sizeof(*a));
		a->fd = -1;
		return -EPROTO;
	}
	return 0;
}

int sim_arena_init_at(struct sim_arena *a, size_t size, void *addr)
{
	memset(a, 0, sizeof(*a));
	a->fd = -1;
	size = (size_t)align_up(size, 4096);
	if (size < 2 * ARENA_HDR_BYTES)
		return -EINVAL;

	int fd = memfd_create("hsaqm-sim-arena", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	/*
	 * The size is fixed for good: in shared mode a client holds the fd too, and a client
	 * that shrank it would make the device process fault on its memory (punching holes,
	 * which the allocator does, stays allowed: the pages then read as zeros).
	 */
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	void *base = map_at(fd, size, addr);
	if (base == MAP_FAILED) {
		int err = -errno;
		close(fd);
		return err;
	}
	a->base = base;
	a->size = size;
	a->fd = fd;
	a->hdr = base;

	/* A fresh memfd reads as zeros; only the fields that are not zero need setting. */
	struct sim_arena_hdr *h = a->hdr;
	h->magic = SIM_ARENA_MAGIC;
	h->version = 1;
	h->size = size;
	for (unsigned int i = 0; i < HSAQM_SIM_MAX_DEVICES; i++)
		h->dev[i].stim_time = UINT64_MAX;
	struct free_ext *e = (struct free_ext *)((char *)base + ARENA_HDR_BYTES);
	e->size = size - ARENA_HDR_BYTES;
	e->next = 0;
	h->free_head = ARENA_HDR_BYTES;
	return 0;
}

void sim_arena_fini(struct sim_arena *a)
{
	if (a->base)
		munmap(a->base, a->size);
	if (a->fd >= 0)
		close(a->fd);
	memset(a, 0, sizeof(*a));
	a->fd = -1;
}

static struct free_ext *ext_at(struct sim_arena *a, uint64_t off)
{
	return (struct free_ext *)((char *)a->base + off);
}

/*
 * The model's memory ran out: said once per process, whatever HSAQM_LOG says (what failed
 * next, a queue or a signal, reaches the program only as an error status).
 */
static void arena_full(const struct sim_arena *a, size_t size)
{
	static int once;

	hsaqm_log_notice(&once, "the device model's memory (%zu MiB, HSAQM_SIM_ARENA_MB) is full: "
			 "an allocation of %zu bytes failed", a->size >> 20, size);
}

void *sim_mem_alloc(struct hsaqm_sim *sim, size_t size, size_t align)
{
	if (!sim || size == 0 || align == 0 || (align & (align - 1))) {
		errno = EINVAL;
		return NULL;
	}
	struct sim_arena *a = &sim->arena;
	if (align < ARENA_GRAIN)
		align = ARENA_GRAIN;
	if (size > a->size || align > a->size) {
		arena_full(a, size);
		errno = ENOMEM;
		return NULL;
	}

	void *user = NULL;
	arena_lock(&a->hdr->lock);
	uint64_t prev = 0, off = a->hdr->free_head;
	while (off) {
		struct free_ext *e = ext_at(a, off);
		uint64_t e_end = off + e->size;
		uint64_t u = align_up(off + sizeof(struct blk_hdr), align);
		uint64_t start = (u - sizeof(struct blk_hdr)) & ~(uint64_t)(ARENA_GRAIN - 1);
		uint64_t end = align_up(u + size, ARENA_GRAIN);

		if (end <= e_end) {
			uint64_t next = e->next;
			uint64_t link = next;

			/* The tail stays free in place of the extent... */
			if (end < e_end) {
				struct free_ext *t = ext_at(a, end);
				t->size = e_end - end;
				t->next = next;
				link = end;
			}
			/* ...and so does the head, before the tail. */
			if (start > off) {
				e->size = start - off;
				e->next = link;
				link = off;
			}
			if (prev)
				ext_at(a, prev)->next = link;
			else
				a->hdr->free_head = link;

			struct blk_hdr *b = (struct blk_hdr *)((char *)a->base + u - sizeof(*b));
			b->magic = BLOCK_MAGIC;
			b->block_off = start;
			b->block_size = end - start;
			b->user_size = size;
			a->hdr->used_bytes += end - start;
			user = (char *)a->base + u;
			break;
		}
		prev = off;
		off = e->next;
	}
	arena_unlock(&a->hdr->lock);
	if (!user) {
		arena_full(a, size);
		errno = ENOMEM;
		return NULL;
	}
	arena_zero(a, (uint64_t)((char *)user - (char *)a->base), size);
	return user;
}

void sim_mem_free(struct hsaqm_sim *sim, void *ptr)
{
	if (!sim || !ptr)
		return;
	struct sim_arena *a = &sim->arena;
	if (!sim_mem_contains(sim, ptr, 1) || (uintptr_t)ptr < (uintptr_t)a->base + ARENA_HDR_BYTES +
								  sizeof(struct blk_hdr)) {
		hsaqm_log_err("%p is not model memory", ptr);
		return;
	}
	struct blk_hdr *b = (struct blk_hdr *)((char *)ptr - sizeof(*b));
	if (b->magic != BLOCK_MAGIC) {
		hsaqm_log_err("%p is not an allocation of the model (double free?)", ptr);
		return;
	}
	b->magic = 0;
	uint64_t off = b->block_off, size = b->block_size;

	/* A big block's pages go back to the system now (they read as zero when reused). */
	if (b->user_size >= ARENA_PUNCH_MIN) {
		uint64_t u = (uint64_t)((char *)ptr - (char *)a->base);

		arena_zero(a, u, b->user_size);
	}

	arena_lock(&a->hdr->lock);
	a->hdr->used_bytes -= size;
	uint64_t prev = 0, cur = a->hdr->free_head;
	while (cur && cur < off) {
		prev = cur;
		cur = ext_at(a, cur)->next;
	}
	struct free_ext *n = ext_at(a, off);
	n->size = size;
	n->next = cur;
	if (cur && off + size == cur) {
		n->size += ext_at(a, cur)->size;
		n->next = ext_at(a, cur)->next;
	}
	if (prev) {
		struct free_ext *p = ext_at(a, prev);
		if (prev + p->size == off) {
			p->size += n->size;
			p->next = n->next;
		} else {
			p->next = off;
		}
	} else {
		a->hdr->free_head = off;
	}
	arena_unlock(&a->hdr->lock);
}

bool sim_arena_contains(const struct sim_arena *a, const void *ptr, size_t len)
{
	if (!a || !ptr || !a->base)
		return false;
	uintptr_t p = (uintptr_t)ptr, b = (uintptr_t)a->base;
	return p >= b + ARENA_HDR_BYTES && len <= a->size && p - b <= a->size - len;
}

bool sim_mem_contains(const struct hsaqm_sim *sim, const void *ptr, size_t len)
{
	return sim && sim_arena_contains(&sim->arena, ptr, len);
}

void *sim_mem_map_at(struct hsaqm_sim *sim, void *ptr, size_t len, void *addr, int prot)
{
	const struct sim_arena *a = sim ? &sim->arena : NULL;
	uintptr_t off;
	void *m;

	if (!a || !sim_arena_contains(a, ptr, len) || !len) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	off = (uintptr_t)ptr - (uintptr_t)a->base;
	if ((off | (uintptr_t)addr) & (ARENA_PAGE - 1)) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	/* A second view of the same pages of the memfd: what either side writes, both see. */
	m = mmap(addr, len, prot, MAP_SHARED | MAP_FIXED, a->fd, (off_t)off);
	return m;
}

size_t sim_mem_available(const struct hsaqm_sim *sim)
{
	const struct sim_arena *a = sim ? &sim->arena : NULL;

	if (!a || !a->hdr)
		return 0;
	/* Relaxed, no lock: an advisory snapshot (AVAILABLE_MEMORY); nothing is ordered by it. */
	uint64_t used = hsaqm_load_relaxed(&a->hdr->used_bytes);

	return used + ARENA_HDR_BYTES < a->size ? a->size - ARENA_HDR_BYTES - (size_t)used : 0;
}

size_t sim_mem_size(const struct hsaqm_sim *sim)
{
	return sim ? sim->arena.size : 0;
}
