// SPDX-License-Identifier: MIT
// What HIP does with ROCclr's blit kernels, checked byte for byte: small pageable copies
// (staged, then copyBuffer), device-to-device copies aligned and not (copyBuffer),
// hipMemset and hipMemsetD32 (fillBufferAligned), hipMemcpy2D between device buffers
// (copyBufferRect) and hipMemset2D (fillBufferAligned2D). On the emulated /dev/kfd
// (tests/kfdemu/test_blits.sh) those kernels' effects are performed by the emulation:
// every check passes only if they are. Prints one line per check and PASS, exit 0.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define HIP(call)                                                                          \
	do {                                                                               \
		hipError_t e_ = (call);                                                    \
		if (e_ != hipSuccess) {                                                    \
			fprintf(stderr, "%s: %s\n", #call, hipGetErrorString(e_));         \
			exit(2);                                                           \
		}                                                                          \
	} while (0)

static void check(const char *what, const unsigned char *got, const unsigned char *want,
		  size_t n)
{
	size_t bad = 0, first = n;

	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i]) {
			if (!bad)
				first = i;
			bad++;
		}
	printf("%s: %zu bytes, %zu differ", what, n, bad);
	if (bad)
		printf(" (first at %zu: %#x, want %#x)", first, got[first], want[first]);
	printf("\n");
	failures += bad != 0;
}

static void fill_random(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (unsigned char)(seed >> 16);
	}
}

int main(void)
{
	const size_t n = 1 << 20;
	unsigned char *h = (unsigned char *)malloc(n), *want = (unsigned char *)malloc(n);
	unsigned char *back = (unsigned char *)malloc(n);
	unsigned char *a, *b;

	HIP(hipMalloc((void **)&a, n));
	HIP(hipMalloc((void **)&b, n));

	// A small pageable copy each way: ROCclr stages it and copies with copyBuffer.
	fill_random(h, 256, 1);
	HIP(hipMemcpy(a, h, 256, hipMemcpyHostToDevice));
	memset(back, 0, 256);
	HIP(hipMemcpy(back, a, 256, hipMemcpyDeviceToHost));
	check("copy pageable 256 bytes", back, h, 256);

	// Device to device, 16-byte aligned with a tail, then misaligned on both sides.
	fill_random(h, n, 2);
	HIP(hipMemcpy(a, h, n, hipMemcpyHostToDevice));
	HIP(hipMemset(b, 0, n));
	HIP(hipMemcpy(b, a, 100003, hipMemcpyDeviceToDevice));
	HIP(hipMemcpy(b + 200001, a + 300003, 77777, hipMemcpyDeviceToDevice));
	HIP(hipMemcpy(back, b, n, hipMemcpyDeviceToHost));
	memset(want, 0, n);
	memcpy(want, h, 100003);
	memcpy(want + 200001, h + 300003, 77777);
	check("copy device to device", back, want, n);

	// hipMemset: a byte pattern over an odd range; hipMemsetD32 over whole words.
	HIP(hipMemset(b, 0, n));
	HIP(hipMemset(b + 5, 0xa7, 65539));
	HIP(hipMemsetD32((hipDeviceptr_t)(b + 131072), 0x12345678, 1000));
	HIP(hipMemcpy(back, b, n, hipMemcpyDeviceToHost));
	memset(want, 0, n);
	memset(want + 5, 0xa7, 65539);
	for (int i = 0; i < 1000; i++) {
		unsigned int v = 0x12345678;

		memcpy(want + 131072 + 4 * i, &v, 4);
	}
	check("memset and memsetD32", back, want, n);

	// hipMemcpy2D between device buffers: 300 bytes x 50 rows, pitches 512 and 1000.
	HIP(hipMemset(b, 0, n));
	HIP(hipMemcpy2D(b + 16, 1000, a + 32, 512, 300, 50, hipMemcpyDeviceToDevice));
	HIP(hipMemcpy(back, b, n, hipMemcpyDeviceToHost));
	memset(want, 0, n);
	for (int y = 0; y < 50; y++)
		memcpy(want + 16 + 1000 * y, h + 32 + 512 * y, 300);
	check("copy 2D device to device", back, want, n);

	// hipMemset2D: 200 bytes x 30 rows at pitch 256.
	HIP(hipMemset(b, 0, n));
	HIP(hipMemset2D(b + 64, 256, 0x3c, 200, 30));
	HIP(hipMemcpy(back, b, n, hipMemcpyDeviceToHost));
	memset(want, 0, n);
	for (int y = 0; y < 30; y++)
		memset(want + 64 + 256 * y, 0x3c, 200);
	check("memset 2D", back, want, n);

	HIP(hipDeviceSynchronize());
	HIP(hipFree(a));
	HIP(hipFree(b));
	free(h);
	free(want);
	free(back);
	printf(failures ? "FAIL: %d checks\n" : "PASS\n", failures);
	return failures ? 1 : 0;
}
