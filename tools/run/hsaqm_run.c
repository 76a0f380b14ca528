/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-run: run a command with hsaqm's tool library (docs/tool.md).
 *
 * It sets HSA_TOOLS_LIB to the absolute path of libhsaqm-tool.so (keeping tools already named
 * there), HSA_TOOLS_ROCPROFILER_V1_TOOLS=1 (ROCm >= 6.1 skips HSA_TOOLS_LIB tools when a
 * rocprofiler-sdk tool is active unless it is set), and the HSAQM_* settings given; then it
 * executes the command in its own place, so the exit status is the command's. It never sets
 * LD_PRELOAD.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsaqm-tool/config.h"

#ifndef HSAQM_RUN_TOOL_BUILD
#define HSAQM_RUN_TOOL_BUILD ""
#endif
#ifndef HSAQM_RUN_TOOL_INSTALLED
#define HSAQM_RUN_TOOL_INSTALLED ""
#endif
#ifndef HSAQM_RUN_TOOL_FROM_BINDIR
#define HSAQM_RUN_TOOL_FROM_BINDIR ""
#endif

/* Exit codes of hsaqm-run itself (the command's own status otherwise). */
#define EXIT_USAGE 2
#define EXIT_NOTFOUND 127
#define EXIT_NOEXEC 126

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: hsaqm-run [-p PRIORITY] [-l LEVEL] [--stats FILE] [--daemon SOCKET|off]\n"
		"                 [--record FILE] [--] COMMAND [ARG]...\n"
		"Run COMMAND with hsaqm's HSA tool library: its GPU queues are scheduled by\n"
		"priority with preemption. No change to the program, no LD_PRELOAD.\n"
		"\n"
		"  -p, --priority PRIORITY  the process priority: idle, low (offline), normal,\n"
		"                           high (online), realtime, or -100..100 (default normal)\n"
		"  -l, --level LEVEL        preemption level asked for: none, lv1, lv2 (default),\n"
		"                           lv3 (0-3)\n"
		"      --stats FILE         write the process's per-queue statistics as JSON to FILE\n"
		"                           at exit\n"
		"      --daemon SOCKET      the hsaqmd socket that schedules across processes\n"
		"                           (HSAQM_DAEMON; default: the user's, then the node's\n"
		"                           daemon when one listens; off: this process alone)\n"
		"      --record FILE        record every GPU packet of the process to FILE\n"
		"                           (hsaqm-record-dump reads it); level none unless -l\n"
		"  -h, --help               this help\n"
		"\n"
		"Environment it sets: HSA_TOOLS_LIB (libhsaqm-tool.so, absolute path, after any tool\n"
		"already named), HSA_TOOLS_ROCPROFILER_V1_TOOLS=1, HSAQM_PRIORITY, HSAQM_LEVEL,\n"
		"HSAQM_STATS_FILE, HSAQM_DAEMON, HSAQM_RECORD. Other HSAQM_* variables pass through\n"
		"(docs/tool.md).\n"
		"Exit status: COMMAND's; 2 for a usage error; 126/127 when COMMAND cannot run.\n"
		"\n"
		"Without an AMD GPU, COMMAND can run on hsaqm's device model through the emulated\n"
		"/dev/kfd (LD_PRELOAD=<libdir>/hsaqm/libhsaqm-kfdemu.so, docs/real-stack.md). Its\n"
		"kernels are then timed, not run: only ROCr's and HIP's copy and fill kernels and\n"
		"hsaqm's probe kernel compute results; every other kernel is named once on stderr\n"
		"and leaves the memory it would write as it was. Every time is a model figure.\n");
}

static bool file_exists(const char *p)
{
	return p && *p && access(p, R_OK) == 0;
}

/*
 * The tool library to name: HSAQM_TOOL_LIB if set; else the installed one seen from this
 * executable (bindir -> libdir/hsaqm, a relative path fixed at build time, so a tree installed
 * under a DESTDIR or moved with its prefix finds its own library); else the build tree's (a
 * build-tree hsaqm-run); else the installed one at its configured path. @self receives the
 * path tried beside this executable (for the message when nothing is found).
 */
static const char *tool_path(char *buf, size_t len, char *self, size_t self_len)
{
	const char *env = getenv("HSAQM_TOOL_LIB");
	ssize_t n;

	self[0] = '\0';
	if (env && *env)
		return realpath(env, buf) ? buf : NULL;
	n = readlink("/proc/self/exe", self, self_len - 1);
	if (n > 0 && *HSAQM_RUN_TOOL_FROM_BINDIR) {
		size_t rel = strlen(HSAQM_RUN_TOOL_FROM_BINDIR);
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash && (size_t)(slash - self) + 1 + rel < self_len) {
			memcpy(slash + 1, HSAQM_RUN_TOOL_FROM_BINDIR, rel + 1);
			if (file_exists(self) && realpath(self, buf))
				return buf;
		} else {
			self[0] = '\0';
		}
	} else {
		self[0] = '\0';
	}
	if (file_exists(HSAQM_RUN_TOOL_BUILD))
		snprintf(buf, len, "%s", HSAQM_RUN_TOOL_BUILD);
	else if (file_exists(HSAQM_RUN_TOOL_INSTALLED))
		snprintf(buf, len, "%s", HSAQM_RUN_TOOL_INSTALLED);
	else
		return NULL;
	return buf;
}

/* @path with ROCr's escapes for its HSA_TOOLS_LIB list (spaces, quotes, backslashes). */
static void escape(const char *path, char *out, size_t len)
{
	size_t o = 0;

	for (const char *p = path; *p && o + 2 < len; p++) {
		if (*p == ' ' || *p == '"' || *p == '\\')
			out[o++] = '\\';
		out[o++] = *p;
	}
	out[o] = '\0';
}

/* An absolute path for a file that may not exist yet (the command may change directory). */
static int absolute(const char *file, char *out, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(file, '/');
	const char *base = slash ? slash + 1 : file;

	if (!*base)
		return -EINVAL;
	if (slash) {
		size_t dl = (size_t)(slash - file);

		if (dl >= sizeof(dir))
			return -ENAMETOOLONG;
		memcpy(dir, file, dl);
		dir[dl] = '\0';
		if (!dl)
			strcpy(dir, "/");
	} else {
		strcpy(dir, ".");
	}
	if (!realpath(dir, real))
		return -errno;
	if ((size_t)snprintf(out, len, "%s/%s", strcmp(real, "/") ? real : "", base) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "priority", required_argument, NULL, 'p' },
		{ "level", required_argument, NULL, 'l' },
		{ "stats", required_argument, NULL, 's' },
		{ "daemon", required_argument, NULL, 'd' },
		{ "record", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *priority = NULL, *level = NULL, *stats = NULL, *daemon_sock = NULL;
	const char *record = NULL;
	char tool[PATH_MAX], beside[PATH_MAX], esc[2 * PATH_MAX], stats_abs[PATH_MAX];
	char record_abs[PATH_MAX];
	const char *old;
	char *list;
	int c;

	/* '+': stop at the first non-option, the command's own options are its own. */
	while ((c = getopt_long(argc, argv, "+p:l:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			int v;

			if (hsaqm_tool_parse_priority(optarg, &v)) {
				fprintf(stderr, "hsaqm-run: -p %s: not a priority (idle, low, offline, "
					"normal, high, online, realtime, or -100..100)\n", optarg);
				return EXIT_USAGE;
			}
			priority = optarg;
			break;
		}
		case 'l': {
			enum hsaqm_level lv;

			if (hsaqm_tool_parse_level(optarg, &lv)) {
				fprintf(stderr, "hsaqm-run: -l %s: not a level (none, lv1, lv2, lv3, "
					"0-3)\n", optarg);
				return EXIT_USAGE;
			}
			level = optarg;
			break;
		}
		case 's':
			stats = optarg;
			break;
		case 'd':
			if (!*optarg) {
				fprintf(stderr, "hsaqm-run: --daemon: a socket path, or off\n");
				return EXIT_USAGE;
			}
			daemon_sock = optarg;
			break;
		case 'r':
			record = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "hsaqm-run: no command given\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!tool_path(tool, sizeof(tool), beside, sizeof(beside))) {
		const char *env = getenv("HSAQM_TOOL_LIB");

		/* The path the person gave is the one to name, not the ones it replaced. */
		if (env && *env)
			fprintf(stderr, "hsaqm-run: HSAQM_TOOL_LIB=%s: %s\n", env, strerror(errno));
		else
			fprintf(stderr, "hsaqm-run: libhsaqm-tool.so not found (looked at %s%s%s and "
				"%s; HSAQM_TOOL_LIB names another)\n", beside, *beside ? ", " : "",
				HSAQM_RUN_TOOL_INSTALLED, HSAQM_RUN_TOOL_BUILD);
		return EXIT_NOTFOUND;
	}
	if (stats) {
		int rc = absolute(stats, stats_abs, sizeof(stats_abs));

		if (rc) {
			fprintf(stderr, "hsaqm-run: --stats %s: %s\n", stats, strerror(-rc));
			return EXIT_USAGE;
		}
	}

	if (record) {
		int rc = absolute(record, record_abs, sizeof(record_abs));

		if (rc) {
			fprintf(stderr, "hsaqm-run: --record %s: %s\n", record, strerror(-rc));
			return EXIT_USAGE;
		}
	}

	escape(tool, esc, sizeof(esc));
	old = getenv("HSA_TOOLS_LIB");
	if (old && *old && !strstr(old, esc)) {
		/* After the tools already named: hsaqm then wraps them (docs/tool.md, chaining). */
		size_t n = strlen(old) + 1 + strlen(esc) + 1;

		list = malloc(n);
		if (!list)
			return EXIT_NOEXEC;
		snprintf(list, n, "%s %s", old, esc);
	} else {
		list = strdup(old && *old ? old : esc);
		if (!list)
			return EXIT_NOEXEC;
	}
	if (setenv("HSA_TOOLS_LIB", list, 1) || setenv("HSA_TOOLS_ROCPROFILER_V1_TOOLS", "1", 1) ||
	    (priority && setenv("HSAQM_PRIORITY", priority, 1)) ||
	    (level && setenv("HSAQM_LEVEL", level, 1)) ||
	    (stats && setenv("HSAQM_STATS_FILE", stats_abs, 1)) ||
	    (daemon_sock && setenv("HSAQM_DAEMON", daemon_sock, 1)) ||
	    /* Pass-through unless a level is asked for (-l or HSAQM_LEVEL): the tool decides. */
	    (record && setenv("HSAQM_RECORD", record_abs, 1))) {
		perror("hsaqm-run: setenv");
		return EXIT_NOEXEC;
	}
	free(list);
	execvp(argv[optind], &argv[optind]);
	fprintf(stderr, "hsaqm-run: %s: %s\n", argv[optind], strerror(errno));
	return errno == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
}
