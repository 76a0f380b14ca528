/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-common/policy.h - the scheduling decision as a pure function.
 *
 * hsaqm_policy_decide() looks at the queues of one device and says which may run. It
 * takes no lock, calls no backend and reads no clock: the caller passes the time. lib/
 * calls it under the device lock with the descriptors of its xqueues; the daemon calls it
 * with descriptors of queues in several processes. Both get the same decisions.
 */
#ifndef HSAQM_COMMON_POLICY_H
#define HSAQM_COMMON_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hsaqm/hsaqm.h"

#define HSAQM_POLICY_NO_DEADLINE UINT64_MAX
/* UTIL: the period when the configuration says 0, and the shortest slice ever handed out
 * (a slice shorter than a timer wake-up is noise). */
#define HSAQM_UTIL_PERIOD_DEFAULT_US 10000u
#define HSAQM_UTIL_SLICE_MIN_NS 1000u

/* One queue as the policy sees it. */
struct hsaqm_policy_queue {
	/* Inputs. */
	int priority;            /* HPF: higher wins */
	uint64_t group;          /* UTIL: queues with the same key share one share */
	uint32_t share_permille; /* UTIL: 1..1000; 0 = an equal part of what explicit shares leave */
	bool active;             /* competes: has work held or in flight, and not held by hand */
	/* State the function keeps between calls: zero when the queue is new. */
	uint64_t floor_due_ns;   /* HPF floor: when this preempted queue is owed its next slice */
	uint64_t floor_end_ns;   /* HPF floor: end of the slice it is in */
	/* Output. */
	bool run;                /* may release work / must not be held */
};

/* Per-device state the function keeps between calls: zero at first. */
struct hsaqm_policy_state {
	bool util_owned;          /* UTIL: some group holds the current slice */
	uint64_t util_owner;      /* its group key */
	uint64_t util_slice_start_ns;
};

/*
 * hsaqm_policy_check() - validate a policy configuration (the rules of hsaqm_ctx_set_policy()).
 * Return: 0; -EINVAL for NULL, an unknown kind, a floor slice without a period (or a period
 * without a slice), or a slice not shorter than its period.
 */
int hsaqm_policy_check(const struct hsaqm_policy_config *cfg);

/*
 * hsaqm_policy_decide() - set q[i].run for the @n queues of one device at time @now_ns.
 *
 *   HPF:  the highest-priority active queues run; so do idle queues at least as high (a
 *         submission to one of them then runs at once). With a floor, an active queue that
 *         HPF holds runs for floor_slice_us once every floor_period_us it stays held,
 *         beside the higher queues (the higher ones are never stopped for it).
 *   UTIL: active groups take turns; a group's slice is util_period_us × its share over the
 *         sum of the active groups' shares. A group alone keeps the device; a newcomer
 *         gets it when the current slice ends (at once if it is already over). Idle queues
 *         run only when their group holds the slice or nobody does.
 *   NONE: everything runs.
 *
 * Cost: O(n) for HPF, O(n^2) for UTIL (groups are found by pairwise comparison; n is the
 * queue count of one device, tens at most).
 * Return: the next time the decision changes with no event (a floor slice starts or ends,
 * a UTIL slice ends), or HSAQM_POLICY_NO_DEADLINE. A NULL or invalid @cfg or @st counts
 * as NONE (everything runs).
 */
uint64_t hsaqm_policy_decide(const struct hsaqm_policy_config *cfg, struct hsaqm_policy_state *st,
			     struct hsaqm_policy_queue *q, size_t n, uint64_t now_ns);

#endif /* HSAQM_COMMON_POLICY_H */
