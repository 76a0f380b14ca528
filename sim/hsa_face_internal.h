/* SPDX-License-Identifier: MIT */
/*
 * hsa_face_internal.h - the HSA face of the model (hsa_face*.c): an HsaApiTable, laid out as
 * ROCr 6.3 lays it out (hsa-layer's C mirror), whose entries are the model's own
 * implementation of what ROCr offers. Only the face's sources and its test include this.
 *
 * Finding the model from a call. HSA functions carry no context: hsa_signal_store(signal, v)
 * must find its model from the handle alone. So every live face sits in a small registry
 * (HSA_FACE_MAX_MODELS slots) and
 *   - a signal, queue or memory pointer is model memory: the face whose arena holds it owns it;
 *   - an agent or pool handle is the address of a struct inside its face: checked against
 *     every registered face's arrays before it is dereferenced;
 *   - the few entries with no handle at all (hsa_init, hsa_shut_down, hsa_system_get_info,
 *     hsa_iterate_agents, hsa_signal_create, hsa_amd_signal_create) exist once per registry
 *     slot, and a model's table points at the copies of its slot.
 *
 * Values: HSA enumerations are redefined here (SIM_HSA_*) with the values of hsa.h and
 * hsa_ext_amd.h, so the model builds without ROCm headers; tests/test_sim_hsa_table.c
 * compares them with the installed headers when there are some.
 */
#ifndef HSAQM_SIM_HSA_FACE_INTERNAL_H
#define HSAQM_SIM_HSA_FACE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hsaqm-hsa/api_table.h"
#include "hsaqm-hsa/hsa_abi.h"
#include "hsaqm-kfd/kfd.h"
#include "sim_internal.h"

/*
 * How the face makes its hardware queues. 1: through the model's KFD face with kfd-ioctl
 * (CREATE/DESTROY/UPDATE_QUEUE, SET_CU_MASK), as ROCr does through libhsakmt. 0: with the
 * core's sim_hwq_create() and friends, with the same arguments. Both are built and tested.
 * On the KFD path the KFD face owns the hardware queue's error callback; errors reach the
 * HSA face the way the CP reports them, through the amd_queue_t's queue_inactive_signal,
 * which the core writes (pp.c, cp_report_error).
 */
#define HSA_FACE_QUEUES_VIA_KFD 1

/* Models whose HSA face is alive at once (each needs its own copies of the handle-less entries). */
#define HSA_FACE_MAX_MODELS 16

/*
 * The layout presented: ROCm 6.3 (root major 3, 64 bytes, step 1; CoreApiTable major 2, 1016
 * bytes; AmdExtTable major 2, 584 bytes, step 4 - hsa_amd_queue_get_info included).
 * ToolsApiTable major 1, 64 bytes (its six scratch-event callbacks), as ROCr 6.1+ fills it.
 */
#define HSA_FACE_ROOT_MAJOR 3u
#define HSA_FACE_ROOT_STEP 1u
#define HSA_FACE_SUB_MAJOR 2u
#define HSA_FACE_AMD_EXT_SIZE HSAQM_AMD_EXT_SIZE_ROCM_6_3
#define HSA_FACE_AMD_EXT_STEP 4u
#define HSA_FACE_TOOLS_MAJOR 1u

/* Timestamps: model nanoseconds, i.e. a 1 GHz timestamp clock (docs/sim.md, "HSA face"). */
#define HSA_FACE_TIMESTAMP_HZ 1000000000ull

/* AQL queue limits in packets (ROCr GpuAgent minAqlSize_/maxAqlSize_) and queues per agent. */
#define HSA_FACE_QUEUE_MIN_PACKETS 0x40u
#define HSA_FACE_QUEUE_MAX_PACKETS 0x20000u
#define HSA_FACE_QUEUES_MAX 128u

/* Flat-address apertures of a gfx9 process (amdkfd kfd_flat_memory.c, *_APP_BASE_V9). */
#define HSA_FACE_LDS_APERTURE_BASE (1ull << 48)
#define HSA_FACE_SCRATCH_APERTURE_BASE (2ull << 48)

/* ---- HSA values (hsa.h / hsa_ext_amd.h) ------------------------------------------------ */

enum {
	SIM_HSA_ENDIANNESS_LITTLE = 0,
	SIM_HSA_MACHINE_MODEL_LARGE = 1,
	SIM_HSA_PROFILE_BASE = 0,
	SIM_HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR = 2,
	SIM_HSA_DEVICE_TYPE_CPU = 0,
	SIM_HSA_DEVICE_TYPE_GPU = 1,
	SIM_HSA_AGENT_FEATURE_KERNEL_DISPATCH = 1,
	SIM_HSA_AGENT_FEATURE_AGENT_DISPATCH = 2,
};

/* hsa_system_info_t */
enum {
	SIM_HSA_SYSTEM_INFO_VERSION_MAJOR = 0,
	SIM_HSA_SYSTEM_INFO_VERSION_MINOR = 1,
	SIM_HSA_SYSTEM_INFO_TIMESTAMP = 2,
	SIM_HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY = 3,
	SIM_HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT = 4,
	SIM_HSA_SYSTEM_INFO_ENDIANNESS = 5,
	SIM_HSA_SYSTEM_INFO_MACHINE_MODEL = 6,
	SIM_HSA_SYSTEM_INFO_EXTENSIONS = 7,
	SIM_HSA_AMD_SYSTEM_INFO_BUILD_VERSION = 0x200,
	SIM_HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED = 0x201,
	SIM_HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT = 0x202,
};

/* hsa_agent_info_t */
enum {
	SIM_HSA_AGENT_INFO_NAME = 0,
	SIM_HSA_AGENT_INFO_VENDOR_NAME = 1,
	SIM_HSA_AGENT_INFO_FEATURE = 2,
	SIM_HSA_AGENT_INFO_MACHINE_MODEL = 3,
	SIM_HSA_AGENT_INFO_PROFILE = 4,
	SIM_HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE = 5,
	SIM_HSA_AGENT_INFO_WAVEFRONT_SIZE = 6,
	SIM_HSA_AGENT_INFO_WORKGROUP_MAX_DIM = 7,
	SIM_HSA_AGENT_INFO_WORKGROUP_MAX_SIZE = 8,
	SIM_HSA_AGENT_INFO_GRID_MAX_DIM = 9,
	SIM_HSA_AGENT_INFO_GRID_MAX_SIZE = 10,
	SIM_HSA_AGENT_INFO_FBARRIER_MAX_SIZE = 11,
	SIM_HSA_AGENT_INFO_QUEUES_MAX = 12,
	SIM_HSA_AGENT_INFO_QUEUE_MIN_SIZE = 13,
	SIM_HSA_AGENT_INFO_QUEUE_MAX_SIZE = 14,
	SIM_HSA_AGENT_INFO_QUEUE_TYPE = 15,
	SIM_HSA_AGENT_INFO_NODE = 16,
	SIM_HSA_AGENT_INFO_DEVICE = 17,
	SIM_HSA_AGENT_INFO_CACHE_SIZE = 18,
	SIM_HSA_AGENT_INFO_EXTENSIONS = 20,
	SIM_HSA_AGENT_INFO_VERSION_MAJOR = 21,
	SIM_HSA_AGENT_INFO_VERSION_MINOR = 22,
	SIM_HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES = 23,
	/* hsa_amd_agent_info_t */
	SIM_HSA_AMD_AGENT_INFO_CHIP_ID = 0xA000,
	SIM_HSA_AMD_AGENT_INFO_CACHELINE_SIZE = 0xA001,
	SIM_HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT = 0xA002,
	SIM_HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY = 0xA003,
	SIM_HSA_AMD_AGENT_INFO_DRIVER_NODE_ID = 0xA004,
	SIM_HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS = 0xA005,
	SIM_HSA_AMD_AGENT_INFO_BDFID = 0xA006,
	SIM_HSA_AMD_AGENT_INFO_PRODUCT_NAME = 0xA009,
	SIM_HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU = 0xA00A,
	SIM_HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU = 0xA00B,
	SIM_HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES = 0xA00C,
	SIM_HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE = 0xA00D,
	SIM_HSA_AMD_AGENT_INFO_DOMAIN = 0xA00F,
	SIM_HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES = 0xA010,
	SIM_HSA_AMD_AGENT_INFO_UUID = 0xA011,
	SIM_HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS = 0xA013,
	SIM_HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT = 0xA014,
	SIM_HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY = 0xA016,
	SIM_HSA_AMD_AGENT_INFO_UCODE_VERSION = 0xA108,
	SIM_HSA_AMD_AGENT_INFO_NUM_SDMA_ENG = 0xA10A,
	SIM_HSA_AMD_AGENT_INFO_NUM_SDMA_XGMI_ENG = 0xA10B,
	SIM_HSA_AMD_AGENT_INFO_NUM_XCC = 0xA111,
	SIM_HSA_AMD_AGENT_INFO_NEAREST_CPU = 0xA113,
};

/* Regions (hsa_region_info_t, hsa_region_segment_t, hsa_region_global_flag_t). */
enum {
	SIM_HSA_REGION_INFO_SEGMENT = 0,
	SIM_HSA_REGION_INFO_GLOBAL_FLAGS = 1,
	SIM_HSA_REGION_INFO_SIZE = 2,
	SIM_HSA_REGION_INFO_ALLOC_MAX_SIZE = 4,
	SIM_HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED = 5,
	SIM_HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE = 6,
	SIM_HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT = 7,
	SIM_HSA_AMD_REGION_INFO_HOST_ACCESSIBLE = 0xA000,
	SIM_HSA_AMD_REGION_INFO_BASE = 0xA001,
	SIM_HSA_REGION_SEGMENT_GLOBAL = 0,
	SIM_HSA_REGION_GLOBAL_FLAG_KERNARG = 1,
	SIM_HSA_REGION_GLOBAL_FLAG_FINE_GRAINED = 2,
	SIM_HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED = 4,
};

/* Memory pools (hsa_amd_memory_pool_info_t, ..._global_flag_t, ..._location_t, access). */
enum {
	SIM_HSA_AMD_MEMORY_POOL_INFO_SEGMENT = 0,
	SIM_HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS = 1,
	SIM_HSA_AMD_MEMORY_POOL_INFO_SIZE = 2,
	SIM_HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED = 5,
	SIM_HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE = 6,
	SIM_HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT = 7,
	SIM_HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL = 15,
	SIM_HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE = 16,
	SIM_HSA_AMD_MEMORY_POOL_INFO_LOCATION = 17,
	SIM_HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_REC_GRANULE = 18,
	SIM_HSA_AMD_SEGMENT_GLOBAL = 0,
	SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT = 1,
	SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED = 2,
	SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED = 4,
	SIM_HSA_AMD_MEMORY_POOL_LOCATION_CPU = 0,
	SIM_HSA_AMD_MEMORY_POOL_LOCATION_GPU = 1,
	SIM_HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS = 0,
	SIM_HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS = 1,
	SIM_HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED = 0,
	SIM_HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT = 1,
	SIM_HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT = 2,
};

/* hsa_queue_info_attribute_t (hsa_amd_queue_get_info, ROCm 6.2). */
enum {
	SIM_HSA_AMD_QUEUE_INFO_AGENT = 0,
	SIM_HSA_AMD_QUEUE_INFO_DOORBELL_ID = 1,
};

/* Allocation granule and alignment of the pools (ROCr reports the 4 KiB page). */
#define HSA_FACE_POOL_GRANULE 4096u

/* ---- Face state ----------------------------------------------------------------------- */

#define HSA_FACE_AGENT_MAGIC 0x48414754u /* "HAGT" */
#define HSA_FACE_POOL_MAGIC 0x48504f4cu  /* "HPOL" */

struct hsa_face;

struct hsa_face_agent {
	uint32_t magic;
	bool is_gpu;
	unsigned int dev;		/* GPU: the model's device index */
	uint32_t node;			/* KFD topology node id */
	struct hsa_face *face;
	const struct sim_profile *prof;	/* GPU only */
	unsigned int first_pool;	/* its pools: face->pools[first_pool .. + npools) */
	unsigned int npools;
};

struct hsa_face_pool {
	uint32_t magic;
	uint32_t flags;			/* SIM_HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_* */
	uint32_t location;		/* SIM_HSA_AMD_MEMORY_POOL_LOCATION_* */
	struct hsa_face *face;
	struct hsa_face_agent *owner;
};

/* One AQL queue handed out by hsa_queue_create. Its amd_queue_t and ring are model memory. */
struct hsa_face_queue {
	struct hsa_face_queue *next;	/* face->queues, under face->lock */
	struct hsa_face *face;
	struct hsaqm_amd_queue *amd;
	void *ring;
	struct hsa_face_agent *agent;
	struct sim_signal *doorbell;	/* SIM_SIGNAL_DOORBELL, linked to hwq while active */
	struct sim_signal *inactive;	/* amd->queue_inactive_signal: the CP writes errors here */
	void *eop;			/* KFD path: the EOP buffer (model memory) */
	struct sim_hwq *hwq;		/* NULL once inactivated */
	uint32_t kfd_queue_id;		/* KFD path */
	bool via_kfd;
	uint32_t priority;		/* KFD priority 0..15 */
	uint32_t cu_mask[32];		/* up to 1024 CUs, as the KFD takes */
	uint32_t cu_mask_bits;		/* 0: never set (all CUs) */
	hsaqm_hsa_queue_callback_fn callback;
	void *callback_data;
	uint32_t retiring;		/* destroy started: the error handler must not call back */
	uint32_t handler_done;		/* the error handler ran and unregistered itself */
	uint32_t busy;			/* a control call (destroy, priority, mask) is running */
};

/* Allocations handed out by the pools, so a free of anything else is refused. */
#define HSA_FACE_ALLOC_BUCKETS 256u

struct hsa_face_alloc {
	struct hsa_face_alloc *next;
	void *ptr;
};

/* ToolsApiTable of ROCm 6.1+: six callbacks ROCr calls on scratch events (a tool replaces them). */
struct hsa_face_tools_table {
	struct hsaqm_api_table_version version;
	hsaqm_api_fn scratch_event_alloc_start_fn;
	hsaqm_api_fn scratch_event_alloc_end_fn;
	hsaqm_api_fn scratch_event_free_start_fn;
	hsaqm_api_fn scratch_event_free_end_fn;
	hsaqm_api_fn scratch_event_async_reclaim_start_fn;
	hsaqm_api_fn scratch_event_async_reclaim_end_fn;
};

HSAQM_STATIC_ASSERT(sizeof(struct hsa_face_tools_table) == 64, "ToolsApiTable of ROCm 6.1+");

struct hsa_face {
	struct hsaqm_sim *sim;
	unsigned int slot;		/* registry slot: selects the handle-less entries */
	pthread_mutex_t lock;		/* init count, queue list, allocation set */
	int init_count;

	/* The tables, exactly as ROCr presents them. */
	struct hsaqm_api_root_v3 root;
	struct hsaqm_core_api_table core;
	struct hsaqm_amd_ext_table_v2 amd_ext;
	struct hsa_face_tools_table tools;

	struct hsa_face_agent agents[1 + HSAQM_SIM_MAX_DEVICES]; /* [0] is the CPU */
	unsigned int nagents;
	struct hsa_face_pool pools[2 + HSAQM_SIM_MAX_DEVICES];
	unsigned int npools;
	size_t mem_size;		/* what the pools report: the model memory's size */

	struct hsa_face_queue *queues;
	struct hsa_face_alloc *allocs[HSA_FACE_ALLOC_BUCKETS];

	/* The KFD path: the model's KFD, opened once, on the first queue. */
	bool via_kfd;
	struct hsa_face_kfd {
		const struct hsaqm_kfd_transport *model; /* hsaqm_sim_kfd_transport() */
		struct hsaqm_kfd_transport tp;	/* the same, open() wrapped to learn the handle */
		struct hsaqm_kfd *kfd;		/* NULL until opened */
		int handle;			/* what the transport's open() returned */
		int runtime_err;		/* RUNTIME_ENABLE's result at the open */
		uint32_t gpu_id[HSAQM_SIM_MAX_DEVICES];
		struct hsaqm_cwsr_sizes cwsr[HSAQM_SIM_MAX_DEVICES];
		void *cwsr_area[HSAQM_SIM_MAX_DEVICES]; /* one per device, see hsa_face_queue.c */
	} kfd;
};

/* ---- Shared between the face's files ------------------------------------------------- */

/*
 * The face's lock, taken through the core (sim_face_lock): the face calls the KFD face with
 * it held (its KFD open), so it comes first in the model's lock order, HSA face -> KFD face
 * -> core. VIRTUAL-time async handlers never run under it; they may take it.
 */
static inline void hsa_face_lock(struct hsa_face *f)
{
	sim_face_lock(&f->lock);
}

static inline void hsa_face_unlock(struct hsa_face *f)
{
	sim_face_unlock(f->sim, &f->lock);
}

/* The face whose model memory holds [p, p + len), or NULL. */
struct hsa_face *hsa_face_of_mem(const void *p, size_t len);
/* Agent / pool handles checked against every live face; NULL if not one of ours. */
struct hsa_face_agent *hsa_face_agent_from_handle(uint64_t handle);
struct hsa_face_pool *hsa_face_pool_from_handle(uint64_t handle);
static inline uint64_t hsa_face_agent_handle(const struct hsa_face_agent *a)
{
	return (uint64_t)(uintptr_t)a;
}

/* hsa_init has been called more often than hsa_shut_down on this model. */
bool hsa_face_is_open(struct hsa_face *f);

/* A signal handle of any live face, and that face. */
struct sim_signal *hsa_face_signal(uint64_t handle, struct hsa_face **face);

/* Errno from the model's control calls -> HSA status. */
hsaqm_hsa_status_t hsa_face_status_from_errno(int err);

/* The entries the face leaves unsupported (stubs returning HSA_STATUS_ERROR), for tests. */
const char *const *hsa_face_unsupported_names(size_t *n);

/* Agents, regions and pools (hsa_face_agent.c). */
void hsa_face_agents_init(struct hsa_face *f);
void hsa_face_agent_fill_tables(struct hsa_face *f);

/* Queues (hsa_face_queue.c). */
void hsa_face_queue_fill_tables(struct hsa_face *f);
void hsa_face_queues_destroy_all(struct hsa_face *f);
/* At the model's destroy: close the KFD the face opened. */
void hsa_face_kfd_close(struct hsa_face *f);

/*
 * For tests: make @sim's HSA face create its queues through the KFD face (true) or with the
 * core directly (false), overriding HSA_FACE_QUEUES_VIA_KFD.
 * Return: 0; -EINVAL for a model without an HSA face; -EBUSY once the face has queues.
 */
int hsa_face_set_queue_path(struct hsaqm_sim *sim, bool via_kfd);

/*
 * Open the face's KFD now and enable the runtime (RUNTIME_ENABLE), which the face otherwise
 * does with its first queue: what ROCr does in hsa_init (tests that must have the runtime
 * enabled before, say, a debugger attaches). Queues must go through the KFD face.
 * Return: 0 (RUNTIME_ENABLE's own refusals are kept, not returned); -EINVAL (no HSA face, or
 * the direct queue path); kfd-ioctl's open and topology errors.
 */
int hsa_face_kfd_ready(struct hsaqm_sim *sim);

/* Signals (hsa_face_signal.c). */
void hsa_face_signal_fill_tables(struct hsa_face *f);
hsaqm_hsa_status_t hsa_face_signal_create(struct hsa_face *f, int64_t initial,
					  uint32_t num_consumers,
					  const struct hsaqm_hsa_agent *consumers,
					  struct hsaqm_hsa_signal *out);

#endif /* HSAQM_SIM_HSA_FACE_INTERNAL_H */
