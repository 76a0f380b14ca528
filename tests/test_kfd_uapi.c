/* SPDX-License-Identifier: MIT */
/*
 * hsaqm's own KFD uapi definitions match the system's <linux/kfd_ioctl.h> wherever both define
 * a struct, field or request number, and the debugger-API constants have their published values.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hsaqm-kfd/kfd.h"
#include "hsaqm-kfd/kfd_uapi.h"
#include "t_cunit.h"

#ifdef HSAQM_HAVE_SYSTEM_KFD_IOCTL
#include <linux/kfd_ioctl.h>
#include <linux/kfd_sysfs.h>
#endif

#define SAME_FIELD(ours, theirs, field)                                              \
	do {                                                                         \
		CU_ASSERT_EQUAL(offsetof(struct ours, field), offsetof(struct theirs, field)); \
		CU_ASSERT_EQUAL(sizeof(((struct ours *)0)->field),                   \
				sizeof(((struct theirs *)0)->field));                \
	} while (0)

#ifdef HSAQM_HAVE_SYSTEM_KFD_IOCTL

static void test_uapi_system_header_is_version_1(void)
{
	printf("\n  system kfd_ioctl.h: %d.%d\n", KFD_IOCTL_MAJOR_VERSION, KFD_IOCTL_MINOR_VERSION);
	CU_ASSERT_EQUAL(KFD_IOCTL_MAJOR_VERSION, 1);
}

static void test_uapi_get_version_matches_system(void)
{
	CU_ASSERT_EQUAL(sizeof(struct hsaqm_kfd_get_version_args),
			sizeof(struct kfd_ioctl_get_version_args));
	SAME_FIELD(hsaqm_kfd_get_version_args, kfd_ioctl_get_version_args, major_version);
	SAME_FIELD(hsaqm_kfd_get_version_args, kfd_ioctl_get_version_args, minor_version);
	CU_ASSERT_EQUAL(HSAQM_KFD_IOC_GET_VERSION, AMDKFD_IOC_GET_VERSION);
}

static void test_uapi_create_queue_matches_system(void)
{
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args, ring_base_address);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args,
		   write_pointer_address);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args,
		   read_pointer_address);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args, doorbell_offset);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args, ring_size);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args, gpu_id);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args, queue_type);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args, queue_percentage);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args, queue_priority);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args, queue_id);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args, eop_buffer_address);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args, eop_buffer_size);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args,
		   ctx_save_restore_address);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args,
		   ctx_save_restore_size);
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args, ctl_stack_size);
#if KFD_IOCTL_MINOR_VERSION >= 17
	SAME_FIELD(hsaqm_kfd_create_queue_args, kfd_ioctl_create_queue_args, sdma_engine_id);
	CU_ASSERT_EQUAL(sizeof(struct hsaqm_kfd_create_queue_args),
			sizeof(struct kfd_ioctl_create_queue_args));
	CU_ASSERT_EQUAL(HSAQM_KFD_IOC_CREATE_QUEUE, AMDKFD_IOC_CREATE_QUEUE);
#else
	/* An older header has the 88-byte struct and request number hsaqm sends to old KFDs. */
	CU_ASSERT_EQUAL(HSAQM_KFD_CREATE_QUEUE_ARGS_SIZE_1_11,
			sizeof(struct kfd_ioctl_create_queue_args));
	CU_ASSERT_EQUAL(HSAQM_KFD_IOC_CREATE_QUEUE_1_11, AMDKFD_IOC_CREATE_QUEUE);
	CU_ASSERT_NOT_EQUAL(HSAQM_KFD_IOC_CREATE_QUEUE, AMDKFD_IOC_CREATE_QUEUE);
#endif
	CU_ASSERT_EQUAL(HSAQM_KFD_QUEUE_TYPE_COMPUTE, KFD_IOC_QUEUE_TYPE_COMPUTE);
	CU_ASSERT_EQUAL(HSAQM_KFD_QUEUE_TYPE_SDMA, KFD_IOC_QUEUE_TYPE_SDMA);
	CU_ASSERT_EQUAL(HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
	CU_ASSERT_EQUAL(HSAQM_KFD_QUEUE_TYPE_SDMA_XGMI, KFD_IOC_QUEUE_TYPE_SDMA_XGMI);
	CU_ASSERT_EQUAL(HSAQM_KFD_MAX_QUEUE_PERCENTAGE, KFD_MAX_QUEUE_PERCENTAGE);
	CU_ASSERT_EQUAL(HSAQM_KFD_MAX_QUEUE_PRIORITY, KFD_MAX_QUEUE_PRIORITY);
}

static void test_uapi_destroy_update_queue_match_system(void)
{
	CU_ASSERT_EQUAL(sizeof(struct hsaqm_kfd_destroy_queue_args),
			sizeof(struct kfd_ioctl_destroy_queue_args));
	SAME_FIELD(hsaqm_kfd_destroy_queue_args, kfd_ioctl_destroy_queue_args, queue_id);
	CU_ASSERT_EQUAL(HSAQM_KFD_IOC_DESTROY_QUEUE, AMDKFD_IOC_DESTROY_QUEUE);

	CU_ASSERT_EQUAL(sizeof(struct hsaqm_kfd_update_queue_args),
			sizeof(struct kfd_ioctl_update_queue_args));
	SAME_FIELD(hsaqm_kfd_update_queue_args, kfd_ioctl_update_queue_args, ring_base_address);
	SAME_FIELD(hsaqm_kfd_update_queue_args, kfd_ioctl_update_queue_args, queue_id);
	SAME_FIELD(hsaqm_kfd_update_queue_args, kfd_ioctl_update_queue_args, ring_size);
	SAME_FIELD(hsaqm_kfd_update_queue_args, kfd_ioctl_update_queue_args, queue_percentage);
	SAME_FIELD(hsaqm_kfd_update_queue_args, kfd_ioctl_update_queue_args, queue_priority);
	CU_ASSERT_EQUAL(HSAQM_KFD_IOC_UPDATE_QUEUE, AMDKFD_IOC_UPDATE_QUEUE);
}

static void test_uapi_cu_mask_and_wave_state_match_system(void)
{
	CU_ASSERT_EQUAL(sizeof(struct hsaqm_kfd_set_cu_mask_args),
			sizeof(struct kfd_ioctl_set_cu_mask_args));
	SAME_FIELD(hsaqm_kfd_set_cu_mask_args, kfd_ioctl_set_cu_mask_args, queue_id);
	SAME_FIELD(hsaqm_kfd_set_cu_mask_args, kfd_ioctl_set_cu_mask_args, num_cu_mask);
	SAME_FIELD(hsaqm_kfd_set_cu_mask_args, kfd_ioctl_set_cu_mask_args, cu_mask_ptr);
	CU_ASSERT_EQUAL(HSAQM_KFD_IOC_SET_CU_MASK, AMDKFD_IOC_SET_CU_MASK);

	CU_ASSERT_EQUAL(sizeof(struct hsaqm_kfd_get_queue_wave_state_args),
			sizeof(struct kfd_ioctl_get_queue_wave_state_args));
	SAME_FIELD(hsaqm_kfd_get_queue_wave_state_args, kfd_ioctl_get_queue_wave_state_args,
		   ctl_stack_address);
	SAME_FIELD(hsaqm_kfd_get_queue_wave_state_args, kfd_ioctl_get_queue_wave_state_args,
		   ctl_stack_used_size);
	SAME_FIELD(hsaqm_kfd_get_queue_wave_state_args, kfd_ioctl_get_queue_wave_state_args,
		   save_area_used_size);
	SAME_FIELD(hsaqm_kfd_get_queue_wave_state_args, kfd_ioctl_get_queue_wave_state_args,
		   queue_id);
	CU_ASSERT_EQUAL(HSAQM_KFD_IOC_GET_QUEUE_WAVE_STATE, AMDKFD_IOC_GET_QUEUE_WAVE_STATE);
}

static void test_uapi_capability_bits_match_system(void)
{
	unsigned int compared = 0;

#define SAME_CAP(name)                                                   \
	do {                                                             \
		CU_ASSERT_EQUAL(HSAQM_KFD_CAP_##name, (uint32_t)HSA_CAP_##name); \
		compared++;                                              \
	} while (0)
	SAME_CAP(HOT_PLUGGABLE);
	SAME_CAP(ATS_PRESENT);
	SAME_CAP(SHARED_WITH_GRAPHICS);
	SAME_CAP(QUEUE_SIZE_POW2);
	SAME_CAP(QUEUE_SIZE_32BIT);
	SAME_CAP(QUEUE_IDLE_EVENT);
	SAME_CAP(VA_LIMIT);
	SAME_CAP(WATCH_POINTS_SUPPORTED);
	SAME_CAP(WATCH_POINTS_TOTALBITS_MASK);
	SAME_CAP(DOORBELL_TYPE_TOTALBITS_MASK);
	SAME_CAP(AQL_QUEUE_DOUBLE_MAP);
	SAME_CAP(MEM_EDCSUPPORTED);
	SAME_CAP(RASEVENTNOTIFY);
	SAME_CAP(ASIC_REVISION_MASK);
	SAME_CAP(SRAM_EDCSUPPORTED);
	SAME_CAP(SVMAPI_SUPPORTED);
	SAME_CAP(FLAGS_COHERENTHOSTACCESS);
#ifdef HSA_CAP_TRAP_DEBUG_SUPPORT
	SAME_CAP(TRAP_DEBUG_SUPPORT);
	SAME_CAP(TRAP_DEBUG_WAVE_LAUNCH_TRAP_OVERRIDE_SUPPORTED);
	SAME_CAP(TRAP_DEBUG_WAVE_LAUNCH_MODE_SUPPORTED);
	SAME_CAP(TRAP_DEBUG_PRECISE_MEMORY_OPERATIONS_SUPPORTED);
#endif
#ifdef HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED
	SAME_CAP(TRAP_DEBUG_FIRMWARE_SUPPORTED);
#endif
#ifdef HSA_CAP_PER_QUEUE_RESET_SUPPORTED
	SAME_CAP(PER_QUEUE_RESET_SUPPORTED);
#endif
#undef SAME_CAP
	printf("\n  %u capability definitions compared\n", compared);
	CU_ASSERT(compared >= 17);
}

#if KFD_IOCTL_MINOR_VERSION >= 13
/* Only a 1.13+ system header has the debugger API to compare against. */
static void test_uapi_debugger_api_matches_system(void)
{
	CU_ASSERT_EQUAL(sizeof(struct hsaqm_kfd_runtime_enable_args),
			sizeof(struct kfd_ioctl_runtime_enable_args));
	CU_ASSERT_EQUAL(sizeof(struct hsaqm_kfd_dbg_trap_args),
			sizeof(struct kfd_ioctl_dbg_trap_args));
	CU_ASSERT_EQUAL(sizeof(struct hsaqm_kfd_queue_snapshot_entry),
			sizeof(struct kfd_queue_snapshot_entry));
	CU_ASSERT_EQUAL(sizeof(struct hsaqm_kfd_dbg_trap_suspend_queues_args),
			sizeof(struct kfd_ioctl_dbg_trap_suspend_queues_args));
	CU_ASSERT_EQUAL(HSAQM_KFD_IOC_RUNTIME_ENABLE, AMDKFD_IOC_RUNTIME_ENABLE);
	CU_ASSERT_EQUAL(HSAQM_KFD_IOC_DBG_TRAP, AMDKFD_IOC_DBG_TRAP);
	CU_ASSERT_EQUAL(HSAQM_KFD_DBG_TRAP_SUSPEND_QUEUES, KFD_IOC_DBG_TRAP_SUSPEND_QUEUES);
	CU_ASSERT_EQUAL(HSAQM_KFD_DBG_TRAP_GET_DEVICE_SNAPSHOT,
			KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT);
	CU_ASSERT_EQUAL(HSAQM_KFD_EC_QUEUE_NEW, EC_QUEUE_NEW);
	CU_ASSERT_EQUAL(HSAQM_KFD_DBG_QUEUE_INVALID_MASK, (uint32_t)KFD_DBG_QUEUE_INVALID_MASK);
}
#endif

#endif /* HSAQM_HAVE_SYSTEM_KFD_IOCTL */

/* Values from the uapi itself, checked whatever the system header. */
static void test_uapi_debugger_constants_have_published_values(void)
{
	/* Request numbers: direction, 'K', number and argument size. */
	CU_ASSERT_EQUAL(HSAQM_KFD_IOC_NR(HSAQM_KFD_IOC_RUNTIME_ENABLE), 0x25);
	CU_ASSERT_EQUAL(HSAQM_KFD_IOC_NR(HSAQM_KFD_IOC_DBG_TRAP), 0x26);
	CU_ASSERT_EQUAL(_IOC_SIZE(HSAQM_KFD_IOC_DBG_TRAP), 32);
	CU_ASSERT_EQUAL(_IOC_DIR(HSAQM_KFD_IOC_DBG_TRAP), _IOC_READ | _IOC_WRITE);
	CU_ASSERT_EQUAL(_IOC_TYPE(HSAQM_KFD_IOC_DBG_TRAP), 'K');
	CU_ASSERT_EQUAL(_IOC_SIZE(HSAQM_KFD_IOC_CREATE_QUEUE), 96);
	CU_ASSERT_EQUAL(_IOC_SIZE(HSAQM_KFD_IOC_CREATE_QUEUE_1_11), 88);
	/* hardware-facts.md: the DBG_TRAP operations by number. */
	CU_ASSERT_EQUAL(HSAQM_KFD_DBG_TRAP_ENABLE, 0);
	CU_ASSERT_EQUAL(HSAQM_KFD_DBG_TRAP_DISABLE, 1);
	CU_ASSERT_EQUAL(HSAQM_KFD_DBG_TRAP_SUSPEND_QUEUES, 6);
	CU_ASSERT_EQUAL(HSAQM_KFD_DBG_TRAP_RESUME_QUEUES, 7);
	CU_ASSERT_EQUAL(HSAQM_KFD_DBG_TRAP_QUERY_DEBUG_EVENT, 11);
	CU_ASSERT_EQUAL(HSAQM_KFD_DBG_TRAP_GET_QUEUE_SNAPSHOT, 13);
	CU_ASSERT_EQUAL(HSAQM_KFD_DBG_TRAP_GET_DEVICE_SNAPSHOT, 14);
	/* Exception masks: code N is bit N-1. */
	CU_ASSERT_EQUAL(HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW), 1ull << 30);
	CU_ASSERT_EQUAL(HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_PROCESS_RUNTIME), 1ull << 47);
	CU_ASSERT(HSAQM_KFD_EC_MASK_QUEUE & HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW));
	CU_ASSERT_EQUAL(HSAQM_KFD_EC_MASK_QUEUE & HSAQM_KFD_EC_MASK_DEVICE, 0);
	CU_ASSERT_EQUAL(HSAQM_KFD_EC_MASK_DEVICE & HSAQM_KFD_EC_MASK_PROCESS, 0);
	/* Per-entry result bits of suspend/resume. */
	CU_ASSERT_EQUAL(HSAQM_KFD_DBG_QUEUE_ERROR_MASK, 0x40000000u);
	CU_ASSERT_EQUAL(HSAQM_KFD_DBG_QUEUE_INVALID_MASK, 0x80000000u);
	CU_ASSERT_EQUAL(HSAQM_KFD_RUNTIME_STATE_ENABLED_ERROR, 3);
	/* Capability bits hardware-facts.md names. */
	CU_ASSERT_EQUAL(HSAQM_KFD_CAP_TRAP_DEBUG_SUPPORT, 0x8000u);
	CU_ASSERT_EQUAL(HSAQM_KFD_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED, 0x20000000u);
	CU_ASSERT_EQUAL(HSAQM_KFD_CAP_PER_QUEUE_RESET_SUPPORTED, 0x80000000u);
}

static void test_uapi_entry_helpers_decode_result_bits(void)
{
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_status(7), HSAQM_KFD_DBG_ENTRY_OK);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_status(7 | HSAQM_KFD_DBG_QUEUE_ERROR_MASK),
			HSAQM_KFD_DBG_ENTRY_ERROR);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_status(7 | HSAQM_KFD_DBG_QUEUE_INVALID_MASK),
			HSAQM_KFD_DBG_ENTRY_INVALID);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_status(7 | HSAQM_KFD_DBG_QUEUE_INVALID_MASK |
						   HSAQM_KFD_DBG_QUEUE_ERROR_MASK),
			HSAQM_KFD_DBG_ENTRY_INVALID);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_queue_id(7 | HSAQM_KFD_DBG_QUEUE_INVALID_MASK |
						     HSAQM_KFD_DBG_QUEUE_ERROR_MASK),
			7);
}

static void test_uapi_exception_names(void)
{
	CU_ASSERT_STRING_EQUAL(hsaqm_kfd_ec_name(HSAQM_KFD_EC_QUEUE_NEW), "QUEUE_NEW");
	CU_ASSERT_STRING_EQUAL(hsaqm_kfd_ec_name(HSAQM_KFD_EC_DEVICE_MEMORY_VIOLATION),
			       "DEVICE_MEMORY_VIOLATION");
	CU_ASSERT_STRING_EQUAL(hsaqm_kfd_ec_name(HSAQM_KFD_EC_PROCESS_RUNTIME), "PROCESS_RUNTIME");
	CU_ASSERT_STRING_EQUAL(hsaqm_kfd_ec_name(7), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(hsaqm_kfd_ec_name(-1), "UNKNOWN");
}

static const struct t_case uapi_cases[] = {
#ifdef HSAQM_HAVE_SYSTEM_KFD_IOCTL
	T_CASE(test_uapi_system_header_is_version_1),
	T_CASE(test_uapi_get_version_matches_system),
	T_CASE(test_uapi_create_queue_matches_system),
	T_CASE(test_uapi_destroy_update_queue_match_system),
	T_CASE(test_uapi_cu_mask_and_wave_state_match_system),
	T_CASE(test_uapi_capability_bits_match_system),
#if KFD_IOCTL_MINOR_VERSION >= 13
	T_CASE(test_uapi_debugger_api_matches_system),
#endif
#endif
	T_CASE(test_uapi_debugger_constants_have_published_values),
	T_CASE(test_uapi_entry_helpers_decode_result_bits),
	T_CASE(test_uapi_exception_names),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "kfd-uapi", NULL, NULL, uapi_cases },
		T_SUITES_END,
	};

#ifndef HSAQM_HAVE_SYSTEM_KFD_IOCTL
	printf("kfd-uapi: no usable <linux/kfd_ioctl.h>: only hsaqm's own values are checked\n");
#endif
	return t_run("kfd-uapi", suites);
}
