// SPDX-License-Identifier: MIT
//
// hipStreamWaitEvent on another process's event (issue 24): hipIpcGetEventHandle in a low
// process, hipIpcOpenEventHandle in a high one.
//
//   dep_ipc low DIR    records an interprocess event on its low stream behind 30 low kernels
//                      (12 ms of model time), writes the handle to DIR/handle, polls the event
//                      (1 ms) and writes to DIR/low the last CLOCK_MONOTONIC time it saw the
//                      event not yet complete, then waits for DIR/done
//   dep_ipc high DIR   waits for DIR/handle, opens it, makes its high stream wait on it, runs a
//                      kernel, polls it (1 ms) to the first time it is seen complete, prints
//                      "lat ipc US" (model µs on its own stream), writes DIR/done, then checks
//                      against DIR/low that its kernel completed after a moment at which the
//                      low process's event had not (the wait was honoured; the clock is the
//                      host's, shared by both)
//
// Both print their steps: "note ipc ..." lines say which call got how far, so an unsupported
// path shows where it stops. Each has the watchdog.
#include "deps.h"

#include <errno.h>
#include <fcntl.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Polls ev every ms: the last time it was seen incomplete (last_not) and the first time it was
// seen complete (the return value), or -1 when it was not complete within limit seconds.
static double poll_event(hipEvent_t ev, double *last_not, double limit)
{
	double t0 = now_s();
	hipError_t q;

	*last_not = 0;
	for (;;) {
		double t = now_s();

		q = hipEventQuery(ev);
		if (q == hipSuccess)
			return t;
		if (q != hipErrorNotReady)
			CHECK(q);
		if (t - t0 > limit)
			return -1;
		*last_not = t;
		usleep(1000);
	}
}

static void wait_file(const char *path, const char *who)
{
	dep_set_what("ipc %s: waiting for %s from the other process", who, path);
	while (access(path, F_OK) != 0)
		usleep(2000);
}

static void write_file(const char *dir, const char *name, const void *buf, size_t n)
{
	char tmp[4096], path[4096];

	snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, name);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(tmp, "wb");

	if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0 || rename(tmp, path) != 0) {
		printf("FAIL: cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

// HIP keeps an interprocess event in POSIX shared memory named in its handle (hip_event.hpp's
// ihipIpcEventShmem_t: owners, owners_device_id, owners_process_id, read_index, write_index,
// then 32 uint32 slots a record sets to 1 and the device's stream write sets back to 0). Its
// state says whether a record reached it: printed, so a case that cannot work says why.
static void print_shm(const char *who, const hipIpcEventHandle_t *h)
{
	char name[sizeof h->reserved + 16];
	int v[6] = { 0, 0, 0, 0, 0, 0 };

	snprintf(name, sizeof name, "/dev/shm/%.*s", (int)sizeof h->reserved, h->reserved);
	FILE *f = fopen(name, "rb");

	if (!f) {
		printf("note ipc %s: cannot open %s: %s\n", who, name, strerror(errno));
		return;
	}
	size_t n = fread(v, sizeof v[0], 6, f);

	fclose(f);
	printf("note ipc %s: %s (%zu ints): read_index %d write_index %d slot[0] %d\n", who, name,
	       n, v[3], v[4], v[5]);
}

static int run_low(const char *dir)
{
	hipEvent_t ev;
	hipIpcEventHandle_t h;
	char done[4096];

	CHECK(hipEventCreateWithFlags(&ev, hipEventInterprocess | hipEventDisableTiming));
	printf("note ipc low: hipEventCreateWithFlags(hipEventInterprocess) ok\n");
	CHECK(hipIpcGetEventHandle(&h, ev));
	printf("note ipc low: hipIpcGetEventHandle ok\n");
	dep_launch("low", d.low, dep_nlow);
	CHECK(hipEventRecord(ev, d.low));
	printf("note ipc low: event recorded on the low stream behind %d low kernels\n", dep_nlow);
	print_shm("low after record", &h);
	fflush(stdout);
	write_file(dir, "handle", &h, sizeof h);
	dep_set_what("ipc low: the LOW stream's kernels and interprocess event");
	double last_not, first = poll_event(ev, &last_not, 5);
	char line[128];

	if (first < 0) {
		// 30 kernels of 400 us are long done: the slot was never written back to 0.
		bool idle = hipStreamQuery(d.low) == hipSuccess;

		printf("N/A: the interprocess event is still incomplete 5 s after it was recorded "
		       "behind 12 ms of kernels (low stream %s): the device never wrote its shared "
		       "slot back to 0 (HIP does that with a stream write-value, ROCclr's "
		       "__amd_rocclr_streamOpsWrite kernel, which the emulation does not perform)\n",
		       idle ? "idle" : "still busy");
		print_shm("low after 5 s", &h);
		last_not = -1;
	}
	int n = snprintf(line, sizeof line, "%.6f %.6f\n", last_not, first);

	printf("note ipc low: event last seen incomplete at %.6f, complete at %.6f (host s)\n",
	       last_not, first);
	print_shm("low when complete", &h);
	write_file(dir, "low", line, (size_t)n);
	snprintf(done, sizeof done, "%s/done", dir);
	wait_file(done, "low");
	if (first < 0) {
		// The runtime would wait for the event at exit (hipEventDestroy, the device's
		// synchronisation) and never return: the case is reported, the process ends here.
		fflush(stdout);
		_exit(0);
	}
	dep_set_what("ipc low: hipDeviceSynchronize after the event completed");
	CHECK(hipDeviceSynchronize());
	CHECK(hipEventDestroy(ev));
	return 0;
}

static int run_high(const char *dir)
{
	hipEvent_t ev, s = dep_event(), e = dep_event();
	hipIpcEventHandle_t h;
	char path[4096];

	snprintf(path, sizeof path, "%s/handle", dir);
	wait_file(path, "high");
	FILE *f = fopen(path, "rb");

	if (!f || fread(&h, 1, sizeof h, f) != sizeof h) {
		printf("FAIL: cannot read %s\n", path);
		return 1;
	}
	fclose(f);
	CHECK(hipIpcOpenEventHandle(&ev, h));
	printf("note ipc high: hipIpcOpenEventHandle ok\n");
	CHECK(hipEventRecord(s, d.high));
	CHECK(hipStreamWaitEvent(d.high, ev, 0));
	dep_launch("high", d.high, 1);
	CHECK(hipEventRecord(e, d.high));
	dep_set_what("ipc high: the HIGH stream waits on the LOW process's interprocess event, "
		     "recorded behind %d low kernels there", dep_nlow);
	double last_not, first = poll_event(e, &last_not, 12), low_not = -1, low_done = -1;

	if (first >= 0) {
		printf("lat ipc %.0f\n", dep_us(s, e));
		printf("note ipc high: kernel first seen complete at %.6f (host s)\n", first);
	} else {
		printf("note ipc high: the high stream's kernel did not complete within 12 s\n");
	}
	write_file(dir, "done", "1", 1);
	snprintf(path, sizeof path, "%s/low", dir);
	wait_file(path, "high");
	f = fopen(path, "r");
	if (!f || fscanf(f, "%lf %lf", &low_not, &low_done) != 2) {
		printf("FAIL: cannot read %s\n", path);
		return 1;
	}
	fclose(f);
	if (low_not < 0) {
		printf("N/A: the low process's interprocess event never completed (its output says "
		       "why); this process's wait on it %s\n",
		       first >= 0 ? "did not hold its stream: the wait was not honoured either"
				  : "held its stream");
		fflush(stdout);
		_exit(0);
	} else if (low_not == 0) {
		// The event was complete at its first query, 30 kernels (12 ms) before they ran:
		// the record never reached the shared slot, so no wait can be tested.
		printf("N/A: the low process's interprocess event was complete at its first query, "
		       "before its 30 kernels ran (see its shared-memory state): this runtime's "
		       "record does not reach the event's shared slot here\n");
	} else if (first < 0) {
		dep_fail("ipc: the high process's kernel did not complete within 12 s, though the low "
			 "process's event completed at %.6f", low_done);
	} else if (first < low_not)
		dep_fail("ipc: the high process's kernel completed (%.6f) while the low process's "
			 "event was still incomplete (%.6f): the wait was not honoured", first, low_not);
	dep_set_what("ipc high: hipEventDestroy of the opened interprocess event");
	CHECK(hipEventDestroy(ev));
	return 0;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc != 3 || (strcmp(argv[1], "low") && strcmp(argv[1], "high"))) {
		printf("usage: dep_ipc low|high DIR\n");
		return 2;
	}
	dep_nlow = 30;
	dep_watchdog_start();
	dep_streams_create(&d);
	rc = !strcmp(argv[1], "low") ? run_low(argv[2]) : run_high(argv[2]);
	if (rc)
		return rc;
	dep_rounds_end();
	dep_set_what("ipc %s: hipDeviceSynchronize at the end", argv[1]);
	CHECK(hipDeviceSynchronize());
	dep_streams_destroy(&d);
	return dep_finish();
}
