/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-bench-reaction - the CPU cost of lib's reaction path: from a higher-priority
 * queue's hsaqm_xq_submitted() call to the gate of every lower, busy queue of the device
 * closed, with 1, 8 and 64 lower queues at Lv2 under HPF.
 *
 * The backend here is minimal: gate_close() is one release store of 1 to the queue's gate
 * word, which is what the HSA backend's gate close reduces to (a store to the gate
 * signal's value; hsa_signal_store_screlease on a default signal is a release store plus,
 * only for interrupt signals, an event write). release() just counts. So the figures are
 * lib's own cost (locking, the policy decision, the per-queue engine work), printed next to
 * the floor measured in the same run: a bare loop of the same number of release stores to
 * gate words on separate cache lines, timed the same way.
 *
 *   to last gate  t(last gate_close) - t(call start): what the target applies to
 *   whole call    the whole hsaqm_xq_submitted() (also releases the high queue's packet)
 *   store floor   N release stores to N gate words, between the same two clock reads
 *   clock pair    two clock reads alone: part of every figure (and one more clock read,
 *                 taken inside the last gate_close(), is part of "to last gate")
 *
 * Each trial: the high queue submits one packet (the lower queues are preempted), then
 * its marker completes (they resume). Target: median <= 5 us with 8 lower queues.
 *
 * Second section, the HSA backend's row (hsa-layer/, added with the backend): the same
 * measurement through the real path on the device model's HSA face. The queues are proxy
 * queues of the HSA backend; the high queue's packet is written into its proxy ring as ROCclr
 * writes one and hsaqm_hsa_proxy_doorbell() is called where ROCclr rings the doorbell (what
 * the tool's wrapper of the signal store will do). So "to last gate" now also covers the
 * doorbell scan of the proxy ring, and a gate close is the runtime's
 * hsa_signal_store_screlease on the gate signal (here the model's HSA face: a handle lookup
 * and a release store, with a wake-up only when something waits on the gate). "whole call"
 * adds the release of the high packet (copy into the hardware ring with its guardian and
 * marker, and the hardware doorbell, which wakes the model's engine thread). The lower
 * queues each hold one packet on the hardware that never completes until the end (a
 * barrier-AND on a signal), so every trial finds them busy. Its floor: the same number of
 * runtime signal stores, and the bare store loop above.
 * Usage: hsaqm-bench-reaction [--quick] [--json FILE] [--no-hsa]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hsaqm/backend.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm/hsaqm.h"
#include "bench_sort.h"
#include "hsaqm-common/json.h"

#include "hsa_backend_internal.h" /* the backend's gate hook, to time the last close */
#include "t_hsa.h"               /* a client of the device model's HSA face */

#define TARGET_NS 5000.0
#define TARGET_LOWER 8
#define MAX_LOWER 64

struct bq {
	alignas(64) uint32_t gate; /* the gate word: 0 open, 1 closed */
	uint64_t released;
	uint64_t last_marker;
	bool is_low;
};

static uint32_t closes_wanted, closes_seen;
static uint64_t t_last_close;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int b_release(void *p, const struct hsaqm_release *rel)
{
	struct bq *q = p;

	q->released += rel->n;
	if (rel->flags & HSAQM_RELEASE_MARKER)
		q->last_marker = rel->marker_seq;
	return 0;
}

static int b_gate_close(void *p)
{
	struct bq *q = p;

	/* Release: the packet processor must see the gate closed after everything before. */
	hsaqm_store_release(&q->gate, 1u);
	if (q->is_low && ++closes_seen == closes_wanted)
		t_last_close = now_ns();
	return 0;
}

static int b_gate_open(void *p)
{
	struct bq *q = p;

	/* Release: as the close. */
	hsaqm_store_release(&q->gate, 0u);
	return 0;
}

static int b_nop(void *p)
{
	(void)p;
	return 0;
}

static int b_max_level(void *p, char *why, uint32_t len)
{
	(void)p;
	snprintf(why, len, "bench backend: Lv2");
	return HSAQM_LEVEL_2;
}

static const struct hsaqm_backend_ops bench_ops = {
	.release = b_release,
	.gate_close = b_gate_close,
	.gate_open = b_gate_open,
	.suspend = b_nop,
	.resume = b_nop,
	.max_level = b_max_level,
};

struct figure {
	double median;
	double p99;
};

static struct figure summarize(uint64_t *v, size_t n)
{
	bench_sort_u64(v, n);
	return (struct figure){ (double)v[n / 2], (double)v[(n * 99) / 100] };
}

struct result {
	uint32_t lower;
	struct figure to_gates, call, floor, clock_pair;
};

static int run_one(uint32_t lower, size_t trials, struct result *out)
{
	static struct bq queues[MAX_LOWER + 1];
	struct hsaqm_xq *xqs[MAX_LOWER + 1];
	struct hsaqm_ctx *ctx;
	uint64_t *to_gates = calloc(trials, sizeof(uint64_t));
	uint64_t *call = calloc(trials, sizeof(uint64_t));
	uint64_t *floor_ns = calloc(trials, sizeof(uint64_t));
	uint64_t *pair_ns = calloc(trials, sizeof(uint64_t));
	uint64_t hi_end = 0;
	size_t warm = trials / 10;
	int rc;

	if (!to_gates || !call || !floor_ns || !pair_ns)
		return -ENOMEM;
	rc = hsaqm_ctx_create(&ctx);
	if (rc)
		return rc;
	memset(queues, 0, sizeof(queues));
	for (uint32_t i = 0; i <= lower; i++) {
		struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_2, .priority = i == 0 ? 10 : 0 };

		queues[i].is_low = i != 0;
		rc = hsaqm_xq_attach(ctx, &cfg, &bench_ops, &queues[i], &xqs[i]);
		if (rc)
			return rc;
		/* The lower queues are busy: one packet in flight whose marker never completes. */
		if (i)
			hsaqm_xq_submitted(xqs[i], 1);
	}
	for (size_t t = 0; t < warm + trials; t++) {
		uint64_t t0, t1;

		closes_seen = 0;
		closes_wanted = lower;
		t0 = now_ns();
		hsaqm_xq_submitted(xqs[0], ++hi_end);
		t1 = now_ns();
		if (closes_seen != lower) {
			fprintf(stderr, "only %u of %u gates closed\n", closes_seen, lower);
			return -EIO;
		}
		if (t >= warm) {
			to_gates[t - warm] = t_last_close - t0;
			call[t - warm] = t1 - t0;
		}
		/* The high packet completes: the lower queues resume (not timed). */
		hsaqm_xq_marker_done(xqs[0], queues[0].last_marker);
		for (uint32_t i = 1; i <= lower; i++)
			if (HSAQM_READ_ONCE(queues[i].gate)) {
				fprintf(stderr, "queue %u not resumed\n", i);
				return -EIO;
			}
	}
	/* The floor: the same number of release stores to gate words, timed the same way. */
	for (size_t t = 0; t < warm + trials; t++) {
		uint64_t t0 = now_ns(), t1;

		for (uint32_t i = 1; i <= lower; i++)
			hsaqm_store_release(&queues[i].gate, (uint32_t)(t & 1)); /* nothing to order: a floor */
		t1 = now_ns();
		if (t >= warm)
			floor_ns[t - warm] = t1 - t0;
	}
	/* What two clock reads cost on their own: part of every figure above. */
	for (size_t t = 0; t < warm + trials; t++) {
		uint64_t t0 = now_ns(), t1 = now_ns();

		if (t >= warm)
			pair_ns[t - warm] = t1 - t0;
	}
	hsaqm_ctx_destroy(ctx);
	out->lower = lower;
	out->clock_pair = summarize(pair_ns, trials);
	out->to_gates = summarize(to_gates, trials);
	out->call = summarize(call, trials);
	out->floor = summarize(floor_ns, trials);
	free(to_gates);
	free(call);
	free(floor_ns);
	free(pair_ns);
	return 0;
}


/* ---- The HSA backend's row ------------------------------------------------------------- */

#define HSA_TRIALS_FULL 20000
#define HSA_TRIALS_QUICK 2000

static uint32_t hsa_closes_wanted, hsa_closes_seen;
static uint64_t hsa_t_last_close;

/* Called by the backend right after each gate store (under lib's device lock). */
static void hsa_gate_hook(struct hsaqm_hsa_proxy *p, bool closed)
{
	(void)p;
	if (closed && ++hsa_closes_seen == hsa_closes_wanted)
		hsa_t_last_close = now_ns();
}

struct hsa_result {
	uint32_t lower;
	size_t trials;
	struct figure to_gates, call, store_floor, doorbell;
};

static int run_hsa(uint32_t lower, size_t trials, struct hsa_result *out)
{
	struct t_hsa h;
	struct t_app hi, lo[MAX_LOWER];
	struct hsaqm_hsa_signal hold, hcs;
	uint64_t khi = 0;
	struct hsaqm_sim_kernel_desc kd = { .name = "tiny", .duration_ns = 1000 };
	uint64_t *to_gates = calloc(trials, sizeof(uint64_t));
	uint64_t *call = calloc(trials, sizeof(uint64_t));
	uint64_t *floor_ns = calloc(trials, sizeof(uint64_t));
	uint64_t *db_ns = calloc(trials, sizeof(uint64_t));
	size_t warm = trials / 10;
	uint32_t nlo = 0;
	int rc;

	memset(&hi, 0, sizeof(hi));
	if (!to_gates || !call || !floor_ns || !db_ns)
		return -ENOMEM;
	rc = t_hsa_open(&h, HSAQM_SIM_TIME_REAL, 1);
	if (!rc)
		rc = t_hsa_runtime(&h, NULL);
	if (!rc)
		rc = hsaqm_sim_kernel_register(h.sim, &kd, &khi);
	if (rc)
		goto out;
	hold = t_hsa_signal(&h, 1);
	hcs = t_hsa_signal(&h, 0);
	struct hsaqm_xq_config xh = { .level = HSAQM_LEVEL_2, .priority = 10 };
	rc = t_hsa_proxy(&h, 0, 64, &xh, &hi);
	for (; !rc && nlo < lower; nlo++) {
		struct hsaqm_xq_config xl = { .level = HSAQM_LEVEL_2, .priority = 0 };
		union hsaqm_aql_packet pk;
		struct hsaqm_aql_barrier_desc bd = { .dep_signals = &hold.handle, .num_deps = 1 };

		rc = t_hsa_proxy(&h, 0, 64, &xl, &lo[nlo]);
		if (rc)
			break;
		/* Busy for the whole run: a packet that completes only when `hold` drops to 0. */
		hsaqm_aql_barrier_and_build(&pk, &bd);
		rc = hsaqm_ring_submit(&lo[nlo].ring, &pk, 1, 0);
	}
	if (rc)
		goto out_queues;
	HSAQM_WRITE_ONCE(hsaqm_hsa_gate_hook, hsa_gate_hook);
	for (size_t t = 0; t < warm + trials && !rc; t++) {
		union hsaqm_aql_packet pk;
		uint64_t t0, t1, until;

		h.core->hsa_signal_store_relaxed_fn(hcs, 1);
		pk = t_hsa_dispatch(khi, 1, hcs.handle, false, NULL);
		hsa_closes_seen = 0;
		hsa_closes_wanted = lower;
		t0 = now_ns();
		/* ROCclr's publish, then the doorbell the tool intercepts: the reaction, inline. */
		rc = hsaqm_ring_submit(&hi.ring, &pk, 1, 0);
		t1 = now_ns();
		if (rc)
			break;
		if (hsa_closes_seen != lower) {
			fprintf(stderr, "HSA: only %u of %u gates closed\n", hsa_closes_seen,
				lower);
			rc = -EIO;
			break;
		}
		if (t >= warm) {
			to_gates[t - warm] = hsa_t_last_close - t0;
			call[t - warm] = t1 - t0;
		}
		/* The high kernel completes, its marker's handler reopens the gates (not timed). */
		if (!t_hsa_wait_le(&h, hcs, 0, 10 * T_S)) {
			rc = -ETIMEDOUT;
			break;
		}
		until = now_ns() + T_S;
		for (uint32_t i = 0; i < lower; i++) {
			struct hsaqm_hsa_signal g = lo[i].proxy->gate;

			while (h.rt.signal_load_scacquire(g) != 0 && now_ns() < until)
				hsaqm_cpu_relax();
		}
		if (now_ns() >= until) {
			fprintf(stderr, "HSA: gates not reopened\n");
			rc = -ETIMEDOUT;
		}
	}
	HSAQM_WRITE_ONCE(hsaqm_hsa_gate_hook, NULL);
	/* Floor: the same number of runtime release stores to the lower queues' gate signals. */
	for (size_t t = 0; !rc && t < warm + trials; t++) {
		uint64_t t0 = now_ns(), t1;

		for (uint32_t i = 0; i < lower; i++)
			h.rt.signal_store_screlease(lo[i].proxy->gate, (int64_t)(t & 1));
		t1 = now_ns();
		if (t >= warm)
			floor_ns[t - warm] = t1 - t0;
	}
	for (uint32_t i = 0; i < lower; i++)
		h.rt.signal_store_screlease(lo[i].proxy->gate, 0);
	/*
	 * What the model's hardware doorbell costs on its own (part of "whole call"): the
	 * runtime's store to the high queue's hardware doorbell, re-ringing its last packet.
	 * On hardware this is an MMIO write; the model delivers it with a futex wake.
	 */
	for (size_t t = 0; !rc && t < warm + trials; t++) {
		const struct hsaqm_hsa_queue *hwq = hsaqm_hsa_proxy_hw_queue(hi.proxy);
		const struct hsaqm_amd_queue *ha = (const void *)hwq;
		/* Acquire: any index below the write index was published by us. */
		int64_t last = (int64_t)hsaqm_load_acquire(&ha->write_dispatch_id) - 1;
		uint64_t t0 = now_ns(), t1;

		h.rt.signal_store_screlease(hwq->doorbell_signal, last);
		t1 = now_ns();
		if (t >= warm)
			db_ns[t - warm] = t1 - t0;
		t_sleep_us(20);
	}
out_queues:
	/* Let the lower queues' packets complete, then everything goes. */
	h.core->hsa_signal_store_screlease_fn(hold, 0);
	for (uint32_t i = 0; i < nlo; i++)
		hsaqm_hsa_proxy_destroy(lo[i].proxy);
	if (hi.proxy)
		hsaqm_hsa_proxy_destroy(hi.proxy);
	if (!rc) {
		out->lower = lower;
		out->trials = trials;
		out->to_gates = summarize(to_gates, trials);
		out->call = summarize(call, trials);
		out->store_floor = summarize(floor_ns, trials);
		out->doorbell = summarize(db_ns, trials);
	}
out:
	t_hsa_close(&h);
	free(to_gates);
	free(call);
	free(floor_ns);
	free(db_ns);
	return rc;
}

/* A figure in whole nanoseconds: {"median":..,"p99":..} (@p99 false: the median alone). */
static void json_figure(struct hsaqm_json *j, const char *key, const struct figure *f, bool p99)
{
	hsaqm_json_begin_object(j, key);
	hsaqm_json_fixed(j, "median", f->median, 0);
	if (p99)
		hsaqm_json_fixed(j, "p99", f->p99, 0);
	hsaqm_json_end_object(j);
}

/* The --json document (docs/results.md), through the project's JSON writer; @hres NULL: no HSA section. */
static void write_json(FILE *f, bool quick, size_t trials, const struct result res[3], bool pass,
		       const struct hsa_result *hres, bool hsa_pass)
{
	struct hsaqm_json j;

	hsaqm_json_init(&j, f);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_string(&j, "bench", "reaction");
	hsaqm_json_bool(&j, "quick", quick);
	hsaqm_json_uint(&j, "trials", trials);
	hsaqm_json_begin_array(&j, "results");
	for (int i = 0; i < 3; i++) {
		hsaqm_json_begin_object(&j, NULL);
		hsaqm_json_uint(&j, "lower_queues", res[i].lower);
		json_figure(&j, "to_last_gate_ns", &res[i].to_gates, true);
		json_figure(&j, "whole_call_ns", &res[i].call, true);
		json_figure(&j, "store_floor_ns", &res[i].floor, true);
		json_figure(&j, "clock_pair_ns", &res[i].clock_pair, false);
		hsaqm_json_end_object(&j);
	}
	hsaqm_json_end_array(&j);
	hsaqm_json_begin_object(&j, "target");
	hsaqm_json_int(&j, "lower_queues", TARGET_LOWER);
	hsaqm_json_fixed(&j, "median_ns_max", TARGET_NS, 0);
	hsaqm_json_string(&j, "verdict", pass ? "PASS" : "MISS");
	hsaqm_json_end_object(&j);
	if (hres) {
		hsaqm_json_begin_object(&j, "hsa_backend");
		hsaqm_json_bool(&j, "model_figures", true);
		hsaqm_json_begin_array(&j, "results");
		for (int i = 0; i < 3; i++) {
			hsaqm_json_begin_object(&j, NULL);
			hsaqm_json_uint(&j, "lower_queues", hres[i].lower);
			hsaqm_json_uint(&j, "trials", hres[i].trials);
			json_figure(&j, "to_last_gate_ns", &hres[i].to_gates, true);
			json_figure(&j, "whole_call_ns", &hres[i].call, true);
			json_figure(&j, "runtime_store_floor_ns", &hres[i].store_floor, true);
			json_figure(&j, "model_doorbell_ns", &hres[i].doorbell, false);
			hsaqm_json_end_object(&j);
		}
		hsaqm_json_end_array(&j);
		hsaqm_json_begin_object(&j, "target");
		hsaqm_json_string(&j, "verdict", hsa_pass ? "PASS" : "MISS");
		hsaqm_json_end_object(&j);
		hsaqm_json_end_object(&j);
	}
	hsaqm_json_end_object(&j);
	fputc('\n', f);
}

int main(int argc, char **argv)
{
	static const uint32_t counts[] = { 1, 8, 64 };
	struct result res[3];
	const char *json_path = NULL;
	bool quick = false, pass = true, hsa = true, hsa_pass = true;
	struct hsa_result hres[3];
	FILE *jf;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = true;
		} else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			json_path = argv[++i];
		} else if (!strcmp(argv[i], "--no-hsa")) {
			hsa = false;
		} else {
			fprintf(stderr, "usage: %s [--quick] [--json FILE] [--no-hsa]\n", argv[0]);
			return 2;
		}
	}
	size_t trials = quick ? 5000 : 100000;

	printf("hsaqm-bench-reaction: higher-priority submission -> every lower queue's gate closed\n");
	printf("(Lv2, HPF, minimal backend: gate_close = one release store; %zu trials each)\n\n", trials);
	printf("%6s  %22s  %22s  %22s  %12s\n", "lower", "to last gate (ns)", "whole call (ns)",
	       "store floor (ns)", "clock pair");
	printf("%6s  %10s %11s  %10s %11s  %10s %11s  %12s\n", "", "median", "p99", "median", "p99",
	       "median", "p99", "median");
	for (int i = 0; i < 3; i++) {
		int rc = run_one(counts[i], trials, &res[i]);

		if (rc) {
			fprintf(stderr, "run with %u lower queues failed: %d\n", counts[i], rc);
			return 1;
		}
		printf("%6u  %10.0f %11.0f  %10.0f %11.0f  %10.0f %11.0f  %12.0f\n", res[i].lower,
		       res[i].to_gates.median, res[i].to_gates.p99, res[i].call.median,
		       res[i].call.p99, res[i].floor.median, res[i].floor.p99,
		       res[i].clock_pair.median);
		if (counts[i] == TARGET_LOWER && res[i].to_gates.median > TARGET_NS)
			pass = false;
	}
	printf("\ntarget: median <= %.0f ns with %d lower queues: %s\n", TARGET_NS, TARGET_LOWER,
	       pass ? "PASS" : "MISS");

	if (hsa) {
		size_t ht = quick ? HSA_TRIALS_QUICK : HSA_TRIALS_FULL;

		printf("\nHSA backend row: proxy queues on the device model's HSA face (real "
		       "time); gate close = the runtime's hsa_signal_store_screlease "
		       "(%zu trials, %zu with 64)\n\n", ht, ht / 20);
		printf("%6s  %22s  %22s  %22s  %12s\n", "lower", "to last gate (ns)",
		       "whole call (ns)", "runtime store floor", "model dbell");
		printf("%6s  %10s %11s  %10s %11s  %10s %11s  %12s\n", "", "median", "p99",
		       "median", "p99", "median", "p99", "median");
		for (int i = 0; i < 3; i++) {
			/*
			 * 64 lower queues and the high one exceed the model's 24 HQD slots: the
			 * HWS time-slices them (10 ms quantum), so each trial waits for the high
			 * queue's slot. That costs wall time, not reaction time: fewer trials.
			 */
			int rc = run_hsa(counts[i], counts[i] > 16 ? ht / 20 : ht, &hres[i]);

			if (rc) {
				fprintf(stderr, "HSA run with %u lower queues failed: %d\n",
					counts[i], rc);
				return 1;
			}
			printf("%6u  %10.0f %11.0f  %10.0f %11.0f  %10.0f %11.0f  %12.0f\n",
			       hres[i].lower, hres[i].to_gates.median, hres[i].to_gates.p99,
			       hres[i].call.median, hres[i].call.p99, hres[i].store_floor.median,
			       hres[i].store_floor.p99, hres[i].doorbell.median);
			if (counts[i] == TARGET_LOWER && hres[i].to_gates.median > TARGET_NS)
				hsa_pass = false;
		}
		printf("\ntarget (HSA backend): median <= %.0f ns with %d lower queues: %s\n",
		       TARGET_NS, TARGET_LOWER, hsa_pass ? "PASS" : "MISS");
		printf("(CPU times on this host; \"whole call\" includes the model's doorbell "
		       "delivery, \"model dbell\", which is an MMIO store on hardware)\n");
	}

	if (json_path) {
		jf = fopen(json_path, "w");
		if (!jf) {
			perror(json_path);
			return 1;
		}
		write_json(jf, quick, trials, res, pass, hsa ? hres : NULL, hsa_pass);
		fclose(jf);
	}
	return 0;
}
