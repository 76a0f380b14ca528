// SPDX-License-Identifier: MIT
//
// The HIP program of the ROCm matrix (docs/real-stack.md): built with each Debian root's own
// hipcc, run by that release's libamdhip64 and ROCr over the device model through the emulated
// /dev/kfd (sim/kfdemu/). hipMalloc, hipMemcpy both ways (pageable and pinned host memory,
// aligned and odd sizes; every byte checked), kernels on two streams created with the lowest
// and the highest stream priority, HIP events, hipDeviceSynchronize, clean exit.
//
// Kernels do not compute on the model: each takes the per-workgroup model time the emulation's
// kernel table gives its name (hsaqm_hip_low 2 ms, hsaqm_hip_high 50 us in the tests). The
// copies do move bytes: ROCr sends them to the SDMA engines the emulation models, or, with
// HSA_ENABLE_SDMA=0, to its blit kernels, which the emulation performs.
//
// $HSAQM_TEST_ARCH: the architecture the agent must report (default gfx942).
// Output: "high-latency-us N contended C" per high-priority dispatch (model time, from HIP
// events, i.e. ROCr's profiling timestamps, which the emulation writes in model ns; C is 1 when
// the low stream still had work when the dispatch was issued and completed, 0 when it had
// drained first: a host thread descheduled for the low stream's ~24 ms leaves nothing to
// preempt, and such a sample measures no scheduling), then "PASS" or a FAIL line. Exit 0 on
// success, 1 on failure.
#include <hip/hip_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLOW 6      // low-priority dispatches, each fills the model's 80 CUs twice over
#define NHIGH 4     // high-priority dispatches issued while the low ones run
#define LOW_WG 1280 // 256 work-items = 4 waves per workgroup: 640 fit on 80 CUs at once
#define HIGH_WG 4

extern "C" __global__ void hsaqm_hip_low(int *p)
{
	if (p)
		p[threadIdx.x] = 1;
}

extern "C" __global__ void hsaqm_hip_high(int *p)
{
	if (p)
		p[threadIdx.x] = 2;
}

static int failures;

#define CHECK(call)                                                                        \
	do {                                                                               \
		hipError_t e_ = (call);                                                    \
		if (e_ != hipSuccess) {                                                    \
			printf("FAIL: %s: %s\n", #call, hipGetErrorString(e_));            \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131u + seed + (i >> 12));
}

// H2D then D2H through a device buffer; the bytes that come back must be the bytes sent.
static void round_trip(size_t n, bool pinned, unsigned int seed)
{
	unsigned char *src, *dst;
	void *dev;

	if (pinned) {
		CHECK(hipHostMalloc((void **)&src, n, 0));
		CHECK(hipHostMalloc((void **)&dst, n, 0));
	} else {
		src = (unsigned char *)malloc(n);
		dst = (unsigned char *)malloc(n);
	}
	CHECK(hipMalloc(&dev, n));
	fill(src, n, seed);
	memset(dst, 0, n);
	CHECK(hipMemcpy(dev, src, n, hipMemcpyHostToDevice));
	CHECK(hipMemcpy(dst, dev, n, hipMemcpyDeviceToHost));
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += src[i] != dst[i];
	printf("copy %s %zu bytes: %zu differ\n", pinned ? "pinned" : "pageable", n, bad);
	if (bad)
		failures++;
	CHECK(hipFree(dev));
	if (pinned) {
		CHECK(hipHostFree(src));
		CHECK(hipHostFree(dst));
	} else {
		free(src);
		free(dst);
	}
}

int main(void)
{
	hipDeviceProp_t prop;
	int n = 0, least = 0, greatest = 0;
	const char *arch = getenv("HSAQM_TEST_ARCH");

	if (!arch || !*arch)
		arch = "gfx942";
	CHECK(hipGetDeviceCount(&n));
	CHECK(hipGetDeviceProperties(&prop, 0));
	printf("device %s arch %s CUs %d\n", prop.name, prop.gcnArchName, prop.multiProcessorCount);
	if (n != 1 || strncmp(prop.gcnArchName, arch, strlen(arch)) ||
	    prop.multiProcessorCount != 80) {
		printf("FAIL: not the model's %s agent with 80 CUs\n", arch);
		return 1;
	}

	round_trip(4u << 20, false, 1);
	round_trip((3u << 20) + 13, false, 2);
	round_trip(256, false, 3);
	round_trip((2u << 20) + 4, true, 4);

	CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
	printf("stream priorities: least %d greatest %d\n", least, greatest);
	hipStream_t low, high;

	CHECK(hipStreamCreateWithPriority(&low, hipStreamNonBlocking, least));
	CHECK(hipStreamCreateWithPriority(&high, hipStreamNonBlocking, greatest));

	hipEvent_t low_done;

	CHECK(hipEventCreate(&low_done));
	for (int i = 0; i < NLOW; i++)
		hipLaunchKernelGGL(hsaqm_hip_low, dim3(LOW_WG), dim3(256), 0, low, (int *)0);
	CHECK(hipGetLastError());
	CHECK(hipEventRecord(low_done, low));

	hipEvent_t ev[NHIGH][2];
	int contended[NHIGH];

	for (int i = 0; i < NHIGH; i++) {
		CHECK(hipEventCreate(&ev[i][0]));
		CHECK(hipEventCreate(&ev[i][1]));
		bool before = hipEventQuery(low_done) == hipErrorNotReady;
		CHECK(hipEventRecord(ev[i][0], high));
		hipLaunchKernelGGL(hsaqm_hip_high, dim3(HIGH_WG), dim3(64), 0, high, (int *)0);
		CHECK(hipEventRecord(ev[i][1], high));
		CHECK(hipEventSynchronize(ev[i][1]));
		contended[i] = before && hipEventQuery(low_done) == hipErrorNotReady;
	}
	CHECK(hipDeviceSynchronize());
	CHECK(hipEventDestroy(low_done));
	for (int i = 0; i < NHIGH; i++) {
		float ms = 0;

		CHECK(hipEventElapsedTime(&ms, ev[i][0], ev[i][1]));
		printf("high-latency-us %.0f contended %d\n", ms * 1000.0, contended[i]);
		CHECK(hipEventDestroy(ev[i][0]));
		CHECK(hipEventDestroy(ev[i][1]));
	}
	CHECK(hipStreamDestroy(low));
	CHECK(hipStreamDestroy(high));
	if (failures) {
		printf("FAIL: %d copies came back wrong\n", failures);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
