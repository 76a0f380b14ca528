/* SPDX-License-Identifier: MIT */
/*
 * The preemption engine: how one xqueue releases, holds and lets go of its packets at its
 * level, and how it fails open. Everything here runs under the device lock; docs/lib.md
 * explains the rules (markers, guardians, the Lv3 fallback).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hsaqm-common/log.h"
#include "xq_internal.h"

static uint64_t xq_outstanding(const struct hsaqm_xq *xq)
{
	return xq->mk_next - 1 - xq->mk_done;
}

bool hsaqm_engine_wants_run(const struct hsaqm_xq *xq)
{
	return xq->failed_open || xq->level_eff == HSAQM_LEVEL_NONE || xq->dev->exiting ||
	       (xq->run && !xq->by_hand) || xq->inherit_only;
}

/*
 * What may go out now: everything held, unless the queue runs only for a waiter (priority
 * inheritance), which gets the packets up to the one the waiter needs and keeps the rest.
 */
static uint64_t engine_releasable(const struct hsaqm_xq *xq)
{
	uint64_t held = hsaqm_xq_held(xq);

	if (xq->inherit_only && !xq->failed_open && xq->level_eff != HSAQM_LEVEL_NONE &&
	    !xq->dev->exiting && !(xq->run && !xq->by_hand)) {
		uint64_t room = xq->inh_upto > xq->released ? xq->inh_upto - xq->released : 0;

		if (held > room)
			held = room;
	}
	return held;
}

enum hsaqm_xq_state hsaqm_engine_state(const struct hsaqm_xq *xq)
{
	if (hsaqm_xq_idle(xq))
		return HSAQM_XQ_IDLE;
	return hsaqm_engine_wants_run(xq) ? HSAQM_XQ_READY : HSAQM_XQ_PREEMPTED;
}

void hsaqm_engine_note_state(struct hsaqm_xq *xq, uint64_t now)
{
	bool preempted = hsaqm_engine_state(xq) == HSAQM_XQ_PREEMPTED;

	if (preempted && !xq->preempted) {
		xq->preempted = true;
		xq->preempted_since = hsaqm_ctx_now_lazy(xq->dev->ctx, now);
		xq->preemptions++;
	} else if (!preempted && xq->preempted) {
		xq->preempted = false;
		now = hsaqm_ctx_now_lazy(xq->dev->ctx, now);
		if (now > xq->preempted_since)
			xq->preempted_ns += now - xq->preempted_since;
	}
}

void hsaqm_engine_update_level(struct hsaqm_xq *xq)
{
	uint8_t eff = xq->level_req;

	if (eff > xq->level_max)
		eff = xq->level_max;
	if (eff > xq->level_cap)
		eff = xq->level_cap;
	if (xq->failed_open)
		eff = HSAQM_LEVEL_NONE;
	xq->level_eff = eff;
}

void hsaqm_engine_reason(const struct hsaqm_xq *xq, char *buf, size_t len)
{
	if (xq->failed_open)
		snprintf(buf, len, "%s", xq->why_failopen);
	else if (xq->level_eff >= xq->level_req)
		snprintf(buf, len, "%s", "");
	else if (xq->level_eff == xq->level_cap && xq->level_cap < xq->level_max)
		snprintf(buf, len, "%s", xq->why_fallback);
	else
		snprintf(buf, len, "backend allows %s: %s",
			 hsaqm_level_name((enum hsaqm_level)xq->level_max), xq->why_max);
}

enum hsaqm_mechanism hsaqm_engine_mechanism(const struct hsaqm_xq *xq, char *why, size_t len)
{
	char reason[128];
	int m;

	if (why && len)
		why[0] = '\0';
	hsaqm_engine_reason(xq, reason, sizeof(reason));
	switch (xq->level_eff) {
	case HSAQM_LEVEL_NONE:
		if (why && len)
			snprintf(why, len, "%s", reason);
		return HSAQM_MECH_NONE;
	case HSAQM_LEVEL_1:
		if (why && len)
			snprintf(why, len, "%s", reason);
		return HSAQM_MECH_HOLD;
	case HSAQM_LEVEL_2:
		if (why && len) {
			enum hsaqm_spatial sp = hsaqm_engine_spatial(xq);

			snprintf(why, len, "%s%s%s", reason,
				 sp == HSAQM_SPATIAL_OFF ? "" : *reason ? "; spatial " : "spatial ",
				 sp == HSAQM_SPATIAL_OFF ? "" : hsaqm_spatial_name(sp));
		}
		return HSAQM_MECH_GATE;
	default:
		break;
	}
	if (!xq->ops->mechanism)
		return HSAQM_MECH_DBG_TRAP;
	m = xq->ops->mechanism(xq->bq, why, why && len ? (uint32_t)len : 0);
	return m == HSAQM_MECH_UPDATE_QUEUE ? HSAQM_MECH_UPDATE_QUEUE : HSAQM_MECH_DBG_TRAP;
}

static void engine_pump(struct hsaqm_xq *xq);

/* ---- spatial ---------------------------------------------------------------------------------- */

enum hsaqm_spatial hsaqm_engine_spatial(const struct hsaqm_xq *xq)
{
	if (xq->spatial_broken || xq->failed_open || xq->dev->exiting || !xq->ops->cu_confine)
		return HSAQM_SPATIAL_OFF;
	if (xq->spatial == HSAQM_SPATIAL_AUTO)
		return xq->level_req >= HSAQM_LEVEL_3 && xq->level_eff == HSAQM_LEVEL_2 ?
			       HSAQM_SPATIAL_DYNAMIC : HSAQM_SPATIAL_OFF;
	return (enum hsaqm_spatial)xq->spatial;
}

/*
 * Confine the queue (keep the reserve free of it) or give it every CU back. A refused
 * confinement ends spatial for the queue, said once; a refused give-back leaves it marked
 * confined, so that the next apply and lib's let-go try again (decision 4 for masks).
 */
static int engine_confine(struct hsaqm_xq *xq, bool on)
{
	char ebuf[24];
	int rc;

	if (on == xq->confined || !xq->ops->cu_confine)
		return 0;
	rc = xq->ops->cu_confine(xq->bq, on ? xq->reserve : 0);
	if (rc) {
		if (on) {
			xq->spatial_broken = true;
			snprintf(xq->why_spatial, sizeof(xq->why_spatial),
				 "cu_confine refused (%s): spatial off",
				 hsaqm_errno_name(rc, ebuf, sizeof(ebuf)));
			hsaqm_log_warn("queue %s: %s", xq->name, xq->why_spatial);
		} else {
			hsaqm_log_notice(NULL, "queue %s: its CUs could not be given back (%s); "
					 "tried again when it is let go", xq->name,
					 hsaqm_errno_name(rc, ebuf, sizeof(ebuf)));
		}
		return rc;
	}
	xq->confined = on;
	if (on)
		xq->confinements++;
	return 0;
}

/*
 * The queue's CU mask as its spatial mode wants it: STATIC always confined; DYNAMIC while
 * held (@held) with work in flight at Lv1/Lv2 (an Lv3 suspend stops the kernel outright).
 */
static void engine_spatial_sync(struct hsaqm_xq *xq, bool held)
{
	enum hsaqm_spatial mode;

	/* Spatial off and nothing confined (every dispatch of most queues): nothing to do. */
	if (xq->spatial == HSAQM_SPATIAL_OFF && !xq->confined)
		return;
	mode = hsaqm_engine_spatial(xq);
	bool want = mode == HSAQM_SPATIAL_STATIC ||
		    (mode == HSAQM_SPATIAL_DYNAMIC && held && xq->level_eff < HSAQM_LEVEL_3 &&
		     (xq->confined || hsaqm_xq_inflight(xq) > 0));

	engine_confine(xq, want);
}

/*
 * Decision 5: a backend operation failed in a way we did not plan for. The queue runs
 * unscheduled from now on (resumed, gate open, everything released) and a person is told
 * once. Best effort: errors met on the way are only logged.
 */
static void engine_fail_open(struct hsaqm_xq *xq, const char *op, int err)
{
	char ebuf[24];
	int rc;

	if (xq->failed_open)
		return;
	xq->failed_open = true;
	xq->fail_err = err;
	snprintf(xq->why_failopen, sizeof(xq->why_failopen),
		 "fail-open: backend %s returned %s; runs unscheduled", op,
		 hsaqm_errno_name(err, ebuf, sizeof(ebuf)));
	hsaqm_engine_update_level(xq);
	hsaqm_log_notice(&xq->notice_once, "queue %s (device %u): %s", xq->name,
			 xq->dev->id, xq->why_failopen);
	if (xq->suspended) {
		rc = xq->ops->resume(xq->bq);
		if (rc)
			hsaqm_log_err("queue %s: resume while failing open: %s", xq->name,
				      hsaqm_errno_name(rc, ebuf, sizeof(ebuf)));
		xq->suspended = false;
	}
	if (xq->gate_closed) {
		rc = xq->ops->gate_open(xq->bq);
		if (rc)
			hsaqm_log_err("queue %s: gate_open while failing open: %s", xq->name,
				      hsaqm_errno_name(rc, ebuf, sizeof(ebuf)));
		xq->gate_closed = false;
	}
	engine_confine(xq, false);
	engine_pump(xq);
}

/* One release call; accounts what went out. 0, -EAGAIN, or another error (failed open). */
static int engine_release_once(struct hsaqm_xq *xq, uint32_t n, uint32_t flags)
{
	struct hsaqm_release rel = { .first = xq->released, .n = n, .flags = flags };
	uint32_t interval = xq->lv2_interval ? xq->lv2_interval : 1;
	int rc;

	if (flags & HSAQM_RELEASE_GUARDED) {
		rel.guard_interval = interval;
		rel.guard_skip = (xq->guard_fresh || xq->guard_run >= interval) ? 0
									     : interval - xq->guard_run;
	}
	if (flags & HSAQM_RELEASE_MARKER)
		rel.marker_seq = xq->mk_next;
	rc = xq->ops->release(xq->bq, &rel);
	if (rc == -EAGAIN)
		return rc;
	if (rc) {
		engine_fail_open(xq, "release", rc);
		return rc;
	}
	xq->released += n;
	if (n && (flags & HSAQM_RELEASE_GUARDED)) {
		if (n > rel.guard_skip) {
			uint64_t g = (n - rel.guard_skip + interval - 1) / interval;
			uint64_t last = rel.guard_skip + (g - 1) * interval;

			xq->guardians += g;
			xq->guard_run = (uint32_t)(n - last);
			xq->guard_fresh = false;
		} else {
			xq->guard_run += n;
		}
	} else if (n) {
		/* Unguarded packets run past any gate: the next guarded one needs its own. */
		xq->guard_fresh = true;
	}
	if (flags & HSAQM_RELEASE_MARKER) {
		xq->mk_cover[xq->mk_next % HSAQM_XQ_MARKERS] = xq->released;
		xq->mk_next++;
		xq->marked = xq->released;
		xq->markers++;
	}
	return 0;
}

/*
 * Release @n packets, halving on -EAGAIN (a ring may hold fewer than we want to move).
 * Return: 0 when all @n went out; -EAGAIN when the ring refused some (what fitted went
 * out; the caller stops and waits for a marker or the retry timer); another error.
 */
static int engine_release(struct hsaqm_xq *xq, uint32_t n, uint32_t flags)
{
	int rc = engine_release_once(xq, n, flags);

	while (rc == -EAGAIN && n > 0) {
		n /= 2;
		if (n == 0) {
			/* Nothing fits: at least the marker, if one was asked for, alone. */
			if (!(flags & HSAQM_RELEASE_MARKER))
				break;
			flags = HSAQM_RELEASE_MARKER;
		}
		rc = engine_release_once(xq, n, flags);
		if (rc == 0) {
			rc = -EAGAIN; /* partial: the rest waits */
			break;
		}
	}
	if (rc == -EAGAIN) {
		xq->retry_pending = true;
		/* With a marker outstanding its completion retries; without one, a timer must. */
		if (xq_outstanding(xq) == 0) {
			uint64_t at = hsaqm_ctx_now(xq->dev->ctx) + HSAQM_RETRY_NS;

			if (at < xq->dev->retry_deadline)
				xq->dev->retry_deadline = at;
			hsaqm_dev_arm(xq->dev);
		}
	}
	return rc;
}

static bool engine_marker_room(const struct hsaqm_xq *xq)
{
	return xq_outstanding(xq) < HSAQM_XQ_MARKERS - 1;
}

/*
 * Every released packet must end up behind a marker, or its completion (and the queue's
 * idleness) would never be seen: with none outstanding, cover the tail with a marker alone.
 * Markers are ours, not the application's, so this happens even while the queue is held.
 */
static void engine_cover_tail(struct hsaqm_xq *xq)
{
	if (xq->released > xq->marked && xq_outstanding(xq) == 0)
		engine_release(xq, 0, HSAQM_RELEASE_MARKER);
}

/* Lv1: keep fewer than `threshold` in flight; a marker after every `batch` packets. */
static void engine_pump_lv1(struct hsaqm_xq *xq)
{
	while (engine_releasable(xq) > 0 && !xq->failed_open) {
		uint64_t inflight = hsaqm_xq_inflight(xq);
		uint64_t unmarked = xq->released - xq->marked;
		uint64_t held = engine_releasable(xq);
		uint32_t flags = 0;
		uint64_t n;

		if (inflight >= xq->lv1_threshold || !engine_marker_room(xq))
			break;
		if (unmarked >= xq->lv1_batch) {
			/* The batch shrank under packets already out: mark what is there first. */
			n = 0;
			flags = HSAQM_RELEASE_MARKER;
		} else {
			n = held;
			if (n > xq->lv1_threshold - inflight)
				n = xq->lv1_threshold - inflight;
			if (n > xq->lv1_batch - unmarked)
				n = xq->lv1_batch - unmarked;
			if (unmarked + n >= xq->lv1_batch ||
			    (xq_outstanding(xq) == 0 &&
			     (n == held || inflight + n >= xq->lv1_threshold)))
				flags = HSAQM_RELEASE_MARKER;
		}
		if (engine_release(xq, (uint32_t)n, flags))
			break;
	}
}

/* Lv0/2/3: everything held goes out at once, with one marker outstanding at most. */
static void engine_pump_all(struct hsaqm_xq *xq)
{
	uint32_t flags = 0;

	if (!xq->failed_open && !xq->dev->exiting &&
	    (xq->level_eff == HSAQM_LEVEL_2 || (xq->level_eff == HSAQM_LEVEL_3 && !xq->lv3_proven)))
		flags |= HSAQM_RELEASE_GUARDED;
	while (engine_releasable(xq) > 0) {
		uint64_t n = engine_releasable(xq);
		uint32_t f = flags;

		if (n > HSAQM_RELEASE_CHUNK_MAX)
			n = HSAQM_RELEASE_CHUNK_MAX;
		if (xq_outstanding(xq) == 0)
			f |= HSAQM_RELEASE_MARKER;
		if (engine_release(xq, (uint32_t)n, f))
			break;
	}
}

static void engine_pump(struct hsaqm_xq *xq)
{
	xq->retry_pending = false;
	if (xq->level_eff == HSAQM_LEVEL_1 && !xq->failed_open && !xq->dev->exiting)
		engine_pump_lv1(xq);
	else
		engine_pump_all(xq);
	engine_cover_tail(xq);
}

static bool suspend_refused(int err)
{
	return err == -EPERM || err == -EALREADY || err == -EOPNOTSUPP || err == -ENOTTY ||
	       err == -ENOSYS || err == -EINVAL;
}

static void engine_hold_lv2(struct hsaqm_xq *xq)
{
	int rc;

	/* Nothing in flight: nothing to stop; held packets simply stay held. */
	if (xq->gate_closed || hsaqm_xq_inflight(xq) == 0)
		return;
	rc = xq->ops->gate_close(xq->bq);
	if (rc) {
		engine_fail_open(xq, "gate_close", rc);
		return;
	}
	xq->gate_closed = true;
}

static void engine_hold(struct hsaqm_xq *xq)
{
	char ebuf[24];
	int rc;

	switch (xq->level_eff) {
	case HSAQM_LEVEL_2:
		engine_hold_lv2(xq);
		break;
	case HSAQM_LEVEL_3:
		if (xq->suspended || hsaqm_xq_inflight(xq) == 0)
			break;
		rc = xq->ops->suspend(xq->bq);
		if (rc == 0) {
			xq->suspended = true;
			xq->lv3_proven = true;
			break;
		}
		if (!suspend_refused(rc)) {
			engine_fail_open(xq, "suspend", rc);
			break;
		}
		snprintf(xq->why_fallback, sizeof(xq->why_fallback),
			 "Lv3 suspend refused (%s): fell back to Lv2%s",
			 hsaqm_errno_name(rc, ebuf, sizeof(ebuf)),
			 xq->lv3_proven ? "; earlier unguarded packets run on"
					: "");
		xq->level_cap = HSAQM_LEVEL_2;
		hsaqm_engine_update_level(xq);
		hsaqm_log_warn("queue %s: %s", xq->name, xq->why_fallback);
		if (xq->level_eff == HSAQM_LEVEL_2) {
			/* The chain's last step: spatial (AUTO turns DYNAMIC now), then the gate. */
			engine_spatial_sync(xq, true);
			engine_hold_lv2(xq);
		}
		break;
	default:
		/* Lv1: not releasing is the hold. */
		break;
	}
}

void hsaqm_engine_apply(struct hsaqm_xq *xq, uint64_t now)
{
	int rc;

	if (hsaqm_engine_wants_run(xq)) {
		if (xq->suspended) {
			rc = xq->ops->resume(xq->bq);
			if (rc) {
				engine_fail_open(xq, "resume", rc);
				goto out;
			}
			xq->suspended = false;
		}
		if (xq->gate_closed) {
			rc = xq->ops->gate_open(xq->bq);
			if (rc) {
				engine_fail_open(xq, "gate_open", rc);
				goto out;
			}
			xq->gate_closed = false;
		}
		engine_spatial_sync(xq, false);
		engine_pump(xq);
	} else {
		/* The running kernel leaves the reserve before the gate stops the queue. */
		engine_spatial_sync(xq, true);
		engine_hold(xq);
		if (xq->failed_open)
			goto out;
		xq->retry_pending = false;
		engine_cover_tail(xq);
	}
out:
	hsaqm_engine_note_state(xq, now);
}

void hsaqm_engine_note_submit(struct hsaqm_xq *xq, uint64_t end, uint64_t stamp)
{
	if (xq->lat_len == HSAQM_XQ_LAT_RING) {
		/* Full: the newest entry grows; its older timestamp makes the sample an upper bound. */
		uint32_t newest = (xq->lat_head + xq->lat_len - 1) % HSAQM_XQ_LAT_RING;

		xq->lat[newest].end = end;
		return;
	}
	uint32_t slot = (xq->lat_head + xq->lat_len) % HSAQM_XQ_LAT_RING;

	xq->lat[slot].end = end;
	xq->lat[slot].stamp = stamp;
	xq->lat_len++;
}

void hsaqm_engine_completed(struct hsaqm_xq *xq, uint64_t completed, uint64_t stamp)
{
	if (completed <= xq->completed)
		return;
	xq->completed = completed;
	while (xq->lat_len && xq->lat[xq->lat_head].end <= completed) {
		const struct hsaqm_lat_entry *e = &xq->lat[xq->lat_head];

		/* Stamps of two CPUs may differ by a few cycles: a "negative" latency is 0. */
		hsaqm_hist_record(&xq->hist, stamp > e->stamp ?
				  hsaqm_ctx_stamp_ns(xq->dev->ctx, stamp - e->stamp) : 0);
		xq->lat_head = (xq->lat_head + 1) % HSAQM_XQ_LAT_RING;
		xq->lat_len--;
	}
}

int hsaqm_engine_let_go(struct hsaqm_xq *xq, int *first_err)
{
	char ebuf[24];
	int rc;

	if (xq->suspended) {
		rc = xq->ops->resume(xq->bq);
		/* Decision 4: a queue we suspended is never left so; say it loudly if we must. */
		if (rc) {
			hsaqm_log_notice(NULL, "queue %s: resume failed (%s) while letting go",
					 xq->name, hsaqm_errno_name(rc, ebuf, sizeof(ebuf)));
			if (!*first_err)
				*first_err = rc;
		}
		xq->suspended = false;
	}
	if (xq->gate_closed) {
		rc = xq->ops->gate_open(xq->bq);
		if (rc) {
			hsaqm_log_notice(NULL, "queue %s: gate_open failed (%s) while letting go",
					 xq->name, hsaqm_errno_name(rc, ebuf, sizeof(ebuf)));
			if (!*first_err)
				*first_err = rc;
		}
		xq->gate_closed = false;
	}
	if (xq->confined) {
		rc = xq->ops->cu_confine(xq->bq, 0);
		if (rc) {
			hsaqm_log_notice(NULL, "queue %s: cu_confine(0) failed (%s) while "
					 "letting go", xq->name, hsaqm_errno_name(rc, ebuf, sizeof(ebuf)));
			if (!*first_err)
				*first_err = rc;
		}
		xq->confined = false;
	}
	while (hsaqm_xq_held(xq) > 0) {
		uint64_t n = hsaqm_xq_held(xq);
		struct hsaqm_release rel = { .first = xq->released };

		if (n > HSAQM_RELEASE_CHUNK_MAX)
			n = HSAQM_RELEASE_CHUNK_MAX;
		rel.n = (uint32_t)n;
		rc = xq->ops->release(xq->bq, &rel);
		if (rc == -EAGAIN)
			return -EAGAIN;
		if (rc) {
			if (!*first_err)
				*first_err = rc;
			break;
		}
		xq->released += n;
	}
	return 0;
}
