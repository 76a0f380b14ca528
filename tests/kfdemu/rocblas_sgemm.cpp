// SPDX-License-Identifier: MIT
//
// rocBLAS on the model (docs/real-stack.md, the version matrix): a 512 x 512 sgemm, four times,
// on device buffers, then hipDeviceSynchronize. The model runs no GPU code, so the product is
// not checked: what the matrix test checks is that rocBLAS's own dispatches (Tensile kernels
// it loads and launches) reach the device through hsaqm's tool exactly once each, by comparing
// the emulated KFD's per-kernel counts with and without the tool.
// Output: "rocblas kernels launched" then PASS, or a FAIL line. Exit 0 on success.
#include <hip/hip_runtime.h>
#include <rocblas/rocblas.h>

#include <stdio.h>
#include <stdlib.h>

#define N 512
#define REPEAT 4

#define HIP_CHECK(call)                                                                    \
	do {                                                                               \
		hipError_t e_ = (call);                                                    \
		if (e_ != hipSuccess) {                                                    \
			printf("FAIL: %s: %s\n", #call, hipGetErrorString(e_));            \
			return 1;                                                          \
		}                                                                          \
	} while (0)
#define BLAS_CHECK(call)                                                                   \
	do {                                                                               \
		rocblas_status s_ = (call);                                                \
		if (s_ != rocblas_status_success) {                                        \
			printf("FAIL: %s: %s\n", #call, rocblas_status_to_string(s_));     \
			return 1;                                                          \
		}                                                                          \
	} while (0)

int main(void)
{
	rocblas_handle h;
	float *a, *b, *c, alpha = 1.0f, beta = 0.0f;
	size_t bytes = sizeof(float) * N * N;

	BLAS_CHECK(rocblas_create_handle(&h));
	HIP_CHECK(hipMalloc((void **)&a, bytes));
	HIP_CHECK(hipMalloc((void **)&b, bytes));
	HIP_CHECK(hipMalloc((void **)&c, bytes));
	for (int i = 0; i < REPEAT; i++)
		BLAS_CHECK(rocblas_sgemm(h, rocblas_operation_none, rocblas_operation_none, N, N, N,
					 &alpha, a, N, b, N, &beta, c, N));
	HIP_CHECK(hipDeviceSynchronize());
	printf("rocblas kernels launched: %d sgemm\n", REPEAT);
	HIP_CHECK(hipFree(a));
	HIP_CHECK(hipFree(b));
	HIP_CHECK(hipFree(c));
	BLAS_CHECK(rocblas_destroy_handle(h));
	printf("PASS\n");
	return 0;
}
