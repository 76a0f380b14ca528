/* SPDX-License-Identifier: MIT */
/*
 * An AQL slot's first word is written after its body: the header stays INVALID until it is
 * stored, a publish writes the whole packet, an invalidate only the header, and NULL, INVALID and
 * reserved types are refused.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hsaqm-hsa/aql.h"
#include "t_aql.h"
#include "t_cunit.h"

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

	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_dispatch_build(&p, &t_good_dispatch), 0);
	fill_invalid_slot();
	CU_ASSERT_EQUAL(hsaqm_aql_slot_write_body(&slot, &p), 0);
	/* The consumer still sees an INVALID packet: the header word was not touched. */
	CU_ASSERT_EQUAL(hsaqm_aql_slot_load_header(&slot), HSAQM_AQL_INVALID_WORD);
	CU_ASSERT_EQUAL(memcmp(&slot.bytes[4], &p.bytes[4], 60), 0);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_store_header(&slot, p.common.header, p.common.setup), 0);
	CU_ASSERT_EQUAL(hsaqm_aql_slot_load_header(&slot), 0x00030d02u);
	CU_ASSERT_EQUAL(t_packet_cmp("slot", slot.bytes, p.bytes), 0);
}

static void test_publish_writes_whole_packet_and_invalidate_only_the_header(void)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_barrier_value_desc d = { .signal = 7, .value = 1, .mask = -1 };

	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_barrier_value_build(&p, &d), 0);
	fill_invalid_slot();
	CU_ASSERT_EQUAL(hsaqm_aql_publish(&slot, &p), 0);
	CU_ASSERT_EQUAL(t_packet_cmp("published", slot.bytes, p.bytes), 0);
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

static const struct t_case slot_cases[] = {
	T_CASE(test_body_write_leaves_header_invalid_until_header_store),
	T_CASE(test_publish_writes_whole_packet_and_invalidate_only_the_header),
	T_CASE(test_publish_refuses_null_invalid_and_reserved_types),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "aql-slot", NULL, NULL, slot_cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-aql-slot", suites);
}
