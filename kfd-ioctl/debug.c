// SPDX-License-Identifier: MIT
/*
 * debug.c - the KFD debugger API (interface 1.13+): runtime enable and DBG_TRAP, which hsaqm
 * uses on its own process to suspend and resume hardware queues (preemption level 3).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "hsaqm-common/barrier.h"
#include "kfd_internal.h"
#include "hsaqm-common/log.h"

/* The debugger API is missing before 1.13: say so once, with the version found. */
static int debugger_gate(const struct hsaqm_kfd *kfd)
{
	static int warned;

	if (!kfd)
		return -EINVAL;
	if (hsaqm_kfd_version_code(kfd) >= HSAQM_KFD_VERSION_DEBUGGER)
		return 0;
	/* Only "said once" is at stake, no data: no ordering against anything. */
	if (!hsaqm_exchange(&warned, 1))
		hsaqm_log_warn("KFD interface %u.%u has no debugger API (RUNTIME_ENABLE and "
			       "DBG_TRAP need 1.13: Linux 6.4 or a recent amdgpu-dkms): queue "
			       "suspend is not available",
			       kfd->major, kfd->minor);
	return -EOPNOTSUPP;
}

static int dbg_trap(struct hsaqm_kfd *kfd, struct hsaqm_kfd_dbg_trap_args *args, uint32_t op)
{
	args->pid = (uint32_t)kfd->owner;
	args->op = op;
	return hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DBG_TRAP, args);
}

int hsaqm_kfd_runtime_enable(struct hsaqm_kfd *kfd, uint64_t r_debug, bool ttmp_save)
{
	struct hsaqm_kfd_runtime_enable_args args = {
		.r_debug = r_debug,
		.mode_mask = HSAQM_KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK |
			     (ttmp_save ? HSAQM_KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK : 0),
	};
	int ret = debugger_gate(kfd);

	if (ret)
		return ret;
	ret = hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_RUNTIME_ENABLE, &args);
	return ret < 0 ? ret : 0;
}

int hsaqm_kfd_runtime_disable(struct hsaqm_kfd *kfd)
{
	struct hsaqm_kfd_runtime_enable_args args = { 0 };
	int ret = debugger_gate(kfd);

	if (ret)
		return ret;
	ret = hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_RUNTIME_ENABLE, &args);
	return ret < 0 ? ret : 0;
}

static void close_dbg_pipe(struct hsaqm_kfd *kfd)
{
	for (int i = 0; i < 2; i++) {
		if (kfd->dbg_pipe[i] >= 0)
			close(kfd->dbg_pipe[i]);
		kfd->dbg_pipe[i] = -1;
	}
}

int hsaqm_kfd_dbg_enable(struct hsaqm_kfd *kfd, uint64_t exception_mask,
			 struct hsaqm_kfd_runtime_info *rinfo)
{
	struct hsaqm_kfd_runtime_info info = { 0 };
	struct hsaqm_kfd_dbg_trap_args args = { 0 };
	int ret = debugger_gate(kfd);

	if (ret)
		return ret;
	if (kfd->dbg_enabled)
		return -EALREADY;
	/*
	 * The KFD writes one byte to dbg_fd per reported exception (kernel_write): a pipe takes
	 * that, an eventfd would not (it wants 8-byte writes). Non-blocking, so that a full pipe
	 * never stalls the kernel's writer and a drain loop never blocks.
	 */
	if (pipe2(kfd->dbg_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		ret = -errno;
		kfd->dbg_pipe[0] = kfd->dbg_pipe[1] = -1;
		return ret;
	}
	args.enable.exception_mask = exception_mask;
	args.enable.rinfo_ptr = (uint64_t)(uintptr_t)&info;
	args.enable.rinfo_size = sizeof(info);
	args.enable.dbg_fd = (uint32_t)kfd->dbg_pipe[1];
	ret = dbg_trap(kfd, &args, HSAQM_KFD_DBG_TRAP_ENABLE);
	if (ret < 0) {
		close_dbg_pipe(kfd);
		if (ret == -EALREADY)
			hsaqm_log_info("DBG_TRAP enable: this process is already being debugged "
				       "(rocgdb or a profiler?)");
		return ret;
	}
	kfd->dbg_enabled = true;
	if (rinfo)
		*rinfo = info;
	hsaqm_log_info("DBG_TRAP enabled on pid %d (runtime state %u)", (int)kfd->owner,
		       info.runtime_state);
	return 0;
}

int hsaqm_kfd_dbg_disable(struct hsaqm_kfd *kfd)
{
	struct hsaqm_kfd_dbg_trap_args args = { 0 };
	int ret = debugger_gate(kfd);

	if (ret)
		return ret;
	/* The KFD answers EINVAL to a DISABLE without a session: there is nothing to end. */
	if (!kfd->dbg_enabled)
		return 0;
	ret = dbg_trap(kfd, &args, HSAQM_KFD_DBG_TRAP_DISABLE);
	if (ret < 0)
		return ret;
	/* Only now: the KFD held the write end until the session ended. */
	close_dbg_pipe(kfd);
	kfd->dbg_enabled = false;
	return 0;
}

void hsaqm_kfd_dbg_close(struct hsaqm_kfd *kfd)
{
	int ret;

	if (!kfd->dbg_enabled)
		return;
	ret = hsaqm_kfd_dbg_disable(kfd);
	if (ret < 0)
		hsaqm_log_err("DBG_TRAP disable on close: %d", ret);
	close_dbg_pipe(kfd);
	kfd->dbg_enabled = false;
}

int hsaqm_kfd_dbg_event_fd(const struct hsaqm_kfd *kfd)
{
	if (!kfd)
		return -EINVAL;
	return kfd->dbg_enabled && kfd->dbg_pipe[0] >= 0 ? kfd->dbg_pipe[0] : -ENOENT;
}

int hsaqm_kfd_dbg_suspend_queues(struct hsaqm_kfd *kfd, uint32_t *queue_ids, uint32_t n,
				 uint32_t grace_period, uint64_t exception_clear)
{
	struct hsaqm_kfd_dbg_trap_args args = { 0 };
	int ret = debugger_gate(kfd);

	if (ret)
		return ret;
	if (!queue_ids || n == 0)
		return -EINVAL;
	args.suspend_queues.exception_mask = exception_clear;
	args.suspend_queues.queue_array_ptr = (uint64_t)(uintptr_t)queue_ids;
	args.suspend_queues.num_queues = n;
	args.suspend_queues.grace_period = grace_period;
	ret = dbg_trap(kfd, &args, HSAQM_KFD_DBG_TRAP_SUSPEND_QUEUES);
	if (ret >= 0 && (uint32_t)ret < n)
		hsaqm_log_debug("suspend: %d of %u queues", ret, n);
	return ret;
}

int hsaqm_kfd_dbg_resume_queues(struct hsaqm_kfd *kfd, uint32_t *queue_ids, uint32_t n)
{
	struct hsaqm_kfd_dbg_trap_args args = { 0 };
	int ret = debugger_gate(kfd);

	if (ret)
		return ret;
	if (!queue_ids || n == 0)
		return -EINVAL;
	args.resume_queues.queue_array_ptr = (uint64_t)(uintptr_t)queue_ids;
	args.resume_queues.num_queues = n;
	ret = dbg_trap(kfd, &args, HSAQM_KFD_DBG_TRAP_RESUME_QUEUES);
	if (ret >= 0 && (uint32_t)ret < n)
		hsaqm_log_debug("resume: %d of %u queues", ret, n);
	return ret;
}

int hsaqm_kfd_dbg_queue_snapshot(struct hsaqm_kfd *kfd, uint64_t exception_clear,
				 struct hsaqm_kfd_queue_snapshot_entry *entries, uint32_t *n)
{
	struct hsaqm_kfd_dbg_trap_args args = { 0 };
	int ret = debugger_gate(kfd);

	if (ret)
		return ret;
	if (!n || (*n && !entries))
		return -EINVAL;
	/* A KFD with a shorter entry fills only its part of each: leave the rest at zero. */
	if (*n)
		memset(entries, 0, (size_t)*n * sizeof(*entries));
	args.queue_snapshot.exception_mask = exception_clear;
	args.queue_snapshot.snapshot_buf_ptr = (uint64_t)(uintptr_t)entries;
	args.queue_snapshot.num_queues = *n;
	args.queue_snapshot.entry_size = sizeof(*entries);
	ret = dbg_trap(kfd, &args, HSAQM_KFD_DBG_TRAP_GET_QUEUE_SNAPSHOT);
	if (ret < 0)
		return ret;
	*n = args.queue_snapshot.num_queues;
	return 0;
}

int hsaqm_kfd_dbg_device_snapshot(struct hsaqm_kfd *kfd, uint64_t exception_clear,
				  struct hsaqm_kfd_dbg_device_info_entry *entries, uint32_t *n)
{
	struct hsaqm_kfd_dbg_trap_args args = { 0 };
	int ret = debugger_gate(kfd);

	if (ret)
		return ret;
	if (!n || (*n && !entries))
		return -EINVAL;
	if (*n)
		memset(entries, 0, (size_t)*n * sizeof(*entries));
	args.device_snapshot.exception_mask = exception_clear;
	args.device_snapshot.snapshot_buf_ptr = (uint64_t)(uintptr_t)entries;
	args.device_snapshot.num_devices = *n;
	args.device_snapshot.entry_size = sizeof(*entries);
	ret = dbg_trap(kfd, &args, HSAQM_KFD_DBG_TRAP_GET_DEVICE_SNAPSHOT);
	if (ret < 0)
		return ret;
	*n = args.device_snapshot.num_devices;
	return 0;
}

int hsaqm_kfd_dbg_query_event(struct hsaqm_kfd *kfd, uint64_t exception_clear, uint64_t *status,
			      uint32_t *gpu_id, uint32_t *queue_id)
{
	struct hsaqm_kfd_dbg_trap_args args = { 0 };
	int ret = debugger_gate(kfd);

	if (ret)
		return ret;
	if (!status)
		return -EINVAL;
	args.pid = (uint32_t)kfd->owner;
	args.op = HSAQM_KFD_DBG_TRAP_QUERY_DEBUG_EVENT;
	args.query_debug_event.exception_mask = exception_clear;
	/* EAGAIN is the answer "nothing raised" here, not a request to retry. */
	ret = hsaqm_kfd_ioctl_retry(kfd, HSAQM_KFD_IOC_DBG_TRAP, &args, false);
	if (ret < 0)
		return ret;
	*status = args.query_debug_event.exception_mask;
	if (gpu_id)
		*gpu_id = args.query_debug_event.gpu_id;
	if (queue_id)
		*queue_id = args.query_debug_event.queue_id;
	return 0;
}

const char *hsaqm_kfd_ec_name(int ec)
{
	switch (ec) {
	case HSAQM_KFD_EC_NONE: return "NONE";
	case HSAQM_KFD_EC_QUEUE_WAVE_ABORT: return "QUEUE_WAVE_ABORT";
	case HSAQM_KFD_EC_QUEUE_WAVE_TRAP: return "QUEUE_WAVE_TRAP";
	case HSAQM_KFD_EC_QUEUE_WAVE_MATH_ERROR: return "QUEUE_WAVE_MATH_ERROR";
	case HSAQM_KFD_EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION: return "QUEUE_WAVE_ILLEGAL_INSTRUCTION";
	case HSAQM_KFD_EC_QUEUE_WAVE_MEMORY_VIOLATION: return "QUEUE_WAVE_MEMORY_VIOLATION";
	case HSAQM_KFD_EC_QUEUE_WAVE_APERTURE_VIOLATION: return "QUEUE_WAVE_APERTURE_VIOLATION";
	case HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_DIM_INVALID:
		return "QUEUE_PACKET_DISPATCH_DIM_INVALID";
	case HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID:
		return "QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID";
	case HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_CODE_INVALID:
		return "QUEUE_PACKET_DISPATCH_CODE_INVALID";
	case HSAQM_KFD_EC_QUEUE_PACKET_RESERVED: return "QUEUE_PACKET_RESERVED";
	case HSAQM_KFD_EC_QUEUE_PACKET_UNSUPPORTED: return "QUEUE_PACKET_UNSUPPORTED";
	case HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID:
		return "QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID";
	case HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID:
		return "QUEUE_PACKET_DISPATCH_REGISTER_INVALID";
	case HSAQM_KFD_EC_QUEUE_PACKET_VENDOR_UNSUPPORTED:
		return "QUEUE_PACKET_VENDOR_UNSUPPORTED";
	case HSAQM_KFD_EC_QUEUE_PREEMPTION_ERROR: return "QUEUE_PREEMPTION_ERROR";
	case HSAQM_KFD_EC_QUEUE_NEW: return "QUEUE_NEW";
	case HSAQM_KFD_EC_DEVICE_QUEUE_DELETE: return "DEVICE_QUEUE_DELETE";
	case HSAQM_KFD_EC_DEVICE_MEMORY_VIOLATION: return "DEVICE_MEMORY_VIOLATION";
	case HSAQM_KFD_EC_DEVICE_RAS_ERROR: return "DEVICE_RAS_ERROR";
	case HSAQM_KFD_EC_DEVICE_FATAL_HALT: return "DEVICE_FATAL_HALT";
	case HSAQM_KFD_EC_DEVICE_NEW: return "DEVICE_NEW";
	case HSAQM_KFD_EC_PROCESS_RUNTIME: return "PROCESS_RUNTIME";
	case HSAQM_KFD_EC_PROCESS_DEVICE_REMOVE: return "PROCESS_DEVICE_REMOVE";
	default: return "UNKNOWN";
	}
}
