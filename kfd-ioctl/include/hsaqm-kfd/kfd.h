/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-kfd/kfd.h - the /dev/kfd layer of hsaqm.
 *
 * What it offers, all through a transport (hsaqm-kfd/kfd_transport.h) so the same code runs on the
 * real driver and on sim/'s KFD face:
 *   - a KFD handle: open, fork detection, close, THE ioctl wrapper, the interface version;
 *   - queues: create, update, destroy, CU mask, wave state;
 *   - the debugger API (interface 1.13+): runtime enable, DBG_TRAP enable/disable, suspend and
 *     resume queues, queue and device snapshots, debug events, with per-entry result decoding;
 *   - topology from sysfs: nodes and their properties, capability bits by name, amdgpu module
 *     parameters;
 *   - CWSR save-area sizing (from sysfs when the kernel exports it, else the KFD formula);
 *   - parsers for the debugfs files kfd/hqds and kfd/rls.
 *
 * Errors: every function returns 0 (or the count it documents) or a negative errno. A kernel
 * errno is passed through unchanged; docs/kfd-ioctl.md lists what each call can return and why.
 * Bad arguments give -EINVAL before anything reaches the transport.
 *
 * Threads: a handle may be used from several threads at once (the ioctl path keeps no mutable
 * state), except hsaqm_kfd_close(), hsaqm_kfd_reopen() and the DBG_TRAP enable/disable pair,
 * which the caller serializes. A process opens one handle per transport.
 */
#ifndef HSAQM_KFD_H
#define HSAQM_KFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hsaqm-kfd/kfd_transport.h"
#include "hsaqm-kfd/kfd_uapi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== the handle ========================================================================== */

struct hsaqm_kfd; /* opaque */

/* Attempts of one ioctl before an EINTR or EAGAIN is returned to the caller. */
#define HSAQM_KFD_IOCTL_MAX_TRIES 64

/**
 * hsaqm_kfd_open() - open the KFD of a transport and read its interface version.
 * @tp:  the transport (hsaqm_kfd_transport_system() for /dev/kfd).
 * @out: the new handle.
 *
 * The handle remembers the process that opened it: a fork child must not use it (the KFD ties
 * the file to the opening process and its queues), see hsaqm_kfd_reopen().
 *
 * Return: 0; -EINVAL for a NULL argument or a transport without open/close/ioctl; -ENOMEM;
 * the transport's open error (-ENOENT no /dev/kfd, -EACCES not in the render group, ...);
 * the error of GET_VERSION; -EPROTO if the KFD reports a major version other than 1.
 */
int hsaqm_kfd_open(const struct hsaqm_kfd_transport *tp, struct hsaqm_kfd **out);

/**
 * hsaqm_kfd_close() - close the handle and free it.
 *
 * In the process that opened it, the KFD destroys the process's remaining queues when its last
 * reference goes. A debug session this handle enabled is disabled first (that resumes any
 * queue it suspended). In a fork child only the inherited descriptor is dropped.
 *
 * Return: 0, or the transport's close error (the handle is freed in every case); -EINVAL for
 * NULL.
 */
int hsaqm_kfd_close(struct hsaqm_kfd *kfd);

/**
 * hsaqm_kfd_reopen() - give a fork child its own KFD handle.
 *
 * Drops the descriptor inherited from the parent (which stays the parent's) and opens the
 * transport again for the calling process. Nothing of the parent's state (queues, debug
 * session, mappings) exists in the child. In the process that opened the handle it does nothing.
 *
 * Return: 0; the errors of hsaqm_kfd_open(); -EINVAL for NULL.
 */
int hsaqm_kfd_reopen(struct hsaqm_kfd *kfd);

/**
 * hsaqm_kfd_is_stale() - whether the handle was inherited through fork().
 *
 * Return: true in a process other than the one that opened the handle (or for NULL).
 */
bool hsaqm_kfd_is_stale(const struct hsaqm_kfd *kfd);

/**
 * hsaqm_kfd_ioctl() - THE ioctl of hsaqm: one request to the KFD, errno kept.
 * @request: an HSAQM_KFD_IOC_* number.
 * @arg:     its argument struct.
 *
 * Retries a request the kernel interrupted (EINTR) or asked to repeat (EAGAIN), at most
 * HSAQM_KFD_IOCTL_MAX_TRIES times in all; a blocking RUNTIME_ENABLE relies on the EINTR retry.
 *
 * Return: the kernel's non-negative result (0, or a count for DBG_TRAP suspend/resume), or its
 * -errno; -EBADF in a fork child (hsaqm_kfd_reopen() first); -EINVAL for a NULL handle.
 */
int hsaqm_kfd_ioctl(struct hsaqm_kfd *kfd, unsigned long request, void *arg);

/**
 * hsaqm_kfd_get_version() - the KFD interface version read at open.
 * @major, @minor: either may be NULL.
 *
 * Return: 0; -EINVAL for a NULL handle.
 */
int hsaqm_kfd_get_version(const struct hsaqm_kfd *kfd, uint32_t *major, uint32_t *minor);

/**
 * hsaqm_kfd_version_at_least() - whether the KFD interface is @major.@minor or newer.
 *
 * Return: true or false (false for a NULL handle).
 */
bool hsaqm_kfd_version_at_least(const struct hsaqm_kfd *kfd, uint32_t major, uint32_t minor);

/**
 * hsaqm_kfd_transport_of() - the transport a handle was opened on.
 *
 * Return: the transport; NULL for a NULL handle.
 */
const struct hsaqm_kfd_transport *hsaqm_kfd_transport_of(const struct hsaqm_kfd *kfd);

/**
 * hsaqm_kfd_mmap() - map pages of the KFD handle (doorbells, events page).
 * @out: the address.
 *
 * Return: 0; the transport's mmap errno; -EBADF in a fork child; -EINVAL for bad arguments.
 */
int hsaqm_kfd_mmap(struct hsaqm_kfd *kfd, void *addr, size_t len, int prot, int flags,
		   off_t offset, void **out);

/**
 * hsaqm_kfd_munmap() - undo hsaqm_kfd_mmap().
 *
 * Return: 0, the transport's munmap errno, or -EINVAL for bad arguments.
 */
int hsaqm_kfd_munmap(struct hsaqm_kfd *kfd, void *addr, size_t len);

/* ==== queues ============================================================================= */

/**
 * hsaqm_kfd_queue_create() - AMDKFD_IOC_CREATE_QUEUE.
 * @args: in/out; queue_id and doorbell_offset are filled on success.
 *
 * Checked before the call: queue type, priority <= 15, percentage (bits 0-7) <= 100, ring size
 * a power of two (or 0), metadata ring size 0 or a power of two. A KFD older than 1.17 gets
 * the 88-byte argument it knows; asking it for a queue on a given SDMA engine is refused.
 * A compute queue needs a CWSR area of the node's size (hsaqm_cwsr_sizes_get()); kernels from
 * 6.12 also want the ring, pointers, EOP buffer and CWSR area mapped on the GPU.
 *
 * Return: 0; -EINVAL for bad arguments; -EOPNOTSUPP for SDMA_BY_ENG_ID before 1.17; the
 * kernel's errno (-EINVAL unknown gpu_id or wrong CWSR sizes, -EFAULT unreadable addresses,
 * -ENOMEM no queue id left, -EBUSY no doorbell left, -EPERM oversubscription refused with
 * sched_policy=1, -ESRCH process cannot bind to the device, 524 (kernel ENOTSUPP) for a type
 * the KFD does not know).
 */
int hsaqm_kfd_queue_create(struct hsaqm_kfd *kfd, struct hsaqm_kfd_create_queue_args *args);

/**
 * hsaqm_kfd_queue_destroy() - AMDKFD_IOC_DESTROY_QUEUE.
 *
 * The kernel waits while the queue is suspended by DBG_TRAP: resume it first.
 *
 * Return: 0; the kernel's errno (-EINVAL no such queue; -ETIME the preemption timed out and
 * the queue was destroyed anyway).
 */
int hsaqm_kfd_queue_destroy(struct hsaqm_kfd *kfd, uint32_t queue_id);

/**
 * hsaqm_kfd_queue_update() - AMDKFD_IOC_UPDATE_QUEUE: ring, percentage, priority.
 *
 * A percentage of 0 (or, from 6.12, a NULL ring) makes the queue inactive: on an HWS device
 * the KFD unmaps every dynamic queue of the device to do it. Never use that on a GPU shared
 * with another process unless asked to (design.md).
 *
 * Return: 0; -EINVAL for priority > 15, percentage > 100 or a ring size that is not a power
 * of two; the kernel's errno (-EFAULT no such queue, or a ring not mapped on the GPU).
 */
int hsaqm_kfd_queue_update(struct hsaqm_kfd *kfd, uint32_t queue_id, uint64_t ring_base,
			   uint32_t ring_size, uint32_t percentage, uint32_t priority);

/**
 * hsaqm_kfd_queue_set_cu_mask() - AMDKFD_IOC_SET_CU_MASK.
 * @mask:     @num_bits bits, bit i of word i/32 enables CU i (the KFD spreads them over XCCs
 *            and shader engines).
 * @num_bits: a non-zero multiple of 32; the KFD ignores bits past 1024.
 *
 * Return: 0; -EINVAL for a NULL mask or a bad count; the kernel's errno (-EFAULT no such
 * queue; -EBUSY the debugger's CU workaround owns the mask).
 */
int hsaqm_kfd_queue_set_cu_mask(struct hsaqm_kfd *kfd, uint32_t queue_id, const uint32_t *mask,
				uint32_t num_bits);

/**
 * hsaqm_kfd_queue_get_wave_state() - AMDKFD_IOC_GET_QUEUE_WAVE_STATE.
 * @ctl_stack:           where the KFD copies the queue's control stack (the node's
 *                       ctl_stack_size bytes).
 * @ctl_stack_used:      out, may be NULL.
 * @save_area_used:      out, may be NULL.
 *
 * Meaningful while the queue is preempted (suspended).
 *
 * Return: 0; -EINVAL for a NULL buffer; the kernel's errno (-EFAULT no such queue, -EINVAL
 * not a compute queue or CWSR off).
 */
int hsaqm_kfd_queue_get_wave_state(struct hsaqm_kfd *kfd, uint32_t queue_id, void *ctl_stack,
				   uint32_t *ctl_stack_used, uint32_t *save_area_used);

/* ==== the debugger API (interface 1.13+) ================================================== */

/*
 * Every function of this section returns -EOPNOTSUPP, and logs why once (HSAQM_LOG=warn),
 * when the KFD interface is older than 1.13: such a kernel does not know the ioctls at all.
 * The kernel's own errors, common to DBG_TRAP operations:
 *   -EINVAL  debugging not enabled (any op but ENABLE), or sched_policy=2 (no HWS)
 *   -EPERM   a hardware op (suspend, resume, ...) while the runtime is not enabled
 *            (the uapi comment says EACCES; the code has returned EPERM since 6.4)
 *   -ESRCH   the target process is gone
 *   -EOPNOTSUPP  a secondary KFD context (1.19+)
 */

/**
 * hsaqm_kfd_runtime_enable() - AMDKFD_IOC_RUNTIME_ENABLE, enable.
 * @r_debug:   address of the process's r_debug (ROCr passes its own), may be 0.
 * @ttmp_save: ask the KFD to set up trap temporaries.
 *
 * ROCr already does this in every HSA process: a second enable returns -EBUSY.
 *
 * Return: 0; -EOPNOTSUPP before 1.13; -EBUSY already enabled; -EEXIST the process already has
 * queues.
 */
int hsaqm_kfd_runtime_enable(struct hsaqm_kfd *kfd, uint64_t r_debug, bool ttmp_save);

/**
 * hsaqm_kfd_runtime_disable() - AMDKFD_IOC_RUNTIME_ENABLE, disable.
 *
 * Return: 0; -EOPNOTSUPP before 1.13; the kernel's errno.
 */
int hsaqm_kfd_runtime_disable(struct hsaqm_kfd *kfd);

/**
 * hsaqm_kfd_dbg_enable() - DBG_TRAP ENABLE on the calling process itself.
 * @exception_mask: exceptions the KFD reports through the event pipe (HSAQM_KFD_EC_MASK()).
 * @rinfo:          out, the runtime state the KFD saved; may be NULL.
 *
 * The KFD wants a file it can write a byte to on each exception: the layer creates a pipe,
 * hands the write end to the KFD and keeps the read end (hsaqm_kfd_dbg_event_fd()) until
 * hsaqm_kfd_dbg_disable(). A process may target itself without ptrace.
 *
 * Return: 0; -EOPNOTSUPP before 1.13; -EALREADY already debug-enabled (rocgdb, a profiler or
 * an earlier enable holds it); -EBUSY GWS in use on a device without debug GWS support;
 * -ENODEV a GPU that cannot be debugged; -EBADF the KFD refused the pipe; -EMFILE/-ENFILE no
 * descriptor for the pipe; the common errors above.
 */
int hsaqm_kfd_dbg_enable(struct hsaqm_kfd *kfd, uint64_t exception_mask,
			 struct hsaqm_kfd_runtime_info *rinfo);

/**
 * hsaqm_kfd_dbg_disable() - DBG_TRAP DISABLE: ends the session this handle enabled, which
 * resumes every queue it suspended, and closes the event pipe.
 *
 * Return: 0 (also, without asking the kernel, when this handle has no session); -EOPNOTSUPP
 * before 1.13; the kernel's errno (the session then stays open).
 */
int hsaqm_kfd_dbg_disable(struct hsaqm_kfd *kfd);

/**
 * hsaqm_kfd_dbg_event_fd() - the read end of the event pipe (poll it for readability).
 *
 * Return: the descriptor; -ENOENT when no session is enabled; -EINVAL for NULL.
 */
int hsaqm_kfd_dbg_event_fd(const struct hsaqm_kfd *kfd);

/**
 * hsaqm_kfd_dbg_suspend_queues() - DBG_TRAP SUSPEND_QUEUES.
 * @queue_ids:      in: queue ids; out: each rewritten with its result bits (decode with
 *                  hsaqm_kfd_dbg_entry_status() / hsaqm_kfd_dbg_entry_queue_id()).
 * @n:              entries, at least 1.
 * @grace_period:   wave run time allowed before CWSR, in 1K GPU clocks (0 = at once;
 *                  HSAQM_KFD_GRACE_PERIOD_DEFAULT = the device's default).
 * @exception_clear: exceptions to clear on the queues suspended.
 *
 * A suspended queue stays off the hardware until resumed, and blocks its own destroy.
 *
 * Return: the number of queues suspended (>= 0; queues already suspended count); -EINVAL for
 * bad arguments; -EOPNOTSUPP before 1.13; -EFAULT bad array; the common errors above.
 */
int hsaqm_kfd_dbg_suspend_queues(struct hsaqm_kfd *kfd, uint32_t *queue_ids, uint32_t n,
				 uint32_t grace_period, uint64_t exception_clear);

/**
 * hsaqm_kfd_dbg_resume_queues() - DBG_TRAP RESUME_QUEUES.
 * @queue_ids: in/out as for hsaqm_kfd_dbg_suspend_queues().
 *
 * Return: the number of queues resumed (>= 0); -EINVAL for bad arguments; -EOPNOTSUPP before
 * 1.13; the common errors above.
 */
int hsaqm_kfd_dbg_resume_queues(struct hsaqm_kfd *kfd, uint32_t *queue_ids, uint32_t n);

/**
 * hsaqm_kfd_dbg_queue_snapshot() - DBG_TRAP GET_QUEUE_SNAPSHOT.
 * @exception_clear: exceptions to clear on every queue reported; HSAQM_KFD_EC_MASK(
 *                   HSAQM_KFD_EC_QUEUE_NEW) makes newly created queues suspendable.
 * @entries:         @*n entries, zeroed first (an older KFD fills fewer bytes of each).
 * @n:               in: entries in the buffer (0 only counts); out: queues the process has
 *                   (may exceed the buffer: the KFD does not overflow it).
 *
 * Return: 0; -EINVAL for bad arguments; -EOPNOTSUPP before 1.13; the common errors above.
 */
int hsaqm_kfd_dbg_queue_snapshot(struct hsaqm_kfd *kfd, uint64_t exception_clear,
				 struct hsaqm_kfd_queue_snapshot_entry *entries, uint32_t *n);

/**
 * hsaqm_kfd_dbg_device_snapshot() - DBG_TRAP GET_DEVICE_SNAPSHOT, as the queue snapshot.
 *
 * Return: 0; -EINVAL for bad arguments; -EOPNOTSUPP before 1.13; the common errors above.
 */
int hsaqm_kfd_dbg_device_snapshot(struct hsaqm_kfd *kfd, uint64_t exception_clear,
				  struct hsaqm_kfd_dbg_device_info_entry *entries, uint32_t *n);

/**
 * hsaqm_kfd_dbg_query_event() - DBG_TRAP QUERY_DEBUG_EVENT: one source with raised exceptions.
 * @exception_clear: exceptions to clear on the source found.
 * @status:          out: the source's raised exceptions.
 * @gpu_id, @queue_id: out (either may be NULL): the source; queue_id is 0 for a device or
 *                   process event, gpu_id 0 for a process event.
 *
 * Not retried on EAGAIN: here it means "nothing raised". Call until -EAGAIN to drain.
 *
 * Return: 0 found; -EAGAIN none; -EINVAL NULL status; -EOPNOTSUPP before 1.13; the common
 * errors above.
 */
int hsaqm_kfd_dbg_query_event(struct hsaqm_kfd *kfd, uint64_t exception_clear, uint64_t *status,
			      uint32_t *gpu_id, uint32_t *queue_id);

enum hsaqm_kfd_dbg_entry_status {
	HSAQM_KFD_DBG_ENTRY_OK = 0,      /* the queue was handled */
	HSAQM_KFD_DBG_ENTRY_ERROR = 1,   /* the KFD or the scheduler failed on it */
	HSAQM_KFD_DBG_ENTRY_INVALID = 2, /* unknown, new (EC_QUEUE_NEW) or being destroyed */
};

/**
 * hsaqm_kfd_dbg_entry_status() - result of one array entry after suspend/resume.
 *
 * Return: an enum hsaqm_kfd_dbg_entry_status; INVALID wins when both bits are set.
 */
static inline int hsaqm_kfd_dbg_entry_status(uint32_t entry)
{
	if (entry & HSAQM_KFD_DBG_QUEUE_INVALID_MASK)
		return HSAQM_KFD_DBG_ENTRY_INVALID;
	if (entry & HSAQM_KFD_DBG_QUEUE_ERROR_MASK)
		return HSAQM_KFD_DBG_ENTRY_ERROR;
	return HSAQM_KFD_DBG_ENTRY_OK;
}

/**
 * hsaqm_kfd_dbg_entry_queue_id() - the queue id of an entry, result bits removed.
 *
 * Return: the id.
 */
static inline uint32_t hsaqm_kfd_dbg_entry_queue_id(uint32_t entry)
{
	return entry & ~(HSAQM_KFD_DBG_QUEUE_INVALID_MASK | HSAQM_KFD_DBG_QUEUE_ERROR_MASK);
}

/**
 * hsaqm_kfd_ec_name() - name of an exception code ("QUEUE_NEW", "DEVICE_MEMORY_VIOLATION").
 *
 * Return: a static string; "UNKNOWN" for a code the uapi does not define.
 */
const char *hsaqm_kfd_ec_name(int ec);

/* ==== topology (sysfs) ==================================================================== */

/* Properties a node can hold; a KFD newer than this layer may print more (they are skipped). */
#define HSAQM_TOPOLOGY_MAX_PROPS 96
#define HSAQM_TOPOLOGY_PROP_NAME_MAX 48

struct hsaqm_topology_prop {
	char name[HSAQM_TOPOLOGY_PROP_NAME_MAX];
	uint64_t value;
};

struct hsaqm_topology_node {
	uint32_t node_id; /* the N of .../topology/nodes/N */
	uint32_t gpu_id;  /* 0 for a CPU node */
	bool is_gpu;
	/* Commonly used properties, 0 when the node does not print them. */
	uint32_t cpu_cores_count;
	uint32_t simd_count;
	uint32_t simd_per_cu;
	uint32_t cu_count; /* simd_count / simd_per_cu */
	uint32_t array_count;
	uint32_t simd_arrays_per_engine;
	uint32_t cu_per_simd_array;
	uint32_t max_waves_per_simd;
	uint32_t wave_front_size;
	uint32_t lds_size_in_kb;
	uint32_t gfx_target_version;
	uint32_t vendor_id;
	uint32_t device_id;
	uint32_t location_id;
	uint32_t domain;
	uint32_t drm_render_minor;
	uint32_t num_xcc; /* 1 when not printed (pre-MI300 kernels) */
	uint32_t num_cp_queues;
	uint32_t num_sdma_engines;
	uint32_t num_sdma_xgmi_engines;
	uint32_t num_sdma_queues_per_engine;
	uint32_t fw_version;
	uint32_t sdma_fw_version;
	uint32_t max_engine_clk_fcompute;
	uint32_t capability;
	uint32_t capability2;
	uint32_t debug_prop;
	uint64_t hive_id;
	uint64_t unique_id;
	/* Printed by kernels from late 2025 only (kfd_topology.c); then has_* is true. */
	bool has_cwsr_size;
	bool has_ctl_stack_size;
	uint32_t cwsr_size;      /* per XCC */
	uint32_t ctl_stack_size; /* per XCC */
	/* Every "name value" line, in file order. */
	uint32_t n_props;
	struct hsaqm_topology_prop props[HSAQM_TOPOLOGY_MAX_PROPS];
};

struct hsaqm_topology {
	uint32_t n_nodes;
	struct hsaqm_topology_node *nodes; /* by node id */
};

/**
 * hsaqm_topology_parse_properties() - parse the text of a node's "properties" file.
 * @text, @len: the file's bytes (need not be NUL-terminated).
 * @node:       filled in (node_id and gpu_id are left to the caller).
 *
 * Return: 0; -EINVAL for NULL arguments; -EBADMSG for a line that is not "name unsigned";
 * -ENODATA for a file without any property.
 */
int hsaqm_topology_parse_properties(const char *text, size_t len, struct hsaqm_topology_node *node);

/**
 * hsaqm_topology_node_load() - read nodes/@node_id (properties, gpu_id) under a sysfs root.
 * @sysfs_root: "/sys", or the root of a generated tree (a transport's sysfs_root).
 *
 * Return: 0; -EINVAL for bad arguments; -ENOENT no such node (or no properties file);
 * -EBADMSG a garbled properties or gpu_id file; other read errors.
 */
int hsaqm_topology_node_load(const char *sysfs_root, uint32_t node_id,
			     struct hsaqm_topology_node *node);

/**
 * hsaqm_topology_load() - read every node under <sysfs_root>/class/kfd/kfd/topology/nodes.
 *
 * Nodes are numbered from 0 without gaps, as the KFD creates them.
 *
 * Return: 0; -EINVAL for bad arguments; -ENOENT no KFD topology (amdgpu not loaded); -ENOMEM;
 * the errors of hsaqm_topology_node_load().
 */
int hsaqm_topology_load(const char *sysfs_root, struct hsaqm_topology **out);

/** hsaqm_topology_free() - free what hsaqm_topology_load() returned (NULL is fine). */
void hsaqm_topology_free(struct hsaqm_topology *topo);

/**
 * hsaqm_topology_find_gpu() - the node of a gpu_id.
 *
 * Return: the node, or NULL when no GPU node has that id.
 */
const struct hsaqm_topology_node *hsaqm_topology_find_gpu(const struct hsaqm_topology *topo,
							   uint32_t gpu_id);

/**
 * hsaqm_topology_node_prop() - any property of a node by name.
 * @value: out.
 *
 * Return: 0; -ENOENT the node did not print it; -EINVAL for NULL arguments.
 */
int hsaqm_topology_node_prop(const struct hsaqm_topology_node *node, const char *name,
			     uint64_t *value);

/**
 * hsaqm_topology_cap_name() - the name of one capability flag ("TRAP_DEBUG_SUPPORT").
 * @bit: a single-bit mask.
 *
 * Return: a static string, or NULL for a bit that is not a flag (fields, reserved bits).
 */
const char *hsaqm_topology_cap_name(uint32_t bit);

/**
 * hsaqm_topology_cap_decode() - the capability word as text: the names of the flags set, then
 * the fields, e.g. "WATCH_POINTS_SUPPORTED|TRAP_DEBUG_SUPPORT|... watch_points_bits=2
 * doorbell_type=2 asic_revision=1".
 * @buf, @size: output, NUL-terminated.
 *
 * Return: the length written (without the NUL); -ENOSPC when @size is too small (the text is
 * then cut); -EINVAL for a NULL buffer or size 0.
 */
int hsaqm_topology_cap_decode(uint32_t capability, char *buf, size_t size);

/* amdgpu module parameters that bear on queues and preemption. */
struct hsaqm_kfd_module_params {
	int cwsr_enable;                 /* 1: CWSR (wave save/restore) on */
	int sched_policy;                /* 0 HWS, 1 HWS without oversubscription, 2 no HWS */
	int hws_max_conc_proc;           /* processes the HWS maps at once */
	int queue_preemption_timeout_ms; /* unmap fence timeout before the GPU counts as hung */
	int mes;                         /* 1: MES scheduler (gfx11/12) */
	uint32_t present;                /* HSAQM_KFD_PARAM_* of the fields read */
};

#define HSAQM_KFD_PARAM_CWSR_ENABLE (1u << 0)
#define HSAQM_KFD_PARAM_SCHED_POLICY (1u << 1)
#define HSAQM_KFD_PARAM_HWS_MAX_CONC_PROC (1u << 2)
#define HSAQM_KFD_PARAM_QUEUE_PREEMPTION_TIMEOUT_MS (1u << 3)
#define HSAQM_KFD_PARAM_MES (1u << 4)

/**
 * hsaqm_topology_module_param() - one parameter of <sysfs_root>/module/amdgpu/parameters.
 * @value: out; "Y"/"N" read as 1/0.
 *
 * Return: 0; -EINVAL for bad arguments (a name with '/'); -ENOENT the parameter does not exist
 * in this amdgpu; -EBADMSG its content is not a number; other read errors.
 */
int hsaqm_topology_module_param(const char *sysfs_root, const char *name, long *value);

/**
 * hsaqm_topology_module_params() - the parameters of struct hsaqm_kfd_module_params.
 *
 * A parameter this amdgpu lacks (mes appeared in 2022) is left at -1 and not marked present.
 *
 * Return: 0; -EINVAL for bad arguments; -ENOENT no amdgpu parameters directory (module not
 * loaded); -EBADMSG a garbled parameter.
 */
int hsaqm_topology_module_params(const char *sysfs_root, struct hsaqm_kfd_module_params *out);

/* ==== CWSR save-area sizing =============================================================== */

struct hsaqm_cwsr_sizes {
	uint32_t num_xcc;
	uint32_t cu_per_xcc;
	uint32_t wave_num;          /* waves per XCC the control stack is sized for */
	uint32_t wg_data_size;      /* per XCC: registers + LDS of every CU, page-aligned */
	uint32_t ctl_stack_size;    /* per XCC: header + control stack, page-aligned */
	uint32_t cwsr_size;         /* per XCC: ctl_stack_size + wg_data_size (create_queue's
				     * ctx_save_restore_size) */
	uint32_t debug_memory_size; /* per XCC: debugger bytes after each XCC's area */
	uint32_t eop_buffer_size;   /* what create_queue's eop_buffer_size must be */
	uint64_t total_size;        /* the allocation: (cwsr + debug) x num_xcc, page-aligned */
	bool from_sysfs;            /* cwsr_size/ctl_stack_size came from the node's properties */
};

/**
 * hsaqm_cwsr_formula() - the KFD's sizing formula (kfd_queue.c) from raw properties.
 * @page_size: the kernel's page size (4096 on x86-64).
 *
 * VGPR bytes per CU depend on the gfx version (512 KiB on gfx908/90a/942/950, 384 KiB on
 * gfx1100/1101/1200/1201, 256 KiB otherwise); waves per XCC are min(40 x CUs, array_count /
 * simd_arrays_per_engine x 512) before gfx10.1, 32 x CUs after.
 *
 * Return: 0; -EINVAL for zero counts or a page size that is not a power of two; -EOPNOTSUPP
 * for a gfx version without CWSR (before gfx8.0.1).
 */
int hsaqm_cwsr_formula(uint32_t gfx_target_version, uint32_t simd_count, uint32_t simd_per_cu,
		       uint32_t num_xcc, uint32_t array_count, uint32_t simd_arrays_per_engine,
		       uint32_t lds_size_in_kb, uint32_t page_size, struct hsaqm_cwsr_sizes *out);

/**
 * hsaqm_cwsr_sizes_get() - the save-area sizes of a GPU node: cwsr_size and ctl_stack_size
 * from its properties when the kernel prints them, otherwise from hsaqm_cwsr_formula(); the
 * debug area is always computed (no kernel prints it).
 *
 * Return: 0; -EINVAL for bad arguments or a CPU node; the errors of hsaqm_cwsr_formula().
 */
int hsaqm_cwsr_sizes_get(const struct hsaqm_topology_node *node, struct hsaqm_cwsr_sizes *out);

/* ==== debugfs: kfd/hqds and kfd/rls ======================================================= */

/*
 * kfd/hqds dumps, per GPU and per XCC ("Inst N"), the HIQ and every compute HQD slot the KFD
 * may use for user queues (CP pipe P, queue Q), then the SDMA RLC queues. A compute slot's
 * registers start at CP_MQD_BASE_ADDR (gfx9: 0x1245) and run to CP_HQD_PQ_WPTR_HI; register
 * CP_HQD_ACTIVE (0x1247) bit 0 says whether the slot holds a mapped queue. Indices below are
 * relative to CP_MQD_BASE_ADDR (gc_9_4_3 register map).
 */
#define HSAQM_HQD_REG_MQD_BASE_ADDR 0
#define HSAQM_HQD_REG_MQD_BASE_ADDR_HI 1
#define HSAQM_HQD_REG_ACTIVE 2
#define HSAQM_HQD_REG_VMID 3
#define HSAQM_HQD_REG_PIPE_PRIORITY 5
#define HSAQM_HQD_REG_QUEUE_PRIORITY 6
#define HSAQM_HQD_REG_PQ_BASE 8
#define HSAQM_HQD_REG_PQ_BASE_HI 9
#define HSAQM_HQD_REG_PQ_RPTR 10
#define HSAQM_HQD_REG_PQ_DOORBELL_CONTROL 15
#define HSAQM_HQD_REG_DEQUEUE_REQUEST 24
#define HSAQM_HQD_REG_CNTL_STACK_SIZE 47
#define HSAQM_HQD_REG_CTX_SAVE_SIZE 49
#define HSAQM_HQD_REG_PQ_WPTR_LO 54
#define HSAQM_HQD_MAX_REGS 64

#define HSAQM_HQDS_MAX_XCC 16
#define HSAQM_HQDS_MAX_SLOTS 32 /* per XCC: the first MEC's 4 pipes x 8 queues, all the KFD uses */

struct hsaqm_hqd_slot {
	uint32_t pipe;
	uint32_t queue;
	bool active;              /* CP_HQD_ACTIVE bit 0 */
	uint32_t vmid;            /* CP_HQD_VMID bits 0-3 */
	uint64_t mqd_addr;        /* stale when inactive */
	uint64_t pq_base;         /* ring address (CP_HQD_PQ_BASE << 8) */
	uint32_t doorbell_offset; /* CP_HQD_PQ_DOORBELL_CONTROL bits 2-27 (dwords) */
	bool doorbell_enabled;    /* its bit 30 */
	uint32_t first_reg_addr;  /* byte address of regs[0] as printed */
	uint32_t n_regs;
	uint32_t regs[HSAQM_HQD_MAX_REGS];
};

struct hsaqm_hqd_xcc {
	uint32_t inst;
	bool has_hiq;
	bool hiq_active;
	uint32_t hiq_mec, hiq_pipe, hiq_queue;
	uint32_t n_slots;
	struct hsaqm_hqd_slot slots[HSAQM_HQDS_MAX_SLOTS];
};

struct hsaqm_hqds_gpu {
	uint32_t node_id;
	uint32_t gpu_id;
	bool stopped; /* "Device is stopped": the scheduler was not running */
	uint32_t n_xcc;
	struct hsaqm_hqd_xcc xcc[HSAQM_HQDS_MAX_XCC];
	uint32_t n_sdma_queues; /* "SDMA Engine E, RLC R" sections (not decoded) */
};

struct hsaqm_hqds {
	uint32_t n_gpus;
	struct hsaqm_hqds_gpu *gpus;
};

/**
 * hsaqm_hqds_parse() - parse the text of debugfs kfd/hqds.
 *
 * Return: 0; -EINVAL for NULL arguments; -EBADMSG text that is not an hqds dump (a section
 * outside a node, a register line outside a section, a bad number, more XCCs or slots than
 * the limits above); -ENOMEM.
 */
int hsaqm_hqds_parse(const char *text, size_t len, struct hsaqm_hqds **out);

/** hsaqm_hqds_free() - free a parsed dump (NULL is fine). */
void hsaqm_hqds_free(struct hsaqm_hqds *hqds);

/**
 * hsaqm_hqd_xcc_active() - user HQD slots of an XCC that hold a mapped queue.
 *
 * Return: the count (0 for NULL).
 */
uint32_t hsaqm_hqd_xcc_active(const struct hsaqm_hqd_xcc *xcc);

/*
 * kfd/rls is the hex dump of each GPU's current runlist: PM4 packets the HWS runs. MAP_PROCESS
 * (opcode 0xA1) starts a process (pasid, its queue count), the MAP_QUEUES (0xA2) that follow
 * are that process's active queues (engine, doorbell offset, MQD address, write pointer).
 */
#define HSAQM_PM4_OP_MAP_PROCESS 0xa1
#define HSAQM_PM4_OP_MAP_QUEUES 0xa2
#define HSAQM_PM4_OP_RUN_LIST 0xa5

enum hsaqm_rl_engine {
	HSAQM_RL_ENGINE_COMPUTE = 0,
	HSAQM_RL_ENGINE_SDMA0 = 2,
	HSAQM_RL_ENGINE_SDMA1 = 3,
};

struct hsaqm_rl_queue {
	uint32_t engine_sel; /* enum hsaqm_rl_engine */
	uint32_t queue_type; /* 0 normal compute, 1 debug interface queue, 2-3 static */
	uint32_t doorbell_offset;
	uint64_t mqd_addr; /* XCC 0's MQD */
	uint64_t wptr_addr;
};

struct hsaqm_rl_process {
	uint32_t pasid;
	uint32_t num_queues; /* as MAP_PROCESS declares: all the process's queues on the GPU */
	uint32_t process_quantum;
	uint32_t first_queue; /* index into the GPU's queues */
	uint32_t n_mapped;    /* MAP_QUEUES that follow it: its active queues */
};

struct hsaqm_rl_gpu {
	uint32_t node_id;
	uint32_t gpu_id;
	bool has_runlist; /* false for "No active runlist" */
	uint32_t n_processes;
	struct hsaqm_rl_process *processes;
	uint32_t n_queues;
	struct hsaqm_rl_queue *queues;
	uint32_t n_other_packets; /* RUN_LIST chains and anything else, skipped */
};

struct hsaqm_runlist {
	uint32_t n_gpus;
	struct hsaqm_rl_gpu *gpus;
};

/**
 * hsaqm_runlist_parse() - parse the text of debugfs kfd/rls.
 *
 * Return: 0; -EINVAL for NULL arguments; -EBADMSG text that is not an rls dump (bad hex, a
 * packet cut short, MAP_QUEUES before any MAP_PROCESS, a non type-3 header); -ENOMEM.
 */
int hsaqm_runlist_parse(const char *text, size_t len, struct hsaqm_runlist **out);

/** hsaqm_runlist_free() - free a parsed runlist (NULL is fine). */
void hsaqm_runlist_free(struct hsaqm_runlist *rl);

/**
 * hsaqm_debugfs_read() - read a whole debugfs (or sysfs) file; debugfs reports size 0, so it
 * reads to end of file.
 * @text: out, NUL-terminated, free() it.
 * @len:  out, bytes without the NUL; may be NULL.
 *
 * Return: 0; -EINVAL for NULL arguments; -ENOENT, -EACCES (debugfs is root-only) and other
 * open/read errors; -EFBIG past 64 MiB; -ENOMEM.
 */
int hsaqm_debugfs_read(const char *path, char **text, size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_KFD_H */
