// SPDX-License-Identifier: MIT
/*
 * hsa-queue-probe: what preemption each AMD GPU of this machine really supports, measured.
 * Runs on /dev/kfd and ROCr; without a usable GPU (or with --sim) on the device model, and
 * then says so on every figure. docs/probe-report.md describes the output and exit codes.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsaqm/hsaqm.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-sim/sim.h"
#include "probe.h"
#include "hsaqm-common/text.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hsa-queue-probe [options]\n"
		"\n"
		"Preflight, per-GPU inventory and measured preemption levels (Lv1, Lv2, Lv3,\n"
		"UPDATE_QUEUE) of this machine's AMD GPUs. Without a usable GPU the checks run on\n"
		"the hsaqm device model and every figure is marked as a model figure.\n"
		"\n"
		"options:\n"
		"  --sim                   run on the device model even if a GPU is present\n"
		"  --device N              run the live checks on GPU N only (default: all)\n"
		"  --trials N              trials per check (default %d, --quick %d)\n"
		"  --quick                 fewer trials, shorter kernels (CI)\n"
		"  --no-live               preflight and inventory only\n"
		"  --check LIST            only these checks: lv1,lv2,lv3,update_queue,cu_mask\n"
		"  --force                 run the stop checks (DBG_TRAP, UPDATE_QUEUE, CU mask:\n"
		"                          each unmaps every queue of the GPU) even when other\n"
		"                          processes have queues there\n"
		"  --allow-disruptive      accepted, no effect (both stop checks run by default)\n"
		"  --kernel-dir DIR        also load device kernels DIR/spin-<gfx>.hsaco\n"
		"  --timeout MS            time limit of each check (default 60000, quick 20000)\n"
		"  --lv2-interval N        Lv2: kernels per guardian, as lib's lv2_interval\n"
		"                          (default 1, at most %d)\n"
		"  --json                  the report as JSON (schema: docs/probe-report.md)\n"
		"  --markdown              the report as Markdown, for sharing\n"
		"  --emit-sim-profile FILE write the measured constants for the model (sim/)\n"
		"  --write-profile FILE    write the GPU profile the hsaqm tool reads\n"
		"                          (HSAQM_GPU_PROFILE): which stop mechanisms work\n"
		"  --sim-time virtual|real the model's clock (default virtual: figures are device\n"
		"                          time, untouched by the host's load)\n"
		"  --quiet                 no progress lines on stderr\n"
		"  --version, -h/--help\n"
		"\n"
		"exit codes:\n"
		"  0  report produced on real hardware\n"
		"  1  failure (no report, interrupted, a queue could not be restarted, or the\n"
		"     --emit-sim-profile file could not be written)\n"
		"  2  usage error (bad option, no such --device)\n"
		"  3  report produced on the device model (no usable GPU, or --sim)\n"
		"\n"
		"Colour only when stdout is a terminal and NO_COLOR is unset.\n",
		HSAQM_PROBE_TRIALS_DEFAULT, HSAQM_PROBE_TRIALS_QUICK, HSAQM_PROBE_LV2_INTERVAL_MAX);
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long long v;
	int rc = hsaqm_parse_uint(s, 10, 0, max, &v); /* the one rule: hsaqm-common/text.h */

	if (!rc)
		*out = (unsigned long)v;
	return rc;
}

/* "lv1,lv3" -> a mask of enum hsaqm_probe_check_id bits. */
static int parse_checks(const char *s, uint32_t *mask)
{
	char buf[128];
	char *save = NULL;

	if (!s || strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	*mask = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int found = 0;

		for (int i = 0; i < HSAQM_PROBE_NCHECKS; i++) {
			if (!strcmp(t, hsaqm_probe_check_name(i))) {
				*mask |= 1u << i;
				found = 1;
			}
		}
		if (!found)
			return -EINVAL;
	}
	return *mask ? 0 : -EINVAL;
}

/* Whether /dev/kfd opens and its topology has a GPU; @why says what is missing. */
static bool hardware_usable(const struct hsaqm_probe_env *env, char *why, size_t len)
{
	struct hsaqm_kfd *kfd = NULL;
	struct hsaqm_topology *topo = NULL;
	bool gpu = false;
	int err = hsaqm_kfd_open(env->tp, &kfd);

	if (err) {
		snprintf(why, len, "%s: %s", env->tp->dev_path ? env->tp->dev_path : "/dev/kfd",
			 strerror(-err));
		return false;
	}
	hsaqm_kfd_close(kfd);
	if (hsaqm_topology_load(env->sysfs_root, &topo) == 0) {
		for (uint32_t i = 0; i < topo->n_nodes; i++)
			gpu |= topo->nodes[i].is_gpu;
		hsaqm_topology_free(topo);
	}
	if (!gpu)
		snprintf(why, len, "the KFD topology lists no GPU");
	return gpu;
}

/* What the command line asked for. */
struct cli {
	struct hsaqm_probe_options o;
	enum hsaqm_probe_format fmt;
	const char *profile;       /* --emit-sim-profile */
	const char *gpu_profile;   /* --write-profile */
	bool sim_forced, quiet, real_time;
};

enum { OPT_SIM = 256, OPT_DEVICE, OPT_TRIALS, OPT_QUICK, OPT_NO_LIVE, OPT_DISRUPT, OPT_FORCE,
       OPT_CHECK, OPT_KDIR, OPT_TIMEOUT, OPT_JSON, OPT_MD, OPT_PROFILE, OPT_QUIET, OPT_VERSION,
       OPT_LV2_INTERVAL, OPT_GPU_PROFILE, OPT_SIM_TIME };

static const struct option longopts[] = {
	{ "sim", no_argument, NULL, OPT_SIM },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "trials", required_argument, NULL, OPT_TRIALS },
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "no-live", no_argument, NULL, OPT_NO_LIVE },
	{ "allow-disruptive", no_argument, NULL, OPT_DISRUPT },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "check", required_argument, NULL, OPT_CHECK },
	{ "kernel-dir", required_argument, NULL, OPT_KDIR },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "lv2-interval", required_argument, NULL, OPT_LV2_INTERVAL },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "markdown", no_argument, NULL, OPT_MD },
	{ "emit-sim-profile", required_argument, NULL, OPT_PROFILE },
	{ "write-profile", required_argument, NULL, OPT_GPU_PROFILE },
	{ "sim-time", required_argument, NULL, OPT_SIM_TIME },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* One option with a value; 0, or -EINVAL for a bad value. */
static int take_value(struct cli *cl, int opt, const char *arg)
{
	unsigned long v;

	switch (opt) {
	case OPT_DEVICE:
		if (parse_uint(arg, HSAQM_PROBE_MAX_GPUS - 1, &v))
			return -EINVAL;
		cl->o.device = (int)v;
		return 0;
	case OPT_TRIALS:
		if (parse_uint(arg, HSAQM_PROBE_TRIALS_MAX, &v) || !v)
			return -EINVAL;
		cl->o.trials = (unsigned int)v;
		return 0;
	case OPT_CHECK:
		return parse_checks(arg, &cl->o.checks);
	case OPT_TIMEOUT:
		if (parse_uint(arg, 3600000, &v) || !v)
			return -EINVAL;
		cl->o.check_timeout_ms = (unsigned int)v;
		return 0;
	case OPT_LV2_INTERVAL:
		if (parse_uint(arg, HSAQM_PROBE_LV2_INTERVAL_MAX, &v) || !v)
			return -EINVAL;
		cl->o.lv2_interval = (unsigned int)v;
		return 0;
	case OPT_SIM_TIME:
		if (strcmp(arg, "virtual") && strcmp(arg, "real"))
			return -EINVAL;
		cl->real_time = !strcmp(arg, "real");
		return 0;
	case OPT_KDIR:
		cl->o.kernel_dir = arg;
		return 0;
	case OPT_PROFILE:
		cl->profile = arg;
		return 0;
	case OPT_GPU_PROFILE:
		cl->gpu_profile = arg;
		return 0;
	}
	return -EINVAL;
}

/* A flag option; false when @opt is not one. */
static bool take_flag(struct cli *cl, int opt)
{
	switch (opt) {
	case OPT_SIM:
		cl->sim_forced = true;
		return true;
	case OPT_QUICK:
		cl->o.quick = true;
		return true;
	case OPT_NO_LIVE:
		cl->o.no_live = true;
		return true;
	case OPT_DISRUPT:
		cl->o.allow_disruptive = true;
		return true;
	case OPT_FORCE:
		cl->o.force = true;
		return true;
	case OPT_JSON:
		cl->fmt = HSAQM_PROBE_FORMAT_JSON;
		return true;
	case OPT_MD:
		cl->fmt = HSAQM_PROBE_FORMAT_MARKDOWN;
		return true;
	case OPT_QUIET:
		cl->quiet = true;
		return true;
	}
	return false;
}

/* The option getopt stopped at, as the user typed it. */
static const char *bad_option_name(int argc, char **argv)
{
	const char *a = optind > 0 && optind <= argc ? argv[optind - 1] : "?";

	return a ? a : "?";
}

/*
 * Parse the command line. Return: -1 to go on; otherwise the exit code (0 after --help or
 * --version, HSAQM_PROBE_EXIT_USAGE after one message naming the bad input).
 */
static int parse_args(int argc, char **argv, struct cli *cl)
{
	int c, idx = 0;

	memset(cl, 0, sizeof(*cl));
	cl->o.device = -1;
	cl->fmt = HSAQM_PROBE_FORMAT_TEXT;
	opterr = 0;
	/* A leading ':' makes a missing value ':' rather than '?': two different messages. */
	while ((c = getopt_long(argc, argv, ":h", longopts, &idx)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == OPT_VERSION) {
			printf("hsa-queue-probe %s (report schema %d)\n", hsaqm_version_string(),
			       HSAQM_PROBE_SCHEMA_VERSION);
			return 0;
		}
		if (c == ':') {
			fprintf(stderr, "hsa-queue-probe: option '%s' needs a value (see --help)\n",
				bad_option_name(argc, argv));
			return HSAQM_PROBE_EXIT_USAGE;
		}
		if (c == '?') {
			fprintf(stderr, "hsa-queue-probe: unknown option '%s' (see --help)\n",
				bad_option_name(argc, argv));
			return HSAQM_PROBE_EXIT_USAGE;
		}
		if (take_flag(cl, c))
			continue;
		if (take_value(cl, c, optarg)) {
			fprintf(stderr, "hsa-queue-probe: bad value '%s' for --%s (see --help)\n",
				optarg, longopts[idx].name);
			return HSAQM_PROBE_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hsa-queue-probe: unexpected argument '%s' (see --help)\n",
			argv[optind]);
		return HSAQM_PROBE_EXIT_USAGE;
	}
#ifdef HSAQM_PROBE_TEST_BUILD
	/*
	 * Only in tests/'s build of this file (hsa-queue-probe-test): a pause inside the Lv3
	 * suspended window, so that the test's SIGINT lands while a queue is suspended. The
	 * installed probe reads no test-only variable.
	 */
	const char *pause = getenv("HSAQM_PROBE_TEST_PAUSE_LV3_MS");
	unsigned long v;

	if (pause && *pause && parse_uint(pause, 600000, &v) == 0)
		cl->o.test_pause_lv3_ms = (unsigned int)v;
#endif
	return -1;
}

/* The target: /dev/kfd and ROCr, or the model. 0, or the exit code of a failure. */
static int start_target(struct cli *cl, struct hsaqm_probe_env *env, struct hsaqm_sim **sim)
{
	char why[256];
	int err;

	hsaqm_probe_env_system(env);
	if (!cl->sim_forced && !hardware_usable(env, why, sizeof(why))) {
		fprintf(stderr, "hsa-queue-probe: no usable AMD GPU (%s): running the checks on the "
			"hsaqm device model; its figures are MODEL figures, not hardware\n", why);
		cl->sim_forced = true;
	}
	if (cl->sim_forced) {
		/* Virtual time by default: device time that the host's load cannot stretch. */
		struct hsaqm_sim_config cfg = { .num_devices = 1,
						.time_mode = cl->real_time ? HSAQM_SIM_TIME_REAL :
									     HSAQM_SIM_TIME_VIRTUAL };

		err = hsaqm_sim_create(&cfg, sim);
		if (!err)
			err = hsaqm_probe_env_sim(env, *sim);
		if (err) {
			fprintf(stderr, "hsa-queue-probe: cannot start the device model: %s\n",
				strerror(-err));
			hsaqm_sim_destroy(*sim);
			*sim = NULL;
			return HSAQM_PROBE_EXIT_FAILURE;
		}
	}
	if (!cl->quiet) {
		env->progress = stderr;
		env->progress_tty = isatty(STDERR_FILENO);
	}
	return 0;
}

/* --emit-sim-profile and --write-profile; the exit code, possibly turned into a failure. */
static int write_files(const struct cli *cl, const struct hsaqm_probe_report *r, int code)
{
	int err;

	if (cl->profile) {
		uint32_t gpu = cl->o.device >= 0 ? (uint32_t)cl->o.device : 0;

		err = hsaqm_probe_emit_sim_profile(r, gpu, cl->profile);
		if (err) {
			fprintf(stderr, "hsa-queue-probe: --emit-sim-profile %s: %s\n", cl->profile,
				err == -ENODATA ? "nothing measured (no stop check was supported "
						  "on that GPU)" : strerror(-err));
			code = HSAQM_PROBE_EXIT_FAILURE;
		} else if (!cl->quiet) {
			fprintf(stderr, "hsa-queue-probe: wrote %s%s\n", cl->profile,
				r->is_model ? " (model figures)" : "");
		}
	}
	if (cl->gpu_profile) {
		err = hsaqm_probe_write_gpu_profile(r, cl->gpu_profile);
		if (err) {
			fprintf(stderr, "hsa-queue-probe: --write-profile %s: %s\n", cl->gpu_profile,
				err == -ENODATA ? "no stop check ran to a verdict" : strerror(-err));
			code = HSAQM_PROBE_EXIT_FAILURE;
		} else if (!cl->quiet) {
			fprintf(stderr, "hsa-queue-probe: wrote the GPU profile %s%s\n",
				cl->gpu_profile, r->is_model ? " (model figures)" : "");
		}
	}
	return code;
}

/* Render the report and write the files; the exit code. */
static int finish(const struct cli *cl, const struct hsaqm_probe_report *r)
{
	const char *nc = getenv("NO_COLOR");
	bool color = cl->fmt == HSAQM_PROBE_FORMAT_TEXT && isatty(STDOUT_FILENO) && !(nc && *nc);
	int code;

	if (hsaqm_probe_report_write(r, cl->fmt, stdout, color))
		fprintf(stderr, "hsa-queue-probe: writing the report failed\n");
	code = write_files(cl, r, hsaqm_probe_exit_code(r));
	if (r->interrupted)
		fprintf(stderr, "hsa-queue-probe: interrupted by signal %d; every queue the probe "
			"stopped was restarted\n", hsaqm_probe_interrupted());
	return code;
}

int main(int argc, char **argv)
{
	struct cli cl;
	struct hsaqm_probe_env env;
	struct hsaqm_probe_report *r = NULL;
	struct hsaqm_sim *sim = NULL;
	int err, code = parse_args(argc, argv, &cl);

	if (code >= 0)
		return code;
	if (hsaqm_probe_signals_install())
		fprintf(stderr, "hsa-queue-probe: cannot install signal handlers: %s\n",
			strerror(errno));
	code = start_target(&cl, &env, &sim);
	if (code)
		return code;
	err = hsaqm_probe_run(&cl.o, &env, &r);
	if (err == -ENODEV && cl.o.device >= 0) {
		fprintf(stderr, "hsa-queue-probe: --device %d: no such GPU\n", cl.o.device);
		code = HSAQM_PROBE_EXIT_USAGE;
	} else if (err) {
		fprintf(stderr, "hsa-queue-probe: %s\n", strerror(-err));
		code = HSAQM_PROBE_EXIT_FAILURE;
	} else {
		code = finish(&cl, r);
	}
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
	return code;
}
