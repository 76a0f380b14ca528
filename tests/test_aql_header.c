/* SPDX-License-Identifier: MIT */
/*
 * AQL headers and setup fields encode and decode bit for bit as HSA 1.2 defines them (every
 * field combination, the spec's values, each single bit), bad fields and reserved values are
 * refused, and where ROCm's headers are installed they agree with every constant and offset.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hsaqm-hsa/aql.h"
#include "t_aql.h"
#include "t_cunit.h"

#if defined(__has_include)
#if __has_include(<hsa/hsa_ext_amd.h>)
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#define HAVE_HSA_HEADERS 1
#endif
#endif

/* ---- header ---- */

static void check_header_round_trip(unsigned int type, unsigned int barrier, unsigned int acq,
				    unsigned int rel)
{
	struct hsaqm_aql_header h = { (uint8_t)type, barrier != 0, (uint8_t)acq, (uint8_t)rel };
	struct hsaqm_aql_header back;
	uint16_t word = 0xffff;
	/* HSA 1.2: type bits 0-7, barrier 8, acquire scope 9-10, release scope 11-12. */
	uint16_t want = (uint16_t)(type | barrier << 8 | acq << 9 | rel << 11);

	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_header_encode(&h, &word), 0);
	CU_ASSERT_EQUAL(word, want);
	memset(&back, 0xa5, sizeof(back));
	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_header_decode(word, &back), 0);
	CU_ASSERT_EQUAL(back.type, type);
	CU_ASSERT_EQUAL(back.barrier, barrier != 0);
	CU_ASSERT_EQUAL(back.acquire_scope, acq);
	CU_ASSERT_EQUAL(back.release_scope, rel);
}

static void test_header_every_field_combination_round_trips(void)
{
	unsigned int checked = 0;

	for (unsigned int type = 0; type <= 5; type++)
		for (unsigned int barrier = 0; barrier <= 1; barrier++)
			for (unsigned int acq = 0; acq <= 2; acq++)
				for (unsigned int rel = 0; rel <= 2; rel++, checked++)
					check_header_round_trip(type, barrier, acq, rel);
	CU_ASSERT_EQUAL(checked, 6 * 2 * 3 * 3);
}

static void test_header_known_values_from_the_spec(void)
{
	struct hsaqm_aql_header h = { HSAQM_AQL_TYPE_KERNEL_DISPATCH, true,
				      HSAQM_AQL_FENCE_SCOPE_SYSTEM, HSAQM_AQL_FENCE_SCOPE_SYSTEM };
	uint16_t word;

	/* The usual kernel header: 2 | 1 << 8 | 2 << 9 | 2 << 11. */
	CU_ASSERT_EQUAL(hsaqm_aql_header_encode(&h, &word), 0);
	CU_ASSERT_EQUAL(word, 0x1502);
	/* A slot a consumer has released: type INVALID and nothing else. */
	h = (struct hsaqm_aql_header){ HSAQM_AQL_TYPE_INVALID, false, 0, 0 };
	CU_ASSERT_EQUAL(hsaqm_aql_header_encode(&h, &word), 0);
	CU_ASSERT_EQUAL(word, 0x0001);
	CU_ASSERT_EQUAL(word, HSAQM_AQL_INVALID_WORD);
	/* The guardian: barrier-AND, no barrier bit, system scopes. */
	h = (struct hsaqm_aql_header){ HSAQM_AQL_TYPE_BARRIER_AND, false, 2, 2 };
	CU_ASSERT_EQUAL(hsaqm_aql_header_encode(&h, &word), 0);
	CU_ASSERT_EQUAL(word, 0x1403);
}

/* Each of the 16 header bits alone decodes to exactly one field (or is refused). */
static void test_header_each_single_bit_decodes_to_its_field(void)
{
	static const struct {
		int err;
		uint8_t type, barrier, acq, rel;
	} want[16] = {
		[0] = { 0, 1, 0, 0, 0 },       [1] = { 0, 2, 0, 0, 0 },
		[2] = { 0, 4, 0, 0, 0 },       [3] = { -EINVAL, 8, 0, 0, 0 },
		[4] = { -EINVAL, 16, 0, 0, 0 }, [5] = { -EINVAL, 32, 0, 0, 0 },
		[6] = { -EINVAL, 64, 0, 0, 0 }, [7] = { -EINVAL, 128, 0, 0, 0 },
		[8] = { 0, 0, 1, 0, 0 },       [9] = { 0, 0, 0, 1, 0 },
		[10] = { 0, 0, 0, 2, 0 },      [11] = { 0, 0, 0, 0, 1 },
		[12] = { 0, 0, 0, 0, 2 },      [13] = { -EINVAL, 0, 0, 0, 0 },
		[14] = { -EINVAL, 0, 0, 0, 0 }, [15] = { -EINVAL, 0, 0, 0, 0 },
	};

	for (unsigned int bit = 0; bit < 16; bit++) {
		struct hsaqm_aql_header h;

		CU_ASSERT_EQUAL(hsaqm_aql_header_decode((uint16_t)(1u << bit), &h), want[bit].err);
		/* Fields are reported even when the header is refused. */
		CU_ASSERT_EQUAL(h.type, want[bit].type);
		CU_ASSERT_EQUAL(h.barrier, want[bit].barrier);
		CU_ASSERT_EQUAL(h.acquire_scope, want[bit].acq);
		CU_ASSERT_EQUAL(h.release_scope, want[bit].rel);
	}
}

static void test_header_decode_refuses_reserved_values(void)
{
	struct hsaqm_aql_header h;

	for (unsigned int type = 6; type <= 255; type++) {
		CU_ASSERT_EQUAL(hsaqm_aql_header_decode((uint16_t)type, &h), -EINVAL);
		CU_ASSERT_EQUAL(h.type, type);
	}
	/* Fence scope 3 is reserved, for acquire and for release. */
	CU_ASSERT_EQUAL(hsaqm_aql_header_decode(0x0002 | 3u << 9, &h), -EINVAL);
	CU_ASSERT_EQUAL(h.acquire_scope, 3);
	CU_ASSERT_EQUAL(hsaqm_aql_header_decode(0x0002 | 3u << 11, &h), -EINVAL);
	CU_ASSERT_EQUAL(h.release_scope, 3);
	CU_ASSERT_EQUAL(hsaqm_aql_header_decode(0x1502, NULL), -EINVAL);
}

static void test_header_encode_refuses_bad_fields(void)
{
	struct hsaqm_aql_header h = { 6, false, 0, 0 };
	uint16_t word = 0x5555;

	CU_ASSERT_EQUAL(hsaqm_aql_header_encode(&h, &word), -EINVAL);
	h = (struct hsaqm_aql_header){ 255, false, 0, 0 };
	CU_ASSERT_EQUAL(hsaqm_aql_header_encode(&h, &word), -EINVAL);
	h = (struct hsaqm_aql_header){ 2, false, 3, 0 };
	CU_ASSERT_EQUAL(hsaqm_aql_header_encode(&h, &word), -EINVAL);
	h = (struct hsaqm_aql_header){ 2, false, 0, 3 };
	CU_ASSERT_EQUAL(hsaqm_aql_header_encode(&h, &word), -EINVAL);
	h = (struct hsaqm_aql_header){ 2, false, 0, 4 };
	CU_ASSERT_EQUAL(hsaqm_aql_header_encode(&h, &word), -EINVAL);
	CU_ASSERT_EQUAL(word, 0x5555); /* untouched on error */
	CU_ASSERT_EQUAL(hsaqm_aql_header_encode(NULL, &word), -EINVAL);
	h = (struct hsaqm_aql_header){ 2, false, 0, 0 };
	CU_ASSERT_EQUAL(hsaqm_aql_header_encode(&h, NULL), -EINVAL);
}

/* ---- setup ---- */

static void test_setup_dimensions_round_trip(void)
{
	for (unsigned int dims = 1; dims <= 3; dims++) {
		uint16_t setup = 0xffff;
		unsigned int back = 0;

		CU_ASSERT_EQUAL(hsaqm_aql_setup_encode(dims, &setup), 0);
		CU_ASSERT_EQUAL(setup, dims); /* bits 0-1, nothing else */
		CU_ASSERT_EQUAL(hsaqm_aql_setup_decode(setup, &back), 0);
		CU_ASSERT_EQUAL(back, dims);
	}
}

static void test_setup_refuses_bad_dimensions_and_reserved_bits(void)
{
	uint16_t setup = 0x7777;
	unsigned int dims;

	CU_ASSERT_EQUAL(hsaqm_aql_setup_encode(0, &setup), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_aql_setup_encode(4, &setup), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_aql_setup_encode(~0u, &setup), -EINVAL);
	CU_ASSERT_EQUAL(setup, 0x7777);
	CU_ASSERT_EQUAL(hsaqm_aql_setup_encode(1, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_aql_setup_decode(0, &dims), -EINVAL);
	CU_ASSERT_EQUAL(dims, 0);
	for (unsigned int bit = 2; bit < 16; bit++) {
		CU_ASSERT_EQUAL(hsaqm_aql_setup_decode((uint16_t)(1u | 1u << bit), &dims), -EINVAL);
		CU_ASSERT_EQUAL(dims, 1); /* the dimension field is still reported */
	}
	CU_ASSERT_EQUAL(hsaqm_aql_setup_decode(1, NULL), -EINVAL);
}

#ifdef HAVE_HSA_HEADERS
#define SAME_OFFSET(ours, theirs, member) \
	CU_ASSERT_EQUAL(offsetof(ours, member), offsetof(theirs, member))
#define KD hsa_kernel_dispatch_packet_t
#define AGENT hsa_agent_dispatch_packet_t
#define BV hsa_amd_barrier_value_packet_t

/* The installed ROCm headers agree with every constant and offset (they are not used otherwise). */
static void test_layouts_and_constants_agree_with_installed_hsa_headers(void)
{
	CU_ASSERT_EQUAL(HSAQM_AQL_TYPE_VENDOR, HSA_PACKET_TYPE_VENDOR_SPECIFIC);
	CU_ASSERT_EQUAL(HSAQM_AQL_TYPE_INVALID, HSA_PACKET_TYPE_INVALID);
	CU_ASSERT_EQUAL(HSAQM_AQL_TYPE_KERNEL_DISPATCH, HSA_PACKET_TYPE_KERNEL_DISPATCH);
	CU_ASSERT_EQUAL(HSAQM_AQL_TYPE_BARRIER_AND, HSA_PACKET_TYPE_BARRIER_AND);
	CU_ASSERT_EQUAL(HSAQM_AQL_TYPE_AGENT_DISPATCH, HSA_PACKET_TYPE_AGENT_DISPATCH);
	CU_ASSERT_EQUAL(HSAQM_AQL_TYPE_BARRIER_OR, HSA_PACKET_TYPE_BARRIER_OR);
	CU_ASSERT_EQUAL(HSAQM_AQL_FENCE_SCOPE_NONE, HSA_FENCE_SCOPE_NONE);
	CU_ASSERT_EQUAL(HSAQM_AQL_FENCE_SCOPE_AGENT, HSA_FENCE_SCOPE_AGENT);
	CU_ASSERT_EQUAL(HSAQM_AQL_FENCE_SCOPE_SYSTEM, HSA_FENCE_SCOPE_SYSTEM);
	CU_ASSERT_EQUAL(HSAQM_AQL_HEADER_TYPE_SHIFT, HSA_PACKET_HEADER_TYPE);
	CU_ASSERT_EQUAL(HSAQM_AQL_HEADER_BARRIER_SHIFT, HSA_PACKET_HEADER_BARRIER);
	CU_ASSERT_EQUAL(HSAQM_AQL_HEADER_ACQUIRE_SHIFT, HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE);
	CU_ASSERT_EQUAL(HSAQM_AQL_HEADER_RELEASE_SHIFT, HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
	CU_ASSERT_EQUAL(HSAQM_AQL_HEADER_TYPE_WIDTH, HSA_PACKET_HEADER_WIDTH_TYPE);
	CU_ASSERT_EQUAL(HSAQM_AQL_HEADER_BARRIER_WIDTH, HSA_PACKET_HEADER_WIDTH_BARRIER);
	CU_ASSERT_EQUAL(HSAQM_AQL_HEADER_ACQUIRE_WIDTH,
			HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE);
	CU_ASSERT_EQUAL(HSAQM_AQL_HEADER_RELEASE_WIDTH,
			HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE);
	CU_ASSERT_EQUAL(HSAQM_AQL_SETUP_DIMENSIONS_SHIFT,
			HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
	CU_ASSERT_EQUAL(HSAQM_AQL_SETUP_DIMENSIONS_WIDTH,
			HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS);
	CU_ASSERT_EQUAL(HSAQM_AQL_AMD_FORMAT_BARRIER_VALUE, HSA_AMD_PACKET_TYPE_BARRIER_VALUE);
	CU_ASSERT_EQUAL(HSAQM_AQL_COND_EQ, HSA_SIGNAL_CONDITION_EQ);
	CU_ASSERT_EQUAL(HSAQM_AQL_COND_NE, HSA_SIGNAL_CONDITION_NE);
	CU_ASSERT_EQUAL(HSAQM_AQL_COND_LT, HSA_SIGNAL_CONDITION_LT);
	CU_ASSERT_EQUAL(HSAQM_AQL_COND_GTE, HSA_SIGNAL_CONDITION_GTE);

	CU_ASSERT_EQUAL(sizeof(hsa_kernel_dispatch_packet_t), 64);
	SAME_OFFSET(struct hsaqm_aql_dispatch, KD, setup);
	SAME_OFFSET(struct hsaqm_aql_dispatch, KD, workgroup_size_x);
	SAME_OFFSET(struct hsaqm_aql_dispatch, KD, workgroup_size_z);
	SAME_OFFSET(struct hsaqm_aql_dispatch, KD, grid_size_x);
	SAME_OFFSET(struct hsaqm_aql_dispatch, KD, grid_size_z);
	SAME_OFFSET(struct hsaqm_aql_dispatch, KD, private_segment_size);
	SAME_OFFSET(struct hsaqm_aql_dispatch, KD, group_segment_size);
	SAME_OFFSET(struct hsaqm_aql_dispatch, KD, kernel_object);
	SAME_OFFSET(struct hsaqm_aql_dispatch, KD, kernarg_address);
	SAME_OFFSET(struct hsaqm_aql_dispatch, KD, reserved2);
	SAME_OFFSET(struct hsaqm_aql_dispatch, KD, completion_signal);
	SAME_OFFSET(struct hsaqm_aql_barrier, hsa_barrier_and_packet_t, dep_signal);
	SAME_OFFSET(struct hsaqm_aql_barrier, hsa_barrier_and_packet_t, completion_signal);
	SAME_OFFSET(struct hsaqm_aql_barrier, hsa_barrier_or_packet_t, dep_signal);
	SAME_OFFSET(struct hsaqm_aql_barrier, hsa_barrier_or_packet_t, completion_signal);
	SAME_OFFSET(struct hsaqm_aql_agent_dispatch, AGENT, type);
	SAME_OFFSET(struct hsaqm_aql_agent_dispatch, AGENT, return_address);
	SAME_OFFSET(struct hsaqm_aql_agent_dispatch, AGENT, arg);
	SAME_OFFSET(struct hsaqm_aql_agent_dispatch, AGENT, completion_signal);
	CU_ASSERT_EQUAL(sizeof(hsa_amd_barrier_value_packet_t), 64);
	CU_ASSERT_EQUAL(offsetof(hsa_amd_barrier_value_packet_t, header.AmdFormat),
			offsetof(struct hsaqm_aql_barrier_value, amd_format));
	SAME_OFFSET(struct hsaqm_aql_barrier_value, BV, signal);
	SAME_OFFSET(struct hsaqm_aql_barrier_value, BV, value);
	SAME_OFFSET(struct hsaqm_aql_barrier_value, BV, mask);
	SAME_OFFSET(struct hsaqm_aql_barrier_value, BV, cond);
	SAME_OFFSET(struct hsaqm_aql_barrier_value, BV, completion_signal);
}
#endif

static const struct t_case header_cases[] = {
	T_CASE(test_header_every_field_combination_round_trips),
	T_CASE(test_header_known_values_from_the_spec),
	T_CASE(test_header_each_single_bit_decodes_to_its_field),
	T_CASE(test_header_decode_refuses_reserved_values),
	T_CASE(test_header_encode_refuses_bad_fields),
	T_CASE(test_setup_dimensions_round_trip),
	T_CASE(test_setup_refuses_bad_dimensions_and_reserved_bits),
#ifdef HAVE_HSA_HEADERS
	T_CASE(test_layouts_and_constants_agree_with_installed_hsa_headers),
#endif
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "aql-header", NULL, NULL, header_cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-aql-header", suites);
}
