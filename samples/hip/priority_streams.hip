// SPDX-License-Identifier: MIT
//
// priority_streams: a HIP program for real hardware under hsaqm-run (docs/tool.md).
//
// A low-priority stream keeps the GPU full of long kernels (the "offline" job); a high-priority
// stream launches short kernels one at a time (the "online" requests) and measures each one's
// latency from launch to completion. Without hsaqm a short kernel waits for the long
// workgroups running when it comes (HIP stream priorities choose who gets the next free slot;
// they never preempt). Under hsaqm-run it starts within about one long kernel (Lv2: the long
// kernels not yet launched are held, the one running finishes) or at once (Lv3: the running
// long workgroups are saved mid-kernel and resumed after).
//
// The two kinds of work are two kernels, offline_long and online_short: on a GPU they spin for
// the time asked, and the device model, which runs no kernel code, times a kernel by its name
// (docs/real-stack.md, HSAQM_KFDEMU_KERNELS), so with one kernel for both it could not tell a
// long kernel from a short one. tests/tool/sample-hip.sh runs this program on the model.
//
//   hipcc -O2 --offload-arch=gfx942 -o priority_streams priority_streams.hip
//   ./priority_streams                  # baseline
//   hsaqm-run -- ./priority_streams     # scheduled (add -l lv3 for mid-kernel preemption)
//
// Usage: priority_streams [LONG_MS] [SHORT_COUNT]
// Output: the hsaqm status, the short kernels' latencies (median, p90, max), and one line
// "short-latency-median-us N" for scripts.
#include <hip/hip_runtime.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CHECK(x)                                                                     \
	do {                                                                         \
		hipError_t e_ = (x);                                                 \
		if (e_ != hipSuccess) {                                              \
			fprintf(stderr, "%s: %s\n", #x, hipGetErrorString(e_));     \
			exit(1);                                                     \
		}                                                                    \
	} while (0)

#if HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR >= 503
#define NOW() wall_clock64()
#else
#define NOW() __builtin_amdgcn_s_memrealtime() // what wall_clock64() is on gfx9 (100 MHz)
#endif

// Spins for @cycles of the wall clock counter: a kernel of a known length on any GPU.
static __device__ void spin(unsigned long long cycles, int *sink)
{
	unsigned long long start = NOW();

	while (NOW() - start < cycles)
		;
	if (threadIdx.x == 0 && cycles == 0)
		*sink = blockIdx.x;
}

// The offline job's kernel and the online request's, by name (extern "C": the names the model's
// kernel table and a profiler show).
extern "C" __global__ void offline_long(unsigned long long cycles, int *sink)
{
	spin(cycles, sink);
}

extern "C" __global__ void online_short(unsigned long long cycles, int *sink)
{
	spin(cycles, sink);
}

// The hsaqm status line of this process, if the tool library is loaded.
static void print_hsaqm_status(void)
{
	void *lib = dlopen("libhsaqm.so.0", RTLD_NOW | RTLD_NOLOAD);
	int (*status)(char *, size_t) = nullptr;
	char line[256] = "not loaded (run under hsaqm-run)";

	if (lib)
		*(void **)&status = dlsym(lib, "hsaqm_process_status");
	if (status)
		status(line, sizeof(line));
	printf("hsaqm: %s\n", line);
}

int main(int argc, char **argv)
{
	double long_ms = argc > 1 ? atof(argv[1]) : 50.0;
	int shorts = argc > 2 ? atoi(argv[2]) : 50;
	int least, greatest, clock_khz, cus, *sink;
	hipStream_t low, high;
	hipDeviceProp_t prop;
	std::vector<float> lat;

	CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
	CHECK(hipStreamCreateWithPriority(&low, hipStreamNonBlocking, least));
	CHECK(hipStreamCreateWithPriority(&high, hipStreamNonBlocking, greatest));
#if HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR >= 503
	CHECK(hipDeviceGetAttribute(&clock_khz, hipDeviceAttributeWallClockRate, 0));
#else
	clock_khz = 100000; // the wall clock of MI200/MI300 runs at 100 MHz (no attribute before 5.3)
#endif
	CHECK(hipGetDeviceProperties(&prop, 0));
	cus = prop.multiProcessorCount;
	CHECK(hipMalloc(&sink, sizeof(int)));
	print_hsaqm_status();

	unsigned long long long_cycles = (unsigned long long)(long_ms * clock_khz);
	unsigned long long short_cycles = (unsigned long long)(0.05 * clock_khz); // 50 us
	// Warm up both streams (code objects loaded, queues created).
	hipLaunchKernelGGL(online_short, dim3(1), dim3(64), 0, high, 1000ull, sink);
	hipLaunchKernelGGL(offline_long, dim3(1), dim3(64), 0, low, 1000ull, sink);
	CHECK(hipDeviceSynchronize());

	// The offline job: each long kernel fills every wave slot of every CU twice over (two rounds
	// of workgroups), so a short kernel finds no free slot while one runs; enough of them to
	// outlast the measurement even when every short kernel waits a whole long one.
	int per_cu = prop.maxThreadsPerMultiProcessor > 0 ? prop.maxThreadsPerMultiProcessor / 256 : 8;
	int long_wgs = cus * per_cu * 2;
	int longs = shorts + 4;
	for (int i = 0; i < longs; i++)
		hipLaunchKernelGGL(offline_long, dim3(long_wgs), dim3(256), 0, low, long_cycles, sink);

	hipEvent_t a, b;
	CHECK(hipEventCreate(&a));
	CHECK(hipEventCreate(&b));
	for (int i = 0; i < shorts; i++) {
		float ms = 0;

		CHECK(hipEventRecord(a, high));
		hipLaunchKernelGGL(online_short, dim3(1), dim3(64), 0, high, short_cycles, sink);
		CHECK(hipEventRecord(b, high));
		CHECK(hipEventSynchronize(b));
		CHECK(hipEventElapsedTime(&ms, a, b));
		lat.push_back(ms);
	}
	std::sort(lat.begin(), lat.end());
	printf("long kernels: %d x %d workgroups of %.1f ms on %d CUs (low-priority stream)\n", longs,
	       long_wgs, long_ms, cus);
	printf("short kernel latency (high-priority stream, %d samples): median %.3f ms, "
	       "p90 %.3f ms, max %.3f ms\n", shorts, lat[lat.size() / 2],
	       lat[lat.size() * 9 / 10], lat.back());
	printf("short-latency-median-us %.0f\n", lat[lat.size() / 2] * 1000.0);
	CHECK(hipDeviceSynchronize());
	print_hsaqm_status();
	return 0;
}
