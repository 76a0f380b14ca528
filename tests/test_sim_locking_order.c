/* SPDX-License-Identifier: MIT */
/*
 * The model's lock order in VIRTUAL time (docs/sim.md, "Locks and callbacks"): two host threads
 * drive ONE virtual-time model at once, one through the KFD face, the other through the HSA
 * face; an async handler fired in a KFD ioctl and an HSA thread opening the KFD (or creating a
 * queue) do not close the cycle HSA lock -> KFD lock -> loop -> HSA lock.
 *
 * Each case runs under a watchdog that fails the binary instead of hanging, and ThreadSanitizer
 * reports a lock-order inversion (suite 'threaded': `make test-tsan`). Before the fix the
 * event loop ran the async handlers where it stood: inside a KFD ioctl (KFD lock held) or a
 * signal wait (loop lock held).
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hsa_face_internal.h"
#include "kfd_face_internal.h"
#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-kfd/kfd_uapi.h"
#include "hsaqm-sim/sim.h"
#include "sim_internal.h"
#include "t_cunit.h"
#include "t_time.h"
#include "t_sim_locking.h"

/* ---- 1: a handler inside a KFD ioctl vs. an HSA call opening the KFD -------------------- */

struct cross {
	struct t_lock_env e;
	struct hsaqm_hsa_signal trigger; /* the ioctl thread drops it to 0: the handler fires */
	sem_t go;                        /* handler -> HSA thread: open the KFD now */
	int update_rc;
	int ran;
	hsaqm_hsa_status_t touch_st;
	hsaqm_hsa_status_t create_st;
	hsaqm_hsa_status_t destroy_st;
};

static bool cross_handler(int64_t value, void *arg)
{
	struct cross *c = arg;

	(void)value;
	/* Let the HSA thread take its face's lock and reach for the KFD face's... */
	sem_post(&c->go);
	t_sleep_ms(200);
	/* ...then take the HSA face's lock. Run under the KFD lock, this closes the cycle. */
	c->touch_st = t_hsa_touch(&c->e);
	c->ran++;
	return false;
}

/* @c zeroed, its model open and its trigger armed: @handler runs when the trigger drops to 0. */
static void cross_open(struct cross *c, bool (*handler)(int64_t, void *))
{
	memset(c, 0, sizeof(*c));
	t_lock_env_open(&c->e);
	CU_ASSERT_EQUAL_FATAL(sem_init(&c->go, 0, 0), 0);
	c->trigger = t_sig_new(&c->e, 1);
	CU_ASSERT_EQUAL(c->e.amd->hsa_amd_signal_async_handler_fn(c->trigger,
								  HSAQM_HSA_SIGNAL_CONDITION_LT, 1,
								  handler, c),
			HSAQM_HSA_STATUS_SUCCESS);
}

static void cross_close(struct cross *c)
{
	c->e.core->hsa_signal_destroy_fn(c->trigger);
	sem_destroy(&c->go);
	t_lock_env_close(&c->e);
}

static void *cross_kfd_thread(void *arg)
{
	struct cross *c = arg;

	c->e.core->hsa_signal_store_screlease_fn(c->trigger, 0);
	c->update_rc = t_kfd_update(&c->e, 9); /* the event loop runs inside, KFD lock held */
	return NULL;
}

static void *cross_hsa_thread(void *arg)
{
	struct cross *c = arg;
	struct hsaqm_hsa_queue *q = NULL;

	sem_wait(&c->go);
	/* The face's first queue: its KFD open (and RUNTIME_ENABLE) under the HSA face's lock. */
	c->create_st = c->e.core->hsa_queue_create_fn(c->e.gpu, 64, HSAQM_HSA_QUEUE_TYPE_MULTI,
						      NULL, NULL, UINT32_MAX, UINT32_MAX, &q);
	c->destroy_st = q ? c->e.core->hsa_queue_destroy_fn(q) : HSAQM_HSA_STATUS_ERROR;
	return NULL;
}

static void test_handler_in_a_kfd_ioctl_and_hsa_thread_opening_the_kfd_do_not_deadlock(void)
{
	static struct cross c;
	struct t_job jobs[2] = { { cross_kfd_thread, &c, 0, 0 }, { cross_hsa_thread, &c, 0, 0 } };

	cross_open(&c, cross_handler);

	t_run_bounded("KFD ioctl + HSA queue create", jobs, 2);

	CU_ASSERT_EQUAL(c.update_rc, 0);
	CU_ASSERT_EQUAL(c.ran, 1);
	CU_ASSERT_EQUAL(c.touch_st, HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(c.create_st, HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(c.destroy_st, HSAQM_HSA_STATUS_SUCCESS);
	cross_close(&c);
}

/*
 * The same two threads one after the other: nothing can block, but each lock taken while
 * another is held is an edge of the lock-order graph ThreadSanitizer keeps (HSA face ->
 * KFD face at the KFD open; KFD face -> loop -> HSA face when the handler ran inside the
 * ioctl). Before the fix TSan reported that cycle here, in every run, whatever the timing.
 */
static bool order_handler(int64_t value, void *arg)
{
	struct cross *c = arg;

	(void)value;
	c->touch_st = t_hsa_touch(&c->e);
	c->ran++;
	return false;
}

static void *order_hsa_thread(void *arg)
{
	struct cross *c = arg;

	sem_post(&c->go); /* nothing waits: the HSA thread goes first here */
	return cross_hsa_thread(arg);
}

static void test_hsa_queue_then_handler_in_a_kfd_ioctl_keep_one_lock_order(void)
{
	static struct cross c;
	struct t_job hsa = { order_hsa_thread, &c, 0, 0 }, kfd = { cross_kfd_thread, &c, 0, 0 };

	cross_open(&c, order_handler);

	t_run_bounded("HSA queue create", &hsa, 1);
	t_run_bounded("KFD ioctl running a handler", &kfd, 1);

	CU_ASSERT_EQUAL(c.create_st, HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(c.destroy_st, HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(c.update_rc, 0);
	CU_ASSERT_EQUAL(c.ran, 1);
	CU_ASSERT_EQUAL(c.touch_st, HSAQM_HSA_STATUS_SUCCESS);
	cross_close(&c);
}

static const struct t_case cases[] = {
	T_CASE(test_hsa_queue_then_handler_in_a_kfd_ioctl_keep_one_lock_order),
	T_CASE(test_handler_in_a_kfd_ioctl_and_hsa_thread_opening_the_kfd_do_not_deadlock),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-locking-order", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("sim-locking-order", suites);
}
