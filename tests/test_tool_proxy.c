/* SPDX-License-Identifier: MIT */
/*
 * libhsaqm-tool.so's proxy queues as every ROCr sees them: an amd_queue_v2 with no queue object
 * behind it for any ROCr, and a scratch event refreshing the proxy at its next doorbell.
 *
 * libhsaqm-tool.so is loaded as ROCr loads it: HSA_TOOLS_LIB names it, the model's hsa_init
 * opens it and calls OnLoad with the model's HsaApiTable (sim/hsa_face_tools.c), hsa_shut_down
 * calls OnUnload.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_tool.h"
#include "t_cunit.h"
#include "t_json.h"
#include "t_tool.h"
#include "tool_internal.h"
#include "t_tool_model.h"

/* ---- The proxy's descriptor across ROCr's queue structures (issue 15) --------------------- */

/* The model's one hardware queue (behind the one proxy), as ROCr's descriptor; NULL if not one. */
static struct hsaqm_amd_queue *only_hw_queue(struct t_hsa *h)
{
	struct hsa_face *f = (struct hsa_face *)((char *)h->root - offsetof(struct hsa_face, root));
	struct hsaqm_amd_queue *amd = NULL;
	unsigned int n = 0;

	pthread_mutex_lock(&f->lock);
	for (struct hsa_face_queue *fq = f->queues; fq; fq = fq->next, n++)
		amd = fq->amd;
	pthread_mutex_unlock(&f->lock);
	return n == 1 ? amd : NULL;
}

/* Word @w of a descriptor (4-byte words, as hsaqm mirrors them). */
static uint32_t word(const void *desc, size_t w)
{
	uint32_t v;

	memcpy(&v, (const char *)desc + 4 * w, sizeof(v));
	return v;
}

/* Whether byte offset @off is one of the proxy's own words (not mirrored). */
static bool proxy_own(size_t off)
{
	return off < offsetof(struct hsaqm_amd_queue, caps) ||
	       (off >= offsetof(struct hsaqm_amd_queue, write_dispatch_id) &&
		off < offsetof(struct hsaqm_amd_queue, group_segment_aperture_base_hi)) ||
	       (off >= offsetof(struct hsaqm_amd_queue, max_legacy_doorbell_dispatch_id_plus_1) &&
		off < offsetof(struct hsaqm_amd_queue, reserved2)) ||
	       (off >= offsetof(struct hsaqm_amd_queue, read_dispatch_id) &&
		off < offsetof(struct hsaqm_amd_queue, read_dispatch_id_field_base_byte_offset));
}

/* Every mirrored word of the proxy's first 256 bytes equals the hardware queue's. */
static unsigned int mirror_mismatches(const struct hsaqm_hsa_queue *q,
				      const struct hsaqm_amd_queue *hw)
{
	unsigned int bad = 0;

	for (size_t w = 0; w < sizeof(struct hsaqm_amd_queue) / 4; w++)
		if (!proxy_own(4 * w) && word(q, w) != word(hw, w))
			bad++;
	return bad;
}

static void test_proxy_is_an_amd_queue_v2_with_no_queue_object_for_any_rocr(void)
{
	struct t_hsa h;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_amd_queue *hw;
	const unsigned char *bytes;
	void *obj;
	size_t nonzero = 0;

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), NULL, &t_tool_cfg), 0);
	q = t_tool_queue(&h, 128);
	CU_ASSERT_FATAL(q != NULL && t_tool_is_proxy(&h, q));
	hw = only_hw_queue(&h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(hw);
	CU_ASSERT_EQUAL((uintptr_t)q % HSAQM_AMD_QUEUE_ALIGN, 0u);

	/*
	 * ROCr's Queue::Convert reads its object pointer behind the descriptor: at 256 up to
	 * ROCm 6.3, at 2304 (sizeof(amd_queue_v2_t)) from 6.4. A proxy has NULL at both, and
	 * zeros up to HSAQM_PROXY_QUEUE_DESC_SIZE (ASan reports a read past what was allocated).
	 */
	memcpy(&obj, (const char *)q + HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V1, sizeof(obj));
	CU_ASSERT_PTR_NULL(obj);
	memcpy(&obj, (const char *)q + HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V2, sizeof(obj));
	CU_ASSERT_PTR_NULL(obj);
	bytes = (const unsigned char *)q;
	for (size_t i = sizeof(struct hsaqm_amd_queue); i < HSAQM_PROXY_QUEUE_DESC_SIZE; i++)
		nonzero += bytes[i] != 0;
	CU_ASSERT_EQUAL(nonzero, 0u);

	/* The first 256 bytes mirror the hardware queue's, v2 fields (caps, alternate scratch)
	 * included; the proxy's own words are its own. */
	CU_ASSERT_EQUAL(mirror_mismatches(q, hw), 0u);
	CU_ASSERT_PTR_NOT_EQUAL(q->base_address, hw->hsa_queue.base_address);
	CU_ASSERT_NOT_EQUAL(q->doorbell_signal.handle, hw->hsa_queue.doorbell_signal.handle);
	CU_ASSERT_EQUAL(q->size, 128u);
	CU_ASSERT_EQUAL(q->id, hw->hsa_queue.id);
	CU_ASSERT_EQUAL(((struct hsaqm_amd_queue *)q)->write_dispatch_id, 0u);
	CU_ASSERT_EQUAL(((struct hsaqm_amd_queue *)q)->read_dispatch_id, 0u);

	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), HSAQM_HSA_STATUS_SUCCESS);
	t_tool_close(&h, NULL);
}

static void test_scratch_event_refreshes_the_proxy_at_its_next_doorbell(void)
{
	struct t_hsa h;
	struct hsaqm_api_layout l;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_amd_queue *hw, *pq;
	struct hsaqm_hsa_signal cs;
	hsaqm_hsa_amd_tool_event_fn ev_fn = NULL;
	void **slot;
	uint64_t k;

	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), NULL, &t_tool_cfg), 0);
	/* The tool set the event entry of the runtime's ToolsApiTable (the model's: ROCm 6.3). */
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(h.root, 3, &l), 0);
	slot = hsaqm_api_table_slot(h.root, &l, HSAQM_API_TOOLS_SCRATCH_ALLOC_END);
	CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
	memcpy(&ev_fn, slot, sizeof(ev_fn));
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev_fn);

	k = t_tool_kernel(&h, T_TOOL_KERNEL_NS, 1);
	q = t_tool_queue(&h, 64);
	CU_ASSERT_FATAL(q != NULL && t_tool_is_proxy(&h, q));
	pq = (struct hsaqm_amd_queue *)q;
	hw = only_hw_queue(&h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(hw);

	/* ROCr grows the hardware queue's scratch (the model never reads these fields). */
	hw->caps |= HSAQM_AMD_QUEUE_CAPS_SW_ASYNC_RECLAIM;
	hw->compute_tmpring_size = 0x1234;
	hw->scratch_backing_memory_location = 0x7f0000100000ull;
	hw->scratch_backing_memory_byte_size = 1ull << 26;
	hw->alt_scratch_resource_descriptor[2] = 0xa1;
	hw->alt_compute_tmpring_size = 0x55;

	/* No event yet: a doorbell leaves the proxy's mirror as it was. */
	cs = t_hsa_signal(&h, 1);
	t_tool_submit(&h, q, k, 1, cs);
	CU_ASSERT(t_hsa_wait_le(&h, cs, 0, 10 * T_S));
	CU_ASSERT_EQUAL(pq->scratch_backing_memory_location, 0u);
	CU_ASSERT_NOT_EQUAL(mirror_mismatches(q, hw), 0u);

	/* The event, as ROCr raises it (the record names the hardware queue). */
	{
		struct hsaqm_hsa_amd_tool_event_scratch rec = {
			.kind = HSAQM_HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_END, .queue = &hw->hsa_queue,
		};
		hsaqm_hsa_amd_tool_event_t ev = { .scratch = &rec };

		CU_ASSERT_EQUAL(ev_fn(ev), HSAQM_HSA_STATUS_SUCCESS);
	}
	/* The next doorbell mirrors the new fields before its packets go. */
	h.core->hsa_signal_store_relaxed_fn(cs, 1);
	t_tool_submit(&h, q, k, 1, cs);
	CU_ASSERT(t_hsa_wait_le(&h, cs, 0, 10 * T_S));
	CU_ASSERT_EQUAL(mirror_mismatches(q, hw), 0u);
	CU_ASSERT_EQUAL(pq->scratch_backing_memory_location, 0x7f0000100000ull);
	CU_ASSERT_EQUAL(pq->scratch_backing_memory_byte_size, 1ull << 26);
	CU_ASSERT_EQUAL(pq->compute_tmpring_size, 0x1234u);
	CU_ASSERT_EQUAL(pq->alt_compute_tmpring_size, 0x55u);
	CU_ASSERT(pq->caps & HSAQM_AMD_QUEUE_CAPS_SW_ASYNC_RECLAIM);
	/* ... and keeps its own: its ring, its doorbell, its dispatch ids. */
	CU_ASSERT_PTR_NOT_EQUAL(q->base_address, hw->hsa_queue.base_address);
	CU_ASSERT_EQUAL(q->size, 64u);
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_write_index_relaxed_fn(q), 2u);
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_read_index_scacquire_fn(q), 2u);
	/* The descriptor past 256 bytes is still all zero. */
	{
		void *obj;

		memcpy(&obj, (const char *)q + HSAQM_ROCR_QUEUE_OBJECT_OFFSET_V2, sizeof(obj));
		CU_ASSERT_PTR_NULL(obj);
	}

	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), HSAQM_HSA_STATUS_SUCCESS);
	h.core->hsa_signal_destroy_fn(cs);
	t_tool_close(&h, NULL);
}

static const struct t_case cases[] = {
	T_CASE(test_proxy_is_an_amd_queue_v2_with_no_queue_object_for_any_rocr),
	T_CASE(test_scratch_event_refreshes_the_proxy_at_its_next_doorbell),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "tool-proxy", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	if (!t_tool_path())
		return t_skip("tool-proxy", "HSAQM_TEST_TOOL_LIB is not set (run through meson test)");
	return t_run("tool-proxy", suites);
}
