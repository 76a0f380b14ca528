// SPDX-License-Identifier: MIT
//
// A HIP program whose GPU is lost mid-run (tests/kfdemu/lost_device_rocm.sh): built with a
// Debian root's own hipcc, run over the emulated /dev/kfd as a client of an hsaqm-simd that the
// test SIGKILLs once this program says "running". It keeps one stream busy with kernels (each
// takes its kernel table's model time) and synchronizes after each; it must end with HIP's
// error, not hang.
//
// Output: "running" once the first kernel completed, then either "hip-error CALL: TEXT" (exit
// 2) when HIP reports the loss, or "no-error" (exit 0) when every kernel completed within
// $HSAQM_TEST_SECONDS (default 60): the GPU was never lost. ROCclr may instead abort the
// process from its queue error callback ("callbackQueue aborting with error"): also an end.
#include <hip/hip_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

extern "C" __global__ void hsaqm_hip_lost(int *p)
{
	if (p)
		p[threadIdx.x] = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CHECK(call)                                                                        \
	do {                                                                               \
		hipError_t e_ = (call);                                                    \
		if (e_ != hipSuccess) {                                                    \
			printf("hip-error %s: %s\n", #call, hipGetErrorString(e_));        \
			fflush(stdout);                                                    \
			exit(2);                                                           \
		}                                                                          \
	} while (0)

int main(void)
{
	const char *s = getenv("HSAQM_TEST_SECONDS");
	double limit = s ? atof(s) : 60.0;
	hipStream_t st;
	int *dev;

	setvbuf(stdout, NULL, _IOLBF, 0);
	CHECK(hipMalloc((void **)&dev, 4096));
	CHECK(hipStreamCreate(&st));
	hsaqm_hip_lost<<<dim3(80), dim3(64), 0, st>>>(dev);
	CHECK(hipGetLastError());
	CHECK(hipStreamSynchronize(st));
	printf("running\n");
	double end = now_s() + limit;

	while (now_s() < end) {
		for (int i = 0; i < 4; i++)
			hsaqm_hip_lost<<<dim3(80), dim3(64), 0, st>>>(dev);
		CHECK(hipGetLastError());
		CHECK(hipStreamSynchronize(st));
	}
	printf("no-error\n");
	return 0;
}
