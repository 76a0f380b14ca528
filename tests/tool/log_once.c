/* SPDX-License-Identifier: MIT */
/*
 * log-once: one process holding every part of hsaqm that logs, for log-once.sh. It opens an
 * in-process device model whose hsa_init loads TOOL (libhsaqm-tool.so, which loads
 * libhsaqm.so), creates a queue (the tool's wrappers and lib's context log with it), and asks
 * the log level in its own code too: each of them reads HSAQM_LOG, which the caller sets to a
 * bad value, so a process with more than one logger would say so more than once.
 *
 * It prints "pid P netns N tool active libhsaqm loaded" on stdout, then creates DIR/NAME.ready
 * and, unless PEER is "-", waits for DIR/PEER.ready before exiting: two of them overlap in
 * time, each alive while the other says its warning.
 *
 * Usage: log-once TOOL DIR NAME PEER
 * Exit: 0; 1 when the peer did not come within 60 s; 99 when the model, hsa_init or the tool
 * did not start (the reason on stderr).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hsaqm-common/log.h"
#include "t_tool.h"

static int fail(const char *why)
{
	fprintf(stderr, "log-once: %s\n", why);
	return 99;
}

int main(int argc, char **argv)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL,
					.seed = 5 };
	static struct t_hsa h; /* never freed: the process exits with the model running */
	struct hsaqm_hsa_queue *q = NULL;
	char status[256] = "";
	char netns[64] = "";
	char path[PATH_MAX];
	struct t_proc proc;
	void *tool;
	int fd;

	if (argc != 5)
		return fail("usage: log-once TOOL DIR NAME PEER");
	/* The program's own code asks the level as the model and the tool do. */
	(void)hsaqm_log_level();
	if (t_tool_open(&h, argv[1], NULL, &cfg))
		return fail("the model or hsa_init failed");
	if (h.core->hsa_queue_create_fn(h.gpu[0], 256, HSAQM_HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0,
					0, &q) != HSAQM_HSA_STATUS_SUCCESS)
		return fail("hsa_queue_create failed");
	/* What the process holds: the tool hsa_init loaded, and the libhsaqm.so it loaded. */
	tool = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
	if (!tool)
		return fail("the tool library is not loaded: HSA_TOOLS_LIB did not reach hsa_init");
	if (t_proc_bind(&proc) || proc.status(status, sizeof(status)) < 0)
		return fail("libhsaqm.so is not loaded beside the tool");
	if (strncmp(status, "active", 6))
		return fail("the tool is not active");
	/* /proc/self is the process as the proc mount's PID namespace numbers it: any works. */
	if (readlink("/proc/self/ns/net", netns, sizeof(netns) - 1) < 0)
		return fail("cannot read /proc/self/ns/net");
	printf("pid %ld netns %s tool active libhsaqm loaded\n", (long)getpid(), netns);
	fflush(stdout);

	snprintf(path, sizeof(path), "%s/%s.ready", argv[2], argv[3]);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail("cannot create the ready file");
	close(fd);
	if (!strcmp(argv[4], "-"))
		return 0;
	snprintf(path, sizeof(path), "%s/%s.ready", argv[2], argv[4]);
	for (int i = 0; i < 6000; i++) {
		struct stat st;

		if (stat(path, &st) == 0)
			return 0;
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
	fprintf(stderr, "log-once: %s did not appear within 60 s\n", path);
	return 1;
}
