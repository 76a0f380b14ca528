/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-hsa/api_table.h - a C mirror of ROCr's tool API tables, and the detector that tells
 * which layout a live table has.
 *
 * A library named in HSA_TOOLS_LIB receives, in OnLoad(), ROCr's root HsaApiTable: a
 * version header and pointers to sub-tables of function pointers. Every HSA call an
 * application makes jumps through those tables, so a tool replaces an entry to wrap a
 * function. ROCr describes the tables only in a C++ header (hsa_api_trace.h); this file
 * describes the same memory in C, for every layout ROCr has shipped since ROCm 4.5.
 *
 * How the layouts evolved (docs/hsa-api-tables.md has the sources):
 *
 *   root major  ROCm        root                  CoreApiTable     AmdExtTable
 *   1           4.5 - 5.4   4 sub-table pointers  1016 bytes       400 bytes
 *   1           5.5         "                     "                424 (3 SPM entries
 *                                                                  inserted before
 *                                                                  queue_cu_get_mask)
 *   1           5.6 - 5.7   "                     "                456 (2 copy-engine
 *                                                                  entries inserted after
 *                                                                  memory_async_copy,
 *                                                                  2 dmabuf appended)
 *   2           6.0         "                     " (major 2)      552 (major 2)
 *   3           6.1 -       + tools_ (6.1),       "                560 and up, appended
 *                           + pc_sampling_ext_                     only, step_id counts
 *                           (6.2)                                  the additions: 6.1
 *                                                                  560/1, 6.2 576/3, 6.3
 *                                                                  584/4, 6.4 592/5, 7.0
 *                                                                  608/7, 7.2 624/8
 *
 * Every sub-table starts with a version whose minor_id ROCr sets to the sizeof of the
 * table it was built with - in every release, 5.x included. From major 2 on, entries are
 * only appended and a consumer must not touch an entry at or past minor_id. Within major
 * 1 entries were inserted mid-table without a version bump, so there the exact size is
 * what identifies the layout.
 */
#ifndef HSAQM_API_TABLE_H
#define HSAQM_API_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hsaqm-hsa/hsa_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Any table entry hsaqm does not call or wrap: only its slot matters. */
typedef void (*hsaqm_api_fn)(void);

/* ApiTableVersion: the first member of the root and of every sub-table. */
struct hsaqm_api_table_version {
	uint32_t major_id;
	uint32_t minor_id;	/* sizeof the table as the runtime built it */
	uint32_t step_id;	/* additions within a major (from ROCm 6.1) */
	uint32_t reserved;
};

struct hsaqm_core_api_table;

/*
 * Root tables. The sub-table pointer types other than core depend on the layout (AmdExt)
 * or are of no use to hsaqm (finalizer, image, tools, PC sampling), hence void *. ROCr
 * may leave finalizer_ext, image_ext and pc_sampling_ext NULL until the extension loads.
 */
struct hsaqm_api_root_v1 {		/* major 1: ROCm 4.5 - 5.7, minor_id 48 */
	struct hsaqm_api_table_version version;
	struct hsaqm_core_api_table *core;
	void *amd_ext;
	void *finalizer_ext;
	void *image_ext;
};

struct hsaqm_api_root_v2 {		/* major 2: ROCm 6.0, minor_id 48 */
	struct hsaqm_api_table_version version;
	struct hsaqm_core_api_table *core;
	void *amd_ext;
	void *finalizer_ext;
	void *image_ext;
};

struct hsaqm_api_root_v3 {		/* major 3: ROCm 6.1 (minor_id 56) and later (64) */
	struct hsaqm_api_table_version version;
	struct hsaqm_core_api_table *core;
	void *amd_ext;
	void *finalizer_ext;
	void *image_ext;
	void *tools;			/* ToolsApiTable, from 6.1 */
	void *pc_sampling_ext;		/* PcSamplingExtTable, from 6.2: check minor_id */
};

/*
 * CoreApiTable: one layout in every release from ROCm 4.x to the 2025 development
 * branch (major 1 until 5.7, major 2 after, step 0). Offsets in the comments.
 */
struct hsaqm_core_api_table {
	struct hsaqm_api_table_version version;
	hsaqm_hsa_init_fn hsa_init_fn;                          /* 16 */
	hsaqm_hsa_shut_down_fn hsa_shut_down_fn;                /* 24 */
	hsaqm_api_fn hsa_system_get_info_fn;                    /* 32 */
	hsaqm_api_fn hsa_system_extension_supported_fn;         /* 40 */
	hsaqm_api_fn hsa_system_get_extension_table_fn;         /* 48 */
	hsaqm_hsa_iterate_agents_fn hsa_iterate_agents_fn;      /* 56 */
	hsaqm_hsa_agent_get_info_fn hsa_agent_get_info_fn;      /* 64 */
	hsaqm_hsa_queue_create_fn hsa_queue_create_fn;          /* 72 */
	hsaqm_api_fn hsa_soft_queue_create_fn;                  /* 80 */
	hsaqm_hsa_queue_destroy_fn hsa_queue_destroy_fn;        /* 88 */
	hsaqm_hsa_queue_inactivate_fn hsa_queue_inactivate_fn;  /* 96 */
	hsaqm_hsa_queue_load_index_fn hsa_queue_load_read_index_scacquire_fn; /* 104 */
	hsaqm_hsa_queue_load_index_fn hsa_queue_load_read_index_relaxed_fn; /* 112 */
	hsaqm_hsa_queue_load_index_fn hsa_queue_load_write_index_scacquire_fn; /* 120 */
	hsaqm_hsa_queue_load_index_fn hsa_queue_load_write_index_relaxed_fn; /* 128 */
	hsaqm_hsa_queue_store_index_fn hsa_queue_store_write_index_relaxed_fn; /* 136 */
	hsaqm_hsa_queue_store_index_fn hsa_queue_store_write_index_screlease_fn; /* 144 */
	hsaqm_hsa_queue_cas_index_fn hsa_queue_cas_write_index_scacq_screl_fn; /* 152 */
	hsaqm_hsa_queue_cas_index_fn hsa_queue_cas_write_index_scacquire_fn; /* 160 */
	hsaqm_hsa_queue_cas_index_fn hsa_queue_cas_write_index_relaxed_fn; /* 168 */
	hsaqm_hsa_queue_cas_index_fn hsa_queue_cas_write_index_screlease_fn; /* 176 */
	hsaqm_hsa_queue_add_index_fn hsa_queue_add_write_index_scacq_screl_fn; /* 184 */
	hsaqm_hsa_queue_add_index_fn hsa_queue_add_write_index_scacquire_fn; /* 192 */
	hsaqm_hsa_queue_add_index_fn hsa_queue_add_write_index_relaxed_fn; /* 200 */
	hsaqm_hsa_queue_add_index_fn hsa_queue_add_write_index_screlease_fn; /* 208 */
	hsaqm_hsa_queue_store_index_fn hsa_queue_store_read_index_relaxed_fn; /* 216 */
	hsaqm_hsa_queue_store_index_fn hsa_queue_store_read_index_screlease_fn; /* 224 */
	hsaqm_api_fn hsa_agent_iterate_regions_fn;              /* 232 */
	hsaqm_api_fn hsa_region_get_info_fn;                    /* 240 */
	hsaqm_api_fn hsa_agent_get_exception_policies_fn;       /* 248 */
	hsaqm_api_fn hsa_agent_extension_supported_fn;          /* 256 */
	hsaqm_api_fn hsa_memory_register_fn;                    /* 264 */
	hsaqm_api_fn hsa_memory_deregister_fn;                  /* 272 */
	hsaqm_api_fn hsa_memory_allocate_fn;                    /* 280 */
	hsaqm_api_fn hsa_memory_free_fn;                        /* 288 */
	hsaqm_api_fn hsa_memory_copy_fn;                        /* 296 */
	hsaqm_api_fn hsa_memory_assign_agent_fn;                /* 304 */
	hsaqm_hsa_signal_create_fn hsa_signal_create_fn;        /* 312 */
	hsaqm_hsa_signal_destroy_fn hsa_signal_destroy_fn;      /* 320 */
	hsaqm_hsa_signal_load_fn hsa_signal_load_relaxed_fn;    /* 328 */
	hsaqm_hsa_signal_load_fn hsa_signal_load_scacquire_fn;  /* 336 */
	hsaqm_hsa_signal_store_fn hsa_signal_store_relaxed_fn;  /* 344 */
	hsaqm_hsa_signal_store_fn hsa_signal_store_screlease_fn; /* 352 */
	hsaqm_hsa_signal_wait_fn hsa_signal_wait_relaxed_fn;    /* 360 */
	hsaqm_hsa_signal_wait_fn hsa_signal_wait_scacquire_fn;  /* 368 */
	hsaqm_hsa_signal_store_fn hsa_signal_and_relaxed_fn;    /* 376 */
	hsaqm_hsa_signal_store_fn hsa_signal_and_scacquire_fn;  /* 384 */
	hsaqm_hsa_signal_store_fn hsa_signal_and_screlease_fn;  /* 392 */
	hsaqm_hsa_signal_store_fn hsa_signal_and_scacq_screl_fn; /* 400 */
	hsaqm_hsa_signal_store_fn hsa_signal_or_relaxed_fn;     /* 408 */
	hsaqm_hsa_signal_store_fn hsa_signal_or_scacquire_fn;   /* 416 */
	hsaqm_hsa_signal_store_fn hsa_signal_or_screlease_fn;   /* 424 */
	hsaqm_hsa_signal_store_fn hsa_signal_or_scacq_screl_fn; /* 432 */
	hsaqm_hsa_signal_store_fn hsa_signal_xor_relaxed_fn;    /* 440 */
	hsaqm_hsa_signal_store_fn hsa_signal_xor_scacquire_fn;  /* 448 */
	hsaqm_hsa_signal_store_fn hsa_signal_xor_screlease_fn;  /* 456 */
	hsaqm_hsa_signal_store_fn hsa_signal_xor_scacq_screl_fn; /* 464 */
	hsaqm_hsa_signal_exchange_fn hsa_signal_exchange_relaxed_fn; /* 472 */
	hsaqm_hsa_signal_exchange_fn hsa_signal_exchange_scacquire_fn; /* 480 */
	hsaqm_hsa_signal_exchange_fn hsa_signal_exchange_screlease_fn; /* 488 */
	hsaqm_hsa_signal_exchange_fn hsa_signal_exchange_scacq_screl_fn; /* 496 */
	hsaqm_hsa_signal_store_fn hsa_signal_add_relaxed_fn;    /* 504 */
	hsaqm_hsa_signal_store_fn hsa_signal_add_scacquire_fn;  /* 512 */
	hsaqm_hsa_signal_store_fn hsa_signal_add_screlease_fn;  /* 520 */
	hsaqm_hsa_signal_store_fn hsa_signal_add_scacq_screl_fn; /* 528 */
	hsaqm_hsa_signal_store_fn hsa_signal_subtract_relaxed_fn; /* 536 */
	hsaqm_hsa_signal_store_fn hsa_signal_subtract_scacquire_fn; /* 544 */
	hsaqm_hsa_signal_store_fn hsa_signal_subtract_screlease_fn; /* 552 */
	hsaqm_hsa_signal_store_fn hsa_signal_subtract_scacq_screl_fn; /* 560 */
	hsaqm_hsa_signal_cas_fn hsa_signal_cas_relaxed_fn;      /* 568 */
	hsaqm_hsa_signal_cas_fn hsa_signal_cas_scacquire_fn;    /* 576 */
	hsaqm_hsa_signal_cas_fn hsa_signal_cas_screlease_fn;    /* 584 */
	hsaqm_hsa_signal_cas_fn hsa_signal_cas_scacq_screl_fn;  /* 592 */
	hsaqm_api_fn hsa_isa_from_name_fn;                      /* 600 */
	hsaqm_api_fn hsa_isa_get_info_fn;                       /* 608 */
	hsaqm_api_fn hsa_isa_compatible_fn;                     /* 616 */
	hsaqm_api_fn hsa_code_object_serialize_fn;              /* 624 */
	hsaqm_api_fn hsa_code_object_deserialize_fn;            /* 632 */
	hsaqm_api_fn hsa_code_object_destroy_fn;                /* 640 */
	hsaqm_api_fn hsa_code_object_get_info_fn;               /* 648 */
	hsaqm_api_fn hsa_code_object_get_symbol_fn;             /* 656 */
	hsaqm_api_fn hsa_code_symbol_get_info_fn;               /* 664 */
	hsaqm_api_fn hsa_code_object_iterate_symbols_fn;        /* 672 */
	hsaqm_api_fn hsa_executable_create_fn;                  /* 680 */
	hsaqm_api_fn hsa_executable_destroy_fn;                 /* 688 */
	hsaqm_api_fn hsa_executable_load_code_object_fn;        /* 696 */
	hsaqm_api_fn hsa_executable_freeze_fn;                  /* 704 */
	hsaqm_api_fn hsa_executable_get_info_fn;                /* 712 */
	hsaqm_api_fn hsa_executable_global_variable_define_fn;  /* 720 */
	hsaqm_api_fn hsa_executable_agent_global_variable_define_fn; /* 728 */
	hsaqm_api_fn hsa_executable_readonly_variable_define_fn; /* 736 */
	hsaqm_api_fn hsa_executable_validate_fn;                /* 744 */
	hsaqm_api_fn hsa_executable_get_symbol_fn;              /* 752 */
	hsaqm_api_fn hsa_executable_symbol_get_info_fn;         /* 760 */
	hsaqm_api_fn hsa_executable_iterate_symbols_fn;         /* 768 */
	hsaqm_api_fn hsa_status_string_fn;                      /* 776 */
	hsaqm_api_fn hsa_extension_get_name_fn;                 /* 784 */
	hsaqm_api_fn hsa_system_major_extension_supported_fn;   /* 792 */
	hsaqm_api_fn hsa_system_get_major_extension_table_fn;   /* 800 */
	hsaqm_api_fn hsa_agent_major_extension_supported_fn;    /* 808 */
	hsaqm_api_fn hsa_cache_get_info_fn;                     /* 816 */
	hsaqm_api_fn hsa_agent_iterate_caches_fn;               /* 824 */
	hsaqm_hsa_signal_store_fn hsa_signal_silent_store_relaxed_fn; /* 832 */
	hsaqm_hsa_signal_store_fn hsa_signal_silent_store_screlease_fn; /* 840 */
	hsaqm_api_fn hsa_signal_group_create_fn;                /* 848 */
	hsaqm_api_fn hsa_signal_group_destroy_fn;               /* 856 */
	hsaqm_api_fn hsa_signal_group_wait_any_scacquire_fn;    /* 864 */
	hsaqm_api_fn hsa_signal_group_wait_any_relaxed_fn;      /* 872 */
	hsaqm_api_fn hsa_agent_iterate_isas_fn;                 /* 880 */
	hsaqm_api_fn hsa_isa_get_info_alt_fn;                   /* 888 */
	hsaqm_api_fn hsa_isa_get_exception_policies_fn;         /* 896 */
	hsaqm_api_fn hsa_isa_get_round_method_fn;               /* 904 */
	hsaqm_api_fn hsa_wavefront_get_info_fn;                 /* 912 */
	hsaqm_api_fn hsa_isa_iterate_wavefronts_fn;             /* 920 */
	hsaqm_api_fn hsa_code_object_get_symbol_from_name_fn;   /* 928 */
	hsaqm_api_fn hsa_code_object_reader_create_from_file_fn; /* 936 */
	hsaqm_api_fn hsa_code_object_reader_create_from_memory_fn; /* 944 */
	hsaqm_api_fn hsa_code_object_reader_destroy_fn;         /* 952 */
	hsaqm_api_fn hsa_executable_create_alt_fn;              /* 960 */
	hsaqm_api_fn hsa_executable_load_program_code_object_fn; /* 968 */
	hsaqm_api_fn hsa_executable_load_agent_code_object_fn;  /* 976 */
	hsaqm_api_fn hsa_executable_validate_alt_fn;            /* 984 */
	hsaqm_api_fn hsa_executable_get_symbol_by_name_fn;      /* 992 */
	hsaqm_api_fn hsa_executable_iterate_agent_symbols_fn;   /* 1000 */
	hsaqm_api_fn hsa_executable_iterate_program_symbols_fn; /* 1008 */
};

/* AmdExtTable of ROCm 4.5 - 5.4 (major 1, minor_id 400). */
struct hsaqm_amd_ext_table_4_5 {
	struct hsaqm_api_table_version version;
	hsaqm_api_fn hsa_amd_coherency_get_type_fn;             /* 16 */
	hsaqm_api_fn hsa_amd_coherency_set_type_fn;             /* 24 */
	hsaqm_hsa_amd_profiling_enable_fn hsa_amd_profiling_set_profiler_enabled_fn; /* 32 */
	hsaqm_api_fn hsa_amd_profiling_async_copy_enable_fn;    /* 40 */
	hsaqm_hsa_amd_profiling_dispatch_time_fn hsa_amd_profiling_get_dispatch_time_fn; /* 48 */
	hsaqm_api_fn hsa_amd_profiling_get_async_copy_time_fn;  /* 56 */
	hsaqm_api_fn hsa_amd_profiling_convert_tick_to_system_domain_fn; /* 64 */
	hsaqm_hsa_amd_signal_async_handler_fn hsa_amd_signal_async_handler_fn; /* 72 */
	hsaqm_api_fn hsa_amd_async_function_fn;                 /* 80 */
	hsaqm_hsa_amd_signal_wait_any_fn hsa_amd_signal_wait_any_fn; /* 88 */
	hsaqm_hsa_amd_queue_cu_set_mask_fn hsa_amd_queue_cu_set_mask_fn; /* 96 */
	hsaqm_api_fn hsa_amd_memory_pool_get_info_fn;           /* 104 */
	hsaqm_api_fn hsa_amd_agent_iterate_memory_pools_fn;     /* 112 */
	hsaqm_api_fn hsa_amd_memory_pool_allocate_fn;           /* 120 */
	hsaqm_api_fn hsa_amd_memory_pool_free_fn;               /* 128 */
	hsaqm_api_fn hsa_amd_memory_async_copy_fn;              /* 136 */
	hsaqm_api_fn hsa_amd_agent_memory_pool_get_info_fn;     /* 144 */
	hsaqm_api_fn hsa_amd_agents_allow_access_fn;            /* 152 */
	hsaqm_api_fn hsa_amd_memory_pool_can_migrate_fn;        /* 160 */
	hsaqm_api_fn hsa_amd_memory_migrate_fn;                 /* 168 */
	hsaqm_api_fn hsa_amd_memory_lock_fn;                    /* 176 */
	hsaqm_api_fn hsa_amd_memory_unlock_fn;                  /* 184 */
	hsaqm_api_fn hsa_amd_memory_fill_fn;                    /* 192 */
	hsaqm_api_fn hsa_amd_interop_map_buffer_fn;             /* 200 */
	hsaqm_api_fn hsa_amd_interop_unmap_buffer_fn;           /* 208 */
	hsaqm_api_fn hsa_amd_image_create_fn;                   /* 216 */
	hsaqm_api_fn hsa_amd_pointer_info_fn;                   /* 224 */
	hsaqm_api_fn hsa_amd_pointer_info_set_userdata_fn;      /* 232 */
	hsaqm_api_fn hsa_amd_ipc_memory_create_fn;              /* 240 */
	hsaqm_api_fn hsa_amd_ipc_memory_attach_fn;              /* 248 */
	hsaqm_api_fn hsa_amd_ipc_memory_detach_fn;              /* 256 */
	hsaqm_api_fn hsa_amd_signal_create_fn;                  /* 264 */
	hsaqm_api_fn hsa_amd_ipc_signal_create_fn;              /* 272 */
	hsaqm_api_fn hsa_amd_ipc_signal_attach_fn;              /* 280 */
	hsaqm_api_fn hsa_amd_register_system_event_handler_fn;  /* 288 */
	hsaqm_hsa_amd_queue_intercept_create_fn hsa_amd_queue_intercept_create_fn; /* 296 */
	hsaqm_hsa_amd_queue_intercept_register_fn hsa_amd_queue_intercept_register_fn; /* 304 */
	hsaqm_hsa_amd_queue_set_priority_fn hsa_amd_queue_set_priority_fn; /* 312 */
	hsaqm_api_fn hsa_amd_memory_async_copy_rect_fn;         /* 320 */
	hsaqm_api_fn hsa_amd_runtime_queue_create_register_fn;  /* 328 */
	hsaqm_api_fn hsa_amd_memory_lock_to_pool_fn;            /* 336 */
	hsaqm_api_fn hsa_amd_register_deallocation_callback_fn; /* 344 */
	hsaqm_api_fn hsa_amd_deregister_deallocation_callback_fn; /* 352 */
	hsaqm_api_fn hsa_amd_signal_value_pointer_fn;           /* 360 */
	hsaqm_api_fn hsa_amd_svm_attributes_set_fn;             /* 368 */
	hsaqm_api_fn hsa_amd_svm_attributes_get_fn;             /* 376 */
	hsaqm_api_fn hsa_amd_svm_prefetch_async_fn;             /* 384 */
	hsaqm_hsa_amd_queue_cu_get_mask_fn hsa_amd_queue_cu_get_mask_fn; /* 392 */
};

/* AmdExtTable of ROCm 5.5 (major 1, minor_id 424). */
struct hsaqm_amd_ext_table_5_5 {
	struct hsaqm_api_table_version version;
	hsaqm_api_fn hsa_amd_coherency_get_type_fn;             /* 16 */
	hsaqm_api_fn hsa_amd_coherency_set_type_fn;             /* 24 */
	hsaqm_hsa_amd_profiling_enable_fn hsa_amd_profiling_set_profiler_enabled_fn; /* 32 */
	hsaqm_api_fn hsa_amd_profiling_async_copy_enable_fn;    /* 40 */
	hsaqm_hsa_amd_profiling_dispatch_time_fn hsa_amd_profiling_get_dispatch_time_fn; /* 48 */
	hsaqm_api_fn hsa_amd_profiling_get_async_copy_time_fn;  /* 56 */
	hsaqm_api_fn hsa_amd_profiling_convert_tick_to_system_domain_fn; /* 64 */
	hsaqm_hsa_amd_signal_async_handler_fn hsa_amd_signal_async_handler_fn; /* 72 */
	hsaqm_api_fn hsa_amd_async_function_fn;                 /* 80 */
	hsaqm_hsa_amd_signal_wait_any_fn hsa_amd_signal_wait_any_fn; /* 88 */
	hsaqm_hsa_amd_queue_cu_set_mask_fn hsa_amd_queue_cu_set_mask_fn; /* 96 */
	hsaqm_api_fn hsa_amd_memory_pool_get_info_fn;           /* 104 */
	hsaqm_api_fn hsa_amd_agent_iterate_memory_pools_fn;     /* 112 */
	hsaqm_api_fn hsa_amd_memory_pool_allocate_fn;           /* 120 */
	hsaqm_api_fn hsa_amd_memory_pool_free_fn;               /* 128 */
	hsaqm_api_fn hsa_amd_memory_async_copy_fn;              /* 136 */
	hsaqm_api_fn hsa_amd_agent_memory_pool_get_info_fn;     /* 144 */
	hsaqm_api_fn hsa_amd_agents_allow_access_fn;            /* 152 */
	hsaqm_api_fn hsa_amd_memory_pool_can_migrate_fn;        /* 160 */
	hsaqm_api_fn hsa_amd_memory_migrate_fn;                 /* 168 */
	hsaqm_api_fn hsa_amd_memory_lock_fn;                    /* 176 */
	hsaqm_api_fn hsa_amd_memory_unlock_fn;                  /* 184 */
	hsaqm_api_fn hsa_amd_memory_fill_fn;                    /* 192 */
	hsaqm_api_fn hsa_amd_interop_map_buffer_fn;             /* 200 */
	hsaqm_api_fn hsa_amd_interop_unmap_buffer_fn;           /* 208 */
	hsaqm_api_fn hsa_amd_image_create_fn;                   /* 216 */
	hsaqm_api_fn hsa_amd_pointer_info_fn;                   /* 224 */
	hsaqm_api_fn hsa_amd_pointer_info_set_userdata_fn;      /* 232 */
	hsaqm_api_fn hsa_amd_ipc_memory_create_fn;              /* 240 */
	hsaqm_api_fn hsa_amd_ipc_memory_attach_fn;              /* 248 */
	hsaqm_api_fn hsa_amd_ipc_memory_detach_fn;              /* 256 */
	hsaqm_api_fn hsa_amd_signal_create_fn;                  /* 264 */
	hsaqm_api_fn hsa_amd_ipc_signal_create_fn;              /* 272 */
	hsaqm_api_fn hsa_amd_ipc_signal_attach_fn;              /* 280 */
	hsaqm_api_fn hsa_amd_register_system_event_handler_fn;  /* 288 */
	hsaqm_hsa_amd_queue_intercept_create_fn hsa_amd_queue_intercept_create_fn; /* 296 */
	hsaqm_hsa_amd_queue_intercept_register_fn hsa_amd_queue_intercept_register_fn; /* 304 */
	hsaqm_hsa_amd_queue_set_priority_fn hsa_amd_queue_set_priority_fn; /* 312 */
	hsaqm_api_fn hsa_amd_memory_async_copy_rect_fn;         /* 320 */
	hsaqm_api_fn hsa_amd_runtime_queue_create_register_fn;  /* 328 */
	hsaqm_api_fn hsa_amd_memory_lock_to_pool_fn;            /* 336 */
	hsaqm_api_fn hsa_amd_register_deallocation_callback_fn; /* 344 */
	hsaqm_api_fn hsa_amd_deregister_deallocation_callback_fn; /* 352 */
	hsaqm_api_fn hsa_amd_signal_value_pointer_fn;           /* 360 */
	hsaqm_api_fn hsa_amd_svm_attributes_set_fn;             /* 368 */
	hsaqm_api_fn hsa_amd_svm_attributes_get_fn;             /* 376 */
	hsaqm_api_fn hsa_amd_svm_prefetch_async_fn;             /* 384 */
	hsaqm_api_fn hsa_amd_spm_acquire_fn;                    /* 392 */
	hsaqm_api_fn hsa_amd_spm_release_fn;                    /* 400 */
	hsaqm_api_fn hsa_amd_spm_set_dest_buffer_fn;            /* 408 */
	hsaqm_hsa_amd_queue_cu_get_mask_fn hsa_amd_queue_cu_get_mask_fn; /* 416 */
};

/* AmdExtTable of ROCm 5.6 - 5.7 (major 1, minor_id 456). */
struct hsaqm_amd_ext_table_5_6 {
	struct hsaqm_api_table_version version;
	hsaqm_api_fn hsa_amd_coherency_get_type_fn;             /* 16 */
	hsaqm_api_fn hsa_amd_coherency_set_type_fn;             /* 24 */
	hsaqm_hsa_amd_profiling_enable_fn hsa_amd_profiling_set_profiler_enabled_fn; /* 32 */
	hsaqm_api_fn hsa_amd_profiling_async_copy_enable_fn;    /* 40 */
	hsaqm_hsa_amd_profiling_dispatch_time_fn hsa_amd_profiling_get_dispatch_time_fn; /* 48 */
	hsaqm_api_fn hsa_amd_profiling_get_async_copy_time_fn;  /* 56 */
	hsaqm_api_fn hsa_amd_profiling_convert_tick_to_system_domain_fn; /* 64 */
	hsaqm_hsa_amd_signal_async_handler_fn hsa_amd_signal_async_handler_fn; /* 72 */
	hsaqm_api_fn hsa_amd_async_function_fn;                 /* 80 */
	hsaqm_hsa_amd_signal_wait_any_fn hsa_amd_signal_wait_any_fn; /* 88 */
	hsaqm_hsa_amd_queue_cu_set_mask_fn hsa_amd_queue_cu_set_mask_fn; /* 96 */
	hsaqm_api_fn hsa_amd_memory_pool_get_info_fn;           /* 104 */
	hsaqm_api_fn hsa_amd_agent_iterate_memory_pools_fn;     /* 112 */
	hsaqm_api_fn hsa_amd_memory_pool_allocate_fn;           /* 120 */
	hsaqm_api_fn hsa_amd_memory_pool_free_fn;               /* 128 */
	hsaqm_api_fn hsa_amd_memory_async_copy_fn;              /* 136 */
	hsaqm_api_fn hsa_amd_memory_async_copy_on_engine_fn;    /* 144 */
	hsaqm_api_fn hsa_amd_memory_copy_engine_status_fn;      /* 152 */
	hsaqm_api_fn hsa_amd_agent_memory_pool_get_info_fn;     /* 160 */
	hsaqm_api_fn hsa_amd_agents_allow_access_fn;            /* 168 */
	hsaqm_api_fn hsa_amd_memory_pool_can_migrate_fn;        /* 176 */
	hsaqm_api_fn hsa_amd_memory_migrate_fn;                 /* 184 */
	hsaqm_api_fn hsa_amd_memory_lock_fn;                    /* 192 */
	hsaqm_api_fn hsa_amd_memory_unlock_fn;                  /* 200 */
	hsaqm_api_fn hsa_amd_memory_fill_fn;                    /* 208 */
	hsaqm_api_fn hsa_amd_interop_map_buffer_fn;             /* 216 */
	hsaqm_api_fn hsa_amd_interop_unmap_buffer_fn;           /* 224 */
	hsaqm_api_fn hsa_amd_image_create_fn;                   /* 232 */
	hsaqm_api_fn hsa_amd_pointer_info_fn;                   /* 240 */
	hsaqm_api_fn hsa_amd_pointer_info_set_userdata_fn;      /* 248 */
	hsaqm_api_fn hsa_amd_ipc_memory_create_fn;              /* 256 */
	hsaqm_api_fn hsa_amd_ipc_memory_attach_fn;              /* 264 */
	hsaqm_api_fn hsa_amd_ipc_memory_detach_fn;              /* 272 */
	hsaqm_api_fn hsa_amd_signal_create_fn;                  /* 280 */
	hsaqm_api_fn hsa_amd_ipc_signal_create_fn;              /* 288 */
	hsaqm_api_fn hsa_amd_ipc_signal_attach_fn;              /* 296 */
	hsaqm_api_fn hsa_amd_register_system_event_handler_fn;  /* 304 */
	hsaqm_hsa_amd_queue_intercept_create_fn hsa_amd_queue_intercept_create_fn; /* 312 */
	hsaqm_hsa_amd_queue_intercept_register_fn hsa_amd_queue_intercept_register_fn; /* 320 */
	hsaqm_hsa_amd_queue_set_priority_fn hsa_amd_queue_set_priority_fn; /* 328 */
	hsaqm_api_fn hsa_amd_memory_async_copy_rect_fn;         /* 336 */
	hsaqm_api_fn hsa_amd_runtime_queue_create_register_fn;  /* 344 */
	hsaqm_api_fn hsa_amd_memory_lock_to_pool_fn;            /* 352 */
	hsaqm_api_fn hsa_amd_register_deallocation_callback_fn; /* 360 */
	hsaqm_api_fn hsa_amd_deregister_deallocation_callback_fn; /* 368 */
	hsaqm_api_fn hsa_amd_signal_value_pointer_fn;           /* 376 */
	hsaqm_api_fn hsa_amd_svm_attributes_set_fn;             /* 384 */
	hsaqm_api_fn hsa_amd_svm_attributes_get_fn;             /* 392 */
	hsaqm_api_fn hsa_amd_svm_prefetch_async_fn;             /* 400 */
	hsaqm_api_fn hsa_amd_spm_acquire_fn;                    /* 408 */
	hsaqm_api_fn hsa_amd_spm_release_fn;                    /* 416 */
	hsaqm_api_fn hsa_amd_spm_set_dest_buffer_fn;            /* 424 */
	hsaqm_hsa_amd_queue_cu_get_mask_fn hsa_amd_queue_cu_get_mask_fn; /* 432 */
	hsaqm_api_fn hsa_amd_portable_export_dmabuf_fn;         /* 440 */
	hsaqm_api_fn hsa_amd_portable_close_dmabuf_fn;          /* 448 */
};

/*
 * AmdExtTable from ROCm 6.0 on (major 2). It only grows at the end, each addition bumping
 * step_id; a runtime's table holds the entries below its minor_id and no more. The struct
 * lists every entry up to step 0x15, the newest development layout read (2025); the
 * order past step 7 is the one rocprofiler-sdk pins in its ABI checks. Releases read:
 * 6.0 step 0 (552 bytes), 6.1 step 1 (560), 6.2 step 3 (576), 6.3 step 4 (584).
 */
struct hsaqm_amd_ext_table_v2 {
	struct hsaqm_api_table_version version;
	hsaqm_api_fn hsa_amd_coherency_get_type_fn;             /* 16 */
	hsaqm_api_fn hsa_amd_coherency_set_type_fn;             /* 24 */
	hsaqm_hsa_amd_profiling_enable_fn hsa_amd_profiling_set_profiler_enabled_fn; /* 32 */
	hsaqm_api_fn hsa_amd_profiling_async_copy_enable_fn;    /* 40 */
	hsaqm_hsa_amd_profiling_dispatch_time_fn hsa_amd_profiling_get_dispatch_time_fn; /* 48 */
	hsaqm_api_fn hsa_amd_profiling_get_async_copy_time_fn;  /* 56 */
	hsaqm_api_fn hsa_amd_profiling_convert_tick_to_system_domain_fn; /* 64 */
	hsaqm_hsa_amd_signal_async_handler_fn hsa_amd_signal_async_handler_fn; /* 72 */
	hsaqm_api_fn hsa_amd_async_function_fn;                 /* 80 */
	hsaqm_hsa_amd_signal_wait_any_fn hsa_amd_signal_wait_any_fn; /* 88 */
	hsaqm_hsa_amd_queue_cu_set_mask_fn hsa_amd_queue_cu_set_mask_fn; /* 96 */
	hsaqm_api_fn hsa_amd_memory_pool_get_info_fn;           /* 104 */
	hsaqm_api_fn hsa_amd_agent_iterate_memory_pools_fn;     /* 112 */
	hsaqm_api_fn hsa_amd_memory_pool_allocate_fn;           /* 120 */
	hsaqm_api_fn hsa_amd_memory_pool_free_fn;               /* 128 */
	hsaqm_api_fn hsa_amd_memory_async_copy_fn;              /* 136 */
	hsaqm_api_fn hsa_amd_memory_async_copy_on_engine_fn;    /* 144 */
	hsaqm_api_fn hsa_amd_memory_copy_engine_status_fn;      /* 152 */
	hsaqm_api_fn hsa_amd_agent_memory_pool_get_info_fn;     /* 160 */
	hsaqm_api_fn hsa_amd_agents_allow_access_fn;            /* 168 */
	hsaqm_api_fn hsa_amd_memory_pool_can_migrate_fn;        /* 176 */
	hsaqm_api_fn hsa_amd_memory_migrate_fn;                 /* 184 */
	hsaqm_api_fn hsa_amd_memory_lock_fn;                    /* 192 */
	hsaqm_api_fn hsa_amd_memory_unlock_fn;                  /* 200 */
	hsaqm_api_fn hsa_amd_memory_fill_fn;                    /* 208 */
	hsaqm_api_fn hsa_amd_interop_map_buffer_fn;             /* 216 */
	hsaqm_api_fn hsa_amd_interop_unmap_buffer_fn;           /* 224 */
	hsaqm_api_fn hsa_amd_image_create_fn;                   /* 232 */
	hsaqm_api_fn hsa_amd_pointer_info_fn;                   /* 240 */
	hsaqm_api_fn hsa_amd_pointer_info_set_userdata_fn;      /* 248 */
	hsaqm_api_fn hsa_amd_ipc_memory_create_fn;              /* 256 */
	hsaqm_api_fn hsa_amd_ipc_memory_attach_fn;              /* 264 */
	hsaqm_api_fn hsa_amd_ipc_memory_detach_fn;              /* 272 */
	hsaqm_api_fn hsa_amd_signal_create_fn;                  /* 280 */
	hsaqm_api_fn hsa_amd_ipc_signal_create_fn;              /* 288 */
	hsaqm_api_fn hsa_amd_ipc_signal_attach_fn;              /* 296 */
	hsaqm_api_fn hsa_amd_register_system_event_handler_fn;  /* 304 */
	hsaqm_hsa_amd_queue_intercept_create_fn hsa_amd_queue_intercept_create_fn; /* 312 */
	hsaqm_hsa_amd_queue_intercept_register_fn hsa_amd_queue_intercept_register_fn; /* 320 */
	hsaqm_hsa_amd_queue_set_priority_fn hsa_amd_queue_set_priority_fn; /* 328 */
	hsaqm_api_fn hsa_amd_memory_async_copy_rect_fn;         /* 336 */
	hsaqm_api_fn hsa_amd_runtime_queue_create_register_fn;  /* 344 */
	hsaqm_api_fn hsa_amd_memory_lock_to_pool_fn;            /* 352 */
	hsaqm_api_fn hsa_amd_register_deallocation_callback_fn; /* 360 */
	hsaqm_api_fn hsa_amd_deregister_deallocation_callback_fn; /* 368 */
	hsaqm_api_fn hsa_amd_signal_value_pointer_fn;           /* 376 */
	hsaqm_api_fn hsa_amd_svm_attributes_set_fn;             /* 384 */
	hsaqm_api_fn hsa_amd_svm_attributes_get_fn;             /* 392 */
	hsaqm_api_fn hsa_amd_svm_prefetch_async_fn;             /* 400 */
	hsaqm_api_fn hsa_amd_spm_acquire_fn;                    /* 408 */
	hsaqm_api_fn hsa_amd_spm_release_fn;                    /* 416 */
	hsaqm_api_fn hsa_amd_spm_set_dest_buffer_fn;            /* 424 */
	hsaqm_hsa_amd_queue_cu_get_mask_fn hsa_amd_queue_cu_get_mask_fn; /* 432 */
	hsaqm_api_fn hsa_amd_portable_export_dmabuf_fn;         /* 440 */
	hsaqm_api_fn hsa_amd_portable_close_dmabuf_fn;          /* 448 */
	hsaqm_api_fn hsa_amd_vmem_address_reserve_fn;           /* 456 */
	hsaqm_api_fn hsa_amd_vmem_address_free_fn;              /* 464 */
	hsaqm_api_fn hsa_amd_vmem_handle_create_fn;             /* 472 */
	hsaqm_api_fn hsa_amd_vmem_handle_release_fn;            /* 480 */
	hsaqm_api_fn hsa_amd_vmem_map_fn;                       /* 488 */
	hsaqm_api_fn hsa_amd_vmem_unmap_fn;                     /* 496 */
	hsaqm_api_fn hsa_amd_vmem_set_access_fn;                /* 504 */
	hsaqm_api_fn hsa_amd_vmem_get_access_fn;                /* 512 */
	hsaqm_api_fn hsa_amd_vmem_export_shareable_handle_fn;   /* 520 */
	hsaqm_api_fn hsa_amd_vmem_import_shareable_handle_fn;   /* 528 */
	hsaqm_api_fn hsa_amd_vmem_retain_alloc_handle_fn;       /* 536 */
	hsaqm_api_fn hsa_amd_vmem_get_alloc_properties_from_handle_fn; /* 544 */
	/* ROCm 6.1 (step 1) */
	hsaqm_api_fn hsa_amd_agent_set_async_scratch_limit_fn;  /* 552 */
	/* step 2 (ROCm 6.2 ships step 3) */
	hsaqm_hsa_amd_queue_get_info_fn hsa_amd_queue_get_info_fn; /* 560 */
	/* step 3 */
	hsaqm_api_fn hsa_amd_vmem_address_reserve_align_fn;     /* 568 */
	/* step 4 (ROCm 6.3) */
	hsaqm_api_fn hsa_amd_enable_logging_fn;                 /* 576 */
	/* step 5 */
	hsaqm_api_fn hsa_amd_signal_wait_all_fn;                /* 584 */
	/* step 6 */
	hsaqm_api_fn hsa_amd_memory_get_preferred_copy_engine_fn; /* 592 */
	/* step 7 */
	hsaqm_api_fn hsa_amd_portable_export_dmabuf_v2_fn;      /* 600 */
	/* step 8 */
	hsaqm_api_fn hsa_amd_ais_file_write_fn;                 /* 608 */
	hsaqm_api_fn hsa_amd_ais_file_read_fn;                  /* 616 */
	/* step 9 */
	hsaqm_hsa_amd_counted_queue_acquire_fn hsa_amd_counted_queue_acquire_fn; /* 624 */
	hsaqm_hsa_amd_counted_queue_release_fn hsa_amd_counted_queue_release_fn; /* 632 */
	/* step 0x0A */
	hsaqm_api_fn hsa_amd_memory_async_batch_copy_fn;        /* 640 */
	/* step 0x0B */
	hsaqm_api_fn hsa_amd_agent_preload_fn;                  /* 648 */
	/* step 0x0C */
	hsaqm_api_fn hsa_amd_svm_discard_batch_async_fn;        /* 656 */
	/* step 0x0D */
	hsaqm_api_fn hsa_amd_signal_get_event_id_fn;            /* 664 */
	/* step 0x0E */
	hsaqm_api_fn hsa_amd_external_semaphore_handle_open_fn; /* 672 */
	hsaqm_api_fn hsa_amd_external_semaphore_handle_close_fn; /* 680 */
	/* step 0x0F */
	hsaqm_api_fn hsa_amd_vmem_export_fabric_handle_fn;      /* 688 */
	hsaqm_api_fn hsa_amd_vmem_import_fabric_handle_fn;      /* 696 */
	/* step 0x10 */
	hsaqm_hsa_amd_queue_create_fn hsa_amd_queue_create_fn;  /* 704 */
	/* step 0x11 */
	hsaqm_api_fn hsa_amd_queue_signal_external_semaphore_fn; /* 712 */
	hsaqm_api_fn hsa_amd_queue_wait_external_semaphore_fn;  /* 720 */
	/* step 0x12 */
	hsaqm_api_fn hsa_amd_image_create_v2_fn;                /* 728 */
	hsaqm_api_fn hsa_amd_interop_map_buffer_with_size_fn;   /* 736 */
	/* step 0x13 */
	hsaqm_api_fn hsa_amd_svm_discard_and_prefetch_batch_async_fn; /* 744 */
	/* step 0x14 */
	hsaqm_api_fn hsa_amd_agent_set_attribute_fn;            /* 752 */
	/* step 0x15 */
	hsaqm_api_fn hsa_amd_enable_high_precision_timestamps_fn; /* 760 */
};

/*
 * ToolsApiTable (root major 3, ROCm 6.1 on; major 1, step 0 through 7.2): callbacks ROCr
 * calls when a tool set them, NULL otherwise.
 */
struct hsaqm_tools_api_table {
	struct hsaqm_api_table_version version;
	hsaqm_hsa_amd_tool_event_fn hsa_amd_tool_scratch_event_alloc_start_fn;	/* 16 */
	hsaqm_hsa_amd_tool_event_fn hsa_amd_tool_scratch_event_alloc_end_fn;	/* 24 */
	hsaqm_hsa_amd_tool_event_fn hsa_amd_tool_scratch_event_free_start_fn;	/* 32 */
	hsaqm_hsa_amd_tool_event_fn hsa_amd_tool_scratch_event_free_end_fn;	/* 40 */
	hsaqm_hsa_amd_tool_event_fn hsa_amd_tool_scratch_event_async_reclaim_start_fn; /* 48 */
	hsaqm_hsa_amd_tool_event_fn hsa_amd_tool_scratch_event_async_reclaim_end_fn; /* 56 */
};

#define HSAQM_TOOLS_API_TABLE_MAJOR 1u

/* Sizes (minor_id values) ROCr writes, per table and release. */
#define HSAQM_ROOT_SIZE_V1 48u
#define HSAQM_ROOT_SIZE_V3_ROCM_6_1 56u
#define HSAQM_ROOT_SIZE_V3_ROCM_6_2 64u
#define HSAQM_CORE_API_TABLE_SIZE 1016u
#define HSAQM_AMD_EXT_SIZE_ROCM_4_5 400u
#define HSAQM_AMD_EXT_SIZE_ROCM_5_5 424u
#define HSAQM_AMD_EXT_SIZE_ROCM_5_6 456u
#define HSAQM_AMD_EXT_SIZE_ROCM_6_0 552u
#define HSAQM_AMD_EXT_SIZE_ROCM_6_1 560u
#define HSAQM_AMD_EXT_SIZE_ROCM_6_2 576u
#define HSAQM_AMD_EXT_SIZE_ROCM_6_3 584u
#define HSAQM_AMD_EXT_SIZE_ROCM_6_4 592u
#define HSAQM_AMD_EXT_SIZE_ROCM_7_0 608u
#define HSAQM_AMD_EXT_SIZE_ROCM_7_2 624u
#define HSAQM_TOOLS_API_TABLE_SIZE 64u

/* The mirror, checked against the offsets the rest of hsaqm relies on. */
HSAQM_STATIC_ASSERT(sizeof(struct hsaqm_api_table_version) == 16, "ApiTableVersion");
HSAQM_STATIC_ASSERT(sizeof(struct hsaqm_api_root_v1) == HSAQM_ROOT_SIZE_V1, "root v1");
HSAQM_STATIC_ASSERT(sizeof(struct hsaqm_api_root_v2) == HSAQM_ROOT_SIZE_V1, "root v2");
HSAQM_STATIC_ASSERT(sizeof(struct hsaqm_api_root_v3) == HSAQM_ROOT_SIZE_V3_ROCM_6_2, "root v3");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_api_root_v3, tools) == 48, "root v3 tools");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_api_root_v3, pc_sampling_ext) == 56, "root v3 pcs");

HSAQM_STATIC_ASSERT(sizeof(struct hsaqm_core_api_table) == HSAQM_CORE_API_TABLE_SIZE,
		    "CoreApiTable: 16-byte version + 125 entries");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_core_api_table, hsa_queue_create_fn) == 72,
		    "CoreApiTable.hsa_queue_create_fn");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_core_api_table, hsa_queue_add_write_index_screlease_fn) ==
			    208, "CoreApiTable.hsa_queue_add_write_index_screlease_fn");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_core_api_table, hsa_signal_store_screlease_fn) == 352,
		    "CoreApiTable.hsa_signal_store_screlease_fn");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_core_api_table, hsa_signal_silent_store_screlease_fn) ==
			    840, "CoreApiTable.hsa_signal_silent_store_screlease_fn");

HSAQM_STATIC_ASSERT(sizeof(struct hsaqm_tools_api_table) == HSAQM_TOOLS_API_TABLE_SIZE,
		    "ToolsApiTable: version + 6 events");

HSAQM_STATIC_ASSERT(sizeof(struct hsaqm_amd_ext_table_4_5) == HSAQM_AMD_EXT_SIZE_ROCM_4_5,
		    "AmdExtTable 4.5-5.4");
HSAQM_STATIC_ASSERT(sizeof(struct hsaqm_amd_ext_table_5_5) == HSAQM_AMD_EXT_SIZE_ROCM_5_5,
		    "AmdExtTable 5.5");
HSAQM_STATIC_ASSERT(sizeof(struct hsaqm_amd_ext_table_5_6) == HSAQM_AMD_EXT_SIZE_ROCM_5_6,
		    "AmdExtTable 5.6-5.7");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_ext_table_v2,
			     hsa_amd_agent_set_async_scratch_limit_fn) ==
			    HSAQM_AMD_EXT_SIZE_ROCM_6_0,
		    "AmdExtTable 6.0 ends before 6.1's entry");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_ext_table_v2, hsa_amd_enable_logging_fn) ==
			    HSAQM_AMD_EXT_SIZE_ROCM_6_2, "AmdExtTable 6.2 ends before 6.3's entry");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_ext_table_v2, hsa_amd_signal_wait_all_fn) ==
			    HSAQM_AMD_EXT_SIZE_ROCM_6_3, "AmdExtTable 6.3 ends before 6.4's entry");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_ext_table_v2,
			     hsa_amd_memory_get_preferred_copy_engine_fn) == HSAQM_AMD_EXT_SIZE_ROCM_6_4,
		    "AmdExtTable 6.4 ends before step 6");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_ext_table_v2, hsa_amd_ais_file_write_fn) ==
			    HSAQM_AMD_EXT_SIZE_ROCM_7_0, "AmdExtTable 7.0 ends before step 8");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_ext_table_v2, hsa_amd_counted_queue_acquire_fn) ==
			    HSAQM_AMD_EXT_SIZE_ROCM_7_2, "AmdExtTable 7.2 ends before step 9");
HSAQM_STATIC_ASSERT(sizeof(struct hsaqm_amd_ext_table_v2) == 768, "AmdExtTable step 0x15");

/* queue_cu_set_mask never moved; the intercept and priority entries moved by 16 at 5.6. */
#define HSAQM_CHECK_AMD_OFFSET(type, field, off) \
	HSAQM_STATIC_ASSERT(offsetof(struct type, field) == (off), #type "." #field)
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_4_5, hsa_amd_queue_cu_set_mask_fn, 96);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_5_5, hsa_amd_queue_cu_set_mask_fn, 96);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_5_6, hsa_amd_queue_cu_set_mask_fn, 96);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_v2, hsa_amd_queue_cu_set_mask_fn, 96);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_4_5, hsa_amd_queue_intercept_create_fn, 296);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_4_5, hsa_amd_queue_intercept_register_fn, 304);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_4_5, hsa_amd_queue_set_priority_fn, 312);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_5_5, hsa_amd_queue_intercept_create_fn, 296);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_5_5, hsa_amd_queue_intercept_register_fn, 304);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_5_5, hsa_amd_queue_set_priority_fn, 312);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_5_6, hsa_amd_queue_intercept_create_fn, 312);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_5_6, hsa_amd_queue_intercept_register_fn, 320);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_5_6, hsa_amd_queue_set_priority_fn, 328);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_v2, hsa_amd_queue_intercept_create_fn, 312);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_v2, hsa_amd_queue_intercept_register_fn, 320);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_v2, hsa_amd_queue_set_priority_fn, 328);
/* cu_get_mask moved at 5.5 (SPM entries before it) and at 5.6 (copy-engine entries). */
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_4_5, hsa_amd_queue_cu_get_mask_fn, 392);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_5_5, hsa_amd_queue_cu_get_mask_fn, 416);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_5_6, hsa_amd_queue_cu_get_mask_fn, 432);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_v2, hsa_amd_queue_cu_get_mask_fn, 432);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_v2, hsa_amd_queue_get_info_fn, 560);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_v2, hsa_amd_counted_queue_acquire_fn, 624);
HSAQM_CHECK_AMD_OFFSET(hsaqm_amd_ext_table_v2, hsa_amd_queue_create_fn, 704);

/* ---- The detector ---------------------------------------------------------------------- */

/*
 * The layouts the detector knows: where the entries are. Every root-3 table has the same
 * offsets (entries are only appended), so one id covers ROCm 6.1 to 7.2 and development
 * builds; which release a table comes from is enum hsaqm_api_release.
 */
enum hsaqm_api_layout_id {
	HSAQM_API_LAYOUT_UNKNOWN = 0,
	HSAQM_API_LAYOUT_ROCM_4_5,	/* root 1, AmdExt 400: ROCm 4.5 - 5.4 */
	HSAQM_API_LAYOUT_ROCM_5_5,	/* root 1, AmdExt 424 */
	HSAQM_API_LAYOUT_ROCM_5_6,	/* root 1, AmdExt 456: ROCm 5.6 - 5.7 */
	HSAQM_API_LAYOUT_ROCM_6_0,	/* root 2 */
	HSAQM_API_LAYOUT_ROCM_6_1,	/* root 3: ROCm 6.1 and later */
	HSAQM_API_LAYOUT_COUNT,
};

/*
 * The ROCm release whose tables a runtime's match exactly: the version headers (root
 * major, size and step; CoreApiTable and AmdExtTable sizes and steps) as that release's
 * ROCr writes them. Each was read from that release's headers (docs/hsa-api-tables.md
 * names them); a release not listed with the same tables as a listed one (7.1, if it kept
 * 7.0's or 7.2's table) is named after the listed one. UNKNOWN: a layout hsaqm knows whose
 * headers no release had, such as a development build's AmdExt step.
 */
enum hsaqm_api_release {
	HSAQM_API_RELEASE_UNKNOWN = 0,
	HSAQM_API_RELEASE_ROCM_4_5,	/* 4.5 - 5.4 share one table (Debian 12: 5.2.3) */
	HSAQM_API_RELEASE_ROCM_5_5,
	HSAQM_API_RELEASE_ROCM_5_6,	/* 5.6 - 5.7 */
	HSAQM_API_RELEASE_ROCM_6_0,
	HSAQM_API_RELEASE_ROCM_6_1,	/* Debian 13: 6.1.2 */
	HSAQM_API_RELEASE_ROCM_6_2,
	HSAQM_API_RELEASE_ROCM_6_3,
	HSAQM_API_RELEASE_ROCM_6_4,	/* Debian sid: 6.4.3 */
	HSAQM_API_RELEASE_ROCM_7_0,
	HSAQM_API_RELEASE_ROCM_7_2,	/* Debian experimental: 7.2.4 */
	HSAQM_API_RELEASE_COUNT,
};

/* The sub-table an entry lives in. */
enum hsaqm_api_subtable {
	HSAQM_API_TABLE_NONE = 0,
	HSAQM_API_TABLE_CORE,
	HSAQM_API_TABLE_AMD_EXT,
	HSAQM_API_TABLE_TOOLS,		/* root major 3 only, when tools_ is set */
};

/*
 * The entries hsaqm calls or wraps. The tool wraps every function that takes a queue or
 * may store to a proxy queue's doorbell signal, and calls the signal functions itself.
 */
enum hsaqm_api_entry {
	/* CoreApiTable */
	HSAQM_API_HSA_INIT = 0,
	HSAQM_API_HSA_SHUT_DOWN,
	HSAQM_API_SYSTEM_GET_INFO,
	HSAQM_API_ITERATE_AGENTS,
	HSAQM_API_AGENT_GET_INFO,
	HSAQM_API_QUEUE_CREATE,
	HSAQM_API_QUEUE_DESTROY,
	HSAQM_API_QUEUE_INACTIVATE,
	HSAQM_API_QUEUE_LOAD_READ_INDEX_SCACQUIRE,
	HSAQM_API_QUEUE_LOAD_READ_INDEX_RELAXED,
	HSAQM_API_QUEUE_LOAD_WRITE_INDEX_SCACQUIRE,
	HSAQM_API_QUEUE_LOAD_WRITE_INDEX_RELAXED,
	HSAQM_API_QUEUE_STORE_WRITE_INDEX_RELAXED,
	HSAQM_API_QUEUE_STORE_WRITE_INDEX_SCRELEASE,
	HSAQM_API_QUEUE_CAS_WRITE_INDEX_SCACQ_SCREL,
	HSAQM_API_QUEUE_CAS_WRITE_INDEX_SCACQUIRE,
	HSAQM_API_QUEUE_CAS_WRITE_INDEX_RELAXED,
	HSAQM_API_QUEUE_CAS_WRITE_INDEX_SCRELEASE,
	HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCACQ_SCREL,
	HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCACQUIRE,
	HSAQM_API_QUEUE_ADD_WRITE_INDEX_RELAXED,
	HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCRELEASE,
	HSAQM_API_QUEUE_STORE_READ_INDEX_RELAXED,
	HSAQM_API_QUEUE_STORE_READ_INDEX_SCRELEASE,
	HSAQM_API_SIGNAL_CREATE,
	HSAQM_API_SIGNAL_DESTROY,
	HSAQM_API_SIGNAL_LOAD_RELAXED,
	HSAQM_API_SIGNAL_LOAD_SCACQUIRE,
	HSAQM_API_SIGNAL_STORE_RELAXED,
	HSAQM_API_SIGNAL_STORE_SCRELEASE,
	HSAQM_API_SIGNAL_SILENT_STORE_RELAXED,
	HSAQM_API_SIGNAL_SILENT_STORE_SCRELEASE,
	HSAQM_API_SIGNAL_WAIT_RELAXED,
	HSAQM_API_SIGNAL_WAIT_SCACQUIRE,
	HSAQM_API_SIGNAL_AND_RELAXED,
	HSAQM_API_SIGNAL_AND_SCACQUIRE,
	HSAQM_API_SIGNAL_AND_SCRELEASE,
	HSAQM_API_SIGNAL_AND_SCACQ_SCREL,
	HSAQM_API_SIGNAL_OR_RELAXED,
	HSAQM_API_SIGNAL_OR_SCACQUIRE,
	HSAQM_API_SIGNAL_OR_SCRELEASE,
	HSAQM_API_SIGNAL_OR_SCACQ_SCREL,
	HSAQM_API_SIGNAL_XOR_RELAXED,
	HSAQM_API_SIGNAL_XOR_SCACQUIRE,
	HSAQM_API_SIGNAL_XOR_SCRELEASE,
	HSAQM_API_SIGNAL_XOR_SCACQ_SCREL,
	HSAQM_API_SIGNAL_EXCHANGE_RELAXED,
	HSAQM_API_SIGNAL_EXCHANGE_SCACQUIRE,
	HSAQM_API_SIGNAL_EXCHANGE_SCRELEASE,
	HSAQM_API_SIGNAL_EXCHANGE_SCACQ_SCREL,
	HSAQM_API_SIGNAL_ADD_RELAXED,
	HSAQM_API_SIGNAL_ADD_SCACQUIRE,
	HSAQM_API_SIGNAL_ADD_SCRELEASE,
	HSAQM_API_SIGNAL_ADD_SCACQ_SCREL,
	HSAQM_API_SIGNAL_SUBTRACT_RELAXED,
	HSAQM_API_SIGNAL_SUBTRACT_SCACQUIRE,
	HSAQM_API_SIGNAL_SUBTRACT_SCRELEASE,
	HSAQM_API_SIGNAL_SUBTRACT_SCACQ_SCREL,
	HSAQM_API_SIGNAL_CAS_RELAXED,
	HSAQM_API_SIGNAL_CAS_SCACQUIRE,
	HSAQM_API_SIGNAL_CAS_SCRELEASE,
	HSAQM_API_SIGNAL_CAS_SCACQ_SCREL,
	/*
	 * Executables: the recorder (HSAQM_RECORD) wraps freeze to learn each kernel object's
	 * name from the executable's symbols (docs/replay.md "Kernel names").
	 */
	HSAQM_API_EXECUTABLE_FREEZE,
	HSAQM_API_EXECUTABLE_SYMBOL_GET_INFO,
	HSAQM_API_EXECUTABLE_ITERATE_SYMBOLS,
	/* AmdExtTable, in every known layout */
	HSAQM_API_AMD_PROFILING_SET_PROFILER_ENABLED,
	HSAQM_API_AMD_PROFILING_GET_DISPATCH_TIME,
	HSAQM_API_AMD_SIGNAL_ASYNC_HANDLER,
	HSAQM_API_AMD_SIGNAL_WAIT_ANY,
	HSAQM_API_AMD_QUEUE_CU_SET_MASK,
	HSAQM_API_AMD_QUEUE_INTERCEPT_CREATE,
	HSAQM_API_AMD_QUEUE_INTERCEPT_REGISTER,
	HSAQM_API_AMD_QUEUE_SET_PRIORITY,
	HSAQM_API_AMD_QUEUE_CU_GET_MASK,
	/* AmdExtTable, major 2 only, present when the runtime's table reaches them */
	HSAQM_API_AMD_QUEUE_GET_INFO,		/* step >= 2 (ROCm 6.2) */
	HSAQM_API_AMD_COUNTED_QUEUE_ACQUIRE,	/* step >= 9 (development builds) */
	HSAQM_API_AMD_COUNTED_QUEUE_RELEASE,	/* step >= 9 */
	/*
	 * Descriptor-based queue creation, step >= 0x10 (development builds; HIP creates its
	 * queues with it where present). One branch of ROCr put another function at this
	 * offset, so before replacing this slot a tool must also confirm that the runtime
	 * library exports hsa_amd_queue_create (dlsym): that is what tells the two apart.
	 */
	HSAQM_API_AMD_QUEUE_CREATE,
	/*
	 * ToolsApiTable (ROCm >= 6.1): the events after which a hardware queue's scratch
	 * fields are new, so a proxy's mirror of them is out of date. ROCr leaves them NULL
	 * unless a tool sets them.
	 */
	HSAQM_API_TOOLS_SCRATCH_ALLOC_END,
	HSAQM_API_TOOLS_SCRATCH_FREE_END,
	HSAQM_API_TOOLS_SCRATCH_ASYNC_RECLAIM_END,
	HSAQM_API_ENTRY_COUNT,
};

/* Where one entry is in the detected layout. */
struct hsaqm_api_entry_loc {
	bool present;		/* inside its sub-table in this runtime */
	uint8_t table;		/* enum hsaqm_api_subtable */
	uint32_t offset;	/* byte offset in that sub-table (0 when absent) */
};

/* What hsaqm_api_table_detect() found. */
struct hsaqm_api_layout {
	enum hsaqm_api_layout_id id;
	enum hsaqm_api_release release;
	/* The release's name ("rocm-6.4") when known, else hsaqm_api_layout_name(id). */
	const char *name;
	/*
	 * The size of the queue descriptor this runtime's ROCr puts before its queue object
	 * pointer (hsaqm-hsa/hsa_abi.h, HSAQM_ROCR_QUEUE_OBJECT_OFFSET_*): 256 up to ROCm 6.3,
	 * 2304 from 6.4 (by the AmdExt step where no release matches; a development build
	 * of step 5 older than February 2025 had 256 with 6.4's headers). Informative: a
	 * proxy queue is safe under either.
	 */
	uint32_t queue_desc_size;
	uint64_t runtime_version;	/* what OnLoad received (ROCr passes the root major) */
	struct hsaqm_api_table_version root;	/* the version headers as read */
	struct hsaqm_api_table_version core;
	struct hsaqm_api_table_version amd_ext;
	struct hsaqm_api_table_version tools;	/* zero when the root has no ToolsApiTable */
	struct hsaqm_api_entry_loc entry[HSAQM_API_ENTRY_COUNT];
};

/*
 * Identify the layout of a live root table (the HsaApiTable OnLoad received) and locate
 * every entry of enum hsaqm_api_entry.
 *
 * Reads only the version headers (root, core, AMD extension, and under root major 3 the
 * ToolsApiTable's) and the root's pointers to those tables, each after checking it lies
 * inside the size its header declares; never a function pointer. A ToolsApiTable that is
 * missing or of another major only makes its entries absent.
 * Root major 1 (ROCm <= 5.7) is matched on exact sub-table sizes, because entries were
 * inserted there without a version change; majors 2 and 3 accept any sub-table at least
 * as large as the first release of their era, and an entry that lies past minor_id (or was
 * added at a later step_id than the table reports) is reported absent.
 * runtime_version is recorded and compared with the root major (what ROCr passes) only to
 * log a mismatch: the table's own header decides.
 *
 * The release (and with it the name) is the ROCm release whose version headers match the
 * table's exactly, or UNKNOWN with the layout's name.
 *
 * Returns 0 and fills *out; -EINVAL if root_table or out is NULL; -ENOTSUP if the layout
 * is not one hsaqm knows: unknown root major, a root too small to hold the core and
 * amd_ext pointers, a NULL core or amd_ext pointer, a sub-table major that does not match
 * the root's, a sub-table smaller than the minimum of its era, or a major-1 sub-table
 * whose size no ROCm release had. On error *out is zeroed (id HSAQM_API_LAYOUT_UNKNOWN,
 * every entry absent) except the version headers that were read.
 */
int hsaqm_api_table_detect(const void *root_table, uint64_t runtime_version,
			   struct hsaqm_api_layout *out);

/*
 * Address of entry e's slot in the table root_table points to, laid out as l says (l
 * from hsaqm_api_table_detect() on this same root_table), so a tool can save the
 * runtime's function and store its own. Replace slots only from OnLoad, before the
 * runtime lets other threads call through the table.
 *
 * Returns the slot, or NULL if root_table or l is NULL, l is of an unknown layout, e is
 * out of range, or e is absent from this runtime's table.
 */
void **hsaqm_api_table_slot(void *root_table, const struct hsaqm_api_layout *l,
			    enum hsaqm_api_entry e);

/* The HSA function name of entry e ("hsa_queue_create"), or "(invalid entry)" if out of range. */
const char *hsaqm_api_entry_name(enum hsaqm_api_entry e);

/* A short name for layout id ("rocm-5.6-5.7"); "unknown" for anything else. */
const char *hsaqm_api_layout_name(enum hsaqm_api_layout_id id);

/* A short name for release r ("rocm-7.2"); "unknown" for anything else. */
const char *hsaqm_api_release_name(enum hsaqm_api_release r);

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_API_TABLE_H */
