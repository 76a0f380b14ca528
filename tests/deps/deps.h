// SPDX-License-Identifier: MIT
//
// Shared by the dependency conformance programs (tests/deps/*.hip, issue 24): the kernels the
// emulation's table times, the checks, a watchdog that names the wait in progress, and the
// measurement lines tests/deps/run.sh reads.
//
// Kernels do not compute on the model (sim/kfdemu/): each takes the per-workgroup model time
// the table in HSAQM_KFDEMU_KERNELS gives its name (run.sh: hsaqm_dep_low 200 us, hsaqm_dep_normal
// 100 us, hsaqm_dep_high 20 us, hsaqm_dep_busy 1 ms). Copies and memsets do move bytes.
//
// Output lines (one per measurement): "lat CASE US" the high stream's latency of a case in model
// µs (HIP events: ROCr's profiling timestamps, which the emulation writes in model ns),
// "note TEXT", then "PASS" or "FAIL: ..." (exit 1). The watchdog prints "FAIL: watchdog: ..."
// with the wait in progress and exits 3.
#ifndef HSAQM_TESTS_DEPS_H
#define HSAQM_TESTS_DEPS_H

#include <hip/hip_runtime.h>

#include <initializer_list>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEP_LOW_WG 1280 // 256 work-items = 4 waves: 640 fit on 80 CUs, so 2 rounds = 400 us
#define DEP_NORMAL_WG 640
#define DEP_HIGH_WG 4
#define DEP_BUSY_WG 4

// The kernels the emulation's table times by name (run.sh); given memory, each writes its mark.
#define DEP_KERNEL(name, mark)                     \
	extern "C" __global__ void name(int *p)    \
	{                                          \
		if (p)                             \
			p[threadIdx.x] = mark;     \
	}

DEP_KERNEL(hsaqm_dep_low, 1)
DEP_KERNEL(hsaqm_dep_normal, 2)
DEP_KERNEL(hsaqm_dep_high, 3)
DEP_KERNEL(hsaqm_dep_busy, 4)

#define CHECK(call)                                                                        \
	do {                                                                               \
		hipError_t e_ = (call);                                                    \
		if (e_ != hipSuccess) {                                                    \
			printf("FAIL: %s: %s (during: %s)\n", #call, hipGetErrorString(e_), \
			       dep_what);                                                  \
			fflush(stdout);                                                    \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

// What the program waits for now: the watchdog prints it. Written before each wait, read from
// the signal handler (a plain buffer: the handler only write()s it).
static char dep_what[512] = "starting";
static char dep_tag[128]; // said before dep_what (dep_mix.hip: its seed and round)
static int dep_failures;

static void dep_set_what(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void dep_set_what(const char *fmt, ...)
{
	char tmp[sizeof dep_what];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	memcpy(dep_what, tmp, sizeof tmp);
}

static void dep_watchdog_fire(int sig)
{
	static const char a[] = "FAIL: watchdog: no completion within the deadline; waiting for: ";
	ssize_t r;

	(void)sig;
	r = write(1, a, sizeof a - 1);
	r = write(1, dep_tag, strnlen(dep_tag, sizeof dep_tag));
	r = write(1, dep_what, strnlen(dep_what, sizeof dep_what));
	r = write(1, "\n", 1);
	(void)r;
	_exit(3);
}

static unsigned int dep_watchdog_secs;

// The deadline: DEPS_WATCHDOG_S seconds (default 25), far above any case's native time (a
// few ms of model time plus the runtime's start-up).
static void dep_watchdog_start(void)
{
	const char *s = getenv("DEPS_WATCHDOG_S");

	dep_watchdog_secs = s && atoi(s) > 0 ? (unsigned int)atoi(s) : 25;
	// Line-buffered: what was printed before the watchdog's _exit() is in the log.
	setvbuf(stdout, 0, _IOLBF, 0);
	signal(SIGALRM, dep_watchdog_fire);
	alarm(dep_watchdog_secs);
	printf("note watchdog %u s\n", dep_watchdog_secs);
}

// Beside another process (run.sh's xproc cells), the harness keeps that process busy during
// the rounds only, which is what the cells measure (the warm-up and the final
// hipDeviceSynchronize run without it: run.sh, xproc_try). dep_rounds_begin() says the warm-up
// is done and, with $DEPS_GO_FILE, waits for that file (the other process then runs) before the
// deadline starts again; dep_rounds_end() says the rounds are done (the harness stops it).
static void dep_rounds_begin(void)
{
	const char *go = getenv("DEPS_GO_FILE");

	printf("note warmed up\n");
	if (!go || !*go)
		return;
	dep_set_what("the harness's go file %s (the other process did not start)", go);
	while (access(go, F_OK) != 0)
		usleep(1000);
	alarm(dep_watchdog_secs);
	printf("note go\n");
}

static void dep_rounds_end(void)
{
	printf("note rounds done\n");
}

static void dep_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void dep_fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	dep_failures++;
}

static void dep_launch(const char *which, hipStream_t s, int n)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(which, "low"))
			hipLaunchKernelGGL(hsaqm_dep_low, dim3(DEP_LOW_WG), dim3(256), 0, s, (int *)0);
		else if (!strcmp(which, "normal"))
			hipLaunchKernelGGL(hsaqm_dep_normal, dim3(DEP_NORMAL_WG), dim3(256), 0, s,
					   (int *)0);
		else if (!strcmp(which, "high"))
			hipLaunchKernelGGL(hsaqm_dep_high, dim3(DEP_HIGH_WG), dim3(64), 0, s, (int *)0);
		else
			hipLaunchKernelGGL(hsaqm_dep_busy, dim3(DEP_BUSY_WG), dim3(64), 0, s, (int *)0);
	}
	CHECK(hipGetLastError());
}

static hipEvent_t dep_event(void)
{
	hipEvent_t e;

	CHECK(hipEventCreate(&e));
	return e;
}

static hipEvent_t dep_event_sync_only(void)
{
	hipEvent_t e;

	CHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming));
	return e;
}

// Model µs between two completed events.
static double dep_us(hipEvent_t a, hipEvent_t b)
{
	float ms = 0;

	CHECK(hipEventElapsedTime(&ms, a, b));
	return ms * 1000.0;
}

// Destroys each event a case made.
static void dep_events_destroy(std::initializer_list<hipEvent_t> evs)
{
	for (hipEvent_t ev : evs)
		CHECK(hipEventDestroy(ev));
}

struct dep_streams {
	int least, greatest, normal_prio; // normal_prio == least when the range has no middle
	hipStream_t low, normal, high;
};

// Low kernels before the awaited event or write (dep_mix.hip varies it).
static int dep_nlow = 6;
static struct dep_streams d;

static void dep_streams_create(struct dep_streams *d)
{
	CHECK(hipDeviceGetStreamPriorityRange(&d->least, &d->greatest));
	d->normal_prio = (d->least + d->greatest) / 2;
	printf("note stream priorities: least %d greatest %d, normal %d\n", d->least, d->greatest,
	       d->normal_prio);
	CHECK(hipStreamCreateWithPriority(&d->low, hipStreamNonBlocking, d->least));
	CHECK(hipStreamCreateWithPriority(&d->normal, hipStreamNonBlocking, d->normal_prio));
	CHECK(hipStreamCreateWithPriority(&d->high, hipStreamNonBlocking, d->greatest));
	// Each stream's queue made and used once before anything is measured: the first dispatch
	// of a queue costs its creation (and under hsaqm its proxy), which no case is about.
	dep_set_what("warm-up: one kernel on each of the low, normal and high streams");
	dep_launch("high", d->low, 1);
	dep_launch("high", d->normal, 1);
	dep_launch("high", d->high, 1);
	CHECK(hipDeviceSynchronize());
	dep_rounds_begin();
}

static void dep_streams_destroy(struct dep_streams *d)
{
	CHECK(hipStreamDestroy(d->low));
	CHECK(hipStreamDestroy(d->normal));
	CHECK(hipStreamDestroy(d->high));
}

static int dep_finish(void)
{
	fflush(stdout);
	alarm(0);
	if (dep_failures) {
		printf("FAIL: %d check(s) failed\n", dep_failures);
		return 1;
	}
	printf("PASS\n");
	return 0;
}

#endif
