// SPDX-License-Identifier: MIT
//
// The middle process of run.sh's cross-process column (xproc): keeps the GPU busy with demand
// for SECONDS of wall time, as a HIP program through the same release and the same emulated
// /dev/kfd as the case beside it (so both are on one KFD device for hsaqmd; a client of another
// stack would be another gpu_id, and the daemon would never weigh one against the other).
//
//   dep_busy SECONDS [STOPFILE]
//
// One stream of default priority (under hsaqm-run -p 45 its queue is at 45: above the case's low
// stream, 40, below its normal and high ones, 50 and 60), hsaqm_dep_busy kernels (1 ms of model
// time each), at most 4 outstanding, so the queue always has work queued, until SECONDS have passed
// or STOPFILE exists (run.sh creates it once the case beside it ended). Prints "busy started"
// once its queue runs, then "busy stopped by STOPFILE" or "busy ran out its SECONDS", "busy
// kernels N" and PASS (FAIL and exit 3 past its watchdog, SECONDS + DEPS_WATCHDOG_S).
#include <time.h>
#include <unistd.h>

#include "deps.h"

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 0;
	const char *stop = argc > 2 ? argv[2] : 0;
	bool stopped = false;
	const char *w = getenv("DEPS_WATCHDOG_S");
	char buf[16];
	hipStream_t s;
	hipEvent_t ev[4];
	long n = 0;

	if (secs < 1) {
		printf("usage: dep_busy SECONDS\n");
		return 2;
	}
	snprintf(buf, sizeof buf, "%d", secs + (w && atoi(w) > 0 ? atoi(w) : 25));
	setenv("DEPS_WATCHDOG_S", buf, 1);
	dep_watchdog_start();
	CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
	for (int i = 0; i < 4; i++)
		ev[i] = dep_event_sync_only();
	dep_set_what("warm-up: one kernel on the busy stream");
	dep_launch("busy", s, 1);
	CHECK(hipStreamSynchronize(s));
	printf("busy started\n");
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	dep_set_what("busy: waiting for one of the 4 outstanding kernels");
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= secs)
			break;
		if (stop && access(stop, F_OK) == 0) {
			stopped = true;
			break;
		}
		if (n >= 4)
			CHECK(hipEventSynchronize(ev[n % 4]));
		dep_launch("busy", s, 1);
		CHECK(hipEventRecord(ev[n % 4], s));
		n++;
	}
	dep_set_what("busy: the last kernels");
	CHECK(hipStreamSynchronize(s));
	if (stopped)
		printf("busy stopped by %s\n", stop);
	else
		printf("busy ran out its %d s\n", secs);
	printf("busy kernels %ld\n", n);
	for (int i = 0; i < 4; i++)
		CHECK(hipEventDestroy(ev[i]));
	CHECK(hipStreamDestroy(s));
	return dep_finish();
}
