/* SPDX-License-Identifier: MIT */
/*
 * The API table detector identifies every ROCr era from tables filled as ROCr fills them,
 * finds each entry hsaqm needs at ROCr's position, and refuses or degrades safely on
 * tables it does not know, never reading past a declared size.
 *
 * The expected positions come from ROCr's own entry order (the name lists below, in
 * header order), not from hsaqm's mirror structs: each slot of a synthetic table holds a
 * sentinel naming its index, and an entry is right when its slot holds the sentinel of
 * its name's index. Tables are malloc'ed at exactly their declared size, so ASan reports
 * any read past it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-hsa/api_table.h"
#include "t_cunit.h"

/* ---- ROCr's entry order, per table, in header order -------------------------------- */

/* CoreApiTable: one order in every release. */
static const char *const core_names[] = {
	"hsa_init", "hsa_shut_down", "hsa_system_get_info", "hsa_system_extension_supported",
	"hsa_system_get_extension_table", "hsa_iterate_agents", "hsa_agent_get_info",
	"hsa_queue_create", "hsa_soft_queue_create", "hsa_queue_destroy", "hsa_queue_inactivate",
	"hsa_queue_load_read_index_scacquire", "hsa_queue_load_read_index_relaxed",
	"hsa_queue_load_write_index_scacquire", "hsa_queue_load_write_index_relaxed",
	"hsa_queue_store_write_index_relaxed", "hsa_queue_store_write_index_screlease",
	"hsa_queue_cas_write_index_scacq_screl", "hsa_queue_cas_write_index_scacquire",
	"hsa_queue_cas_write_index_relaxed", "hsa_queue_cas_write_index_screlease",
	"hsa_queue_add_write_index_scacq_screl", "hsa_queue_add_write_index_scacquire",
	"hsa_queue_add_write_index_relaxed", "hsa_queue_add_write_index_screlease",
	"hsa_queue_store_read_index_relaxed", "hsa_queue_store_read_index_screlease",
	"hsa_agent_iterate_regions", "hsa_region_get_info", "hsa_agent_get_exception_policies",
	"hsa_agent_extension_supported", "hsa_memory_register", "hsa_memory_deregister",
	"hsa_memory_allocate", "hsa_memory_free", "hsa_memory_copy", "hsa_memory_assign_agent",
	"hsa_signal_create", "hsa_signal_destroy", "hsa_signal_load_relaxed",
	"hsa_signal_load_scacquire", "hsa_signal_store_relaxed", "hsa_signal_store_screlease",
	"hsa_signal_wait_relaxed", "hsa_signal_wait_scacquire", "hsa_signal_and_relaxed",
	"hsa_signal_and_scacquire", "hsa_signal_and_screlease", "hsa_signal_and_scacq_screl",
	"hsa_signal_or_relaxed", "hsa_signal_or_scacquire", "hsa_signal_or_screlease",
	"hsa_signal_or_scacq_screl", "hsa_signal_xor_relaxed", "hsa_signal_xor_scacquire",
	"hsa_signal_xor_screlease", "hsa_signal_xor_scacq_screl", "hsa_signal_exchange_relaxed",
	"hsa_signal_exchange_scacquire", "hsa_signal_exchange_screlease",
	"hsa_signal_exchange_scacq_screl", "hsa_signal_add_relaxed", "hsa_signal_add_scacquire",
	"hsa_signal_add_screlease", "hsa_signal_add_scacq_screl", "hsa_signal_subtract_relaxed",
	"hsa_signal_subtract_scacquire", "hsa_signal_subtract_screlease",
	"hsa_signal_subtract_scacq_screl", "hsa_signal_cas_relaxed", "hsa_signal_cas_scacquire",
	"hsa_signal_cas_screlease", "hsa_signal_cas_scacq_screl", "hsa_isa_from_name",
	"hsa_isa_get_info", "hsa_isa_compatible", "hsa_code_object_serialize",
	"hsa_code_object_deserialize", "hsa_code_object_destroy", "hsa_code_object_get_info",
	"hsa_code_object_get_symbol", "hsa_code_symbol_get_info",
	"hsa_code_object_iterate_symbols", "hsa_executable_create", "hsa_executable_destroy",
	"hsa_executable_load_code_object", "hsa_executable_freeze", "hsa_executable_get_info",
	"hsa_executable_global_variable_define", "hsa_executable_agent_global_variable_define",
	"hsa_executable_readonly_variable_define", "hsa_executable_validate",
	"hsa_executable_get_symbol", "hsa_executable_symbol_get_info",
	"hsa_executable_iterate_symbols", "hsa_status_string", "hsa_extension_get_name",
	"hsa_system_major_extension_supported", "hsa_system_get_major_extension_table",
	"hsa_agent_major_extension_supported", "hsa_cache_get_info", "hsa_agent_iterate_caches",
	"hsa_signal_silent_store_relaxed", "hsa_signal_silent_store_screlease",
	"hsa_signal_group_create", "hsa_signal_group_destroy",
	"hsa_signal_group_wait_any_scacquire", "hsa_signal_group_wait_any_relaxed",
	"hsa_agent_iterate_isas", "hsa_isa_get_info_alt", "hsa_isa_get_exception_policies",
	"hsa_isa_get_round_method", "hsa_wavefront_get_info", "hsa_isa_iterate_wavefronts",
	"hsa_code_object_get_symbol_from_name", "hsa_code_object_reader_create_from_file",
	"hsa_code_object_reader_create_from_memory", "hsa_code_object_reader_destroy",
	"hsa_executable_create_alt", "hsa_executable_load_program_code_object",
	"hsa_executable_load_agent_code_object", "hsa_executable_validate_alt",
	"hsa_executable_get_symbol_by_name", "hsa_executable_iterate_agent_symbols",
	"hsa_executable_iterate_program_symbols",
};

/* AmdExtTable of ROCm 4.5 - 5.4 (the installed 5.2.3 header). */
static const char *const amd_4_5_names[] = {
	"hsa_amd_coherency_get_type", "hsa_amd_coherency_set_type",
	"hsa_amd_profiling_set_profiler_enabled", "hsa_amd_profiling_async_copy_enable",
	"hsa_amd_profiling_get_dispatch_time", "hsa_amd_profiling_get_async_copy_time",
	"hsa_amd_profiling_convert_tick_to_system_domain", "hsa_amd_signal_async_handler",
	"hsa_amd_async_function", "hsa_amd_signal_wait_any", "hsa_amd_queue_cu_set_mask",
	"hsa_amd_memory_pool_get_info", "hsa_amd_agent_iterate_memory_pools",
	"hsa_amd_memory_pool_allocate", "hsa_amd_memory_pool_free", "hsa_amd_memory_async_copy",
	"hsa_amd_agent_memory_pool_get_info", "hsa_amd_agents_allow_access",
	"hsa_amd_memory_pool_can_migrate", "hsa_amd_memory_migrate", "hsa_amd_memory_lock",
	"hsa_amd_memory_unlock", "hsa_amd_memory_fill", "hsa_amd_interop_map_buffer",
	"hsa_amd_interop_unmap_buffer", "hsa_amd_image_create", "hsa_amd_pointer_info",
	"hsa_amd_pointer_info_set_userdata", "hsa_amd_ipc_memory_create",
	"hsa_amd_ipc_memory_attach", "hsa_amd_ipc_memory_detach", "hsa_amd_signal_create",
	"hsa_amd_ipc_signal_create", "hsa_amd_ipc_signal_attach",
	"hsa_amd_register_system_event_handler", "hsa_amd_queue_intercept_create",
	"hsa_amd_queue_intercept_register", "hsa_amd_queue_set_priority",
	"hsa_amd_memory_async_copy_rect", "hsa_amd_runtime_queue_create_register",
	"hsa_amd_memory_lock_to_pool", "hsa_amd_register_deallocation_callback",
	"hsa_amd_deregister_deallocation_callback", "hsa_amd_signal_value_pointer",
	"hsa_amd_svm_attributes_set", "hsa_amd_svm_attributes_get", "hsa_amd_svm_prefetch_async",
	"hsa_amd_queue_cu_get_mask",
};

/*
 * AmdExtTable of major 2, every entry to step 0x15: ROCm 6.0's 67 entries, then one or two
 * per step in the order rocprofiler-sdk pins.
 */
static const char *const amd_v2_names[] = {
	"hsa_amd_coherency_get_type", "hsa_amd_coherency_set_type",
	"hsa_amd_profiling_set_profiler_enabled", "hsa_amd_profiling_async_copy_enable",
	"hsa_amd_profiling_get_dispatch_time", "hsa_amd_profiling_get_async_copy_time",
	"hsa_amd_profiling_convert_tick_to_system_domain", "hsa_amd_signal_async_handler",
	"hsa_amd_async_function", "hsa_amd_signal_wait_any", "hsa_amd_queue_cu_set_mask",
	"hsa_amd_memory_pool_get_info", "hsa_amd_agent_iterate_memory_pools",
	"hsa_amd_memory_pool_allocate", "hsa_amd_memory_pool_free", "hsa_amd_memory_async_copy",
	"hsa_amd_memory_async_copy_on_engine", "hsa_amd_memory_copy_engine_status",
	"hsa_amd_agent_memory_pool_get_info", "hsa_amd_agents_allow_access",
	"hsa_amd_memory_pool_can_migrate", "hsa_amd_memory_migrate", "hsa_amd_memory_lock",
	"hsa_amd_memory_unlock", "hsa_amd_memory_fill", "hsa_amd_interop_map_buffer",
	"hsa_amd_interop_unmap_buffer", "hsa_amd_image_create", "hsa_amd_pointer_info",
	"hsa_amd_pointer_info_set_userdata", "hsa_amd_ipc_memory_create",
	"hsa_amd_ipc_memory_attach", "hsa_amd_ipc_memory_detach", "hsa_amd_signal_create",
	"hsa_amd_ipc_signal_create", "hsa_amd_ipc_signal_attach",
	"hsa_amd_register_system_event_handler", "hsa_amd_queue_intercept_create",
	"hsa_amd_queue_intercept_register", "hsa_amd_queue_set_priority",
	"hsa_amd_memory_async_copy_rect", "hsa_amd_runtime_queue_create_register",
	"hsa_amd_memory_lock_to_pool", "hsa_amd_register_deallocation_callback",
	"hsa_amd_deregister_deallocation_callback", "hsa_amd_signal_value_pointer",
	"hsa_amd_svm_attributes_set", "hsa_amd_svm_attributes_get", "hsa_amd_svm_prefetch_async",
	"hsa_amd_spm_acquire", "hsa_amd_spm_release", "hsa_amd_spm_set_dest_buffer",
	"hsa_amd_queue_cu_get_mask", "hsa_amd_portable_export_dmabuf",
	"hsa_amd_portable_close_dmabuf", "hsa_amd_vmem_address_reserve",
	"hsa_amd_vmem_address_free", "hsa_amd_vmem_handle_create", "hsa_amd_vmem_handle_release",
	"hsa_amd_vmem_map", "hsa_amd_vmem_unmap", "hsa_amd_vmem_set_access",
	"hsa_amd_vmem_get_access", "hsa_amd_vmem_export_shareable_handle",
	"hsa_amd_vmem_import_shareable_handle", "hsa_amd_vmem_retain_alloc_handle",
	"hsa_amd_vmem_get_alloc_properties_from_handle", "hsa_amd_agent_set_async_scratch_limit",
	"hsa_amd_queue_get_info", "hsa_amd_vmem_address_reserve_align", "hsa_amd_enable_logging",
	"hsa_amd_signal_wait_all", "hsa_amd_memory_get_preferred_copy_engine",
	"hsa_amd_portable_export_dmabuf_v2", "hsa_amd_ais_file_write", "hsa_amd_ais_file_read",
	"hsa_amd_counted_queue_acquire", "hsa_amd_counted_queue_release",
	"hsa_amd_memory_async_batch_copy", "hsa_amd_agent_preload",
	"hsa_amd_svm_discard_batch_async", "hsa_amd_signal_get_event_id",
	"hsa_amd_external_semaphore_handle_open", "hsa_amd_external_semaphore_handle_close",
	"hsa_amd_vmem_export_fabric_handle", "hsa_amd_vmem_import_fabric_handle",
	"hsa_amd_queue_create", "hsa_amd_queue_signal_external_semaphore",
	"hsa_amd_queue_wait_external_semaphore", "hsa_amd_image_create_v2",
	"hsa_amd_interop_map_buffer_with_size", "hsa_amd_svm_discard_and_prefetch_batch_async",
	"hsa_amd_agent_set_attribute", "hsa_amd_enable_high_precision_timestamps",
};

/* ToolsApiTable (root major 3): one order since ROCm 6.1. */
static const char *const tools_names[] = {
	"hsa_amd_tool_scratch_event_alloc_start", "hsa_amd_tool_scratch_event_alloc_end",
	"hsa_amd_tool_scratch_event_free_start", "hsa_amd_tool_scratch_event_free_end",
	"hsa_amd_tool_scratch_event_async_reclaim_start",
	"hsa_amd_tool_scratch_event_async_reclaim_end",
};

/*
 * The rest of the AmdExtTable history as edits (docs/hsa-api-tables.md): 5.5 inserted SPM
 * entries before queue_cu_get_mask; 5.6 inserted two copy-engine entries after
 * memory_async_copy and appended two dmabuf entries. Major 2 only appends, so the 5.6 list
 * must be a prefix of the v2 one (checked below).
 */
#define NAMES_MAX 128

struct name_list {
	const char *name[NAMES_MAX];
	unsigned int count;
};

static void list_from(struct name_list *l, const char *const *names, unsigned int n)
{
	l->count = n;
	for (unsigned int i = 0; i < n; i++)
		l->name[i] = names[i];
}

/* Insert n names next to `anchor` (before it, or after it when `after`); -1 if absent. */
static int list_insert(struct name_list *l, const char *anchor, int after,
		       const char *const *names, unsigned int n)
{
	unsigned int at;

	for (at = 0; at < l->count && strcmp(l->name[at], anchor); at++)
		;
	if (at == l->count || l->count + n > NAMES_MAX)
		return -1;
	at += after ? 1 : 0;
	memmove(&l->name[at + n], &l->name[at], (l->count - at) * sizeof(l->name[0]));
	for (unsigned int i = 0; i < n; i++)
		l->name[at + i] = names[i];
	l->count += n;
	return 0;
}

static struct name_list core_list, amd_4_5_list, amd_5_5_list, amd_5_6_list, amd_v2_list,
	tools_list;

/* Suite init: a failure here fails the suite, which t_run() counts. */
static int build_lists(void)
{
	static const char *const spm[] = { "hsa_amd_spm_acquire", "hsa_amd_spm_release",
					   "hsa_amd_spm_set_dest_buffer" };
	static const char *const engine[] = { "hsa_amd_memory_async_copy_on_engine",
					      "hsa_amd_memory_copy_engine_status" };
	static const char *const dmabuf[] = { "hsa_amd_portable_export_dmabuf",
					      "hsa_amd_portable_close_dmabuf" };

	list_from(&core_list, core_names, sizeof(core_names) / sizeof(core_names[0]));
	list_from(&amd_4_5_list, amd_4_5_names, sizeof(amd_4_5_names) / sizeof(amd_4_5_names[0]));
	amd_5_5_list = amd_4_5_list;
	if (list_insert(&amd_5_5_list, "hsa_amd_queue_cu_get_mask", 0, spm, 3))
		return -1;
	amd_5_6_list = amd_5_5_list;
	if (list_insert(&amd_5_6_list, "hsa_amd_memory_async_copy", 1, engine, 2) ||
	    list_insert(&amd_5_6_list, "hsa_amd_queue_cu_get_mask", 1, dmabuf, 2))
		return -1;
	list_from(&amd_v2_list, amd_v2_names, sizeof(amd_v2_names) / sizeof(amd_v2_names[0]));
	list_from(&tools_list, tools_names, sizeof(tools_names) / sizeof(tools_names[0]));
	return 0;
}

static int list_index(const struct name_list *l, unsigned int limit, const char *name)
{
	for (unsigned int i = 0; i < l->count && i < limit; i++)
		if (!strcmp(l->name[i], name))
			return (int)i;
	return -1;
}

/* ---- Synthetic runtimes ------------------------------------------------------------- */

#define TAG_CORE 0xc0u
#define TAG_AMD 0xaeu
#define TAG_TOOLS 0x70u

/* Never called: a value no real function pointer has, naming table and index. */
static uint64_t sentinel(unsigned int tag, unsigned int index)
{
	return 0x5e57000000000000ull | ((uint64_t)tag << 16) | index;
}

/* A sub-table exactly `size` bytes long, version first, sentinels in every slot. */
static void *table_alloc(uint32_t major, uint32_t size, uint32_t step, unsigned int tag)
{
	unsigned char *t = malloc(size);
	struct hsaqm_api_table_version v = { major, size, step, 0 };

	CU_ASSERT_FATAL(t != NULL && size >= sizeof(v));
	memcpy(t, &v, sizeof(v));
	for (uint32_t off = sizeof(v); off + 8 <= size; off += 8) {
		uint64_t s = sentinel(tag, (off - (uint32_t)sizeof(v)) / 8);

		memcpy(t + off, &s, sizeof(s));
	}
	return t;
}

static void put_ptr(unsigned char *root, uint32_t size, size_t off, const void *p)
{
	if (off + sizeof(p) <= size)
		memcpy(root + off, &p, sizeof(p));
}

/* What one ROCr release hands to OnLoad. */
struct era {
	const char *what;
	uint32_t root_major, root_size, root_step;
	uint32_t sub_major;
	uint32_t core_size;
	uint32_t amd_size, amd_step;
	const struct name_list *amd_names;
	enum hsaqm_api_layout_id expect;
	enum hsaqm_api_release release;	/* UNKNOWN: no release wrote these headers */
	uint32_t queue_desc;		/* ROCr's queue descriptor size */
};

struct runtime {
	unsigned char *root;
	void *core, *amd, *tools;
};

static void runtime_build(struct runtime *rt, const struct era *e)
{
	struct hsaqm_api_table_version v = { e->root_major, e->root_size, e->root_step, 0 };

	rt->root = malloc(e->root_size);
	CU_ASSERT_FATAL(rt->root != NULL && e->root_size >= sizeof(v));
	memset(rt->root, 0, e->root_size);
	memcpy(rt->root, &v, sizeof(v));
	rt->core = table_alloc(e->sub_major, e->core_size, 0, TAG_CORE);
	rt->amd = table_alloc(e->sub_major, e->amd_size, e->amd_step, TAG_AMD);
	rt->tools = e->root_major >= 3 ? table_alloc(1, 64, 0, TAG_TOOLS) : NULL;
	put_ptr(rt->root, e->root_size, 16, rt->core);
	put_ptr(rt->root, e->root_size, 24, rt->amd);
	/* finalizer, image and PC sampling stay NULL, as before their extensions load. */
	put_ptr(rt->root, e->root_size, 48, rt->tools);
}

static void runtime_free(struct runtime *rt)
{
	free(rt->root);
	free(rt->core);
	free(rt->amd);
	free(rt->tools);
	memset(rt, 0, sizeof(*rt));
}

/*
 * The sub-table sizes and steps ROCr writes, release by release (5.2.3, 6.1.2, 6.4.3 and
 * 7.2.4 as checked against their headers by abi-rocm-*; the others as read in ROCr's
 * sources), and development builds between them.
 */
#define L(x) HSAQM_API_LAYOUT_ROCM_##x
#define R(x) HSAQM_API_RELEASE_ROCM_##x
#define DEV HSAQM_API_RELEASE_UNKNOWN
static const struct era eras[] = {
	{ "ROCm 5.2.3", 1, 48, 0, 1, 1016, 400, 0, &amd_4_5_list, L(4_5), R(4_5), 256 },
	{ "ROCm 5.5", 1, 48, 0, 1, 1016, 424, 0, &amd_5_5_list, L(5_5), R(5_5), 256 },
	{ "ROCm 5.7", 1, 48, 0, 1, 1016, 456, 0, &amd_5_6_list, L(5_6), R(5_6), 256 },
	{ "ROCm 6.0", 2, 48, 0, 2, 1016, 552, 0, &amd_v2_list, L(6_0), R(6_0), 256 },
	{ "ROCm 6.1", 3, 56, 0, 2, 1016, 560, 1, &amd_v2_list, L(6_1), R(6_1), 256 },
	{ "ROCm 6.2", 3, 64, 1, 2, 1016, 576, 3, &amd_v2_list, L(6_1), R(6_2), 256 },
	{ "ROCm 6.3", 3, 64, 1, 2, 1016, 584, 4, &amd_v2_list, L(6_1), R(6_3), 256 },
	{ "ROCm 7.0", 3, 64, 1, 2, 1016, 608, 7, &amd_v2_list, L(6_1), R(7_0), 2304 },
	{ "develop step 9", 3, 64, 1, 2, 1016, 640, 9, &amd_v2_list, L(6_1), DEV, 2304 },
	{ "develop 0x10", 3, 64, 1, 2, 1016, 712, 0x10, &amd_v2_list, L(6_1), DEV, 2304 },
	{ "develop 0x15", 3, 64, 1, 2, 1016, 768, 0x15, &amd_v2_list, L(6_1), DEV, 2304 },
	{ "ROCm 6.4", 3, 64, 1, 2, 1016, 592, 5, &amd_v2_list, L(6_1), R(6_4), 2304 },
	{ "ROCm 7.2", 3, 64, 1, 2, 1016, 624, 8, &amd_v2_list, L(6_1), R(7_2), 2304 },
	{ "develop step 2", 3, 64, 1, 2, 1016, 568, 2, &amd_v2_list, L(6_1), DEV, 256 },
	{ "develop step 6", 3, 64, 1, 2, 1016, 600, 6, &amd_v2_list, L(6_1), DEV, 2304 },
};
#undef L
#undef R

#define N_ERAS (sizeof(eras) / sizeof(eras[0]))

/*
 * The AmdExt step that added an entry appended in major 2 (rocprofiler-sdk pins these);
 * 0 for every other entry.
 */
static uint32_t added_at_step(const char *name)
{
	if (!strcmp(name, "hsa_amd_queue_get_info"))
		return 0x02;
	if (!strncmp(name, "hsa_amd_counted_queue_", strlen("hsa_amd_counted_queue_")))
		return 0x09;
	if (!strcmp(name, "hsa_amd_queue_create"))
		return 0x10;
	return 0;
}

/*
 * Check every entry of a detected layout against ROCr's order: present exactly when its
 * name is among the table's first `amd_size` worth of entries (core: all of them), its
 * slot holding the sentinel of that index. Returns the number of entries present.
 */
static unsigned int check_entries(struct runtime *rt, const struct hsaqm_api_layout *l,
				  const struct name_list *amd_names, uint32_t amd_limit_bytes,
				  uint32_t amd_step)
{
	unsigned int present = 0;

	for (int e = 0; e < HSAQM_API_ENTRY_COUNT; e++) {
		const char *name = hsaqm_api_entry_name((enum hsaqm_api_entry)e);
		int ci = list_index(&core_list, core_list.count, name);
		int ai = list_index(amd_names, (amd_limit_bytes - 16) / 8, name);
		/* The tools table is there (64 bytes) exactly when the root is major 3. */
		int ti = rt->tools ? list_index(&tools_list, tools_list.count, name) : -1;
		void **slot = hsaqm_api_table_slot(rt->root, l, (enum hsaqm_api_entry)e);
		int idx = ci >= 0 ? ci : ti >= 0 ? ti : ai;
		unsigned int tag = ci >= 0 ? TAG_CORE : ti >= 0 ? TAG_TOOLS : TAG_AMD;
		uint8_t table = ci >= 0 ? HSAQM_API_TABLE_CORE :
			       ti >= 0 ? HSAQM_API_TABLE_TOOLS : HSAQM_API_TABLE_AMD_EXT;

		/* Added at a later step than the table reports: absent even if inside. */
		if (ci < 0 && ti < 0 && amd_step < added_at_step(name))
			idx = -1;

		if (idx < 0) {
			CU_ASSERT_FALSE(l->entry[e].present);
			CU_ASSERT_PTR_NULL(slot);
			continue;
		}
		present++;
		CU_ASSERT_TRUE(l->entry[e].present);
		CU_ASSERT_EQUAL(l->entry[e].table, table);
		CU_ASSERT_EQUAL(l->entry[e].offset, 16u + 8u * (unsigned int)idx);
		CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
		{
			uint64_t got;

			memcpy(&got, slot, sizeof(got));
			CU_ASSERT_EQUAL(got, sentinel(tag, (unsigned int)idx));
		}
	}
	return present;
}

/* ---- Tests --------------------------------------------------------------------------- */

static void test_api_table_history_lists_are_consistent(void)
{
	/* The edits reproduce the sizes ROCr wrote, and major 2 extends 5.6 without moving it. */
	CU_ASSERT_EQUAL(16 + 8 * core_list.count, HSAQM_CORE_API_TABLE_SIZE);
	CU_ASSERT_EQUAL(16 + 8 * amd_4_5_list.count, HSAQM_AMD_EXT_SIZE_ROCM_4_5);
	CU_ASSERT_EQUAL(16 + 8 * amd_5_5_list.count, HSAQM_AMD_EXT_SIZE_ROCM_5_5);
	CU_ASSERT_EQUAL(16 + 8 * amd_5_6_list.count, HSAQM_AMD_EXT_SIZE_ROCM_5_6);
	CU_ASSERT_EQUAL(16 + 8 * amd_v2_list.count, sizeof(struct hsaqm_amd_ext_table_v2));
	for (unsigned int i = 0; i < amd_5_6_list.count; i++)
		CU_ASSERT_STRING_EQUAL(amd_5_6_list.name[i], amd_v2_list.name[i]);
	CU_ASSERT_EQUAL(list_index(&amd_4_5_list, 99, "hsa_amd_queue_intercept_create"), 35);
	CU_ASSERT_EQUAL(list_index(&amd_5_6_list, 99, "hsa_amd_queue_intercept_create"), 37);
}

static void test_api_table_every_needed_entry_is_a_rocr_entry(void)
{
	/* A typo in an entry's name would make it unfindable in any runtime. */
	for (int e = 0; e < HSAQM_API_ENTRY_COUNT; e++) {
		const char *name = hsaqm_api_entry_name((enum hsaqm_api_entry)e);

		CU_ASSERT(list_index(&core_list, 999, name) >= 0 ||
			  list_index(&amd_v2_list, 999, name) >= 0 ||
			  list_index(&tools_list, 999, name) >= 0);
		for (int f = 0; f < e; f++)
			CU_ASSERT(strcmp(name, hsaqm_api_entry_name((enum hsaqm_api_entry)f)) != 0);
	}
}

static void test_api_table_detects_each_rocm_era(void)
{
	for (unsigned int i = 0; i < N_ERAS; i++) {
		const struct era *e = &eras[i];
		struct runtime rt;
		struct hsaqm_api_layout l;

		runtime_build(&rt, e);
		CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, e->root_major, &l), 0);
		CU_ASSERT_EQUAL(l.id, e->expect);
		CU_ASSERT_EQUAL(l.release, e->release);
		CU_ASSERT_EQUAL(l.queue_desc_size, e->queue_desc);
		/* Named after the release when one wrote these headers, else after the layout. */
		CU_ASSERT_STRING_EQUAL(l.name, e->release ? hsaqm_api_release_name(e->release) :
							    hsaqm_api_layout_name(e->expect));
		CU_ASSERT_EQUAL(l.root.major_id, e->root_major);
		CU_ASSERT_EQUAL(l.root.minor_id, e->root_size);
		CU_ASSERT_EQUAL(l.core.minor_id, e->core_size);
		CU_ASSERT_EQUAL(l.amd_ext.minor_id, e->amd_size);
		CU_ASSERT_EQUAL(l.amd_ext.step_id, e->amd_step);
		CU_ASSERT_EQUAL(l.runtime_version, e->root_major);
		/* Core entries, the nine AMD entries of every layout, plus the appended ones. */
		CU_ASSERT(check_entries(&rt, &l, e->amd_names, e->amd_size, e->amd_step) >= 61 + 9);
		runtime_free(&rt);
	}
}

static void test_api_table_names_each_release_from_its_exact_headers(void)
{
	/* What OnLoad sees on each Debian root (abi-rocm-* checks these against the headers). */
	static const struct {
		unsigned int era;
		const char *name;
	} debian[] = { { 0, "rocm-4.5-5.4" }, { 4, "rocm-6.1" }, { 11, "rocm-6.4" },
		       { 12, "rocm-7.2" } };
	/* One header off a release's and it is a development build of the same layout. */
	static const struct era off_by_one[] = {
		{ "6.4 size, step 4", 3, 64, 1, 2, 1016, 592, 4, &amd_v2_list,
		  HSAQM_API_LAYOUT_ROCM_6_1, HSAQM_API_RELEASE_UNKNOWN, 256 },
		{ "7.2 step, root step 0", 3, 64, 0, 2, 1016, 624, 8, &amd_v2_list,
		  HSAQM_API_LAYOUT_ROCM_6_1, HSAQM_API_RELEASE_UNKNOWN, 2304 },
		{ "6.1 sizes, root of 6.2", 3, 64, 1, 2, 1016, 560, 1, &amd_v2_list,
		  HSAQM_API_LAYOUT_ROCM_6_1, HSAQM_API_RELEASE_UNKNOWN, 256 },
		{ "6.0 AMD ext with a step", 2, 48, 0, 2, 1016, 560, 1, &amd_v2_list,
		  HSAQM_API_LAYOUT_ROCM_6_0, HSAQM_API_RELEASE_UNKNOWN, 256 },
	};

	for (unsigned int i = 0; i < sizeof(debian) / sizeof(debian[0]); i++) {
		struct runtime rt;
		struct hsaqm_api_layout l;

		runtime_build(&rt, &eras[debian[i].era]);
		CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, eras[debian[i].era].root_major,
							     &l), 0);
		CU_ASSERT_STRING_EQUAL(l.name, debian[i].name);
		runtime_free(&rt);
	}
	for (unsigned int i = 0; i < sizeof(off_by_one) / sizeof(off_by_one[0]); i++) {
		const struct era *e = &off_by_one[i];
		struct runtime rt;
		struct hsaqm_api_layout l;

		runtime_build(&rt, e);
		CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, e->root_major, &l), 0);
		CU_ASSERT_EQUAL(l.id, e->expect);
		CU_ASSERT_EQUAL(l.release, HSAQM_API_RELEASE_UNKNOWN);
		CU_ASSERT_STRING_EQUAL(l.name, hsaqm_api_layout_name(e->expect));
		CU_ASSERT_EQUAL(l.queue_desc_size, e->queue_desc);
		/* The entries are where the layout has them all the same. */
		check_entries(&rt, &l, e->amd_names, e->amd_size, e->amd_step);
		runtime_free(&rt);
	}
}

static void test_api_table_optional_entries_follow_size_and_step(void)
{
	/* hsa_amd_queue_get_info from 6.2, counted queues from step 9, descriptor create 0x10. */
	static const struct {
		unsigned int era;
		bool get_info, counted, amd_create;
	} want[] = {
		{ 4, false, false, false }, { 5, true, false, false }, { 7, true, false, false },
		{ 8, true, true, false }, { 9, true, true, true }, { 10, true, true, true },
	};

	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct runtime rt;
		struct hsaqm_api_layout l;

		runtime_build(&rt, &eras[want[i].era]);
		CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_GET_INFO].present, want[i].get_info);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_COUNTED_QUEUE_ACQUIRE].present,
				want[i].counted);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_COUNTED_QUEUE_RELEASE].present,
				want[i].counted);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_CREATE].present, want[i].amd_create);
		runtime_free(&rt);
	}
}

static void test_api_table_known_offsets_per_era(void)
{
	/* The offsets the issue names, read back through the detector. */
	static const struct {
		unsigned int era;
		uint32_t intercept_create, intercept_register, set_priority, cu_get_mask;
	} want[] = {
		{ 0, 296, 304, 312, 392 }, { 1, 296, 304, 312, 416 }, { 2, 312, 320, 328, 432 },
		{ 3, 312, 320, 328, 432 }, { 10, 312, 320, 328, 432 },
	};

	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct runtime rt;
		struct hsaqm_api_layout l;

		runtime_build(&rt, &eras[want[i].era]);
		CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 1, &l), 0);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_QUEUE_CREATE].offset, 72);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCRELEASE].offset, 208);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_SIGNAL_STORE_SCRELEASE].offset, 352);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_CU_SET_MASK].offset, 96);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_INTERCEPT_CREATE].offset,
				want[i].intercept_create);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_INTERCEPT_REGISTER].offset,
				want[i].intercept_register);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_SET_PRIORITY].offset,
				want[i].set_priority);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_CU_GET_MASK].offset,
				want[i].cu_get_mask);
		runtime_free(&rt);
	}
}

static void test_api_table_slot_replaces_the_runtime_entry(void)
{
	struct runtime rt;
	struct hsaqm_api_layout l;
	void **slot;
	void *mine = (void *)&rt;

	runtime_build(&rt, &eras[2]);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 1, &l), 0);
	slot = hsaqm_api_table_slot(rt.root, &l, HSAQM_API_AMD_QUEUE_SET_PRIORITY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
	*slot = mine;
	/* The write landed where ROCr 5.6 keeps hsa_amd_queue_set_priority, and nowhere else. */
	{
		struct hsaqm_amd_ext_table_5_6 *amd = rt.amd;
		void *field;
		uint64_t before, after;

		memcpy(&field, &amd->hsa_amd_queue_set_priority_fn, sizeof(field));
		CU_ASSERT_PTR_EQUAL(field, mine);

		memcpy(&before, (unsigned char *)rt.amd + 320, 8);
		memcpy(&after, (unsigned char *)rt.amd + 336, 8);
		CU_ASSERT_EQUAL(before, sentinel(TAG_AMD, 38));
		CU_ASSERT_EQUAL(after, sentinel(TAG_AMD, 40));
	}
	runtime_free(&rt);
}

static void test_api_table_runtime_version_is_only_a_hint(void)
{
	struct runtime rt;
	struct hsaqm_api_layout l;

	runtime_build(&rt, &eras[6]);
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 0, &l), 0);
	CU_ASSERT_EQUAL(l.id, HSAQM_API_LAYOUT_ROCM_6_1);
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 60300, &l), 0);
	CU_ASSERT_EQUAL(l.id, HSAQM_API_LAYOUT_ROCM_6_1);
	CU_ASSERT_EQUAL(l.runtime_version, 60300);
	runtime_free(&rt);
}

static void expect_refused(const struct hsaqm_api_layout *l)
{
	CU_ASSERT_EQUAL(l->id, HSAQM_API_LAYOUT_UNKNOWN);
	for (int e = 0; e < HSAQM_API_ENTRY_COUNT; e++)
		CU_ASSERT_FALSE(l->entry[e].present);
}

/* Build era `i`, rewrite one version field, and expect -ENOTSUP. */
static void expect_enotsup(unsigned int i, int which, size_t field, uint32_t value)
{
	struct runtime rt;
	struct hsaqm_api_layout l;
	unsigned char *t;

	runtime_build(&rt, &eras[i]);
	t = which == 0 ? rt.root : which == 1 ? (unsigned char *)rt.core : (unsigned char *)rt.amd;
	memcpy(t + field, &value, sizeof(value));
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 3, &l), -ENOTSUP);
	expect_refused(&l);
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &l, HSAQM_API_QUEUE_CREATE));
	runtime_free(&rt);
}

#define MAJOR offsetof(struct hsaqm_api_table_version, major_id)
#define STEP offsetof(struct hsaqm_api_table_version, step_id)

static void test_api_table_refuses_unknown_root_major(void)
{
	expect_enotsup(6, 0, MAJOR, 0);
	expect_enotsup(6, 0, MAJOR, 4);
	expect_enotsup(6, 0, MAJOR, UINT32_MAX);
}

static void test_api_table_refuses_mismatched_sub_table_major(void)
{
	expect_enotsup(6, 2, MAJOR, 1);	/* 6.3 root with a 5.x AMD extension table */
	expect_enotsup(0, 1, MAJOR, 2);	/* 5.2 root with a 6.x core table */
	expect_enotsup(3, 1, MAJOR, 0);	/* ROCr zeroes the version of a table it rejects */
}

/* What a refused table's era expects. */
#define REFUSED HSAQM_API_LAYOUT_UNKNOWN, HSAQM_API_RELEASE_UNKNOWN, 0

static void test_api_table_refuses_sizes_no_release_had(void)
{
	struct runtime rt;
	struct hsaqm_api_layout l;
	static const struct era odd[] = {
		/* Major 1: inserted entries make any other size a layout we have not read. */
		{ "5.x AMD ext 408", 1, 48, 0, 1, 1016, 408, 0, NULL, REFUSED },
		{ "5.x AMD ext 392 (ROCm 4.3)", 1, 48, 0, 1, 1016, 392, 0, NULL, REFUSED },
		{ "5.x core 1024", 1, 48, 0, 1, 1024, 456, 0, NULL, REFUSED },
		/* Majors 2 and 3: smaller than the first release of the era. */
		{ "6.0 AMD ext 544", 2, 48, 0, 2, 1016, 544, 0, NULL, REFUSED },
		{ "6.1 AMD ext 552", 3, 56, 0, 2, 1016, 552, 0, NULL, REFUSED },
		{ "6.x core 1008", 3, 64, 1, 2, 1008, 584, 4, NULL, REFUSED },
		{ "6.x AMD ext header only", 3, 64, 1, 2, 1016, 16, 4, NULL, REFUSED },
	};

	for (unsigned int i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		runtime_build(&rt, &odd[i]);
		CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, odd[i].root_major, &l), -ENOTSUP);
		expect_refused(&l);
		runtime_free(&rt);
	}
}

static void test_api_table_refuses_root_without_sub_tables(void)
{
	struct runtime rt;
	struct hsaqm_api_layout l;
	void *null = NULL;

	/* A root declaring 24 bytes, allocated with 24: amd_ext (24..31) must not be read. */
	static const struct era tiny = { "root 24", 3, 24, 1, 2, 1016, 584, 4, NULL,
					 HSAQM_API_LAYOUT_UNKNOWN, HSAQM_API_RELEASE_UNKNOWN, 0 };
	runtime_build(&rt, &tiny);
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 3, &l), -ENOTSUP);
	expect_refused(&l);
	runtime_free(&rt);

	runtime_build(&rt, &eras[6]);
	memcpy(rt.root + 16, &null, sizeof(null));
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 3, &l), -ENOTSUP);
	runtime_free(&rt);

	runtime_build(&rt, &eras[0]);
	memcpy(rt.root + 24, &null, sizeof(null));
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 1, &l), -ENOTSUP);
	runtime_free(&rt);
}

static void test_api_table_truncated_table_reports_entries_absent(void)
{
	struct runtime rt;
	struct hsaqm_api_layout l;
	/* Steps that claim entries the sizes do not hold: the size wins, nothing past is read. */
	static const struct era cut_get_info = { "6.2 step, 6.1 size", 3, 64, 1, 2, 1016, 560, 3,
						 &amd_v2_list, HSAQM_API_LAYOUT_ROCM_6_1, HSAQM_API_RELEASE_UNKNOWN, 0 };
	static const struct era cut_counted = { "step 0x15, cut inside counted", 3, 64, 1, 2,
						1016, 632, 0x15, &amd_v2_list,
						HSAQM_API_LAYOUT_ROCM_6_1, HSAQM_API_RELEASE_UNKNOWN, 0 };
	/* And a size that holds entries the step does not vouch for. */
	static const struct era early_step = { "size 640, step 8", 3, 64, 1, 2, 1016, 640, 8,
					       &amd_v2_list, HSAQM_API_LAYOUT_ROCM_6_1, HSAQM_API_RELEASE_UNKNOWN, 0 };

	runtime_build(&rt, &cut_get_info);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	CU_ASSERT_FALSE(l.entry[HSAQM_API_AMD_QUEUE_GET_INFO].present);
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &l, HSAQM_API_AMD_QUEUE_GET_INFO));
	CU_ASSERT_TRUE(l.entry[HSAQM_API_AMD_QUEUE_CU_GET_MASK].present);
	check_entries(&rt, &l, &amd_v2_list, 560, 3);
	runtime_free(&rt);

	runtime_build(&rt, &cut_counted);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	CU_ASSERT_TRUE(l.entry[HSAQM_API_AMD_COUNTED_QUEUE_ACQUIRE].present);
	CU_ASSERT_FALSE(l.entry[HSAQM_API_AMD_COUNTED_QUEUE_RELEASE].present);
	CU_ASSERT_FALSE(l.entry[HSAQM_API_AMD_QUEUE_CREATE].present);
	check_entries(&rt, &l, &amd_v2_list, 632, 0x15);
	runtime_free(&rt);

	runtime_build(&rt, &early_step);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	CU_ASSERT_FALSE(l.entry[HSAQM_API_AMD_COUNTED_QUEUE_ACQUIRE].present);
	CU_ASSERT_FALSE(l.entry[HSAQM_API_AMD_COUNTED_QUEUE_RELEASE].present);
	check_entries(&rt, &l, &amd_v2_list, 640, 8);
	runtime_free(&rt);
}

static void expect_tools(const struct hsaqm_api_layout *l, bool alloc, bool free_, bool reclaim)
{
	CU_ASSERT_EQUAL(l->entry[HSAQM_API_TOOLS_SCRATCH_ALLOC_END].present, alloc);
	CU_ASSERT_EQUAL(l->entry[HSAQM_API_TOOLS_SCRATCH_FREE_END].present, free_);
	CU_ASSERT_EQUAL(l->entry[HSAQM_API_TOOLS_SCRATCH_ASYNC_RECLAIM_END].present, reclaim);
}

static void test_api_table_tools_entries_only_from_a_tools_table_it_knows(void)
{
	struct runtime rt;
	struct hsaqm_api_layout l;
	struct hsaqm_api_table_version v = { 2, 64, 0, 0 };
	void *null = NULL;
	/* A 6.3 root that declares 48 bytes: no tools_ member, its memory is not read. */
	static const struct era short_root = { "root 3 of 48 bytes", 3, 48, 1, 2, 1016, 584, 4,
					       &amd_v2_list, HSAQM_API_LAYOUT_ROCM_6_1,
					       HSAQM_API_RELEASE_UNKNOWN, 256 };

	/* 6.1 and 7.2: all three, at 24, 40 and 56 of the ToolsApiTable. */
	runtime_build(&rt, &eras[4]);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	expect_tools(&l, true, true, true);
	CU_ASSERT_EQUAL(l.entry[HSAQM_API_TOOLS_SCRATCH_ASYNC_RECLAIM_END].offset, 56u);
	CU_ASSERT_PTR_EQUAL(hsaqm_api_table_slot(rt.root, &l, HSAQM_API_TOOLS_SCRATCH_FREE_END),
			    (char *)rt.tools + 40);
	runtime_free(&rt);

	/* No tools table (5.x, 6.0; a root 3 whose pointer is NULL): absent, layout known. */
	runtime_build(&rt, &eras[3]);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 2, &l), 0);
	expect_tools(&l, false, false, false);
	runtime_free(&rt);
	runtime_build(&rt, &eras[12]);
	memcpy(rt.root + 48, &null, sizeof(null));
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	CU_ASSERT_EQUAL(l.release, HSAQM_API_RELEASE_ROCM_7_2);
	expect_tools(&l, false, false, false);
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &l, HSAQM_API_TOOLS_SCRATCH_ALLOC_END));
	runtime_free(&rt);
	runtime_build(&rt, &short_root);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	expect_tools(&l, false, false, false);
	runtime_free(&rt);

	/* A tools major hsaqm has not read: unused. */
	runtime_build(&rt, &eras[12]);
	memcpy(rt.tools, &v, sizeof(v));
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	expect_tools(&l, false, false, false);
	runtime_free(&rt);

	/* A table declaring 48 bytes: alloc_end and free_end inside, async_reclaim_end not. */
	runtime_build(&rt, &eras[12]);
	v = (struct hsaqm_api_table_version){ 1, 48, 0, 0 };
	memcpy(rt.tools, &v, sizeof(v));
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	expect_tools(&l, true, true, false);
	runtime_free(&rt);
}

static void test_api_table_null_and_out_of_range_arguments(void)
{
	struct runtime rt;
	struct hsaqm_api_layout l, unknown;

	runtime_build(&rt, &eras[6]);
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(NULL, 3, &l), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 3, NULL), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(NULL, &l, HSAQM_API_QUEUE_CREATE));
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, NULL, HSAQM_API_QUEUE_CREATE));
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &l, HSAQM_API_ENTRY_COUNT));
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &l, (enum hsaqm_api_entry)1000));
	unknown = l;
	unknown.id = HSAQM_API_LAYOUT_UNKNOWN;
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &unknown, HSAQM_API_QUEUE_CREATE));
	unknown.id = HSAQM_API_LAYOUT_COUNT;
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &unknown, HSAQM_API_QUEUE_CREATE));
	CU_ASSERT_PTR_NOT_NULL(hsaqm_api_table_slot(rt.root, &l, HSAQM_API_QUEUE_CREATE));
	runtime_free(&rt);
}

static void test_api_table_names(void)
{
	CU_ASSERT_STRING_EQUAL(hsaqm_api_entry_name(HSAQM_API_QUEUE_CREATE), "hsa_queue_create");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_entry_name(HSAQM_API_AMD_QUEUE_SET_PRIORITY),
			       "hsa_amd_queue_set_priority");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_entry_name(HSAQM_API_ENTRY_COUNT), "(invalid entry)");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_entry_name((enum hsaqm_api_entry)1000), "(invalid entry)");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_layout_name(HSAQM_API_LAYOUT_ROCM_5_6), "rocm-5.6-5.7");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_layout_name(HSAQM_API_LAYOUT_UNKNOWN), "unknown");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_layout_name(HSAQM_API_LAYOUT_COUNT), "unknown");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_layout_name((enum hsaqm_api_layout_id)77), "unknown");
	for (int a = HSAQM_API_LAYOUT_ROCM_4_5; a < HSAQM_API_LAYOUT_COUNT; a++)
		for (int b = 0; b < a; b++)
			CU_ASSERT(strcmp(hsaqm_api_layout_name((enum hsaqm_api_layout_id)a),
					 hsaqm_api_layout_name((enum hsaqm_api_layout_id)b)) != 0);
	CU_ASSERT_STRING_EQUAL(hsaqm_api_release_name(HSAQM_API_RELEASE_ROCM_7_2), "rocm-7.2");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_release_name(HSAQM_API_RELEASE_UNKNOWN), "unknown");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_release_name(HSAQM_API_RELEASE_COUNT), "unknown");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_release_name((enum hsaqm_api_release)-1), "unknown");
	/* Release names are distinct, and distinct from the layout names of later eras. */
	for (int a = HSAQM_API_RELEASE_ROCM_4_5; a < HSAQM_API_RELEASE_COUNT; a++) {
		for (int b = 0; b < a; b++)
			CU_ASSERT(strcmp(hsaqm_api_release_name((enum hsaqm_api_release)a),
					 hsaqm_api_release_name((enum hsaqm_api_release)b)) != 0);
		CU_ASSERT(strcmp(hsaqm_api_release_name((enum hsaqm_api_release)a),
				 hsaqm_api_layout_name(HSAQM_API_LAYOUT_ROCM_6_1)) != 0);
	}
}

static const struct t_case api_table_cases[] = {
	T_CASE(test_api_table_history_lists_are_consistent),
	T_CASE(test_api_table_every_needed_entry_is_a_rocr_entry),
	T_CASE(test_api_table_detects_each_rocm_era),
	T_CASE(test_api_table_names_each_release_from_its_exact_headers),
	T_CASE(test_api_table_optional_entries_follow_size_and_step),
	T_CASE(test_api_table_known_offsets_per_era),
	T_CASE(test_api_table_slot_replaces_the_runtime_entry),
	T_CASE(test_api_table_runtime_version_is_only_a_hint),
	T_CASE(test_api_table_refuses_unknown_root_major),
	T_CASE(test_api_table_refuses_mismatched_sub_table_major),
	T_CASE(test_api_table_refuses_sizes_no_release_had),
	T_CASE(test_api_table_refuses_root_without_sub_tables),
	T_CASE(test_api_table_truncated_table_reports_entries_absent),
	T_CASE(test_api_table_tools_entries_only_from_a_tools_table_it_knows),
	T_CASE(test_api_table_null_and_out_of_range_arguments),
	T_CASE(test_api_table_names),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "api-table", build_lists, NULL, api_table_cases },
		T_SUITES_END,
	};
	return t_run("test-api-table", suites);
}
