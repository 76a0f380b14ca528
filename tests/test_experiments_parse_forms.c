/* SPDX-License-Identifier: MIT */
/*
 * The workload file parser (experiments/runner/wl_parse.c) reads every documented form: a full
 * file gives every field, a minimal one the defaults, fractions written as before still parse,
 * the JSON dump is produced, and the shipped workload files parse.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_cunit.h"
#include "wl.h"
#include "t_wl.h"

#ifndef WL_DIR
#define WL_DIR "experiments/workloads"
#endif

static const char good[] =
	"# a comment\n"
	"[workload]\n"
	"name = demo            ; trailing comment\n"
	"description = two processes\n"
	"length = 2.5s\n"
	"warmup = 500ms\n"
	"seed = 42\n"
	"time_scale = 2\n"
	"edge_checks = yes\n"
	"\n"
	"[process online]\n"
	"role = online\n"
	"stream = name=s0 priority=high ring=1024\n"
	"task = name=req stream=s0 model=small arrival=periodic rate=20 jitter=1ms\n"
	"task = name=pois stream=s0 model=small arrival=poisson rate=5 group=req\n"
	"\n"
	"[process offline]\n"
	"role = offline\n"
	"host_lock = yes\n"
	"stream = name=a priority=low\n"
	"stream = name=b hsaqm_priority=-50\n"
	"stream = name=late create=10ms\n"
	"task = name=train stream=a model=big arrival=closed depth=2\n"
	"task = name=burst stream=b model=small arrival=burst burst=4 period=100ms requests=8 "
	"launch=20us start=10ms\n"
	"task = name=think stream=b model=small arrival=closed think=20ms jitter=2ms\n"
	"task = name=later stream=late model=small arrival=periodic period=1s start=10ms\n"
	"\n"
	"[model small]\n"
	"kernel = count=10 wg=16 waves=4 time=30us\n"
	"kernel = wg=8 time=50us dist=normal spread=5us\n"
	"[model big]\n"
	"batch = 1024\n"
	"note = an assumption\n"
	"kernel = count=100 wg=5000 waves=4 time=1ms dist=uniform spread=100us\n"
	"\n"
	"[config native]\n"
	"mode = native\n"
	"label = Native\n"
	"[config hip]\n"
	"mode = hip-priority\n"
	"[config lv1]\n"
	"mode = hsaqm\n"
	"level = 1\n"
	"lv1_threshold = 4\n"
	"lv1_batch = 2\n"
	"[config lv2]\n"
	"mode = hsaqm\n"
	"level = 2\n"
	"lv2_interval = 1\n"
	"policy = hpf\n"
	"floor_period = 100ms\n"
	"floor_slice = 5ms\n"
	"hip_priority = no\n"
	"spatial = dynamic:250\n"
	"time_scale = 1\n"
	"\n"
	"[reference native]\n"
	"online.latency_p99_ms = 19.4..19.8\n"
	"offline.throughput_ips = 1.97\n"
	"[reference standalone]\n"
	"online.latency_p99_ms = 2.71\n"
	"[pass]\n"
	"online_p99 = 1.10\n"
	"offline_throughput = 0.30\n"
	"online_max_ms = 50\n"
	"offline_loss = 0.05\n";

static void test_good_file_gives_every_field(void)
{
	int rc = hsaqm_wl_parse(good, "good.wl", &t_wl, t_wl_err, sizeof(t_wl_err));

	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(t_wl_err, "");
	CU_ASSERT_STRING_EQUAL(t_wl.name, "demo");
	CU_ASSERT_STRING_EQUAL(t_wl.description, "two processes");
	CU_ASSERT_EQUAL(t_wl.length_ns, 2500000000ull);
	CU_ASSERT_EQUAL(t_wl.warmup_ns, 500000000ull);
	CU_ASSERT_EQUAL(t_wl.seed, 42);
	CU_ASSERT_DOUBLE_EQUAL(t_wl.time_scale, 2.0, 1e-12);
	CU_ASSERT_EQUAL_FATAL(t_wl.nprocs, 2);
	CU_ASSERT_EQUAL_FATAL(t_wl.nmodels, 2);

	const struct hsaqm_wl_process *on = &t_wl.procs[0], *off = &t_wl.procs[1];

	CU_ASSERT_EQUAL(on->role, HSAQM_WL_ROLE_ONLINE);
	CU_ASSERT_FALSE(on->host_lock);
	CU_ASSERT_EQUAL(on->streams[0].prio, HSAQM_WL_PRIO_HIGH);
	CU_ASSERT_EQUAL(on->streams[0].hsaqm_priority, 10); /* from the HIP priority */
	CU_ASSERT_EQUAL(on->streams[0].ring, 1024);
	CU_ASSERT_EQUAL(on->tasks[0].arrival, HSAQM_WL_ARR_PERIODIC);
	CU_ASSERT_EQUAL(on->tasks[0].period_ns, 50000000ull); /* rate 20 */
	CU_ASSERT_EQUAL(on->tasks[0].jitter_ns, 1000000ull);
	CU_ASSERT_STRING_EQUAL(on->tasks[0].group, "req"); /* its own name */
	CU_ASSERT_EQUAL(on->tasks[1].arrival, HSAQM_WL_ARR_POISSON);
	CU_ASSERT_DOUBLE_EQUAL(on->tasks[1].rate, 5.0, 1e-12);
	CU_ASSERT_STRING_EQUAL(on->tasks[1].group, "req");
	CU_ASSERT_EQUAL(on->tasks[0].model, 0); /* defined after its first use */

	CU_ASSERT_EQUAL(off->role, HSAQM_WL_ROLE_OFFLINE);
	CU_ASSERT_TRUE(off->host_lock);
	CU_ASSERT_EQUAL(off->nstreams, 3);
	CU_ASSERT_EQUAL(off->streams[0].hsaqm_priority, -10);
	CU_ASSERT_EQUAL(off->streams[1].hsaqm_priority, -50);
	CU_ASSERT_EQUAL(off->streams[1].ring, 4096); /* default */
	CU_ASSERT_EQUAL(off->streams[1].create_ns, 0); /* at set-up */
	CU_ASSERT_EQUAL(off->streams[2].create_ns, 10000000ull);
	CU_ASSERT_EQUAL(off->tasks[3].stream, 2);
	CU_ASSERT_EQUAL(off->tasks[3].start_ns, 10000000ull); /* start = create is allowed */
	CU_ASSERT_EQUAL(off->tasks[0].arrival, HSAQM_WL_ARR_CLOSED);
	CU_ASSERT_EQUAL(off->tasks[0].depth, 2);
	CU_ASSERT_EQUAL(off->tasks[0].model, 1);
	CU_ASSERT_EQUAL(off->tasks[1].arrival, HSAQM_WL_ARR_BURST);
	CU_ASSERT_EQUAL(off->tasks[1].burst, 4);
	CU_ASSERT_EQUAL(off->tasks[1].stream, 1);
	CU_ASSERT_EQUAL(off->tasks[1].requests, 8);
	CU_ASSERT_EQUAL(off->tasks[1].launch_ns, 20000ull);
	CU_ASSERT_EQUAL(off->tasks[1].start_ns, 10000000ull);
	CU_ASSERT_EQUAL(off->tasks[2].think_ns, 20000000ull);
	CU_ASSERT_EQUAL(off->tasks[2].jitter_ns, 2000000ull); /* closed: spreads the think time */
	CU_ASSERT_EQUAL(off->tasks[2].depth, 1);

	CU_ASSERT_EQUAL(t_wl.models[0].nk, 2);
	CU_ASSERT_EQUAL(t_wl.models[0].kernels, 11);
	CU_ASSERT_EQUAL(t_wl.models[0].k[1].count, 1);
	CU_ASSERT_EQUAL(t_wl.models[0].k[1].waves, 4);
	CU_ASSERT_EQUAL(t_wl.models[0].k[1].dist, HSAQM_WL_DIST_NORMAL);
	CU_ASSERT_EQUAL(t_wl.models[0].k[1].spread_ns, 5000ull);
	CU_ASSERT_EQUAL(t_wl.models[1].batch, 1024);
	CU_ASSERT_EQUAL(t_wl.models[1].k[0].wgs, 5000);
	CU_ASSERT_EQUAL(t_wl.models[1].k[0].dist, HSAQM_WL_DIST_UNIFORM);
	CU_ASSERT_STRING_EQUAL(t_wl.models[1].note, "an assumption");

	CU_ASSERT_EQUAL_FATAL(t_wl.nconfigs, 4);
	CU_ASSERT_EQUAL(t_wl.configs[0].mode, HSAQM_WL_MODE_NATIVE);
	CU_ASSERT_STRING_EQUAL(t_wl.configs[0].label, "Native");
	CU_ASSERT_STRING_EQUAL(t_wl.configs[1].label, "hip"); /* the name when none given */
	CU_ASSERT_EQUAL(t_wl.configs[1].mode, HSAQM_WL_MODE_HIP);
	CU_ASSERT_EQUAL(t_wl.configs[2].level, 1);
	CU_ASSERT_EQUAL(t_wl.configs[2].lv1_threshold, 4);
	CU_ASSERT_EQUAL(t_wl.configs[2].lv1_batch, 2);
	CU_ASSERT_TRUE(t_wl.configs[2].hip_priority);
	CU_ASSERT_EQUAL(t_wl.configs[3].level, 2);
	CU_ASSERT_EQUAL(t_wl.configs[3].floor_period_us, 100000);
	CU_ASSERT_EQUAL(t_wl.configs[3].floor_slice_us, 5000);
	CU_ASSERT_FALSE(t_wl.configs[3].hip_priority);
	CU_ASSERT_STRING_EQUAL(t_wl.configs[3].spatial, "dynamic:250");
	CU_ASSERT_STRING_EQUAL(t_wl.configs[2].spatial, ""); /* the tool's default */
	CU_ASSERT_DOUBLE_EQUAL(t_wl.configs[3].time_scale, 1.0, 1e-12);

	CU_ASSERT_EQUAL_FATAL(t_wl.nrefs, 3);
	CU_ASSERT_STRING_EQUAL(t_wl.refs[0].config, "native");
	CU_ASSERT_STRING_EQUAL(t_wl.refs[0].process, "online");
	CU_ASSERT_STRING_EQUAL(t_wl.refs[0].metric, "latency_p99_ms");
	CU_ASSERT_DOUBLE_EQUAL(t_wl.refs[0].lo, 19.4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(t_wl.refs[0].hi, 19.8, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(t_wl.refs[1].lo, t_wl.refs[1].hi, 0);
	CU_ASSERT_STRING_EQUAL(t_wl.refs[2].config, "standalone");
	CU_ASSERT_DOUBLE_EQUAL(t_wl.pass_online_p99, 1.10, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(t_wl.pass_offline_tput, 0.30, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(t_wl.latency_tolerance, 0.25, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(t_wl.throughput_tolerance, 0.10, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(t_wl.pass_online_max_ms, 50.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(t_wl.pass_offline_loss, 0.05, 1e-12);
	CU_ASSERT_TRUE(t_wl.edge_checks);
	CU_ASSERT_EQUAL(hsaqm_wl_find_config(&t_wl, "lv2"), 3);
	CU_ASSERT_EQUAL(hsaqm_wl_find_config(&t_wl, "lv9"), -ENOENT);
	CU_ASSERT_EQUAL(hsaqm_wl_find_process(&t_wl, "offline"), 1);
}

static void test_minimal_file_gets_defaults(void)
{
	static const char minimal[] = "[workload]\nname=m\nlength=1s\n"
				      "[process p]\ntask = name=t model=k arrival=closed\n"
				      "[model k]\nkernel = wg=1 time=1ms\n";

	CU_ASSERT_EQUAL_FATAL(hsaqm_wl_parse(minimal, "m.wl", &t_wl, t_wl_err, sizeof(t_wl_err)), 0);
	CU_ASSERT_EQUAL(t_wl.seed, 1);
	CU_ASSERT_DOUBLE_EQUAL(t_wl.time_scale, 1.0, 1e-12);
	CU_ASSERT_EQUAL(t_wl.procs[0].nstreams, 1); /* one default stream */
	CU_ASSERT_STRING_EQUAL(t_wl.procs[0].streams[0].name, "default");
	CU_ASSERT_EQUAL(t_wl.procs[0].role, HSAQM_WL_ROLE_ONLINE);
	CU_ASSERT_EQUAL(t_wl.nconfigs, 1); /* an implicit native run */
	CU_ASSERT_EQUAL(t_wl.configs[0].mode, HSAQM_WL_MODE_NATIVE);
	CU_ASSERT_EQUAL(t_wl.pass_online_p99, 0); /* not evaluated */
	CU_ASSERT_EQUAL(t_wl.pass_online_max_ms, 0);
	CU_ASSERT_EQUAL(t_wl.pass_offline_loss, 0);
	CU_ASSERT_FALSE(t_wl.edge_checks);
	CU_ASSERT_EQUAL(t_wl.procs[0].streams[0].create_ns, 0);
}

static void test_dump_json_is_produced(void)
{
	char *js = NULL;

	CU_ASSERT_EQUAL_FATAL(hsaqm_wl_parse(good, "good.wl", &t_wl, t_wl_err, sizeof(t_wl_err)), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_wl_dump_json(&t_wl, &js), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"name\":\"demo\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"arrival\":\"burst\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"mode\":\"hip-priority\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"lo\":19.4,\"hi\":19.8"));
	/* What the runner's edge criteria read. */
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"edge_checks\":true"));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"name\":\"late\",\"priority\":\"normal\","
					  "\"hsaqm_priority\":0,\"ring\":4096,\"create_ms\":10.000000"));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"start_ms\":10.000000,\"jitter_ms\":0}"));
	CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"online_max_ms\":50,\"offline_loss\":0.05"));
	free(js);
	CU_ASSERT_EQUAL(hsaqm_wl_dump_json(NULL, &js), -EINVAL);
}

/* The fractions taken before the one rule still are: an exponent, a bare ".5", a leading 0. */
static void test_fractions_written_as_before_still_parse(void)
{
	static const char text[] = T_WL_HEAD "[process q]\nstream = name=s create=1.5e3us\n"
				   "task = name=u stream=s model=k arrival=closed start=2ms\n"
				   "[reference standalone]\np.latency_p99_ms = .5..02.5\n"
				   "[pass]\nonline_p99 = 2.5e0\n";

	int rc = hsaqm_wl_parse(text, "t", &t_wl, t_wl_err, sizeof(t_wl_err));

	if (rc)
		fprintf(stderr, "\n%s\n", t_wl_err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(t_wl.procs[1].streams[0].create_ns, 1500000);
	CU_ASSERT_DOUBLE_EQUAL(t_wl.refs[0].lo, 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(t_wl.refs[0].hi, 2.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(t_wl.pass_online_p99, 2.5, 1e-12);
}

static void test_shipped_workload_files_parse(void)
{
	static const char *const files[] = { "w1-light.wl", "w1-intensive.wl", "w2.wl",
					     "w3.wl", "w3-tc1.wl", "w3-tc3.wl", "calib.wl",
					     "w2-native.wl" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512];
		int rc;

		snprintf(path, sizeof(path), "%s/%s", WL_DIR, files[i]);
		rc = hsaqm_wl_load(path, &t_wl, t_wl_err, sizeof(t_wl_err));
		if (rc)
			fprintf(stderr, "\n%s: %s\n", path, t_wl_err);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_TRUE(t_wl.nprocs > 0);
	}
}

static const struct t_case cases[] = {
	T_CASE(test_good_file_gives_every_field),
	T_CASE(test_minimal_file_gets_defaults),
	T_CASE(test_dump_json_is_produced),
	T_CASE(test_fractions_written_as_before_still_parse),
	T_CASE(test_shipped_workload_files_parse),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "experiments-parse-forms", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("experiments-parse-forms", suites);
}
