/* SPDX-License-Identifier: MIT */
/* The pure policy function: HPF picks the top priority, the floor gives slices, UTIL honours shares. */
#include <errno.h>
#include <string.h>

#include "hsaqm-common/policy.h"
#include "t_cunit.h"

#define MS 1000000ull

static void q_set(struct hsaqm_policy_queue *q, int prio, bool active)
{
	memset(q, 0, sizeof(*q));
	q->priority = prio;
	q->active = active;
}

static void test_policy_hpf_top_active_priority_runs_lower_held(void)
{
	struct hsaqm_policy_config cfg = { .kind = HSAQM_POLICY_HPF };
	struct hsaqm_policy_state st = { 0 };
	struct hsaqm_policy_queue q[5];

	q_set(&q[0], 5, true);
	q_set(&q[1], 1, true);
	q_set(&q[2], 5, true);
	q_set(&q[3], 0, false);
	q_set(&q[4], 9, false);
	CU_ASSERT_EQUAL(hsaqm_policy_decide(&cfg, &st, q, 5, 0), HSAQM_POLICY_NO_DEADLINE);
	CU_ASSERT_TRUE(q[0].run);  /* top, active */
	CU_ASSERT_FALSE(q[1].run); /* lower, active: preempted */
	CU_ASSERT_TRUE(q[2].run);  /* equal top priorities run together */
	CU_ASSERT_FALSE(q[3].run); /* lower, idle: its next submission is held */
	CU_ASSERT_TRUE(q[4].run);  /* higher, idle: its next submission runs at once */
}

static void test_policy_hpf_nothing_active_everyone_runs(void)
{
	struct hsaqm_policy_config cfg = { .kind = HSAQM_POLICY_HPF };
	struct hsaqm_policy_state st = { 0 };
	struct hsaqm_policy_queue q[3];

	for (int i = 0; i < 3; i++)
		q_set(&q[i], i * 10 - 10, false);
	hsaqm_policy_decide(&cfg, &st, q, 3, 0);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_TRUE(q[i].run);
}

static void test_policy_hpf_floor_gives_a_slice_every_period(void)
{
	struct hsaqm_policy_config cfg = { .kind = HSAQM_POLICY_HPF, .floor_period_us = 10000,
					   .floor_slice_us = 2000 };
	struct hsaqm_policy_state st = { 0 };
	struct hsaqm_policy_queue q[2];
	uint64_t now = 5 * MS, end = now + 1000 * MS, ran = 0, next;

	q_set(&q[0], 10, true);
	q_set(&q[1], 0, true);
	next = hsaqm_policy_decide(&cfg, &st, q, 2, now);
	CU_ASSERT_FALSE(q[1].run);
	CU_ASSERT_EQUAL(next, now + 10 * MS);
	/* Jump from deadline to deadline for one second and add up the low queue's slices. */
	while (next < end) {
		bool was = q[1].run;
		uint64_t at = next;

		next = hsaqm_policy_decide(&cfg, &st, q, 2, at);
		CU_ASSERT_TRUE(q[0].run); /* the high queue is never stopped for the floor */
		if (q[1].run && !was)
			CU_ASSERT_EQUAL(next, at + 2 * MS);
		if (was)
			ran += 2 * MS;
		now = at;
	}
	/* 1 s / 10 ms periods, 2 ms each. */
	CU_ASSERT(ran >= 98 * 2 * MS && ran <= 100 * 2 * MS);
}

static void test_policy_hpf_floor_forgets_a_queue_that_runs(void)
{
	struct hsaqm_policy_config cfg = { .kind = HSAQM_POLICY_HPF, .floor_period_us = 10000,
					   .floor_slice_us = 2000 };
	struct hsaqm_policy_state st = { 0 };
	struct hsaqm_policy_queue q[2];

	q_set(&q[0], 10, true);
	q_set(&q[1], 0, true);
	hsaqm_policy_decide(&cfg, &st, q, 2, 0);
	CU_ASSERT_NOT_EQUAL(q[1].floor_due_ns, 0);
	q[0].active = false; /* the high queue goes idle: the low one runs on its own right */
	CU_ASSERT_EQUAL(hsaqm_policy_decide(&cfg, &st, q, 2, 3 * MS), HSAQM_POLICY_NO_DEADLINE);
	CU_ASSERT_TRUE(q[1].run);
	CU_ASSERT_EQUAL(q[1].floor_due_ns, 0);
	/* Held again: a whole new period before its slice. */
	q[0].active = true;
	CU_ASSERT_EQUAL(hsaqm_policy_decide(&cfg, &st, q, 2, 4 * MS), 14 * MS);
	CU_ASSERT_FALSE(q[1].run);
}

/* Step a UTIL decision from deadline to deadline for @span and add up each queue's run time. */
static void util_run(const struct hsaqm_policy_config *cfg, struct hsaqm_policy_queue *q, int n,
		     uint64_t span, uint64_t *run_ns)
{
	struct hsaqm_policy_state st = { 0 };
	uint64_t now = 1000 * MS, end = now + span;

	memset(run_ns, 0, n * sizeof(*run_ns));
	while (now < end) {
		uint64_t next = hsaqm_policy_decide(cfg, &st, q, n, now);

		CU_ASSERT_FATAL(next > now);
		if (next > end)
			next = end;
		for (int i = 0; i < n; i++)
			if (q[i].run)
				run_ns[i] += next - now;
		now = next;
	}
}

static void test_policy_util_shares_hold_over_periods(void)
{
	struct hsaqm_policy_config cfg = { .kind = HSAQM_POLICY_UTIL, .util_period_us = 10000 };
	struct hsaqm_policy_queue q[3];
	uint64_t run[3], span = 1000 * MS;
	const uint32_t shares[3] = { 500, 300, 200 };

	for (int i = 0; i < 3; i++) {
		q_set(&q[i], 0, true);
		q[i].group = 100 + i;
		q[i].share_permille = shares[i];
	}
	util_run(&cfg, q, 3, span, run);
	for (int i = 0; i < 3; i++) {
		double got = (double)run[i] / span, want = shares[i] / 1000.0;

		CU_ASSERT_DOUBLE_EQUAL(got, want, 0.01);
	}
	/* Exactly one group at a time. */
	CU_ASSERT_EQUAL(run[0] + run[1] + run[2], span);
}

static void test_policy_util_zero_shares_split_equally(void)
{
	struct hsaqm_policy_config cfg = { .kind = HSAQM_POLICY_UTIL };
	struct hsaqm_policy_queue q[4];
	uint64_t run[4], span = 1000 * MS;

	for (int i = 0; i < 4; i++) {
		q_set(&q[i], 0, true);
		q[i].group = 7 + i;
	}
	util_run(&cfg, q, 4, span, run);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_DOUBLE_EQUAL((double)run[i] / span, 0.25, 0.01);
}

static void test_policy_util_group_members_share_one_share(void)
{
	struct hsaqm_policy_config cfg = { .kind = HSAQM_POLICY_UTIL, .util_period_us = 10000 };
	struct hsaqm_policy_queue q[3];
	uint64_t run[3], span = 1000 * MS;

	/* Two queues in group 1 (share 600), one in group 2 (share 400). */
	for (int i = 0; i < 3; i++)
		q_set(&q[i], 0, true);
	q[0].group = q[1].group = 1;
	q[0].share_permille = q[1].share_permille = 600;
	q[2].group = 2;
	q[2].share_permille = 400;
	util_run(&cfg, q, 3, span, run);
	CU_ASSERT_EQUAL(run[0], run[1]); /* members run together */
	CU_ASSERT_DOUBLE_EQUAL((double)run[0] / span, 0.6, 0.01);
	CU_ASSERT_DOUBLE_EQUAL((double)run[2] / span, 0.4, 0.01);
}

static void test_policy_util_lone_group_keeps_device_newcomer_served(void)
{
	struct hsaqm_policy_config cfg = { .kind = HSAQM_POLICY_UTIL, .util_period_us = 10000 };
	struct hsaqm_policy_state st = { 0 };
	struct hsaqm_policy_queue q[2];

	q_set(&q[0], 0, true);
	q_set(&q[1], 0, false);
	q[0].group = 1;
	q[1].group = 2;
	q[0].share_permille = q[1].share_permille = 500;
	/* Alone: no slice end, it keeps the device. */
	CU_ASSERT_EQUAL(hsaqm_policy_decide(&cfg, &st, q, 2, 0), HSAQM_POLICY_NO_DEADLINE);
	CU_ASSERT_TRUE(q[0].run);
	CU_ASSERT_FALSE(q[1].run); /* idle, not the owner: a submission is held */
	/* A newcomer long after the lone owner's slice would have ended: served at once. */
	q[1].active = true;
	CU_ASSERT_EQUAL(hsaqm_policy_decide(&cfg, &st, q, 2, 100 * MS), 105 * MS);
	CU_ASSERT_FALSE(q[0].run);
	CU_ASSERT_TRUE(q[1].run);
	/* The owner goes idle in its slice: the other takes over (work conserving). */
	q[1].active = false;
	CU_ASSERT_EQUAL(hsaqm_policy_decide(&cfg, &st, q, 2, 101 * MS), HSAQM_POLICY_NO_DEADLINE);
	CU_ASSERT_TRUE(q[0].run);
	/* Nobody active: nobody owns; everyone may start. */
	q[0].active = false;
	hsaqm_policy_decide(&cfg, &st, q, 2, 102 * MS);
	CU_ASSERT_TRUE(q[0].run && q[1].run);
}

static void test_policy_none_runs_everything(void)
{
	struct hsaqm_policy_config cfg = { .kind = HSAQM_POLICY_NONE };
	struct hsaqm_policy_state st = { 0 };
	struct hsaqm_policy_queue q[2];

	q_set(&q[0], 10, true);
	q_set(&q[1], -10, true);
	CU_ASSERT_EQUAL(hsaqm_policy_decide(&cfg, &st, q, 2, 0), HSAQM_POLICY_NO_DEADLINE);
	CU_ASSERT_TRUE(q[0].run && q[1].run);
}

static void test_policy_check_rejects_bad_configs(void)
{
	struct hsaqm_policy_config cfg = { .kind = HSAQM_POLICY_HPF };

	CU_ASSERT_EQUAL(hsaqm_policy_check(NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_policy_check(&cfg), 0);
	cfg.kind = (enum hsaqm_policy_kind)7;
	CU_ASSERT_EQUAL(hsaqm_policy_check(&cfg), -EINVAL);
	cfg.kind = HSAQM_POLICY_HPF;
	cfg.floor_slice_us = 100;
	CU_ASSERT_EQUAL(hsaqm_policy_check(&cfg), -EINVAL); /* slice without period */
	cfg.floor_slice_us = 0;
	cfg.floor_period_us = 100;
	CU_ASSERT_EQUAL(hsaqm_policy_check(&cfg), -EINVAL); /* period without slice */
	cfg.floor_slice_us = 100;
	CU_ASSERT_EQUAL(hsaqm_policy_check(&cfg), -EINVAL); /* slice not shorter */
	cfg.floor_slice_us = 99;
	CU_ASSERT_EQUAL(hsaqm_policy_check(&cfg), 0);
}

static void test_policy_invalid_config_decides_like_none(void)
{
	struct hsaqm_policy_config cfg = { .kind = (enum hsaqm_policy_kind)9 };
	struct hsaqm_policy_state st = { 0 };
	struct hsaqm_policy_queue q[2];

	q_set(&q[0], 10, true);
	q_set(&q[1], 0, true);
	hsaqm_policy_decide(&cfg, &st, q, 2, 0);
	CU_ASSERT_TRUE(q[0].run && q[1].run);
	hsaqm_policy_decide(NULL, &st, q, 2, 0);
	CU_ASSERT_TRUE(q[0].run && q[1].run);
}

static const struct t_case policy_cases[] = {
	T_CASE(test_policy_hpf_top_active_priority_runs_lower_held),
	T_CASE(test_policy_hpf_nothing_active_everyone_runs),
	T_CASE(test_policy_hpf_floor_gives_a_slice_every_period),
	T_CASE(test_policy_hpf_floor_forgets_a_queue_that_runs),
	T_CASE(test_policy_util_shares_hold_over_periods),
	T_CASE(test_policy_util_zero_shares_split_equally),
	T_CASE(test_policy_util_group_members_share_one_share),
	T_CASE(test_policy_util_lone_group_keeps_device_newcomer_served),
	T_CASE(test_policy_none_runs_everything),
	T_CASE(test_policy_check_rejects_bad_configs),
	T_CASE(test_policy_invalid_config_decides_like_none),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "lib-policy", NULL, NULL, policy_cases },
		T_SUITES_END,
	};
	return t_run("test-lib-policy", suites);
}
