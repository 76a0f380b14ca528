/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-hsa/hsa_abi.h - hsaqm's own C definitions of the parts of the HSA ABI it uses.
 *
 * The tool library must build without ROCm installed and must never clash with the
 * system headers when both are included (the C++ ABI cross-check does exactly that), so
 * every name here carries the hsaqm_ / HSAQM_ prefix. Values and layouts are those of
 * hsa.h, hsa_ext_amd.h, amd_hsa_queue.h and hsa_api_trace.h as ROCr ships them; the
 * test tests/test_api_table_abi.cpp compares them with the installed headers.
 *
 * Only the HSA "large model" on a little-endian 64-bit host is described (x86-64 and
 * AArch64 Linux, the only hosts of Instinct GPUs); other hosts fail to compile here.
 *
 * Enumerations that cross the ABI are given as fixed-width integer typedefs plus
 * constants: the C standard leaves the size of an enum to the compiler, the ABI does not.
 * ROCr's hsa_status_t, hsa_signal_condition_t... are 32-bit on every supported host.
 */
#ifndef HSAQM_HSA_ABI_H
#define HSAQM_HSA_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Compile-time checks usable in C11 and C++11 headers alike. */
#ifdef __cplusplus
#define HSAQM_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#define HSAQM_ALIGNOF(type) alignof(type)
#else
#define HSAQM_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#define HSAQM_ALIGNOF(type) _Alignof(type)
#endif

#ifdef __cplusplus
extern "C" {
#endif

HSAQM_STATIC_ASSERT(sizeof(void *) == 8, "hsaqm describes the HSA large model only");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hsaqm describes the little-endian HSA ABI only"
#endif

/* ---- Status codes (hsa.h, and the AMD additions of hsa_ext_amd.h) ------------------- */

typedef uint32_t hsaqm_hsa_status_t;

enum {
	HSAQM_HSA_STATUS_SUCCESS = 0x0,
	HSAQM_HSA_STATUS_INFO_BREAK = 0x1,
	HSAQM_HSA_STATUS_ERROR = 0x1000,
	HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT = 0x1001,
	HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE_CREATION = 0x1002,
	HSAQM_HSA_STATUS_ERROR_INVALID_ALLOCATION = 0x1003,
	HSAQM_HSA_STATUS_ERROR_INVALID_AGENT = 0x1004,
	HSAQM_HSA_STATUS_ERROR_INVALID_REGION = 0x1005,
	HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL = 0x1006,
	HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE = 0x1007,
	HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES = 0x1008,
	HSAQM_HSA_STATUS_ERROR_INVALID_PACKET_FORMAT = 0x1009,
	HSAQM_HSA_STATUS_ERROR_RESOURCE_FREE = 0x100A,
	HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED = 0x100B,
	HSAQM_HSA_STATUS_ERROR_REFCOUNT_OVERFLOW = 0x100C,
	HSAQM_HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS = 0x100D,
	HSAQM_HSA_STATUS_ERROR_INVALID_INDEX = 0x100E,
	HSAQM_HSA_STATUS_ERROR_INVALID_ISA = 0x100F,
	HSAQM_HSA_STATUS_ERROR_EXCEPTION = 0x1016,
	HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP = 0x1024,
	HSAQM_HSA_STATUS_ERROR_INVALID_RUNTIME_STATE = 0x1025,
	HSAQM_HSA_STATUS_ERROR_FATAL = 0x1026,
	/* hsa_ext_amd.h additions: small numbers, not in the 0x1000 block. */
	HSAQM_HSA_STATUS_ERROR_INVALID_MEMORY_POOL = 40,
	HSAQM_HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION = 41,
	HSAQM_HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION = 42,
	HSAQM_HSA_STATUS_ERROR_MEMORY_FAULT = 43,
	HSAQM_HSA_STATUS_CU_MASK_REDUCED = 44,
	/* Later additions: 45 from ROCm 6.1, 46 from 6.4, 47 from 7.x (7.2.4 has it). */
	HSAQM_HSA_STATUS_ERROR_OUT_OF_REGISTERS = 45,
	HSAQM_HSA_STATUS_ERROR_RESOURCE_BUSY = 46,
	HSAQM_HSA_STATUS_ERROR_NOT_SUPPORTED = 47,
};

/* ---- Opaque handles ------------------------------------------------------------------ */

struct hsaqm_hsa_signal {
	uint64_t handle;
};

struct hsaqm_hsa_agent {
	uint64_t handle;
};

struct hsaqm_hsa_region {
	uint64_t handle;
};

struct hsaqm_hsa_amd_memory_pool {
	uint64_t handle;
};

/* hsa_signal_value_t: 64-bit in the large model. */
typedef int64_t hsaqm_hsa_signal_value_t;

/* hsa_agent_info_t and hsa_queue_info_attribute_t (ROCm >= 6.2): opaque 32-bit selectors. */
typedef uint32_t hsaqm_hsa_agent_info_t;
typedef uint32_t hsaqm_hsa_amd_queue_info_attribute_t;

/* ---- Signals -------------------------------------------------------------------------- */

typedef uint32_t hsaqm_hsa_signal_condition_t;

enum {
	HSAQM_HSA_SIGNAL_CONDITION_EQ = 0,
	HSAQM_HSA_SIGNAL_CONDITION_NE = 1,
	HSAQM_HSA_SIGNAL_CONDITION_LT = 2,
	HSAQM_HSA_SIGNAL_CONDITION_GTE = 3,
};

typedef uint32_t hsaqm_hsa_wait_state_t;

enum {
	HSAQM_HSA_WAIT_STATE_BLOCKED = 0,
	HSAQM_HSA_WAIT_STATE_ACTIVE = 1,
};

/* Attributes of hsa_amd_signal_create (hsa_amd_signal_attribute_t). */
enum {
	HSAQM_HSA_AMD_SIGNAL_AMD_GPU_ONLY = 1,
	HSAQM_HSA_AMD_SIGNAL_IPC = 2,
};

/* Handler of hsa_amd_signal_async_handler: returning false unregisters it. */
typedef bool (*hsaqm_hsa_amd_signal_handler)(hsaqm_hsa_signal_value_t value, void *arg);

/* ---- Queues --------------------------------------------------------------------------- */

typedef uint32_t hsaqm_hsa_queue_type32_t;

enum {
	HSAQM_HSA_QUEUE_TYPE_MULTI = 0,
	HSAQM_HSA_QUEUE_TYPE_SINGLE = 1,
	HSAQM_HSA_QUEUE_TYPE_COOPERATIVE = 2,
};

/* hsa_queue_feature_t: bits of hsa_queue_t.features. */
enum {
	HSAQM_HSA_QUEUE_FEATURE_KERNEL_DISPATCH = 1,
	HSAQM_HSA_QUEUE_FEATURE_AGENT_DISPATCH = 2,
};

/* hsa_amd_queue_priority_t: what HIP stream priorities become. */
typedef uint32_t hsaqm_hsa_amd_queue_priority_t;

enum {
	HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW = 0,
	HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL = 1,
	HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH = 2,
};

/* hsa_queue_t: the user-visible head of every AQL queue (40 bytes). */
struct hsaqm_hsa_queue {
	hsaqm_hsa_queue_type32_t type;
	uint32_t features;		/* HSAQM_HSA_QUEUE_FEATURE_* */
	void *base_address;		/* the ring: size packets of 64 bytes */
	struct hsaqm_hsa_signal doorbell_signal;
	uint32_t size;			/* in packets, a power of two */
	uint32_t reserved1;
	uint64_t id;
};

HSAQM_STATIC_ASSERT(sizeof(struct hsaqm_hsa_queue) == 40, "hsa_queue_t is 40 bytes");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_hsa_queue, base_address) == 8,
		    "hsa_queue_t.base_address");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_hsa_queue, doorbell_signal) == 16,
		    "hsa_queue_t.doorbell_signal");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_hsa_queue, size) == 24, "hsa_queue_t.size");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_hsa_queue, id) == 32, "hsa_queue_t.id");

/* amd_queue_properties_t: bits of amd_queue_t.queue_properties. */
enum {
	HSAQM_AMD_QUEUE_PROPERTIES_ENABLE_TRAP_HANDLER = 1u << 0,
	HSAQM_AMD_QUEUE_PROPERTIES_IS_PTR64 = 1u << 1,
	HSAQM_AMD_QUEUE_PROPERTIES_ENABLE_TRAP_HANDLER_DEBUG_SGPRS = 1u << 2,
	HSAQM_AMD_QUEUE_PROPERTIES_ENABLE_PROFILING = 1u << 3,
	HSAQM_AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE = 1u << 4,
};

/* amd_queue_capabilities_t (ROCm >= 6.4 headers): bits of amd_queue_t.caps. */
enum {
	HSAQM_AMD_QUEUE_CAPS_CP_ASYNC_RECLAIM = 1u << 0, /* CP firmware: dual scratch, reclaim */
	HSAQM_AMD_QUEUE_CAPS_SW_ASYNC_RECLAIM = 1u << 1, /* ROCr: CP may read the v2 fields */
};

#define HSAQM_AMD_QUEUE_ALIGN 64

/*
 * amd_queue_t: the queue descriptor ROCr allocates for every hardware queue; the
 * hsa_queue_t pointer applications hold points at its first member. The packet processor
 * reads it, and so do clients: ROCclr takes the aperture fields for hidden kernel
 * arguments and rocprofiler reads the dispatch ids. A proxy queue handed to an
 * application must therefore be a whole amd_queue_t.
 *
 * The 256 bytes below are the layout of every ROCm release from 4.x to 7.x up to
 * queue_properties and queue_inactive_signal, with the names of the newest header
 * (amd_queue_v2_t's first 256 bytes, ROCm 6.4 and later). What the words from 184 on
 * (except the signal at 192) mean changed with the era; hsaqm only ever copies them:
 *   - ROCm <= 6.0: reserved (reserved3, reserved4), and reserved1[0] where `caps` is;
 *   - ROCm 6.1 - 6.3: `caps`, and a first async-reclaim layout: scratch_last_used_index
 *     at 184, alt_scratch_last_used_index at 208, alt_scratch_backing_memory_location
 *     216, alt_scratch_backing_memory_byte_size 224, the limits from 232;
 *   - ROCm >= 6.4: amd_queue_v2_t's names, as below (the alternate scratch descriptor at
 *     208, its location at 224).
 * From ROCm 7.0 the header's amd_queue_t (kept "for reference") calls
 * scratch_backing_memory_byte_size reserved3 (rocgdb no longer reads it); amd_queue_v2_t
 * still names it. tests/test_api_table_abi.cpp checks these names against each era's
 * header.
 */
struct __attribute__((aligned(HSAQM_AMD_QUEUE_ALIGN))) hsaqm_amd_queue {
	struct hsaqm_hsa_queue hsa_queue;
	uint32_t caps;			/* HSAQM_AMD_QUEUE_CAPS_*; reserved (0) before ROCm 6.4 */
	uint32_t reserved1[3];
	volatile uint64_t write_dispatch_id;
	uint32_t group_segment_aperture_base_hi;
	uint32_t private_segment_aperture_base_hi;
	uint32_t max_cu_id;
	uint32_t max_wave_id;
	volatile uint64_t max_legacy_doorbell_dispatch_id_plus_1;
	volatile uint32_t legacy_doorbell_lock;
	uint32_t reserved2[9];
	volatile uint64_t read_dispatch_id;
	uint32_t read_dispatch_id_field_base_byte_offset;
	uint32_t compute_tmpring_size;
	uint32_t scratch_resource_descriptor[4];
	uint64_t scratch_backing_memory_location;
	uint64_t scratch_backing_memory_byte_size; /* amd_queue_t's reserved3 from ROCm 7.0 */
	uint32_t scratch_wave64_lane_byte_size;
	uint32_t queue_properties;	/* HSAQM_AMD_QUEUE_PROPERTIES_* */
	/* v2 (ROCm >= 6.4, read by CP only with CAPS_SW_ASYNC_RECLAIM): reserved before. */
	volatile uint64_t scratch_max_use_index;
	struct hsaqm_hsa_signal queue_inactive_signal;
	volatile uint64_t alt_scratch_max_use_index;
	uint32_t alt_scratch_resource_descriptor[4];
	uint64_t alt_scratch_backing_memory_location;
	uint32_t alt_scratch_dispatch_limit_x;
	uint32_t alt_scratch_dispatch_limit_y;
	uint32_t alt_scratch_dispatch_limit_z;
	uint32_t alt_scratch_wave64_lane_byte_size;
	uint32_t alt_compute_tmpring_size;
	uint32_t reserved5;
};

HSAQM_STATIC_ASSERT(sizeof(struct hsaqm_amd_queue) == 256, "amd_queue_t is 256 bytes");
HSAQM_STATIC_ASSERT(HSAQM_ALIGNOF(struct hsaqm_amd_queue) == 64, "amd_queue_t is 64-byte aligned");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue, caps) == 40, "amd_queue_t.caps");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue, write_dispatch_id) == 56,
		    "amd_queue_t.write_dispatch_id (read by rocprofiler)");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue, group_segment_aperture_base_hi) == 64,
		    "amd_queue_t.group_segment_aperture_base_hi (read by ROCclr)");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue, private_segment_aperture_base_hi) == 68,
		    "amd_queue_t.private_segment_aperture_base_hi (read by ROCclr)");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue, max_legacy_doorbell_dispatch_id_plus_1) == 80,
		    "amd_queue_t.max_legacy_doorbell_dispatch_id_plus_1");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue, read_dispatch_id) == 128,
		    "amd_queue_t.read_dispatch_id (read by rocprofiler)");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue, scratch_resource_descriptor) == 144,
		    "amd_queue_t.scratch_resource_descriptor");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue, queue_properties) == 180,
		    "amd_queue_t.queue_properties");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue, scratch_max_use_index) == 184,
		    "amd_queue_v2_t.scratch_max_use_index");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue, queue_inactive_signal) == 192,
		    "amd_queue_t.queue_inactive_signal");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue, alt_scratch_resource_descriptor) == 208,
		    "amd_queue_v2_t.alt_scratch_resource_descriptor");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue, alt_compute_tmpring_size) == 248,
		    "amd_queue_v2_t.alt_compute_tmpring_size");

/*
 * amd_queue_v2_t (ROCm >= 6.4 headers): amd_queue_t followed by CP's scratch bookkeeping,
 * two indices for each of up to 128 XCCs. CP firmware writes them, in the hardware queue's
 * descriptor, and only when ROCr set CAPS_SW_ASYNC_RECLAIM.
 */
#define HSAQM_AMD_QUEUE_MAX_NUM_XCC 128

struct hsaqm_amd_scratch_last_used_index_xcc {
	volatile uint64_t main;
	volatile uint64_t alt;
};

struct __attribute__((aligned(HSAQM_AMD_QUEUE_ALIGN))) hsaqm_amd_queue_v2 {
	struct hsaqm_amd_queue amd_queue;
	struct hsaqm_amd_scratch_last_used_index_xcc
		scratch_last_used_index[HSAQM_AMD_QUEUE_MAX_NUM_XCC];
};

HSAQM_STATIC_ASSERT(sizeof(struct hsaqm_amd_queue_v2) == 2304, "amd_queue_v2_t is 2304 bytes");
HSAQM_STATIC_ASSERT(offsetof(struct hsaqm_amd_queue_v2, scratch_last_used_index) == 256,
		    "amd_queue_v2_t.scratch_last_used_index");

/*
 * How ROCr maps an hsa_queue_t * back to its queue object (core::Queue::Convert): the
 * descriptor lives in a `SharedQueue { <descriptor> amd_queue; Queue *core_queue; }`, so
 * the object pointer is read at hsa_queue + sizeof(descriptor), then checked against a
 * magic (a NULL pointer is refused with HSA_STATUS_ERROR_INVALID_QUEUE). The descriptor
 * was amd_queue_t up to ROCm 6.3 and became amd_queue_v2_t in ROCm 6.4 (upstream commit
 * "Update for new async scratch reclaim", 2025-02; Debian's 6.4.3 and 7.2.4 binaries read
 * at 0x900). A queue ROCr did not make must hold NULL at both offsets.
 */
#define HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V1 256u  /* ROCm <= 6.3: sizeof(amd_queue_t) */
#define HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V2 2304u /* ROCm >= 6.4: sizeof(amd_queue_v2_t) */

/*
 * The memory hsaqm gives the descriptor of a queue it makes (a proxy): an amd_queue_v2_t
 * whose first 256 bytes mirror the hardware queue's and whose every other byte is zero, up
 * to this size (the object pointer behind amd_queue_v2_t, rounded up to 64 bytes). A ROCr
 * that reads its queue object pointer at either offset above finds NULL and refuses the
 * queue with HSA_STATUS_ERROR_INVALID_QUEUE instead of following a stray pointer.
 */
#define HSAQM_PROXY_QUEUE_DESC_SIZE 2368u

HSAQM_STATIC_ASSERT(HSAQM_PROXY_QUEUE_DESC_SIZE >= HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V2 + 8,
		    "a proxy's descriptor covers ROCr's queue object pointer of every era");

/* Error callback of queue creation: status, the queue that failed, the caller's data. */
typedef void (*hsaqm_hsa_queue_callback_fn)(hsaqm_hsa_status_t status,
					    struct hsaqm_hsa_queue *source, void *data);

/* hsa_amd_profiling_dispatch_time_t: GPU timestamps of a completed dispatch. */
struct hsaqm_hsa_amd_profiling_dispatch_time {
	uint64_t start;
	uint64_t end;
};

/* Intercept-queue callbacks of hsa_api_trace.h (not used by hsaqm, but wrapped). */
typedef void (*hsaqm_hsa_amd_queue_intercept_packet_writer)(const void *pkts, uint64_t pkt_count);
typedef void (*hsaqm_hsa_amd_queue_intercept_handler)(
	const void *pkts, uint64_t pkt_count, uint64_t user_pkt_index, void *data,
	hsaqm_hsa_amd_queue_intercept_packet_writer writer);

/*
 * hsa_amd_queue_create_desc_t of the descriptor-based hsa_amd_queue_create, which only
 * development builds of ROCr have (AmdExt step >= 0x10, after ROCm 7.0). Its layout is
 * versioned by its own first field and has not been in a release we could read, so hsaqm
 * keeps it opaque: a wrapper can only pass it through.
 */
struct hsaqm_hsa_amd_queue_create_desc;

/*
 * Tool events (hsa_amd_tool.h, ROCm >= 6.1): ROCr calls the ToolsApiTable entries a tool
 * set, with a union of pointers to an event record (passed like a pointer). Every scratch
 * event record starts with its kind and the hardware queue whose scratch changed; hsaqm
 * reads nothing else.
 */
enum {
	HSAQM_HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_START = 1,
	HSAQM_HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_END = 2,
	HSAQM_HSA_AMD_TOOL_EVENT_SCRATCH_FREE_START = 3,
	HSAQM_HSA_AMD_TOOL_EVENT_SCRATCH_FREE_END = 4,
	HSAQM_HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_START = 5,
	HSAQM_HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_END = 6,
};

struct hsaqm_hsa_amd_tool_event_scratch {
	uint32_t kind;				/* HSAQM_HSA_AMD_TOOL_EVENT_* */
	const struct hsaqm_hsa_queue *queue;	/* the runtime's (hardware) queue */
	uint32_t flags;
};

typedef union {
	const struct hsaqm_hsa_amd_tool_event_scratch *scratch;
} hsaqm_hsa_amd_tool_event_t;

typedef hsaqm_hsa_status_t (*hsaqm_hsa_amd_tool_event_fn)(hsaqm_hsa_amd_tool_event_t event);

/* ---- Function types of the table entries hsaqm calls or wraps ------------------------ */

typedef hsaqm_hsa_status_t (*hsaqm_hsa_init_fn)(void);
typedef hsaqm_hsa_status_t (*hsaqm_hsa_shut_down_fn)(void);
/* hsa_system_get_info: @attribute an hsa_system_info_t (3: TIMESTAMP_FREQUENCY). */
typedef hsaqm_hsa_status_t (*hsaqm_hsa_system_get_info_fn)(uint32_t attribute, void *value);
typedef hsaqm_hsa_status_t (*hsaqm_hsa_iterate_agents_fn)(
	hsaqm_hsa_status_t (*callback)(struct hsaqm_hsa_agent agent, void *data), void *data);
typedef hsaqm_hsa_status_t (*hsaqm_hsa_agent_get_info_fn)(struct hsaqm_hsa_agent agent,
							  hsaqm_hsa_agent_info_t attribute,
							  void *value);

/* hsa_queue_create, and hsa_amd_queue_intercept_create which has the same parameters. */
typedef hsaqm_hsa_status_t (*hsaqm_hsa_queue_create_fn)(
	struct hsaqm_hsa_agent agent, uint32_t size, hsaqm_hsa_queue_type32_t type,
	hsaqm_hsa_queue_callback_fn callback, void *data, uint32_t private_segment_size,
	uint32_t group_segment_size, struct hsaqm_hsa_queue **queue);
typedef hsaqm_hsa_queue_create_fn hsaqm_hsa_amd_queue_intercept_create_fn;

/* hsa_queue_destroy and hsa_queue_inactivate. */
typedef hsaqm_hsa_status_t (*hsaqm_hsa_queue_destroy_fn)(struct hsaqm_hsa_queue *queue);
typedef hsaqm_hsa_queue_destroy_fn hsaqm_hsa_queue_inactivate_fn;

/* The index functions, by shape: every memory-order variant shares its shape's type. */
typedef uint64_t (*hsaqm_hsa_queue_load_index_fn)(const struct hsaqm_hsa_queue *queue);
typedef void (*hsaqm_hsa_queue_store_index_fn)(const struct hsaqm_hsa_queue *queue,
					       uint64_t value);
typedef uint64_t (*hsaqm_hsa_queue_cas_index_fn)(const struct hsaqm_hsa_queue *queue,
						 uint64_t expected, uint64_t value);
typedef uint64_t (*hsaqm_hsa_queue_add_index_fn)(const struct hsaqm_hsa_queue *queue,
						 uint64_t value);

typedef hsaqm_hsa_status_t (*hsaqm_hsa_signal_create_fn)(
	hsaqm_hsa_signal_value_t initial_value, uint32_t num_consumers,
	const struct hsaqm_hsa_agent *consumers, struct hsaqm_hsa_signal *signal);
typedef hsaqm_hsa_status_t (*hsaqm_hsa_signal_destroy_fn)(struct hsaqm_hsa_signal signal);

/* Signal operations, by shape. store covers store, silent store, add, subtract, and, or, xor. */
typedef hsaqm_hsa_signal_value_t (*hsaqm_hsa_signal_load_fn)(struct hsaqm_hsa_signal signal);
typedef void (*hsaqm_hsa_signal_store_fn)(struct hsaqm_hsa_signal signal,
					  hsaqm_hsa_signal_value_t value);
typedef hsaqm_hsa_signal_value_t (*hsaqm_hsa_signal_exchange_fn)(struct hsaqm_hsa_signal signal,
								  hsaqm_hsa_signal_value_t value);
typedef hsaqm_hsa_signal_value_t (*hsaqm_hsa_signal_cas_fn)(struct hsaqm_hsa_signal signal,
							     hsaqm_hsa_signal_value_t expected,
							     hsaqm_hsa_signal_value_t value);
typedef hsaqm_hsa_signal_value_t (*hsaqm_hsa_signal_wait_fn)(
	struct hsaqm_hsa_signal signal, hsaqm_hsa_signal_condition_t condition,
	hsaqm_hsa_signal_value_t compare_value, uint64_t timeout_hint,
	hsaqm_hsa_wait_state_t wait_state_hint);

/* AMD extensions. */
typedef hsaqm_hsa_status_t (*hsaqm_hsa_amd_signal_async_handler_fn)(
	struct hsaqm_hsa_signal signal, hsaqm_hsa_signal_condition_t cond,
	hsaqm_hsa_signal_value_t value, hsaqm_hsa_amd_signal_handler handler, void *arg);
typedef uint32_t (*hsaqm_hsa_amd_signal_wait_any_fn)(
	uint32_t signal_count, struct hsaqm_hsa_signal *signals,
	hsaqm_hsa_signal_condition_t *conds, hsaqm_hsa_signal_value_t *values,
	uint64_t timeout_hint, hsaqm_hsa_wait_state_t wait_hint,
	hsaqm_hsa_signal_value_t *satisfying_value);
typedef hsaqm_hsa_status_t (*hsaqm_hsa_amd_queue_set_priority_fn)(
	struct hsaqm_hsa_queue *queue, hsaqm_hsa_amd_queue_priority_t priority);
typedef hsaqm_hsa_status_t (*hsaqm_hsa_amd_queue_cu_set_mask_fn)(
	const struct hsaqm_hsa_queue *queue, uint32_t num_cu_mask_count, const uint32_t *cu_mask);
typedef hsaqm_hsa_status_t (*hsaqm_hsa_amd_queue_cu_get_mask_fn)(
	const struct hsaqm_hsa_queue *queue, uint32_t num_cu_mask_count, uint32_t *cu_mask);
typedef hsaqm_hsa_status_t (*hsaqm_hsa_amd_profiling_enable_fn)(
	struct hsaqm_hsa_queue *queue, int enable);
typedef hsaqm_hsa_status_t (*hsaqm_hsa_amd_profiling_dispatch_time_fn)(
	struct hsaqm_hsa_agent agent, struct hsaqm_hsa_signal signal,
	struct hsaqm_hsa_amd_profiling_dispatch_time *time);
typedef hsaqm_hsa_status_t (*hsaqm_hsa_amd_queue_intercept_register_fn)(
	struct hsaqm_hsa_queue *queue, hsaqm_hsa_amd_queue_intercept_handler callback,
	void *user_data);
/* ROCm >= 6.2. */
typedef hsaqm_hsa_status_t (*hsaqm_hsa_amd_queue_get_info_fn)(
	struct hsaqm_hsa_queue *queue, hsaqm_hsa_amd_queue_info_attribute_t attribute, void *value);
/* Development ROCr only (AmdExt step >= 9): a pooled queue shared by reference count. */
typedef hsaqm_hsa_status_t (*hsaqm_hsa_amd_counted_queue_acquire_fn)(
	struct hsaqm_hsa_agent agent, hsaqm_hsa_queue_type32_t type,
	hsaqm_hsa_amd_queue_priority_t priority, hsaqm_hsa_queue_callback_fn callback, void *data,
	uint64_t flags, struct hsaqm_hsa_queue **queue);
typedef hsaqm_hsa_status_t (*hsaqm_hsa_amd_counted_queue_release_fn)(struct hsaqm_hsa_queue *queue);
/* Development ROCr only (AmdExt step >= 0x10): creates num_descs queues, results in descs. */
typedef hsaqm_hsa_status_t (*hsaqm_hsa_amd_queue_create_fn)(
	struct hsaqm_hsa_agent agent, struct hsaqm_hsa_amd_queue_create_desc *descs,
	uint32_t num_descs);

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_HSA_ABI_H */
