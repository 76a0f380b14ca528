/* SPDX-License-Identifier: MIT */
/*
 * kfd-ioctl's Lv3 on the device model: the facts read from a KFD (the model's, through its
 * sysfs tree); the queue id of a runtime's queue found from the KFD's sysfs kfd/proc listing
 * without a debugger; the UPDATE_QUEUE suspension of a running kernel (saved, then finished
 * once).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hsaqm-kfd/kfd.h"
#include "hsaqm-kfd/kfd_lv3.h"
#include "kfd_face_internal.h"
#include "hsaqm-common/log.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_kfd_lv3.h"

/* ---- on the model's KFD ---------------------------------------------------------------- */

static struct hsaqm_kfd_lv3 model_decision(const struct hsaqm_sim_config *cfg)
{
	struct hsaqm_sim *sim = NULL;
	struct hsaqm_kfd *kfd = NULL;
	struct hsaqm_kfd_lv3_facts f;
	struct hsaqm_kfd_lv3 d;

	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(cfg, &sim), 0);
	const struct hsaqm_kfd_transport *tp = hsaqm_sim_kfd_transport(sim);
	CU_ASSERT_EQUAL(hsaqm_kfd_open(tp, &kfd), 0);
	/* Node 1 is the first GPU of the generated topology (node 0 is the CPU). */
	CU_ASSERT_EQUAL(hsaqm_kfd_lv3_facts_read(kfd, 0, tp->sysfs_root, 1, &f), 0);
	CU_ASSERT(f.node_known);
	CU_ASSERT_EQUAL(f.capability, T_CAP_MI308X);
	CU_ASSERT_EQUAL(hsaqm_kfd_lv3_decide(&f, HSAQM_KFD_PREF_AUTO, &d), 0);
	hsaqm_kfd_close(kfd);
	hsaqm_sim_destroy(sim);
	return d;
}

static void test_facts_read_from_the_models_kfd_and_sysfs(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct hsaqm_kfd_lv3 d = model_decision(&cfg);

	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_DBG_TRAP);
	cfg.sched_policy = 2;
	d = model_decision(&cfg);
	CU_ASSERT_STRING_EQUAL(d.each[HSAQM_KFD_MECH_DBG_TRAP].code, "no_hws");
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_UPDATE_QUEUE);
	cfg.sched_policy = 0;
	cfg.kfd_minor_version = 11;
	d = model_decision(&cfg);
	CU_ASSERT_STRING_EQUAL(d.each[HSAQM_KFD_MECH_DBG_TRAP].code, "kfd_too_old");
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_UPDATE_QUEUE);
	cfg.kfd_minor_version = 0;
	cfg.cwsr_disable = 1;
	d = model_decision(&cfg);
	CU_ASSERT_EQUAL(d.level, 2);
	CU_ASSERT_STRING_EQUAL(d.each[HSAQM_KFD_MECH_UPDATE_QUEUE].code, "cwsr_off");
}

/* A compute queue made through the KFD, as libhsakmt makes ROCr's. */
struct kq {
	union hsaqm_aql_packet *ring;
	uint64_t *idx;
	uint32_t slots, id;
	volatile uint64_t *db;
};

static int kq_create(struct hsaqm_sim *sim, struct hsaqm_kfd *kfd, struct kq *q, uint32_t slots)
{
	struct hsaqm_kfd_create_queue_args a;
	void *page = NULL;
	int err;

	memset(q, 0, sizeof(*q));
	q->slots = slots;
	q->ring = hsaqm_sim_mem_alloc(sim, (size_t)slots * 64, 64);
	q->idx = hsaqm_sim_mem_alloc(sim, 64, 64);
	if (!q->ring || !q->idx)
		return -ENOMEM;
	for (uint32_t i = 0; i < slots; i++)
		q->ring[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	memset(&a, 0, sizeof(a));
	a.ring_base_address = (uint64_t)(uintptr_t)q->ring;
	a.write_pointer_address = (uint64_t)(uintptr_t)&q->idx[0];
	a.read_pointer_address = (uint64_t)(uintptr_t)&q->idx[1];
	a.ring_size = slots * 64;
	a.gpu_id = sim_kfd_gpu_id(sim, 0);
	a.queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL;
	a.queue_percentage = 100;
	a.queue_priority = 7;
	a.ctl_stack_size = 8192;
	err = hsaqm_kfd_queue_create(kfd, &a);
	if (err)
		return err;
	q->id = a.queue_id;
	err = hsaqm_kfd_mmap(kfd, NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED,
			     (off_t)(a.doorbell_offset & ~(uint64_t)8191), &page);
	if (!err)
		q->db = (volatile uint64_t *)((char *)page + (a.doorbell_offset & 8191));
	return err;
}

static void kq_submit(const struct hsaqm_kfd_transport *tp, struct kq *q,
		      const union hsaqm_aql_packet *p)
{
	/* acq_rel: the reservation, as a producer makes it; the packet processor acquires it. */
	uint64_t idx = hsaqm_fetch_add(&q->idx[0], 1ull);

	CU_ASSERT_EQUAL(hsaqm_aql_publish(&q->ring[idx & (q->slots - 1)], p), 0);
	/* Release: the published packet before the doorbell value that covers it. */
	hsaqm_store_release((uint64_t *)q->db, idx);
	tp->doorbell_written(tp->ctx, -1, q->db, idx);
}

static void test_the_new_queue_is_found_in_kfd_proc_without_a_debugger(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct hsaqm_sim *sim = NULL;
	struct hsaqm_kfd *kfd = NULL;
	struct hsaqm_kfd_proc_queue *before = NULL, *after = NULL;
	uint32_t nb = 0, na = 0, id = 0;
	struct kq q1, q2, q3;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	const struct hsaqm_kfd_transport *tp = hsaqm_sim_kfd_transport(sim);
	uint32_t gpu = sim_kfd_gpu_id(sim, 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(tp, &kfd), 0);
	CU_ASSERT_EQUAL(kq_create(sim, kfd, &q1, 64), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_proc_queues(tp, getpid(), &before, &nb), 0);
	CU_ASSERT_EQUAL(nb, 1);
	CU_ASSERT_EQUAL(kq_create(sim, kfd, &q2, 64), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_proc_queues(tp, getpid(), &after, &na), 0);
	CU_ASSERT_EQUAL(na, 2);
	/* Same size and GPU as q1: only the before/after difference tells them apart. */
	CU_ASSERT_EQUAL(hsaqm_kfd_proc_queue_new(before, nb, after, na, gpu, 64 * 64, &id), 0);
	CU_ASSERT_EQUAL(id, q2.id);
	CU_ASSERT_EQUAL(hsaqm_kfd_proc_queue_new(before, nb, after, na, gpu, 128 * 64, &id),
			-ENOENT);
	CU_ASSERT_EQUAL(hsaqm_kfd_proc_queue_new(NULL, 0, after, na, gpu, 64 * 64, &id), -EEXIST);
	free(after);
	/* Every process (pid < 0) lists the same queues here, all under this pid. */
	CU_ASSERT_EQUAL(kq_create(sim, kfd, &q3, 256), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_proc_queues(tp, -1, &after, &na), 0);
	CU_ASSERT_EQUAL(na, 3);
	for (uint32_t i = 0; i < na; i++)
		CU_ASSERT_EQUAL(after[i].pid, (uint32_t)getpid());
	CU_ASSERT_EQUAL(hsaqm_kfd_proc_queue_new(before, nb, after, na, gpu, 256 * 64, &id), 0);
	CU_ASSERT_EQUAL(id, q3.id);
	free(after);
	/* A destroyed queue leaves the listing. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(kfd, q1.id), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_proc_queues(tp, getpid(), &after, &na), 0);
	CU_ASSERT_EQUAL(na, 2);
	free(after);
	free(before);
	CU_ASSERT_EQUAL(hsaqm_kfd_proc_queues(NULL, 0, &after, &na), -EINVAL);
	hsaqm_kfd_close(kfd);
	hsaqm_sim_destroy(sim);
}

struct wg_count {
	uint32_t n;
	uint32_t per_wg[2560];
};

static void count_cb(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct wg_count *c = arg;

	(void)dispatch_id, (void)kernarg;
	c->n++;
	if (wg < 2560)
		c->per_wg[wg]++;
}

static void test_deactivate_saves_a_running_kernel_and_activate_finishes_it_once(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct hsaqm_sim *sim = NULL;
	struct hsaqm_kfd *kfd = NULL;
	static struct wg_count c;
	struct sim_hwq_info info;
	struct kq q;
	uint64_t k = 0;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	const struct hsaqm_kfd_transport *tp = hsaqm_sim_kfd_transport(sim);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(tp, &kfd), 0);
	CU_ASSERT_EQUAL_FATAL(kq_create(sim, kfd, &q, 64), 0);
	struct hsaqm_sim_kernel_desc kd = { .name = "k", .duration_ns = T_MS, .waves_per_wg = 1,
					    .wg_callback = count_cb, .wg_callback_arg = &c };
	memset(&c, 0, sizeof(c));
	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(sim, &kd, &k), 0);
	struct sim_signal *done = sim_signal_create(sim, 1);
	union hsaqm_aql_packet p = t_dispatch(k, 2560, t_handle(done), false);

	kq_submit(tp, &q, &p);
	hsaqm_sim_advance(sim, 300 * T_US);
	uint64_t t0 = hsaqm_sim_now_ns(sim);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_deactivate(kfd, q.id, (uint64_t)(uintptr_t)q.ring,
						   64 * 64, 7), 0);
	/* The default grace (0 units), 32 waves per CU saved at 1 us, the unmap (20 us). */
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim) - t0, 32 * T_US + 20 * T_US);
	struct sim_hwq *hw = sim_kfd_face_hwq(sim, 1000, q.id);
	CU_ASSERT_PTR_NOT_NULL_FATAL(hw);
	sim_hwq_get_info(hw, &info);
	CU_ASSERT_EQUAL(info.waves_saved, 2560);
	hsaqm_sim_advance(sim, 5 * T_MS);
	CU_ASSERT_EQUAL(c.n, 0); /* nothing ran while inactive */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_activate(kfd, q.id, (uint64_t)(uintptr_t)q.ring,
						 64 * 64, 7), 0);
	CU_ASSERT_EQUAL(sim_signal_wait(sim, done, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT_EQUAL(c.n, 2560);
	for (uint32_t i = 0; i < 2560; i++)
		CU_ASSERT_EQUAL_FATAL(c.per_wg[i], 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_deactivate(NULL, 0, 0, 64, 7), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_activate(kfd, q.id + 7, (uint64_t)(uintptr_t)q.ring,
						 64 * 64, 7), -EFAULT);
	hsaqm_kfd_close(kfd);
	hsaqm_sim_destroy(sim);
}

static const struct t_case cases[] = {
	T_CASE(test_facts_read_from_the_models_kfd_and_sysfs),
	T_CASE(test_the_new_queue_is_found_in_kfd_proc_without_a_debugger),
	T_CASE(test_deactivate_saves_a_running_kernel_and_activate_finishes_it_once),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "kfd-lv3-model", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-kfd-lv3-model", suites);
}
