/* SPDX-License-Identifier: MIT */
/*
 * fuzz-pp-replay: runs the packet-processor fuzz harness (fuzz_pp.c) on files, without
 * libFuzzer, so any compiler builds it and every build (normal, sanitizers) replays the
 * committed corpus as a test. It also writes that seed corpus.
 *
 *   fuzz-pp-replay PATH...             replay files, and every file of each directory
 *   fuzz-pp-replay --write-seeds DIR   write the seed programs below into DIR
 *
 * Exit: 0 when every input ran (an invariant violation aborts), 1 when no input was found
 * or a file could not be read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_pp.h"

/* ------------------------------------------------------------------------------------
 * Seed programs: one per area of the packet processor, small enough for a mutator to
 * reshape. Templates as fuzz_pp.h describes them.
 */
struct seed {
	uint8_t b[512];
	size_t n;
};

static void put_bytes(struct seed *s, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n && s->n < sizeof(s->b); i++)
		s->b[s->n++] = b[i];
}

#define PUT(s, ...) \
	put_bytes((s), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

/* Template byte 0: kind, barrier bit, completion selector, scopes. */
#define T0(kind, barrier, cs, scopes) \
	(((kind) & 3) | ((barrier) ? 4 : 0) | (((cs) & 7) << 3) | (((scopes) & 3) << 6))
/* A 1-D dispatch template of @nwg 64-item workgroups. */
#define T_DISPATCH(cs, kernel, nwg) T0(0, 0, cs, 0), (kernel), ((nwg) - 1), 0
/* Template bytes 1-3 of a barrier-AND/OR: five 3-bit dependency selectors. */
#define DEPS(a, b, c, d, e)                                                         \
	((a) | (b) << 3 | (c) << 6 | (d) << 9 | (e) << 12) & 0xff,                  \
		(((a) | (b) << 3 | (c) << 6 | (d) << 9 | (e) << 12) >> 8) & 0xff, 0

/* Two queues, dispatches of each kernel with own signals, the barrier bit, time. */
static void seed_dispatches(struct seed *s)
{
	PUT(s, FZ_CFG(2, 0, 0, 1), FZ_QUEUE(7, 2), FZ_QUEUE(12, 1));
	PUT(s, FZ_OP_PUB, 0 | (3 << 2), T_DISPATCH(FZ_SIG_OWN, FZ_K_SHORT, 8),
	    T_DISPATCH(FZ_SIG_OWN, FZ_K_WIDE, 3), T0(0, 1, FZ_SIG_OWN, 0), FZ_K_UNIFORM, 5, 0,
	    T_DISPATCH(FZ_SIG_OWN, FZ_K_NORMAL, 20));
	/* 2-D grid of 3 x 2 workgroups of one item, on the kernel nobody observes. */
	PUT(s, FZ_OP_PUB, 1, T0(0, 0, FZ_SIG_OWN, 0), FZ_K_NOCB | (1 << 3), 2, 1 | (1 << 3));
	PUT(s, FZ_OP_ADVANCE, 200);
	PUT(s, FZ_OP_RUN_IDLE, 255);
}

/* Barrier-AND, -OR and BARRIER_VALUE on shared signals, released by signal operations. */
static void seed_barriers(struct seed *s)
{
	/* Shared signals start at 0, 1, 0, 1. AND on signals 1 and 3; OR on signal 0. */
	PUT(s, FZ_CFG(1, 0, 0, 2), FZ_QUEUE(9, 3));
	PUT(s, FZ_OP_PUB, 2 << 2, T0(1, 0, FZ_SIG_OWN, 0),
	    DEPS(FZ_SIG_POOL0 + 1, 0, FZ_SIG_POOL0 + 3, 0, 0), T0(2, 0, FZ_SIG_OWN, 0),
	    DEPS(FZ_SIG_POOL0, 0, 0, 0, 0), T_DISPATCH(FZ_SIG_OWN, FZ_K_SHORT, 2));
	PUT(s, FZ_OP_ADVANCE, 40);
	PUT(s, FZ_OP_SIGNAL, 1 | (0 << 2), 0);
	PUT(s, FZ_OP_SIGNAL, 3 | (0 << 2), 0);
	PUT(s, FZ_OP_ADVANCE, 40);
	/* BARRIER_VALUE with the barrier bit: signal 2 >= 5, then add 7 to it. */
	PUT(s, FZ_OP_PUB, 0, T0(3, 1, FZ_SIG_OWN, 0), (FZ_SIG_POOL0 + 2) | (3 << 3), 5, 0);
	PUT(s, FZ_OP_ADVANCE, 40);
	PUT(s, FZ_OP_SIGNAL, 2 | (1 << 2), 7);
	PUT(s, FZ_OP_ADVANCE, 100);
}

/* A zero grid on one queue, a reserved packet type on another after good work. */
static void seed_malformed(struct seed *s)
{
	/* Dispatch, system scopes, 1 dimension, workgroup 64x1x1, grid 0x1x1. */
	uint8_t zero_grid[64] = { [0] = 2, [1] = 4 | 16, [2] = 1, [4] = 64, [6] = 1, [8] = 1,
				  [16] = 1, [20] = 1 };
	uint8_t reserved[64] = { [0] = 0x21 };

	PUT(s, FZ_CFG(2, 0, 0, 3), FZ_QUEUE(7, 2), FZ_QUEUE(7, 2));
	PUT(s, FZ_OP_RAW, 0 | 4, FZ_FIX_KERNEL | FZ_FIX_OWN_CS);
	put_bytes(s, zero_grid, sizeof(zero_grid));
	PUT(s, FZ_OP_PUB, 1, T_DISPATCH(FZ_SIG_OWN, FZ_K_WIDE, 4));
	PUT(s, FZ_OP_RAW, 1 | 4, 0);
	put_bytes(s, reserved, sizeof(reserved));
	PUT(s, FZ_OP_ADVANCE, 200);
}

/* An unknown kernel object, a dead dependency, a bad barrier-value condition. */
static void seed_bad_handles(struct seed *s)
{
	PUT(s, FZ_CFG(3, 0, 0, 4), FZ_QUEUE(3, 1), FZ_QUEUE(8, 1), FZ_QUEUE(14, 1));
	PUT(s, FZ_OP_PUB, 0, T_DISPATCH(FZ_SIG_OWN, FZ_K_DEAD, 1));
	PUT(s, FZ_OP_PUB, 1, T0(1, 0, FZ_SIG_NONE, 0), DEPS(FZ_SIG_DEAD, 0, 0, 0, 0));
	PUT(s, FZ_OP_PUB, 2, T0(3, 0, FZ_SIG_OWN, 0), FZ_SIG_POOL0 | (6 << 3), 0, 0);
	PUT(s, FZ_OP_ADVANCE, 80);
	/* A new queue in the failed one's place: 2-D, 2^32 - 1 one-item workgroups by 2 rows. */
	PUT(s, FZ_OP_DESTROY, 0);
	PUT(s, FZ_OP_CREATE, 5 | (1 << 5));
	PUT(s, FZ_OP_PUB, 0, T0(0, 0, FZ_SIG_OWN, 0), FZ_K_SHORT | (1 << 3), 255, 1 | (1 << 3));
	PUT(s, FZ_OP_PUB, 0, T_DISPATCH(FZ_SIG_OWN, FZ_K_SHORT, 1));
	PUT(s, FZ_OP_ADVANCE, 60);
}

/* A producer overrunning a 4-packet ring; a write index legitimately a ring ahead. */
static void seed_overrun(struct seed *s)
{
	PUT(s, FZ_CFG(2, 0, 0, 5), FZ_QUEUE(7, 0), FZ_QUEUE(7, 0));
	PUT(s, FZ_OP_RESERVE, 0 | (7 << 2));
	PUT(s, FZ_OP_FILL, 0 | 4, 0, T_DISPATCH(FZ_SIG_OWN, FZ_K_SHORT, 1));
	PUT(s, FZ_OP_FILL, 0 | 4, 5, T_DISPATCH(FZ_SIG_OWN, FZ_K_SHORT, 1));
	PUT(s, FZ_OP_PUB, 1 | (1 << 2) | (1 << 4), T_DISPATCH(0, FZ_K_SHORT, 1),
	    T_DISPATCH(FZ_SIG_OWN, FZ_K_SHORT, 1));
	PUT(s, FZ_OP_DOORBELL, 1, 64);
	PUT(s, FZ_OP_RESERVE, 1 | (7 << 2));
	PUT(s, FZ_OP_ADVANCE, 100);
}

/* Suspend, resume, updates, CU masks, destroy and create while kernels run. */
static void seed_control_calls(struct seed *s)
{
	PUT(s, FZ_CFG(2, 0, 0, 6), FZ_QUEUE(5, 2), FZ_QUEUE(11, 2));
	PUT(s, FZ_OP_PUB, 0 | (1 << 2), T_DISPATCH(FZ_SIG_OWN, FZ_K_NORMAL, 40),
	    T_DISPATCH(FZ_SIG_OWN, FZ_K_UNIFORM, 10));
	PUT(s, FZ_OP_PUB, 1, T_DISPATCH(FZ_SIG_OWN, FZ_K_WIDE, 64));
	PUT(s, FZ_OP_ADVANCE, 30);
	PUT(s, FZ_OP_SUSPEND, 1 | (3 << 3));
	PUT(s, FZ_OP_ADVANCE, 30);
	PUT(s, FZ_OP_RESUME, 3);
	PUT(s, FZ_OP_RESUME, 1);
	PUT(s, FZ_OP_UPDATE, 1, 15 | (1 << 5));
	PUT(s, FZ_OP_CU_MASK, 0, 0, 0x0f, 0, 0, 0);
	PUT(s, FZ_OP_UPDATE, 0, 6);
	PUT(s, FZ_OP_ADVANCE, 50);
	PUT(s, FZ_OP_UPDATE, 0 | (2 << 2) | (1 << 4), 9 | (1 << 5));
	PUT(s, FZ_OP_PUB, 0, T_DISPATCH(FZ_SIG_OWN, FZ_K_SHORT, 2));
	PUT(s, FZ_OP_DESTROY, 1);
	PUT(s, FZ_OP_CREATE, 13 | (2 << 5));
	PUT(s, FZ_OP_PUB, 1, T_DISPATCH(FZ_SIG_OWN, FZ_K_SHORT, 2));
	PUT(s, FZ_OP_ADVANCE, 100);
}

/* CWSR off and no HWS: preemptions drain instead of saving. */
static void seed_policies(struct seed *s)
{
	PUT(s, FZ_CFG(2, 1, 2, 7), FZ_QUEUE(15, 2), FZ_QUEUE(0, 2));
	PUT(s, FZ_OP_PUB, 0 | (1 << 2), T_DISPATCH(FZ_SIG_OWN, FZ_K_WIDE, 64),
	    T_DISPATCH(FZ_SIG_OWN, FZ_K_SHORT, 64));
	PUT(s, FZ_OP_PUB, 1, T_DISPATCH(FZ_SIG_OWN, FZ_K_SHORT, 64));
	PUT(s, FZ_OP_ADVANCE, 10);
	PUT(s, FZ_OP_SUSPEND, 2 | (1 << 3));
	PUT(s, FZ_OP_ADVANCE, 60);
	PUT(s, FZ_OP_RESUME, 2);
	PUT(s, FZ_OP_RUN_IDLE, 200);
}

/* The tight timing file: 4 queues on 2 HQD slots, 40 us time slices, CWSR. */
static void seed_oversubscribed(struct seed *s)
{
	PUT(s, FZ_CFG(3, 0, 3, 0), FZ_QUEUE(3, 2), FZ_QUEUE(8, 2), FZ_QUEUE(12, 2));
	PUT(s, FZ_OP_PUB, 0 | (2 << 2), T_DISPATCH(FZ_SIG_OWN, FZ_K_WIDE, 64),
	    T_DISPATCH(FZ_SIG_OWN, FZ_K_SHORT, 64), T_DISPATCH(FZ_SIG_OWN, FZ_K_UNIFORM, 16));
	PUT(s, FZ_OP_PUB, 1, T_DISPATCH(FZ_SIG_OWN, FZ_K_NORMAL, 64));
	PUT(s, FZ_OP_PUB, 2, T_DISPATCH(FZ_SIG_OWN, FZ_K_WIDE, 64));
	PUT(s, FZ_OP_ADVANCE, 255);
	PUT(s, FZ_OP_ADVANCE, 255);
}

/* Host waits (one signal, any of four) and async handlers that ring a doorbell. */
static void seed_waits(struct seed *s)
{
	PUT(s, FZ_CFG(1, 0, 0, 1), FZ_QUEUE(7, 2));
	/* On signal 1 reaching 0: ring queue slot 0's doorbell; then one that tries to block. */
	PUT(s, FZ_OP_HANDLER, 1 | (0 << 2) | (2 << 4) | (0 << 6), 0);
	PUT(s, FZ_OP_HANDLER, 3 | (0 << 2) | (3 << 4), 0);
	PUT(s, FZ_OP_PUB, 0 | (1 << 4), T_DISPATCH(FZ_SIG_OWN, FZ_K_SHORT, 4));
	PUT(s, FZ_OP_WAIT, 1 | (0 << 2), 50);
	PUT(s, FZ_OP_SIGNAL, 1 | (0 << 2), 0);
	PUT(s, FZ_OP_WAIT, 2 | (1 << 2), 100);
	PUT(s, FZ_OP_SIGNAL, 3 | (0 << 2), 0);
	PUT(s, FZ_OP_WAIT, 0x10 | (3 << 2) | (5 << 5), 30);
}

static const struct {
	const char *name;
	void (*build)(struct seed *s);
} seeds[] = {
	{ "dispatches", seed_dispatches },   { "barriers", seed_barriers },
	{ "malformed", seed_malformed },     { "bad-handles", seed_bad_handles },
	{ "overrun", seed_overrun },         { "control-calls", seed_control_calls },
	{ "policies", seed_policies },       { "oversubscribed", seed_oversubscribed },
	{ "waits", seed_waits },
};

static int write_seeds(const char *dir)
{
	char path[4096];

	if (mkdir(dir, 0755) && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct seed s = { .n = 0 };

		seeds[i].build(&s);
		snprintf(path, sizeof(path), "%s/seed-%s", dir, seeds[i].name);
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(s.b, 1, s.n, f) != s.n || fclose(f)) {
			perror(path);
			return 1;
		}
		printf("%s: %zu bytes\n", path, s.n);
	}
	return 0;
}

/* ------------------------------------------------------------------------------------
 * Replay.
 */
static int replay_file(const char *path, unsigned int *count)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		perror(path);
		return 1;
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *b = realloc(buf, cap);
			if (!b) {
				free(buf);
				fclose(f);
				return 1;
			}
			buf = b;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);

	struct fz_stats st;
	fz_last_stats(&st);
	printf("%s: %zu bytes, %u ops, %u queue errors, %llu workgroup callbacks, %llu ns of model "
	       "time\n", path, n, st.ops, st.errors, (unsigned long long)st.callbacks,
	       (unsigned long long)st.model_ns);
	(*count)++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path, unsigned int *count)
{
	struct stat st;

	if (stat(path, &st)) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path, count);

	/* Sorted, so a run's output is the same on every machine. */
	DIR *d = opendir(path);
	char **names = NULL;
	size_t n = 0;
	int rc = 0;
	struct dirent *e;

	if (!d) {
		perror(path);
		return 1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char **nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n] = malloc(strlen(path) + strlen(e->d_name) + 2);
		if (!names[n])
			break;
		sprintf(names[n], "%s/%s", path, e->d_name);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		rc |= replay_file(names[i], count);
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned int count = 0;
	int rc = 0;

	if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
		return write_seeds(argv[2]);
	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH... | --write-seeds DIR\n", argv[0]);
		return 1;
	}
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		rc |= replay_path(argv[i], &count);
	printf("%u inputs replayed\n", count);
	return rc || !count;
}
