/* SPDX-License-Identifier: MIT */
/*
 * probe.h - hsa-queue-probe as a library: the preflight, the per-GPU inventory and the live
 * preemption checks (Lv1, Lv2, Lv3, UPDATE_QUEUE), run against "a KFD and an HSA runtime"
 * that the caller chooses. The executable (main.c) runs it on /dev/kfd and ROCr, or on the
 * device model when there is no GPU; tests run it in-process on models configured to hit
 * every verdict. docs/probe-report.md describes the report, its JSON schema and exit codes.
 *
 * Functions return 0 or a negative errno unless their comment says otherwise.
 */
#ifndef HSAQM_PROBE_H
#define HSAQM_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hsaqm_kfd;
struct hsaqm_kfd_transport;
struct hsaqm_sim;

/* Exit codes of the executable (docs/probe-report.md). Distinct on purpose (rocminfo's are not). */
enum hsaqm_probe_exit {
	HSAQM_PROBE_EXIT_HARDWARE = 0, /* report produced on a real GPU */
	HSAQM_PROBE_EXIT_FAILURE = 1,  /* no report: an error, or interrupted */
	HSAQM_PROBE_EXIT_USAGE = 2,    /* bad command line */
	HSAQM_PROBE_EXIT_MODEL = 3,    /* report produced on the device model (no GPU, or --sim) */
};

/* Version of the JSON report's schema (field "schema_version"). */
#define HSAQM_PROBE_SCHEMA_VERSION 1
#define HSAQM_PROBE_SCHEMA_NAME "hsaqm-probe-report"

enum hsaqm_probe_format {
	HSAQM_PROBE_FORMAT_TEXT = 0,
	HSAQM_PROBE_FORMAT_JSON = 1,
	HSAQM_PROBE_FORMAT_MARKDOWN = 2,
};

/* Trials of each live check when the options give none. */
#define HSAQM_PROBE_TRIALS_DEFAULT 10
#define HSAQM_PROBE_TRIALS_QUICK 3
#define HSAQM_PROBE_TRIALS_MAX 1000
/* Largest --lv2-interval (the stream has 16 kernels: a gate must fall inside it). */
#define HSAQM_PROBE_LV2_INTERVAL_MAX 8

struct hsaqm_probe_options {
	int device;            /* GPU index (0 = first GPU node) to run the checks on; -1 = all */
	unsigned int trials;   /* per check; 0 = default (quick: HSAQM_PROBE_TRIALS_QUICK) */
	bool quick;            /* fewer trials, shorter kernels: for CI */
	/*
	 * Accepted for compatibility, no effect: DBG_TRAP suspend and UPDATE_QUEUE percentage 0
	 * both unmap every queue of the GPU (docs/probe-report.md), so both stop checks run
	 * alike: by default on a GPU no other process uses, and with @force on a shared one.
	 */
	bool allow_disruptive;
	bool force;            /* run the stop checks even when other processes use the GPU */
	bool no_live;          /* preflight and inventory only */
	uint32_t checks;       /* 1 << enum hsaqm_probe_check_id of the checks to run; 0 = all */
	const char *kernel_dir; /* extra device kernels: <dir>/spin-<gfx>.hsaco; NULL = none */
	unsigned int check_timeout_ms; /* per check; 0 = 60000 (quick: 20000) */
	/*
	 * Lv2: kernels per guardian, as lib's lv2_interval (0 = 1, lib's default). With 1 the
	 * gate stops the stream at the next kernel; with N, up to N kernels already past the
	 * last guardian still launch after the close (what "launches_stop" measures).
	 */
	unsigned int lv2_interval;
	/*
	 * Test hook: sleep this long (ms) inside the Lv3 suspended window of the first trial
	 * (also HSAQM_PROBE_TEST_PAUSE_LV3_MS in the executable), so that a signal can land
	 * while a queue is suspended.
	 */
	unsigned int test_pause_lv3_ms;
};

/* Events the test hook of struct hsaqm_probe_env sees. */
enum hsaqm_probe_event {
	HSAQM_PROBE_EV_SUSPENDED = 1,      /* a check has just suspended its queue */
	HSAQM_PROBE_EV_BEFORE_DESTROY = 2, /* cleanup resumed everything, queue not yet destroyed */
};

struct hsaqm_xq;

/* Counts of KFD queues other processes have on a GPU. */
struct hsaqm_probe_others {
	bool known;          /* false: could not be found out (the reason is in source) */
	uint32_t processes;
	uint32_t queues;
	uint32_t pids[8];    /* the first ones (0 when unknown, e.g. on the model) */
	char source[64];     /* "sysfs kfd/proc", "model", "debugfs kfd/rls", or why unknown */
};

/*
 * What the probe runs against. The executable fills it for /dev/kfd + ROCr
 * (hsaqm_probe_env_system()) or for a model (hsaqm_probe_env_sim()); tests adjust the result.
 */
struct hsaqm_probe_env {
	const struct hsaqm_kfd_transport *tp; /* the KFD of the target */
	/* Optional: a handle already open on tp (the probe then neither opens nor closes one). */
	struct hsaqm_kfd *kfd;
	const char *sysfs_root;   /* topology and module parameters of the target */
	const char *debugfs_root; /* where kfd/hqds and kfd/rls are; NULL or "" = none */
	/* The host the preflight examines (the real machine even when the target is a model). */
	const char *host_sysfs_root;   /* NULL = "/sys" */
	const char *host_dev_kfd;      /* NULL = "/dev/kfd" */
	const char *host_debugfs_root; /* NULL = "/sys/kernel/debug" */
	/*
	 * The HSA runtime: a root HsaApiTable (ROCr's layout; the model's HSA face gives one).
	 * NULL = load ROCr (libhsa-runtime64.so) with dlopen when a live check needs it.
	 */
	void *hsa_root_table;
	bool is_model;               /* every figure is a model figure */
	const char *model_name;      /* shown in the header when is_model */
	struct hsaqm_sim *sim;       /* the model (its kernels are model kernels); NULL: hardware */
	/*
	 * true: the probe creates its check queues through the KFD itself (the model: one
	 * open() is one KFD process there, so a runtime queue would live in another process than
	 * the probe's handle). false: through the HSA runtime, found again by ring address with
	 * GET_QUEUE_SNAPSHOT (hardware: every open of /dev/kfd in a process is that process).
	 */
	bool queues_via_kfd;
	/* Issue RUNTIME_ENABLE as ROCr does (EBUSY = the runtime already did: fine). */
	bool runtime_enable;
	/* KFD queues of other processes on a GPU; NULL = scan <sysfs_root>/class/kfd/kfd/proc. */
	int (*others)(void *ctx, uint32_t gpu_id, struct hsaqm_probe_others *out);
	void *others_ctx;
	/* Progress lines (which GPU, which check, trial n of N); NULL = none. */
	FILE *progress;
	bool progress_tty; /* progress is a terminal: trial lines overwrite each other */
	/* Test hook; NULL = none. Runs on the probe's thread. */
	void (*test_hook)(void *ctx, enum hsaqm_probe_event ev, struct hsaqm_kfd *kfd,
			  uint32_t queue_id);
	void *test_hook_ctx;
	/*
	 * Test hook of the Lv1/Lv2 checks: called right after lib holds the queue (@check is
	 * HSAQM_PROBE_CHECK_LV1 or _LV2, @xq the held xqueue), on the probe's thread. A test
	 * can break the hold here (hsaqm_xq_resume) to reach the "not held" verdicts.
	 */
	void (*test_lv12_hook)(void *ctx, int check, struct hsaqm_xq *xq);
};

enum hsaqm_probe_verdict {
	HSAQM_PROBE_SUPPORTED = 0,
	HSAQM_PROBE_NOT_SUPPORTED = 1,
	HSAQM_PROBE_COULD_NOT_TEST = 2,
};

/* A measured figure over n trials, in nanoseconds (or the unit named). */
struct hsaqm_probe_figure {
	char name[48];
	char unit[8]; /* "ns", "bytes", "waves" */
	uint32_t n;
	uint64_t median, p99, min, max;
	uint64_t first; /* the first trial's value (a first suspend can be much slower) */
};

#define HSAQM_PROBE_MAX_FIGURES 16
#define HSAQM_PROBE_MAX_FACTS 12

struct hsaqm_probe_fact {
	char key[32];
	char value[160];
};

enum hsaqm_probe_check_id {
	HSAQM_PROBE_CHECK_LV1 = 0,
	HSAQM_PROBE_CHECK_LV2 = 1,
	HSAQM_PROBE_CHECK_LV3 = 2,
	HSAQM_PROBE_CHECK_UPDATE_QUEUE = 3,
	HSAQM_PROBE_CHECK_CU_MASK = 4,
	HSAQM_PROBE_NCHECKS = 5,
};

struct hsaqm_probe_check {
	bool ran;                      /* false: not selected (--device, --no-live) */
	enum hsaqm_probe_verdict verdict;
	char reason_code[32];          /* machine-readable, docs/probe-report.md lists them */
	char reason[320];              /* why, when not supported or not tested */
	char remedy[320];              /* what would fix it; "" when nothing to do */
	uint32_t trials;               /* trials completed */
	uint32_t nfig;
	struct hsaqm_probe_figure fig[HSAQM_PROBE_MAX_FIGURES];
	uint32_t nfacts;
	struct hsaqm_probe_fact facts[HSAQM_PROBE_MAX_FACTS];
};

#define HSAQM_PROBE_MAX_XCC 16
#define HSAQM_PROBE_MAX_RL_PROCS 8

struct hsaqm_probe_gpu {
	uint32_t index;   /* among GPU nodes, what --device takes */
	uint32_t node_id;
	uint32_t gpu_id;
	char name[96];          /* marketing name */
	char name_source[32];   /* "libdrm", "amdgpu.ids", "hsa agent", "none" */
	char gfx[16];           /* "gfx942" */
	/*
	 * The target the HSA runtime presents, which the device kernel is loaded for: gfx, or
	 * what libhsakmt's HSA_OVERRIDE_GFX_VERSION makes of every GPU (ROCr 5.x on an MI308X).
	 */
	char isa[16];
	uint32_t gfx_target_version;
	uint32_t device_id, location_id, drm_render_minor;
	uint32_t num_xcc, cu_count, simd_per_cu, max_waves_per_simd, wave_front_size;
	uint32_t hqd_slots_per_xcc; /* num_cp_queues */
	uint32_t max_engine_clk_mhz;
	uint32_t fw_version, sdma_fw_version;
	uint32_t capability, debug_prop;
	bool cap_trap_debug, cap_trap_debug_fw, cap_per_queue_reset;
	char capability_text[512];
	uint64_t cwsr_bytes_per_queue; /* 0 when unknown */
	/* debugfs (root only), when readable. */
	bool have_hqds;
	uint32_t hqds_xcc;
	uint32_t hqds_slots_per_xcc;
	uint32_t hqds_active[HSAQM_PROBE_MAX_XCC];
	bool have_rls;
	bool rls_active;
	uint32_t rl_nprocs;
	struct {
		uint32_t pasid, num_queues, mapped;
	} rl_procs[HSAQM_PROBE_MAX_RL_PROCS];
	struct hsaqm_probe_others others;
	/*
	 * Lv3 decided once (kfd-ioctl's hsaqm_kfd_lv3_decide(), as the HSA backend decides): the
	 * level, the mechanism ("dbg_trap", "update_queue", "none") and why; updated by what the
	 * stop checks found.
	 */
	struct {
		int level;
		char mechanism[16];
		char reason[256];
	} lv3;
	/* The device kernel of this GPU: "embedded gfx90a", "model kernel", or why none. */
	bool have_kernel;
	char kernel_text[192];
	struct hsaqm_probe_check checks[HSAQM_PROBE_NCHECKS];
};

enum hsaqm_probe_level { HSAQM_PROBE_OK = 0, HSAQM_PROBE_WARN = 1, HSAQM_PROBE_FAIL = 2 };

#define HSAQM_PROBE_MAX_FINDINGS 16

struct hsaqm_probe_finding {
	enum hsaqm_probe_level level;
	char what[24];      /* "module", "dev_kfd", "group", "debugfs", "kfd_version", ... */
	char text[200];
	char remedy[200];
};

#define HSAQM_PROBE_MAX_GPUS 16

struct hsaqm_probe_report {
	int schema_version;
	char tool_version[16];
	char host[64];
	char date[32];              /* ISO 8601, UTC */
	bool is_model;
	char model_name[96];
	char target_kfd[80];        /* the transport's device path */
	bool interrupted;           /* a signal stopped the run (queues were resumed) */
	bool failed;                /* a safety step failed (a queue could not be resumed) */
	char failure[200];
	uint64_t duration_ns;
	/* Host preflight. */
	uint32_t nfindings;
	struct hsaqm_probe_finding findings[HSAQM_PROBE_MAX_FINDINGS];
	/* The target's KFD. */
	bool kfd_open;
	int kfd_open_errno;
	uint32_t kfd_major, kfd_minor;
	int sched_policy, cwsr_enable, hws_max_conc_proc, queue_preemption_timeout_ms, mes;
	char hsa_runtime[160];      /* what runs the HSA side ("ROCr <path>", "model HSA face") */
	uint32_t ngpus;
	struct hsaqm_probe_gpu gpus[HSAQM_PROBE_MAX_GPUS];
	/* Options as run (for the report header). */
	uint32_t trials;
	bool quick, allow_disruptive, force;
	int device;
	uint32_t lv2_interval;      /* kernels per guardian of the Lv2 check */
};

/**
 * hsaqm_probe_run() - preflight, inventory, live checks; fills a report.
 * @o:   options (NULL = defaults).
 * @env: the target.
 * @out: the report (free with hsaqm_probe_report_free()); filled even when the run was
 *       interrupted or a check failed: the report says so.
 *
 * Every queue a check suspends is resumed before this returns, on every path (interrupts
 * included: hsaqm_probe_signals_install() makes SIGINT/SIGTERM stop the run cleanly).
 *
 * Return: 0 (look at report->interrupted and report->failed); -EINVAL for NULL arguments or
 * options out of range; -ENOMEM.
 */
int hsaqm_probe_run(const struct hsaqm_probe_options *o, const struct hsaqm_probe_env *env,
		    struct hsaqm_probe_report **out);

/** hsaqm_probe_report_free() - free a report (NULL is fine). */
void hsaqm_probe_report_free(struct hsaqm_probe_report *r);

/**
 * hsaqm_probe_exit_code() - the executable's exit code for a report.
 *
 * Return: an enum hsaqm_probe_exit (FAILURE for NULL, an interrupted or failed run).
 */
int hsaqm_probe_exit_code(const struct hsaqm_probe_report *r);

/**
 * hsaqm_probe_report_write() - render a report.
 * @color: ANSI colours (the caller decides: a terminal and NO_COLOR unset).
 *
 * Return: 0; -EINVAL for NULL arguments or an unknown format; -EIO when the stream failed.
 */
int hsaqm_probe_report_write(const struct hsaqm_probe_report *r, enum hsaqm_probe_format fmt,
			     FILE *f, bool color);

/**
 * hsaqm_probe_emit_sim_profile() - write the measured constants of GPU @gpu in the timing
 * format sim/ loads ("name value  # source", docs/sim.md), so the model can be calibrated.
 *
 * Return: 0; -EINVAL for bad arguments; -ENODATA when no constant was measured (Lv3 did not
 * run or was not supported); -errno of fopen/fclose.
 */
int hsaqm_probe_emit_sim_profile(const struct hsaqm_probe_report *r, uint32_t gpu,
				 const char *path);

/**
 * hsaqm_probe_write_gpu_profile() - write what the stop checks found on every GPU (which
 * mechanisms work, their stop and restart medians) as the per-GPU profile the tool library
 * reads (kfd-ioctl's format, docs/probe-report.md "The GPU profile").
 *
 * Return: 0; -EINVAL for bad arguments; -ENODATA when no stop check ran; -errno of the write.
 */
int hsaqm_probe_write_gpu_profile(const struct hsaqm_probe_report *r, const char *path);

/**
 * hsaqm_probe_env_system() - an environment on /dev/kfd, /sys and ROCr (loaded on demand).
 *
 * Return: 0; -EINVAL for NULL.
 */
int hsaqm_probe_env_system(struct hsaqm_probe_env *env);

/**
 * hsaqm_probe_env_sim() - an environment on a model: its KFD face, sysfs tree, HSA face and
 * model kernels; queues made through the KFD face; RUNTIME_ENABLE done by the probe (as
 * ROCr would); other processes counted by the model.
 *
 * Return: 0; -EINVAL for NULL arguments; -ENODEV when the model has no faces.
 */
int hsaqm_probe_env_sim(struct hsaqm_probe_env *env, struct hsaqm_sim *sim);

/**
 * hsaqm_probe_signals_install() - make SIGINT and SIGTERM stop a run cleanly: the live check
 * in progress resumes its queue, cleans up, and hsaqm_probe_run() returns with
 * report->interrupted set. A second signal during cleanup is noted, not obeyed.
 *
 * Return: 0; -errno from sigaction().
 */
int hsaqm_probe_signals_install(void);

/**
 * hsaqm_probe_interrupted() - the signal that stopped the run, 0 if none.
 *
 * Return: the signal number or 0.
 */
int hsaqm_probe_interrupted(void);

/** hsaqm_probe_interrupt_reset() - forget an earlier interrupt (tests, before another run). */
void hsaqm_probe_interrupt_reset(void);

/** hsaqm_probe_verdict_name() - "supported", "not supported", "could not test"; "?" else. */
const char *hsaqm_probe_verdict_name(enum hsaqm_probe_verdict v);

/** hsaqm_probe_check_name() - "lv1", "lv2", "lv3", "update_queue", "cu_mask"; "?" else. */
const char *hsaqm_probe_check_name(enum hsaqm_probe_check_id id);

/**
 * hsaqm_probe_gfx_name() - "gfx942" from gfx_target_version 90402 (major, minor, stepping in
 * hex: 90010 is gfx90a).
 *
 * Return: 0; -EINVAL for a NULL buffer, a size under 8 or a version 0.
 */
int hsaqm_probe_gfx_name(uint32_t gfx_target_version, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_PROBE_H */
