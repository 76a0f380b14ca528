/* SPDX-License-Identifier: MIT */
/*
 * The HSA backend on the device model, in virtual time (deterministic, no engine threads):
 * the runtime table, proxy creation and the amd_queue_t it mirrors, the lookups, the doorbell
 * scan, the exact layout release() writes (guardians, the barrier bit they take, markers),
 * completions through markers, a closed Lv2 gate stopping the packet processor at the
 * guardian in front of it, the Lv1 in-flight bound, -EAGAIN on a full hardware ring, a
 * malformed packet reaching the application's callback, destroy with held and gated work,
 * priorities, every reason Lv3 can be unavailable, and a tool-style wrapped signal store.
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

/* ---- Kernels that count their workgroups ---------------------------------------------------- */

struct krec {
	uint32_t nwg;
	uint32_t done_wgs; /* workgroup callbacks seen */
	uint32_t proxy_id;
	uint64_t index;    /* the packet's index in the proxy */
};

static uint64_t g_kernels_done[8]; /* per test queue: kernels whose every workgroup finished */

static void count_wg(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct krec *r = kernarg;

	(void)arg, (void)dispatch_id, (void)wg;
	/*
	 * acq_rel: a kernel is counted once, after its last workgroup; the second add pairs
	 * with the test's acquire loads of g_kernels_done.
	 */
	if (hsaqm_fetch_add(&r->done_wgs, 1u) + 1 == r->nwg)
		hsaqm_fetch_add(&g_kernels_done[r->proxy_id], 1ull);
}

static uint64_t kernel(struct t_hsa *h, uint64_t ns, uint32_t waves)
{
	struct hsaqm_sim_kernel_desc kd = { .name = "k", .duration_ns = ns, .waves_per_wg = waves,
					    .wg_callback = count_wg };
	uint64_t k = 0;

	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(h->sim, &kd, &k), 0);
	return k;
}

/* Publish @n dispatches on @a (one doorbell for all); returns the first index. */
static uint64_t submit(struct t_app *a, uint64_t kobj, uint32_t n, struct hsaqm_hsa_signal cs,
		       bool barrier, struct krec *recs, uint32_t qid)
{
	union hsaqm_aql_packet *pk = calloc(n, sizeof(*pk));
	uint64_t first = 0;

	for (uint32_t i = 0; i < n; i++) {
		recs[i].nwg = 1;
		recs[i].proxy_id = qid;
		pk[i] = t_hsa_dispatch(kobj, 1, cs.handle, barrier, &recs[i]);
	}
	CU_ASSERT_EQUAL(hsaqm_ring_submit(&a->ring, pk, n, 0), 0);
	first = HSAQM_READ_ONCE(*a->ring.write_index) - n;
	for (uint32_t i = 0; i < n; i++)
		recs[i].index = first + i;
	free(pk);
	return first;
}

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
		 * pairs with count_wg's add, made by whichever thread runs the model's engine.
		 */
		uint64_t done = hsaqm_load_acquire(&g_kernels_done[0]);

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

/* ---- Proxies ------------------------------------------------------------------------------- */

static const struct hsaqm_xq_config lv2 = { .level = HSAQM_LEVEL_2 };

static void test_proxy_is_a_full_amd_queue_mirroring_the_hardware_queue(void)
{
	struct t_hsa h;
	struct t_app a;
	const struct hsaqm_amd_queue *pa, *ha;
	const struct hsaqm_hsa_queue *pq, *hq;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 256, &lv2, &a), 0);
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
	struct hsaqm_hsa_proxy_config cfg = { .type = HSAQM_HSA_QUEUE_TYPE_MULTI, .xq = lv2 };
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
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 131072, &lv2, &a), 0);
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
		CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &lv2, &a[i]), 0);
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

		CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &lv2, &c), 0);
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
	struct krec recs[3] = { { 0 } };
	uint64_t k, idx;
	struct hsaqm_hsa_signal cs;
	union hsaqm_aql_packet pk[3];
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_1, .lv1_threshold = 1 };

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	k = kernel(&h, 10 * T_HSA_US, 1);
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
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_HSA_MS), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).completed, 3);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).state, HSAQM_XQ_IDLE);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
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
	struct krec recs[10] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .lv2_interval = 2 };
	struct hsaqm_hsa_signal cs;
	uint64_t k, gate;
	static const uint8_t want[] = { 1, 0, 0, 1, 0, 0, 1, 0, 2 };
	struct hsaqm_aql_header hd;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	gate = a.proxy->gate.handle;
	k = kernel(&h, 10 * T_HSA_US, 1);
	cs = t_hsa_signal(&h, 10);
	layout_reset(a.proxy);
	submit(&a, k, 5, cs, false, recs, 0);
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
	submit(&a, k, 2, cs, true, recs + 5, 0);
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
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_HSA_MS), 0);
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
	struct krec recs[20] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .lv2_interval = 1 };
	struct hsaqm_hsa_signal cs;
	struct sim_hwq_info hi;
	struct sim_hwq *hwq;
	uint64_t k, rd1, rd_end, g_first = UINT64_MAX, launched_at_close;

	memset(g_kernels_done, 0, sizeof(g_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	hwq = t_hsa_sim_hwq(&h, hsaqm_hsa_proxy_hw_queue(a.proxy));
	CU_ASSERT_PTR_NOT_NULL_FATAL(hwq);
	k = kernel(&h, 100 * T_HSA_US, 1);
	cs = t_hsa_signal(&h, 20);
	layout_reset(a.proxy);
	submit(&a, k, 20, cs, barrier, recs, 0);
	CU_ASSERT_EQUAL(g_layout_end, 41); /* G K x 20, M */
	CU_ASSERT_EQUAL(hsaqm_sim_advance(h.sim, 150 * T_HSA_US), 0);
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
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 20 * T_HSA_MS), -ETIMEDOUT);
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
	/* Acquire: pairs with count_wg's add (the engine ran on this thread: virtual time). */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_kernels_done[0]), hi.dispatches_launched);
	CU_ASSERT(hsaqm_load_acquire(&g_kernels_done[0]) < 20);
	/* Reopen: the rest runs, every kernel exactly once. */
	CU_ASSERT_EQUAL(hsaqm_xq_resume(hsaqm_hsa_proxy_xq(a.proxy)), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(a.proxy->gate), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_HSA_MS), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_kernels_done[0]), 20); /* pairs with count_wg's add */
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
	struct krec recs[60] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_1, .lv1_threshold = 4, .lv1_batch = 2 };
	struct hsaqm_hsa_signal cs;
	uint64_t k;

	memset(g_kernels_done, 0, sizeof(g_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	k = kernel(&h, 20 * T_HSA_US, 1);
	cs = t_hsa_signal(&h, 60);
	layout_reset(a.proxy);
	g_lv1_threshold = 4;
	g_lv1_violations = 0;
	submit(&a, k, 60, cs, false, recs, 0);
	CU_ASSERT_EQUAL(a.proxy->released, 4); /* the threshold, at once */
	CU_ASSERT_EQUAL(t_app_xinfo(&a).submitted, 60);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_HSA_MS), 0);
	CU_ASSERT_EQUAL(g_lv1_violations, 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	/* Acquire: pairs with count_wg's add, made while this thread ran the model. */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_kernels_done[0]), 60);
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
	struct krec recs[64] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .lv2_interval = 1 };
	struct hsaqm_hsa_signal cs;
	struct hsaqm_release rel = { .first = 0, .n = 64, .flags = HSAQM_RELEASE_GUARDED,
				     .guard_interval = 1 };
	uint64_t k;

	memset(g_kernels_done, 0, sizeof(g_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_hw_queue(a.proxy)->size, 128);
	k = kernel(&h, 5 * T_HSA_US, 1);
	cs = t_hsa_signal(&h, 64);
	/* Hold it by hand first, so lib keeps the 64 packets and the backend sees them whole. */
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(hsaqm_hsa_proxy_xq(a.proxy)), 0);
	submit(&a, k, 64, cs, false, recs, 0);
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
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_HSA_MS), 0);
	CU_ASSERT_EQUAL(a.proxy->released, 64);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_kernels_done[0]), 64); /* pairs with count_wg's add */
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
					      .callback = app_error_cb, .xq = lv2 };
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
	hsaqm_sim_run_until_idle(h.sim, 10 * T_HSA_MS);
	CU_ASSERT_EQUAL(g_cb_calls, 1);
	CU_ASSERT_EQUAL(g_cb_status, HSAQM_HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
	CU_ASSERT_PTR_EQUAL(g_cb_queue, a.q); /* the application's queue, not ours */
	CU_ASSERT_NOT_EQUAL(p->hw_error, 0);
	/* Destroy does not wait for a queue that will never run again. */
	uint64_t t0 = t_hsa_mono_ns();
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(p), 0);
	CU_ASSERT(t_hsa_mono_ns() - t0 < T_HSA_S);
	t_hsa_close(&h);
}

static void test_destroy_releases_held_packets_and_runs_them_first(void)
{
	struct t_hsa h;
	struct t_app a;
	struct krec recs[10] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_1, .lv1_threshold = 1, .lv1_batch = 1 };
	struct hsaqm_hsa_signal cs;
	uint64_t k;

	memset(g_kernels_done, 0, sizeof(g_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	k = kernel(&h, 50 * T_HSA_US, 1);
	cs = t_hsa_signal(&h, 10);
	submit(&a, k, 10, cs, false, recs, 0);
	CU_ASSERT_EQUAL(a.proxy->released, 1);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).submitted, 10);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	/* Nothing lost: destroy released the 9 held and waited until all 10 ran. */
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_kernels_done[0]), 10); /* pairs with count_wg's add */
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

static void test_destroy_with_a_closed_gate_opens_it_and_runs_everything(void)
{
	struct t_hsa h;
	struct t_app a;
	struct krec recs[10] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .lv2_interval = 1 };
	struct hsaqm_hsa_signal cs, gate;
	uint64_t k;

	memset(g_kernels_done, 0, sizeof(g_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	k = kernel(&h, 50 * T_HSA_US, 1);
	cs = t_hsa_signal(&h, 10);
	submit(&a, k, 5, cs, true, recs, 0);
	CU_ASSERT_EQUAL(hsaqm_sim_advance(h.sim, 70 * T_HSA_US), 0);
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(hsaqm_hsa_proxy_xq(a.proxy)), 0);
	gate = a.proxy->gate;
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(gate), 1);
	submit(&a, k, 5, cs, true, recs + 5, 0); /* held by lib */
	CU_ASSERT_EQUAL(a.proxy->released, 5);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 5 * T_HSA_MS), -ETIMEDOUT);
	/* Acquire, both: pair with count_wg's add, made while the model ran. */
	CU_ASSERT(hsaqm_load_acquire(&g_kernels_done[0]) < 5);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_kernels_done[0]), 10);
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

/*
 * ROCr times a wait's timeout with hsa_system_get_info(TIMESTAMP_FREQUENCY); ROCm 7.x calls a
 * tool's OnUnload when that query already fails, and its waits then never time out. These
 * stand-ins fail the query while g_rt_closed and count every timed wait made meanwhile.
 */
static uint32_t g_rt_closed;
static uint32_t g_untimeable_waits;
static hsaqm_hsa_system_get_info_fn g_real_info;
static hsaqm_hsa_signal_wait_fn g_real_wait;

static hsaqm_hsa_status_t closing_system_get_info(uint32_t attribute, void *value)
{
	/* Acquire: pairs with the test's release; nothing else is published with it. */
	if (hsaqm_load_acquire(&g_rt_closed))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	return g_real_info(attribute, value);
}

static hsaqm_hsa_signal_value_t closing_wait(struct hsaqm_hsa_signal signal,
					     hsaqm_hsa_signal_condition_t cond,
					     hsaqm_hsa_signal_value_t value, uint64_t ticks,
					     hsaqm_hsa_wait_state_t state)
{
	/* Acquire: as above. */
	if (hsaqm_load_acquire(&g_rt_closed)) {
		hsaqm_fetch_add(&g_untimeable_waits, 1u); /* destroy, fini wait on this thread */
		ticks = 1; /* where ROCr would wait forever; the count fails the test */
	}
	return g_real_wait(signal, cond, value, ticks, state);
}

static void test_a_closed_runtime_gets_no_timed_wait_and_destroy_and_fini_still_finish(void)
{
	struct t_hsa h;
	struct t_app a;
	struct krec recs[5] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .lv2_interval = 1 };
	struct hsaqm_hsa_signal cs;
	uint64_t k;

	memset(g_kernels_done, 0, sizeof(g_kernels_done));
	/* Real time: with no wait the virtual clock would not move, a real one does. */
	CU_ASSERT_EQUAL_FATAL(t_hsa_open(&h, HSAQM_SIM_TIME_REAL, 1), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h.rt.system_get_info);
	g_real_info = h.rt.system_get_info;
	g_real_wait = h.rt.signal_wait_scacquire;
	h.rt.system_get_info = closing_system_get_info;
	h.rt.signal_wait_scacquire = closing_wait;
	/* Release: open before the proxy exists; pairs with the stand-ins' acquire. */
	hsaqm_store_release(&g_rt_closed, 0u);
	g_untimeable_waits = 0;
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &cfg, &a), 0);
	k = kernel(&h, 200 * T_HSA_US, 1);
	cs = t_hsa_signal(&h, 5);
	submit(&a, k, 5, cs, true, recs, 0);
	/* Release: the runtime counts as shut down from here on (the stand-ins read it). */
	hsaqm_store_release(&g_rt_closed, 1u);
	/* The drain of a queue the program left, as OnUnload does: all five still run. */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	/* Acquire: pairs with count_wg's add on the engine thread (real time). */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_kernels_done[0]), 5);
	hsaqm_hsa_runtime_fini(&h.rt);
	h.rt_ok = false;
	CU_ASSERT_EQUAL(g_untimeable_waits, 0);
	hsaqm_store_release(&g_rt_closed, 0u); /* release: open again for later tests */
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

static void test_set_priority_reaches_the_hardware_queue_and_the_xqueue(void)
{
	struct t_hsa h;
	struct t_app a;
	struct sim_hwq *hwq;
	struct sim_hwq_info hi;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &lv2, &a), 0);
	hwq = t_hsa_sim_hwq(&h, hsaqm_hsa_proxy_hw_queue(a.proxy));
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_set_priority(a.proxy, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH, 5,
						     10), 0);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).priority, 15);
	sim_hwq_get_info(hwq, &hi);
	CU_ASSERT_EQUAL(hi.priority, 11); /* the face's KFD priority for HIGH */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_set_priority(a.proxy, HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW, 5,
						     10), 0);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).priority, -5);
	sim_hwq_get_info(hwq, &hi);
	CU_ASSERT_EQUAL(hi.priority, 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_set_priority(a.proxy, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH, 95,
						     10), 0);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).priority, HSAQM_PRIORITY_MAX); /* clamped */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_set_priority(a.proxy, 3, 0, 1), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_set_priority(NULL, 1, 0, 1), -EINVAL);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).priority, HSAQM_PRIORITY_MAX);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	t_hsa_close(&h);
}

/* ---- Why Lv3 is not available ---------------------------------------------------------------- */

static void lv3_reason_case(const struct hsaqm_sim_config *scfg, bool give_transport,
			    bool direct, const char *needle)
{
	struct t_hsa h;
	struct t_app a;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_3 };
	struct hsaqm_xq_info info;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_cfg(&h, scfg), 0);
	if (direct)
		CU_ASSERT_EQUAL_FATAL(hsa_face_set_queue_path(h.sim, false), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, give_transport ? hsaqm_sim_kfd_transport(h.sim)
							       : NULL), 0);
	/* DBG_TRAP's own prerequisites (auto would take UPDATE_QUEUE: test-hsa-backend-lv3). */
	CU_ASSERT_EQUAL_FATAL(hsaqm_hsa_runtime_set_lv3(&h.rt, HSAQM_KFD_PREF_DBG_TRAP, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &cfg, &a), 0);
	info = t_app_xinfo(&a);
	CU_ASSERT_EQUAL(info.requested_level, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_2);
	if (!strstr(info.level_reason, needle))
		printf("\n  reason \"%s\" lacks \"%s\"\n", info.level_reason, needle);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, needle));
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	t_hsa_close(&h);
}

static void test_lv3_unavailable_says_why(void)
{
	struct hsaqm_sim_config c = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL };

	lv3_reason_case(&c, false, false, "cannot open the KFD");
	/* Queues made directly on the core: the KFD never heard of this ring. */
	lv3_reason_case(&c, true, true, "the KFD has no queue with this ring");
	c.kfd_minor_version = 12;
	lv3_reason_case(&c, true, false, "has no DBG_TRAP (needs 1.13)");
	c.kfd_minor_version = 0;
	c.sched_policy = 2;
	lv3_reason_case(&c, true, false, "sched_policy=2");
	c.sched_policy = 0;
	c.cwsr_disable = 1;
	lv3_reason_case(&c, true, false, "cwsr_enable=0");
}

/* A GPU whose KFD node lacks TRAP_DEBUG_SUPPORT: the model's own properties, that bit cleared. */
static void test_lv3_unavailable_on_a_node_without_trap_debug_support(void)
{
	struct hsaqm_sim_config c = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct hsaqm_sim *sim = NULL;
	char src[512], dst[] = "/tmp/hsaqm-test-props-XXXXXX", line[256];
	FILE *in, *out;
	int fd;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&c, &sim), 0);
	snprintf(src, sizeof(src), "%s/class/kfd/kfd/topology/nodes/1/properties",
		 hsaqm_sim_sysfs_root(sim));
	in = fopen(src, "r");
	fd = mkstemp(dst);
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(in);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	while (fgets(line, sizeof(line), in)) {
		unsigned long long cap;

		if (sscanf(line, "capability %llu", &cap) == 1)
			fprintf(out, "capability %llu\n",
				cap & ~(unsigned long long)HSAQM_KFD_CAP_TRAP_DEBUG_SUPPORT);
		else
			fputs(line, out);
	}
	fclose(in);
	fclose(out);
	hsaqm_sim_destroy(sim);
	c.properties_path = dst;
	lv3_reason_case(&c, true, false, "lacks TRAP_DEBUG_SUPPORT");
	unlink(dst);
}

static void test_lv3_unavailable_when_another_debugger_holds_the_process(void)
{
	struct hsaqm_sim_config c = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct t_hsa h;
	struct t_app a;
	struct hsaqm_kfd *dbg = NULL;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_3 };
	struct hsaqm_xq_info info;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_cfg(&h, &c), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_lv3_setup(&h), 0);
	/* ROCr's hsa_init: the runtime is enabled before any debugger attaches. */
	CU_ASSERT_EQUAL_FATAL(hsa_face_kfd_ready(h.sim), 0);
	/*
	 * "rocgdb": a debugger session on this process's KFD process before hsaqm asks for one.
	 * The KFD keeps the session per KFD process, one per OS process: this open reaches the
	 * same process as the HSA face's and hsaqm's. (A real rocgdb is another OS process that
	 * ptrace-attached and names our pid; the model cannot host that: each client process of
	 * a shared device runs its own KFD face. The session is the same KFD state either way.)
	 */
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(hsaqm_sim_kfd_transport(h.sim), &dbg), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_dbg_enable(dbg, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, hsaqm_kfd_transport_default()), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_hsa_runtime_set_lv3(&h.rt, HSAQM_KFD_PREF_DBG_TRAP, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &cfg, &a), 0);
	info = t_app_xinfo(&a);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_2);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, "another debugger"));
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	hsaqm_kfd_close(dbg);
	t_hsa_close(&h);
}

/*
 * No test help at all: hsaqm's runtime opens the model's KFD itself, and finds the HSA face's
 * queue there because the KFD has one process per OS process and the face enabled the
 * runtime when it opened its KFD (as ROCr in hsa_init). Suspend and resume then work.
 */
static void test_lv3_found_with_no_setup_as_in_a_real_process(void)
{
	struct hsaqm_sim_config c = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct t_hsa h;
	struct t_app a;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_3 };
	struct hsaqm_kfd *k = NULL;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_cfg(&h, &c), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, hsaqm_sim_kfd_transport(h.sim)), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &cfg, &a), 0);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).effective_level, HSAQM_LEVEL_3);
	CU_ASSERT_STRING_EQUAL(t_app_xinfo(&a).level_reason, "");
	CU_ASSERT_EQUAL(a.proxy->lv3_state, HSAQM_HSA_LV3_READY);
	/* The runtime was enabled once, by the face: another enable in this process is EBUSY. */
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(hsaqm_sim_kfd_transport(h.sim), &k), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(k, 0, false), -EBUSY);
	hsaqm_kfd_close(k);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	t_hsa_close(&h);
}

static void test_lv3_found_on_the_kfd_path(void)
{
	struct hsaqm_sim_config c = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct t_hsa h;
	struct t_app a, b;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_3 };
	struct hsaqm_xq_config lazy = { .level = HSAQM_LEVEL_2 };

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_cfg(&h, &c), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_lv3_setup(&h), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, hsaqm_kfd_transport_default()), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &cfg, &a), 0);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).effective_level, HSAQM_LEVEL_3);
	CU_ASSERT_STRING_EQUAL(t_app_xinfo(&a).level_reason, "");
	CU_ASSERT_EQUAL(a.proxy->lv3_state, HSAQM_HSA_LV3_READY);
	/* Asked for less: the KFD queue is looked up only when a suspend needs it. */
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &lazy, &b), 0);
	CU_ASSERT_EQUAL(b.proxy->max_level, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL(b.proxy->lv3_state, HSAQM_HSA_LV3_UNRESOLVED);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(b.proxy), 0);
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
	struct krec recs[4] = { { 0 } };
	struct hsaqm_hsa_signal cs;
	union hsaqm_aql_packet pk;
	uint64_t k, idx;

	memset(g_kernels_done, 0, sizeof(g_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open(&h, HSAQM_SIM_TIME_VIRTUAL, 1), 0);
	/* OnLoad: save the runtime's entries, then replace the store (as the tool will). */
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, NULL), 0);
	g_saved_store = h.core->hsa_signal_store_screlease_fn;
	h.core->hsa_signal_store_screlease_fn = wrapped_store;
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &lv2, &a), 0);
	k = kernel(&h, 10 * T_HSA_US, 1);
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
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_HSA_MS), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_kernels_done[0]), 4); /* pairs with count_wg's add */
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	h.core->hsa_signal_store_screlease_fn = g_saved_store;
	h.core->hsa_signal_destroy_fn(cs);
	t_hsa_close(&h);
}

static void test_a_proxy_whose_context_went_first_passes_packets_through(void)
{
	struct t_hsa h;
	struct t_app a;
	struct krec recs[6] = { { 0 } };
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_1, .lv1_threshold = 1 };
	struct hsaqm_hsa_signal cs;
	uint64_t k;

	memset(g_kernels_done, 0, sizeof(g_kernels_done));
	CU_ASSERT_EQUAL_FATAL(t_hsa_open_proxy(&h, 64, &cfg, &a), 0);
	k = kernel(&h, 20 * T_HSA_US, 1);
	cs = t_hsa_signal(&h, 6);
	submit(&a, k, 3, cs, false, recs, 0); /* Lv1, threshold 1: two held */
	CU_ASSERT_EQUAL(a.proxy->released, 1);
	/* The context goes first: lib lets go (everything released), the proxy passes through. */
	hsaqm_ctx_destroy(h.ctx);
	h.ctx = NULL;
	CU_ASSERT_EQUAL(a.proxy->released, 3);
	CU_ASSERT_PTR_NULL(hsaqm_hsa_proxy_xq(a.proxy));
	submit(&a, k, 3, cs, false, recs + 3, 0);
	CU_ASSERT_EQUAL(a.proxy->released, 6);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, 100 * T_HSA_MS), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&g_kernels_done[0]), 6); /* pairs with count_wg's add */
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
	T_CASE(test_release_writes_guardians_and_a_marker_where_lib_says),
	T_CASE(test_closed_gate_stops_kernels_at_the_next_guardian),
	T_CASE(test_closed_gate_stops_barrier_kernels_before_the_next_kernel),
	T_CASE(test_lv1_never_has_more_than_threshold_in_flight),
	T_CASE(test_full_hardware_ring_gives_eagain_and_lib_releases_less),
	T_CASE(test_malformed_packet_reaches_the_application_callback_with_its_queue),
	T_CASE(test_destroy_releases_held_packets_and_runs_them_first),
	T_CASE(test_destroy_with_a_closed_gate_opens_it_and_runs_everything),
	T_CASE(test_a_closed_runtime_gets_no_timed_wait_and_destroy_and_fini_still_finish),
	T_CASE(test_set_priority_reaches_the_hardware_queue_and_the_xqueue),
	T_CASE(test_lv3_unavailable_says_why),
	T_CASE(test_lv3_unavailable_on_a_node_without_trap_debug_support),
	T_CASE(test_lv3_unavailable_when_another_debugger_holds_the_process),
	T_CASE(test_lv3_found_with_no_setup_as_in_a_real_process),
	T_CASE(test_lv3_found_on_the_kfd_path),
	T_CASE(test_a_wrapped_signal_store_rings_the_proxy_as_a_tool_would),
	T_CASE(test_a_proxy_whose_context_went_first_passes_packets_through),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsa-backend", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("hsa-backend", suites);
}
