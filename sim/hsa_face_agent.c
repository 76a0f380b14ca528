/* SPDX-License-Identifier: MIT */
/*
 * Agents and memory of the model's HSA face: a CPU agent and one GPU agent per model device
 * with the information clients ask for (hsa_agent_get_info, AMD attributes included), the
 * system and device memory pools and the regions of the older API (the same objects, as in
 * ROCr). Every allocation is model memory, so what a client puts in it (kernel arguments,
 * rings, counters) is what the model reads. Values and their sources: docs/sim.md, "HSA face".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsa_face_internal.h"
#include "hsaqm-common/barrier.h"

#define FN(f) ((hsaqm_api_fn)(f))

/* ------------------------------------------------------------------------------------
 * Agents.
 */

/* A property of the device's KFD properties file the profile does not keep (0 if absent). */
static uint64_t prop_value(const struct sim_profile *p, const char *name)
{
	size_t n = strlen(name);

	for (const char *line = p->properties_text; line && *line;) {
		if (!strncmp(line, name, n) && line[n] == ' ')
			return strtoull(line + n + 1, NULL, 10);
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

static void copy_name(void *value, const char *name)
{
	size_t n = strlen(name);

	/* HSA names are char[64], NUL-padded. */
	memset(value, 0, 64);
	memcpy(value, name, n < 63 ? n : 63);
}

/* The attributes whose values do not depend on the kind of agent. */
static hsaqm_hsa_status_t common_agent_info(const struct hsa_face_agent *a, uint32_t attribute,
					    void *value)
{
	switch (attribute) {
	case SIM_HSA_AGENT_INFO_MACHINE_MODEL:
		*(uint32_t *)value = SIM_HSA_MACHINE_MODEL_LARGE;
		break;
	case SIM_HSA_AGENT_INFO_PROFILE:
		*(uint32_t *)value = SIM_HSA_PROFILE_BASE;
		break;
	case SIM_HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
	case SIM_HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES:
		*(uint32_t *)value = SIM_HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
		break;
	case SIM_HSA_AGENT_INFO_QUEUE_TYPE:
		*(uint32_t *)value = HSAQM_HSA_QUEUE_TYPE_MULTI;
		break;
	case SIM_HSA_AGENT_INFO_NODE:
	case SIM_HSA_AMD_AGENT_INFO_DRIVER_NODE_ID:
		*(uint32_t *)value = a->node;
		break;
	case SIM_HSA_AGENT_INFO_EXTENSIONS:
		memset(value, 0, 128);
		break;
	case SIM_HSA_AGENT_INFO_VERSION_MAJOR:
	case SIM_HSA_AGENT_INFO_VERSION_MINOR:
		*(uint16_t *)value = 1;
		break;
	case SIM_HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY:
		*(uint64_t *)value = HSA_FACE_TIMESTAMP_HZ;
		break;
	default:
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t gpu_agent_info(const struct hsa_face_agent *a, uint32_t attribute,
					 void *value)
{
	const struct sim_profile *p = a->prof;
	char name[64];

	switch (attribute) {
	case SIM_HSA_AGENT_INFO_NAME:
		/* gfx_target_version 90402 -> "gfx942": major, minor, stepping in hex (gfx90a). */
		snprintf(name, sizeof(name), "gfx%u%u%x", p->gfx_target_version / 10000,
			 (p->gfx_target_version / 100) % 100, p->gfx_target_version % 100);
		copy_name(value, name);
		break;
	case SIM_HSA_AGENT_INFO_VENDOR_NAME:
		copy_name(value, "AMD");
		break;
	case SIM_HSA_AGENT_INFO_FEATURE:
		*(uint32_t *)value = SIM_HSA_AGENT_FEATURE_KERNEL_DISPATCH;
		break;
	case SIM_HSA_AGENT_INFO_WAVEFRONT_SIZE:
		*(uint32_t *)value = p->wave_front_size;
		break;
	case SIM_HSA_AGENT_INFO_WORKGROUP_MAX_DIM: {
		uint16_t dim[3] = { 1024, 1024, 1024 };

		memcpy(value, dim, sizeof(dim));
		break;
	}
	case SIM_HSA_AGENT_INFO_WORKGROUP_MAX_SIZE:
		*(uint32_t *)value = 1024; /* the packet processor's limit (pp.c) */
		break;
	case SIM_HSA_AGENT_INFO_GRID_MAX_DIM: {
		uint32_t dim[3] = { UINT32_MAX, UINT32_MAX, UINT32_MAX };

		memcpy(value, dim, sizeof(dim));
		break;
	}
	case SIM_HSA_AGENT_INFO_GRID_MAX_SIZE:
		*(uint32_t *)value = UINT32_MAX;
		break;
	case SIM_HSA_AGENT_INFO_FBARRIER_MAX_SIZE:
		*(uint32_t *)value = 32;
		break;
	case SIM_HSA_AGENT_INFO_QUEUES_MAX:
		*(uint32_t *)value = HSA_FACE_QUEUES_MAX;
		break;
	case SIM_HSA_AGENT_INFO_QUEUE_MIN_SIZE:
		*(uint32_t *)value = HSA_FACE_QUEUE_MIN_PACKETS;
		break;
	case SIM_HSA_AGENT_INFO_QUEUE_MAX_SIZE:
		*(uint32_t *)value = HSA_FACE_QUEUE_MAX_PACKETS;
		break;
	case SIM_HSA_AGENT_INFO_DEVICE:
		*(uint32_t *)value = SIM_HSA_DEVICE_TYPE_GPU;
		break;
	case SIM_HSA_AGENT_INFO_CACHE_SIZE: {
		/* Bytes of L1..L4; caches are not modelled (assumption: MI300-class sizes). */
		uint32_t c[4] = { 32u << 10, 4u << 20, 0, 0 };

		memcpy(value, c, sizeof(c));
		break;
	}
	case SIM_HSA_AMD_AGENT_INFO_CHIP_ID:
		*(uint32_t *)value = p->device_id;
		break;
	case SIM_HSA_AMD_AGENT_INFO_CACHELINE_SIZE:
		*(uint32_t *)value = 128; /* assumption (gfx9 L2 line) */
		break;
	case SIM_HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT:
	case SIM_HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT:
		*(uint32_t *)value = p->cu_count;
		break;
	case SIM_HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY:
		*(uint32_t *)value = p->max_engine_clk_mhz;
		break;
	case SIM_HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS:
		*(uint32_t *)value = 4;
		break;
	case SIM_HSA_AMD_AGENT_INFO_BDFID:
		*(uint32_t *)value = (uint32_t)prop_value(p, "location_id");
		break;
	case SIM_HSA_AMD_AGENT_INFO_PRODUCT_NAME:
		copy_name(value, "AMD Instinct MI308X (hsaqm model)");
		break;
	case SIM_HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU:
		*(uint32_t *)value = p->simd_per_cu * p->max_waves_per_simd;
		break;
	case SIM_HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU:
		*(uint32_t *)value = p->simd_per_cu;
		break;
	case SIM_HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES: {
		uint64_t arrays = prop_value(p, "array_count"),
			 per = prop_value(p, "simd_arrays_per_engine");

		*(uint32_t *)value = per ? (uint32_t)(arrays / per) : (uint32_t)arrays;
		break;
	}
	case SIM_HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE:
		*(uint32_t *)value = (uint32_t)prop_value(p, "simd_arrays_per_engine");
		break;
	case SIM_HSA_AMD_AGENT_INFO_DOMAIN:
		*(uint32_t *)value = (uint32_t)prop_value(p, "domain");
		break;
	case SIM_HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES:
		*(bool *)value = false; /* GWS is not modelled */
		break;
	case SIM_HSA_AMD_AGENT_INFO_UUID: {
		char uuid[21];

		snprintf(uuid, sizeof(uuid), "GPU-%016" PRIx64, p->unique_id);
		memcpy(value, uuid, sizeof(uuid));
		break;
	}
	case SIM_HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS:
		*(bool *)value = true;
		break;
	case SIM_HSA_AMD_AGENT_INFO_UCODE_VERSION:
		*(uint32_t *)value = p->fw_version;
		break;
	case SIM_HSA_AMD_AGENT_INFO_NUM_SDMA_ENG:
		*(uint32_t *)value = p->num_sdma_engines;
		break;
	case SIM_HSA_AMD_AGENT_INFO_NUM_SDMA_XGMI_ENG:
		*(uint32_t *)value = p->num_sdma_xgmi_engines;
		break;
	case SIM_HSA_AMD_AGENT_INFO_NUM_XCC:
		*(uint32_t *)value = p->num_xcc;
		break;
	case SIM_HSA_AMD_AGENT_INFO_NEAREST_CPU: {
		struct hsaqm_hsa_agent cpu = { hsa_face_agent_handle(&a->face->agents[0]) };

		memcpy(value, &cpu, sizeof(cpu));
		break;
	}
	default:
		return common_agent_info(a, attribute, value);
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t cpu_agent_info(const struct hsa_face_agent *a, uint32_t attribute,
					 void *value)
{
	switch (attribute) {
	case SIM_HSA_AGENT_INFO_NAME:
		copy_name(value, "hsaqm model host CPU");
		break;
	case SIM_HSA_AGENT_INFO_VENDOR_NAME:
		copy_name(value, "CPU");
		break;
	case SIM_HSA_AGENT_INFO_FEATURE:
		*(uint32_t *)value = SIM_HSA_AGENT_FEATURE_AGENT_DISPATCH;
		break;
	case SIM_HSA_AGENT_INFO_WAVEFRONT_SIZE:
	case SIM_HSA_AGENT_INFO_WORKGROUP_MAX_SIZE:
	case SIM_HSA_AGENT_INFO_GRID_MAX_SIZE:
	case SIM_HSA_AGENT_INFO_FBARRIER_MAX_SIZE:
	case SIM_HSA_AGENT_INFO_QUEUES_MAX:
	case SIM_HSA_AGENT_INFO_QUEUE_MIN_SIZE:
	case SIM_HSA_AGENT_INFO_QUEUE_MAX_SIZE:
		*(uint32_t *)value = 0; /* no queues on the host agent */
		break;
	case SIM_HSA_AGENT_INFO_WORKGROUP_MAX_DIM:
		memset(value, 0, 3 * sizeof(uint16_t));
		break;
	case SIM_HSA_AGENT_INFO_GRID_MAX_DIM:
		memset(value, 0, 3 * sizeof(uint32_t));
		break;
	case SIM_HSA_AGENT_INFO_DEVICE:
		*(uint32_t *)value = SIM_HSA_DEVICE_TYPE_CPU;
		break;
	case SIM_HSA_AGENT_INFO_CACHE_SIZE:
		memset(value, 0, 4 * sizeof(uint32_t));
		break;
	case SIM_HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT:
		*(uint32_t *)value = 1;
		break;
	default:
		return common_agent_info(a, attribute, value);
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

/*
 * The agent behind @handle, of an open face, for an entry whose output (a value or a callback)
 * must be given (@has_out): a bad handle outranks a closed runtime, which outranks bad output.
 */
static hsaqm_hsa_status_t open_agent(uint64_t handle, bool has_out, struct hsa_face_agent **a)
{
	*a = hsa_face_agent_from_handle(handle);
	if (!*a)
		return HSAQM_HSA_STATUS_ERROR_INVALID_AGENT;
	if (!hsa_face_is_open((*a)->face))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	if (!has_out)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t face_agent_get_info(struct hsaqm_hsa_agent agent,
					      hsaqm_hsa_agent_info_t attribute, void *value)
{
	struct hsa_face_agent *a;
	hsaqm_hsa_status_t st = open_agent(agent.handle, value != NULL, &a);

	if (st != HSAQM_HSA_STATUS_SUCCESS)
		return st;
	return a->is_gpu ? gpu_agent_info(a, attribute, value)
			 : cpu_agent_info(a, attribute, value);
}

/* ------------------------------------------------------------------------------------
 * Memory: pools (and the regions of the older API, which are the same objects, as in ROCr).
 */
static uint64_t pool_handle(const struct hsa_face_pool *p)
{
	return (uint64_t)(uintptr_t)p;
}

static hsaqm_hsa_status_t face_agent_iterate_memory_pools(
	struct hsaqm_hsa_agent agent,
	hsaqm_hsa_status_t (*cb)(struct hsaqm_hsa_amd_memory_pool, void *), void *data)
{
	struct hsa_face_agent *a;
	hsaqm_hsa_status_t st = open_agent(agent.handle, cb != NULL, &a);

	if (st != HSAQM_HSA_STATUS_SUCCESS)
		return st;
	for (unsigned int i = 0; i < a->npools; i++) {
		struct hsaqm_hsa_amd_memory_pool p = { pool_handle(
			&a->face->pools[a->first_pool + i]) };

		st = cb(p, data);
		if (st != HSAQM_HSA_STATUS_SUCCESS)
			return st;
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

/* @owner's pools as regions; any status but SUCCESS stops the walk and is returned. */
static hsaqm_hsa_status_t iterate_agent_regions(const struct hsa_face_agent *owner,
						hsaqm_hsa_status_t (*cb)(struct hsaqm_hsa_region,
									 void *),
						void *data)
{
	for (unsigned int i = 0; i < owner->npools; i++) {
		struct hsaqm_hsa_region r = { pool_handle(
			&owner->face->pools[owner->first_pool + i]) };
		hsaqm_hsa_status_t st = cb(r, data);

		if (st != HSAQM_HSA_STATUS_SUCCESS)
			return st;
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

/* A GPU agent's regions include the system ones, as ROCr's do: kernarg memory is found there. */
static hsaqm_hsa_status_t face_agent_iterate_regions(
	struct hsaqm_hsa_agent agent, hsaqm_hsa_status_t (*cb)(struct hsaqm_hsa_region, void *),
	void *data)
{
	struct hsa_face_agent *a;
	hsaqm_hsa_status_t st = open_agent(agent.handle, cb != NULL, &a);

	if (st != HSAQM_HSA_STATUS_SUCCESS)
		return st;
	st = iterate_agent_regions(a, cb, data);
	if (st != HSAQM_HSA_STATUS_SUCCESS || !a->is_gpu)
		return st;
	return iterate_agent_regions(&a->face->agents[0], cb, data);
}

/*
 * The pool (or region: the same object) behind @handle, of an open face, for an info query
 * into @value; @invalid is what a foreign handle gets (INVALID_MEMORY_POOL or INVALID_REGION).
 */
static hsaqm_hsa_status_t open_pool(uint64_t handle, hsaqm_hsa_status_t invalid, const void *value,
				    struct hsa_face_pool **p)
{
	*p = hsa_face_pool_from_handle(handle);
	if (!*p)
		return invalid;
	if (!hsa_face_is_open((*p)->face))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	if (!value)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t face_memory_pool_get_info(struct hsaqm_hsa_amd_memory_pool pool,
						    uint32_t attribute, void *value)
{
	struct hsa_face_pool *p;
	hsaqm_hsa_status_t st = open_pool(pool.handle, HSAQM_HSA_STATUS_ERROR_INVALID_MEMORY_POOL,
					  value, &p);

	if (st != HSAQM_HSA_STATUS_SUCCESS)
		return st;
	switch (attribute) {
	case SIM_HSA_AMD_MEMORY_POOL_INFO_SEGMENT:
		*(uint32_t *)value = SIM_HSA_AMD_SEGMENT_GLOBAL;
		break;
	case SIM_HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS:
		*(uint32_t *)value = p->flags;
		break;
	case SIM_HSA_AMD_MEMORY_POOL_INFO_SIZE:
	case SIM_HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE:
		*(size_t *)value = p->face->mem_size;
		break;
	case SIM_HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED:
		*(bool *)value = true;
		break;
	case SIM_HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE:
	case SIM_HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT:
	case SIM_HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_REC_GRANULE:
		*(size_t *)value = HSA_FACE_POOL_GRANULE;
		break;
	case SIM_HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL:
		*(bool *)value = p->location == SIM_HSA_AMD_MEMORY_POOL_LOCATION_CPU;
		break;
	case SIM_HSA_AMD_MEMORY_POOL_INFO_LOCATION:
		*(uint32_t *)value = p->location;
		break;
	default:
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t face_region_get_info(struct hsaqm_hsa_region region, uint32_t attribute,
					       void *value)
{
	struct hsa_face_pool *p;
	hsaqm_hsa_status_t st = open_pool(region.handle, HSAQM_HSA_STATUS_ERROR_INVALID_REGION,
					  value, &p);

	if (st != HSAQM_HSA_STATUS_SUCCESS)
		return st;
	switch (attribute) {
	case SIM_HSA_REGION_INFO_SEGMENT:
		*(uint32_t *)value = SIM_HSA_REGION_SEGMENT_GLOBAL;
		break;
	case SIM_HSA_REGION_INFO_GLOBAL_FLAGS: {
		uint32_t fl = 0;

		/* Pool and region flags share FINE (2) and COARSE (4); KERNARG is bit 0 in both. */
		if (p->flags & SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT)
			fl |= SIM_HSA_REGION_GLOBAL_FLAG_KERNARG;
		if (p->flags & SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED)
			fl |= SIM_HSA_REGION_GLOBAL_FLAG_FINE_GRAINED;
		if (p->flags & SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED)
			fl |= SIM_HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED;
		*(uint32_t *)value = fl;
		break;
	}
	case SIM_HSA_REGION_INFO_SIZE:
	case SIM_HSA_REGION_INFO_ALLOC_MAX_SIZE:
		*(size_t *)value = p->face->mem_size;
		break;
	case SIM_HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED:
	case SIM_HSA_AMD_REGION_INFO_HOST_ACCESSIBLE:
		*(bool *)value = true;
		break;
	case SIM_HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE:
	case SIM_HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT:
		*(size_t *)value = HSA_FACE_POOL_GRANULE;
		break;
	case SIM_HSA_AMD_REGION_INFO_BASE:
		*(void **)value = NULL;
		break;
	default:
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t face_agent_memory_pool_get_info(struct hsaqm_hsa_agent agent,
							  struct hsaqm_hsa_amd_memory_pool pool,
							  uint32_t attribute, void *value)
{
	struct hsa_face_agent *a = hsa_face_agent_from_handle(agent.handle);
	struct hsa_face_pool *p = hsa_face_pool_from_handle(pool.handle);

	if (!a)
		return HSAQM_HSA_STATUS_ERROR_INVALID_AGENT;
	if (!p || p->face != a->face)
		return HSAQM_HSA_STATUS_ERROR_INVALID_MEMORY_POOL;
	if (!hsa_face_is_open(a->face))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	if (!value)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	switch (attribute) {
	case SIM_HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS:
		/* System memory: everybody; a GPU's pool: its GPU, others after allow_access. */
		*(uint32_t *)value = p->location == SIM_HSA_AMD_MEMORY_POOL_LOCATION_CPU ||
						     p->owner == a
					     ? SIM_HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT
					     : SIM_HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT;
		break;
	case SIM_HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS:
		*(uint32_t *)value = 0;
		break;
	default:
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

static unsigned int alloc_bucket(const void *ptr)
{
	return (unsigned int)(((uintptr_t)ptr >> 12) % HSA_FACE_ALLOC_BUCKETS);
}

static hsaqm_hsa_status_t pool_alloc(struct hsa_face_pool *p, size_t size, void **out)
{
	struct hsa_face *f = p->face;

	if (!hsa_face_is_open(f))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	if (!out || size == 0)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	if (size > f->mem_size)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ALLOCATION;
	struct hsa_face_alloc *rec = malloc(sizeof(*rec));
	/* Rounded to the granule, aligned to it: rings, kernargs and counters are model memory. */
	size_t sz = (size + HSA_FACE_POOL_GRANULE - 1) & ~(size_t)(HSA_FACE_POOL_GRANULE - 1);
	void *ptr = rec ? sim_mem_alloc(f->sim, sz, HSA_FACE_POOL_GRANULE) : NULL;
	if (!ptr) {
		free(rec);
		return HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES;
	}
	rec->ptr = ptr;
	hsa_face_lock(f);
	rec->next = f->allocs[alloc_bucket(ptr)];
	f->allocs[alloc_bucket(ptr)] = rec;
	hsa_face_unlock(f);
	*out = ptr;
	return HSAQM_HSA_STATUS_SUCCESS;
}

/* Free an allocation of the pools; anything else is refused, never handed to the arena. */
static hsaqm_hsa_status_t pool_free(void *ptr)
{
	struct hsa_face *f;
	struct hsa_face_alloc *rec = NULL;

	if (!ptr)
		return HSAQM_HSA_STATUS_SUCCESS;
	f = hsa_face_of_mem(ptr, 1);
	if (!f)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	hsa_face_lock(f);
	for (struct hsa_face_alloc **pp = &f->allocs[alloc_bucket(ptr)]; *pp; pp = &(*pp)->next) {
		if ((*pp)->ptr == ptr) {
			rec = *pp;
			*pp = rec->next;
			break;
		}
	}
	hsa_face_unlock(f);
	if (!rec)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	sim_mem_free(f->sim, ptr);
	free(rec);
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t face_memory_pool_allocate(struct hsaqm_hsa_amd_memory_pool pool,
						    size_t size, uint32_t flags, void **ptr)
{
	struct hsa_face_pool *p = hsa_face_pool_from_handle(pool.handle);

	if (!p)
		return HSAQM_HSA_STATUS_ERROR_INVALID_MEMORY_POOL;
	return pool_alloc(p, size, ptr);
}

static hsaqm_hsa_status_t face_memory_pool_free(void *ptr)
{
	return pool_free(ptr);
}

static hsaqm_hsa_status_t face_memory_allocate(struct hsaqm_hsa_region region, size_t size,
					       void **ptr)
{
	struct hsa_face_pool *p = hsa_face_pool_from_handle(region.handle);

	if (!p)
		return HSAQM_HSA_STATUS_ERROR_INVALID_REGION;
	return pool_alloc(p, size, ptr);
}

static hsaqm_hsa_status_t face_memory_free(void *ptr)
{
	return pool_free(ptr);
}

/* Host and model memory are one address space: a copy is a memcpy (blocking, as in ROCr). */
static hsaqm_hsa_status_t face_memory_copy(void *dst, const void *src, size_t size)
{
	if (!dst || !src)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	memmove(dst, src, size);
	return HSAQM_HSA_STATUS_SUCCESS;
}

/* Registration and access grants change nothing in one address space: accepted, checked. */
static hsaqm_hsa_status_t face_memory_register(void *ptr, size_t size)
{
	return ptr && size ? HSAQM_HSA_STATUS_SUCCESS : HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

static hsaqm_hsa_status_t face_memory_deregister(void *ptr, size_t size)
{
	return ptr ? HSAQM_HSA_STATUS_SUCCESS : HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

static hsaqm_hsa_status_t face_memory_assign_agent(void *ptr, struct hsaqm_hsa_agent agent,
						   uint32_t access)
{
	if (!ptr)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	return hsa_face_agent_from_handle(agent.handle) ? HSAQM_HSA_STATUS_SUCCESS
							: HSAQM_HSA_STATUS_ERROR_INVALID_AGENT;
}

static hsaqm_hsa_status_t face_agents_allow_access(uint32_t num_agents,
						   const struct hsaqm_hsa_agent *agents,
						   const uint32_t *flags, const void *ptr)
{
	if (!num_agents || !agents || !ptr)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	for (uint32_t i = 0; i < num_agents; i++)
		if (!hsa_face_agent_from_handle(agents[i].handle))
			return HSAQM_HSA_STATUS_ERROR_INVALID_AGENT;
	return HSAQM_HSA_STATUS_SUCCESS;
}

void hsa_face_agents_init(struct hsa_face *f)
{
	unsigned int ndev = sim_device_count(f->sim);

	/* Agent 0: the host; its system pools: fine-grained (kernargs) and coarse-grained. */
	struct hsa_face_agent *cpu = &f->agents[0];
	*cpu = (struct hsa_face_agent){ .magic = HSA_FACE_AGENT_MAGIC, .node = 0, .face = f,
					.first_pool = 0, .npools = 2 };
	f->pools[0] = (struct hsa_face_pool){
		.magic = HSA_FACE_POOL_MAGIC, .face = f, .owner = cpu,
		.flags = SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT |
			 SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED,
		.location = SIM_HSA_AMD_MEMORY_POOL_LOCATION_CPU };
	f->pools[1] = (struct hsa_face_pool){
		.magic = HSA_FACE_POOL_MAGIC, .face = f, .owner = cpu,
		.flags = SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED,
		.location = SIM_HSA_AMD_MEMORY_POOL_LOCATION_CPU };
	f->npools = 2;
	/* One GPU agent per device, each with one coarse-grained pool (model memory too). */
	for (unsigned int d = 0; d < ndev; d++) {
		struct hsa_face_agent *g = &f->agents[1 + d];

		*g = (struct hsa_face_agent){ .magic = HSA_FACE_AGENT_MAGIC,
					      .is_gpu = true,
					      .dev = d,
					      .node = 1 + d,
					      .face = f,
					      .prof = sim_device_profile(f->sim, d),
					      .first_pool = f->npools,
					      .npools = 1 };
		f->pools[f->npools++] = (struct hsa_face_pool){
			.magic = HSA_FACE_POOL_MAGIC, .face = f, .owner = g,
			.flags = SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED,
			.location = SIM_HSA_AMD_MEMORY_POOL_LOCATION_GPU };
	}
	f->nagents = 1 + ndev;
}

void hsa_face_agent_fill_tables(struct hsa_face *f)
{
	struct hsaqm_core_api_table *c = &f->core;
	struct hsaqm_amd_ext_table_v2 *a = &f->amd_ext;

	c->hsa_agent_get_info_fn = face_agent_get_info;
	c->hsa_agent_iterate_regions_fn = FN(face_agent_iterate_regions);
	c->hsa_region_get_info_fn = FN(face_region_get_info);
	c->hsa_memory_allocate_fn = FN(face_memory_allocate);
	c->hsa_memory_free_fn = FN(face_memory_free);
	c->hsa_memory_copy_fn = FN(face_memory_copy);
	c->hsa_memory_register_fn = FN(face_memory_register);
	c->hsa_memory_deregister_fn = FN(face_memory_deregister);
	c->hsa_memory_assign_agent_fn = FN(face_memory_assign_agent);
	a->hsa_amd_memory_pool_get_info_fn = FN(face_memory_pool_get_info);
	a->hsa_amd_agent_iterate_memory_pools_fn = FN(face_agent_iterate_memory_pools);
	a->hsa_amd_memory_pool_allocate_fn = FN(face_memory_pool_allocate);
	a->hsa_amd_memory_pool_free_fn = FN(face_memory_pool_free);
	a->hsa_amd_agent_memory_pool_get_info_fn = FN(face_agent_memory_pool_get_info);
	a->hsa_amd_agents_allow_access_fn = FN(face_agents_allow_access);
}
