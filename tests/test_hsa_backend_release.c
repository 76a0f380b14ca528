/* SPDX-License-Identifier: MIT */
/*
 * What the HSA backend's release() writes to the hardware ring: guardians (and the barrier bit
 * they take) and markers where the library says, a closed Lv2 gate stopping the packet
 * processor at the guardian in front of it, the Lv1 in-flight bound, -EAGAIN on a full
 * hardware ring, and a malformed packet reaching the application's callback.
 *
 * In virtual time (deterministic, no engine threads), on the device model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsa_backend_internal.h"
#include "hsaqm-kfd/kfd_lv3.h"
#include "t_cunit.h"
#include "t_hsa.h"
#include "t_hsa_backend.h"

/* ---- The release hook: what each hardware slot holds --------------------------------------- */

#define LAYOUT_MAX 4096
static uint8_t g_kind[LAYOUT_MAX];
static uint64_t g_app_index[LAYOUT_MAX];
static uint64_t g_layout_end;
static struct hsaqm_hsa_proxy *g_layout_proxy;
static uint64_t g_lv1_threshold;
static unsigned int g_lv1_violations;

static void record_layout(struct hsaqm_hsa_proxy *p, uint64_t first, uint32_t n,
			  const uint8_t *kinds, const uint64_t *app_index)
{
	if (p != g_layout_proxy)
		return;
	for (uint32_t i = 0; i < n && first + i < LAYOUT_MAX; i++) {
		g_kind[first + i] = kinds[i];
		g_app_index[first + i] = app_index[i];
	}
	g_layout_end = first + n;
	if (g_lv1_threshold) {
		/*
		 * Under lib's device lock, after this release: what went to the hardware minus
		 * the kernels that really finished (never fewer than markers proved). Acquire:
		 * pairs with t_count_wg's add, made by whichever thread runs the model's engine.
		 */
		uint64_t done = hsaqm_load_acquire(&t_kernels_done[0]);

		if (p->released - done > g_lv1_threshold)
			g_lv1_violations++;
	}
}

static void layout_reset(struct hsaqm_hsa_proxy *p)
{
	memset(g_kind, 0xff, sizeof(g_kind));
	g_layout_end = 0;
	g_layout_proxy = p;
	HSAQM_WRITE_ONCE(hsaqm_hsa_release_hook, record_layout);
}

static void layout_stop(void)
{
	HSAQM_WRITE_ONCE(hsaqm_hsa_release_hook, NULL);
	g_layout_proxy = NULL;
	g_lv1_threshold = 0;
}

static const union hsaqm_aql_packet *hw_slot(struct t_app *a, uint64_t i)
{
	const struct hsaqm_hsa_queue *hw = hsaqm_hsa_proxy_hw_queue(a->proxy);

	return &((const union hsaqm_aql_packet *)hw->base_address)[i & (hw->size - 1)];
}

static uint64_t hw_read_index(struct t_app *a)
{
	const struct hsaqm_amd_queue *hw = (const void *)hsaqm_hsa_proxy_hw_queue(a->proxy);

	/* Acquire: pairs with the packet processor's release of the read index (sim/pp.c). */
	return hsaqm_load_acquire(&hw->read_dispatch_id);
}

static void check_guardian(const union hsaqm_aql_packet *s, uint64_t gate, bool barrier)
{
	struct hsaqm_aql_header hd;

	CU_ASSERT_EQUAL(hsaqm_aql_header_decode(s->barrier.header, &hd), 0);
	CU_ASSERT_EQUAL(hd.type, HSAQM_AQL_TYPE_BARRIER_AND);
	CU_ASSERT_EQUAL(hd.barrier, barrier);
	CU_ASSERT_EQUAL(s->barrier.dep_signal[0], gate);
	for (int i = 1; i < 5; i++)
		CU_ASSERT_EQUAL(s->barrier.dep_signal[i], 0);
	CU_ASSERT_EQUAL(s->barrier.completion_signal, 0);
}

static void test_release_writes_guardians_and_a_marker_where_lib_says(void)
{
	struct t_hsa h;
	struct t_app a;
	struct t_krec recs[10] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .lv2_interval = 2 };
	struct hsaqm_hsa_signal cs;
	uint64_t k, gate;
	static const uint8_t want[] = { 1, 0, 0, 1, 0, 0, 1, 0, 2 };
	struct hsaqm_aql_header hd;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	gate = a.proxy->gate.handle;
	k = t_kernel(&h, 10 * T_US, 1);
	cs = t_hsa_signal(&h, 10);
	layout_reset(a.proxy);
	t_submit(&a, k, 5, cs, false, recs, 0);
	/* Virtual time has not moved: the hardware ring is as release() wrote it. */
	CU_ASSERT_EQUAL(g_layout_end, sizeof(want));
	for (uint64_t i = 0; i < sizeof(want); i++) {
		const union hsaqm_aql_packet *s = hw_slot(&a, i);

		CU_ASSERT_EQUAL(g_kind[i], want[i]);
		if (want[i] == HSAQM_HSA_SLOT_GUARD)
			check_guardian(s, gate, false);
		if (want[i] == HSAQM_HSA_SLOT_APP) {
			CU_ASSERT_EQUAL(s->dispatch.kernarg_address,
					(uint64_t)(uintptr_t)&recs[g_app_index[i]]);
			CU_ASSERT_EQUAL(s->dispatch.kernel_object, k);
		}
	}
	const union hsaqm_aql_packet *m = hw_slot(&a, 8);
	CU_ASSERT_EQUAL(hsaqm_aql_header_decode(m->barrier.header, &hd), 0);
	CU_ASSERT_EQUAL(hd.type, HSAQM_AQL_TYPE_BARRIER_AND);
	CU_ASSERT_TRUE(hd.barrier);
	CU_ASSERT_EQUAL(m->barrier.completion_signal, a.proxy->mslot->signal.handle);
	/* The proxy slots are free again: INVALID, read index past them. */
	CU_ASSERT_EQUAL(((const struct hsaqm_amd_queue *)a.q)->read_dispatch_id, 5);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(hsaqm_ring_slot(&a.ring, (uint64_t)i)->u32[0],
				HSAQM_AQL_INVALID_WORD);
	/* Barrier-bit packets: their guardian takes the bit; lib's rhythm goes on (1 more). */
	t_submit(&a, k, 2, cs, true, recs + 5, 0);
	CU_ASSERT_EQUAL(g_layout_end, 9 + 3);
	CU_ASSERT_EQUAL(g_kind[9], HSAQM_HSA_SLOT_APP); /* offset 5: the rhythm needs none yet */
	CU_ASSERT_EQUAL(g_kind[10], HSAQM_HSA_SLOT_GUARD);
	check_guardian(hw_slot(&a, 10), gate, true);
	CU_ASSERT_EQUAL(g_kind[11], HSAQM_HSA_SLOT_APP);
	CU_ASSERT_EQUAL(a.proxy->guards_written, 4);
	struct hsaqm_xq_stats st;
	CU_ASSERT_EQUAL(hsaqm_xq_get_stats(hsaqm_hsa_proxy_xq(a.proxy), &st), 0);
	CU_ASSERT_EQUAL(st.guardians, 4);
	layout_stop();
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_MS), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 3);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).completed, 7);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).state, HSAQM_XQ_IDLE);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

/*
 * After the gate closes, no kernel launches past the first guardian the packet processor had
 * not passed at that moment; reopening lets everything run, each kernel once.
 */
static void gate_case(bool barrier)
{
	struct t_hsa h;
	struct t_app a;
	struct t_krec recs[20] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .lv2_interval = 1 };
	struct hsaqm_hsa_signal cs;
	struct sim_hwq_info hi;
	struct sim_hwq *hwq;
	uint64_t k, rd1, rd_end, g_first = UINT64_MAX, launched_at_close;

	memset(t_kernels_done, 0, sizeof(t_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	hwq = t_hsa_sim_hwq(&h, hsaqm_hsa_proxy_hw_queue(a.proxy));
	CU_ASSERT_PTR_NOT_NULL_FATAL(hwq);
	k = t_kernel(&h, 100 * T_US, 1);
	cs = t_hsa_signal(&h, 20);
	layout_reset(a.proxy);
	t_submit(&a, k, 20, cs, barrier, recs, 0);
	CU_ASSERT_EQUAL(g_layout_end, 41); /* G K x 20, M */
	CU_ASSERT_EQUAL(hsaqm_sim_advance(h.sim, 150 * T_US), 0);
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(hsaqm_hsa_proxy_xq(a.proxy)), 0); /* gate closes */
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(a.proxy->gate), 1);
	rd1 = hw_read_index(&a);
	sim_hwq_get_info(hwq, &hi);
	launched_at_close = hi.dispatches_launched;
	for (uint64_t i = rd1; i < g_layout_end; i++) {
		if (g_kind[i] == HSAQM_HSA_SLOT_GUARD) {
			g_first = i;
			break;
		}
	}
	CU_ASSERT_FATAL(g_first != UINT64_MAX);
	/* The queue then blocks in a guardian: not idle. */
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 20 * T_MS), -ETIMEDOUT);
	rd_end = hw_read_index(&a);
	CU_ASSERT_EQUAL(rd_end, g_first);
	CU_ASSERT_EQUAL(g_kind[rd_end], HSAQM_HSA_SLOT_GUARD);
	sim_hwq_get_info(hwq, &hi);
	/* Kernels launched after the close: only those between rd1 and that guardian. */
	uint64_t between = 0;
	for (uint64_t i = rd1; i < g_first; i++)
		between += g_kind[i] == HSAQM_HSA_SLOT_APP;
	CU_ASSERT_EQUAL(hi.dispatches_launched - launched_at_close, between);
	CU_ASSERT(between <= 1);
	if (barrier) {
		/* The guardian waited for the running kernel: nothing launched after the close. */
		CU_ASSERT_EQUAL(between, 0);
	}
	/* Acquire: pairs with t_count_wg's add (the engine ran on this thread: virtual time). */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&t_kernels_done[0]), hi.dispatches_launched);
	CU_ASSERT(hsaqm_load_acquire(&t_kernels_done[0]) < 20);
	/* Reopen: the rest runs, every kernel exactly once. */
	CU_ASSERT_EQUAL(hsaqm_xq_resume(hsaqm_hsa_proxy_xq(a.proxy)), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(a.proxy->gate), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_MS), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&t_kernels_done[0]), 20); /* pairs with t_count_wg's add */
	for (int i = 0; i < 20; i++)
		CU_ASSERT_EQUAL(recs[i].done_wgs, 1);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).state, HSAQM_XQ_IDLE);
	layout_stop();
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

static void test_closed_gate_stops_kernels_at_the_next_guardian(void)
{
	gate_case(false);
}

static void test_closed_gate_stops_barrier_kernels_before_the_next_kernel(void)
{
	gate_case(true);
}

static void test_lv1_never_has_more_than_threshold_in_flight(void)
{
	struct t_hsa h;
	struct t_app a;
	struct t_krec recs[60] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_1, .lv1_threshold = 4, .lv1_batch = 2 };
	struct hsaqm_hsa_signal cs;
	uint64_t k;

	memset(t_kernels_done, 0, sizeof(t_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	k = t_kernel(&h, 20 * T_US, 1);
	cs = t_hsa_signal(&h, 60);
	layout_reset(a.proxy);
	g_lv1_threshold = 4;
	g_lv1_violations = 0;
	t_submit(&a, k, 60, cs, false, recs, 0);
	CU_ASSERT_EQUAL(a.proxy->released, 4); /* the threshold, at once */
	CU_ASSERT_EQUAL(t_app_xinfo(&a).submitted, 60);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_MS), 0);
	CU_ASSERT_EQUAL(g_lv1_violations, 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	/* Acquire: pairs with t_count_wg's add, made while this thread ran the model. */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&t_kernels_done[0]), 60);
	CU_ASSERT(a.proxy->mk_written >= 60 / 2);
	layout_stop();
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

static void test_full_hardware_ring_gives_eagain_and_lib_releases_less(void)
{
	struct t_hsa h;
	struct t_app a;
	struct t_krec recs[64] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .lv2_interval = 1 };
	struct hsaqm_hsa_signal cs;
	struct hsaqm_release rel = { .first = 0, .n = 64, .flags = HSAQM_RELEASE_GUARDED,
				     .guard_interval = 1 };
	uint64_t k;

	memset(t_kernels_done, 0, sizeof(t_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_hw_queue(a.proxy)->size, 128);
	k = t_kernel(&h, 5 * T_US, 1);
	cs = t_hsa_signal(&h, 64);
	/* Hold it by hand first, so lib keeps the 64 packets and the backend sees them whole. */
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(hsaqm_hsa_proxy_xq(a.proxy)), 0);
	t_submit(&a, k, 64, cs, false, recs, 0);
	CU_ASSERT_EQUAL(a.proxy->released, 0);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).submitted, 64);
	/* 64 packets + 64 guardians + a marker: more than the 128 slots. */
	rel.flags |= HSAQM_RELEASE_MARKER;
	rel.marker_seq = 1;
	/* The backend alone (not through lib): nothing written on -EAGAIN. */
	uint64_t w0 = ((const struct hsaqm_amd_queue *)hsaqm_hsa_proxy_hw_queue(a.proxy))
			      ->write_dispatch_id;
	CU_ASSERT_EQUAL(hsaqm_hsa_backend_ops.release(a.proxy, &rel), -EAGAIN);
	CU_ASSERT_EQUAL(((const struct hsaqm_amd_queue *)hsaqm_hsa_proxy_hw_queue(a.proxy))
				->write_dispatch_id, w0);
	CU_ASSERT_EQUAL(a.proxy->released, 0);
	CU_ASSERT_EQUAL(a.proxy->mk_written, 0);
	/* Through lib: it halves until it fits, and the rest follows as markers complete. */
	CU_ASSERT_EQUAL(hsaqm_xq_resume(hsaqm_hsa_proxy_xq(a.proxy)), 0);
	CU_ASSERT(a.proxy->released < 64);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_MS), 0);
	CU_ASSERT_EQUAL(a.proxy->released, 64);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&t_kernels_done[0]), 64); /* pairs with t_count_wg's add */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

static hsaqm_hsa_status_t g_cb_status;
static const struct hsaqm_hsa_queue *g_cb_queue;
static int g_cb_calls;

static void app_error_cb(hsaqm_hsa_status_t status, struct hsaqm_hsa_queue *source, void *data)
{
	(void)data;
	g_cb_status = status;
	g_cb_queue = source;
	g_cb_calls++;
}

static void test_malformed_packet_reaches_the_application_callback_with_its_queue(void)
{
	struct t_hsa h;
	struct hsaqm_hsa_proxy_config cfg = { .size = 64, .type = HSAQM_HSA_QUEUE_TYPE_MULTI,
					      .callback = app_error_cb, .xq = t_lv2 };
	struct hsaqm_hsa_proxy *p = NULL;
	struct t_app a;
	union hsaqm_aql_packet bad;
	uint64_t idx;

	g_cb_calls = 0;
	CU_ASSERT_EQUAL_FATAL(t_hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, NULL), 0);
	cfg.agent = h.gpu[0];
	CU_ASSERT_EQUAL_FATAL(hsaqm_hsa_proxy_create(&h.rt, h.ctx, &cfg, &p), 0);
	CU_ASSERT_EQUAL_FATAL(t_app_init(&a, p), 0);
	memset(&bad, 0, sizeof(bad));
	bad.u32[0] = 7; /* a reserved packet type */
	CU_ASSERT_EQUAL(hsaqm_ring_reserve(&a.ring, 1, 0, &idx), 0);
	memcpy(&hsaqm_ring_slot(&a.ring, idx)->bytes[4], &bad.bytes[4], 60);
	/* Release: the body copied above before its header; the proxy's scan acquires it. */
	hsaqm_store_release(&hsaqm_ring_slot(&a.ring, idx)->u32[0], bad.u32[0]);
	hsaqm_hsa_proxy_doorbell(p, (hsaqm_hsa_signal_value_t)idx);
	CU_ASSERT_EQUAL(p->released, 1); /* passed on as it is: the hardware judges it */
	hsaqm_sim_run_until_idle(h.sim, 10 * T_MS);
	CU_ASSERT_EQUAL(g_cb_calls, 1);
	CU_ASSERT_EQUAL(g_cb_status, HSAQM_HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
	CU_ASSERT_PTR_EQUAL(g_cb_queue, a.q); /* the application's queue, not ours */
	CU_ASSERT_NOT_EQUAL(p->hw_error, 0);
	/* Destroy does not wait for a queue that will never run again. */
	uint64_t t0 = t_mono_ns();
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(p), 0);
	CU_ASSERT(t_mono_ns() - t0 < T_S);
	t_hsa_close(&h);
}

static const struct t_case cases[] = {
	T_CASE(test_release_writes_guardians_and_a_marker_where_lib_says),
	T_CASE(test_closed_gate_stops_kernels_at_the_next_guardian),
	T_CASE(test_closed_gate_stops_barrier_kernels_before_the_next_kernel),
	T_CASE(test_lv1_never_has_more_than_threshold_in_flight),
	T_CASE(test_full_hardware_ring_gives_eagain_and_lib_releases_less),
	T_CASE(test_malformed_packet_reaches_the_application_callback_with_its_queue),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsa-backend-release", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("hsa-backend-release", suites);
}
