// SPDX-License-Identifier: MIT
/*
 * check_lv12.c - Lv1 (progressive launch) and Lv2 (guardian gate), measured through lib's HSA
 * backend (hsa-layer/include/hsaqm/hsa_backend.h): a proxy queue on the probe's HSA table, a
 * stream of spin kernels submitted to it as an application would, and lib holding the queue
 * by hand at its level.
 *   Lv1: the drain latency - from the hold until every kernel already released has completed
 *        (bounded by threshold x kernel time), and the in-flight window seen at the hold.
 *   Lv2: the time until the hardware queue's read index stops moving after the gate closes,
 *        and until it moves again after it reopens; nothing lost (every kernel completes once,
 *        with exact results).
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
			  "could not test: HSA backend not built yet");
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

#include "hsaqm/aql.h"
#include "hsaqm/barrier.h"
#include "hsaqm/hsa_backend.h"
#include "hsaqm/hsaqm.h"

#define MS 1000000ull
#define LV1_THRESHOLD 4u
#define STREAM_KERNELS 16u

struct lv12 {
	struct probe_ctx *c;
	struct hsaqm_probe_gpu *g;
	struct hsaqm_probe_check *k;
	struct hsaqm_hsa_runtime rt;
	bool have_rt;
	struct hsaqm_ctx *ctx;
	struct hsaqm_hsa_proxy *proxy;
	struct hsaqm_hsa_agent agent;
	struct probe_kernel kern;
	bool have_kern;
	struct hsaqm_hsa_signal left; /* counts the stream's kernels down to 0 */
	bool have_left;
	struct probe_spin_args *args;
	uint32_t *out;
	uint32_t nwg;
	uint64_t kernel_ns;
};

static bool open_lv12(struct lv12 *s, enum hsaqm_level level)
{
	struct probe_ctx *c = s->c;
	char why[256] = "";
	int err;

	if (!probe_hsa_ready(c)) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_rocm",
				  "install the ROCm runtime (libhsa-runtime64.so)",
				  "could not test: %s", c->hsa_why);
		return false;
	}
	if (!s->g->have_kernel) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_device_kernel",
				  "rebuild with a clang that targets it (docs/probe-report.md)",
				  "could not test: %s", s->g->kernel_text);
		return false;
	}
	err = hsaqm_hsa_runtime_init(&s->rt, c->hsa.root, 0, NULL);
	if (err) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "hsa_backend_refused", "",
				  "could not test: the HSA backend refused the runtime's "
				  "table (%s)", probe_errname(err));
		return false;
	}
	s->have_rt = true;
	if (probe_hsa_find_gpu(&c->hsa, s->g->node_id, s->g->index, &s->agent) ||
	    hsaqm_ctx_create(&s->ctx)) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_agent", "",
				  "could not test: no agent or no scheduling context");
		return false;
	}
	err = probe_kernel_load(c->env, &c->hsa, s->agent, s->g->gfx, c->o->kernel_dir,
				(c->o->quick ? 1 : 2) * MS, &s->kern, why, sizeof(why));
	if (err) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_device_kernel", "",
				  "could not test: %s", why);
		return false;
	}
	s->have_kern = true;
	s->kernel_ns = s->kern.model ? s->kern.model_wg_ns : 2 * MS;
	s->nwg = 1;
	s->args = probe_hsa_alloc(&c->hsa, s->agent,
				  (size_t)STREAM_KERNELS * s->kern.kernarg_size, true);
	s->out = probe_hsa_alloc(&c->hsa, s->agent,
				 (size_t)STREAM_KERNELS * PROBE_SPIN_WG_SIZE * sizeof(uint32_t),
				 true);
	if (!s->args || !s->out || c->hsa.signal_create(0, 0, NULL, &s->left)) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_memory", "",
				  "could not test: no memory or signal from the HSA runtime");
		return false;
	}
	s->have_left = true;
	struct hsaqm_hsa_proxy_config cfg = {
		.agent = s->agent,
		.size = 256,
		.type = HSAQM_HSA_QUEUE_TYPE_MULTI,
		.private_segment_size = UINT32_MAX,
		.group_segment_size = UINT32_MAX,
		.xq = { .device = s->g->index, .level = level, .lv1_threshold = LV1_THRESHOLD,
			.lv1_batch = 1, .lv2_interval = 1, .name = "probe" },
	};
	err = hsaqm_hsa_proxy_create(&s->rt, s->ctx, &cfg, &s->proxy);
	if (err) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "proxy_failed", "",
				  "could not test: proxy queue creation failed (%s)",
				  probe_errname(err));
		return false;
	}
	struct hsaqm_xq_info info;
	if (hsaqm_xq_get_info(hsaqm_hsa_proxy_xq(s->proxy), &info) == 0 &&
	    info.effective_level < level) {
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
	if (s->have_left)
		c->hsa.signal_destroy(s->left);
	probe_hsa_free(&c->hsa, s->args);
	probe_hsa_free(&c->hsa, s->out);
	if (s->have_kern)
		probe_kernel_unload(&c->hsa, &s->kern);
}

/* Submit the stream to the proxy queue the way an application does. */
static int submit_stream(struct lv12 *s, uint32_t seed)
{
	struct hsaqm_hsa_queue *q = hsaqm_hsa_proxy_queue(s->proxy);
	struct hsaqm_amd_queue *amd = (struct hsaqm_amd_queue *)q;

	s->c->hsa.signal_store(s->left, STREAM_KERNELS);
	for (uint32_t i = 0; i < STREAM_KERNELS; i++) {
		struct probe_spin_args *a =
			(void *)((char *)s->args + (size_t)i * s->kern.kernarg_size);
		union hsaqm_aql_packet p;
		struct hsaqm_aql_dispatch_desc d = {
			.dims = 1,
			.workgroup_size = { PROBE_SPIN_WG_SIZE, 1, 1 },
			.grid_size = { PROBE_SPIN_WG_SIZE, 1, 1 },
			.kernel_object = s->kern.kernel_object,
			.kernarg_address = (uint64_t)(uintptr_t)a,
			.completion_signal = s->left.handle,
			/* In order, as a HIP stream's kernels: each waits for the one before. */
			.barrier = true,
			.acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
			.release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
		};

		*a = (struct probe_spin_args){
			.out = (uint64_t)(uintptr_t)(s->out + (size_t)i * PROBE_SPIN_WG_SIZE),
			.iters = 1000, .seed = seed + i, .wg_size = PROBE_SPIN_WG_SIZE };
		memset(&p, 0, sizeof(p));
		if (hsaqm_aql_dispatch_build(&p, &d))
			return -EINVAL;
		/* acq_rel: reserve the slot as ROCclr does. */
		uint64_t idx = hsaqm_fetch_add(&amd->write_dispatch_id, 1ull);
		while (idx - hsaqm_load_acquire(&amd->read_dispatch_id) >= q->size)
			if (!probe_sleep_ns(100000))
				return -EINTR;
		hsaqm_aql_publish((char *)q->base_address + (idx & (q->size - 1)) * 64, &p);
		hsaqm_hsa_proxy_doorbell(s->proxy, (hsaqm_hsa_signal_value_t)idx);
	}
	return 0;
}

static bool wait_left(struct lv12 *s, uint64_t timeout_ns)
{
	uint64_t end = probe_now_ns() + timeout_ns;

	while (s->c->hsa.signal_load(s->left) != 0) {
		if (probe_now_ns() > end || !probe_sleep_ns(200000))
			return false;
	}
	return true;
}

static uint32_t wrong_results(struct lv12 *s, uint32_t seed)
{
	uint32_t wrong = 0;

	for (uint32_t i = 0; i < STREAM_KERNELS; i++)
		for (uint32_t w = 0; w < PROBE_SPIN_WG_SIZE; w++)
			if (s->out[i * PROBE_SPIN_WG_SIZE + w] !=
			    probe_lcg_jump((seed + i) ^ w, 1000))
				wrong++;
	return wrong;
}

static volatile uint64_t *hw_read_index(struct lv12 *s)
{
	return &((struct hsaqm_amd_queue *)hsaqm_hsa_proxy_hw_queue(s->proxy))->read_dispatch_id;
}

/* One held trial: stream, hold after a quarter, measure, release, verify. */
static int lv12_trial(struct lv12 *s, enum hsaqm_level level, uint32_t seed, uint64_t *a,
		      uint64_t *b, uint32_t *inflight, uint32_t *wrong)
{
	struct hsaqm_xq *xq = hsaqm_hsa_proxy_xq(s->proxy);
	volatile uint64_t *rd = hw_read_index(s);
	struct hsaqm_xq_info info;
	int err;

	memset(s->out, 0, (size_t)STREAM_KERNELS * PROBE_SPIN_WG_SIZE * sizeof(uint32_t));
	err = submit_stream(s, seed);
	if (err)
		return err;
	if (!probe_sleep_ns(s->kernel_ns * 2))
		return -EINTR;
	uint64_t t0 = probe_now_ns();
	err = hsaqm_xq_suspend(xq);
	if (err)
		return err;
	if (level == HSAQM_LEVEL_1) {
		/* Drained: everything released has completed. */
		hsaqm_xq_get_info(xq, &info);
		*inflight = (uint32_t)(info.released - info.completed);
		for (;;) {
			hsaqm_xq_get_info(xq, &info);
			if (info.completed >= info.released)
				break;
			if (probe_now_ns() - t0 > 100 * s->kernel_ns + 2000 * MS ||
			    !probe_sleep_ns(50000)) {
				hsaqm_xq_resume(xq);
				return -ETIMEDOUT;
			}
		}
		*a = probe_now_ns() - t0;
		*b = 0;
	} else {
		/* Stopped: the hardware read index has not moved for 3 kernel times. */
		uint64_t last = hsaqm_load_acquire(rd), last_t = t0;

		while (probe_now_ns() - last_t < 3 * s->kernel_ns) {
			if (!probe_sleep_ns(50000)) {
				hsaqm_xq_resume(xq);
				return -EINTR;
			}
			uint64_t v = hsaqm_load_acquire(rd);
			if (v != last) {
				last = v;
				last_t = probe_now_ns();
			}
		}
		*a = last_t - t0;
		uint64_t t2 = probe_now_ns();
		hsaqm_xq_resume(xq);
		while (hsaqm_load_acquire(rd) == last) {
			if (probe_now_ns() - t2 > 2000 * MS || !probe_sleep_ns(20000))
				break;
		}
		*b = probe_now_ns() - t2;
	}
	if (level == HSAQM_LEVEL_1)
		hsaqm_xq_resume(xq);
	if (!wait_left(s, STREAM_KERNELS * s->kernel_ns * 4 + 2000 * MS))
		return hsaqm_probe_interrupted() ? -EINTR : -ETIMEDOUT;
	*wrong = wrong_results(s, seed);
	return 0;
}

static void run_lv12(struct probe_ctx *c, struct hsaqm_probe_gpu *g, struct hsaqm_probe_check *k,
		     enum hsaqm_level level)
{
	struct lv12 s = { .c = c, .g = g, .k = k };
	uint64_t *a = calloc(c->trials, sizeof(uint64_t)), *b = calloc(c->trials, sizeof(uint64_t));
	uint64_t *w = calloc(c->trials, sizeof(uint64_t));
	uint32_t done = 0, wrong_total = 0;
	int err = 0;

	if (!a || !b || !w) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "no_memory", "", "out of memory");
		goto out;
	}
	if (!open_lv12(&s, level))
		goto out;
	for (uint32_t i = 0; i < c->trials; i++) {
		uint32_t inflight = 0, wrong = 0;

		probe_progress_trial(c, "GPU %u %s: trial %u of %u", g->index,
			       level == HSAQM_LEVEL_1 ? "lv1" : "lv2", i + 1, c->trials);
		err = lv12_trial(&s, level, 0x51ed2701u * (i + 1), &a[done], &b[done], &inflight,
				 &wrong);
		if (err)
			break;
		w[done] = inflight;
		wrong_total += wrong;
		done++;
	}
	k->trials = done;
	if (err == -EINTR)
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "interrupted", "",
				  "could not test: interrupted");
	else if (err)
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED,
				  err == -ETIMEDOUT ? "timeout" : "hold_failed", "",
				  "holding the queue failed: %s", probe_errname(err));
	else if (wrong_total)
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "lost_work", "",
				  "%u work-items computed wrong results", wrong_total);
	else
		probe_set_verdict(k, HSAQM_PROBE_SUPPORTED, "ok", "",
				  "%u trials of %u kernels: held and released, nothing lost", done,
				  STREAM_KERNELS);
	if (level == HSAQM_LEVEL_1) {
		probe_add_figure(k, "drain", "ns", a, done);
		probe_add_figure(k, "inflight_at_hold", "kernels", w, done);
		probe_add_fact(k, "threshold", "%u kernels in flight at most, %llu us each",
			       LV1_THRESHOLD, (unsigned long long)(s.kernel_ns / 1000));
	} else {
		probe_add_figure(k, "launches_stop", "ns", a, done);
		probe_add_figure(k, "launches_resume", "ns", b, done);
		probe_add_fact(k, "interval", "a guardian before every kernel");
	}
out:
	close_lv12(&s);
	free(a);
	free(b);
	free(w);
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
