/* SPDX-License-Identifier: MIT */
/*
 * tool_record.c - the recorder (HSAQM_RECORD, hsaqm-run --record; docs/replay.md "Recording").
 *
 * What a doorbell costs while recording: the doorbell wrapper (tool.c) calls
 * tool_record_doorbell() just before the scan; it takes the proxy's doorbell lock, reads the
 * packets the scan is about to read (from where recording got to, up to the first INVALID
 * header: the scan's own bounds), copies each into the queue's ring of fixed-size records,
 * one clock read per doorbell, and lets go. No syscall, no allocation: a full ring counts the
 * packets it could not hold (a LOST record says how many). A writer thread drains every
 * queue's ring every 100 ms, or sooner when a ring is a quarter full, into blocks of records
 * with a length and a CRC, one write() per block (hsaqm-tool/record_format.h). A SIGKILL loses what the
 * rings held since the last block; the file up to it reads whole. The writer also reads each
 * signalled kernel dispatch's and barrier's start and end (TIMES records) once its signal is
 * at 0, through the runtime and without rec.lock (see rec.in_rt).
 *
 * Per-kernel times: HIP signals a stream's kernels only where a host waits (the last of a
 * synchronisation, an event), so a recording of the application's signals alone times
 * requests, not their kernels, and the replay could only guess how a request's time divides
 * among them (docs/replay.md "Per-kernel times"). At level 0 (the default), the pre-scan gives
 * each kernel dispatch without a completion signal one of the queue's own signals (struct
 * rec_pool), in the slot, before the scan copies the packet to the hardware queue: the CP
 * stamps its start and end there, and nobody else waits on it. Not above level 0: the scan
 * notes every completion signal in the dependency table (hsa_dep.c), which the recorder's
 * would crowd for the schedulers that read it.
 *
 * Why before the scan, and under the doorbell lock: proxy.c's scan reads each packet once and
 * may release it to the hardware queue at once (lib at Lv0 does), after which the slot is
 * given back to the application; packets at or past the scan's end cannot be released, so
 * under the lock, before the scan, they are still there to be read. What this cannot see: a
 * packet a second producer thread of the same queue publishes between this pre-scan and the
 * scan (the scan then takes it and the next pre-scan finds it gone): counted as LOST, never
 * silently missing. ROCclr rings each queue's doorbell under its queue lock, so HIP never
 * does that. A hook inside the scan itself would close the window (docs/replay.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "hsa_backend_internal.h"
#include "hsaqm-hsa/api_table.h"
#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-common/log.h"
#include "hsaqm-tool/record_format.h"
#include "hsaqm-common/time.h"
#include "tool_internal.h"

/*
 * Records a queue's ring holds between two drains (96 B each: 384 KiB per queue). At an
 * eighth full the writer is woken, so a ring overflows only when the writer thread waits
 * for a CPU longer than 7/8 of a ring takes to fill: 9 ms at 400 000 packets a second on
 * one queue (the benchmark's rate on the model). 1024 records lost most of the benchmark's
 * packets on the loaded 2-core VM (docs/replay.md).
 */
#define REC_RING 4096u
#define REC_WAKE (REC_RING / 8)
/* Queues are found by lib's id (from 1, never reused while the context lives), modulo this. */
#define REC_TABLE 4096u
#define REC_FLUSH_NS (100ull * 1000 * 1000)
#define REC_BLOCK_MAX 1024u
/*
 * Dispatch times: kernel dispatches with a completion signal waiting for it to reach 0, at
 * most this many at once (more are recorded without times), found by their signal through a
 * hash of twice as many slots; polled every REC_POLL_NS while any wait, and a CLOCK record at
 * most every REC_CLOCK_NS.
 */
#define REC_PEND 8192u
#define REC_HASH (2 * REC_PEND)
#define REC_POLL_NS (5ull * 1000 * 1000)
#define REC_CLOCK_NS (1000ull * 1000 * 1000)
/*
 * The last times (tool_record_finish(): before hsa_shut_down, at exit): the dispatches still
 * waiting are polled every REC_FINISH_POLL_NS for at most REC_FINISH_NS, which a program that
 * synchronised before it ends never waits (its signals are at 0 at the first poll); the caller
 * waits at most REC_FINISH_WAIT_NS for the writer (it may not get a CPU at once).
 */
#define REC_FINISH_NS (250ull * 1000 * 1000)
#define REC_FINISH_POLL_NS (1000ull * 1000)
#define REC_FINISH_WAIT_NS (REC_FINISH_NS + 250ull * 1000 * 1000)
/*
 * The recorder's completion signals per queue (tool_internal.h): REC_OWN made with the queue,
 * REC_OWN more by the writer each time the queue found none free, up to REC_OWN_MAX (a queue of
 * 16384 packets full of unsignalled kernels).
 */
#define REC_OWN TOOL_RECORD_OWN_SIGNALS
#define REC_OWN_MAX TOOL_RECORD_OWN_SIGNALS_MAX
#define REC_GROW 16u /* pools grown per writer round at most */

/*
 * A queue's own completion signals (see the top of the file). free[] holds the indices of the
 * signals at 1 and not in a packet, from take (the owning queue's doorbell, under its db_lock)
 * to put (the writer, which gives a signal back once it read its times and stored 1 again).
 * Never freed while the process lives: a writer left running after close() (detached, inside
 * the runtime) may still give a signal back; a queue destroyed leaves its pool to the next
 * queue of the same runtime.
 */
struct rec_pool {
	struct rec_pool *next;       /* rec.pools, under rec.lock */
	const struct hsaqm_hsa_runtime *rt; /* rec.lock; NULL once its recording closed */
	struct hsaqm_hsa_agent agent; /* the consumer its signals are made for */
	bool in_use;                 /* rec.lock: a live queue takes from it */
	uint32_t dry;                /* atomic: a doorbell found none free (the writer makes more) */
	uint32_t n;                  /* signals made (then the writer's) */
	uint64_t take;               /* the doorbell's (db_lock) */
	uint64_t put;                /* the writer's; the doorbell reads it (acquire) */
	uint32_t free[REC_OWN_MAX];
	uint64_t sig[REC_OWN_MAX];
};

struct rec_queue {
	struct rec_queue *next;      /* rec.queues, under rec.lock */
	struct hsaqm_hsa_proxy *proxy;
	uint32_t id;                 /* lib's id of the queue */
	int32_t priority;            /* atomic: the xqueue priority now */
	uint32_t hsa_prio;           /* atomic: the HIP priority now */
	uint32_t gone;               /* atomic: the queue was destroyed; freed once drained */
	uint64_t rec_end;            /* under the proxy's db_lock: the next packet to record */
	uint64_t head;               /* written under db_lock; the writer reads it (acquire) */
	uint64_t tail;               /* the writer's; producers read it (acquire) */
	/*
	 * Under db_lock (the writer reads them once producers stopped): packets not recorded,
	 * and how many of them a LOST record in the ring says already. The producer writes the
	 * LOST record before its next record, so the file has them in the order they happened.
	 */
	uint64_t lost;
	uint64_t lost_said;
	/* Set at creation: where dispatch times are read (timed false: they are not). */
	const struct hsaqm_hsa_runtime *rt;
	struct hsaqm_hsa_agent agent;
	bool timed;
	struct rec_pool *pool;       /* set at creation: its own signals, or NULL (level > 0) */
	uint64_t unsignalled;        /* db_lock: dispatches the pool had no signal for */
	struct hsaqm_rec_record ring[REC_RING];
};

/* A recorded dispatch whose completion signal the writer waits to see at 0 (rec.lock). */
struct rec_pend {
	const struct hsaqm_hsa_runtime *rt;
	struct hsaqm_hsa_agent agent;
	struct rec_pool *pool;       /* the recorder's signal (own - 1 in it), or NULL */
	uint32_t own;
	uint64_t signal;
	uint64_t index;
	uint32_t queue;
	int32_t priority;
	uint16_t hsa_prio;
};

typedef hsaqm_hsa_status_t (*rec_symbol_cb)(struct tool_hsa_executable exec,
					    struct tool_hsa_executable_symbol sym, void *data);
typedef hsaqm_hsa_status_t (*rec_iterate_symbols_fn)(struct tool_hsa_executable exec,
						     rec_symbol_cb cb, void *data);
typedef hsaqm_hsa_status_t (*rec_symbol_get_info_fn)(struct tool_hsa_executable_symbol sym,
						     uint32_t attribute, void *value);

static struct {
	pthread_mutex_t lock;        /* queues, the file, everything below */
	pthread_cond_t wake;         /* the writer's (CLOCK_MONOTONIC) */
	struct rec_queue *queues;
	struct rec_pool *pools;      /* every pool made (see struct rec_pool) */
	struct rec_queue *table[REC_TABLE]; /* atomic: the doorbell's lookup */
	int fd;
	char path[PATH_MAX + 32];
	uint64_t written, max_bytes, seq;
	uint32_t max_mb;
	uint32_t level;              /* atomic: the level the queues ask for (HSAQM_LEVEL) */
	bool running, stopping, stopped; /* stopped: the limit or an error ended the file */
	pthread_t thread;
	struct hsaqm_rec_block bh;
	struct hsaqm_rec_record block[REC_BLOCK_MAX];
	uint32_t nblock;
	/*
	 * Dispatch times. The writer reads them through the runtime without rec.lock (in_rt):
	 * OnLoad and OnUnload run under the runtime's own lock and take rec.lock, and the model's
	 * dispatch-time entry takes that runtime lock. For the same reason close() never waits for
	 * a writer that is inside the runtime: it finishes the file without it (the writer, back,
	 * sees its generation over and leaves; its state is its own, so nothing it holds is freed).
	 */
	hsaqm_hsa_amd_profiling_dispatch_time_fn dispatch_time;
	/* Kernel names: the runtime's executable entries (tool_record_executable()). */
	rec_iterate_symbols_fn iterate_symbols;
	rec_symbol_get_info_fn symbol_get_info;
	pthread_cond_t idle;         /* (CLOCK_MONOTONIC) the writer left (exited), entered the
				      * runtime, or finished a tool_record_finish() */
	bool in_rt, exited;
	uint64_t gen;                /* one per tool_record_open(): the writer's is its own */
	/*
	 * Rounds asked of the writer (rec_request()) and done; the one asked last: how long it
	 * waits for the waiting dispatches, and the signal it must forget (about to be destroyed).
	 */
	uint64_t finish_req, finish_done;
	uint64_t req_wait_ns, req_forget;
	/*
	 * What the UNTIMED record at close says: the writer's counts as of when it last held
	 * rec.lock (what it times after that, inside the runtime while close() goes on without
	 * it, never reaches the file), and the signalled packets close() drained itself.
	 */
	struct hsaqm_rec_untimed_body untimed;
	uint64_t untimed_close;
	uint64_t unsignalled;        /* of queues drained and freed (their rq->unsignalled) */
} rec = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

/* The writer's dispatch-time state (its thread's only; allocated by it). */
#define REC_OUT 256u
struct rec_timer {
	const struct hsaqm_hsa_runtime *rt; /* the runtime of the last dispatch added */
	uint64_t last_clock_ns;
	uint32_t npend, nout;
	uint64_t reused, full, destroyed; /* dispatches given up (UNTIMED record) */
	/* The recorder's signals of dispatches not waited for (full): back once at 0. */
	uint32_t nlater;
	struct rec_pend later[REC_PEND];
	/* Pools found dry (grow_collect()), with their runtime then: more signals next round. */
	uint32_t ngrow;
	struct rec_pool *grow[REC_GROW];
	const struct hsaqm_hsa_runtime *grow_rt[REC_GROW];
	uint32_t hash[REC_HASH];     /* pend index + 1 by signal, 0 empty (linear probing) */
	struct rec_pend pend[REC_PEND];
	struct hsaqm_rec_record out[REC_OUT]; /* TIMES and CLOCK records read, not yet in a block */
};

uint32_t tool_record_on;
static int slot_once, limit_once, write_once, fork_registered;
static bool conds_made; /* rec.wake and rec.idle (under rec.lock) */

static void rec_queue_fill(struct rec_queue *rq, struct hsaqm_rec_record *r, uint16_t kind,
			   uint64_t t)
{
	memset(r, 0, sizeof(*r));
	r->t_ns = t;
	r->kind = kind;
	r->queue = rq->id;
	r->priority = HSAQM_READ_ONCE(rq->priority);
	r->hsa_prio = (uint16_t)HSAQM_READ_ONCE(rq->hsa_prio);
}

/* ---- The writer ------------------------------------------------------------------------ */

/* rec.lock held. Write all of @len or fail (a short write of a regular file: ENOSPC). */
static int write_all(const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(rec.fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOSPC;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* rec.lock held. The file ends here: producers stop, the rings are dropped from now on. */
static void rec_stop_locked(void)
{
	rec.stopped = true;
	HSAQM_WRITE_ONCE(tool_record_on, 0u);
}

/* rec.lock held. One block of the records gathered, or, at the limit, what fits and LIMIT. */
static void block_emit(void)
{
	uint64_t room;
	uint32_t n = rec.nblock;
	bool limit = false;
	int rc;

	rec.nblock = 0;
	if (!n || rec.stopped)
		return;
	room = rec.max_bytes > rec.written ? rec.max_bytes - rec.written : 0;
	/* Room is always kept for one more block holding the LIMIT record alone. */
	if (room < 2 * sizeof(rec.bh) + (uint64_t)(n + 1) * HSAQM_REC_RECORD_SIZE) {
		/* What fits, then the LIMIT record. */
		uint64_t fit = room > sizeof(rec.bh) ? (room - sizeof(rec.bh)) / HSAQM_REC_RECORD_SIZE
						     : 0;

		n = fit > 1 ? (uint32_t)(fit - 1) : 0;
		memset(&rec.block[n], 0, sizeof(rec.block[n]));
		rec.block[n].t_ns = hsaqm_mono_ns();
		rec.block[n].kind = HSAQM_REC_LIMIT;
		rec.block[n].aux = rec.max_mb;
		n++;
		limit = true;
	}
	rec.bh.magic = HSAQM_REC_BLOCK_MAGIC;
	rec.bh.nrec = n;
	rec.bh.seq = rec.seq++;
	rec.bh.bytes = n * HSAQM_REC_RECORD_SIZE;
	rec.bh.crc = hsaqm_rec_block_crc(&rec.bh, rec.block);
	rc = write_all(&rec.bh, sizeof(rec.bh));
	if (!rc)
		rc = write_all(rec.block, rec.bh.bytes);
	if (rc) {
		hsaqm_log_notice(&write_once, "HSAQM_RECORD: writing %s failed (%s): recording "
				 "stopped, the program goes on", rec.path, strerror(-rc));
		rec_stop_locked();
		return;
	}
	rec.written += sizeof(rec.bh) + rec.bh.bytes;
	if (limit) {
		hsaqm_log_notice(&limit_once, "HSAQM_RECORD: %s reached HSAQM_RECORD_MAX_MB=%u: "
				 "recording stopped, the program goes on", rec.path, rec.max_mb);
		rec_stop_locked();
	}
}

static void block_add(const struct hsaqm_rec_record *r)
{
	rec.block[rec.nblock++] = *r;
	if (rec.nblock == REC_BLOCK_MAX)
		block_emit();
}

/* Without rec.lock. A CLOCK record: the runtime's system timestamp between two monotonic reads. */
static void clock_read(struct rec_timer *tm, const struct hsaqm_hsa_runtime *rt)
{
	struct hsaqm_rec_record *r = &tm->out[tm->nout];
	struct hsaqm_rec_clock_body cb;
	uint64_t t0, t1;

	memset(&cb, 0, sizeof(cb));
	/* hsa_system_info_t: 2 TIMESTAMP, 3 TIMESTAMP_FREQUENCY. */
	if (rt->system_get_info(3, &cb.system_hz) != HSAQM_HSA_STATUS_SUCCESS || !cb.system_hz)
		return;
	t0 = hsaqm_mono_ns();
	if (rt->system_get_info(2, &cb.system_ts) != HSAQM_HSA_STATUS_SUCCESS)
		return;
	t1 = hsaqm_mono_ns();
	cb.read_ns = t1 - t0;
	memset(r, 0, sizeof(*r));
	r->t_ns = t0 + (t1 - t0) / 2;
	r->kind = HSAQM_REC_CLOCK;
	memcpy(r->body, &cb, sizeof(cb));
	tm->nout++;
	tm->last_clock_ns = t1;
}

/* The waiting dispatches by signal: each signal is in pend[] once at most. */
static uint32_t hash_home(uint64_t signal)
{
	/* Signals are 64-byte aligned addresses (ROCr) or handles (the model): mix them. */
	return (uint32_t)(((signal >> 6) * 0x9e3779b97f4a7c15ull) >> 40) & (REC_HASH - 1);
}

/* The slot holding @signal, or the empty slot where it would go. */
static uint32_t hash_slot(const struct rec_timer *tm, uint64_t signal)
{
	uint32_t j = hash_home(signal);

	while (tm->hash[j] && tm->pend[tm->hash[j] - 1].signal != signal)
		j = (j + 1) & (REC_HASH - 1);
	return j;
}

/* Empty slot @j, moving later entries of its run back so that every lookup still finds them. */
static void hash_clear(struct rec_timer *tm, uint32_t j)
{
	uint32_t k = j;

	tm->hash[j] = 0;
	for (;;) {
		uint32_t home;

		k = (k + 1) & (REC_HASH - 1);
		if (!tm->hash[k])
			return;
		home = hash_home(tm->pend[tm->hash[k] - 1].signal);
		/* Movable to j when its home is not in (j, k] (cyclically). */
		if ((j < k) ? (home <= j || home > k) : (home <= j && home > k)) {
			tm->hash[j] = tm->hash[k];
			tm->hash[k] = 0;
			j = k;
		}
	}
}

/* Take pend[@i] out (its hash slot too); the last entry moves into its place. */
static void pend_remove(struct rec_timer *tm, uint32_t i)
{
	uint32_t last = --tm->npend;

	hash_clear(tm, hash_slot(tm, tm->pend[i].signal));
	if (i != last) {
		tm->pend[i] = tm->pend[last];
		tm->hash[hash_slot(tm, tm->pend[i].signal)] = i + 1;
	}
}

/* The completion signal @r waits on for its times (a timed queue's kernel dispatch or barrier
 * AND/OR that has one), or 0. */
static uint64_t pend_signal(const struct rec_queue *rq, const struct hsaqm_rec_record *r)
{
	const union hsaqm_aql_packet *pk;
	union hsaqm_aql_packet p;
	uint32_t type;

	if (!rq->timed || r->kind != HSAQM_REC_PACKET)
		return 0;
	if (r->aux & HSAQM_REC_PACKET_OWN_SIGNAL)
		return rq->pool->sig[r->aux & ~HSAQM_REC_PACKET_OWN_SIGNAL];
	memcpy(&p, r->body, sizeof(p));
	pk = &p;
	type = pk->dispatch.header & HSAQM_AQL_FIELD_MASK(HSAQM_AQL_HEADER_TYPE_WIDTH);
	/*
	 * Kernel dispatches, and the barriers a host waits on: ROCclr signals the barrier-AND it
	 * puts behind a stream's last kernel for a synchronisation, not the kernel, unless
	 * GPU_FORCE_QUEUE_PROFILING is set (docs/replay.md); the packet processor stamps any
	 * packet's completion signal, and ROCclr times its own markers so. The completion signal
	 * is at the same offset in every AQL packet.
	 */
	if (type != HSAQM_AQL_TYPE_KERNEL_DISPATCH && type != HSAQM_AQL_TYPE_BARRIER_AND &&
	    type != HSAQM_AQL_TYPE_BARRIER_OR)
		return 0;
	return pk->dispatch.completion_signal;
}

/*
 * rec.lock held (the writer). @r, just copied to the block, waits for its times when it is a
 * kernel dispatch or barrier with a completion signal (pend_signal()). A signal already waited
 * on belongs to an earlier dispatch the application has reused it after: that one's times can
 * no longer be told apart, so it is given up (it has none in the file; counted as reused).
 */
static void pend_add(struct rec_timer *tm, const struct rec_queue *rq,
		     const struct hsaqm_rec_record *r)
{
	uint64_t signal = pend_signal(rq, r);
	uint32_t j, own = 0;
	struct rec_pend e;

	if (!signal)
		return;
	if (r->aux & HSAQM_REC_PACKET_OWN_SIGNAL)
		own = (r->aux & ~HSAQM_REC_PACKET_OWN_SIGNAL) + 1;
	e = (struct rec_pend){
		.rt = rq->rt, .agent = rq->agent, .pool = own ? rq->pool : NULL, .own = own,
		.signal = signal, .index = r->index, .queue = r->queue, .priority = r->priority,
		.hsa_prio = r->hsa_prio,
	};
	j = hash_slot(tm, signal);
	if (tm->hash[j]) {
		pend_remove(tm, tm->hash[j] - 1);
		tm->reused++;
	}
	if (tm->npend == REC_PEND) {
		tm->full++;
		/* The recorder's signal still goes back to its pool, once its dispatch ended. */
		if (own && tm->nlater < REC_PEND)
			tm->later[tm->nlater++] = e;
		return;
	}
	tm->pend[tm->npend] = e;
	tm->npend++;
	/* Looked up again: the removal above may have moved the run's entries. */
	tm->hash[hash_slot(tm, signal)] = tm->npend;
	tm->rt = rq->rt;
}

/*
 * Without rec.lock (the writer, in_rt): the recorder's signal of @e, its dispatch ended and its
 * times read (or not wanted), set to 1 again and given back to its queue's doorbell.
 */
static void pool_give_back(const struct rec_pend *e)
{
	struct rec_pool *pl = e->pool;
	uint64_t put = pl->put;

	e->rt->signal_store_relaxed((struct hsaqm_hsa_signal){ e->signal }, 1);
	pl->free[put % REC_OWN_MAX] = e->own - 1;
	/*
	 * Release: the store of 1 above and the index before the doorbell that takes it (acquire)
	 * writes the signal into a packet: the CP never sees it at 0 before its dispatch.
	 */
	hsaqm_store_release(&pl->put, put + 1);
}

/*
 * rec.lock held (the writer, before a round in the runtime): the pools a doorbell found empty
 * since the last round, and not at REC_OWN_MAX, to grow in the round (pend_poll()).
 */
static void grow_collect(struct rec_timer *tm)
{
	if (!tm)
		return;
	for (struct rec_pool *pl = rec.pools; pl && tm->ngrow < REC_GROW; pl = pl->next)
		if (HSAQM_READ_ONCE(pl->dry) && pl->rt && pl->n < REC_OWN_MAX) {
			HSAQM_WRITE_ONCE(pl->dry, 0u);
			tm->grow_rt[tm->ngrow] = pl->rt;
			tm->grow[tm->ngrow++] = pl;
		}
}

/* Without rec.lock (the writer, in_rt): REC_OWN more signals for @pl, each given at once. */
static void pool_grow(struct rec_pool *pl, const struct hsaqm_hsa_runtime *rt)
{
	for (uint32_t i = 0; i < REC_OWN && pl->n < REC_OWN_MAX; i++) {
		struct hsaqm_hsa_signal sig;
		uint64_t put = pl->put;

		if (rt->signal_create(1, 1, &pl->agent, &sig) != HSAQM_HSA_STATUS_SUCCESS)
			return;
		pl->sig[pl->n] = sig.handle;
		pl->free[put % REC_OWN_MAX] = pl->n++;
		/* Release: the signal and its index before the doorbell that takes it (acquire). */
		hsaqm_store_release(&pl->put, put + 1);
	}
}

/*
 * Without rec.lock (the writer, in_rt). A TIMES record for each waiting dispatch whose signal
 * is at 0 (HIP and ROCm's libraries count a dispatch's completion signal from 1 down to 0; a
 * signal the application set back to 1 for its next use before this poll saw 0 loses the
 * earlier dispatch's times to that one's: the poll interval bounds how often), a CLOCK record
 * before them at most every REC_CLOCK_NS. Stops when tm->out is full: the rest next time.
 */
static void pend_poll(struct rec_timer *tm, hsaqm_hsa_amd_profiling_dispatch_time_fn dispatch_time)
{
	uint64_t now = 0;

	for (uint32_t i = 0; i < tm->ngrow; i++)
		pool_grow(tm->grow[i], tm->grow_rt[i]);
	tm->ngrow = 0;
	for (uint32_t i = 0; i < tm->nlater;) {
		struct rec_pend *e = &tm->later[i];

		if (e->rt->signal_load_relaxed((struct hsaqm_hsa_signal){ e->signal }) != 0) {
			i++;
			continue;
		}
		pool_give_back(e);
		*e = tm->later[--tm->nlater];
	}
	for (uint32_t i = 0; i < tm->npend && tm->nout + 2 <= REC_OUT;) {
		struct rec_pend *e = &tm->pend[i];
		struct hsaqm_hsa_signal sig = { e->signal };
		struct hsaqm_hsa_amd_profiling_dispatch_time dt;
		struct hsaqm_rec_times_body tb;
		struct hsaqm_rec_record *r;

		if (e->rt->signal_load_relaxed(sig) != 0) {
			i++;
			continue;
		}
		if (dispatch_time(e->agent, sig, &dt) == HSAQM_HSA_STATUS_SUCCESS) {
			/* The CLOCK record first: a reader places these times with it. */
			if (!now && hsaqm_mono_ns() - tm->last_clock_ns >= REC_CLOCK_NS)
				clock_read(tm, e->rt);
			if (!now)
				now = hsaqm_mono_ns();
			r = &tm->out[tm->nout++];
			memset(r, 0, sizeof(*r));
			r->t_ns = now;
			r->index = e->index;
			r->kind = HSAQM_REC_TIMES;
			r->queue = e->queue;
			r->priority = e->priority;
			r->hsa_prio = e->hsa_prio;
			memset(&tb, 0, sizeof(tb));
			tb.start = dt.start;
			tb.end = dt.end;
			tb.signal = e->signal;
			memcpy(r->body, &tb, sizeof(tb));
		}
		if (e->own)
			pool_give_back(e);
		pend_remove(tm, i);
	}
}

/*
 * rec.lock held. Everything the rings hold to the file; drained queues that are gone freed.
 * @last: producers have stopped: losses no later record would report are written too.
 */
static void flush_locked(bool last, struct rec_timer *tm)
{
	struct rec_queue **pp = &rec.queues;

	while (*pp) {
		struct rec_queue *rq = *pp;
		/*
		 * Acquire: pairs with remove's release of gone, made after it published its last
		 * record: gone first, then head, so a queue freed below has had every record copied.
		 */
		bool gone = hsaqm_load_acquire(&rq->gone) != 0;
		/* Acquire: pairs with the producer's release of head: the records below are whole. */
		uint64_t head = hsaqm_load_acquire(&rq->head), tail = rq->tail;

		for (; tail != head; tail++)
			if (!rec.stopped) {
				const struct hsaqm_rec_record *r = &rq->ring[tail & (REC_RING - 1)];

				block_add(r);
				if (tm)
					pend_add(tm, rq, r);
				else if (pend_signal(rq, r))
					rec.untimed_close++; /* close(): no poll follows */
			}
		if (last && HSAQM_READ_ONCE(rq->lost) != HSAQM_READ_ONCE(rq->lost_said) &&
		    !rec.stopped) {
			struct hsaqm_rec_record r;

			rec_queue_fill(rq, &r, HSAQM_REC_LOST, hsaqm_mono_ns());
			r.aux = (uint32_t)(rq->lost - rq->lost_said);
			block_add(&r);
		}
		/* Release: the producer may reuse these slots only after they were copied. */
		hsaqm_store_release(&rq->tail, tail);
		if (gone) {
			*pp = rq->next;
			rec.unsignalled += rq->unsignalled;
			if (rq->pool)
				rq->pool->in_use = false; /* the next queue's */
			free(rq);
		} else {
			pp = &rq->next;
		}
	}
	block_emit();
}

/* rec.lock held (the writer, its generation current): what the UNTIMED record would say now. */
static void timer_publish(const struct rec_timer *tm)
{
	if (!tm)
		return;
	rec.untimed.waiting = tm->npend;
	rec.untimed.reused = tm->reused;
	rec.untimed.full = tm->full;
	rec.untimed.destroyed = tm->destroyed;
}

/* CLOCK_MONOTONIC @ns from now, for a timed wait on rec.wake or rec.idle. */
static struct timespec mono_after(uint64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)(ns / 1000000000ull);
	ts.tv_nsec += (long)(ns % 1000000000ull);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/*
 * rec.lock held (the writer), a round rec_request() asked for: the rings drained, then the
 * waiting dispatches polled, every REC_FINISH_POLL_NS until none waits or @wait_ns passed (0:
 * once), then @forget (a signal about to be destroyed) no longer waited on. A wait of more than
 * 0 (the finish) reads a CLOCK record after the last times (the next one would be up to
 * REC_CLOCK_NS later, or never). Into the runtime without rec.lock, as the polls of
 * writer_main. false: the recording was closed meanwhile (the writer leaves).
 */
static bool writer_finish(struct rec_timer *tm,
			  hsaqm_hsa_amd_profiling_dispatch_time_fn dispatch_time, uint64_t gen,
			  uint64_t wait_ns, uint64_t forget)
{
	uint64_t end = hsaqm_mono_ns() + wait_ns;

	flush_locked(false, tm);
	timer_publish(tm);
	if (!tm || !tm->npend)
		return true;
	for (;;) {
		struct timespec ts;
		bool last;

		grow_collect(tm);
		rec.in_rt = true;
		pthread_cond_broadcast(&rec.idle);
		pthread_mutex_unlock(&rec.lock);
		pend_poll(tm, dispatch_time);
		last = !tm->npend || hsaqm_mono_ns() >= end;
		if (last && wait_ns && tm->rt && tm->nout < REC_OUT)
			clock_read(tm, tm->rt);
		pthread_mutex_lock(&rec.lock);
		rec.in_rt = false;
		if (rec.gen != gen || rec.stopping)
			return false; /* closed meanwhile: what was read goes nowhere */
		for (uint32_t i = 0; i < tm->nout && !rec.stopped; i++)
			block_add(&tm->out[i]);
		tm->nout = 0;
		block_emit();
		if (last) {
			uint32_t j = forget ? hash_slot(tm, forget) : 0;

			/* Its value after the destruction would be another signal's (or a fault). */
			if (forget && tm->hash[j]) {
				pend_remove(tm, tm->hash[j] - 1);
				tm->destroyed++;
			}
			timer_publish(tm);
			return true;
		}
		timer_publish(tm);
		ts = mono_after(REC_FINISH_POLL_NS);
		pthread_cond_timedwait(&rec.wake, &rec.lock, &ts);
		if (rec.stopping)
			return false;
	}
}

/* rec.lock held: the writer of generation @gen is done; close() may go on without it. */
static void writer_leave(uint64_t gen)
{
	if (rec.gen == gen) {
		rec.exited = true;
		pthread_cond_broadcast(&rec.idle);
	}
}

static void *writer_main(void *arg)
{
	/* Its own: a close() that did not wait for it leaves this with it, never freed under it. */
	struct rec_timer *tm = calloc(1, sizeof(*tm));
	hsaqm_hsa_amd_profiling_dispatch_time_fn dispatch_time;
	uint64_t gen;

	(void)arg;
	pthread_mutex_lock(&rec.lock);
	gen = rec.gen;
	dispatch_time = rec.dispatch_time;
	if (!dispatch_time) {
		free(tm);
		tm = NULL; /* no times (and none without memory for them) */
	}
	while (!rec.stopping) {
		struct timespec ts;

		if (rec.finish_done == rec.finish_req) {
			/* Sooner while dispatches wait for their times: a signal is soon reused. */
			ts = mono_after(tm && tm->npend ? REC_POLL_NS : REC_FLUSH_NS);
			pthread_cond_timedwait(&rec.wake, &rec.lock, &ts);
			if (rec.stopping)
				break;
		}
		if (rec.finish_done != rec.finish_req) {
			uint64_t req = rec.finish_req;

			if (!writer_finish(tm, dispatch_time, gen, rec.req_wait_ns, rec.req_forget))
				break;
			rec.finish_done = req;
			pthread_cond_broadcast(&rec.idle);
			continue;
		}
		flush_locked(false, tm);
		timer_publish(tm);
		if (!tm || !tm->npend)
			continue;
		/* Into the runtime without rec.lock (see rec.in_rt); close() need not wait. */
		grow_collect(tm);
		rec.in_rt = true;
		pthread_cond_broadcast(&rec.idle);
		pthread_mutex_unlock(&rec.lock);
		pend_poll(tm, dispatch_time);
		pthread_mutex_lock(&rec.lock);
		rec.in_rt = false;
		if (rec.gen != gen || rec.stopping)
			break; /* closed meanwhile: what was read goes nowhere */
		for (uint32_t i = 0; i < tm->nout && !rec.stopped; i++)
			block_add(&tm->out[i]);
		tm->nout = 0;
		block_emit();
		timer_publish(tm);
	}
	writer_leave(gen);
	pthread_mutex_unlock(&rec.lock);
	free(tm);
	return NULL;
}

/* ---- Opening and closing --------------------------------------------------------------- */

/* A fork child does not record into its parent's file (nor has the writer thread). */
static void rec_atfork_child(void)
{
	HSAQM_WRITE_ONCE(tool_record_on, 0u);
	pthread_mutex_init(&rec.lock, NULL);
	if (rec.fd >= 0)
		close(rec.fd);
	rec.fd = -1;
	rec.running = false;
	rec.queues = NULL; /* the parent's (freed by the parent; leaked here, on purpose) */
	rec.pools = NULL;
	conds_made = false; /* the parent's writer may have been waiting on them */
	memset(rec.table, 0, sizeof(rec.table));
}

static void read_line(const char *path, char *out, size_t size)
{
	FILE *f = fopen(path, "re");

	out[0] = '\0';
	if (f) {
		if (fgets(out, (int)size, f))
			out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
}

/* @pattern with "%p" replaced by the pid. 0 or -ENAMETOOLONG. */
static int expand(const char *pattern, char *out, size_t size)
{
	size_t o = 0;

	for (const char *s = pattern; *s; s++) {
		int n = 1;

		if (s[0] == '%' && s[1] == 'p') {
			n = snprintf(out + o, size - o, "%ld", (long)getpid());
			s++;
		} else if (o + 1 < size) {
			out[o] = *s;
		}
		if (n < 0 || o + (size_t)n >= size)
			return -ENAMETOOLONG;
		o += (size_t)n;
	}
	out[o] = '\0';
	return 0;
}

/* Open @path for this process alone: 0 and rec.fd, -EWOULDBLOCK when another process has it. */
static int open_locked_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	/* The lock dies with the process, SIGKILL included: a stale file is taken over. */
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (ftruncate(fd, 0)) {
		int err = -errno;

		close(fd);
		return err;
	}
	rec.fd = fd;
	return 0;
}

static int write_header(const struct hsaqm_tool_config *cfg, int priority)
{
	struct hsaqm_rec_file_header h;
	struct timespec rt;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, HSAQM_REC_MAGIC, sizeof(h.magic));
	h.version = HSAQM_REC_VERSION;
	h.header_size = HSAQM_REC_HEADER_SIZE;
	h.record_size = HSAQM_REC_RECORD_SIZE;
	h.pid = (uint32_t)getpid();
	h.start_mono_ns = hsaqm_mono_ns();
	clock_gettime(CLOCK_REALTIME, &rt);
	h.start_real_ns = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
	h.clock_id = CLOCK_MONOTONIC;
	h.priority = priority;
	h.level = (uint32_t)cfg->level;
	h.max_mb = cfg->record_max_mb;
	read_line("/proc/sys/kernel/random/boot_id", h.boot_id, sizeof(h.boot_id));
	read_line("/proc/self/comm", h.comm, sizeof(h.comm));
	if (gethostname(h.hostname, sizeof(h.hostname) - 1))
		h.hostname[0] = '\0';
	h.crc = hsaqm_rec_crc32(0, &h, offsetof(struct hsaqm_rec_file_header, crc));
	rec.written = 0;
	if (write_all(&h, sizeof(h)))
		return -EIO;
	rec.written = sizeof(h);
	return 0;
}

int tool_record_open(const struct hsaqm_tool_config *cfg, int priority)
{
	pthread_condattr_t ca;
	char path[PATH_MAX];
	int rc;

	if (!cfg->record[0])
		return 0;
	tool_record_close(); /* a second OnLoad: the first recording is finished */
	pthread_mutex_lock(&rec.lock);
	rc = expand(cfg->record, path, sizeof(path));
	if (!rc) {
		snprintf(rec.path, sizeof(rec.path), "%s", path);
		rc = open_locked_file(rec.path);
	}
	if (rc == -EWOULDBLOCK) {
		/* Another process of the same command line records there (a launcher's workers). */
		snprintf(rec.path, sizeof(rec.path), "%s.%ld", path, (long)getpid());
		rc = open_locked_file(rec.path);
		if (!rc)
			hsaqm_log_notice(NULL, "HSAQM_RECORD=%s is being written by another process: "
					 "this one (pid %ld) records to %s", cfg->record,
					 (long)getpid(), rec.path);
	}
	if (!rc) {
		rec.max_mb = cfg->record_max_mb;
		HSAQM_WRITE_ONCE(rec.level, (uint32_t)cfg->level);
		rec.max_bytes = (uint64_t)cfg->record_max_mb << 20;
		rec.seq = 0;
		rec.nblock = 0;
		rec.stopped = rec.stopping = false;
		rec.exited = rec.in_rt = false;
		rec.gen++;
		rec.finish_done = rec.finish_req;
		memset(&rec.untimed, 0, sizeof(rec.untimed));
		rec.untimed_close = 0;
		rec.unsignalled = 0;
		rc = write_header(cfg, priority);
	}
	if (!rc && !conds_made) {
		/*
		 * Once, never destroyed: an application thread in rec_request() (a signal's
		 * destruction) may still wait on rec.idle while another closes the recording.
		 */
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&rec.wake, &ca);
		pthread_cond_init(&rec.idle, &ca);
		pthread_condattr_destroy(&ca);
		conds_made = true;
	}
	if (!rc) {
		rc = -pthread_create(&rec.thread, NULL, writer_main, NULL);
		rec.running = rc == 0;
	}
	if (rc) {
		hsaqm_log_notice(NULL, "HSAQM_RECORD=%s: cannot record to %s: %s: not recording",
				 cfg->record, rec.path[0] ? rec.path : cfg->record, strerror(-rc));
		if (rec.fd >= 0)
			close(rec.fd);
		rec.fd = -1;
		pthread_mutex_unlock(&rec.lock);
		return rc;
	}
	if (!fork_registered && pthread_atfork(NULL, NULL, rec_atfork_child) == 0)
		fork_registered = 1;
	/* Release: the state above is seen by any doorbell that sees recording on. */
	hsaqm_store_release(&tool_record_on, 1u);
	pthread_mutex_unlock(&rec.lock);
	hsaqm_log_info("recording to %s (at most %u MB)", rec.path, rec.max_mb);
	return 0;
}

/* rec.lock held: the writer of this generation can take a round (rec_request()). */
static bool writer_alive(uint64_t gen)
{
	return rec.gen == gen && rec.running && !rec.stopped && !rec.stopping && !rec.exited;
}

/*
 * rec.lock held. A round of the writer (writer_finish(@wait_ns, @forget)), waited for at most
 * REC_FINISH_WAIT_NS. The caller holds no runtime lock (the application's thread, outside the
 * runtime), so waiting while the writer is inside the runtime cannot deadlock; bounded all the
 * same: a writer without a CPU must not hold the program up. What a round could not do is
 * counted in the UNTIMED record at close.
 */
static void rec_request(uint64_t wait_ns, uint64_t forget)
{
	struct timespec until = mono_after(REC_FINISH_WAIT_NS);
	uint64_t req, gen = rec.gen;

	/* One round at a time: its parameters are the writer's until it is done. */
	while (writer_alive(gen) && rec.finish_done != rec.finish_req)
		if (pthread_cond_timedwait(&rec.idle, &rec.lock, &until) == ETIMEDOUT)
			return;
	if (!writer_alive(gen))
		return;
	rec.req_wait_ns = wait_ns;
	rec.req_forget = forget;
	req = ++rec.finish_req;
	pthread_cond_signal(&rec.wake);
	while (writer_alive(gen) && rec.finish_done < req)
		if (pthread_cond_timedwait(&rec.idle, &rec.lock, &until) == ETIMEDOUT)
			break;
}

void tool_record_finish(void)
{
	pthread_mutex_lock(&rec.lock);
	if (rec.running)
		rec_request(REC_FINISH_NS, 0);
	pthread_mutex_unlock(&rec.lock);
}

void tool_record_signal_destroy(uint64_t signal)
{
	bool waiting;

	if (!HSAQM_READ_ONCE(tool_record_on))
		return;
	pthread_mutex_lock(&rec.lock);
	/*
	 * Only when a dispatch may wait on a signal: one the writer waits for, or a timed queue's
	 * records not drained yet. ROCclr destroys a stream's signals together, after its last
	 * synchronisation: the first destruction's round times them all, the others find nothing.
	 */
	waiting = rec.running && rec.untimed.waiting;
	for (struct rec_queue *rq = rec.queues; rec.running && !waiting && rq; rq = rq->next)
		/* Acquire: pairs with the producer's release of head. */
		waiting = rq->timed && hsaqm_load_acquire(&rq->head) != rq->tail;
	if (waiting)
		rec_request(0, signal);
	pthread_mutex_unlock(&rec.lock);
}

void tool_record_close(void)
{
	pthread_mutex_lock(&rec.lock);
	HSAQM_WRITE_ONCE(tool_record_on, 0u);
	if (!rec.running) {
		pthread_mutex_unlock(&rec.lock);
		return;
	}
	rec.stopping = true;
	pthread_cond_signal(&rec.wake);
	/*
	 * Until the writer left, or is inside the runtime: this may run under the runtime's lock
	 * (OnUnload), which the runtime call it is in may be waiting for. Then it is left to
	 * finish on its own (detached): it finds its generation over and writes nothing more.
	 */
	while (!rec.exited && !rec.in_rt)
		pthread_cond_wait(&rec.idle, &rec.lock);
	if (rec.exited) {
		pthread_mutex_unlock(&rec.lock);
		pthread_join(rec.thread, NULL);
		pthread_mutex_lock(&rec.lock);
	} else {
		pthread_detach(rec.thread);
	}
	rec.gen++;
	rec.running = false;
	pthread_cond_broadcast(&rec.idle); /* a rec_request() waiting leaves */
	/* The last records (the writer's last drain may have come before them). */
	flush_locked(true, NULL);
	/* Then what has no times, said once: nothing is left out silently (docs/replay.md). */
	if (!rec.stopped) {
		struct hsaqm_rec_untimed_body ub = rec.untimed;
		struct hsaqm_rec_record r;

		ub.waiting += rec.untimed_close;
		ub.unsignalled = rec.unsignalled;
		/* Queues still there: producers stopped (tool_record_on is 0, their locks taken). */
		for (struct rec_queue *rq = rec.queues; rq; rq = rq->next)
			ub.unsignalled += HSAQM_READ_ONCE(rq->unsignalled);
		memset(&r, 0, sizeof(r));
		r.t_ns = hsaqm_mono_ns();
		r.kind = HSAQM_REC_UNTIMED;
		r.aux = ub.waiting > UINT32_MAX ? UINT32_MAX : (uint32_t)ub.waiting;
		memcpy(r.body, &ub, sizeof(ub));
		block_add(&r);
		block_emit();
	}
	for (unsigned int i = 0; i < REC_TABLE; i++)
		HSAQM_WRITE_ONCE(rec.table[i], NULL);
	while (rec.queues) {
		struct rec_queue *rq = rec.queues;

		rec.queues = rq->next;
		/*
		 * A doorbell of a live queue (another thread, at exit) finds its record under the
		 * proxy's lock: once the lock was taken here, none holds this record any more, and
		 * no later one finds it. A queue gone had its lock taken by remove(), and its proxy
		 * may be freed: not touched.
		 */
		if (!hsaqm_load_acquire(&rq->gone) && hsaqm_hsa_proxy_lock_live(rq->proxy))
			pthread_mutex_unlock(&rq->proxy->db_lock);
		free(rq);
	}
	/* Their signals are this runtime's, which may be going: no later recording takes them. */
	for (struct rec_pool *pl = rec.pools; pl; pl = pl->next) {
		pl->rt = NULL;
		pl->in_use = false;
	}
	close(rec.fd);
	rec.fd = -1;
	pthread_mutex_unlock(&rec.lock);
}

/* ---- Dispatch times ---------------------------------------------------------------------- */

void tool_record_bind(void *root_table, const struct hsaqm_api_layout *layout)
{
	void **slot = hsaqm_api_table_slot(root_table, layout,
					   HSAQM_API_AMD_PROFILING_GET_DISPATCH_TIME);

	void **iter = hsaqm_api_table_slot(root_table, layout, HSAQM_API_EXECUTABLE_ITERATE_SYMBOLS);
	void **info = hsaqm_api_table_slot(root_table, layout,
					   HSAQM_API_EXECUTABLE_SYMBOL_GET_INFO);

	pthread_mutex_lock(&rec.lock);
	rec.dispatch_time = slot ? (hsaqm_hsa_amd_profiling_dispatch_time_fn)*slot : NULL;
	/* Read once, here: the entries as the runtime (or a tool before hsaqm) installed them. */
	rec.iterate_symbols = iter ? (rec_iterate_symbols_fn)*iter : NULL;
	rec.symbol_get_info = info ? (rec_symbol_get_info_fn)*info : NULL;
	pthread_mutex_unlock(&rec.lock);
}

/* ---- Kernel names ------------------------------------------------------------------------ */

/* hsa_executable_symbol_info_t and hsa_symbol_kind_t (hsa.h), the values ROCr has always had. */
#define REC_SYM_INFO_TYPE 0u
#define REC_SYM_INFO_NAME_LENGTH 1u
#define REC_SYM_INFO_NAME 2u
#define REC_SYM_INFO_KERNEL_OBJECT 22u
#define REC_SYM_KIND_KERNEL 1u
/* A symbol name longer than this is not a kernel's anyone reads: skipped, not allocated. */
#define REC_SYM_NAME_LIMIT (64u * 1024)

/* One executable's kernels, gathered by the symbol callback (no lock held: inside the runtime). */
struct rec_names {
	rec_symbol_get_info_fn info;
	char *buf;                   /* entries: object u64, length u32, the name's bytes */
	size_t len, cap;
	char *scratch;               /* the NAME query's buffer, grown to the longest name */
	uint32_t scratch_cap;
	bool nomem;
};

static bool names_put(struct rec_names *n, const void *p, size_t len)
{
	if (n->len + len > n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 4096;
		char *b;

		while (cap < n->len + len)
			cap *= 2;
		b = realloc(n->buf, cap);
		if (!b)
			return false;
		n->buf = b;
		n->cap = cap;
	}
	memcpy(n->buf + n->len, p, len);
	n->len += len;
	return true;
}

static hsaqm_hsa_status_t names_symbol_cb(struct tool_hsa_executable exec,
					  struct tool_hsa_executable_symbol sym, void *data)
{
	struct rec_names *n = data;
	uint32_t type = UINT32_MAX, len = 0, rlen;
	uint64_t object = 0;
	size_t mark = n->len;

	(void)exec;
	if (n->info(sym, REC_SYM_INFO_TYPE, &type) != HSAQM_HSA_STATUS_SUCCESS ||
	    type != REC_SYM_KIND_KERNEL ||
	    n->info(sym, REC_SYM_INFO_KERNEL_OBJECT, &object) != HSAQM_HSA_STATUS_SUCCESS ||
	    !object ||
	    n->info(sym, REC_SYM_INFO_NAME_LENGTH, &len) != HSAQM_HSA_STATUS_SUCCESS || !len ||
	    len > REC_SYM_NAME_LIMIT)
		return HSAQM_HSA_STATUS_SUCCESS; /* not a kernel, or no name to give it */
	if (len + 1 > n->scratch_cap) {
		char *b = realloc(n->scratch, len + 1);

		if (!b) {
			n->nomem = true;
			return HSAQM_HSA_STATUS_SUCCESS;
		}
		n->scratch = b;
		n->scratch_cap = len + 1;
	}
	/* NAME copies NAME_LENGTH bytes, without a terminator. */
	memset(n->scratch, 0, len + 1);
	if (n->info(sym, REC_SYM_INFO_NAME, n->scratch) != HSAQM_HSA_STATUS_SUCCESS)
		return HSAQM_HSA_STATUS_SUCCESS;
	rlen = (uint32_t)strnlen(n->scratch, len);
	/* A code object's kernel symbol is the descriptor, "<kernel>.kd": the kernel's name is
	 * before it (what the source and a profiler call it). */
	if (rlen > 3 && !memcmp(n->scratch + rlen - 3, ".kd", 3))
		rlen -= 3;
	if (rlen > HSAQM_REC_KERNEL_NAME_MAX)
		rlen = HSAQM_REC_KERNEL_NAME_MAX;
	if (!rlen)
		return HSAQM_HSA_STATUS_SUCCESS;
	if (!names_put(n, &object, sizeof(object)) || !names_put(n, &rlen, sizeof(rlen)) ||
	    !names_put(n, n->scratch, rlen)) {
		n->len = mark;
		n->nomem = true;
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

static int names_once;

void tool_record_executable(struct tool_hsa_executable exec)
{
	struct rec_names n = { 0 };
	rec_iterate_symbols_fn iterate;
	uint64_t t;

	if (!HSAQM_READ_ONCE(tool_record_on))
		return;
	pthread_mutex_lock(&rec.lock);
	iterate = rec.iterate_symbols;
	n.info = rec.symbol_get_info;
	pthread_mutex_unlock(&rec.lock);
	if (!iterate || !n.info)
		return;
	/* Into the runtime without rec.lock (OnLoad and OnUnload take it under the runtime's). */
	iterate(exec, names_symbol_cb, &n);
	free(n.scratch);
	if (n.nomem)
		hsaqm_log_notice(&names_once, "HSAQM_RECORD: out of memory reading an executable's "
				 "kernel names: some dispatches are recorded without a name");
	t = hsaqm_mono_ns();
	pthread_mutex_lock(&rec.lock);
	for (size_t off = 0; rec.running && !rec.stopped && off < n.len;) {
		struct hsaqm_rec_record r;
		uint64_t object;
		uint32_t len;

		memcpy(&object, n.buf + off, sizeof(object));
		memcpy(&len, n.buf + off + sizeof(object), sizeof(len));
		off += sizeof(object) + sizeof(len);
		for (uint32_t piece = 0; piece < len && !rec.stopped; piece += HSAQM_REC_KERNEL_PIECE) {
			uint32_t k = len - piece < HSAQM_REC_KERNEL_PIECE ? len - piece
									 : HSAQM_REC_KERNEL_PIECE;

			memset(&r, 0, sizeof(r));
			r.t_ns = t;
			r.index = object;
			r.kind = HSAQM_REC_KERNEL;
			r.priority = (int32_t)piece;
			r.aux = len;
			memcpy(r.body, n.buf + off + piece, k);
			block_add(&r);
		}
		off += len;
	}
	/* Written now: a dispatch of these kernels can follow at once, and a crash keeps them. */
	block_emit();
	pthread_mutex_unlock(&rec.lock);
	free(n.buf);
}

struct agent_find {
	const struct hsaqm_hsa_runtime *rt;
	uint32_t node;
	bool found;
	struct hsaqm_hsa_agent agent;
};

static hsaqm_hsa_status_t agent_find_cb(struct hsaqm_hsa_agent agent, void *data)
{
	struct agent_find *f = data;

	if (!f->found &&
	    hsaqm_hsa_agent_u32(f->rt, agent, HSAQM_HSA_AGENT_INFO_DEVICE, 0) ==
		    HSAQM_HSA_DEVICE_TYPE_GPU &&
	    hsaqm_hsa_agent_u32(f->rt, agent, HSAQM_HSA_AGENT_INFO_DRIVER_NODE_ID, UINT32_MAX) ==
		    f->node) {
		f->agent = agent;
		f->found = true;
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

/*
 * A pool of own completion signals for a new queue (rec.lock not held: signals are made in the
 * runtime): a destroyed queue's of the same runtime, or a new one. NULL: none (no memory, or
 * the runtime made no signal): the queue's unsignalled dispatches then go without times.
 */
static struct rec_pool *pool_get(const struct hsaqm_hsa_runtime *rt, struct hsaqm_hsa_agent agent)
{
	struct rec_pool *pl;

	pthread_mutex_lock(&rec.lock);
	for (pl = rec.pools; pl && (pl->in_use || pl->rt != rt); pl = pl->next)
		;
	if (pl)
		pl->in_use = true;
	pthread_mutex_unlock(&rec.lock);
	if (pl)
		return pl;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return NULL;
	/*
	 * The GPU its only consumer: ROCr then makes a plain memory signal, not an interrupt
	 * signal (a KFD event each, of which a process has a few thousand); the writer polls it.
	 */
	while (pl->n < REC_OWN) {
		struct hsaqm_hsa_signal sig;

		if (rt->signal_create(1, 1, &agent, &sig) != HSAQM_HSA_STATUS_SUCCESS)
			break;
		pl->free[pl->n] = pl->n;
		pl->sig[pl->n++] = sig.handle;
	}
	if (!pl->n) {
		free(pl);
		return NULL;
	}
	pl->put = pl->n;
	pl->rt = rt;
	pl->agent = agent;
	pl->in_use = true;
	pthread_mutex_lock(&rec.lock);
	pl->next = rec.pools;
	rec.pools = pl;
	pthread_mutex_unlock(&rec.lock);
	return pl;
}

/*
 * The queue's dispatches get start and end times: its hardware queue (behind the proxy, where
 * the packets run with the application's completion signals) timestamps every completion, and
 * the writer reads them with hsa_amd_profiling_get_dispatch_time on the queue's GPU agent
 * (found by the KFD node the queue was made on). Not on the doorbell path: at creation.
 */
static void times_setup(struct rec_queue *rq, struct hsaqm_hsa_proxy *p, uint32_t device)
{
	struct agent_find f = { .rt = p->rt, .node = device };

	if (!rec.dispatch_time || !p->rt->amd_profiling_set_profiler_enabled ||
	    !p->rt->iterate_agents || !p->rt->system_get_info || !p->rt->signal_load_relaxed)
		return;
	p->rt->iterate_agents(agent_find_cb, &f);
	if (!f.found ||
	    p->rt->amd_profiling_set_profiler_enabled(hsaqm_hsa_proxy_hw_queue(p), 1) !=
		    HSAQM_HSA_STATUS_SUCCESS)
		return;
	rq->rt = p->rt;
	rq->agent = f.agent;
	rq->timed = true;
	if (HSAQM_READ_ONCE(rec.level) == HSAQM_LEVEL_NONE && p->rt->signal_create &&
	    p->rt->signal_store_relaxed)
		rq->pool = pool_get(p->rt, f.agent);
}

/* ---- Queues and doorbells ---------------------------------------------------------------- */

/* @p's record, or NULL. Under @p's doorbell lock or rec.lock: close() frees behind both. */
static struct rec_queue *lookup(const struct hsaqm_hsa_proxy *p)
{
	/* Acquire: pairs with queue_add's release: the record is whole. */
	struct rec_queue *rq = hsaqm_load_acquire(&rec.table[p->dep_id & (REC_TABLE - 1)]);

	return rq && rq->proxy == p ? rq : NULL;
}

void tool_record_queue_add(struct hsaqm_hsa_proxy *p, uint32_t device, const char *name,
			   int priority, int hsa_prio)
{
	struct rec_queue *rq;
	struct hsaqm_rec_record *r;
	struct hsaqm_rec_queue_body body;
	uint32_t slot;

	if (!HSAQM_READ_ONCE(tool_record_on))
		return;
	rq = calloc(1, sizeof(*rq));
	if (!rq)
		return;
	rq->proxy = p;
	rq->id = p->dep_id;
	rq->priority = priority;
	rq->hsa_prio = (uint32_t)hsa_prio;
	times_setup(rq, p, device);
	/* Its first record, before anyone can see the queue. */
	r = &rq->ring[0];
	rec_queue_fill(rq, r, HSAQM_REC_QUEUE, hsaqm_mono_ns());
	r->index = hsaqm_hsa_proxy_queue(p)->id;
	r->aux = device;
	memset(&body, 0, sizeof(body));
	body.size = p->size;
	body.device = device;
	body.hsa_queue = r->index;
	snprintf(body.name, sizeof(body.name), "%s", name);
	body.level = HSAQM_READ_ONCE(rec.level);
	memcpy(r->body, &body, sizeof(body));
	rq->head = 1;
	slot = p->dep_id & (REC_TABLE - 1);
	pthread_mutex_lock(&rec.lock);
	if (!rec.running || rec.table[slot]) {
		bool running = rec.running;

		if (rq->pool)
			rq->pool->in_use = false;
		pthread_mutex_unlock(&rec.lock);
		if (running)
			hsaqm_log_notice(&slot_once, "HSAQM_RECORD: queue %s is not recorded (more "
					 "than %u queues at once)", name, REC_TABLE);
		free(rq);
		return;
	}
	rq->next = rec.queues;
	rec.queues = rq;
	/* Release: the record above is whole for the doorbell that finds it (lookup()). */
	hsaqm_store_release(&rec.table[slot], rq);
	pthread_mutex_unlock(&rec.lock);
}

void tool_record_queue_priority(struct hsaqm_hsa_proxy *p, int priority, int hsa_prio)
{
	struct rec_queue *rq;

	if (!HSAQM_READ_ONCE(tool_record_on) || !hsaqm_hsa_proxy_lock_live(p))
		return;
	rq = lookup(p);
	if (rq) {
		HSAQM_WRITE_ONCE(rq->priority, (int32_t)priority);
		HSAQM_WRITE_ONCE(rq->hsa_prio, (uint32_t)hsa_prio);
	}
	pthread_mutex_unlock(&p->db_lock);
}

/*
 * db_lock held. The slot for the record at *@head, after a LOST record (at time @t) when
 * packets were lost since the last one; *@head moves past the LOST record. NULL when the
 * ring is full: the caller counts its packet lost.
 */
static struct hsaqm_rec_record *ring_slot(struct rec_queue *rq, uint64_t *head, uint64_t t)
{
	uint64_t pending = rq->lost - rq->lost_said;

	/* Acquire: pairs with the writer's release of tail: the slots below it were copied. */
	if (*head - hsaqm_load_acquire(&rq->tail) + (pending ? 2 : 1) > REC_RING)
		return NULL;
	if (pending) {
		struct hsaqm_rec_record *r = &rq->ring[*head & (REC_RING - 1)];

		rec_queue_fill(rq, r, HSAQM_REC_LOST, t);
		r->aux = pending > UINT32_MAX ? UINT32_MAX : (uint32_t)pending;
		HSAQM_WRITE_ONCE(rq->lost_said, rq->lost);
		(*head)++;
	}
	return &rq->ring[*head & (REC_RING - 1)];
}

/* db_lock held: publish records up to @head; wake the writer when a quarter is waiting. */
static void ring_publish(struct rec_queue *rq, uint64_t head)
{
	uint64_t old = rq->head, tail = HSAQM_READ_ONCE(rq->tail);

	if (head == old)
		return;
	/* Release: the records written are whole for the writer that loads head (acquire). */
	hsaqm_store_release(&rq->head, head);
	if (old - tail < REC_WAKE && head - tail >= REC_WAKE)
		pthread_cond_signal(&rec.wake); /* once per REC_WAKE records at most */
}

void tool_record_queue_remove(struct hsaqm_hsa_proxy *p)
{
	struct rec_queue *rq;
	struct hsaqm_rec_record *r;

	/* rec.lock: close() cannot free the record meanwhile. */
	pthread_mutex_lock(&rec.lock);
	rq = rec.running ? lookup(p) : NULL;
	if (rq)
		HSAQM_WRITE_ONCE(rec.table[p->dep_id & (REC_TABLE - 1)], NULL);
	pthread_mutex_unlock(&rec.lock);
	if (!rq)
		return;
	/* A doorbell that found it before the slot was cleared has finished once this is held. */
	if (hsaqm_hsa_proxy_lock_live(p)) {
		uint64_t head = rq->head, t = hsaqm_mono_ns();

		r = ring_slot(rq, &head, t);
		if (r) {
			rec_queue_fill(rq, r, HSAQM_REC_QUEUE_GONE, t);
			r->index = rq->rec_end;
			ring_publish(rq, head + 1);
		}
		pthread_mutex_unlock(&p->db_lock);
	}
	/* Release: after its last record: the writer frees it once it drained them. */
	hsaqm_store_release(&rq->gone, 1u);
}

/*
 * db_lock held, before the scan: one of the queue's own signals into @slot's completion signal
 * (the application left it 0), said in @r's aux; none left: counted (see REC_OWN).
 */
static void own_signal(struct rec_queue *rq, union hsaqm_aql_packet *slot,
		       struct hsaqm_rec_record *r)
{
	struct rec_pool *pl = rq->pool;
	uint32_t k;

	/* Acquire: pairs with pool_give_back()'s release: the signal is at 1 again. */
	if (pl->take == hsaqm_load_acquire(&pl->put)) {
		HSAQM_WRITE_ONCE(rq->unsignalled, rq->unsignalled + 1);
		if (!HSAQM_READ_ONCE(pl->dry))
			HSAQM_WRITE_ONCE(pl->dry, 1u);
		return;
	}
	k = pl->free[pl->take % REC_OWN_MAX];
	pl->take++;
	/*
	 * Relaxed: the scan that copies the packet to the hardware queue reads the slot after this
	 * on this thread, under the same lock; the application never reads its packet again.
	 */
	HSAQM_WRITE_ONCE(slot->dispatch.completion_signal, pl->sig[k]);
	r->aux = HSAQM_REC_PACKET_OWN_SIGNAL | k;
}

void tool_record_doorbell_proxy(struct hsaqm_hsa_proxy *p)
{
	struct rec_queue *rq;
	uint64_t read, i, head, t = 0;
	int32_t prio;
	uint16_t hsa_prio;

	if (!hsaqm_hsa_proxy_lock_live(p))
		return;
	rq = lookup(p);
	if (!rq) {
		pthread_mutex_unlock(&p->db_lock);
		return;
	}
	/* Acquire: as the scan's, pairs with release()'s store of the proxy's read index. */
	read = hsaqm_load_acquire(&p->amd->read_dispatch_id);
	i = rq->rec_end;
	if (i < p->scan_end) {
		/* Scanned without this pre-scan seeing them (see the top of the file). */
		HSAQM_WRITE_ONCE(rq->lost, rq->lost + (p->scan_end - i));
		i = p->scan_end;
	}
	head = rq->head;
	prio = HSAQM_READ_ONCE(rq->priority);
	hsa_prio = (uint16_t)HSAQM_READ_ONCE(rq->hsa_prio);
	while (i - read < p->size) {
		const union hsaqm_aql_packet *pkt = &p->ring[i & p->mask];
		/* Acquire: pairs with the application's release of the header: the body is whole. */
		uint32_t w = hsaqm_aql_slot_load_header(pkt);
		struct hsaqm_rec_record *r;

		if ((w & HSAQM_AQL_FIELD_MASK(HSAQM_AQL_HEADER_TYPE_WIDTH)) == HSAQM_AQL_TYPE_INVALID)
			break;
		if (!t)
			t = hsaqm_mono_ns(); /* one clock read per doorbell */
		r = ring_slot(rq, &head, t);
		if (!r) {
			HSAQM_WRITE_ONCE(rq->lost, rq->lost + 1);
		} else {
			r->t_ns = t;
			r->index = i;
			r->kind = HSAQM_REC_PACKET;
			r->hsa_prio = hsa_prio;
			r->queue = rq->id;
			r->priority = prio;
			r->aux = 0;
			memcpy(r->body + 4, pkt->bytes + 4, sizeof(r->body) - 4);
			memcpy(r->body, &w, 4); /* the header word the load above saw */
			if (rq->pool &&
			    (w & HSAQM_AQL_FIELD_MASK(HSAQM_AQL_HEADER_TYPE_WIDTH)) ==
				    HSAQM_AQL_TYPE_KERNEL_DISPATCH &&
			    !pkt->dispatch.completion_signal)
				own_signal(rq, &p->ring[i & p->mask], r);
			head++;
		}
		i++;
	}
	rq->rec_end = i;
	ring_publish(rq, head);
	/*
	 * The slots the next doorbells write were last read by the writer thread, on another
	 * core: ask for them with write intent now, so that their transfer overlaps the
	 * application's work between doorbells instead of stalling the next copy (without it,
	 * recording cost +160 ns a dispatch in hsaqm-bench-tool whenever the writer ran beside
	 * it, +37 ns when it did not read the ring). A hint: no ordering, nothing to order.
	 */
	{
		const char *next = (const char *)&rq->ring[(head + 4) & (REC_RING - 1)];

		__builtin_prefetch(next, 1, 3);
		__builtin_prefetch(next + 64, 1, 3);
	}
	pthread_mutex_unlock(&p->db_lock);
}
