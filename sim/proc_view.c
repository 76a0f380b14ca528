// SPDX-License-Identifier: MIT
/*
 * proc_view.c - the KFD's per-process view (class/kfd/kfd/proc in sysfs) of the model: which
 * KFD processes have queues on which GPU, as amdkfd publishes it for every process
 * (kfd_procfs_add_queue: proc/<pid>/queues/<queue id>/{size, type, gpuid}). A process that
 * wants to know whether a GPU is shared (hsa-queue-probe before UPDATE_QUEUE 0 %, the node-wide
 * daemon) reads that tree; on the model it reads the generated tree, which this fills.
 *
 * The view is node-wide, as the KFD's: in-process, the KFD face's processes (one per OS process,
 * under its pid); in shared mode, every client process's, from the device process, so a client
 * sees the others' queues under their real pids. Both lists are read under their owners' locks
 * (no queue is read after it is freed). The tree is a snapshot taken at each call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "engine_internal.h"
#include "kfd_face_internal.h"
#include "sim_internal.h"

/* Two callers rewriting the same tree at once would interleave their remove and write. */
static pthread_mutex_t proc_view_lock = PTHREAD_MUTEX_INITIALIZER;

int hsaqm_sim_proc_view_sync(struct hsaqm_sim *sim)
{
	return sim_proc_view_sync(sim);
}

int sim_proc_view_sync(struct hsaqm_sim *sim)
{
	struct sim_proc_queue *v = NULL;
	unsigned int n = 0;
	int err;

	if (!sim)
		return -EINVAL;
	if (sim->role == SIM_ROLE_CLIENT)
		err = sim_shared_proc_list(sim, &v, &n);
	else
		err = sim_kfd_face_procs(sim, &v, &n);
	if (err)
		return err;
	pthread_mutex_lock(&proc_view_lock);
	err = sim_sysfs_proc_write(sim, v, n);
	pthread_mutex_unlock(&proc_view_lock);
	free(v);
	return err;
}
