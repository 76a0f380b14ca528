// SPDX-License-Identifier: MIT
//
// hipStreamWaitValue32/64 (issue 24): the high stream waits on memory, which hsaqm cannot tie
// to a queue's completion signal.
//
//   dep_value CASE [REPS]
//   copy32    the low stream's device-to-device hipMemcpyAsync (behind 6 low kernels) writes the
//             32-bit value the high stream waits for (hipStreamWaitValueEq)
//   memset64  the same with the low stream's hipMemsetAsync and hipStreamWaitValue64
//   host      the high stream waits (hipStreamWaitValueGte) on memory the host writes
//             only once the low stream's 6 kernels, queued after the wait, have completed (or
//             8 s have passed): the low stream must make progress while the high one waits on
//             something only the host can end (the bound's path)
//
// Prints "lat CASE US" per repetition (model µs from the high stream's first event to its last)
// and checks the wait was honoured: the high stream's kernel does not complete before the low
// stream reached the copy or memset (its event just before it; the one just after may come
// later, when a scheduler holds the low queue again), nor before the host wrote its value; and
// the bytes are the ones written (copies and memsets really move bytes here).
// Run with GPU_STREAMOPS_CP_WAIT=1 (cases_value.h says why); the memory waited on is an HSA
// signal's value (hipMallocSignalMemory).
#include "cases_value.h"

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		double (*run)(int);
	} cases[] = {
		{ "copy32", case_copy32 },
		{ "memset64", case_memset64 },
		{ "host", case_host },
	};
	const char *name = argc > 1 ? argv[1] : "";
	int reps = argc > 2 ? atoi(argv[2]) : 3;
	double (*run)(int) = 0;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (!strcmp(name, cases[i].name))
			run = cases[i].run;
	if (!run || reps < 1) {
		printf("usage: dep_value copy32|memset64|host [REPS]\n");
		return 2;
	}
	dep_watchdog_start();
	dep_streams_create(&d);
	for (int r = 0; r < reps && !dep_failures; r++)
		printf("lat %s %.0f\n", name, run(r));
	dep_rounds_end();
	dep_set_what("%s: hipDeviceSynchronize at the end", name);
	CHECK(hipDeviceSynchronize());
	dep_streams_destroy(&d);
	return dep_finish();
}
