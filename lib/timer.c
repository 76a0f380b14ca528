/* SPDX-License-Identifier: MIT */
/*
 * The context's timer: one thread, asleep on a condition variable until the earliest
 * deadline any device posted (a starvation-floor slice, a UTIL slice, a release retry).
 * It never polls: with no deadline it sleeps until one is posted.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "hsaqm-common/log.h"
#include "xq_internal.h"

void hsaqm_timer_arm(struct hsaqm_ctx *ctx, uint64_t deadline)
{
	pthread_mutex_lock(&ctx->timer_lock);
	if (deadline < ctx->timer_next) {
		ctx->timer_next = deadline;
		pthread_cond_signal(&ctx->timer_cond);
	}
	pthread_mutex_unlock(&ctx->timer_lock);
}

uint64_t hsaqm_ctx_timer_poll(struct hsaqm_ctx *ctx)
{
	uint64_t now = hsaqm_ctx_now(ctx), next;

	/* Forget the planned wake-up: every device posts its deadline again below. */
	pthread_mutex_lock(&ctx->timer_lock);
	ctx->timer_next = HSAQM_NO_DEADLINE;
	pthread_mutex_unlock(&ctx->timer_lock);

	pthread_mutex_lock(&ctx->lock);
	for (struct hsaqm_dev *dev = ctx->devs; dev; dev = dev->next) {
		pthread_mutex_lock(&dev->lock);
		hsaqm_dev_timer(dev, now);
		pthread_mutex_unlock(&dev->lock);
	}
	pthread_mutex_unlock(&ctx->lock);

	pthread_mutex_lock(&ctx->timer_lock);
	next = ctx->timer_next;
	pthread_mutex_unlock(&ctx->timer_lock);
	return next;
}

static void *timer_main(void *arg)
{
	struct hsaqm_ctx *ctx = arg;

	pthread_mutex_lock(&ctx->timer_lock);
	while (!ctx->timer_stop) {
		uint64_t next = ctx->timer_next, now = hsaqm_ctx_now(ctx);

		if (next > now) {
			if (next == HSAQM_NO_DEADLINE) {
				pthread_cond_wait(&ctx->timer_cond, &ctx->timer_lock);
			} else {
				struct timespec ts = { .tv_sec = (time_t)(next / 1000000000u),
						       .tv_nsec = (long)(next % 1000000000u) };

				pthread_cond_timedwait(&ctx->timer_cond, &ctx->timer_lock, &ts);
			}
			continue;
		}
		pthread_mutex_unlock(&ctx->timer_lock);
		hsaqm_ctx_timer_poll(ctx);
		pthread_mutex_lock(&ctx->timer_lock);
	}
	pthread_mutex_unlock(&ctx->timer_lock);
	return NULL;
}

int hsaqm_timer_start(struct hsaqm_ctx *ctx)
{
	int rc = pthread_create(&ctx->timer_thread, NULL, timer_main, ctx);

	if (rc) {
		hsaqm_log_err("cannot start the timer thread: error %d", rc);
		return -EAGAIN;
	}
	ctx->timer_thread_running = true;
	return 0;
}

void hsaqm_timer_stop(struct hsaqm_ctx *ctx)
{
	if (!ctx->timer_thread_running)
		return;
	pthread_mutex_lock(&ctx->timer_lock);
	ctx->timer_stop = true;
	pthread_cond_signal(&ctx->timer_cond);
	pthread_mutex_unlock(&ctx->timer_lock);
	pthread_join(ctx->timer_thread, NULL);
	ctx->timer_thread_running = false;
}
