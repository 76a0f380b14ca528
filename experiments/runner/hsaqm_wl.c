/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-wl - a workload process of the scenario runner (docs/experiments.md).
 *
 * A program of the kind the users run, on the device model instead of a GPU: it opens the model
 * with hsaqm_sim_open_env() (the shared device process hsaqm-simd named by HSAQM_SIM_DEVICE, or
 * an in-process model when unset), calls hsa_init through the model's HSA table (which loads
 * HSA_TOOLS_LIB, as ROCr does: under hsaqm-run, hsaqm's tool library), and runs the processes
 * of a workload file it is given: one thread per task, each submitting its model's kernels the
 * way ROCclr feeds an HSA queue (add_write_index through the table, wait while the ring is
 * full, body, 32-bit release store of header+setup, doorbell store through the table), a
 * completion signal on the last kernel of each request. It never touches hsaqm itself: in the
 * hsaqm configurations the tool library wraps the table and turns the queues into its proxies,
 * and this program only checks that the tool is active and copies its statistics.
 *
 * The runner starts one hsaqm-wl per workload process (--process NAME), each a real process;
 * without --process every process of the file runs as a group of threads of this one (quick
 * runs; the output says which). Latencies are model time: from the request's submission
 * (model clock read just before its first packet) to the completion time the model stamps
 * into its signal (profiling end_ts), so a host that wakes up late changes when a result is
 * *seen*, not the figure.
 *
 * Usage: hsaqm-wl FILE [--config NAME] [--process NAME]... [--out JSON] [--seed N]
 *                 [--length DUR] [--warmup DUR] [--time-scale X] [--start-mono NS]
 *                 [--trace FILE] [--request-log] [--progress] [--dump] [--check] [--quiet]
 * Every figure it writes is a MODEL FIGURE.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dlfcn.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm-hsa/api_table.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-sim/sim.h"
#include "hsaqm-common/json.h"
#include "hsaqm-common/text.h"
#include "hsaqm-common/time.h"
#include "wl.h"

#define NS_US 1000ull
#define NS_MS 1000000ull
#define NS_S 1000000000ull

/* HSA ABI values (hsa.h) this program asks the table for, as an application would. */
#define WL_HSA_AGENT_INFO_DEVICE 17
#define WL_HSA_DEVICE_TYPE_GPU 1
#define WL_MAX_GPUS 8
#define POOL 256u /* completion signals per task: at most this many requests in flight */
#define MAX_THREADS (HSAQM_WL_MAX_PROCESSES * HSAQM_WL_MAX_TASKS)

struct run;

/* The model as an HSA application sees it: the table (possibly wrapped by a tool), the GPUs. */
struct wl_hsa {
	struct hsaqm_sim *sim;
	struct hsaqm_api_root_v3 *root;
	struct hsaqm_core_api_table *core;
	struct hsaqm_amd_ext_table_v2 *amd;
	struct hsaqm_hsa_agent gpu[WL_MAX_GPUS];
	unsigned int ngpu;
	bool inited;
};

/*
 * One HSA queue: a stream of a process. A stream with create= is created by the first of its
 * tasks to get there, at that model instant (m serialises them); the others wait on m too.
 */
struct wl_queue {
	struct run *r;
	struct hsaqm_hsa_queue *q;      /* what the application writes (a proxy under the tool) */
	bool used;
	unsigned int pi, si;
	pthread_mutex_t m;
	int create_rc;
	uint64_t create_call, created;  /* model ns: hsa_queue_create called, returned */
};

/*
 * A fair lock: one thread of a process launches at a time (Python's GIL), in arrival order.
 * free_at is the model time at which the last holder's launch chunk ended: the next holder's
 * chunk starts there (or at its own schedule, if later), not when its host thread happened to
 * wake up, so the host's wake-up latency does not leak into the modelled launch pace.
 */
struct ticket_lock {
	pthread_mutex_t m;
	pthread_cond_t cv;
	uint64_t next, serving;
	uint64_t free_at;
};

struct req {
	uint64_t planned; /* model ns: the arrival process's instant (closed loop: the submission) */
	uint64_t arrival; /* model ns: submitted */
	uint64_t start;   /* model ns: latency counted from here (see reap()) */
	uint64_t launch;  /* model ns: the device launched the request's last kernel */
	uint64_t end;     /* model ns; 0 = not complete */
};

struct task_run {
	struct run *r;
	unsigned int pi, ti;
	const struct hsaqm_wl_process *proc;
	const struct hsaqm_wl_task *task;
	const struct hsaqm_wl_model *model;
	struct wl_queue *wq;
	struct ticket_lock *host_lock;
	uint64_t rng;
	struct hsaqm_hsa_signal pool[POOL];
	uint64_t pool_req[POOL];        /* request index each in-flight signal belongs to */
	uint64_t head, tail;            /* in-flight requests: [tail, head) by submission order */
	struct req *reqs;
	size_t nreq, capreq;
	uint64_t dropped;
	uint64_t arrivals;
	uint64_t lat_avg; /* model ns, running average */
	uint64_t prev_end; /* model ns, the last completion reaped */
	/* --request-log: a signal on the first kernel of the first request, to time its launch. */
	struct hsaqm_hsa_signal first_sig;
	bool first_sig_used;
	int error;
	pthread_t th;
	bool started, joined;
};

struct run {
	const struct hsaqm_wl_file *wl;
	struct hsaqm_wl_config cfg;
	bool proc_on[HSAQM_WL_MAX_PROCESSES];
	struct wl_hsa h;
	double scale;
	bool shared;                      /* the model is the shared device process */
	bool tool_active;                 /* hsaqm's tool library is loaded and active */
	char tool_status[256];
	char *tool_stats;                 /* the tool's statistics at the end of the run */
	uint64_t start_mono;              /* CLOCK_MONOTONIC ns every process starts at; 0 = own */
	uint64_t seed;
	uint64_t length_ns, warmup_ns;
	uint64_t kobj[HSAQM_WL_MAX_MODELS][HSAQM_WL_MAX_KGROUPS];
	struct wl_queue queues[HSAQM_WL_MAX_PROCESSES][HSAQM_WL_MAX_STREAMS];
	struct ticket_lock locks[HSAQM_WL_MAX_PROCESSES];
	struct task_run *tasks[MAX_THREADS];
	unsigned int ntasks;
	uint64_t t_start, win_lo, win_hi; /* model ns */
	bool progress, quiet;
	bool request_log;                 /* every request's times and the streams' in the JSON */
	const char *trace;
};

/* ---- Small helpers ------------------------------------------------------------------------- */

static uint64_t rnd_next(uint64_t *s)
{
	/* splitmix64: the arrival streams need nothing stronger, and are seeded per task. */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double rnd_unit(uint64_t *s)
{
	return (double)(rnd_next(s) >> 11) / 9007199254740992.0;
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static uint64_t model_now(struct run *r)
{
	return hsaqm_sim_now_ns(r->h.sim);
}

/* Sleep until model time @t (REAL mode: wall time = model time / scale). */
static void sleep_until_model(struct run *r, uint64_t t)
{
	for (;;) {
		uint64_t now = model_now(r);

		if (now >= t)
			return;
		double wall = (double)(t - now) / r->scale;
		struct timespec ts = { .tv_sec = (time_t)(wall / 1e9),
				       .tv_nsec = (long)fmod(wall, 1e9) };

		if (ts.tv_sec == 0 && ts.tv_nsec < 1000)
			ts.tv_nsec = 1000;
		nanosleep(&ts, NULL);
	}
}

static void ticket_lock(struct ticket_lock *l)
{
	pthread_mutex_lock(&l->m);
	uint64_t me = l->next++;

	while (l->serving != me)
		pthread_cond_wait(&l->cv, &l->m);
	pthread_mutex_unlock(&l->m);
}

static void ticket_unlock(struct ticket_lock *l, uint64_t free_at)
{
	pthread_mutex_lock(&l->m);
	l->free_at = free_at;
	l->serving++;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->m);
}

/* ---- Submission, as ROCclr does it --------------------------------------------------------- */

static void wl_doorbell(struct wl_queue *wq, uint64_t idx)
{
	/* Through the table: under hsaqm-run the tool's signal-store wrapper takes it. */
	wq->r->h.core->hsa_signal_store_screlease_fn(wq->q->doorbell_signal,
						     (hsaqm_hsa_signal_value_t)idx);
}

/*
 * Write one packet into @wq's ring: reserve the index through the table (a tool sees it),
 * wait while the ring is full, write the body, then publish header and setup with one
 * 32-bit release store. Returns the index, or UINT64_MAX when the ring stayed full 10 s.
 */
static uint64_t wl_write_packet(struct wl_queue *wq, const union hsaqm_aql_packet *pk)
{
	struct hsaqm_core_api_table *core = wq->r->h.core;
	struct hsaqm_hsa_queue *q = wq->q;
	uint64_t idx = core->hsa_queue_add_write_index_screlease_fn(q, 1);
	uint64_t spins = 0, deadline = 0;
	union hsaqm_aql_packet *slot;
	uint32_t first;

	while (idx - core->hsa_queue_load_read_index_scacquire_fn(q) >= q->size) {
		if (++spins < 64) {
			hsaqm_cpu_relax();
			continue;
		}
		if (!deadline)
			deadline = hsaqm_mono_ns() + 10 * NS_S;
		if (hsaqm_mono_ns() > deadline)
			return UINT64_MAX;
		sleep_us(20);
	}
	slot = (union hsaqm_aql_packet *)q->base_address + (idx & (q->size - 1));
	memcpy((char *)slot + 4, (const char *)pk + 4, sizeof(*pk) - 4);
	memcpy(&first, pk, sizeof(first));
	/* Release: the body above is visible to the packet processor before the header. */
	hsaqm_store_release((uint32_t *)(void *)slot, first);
	return idx;
}

static union hsaqm_aql_packet wl_dispatch(uint64_t kobj, const struct hsaqm_wl_kernel *k,
					  uint64_t cs)
{
	uint32_t wi = 64u * (k->waves > 16 ? 16 : k->waves);
	union hsaqm_aql_packet p;
	struct hsaqm_aql_dispatch_desc d = {
		.dims = 1, .workgroup_size = { (uint16_t)wi, 1, 1 },
		.grid_size = { (uint32_t)((uint64_t)k->wgs * wi > UINT32_MAX ? UINT32_MAX
									     : k->wgs * wi), 1, 1 },
		.kernel_object = kobj, .completion_signal = cs,
		/* In order, as HIP streams issue kernels. */
		.barrier = true,
		.acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
		.release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
	};

	memset(&p, 0, sizeof(p));
	hsaqm_aql_dispatch_build(&p, &d);
	return p;
}

/*
 * One request: every kernel of the model, the last with @cs. Without a launch time the
 * doorbell is rung once for the whole request (each doorbell costs about 10 us of host time
 * on the model, which a scaled clock multiplies); with one, the host launches in chunks of
 * about 0.5 ms of launch time, each taking the process's host lock if it has one.
 */
static int submit_request(struct task_run *tr, struct hsaqm_hsa_signal cs)
{
	struct run *r = tr->r;
	const struct hsaqm_wl_model *m = tr->model;
	uint64_t launch = tr->task->launch_ns;
	uint32_t chunk = launch ? (uint32_t)((500 * NS_US + launch - 1) / launch) : UINT32_MAX;
	uint32_t in_chunk = 0, done = 0;
	uint64_t last = 0, sched = model_now(r);

	for (unsigned int g = 0; g < m->nk; g++) {
		for (uint32_t c = 0; c < m->k[g].count; c++) {
			bool final = ++done == m->kernels;
			uint64_t sig = final ? cs.handle : 0;

			/*
			 * The first kernel the task ever submits carries a signal of its own when it
			 * is not also the last (whose signal times the request): its launch time says
			 * when the stream first ran (a queue created while its process was held).
			 */
			if (done == 1 && !final && tr->first_sig.handle && !tr->first_sig_used) {
				sig = tr->first_sig.handle;
				tr->first_sig_used = true;
			}
			union hsaqm_aql_packet pk =
				wl_dispatch(r->kobj[tr->model - r->wl->models][g], &m->k[g], sig);

			if (launch && in_chunk == 0 && tr->host_lock) {
				ticket_lock(tr->host_lock);
				/*
				 * Launch time starts counting once the lock is free in model time
				 * (the previous holder's chunk ended), on the model's schedule.
				 */
				if (tr->host_lock->free_at > sched)
					sched = tr->host_lock->free_at;
			}
			last = wl_write_packet(tr->wq, &pk);
			if (last == UINT64_MAX)
				return -ETIMEDOUT;
			if (launch && (++in_chunk == chunk || final)) {
				/*
				 * The host spent this chunk's launch time before the doorbell. The
				 * schedule is absolute, so a sleep that overshoots is absorbed by
				 * the next chunk instead of adding up over the request.
				 */
				sched += in_chunk * launch;
				sleep_until_model(r, sched);
				wl_doorbell(tr->wq, last);
				if (tr->host_lock)
					ticket_unlock(tr->host_lock, sched);
				in_chunk = 0;
			}
		}
	}
	if (!launch)
		wl_doorbell(tr->wq, last);
	return 0;
}

/* ---- A task's thread ------------------------------------------------------------------------ */

static int record_arrival(struct task_run *tr, uint64_t t)
{
	if (tr->nreq == tr->capreq) {
		size_t cap = tr->capreq ? 2 * tr->capreq : 1024;
		struct req *n = realloc(tr->reqs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		tr->reqs = n;
		tr->capreq = cap;
	}
	memset(&tr->reqs[tr->nreq], 0, sizeof(tr->reqs[tr->nreq]));
	tr->reqs[tr->nreq].arrival = t;
	tr->nreq++;
	return 0;
}

/* Collect completed requests in submission order (one stream completes in order). */
static uint64_t reap(struct task_run *tr)
{
	struct run *r = tr->r;
	uint64_t last_end = 0;

	while (tr->tail < tr->head) {
		struct hsaqm_hsa_signal cs = tr->pool[tr->tail % POOL];
		struct hsaqm_hsa_amd_profiling_dispatch_time dt = { 0, 0 };

		if (r->h.core->hsa_signal_load_scacquire_fn(cs) != 0)
			break;
		r->h.amd->hsa_amd_profiling_get_dispatch_time_fn(r->h.gpu[0], cs, &dt);
		struct req *q = &tr->reqs[tr->pool_req[tr->tail % POOL]];

		q->end = dt.end ? dt.end : model_now(r);
		q->launch = dt.start;
		/*
		 * A back-to-back loop (closed, no think time, several in flight) keeps the
		 * stream busy, as a synchronous loop does on a real host whose wake-up costs
		 * ~10 us; its requests are timed from when they could start, the previous
		 * one's completion, not from a submission made while that one still ran.
		 */
		q->start = q->arrival;
		if (tr->task->arrival == HSAQM_WL_ARR_CLOSED && !tr->task->think_ns &&
		    tr->task->depth > 1 && tr->prev_end > q->start)
			q->start = tr->prev_end;
		tr->prev_end = q->end;
		last_end = q->end;
		/* A running average of the latency, for wait_oldest()'s guess. */
		if (q->end > q->arrival)
			tr->lat_avg = tr->lat_avg ? (7 * tr->lat_avg + (q->end - q->arrival)) / 8
						  : q->end - q->arrival;
		tr->tail++;
	}
	return last_end;
}

static uint64_t next_gap(struct task_run *tr)
{
	const struct hsaqm_wl_task *t = tr->task;

	switch (t->arrival) {
	case HSAQM_WL_ARR_POISSON:
		return (uint64_t)(-log(1.0 - rnd_unit(&tr->rng)) / t->rate * 1e9);
	case HSAQM_WL_ARR_PERIODIC:
	case HSAQM_WL_ARR_BURST:
		return t->period_ns;
	case HSAQM_WL_ARR_CLOSED:
		return 0;
	}
	return 0;
}

static int arrive(struct task_run *tr, uint64_t planned)
{
	struct run *r = tr->r;
	struct hsaqm_hsa_signal cs;
	uint64_t t;
	int rc;

	tr->arrivals++;
	if (tr->head - tr->tail >= POOL) {
		tr->dropped++; /* more than POOL requests in flight: the stream is hopelessly behind */
		return 0;
	}
	cs = tr->pool[tr->head % POOL];
	r->h.core->hsa_signal_store_relaxed_fn(cs, 1);
	/*
	 * The request starts when the host submits it (model clock): a host that wakes late
	 * shifts the arrival, it does not add to the latency. Launch-paced requests include
	 * their launch time, as the users' measurement does.
	 */
	t = model_now(r);
	rc = record_arrival(tr, t);
	if (rc)
		return rc;
	tr->reqs[tr->nreq - 1].planned = planned;
	tr->pool_req[tr->head % POOL] = tr->nreq - 1;
	tr->head++;
	return submit_request(tr, cs);
}

/*
 * Wait for the oldest request in flight, or until model time @wake. A host thread woken by
 * the model's futex is late by the machine's wake-up latency (0.1-1 ms on a loaded 2-core
 * VM, against 10-20 us for a GPU interrupt on a real host), which a closed loop would add
 * between iterations. So, knowing roughly when the request ends (the average of the last
 * ones), the thread sleeps until shortly before, then polls for at most 2 ms of wall time.
 */
static void wait_oldest(struct task_run *tr, uint64_t now, uint64_t wake)
{
	struct run *r = tr->r;
	struct hsaqm_hsa_signal cs = tr->pool[tr->tail % POOL];
	uint64_t arrival = tr->reqs[tr->pool_req[tr->tail % POOL]].arrival;
	uint64_t margin = (uint64_t)(300 * NS_US * r->scale);
	uint64_t expect = tr->lat_avg ? arrival + tr->lat_avg : 0;
	uint64_t until = wake, timeout;

	if (expect && expect > now + margin && expect - margin < until)
		until = expect - margin;
	timeout = until == UINT64_MAX ? 50 * NS_MS : until > now ? until - now : 0;
	if (timeout > 50 * NS_MS)
		timeout = 50 * NS_MS;
	if (!expect || expect > now + margin || timeout) {
		if (timeout)
			r->h.core->hsa_signal_wait_scacquire_fn(cs, HSAQM_HSA_SIGNAL_CONDITION_LT,
								1, timeout,
								HSAQM_HSA_WAIT_STATE_BLOCKED);
		if (!expect || r->h.core->hsa_signal_load_scacquire_fn(cs) == 0)
			return;
		now = model_now(r);
		if (now + margin < expect || (wake != UINT64_MAX && now >= wake))
			return;
	}
	uint64_t stop = hsaqm_mono_ns() + 2 * NS_MS;

	while (r->h.core->hsa_signal_load_scacquire_fn(cs) != 0 && hsaqm_mono_ns() < stop &&
	       (wake == UINT64_MAX || model_now(r) < wake))
		sched_yield();
}

static int create_queue(struct run *r, unsigned int pi, unsigned int si);

/*
 * A stream with create=: its queue is made at that model instant, by whichever of its tasks
 * gets there first, while the other processes run (under hsaqm the tool's queue_create
 * registers it with hsaqmd then, so a queue created while its process is held starts held).
 */
static int late_queue(struct task_run *tr)
{
	struct wl_queue *wq = tr->wq;
	struct run *r = tr->r;
	int rc;

	sleep_until_model(r, r->t_start + tr->proc->streams[tr->task->stream].create_ns);
	pthread_mutex_lock(&wq->m);
	if (!wq->q && !wq->create_rc) {
		wq->create_call = model_now(r);
		wq->create_rc = create_queue(r, wq->pi, wq->si);
		wq->created = model_now(r);
	}
	rc = wq->create_rc;
	pthread_mutex_unlock(&wq->m);
	return rc;
}

static void *task_main(void *arg)
{
	struct task_run *tr = arg;
	struct run *r = tr->r;
	const struct hsaqm_wl_task *t = tr->task;
	uint64_t next, think_until;
	bool closed = t->arrival == HSAQM_WL_ARR_CLOSED;

	sleep_until_model(r, r->t_start);
	if (tr->proc->streams[t->stream].create_ns) {
		/* A stream made after the run ended never existed: nothing to submit. */
		if (r->t_start + tr->proc->streams[t->stream].create_ns >= r->win_hi)
			return NULL;
		tr->error = late_queue(tr);
		if (tr->error)
			return NULL;
	}
	next = r->t_start + t->start_ns;
	/* A closed loop's first request waits for start= too. */
	think_until = next;
	if (t->arrival == HSAQM_WL_ARR_POISSON)
		next += next_gap(tr);
	for (;;) {
		uint64_t now = model_now(r);
		bool more = now < r->win_hi && (!t->requests || tr->arrivals < t->requests);
		uint64_t end;

		end = reap(tr);
		if (closed && end) {
			think_until = end + t->think_ns;
			/* Seeded, uniform +- jitter: the host's sleep, which desynchronises threads. */
			if (t->jitter_ns)
				think_until += (uint64_t)(rnd_unit(&tr->rng) * 2.0 *
							  (double)t->jitter_ns) - t->jitter_ns;
		}
		if (!more && tr->tail == tr->head)
			break;
		if (!more && now > r->win_hi + 30 * NS_S) {
			fprintf(stderr, "hsaqm-wl: task %s: %" PRIu64 " requests never completed\n",
				t->name, tr->head - tr->tail);
			tr->error = -ETIMEDOUT;
			break;
		}
		if (more && closed && tr->head - tr->tail < t->depth && now >= think_until) {
			tr->error = arrive(tr, now);
			if (tr->error)
				break;
			continue;
		}
		if (more && !closed && now >= next) {
			uint32_t n = t->arrival == HSAQM_WL_ARR_BURST ? t->burst : 1;

			for (uint32_t i = 0; i < n && !tr->error; i++)
				tr->error = arrive(tr, next);
			if (tr->error)
				break;
			next += next_gap(tr);
			if (t->arrival == HSAQM_WL_ARR_PERIODIC && t->jitter_ns)
				next += (uint64_t)(rnd_unit(&tr->rng) * 2.0 * (double)t->jitter_ns) -
					t->jitter_ns;
			continue;
		}
		/* Nothing to do until the oldest request completes or the next arrival. */
		uint64_t wake = UINT64_MAX;

		if (more)
			wake = closed ? (tr->head - tr->tail < t->depth ? think_until : UINT64_MAX)
				      : next;
		/* An arrival after the window never comes: do not sleep past the window's end. */
		if (wake != UINT64_MAX && wake > r->win_hi)
			wake = r->win_hi;
		if (tr->tail < tr->head) {
			wait_oldest(tr, now, wake);
		} else if (wake != UINT64_MAX) {
			sleep_until_model(r, wake);
		}
	}
	return NULL;
}

/* ---- Setup ---------------------------------------------------------------------------------- */

static hsaqm_hsa_status_t collect_agent(struct hsaqm_hsa_agent a, void *data)
{
	struct wl_hsa *h = data;
	uint32_t type = 99;

	h->core->hsa_agent_get_info_fn(a, WL_HSA_AGENT_INFO_DEVICE, &type);
	if (type == WL_HSA_DEVICE_TYPE_GPU && h->ngpu < WL_MAX_GPUS)
		h->gpu[h->ngpu++] = a;
	return HSAQM_HSA_STATUS_SUCCESS;
}

/*
 * hsaqm's tool library, when ROCr (here the model's hsa_init) loaded it, registered itself in
 * libhsaqm.so: ask that library, as python/hsaqm.py does, without loading it otherwise.
 */
static void *tool_sym(const char *name)
{
	void *lib = dlopen("libhsaqm.so.0", RTLD_NOW | RTLD_NOLOAD);

	return lib ? dlsym(lib, name) : NULL;
}

static void tool_probe(struct run *r)
{
	int (*status)(char *, size_t) = (int (*)(char *, size_t))tool_sym("hsaqm_process_status");

	strcpy(r->tool_status, "not loaded");
	if (status)
		status(r->tool_status, sizeof(r->tool_status));
	r->tool_active = !strncmp(r->tool_status, "active", 6);
}

/* The tool's statistics document (queues, levels, preemptions), malloc'ed; NULL without one. */
static char *tool_stats_json(void)
{
	int (*stats)(char *, size_t, size_t *) =
		(int (*)(char *, size_t, size_t *))tool_sym("hsaqm_process_stats_json");
	size_t need = 0;
	char *buf;

	if (!stats || stats(NULL, 0, &need) != -ENOSPC || !need)
		return NULL;
	need += 4096; /* queues may change between the two calls */
	buf = malloc(need);
	if (buf && stats(buf, need, NULL)) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

static int open_model(struct run *r, uint64_t seed)
{
	struct hsaqm_sim_config sc = {
		.num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL, .time_scale = r->scale,
		.seed = seed ? seed : 1, .trace_path = r->trace,
	};
	int rc;

	memset(&r->h, 0, sizeof(r->h));
	r->shared = getenv("HSAQM_SIM_DEVICE") && *getenv("HSAQM_SIM_DEVICE");
	if (r->shared && r->trace)
		fprintf(stderr, "hsaqm-wl: --trace is ignored on the shared device "
				"(hsaqm-simd --trace writes it)\n");
	rc = hsaqm_sim_open_env(&sc, &r->h.sim);
	if (rc)
		return rc;
	r->h.root = hsaqm_sim_hsa_table(r->h.sim);
	r->h.core = r->h.root->core;
	r->h.amd = r->h.root->amd_ext;
	/* ROCr's first hsa_init: loads HSA_TOOLS_LIB (hsaqm's tool under hsaqm-run). */
	if (r->h.core->hsa_init_fn() != HSAQM_HSA_STATUS_SUCCESS)
		return -EIO;
	r->h.inited = true;
	r->h.core->hsa_iterate_agents_fn(collect_agent, &r->h);
	if (!r->h.ngpu)
		return -ENODEV;
	tool_probe(r);
	if (r->shared) {
		/*
		 * The device process owns the clock and its scale (hsaqm-simd --time-scale): measure
		 * it rather than trust --time-scale, which only says how to convert sleeps.
		 */
		uint64_t m0 = model_now(r), w0 = hsaqm_mono_ns(), m1, w1;

		sleep_us(20000);
		m1 = model_now(r);
		w1 = hsaqm_mono_ns();
		double got = w1 > w0 ? (double)(m1 - m0) / (double)(w1 - w0) : r->scale;

		if (fabs(got / r->scale - 1.0) > 0.05) {
			fprintf(stderr, "hsaqm-wl: the device runs at time scale %.3g, not %g: using "
					"%.3g\n", got, r->scale, got);
			r->scale = got;
		}
	}
	return 0;
}

static int register_kernels(struct run *r)
{
	for (unsigned int m = 0; m < r->wl->nmodels; m++) {
		const struct hsaqm_wl_model *md = &r->wl->models[m];

		for (unsigned int g = 0; g < md->nk; g++) {
			const struct hsaqm_wl_kernel *k = &md->k[g];
			char name[96];
			struct hsaqm_sim_kernel_desc d = {
				.name = name, .duration_ns = k->time_ns, .spread_ns = k->spread_ns,
				.dist = k->dist == HSAQM_WL_DIST_UNIFORM ? HSAQM_SIM_DIST_UNIFORM
					: k->dist == HSAQM_WL_DIST_NORMAL ? HSAQM_SIM_DIST_NORMAL
					: HSAQM_SIM_DIST_FIXED,
				.waves_per_wg = k->waves,
			};
			int rc;

			snprintf(name, sizeof(name), "%s/%u", md->name, g);
			rc = hsaqm_sim_kernel_register(r->h.sim, &d, &r->kobj[m][g]);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static hsaqm_hsa_amd_queue_priority_t hsa_prio(enum hsaqm_wl_prio p)
{
	return p == HSAQM_WL_PRIO_HIGH  ? HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH
	       : p == HSAQM_WL_PRIO_LOW ? HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW
					: HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL;
}

/*
 * Whether a process of an hsaqm configuration calls hsa_amd_queue_set_priority for its high and
 * low streams (as hipStreamCreateWithPriority does). The tool gives such a queue the process
 * priority +- HSAQM_PRIORITY_STEP and passes the HIP priority on to the hardware queue. A
 * process whose streams all have one hsaqm priority needs no call: the runner gives it that
 * priority with hsaqm-run -p and a step of 0, and the hardware queues get the HIP priorities
 * only with hip_priority = yes. Streams of different hsaqm priorities need the call (the
 * runner then picks -p and the step so that each stream lands on its hsaqm_priority).
 */
static bool hsaqm_calls_priority(const struct run *r, const struct hsaqm_wl_process *pr)
{
	if (r->cfg.hip_priority)
		return true;
	for (unsigned int si = 1; si < pr->nstreams; si++)
		if (pr->streams[si].hsaqm_priority != pr->streams[0].hsaqm_priority)
			return true;
	return false;
}

static int create_queue(struct run *r, unsigned int pi, unsigned int si)
{
	const struct hsaqm_wl_process *pr = &r->wl->procs[pi];
	const struct hsaqm_wl_stream *s = &pr->streams[si];
	struct wl_queue *wq = &r->queues[pi][si];
	bool call;

	/* A plain HSA queue: under hsaqm-run the tool's queue_create makes it a proxy. */
	if (r->h.core->hsa_queue_create_fn(r->h.gpu[0], s->ring, HSAQM_HSA_QUEUE_TYPE_MULTI,
					   NULL, NULL, 0, 0, &wq->q) != HSAQM_HSA_STATUS_SUCCESS)
		return -EIO;
	/* Native: PyTorch's default streams, no priority call at all. */
	call = r->cfg.mode == HSAQM_WL_MODE_HIP ||
	       (r->cfg.mode == HSAQM_WL_MODE_HSAQM && hsaqm_calls_priority(r, pr));
	if (call && s->prio != HSAQM_WL_PRIO_NORMAL &&
	    r->h.amd->hsa_amd_queue_set_priority_fn(wq->q, hsa_prio(s->prio)) !=
		    HSAQM_HSA_STATUS_SUCCESS)
		return -EIO;
	return 0;
}

static int setup(struct run *r)
{
	int rc = open_model(r, r->seed);

	if (rc)
		return rc;
	if (r->cfg.mode == HSAQM_WL_MODE_HSAQM && !r->tool_active) {
		/* Without the tool an hsaqm configuration would silently be a native run. */
		fprintf(stderr, "hsaqm-wl: configuration %s needs hsaqm's tool library (run under "
				"hsaqm-run, or set HSA_TOOLS_LIB): %s\n", r->cfg.name, r->tool_status);
		return -ENOPKG;
	}
	rc = register_kernels(r);
	if (rc)
		return rc;
	for (unsigned int pi = 0; pi < r->wl->nprocs; pi++) {
		const struct hsaqm_wl_process *pr = &r->wl->procs[pi];

		if (!r->proc_on[pi])
			continue;
		pthread_mutex_init(&r->locks[pi].m, NULL);
		pthread_cond_init(&r->locks[pi].cv, NULL);
		for (unsigned int si = 0; si < pr->nstreams; si++) {
			struct wl_queue *wq = &r->queues[pi][si];

			wq->r = r;
			wq->pi = pi;
			wq->si = si;
			pthread_mutex_init(&wq->m, NULL);
			/* Streams with create= are made by their tasks, at that instant. */
			if (pr->streams[si].create_ns)
				continue;
			rc = create_queue(r, pi, si);
			if (rc)
				return rc;
		}
		for (unsigned int ti = 0; ti < pr->ntasks; ti++) {
			struct task_run *tr = calloc(1, sizeof(*tr));

			if (!tr)
				return -ENOMEM;
			r->tasks[r->ntasks++] = tr;
			tr->r = r;
			tr->pi = pi;
			tr->ti = ti;
			tr->proc = pr;
			tr->task = &pr->tasks[ti];
			tr->model = &r->wl->models[tr->task->model];
			tr->wq = &r->queues[pi][tr->task->stream];
			tr->wq->used = true;
			tr->host_lock = pr->host_lock ? &r->locks[pi] : NULL;
			tr->rng = r->seed * 0x100000001b3ull + pi * 131 + ti + 1;
			for (unsigned int i = 0; i < POOL; i++) {
				r->h.core->hsa_signal_create_fn(0, 0, NULL, &tr->pool[i]);
				if (!tr->pool[i].handle)
					return -ENOMEM;
			}
			if (r->request_log) {
				r->h.core->hsa_signal_create_fn(1, 0, NULL, &tr->first_sig);
				if (!tr->first_sig.handle)
					return -ENOMEM;
			}
		}
	}
	return 0;
}

static void teardown(struct run *r)
{
	for (unsigned int pi = 0; pi < r->wl->nprocs; pi++)
		for (unsigned int si = 0; si < HSAQM_WL_MAX_STREAMS; si++) {
			struct wl_queue *wq = &r->queues[pi][si];

			if (wq->q)
				r->h.core->hsa_queue_destroy_fn(wq->q);
			wq->q = NULL;
		}
	for (unsigned int i = 0; i < r->ntasks; i++) {
		struct task_run *tr = r->tasks[i];

		for (unsigned int k = 0; k < POOL; k++)
			if (tr->pool[k].handle)
				r->h.core->hsa_signal_destroy_fn(tr->pool[k]);
		if (tr->first_sig.handle)
			r->h.core->hsa_signal_destroy_fn(tr->first_sig);
		free(tr->reqs);
		free(tr);
	}
	r->ntasks = 0;
	/* The last hsa_shut_down: the tool's OnUnload runs, the table is the model's again. */
	if (r->h.inited)
		r->h.core->hsa_shut_down_fn();
	if (r->h.sim)
		hsaqm_sim_destroy(r->h.sim);
	memset(&r->h, 0, sizeof(r->h));
}

/* ---- Results -------------------------------------------------------------------------------- */

struct agg {
	double *lat;   /* ms, requests that arrived in the window and completed */
	size_t n, cap;
	uint64_t incomplete;
	double rps;    /* requests per second */
	double ips;    /* iterations (requests) per second, summed as images below */
	double img;    /* images per second */
	uint64_t dropped;
	/*
	 * ms of model time: the latest an open-loop request was submitted after its planned
	 * instant. The host's wake-up delay seen in model time: what a real-time run's figures
	 * may owe to the machine's load rather than to the model (docs/replay.md "Validation").
	 */
	double late_max;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double pct(const double *v, size_t n, double p)
{
	/* Nearest rank, as numpy's "higher" method would not interpolate either. */
	size_t k;

	if (!n)
		return 0;
	k = (size_t)ceil(p / 100.0 * (double)n);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

/*
 * Completions per second over [lo, hi): the cumulative completion count interpolated
 * linearly between completions, so a window that cuts an iteration counts its share of it.
 */
static double rate_in(const struct task_run *tr, uint64_t lo, uint64_t hi)
{
	uint64_t *ends = malloc((tr->nreq + 1) * sizeof(*ends));
	size_t n = 0;
	double c_lo = 0, c_hi = 0;

	if (!ends || hi <= lo) {
		free(ends);
		return 0;
	}
	ends[n++] = tr->r->t_start; /* count 0 at the run's start */
	for (size_t i = 0; i < tr->nreq; i++)
		if (tr->reqs[i].end)
			ends[n++] = tr->reqs[i].end;
	/* Completions of one stream are in order already; keep it robust anyway. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 1 && ends[j] < ends[j - 1]; j--) {
			uint64_t x = ends[j];

			ends[j] = ends[j - 1];
			ends[j - 1] = x;
		}
	for (int w = 0; w < 2; w++) {
		uint64_t t = w ? hi : lo;
		double c = (double)(n - 1);

		for (size_t i = 1; i < n; i++)
			if (ends[i] >= t) {
				c = (double)(i - 1) + (double)(t - ends[i - 1]) /
						      (double)(ends[i] - ends[i - 1] ? ends[i] -
										ends[i - 1] : 1);
				break;
			}
		*(w ? &c_hi : &c_lo) = c;
	}
	free(ends);
	return (c_hi - c_lo) / ((double)(hi - lo) / 1e9);
}

/* Throughput of one task: over the window, or over its own span when it has a request count. */
static double task_rate(const struct task_run *tr)
{
	const struct run *r = tr->r;

	if (tr->task->requests) {
		uint64_t first = UINT64_MAX, last = 0;
		size_t done = 0;

		for (size_t i = 0; i < tr->nreq; i++) {
			if (!tr->reqs[i].end)
				continue;
			done++;
			if (tr->reqs[i].arrival < first)
				first = tr->reqs[i].arrival;
			if (tr->reqs[i].end > last)
				last = tr->reqs[i].end;
		}
		return done && last > first ? (double)done / ((double)(last - first) / 1e9) : 0;
	}
	if (tr->task->arrival != HSAQM_WL_ARR_CLOSED) {
		/* Open loop: what arrived in the window and was served, per second of it. */
		size_t done = 0;

		for (size_t i = 0; i < tr->nreq; i++)
			done += tr->reqs[i].end && tr->reqs[i].arrival >= r->win_lo &&
				tr->reqs[i].arrival < r->win_hi;
		return (double)done / ((double)(r->win_hi - r->win_lo) / 1e9);
	}
	return rate_in(tr, r->win_lo, r->win_hi);
}

static int agg_add(struct agg *a, const struct task_run *tr)
{
	const struct run *r = tr->r;

	for (size_t i = 0; i < tr->nreq; i++) {
		const struct req *q = &tr->reqs[i];

		/* Counted: arrived in the window (request-count tasks: every request). */
		if (!tr->task->requests && (q->arrival < r->win_lo || q->arrival >= r->win_hi))
			continue;
		if (!q->end) {
			a->incomplete++;
			continue;
		}
		if (a->n == a->cap) {
			size_t cap = a->cap ? 2 * a->cap : 1024;
			double *nl = realloc(a->lat, cap * sizeof(*nl));

			if (!nl)
				return -ENOMEM;
			a->lat = nl;
			a->cap = cap;
		}
		a->lat[a->n++] = (double)(q->end - q->start) / 1e6;
		if ((tr->task->arrival == HSAQM_WL_ARR_PERIODIC ||
		     tr->task->arrival == HSAQM_WL_ARR_POISSON) && q->arrival > q->planned &&
		    (double)(q->arrival - q->planned) / 1e6 > a->late_max)
			a->late_max = (double)(q->arrival - q->planned) / 1e6;
	}
	double rate = task_rate(tr);

	a->rps += rate;
	a->ips += rate;
	a->img += rate * tr->model->batch;
	a->dropped += tr->dropped;
	return 0;
}

/* The users' field names, then a CDF of at most 200 points, into the current object. */
static void agg_json(struct hsaqm_json *j, struct agg *a)
{
	size_t pts = a->n < 200 ? a->n : 200;
	double sum = 0;

	qsort(a->lat, a->n, sizeof(*a->lat), cmp_double);
	for (size_t i = 0; i < a->n; i++)
		sum += a->lat[i];
	hsaqm_json_uint(j, "requests", a->n);
	hsaqm_json_uint(j, "incomplete", a->incomplete);
	hsaqm_json_uint(j, "dropped", a->dropped);
	hsaqm_json_fixed(j, "latency_avg_ms", a->n ? sum / (double)a->n : 0, 4);
	hsaqm_json_fixed(j, "latency_p50_ms", pct(a->lat, a->n, 50), 4);
	hsaqm_json_fixed(j, "latency_p95_ms", pct(a->lat, a->n, 95), 4);
	hsaqm_json_fixed(j, "latency_p99_ms", pct(a->lat, a->n, 99), 4);
	hsaqm_json_fixed(j, "latency_max_ms", a->n ? a->lat[a->n - 1] : 0, 4);
	hsaqm_json_fixed(j, "throughput_rps", a->rps, 4);
	hsaqm_json_fixed(j, "throughput_ips", a->ips, 4);
	hsaqm_json_fixed(j, "images_per_sec", a->img, 3);
	hsaqm_json_fixed(j, "arrival_late_max_ms", a->late_max, 4);
	hsaqm_json_begin_array(j, "cdf_ms");
	for (size_t i = 0; i < pts; i++) {
		size_t k = pts == a->n ? i : (size_t)((double)(i + 1) / (double)pts *
						      (double)a->n) - 1;

		hsaqm_json_begin_array(j, NULL);
		hsaqm_json_fixed(j, NULL, a->lat[k], 4);
		hsaqm_json_fixed(j, NULL, (double)(k + 1) / (double)a->n, 5);
		hsaqm_json_end_array(j);
	}
	hsaqm_json_end_array(j);
}

/*
 * When the task's first kernel was launched by the device (model ns), 0 when unknown: the
 * first kernel's own signal, or for one-kernel requests the first request's signal.
 */
static uint64_t first_launch(const struct task_run *tr)
{
	const struct run *r = tr->r;
	struct hsaqm_hsa_amd_profiling_dispatch_time dt = { 0, 0 };

	if (tr->first_sig_used) {
		if (r->h.core->hsa_signal_load_scacquire_fn(tr->first_sig) != 0)
			return 0;
		r->h.amd->hsa_amd_profiling_get_dispatch_time_fn(r->h.gpu[0], tr->first_sig, &dt);
		return dt.start;
	}
	return tr->nreq && tr->model->kernels == 1 && tr->reqs[0].end ? tr->reqs[0].launch : 0;
}

/* Model nanoseconds as milliseconds, 0 (not known) as null. */
static void ms_or_null(struct hsaqm_json *j, const char *key, uint64_t ns)
{
	if (ns)
		hsaqm_json_fixed(j, key, (double)ns / 1e6, 6);
	else
		hsaqm_json_raw(j, key, NULL);
}

/*
 * --request-log: the streams (when each queue was created and its queue id, which the tool's
 * statistics name) and every request of every task in absolute model ms (the device's clock,
 * common to the processes of a run): [planned, submitted, last kernel launched, completed].
 */
static void request_log_json(struct hsaqm_json *j, const struct run *r, unsigned int pi)
{
	const struct hsaqm_wl_process *pr = &r->wl->procs[pi];

	hsaqm_json_fixed(j, "t_start_ms", (double)r->t_start / 1e6, 6);
	hsaqm_json_begin_array(j, "streams");
	for (unsigned int si = 0; si < pr->nstreams; si++) {
		const struct wl_queue *wq = &r->queues[pi][si];

		hsaqm_json_begin_object(j, NULL);
		hsaqm_json_string(j, "name", pr->streams[si].name);
		hsaqm_json_fixed(j, "create_ms", (double)pr->streams[si].create_ns / 1e6, 6);
		if (wq->q)
			hsaqm_json_uint(j, "queue_id", wq->q->id);
		else
			hsaqm_json_raw(j, "queue_id", NULL);
		ms_or_null(j, "create_call_ms", wq->create_call);
		ms_or_null(j, "created_ms", wq->created);
		hsaqm_json_end_object(j);
	}
	hsaqm_json_end_array(j);
	hsaqm_json_begin_array(j, "tasks");
	for (unsigned int i = 0; i < r->ntasks; i++) {
		const struct task_run *tr = r->tasks[i];
		size_t done = 0;

		if (tr->pi != pi)
			continue;
		for (size_t k = 0; k < tr->nreq; k++)
			done += tr->reqs[k].end != 0;
		hsaqm_json_begin_object(j, NULL);
		hsaqm_json_string(j, "name", tr->task->name);
		hsaqm_json_string(j, "stream", pr->streams[tr->task->stream].name);
		hsaqm_json_uint(j, "submitted", tr->nreq);
		hsaqm_json_uint(j, "completed", done);
		hsaqm_json_uint(j, "dropped", tr->dropped);
		ms_or_null(j, "first_launch_ms", first_launch(tr));
		hsaqm_json_begin_array(j, "log");
		for (size_t k = 0; k < tr->nreq; k++) {
			const struct req *q = &tr->reqs[k];

			hsaqm_json_begin_array(j, NULL);
			hsaqm_json_fixed(j, NULL, (double)q->planned / 1e6, 6);
			hsaqm_json_fixed(j, NULL, (double)q->arrival / 1e6, 6);
			ms_or_null(j, NULL, q->launch);
			ms_or_null(j, NULL, q->end);
			hsaqm_json_end_array(j);
		}
		hsaqm_json_end_array(j);
		hsaqm_json_end_object(j);
	}
	hsaqm_json_end_array(j);
}

/* How this run's processes ran: said in every result. */
static const char *exec_note(const struct run *r)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < r->wl->nprocs; i++)
		n += r->proc_on[i];
	if (!r->shared)
		return n > 1 ? "threads of one process, in-process model"
			     : "one process, in-process model";
	return n > 1 ? "threads of one process on the shared device process"
		     : "one real process on the shared device process";
}

static int write_json(struct run *r, FILE *f, double wall_s)
{
	const struct hsaqm_wl_file *wl = r->wl;
	const struct hsaqm_wl_config *c = &r->cfg;
	struct hsaqm_json j;
	int rc = 0;

	hsaqm_json_init(&j, f);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_string(&j, "workload", wl->name);
	hsaqm_json_string(&j, "configuration", c->name);
	hsaqm_json_string(&j, "label", c->label);
	hsaqm_json_string(&j, "mode", hsaqm_wl_mode_name(c->mode));
	hsaqm_json_int(&j, "level", c->level);
	hsaqm_json_uint(&j, "lv1_threshold", c->lv1_threshold);
	hsaqm_json_uint(&j, "lv1_batch", c->lv1_batch);
	hsaqm_json_uint(&j, "lv2_interval", c->lv2_interval);
	hsaqm_json_string(&j, "policy", c->policy == 1 ? "util" : c->policy == 2 ? "none" : "hpf");
	hsaqm_json_uint(&j, "floor_period_us", c->floor_period_us);
	hsaqm_json_uint(&j, "floor_slice_us", c->floor_slice_us);
	hsaqm_json_bool(&j, "hip_priority", c->hip_priority);
	hsaqm_json_uint(&j, "seed", r->seed);
	hsaqm_json_number(&j, "time_scale", r->scale, 6);
	hsaqm_json_number(&j, "length_s", (double)r->length_ns / 1e9, 6);
	hsaqm_json_number(&j, "warmup_s", (double)r->warmup_ns / 1e9, 6);
	hsaqm_json_fixed(&j, "wall_s", wall_s, 3);
	hsaqm_json_bool(&j, "model_figures", true);
	hsaqm_json_int(&j, "pid", (long long)getpid());
	hsaqm_json_string(&j, "execution", exec_note(r));
	hsaqm_json_string(&j, "tool_status", r->tool_status);
	hsaqm_json_begin_array(&j, "processes");
	for (unsigned int pi = 0; pi < wl->nprocs; pi++) {
		const struct hsaqm_wl_process *pr = &wl->procs[pi];
		struct agg all = { 0 };
		const char *groups[HSAQM_WL_MAX_TASKS];
		unsigned int ng = 0;

		if (!r->proc_on[pi])
			continue;
		for (unsigned int i = 0; i < r->ntasks; i++)
			if (r->tasks[i]->pi == pi && !rc)
				rc = agg_add(&all, r->tasks[i]);
		hsaqm_json_begin_object(&j, NULL);
		hsaqm_json_string(&j, "name", pr->name);
		hsaqm_json_string(&j, "role", pr->role == HSAQM_WL_ROLE_ONLINE ? "online" : "offline");
		agg_json(&j, &all);
		free(all.lat);
		for (unsigned int ti = 0; ti < pr->ntasks; ti++) {
			bool seen = false;

			for (unsigned int g = 0; g < ng; g++)
				seen |= !strcmp(groups[g], pr->tasks[ti].group);
			if (!seen)
				groups[ng++] = pr->tasks[ti].group;
		}
		hsaqm_json_begin_array(&j, "groups");
		for (unsigned int g = 0; g < ng; g++) {
			struct agg ga = { 0 };

			for (unsigned int i = 0; i < r->ntasks; i++)
				if (r->tasks[i]->pi == pi && !strcmp(r->tasks[i]->task->group,
								     groups[g]) && !rc)
					rc = agg_add(&ga, r->tasks[i]);
			hsaqm_json_begin_object(&j, NULL);
			hsaqm_json_string(&j, "name", groups[g]);
			agg_json(&j, &ga);
			hsaqm_json_end_object(&j);
			free(ga.lat);
		}
		hsaqm_json_end_array(&j);
		if (r->request_log)
			request_log_json(&j, r, pi);
		hsaqm_json_end_object(&j);
	}
	hsaqm_json_end_array(&j);
	if (r->tool_stats) {
		size_t l = strlen(r->tool_stats);

		while (l && (r->tool_stats[l - 1] == '\n' || r->tool_stats[l - 1] == ' '))
			r->tool_stats[--l] = '\0';
		hsaqm_json_raw(&j, "hsaqm_stats", r->tool_stats);
	}
	hsaqm_json_end_object(&j);
	fputc('\n', f);
	return rc;
}

/* ---- main ----------------------------------------------------------------------------------- */

static int parse_dur_arg(const char *s, uint64_t *out)
{
	const char *end;
	double x, mult;

	if (hsaqm_parse_double_unit(s, 0, DBL_MAX, &x, &end))
		return -EINVAL;
	if (!strcmp(end, "ms"))
		mult = 1e6;
	else if (!strcmp(end, "us"))
		mult = 1e3;
	else if (!strcmp(end, "s") || !*end)
		mult = 1e9;
	else
		return -EINVAL;
	*out = (uint64_t)llround(x * mult);
	return 0;
}

static void usage(FILE *f, const char *argv0)
{
	fprintf(f,
		"usage: %s FILE [--config NAME|standalone] [--process NAME]... [--out JSON]\n"
		"       [--seed N] [--length DUR] [--warmup DUR] [--time-scale X] [--start-mono NS]\n"
		"       [--trace FILE] [--request-log]\n"
		"       [--progress] [--quiet] | FILE --dump | FILE --check | --help\n"
		"DUR: a number of seconds, or with ms, us or s; N, NS: whole decimal numbers.\n",
		argv0);
}

/* What the command line asks for. */
struct wl_args {
	const char *file, *config, *out;
	const char *only[HSAQM_WL_MAX_PROCESSES];
	unsigned int nonly;
	bool dump, check, have_seed;
	double scale;
	uint64_t seed, length, warmup; /* warmup UINT64_MAX: the file's */
};

/* A bad value: one line naming the option and what it takes, then the usage. */
static int bad_arg(const char *argv0, const char *opt, const char *val, const char *takes)
{
	fprintf(stderr, "hsaqm-wl: %s \"%s\": %s\n", opt, val, takes);
	usage(stderr, argv0);
	return 2;
}

/*
 * Parse the command line into @a (the run's own switches go straight into @r). Returns 0 to
 * go on, 1 after --help (exit 0), 2 after a usage error (said).
 */
static int parse_args(int argc, char **argv, struct wl_args *a, struct run *r)
{
	memset(a, 0, sizeof(*a));
	a->warmup = UINT64_MAX;
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned long long u;

		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			usage(stdout, argv[0]);
			return 1;
		} else if (!strcmp(o, "--progress")) {
			r->progress = true;
		} else if (!strcmp(o, "--quiet")) {
			r->quiet = true;
		} else if (!strcmp(o, "--request-log")) {
			r->request_log = true;
		} else if (!strcmp(o, "--dump")) {
			a->dump = true;
		} else if (!strcmp(o, "--check")) {
			a->check = true;
		} else if (o[0] != '-') {
			if (a->file)
				return bad_arg(argv[0], "a second FILE", o, "one workload file per run");
			a->file = o;
		} else if (!v) {
			fprintf(stderr, "hsaqm-wl: %s: unknown, or its value is missing\n", o);
			usage(stderr, argv[0]);
			return 2;
		} else if (i++, !strcmp(o, "--config")) {
			a->config = v;
		} else if (!strcmp(o, "--process")) {
			if (a->nonly == HSAQM_WL_MAX_PROCESSES)
				return bad_arg(argv[0], o, v, "more --process than a file has processes");
			a->only[a->nonly++] = v;
		} else if (!strcmp(o, "--out")) {
			a->out = v;
		} else if (!strcmp(o, "--trace")) {
			r->trace = v;
		} else if (!strcmp(o, "--seed")) {
			if (hsaqm_parse_uint(v, 10, 0, UINT64_MAX, &u))
				return bad_arg(argv[0], o, v, "a whole decimal number");
			a->seed = u;
			a->have_seed = true;
		} else if (!strcmp(o, "--start-mono")) {
			if (hsaqm_parse_uint(v, 10, 1, UINT64_MAX, &u))
				return bad_arg(argv[0], o, v, "CLOCK_MONOTONIC nanoseconds");
			r->start_mono = u;
		} else if (!strcmp(o, "--length")) {
			if (parse_dur_arg(v, &a->length) || !a->length)
				return bad_arg(argv[0], o, v, "a duration above 0 (e.g. 30s, 500ms)");
		} else if (!strcmp(o, "--warmup")) {
			if (parse_dur_arg(v, &a->warmup))
				return bad_arg(argv[0], o, v, "a duration (e.g. 1s, 0)");
		} else if (!strcmp(o, "--time-scale")) {
			if (hsaqm_parse_double(v, 0.01, 1000, &a->scale))
				return bad_arg(argv[0], o, v, "a number from 0.01 to 1000");
		} else {
			fprintf(stderr, "hsaqm-wl: %s: unknown option\n", o);
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (!a->file) {
		fprintf(stderr, "hsaqm-wl: no workload file given\n");
		usage(stderr, argv[0]);
		return 2;
	}
	return 0;
}

/* The configuration and processes to run, the scale, seed and times: the file's unless the
 * command line says otherwise. 0, or 2 after a message. */
static int pick_run(struct run *r, const struct hsaqm_wl_file *wl, const struct wl_args *a)
{
	const char *cfgname = a->config ? a->config : wl->configs[0].name;

	r->wl = wl;
	if (!strcmp(cfgname, "standalone")) {
		if (!a->nonly) {
			fprintf(stderr, "hsaqm-wl: --config standalone needs --process\n");
			return 2;
		}
		memset(&r->cfg, 0, sizeof(r->cfg));
		strcpy(r->cfg.name, "standalone");
		strcpy(r->cfg.label, "Standalone");
		r->cfg.mode = HSAQM_WL_MODE_NATIVE;
	} else {
		int ci = hsaqm_wl_find_config(wl, cfgname);

		if (ci < 0) {
			fprintf(stderr, "hsaqm-wl: %s has no [config %s]\n", a->file, cfgname);
			return 2;
		}
		r->cfg = wl->configs[ci];
	}
	for (unsigned int i = 0; i < wl->nprocs; i++)
		r->proc_on[i] = a->nonly == 0;
	for (unsigned int i = 0; i < a->nonly; i++) {
		int pi = hsaqm_wl_find_process(wl, a->only[i]);

		if (pi < 0) {
			fprintf(stderr, "hsaqm-wl: %s has no [process %s]\n", a->file, a->only[i]);
			return 2;
		}
		r->proc_on[pi] = true;
	}
	r->scale = a->scale ? a->scale : r->cfg.time_scale ? r->cfg.time_scale : wl->time_scale;
	r->seed = a->have_seed ? a->seed : wl->seed;
	r->length_ns = a->length ? a->length : wl->length_ns;
	r->warmup_ns = a->warmup != UINT64_MAX ? a->warmup : wl->warmup_ns;
	return 0;
}

/*
 * Everyone starts at one model instant: shortly after the last thread exists, or, for the
 * processes of one run, at the CLOCK_MONOTONIC instant the runner gave them all (the device's
 * clock is CLOCK_MONOTONIC scaled, so each converts it to the same model time).
 */
static void set_start(struct run *r, const char *file)
{
	if (r->start_mono) {
		uint64_t now = model_now(r), mono = hsaqm_mono_ns();

		if (r->start_mono > mono) {
			r->t_start = now + (uint64_t)((double)(r->start_mono - mono) * r->scale);
		} else {
			fprintf(stderr, "hsaqm-wl: %s: set up %.0f ms after the common start: "
					"starting late\n", file, (double)(mono - r->start_mono) / 1e6);
			r->t_start = now;
		}
	} else {
		r->t_start = model_now(r) + (uint64_t)(20 * NS_MS * r->scale);
	}
	r->win_lo = r->t_start + r->warmup_ns;
	r->win_hi = r->win_lo + r->length_ns;
}

/* Start every task's thread, report progress while they run (--progress), join them all.
 * 0, or the first error a task (or a thread start) met. */
static int run_tasks(struct run *r)
{
	int rc = 0;

	for (unsigned int i = 0; i < r->ntasks; i++) {
		if (pthread_create(&r->tasks[i]->th, NULL, task_main, r->tasks[i])) {
			rc = -EAGAIN;
			break;
		}
		r->tasks[i]->started = true;
	}
	while (r->progress) {
		bool alive = false;

		for (unsigned int i = 0; i < r->ntasks; i++) {
			struct task_run *tr = r->tasks[i];

			if (tr->started && !tr->joined && pthread_tryjoin_np(tr->th, NULL) == 0)
				tr->joined = true;
			alive |= tr->started && !tr->joined;
		}
		if (!alive)
			break;
		uint64_t now = model_now(r);
		double done = now > r->t_start ? (double)(now - r->t_start) / 1e9 : 0;

		fprintf(stderr, "progress %.2f %.2f\n", done,
			(double)(r->warmup_ns + r->length_ns) / 1e9);
		sleep_us(500000);
	}
	for (unsigned int i = 0; i < r->ntasks; i++)
		if (r->tasks[i]->started && !r->tasks[i]->joined)
			pthread_join(r->tasks[i]->th, NULL);
	for (unsigned int i = 0; i < r->ntasks && !rc; i++)
		rc = r->tasks[i]->error;
	return rc;
}

/* The result document to @f (opened on --out, or stdout), with the tool's statistics when
 * active. false after saying why it could not be written. */
static bool write_result(struct run *r, FILE *f, const char *out, double wall_s)
{
	int rc;

	if (r->tool_active)
		r->tool_stats = tool_stats_json();
	rc = write_json(r, f, wall_s);
	if (f != stdout && fclose(f) && !rc)
		rc = -EIO;
	free(r->tool_stats);
	r->tool_stats = NULL;
	if (rc)
		fprintf(stderr, "hsaqm-wl: writing the result to %s: %s\n", out ? out : "stdout",
			strerror(-rc));
	return rc == 0;
}

/* --check and --dump: the file, parsed, said valid or written back as JSON. */
static int check_or_dump(const struct hsaqm_wl_file *wl, bool dump)
{
	char *js = NULL;

	if (!dump)
		return 0;
	if (hsaqm_wl_dump_json(wl, &js))
		return 1;
	fputs(js, stdout);
	free(js);
	return 0;
}

int main(int argc, char **argv)
{
	static struct hsaqm_wl_file wl;
	static struct run run;
	struct run *r = &run;
	struct wl_args a;
	char err[512];
	uint64_t wall0;
	FILE *out;
	int rc;

	rc = parse_args(argc, argv, &a, r);
	if (rc)
		return rc == 1 ? 0 : rc;
	rc = hsaqm_wl_load(a.file, &wl, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "hsaqm-wl: %s\n", err[0] ? err : strerror(-rc));
		return 2;
	}
	if (a.check || a.dump)
		return check_or_dump(&wl, a.dump);
	rc = pick_run(r, &wl, &a);
	if (rc)
		return rc;
	/* Opened before the run: a bad --out is said now, not after the run's minutes. */
	out = a.out ? fopen(a.out, "w") : stdout;
	if (!out) {
		fprintf(stderr, "hsaqm-wl: --out %s: %s\n", a.out, strerror(errno));
		return 2;
	}
	wall0 = hsaqm_mono_ns();
	rc = setup(r);
	if (rc) {
		fprintf(stderr, "hsaqm-wl: setting up %s/%s failed: %s\n", wl.name, r->cfg.name,
			strerror(-rc));
		teardown(r);
		if (out != stdout)
			fclose(out);
		return 1;
	}
	set_start(r, a.file);
	if (!r->quiet)
		fprintf(stderr, "hsaqm-wl: %s / %s: %.1f s of model time at scale %g, seed %" PRIu64
			" (%s; hsaqm tool: %s)\n", wl.name, r->cfg.name,
			(double)(r->warmup_ns + r->length_ns) / 1e9, r->scale, r->seed, exec_note(r),
			r->tool_status);
	rc = run_tasks(r);
	bool written = write_result(r, out, a.out, (double)(hsaqm_mono_ns() - wall0) / 1e9);

	teardown(r);
	if (rc)
		fprintf(stderr, "hsaqm-wl: %s/%s: %s\n", wl.name, r->cfg.name, strerror(-rc));
	return rc || !written ? 1 : 0;
}
