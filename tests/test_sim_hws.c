/* SPDX-License-Identifier: MIT */
/*
 * The model's hardware scheduler: HQD slots and time slicing, pipe-priority arbitration,
 * CU masks, runlist updates (deactivate, priority), suspension with grace period and CWSR,
 * resume. Virtual time, default MI308X profile: map/unmap 20 us, launch 5 us, CWSR 1 us per
 * wave each way, quantum 10 ms, 80 CUs x 32 wave slots, grace unit 1024 clocks at 1420 MHz.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_internal.h"
#include "t_cunit.h"
#include "t_json.h"
#include "t_sim.h"

#define LAUNCH (5 * T_US)
#define MAP (20 * T_US)
#define UNMAP (20 * T_US)
/* Profile dbg_suspend_ns / dbg_resume_ns: the suspend and resume calls return this much after
 * their runlist change (the HWS acted at once). */
#define DBG_SUSPEND (50 * T_US)
#define DBG_RESUME (50 * T_US)

struct rec {
	struct hsaqm_sim *sim;
	uint32_t count;
	uint32_t per_wg[2048];
	uint64_t last_time;
};

static void rec_cb(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct rec *r = arg;

	(void)dispatch_id, (void)kernarg;
	r->count++;
	if (wg < 2048)
		r->per_wg[wg]++;
	r->last_time = hsaqm_sim_now_ns(r->sim);
}

static uint64_t kernel(struct hsaqm_sim *sim, uint64_t dur, uint32_t waves, struct rec *r)
{
	struct hsaqm_sim_kernel_desc d = { .name = "k", .duration_ns = dur, .waves_per_wg = waves,
					   .wg_callback = r ? rec_cb : NULL, .wg_callback_arg = r };
	uint64_t k = 0;

	if (r) {
		memset(r, 0, sizeof(*r));
		r->sim = sim;
	}
	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(sim, &d, &k), 0);
	return k;
}

static bool each_once(const struct rec *r, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (r->per_wg[i] != 1)
			return false;
	return r->count == n;
}

static uint32_t count_mapped(struct t_q *q, int n)
{
	uint32_t m = 0;

	for (int i = 0; i < n; i++)
		m += t_q_state(&q[i]) == SIM_HWQ_MAPPED;
	return m;
}

static void test_more_queues_than_hqd_slots_are_time_sliced_and_all_finish(void)
{
	enum { NQ = 30 };
	struct hsaqm_sim *sim = t_sim_virtual(1);
	static struct t_q q[NQ];
	static struct rec r[NQ];
	struct sim_signal *cs[NQ];

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	for (int i = 0; i < NQ; i++)
		CU_ASSERT_EQUAL_FATAL(t_q_create(&q[i], sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	/* Idle queues: the first 24 are mapped, the rest wait. */
	CU_ASSERT_EQUAL(count_mapped(q, NQ), 24);
	for (int i = 0; i < NQ; i++) {
		uint64_t k = kernel(sim, 25 * T_MS, 8, &r[i]);
		union hsaqm_aql_packet p;

		cs[i] = sim_signal_create(sim, 1);
		p = t_dispatch(k, 2, t_handle(cs[i]), false);
		t_q_submit(&q[i], &p);
	}
	uint32_t max_mapped = 0;
	for (int step = 0; step < 400; step++) {
		hsaqm_sim_advance(sim, T_MS / 2);
		uint32_t m = count_mapped(q, NQ);
		if (m > max_mapped)
			max_mapped = m;
	}
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, 10 * T_S), 0);
	CU_ASSERT(max_mapped <= 24);
	uint64_t preempted = 0;
	for (int i = 0; i < NQ; i++) {
		struct sim_hwq_stats st;

		CU_ASSERT_EQUAL(sim_signal_load(cs[i]), 0);
		CU_ASSERT(each_once(&r[i], 2));
		sim_hwq_get_stats(q[i].hwq, &st);
		CU_ASSERT(st.maps >= 1);
		preempted += st.waves_saved_total;
		/* Saved waves came back: restored exactly what was saved. */
		CU_ASSERT_EQUAL(st.waves_saved_total, st.waves_restored_total);
	}
	CU_ASSERT(preempted > 0); /* time slicing saved running waves */
	for (int i = 0; i < NQ; i++)
		t_q_destroy(&q[i]);
	hsaqm_sim_destroy(sim);
}

static void test_priority_serves_higher_pipe_level_first_without_preempting_running(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q lo, hi;
	static struct rec rl, rh;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&lo, sim, 0, 16, 0), 0);   /* pipe LOW */
	CU_ASSERT_EQUAL_FATAL(t_q_create(&hi, sim, 0, 16, 15), 0);  /* pipe HIGH */
	hsaqm_sim_run_until_idle(sim, T_S);
	/* 32 waves per workgroup: one workgroup fills a CU, 80 at a time. */
	uint64_t kl = kernel(sim, 100 * T_US, 32, &rl), kh = kernel(sim, 100 * T_US, 32, &rh);
	struct sim_signal *csl = sim_signal_create(sim, 1), *csh = sim_signal_create(sim, 1);
	union hsaqm_aql_packet pl = t_dispatch(kl, 400, t_handle(csl), false);
	union hsaqm_aql_packet ph = t_dispatch(kh, 80, t_handle(csh), false);
	uint64_t t0 = hsaqm_sim_now_ns(sim);

	t_q_submit(&lo, &pl);
	hsaqm_sim_advance(sim, 50 * T_US);
	t_q_submit(&hi, &ph);
	/* The low queue's first 80 workgroups run to their end: priority never preempts. */
	hsaqm_sim_advance(sim, LAUNCH + 100 * T_US - 50 * T_US);
	CU_ASSERT_EQUAL(rl.count, 80);
	CU_ASSERT_EQUAL(rl.last_time, t0 + LAUNCH + 100 * T_US);
	/* Then every freed CU went to the high queue first. */
	CU_ASSERT_EQUAL(sim_signal_wait(sim, csh, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t0 + LAUNCH + 200 * T_US);
	CU_ASSERT_EQUAL(rl.count, 80);
	CU_ASSERT(each_once(&rh, 80));
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	CU_ASSERT(each_once(&rl, 400));
	/* 400 low + 80 high workgroups on 80 CUs: 6 rounds in all. */
	CU_ASSERT_EQUAL(rl.last_time, t0 + LAUNCH + 600 * T_US);
	t_q_destroy(&lo);
	t_q_destroy(&hi);
	hsaqm_sim_destroy(sim);
}

static void test_same_level_queues_share_cus_round_robin(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q a, b, m;
	static struct rec ra, rb, rm;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&a, sim, 0, 16, 11), 0); /* HIGH */
	CU_ASSERT_EQUAL_FATAL(t_q_create(&b, sim, 0, 16, 15), 0); /* HIGH too */
	CU_ASSERT_EQUAL_FATAL(t_q_create(&m, sim, 0, 16, 9), 0);  /* MEDIUM */
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t ka = kernel(sim, 100 * T_US, 32, &ra), kb = kernel(sim, 100 * T_US, 32, &rb);
	uint64_t km = kernel(sim, 100 * T_US, 32, &rm);
	struct sim_signal *csa = sim_signal_create(sim, 1), *csb = sim_signal_create(sim, 1);
	struct sim_signal *csm = sim_signal_create(sim, 1);
	union hsaqm_aql_packet pa = t_dispatch(ka, 80, t_handle(csa), false);
	union hsaqm_aql_packet pb = t_dispatch(kb, 80, t_handle(csb), false);
	union hsaqm_aql_packet pm = t_dispatch(km, 80, t_handle(csm), false);
	uint64_t t0 = hsaqm_sim_now_ns(sim);

	t_q_submit(&m, &pm);
	t_q_submit(&a, &pa);
	t_q_submit(&b, &pb);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	/* A and B alternate workgroup by workgroup: 40 + 40 per round, both done after round 2. */
	CU_ASSERT_EQUAL(ra.last_time, t0 + LAUNCH + 200 * T_US);
	CU_ASSERT_EQUAL(rb.last_time, t0 + LAUNCH + 200 * T_US);
	/* The medium queue waited for both. */
	CU_ASSERT_EQUAL(rm.last_time, t0 + LAUNCH + 300 * T_US);
	CU_ASSERT(each_once(&ra, 80) && each_once(&rb, 80) && each_once(&rm, 80));
	t_q_destroy(&a);
	t_q_destroy(&b);
	t_q_destroy(&m);
	hsaqm_sim_destroy(sim);
}

static void test_cu_mask_restricts_the_queue_to_its_cus(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q q;
	static struct rec r;
	uint32_t mask[3] = { 0x3ff, 0, 0 }; /* CUs 0-9 */
	uint32_t none[3] = { 0, 0, 0 };

	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL(sim_hwq_set_cu_mask(q.hwq, mask, 96), 0);
	CU_ASSERT_EQUAL(sim_hwq_set_cu_mask(q.hwq, none, 96), -EINVAL);
	CU_ASSERT_EQUAL(sim_hwq_set_cu_mask(q.hwq, mask, 40), -EINVAL);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t k = kernel(sim, 10 * T_US, 32, &r);
	union hsaqm_aql_packet p = t_dispatch(k, 100, 0, false);
	uint64_t t0 = hsaqm_sim_now_ns(sim);

	t_q_submit(&q, &p);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	/* 100 whole-CU workgroups on 10 CUs: 10 rounds (on all 80 CUs it would be 2). */
	CU_ASSERT_EQUAL(r.last_time, t0 + LAUNCH + 100 * T_US);
	CU_ASSERT(each_once(&r, 100));
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
}

/* grace units for about 50 us at 1420 MHz: 70 x 1024 / 1420 MHz = 50478 ns. */
#define GRACE_UNITS 70u
#define GRACE_NS 50478u

static void test_suspend_grace_lets_short_workgroups_finish_and_saves_long_ones(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q q;
	static struct rec rs, rlong;
	struct sim_hwq_info info;
	struct sim_hwq_stats st;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t ks = kernel(sim, 40 * T_US, 4, &rs), kl = kernel(sim, T_MS, 8, &rlong);
	struct sim_signal *css = sim_signal_create(sim, 1), *csl = sim_signal_create(sim, 1);
	union hsaqm_aql_packet ps = t_dispatch(ks, 3, t_handle(css), false);
	union hsaqm_aql_packet pl = t_dispatch(kl, 5, t_handle(csl), false);
	uint64_t t0 = hsaqm_sim_now_ns(sim);

	/* Short: [t0+5, t0+45] us. Long: [t0+10, t0+1010] us (launched one overhead later). */
	t_q_submit(&q, &ps);
	t_q_submit(&q, &pl);
	hsaqm_sim_advance(sim, 20 * T_US);
	CU_ASSERT_EQUAL(sim_hwq_suspend(&q.hwq, 1, GRACE_UNITS), 0);
	/* Returned once off the HQD: grace, save, unmap. The five long workgroups sit on five
	 * CUs (round-robin placement) and the CUs save in parallel: 8 waves x 1 us, not 40. */
	uint64_t t_s = t0 + 20 * T_US;
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t_s + GRACE_NS + 8 * T_US + UNMAP + DBG_SUSPEND);
	sim_hwq_get_info(q.hwq, &info);
	CU_ASSERT_EQUAL(info.state, SIM_HWQ_SUSPENDED);
	CU_ASSERT_EQUAL(info.waves_saved, 40);
	CU_ASSERT_EQUAL(info.workgroups_running, 0);
	CU_ASSERT(info.ctl_stack_used_bytes > 0 && info.save_area_used_bytes > 0);
	CU_ASSERT(each_once(&rs, 3)); /* the short ones finished inside the grace period */
	CU_ASSERT_EQUAL(sim_signal_load(css), 0);
	CU_ASSERT_EQUAL(rlong.count, 0);

	/* Suspended: nothing moves however long we wait. */
	hsaqm_sim_advance(sim, 5 * T_MS);
	CU_ASSERT_EQUAL(rlong.count, 0);
	CU_ASSERT_EQUAL(sim_signal_load(csl), 1);

	uint64_t t_r = hsaqm_sim_now_ns(sim);
	CU_ASSERT_EQUAL(sim_hwq_resume(&q.hwq, 1), 0);
	CU_ASSERT_EQUAL(sim_hwq_resume(&q.hwq, 1), -EINVAL); /* not suspended any more */
	CU_ASSERT_EQUAL(sim_signal_wait(sim, csl, SIM_COND_EQ, 0, T_S), 0);
	/* Map + restore of 40 waves (8 per CU, in parallel), then the time they still needed:
	 * 1010 - 20 - 50.478 us. */
	uint64_t remaining = 1010 * T_US - 20 * T_US - GRACE_NS;
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t_r + MAP + 8 * T_US + remaining);
	CU_ASSERT(each_once(&rlong, 5));
	sim_hwq_get_info(q.hwq, &info);
	sim_hwq_get_stats(q.hwq, &st);
	CU_ASSERT_EQUAL(info.waves_saved, 0);
	CU_ASSERT_EQUAL(st.waves_saved_total, 40);
	CU_ASSERT_EQUAL(st.waves_restored_total, 40);
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
}

static void test_suspended_queue_launches_nothing_and_completes_no_barrier(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q q;
	static struct rec r;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t k = kernel(sim, 10 * T_US, 1, &r);
	struct sim_signal *gate = sim_signal_create(sim, 1), *bcs = sim_signal_create(sim, 1);
	uint64_t dep = t_handle(gate);
	union hsaqm_aql_packet bar = t_barrier_and(&dep, 1, t_handle(bcs), false);
	union hsaqm_aql_packet p = t_dispatch(k, 1, 0, false);

	t_q_submit(&q, &bar);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(sim_hwq_suspend(&q.hwq, 1, 0), 0);
	/* The gate opens while suspended: the barrier must not complete. */
	sim_signal_store(sim, gate, 0);
	t_q_submit(&q, &p);
	hsaqm_sim_advance(sim, 10 * T_MS);
	CU_ASSERT_EQUAL(sim_signal_load(bcs), 1);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 0);
	CU_ASSERT_EQUAL(r.count, 0);
	CU_ASSERT_EQUAL(sim_hwq_resume(&q.hwq, 1), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	CU_ASSERT_EQUAL(sim_signal_load(bcs), 0);
	CU_ASSERT_EQUAL(r.count, 1);
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
}

static void test_deactivate_unmaps_every_queue_once_and_remaps_the_others(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q q[3];
	static struct rec r[3];
	struct sim_signal *cs[3];
	struct sim_hwq_stats before[3], after[3];

	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL_FATAL(t_q_create(&q[i], sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	for (int i = 0; i < 3; i++) {
		uint64_t k = kernel(sim, 2 * T_MS, 4, &r[i]);
		union hsaqm_aql_packet p;

		cs[i] = sim_signal_create(sim, 1);
		p = t_dispatch(k, 10, t_handle(cs[i]), false);
		t_q_submit(&q[i], &p);
	}
	hsaqm_sim_advance(sim, 100 * T_US);
	for (int i = 0; i < 3; i++)
		sim_hwq_get_stats(q[i].hwq, &before[i]);
	uint64_t t_u = hsaqm_sim_now_ns(sim);
	CU_ASSERT_EQUAL(sim_hwq_update(q[2].hwq, q[2].ring, q[2].slots * 64, 7, false), 0);
	/* Returned after the unmap of all: default grace 0, save (10 workgroups of 4 waves on
	 * ten CUs per queue: 4 waves x 1 us), unmap. */
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t_u + 4 * T_US + UNMAP);
	for (int i = 0; i < 3; i++) {
		sim_hwq_get_stats(q[i].hwq, &after[i]);
		CU_ASSERT_EQUAL(after[i].unmaps, before[i].unmaps + 1);
	}
	CU_ASSERT_EQUAL(t_q_state(&q[2]), SIM_HWQ_SUSPENDED);
	hsaqm_sim_advance(sim, 10 * T_MS);
	for (int i = 0; i < 2; i++) {
		sim_hwq_get_stats(q[i].hwq, &after[i]);
		CU_ASSERT_EQUAL(after[i].maps, before[i].maps + 1);
		CU_ASSERT_EQUAL(sim_signal_load(cs[i]), 0);
		CU_ASSERT(each_once(&r[i], 10));
	}
	/* The inactive queue keeps its saved waves and does not run. */
	sim_hwq_get_stats(q[2].hwq, &after[2]);
	CU_ASSERT_EQUAL(after[2].maps, before[2].maps);
	CU_ASSERT_EQUAL(r[2].count, 0);
	CU_ASSERT_EQUAL(sim_signal_load(cs[2]), 1);
	CU_ASSERT_EQUAL(sim_hwq_update(q[2].hwq, q[2].ring, q[2].slots * 64, 7, true), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	CU_ASSERT(each_once(&r[2], 10));
	CU_ASSERT_EQUAL(sim_signal_load(cs[2]), 0);
	for (int i = 0; i < 3; i++)
		t_q_destroy(&q[i]);
	hsaqm_sim_destroy(sim);
}

static void test_priority_update_preempts_every_queue_like_the_kfd(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q a, b;
	struct sim_hwq_stats sa, sb;
	struct sim_hwq_info info;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&a, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&b, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	sim_hwq_get_stats(b.hwq, &sb);
	CU_ASSERT_EQUAL(sim_hwq_update(a.hwq, a.ring, a.slots * 64, 15, true), 0);
	sim_hwq_get_info(a.hwq, &info);
	CU_ASSERT_EQUAL(info.priority, 15);
	sim_hwq_get_stats(b.hwq, &sa);
	CU_ASSERT_EQUAL(sa.unmaps, sb.unmaps + 1); /* the other queue paid an unmap too */
	CU_ASSERT_EQUAL(sim_hwq_update(a.hwq, a.ring, a.slots * 64, 16, true), -EINVAL);
	t_q_destroy(&a);
	t_q_destroy(&b);
	hsaqm_sim_destroy(sim);
}

static void test_cwsr_off_suspend_waits_for_running_workgroups(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .cwsr_disable = 1 };
	struct hsaqm_sim *sim = NULL;
	struct t_q q;
	static struct rec r;
	struct sim_hwq_info info;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t k = kernel(sim, T_MS, 8, &r);
	union hsaqm_aql_packet p = t_dispatch(k, 4, 0, false);
	uint64_t t0 = hsaqm_sim_now_ns(sim);

	t_q_submit(&q, &p);
	hsaqm_sim_advance(sim, 100 * T_US);
	CU_ASSERT_EQUAL(sim_hwq_suspend(&q.hwq, 1, 0), 0);
	/* No CWSR: the suspension waited for the workgroups (grace or not), then unmapped. */
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t0 + LAUNCH + T_MS + UNMAP + DBG_SUSPEND);
	CU_ASSERT(each_once(&r, 4));
	sim_hwq_get_info(q.hwq, &info);
	CU_ASSERT_EQUAL(info.waves_saved, 0);
	CU_ASSERT_EQUAL(sim_hwq_resume(&q.hwq, 1), 0);
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
}

static void test_destroy_discards_running_workgroups_and_other_queues_run_on(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q a, b;
	static struct rec ra, rb;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&a, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&b, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t ka = kernel(sim, T_MS, 4, &ra), kb = kernel(sim, T_MS, 4, &rb);
	struct sim_signal *csa = sim_signal_create(sim, 1), *csb = sim_signal_create(sim, 1);
	union hsaqm_aql_packet pa = t_dispatch(ka, 8, t_handle(csa), false);
	union hsaqm_aql_packet pb = t_dispatch(kb, 8, t_handle(csb), false);

	t_q_submit(&a, &pa);
	t_q_submit(&b, &pb);
	hsaqm_sim_advance(sim, 200 * T_US);
	t_q_destroy(&a);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	CU_ASSERT_EQUAL(ra.count, 0);
	CU_ASSERT_EQUAL(sim_signal_load(csa), 1); /* never completes */
	CU_ASSERT(each_once(&rb, 8));
	CU_ASSERT_EQUAL(sim_signal_load(csb), 0);
	t_q_destroy(&b);
	hsaqm_sim_destroy(sim);
}

static void test_bad_control_arguments_are_einval(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q q;
	uint64_t *idx = hsaqm_sim_mem_alloc(sim, 64, 64);
	void *ring = hsaqm_sim_mem_alloc(sim, 4096, 64);
	static uint64_t heap_idx[2];
	struct sim_hwq *h = NULL;

	struct sim_hwq_desc d = { .ring_base = ring, .ring_size_bytes = 4096, .write_ptr = idx,
				  .read_ptr = idx + 1, .priority = 7, .active = true };
	struct sim_hwq_desc bad = d;
	bad.ring_size_bytes = 3000;
	CU_ASSERT_EQUAL(sim_hwq_create(sim, &bad, &h), -EINVAL);
	bad = d;
	bad.write_ptr = heap_idx; /* not model memory */
	CU_ASSERT_EQUAL(sim_hwq_create(sim, &bad, &h), -EINVAL);
	bad = d;
	bad.priority = 16;
	CU_ASSERT_EQUAL(sim_hwq_create(sim, &bad, &h), -EINVAL);
	bad = d;
	bad.dev = 1;
	CU_ASSERT_EQUAL(sim_hwq_create(sim, &bad, &h), -EINVAL);
	CU_ASSERT_EQUAL(sim_hwq_create(sim, NULL, &h), -EINVAL);
	CU_ASSERT_EQUAL(sim_hwq_suspend(NULL, 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(sim_hwq_resume(NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(sim_hwq_destroy(NULL), -EINVAL);
	CU_ASSERT_EQUAL(sim_hwq_get_info(NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL(sim_hwq_update(q.hwq, (char *)q.ring + 8, 1024, 7, true), -EINVAL);
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
}

/* ---- trace ---- */


static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_trace_is_valid_chrome_json_even_after_an_early_destroy(void)
{
	char path[] = "/tmp/hsaqm-sim-trace-XXXXXX";
	int fd = mkstemp(path);
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .trace_path = path };
	struct hsaqm_sim *sim = NULL;
	struct t_q q, g, e;

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&g, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&e, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	struct hsaqm_sim_kernel_desc kd = { .name = "gemm \"big\"", .duration_ns = 300 * T_US, .waves_per_wg = 4 };
	uint64_t k;
	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(sim, &kd, &k), 0);
	struct sim_signal *gate = sim_signal_create(sim, 1);
	uint64_t dep = t_handle(gate);
	union hsaqm_aql_packet p = t_dispatch(k, 100, 0, false), b = t_barrier_and(&dep, 1, 0, false);

	/* A reserved packet type: a queue error, whose reason goes into the trace escaped. */
	union hsaqm_aql_packet bad = p;

	bad.dispatch.header = (uint16_t)((bad.dispatch.header & ~0xffu) | 7u);
	t_q_submit(&q, &p);
	t_q_submit(&g, &b);
	t_q_submit(&g, &p);
	uint64_t bad_idx = t_q_reserve(&e);

	t_q_publish_raw(&e, bad_idx, &bad);
	sim_hwq_doorbell(e.hwq, bad_idx);
	hsaqm_sim_advance(sim, 100 * T_US);
	sim_signal_store(sim, gate, 0);
	CU_ASSERT_EQUAL(sim_hwq_suspend(&q.hwq, 1, 10), 0);
	hsaqm_sim_advance(sim, 100 * T_US);
	sim_trace_instant(sim, 0, 7, "face event", "{\"x\":1}");
	/* Destroyed with work in flight, a queue suspended and a kernel half done. */
	hsaqm_sim_destroy(sim);

	char *text = slurp(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT(t_json_valid(text));
	CU_ASSERT(text[0] == '[');
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"ph\":\"X\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"ph\":\"i\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"map\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"preempt\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"suspend\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"barrier-and wait\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "gemm \\\"big\\\" (saved)")); /* escaped, CWSR-saved batch */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"face event\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"queue error\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"why\":\"reserved packet type\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"thread_name\""));
	
	free(text);
	unlink(path);
}

/* Suspend with SIM_HWQ_GRACE_DEFAULT (DBG_TRAP's 0xffffffff) on a model with @timing_path. */
static void suspend_with_default_grace(const char *timing_path, uint64_t *took,
				       uint32_t *short_done)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL,
					.timing_path = timing_path };
	struct hsaqm_sim *sim = NULL;
	struct t_q q;
	static struct rec rs, rlong;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t ks = kernel(sim, 40 * T_US, 4, &rs), kl = kernel(sim, T_MS, 8, &rlong);
	union hsaqm_aql_packet ps = t_dispatch(ks, 3, 0, false);
	union hsaqm_aql_packet pl = t_dispatch(kl, 5, 0, false);

	/* As above: short [t0+5, t0+45] us, long [t0+10, t0+1010] us; suspended at t0+20 us. */
	t_q_submit(&q, &ps);
	t_q_submit(&q, &pl);
	hsaqm_sim_advance(sim, 20 * T_US);
	uint64_t t_s = hsaqm_sim_now_ns(sim);
	CU_ASSERT_EQUAL(sim_hwq_suspend(&q.hwq, 1, SIM_HWQ_GRACE_DEFAULT), 0);
	*took = hsaqm_sim_now_ns(sim) - t_s;
	*short_done = rs.count;
	CU_ASSERT_EQUAL(sim_hwq_resume(&q.hwq, 1), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	CU_ASSERT(each_once(&rs, 3) && each_once(&rlong, 5));
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
}

static void test_default_grace_is_the_profile_constant_and_a_timing_file_overrides_it(void)
{
	char path[] = "/tmp/hsaqm-timing-XXXXXX";
	int fd = mkstemp(path);
	const char *text = "hws_default_grace_units 70  # test: about 50 us\n";
	uint64_t took;
	uint32_t short_done;

	/* Default profile: 0 units, the running waves (3 x 4 on CUs 0-2, 5 x 8 on CUs 3-7) are
	 * saved at once, the CUs in parallel: 8 waves x 1 us. */
	suspend_with_default_grace(NULL, &took, &short_done);
	CU_ASSERT_EQUAL(took, 8 * T_US + UNMAP + DBG_SUSPEND);
	CU_ASSERT_EQUAL(short_done, 0);
	/* 70 units from the timing file: the short workgroups finish inside the grace period. */
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL((size_t)write(fd, text, strlen(text)), strlen(text));
	close(fd);
	suspend_with_default_grace(path, &took, &short_done);
	CU_ASSERT_EQUAL(took, GRACE_NS + 8 * T_US + UNMAP + DBG_SUSPEND);
	CU_ASSERT_EQUAL(short_done, 3);
	unlink(path);
}


/*
 * DBG_TRAP's own cost comes after its runlist change: the queue is off its HQD (and the
 * other queues mapped again) when the unmap ends, the call returns dbg_suspend_ns later;
 * a resume maps the queue at once and returns dbg_resume_ns later. A high queue waiting
 * for the CUs therefore starts before the suspend returns.
 */
static void test_dbg_costs_delay_the_caller_not_the_hws(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q lo, hi;
	static struct rec rl, rh;
	struct sim_hwq_stats st;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&lo, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&hi, sim, 0, 16, 11), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	/* 2560 one-wave workgroups of 1 ms fill every wave slot: 32 waves on each CU. */
	uint64_t kl = kernel(sim, T_MS, 1, &rl), kh = kernel(sim, 10 * T_US, 32, &rh);
	struct sim_signal *ch = sim_signal_create(sim, 1);
	union hsaqm_aql_packet pl = t_dispatch(kl, 2560, 0, false);
	union hsaqm_aql_packet ph = t_dispatch(kh, 1, t_handle(ch), false);

	t_q_submit(&lo, &pl);
	hsaqm_sim_advance(sim, 100 * T_US);
	t_q_submit(&hi, &ph); /* launched, but no CU has 32 free slots */
	hsaqm_sim_advance(sim, 10 * T_US);
	uint64_t t_s = hsaqm_sim_now_ns(sim);
	CU_ASSERT_EQUAL(sim_hwq_suspend(&lo.hwq, 1, 0), 0);
	sim_hwq_get_stats(lo.hwq, &st);
	CU_ASSERT_EQUAL(st.last_unmap_time, t_s + 32 * T_US + UNMAP);
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t_s + 32 * T_US + UNMAP + DBG_SUSPEND);
	/* The high workgroup ran on a freed CU while the suspend was still returning. */
	CU_ASSERT_EQUAL(sim_signal_wait(sim, ch, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT(rh.last_time < t_s + 32 * T_US + UNMAP + DBG_SUSPEND + 10 * T_US);
	uint64_t t_r = hsaqm_sim_now_ns(sim);
	CU_ASSERT_EQUAL(sim_hwq_resume(&lo.hwq, 1), 0);
	/* The resume's runlist change unmaps the (idle) high queue, then the call's own cost. */
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t_r + UNMAP + DBG_RESUME);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	sim_hwq_get_stats(lo.hwq, &st);
	/* Mapped as soon as the runlist changed: map + 32 waves restored per CU. */
	CU_ASSERT_EQUAL(st.last_map_time, t_r + UNMAP + MAP + 32 * T_US);
	CU_ASSERT_EQUAL(rl.count, 2560);
	t_q_destroy(&lo);
	t_q_destroy(&hi);
	hsaqm_sim_destroy(sim);
}

static const struct t_case cases[] = {
	T_CASE(test_more_queues_than_hqd_slots_are_time_sliced_and_all_finish),
	T_CASE(test_priority_serves_higher_pipe_level_first_without_preempting_running),
	T_CASE(test_same_level_queues_share_cus_round_robin),
	T_CASE(test_cu_mask_restricts_the_queue_to_its_cus),
	T_CASE(test_suspend_grace_lets_short_workgroups_finish_and_saves_long_ones),
	T_CASE(test_dbg_costs_delay_the_caller_not_the_hws),
	T_CASE(test_default_grace_is_the_profile_constant_and_a_timing_file_overrides_it),
	T_CASE(test_suspended_queue_launches_nothing_and_completes_no_barrier),
	T_CASE(test_deactivate_unmaps_every_queue_once_and_remaps_the_others),
	T_CASE(test_priority_update_preempts_every_queue_like_the_kfd),
	T_CASE(test_cwsr_off_suspend_waits_for_running_workgroups),
	T_CASE(test_destroy_discards_running_workgroups_and_other_queues_run_on),
	T_CASE(test_bad_control_arguments_are_einval),
	T_CASE(test_trace_is_valid_chrome_json_even_after_an_early_destroy),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-hws", NULL, NULL, cases }, T_SUITES_END };
	return t_run("test-sim-hws", suites);
}
