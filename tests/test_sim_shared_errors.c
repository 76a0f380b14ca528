/* SPDX-License-Identifier: MIT */
/*
 * Shared mode, the errors: a wrong protocol version is -EPROTO; HSAQM_SIM_DEVICE pointing
 * nowhere is -ENOENT / -ECONNREFUSED with one log line; memory the client cannot map at the
 * device's address is -EADDRINUSE.
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
 * Errors.
 */
static void test_wrong_protocol_version_gets_eproto(void)
{
	struct t_device dev;
	struct hsaqm_sim *sim = NULL;

	CU_ASSERT_EQUAL_FATAL(t_device_start(&dev, "proto.sock", 1), 0);
	CU_ASSERT_EQUAL(sim_shared_connect_version(dev.path, SIM_SHARED_PROTO_VERSION + 1, &sim), -EPROTO);
	CU_ASSERT_PTR_NULL(sim);
	CU_ASSERT_EQUAL(sim_shared_connect_version(dev.path, 0, &sim), -EPROTO);
	/* The device dropped both and is unharmed. */
	struct t_dev_counts n;

	T_UNTIL((n = t_device_counts(&dev), !n.clients), 10 * T_S);
	CU_ASSERT_EQUAL(n.clients, 0);
	CU_ASSERT_EQUAL(t_device_stop(&dev), 0);
}

static void log_count_lines(FILE *f, int *lines, char *first, size_t n)
{
	char buf[512];

	*lines = 0;
	first[0] = '\0';
	rewind(f);
	while (fgets(buf, sizeof(buf), f)) {
		if (!(*lines)++)
			snprintf(first, n, "%s", buf);
	}
}

static void test_device_env_pointing_nowhere_fails_with_one_log_line(void)
{
	char path[108], line[512];
	struct hsaqm_sim *sim = NULL;
	int lines;
	FILE *log = tmpfile();

	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	hsaqm_log_set_sink(log);
	/* Nothing at the path. */
	t_sock_path(path, sizeof(path), "nobody.sock");
	setenv("HSAQM_SIM_DEVICE", path, 1);
	CU_ASSERT_EQUAL(hsaqm_sim_open_env(NULL, &sim), -ENOENT);
	CU_ASSERT_PTR_NULL(sim);
	fflush(log);
	log_count_lines(log, &lines, line, sizeof(line));
	CU_ASSERT_EQUAL(lines, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "hsaqm-simd"));
	printf("\n  log: %s  ", line);

	/* A socket file nobody listens on (a device that died). */
	t_sock_path(path, sizeof(path), "dead.sock");
	int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	CU_ASSERT_EQUAL(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	close(s);
	setenv("HSAQM_SIM_DEVICE", path, 1);
	FILE *log2 = tmpfile();
	hsaqm_log_set_sink(log2);
	CU_ASSERT_EQUAL(hsaqm_sim_open_env(NULL, &sim), -ECONNREFUSED);
	fflush(log2);
	log_count_lines(log2, &lines, line, sizeof(line));
	CU_ASSERT_EQUAL(lines, 1);
	unlink(path);

	/* Unset or empty: an in-process model. */
	setenv("HSAQM_SIM_DEVICE", "", 1);
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	CU_ASSERT_EQUAL(hsaqm_sim_open_env(&cfg, &sim), 0);
	CU_ASSERT_PTR_NOT_NULL(sim);
	hsaqm_sim_destroy(sim);
	unsetenv("HSAQM_SIM_DEVICE");
	CU_ASSERT_EQUAL(hsaqm_sim_open_env(NULL, NULL), -EINVAL);
	hsaqm_log_set_sink(NULL);
	fclose(log);
	fclose(log2);
}

static void eaddrinuse_client(void *arg, int report)
{
	const char *path = arg;
	struct hsaqm_sim *sim = NULL;
	/* What the device chose for its page: the region's first GiB (the device has nothing there). */
	void *p = mmap((void *)(uintptr_t)SIM_SHARED_REGION_BASE, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	int rc = p == MAP_FAILED ? -999 : hsaqm_sim_connect(path, &sim);

	t_write_all(report, &rc, sizeof(rc));
	hsaqm_sim_destroy(sim);
	exit(0);
}

static void test_memory_the_client_cannot_map_at_the_same_address_is_eaddrinuse(void)
{
	struct t_device dev;
	int fd = -1, rc = 0;

	CU_ASSERT_EQUAL_FATAL(t_device_start(&dev, "addr.sock", 1), 0);
	pid_t pid = t_child_start(eaddrinuse_client, dev.path, &fd);
	CU_ASSERT_EQUAL(t_read_all(fd, &rc, sizeof(rc), 30000), 0);
	close(fd);
	CU_ASSERT_EQUAL(t_child_wait(pid), 0);
	CU_ASSERT_EQUAL(rc, -EADDRINUSE);
	/* The device forgot the client that could not attach. */
	struct t_dev_counts n;

	T_UNTIL((n = t_device_counts(&dev), !n.clients), 10 * T_S);
	CU_ASSERT_EQUAL(n.clients, 0);
	CU_ASSERT_EQUAL(t_device_stop(&dev), 0);
}

static const struct t_case cases[] = {
	T_CASE(test_wrong_protocol_version_gets_eproto),
	T_CASE(test_device_env_pointing_nowhere_fails_with_one_log_line),
	T_CASE(test_memory_the_client_cannot_map_at_the_same_address_is_eaddrinuse),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-shared-errors", NULL, NULL, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	return t_sim_shared_main(argc, argv, "test-sim-shared-errors", suites);
}
