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
#include "hsaqm/kfd.h"
#include "hsaqm/sim.h"
#include "probe.h"
#include "text_internal.h"

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
		"  --check LIST            only these checks: lv1,lv2,lv3,update_queue\n"
		"  --allow-disruptive      also run UPDATE_QUEUE with percentage 0 (unmaps every\n"
		"                          queue of the GPU); refused when other processes have\n"
		"                          queues there\n"
		"  --force                 ... even then (reported to wedge a shared GPU)\n"
		"  --kernel-dir DIR        also load device kernels DIR/spin-<gfx>.hsaco\n"
		"  --timeout MS            time limit of each check (default 60000, quick 20000)\n"
		"  --lv2-interval N        Lv2: kernels per guardian, as lib's lv2_interval\n"
		"                          (default 1, at most %d)\n"
		"  --json                  the report as JSON (schema: docs/probe-report.md)\n"
		"  --markdown              the report as Markdown, for sharing\n"
		"  --emit-sim-profile FILE write the measured constants for the model (sim/)\n"
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
	int rc = hsaqm_parse_uint(s, 10, 0, max, &v); /* the one rule: text_internal.h */

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

int main(int argc, char **argv)
{
	enum { OPT_SIM = 256, OPT_DEVICE, OPT_TRIALS, OPT_QUICK, OPT_NO_LIVE, OPT_DISRUPT,
	       OPT_FORCE, OPT_CHECK, OPT_KDIR, OPT_TIMEOUT, OPT_JSON, OPT_MD, OPT_PROFILE,
	       OPT_QUIET, OPT_VERSION, OPT_LV2_INTERVAL };
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
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hsaqm_probe_options o = { .device = -1 };
	enum hsaqm_probe_format fmt = HSAQM_PROBE_FORMAT_TEXT;
	const char *profile = NULL;
	bool sim_forced = false, quiet = false;
	struct hsaqm_probe_env env;
	struct hsaqm_probe_report *r = NULL;
	struct hsaqm_sim *sim = NULL;
	unsigned long v;
	int c, err, code, idx = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, &idx)) != -1) {
		switch (c) {
		case OPT_SIM:
			sim_forced = true;
			break;
		case OPT_DEVICE:
			if (parse_uint(optarg, HSAQM_PROBE_MAX_GPUS - 1, &v))
				goto bad_value;
			o.device = (int)v;
			break;
		case OPT_TRIALS:
			if (parse_uint(optarg, HSAQM_PROBE_TRIALS_MAX, &v) || !v)
				goto bad_value;
			o.trials = (unsigned int)v;
			break;
		case OPT_QUICK:
			o.quick = true;
			break;
		case OPT_NO_LIVE:
			o.no_live = true;
			break;
		case OPT_DISRUPT:
			o.allow_disruptive = true;
			break;
		case OPT_FORCE:
			o.force = true;
			break;
		case OPT_CHECK:
			if (parse_checks(optarg, &o.checks))
				goto bad_value;
			break;
		case OPT_KDIR:
			o.kernel_dir = optarg;
			break;
		case OPT_TIMEOUT:
			if (parse_uint(optarg, 3600000, &v) || !v)
				goto bad_value;
			o.check_timeout_ms = (unsigned int)v;
			break;
		case OPT_LV2_INTERVAL:
			if (parse_uint(optarg, HSAQM_PROBE_LV2_INTERVAL_MAX, &v) || !v)
				goto bad_value;
			o.lv2_interval = (unsigned int)v;
			break;
		case OPT_JSON:
			fmt = HSAQM_PROBE_FORMAT_JSON;
			break;
		case OPT_MD:
			fmt = HSAQM_PROBE_FORMAT_MARKDOWN;
			break;
		case OPT_PROFILE:
			profile = optarg;
			break;
		case OPT_QUIET:
			quiet = true;
			break;
		case OPT_VERSION:
			printf("hsa-queue-probe %s (report schema %d)\n", hsaqm_version_string(),
			       HSAQM_PROBE_SCHEMA_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "hsa-queue-probe: unknown option '%s' (see --help)\n",
				argv[optind - 1]);
			return HSAQM_PROBE_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hsa-queue-probe: unexpected argument '%s' (see --help)\n",
			argv[optind]);
		return HSAQM_PROBE_EXIT_USAGE;
	}
	const char *pause = getenv("HSAQM_PROBE_TEST_PAUSE_LV3_MS");
	if (pause && *pause && parse_uint(pause, 600000, &v) == 0)
		o.test_pause_lv3_ms = (unsigned int)v;

	if (hsaqm_probe_signals_install())
		fprintf(stderr, "hsa-queue-probe: cannot install signal handlers: %s\n",
			strerror(errno));

	hsaqm_probe_env_system(&env);
	if (!sim_forced) {
		char why[256];

		if (!hardware_usable(&env, why, sizeof(why))) {
			fprintf(stderr, "hsa-queue-probe: no usable AMD GPU (%s): running the "
				"checks on the hsaqm device model; its figures are MODEL figures, "
				"not hardware\n", why);
			sim_forced = true;
		}
	}
	if (sim_forced) {
		struct hsaqm_sim_config cfg = { .num_devices = 1,
						.time_mode = HSAQM_SIM_TIME_REAL };

		err = hsaqm_sim_create(&cfg, &sim);
		if (!err)
			err = hsaqm_probe_env_sim(&env, sim);
		if (err) {
			fprintf(stderr, "hsa-queue-probe: cannot start the device model: %s\n",
				strerror(-err));
			hsaqm_sim_destroy(sim);
			return HSAQM_PROBE_EXIT_FAILURE;
		}
	}
	if (!quiet) {
		env.progress = stderr;
		env.progress_tty = isatty(STDERR_FILENO);
	}

	err = hsaqm_probe_run(&o, &env, &r);
	if (err) {
		if (err == -ENODEV && o.device >= 0) {
			fprintf(stderr, "hsa-queue-probe: --device %d: no such GPU\n", o.device);
			code = HSAQM_PROBE_EXIT_USAGE;
		} else {
			fprintf(stderr, "hsa-queue-probe: %s\n", strerror(-err));
			code = HSAQM_PROBE_EXIT_FAILURE;
		}
		hsaqm_sim_destroy(sim);
		return code;
	}
	const char *nc = getenv("NO_COLOR");
	bool color = fmt == HSAQM_PROBE_FORMAT_TEXT && isatty(STDOUT_FILENO) && !(nc && *nc);
	if (hsaqm_probe_report_write(r, fmt, stdout, color))
		fprintf(stderr, "hsa-queue-probe: writing the report failed\n");
	code = hsaqm_probe_exit_code(r);
	if (profile) {
		uint32_t gpu = o.device >= 0 ? (uint32_t)o.device : 0;

		err = hsaqm_probe_emit_sim_profile(r, gpu, profile);
		if (err) {
			fprintf(stderr, "hsa-queue-probe: --emit-sim-profile %s: %s\n", profile,
				err == -ENODATA ? "nothing measured (Lv3 did not run to a "
						  "'supported' verdict on that GPU)" :
						  strerror(-err));
			code = HSAQM_PROBE_EXIT_FAILURE;
		} else if (!quiet) {
			fprintf(stderr, "hsa-queue-probe: wrote %s%s\n", profile,
				r->is_model ? " (model figures)" : "");
		}
	}
	if (r->interrupted)
		fprintf(stderr, "hsa-queue-probe: interrupted by signal %d; every queue the probe "
			"stopped was restarted\n", hsaqm_probe_interrupted());
	hsaqm_probe_report_free(r);
	hsaqm_sim_destroy(sim);
	return code;
bad_value:
	fprintf(stderr, "hsa-queue-probe: bad value '%s' for --%s (see --help)\n", optarg,
		longopts[idx].name);
	return HSAQM_PROBE_EXIT_USAGE;
}
