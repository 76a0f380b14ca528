/* SPDX-License-Identifier: MIT */
/*
 * Shared mode: the device model as its own process, shared by client processes (docs/sim.md,
 * "Shared mode"). Every case runs real processes: a device process (a fork of this test that
 * calls hsaqm_sim_serve(), or the hsaqm-simd executable) and client processes (forks that
 * attach with hsaqm_sim_connect()). A client reports what it checked through a pipe; the
 * test asserts on those reports and on the device's own view (client and queue counts).
 *
 *   - Exactly once across two client processes on one device: 16 queues split between them,
 *     producers, and in each client a chaos thread (suspend/resume, gates, priorities); every
 *     workgroup ran exactly once (counters in the clients' model memory), each queue launched
 *     in order (launch times in the completion signals), every completion signal right.
 *   - A client SIGKILLed mid-run, with queues suspended and work in flight, loses its queues
 *     in the device and the other client runs on, exactly once.
 *   - The data path crosses processes without the socket: an HSA-face wait in a client wakes
 *     on the device's store (futex, the waiter sleeps), and a client's store wakes a device
 *     engine waiting in a barrier packet.
 *   - Errors: a wrong protocol version is -EPROTO; HSAQM_SIM_DEVICE pointing nowhere is
 *     -ENOENT / -ECONNREFUSED with one log line; memory the client cannot map at the device's
 *     address is -EADDRINUSE; a queue error reaches the client's callback.
 *   - hsaqm-simd: --help, bad usage, the line saying where it listens, devices as asked,
 *     clean stop on SIGTERM.
 *
 * Sanitizer builds run fewer dispatches and say so.
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

#if defined(__SANITIZE_THREAD__)
#define TOTAL_DISPATCHES 20000
#define RING_SLOTS 32
#define DURATION_SCALE 20
#define SCALE_NOTE "ThreadSanitizer build: 20000 dispatches instead of 100000, 32-slot rings, " \
		   "kernels 20x longer"
#elif defined(__SANITIZE_ADDRESS__)
#define TOTAL_DISPATCHES 100000
#define RING_SLOTS 64
#define DURATION_SCALE 1
#define SCALE_NOTE "AddressSanitizer build: 64-slot rings"
#else
#define TOTAL_DISPATCHES 100000
#define RING_SLOTS 256
#define DURATION_SCALE 1
#define SCALE_NOTE NULL
#endif

#define NQ 16              /* queues over both clients */
#define MAX_WG 8
#define PRODUCERS 2        /* per client */

static const char *g_simd; /* the hsaqm-simd executable (argv[1]), or NULL */
static char g_dir[64];     /* a temporary folder for sockets */

/* ------------------------------------------------------------------------------------
 * Small helpers.
 */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void sock_path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", g_dir, name);
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read exactly @n bytes within @ms milliseconds. 0, or -1 on EOF, error or timeout. */
static int read_all(int fd, void *p, size_t n, int ms)
{
	char *c = p;

	while (n) {
		struct pollfd pf = { fd, POLLIN, 0 };
		int r = poll(&pf, 1, ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		ssize_t got = read(fd, c, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		c += got;
		n -= (size_t)got;
	}
	return 0;
}

/* ------------------------------------------------------------------------------------
 * The device process: a fork that serves until told to stop. Commands on a pipe: 'q' asks
 * for the number of clients and of their queues, 'x' stops it.
 */
struct device {
	pid_t pid;
	int cmd;   /* to the device */
	int reply; /* from the device */
	char path[108];
};

struct dev_counts {
	uint32_t clients, queues;
};

static void *serve_thread(void *arg)
{
	struct hsaqm_sim *sim = arg;

	return (void *)(intptr_t)hsaqm_sim_serve(sim, NULL);
}

static void device_main(const char *path, int cmd, int reply, unsigned int ndev)
{
	struct hsaqm_sim_config cfg = { .num_devices = ndev, .time_mode = HSAQM_SIM_TIME_REAL, .seed = 7 };
	struct hsaqm_sim *sim;
	pthread_t th;
	int ok = 1;

	if (hsaqm_sim_create(&cfg, &sim) || hsaqm_sim_listen(sim, path))
		_exit(3);
	if (pthread_create(&th, NULL, serve_thread, sim))
		_exit(4);
	write_all(reply, &ok, sizeof(ok)); /* listening */
	for (;;) {
		char c;

		if (read_all(cmd, &c, 1, -1))
			c = 'x'; /* the test went away */
		if (c == 'q') {
			struct dev_counts n = { sim_shared_client_count(sim), sim_shared_queue_count(sim) };

			write_all(reply, &n, sizeof(n));
		} else {
			break;
		}
	}
	hsaqm_sim_serve_stop(sim);
	void *rv;
	pthread_join(th, &rv);
	uint64_t stranded = 0, lost = 0;
	for (unsigned int d = 0; d < sim->ndev; d++) {
		stranded += sim->dev[d]->stranded_requests;
		/* Acquire: pairs with the add of a request's waiter that found its wake-up lost. */
		lost += hsaqm_load_acquire(&sim->dev[d]->lost_wakeups);
	}
	hsaqm_sim_destroy(sim);
	/* exit(), not _exit(): LeakSanitizer checks the device process too. */
	exit(rv == NULL && !stranded && !lost ? 0 : 5);
}

static int device_start(struct device *d, const char *name, unsigned int ndev)
{
	int a[2], b[2], ok = 0;

	sock_path(d->path, sizeof(d->path), name);
	if (pipe(a) || pipe(b))
		return -1;
	fflush(NULL);
	d->pid = fork();
	if (d->pid < 0)
		return -1;
	if (d->pid == 0) {
		close(a[1]);
		close(b[0]);
		device_main(d->path, a[0], b[1], ndev);
	}
	close(a[0]);
	close(b[1]);
	d->cmd = a[1];
	d->reply = b[0];
	return read_all(d->reply, &ok, sizeof(ok), 20000) == 0 && ok ? 0 : -1;
}

static struct dev_counts device_counts(struct device *d)
{
	struct dev_counts n = { 99, 99 };

	write_all(d->cmd, "q", 1);
	read_all(d->reply, &n, sizeof(n), 20000);
	return n;
}

/* Stop the device; returns its exit status (0 = clean, no stranded request, no lost wake-up). */
static int device_stop(struct device *d)
{
	int st = -1;

	write_all(d->cmd, "x", 1);
	close(d->cmd);
	close(d->reply);
	if (waitpid(d->pid, &st, 0) != d->pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Run @fn(@arg, fd) in a child process; its report comes back on the returned fd. */
static pid_t child_start(void (*fn)(void *, int), void *arg, int *report)
{
	int p[2];

	if (pipe(p))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		fn(arg, p[1]);
		exit(0);
	}
	close(p[1]);
	*report = p[0];
	return pid;
}

static int child_wait(pid_t pid)
{
	int st = -1;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ------------------------------------------------------------------------------------
 * The exactly-once client: @nq queues, producers, chaos, and the checks.
 */
struct eo_report {
	int ok;             /* every check below held */
	int stage;          /* how far it got (diagnostics) */
	uint64_t dispatches, packets, workgroups, bad_counts, order_violations, bad_signals;
	uint64_t suspends, gate_closes, prio_changes, calls_failed, preemptions, waves_saved;
	uint64_t waves_restored, completed_mismatch, errors;
	double seconds;
	char msg[160];
};

struct eo_args {
	const char *path;
	unsigned int nq;
	unsigned int first_prio;
	uint32_t per_queue;
	uint64_t seed;
	bool chaos;
	int go_fd;          /* -1, or: report "ready" and wait for a byte before checking */
	bool endless;       /* never finish: submit until killed (the victim) */
};

struct eo_queue {
	struct t_q tq;
	struct hsaqm_ring ring;
	uint64_t *kernels;          /* one per dispatch: its counters are the dispatch's */
	uint32_t *counters;         /* model memory: per_queue x MAX_WG */
	struct sim_signal **sig;    /* per dispatch: 1 -> 0, start_ts = launch time */
	uint8_t *nwg;
	struct sim_signal *gates_done; /* completion of the gate barriers: bias - gates */
	struct sim_signal *gate;    /* 0 open, 1 closed */
	uint64_t gates;
	uint64_t packets;
	uint32_t submitted;
};

struct eo_client {
	struct eo_args a;
	struct hsaqm_sim *sim;
	struct eo_queue q[NQ];
	uint32_t producers_done;
	uint32_t stop;
	struct eo_report r;
	pthread_mutex_t rlock;
};

static void eo_doorbell(void *ctx, uint64_t last_index)
{
	sim_hwq_doorbell(ctx, last_index);
}

struct eo_prod {
	struct eo_client *c;
	unsigned int p;
	int failed;
};

static void *eo_producer(void *arg)
{
	struct eo_prod *pr = arg;
	struct eo_client *c = pr->c;
	uint64_t s = c->a.seed * 0x9e3779b97f4a7c15ull + pr->p + 1;

	for (uint32_t seq = 0; seq < c->a.per_queue || c->a.endless; seq++) {
		/* Acquire: pairs with a release of stop; none is made (the victim is killed). */
		if (hsaqm_load_acquire(&c->stop))
			break;
		for (unsigned int qi = pr->p; qi < c->a.nq; qi += PRODUCERS) {
			struct eo_queue *q = &c->q[qi];
			union hsaqm_aql_packet pk[2];
			uint32_t n = 0, d = c->a.endless ? seq % c->a.per_queue : seq;

			if (rnd(&s) % 10 == 0) {
				uint64_t dep = t_handle(q->gate);
				pk[n++] = t_barrier_and(&dep, 1, t_handle(q->gates_done), false);
				q->gates++;
			}
			if (c->a.endless)
				/*
				 * Re-armed to 1; what orders it before the packet that
				 * decrements it is the header's release below.
				 */
				hsaqm_store_release(&q->sig[d]->value, (int64_t)1);
			q->nwg[d] = (uint8_t)(1 + rnd(&s) % MAX_WG);
			pk[n++] = t_dispatch(q->kernels[d], q->nwg[d], t_handle(q->sig[d]), false);
			int err = hsaqm_ring_submit_sp(&q->ring, pk, n, 60ull * T_S);
			if (err) {
				snprintf(c->r.msg, sizeof(c->r.msg), "producer %u: submit: %s", pr->p,
					 strerror(-err));
				pr->failed = 1;
				return NULL;
			}
			q->packets += n;
			/* Release: pairs with eo_client_main's wait for the first packets. */
			hsaqm_store_release(&q->submitted, seq + 1);
		}
	}
	return NULL;
}

static void *eo_chaos(void *arg)
{
	struct eo_client *c = arg;
	uint64_t s = c->a.seed + 12345;

	/* The victim keeps its queue 0 suspended (eo_client_main): the chaos leaves it alone. */
	unsigned int q0 = c->a.endless ? 1 : 0, nq = c->a.nq - q0;

	/* Acquire: producers_done pairs with eo_client_main's release; stop as above. */
	while (!hsaqm_load_acquire(&c->producers_done) && !hsaqm_load_acquire(&c->stop)) {
		unsigned int op = (unsigned int)(rnd(&s) % 3);
		struct eo_queue *q = &c->q[q0 + rnd(&s) % nq];

		if (op == 0) {
			struct sim_hwq *v[3];
			uint32_t n = 1 + (uint32_t)(rnd(&s) % 3);

			for (uint32_t i = 0; i < n; i++)
				v[i] = c->q[q0 + rnd(&s) % nq].tq.hwq;
			if (sim_hwq_suspend(v, n, (uint32_t)(rnd(&s) % 100)))
				c->r.calls_failed++;
			c->r.suspends++;
			t_sleep_us(200 + (unsigned int)(rnd(&s) % 800));
			if (sim_hwq_resume(v, n))
				c->r.calls_failed++;
		} else if (op == 1) {
			sim_signal_store(c->sim, q->gate, 1);
			c->r.gate_closes++;
			t_sleep_us(100 + (unsigned int)(rnd(&s) % 900));
			sim_signal_store(c->sim, q->gate, 0);
		} else {
			if (sim_hwq_update(q->tq.hwq, q->tq.ring, RING_SLOTS * 64, (uint32_t)(rnd(&s) % 16), true))
				c->r.calls_failed++;
			c->r.prio_changes++;
		}
		t_sleep_us(100 + (unsigned int)(rnd(&s) % 400));
	}
	return NULL;
}

static int eo_setup(struct eo_client *c)
{
	int err = hsaqm_sim_connect(c->a.path, &c->sim);

	if (err) {
		snprintf(c->r.msg, sizeof(c->r.msg), "connect: %s", strerror(-err));
		return err;
	}
	for (unsigned int i = 0; i < c->a.nq; i++) {
		struct eo_queue *q = &c->q[i];
		unsigned int gi = c->a.first_prio + i; /* queue number over both clients */
		uint64_t dur = (2 + (uint64_t)gi) * DURATION_SCALE * T_US;

		err = t_q_create(&q->tq, c->sim, 0, RING_SLOTS, gi % 16);
		if (!err)
			err = hsaqm_ring_init(&q->ring, q->tq.ring, RING_SLOTS, q->tq.wr, q->tq.rd,
					      eo_doorbell, q->tq.hwq);
		if (err) {
			snprintf(c->r.msg, sizeof(c->r.msg), "queue %u: %s", i, strerror(-err));
			return err;
		}
		q->kernels = calloc(c->a.per_queue, sizeof(*q->kernels));
		q->sig = calloc(c->a.per_queue, sizeof(*q->sig));
		q->nwg = calloc(c->a.per_queue, 1);
		q->counters = hsaqm_sim_mem_alloc(c->sim, (size_t)c->a.per_queue * MAX_WG * 4, 64);
		q->gates_done = sim_signal_create(c->sim, (int64_t)1 << 40);
		q->gate = sim_signal_create(c->sim, 0);
		if (!q->kernels || !q->sig || !q->nwg || !q->counters || !q->gates_done || !q->gate)
			return -ENOMEM;
		for (uint32_t d = 0; d < c->a.per_queue; d++) {
			struct hsaqm_sim_kernel_desc kd = {
				.name = "shared-chaos", .duration_ns = dur, .waves_per_wg = 1 + gi % 8,
				.wg_counters = &q->counters[d * MAX_WG], .wg_counters_len = MAX_WG,
			};

			err = hsaqm_sim_kernel_register(c->sim, &kd, &q->kernels[d]);
			q->sig[d] = sim_signal_create(c->sim, 1);
			if (err || !q->sig[d]) {
				snprintf(c->r.msg, sizeof(c->r.msg), "kernel/signal %u: %s", d, strerror(-err));
				return err ? err : -ENOMEM;
			}
		}
	}
	return 0;
}

/* Wait for everything, then check; fills c->r. */
static void eo_check(struct eo_client *c)
{
	struct eo_report *r = &c->r;

	for (unsigned int i = 0; i < c->a.nq; i++) {
		struct eo_queue *q = &c->q[i];

		sim_signal_add(c->sim, q->gates_done, -(((int64_t)1 << 40) - (int64_t)q->gates));
		sim_signal_store(c->sim, q->gate, 0);
	}
	for (unsigned int i = 0; i < c->a.nq; i++) {
		struct eo_queue *q = &c->q[i];
		int64_t last_start = -1;

		/* The futex wait wakes on the device process's decrement. */
		if (sim_signal_wait(c->sim, q->gates_done, SIM_COND_EQ, 0, 60 * T_S) != 0)
			r->bad_signals++;
		for (uint32_t d = 0; d < c->a.per_queue; d++) {
			struct sim_signal *s = q->sig[d];

			if (sim_signal_wait(c->sim, s, SIM_COND_EQ, 0, 60 * T_S) != 0)
				r->bad_signals++;
			/* Launch order: each dispatch launched after the previous one of its queue. */
			int64_t st = HSAQM_READ_ONCE(s->start_ts);
			if (st <= last_start)
				r->order_violations++;
			last_start = st;
			/* Acquire: pairs with the device engine's adds, before its decrement. */
			for (uint32_t w = 0; w < MAX_WG; w++) {
				uint32_t n = hsaqm_load_acquire(&q->counters[d * MAX_WG + w]);

				r->bad_counts += n != (w < q->nwg[d] ? 1u : 0u);
				r->workgroups += n;
			}
		}
		struct sim_hwq_info info;
		struct sim_hwq_stats st;
		sim_hwq_get_info(q->tq.hwq, &info);
		sim_hwq_get_stats(q->tq.hwq, &st);
		r->completed_mismatch += info.packets_completed != q->packets;
		r->errors += info.state == SIM_HWQ_ERROR || q->tq.errors;
		r->preemptions += st.unmaps;
		r->waves_saved += st.waves_saved_total;
		r->waves_restored += st.waves_restored_total;
		r->packets += q->packets;
		r->dispatches += c->a.per_queue;
	}
	/* Still 0 a moment later: nothing completed twice. */
	t_sleep_us(2000);
	for (unsigned int i = 0; i < c->a.nq; i++) {
		for (uint32_t d = 0; d < c->a.per_queue; d++)
			r->bad_signals += sim_signal_load(c->q[i].sig[d]) != 0;
		r->bad_signals += sim_signal_load(c->q[i].gates_done) != 0;
	}
	r->ok = !r->bad_counts && !r->order_violations && !r->bad_signals && !r->calls_failed &&
		!r->completed_mismatch && !r->errors && r->waves_saved == r->waves_restored;
}

static void eo_client_main(void *arg, int report)
{
	struct eo_client *c = calloc(1, sizeof(*c));
	pthread_t prod[PRODUCERS], chaos;
	struct eo_prod pr[PRODUCERS];

	c->a = *(struct eo_args *)arg;
	c->r.stage = 1;
	uint64_t t0 = sim_mono_ns();
	if (eo_setup(c))
		goto out;
	c->r.stage = 2;
	if (c->a.chaos)
		pthread_create(&chaos, NULL, eo_chaos, c);
	for (unsigned int p = 0; p < PRODUCERS; p++) {
		pr[p] = (struct eo_prod){ c, p, 0 };
		pthread_create(&prod[p], NULL, eo_producer, &pr[p]);
	}
	if (c->a.go_fd >= 0) {
		/* Tell the test we run, then wait for its go (or, the victim, to be killed). */
		int ready = 1;
		char go;

		/* Acquire: pairs with eo_producer's release of the last queue's count. */
		while (!T_UNTIL(hsaqm_load_acquire(&c->q[c->a.nq - 1].submitted) != 0, T_NS_PER_S))
			;
		/* The victim dies with a queue suspended (work in it): the device must clean up. */
		if (c->a.endless && sim_hwq_suspend(&c->q[0].tq.hwq, 1, 0))
			ready = 0;
		write_all(report, &ready, sizeof(ready));
		read_all(c->a.go_fd, &go, 1, -1);
	}
	int failed = 0;
	for (unsigned int p = 0; p < PRODUCERS; p++) {
		pthread_join(prod[p], NULL);
		failed |= pr[p].failed;
	}
	hsaqm_store_release(&c->producers_done, 1u); /* release: pairs with eo_chaos's acquire */
	if (c->a.chaos)
		pthread_join(chaos, NULL);
	c->r.stage = 3;
	if (!failed)
		eo_check(c);
	c->r.seconds = (double)(sim_mono_ns() - t0) / 1e9;
out:
	write_all(report, &c->r, sizeof(c->r));
	/* Queues left to hsaqm_sim_destroy(): the device destroys them when we hang up. */
	hsaqm_sim_destroy(c->sim);
	for (unsigned int i = 0; i < NQ; i++) {
		free(c->q[i].kernels);
		free(c->q[i].sig);
		free(c->q[i].nwg);
	}
	free(c);
	exit(0); /* LeakSanitizer checks the client too */
}

static void print_report(const char *who, const struct eo_report *r)
{
	printf("\n  %s: %llu dispatches, %llu packets, %llu workgroups in %.2f s; %llu suspend/resume, "
	       "%llu gate closes, %llu priority changes; %llu preemptions, %llu waves saved",
	       who, (unsigned long long)r->dispatches, (unsigned long long)r->packets,
	       (unsigned long long)r->workgroups, r->seconds, (unsigned long long)r->suspends,
	       (unsigned long long)r->gate_closes, (unsigned long long)r->prio_changes,
	       (unsigned long long)r->preemptions, (unsigned long long)r->waves_saved);
	if (!r->ok)
		printf("\n  %s FAILED at stage %d: %s; bad counts %llu, order %llu, signals %llu, calls %llu, "
		       "completed %llu, errors %llu, restored %llu",
		       who, r->stage, r->msg, (unsigned long long)r->bad_counts,
		       (unsigned long long)r->order_violations, (unsigned long long)r->bad_signals,
		       (unsigned long long)r->calls_failed, (unsigned long long)r->completed_mismatch,
		       (unsigned long long)r->errors, (unsigned long long)r->waves_restored);
}

static void test_exactly_once_across_two_client_processes_on_one_device(void)
{
	struct device dev;
	struct eo_report r[2];
	pid_t pid[2];
	int fd[2] = { -1, -1 };
	const char *note = SCALE_NOTE;

	if (note)
		printf("\n  note: %s", note);
	CU_ASSERT_EQUAL_FATAL(device_start(&dev, "eo.sock", 1), 0);
	struct eo_args a[2];
	for (int i = 0; i < 2; i++) {
		a[i] = (struct eo_args){ .path = dev.path, .nq = NQ / 2, .first_prio = (unsigned int)i * NQ / 2,
					 .per_queue = TOTAL_DISPATCHES / NQ, .seed = 100 + (uint64_t)i,
					 .chaos = true, .go_fd = -1 };
		pid[i] = child_start(eo_client_main, &a[i], &fd[i]);
		CU_ASSERT_FATAL(pid[i] > 0);
	}
	for (int i = 0; i < 2; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		CU_ASSERT_EQUAL(read_all(fd[i], &r[i], sizeof(r[i]), 120000), 0);
		close(fd[i]);
		CU_ASSERT_EQUAL(child_wait(pid[i]), 0);
		print_report(i ? "client B" : "client A", &r[i]);
		CU_ASSERT_TRUE(r[i].ok);
		CU_ASSERT_EQUAL(r[i].dispatches, (uint64_t)(TOTAL_DISPATCHES / NQ) * (NQ / 2));
		CU_ASSERT_EQUAL(r[i].bad_counts, 0);
		CU_ASSERT_EQUAL(r[i].order_violations, 0);
		CU_ASSERT_EQUAL(r[i].bad_signals, 0);
		/* The chaos really happened, and really preempted running work. */
		CU_ASSERT(r[i].suspends > 0 && r[i].gate_closes > 0 && r[i].prio_changes > 0);
	}
	CU_ASSERT(r[0].waves_saved + r[1].waves_saved > 0);
	/* Both clients left: the device holds nothing of theirs. */
	struct dev_counts n;

	T_UNTIL((n = device_counts(&dev), !n.clients && !n.queues), 10 * T_NS_PER_S);
	CU_ASSERT_EQUAL(n.clients, 0);
	CU_ASSERT_EQUAL(n.queues, 0);
	CU_ASSERT_EQUAL(device_stop(&dev), 0);
	printf("\n  ");
}

/* ------------------------------------------------------------------------------------
 * A client killed mid-run.
 */
static void test_client_sigkilled_mid_run_does_not_disturb_the_other(void)
{
	struct device dev;
	int go_v[2], go_s[2], fd_v = -1, fd_s = -1, ready = 0;

	CU_ASSERT_EQUAL_FATAL(device_start(&dev, "kill.sock", 1), 0);
	CU_ASSERT_FATAL(pipe(go_v) == 0 && pipe(go_s) == 0);
	/* The victim: endless work with chaos (so it is killed while queues are suspended too). */
	struct eo_args av = { .path = dev.path, .nq = 4, .first_prio = 0, .per_queue = 64, .seed = 5,
			      .chaos = true, .go_fd = go_v[0], .endless = true };
	struct eo_args as = { .path = dev.path, .nq = 4, .first_prio = 8,
			      .per_queue = TOTAL_DISPATCHES / 40, .seed = 6, .chaos = true,
			      .go_fd = go_s[0] };
	pid_t victim = child_start(eo_client_main, &av, &fd_v);
	pid_t survivor = child_start(eo_client_main, &as, &fd_s);
	CU_ASSERT_FATAL(victim > 0 && survivor > 0);
	close(go_v[0]);
	close(go_s[0]);
	CU_ASSERT_EQUAL(read_all(fd_v, &ready, sizeof(ready), 60000), 0);
	CU_ASSERT_EQUAL(ready, 1); /* running, one queue suspended */
	CU_ASSERT_EQUAL(read_all(fd_s, &ready, sizeof(ready), 60000), 0);
	CU_ASSERT_EQUAL(ready, 1);

	struct dev_counts before = device_counts(&dev);
	CU_ASSERT_EQUAL(before.clients, 2);
	CU_ASSERT_EQUAL(before.queues, 8);
	t_sleep_us(20000); /* both mid-run */
	kill(victim, SIGKILL);
	CU_ASSERT_EQUAL(child_wait(victim), 128 + SIGKILL);
	close(fd_v);
	close(go_v[1]);

	/* The device notices the hang-up and destroys the victim's queues. */
	struct dev_counts after;

	T_UNTIL((after = device_counts(&dev), after.clients == 1 && after.queues == 4),
		10 * T_NS_PER_S);
	CU_ASSERT_EQUAL(after.clients, 1);
	CU_ASSERT_EQUAL(after.queues, 4);

	/* The survivor runs on to the end, exactly once. */
	write_all(go_s[1], "g", 1);
	struct eo_report r;
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL(read_all(fd_s, &r, sizeof(r), 120000), 0);
	close(fd_s);
	close(go_s[1]);
	CU_ASSERT_EQUAL(child_wait(survivor), 0);
	print_report("survivor", &r);
	CU_ASSERT_TRUE(r.ok);
	CU_ASSERT_EQUAL(r.dispatches, (uint64_t)(TOTAL_DISPATCHES / 40) * 4);
	CU_ASSERT_EQUAL(device_stop(&dev), 0);
	printf("\n  ");
}

/* ------------------------------------------------------------------------------------
 * The data path across processes, through the HSA face.
 */
struct hsa_report {
	int ok;
	int step;
	uint64_t wait_ns, wait_cpu_ns, model_ns, barrier_held, async_value;
	int queue_error_status;
	char msg[160];
};

struct h_agents {
	struct hsaqm_core_api_table *core;
	struct hsaqm_hsa_agent gpu;
	int n;
};

static hsaqm_hsa_status_t h_collect(struct hsaqm_hsa_agent a, void *data)
{
	struct h_agents *h = data;
	uint32_t type = 99;

	h->core->hsa_agent_get_info_fn(a, SIM_HSA_AGENT_INFO_DEVICE, &type);
	if (type == SIM_HSA_DEVICE_TYPE_GPU && !h->n++)
		h->gpu = a;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool h_async(hsaqm_hsa_signal_value_t v, void *arg)
{
	/* Release: pairs with the client's acquire of async_seen; the value is all it carries. */
	hsaqm_store_release((uint64_t *)arg, (uint64_t)v + 1000);
	return false;
}

static void hsa_error_cb(hsaqm_hsa_status_t st, struct hsaqm_hsa_queue *q, void *data)
{
	(void)q;
	/* Release: pairs with the client's acquire of err_status. */
	hsaqm_store_release((int *)data, (int)st);
}

#define H_FAIL(...)                                                   \
	do {                                                          \
		snprintf(r.msg, sizeof(r.msg), __VA_ARGS__);          \
		goto out;                                             \
	} while (0)

static void hsa_client_main(void *arg, int report)
{
	const char *path = arg;
	struct hsa_report r = { 0 };
	struct hsaqm_sim *sim = NULL;
	int err_status = 0;

	r.step = 1;
	if (hsaqm_sim_connect(path, &sim))
		H_FAIL("connect");
	struct hsaqm_api_root_v3 *root = hsaqm_sim_hsa_table(sim);
	struct hsaqm_core_api_table *core = root->core;
	struct hsaqm_amd_ext_table_v2 *amd = root->amd_ext;
	struct h_agents ag = { .core = core };
	if (core->hsa_init_fn() != HSAQM_HSA_STATUS_SUCCESS)
		H_FAIL("hsa_init");
	core->hsa_iterate_agents_fn(h_collect, &ag);
	if (ag.n != 1)
		H_FAIL("%d GPU agents, expected 1", ag.n);
	r.step = 2;
	/* A queue through the client's KFD face, whose control calls go to the device. */
	struct hsaqm_hsa_queue *hq = NULL;
	if (core->hsa_queue_create_fn(ag.gpu, 64, HSAQM_HSA_QUEUE_TYPE_MULTI, hsa_error_cb, &err_status,
				      0, 0, &hq) != HSAQM_HSA_STATUS_SUCCESS)
		H_FAIL("hsa_queue_create");
	uint32_t *counters = hsaqm_sim_mem_alloc(sim, 64, 64);
	uint64_t kobj = 0;
	struct hsaqm_sim_kernel_desc kd = { .name = "long", .duration_ns = 200 * T_MS,
					    .wg_counters = counters, .wg_counters_len = 1 };
	if (!counters || hsaqm_sim_kernel_register(sim, &kd, &kobj))
		H_FAIL("kernel");
	struct hsaqm_hsa_signal done = { 0 }, gate = { 0 }, gdone = { 0 };
	core->hsa_signal_create_fn(1, 0, NULL, &done);
	core->hsa_signal_create_fn(1, 0, NULL, &gate);
	core->hsa_signal_create_fn(1, 0, NULL, &gdone);
	uint64_t async_seen = 0;
	if (amd->hsa_amd_signal_async_handler_fn(done, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0, h_async,
						 &async_seen) != HSAQM_HSA_STATUS_SUCCESS)
		H_FAIL("async handler");

	/* 1. A 200 ms kernel; the wait in this process sleeps until the device's store. */
	r.step = 3;
	union hsaqm_aql_packet *ring = hq->base_address;
	union hsaqm_aql_packet p = t_dispatch(kobj, 1, done.handle, false);
	uint64_t idx = core->hsa_queue_add_write_index_scacq_screl_fn(hq, 1);
	hsaqm_aql_publish(&ring[idx & (hq->size - 1)], &p);
	uint64_t m0 = hsaqm_sim_now_ns(sim), t0 = sim_mono_ns(), c0 = thread_cpu_ns();
	core->hsa_signal_store_screlease_fn(hq->doorbell_signal, (int64_t)idx);
	hsaqm_hsa_signal_value_t v = core->hsa_signal_wait_scacquire_fn(
		done, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSAQM_HSA_WAIT_STATE_BLOCKED);
	r.wait_cpu_ns = thread_cpu_ns() - c0;
	r.wait_ns = sim_mono_ns() - t0;
	r.model_ns = hsaqm_sim_now_ns(sim) - m0;
	/* Acquire: pairs with the device engine's add, made before its decrement of done. */
	if (v != 0 || hsaqm_load_acquire(&counters[0]) != 1)
		H_FAIL("wait returned %lld, workgroup ran %u times", (long long)v, counters[0]);
	/*
	 * The async handler thread of this process woke too (the arena's epoch futex).
	 * Acquire, both: pair with h_async's release.
	 */
	T_UNTIL(hsaqm_load_acquire(&async_seen) != 0, 10 * T_NS_PER_S);
	r.async_value = hsaqm_load_acquire(&async_seen);

	/* 2. A barrier-AND on a signal only this process stores: the device's engine waits on it. */
	r.step = 4;
	core->hsa_signal_store_screlease_fn(done, 1);
	uint64_t dep = gate.handle;
	union hsaqm_aql_packet b = t_barrier_and(&dep, 1, gdone.handle, false);
	idx = core->hsa_queue_add_write_index_scacq_screl_fn(hq, 1);
	hsaqm_aql_publish(&ring[idx & (hq->size - 1)], &b);
	core->hsa_signal_store_screlease_fn(hq->doorbell_signal, (int64_t)idx);
	t_sleep_us(50000);
	r.barrier_held = core->hsa_signal_load_scacquire_fn(gdone) == 1;
	core->hsa_signal_store_screlease_fn(gate, 0); /* wakes the device's engine */
	v = core->hsa_signal_wait_scacquire_fn(gdone, HSAQM_HSA_SIGNAL_CONDITION_EQ, 0, 10 * T_S,
					       HSAQM_HSA_WAIT_STATE_BLOCKED);
	if (v != 0)
		H_FAIL("barrier not released: %lld", (long long)v);

	/* 3. A bad packet: the device's CP report reaches this process's error callback. */
	r.step = 5;
	union hsaqm_aql_packet bad = t_dispatch(kobj + 64 * 1024, 1, 0, false); /* no kernel there */
	idx = core->hsa_queue_add_write_index_scacq_screl_fn(hq, 1);
	hsaqm_aql_publish(&ring[idx & (hq->size - 1)], &bad);
	core->hsa_signal_store_screlease_fn(hq->doorbell_signal, (int64_t)idx);
	/* Acquire, both: pair with hsa_error_cb's release. */
	T_UNTIL(hsaqm_load_acquire(&err_status) != 0, 10 * T_NS_PER_S);
	r.queue_error_status = hsaqm_load_acquire(&err_status);
	r.step = 6;
	if (core->hsa_queue_destroy_fn(hq) != HSAQM_HSA_STATUS_SUCCESS)
		H_FAIL("hsa_queue_destroy");
	core->hsa_shut_down_fn();
	r.ok = 1;
out:
	write_all(report, &r, sizeof(r));
	hsaqm_sim_destroy(sim);
	exit(0);
}

static void test_hsa_face_waits_and_stores_cross_processes_through_futexes(void)
{
	struct device dev;
	struct hsa_report r = { 0 };
	int fd = -1;

	CU_ASSERT_EQUAL_FATAL(device_start(&dev, "hsa.sock", 1), 0);
	pid_t pid = child_start(hsa_client_main, dev.path, &fd);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(read_all(fd, &r, sizeof(r), 60000), 0);
	close(fd);
	CU_ASSERT_EQUAL(child_wait(pid), 0);
	printf("\n  200 ms kernel: the client's wait took %.1f ms wall, %.1f ms model, %.2f ms CPU",
	       (double)r.wait_ns / 1e6, (double)r.model_ns / 1e6, (double)r.wait_cpu_ns / 1e6);
	if (!r.ok)
		printf("\n  FAILED at step %d: %s", r.step, r.msg);
	CU_ASSERT_TRUE(r.ok);
	CU_ASSERT(r.model_ns >= 200 * T_MS);
	/* It slept: a polling wait would burn ~200 ms of CPU. */
	CU_ASSERT(r.wait_cpu_ns < 50 * T_MS);
	CU_ASSERT_EQUAL(r.async_value, 1000); /* handler ran with value 0 */
	CU_ASSERT_TRUE(r.barrier_held);
	CU_ASSERT_EQUAL(r.queue_error_status, 0x1010); /* INVALID_CODE_OBJECT */
	CU_ASSERT_EQUAL(device_stop(&dev), 0);
	printf("\n  ");
}

/* ------------------------------------------------------------------------------------
 * Errors.
 */
static void test_wrong_protocol_version_gets_eproto(void)
{
	struct device dev;
	struct hsaqm_sim *sim = NULL;

	CU_ASSERT_EQUAL_FATAL(device_start(&dev, "proto.sock", 1), 0);
	CU_ASSERT_EQUAL(sim_shared_connect_version(dev.path, SIM_SHARED_PROTO_VERSION + 1, &sim), -EPROTO);
	CU_ASSERT_PTR_NULL(sim);
	CU_ASSERT_EQUAL(sim_shared_connect_version(dev.path, 0, &sim), -EPROTO);
	/* The device dropped both and is unharmed. */
	struct dev_counts n;

	T_UNTIL((n = device_counts(&dev), !n.clients), 10 * T_NS_PER_S);
	CU_ASSERT_EQUAL(n.clients, 0);
	CU_ASSERT_EQUAL(device_stop(&dev), 0);
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
	sock_path(path, sizeof(path), "nobody.sock");
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
	sock_path(path, sizeof(path), "dead.sock");
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

	write_all(report, &rc, sizeof(rc));
	hsaqm_sim_destroy(sim);
	exit(0);
}

static void test_memory_the_client_cannot_map_at_the_same_address_is_eaddrinuse(void)
{
	struct device dev;
	int fd = -1, rc = 0;

	CU_ASSERT_EQUAL_FATAL(device_start(&dev, "addr.sock", 1), 0);
	pid_t pid = child_start(eaddrinuse_client, dev.path, &fd);
	CU_ASSERT_EQUAL(read_all(fd, &rc, sizeof(rc), 30000), 0);
	close(fd);
	CU_ASSERT_EQUAL(child_wait(pid), 0);
	CU_ASSERT_EQUAL(rc, -EADDRINUSE);
	/* The device forgot the client that could not attach. */
	struct dev_counts n;

	T_UNTIL((n = device_counts(&dev), !n.clients), 10 * T_NS_PER_S);
	CU_ASSERT_EQUAL(n.clients, 0);
	CU_ASSERT_EQUAL(device_stop(&dev), 0);
}

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
		execv(g_simd, argv);
		_exit(127);
	}
	close(p[1]);
	size_t got = 0;
	ssize_t r;
	while (got + 1 < n && (r = read(p[0], out + got, n - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(p[0]);
	return child_wait(pid);
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

	write_all(report, &n, sizeof(n));
	hsaqm_sim_destroy(sim);
	exit(0);
}

static void test_hsaqm_simd_listens_serves_and_stops_on_sigterm(void)
{
	char out[4096], path[108], line[512];

	if (!g_simd) {
		printf("\n  skipped: no hsaqm-simd path given\n  ");
		return;
	}
	char *help[] = { (char *)g_simd, (char *)"--help", NULL };
	CU_ASSERT_EQUAL(run_simd(help, out, sizeof(out)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "--socket"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "HSAQM_SIM_DEVICE"));
	char *bad[] = { (char *)g_simd, (char *)"--devices", (char *)"9", NULL };
	CU_ASSERT_EQUAL(run_simd(bad, out, sizeof(out)), 2);

	/* Serve: two devices; the first line says where. */
	sock_path(path, sizeof(path), "simd.sock");
	int p[2];
	CU_ASSERT_FATAL(pipe(p) == 0);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		execl(g_simd, g_simd, "--socket", path, "--devices", "2", "--kfd-minor", "13", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	size_t got = 0;
	memset(line, 0, sizeof(line));
	while (got < sizeof(line) - 1 && !strchr(line, '\n')) {
		if (read_all(p[0], line + got, 1, 30000))
			break;
		got++;
	}
	printf("\n  %s  ", line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "listening on"));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, path));
	int fd = -1, n = 0;
	pid_t c = child_start(ndev_client, path, &fd);
	CU_ASSERT_EQUAL(read_all(fd, &n, sizeof(n), 30000), 0);
	close(fd);
	CU_ASSERT_EQUAL(child_wait(c), 0);
	CU_ASSERT_EQUAL(n, 2);
	kill(pid, SIGTERM);
	memset(out, 0, sizeof(out));
	got = 0;
	ssize_t r;
	while (got + 1 < sizeof(out) && (r = read(p[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)r;
	close(p[0]);
	CU_ASSERT_EQUAL(child_wait(pid), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "stopped"));
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0); /* the socket file is gone */
}

/* ------------------------------------------------------------------------------------
 * The node-wide kfd/proc view: each client sees the others' KFD processes and queues.
 */
struct pv_report {
	int err;
	uint32_t pasid;  /* its own, as its tree shows it */
	uint32_t queue_id;
	int32_t other_queues; /* queues of the other client seen in its own tree */
	uint32_t other_pasid;
};

struct pv_args {
	const char *path;
	int go;          /* read: a byte per step */
	pid_t other;     /* 0: the first client */
};

static int pv_read(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t k;

	if (!f)
		return -1;
	k = fread(buf, 1, n - 1, f);
	buf[k] = 0;
	fclose(f);
	return 0;
}

/* A KFD queue on GPU 0 through the client's KFD face; its pasid from its own tree. */
static void pv_client(void *arg, int report)
{
	struct pv_args *a = arg;
	struct pv_report r = { 0 };
	struct hsaqm_sim *sim = NULL;
	struct hsaqm_kfd *k = NULL;
	struct hsaqm_kfd_create_queue_args q = { 0 };
	char path[512], buf[64];
	char c;

	r.err = hsaqm_sim_connect(a->path, &sim);
	if (!r.err)
		r.err = hsaqm_kfd_open(hsaqm_sim_kfd_transport(sim), &k);
	if (!r.err) {
		uint64_t *ring = hsaqm_sim_mem_alloc(sim, 4096, 4096), *idx = hsaqm_sim_mem_alloc(sim, 64, 64);

		memset(ring, 0, 4096);
		for (int i = 0; i < 64; i++)
			ring[i * 8] = 1; /* INVALID headers */
		q.ring_base_address = (uint64_t)(uintptr_t)ring;
		q.write_pointer_address = (uint64_t)(uintptr_t)&idx[0];
		q.read_pointer_address = (uint64_t)(uintptr_t)&idx[1];
		q.ring_size = 4096;
		q.gpu_id = sim_kfd_gpu_id(sim, 0);
		q.queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL;
		q.queue_percentage = 100;
		q.queue_priority = 7;
		q.ctl_stack_size = 8192;
		r.err = hsaqm_kfd_queue_create(k, &q);
		r.queue_id = q.queue_id;
	}
	if (!r.err)
		r.err = sim_proc_view_sync(sim);
	if (!r.err) {
		snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/pasid", hsaqm_sim_sysfs_root(sim),
			 (int)getpid());
		r.err = pv_read(path, buf, sizeof(buf)) ? -ENOENT : 0;
		r.pasid = (uint32_t)strtoul(buf, NULL, 10);
	}
	write_all(report, &r, sizeof(r));
	/* Step 1: look at the other client (it has its queue by now). */
	if (read_all(a->go, &c, 1, 20000) == 0 && a->other) {
		r.other_queues = -1;
		if (!sim_proc_view_sync(sim)) {
			snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/pasid",
				 hsaqm_sim_sysfs_root(sim), (int)a->other);
			if (!pv_read(path, buf, sizeof(buf)))
				r.other_pasid = (uint32_t)strtoul(buf, NULL, 10);
			snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/queues/0/gpuid",
				 hsaqm_sim_sysfs_root(sim), (int)a->other);
			r.other_queues = access(path, F_OK) == 0;
		}
		write_all(report, &r, sizeof(r));
	}
	/* Step 2 (the first client): destroy the queue, keep the KFD process. */
	if (read_all(a->go, &c, 1, 20000) == 0 && !a->other) {
		r.err = hsaqm_kfd_queue_destroy(k, r.queue_id);
		write_all(report, &r, sizeof(r));
		read_all(a->go, &c, 1, 20000);
	}
	if (k)
		hsaqm_kfd_close(k);
	hsaqm_sim_destroy(sim);
	exit(0);
}

/*
 * Two client processes of one device: each one's kfd/proc lists the other under its real pid
 * with its KFD queue (gpuid of the right GPU); PASIDs differ (the device gives them); a queue
 * destroyed leaves the other's view while its process stays listed.
 */
static void test_each_client_sees_the_other_clients_kfd_processes_and_queues(void)
{
	struct device dev;
	int goa[2], gob[2], ra = -1, rb = -1;
	struct pv_report a = { 0 }, b = { 0 };
	struct pv_args aa, ba;

	CU_ASSERT_EQUAL_FATAL(device_start(&dev, "pv", 1), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(goa), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(gob), 0);
	aa = (struct pv_args){ .path = dev.path, .go = goa[0], .other = 0 };
	pid_t pa = child_start(pv_client, &aa, &ra);
	CU_ASSERT_EQUAL_FATAL(read_all(ra, &a, sizeof(a), 20000), 0);
	CU_ASSERT_EQUAL(a.err, 0);
	ba = (struct pv_args){ .path = dev.path, .go = gob[0], .other = pa };
	pid_t pb = child_start(pv_client, &ba, &rb);
	CU_ASSERT_EQUAL_FATAL(read_all(rb, &b, sizeof(b), 20000), 0);
	CU_ASSERT_EQUAL(b.err, 0);
	CU_ASSERT(a.pasid >= 0x8001 && b.pasid >= 0x8001);
	CU_ASSERT_NOT_EQUAL(a.pasid, b.pasid);
	/* B looks: A's process and queue, under A's pid, with A's pasid. */
	write_all(gob[1], "1", 1);
	CU_ASSERT_EQUAL_FATAL(read_all(rb, &b, sizeof(b), 20000), 0);
	CU_ASSERT_EQUAL(b.other_queues, 1);
	CU_ASSERT_EQUAL(b.other_pasid, a.pasid);
	/* A destroys its queue (step 1 of A is a no-op: it has no other to look at). */
	write_all(goa[1], "12", 2);
	CU_ASSERT_EQUAL_FATAL(read_all(ra, &a, sizeof(a), 20000), 0);
	CU_ASSERT_EQUAL(a.err, 0);
	ba.go = gob[0];
	/* B looks again (its step 2 does nothing): A's process stays, its queue is gone. */
	struct dev_counts n = device_counts(&dev);
	CU_ASSERT_EQUAL(n.queues, 1); /* B's */
	write_all(goa[1], "3", 1);
	close(goa[1]);
	close(gob[1]);
	CU_ASSERT_EQUAL(child_wait(pa), 0);
	CU_ASSERT_EQUAL(child_wait(pb), 0);
	close(goa[0]);
	close(gob[0]);
	close(ra);
	close(rb);
	CU_ASSERT_EQUAL(device_stop(&dev), 0);
}

static const struct t_case cases[] = {
	T_CASE(test_exactly_once_across_two_client_processes_on_one_device),
	T_CASE(test_client_sigkilled_mid_run_does_not_disturb_the_other),
	T_CASE(test_hsa_face_waits_and_stores_cross_processes_through_futexes),
	T_CASE(test_each_client_sees_the_other_clients_kfd_processes_and_queues),
	T_CASE(test_wrong_protocol_version_gets_eproto),
	T_CASE(test_device_env_pointing_nowhere_fails_with_one_log_line),
	T_CASE(test_memory_the_client_cannot_map_at_the_same_address_is_eaddrinuse),
	T_CASE(test_hsaqm_simd_listens_serves_and_stops_on_sigterm),
	T_CASES_END,
};

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");

	if (argc > 1)
		g_simd = argv[1];
	signal(SIGPIPE, SIG_IGN);
	/* Short: a socket path has at most 107 bytes. */
	snprintf(g_dir, sizeof(g_dir), "%s/hsaqm-shm-XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
	if (!mkdtemp(g_dir)) {
		perror("mkdtemp");
		return 1;
	}
	static const struct t_suite suites[] = { { "sim-shared", NULL, NULL, cases }, T_SUITES_END };
	int rc = t_run("test-sim-shared", suites);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
	if (system(cmd)) {
		/* nothing to do: a leftover folder in $TMPDIR */
	}
	return rc;
}
