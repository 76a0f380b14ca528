// SPDX-License-Identifier: MIT
//
// The C mirror of the API tables and of the HSA types (hsaqm-hsa/api_table.h, hsaqm-hsa/hsa_abi.h)
// matches one ROCr release's own headers, whichever release they are: the offset of every
// CoreApiTable and AmdExtTable entry the header has (and that it has no entry hsaqm does
// not know), the root's members, the parameter shapes of every typed entry, hsa_queue_t,
// amd_queue_t and amd_queue_v2_t, and the constants. Then the detector, run on a table
// built by the header's own HsaApiTableContainer (version headers as that ROCr writes
// them), finds the layout and release, and each entry at that table's member address.
//
// Built twice: by meson against the build machine's headers (test api-table-abi), and by
// tests/abi-rocm.sh inside each Debian root against that root's headers (abi-rocm-X.Y).
// Compiled with -DAMD_INTERNAL_BUILD so that hsa_api_trace.h finds its siblings in its own
// directory instead of as "inc/...", ROCr's source layout.
//
// Usage: test-api-table-abi [--release NAME] [--queue-object-offset N]
//   --release NAME            the release name the detector must give the header's tables
//   --queue-object-offset N   where this release's libhsa-runtime64 reads its queue object
//                             (tests/abi-rocm.sh finds it in the machine code): must be the
//                             size the detector reports, and inside a proxy's zero area
// Exit 0 when everything matches, 1 on any mismatch, 2 on a usage error.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <hsa/amd_hsa_queue.h>
#include <hsa/hsa_api_trace.h>

#include "hsaqm-hsa/api_table.h"

namespace {

int failures;
int checks;

void expect(bool ok, const char *what, const char *name, long long got, long long want)
{
	checks++;
	if (ok)
		return;
	failures++;
	std::printf("MISMATCH %s %s: hsaqm %lld, ROCr %lld\n", what, name, got, want);
}

void expect_eq(const char *what, const char *name, long long mirror, long long rocr)
{
	expect(mirror == rocr, what, name, mirror, rocr);
}

#define CHECK_VALUE_OF(name) expect_eq("value of", #name, HSAQM_##name, name)

[[maybe_unused]] void fail(const char *fmt, const char *a, const char *b)
{
	checks++;
	failures++;
	std::printf("MISMATCH ");
	std::printf(fmt, a, b);
	std::printf("\n");
}

// ---- Parameter shapes of a typed entry --------------------------------------------------
//
// The mirror's function types use hsaqm's own structs and fixed-width integers where ROCr
// uses hsa_queue_t, enums... so the types differ by name. What the calling convention
// sees must not: the same number of parameters, and each one (and the result) of the
// same size and kind (pointer, struct by value, integer).

template <typename T> struct type_size {
	static constexpr std::size_t value = sizeof(T);
};
template <> struct type_size<void> {
	static constexpr std::size_t value = 0;
};

template <typename T> constexpr int kind()
{
	return std::is_pointer<T>::value ? 1 : std::is_class<T>::value ? 2 :
	       std::is_floating_point<T>::value ? 3 : std::is_void<T>::value ? 4 : 0;
}

template <typename F> struct shape;
template <typename R, typename... A> struct shape<R (*)(A...)> {
	static constexpr std::size_t arity = sizeof...(A);
	static void get(std::size_t *size, int *k)
	{
		std::size_t s[] = { type_size<R>::value, type_size<A>::value... };
		int kk[] = { kind<R>(), kind<A>()... };

		for (std::size_t i = 0; i <= arity; i++) {
			size[i] = s[i];
			k[i] = kk[i];
		}
	}
};

int typed_entries;

template <typename Rocr, typename Mirror> void expect_same_shape(const char *name)
{
	// Untyped mirror entries are only slots.
	if (std::is_same<Mirror, hsaqm_api_fn>::value)
		return;
	typed_entries++;
	expect_eq("parameter count of", name, shape<Mirror>::arity, shape<Rocr>::arity);
	if (shape<Mirror>::arity != shape<Rocr>::arity)
		return;

	std::size_t ms[16], rs[16];
	int mk[16], rk[16];

	shape<Mirror>::get(ms, mk);
	shape<Rocr>::get(rs, rk);
	for (std::size_t i = 0; i <= shape<Rocr>::arity; i++) {
		char what[64];

		std::snprintf(what, sizeof(what), "%s %zu size of", i ? "parameter" : "result", i);
		expect_eq(what, name, (long long)ms[i], (long long)rs[i]);
		std::snprintf(what, sizeof(what), "%s %zu kind of", i ? "parameter" : "result", i);
		expect_eq(what, name, mk[i], rk[i]);
	}
}

// ---- Members a header may or may not have ------------------------------------------------
//
// Each era's header has a different set of members. has_<name><T> tells whether T has a
// member of that name; the checks below compare only what the header has, then count: a
// table whose members are not all known to hsaqm fails.

#define DEFINE_HAS(f)                                                                      \
	template <typename T, typename = void> struct has_##f : std::false_type {};        \
	template <typename T>                                                              \
	struct has_##f<T, std::void_t<decltype(&T::f)>> : std::true_type {};

// A table entry: compared when ROCr's table has it; the mirror must have it then.
#define DEFINE_ENTRY_CHECK(f)                                                              \
	DEFINE_HAS(f)                                                                      \
	template <typename Rocr, typename Mirror>                                          \
	void check_entry_##f(const char *table, std::size_t *known)                        \
	{                                                                                  \
		if constexpr (has_##f<Rocr>::value) {                                      \
			char name[160];                                                    \
			std::snprintf(name, sizeof(name), "%s." #f, table);                \
			++*known;                                                          \
			if constexpr (has_##f<Mirror>::value) {                            \
				expect_eq("offset of", name, offsetof(Mirror, f),          \
					  offsetof(Rocr, f));                              \
				expect_same_shape<decltype(Rocr::f), decltype(Mirror::f)>( \
					name);                                             \
			} else {                                                           \
				fail("%s: in ROCr's table, not in hsaqm's mirror %s", name, \
				     "of this layout");                                    \
			}                                                                  \
		}                                                                          \
	}

#define CORE_API_TABLE_FIELDS(X) \
	X(hsa_init_fn) \
	X(hsa_shut_down_fn) \
	X(hsa_system_get_info_fn) \
	X(hsa_system_extension_supported_fn) \
	X(hsa_system_get_extension_table_fn) \
	X(hsa_iterate_agents_fn) \
	X(hsa_agent_get_info_fn) \
	X(hsa_queue_create_fn) \
	X(hsa_soft_queue_create_fn) \
	X(hsa_queue_destroy_fn) \
	X(hsa_queue_inactivate_fn) \
	X(hsa_queue_load_read_index_scacquire_fn) \
	X(hsa_queue_load_read_index_relaxed_fn) \
	X(hsa_queue_load_write_index_scacquire_fn) \
	X(hsa_queue_load_write_index_relaxed_fn) \
	X(hsa_queue_store_write_index_relaxed_fn) \
	X(hsa_queue_store_write_index_screlease_fn) \
	X(hsa_queue_cas_write_index_scacq_screl_fn) \
	X(hsa_queue_cas_write_index_scacquire_fn) \
	X(hsa_queue_cas_write_index_relaxed_fn) \
	X(hsa_queue_cas_write_index_screlease_fn) \
	X(hsa_queue_add_write_index_scacq_screl_fn) \
	X(hsa_queue_add_write_index_scacquire_fn) \
	X(hsa_queue_add_write_index_relaxed_fn) \
	X(hsa_queue_add_write_index_screlease_fn) \
	X(hsa_queue_store_read_index_relaxed_fn) \
	X(hsa_queue_store_read_index_screlease_fn) \
	X(hsa_agent_iterate_regions_fn) \
	X(hsa_region_get_info_fn) \
	X(hsa_agent_get_exception_policies_fn) \
	X(hsa_agent_extension_supported_fn) \
	X(hsa_memory_register_fn) \
	X(hsa_memory_deregister_fn) \
	X(hsa_memory_allocate_fn) \
	X(hsa_memory_free_fn) \
	X(hsa_memory_copy_fn) \
	X(hsa_memory_assign_agent_fn) \
	X(hsa_signal_create_fn) \
	X(hsa_signal_destroy_fn) \
	X(hsa_signal_load_relaxed_fn) \
	X(hsa_signal_load_scacquire_fn) \
	X(hsa_signal_store_relaxed_fn) \
	X(hsa_signal_store_screlease_fn) \
	X(hsa_signal_wait_relaxed_fn) \
	X(hsa_signal_wait_scacquire_fn) \
	X(hsa_signal_and_relaxed_fn) \
	X(hsa_signal_and_scacquire_fn) \
	X(hsa_signal_and_screlease_fn) \
	X(hsa_signal_and_scacq_screl_fn) \
	X(hsa_signal_or_relaxed_fn) \
	X(hsa_signal_or_scacquire_fn) \
	X(hsa_signal_or_screlease_fn) \
	X(hsa_signal_or_scacq_screl_fn) \
	X(hsa_signal_xor_relaxed_fn) \
	X(hsa_signal_xor_scacquire_fn) \
	X(hsa_signal_xor_screlease_fn) \
	X(hsa_signal_xor_scacq_screl_fn) \
	X(hsa_signal_exchange_relaxed_fn) \
	X(hsa_signal_exchange_scacquire_fn) \
	X(hsa_signal_exchange_screlease_fn) \
	X(hsa_signal_exchange_scacq_screl_fn) \
	X(hsa_signal_add_relaxed_fn) \
	X(hsa_signal_add_scacquire_fn) \
	X(hsa_signal_add_screlease_fn) \
	X(hsa_signal_add_scacq_screl_fn) \
	X(hsa_signal_subtract_relaxed_fn) \
	X(hsa_signal_subtract_scacquire_fn) \
	X(hsa_signal_subtract_screlease_fn) \
	X(hsa_signal_subtract_scacq_screl_fn) \
	X(hsa_signal_cas_relaxed_fn) \
	X(hsa_signal_cas_scacquire_fn) \
	X(hsa_signal_cas_screlease_fn) \
	X(hsa_signal_cas_scacq_screl_fn) \
	X(hsa_isa_from_name_fn) \
	X(hsa_isa_get_info_fn) \
	X(hsa_isa_compatible_fn) \
	X(hsa_code_object_serialize_fn) \
	X(hsa_code_object_deserialize_fn) \
	X(hsa_code_object_destroy_fn) \
	X(hsa_code_object_get_info_fn) \
	X(hsa_code_object_get_symbol_fn) \
	X(hsa_code_symbol_get_info_fn) \
	X(hsa_code_object_iterate_symbols_fn) \
	X(hsa_executable_create_fn) \
	X(hsa_executable_destroy_fn) \
	X(hsa_executable_load_code_object_fn) \
	X(hsa_executable_freeze_fn) \
	X(hsa_executable_get_info_fn) \
	X(hsa_executable_global_variable_define_fn) \
	X(hsa_executable_agent_global_variable_define_fn) \
	X(hsa_executable_readonly_variable_define_fn) \
	X(hsa_executable_validate_fn) \
	X(hsa_executable_get_symbol_fn) \
	X(hsa_executable_symbol_get_info_fn) \
	X(hsa_executable_iterate_symbols_fn) \
	X(hsa_status_string_fn) \
	X(hsa_extension_get_name_fn) \
	X(hsa_system_major_extension_supported_fn) \
	X(hsa_system_get_major_extension_table_fn) \
	X(hsa_agent_major_extension_supported_fn) \
	X(hsa_cache_get_info_fn) \
	X(hsa_agent_iterate_caches_fn) \
	X(hsa_signal_silent_store_relaxed_fn) \
	X(hsa_signal_silent_store_screlease_fn) \
	X(hsa_signal_group_create_fn) \
	X(hsa_signal_group_destroy_fn) \
	X(hsa_signal_group_wait_any_scacquire_fn) \
	X(hsa_signal_group_wait_any_relaxed_fn) \
	X(hsa_agent_iterate_isas_fn) \
	X(hsa_isa_get_info_alt_fn) \
	X(hsa_isa_get_exception_policies_fn) \
	X(hsa_isa_get_round_method_fn) \
	X(hsa_wavefront_get_info_fn) \
	X(hsa_isa_iterate_wavefronts_fn) \
	X(hsa_code_object_get_symbol_from_name_fn) \
	X(hsa_code_object_reader_create_from_file_fn) \
	X(hsa_code_object_reader_create_from_memory_fn) \
	X(hsa_code_object_reader_destroy_fn) \
	X(hsa_executable_create_alt_fn) \
	X(hsa_executable_load_program_code_object_fn) \
	X(hsa_executable_load_agent_code_object_fn) \
	X(hsa_executable_validate_alt_fn) \
	X(hsa_executable_get_symbol_by_name_fn) \
	X(hsa_executable_iterate_agent_symbols_fn) \
	X(hsa_executable_iterate_program_symbols_fn)

#define AMD_EXT_TABLE_FIELDS(X) \
	X(hsa_amd_coherency_get_type_fn) \
	X(hsa_amd_coherency_set_type_fn) \
	X(hsa_amd_profiling_set_profiler_enabled_fn) \
	X(hsa_amd_profiling_async_copy_enable_fn) \
	X(hsa_amd_profiling_get_dispatch_time_fn) \
	X(hsa_amd_profiling_get_async_copy_time_fn) \
	X(hsa_amd_profiling_convert_tick_to_system_domain_fn) \
	X(hsa_amd_signal_async_handler_fn) \
	X(hsa_amd_async_function_fn) \
	X(hsa_amd_signal_wait_any_fn) \
	X(hsa_amd_queue_cu_set_mask_fn) \
	X(hsa_amd_memory_pool_get_info_fn) \
	X(hsa_amd_agent_iterate_memory_pools_fn) \
	X(hsa_amd_memory_pool_allocate_fn) \
	X(hsa_amd_memory_pool_free_fn) \
	X(hsa_amd_memory_async_copy_fn) \
	X(hsa_amd_memory_async_copy_on_engine_fn) \
	X(hsa_amd_memory_copy_engine_status_fn) \
	X(hsa_amd_agent_memory_pool_get_info_fn) \
	X(hsa_amd_agents_allow_access_fn) \
	X(hsa_amd_memory_pool_can_migrate_fn) \
	X(hsa_amd_memory_migrate_fn) \
	X(hsa_amd_memory_lock_fn) \
	X(hsa_amd_memory_unlock_fn) \
	X(hsa_amd_memory_fill_fn) \
	X(hsa_amd_interop_map_buffer_fn) \
	X(hsa_amd_interop_unmap_buffer_fn) \
	X(hsa_amd_image_create_fn) \
	X(hsa_amd_pointer_info_fn) \
	X(hsa_amd_pointer_info_set_userdata_fn) \
	X(hsa_amd_ipc_memory_create_fn) \
	X(hsa_amd_ipc_memory_attach_fn) \
	X(hsa_amd_ipc_memory_detach_fn) \
	X(hsa_amd_signal_create_fn) \
	X(hsa_amd_ipc_signal_create_fn) \
	X(hsa_amd_ipc_signal_attach_fn) \
	X(hsa_amd_register_system_event_handler_fn) \
	X(hsa_amd_queue_intercept_create_fn) \
	X(hsa_amd_queue_intercept_register_fn) \
	X(hsa_amd_queue_set_priority_fn) \
	X(hsa_amd_memory_async_copy_rect_fn) \
	X(hsa_amd_runtime_queue_create_register_fn) \
	X(hsa_amd_memory_lock_to_pool_fn) \
	X(hsa_amd_register_deallocation_callback_fn) \
	X(hsa_amd_deregister_deallocation_callback_fn) \
	X(hsa_amd_signal_value_pointer_fn) \
	X(hsa_amd_svm_attributes_set_fn) \
	X(hsa_amd_svm_attributes_get_fn) \
	X(hsa_amd_svm_prefetch_async_fn) \
	X(hsa_amd_spm_acquire_fn) \
	X(hsa_amd_spm_release_fn) \
	X(hsa_amd_spm_set_dest_buffer_fn) \
	X(hsa_amd_queue_cu_get_mask_fn) \
	X(hsa_amd_portable_export_dmabuf_fn) \
	X(hsa_amd_portable_close_dmabuf_fn) \
	X(hsa_amd_vmem_address_reserve_fn) \
	X(hsa_amd_vmem_address_free_fn) \
	X(hsa_amd_vmem_handle_create_fn) \
	X(hsa_amd_vmem_handle_release_fn) \
	X(hsa_amd_vmem_map_fn) \
	X(hsa_amd_vmem_unmap_fn) \
	X(hsa_amd_vmem_set_access_fn) \
	X(hsa_amd_vmem_get_access_fn) \
	X(hsa_amd_vmem_export_shareable_handle_fn) \
	X(hsa_amd_vmem_import_shareable_handle_fn) \
	X(hsa_amd_vmem_retain_alloc_handle_fn) \
	X(hsa_amd_vmem_get_alloc_properties_from_handle_fn) \
	X(hsa_amd_agent_set_async_scratch_limit_fn) \
	X(hsa_amd_queue_get_info_fn) \
	X(hsa_amd_vmem_address_reserve_align_fn) \
	X(hsa_amd_enable_logging_fn) \
	X(hsa_amd_signal_wait_all_fn) \
	X(hsa_amd_memory_get_preferred_copy_engine_fn) \
	X(hsa_amd_portable_export_dmabuf_v2_fn) \
	X(hsa_amd_ais_file_write_fn) \
	X(hsa_amd_ais_file_read_fn) \
	X(hsa_amd_counted_queue_acquire_fn) \
	X(hsa_amd_counted_queue_release_fn) \
	X(hsa_amd_memory_async_batch_copy_fn) \
	X(hsa_amd_agent_preload_fn) \
	X(hsa_amd_svm_discard_batch_async_fn) \
	X(hsa_amd_signal_get_event_id_fn) \
	X(hsa_amd_external_semaphore_handle_open_fn) \
	X(hsa_amd_external_semaphore_handle_close_fn) \
	X(hsa_amd_vmem_export_fabric_handle_fn) \
	X(hsa_amd_vmem_import_fabric_handle_fn) \
	X(hsa_amd_queue_create_fn) \
	X(hsa_amd_queue_signal_external_semaphore_fn) \
	X(hsa_amd_queue_wait_external_semaphore_fn) \
	X(hsa_amd_image_create_v2_fn) \
	X(hsa_amd_interop_map_buffer_with_size_fn) \
	X(hsa_amd_svm_discard_and_prefetch_batch_async_fn) \
	X(hsa_amd_agent_set_attribute_fn) \
	X(hsa_amd_enable_high_precision_timestamps_fn)

#define TOOLS_TABLE_FIELDS(X) \
	X(hsa_amd_tool_scratch_event_alloc_start_fn) \
	X(hsa_amd_tool_scratch_event_alloc_end_fn) \
	X(hsa_amd_tool_scratch_event_free_start_fn) \
	X(hsa_amd_tool_scratch_event_free_end_fn) \
	X(hsa_amd_tool_scratch_event_async_reclaim_start_fn) \
	X(hsa_amd_tool_scratch_event_async_reclaim_end_fn)

CORE_API_TABLE_FIELDS(DEFINE_ENTRY_CHECK)
AMD_EXT_TABLE_FIELDS(DEFINE_ENTRY_CHECK)
TOOLS_TABLE_FIELDS(DEFINE_ENTRY_CHECK)

// The mirror struct of the installed AmdExtTable: by size under major 1 (entries were
// inserted there), the appended-only major-2 struct otherwise.
#if HSA_AMD_EXT_API_TABLE_MAJOR_VERSION == 1
using AmdMirror = std::conditional_t<
	sizeof(AmdExtTable) == HSAQM_AMD_EXT_SIZE_ROCM_4_5, hsaqm_amd_ext_table_4_5,
	std::conditional_t<sizeof(AmdExtTable) == HSAQM_AMD_EXT_SIZE_ROCM_5_5,
			   hsaqm_amd_ext_table_5_5, hsaqm_amd_ext_table_5_6>>;
#elif HSA_AMD_EXT_API_TABLE_MAJOR_VERSION == 2
using AmdMirror = hsaqm_amd_ext_table_v2;
#else
#error "an AmdExtTable major hsaqm has not read: add its layout (docs/hsa-api-tables.md)"
#endif

#if HSA_API_TABLE_MAJOR_VERSION == 1
using RootMirror = hsaqm_api_root_v1;
#elif HSA_API_TABLE_MAJOR_VERSION == 2
using RootMirror = hsaqm_api_root_v2;
#elif HSA_API_TABLE_MAJOR_VERSION == 3
using RootMirror = hsaqm_api_root_v3;
#else
#error "a root table major hsaqm has not read: add its layout (docs/hsa-api-tables.md)"
#endif

DEFINE_HAS(tools_)
DEFINE_HAS(pc_sampling_ext_)

template <typename Rocr> void check_root()
{
	expect_eq("sizeof", "ApiTableVersion", sizeof(hsaqm_api_table_version),
		  sizeof(ApiTableVersion));
	expect_eq("offset of", "ApiTableVersion.minor_id",
		  offsetof(hsaqm_api_table_version, minor_id), offsetof(ApiTableVersion, minor_id));
	expect_eq("offset of", "ApiTableVersion.step_id",
		  offsetof(hsaqm_api_table_version, step_id), offsetof(ApiTableVersion, step_id));
	expect_eq("offset of", "HsaApiTable.core_", offsetof(RootMirror, core),
		  offsetof(Rocr, core_));
	expect_eq("offset of", "HsaApiTable.amd_ext_", offsetof(RootMirror, amd_ext),
		  offsetof(Rocr, amd_ext_));
	expect_eq("offset of", "HsaApiTable.finalizer_ext_", offsetof(RootMirror, finalizer_ext),
		  offsetof(Rocr, finalizer_ext_));
	expect_eq("offset of", "HsaApiTable.image_ext_", offsetof(RootMirror, image_ext),
		  offsetof(Rocr, image_ext_));
	std::size_t members = 5; // version and the four pointers every major has
	if constexpr (has_tools_<Rocr>::value) {
		members++;
		expect_eq("offset of", "HsaApiTable.tools_", offsetof(hsaqm_api_root_v3, tools),
			  offsetof(Rocr, tools_));
	}
	if constexpr (has_pc_sampling_ext_<Rocr>::value) {
		members++;
		expect_eq("offset of", "HsaApiTable.pc_sampling_ext_",
			  offsetof(hsaqm_api_root_v3, pc_sampling_ext), offsetof(Rocr, pc_sampling_ext_));
	}
	// Every member known: the version (16 bytes) and the pointers fill the root.
	expect_eq("members known of", "HsaApiTable", 16 + 8 * (members - 1), sizeof(Rocr));
	expect(sizeof(Rocr) <= sizeof(RootMirror), "size within the mirror of", "HsaApiTable",
	       sizeof(Rocr), sizeof(RootMirror));
	std::printf("HsaApiTable: major %d, %zu bytes, step %d\n", HSA_API_TABLE_MAJOR_VERSION,
		    sizeof(Rocr), HSA_API_TABLE_STEP_VERSION);
}

void check_tables()
{
	std::size_t core_known = 0, amd_known = 0;

	check_root<HsaApiTable>();
#define CHECK_CORE(f)                                                                      \
	check_entry_##f<CoreApiTable, hsaqm_core_api_table>("CoreApiTable", &core_known);
	CORE_API_TABLE_FIELDS(CHECK_CORE)
#define CHECK_AMD(f) check_entry_##f<AmdExtTable, AmdMirror>("AmdExtTable", &amd_known);
	AMD_EXT_TABLE_FIELDS(CHECK_AMD)

	// All entries are pointer-sized: the entries hsaqm knows fill the table exactly when
	// the header has none hsaqm does not know.
	expect_eq("entries known of", "CoreApiTable", 16 + 8 * core_known, sizeof(CoreApiTable));
	expect_eq("entries known of", "AmdExtTable", 16 + 8 * amd_known, sizeof(AmdExtTable));
	expect_eq("sizeof", "CoreApiTable", sizeof(hsaqm_core_api_table), sizeof(CoreApiTable));
	if (HSA_AMD_EXT_API_TABLE_MAJOR_VERSION == 1)
		expect_eq("sizeof", "AmdExtTable", sizeof(AmdMirror), sizeof(AmdExtTable));
	else
		expect(sizeof(AmdExtTable) <= sizeof(AmdMirror), "size within the mirror of",
		       "AmdExtTable", sizeof(AmdExtTable), sizeof(AmdMirror));
	std::printf("CoreApiTable: major %d, %zu bytes, %zu entries; AmdExtTable: major %d, "
		    "%zu bytes, step %d, %zu entries\n", HSA_CORE_API_TABLE_MAJOR_VERSION,
		    sizeof(CoreApiTable), core_known, HSA_AMD_EXT_API_TABLE_MAJOR_VERSION,
		    sizeof(AmdExtTable), HSA_AMD_EXT_API_TABLE_STEP_VERSION, amd_known);
#ifdef HSA_TOOLS_API_TABLE_MAJOR_VERSION
	// ToolsApiTable (ROCm >= 6.1) and the scratch events hsaqm listens to.
	std::size_t tools_known = 0;
#define CHECK_TOOLS(f)                                                                     \
	check_entry_##f<ToolsApiTable, hsaqm_tools_api_table>("ToolsApiTable", &tools_known);
	TOOLS_TABLE_FIELDS(CHECK_TOOLS)
	expect_eq("entries known of", "ToolsApiTable", 16 + 8 * tools_known, sizeof(ToolsApiTable));
	expect_eq("sizeof", "ToolsApiTable", sizeof(hsaqm_tools_api_table), sizeof(ToolsApiTable));
	expect_eq("value of", "HSA_TOOLS_API_TABLE_MAJOR_VERSION", HSAQM_TOOLS_API_TABLE_MAJOR,
		  HSA_TOOLS_API_TABLE_MAJOR_VERSION);
	expect_eq("sizeof", "hsa_amd_tool_event_t", sizeof(hsaqm_hsa_amd_tool_event_t),
		  sizeof(hsa_amd_tool_event_t));
#define CHECK_EVENT(type)                                                                  \
	expect_eq("offset of", #type ".kind", offsetof(hsaqm_hsa_amd_tool_event_scratch, kind), \
		  offsetof(type, kind));                                                   \
	expect_eq("sizeof", #type ".kind", sizeof(uint32_t), sizeof(type::kind));          \
	expect_eq("offset of", #type ".queue",                                             \
		  offsetof(hsaqm_hsa_amd_tool_event_scratch, queue), offsetof(type, queue));  \
	expect_eq("offset of", #type ".flags",                                             \
		  offsetof(hsaqm_hsa_amd_tool_event_scratch, flags), offsetof(type, flags));
	CHECK_EVENT(hsa_amd_event_scratch_alloc_end_t)
	CHECK_EVENT(hsa_amd_event_scratch_free_end_t)
	CHECK_EVENT(hsa_amd_event_scratch_async_reclaim_end_t)
	CHECK_VALUE_OF(HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_END);
	CHECK_VALUE_OF(HSA_AMD_TOOL_EVENT_SCRATCH_FREE_END);
	CHECK_VALUE_OF(HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_END);
	std::printf("ToolsApiTable: major %d, %zu bytes, %zu entries\n",
		    HSA_TOOLS_API_TABLE_MAJOR_VERSION, sizeof(ToolsApiTable), tools_known);
#else
	std::printf("ToolsApiTable: not in this header\n");
#endif
}

// hsa_amd_queue_get_info (ROCm >= 6.2), where the header has it.
template <typename A> void check_get_info_slot(A &amd, void *root, const hsaqm_api_layout *l)
{
	if constexpr (has_hsa_amd_queue_get_info_fn<A>::value) {
		void *slot = hsaqm_api_table_slot(root, l, HSAQM_API_AMD_QUEUE_GET_INFO);

		checks++;
		if (slot != (void *)&amd.hsa_amd_queue_get_info_fn) {
			failures++;
			std::printf("MISMATCH slot of hsa_amd_queue_get_info: hsaqm %p, ROCr %p\n",
				    slot, (void *)&amd.hsa_amd_queue_get_info_fn);
		}
	} else {
		checks++;
		if (l->entry[HSAQM_API_AMD_QUEUE_GET_INFO].present) {
			failures++;
			std::printf("MISMATCH hsa_amd_queue_get_info: found by hsaqm, not in ROCr's "
				    "table\n");
		}
	}
}

// The detector on a table laid out by the installed header itself.
void check_detector_on_rocr_table(const char *want_release, long queue_object_offset)
{
	static HsaApiTableContainer c; // its constructor sets every version as ROCr does
	hsaqm_api_layout l;

	int rc = hsaqm_api_table_detect(&c.root, c.root.version.major_id, &l);
	expect_eq("detect() result on", "HsaApiTableContainer", rc, 0);
	if (rc)
		return;
	std::printf("detector: %s (layout %s, release %s), queue descriptor %u bytes\n", l.name,
		    hsaqm_api_layout_name(l.id), hsaqm_api_release_name(l.release),
		    l.queue_desc_size);
	if (want_release) {
		checks++;
		if (std::strcmp(l.name, want_release)) {
			failures++;
			std::printf("MISMATCH release of HsaApiTableContainer: hsaqm %s, want %s\n",
				    l.name, want_release);
		}
	}
	if (queue_object_offset >= 0) {
		// What the detector says of this release, against what its ROCr binary does.
		expect_eq("queue object offset of", "this release's ROCr", l.queue_desc_size,
			  queue_object_offset);
		// And a proxy queue holds NULL there (hsaqm-hsa/hsa_abi.h).
		expect(queue_object_offset >= (long)sizeof(hsaqm_amd_queue) &&
			       queue_object_offset + 8 <= (long)HSAQM_PROXY_QUEUE_DESC_SIZE,
		       "queue object offset inside a proxy's zero area", "(bytes 256 to its size)",
		       queue_object_offset, HSAQM_PROXY_QUEUE_DESC_SIZE);
	}

	struct {
		hsaqm_api_entry e;
		void *rocr;
	} want[] = {
		{ HSAQM_API_QUEUE_CREATE, &c.core.hsa_queue_create_fn },
		{ HSAQM_API_QUEUE_DESTROY, &c.core.hsa_queue_destroy_fn },
		{ HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCRELEASE,
		  &c.core.hsa_queue_add_write_index_screlease_fn },
		{ HSAQM_API_QUEUE_STORE_READ_INDEX_SCRELEASE,
		  &c.core.hsa_queue_store_read_index_screlease_fn },
		{ HSAQM_API_SIGNAL_STORE_SCRELEASE, &c.core.hsa_signal_store_screlease_fn },
		{ HSAQM_API_SIGNAL_SILENT_STORE_RELAXED,
		  &c.core.hsa_signal_silent_store_relaxed_fn },
		{ HSAQM_API_SIGNAL_CAS_SCACQ_SCREL, &c.core.hsa_signal_cas_scacq_screl_fn },
		{ HSAQM_API_AMD_PROFILING_GET_DISPATCH_TIME,
		  &c.amd_ext.hsa_amd_profiling_get_dispatch_time_fn },
		{ HSAQM_API_AMD_SIGNAL_WAIT_ANY, &c.amd_ext.hsa_amd_signal_wait_any_fn },
		{ HSAQM_API_AMD_QUEUE_CU_SET_MASK, &c.amd_ext.hsa_amd_queue_cu_set_mask_fn },
		{ HSAQM_API_AMD_QUEUE_INTERCEPT_CREATE,
		  &c.amd_ext.hsa_amd_queue_intercept_create_fn },
		{ HSAQM_API_AMD_QUEUE_INTERCEPT_REGISTER,
		  &c.amd_ext.hsa_amd_queue_intercept_register_fn },
		{ HSAQM_API_AMD_QUEUE_SET_PRIORITY, &c.amd_ext.hsa_amd_queue_set_priority_fn },
		{ HSAQM_API_AMD_QUEUE_CU_GET_MASK, &c.amd_ext.hsa_amd_queue_cu_get_mask_fn },
	};
	for (const auto &w : want) {
		void *slot = hsaqm_api_table_slot(&c.root, &l, w.e);

		checks++;
		if (slot != w.rocr) {
			failures++;
			std::printf("MISMATCH slot of %s: hsaqm %p, ROCr %p\n",
				    hsaqm_api_entry_name(w.e), slot, w.rocr);
		}
	}
	check_get_info_slot(c.amd_ext, &c.root, &l);
#ifdef HSA_TOOLS_API_TABLE_MAJOR_VERSION
	struct {
		hsaqm_api_entry e;
		void *rocr;
	} want_tools[] = {
		{ HSAQM_API_TOOLS_SCRATCH_ALLOC_END, &c.tools.hsa_amd_tool_scratch_event_alloc_end_fn },
		{ HSAQM_API_TOOLS_SCRATCH_FREE_END, &c.tools.hsa_amd_tool_scratch_event_free_end_fn },
		{ HSAQM_API_TOOLS_SCRATCH_ASYNC_RECLAIM_END,
		  &c.tools.hsa_amd_tool_scratch_event_async_reclaim_end_fn },
	};
	for (const auto &w : want_tools) {
		void *slot = hsaqm_api_table_slot(&c.root, &l, w.e);

		checks++;
		if (slot != w.rocr) {
			failures++;
			std::printf("MISMATCH slot of %s: hsaqm %p, ROCr %p\n",
				    hsaqm_api_entry_name(w.e), slot, w.rocr);
		}
	}
#endif
	// And every entry the installed layout has is found inside the installed tables.
	for (int e = 0; e < HSAQM_API_ENTRY_COUNT; e++) {
		auto *slot = (char *)hsaqm_api_table_slot(&c.root, &l, (hsaqm_api_entry)e);
		char *lo = (char *)&c.core;
		std::size_t size = sizeof(c.core);

		if (l.entry[e].table == HSAQM_API_TABLE_AMD_EXT) {
			lo = (char *)&c.amd_ext;
			size = sizeof(c.amd_ext);
		} else if (l.entry[e].table == HSAQM_API_TABLE_TOOLS) {
#ifdef HSA_TOOLS_API_TABLE_MAJOR_VERSION
			lo = (char *)&c.tools;
			size = sizeof(c.tools);
#else
			lo = nullptr; // no such table: the entry must be absent
			size = 0;
#endif
		}

		if (!l.entry[e].present)
			continue;
		expect(lo && slot >= lo + 16 && slot + sizeof(void *) <= lo + size,
		       "slot inside table of", hsaqm_api_entry_name((hsaqm_api_entry)e),
		       (long long)(slot - lo), (long long)size);
	}
}

// ---- hsa_abi.h against hsa.h, hsa_ext_amd.h, amd_hsa_queue.h ---------------------------

// amd_queue_t / amd_queue_v2_t members, under the names of any era.
#define AMD_QUEUE_NAMES(X)                                                                 \
	X(hsa_queue) X(caps) X(reserved1) X(write_dispatch_id)                             \
	X(group_segment_aperture_base_hi) X(private_segment_aperture_base_hi) X(max_cu_id) \
	X(max_wave_id) X(max_legacy_doorbell_dispatch_id_plus_1) X(legacy_doorbell_lock)   \
	X(reserved2) X(read_dispatch_id) X(read_dispatch_id_field_base_byte_offset)        \
	X(compute_tmpring_size) X(scratch_resource_descriptor)                             \
	X(scratch_backing_memory_location) X(scratch_backing_memory_byte_size)             \
	X(scratch_wave64_lane_byte_size) X(queue_properties) X(queue_inactive_signal)      \
	X(scratch_max_use_index) X(alt_scratch_max_use_index)                              \
	X(alt_scratch_resource_descriptor) X(alt_scratch_backing_memory_location)          \
	X(alt_scratch_dispatch_limit_x) X(alt_scratch_dispatch_limit_y)                    \
	X(alt_scratch_dispatch_limit_z) X(alt_scratch_wave64_lane_byte_size)               \
	X(alt_compute_tmpring_size) X(reserved5) X(reserved3) X(reserved4)                 \
	X(scratch_last_used_index) X(alt_scratch_last_used_index)                          \
	X(alt_scratch_backing_memory_byte_size)

// The members hsaqm reads or writes by name: the same offset in every era's amd_queue_t.
#define AMD_QUEUE_STABLE(X)                                                                \
	X(hsa_queue) X(write_dispatch_id) X(group_segment_aperture_base_hi)                \
	X(private_segment_aperture_base_hi) X(max_cu_id) X(max_wave_id)                    \
	X(max_legacy_doorbell_dispatch_id_plus_1) X(legacy_doorbell_lock) X(reserved2)     \
	X(read_dispatch_id) X(read_dispatch_id_field_base_byte_offset)                     \
	X(compute_tmpring_size) X(scratch_resource_descriptor)                             \
	X(scratch_backing_memory_location) X(scratch_wave64_lane_byte_size)                \
	X(queue_properties) X(queue_inactive_signal)

AMD_QUEUE_NAMES(DEFINE_HAS)

template <typename Q> void check_amd_queue_t()
{
	expect_eq("sizeof", "amd_queue_t", sizeof(hsaqm_amd_queue), sizeof(Q));
	expect_eq("alignof", "amd_queue_t", alignof(hsaqm_amd_queue), alignof(Q));
#define CHECK_STABLE(f)                                                                    \
	if constexpr (has_##f<Q>::value)                                                   \
		expect_eq("offset of", "amd_queue_t." #f, offsetof(hsaqm_amd_queue, f),     \
			  offsetof(Q, f));                                                 \
	else                                                                               \
		fail("%s%s: not in this header", "amd_queue_t.", #f);
	AMD_QUEUE_STABLE(CHECK_STABLE)
	// `caps` (ROCm >= 6.1) is the first word of the older headers' reserved1[4].
	if constexpr (has_caps<Q>::value) {
		expect_eq("offset of", "amd_queue_t.caps", offsetof(hsaqm_amd_queue, caps),
			  offsetof(Q, caps));
		expect_eq("offset of", "amd_queue_t.reserved1", offsetof(hsaqm_amd_queue, reserved1),
			  offsetof(Q, reserved1));
	} else {
		expect_eq("offset of", "amd_queue_t.reserved1 (hsaqm caps)",
			  offsetof(hsaqm_amd_queue, caps), offsetof(Q, reserved1));
	}
	// The scratch size: named up to ROCm 6.4; reserved3 from 7.0 (amd_queue_t only).
	if constexpr (has_scratch_backing_memory_byte_size<Q>::value)
		expect_eq("offset of", "amd_queue_t.scratch_backing_memory_byte_size",
			  offsetof(hsaqm_amd_queue, scratch_backing_memory_byte_size),
			  offsetof(Q, scratch_backing_memory_byte_size));
	else
		expect_eq("offset of", "amd_queue_t.reserved3 (hsaqm scratch_backing_memory_byte_size)",
			  offsetof(hsaqm_amd_queue, scratch_backing_memory_byte_size),
			  offsetof(Q, reserved3));
	// Whatever else the header names lies in the words hsaqm copies from the hardware
	// queue without reading them: from queue_properties' end (184) to 256, the signal
	// at 192 apart. ROCm 6.1 - 6.3 put a first async-reclaim layout there.
#define CHECK_ERA_SPECIFIC(f)                                                              \
	if constexpr (has_##f<Q>::value) {                                                 \
		long long o = offsetof(Q, f);                                              \
		expect(o >= 184 && o + (long long)sizeof(Q::f) <= 256 &&                   \
			       (o + (long long)sizeof(Q::f) <= 192 || o >= 200),           \
		       "copied-verbatim range of", "amd_queue_t." #f, o, 184);             \
		std::printf("amd_queue_t.%s at %lld (copied verbatim)\n", #f, o);          \
	}
	CHECK_ERA_SPECIFIC(scratch_last_used_index)
	CHECK_ERA_SPECIFIC(alt_scratch_last_used_index)
	CHECK_ERA_SPECIFIC(alt_scratch_backing_memory_location)
	CHECK_ERA_SPECIFIC(alt_scratch_backing_memory_byte_size)
	CHECK_ERA_SPECIFIC(alt_scratch_dispatch_limit_x)
	CHECK_ERA_SPECIFIC(alt_compute_tmpring_size)
	if constexpr (has_scratch_backing_memory_byte_size<Q>::value)
		CHECK_ERA_SPECIFIC(reserved3)
	CHECK_ERA_SPECIFIC(reserved4)
	CHECK_ERA_SPECIFIC(reserved5)
}

#ifdef MAX_NUM_XCC
// amd_queue_v2_t (ROCm >= 6.4 headers): every member by name. The mirrors are template
// parameters so that a member only one of them has is looked up only where it exists.
template <typename Q, typename M1 = hsaqm_amd_queue, typename M2 = hsaqm_amd_queue_v2>
void check_amd_queue_v2_t()
{
	expect_eq("sizeof", "amd_queue_v2_t", sizeof(hsaqm_amd_queue_v2), sizeof(Q));
	expect_eq("alignof", "amd_queue_v2_t", alignof(hsaqm_amd_queue_v2), alignof(Q));
	expect_eq("sizeof (ROCr's queue object offset)", "amd_queue_v2_t",
		  HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V2, sizeof(Q));
	expect_eq("value of", "MAX_NUM_XCC", HSAQM_AMD_QUEUE_MAX_NUM_XCC, MAX_NUM_XCC);
	std::size_t named = 0;
#define CHECK_V2(f)                                                                        \
	if constexpr (has_##f<Q>::value) {                                                 \
		named++;                                                                   \
		if constexpr (has_##f<M1>::value)                                          \
			expect_eq("offset of", "amd_queue_v2_t." #f, offsetof(M1, f),      \
				  offsetof(Q, f));                                         \
		else if constexpr (has_##f<M2>::value)                                     \
			expect_eq("offset of", "amd_queue_v2_t." #f, offsetof(M2, f),      \
				  offsetof(Q, f));                                         \
		else                                                                       \
			fail("%s%s: in ROCr's header, not in hsaqm's mirror", "amd_queue_v2_t.", \
			     #f);                                                          \
	}
	AMD_QUEUE_NAMES(CHECK_V2)
	expect_eq("sizeof", "scratch_last_used_index_xcc_t",
		  sizeof(hsaqm_amd_scratch_last_used_index_xcc),
		  sizeof(scratch_last_used_index_xcc_t));
	expect_eq("offset of", "scratch_last_used_index_xcc_t.alt",
		  offsetof(hsaqm_amd_scratch_last_used_index_xcc, alt),
		  offsetof(scratch_last_used_index_xcc_t, alt));
	// 30 names in the first 256 bytes plus the per-XCC array.
	expect_eq("members named in", "amd_queue_v2_t", 31, named);
}
#endif

void check_abi_types()
{
#define CHECK_QUEUE(f)                                                                     \
	expect_eq("offset of", "hsa_queue_t." #f, offsetof(hsaqm_hsa_queue, f),             \
		  offsetof(hsa_queue_t, f))
	expect_eq("sizeof", "hsa_queue_t", sizeof(hsaqm_hsa_queue), sizeof(hsa_queue_t));
	CHECK_QUEUE(type);
	CHECK_QUEUE(features);
	CHECK_QUEUE(base_address);
	CHECK_QUEUE(doorbell_signal);
	CHECK_QUEUE(size);
	CHECK_QUEUE(reserved1);
	CHECK_QUEUE(id);

	check_amd_queue_t<amd_queue_t>();
#ifdef MAX_NUM_XCC
	check_amd_queue_v2_t<amd_queue_v2_t>();
	std::printf("amd_queue_v2_t: %zu bytes\n", sizeof(amd_queue_v2_t));
#else
	std::printf("amd_queue_v2_t: not in this header\n");
#endif

	expect_eq("sizeof", "hsa_signal_t", sizeof(hsaqm_hsa_signal), sizeof(hsa_signal_t));
	expect_eq("sizeof", "hsa_agent_t", sizeof(hsaqm_hsa_agent), sizeof(hsa_agent_t));
	expect_eq("sizeof", "hsa_region_t", sizeof(hsaqm_hsa_region), sizeof(hsa_region_t));
	expect_eq("sizeof", "hsa_amd_memory_pool_t", sizeof(hsaqm_hsa_amd_memory_pool),
		  sizeof(hsa_amd_memory_pool_t));
	expect_eq("sizeof", "hsa_signal_value_t", sizeof(hsaqm_hsa_signal_value_t),
		  sizeof(hsa_signal_value_t));
	expect_eq("sizeof", "hsa_status_t", sizeof(hsaqm_hsa_status_t), sizeof(hsa_status_t));
	expect_eq("sizeof", "hsa_signal_condition_t", sizeof(hsaqm_hsa_signal_condition_t),
		  sizeof(hsa_signal_condition_t));
	expect_eq("sizeof", "hsa_amd_queue_priority_t", sizeof(hsaqm_hsa_amd_queue_priority_t),
		  sizeof(hsa_amd_queue_priority_t));
	expect_eq("sizeof", "hsa_amd_profiling_dispatch_time_t",
		  sizeof(hsaqm_hsa_amd_profiling_dispatch_time),
		  sizeof(hsa_amd_profiling_dispatch_time_t));
	expect_eq("offset of", "hsa_amd_profiling_dispatch_time_t.end",
		  offsetof(hsaqm_hsa_amd_profiling_dispatch_time, end),
		  offsetof(hsa_amd_profiling_dispatch_time_t, end));
	expect_same_shape<hsa_amd_signal_handler, hsaqm_hsa_amd_signal_handler>(
		"hsa_amd_signal_handler");
	expect_same_shape<hsa_amd_queue_intercept_handler, hsaqm_hsa_amd_queue_intercept_handler>(
		"hsa_amd_queue_intercept_handler");

#define CHECK_VALUE(name) expect_eq("value of", #name, HSAQM_##name, name)
	CHECK_VALUE(HSA_STATUS_SUCCESS);
	CHECK_VALUE(HSA_STATUS_INFO_BREAK);
	CHECK_VALUE(HSA_STATUS_ERROR);
	CHECK_VALUE(HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CHECK_VALUE(HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
	CHECK_VALUE(HSA_STATUS_ERROR_INVALID_ALLOCATION);
	CHECK_VALUE(HSA_STATUS_ERROR_INVALID_AGENT);
	CHECK_VALUE(HSA_STATUS_ERROR_INVALID_REGION);
	CHECK_VALUE(HSA_STATUS_ERROR_INVALID_SIGNAL);
	CHECK_VALUE(HSA_STATUS_ERROR_INVALID_QUEUE);
	CHECK_VALUE(HSA_STATUS_ERROR_OUT_OF_RESOURCES);
	CHECK_VALUE(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
	CHECK_VALUE(HSA_STATUS_ERROR_RESOURCE_FREE);
	CHECK_VALUE(HSA_STATUS_ERROR_NOT_INITIALIZED);
	CHECK_VALUE(HSA_STATUS_ERROR_REFCOUNT_OVERFLOW);
	CHECK_VALUE(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
	CHECK_VALUE(HSA_STATUS_ERROR_INVALID_INDEX);
	CHECK_VALUE(HSA_STATUS_ERROR_INVALID_ISA);
	CHECK_VALUE(HSA_STATUS_ERROR_EXCEPTION);
	CHECK_VALUE(HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
	CHECK_VALUE(HSA_STATUS_ERROR_INVALID_RUNTIME_STATE);
	CHECK_VALUE(HSA_STATUS_ERROR_FATAL);
	CHECK_VALUE(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
	CHECK_VALUE(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION);
	CHECK_VALUE(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION);
	CHECK_VALUE(HSA_STATUS_ERROR_MEMORY_FAULT);
	CHECK_VALUE(HSA_STATUS_CU_MASK_REDUCED);
	// Enumerators cannot be detected by name: the releases that added them decide.
#if HSA_API_TABLE_MAJOR_VERSION >= 3
	CHECK_VALUE(HSA_STATUS_ERROR_OUT_OF_REGISTERS); // ROCm 6.1
#endif
#if HSA_AMD_EXT_API_TABLE_MAJOR_VERSION >= 2 && HSA_AMD_EXT_API_TABLE_STEP_VERSION >= 5
	CHECK_VALUE(HSA_STATUS_ERROR_RESOURCE_BUSY); // ROCm 6.4
#endif
#if HSA_AMD_EXT_API_TABLE_MAJOR_VERSION >= 2 && HSA_AMD_EXT_API_TABLE_STEP_VERSION >= 8
	CHECK_VALUE(HSA_STATUS_ERROR_NOT_SUPPORTED); // ROCm 7.2
#endif
	CHECK_VALUE(HSA_SIGNAL_CONDITION_EQ);
	CHECK_VALUE(HSA_SIGNAL_CONDITION_NE);
	CHECK_VALUE(HSA_SIGNAL_CONDITION_LT);
	CHECK_VALUE(HSA_SIGNAL_CONDITION_GTE);
	CHECK_VALUE(HSA_WAIT_STATE_BLOCKED);
	CHECK_VALUE(HSA_WAIT_STATE_ACTIVE);
	CHECK_VALUE(HSA_QUEUE_TYPE_MULTI);
	CHECK_VALUE(HSA_QUEUE_TYPE_SINGLE);
	CHECK_VALUE(HSA_QUEUE_TYPE_COOPERATIVE);
	CHECK_VALUE(HSA_QUEUE_FEATURE_KERNEL_DISPATCH);
	CHECK_VALUE(HSA_QUEUE_FEATURE_AGENT_DISPATCH);
	CHECK_VALUE(HSA_AMD_QUEUE_PRIORITY_LOW);
	CHECK_VALUE(HSA_AMD_QUEUE_PRIORITY_NORMAL);
	CHECK_VALUE(HSA_AMD_QUEUE_PRIORITY_HIGH);
	CHECK_VALUE(HSA_AMD_SIGNAL_AMD_GPU_ONLY);
	CHECK_VALUE(HSA_AMD_SIGNAL_IPC);
	CHECK_VALUE(AMD_QUEUE_PROPERTIES_ENABLE_TRAP_HANDLER);
	CHECK_VALUE(AMD_QUEUE_PROPERTIES_IS_PTR64);
	CHECK_VALUE(AMD_QUEUE_PROPERTIES_ENABLE_TRAP_HANDLER_DEBUG_SGPRS);
	CHECK_VALUE(AMD_QUEUE_PROPERTIES_ENABLE_PROFILING);
	CHECK_VALUE(AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE);
#ifdef MAX_NUM_XCC
	CHECK_VALUE(AMD_QUEUE_CAPS_CP_ASYNC_RECLAIM);
	CHECK_VALUE(AMD_QUEUE_CAPS_SW_ASYNC_RECLAIM);
#endif
	expect_eq("value of", "AMD_QUEUE_ALIGN_BYTES", HSAQM_AMD_QUEUE_ALIGN,
		  AMD_QUEUE_ALIGN_BYTES);
}

} // namespace

int main(int argc, char **argv)
{
	const char *want_release = nullptr;
	long queue_object_offset = -1;

	for (int i = 1; i < argc; i++) {
		if (!std::strcmp(argv[i], "--release") && i + 1 < argc) {
			want_release = argv[++i];
		} else if (!std::strcmp(argv[i], "--queue-object-offset") && i + 1 < argc) {
			char *end;

			queue_object_offset = std::strtol(argv[++i], &end, 0);
			if (*end || queue_object_offset < 0) {
				std::fprintf(stderr, "test-api-table-abi: bad offset '%s'\n", argv[i]);
				return 2;
			}
		} else {
			std::fprintf(stderr, "usage: test-api-table-abi [--release NAME] "
					     "[--queue-object-offset N]\n");
			return 2;
		}
	}
	check_tables();
	check_detector_on_rocr_table(want_release, queue_object_offset);
	check_abi_types();
	std::printf("test-api-table-abi: %d checks (%d typed entries), %d mismatches\n", checks,
		    typed_entries, failures);
	return failures ? 1 : 0;
}
