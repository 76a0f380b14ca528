// SPDX-License-Identifier: MIT
/*
 * hsa_rt.c - the probe's HSA side. Everything goes through a root HsaApiTable: the model's
 * HSA face gives one, and for ROCr the probe builds one from the library's exported
 * functions (dlopen, so the probe builds and runs without ROCm installed). The table is the
 * seam: the checks run the same code on both, and so does lib's HSA backend, which takes a
 * root table too.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_internal.h"

/* Read a function pointer out of a table slot (object and function pointers share a size). */
static void *slot_fn(void *const *slot)
{
	return slot ? *slot : NULL;
}

#define CORE_FN(core, field) ((core)->field)

int probe_hsa_from_table(struct probe_hsa *h, void *root, char *why, size_t why_len)
{
	struct hsaqm_core_api_table *core;
	int err;

	if (!h || !root)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	err = hsaqm_api_table_detect(root, 0, &h->layout);
	if (err) {
		snprintf(why, why_len, "HSA API table of an unknown layout (root major %u)",
			 h->layout.root.major_id);
		return -ENOTSUP;
	}
	h->root = root;
	core = ((struct hsaqm_api_root_v1 *)root)->core;

#define ENTRY(var, e, type) h->var = (type)slot_fn(hsaqm_api_table_slot(root, &h->layout, e))
	ENTRY(init, HSAQM_API_HSA_INIT, hsaqm_hsa_init_fn);
	ENTRY(shut_down, HSAQM_API_HSA_SHUT_DOWN, hsaqm_hsa_shut_down_fn);
	ENTRY(iterate_agents, HSAQM_API_ITERATE_AGENTS, hsaqm_hsa_iterate_agents_fn);
	ENTRY(agent_get_info, HSAQM_API_AGENT_GET_INFO, hsaqm_hsa_agent_get_info_fn);
	ENTRY(queue_create, HSAQM_API_QUEUE_CREATE, hsaqm_hsa_queue_create_fn);
	ENTRY(queue_destroy, HSAQM_API_QUEUE_DESTROY, hsaqm_hsa_queue_destroy_fn);
	ENTRY(signal_create, HSAQM_API_SIGNAL_CREATE, hsaqm_hsa_signal_create_fn);
	ENTRY(signal_destroy, HSAQM_API_SIGNAL_DESTROY, hsaqm_hsa_signal_destroy_fn);
	ENTRY(signal_load, HSAQM_API_SIGNAL_LOAD_SCACQUIRE, hsaqm_hsa_signal_load_fn);
	ENTRY(signal_store, HSAQM_API_SIGNAL_STORE_SCRELEASE, hsaqm_hsa_signal_store_fn);
	ENTRY(signal_wait, HSAQM_API_SIGNAL_WAIT_SCACQUIRE, hsaqm_hsa_signal_wait_fn);
	ENTRY(get_dispatch_time, HSAQM_API_AMD_PROFILING_GET_DISPATCH_TIME,
	      hsaqm_hsa_amd_profiling_dispatch_time_fn);
	ENTRY(set_profiler_enabled, HSAQM_API_AMD_PROFILING_SET_PROFILER_ENABLED,
	      hsaqm_hsa_amd_profiling_enable_fn);
	ENTRY(cu_set_mask, HSAQM_API_AMD_QUEUE_CU_SET_MASK, hsaqm_hsa_amd_queue_cu_set_mask_fn);
#undef ENTRY

	/* Entries outside hsaqm's enum: the CoreApiTable never changed layout (api_table.h). */
	h->system_get_info = (probe_system_get_info_fn)CORE_FN(core, hsa_system_get_info_fn);
	h->iterate_regions = (probe_iterate_regions_fn)CORE_FN(core, hsa_agent_iterate_regions_fn);
	h->region_get_info = (probe_region_get_info_fn)CORE_FN(core, hsa_region_get_info_fn);
	h->memory_allocate = (probe_memory_allocate_fn)CORE_FN(core, hsa_memory_allocate_fn);
	h->memory_free = (probe_memory_free_fn)CORE_FN(core, hsa_memory_free_fn);
	if (h->layout.core.minor_id >= offsetof(struct hsaqm_core_api_table,
						hsa_executable_iterate_program_symbols_fn)) {
		h->reader_from_memory = (probe_reader_from_memory_fn)CORE_FN(
			core, hsa_code_object_reader_create_from_memory_fn);
		h->reader_destroy =
			(probe_reader_destroy_fn)CORE_FN(core, hsa_code_object_reader_destroy_fn);
		h->executable_create_alt =
			(probe_executable_create_alt_fn)CORE_FN(core, hsa_executable_create_alt_fn);
		h->load_agent_code_object = (probe_load_agent_code_object_fn)CORE_FN(
			core, hsa_executable_load_agent_code_object_fn);
		h->get_symbol_by_name = (probe_get_symbol_by_name_fn)CORE_FN(
			core, hsa_executable_get_symbol_by_name_fn);
	}
	h->executable_destroy =
		(probe_executable_destroy_fn)CORE_FN(core, hsa_executable_destroy_fn);
	h->executable_freeze = (probe_executable_freeze_fn)CORE_FN(core, hsa_executable_freeze_fn);
	h->symbol_get_info =
		(probe_symbol_get_info_fn)CORE_FN(core, hsa_executable_symbol_get_info_fn);

	const struct {
		const void *fn;
		const char *name;
	} req[] = {
		{ (const void *)h->init, "hsa_init" },
		{ (const void *)h->shut_down, "hsa_shut_down" },
		{ (const void *)h->system_get_info, "hsa_system_get_info" },
		{ (const void *)h->iterate_agents, "hsa_iterate_agents" },
		{ (const void *)h->agent_get_info, "hsa_agent_get_info" },
		{ (const void *)h->queue_create, "hsa_queue_create" },
		{ (const void *)h->queue_destroy, "hsa_queue_destroy" },
		{ (const void *)h->signal_create, "hsa_signal_create" },
		{ (const void *)h->signal_destroy, "hsa_signal_destroy" },
		{ (const void *)h->signal_load, "hsa_signal_load_scacquire" },
		{ (const void *)h->signal_store, "hsa_signal_store_screlease" },
		{ (const void *)h->signal_wait, "hsa_signal_wait_scacquire" },
		{ (const void *)h->iterate_regions, "hsa_agent_iterate_regions" },
		{ (const void *)h->region_get_info, "hsa_region_get_info" },
		{ (const void *)h->memory_allocate, "hsa_memory_allocate" },
		{ (const void *)h->memory_free, "hsa_memory_free" },
	};
	for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
		if (!req[i].fn) {
			snprintf(why, why_len, "the HSA runtime's table has no %s", req[i].name);
			return -ENOTSUP;
		}
	}
	return 0;
}

/* ---- ROCr through dlopen --------------------------------------------------------------- */

struct probe_rocr {
	void *dl;
	struct hsaqm_api_root_v3 root;
	struct hsaqm_core_api_table core;
	struct hsaqm_amd_ext_table_v2 amd;
	unsigned int filled;
};

/* What an entry the library does not export answers (the table never holds a NULL). */
static hsaqm_hsa_status_t rocr_missing(void)
{
	return HSAQM_HSA_STATUS_ERROR;
}

/* Core entries outside hsaqm's enum that the probe calls, by their exported names. */
static const struct {
	size_t off;
	const char *name;
} rocr_extra[] = {
	{ offsetof(struct hsaqm_core_api_table, hsa_system_get_info_fn), "hsa_system_get_info" },
	{ offsetof(struct hsaqm_core_api_table, hsa_agent_iterate_regions_fn),
	  "hsa_agent_iterate_regions" },
	{ offsetof(struct hsaqm_core_api_table, hsa_region_get_info_fn), "hsa_region_get_info" },
	{ offsetof(struct hsaqm_core_api_table, hsa_memory_allocate_fn), "hsa_memory_allocate" },
	{ offsetof(struct hsaqm_core_api_table, hsa_memory_free_fn), "hsa_memory_free" },
	{ offsetof(struct hsaqm_core_api_table, hsa_status_string_fn), "hsa_status_string" },
	{ offsetof(struct hsaqm_core_api_table, hsa_executable_destroy_fn),
	  "hsa_executable_destroy" },
	{ offsetof(struct hsaqm_core_api_table, hsa_executable_freeze_fn),
	  "hsa_executable_freeze" },
	{ offsetof(struct hsaqm_core_api_table, hsa_executable_symbol_get_info_fn),
	  "hsa_executable_symbol_get_info" },
	{ offsetof(struct hsaqm_core_api_table, hsa_code_object_reader_create_from_memory_fn),
	  "hsa_code_object_reader_create_from_memory" },
	{ offsetof(struct hsaqm_core_api_table, hsa_code_object_reader_destroy_fn),
	  "hsa_code_object_reader_destroy" },
	{ offsetof(struct hsaqm_core_api_table, hsa_executable_create_alt_fn),
	  "hsa_executable_create_alt" },
	{ offsetof(struct hsaqm_core_api_table, hsa_executable_load_agent_code_object_fn),
	  "hsa_executable_load_agent_code_object" },
	{ offsetof(struct hsaqm_core_api_table, hsa_executable_get_symbol_by_name_fn),
	  "hsa_executable_get_symbol_by_name" },
};

static void fill_stubs(void *table, size_t size)
{
	hsaqm_api_fn stub = (hsaqm_api_fn)rocr_missing;
	char *p = (char *)table + sizeof(struct hsaqm_api_table_version);
	char *end = (char *)table + size;

	for (; p + sizeof(stub) <= end; p += sizeof(stub))
		memcpy(p, &stub, sizeof(stub));
}

int probe_rocr_load(struct probe_rocr **out, void **root_table, char *path, size_t path_len,
		    char *why, size_t why_len)
{
	static const char *const names[] = {
		"libhsa-runtime64.so.1", "libhsa-runtime64.so",
		"/opt/rocm/lib/libhsa-runtime64.so.1", "/opt/rocm/lib/libhsa-runtime64.so",
	};
	struct hsaqm_api_layout l;
	struct probe_rocr *r;
	const char *found = NULL;
	void *dl = NULL;

	if (!out || !root_table)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !dl; i++) {
		dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		found = names[i];
	}
	if (!dl) {
		const char *e = dlerror();

		snprintf(why, why_len, "no ROCm runtime (libhsa-runtime64.so): %s", e ? e : "?");
		return -ENOENT;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		dlclose(dl);
		return -ENOMEM;
	}
	r->dl = dl;
	/* The layout the model's HSA face presents (ROCm 6.3): root 3, core 2, AmdExt 2 step 4. */
	r->root.version = (struct hsaqm_api_table_version){ 3, HSAQM_ROOT_SIZE_V3_ROCM_6_2, 1, 0 };
	r->root.core = &r->core;
	r->root.amd_ext = &r->amd;
	r->core.version = (struct hsaqm_api_table_version){ 2, HSAQM_CORE_API_TABLE_SIZE, 0, 0 };
	r->amd.version = (struct hsaqm_api_table_version){ 2, HSAQM_AMD_EXT_SIZE_ROCM_6_3, 4, 0 };
	fill_stubs(&r->core, sizeof(r->core));
	fill_stubs(&r->amd, sizeof(r->amd));
	if (hsaqm_api_table_detect(&r->root, 3, &l)) {
		snprintf(why, why_len, "internal: the table built for ROCr is not recognised");
		probe_rocr_unload(r);
		return -ENOTSUP;
	}
	for (int e = 0; e < HSAQM_API_ENTRY_COUNT; e++) {
		void **slot = hsaqm_api_table_slot(&r->root, &l, (enum hsaqm_api_entry)e);
		void *sym = slot ? dlsym(dl, hsaqm_api_entry_name((enum hsaqm_api_entry)e)) : NULL;

		if (sym) {
			*slot = sym;
			r->filled++;
		}
	}
	for (size_t i = 0; i < sizeof(rocr_extra) / sizeof(rocr_extra[0]); i++) {
		void *sym = dlsym(dl, rocr_extra[i].name);

		if (sym) {
			memcpy((char *)&r->core + rocr_extra[i].off, &sym, sizeof(sym));
			r->filled++;
		}
	}
	if (path)
		probe_strlcpy(path, found, path_len);
	*out = r;
	*root_table = &r->root;
	return 0;
}

void probe_rocr_unload(struct probe_rocr *r)
{
	if (!r)
		return;
	/*
	 * The library stays loaded: ROCr keeps threads and static state past hsa_shut_down, and
	 * unloading it under them is not safe; the process ends soon after anyway.
	 */
	free(r);
}

unsigned int probe_rocr_table_filled(const struct probe_rocr *r)
{
	return r ? r->filled : 0;
}

/* ---- the runtime's clock ---------------------------------------------------------------- */

uint64_t probe_hsa_ticks_ns(const struct probe_hsa *h, uint64_t ticks)
{
	if (!h->ts_hz)
		return 0;
	/* 128-bit: ticks of a GHz clock times 1e9 overflow 64 bits after ~18 s. */
	return (uint64_t)((unsigned __int128)ticks * 1000000000u / h->ts_hz);
}

int probe_hsa_now(const struct probe_hsa *h, uint64_t *ns)
{
	struct probe_hsa *w = (struct probe_hsa *)h; /* the frequency is cached once */
	uint64_t ticks = 0;

	if (!w->ts_hz &&
	    (h->system_get_info(PROBE_HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &w->ts_hz) || !w->ts_hz))
		return -EIO;
	if (h->system_get_info(PROBE_HSA_SYSTEM_INFO_TIMESTAMP, &ticks))
		return -EIO;
	*ns = probe_hsa_ticks_ns(h, ticks);
	return 0;
}

/* ---- agents and memory ----------------------------------------------------------------- */

struct find_gpu {
	const struct probe_hsa *h;
	uint32_t node_id, index, seen;
	bool by_node, found;
	struct hsaqm_hsa_agent agent, nth;
	bool have_nth;
};

static hsaqm_hsa_status_t find_gpu_cb(struct hsaqm_hsa_agent agent, void *data)
{
	struct find_gpu *f = data;
	uint32_t type = 0, node = UINT32_MAX;

	if (f->h->agent_get_info(agent, PROBE_HSA_AGENT_INFO_DEVICE, &type) ||
	    type != PROBE_HSA_DEVICE_TYPE_GPU)
		return HSAQM_HSA_STATUS_SUCCESS;
	if (f->h->agent_get_info(agent, PROBE_HSA_AMD_AGENT_INFO_DRIVER_NODE_ID, &node) == 0 &&
	    node == f->node_id) {
		f->agent = agent;
		f->found = true;
		return HSAQM_HSA_STATUS_INFO_BREAK;
	}
	if (f->seen++ == f->index) {
		f->nth = agent;
		f->have_nth = true;
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

int probe_hsa_find_gpu(const struct probe_hsa *h, uint32_t node_id, uint32_t index,
		       struct hsaqm_hsa_agent *out)
{
	struct find_gpu f = { .h = h, .node_id = node_id, .index = index };

	h->iterate_agents(find_gpu_cb, &f);
	if (f.found) {
		*out = f.agent;
		return 0;
	}
	if (f.have_nth) {
		*out = f.nth;
		return 0;
	}
	return -ENODEV;
}

struct find_region {
	const struct probe_hsa *h;
	struct hsaqm_hsa_region region;
	bool found;
};

static hsaqm_hsa_status_t find_region_cb(struct hsaqm_hsa_region region, void *data)
{
	struct find_region *f = data;
	uint32_t seg = UINT32_MAX, flags = 0;

	if (f->h->region_get_info(region, PROBE_HSA_REGION_INFO_SEGMENT, &seg) ||
	    seg != PROBE_HSA_REGION_SEGMENT_GLOBAL)
		return HSAQM_HSA_STATUS_SUCCESS;
	if (f->h->region_get_info(region, PROBE_HSA_REGION_INFO_GLOBAL_FLAGS, &flags))
		return HSAQM_HSA_STATUS_SUCCESS;
	/* Kernarg memory is fine-grained system memory both sides see without copies. */
	if (flags & PROBE_HSA_REGION_GLOBAL_FLAG_KERNARG) {
		f->region = region;
		f->found = true;
		return HSAQM_HSA_STATUS_INFO_BREAK;
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

void *probe_hsa_alloc(const struct probe_hsa *h, struct hsaqm_hsa_agent agent, size_t size,
		      bool zero)
{
	struct find_region f = { .h = h };
	void *p = NULL;

	h->iterate_regions(agent, find_region_cb, &f);
	if (!f.found || h->memory_allocate(f.region, size, &p))
		return NULL;
	if (zero)
		memset(p, 0, size);
	return p;
}

void probe_hsa_free(const struct probe_hsa *h, void *p)
{
	if (p)
		h->memory_free(p);
}
