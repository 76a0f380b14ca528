/* SPDX-License-Identifier: MIT */
/*
 * The device model's HSA face in real time, with client threads: ROCclr-style producers sharing
 * small rings (every dispatch completes) and queues created, fed and destroyed from many threads;
 * directly and through the KFD face. In the 'threaded' suite (TSan).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"

struct producer {
	const struct t_face *h;
	struct hsaqm_hsa_queue *q;
	union hsaqm_aql_packet
		pkt; /* built on the test thread: CUnit asserts are not thread-safe */
	unsigned int n;
	struct hsaqm_hsa_signal done; /* starts at n, each dispatch decrements it */
	int64_t final;
};

static uint64_t wg_runs;

static void count_wg(void *arg, uint64_t dispatch_id, uint32_t wg_index, void *kernarg)
{
	/* Engine thread; acq_rel: pairs with the test's acquire once the producers are joined. */
	hsaqm_fetch_add(&wg_runs, 1ull);
}

static void *rocclr_producer(void *arg)
{
	struct producer *p = arg;

	for (unsigned int i = 0; i < p->n; i++) {
		if (t_face_submit(p->h, p->q, &p->pkt) == UINT64_MAX) {
			p->final = -1; /* the ring never drained */
			return NULL;
		}
	}
	p->final = t_face_wait_eq(p->h, p->done, 0, 20 * T_S);
	return NULL;
}

static void run_rocclr_style_producers_share_small_rings_and_every_dispatch_completes(bool kfd)
{
	struct t_face h;
	enum { NQ = 2, PER_Q = 2, N = 150 };
	struct producer prod[NQ * PER_Q];
	pthread_t th[NQ * PER_Q];
	struct hsaqm_hsa_queue *q[NQ];

	CU_ASSERT_FATAL(t_face_open_path(&h, HSAQM_SIM_TIME_REAL, 1, kfd));
	/* Release: zeroed before any producer starts or any kernel of count_wg runs. */
	hsaqm_store_release(&wg_runs, 0ull);
	hsaqm_store_release(&t_face_full_waits, 0ull);
	uint64_t k = t_face_kernel(&h, 5 * T_US, 1, count_wg, NULL);
	for (int i = 0; i < NQ; i++)
		q[i] = t_face_queue(&h, 0, 64, NULL, NULL); /* 64 slots: producers wait for space */
	for (int i = 0; i < NQ * PER_Q; i++) {
		struct hsaqm_hsa_signal done = t_face_signal(&h, N);

		prod[i] = (struct producer){ &h, q[i % NQ], t_face_dispatch(k, 2, done.handle),
					     N,	 done,	    -1 };
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, rocclr_producer, &prod[i]), 0);
	}
	for (int i = 0; i < NQ * PER_Q; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(prod[i].final, 0);
	}
	/* The producers outran the packet processor and waited for space, as ROCclr does. */
	/* Acquire: pairs with t_face_submit()'s add. */
	CU_ASSERT(hsaqm_load_acquire(&t_face_full_waits) > 0);
	/*
	 * Every workgroup of every dispatch ran exactly once; every packet was consumed.
	 * Acquire: pairs with count_wg's add; each producer saw its signal reach 0 first.
	 */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&wg_runs), (uint64_t)NQ * PER_Q * N * 2);
	for (int i = 0; i < NQ; i++) {
		CU_ASSERT_EQUAL(h.core->hsa_queue_load_read_index_scacquire_fn(q[i]), PER_Q * N);
		CU_ASSERT_EQUAL(h.core->hsa_queue_load_write_index_scacquire_fn(q[i]), PER_Q * N);
		CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q[i]), 0);
	}
	t_face_close(&h);
}

static void test_rocclr_style_producers_share_small_rings_and_every_dispatch_completes_direct(void)
{
	run_rocclr_style_producers_share_small_rings_and_every_dispatch_completes(false);
}

static void test_rocclr_style_producers_share_small_rings_and_every_dispatch_completes_via_kfd(void)
{
	run_rocclr_style_producers_share_small_rings_and_every_dispatch_completes(true);
}

struct churn {
	const struct t_face *h;
	uint64_t kobj;
	int ok;
};

/* t_face_dispatch without CUnit asserts, for client threads. */
static union hsaqm_aql_packet pkt_dispatch_quiet(uint64_t kobj, uint64_t cs)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_dispatch_desc d = {
		.dims = 1, .workgroup_size = { 64, 1, 1 }, .grid_size = { 64, 1, 1 },
		.kernel_object = kobj, .completion_signal = cs,
	};

	memset(&p, 0, sizeof(p));
	hsaqm_aql_dispatch_build(&p, &d);
	return p;
}

static void *create_submit_destroy(void *arg)
{
	struct churn *c = arg;

	for (int i = 0; i < 6; i++) {
		struct hsaqm_hsa_queue *q = NULL;
		struct hsaqm_hsa_signal cs = { 0 };

		if (c->h->core->hsa_queue_create_fn(c->h->gpu[0], 64, 0, NULL, NULL, 0, 0, &q) ||
		    c->h->core->hsa_signal_create_fn(3, 0, NULL, &cs))
			return NULL;
		for (int j = 0; j < 3; j++) {
			union hsaqm_aql_packet p = pkt_dispatch_quiet(c->kobj, cs.handle);

			t_face_submit(c->h, q, &p);
		}
		if (t_face_wait_eq(c->h, cs, 0, 10 * T_S) == 0 &&
		    c->h->core->hsa_queue_destroy_fn(q) == 0 &&
		    c->h->core->hsa_signal_destroy_fn(cs) == 0)
			c->ok++;
	}
	return NULL;
}

static void run_queues_created_fed_and_destroyed_from_many_threads(bool kfd)
{
	struct t_face h;
	enum { NT = 4 };
	pthread_t th[NT];
	struct churn c[NT];

	CU_ASSERT_FATAL(t_face_open_path(&h, HSAQM_SIM_TIME_REAL, 1, kfd));
	uint64_t k = t_face_kernel(&h, 20 * T_US, 1, NULL, NULL);
	for (int i = 0; i < NT; i++) {
		c[i] = (struct churn){ &h, k, 0 };
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, create_submit_destroy, &c[i]),
				      0);
	}
	for (int i = 0; i < NT; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(c[i].ok, 6);
	}
	t_face_close(&h);
}

static void test_queues_created_fed_and_destroyed_from_many_threads_direct(void)
{
	run_queues_created_fed_and_destroyed_from_many_threads(false);
}

static void test_queues_created_fed_and_destroyed_from_many_threads_via_kfd(void)
{
	run_queues_created_fed_and_destroyed_from_many_threads(true);
}

static const struct t_case cases[] = {
	T_CASE(test_rocclr_style_producers_share_small_rings_and_every_dispatch_completes_direct),
	T_CASE(test_rocclr_style_producers_share_small_rings_and_every_dispatch_completes_via_kfd),
	T_CASE(test_queues_created_fed_and_destroyed_from_many_threads_direct),
	T_CASE(test_queues_created_fed_and_destroyed_from_many_threads_via_kfd),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = { { "sim-hsa-producers", NULL, NULL, cases },
						 T_SUITES_END };
	return t_run("test-sim-hsa-producers", suites);
}
