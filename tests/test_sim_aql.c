/* SPDX-License-Identifier: MIT */
/*
 * The device model's packet processor follows the HSA 1.2 AQL rules, one test per rule
 * (virtual time: every instant asserted below is exact).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "hsaqm-hsa/hsa_abi.h"
#include "t_cunit.h"
#include "t_sim.h"

/* Default profile: 5 us launch overhead, 20 us map. */
#define LAUNCH_NS (5 * T_US)

struct rec {
	struct hsaqm_sim *sim;
	uint32_t count;
	uint32_t per_wg[4096];
	uint32_t n;
	uint64_t ids[256];
	uint64_t times[256];
	struct sim_signal *peek;  /* signal value seen by each callback */
	int64_t peeked[256];
};

static void rec_cb(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct rec *r = arg;

	(void)kernarg;
	r->count++;
	if (wg < 4096)
		r->per_wg[wg]++;
	if (r->n < 256) {
		r->ids[r->n] = dispatch_id;
		r->times[r->n] = hsaqm_sim_now_ns(r->sim);
		r->peeked[r->n] = r->peek ? sim_signal_load(r->peek) : 0;
		r->n++;
	}
}

static uint64_t kernel(struct hsaqm_sim *sim, uint64_t dur, uint32_t waves, struct rec *r)
{
	struct hsaqm_sim_kernel_desc d = { .name = "k", .duration_ns = dur, .waves_per_wg = waves,
					   .wg_callback = r ? rec_cb : NULL, .wg_callback_arg = r };
	uint64_t k = 0;

	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(sim, &d, &k), 0);
	return k;
}

/* Model, one queue, mapped and idle; returns the time it is ready. */
static uint64_t setup(struct hsaqm_sim **sim, struct t_q *q, struct rec *r)
{
	*sim = t_sim_virtual(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*sim);
	CU_ASSERT_EQUAL_FATAL(t_q_create(q, *sim, 0, 64, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(*sim, T_S), 0);
	CU_ASSERT_EQUAL(t_q_state(q), SIM_HWQ_MAPPED);
	if (r) {
		memset(r, 0, sizeof(*r));
		r->sim = *sim;
	}
	return hsaqm_sim_now_ns(*sim);
}

static void teardown(struct hsaqm_sim *sim, struct t_q *q)
{
	t_q_destroy(q);
	hsaqm_sim_destroy(sim);
}

static void test_dispatch_runs_grid_over_wg_rounded_up_workgroups(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct rec r;
	uint64_t t0 = setup(&sim, &q, &r);
	uint64_t k = kernel(sim, 100 * T_US, 1, &r);
	struct sim_signal *cs = sim_signal_create(sim, 1);
	/* 10 x 6 x 3 grid, 4 x 4 x 2 workgroups: 3 x 2 x 2 = 12 workgroups (partial ones count). */
	const uint32_t grid[3] = { 10, 6, 3 };
	const uint16_t wg[3] = { 4, 4, 2 };
	union hsaqm_aql_packet p = t_dispatch3(k, grid, wg, 3, t_handle(cs), false);

	t_q_submit(&q, &p);
	/* Launch overhead then one 100 us round: every workgroup fits the 80 CUs at once. */
	hsaqm_sim_advance(sim, LAUNCH_NS + 100 * T_US - 1);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 1);
	CU_ASSERT_EQUAL(r.count, 0);
	hsaqm_sim_advance(sim, 1);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 0);
	CU_ASSERT_EQUAL(r.count, 12);
	for (int i = 0; i < 12; i++)
		CU_ASSERT_EQUAL(r.per_wg[i], 1);
	CU_ASSERT_EQUAL(r.per_wg[12], 0);
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t0 + LAUNCH_NS + 100 * T_US);
	sim_signal_destroy(sim, cs);
	teardown(sim, &q);
}

static void test_large_grid_runs_in_rounds_each_workgroup_once(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct rec r;
	uint64_t t0 = setup(&sim, &q, &r);
	/* 8 waves per workgroup: a CU (32 slots) holds 4, the device 320 at a time. */
	uint64_t k = kernel(sim, 10 * T_US, 8, &r);
	struct sim_signal *cs = sim_signal_create(sim, 1);
	union hsaqm_aql_packet p = t_dispatch(k, 1000, t_handle(cs), false);

	t_q_submit(&q, &p);
	CU_ASSERT_EQUAL(sim_signal_wait(sim, cs, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT_EQUAL(r.count, 1000);
	for (int i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(r.per_wg[i], 1);
	/* ceil(1000 / 320) = 4 rounds of 10 us. */
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t0 + LAUNCH_NS + 4 * 10 * T_US);
	sim_signal_destroy(sim, cs);
	teardown(sim, &q);
}

static void test_barrier_bit_waits_for_earlier_packets_to_complete(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct rec r;
	uint64_t t0 = setup(&sim, &q, &r);
	uint64_t klong = kernel(sim, 100 * T_US, 1, &r), kshort = kernel(sim, 10 * T_US, 1, &r);
	union hsaqm_aql_packet a = t_dispatch(klong, 1, 0, false), b = t_dispatch(kshort, 1, 0, true);

	t_q_submit(&q, &a);
	t_q_submit(&q, &b);
	hsaqm_sim_run_until_idle(sim, T_S);
	CU_ASSERT_EQUAL_FATAL(r.n, 2);
	CU_ASSERT_EQUAL(r.ids[0], 0);
	CU_ASSERT_EQUAL(r.times[0], t0 + LAUNCH_NS + 100 * T_US);
	/* B launches only once A completed: its own launch overhead starts then. */
	CU_ASSERT_EQUAL(r.ids[1], 1);
	CU_ASSERT_EQUAL(r.times[1], r.times[0] + LAUNCH_NS + 10 * T_US);
	teardown(sim, &q);
}

static void test_no_barrier_bit_lets_kernels_overlap(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct rec r;
	uint64_t t0 = setup(&sim, &q, &r);
	uint64_t klong = kernel(sim, 100 * T_US, 1, &r), kshort = kernel(sim, 10 * T_US, 1, &r);
	union hsaqm_aql_packet a = t_dispatch(klong, 1, 0, false), b = t_dispatch(kshort, 1, 0, false);

	t_q_submit(&q, &a);
	t_q_submit(&q, &b);
	hsaqm_sim_run_until_idle(sim, T_S);
	CU_ASSERT_EQUAL_FATAL(r.n, 2);
	/* B started right after A's launch and finished first, while A still ran. */
	CU_ASSERT_EQUAL(r.ids[0], 1);
	CU_ASSERT_EQUAL(r.times[0], t0 + 2 * LAUNCH_NS + 10 * T_US);
	CU_ASSERT_EQUAL(r.ids[1], 0);
	CU_ASSERT_EQUAL(r.times[1], t0 + LAUNCH_NS + 100 * T_US);
	teardown(sim, &q);
}

static void test_barrier_and_waits_for_every_dependency_zero_handle_satisfied(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct rec r;
	setup(&sim, &q, &r);
	uint64_t k = kernel(sim, 10 * T_US, 1, &r);
	struct sim_signal *s1 = sim_signal_create(sim, 1), *s2 = sim_signal_create(sim, 1);
	struct sim_signal *bcs = sim_signal_create(sim, 1);
	uint64_t deps[3] = { t_handle(s1), 0, t_handle(s2) };
	union hsaqm_aql_packet bar = t_barrier_and(deps, 3, t_handle(bcs), false);
	union hsaqm_aql_packet kd = t_dispatch(k, 1, 0, false);

	t_q_submit(&q, &bar);
	t_q_submit(&q, &kd);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 0); /* not consumed while it waits */
	CU_ASSERT_EQUAL(r.count, 0);
	sim_signal_store(sim, s1, 0);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(r.count, 0); /* s2 still 1; the zero handle counts as satisfied */
	CU_ASSERT_EQUAL(sim_signal_load(bcs), 1);
	uint64_t t_open = hsaqm_sim_now_ns(sim);
	sim_signal_store(sim, s2, 0);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(sim_signal_load(bcs), 0);
	CU_ASSERT_EQUAL(r.count, 1);
	CU_ASSERT_EQUAL(r.times[0], t_open + LAUNCH_NS + 10 * T_US);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 2);

	/* No dependency at all (five zero handles): satisfied at once. */
	struct sim_signal *cs2 = sim_signal_create(sim, 1);
	union hsaqm_aql_packet empty = t_barrier_and(NULL, 0, t_handle(cs2), false);
	t_q_submit(&q, &empty);
	hsaqm_sim_advance(sim, 0);
	CU_ASSERT_EQUAL(sim_signal_load(cs2), 0);
	teardown(sim, &q);
}

static void test_barrier_or_any_dependency_zero_handle_unsatisfied(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct rec r;
	setup(&sim, &q, &r);
	struct sim_signal *s1 = sim_signal_create(sim, 1), *s2 = sim_signal_create(sim, 1);
	struct sim_signal *cs = sim_signal_create(sim, 1);
	uint64_t deps[5] = { 0, t_handle(s1), 0, t_handle(s2), 0 };
	union hsaqm_aql_packet bar = t_barrier_or_raw(deps, t_handle(cs));

	t_q_submit(&q, &bar);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 1); /* the zero handles do not satisfy it */
	sim_signal_store(sim, s2, 0);
	hsaqm_sim_advance(sim, 0);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 0);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 1);

	/* Only zero handles: never satisfied, the queue stays blocked. */
	uint64_t none[5] = { 0, 0, 0, 0, 0 };
	struct sim_signal *cs2 = sim_signal_create(sim, 1);
	union hsaqm_aql_packet never = t_barrier_or_raw(none, t_handle(cs2));
	t_q_submit(&q, &never);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, 10 * T_MS), -ETIMEDOUT);
	CU_ASSERT_EQUAL(sim_signal_load(cs2), 1);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 1);
	teardown(sim, &q);
}

static void test_barrier_value_each_condition_with_mask(void)
{
	static const struct {
		uint32_t cond;
		int64_t compare;
		int64_t before, after; /* signal values: blocked, then satisfied */
	} cases[] = {
		/* (value & 0xff) COND compare; the bits above the mask never matter. */
		{ HSAQM_AQL_COND_EQ, 0x34, 0x1233, 0x7734 },
		{ HSAQM_AQL_COND_NE, 0x34, 0x5534, 0x5535 },
		{ HSAQM_AQL_COND_LT, 0x30, 0x0f30, 0x0f2f },
		{ HSAQM_AQL_COND_GTE, 0x30, 0x7f2f, 0x0030 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hsaqm_sim *sim;
		struct t_q q;

		setup(&sim, &q, NULL);
		struct sim_signal *s = sim_signal_create(sim, cases[i].before);
		struct sim_signal *cs = sim_signal_create(sim, 1);
		union hsaqm_aql_packet p = t_barrier_value(t_handle(s), cases[i].compare, 0xff,
							   cases[i].cond, t_handle(cs));

		t_q_submit(&q, &p);
		hsaqm_sim_advance(sim, T_MS);
		CU_ASSERT_EQUAL(sim_signal_load(cs), 1);
		sim_signal_store(sim, s, cases[i].after);
		hsaqm_sim_advance(sim, 0);
		CU_ASSERT_EQUAL(sim_signal_load(cs), 0);
		CU_ASSERT_EQUAL(t_q_read_index(&q), 1);
		teardown(sim, &q);
	}
}

static void test_completion_signal_decremented_once_per_packet_after_callbacks(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct rec r;
	setup(&sim, &q, &r);
	uint64_t k = kernel(sim, 10 * T_US, 1, &r);
	/* One signal for three packets: each completion takes exactly 1 off it. */
	struct sim_signal *cs = sim_signal_create(sim, 3);
	r.peek = cs;
	union hsaqm_aql_packet p = t_dispatch(k, 4, t_handle(cs), true);

	for (int i = 0; i < 3; i++)
		t_q_submit(&q, &p);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 0);
	CU_ASSERT_EQUAL_FATAL(r.n, 12);
	/* Every callback of packet i saw the value before packet i's decrement. */
	for (unsigned int i = 0; i < 12; i++)
		CU_ASSERT_EQUAL(r.peeked[i], 3 - (int64_t)r.ids[i]);
	/* Profiling timestamps: launch and completion of the last packet. */
	CU_ASSERT(cs->end_ts > cs->start_ts);
	teardown(sim, &q);
}

static void test_read_index_advances_at_consume_not_at_completion(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	setup(&sim, &q, NULL);
	uint64_t k = kernel(sim, 10 * T_MS, 1, NULL);
	struct sim_signal *cs = sim_signal_create(sim, 1);
	union hsaqm_aql_packet p = t_dispatch(k, 1, t_handle(cs), false);

	uint64_t idx = t_q_submit(&q, &p);
	hsaqm_sim_advance(sim, 0);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 1);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 1);
	/* The packet processor marks the consumed slot INVALID before moving the read index. */
	CU_ASSERT_EQUAL(q.ring[idx].u32[0], HSAQM_AQL_INVALID_WORD);
	hsaqm_sim_advance(sim, 20 * T_MS);
	CU_ASSERT_EQUAL(sim_signal_load(cs), 0);
	teardown(sim, &q);
}

static void test_invalid_header_stops_processing_until_published_and_doorbell(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct rec r;
	setup(&sim, &q, &r);
	uint64_t k = kernel(sim, 10 * T_US, 1, &r);
	union hsaqm_aql_packet p = t_dispatch(k, 1, 0, false);

	uint64_t i0 = t_q_reserve(&q), i1 = t_q_reserve(&q);
	t_q_publish(&q, i1, &p);
	sim_hwq_doorbell(q.hwq, i1);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 0); /* slot 0 is still INVALID: nothing runs */
	CU_ASSERT_EQUAL(r.count, 0);
	t_q_publish(&q, i0, &p);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 0); /* published, but nobody rang */
	sim_hwq_doorbell(q.hwq, i0);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 2);
	CU_ASSERT_EQUAL(r.count, 2);
	teardown(sim, &q);
}

static void test_later_packets_never_launch_before_earlier_ones(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct rec r;
	setup(&sim, &q, &r);
	uint64_t k = kernel(sim, 50 * T_US, 1, &r);
	struct sim_signal *gate = sim_signal_create(sim, 1);
	uint64_t dep = t_handle(gate);
	union hsaqm_aql_packet g = t_barrier_and(&dep, 1, 0, false), p = t_dispatch(k, 1, 0, false);
	struct sim_hwq_info info;

	/* Kernels after a closed gate stay unlaunched even with free CUs and launch slots. */
	t_q_submit(&q, &p);
	t_q_submit(&q, &g);
	for (int i = 0; i < 20; i++)
		t_q_submit(&q, &p);
	hsaqm_sim_advance(sim, T_MS);
	sim_hwq_get_info(q.hwq, &info);
	CU_ASSERT_EQUAL(info.dispatches_launched, 1);
	CU_ASSERT_EQUAL(r.count, 1);
	sim_signal_store(sim, gate, 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	CU_ASSERT_EQUAL_FATAL(r.n, 21);
	/* Equal kernels launched one launch overhead apart finish in ring order. */
	for (unsigned int i = 1; i < r.n; i++) {
		CU_ASSERT(r.ids[i] > r.ids[i - 1]);
		CU_ASSERT(r.times[i] >= r.times[i - 1]);
	}
	teardown(sim, &q);
}

static void test_launch_slots_limit_inflight_dispatches(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	setup(&sim, &q, NULL);
	uint64_t k = kernel(sim, 10 * T_MS, 1, NULL);
	union hsaqm_aql_packet p = t_dispatch(k, 1, 0, false);
	struct sim_hwq_info info;

	for (int i = 0; i < 12; i++)
		t_q_submit(&q, &p);
	hsaqm_sim_advance(sim, T_MS);
	sim_hwq_get_info(q.hwq, &info);
	/* max_inflight_dispatches (8): the 9th waits for a completion, unconsumed. */
	CU_ASSERT_EQUAL(info.dispatches_launched, 8);
	CU_ASSERT_EQUAL(t_q_read_index(&q), 8);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	sim_hwq_get_info(q.hwq, &info);
	CU_ASSERT_EQUAL(info.packets_completed, 12);
	teardown(sim, &q);
}

/* Malformed packets: each kind puts its queue in ERROR with the status a GPU reports. */
struct bad_case {
	const char *what;
	int status;
};

static union hsaqm_aql_packet bad_packet(int i, uint64_t k)
{
	union hsaqm_aql_packet p = t_dispatch(k, 4, 0, false);

	switch (i) {
	case 0: /* reserved packet type */
		p.common.header = 7;
		break;
	case 1: /* agent dispatch on a kernel queue */
		memset(&p, 0, sizeof(p));
		p.common.header = HSAQM_AQL_TYPE_AGENT_DISPATCH;
		break;
	case 2: /* AMD vendor packet with an unknown format (1 = PM4 IB, not modelled) */
		memset(&p, 0, sizeof(p));
		p.common.header = HSAQM_AQL_TYPE_VENDOR;
		p.barrier_value.amd_format = 1;
		break;
	case 3: /* zero grid */
		p.dispatch.grid_size_x = 0;
		break;
	case 4: /* zero workgroup size */
		p.dispatch.workgroup_size_x = 0;
		break;
	case 5: /* workgroup larger than the grid */
		p.dispatch.grid_size_x = 32;
		break;
	case 6: /* 0 dimensions */
		p.dispatch.setup = 0;
		break;
	case 7: /* reserved header bits */
		p.common.header |= 0x8000;
		break;
	case 8: /* unknown kernel object */
		p.dispatch.kernel_object = 0x1234000;
		break;
	case 9: /* completion signal that is no signal */
		p.dispatch.completion_signal = 0xdead00;
		break;
	case 10: /* barrier-value condition out of range */
		memset(&p, 0, sizeof(p));
		p.barrier_value.header = HSAQM_AQL_TYPE_VENDOR;
		p.barrier_value.amd_format = HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE;
		p.barrier_value.cond = 9;
		break;
	case 11: /* group segment larger than the 64 KiB LDS */
		p.dispatch.group_segment_size = 65 * 1024;
		break;
	case 12: /* more than 1024 work-items per workgroup */
		p.dispatch.workgroup_size_x = 1025;
		p.dispatch.grid_size_x = 4100;
		break;
	}
	return p;
}

static const struct bad_case bad_cases[] = {
	{ "reserved type", T_ST_INVALID_PACKET_FORMAT },
	{ "agent dispatch", T_ST_INVALID_PACKET_FORMAT },
	{ "unknown vendor format", T_ST_INVALID_PACKET_FORMAT },
	{ "zero grid", T_ST_INCOMPATIBLE_ARGUMENTS },
	{ "zero workgroup", T_ST_INCOMPATIBLE_ARGUMENTS },
	{ "workgroup larger than grid", T_ST_INVALID_ARGUMENT },
	{ "0 dimensions", T_ST_INCOMPATIBLE_ARGUMENTS },
	{ "reserved header bits", T_ST_INVALID_PACKET_FORMAT },
	{ "unknown kernel object", T_ST_INVALID_CODE_OBJECT },
	{ "bad completion signal", T_ST_INVALID_SIGNAL },
	{ "barrier-value condition", T_ST_INVALID_PACKET_FORMAT },
	{ "group segment too large", T_ST_INVALID_ALLOCATION },
	{ "workgroup too large", T_ST_INVALID_ARGUMENT },
};

static void test_each_malformed_packet_errors_its_queue_and_other_queue_runs_on(void)
{
	for (int i = 0; i < (int)(sizeof(bad_cases) / sizeof(bad_cases[0])); i++) {
		struct hsaqm_sim *sim = t_sim_virtual(1);
		struct t_q bad, good;
		static struct rec r;

		CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
		memset(&r, 0, sizeof(r));
		r.sim = sim;
		CU_ASSERT_EQUAL_FATAL(t_q_create(&bad, sim, 0, 16, 7), 0);
		CU_ASSERT_EQUAL_FATAL(t_q_create(&good, sim, 0, 16, 7), 0);
		hsaqm_sim_run_until_idle(sim, T_S);
		uint64_t k = kernel(sim, 100 * T_US, 1, &r);
		struct sim_signal *cs = sim_signal_create(sim, 1);
		union hsaqm_aql_packet p = bad_packet(i, k), ok = t_dispatch(k, 2, t_handle(cs), false);

		uint64_t idx = t_q_reserve(&bad);
		t_q_publish_raw(&bad, idx, &p);
		sim_hwq_doorbell(bad.hwq, idx);
		t_q_submit(&bad, &ok); /* never runs: the queue stopped before it */
		t_q_submit(&good, &ok);
		hsaqm_sim_run_until_idle(sim, T_S);
		if (bad.errors != 1 || bad.last_status != bad_cases[i].status)
			printf("\n  case %s: %d errors, status 0x%x\n", bad_cases[i].what, bad.errors,
			       bad.last_status);
		CU_ASSERT_EQUAL(bad.errors, 1);
		CU_ASSERT_EQUAL(bad.last_status, bad_cases[i].status);
		CU_ASSERT_EQUAL(t_q_state(&bad), SIM_HWQ_ERROR);
		CU_ASSERT_EQUAL(t_q_read_index(&bad), 0);
		CU_ASSERT_EQUAL(good.errors, 0);
		CU_ASSERT_EQUAL(sim_signal_load(cs), 0); /* the good queue's packet, exactly once */
		CU_ASSERT_EQUAL(r.count, 2);
		t_q_destroy(&bad);
		t_q_destroy(&good);
		hsaqm_sim_destroy(sim);
	}
}

static void test_unknown_kernel_object_is_invalid_code_object(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	setup(&sim, &q, NULL);
	/* A registered kernel's neighbour address and a heap pointer: neither is a model kernel. */
	uint64_t k = kernel(sim, T_US, 1, NULL);
	int dummy;
	uint64_t bogus[2] = { k + 64, (uint64_t)(uintptr_t)&dummy };

	for (int i = 0; i < 2; i++) {
		struct t_q q2;

		CU_ASSERT_EQUAL_FATAL(t_q_create(&q2, sim, 0, 16, 7), 0);
		hsaqm_sim_run_until_idle(sim, T_S);
		union hsaqm_aql_packet p = t_dispatch(k, 1, 0, false);
		p.dispatch.kernel_object = bogus[i];
		t_q_submit(&q2, &p);
		hsaqm_sim_run_until_idle(sim, T_S);
		CU_ASSERT_EQUAL(q2.errors, 1);
		CU_ASSERT_EQUAL(q2.last_status, T_ST_INVALID_CODE_OBJECT);
		t_q_destroy(&q2);
	}
	CU_ASSERT_EQUAL(q.errors, 0);
	teardown(sim, &q);
}

static void test_producer_overrunning_the_ring_errors_the_queue(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q q, other;
	static struct rec r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	memset(&r, 0, sizeof(r));
	r.sim = sim;
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 8, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&other, sim, 0, 8, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t k = kernel(sim, 10 * T_US, 1, &r);
	union hsaqm_aql_packet p = t_dispatch(k, 1, 0, false);

	/* Nine packets in an 8-slot ring, none consumed: the ninth overwrote slot 0. */
	uint64_t last = 0;
	for (int i = 0; i < 9; i++) {
		last = t_q_reserve(&q);
		t_q_publish(&q, last, &p);
	}
	sim_hwq_doorbell(q.hwq, last);
	t_q_submit(&other, &p);
	hsaqm_sim_run_until_idle(sim, T_S);
	CU_ASSERT_EQUAL(q.errors, 1);
	CU_ASSERT_EQUAL(q.last_status, T_ST_INVALID_PACKET_FORMAT);
	CU_ASSERT_EQUAL(t_q_state(&q), SIM_HWQ_ERROR);
	CU_ASSERT_EQUAL(other.errors, 0);
	CU_ASSERT_EQUAL(r.count, 1); /* only the other queue's kernel ran */
	t_q_destroy(&q);
	t_q_destroy(&other);
	hsaqm_sim_destroy(sim);
}

static void test_write_index_beyond_the_ring_is_not_an_overrun(void)
{
	struct hsaqm_sim *sim;
	struct t_q q;
	static struct rec r;
	setup(&sim, &q, &r);
	uint64_t k = kernel(sim, 10 * T_US, 1, &r);
	union hsaqm_aql_packet p = t_dispatch(k, 1, 0, false);

	/*
	 * ROCclr reserves first (write index += 1) and waits for space after: the write index
	 * may be more than a ring ahead while the packets written are all legal.
	 */
	uint64_t first = t_q_reserve(&q);
	/* acq_rel, as a producer's reservation: the packet processor acquires the write index. */
	hsaqm_fetch_add(q.wr, (uint64_t)q.slots + 5);
	t_q_publish(&q, first, &p);
	sim_hwq_doorbell(q.hwq, first);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(q.errors, 0);
	CU_ASSERT_EQUAL(r.count, 1);
	teardown(sim, &q);
}

/* A queue as ROCr lays it out: ring and dispatch ids inside an amd_queue_t in model memory. */
struct amdq {
	struct hsaqm_amd_queue *amd;
	union hsaqm_aql_packet *ring;
	struct sim_hwq *hwq;
	struct sim_signal *inactive;
	int calls;
	int64_t seen_in_callback; /* queue_inactive_signal's value when the callback ran */
};

static void amdq_error_cb(void *ctx, struct sim_hwq *hwq, int status)
{
	struct amdq *a = ctx;

	(void)hwq, (void)status;
	a->calls++;
	a->seen_in_callback = a->inactive ? sim_signal_load(a->inactive) : 0;
}

static void amdq_create(struct hsaqm_sim *sim, struct amdq *a, uint32_t base_offset,
			uint64_t handle)
{
	memset(a, 0, sizeof(*a));
	a->amd = hsaqm_sim_mem_alloc(sim, sizeof(*a->amd), 64);
	a->ring = hsaqm_sim_mem_alloc(sim, 16 * 64, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a->amd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a->ring);
	for (int i = 0; i < 16; i++)
		a->ring[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	a->amd->read_dispatch_id_field_base_byte_offset = base_offset;
	a->amd->queue_inactive_signal.handle = handle;
	a->inactive = sim_signal_from_handle(sim, handle);
	struct sim_hwq_desc d = {
		.dev = 0, .ring_base = a->ring, .ring_size_bytes = 16 * 64,
		.write_ptr = (uint64_t *)(uintptr_t)&a->amd->write_dispatch_id,
		.read_ptr = (uint64_t *)(uintptr_t)&a->amd->read_dispatch_id,
		.priority = 7, .active = true, .error_fn = amdq_error_cb, .error_ctx = a,
	};
	CU_ASSERT_EQUAL_FATAL(sim_hwq_create(sim, &d, &a->hwq), 0);
}

/* A packet of reserved type 7 at index 0, rung. */
static void amdq_submit_bad(struct amdq *a)
{
	union hsaqm_aql_packet p;

	memset(&p, 0, sizeof(p));
	/* Release: the reservation the packet processor acquires; the header guards the body. */
	hsaqm_store_release(&a->amd->write_dispatch_id, 1ull);
	memcpy(&a->ring[0].bytes[4], &p.bytes[4], 60);
	/* Release: body before header, as a producer does. */
	hsaqm_store_release(&a->ring[0].u32[0], 7u);
	sim_hwq_doorbell(a->hwq, 0);
}

static void test_queue_error_is_written_into_the_amd_queue_inactive_signal_before_the_callback(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct sim_signal *s_ok, *s_retiring, *s_other;
	struct amdq ok, retiring, no_offset, not_a_signal;
	int dummy;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	s_ok = sim_signal_create(sim, 0);
	s_retiring = sim_signal_create(sim, INT64_MIN);
	s_other = sim_signal_create(sim, 0);
	amdq_create(sim, &ok, 128, t_handle(s_ok));
	/* The runtime already stored its retire mark (ROCr: the queue is being destroyed). */
	amdq_create(sim, &retiring, 128, t_handle(s_retiring));
	/* Not ROCr's layout (the CP finds no amd_queue_t): a valid signal that must stay 0. */
	amdq_create(sim, &no_offset, 0, t_handle(s_other));
	/* A handle that is no signal at all: nothing written, nothing crashes. */
	amdq_create(sim, &not_a_signal, 128, (uint64_t)(uintptr_t)&dummy);
	hsaqm_sim_run_until_idle(sim, T_S);

	amdq_submit_bad(&ok);
	amdq_submit_bad(&retiring);
	amdq_submit_bad(&no_offset);
	amdq_submit_bad(&not_a_signal);
	hsaqm_sim_run_until_idle(sim, T_S);

	CU_ASSERT_EQUAL(ok.calls, 1);
	CU_ASSERT_EQUAL(sim_signal_load(s_ok), T_ST_INVALID_PACKET_FORMAT);
	CU_ASSERT_EQUAL(ok.seen_in_callback, T_ST_INVALID_PACKET_FORMAT); /* stored first */
	CU_ASSERT_EQUAL(retiring.calls, 1);
	CU_ASSERT_EQUAL(sim_signal_load(s_retiring), INT64_MIN); /* a CAS from 0 */
	CU_ASSERT_EQUAL(no_offset.calls, 1);
	CU_ASSERT_EQUAL(sim_signal_load(s_other), 0);
	CU_ASSERT_EQUAL(not_a_signal.calls, 1);
	CU_ASSERT_EQUAL(sim_hwq_destroy(ok.hwq), 0);
	CU_ASSERT_EQUAL(sim_hwq_destroy(retiring.hwq), 0);
	CU_ASSERT_EQUAL(sim_hwq_destroy(no_offset.hwq), 0);
	CU_ASSERT_EQUAL(sim_hwq_destroy(not_a_signal.hwq), 0);
	hsaqm_sim_destroy(sim);
}

static const struct t_case cases[] = {
	T_CASE(test_dispatch_runs_grid_over_wg_rounded_up_workgroups),
	T_CASE(test_large_grid_runs_in_rounds_each_workgroup_once),
	T_CASE(test_barrier_bit_waits_for_earlier_packets_to_complete),
	T_CASE(test_no_barrier_bit_lets_kernels_overlap),
	T_CASE(test_barrier_and_waits_for_every_dependency_zero_handle_satisfied),
	T_CASE(test_barrier_or_any_dependency_zero_handle_unsatisfied),
	T_CASE(test_barrier_value_each_condition_with_mask),
	T_CASE(test_completion_signal_decremented_once_per_packet_after_callbacks),
	T_CASE(test_read_index_advances_at_consume_not_at_completion),
	T_CASE(test_invalid_header_stops_processing_until_published_and_doorbell),
	T_CASE(test_later_packets_never_launch_before_earlier_ones),
	T_CASE(test_launch_slots_limit_inflight_dispatches),
	T_CASE(test_each_malformed_packet_errors_its_queue_and_other_queue_runs_on),
	T_CASE(test_unknown_kernel_object_is_invalid_code_object),
	T_CASE(test_producer_overrunning_the_ring_errors_the_queue),
	T_CASE(test_write_index_beyond_the_ring_is_not_an_overrun),
	T_CASE(test_queue_error_is_written_into_the_amd_queue_inactive_signal_before_the_callback),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-aql", NULL, NULL, cases }, T_SUITES_END };
	return t_run("test-sim-aql", suites);
}
