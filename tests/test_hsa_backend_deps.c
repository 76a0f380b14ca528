/* SPDX-License-Identifier: MIT */
/*
 * Dependencies through the HSA backend on the device model (docs/hsa-backend.md
 * "Dependencies"): HIP's cross-stream wait (a barrier-AND on a completion signal of a lower
 * queue's packet) completes at Lv1, Lv2 and Lv3 in both submission orders, the lower queue
 * running only up to that packet first; a wait on a signal only the host sets, as a
 * barrier-AND or as AMD's barrier-value (hipStreamWaitValue), stops holding the lower queue
 * once the bound has passed, and completes when the host sets it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsa_backend_internal.h"
#include "t_cunit.h"
#include "t_hsa.h"

enum { Q_LOW = 0, Q_HIGH = 1 };

/* One kernel's record: which queue, which of its kernels; the order kernels finished in. */
struct drec {
	uint32_t q;
	uint32_t k;
};

#define ORDER_MAX 64
static struct drec g_order[ORDER_MAX];
static uint32_t g_norder;

static void record_wg(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	const struct drec *r = kernarg;
	/* acq_rel: the slot is taken once; the test reads g_order after the model stopped. */
	uint32_t at = hsaqm_fetch_add(&g_norder, 1u);

	(void)arg, (void)dispatch_id, (void)wg;
	if (at < ORDER_MAX)
		g_order[at] = *r;
}

/* Where in the finish order kernel @k of queue @q is; ORDER_MAX when it never ran. */
static uint32_t finished_at(uint32_t q, uint32_t k)
{
	uint32_t n = hsaqm_load_acquire(&g_norder);

	for (uint32_t i = 0; i < n && i < ORDER_MAX; i++)
		if (g_order[i].q == q && g_order[i].k == k)
			return i;
	return ORDER_MAX;
}

static void print_order(const char *why)
{
	uint32_t n = hsaqm_load_acquire(&g_norder);

	printf("\n  %s; kernels finished in this order:", why);
	for (uint32_t i = 0; i < n && i < ORDER_MAX; i++)
		printf(" %s%u", g_order[i].q == Q_LOW ? "L" : "H", g_order[i].k);
	printf("\n");
}

static struct hsaqm_xq_deps deps_of(struct t_app *a)
{
	struct hsaqm_xq_deps d;

	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL(hsaqm_xq_get_deps(hsaqm_hsa_proxy_xq(a->proxy), &d), 0);
	return d;
}

static void put(struct t_app *a, const union hsaqm_aql_packet *pk)
{
	CU_ASSERT_EQUAL(hsaqm_ring_submit(&a->ring, pk, 1, 0), 0);
}

static void put_kernel(struct t_app *a, uint64_t kobj, struct drec *r, struct hsaqm_hsa_signal cs)
{
	union hsaqm_aql_packet pk = t_hsa_dispatch(kobj, 1, cs.handle, true, r);

	put(a, &pk);
}

static void put_wait_and(struct t_app *a, struct hsaqm_hsa_signal on)
{
	union hsaqm_aql_packet pk;
	struct hsaqm_aql_barrier_desc d = { .dep_signals = &on.handle, .num_deps = 1, .barrier = true,
					    .acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
					    .release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM };

	CU_ASSERT_EQUAL(hsaqm_aql_barrier_and_build(&pk, &d), 0);
	put(a, &pk);
}

/* hipStreamWaitValue32(ptr, 7, hipStreamWaitValueEq): AMD's barrier-value on a signal. */
static void put_wait_value(struct t_app *a, struct hsaqm_hsa_signal on)
{
	union hsaqm_aql_packet pk;
	struct hsaqm_aql_barrier_value_desc d = { .signal = on.handle, .value = 7, .mask = -1,
						  .cond = HSAQM_AQL_COND_EQ, .barrier = true,
						  .acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
						  .release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM };

	CU_ASSERT_EQUAL(hsaqm_aql_barrier_value_build(&pk, &d), 0);
	put(a, &pk);
}

static bool open_level(struct t_hsa *h, enum hsaqm_level level, enum hsaqm_sim_time_mode mode)
{
	g_norder = 0;
	if (t_hsa_open(h, mode, 1))
		return false;
	if (level == HSAQM_LEVEL_3)
		return t_hsa_lv3_setup(h) == 0 && t_hsa_runtime(h, hsaqm_kfd_transport_default()) == 0;
	return t_hsa_runtime(h, NULL) == 0;
}

/*
 * The hang of issue 24: high waits on low's packet 1 (its completion signal), while high is
 * busy (high first) or low has a backlog on the hardware (low first).
 */
static void wait_on_lower_queue(enum hsaqm_level level, bool low_first)
{
	struct hsaqm_xq_config lcfg = { .level = level, .priority = 2, .name = "low" };
	struct hsaqm_xq_config hcfg = { .level = level, .priority = 12, .name = "high" };
	struct drec lrec[4], hrec[3];
	struct hsaqm_hsa_signal lcs[4], hcs;
	struct t_app lo, hi;
	struct t_hsa h;
	uint64_t klo, khi;
	int rc;

	CU_ASSERT_FATAL(open_level(&h, level, HSAQM_SIM_TIME_VIRTUAL));
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &lcfg, &lo), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &hcfg, &hi), 0);
	klo = t_hsa_kernel(&h, "low", 500 * T_US, 4, record_wg);
	khi = t_hsa_kernel(&h, "high", 200 * T_US, 4, record_wg);
	hcs = t_hsa_signal(&h, 3);
	for (uint32_t i = 0; i < 4; i++) {
		lrec[i] = (struct drec){ Q_LOW, i };
		lcs[i] = t_hsa_signal(&h, 1);
	}
	for (uint32_t i = 0; i < 3; i++)
		hrec[i] = (struct drec){ Q_HIGH, i };
	if (low_first) {
		for (uint32_t i = 0; i < 4; i++)
			put_kernel(&lo, klo, &lrec[i], lcs[i]);
		put_kernel(&hi, khi, &hrec[0], hcs);
		put_kernel(&hi, khi, &hrec[1], hcs);
	} else {
		put_kernel(&hi, khi, &hrec[0], hcs);
		put_kernel(&hi, khi, &hrec[1], hcs);
		for (uint32_t i = 0; i < 4; i++)
			put_kernel(&lo, klo, &lrec[i], lcs[i]);
	}
	/* hipStreamWaitEvent(high, event recorded after low's kernel 1), then a kernel. */
	put_wait_and(&hi, lcs[1]);
	put_kernel(&hi, khi, &hrec[2], hcs);

	rc = hsaqm_sim_run_until_idle(h.sim, 2 * T_S);
	if (rc)
		print_order(low_first ? "low first: did not complete" : "high first: did not complete");
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(hcs), 0);
	for (uint32_t i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(lcs[i]), 0);
	/* Every kernel exactly once (one workgroup each). */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_norder), 7);
	CU_ASSERT_EQUAL(deps_of(&hi).waits, 1);
	CU_ASSERT_EQUAL(deps_of(&lo).inherited, 1);
	CU_ASSERT_EQUAL(deps_of(&hi).stalls, 0);
	/* High first: low's backlog was held whole, so only what high needed ran before it. */
	if (!low_first) {
		bool ok = finished_at(Q_HIGH, 2) < finished_at(Q_LOW, 2) &&
			  finished_at(Q_LOW, 1) < finished_at(Q_HIGH, 2);

		if (!ok)
			print_order("high first: low ran past the packet high needed");
		CU_ASSERT(ok);
	}
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(hi.proxy), 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(lo.proxy), 0);
	t_hsa_close(&h);
}

static void test_a_wait_on_a_held_lower_queue_completes_at_lv1_high_first(void)
{
	wait_on_lower_queue(HSAQM_LEVEL_1, false);
}

static void test_a_wait_on_a_held_lower_queue_completes_at_lv2_high_first(void)
{
	wait_on_lower_queue(HSAQM_LEVEL_2, false);
}

static void test_a_wait_on_a_held_lower_queue_completes_at_lv3_high_first(void)
{
	wait_on_lower_queue(HSAQM_LEVEL_3, false);
}

static void test_a_wait_on_a_held_lower_queue_completes_at_lv2_low_first(void)
{
	wait_on_lower_queue(HSAQM_LEVEL_2, true);
}

static void test_a_wait_on_a_held_lower_queue_completes_at_lv3_low_first(void)
{
	wait_on_lower_queue(HSAQM_LEVEL_3, true);
}

/*
 * High waits on a signal only the host sets (a barrier-AND on it, or hipStreamWaitValue's
 * barrier-value). Lib's timer runs in real time and the model in virtual time, so the test
 * moves the model in small steps while the bound (1 ms of real time) passes: low runs to the
 * end with high still waiting, high is counted stalled once, and completes when the host
 * sets the signal.
 */
static void wait_on_the_host(bool value_packet)
{
	struct hsaqm_xq_config lcfg = { .level = HSAQM_LEVEL_2, .priority = 2, .name = "low" };
	struct hsaqm_xq_config hcfg = { .level = HSAQM_LEVEL_2, .priority = 12, .name = "high" };
	struct drec lrec[3], hrec;
	struct hsaqm_hsa_signal lcs, hcs, host;
	struct t_app lo, hi;
	struct t_hsa h;
	uint64_t klo, khi, until;

	CU_ASSERT_FATAL(open_level(&h, HSAQM_LEVEL_2, HSAQM_SIM_TIME_VIRTUAL));
	CU_ASSERT_EQUAL(hsaqm_ctx_set_dep_bound(h.ctx, 1 * T_MS), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &lcfg, &lo), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &hcfg, &hi), 0);
	klo = t_hsa_kernel(&h, "low", 300 * T_US, 4, record_wg);
	khi = t_hsa_kernel(&h, "high", 100 * T_US, 4, record_wg);
	lcs = t_hsa_signal(&h, 3);
	hcs = t_hsa_signal(&h, 1);
	host = t_hsa_signal(&h, value_packet ? 0 : 1);
	hrec = (struct drec){ Q_HIGH, 0 };
	if (value_packet)
		put_wait_value(&hi, host);
	else
		put_wait_and(&hi, host);
	put_kernel(&hi, khi, &hrec, hcs);
	for (uint32_t i = 0; i < 3; i++) {
		lrec[i] = (struct drec){ Q_LOW, i };
		put_kernel(&lo, klo, &lrec[i], lcs);
	}
	/* Low is held behind high's demand until the bound passes; then it runs to the end. */
	until = t_mono_ns() + 20 * T_S;
	while (h.core->hsa_signal_load_scacquire_fn(lcs) != 0 && t_mono_ns() < until) {
		hsaqm_sim_advance(h.sim, 100 * T_US);
		t_sleep_us(200);
	}
	if (h.core->hsa_signal_load_scacquire_fn(lcs) != 0)
		print_order("low never ran past the bound");
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(lcs), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(hcs), 1);
	CU_ASSERT(T_UNTIL(deps_of(&hi).stalls >= 1, 5 * T_S));
	CU_ASSERT_EQUAL(deps_of(&hi).stalls, 1);
	CU_ASSERT_EQUAL(deps_of(&lo).inherited, 0);
	/* The host sets it: high completes, and counts as demand again once idle. */
	h.core->hsa_signal_store_screlease_fn(host, value_packet ? 7 : 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 2 * T_S), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(hcs), 0);
	CU_ASSERT(T_UNTIL(deps_of(&hi).stalled == 0, 5 * T_S));
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_norder), 4);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(hi.proxy), 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(lo.proxy), 0);
	t_hsa_close(&h);
}

static void test_a_barrier_on_a_host_signal_stops_holding_lower_queues_after_the_bound(void)
{
	wait_on_the_host(false);
}

static void test_a_barrier_value_on_host_memory_stops_holding_lower_queues_after_the_bound(void)
{
	wait_on_the_host(true);
}

static const struct t_case cases[] = {
	T_CASE(test_a_wait_on_a_held_lower_queue_completes_at_lv1_high_first),
	T_CASE(test_a_wait_on_a_held_lower_queue_completes_at_lv2_high_first),
	T_CASE(test_a_wait_on_a_held_lower_queue_completes_at_lv3_high_first),
	T_CASE(test_a_wait_on_a_held_lower_queue_completes_at_lv2_low_first),
	T_CASE(test_a_wait_on_a_held_lower_queue_completes_at_lv3_low_first),
	T_CASE(test_a_barrier_on_a_host_signal_stops_holding_lower_queues_after_the_bound),
	T_CASE(test_a_barrier_value_on_host_memory_stops_holding_lower_queues_after_the_bound),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "hsa-backend-deps", NULL, NULL, cases },
		T_SUITES_END,
	};
	return t_run("test-hsa-backend-deps", suites);
}
