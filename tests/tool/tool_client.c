/* SPDX-License-Identifier: MIT */
/*
 * tool-client: an HSA application for the hsaqm-run tests. It opens the device model as a
 * program would open ROCr (hsaqm_sim_open_env(): the shared device process named by
 * HSAQM_SIM_DEVICE, or an in-process model), calls hsa_init (which loads HSA_TOOLS_LIB),
 * prints the hsaqm status line it finds in the process, runs NQUEUES queues of ROCclr-style
 * dispatches to completion, and exits with EXIT_CODE without hsa_shut_down (the tool's atexit
 * path writes HSAQM_STATS_FILE).
 *
 * Usage: tool-client EXIT_CODE [NQUEUES] [DISPATCHES]
 * Exit: EXIT_CODE on success; 99 when the model or the HSA calls fail; 98 when dispatches do
 * not complete.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_hsa.h"
#include "t_rocclr.h"

static int open_model(const struct hsaqm_sim_config *cfg, struct hsaqm_sim **sim)
{
#ifdef HSAQM_HAVE_SIM_OPEN_ENV
	return hsaqm_sim_open_env(cfg, sim);
#else
	if (getenv("HSAQM_SIM_DEVICE"))
		fprintf(stderr, "tool-client: built without hsaqm_sim_open_env(): in-process model\n");
	return hsaqm_sim_create(cfg, sim);
#endif
}

int main(int argc, char **argv)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL,
					.seed = 9 };
	struct hsaqm_sim_kernel_desc kd = { .name = "client", .duration_ns = 10 * T_US,
					    .waves_per_wg = 1 };
	static struct t_hsa h; /* never freed: the process exits with the model running */
	int code = argc > 1 ? atoi(argv[1]) : 0;
	unsigned int nq = argc > 2 ? (unsigned int)atoi(argv[2]) : 2;
	unsigned int nd = argc > 3 ? (unsigned int)atoi(argv[3]) : 50;
	int (*status)(char *, size_t) = NULL;
	char line[256] = "not loaded";
	struct hsaqm_sim *sim;
	uint64_t kobj;
	void *lib;

	if (nq < 1 || nq > 16)
		nq = 2;
	if (open_model(&cfg, &sim) || t_hsa_attach(&h, sim) ||
	    hsaqm_sim_kernel_register(h.sim, &kd, &kobj)) {
		fprintf(stderr, "tool-client: the model or hsa_init failed\n");
		return 99;
	}
	/* What python/hsaqm.py does: the libhsaqm.so the tool loaded, by its soname. */
	lib = dlopen("libhsaqm.so.0", RTLD_NOW | RTLD_NOLOAD);
	if (lib)
		*(void **)&status = dlsym(lib, "hsaqm_process_status");
	if (status)
		status(line, sizeof(line));
	printf("hsaqm: %s\n", line);
	fflush(stdout);

	for (unsigned int i = 0; i < nq; i++) {
		struct hsaqm_hsa_queue *q = NULL;
		struct hsaqm_hsa_signal cs = t_hsa_signal(&h, nd);

		hsaqm_hsa_status_t st = h.core->hsa_queue_create_fn(h.gpu[0], 256,
								    HSAQM_HSA_QUEUE_TYPE_MULTI, NULL,
								    NULL, 0, 0, &q);

		if (st != HSAQM_HSA_STATUS_SUCCESS) {
			fprintf(stderr, "tool-client: hsa_queue_create of queue %u: status 0x%x\n", i,
				(unsigned int)st);
			return 99;
		}
		if (i == 0)
			h.amd->hsa_amd_queue_set_priority_fn(q, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
		for (unsigned int d = 0; d < nd; d++) {
			union hsaqm_aql_packet pk = t_hsa_dispatch(kobj, 1, cs.handle, true, NULL);

			t_rocclr_submit(h.core, q, &pk, NULL, NULL);
		}
		if (!t_hsa_wait_le(&h, cs, 0, 20 * T_S)) {
			fprintf(stderr, "tool-client: the dispatches of queue %u did not complete\n", i);
			return 98;
		}
	}
	printf("done %u queues x %u dispatches\n", nq, nd);
	fflush(stdout);
	/* No hsa_shut_down: OnUnload never runs, the atexit paths do. */
	exit(code);
}
