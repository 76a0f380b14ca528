/* SPDX-License-Identifier: MIT */
/*
 * The ring writer keeps a batch invisible to an in-order consumer until all of it is valid (the
 * first header stored last), and a batch behind an unpublished one waits: the doorbell is a
 * hint.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-hsa/ring.h"
#include "ring_internal.h"
#include "t_cunit.h"
#include "t_time.h"
#include "t_ring.h"

/* ---- batch visibility ---- */

static struct t_fixture *hook_fx;
static unsigned int hook_stages;
static bool hook_ok;

static void check_stage(const struct hsaqm_ring *ring, uint64_t first, uint32_t n, int stage)
{
	struct t_fixture *fx = hook_fx;

	hook_stages |= 1u << stage;
	/* Whatever else is stored, an in-order consumer sees nothing of the batch yet. */
	if (t_visible(fx) != 0 || ring != &fx->ring)
		hook_ok = false;
	for (uint32_t i = 0; i < n; i++) {
		const union hsaqm_aql_packet *slot = hsaqm_ring_slot(ring, first + i);
		bool valid = (hsaqm_aql_slot_load_header(slot) & 0xff) != HSAQM_AQL_TYPE_INVALID;

		if (t_tag_of(slot) != 1000 + first + i) /* bodies are all written before any header */
			hook_ok = false;
		if (stage == HSAQM_RING_STAGE_BODIES_WRITTEN && valid)
			hook_ok = false;
		/* Then every header but the first. */
		if (stage == HSAQM_RING_STAGE_TAIL_HEADERS_SET && valid != (i != 0))
			hook_ok = false;
	}
}

static void test_batch_invisible_until_first_header_stored_last(void)
{
	struct t_fixture fx;
	union hsaqm_aql_packet pkts[5];
	uint64_t first = 0;

	/* Indices 6..10 of an 8-slot ring: the batch wraps from slot 6 to slot 2. */
	t_fixture_init(&fx, 8, 6);
	for (int i = 0; i < 5; i++)
		pkts[i] = t_tagged(1000 + 6 + i);
	hook_fx = &fx;
	hook_stages = 0;
	hook_ok = true;
	/*
	 * hsaqm_ring_publish() runs the very sequence the submit paths inline
	 * (__hsaqm_ring_publish_seq), here with the hook at its two inner points.
	 */
	CU_ASSERT_EQUAL_FATAL(hsaqm_ring_reserve(&fx.ring, 5, 0, &first), 0);
	CU_ASSERT_EQUAL(first, 6);
	hsaqm_ring_publish_hook = check_stage;
	CU_ASSERT_EQUAL(hsaqm_ring_publish(&fx.ring, first, pkts, 5), 0);
	hsaqm_ring_publish_hook = NULL;
	CU_ASSERT_EQUAL(hook_stages, 3); /* both stages were observed */
	CU_ASSERT(hook_ok);
	CU_ASSERT_EQUAL(t_visible(&fx), 5);
	CU_ASSERT_EQUAL(fx.doorbell_calls, 0); /* publishing alone does not ring */
	t_fixture_fini(&fx);
}

/*
 * Producer B's batch follows producer A's reserved but unpublished one: the consumer stops
 * at A's first slot although B's packets are valid and B rang the doorbell first; the
 * doorbell goes backwards when A rings, and the headers still tell the truth.
 */
static void test_batch_behind_unpublished_batch_waits_and_doorbell_is_a_hint(void)
{
	struct t_fixture fx;
	union hsaqm_aql_packet a[2] = { t_tagged(1), t_tagged(2) };
	union hsaqm_aql_packet b[3] = { t_tagged(3), t_tagged(4), t_tagged(5) };
	union hsaqm_aql_packet got;
	uint64_t first_a;

	t_fixture_init(&fx, 8, 0);
	CU_ASSERT_EQUAL(hsaqm_ring_reserve(&fx.ring, 2, 0, &first_a), 0);
	CU_ASSERT_EQUAL(hsaqm_ring_submit(&fx.ring, b, 3, 0), 0);
	CU_ASSERT_EQUAL(fx.doorbell_log[0], 4);
	CU_ASSERT_EQUAL(t_visible(&fx), 0);
	CU_ASSERT_EQUAL(t_consume_one(&fx, NULL), -EAGAIN);
	CU_ASSERT_EQUAL(hsaqm_ring_publish(&fx.ring, first_a, a, 2), 0);
	CU_ASSERT_EQUAL(hsaqm_ring_doorbell(&fx.ring, first_a + 1), 0);
	CU_ASSERT_EQUAL(fx.doorbell_log[1], 1); /* lower than the previous doorbell */
	CU_ASSERT_EQUAL(t_visible(&fx), 5);
	for (uint64_t i = 1; i <= 5; i++) {
		CU_ASSERT_EQUAL(t_consume_one(&fx, &got), 0);
		CU_ASSERT_EQUAL(t_tag_of(&got), i);
	}
	t_fixture_fini(&fx);
}

static const struct t_case cases[] = {
	T_CASE(test_batch_invisible_until_first_header_stored_last),
	T_CASE(test_batch_behind_unpublished_batch_waits_and_doorbell_is_a_hint),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "ring-batches", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-ring-batches", suites);
}
