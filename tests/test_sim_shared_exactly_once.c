/* SPDX-License-Identifier: MIT */
/*
 * Shared mode (docs/sim.md, "Shared mode"): exactly once across two client processes on one
 * device: 16 queues split between them, producers, and in each client a chaos thread
 * (suspend/resume, gates, priorities); every workgroup ran exactly once (counters in the
 * clients' model memory), each queue launched in order (launch times in the completion
 * signals), every completion signal right.
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

static void test_exactly_once_across_two_client_processes_on_one_device(void)
{
	struct t_device dev;
	struct t_eo_report r[2];
	pid_t pid[2];
	int fd[2] = { -1, -1 };
	const char *note = T_EO_SCALE_NOTE;

	if (note)
		printf("\n  note: %s", note);
	CU_ASSERT_EQUAL_FATAL(t_device_start(&dev, "eo.sock", 1), 0);
	struct t_eo_args a[2];
	for (int i = 0; i < 2; i++) {
		a[i] = (struct t_eo_args){ .path = dev.path, .nq = T_EO_NQ / 2,
					   .first_prio = (unsigned int)i * T_EO_NQ / 2,
					   .per_queue = T_EO_TOTAL_DISPATCHES / T_EO_NQ,
					   .seed = 100 + (uint64_t)i, .chaos = true, .go_fd = -1 };
		pid[i] = t_child_start(t_eo_client_main, &a[i], &fd[i]);
		CU_ASSERT_FATAL(pid[i] > 0);
	}
	for (int i = 0; i < 2; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		CU_ASSERT_EQUAL(t_read_all(fd[i], &r[i], sizeof(r[i]), 120000), 0);
		close(fd[i]);
		CU_ASSERT_EQUAL(t_child_wait(pid[i]), 0);
		t_eo_print_report(i ? "client B" : "client A", &r[i]);
		CU_ASSERT_TRUE(r[i].ok);
		CU_ASSERT_EQUAL(r[i].dispatches, (uint64_t)(T_EO_TOTAL_DISPATCHES / T_EO_NQ) * (T_EO_NQ / 2));
		CU_ASSERT_EQUAL(r[i].bad_counts, 0);
		CU_ASSERT_EQUAL(r[i].order_violations, 0);
		CU_ASSERT_EQUAL(r[i].bad_signals, 0);
		/* The chaos really happened, and really preempted running work. */
		CU_ASSERT(r[i].suspends > 0 && r[i].gate_closes > 0 && r[i].prio_changes > 0);
	}
	CU_ASSERT(r[0].waves_saved + r[1].waves_saved > 0);
	/* Both clients left: the device holds nothing of theirs. */
	struct t_dev_counts n;

	T_UNTIL((n = t_device_counts(&dev), !n.clients && !n.queues), 10 * T_S);
	CU_ASSERT_EQUAL(n.clients, 0);
	CU_ASSERT_EQUAL(n.queues, 0);
	CU_ASSERT_EQUAL(t_device_stop(&dev), 0);
	printf("\n  ");
}

static const struct t_case cases[] = {
	T_CASE(test_exactly_once_across_two_client_processes_on_one_device),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-shared-exactly-once", NULL, NULL, cases },
	T_SUITES_END,
};

int main(int argc, char **argv)
{
	return t_sim_shared_main(argc, argv, "test-sim-shared-exactly-once", suites);
}
