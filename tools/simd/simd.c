/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-simd - the device model as its own process. Client processes attach with
 * hsaqm_sim_connect() or, without code changes, through HSAQM_SIM_DEVICE=<socket> and
 * hsaqm_sim_open_env(); each sees the model's HSA and KFD faces as in-process. docs/sim.md,
 * "Shared mode".
 */
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsaqm-sim/sim.h"
#include "hsaqm-common/text.h"

static struct hsaqm_sim *g_sim;

static void on_signal(int sig)
{
	(void)sig;
	hsaqm_sim_serve_stop(g_sim); /* async-signal-safe */
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hsaqm-simd [options]\n"
		"Run the hsaqm device model (an MI308X-class GPU in software) as a device process that\n"
		"several client processes share. Clients find it through HSAQM_SIM_DEVICE=<socket>.\n"
		"Every figure it produces is a model figure, not a hardware result.\n"
		"\n"
		"  -s, --socket PATH        Unix socket to listen on (default: $XDG_RUNTIME_DIR/hsaqm-sim.sock,\n"
		"                           else /tmp/hsaqm-sim-<uid>.sock)\n"
		"  -n, --devices N          number of GPUs, 1..%d (default 1)\n"
		"  -p, --properties FILE    KFD topology properties file of the GPU (default: built-in MI308X)\n"
		"  -t, --timing FILE        timing constants file (docs/sim.md, \"Constants\")\n"
		"  -x, --time-scale X       model ns per wall ns (default 1.0)\n"
		"  -T, --trace FILE         write a Chrome-trace JSON of everything the GPU did (Perfetto)\n"
		"  -k, --kfd-minor N        KFD ioctl minor version to present, 11..18 (default 17)\n"
		"      --sched-policy N     KFD sched_policy: 0 HWS (default), 1, 2 (no HWS)\n"
		"      --no-cwsr            as module parameter cwsr_enable=0\n"
		"      --seed N             PRNG seed of the kernels' duration distributions\n"
		"      --call-return-us N   a client's control call (suspend, resume, update, ...) returns\n"
		"                           N us of model time after the device finished it, however soon\n"
		"                           the host delivered the reply (0..100000, default 0: at once);\n"
		"                           a call's length is then the device's work plus N, not the\n"
		"                           host's wake-ups (docs/sim.md, \"Shared mode\")\n"
		"  -h, --help               this text\n"
		"\n"
		"It prints the socket it listens on, then serves until SIGTERM or SIGINT; clients still\n"
		"attached then lose their queues. Exit status: 0 after a clean stop, 1 on an error,\n"
		"2 on bad usage.\n",
		HSAQM_SIM_MAX_DEVICES);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "devices", required_argument, NULL, 'n' },
		{ "properties", required_argument, NULL, 'p' },
		{ "timing", required_argument, NULL, 't' },
		{ "time-scale", required_argument, NULL, 'x' },
		{ "trace", required_argument, NULL, 'T' },
		{ "kfd-minor", required_argument, NULL, 'k' },
		{ "sched-policy", required_argument, NULL, 'P' },
		{ "no-cwsr", no_argument, NULL, 'C' },
		{ "seed", required_argument, NULL, 'S' },
		{ "call-return-us", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_REAL };
	char def_path[256];
	const char *path = NULL;
	unsigned long long v;
	int c;

	while ((c = getopt_long(argc, argv, "s:n:p:t:x:T:k:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			path = optarg;
			break;
		case 'n':
			if (hsaqm_parse_uint(optarg, 10, 1, HSAQM_SIM_MAX_DEVICES, &v))
				goto bad;
			cfg.num_devices = (unsigned int)v;
			break;
		case 'p':
			cfg.properties_path = optarg;
			break;
		case 't':
			cfg.timing_path = optarg;
			break;
		case 'x':
			/* Above 0: 0 would be the model's default (1.0), not what was asked. */
			if (hsaqm_parse_double(optarg, 0, DBL_MAX, &cfg.time_scale) ||
			    !(cfg.time_scale > 0))
				goto bad;
			break;
		case 'T':
			cfg.trace_path = optarg;
			break;
		case 'k':
			if (hsaqm_parse_uint(optarg, 10, 11, 18, &v))
				goto bad;
			cfg.kfd_minor_version = (uint32_t)v;
			break;
		case 'P':
			if (hsaqm_parse_uint(optarg, 10, 0, 2, &v))
				goto bad;
			cfg.sched_policy = (int)v;
			break;
		case 'C':
			cfg.cwsr_disable = 1;
			break;
		case 'S':
			if (hsaqm_parse_uint(optarg, 10, 0, UINT64_MAX, &v))
				goto bad;
			cfg.seed = v;
			break;
		case 'R':
			if (hsaqm_parse_uint(optarg, 10, 0, 100000, &v))
				goto bad;
			cfg.call_return_ns = v * 1000ull;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hsaqm-simd: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!path) {
		const char *rt = getenv("XDG_RUNTIME_DIR");

		if (rt && *rt)
			snprintf(def_path, sizeof(def_path), "%s/hsaqm-sim.sock", rt);
		else
			snprintf(def_path, sizeof(def_path), "/tmp/hsaqm-sim-%u.sock",
				 (unsigned int)getuid());
		path = def_path;
	}

	int err = hsaqm_sim_create(&cfg, &g_sim);
	if (err) {
		fprintf(stderr, "hsaqm-simd: cannot create the model: %s (HSAQM_LOG=error says more)\n",
			strerror(-err));
		return 1;
	}
	err = hsaqm_sim_listen(g_sim, path);
	if (err == -EEXIST) {
		fprintf(stderr, "hsaqm-simd: %s exists and is not a socket: refusing to replace it "
			"(give --socket a path for the socket itself)\n", path);
		hsaqm_sim_destroy(g_sim);
		return 1;
	}
	if (err) {
		fprintf(stderr, "hsaqm-simd: cannot listen on %s: %s\n", path, strerror(-err));
		hsaqm_sim_destroy(g_sim);
		return 1;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	unsigned int n = cfg.num_devices ? cfg.num_devices : 1;

	printf("hsaqm-simd: listening on %s (%u device%s, pid %d); clients: HSAQM_SIM_DEVICE=%s\n",
	       path, n, n > 1 ? "s" : "", (int)getpid(), path);
	fflush(stdout);

	err = hsaqm_sim_serve(g_sim, path);
	hsaqm_sim_destroy(g_sim);
	if (err) {
		fprintf(stderr, "hsaqm-simd: %s\n", strerror(-err));
		return 1;
	}
	printf("hsaqm-simd: stopped\n");
	return 0;

bad:
	fprintf(stderr, "hsaqm-simd: bad value \"%s\" for an option\n", optarg);
	usage(stderr);
	return 2;
}
