/* SPDX-License-Identifier: MIT */
/*
 * The workload file parser (experiments/runner/wl_parse.c) rejects every malformed file with the
 * right line number and a message that names the problem; a process takes 64 streams and 64
 * tasks and says so of the 65th; a long line and NULL input are refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_cunit.h"
#include "wl.h"
#include "t_wl.h"

/* A base file with one line replaced or appended, to test one error at a time. */
struct bad {
	const char *text;
	int line;
	const char *msg;
};

/* T_WL_HEAD has 7 lines; an appended error is on line 8. */

static const struct bad bads[] = {
	{ T_WL_HEAD "oops\n", 8, "expected 'key = value' or '[section]'" },
	{ "name = x\n", 1, "outside any section" },
	{ T_WL_HEAD "[model k2\n", 8, "without ']'" },
	{ T_WL_HEAD "[model k2] x\n", 8, "text after the section header" },
	{ T_WL_HEAD "[bogus]\n", 8, "unknown section [bogus]" },
	{ T_WL_HEAD "[workload]\n", 8, "[workload] appears twice" },
	{ T_WL_HEAD "[model k]\n", 8, "model k: defined twice (line 4)" },
	{ T_WL_HEAD "[model bad name]\n", 8, "is not a name" },
	{ T_WL_HEAD "[process p]\n", 8, "process p: defined twice" },
	{ T_WL_HEAD "[config standalone]\n", 8, "reserved" },
	{ T_WL_HEAD "colour = red\n", 8, "[process]: unknown key 'colour'" },
	{ T_WL_HEAD "role = both\n", 8, "role: 'both' is not online or offline" },
	{ T_WL_HEAD "stream = priority=high\n", 8, "stream: name= is required" },
	{ T_WL_HEAD "stream = name=s ring=1000\n", 8, "not a power of two" },
	{ T_WL_HEAD "stream = name=s ring=32\n", 8, "out of range" },
	{ T_WL_HEAD "stream = name=s priority=urgent\n", 8, "not high, normal or low" },
	{ T_WL_HEAD "stream = name=s\nstream = name=s\n", 9, "stream s: defined twice" },
	{ T_WL_HEAD "task = name=t model=k arrival=closed\n", 8, "task t: defined twice" },
	{ T_WL_HEAD "task = name=u model=k\n", 8, "arrival= is required" },
	{ T_WL_HEAD "task = name=u arrival=closed\n", 8, "model= is required" },
	{ T_WL_HEAD "task = model=k arrival=closed\n", 8, "task: name= is required" },
	{ T_WL_HEAD "task = name=u model=k arrival=sometimes\n", 8, "is not periodic, poisson" },
	{ T_WL_HEAD "task = name=u model=k arrival=periodic\n", 8, "exactly one of rate= and period=" },
	{ T_WL_HEAD "task = name=u model=k arrival=periodic rate=2 period=1s\n", 8, "exactly one of" },
	{ T_WL_HEAD "task = name=u model=k arrival=poisson\n", 8, "needs rate=" },
	{ T_WL_HEAD "task = name=u model=k arrival=closed rate=3\n", 8, "not a rate" },
	{ T_WL_HEAD "task = name=u model=k arrival=burst period=1s\n", 8, "needs burst=" },
	{ T_WL_HEAD "task = name=u model=k arrival=periodic rate=1 think=1ms\n", 8,
	  "belong to arrival=closed" },
	{ T_WL_HEAD "task = name=u model=k arrival=periodic rate=10 jitter=60ms\n", 8,
	  "at most half the period" },
	{ T_WL_HEAD "task = name=u model=k arrival=closed think=1ms jitter=2ms\n", 8,
	  "at most the think time" },
	{ T_WL_HEAD "task = name=u model=k arrival=poisson rate=5 jitter=1ms\n", 8,
	  "belongs to arrival=periodic or closed" },
	{ T_WL_HEAD "task = name=u model=k arrival=closed colour=red\n", 8, "task: unknown key 'colour'" },
	{ T_WL_HEAD "task = name=u model=k arrival=closed depth=2 depth=4\n", 8, "depth is given twice" },
	{ T_WL_HEAD "[model m]\nkernel = wg=4 time=1ms wg=8\n", 9, "wg is given twice" },
	{ T_WL_HEAD "task = name=u model=k arrival=closed depth\n", 8, "'depth' is not key=value" },
	{ T_WL_HEAD "task = name=u model=k arrival=closed depth=0\n", 8, "out of range (1..64)" },
	{ T_WL_HEAD "task = name=u model=k arrival=closed start=5\n", 8, "needs a unit" },
	{ T_WL_HEAD "task = name=u model=k arrival=closed start=5h\n", 8, "unknown unit 'h'" },
	{ T_WL_HEAD "task = name=u model=nope arrival=closed\n", 8, "task u: no [model nope]" },
	{ T_WL_HEAD "task = name=u model=k arrival=closed stream=zz\n", 8, "no stream 'zz'" },
	{ T_WL_HEAD "stream = name=a\nstream = name=b\n", 7, "stream= is required when" },
	{ T_WL_HEAD "[model m]\nkernel = wg=4\n", 9, "wg= and time= are required" },
	{ T_WL_HEAD "[model m]\nkernel = wg=4 time=0us\n", 9, "must be longer than 0" },
	{ T_WL_HEAD "[model m]\nkernel = wg=4 time=1ms waves=33\n", 9, "out of range (1..32)" },
	{ T_WL_HEAD "[model m]\nkernel = wg=x time=1ms\n", 9, "'x' is not a whole number" },
	{ T_WL_HEAD "[model m]\nkernel = wg=4 time=1ms dist=normal\n", 9, "needs spread=" },
	{ T_WL_HEAD "[model m]\nkernel = wg=4 time=1ms dist=pareto spread=1us\n", 9,
	  "not fixed, uniform or normal" },
	{ T_WL_HEAD "[model m]\nkernel = wg=4 time=1ms spread=1us\n", 9, "spread= needs dist=" },
	{ T_WL_HEAD "[model m]\nkernel = wg=4 time=1ms dist=uniform spread=2ms\n", 9,
	  "shorter than time" },
	{ T_WL_HEAD "[model m]\nbatch = 8\n", 8, "model m: no kernel lines" },
	{ T_WL_HEAD "[model m]\nkernel = \n", 9, "kernel: empty value" },
	{ T_WL_HEAD "[config c]\nmode = turbo\n", 9, "not native, hip-priority or hsaqm" },
	{ T_WL_HEAD "[config c]\nmode = hsaqm\n", 8, "mode=hsaqm needs level=" },
	{ T_WL_HEAD "[config c]\nmode = hsaqm\nlevel = 4\n", 10, "out of range (0..3)" },
	{ T_WL_HEAD "[config c]\nmode = native\nlevel = 2\n", 8, "need mode=hsaqm" },
	{ T_WL_HEAD "[config c]\nmode = hsaqm\nlevel=1\nlv1_threshold=2\nlv1_batch=4\n", 8,
	  "lv1_batch is larger than lv1_threshold" },
	{ T_WL_HEAD "[config c]\nmode = hsaqm\nlevel=2\nfloor_period=10ms\n", 8,
	  "floor_period and floor_slice go together" },
	{ T_WL_HEAD "[config c]\nmode = hsaqm\nlevel=2\nfloor_period=10ms\nfloor_slice=10ms\n", 8,
	  "floor_slice must be shorter" },
	{ T_WL_HEAD "[config c]\npolicy = fifo\n", 9, "not hpf, util or none" },
	{ T_WL_HEAD "[config c]\nhip_priority = maybe\n", 9, "not yes or no" },
	{ T_WL_HEAD "[config c]\nspatial = half\n", 9, "spatial: 'half' is not off, or auto" },
	{ T_WL_HEAD "[config c]\nspatial = static:0\n", 9, "out of range (1..999)" },
	{ T_WL_HEAD "[config c]\nspatial = off:5\n", 9, "spatial: 'off:5' is not off" },
	{ T_WL_HEAD "[config c]\nmode = native\nspatial = static\n", 8, "need mode=hsaqm" },
	{ T_WL_HEAD "[config c]\ntime_scale = 0\n", 9, "out of range" },
	{ T_WL_HEAD "[reference lv2]\np.latency_p99_ms = 3\n", 9, "[reference lv2]: no [config lv2]" },
	{ T_WL_HEAD "[reference standalone]\nq.latency_p99_ms = 3\n", 9, "no [process q]" },
	{ T_WL_HEAD "[reference standalone]\np.latency_p42_ms = 3\n", 9, "unknown metric" },
	{ T_WL_HEAD "[reference standalone]\nlatency = 3\n", 9, "is not PROCESS.METRIC" },
	{ T_WL_HEAD "[reference standalone]\np.latency_p99_ms = -3\n", 9, "not a positive number" },
	{ T_WL_HEAD "[reference standalone]\np.latency_p99_ms = 5..3\n", 9, "LOW <= HIGH" },
	{ T_WL_HEAD "[pass]\nonline_p99 = 1.1\nbogus = 2\n", 10, "[pass]: unknown key 'bogus'" },
	{ T_WL_HEAD "[pass]\noffline_throughput = 1.5\n", 9, "out of range" },
	{ T_WL_HEAD "[pass]\nonline_max_ms = 0\n", 9, "online_max_ms: 0 is out of range" },
	{ T_WL_HEAD "[pass]\noffline_loss = 2\n", 9, "offline_loss: 2 is out of range" },
	/* Fractions follow lib/text_internal.h's one rule; the message names the value. */
	{ T_WL_HEAD "[pass]\nonline_p99 = +1.1\n", 9, "online_p99: '+1.1' is not a number" },
	{ T_WL_HEAD "[pass]\nonline_p99 = nan\n", 9, "online_p99: 'nan' is not a number" },
	{ T_WL_HEAD "[pass]\nonline_p99 = 0x1p0\n", 9, "online_p99: '0x1p0' is not a number" },
	{ T_WL_HEAD "[pass]\nonline_p99 = 1.1x\n", 9, "online_p99: '1.1x' is not a number" },
	{ T_WL_HEAD "[pass]\nonline_p99 = 1e999\n", 9, "online_p99: 1e999 is out of range" },
	{ T_WL_HEAD "stream = name=s create=+1s\n", 8, "stream create: '+1s' is not a duration" },
	{ T_WL_HEAD "stream = name=s create=1e999s\n", 8, "stream create: '1e999s' is not a duration" },
	{ T_WL_HEAD "stream = name=s create=nans\n", 8, "stream create: 'nans' is not a duration" },
	{ T_WL_HEAD "stream = name=s create=0x1s\n", 8, "stream create: '0x1s' is not a duration" },
	{ T_WL_HEAD "stream = name=s create=5es\n", 8, "stream create: '5es' is not a duration" },
	{ T_WL_HEAD "[reference standalone]\np.latency_p99_ms = +3\n", 9, "'+3' is not a positive number" },
	{ T_WL_HEAD "[reference standalone]\np.latency_p99_ms = 3..inf\n", 9, "LOW <= HIGH" },
	{ T_WL_HEAD "stream = name=s create=5\n", 8, "stream create: '5' needs a unit" },
	{ T_WL_HEAD "stream = name=s create=-1s\n", 8, "stream create: '-1s' is not a duration" },
	{ T_WL_HEAD "[process q]\nstream = name=s create=2s\ntask = name=u stream=s model=k "
	  "arrival=closed start=1s\n", 10, "task u: start= (1 s) is before stream s's create= (2 s)" },
	{ T_WL_HEAD "[process q]\nstream = name=s create=2s\ntask = name=u model=k arrival=periodic "
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
	CU_ASSERT_EQUAL(hsaqm_wl_parse(text, "t", &t_wl, t_wl_err, sizeof(t_wl_err)), 0);
	CU_ASSERT_EQUAL(t_wl.procs[0].nstreams, 64u);
	CU_ASSERT_EQUAL(t_wl.procs[0].ntasks, 64u);
	snprintf(p, left, "stream = name=s64\n");
	CU_ASSERT_EQUAL(hsaqm_wl_parse(text, "t", &t_wl, t_wl_err, sizeof(t_wl_err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(t_wl_err, "more than 64 streams"));
}

static void test_every_error_names_its_line_and_problem(void)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		char want[64];
		int rc = hsaqm_wl_parse(bads[i].text, "bad.wl", &t_wl, t_wl_err, sizeof(t_wl_err));

		snprintf(want, sizeof(want), "bad.wl:%d: ", bads[i].line);
		if (rc != -EINVAL || strncmp(t_wl_err, want, strlen(want)) ||
		    !strstr(t_wl_err, bads[i].msg))
			fprintf(stderr, "\ncase %zu: rc %d, got \"%s\", want \"%s...%s\"\n", i, rc,
				t_wl_err, want, bads[i].msg);
		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT_EQUAL(strncmp(t_wl_err, want, strlen(want)), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(t_wl_err, bads[i].msg));
	}
}

static void test_long_line_and_null_input_are_refused(void)
{
	char *text = malloc(3000);

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	strcpy(text, "[workload]\nname=");
	memset(text + strlen(text), 'x', 1500);
	text[16 + 1500] = '\0';
	CU_ASSERT_EQUAL(hsaqm_wl_parse(text, "long.wl", &t_wl, t_wl_err, sizeof(t_wl_err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(t_wl_err, "long.wl:2: line longer than"));
	free(text);
	CU_ASSERT_EQUAL(hsaqm_wl_parse(NULL, "x", &t_wl, t_wl_err, sizeof(t_wl_err)), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_wl_parse("", "x", NULL, t_wl_err, sizeof(t_wl_err)), -EINVAL);
	/* A NULL message buffer is allowed. */
	CU_ASSERT_EQUAL(hsaqm_wl_parse("junk", "x", &t_wl, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_wl_load("/nonexistent/x.wl", &t_wl, t_wl_err, sizeof(t_wl_err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(t_wl_err, "/nonexistent/x.wl"));
}

static const struct t_case cases[] = {
	T_CASE(test_every_error_names_its_line_and_problem),
	T_CASE(test_a_process_takes_64_streams_and_64_tasks_and_says_the_65th),
	T_CASE(test_long_line_and_null_input_are_refused),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "experiments-parse-errors", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("experiments-parse-errors", suites);
}
