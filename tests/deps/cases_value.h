// SPDX-License-Identifier: MIT
//
// The hipStreamWaitValue cases of the dependency suite (issue 24), shared by dep_value.hip and
// dep_mix.hip. Each returns the high stream's latency in model µs and checks the wait was
// honoured (the high stream's kernel does not complete before the low stream reached the write,
// nor, for the host's value, before the host wrote it; the bytes are the ones written: copies and
// memsets really move bytes on the model).
#ifndef HSAQM_TESTS_DEPS_CASES_VALUE_H
#define HSAQM_TESTS_DEPS_CASES_VALUE_H

#include "deps.h"

#include <time.h>


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

// The high stream's wait held: it went on only after the low stream reached its @op (ev_pre is
// recorded just before the op, @e behind the high stream's kernel).
static void dep_value_honoured(const char *what, const char *op, hipEvent_t ev_pre, hipEvent_t e)
{
	if (dep_us(ev_pre, e) < 0)
		dep_fail("%s: the high stream went on %.0f us before the low stream reached its %s: the "
			 "wait was not honoured", what, -dep_us(ev_pre, e), op);
}

static double case_copy32(int rep)
{
	static uint32_t *flag, *src;
	uint32_t want = 0x5a000000u + rep + 1, got = 0;
	hipEvent_t s = dep_event(), ev_pre = dep_event(), ev_low = dep_event(), e = dep_event();

	if (!flag) {
		flag = (uint32_t *)dep_signal_memory();
		CHECK(hipMalloc((void **)&src, sizeof *src));
	}
	// The value goes to a device buffer first: a copy from host memory to the (host-resident)
	// signal memory may be done by the CPU inside hipMemcpyAsync, a device-to-device copy is
	// queued on the low stream behind its kernels (a blit kernel or an SDMA copy).
	CHECK(hipMemcpy(src, &want, sizeof want, hipMemcpyHostToDevice));
	dep_launch("low", d.low, dep_nlow);
	CHECK(hipEventRecord(ev_pre, d.low));
	CHECK(hipMemcpyAsync(flag, src, sizeof *flag, hipMemcpyDeviceToDevice, d.low));
	CHECK(hipEventRecord(ev_low, d.low));
	CHECK(hipEventRecord(s, d.high));
	CHECK(hipStreamWaitValue32(d.high, flag, want, hipStreamWaitValueEq, 0xffffffffu));
	dep_launch("high", d.high, 1);
	CHECK(hipEventRecord(e, d.high));
	dep_set_what("copy32: the HIGH stream waits (hipStreamWaitValue32 == 0x%x) on signal memory "
		     "the LOW stream's hipMemcpyAsync writes behind %d low kernels", want, dep_nlow);
	CHECK(hipEventSynchronize(e));
	dep_set_what("copy32: the LOW stream's kernels and copy");
	CHECK(hipEventSynchronize(ev_low));
	// The low stream's event after the copy may complete after the high stream's kernel (a
	// scheduler may hold the low queue again once the copy ran): the one before it may not.
	dep_value_honoured("copy32", "copy", ev_pre, e);
	CHECK(hipMemcpy(&got, flag, sizeof got, hipMemcpyDeviceToHost));
	if (got != want)
		dep_fail("copy32: the flag holds 0x%x, the copy wrote 0x%x", got, want);
	double us = dep_us(s, e);

	dep_events_destroy({ s, ev_pre, ev_low, e });
	return us;
}

static double case_memset64(int rep)
{
	static uint64_t *flag;
	unsigned char byte = (unsigned char)(0x21 + rep);
	uint64_t want = 0x0101010101010101ull * byte, got = 0;
	hipEvent_t s = dep_event(), ev_pre = dep_event(), ev_low = dep_event(), e = dep_event();

	if (!flag)
		flag = dep_signal_memory();
	dep_launch("low", d.low, dep_nlow);
	CHECK(hipEventRecord(ev_pre, d.low));
	CHECK(hipMemsetAsync(flag, byte, sizeof *flag, d.low));
	CHECK(hipEventRecord(ev_low, d.low));
	CHECK(hipEventRecord(s, d.high));
	CHECK(hipStreamWaitValue64(d.high, flag, want, hipStreamWaitValueEq, ~0ull));
	dep_launch("high", d.high, 1);
	CHECK(hipEventRecord(e, d.high));
	dep_set_what("memset64: the HIGH stream waits (hipStreamWaitValue64 == 0x%llx) on signal "
		     "memory the LOW stream's hipMemsetAsync writes behind %d low kernels",
		     (unsigned long long)want, dep_nlow);
	CHECK(hipEventSynchronize(e));
	dep_set_what("memset64: the LOW stream's kernels and memset");
	CHECK(hipEventSynchronize(ev_low));
	dep_value_honoured("memset64", "memset", ev_pre, e);
	CHECK(hipMemcpy(&got, flag, sizeof got, hipMemcpyDeviceToHost));
	if (got != want)
		dep_fail("memset64: the flag holds 0x%llx, the memset wrote 0x%llx",
			 (unsigned long long)got, (unsigned long long)want);
	double us = dep_us(s, e);

	dep_events_destroy({ s, ev_pre, ev_low, e });
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
	dep_launch("low", d.low, dep_nlow);
	CHECK(hipEventRecord(ev_low, d.low));
	// The low stream must complete while the high one waits on the host: poll it.
	double t0 = now_s(), waited;
	hipError_t q;

	dep_set_what("host: the LOW stream's %d kernels while the HIGH stream waits on a value only "
		     "the host sets (polling hipEventQuery)", dep_nlow);
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

	dep_events_destroy({ s, ev_low, e });
	return us;
}

#endif
