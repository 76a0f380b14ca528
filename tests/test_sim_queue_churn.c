/* SPDX-License-Identifier: MIT */
/*
 * The device model's queues created, fed and destroyed from many host threads at once (real
 * time).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"
#include "hsaqm-hsa/ring.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"

/* Queues created, fed and destroyed from many threads at once. */
#define CHURN_THREADS 4
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define CHURN_ROUNDS 10
#else
#define CHURN_ROUNDS 40
#endif

struct churn {
	struct hsaqm_sim *sim;
	uint64_t kernel;
	uint32_t *counters;   /* model memory: wg_counters of the kernel */
	int failures;
	int id;
};

static void *churn_main(void *arg)
{
	struct churn *c = arg;

	for (int r = 0; r < CHURN_ROUNDS; r++) {
		struct t_q q;
		struct sim_signal *cs;

		if (t_q_create(&q, c->sim, 0, 16, (uint32_t)(r % 16))) {
			c->failures++;
			continue;
		}
		cs = sim_signal_create(c->sim, 3);
		for (int i = 0; i < 3; i++) {
			/* Four workgroups: the kernel counts each into counters[wg]. */
			union hsaqm_aql_packet p = t_dispatch(c->kernel, 4, t_handle(cs), false);

			t_q_submit(&q, &p);
		}
		if (r % 3 == 0) {
			/* Destroyed with work on it: its workgroups are discarded, nothing else breaks. */
			t_q_destroy(&q);
		} else {
			if (sim_signal_wait(c->sim, cs, SIM_COND_EQ, 0, 30 * T_S) != 0)
				c->failures++;
			t_q_destroy(&q);
		}
		sim_signal_destroy(c->sim, cs);
	}
	return NULL;
}

static void test_queues_created_fed_and_destroyed_from_many_threads(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_REAL };
	struct hsaqm_sim *sim;
	struct churn c[CHURN_THREADS];
	pthread_t th[CHURN_THREADS];

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	uint32_t *counters = hsaqm_sim_mem_alloc(sim, 4 * sizeof(uint32_t), 64);
	struct hsaqm_sim_kernel_desc kd = { .name = "churn", .duration_ns = 20 * T_US,
					    .wg_counters = counters, .wg_counters_len = 4 };
	uint64_t k;
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_kernel_register(sim, &kd, &k), 0);
	for (int i = 0; i < CHURN_THREADS; i++) {
		c[i] = (struct churn){ .sim = sim, .kernel = k, .counters = counters, .id = i };
		pthread_create(&th[i], NULL, churn_main, &c[i]);
	}
	for (int i = 0; i < CHURN_THREADS; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(c[i].failures, 0);
	}
	/* Every completed dispatch counted each of its 4 workgroups once; discarded ones less. */
	uint32_t completed_rounds = CHURN_THREADS * (CHURN_ROUNDS - (CHURN_ROUNDS + 2) / 3);
	for (int w = 0; w < 4; w++) {
		/* Acquire: pairs with the engine's add per workgroup; the churners are joined. */
		uint32_t v = hsaqm_load_acquire(&counters[w]);

		CU_ASSERT(v >= 3 * completed_rounds);
		CU_ASSERT(v <= 3 * CHURN_THREADS * CHURN_ROUNDS);
	}
	CU_ASSERT_EQUAL(sim->dev[0]->nqueues, 0); /* every queue left the runlist */
	CU_ASSERT_EQUAL(sim->dev[0]->stranded_requests, 0);
	/* Acquire: pairs with the add of a request's waiter that found its wake-up lost. */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&sim->dev[0]->lost_wakeups), 0);
	hsaqm_sim_destroy(sim);
}

static const struct t_case cases[] = {
	T_CASE(test_queues_created_fed_and_destroyed_from_many_threads),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-queue-churn", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-sim-queue-churn", suites);
}
