// SPDX-License-Identifier: MIT
/*
 * pqueue.c - the queue a live check runs its spin kernel on, and how the KFD knows it.
 *
 * Hardware: the queue comes from the HSA runtime (ROCr), as an application's would, and the
 * probe finds its KFD queue id with GET_QUEUE_SNAPSHOT by ring address: every open of
 * /dev/kfd in a process reaches the same KFD process, so the probe's handle sees ROCr's
 * queues (design decision 1 relies on the same lookup).
 *
 * Model: the same path. When a test needs a process whose runtime never enabled the KFD's
 * runtime, the probe makes its queue through the KFD itself (env.queues_via_kfd: CREATE_QUEUE
 * on memory from the HSA table, which is model memory there), rings its doorbell through the
 * mapped doorbell page, and still finds its id by ring address.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"
#include "probe_internal.h"

/* Doorbell pages: the process's 1024 8-byte doorbells of a GPU (kfd_doorbell.c, SOC15). */
#define PROBE_DOORBELL_SLICE 8192u
/* Normal queue priority as ROCr sets it: HSA NORMAL -> thunk 0 -> KFD 7 (hardware-facts.md). */
#define PROBE_KFD_PRIORITY_NORMAL 7u

static const struct hsaqm_topology_node *node_of(struct probe_ctx *c, uint32_t gpu_id)
{
	return c->topo ? hsaqm_topology_find_gpu(c->topo, gpu_id) : NULL;
}

static int create_via_kfd(struct probe_ctx *c, struct hsaqm_hsa_agent agent,
			  const struct hsaqm_probe_gpu *gpu, uint32_t packets,
			  struct probe_queue *q, char *why, size_t why_len)
{
	const struct hsaqm_topology_node *node = node_of(c, gpu->gpu_id);
	struct hsaqm_cwsr_sizes cw;
	void *page = NULL;
	int err;

	if (!node) {
		snprintf(why, why_len, "gpu_id 0x%x is not in the topology", gpu->gpu_id);
		return -ENODEV;
	}
	err = hsaqm_cwsr_sizes_get(node, &cw);
	if (err) {
		snprintf(why, why_len, "CWSR sizes of node %u: %s", node->node_id,
			 probe_errname(err));
		return err;
	}
	q->via_kfd = true;
	q->size = packets;
	q->amd = probe_hsa_alloc(&c->hsa, agent, sizeof(*q->amd), true);
	q->ring = probe_hsa_alloc(&c->hsa, agent, (size_t)packets * HSAQM_AQL_PACKET_SIZE, true);
	q->eop = probe_hsa_alloc(&c->hsa, agent, cw.eop_buffer_size ? cw.eop_buffer_size : 4096,
				 true);
	q->cwsr = probe_hsa_alloc(&c->hsa, agent, (size_t)cw.total_size, false);
	if (!q->amd || !q->ring || !q->eop || !q->cwsr) {
		snprintf(why, why_len, "no memory for the queue's ring, EOP or CWSR area");
		return -ENOMEM;
	}
	/* As a runtime leaves a new ring: every slot INVALID (the packet processor waits there). */
	for (uint32_t i = 0; i < packets; i++)
		((uint32_t *)q->ring)[i * (HSAQM_AQL_PACKET_SIZE / 4)] = HSAQM_AQL_INVALID_WORD;
	q->amd->read_dispatch_id_field_base_byte_offset =
		(uint32_t)offsetof(struct hsaqm_amd_queue, read_dispatch_id);
	q->wr = &q->amd->write_dispatch_id;
	q->rd = &q->amd->read_dispatch_id;
	q->ring_base = (uint64_t)(uintptr_t)q->ring;
	q->ring_bytes = packets * HSAQM_AQL_PACKET_SIZE;

	struct hsaqm_kfd_create_queue_args a = {
		.ring_base_address = q->ring_base,
		.write_pointer_address = (uint64_t)(uintptr_t)q->wr,
		.read_pointer_address = (uint64_t)(uintptr_t)q->rd,
		.ring_size = q->ring_bytes,
		.gpu_id = gpu->gpu_id,
		.queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL,
		.queue_percentage = 100,
		.queue_priority = PROBE_KFD_PRIORITY_NORMAL,
		.eop_buffer_address = (uint64_t)(uintptr_t)q->eop,
		.eop_buffer_size = cw.eop_buffer_size,
		.ctx_save_restore_address = (uint64_t)(uintptr_t)q->cwsr,
		.ctx_save_restore_size = cw.cwsr_size,
		.ctl_stack_size = cw.ctl_stack_size,
	};
	uint64_t t0 = probe_now_ns();
	err = hsaqm_kfd_queue_create(c->kfd, &a);
	q->create_ns = probe_now_ns() - t0;
	if (err) {
		snprintf(why, why_len, "CREATE_QUEUE failed: %s", probe_errname(err));
		return err;
	}
	q->queue_id = a.queue_id;
	q->have_id = true;
	/* The doorbell page holds every doorbell of the process on this GPU. */
	uint64_t off = a.doorbell_offset & ~(uint64_t)(PROBE_DOORBELL_SLICE - 1);
	err = hsaqm_kfd_mmap(c->kfd, NULL, PROBE_DOORBELL_SLICE, PROT_READ | PROT_WRITE,
			     MAP_SHARED, (off_t)off, &page);
	if (err) {
		snprintf(why, why_len, "mmap of the doorbell page failed: %s", probe_errname(err));
		hsaqm_kfd_queue_destroy(c->kfd, q->queue_id);
		q->have_id = false;
		return err;
	}
	q->doorbell_page = page;
	q->doorbell = (volatile uint64_t *)((char *)page +
					    (a.doorbell_offset & (PROBE_DOORBELL_SLICE - 1)));
	return 0;
}

/*
 * The KFD id of the queue the runtime just made, without a debugger: the one queue of this
 * process on @gpu_id with this ring size that the KFD's sysfs kfd/proc lists now and did not
 * list before (kfd-ioctl's hsaqm_kfd_proc_queue_new; the HSA backend does the same).
 */
static void sysfs_id(struct probe_ctx *c, const struct hsaqm_probe_gpu *gpu,
		     const struct hsaqm_kfd_proc_queue *before, uint32_t nbefore, int before_err,
		     struct probe_queue *q)
{
	const struct hsaqm_kfd_transport *tp = hsaqm_kfd_transport_of(c->kfd);
	struct hsaqm_kfd_proc_queue *after = NULL;
	uint32_t nafter = 0;

	q->sysfs_err = before_err;
	if (before_err || !tp)
		return;
	q->sysfs_err = hsaqm_kfd_proc_queues(tp, (long)getpid(), &after, &nafter);
	if (!q->sysfs_err)
		q->sysfs_err = hsaqm_kfd_proc_queue_new(before, nbefore, after, nafter, gpu->gpu_id,
							q->ring_bytes, &q->sysfs_id);
	q->have_sysfs_id = q->sysfs_err == 0;
	free(after);
}

static int create_via_hsa(struct probe_ctx *c, struct hsaqm_hsa_agent agent,
			  const struct hsaqm_probe_gpu *gpu, uint32_t packets,
			  struct probe_queue *q, char *why, size_t why_len)
{
	const struct hsaqm_kfd_transport *tp = c->kfd ? hsaqm_kfd_transport_of(c->kfd) : NULL;
	struct hsaqm_kfd_proc_queue *before = NULL;
	uint32_t nbefore = 0;
	int before_err = tp ? hsaqm_kfd_proc_queues(tp, (long)getpid(), &before, &nbefore)
			    : -ENODEV;
	hsaqm_hsa_status_t st;
	uint64_t t0 = probe_now_ns();

	st = c->hsa.queue_create(agent, packets, HSAQM_HSA_QUEUE_TYPE_MULTI, NULL, NULL,
				 UINT32_MAX, UINT32_MAX, &q->hsa_queue);
	q->create_ns = probe_now_ns() - t0;
	if (st) {
		free(before);
		snprintf(why, why_len, "hsa_queue_create failed (status 0x%x)", st);
		return st == HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES ? -ENOMEM : -EIO;
	}
	q->amd = (struct hsaqm_amd_queue *)q->hsa_queue;
	q->ring = q->hsa_queue->base_address;
	q->size = q->hsa_queue->size;
	q->wr = &q->amd->write_dispatch_id;
	q->rd = &q->amd->read_dispatch_id;
	q->doorbell_signal = q->hsa_queue->doorbell_signal;
	q->ring_base = (uint64_t)(uintptr_t)q->ring;
	q->ring_bytes = q->size * HSAQM_AQL_PACKET_SIZE;
	sysfs_id(c, gpu, before, nbefore, before_err, q);
	free(before);
	return 0;
}

int probe_queue_create(struct probe_ctx *c, struct hsaqm_hsa_agent agent,
		       const struct hsaqm_probe_gpu *gpu, uint32_t packets, struct probe_queue *q,
		       char *why, size_t why_len)
{
	int err;

	memset(q, 0, sizeof(*q));
	if (c->env->queues_via_kfd)
		err = create_via_kfd(c, agent, gpu, packets, q, why, why_len);
	else
		err = create_via_hsa(c, agent, gpu, packets, q, why, why_len);
	if (err)
		probe_queue_destroy(c, q);
	return err;
}

int probe_queue_destroy(struct probe_ctx *c, struct probe_queue *q)
{
	int err = 0;

	if (q->hsa_queue) {
		if (c->hsa.queue_destroy(q->hsa_queue))
			err = -EIO;
		q->hsa_queue = NULL;
		q->amd = NULL;
	}
	if (q->via_kfd) {
		if (q->have_id)
			err = hsaqm_kfd_queue_destroy(c->kfd, q->queue_id);
		if (q->doorbell_page)
			hsaqm_kfd_munmap(c->kfd, q->doorbell_page, PROBE_DOORBELL_SLICE);
		probe_hsa_free(&c->hsa, q->cwsr);
		probe_hsa_free(&c->hsa, q->eop);
		probe_hsa_free(&c->hsa, q->ring);
		probe_hsa_free(&c->hsa, q->amd);
	}
	memset(q, 0, sizeof(*q));
	return err;
}

int probe_queue_find_id(struct probe_ctx *c, struct probe_queue *q)
{
	struct hsaqm_kfd_queue_snapshot_entry e[64];
	uint32_t n = 64;
	int err;

	memset(e, 0, sizeof(e));
	/* Clearing QUEUE_NEW makes a queue created after DBG_TRAP ENABLE suspendable. */
	err = hsaqm_kfd_dbg_queue_snapshot(c->kfd, HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW), e,
					   &n);
	if (err)
		return err;
	for (uint32_t i = 0; i < n && i < 64; i++) {
		if (e[i].ring_base_address == q->ring_base) {
			if ((q->have_id && q->queue_id != e[i].queue_id) ||
			    (q->have_sysfs_id && q->sysfs_id != e[i].queue_id))
				return -EPROTO; /* the KFD's two views and the probe disagree */
			q->queue_id = e[i].queue_id;
			q->have_id = true;
			q->save_area_size = e[i].ctx_save_restore_area_size;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * The process's other compute queues on GPU @gpu_id (the runtime's own, e.g. ROCr's utility
 * queue), by DBG_TRAP's snapshot: up to @max ids, their count in @n. The KFD remaps a
 * restarted queue by unmapping every active queue of the GPU first (execute_queues_cpsch), so
 * while these run, a restart's remap is an unmap too.
 */
int probe_queue_others(struct probe_ctx *c, const struct probe_queue *q, uint32_t gpu_id,
		       uint32_t *ids, uint32_t max, uint32_t *n)
{
	struct hsaqm_kfd_queue_snapshot_entry e[64];
	uint32_t m = 64;
	int err;

	memset(e, 0, sizeof(e));
	/* Clearing QUEUE_NEW makes them suspendable, as for the probe's own. */
	err = hsaqm_kfd_dbg_queue_snapshot(c->kfd, HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW), e, &m);
	if (err)
		return err;
	*n = 0;
	for (uint32_t i = 0; i < m && i < 64; i++) {
		if (e[i].gpu_id != gpu_id || e[i].ring_base_address == q->ring_base ||
		    (e[i].queue_type != HSAQM_KFD_QUEUE_TYPE_COMPUTE &&
		     e[i].queue_type != HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL))
			continue;
		if (*n >= max)
			return -E2BIG;
		ids[(*n)++] = e[i].queue_id;
	}
	return 0;
}

static void ring_doorbell(struct probe_ctx *c, struct probe_queue *q, uint64_t index)
{
	if (!q->via_kfd) {
		c->hsa.signal_store(q->doorbell_signal, (hsaqm_hsa_signal_value_t)index);
		return;
	}
	const struct hsaqm_kfd_transport *tp = hsaqm_kfd_transport_of(c->kfd);

	/* Release: the packet's header store before the doorbell the CP acts on. */
	hsaqm_store_release(q->doorbell, index);
	/* Hardware sees the MMIO store itself; a model must be told (the handle is a hint). */
	if (tp && tp->doorbell_written)
		tp->doorbell_written(tp->ctx, -1, q->doorbell, index);
}

int probe_queue_dispatch(struct probe_ctx *c, struct probe_queue *q, const struct probe_kernel *k,
			 uint32_t nwg, void *kernarg, struct hsaqm_hsa_signal done)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_dispatch_desc d = {
		.dims = 1,
		.workgroup_size = { PROBE_SPIN_WG_SIZE, 1, 1 },
		.grid_size = { nwg * PROBE_SPIN_WG_SIZE, 1, 1 },
		.private_segment_size = k->private_size,
		.group_segment_size = k->group_size,
		.kernel_object = k->kernel_object,
		.kernarg_address = (uint64_t)(uintptr_t)kernarg,
		.completion_signal = done.handle,
		.acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
		.release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
	};
	int err;

	memset(&p, 0, sizeof(p));
	err = hsaqm_aql_dispatch_build(&p, &d);
	if (err)
		return err;
	/* acq_rel: reserve the slot as any producer does. */
	uint64_t idx = hsaqm_fetch_add(q->wr, 1ull);
	uint64_t deadline = probe_now_ns() + 1000000000ull;
	/* Acquire: the read index says the CP is done with the slot we will overwrite. */
	while (idx - hsaqm_load_acquire(q->rd) >= q->size) {
		if (probe_now_ns() > deadline)
			return -ETIMEDOUT;
		if (!probe_sleep_ns(100000))
			return -EINTR;
	}
	err = hsaqm_aql_publish((char *)q->ring + (idx & (q->size - 1)) * HSAQM_AQL_PACKET_SIZE,
				&p);
	if (err)
		return err;
	ring_doorbell(c, q, idx);
	return 0;
}
