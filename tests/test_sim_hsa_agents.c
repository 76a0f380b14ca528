/* SPDX-License-Identifier: MIT */
/*
 * The device model's HSA face: its agents (a CPU, then one gfx942 GPU per device) and its memory
 * pools and regions (model memory handed out, foreign frees refused), through the table.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"

/* Prototypes of the entries the mirror types as hsaqm_api_fn. */
typedef hsaqm_hsa_status_t (*pool_cb)(struct hsaqm_hsa_amd_memory_pool, void *);
typedef hsaqm_hsa_status_t (*iter_pools_fn)(struct hsaqm_hsa_agent, pool_cb, void *);
typedef hsaqm_hsa_status_t (*pool_info_fn)(struct hsaqm_hsa_amd_memory_pool, uint32_t, void *);
typedef hsaqm_hsa_status_t (*agent_pool_info_fn)(struct hsaqm_hsa_agent,
						 struct hsaqm_hsa_amd_memory_pool, uint32_t,
						 void *);
typedef hsaqm_hsa_status_t (*pool_alloc_fn)(struct hsaqm_hsa_amd_memory_pool, size_t, uint32_t,
					    void **);
typedef hsaqm_hsa_status_t (*ptr_fn)(void *);
typedef hsaqm_hsa_status_t (*region_cb)(struct hsaqm_hsa_region, void *);
typedef hsaqm_hsa_status_t (*iter_regions_fn)(struct hsaqm_hsa_agent, region_cb, void *);
typedef hsaqm_hsa_status_t (*region_info_fn)(struct hsaqm_hsa_region, uint32_t, void *);
typedef hsaqm_hsa_status_t (*mem_alloc_fn)(struct hsaqm_hsa_region, size_t, void **);
typedef hsaqm_hsa_status_t (*allow_access_fn)(uint32_t, const struct hsaqm_hsa_agent *,
					      const uint32_t *, const void *);

static hsaqm_hsa_status_t stop_at_first(struct hsaqm_hsa_agent a, void *data)
{
	(*(int *)data)++;
	return HSAQM_HSA_STATUS_INFO_BREAK;
}

static void test_agents_are_a_cpu_then_one_gfx942_gpu_per_device(void)
{
	struct t_face h;
	char name[64];
	uint32_t v = 0;
	uint16_t dim[3];
	uint64_t v64;
	struct hsaqm_hsa_agent cpu;
	int visits = 0;

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_VIRTUAL, 2));
	CU_ASSERT_EQUAL(h.nagents, 3);
	CU_ASSERT_EQUAL(h.core->hsa_iterate_agents_fn(stop_at_first, &visits),
			HSAQM_HSA_STATUS_INFO_BREAK);
	CU_ASSERT_EQUAL(visits, 1);
	hsaqm_hsa_agent_get_info_fn info = h.core->hsa_agent_get_info_fn;

	CU_ASSERT_EQUAL(info(h.cpu, SIM_HSA_AGENT_INFO_FEATURE, &v), 0);
	CU_ASSERT_EQUAL(v & SIM_HSA_AGENT_FEATURE_KERNEL_DISPATCH, 0);
	for (unsigned int g = 0; g < 2; g++) {
		struct hsaqm_hsa_agent a = h.gpu[g];

		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_NAME, name), 0);
		CU_ASSERT_STRING_EQUAL(name, "gfx942");
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_VENDOR_NAME, name), 0);
		CU_ASSERT_STRING_EQUAL(name, "AMD");
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_FEATURE, &v), 0);
		CU_ASSERT_EQUAL(v, SIM_HSA_AGENT_FEATURE_KERNEL_DISPATCH);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_QUEUE_MIN_SIZE, &v), 0);
		CU_ASSERT_EQUAL(v, 64);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_QUEUE_MAX_SIZE, &v), 0);
		CU_ASSERT_EQUAL(v, 131072);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_QUEUES_MAX, &v), 0);
		CU_ASSERT_EQUAL(v, 128);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_QUEUE_TYPE, &v), 0);
		CU_ASSERT_EQUAL(v, HSAQM_HSA_QUEUE_TYPE_MULTI);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_WAVEFRONT_SIZE, &v), 0);
		CU_ASSERT_EQUAL(v, 64);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, &v), 0);
		CU_ASSERT_EQUAL(v, 1024);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_WORKGROUP_MAX_DIM, dim), 0);
		CU_ASSERT_EQUAL(dim[0], 1024);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_GRID_MAX_SIZE, &v), 0);
		CU_ASSERT_EQUAL(v, UINT32_MAX);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_DEVICE, &v), 0);
		CU_ASSERT_EQUAL(v, SIM_HSA_DEVICE_TYPE_GPU);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AGENT_INFO_NODE, &v), 0);
		CU_ASSERT_EQUAL(v, 1 + g);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_DRIVER_NODE_ID, &v), 0);
		CU_ASSERT_EQUAL(v, 1 + g);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &v), 0);
		CU_ASSERT_EQUAL(v, 80);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_CHIP_ID, &v), 0);
		CU_ASSERT_EQUAL(v, 0x74a2);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU, &v), 0);
		CU_ASSERT_EQUAL(v, 32);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU, &v), 0);
		CU_ASSERT_EQUAL(v, 4);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_NUM_XCC, &v), 0);
		CU_ASSERT_EQUAL(v, 4);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY, &v), 0);
		CU_ASSERT_EQUAL(v, 1420);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES, &v), 0);
		CU_ASSERT_EQUAL(v, 16); /* array_count 16 / simd_arrays_per_engine 1 */
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY, &v64), 0);
		CU_ASSERT_EQUAL(v64, 1000000000ull);
		CU_ASSERT_EQUAL(info(a, SIM_HSA_AMD_AGENT_INFO_NEAREST_CPU, &cpu), 0);
		CU_ASSERT_EQUAL(cpu.handle, h.cpu.handle);
		CU_ASSERT_EQUAL(info(a, 0xBEEF, &v), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	}
	CU_ASSERT_NOT_EQUAL(h.gpu[0].handle, h.gpu[1].handle);
	struct hsaqm_hsa_agent bogus = { h.gpu[0].handle + 1 };
	CU_ASSERT_EQUAL(info(bogus, SIM_HSA_AGENT_INFO_NAME, name),
			HSAQM_HSA_STATUS_ERROR_INVALID_AGENT);
	struct hsaqm_hsa_agent zero = { 0 };
	CU_ASSERT_EQUAL(info(zero, SIM_HSA_AGENT_INFO_NAME, name),
			HSAQM_HSA_STATUS_ERROR_INVALID_AGENT);
	t_face_close(&h);
}

struct pools {
	struct hsaqm_hsa_amd_memory_pool p[4];
	struct hsaqm_hsa_region r[4];
	unsigned int np, nr;
};

static hsaqm_hsa_status_t collect_pool(struct hsaqm_hsa_amd_memory_pool p, void *data)
{
	struct pools *ps = data;

	if (ps->np < 4)
		ps->p[ps->np++] = p;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t collect_region(struct hsaqm_hsa_region r, void *data)
{
	struct pools *ps = data;

	if (ps->nr < 4)
		ps->r[ps->nr++] = r;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static void test_memory_pools_hand_out_model_memory_and_refuse_foreign_frees(void)
{
	struct t_face h;
	struct pools cpu = { 0 }, gpu = { 0 };
	uint32_t flags, loc, access;
	size_t size = 0;
	void *p = NULL;

	CU_ASSERT_FATAL(t_face_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1));
	iter_pools_fn iter = (iter_pools_fn)h.amd->hsa_amd_agent_iterate_memory_pools_fn;
	pool_info_fn pinfo = (pool_info_fn)h.amd->hsa_amd_memory_pool_get_info_fn;
	agent_pool_info_fn apinfo = (agent_pool_info_fn)
					    h.amd->hsa_amd_agent_memory_pool_get_info_fn;
	pool_alloc_fn palloc = (pool_alloc_fn)h.amd->hsa_amd_memory_pool_allocate_fn;
	ptr_fn pfree = (ptr_fn)h.amd->hsa_amd_memory_pool_free_fn;

	CU_ASSERT_EQUAL(iter(h.cpu, collect_pool, &cpu), 0);
	CU_ASSERT_EQUAL(iter(h.gpu[0], collect_pool, &gpu), 0);
	CU_ASSERT_EQUAL_FATAL(cpu.np, 2);
	CU_ASSERT_EQUAL_FATAL(gpu.np, 1);
	/* System pools: fine-grained with kernarg, coarse-grained; the GPU's: coarse, on it. */
	CU_ASSERT_EQUAL(pinfo(cpu.p[0], SIM_HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags), 0);
	CU_ASSERT_EQUAL(flags, SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT |
				       SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
	CU_ASSERT_EQUAL(pinfo(cpu.p[1], SIM_HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags), 0);
	CU_ASSERT_EQUAL(flags, SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
	CU_ASSERT_EQUAL(pinfo(gpu.p[0], SIM_HSA_AMD_MEMORY_POOL_INFO_LOCATION, &loc), 0);
	CU_ASSERT_EQUAL(loc, SIM_HSA_AMD_MEMORY_POOL_LOCATION_GPU);
	CU_ASSERT_EQUAL(pinfo(cpu.p[0], SIM_HSA_AMD_MEMORY_POOL_INFO_SIZE, &size), 0);
	CU_ASSERT(size >= (64u << 20));
	CU_ASSERT_EQUAL(
		apinfo(h.gpu[0], cpu.p[0], SIM_HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access), 0);
	CU_ASSERT_EQUAL(access, SIM_HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT);
	CU_ASSERT_EQUAL(apinfo(h.cpu, gpu.p[0], SIM_HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access),
			0);
	CU_ASSERT_EQUAL(access, SIM_HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT);

	for (unsigned int i = 0; i < 3; i++) {
		struct hsaqm_hsa_amd_memory_pool pool = i < 2 ? cpu.p[i] : gpu.p[0];

		p = NULL;
		CU_ASSERT_EQUAL(palloc(pool, 100, 0, &p), 0);
		CU_ASSERT_TRUE(sim_mem_contains(h.sim, p, 100)); /* the model can read it */
		CU_ASSERT_EQUAL((uintptr_t)p % 4096, 0);
		CU_ASSERT_EQUAL(pfree(p), 0);
		CU_ASSERT_EQUAL(pfree(p),
				HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT); /* double free */
	}
	CU_ASSERT_EQUAL(palloc(cpu.p[0], 0, 0, &p), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	void *foreign = malloc(64);
	CU_ASSERT_EQUAL(pfree(foreign), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	free(foreign);
	struct hsaqm_hsa_amd_memory_pool bad = { cpu.p[0].handle + 8 };
	CU_ASSERT_EQUAL(palloc(bad, 64, 0, &p), HSAQM_HSA_STATUS_ERROR_INVALID_MEMORY_POOL);

	/* Regions: a GPU sees its own and the system ones, kernarg among them. */
	iter_regions_fn riter = (iter_regions_fn)h.core->hsa_agent_iterate_regions_fn;
	region_info_fn rinfo = (region_info_fn)h.core->hsa_region_get_info_fn;
	mem_alloc_fn malloc_r = (mem_alloc_fn)h.core->hsa_memory_allocate_fn;
	ptr_fn mfree = (ptr_fn)h.core->hsa_memory_free_fn;
	struct pools regs = { 0 };
	CU_ASSERT_EQUAL(riter(h.gpu[0], collect_region, &regs), 0);
	CU_ASSERT_EQUAL(regs.nr, 3);
	int kernarg = -1;
	for (unsigned int i = 0; i < regs.nr; i++) {
		CU_ASSERT_EQUAL(rinfo(regs.r[i], SIM_HSA_REGION_INFO_GLOBAL_FLAGS, &flags), 0);
		if (flags & SIM_HSA_REGION_GLOBAL_FLAG_KERNARG)
			kernarg = (int)i;
	}
	CU_ASSERT_FATAL(kernarg >= 0);
	CU_ASSERT_EQUAL(malloc_r(regs.r[kernarg], 256, &p), 0);
	CU_ASSERT_TRUE(sim_mem_contains(h.sim, p, 256));
	allow_access_fn allow = (allow_access_fn)h.amd->hsa_amd_agents_allow_access_fn;
	CU_ASSERT_EQUAL(allow(1, &h.gpu[0], NULL, p), 0);
	CU_ASSERT_EQUAL(allow(0, &h.gpu[0], NULL, p), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(mfree(p), 0);
	t_face_close(&h);
}

static const struct t_case cases[] = {
	T_CASE(test_agents_are_a_cpu_then_one_gfx942_gpu_per_device),
	T_CASE(test_memory_pools_hand_out_model_memory_and_refuse_foreign_frees),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-hsa-agents", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-hsa-agents", suites);
}
