/* SPDX-License-Identifier: MIT */
/*
 * The model's hardware scheduler suspends: the grace period lets short workgroups finish and
 * CWSR saves the long ones, the debugger calls' costs delay the caller and not the HWS, the
 * default grace is the profile's constant (a timing file overrides it), a suspended queue
 * launches nothing and completes no barrier, and with CWSR off a suspension waits for the running
 * workgroups.
 *
 * Virtual time, default MI308X profile: map/unmap 20 us, launch 5 us, CWSR 1 us per wave each
 * way, quantum 10 ms, 80 CUs x 32 wave slots, grace unit 1024 clocks at 1420 MHz.
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
#include "t_sim_hws.h"

/* grace units for about 50 us at 1420 MHz: 70 x 1024 / 1420 MHz = 50478 ns. */
#define GRACE_UNITS 70u
#define GRACE_NS 50478u

static void test_suspend_grace_lets_short_workgroups_finish_and_saves_long_ones(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q q;
	static struct t_hws_rec rs, rlong;
	struct sim_hwq_info info;
	struct sim_hwq_stats st;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t ks = t_hws_kernel(sim, 40 * T_US, 4, &rs), kl = t_hws_kernel(sim, T_MS, 8, &rlong);
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
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim),
			t_s + GRACE_NS + 8 * T_US + T_HWS_UNMAP + T_HWS_DBG_SUSPEND);
	sim_hwq_get_info(q.hwq, &info);
	CU_ASSERT_EQUAL(info.state, SIM_HWQ_SUSPENDED);
	CU_ASSERT_EQUAL(info.waves_saved, 40);
	CU_ASSERT_EQUAL(info.workgroups_running, 0);
	CU_ASSERT(info.ctl_stack_used_bytes > 0 && info.save_area_used_bytes > 0);
	CU_ASSERT(t_each_once(&rs, 3)); /* the short ones finished inside the grace period */
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
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t_r + T_HWS_MAP + 8 * T_US + remaining);
	CU_ASSERT(t_each_once(&rlong, 5));
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
	static struct t_hws_rec r;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t k = t_hws_kernel(sim, 10 * T_US, 1, &r);
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

static void test_cwsr_off_suspend_waits_for_running_workgroups(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .cwsr_disable = 1 };
	struct hsaqm_sim *sim = NULL;
	struct t_q q;
	static struct t_hws_rec r;
	struct sim_hwq_info info;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t k = t_hws_kernel(sim, T_MS, 8, &r);
	union hsaqm_aql_packet p = t_dispatch(k, 4, 0, false);
	uint64_t t0 = hsaqm_sim_now_ns(sim);

	t_q_submit(&q, &p);
	hsaqm_sim_advance(sim, 100 * T_US);
	CU_ASSERT_EQUAL(sim_hwq_suspend(&q.hwq, 1, 0), 0);
	/* No CWSR: the suspension waited for the workgroups (grace or not), then unmapped. */
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t0 + T_HWS_LAUNCH + T_MS + T_HWS_UNMAP + T_HWS_DBG_SUSPEND);
	CU_ASSERT(t_each_once(&r, 4));
	sim_hwq_get_info(q.hwq, &info);
	CU_ASSERT_EQUAL(info.waves_saved, 0);
	CU_ASSERT_EQUAL(sim_hwq_resume(&q.hwq, 1), 0);
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
}

/* Suspend with SIM_HWQ_GRACE_DEFAULT (DBG_TRAP's 0xffffffff) on a model with @timing_path. */
static void suspend_with_default_grace(const char *timing_path, uint64_t *took,
				       uint32_t *short_done)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL,
					.timing_path = timing_path };
	struct hsaqm_sim *sim = NULL;
	struct t_q q;
	static struct t_hws_rec rs, rlong;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t ks = t_hws_kernel(sim, 40 * T_US, 4, &rs), kl = t_hws_kernel(sim, T_MS, 8, &rlong);
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
	CU_ASSERT(t_each_once(&rs, 3) && t_each_once(&rlong, 5));
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
	CU_ASSERT_EQUAL(took, 8 * T_US + T_HWS_UNMAP + T_HWS_DBG_SUSPEND);
	CU_ASSERT_EQUAL(short_done, 0);
	/* 70 units from the timing file: the short workgroups finish inside the grace period. */
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL((size_t)write(fd, text, strlen(text)), strlen(text));
	close(fd);
	suspend_with_default_grace(path, &took, &short_done);
	CU_ASSERT_EQUAL(took, GRACE_NS + 8 * T_US + T_HWS_UNMAP + T_HWS_DBG_SUSPEND);
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
	static struct t_hws_rec rl, rh;
	struct sim_hwq_stats st;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&lo, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&hi, sim, 0, 16, 11), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	/* 2560 one-wave workgroups of 1 ms fill every wave slot: 32 waves on each CU. */
	uint64_t kl = t_hws_kernel(sim, T_MS, 1, &rl), kh = t_hws_kernel(sim, 10 * T_US, 32, &rh);
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
	CU_ASSERT_EQUAL(st.last_unmap_time, t_s + 32 * T_US + T_HWS_UNMAP);
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t_s + 32 * T_US + T_HWS_UNMAP + T_HWS_DBG_SUSPEND);
	/* The high workgroup ran on a freed CU while the suspend was still returning. */
	CU_ASSERT_EQUAL(sim_signal_wait(sim, ch, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT(rh.last_time < t_s + 32 * T_US + T_HWS_UNMAP + T_HWS_DBG_SUSPEND + 10 * T_US);
	uint64_t t_r = hsaqm_sim_now_ns(sim);
	CU_ASSERT_EQUAL(sim_hwq_resume(&lo.hwq, 1), 0);
	/* The resume's runlist change unmaps the (idle) high queue, then the call's own cost. */
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t_r + T_HWS_UNMAP + T_HWS_DBG_RESUME);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	sim_hwq_get_stats(lo.hwq, &st);
	/* Mapped as soon as the runlist changed: map + 32 waves restored per CU. */
	CU_ASSERT_EQUAL(st.last_map_time, t_r + T_HWS_UNMAP + T_HWS_MAP + 32 * T_US);
	CU_ASSERT_EQUAL(rl.count, 2560);
	t_q_destroy(&lo);
	t_q_destroy(&hi);
	hsaqm_sim_destroy(sim);
}

static const struct t_case cases[] = {
	T_CASE(test_suspend_grace_lets_short_workgroups_finish_and_saves_long_ones),
	T_CASE(test_dbg_costs_delay_the_caller_not_the_hws),
	T_CASE(test_default_grace_is_the_profile_constant_and_a_timing_file_overrides_it),
	T_CASE(test_suspended_queue_launches_nothing_and_completes_no_barrier),
	T_CASE(test_cwsr_off_suspend_waits_for_running_workgroups),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-hws-suspend", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-sim-hws-suspend", suites);
}
