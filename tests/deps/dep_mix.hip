// SPDX-License-Identifier: MIT
//
// A seeded random mix of the dependency patterns (issue 24), many rounds in one process: the
// hsaqm state one pattern leaves behind (a queue held, inherited, bounded) meets the next.
//
//   dep_mix [SEED [ROUNDS]]   SEED also from $DEPS_SEED (default: the clock), ROUNDS default 100
//
// Each round draws a pattern (busy-first, backlog-first, chain3, low-waits-high, copy32,
// memset64, host: cases_event.h, cases_value.h) and 1-4 low kernels before the awaited event
// or write. The seed is printed first and in every failure and watchdog line, so a failing mix
// is replayed with `dep_mix SEED`. Prints "mix PATTERN rounds N median-us M" per pattern (model
// µs, the high stream's latency) and "lat mix US" for each round's high-stream latency.
// Run with GPU_STREAMOPS_CP_WAIT=1 (cases_value.h).
#include "cases_event.h"
#include "cases_value.h"

#include <algorithm>
#include <vector>

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		double (*run)(int);
	} pats[] = {
		{ "busy-first", case_busy_first },
		{ "backlog-first", case_backlog_first },
		{ "chain3", case_chain3 },
		{ "low-waits-high", case_low_waits_high },
		{ "copy32", case_copy32 },
		{ "memset64", case_memset64 },
		{ "host", case_host },
	};
	const size_t npat = sizeof pats / sizeof pats[0];
	const char *env = getenv("DEPS_SEED");
	unsigned long seed = argc > 1 ? strtoul(argv[1], 0, 0)
			     : env && *env ? strtoul(env, 0, 0)
					   : (unsigned long)time(0);
	int rounds = argc > 2 ? atoi(argv[2]) : 100;
	std::vector<double> lat[sizeof pats / sizeof pats[0]];
	// The host pattern's value only grows (>=): its own counter across rounds.
	int host_rep = 0;

	printf("note seed %lu rounds %d (replay: dep_mix %lu %d)\n", seed, rounds, seed, rounds);
	if (rounds < 1) {
		printf("usage: dep_mix [SEED [ROUNDS]]\n");
		return 2;
	}
	srand48((long)seed);
	dep_watchdog_start();
	dep_streams_create(&d);
	for (int r = 0; r < rounds && !dep_failures; r++) {
		size_t p = (size_t)(lrand48() % (long)npat);

		dep_nlow = 1 + (int)(lrand48() % 4);
		// Said before the round: the watchdog and any FAIL line follow it.
		printf("round %d seed %lu pattern %s nlow %d\n", r, seed, pats[p].name, dep_nlow);
		snprintf(dep_tag, sizeof dep_tag, "seed %lu round %d: ", seed, r);
		double us = pats[p].run(p == npat - 1 ? host_rep++ : r);

		lat[p].push_back(us);
		printf("lat mix %.0f\n", us);
	}
	if (dep_failures)
		printf("FAIL: seed %lu: replay with dep_mix %lu %d\n", seed, seed, rounds);
	for (size_t p = 0; p < npat; p++) {
		if (lat[p].empty())
			continue;
		std::sort(lat[p].begin(), lat[p].end());
		printf("mix %s rounds %zu median-us %.0f\n", pats[p].name, lat[p].size(),
		       lat[p][lat[p].size() / 2]);
	}
	dep_rounds_end();
	dep_set_what("mix seed %lu: hipDeviceSynchronize at the end", seed);
	CHECK(hipDeviceSynchronize());
	dep_streams_destroy(&d);
	return dep_finish();
}
