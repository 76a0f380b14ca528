/* SPDX-License-Identifier: MIT */
/*
 * Dependencies between queues on the test backend, in virtual time (docs/lib.md
 * "Dependencies and priority inheritance"): a higher queue that waits on a held lower one
 * makes it run, only up to the packet it needs, at every level and in both submission
 * orders, through chains; a lower waiter lends nothing; a wait nobody here can end stops
 * counting as demand after the bound, and only then.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "t_backend.h"
#include "t_cunit.h"

#define MS 1000000ull

#define P_LOW 2
#define P_MID 7
#define P_HIGH 12

static const enum hsaqm_level levels[] = { HSAQM_LEVEL_1, HSAQM_LEVEL_2, HSAQM_LEVEL_3 };

static struct hsaqm_xq_deps deps_of(struct t_bq *bq)
{
	struct hsaqm_xq_deps d;

	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL(hsaqm_xq_get_deps(bq->xq, &d), 0);
	return d;
}

/* A low and a high queue of the test backend on device 0 of @ctx, both at @level. */
static void pair_open(struct hsaqm_ctx *ctx, struct t_bq *lo, struct t_bq *hi, enum hsaqm_level level)
{
	t_bq_init(lo, HSAQM_LEVEL_3);
	t_bq_init(hi, HSAQM_LEVEL_3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t_bq_attach(ctx, lo, 0, P_LOW, level));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t_bq_attach(ctx, hi, 0, P_HIGH, level));
}

/* pair_open() at model time 1 s, with a bound of 10 ms: the tests of the bound step the clock. */
static void bounded_pair_open(struct hsaqm_ctx *ctx, struct t_bq *lo, struct t_bq *hi,
			      enum hsaqm_level level)
{
	t_clock_set(ctx, 1000 * MS);
	CU_ASSERT_EQUAL(hsaqm_ctx_set_dep_bound(ctx, 10 * MS), 0);
	pair_open(ctx, lo, hi, level);
}

static void pair_close(struct hsaqm_ctx *ctx, struct t_bq *lo, struct t_bq *hi)
{
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(lo);
	t_bq_fini(hi);
}

/* A host wait at @index on the backend that lib is not told of (the test says what it hears). */
static void t_bq_wait_hw_only(struct t_bq *bq, uint64_t index)
{
	bq->wait_set = true;
	bq->wait_index = index;
	bq->wait_on = NULL;
	bq->wait_upto = 0;
	bq->wait_host_done = false;
}

static void expect_done(struct t_bq *bq, uint64_t n, const char *what, int level)
{
	if (bq->ran != n)
		printf("\n  level %d: %s ran %llu of %llu kernels (released %llu); its wait: index "
		       "%llu on %p up to %llu\n", level, what, (unsigned long long)bq->ran,
		       (unsigned long long)n, (unsigned long long)bq->released,
		       (unsigned long long)bq->wait_index, (void *)bq->wait_on,
		       (unsigned long long)bq->wait_upto);
	CU_ASSERT_EQUAL(bq->ran, n);
	CU_ASSERT_EQUAL(bq->violations, 0);
}

/*
 * The hang of issue 24, high busy first: high has work in flight, low a backlog it holds;
 * high's next packet waits on low's third. Low runs exactly three kernels, high completes,
 * then low runs the rest.
 */
static void high_waits_on_held_low(bool low_first)
{
	for (unsigned l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct t_bq lo, hi;
		struct t_bq *all[] = { &hi, &lo };

		pair_open(ctx, &lo, &hi, levels[l]);
		if (low_first) {
			CU_ASSERT_EQUAL(t_bq_submit(&lo, 6), 0);
			/* Low runs a kernel, so it has work on the hardware when high arrives. */
			t_bq_run(&lo, 1);
			CU_ASSERT_EQUAL(t_bq_submit(&hi, 2), 0);
		} else {
			CU_ASSERT_EQUAL(t_bq_submit(&hi, 2), 0);
			CU_ASSERT_EQUAL(t_bq_submit(&lo, 6), 0);
		}
		/* High's packet 2 waits until low has run 3 kernels (its packet 2 completed). */
		CU_ASSERT_EQUAL(t_bq_wait(&hi, 2, &lo, 3), 0);
		CU_ASSERT_EQUAL(t_bq_submit(&hi, 2), 0);

		/* High runs up to its wait; low runs what high needs and no more. */
		t_bq_run(&hi, UINT64_MAX);
		CU_ASSERT_EQUAL(hi.ran, 2);
		t_bq_run(&lo, UINT64_MAX);
		/*
		 * High first: low's backlog was held before any of it went out, so exactly what
		 * high needs is released. Low first: what low had released before the hold runs
		 * too (Lv2/Lv3 hold the hardware queue, they do not take packets back).
		 */
		if (!low_first && (lo.ran != 3 || lo.released != 3))
			printf("\n  level %d: low ran %llu, released %llu; expected 3 and 3\n",
			       (int)levels[l], (unsigned long long)lo.ran,
			       (unsigned long long)lo.released);
		if (!low_first) {
			CU_ASSERT_EQUAL(lo.ran, 3);
			CU_ASSERT_EQUAL(lo.released, 3);
		} else {
			CU_ASSERT(lo.ran >= 3);
		}
		CU_ASSERT_EQUAL(deps_of(&lo).inherited, 1);
		CU_ASSERT_EQUAL(deps_of(&hi).waits, 1);

		t_bq_run_all(all, 2);
		expect_done(&hi, 4, "high", (int)levels[l]);
		expect_done(&lo, 6, "low", (int)levels[l]);
		CU_ASSERT_EQUAL(deps_of(&lo).inheriting, 0);
		CU_ASSERT_EQUAL(deps_of(&hi).live, 0);
		CU_ASSERT_EQUAL(deps_of(&hi).stalls, 0);
		pair_close(ctx, &lo, &hi);
	}
}

static void test_high_waiting_on_held_low_runs_low_only_up_to_the_packet_high_busy_first(void)
{
	high_waits_on_held_low(false);
}

static void test_high_waiting_on_held_low_runs_low_only_up_to_the_packet_low_first(void)
{
	high_waits_on_held_low(true);
}

/* High waits on mid, which waits on low: both lower queues run as far as the chain needs. */
static void test_a_chain_across_three_priorities_inherits_through(void)
{
	for (unsigned l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct t_bq lo, mid, hi;
		struct t_bq *all[] = { &hi, &mid, &lo };

		t_bq_init(&lo, HSAQM_LEVEL_3);
		t_bq_init(&mid, HSAQM_LEVEL_3);
		t_bq_init(&hi, HSAQM_LEVEL_3);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t_bq_attach(ctx, &lo, 0, P_LOW, levels[l]));
		CU_ASSERT_PTR_NOT_NULL_FATAL(t_bq_attach(ctx, &mid, 0, P_MID, levels[l]));
		CU_ASSERT_PTR_NOT_NULL_FATAL(t_bq_attach(ctx, &hi, 0, P_HIGH, levels[l]));
		CU_ASSERT_EQUAL(t_bq_submit(&hi, 1), 0);
		CU_ASSERT_EQUAL(t_bq_submit(&lo, 4), 0);
		CU_ASSERT_EQUAL(t_bq_wait(&mid, 1, &lo, 2), 0);
		CU_ASSERT_EQUAL(t_bq_submit(&mid, 3), 0);
		CU_ASSERT_EQUAL(t_bq_wait(&hi, 1, &mid, 2), 0);
		CU_ASSERT_EQUAL(t_bq_submit(&hi, 1), 0);

		t_bq_run_all(all, 3);
		expect_done(&hi, 2, "high", (int)levels[l]);
		expect_done(&mid, 3, "mid", (int)levels[l]);
		expect_done(&lo, 4, "low", (int)levels[l]);
		CU_ASSERT_EQUAL(deps_of(&mid).inherited, 1);
		CU_ASSERT_EQUAL(deps_of(&lo).inherited, 1);
		CU_ASSERT_EQUAL(deps_of(&hi).inherited, 0);
		hsaqm_ctx_destroy(ctx);
		t_bq_fini(&lo);
		t_bq_fini(&mid);
		t_bq_fini(&hi);
	}
}

/* Low waits on high: high is not held anyway; nothing is lent and high is not slowed. */
static void test_a_lower_queue_waiting_on_a_higher_one_lends_nothing(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;
	struct t_bq *all[] = { &hi, &lo };

	pair_open(ctx, &lo, &hi, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(t_bq_submit(&hi, 4), 0);
	CU_ASSERT_EQUAL(t_bq_wait(&lo, 0, &hi, 2), 0);
	CU_ASSERT_EQUAL(t_bq_submit(&lo, 2), 0);
	/* High got everything at once; low was held, not released for high. */
	CU_ASSERT_EQUAL(hi.released, 4);
	CU_ASSERT_EQUAL(lo.released, 0);
	t_bq_run_all(all, 2);
	expect_done(&hi, 4, "high", 2);
	expect_done(&lo, 2, "low", 2);
	CU_ASSERT_EQUAL(deps_of(&hi).inherited, 0);
	CU_ASSERT_EQUAL(deps_of(&lo).inherited, 0);
	pair_close(ctx, &lo, &hi);
}

/* A queue held by hand (hsaqmd's PREEMPT) still runs what a running higher waiter needs. */
static void test_a_producer_held_by_hand_runs_what_a_higher_waiter_needs(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;
	struct t_bq *all[] = { &hi, &lo };

	pair_open(ctx, &lo, &hi, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(lo.xq), 0);
	CU_ASSERT_EQUAL(t_bq_submit(&lo, 5), 0);
	CU_ASSERT_EQUAL(t_bq_wait(&hi, 0, &lo, 2), 0);
	CU_ASSERT_EQUAL(t_bq_submit(&hi, 2), 0);
	t_bq_run_all(all, 2);
	expect_done(&hi, 2, "high", 2);
	/* Low ran what high needed; the hand hold keeps the rest. */
	CU_ASSERT_EQUAL(lo.ran, 2);
	CU_ASSERT_EQUAL(lo.released, 2);
	CU_ASSERT_EQUAL(t_state(lo.xq), HSAQM_XQ_PREEMPTED);
	CU_ASSERT_EQUAL(hsaqm_xq_resume(lo.xq), 0);
	t_bq_run_all(all, 2);
	expect_done(&lo, 5, "low", 2);
	pair_close(ctx, &lo, &hi);
}

/*
 * A wait on a signal the host sets later (nothing here can end it): low stays held while the
 * head waits less than the bound, runs once the bound has passed (high stalls: dep_stalls 1),
 * and is held again once high moves on.
 */
static void test_a_wait_nobody_here_ends_stops_holding_lower_queues_after_the_bound(void)
{
	for (unsigned l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct t_bq lo, hi;
		struct t_bq *all[] = { &hi, &lo };

		bounded_pair_open(ctx, &lo, &hi, levels[l]);
		CU_ASSERT_EQUAL(t_bq_submit(&lo, 3), 0);
		CU_ASSERT_EQUAL(t_bq_wait(&hi, 0, NULL, 0), 0);
		CU_ASSERT_EQUAL(t_bq_submit(&hi, 2), 0);
		t_bq_run_all(all, 2);
		/* Low started before high arrived at Lv3/Lv2 only if released; count what ran now. */
		uint64_t low_before = lo.ran;

		/* Short of the bound (the head is seen waiting at the first look): held. */
		t_clock_set(ctx, 1004 * MS);
		t_clock_set(ctx, 1008 * MS);
		t_bq_run_all(all, 2);
		CU_ASSERT_EQUAL(lo.ran, low_before);
		CU_ASSERT_EQUAL(deps_of(&hi).stalled, 0);
		/* Past it: high holds nobody, low runs to the end. */
		t_clock_set(ctx, 1030 * MS);
		t_bq_run_all(all, 2);
		CU_ASSERT_EQUAL(deps_of(&hi).stalled, 1);
		CU_ASSERT_EQUAL(deps_of(&hi).stalls, 1);
		expect_done(&lo, 3, "low", (int)levels[l]);
		CU_ASSERT_EQUAL(hi.ran, 0);
		/* The host sets the value: high runs, and counts as demand again. */
		hi.wait_host_done = true;
		t_bq_run_all(all, 2);
		expect_done(&hi, 2, "high", (int)levels[l]);
		CU_ASSERT_EQUAL(deps_of(&hi).stalled, 0);
		CU_ASSERT_EQUAL(deps_of(&hi).stalls, 1);
		CU_ASSERT_EQUAL(deps_of(&lo).inherited, 0);
		pair_close(ctx, &lo, &hi);
	}
}

/*
 * A runtime reuses signals: the scan names the queue that last fired one, and by the time
 * the waiter's head runs, that producer completed what was named while the signal was set
 * again for something nobody here ends. The producer runs what the waiter named, then the
 * wait stays bounded like any other: low is not held for ever behind a head that never moves.
 */
static void test_a_wait_its_named_producer_already_ended_is_still_bounded(void)
{
	for (unsigned l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct t_bq lo, hi;
		struct t_bq *all[] = { &hi, &lo };
		struct hsaqm_dep dep = { .index = 0, .upto = 2 };

		bounded_pair_open(ctx, &lo, &hi, levels[l]);
		CU_ASSERT_EQUAL(t_bq_submit(&lo, 5), 0);
		/*
		 * What the hardware does: high's head waits on a signal the host sets (set on
		 * the backend only: lib hears of this wait from the scan's words below alone).
		 */
		t_bq_wait_hw_only(&hi, 0);
		/* What the scan said: low's packet 1 fires it (so low is lent up to there). */
		dep.on_id = hsaqm_xq_get_id(lo.xq);
		CU_ASSERT_EQUAL(hsaqm_xq_depend(hi.xq, &dep), 0);
		CU_ASSERT_EQUAL(t_bq_submit(&hi, 2), 0);
		t_bq_run_all(all, 2);
		CU_ASSERT(lo.ran >= 2);
		t_clock_set(ctx, 1004 * MS);
		t_clock_set(ctx, 1008 * MS);
		t_bq_run_all(all, 2);
		CU_ASSERT_EQUAL(deps_of(&hi).stalled, 0);
		/* Past the bound: the named producer's completion did not end the wait's bound. */
		t_clock_set(ctx, 1030 * MS);
		t_bq_run_all(all, 2);
		if (lo.ran != 5)
			printf("\n  level %d: low ran %llu of 5 behind a head that never moved\n",
			       (int)levels[l], (unsigned long long)lo.ran);
		CU_ASSERT_EQUAL(deps_of(&hi).stalled, 1);
		expect_done(&lo, 5, "low", (int)levels[l]);
		hi.wait_host_done = true;
		t_bq_run_all(all, 2);
		expect_done(&hi, 2, "high", (int)levels[l]);
		CU_ASSERT_EQUAL(deps_of(&hi).live, 0);
		pair_close(ctx, &lo, &hi);
	}
}

/* A producer already past what a new wait names lends nothing; the wait is bounded. */
static void test_a_wait_on_a_producer_already_past_it_lends_nothing(void)
{
	for (unsigned l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct t_bq lo, hi;
		struct t_bq *all[] = { &hi, &lo };
		struct hsaqm_dep dep = { .index = 0, .upto = 1 };

		bounded_pair_open(ctx, &lo, &hi, levels[l]);
		/* Low's first packet runs and lib sees it complete; then low has a backlog. */
		CU_ASSERT_EQUAL(t_bq_submit(&lo, 1), 0);
		t_bq_run_all(all, 2);
		CU_ASSERT_EQUAL(lo.ran, 1);
		CU_ASSERT_EQUAL(t_bq_submit(&lo, 3), 0);
		t_bq_wait_hw_only(&hi, 0);
		dep.on_id = hsaqm_xq_get_id(lo.xq);
		CU_ASSERT_EQUAL(hsaqm_xq_depend(hi.xq, &dep), 0);
		CU_ASSERT_EQUAL(t_bq_submit(&hi, 1), 0);
		t_bq_run_all(all, 2);
		uint64_t low_before = lo.ran;

		t_clock_set(ctx, 1008 * MS);
		t_bq_run_all(all, 2);
		CU_ASSERT_EQUAL(lo.ran, low_before);
		CU_ASSERT_EQUAL(deps_of(&lo).inherited, 0);
		t_clock_set(ctx, 1030 * MS);
		t_bq_run_all(all, 2);
		CU_ASSERT_EQUAL(deps_of(&hi).stalled, 1);
		expect_done(&lo, 4, "low", (int)levels[l]);
		hi.wait_host_done = true;
		t_bq_run_all(all, 2);
		expect_done(&hi, 1, "high", (int)levels[l]);
		pair_close(ctx, &lo, &hi);
	}
}

/*
 * A waiter whose producer is working for it does not stall, however long the producer's
 * kernels run: the wait ends by itself. Had it stalled, it would stop lending, the producer
 * would be held again, and the waiter would wait for as long as the lower work lasts
 * (issue 25's cross-process cell: 170 ms behind a middle process, under a 35 ms bound).
 */
static void test_a_waiter_on_a_working_producer_does_not_stall(void)
{
	for (unsigned l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		struct hsaqm_ctx *ctx = t_ctx_manual();
		struct t_bq lo, hi;
		struct t_bq *all[] = { &hi, &lo };

		bounded_pair_open(ctx, &lo, &hi, levels[l]);
		CU_ASSERT_EQUAL(t_bq_submit(&hi, 1), 0);
		CU_ASSERT_EQUAL(t_bq_submit(&lo, 6), 0);
		CU_ASSERT_EQUAL(t_bq_wait(&hi, 1, &lo, 3), 0);
		CU_ASSERT_EQUAL(t_bq_submit(&hi, 2), 0);
		t_bq_run(&hi, UINT64_MAX);
		CU_ASSERT_EQUAL(hi.ran, 1);
		/* Low's first kernel is slow: 100 ms, ten bounds, without a completion. */
		for (uint64_t t = 1000; t <= 1100; t += 5)
			t_clock_set(ctx, t * MS);
		if (deps_of(&hi).stalls)
			printf("\n  level %d: high stalled behind the producer working for it\n",
			       (int)levels[l]);
		CU_ASSERT_EQUAL(deps_of(&hi).stalled, 0);
		CU_ASSERT_EQUAL(deps_of(&hi).stalls, 0);
		CU_ASSERT_EQUAL(deps_of(&lo).inheriting, 1);
		/* Still lending: low runs exactly what high needs, then high runs. */
		t_bq_run(&lo, UINT64_MAX);
		CU_ASSERT(lo.ran >= 3);
		t_bq_run_all(all, 2);
		expect_done(&hi, 3, "high", (int)levels[l]);
		expect_done(&lo, 6, "low", (int)levels[l]);
		CU_ASSERT_EQUAL(deps_of(&hi).stalls, 0);
		pair_close(ctx, &lo, &hi);
	}
}

/*
 * A waiter held by hand (hsaqmd holds it for a higher process) keeps its wait on a working
 * producer open: released, it lends at once, instead of finding itself stalled and the
 * producer held for the lower work.
 */
static void test_a_held_waiter_lends_again_once_released(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;
	struct t_bq *all[] = { &hi, &lo };

	bounded_pair_open(ctx, &lo, &hi, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(lo.xq), 0);
	CU_ASSERT_EQUAL(t_bq_submit(&lo, 4), 0);
	CU_ASSERT_EQUAL(t_bq_wait(&hi, 0, &lo, 2), 0);
	CU_ASSERT_EQUAL(t_bq_submit(&hi, 2), 0);
	CU_ASSERT_EQUAL(hsaqm_xq_suspend(hi.xq), 0);
	for (uint64_t t = 1000; t <= 1100; t += 5)
		t_clock_set(ctx, t * MS);
	t_bq_run_all(all, 2);
	/* Both held by hand: nothing ran, and the waiter did not stall. */
	CU_ASSERT_EQUAL(lo.ran, 0);
	CU_ASSERT_EQUAL(hi.ran, 0);
	CU_ASSERT_EQUAL(deps_of(&hi).stalls, 0);
	CU_ASSERT_EQUAL(hsaqm_xq_resume(hi.xq), 0);
	t_bq_run_all(all, 2);
	expect_done(&hi, 2, "high", 2);
	CU_ASSERT_EQUAL(lo.ran, 2);
	CU_ASSERT(deps_of(&lo).inherited >= 1);
	CU_ASSERT_EQUAL(deps_of(&hi).stalls, 0);
	pair_close(ctx, &lo, &hi);
}

/*
 * Waits that name each other (a signal reused behind the scan's back) are not work that ends
 * by itself: both heads stall after the bound, and the lower work they held runs.
 */
static void test_waits_that_name_each_other_still_stall(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi, mid;
	struct t_bq *all[] = { &hi, &mid, &lo };
	struct hsaqm_dep on_lo = { .index = 0, .upto = 1 }, on_hi = { .index = 0, .upto = 1 };

	bounded_pair_open(ctx, &lo, &hi, HSAQM_LEVEL_2);
	t_bq_init(&mid, HSAQM_LEVEL_3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t_bq_attach(ctx, &mid, 0, 0, HSAQM_LEVEL_2));
	CU_ASSERT_EQUAL(t_bq_submit(&mid, 3), 0);
	/* hi waits on lo's first packet, lo's head on hi's: each a host wait on the hardware. */
	t_bq_wait_hw_only(&hi, 0);
	t_bq_wait_hw_only(&lo, 0);
	on_lo.on_id = hsaqm_xq_get_id(lo.xq);
	on_hi.on_id = hsaqm_xq_get_id(hi.xq);
	CU_ASSERT_EQUAL(hsaqm_xq_depend(hi.xq, &on_lo), 0);
	CU_ASSERT_EQUAL(hsaqm_xq_depend(lo.xq, &on_hi), 0);
	CU_ASSERT_EQUAL(t_bq_submit(&lo, 2), 0);
	CU_ASSERT_EQUAL(t_bq_submit(&hi, 2), 0);
	t_bq_run_all(all, 3);
	CU_ASSERT_EQUAL(mid.ran, 0);
	for (uint64_t t = 1000; t <= 1100; t += 5) {
		t_clock_set(ctx, t * MS);
		t_bq_run_all(all, 3);
	}
	CU_ASSERT_EQUAL(deps_of(&hi).stalled, 1);
	CU_ASSERT_EQUAL(deps_of(&lo).stalled, 1);
	expect_done(&mid, 3, "the lower queue both held", 2);
	hi.wait_host_done = true;
	lo.wait_host_done = true;
	t_bq_run_all(all, 3);
	expect_done(&hi, 2, "high", 2);
	expect_done(&lo, 2, "low", 2);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&lo);
	t_bq_fini(&hi);
	t_bq_fini(&mid);
}

/* A head that is busy with kernels, not waiting, never stalls however long it takes. */
static void test_a_busy_head_is_not_a_stall(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct t_bq lo, hi;
	struct t_bq *all[] = { &hi, &lo };

	bounded_pair_open(ctx, &lo, &hi, HSAQM_LEVEL_2);
	CU_ASSERT_EQUAL(t_bq_submit(&lo, 3), 0);
	/* High's wait is behind two kernels that do not run (the GPU is slow). */
	CU_ASSERT_EQUAL(t_bq_wait(&hi, 2, NULL, 0), 0);
	CU_ASSERT_EQUAL(t_bq_submit(&hi, 3), 0);
	for (uint64_t t = 1000; t <= 1100; t += 5)
		t_clock_set(ctx, t * MS);
	CU_ASSERT_EQUAL(deps_of(&hi).stalled, 0);
	CU_ASSERT_EQUAL(deps_of(&hi).stalls, 0);
	CU_ASSERT_EQUAL(lo.ran, 0);
	hi.wait_host_done = true;
	t_bq_run_all(all, 2);
	expect_done(&hi, 3, "high", 2);
	expect_done(&lo, 3, "low", 2);
	pair_close(ctx, &lo, &hi);
}

static void test_bad_waits_and_bounds_are_refused(void)
{
	struct hsaqm_ctx *ctx = t_ctx_manual();
	struct hsaqm_dep self = { .index = 0, .upto = 1 };
	struct hsaqm_xq_deps d;
	struct t_bq q;

	t_bq_init(&q, HSAQM_LEVEL_3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t_bq_attach(ctx, &q, 0, P_LOW, HSAQM_LEVEL_2));
	self.on_id = hsaqm_xq_get_id(q.xq);
	CU_ASSERT_NOT_EQUAL(self.on_id, 0);
	CU_ASSERT_EQUAL(hsaqm_xq_depend(q.xq, &self), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_depend(NULL, &self), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_depend(q.xq, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_get_deps(q.xq, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_get_deps(NULL, &d), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_get_id(NULL), 0);
	CU_ASSERT_EQUAL(hsaqm_ctx_set_dep_bound(ctx, HSAQM_DEP_BOUND_MIN_NS - 1), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_ctx_set_dep_bound(NULL, HSAQM_DEP_BOUND_DEFAULT_NS), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_xq_get_deps(q.xq, &d), 0);
	CU_ASSERT_EQUAL(d.waits, 0);
	hsaqm_ctx_destroy(ctx);
	t_bq_fini(&q);
}

static const struct t_case deps_cases[] = {
	T_CASE(test_high_waiting_on_held_low_runs_low_only_up_to_the_packet_high_busy_first),
	T_CASE(test_high_waiting_on_held_low_runs_low_only_up_to_the_packet_low_first),
	T_CASE(test_a_chain_across_three_priorities_inherits_through),
	T_CASE(test_a_lower_queue_waiting_on_a_higher_one_lends_nothing),
	T_CASE(test_a_producer_held_by_hand_runs_what_a_higher_waiter_needs),
	T_CASE(test_a_wait_nobody_here_ends_stops_holding_lower_queues_after_the_bound),
	T_CASE(test_a_wait_its_named_producer_already_ended_is_still_bounded),
	T_CASE(test_a_wait_on_a_producer_already_past_it_lends_nothing),
	T_CASE(test_a_busy_head_is_not_a_stall),
	T_CASE(test_a_waiter_on_a_working_producer_does_not_stall),
	T_CASE(test_a_held_waiter_lends_again_once_released),
	T_CASE(test_waits_that_name_each_other_still_stall),
	T_CASE(test_bad_waits_and_bounds_are_refused),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "lib-deps", NULL, NULL, deps_cases },
		T_SUITES_END,
	};
	return t_run("test-lib-deps", suites);
}
