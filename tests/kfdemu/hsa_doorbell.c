// SPDX-License-Identifier: MIT
// How long a doorbell takes to reach the model through the emulated /dev/kfd (issue 25 item 2;
// a benchmark run by tests/kfdemu/doorbell_latency_rocm.sh, not a test): a real ROCr rings
// the doorbell of a queue for one workgroup of the probe's spin kernel (ITERS x 17 ns = 100 us
// of model time, docs/real-stack.md), and the program measures, per dispatch, "late": from
// just before the doorbell to the completion signal seen by the waiter, minus the modelled
// time (launch overhead + 100 us), on the host's clock. With a spinning waiter that is how
// late the model launched the packet (plus the engine's own lateness, which
// hsaqm-bench-sim-clock's "polling" figure for 0.1 ms measures on the in-process model,
// where a doorbell wakes the engine directly). (ROCr's profiling start mapped to the system
// domain is not used: on the emulation that mapping is offset by about the host's uptime.)
// Three regimes: "idle" (50 ms between dispatches: the front polls every 1 ms), "idle-blocked"
// (the same with HSA_WAIT_STATE_BLOCKED: ROCr spins 200 us, then sleeps in WAIT_EVENTS, which
// kicks the front), "busy" (back to back: the front polls every 50 us).
// Usage: hsa_doorbell SPIN_CODE_OBJECT [samples per regime, default 60]. Model figures.
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#define WG 64u
#define ITERS 5883u          /* x 17 ns (KFDEMU_SPIN_STEP_NS) = 100 us */
#define LAUNCH_NS 5000ull    /* the model's dispatch launch overhead (docs/sim.md) */
#define MAX_SAMPLES 1000

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

struct spin_args {
	uint32_t *out;
	uint32_t iters, seed, wg_size;
};

static uint64_t sys_ns(void)
{
	uint64_t t = 0;

	hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &t); /* ROCr: CLOCK_BOOTTIME, 1 GHz */
	return t;
}

/* One dispatch; *late in ns as the header says. 0, or -1. */
static int sample(hsa_queue_t *q, uint64_t kobj, void *kargs, uint32_t *out,
		  hsa_wait_state_t wait, int64_t *late)
{
	hsa_signal_t done;
	hsa_kernel_dispatch_packet_t p;
	struct spin_args a = { out, ITERS, 1, WG };

	memcpy(kargs, &a, sizeof(a));
	if (hsa_signal_create(1, 0, NULL, &done) != HSA_STATUS_SUCCESS)
		return -1;
	memset(&p, 0, sizeof(p));
	p.setup = 1;
	p.workgroup_size_x = WG;
	p.workgroup_size_y = p.workgroup_size_z = 1;
	p.grid_size_x = WG;
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
	uint64_t t0 = sys_ns();

	/* Release: the body before the header the packet processor reads. */
	__atomic_store_n((uint32_t *)slot, header | (uint32_t)p.setup << 16, __ATOMIC_RELEASE);
	hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)idx);
	if (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, wait) != 0) {
		hsa_signal_destroy(done);
		return -1;
	}
	uint64_t t1 = sys_ns();

	*late = (int64_t)(t1 - t0) - (int64_t)(LAUNCH_NS + ITERS * 17ull);
	hsa_signal_destroy(done);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void print(const char *regime, const char *what, int64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	printf("%-13s %-6s us: p10 %7.1f  p50 %7.1f  p90 %7.1f  p99 %7.1f  max %7.1f  (n %d)\n",
	       regime, what, v[n / 10] / 1e3, v[n / 2] / 1e3, v[n * 9 / 10] / 1e3,
	       v[n * 99 / 100] / 1e3, v[n - 1] / 1e3, n);
}

int main(int argc, char **argv)
{
	hsa_agent_t gpu = { 0 };
	hsa_region_t kernarg = { 0 };
	hsa_code_object_reader_t reader;
	hsa_executable_t exe;
	hsa_executable_symbol_t sym;
	hsa_queue_t *q;
	uint64_t kobj = 0;
	void *kargs, *outv;
	static int64_t lt[MAX_SAMPLES];
	int n = argc > 2 ? atoi(argv[2]) : 60, fd;

	if (argc < 2 || n < 10 || n > MAX_SAMPLES) {
		fprintf(stderr, "usage: hsa_doorbell SPIN_CODE_OBJECT [samples 10-%d]\n",
			MAX_SAMPLES);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(argv[1], O_RDONLY);
	if (hsa_init() != HSA_STATUS_SUCCESS ||
	    hsa_iterate_agents(find_gpu, &gpu) != HSA_STATUS_INFO_BREAK ||
	    hsa_agent_iterate_regions(gpu, find_kernarg, &kernarg) != HSA_STATUS_INFO_BREAK ||
	    fd < 0 || hsa_code_object_reader_create_from_file(fd, &reader) ||
	    hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
				      NULL, &exe) ||
	    hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL) ||
	    hsa_executable_freeze(exe, NULL) ||
	    hsa_executable_get_symbol_by_name(exe, "hsaqm_probe_spin.kd", &gpu, &sym) ||
	    hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kobj) ||
	    hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, 0, 0, &q) ||
	    hsa_memory_allocate(kernarg, 4096, &kargs) ||
	    hsa_memory_allocate(kernarg, WG * 4, &outv)) {
		printf("FAIL: no GPU, kernel, queue or memory\n");
		return 1;
	}
	static const struct {
		const char *name;
		hsa_wait_state_t wait;
		useconds_t gap_us;
	} regimes[] = {
		{ "idle", HSA_WAIT_STATE_ACTIVE, 50000 },
		{ "idle-blocked", HSA_WAIT_STATE_BLOCKED, 50000 },
		{ "busy", HSA_WAIT_STATE_ACTIVE, 0 },
	};

	for (unsigned int r = 0; r < sizeof(regimes) / sizeof(regimes[0]); r++) {
		for (int i = 0; i < n; i++) {
			/* The idle regimes' gap (time let pass on purpose: the doorbell of an
			 * idle queue is what they measure). */
			if (regimes[r].gap_us)
				usleep(regimes[r].gap_us);
			if (sample(q, kobj, kargs, outv, regimes[r].wait, &lt[i])) {
				printf("FAIL: a dispatch did not complete\n");
				return 1;
			}
		}
		print(regimes[r].name, "late", lt, n);
	}
	hsa_queue_destroy(q);
	hsa_executable_destroy(exe);
	hsa_code_object_reader_destroy(reader);
	close(fd);
	hsa_shut_down();
	return 0;
}
