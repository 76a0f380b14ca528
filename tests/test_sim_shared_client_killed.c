/* SPDX-License-Identifier: MIT */
/*
 * Shared mode: a client SIGKILLed mid-run, with queues suspended and work in flight, loses its
 * queues in the device and the other client runs on, exactly once.
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
#include "t_sim_shared_eo.h"

/* ------------------------------------------------------------------------------------
 * A client killed mid-run.
 */
static void test_client_sigkilled_mid_run_does_not_disturb_the_other(void)
{
	struct t_device dev;
	int go_v[2], go_s[2], fd_v = -1, fd_s = -1, ready = 0;

	CU_ASSERT_EQUAL_FATAL(t_device_start(&dev, "kill.sock", 1), 0);
	CU_ASSERT_FATAL(pipe(go_v) == 0 && pipe(go_s) == 0);
	/* The victim: endless work with chaos (so it is killed while queues are suspended too). */
	struct t_eo_args av = { .path = dev.path, .nq = 4, .first_prio = 0, .per_queue = 64, .seed = 5,
			      .chaos = true, .go_fd = go_v[0], .endless = true };
	struct t_eo_args as = { .path = dev.path, .nq = 4, .first_prio = 8,
			      .per_queue = T_EO_TOTAL_DISPATCHES / 40, .seed = 6, .chaos = true,
			      .go_fd = go_s[0] };
	pid_t victim = t_child_start(t_eo_client_main, &av, &fd_v);
	pid_t survivor = t_child_start(t_eo_client_main, &as, &fd_s);
	CU_ASSERT_FATAL(victim > 0 && survivor > 0);
	close(go_v[0]);
	close(go_s[0]);
	CU_ASSERT_EQUAL(t_read_all(fd_v, &ready, sizeof(ready), 60000), 0);
	CU_ASSERT_EQUAL(ready, 1); /* running, one queue suspended */
	CU_ASSERT_EQUAL(t_read_all(fd_s, &ready, sizeof(ready), 60000), 0);
	CU_ASSERT_EQUAL(ready, 1);

	struct t_dev_counts before = t_device_counts(&dev);
	CU_ASSERT_EQUAL(before.clients, 2);
	CU_ASSERT_EQUAL(before.queues, 8);
	t_sleep_us(20000); /* both mid-run */
	kill(victim, SIGKILL);
	CU_ASSERT_EQUAL(t_child_wait(victim), 128 + SIGKILL);
	close(fd_v);
	close(go_v[1]);

	/* The device notices the hang-up and destroys the victim's queues. */
	struct t_dev_counts after;

	T_UNTIL((after = t_device_counts(&dev), after.clients == 1 && after.queues == 4),
		10 * T_S);
	CU_ASSERT_EQUAL(after.clients, 1);
	CU_ASSERT_EQUAL(after.queues, 4);

	/* The survivor runs on to the end, exactly once. */
	t_write_all(go_s[1], "g", 1);
	struct t_eo_report r;
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL(t_read_all(fd_s, &r, sizeof(r), 120000), 0);
	close(fd_s);
	close(go_s[1]);
	CU_ASSERT_EQUAL(t_child_wait(survivor), 0);
	t_eo_print_report("survivor", &r);
	CU_ASSERT_TRUE(r.ok);
	CU_ASSERT_EQUAL(r.dispatches, (uint64_t)(T_EO_TOTAL_DISPATCHES / 40) * 4);
	CU_ASSERT_EQUAL(t_device_stop(&dev), 0);
	printf("\n  ");
}

static const struct t_case cases[] = {
	T_CASE(test_client_sigkilled_mid_run_does_not_disturb_the_other),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-shared-client-killed", NULL, NULL, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	return t_sim_shared_main(argc, argv, "test-sim-shared-client-killed", suites);
}
