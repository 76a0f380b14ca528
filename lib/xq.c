/* SPDX-License-Identifier: MIT */
/*
 * xqueues: attach and detach, their settings, and the two calls a backend makes
 * (hsaqm_xq_submitted() at the doorbell, hsaqm_xq_marker_done() at a completion). Both run
 * the reaction inline, in the caller's thread, under the device lock: no thread is woken
 * between a high-priority submission and the lower queues' gates closing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hsaqm-common/log.h"
#include "xq_internal.h"

bool hsaqm_xq_valid(const struct hsaqm_xq *xq)
{
	return xq && xq->magic == HSAQM_XQ_MAGIC;
}

size_t hsaqm_xq_sizeof(void)
{
	return sizeof(struct hsaqm_xq);
}

#define XQ_CHECK(xq)                                                                      \
	do {                                                                              \
		if (!hsaqm_xq_valid(xq)) {                                                \
			hsaqm_log_err("xq %p is NULL or not an attached queue", (const void *)(xq)); \
			return -EINVAL;                                                   \
		}                                                                         \
	} while (0)

static bool level_valid(enum hsaqm_level level)
{
	return level >= HSAQM_LEVEL_NONE && level <= HSAQM_LEVEL_3;
}

static bool priority_valid(int priority)
{
	return priority >= HSAQM_PRIORITY_MIN && priority <= HSAQM_PRIORITY_MAX;
}

/* Launch parameters after defaults; -EINVAL when the batch exceeds the threshold. */
static int launch_resolve(uint32_t threshold, uint32_t batch, uint32_t *t_out, uint32_t *b_out)
{
	uint32_t t = threshold ? threshold : HSAQM_LV1_THRESHOLD_DEFAULT;
	uint32_t b = batch ? batch : (t < HSAQM_LV1_BATCH_DEFAULT ? t : HSAQM_LV1_BATCH_DEFAULT);

	if (b > t) {
		hsaqm_log_err("lv1 batch %u is larger than the threshold %u", b, t);
		return -EINVAL;
	}
	*t_out = t;
	*b_out = b;
	return 0;
}

static int config_check(const struct hsaqm_xq_config *cfg)
{
	if (!priority_valid(cfg->priority)) {
		hsaqm_log_err("priority %d is outside %d..%d", cfg->priority, HSAQM_PRIORITY_MIN,
			      HSAQM_PRIORITY_MAX);
		return -EINVAL;
	}
	if (!level_valid(cfg->level)) {
		hsaqm_log_err("unknown level %d (0..3)", (int)cfg->level);
		return -EINVAL;
	}
	if (cfg->share_permille > HSAQM_SHARE_MAX) {
		hsaqm_log_err("share %u permille is above %u", cfg->share_permille, HSAQM_SHARE_MAX);
		return -EINVAL;
	}
	return 0;
}

/* What the backend allows, with its reason; missing operations lower it. */
static void xq_query_max(struct hsaqm_xq *xq)
{
	const struct hsaqm_backend_ops *ops = xq->ops;
	char why[sizeof(xq->why_max)] = "";
	int max = ops->max_level(xq->bq, why, sizeof(why));

	why[sizeof(why) - 1] = '\0';
	if (max < 0) {
		char ebuf[24];

		snprintf(why, sizeof(why), "max_level() failed: %s",
			 hsaqm_errno_name(max, ebuf, sizeof(ebuf)));
		max = HSAQM_LEVEL_NONE;
	}
	if (max > HSAQM_LEVEL_3)
		max = HSAQM_LEVEL_3;
	if (max >= HSAQM_LEVEL_2 && (!ops->gate_close || !ops->gate_open)) {
		max = HSAQM_LEVEL_1;
		snprintf(why, sizeof(why), "%s", "the backend has no gate operations");
	}
	if (max >= HSAQM_LEVEL_3 && (!ops->suspend || !ops->resume)) {
		max = HSAQM_LEVEL_2;
		snprintf(why, sizeof(why), "%s", "the backend has no suspend/resume operations");
	}
	xq->level_max = (uint8_t)max;
	snprintf(xq->why_max, sizeof(xq->why_max), "%s", why[0] ? why : "no reason given");
}

int hsaqm_xq_attach(struct hsaqm_ctx *ctx, const struct hsaqm_xq_config *cfg,
		    const struct hsaqm_backend_ops *ops, void *bq, struct hsaqm_xq **out)
{
	struct hsaqm_xq *xq;
	struct hsaqm_dev *dev;
	uint32_t threshold, batch;
	int rc;

	if (!hsaqm_ctx_valid(ctx) || !cfg || !ops || !out) {
		hsaqm_log_err("NULL or foreign argument (ctx %p, cfg %p, ops %p, out %p)",
			      (const void *)ctx, (const void *)cfg, (const void *)ops, (void *)out);
		return -EINVAL;
	}
	if (!ops->release || !ops->max_level) {
		hsaqm_log_err("backend ops lack release() or max_level()");
		return -EINVAL;
	}
	rc = config_check(cfg);
	if (rc)
		return rc;
	rc = launch_resolve(cfg->lv1_threshold, cfg->lv1_batch, &threshold, &batch);
	if (rc)
		return rc;
	if (hsaqm_ctx_iterating(ctx)) {
		hsaqm_log_err("attach from inside hsaqm_ctx_foreach_xq()");
		return -EDEADLK;
	}
	xq = calloc(1, sizeof(*xq));
	if (!xq)
		return -ENOMEM;
	xq->magic = HSAQM_XQ_MAGIC;
	xq->ops = ops;
	xq->bq = bq;
	xq->priority = cfg->priority;
	xq->group = cfg->group;
	xq->share = cfg->share_permille;
	xq->lv1_threshold = threshold;
	xq->lv1_batch = batch;
	xq->lv2_interval = cfg->lv2_interval ? cfg->lv2_interval : HSAQM_LV2_INTERVAL_DEFAULT;
	xq->level_req = (uint8_t)cfg->level;
	xq->level_cap = HSAQM_LEVEL_3;
	xq->mk_next = 1;
	xq->guard_fresh = true;
	hsaqm_hist_init(&xq->hist);

	pthread_mutex_lock(&ctx->lock);
	dev = hsaqm_dev_get(ctx, cfg->device, true);
	if (!dev) {
		pthread_mutex_unlock(&ctx->lock);
		free(xq);
		return -ENOMEM;
	}
	xq->dev = dev;
	xq->id = ctx->next_xq_id++;
	if (cfg->name)
		snprintf(xq->name, sizeof(xq->name), "%s", cfg->name);
	else
		snprintf(xq->name, sizeof(xq->name), "xq%u", xq->id);

	pthread_mutex_lock(&dev->lock);
	xq_query_max(xq);
	hsaqm_engine_update_level(xq);
	rc = hsaqm_dev_add(dev, xq);
	if (rc == 0)
		hsaqm_dev_decide(dev, hsaqm_ctx_now(ctx));
	pthread_mutex_unlock(&dev->lock);
	pthread_mutex_unlock(&ctx->lock);
	if (rc) {
		free(xq);
		return rc;
	}
	if (xq->level_eff < xq->level_req)
		hsaqm_log_warn("queue %s: asked for %s, gets %s: %s", xq->name,
			       hsaqm_level_name(cfg->level),
			       hsaqm_level_name((enum hsaqm_level)xq->level_eff), xq->why_max);
	hsaqm_log_info("queue %s attached: device %u, priority %d, level %s", xq->name, dev->id,
		       xq->priority, hsaqm_level_name((enum hsaqm_level)xq->level_eff));
	*out = xq;
	return 0;
}

int hsaqm_xq_detach_locked(struct hsaqm_xq *xq)
{
	struct hsaqm_dev *dev = xq->dev;
	struct timespec pause = { 0, 100000 };
	const struct hsaqm_backend_ops *ops = xq->ops;
	void *bq = xq->bq;
	int err = 0;

	pthread_mutex_lock(&dev->lock);
	hsaqm_dev_remove(dev, xq);
	xq->magic = HSAQM_DEAD_MAGIC;
	/* Its holds go before the others are decided again: it no longer competes. */
	for (int tries = 0; hsaqm_engine_let_go(xq, &err) == -EAGAIN; tries++) {
		if (tries == 10000) {
			hsaqm_log_notice(NULL, "queue %s: ring stayed full for 1 s at detach; %llu packets not released",
					 xq->name, (unsigned long long)hsaqm_xq_held(xq));
			if (!err)
				err = -EAGAIN;
			break;
		}
		/* Let the device's other queues go on while this ring drains (the gate is open). */
		pthread_mutex_unlock(&dev->lock);
		nanosleep(&pause, NULL);
		pthread_mutex_lock(&dev->lock);
	}
	hsaqm_dev_decide(dev, hsaqm_ctx_now(dev->ctx));
	pthread_mutex_unlock(&dev->lock);
	if (ops->detached)
		ops->detached(bq);
	free(xq);
	return err;
}

int hsaqm_xq_detach(struct hsaqm_xq *xq)
{
	struct hsaqm_ctx *ctx;
	int rc;

	if (!xq)
		return 0;
	XQ_CHECK(xq);
	ctx = xq->dev->ctx;
	if (hsaqm_ctx_iterating(ctx)) {
		hsaqm_log_err("detach of %s from inside hsaqm_ctx_foreach_xq()", xq->name);
		return -EDEADLK;
	}
	pthread_mutex_lock(&ctx->lock);
	rc = hsaqm_xq_detach_locked(xq);
	pthread_mutex_unlock(&ctx->lock);
	return rc;
}

int hsaqm_xq_set_priority(struct hsaqm_xq *xq, int priority)
{
	XQ_CHECK(xq);
	if (!priority_valid(priority)) {
		hsaqm_log_err("queue %s: priority %d is outside %d..%d", xq->name, priority,
			      HSAQM_PRIORITY_MIN, HSAQM_PRIORITY_MAX);
		return -EINVAL;
	}
	pthread_mutex_lock(&xq->dev->lock);
	xq->priority = priority;
	hsaqm_dev_decide(xq->dev, hsaqm_ctx_now(xq->dev->ctx));
	pthread_mutex_unlock(&xq->dev->lock);
	return 0;
}

int hsaqm_xq_set_level(struct hsaqm_xq *xq, enum hsaqm_level level)
{
	XQ_CHECK(xq);
	if (!level_valid(level)) {
		hsaqm_log_err("queue %s: unknown level %d (0..3)", xq->name, (int)level);
		return -EINVAL;
	}
	pthread_mutex_lock(&xq->dev->lock);
	xq->level_req = (uint8_t)level;
	hsaqm_engine_update_level(xq);
	hsaqm_engine_apply(xq, hsaqm_ctx_now(xq->dev->ctx));
	pthread_mutex_unlock(&xq->dev->lock);
	return 0;
}

int hsaqm_xq_set_launch(struct hsaqm_xq *xq, uint32_t lv1_threshold, uint32_t lv1_batch,
			uint32_t lv2_interval)
{
	uint32_t t, b;

	XQ_CHECK(xq);
	pthread_mutex_lock(&xq->dev->lock);
	t = lv1_threshold ? lv1_threshold : xq->lv1_threshold;
	b = lv1_batch ? lv1_batch : xq->lv1_batch;
	if (b > t) {
		pthread_mutex_unlock(&xq->dev->lock);
		hsaqm_log_err("queue %s: lv1 batch %u is larger than the threshold %u", xq->name, b, t);
		return -EINVAL;
	}
	xq->lv1_threshold = t;
	xq->lv1_batch = b;
	if (lv2_interval)
		xq->lv2_interval = lv2_interval;
	hsaqm_engine_apply(xq, hsaqm_ctx_now(xq->dev->ctx));
	pthread_mutex_unlock(&xq->dev->lock);
	return 0;
}

int hsaqm_xq_set_share(struct hsaqm_xq *xq, uint32_t group, uint32_t share_permille)
{
	XQ_CHECK(xq);
	if (share_permille > HSAQM_SHARE_MAX) {
		hsaqm_log_err("queue %s: share %u permille is above %u", xq->name, share_permille,
			      HSAQM_SHARE_MAX);
		return -EINVAL;
	}
	pthread_mutex_lock(&xq->dev->lock);
	xq->group = group;
	xq->share = share_permille;
	hsaqm_dev_decide(xq->dev, hsaqm_ctx_now(xq->dev->ctx));
	pthread_mutex_unlock(&xq->dev->lock);
	return 0;
}

int hsaqm_xq_set_spatial(struct hsaqm_xq *xq, enum hsaqm_spatial mode, uint32_t reserve_permille)
{
	XQ_CHECK(xq);
	if ((unsigned int)mode > HSAQM_SPATIAL_AUTO ||
	    (mode != HSAQM_SPATIAL_OFF && (reserve_permille < 1 || reserve_permille > 999))) {
		hsaqm_log_err("queue %s: spatial mode %d with a reserve of %u permille (want a mode "
			      "of enum hsaqm_spatial and 1..999)", xq->name, (int)mode,
			      reserve_permille);
		return -EINVAL;
	}
	if (mode != HSAQM_SPATIAL_OFF && !xq->ops->cu_confine)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&xq->dev->lock);
	xq->spatial = (uint8_t)mode;
	xq->reserve = mode == HSAQM_SPATIAL_OFF ? 0 : reserve_permille;
	xq->spatial_broken = false;
	xq->why_spatial[0] = '\0';
	/* A confined queue whose reserve changed gives its CUs back first, then re-confines. */
	if (xq->confined && xq->ops->cu_confine && xq->ops->cu_confine(xq->bq, 0) == 0)
		xq->confined = false;
	hsaqm_engine_apply(xq, hsaqm_ctx_now(xq->dev->ctx));
	pthread_mutex_unlock(&xq->dev->lock);
	return 0;
}

/* Set or clear the hand hold; returns the backend error if the queue failed open on the way. */
static int xq_hold_by_hand(struct hsaqm_xq *xq, bool hold)
{
	struct hsaqm_dev *dev = xq->dev;
	uint64_t now;
	bool was_failed;
	int rc = 0;

	pthread_mutex_lock(&dev->lock);
	if (hold && xq->level_eff == HSAQM_LEVEL_NONE) {
		pthread_mutex_unlock(&dev->lock);
		hsaqm_log_err("queue %s: level none cannot hold a queue", xq->name);
		return -EOPNOTSUPP;
	}
	was_failed = xq->failed_open;
	now = hsaqm_ctx_now(dev->ctx);
	xq->by_hand = hold;
	/* Its competing changed (others may resume or stop), then its own hold follows. */
	hsaqm_dev_decide(dev, now);
	hsaqm_engine_apply(xq, now);
	if (!was_failed && xq->failed_open)
		rc = xq->fail_err;
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

int hsaqm_xq_suspend(struct hsaqm_xq *xq)
{
	XQ_CHECK(xq);
	return xq_hold_by_hand(xq, true);
}

int hsaqm_xq_resume(struct hsaqm_xq *xq)
{
	XQ_CHECK(xq);
	return xq_hold_by_hand(xq, false);
}

void hsaqm_xq_info_locked(const struct hsaqm_xq *xq, struct hsaqm_xq_info *info)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", xq->name);
	info->device = xq->dev->id;
	info->priority = xq->priority;
	info->requested_level = (enum hsaqm_level)xq->level_req;
	info->effective_level = (enum hsaqm_level)xq->level_eff;
	hsaqm_engine_reason(xq, info->level_reason, sizeof(info->level_reason));
	info->state = hsaqm_engine_state(xq);
	info->held_by_hand = xq->by_hand;
	info->failed_open = xq->failed_open;
	info->group = xq->group;
	info->share_permille = xq->share;
	info->submitted = xq->submitted;
	info->released = xq->released;
	info->completed = xq->completed;
	info->mechanism = hsaqm_engine_mechanism(xq, info->mechanism_reason,
						 sizeof(info->mechanism_reason));
	info->spatial = (enum hsaqm_spatial)xq->spatial;
	info->cu_reserve_permille = xq->reserve;
	info->confined = xq->confined;
}

int hsaqm_xq_get_info(const struct hsaqm_xq *xq, struct hsaqm_xq_info *info)
{
	XQ_CHECK(xq);
	if (!info) {
		hsaqm_log_err("queue %s: info is NULL", xq->name);
		return -EINVAL;
	}
	pthread_mutex_lock(&xq->dev->lock);
	hsaqm_xq_info_locked(xq, info);
	pthread_mutex_unlock(&xq->dev->lock);
	return 0;
}

int hsaqm_xq_submitted(struct hsaqm_xq *xq, uint64_t end_index)
{
	struct hsaqm_dev *dev;
	uint64_t now, stamp;
	bool was_idle;

	XQ_CHECK(xq);
	dev = xq->dev;
	pthread_mutex_lock(&dev->lock);
	if (end_index <= xq->submitted) {
		uint64_t seen = xq->submitted;

		pthread_mutex_unlock(&dev->lock);
		if (end_index == seen)
			return 0;
		hsaqm_log_err("queue %s: end index %llu is behind %llu already reported", xq->name,
			      (unsigned long long)end_index, (unsigned long long)seen);
		return -EINVAL;
	}
	/*
	 * The dispatch path: a stamp, not a clock read (without the TSC the stamp is the clock
	 * reading, kept as now); the clock only when a decision needs it.
	 */
	stamp = hsaqm_ctx_stamp(dev->ctx, HSAQM_NOW_UNREAD);
	now = dev->ctx->stamp_tsc ? HSAQM_NOW_UNREAD : stamp;
	hsaqm_engine_note_submit(xq, end_index, stamp);
	was_idle = hsaqm_xq_idle(xq);
	xq->submitted = end_index;
	/*
	 * The reaction path: an idle queue becoming active can outrank running ones. Decide
	 * (which preempts them) before releasing this queue's packets.
	 */
	if (was_idle && !xq->by_hand) {
		now = hsaqm_ctx_now_lazy(dev->ctx, now);
		hsaqm_dev_decide(dev, now);
	}
	hsaqm_engine_apply(xq, now);
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

int hsaqm_xq_marker_done(struct hsaqm_xq *xq, uint64_t marker_seq)
{
	struct hsaqm_dev *dev;
	bool was_idle, went_idle;
	uint64_t now;

	XQ_CHECK(xq);
	dev = xq->dev;
	pthread_mutex_lock(&dev->lock);
	if (marker_seq >= xq->mk_next || marker_seq == 0) {
		uint64_t next = xq->mk_next;

		pthread_mutex_unlock(&dev->lock);
		hsaqm_log_err("queue %s: marker %llu was never released (next is %llu)", xq->name,
			      (unsigned long long)marker_seq, (unsigned long long)next);
		return -EINVAL;
	}
	if (marker_seq <= xq->mk_done) {
		pthread_mutex_unlock(&dev->lock);
		return 0;
	}
	now = hsaqm_ctx_now(dev->ctx);
	xq->mk_done = marker_seq;
	was_idle = hsaqm_xq_idle(xq);
	hsaqm_engine_completed(xq, xq->mk_cover[marker_seq % HSAQM_XQ_MARKERS],
			       hsaqm_ctx_stamp(dev->ctx, now));
	went_idle = !was_idle && hsaqm_xq_idle(xq);
	/*
	 * Gone idle: the queues it kept down may resume (the decision applies this one too).
	 * Done what a waiter needed of it: it may be held again, and the waiter goes on.
	 */
	if ((went_idle && !xq->by_hand) || (xq->inherit_only && xq->completed >= xq->inh_upto))
		hsaqm_dev_decide(dev, now);
	hsaqm_engine_apply(xq, now);
	pthread_mutex_unlock(&dev->lock);
	/* Outside the lock: the hook may call back into lib. */
	if (went_idle)
		hsaqm_ctx_idle_hook_call(dev->ctx);
	return 0;
}
