// SPDX-License-Identifier: MIT
//
// The C mirror of the API tables and of the HSA types (hsaqm/api_table.h, hsaqm/hsa_abi.h)
// matches the installed ROCr headers: offset of every CoreApiTable and AmdExtTable entry,
// the sizes of the tables, the root and the version, the parameter shapes of every typed
// entry, the queue structures and the constants. Then the detector, run on a table built
// by the installed header's own HsaApiTableContainer, finds each entry at that table's
// member address.
//
// Built only where hsa/hsa_api_trace.h and a C++ compiler exist. The header is C++, and
// includes its siblings as "inc/hsa_ext_amd.h": meson gives this file an include
// directory holding a symlink inc -> the HSA include directory.
//
// Exit 0 when everything matches, 1 on any mismatch, 77 if the installed header is not
// the ROCm 4.5-5.4 layout (Debian 12 ships ROCr 5.2.3) that the field lists below name.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include <hsa/amd_hsa_queue.h>
#include <hsa/hsa_api_trace.h>

#include "hsaqm/api_table.h"

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

// Every entry of the installed tables, in header order.
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
	X(hsa_amd_queue_cu_get_mask_fn)

#if HSA_CORE_API_TABLE_MAJOR_VERSION == 1 && HSA_AMD_EXT_API_TABLE_MAJOR_VERSION == 1

constexpr std::size_t count_fields(std::size_t n) { return n; }
#define COUNT_ONE(f) +1
constexpr std::size_t core_listed = count_fields(0 CORE_API_TABLE_FIELDS(COUNT_ONE));
constexpr std::size_t amd_listed = count_fields(0 AMD_EXT_TABLE_FIELDS(COUNT_ONE));

void check_tables()
{
	expect_eq("sizeof", "ApiTableVersion", sizeof(hsaqm_api_table_version),
		  sizeof(ApiTableVersion));
	expect_eq("offset of", "ApiTableVersion.minor_id",
		  offsetof(hsaqm_api_table_version, minor_id), offsetof(ApiTableVersion, minor_id));
	expect_eq("offset of", "ApiTableVersion.step_id",
		  offsetof(hsaqm_api_table_version, step_id), offsetof(ApiTableVersion, step_id));
	expect_eq("sizeof", "HsaApiTable", sizeof(hsaqm_api_root_v1), sizeof(HsaApiTable));
	expect_eq("offset of", "HsaApiTable.core_", offsetof(hsaqm_api_root_v1, core),
		  offsetof(HsaApiTable, core_));
	expect_eq("offset of", "HsaApiTable.amd_ext_", offsetof(hsaqm_api_root_v1, amd_ext),
		  offsetof(HsaApiTable, amd_ext_));
	expect_eq("offset of", "HsaApiTable.finalizer_ext_",
		  offsetof(hsaqm_api_root_v1, finalizer_ext),
		  offsetof(HsaApiTable, finalizer_ext_));
	expect_eq("offset of", "HsaApiTable.image_ext_", offsetof(hsaqm_api_root_v1, image_ext),
		  offsetof(HsaApiTable, image_ext_));

	// The lists name every entry: each is pointer-sized, so a complete list fills the table.
	expect_eq("entries listed in", "CoreApiTable", 16 + 8 * core_listed, sizeof(CoreApiTable));
	expect_eq("entries listed in", "AmdExtTable", 16 + 8 * amd_listed, sizeof(AmdExtTable));
	expect_eq("sizeof", "CoreApiTable", sizeof(hsaqm_core_api_table), sizeof(CoreApiTable));
	expect_eq("sizeof", "AmdExtTable", sizeof(hsaqm_amd_ext_table_4_5), sizeof(AmdExtTable));

#define CHECK_CORE(f)                                                                      \
	expect_eq("offset of", "CoreApiTable." #f, offsetof(hsaqm_core_api_table, f),      \
		  offsetof(CoreApiTable, f));                                              \
	expect_same_shape<decltype(CoreApiTable::f), decltype(hsaqm_core_api_table::f)>(#f);
	CORE_API_TABLE_FIELDS(CHECK_CORE)

#define CHECK_AMD(f)                                                                       \
	expect_eq("offset of", "AmdExtTable." #f, offsetof(hsaqm_amd_ext_table_4_5, f),    \
		  offsetof(AmdExtTable, f));                                               \
	expect_same_shape<decltype(AmdExtTable::f), decltype(hsaqm_amd_ext_table_4_5::f)>(#f);
	AMD_EXT_TABLE_FIELDS(CHECK_AMD)
}

// The detector on a table laid out by the installed header itself.
void check_detector_on_rocr_table()
{
	HsaApiTableContainer c;	// sets every version the way ROCr 5.x does
	hsaqm_api_layout l;

	int rc = hsaqm_api_table_detect(&c.root, c.root.version.major_id, &l);
	expect_eq("detect() result on", "HsaApiTableContainer", rc, 0);
	if (rc)
		return;
	expect_eq("layout of", "HsaApiTableContainer", l.id, HSAQM_API_LAYOUT_ROCM_4_5);

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
	// And every entry the installed layout has is found inside the installed tables.
	for (int e = 0; e < HSAQM_API_ENTRY_COUNT; e++) {
		auto *slot = (char *)hsaqm_api_table_slot(&c.root, &l, (hsaqm_api_entry)e);
		bool amd = l.entry[e].table == HSAQM_API_TABLE_AMD_EXT;
		char *lo = amd ? (char *)&c.amd_ext : (char *)&c.core;
		std::size_t size = amd ? sizeof(c.amd_ext) : sizeof(c.core);

		if (!l.entry[e].present)
			continue;
		expect(slot >= lo + 16 && slot + sizeof(void *) <= lo + size,
		       "slot inside table of", hsaqm_api_entry_name((hsaqm_api_entry)e),
		       (long long)(slot - lo), (long long)size);
	}
}

#endif

// ---- hsa_abi.h against hsa.h, hsa_ext_amd.h, amd_hsa_queue.h ---------------------------

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

#define CHECK_AMD_QUEUE(f)                                                                 \
	expect_eq("offset of", "amd_queue_t." #f, offsetof(hsaqm_amd_queue, f),             \
		  offsetof(amd_queue_t, f))
	expect_eq("sizeof", "amd_queue_t", sizeof(hsaqm_amd_queue), sizeof(amd_queue_t));
	expect_eq("alignof", "amd_queue_t", alignof(hsaqm_amd_queue), alignof(amd_queue_t));
	// ROCr 5.2.3 names all 16 bytes after hsa_queue reserved1; hsaqm names the first 4 caps.
	expect_eq("offset of", "amd_queue_t.reserved1 (hsaqm caps)",
		  offsetof(hsaqm_amd_queue, caps), offsetof(amd_queue_t, reserved1));
	CHECK_AMD_QUEUE(hsa_queue);
	CHECK_AMD_QUEUE(write_dispatch_id);
	CHECK_AMD_QUEUE(group_segment_aperture_base_hi);
	CHECK_AMD_QUEUE(private_segment_aperture_base_hi);
	CHECK_AMD_QUEUE(max_cu_id);
	CHECK_AMD_QUEUE(max_wave_id);
	CHECK_AMD_QUEUE(max_legacy_doorbell_dispatch_id_plus_1);
	CHECK_AMD_QUEUE(legacy_doorbell_lock);
	CHECK_AMD_QUEUE(reserved2);
	CHECK_AMD_QUEUE(read_dispatch_id);
	CHECK_AMD_QUEUE(read_dispatch_id_field_base_byte_offset);
	CHECK_AMD_QUEUE(compute_tmpring_size);
	CHECK_AMD_QUEUE(scratch_resource_descriptor);
	CHECK_AMD_QUEUE(scratch_backing_memory_location);
	CHECK_AMD_QUEUE(scratch_backing_memory_byte_size);
	CHECK_AMD_QUEUE(scratch_wave64_lane_byte_size);
	CHECK_AMD_QUEUE(queue_properties);
	CHECK_AMD_QUEUE(reserved3);
	CHECK_AMD_QUEUE(queue_inactive_signal);
	CHECK_AMD_QUEUE(reserved4);

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
	expect_eq("value of", "AMD_QUEUE_ALIGN_BYTES", HSAQM_AMD_QUEUE_ALIGN,
		  AMD_QUEUE_ALIGN_BYTES);
}

} // namespace

int main()
{
#if HSA_CORE_API_TABLE_MAJOR_VERSION == 1 && HSA_AMD_EXT_API_TABLE_MAJOR_VERSION == 1
	if (sizeof(AmdExtTable) != HSAQM_AMD_EXT_SIZE_ROCM_4_5) {
		std::printf("test-api-table-abi: skipped: installed AmdExtTable is %zu bytes, "
			    "not the ROCm 4.5-5.4 layout this test lists\n", sizeof(AmdExtTable));
		return 77;
	}
	check_tables();
	check_detector_on_rocr_table();
	check_abi_types();
	std::printf("test-api-table-abi: %d checks (%d typed entries), %d mismatches\n", checks,
		    typed_entries, failures);
	return failures ? 1 : 0;
#else
	std::printf("test-api-table-abi: skipped: installed hsa_api_trace.h is major %d, "
		    "not the ROCm 4.5-5.4 layout this test lists\n", HSA_API_TABLE_MAJOR_VERSION);
	return 77;
#endif
}
