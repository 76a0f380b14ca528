/* SPDX-License-Identifier: MIT */
/*
 * The API table detector identifies every ROCr era from tables filled as ROCr fills them, finds
 * each entry hsaqm needs at ROCr's position (the optional ones by size and step), names each
 * release from its exact headers, and takes the runtime's version only as a hint; a slot
 * replaces the runtime's entry; the names of entries, layouts and releases.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-hsa/api_table.h"
#include "t_cunit.h"
#include "t_api_table.h"

#define T_N_ERAS (sizeof(t_eras) / sizeof(t_eras[0]))

/* ---- Tests --------------------------------------------------------------------------- */

static void test_api_table_history_lists_are_consistent(void)
{
	/* The edits reproduce the sizes ROCr wrote, and major 2 extends 5.6 without moving it. */
	CU_ASSERT_EQUAL(16 + 8 * t_core_list.count, HSAQM_CORE_API_TABLE_SIZE);
	CU_ASSERT_EQUAL(16 + 8 * t_amd_4_5_list.count, HSAQM_AMD_EXT_SIZE_ROCM_4_5);
	CU_ASSERT_EQUAL(16 + 8 * t_amd_5_5_list.count, HSAQM_AMD_EXT_SIZE_ROCM_5_5);
	CU_ASSERT_EQUAL(16 + 8 * t_amd_5_6_list.count, HSAQM_AMD_EXT_SIZE_ROCM_5_6);
	CU_ASSERT_EQUAL(16 + 8 * t_amd_v2_list.count, sizeof(struct hsaqm_amd_ext_table_v2));
	for (unsigned int i = 0; i < t_amd_5_6_list.count; i++)
		CU_ASSERT_STRING_EQUAL(t_amd_5_6_list.name[i], t_amd_v2_list.name[i]);
	CU_ASSERT_EQUAL(t_list_index(&t_amd_4_5_list, 99, "hsa_amd_queue_intercept_create"), 35);
	CU_ASSERT_EQUAL(t_list_index(&t_amd_5_6_list, 99, "hsa_amd_queue_intercept_create"), 37);
}

static void test_api_table_every_needed_entry_is_a_rocr_entry(void)
{
	/* A typo in an entry's name would make it unfindable in any runtime. */
	for (int e = 0; e < HSAQM_API_ENTRY_COUNT; e++) {
		const char *name = hsaqm_api_entry_name((enum hsaqm_api_entry)e);

		CU_ASSERT(t_list_index(&t_core_list, 999, name) >= 0 ||
			  t_list_index(&t_amd_v2_list, 999, name) >= 0 ||
			  t_list_index(&t_tools_list, 999, name) >= 0);
		for (int f = 0; f < e; f++)
			CU_ASSERT(strcmp(name, hsaqm_api_entry_name((enum hsaqm_api_entry)f)) != 0);
	}
}

static void test_api_table_detects_each_rocm_era(void)
{
	for (unsigned int i = 0; i < T_N_ERAS; i++) {
		const struct t_era *e = &t_eras[i];
		struct t_runtime rt;
		struct hsaqm_api_layout l;

		t_runtime_build(&rt, e);
		CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, e->root_major, &l), 0);
		CU_ASSERT_EQUAL(l.id, e->expect);
		CU_ASSERT_EQUAL(l.release, e->release);
		CU_ASSERT_EQUAL(l.queue_desc_size, e->queue_desc);
		/* Named after the release when one wrote these headers, else after the layout. */
		CU_ASSERT_STRING_EQUAL(l.name, e->release ? hsaqm_api_release_name(e->release) :
							    hsaqm_api_layout_name(e->expect));
		CU_ASSERT_EQUAL(l.root.major_id, e->root_major);
		CU_ASSERT_EQUAL(l.root.minor_id, e->root_size);
		CU_ASSERT_EQUAL(l.core.minor_id, e->core_size);
		CU_ASSERT_EQUAL(l.amd_ext.minor_id, e->amd_size);
		CU_ASSERT_EQUAL(l.amd_ext.step_id, e->amd_step);
		CU_ASSERT_EQUAL(l.runtime_version, e->root_major);
		/* Core entries, the nine AMD entries of every layout, plus the appended ones. */
		CU_ASSERT(t_check_entries(&rt, &l, e->amd_names, e->amd_size, e->amd_step) >= 61 + 9);
		t_runtime_free(&rt);
	}
}

static void test_api_table_names_each_release_from_its_exact_headers(void)
{
	/* What OnLoad sees on each Debian root (abi-rocm-* checks these against the headers). */
	static const struct {
		unsigned int era;
		const char *name;
	} debian[] = { { 0, "rocm-4.5-5.4" }, { 4, "rocm-6.1" }, { 11, "rocm-6.4" },
		       { 12, "rocm-7.2" } };
	/* One header off a release's and it is a development build of the same layout. */
	static const struct t_era off_by_one[] = {
		{ "6.4 size, step 4", 3, 64, 1, 2, 1016, 592, 4, &t_amd_v2_list,
		  HSAQM_API_LAYOUT_ROCM_6_1, HSAQM_API_RELEASE_UNKNOWN, 256 },
		{ "7.2 step, root step 0", 3, 64, 0, 2, 1016, 624, 8, &t_amd_v2_list,
		  HSAQM_API_LAYOUT_ROCM_6_1, HSAQM_API_RELEASE_UNKNOWN, 2304 },
		{ "6.1 sizes, root of 6.2", 3, 64, 1, 2, 1016, 560, 1, &t_amd_v2_list,
		  HSAQM_API_LAYOUT_ROCM_6_1, HSAQM_API_RELEASE_UNKNOWN, 256 },
		{ "6.0 AMD ext with a step", 2, 48, 0, 2, 1016, 560, 1, &t_amd_v2_list,
		  HSAQM_API_LAYOUT_ROCM_6_0, HSAQM_API_RELEASE_UNKNOWN, 256 },
	};

	for (unsigned int i = 0; i < sizeof(debian) / sizeof(debian[0]); i++) {
		struct t_runtime rt;
		struct hsaqm_api_layout l;

		t_runtime_build(&rt, &t_eras[debian[i].era]);
		CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, t_eras[debian[i].era].root_major,
							     &l), 0);
		CU_ASSERT_STRING_EQUAL(l.name, debian[i].name);
		t_runtime_free(&rt);
	}
	for (unsigned int i = 0; i < sizeof(off_by_one) / sizeof(off_by_one[0]); i++) {
		const struct t_era *e = &off_by_one[i];
		struct t_runtime rt;
		struct hsaqm_api_layout l;

		t_runtime_build(&rt, e);
		CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, e->root_major, &l), 0);
		CU_ASSERT_EQUAL(l.id, e->expect);
		CU_ASSERT_EQUAL(l.release, HSAQM_API_RELEASE_UNKNOWN);
		CU_ASSERT_STRING_EQUAL(l.name, hsaqm_api_layout_name(e->expect));
		CU_ASSERT_EQUAL(l.queue_desc_size, e->queue_desc);
		/* The entries are where the layout has them all the same. */
		t_check_entries(&rt, &l, e->amd_names, e->amd_size, e->amd_step);
		t_runtime_free(&rt);
	}
}

static void test_api_table_optional_entries_follow_size_and_step(void)
{
	/* hsa_amd_queue_get_info from 6.2, counted queues from step 9, descriptor create 0x10. */
	static const struct {
		unsigned int era;
		bool get_info, counted, amd_create;
	} want[] = {
		{ 4, false, false, false }, { 5, true, false, false }, { 7, true, false, false },
		{ 8, true, true, false }, { 9, true, true, true }, { 10, true, true, true },
	};

	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct t_runtime rt;
		struct hsaqm_api_layout l;

		t_runtime_build(&rt, &t_eras[want[i].era]);
		CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 3, &l), 0);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_GET_INFO].present, want[i].get_info);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_COUNTED_QUEUE_ACQUIRE].present,
				want[i].counted);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_COUNTED_QUEUE_RELEASE].present,
				want[i].counted);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_CREATE].present, want[i].amd_create);
		t_runtime_free(&rt);
	}
}

static void test_api_table_known_offsets_per_era(void)
{
	/* The offsets the issue names, read back through the detector. */
	static const struct {
		unsigned int era;
		uint32_t intercept_create, intercept_register, set_priority, cu_get_mask;
	} want[] = {
		{ 0, 296, 304, 312, 392 }, { 1, 296, 304, 312, 416 }, { 2, 312, 320, 328, 432 },
		{ 3, 312, 320, 328, 432 }, { 10, 312, 320, 328, 432 },
	};

	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct t_runtime rt;
		struct hsaqm_api_layout l;

		t_runtime_build(&rt, &t_eras[want[i].era]);
		CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 1, &l), 0);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_QUEUE_CREATE].offset, 72);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCRELEASE].offset, 208);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_SIGNAL_STORE_SCRELEASE].offset, 352);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_CU_SET_MASK].offset, 96);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_INTERCEPT_CREATE].offset,
				want[i].intercept_create);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_INTERCEPT_REGISTER].offset,
				want[i].intercept_register);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_SET_PRIORITY].offset,
				want[i].set_priority);
		CU_ASSERT_EQUAL(l.entry[HSAQM_API_AMD_QUEUE_CU_GET_MASK].offset,
				want[i].cu_get_mask);
		t_runtime_free(&rt);
	}
}

static void test_api_table_slot_replaces_the_runtime_entry(void)
{
	struct t_runtime rt;
	struct hsaqm_api_layout l;
	void **slot;
	void *mine = (void *)&rt;

	t_runtime_build(&rt, &t_eras[2]);
	CU_ASSERT_EQUAL_FATAL(hsaqm_api_table_detect(rt.root, 1, &l), 0);
	slot = hsaqm_api_table_slot(rt.root, &l, HSAQM_API_AMD_QUEUE_SET_PRIORITY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
	*slot = mine;
	/* The write landed where ROCr 5.6 keeps hsa_amd_queue_set_priority, and nowhere else. */
	{
		struct hsaqm_amd_ext_table_5_6 *amd = rt.amd;
		void *field;
		uint64_t before, after;

		memcpy(&field, &amd->hsa_amd_queue_set_priority_fn, sizeof(field));
		CU_ASSERT_PTR_EQUAL(field, mine);

		memcpy(&before, (unsigned char *)rt.amd + 320, 8);
		memcpy(&after, (unsigned char *)rt.amd + 336, 8);
		CU_ASSERT_EQUAL(before, t_sentinel(T_TAG_AMD, 38));
		CU_ASSERT_EQUAL(after, t_sentinel(T_TAG_AMD, 40));
	}
	t_runtime_free(&rt);
}

static void test_api_table_runtime_version_is_only_a_hint(void)
{
	struct t_runtime rt;
	struct hsaqm_api_layout l;

	t_runtime_build(&rt, &t_eras[6]);
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 0, &l), 0);
	CU_ASSERT_EQUAL(l.id, HSAQM_API_LAYOUT_ROCM_6_1);
	CU_ASSERT_EQUAL(hsaqm_api_table_detect(rt.root, 60300, &l), 0);
	CU_ASSERT_EQUAL(l.id, HSAQM_API_LAYOUT_ROCM_6_1);
	CU_ASSERT_EQUAL(l.runtime_version, 60300);
	t_runtime_free(&rt);
}

static void test_api_table_names(void)
{
	CU_ASSERT_STRING_EQUAL(hsaqm_api_entry_name(HSAQM_API_QUEUE_CREATE), "hsa_queue_create");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_entry_name(HSAQM_API_AMD_QUEUE_SET_PRIORITY),
			       "hsa_amd_queue_set_priority");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_entry_name(HSAQM_API_ENTRY_COUNT), "(invalid entry)");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_entry_name((enum hsaqm_api_entry)1000), "(invalid entry)");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_layout_name(HSAQM_API_LAYOUT_ROCM_5_6), "rocm-5.6-5.7");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_layout_name(HSAQM_API_LAYOUT_UNKNOWN), "unknown");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_layout_name(HSAQM_API_LAYOUT_COUNT), "unknown");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_layout_name((enum hsaqm_api_layout_id)77), "unknown");
	for (int a = HSAQM_API_LAYOUT_ROCM_4_5; a < HSAQM_API_LAYOUT_COUNT; a++)
		for (int b = 0; b < a; b++)
			CU_ASSERT(strcmp(hsaqm_api_layout_name((enum hsaqm_api_layout_id)a),
					 hsaqm_api_layout_name((enum hsaqm_api_layout_id)b)) != 0);
	CU_ASSERT_STRING_EQUAL(hsaqm_api_release_name(HSAQM_API_RELEASE_ROCM_7_2), "rocm-7.2");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_release_name(HSAQM_API_RELEASE_UNKNOWN), "unknown");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_release_name(HSAQM_API_RELEASE_COUNT), "unknown");
	CU_ASSERT_STRING_EQUAL(hsaqm_api_release_name((enum hsaqm_api_release)-1), "unknown");
	/* Release names are distinct, and distinct from the layout names of later t_eras. */
	for (int a = HSAQM_API_RELEASE_ROCM_4_5; a < HSAQM_API_RELEASE_COUNT; a++) {
		for (int b = 0; b < a; b++)
			CU_ASSERT(strcmp(hsaqm_api_release_name((enum hsaqm_api_release)a),
					 hsaqm_api_release_name((enum hsaqm_api_release)b)) != 0);
		CU_ASSERT(strcmp(hsaqm_api_release_name((enum hsaqm_api_release)a),
				 hsaqm_api_layout_name(HSAQM_API_LAYOUT_ROCM_6_1)) != 0);
	}
}

static const struct t_case cases[] = {
	T_CASE(test_api_table_history_lists_are_consistent),
	T_CASE(test_api_table_every_needed_entry_is_a_rocr_entry),
	T_CASE(test_api_table_detects_each_rocm_era),
	T_CASE(test_api_table_names_each_release_from_its_exact_headers),
	T_CASE(test_api_table_optional_entries_follow_size_and_step),
	T_CASE(test_api_table_known_offsets_per_era),
	T_CASE(test_api_table_slot_replaces_the_runtime_entry),
	T_CASE(test_api_table_runtime_version_is_only_a_hint),
	T_CASE(test_api_table_names),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "api-table-eras", t_build_lists, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-api-table-eras", suites);
}
