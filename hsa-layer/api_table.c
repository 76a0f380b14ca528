/* SPDX-License-Identifier: MIT */
/*
 * Layout detection of ROCr's tool API tables (see hsaqm-hsa/api_table.h and
 * docs/hsa-api-tables.md).
 *
 * The rule, and why it is safe:
 *
 * - ROCr sets every version header itself: major_id from its header's constants, minor_id
 *   to sizeof of the struct it was compiled with, step_id to a counter of additions. It
 *   has done so for the root, CoreApiTable and AmdExtTable in every release from 4.5 to
 *   the 2025 development branch, and it passes the root's major_id as OnLoad's
 *   runtime_version. Only the headers are trustworthy input, so only they are read.
 *
 * - Root major 1 covers three AmdExtTable layouts (4.5-5.4, 5.5, 5.6-5.7): entries were
 *   inserted mid-table without any version change. Their sizes differ (400, 424, 456
 *   bytes), and ROCr writes the size into minor_id, so the size is the discriminator. It
 *   has to match exactly: a major-1 table of any other size was built from a header we
 *   have not read, and guessing where its entries are would send calls to the wrong
 *   function. Step ids are 0 throughout major 1 and tell nothing.
 *
 * - From major 2 (ROCm 6.0) entries are only ever appended, each addition bumping step_id
 *   (ROCr's own build asserts the size against an expected value, and rocprofiler-sdk
 *   pins each entry's index per step). So a table at least as large as the first release
 *   of its era has every entry of that release at its known offset, and a later entry is
 *   usable only when the table both reaches it (minor_id) and reports the step that added
 *   it. The step check matters for development builds: branches have placed different
 *   functions at the same index past step 0x0B, and only the step names which one.
 *
 * - The release is a name, not a decision: the exact headers a release's ROCr writes
 *   (sizes and steps) say which release it is, and nothing else depends on it but the
 *   queue descriptor size reported alongside (hsaqm-hsa/hsa_abi.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hsaqm-hsa/api_table.h"
#include "hsaqm-common/log.h"

/* Known sizes per layout; index with enum hsaqm_api_layout_id. */
struct layout_desc {
	const char *name;
	uint32_t root_major;
	uint32_t sub_major;		/* major of core and amd_ext in this era */
	uint32_t amd_ext_size;		/* exact (major 1) or minimum (majors 2, 3) */
};

static const struct layout_desc layouts[HSAQM_API_LAYOUT_COUNT] = {
	[HSAQM_API_LAYOUT_UNKNOWN] = { "unknown", 0, 0, 0 },
	[HSAQM_API_LAYOUT_ROCM_4_5] = { "rocm-4.5-5.4", 1, 1, HSAQM_AMD_EXT_SIZE_ROCM_4_5 },
	[HSAQM_API_LAYOUT_ROCM_5_5] = { "rocm-5.5", 1, 1, HSAQM_AMD_EXT_SIZE_ROCM_5_5 },
	[HSAQM_API_LAYOUT_ROCM_5_6] = { "rocm-5.6-5.7", 1, 1, HSAQM_AMD_EXT_SIZE_ROCM_5_6 },
	[HSAQM_API_LAYOUT_ROCM_6_0] = { "rocm-6.0", 2, 2, HSAQM_AMD_EXT_SIZE_ROCM_6_0 },
	[HSAQM_API_LAYOUT_ROCM_6_1] = { "rocm-6.1+", 3, 2, HSAQM_AMD_EXT_SIZE_ROCM_6_1 },
};

/*
 * The headers each release's ROCr writes (its hsa_api_trace.h and hsa_api_trace_version.h;
 * docs/hsa-api-tables.md says which were read). CoreApiTable is 1016 bytes, step 0, in all.
 */
struct release_desc {
	const char *name;
	enum hsaqm_api_layout_id layout;
	uint32_t root_size, root_step;
	uint32_t amd_ext_size, amd_ext_step;
	uint32_t queue_desc_size;	/* what ROCr's Queue::Convert skips */
};

#define QD1 HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V1
#define QD2 HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V2

static const struct release_desc releases[HSAQM_API_RELEASE_COUNT] = {
	[HSAQM_API_RELEASE_UNKNOWN] = { "unknown", HSAQM_API_LAYOUT_UNKNOWN, 0, 0, 0, 0, 0 },
	[HSAQM_API_RELEASE_ROCM_4_5] = { "rocm-4.5-5.4", HSAQM_API_LAYOUT_ROCM_4_5,
					 HSAQM_ROOT_SIZE_V1, 0, HSAQM_AMD_EXT_SIZE_ROCM_4_5, 0, QD1 },
	[HSAQM_API_RELEASE_ROCM_5_5] = { "rocm-5.5", HSAQM_API_LAYOUT_ROCM_5_5, HSAQM_ROOT_SIZE_V1,
					 0, HSAQM_AMD_EXT_SIZE_ROCM_5_5, 0, QD1 },
	[HSAQM_API_RELEASE_ROCM_5_6] = { "rocm-5.6-5.7", HSAQM_API_LAYOUT_ROCM_5_6,
					 HSAQM_ROOT_SIZE_V1, 0, HSAQM_AMD_EXT_SIZE_ROCM_5_6, 0, QD1 },
	[HSAQM_API_RELEASE_ROCM_6_0] = { "rocm-6.0", HSAQM_API_LAYOUT_ROCM_6_0, HSAQM_ROOT_SIZE_V1,
					 0, HSAQM_AMD_EXT_SIZE_ROCM_6_0, 0, QD1 },
	[HSAQM_API_RELEASE_ROCM_6_1] = { "rocm-6.1", HSAQM_API_LAYOUT_ROCM_6_1,
					 HSAQM_ROOT_SIZE_V3_ROCM_6_1, 0, HSAQM_AMD_EXT_SIZE_ROCM_6_1,
					 1, QD1 },
	[HSAQM_API_RELEASE_ROCM_6_2] = { "rocm-6.2", HSAQM_API_LAYOUT_ROCM_6_1,
					 HSAQM_ROOT_SIZE_V3_ROCM_6_2, 1, HSAQM_AMD_EXT_SIZE_ROCM_6_2,
					 3, QD1 },
	[HSAQM_API_RELEASE_ROCM_6_3] = { "rocm-6.3", HSAQM_API_LAYOUT_ROCM_6_1,
					 HSAQM_ROOT_SIZE_V3_ROCM_6_2, 1, HSAQM_AMD_EXT_SIZE_ROCM_6_3,
					 4, QD1 },
	[HSAQM_API_RELEASE_ROCM_6_4] = { "rocm-6.4", HSAQM_API_LAYOUT_ROCM_6_1,
					 HSAQM_ROOT_SIZE_V3_ROCM_6_2, 1, HSAQM_AMD_EXT_SIZE_ROCM_6_4,
					 5, QD2 },
	[HSAQM_API_RELEASE_ROCM_7_0] = { "rocm-7.0", HSAQM_API_LAYOUT_ROCM_6_1,
					 HSAQM_ROOT_SIZE_V3_ROCM_6_2, 1, HSAQM_AMD_EXT_SIZE_ROCM_7_0,
					 7, QD2 },
	[HSAQM_API_RELEASE_ROCM_7_2] = { "rocm-7.2", HSAQM_API_LAYOUT_ROCM_6_1,
					 HSAQM_ROOT_SIZE_V3_ROCM_6_2, 1, HSAQM_AMD_EXT_SIZE_ROCM_7_2,
					 8, QD2 },
};

/*
 * The last AmdExt step whose ROCr used amd_queue_t as its queue descriptor; from the next,
 * amd_queue_v2_t. The descriptor changed on 2025-02-06 (upstream "Update for new async
 * scratch reclaim"), between step 5 (2024-10-16) and step 6 (2025-04-10): the one release
 * of step 5, 6.4, has amd_queue_v2_t (its binaries read at 0x900), a development build of
 * step 5 from before February 2025 has not, and has the same headers as 6.4.
 */
#define QUEUE_DESC_V1_UP_TO_STEP 4u

/*
 * Where each entry sits. off[] holds the byte offset per layout, taken from the mirror
 * structs so that their compile-time checks cover this table too; 0 means the layout
 * has no such entry. step is the AmdExt step_id that added an entry appended in major 2.
 */
struct entry_desc {
	const char *name;
	uint8_t table;
	uint32_t step;
	uint32_t off[HSAQM_API_LAYOUT_COUNT];
};

#define CORE_OFF(f) offsetof(struct hsaqm_core_api_table, f)
#define CORE(e, fn)                                                                        \
	[e] = { #fn, HSAQM_API_TABLE_CORE, 0,                                              \
		{ 0, CORE_OFF(fn##_fn), CORE_OFF(fn##_fn), CORE_OFF(fn##_fn),              \
		  CORE_OFF(fn##_fn), CORE_OFF(fn##_fn) } }

/* An AmdExtTable entry every known layout has. */
#define AMD(e, fn)                                                                         \
	[e] = { #fn, HSAQM_API_TABLE_AMD_EXT, 0,                                           \
		{ 0, offsetof(struct hsaqm_amd_ext_table_4_5, fn##_fn),                    \
		  offsetof(struct hsaqm_amd_ext_table_5_5, fn##_fn),                       \
		  offsetof(struct hsaqm_amd_ext_table_5_6, fn##_fn),                       \
		  offsetof(struct hsaqm_amd_ext_table_v2, fn##_fn),                        \
		  offsetof(struct hsaqm_amd_ext_table_v2, fn##_fn) } }

/* An AmdExtTable entry appended in major 2 at step `step`. */
#define AMD_V2(e, fn, step)                                                                \
	[e] = { #fn, HSAQM_API_TABLE_AMD_EXT, step,                                        \
		{ 0, 0, 0, 0, offsetof(struct hsaqm_amd_ext_table_v2, fn##_fn),            \
		  offsetof(struct hsaqm_amd_ext_table_v2, fn##_fn) } }

/* A ToolsApiTable entry: only under root major 3. */
#define TOOLS(e, fn)                                                                       \
	[e] = { #fn, HSAQM_API_TABLE_TOOLS, 0,                                             \
		{ 0, 0, 0, 0, 0, offsetof(struct hsaqm_tools_api_table, fn##_fn) } }

static const struct entry_desc entries[HSAQM_API_ENTRY_COUNT] = {
	CORE(HSAQM_API_HSA_INIT, hsa_init),
	CORE(HSAQM_API_HSA_SHUT_DOWN, hsa_shut_down),
	CORE(HSAQM_API_SYSTEM_GET_INFO, hsa_system_get_info),
	CORE(HSAQM_API_ITERATE_AGENTS, hsa_iterate_agents),
	CORE(HSAQM_API_AGENT_GET_INFO, hsa_agent_get_info),
	CORE(HSAQM_API_QUEUE_CREATE, hsa_queue_create),
	CORE(HSAQM_API_QUEUE_DESTROY, hsa_queue_destroy),
	CORE(HSAQM_API_QUEUE_INACTIVATE, hsa_queue_inactivate),
	CORE(HSAQM_API_QUEUE_LOAD_READ_INDEX_SCACQUIRE, hsa_queue_load_read_index_scacquire),
	CORE(HSAQM_API_QUEUE_LOAD_READ_INDEX_RELAXED, hsa_queue_load_read_index_relaxed),
	CORE(HSAQM_API_QUEUE_LOAD_WRITE_INDEX_SCACQUIRE, hsa_queue_load_write_index_scacquire),
	CORE(HSAQM_API_QUEUE_LOAD_WRITE_INDEX_RELAXED, hsa_queue_load_write_index_relaxed),
	CORE(HSAQM_API_QUEUE_STORE_WRITE_INDEX_RELAXED, hsa_queue_store_write_index_relaxed),
	CORE(HSAQM_API_QUEUE_STORE_WRITE_INDEX_SCRELEASE, hsa_queue_store_write_index_screlease),
	CORE(HSAQM_API_QUEUE_CAS_WRITE_INDEX_SCACQ_SCREL, hsa_queue_cas_write_index_scacq_screl),
	CORE(HSAQM_API_QUEUE_CAS_WRITE_INDEX_SCACQUIRE, hsa_queue_cas_write_index_scacquire),
	CORE(HSAQM_API_QUEUE_CAS_WRITE_INDEX_RELAXED, hsa_queue_cas_write_index_relaxed),
	CORE(HSAQM_API_QUEUE_CAS_WRITE_INDEX_SCRELEASE, hsa_queue_cas_write_index_screlease),
	CORE(HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCACQ_SCREL, hsa_queue_add_write_index_scacq_screl),
	CORE(HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCACQUIRE, hsa_queue_add_write_index_scacquire),
	CORE(HSAQM_API_QUEUE_ADD_WRITE_INDEX_RELAXED, hsa_queue_add_write_index_relaxed),
	CORE(HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCRELEASE, hsa_queue_add_write_index_screlease),
	CORE(HSAQM_API_QUEUE_STORE_READ_INDEX_RELAXED, hsa_queue_store_read_index_relaxed),
	CORE(HSAQM_API_QUEUE_STORE_READ_INDEX_SCRELEASE, hsa_queue_store_read_index_screlease),
	CORE(HSAQM_API_SIGNAL_CREATE, hsa_signal_create),
	CORE(HSAQM_API_SIGNAL_DESTROY, hsa_signal_destroy),
	CORE(HSAQM_API_SIGNAL_LOAD_RELAXED, hsa_signal_load_relaxed),
	CORE(HSAQM_API_SIGNAL_LOAD_SCACQUIRE, hsa_signal_load_scacquire),
	CORE(HSAQM_API_SIGNAL_STORE_RELAXED, hsa_signal_store_relaxed),
	CORE(HSAQM_API_SIGNAL_STORE_SCRELEASE, hsa_signal_store_screlease),
	CORE(HSAQM_API_SIGNAL_SILENT_STORE_RELAXED, hsa_signal_silent_store_relaxed),
	CORE(HSAQM_API_SIGNAL_SILENT_STORE_SCRELEASE, hsa_signal_silent_store_screlease),
	CORE(HSAQM_API_SIGNAL_WAIT_RELAXED, hsa_signal_wait_relaxed),
	CORE(HSAQM_API_SIGNAL_WAIT_SCACQUIRE, hsa_signal_wait_scacquire),
	CORE(HSAQM_API_SIGNAL_AND_RELAXED, hsa_signal_and_relaxed),
	CORE(HSAQM_API_SIGNAL_AND_SCACQUIRE, hsa_signal_and_scacquire),
	CORE(HSAQM_API_SIGNAL_AND_SCRELEASE, hsa_signal_and_screlease),
	CORE(HSAQM_API_SIGNAL_AND_SCACQ_SCREL, hsa_signal_and_scacq_screl),
	CORE(HSAQM_API_SIGNAL_OR_RELAXED, hsa_signal_or_relaxed),
	CORE(HSAQM_API_SIGNAL_OR_SCACQUIRE, hsa_signal_or_scacquire),
	CORE(HSAQM_API_SIGNAL_OR_SCRELEASE, hsa_signal_or_screlease),
	CORE(HSAQM_API_SIGNAL_OR_SCACQ_SCREL, hsa_signal_or_scacq_screl),
	CORE(HSAQM_API_SIGNAL_XOR_RELAXED, hsa_signal_xor_relaxed),
	CORE(HSAQM_API_SIGNAL_XOR_SCACQUIRE, hsa_signal_xor_scacquire),
	CORE(HSAQM_API_SIGNAL_XOR_SCRELEASE, hsa_signal_xor_screlease),
	CORE(HSAQM_API_SIGNAL_XOR_SCACQ_SCREL, hsa_signal_xor_scacq_screl),
	CORE(HSAQM_API_SIGNAL_EXCHANGE_RELAXED, hsa_signal_exchange_relaxed),
	CORE(HSAQM_API_SIGNAL_EXCHANGE_SCACQUIRE, hsa_signal_exchange_scacquire),
	CORE(HSAQM_API_SIGNAL_EXCHANGE_SCRELEASE, hsa_signal_exchange_screlease),
	CORE(HSAQM_API_SIGNAL_EXCHANGE_SCACQ_SCREL, hsa_signal_exchange_scacq_screl),
	CORE(HSAQM_API_SIGNAL_ADD_RELAXED, hsa_signal_add_relaxed),
	CORE(HSAQM_API_SIGNAL_ADD_SCACQUIRE, hsa_signal_add_scacquire),
	CORE(HSAQM_API_SIGNAL_ADD_SCRELEASE, hsa_signal_add_screlease),
	CORE(HSAQM_API_SIGNAL_ADD_SCACQ_SCREL, hsa_signal_add_scacq_screl),
	CORE(HSAQM_API_SIGNAL_SUBTRACT_RELAXED, hsa_signal_subtract_relaxed),
	CORE(HSAQM_API_SIGNAL_SUBTRACT_SCACQUIRE, hsa_signal_subtract_scacquire),
	CORE(HSAQM_API_SIGNAL_SUBTRACT_SCRELEASE, hsa_signal_subtract_screlease),
	CORE(HSAQM_API_SIGNAL_SUBTRACT_SCACQ_SCREL, hsa_signal_subtract_scacq_screl),
	CORE(HSAQM_API_SIGNAL_CAS_RELAXED, hsa_signal_cas_relaxed),
	CORE(HSAQM_API_SIGNAL_CAS_SCACQUIRE, hsa_signal_cas_scacquire),
	CORE(HSAQM_API_SIGNAL_CAS_SCRELEASE, hsa_signal_cas_screlease),
	CORE(HSAQM_API_SIGNAL_CAS_SCACQ_SCREL, hsa_signal_cas_scacq_screl),
	CORE(HSAQM_API_EXECUTABLE_FREEZE, hsa_executable_freeze),
	CORE(HSAQM_API_EXECUTABLE_SYMBOL_GET_INFO, hsa_executable_symbol_get_info),
	CORE(HSAQM_API_EXECUTABLE_ITERATE_SYMBOLS, hsa_executable_iterate_symbols),
	AMD(HSAQM_API_AMD_PROFILING_SET_PROFILER_ENABLED, hsa_amd_profiling_set_profiler_enabled),
	AMD(HSAQM_API_AMD_PROFILING_GET_DISPATCH_TIME, hsa_amd_profiling_get_dispatch_time),
	AMD(HSAQM_API_AMD_SIGNAL_ASYNC_HANDLER, hsa_amd_signal_async_handler),
	AMD(HSAQM_API_AMD_SIGNAL_WAIT_ANY, hsa_amd_signal_wait_any),
	AMD(HSAQM_API_AMD_QUEUE_CU_SET_MASK, hsa_amd_queue_cu_set_mask),
	AMD(HSAQM_API_AMD_QUEUE_INTERCEPT_CREATE, hsa_amd_queue_intercept_create),
	AMD(HSAQM_API_AMD_QUEUE_INTERCEPT_REGISTER, hsa_amd_queue_intercept_register),
	AMD(HSAQM_API_AMD_QUEUE_SET_PRIORITY, hsa_amd_queue_set_priority),
	AMD(HSAQM_API_AMD_QUEUE_CU_GET_MASK, hsa_amd_queue_cu_get_mask),
	AMD_V2(HSAQM_API_AMD_QUEUE_GET_INFO, hsa_amd_queue_get_info, 0x02),
	AMD_V2(HSAQM_API_AMD_COUNTED_QUEUE_ACQUIRE, hsa_amd_counted_queue_acquire, 0x09),
	AMD_V2(HSAQM_API_AMD_COUNTED_QUEUE_RELEASE, hsa_amd_counted_queue_release, 0x09),
	AMD_V2(HSAQM_API_AMD_QUEUE_CREATE, hsa_amd_queue_create, 0x10),
	TOOLS(HSAQM_API_TOOLS_SCRATCH_ALLOC_END, hsa_amd_tool_scratch_event_alloc_end),
	TOOLS(HSAQM_API_TOOLS_SCRATCH_FREE_END, hsa_amd_tool_scratch_event_free_end),
	TOOLS(HSAQM_API_TOOLS_SCRATCH_ASYNC_RECLAIM_END, hsa_amd_tool_scratch_event_async_reclaim_end),
};

/* Every enum value has a row: a missing one would leave a NULL name and zero offsets. */
HSAQM_STATIC_ASSERT(sizeof(entries) / sizeof(entries[0]) == HSAQM_API_ENTRY_COUNT,
		    "one row per hsaqm_api_entry");

const char *hsaqm_api_entry_name(enum hsaqm_api_entry e)
{
	if ((unsigned int)e >= HSAQM_API_ENTRY_COUNT || !entries[e].name)
		return "(invalid entry)";
	return entries[e].name;
}

const char *hsaqm_api_layout_name(enum hsaqm_api_layout_id id)
{
	if ((unsigned int)id >= HSAQM_API_LAYOUT_COUNT)
		return layouts[HSAQM_API_LAYOUT_UNKNOWN].name;
	return layouts[id].name;
}

const char *hsaqm_api_release_name(enum hsaqm_api_release r)
{
	if ((unsigned int)r >= HSAQM_API_RELEASE_COUNT)
		return releases[HSAQM_API_RELEASE_UNKNOWN].name;
	return releases[r].name;
}

/*
 * The root's core and amd_ext pointers, read as bytes: the root's alignment is the
 * runtime's business and memcpy does not care. Same offsets in every root major.
 */
static void *root_pointer(const void *root_table, size_t off)
{
	void *p;

	memcpy(&p, (const char *)root_table + off, sizeof(p));
	return p;
}

#define ROOT_CORE_OFF offsetof(struct hsaqm_api_root_v1, core)
#define ROOT_AMD_EXT_OFF offsetof(struct hsaqm_api_root_v1, amd_ext)
#define ROOT_TOOLS_OFF offsetof(struct hsaqm_api_root_v3, tools)
/* A root must reach past amd_ext for hsaqm to use it. */
#define ROOT_MIN_SIZE (ROOT_AMD_EXT_OFF + sizeof(void *))

HSAQM_STATIC_ASSERT(ROOT_CORE_OFF == 16 && ROOT_AMD_EXT_OFF == 24 &&
			    offsetof(struct hsaqm_api_root_v2, amd_ext) == 24 &&
			    offsetof(struct hsaqm_api_root_v3, amd_ext) == 24,
		    "core and amd_ext sit at the same offsets in every root major");

static void read_version(const void *table, struct hsaqm_api_table_version *v)
{
	memcpy(v, table, sizeof(*v));
}

/* Pick the layout from the version headers; HSAQM_API_LAYOUT_UNKNOWN if none fits. */
static enum hsaqm_api_layout_id match_layout(const struct hsaqm_api_layout *l)
{
	switch (l->root.major_id) {
	case 1:
		/* Exact sizes: see the comment at the top of the file. */
		if (l->core.minor_id != HSAQM_CORE_API_TABLE_SIZE) {
			hsaqm_log_warn("CoreApiTable of %u bytes under root major 1: only %u known",
				       l->core.minor_id, HSAQM_CORE_API_TABLE_SIZE);
			return HSAQM_API_LAYOUT_UNKNOWN;
		}
		for (int id = HSAQM_API_LAYOUT_ROCM_4_5; id <= HSAQM_API_LAYOUT_ROCM_5_6; id++)
			if (l->amd_ext.minor_id == layouts[id].amd_ext_size)
				return (enum hsaqm_api_layout_id)id;
		hsaqm_log_warn("AmdExtTable of %u bytes under root major 1: no ROCm 4.5-5.7 layout",
			       l->amd_ext.minor_id);
		return HSAQM_API_LAYOUT_UNKNOWN;
	case 2:
	case 3: {
		enum hsaqm_api_layout_id id = l->root.major_id == 2 ? HSAQM_API_LAYOUT_ROCM_6_0 :
								      HSAQM_API_LAYOUT_ROCM_6_1;

		if (l->core.minor_id < HSAQM_CORE_API_TABLE_SIZE ||
		    l->amd_ext.minor_id < layouts[id].amd_ext_size) {
			hsaqm_log_warn("root major %u with CoreApiTable %u / AmdExtTable %u bytes: "
				       "smaller than ROCm's first tables of that major (%u / %u)",
				       l->root.major_id, l->core.minor_id, l->amd_ext.minor_id,
				       HSAQM_CORE_API_TABLE_SIZE, layouts[id].amd_ext_size);
			return HSAQM_API_LAYOUT_UNKNOWN;
		}
		return id;
	}
	default:
		hsaqm_log_warn("unknown API table root major %u", l->root.major_id);
		return HSAQM_API_LAYOUT_UNKNOWN;
	}
}

/* The release whose headers l's are exactly, and its queue descriptor size. */
static void match_release(struct hsaqm_api_layout *l)
{
	l->release = HSAQM_API_RELEASE_UNKNOWN;
	for (int r = HSAQM_API_RELEASE_ROCM_4_5; r < HSAQM_API_RELEASE_COUNT; r++) {
		const struct release_desc *d = &releases[r];

		if (d->layout == l->id && d->root_size == l->root.minor_id &&
		    d->root_step == l->root.step_id &&
		    l->core.minor_id == HSAQM_CORE_API_TABLE_SIZE && l->core.step_id == 0 &&
		    d->amd_ext_size == l->amd_ext.minor_id && d->amd_ext_step == l->amd_ext.step_id) {
			l->release = (enum hsaqm_api_release)r;
			l->queue_desc_size = d->queue_desc_size;
			return;
		}
	}
	/* No release's headers: the AmdExt step still dates a major-2 table. */
	l->queue_desc_size = l->root.major_id == 1 || l->amd_ext.step_id <= QUEUE_DESC_V1_UP_TO_STEP ?
				     HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V1 :
				     HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V2;
}

/* Fill l->entry[] for layout l->id. */
static void locate_entries(struct hsaqm_api_layout *l)
{
	for (int e = 0; e < HSAQM_API_ENTRY_COUNT; e++) {
		const struct entry_desc *d = &entries[e];
		const struct hsaqm_api_table_version *v =
			d->table == HSAQM_API_TABLE_CORE ? &l->core :
			d->table == HSAQM_API_TABLE_AMD_EXT ? &l->amd_ext : &l->tools;
		uint32_t off = d->off[l->id];
		struct hsaqm_api_entry_loc *loc = &l->entry[e];

		loc->table = d->table;
		/* Inside the declared size (64-bit sum: minor_id is untrusted input). */
		if (off == 0 || (uint64_t)off + sizeof(void *) > v->minor_id)
			continue;
		if (d->step && v->step_id < d->step)
			continue;
		/* A ToolsApiTable of a major hsaqm has not read (or none: all zero) is unused. */
		if (d->table == HSAQM_API_TABLE_TOOLS && v->major_id != HSAQM_TOOLS_API_TABLE_MAJOR)
			continue;
		loc->present = true;
		loc->offset = off;
	}
}

int hsaqm_api_table_detect(const void *root_table, uint64_t runtime_version,
			   struct hsaqm_api_layout *out)
{
	const void *core, *amd_ext;

	if (!root_table || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->name = layouts[HSAQM_API_LAYOUT_UNKNOWN].name;
	out->runtime_version = runtime_version;

	read_version(root_table, &out->root);
	if (out->root.major_id < 1 || out->root.major_id > 3) {
		hsaqm_log_warn("unknown API table root major %u", out->root.major_id);
		return -ENOTSUP;
	}
	if (out->root.minor_id < ROOT_MIN_SIZE) {
		hsaqm_log_warn("API table root of %u bytes cannot hold the AMD extension table",
			       out->root.minor_id);
		return -ENOTSUP;
	}
	/* ROCr passes the root major here; anything else is worth a note, not a refusal. */
	if (runtime_version != out->root.major_id)
		hsaqm_log_info("OnLoad runtime_version %llu differs from the root major %u; "
			       "going by the table", (unsigned long long)runtime_version,
			       out->root.major_id);

	core = root_pointer(root_table, ROOT_CORE_OFF);
	amd_ext = root_pointer(root_table, ROOT_AMD_EXT_OFF);
	if (!core || !amd_ext) {
		hsaqm_log_warn("API table root without %s table", !core ? "core" : "AMD extension");
		return -ENOTSUP;
	}
	read_version(core, &out->core);
	read_version(amd_ext, &out->amd_ext);

	/* ROCr's rule for sub-tables: a major that differs from the expected one is unusable. */
	{
		uint32_t want = out->root.major_id == 1 ? 1 : 2;

		if (out->core.major_id != want || out->amd_ext.major_id != want) {
			hsaqm_log_warn("root major %u with sub-table majors core %u, AMD ext %u "
				       "(expected %u)", out->root.major_id, out->core.major_id,
				       out->amd_ext.major_id, want);
			return -ENOTSUP;
		}
	}

	out->id = match_layout(out);
	if (out->id == HSAQM_API_LAYOUT_UNKNOWN)
		return -ENOTSUP;
	/* Root major 3: the ToolsApiTable, when the root reaches its pointer and it is set. */
	if (out->root.major_id == 3 && out->root.minor_id >= ROOT_TOOLS_OFF + sizeof(void *)) {
		const void *tools = root_pointer(root_table, ROOT_TOOLS_OFF);

		if (tools)
			read_version(tools, &out->tools);
	}
	match_release(out);
	out->name = out->release != HSAQM_API_RELEASE_UNKNOWN ? releases[out->release].name :
								 layouts[out->id].name;
	locate_entries(out);
	hsaqm_log_debug("API tables: %s, layout %s (root %u.%u.%u, core %u bytes, AMD ext %u "
			"bytes step %u, queue descriptor %u bytes)", out->name,
			layouts[out->id].name, out->root.major_id, out->root.minor_id,
			out->root.step_id, out->core.minor_id, out->amd_ext.minor_id,
			out->amd_ext.step_id, out->queue_desc_size);
	return 0;
}

void **hsaqm_api_table_slot(void *root_table, const struct hsaqm_api_layout *l,
			    enum hsaqm_api_entry e)
{
	const struct hsaqm_api_entry_loc *loc;
	char *sub;

	if (!root_table || !l || (unsigned int)l->id >= HSAQM_API_LAYOUT_COUNT ||
	    l->id == HSAQM_API_LAYOUT_UNKNOWN || (unsigned int)e >= HSAQM_API_ENTRY_COUNT)
		return NULL;
	loc = &l->entry[e];
	if (!loc->present)
		return NULL;
	sub = root_pointer(root_table, loc->table == HSAQM_API_TABLE_CORE    ? ROOT_CORE_OFF :
				       loc->table == HSAQM_API_TABLE_AMD_EXT ? ROOT_AMD_EXT_OFF :
									       ROOT_TOOLS_OFF);
	if (!sub)
		return NULL;
	return (void **)(sub + loc->offset);
}
