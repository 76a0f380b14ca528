/* SPDX-License-Identifier: MIT */
/*
 * The device model's HSA face: queues as ROCr makes them: creation errors, a whole amd_queue_t
 * on an INVALID ring in model memory, the index functions, inactivate and destroy; each case
 * with the face's queues made directly and through the KFD face.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"

static void run_queue_create_refuses_bad_arguments_as_rocr(bool kfd)
{
	struct t_face h;
	struct hsaqm_hsa_queue *q = NULL;

	CU_ASSERT_FATAL(t_face_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	hsaqm_hsa_queue_create_fn create = h.core->hsa_queue_create_fn;
	struct hsaqm_hsa_agent g = h.gpu[0];

	CU_ASSERT_EQUAL(create(g, 0, 0, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(create(g, 100, 0, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(create(g, 32, 0, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(create(g, 0x40000, 0, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES);
	CU_ASSERT_EQUAL(create(g, 64, 7, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(create(g, 64, 0, NULL, NULL, 0, 0, NULL),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(create(g, 64, HSAQM_HSA_QUEUE_TYPE_COOPERATIVE, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
	CU_ASSERT_EQUAL(create(h.cpu, 64, 0, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
	struct hsaqm_hsa_agent bad = { 12345 };
	CU_ASSERT_EQUAL(create(bad, 64, 0, NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_ERROR_INVALID_AGENT);
	CU_ASSERT_PTR_NULL(q);
	/* The limits themselves are accepted. */
	CU_ASSERT_EQUAL(create(g, 64, HSAQM_HSA_QUEUE_TYPE_SINGLE, NULL, NULL, 0, 0, &q), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	CU_ASSERT_EQUAL(create(g, 131072, 0, NULL, NULL, UINT32_MAX, UINT32_MAX, &q), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	t_face_close(&h);
}

static void test_queue_create_refuses_bad_arguments_as_rocr_direct(void)
{
	run_queue_create_refuses_bad_arguments_as_rocr(false);
}

static void test_queue_create_refuses_bad_arguments_as_rocr_via_kfd(void)
{
	run_queue_create_refuses_bad_arguments_as_rocr(true);
}

static void run_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory(bool kfd)
{
	struct t_face h;
	struct sim_hwq_info info;

	CU_ASSERT_FATAL(t_face_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 256, NULL, NULL);
	struct hsaqm_hsa_queue *q2 = t_face_queue(&h, 0, 64, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q2);
	struct hsaqm_amd_queue *a = (struct hsaqm_amd_queue *)q;

	CU_ASSERT_EQUAL((uintptr_t)a % 64, 0);
	CU_ASSERT_TRUE(sim_mem_contains(h.sim, a, sizeof(*a)));
	CU_ASSERT_EQUAL(q->type, HSAQM_HSA_QUEUE_TYPE_MULTI);
	CU_ASSERT_EQUAL(q->features, HSAQM_HSA_QUEUE_FEATURE_KERNEL_DISPATCH);
	CU_ASSERT_EQUAL(q->size, 256);
	CU_ASSERT_NOT_EQUAL(q->id, q2->id);
	CU_ASSERT_TRUE(sim_mem_contains(h.sim, q->base_address, 256 * 64));
	const union hsaqm_aql_packet *ring = q->base_address;
	unsigned int invalid = 0;
	for (unsigned int i = 0; i < 256; i++)
		invalid += hsaqm_aql_slot_load_header(&ring[i]) == HSAQM_AQL_INVALID_WORD;
	CU_ASSERT_EQUAL(invalid, 256);
	struct sim_signal *db = sim_signal_from_handle(h.sim, q->doorbell_signal.handle);
	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	CU_ASSERT_EQUAL(db->kind, SIM_SIGNAL_DOORBELL);
	CU_ASSERT_PTR_NOT_NULL(sim_signal_from_handle(h.sim, a->queue_inactive_signal.handle));
	CU_ASSERT_EQUAL(a->write_dispatch_id, 0);
	CU_ASSERT_EQUAL(a->read_dispatch_id, 0);
	CU_ASSERT_EQUAL(a->group_segment_aperture_base_hi, 0x10000);
	CU_ASSERT_EQUAL(a->private_segment_aperture_base_hi, 0x20000);
	CU_ASSERT_EQUAL(a->max_cu_id, 79);
	CU_ASSERT_EQUAL(a->max_wave_id, 31);
	CU_ASSERT_EQUAL(a->read_dispatch_id_field_base_byte_offset, 128);
	CU_ASSERT_TRUE(a->queue_properties & HSAQM_AMD_QUEUE_PROPERTIES_IS_PTR64);
	/* The hardware queue reads the ring and the amd_queue_t's own index fields. */
	CU_ASSERT_EQUAL_FATAL(sim_hwq_get_info(t_face_hwq(q), &info), 0);
	CU_ASSERT_EQUAL(info.ring_base, (uint64_t)(uintptr_t)q->base_address);
	CU_ASSERT_EQUAL(info.ring_size_bytes, 256 * 64);
	CU_ASSERT_PTR_EQUAL(info.write_ptr, (uint64_t *)&a->write_dispatch_id);
	CU_ASSERT_PTR_EQUAL(info.read_ptr, (uint64_t *)&a->read_dispatch_id);
	CU_ASSERT_EQUAL(info.priority, 7); /* NORMAL through libhsakmt's map */
	/* On the KFD path the KFD face holds the queues, as the kernel would. */
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(h.sim), kfd ? 2 : 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q2), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(h.sim), 0);
	t_face_close(&h);
}

static void test_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory_direct(void)
{
	run_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory(false);
}

static void test_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory_via_kfd(void)
{
	run_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory(true);
}

static void run_every_index_function_acts_on_the_amd_queue_fields(bool kfd)
{
	struct t_face h;
	const struct hsaqm_core_api_table *c;

	CU_ASSERT_FATAL(t_face_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	c = h.core;
	/* Any amd_queue_t, not only the face's: a proxy queue in host memory is served alike. */
	struct hsaqm_amd_queue *proxy = aligned_alloc(64, sizeof(*proxy));
	CU_ASSERT_PTR_NOT_NULL_FATAL(proxy);
	memset(proxy, 0, sizeof(*proxy));
	struct hsaqm_hsa_queue *q = &proxy->hsa_queue;

	c->hsa_queue_store_write_index_relaxed_fn(q, 5);
	CU_ASSERT_EQUAL(proxy->write_dispatch_id, 5);
	c->hsa_queue_store_write_index_screlease_fn(q, 6);
	CU_ASSERT_EQUAL(c->hsa_queue_load_write_index_relaxed_fn(q), 6);
	CU_ASSERT_EQUAL(c->hsa_queue_load_write_index_scacquire_fn(q), 6);
	CU_ASSERT_EQUAL(c->hsa_queue_add_write_index_relaxed_fn(q, 1), 6);
	CU_ASSERT_EQUAL(c->hsa_queue_add_write_index_scacquire_fn(q, 2), 7);
	CU_ASSERT_EQUAL(c->hsa_queue_add_write_index_screlease_fn(q, 3), 9);
	CU_ASSERT_EQUAL(c->hsa_queue_add_write_index_scacq_screl_fn(q, 4), 12);
	CU_ASSERT_EQUAL(proxy->write_dispatch_id, 16);
	/* CAS returns the value observed: the expected one on success. */
	CU_ASSERT_EQUAL(c->hsa_queue_cas_write_index_relaxed_fn(q, 16, 17), 16);
	CU_ASSERT_EQUAL(c->hsa_queue_cas_write_index_scacquire_fn(q, 17, 18), 17);
	CU_ASSERT_EQUAL(c->hsa_queue_cas_write_index_screlease_fn(q, 18, 19), 18);
	CU_ASSERT_EQUAL(c->hsa_queue_cas_write_index_scacq_screl_fn(q, 19, 20), 19);
	CU_ASSERT_EQUAL(c->hsa_queue_cas_write_index_scacq_screl_fn(q, 99, 0), 20); /* fails */
	CU_ASSERT_EQUAL(c->hsa_queue_cas_write_index_relaxed_fn(q, 98, 0), 20);
	CU_ASSERT_EQUAL(proxy->write_dispatch_id, 20);
	c->hsa_queue_store_read_index_relaxed_fn(q, 3);
	CU_ASSERT_EQUAL(proxy->read_dispatch_id, 3);
	CU_ASSERT_EQUAL(c->hsa_queue_load_read_index_relaxed_fn(q), 3);
	c->hsa_queue_store_read_index_screlease_fn(q, 4);
	CU_ASSERT_EQUAL(c->hsa_queue_load_read_index_scacquire_fn(q), 4);
	free(proxy);

	/* And on a live queue the read index is the packet processor's: consumed packets. */
	struct hsaqm_hsa_queue *lq = t_face_queue(&h, 0, 64, NULL, NULL);
	uint64_t k = t_face_kernel(&h, 1 * T_US, 1, NULL, NULL);
	struct hsaqm_hsa_signal cs = t_face_signal(&h, 3);
	for (int i = 0; i < 3; i++) {
		union hsaqm_aql_packet p = t_face_dispatch(k, 1, cs.handle);

		t_face_submit(&h, lq, &p);
	}
	CU_ASSERT_EQUAL(t_face_wait_eq(&h, cs, 0, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(c->hsa_queue_load_read_index_scacquire_fn(lq), 3);
	CU_ASSERT_EQUAL(c->hsa_queue_load_write_index_scacquire_fn(lq), 3);
	CU_ASSERT_EQUAL(c->hsa_queue_destroy_fn(lq), 0);
	t_face_close(&h);
}

static void test_every_index_function_acts_on_the_amd_queue_fields_direct(void)
{
	run_every_index_function_acts_on_the_amd_queue_fields(false);
}

static void test_every_index_function_acts_on_the_amd_queue_fields_via_kfd(void)
{
	run_every_index_function_acts_on_the_amd_queue_fields(true);
}

static void run_inactivate_stops_the_queue_and_destroy_releases_it(bool kfd)
{
	struct t_face h;
	struct hsaqm_hsa_agent ag = { 0 };
	uint64_t dbid = UINT64_MAX;

	CU_ASSERT_FATAL(t_face_open_path(&h, HSAQM_SIM_TIME_VIRTUAL, 1, kfd));
	struct hsaqm_hsa_queue *q = t_face_queue(&h, 0, 64, NULL, NULL);
	hsaqm_hsa_amd_queue_get_info_fn info = h.amd->hsa_amd_queue_get_info_fn;
	CU_ASSERT_EQUAL(info(q, SIM_HSA_AMD_QUEUE_INFO_AGENT, &ag), 0);
	CU_ASSERT_EQUAL(ag.handle, h.gpu[0].handle);
	CU_ASSERT_EQUAL(info(q, SIM_HSA_AMD_QUEUE_INFO_DOORBELL_ID, &dbid), 0);
	CU_ASSERT_NOT_EQUAL(dbid, UINT64_MAX);
	CU_ASSERT_EQUAL(info(q, 42, &dbid), HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);

	CU_ASSERT_EQUAL(h.core->hsa_queue_inactivate_fn(q), 0);
	CU_ASSERT_PTR_NULL(t_face_hwq(q));
	CU_ASSERT_EQUAL(h.core->hsa_queue_inactivate_fn(q), 0); /* again: nothing to do */
	/* Packets published now are never processed; the doorbell rings nothing. */
	struct hsaqm_hsa_signal cs = t_face_signal(&h, 1);
	union hsaqm_aql_packet p = t_face_dispatch(t_face_kernel(&h, 5 * T_US, 1, NULL, NULL), 1,
						cs.handle);
	t_face_submit(&h, q, &p);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(h.sim, T_S), 0);
	CU_ASSERT_EQUAL(h.core->hsa_signal_load_relaxed_fn(cs), 1);
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_read_index_relaxed_fn(q), 0);
	CU_ASSERT_EQUAL(h.amd->hsa_amd_queue_set_priority_fn(q, 2),
			HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE);
	uint32_t m = 1;
	CU_ASSERT_EQUAL(h.amd->hsa_amd_queue_cu_set_mask_fn(q, 32, &m),
			HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), 0);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(NULL),
			HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT);
	CU_ASSERT_EQUAL(info(q, SIM_HSA_AMD_QUEUE_INFO_AGENT, &ag),
			HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE);
	/* Queues left at the model's destroy are destroyed with it (the face's fini). */
	CU_ASSERT_PTR_NOT_NULL(t_face_queue(&h, 0, 64, NULL, NULL));
	t_face_close(&h);
}

static void test_inactivate_stops_the_queue_and_destroy_releases_it_direct(void)
{
	run_inactivate_stops_the_queue_and_destroy_releases_it(false);
}

static void test_inactivate_stops_the_queue_and_destroy_releases_it_via_kfd(void)
{
	run_inactivate_stops_the_queue_and_destroy_releases_it(true);
}

static const struct t_case cases[] = {
	T_CASE(test_queue_create_refuses_bad_arguments_as_rocr_direct),
	T_CASE(test_queue_create_refuses_bad_arguments_as_rocr_via_kfd),
	T_CASE(test_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory_direct),
	T_CASE(test_queue_is_a_whole_amd_queue_on_an_invalid_ring_in_model_memory_via_kfd),
	T_CASE(test_every_index_function_acts_on_the_amd_queue_fields_direct),
	T_CASE(test_every_index_function_acts_on_the_amd_queue_fields_via_kfd),
	T_CASE(test_inactivate_stops_the_queue_and_destroy_releases_it_direct),
	T_CASE(test_inactivate_stops_the_queue_and_destroy_releases_it_via_kfd),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-hsa-queues", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-hsa-queues", suites);
}
