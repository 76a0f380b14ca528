// SPDX-License-Identifier: MIT
//
// hipStreamWaitValue32/64 (issue 24): the high stream waits on memory, which hsaqm cannot tie
// to a queue's completion signal.
//
//   dep_value CASE [REPS]
//   copy32    the low stream's device-to-device hipMemcpyAsync (behind 6 low kernels) writes the 32-bit value the
//             high stream waits for (hipStreamWaitValueEq)
//   memset64  the same with the low stream's hipMemsetAsync and hipStreamWaitValue64
//   host      the high stream waits (hipStreamWaitValueGte) on pinned memory the host writes
//             only once the low stream's 6 kernels, queued after the wait, have completed (or
//             8 s have passed): the low stream must make progress while the high one waits on
//             something only the host can end (the bound's path)
//
// Prints "lat CASE US" per repetition (model µs from the high stream's first event to its last)
// and checks the wait was honoured: the high stream's kernel does not complete before the
// write, and the bytes are the ones written (copies and memsets really move bytes here).
#include "deps.h"

#include <time.h>

static struct dep_streams d;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// ROCclr waits on memory in one of two ways: by default a kernel (__amd_rocclr_streamOpsWait)
// that spins on it, which the emulation does not perform (docs/real-stack.md, "Not
// performed"): the wait would end at once on the model. With GPU_STREAMOPS_CP_WAIT=1 the CP
// waits (an AMD BARRIER_VALUE packet, which the emulation's front honours) on memory that is an
// HSA signal's value: memory from hipExtMallocWithFlags(hipMallocSignalMemory), 8 bytes, zeroed.
static uint64_t *dep_signal_memory(void)
{
	void *p = 0;

	CHECK(hipExtMallocWithFlags(&p, sizeof(uint64_t), hipMallocSignalMemory));
	CHECK(hipMemset(p, 0, sizeof(uint64_t)));
	return (uint64_t *)p;
}

static double case_copy32(int rep)
{
	static uint32_t *flag, *src;
	uint32_t want = 0x5a000000u + rep + 1, got = 0;
	hipEvent_t s = dep_event(), ev_low = dep_event(), e = dep_event();

	if (!flag) {
		flag = (uint32_t *)dep_signal_memory();
		CHECK(hipMalloc((void **)&src, sizeof *src));
	}
	// The value goes to a device buffer first: a copy from host memory to the (host-resident)
	// signal memory may be done by the CPU inside hipMemcpyAsync, a device-to-device copy is
	// queued on the low stream behind its kernels (a blit kernel or an SDMA copy).
	CHECK(hipMemcpy(src, &want, sizeof want, hipMemcpyHostToDevice));
	dep_launch("low", d.low, 6);
	CHECK(hipMemcpyAsync(flag, src, sizeof *flag, hipMemcpyDeviceToDevice, d.low));
	CHECK(hipEventRecord(ev_low, d.low));
	CHECK(hipEventRecord(s, d.high));
	CHECK(hipStreamWaitValue32(d.high, flag, want, hipStreamWaitValueEq, 0xffffffffu));
	dep_launch("high", d.high, 1);
	CHECK(hipEventRecord(e, d.high));
	dep_set_what("copy32: the HIGH stream waits (hipStreamWaitValue32 == 0x%x) on signal memory "
		     "the LOW stream's hipMemcpyAsync writes behind 6 low kernels", want);
	CHECK(hipEventSynchronize(e));
	dep_set_what("copy32: the LOW stream's kernels and copy");
	CHECK(hipEventSynchronize(ev_low));
	if (dep_us(ev_low, e) < 0)
		dep_fail("copy32: the high stream went on %.0f us before the low stream's copy "
			 "completed: the wait was not honoured", -dep_us(ev_low, e));
	CHECK(hipMemcpy(&got, flag, sizeof got, hipMemcpyDeviceToHost));
	if (got != want)
		dep_fail("copy32: the flag holds 0x%x, the copy wrote 0x%x", got, want);
	double us = dep_us(s, e);

	CHECK(hipEventDestroy(s));
	CHECK(hipEventDestroy(ev_low));
	CHECK(hipEventDestroy(e));
	return us;
}

static double case_memset64(int rep)
{
	static uint64_t *flag;
	unsigned char byte = (unsigned char)(0x21 + rep);
	uint64_t want = 0x0101010101010101ull * byte, got = 0;
	hipEvent_t s = dep_event(), ev_low = dep_event(), e = dep_event();

	if (!flag)
		flag = dep_signal_memory();
	dep_launch("low", d.low, 6);
	CHECK(hipMemsetAsync(flag, byte, sizeof *flag, d.low));
	CHECK(hipEventRecord(ev_low, d.low));
	CHECK(hipEventRecord(s, d.high));
	CHECK(hipStreamWaitValue64(d.high, flag, want, hipStreamWaitValueEq, ~0ull));
	dep_launch("high", d.high, 1);
	CHECK(hipEventRecord(e, d.high));
	dep_set_what("memset64: the HIGH stream waits (hipStreamWaitValue64 == 0x%llx) on signal "
		     "memory the LOW stream's hipMemsetAsync writes behind 6 low kernels",
		     (unsigned long long)want);
	CHECK(hipEventSynchronize(e));
	dep_set_what("memset64: the LOW stream's kernels and memset");
	CHECK(hipEventSynchronize(ev_low));
	if (dep_us(ev_low, e) < 0)
		dep_fail("memset64: the high stream went on %.0f us before the low stream's memset "
			 "completed: the wait was not honoured", -dep_us(ev_low, e));
	CHECK(hipMemcpy(&got, flag, sizeof got, hipMemcpyDeviceToHost));
	if (got != want)
		dep_fail("memset64: the flag holds 0x%llx, the memset wrote 0x%llx",
			 (unsigned long long)got, (unsigned long long)want);
	double us = dep_us(s, e);

	CHECK(hipEventDestroy(s));
	CHECK(hipEventDestroy(ev_low));
	CHECK(hipEventDestroy(e));
	return us;
}

static double case_host(int rep)
{
	static uint32_t *flag;
	uint32_t want = (uint32_t)rep + 1;
	hipEvent_t s = dep_event(), ev_low = dep_event(), e = dep_event();

	if (!flag)
		flag = (uint32_t *)dep_signal_memory();
	CHECK(hipEventRecord(s, d.high));
	CHECK(hipStreamWaitValue32(d.high, flag, want, hipStreamWaitValueGte, 0xffffffffu));
	dep_launch("high", d.high, 1);
	CHECK(hipEventRecord(e, d.high));
	dep_launch("low", d.low, 6);
	CHECK(hipEventRecord(ev_low, d.low));
	// The low stream must complete while the high one waits on the host: poll it.
	double t0 = now_s(), waited;
	hipError_t q;

	dep_set_what("host: the LOW stream's 6 kernels while the HIGH stream waits on a value only "
		     "the host sets (polling hipEventQuery)");
	while ((q = hipEventQuery(ev_low)) == hipErrorNotReady && now_s() - t0 < 8)
		usleep(1000);
	waited = now_s() - t0;
	if (q != hipSuccess && q != hipErrorNotReady)
		CHECK(q);
	if (hipEventQuery(e) == hipSuccess)
		dep_fail("host: the high stream's kernel completed before the host wrote the value");
	if (q != hipSuccess)
		dep_fail("host: the LOW stream made no progress in %.1f s (wall) while the HIGH stream "
			 "waited on a value only the host sets", waited);
	printf("note host rep %d: low stream done %.1f ms (wall) after it was queued, the high "
	       "stream still waiting on the host\n", rep, waited * 1e3);
	__atomic_store_n(flag, want, __ATOMIC_RELEASE);
	dep_set_what("host: the HIGH stream waits (hipStreamWaitValue32 >= %u) on pinned memory the "
		     "host has set", want);
	CHECK(hipEventSynchronize(e));
	double us = dep_us(s, e);

	CHECK(hipEventDestroy(s));
	CHECK(hipEventDestroy(ev_low));
	CHECK(hipEventDestroy(e));
	return us;
}

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
	dep_set_what("%s: hipDeviceSynchronize at the end", name);
	CHECK(hipDeviceSynchronize());
	dep_streams_destroy(&d);
	return dep_finish();
}
