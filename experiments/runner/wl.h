/* SPDX-License-Identifier: MIT */
/*
 * wl.h - workload files (docs/experiments.md): what the scenario runner runs.
 *
 * A workload file is a person-readable INI-like text: [workload], [model NAME] (a model as a
 * sequence of kernels), [process NAME] (its streams and tasks; a task submits a model on a
 * stream under an arrival process), [config NAME] (a configuration to compare: native, HIP
 * priority only, hsaqm at a level with its settings), [reference CONFIG] (the users' own
 * measurements the model must reproduce) and [pass] (the users' pass rule). The parser has
 * no dependency beyond libc and reports every error as "file:line: message".
 */
#ifndef HSAQM_EXPERIMENTS_WL_H
#define HSAQM_EXPERIMENTS_WL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HSAQM_WL_NAME_MAX 48
#define HSAQM_WL_TEXT_MAX 256
#define HSAQM_WL_MAX_MODELS 16
#define HSAQM_WL_MAX_KGROUPS 64
#define HSAQM_WL_MAX_PROCESSES 16
#define HSAQM_WL_MAX_STREAMS 64 /* HSA queues per process: a serving process has dozens */
#define HSAQM_WL_MAX_TASKS 64   /* at least one per stream */
#define HSAQM_WL_MAX_CONFIGS 16
#define HSAQM_WL_MAX_REFS 64

enum hsaqm_wl_dist { HSAQM_WL_DIST_FIXED, HSAQM_WL_DIST_UNIFORM, HSAQM_WL_DIST_NORMAL };

/* count kernels, each of wgs workgroups of waves waves, each workgroup lasting time_ns. */
struct hsaqm_wl_kernel {
	uint32_t count;
	uint32_t wgs;
	uint32_t waves;
	uint64_t time_ns;
	uint64_t spread_ns;
	enum hsaqm_wl_dist dist;
	int line;
};

struct hsaqm_wl_model {
	char name[HSAQM_WL_NAME_MAX];
	uint32_t batch;              /* images per request / iteration (images_per_sec) */
	char note[HSAQM_WL_TEXT_MAX];
	struct hsaqm_wl_kernel k[HSAQM_WL_MAX_KGROUPS];
	unsigned int nk;
	uint32_t kernels;            /* sum of the counts */
	int line;
};

enum hsaqm_wl_arrival {
	HSAQM_WL_ARR_PERIODIC, /* open loop, one request every period (optionally jittered) */
	HSAQM_WL_ARR_POISSON,  /* open loop, exponential gaps at a rate */
	HSAQM_WL_ARR_CLOSED,   /* closed loop: depth requests in flight, think time after each */
	HSAQM_WL_ARR_BURST,    /* open loop, burst requests at once every period */
};

/* HIP stream priority of a stream (what "HIP priority only" applies). */
enum hsaqm_wl_prio { HSAQM_WL_PRIO_NORMAL, HSAQM_WL_PRIO_HIGH, HSAQM_WL_PRIO_LOW };

struct hsaqm_wl_stream {
	char name[HSAQM_WL_NAME_MAX];
	enum hsaqm_wl_prio prio;
	int hsaqm_priority;          /* xqueue priority in hsaqm configurations */
	uint32_t ring;               /* packets, power of two */
	uint64_t create_ns;          /* created this long after the run's start; 0 = at set-up */
	int line;
};

struct hsaqm_wl_task {
	char name[HSAQM_WL_NAME_MAX];
	char group[HSAQM_WL_NAME_MAX]; /* report grouping; default the task's name */
	unsigned int stream;
	unsigned int model;
	enum hsaqm_wl_arrival arrival;
	uint64_t period_ns;          /* periodic, burst (rate=R gives 1/R) */
	double rate;                 /* poisson: requests per second */
	uint64_t jitter_ns;          /* periodic: uniform +- jitter on each arrival */
	uint64_t think_ns;           /* closed: gap after each completion */
	uint32_t depth;              /* closed: requests in flight */
	uint32_t burst;              /* burst: requests per burst */
	uint64_t start_ns;           /* first arrival after the run's start */
	uint32_t requests;           /* 0 = until the run ends */
	uint64_t launch_ns;          /* host launch time per kernel; 0 = whole request at once */
	int line;
};

enum hsaqm_wl_role { HSAQM_WL_ROLE_ONLINE, HSAQM_WL_ROLE_OFFLINE };

struct hsaqm_wl_process {
	char name[HSAQM_WL_NAME_MAX];
	enum hsaqm_wl_role role;
	bool host_lock;              /* one thread launches at a time (Python's GIL) */
	struct hsaqm_wl_stream streams[HSAQM_WL_MAX_STREAMS];
	unsigned int nstreams;
	struct hsaqm_wl_task tasks[HSAQM_WL_MAX_TASKS];
	unsigned int ntasks;
	int line;
};

enum hsaqm_wl_mode { HSAQM_WL_MODE_NATIVE, HSAQM_WL_MODE_HIP, HSAQM_WL_MODE_HSAQM };

struct hsaqm_wl_config {
	char name[HSAQM_WL_NAME_MAX];
	char label[HSAQM_WL_NAME_MAX];
	enum hsaqm_wl_mode mode;
	int level;                   /* hsaqm: 0..3 */
	uint32_t lv1_threshold, lv1_batch, lv2_interval; /* 0 = lib's default */
	int policy;                  /* enum hsaqm_policy_kind */
	uint32_t floor_period_us, floor_slice_us;
	bool hip_priority;           /* hsaqm: also give the hardware queues the stream priority */
	char spatial[24];            /* hsaqm: HSAQM_SPATIAL ("" = the tool's default) */
	double time_scale;           /* 0 = the workload's */
	int line;
};

/* One of the users' measured figures: process.metric in the run of a configuration. */
struct hsaqm_wl_ref {
	char config[HSAQM_WL_NAME_MAX];
	char process[HSAQM_WL_NAME_MAX];
	char metric[HSAQM_WL_NAME_MAX];
	double lo, hi;               /* a single value has lo == hi */
	int line;
};

struct hsaqm_wl_file {
	char name[HSAQM_WL_NAME_MAX];
	char description[HSAQM_WL_TEXT_MAX];
	uint64_t length_ns;
	uint64_t warmup_ns;
	uint64_t seed;
	double time_scale;           /* REAL-mode model ns per wall ns */
	bool calibration;            /* each process runs alone only (calibration rows) */
	bool edge_checks;            /* log every request; the runner evaluates the edge criteria */
	struct hsaqm_wl_model models[HSAQM_WL_MAX_MODELS];
	unsigned int nmodels;
	struct hsaqm_wl_process procs[HSAQM_WL_MAX_PROCESSES];
	unsigned int nprocs;
	struct hsaqm_wl_config configs[HSAQM_WL_MAX_CONFIGS];
	unsigned int nconfigs;
	struct hsaqm_wl_ref refs[HSAQM_WL_MAX_REFS];
	unsigned int nrefs;
	/* The users' pass rule; 0 = not evaluated. */
	double pass_online_p99;      /* online P99 <= this x its standalone P99 */
	double pass_offline_tput;    /* offline throughput >= this x its standalone */
	double latency_tolerance;    /* calibration: +- share for latencies (0.25) */
	double throughput_tolerance; /* calibration: +- share for throughputs (0.10) */
	double pass_online_max_ms;   /* every online request's latency < this; 0 = not evaluated */
	double pass_offline_loss;    /* offline closed loops lose < this share of standalone; 0 = no */
};

/**
 * hsaqm_wl_parse() - parse a workload file's text.
 * @text: the whole file, NUL-terminated.
 * @fname: the name used in messages.
 * @out: filled in (zeroed first).
 * @err: receives "fname:line: message" on failure (may be NULL).
 *
 * Return: 0; -EINVAL for any error in the text (the first one is reported) or NULL
 * @text/@out.
 */
int hsaqm_wl_parse(const char *text, const char *fname, struct hsaqm_wl_file *out, char *err,
		   size_t errlen);

/**
 * hsaqm_wl_load() - read and parse a file.
 *
 * Return: 0; -ENOENT/-EACCES/-EIO reading it (message in @err); as hsaqm_wl_parse().
 */
int hsaqm_wl_load(const char *path, struct hsaqm_wl_file *out, char *err, size_t errlen);

/** hsaqm_wl_find_config() - index of a configuration by name, or -ENOENT. */
int hsaqm_wl_find_config(const struct hsaqm_wl_file *wl, const char *name);

/** hsaqm_wl_find_process() - index of a process by name, or -ENOENT. */
int hsaqm_wl_find_process(const struct hsaqm_wl_file *wl, const char *name);

/** hsaqm_wl_mode_name() - "native", "hip-priority", "hsaqm"; "?" otherwise. */
const char *hsaqm_wl_mode_name(enum hsaqm_wl_mode mode);

/** hsaqm_wl_arrival_name() - "periodic", "poisson", "closed", "burst"; "?" otherwise. */
const char *hsaqm_wl_arrival_name(enum hsaqm_wl_arrival a);

/** hsaqm_wl_prio_name() - "normal", "high", "low"; "?" otherwise. */
const char *hsaqm_wl_prio_name(enum hsaqm_wl_prio p);

/**
 * hsaqm_wl_dump_json() - the parsed file as one JSON document (what the Python runner
 * reads), malloc'ed into *@json.
 *
 * Return: 0; -EINVAL for NULL; -ENOMEM.
 */
int hsaqm_wl_dump_json(const struct hsaqm_wl_file *wl, char **json);

#endif /* HSAQM_EXPERIMENTS_WL_H */
