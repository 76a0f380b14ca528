/* SPDX-License-Identifier: MIT */
/*
 * The model's lock order in VIRTUAL time (docs/sim.md, "Locks and callbacks"): two host
 * threads drive ONE virtual-time model at once, one through the KFD face (ioctls that run the
 * event loop while the face holds its lock), the other through the HSA face (calls that take
 * the HSA face's lock and reach the KFD face: its KFD open, queue create and destroy), with
 * async handlers that call back into both faces.
 *
 * Before the fix the event loop ran the async handlers where it stood: inside a KFD ioctl
 * (KFD lock held) or a signal wait (loop lock held). A handler taking the HSA face's lock
 * then closed the cycle HSA lock -> KFD lock -> loop -> HSA lock, and one doing a KFD ioctl
 * the cycle KFD lock -> loop -> KFD lock. These tests deadlock on that (each case runs under
 * a watchdog that fails the binary instead of hanging) and ThreadSanitizer reports the
 * lock-order inversion (suite 'threaded': `make test-tsan`).
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

/* A case that has not finished after this long is stuck: the watchdog fails the binary. */
#define WATCHDOG_S 30u

/* ---- Watchdog: run jobs on their own threads; a deadlock fails the test, never hangs it. -- */

struct job {
	void *(*fn)(void *arg);
	void *arg;
	pthread_t th;
	uint32_t done;
};

static void *job_main(void *arg)
{
	struct job *j = arg;

	j->fn(j->arg);
	/* Release: the job's results before the flag the watchdog reads. */
	hsaqm_store_release(&j->done, 1u);
	return NULL;
}

static void run_bounded(const char *what, struct job *jobs, unsigned int n)
{
	uint64_t deadline = t_mono_ns() + WATCHDOG_S * 1000000000ull;

	for (unsigned int i = 0; i < n; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&jobs[i].th, NULL, job_main, &jobs[i]), 0);
	for (;;) {
		unsigned int done = 0;

		for (unsigned int i = 0; i < n; i++)
			/* Acquire: pairs with job_main's release. */
			done += hsaqm_load_acquire(&jobs[i].done);
		if (done == n)
			break;
		if (t_mono_ns() > deadline) {
			/* The threads are stuck on the model's locks: nothing can be cleaned up. */
			fprintf(stderr, "%s: not finished after %u s: deadlock\n", what,
				WATCHDOG_S);
			fflush(stderr);
			_exit(T_EXIT_FAIL);
		}
		t_sleep_ms(5);
	}
	for (unsigned int i = 0; i < n; i++)
		pthread_join(jobs[i].th, NULL);
}

/* ---- One virtual-time model: its HSA face (hsa_init done) and a KFD of our own. ---------- */

struct env {
	struct hsaqm_sim *sim;
	struct hsaqm_core_api_table *core;
	struct hsaqm_amd_ext_table_v2 *amd;
	struct hsaqm_hsa_agent gpu;
	struct hsaqm_kfd *kfd;
	/* A KFD queue of our own, made with CREATE_QUEUE as ROCr makes one. */
	union hsaqm_aql_packet *ring;
	uint64_t *idx;
	uint32_t qid;
};

#define RING_SLOTS 64u

static hsaqm_hsa_status_t find_gpu(struct hsaqm_hsa_agent a, void *data)
{
	struct env *e = data;
	uint32_t type = 99;

	e->core->hsa_agent_get_info_fn(a, SIM_HSA_AGENT_INFO_DEVICE, &type);
	if (type == SIM_HSA_DEVICE_TYPE_GPU && !e->gpu.handle)
		e->gpu = a;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static void env_open(struct env *e)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL,
					.seed = 7 };
	struct hsaqm_api_root_v3 *root;

	memset(e, 0, sizeof(*e));
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &e->sim), 0);
	root = hsaqm_sim_hsa_table(e->sim);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	e->core = root->core;
	e->amd = root->amd_ext;
	CU_ASSERT_EQUAL_FATAL(e->core->hsa_init_fn(), HSAQM_HSA_STATUS_SUCCESS);
	e->core->hsa_iterate_agents_fn(find_gpu, e);
	CU_ASSERT_FATAL(e->gpu.handle != 0);
	/* The face makes its queues through the KFD face, as ROCr through libhsakmt. */
	CU_ASSERT_EQUAL_FATAL(hsa_face_set_queue_path(e->sim, true), 0);

	/* Our own KFD handle: the same KFD process as the HSA face's (one per OS process). */
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(hsaqm_sim_kfd_transport(e->sim), &e->kfd), 0);
	e->ring = hsaqm_sim_mem_alloc(e->sim, RING_SLOTS * 64u, 64);
	e->idx = hsaqm_sim_mem_alloc(e->sim, 64, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->ring);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->idx);
	for (uint32_t i = 0; i < RING_SLOTS; i++)
		e->ring[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	struct hsaqm_kfd_create_queue_args a = {
		.ring_base_address = (uint64_t)(uintptr_t)e->ring,
		.write_pointer_address = (uint64_t)(uintptr_t)&e->idx[0],
		.read_pointer_address = (uint64_t)(uintptr_t)&e->idx[1],
		.ring_size = RING_SLOTS * 64u,
		.gpu_id = sim_kfd_gpu_id(e->sim, 0),
		.queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL,
		.queue_percentage = 100,
		.queue_priority = 7,
		.ctl_stack_size = 8192,
	};
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_queue_create(e->kfd, &a), 0);
	e->qid = a.queue_id;
}

static void env_close(struct env *e)
{
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e->kfd, e->qid), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_close(e->kfd), 0);
	CU_ASSERT_EQUAL(e->core->hsa_shut_down_fn(), HSAQM_HSA_STATUS_SUCCESS);
	hsaqm_sim_destroy(e->sim);
	memset(e, 0, sizeof(*e));
}

/* UPDATE_QUEUE: the face holds its lock while sim_hwq_update() runs the event loop. */
static int kfd_update(struct env *e, uint32_t priority)
{
	return hsaqm_kfd_queue_update(e->kfd, e->qid, (uint64_t)(uintptr_t)e->ring,
				      RING_SLOTS * 64u, 100, priority);
}

/* A KFD ioctl that only takes the face's lock (GET_VERSION, straight to the transport). */
static int kfd_touch(struct env *e)
{
	struct hsaqm_kfd_get_version_args v = { 0 };

	return hsaqm_kfd_ioctl(e->kfd, HSAQM_KFD_IOC_GET_VERSION, &v);
}

static struct hsaqm_hsa_signal sig_new(struct env *e, int64_t v)
{
	struct hsaqm_hsa_signal s = { 0 };

	CU_ASSERT_EQUAL(e->core->hsa_signal_create_fn(v, 0, NULL, &s), HSAQM_HSA_STATUS_SUCCESS);
	return s;
}

/* An HSA call that takes the HSA face's lock (it checks that the runtime is open). */
static hsaqm_hsa_status_t hsa_touch(struct env *e)
{
	uint32_t type = 99;
	hsaqm_hsa_status_t st = e->core->hsa_agent_get_info_fn(e->gpu, SIM_HSA_AGENT_INFO_DEVICE,
								 &type);

	return st == HSAQM_HSA_STATUS_SUCCESS && type != SIM_HSA_DEVICE_TYPE_GPU ?
		       HSAQM_HSA_STATUS_ERROR : st;
}

/* ---- 1: a handler inside a KFD ioctl vs. an HSA call opening the KFD -------------------- */

struct cross {
	struct env e;
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
	c->touch_st = hsa_touch(&c->e);
	c->ran++;
	return false;
}

/* @c zeroed, its model open and its trigger armed: @handler runs when the trigger drops to 0. */
static void cross_open(struct cross *c, bool (*handler)(int64_t, void *))
{
	memset(c, 0, sizeof(*c));
	env_open(&c->e);
	CU_ASSERT_EQUAL_FATAL(sem_init(&c->go, 0, 0), 0);
	c->trigger = sig_new(&c->e, 1);
	CU_ASSERT_EQUAL(c->e.amd->hsa_amd_signal_async_handler_fn(c->trigger,
								  HSAQM_HSA_SIGNAL_CONDITION_LT, 1,
								  handler, c),
			HSAQM_HSA_STATUS_SUCCESS);
}

static void cross_close(struct cross *c)
{
	c->e.core->hsa_signal_destroy_fn(c->trigger);
	sem_destroy(&c->go);
	env_close(&c->e);
}

static void *cross_kfd_thread(void *arg)
{
	struct cross *c = arg;

	c->e.core->hsa_signal_store_screlease_fn(c->trigger, 0);
	c->update_rc = kfd_update(&c->e, 9); /* the event loop runs inside, KFD lock held */
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
	struct job jobs[2] = { { cross_kfd_thread, &c, 0, 0 }, { cross_hsa_thread, &c, 0, 0 } };

	cross_open(&c, cross_handler);

	run_bounded("KFD ioctl + HSA queue create", jobs, 2);

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
	c->touch_st = hsa_touch(&c->e);
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
	struct job hsa = { order_hsa_thread, &c, 0, 0 }, kfd = { cross_kfd_thread, &c, 0, 0 };

	cross_open(&c, order_handler);

	run_bounded("HSA queue create", &hsa, 1);
	run_bounded("KFD ioctl running a handler", &kfd, 1);

	CU_ASSERT_EQUAL(c.create_st, HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(c.destroy_st, HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(c.update_rc, 0);
	CU_ASSERT_EQUAL(c.ran, 1);
	CU_ASSERT_EQUAL(c.touch_st, HSAQM_HSA_STATUS_SUCCESS);
	cross_close(&c);
}

/* ---- 2: a handler fired inside a KFD ioctl calls both faces (one thread) ---------------- */

struct reentry {
	struct env e;
	int ran;
	int kfd_rc;
	hsaqm_hsa_status_t hsa_st;
	uint64_t ran_at;
};

static bool reentry_handler(int64_t value, void *arg)
{
	struct reentry *r = arg;

	(void)value;
	r->kfd_rc = kfd_touch(&r->e);        /* the KFD face's lock */
	r->hsa_st = hsa_touch(&r->e); /* the HSA face's lock */
	r->ran_at = hsaqm_sim_now_ns(r->e.sim);
	r->ran++;
	return false;
}

static void *reentry_thread(void *arg)
{
	struct reentry *r = arg;
	struct hsaqm_hsa_signal trigger = sig_new(&r->e, 1);

	CU_ASSERT_EQUAL(r->e.amd->hsa_amd_signal_async_handler_fn(trigger,
								  HSAQM_HSA_SIGNAL_CONDITION_LT, 1,
								  reentry_handler, r),
			HSAQM_HSA_STATUS_SUCCESS);
	r->e.core->hsa_signal_store_screlease_fn(trigger, 0);
	uint64_t t0 = hsaqm_sim_now_ns(r->e.sim);
	CU_ASSERT_EQUAL(kfd_update(&r->e, 11), 0);
	/* It ran before the ioctl returned, once the face had let go of its lock. */
	CU_ASSERT_EQUAL(r->ran, 1);
	CU_ASSERT(r->ran_at >= t0);
	CU_ASSERT(r->ran_at <= hsaqm_sim_now_ns(r->e.sim));
	r->e.core->hsa_signal_destroy_fn(trigger);
	return NULL;
}

static void test_handler_fired_inside_a_kfd_ioctl_may_call_both_faces(void)
{
	static struct reentry r;
	struct job job = { reentry_thread, &r, 0, 0 };

	memset(&r, 0, sizeof(r));
	env_open(&r.e);

	run_bounded("handler calling the KFD face from a KFD ioctl", &job, 1);

	CU_ASSERT_EQUAL(r.ran, 1);
	CU_ASSERT_EQUAL(r.kfd_rc, 0);
	CU_ASSERT_EQUAL(r.hsa_st, HSAQM_HSA_STATUS_SUCCESS);
	env_close(&r.e);
}

/* ---- 3: both threads at full speed, handlers calling both faces ------------------------ */

#define MIX_ROUNDS 600

struct mix {
	struct env e;
	struct hsaqm_hsa_signal a_sig;  /* KFD thread bumps it; handler ha fires */
	struct hsaqm_hsa_signal b_sig;  /* HSA thread bumps it; handler hb fires */
	struct hsaqm_hsa_signal b_done; /* hb sets it to the round; the HSA thread waits on it */
	uint32_t ha_runs, hb_runs;
	uint32_t handler_errors;
	int kfd_errors;
	int hsa_errors;
	int waits_short;
};

/* Runs on whichever thread drains it: counters are atomics. */
static bool mix_handler_a(int64_t value, void *arg)
{
	struct mix *m = arg;

	(void)value;
	/* acq_rel: the test reads these counts after acquiring the jobs' done flags. */
	if (kfd_touch(&m->e) || hsa_touch(&m->e) != HSAQM_HSA_STATUS_SUCCESS)
		hsaqm_fetch_add(&m->handler_errors, 1u);
	hsaqm_fetch_add(&m->ha_runs, 1u);
	return true; /* armed: runs again on the next change */
}

static bool mix_handler_b(int64_t value, void *arg)
{
	struct mix *m = arg;

	/* acq_rel, both counts: as in mix_handler_a. */
	if (kfd_touch(&m->e) || hsa_touch(&m->e) != HSAQM_HSA_STATUS_SUCCESS)
		hsaqm_fetch_add(&m->handler_errors, 1u);
	m->e.core->hsa_signal_store_screlease_fn(m->b_done, value);
	hsaqm_fetch_add(&m->hb_runs, 1u);
	return true;
}

static void *mix_kfd_thread(void *arg)
{
	struct mix *m = arg;

	for (int i = 0; i < MIX_ROUNDS; i++) {
		m->e.core->hsa_signal_add_screlease_fn(m->a_sig, 1);
		if (kfd_update(&m->e, (uint32_t)(i % 15)))
			m->kfd_errors++;
		if (i % 10 == 0 && hsaqm_kfd_queue_set_cu_mask(m->e.kfd, m->e.qid,
							       (const uint32_t[]){ 0xffu, 0, 0, 0 },
							       128))
			m->kfd_errors++;
	}
	return NULL;
}

static void *mix_hsa_thread(void *arg)
{
	struct mix *m = arg;
	struct hsaqm_hsa_queue *q = NULL;

	for (int i = 1; i <= MIX_ROUNDS; i++) {
		if (i % 10 == 1) {
			/* Create and destroy: HSA face lock, KFD ioctls, the queue's handler. */
			if (q && m->e.core->hsa_queue_destroy_fn(q) != HSAQM_HSA_STATUS_SUCCESS)
				m->hsa_errors++;
			q = NULL;
			if (m->e.core->hsa_queue_create_fn(m->e.gpu, 64, HSAQM_HSA_QUEUE_TYPE_MULTI,
							   NULL, NULL, UINT32_MAX, UINT32_MAX,
							   &q) != HSAQM_HSA_STATUS_SUCCESS)
				m->hsa_errors++;
		}
		m->e.core->hsa_signal_store_screlease_fn(m->b_sig, i);
		/* The wait runs the event loop (no face lock held): handler b runs in it. */
		int64_t v = m->e.core->hsa_signal_wait_scacquire_fn(
			m->b_done, HSAQM_HSA_SIGNAL_CONDITION_GTE, i, 1000000000ull, 0);
		if (v < i)
			m->waits_short++;
	}
	if (q && m->e.core->hsa_queue_destroy_fn(q) != HSAQM_HSA_STATUS_SUCCESS)
		m->hsa_errors++;
	return NULL;
}

static void test_kfd_and_hsa_threads_with_handlers_calling_both_faces_finish(void)
{
	static struct mix m;
	struct job jobs[2] = { { mix_kfd_thread, &m, 0, 0 }, { mix_hsa_thread, &m, 0, 0 } };

	memset(&m, 0, sizeof(m));
	env_open(&m.e);
	m.a_sig = sig_new(&m.e, 0);
	m.b_sig = sig_new(&m.e, 0);
	m.b_done = sig_new(&m.e, 0);
	CU_ASSERT_EQUAL(m.e.amd->hsa_amd_signal_async_handler_fn(
				m.a_sig, HSAQM_HSA_SIGNAL_CONDITION_GTE, 1, mix_handler_a, &m),
			HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(m.e.amd->hsa_amd_signal_async_handler_fn(
				m.b_sig, HSAQM_HSA_SIGNAL_CONDITION_GTE, 1, mix_handler_b, &m),
			HSAQM_HSA_STATUS_SUCCESS);

	run_bounded("KFD ioctls + HSA calls + handlers", jobs, 2);
	hsaqm_sim_advance(m.e.sim, 0); /* a last change of a_sig may still have its run due */

	CU_ASSERT_EQUAL(m.kfd_errors, 0);
	CU_ASSERT_EQUAL(m.hsa_errors, 0);
	CU_ASSERT_EQUAL(m.handler_errors, 0);
	CU_ASSERT_EQUAL(m.waits_short, 0);
	/*
	 * Every round of the HSA thread was answered by handler b (waits_short above); handler a
	 * ran at least once. An armed handler may run twice for one change: a store landing
	 * between the pick's read of the signal's sequence and of its value gives a run with
	 * the new value but the old sequence, so the new one still counts as unseen (ROCr itself
	 * fires a re-armed handler again while its condition holds). Hence a bound, not equality.
	 */
	/* Acquire, both: pair with the handlers' adds; the jobs that drained them are done. */
	uint32_t hb = hsaqm_load_acquire(&m.hb_runs);

	if (hb != MIX_ROUNDS)
		fprintf(stderr, "handler b ran %u times for %d rounds\n", hb, MIX_ROUNDS);
	CU_ASSERT(hb >= MIX_ROUNDS && hb <= 2 * MIX_ROUNDS);
	CU_ASSERT(hsaqm_load_acquire(&m.ha_runs) >= 1);
	env_close(&m.e);
}

int main(void)
{
	static const struct t_case cases[] = {
		T_CASE(test_hsa_queue_then_handler_in_a_kfd_ioctl_keep_one_lock_order),
		T_CASE(test_handler_in_a_kfd_ioctl_and_hsa_thread_opening_the_kfd_do_not_deadlock),
		T_CASE(test_handler_fired_inside_a_kfd_ioctl_may_call_both_faces),
		T_CASE(test_kfd_and_hsa_threads_with_handlers_calling_both_faces_finish),
		T_CASES_END,
	};
	static const struct t_suite suites[] = {
		{ "sim-locking", NULL, NULL, cases },
		T_SUITES_END,
	};

	return t_run("sim-locking", suites);
}
