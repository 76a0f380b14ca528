/* SPDX-License-Identifier: MIT */
/*
 * Memory calls of the libhsakmt face. Every allocation except scratch is model memory
 * (hsaqm_sim_mem_alloc): host memory the model can read, at one address for the host and
 * the "GPU", as system and device memory are for an APU-like flat address space. Mappings
 * are recorded, never enforced: the model reads only rings, signals and kernel descriptors.
 * Scratch is a reservation (ROCr asks for up to 4 GiB at start-up): anonymous memory that
 * costs nothing until touched, and no wave ever touches it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "log_internal.h"
#include "thunk_internal.h"

#define THUNK_PAGE 4096ull
#define THUNK_MAX_NODES (1 + HSAQM_SIM_MAX_DEVICES)

enum range_kind { RANGE_ALLOC, RANGE_SCRATCH, RANGE_USER };

struct range {
	uintptr_t base;
	uint64_t size;
	enum range_kind kind;
	HsaMemFlags flags;
	uint32_t node;
	void *user_data;
	uint32_t nmapped;
	HSAuint32 mapped[THUNK_MAX_NODES];
	HSAuint32 registered[THUNK_MAX_NODES];
	uint32_t nregistered;
};

/* Sorted by base, disjoint: lookups are binary searches (QueryPointerInfo is on HIP's path). */
static struct {
	pthread_mutex_t lock;
	struct range *r;
	size_t n, cap;
} mem = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Index of the range holding @p, or -1. Called with mem.lock held. */
static ssize_t find(uintptr_t p)
{
	size_t lo = 0, hi = mem.n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p < mem.r[mid].base)
			hi = mid;
		else if (p >= mem.r[mid].base + mem.r[mid].size)
			lo = mid + 1;
		else
			return (ssize_t)mid;
	}
	return -1;
}

static int insert(const struct range *nr)
{
	size_t i = 0;

	if (mem.n == mem.cap) {
		size_t cap = mem.cap ? mem.cap * 2 : 256;
		struct range *r = realloc(mem.r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		mem.r = r;
		mem.cap = cap;
	}
	while (i < mem.n && mem.r[i].base < nr->base)
		i++;
	memmove(&mem.r[i + 1], &mem.r[i], (mem.n - i) * sizeof(*nr));
	mem.r[i] = *nr;
	mem.n++;
	return 0;
}

static void erase(size_t i)
{
	memmove(&mem.r[i], &mem.r[i + 1], (mem.n - i - 1) * sizeof(mem.r[0]));
	mem.n--;
}

bool thunk_mem_range(const void *p, uintptr_t *base, uint64_t *size)
{
	bool ok;

	pthread_mutex_lock(&mem.lock);
	ssize_t i = find((uintptr_t)p);

	ok = i >= 0 && mem.r[i].kind != RANGE_SCRATCH;
	if (ok) {
		*base = mem.r[i].base;
		*size = mem.r[i].size;
	}
	pthread_mutex_unlock(&mem.lock);
	return ok;
}

bool thunk_mem_known(const void *p, uint64_t len)
{
	uintptr_t base;
	uint64_t size;

	return thunk_mem_range(p, &base, &size) && (uintptr_t)p + len <= base + size;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemory(HSAuint32 node, HSAuint64 size, HsaMemFlags flags,
					  void **addr)
{
	struct hsaqm_sim *sim = thunk_sim();
	struct range r = { .size = (size + THUNK_PAGE - 1) & ~(THUNK_PAGE - 1), .flags = flags,
			   .node = node };
	void *p;

	if (!addr || !size)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	if (!sim)
		return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	if (node > thunk_g.ndev)
		return HSAKMT_STATUS_INVALID_NODE_UNIT;
	if (flags.ui32.FixedAddress)
		return HSAKMT_STATUS_NOT_SUPPORTED; /* one address space, chosen by the arena */
	if (flags.ui32.Scratch) {
		p = mmap(NULL, r.size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return HSAKMT_STATUS_NO_MEMORY;
		r.kind = RANGE_SCRATCH;
	} else {
		p = hsaqm_sim_mem_alloc(sim, r.size, THUNK_PAGE);
		if (!p)
			return HSAKMT_STATUS_NO_MEMORY;
		r.kind = RANGE_ALLOC;
	}
	r.base = (uintptr_t)p;
	pthread_mutex_lock(&mem.lock);
	int err = insert(&r);
	pthread_mutex_unlock(&mem.lock);
	if (err) {
		if (r.kind == RANGE_SCRATCH)
			munmap(p, r.size);
		else
			hsaqm_sim_mem_free(sim, p);
		return HSAKMT_STATUS_NO_MEMORY;
	}
	*addr = p;
	return HSAKMT_STATUS_SUCCESS;
}

static void release(struct hsaqm_sim *sim, const struct range *r)
{
	if (r->kind == RANGE_SCRATCH)
		munmap((void *)r->base, r->size);
	else if (r->kind == RANGE_ALLOC)
		hsaqm_sim_mem_free(sim, (void *)r->base);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtFreeMemory(void *addr, HSAuint64 size)
{
	struct hsaqm_sim *sim = thunk_sim();
	struct range r;

	if (!addr)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	pthread_mutex_lock(&mem.lock);
	ssize_t i = find((uintptr_t)addr);
	if (i < 0 || mem.r[i].base != (uintptr_t)addr || mem.r[i].kind == RANGE_USER) {
		pthread_mutex_unlock(&mem.lock);
		return HSAKMT_STATUS_MEMORY_NOT_REGISTERED;
	}
	r = mem.r[i];
	erase((size_t)i);
	pthread_mutex_unlock(&mem.lock);
	release(sim, &r);
	return HSAKMT_STATUS_SUCCESS;
}

void thunk_mem_fini(void)
{
	struct hsaqm_sim *sim = thunk_sim();

	pthread_mutex_lock(&mem.lock);
	for (size_t i = 0; i < mem.n; i++)
		release(sim, &mem.r[i]);
	free(mem.r);
	mem.r = NULL;
	mem.n = mem.cap = 0;
	pthread_mutex_unlock(&mem.lock);
}

static void set_nodes(HSAuint32 *dst, uint32_t *n, uint64_t count, const HSAuint32 *nodes)
{
	*n = 0;
	for (uint64_t i = 0; i < count && *n < THUNK_MAX_NODES; i++)
		dst[(*n)++] = nodes[i];
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryWithFlags(void *addr, HSAuint64 size, HsaMemFlags flags)
{
	struct range r = { .base = (uintptr_t)addr, .size = size, .kind = RANGE_USER,
			   .flags = flags };
	HSAKMT_STATUS ret = HSAKMT_STATUS_SUCCESS;

	if (!addr || !size)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	pthread_mutex_lock(&mem.lock);
	ssize_t i = find(r.base), j = find(r.base + size - 1);
	if (i >= 0 && i == j) {
		/* Registering the face's own memory (or a part of it) changes nothing. */
	} else if (i >= 0 || j >= 0) {
		ret = HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED;
	} else {
		/* A user range must not straddle another range either. */
		for (size_t k = 0; k < mem.n; k++)
			if (mem.r[k].base >= r.base && mem.r[k].base < r.base + size)
				ret = HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED;
		if (ret == HSAKMT_STATUS_SUCCESS && insert(&r))
			ret = HSAKMT_STATUS_NO_MEMORY;
	}
	pthread_mutex_unlock(&mem.lock);
	return ret;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDeregisterMemory(void *addr)
{
	HSAKMT_STATUS ret = HSAKMT_STATUS_SUCCESS;

	pthread_mutex_lock(&mem.lock);
	ssize_t i = find((uintptr_t)addr);
	if (i < 0)
		ret = HSAKMT_STATUS_MEMORY_NOT_REGISTERED;
	else if (mem.r[i].kind == RANGE_USER)
		erase((size_t)i);
	pthread_mutex_unlock(&mem.lock);
	return ret;
}

static HSAKMT_STATUS map(void *addr, HSAuint64 *alt, uint64_t count, const HSAuint32 *nodes)
{
	HSAKMT_STATUS ret = HSAKMT_STATUS_SUCCESS;

	if (!addr)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	pthread_mutex_lock(&mem.lock);
	ssize_t i = find((uintptr_t)addr);
	if (i < 0) {
		ret = HSAKMT_STATUS_MEMORY_NOT_REGISTERED;
	} else {
		struct range *r = &mem.r[i];

		if (nodes) {
			set_nodes(r->mapped, &r->nmapped, count, nodes);
		} else {
			/* No list: every GPU, as libhsakmt maps to all registered GPU nodes. */
			r->nmapped = 0;
			for (unsigned int d = 0; d < thunk_g.ndev; d++)
				r->mapped[r->nmapped++] = 1 + d;
		}
		if (r->kind == RANGE_USER && r->nregistered == 0)
			set_nodes(r->registered, &r->nregistered, r->nmapped, r->mapped);
	}
	pthread_mutex_unlock(&mem.lock);
	/* The GPU sees the host's address: no alternate VA. */
	if (ret == HSAKMT_STATUS_SUCCESS && alt)
		*alt = (HSAuint64)(uintptr_t)addr;
	return ret;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPU(void *addr, HSAuint64 size, HSAuint64 *alt)
{
	return map(addr, alt, 0, NULL);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPUNodes(void *addr, HSAuint64 size, HSAuint64 *alt,
						  HsaMemMapFlags flags, HSAuint64 count,
						  HSAuint32 *nodes)
{
	if (count && !nodes)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	for (uint64_t i = 0; i < count; i++)
		if (thunk_node_dev(nodes[i]) < 0)
			return HSAKMT_STATUS_INVALID_NODE_UNIT;
	return map(addr, alt, count, count ? nodes : NULL);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapMemoryToGPU(void *addr)
{
	HSAKMT_STATUS ret = HSAKMT_STATUS_SUCCESS;

	pthread_mutex_lock(&mem.lock);
	ssize_t i = find((uintptr_t)addr);
	if (i < 0)
		ret = HSAKMT_STATUS_MEMORY_NOT_REGISTERED;
	else
		mem.r[i].nmapped = 0;
	pthread_mutex_unlock(&mem.lock);
	return ret;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtQueryPointerInfo(const void *p, HsaPointerInfo *info)
{
	/* The node lists must outlive the call: ROCr copies them right away under its lock. */
	static __thread HSAuint32 mapped[THUNK_MAX_NODES], registered[THUNK_MAX_NODES];

	if (!info)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	memset(info, 0, sizeof(*info));
	pthread_mutex_lock(&mem.lock);
	ssize_t i = find((uintptr_t)p);
	if (i < 0) {
		pthread_mutex_unlock(&mem.lock);
		info->Type = HSA_POINTER_UNKNOWN;
		return HSAKMT_STATUS_ERROR;
	}
	const struct range *r = &mem.r[i];

	info->Type = r->kind == RANGE_USER ? HSA_POINTER_REGISTERED_USER : HSA_POINTER_ALLOCATED;
	info->Node = r->node;
	info->MemFlags = r->flags;
	info->CPUAddress = (void *)r->base;
	info->GPUAddress = r->base;
	info->SizeInBytes = r->size;
	memcpy(mapped, r->mapped, sizeof(mapped));
	memcpy(registered, r->registered, sizeof(registered));
	info->NMappedNodes = r->nmapped;
	info->NRegisteredNodes = r->kind == RANGE_USER ? r->nregistered : r->nmapped;
	info->MappedNodes = mapped;
	info->RegisteredNodes = r->kind == RANGE_USER ? registered : mapped;
	info->UserData = r->user_data;
	pthread_mutex_unlock(&mem.lock);
	return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryUserData(const void *p, void *user_data)
{
	HSAKMT_STATUS ret = HSAKMT_STATUS_SUCCESS;

	pthread_mutex_lock(&mem.lock);
	ssize_t i = find((uintptr_t)p);
	if (i < 0)
		ret = HSAKMT_STATUS_INVALID_PARAMETER;
	else
		mem.r[i].user_data = user_data;
	pthread_mutex_unlock(&mem.lock);
	return ret;
}

/* One address space, nothing to tune: the apertures are fixed (thunk.c). */
HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryPolicy(HSAuint32 node, HSAuint32 dflt, HSAuint32 alt,
					      void *alt_base, HSAuint64 alt_size)
{
	return thunk_node_dev(node) < 0 ? HSAKMT_STATUS_INVALID_NODE_UNIT : HSAKMT_STATUS_SUCCESS;
}

/*
 * Not modelled: IPC memory, graphics interop, SVM ranges. NOT_SUPPORTED makes ROCr report
 * the feature as unavailable (hsa_amd_ipc_memory_*, interop, hsa_amd_svm_* fail cleanly).
 */
HSAKMT_STATUS HSAKMTAPI hsaKmtShareMemory(void *addr, HSAuint64 size, HsaSharedMemoryHandle *h)
{
	return HSAKMT_STATUS_NOT_SUPPORTED;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandle(const HsaSharedMemoryHandle *h, void **addr,
						   HSAuint64 *size)
{
	return HSAKMT_STATUS_NOT_SUPPORTED;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandleToNodes(const HsaSharedMemoryHandle *h,
							  void **addr, HSAuint64 *size,
							  HSAuint64 count, HSAuint32 *nodes)
{
	return HSAKMT_STATUS_NOT_SUPPORTED;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterGraphicsHandleToNodes(HSAuint64 handle,
							    HsaGraphicsResourceInfo *info,
							    HSAuint64 count, HSAuint32 *nodes)
{
	return HSAKMT_STATUS_NOT_SUPPORTED;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSVMSetAttr(void *start, HSAuint64 size, unsigned int n,
					 HSA_SVM_ATTRIBUTE *attrs)
{
	return HSAKMT_STATUS_NOT_SUPPORTED;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSVMGetAttr(void *start, HSAuint64 size, unsigned int n,
					 HSA_SVM_ATTRIBUTE *attrs)
{
	return HSAKMT_STATUS_NOT_SUPPORTED;
}
