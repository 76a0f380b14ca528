/* SPDX-License-Identifier: MIT */
/*
 * AQL queues of the model's HSA face: hsa_queue_create/destroy/inactivate, every read/write
 * index function of the CoreApiTable, and the AMD queue extensions (priority, CU mask, queue
 * info, profiling).
 *
 * A queue is what ROCr's AqlQueue is: an amd_queue_t (64-byte aligned, model memory) whose
 * hsa_queue_t head the client holds, a ring of INVALID packets, a doorbell signal, a
 * queue_inactive_signal, and a hardware queue whose write and read pointers are the
 * amd_queue_t's write_dispatch_id and read_dispatch_id, so the packet processor and every
 * client that reads those fields directly (rocprofiler, hsaqm's proxy queues) agree.
 *
 * Errors reach the client as they do with ROCr: the CP writes an error code into the queue's
 * queue_inactive_signal; an asynchronous handler on that signal (ROCr: the runtime's async
 * handler thread) calls the queue's error callback. Here the error code is the HSA status
 * the core reports.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hsa_face_internal.h"
#include "hsaqm-hsa/aql.h"
#include "hsaqm-kfd/kfd.h"
#include "kfd_face_internal.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-common/log.h"

/* Value destroy stores into queue_inactive_signal to retire the error handler (not a status). */
#define QUEUE_RETIRE_MARK INT64_MIN

/* How long destroy waits for the error handler to unregister (then the face's fini frees it). */
#define HANDLER_WAIT_NS 5000000000ull

/* hsa_queue_t ids: unique in the process, as ROCr's. */
static uint64_t next_queue_id = 1;

/* The queue whose error handler this thread is running (a callback may destroy its queue). */
static __thread struct hsa_face_queue *tl_handler_queue;

static struct hsaqm_amd_queue *amd_of(const struct hsaqm_hsa_queue *q)
{
	/* hsa_queue_t is the first member of amd_queue_t (hsa_abi.h). */
	return (struct hsaqm_amd_queue *)(uintptr_t)q;
}

/* ------------------------------------------------------------------------------------
 * The hardware queue behind an HSA queue.
 *
 * KFD path (fq->via_kfd): as ROCr through libhsakmt, with kfd-ioctl on the model's KFD face:
 * CREATE_QUEUE (COMPUTE_AQL, 100 %, the ring, write and read pointers = the amd_queue_t's
 * dispatch ids, EOP buffer, CWSR area of the node's size), UPDATE_QUEUE for a priority,
 * SET_CU_MASK, DESTROY_QUEUE. The face then asks the KFD face for the hardware queue behind the
 * queue id, to link its doorbell signal to it.
 * Direct path: the core's sim_hwq_* calls with the same ring, pointers and priority.
 */

/* The CP's part on a queue error: write the error into the queue's queue_inactive_signal. */
static void hwq_error(void *ctx, struct sim_hwq *q, int hsa_status)
{
	struct hsa_face_queue *fq = ctx;

	(void)q;
	/* Engine thread: a signal store is one of the calls a callback may make. */
	sim_signal_cas(fq->face->sim, fq->inactive, 0, (int64_t)hsa_status);
}

/* The transport's open(), wrapped: libhsakmt knows its descriptor, kfd-ioctl keeps it private. */
static int tp_open(void *ctx)
{
	struct hsa_face_kfd *k = ctx;
	int h = k->model->open(k->model->ctx);

	if (h >= 0)
		k->handle = h;
	return h;
}

static int tp_close(void *ctx, int handle)
{
	struct hsa_face_kfd *k = ctx;

	return k->model->close(k->model->ctx, handle);
}

static int tp_ioctl(void *ctx, int handle, unsigned long request, void *arg)
{
	struct hsa_face_kfd *k = ctx;

	return k->model->ioctl(k->model->ctx, handle, request, arg);
}

static void *tp_mmap(void *ctx, int handle, void *addr, size_t len, int prot, int flags, off_t off)
{
	struct hsa_face_kfd *k = ctx;

	return k->model->mmap(k->model->ctx, handle, addr, len, prot, flags, off);
}

static int tp_munmap(void *ctx, void *addr, size_t len)
{
	struct hsa_face_kfd *k = ctx;

	return k->model->munmap(k->model->ctx, addr, len);
}

static void tp_doorbell_written(void *ctx, int handle, volatile void *doorbell, uint64_t value)
{
	struct hsa_face_kfd *k = ctx;

	k->model->doorbell_written(k->model->ctx, handle, doorbell, value);
}

/*
 * RUNTIME_ENABLE, as ROCr does once it has opened the KFD and read the topology (KfdDriver::
 * Init, hsaKmtRuntimeEnable(&_amdgpu_r_debug, debug flag)): without it the KFD refuses the
 * debugger's hardware operations (EPERM), which hsaqm's Lv3 needs on the same KFD process.
 * ROCr accepts NOT_SUPPORTED (a KFD older than 1.13); EBUSY and EEXIST mean another opener of
 * this process enabled it first, or made queues before (the model's KFD is one per process).
 * ROCr passes r_debug's address and sets up trap temporaries only when debugging: the model
 * has no loader list, so 0, no ttmp. A debugger already attached makes the KFD wait for its
 * runtime event (an EINTR here in VIRTUAL time); the face then goes on, as the state is
 * ENABLED either way.
 */
static void runtime_enable(struct hsa_face_kfd *k)
{
	int err = hsaqm_kfd_runtime_enable(k->kfd, 0, false);

	k->runtime_err = err;
	if (err && err != -EOPNOTSUPP && err != -EBUSY && err != -EEXIST)
		hsaqm_log_warn("sim HSA face: RUNTIME_ENABLE: %s", strerror(-err));
}

/*
 * Open the model's KFD once (face lock held) and read what libhsakmt reads from the topology:
 * each GPU node's gpu_id (the i-th GPU node is device i) and its CWSR sizes.
 */
static int kfd_open(struct hsa_face *f)
{
	struct hsa_face_kfd *k = &f->kfd;
	struct hsaqm_topology *topo = NULL;
	unsigned int ndev = sim_device_count(f->sim), d = 0;
	int err;

	if (k->kfd)
		return 0;
	k->model = hsaqm_sim_kfd_transport(f->sim);
	if (!k->model)
		return -ENODEV;
	k->tp = *k->model;
	k->tp.ctx = k;
	k->tp.open = tp_open;
	k->tp.close = tp_close;
	k->tp.ioctl = tp_ioctl;
	k->tp.mmap = k->model->mmap ? tp_mmap : NULL;
	k->tp.munmap = k->model->munmap ? tp_munmap : NULL;
	k->tp.doorbell_written = k->model->doorbell_written ? tp_doorbell_written : NULL;
	err = hsaqm_topology_load(k->model->sysfs_root, &topo);
	if (err)
		return err;
	for (uint32_t n = 0; n < topo->n_nodes && d < ndev; n++) {
		const struct hsaqm_topology_node *node = &topo->nodes[n];

		if (!node->is_gpu)
			continue;
		k->gpu_id[d] = node->gpu_id;
		f->agents[1 + d].node = node->node_id;
		err = hsaqm_cwsr_sizes_get(node, &k->cwsr[d]);
		if (err)
			break;
		d++;
	}
	hsaqm_topology_free(topo);
	if (err)
		return err;
	if (d != ndev)
		return -ENODEV;
	err = hsaqm_kfd_open(&k->tp, &k->kfd);
	if (err) {
		k->kfd = NULL;
		return err;
	}
	runtime_enable(k);
	return 0;
}

int hsa_face_kfd_ready(struct hsaqm_sim *sim)
{
	void *root = sim ? hsaqm_sim_hsa_table(sim) : NULL;
	struct hsa_face *f;
	int err;

	if (!root)
		return -EINVAL;
	/* The table is the face's root member: step back to the face. */
	f = (struct hsa_face *)((char *)root - offsetof(struct hsa_face, root));
	hsa_face_lock(f);
	err = f->via_kfd ? kfd_open(f) : -EINVAL;
	hsa_face_unlock(f);
	return err;
}

void hsa_face_kfd_close(struct hsa_face *f)
{
	struct hsa_face_kfd *k = &f->kfd;

	if (k->kfd)
		hsaqm_kfd_close(k->kfd);
	k->kfd = NULL;
	for (unsigned int d = 0; d < HSAQM_SIM_MAX_DEVICES; d++) {
		sim_mem_free(f->sim, k->cwsr_area[d]);
		k->cwsr_area[d] = NULL;
	}
}

static int hwq_create_kfd(struct hsa_face_queue *fq, uint32_t size_packets)
{
	struct hsa_face *f = fq->face;
	struct hsa_face_kfd *k = &f->kfd;
	unsigned int dev = fq->agent->dev;
	int err;

	hsa_face_lock(f);
	err = kfd_open(f);
	/*
	 * The CWSR area: ROCr gives each queue (cwsr + debug) x XCCs, 49 MiB on MI308X. The model
	 * never writes it (the core keeps saved waves itself), so the queues of a device share one
	 * area of that size: the ioctl carries exactly ROCr's sizes without 49 MiB of model memory
	 * per queue.
	 */
	if (!err && !k->cwsr_area[dev]) {
		k->cwsr_area[dev] = sim_mem_alloc(f->sim, k->cwsr[dev].total_size, 4096);
		if (!k->cwsr_area[dev])
			err = -ENOMEM;
	}
	hsa_face_unlock(f);
	if (err)
		return err;
	fq->eop = sim_mem_alloc(
		f->sim, k->cwsr[dev].eop_buffer_size ? k->cwsr[dev].eop_buffer_size : 4096, 4096);
	if (!fq->eop)
		return -ENOMEM;
	struct hsaqm_kfd_create_queue_args a = {
		.ring_base_address = (uint64_t)(uintptr_t)fq->ring,
		.write_pointer_address = (uint64_t)(uintptr_t)&fq->amd->write_dispatch_id,
		.read_pointer_address = (uint64_t)(uintptr_t)&fq->amd->read_dispatch_id,
		.ring_size = size_packets * HSAQM_AQL_PACKET_SIZE,
		.gpu_id = k->gpu_id[dev],
		.queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL,
		.queue_percentage = 100,
		.queue_priority = fq->priority,
		.eop_buffer_address = (uint64_t)(uintptr_t)fq->eop,
		.eop_buffer_size = k->cwsr[dev].eop_buffer_size,
		.ctx_save_restore_address = (uint64_t)(uintptr_t)k->cwsr_area[dev],
		.ctx_save_restore_size = k->cwsr[dev].cwsr_size,
		.ctl_stack_size = k->cwsr[dev].ctl_stack_size,
	};
	err = hsaqm_kfd_queue_create(k->kfd, &a);
	if (err)
		return err;
	fq->kfd_queue_id = a.queue_id;
	fq->hwq = sim_kfd_face_hwq(f->sim, k->handle, a.queue_id);
	if (!fq->hwq) {
		hsaqm_kfd_queue_destroy(k->kfd, a.queue_id);
		return -EIO;
	}
	return 0;
}

static int hwq_create(struct hsa_face_queue *fq, uint32_t size_packets)
{
	if (fq->via_kfd)
		return hwq_create_kfd(fq, size_packets);

	struct sim_hwq_desc d = {
		.dev = fq->agent->dev,
		.ring_base = fq->ring,
		.ring_size_bytes = size_packets * HSAQM_AQL_PACKET_SIZE,
		.write_ptr = (uint64_t *)(uintptr_t)&fq->amd->write_dispatch_id,
		.read_ptr = (uint64_t *)(uintptr_t)&fq->amd->read_dispatch_id,
		.priority = fq->priority,
		.active = true,
		.pasid = (uint32_t)getpid(),
		.error_fn = hwq_error,
		.error_ctx = fq,
	};

	return sim_hwq_create(fq->face->sim, &d, &fq->hwq);
}

static int hwq_destroy(struct hsa_face_queue *fq)
{
	if (fq->via_kfd)
		return hsaqm_kfd_queue_destroy(fq->face->kfd.kfd, fq->kfd_queue_id);
	return sim_hwq_destroy(fq->hwq);
}

/* UPDATE_QUEUE as libhsakmt issues it for a priority change: same ring, 100 %, new priority. */
static int hwq_set_priority(struct hsa_face_queue *fq, uint32_t priority)
{
	uint32_t size = fq->amd->hsa_queue.size * HSAQM_AQL_PACKET_SIZE;

	if (fq->via_kfd)
		return hsaqm_kfd_queue_update(fq->face->kfd.kfd, fq->kfd_queue_id,
					      (uint64_t)(uintptr_t)fq->ring, size, 100, priority);
	return sim_hwq_update(fq->hwq, fq->ring, size, priority, true);
}

static int hwq_set_cu_mask(struct hsa_face_queue *fq, const uint32_t *mask, uint32_t nbits)
{
	if (fq->via_kfd)
		return hsaqm_kfd_queue_set_cu_mask(fq->face->kfd.kfd, fq->kfd_queue_id, mask,
						   nbits);
	return sim_hwq_set_cu_mask(fq->hwq, mask, nbits);
}

/* ------------------------------------------------------------------------------------
 * Creation and teardown.
 */
static bool queue_error_handler(int64_t value, void *arg)
{
	struct hsa_face_queue *fq = arg;

	/* Acquire: pairs with destroy's release; a retired queue's callback is not called. */
	if (value != QUEUE_RETIRE_MARK && !hsaqm_load_acquire(&fq->retiring) && fq->callback) {
		tl_handler_queue = fq;
		fq->callback((hsaqm_hsa_status_t)value, &fq->amd->hsa_queue, fq->callback_data);
		tl_handler_queue = NULL;
	}
	/* Release: after this the destroyer may free fq; nothing below touches it. */
	hsaqm_store_release(&fq->handler_done, 1u);
	return false;
}

static void queue_free_memory(struct hsa_face_queue *fq)
{
	struct hsaqm_sim *sim = fq->face->sim;

	if (fq->doorbell)
		sim_signal_destroy(sim, fq->doorbell);
	if (fq->inactive)
		sim_signal_destroy(sim, fq->inactive);
	sim_mem_free(sim, fq->ring);
	sim_mem_free(sim, fq->amd);
	sim_mem_free(sim, fq->eop);
	free(fq);
}

/*
 * True once the queue's error handler has run and the core no longer touches its signal
 * (REAL mode: the handler thread drops its waiter count right after the handler returns).
 */
static bool handler_retired(struct hsa_face_queue *fq)
{
	/* Acquire: pairs with the handler's release of handler_done. */
	if (!hsaqm_load_acquire(&fq->handler_done))
		return false;
	/*
	 * Acquire (second load): pairs with the waiters' decrement; a waiter that left is done
	 * with the signal.
	 */
	return sim_config(fq->face->sim)->time_mode == HSAQM_SIM_TIME_VIRTUAL ||
	       hsaqm_load_acquire(&fq->inactive->host_waiters) == 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Make the error handler run once more (it then unregisters) and wait until it has. */
static bool retire_handler(struct hsa_face_queue *fq)
{
	struct hsaqm_sim *sim = fq->face->sim;

	/* Release: a handler that sees the mark or the flag does not call back. */
	hsaqm_store_release(&fq->retiring, 1u);
	/* Keep an error code that is already there; its handler has run or is running. */
	sim_signal_cas(sim, fq->inactive, 0, QUEUE_RETIRE_MARK);
	if (tl_handler_queue == fq)
		return false; /* destroyed from its own callback: the handler finishes after us */
	if (sim_config(sim)->time_mode == HSAQM_SIM_TIME_VIRTUAL) {
		/* The loop finds it due and runs it (no face lock held here), at this instant. */
		if (hsaqm_sim_advance(sim, 0))
			return false;
		return handler_retired(fq);
	}
	uint64_t deadline = mono_ns() + HANDLER_WAIT_NS;
	while (!handler_retired(fq)) {
		if (mono_ns() > deadline) {
			hsaqm_log_warn("queue %p: error handler did not retire", (void *)fq->amd);
			return false;
		}
		sched_yield();
	}
	return true;
}

/*
 * Queues torn down while their error handler could still run (destroyed from their own
 * callback, or the handler was slow): freed once it has retired. One list for every face
 * (each queue knows its face), under graveyard_lock.
 */
static struct hsa_face_queue *graveyard;
static pthread_mutex_t graveyard_lock = PTHREAD_MUTEX_INITIALIZER;

static void reap_graveyard(void)
{
	for (struct hsa_face_queue **pp = &graveyard; *pp;) {
		struct hsa_face_queue *fq = *pp;

		if (handler_retired(fq)) {
			*pp = fq->next;
			queue_free_memory(fq);
		} else {
			pp = &fq->next;
		}
	}
}

/*
 * Tear down a queue already unlinked from its face. Returns 0, or the error of the hardware
 * queue's destruction (the queue is then left as it was, for the caller to relink).
 */
static int queue_teardown(struct hsa_face_queue *fq)
{
	if (fq->hwq) {
		/* The doorbell rings nothing from now on (only a buggy client stores meanwhile). */
		HSAQM_WRITE_ONCE(fq->doorbell->hwq, (struct sim_hwq *)NULL);
		int err = hwq_destroy(fq);
		if (err) {
			HSAQM_WRITE_ONCE(fq->doorbell->hwq, fq->hwq);
			return err;
		}
		fq->hwq = NULL;
	}
	if (retire_handler(fq)) {
		queue_free_memory(fq);
	} else {
		pthread_mutex_lock(&graveyard_lock);
		fq->next = graveyard;
		graveyard = fq;
		pthread_mutex_unlock(&graveyard_lock);
	}
	return 0;
}

static struct hsa_face_queue *queue_lookup(const struct hsaqm_hsa_queue *queue, bool unlink)
{
	struct hsa_face *f = hsa_face_of_mem(queue, sizeof(struct hsaqm_amd_queue));
	struct hsa_face_queue *fq = NULL;

	if (!f)
		return NULL;
	hsa_face_lock(f);
	for (struct hsa_face_queue **pp = &f->queues; *pp; pp = &(*pp)->next) {
		if (&(*pp)->amd->hsa_queue == queue) {
			fq = *pp;
			if (unlink)
				*pp = fq->next;
			break;
		}
	}
	hsa_face_unlock(f);
	return fq;
}

/* A registered queue (left linked) of an open face: the checks of the AMD queue extensions. */
static hsaqm_hsa_status_t open_queue(const struct hsaqm_hsa_queue *queue,
				     struct hsa_face_queue **fq)
{
	*fq = queue_lookup(queue, false);
	if (!*fq)
		return HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE;
	if (!hsa_face_is_open((*fq)->face))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static void queue_link(struct hsa_face_queue *fq)
{
	struct hsa_face *f = fq->face;

	hsa_face_lock(f);
	fq->next = f->queues;
	f->queues = fq;
	hsa_face_unlock(f);
}

static void amd_queue_init(struct hsa_face_queue *fq, uint32_t size, uint32_t type)
{
	struct hsaqm_amd_queue *q = fq->amd;
	const struct sim_profile *p = fq->agent->prof;

	q->hsa_queue.type = type;
	q->hsa_queue.features = HSAQM_HSA_QUEUE_FEATURE_KERNEL_DISPATCH;
	q->hsa_queue.base_address = fq->ring;
	q->hsa_queue.doorbell_signal.handle = (uint64_t)(uintptr_t)fq->doorbell;
	q->hsa_queue.size = size;
	/*
	 * acq_rel: only the id's uniqueness across threads matters; nothing is published with
	 * it.
	 */
	q->hsa_queue.id = hsaqm_fetch_add(&next_queue_id, 1ull);
	q->caps = 0;
	q->write_dispatch_id = 0;
	q->read_dispatch_id = 0;
	/* What ROCr fills from the device: apertures (hi words), the last CU and wave ids. */
	q->group_segment_aperture_base_hi = (uint32_t)(HSA_FACE_LDS_APERTURE_BASE >> 32);
	q->private_segment_aperture_base_hi = (uint32_t)(HSA_FACE_SCRATCH_APERTURE_BASE >> 32);
	q->max_cu_id = p->cu_count - 1;
	q->max_wave_id = p->simd_per_cu * p->max_waves_per_simd - 1;
	/* The CP finds the amd_queue_t from the read pointer with this offset. */
	q->read_dispatch_id_field_base_byte_offset =
		(uint32_t)offsetof(struct hsaqm_amd_queue, read_dispatch_id);
	/* Scratch is not modelled: no scratch memory, zero-sized descriptors. */
	q->queue_properties = HSAQM_AMD_QUEUE_PROPERTIES_IS_PTR64 |
			      HSAQM_AMD_QUEUE_PROPERTIES_ENABLE_TRAP_HANDLER;
	q->queue_inactive_signal.handle = (uint64_t)(uintptr_t)fq->inactive;
}

static hsaqm_hsa_status_t face_queue_create(struct hsaqm_hsa_agent agent, uint32_t size,
					    uint32_t type, hsaqm_hsa_queue_callback_fn callback,
					    void *data, uint32_t private_segment_size,
					    uint32_t group_segment_size,
					    struct hsaqm_hsa_queue **queue)
{
	struct hsa_face_agent *a = hsa_face_agent_from_handle(agent.handle);
	int err;

	if (!a)
		return HSAQM_HSA_STATUS_ERROR_INVALID_AGENT;
	struct hsa_face *f = a->face;
	if (!hsa_face_is_open(f))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	if (!queue || size == 0 || (size & (size - 1)) || type > HSAQM_HSA_QUEUE_TYPE_COOPERATIVE)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	/* The host agent has no queues; cooperative queues need GWS, which is not modelled. */
	if (!a->is_gpu || type == HSAQM_HSA_QUEUE_TYPE_COOPERATIVE)
		return HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE_CREATION;
	/* ROCr's GpuAgent::QueueCreate: too large is "out of resources", too small invalid. */
	if (size > HSA_FACE_QUEUE_MAX_PACKETS)
		return HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES;
	if (size < HSA_FACE_QUEUE_MIN_PACKETS)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;

	struct hsa_face_queue *fq = calloc(1, sizeof(*fq));
	if (!fq)
		return HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES;
	fq->face = f;
	fq->agent = a;
	fq->callback = callback;
	fq->callback_data = data;
	fq->priority = 7; /* HSA_QUEUE_PRIORITY_NORMAL through libhsakmt's map */
	fq->amd = sim_mem_alloc(f->sim, sizeof(struct hsaqm_amd_queue), HSAQM_AMD_QUEUE_ALIGN);
	fq->ring = sim_mem_alloc(f->sim, (size_t)size * HSAQM_AQL_PACKET_SIZE, 4096);
	fq->doorbell = sim_signal_create(f->sim, 0);
	fq->inactive = sim_signal_create(f->sim, 0);
	if (!fq->amd || !fq->ring || !fq->doorbell || !fq->inactive) {
		queue_free_memory(fq);
		return HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES;
	}
	/* As ROCr leaves a new ring: every packet INVALID, so the packet processor waits. */
	union hsaqm_aql_packet *ring = fq->ring;
	for (uint32_t i = 0; i < size; i++)
		ring[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	HSAQM_WRITE_ONCE(fq->doorbell->kind, (uint32_t)SIM_SIGNAL_DOORBELL);
	amd_queue_init(fq, size, type);

	fq->via_kfd = f->via_kfd;
	err = hwq_create(fq, size);
	if (err) {
		/* ROCr: any failure of the KMT queue creation is "out of resources". */
		hsaqm_log_info("queue creation failed: %d", err);
		queue_free_memory(fq);
		return err == -EDEADLK ? hsa_face_status_from_errno(err)
				       : HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES;
	}
	/* From now on a store to the doorbell signal rings the hardware queue. */
	HSAQM_WRITE_ONCE(fq->doorbell->hwq, fq->hwq);
	err = sim_signal_async_handler(f->sim, fq->inactive, SIM_COND_NE, 0, queue_error_handler,
				       fq);
	if (err) {
		HSAQM_WRITE_ONCE(fq->doorbell->hwq, (struct sim_hwq *)NULL);
		hwq_destroy(fq);
		queue_free_memory(fq);
		return hsa_face_status_from_errno(err);
	}
	queue_link(fq);
	*queue = &fq->amd->hsa_queue;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t face_queue_destroy(struct hsaqm_hsa_queue *queue)
{
	struct hsa_face_queue *fq;
	int err;

	if (!queue)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	fq = queue_lookup(queue, true);
	if (!fq)
		return HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE;
	err = queue_teardown(fq);
	if (err) {
		queue_link(fq);
		return hsa_face_status_from_errno(err);
	}
	pthread_mutex_lock(&graveyard_lock);
	reap_graveyard();
	pthread_mutex_unlock(&graveyard_lock);
	return HSAQM_HSA_STATUS_SUCCESS;
}

/*
 * hsa_queue_inactivate: as ROCr, the hardware queue goes away (no packet is processed any
 * more, doorbells ring nothing); the amd_queue_t, ring and signals stay until destroy.
 */
static hsaqm_hsa_status_t face_queue_inactivate(struct hsaqm_hsa_queue *queue)
{
	struct hsa_face_queue *fq;

	if (!queue)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	fq = queue_lookup(queue, false);
	if (!fq)
		return HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE;
	if (!fq->hwq)
		return HSAQM_HSA_STATUS_SUCCESS;
	HSAQM_WRITE_ONCE(fq->doorbell->hwq, (struct sim_hwq *)NULL);
	int err = hwq_destroy(fq);
	if (err) {
		HSAQM_WRITE_ONCE(fq->doorbell->hwq, fq->hwq);
		return hsa_face_status_from_errno(err);
	}
	fq->hwq = NULL;
	return HSAQM_HSA_STATUS_SUCCESS;
}

void hsa_face_queues_destroy_all(struct hsa_face *f)
{
	for (;;) {
		hsa_face_lock(f);
		struct hsa_face_queue *fq = f->queues;
		if (fq)
			f->queues = fq->next;
		hsa_face_unlock(f);
		if (!fq)
			break;
		if (queue_teardown(fq)) {
			/* In a model callback it cannot go now; the model's destroy takes it. */
			hsaqm_log_warn("queue %p could not be destroyed", (void *)fq->amd);
			queue_link(fq);
			break;
		}
	}
	/*
	 * Queues of this face whose handler had not retired: last chance before the model goes.
	 * Taken off the graveyard first and waited for without graveyard_lock: running the loop
	 * under it would run the handlers under it too (VIRTUAL), and a handler's callback may
	 * destroy a queue, which takes it.
	 */
	struct hsa_face_queue *mine = NULL;

	pthread_mutex_lock(&graveyard_lock);
	for (struct hsa_face_queue **pp = &graveyard; *pp;) {
		struct hsa_face_queue *fq = *pp;

		if (fq->face != f) {
			pp = &fq->next;
			continue;
		}
		*pp = fq->next;
		fq->next = mine;
		mine = fq;
	}
	pthread_mutex_unlock(&graveyard_lock);
	while (mine) {
		struct hsa_face_queue *fq = mine;

		mine = fq->next;
		if (!handler_retired(fq) && sim_config(f->sim)->time_mode == HSAQM_SIM_TIME_VIRTUAL)
			hsaqm_sim_advance(f->sim, 0);
		uint64_t deadline = mono_ns() + HANDLER_WAIT_NS;
		while (!handler_retired(fq) && mono_ns() < deadline)
			sched_yield();
		if (handler_retired(fq)) {
			queue_free_memory(fq);
		} else {
			/* A callback that never returns: leave fq to it, never free it under it. */
			hsaqm_log_warn("queue %p: error callback still running at the end",
				       (void *)fq->amd);
		}
	}
}

/* ------------------------------------------------------------------------------------
 * Read and write indices: atomics on the amd_queue_t, no lookup (they are the hot path, and
 * work on any amd_queue_t, a proxy queue's included). The relaxed variants are relaxed.
 */
static uint64_t face_load_read_index_scacquire(const struct hsaqm_hsa_queue *queue)
{
	/* Acquire: the packet processor released the INVALID headers before the index. */
	return queue ? hsaqm_load_acquire(&amd_of(queue)->read_dispatch_id) : 0;
}

static uint64_t face_load_read_index_relaxed(const struct hsaqm_hsa_queue *queue)
{
	return queue ? hsaqm_load_relaxed(&amd_of(queue)->read_dispatch_id) : 0;
}

static uint64_t face_load_write_index_scacquire(const struct hsaqm_hsa_queue *queue)
{
	/* Acquire: pairs with producers' releases of the write index. */
	return queue ? hsaqm_load_acquire(&amd_of(queue)->write_dispatch_id) : 0;
}

static uint64_t face_load_write_index_relaxed(const struct hsaqm_hsa_queue *queue)
{
	return queue ? hsaqm_load_relaxed(&amd_of(queue)->write_dispatch_id) : 0;
}

static void face_store_write_index_relaxed(const struct hsaqm_hsa_queue *queue, uint64_t value)
{
	if (queue)
		hsaqm_store_relaxed(&amd_of(queue)->write_dispatch_id, value);
}

static void face_store_write_index_screlease(const struct hsaqm_hsa_queue *queue, uint64_t value)
{
	/* Release: the producer's earlier writes before the index the packet processor reads. */
	if (queue)
		hsaqm_store_release(&amd_of(queue)->write_dispatch_id, value);
}

/* CAS variants: acq_rel on success, acquire on failure (at least what each name asks). */
static uint64_t cas_write_index(const struct hsaqm_hsa_queue *queue, uint64_t expected,
				uint64_t value)
{
	uint64_t e = expected;

	if (!queue)
		return 0;
	/*
	 * acq_rel (the strongest order; it satisfies every variant): a producer's reservation
	 * against its later slot writes and other producers'.
	 */
	hsaqm_cas(&amd_of(queue)->write_dispatch_id, &e, value);
	return e; /* the value observed: expected on success */
}

#define CAS_INDEX(order)                                                                        \
	static uint64_t face_cas_write_index_##order(const struct hsaqm_hsa_queue *queue,      \
						     uint64_t expected, uint64_t value)        \
	{                                                                                       \
		return cas_write_index(queue, expected, value);                                 \
	}
CAS_INDEX(scacq_screl)
CAS_INDEX(scacquire)
CAS_INDEX(relaxed)
CAS_INDEX(screlease)

/* Add variants: acq_rel (hsaqm_fetch_add); ROCclr reserves with the screlease one. */
#define ADD_INDEX(order)                                                                   \
	static uint64_t face_add_write_index_##order(const struct hsaqm_hsa_queue *queue, \
						     uint64_t value)                      \
	{                                                                                  \
		return queue ? hsaqm_fetch_add(&amd_of(queue)->write_dispatch_id, value) : 0;  \
	}
ADD_INDEX(scacq_screl)
ADD_INDEX(scacquire)
ADD_INDEX(relaxed)
ADD_INDEX(screlease)

static void face_store_read_index_relaxed(const struct hsaqm_hsa_queue *queue, uint64_t value)
{
	if (queue)
		hsaqm_store_relaxed(&amd_of(queue)->read_dispatch_id, value);
}

static void face_store_read_index_screlease(const struct hsaqm_hsa_queue *queue, uint64_t value)
{
	/* Release: the consumer's reads of the slots before the index that frees them. */
	if (queue)
		hsaqm_store_release(&amd_of(queue)->read_dispatch_id, value);
}

/* ------------------------------------------------------------------------------------
 * AMD queue extensions.
 */

/*
 * hsa_amd_queue_set_priority: ROCr maps LOW/NORMAL/HIGH to libhsakmt's MINIMUM/NORMAL/HIGH
 * (-3/0/+2; HIGH was MAXIMUM, +3, before ROCm 6.2), and libhsakmt maps -3..+3 to KFD
 * priorities {0, 3, 5, 7, 9, 11, 15}. The face presents ROCm 6.3, so: 0, 7, 11.
 */
static const uint32_t kfd_priority_of[3] = { 0, 7, 11 };

static hsaqm_hsa_status_t face_queue_set_priority(struct hsaqm_hsa_queue *queue, uint32_t priority)
{
	struct hsa_face_queue *fq;
	hsaqm_hsa_status_t st;

	if (!queue)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	st = open_queue(queue, &fq);
	if (st != HSAQM_HSA_STATUS_SUCCESS)
		return st;
	if (priority > HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	if (!fq->hwq)
		return HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE;
	int err = hwq_set_priority(fq, kfd_priority_of[priority]);
	if (err)
		return hsa_face_status_from_errno(err);
	fq->priority = kfd_priority_of[priority];
	return HSAQM_HSA_STATUS_SUCCESS;
}

/*
 * hsa_amd_queue_cu_set_mask: @count bits (a multiple of 32; 0 restores every CU). Bits past
 * the device's CUs are dropped and reported as HSA_STATUS_CU_MASK_REDUCED, as ROCr does; a
 * mask with no CU of the device is refused.
 */
static hsaqm_hsa_status_t face_queue_cu_set_mask(const struct hsaqm_hsa_queue *queue,
						 uint32_t count, const uint32_t *mask)
{
	struct hsa_face_queue *fq;
	hsaqm_hsa_status_t st;
	uint32_t m[32] = { 0 };

	if (!queue || count % 32 || (count && !mask))
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	st = open_queue(queue, &fq);
	if (st != HSAQM_HSA_STATUS_SUCCESS)
		return st;
	if (!fq->hwq)
		return HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE;
	uint32_t ncu = fq->agent->prof->cu_count;
	uint32_t nbits = count > 1024 ? 1024 : count; /* the KFD ignores bits past 1024 */
	uint32_t hw_bits = (ncu + 31) / 32 * 32;
	bool reduced = false, any = false;

	for (uint32_t cu = 0; cu < (nbits ? nbits : ncu); cu++) {
		bool on = nbits ? (mask[cu / 32] >> (cu % 32)) & 1u : true;

		if (!on)
			continue;
		if (cu >= ncu) {
			reduced = true;
			continue;
		}
		m[cu / 32] |= 1u << (cu % 32);
		any = true;
	}
	if (!any)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	int err = hwq_set_cu_mask(fq, m, hw_bits);
	if (err)
		return hsa_face_status_from_errno(err);
	/* cu_get_mask reports the mask as set (ROCr keeps the requested one). */
	hsa_face_lock(fq->face);
	memset(fq->cu_mask, 0, sizeof(fq->cu_mask));
	if (nbits)
		memcpy(fq->cu_mask, mask, nbits / 8);
	fq->cu_mask_bits = nbits;
	hsa_face_unlock(fq->face);
	return reduced ? HSAQM_HSA_STATUS_CU_MASK_REDUCED : HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t face_queue_cu_get_mask(const struct hsaqm_hsa_queue *queue,
						 uint32_t count, uint32_t *mask)
{
	struct hsa_face_queue *fq;
	hsaqm_hsa_status_t st;

	if (!queue || !count || count % 32 || !mask)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	st = open_queue(queue, &fq);
	if (st != HSAQM_HSA_STATUS_SUCCESS)
		return st;
	memset(mask, 0, count / 8);
	hsa_face_lock(fq->face);
	if (fq->cu_mask_bits) {
		memcpy(mask, fq->cu_mask,
		       (count < fq->cu_mask_bits ? count : fq->cu_mask_bits) / 8);
	} else {
		/* Never set: every CU of the device. */
		for (uint32_t cu = 0; cu < fq->agent->prof->cu_count && cu < count; cu++)
			mask[cu / 32] |= 1u << (cu % 32);
	}
	hsa_face_unlock(fq->face);
	return HSAQM_HSA_STATUS_SUCCESS;
}

/* hsa_amd_queue_get_info (ROCm 6.2): the agent, and a doorbell id (the hardware queue's index). */
static hsaqm_hsa_status_t face_queue_get_info(struct hsaqm_hsa_queue *queue, uint32_t attribute,
					      void *value)
{
	struct hsa_face_queue *fq;
	hsaqm_hsa_status_t st;

	if (!queue || !value)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	st = open_queue(queue, &fq);
	if (st != HSAQM_HSA_STATUS_SUCCESS)
		return st;
	switch (attribute) {
	case SIM_HSA_AMD_QUEUE_INFO_AGENT: {
		struct hsaqm_hsa_agent a = { hsa_face_agent_handle(fq->agent) };

		memcpy(value, &a, sizeof(a));
		return HSAQM_HSA_STATUS_SUCCESS;
	}
	case SIM_HSA_AMD_QUEUE_INFO_DOORBELL_ID: {
		struct sim_hwq_info info;

		if (!fq->hwq || sim_hwq_get_info(fq->hwq, &info))
			return HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE;
		/* The KFD queue id on the KFD path, the hardware queue's index otherwise. */
		*(uint64_t *)value = fq->via_kfd ? fq->kfd_queue_id : info.queue_index;
		return HSAQM_HSA_STATUS_SUCCESS;
	}
	default:
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	}
}

/* Profiling: the flag ROCr sets in queue_properties; the core timestamps every completion. */
static hsaqm_hsa_status_t face_profiling_set_profiler_enabled(struct hsaqm_hsa_queue *queue,
							      int enable)
{
	struct hsa_face_queue *fq;
	hsaqm_hsa_status_t st;

	if (!queue)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	st = open_queue(queue, &fq);
	if (st != HSAQM_HSA_STATUS_SUCCESS)
		return st;
	/* acq_rel RMW: the other bits of the word, which clients read, are kept. */
	if (enable)
		/* Atomic RMW on a word the runtime reads: one bit, no other data published with it. */
		hsaqm_fetch_or(&fq->amd->queue_properties,
			       (uint32_t)HSAQM_AMD_QUEUE_PROPERTIES_ENABLE_PROFILING);
	else
		hsaqm_fetch_and(&fq->amd->queue_properties,
				~(uint32_t)HSAQM_AMD_QUEUE_PROPERTIES_ENABLE_PROFILING);
	return HSAQM_HSA_STATUS_SUCCESS;
}

/*
 * Start and end of the packet whose completion signal this is: the launch and completion
 * times the core writes into the signal, model ns = ticks of the 1 GHz timestamp clock (so
 * no conversion, and hsa_amd_profiling_convert_tick_to_system_domain is the identity).
 */
static hsaqm_hsa_status_t face_profiling_get_dispatch_time(
	struct hsaqm_hsa_agent agent, struct hsaqm_hsa_signal signal,
	struct hsaqm_hsa_amd_profiling_dispatch_time *time)
{
	struct hsa_face_agent *a = hsa_face_agent_from_handle(agent.handle);
	struct hsa_face *f;
	struct sim_signal *s;

	if (!a || !a->is_gpu)
		return HSAQM_HSA_STATUS_ERROR_INVALID_AGENT;
	if (!hsa_face_is_open(a->face))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	s = hsa_face_signal(signal.handle, &f);
	if (!s || f != a->face)
		return HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL;
	if (!time)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	/* The core writes both before its acq_rel decrement: a waiter that saw it sees them. */
	time->start = (uint64_t)HSAQM_READ_ONCE(s->start_ts);
	time->end = (uint64_t)HSAQM_READ_ONCE(s->end_ts);
	return HSAQM_HSA_STATUS_SUCCESS;
}

/* Queue entries the model does not offer, with their real prototypes. */
static hsaqm_hsa_status_t face_queue_intercept_create(struct hsaqm_hsa_agent agent, uint32_t size,
						      uint32_t type,
						      hsaqm_hsa_queue_callback_fn callback,
						      void *data, uint32_t private_segment_size,
						      uint32_t group_segment_size,
						      struct hsaqm_hsa_queue **queue)
{
	hsaqm_log_info("hsa_amd_queue_intercept_create is not modelled");
	return HSAQM_HSA_STATUS_ERROR;
}

static hsaqm_hsa_status_t face_queue_intercept_register(
	struct hsaqm_hsa_queue *queue, hsaqm_hsa_amd_queue_intercept_handler callback, void *data)
{
	hsaqm_log_info("hsa_amd_queue_intercept_register is not modelled");
	return HSAQM_HSA_STATUS_ERROR;
}

static hsaqm_hsa_status_t face_counted_queue_acquire(struct hsaqm_hsa_agent agent, uint32_t type,
						     uint32_t priority,
						     hsaqm_hsa_queue_callback_fn callback,
						     void *data, uint64_t flags,
						     struct hsaqm_hsa_queue **queue)
{
	return HSAQM_HSA_STATUS_ERROR;
}

static hsaqm_hsa_status_t face_counted_queue_release(struct hsaqm_hsa_queue *queue)
{
	return HSAQM_HSA_STATUS_ERROR;
}

static hsaqm_hsa_status_t face_amd_queue_create(struct hsaqm_hsa_agent agent,
						struct hsaqm_hsa_amd_queue_create_desc *descs,
						uint32_t num_descs)
{
	return HSAQM_HSA_STATUS_ERROR;
}

void hsa_face_queue_fill_tables(struct hsa_face *f)
{
	struct hsaqm_core_api_table *c = &f->core;
	struct hsaqm_amd_ext_table_v2 *a = &f->amd_ext;

	c->hsa_queue_create_fn = face_queue_create;
	c->hsa_queue_destroy_fn = face_queue_destroy;
	c->hsa_queue_inactivate_fn = face_queue_inactivate;
	c->hsa_queue_load_read_index_scacquire_fn = face_load_read_index_scacquire;
	c->hsa_queue_load_read_index_relaxed_fn = face_load_read_index_relaxed;
	c->hsa_queue_load_write_index_scacquire_fn = face_load_write_index_scacquire;
	c->hsa_queue_load_write_index_relaxed_fn = face_load_write_index_relaxed;
	c->hsa_queue_store_write_index_relaxed_fn = face_store_write_index_relaxed;
	c->hsa_queue_store_write_index_screlease_fn = face_store_write_index_screlease;
	c->hsa_queue_cas_write_index_scacq_screl_fn = face_cas_write_index_scacq_screl;
	c->hsa_queue_cas_write_index_scacquire_fn = face_cas_write_index_scacquire;
	c->hsa_queue_cas_write_index_relaxed_fn = face_cas_write_index_relaxed;
	c->hsa_queue_cas_write_index_screlease_fn = face_cas_write_index_screlease;
	c->hsa_queue_add_write_index_scacq_screl_fn = face_add_write_index_scacq_screl;
	c->hsa_queue_add_write_index_scacquire_fn = face_add_write_index_scacquire;
	c->hsa_queue_add_write_index_relaxed_fn = face_add_write_index_relaxed;
	c->hsa_queue_add_write_index_screlease_fn = face_add_write_index_screlease;
	c->hsa_queue_store_read_index_relaxed_fn = face_store_read_index_relaxed;
	c->hsa_queue_store_read_index_screlease_fn = face_store_read_index_screlease;

	a->hsa_amd_profiling_set_profiler_enabled_fn = face_profiling_set_profiler_enabled;
	a->hsa_amd_profiling_get_dispatch_time_fn = face_profiling_get_dispatch_time;
	a->hsa_amd_queue_cu_set_mask_fn = face_queue_cu_set_mask;
	a->hsa_amd_queue_cu_get_mask_fn = face_queue_cu_get_mask;
	a->hsa_amd_queue_set_priority_fn = face_queue_set_priority;
	a->hsa_amd_queue_intercept_create_fn = face_queue_intercept_create;
	a->hsa_amd_queue_intercept_register_fn = face_queue_intercept_register;
	a->hsa_amd_queue_get_info_fn = face_queue_get_info;
	a->hsa_amd_counted_queue_acquire_fn = face_counted_queue_acquire;
	a->hsa_amd_counted_queue_release_fn = face_counted_queue_release;
	a->hsa_amd_queue_create_fn = face_amd_queue_create;
}

int hsa_face_set_queue_path(struct hsaqm_sim *sim, bool via_kfd)
{
	void *root = sim ? hsaqm_sim_hsa_table(sim) : NULL;
	struct hsa_face *f;
	int err = 0;

	if (!root)
		return -EINVAL;
	/* The table is the face's root member: step back to the face. */
	f = (struct hsa_face *)((char *)root - offsetof(struct hsa_face, root));
	hsa_face_lock(f);
	if (f->queues)
		err = -EBUSY;
	else
		f->via_kfd = via_kfd;
	hsa_face_unlock(f);
	return err;
}
