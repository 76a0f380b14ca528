/* SPDX-License-Identifier: MIT */
/*
 * Contexts and their devices; the policy of a device; iteration; and the exit path that
 * lets go of every queue (design decision 4: a queue hsaqm suspended is never left so).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hsaqm-common/barrier.h"
#include "hsaqm-common/log.h"
#include "hsaqm-common/time.h"
#include "xq_internal.h"

/* Live contexts, for the atexit path. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hsaqm_ctx *registry;
static pthread_once_t atexit_once = PTHREAD_ONCE_INIT;
/* The context this thread is iterating (hsaqm_ctx_foreach_xq()), to refuse attach/detach. */
static _Thread_local const struct hsaqm_ctx *tls_iterating;

static uint64_t clock_monotonic(void *arg)
{
	(void)arg;
	return hsaqm_mono_ns();
}

/*
 * Latency stamps. Every doorbell stamps the start of its batch's latency, so the stamp is on
 * the path of every dispatch: clock_gettime costs 31 ns on the development VM, an unserialised
 * TSC read 12 ns and pipelines with the work around it (hsaqm-bench-tool: 23 ns less per Lv2
 * dispatch). The TSC stands in for the clock only where the kernel builds CLOCK_MONOTONIC from
 * it (clocksource "tsc": the kernel found it invariant and the same on every CPU), and only
 * for the default clock: a context with a clock of its own (the model's time) stamps with it.
 * A stamp becomes nanoseconds when its latency is recorded, at a rate measured here: two
 * (TSC, clock) pairs STAMP_CALIB_NS apart, each bracketed by two TSC reads; a pair whose
 * bracket is wider than 1/1000 of the interval (a preemption, an interrupt) is measured again,
 * so the rate is within 0.1 %; after STAMP_CALIB_TRIES such misses the clock stamps instead.
 */
#define STAMP_CALIB_NS 1000000L
#define STAMP_CALIB_TRIES 4

static bool clocksource_is_tsc(void)
{
	char buf[16] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strcmp(buf, "tsc\n") == 0;
}

/* HSAQM_STAMP_CLOCK=1: stamp with the clock even where the TSC would do (a check, a bisection). */
static bool stamp_clock_asked(void)
{
	static int once;
	const char *v = getenv("HSAQM_STAMP_CLOCK");

	if (!v || !*v || strcmp(v, "0") == 0)
		return false;
	if (strcmp(v, "1") == 0)
		return true;
	hsaqm_log_notice(&once, "HSAQM_STAMP_CLOCK=\"%s\" is not 0 or 1: using 0 (the TSC where "
			 "the kernel's clock is the TSC)", v);
	return false;
}

/*
 * HSAQM_DEP_BOUND_MS: the bound on a wait hsaqm cannot attribute (hsaqm_ctx_set_dep_bound()),
 * whole milliseconds from 1 to 60000; anything else is said once and the default stands.
 */
static uint64_t dep_bound_env(void)
{
	static int once;
	const char *v = getenv("HSAQM_DEP_BOUND_MS");
	unsigned long long ms;

	if (!v || !*v)
		return HSAQM_DEP_BOUND_DEFAULT_NS;
	if (hsaqm_parse_uint(v, 10, 1, 60000, &ms) == 0)
		return ms * 1000000ull;
	hsaqm_log_notice(&once, "HSAQM_DEP_BOUND_MS=\"%s\" is not a whole number of milliseconds "
			 "from 1 to 60000: using %llu", v, HSAQM_DEP_BOUND_DEFAULT_NS / 1000000ull);
	return HSAQM_DEP_BOUND_DEFAULT_NS;
}

static void stamp_calibrate(struct hsaqm_ctx *ctx)
{
	if (stamp_clock_asked() || !HSAQM_HAVE_TSC || !clocksource_is_tsc())
		return;
	(void)hsaqm_mono_ns(); /* a first call may fault the clock's page in: not in a bracket */
	for (int i = 0; i < STAMP_CALIB_TRIES; i++) {
		struct timespec gap = { 0, STAMP_CALIB_NS };
		uint64_t a0 = hsaqm_tsc(), na = hsaqm_mono_ns(), a1 = hsaqm_tsc();
		uint64_t b0, nb, b1, ticks;
		int64_t skew;

		nanosleep(&gap, NULL);
		b0 = hsaqm_tsc();
		nb = hsaqm_mono_ns();
		b1 = hsaqm_tsc();
		if (a1 < a0 || b0 <= a1 || b1 < b0 || nb <= na)
			continue;
		/* Midpoint to midpoint, without adding two counts that may be near 2^64. */
		skew = ((int64_t)(b1 - b0) - (int64_t)(a1 - a0)) / 2;
		ticks = (uint64_t)((int64_t)(b0 - a0) + skew);
		if ((a1 - a0) + (b1 - b0) > ticks / 1000)
			continue;
		ctx->stamp_mult = (uint64_t)(((unsigned __int128)(nb - na) << 32) / ticks);
		ctx->stamp_tsc = ctx->stamp_mult != 0;
		return;
	}
}

bool hsaqm_ctx_valid(const struct hsaqm_ctx *ctx)
{
	return ctx && ctx->magic == HSAQM_CTX_MAGIC;
}

uint64_t hsaqm_ctx_now(const struct hsaqm_ctx *ctx)
{
	return ctx->clock(ctx->clock_arg);
}

bool hsaqm_ctx_iterating(const struct hsaqm_ctx *ctx)
{
	return tls_iterating == ctx;
}

/* Wait a bounded time for a lock at exit: its holder may be the thread calling exit(). */
static bool lock_at_exit(pthread_mutex_t *m)
{
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; i < 200; i++) {
		if (pthread_mutex_trylock(m) == 0)
			return true;
		nanosleep(&ms, NULL);
	}
	return false;
}

static void ctx_let_go_at_exit(struct hsaqm_ctx *ctx)
{
	if (!lock_at_exit(&ctx->lock)) {
		hsaqm_log_notice(NULL, "at exit, a context stayed busy: its queues were not let go");
		return;
	}
	for (struct hsaqm_dev *dev = ctx->devs; dev; dev = dev->next) {
		if (!lock_at_exit(&dev->lock)) {
			hsaqm_log_notice(NULL, "at exit, device %u stayed busy: its queues were not let go",
					 dev->id);
			continue;
		}
		/* From now on everything passes through, even if other threads still submit. */
		dev->exiting = true;
		for (uint32_t i = 0; i < dev->nxq; i++) {
			int err = 0;

			/* One attempt: at exit a full ring is not worth waiting for; the resume is. */
			hsaqm_engine_let_go(dev->xqs[i], &err);
		}
		pthread_mutex_unlock(&dev->lock);
	}
	pthread_mutex_unlock(&ctx->lock);
}

static void hsaqm_atexit(void)
{
	pthread_mutex_lock(&registry_lock);
	for (struct hsaqm_ctx *ctx = registry; ctx; ctx = ctx->reg_next)
		ctx_let_go_at_exit(ctx);
	pthread_mutex_unlock(&registry_lock);
}

static void register_atexit(void)
{
	/*
	 * In a shared object glibc ties this to the object, so a dlclose() runs it too
	 * instead of leaving a dangling handler.
	 */
	if (atexit(hsaqm_atexit))
		hsaqm_log_notice(NULL, "cannot register the exit handler: suspended queues may stay suspended if the process exits without hsaqm_ctx_destroy()");
}

static void registry_add(struct hsaqm_ctx *ctx)
{
	pthread_mutex_lock(&registry_lock);
	ctx->reg_next = registry;
	registry = ctx;
	pthread_mutex_unlock(&registry_lock);
}

static void registry_remove(struct hsaqm_ctx *ctx)
{
	pthread_mutex_lock(&registry_lock);
	for (struct hsaqm_ctx **p = &registry; *p; p = &(*p)->reg_next) {
		if (*p == ctx) {
			*p = ctx->reg_next;
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
}

int hsaqm_ctx_create_opts(struct hsaqm_ctx **out, const struct hsaqm_ctx_opts *opts)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	struct hsaqm_ctx *ctx;
	int rc;

	if (!out) {
		hsaqm_log_err("out is NULL");
		return -EINVAL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->clock = opts && opts->clock ? opts->clock : clock_monotonic;
	ctx->clock_arg = opts ? opts->clock_arg : NULL;
	ctx->timer_next = HSAQM_NO_DEADLINE;
	ctx->dep_bound_ns = dep_bound_env();
	if (ctx->clock == clock_monotonic)
		stamp_calibrate(ctx);

	/* Recursive: a foreach callback may read stats or set a policy of the same context. */
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&ctx->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_mutex_init(&ctx->timer_lock, NULL);
	/* Deadlines are CLOCK_MONOTONIC times: the condition variable must wait on that clock. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ctx->timer_cond, &ca);
	pthread_condattr_destroy(&ca);
	ctx->magic = HSAQM_CTX_MAGIC;

	if (ctx->clock == clock_monotonic) {
		rc = hsaqm_timer_start(ctx);
		if (rc) {
			pthread_cond_destroy(&ctx->timer_cond);
			pthread_mutex_destroy(&ctx->timer_lock);
			pthread_mutex_destroy(&ctx->lock);
			free(ctx);
			return rc;
		}
	}
	pthread_once(&atexit_once, register_atexit);
	registry_add(ctx);
	*out = ctx;
	return 0;
}

int hsaqm_ctx_create(struct hsaqm_ctx **out)
{
	return hsaqm_ctx_create_opts(out, NULL);
}

void hsaqm_ctx_destroy(struct hsaqm_ctx *ctx)
{
	if (!ctx)
		return;
	if (!hsaqm_ctx_valid(ctx)) {
		hsaqm_log_err("%p is not a context", (const void *)ctx);
		return;
	}
	if (hsaqm_ctx_iterating(ctx)) {
		hsaqm_log_err("hsaqm_ctx_destroy() called from inside hsaqm_ctx_foreach_xq(): ignored");
		return;
	}
	registry_remove(ctx);
	hsaqm_timer_stop(ctx);
	pthread_mutex_lock(&ctx->lock);
	while (ctx->devs) {
		struct hsaqm_dev *dev = ctx->devs;

		while (dev->nxq)
			hsaqm_xq_detach_locked(dev->xqs[dev->nxq - 1]);
		ctx->devs = dev->next;
		pthread_mutex_destroy(&dev->lock);
		free(dev->xqs);
		free(dev->pq);
		free(dev);
	}
	ctx->magic = HSAQM_DEAD_MAGIC;
	pthread_mutex_unlock(&ctx->lock);
	pthread_cond_destroy(&ctx->timer_cond);
	pthread_mutex_destroy(&ctx->timer_lock);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

struct hsaqm_dev *hsaqm_dev_get(struct hsaqm_ctx *ctx, uint32_t id, bool create)
{
	struct hsaqm_dev *dev;

	for (dev = ctx->devs; dev; dev = dev->next)
		if (dev->id == id)
			return dev;
	if (!create)
		return NULL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	dev->ctx = ctx;
	dev->id = id;
	dev->policy.kind = HSAQM_POLICY_HPF;
	dev->policy_deadline = HSAQM_NO_DEADLINE;
	dev->retry_deadline = HSAQM_NO_DEADLINE;
	dev->dep_deadline = HSAQM_NO_DEADLINE;
	pthread_mutex_init(&dev->lock, NULL);
	dev->next = ctx->devs;
	ctx->devs = dev;
	return dev;
}

int hsaqm_ctx_set_idle_hook(struct hsaqm_ctx *ctx, void (*fn)(void *arg), void *arg)
{
	int rc = 0;

	if (!hsaqm_ctx_valid(ctx) || !fn) {
		hsaqm_log_err("hsaqm_ctx_set_idle_hook(%p, %s): invalid argument", (const void *)ctx,
			      fn ? "fn" : "NULL");
		return -EINVAL;
	}
	pthread_mutex_lock(&ctx->lock);
	if (ctx->idle_set) {
		rc = -EBUSY;
	} else {
		ctx->idle_fn = fn;
		ctx->idle_arg = arg;
		/* Release: a completion thread that sees the flag (acquire) sees fn and arg. */
		hsaqm_store_release(&ctx->idle_set, 1u);
	}
	pthread_mutex_unlock(&ctx->lock);
	return rc;
}

void hsaqm_ctx_idle_hook_call(struct hsaqm_ctx *ctx)
{
	/* Acquire: pairs with the release in hsaqm_ctx_set_idle_hook(); fn and arg never change. */
	if (hsaqm_load_acquire(&ctx->idle_set))
		ctx->idle_fn(ctx->idle_arg);
}

int hsaqm_ctx_set_policy(struct hsaqm_ctx *ctx, uint32_t device,
			 const struct hsaqm_policy_config *policy)
{
	struct hsaqm_dev *dev;
	int rc;

	if (!hsaqm_ctx_valid(ctx)) {
		hsaqm_log_err("ctx %p is not a context", (const void *)ctx);
		return -EINVAL;
	}
	rc = hsaqm_policy_check(policy);
	if (rc)
		return rc;
	pthread_mutex_lock(&ctx->lock);
	dev = hsaqm_dev_get(ctx, device, true);
	if (!dev) {
		pthread_mutex_unlock(&ctx->lock);
		return -ENOMEM;
	}
	pthread_mutex_lock(&dev->lock);
	dev->policy = *policy;
	memset(&dev->pstate, 0, sizeof(dev->pstate));
	for (uint32_t i = 0; i < dev->nxq; i++) {
		dev->pq[i].floor_due_ns = 0;
		dev->pq[i].floor_end_ns = 0;
	}
	hsaqm_dev_decide(dev, hsaqm_ctx_now(ctx));
	pthread_mutex_unlock(&dev->lock);
	pthread_mutex_unlock(&ctx->lock);
	hsaqm_log_info("device %u: policy %s (floor %u/%u us, util period %u us)", device,
		       hsaqm_policy_name(policy->kind), policy->floor_slice_us,
		       policy->floor_period_us, policy->util_period_us);
	return 0;
}

int hsaqm_ctx_get_policy(struct hsaqm_ctx *ctx, uint32_t device, struct hsaqm_policy_config *policy)
{
	struct hsaqm_dev *dev;

	if (!hsaqm_ctx_valid(ctx) || !policy) {
		hsaqm_log_err("NULL or foreign argument (ctx %p, policy %p)", (const void *)ctx,
			      (void *)policy);
		return -EINVAL;
	}
	memset(policy, 0, sizeof(*policy));
	policy->kind = HSAQM_POLICY_HPF;
	pthread_mutex_lock(&ctx->lock);
	dev = hsaqm_dev_get(ctx, device, false);
	if (dev) {
		pthread_mutex_lock(&dev->lock);
		*policy = dev->policy;
		pthread_mutex_unlock(&dev->lock);
	}
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

int hsaqm_ctx_foreach_xq(struct hsaqm_ctx *ctx, int (*fn)(struct hsaqm_xq *xq, void *arg), void *arg)
{
	const struct hsaqm_ctx *outer;
	int rc = 0;

	if (!hsaqm_ctx_valid(ctx) || !fn) {
		hsaqm_log_err("NULL or foreign argument (ctx %p, fn %s)", (const void *)ctx,
			      fn ? "set" : "NULL");
		return -EINVAL;
	}
	pthread_mutex_lock(&ctx->lock);
	outer = tls_iterating;
	tls_iterating = ctx;
	/* The ctx lock keeps the lists still (attach/detach take it); fn may take device locks. */
	for (struct hsaqm_dev *dev = ctx->devs; dev && !rc; dev = dev->next)
		for (uint32_t i = 0; i < dev->nxq && !rc; i++)
			rc = fn(dev->xqs[i], arg);
	tls_iterating = outer;
	pthread_mutex_unlock(&ctx->lock);
	return rc;
}
