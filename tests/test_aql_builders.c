/* SPDX-License-Identifier: MIT */
/*
 * The AQL builders produce the exact 64 bytes HSA 1.2 gives (expected bytes written out by hand
 * here, never by calling a builder), and refuse bad descriptors.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hsaqm-hsa/aql.h"
#include "t_aql.h"
#include "t_cunit.h"

static void test_dispatch_build_matches_hand_computed_bytes(void)
{
	/* header 2 | 1 << 8 | 2 << 9 | 1 << 11 = 0x0d02, setup 3 */
	static const uint8_t want[64] = {
		0x02, 0x0d, 0x03, 0x00,	                        /* header, setup */
		0x40, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, /* workgroup x y z, reserved0 */
		0x00, 0x00, 0x01, 0x00,                         /* grid x */
		0x10, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, /* grid y z */
		0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, /* private, group segment */
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* kernel object */
		0x40, 0x56, 0x34, 0x12, 0x00, 0x7f, 0x00, 0x00, /* kernarg address */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* reserved2 */
		0xef, 0xcd, 0xab, 0x00, 0x00, 0x00, 0x00, 0x00, /* completion signal */
	};
	union hsaqm_aql_packet p;

	memset(&p, 0xcc, sizeof(p)); /* every byte must be written, reserved ones as 0 */
	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_dispatch_build(&p, &t_good_dispatch), 0);
	CU_ASSERT_EQUAL(t_packet_cmp("dispatch", p.bytes, want), 0);
	CU_ASSERT_EQUAL(p.dispatch.grid_size_x, 0x10000);
}

static void test_dispatch_build_one_dimension(void)
{
	struct hsaqm_aql_dispatch_desc d = {
		.dims = 1,
		.workgroup_size = { 256, 1, 1 },
		.grid_size = { 256, 1, 1 },
		.kernel_object = 1,
	};
	static const uint8_t want[64] = {
		0x02, 0x00, 0x01, 0x00, 0x00, 0x01, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,
		0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
		[32] = 0x01,
	};
	union hsaqm_aql_packet p;

	memset(&p, 0xcc, sizeof(p));
	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_dispatch_build(&p, &d), 0);
	CU_ASSERT_EQUAL(t_packet_cmp("dispatch 1D", p.bytes, want), 0);
}

static void test_barrier_and_build_matches_hand_computed_bytes(void)
{
	static const uint64_t deps[3] = { 1, 0x0102030405060708ull, 0 };
	struct hsaqm_aql_barrier_desc d = {
		.dep_signals = deps,
		.num_deps = 3,
		.completion_signal = 0xfedcba9876543210ull,
		.barrier = false,
		.acquire_scope = HSAQM_AQL_FENCE_SCOPE_NONE,
		.release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
	};
	/* header 3 | 2 << 11 = 0x1003 */
	static const uint8_t want[64] = {
		0x03, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* header, reserved0, reserved1 */
		0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* dep 0 */
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* dep 1 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* dep 2 (0: satisfied) */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* dep 3 unused */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* dep 4 unused */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* reserved2 */
		0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, /* completion signal */
	};
	union hsaqm_aql_packet p;

	memset(&p, 0xcc, sizeof(p));
	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_barrier_and_build(&p, &d), 0);
	CU_ASSERT_EQUAL(t_packet_cmp("barrier-and", p.bytes, want), 0);
}

static void test_barrier_and_build_five_deps_and_none(void)
{
	static const uint64_t deps[5] = { 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct hsaqm_aql_barrier_desc d = { .dep_signals = deps, .num_deps = 5 };
	static const uint8_t five[64] = {
		0x03, [8] = 0x11, [16] = 0x22, [24] = 0x33, [32] = 0x44, [40] = 0x55,
	};
	static const uint8_t none[64] = { 0x03 };
	union hsaqm_aql_packet p;

	memset(&p, 0xcc, sizeof(p));
	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_barrier_and_build(&p, &d), 0);
	CU_ASSERT_EQUAL(t_packet_cmp("barrier-and 5 deps", p.bytes, five), 0);
	/* No dependencies: a no-op barrier, NULL array allowed. */
	d = (struct hsaqm_aql_barrier_desc){ .dep_signals = NULL, .num_deps = 0 };
	memset(&p, 0xcc, sizeof(p));
	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_barrier_and_build(&p, &d), 0);
	CU_ASSERT_EQUAL(t_packet_cmp("barrier-and 0 deps", p.bytes, none), 0);
}

static void test_barrier_or_build_matches_hand_computed_bytes(void)
{
	static const uint64_t deps[2] = { 0, 0xcafef00dull };
	struct hsaqm_aql_barrier_desc d = {
		.dep_signals = deps,
		.num_deps = 2,
		.barrier = true,
		.acquire_scope = HSAQM_AQL_FENCE_SCOPE_AGENT,
		.release_scope = HSAQM_AQL_FENCE_SCOPE_AGENT,
	};
	/* header 5 | 1 << 8 | 1 << 9 | 1 << 11 = 0x0b05 */
	static const uint8_t want[64] = {
		0x05, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* dep 0 = 0 (never satisfied) */
		0x0d, 0xf0, 0xfe, 0xca, 0x00, 0x00, 0x00, 0x00, /* dep 1 */
		/* deps 2-4, reserved2, completion: 0 */
	};
	union hsaqm_aql_packet p;

	memset(&p, 0xcc, sizeof(p));
	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_barrier_or_build(&p, &d), 0);
	CU_ASSERT_EQUAL(t_packet_cmp("barrier-or", p.bytes, want), 0);
}

static void test_barrier_value_build_matches_hand_computed_bytes(void)
{
	struct hsaqm_aql_barrier_value_desc d = {
		.signal = 0x12345678ull,
		.value = -2,
		.mask = 0xff,
		.cond = HSAQM_AQL_COND_NE,
		.completion_signal = 0x42,
		.barrier = true,
		.acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
		.release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
	};
	/* header VENDOR(0) | 1 << 8 | 2 << 9 | 2 << 11 = 0x1500, AmdFormat BARRIER_VALUE = 2 */
	static const uint8_t want[64] = {
		0x00, 0x15, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, /* header, format, rsvd, rsvd0 */
		0x78, 0x56, 0x34, 0x12, 0x00, 0x00, 0x00, 0x00, /* signal */
		0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* value -2 */
		0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* mask */
		0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* cond NE, reserved1 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* reserved2 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* reserved3 */
		0x42, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* completion signal */
	};
	union hsaqm_aql_packet p;

	memset(&p, 0xcc, sizeof(p));
	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_barrier_value_build(&p, &d), 0);
	CU_ASSERT_EQUAL(t_packet_cmp("barrier-value", p.bytes, want), 0);
	/* The first word a publisher stores: header | (format | reserved << 8) << 16. */
	CU_ASSERT_EQUAL(p.u32[0], 0x00021500u);
	CU_ASSERT_EQUAL(p.common.setup, 0x0002);
}

/* A builder that refuses a descriptor leaves the output as it was. */
#define ASSERT_REFUSED(call, pkt)                                   \
	do {                                                        \
		memset(&(pkt), 0xaa, sizeof(pkt));                  \
		CU_ASSERT_EQUAL(call, -EINVAL);                     \
		CU_ASSERT_EQUAL((pkt).u64[0], 0xaaaaaaaaaaaaaaaaull); \
		CU_ASSERT_EQUAL((pkt).u64[7], 0xaaaaaaaaaaaaaaaaull); \
	} while (0)

static void test_dispatch_build_refuses_bad_descriptors(void)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_dispatch_desc d;

	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, NULL), p);
	CU_ASSERT_EQUAL(hsaqm_aql_dispatch_build(NULL, &t_good_dispatch), -EINVAL);
	d = t_good_dispatch, d.dims = 0;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	d = t_good_dispatch, d.dims = 4;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	for (unsigned int i = 0; i < 3; i++) {
		d = t_good_dispatch, d.workgroup_size[i] = 0;
		ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
		d = t_good_dispatch, d.grid_size[i] = 0;
		ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	}
	/* Grid smaller than one workgroup. */
	d = t_good_dispatch, d.grid_size[0] = 0x3f;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	/* Unused dimensions must be 1. */
	d = t_good_dispatch, d.dims = 2, d.grid_size[2] = 2, d.workgroup_size[2] = 1;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	d = t_good_dispatch, d.dims = 1;
	d.workgroup_size[1] = 1, d.grid_size[1] = 2, d.grid_size[2] = 1;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	d = t_good_dispatch, d.dims = 1;
	d.workgroup_size[1] = 2, d.grid_size[1] = 1, d.grid_size[2] = 1;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	d = t_good_dispatch, d.dims = 1;
	d.workgroup_size[1] = 1, d.grid_size[1] = 1, d.grid_size[2] = 1;
	CU_ASSERT_EQUAL(hsaqm_aql_dispatch_build(&p, &d), 0);
	d = t_good_dispatch, d.kernel_object = 0;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	d = t_good_dispatch, d.acquire_scope = 3;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	d = t_good_dispatch, d.release_scope = 3;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	/* The same descriptor with the unused dimensions set to 1 is fine. */
	d = t_good_dispatch, d.dims = 2, d.grid_size[2] = 1, d.workgroup_size[2] = 1;
	CU_ASSERT_EQUAL(hsaqm_aql_dispatch_build(&p, &d), 0);
	CU_ASSERT_EQUAL(p.common.setup, 2);
}

static void test_barrier_builders_refuse_bad_descriptors(void)
{
	static const uint64_t six[6] = { 1, 2, 3, 4, 5, 6 };
	static const uint64_t zeros[5] = { 0 };
	union hsaqm_aql_packet p;
	struct hsaqm_aql_barrier_desc d = { .dep_signals = six, .num_deps = 6 };

	ASSERT_REFUSED(hsaqm_aql_barrier_and_build(&p, &d), p);
	ASSERT_REFUSED(hsaqm_aql_barrier_or_build(&p, &d), p);
	d = (struct hsaqm_aql_barrier_desc){ .dep_signals = NULL, .num_deps = 1 };
	ASSERT_REFUSED(hsaqm_aql_barrier_and_build(&p, &d), p);
	ASSERT_REFUSED(hsaqm_aql_barrier_or_build(&p, &d), p);
	d = (struct hsaqm_aql_barrier_desc){ .dep_signals = six, .num_deps = 1,
					     .acquire_scope = 3 };
	ASSERT_REFUSED(hsaqm_aql_barrier_and_build(&p, &d), p);
	d = (struct hsaqm_aql_barrier_desc){ .dep_signals = six, .num_deps = 1,
					     .release_scope = 7 };
	ASSERT_REFUSED(hsaqm_aql_barrier_or_build(&p, &d), p);
	ASSERT_REFUSED(hsaqm_aql_barrier_and_build(&p, NULL), p);
	ASSERT_REFUSED(hsaqm_aql_barrier_or_build(&p, NULL), p);
	d = (struct hsaqm_aql_barrier_desc){ .dep_signals = six, .num_deps = 1 };
	CU_ASSERT_EQUAL(hsaqm_aql_barrier_and_build(NULL, &d), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_aql_barrier_or_build(NULL, &d), -EINVAL);
	/* Barrier-OR: a 0 handle is never satisfied, so all-zero would block the queue forever. */
	d = (struct hsaqm_aql_barrier_desc){ .dep_signals = NULL, .num_deps = 0 };
	ASSERT_REFUSED(hsaqm_aql_barrier_or_build(&p, &d), p);
	d = (struct hsaqm_aql_barrier_desc){ .dep_signals = zeros, .num_deps = 5 };
	ASSERT_REFUSED(hsaqm_aql_barrier_or_build(&p, &d), p);
	/* ... which barrier-AND accepts (0 = satisfied). */
	CU_ASSERT_EQUAL(hsaqm_aql_barrier_and_build(&p, &d), 0);
}

static void test_barrier_value_build_refuses_bad_descriptors(void)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_barrier_value_desc d = { .signal = 1, .cond = HSAQM_AQL_COND_GTE + 1 };

	ASSERT_REFUSED(hsaqm_aql_barrier_value_build(&p, &d), p);
	d = (struct hsaqm_aql_barrier_value_desc){ .signal = 1, .acquire_scope = 3 };
	ASSERT_REFUSED(hsaqm_aql_barrier_value_build(&p, &d), p);
	d = (struct hsaqm_aql_barrier_value_desc){ .signal = 1, .release_scope = 3 };
	ASSERT_REFUSED(hsaqm_aql_barrier_value_build(&p, &d), p);
	ASSERT_REFUSED(hsaqm_aql_barrier_value_build(&p, NULL), p);
	d = (struct hsaqm_aql_barrier_value_desc){ .signal = 1 };
	CU_ASSERT_EQUAL(hsaqm_aql_barrier_value_build(NULL, &d), -EINVAL);
	/* Every defined condition is accepted and lands at byte 32. */
	for (uint32_t c = HSAQM_AQL_COND_EQ; c <= HSAQM_AQL_COND_GTE; c++) {
		d.cond = c;
		CU_ASSERT_EQUAL(hsaqm_aql_barrier_value_build(&p, &d), 0);
		CU_ASSERT_EQUAL(p.bytes[32], c);
	}
}

static const struct t_case builder_cases[] = {
	T_CASE(test_dispatch_build_matches_hand_computed_bytes),
	T_CASE(test_dispatch_build_one_dimension),
	T_CASE(test_barrier_and_build_matches_hand_computed_bytes),
	T_CASE(test_barrier_and_build_five_deps_and_none),
	T_CASE(test_barrier_or_build_matches_hand_computed_bytes),
	T_CASE(test_barrier_value_build_matches_hand_computed_bytes),
	T_CASE(test_dispatch_build_refuses_bad_descriptors),
	T_CASE(test_barrier_builders_refuse_bad_descriptors),
	T_CASE(test_barrier_value_build_refuses_bad_descriptors),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "aql-builders", NULL, NULL, builder_cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-aql-builders", suites);
}
