// SPDX-License-Identifier: MIT
//
// The real-stack recording test's program (tests/replay/record_names_rocm.sh): three kernels of
// different names, each on its own stream, launched a known number of times, the host waiting
// for each launch, then exiting at once: every dispatch's request ends in a signalled packet
// (the kernel with GPU_FORCE_QUEUE_PROFILING=1, else the barrier ROCclr puts behind it for the
// synchronisation), and the recorder must time each, the last ones included. Built with a
// Debian root's own hipcc, run by that release's HIP and ROCr over the device model through the
// emulated /dev/kfd. No memory operation: HIP dispatches none of its own kernels, so the
// recording holds exactly these.
//
// Output: "launched NAME COUNT" per kernel, then "PASS" (exit 0) or a FAIL line (exit 1).
#include <hip/hip_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#define N_ALPHA 6
#define N_BETA 4
#define N_GAMMA 2

extern "C" __global__ void hsaqm_rec_alpha(int *p)
{
	if (p)
		p[threadIdx.x] = 1;
}

extern "C" __global__ void hsaqm_rec_beta(int *p)
{
	if (p)
		p[threadIdx.x] = 2;
}

extern "C" __global__ void hsaqm_rec_gamma(int *p)
{
	if (p)
		p[threadIdx.x] = 3;
}

#define CHECK(call)                                                                        \
	do {                                                                               \
		hipError_t e_ = (call);                                                    \
		if (e_ != hipSuccess) {                                                    \
			printf("FAIL: %s: %s\n", #call, hipGetErrorString(e_));            \
			return 1;                                                          \
		}                                                                          \
	} while (0)

int main(void)
{
	hipStream_t s[3];
	int n[3] = { 0, 0, 0 };

	for (int i = 0; i < 3; i++)
		CHECK(hipStreamCreateWithFlags(&s[i], hipStreamNonBlocking));
	for (int i = 0; i < N_ALPHA; i++) {
		hipLaunchKernelGGL(hsaqm_rec_alpha, dim3(8), dim3(64), 0, s[0], (int *)nullptr);
		CHECK(hipGetLastError());
		CHECK(hipStreamSynchronize(s[0]));
		n[0]++;
		if (i < N_BETA) {
			hipLaunchKernelGGL(hsaqm_rec_beta, dim3(16), dim3(128), 0, s[1],
					   (int *)nullptr);
			CHECK(hipGetLastError());
			CHECK(hipStreamSynchronize(s[1]));
			n[1]++;
		}
		if (i < N_GAMMA) {
			hipLaunchKernelGGL(hsaqm_rec_gamma, dim3(4), dim3(256), 0, s[2],
					   (int *)nullptr);
			CHECK(hipGetLastError());
			CHECK(hipStreamSynchronize(s[2]));
			n[2]++;
		}
	}
	// No wait before the end: the program exits right after its last synchronisation (its
	// whole run takes milliseconds), and every dispatch must still be timed: the recorder
	// reads the last times at exit, before HIP's teardown shuts the runtime down.
	for (int i = 0; i < 3; i++)
		CHECK(hipStreamDestroy(s[i]));
	printf("launched hsaqm_rec_alpha %d\nlaunched hsaqm_rec_beta %d\nlaunched hsaqm_rec_gamma %d\n",
	       n[0], n[1], n[2]);
	printf("PASS\n");
	return 0;
}
