/* SPDX-License-Identifier: MIT */
/*
 * Shared mode, hsaqm-simd: --help, bad usage, the line saying where it listens, devices as
 * asked, clean stop on SIGTERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"
#include "hsa_face_internal.h"
#include "hsaqm-hsa/hsa_abi.h"
#include "hsaqm-kfd/kfd.h"
#include "kfd_face_internal.h"
#include "hsaqm-hsa/api_table.h"
#include "hsaqm-hsa/ring.h"
#include "hsaqm-common/log.h"
#include "shared_internal.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"
#include "t_sim_shared.h"

/* ------------------------------------------------------------------------------------
 * hsaqm-simd.
 */
static int run_simd(char *const argv[], char *out, size_t n)
{
	int p[2];

	if (pipe(p))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		execv(t_simd, argv);
		_exit(127);
	}
	close(p[1]);
	size_t got = 0;
	ssize_t r;
	while (got + 1 < n && (r = read(p[0], out + got, n - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(p[0]);
	return t_child_wait(pid);
}

static void ndev_client(void *arg, int report)
{
	struct hsaqm_sim *sim = NULL;
	int rc = hsaqm_sim_connect(arg, &sim);
	int n = rc ? rc : (int)sim_device_count(sim);
	char node[512];

	/* The client's generated sysfs tree has the device's GPUs (nodes 1 and 2). */
	if (!rc) {
		const char *root = hsaqm_sim_sysfs_root(sim);

		snprintf(node, sizeof(node), "%s/class/kfd/kfd/topology/nodes/2/properties",
			 root ? root : "/nonexistent");
		if (access(node, R_OK))
			n = -1000;
	}

	t_write_all(report, &n, sizeof(n));
	hsaqm_sim_destroy(sim);
	exit(0);
}

static void test_hsaqm_simd_listens_serves_and_stops_on_sigterm(void)
{
	char out[4096], path[108], line[512];

	if (!t_simd) {
		printf("\n  skipped: no hsaqm-simd path given\n  ");
		return;
	}
	char *help[] = { (char *)t_simd, (char *)"--help", NULL };
	CU_ASSERT_EQUAL(run_simd(help, out, sizeof(out)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "--socket"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "HSAQM_SIM_DEVICE"));
	char *bad[] = { (char *)t_simd, (char *)"--devices", (char *)"9", NULL };
	CU_ASSERT_EQUAL(run_simd(bad, out, sizeof(out)), 2);

	/* Serve: two devices; the first line says where. */
	t_sock_path(path, sizeof(path), "simd.sock");
	int p[2];
	CU_ASSERT_FATAL(pipe(p) == 0);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		execl(t_simd, t_simd, "--socket", path, "--devices", "2", "--kfd-minor", "13", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	size_t got = 0;
	memset(line, 0, sizeof(line));
	while (got < sizeof(line) - 1 && !strchr(line, '\n')) {
		if (t_read_all(p[0], line + got, 1, 30000))
			break;
		got++;
	}
	printf("\n  %s  ", line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "listening on"));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, path));
	int fd = -1, n = 0;
	pid_t c = t_child_start(ndev_client, path, &fd);
	CU_ASSERT_EQUAL(t_read_all(fd, &n, sizeof(n), 30000), 0);
	close(fd);
	CU_ASSERT_EQUAL(t_child_wait(c), 0);
	CU_ASSERT_EQUAL(n, 2);
	kill(pid, SIGTERM);
	memset(out, 0, sizeof(out));
	got = 0;
	ssize_t r;
	while (got + 1 < sizeof(out) && (r = read(p[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)r;
	close(p[0]);
	CU_ASSERT_EQUAL(t_child_wait(pid), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "stopped"));
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0); /* the socket file is gone */
}

static const struct t_case cases[] = {
	T_CASE(test_hsaqm_simd_listens_serves_and_stops_on_sigterm),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-shared-simd", NULL, NULL, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	return t_sim_shared_main(argc, argv, "test-sim-shared-simd", suites);
}
