/* SPDX-License-Identifier: MIT */
/*
 * A plain HSA program of the ROCm matrix (docs/real-stack.md): built against each Debian
 * root's own HSA headers and run on that release's ROCr over the device model through the
 * emulated /dev/kfd (sim/kfdemu/). Standalone (no test framework: the roots have none).
 *
 * argv[1] is a code object built by that release's clang for the agent's architecture
 * (tests/kfdemu/kernels.cl). The emulation's kernel table gives hsaqm_k_short 20 us and
 * hsaqm_k_long 3 ms per workgroup (model time). $HSAQM_TEST_ARCH is the agent's expected
 * name (default gfx942).
 *
 * What it proves, through code nobody here wrote (ROCr's loader, queues, signals, waits):
 * the GPU agent is the model's; a code object loads; dispatches complete with the model
 * durations of the kernels' names; a barrier-AND on another queue's completion signal holds
 * later packets until that kernel completed; a barrier-AND on a host signal holds until the
 * host sets it; many dispatches complete. It prints "dispatches short D W long D W" (what it
 * submitted, which the emulation's report must count exactly) and PASS, or FAIL lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

static int failures;

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond)) {                                                             \
			printf("FAIL: %s:%d: %s\n", __func__, __LINE__, #cond);           \
			failures++;                                                        \
		}                                                                          \
	} while (0)
#define CHECK_FATAL(cond)                                                                  \
	do {                                                                               \
		if (!(cond)) {                                                             \
			printf("FAIL: %s:%d: %s\n", __func__, __LINE__, #cond);           \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

#define SHORT_NS 20000ull    /* the kernel table of tests/meson.build */
#define LONG_NS 3000000ull
#define MANY 200u            /* dispatches in the throughput case */
#define MANY_WG 4u           /* workgroups each */

static const char *co_path;
static hsa_agent_t gpu;
static hsa_region_t kernarg_region;
static hsa_executable_t exe;
static hsa_code_object_reader_t reader;
static uint64_t k_short, k_long;
static uint32_t k_short_args, k_long_args;
static hsa_queue_t *q1, *q2;
static int *out_buf;
static uint64_t total_short_wg, total_short_dispatches, total_long_wg, total_long_dispatches;

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
	uint32_t flags = 0;
	hsa_region_segment_t seg;

	hsa_region_get_info(r, HSA_REGION_INFO_SEGMENT, &seg);
	hsa_region_get_info(r, HSA_REGION_INFO_GLOBAL_FLAGS, &flags);
	if (seg == HSA_REGION_SEGMENT_GLOBAL && (flags & HSA_REGION_GLOBAL_FLAG_KERNARG)) {
		*(hsa_region_t *)data = r;
		return HSA_STATUS_INFO_BREAK;
	}
	return HSA_STATUS_SUCCESS;
}

static int symbol(const char *name, uint64_t *kobj, uint32_t *kargs)
{
	hsa_executable_symbol_t s;

	if (hsa_executable_get_symbol_by_name(exe, name, &gpu, &s) != HSA_STATUS_SUCCESS)
		return -1;
	hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, kobj);
	hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
				       kargs);
	return 0;
}

static int setup(void)
{
	const char *arch = getenv("HSAQM_TEST_ARCH");
	char name[64] = "";

	if (!arch || !*arch)
		arch = "gfx942";
	if (hsa_init() != HSA_STATUS_SUCCESS)
		return -1;
	if (hsa_iterate_agents(find_gpu, &gpu) != HSA_STATUS_INFO_BREAK)
		return -1;
	hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name);
	printf("agent %s\n", name);
	if (strcmp(name, arch))
		return -1;
	if (hsa_agent_iterate_regions(gpu, find_kernarg, &kernarg_region) != HSA_STATUS_INFO_BREAK)
		return -1;
	FILE *f = fopen(co_path, "rb");

	if (!f)
		return -1;
	int fd = fileno(f);

	if (hsa_code_object_reader_create_from_file(fd, &reader) != HSA_STATUS_SUCCESS ||
	    hsa_executable_create_alt(HSA_PROFILE_BASE, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
				      NULL, &exe) != HSA_STATUS_SUCCESS ||
	    hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL) !=
		    HSA_STATUS_SUCCESS ||
	    hsa_executable_freeze(exe, NULL) != HSA_STATUS_SUCCESS) {
		fclose(f);
		return -1;
	}
	fclose(f);
	if (symbol("hsaqm_k_short.kd", &k_short, &k_short_args) ||
	    symbol("hsaqm_k_long.kd", &k_long, &k_long_args))
		return -1;
	if (hsa_queue_create(gpu, 256, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q1) ||
	    hsa_queue_create(gpu, 256, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q2))
		return -1;
	hsa_amd_profiling_set_profiler_enabled(q1, 1);
	hsa_amd_profiling_set_profiler_enabled(q2, 1);
	if (hsa_memory_allocate(kernarg_region, 4096, (void **)&out_buf) != HSA_STATUS_SUCCESS)
		return -1;
	return 0;
}

static int teardown(void)
{
	hsa_queue_destroy(q1);
	hsa_queue_destroy(q2);
	hsa_memory_free(out_buf);
	hsa_executable_destroy(exe);
	hsa_code_object_reader_destroy(reader);
	return hsa_shut_down() == HSA_STATUS_SUCCESS ? 0 : -1;
}

/* Reserve a slot, write the body, publish the header last, ring the doorbell. */
static void submit(hsa_queue_t *q, const void *pkt, uint16_t header)
{
	uint64_t idx = hsa_queue_add_write_index_relaxed(q, 1);

	while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size)
		;
	uint8_t *slot = (uint8_t *)q->base_address + (idx % q->size) * 64;

	memcpy(slot + 4, (const uint8_t *)pkt + 4, 60);
	uint32_t first = header | ((uint32_t)((const uint16_t *)pkt)[1] << 16);

	/* Release: the body before the header; the model's packet processor acquires it. */
	__atomic_store_n((uint32_t *)slot, first, __ATOMIC_RELEASE);
	hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)idx);
}

static void dispatch(hsa_queue_t *q, uint64_t kobj, uint32_t kargs_size, uint32_t wgs,
		     hsa_signal_t done)
{
	hsa_kernel_dispatch_packet_t p;
	void *kargs = NULL;

	CHECK_FATAL(hsa_memory_allocate(kernarg_region, kargs_size < 8 ? 8 : kargs_size, &kargs) ==
		    HSA_STATUS_SUCCESS);
	memset(kargs, 0, kargs_size);
	*(int **)kargs = out_buf;
	memset(&p, 0, sizeof(p));
	p.setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
	p.workgroup_size_x = 64;
	p.workgroup_size_y = p.workgroup_size_z = 1;
	p.grid_size_x = 64 * wgs;
	p.grid_size_y = p.grid_size_z = 1;
	p.kernel_object = kobj;
	p.kernarg_address = kargs;
	p.completion_signal = done;
	submit(q, &p, (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
			      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
			      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE));
	/* The kernargs stay allocated until shut-down (the model may read them any time). */
}

static void barrier_and(hsa_queue_t *q, hsa_signal_t dep, hsa_signal_t done)
{
	hsa_barrier_and_packet_t p;

	memset(&p, 0, sizeof(p));
	p.dep_signal[0] = dep;
	p.completion_signal = done;
	submit(q, &p, (HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) |
			      (1 << HSA_PACKET_HEADER_BARRIER) |
			      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
			      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE));
}

static hsa_signal_value_t wait_zero(hsa_signal_t s, uint64_t timeout_ns)
{
	return hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, timeout_ns,
					 HSA_WAIT_STATE_BLOCKED);
}

static void test_agent_is_the_models(void)
{
	char product[64] = "";
	uint32_t cus = 0;

	CHECK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_PRODUCT_NAME,
				 product) == HSA_STATUS_SUCCESS);
	printf("product %s\n", product);
	hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &cus);
	CHECK(cus == 80);
	CHECK(k_short != k_long);
}

/* One 3 ms kernel: ROCr's signal completes, with the model's timestamps. */
static void test_dispatch_completes_with_the_model_duration_of_its_name(void)
{
	hsa_signal_t s;
	hsa_amd_profiling_dispatch_time_t t;

	CHECK_FATAL(hsa_signal_create(1, 0, NULL, &s) == HSA_STATUS_SUCCESS);
	dispatch(q1, k_long, k_long_args, 1, s);
	total_long_dispatches++;
	total_long_wg++;
	CHECK(wait_zero(s, 10000000000ull) == 0);
	CHECK(hsa_amd_profiling_get_dispatch_time(gpu, s, &t) == HSA_STATUS_SUCCESS);
	/* Model figures: one workgroup of 3 ms, converted by ROCr from the face's counters. */
	CHECK(t.end > t.start);
	CHECK(t.end - t.start >= LONG_NS);
	CHECK(t.end - t.start < LONG_NS + LONG_NS / 2);
	hsa_signal_destroy(s);
}

/* q2's barrier-AND on q1's long kernel holds q2's short kernel until the long one is done. */
static void test_barrier_and_on_other_queue_orders_kernels(void)
{
	hsa_signal_t s_long, s_bar, s_short;
	hsa_amd_profiling_dispatch_time_t tl, ts;

	CHECK_FATAL(hsa_signal_create(1, 0, NULL, &s_long) == HSA_STATUS_SUCCESS);
	CHECK_FATAL(hsa_signal_create(1, 0, NULL, &s_bar) == HSA_STATUS_SUCCESS);
	CHECK_FATAL(hsa_signal_create(1, 0, NULL, &s_short) == HSA_STATUS_SUCCESS);
	dispatch(q1, k_long, k_long_args, 1, s_long);
	barrier_and(q2, s_long, s_bar);
	dispatch(q2, k_short, k_short_args, 1, s_short);
	total_long_dispatches++;
	total_long_wg++;
	total_short_dispatches++;
	total_short_wg++;
	CHECK(wait_zero(s_short, 10000000000ull) == 0);
	/* Completion order as ROCr's signals saw it. */
	CHECK(hsa_signal_load_scacquire(s_long) == 0);
	CHECK(hsa_signal_load_scacquire(s_bar) == 0);
	CHECK(hsa_amd_profiling_get_dispatch_time(gpu, s_long, &tl) == HSA_STATUS_SUCCESS);
	CHECK(hsa_amd_profiling_get_dispatch_time(gpu, s_short, &ts) == HSA_STATUS_SUCCESS);
	CHECK(ts.start >= tl.end);
	hsa_signal_destroy(s_long);
	hsa_signal_destroy(s_bar);
	hsa_signal_destroy(s_short);
}

/* A barrier-AND on a host signal holds the kernel behind it until the host sets it. */
static void test_barrier_and_on_host_signal_waits_for_the_host(void)
{
	hsa_signal_t host, s_bar, s_short;

	CHECK_FATAL(hsa_signal_create(1, 0, NULL, &host) == HSA_STATUS_SUCCESS);
	CHECK_FATAL(hsa_signal_create(1, 0, NULL, &s_bar) == HSA_STATUS_SUCCESS);
	CHECK_FATAL(hsa_signal_create(1, 0, NULL, &s_short) == HSA_STATUS_SUCCESS);
	barrier_and(q1, host, s_bar);
	dispatch(q1, k_short, k_short_args, 1, s_short);
	total_short_dispatches++;
	total_short_wg++;
	/* 50 ms: far longer than the kernel and the face's poll period. */
	CHECK(wait_zero(s_short, 50000000ull) == 1);
	CHECK(hsa_signal_load_scacquire(s_bar) == 1);
	hsa_signal_store_screlease(host, 0);
	CHECK(wait_zero(s_short, 10000000000ull) == 0);
	CHECK(hsa_signal_load_scacquire(s_bar) == 0);
	hsa_signal_destroy(host);
	hsa_signal_destroy(s_bar);
	hsa_signal_destroy(s_short);
}

/* MANY dispatches of MANY_WG workgroups on two queues, one signal counting them down. */
static void test_many_dispatches_all_complete(void)
{
	hsa_signal_t s;

	CHECK_FATAL(hsa_signal_create(MANY, 0, NULL, &s) == HSA_STATUS_SUCCESS);
	for (unsigned int i = 0; i < MANY; i++)
		dispatch(i % 2 ? q2 : q1, k_short, k_short_args, MANY_WG, s);
	total_short_dispatches += MANY;
	total_short_wg += MANY * MANY_WG;
	CHECK(wait_zero(s, 30000000000ull) == 0);
	hsa_signal_destroy(s);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: %s CODE_OBJECT\n", argv[0]);
		return 2;
	}
	co_path = argv[1];
	if (setup()) {
		printf("FAIL: no model GPU agent, or the code object does not load\n");
		return 1;
	}
	test_agent_is_the_models();
	test_dispatch_completes_with_the_model_duration_of_its_name();
	test_barrier_and_on_other_queue_orders_kernels();
	test_barrier_and_on_host_signal_waits_for_the_host();
	test_many_dispatches_all_complete();
	printf("dispatches short %llu %llu long %llu %llu\n",
	       (unsigned long long)total_short_dispatches, (unsigned long long)total_short_wg,
	       (unsigned long long)total_long_dispatches, (unsigned long long)total_long_wg);
	if (teardown()) {
		printf("FAIL: hsa_shut_down\n");
		failures++;
	}
	if (failures)
		return 1;
	printf("PASS\n");
	return 0;
}
