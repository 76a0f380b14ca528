// SPDX-License-Identifier: MIT
/*
 * check_lv12.c - Lv1 (progressive launch) and Lv2 (guardian gate), measured through lib's HSA
 * backend (hsa-layer/include/hsaqm-hsa/hsa_backend.h): a proxy queue on the probe's HSA table, a
 * stream of in-order spin kernels submitted to it as an application would, and lib holding
 * the queue by hand at its level.
 *
 * Every figure comes from the runtime's own clock: each kernel has its own completion signal,
 * whose dispatch timestamps (launch and end, hsa_amd_profiling_get_dispatch_time, in the HSA
 * system clock domain) are compared with the times of the hold and of the release, read from
 * the same clock (HSA_SYSTEM_INFO_TIMESTAMP). On the model that clock is model time, so the
 * figures are exact model figures, not host wake-up jitter; on hardware it is ROCr's system
 * clock, into which ROCr converts the GPU's timestamps.
 *   Lv1: drain - from the hold until every kernel lib had released has completed (at most
 *        threshold kernels in flight); the window seen at the hold; the time from the
 *        release to the first held kernel's launch. Proof of the hold: no held kernel
 *        launched before the release.
 *   Lv2: launches_stop - from closing the gate to the last launch of a kernel that was
 *        already past its guardian (0 when none launched: with a guardian before every
 *        kernel, each guardian carries its kernel's barrier bit and waits for the kernel
 *        before it, so nothing passes a closed gate); drain - until the queue ran dry;
 *        launches_resume - from reopening to the next launch. Proof: no more kernels
 *        launched after the close than one guardian interval.
 *   Both: nothing lost - every kernel completes once, with exact results.
 * The checks are built only when hsa-layer provides the backend (meson finds
 * hsaqm_hsa_runtime_init in its sources); until then they say so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_internal.h"

#ifndef HSAQM_PROBE_HAVE_HSA_BACKEND

static void not_built(struct hsaqm_probe_check *k)
{
	probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "hsa_backend_missing",
			  "build a tree where hsa-layer provides the HSA backend (hsa_backend.h)",
			  "HSA backend not built yet");
}

void probe_check_lv1(struct probe_ctx *c, struct hsaqm_probe_gpu *g, struct hsaqm_probe_check *k)
{
	(void)c;
	(void)g;
	not_built(k);
}

void probe_check_lv2(struct probe_ctx *c, struct hsaqm_probe_gpu *g, struct hsaqm_probe_check *k)
{
	(void)c;
	(void)g;
	not_built(k);
}

#else /* HSAQM_PROBE_HAVE_HSA_BACKEND */

#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-hsa/hsa_backend.h"
#include "hsaqm/hsaqm.h"

#define MS 1000000ull
#define LV1_THRESHOLD 4u
#define STREAM_KERNELS 16u

#define REMEDY_ROCM "install the ROCm runtime (libhsa-runtime64.so: Debian's libhsa-runtime64-1, " \
		    "or ROCm from AMD)"

#define REMEDY_REPORT "report it to hsaqm with this report (--json); do not rely on this level here"

struct lv12 {
	struct probe_ctx *c;
	struct hsaqm_probe_gpu *g;
	struct hsaqm_probe_check *k;
	enum hsaqm_level level;
	struct hsaqm_hsa_runtime rt;
	bool have_rt;
	struct hsaqm_ctx *ctx;
	struct hsaqm_hsa_proxy *proxy;
	struct hsaqm_hsa_agent agent;
	struct probe_kernel kern;
	bool have_kern;
	struct hsaqm_hsa_signal sig[STREAM_KERNELS]; /* one per kernel: its own timestamps */
	uint32_t nsig;
	struct probe_spin_args *args;
	uint32_t *out;
	uint32_t iters;
	uint64_t kernel_ns;
	uint32_t interval;  /* Lv2: kernels per guardian */
	uint64_t deadline;
};

/* What one held trial saw, every time in ns of the runtime's clock. */
struct lv12_trial {
	uint64_t t_hold, t_open;
	uint64_t start[STREAM_KERNELS], end[STREAM_KERNELS];
	uint32_t released_at_hold; /* kernels lib had released when the hold took effect */
	uint32_t wrong;
};

/* The figures of one trial. */
struct lv12_result {
	bool inconclusive;        /* every kernel launched before the hold: nothing was held */
	uint64_t drain;           /* hold -> the last kernel that got past the hold ends */
	uint64_t stop;            /* Lv2: hold -> the last launch before the release (0: none) */
	uint64_t resume;          /* release -> the first launch after it */
	uint32_t inflight;        /* Lv1: released kernels not yet complete at the hold */
	uint32_t after_hold;      /* kernels launched between the hold and the release */
	uint32_t held_launched;   /* Lv1: kernels lib had not released that launched anyway */
};

static bool open_lv12(struct lv12 *s)
{
	struct probe_ctx *c = s->c;
	char why[256] = "";
	int err;

	if (!probe_hsa_ready(c)) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_rocm", REMEDY_ROCM,
				  "%s", c->hsa_why);
		return false;
	}
	if (!s->g->have_kernel) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_device_kernel",
				  "rebuild with a clang that targets it (docs/probe-report.md)",
				  "%s", s->g->kernel_text);
		return false;
	}
	uint64_t now;
	if (!c->hsa.get_dispatch_time || probe_hsa_now(&c->hsa, &now)) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_timestamps", "",
				  "the HSA runtime gives no %s",
				  c->hsa.get_dispatch_time ? "system timestamp" :
				  "dispatch timestamps (hsa_amd_profiling_get_dispatch_time)");
		return false;
	}
	err = hsaqm_hsa_runtime_init(&s->rt, c->hsa.root, 0, NULL);
	if (err) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "hsa_backend_refused", "",
				  "the HSA backend refused the runtime's "
				  "table (%s)", probe_errname(err));
		return false;
	}
	s->have_rt = true;
	if (probe_hsa_find_gpu(&c->hsa, s->g->node_id, s->g->index, &s->agent) ||
	    hsaqm_ctx_create(&s->ctx)) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_agent", "",
				  "no agent or no scheduling context");
		return false;
	}
	err = probe_kernel_load(c->env, &c->hsa, s->agent, s->g->isa, c->o->kernel_dir,
				(c->o->quick ? 1 : 2) * MS, &s->kern, why, sizeof(why));
	if (err) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_device_kernel", "",
				  "%s", why);
		return false;
	}
	s->have_kern = true;
	s->args = probe_hsa_alloc(&c->hsa, s->agent,
				  (size_t)STREAM_KERNELS * s->kern.kernarg_size, true);
	s->out = probe_hsa_alloc(&c->hsa, s->agent,
				 (size_t)STREAM_KERNELS * PROBE_SPIN_WG_SIZE * sizeof(uint32_t),
				 true);
	for (s->nsig = 0; s->nsig < STREAM_KERNELS; s->nsig++)
		if (c->hsa.signal_create(1, 0, NULL, &s->sig[s->nsig]))
			break;
	if (!s->args || !s->out || s->nsig < STREAM_KERNELS) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_memory", "",
				  "no memory or signal from the HSA runtime");
		return false;
	}
	struct hsaqm_hsa_proxy_config cfg = {
		.agent = s->agent,
		.size = 256,
		.type = HSAQM_HSA_QUEUE_TYPE_MULTI,
		.private_segment_size = UINT32_MAX,
		.group_segment_size = UINT32_MAX,
		.xq = { .device = s->g->index, .level = s->level, .lv1_threshold = LV1_THRESHOLD,
			.lv1_batch = 1, .lv2_interval = s->interval, .name = "probe" },
	};
	err = hsaqm_hsa_proxy_create(&s->rt, s->ctx, &cfg, &s->proxy);
	if (err) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "proxy_failed", "",
				  "proxy queue creation failed (%s)",
				  probe_errname(err));
		return false;
	}
	/* ROCr records dispatch timestamps only on a queue with profiling on. */
	if (s->rt.amd_profiling_set_profiler_enabled)
		s->rt.amd_profiling_set_profiler_enabled(hsaqm_hsa_proxy_hw_queue(s->proxy), 1);
	struct hsaqm_xq_info info;
	if (hsaqm_xq_get_info(hsaqm_hsa_proxy_xq(s->proxy), &info) == 0 &&
	    info.effective_level < s->level) {
		probe_set_verdict(s->k, HSAQM_PROBE_NOT_SUPPORTED, "level_refused", "",
				  "the backend grants %s only: %s",
				  hsaqm_level_name(info.effective_level), info.level_reason);
		return false;
	}
	return true;
}

static void close_lv12(struct lv12 *s)
{
	struct probe_ctx *c = s->c;

	if (s->proxy)
		hsaqm_hsa_proxy_destroy(s->proxy);
	hsaqm_ctx_destroy(s->ctx);
	/* After the last proxy, while the runtime is still up (hsa_backend.h). */
	if (s->have_rt)
		hsaqm_hsa_runtime_fini(&s->rt);
	for (uint32_t i = 0; i < s->nsig; i++)
		c->hsa.signal_destroy(s->sig[i]);
	probe_hsa_free(&c->hsa, s->args);
	probe_hsa_free(&c->hsa, s->out);
	if (s->have_kern)
		probe_kernel_unload(&c->hsa, &s->kern);
}

/* Submit @n kernels to the proxy queue the way an application does. */
static int submit(struct lv12 *s, uint32_t n, uint32_t seed)
{
	struct hsaqm_hsa_queue *q = hsaqm_hsa_proxy_queue(s->proxy);
	struct hsaqm_amd_queue *amd = (struct hsaqm_amd_queue *)q;

	memset(s->out, 0, (size_t)n * PROBE_SPIN_WG_SIZE * sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++)
		s->c->hsa.signal_store(s->sig[i], 1);
	for (uint32_t i = 0; i < n; i++) {
		struct probe_spin_args *a =
			(void *)((char *)s->args + (size_t)i * s->kern.kernarg_size);
		union hsaqm_aql_packet p;
		struct hsaqm_aql_dispatch_desc d = {
			.dims = 1,
			.workgroup_size = { PROBE_SPIN_WG_SIZE, 1, 1 },
			.grid_size = { PROBE_SPIN_WG_SIZE, 1, 1 },
			.kernel_object = s->kern.kernel_object,
			.kernarg_address = (uint64_t)(uintptr_t)a,
			.completion_signal = s->sig[i].handle,
			/* In order, as a HIP stream's kernels: each waits for the one before. */
			.barrier = true,
			.acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
			.release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
		};

		*a = (struct probe_spin_args){
			.out = (uint64_t)(uintptr_t)(s->out + (size_t)i * PROBE_SPIN_WG_SIZE),
			.iters = s->iters, .seed = seed + i, .wg_size = PROBE_SPIN_WG_SIZE };
		memset(&p, 0, sizeof(p));
		if (hsaqm_aql_dispatch_build(&p, &d))
			return -EINVAL;
		/* acq_rel: reserve the slot as ROCclr does. */
		uint64_t idx = hsaqm_fetch_add(&amd->write_dispatch_id, 1ull);
		/* Acquire: the proxy frees slots (INVALID headers) before it moves this. */
		while (idx - hsaqm_load_acquire(&amd->read_dispatch_id) >= q->size)
			if (!probe_wait_ns(s->c, 100000))
				return -EINTR;
		hsaqm_aql_publish((char *)q->base_address + (idx & (q->size - 1)) * 64, &p);
		hsaqm_hsa_proxy_doorbell(s->proxy, (hsaqm_hsa_signal_value_t)idx);
	}
	return 0;
}

/* Wait (runtime clock) until the first @n kernels completed; false on timeout or interrupt. */
static bool wait_all(struct lv12 *s, uint32_t n, uint64_t timeout_ns)
{
	uint64_t end = probe_clock(s->c) + timeout_ns;

	for (uint32_t i = 0; i < n; i++)
		if (probe_wait(s->c, s->sig[i], end) != 1)
			return false;
	return true;
}

/* Launch and end of kernel @i in ns of the runtime's clock. */
static int kernel_times(struct lv12 *s, uint32_t i, uint64_t *start, uint64_t *end)
{
	struct hsaqm_hsa_amd_profiling_dispatch_time t = { 0, 0 };

	if (s->c->hsa.get_dispatch_time(s->agent, s->sig[i], &t) || !t.end || t.end < t.start)
		return -EIO;
	*start = probe_hsa_ticks_ns(&s->c->hsa, t.start);
	*end = probe_hsa_ticks_ns(&s->c->hsa, t.end);
	return 0;
}

static uint32_t wrong_results(struct lv12 *s, uint32_t n, uint32_t seed)
{
	uint32_t wrong = 0;

	for (uint32_t i = 0; i < n; i++)
		for (uint32_t w = 0; w < PROBE_SPIN_WG_SIZE; w++)
			if (s->out[i * PROBE_SPIN_WG_SIZE + w] !=
			    probe_lcg_jump((seed + i) ^ w, s->iters))
				wrong++;
	return wrong;
}

/*
 * The spin kernel's length: fixed on the model; on hardware @iters calibrated to the target
 * from one unheld kernel's own timestamps.
 */
static int calibrate(struct lv12 *s)
{
	uint64_t target = (s->c->o->quick ? 1 : 2) * MS, start, end, ns = 0;
	int err;

	if (s->kern.model) {
		s->kernel_ns = s->kern.model_wg_ns;
		s->iters = 1000;
		return 0;
	}
	s->iters = 1u << 12;
	for (int round = 0; round < 8; round++) {
		err = submit(s, 1, 7);
		if (err)
			return err;
		if (!wait_all(s, 1, 10000 * MS))
			return hsaqm_probe_interrupted() ? -EINTR : -ETIMEDOUT;
		err = kernel_times(s, 0, &start, &end);
		if (err)
			return err;
		ns = end - start;
		if (ns >= target / 4 || s->iters >= (1u << 28))
			break;
		s->iters <<= 2;
	}
	double want = ns ? (double)target * s->iters / (double)ns : (double)s->iters;
	s->iters = want > 4e9 ? 4000000000u : want < 1024 ? 1024u : (uint32_t)want;
	s->kernel_ns = target;
	return 0;
}

/*
 * One held trial: the stream, the hold at a phase that moves from trial to trial (so the
 * close lands at different points of a guardian interval), a hold long enough for anything
 * not held to launch, the release, and every kernel's result and timestamps.
 */
static int lv12_trial(struct lv12 *s, uint32_t n, uint32_t seed, struct lv12_trial *t)
{
	struct hsaqm_xq *xq = hsaqm_hsa_proxy_xq(s->proxy);
	const struct hsaqm_probe_env *env = s->c->env;
	struct hsaqm_xq_info info;
	uint32_t span = s->level == HSAQM_LEVEL_2 ? s->interval : LV1_THRESHOLD;
	uint64_t phase = 2 * s->kernel_ns + (n % 4) * s->kernel_ns * 3 / 4;
	int err;

	memset(t, 0, sizeof(*t));
	/* lib counts every packet since the queue was made: this stream's start from here. */
	hsaqm_xq_get_info(xq, &info);
	uint64_t base = info.released;
	err = submit(s, STREAM_KERNELS, seed);
	if (err)
		return err;
	if (!probe_wait_ns(s->c, phase))
		return -EINTR;
	err = hsaqm_xq_suspend(xq);
	if (err)
		return err;
	/*
	 * The hold is in force once the call returned (the gate signal stored, or lib's release
	 * stopped): figures count from there. A kernel launched during the call counts as
	 * launched before the hold; reading the clock before the call would count it after,
	 * and blame the gate for the host's own delay.
	 */
	if (probe_hsa_now(&s->c->hsa, &t->t_hold)) {
		hsaqm_xq_resume(xq);
		return -EIO;
	}
	hsaqm_xq_get_info(xq, &info);
	info.released -= base;
	t->released_at_hold = (uint32_t)(info.released < STREAM_KERNELS ? info.released :
					 STREAM_KERNELS);
	if (env->test_lv12_hook)
		env->test_lv12_hook(env->test_hook_ctx, s->level == HSAQM_LEVEL_1 ?
				    HSAQM_PROBE_CHECK_LV1 : HSAQM_PROBE_CHECK_LV2, xq);
	/* Longer than what may legitimately run on: anything not held launches meanwhile. */
	bool slept = probe_wait_ns(s->c, (span + 3) * s->kernel_ns);
	probe_hsa_now(&s->c->hsa, &t->t_open);
	hsaqm_xq_resume(xq);
	if (!slept)
		return -EINTR;
	if (!wait_all(s, STREAM_KERNELS, STREAM_KERNELS * s->kernel_ns * 4 + 2000 * MS))
		return hsaqm_probe_interrupted() ? -EINTR : -ETIME;
	for (uint32_t i = 0; i < STREAM_KERNELS; i++) {
		err = kernel_times(s, i, &t->start[i], &t->end[i]);
		if (err)
			return err;
	}
	t->wrong = wrong_results(s, STREAM_KERNELS, seed);
	return 0;
}

/* The figures of one trial, from its timestamps alone. */
static void lv12_figures(enum hsaqm_level level, const struct lv12_trial *t,
			 struct lv12_result *r)
{
	bool any_after_open = false;
	uint64_t last_end = t->t_hold;

	memset(r, 0, sizeof(*r));
	r->resume = UINT64_MAX;
	for (uint32_t i = 0; i < STREAM_KERNELS; i++) {
		uint64_t st = t->start[i], en = t->end[i];

		if (st >= t->t_open) {
			any_after_open = true;
			if (st - t->t_open < r->resume)
				r->resume = st - t->t_open;
			continue;
		}
		/* Launched before the release: ran during or before the hold. */
		if (en > last_end)
			last_end = en;
		if (st >= t->t_hold) {
			r->after_hold++;
			if (st - t->t_hold > r->stop)
				r->stop = st - t->t_hold;
			if (level == HSAQM_LEVEL_1 && i >= t->released_at_hold)
				r->held_launched++;
		}
		if (i < t->released_at_hold && en > t->t_hold)
			r->inflight++;
	}
	r->drain = last_end - t->t_hold;
	r->inconclusive = !any_after_open;
	if (r->inconclusive)
		r->resume = 0;
}

/* What the trials of one check collected. */
struct lv12_run {
	uint64_t *drain, *stop, *resume, *win, *after;
	uint32_t done, wrong, inconclusive, not_held, over_window, max_after;
	int err; /* 0, -EINTR, -ETIME (lost work), -ETIMEDOUT, -EIO (no timestamps), other */
};

static int lv12_run_alloc(struct lv12_run *x, uint32_t n)
{
	memset(x, 0, sizeof(*x));
	x->drain = calloc(n, sizeof(uint64_t));
	x->stop = calloc(n, sizeof(uint64_t));
	x->resume = calloc(n, sizeof(uint64_t));
	x->win = calloc(n, sizeof(uint64_t));
	x->after = calloc(n, sizeof(uint64_t));
	return x->drain && x->stop && x->resume && x->win && x->after ? 0 : -ENOMEM;
}

static void lv12_run_free(struct lv12_run *x)
{
	free(x->drain);
	free(x->stop);
	free(x->resume);
	free(x->win);
	free(x->after);
}

/* Keep one conclusive trial's figures and proofs. */
static void lv12_keep(struct lv12 *s, const struct lv12_result *r, struct lv12_run *x)
{
	if (r->held_launched || (s->level == HSAQM_LEVEL_2 && r->after_hold > s->interval))
		x->not_held++;
	if (s->level == HSAQM_LEVEL_1 && r->inflight > LV1_THRESHOLD)
		x->over_window++;
	if (r->after_hold > x->max_after)
		x->max_after = r->after_hold;
	x->drain[x->done] = r->drain;
	x->stop[x->done] = r->stop;
	x->resume[x->done] = r->resume;
	x->win[x->done] = r->inflight;
	x->after[x->done] = r->after_hold;
	x->done++;
}

/* The trials; inconclusive ones (nothing was held) are tried again, up to 3 n attempts. */
static void lv12_trials(struct lv12 *s, uint32_t n, struct lv12_run *x)
{
	const char *name = s->level == HSAQM_LEVEL_1 ? "lv1" : "lv2";

	for (uint32_t attempt = 0; x->done < n && attempt < 3 * n; attempt++) {
		struct lv12_trial t;
		struct lv12_result r;

		if (probe_now_ns() > s->deadline) {
			x->err = -ETIMEDOUT;
			return;
		}
		probe_progress_trial(s->c, "GPU %u %s: trial %u of %u", s->g->index, name,
				     x->done + 1, n);
		x->err = lv12_trial(s, attempt, 0x51ed2701u * (attempt + 1), &t);
		if (x->err == -EINTR || hsaqm_probe_interrupted()) {
			x->err = -EINTR;
			return;
		}
		if (x->err)
			return;
		x->wrong += t.wrong;
		lv12_figures(s->level, &t, &r);
		if (r.inconclusive) {
			x->inconclusive++;
			continue;
		}
		lv12_keep(s, &r, x);
	}
}

/* The verdict from what the trials found. */
static void lv12_verdict(struct lv12 *s, const struct lv12_run *x)
{
	struct hsaqm_probe_check *k = s->k;

	if (x->err == -EINTR)
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "interrupted", "",
				  "interrupted by signal %d (the queue was released)",
				  hsaqm_probe_interrupted());
	else if (x->err == -ETIME)
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "lost_work", REMEDY_REPORT,
				  "kernels of the stream never completed after the release");
	else if (x->err == -ETIMEDOUT)
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "timeout", "",
				  "the check ran out of time after %u trials", x->done);
	else if (x->err == -EIO)
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "no_timestamps", "",
				  "the runtime gave no dispatch timestamps");
	else if (x->err)
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "hold_failed",
				  "run again with HSAQM_LOG=warn to see lib's error",
				  "holding the queue failed: %s", probe_errname(x->err));
	else if (x->wrong)
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "lost_work", REMEDY_REPORT,
				  "%u work-items computed wrong results", x->wrong);
	else if (x->not_held && s->level == HSAQM_LEVEL_1)
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "not_held", REMEDY_REPORT,
				  "kernels lib held back launched during the hold (%u of %u "
				  "trials)", x->not_held, x->done);
	else if (x->not_held)
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "not_stopped",
				  "check that no other tool rewrites the queue's packets (a "
				  "profiler, a debugger); " REMEDY_REPORT,
				  "the closed gate did not stop launches: up to %u kernels "
				  "launched after the close, a guardian every %u (%u of %u trials)",
				  x->max_after, s->interval, x->not_held, x->done);
	else if (x->over_window)
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "window_exceeded", REMEDY_REPORT,
				  "more than %u kernels were in flight at the hold (%u of %u "
				  "trials)", LV1_THRESHOLD, x->over_window, x->done);
	else if (!x->done)
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "kernel_too_short", "",
				  "the stream ended before every hold");
	else
		probe_set_verdict(k, HSAQM_PROBE_SUPPORTED, "ok", "",
				  "%u trials of %u kernels: held, released, nothing lost", x->done,
				  STREAM_KERNELS);
}

/* The figures and facts of the check. */
static void lv12_report(struct lv12 *s, struct lv12_run *x)
{
	struct hsaqm_probe_check *k = s->k;

	k->trials = x->done;
	if (s->level == HSAQM_LEVEL_1) {
		probe_add_figure(k, "drain", "ns", x->drain, x->done);
		probe_add_figure(k, "inflight_at_hold", "kernels", x->win, x->done);
		probe_add_figure(k, "launches_resume", "ns", x->resume, x->done);
		probe_add_fact(k, "threshold", "%u kernels in flight at most", LV1_THRESHOLD);
	} else {
		probe_add_figure(k, "launches_stop", "ns", x->stop, x->done);
		probe_add_figure(k, "launched_after_close", "kernels", x->after, x->done);
		probe_add_figure(k, "drain", "ns", x->drain, x->done);
		probe_add_figure(k, "launches_resume", "ns", x->resume, x->done);
		probe_add_fact(k, "interval", "a guardian every %u kernel%s%s", s->interval,
			       s->interval == 1 ? "" : "s",
			       s->interval == 1 ? ": each guardian waits for the kernel before it, "
						 "so none launches after the close "
						 "(launches_stop 0) and the stop costs the drain" :
						 "");
	}
	probe_add_fact(k, "clock", "%s", s->c->env->is_model ?
		       "model time (the model's HSA system clock and dispatch timestamps)" :
		       "the HSA system clock; kernel launch/end from dispatch timestamps");
	if (x->inconclusive)
		probe_add_fact(k, "inconclusive", "%u trials: every kernel launched before the "
			       "hold", x->inconclusive);
}

static void run_lv12(struct probe_ctx *c, struct hsaqm_probe_gpu *g, struct hsaqm_probe_check *k,
		     enum hsaqm_level level)
{
	struct lv12 s = { .c = c, .g = g, .k = k, .level = level };
	struct lv12_run x;
	int err;

	s.interval = c->o->lv2_interval ? c->o->lv2_interval : 1;
	if (s.interval > HSAQM_PROBE_LV2_INTERVAL_MAX)
		s.interval = HSAQM_PROBE_LV2_INTERVAL_MAX;
	if (lv12_run_alloc(&x, c->trials)) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "no_memory", "", "out of memory");
		goto out;
	}
	if (!open_lv12(&s))
		goto out;
	s.deadline = probe_now_ns() + c->check_timeout_ns;
	err = calibrate(&s);
	if (err && err != -EINTR) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "kernel_failed", "",
				  "the spin kernel did not run (%s)", probe_errname(err));
		goto out;
	}
	if (err) {
		x.err = err;
	} else {
		probe_add_fact(k, "kernel", "%s, %llu us each, %u in order (barrier bit)",
			       s.kern.what, (unsigned long long)(s.kernel_ns / 1000),
			       STREAM_KERNELS);
		lv12_trials(&s, c->trials, &x);
	}
	lv12_verdict(&s, &x);
	lv12_report(&s, &x);
out:
	close_lv12(&s);
	lv12_run_free(&x);
}

void probe_check_lv1(struct probe_ctx *c, struct hsaqm_probe_gpu *g, struct hsaqm_probe_check *k)
{
	run_lv12(c, g, k, HSAQM_LEVEL_1);
}

void probe_check_lv2(struct probe_ctx *c, struct hsaqm_probe_gpu *g, struct hsaqm_probe_check *k)
{
	run_lv12(c, g, k, HSAQM_LEVEL_2);
}

#endif /* HSAQM_PROBE_HAVE_HSA_BACKEND */
