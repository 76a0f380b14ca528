// SPDX-License-Identifier: MIT
// hsaqm's probe kernel through a real ROCr on the emulated /dev/kfd, without the probe's timing:
// the spin kernel (tools/probe/kernels/spin.cl, built for the presented GPU) is loaded by
// ROCr's loader and dispatched twice with different iteration counts; every work-item's
// value must be LCG^iters(seed ^ gid), and each dispatch's model time (ROCr's profiling
// timestamps) must be iters x 17 ns plus at most a launch's overhead: the emulation's
// length for that kernel (docs/real-stack.md, "Kernels the emulation performs").
// Usage: hsa_spin CODE_OBJECT. Prints one line per check and PASS; exit 0, 1 on a failure.
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#define WG 64u
#define NWG 5u
/*
 * Whole workgroups. (The front hands kernel.c the dispatch packet, so a partial last one,
 * NWG * WG - 20, is exact too: checked by hand.)
 */
#define GRID (NWG * WG)
#define STEP_NS 17ull        /* KFDEMU_SPIN_STEP_NS */
#define SLACK_NS 1000000ull  /* a launch's overhead in the model, and then some */

static int failures;

#define CHECK(cond, ...)                                                                   \
	do {                                                                               \
		if (!(cond)) {                                                             \
			printf("FAIL: " __VA_ARGS__);                                      \
			printf("\n");                                                      \
			failures++;                                                        \
		}                                                                          \
	} while (0)

static hsa_status_t find_gpu(hsa_agent_t a, void *data)
{
	hsa_device_type_t t;

	if (hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t) == HSA_STATUS_SUCCESS &&
	    t == HSA_DEVICE_TYPE_GPU) {
		*(hsa_agent_t *)data = a;
		return HSA_STATUS_INFO_BREAK;
	}
	return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_kernarg(hsa_region_t r, void *data)
{
	hsa_region_segment_t seg;
	uint32_t flags = 0;

	hsa_region_get_info(r, HSA_REGION_INFO_SEGMENT, &seg);
	hsa_region_get_info(r, HSA_REGION_INFO_GLOBAL_FLAGS, &flags);
	if (seg == HSA_REGION_SEGMENT_GLOBAL && (flags & HSA_REGION_GLOBAL_FLAG_KERNARG)) {
		*(hsa_region_t *)data = r;
		return HSA_STATUS_INFO_BREAK;
	}
	return HSA_STATUS_SUCCESS;
}

static uint32_t lcg(uint32_t x, uint32_t n)
{
	while (n--)
		x = x * 1664525u + 1013904223u;
	return x;
}

/* The kernel's arguments, in spin.cl's order. */
struct spin_args {
	uint32_t *out;
	uint32_t iters, seed, wg_size;
};

static int run(hsa_agent_t gpu, hsa_queue_t *q, uint64_t kobj, void *kargs, uint32_t *out,
	       uint32_t iters, uint32_t seed, uint64_t *model_ns)
{
	hsa_signal_t done;
	hsa_kernel_dispatch_packet_t p;
	hsa_amd_profiling_dispatch_time_t t;
	struct spin_args a = { out, iters, seed, WG };

	memcpy(kargs, &a, sizeof(a));
	for (uint32_t i = 0; i < NWG * WG; i++)
		out[i] = 0xdeadbeefu;
	if (hsa_signal_create(1, 0, NULL, &done) != HSA_STATUS_SUCCESS)
		return -1;
	memset(&p, 0, sizeof(p));
	p.setup = 1;
	p.workgroup_size_x = WG;
	p.workgroup_size_y = p.workgroup_size_z = 1;
	p.grid_size_x = GRID;
	p.grid_size_y = p.grid_size_z = 1;
	p.kernel_object = kobj;
	p.kernarg_address = kargs;
	p.completion_signal = done;
	uint64_t idx = hsa_queue_add_write_index_relaxed(q, 1);
	hsa_kernel_dispatch_packet_t *slot = (hsa_kernel_dispatch_packet_t *)q->base_address +
					     (idx % q->size);

	memcpy((char *)slot + 4, (char *)&p + 4, sizeof(p) - 4);
	uint16_t header = HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE |
			  HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE |
			  HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE;
	/* Release: the body before the header; the model's packet processor acquires it. */
	__atomic_store_n((uint32_t *)slot, header | (uint32_t)p.setup << 16, __ATOMIC_RELEASE);
	hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)idx);
	if (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, 60000000000ull,
				      HSA_WAIT_STATE_BLOCKED) != 0) {
		hsa_signal_destroy(done);
		return -1;
	}
	if (hsa_amd_profiling_get_dispatch_time(gpu, done, &t) != HSA_STATUS_SUCCESS ||
	    t.end < t.start) {
		hsa_signal_destroy(done);
		return -1;
	}
	*model_ns = t.end - t.start; /* ticks: the emulation's GPU clock counts ns */
	hsa_signal_destroy(done);
	return 0;
}

int main(int argc, char **argv)
{
	hsa_agent_t gpu = { 0 };
	hsa_region_t kernarg = { 0 };
	hsa_code_object_reader_t reader;
	hsa_executable_t exe;
	hsa_executable_symbol_t sym;
	hsa_queue_t *q;
	uint64_t kobj = 0, ns[2];
	void *kargs, *outv;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: hsa_spin CODE_OBJECT\n");
		return 2;
	}
	if (hsa_init() != HSA_STATUS_SUCCESS ||
	    hsa_iterate_agents(find_gpu, &gpu) != HSA_STATUS_INFO_BREAK ||
	    hsa_agent_iterate_regions(gpu, find_kernarg, &kernarg) != HSA_STATUS_INFO_BREAK) {
		printf("FAIL: no GPU agent with a kernarg region\n");
		return 1;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || hsa_code_object_reader_create_from_file(fd, &reader) ||
	    hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
				      NULL, &exe) ||
	    hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL) ||
	    hsa_executable_freeze(exe, NULL) ||
	    hsa_executable_get_symbol_by_name(exe, "hsaqm_probe_spin.kd", &gpu, &sym) ||
	    hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kobj)) {
		printf("FAIL: ROCr could not load %s\n", argv[1]);
		return 1;
	}
	if (hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, 0, 0, &q) ||
	    hsa_amd_profiling_set_profiler_enabled(q, 1) ||
	    hsa_memory_allocate(kernarg, 4096, &kargs) ||
	    hsa_memory_allocate(kernarg, NWG * WG * 4, &outv)) {
		printf("FAIL: queue or memory\n");
		return 1;
	}
	uint32_t *out = outv;
	static const uint32_t iters[2] = { 20000, 200000 };

	for (int r = 0; r < 2; r++) {
		uint32_t seed = 7u + (uint32_t)r, bad = 0;

		if (run(gpu, q, kobj, kargs, out, iters[r], seed, &ns[r])) {
			printf("FAIL: dispatch %d did not complete\n", r);
			return 1;
		}
		for (uint32_t gid = 0; gid < NWG * WG; gid++)
			bad += out[gid] != (gid < GRID ? lcg(seed ^ gid, iters[r]) : 0xdeadbeefu);
		printf("spin iters %u: %u of %u values wrong, %llu ns of model time\n", iters[r],
		       bad, NWG * WG, (unsigned long long)ns[r]);
		CHECK(bad == 0, "iters %u: %u wrong values", iters[r], bad);
		CHECK(ns[r] >= iters[r] * STEP_NS && ns[r] <= iters[r] * STEP_NS + SLACK_NS,
		      "iters %u: %llu ns, want %llu ns + at most %llu", iters[r],
		      (unsigned long long)ns[r], (unsigned long long)(iters[r] * STEP_NS),
		      (unsigned long long)SLACK_NS);
	}
	hsa_memory_free(kargs);
	hsa_memory_free(outv);
	hsa_queue_destroy(q);
	hsa_executable_destroy(exe);
	hsa_code_object_reader_destroy(reader);
	close(fd);
	hsa_shut_down();
	printf(failures ? "FAIL: %d checks\n" : "PASS\n", failures);
	return failures ? 1 : 0;
}
