/* SPDX-License-Identifier: MIT */
/*
 * The HSA backend's proxies: the runtime table it takes (and the bad ones it refuses), the status
 * and errno maps, the proxy as a full amd_queue_t mirroring its hardware queue, its size checked
 * as the runtime checks it, the lookups (live proxies only, no foreign pointer read), the
 * doorbell scan (valid headers, not the doorbell value), a tool-style wrapped signal store, and
 * a proxy whose context went first.
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

/* ---- Runtime ------------------------------------------------------------------------------- */

static void test_runtime_init_takes_the_face_table_and_refuses_bad_ones(void)
{
	struct t_hsa h;
	struct hsaqm_hsa_runtime rt;
	uint64_t junk[16] = { 0 };

	CU_ASSERT_EQUAL_FATAL(t_hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1), 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_runtime_init(&rt, h.root, 3, NULL), 0);
	CU_ASSERT_EQUAL(rt.layout.id, HSAQM_API_LAYOUT_ROCM_6_1);
	CU_ASSERT_PTR_EQUAL(rt.queue_create, h.core->hsa_queue_create_fn);
	CU_ASSERT_PTR_EQUAL(rt.signal_store_screlease, h.core->hsa_signal_store_screlease_fn);
	CU_ASSERT_PTR_EQUAL(rt.amd_queue_set_priority, h.amd->hsa_amd_queue_set_priority_fn);
	CU_ASSERT_PTR_EQUAL(rt.amd_queue_get_info, h.amd->hsa_amd_queue_get_info_fn);
	CU_ASSERT_PTR_NOT_NULL(rt.priv);
	hsaqm_hsa_runtime_fini(&rt);
	CU_ASSERT_PTR_NULL(rt.priv);
	hsaqm_hsa_runtime_fini(&rt); /* twice: a no-op */
	hsaqm_hsa_runtime_fini(NULL);
	CU_ASSERT_EQUAL(hsaqm_hsa_runtime_init(NULL, h.root, 3, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_hsa_runtime_init(&rt, NULL, 3, NULL), -EINVAL);
	junk[0] = 9; /* root major 9: no layout hsaqm knows */
	junk[1] = 48;
	CU_ASSERT_EQUAL(hsaqm_hsa_runtime_init(&rt, junk, 9, NULL), -ENOTSUP);
	t_hsa_close(&h);
}

static void test_status_and_errno_map_both_ways(void)
{
	static const hsaqm_hsa_status_t st[] = {
		HSAQM_HSA_STATUS_SUCCESS, HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES,
		HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT,
		HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE_CREATION,
		HSAQM_HSA_STATUS_ERROR_INVALID_AGENT, HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE,
		HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL, HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED,
	};

	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		CU_ASSERT_EQUAL(hsaqm_hsa_status_from_errno(hsaqm_hsa_errno_from_status(st[i])),
				st[i]);
	CU_ASSERT_EQUAL(hsaqm_hsa_errno_from_status(HSAQM_HSA_STATUS_ERROR_FATAL), -EIO);
	CU_ASSERT_EQUAL(hsaqm_hsa_status_from_errno(-EIO), HSAQM_HSA_STATUS_ERROR);
	CU_ASSERT_EQUAL(hsaqm_hsa_status_from_errno(-ETIMEDOUT), HSAQM_HSA_STATUS_ERROR);
}

static void test_proxy_is_a_full_amd_queue_mirroring_the_hardware_queue(void)
{
	struct t_hsa h;
	struct t_app a;
	const struct hsaqm_amd_queue *pa, *ha;
	const struct hsaqm_hsa_queue *pq, *hq;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 256, &t_lv2, &a), 0);
	pq = hsaqm_hsa_proxy_queue(a.proxy);
	hq = hsaqm_hsa_proxy_hw_queue(a.proxy);
	pa = (const void *)pq;
	ha = (const void *)hq;
	CU_ASSERT_PTR_NOT_EQUAL(pq, hq);
	CU_ASSERT_EQUAL((uintptr_t)pq % 64, 0);
	/* What makes it the proxy. */
	CU_ASSERT_EQUAL(pq->size, 256);
	CU_ASSERT_EQUAL(hq->size, 512); /* twice: room for guardians and markers */
	CU_ASSERT_PTR_NOT_EQUAL(pq->base_address, hq->base_address);
	CU_ASSERT_NOT_EQUAL(pq->doorbell_signal.handle, hq->doorbell_signal.handle);
	CU_ASSERT_NOT_EQUAL(pq->doorbell_signal.handle, 0);
	CU_ASSERT_EQUAL(pq->type, HSAQM_HSA_QUEUE_TYPE_MULTI);
	CU_ASSERT_EQUAL(pa->write_dispatch_id, 0);
	CU_ASSERT_EQUAL(pa->read_dispatch_id, 0);
	for (uint32_t i = 0; i < pq->size; i++)
		CU_ASSERT_EQUAL(((const union hsaqm_aql_packet *)pq->base_address)[i].u32[0],
				HSAQM_AQL_INVALID_WORD);
	/* What clients read, as the hardware queue has it. */
	CU_ASSERT_EQUAL(pq->id, hq->id);
	CU_ASSERT_EQUAL(pq->features, hq->features);
	CU_ASSERT_EQUAL(pa->group_segment_aperture_base_hi, ha->group_segment_aperture_base_hi);
	CU_ASSERT_EQUAL(pa->private_segment_aperture_base_hi, ha->private_segment_aperture_base_hi);
	CU_ASSERT_NOT_EQUAL(pa->private_segment_aperture_base_hi, 0);
	CU_ASSERT_EQUAL(pa->max_cu_id, 79);
	CU_ASSERT_EQUAL(pa->max_wave_id, ha->max_wave_id);
	CU_ASSERT_EQUAL(pa->queue_properties, ha->queue_properties);
	CU_ASSERT_EQUAL(pa->read_dispatch_id_field_base_byte_offset, 128);
	CU_ASSERT_EQUAL(memcmp(pa->scratch_resource_descriptor, ha->scratch_resource_descriptor,
			       sizeof(pa->scratch_resource_descriptor)), 0);
	CU_ASSERT_EQUAL(pa->queue_inactive_signal.handle, ha->queue_inactive_signal.handle);
	/* The face's index functions work on it, as on any amd_queue_t. */
	CU_ASSERT_EQUAL(h.core->hsa_queue_add_write_index_screlease_fn(pq, 1), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_write_index_scacquire_fn(pq), 1);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	t_hsa_close(&h);
}

static void test_proxy_size_is_checked_as_the_runtime_checks_it(void)
{
	struct t_hsa h;
	struct t_app a;
	struct hsaqm_hsa_proxy_config cfg = { .type = HSAQM_HSA_QUEUE_TYPE_MULTI, .xq = t_lv2 };
	struct hsaqm_hsa_proxy *p = NULL;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, NULL), 0);
	cfg.agent = h.gpu[0];
	cfg.size = 0;
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_create(&h.rt, h.ctx, &cfg, &p), -EINVAL);
	cfg.size = 96;
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_create(&h.rt, h.ctx, &cfg, &p), -EINVAL);
	cfg.size = 32; /* below the agent's 64 */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_create(&h.rt, h.ctx, &cfg, &p), -EINVAL);
	cfg.size = 1u << 18; /* above the agent's 131072: the runtime's OUT_OF_RESOURCES */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_create(&h.rt, h.ctx, &cfg, &p), -ENOMEM);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_create(NULL, h.ctx, &cfg, &p), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_create(&h.rt, NULL, &cfg, &p), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_create(&h.rt, h.ctx, NULL, &p), -EINVAL);
	CU_ASSERT_PTR_NULL(p);
	/* The largest: the hardware ring is capped at the agent's maximum. */
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 131072, &t_lv2, &a), 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_hw_queue(a.proxy)->size, 131072);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(NULL), 0);
	t_hsa_close(&h);
}

static void test_lookups_find_live_proxies_only_and_never_read_foreign_pointers(void)
{
	struct t_hsa h;
	struct t_app a[4];
	struct hsaqm_hsa_signal other;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, NULL), 0);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &t_lv2, &a[i]), 0);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_PTR_EQUAL(hsaqm_hsa_proxy_from_queue(a[i].q), a[i].proxy);
		CU_ASSERT_PTR_EQUAL(hsaqm_hsa_proxy_from_doorbell(a[i].q->doorbell_signal),
				    a[i].proxy);
		CU_ASSERT_PTR_NULL(
			hsaqm_hsa_proxy_from_queue(hsaqm_hsa_proxy_hw_queue(a[i].proxy)));
		CU_ASSERT_PTR_NULL(hsaqm_hsa_proxy_from_doorbell(
			hsaqm_hsa_proxy_hw_queue(a[i].proxy)->doorbell_signal));
	}
	/* Unmapped addresses: reading them would crash, and they must not be read. */
	CU_ASSERT_PTR_NULL(hsaqm_hsa_proxy_from_queue((const void *)(uintptr_t)0x10));
	CU_ASSERT_PTR_NULL(hsaqm_hsa_proxy_from_queue((const void *)(uintptr_t)0xdead0000ull));
	CU_ASSERT_PTR_NULL(hsaqm_hsa_proxy_from_queue(NULL));
	CU_ASSERT_PTR_NULL(hsaqm_hsa_proxy_from_doorbell((struct hsaqm_hsa_signal){ 0 }));
	CU_ASSERT_PTR_NULL(hsaqm_hsa_proxy_from_doorbell((struct hsaqm_hsa_signal){ UINT64_MAX }));
	other = t_hsa_signal(&h, 0);
	CU_ASSERT_PTR_NULL(hsaqm_hsa_proxy_from_doorbell(other));
	h.core->hsa_signal_destroy_fn(other);
	const struct hsaqm_hsa_queue *gone = a[1].q;
	struct hsaqm_hsa_signal gone_db = a[1].q->doorbell_signal;
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a[1].proxy), 0);
	CU_ASSERT_PTR_NULL(hsaqm_hsa_proxy_from_queue(gone));
	CU_ASSERT_PTR_NULL(hsaqm_hsa_proxy_from_doorbell(gone_db));
	CU_ASSERT_PTR_EQUAL(hsaqm_hsa_proxy_from_queue(a[2].q), a[2].proxy);
	/* Churn: the sets stay exact through many creations and destructions. */
	for (int i = 0; i < 300; i++) {
		struct t_app c;

		CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &t_lv2, &c), 0);
		CU_ASSERT_PTR_EQUAL(hsaqm_hsa_proxy_from_queue(c.q), c.proxy);
		CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(c.proxy), 0);
	}
	for (int i = 0; i < 4; i++) {
		if (i == 1)
			continue;
		CU_ASSERT_PTR_EQUAL(hsaqm_hsa_proxy_from_queue(a[i].q), a[i].proxy);
		CU_ASSERT_PTR_EQUAL(hsaqm_hsa_proxy_from_doorbell(a[i].q->doorbell_signal),
				    a[i].proxy);
		CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a[i].proxy), 0);
	}
	t_hsa_close(&h);
}

/* ---- Doorbell and release -------------------------------------------------------------------- */

static void test_doorbell_reports_valid_headers_not_the_doorbell_value(void)
{
	struct t_hsa h;
	struct t_app a;
	struct t_krec recs[3] = { { 0 } };
	uint64_t k, idx;
	struct hsaqm_hsa_signal cs;
	union hsaqm_aql_packet pk[3];
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_1, .lv1_threshold = 1 };

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	k = t_kernel(&h, 10 * T_US, 1);
	cs = t_hsa_signal(&h, 3);
	for (int i = 0; i < 3; i++) {
		recs[i].nwg = 1;
		pk[i] = t_hsa_dispatch(k, 1, cs.handle, false, &recs[i]);
	}
	/* Three producers reserved 0, 1, 2; the one with 1 is slow. */
	CU_ASSERT_EQUAL(hsaqm_ring_reserve(&a.ring, 3, 0, &idx), 0);
	CU_ASSERT_EQUAL(idx, 0);
	hsaqm_aql_publish(hsaqm_ring_slot(&a.ring, 0), &pk[0]);
	hsaqm_aql_publish(hsaqm_ring_slot(&a.ring, 2), &pk[2]);
	hsaqm_hsa_proxy_doorbell(a.proxy, 2);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).submitted, 1); /* packet 1 is not valid yet */
	/* The value is a hint and is not kept: a doorbell signal cannot be read (ROCr's refuse). */
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_relaxed_fn(a.q->doorbell_signal), 0);
	hsaqm_aql_publish(hsaqm_ring_slot(&a.ring, 1), &pk[1]);
	hsaqm_hsa_proxy_doorbell(a.proxy, 1); /* a doorbell value behind: a hint only */
	CU_ASSERT_EQUAL(t_app_xinfo(&a).submitted, 3);
	hsaqm_hsa_proxy_doorbell(a.proxy, 2); /* nothing new: nothing reported */
	CU_ASSERT_EQUAL(t_app_xinfo(&a).submitted, 3);
	hsaqm_hsa_proxy_doorbell(NULL, 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_MS), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).completed, 3);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).state, HSAQM_XQ_IDLE);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

/* ---- A tool's wrapper of the signal store ---------------------------------------------------- */

static hsaqm_hsa_signal_store_fn g_saved_store;
static int g_wrapped_proxy, g_wrapped_other;

static void wrapped_store(struct hsaqm_hsa_signal s, hsaqm_hsa_signal_value_t v)
{
	struct hsaqm_hsa_proxy *p = hsaqm_hsa_proxy_from_doorbell(s);

	if (p) {
		g_wrapped_proxy++;
		hsaqm_hsa_proxy_doorbell(p, v);
		return;
	}
	g_wrapped_other++;
	g_saved_store(s, v);
}

static void test_a_wrapped_signal_store_rings_the_proxy_as_a_tool_would(void)
{
	struct t_hsa h;
	struct t_app a;
	struct t_krec recs[4] = { { 0 } };
	struct hsaqm_hsa_signal cs;
	union hsaqm_aql_packet pk;
	uint64_t k, idx;

	memset(t_kernels_done, 0, sizeof(t_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1), 0);
	/* OnLoad: save the runtime's entries, then replace the store (as the tool will). */
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, NULL), 0);
	g_saved_store = h.core->hsa_signal_store_screlease_fn;
	h.core->hsa_signal_store_screlease_fn = wrapped_store;
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &t_lv2, &a), 0);
	k = t_kernel(&h, 10 * T_US, 1);
	cs = t_hsa_signal(&h, 4);
	/* ROCclr's sequence, every call through the table. */
	for (int i = 0; i < 4; i++) {
		idx = h.core->hsa_queue_add_write_index_screlease_fn(a.q, 1);
		recs[i].nwg = 1;
		pk = t_hsa_dispatch(k, 1, cs.handle, false, &recs[i]);
		hsaqm_aql_publish(&((union hsaqm_aql_packet *)a.q->base_address)[idx & 63], &pk);
		h.core->hsa_signal_store_screlease_fn(a.q->doorbell_signal, (int64_t)idx);
	}
	CU_ASSERT_EQUAL(g_wrapped_proxy, 4);
	/* hsaqm's own stores (hardware doorbell, gate) use the saved entry, not the wrapper. */
	CU_ASSERT_EQUAL(g_wrapped_other, 0);
	h.core->hsa_signal_store_screlease_fn(cs, 4); /* any other signal: passed through */
	CU_ASSERT_EQUAL(g_wrapped_other, 1);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_MS), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&t_kernels_done[0]), 4); /* pairs with t_count_wg's add */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	h.core->hsa_signal_store_screlease_fn = g_saved_store;
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

static void test_a_proxy_whose_context_went_first_passes_packets_through(void)
{
	struct t_hsa h;
	struct t_app a;
	struct t_krec recs[6] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_1, .lv1_threshold = 1 };
	struct hsaqm_hsa_signal cs;
	uint64_t k;

	memset(t_kernels_done, 0, sizeof(t_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	k = t_kernel(&h, 20 * T_US, 1);
	cs = t_hsa_signal(&h, 6);
	t_submit(&a, k, 3, cs, false, recs, 0); /* Lv1, threshold 1: two held */
	CU_ASSERT_EQUAL(a.proxy->released, 1);
	/* The context goes first: lib lets go (everything released), the proxy passes through. */
	hsaqm_ctx_destroy(h.ctx);
	h.ctx = NULL;
	CU_ASSERT_EQUAL(a.proxy->released, 3);
	CU_ASSERT_PTR_NULL(hsaqm_hsa_proxy_xq(a.proxy));
	t_submit(&a, k, 3, cs, false, recs + 3, 0);
	CU_ASSERT_EQUAL(a.proxy->released, 6);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_MS), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&t_kernels_done[0]), 6); /* pairs with t_count_wg's add */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

static const struct t_case cases[] = {
	T_CASE(test_runtime_init_takes_the_face_table_and_refuses_bad_ones),
	T_CASE(test_status_and_errno_map_both_ways),
	T_CASE(test_proxy_is_a_full_amd_queue_mirroring_the_hardware_queue),
	T_CASE(test_proxy_size_is_checked_as_the_runtime_checks_it),
	T_CASE(test_lookups_find_live_proxies_only_and_never_read_foreign_pointers),
	T_CASE(test_doorbell_reports_valid_headers_not_the_doorbell_value),
	T_CASE(test_a_wrapped_signal_store_rings_the_proxy_as_a_tool_would),
	T_CASE(test_a_proxy_whose_context_went_first_passes_packets_through),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsa-backend-proxy", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("hsa-backend-proxy", suites);
}
