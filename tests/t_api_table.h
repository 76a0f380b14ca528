/* SPDX-License-Identifier: MIT */
/*
 * t_api_table.h - the rig of the API table detector's tests (test-api-table-*): ROCr's entry
 * order per table, in header order, release by release; synthetic runtimes whose every slot
 * holds a t_sentinel naming its index, malloc'ed at exactly their declared size (ASan reports any
 * read past it); the t_eras ROCr wrote. The expected positions come from ROCr's own entry order,
 * not from hsaqm's mirror structs. Header-only; include once.
 */
#ifndef T_API_TABLE_H
#define T_API_TABLE_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-hsa/api_table.h"
#include "t_cunit.h"

/* ---- ROCr's entry order, per table, in header order -------------------------------- */

/* CoreApiTable: one order in every release. */
static const char *const t_core_names[] = {
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
static const char *const t_amd_4_5_names[] = {
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
static const char *const t_amd_v2_names[] = {
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
static const char *const t_tools_names[] = {
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
#define T_NAMES_MAX 128

struct t_name_list {
	const char *name[T_NAMES_MAX];
	unsigned int count;
};

static inline void t_list_from(struct t_name_list *l, const char *const *names, unsigned int n)
{
	l->count = n;
	for (unsigned int i = 0; i < n; i++)
		l->name[i] = names[i];
}

/* Insert n names next to `anchor` (before it, or after it when `after`); -1 if absent. */
static inline int t_list_insert(struct t_name_list *l, const char *anchor, int after,
		       const char *const *names, unsigned int n)
{
	unsigned int at;

	for (at = 0; at < l->count && strcmp(l->name[at], anchor); at++)
		;
	if (at == l->count || l->count + n > T_NAMES_MAX)
		return -1;
	at += after ? 1 : 0;
	memmove(&l->name[at + n], &l->name[at], (l->count - at) * sizeof(l->name[0]));
	for (unsigned int i = 0; i < n; i++)
		l->name[at + i] = names[i];
	l->count += n;
	return 0;
}

static struct t_name_list t_core_list, t_amd_4_5_list, t_amd_5_5_list, t_amd_5_6_list,
	t_amd_v2_list, t_tools_list;

/* Suite init: a failure here fails the suite, which t_run() counts. */
static inline int t_build_lists(void)
{
	static const char *const spm[] = { "hsa_amd_spm_acquire", "hsa_amd_spm_release",
					   "hsa_amd_spm_set_dest_buffer" };
	static const char *const engine[] = { "hsa_amd_memory_async_copy_on_engine",
					      "hsa_amd_memory_copy_engine_status" };
	static const char *const dmabuf[] = { "hsa_amd_portable_export_dmabuf",
					      "hsa_amd_portable_close_dmabuf" };

	t_list_from(&t_core_list, t_core_names, sizeof(t_core_names) / sizeof(t_core_names[0]));
	t_list_from(&t_amd_4_5_list, t_amd_4_5_names,
		    sizeof(t_amd_4_5_names) / sizeof(t_amd_4_5_names[0]));
	t_amd_5_5_list = t_amd_4_5_list;
	if (t_list_insert(&t_amd_5_5_list, "hsa_amd_queue_cu_get_mask", 0, spm, 3))
		return -1;
	t_amd_5_6_list = t_amd_5_5_list;
	if (t_list_insert(&t_amd_5_6_list, "hsa_amd_memory_async_copy", 1, engine, 2) ||
	    t_list_insert(&t_amd_5_6_list, "hsa_amd_queue_cu_get_mask", 1, dmabuf, 2))
		return -1;
	t_list_from(&t_amd_v2_list, t_amd_v2_names, sizeof(t_amd_v2_names) / sizeof(t_amd_v2_names[0]));
	t_list_from(&t_tools_list, t_tools_names, sizeof(t_tools_names) / sizeof(t_tools_names[0]));
	return 0;
}

static inline int t_list_index(const struct t_name_list *l, unsigned int limit, const char *name)
{
	for (unsigned int i = 0; i < l->count && i < limit; i++)
		if (!strcmp(l->name[i], name))
			return (int)i;
	return -1;
}

/* ---- Synthetic runtimes ------------------------------------------------------------- */

#define T_TAG_CORE 0xc0u
#define T_TAG_AMD 0xaeu
#define T_TAG_TOOLS 0x70u

/* Never called: a value no real function pointer has, naming table and index. */
static inline uint64_t t_sentinel(unsigned int tag, unsigned int index)
{
	return 0x5e57000000000000ull | ((uint64_t)tag << 16) | index;
}

/* A sub-table exactly `size` bytes long, version first, sentinels in every slot. */
static inline void *t_table_alloc(uint32_t major, uint32_t size, uint32_t step, unsigned int tag)
{
	unsigned char *t = malloc(size);
	struct hsaqm_api_table_version v = { major, size, step, 0 };

	CU_ASSERT_FATAL(t != NULL && size >= sizeof(v));
	memcpy(t, &v, sizeof(v));
	for (uint32_t off = sizeof(v); off + 8 <= size; off += 8) {
		uint64_t s = t_sentinel(tag, (off - (uint32_t)sizeof(v)) / 8);

		memcpy(t + off, &s, sizeof(s));
	}
	return t;
}

static inline void t_put_ptr(unsigned char *root, uint32_t size, size_t off, const void *p)
{
	if (off + sizeof(p) <= size)
		memcpy(root + off, &p, sizeof(p));
}

/* What one ROCr release hands to OnLoad. */
struct t_era {
	const char *what;
	uint32_t root_major, root_size, root_step;
	uint32_t sub_major;
	uint32_t core_size;
	uint32_t amd_size, amd_step;
	const struct t_name_list *amd_names;
	enum hsaqm_api_layout_id expect;
	enum hsaqm_api_release release;	/* UNKNOWN: no release wrote these headers */
	uint32_t queue_desc;		/* ROCr's queue descriptor size */
};

struct t_runtime {
	unsigned char *root;
	void *core, *amd, *tools;
};

static inline void t_runtime_build(struct t_runtime *rt, const struct t_era *e)
{
	struct hsaqm_api_table_version v = { e->root_major, e->root_size, e->root_step, 0 };

	rt->root = malloc(e->root_size);
	CU_ASSERT_FATAL(rt->root != NULL && e->root_size >= sizeof(v));
	memset(rt->root, 0, e->root_size);
	memcpy(rt->root, &v, sizeof(v));
	rt->core = t_table_alloc(e->sub_major, e->core_size, 0, T_TAG_CORE);
	rt->amd = t_table_alloc(e->sub_major, e->amd_size, e->amd_step, T_TAG_AMD);
	rt->tools = e->root_major >= 3 ? t_table_alloc(1, 64, 0, T_TAG_TOOLS) : NULL;
	t_put_ptr(rt->root, e->root_size, 16, rt->core);
	t_put_ptr(rt->root, e->root_size, 24, rt->amd);
	/* finalizer, image and PC sampling stay NULL, as before their extensions load. */
	t_put_ptr(rt->root, e->root_size, 48, rt->tools);
}

static inline void t_runtime_free(struct t_runtime *rt)
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
static const struct t_era t_eras[] = {
	{ "ROCm 5.2.3", 1, 48, 0, 1, 1016, 400, 0, &t_amd_4_5_list, L(4_5), R(4_5), 256 },
	{ "ROCm 5.5", 1, 48, 0, 1, 1016, 424, 0, &t_amd_5_5_list, L(5_5), R(5_5), 256 },
	{ "ROCm 5.7", 1, 48, 0, 1, 1016, 456, 0, &t_amd_5_6_list, L(5_6), R(5_6), 256 },
	{ "ROCm 6.0", 2, 48, 0, 2, 1016, 552, 0, &t_amd_v2_list, L(6_0), R(6_0), 256 },
	{ "ROCm 6.1", 3, 56, 0, 2, 1016, 560, 1, &t_amd_v2_list, L(6_1), R(6_1), 256 },
	{ "ROCm 6.2", 3, 64, 1, 2, 1016, 576, 3, &t_amd_v2_list, L(6_1), R(6_2), 256 },
	{ "ROCm 6.3", 3, 64, 1, 2, 1016, 584, 4, &t_amd_v2_list, L(6_1), R(6_3), 256 },
	{ "ROCm 7.0", 3, 64, 1, 2, 1016, 608, 7, &t_amd_v2_list, L(6_1), R(7_0), 2304 },
	{ "develop step 9", 3, 64, 1, 2, 1016, 640, 9, &t_amd_v2_list, L(6_1), DEV, 2304 },
	{ "develop 0x10", 3, 64, 1, 2, 1016, 712, 0x10, &t_amd_v2_list, L(6_1), DEV, 2304 },
	{ "develop 0x15", 3, 64, 1, 2, 1016, 768, 0x15, &t_amd_v2_list, L(6_1), DEV, 2304 },
	{ "ROCm 6.4", 3, 64, 1, 2, 1016, 592, 5, &t_amd_v2_list, L(6_1), R(6_4), 2304 },
	{ "ROCm 7.2", 3, 64, 1, 2, 1016, 624, 8, &t_amd_v2_list, L(6_1), R(7_2), 2304 },
	{ "develop step 2", 3, 64, 1, 2, 1016, 568, 2, &t_amd_v2_list, L(6_1), DEV, 256 },
	{ "develop step 6", 3, 64, 1, 2, 1016, 600, 6, &t_amd_v2_list, L(6_1), DEV, 2304 },
};
#undef L
#undef R

/*
 * The AmdExt step that added an entry appended in major 2 (rocprofiler-sdk pins these);
 * 0 for every other entry.
 */
static inline uint32_t t_added_at_step(const char *name)
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
 * slot holding the t_sentinel of that index. Returns the number of entries present.
 */
static inline unsigned int t_check_entries(struct t_runtime *rt, const struct hsaqm_api_layout *l,
				  const struct t_name_list *amd_names, uint32_t amd_limit_bytes,
				  uint32_t amd_step)
{
	unsigned int present = 0;

	for (int e = 0; e < HSAQM_API_ENTRY_COUNT; e++) {
		const char *name = hsaqm_api_entry_name((enum hsaqm_api_entry)e);
		int ci = t_list_index(&t_core_list, t_core_list.count, name);
		int ai = t_list_index(amd_names, (amd_limit_bytes - 16) / 8, name);
		/* The tools table is there (64 bytes) exactly when the root is major 3. */
		int ti = rt->tools ? t_list_index(&t_tools_list, t_tools_list.count, name) : -1;
		void **slot = hsaqm_api_table_slot(rt->root, l, (enum hsaqm_api_entry)e);
		int idx = ci >= 0 ? ci : ti >= 0 ? ti : ai;
		unsigned int tag = ci >= 0 ? T_TAG_CORE : ti >= 0 ? T_TAG_TOOLS : T_TAG_AMD;
		uint8_t table = ci >= 0 ? HSAQM_API_TABLE_CORE :
			       ti >= 0 ? HSAQM_API_TABLE_TOOLS : HSAQM_API_TABLE_AMD_EXT;

		/* Added at a later step than the table reports: absent even if inside. */
		if (ci < 0 && ti < 0 && amd_step < t_added_at_step(name))
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
			CU_ASSERT_EQUAL(got, t_sentinel(tag, (unsigned int)idx));
		}
	}
	return present;
}

#endif /* T_API_TABLE_H */
