/* SPDX-License-Identifier: MIT */
/*
 * hsa-queue-probe in-process against the device model: the UPDATE_QUEUE check. It runs by
 * default with the queue id from kfd/proc, the kfd/proc view lists the other processes per GPU,
 * it is refused when another process has queues on the GPU, and supported on an unshared one.
 */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-sim/sim.h"
#include "kfd_face_internal.h"
#include "probe.h"
#include "probe_internal.h"
#include "t_cunit.h"
#include "t_probe.h"

/* A check's fact by key, "" when absent. */
static const char *fact(const struct hsaqm_probe_check *k, const char *key)
{
	for (uint32_t i = 0; i < k->nfacts; i++)
		if (!strcmp(k->facts[i].key, key))
			return k->facts[i].value;
	return "";
}

/* ---- UPDATE_QUEUE ------------------------------------------------------------------------- */

/* A KFD handle with one queue on device @dev of the model (in the calling OS process's KFD process). */
static int other_process_on(struct hsaqm_sim *sim, unsigned int dev, struct hsaqm_kfd **out)
{
	const struct hsaqm_kfd_transport *tp = hsaqm_sim_kfd_transport(sim);
	union hsaqm_aql_packet *ring = hsaqm_sim_mem_alloc(sim, 64 * 64, 4096);
	uint64_t *idx = hsaqm_sim_mem_alloc(sim, 64, 64);
	struct hsaqm_kfd_create_queue_args a;
	int err;

	if (!ring || !idx)
		return -ENOMEM;
	for (int i = 0; i < 64; i++)
		ring[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	err = hsaqm_kfd_open(tp, out);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.ring_base_address = (uint64_t)(uintptr_t)ring;
	a.write_pointer_address = (uint64_t)(uintptr_t)&idx[0];
	a.read_pointer_address = (uint64_t)(uintptr_t)&idx[1];
	a.ring_size = 64 * 64;
	a.gpu_id = sim_kfd_gpu_id(sim, dev);
	a.queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL;
	a.queue_percentage = 100;
	a.queue_priority = 7;
	a.ctl_stack_size = 8192;
	return hsaqm_kfd_queue_create(*out, &a);
}

static int other_process(struct hsaqm_sim *sim, struct hsaqm_kfd **out)
{
	return other_process_on(sim, 0, out);
}

static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

/*
 * Another application on the same GPU is another OS process, and the KFD keeps one process
 * per OS process: so "another process" is a real one, a client of a shared device process
 * (sim/ shared mode), and the test process is the other client the probe runs in.
 */
struct shared_node {
	pid_t device, other;
	int dev_cmd;   /* a byte or EOF stops the device */
	int other_cmd; /* EOF ends the other process */
	char path[108];
};

static void *node_serve(void *arg)
{
	return (void *)(intptr_t)hsaqm_sim_serve(arg, NULL);
}

static void node_device_main(const char *path, unsigned int ndev, int cmd, int ready)
{
	struct hsaqm_sim_config cfg = { .num_devices = ndev, .time_mode = HSAQM_SIM_TIME_REAL };
	struct hsaqm_sim *sim;
	pthread_t th;
	char c = 1;

	if (hsaqm_sim_create(&cfg, &sim) || hsaqm_sim_listen(sim, path) ||
	    pthread_create(&th, NULL, node_serve, sim))
		_exit(3);
	if (write(ready, &c, 1) != 1 || read(cmd, &c, 1) < 0)
		c = 0; /* stop either way */
	hsaqm_sim_serve_stop(sim);
	pthread_join(th, NULL);
	hsaqm_sim_destroy(sim);
	exit(0); /* exit(): LeakSanitizer checks the child too */
}

/* The other application: a KFD process with one queue on device @dev, until told to go. */
static void node_other_main(const char *path, unsigned int dev, int cmd, int ready)
{
	struct hsaqm_sim *sim = NULL;
	struct hsaqm_kfd *k = NULL;
	char c = 1;

	if (hsaqm_sim_connect(path, &sim) || other_process_on(sim, dev, &k))
		c = 0;
	if (write(ready, &c, 1) != 1 || read(cmd, &c, 1) < 0)
		c = 0;
	if (k)
		hsaqm_kfd_close(k);
	hsaqm_sim_destroy(sim);
	exit(0);
}

/* Fork a device process with @ndev GPUs and the other application; 0 when both are up. */
static int node_start(struct shared_node *n, unsigned int ndev, unsigned int other_dev)
{
	int cmd[2], ready[2];
	char c = 0;

	memset(n, 0, sizeof(*n));
	snprintf(n->path, sizeof(n->path), "/tmp/hsaqm-probe-%d.sock", (int)getpid());
	if (pipe(cmd) || pipe(ready))
		return -1;
	fflush(NULL);
	n->device = fork();
	if (n->device == 0) {
		close(cmd[1]);
		close(ready[0]);
		node_device_main(n->path, ndev, cmd[0], ready[1]);
	}
	close(cmd[0]);
	close(ready[1]);
	n->dev_cmd = cmd[1];
	if (n->device < 0 || read(ready[0], &c, 1) != 1 || !c)
		return -1;
	close(ready[0]);
	if (pipe(cmd) || pipe(ready))
		return -1;
	n->other = fork();
	if (n->other == 0) {
		close(cmd[1]);
		close(ready[0]);
		close(n->dev_cmd);
		node_other_main(n->path, other_dev, cmd[0], ready[1]);
	}
	close(cmd[0]);
	close(ready[1]);
	n->other_cmd = cmd[1];
	c = 0;
	if (n->other < 0 || read(ready[0], &c, 1) != 1 || !c)
		return -1;
	close(ready[0]);
	return 0;
}

/* The other application exits; returns its exit status. */
static int node_other_exit(struct shared_node *n)
{
	int st = -1;

	if (n->other <= 0)
		return -1;
	close(n->other_cmd);
	waitpid(n->other, &st, 0);
	n->other = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int node_stop(struct shared_node *n)
{
	int st = -1;

	node_other_exit(n);
	close(n->dev_cmd);
	if (n->device > 0)
		waitpid(n->device, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * The model's sysfs kfd/proc as the KFD writes it, node-wide: the other application (another
 * OS process, a client of the same device process) is listed under its own pid with its
 * queue on the GPU it made it on, and only there; its PASID is the device's, not the
 * probe's; the probe reads it with the same scan as on hardware; when that process exits,
 * its queue and its folder go.
 */
static void test_kfd_proc_view_lists_other_processes_per_gpu(void)
{
	struct shared_node node;
	struct hsaqm_sim *sim = NULL;
	struct hsaqm_probe_options o = { .device = -1, .no_live = true };
	char path[PATH_MAX], buf[64];

	CU_ASSERT_EQUAL_FATAL(node_start(&node, 2, 1), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_connect(node.path, &sim), 0);
	struct hsaqm_probe_report *r = t_probe_run_model(sim, &o, NULL);
	CU_ASSERT_EQUAL_FATAL(r->ngpus, 2);
	const struct hsaqm_probe_others *o0 = &r->gpus[0].others, *o1 = &r->gpus[1].others;
	CU_ASSERT_TRUE(o0->known);
	CU_ASSERT_EQUAL(o0->queues, 0);
	CU_ASSERT_EQUAL(o0->processes, 0);
	CU_ASSERT_TRUE(o1->known);
	CU_ASSERT_EQUAL(o1->processes, 1);
	CU_ASSERT_EQUAL(o1->queues, 1);
	CU_ASSERT_STRING_EQUAL(o1->source, "model sysfs kfd/proc");
	/* Listed under its real pid; the files are the KFD's: pasid, queues/<id>/gpuid... */
	CU_ASSERT_EQUAL(o1->pids[0], (uint32_t)node.other);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%u/queues/0/gpuid",
		 hsaqm_sim_sysfs_root(sim), o1->pids[0]);
	CU_ASSERT_EQUAL_FATAL(read_text(path, buf, sizeof(buf)), 0);
	snprintf(path, sizeof(path), "%u", r->gpus[1].gpu_id); /* no newline, as the KFD */
	CU_ASSERT_STRING_EQUAL(buf, path);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%u/queues/0/size",
		 hsaqm_sim_sysfs_root(sim), o1->pids[0]);
	CU_ASSERT_EQUAL(read_text(path, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "4096");
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%u/pasid", hsaqm_sim_sysfs_root(sim),
		 o1->pids[0]);
	CU_ASSERT_EQUAL(read_text(path, buf, sizeof(buf)), 0);
	unsigned long other_pasid = strtoul(buf, NULL, 10);
	CU_ASSERT(other_pasid >= 0x8001);
	/* The probe's own KFD process (this one) is there too, with a PASID of its own. */
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/pasid", hsaqm_sim_sysfs_root(sim),
		 (int)getpid());
	CU_ASSERT_EQUAL(read_text(path, buf, sizeof(buf)), 0);
	CU_ASSERT(strtoul(buf, NULL, 10) >= 0x8001);
	CU_ASSERT_NOT_EQUAL(strtoul(buf, NULL, 10), other_pasid);
	uint32_t pid = o1->pids[0];
	hsaqm_probe_report_free(r);

	/* The process exits: its queue goes, and so does its folder. */
	CU_ASSERT_EQUAL(node_other_exit(&node), 0);
	r = t_probe_run_model(sim, &o, NULL);
	CU_ASSERT_TRUE(r->gpus[1].others.known);
	CU_ASSERT_EQUAL(r->gpus[1].others.queues, 0);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%u", hsaqm_sim_sysfs_root(sim), pid);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
	CU_ASSERT_EQUAL(node_stop(&node), 0);
}

/*
 * UPDATE_QUEUE 0 % and DBG_TRAP suspend both unmap every queue of the GPU: both run by
 * default on a GPU nobody else uses (no --allow-disruptive any more), and the queue id of the
 * runtime's queue comes from the KFD's sysfs kfd/proc, without a debugger session.
 */
static void test_update_queue_runs_by_default_with_the_id_from_kfd_proc(void)
{
	struct hsaqm_sim *sim = t_probe_sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1, .checks = T_PROBE_UPD };

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	struct hsaqm_probe_report *r = t_probe_run_model(sim, &o, NULL);
	const struct hsaqm_probe_check *k = &r->gpus[0].checks[HSAQM_PROBE_CHECK_UPDATE_QUEUE];
	t_probe_explain(k, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(fact(k, "queue"), "sysfs kfd/proc"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fact(k, "queue"), "no debugger"));
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

static void test_update_queue_refused_when_another_process_has_queues(void)
{
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 1,
					 .checks = T_PROBE_UPD | T_PROBE_LV3 };
	struct shared_node node;
	struct hsaqm_sim *sim = NULL;

	/* Another application (another OS process) has a queue on the GPU. */
	CU_ASSERT_EQUAL_FATAL(node_start(&node, 1, 0), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_connect(node.path, &sim), 0);
	struct hsaqm_probe_report *r = t_probe_run_model(sim, &o, NULL);
	const struct hsaqm_probe_gpu *g = &r->gpus[0];
	const struct hsaqm_probe_check *k = &g->checks[HSAQM_PROBE_CHECK_UPDATE_QUEUE];
	CU_ASSERT_TRUE(g->others.known);
	CU_ASSERT_EQUAL(g->others.queues, 1);
	CU_ASSERT_EQUAL(g->others.pids[0], (uint32_t)node.other);
	CU_ASSERT_STRING_EQUAL(g->others.source, "model sysfs kfd/proc");
	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_COULD_NOT_TEST);
	CU_ASSERT_STRING_EQUAL(k->reason_code, "shared_gpu");
	CU_ASSERT_PTR_NOT_NULL(strstr(k->reason, "1 other process(es) have 1 KFD queue(s)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(k->remedy, "--force"));
	CU_ASSERT_EQUAL(k->nfig, 0); /* nothing was run */
	/* DBG_TRAP suspend unmaps every queue of the GPU as well: treated alike. */
	k = &g->checks[HSAQM_PROBE_CHECK_LV3];
	CU_ASSERT_STRING_EQUAL(k->reason_code, "shared_gpu");
	CU_ASSERT_EQUAL(k->nfig, 0);
	CU_ASSERT_EQUAL(hsaqm_probe_exit_code(r), HSAQM_PROBE_EXIT_MODEL);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
	CU_ASSERT_EQUAL(node_stop(&node), 0);

	/*
	 * --force overrides: the check runs, and the queue that was there is still there. In
	 * process (the probe's model kernel needs a host callback, which a client of a shared
	 * device cannot register): the queue is then the probe's own process's, made before the
	 * probe, which the model's view counts too (probe_sim.c does not skip its own pid).
	 */
	struct hsaqm_kfd *other = NULL;

	sim = t_probe_sim_real(NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL_FATAL(other_process(sim, &other), 0);
	o.force = true;
	r = t_probe_run_model(sim, &o, NULL);
	k = &r->gpus[0].checks[HSAQM_PROBE_CHECK_UPDATE_QUEUE];
	CU_ASSERT_EQUAL(r->gpus[0].others.queues, 1);
	t_probe_explain(k, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(probe_find_figure(k, "stop_full"));
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(sim), 1);
	hsaqm_probe_report_free(r);
	CU_ASSERT_EQUAL(hsaqm_kfd_close(other), 0);
	hsaqm_sim_destroy(sim);
}

static void test_update_queue_supported_on_an_unshared_model_gpu(void)
{
	struct hsaqm_sim *sim = t_probe_sim_real(NULL);
	struct hsaqm_probe_options o = { .device = -1, .quick = true, .trials = 2, .checks = T_PROBE_UPD };

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	struct hsaqm_probe_report *r = t_probe_run_model(sim, &o, NULL);
	const struct hsaqm_probe_check *k = &r->gpus[0].checks[HSAQM_PROBE_CHECK_UPDATE_QUEUE];
	t_probe_explain(k, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_EQUAL(k->verdict, HSAQM_PROBE_SUPPORTED);
	CU_ASSERT_EQUAL(k->trials, 4); /* 2 at full occupancy, 2 with one wave */
	CU_ASSERT_PTR_NOT_NULL(probe_find_figure(k, "restart_full"));
	CU_ASSERT_PTR_NOT_NULL(probe_find_figure(k, "stop_1wave"));
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(sim), 0);
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
}

static const struct t_case cases[] = {
	T_CASE(test_update_queue_runs_by_default_with_the_id_from_kfd_proc),
	T_CASE(test_kfd_proc_view_lists_other_processes_per_gpu),
	T_CASE(test_update_queue_refused_when_another_process_has_queues),
	T_CASE(test_update_queue_supported_on_an_unshared_model_gpu),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "probe-update-queue", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("probe-update-queue", suites);
}
