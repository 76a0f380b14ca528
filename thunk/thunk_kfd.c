/* SPDX-License-Identifier: MIT */
/*
 * The face's KFD: what libhsakmt's file descriptor on /dev/kfd is, on the model.
 *
 * libhsakmt opens /dev/kfd once per process and issues its queue ioctls there, so that the
 * KFD - and everything else that opens /dev/kfd in the process, like hsaqm's Lv3 - knows the
 * runtime's queues. The face does the same on the model's KFD face (sim/kfd_face.c): it opens
 * one handle at hsaKmtOpenKFD, issues RUNTIME_ENABLE for ROCr, and creates, updates and
 * destroys each AQL queue there (thunk_queue.c). The KFD face keeps one KFD process per OS
 * process, so a second opener (the tool library inside ROCr) finds the very queues ROCr made
 * and may suspend them with DBG_TRAP, which is what Lv3 needs.
 *
 * How that second opener finds this KFD: kfd-ioctl's default transport looks for a function
 * named hsaqm_kfd_transport_provider in the process (docs/kfd-ioctl.md, "The default
 * transport"); this library exports one (libhsakmt.map, outside libhsakmt's HSAKMT_1 node).
 */
#include <errno.h>
#include <string.h>

#include "hsaqm/kfd.h"
#include "hsaqm/kfd_transport.h"
#include "kfd_face_internal.h"
#include "log_internal.h"
#include "thunk_internal.h"

static struct {
	const struct hsaqm_kfd_transport *model; /* the model's KFD face, NULL while closed */
	struct hsaqm_kfd_transport tp;           /* the same, open() wrapped to learn the handle */
	struct hsaqm_kfd *kfd;
	int handle;
} tk = { .handle = -1 };

/* The transport's open(), wrapped: libhsakmt knows its descriptor, kfd-ioctl keeps it private. */
static int tp_open(void *ctx)
{
	int h = tk.model->open(tk.model->ctx);

	(void)ctx;
	if (h >= 0)
		tk.handle = h;
	return h;
}

static int tp_close(void *ctx, int handle)
{
	(void)ctx;
	return tk.model->close(tk.model->ctx, handle);
}

static int tp_ioctl(void *ctx, int handle, unsigned long request, void *arg)
{
	(void)ctx;
	return tk.model->ioctl(tk.model->ctx, handle, request, arg);
}

int thunk_kfd_open(struct hsaqm_sim *sim)
{
	int err;

	tk.model = hsaqm_sim_kfd_transport(sim);
	if (!tk.model)
		return -ENODEV;
	tk.tp = *tk.model;
	tk.tp.ctx = NULL;
	tk.tp.open = tp_open;
	tk.tp.close = tp_close;
	tk.tp.ioctl = tp_ioctl;
	/* The face's own doorbell page and translator ring the model: no mmap, no doorbell hook. */
	tk.tp.mmap = NULL;
	tk.tp.munmap = NULL;
	tk.tp.doorbell_written = NULL;
	err = hsaqm_kfd_open(&tk.tp, &tk.kfd);
	if (err) {
		tk.kfd = NULL;
		tk.model = NULL;
	}
	return err;
}

void thunk_kfd_close(void)
{
	if (tk.kfd)
		hsaqm_kfd_close(tk.kfd);
	tk.kfd = NULL;
	tk.model = NULL;
	tk.handle = -1;
}

const struct hsaqm_kfd_transport *hsaqm_kfd_transport_provider(void)
{
	struct hsaqm_sim *sim = thunk_sim();

	/* Between OpenKFD and the last CloseKFD the process's KFD is the model's. */
	return sim ? hsaqm_sim_kfd_transport(sim) : NULL;
}

int thunk_kfd_queue_create(struct hsaqm_sim *sim, unsigned int dev, void *ring, uint32_t size,
			   uint64_t *wptr, uint64_t *rptr, uint32_t percentage, uint32_t priority,
			   const struct sim_kfd_front *front, uint32_t *queue_id,
			   struct sim_hwq **hwq)
{
	/*
	 * As libhsakmt issues it for ROCr's AQL queue: ROCr's ring and indices (what the KFD
	 * and a debugger see). No EOP buffer or CWSR area: the model's KFD accepts their sizes
	 * unchecked and never writes them (the core keeps saved waves itself).
	 */
	struct hsaqm_kfd_create_queue_args a = {
		.ring_base_address = (uint64_t)(uintptr_t)ring,
		.write_pointer_address = (uint64_t)(uintptr_t)wptr,
		.read_pointer_address = (uint64_t)(uintptr_t)rptr,
		.ring_size = size,
		.gpu_id = sim_kfd_gpu_id(sim, dev),
		.queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL,
		.queue_percentage = percentage,
		.queue_priority = priority,
	};
	int err;

	if (!tk.kfd)
		return -EBADF;
	sim_kfd_face_front_next(front);
	err = hsaqm_kfd_queue_create(tk.kfd, &a);
	sim_kfd_face_front_next(NULL);
	if (err)
		return err;
	*queue_id = a.queue_id;
	*hwq = sim_kfd_face_hwq(sim, tk.handle, a.queue_id);
	if (!*hwq) {
		hsaqm_kfd_queue_destroy(tk.kfd, a.queue_id);
		return -EIO;
	}
	return 0;
}

int thunk_kfd_queue_destroy(uint32_t queue_id)
{
	return tk.kfd ? hsaqm_kfd_queue_destroy(tk.kfd, queue_id) : -EBADF;
}

int thunk_kfd_queue_update(uint32_t queue_id, void *ring, uint32_t size, uint32_t percentage,
			   uint32_t priority)
{
	return tk.kfd ? hsaqm_kfd_queue_update(tk.kfd, queue_id, (uint64_t)(uintptr_t)ring, size,
					       percentage, priority) :
			-EBADF;
}

int thunk_kfd_queue_set_cu_mask(uint32_t queue_id, const uint32_t *mask, uint32_t nbits)
{
	return tk.kfd ? hsaqm_kfd_queue_set_cu_mask(tk.kfd, queue_id, mask, nbits) : -EBADF;
}

/*
 * ROCr 5.2.3 calls this once in hsa_init, after opening the KFD and reading the topology,
 * with its r_debug and whether a debugger wants trap temporaries. libhsakmt issues
 * RUNTIME_ENABLE; without it the KFD refuses DBG_TRAP SUSPEND_QUEUES (EPERM), so hsaqm's
 * Lv3 on ROCr's queues needs it here too. The KFD's answers map as libhsakmt maps them:
 * success; a KFD older than 1.13 is NOT_SUPPORTED (ROCr goes on without exception
 * debugging); anything else is an error ROCr reports.
 */
HSAKMT_STATUS HSAKMTAPI hsaKmtRuntimeEnable(void *rDebug, bool setupTtmp)
{
	int err;

	if (!tk.kfd)
		return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	err = hsaqm_kfd_runtime_enable(tk.kfd, (uint64_t)(uintptr_t)rDebug, setupTtmp);
	if (err == -EOPNOTSUPP)
		return HSAKMT_STATUS_NOT_SUPPORTED;
	if (err) {
		hsaqm_log_warn("thunk: RUNTIME_ENABLE: %s", strerror(-err));
		return err == -EBUSY ? HSAKMT_STATUS_UNAVAILABLE : HSAKMT_STATUS_ERROR;
	}
	return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRuntimeDisable(void)
{
	int err;

	if (!tk.kfd)
		return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	err = hsaqm_kfd_runtime_disable(tk.kfd);
	if (err == -EOPNOTSUPP)
		return HSAKMT_STATUS_NOT_SUPPORTED;
	return err ? HSAKMT_STATUS_ERROR : HSAKMT_STATUS_SUCCESS;
}
