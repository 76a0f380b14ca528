// SPDX-License-Identifier: MIT
/*
 * proc_view.c - the KFD's per-process view (class/kfd/kfd/proc in sysfs) of the model: which
 * KFD processes have queues on which GPU, as amdkfd publishes it for every process
 * (kfd_procfs_add_queue: proc/<pid>/queues/<queue id>/{size, type, gpuid}). A process that
 * wants to know whether a GPU is shared (hsa-queue-probe before UPDATE_QUEUE 0 %) reads that
 * tree; on the model it reads the generated tree, which this fills from the KFD face.
 *
 * Each open() of the model's KFD is one KFD process, but all of them live in the caller's real
 * process, so the tree names each after its PASID (0x8001 and up, plausible pids) instead of
 * getpid(), which would make them one. The tree is a snapshot taken at each call: the KFD face
 * does not write sysfs itself.
 */
#include <errno.h>
#include <stdlib.h>

#include "kfd_face_internal.h"
#include "sim_internal.h"

/*
 * The KFD face's handle numbering and queue ids (kfd_face.c: KFD_HANDLE_BASE,
 * KFD_MAX_HANDLES, KFD_MAX_QUEUES): handles are looked up through its view
 * sim_kfd_face_hwq(), lowest first, until every queue it counts has been seen.
 */
#define PROC_VIEW_HANDLE_BASE 1000
#define PROC_VIEW_MAX_HANDLES 256
#define PROC_VIEW_MAX_QUEUES 1024u

int sim_proc_view_sync(struct hsaqm_sim *sim)
{
	struct sim_proc_queue *v;
	unsigned int total, found = 0;
	int err;

	if (!sim)
		return -EINVAL;
	total = sim_kfd_face_queue_count(sim);
	v = calloc(total ? total : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* Handles and queue ids are given out lowest first: the scan ends early in practice. */
	for (int h = 0; h < PROC_VIEW_MAX_HANDLES && found < total; h++) {
		for (uint32_t id = 0; id < PROC_VIEW_MAX_QUEUES && found < total; id++) {
			struct sim_hwq *q = sim_kfd_face_hwq(sim, PROC_VIEW_HANDLE_BASE + h, id);
			struct sim_hwq_info info;

			if (!q || sim_hwq_get_info(q, &info))
				continue;
			v[found++] = (struct sim_proc_queue){
				.pid = info.pasid,
				.pasid = info.pasid,
				.queue_id = id,
				.gpu_id = sim_kfd_gpu_id(sim, info.dev),
				.type = 0, /* the model's KFD makes compute (AQL) queues only */
				.size = info.ring_size_bytes,
			};
		}
	}
	err = sim_sysfs_proc_write(sim, v, found);
	free(v);
	return err;
}
