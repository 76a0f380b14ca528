/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-kfd/kfd_uapi.h - the part of the amdkfd user ABI (linux/kfd_ioctl.h and linux/kfd_sysfs.h)
 * that hsaqm uses, under hsaqm's own names.
 *
 * Why not include <linux/kfd_ioctl.h>: the headers distributions ship lag the kernels people
 * run (Debian 12 ships 1.11, which has no debugger API, while an MI300 node runs 1.15-1.18), and
 * the same names defined twice with different layouts would not compile. Every name here is
 * prefixed (HSAQM_KFD_*, struct hsaqm_kfd_*), so this header can sit beside any version of the
 * system header. Layouts are written from the published uapi (see docs/kfd-ioctl.md for the
 * versions read) and frozen by the static checks at the end of this file: a layout change that
 * would break the ABI fails the build, not a GPU.
 *
 * Interface versions that matter here (KFD_IOCTL_MAJOR/MINOR as AMDKFD_IOC_GET_VERSION reports):
 *   1.11  unified memory for the CWSR area; the newest Debian 12 knows
 *   1.13  RUNTIME_ENABLE (0x25) and DBG_TRAP (0x26): the debugger API (Linux 6.4)
 *   1.17  create_queue grows by 8 bytes (sdma_engine_id + pad): 88 -> 96 bytes
 *   1.22  that pad becomes metadata_ring_size
 * The kernel copies min(user size, kernel size) of an ioctl argument and zero-fills the rest,
 * so a larger struct than the kernel knows is accepted as long as the extra fields are zero;
 * hsaqm still sends each kernel the size it was built with (see HSAQM_KFD_IOC_CREATE_QUEUE_1_11).
 */
#ifndef HSAQM_KFD_UAPI_H
#define HSAQM_KFD_UAPI_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ioctl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ioctl numbers ---------------------------------------------------------------------- */

#define HSAQM_KFD_IOCTL_BASE 'K'
#define HSAQM_KFD_IOR(nr, size) _IOC(_IOC_READ, HSAQM_KFD_IOCTL_BASE, (nr), (size))
#define HSAQM_KFD_IOW(nr, size) _IOC(_IOC_WRITE, HSAQM_KFD_IOCTL_BASE, (nr), (size))
#define HSAQM_KFD_IOWR(nr, size) _IOC(_IOC_READ | _IOC_WRITE, HSAQM_KFD_IOCTL_BASE, (nr), (size))

/* The interface versions behind the gates of this layer. */
#define HSAQM_KFD_VERSION(major, minor) (((uint32_t)(major) << 16) | (uint32_t)(minor))
#define HSAQM_KFD_VERSION_DEBUGGER HSAQM_KFD_VERSION(1, 13)
#define HSAQM_KFD_VERSION_SDMA_ENGINE_ID HSAQM_KFD_VERSION(1, 17)

/* ---- AMDKFD_IOC_GET_VERSION (0x01) ----------------------------------------------------- */

struct hsaqm_kfd_get_version_args {
	uint32_t major_version; /* from KFD */
	uint32_t minor_version; /* from KFD */
};

/* ---- queues: CREATE (0x02), DESTROY (0x03), UPDATE (0x07) ------------------------------ */

#define HSAQM_KFD_QUEUE_TYPE_COMPUTE 0x0
#define HSAQM_KFD_QUEUE_TYPE_SDMA 0x1
#define HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL 0x2
#define HSAQM_KFD_QUEUE_TYPE_SDMA_XGMI 0x3
#define HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID 0x4 /* 1.17 */

#define HSAQM_KFD_MAX_QUEUE_PERCENTAGE 100
#define HSAQM_KFD_MAX_QUEUE_PRIORITY 15
/* Smaller rings are silently raised to this by the KFD (kfd_chardev.c). */
#define HSAQM_KFD_MIN_QUEUE_RING_SIZE 1024

/*
 * queue_percentage: bits 0-7 the percentage (0 makes the queue inactive), bits 8-15 the
 * target XCC of a PM4 queue on multi-XCC parts (newer kernels; ignored by older ones).
 */
#define HSAQM_KFD_QUEUE_PERCENTAGE_MASK 0xffu
#define HSAQM_KFD_QUEUE_PM4_TARGET_XCC_SHIFT 8

struct hsaqm_kfd_create_queue_args {
	uint64_t ring_base_address;     /* to KFD */
	uint64_t write_pointer_address; /* to KFD (user memory the CP polls) */
	uint64_t read_pointer_address;  /* to KFD (user memory the CP reports into) */
	uint64_t doorbell_offset;       /* from KFD: mmap offset of the doorbell page | offset */

	uint32_t ring_size;        /* to KFD, bytes, power of two */
	uint32_t gpu_id;           /* to KFD */
	uint32_t queue_type;       /* to KFD, HSAQM_KFD_QUEUE_TYPE_* */
	uint32_t queue_percentage; /* to KFD */
	uint32_t queue_priority;   /* to KFD, 0-15 */
	uint32_t queue_id;         /* from KFD */

	uint64_t eop_buffer_address;       /* to KFD */
	uint64_t eop_buffer_size;          /* to KFD */
	uint64_t ctx_save_restore_address; /* to KFD: the CWSR area */
	uint32_t ctx_save_restore_size;    /* to KFD: per-XCC size (the node's cwsr_size) */
	uint32_t ctl_stack_size;           /* to KFD: per-XCC (the node's ctl_stack_size) */
	/* Interface 1.17 and later; an older KFD never reads past ctl_stack_size. */
	uint32_t sdma_engine_id;     /* to KFD, for HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID */
	uint32_t metadata_ring_size; /* to KFD (1.22; a pad before), 0 or a power of two */
};

/* Size of the same struct up to interface 1.16 (no sdma_engine_id, no pad). */
#define HSAQM_KFD_CREATE_QUEUE_ARGS_SIZE_1_11 88u

struct hsaqm_kfd_destroy_queue_args {
	uint32_t queue_id; /* to KFD */
	uint32_t pad;
};

struct hsaqm_kfd_update_queue_args {
	uint64_t ring_base_address; /* to KFD */
	uint32_t queue_id;          /* to KFD */
	uint32_t ring_size;         /* to KFD */
	uint32_t queue_percentage;  /* to KFD */
	uint32_t queue_priority;    /* to KFD */
};

/* ---- AMDKFD_IOC_SET_CU_MASK (0x1A), AMDKFD_IOC_GET_QUEUE_WAVE_STATE (0x1B) -------------- */

struct hsaqm_kfd_set_cu_mask_args {
	uint32_t queue_id;    /* to KFD */
	uint32_t num_cu_mask; /* to KFD: number of mask bits, a multiple of 32 */
	uint64_t cu_mask_ptr; /* to KFD: uint32_t[num_cu_mask / 32] */
};

/* The KFD uses at most this many mask bits and ignores the rest. */
#define HSAQM_KFD_MAX_CU_MASK_BITS 1024u

struct hsaqm_kfd_get_queue_wave_state_args {
	uint64_t ctl_stack_address;   /* to KFD: where to copy the control stack */
	uint32_t ctl_stack_used_size; /* from KFD */
	uint32_t save_area_used_size; /* from KFD */
	uint32_t queue_id;            /* to KFD */
	uint32_t pad;
};

/* ---- exception codes (1.13) -------------------------------------------------------------- */

enum hsaqm_kfd_exception_code {
	HSAQM_KFD_EC_NONE = 0,
	/* per queue */
	HSAQM_KFD_EC_QUEUE_WAVE_ABORT = 1,
	HSAQM_KFD_EC_QUEUE_WAVE_TRAP = 2,
	HSAQM_KFD_EC_QUEUE_WAVE_MATH_ERROR = 3,
	HSAQM_KFD_EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION = 4,
	HSAQM_KFD_EC_QUEUE_WAVE_MEMORY_VIOLATION = 5,
	HSAQM_KFD_EC_QUEUE_WAVE_APERTURE_VIOLATION = 6,
	HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_DIM_INVALID = 16,
	HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID = 17,
	HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_CODE_INVALID = 18,
	HSAQM_KFD_EC_QUEUE_PACKET_RESERVED = 19,
	HSAQM_KFD_EC_QUEUE_PACKET_UNSUPPORTED = 20,
	HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID = 21,
	HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID = 22,
	HSAQM_KFD_EC_QUEUE_PACKET_VENDOR_UNSUPPORTED = 23,
	HSAQM_KFD_EC_QUEUE_PREEMPTION_ERROR = 30,
	/* Set on every queue created while the process is debug-enabled; SUSPEND_QUEUES
	 * refuses such a queue (INVALID) until the mark is cleared (a snapshot can clear it). */
	HSAQM_KFD_EC_QUEUE_NEW = 31,
	/* per device */
	HSAQM_KFD_EC_DEVICE_QUEUE_DELETE = 32,
	HSAQM_KFD_EC_DEVICE_MEMORY_VIOLATION = 33,
	HSAQM_KFD_EC_DEVICE_RAS_ERROR = 34,
	HSAQM_KFD_EC_DEVICE_FATAL_HALT = 35,
	HSAQM_KFD_EC_DEVICE_NEW = 36,
	/* per process */
	HSAQM_KFD_EC_PROCESS_RUNTIME = 48,
	HSAQM_KFD_EC_PROCESS_DEVICE_REMOVE = 49,
	HSAQM_KFD_EC_MAX
};

/* An exception code's bit in the 64-bit exception masks (code 1 is bit 0). */
#define HSAQM_KFD_EC_MASK(ec) (1ull << ((ec) - 1))

#define HSAQM_KFD_EC_MASK_QUEUE                                              \
	(HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_WAVE_ABORT) |                  \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_WAVE_TRAP) |                   \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_WAVE_MATH_ERROR) |             \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION) |    \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_WAVE_MEMORY_VIOLATION) |       \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_WAVE_APERTURE_VIOLATION) |     \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_DIM_INVALID) | \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID) | \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_CODE_INVALID) |               \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_PACKET_RESERVED) |                           \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_PACKET_UNSUPPORTED) |                        \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID) |   \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID) |          \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_PACKET_VENDOR_UNSUPPORTED) |                 \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_PREEMPTION_ERROR) |                          \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW))
#define HSAQM_KFD_EC_MASK_DEVICE                                      \
	(HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_DEVICE_QUEUE_DELETE) |        \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_DEVICE_RAS_ERROR) |           \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_DEVICE_FATAL_HALT) |          \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_DEVICE_MEMORY_VIOLATION) |    \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_DEVICE_NEW))
#define HSAQM_KFD_EC_MASK_PROCESS                                 \
	(HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_PROCESS_RUNTIME) |        \
	 HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_PROCESS_DEVICE_REMOVE))

/* ---- AMDKFD_IOC_RUNTIME_ENABLE (0x25, 1.13) ----------------------------------------------- */

enum hsaqm_kfd_runtime_state {
	HSAQM_KFD_RUNTIME_STATE_DISABLED = 0,
	HSAQM_KFD_RUNTIME_STATE_ENABLED = 1,
	HSAQM_KFD_RUNTIME_STATE_ENABLED_BUSY = 2,
	HSAQM_KFD_RUNTIME_STATE_ENABLED_ERROR = 3,
};

struct hsaqm_kfd_runtime_info {
	uint64_t r_debug;
	uint32_t runtime_state; /* enum hsaqm_kfd_runtime_state */
	uint32_t ttmp_setup;
};

#define HSAQM_KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK 1u
#define HSAQM_KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK 2u

struct hsaqm_kfd_runtime_enable_args {
	uint64_t r_debug;
	uint32_t mode_mask;
	uint32_t capabilities_mask;
};

/* ---- DBG_TRAP snapshots and per-entry results (1.13) ------------------------------------ */

struct hsaqm_kfd_queue_snapshot_entry {
	uint64_t exception_status;
	uint64_t ring_base_address;
	uint64_t write_pointer_address;
	uint64_t read_pointer_address;
	uint64_t ctx_save_restore_address;
	uint32_t queue_id;
	uint32_t gpu_id;
	uint32_t ring_size;
	uint32_t queue_type; /* HSAQM_KFD_QUEUE_TYPE_* */
	uint32_t ctx_save_restore_area_size;
	uint32_t reserved;
};

struct hsaqm_kfd_dbg_device_info_entry {
	uint64_t exception_status;
	uint64_t lds_base;
	uint64_t lds_limit;
	uint64_t scratch_base;
	uint64_t scratch_limit;
	uint64_t gpuvm_base;
	uint64_t gpuvm_limit;
	uint32_t gpu_id;
	uint32_t location_id;
	uint32_t vendor_id;
	uint32_t device_id;
	uint32_t revision_id;
	uint32_t subsystem_vendor_id;
	uint32_t subsystem_device_id;
	uint32_t fw_version;
	uint32_t gfx_target_version;
	uint32_t simd_count;
	uint32_t max_waves_per_simd;
	uint32_t array_count;
	uint32_t simd_arrays_per_engine;
	uint32_t num_xcc;
	uint32_t capability;
	uint32_t debug_prop;
	/* Later kernels; the entry_size the KFD returns says whether it filled them. */
	uint32_t capability2;
	uint32_t pad;
};

/* Device entry size as the first debugger kernels (1.13-1.16) define it. */
#define HSAQM_KFD_DBG_DEVICE_INFO_ENTRY_SIZE_1_13 120u

/*
 * SUSPEND_QUEUES / RESUME_QUEUES rewrite each queue id of the caller's array in place: the
 * id with bit 30 set if the KFD failed on that queue (hardware or scheduler error), bit 31
 * if the queue could not be handled at all (unknown id, created while debug-enabled and
 * still marked EC_QUEUE_NEW, or being destroyed).
 */
#define HSAQM_KFD_DBG_QUEUE_ERROR_BIT 30
#define HSAQM_KFD_DBG_QUEUE_INVALID_BIT 31
#define HSAQM_KFD_DBG_QUEUE_ERROR_MASK (1u << HSAQM_KFD_DBG_QUEUE_ERROR_BIT)
#define HSAQM_KFD_DBG_QUEUE_INVALID_MASK (1u << HSAQM_KFD_DBG_QUEUE_INVALID_BIT)

#define HSAQM_KFD_INVALID_GPUID 0xffffffffu
#define HSAQM_KFD_INVALID_QUEUEID 0xffffffffu

/* Header the KFD writes at the start of each XCC's part of a suspended queue's CWSR area. */
struct hsaqm_kfd_context_save_area_header {
	struct {
		uint32_t control_stack_offset;
		uint32_t control_stack_size;
		uint32_t wave_state_offset;
		uint32_t wave_state_size;
	} wave_state;
	uint32_t debug_offset;
	uint32_t debug_size;
	uint64_t err_payload_addr;
	uint32_t err_event_id;
	uint32_t reserved1;
};

/* ---- AMDKFD_IOC_DBG_TRAP (0x26, 1.13) ------------------------------------------------------ */

enum hsaqm_kfd_dbg_trap_op {
	HSAQM_KFD_DBG_TRAP_ENABLE = 0,
	HSAQM_KFD_DBG_TRAP_DISABLE = 1,
	HSAQM_KFD_DBG_TRAP_SEND_RUNTIME_EVENT = 2,
	HSAQM_KFD_DBG_TRAP_SET_EXCEPTIONS_ENABLED = 3,
	HSAQM_KFD_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE = 4,
	HSAQM_KFD_DBG_TRAP_SET_WAVE_LAUNCH_MODE = 5,
	HSAQM_KFD_DBG_TRAP_SUSPEND_QUEUES = 6,
	HSAQM_KFD_DBG_TRAP_RESUME_QUEUES = 7,
	HSAQM_KFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH = 8,
	HSAQM_KFD_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH = 9,
	HSAQM_KFD_DBG_TRAP_SET_FLAGS = 10,
	HSAQM_KFD_DBG_TRAP_QUERY_DEBUG_EVENT = 11,
	HSAQM_KFD_DBG_TRAP_QUERY_EXCEPTION_INFO = 12,
	HSAQM_KFD_DBG_TRAP_GET_QUEUE_SNAPSHOT = 13,
	HSAQM_KFD_DBG_TRAP_GET_DEVICE_SNAPSHOT = 14,
};

/*
 * grace_period of SUSPEND_QUEUES: how long waves may run before the CP saves them, in units of
 * 1K GPU clocks; 0 saves at once. The KFD reserves 0xffffffff for "leave the device's default".
 */
#define HSAQM_KFD_GRACE_PERIOD_DEFAULT 0xffffffffu

struct hsaqm_kfd_dbg_trap_enable_args {
	uint64_t exception_mask; /* exceptions to report to the debugger */
	uint64_t rinfo_ptr;      /* struct hsaqm_kfd_runtime_info to copy into */
	uint32_t rinfo_size;     /* in: buffer size; out: size the KFD has */
	uint32_t dbg_fd;         /* a writable fd the KFD pokes on an exception */
};

struct hsaqm_kfd_dbg_trap_send_runtime_event_args {
	uint64_t exception_mask;
	uint32_t gpu_id;
	uint32_t queue_id;
};

struct hsaqm_kfd_dbg_trap_set_exceptions_enabled_args {
	uint64_t exception_mask;
};

struct hsaqm_kfd_dbg_trap_set_wave_launch_override_args {
	uint32_t override_mode;
	uint32_t enable_mask;
	uint32_t support_request_mask;
	uint32_t pad;
};

struct hsaqm_kfd_dbg_trap_set_wave_launch_mode_args {
	uint32_t launch_mode;
	uint32_t pad;
};

struct hsaqm_kfd_dbg_trap_suspend_queues_args {
	uint64_t exception_mask;  /* exceptions to clear on the suspended queues */
	uint64_t queue_array_ptr; /* uint32_t[num_queues], rewritten with result bits */
	uint32_t num_queues;
	uint32_t grace_period; /* 1K GPU clocks; HSAQM_KFD_GRACE_PERIOD_DEFAULT */
};

struct hsaqm_kfd_dbg_trap_resume_queues_args {
	uint64_t queue_array_ptr; /* uint32_t[num_queues], rewritten with result bits */
	uint32_t num_queues;
	uint32_t pad;
};

struct hsaqm_kfd_dbg_trap_set_node_address_watch_args {
	uint64_t address;
	uint32_t mode;
	uint32_t mask;
	uint32_t gpu_id;
	uint32_t id;
};

struct hsaqm_kfd_dbg_trap_clear_node_address_watch_args {
	uint32_t gpu_id;
	uint32_t id;
};

struct hsaqm_kfd_dbg_trap_set_flags_args {
	uint32_t flags;
	uint32_t pad;
};

struct hsaqm_kfd_dbg_trap_query_debug_event_args {
	uint64_t exception_mask; /* in: exceptions to clear; out: exceptions raised */
	uint32_t gpu_id;         /* out */
	uint32_t queue_id;       /* out */
};

struct hsaqm_kfd_dbg_trap_query_exception_info_args {
	uint64_t info_ptr;
	uint32_t info_size;
	uint32_t source_id;
	uint32_t exception_code;
	uint32_t clear_exception;
};

struct hsaqm_kfd_dbg_trap_queue_snapshot_args {
	uint64_t exception_mask;   /* exceptions to clear on every queue reported */
	uint64_t snapshot_buf_ptr; /* struct hsaqm_kfd_queue_snapshot_entry[num_queues] */
	uint32_t num_queues;       /* in: entries in the buffer; out: queues that exist */
	uint32_t entry_size;       /* in: the caller's entry stride; out: bytes the KFD fills */
};

struct hsaqm_kfd_dbg_trap_device_snapshot_args {
	uint64_t exception_mask;
	uint64_t snapshot_buf_ptr; /* struct hsaqm_kfd_dbg_device_info_entry[num_devices] */
	uint32_t num_devices;      /* in/out as num_queues above */
	uint32_t entry_size;       /* in/out as entry_size above */
};

struct hsaqm_kfd_dbg_trap_args {
	uint32_t pid; /* target process; hsaqm targets itself */
	uint32_t op;  /* enum hsaqm_kfd_dbg_trap_op */
	union {
		struct hsaqm_kfd_dbg_trap_enable_args enable;
		struct hsaqm_kfd_dbg_trap_send_runtime_event_args send_runtime_event;
		struct hsaqm_kfd_dbg_trap_set_exceptions_enabled_args set_exceptions_enabled;
		struct hsaqm_kfd_dbg_trap_set_wave_launch_override_args launch_override;
		struct hsaqm_kfd_dbg_trap_set_wave_launch_mode_args launch_mode;
		struct hsaqm_kfd_dbg_trap_suspend_queues_args suspend_queues;
		struct hsaqm_kfd_dbg_trap_resume_queues_args resume_queues;
		struct hsaqm_kfd_dbg_trap_set_node_address_watch_args set_node_address_watch;
		struct hsaqm_kfd_dbg_trap_clear_node_address_watch_args clear_node_address_watch;
		struct hsaqm_kfd_dbg_trap_set_flags_args set_flags;
		struct hsaqm_kfd_dbg_trap_query_debug_event_args query_debug_event;
		struct hsaqm_kfd_dbg_trap_query_exception_info_args query_exception_info;
		struct hsaqm_kfd_dbg_trap_queue_snapshot_args queue_snapshot;
		struct hsaqm_kfd_dbg_trap_device_snapshot_args device_snapshot;
	};
};

/*
 * ---- process, memory and events: what a runtime's thunk (libhsakmt) issues ------------------
 * hsaqm itself does not issue these; the model's KFD face answers them for the emulated
 * /dev/kfd (sim/kfdemu/), so they live here beside the rest of the uapi (kfd_ioctl.h).
 */

/* AMDKFD_IOC_GET_CLOCK_COUNTERS (0x05) */
struct hsaqm_kfd_get_clock_counters_args {
	uint64_t gpu_clock_counter;    /* from KFD */
	uint64_t cpu_clock_counter;    /* from KFD */
	uint64_t system_clock_counter; /* from KFD */
	uint64_t system_clock_freq;    /* from KFD */
	uint32_t gpu_id;               /* to KFD */
	uint32_t pad;
};

/* One GPU's apertures (AMDKFD_IOC_GET_PROCESS_APERTURES 0x06 and _NEW 0x14). */
struct hsaqm_kfd_process_device_apertures {
	uint64_t lds_base;
	uint64_t lds_limit;
	uint64_t scratch_base;
	uint64_t scratch_limit;
	uint64_t gpuvm_base;
	uint64_t gpuvm_limit;
	uint32_t gpu_id;
	uint32_t pad;
};

/* The old form carries at most this many devices inline. */
#define HSAQM_KFD_NUM_OF_SUPPORTED_GPUS 7

struct hsaqm_kfd_get_process_apertures_args {
	struct hsaqm_kfd_process_device_apertures
		process_apertures[HSAQM_KFD_NUM_OF_SUPPORTED_GPUS]; /* from KFD */
	uint32_t num_of_nodes; /* from KFD */
	uint32_t pad;
};

struct hsaqm_kfd_get_process_apertures_new_args {
	/* to KFD: an array of num_of_nodes entries; 0 asks only for the count */
	uint64_t kfd_process_device_apertures_ptr;
	uint32_t num_of_nodes; /* to KFD: room; from KFD: filled (or the count) */
	uint32_t pad;
};

/* AMDKFD_IOC_SET_MEMORY_POLICY (0x04) */
struct hsaqm_kfd_set_memory_policy_args {
	uint64_t alternate_aperture_base;
	uint64_t alternate_aperture_size;
	uint32_t gpu_id;
	uint32_t default_policy;   /* 0 coherent, 1 noncoherent */
	uint32_t alternate_policy;
	uint32_t pad;
};

/* AMDKFD_IOC_CREATE_EVENT (0x08) and the rest of the event family (0x09-0x0C). */
#define HSAQM_KFD_EVENT_TYPE_SIGNAL 0
#define HSAQM_KFD_EVENT_TYPE_HW_EXCEPTION 3
#define HSAQM_KFD_EVENT_TYPE_DEBUG 5
#define HSAQM_KFD_EVENT_TYPE_MEMORY 8
/* Signal events share one page of 64-bit slots (kfd_events.c KFD_SIGNAL_EVENT_LIMIT). */
#define HSAQM_KFD_SIGNAL_EVENT_LIMIT 4096u

struct hsaqm_kfd_create_event_args {
	uint64_t event_page_offset;  /* to KFD: the events page's memory handle; from KFD */
	uint32_t event_trigger_data; /* from KFD: the value the CP writes */
	uint32_t event_type;         /* to KFD */
	uint32_t auto_reset;         /* to KFD */
	uint32_t node_id;            /* to KFD: only for non-signal events */
	uint32_t event_id;           /* from KFD */
	uint32_t event_slot_index;   /* from KFD */
};

struct hsaqm_kfd_event_id_args { /* DESTROY (0x09), SET (0x0A), RESET (0x0B) */
	uint32_t event_id;
	uint32_t pad;
};

#define HSAQM_KFD_WAIT_COMPLETE 0
#define HSAQM_KFD_WAIT_TIMEOUT 1
#define HSAQM_KFD_WAIT_ERROR 2

/* One entry of WAIT_EVENTS' array (struct kfd_event_data): the union is 32 bytes. */
struct hsaqm_kfd_event_data {
	union {
		uint8_t raw[32];
		uint64_t last_event_age; /* signal events (1.9+): in, then out */
	};
	uint64_t kfd_event_data_ext;
	uint32_t event_id;
	uint32_t pad;
};

struct hsaqm_kfd_wait_events_args {
	uint64_t events_ptr;   /* to KFD: struct hsaqm_kfd_event_data[num_events] */
	uint32_t num_events;   /* to KFD */
	uint32_t wait_for_all; /* to KFD */
	uint32_t timeout;      /* to KFD, ms; 0xffffffff waits forever */
	uint32_t wait_result;  /* from KFD: HSAQM_KFD_WAIT_* */
};

/* AMDKFD_IOC_SET_SCRATCH_BACKING_VA (0x11) */
struct hsaqm_kfd_set_scratch_backing_va_args {
	uint64_t va_addr;
	uint32_t gpu_id;
	uint32_t pad;
};

/* AMDKFD_IOC_GET_TILE_CONFIG (0x12) */
struct hsaqm_kfd_get_tile_config_args {
	uint64_t tile_config_ptr;       /* to KFD: uint32_t[num_tile_configs] */
	uint64_t macro_tile_config_ptr; /* to KFD */
	uint32_t num_tile_configs;      /* to KFD: room; from KFD: filled */
	uint32_t num_macro_tile_configs;
	uint32_t gpu_id;                /* to KFD */
	uint32_t gb_addr_config;        /* from KFD */
	uint32_t num_banks;             /* from KFD */
	uint32_t num_ranks;             /* from KFD */
};

/* AMDKFD_IOC_SET_TRAP_HANDLER (0x13) */
struct hsaqm_kfd_set_trap_handler_args {
	uint64_t tba_addr;
	uint64_t tma_addr;
	uint32_t gpu_id;
	uint32_t pad;
};

/* AMDKFD_IOC_ACQUIRE_VM (0x15) */
struct hsaqm_kfd_acquire_vm_args {
	uint32_t drm_fd; /* to KFD: the render node whose VM the process takes */
	uint32_t gpu_id; /* to KFD */
};

/* AMDKFD_IOC_ALLOC_MEMORY_OF_GPU (0x16) and its flags. */
#define HSAQM_KFD_ALLOC_MEM_VRAM (1u << 0)
#define HSAQM_KFD_ALLOC_MEM_GTT (1u << 1)
#define HSAQM_KFD_ALLOC_MEM_USERPTR (1u << 2)
#define HSAQM_KFD_ALLOC_MEM_DOORBELL (1u << 3)
#define HSAQM_KFD_ALLOC_MEM_MMIO_REMAP (1u << 4)
#define HSAQM_KFD_ALLOC_MEM_WRITABLE (1u << 31)
#define HSAQM_KFD_ALLOC_MEM_EXECUTABLE (1u << 30)
#define HSAQM_KFD_ALLOC_MEM_PUBLIC (1u << 29)
#define HSAQM_KFD_ALLOC_MEM_NO_SUBSTITUTE (1u << 28)
#define HSAQM_KFD_ALLOC_MEM_AQL_QUEUE_MEM (1u << 27)
#define HSAQM_KFD_ALLOC_MEM_COHERENT (1u << 26)
#define HSAQM_KFD_ALLOC_MEM_UNCACHED (1u << 25)
#define HSAQM_KFD_ALLOC_MEM_EXT_COHERENT (1u << 24)
#define HSAQM_KFD_ALLOC_MEM_CONTIGUOUS (1u << 23)

struct hsaqm_kfd_alloc_memory_of_gpu_args {
	uint64_t va_addr;     /* to KFD: GPU virtual address */
	uint64_t size;        /* to KFD */
	uint64_t handle;      /* from KFD: gpu_id << 32 | a per-process id */
	uint64_t mmap_offset; /* to KFD (userptr: the CPU address); from KFD: for mmap() */
	uint32_t gpu_id;      /* to KFD */
	uint32_t flags;       /* to KFD: HSAQM_KFD_ALLOC_MEM_* */
};

struct hsaqm_kfd_free_memory_of_gpu_args {
	uint64_t handle;
};

/* MAP_MEMORY_TO_GPU (0x18) and UNMAP_MEMORY_FROM_GPU (0x19) share this layout. */
struct hsaqm_kfd_map_memory_to_gpu_args {
	uint64_t handle;               /* to KFD */
	uint64_t device_ids_array_ptr; /* to KFD: uint32_t gpu_id[n_devices] */
	uint32_t n_devices;            /* to KFD */
	uint32_t n_success;            /* to/from KFD: how many are done (resumable) */
};

/* AMDKFD_IOC_GET_AVAILABLE_MEMORY (0x23) */
struct hsaqm_kfd_get_available_memory_args {
	uint64_t available; /* from KFD */
	uint32_t gpu_id;    /* to KFD */
	uint32_t pad;
};

/* AMDKFD_IOC_SET_XNACK_MODE (0x21): -1 queries, 0/1 sets; the mode comes back. */
struct hsaqm_kfd_set_xnack_mode_args {
	int32_t xnack_enabled;
};

/* AMDKFD_IOC_SMI_EVENTS (0x1F) */
struct hsaqm_kfd_smi_events_args {
	uint32_t gpuid;    /* to KFD */
	uint32_t anon_fd;  /* from KFD */
};

/* ---- the request numbers ---------------------------------------------------------------- */

#define HSAQM_KFD_IOC_GET_VERSION HSAQM_KFD_IOR(0x01, sizeof(struct hsaqm_kfd_get_version_args))
#define HSAQM_KFD_IOC_CREATE_QUEUE \
	HSAQM_KFD_IOWR(0x02, sizeof(struct hsaqm_kfd_create_queue_args))
/* The same request as a KFD before 1.17 defines it (88-byte argument). */
#define HSAQM_KFD_IOC_CREATE_QUEUE_1_11 \
	HSAQM_KFD_IOWR(0x02, HSAQM_KFD_CREATE_QUEUE_ARGS_SIZE_1_11)
#define HSAQM_KFD_IOC_DESTROY_QUEUE \
	HSAQM_KFD_IOWR(0x03, sizeof(struct hsaqm_kfd_destroy_queue_args))
#define HSAQM_KFD_IOC_UPDATE_QUEUE HSAQM_KFD_IOW(0x07, sizeof(struct hsaqm_kfd_update_queue_args))
#define HSAQM_KFD_IOC_SET_CU_MASK HSAQM_KFD_IOW(0x1A, sizeof(struct hsaqm_kfd_set_cu_mask_args))
#define HSAQM_KFD_IOC_GET_QUEUE_WAVE_STATE \
	HSAQM_KFD_IOWR(0x1B, sizeof(struct hsaqm_kfd_get_queue_wave_state_args))
#define HSAQM_KFD_IOC_RUNTIME_ENABLE \
	HSAQM_KFD_IOWR(0x25, sizeof(struct hsaqm_kfd_runtime_enable_args))
#define HSAQM_KFD_IOC_DBG_TRAP HSAQM_KFD_IOWR(0x26, sizeof(struct hsaqm_kfd_dbg_trap_args))

#define HSAQM_KFD_IOC_SET_MEMORY_POLICY \
	HSAQM_KFD_IOW(0x04, sizeof(struct hsaqm_kfd_set_memory_policy_args))
#define HSAQM_KFD_IOC_GET_CLOCK_COUNTERS \
	HSAQM_KFD_IOWR(0x05, sizeof(struct hsaqm_kfd_get_clock_counters_args))
#define HSAQM_KFD_IOC_GET_PROCESS_APERTURES \
	HSAQM_KFD_IOR(0x06, sizeof(struct hsaqm_kfd_get_process_apertures_args))
#define HSAQM_KFD_IOC_CREATE_EVENT \
	HSAQM_KFD_IOWR(0x08, sizeof(struct hsaqm_kfd_create_event_args))
#define HSAQM_KFD_IOC_DESTROY_EVENT HSAQM_KFD_IOW(0x09, sizeof(struct hsaqm_kfd_event_id_args))
#define HSAQM_KFD_IOC_SET_EVENT HSAQM_KFD_IOW(0x0A, sizeof(struct hsaqm_kfd_event_id_args))
#define HSAQM_KFD_IOC_RESET_EVENT HSAQM_KFD_IOW(0x0B, sizeof(struct hsaqm_kfd_event_id_args))
#define HSAQM_KFD_IOC_WAIT_EVENTS \
	HSAQM_KFD_IOWR(0x0C, sizeof(struct hsaqm_kfd_wait_events_args))
#define HSAQM_KFD_IOC_SET_SCRATCH_BACKING_VA \
	HSAQM_KFD_IOWR(0x11, sizeof(struct hsaqm_kfd_set_scratch_backing_va_args))
#define HSAQM_KFD_IOC_GET_TILE_CONFIG \
	HSAQM_KFD_IOWR(0x12, sizeof(struct hsaqm_kfd_get_tile_config_args))
#define HSAQM_KFD_IOC_SET_TRAP_HANDLER \
	HSAQM_KFD_IOW(0x13, sizeof(struct hsaqm_kfd_set_trap_handler_args))
#define HSAQM_KFD_IOC_GET_PROCESS_APERTURES_NEW \
	HSAQM_KFD_IOWR(0x14, sizeof(struct hsaqm_kfd_get_process_apertures_new_args))
#define HSAQM_KFD_IOC_ACQUIRE_VM HSAQM_KFD_IOW(0x15, sizeof(struct hsaqm_kfd_acquire_vm_args))
#define HSAQM_KFD_IOC_ALLOC_MEMORY_OF_GPU \
	HSAQM_KFD_IOWR(0x16, sizeof(struct hsaqm_kfd_alloc_memory_of_gpu_args))
#define HSAQM_KFD_IOC_FREE_MEMORY_OF_GPU \
	HSAQM_KFD_IOW(0x17, sizeof(struct hsaqm_kfd_free_memory_of_gpu_args))
#define HSAQM_KFD_IOC_MAP_MEMORY_TO_GPU \
	HSAQM_KFD_IOWR(0x18, sizeof(struct hsaqm_kfd_map_memory_to_gpu_args))
#define HSAQM_KFD_IOC_UNMAP_MEMORY_FROM_GPU \
	HSAQM_KFD_IOWR(0x19, sizeof(struct hsaqm_kfd_map_memory_to_gpu_args))
#define HSAQM_KFD_IOC_SMI_EVENTS HSAQM_KFD_IOWR(0x1F, sizeof(struct hsaqm_kfd_smi_events_args))
#define HSAQM_KFD_IOC_SET_XNACK_MODE \
	HSAQM_KFD_IOWR(0x21, sizeof(struct hsaqm_kfd_set_xnack_mode_args))
#define HSAQM_KFD_IOC_AVAILABLE_MEMORY \
	HSAQM_KFD_IOWR(0x23, sizeof(struct hsaqm_kfd_get_available_memory_args))

/* mmap offsets of the KFD file (kfd_priv.h KFD_MMAP_*): type in bits 62-63, gpu_id 46-61. */
#define HSAQM_KFD_MMAP_TYPE_SHIFT 62
#define HSAQM_KFD_MMAP_TYPE_MASK (3ull << 62)
#define HSAQM_KFD_MMAP_TYPE_DOORBELL (3ull << 62)
#define HSAQM_KFD_MMAP_TYPE_EVENTS (2ull << 62)
#define HSAQM_KFD_MMAP_TYPE_RESERVED_MEM (1ull << 62)
#define HSAQM_KFD_MMAP_TYPE_MMIO (0ull << 62)
#define HSAQM_KFD_MMAP_GPU_ID_SHIFT 46
#define HSAQM_KFD_MMAP_GPU_ID_MASK (0xffffull << 46)

/* The number part of a request, what the KFD dispatches on. */
#define HSAQM_KFD_IOC_NR(request) (((request) >> _IOC_NRSHIFT) & _IOC_NRMASK)

/* ---- node capability bits (linux/kfd_sysfs.h, "capability" in a node's properties) ------- */

#define HSAQM_KFD_CAP_HOT_PLUGGABLE 0x00000001u
#define HSAQM_KFD_CAP_ATS_PRESENT 0x00000002u
#define HSAQM_KFD_CAP_SHARED_WITH_GRAPHICS 0x00000004u
#define HSAQM_KFD_CAP_QUEUE_SIZE_POW2 0x00000008u
#define HSAQM_KFD_CAP_QUEUE_SIZE_32BIT 0x00000010u
#define HSAQM_KFD_CAP_QUEUE_IDLE_EVENT 0x00000020u
#define HSAQM_KFD_CAP_VA_LIMIT 0x00000040u
#define HSAQM_KFD_CAP_WATCH_POINTS_SUPPORTED 0x00000080u
#define HSAQM_KFD_CAP_WATCH_POINTS_TOTALBITS_MASK 0x00000f00u
#define HSAQM_KFD_CAP_WATCH_POINTS_TOTALBITS_SHIFT 8
#define HSAQM_KFD_CAP_DOORBELL_TYPE_TOTALBITS_MASK 0x00003000u
#define HSAQM_KFD_CAP_DOORBELL_TYPE_TOTALBITS_SHIFT 12
#define HSAQM_KFD_CAP_AQL_QUEUE_DOUBLE_MAP 0x00004000u
#define HSAQM_KFD_CAP_TRAP_DEBUG_SUPPORT 0x00008000u
#define HSAQM_KFD_CAP_TRAP_DEBUG_WAVE_LAUNCH_TRAP_OVERRIDE_SUPPORTED 0x00010000u
#define HSAQM_KFD_CAP_TRAP_DEBUG_WAVE_LAUNCH_MODE_SUPPORTED 0x00020000u
#define HSAQM_KFD_CAP_TRAP_DEBUG_PRECISE_MEMORY_OPERATIONS_SUPPORTED 0x00040000u
#define HSAQM_KFD_CAP_RESERVED_WAS_SRAM_EDCSUPPORTED 0x00080000u
#define HSAQM_KFD_CAP_MEM_EDCSUPPORTED 0x00100000u
#define HSAQM_KFD_CAP_RASEVENTNOTIFY 0x00200000u
#define HSAQM_KFD_CAP_ASIC_REVISION_MASK 0x03c00000u
#define HSAQM_KFD_CAP_ASIC_REVISION_SHIFT 22
#define HSAQM_KFD_CAP_SRAM_EDCSUPPORTED 0x04000000u
#define HSAQM_KFD_CAP_SVMAPI_SUPPORTED 0x08000000u
#define HSAQM_KFD_CAP_FLAGS_COHERENTHOSTACCESS 0x10000000u
#define HSAQM_KFD_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED 0x20000000u
#define HSAQM_KFD_CAP_TRAP_DEBUG_PRECISE_ALU_OPERATIONS_SUPPORTED 0x40000000u
#define HSAQM_KFD_CAP_PER_QUEUE_RESET_SUPPORTED 0x80000000u

#define HSAQM_KFD_CAP2_PER_SDMA_QUEUE_RESET_SUPPORTED 0x00000001u

/* ---- ABI checks ---------------------------------------------------------------------------- */

#ifdef __cplusplus
#define HSAQM_KFD_ABI_CHECK(expr, what) static_assert(expr, what)
#else
#define HSAQM_KFD_ABI_CHECK(expr, what) _Static_assert(expr, what)
#endif
#define HSAQM_KFD_ABI_SIZE(type, n) HSAQM_KFD_ABI_CHECK(sizeof(type) == (n), #type " size")
#define HSAQM_KFD_ABI_OFF(type, field, n) \
	HSAQM_KFD_ABI_CHECK(offsetof(type, field) == (n), #type "." #field " offset")

HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_get_version_args, 8);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_create_queue_args, 96);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_create_queue_args, doorbell_offset, 24);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_create_queue_args, ring_size, 32);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_create_queue_args, queue_id, 52);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_create_queue_args, eop_buffer_address, 56);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_create_queue_args, ctx_save_restore_size, 80);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_create_queue_args, ctl_stack_size, 84);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_create_queue_args, sdma_engine_id,
		  HSAQM_KFD_CREATE_QUEUE_ARGS_SIZE_1_11);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_destroy_queue_args, 8);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_update_queue_args, 24);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_update_queue_args, queue_percentage, 16);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_set_cu_mask_args, 16);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_set_cu_mask_args, cu_mask_ptr, 8);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_get_queue_wave_state_args, 24);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_get_queue_wave_state_args, queue_id, 16);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_runtime_info, 16);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_runtime_enable_args, 16);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_queue_snapshot_entry, 64);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_queue_snapshot_entry, queue_id, 40);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_queue_snapshot_entry, ctx_save_restore_area_size, 56);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_device_info_entry, 128);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_dbg_device_info_entry, gpu_id, 56);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_dbg_device_info_entry, capability2,
		  HSAQM_KFD_DBG_DEVICE_INFO_ENTRY_SIZE_1_13);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_context_save_area_header, 40);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_context_save_area_header, err_payload_addr, 24);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_enable_args, 24);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_send_runtime_event_args, 16);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_set_exceptions_enabled_args, 8);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_set_wave_launch_override_args, 16);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_set_wave_launch_mode_args, 8);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_suspend_queues_args, 24);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_dbg_trap_suspend_queues_args, num_queues, 16);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_dbg_trap_suspend_queues_args, grace_period, 20);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_resume_queues_args, 16);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_set_node_address_watch_args, 24);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_clear_node_address_watch_args, 8);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_set_flags_args, 8);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_query_debug_event_args, 16);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_query_exception_info_args, 24);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_queue_snapshot_args, 24);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_dbg_trap_queue_snapshot_args, entry_size, 20);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_device_snapshot_args, 24);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_dbg_trap_args, 32);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_dbg_trap_args, op, 4);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_dbg_trap_args, suspend_queues, 8);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_dbg_trap_args, queue_snapshot.entry_size, 28);

HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_get_clock_counters_args, 40);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_process_device_apertures, 56);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_get_process_apertures_args, 400);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_get_process_apertures_new_args, 16);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_set_memory_policy_args, 32);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_create_event_args, 32);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_event_data, 48);
HSAQM_KFD_ABI_OFF(struct hsaqm_kfd_event_data, event_id, 40);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_wait_events_args, 24);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_set_scratch_backing_va_args, 16);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_get_tile_config_args, 40);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_set_trap_handler_args, 24);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_acquire_vm_args, 8);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_alloc_memory_of_gpu_args, 40);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_map_memory_to_gpu_args, 24);
HSAQM_KFD_ABI_SIZE(struct hsaqm_kfd_get_available_memory_args, 16);

/* The request numbers as published (asm-generic encoding, which x86-64 and arm64 use). */
#if defined(__x86_64__) || defined(__aarch64__)
HSAQM_KFD_ABI_CHECK(HSAQM_KFD_IOC_GET_VERSION == 0x80084b01u, "GET_VERSION number");
HSAQM_KFD_ABI_CHECK(HSAQM_KFD_IOC_CREATE_QUEUE == 0xc0604b02u, "CREATE_QUEUE number (1.17)");
HSAQM_KFD_ABI_CHECK(HSAQM_KFD_IOC_CREATE_QUEUE_1_11 == 0xc0584b02u, "CREATE_QUEUE number (1.11)");
HSAQM_KFD_ABI_CHECK(HSAQM_KFD_IOC_DESTROY_QUEUE == 0xc0084b03u, "DESTROY_QUEUE number");
HSAQM_KFD_ABI_CHECK(HSAQM_KFD_IOC_UPDATE_QUEUE == 0x40184b07u, "UPDATE_QUEUE number");
HSAQM_KFD_ABI_CHECK(HSAQM_KFD_IOC_SET_CU_MASK == 0x40104b1au, "SET_CU_MASK number");
HSAQM_KFD_ABI_CHECK(HSAQM_KFD_IOC_GET_QUEUE_WAVE_STATE == 0xc0184b1bu, "WAVE_STATE number");
HSAQM_KFD_ABI_CHECK(HSAQM_KFD_IOC_RUNTIME_ENABLE == 0xc0104b25u, "RUNTIME_ENABLE number");
HSAQM_KFD_ABI_CHECK(HSAQM_KFD_IOC_DBG_TRAP == 0xc0204b26u, "DBG_TRAP number");
#endif

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_KFD_UAPI_H */
