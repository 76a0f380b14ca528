// SPDX-License-Identifier: MIT
//
// hipStreamWaitEvent between streams of different priority (issue 24): the waiting stream's
// queue head is an AQL barrier-AND on the other queue's completion signal.
//
//   dep_event CASE [REPS]
//   busy-first      the high stream is busy (a 1 ms kernel) when it is told to wait on an event the
//                   low stream records behind 6 kernels (2.4 ms of model time)
//   backlog-first   the low stream's 6 kernels and event come first, then the high stream waits
//   chain3          high waits on normal, which waits on low (4 low, 2 normal kernels)
//   low-waits-high  the low stream waits on the high stream's event (nothing to inherit)
//
// Each case runs REPS times (default 3) and prints "lat CASE US": the high stream's latency in
// model µs, from its first event to its last; it also checks the order the wait promises (the
// waiting stream's next event is not before the awaited one).
#include "cases_event.h"

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		double (*run)(int);
	} cases[] = {
		{ "busy-first", case_busy_first },
		{ "backlog-first", case_backlog_first },
		{ "chain3", case_chain3 },
		{ "low-waits-high", case_low_waits_high },
	};
	const char *name = argc > 1 ? argv[1] : "";
	int reps = argc > 2 ? atoi(argv[2]) : 3;
	double (*run)(int) = 0;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (!strcmp(name, cases[i].name))
			run = cases[i].run;
	if (!run || reps < 1) {
		printf("usage: dep_event busy-first|backlog-first|chain3|low-waits-high [REPS]\n");
		return 2;
	}
	dep_watchdog_start();
	dep_streams_create(&d);
	if (!strcmp(name, "chain3") && d.normal_prio == d.least)
		printf("note chain3: this release's priority range has no middle: the normal stream "
		       "has the low priority\n");
	for (int r = 0; r < reps && !dep_failures; r++)
		printf("lat %s %.0f\n", name, run(r));
	dep_rounds_end();
	dep_set_what("%s: hipDeviceSynchronize at the end", name);
	CHECK(hipDeviceSynchronize());
	dep_streams_destroy(&d);
	return dep_finish();
}
