/* SPDX-License-Identifier: MIT */
/*
 * The API table detector refuses or degrades safely on tables it does not know, never reading
 * past a declared size: an unknown root major, mismatched sub-table majors, sizes no release
 * had, a root without sub-tables, a truncated table (its entries absent), tools entries only
 * from a tools table it knows, NULL and out-of-range arguments.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-hsa/api_table.h"
#include "t_cunit.h"
#include "t_api_table.h"

static void expect_refused(const struct hsaqm_api_layout *l)
{
	CU_ASSERT_EQUAL(l->id, HSAQM_API_LAYOUT_UNKNOWN);
	for (int e = 0; e < HSAQM_API_ENTRY_COUNT; e++)
		CU_ASSERT_FALSE(l->entry[e].present);
}

/* Build era `i`, rewrite one version field, and expect -ENOTSUP. */
static void expect_enotsup(unsigned int i, int which, size_t field, uint32_t value)
{
	struct t_runtime rt;
	struct hsaqm_api_layout l;
	unsigned char *t;

	t_runtime_build(&rt, &t_eras[i]);
	t = which == 0 ? rt.root : which == 1 ? (unsigned char *)rt.core : (unsigned char *)rt.amd;
	memcpy(t + field, &value, sizeof(value));
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 3, &l), -ENOTSUP);
	expect_refused(&l);
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &l, HSAQM_API_QUEUE_CREATE));
	t_runtime_free(&rt);
}

#define MAJOR offsetof(struct hsaqm_api_table_version, major_id)
#define STEP offsetof(struct hsaqm_api_table_version, step_id)

static void test_api_table_refuses_unknown_root_major(void)
{
	expect_enotsup(6, 0, MAJOR, 0);
	expect_enotsup(6, 0, MAJOR, 4);
	expect_enotsup(6, 0, MAJOR, UINT32_MAX);
}

static void test_api_table_refuses_mismatched_sub_table_major(void)
{
	expect_enotsup(6, 2, MAJOR, 1);	/* 6.3 root with a 5.x AMD extension table */
	expect_enotsup(0, 1, MAJOR, 2);	/* 5.2 root with a 6.x core table */
	expect_enotsup(3, 1, MAJOR, 0);	/* ROCr zeroes the version of a table it rejects */
}

/* What a refused table's era expects. */
#define REFUSED HSAQM_API_LAYOUT_UNKNOWN, HSAQM_API_RELEASE_UNKNOWN, 0

static void test_api_table_refuses_sizes_no_release_had(void)
{
	struct t_runtime rt;
	struct hsaqm_api_layout l;
	static const struct t_era odd[] = {
		/* Major 1: inserted entries make any other size a layout we have not read. */
		{ "5.x AMD ext 408", 1, 48, 0, 1, 1016, 408, 0, NULL, REFUSED },
		{ "5.x AMD ext 392 (ROCm 4.3)", 1, 48, 0, 1, 1016, 392, 0, NULL, REFUSED },
		{ "5.x core 1024", 1, 48, 0, 1, 1024, 456, 0, NULL, REFUSED },
		/* Majors 2 and 3: smaller than the first release of the era. */
		{ "6.0 AMD ext 544", 2, 48, 0, 2, 1016, 544, 0, NULL, REFUSED },
		{ "6.1 AMD ext 552", 3, 56, 0, 2, 1016, 552, 0, NULL, REFUSED },
		{ "6.x core 1008", 3, 64, 1, 2, 1008, 584, 4, NULL, REFUSED },
		{ "6.x AMD ext header only", 3, 64, 1, 2, 1016, 16, 4, NULL, REFUSED },
	};

	for (unsigned int i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		t_runtime_build(&rt, &odd[i]);
		CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, odd[i].root_major, &l), -ENOTSUP);
		expect_refused(&l);
		t_runtime_free(&rt);
	}
}

static void test_api_table_refuses_root_without_sub_tables(void)
{
	struct t_runtime rt;
	struct hsaqm_api_layout l;
	void *null = NULL;

	/* A root declaring 24 bytes, allocated with 24: amd_ext (24..31) must not be read. */
	static const struct t_era tiny = { "root 24", 3, 24, 1, 2, 1016, 584, 4, NULL,
					 HSAQM_API_LAYOUT_UNKNOWN, HSAQM_API_RELEASE_UNKNOWN, 0 };
	t_runtime_build(&rt, &tiny);
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 3, &l), -ENOTSUP);
	expect_refused(&l);
	t_runtime_free(&rt);

	t_runtime_build(&rt, &t_eras[6]);
	memcpy(rt.root + 16, &null, sizeof(null));
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 3, &l), -ENOTSUP);
	t_runtime_free(&rt);

	t_runtime_build(&rt, &t_eras[0]);
	memcpy(rt.root + 24, &null, sizeof(null));
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 1, &l), -ENOTSUP);
	t_runtime_free(&rt);
}

static void test_api_table_truncated_table_reports_entries_absent(void)
{
	struct t_runtime rt;
	struct hsaqm_api_layout l;
	/* Steps that claim entries the sizes do not hold: the size wins, nothing past is read. */
	static const struct t_era cut_get_info = { "6.2 step, 6.1 size", 3, 64, 1, 2, 1016, 560, 3,
						 &t_amd_v2_list, HSAQM_API_LAYOUT_ROCM_6_1, HSAQM_API_RELEASE_UNKNOWN, 0 };
	static const struct t_era cut_counted = { "step 0x15, cut inside counted", 3, 64, 1, 2,
						1016, 632, 0x15, &t_amd_v2_list,
						HSAQM_API_LAYOUT_ROCM_6_1, HSAQM_API_RELEASE_UNKNOWN, 0 };
	/* And a size that holds entries the step does not vouch for. */
	static const struct t_era early_step = { "size 640, step 8", 3, 64, 1, 2, 1016, 640, 8,
					       &t_amd_v2_list, HSAQM_API_LAYOUT_ROCM_6_1, HSAQM_API_RELEASE_UNKNOWN, 0 };

	t_runtime_build(&rt, &cut_get_info);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	CU_ASSERT_FALSE(l.entry[HSAQM_API_AMD_QUEUE_GET_INFO].present);
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &l, HSAQM_API_AMD_QUEUE_GET_INFO));
	CU_ASSERT_TRUE(l.entry[HSAQM_API_AMD_QUEUE_CU_GET_MASK].present);
	t_check_entries(&rt, &l, &t_amd_v2_list, 560, 3);
	t_runtime_free(&rt);

	t_runtime_build(&rt, &cut_counted);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	CU_ASSERT_TRUE(l.entry[HSAQM_API_AMD_COUNTED_QUEUE_ACQUIRE].present);
	CU_ASSERT_FALSE(l.entry[HSAQM_API_AMD_COUNTED_QUEUE_RELEASE].present);
	CU_ASSERT_FALSE(l.entry[HSAQM_API_AMD_QUEUE_CREATE].present);
	t_check_entries(&rt, &l, &t_amd_v2_list, 632, 0x15);
	t_runtime_free(&rt);

	t_runtime_build(&rt, &early_step);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	CU_ASSERT_FALSE(l.entry[HSAQM_API_AMD_COUNTED_QUEUE_ACQUIRE].present);
	CU_ASSERT_FALSE(l.entry[HSAQM_API_AMD_COUNTED_QUEUE_RELEASE].present);
	t_check_entries(&rt, &l, &t_amd_v2_list, 640, 8);
	t_runtime_free(&rt);
}

static void expect_tools(const struct hsaqm_api_layout *l, bool alloc, bool free_, bool reclaim)
{
	CU_ASSERT_EQUAL(l->entry[HSAQM_API_TOOLS_SCRATCH_ALLOC_END].present, alloc);
	CU_ASSERT_EQUAL(l->entry[HSAQM_API_TOOLS_SCRATCH_FREE_END].present, free_);
	CU_ASSERT_EQUAL(l->entry[HSAQM_API_TOOLS_SCRATCH_ASYNC_RECLAIM_END].present, reclaim);
}

static void test_api_table_tools_entries_only_from_a_tools_table_it_knows(void)
{
	struct t_runtime rt;
	struct hsaqm_api_layout l;
	struct hsaqm_api_table_version v = { 2, 64, 0, 0 };
	void *null = NULL;
	/* A 6.3 root that declares 48 bytes: no tools_ member, its memory is not read. */
	static const struct t_era short_root = { "root 3 of 48 bytes", 3, 48, 1, 2, 1016, 584, 4,
					       &t_amd_v2_list, HSAQM_API_LAYOUT_ROCM_6_1,
					       HSAQM_API_RELEASE_UNKNOWN, 256 };

	/* 6.1 and 7.2: all three, at 24, 40 and 56 of the ToolsApiTable. */
	t_runtime_build(&rt, &t_eras[4]);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	expect_tools(&l, true, true, true);
	CU_ASSERT_EQUAL(l.entry[HSAQM_API_TOOLS_SCRATCH_ASYNC_RECLAIM_END].offset, 56u);
	CU_ASSERT_PTR_EQUAL(hsaqm_api_table_slot(rt.root, &l, HSAQM_API_TOOLS_SCRATCH_FREE_END),
			    (char *)rt.tools + 40);
	t_runtime_free(&rt);

	/* No tools table (5.x, 6.0; a root 3 whose pointer is NULL): absent, layout known. */
	t_runtime_build(&rt, &t_eras[3]);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 2, &l), 0);
	expect_tools(&l, false, false, false);
	t_runtime_free(&rt);
	t_runtime_build(&rt, &t_eras[12]);
	memcpy(rt.root + 48, &null, sizeof(null));
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	CU_ASSERT_EQUAL(l.release, HSAQM_API_RELEASE_ROCM_7_2);
	expect_tools(&l, false, false, false);
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &l, HSAQM_API_TOOLS_SCRATCH_ALLOC_END));
	t_runtime_free(&rt);
	t_runtime_build(&rt, &short_root);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	expect_tools(&l, false, false, false);
	t_runtime_free(&rt);

	/* A tools major hsaqm has not read: unused. */
	t_runtime_build(&rt, &t_eras[12]);
	memcpy(rt.tools, &v, sizeof(v));
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	expect_tools(&l, false, false, false);
	t_runtime_free(&rt);

	/* A table declaring 48 bytes: alloc_end and free_end inside, async_reclaim_end not. */
	t_runtime_build(&rt, &t_eras[12]);
	v = (struct hsaqm_api_table_version){ 1, 48, 0, 0 };
	memcpy(rt.tools, &v, sizeof(v));
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	expect_tools(&l, true, true, false);
	t_runtime_free(&rt);
}

static void test_api_table_null_and_out_of_range_arguments(void)
{
	struct t_runtime rt;
	struct hsaqm_api_layout l, unknown;

	t_runtime_build(&rt, &t_eras[6]);
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(NULL, 3, &l), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 3, NULL), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(NULL, &l, HSAQM_API_QUEUE_CREATE));
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, NULL, HSAQM_API_QUEUE_CREATE));
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &l, HSAQM_API_ENTRY_COUNT));
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &l, (enum hsaqm_api_entry)1000));
	unknown = l;
	unknown.id = HSAQM_API_LAYOUT_UNKNOWN;
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &unknown, HSAQM_API_QUEUE_CREATE));
	unknown.id = HSAQM_API_LAYOUT_COUNT;
	CU_ASSERT_PTR_NULL(hsaqm_api_table_slot(rt.root, &unknown, HSAQM_API_QUEUE_CREATE));
	CU_ASSERT_PTR_NOT_NULL(hsaqm_api_table_slot(rt.root, &l, HSAQM_API_QUEUE_CREATE));
	t_runtime_free(&rt);
}

static const struct t_case cases[] = {
	T_CASE(test_api_table_refuses_unknown_root_major),
	T_CASE(test_api_table_refuses_mismatched_sub_table_major),
	T_CASE(test_api_table_refuses_sizes_no_release_had),
	T_CASE(test_api_table_refuses_root_without_sub_tables),
	T_CASE(test_api_table_truncated_table_reports_entries_absent),
	T_CASE(test_api_table_tools_entries_only_from_a_tools_table_it_knows),
	T_CASE(test_api_table_null_and_out_of_range_arguments),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "api-table-refusals", t_build_lists, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-api-table-refusals", suites);
}
