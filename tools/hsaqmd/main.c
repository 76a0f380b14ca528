/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd - the node-wide hsaqm scheduler (docs/daemon.md).
 *
 *   hsaqmd [--socket PATH] [--config FILE] [--foreground] [--ready-fd FD]
 *
 * Runs in the foreground (systemd and containers supervise it); logs through HSAQM_LOG.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon_internal.h"
#include "hsaqm-common/log.h"
#include "hsaqm/hsaqm.h"
#include "hsaqm-dclient/proto.h"

#define DEFAULT_CONFIG "/etc/hsaqm/hsaqmd.conf"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hsaqmd [--socket PATH] [--config FILE] [--busy-poll] [--foreground] [--ready-fd FD] [--check]\n"
		"  --socket PATH   listen here (default /run/hsaqm/hsaqmd.sock as root,\n"
		"                  $XDG_RUNTIME_DIR/hsaqm/hsaqmd.sock otherwise)\n"
		"  --config FILE   configuration (default " DEFAULT_CONFIG " when it exists)\n"
		"  --busy-poll     spin on the clients' state words while two or more are\n"
		"                  connected (one core busy; docs/daemon.md), as busy_poll = yes\n"
		"  --foreground    accepted for compatibility: hsaqmd never forks\n"
		"  --ready-fd FD   write \"ready\" to FD once listening\n"
		"  --check         read the configuration, say whether it is valid, exit\n"
		"Logging: HSAQM_LOG=error|warn|info|debug. Stop with SIGTERM or SIGINT.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "busy-poll", no_argument, NULL, 'b' },
		{ "check", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *sock = NULL;
	struct hsaqmd_config cfg;
	char err[256] = "";
	int c, rc, ready_fd = -1;
	bool busy_poll = false, check = false;

	/* The daemon's lines, and lib's said in its process, read "hsaqmd: ...". */
	hsaqm_log_set_program("hsaqmd");
	while ((c = getopt_long(argc, argv, "s:c:fh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			sock = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'f':
			break;
		case 'b':
			busy_poll = true;
			break;
		case 'k':
			check = true;
			break;
		case 'r': {
			char *end;
			long v;

			/* A number, and an open fd: atoi("abc") was 0, and "ready" went to stdin. */
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 0 || v > 1 << 20 ||
			    fcntl((int)v, F_GETFD) < 0) {
				fprintf(stderr, "hsaqmd: --ready-fd \"%s\" is not an open file "
					"descriptor\n", optarg);
				return 2;
			}
			ready_fd = (int)v;
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("hsaqmd %s (protocol %d)\n", hsaqm_version_string(), HSAQMD_PROTO_VERSION);
			return 0;
		default:
			/* getopt said which option, on one line. */
			fprintf(stderr, "hsaqmd: see hsaqmd --help\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hsaqmd: unexpected \"%s\" (hsaqmd takes options only; see --help)\n",
			argv[optind]);
		return 2;
	}
	hsaqmd_config_default(&cfg);
	if (!config && access(DEFAULT_CONFIG, R_OK) == 0)
		config = DEFAULT_CONFIG;
	if (config) {
		rc = hsaqmd_config_load(&cfg, config, err, sizeof(err));
		if (rc < 0) {
			/* A bad line: "FILE:LINE: why"; else the file's own error. */
			if (rc == -EINVAL)
				fprintf(stderr, "hsaqmd: %s\n", err);
			else
				fprintf(stderr, "hsaqmd: %s: %s\n", config, strerror(-rc));
			return 2;
		}
	}
	if (check) {
		/* The configuration only (a deployment's check, an edit before a restart). */
		printf("hsaqmd: %s: the configuration is valid\n", config ? config : "(defaults)");
		if (cfg.deprecated_line)
			printf("hsaqmd: %s:%d: \"hpf PERIOD SLICE\" is deprecated: write \"hpf "
			       "PERIOD:SLICE\"\n", config, cfg.deprecated_line);
		return 0;
	}
	if (cfg.deprecated_line)
		fprintf(stderr, "hsaqmd: %s:%d: \"hpf PERIOD SLICE\" is deprecated: write \"hpf "
			"PERIOD:SLICE\" (the syntax of HSAQM_POLICY and hsaqmctl)\n", config,
			cfg.deprecated_line);
	if (sock) {
		if (*sock != '/' || strlen(sock) >= sizeof(cfg.socket_path)) {
			fprintf(stderr, "hsaqmd: --socket needs an absolute path under %zu bytes\n",
				sizeof(cfg.socket_path));
			return 2;
		}
		strcpy(cfg.socket_path, sock);
		snprintf(cfg.socket_from, sizeof(cfg.socket_from), "--socket");
	} else if (cfg.socket_path[0] && config) {
		/* A refusal's advice names where to change the path: this line, not --socket. */
		snprintf(cfg.socket_from, sizeof(cfg.socket_from), "%s:%d (socket =)", config,
			 cfg.socket_line);
	}
	if (busy_poll)
		cfg.busy_poll = true;
	/* hsaqmd_run() says why it cannot run, once: nothing more to print here. */
	return hsaqmd_run(&cfg, ready_fd) < 0 ? 1 : 0;
}
