/* SPDX-License-Identifier: MIT */
/*
 * xproc-client: one process of the cross-process proofs (tests/tool/run-xproc.sh), an HSA
 * program on the shared device process (HSAQM_SIM_DEVICE), started under hsaqm-run so the
 * tool library and, through it, hsaqmd schedule it. It submits exactly as ROCclr does
 * (t_rocclr.h) through the model's HSA face.
 *
 *   xproc-client low T_US SECONDS [tc3]
 *       keeps the GPU full (80 one-wave workgroups of T_US each, 6 kernels outstanding) for
 *       SECONDS; a monitor thread polls the tool's statistics every millisecond and prints
 *       "held REAL_NS" / "released REAL_NS" (CLOCK_REALTIME, from the tool's own timestamps)
 *       on each change of the daemon's hold; with tc3, the first time it is held it creates
 *       a second queue and prints "tc3 held_at_create=0|1" (before any packet of it), then
 *       runs one kernel on it. At the end: "launched_while_held N" (kernels whose model start
 *       time falls inside a hold, 20 us after it began), "first_hold_launches N
 *       first_hold_ms D" for the first hold (at Lv2 with one guardian per kernel, at most the
 *       one kernel already past its guardian when the gate closed may launch),
 *       "kernels N", "lost N", "done".
 *   xproc-client high T_US SAMPLES HIGH_US
 *       one high kernel (1 workgroup of 32 waves, HIGH_US) at a time after a pause in
 *       [T, 3T): prints "lat_median_us M lat_max_us X" (model time, submission to the
 *       kernel's end from its profiling times), "done".
 *   xproc-client waithost FILE
 *       a high process whose queue waits on a value only its host sets, and only once FILE
 *       exists (written by the test when another process finished): a 2 ms kernel, a
 *       barrier-AND on a host signal, a kernel. Prints "dep_stalls N dep_waits W" (the
 *       tool's statistics of its queue) and "done".
 *   xproc-client busy SECONDS
 *       keeps four 2 ms high kernels outstanding for SECONDS (a process that keeps the daemon
 *       holding the lower ones); "done".
 *
 * Exit: 0; 2 usage; 99 the model or HSA failed; 98 work did not complete.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dlfcn.h>

#include "t_hsa.h"
#include "t_rocclr.h"

#define LOW_WGS 80u
#define LOW_SLOTS 6u
#define MAX_KERNELS 100000u
#define MAX_HOLDS 4096u

static struct t_hsa h; /* never freed: the process exits with the model attached */
static int64_t model_minus_mono, real_minus_mono;
static uint32_t stop_monitor;
static bool tc3;
/* The tool's libhsaqm.so (this binary has its own static lib): what python/hsaqm.py does. */
static int (*stats_json)(char *buf, size_t size, size_t *needed);

static struct {
	uint64_t start[2]; /* model ns */
} holds[MAX_HOLDS];
static uint32_t nholds; /* atomic */
static uint64_t kstart[MAX_KERNELS];
static uint32_t nk;

static uint64_t json_u64(const char *json, const char *key)
{
	const char *p = strstr(json, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static struct hsaqm_hsa_queue *make_queue(int prio)
{
	struct hsaqm_hsa_queue *q = t_hsa_queue(&h, 256, prio);

	if (!q)
		exit(99);
	return q;
}

static void tc3_queue(uint64_t kobj)
{
	static char buf[1 << 16];
	struct hsaqm_hsa_queue *q = make_queue(HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	struct hsaqm_hsa_signal cs = t_hsa_signal(&h, 1);
	union hsaqm_aql_packet pk;
	const char *first;
	size_t need;

	/* The newest queue is the first of the list; nothing was submitted to it yet. */
	if (stats_json(buf, sizeof(buf), &need))
		exit(99);
	first = strstr(buf, "\"queues\":[");
	first = first ? strstr(first, "\"held_by_hand\":") : NULL;
	printf("tc3 held_at_create=%d\n", first && !strncmp(first + 15, "true", 4));
	fflush(stdout);
	pk = t_hsa_dispatch(kobj, 1, cs.handle, true, NULL);
	t_rocclr_submit(h.core, q, &pk, NULL, NULL);
	printf("tc3 completed=%d\n", t_hsa_wait_le(&h, cs, 0, 30 * T_S));
	fflush(stdout);
}

/* Watches the daemon's hold through the tool's statistics (its own timestamps). */
static void *monitor(void *arg)
{
	static char buf[1 << 16];
	uint64_t seen_holds = 0, seen_resumes = 0, kobj = *(uint64_t *)arg;
	bool held = false, tc3_done = false;

	/*
	 * Acquire: pairs with run_low's release of stop_monitor. Each release of nholds
	 * below puts the hold's times before the count that covers them (the main thread
	 * reads both once it joined this thread).
	 */
	while (!hsaqm_load_acquire(&stop_monitor)) {
		size_t need;

		if (stats_json(buf, sizeof(buf), &need) == 0) {
			const char *d = strstr(buf, "\"daemon\":{\"client\"");
			uint64_t hc = d ? json_u64(d, "\"holds\":") : 0;
			uint64_t rc = d ? json_u64(d, "\"resumes\":") : 0;
			uint64_t th = d ? json_u64(d, "\"last_hold_ns\":") : 0;
			uint64_t tr = d ? json_u64(d, "\"last_resume_ns\":") : 0;
			uint32_t i = HSAQM_READ_ONCE(nholds);

			/*
			 * Between two looks the tool may have resumed and held again (tr < th):
			 * that closes the hold at tr before the next one opens at th, so a
			 * kernel launched in the gap is not counted inside a hold.
			 */
			if (held && rc > seen_resumes && tr < th) {
				held = false;
				if (i < MAX_HOLDS) {
					holds[i].start[1] = tr + (uint64_t)model_minus_mono;
					hsaqm_store_release(&nholds, i + 1);
				}
				i++;
				printf("released %llu\n", (unsigned long long)(tr + real_minus_mono));
				fflush(stdout);
			}
			if (hc > seen_holds && !held) {
				held = true;
				if (i < MAX_HOLDS) {
					holds[i].start[0] = th + (uint64_t)model_minus_mono;
					holds[i].start[1] = UINT64_MAX;
				}
				printf("held %llu\n", (unsigned long long)(th + real_minus_mono));
				fflush(stdout);
			}
			if (rc > seen_resumes && held && tr >= th) {
				held = false;
				if (i < MAX_HOLDS) {
					holds[i].start[1] = tr + (uint64_t)model_minus_mono;
					hsaqm_store_release(&nholds, i + 1);
				}
				printf("released %llu\n", (unsigned long long)(tr + real_minus_mono));
				fflush(stdout);
			}
			seen_holds = hc;
			seen_resumes = rc;
			if (held && tc3 && !tc3_done) {
				tc3_done = true;
				tc3_queue(kobj);
			}
		}
		t_sleep_us(1000);
	}
	/* Release: an open hold counts too, its end still UINT64_MAX; as above. */
	if (held && HSAQM_READ_ONCE(nholds) < MAX_HOLDS)
		hsaqm_store_release(&nholds, HSAQM_READ_ONCE(nholds) + 1);
	return NULL;
}

static int run_low(uint64_t t_us, unsigned int seconds)
{
	struct hsaqm_sim_kernel_desc kd = { .name = "low", .duration_ns = t_us * T_US,
					    .waves_per_wg = 1 };
	struct hsaqm_sim_kernel_desc k1 = { .name = "tc3", .duration_ns = 50 * T_US,
					    .waves_per_wg = 1 };
	struct hsaqm_hsa_signal cs[LOW_SLOTS];
	struct hsaqm_hsa_queue *q;
	uint64_t kobj, kobj1, end, submitted = 0;
	uint32_t in_hold = 0;
	pthread_t mon;
	char buf[4096];
	size_t need;

	if (hsaqm_sim_kernel_register(h.sim, &kd, &kobj) ||
	    hsaqm_sim_kernel_register(h.sim, &k1, &kobj1))
		return 99;
	q = make_queue(HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	for (unsigned int i = 0; i < LOW_SLOTS; i++)
		cs[i] = t_hsa_signal(&h, 0);
	if (pthread_create(&mon, NULL, monitor, &kobj1))
		return 99;
	end = t_mono_ns() + seconds * T_S;
	while (t_mono_ns() < end || submitted % LOW_SLOTS) {
		unsigned int s = (unsigned int)(submitted % LOW_SLOTS);
		union hsaqm_aql_packet pk;

		if (submitted >= LOW_SLOTS) {
			struct hsaqm_hsa_amd_profiling_dispatch_time dt = { 0, 0 };

			if (!t_hsa_wait_le(&h, cs[s], 0, 60 * T_S))
				return 98;
			h.amd->hsa_amd_profiling_get_dispatch_time_fn(h.gpu[0], cs[s], &dt);
			if (nk < MAX_KERNELS)
				kstart[nk++] = dt.start;
		}
		h.core->hsa_signal_store_relaxed_fn(cs[s], 1);
		pk = t_hsa_dispatch(kobj, LOW_WGS, cs[s].handle, true, NULL);
		t_rocclr_submit(h.core, q, &pk, NULL, NULL);
		submitted++;
	}
	for (unsigned int i = 0; i < LOW_SLOTS; i++) {
		struct hsaqm_hsa_amd_profiling_dispatch_time dt = { 0, 0 };
		unsigned int s = (unsigned int)((submitted + i) % LOW_SLOTS);

		if (!t_hsa_wait_le(&h, cs[s], 0, 60 * T_S))
			return 98;
		h.amd->hsa_amd_profiling_get_dispatch_time_fn(h.gpu[0], cs[s], &dt);
		if (nk < MAX_KERNELS)
			kstart[nk++] = dt.start;
	}
	hsaqm_store_release(&stop_monitor, 1u); /* release: pairs with monitor()'s acquire */
	pthread_join(mon, NULL);
	uint32_t first = 0;

	for (uint32_t k = 0; k < nk; k++)
		for (uint32_t i = 0; i < HSAQM_READ_ONCE(nholds) && i < MAX_HOLDS; i++)
			if (kstart[k] > holds[i].start[0] + 20 * T_US &&
			    kstart[k] < holds[i].start[1]) {
				in_hold++;
				first += i == 0;
			}
	if (HSAQM_READ_ONCE(nholds))
		printf("first_hold_launches %u first_hold_ms %.1f\n", first,
		       holds[0].start[1] == UINT64_MAX ? -1.0
		       : (holds[0].start[1] - holds[0].start[0]) / 1e6);
	buf[0] = 0;
	stats_json(buf, sizeof(buf), &need);
	printf("holds %u\nlaunched_while_held %u\nkernels %u\nlost %llu\ndone\n",
	       HSAQM_READ_ONCE(nholds), in_hold, nk,
	       (unsigned long long)json_u64(buf, "\"lost\":"));
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int run_high(uint64_t t_us, unsigned int samples, uint64_t high_us)
{
	struct hsaqm_sim_kernel_desc kd = { .name = "high", .duration_ns = high_us * T_US,
					    .waves_per_wg = 32 };
	struct hsaqm_hsa_signal cs = t_hsa_signal(&h, 0);
	struct hsaqm_hsa_queue *q = make_queue(HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	uint64_t kobj, seed = 7, lat[256];

	if (samples < 1 || samples > 256 || hsaqm_sim_kernel_register(h.sim, &kd, &kobj))
		return 2;
	for (unsigned int i = 0; i < samples; i++) {
		struct hsaqm_hsa_amd_profiling_dispatch_time dt = { 0, 0 };
		union hsaqm_aql_packet pk;
		uint64_t t_sub;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		t_sleep_us((unsigned int)(t_us + (seed >> 33) % (2 * t_us)));
		h.core->hsa_signal_store_relaxed_fn(cs, 1);
		pk = t_hsa_dispatch(kobj, 1, cs.handle, true, NULL);
		t_sub = hsaqm_sim_now_ns(h.sim);
		t_rocclr_submit(h.core, q, &pk, NULL, NULL);
		if (!t_hsa_wait_le(&h, cs, 0, 30 * T_S))
			return 98;
		h.amd->hsa_amd_profiling_get_dispatch_time_fn(h.gpu[0], cs, &dt);
		lat[i] = dt.end > t_sub ? dt.end - t_sub : 0;
	}
	qsort(lat, samples, sizeof(lat[0]), cmp_u64);
	printf("lat_median_us %.1f lat_max_us %.1f\ndone\n", lat[samples / 2] / 1e3,
	       lat[samples - 1] / 1e3);
	return 0;
}

static int run_busy(unsigned int seconds)
{
	struct hsaqm_sim_kernel_desc kd = { .name = "busy", .duration_ns = 2 * T_MS,
					    .waves_per_wg = 1 };
	struct hsaqm_hsa_signal cs = t_hsa_signal(&h, 0);
	struct hsaqm_hsa_queue *q = make_queue(HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	uint64_t kobj, end = t_mono_ns() + seconds * T_S;
	int64_t submitted = 0;

	if (hsaqm_sim_kernel_register(h.sim, &kd, &kobj))
		return 99;
	h.core->hsa_signal_store_relaxed_fn(cs, INT64_C(1) << 40);
	printf("busy started\n");
	fflush(stdout);
	while (t_mono_ns() < end) {
		int64_t done = (INT64_C(1) << 40) - h.core->hsa_signal_load_scacquire_fn(cs);

		/* Four queued (8 ms of work): only a host stall longer than 6 ms lets the queue go
		 * idle, which lib's idle hook reports at once (the daemon then rightly resumes the
		 * lower process; the hold-window checks assume it does not). */
		if (submitted - done >= 4) {
			t_sleep_us(200);
			continue;
		}
		union hsaqm_aql_packet pk = t_hsa_dispatch(kobj, 1, cs.handle, true, NULL);

		t_rocclr_submit(h.core, q, &pk, NULL, NULL);
		submitted++;
	}
	if (!t_hsa_wait_le(&h, cs, (INT64_C(1) << 40) - submitted, 30 * T_S))
		return 98;
	printf("done\n");
	return 0;
}

/*
 * The cross-process form of a wait hsaqm cannot attribute: while this queue's head waits,
 * hsaqmd must not hold the process whose completion the test turns into the host's store.
 */
static int run_waithost(const char *file)
{
	struct hsaqm_sim_kernel_desc kd = { .name = "waithost", .duration_ns = 2 * T_MS,
					    .waves_per_wg = 1 };
	struct hsaqm_hsa_signal cs = t_hsa_signal(&h, 2), host = t_hsa_signal(&h, 1);
	struct hsaqm_hsa_queue *q = make_queue(HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	struct hsaqm_aql_barrier_desc bd = { .dep_signals = &host.handle, .num_deps = 1,
					     .barrier = true,
					     .acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
					     .release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM };
	union hsaqm_aql_packet pk[3];
	uint64_t kobj, end = t_mono_ns() + 60 * T_S;
	char buf[8192];
	size_t need;

	if (hsaqm_sim_kernel_register(h.sim, &kd, &kobj) || hsaqm_aql_barrier_and_build(&pk[1], &bd))
		return 99;
	pk[0] = t_hsa_dispatch(kobj, 1, cs.handle, true, NULL);
	pk[2] = t_hsa_dispatch(kobj, 1, cs.handle, true, NULL);
	for (int i = 0; i < 3; i++)
		t_rocclr_submit(h.core, q, &pk[i], NULL, NULL);
	printf("waiting\n");
	fflush(stdout);
	while (access(file, F_OK) != 0 && t_mono_ns() < end)
		t_sleep_us(1000);
	h.core->hsa_signal_store_screlease_fn(host, 0);
	if (!t_hsa_wait_le(&h, cs, 0, 30 * T_S))
		return 98;
	buf[0] = 0;
	stats_json(buf, sizeof(buf), &need);
	printf("dep_stalls %llu dep_waits %llu\ndone\n",
	       (unsigned long long)json_u64(buf, "\"dep_stalls\":"),
	       (unsigned long long)json_u64(buf, "\"dep_waits\":"));
	return 0;
}

int main(int argc, char **argv)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL,
					.seed = 9 };
	struct timespec rt, mono;
	struct hsaqm_sim *sim;
	int rc;

	if (argc < 3)
		return 2;
	if (hsaqm_sim_open_env(&cfg, &sim) || t_hsa_attach(&h, sim))
		return 99;
	{
		void *lib = dlopen("libhsaqm.so.0", RTLD_NOW | RTLD_NOLOAD);

		if (lib)
			*(void **)&stats_json = dlsym(lib, "hsaqm_process_stats_json");
		if (!stats_json) {
			fprintf(stderr, "xproc-client: the tool library is not loaded\n");
			return 99;
		}
	}
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	real_minus_mono = ((int64_t)rt.tv_sec - mono.tv_sec) * 1000000000ll + rt.tv_nsec -
			  mono.tv_nsec;
	model_minus_mono = (int64_t)hsaqm_sim_now_ns(h.sim) - (int64_t)t_mono_ns();
	if (!strcmp(argv[1], "low") && argc >= 4) {
		tc3 = argc > 4 && !strcmp(argv[4], "tc3");
		rc = run_low(strtoull(argv[2], NULL, 10), (unsigned int)atoi(argv[3]));
	} else if (!strcmp(argv[1], "high") && argc >= 5) {
		rc = run_high(strtoull(argv[2], NULL, 10), (unsigned int)atoi(argv[3]),
			      strtoull(argv[4], NULL, 10));
	} else if (!strcmp(argv[1], "waithost")) {
		rc = run_waithost(argv[2]);
	} else if (!strcmp(argv[1], "busy")) {
		rc = run_busy((unsigned int)atoi(argv[2]));
	} else {
		rc = 2;
	}
	fflush(stdout);
	/* No hsa_shut_down, as HIP programs: the atexit paths run. */
	exit(rc);
}
