/* SPDX-License-Identifier: MIT */
/*
 * The workload file parser (experiments/runner/wl_parse.c) reads every documented form, and
 * rejects every malformed file with the right line number and a message that names the
 * problem. The shipped workload files parse.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_cunit.h"
#include "wl.h"

#ifndef WL_DIR
#define WL_DIR "experiments/workloads"
#endif

static struct hsaqm_wl_file wl;
static char err[512];

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
	int rc = hsaqm_wl_parse(good, "good.wl", &wl, err, sizeof(err));

	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_STRING_EQUAL(wl.name, "demo");
	CU_ASSERT_STRING_EQUAL(wl.description, "two processes");
	CU_ASSERT_EQUAL(wl.length_ns, 2500000000ull);
	CU_ASSERT_EQUAL(wl.warmup_ns, 500000000ull);
	CU_ASSERT_EQUAL(wl.seed, 42);
	CU_ASSERT_DOUBLE_EQUAL(wl.time_scale, 2.0, 1e-12);
	CU_ASSERT_EQUAL_FATAL(wl.nprocs, 2);
	CU_ASSERT_EQUAL_FATAL(wl.nmodels, 2);

	const struct hsaqm_wl_process *on = &wl.procs[0], *off = &wl.procs[1];

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

	CU_ASSERT_EQUAL(wl.models[0].nk, 2);
	CU_ASSERT_EQUAL(wl.models[0].kernels, 11);
	CU_ASSERT_EQUAL(wl.models[0].k[1].count, 1);
	CU_ASSERT_EQUAL(wl.models[0].k[1].waves, 4);
	CU_ASSERT_EQUAL(wl.models[0].k[1].dist, HSAQM_WL_DIST_NORMAL);
	CU_ASSERT_EQUAL(wl.models[0].k[1].spread_ns, 5000ull);
	CU_ASSERT_EQUAL(wl.models[1].batch, 1024);
	CU_ASSERT_EQUAL(wl.models[1].k[0].wgs, 5000);
	CU_ASSERT_EQUAL(wl.models[1].k[0].dist, HSAQM_WL_DIST_UNIFORM);
	CU_ASSERT_STRING_EQUAL(wl.models[1].note, "an assumption");

	CU_ASSERT_EQUAL_FATAL(wl.nconfigs, 4);
	CU_ASSERT_EQUAL(wl.configs[0].mode, HSAQM_WL_MODE_NATIVE);
	CU_ASSERT_STRING_EQUAL(wl.configs[0].label, "Native");
	CU_ASSERT_STRING_EQUAL(wl.configs[1].label, "hip"); /* the name when none given */
	CU_ASSERT_EQUAL(wl.configs[1].mode, HSAQM_WL_MODE_HIP);
	CU_ASSERT_EQUAL(wl.configs[2].level, 1);
	CU_ASSERT_EQUAL(wl.configs[2].lv1_threshold, 4);
	CU_ASSERT_EQUAL(wl.configs[2].lv1_batch, 2);
	CU_ASSERT_TRUE(wl.configs[2].hip_priority);
	CU_ASSERT_EQUAL(wl.configs[3].level, 2);
	CU_ASSERT_EQUAL(wl.configs[3].floor_period_us, 100000);
	CU_ASSERT_EQUAL(wl.configs[3].floor_slice_us, 5000);
	CU_ASSERT_FALSE(wl.configs[3].hip_priority);
	CU_ASSERT_STRING_EQUAL(wl.configs[3].spatial, "dynamic:250");
	CU_ASSERT_STRING_EQUAL(wl.configs[2].spatial, ""); /* the tool's default */
	CU_ASSERT_DOUBLE_EQUAL(wl.configs[3].time_scale, 1.0, 1e-12);

	CU_ASSERT_EQUAL_FATAL(wl.nrefs, 3);
	CU_ASSERT_STRING_EQUAL(wl.refs[0].config, "native");
	CU_ASSERT_STRING_EQUAL(wl.refs[0].process, "online");
	CU_ASSERT_STRING_EQUAL(wl.refs[0].metric, "latency_p99_ms");
	CU_ASSERT_DOUBLE_EQUAL(wl.refs[0].lo, 19.4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(wl.refs[0].hi, 19.8, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(wl.refs[1].lo, wl.refs[1].hi, 0);
	CU_ASSERT_STRING_EQUAL(wl.refs[2].config, "standalone");
	CU_ASSERT_DOUBLE_EQUAL(wl.pass_online_p99, 1.10, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(wl.pass_offline_tput, 0.30, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(wl.latency_tolerance, 0.25, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(wl.throughput_tolerance, 0.10, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(wl.pass_online_max_ms, 50.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(wl.pass_offline_loss, 0.05, 1e-12);
	CU_ASSERT_TRUE(wl.edge_checks);
	CU_ASSERT_EQUAL(hsaqm_wl_find_config(&wl, "lv2"), 3);
	CU_ASSERT_EQUAL(hsaqm_wl_find_config(&wl, "lv9"), -ENOENT);
	CU_ASSERT_EQUAL(hsaqm_wl_find_process(&wl, "offline"), 1);
}

static void test_minimal_file_gets_defaults(void)
{
	static const char minimal[] = "[workload]\nname=m\nlength=1s\n"
				      "[process p]\ntask = name=t model=k arrival=closed\n"
				      "[model k]\nkernel = wg=1 time=1ms\n";

	CU_ASSERT_EQUAL_FATAL(hsaqm_wl_parse(minimal, "m.wl", &wl, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(wl.seed, 1);
	CU_ASSERT_DOUBLE_EQUAL(wl.time_scale, 1.0, 1e-12);
	CU_ASSERT_EQUAL(wl.procs[0].nstreams, 1); /* one default stream */
	CU_ASSERT_STRING_EQUAL(wl.procs[0].streams[0].name, "default");
	CU_ASSERT_EQUAL(wl.procs[0].role, HSAQM_WL_ROLE_ONLINE);
	CU_ASSERT_EQUAL(wl.nconfigs, 1); /* an implicit native run */
	CU_ASSERT_EQUAL(wl.configs[0].mode, HSAQM_WL_MODE_NATIVE);
	CU_ASSERT_EQUAL(wl.pass_online_p99, 0); /* not evaluated */
	CU_ASSERT_EQUAL(wl.pass_online_max_ms, 0);
	CU_ASSERT_EQUAL(wl.pass_offline_loss, 0);
	CU_ASSERT_FALSE(wl.edge_checks);
	CU_ASSERT_EQUAL(wl.procs[0].streams[0].create_ns, 0);
}

static void test_dump_json_is_produced(void)
{
	char *js = NULL;

	CU_ASSERT_EQUAL_FATAL(hsaqm_wl_parse(good, "good.wl", &wl, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_wl_dump_json(&wl, &js), 0);
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

/* A base file with one line replaced or appended, to test one error at a time. */
struct bad {
	const char *text;
	int line;
	const char *msg;
};

#define HEAD "[workload]\nname=b\nlength=1s\n[model k]\nkernel = wg=1 time=1ms\n" \
	     "[process p]\ntask = name=t model=k arrival=closed\n"
/* HEAD has 7 lines; an appended error is on line 8. */

static const struct bad bads[] = {
	{ HEAD "oops\n", 8, "expected 'key = value' or '[section]'" },
	{ "name = x\n", 1, "outside any section" },
	{ HEAD "[model k2\n", 8, "without ']'" },
	{ HEAD "[model k2] x\n", 8, "text after the section header" },
	{ HEAD "[bogus]\n", 8, "unknown section [bogus]" },
	{ HEAD "[workload]\n", 8, "[workload] appears twice" },
	{ HEAD "[model k]\n", 8, "model k: defined twice (line 4)" },
	{ HEAD "[model bad name]\n", 8, "is not a name" },
	{ HEAD "[process p]\n", 8, "process p: defined twice" },
	{ HEAD "[config standalone]\n", 8, "reserved" },
	{ HEAD "colour = red\n", 8, "[process]: unknown key 'colour'" },
	{ HEAD "role = both\n", 8, "role: 'both' is not online or offline" },
	{ HEAD "stream = priority=high\n", 8, "stream: name= is required" },
	{ HEAD "stream = name=s ring=1000\n", 8, "not a power of two" },
	{ HEAD "stream = name=s ring=32\n", 8, "out of range" },
	{ HEAD "stream = name=s priority=urgent\n", 8, "not high, normal or low" },
	{ HEAD "stream = name=s\nstream = name=s\n", 9, "stream s: defined twice" },
	{ HEAD "task = name=t model=k arrival=closed\n", 8, "task t: defined twice" },
	{ HEAD "task = name=u model=k\n", 8, "arrival= is required" },
	{ HEAD "task = name=u arrival=closed\n", 8, "model= is required" },
	{ HEAD "task = model=k arrival=closed\n", 8, "task: name= is required" },
	{ HEAD "task = name=u model=k arrival=sometimes\n", 8, "is not periodic, poisson" },
	{ HEAD "task = name=u model=k arrival=periodic\n", 8, "exactly one of rate= and period=" },
	{ HEAD "task = name=u model=k arrival=periodic rate=2 period=1s\n", 8, "exactly one of" },
	{ HEAD "task = name=u model=k arrival=poisson\n", 8, "needs rate=" },
	{ HEAD "task = name=u model=k arrival=closed rate=3\n", 8, "not a rate" },
	{ HEAD "task = name=u model=k arrival=burst period=1s\n", 8, "needs burst=" },
	{ HEAD "task = name=u model=k arrival=periodic rate=1 think=1ms\n", 8,
	  "belong to arrival=closed" },
	{ HEAD "task = name=u model=k arrival=periodic rate=10 jitter=60ms\n", 8,
	  "at most half the period" },
	{ HEAD "task = name=u model=k arrival=closed think=1ms jitter=2ms\n", 8,
	  "at most the think time" },
	{ HEAD "task = name=u model=k arrival=poisson rate=5 jitter=1ms\n", 8,
	  "belongs to arrival=periodic or closed" },
	{ HEAD "task = name=u model=k arrival=closed colour=red\n", 8, "task: unknown key 'colour'" },
	{ HEAD "task = name=u model=k arrival=closed depth=2 depth=4\n", 8, "depth is given twice" },
	{ HEAD "[model m]\nkernel = wg=4 time=1ms wg=8\n", 9, "wg is given twice" },
	{ HEAD "task = name=u model=k arrival=closed depth\n", 8, "'depth' is not key=value" },
	{ HEAD "task = name=u model=k arrival=closed depth=0\n", 8, "out of range (1..64)" },
	{ HEAD "task = name=u model=k arrival=closed start=5\n", 8, "needs a unit" },
	{ HEAD "task = name=u model=k arrival=closed start=5h\n", 8, "unknown unit 'h'" },
	{ HEAD "task = name=u model=nope arrival=closed\n", 8, "task u: no [model nope]" },
	{ HEAD "task = name=u model=k arrival=closed stream=zz\n", 8, "no stream 'zz'" },
	{ HEAD "stream = name=a\nstream = name=b\n", 7, "stream= is required when" },
	{ HEAD "[model m]\nkernel = wg=4\n", 9, "wg= and time= are required" },
	{ HEAD "[model m]\nkernel = wg=4 time=0us\n", 9, "must be longer than 0" },
	{ HEAD "[model m]\nkernel = wg=4 time=1ms waves=33\n", 9, "out of range (1..32)" },
	{ HEAD "[model m]\nkernel = wg=x time=1ms\n", 9, "'x' is not a whole number" },
	{ HEAD "[model m]\nkernel = wg=4 time=1ms dist=normal\n", 9, "needs spread=" },
	{ HEAD "[model m]\nkernel = wg=4 time=1ms dist=pareto spread=1us\n", 9,
	  "not fixed, uniform or normal" },
	{ HEAD "[model m]\nkernel = wg=4 time=1ms spread=1us\n", 9, "spread= needs dist=" },
	{ HEAD "[model m]\nkernel = wg=4 time=1ms dist=uniform spread=2ms\n", 9,
	  "shorter than time" },
	{ HEAD "[model m]\nbatch = 8\n", 8, "model m: no kernel lines" },
	{ HEAD "[model m]\nkernel = \n", 9, "kernel: empty value" },
	{ HEAD "[config c]\nmode = turbo\n", 9, "not native, hip-priority or hsaqm" },
	{ HEAD "[config c]\nmode = hsaqm\n", 8, "mode=hsaqm needs level=" },
	{ HEAD "[config c]\nmode = hsaqm\nlevel = 4\n", 10, "out of range (0..3)" },
	{ HEAD "[config c]\nmode = native\nlevel = 2\n", 8, "need mode=hsaqm" },
	{ HEAD "[config c]\nmode = hsaqm\nlevel=1\nlv1_threshold=2\nlv1_batch=4\n", 8,
	  "lv1_batch is larger than lv1_threshold" },
	{ HEAD "[config c]\nmode = hsaqm\nlevel=2\nfloor_period=10ms\n", 8,
	  "floor_period and floor_slice go together" },
	{ HEAD "[config c]\nmode = hsaqm\nlevel=2\nfloor_period=10ms\nfloor_slice=10ms\n", 8,
	  "floor_slice must be shorter" },
	{ HEAD "[config c]\npolicy = fifo\n", 9, "not hpf, util or none" },
	{ HEAD "[config c]\nhip_priority = maybe\n", 9, "not yes or no" },
	{ HEAD "[config c]\nspatial = half\n", 9, "spatial: 'half' is not off, or auto" },
	{ HEAD "[config c]\nspatial = static:0\n", 9, "out of range (1..999)" },
	{ HEAD "[config c]\nspatial = off:5\n", 9, "spatial: 'off:5' is not off" },
	{ HEAD "[config c]\nmode = native\nspatial = static\n", 8, "need mode=hsaqm" },
	{ HEAD "[config c]\ntime_scale = 0\n", 9, "out of range" },
	{ HEAD "[reference lv2]\np.latency_p99_ms = 3\n", 9, "[reference lv2]: no [config lv2]" },
	{ HEAD "[reference standalone]\nq.latency_p99_ms = 3\n", 9, "no [process q]" },
	{ HEAD "[reference standalone]\np.latency_p42_ms = 3\n", 9, "unknown metric" },
	{ HEAD "[reference standalone]\nlatency = 3\n", 9, "is not PROCESS.METRIC" },
	{ HEAD "[reference standalone]\np.latency_p99_ms = -3\n", 9, "not a positive number" },
	{ HEAD "[reference standalone]\np.latency_p99_ms = 5..3\n", 9, "LOW <= HIGH" },
	{ HEAD "[pass]\nonline_p99 = 1.1\nbogus = 2\n", 10, "[pass]: unknown key 'bogus'" },
	{ HEAD "[pass]\noffline_throughput = 1.5\n", 9, "out of range" },
	{ HEAD "[pass]\nonline_max_ms = 0\n", 9, "online_max_ms: 0 is out of range" },
	{ HEAD "[pass]\noffline_loss = 2\n", 9, "offline_loss: 2 is out of range" },
	/* Fractions follow hsaqm-common/text.h's one rule; the message names the value. */
	{ HEAD "[pass]\nonline_p99 = +1.1\n", 9, "online_p99: '+1.1' is not a number" },
	{ HEAD "[pass]\nonline_p99 = nan\n", 9, "online_p99: 'nan' is not a number" },
	{ HEAD "[pass]\nonline_p99 = 0x1p0\n", 9, "online_p99: '0x1p0' is not a number" },
	{ HEAD "[pass]\nonline_p99 = 1.1x\n", 9, "online_p99: '1.1x' is not a number" },
	{ HEAD "[pass]\nonline_p99 = 1e999\n", 9, "online_p99: 1e999 is out of range" },
	{ HEAD "stream = name=s create=+1s\n", 8, "stream create: '+1s' is not a duration" },
	{ HEAD "stream = name=s create=1e999s\n", 8, "stream create: '1e999s' is not a duration" },
	{ HEAD "stream = name=s create=nans\n", 8, "stream create: 'nans' is not a duration" },
	{ HEAD "stream = name=s create=0x1s\n", 8, "stream create: '0x1s' is not a duration" },
	{ HEAD "stream = name=s create=5es\n", 8, "stream create: '5es' is not a duration" },
	{ HEAD "[reference standalone]\np.latency_p99_ms = +3\n", 9, "'+3' is not a positive number" },
	{ HEAD "[reference standalone]\np.latency_p99_ms = 3..inf\n", 9, "LOW <= HIGH" },
	{ HEAD "stream = name=s create=5\n", 8, "stream create: '5' needs a unit" },
	{ HEAD "stream = name=s create=-1s\n", 8, "stream create: '-1s' is not a duration" },
	{ HEAD "[process q]\nstream = name=s create=2s\ntask = name=u stream=s model=k "
	  "arrival=closed start=1s\n", 10, "task u: start= (1 s) is before stream s's create= (2 s)" },
	{ HEAD "[process q]\nstream = name=s create=2s\ntask = name=u model=k arrival=periodic "
	  "rate=1\n", 10, "task u: start= (0 s) is before stream s's create=" },
	{ "[workload]\nname=b\nlength=1s\nedge_checks = maybe\n", 4,
	  "edge_checks: 'maybe' is not yes or no" },
	{ "[workload]\nname=b\n[process p]\ntask = name=t model=k arrival=closed\n"
	  "[model k]\nkernel = wg=1 time=1ms\n", 0, "[workload] needs length=" },
	{ "[workload]\nlength=1s\n", 0, "[workload] needs name=" },
	{ "[model k]\nkernel = wg=1 time=1ms\n", 0, "no [workload] section" },
	{ "[workload]\nname=b\nlength=1s\n", 0, "no [process] section" },
	{ "[workload]\nname=b\nlength=1s\n[process p]\nrole=online\n", 4, "process p: no task" },
	{ "[workload]\nname=b\nlength=1s\nseed=-1\n", 4, "not a whole number" },
	{ "[workload]\nname=b\nlength=forever\n", 3, "not a duration" },
	{ "[workload]\nname=b\n= 3\n", 3, "a value without a key" },
	{ "[workload]\nname=b\nspeed = 3\n", 3, "[workload]: unknown key 'speed'" },
};

/* A serving process has dozens of streams: 64 per process, each with its task; the 65th is said. */
static void test_a_process_takes_64_streams_and_64_tasks_and_says_the_65th(void)
{
	char text[32768], *p = text;
	size_t left = sizeof(text);
	int n;

	n = snprintf(p, left, "[workload]\nname=b\nlength=1s\n[model k]\nkernel = wg=1 time=1ms\n"
			      "[process p]\n");
	p += n, left -= (size_t)n;
	for (int i = 0; i < HSAQM_WL_MAX_STREAMS; i++) {
		n = snprintf(p, left, "stream = name=s%d\ntask = name=t%d stream=s%d model=k "
				      "arrival=closed\n", i, i, i);
		p += n, left -= (size_t)n;
	}
	CU_ASSERT_EQUAL(HSAQM_WL_MAX_STREAMS, 64);
	CU_ASSERT_EQUAL(hsaqm_wl_parse(text, "t", &wl, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(wl.procs[0].nstreams, 64u);
	CU_ASSERT_EQUAL(wl.procs[0].ntasks, 64u);
	snprintf(p, left, "stream = name=s64\n");
	CU_ASSERT_EQUAL(hsaqm_wl_parse(text, "t", &wl, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "more than 64 streams"));
}

static void test_every_error_names_its_line_and_problem(void)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		char want[64];
		int rc = hsaqm_wl_parse(bads[i].text, "bad.wl", &wl, err, sizeof(err));

		snprintf(want, sizeof(want), "bad.wl:%d: ", bads[i].line);
		if (rc != -EINVAL || strncmp(err, want, strlen(want)) ||
		    !strstr(err, bads[i].msg))
			fprintf(stderr, "\ncase %zu: rc %d, got \"%s\", want \"%s...%s\"\n", i, rc,
				err, want, bads[i].msg);
		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT_EQUAL(strncmp(err, want, strlen(want)), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, bads[i].msg));
	}
}

/* The fractions taken before the one rule still are: an exponent, a bare ".5", a leading 0. */
static void test_fractions_written_as_before_still_parse(void)
{
	static const char text[] = HEAD "[process q]\nstream = name=s create=1.5e3us\n"
				   "task = name=u stream=s model=k arrival=closed start=2ms\n"
				   "[reference standalone]\np.latency_p99_ms = .5..02.5\n"
				   "[pass]\nonline_p99 = 2.5e0\n";

	int rc = hsaqm_wl_parse(text, "t", &wl, err, sizeof(err));

	if (rc)
		fprintf(stderr, "\n%s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(wl.procs[1].streams[0].create_ns, 1500000);
	CU_ASSERT_DOUBLE_EQUAL(wl.refs[0].lo, 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(wl.refs[0].hi, 2.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(wl.pass_online_p99, 2.5, 1e-12);
}

static void test_long_line_and_null_input_are_refused(void)
{
	char *text = malloc(3000);

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	strcpy(text, "[workload]\nname=");
	memset(text + strlen(text), 'x', 1500);
	text[16 + 1500] = '\0';
	CU_ASSERT_EQUAL(hsaqm_wl_parse(text, "long.wl", &wl, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "long.wl:2: line longer than"));
	free(text);
	CU_ASSERT_EQUAL(hsaqm_wl_parse(NULL, "x", &wl, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_wl_parse("", "x", NULL, err, sizeof(err)), -EINVAL);
	/* A NULL message buffer is allowed. */
	CU_ASSERT_EQUAL(hsaqm_wl_parse("junk", "x", &wl, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_wl_load("/nonexistent/x.wl", &wl, err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/x.wl"));
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
		rc = hsaqm_wl_load(path, &wl, err, sizeof(err));
		if (rc)
			fprintf(stderr, "\n%s: %s\n", path, err);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_TRUE(wl.nprocs > 0);
	}
}

static const struct t_case cases[] = {
	T_CASE(test_good_file_gives_every_field),
	T_CASE(test_minimal_file_gets_defaults),
	T_CASE(test_dump_json_is_produced),
	T_CASE(test_every_error_names_its_line_and_problem),
	T_CASE(test_fractions_written_as_before_still_parse),
	T_CASE(test_a_process_takes_64_streams_and_64_tasks_and_says_the_65th),
	T_CASE(test_long_line_and_null_input_are_refused),
	T_CASE(test_shipped_workload_files_parse),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "experiments-parse", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("experiments-parse", suites);
}
