// SPDX-License-Identifier: MIT
//
// A hipGraph with cross-stream edges (issue 24): captured from the high stream, forked to the low
// stream by an event (dep_nlow low kernels there) and joined back by another, then launched on
// the high stream REPS times (default 5).
//
//   dep_graph [REPS]
//
// Prints "lat graph US" per launch: model µs from an event before hipGraphLaunch to one after,
// both on the high stream. The graph's low branch is 4 kernels of 400 us: a launch cannot take
// less than 1.6 ms of model time (checked with a 10 % allowance, a lower bound more time only
// loosens).
#include "deps.h"

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	hipGraph_t graph;
	hipGraphExec_t exec;
	hipEvent_t fork = dep_event_sync_only(), join = dep_event_sync_only();

	if (reps < 1) {
		printf("usage: dep_graph [REPS]\n");
		return 2;
	}
	dep_nlow = 4;
	dep_watchdog_start();
	dep_streams_create(&d);
	dep_set_what("graph: capturing across the high and the low stream");
	CHECK(hipStreamBeginCapture(d.high, hipStreamCaptureModeGlobal));
	CHECK(hipEventRecord(fork, d.high));
	CHECK(hipStreamWaitEvent(d.low, fork, 0));
	dep_launch("low", d.low, dep_nlow);
	CHECK(hipEventRecord(join, d.low));
	dep_launch("high", d.high, 1);
	CHECK(hipStreamWaitEvent(d.high, join, 0));
	dep_launch("high", d.high, 1);
	CHECK(hipStreamEndCapture(d.high, &graph));
	size_t nodes = 0;

	CHECK(hipGraphGetNodes(graph, 0, &nodes));
	printf("note graph: %zu nodes captured\n", nodes);
	CHECK(hipGraphInstantiate(&exec, graph, 0, 0, 0));
	for (int r = 0; r < reps && !dep_failures; r++) {
		hipEvent_t s = dep_event(), e = dep_event();

		CHECK(hipEventRecord(s, d.high));
		CHECK(hipGraphLaunch(exec, d.high));
		CHECK(hipEventRecord(e, d.high));
		dep_set_what("graph launch %d on the HIGH stream: its last kernel waits (join event) on "
			     "the branch of %d low kernels captured from the LOW stream", r, dep_nlow);
		CHECK(hipEventSynchronize(e));
		double us = dep_us(s, e);

		printf("lat graph %.0f\n", us);
		if (us < 0.9 * dep_nlow * 400)
			dep_fail("graph launch %d took %.0f us of model time, less than its low branch's "
				 "%d kernels of 400 us", r, us, dep_nlow);
		CHECK(hipEventDestroy(s));
		CHECK(hipEventDestroy(e));
	}
	dep_rounds_end();
	dep_set_what("graph: hipDeviceSynchronize at the end");
	CHECK(hipDeviceSynchronize());
	CHECK(hipGraphExecDestroy(exec));
	CHECK(hipGraphDestroy(graph));
	dep_streams_destroy(&d);
	return dep_finish();
}
