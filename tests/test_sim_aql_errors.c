/* SPDX-License-Identifier: MIT */
/*
 * The device model's packet processor on bad input: each malformed packet errors its queue with
 * its status while another queue runs on, an unknown kernel object is an invalid code object, a
 * producer overrunning the ring errors the queue (a write index beyond the ring is not an
 * overrun), and the error is written into the amd_queue_t's inactive signal before the callback
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
#include "t_sim_aql.h"

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
		static struct t_rec r;

		CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
		memset(&r, 0, sizeof(r));
		r.sim = sim;
		CU_ASSERT_EQUAL_FATAL(t_q_create(&bad, sim, 0, 16, 7), 0);
		CU_ASSERT_EQUAL_FATAL(t_q_create(&good, sim, 0, 16, 7), 0);
		hsaqm_sim_run_until_idle(sim, T_S);
		uint64_t k = t_aql_kernel(sim, 100 * T_US, 1, &r);
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
	t_aql_setup(&sim, &q, NULL);
	/* A registered kernel's neighbour address and a heap pointer: neither is a model kernel. */
	uint64_t k = t_aql_kernel(sim, T_US, 1, NULL);
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
	t_aql_teardown(sim, &q);
}

static void test_producer_overrunning_the_ring_errors_the_queue(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q q, other;
	static struct t_rec r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	memset(&r, 0, sizeof(r));
	r.sim = sim;
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 8, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&other, sim, 0, 8, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t k = t_aql_kernel(sim, 10 * T_US, 1, &r);
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
	static struct t_rec r;
	t_aql_setup(&sim, &q, &r);
	uint64_t k = t_aql_kernel(sim, 10 * T_US, 1, &r);
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
	t_aql_teardown(sim, &q);
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
	T_CASE(test_each_malformed_packet_errors_its_queue_and_other_queue_runs_on),
	T_CASE(test_unknown_kernel_object_is_invalid_code_object),
	T_CASE(test_producer_overrunning_the_ring_errors_the_queue),
	T_CASE(test_write_index_beyond_the_ring_is_not_an_overrun),
	T_CASE(test_queue_error_is_written_into_the_amd_queue_inactive_signal_before_the_callback),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-aql-errors", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-sim-aql-errors", suites);
}
