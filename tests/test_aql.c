/* SPDX-License-Identifier: MIT */
/*
 * AQL headers and setup fields encode and decode bit for bit as HSA 1.2 defines them, the
 * builders produce the exact 64 bytes the spec gives (expected bytes written out by hand
 * here, never by calling a builder), bad input is refused, and a slot's first word is
 * written after its body.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hsaqm-hsa/aql.h"
#include "t_cunit.h"

#if defined(__has_include)
#if __has_include(<hsa/hsa_ext_amd.h>)
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#define HAVE_HSA_HEADERS 1
#endif
#endif

/* Prints where two packet images first differ, so a failure says which field is wrong. */
static int packet_cmp(const char *what, const uint8_t *got, const uint8_t *want)
{
	for (unsigned int i = 0; i < HSAQM_AQL_PACKET_SIZE; i++) {
		if (got[i] != want[i]) {
			printf("\n%s: byte %u is 0x%02x, expected 0x%02x\n", what, i, got[i],
			       want[i]);
			return 1;
		}
	}
	return 0;
}

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

/* ---- builders ---- */

static const struct hsaqm_aql_dispatch_desc good_dispatch = {
	.dims = 3,
	.workgroup_size = { 0x40, 2, 1 },
	.grid_size = { 0x10000, 0x10, 3 },
	.private_segment_size = 0x100,
	.group_segment_size = 0x1000,
	.kernel_object = 0x1122334455667788ull,
	.kernarg_address = 0x00007f0012345640ull,
	.completion_signal = 0xabcdefull,
	.barrier = true,
	.acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
	.release_scope = HSAQM_AQL_FENCE_SCOPE_AGENT,
};

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
	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_dispatch_build(&p, &good_dispatch), 0);
	CU_ASSERT_EQUAL(packet_cmp("dispatch", p.bytes, want), 0);
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
	CU_ASSERT_EQUAL(packet_cmp("dispatch 1D", p.bytes, want), 0);
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
	CU_ASSERT_EQUAL(packet_cmp("barrier-and", p.bytes, want), 0);
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
	CU_ASSERT_EQUAL(packet_cmp("barrier-and 5 deps", p.bytes, five), 0);
	/* No dependencies: a no-op barrier, NULL array allowed. */
	d = (struct hsaqm_aql_barrier_desc){ .dep_signals = NULL, .num_deps = 0 };
	memset(&p, 0xcc, sizeof(p));
	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_barrier_and_build(&p, &d), 0);
	CU_ASSERT_EQUAL(packet_cmp("barrier-and 0 deps", p.bytes, none), 0);
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
	CU_ASSERT_EQUAL(packet_cmp("barrier-or", p.bytes, want), 0);
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
	CU_ASSERT_EQUAL(packet_cmp("barrier-value", p.bytes, want), 0);
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
	CU_ASSERT_EQUAL(hsaqm_aql_dispatch_build(NULL, &good_dispatch), -EINVAL);
	d = good_dispatch, d.dims = 0;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	d = good_dispatch, d.dims = 4;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	for (unsigned int i = 0; i < 3; i++) {
		d = good_dispatch, d.workgroup_size[i] = 0;
		ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
		d = good_dispatch, d.grid_size[i] = 0;
		ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	}
	/* Grid smaller than one workgroup. */
	d = good_dispatch, d.grid_size[0] = 0x3f;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	/* Unused dimensions must be 1. */
	d = good_dispatch, d.dims = 2, d.grid_size[2] = 2, d.workgroup_size[2] = 1;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	d = good_dispatch, d.dims = 1;
	d.workgroup_size[1] = 1, d.grid_size[1] = 2, d.grid_size[2] = 1;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	d = good_dispatch, d.dims = 1;
	d.workgroup_size[1] = 2, d.grid_size[1] = 1, d.grid_size[2] = 1;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	d = good_dispatch, d.dims = 1;
	d.workgroup_size[1] = 1, d.grid_size[1] = 1, d.grid_size[2] = 1;
	CU_ASSERT_EQUAL(hsaqm_aql_dispatch_build(&p, &d), 0);
	d = good_dispatch, d.kernel_object = 0;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	d = good_dispatch, d.acquire_scope = 3;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	d = good_dispatch, d.release_scope = 3;
	ASSERT_REFUSED(hsaqm_aql_dispatch_build(&p, &d), p);
	/* The same descriptor with the unused dimensions set to 1 is fine. */
	d = good_dispatch, d.dims = 2, d.grid_size[2] = 1, d.workgroup_size[2] = 1;
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

/* ---- slot protocol ---- */

static union hsaqm_aql_packet slot;

static void fill_invalid_slot(void)
{
	memset(&slot, 0x5a, sizeof(slot));
	slot.u32[0] = HSAQM_AQL_INVALID_WORD;
}

static void test_body_write_leaves_header_invalid_until_header_store(void)
{
	union hsaqm_aql_packet p;

	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_dispatch_build(&p, &good_dispatch), 0);
	fill_invalid_slot();
	CU_ASSERT_EQUAL(hsaqm_aql_slot_write_body(&slot, &p), 0);
	/* The consumer still sees an INVALID packet: the header word was not touched. */
	CU_ASSERT_EQUAL(hsaqm_aql_slot_load_header(&slot), HSAQM_AQL_INVALID_WORD);
	CU_ASSERT_EQUAL(memcmp(&slot.bytes[4], &p.bytes[4], 60), 0);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_store_header(&slot, p.common.header, p.common.setup), 0);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_load_header(&slot), 0x00030d02u);
	CU_ASSERT_EQUAL(packet_cmp("slot", slot.bytes, p.bytes), 0);
}

static void test_publish_writes_whole_packet_and_invalidate_only_the_header(void)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_barrier_value_desc d = { .signal = 7, .value = 1, .mask = -1 };

	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_barrier_value_build(&p, &d), 0);
	fill_invalid_slot();
	CU_ASSERT_EQUAL(hsaqm_aql_publish(&slot, &p), 0);
	CU_ASSERT_EQUAL(packet_cmp("published", slot.bytes, p.bytes), 0);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_load_header(&slot) & 0xff, HSAQM_AQL_TYPE_VENDOR);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_invalidate(&slot), 0);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_load_header(&slot), HSAQM_AQL_INVALID_WORD);
	CU_ASSERT_EQUAL(memcmp(&slot.bytes[4], &p.bytes[4], 60), 0);
}

static void test_publish_refuses_null_invalid_and_reserved_types(void)
{
	union hsaqm_aql_packet p;

	memset(&p, 0x11, sizeof(p));
	p.u32[0] = HSAQM_AQL_INVALID_WORD;
	fill_invalid_slot();
	CU_ASSERT_EQUAL(hsaqm_aql_publish(&slot, &p), -EINVAL);
	CU_ASSERT_EQUAL(slot.bytes[10], 0x5a); /* nothing written */
	p.u32[0] = 6;
	CU_ASSERT_EQUAL(hsaqm_aql_publish(&slot, &p), -EINVAL);
	p.u32[0] = 0x00ff;
	CU_ASSERT_EQUAL(hsaqm_aql_publish(&slot, &p), -EINVAL);
	CU_ASSERT_EQUAL(slot.bytes[10], 0x5a);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_store_header(&slot, HSAQM_AQL_TYPE_INVALID, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_store_header(&slot, 0x0007, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_load_header(&slot), HSAQM_AQL_INVALID_WORD);
	p.u32[0] = 0x1502;
	CU_ASSERT_EQUAL(hsaqm_aql_publish(NULL, &p), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_aql_publish(&slot, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_write_body(NULL, &p), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_write_body(&slot, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_store_header(NULL, 0x1502, 1), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_invalidate(NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_load_header(NULL), HSAQM_AQL_INVALID_WORD);
	CU_ASSERT_EQUAL(slot.bytes[10], 0x5a);
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

static const struct t_case slot_cases[] = {
	T_CASE(test_body_write_leaves_header_invalid_until_header_store),
	T_CASE(test_publish_writes_whole_packet_and_invalidate_only_the_header),
	T_CASE(test_publish_refuses_null_invalid_and_reserved_types),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "aql-header", NULL, NULL, header_cases },
		{ "aql-builders", NULL, NULL, builder_cases },
		{ "aql-slot", NULL, NULL, slot_cases },
		T_SUITES_END,
	};
	return t_run("test-aql", suites);
}
