// SPDX-License-Identifier: MIT
//
// The real-stack recording test's program (tests/replay/record_names_rocm.sh): three kernels of
// different names, each on its own stream, launched a known number of times, the host waiting
// for each launch (so that ROCclr gives every dispatch a completion signal, and the recorder
// times each). Built with a Debian root's own hipcc, run by that release's HIP and ROCr over the
// device model through the emulated /dev/kfd. No memory operation: HIP dispatches none of its
// own kernels, so the recording holds exactly these. Run with GPU_FORCE_QUEUE_PROFILING=1:
// without it ROCclr signals the barrier after each kernel that a synchronisation waits on,
// not the kernel itself, and the recorder times kernel dispatches only.
//
// Output: "launched NAME COUNT" per kernel, then "PASS" (exit 0) or a FAIL line (exit 1).
#include <hip/hip_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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
	// The recorder reads dispatch times on its writer thread, within a drain (100 ms) and a poll
	// (5 ms) of a dispatch: those of a program's last 105 ms are not (docs/replay.md). The whole
	// run here takes milliseconds: it waits, as a longer program's last dispatches would not.
	usleep(300 * 1000);
	for (int i = 0; i < 3; i++)
		CHECK(hipStreamDestroy(s[i]));
	printf("launched hsaqm_rec_alpha %d\nlaunched hsaqm_rec_beta %d\nlaunched hsaqm_rec_gamma %d\n",
	       n[0], n[1], n[2]);
	printf("PASS\n");
	return 0;
}
