// SPDX-License-Identifier: MIT
//
// MIOpen on the model (docs/real-stack.md, the version matrix): one forward convolution
// (N 4, C 16, 32 x 32, K 16, 1 x 1: MIOpen's GEMM path, rocBLAS's precompiled kernels, as
// Debian's MIOpen cannot build kernels at run time), its algorithm found with
// miopenFindConvolutionForwardAlgorithm (which launches its candidates), then run twice. The
// model runs no GPU code, so the output is not checked: the matrix test compares the emulated
// KFD's per-kernel dispatch counts with and without hsaqm's tool.
// Output: the algorithm found, then PASS, or a FAIL line. Exit 0 on success.
#include <hip/hip_runtime.h>
#include <miopen/miopen.h>

#include <stdio.h>
#include <stdlib.h>

#define MI_CHECK(call)                                                                     \
	do {                                                                               \
		miopenStatus_t s_ = (call);                                                \
		if (s_ != miopenStatusSuccess) {                                           \
			printf("FAIL: %s: %s\n", #call, miopenGetErrorString(s_));         \
			return 1;                                                          \
		}                                                                          \
	} while (0)
#define HIP_CHECK(call)                                                                    \
	do {                                                                               \
		hipError_t e_ = (call);                                                    \
		if (e_ != hipSuccess) {                                                    \
			printf("FAIL: %s: %s\n", #call, hipGetErrorString(e_));            \
			return 1;                                                          \
		}                                                                          \
	} while (0)

int main(void)
{
	miopenHandle_t h;
	miopenTensorDescriptor_t x, w, y;
	miopenConvolutionDescriptor_t conv;
	int n = 4, c = 16, hw = 32, k = 16, r = 1, on, oc, oh, ow;
	void *dx, *dw, *dy, *ws = NULL;
	size_t ws_size = 0;
	miopenConvAlgoPerf_t perf;
	int found = 0;
	float alpha = 1.0f, beta = 0.0f;

	MI_CHECK(miopenCreate(&h));
	MI_CHECK(miopenCreateTensorDescriptor(&x));
	MI_CHECK(miopenCreateTensorDescriptor(&w));
	MI_CHECK(miopenCreateTensorDescriptor(&y));
	MI_CHECK(miopenCreateConvolutionDescriptor(&conv));
	MI_CHECK(miopenSet4dTensorDescriptor(x, miopenFloat, n, c, hw, hw));
	MI_CHECK(miopenSet4dTensorDescriptor(w, miopenFloat, k, c, r, r));
	MI_CHECK(miopenInitConvolutionDescriptor(conv, miopenConvolution, 0, 0, 1, 1, 1, 1));
	MI_CHECK(miopenGetConvolutionForwardOutputDim(conv, x, w, &on, &oc, &oh, &ow));
	MI_CHECK(miopenSet4dTensorDescriptor(y, miopenFloat, on, oc, oh, ow));
	HIP_CHECK(hipMalloc(&dx, sizeof(float) * n * c * hw * hw));
	HIP_CHECK(hipMalloc(&dw, sizeof(float) * k * c * r * r));
	HIP_CHECK(hipMalloc(&dy, sizeof(float) * on * oc * oh * ow));
	MI_CHECK(miopenConvolutionForwardGetWorkSpaceSize(h, w, x, conv, y, &ws_size));
	if (ws_size)
		HIP_CHECK(hipMalloc(&ws, ws_size));
	MI_CHECK(miopenFindConvolutionForwardAlgorithm(h, x, dx, w, dw, conv, y, dy, 1, &found,
							&perf, ws, ws_size, false));
	if (!found) {
		printf("FAIL: no convolution algorithm found\n");
		return 1;
	}
	printf("algorithm %d\n", (int)perf.fwd_algo);
	for (int i = 0; i < 2; i++)
		MI_CHECK(miopenConvolutionForward(h, &alpha, x, dx, w, dw, conv, perf.fwd_algo, &beta,
						  y, dy, ws, ws_size));
	HIP_CHECK(hipDeviceSynchronize());
	HIP_CHECK(hipFree(dx));
	HIP_CHECK(hipFree(dw));
	HIP_CHECK(hipFree(dy));
	if (ws)
		HIP_CHECK(hipFree(ws));
	MI_CHECK(miopenDestroyConvolutionDescriptor(conv));
	MI_CHECK(miopenDestroyTensorDescriptor(x));
	MI_CHECK(miopenDestroyTensorDescriptor(w));
	MI_CHECK(miopenDestroyTensorDescriptor(y));
	MI_CHECK(miopenDestroy(h));
	printf("PASS\n");
	return 0;
}
