/* SPDX-License-Identifier: MIT */
/*
 * kfd-ioctl's Lv3 decision (hsaqm-kfd/kfd_lv3.h): every prerequisite of each mechanism with its
 * reason code and remedy, the choice between DBG_TRAP and UPDATE_QUEUE (preference, a refusal
 * learned at run time, the probe's profile); the facts read from a KFD (the device model's,
 * through its sysfs tree); the queue id of a runtime's queue found from the KFD's sysfs
 * kfd/proc listing without a debugger; the UPDATE_QUEUE suspension of a running kernel; the
 * profile file.
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

/* MI308X capability: trap debug and its firmware (docs/kfd-ioctl.md). */
#define CAP_MI308X 0x2c77a280u

static void good_facts(struct hsaqm_kfd_lv3_facts *f)
{
	hsaqm_kfd_lv3_facts_init(f);
	f->kfd_err = 0;
	f->kfd_major = 1;
	f->kfd_minor = 17;
	f->sched_policy = 0;
	f->cwsr_enable = 1;
	f->node_known = true;
	f->node_id = 1;
	f->capability = CAP_MI308X;
}

static struct hsaqm_kfd_lv3 decide(const struct hsaqm_kfd_lv3_facts *f,
				   enum hsaqm_kfd_mech_pref pref)
{
	struct hsaqm_kfd_lv3 d;

	CU_ASSERT_EQUAL(hsaqm_kfd_lv3_decide(f, pref, &d), 0);
	return d;
}

static void test_dbg_trap_is_chosen_when_every_prerequisite_holds(void)
{
	struct hsaqm_kfd_lv3_facts f;
	struct hsaqm_kfd_lv3 d;

	good_facts(&f);
	d = decide(&f, HSAQM_KFD_PREF_AUTO);
	CU_ASSERT_EQUAL(d.level, 3);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_DBG_TRAP);
	CU_ASSERT(d.each[HSAQM_KFD_MECH_DBG_TRAP].ok && d.each[HSAQM_KFD_MECH_UPDATE_QUEUE].ok);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "DBG_TRAP"));
	CU_ASSERT_EQUAL(hsaqm_kfd_lv3_decide(NULL, HSAQM_KFD_PREF_AUTO, &d), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_lv3_decide(&f, (enum hsaqm_kfd_mech_pref)9, &d), -EINVAL);
}

/* One broken prerequisite: DBG_TRAP's code, and whether UPDATE_QUEUE takes over. */
static void expect(void (*breakit)(struct hsaqm_kfd_lv3_facts *), const char *code,
		   bool remedy, bool update_ok)
{
	struct hsaqm_kfd_lv3_facts f;
	struct hsaqm_kfd_lv3 d;

	good_facts(&f);
	breakit(&f);
	d = decide(&f, HSAQM_KFD_PREF_AUTO);
	CU_ASSERT_FALSE(d.each[HSAQM_KFD_MECH_DBG_TRAP].ok);
	CU_ASSERT_STRING_EQUAL(d.each[HSAQM_KFD_MECH_DBG_TRAP].code, code);
	CU_ASSERT_EQUAL(d.each[HSAQM_KFD_MECH_DBG_TRAP].remedy[0] != '\0', remedy);
	CU_ASSERT_EQUAL(d.each[HSAQM_KFD_MECH_UPDATE_QUEUE].ok, update_ok);
	CU_ASSERT_EQUAL(d.mech, update_ok ? HSAQM_KFD_MECH_UPDATE_QUEUE : HSAQM_KFD_MECH_NONE);
	CU_ASSERT_EQUAL(d.level, update_ok ? 3 : 2);
	if (update_ok)
		CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "UPDATE_QUEUE instead of DBG_TRAP"));
	/* The reason carries DBG_TRAP's own sentence either way. */
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, d.each[HSAQM_KFD_MECH_DBG_TRAP].why));
}

static void old_kfd(struct hsaqm_kfd_lv3_facts *f) { f->kfd_minor = 11; }
static void no_hws(struct hsaqm_kfd_lv3_facts *f) { f->sched_policy = 2; }
static void no_cwsr(struct hsaqm_kfd_lv3_facts *f) { f->cwsr_enable = 0; }
static void no_trap(struct hsaqm_kfd_lv3_facts *f) { f->capability &= ~HSAQM_KFD_CAP_TRAP_DEBUG_SUPPORT; }
static void no_fw(struct hsaqm_kfd_lv3_facts *f)
{
	f->capability &= ~HSAQM_KFD_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED;
}
static void no_kfd(struct hsaqm_kfd_lv3_facts *f) { f->kfd_err = -EACCES; }
static void debugger(struct hsaqm_kfd_lv3_facts *f) { f->dbg_err = -EALREADY; }
static void eperm(struct hsaqm_kfd_lv3_facts *f) { f->dbg_err = -EPERM; }

static void test_each_missing_prerequisite_has_its_code_and_the_fallback(void)
{
	/* UPDATE_QUEUE needs neither 1.13, HWS nor the trap handler: it takes over. */
	expect(old_kfd, "kfd_too_old", true, true);
	expect(no_hws, "no_hws", true, true);
	expect(no_trap, "no_trap_debug", false, true);
	expect(no_fw, "trap_debug_firmware", true, true);
	expect(debugger, "debugger_attached", true, true);
	expect(eperm, "eperm", true, true);
	/* Without CWSR or without the KFD neither can suspend mid-kernel. */
	expect(no_cwsr, "cwsr_off", true, false);
	expect(no_kfd, "no_kfd", true, false);
}

static void test_preference_refusals_and_the_profile_choose_the_mechanism(void)
{
	struct hsaqm_kfd_lv3_facts f;
	struct hsaqm_kfd_lv3 d;

	good_facts(&f);
	d = decide(&f, HSAQM_KFD_PREF_UPDATE_QUEUE);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_UPDATE_QUEUE);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "asked for"));
	d = decide(&f, HSAQM_KFD_PREF_NONE);
	CU_ASSERT_EQUAL(d.level, 2);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_NONE);
	/* UPDATE_QUEUE refused at run time: asked for alone, nothing else is taken. */
	f.update_err = -EINVAL;
	d = decide(&f, HSAQM_KFD_PREF_UPDATE_QUEUE);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_NONE);
	CU_ASSERT_EQUAL(d.level, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "update_queue asked for alone"));
	CU_ASSERT_STRING_EQUAL(d.each[HSAQM_KFD_MECH_UPDATE_QUEUE].code, "kfd_refused");
	/* Auto: DBG_TRAP, which was available all along. */
	CU_ASSERT_EQUAL(decide(&f, HSAQM_KFD_PREF_AUTO).mech, HSAQM_KFD_MECH_DBG_TRAP);
	/* A profile that measured both: auto takes the faster stop. */
	good_facts(&f);
	f.profile[HSAQM_KFD_MECH_DBG_TRAP] = HSAQM_KFD_PROFILE_YES;
	f.profile[HSAQM_KFD_MECH_UPDATE_QUEUE] = HSAQM_KFD_PROFILE_YES;
	f.profile_stop_ns[HSAQM_KFD_MECH_DBG_TRAP] = 131000;
	f.profile_stop_ns[HSAQM_KFD_MECH_UPDATE_QUEUE] = 81000;
	d = decide(&f, HSAQM_KFD_PREF_AUTO);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_UPDATE_QUEUE);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.reason, "81 us"));
	/* ... but a preference stands. */
	d = decide(&f, HSAQM_KFD_PREF_DBG_TRAP);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_DBG_TRAP);
	/* A profile that found DBG_TRAP not working rules it out. */
	f.profile[HSAQM_KFD_MECH_UPDATE_QUEUE] = HSAQM_KFD_PROFILE_UNKNOWN;
	f.profile[HSAQM_KFD_MECH_DBG_TRAP] = HSAQM_KFD_PROFILE_NO;
	d = decide(&f, HSAQM_KFD_PREF_AUTO);
	CU_ASSERT_EQUAL(d.mech, HSAQM_KFD_MECH_UPDATE_QUEUE);
	CU_ASSERT_STRING_EQUAL(d.each[HSAQM_KFD_MECH_DBG_TRAP].code, "profile");
}

static void test_names_and_preferences_parse_both_ways(void)
{
	enum hsaqm_kfd_mech_pref p;

	for (int i = 0; i <= HSAQM_KFD_PREF_NONE; i++) {
		CU_ASSERT_EQUAL(hsaqm_kfd_mech_pref_parse(hsaqm_kfd_mech_pref_name(i), &p), 0);
		CU_ASSERT_EQUAL(p, i);
	}
	CU_ASSERT_EQUAL(hsaqm_kfd_mech_pref_parse("dbgtrap", &p), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_mech_pref_parse(NULL, &p), -EINVAL);
	CU_ASSERT_STRING_EQUAL(hsaqm_kfd_mech_name(HSAQM_KFD_MECH_UPDATE_QUEUE), "update_queue");
	CU_ASSERT_STRING_EQUAL(hsaqm_kfd_mech_name(HSAQM_KFD_MECH_CU_MASK), "cu_mask");
	CU_ASSERT_STRING_EQUAL(hsaqm_kfd_mech_name((enum hsaqm_kfd_mech)7), "?");
}

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
	CU_ASSERT_EQUAL(f.capability, CAP_MI308X);
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

static void test_profile_round_trips_and_bad_files_are_refused(void)
{
	char path[] = "/tmp/hsaqm-profile-XXXXXX";
	struct hsaqm_kfd_profile p, q;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	memset(&p, 0, sizeof(p));
	snprintf(p.source, sizeof(p.source), "hsa-queue-probe test, MODEL figures");
	p.ngpus = 2;
	for (uint32_t g = 0; g < 2; g++) {
		p.gpu[g].gpu_id = 0x1a2b + g;
		for (int m = 0; m < HSAQM_KFD_NMECH; m++)
			p.gpu[g].verdict[m] = HSAQM_KFD_PROFILE_UNKNOWN;
		p.gpu[g].verdict[HSAQM_KFD_MECH_DBG_TRAP] = HSAQM_KFD_PROFILE_YES;
		p.gpu[g].stop_ns[HSAQM_KFD_MECH_DBG_TRAP] = 131000 + g;
		p.gpu[g].restart_ns[HSAQM_KFD_MECH_DBG_TRAP] = 52000;
		p.gpu[g].verdict[HSAQM_KFD_MECH_UPDATE_QUEUE] = HSAQM_KFD_PROFILE_NO;
	}
	CU_ASSERT_EQUAL(hsaqm_kfd_profile_save(path, &p), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_profile_load(path, &q), 0);
	CU_ASSERT_STRING_EQUAL(q.source, p.source);
	CU_ASSERT_EQUAL(q.ngpus, 2);
	const struct hsaqm_kfd_profile_gpu *g = hsaqm_kfd_profile_find(&q, 0x1a2c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->verdict[HSAQM_KFD_MECH_DBG_TRAP], HSAQM_KFD_PROFILE_YES);
	CU_ASSERT_EQUAL(g->stop_ns[HSAQM_KFD_MECH_DBG_TRAP], 131001);
	CU_ASSERT_EQUAL(g->verdict[HSAQM_KFD_MECH_UPDATE_QUEUE], HSAQM_KFD_PROFILE_NO);
	CU_ASSERT_EQUAL(g->verdict[HSAQM_KFD_MECH_CU_MASK], HSAQM_KFD_PROFILE_UNKNOWN);
	CU_ASSERT_PTR_NULL(hsaqm_kfd_profile_find(&q, 0x9999));

	struct hsaqm_kfd_lv3_facts f;
	good_facts(&f);
	hsaqm_kfd_lv3_facts_profile(&f, g);
	CU_ASSERT_EQUAL(decide(&f, HSAQM_KFD_PREF_AUTO).mech, HSAQM_KFD_MECH_DBG_TRAP);
	CU_ASSERT_STRING_EQUAL(decide(&f, HSAQM_KFD_PREF_AUTO).each[HSAQM_KFD_MECH_UPDATE_QUEUE].code,
			       "profile");

	static const char *const bad[] = {
		"gpu 0x1 dbg_trap supported 1 2\n",                       /* no header */
		"hsaqm-gpu-profile 2\n",                                 /* another version */
		"hsaqm-gpu-profile 1\ngpu 0x1 teleport supported 1 2\n", /* unknown mechanism */
		"hsaqm-gpu-profile 1\ngpu 0x1 dbg_trap maybe 1 2\n",     /* unknown verdict */
		"hsaqm-gpu-profile 1\ngpu 0x1 dbg_trap supported -1 2\n",
		"hsaqm-gpu-profile 1\ngpu 0 dbg_trap supported 1 2\n",   /* gpu_id 0 is a CPU */
		"hsaqm-gpu-profile 1\ngpu 0x1 dbg_trap supported 1\n",   /* a field short */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *w = fopen(path, "w");

		CU_ASSERT_PTR_NOT_NULL_FATAL(w);
		fputs(bad[i], w);
		fclose(w);
		CU_ASSERT_EQUAL(hsaqm_kfd_profile_load(path, &q), -EBADMSG);
		CU_ASSERT_EQUAL(q.ngpus, 0);
	}
	unlink(path);
	CU_ASSERT_EQUAL(hsaqm_kfd_profile_load(path, &q), -ENOENT);
	CU_ASSERT_EQUAL(hsaqm_kfd_profile_load(NULL, &q), -EINVAL);
}

/* Load @text as a profile; the message said, if any, in @msg. */
static int profile_load_text(const char *text, struct hsaqm_kfd_profile *q, char *msg, size_t len)
{
	char path[] = "/tmp/hsaqm-profile-XXXXXX";
	char *buf = NULL;
	size_t blen = 0;
	int fd = mkstemp(path), rc;
	FILE *sink;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	sink = open_memstream(&buf, &blen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sink);
	hsaqm_log_set_level(HSAQM_LOG_ERROR);
	hsaqm_log_set_sink(sink);
	rc = hsaqm_kfd_profile_load(path, q);
	hsaqm_log_set_sink(NULL);
	hsaqm_log_set_level(HSAQM_LOG_NONE);
	fclose(sink);
	snprintf(msg, len, "%s", buf ? buf : "");
	free(buf);
	unlink(path);
	return rc;
}

/*
 * The profile's numbers follow hsaqm-common/text.h: a gpu_id is 0x-hex (as the file is written)
 * or decimal (as sysfs has it), never octal by a leading 0; the figures are decimal. Each
 * refusal names the field.
 */
static void test_profile_numbers_follow_the_one_rule_and_refusals_name_the_field(void)
{
	static const char *const bad[] = {
		"010",  /* base 0 read it as 8 */
		"0x",  "+5", "5x", "1e3", "0x1g", "4294967296", "0x100000000",
	};
	static const char *const bad_ns[] = { "+5", "5x", "1e999", "nan", "0x10", "-1" };
	struct hsaqm_kfd_profile q;
	char text[256], msg[512], want[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "hsaqm-gpu-profile 1\ngpu %s dbg_trap supported 1 2\n",
			 bad[i]);
		snprintf(want, sizeof(want), "\"%s\"", bad[i]);
		CU_ASSERT_EQUAL(profile_load_text(text, &q, msg, sizeof(msg)), -EBADMSG);
		if (!strstr(msg, want))
			fprintf(stderr, "\nwant %s in: %s\n", want, msg);
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
		CU_ASSERT_EQUAL(q.ngpus, 0);
	}
	for (size_t i = 0; i < sizeof(bad_ns) / sizeof(bad_ns[0]); i++) {
		for (int field = 0; field < 2; field++) {
			snprintf(text, sizeof(text),
				 "hsaqm-gpu-profile 1\ngpu 0x1a2b dbg_trap supported %s %s\n",
				 field ? "1" : bad_ns[i], field ? bad_ns[i] : "2");
			snprintf(want, sizeof(want), "\"%s\"", bad_ns[i]);
			CU_ASSERT_EQUAL(profile_load_text(text, &q, msg, sizeof(msg)), -EBADMSG);
			CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
		}
	}

	/* As before: 0x-hex and decimal ids, decimal figures (a leading 0 there is still 10). */
	CU_ASSERT_EQUAL(profile_load_text("hsaqm-gpu-profile 1\n"
					  "gpu 0x1A2b dbg_trap supported 131000 010\n"
					  "gpu 6700 update_queue not_supported 0 0\n",
					  &q, msg, sizeof(msg)), 0);
	CU_ASSERT_STRING_EQUAL(msg, "");
	CU_ASSERT_EQUAL(q.ngpus, 2);
	const struct hsaqm_kfd_profile_gpu *g = hsaqm_kfd_profile_find(&q, 0x1a2b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->stop_ns[HSAQM_KFD_MECH_DBG_TRAP], 131000);
	CU_ASSERT_EQUAL(g->restart_ns[HSAQM_KFD_MECH_DBG_TRAP], 10);
	g = hsaqm_kfd_profile_find(&q, 6700);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->verdict[HSAQM_KFD_MECH_UPDATE_QUEUE], HSAQM_KFD_PROFILE_NO);
}

static const struct t_case cases[] = {
	T_CASE(test_dbg_trap_is_chosen_when_every_prerequisite_holds),
	T_CASE(test_each_missing_prerequisite_has_its_code_and_the_fallback),
	T_CASE(test_preference_refusals_and_the_profile_choose_the_mechanism),
	T_CASE(test_names_and_preferences_parse_both_ways),
	T_CASE(test_facts_read_from_the_models_kfd_and_sysfs),
	T_CASE(test_the_new_queue_is_found_in_kfd_proc_without_a_debugger),
	T_CASE(test_deactivate_saves_a_running_kernel_and_activate_finishes_it_once),
	T_CASE(test_profile_round_trips_and_bad_files_are_refused),
	T_CASE(test_profile_numbers_follow_the_one_rule_and_refusals_name_the_field),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "kfd-lv3", NULL, NULL, cases }, T_SUITES_END };
	return t_run("test-kfd-lv3", suites);
}
