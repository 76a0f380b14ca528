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
 * Usage: hsaqm-bench-reaction [--quick] [--json FILE]
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
#include "hsaqm/barrier.h"
#include "hsaqm/hsaqm.h"

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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

struct figure {
	double median;
	double p99;
};

static struct figure summarize(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
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

int main(int argc, char **argv)
{
	static const uint32_t counts[] = { 1, 8, 64 };
	struct result res[3];
	const char *json_path = NULL;
	bool quick = false, pass = true;
	FILE *jf;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = true;
		} else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			json_path = argv[++i];
		} else {
			fprintf(stderr, "usage: %s [--quick] [--json FILE]\n", argv[0]);
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

	if (json_path) {
		jf = fopen(json_path, "w");
		if (!jf) {
			perror(json_path);
			return 1;
		}
		fprintf(jf, "{\"bench\":\"reaction\",\"quick\":%s,\"trials\":%zu,\"results\":[",
			quick ? "true" : "false", trials);
		for (int i = 0; i < 3; i++)
			fprintf(jf,
				"%s{\"lower_queues\":%u,\"to_last_gate_ns\":{\"median\":%.0f,\"p99\":%.0f},"
				"\"whole_call_ns\":{\"median\":%.0f,\"p99\":%.0f},"
				"\"store_floor_ns\":{\"median\":%.0f,\"p99\":%.0f},"
				"\"clock_pair_ns\":{\"median\":%.0f}}",
				i ? "," : "", res[i].lower, res[i].to_gates.median, res[i].to_gates.p99,
				res[i].call.median, res[i].call.p99, res[i].floor.median,
				res[i].floor.p99, res[i].clock_pair.median);
		fprintf(jf,
			"],\"target\":{\"lower_queues\":%d,\"median_ns_max\":%.0f,\"verdict\":\"%s\"}}\n",
			TARGET_LOWER, TARGET_NS, pass ? "PASS" : "MISS");
		fclose(jf);
	}
	return 0;
}
