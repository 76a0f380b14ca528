/* SPDX-License-Identifier: MIT */
/*
 * The scheduling decision (hsaqm-common/policy.h). Pure: no lock, no backend, no clock, so the
 * daemon can run the very same code over queues of several processes, and tests can
 * drive it step by step.
 */
#include <errno.h>
#include <limits.h>

#include "hsaqm-common/log.h"
#include "hsaqm-common/policy.h"

int hsaqm_policy_check(const struct hsaqm_policy_config *cfg)
{
	if (!cfg) {
		hsaqm_log_err("policy config is NULL");
		return -EINVAL;
	}
	switch (cfg->kind) {
	case HSAQM_POLICY_HPF:
	case HSAQM_POLICY_UTIL:
	case HSAQM_POLICY_NONE:
		break;
	default:
		hsaqm_log_err("unknown policy kind %d (hpf=0, util=1, none=2)", (int)cfg->kind);
		return -EINVAL;
	}
	if ((cfg->floor_period_us == 0) != (cfg->floor_slice_us == 0)) {
		hsaqm_log_err("starvation floor needs both a period and a slice (period %u us, slice %u us)",
			      cfg->floor_period_us, cfg->floor_slice_us);
		return -EINVAL;
	}
	if (cfg->floor_period_us && cfg->floor_slice_us >= cfg->floor_period_us) {
		hsaqm_log_err("starvation floor slice %u us is not shorter than its period %u us",
			      cfg->floor_slice_us, cfg->floor_period_us);
		return -EINVAL;
	}
	return 0;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t decide_hpf(const struct hsaqm_policy_config *cfg, struct hsaqm_policy_queue *q,
			   size_t n, uint64_t now)
{
	uint64_t period = (uint64_t)cfg->floor_period_us * 1000u;
	uint64_t slice = (uint64_t)cfg->floor_slice_us * 1000u;
	uint64_t next = HSAQM_POLICY_NO_DEADLINE;
	bool any = false;
	int top = INT_MIN;

	for (size_t i = 0; i < n; i++) {
		if (q[i].active && (!any || q[i].priority > top)) {
			top = q[i].priority;
			any = true;
		}
	}
	for (size_t i = 0; i < n; i++) {
		bool hpf_run = !any || q[i].priority >= top;

		if (hpf_run || !q[i].active || !period) {
			/* Not starving: the floor's clock starts again when it next is held. */
			q[i].floor_due_ns = 0;
			q[i].floor_end_ns = 0;
			q[i].run = hpf_run;
			continue;
		}
		if (!q[i].floor_due_ns)
			q[i].floor_due_ns = now + period;
		if (now >= q[i].floor_due_ns) {
			q[i].floor_end_ns = now + slice;
			q[i].floor_due_ns = now + period;
		}
		q[i].run = now < q[i].floor_end_ns;
		next = min_u64(next, q[i].run ? q[i].floor_end_ns : q[i].floor_due_ns);
	}
	return next;
}

/* A group's share: the largest its active members ask for (they should all say the same). */
static uint32_t util_group_share(const struct hsaqm_policy_queue *q, size_t n, uint64_t group)
{
	uint32_t share = 0;

	for (size_t i = 0; i < n; i++)
		if (q[i].active && q[i].group == group && q[i].share_permille > share)
			share = q[i].share_permille;
	return share;
}

static bool util_is_leader(const struct hsaqm_policy_queue *q, size_t i)
{
	if (!q[i].active)
		return false;
	for (size_t j = 0; j < i; j++)
		if (q[j].active && q[j].group == q[i].group)
			return false;
	return true;
}

static uint64_t decide_util(const struct hsaqm_policy_config *cfg, struct hsaqm_policy_state *st,
			    struct hsaqm_policy_queue *q, size_t n, uint64_t now)
{
	uint64_t period = (uint64_t)(cfg->util_period_us ? cfg->util_period_us
							 : HSAQM_UTIL_PERIOD_DEFAULT_US) * 1000u;
	uint64_t explicit_sum = 0, zero_count = 0, ngroups = 0;
	bool owner_active = false, have_next = false, have_first = false;
	uint64_t next_key = 0, first_key = 0, deadline = HSAQM_POLICY_NO_DEADLINE;

	for (size_t i = 0; i < n; i++) {
		if (!util_is_leader(q, i))
			continue;
		uint64_t g = q[i].group;
		uint32_t share = util_group_share(q, n, g);

		ngroups++;
		if (share)
			explicit_sum += share;
		else
			zero_count++;
		if (st->util_owned && g == st->util_owner)
			owner_active = true;
		/* Round robin by key: the next key above the owner, else the smallest. */
		if (!have_first || g < first_key) {
			first_key = g;
			have_first = true;
		}
		if (st->util_owned && g > st->util_owner && (!have_next || g < next_key)) {
			next_key = g;
			have_next = true;
		}
	}
	if (ngroups == 0) {
		st->util_owned = false;
		for (size_t i = 0; i < n; i++)
			q[i].run = true;
		return HSAQM_POLICY_NO_DEADLINE;
	}

	uint64_t zero_w = 0;
	if (zero_count) {
		uint64_t left = explicit_sum >= 1000 ? 0 : 1000 - explicit_sum;

		zero_w = left / zero_count ? left / zero_count : 1;
	}
	uint64_t total_w = explicit_sum + zero_w * zero_count;
	bool advance = true;

	if (owner_active) {
		uint32_t share = util_group_share(q, n, st->util_owner);
		uint64_t w = share ? share : zero_w;
		uint64_t len = period * w / total_w;

		if (len < HSAQM_UTIL_SLICE_MIN_NS)
			len = HSAQM_UTIL_SLICE_MIN_NS;
		if (ngroups == 1) {
			advance = false;
		} else if (now < st->util_slice_start_ns + len) {
			advance = false;
			deadline = st->util_slice_start_ns + len;
		}
	}
	if (advance) {
		uint64_t owner = have_next ? next_key : first_key;
		uint32_t share = util_group_share(q, n, owner);
		uint64_t w = share ? share : zero_w;
		uint64_t len = period * w / total_w;

		if (len < HSAQM_UTIL_SLICE_MIN_NS)
			len = HSAQM_UTIL_SLICE_MIN_NS;
		st->util_owned = true;
		st->util_owner = owner;
		st->util_slice_start_ns = now;
		if (ngroups > 1)
			deadline = now + len;
	}
	for (size_t i = 0; i < n; i++)
		q[i].run = q[i].group == st->util_owner;
	return deadline;
}

uint64_t hsaqm_policy_decide(const struct hsaqm_policy_config *cfg, struct hsaqm_policy_state *st,
			     struct hsaqm_policy_queue *q, size_t n, uint64_t now_ns)
{
	if (!q)
		return HSAQM_POLICY_NO_DEADLINE;
	if (cfg && st && hsaqm_policy_check(cfg) == 0) {
		if (cfg->kind == HSAQM_POLICY_HPF)
			return decide_hpf(cfg, q, n, now_ns);
		if (cfg->kind == HSAQM_POLICY_UTIL)
			return decide_util(cfg, st, q, n, now_ns);
	}
	for (size_t i = 0; i < n; i++)
		q[i].run = true;
	return HSAQM_POLICY_NO_DEADLINE;
}
