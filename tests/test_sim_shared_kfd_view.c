/* SPDX-License-Identifier: MIT */
/*
 * Shared mode: each client process sees the other clients' KFD processes and queues.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"
#include "hsa_face_internal.h"
#include "hsaqm-hsa/hsa_abi.h"
#include "hsaqm-kfd/kfd.h"
#include "kfd_face_internal.h"
#include "hsaqm-hsa/api_table.h"
#include "hsaqm-hsa/ring.h"
#include "hsaqm-common/log.h"
#include "shared_internal.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"
#include "t_sim_shared.h"

/* ------------------------------------------------------------------------------------
 * The node-wide kfd/proc view: each client sees the others' KFD processes and queues.
 */
struct pv_report {
	int err;
	uint32_t pasid;  /* its own, as its tree shows it */
	uint32_t queue_id;
	int32_t other_queues; /* queues of the other client seen in its own tree */
	uint32_t other_pasid;
};

struct pv_args {
	const char *path;
	int go;          /* read: a byte per step */
	pid_t other;     /* 0: the first client */
};

static int pv_read(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t k;

	if (!f)
		return -1;
	k = fread(buf, 1, n - 1, f);
	buf[k] = 0;
	fclose(f);
	return 0;
}

/* A KFD queue on GPU 0 through the client's KFD face; its pasid from its own tree. */
static void pv_client(void *arg, int report)
{
	struct pv_args *a = arg;
	struct pv_report r = { 0 };
	struct hsaqm_sim *sim = NULL;
	struct hsaqm_kfd *k = NULL;
	struct hsaqm_kfd_create_queue_args q = { 0 };
	char path[512], buf[64];
	char c;

	r.err = hsaqm_sim_connect(a->path, &sim);
	if (!r.err)
		r.err = hsaqm_kfd_open(hsaqm_sim_kfd_transport(sim), &k);
	if (!r.err) {
		uint64_t *ring = hsaqm_sim_mem_alloc(sim, 4096, 4096), *idx = hsaqm_sim_mem_alloc(sim, 64, 64);

		memset(ring, 0, 4096);
		for (int i = 0; i < 64; i++)
			ring[i * 8] = 1; /* INVALID headers */
		q.ring_base_address = (uint64_t)(uintptr_t)ring;
		q.write_pointer_address = (uint64_t)(uintptr_t)&idx[0];
		q.read_pointer_address = (uint64_t)(uintptr_t)&idx[1];
		q.ring_size = 4096;
		q.gpu_id = sim_kfd_gpu_id(sim, 0);
		q.queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL;
		q.queue_percentage = 100;
		q.queue_priority = 7;
		q.ctl_stack_size = 8192;
		r.err = hsaqm_kfd_queue_create(k, &q);
		r.queue_id = q.queue_id;
	}
	if (!r.err)
		r.err = sim_proc_view_sync(sim);
	if (!r.err) {
		snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/pasid", hsaqm_sim_sysfs_root(sim),
			 (int)getpid());
		r.err = pv_read(path, buf, sizeof(buf)) ? -ENOENT : 0;
		r.pasid = (uint32_t)strtoul(buf, NULL, 10);
	}
	t_write_all(report, &r, sizeof(r));
	/* Step 1: look at the other client (it has its queue by now). */
	if (t_read_all(a->go, &c, 1, 20000) == 0 && a->other) {
		r.other_queues = -1;
		if (!sim_proc_view_sync(sim)) {
			snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/pasid",
				 hsaqm_sim_sysfs_root(sim), (int)a->other);
			if (!pv_read(path, buf, sizeof(buf)))
				r.other_pasid = (uint32_t)strtoul(buf, NULL, 10);
			snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/queues/0/gpuid",
				 hsaqm_sim_sysfs_root(sim), (int)a->other);
			r.other_queues = access(path, F_OK) == 0;
		}
		t_write_all(report, &r, sizeof(r));
	}
	/* Step 2 (the first client): destroy the queue, keep the KFD process. */
	if (t_read_all(a->go, &c, 1, 20000) == 0 && !a->other) {
		r.err = hsaqm_kfd_queue_destroy(k, r.queue_id);
		t_write_all(report, &r, sizeof(r));
		t_read_all(a->go, &c, 1, 20000);
	}
	if (k)
		hsaqm_kfd_close(k);
	hsaqm_sim_destroy(sim);
	exit(0);
}

/*
 * Two client processes of one device: each one's kfd/proc lists the other under its real pid
 * with its KFD queue (gpuid of the right GPU); PASIDs differ (the device gives them); a queue
 * destroyed leaves the other's view while its process stays listed.
 */
static void test_each_client_sees_the_other_clients_kfd_processes_and_queues(void)
{
	struct t_device dev;
	int goa[2], gob[2], ra = -1, rb = -1;
	struct pv_report a = { 0 }, b = { 0 };
	struct pv_args aa, ba;

	CU_ASSERT_EQUAL_FATAL(t_device_start(&dev, "pv", 1), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(goa), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(gob), 0);
	aa = (struct pv_args){ .path = dev.path, .go = goa[0], .other = 0 };
	pid_t pa = t_child_start(pv_client, &aa, &ra);
	CU_ASSERT_EQUAL_FATAL(t_read_all(ra, &a, sizeof(a), 20000), 0);
	CU_ASSERT_EQUAL(a.err, 0);
	ba = (struct pv_args){ .path = dev.path, .go = gob[0], .other = pa };
	pid_t pb = t_child_start(pv_client, &ba, &rb);
	CU_ASSERT_EQUAL_FATAL(t_read_all(rb, &b, sizeof(b), 20000), 0);
	CU_ASSERT_EQUAL(b.err, 0);
	CU_ASSERT(a.pasid >= 0x8001 && b.pasid >= 0x8001);
	CU_ASSERT_NOT_EQUAL(a.pasid, b.pasid);
	/* B looks: A's process and queue, under A's pid, with A's pasid. */
	t_write_all(gob[1], "1", 1);
	CU_ASSERT_EQUAL_FATAL(t_read_all(rb, &b, sizeof(b), 20000), 0);
	CU_ASSERT_EQUAL(b.other_queues, 1);
	CU_ASSERT_EQUAL(b.other_pasid, a.pasid);
	/* A destroys its queue (step 1 of A is a no-op: it has no other to look at). */
	t_write_all(goa[1], "12", 2);
	CU_ASSERT_EQUAL_FATAL(t_read_all(ra, &a, sizeof(a), 20000), 0);
	CU_ASSERT_EQUAL(a.err, 0);
	ba.go = gob[0];
	/* B looks again (its step 2 does nothing): A's process stays, its queue is gone. */
	struct t_dev_counts n = t_device_counts(&dev);
	CU_ASSERT_EQUAL(n.queues, 1); /* B's */
	t_write_all(goa[1], "3", 1);
	close(goa[1]);
	close(gob[1]);
	CU_ASSERT_EQUAL(t_child_wait(pa), 0);
	CU_ASSERT_EQUAL(t_child_wait(pb), 0);
	close(goa[0]);
	close(gob[0]);
	close(ra);
	close(rb);
	CU_ASSERT_EQUAL(t_device_stop(&dev), 0);
}

static const struct t_case cases[] = {
	T_CASE(test_each_client_sees_the_other_clients_kfd_processes_and_queues),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-shared-kfd-view", NULL, NULL, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	return t_sim_shared_main(argc, argv, "test-sim-shared-kfd-view", suites);
}
