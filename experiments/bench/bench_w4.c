/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-bench-w4 - W4 of reference-workloads.md (XSched Fig. 11a) on the device model:
 * preemption latency versus kernel length T, for native (no hsaqm), Lv1 (threshold/batch
 * 16/8 and 4/2), Lv2 (guardian interval 1 and 4) and Lv3. EVERY FIGURE IS A MODEL FIGURE.
 *
 * Workload (per point): one low-priority queue kept full (32 kernels outstanding) of
 * identical in-order kernels (barrier bit, as HIP streams issue them) of length T: 80
 * one-wave workgroups, one per CU, each running T; a high-priority queue whose kernel is one
 * whole-CU workgroup (32 waves) of 20 us, so it cannot start while a low workgroup holds its
 * CU. Both queues are HSA queues of the model's HSA face; in the hsaqm rows both are proxies
 * under HPF at the row's level (high: priority 10 and HSA priority HIGH; low: 0, NORMAL), in
 * the native row plain queues with the same HSA priorities.
 *
 * Two latencies, each measured at random instants:
 *   first WG  the reference's definition: from the high kernel's submission (model time at
 *             the doorbell) to its first workgroup starting (its completion time minus its
 *             20 us). The model's CUs hand over at workgroup boundaries by pipe priority, so
 *             native, Lv1 and Lv2 wait for the running low workgroups; only Lv3 cuts them.
 *   drain     XSched's preemption latency: from hsaqm_xq_suspend() of the low queue to the
 *             moment it has no workgroup on the CUs any more (its last kernel completion, or
 *             for Lv3 the return of the suspend, after which its waves are saved). Native
 *             has no such operation.
 *
 * Writes <out>/w4.json, w4.md and w4.svg (default: the source tree's experiments/out).
 * Usage: hsaqm-bench-w4 [--quick] [--out DIR] [--only CONFIG] [--samples N] [--t MS]
 * (--only runs one configuration by its name, e.g. lv3; --samples sets both sample counts;
 * --t runs one kernel length). Each point also reports how busy the low queue was during
 * the first-WG samples, without which the figures would mean nothing.
 *
 * Caveat, measured on the model: its real-time engine evaluates a barrier packet that it
 * handles late against the dependency's current value, so when the host is loaded and the
 * engine runs tens of microseconds late, a gate closed at t can stop the low queue at a
 * kernel boundary slightly before t. This flatters Lv2 at T <= 0.2 ms (docs/results.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hsaqm-common/json.h"
#include "t_hsa.h"
#include "bench_sort.h"

#ifndef HSAQM_OUT_DIR
#define HSAQM_OUT_DIR "experiments/out"
#endif

#define HIGH_WG_NS (20 * T_US)
#define LOW_WGS 80u
#define OUTSTANDING 32u
#define POOL 64u /* completion signals of the low kernels, reused round robin */

enum cfg_kind { CFG_NATIVE, CFG_LV1, CFG_LV2, CFG_LV3 };

struct cfg {
	const char *name;
	const char *label;
	enum cfg_kind kind;
	uint32_t a, b; /* Lv1: threshold, batch; Lv2: interval */
	const char *color;
};

static const struct cfg cfgs[] = {
	{ "native", "native (no hsaqm)", CFG_NATIVE, 0, 0, "#444444" },
	{ "lv1-16-8", "Lv1 16/8", CFG_LV1, 16, 8, "#d62728" },
	{ "lv1-4-2", "Lv1 4/2", CFG_LV1, 4, 2, "#ff7f0e" },
	{ "lv2-i1", "Lv2 interval 1", CFG_LV2, 1, 0, "#2ca02c" },
	{ "lv2-i4", "Lv2 interval 4", CFG_LV2, 4, 0, "#17becf" },
	{ "lv3", "Lv3", CFG_LV3, 0, 0, "#1f77b4" },
};
#define NCFG (sizeof(cfgs) / sizeof(cfgs[0]))

static const double t_full[] = { 0.1, 0.2, 0.5, 1, 2, 5, 10 };
static const double t_quick[] = { 0.1, 1, 10 };
#define MAX_T 7

struct stat3 {
	double median, p90, max;
	int n;
};

struct point {
	struct stat3 first, drain;
	double low_busy; /* share of the first-WG phase the low queue's kernels covered */
	unsigned int skipped; /* sample instants skipped: the low queue was not running */
};

static struct point g_res[NCFG][MAX_T];

/* ---- One run: a model, two queues, a producer keeping the low queue full ------------------ */

struct run {
	struct t_hsa h;
	const struct cfg *c;
	uint64_t T;
	/* native */
	struct hsaqm_hsa_queue *nq_low, *nq_high;
	struct hsaqm_ring nr_low, nr_high;
	/* hsaqm */
	struct t_app lo, hi;
	struct hsaqm_ring *r_low, *r_high;
	uint64_t k_low, k_high;
	struct hsaqm_hsa_signal pool[POOL];
	struct hsaqm_hsa_signal high_cs;
	uint64_t low_submitted; /* producer thread only */
	uint64_t low_wgs;       /* atomic: workgroups of low kernels finished */
	uint32_t stop;
	pthread_t prod;
	bool prod_started;
};

static void low_wg(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct run *r = arg;

	(void)dispatch_id, (void)wg, (void)kernarg;
	/* acq_rel: the producer and the drain measurement read it. */
	hsaqm_fetch_add(&r->low_wgs, 1ull);
}

static void native_doorbell(void *ctx, uint64_t idx)
{
	struct run *r = ctx;

	r->h.core->hsa_signal_store_screlease_fn(r->nq_low->doorbell_signal, (int64_t)idx);
}

static void native_doorbell_high(void *ctx, uint64_t idx)
{
	struct run *r = ctx;

	r->h.core->hsa_signal_store_screlease_fn(r->nq_high->doorbell_signal, (int64_t)idx);
}

static uint64_t low_done(struct run *r)
{
	return hsaqm_load_acquire(&r->low_wgs) / LOW_WGS;
}

static void *producer(void *arg)
{
	struct run *r = arg;
	unsigned int nap = (unsigned int)(r->T / 4000 ? r->T / 4000 : 1);

	if (nap > 1000)
		nap = 1000;
	while (!hsaqm_load_acquire(&r->stop)) {
		if (r->low_submitted - low_done(r) >= OUTSTANDING) {
			t_sleep_us(nap);
			continue;
		}
		struct hsaqm_hsa_signal cs = r->pool[r->low_submitted % POOL];
		/* Reused 64 kernels later: the kernel that had it finished long ago. */
		r->h.core->hsa_signal_store_relaxed_fn(cs, 1);
		union hsaqm_aql_packet pk =
			t_hsa_dispatch(r->k_low, LOW_WGS, cs.handle, true, NULL);

		if (hsaqm_ring_submit(r->r_low, &pk, 1, 0) == 0)
			r->low_submitted++;
		else
			t_sleep_us(nap);
	}
	return NULL;
}

static int run_open(struct run *r, const struct cfg *c, uint64_t T)
{
	struct hsaqm_sim_config sc = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL,
				       .seed = 3 };
	struct hsaqm_sim_kernel_desc kl = { .name = "low", .duration_ns = T, .waves_per_wg = 1,
					    .wg_callback = low_wg, .wg_callback_arg = r };
	struct hsaqm_sim_kernel_desc kh = { .name = "high", .duration_ns = HIGH_WG_NS,
					    .waves_per_wg = 32 };
	int rc;

	memset(r, 0, sizeof(*r));
	r->c = c;
	r->T = T;
	rc = t_hsa_open_cfg(&r->h, &sc);
	if (!rc)
		rc = t_hsa_lv3_setup(&r->h);
	if (rc)
		return rc;
	kl.wg_callback_arg = r;
	if (hsaqm_sim_kernel_register(r->h.sim, &kl, &r->k_low) ||
	    hsaqm_sim_kernel_register(r->h.sim, &kh, &r->k_high))
		return -EIO;
	for (unsigned int i = 0; i < POOL; i++)
		r->pool[i] = t_hsa_signal(&r->h, 0);
	r->high_cs = t_hsa_signal(&r->h, 0);
	if (c->kind == CFG_NATIVE) {
		struct hsaqm_amd_queue *a;

		hsaqm_hsa_queue_create_fn create = r->h.core->hsa_queue_create_fn;

		if (create(r->h.gpu[0], 128, HSAQM_HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0,
			   &r->nq_low) ||
		    create(r->h.gpu[0], 128, HSAQM_HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0,
			   &r->nq_high))
			return -EIO;
		r->h.amd->hsa_amd_queue_set_priority_fn(r->nq_high,
							HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
		a = (struct hsaqm_amd_queue *)r->nq_low;
		hsaqm_ring_init(&r->nr_low, r->nq_low->base_address, r->nq_low->size,
				(uint64_t *)(uintptr_t)&a->write_dispatch_id,
				(uint64_t *)(uintptr_t)&a->read_dispatch_id, native_doorbell, r);
		a = (struct hsaqm_amd_queue *)r->nq_high;
		hsaqm_ring_init(&r->nr_high, r->nq_high->base_address, r->nq_high->size,
				(uint64_t *)(uintptr_t)&a->write_dispatch_id,
				(uint64_t *)(uintptr_t)&a->read_dispatch_id, native_doorbell_high,
				r);
		r->r_low = &r->nr_low;
		r->r_high = &r->nr_high;
	} else {
		enum hsaqm_level lv = c->kind == CFG_LV1 ? HSAQM_LEVEL_1
				      : c->kind == CFG_LV2 ? HSAQM_LEVEL_2 : HSAQM_LEVEL_3;
		struct hsaqm_xq_config xl = { .level = lv, .priority = 0, .name = "low" };
		struct hsaqm_xq_config xh = { .level = lv, .priority = 10, .name = "high" };

		if (lv == HSAQM_LEVEL_1) {
			xl.lv1_threshold = xh.lv1_threshold = c->a;
			xl.lv1_batch = xh.lv1_batch = c->b;
		} else if (lv == HSAQM_LEVEL_2) {
			xl.lv2_interval = xh.lv2_interval = c->a;
		}
		rc = t_hsa_runtime(&r->h, hsaqm_kfd_transport_default());
		if (!rc)
			rc = t_hsa_proxy(&r->h, 0, 64, &xl, &r->lo);
		if (!rc)
			rc = t_hsa_proxy(&r->h, 0, 64, &xh, &r->hi);
		if (rc)
			return rc;
		hsaqm_hsa_proxy_set_priority(r->hi.proxy, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH, 10, 0);
		struct hsaqm_xq_info info;
		hsaqm_xq_get_info(hsaqm_hsa_proxy_xq(r->lo.proxy), &info);
		if (info.effective_level != lv) {
			fprintf(stderr, "%s: low queue at %s: %s\n", c->name,
				hsaqm_level_name(info.effective_level), info.level_reason);
			return -EIO;
		}
		r->r_low = &r->lo.ring;
		r->r_high = &r->hi.ring;
	}
	if (pthread_create(&r->prod, NULL, producer, r))
		return -EAGAIN;
	r->prod_started = true;
	/* Steady state: the low queue full and running. */
	uint64_t until = t_mono_ns() + 2 * T_S;
	while (low_done(r) < 2 && t_mono_ns() < until)
		t_sleep_us(100);
	return low_done(r) >= 2 ? 0 : -ETIMEDOUT;
}

static void run_close(struct run *r)
{
	hsaqm_store_release(&r->stop, 1u);
	if (r->prod_started)
		pthread_join(r->prod, NULL);
	if (r->lo.proxy)
		hsaqm_hsa_proxy_destroy(r->lo.proxy);
	if (r->hi.proxy)
		hsaqm_hsa_proxy_destroy(r->hi.proxy);
	if (r->nq_low)
		r->h.core->hsa_queue_destroy_fn(r->nq_low);
	if (r->nq_high)
		r->h.core->hsa_queue_destroy_fn(r->nq_high);
	t_hsa_close(&r->h);
}

/* The low queue has workgroups on the CUs now (the model's view of its hardware queue). */
static bool low_running(struct run *r)
{
	const struct hsaqm_hsa_queue *q = r->lo.proxy ? hsaqm_hsa_proxy_hw_queue(r->lo.proxy)
						      : r->nq_low;
	struct sim_hwq *hwq = t_hsa_sim_hwq(&r->h, q);
	struct sim_hwq_info info;

	return hwq && sim_hwq_get_info(hwq, &info) == 0 && info.workgroups_running > 0;
}

static uint64_t rnd_u64(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 11;
}

/* Wait a random wall time in [T, 3T), so arrivals fall anywhere in a kernel. */
static void random_pause(struct run *r, uint64_t *s)
{
	uint64_t ns = r->T + rnd_u64(s) % (2 * r->T);

	t_sleep_us((unsigned int)(ns / 1000 + 1));
}

/* First-WG latency of one high kernel, model ns; or UINT64_MAX on a failure. */
static uint64_t sample_first_wg(struct run *r)
{
	struct hsaqm_hsa_amd_profiling_dispatch_time dt = { 0, 0 };
	union hsaqm_aql_packet pk;
	uint64_t t_sub;

	r->h.core->hsa_signal_store_relaxed_fn(r->high_cs, 1);
	pk = t_hsa_dispatch(r->k_high, 1, r->high_cs.handle, true, NULL);
	t_sub = hsaqm_sim_now_ns(r->h.sim);
	if (hsaqm_ring_submit(r->r_high, &pk, 1, T_S))
		return UINT64_MAX;
	if (!t_hsa_wait_le(&r->h, r->high_cs, 0, 10 * T_S))
		return UINT64_MAX;
	r->h.amd->hsa_amd_profiling_get_dispatch_time_fn(r->h.gpu[0], r->high_cs, &dt);
	if (dt.end < t_sub + HIGH_WG_NS)
		return 0;
	return dt.end - HIGH_WG_NS - t_sub;
}

/* Drain latency of the low queue, model ns; UINT64_MAX on a failure. */
static uint64_t sample_drain(struct run *r)
{
	struct hsaqm_xq *xq = hsaqm_hsa_proxy_xq(r->lo.proxy);
	uint64_t quiet = 3 * r->T < 2 * T_MS ? 2 * T_MS : 3 * r->T;
	uint64_t t0, t_ret, last = 0, wgs, since, deadline;

	t0 = hsaqm_sim_now_ns(r->h.sim);
	if (hsaqm_xq_suspend(xq))
		return UINT64_MAX;
	t_ret = hsaqm_sim_now_ns(r->h.sim);
	/* Quiet: no low workgroup finished for `quiet` (model = wall time, scale 1). */
	wgs = hsaqm_load_acquire(&r->low_wgs);
	since = t_mono_ns();
	deadline = since + 2 * T_S + 40 * r->T;
	while (t_mono_ns() - since < quiet && t_mono_ns() < deadline) {
		t_sleep_us(200);
		uint64_t w = hsaqm_load_acquire(&r->low_wgs);

		if (w != wgs) {
			wgs = w;
			since = t_mono_ns();
		}
	}
	/* The last low kernel to finish: the latest end time among the completed ones. */
	for (unsigned int i = 0; i < POOL; i++) {
		struct hsaqm_hsa_amd_profiling_dispatch_time dt = { 0, 0 };

		if (r->h.core->hsa_signal_load_scacquire_fn(r->pool[i]) != 0)
			continue;
		r->h.amd->hsa_amd_profiling_get_dispatch_time_fn(r->h.gpu[0], r->pool[i], &dt);
		if (dt.end > last)
			last = dt.end;
	}
	hsaqm_xq_resume(xq);
	if (t_ret > last)
		last = t_ret;
	return last > t0 ? last - t0 : 0;
}

/* ---- Statistics and output ------------------------------------------------------------------ */

/* The host's 1-minute load average: the model runs in real time, so it matters. */
static double loadavg(void)
{
	double l = -1;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

static struct stat3 stats_us(uint64_t *v, int n)
{
	struct stat3 s = { 0, 0, 0, n };

	if (!n)
		return s;
	bench_sort_u64(v, (size_t)n);
	s.median = (double)v[n / 2] / 1e3;
	s.p90 = (double)v[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1] / 1e3;
	s.max = (double)v[n - 1] / 1e3;
	return s;
}

static int measure(const struct cfg *c, double t_ms, int n_first, int n_drain, struct point *pt)
{
	struct run *r = calloc(1, sizeof(*r));
	uint64_t v[64], s = 0x5eed ^ (uint64_t)(t_ms * 1000) ^ (uint64_t)(uintptr_t)c;
	int n = 0, rc;

	if (!r)
		return -ENOMEM;
	rc = run_open(r, c, (uint64_t)(t_ms * 1e6));
	if (rc) {
		fprintf(stderr, "%s T=%.1f ms: setup failed: %s\n", c->name, t_ms, strerror(-rc));
		run_close(r);
		free(r);
		return rc;
	}
	uint64_t busy_t0 = t_mono_ns(), busy_k0 = low_done(r);

	/*
	 * A sample counts only when the low queue is running at that instant (the workload is
	 * "a low queue kept full"): on a loaded host its producer can fall behind, and a high
	 * kernel arriving at an idle device measures nothing. Such instants are skipped.
	 */
	for (int i = 0, tries = 0; i < n_first && tries < 50 * n_first; tries++) {
		random_pause(r, &s);
		if (!low_running(r)) {
			pt->skipped++;
			continue;
		}
		uint64_t x = sample_first_wg(r);

		i++;
		if (x != UINT64_MAX)
			v[n++] = x;
		/* Let the low queue get back to steady state. */
		t_sleep_us((unsigned int)(2 * r->T / 1000 + 1000));
	}
	pt->first = stats_us(v, n);
	/* A sanity figure: the low queue must have been busy for the samples to mean anything. */
	pt->low_busy = (double)(low_done(r) - busy_k0) * (double)r->T /
		       (double)(t_mono_ns() - busy_t0);
	n = 0;
	for (int i = 0, tries = 0; c->kind != CFG_NATIVE && i < n_drain && tries < 50 * n_drain;
	     tries++) {
		random_pause(r, &s);
		if (!low_running(r)) {
			pt->skipped++;
			continue;
		}
		uint64_t x = sample_drain(r);

		i++;
		if (x != UINT64_MAX)
			v[n++] = x;
		t_sleep_us((unsigned int)(2 * r->T / 1000 + 1000));
	}
	pt->drain = stats_us(v, n);
	run_close(r);
	free(r);
	return 0;
}

/* Log-scale plot of one metric, one panel of the SVG. */
static void svg_panel(FILE *f, double x0, double y0, double w, double h, const char *title,
		      bool drain, const double *ts, int nt, double ymin, double ymax)
{
	double lx0 = log10(ts[0] * 0.8), lx1 = log10(ts[nt - 1] * 1.25);
	double ly0 = log10(ymin), ly1 = log10(ymax);
#define PX(t) (x0 + (log10(t) - lx0) / (lx1 - lx0) * w)
#define PY(u) (y0 + h - (log10(u) - ly0) / (ly1 - ly0) * h)

	fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='white' "
		   "stroke='#888'/>\n", x0, y0, w, h);
	fprintf(f, "<text x='%.1f' y='%.1f' font-size='14' text-anchor='middle'>%s</text>\n",
		x0 + w / 2, y0 - 10, title);
	for (double d = pow(10, ceil(ly0)); d <= ymax * 1.0001; d *= 10) {
		fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' stroke='#ddd'/>\n", x0,
			x0 + w, PY(d), PY(d));
		fprintf(f, "<text x='%.1f' y='%.1f' font-size='11' text-anchor='end'>%.0f</text>\n",
			x0 - 4, PY(d) + 4, d);
	}
	for (int i = 0; i < nt; i++) {
		fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' stroke='#eee'/>\n",
			PX(ts[i]), PX(ts[i]), y0, y0 + h);
		fprintf(f, "<text x='%.1f' y='%.1f' font-size='11' "
			   "text-anchor='middle'>%g</text>\n",
			PX(ts[i]), y0 + h + 14, ts[i]);
	}
	fprintf(f, "<text x='%.1f' y='%.1f' font-size='12' text-anchor='middle'>kernel length T "
		   "(ms)</text>\n", x0 + w / 2, y0 + h + 32);
	fprintf(f, "<text x='%.1f' y='%.1f' font-size='12' text-anchor='middle' "
		   "transform='rotate(-90 %.1f %.1f)'>latency (us, median)</text>\n",
		x0 - 48, y0 + h / 2, x0 - 48, y0 + h / 2);
	/* Reference: y = T. */
	fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#999' "
		   "stroke-dasharray='4 3'/>\n", PX(ts[0]), PY(ts[0] * 1e3), PX(ts[nt - 1]),
		PY(ts[nt - 1] * 1e3));
	fprintf(f, "<text x='%.1f' y='%.1f' font-size='10' fill='#777'>y = T</text>\n",
		PX(ts[nt - 1]) - 30, PY(ts[nt - 1] * 1e3) - 6);
	for (size_t c = 0; c < NCFG; c++) {
		if (drain && cfgs[c].kind == CFG_NATIVE)
			continue;
		fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' points='",
			cfgs[c].color);
		for (int i = 0; i < nt; i++) {
			const struct stat3 *st = drain ? &g_res[c][i].drain : &g_res[c][i].first;
			double y = st->median < ymin ? ymin : st->median;

			if (st->n)
				fprintf(f, "%.1f,%.1f ", PX(ts[i]), PY(y));
		}
		fprintf(f, "'/>\n");
		for (int i = 0; i < nt; i++) {
			const struct stat3 *st = drain ? &g_res[c][i].drain : &g_res[c][i].first;
			double y = st->median < ymin ? ymin : st->median;

			if (st->n)
				fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>\n",
					PX(ts[i]), PY(y), cfgs[c].color);
		}
	}
#undef PX
#undef PY
}

static void write_svg(const char *path, const double *ts, int nt, bool quick)
{
	FILE *f = fopen(path, "w");
	double ymax = 10, ymin = 10;

	if (!f) {
		perror(path);
		return;
	}
	for (size_t c = 0; c < NCFG; c++)
		for (int i = 0; i < nt; i++) {
			if (g_res[c][i].first.median > ymax)
				ymax = g_res[c][i].first.median;
			if (g_res[c][i].drain.median > ymax)
				ymax = g_res[c][i].drain.median;
		}
	ymax = pow(10, ceil(log10(ymax * 1.05)));
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='1100' height='470' "
		   "font-family='sans-serif'>\n<rect width='1100' height='470' fill='white'/>\n");
	fprintf(f, "<text x='550' y='22' font-size='15' text-anchor='middle'>"
		   "W4: preemption latency "
		   "vs kernel length - MODEL FIGURES (hsaqm device model, not hardware)%s</text>\n",
		quick ? " [quick run]" : "");
	svg_panel(f, 80, 60, 420, 320, "first workgroup of the high kernel (reference definition)",
		  false, ts, nt, ymin, ymax);
	svg_panel(f, 620, 60, 420, 320, "drain: low queue off the CUs (XSched definition)", true,
		  ts, nt, ymin, ymax);
	for (size_t c = 0; c < NCFG; c++) {
		double x = 80 + (double)c * 170;

		fprintf(f, "<rect x='%.0f' y='440' width='14' height='4' fill='%s'/>"
			   "<text x='%.0f' y='446' font-size='12'>%s</text>\n", x, cfgs[c].color,
			x + 18, cfgs[c].label);
	}
	fprintf(f, "</svg>\n");
	fclose(f);
}

struct verdict {
	const char *what;
	bool pass;
	char detail[200];
};

static int evaluate(const double *ts, int nt, struct verdict *v)
{
	int n = 0;
	size_t lv2 = 3, lv3 = 5, lv1a = 1, lv1b = 2;
	double worst = 0, lo3 = 1e18, hi3 = 0, worst1a = 1, worst1b = 1;

	for (int i = 0; i < nt; i++) {
		double t_us = ts[i] * 1e3;

		if (g_res[lv2][i].drain.median / t_us > worst)
			worst = g_res[lv2][i].drain.median / t_us;
	}
	v[n].what = "Lv2 interval 1: drain <= 1.2 T (median)";
	v[n].pass = worst <= 1.2;
	snprintf(v[n].detail, sizeof(v[n].detail), "worst median / T = %.2f", worst);
	n++;
	for (int i = 0; i < nt; i++) {
		double x = g_res[lv3][i].first.median;

		if (x < lo3)
			lo3 = x;
		if (x > hi3)
			hi3 = x;
	}
	v[n].what = "Lv3: first-WG latency flat in T and <= 100 us (median)";
	v[n].pass = hi3 <= 100 && hi3 <= 2 * lo3;
	snprintf(v[n].detail, sizeof(v[n].detail), "medians %.0f..%.0f us over T", lo3, hi3);
	n++;
	for (int i = 0; i < nt; i++) {
		double t_us = ts[i] * 1e3;
		double a = g_res[lv1a][i].drain.median / (16 * t_us);
		double b = g_res[lv1b][i].drain.median / (4 * t_us);

		if (fabs(a - 1) > fabs(worst1a - 1))
			worst1a = a;
		if (fabs(b - 1) > fabs(worst1b - 1))
			worst1b = b;
	}
	v[n].what = "Lv1: drain ~ threshold x T (within 0.5-1.5x)";
	v[n].pass = worst1a >= 0.5 && worst1a <= 1.5 && worst1b >= 0.5 && worst1b <= 1.5;
	snprintf(v[n].detail, sizeof(v[n].detail),
		 "drain / (threshold x T), farthest from 1: %.2f (16/8), %.2f (4/2)", worst1a,
		 worst1b);
	n++;
	return n;
}

static void print_table(FILE *f, const double *ts, int nt, bool drain, bool md)
{
	if (md) {
		fprintf(f, "| T (ms) |");
		for (size_t c = 0; c < NCFG; c++)
			if (!(drain && cfgs[c].kind == CFG_NATIVE))
				fprintf(f, " %s |", cfgs[c].label);
		fprintf(f, "\n| --- |");
		for (size_t c = 0; c < NCFG; c++)
			if (!(drain && cfgs[c].kind == CFG_NATIVE))
				fprintf(f, " --- |");
		fprintf(f, "\n");
	} else {
		fprintf(f, "%8s", "T (ms)");
		for (size_t c = 0; c < NCFG; c++)
			if (!(drain && cfgs[c].kind == CFG_NATIVE))
				fprintf(f, " %17s", cfgs[c].name);
		fprintf(f, "\n");
	}
	for (int i = 0; i < nt; i++) {
		fprintf(f, md ? "| %g |" : "%8g", ts[i]);
		for (size_t c = 0; c < NCFG; c++) {
			const struct stat3 *st = drain ? &g_res[c][i].drain : &g_res[c][i].first;
			char cell[48];

			if (drain && cfgs[c].kind == CFG_NATIVE)
				continue;
			if (st->n)
				snprintf(cell, sizeof(cell), "%.0f (%.0f)", st->median, st->p90);
			else
				snprintf(cell, sizeof(cell), "-");
			fprintf(f, md ? " %s |" : " %17s", cell);
		}
		fprintf(f, "\n");
	}
}

int main(int argc, char **argv)
{
	const char *out = HSAQM_OUT_DIR;
	const char *only = NULL;
	double one_t[1] = { 0 };
	int samples = 0;
	bool quick = false;
	char path[1024];
	struct verdict v[4];
	int nv, n_first, n_drain, nt;
	const double *ts;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = true;
		} else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--samples") && i + 1 < argc) {
			samples = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--t") && i + 1 < argc) {
			one_t[0] = atof(argv[++i]);
		} else {
			fprintf(stderr,
				"usage: %s [--quick] [--out DIR] [--only CONFIG] [--samples N] "
					"[--t MS]\n", argv[0]);
			return 2;
		}
	}
	ts = quick ? t_quick : t_full;
	nt = quick ? 3 : 7;
	if (one_t[0] > 0) {
		ts = one_t;
		nt = 1;
	}
	n_first = quick ? 6 : 20;
	n_drain = quick ? 4 : 10;
	if (samples > 0 && samples <= 64)
		n_first = n_drain = samples;
	mkdir(out, 0777);
	double load0 = loadavg(), load1;
	printf("hsaqm-bench-w4: preemption latency vs kernel length T - MODEL FIGURES "
	       "(device model)\n");
	printf("low: 80 x 1-wave workgroups of T per kernel, 32 outstanding, in order; high: one "
	       "32-wave workgroup of 20 us\n%d first-WG and %d drain samples per point%s\n\n",
	       n_first, n_drain, quick ? " (--quick)" : "");
	for (size_t c = 0; c < NCFG; c++) {
		if (only && strcmp(only, cfgs[c].name))
			continue;
		for (int i = 0; i < nt; i++) {
			printf("  %-16s T = %5g ms ...", cfgs[c].label, ts[i]);
			fflush(stdout);
			if (measure(&cfgs[c], ts[i], n_first, n_drain, &g_res[c][i]))
				return 1;
			printf(" first WG %8.0f us (low busy %3.0f %%, %u instants skipped)",
			       g_res[c][i].first.median, 100 * g_res[c][i].low_busy,
			       g_res[c][i].skipped);
			if (cfgs[c].kind != CFG_NATIVE)
				printf(", drain %9.0f us", g_res[c][i].drain.median);
			printf("\n");
		}
	}
	load1 = loadavg();
	printf("\nhost load average (1 min) at start / end: %.2f / %.2f\n", load0, load1);
	printf("\nfirst workgroup of the high kernel, us: median (p90)\n");
	print_table(stdout, ts, nt, false, false);
	printf("\ndrain (low queue off the CUs after a hold), us: median (p90)\n");
	print_table(stdout, ts, nt, true, false);
	nv = evaluate(ts, nt, v);
	printf("\ntargets (model time):\n");
	for (int i = 0; i < nv; i++)
		printf("  %-58s %s  (%s)\n", v[i].what, v[i].pass ? "PASS" : "MISS", v[i].detail);

	snprintf(path, sizeof(path), "%s/w4.json", out);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	/* Through the one JSON writer (hsaqm-common/json.h): names and details are escaped. */
	struct hsaqm_json j;

	hsaqm_json_init(&j, f);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_string(&j, "bench", "w4");
	hsaqm_json_bool(&j, "model_figures", true);
	hsaqm_json_bool(&j, "quick", quick);
	hsaqm_json_begin_array(&j, "host_loadavg");
	hsaqm_json_fixed(&j, NULL, load0, 2);
	hsaqm_json_fixed(&j, NULL, load1, 2);
	hsaqm_json_end_array(&j);
	hsaqm_json_begin_object(&j, "workload");
	hsaqm_json_string(&j, "low_kernel", "80 workgroups x 1 wave x T, barrier bit, 32 outstanding");
	hsaqm_json_string(&j, "high_kernel", "1 workgroup x 32 waves x 20 us");
	hsaqm_json_int(&j, "first_wg_samples", n_first);
	hsaqm_json_int(&j, "drain_samples", n_drain);
	hsaqm_json_end_object(&j);
	hsaqm_json_begin_array(&j, "T_ms");
	for (int i = 0; i < nt; i++)
		hsaqm_json_number(&j, NULL, ts[i], 6);
	hsaqm_json_end_array(&j);
	hsaqm_json_begin_array(&j, "configs");
	for (size_t c = 0; c < NCFG; c++) {
		hsaqm_json_begin_object(&j, NULL);
		hsaqm_json_string(&j, "name", cfgs[c].name);
		hsaqm_json_string(&j, "label", cfgs[c].label);
		hsaqm_json_begin_array(&j, "points");
		for (int i = 0; i < nt; i++) {
			const struct point *p = &g_res[c][i];

			hsaqm_json_begin_object(&j, NULL);
			hsaqm_json_number(&j, "T_ms", ts[i], 6);
			hsaqm_json_fixed(&j, "low_busy", p->low_busy, 3);
			hsaqm_json_uint(&j, "skipped_instants", p->skipped);
			hsaqm_json_begin_object(&j, "first_wg_us");
			hsaqm_json_fixed(&j, "median", p->first.median, 1);
			hsaqm_json_fixed(&j, "p90", p->first.p90, 1);
			hsaqm_json_fixed(&j, "max", p->first.max, 1);
			hsaqm_json_int(&j, "n", p->first.n);
			hsaqm_json_end_object(&j);
			if (cfgs[c].kind != CFG_NATIVE) {
				hsaqm_json_begin_object(&j, "drain_us");
				hsaqm_json_fixed(&j, "median", p->drain.median, 1);
				hsaqm_json_fixed(&j, "p90", p->drain.p90, 1);
				hsaqm_json_fixed(&j, "max", p->drain.max, 1);
				hsaqm_json_int(&j, "n", p->drain.n);
				hsaqm_json_end_object(&j);
			}
			hsaqm_json_end_object(&j);
		}
		hsaqm_json_end_array(&j);
		hsaqm_json_end_object(&j);
	}
	hsaqm_json_end_array(&j);
	hsaqm_json_begin_array(&j, "targets");
	for (int i = 0; i < nv; i++) {
		hsaqm_json_begin_object(&j, NULL);
		hsaqm_json_string(&j, "what", v[i].what);
		hsaqm_json_string(&j, "verdict", v[i].pass ? "PASS" : "MISS");
		hsaqm_json_string(&j, "detail", v[i].detail);
		hsaqm_json_end_object(&j);
	}
	hsaqm_json_end_array(&j);
	hsaqm_json_end_object(&j);
	fputc('\n', f);
	fclose(f);

	snprintf(path, sizeof(path), "%s/w4.md", out);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f, "# W4: preemption latency vs kernel length (MODEL FIGURES)\n\n"
		   "Produced by `hsaqm-bench-w4%s` on the hsaqm device model (MI308X profile, "
		   "real-time "
		   "mode). These are model figures, not hardware results.\n\n"
		   "Low queue: kernels of 80 one-wave workgroups (one per CU) of length T, barrier "
		   "bit, 32 outstanding. High queue: one 32-wave workgroup of 20 us per kernel. "
		   "%d first-WG and %d drain samples per point, at random instants at which "
		   "the low "
		   "queue was running. Host load average (1 min) at start / end: %.2f / %.2f.\n\n"
		   "## First workgroup of the high kernel (us, median (p90))\n\n",
		quick ? " --quick" : "", n_first, n_drain, load0, load1);
	print_table(f, ts, nt, false, true);
	fprintf(f, "\n## Drain: the low queue off the CUs after a hold (us, median (p90))\n\n");
	print_table(f, ts, nt, true, true);
	fprintf(f, "\n## Low queue busy during the first-WG samples (%%) / instants skipped\n\n"
		   "| T (ms) |");
	for (size_t c = 0; c < NCFG; c++)
		fprintf(f, " %s |", cfgs[c].label);
	fprintf(f, "\n| --- |");
	for (size_t c = 0; c < NCFG; c++)
		fprintf(f, " --- |");
	fprintf(f, "\n");
	for (int i = 0; i < nt; i++) {
		fprintf(f, "| %g |", ts[i]);
		for (size_t c = 0; c < NCFG; c++)
			fprintf(f, " %.0f / %u |", 100 * g_res[c][i].low_busy, g_res[c][i].skipped);
		fprintf(f, "\n");
	}
	fprintf(f, "\n## Targets (model time)\n\n| target | verdict | detail |\n"
		   "| --- | --- | --- |\n");
	for (int i = 0; i < nv; i++)
		fprintf(f, "| %s | %s | %s |\n", v[i].what, v[i].pass ? "PASS" : "MISS",
			v[i].detail);
	fclose(f);

	snprintf(path, sizeof(path), "%s/w4.svg", out);
	write_svg(path, ts, nt, quick);
	printf("\nwrote %s/w4.json, w4.md, w4.svg\n", out);
	return 0;
}
