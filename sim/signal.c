/* SPDX-License-Identifier: MIT */
/*
 * HSA signals of the model: a 64-bit value in model memory, plus what it takes to wake whoever
 * waits for it without anyone polling.
 *
 * Three kinds of waiter, one protocol. A waiter announces itself (host_waiters, the epoch
 * waiter count, or its device's bit in device_watch), issues a full barrier, then reads the
 * value. A writer changes the value, bumps seq, issues a full barrier, then reads the
 * announcements. With a full barrier on each side (a store-buffer pattern), either the
 * writer sees the announcement and wakes the waiter, or the waiter sees the new value: a
 * wake-up cannot be lost.
 *   - one host thread on one signal: futex on s->seq;
 *   - a host thread on several signals (wait_any, the async-handler thread): futex on the
 *     arena's epoch, which writers bump when a signal they changed has host waiters;
 *   - a device engine (barrier packets): its bit in device_watch; the writer marks the
 *     device's sig_dirty and wakes its engine, which re-checks every waiting barrier.
 * All words are in model memory and every futex is shared, so this already works between
 * processes mapping the same arena.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "hsaqm-common/log.h"
#include "shared_internal.h"

struct sim_handler {
	struct sim_handler *next;
	struct sim_signal *s;
	enum sim_cond cond;
	int64_t compare;
	sim_signal_handler_fn fn;
	void *arg;
	bool fired;        /* ran at least once and asked to stay armed */
	uint32_t fired_seq; /* seq of the signal when it last ran */
	bool dead;         /* due or running now (not picked again meanwhile) */
	bool due;          /* VIRTUAL: ready, waiting for a drainer (sim_signal_handlers_drain) */
	int64_t due_v;     /* the value it is run with, and the seq it re-arms with */
	uint32_t due_seq;
	bool orphan;       /* its signal was destroyed while it ran: freed after, s untouched */
};

bool sim_cond_holds(enum sim_cond cond, int64_t v, int64_t compare)
{
	switch (cond) {
	case SIM_COND_EQ:
		return v == compare;
	case SIM_COND_NE:
		return v != compare;
	case SIM_COND_LT:
		return v < compare;
	case SIM_COND_GTE:
		return v >= compare;
	}
	return false;
}

struct sim_signal *sim_signal_create(struct hsaqm_sim *sim, int64_t initial)
{
	struct sim_signal *s = sim_mem_alloc(sim, sizeof(*s), 64);

	if (!s)
		return NULL;
	s->value = initial;
	s->kind = SIM_SIGNAL_USER;
	/* Release: a thread that finds the magic through the handle sees the fields above. */
	hsaqm_store_release(&s->magic, SIM_SIGNAL_MAGIC);
	return s;
}

void sim_signal_destroy(struct hsaqm_sim *sim, struct sim_signal *s)
{
	if (!sim || !s || !sim_mem_contains(sim, s, sizeof(*s)))
		return;
	/*
	 * Acquire: pairs with create's release of the magic; the signal's fields are
	 * initialised.
	 */
	if (hsaqm_load_acquire(&s->magic) != SIM_SIGNAL_MAGIC)
		return;
	HSAQM_WRITE_ONCE(s->magic, 0u);
	/*
	 * Handlers still armed on it go with it (the handler thread or a drainer would otherwise
	 * read freed memory): idle ones are unlinked here; one due or running now is marked, and
	 * its drainer or runner frees it afterwards without touching the signal (a due one never
	 * runs). Its function may still be running with the value it was given, which needs
	 * nothing of the signal.
	 */
	pthread_mutex_lock(&sim->handler_lock);
	for (struct sim_handler **pp = &sim->handlers; *pp;) {
		struct sim_handler *h = *pp;

		if (h->s != s || h->orphan) {
			pp = &h->next;
			continue;
		}
		if (h->dead) {
			h->orphan = true;
			pp = &h->next;
			continue;
		}
		*pp = h->next;
		free(h);
	}
	pthread_mutex_unlock(&sim->handler_lock);
	/*
	 * A waiter may destroy the signal as soon as it sees the value it waited for, while the
	 * writer (often the engine completing a packet) is still waking others through it.
	 * Acquire: pairs with writer_leave(); once it reads 0, no writer touches the memory.
	 */
	while (hsaqm_load_acquire(&s->writers))
		sched_yield();
	sim_mem_free(sim, s);
}

/*
 * Bracket every operation that changes the value (see sim_signal_destroy). The change time
 * is stored before the value: a reader that loads the value (acquire) and then the time
 * gets this change's time or a later one, never an earlier one.
 */
static inline void writer_enter(struct sim_signal *s, uint64_t t)
{
	/* acq_rel: sequenced before the value change, so whoever sees the value sees the count. */
	hsaqm_fetch_add(&s->writers, 1u);
	HSAQM_WRITE_ONCE(s->change_time, t);
}

static inline void writer_leave(struct sim_signal *s)
{
	/* Release (acq_rel): our last access to the signal before the destroyer's acquire. */
	hsaqm_fetch_sub(&s->writers, 1u);
}

struct sim_signal *sim_signal_from_handle(const struct hsaqm_sim *sim, uint64_t handle)
{
	return sim ? sim_signal_from_handle_in(&sim->arena, handle) : NULL;
}

struct sim_signal *sim_signal_from_handle_in(const struct sim_arena *a, uint64_t handle)
{
	struct sim_signal *s = (struct sim_signal *)(uintptr_t)handle;

	if (!handle || (handle & 7) || !sim_arena_contains(a, s, sizeof(*s)))
		return NULL;
	/* Acquire: pairs with the release in sim_signal_create(). */
	if (hsaqm_load_acquire(&s->magic) != SIM_SIGNAL_MAGIC)
		return NULL;
	return s;
}

int64_t sim_signal_load(const struct sim_signal *s)
{
	/* Relaxed: the pointer is set before the signal is handed to the model and cleared after. */
	const int64_t *ext = HSAQM_READ_ONCE(((struct sim_signal *)s)->ext_value);

	/* Acquire: what the writer did before its store is visible after this load (scacquire). */
	if (__builtin_expect(ext != NULL, 0))
		return hsaqm_load_acquire((int64_t *)ext);
	return hsaqm_load_acquire(&((struct sim_signal *)s)->value);
}

void sim_signal_set_external(struct sim_signal *s, const int64_t *ext)
{
	/* Relaxed: ordered by how the signal is handed over (a packet's publication). */
	HSAQM_WRITE_ONCE(s->ext_value, ext);
}

void sim_signal_notify(struct hsaqm_sim *sim, struct sim_signal *s, uint64_t t)
{
	/*
	 * The epoch is per arena: in a device process the signal is in one of its clients'
	 * arenas, and that client's waiters sleep on that arena's epoch (futexes are shared:
	 * the kernel keys them by memfd page, whatever the address).
	 */
	struct sim_arena_hdr *h = sim->role == SIM_ROLE_DEVICE ? sim_shared_hdr_of(sim, s) : sim->arena.hdr;

	/* acq_rel: a waiter that reads the new seq (acquire) also reads the new value. */
	hsaqm_fetch_add(&s->seq, 1u);
	/* Store-load: the value/seq stores above before the announcement loads below (the waiter mirrors it). */
	hsaqm_smp_mb();
	if (HSAQM_READ_ONCE(s->host_waiters)) {
		sim_futex_wake(&s->seq, INT_MAX);
		if (h) {
			/* acq_rel: multi-signal waiters re-read their signals after seeing the new epoch. */
			hsaqm_fetch_add(&h->epoch, 1u);
			if (HSAQM_READ_ONCE(h->epoch_waiters))
				sim_futex_wake(&h->epoch, INT_MAX);
		}
	}
	uint32_t watch = HSAQM_READ_ONCE(s->device_watch);
	if (watch) {
		for (unsigned int d = 0; d < sim->ndev && watch; d++) {
			if (watch & (1u << d)) {
				/* The device's own wake words (in a client: the device page). */
				sim_device_stimulate(sim->dev[d], t, &sim->dev[d]->wake->sig_dirty);
				watch &= ~(1u << d);
			}
		}
	}
	/* In a device process s->hwq is a client's pointer: never followed there. */
	if (sim->role != SIM_ROLE_DEVICE && HSAQM_READ_ONCE(s->kind) == SIM_SIGNAL_DOORBELL) {
		struct sim_hwq *q = HSAQM_READ_ONCE(s->hwq);

		/*
		 * Acquire: the value stored with release just above (or by a racing store): the
		 * doorbell sees the newest.
		 */
		if (q)
			sim_hwq_doorbell(q, (uint64_t)hsaqm_load_acquire(&s->value));
	}
}

void sim_signal_store(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v)
{
	uint64_t t = sim_clock_now(sim);

	writer_enter(s, t);
	/* Release (screlease): everything this thread wrote before is visible to whoever sees v. */
	hsaqm_store_release(&s->value, v);
	sim_signal_notify(sim, s, t);
	writer_leave(s);
}

enum signal_rmw_op {
	SIGNAL_RMW_EXCHANGE,
	SIGNAL_RMW_ADD,
	SIGNAL_RMW_AND,
	SIGNAL_RMW_OR,
	SIGNAL_RMW_XOR,
};

/*
 * Every unconditional read-modify-write of the value takes the same writer path, so the
 * wake-up protocol lives in one place; returns the value before the change. @op is a constant
 * at each call, so the switch folds away once this is inlined.
 */
static inline int64_t signal_rmw(struct hsaqm_sim *sim, struct sim_signal *s,
				 enum signal_rmw_op op, int64_t v, uint64_t t)
{
	int64_t old = 0;

	writer_enter(s, t);
	switch (op) {
	case SIGNAL_RMW_EXCHANGE:
		old = hsaqm_exchange(&s->value, v); /* acq_rel: scacq_screl */
		break;
	case SIGNAL_RMW_ADD:
		old = hsaqm_fetch_add(&s->value, v); /* acq_rel */
		break;
	case SIGNAL_RMW_AND:
		old = hsaqm_fetch_and(&s->value, v); /* acq_rel */
		break;
	case SIGNAL_RMW_OR:
		old = hsaqm_fetch_or(&s->value, v); /* acq_rel */
		break;
	case SIGNAL_RMW_XOR:
		old = hsaqm_fetch_xor(&s->value, v); /* acq_rel */
		break;
	}
	sim_signal_notify(sim, s, t);
	writer_leave(s);
	return old;
}

int64_t sim_signal_exchange(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v)
{
	return signal_rmw(sim, s, SIGNAL_RMW_EXCHANGE, v, sim_clock_now(sim));
}

int64_t sim_signal_cas(struct hsaqm_sim *sim, struct sim_signal *s, int64_t expected, int64_t v)
{
	return sim_signal_cas_at(sim, s, expected, v, sim_clock_now(sim));
}

int64_t sim_signal_cas_at(struct hsaqm_sim *sim, struct sim_signal *s, int64_t expected, int64_t v,
			  uint64_t t)
{
	int64_t e = expected;

	writer_enter(s, t);
	/* acq_rel on success; on failure nothing changed and nobody needs waking. */
	if (hsaqm_cas(&s->value, &e, v)) {
		sim_signal_notify(sim, s, t);
		e = expected;
	}
	writer_leave(s);
	return e;
}

int64_t sim_signal_add_at(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v, uint64_t t)
{
	return signal_rmw(sim, s, SIGNAL_RMW_ADD, v, t);
}

int64_t sim_signal_add(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v)
{
	return sim_signal_add_at(sim, s, v, sim_clock_now(sim));
}

int64_t sim_signal_and(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v)
{
	return signal_rmw(sim, s, SIGNAL_RMW_AND, v, sim_clock_now(sim));
}

int64_t sim_signal_or(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v)
{
	return signal_rmw(sim, s, SIGNAL_RMW_OR, v, sim_clock_now(sim));
}

int64_t sim_signal_xor(struct hsaqm_sim *sim, struct sim_signal *s, int64_t v)
{
	return signal_rmw(sim, s, SIGNAL_RMW_XOR, v, sim_clock_now(sim));
}

/* VIRTUAL: run the loop until @done() holds or the model deadline passes. */
static void vwait(struct hsaqm_sim *sim, uint64_t deadline, bool (*done)(void *), void *arg)
{
	pthread_mutex_lock(&sim->vloop_lock);
	sim_engine_enter();
	for (;;) {
		if (done(arg))
			break;
		if (sim_vloop_drain(sim))
			continue; /* handlers ran: they may have given us our value */
		if (!sim_vloop_step(sim, deadline)) {
			/* Nothing more happens before the deadline: time jumps to it (or stays, if forever). */
			if (deadline != UINT64_MAX && deadline > hsaqm_load_acquire(&sim->vnow))
				hsaqm_store_release(&sim->vnow, deadline);
			break;
		}
	}
	sim_engine_leave();
	pthread_mutex_unlock(&sim->vloop_lock);
}

struct one_wait {
	struct sim_signal *s;
	enum sim_cond cond;
	int64_t compare;
	int64_t v;
};

static bool one_done(void *arg)
{
	struct one_wait *w = arg;

	w->v = sim_signal_load(w->s);
	return sim_cond_holds(w->cond, w->v, w->compare);
}

int64_t sim_signal_wait(struct hsaqm_sim *sim, struct sim_signal *s, enum sim_cond cond,
			int64_t compare, uint64_t timeout_ns)
{
	struct one_wait w = { s, cond, compare, 0 };

	if (!sim || !s)
		return 0;
	if (one_done(&w) || timeout_ns == 0 || sim_in_engine())
		return w.v;
	uint64_t deadline = sim_clock_deadline(sim, timeout_ns);
	if (sim->mode == HSAQM_SIM_TIME_VIRTUAL) {
		vwait(sim, deadline, one_done, &w);
		return w.v;
	}

	/*
	 * acq_rel: announce a waiter; the fence below orders it before the reads (notify mirrors
	 * it).
	 */
	hsaqm_fetch_add(&s->host_waiters, 1u);
	/* Store-load: our announcement before the reads of seq and value (pairs with notify's barrier). */
	hsaqm_smp_mb();
	for (;;) {
		/* Acquire: the value read next is at least as new as this seq. */
		uint32_t seq = hsaqm_load_acquire(&s->seq);

		if (one_done(&w))
			break;
		if (deadline != UINT64_MAX && sim_clock_now(sim) >= deadline)
			break;
		/* A shared client whose device process is gone: nothing will change it. */
		if (sim_shared_lost(sim))
			break;
		sim_futex_wait(&s->seq, seq,
			       sim_shared_wait_until(sim, sim_clock_to_mono(sim, deadline)));
	}
	/*
	 * acq_rel: the waiter's reads are done before it stops being counted (destroy waits for
	 * 0).
	 */
	hsaqm_fetch_sub(&s->host_waiters, 1u);
	return w.v;
}

struct any_wait {
	uint32_t n;
	struct sim_signal *const *s;
	const enum sim_cond *conds;
	const int64_t *compares;
	uint32_t idx;
	int64_t v;
};

static bool any_done(void *arg)
{
	struct any_wait *w = arg;

	for (uint32_t i = 0; i < w->n; i++) {
		int64_t v = sim_signal_load(w->s[i]);

		if (sim_cond_holds(w->conds[i], v, w->compares[i])) {
			w->idx = i;
			w->v = v;
			return true;
		}
	}
	return false;
}

uint32_t sim_signal_wait_any(struct hsaqm_sim *sim, uint32_t n, struct sim_signal *const *s,
			     const enum sim_cond *conds, const int64_t *compares, uint64_t timeout_ns,
			     int64_t *value)
{
	struct any_wait w = { n, s, conds, compares, n, 0 };

	if (!sim || !n || !s || !conds || !compares)
		return n;
	for (uint32_t i = 0; i < n; i++)
		if (!s[i])
			return n;
	if (!any_done(&w) && timeout_ns != 0 && !sim_in_engine()) {
		uint64_t deadline = sim_clock_deadline(sim, timeout_ns);

		if (sim->mode == HSAQM_SIM_TIME_VIRTUAL) {
			vwait(sim, deadline, any_done, &w);
		} else {
			struct sim_arena_hdr *h = sim->arena.hdr;

			/*
			 * acq_rel, each: announce the epoch waiter and each signal's waiter; the
			 * fence below orders them before the value reads.
			 */
			hsaqm_fetch_add(&h->epoch_waiters, 1u);
			for (uint32_t i = 0; i < n; i++)
				hsaqm_fetch_add(&s[i]->host_waiters, 1u);
			/* Store-load: announcements before the value reads (pairs with notify). */
			hsaqm_smp_mb();
			for (;;) {
				/* Acquire: values read after it are at least as new as this epoch. */
				uint32_t e = hsaqm_load_acquire(&h->epoch);

				if (any_done(&w))
					break;
				if (deadline != UINT64_MAX && sim_clock_now(sim) >= deadline)
					break;
				if (sim_shared_lost(sim)) /* see sim_signal_wait() */
					break;
				sim_futex_wait(&h->epoch, e,
					       sim_shared_wait_until(sim, sim_clock_to_mono(sim, deadline)));
			}
			/*
			 * acq_rel, each: the reads are done before the waiter stops being
			 * counted.
			 */
			for (uint32_t i = 0; i < n; i++)
				hsaqm_fetch_sub(&s[i]->host_waiters, 1u);
			/*
			 * acq_rel: as the signals' counts above: done reading before leaving the
			 * epoch's waiters.
			 */
			hsaqm_fetch_sub(&h->epoch_waiters, 1u);
		}
	}
	if (w.idx == n && n)
		w.v = sim_signal_load(s[0]);
	if (value)
		*value = w.v;
	return w.idx;
}

/* Takes @h, known to be listed, off the handler list; the caller holds handler_lock. */
static void handler_unlink(struct hsaqm_sim *sim, struct sim_handler *h)
{
	struct sim_handler **pp = &sim->handlers;

	while (*pp != h)
		pp = &(*pp)->next;
	*pp = h->next;
}

/* A ready handler, taken off the pickable set: what its runner passes and re-arms with. */
struct handler_run {
	struct sim_handler *h;
	int64_t v;
	uint32_t seq;
};

/*
 * Mark the handlers whose condition holds as taken (dead) and fill @runs with up to @max of
 * them; the caller holds handler_lock. A handler asked to stay armed is ready again only
 * after its signal changed (so a condition that stays true does not spin a core).
 */
static unsigned int handlers_pick(struct hsaqm_sim *sim, struct handler_run *runs,
				  unsigned int max)
{
	unsigned int n = 0;

	for (struct sim_handler *h = sim->handlers; h && n < max; h = h->next) {
		if (h->dead || h->orphan)
			continue;
		/* Acquire: the value read next is at least as new as this seq. */
		uint32_t seq = hsaqm_load_acquire(&h->s->seq);
		int64_t v = sim_signal_load(h->s);

		if (h->fired && seq == h->fired_seq)
			continue;
		if (!sim_cond_holds(h->cond, v, h->compare))
			continue;
		h->dead = true; /* not picked again while it waits or runs */
		runs[n++] = (struct handler_run){ h, v, seq };
	}
	return n;
}

/* Run @r's function (no model lock held), then re-arm, unlink or free it as it asked. */
static void handler_run(struct hsaqm_sim *sim, const struct handler_run *r)
{
	struct sim_handler *h = r->h;
	bool keep = h->fn(r->v, h->arg);

	pthread_mutex_lock(&sim->handler_lock);
	if (h->orphan) {
		/* Its signal is gone (sim_signal_destroy): drop it, touch nothing. */
		handler_unlink(sim, h);
		free(h);
	} else if (keep) {
		h->dead = false;
		h->fired = true;
		h->fired_seq = r->seq;
	} else {
		handler_unlink(sim, h);
		/*
		 * acq_rel: the handler's reads of its signal are done before destroy may see no
		 * waiter.
		 */
		if (sim->mode == HSAQM_SIM_TIME_REAL)
			hsaqm_fetch_sub(&h->s->host_waiters, 1u);
		free(h);
	}
	pthread_mutex_unlock(&sim->handler_lock);
}

/* REAL mode, the handler thread: run every ready handler. Returns true if any ran. */
static bool handlers_poll(struct hsaqm_sim *sim)
{
	struct handler_run runs[16];
	bool any = false;

	for (;;) {
		pthread_mutex_lock(&sim->handler_lock);
		unsigned int nrun = handlers_pick(sim, runs, 16);
		pthread_mutex_unlock(&sim->handler_lock);
		if (!nrun)
			break;
		any = true;
		for (unsigned int i = 0; i < nrun; i++)
			handler_run(sim, &runs[i]);
	}
	return any;
}

/*
 * VIRTUAL mode. The event loop only collects ready handlers (due, with the value that made
 * them ready); sim_signal_handlers_drain() runs them once the loop is released and the
 * draining thread holds no face lock. Running them inside the loop made every handler that
 * takes a face lock an edge "loop -> face lock", and with the KFD face's "face lock -> loop"
 * (an ioctl waiting for its request) and the HSA face's "HSA lock -> KFD lock" (its KFD
 * open) a deadlock between two host threads (docs/sim.md, "Locks and callbacks").
 */
bool sim_signal_handlers_collect(struct hsaqm_sim *sim)
{
	struct handler_run runs[16];
	bool any = false;
	unsigned int n;

	pthread_mutex_lock(&sim->handler_lock);
	do {
		n = handlers_pick(sim, runs, 16);
		for (unsigned int i = 0; i < n; i++) {
			runs[i].h->due = true;
			runs[i].h->due_v = runs[i].v;
			runs[i].h->due_seq = runs[i].seq;
		}
		if (n) {
			/* acq_rel RMW: drainers read the count before taking handler_lock. */
			hsaqm_fetch_add(&sim->handlers_pending, n);
			any = true;
		}
	} while (n == 16);
	pthread_mutex_unlock(&sim->handler_lock);
	return any;
}

/* Run the due handlers, in list (registration) order; the caller holds handler_run_lock. */
static void handlers_run_due(struct hsaqm_sim *sim)
{
	struct handler_run runs[16];

	for (;;) {
		unsigned int n = 0;

		pthread_mutex_lock(&sim->handler_lock);
		for (struct sim_handler *h = sim->handlers, *next; h && n < 16; h = next) {
			next = h->next;
			if (!h->due)
				continue;
			h->due = false;
			if (h->orphan) {
				/* Its signal went while it waited: it never runs. */
				handler_unlink(sim, h);
				free(h);
				/*
				 * acq_rel: the handler is unlinked and freed before a waiter for
				 * pending handlers sees it gone.
				 */
				hsaqm_fetch_sub(&sim->handlers_pending, 1u);
				continue;
			}
			runs[n++] = (struct handler_run){ h, h->due_v, h->due_seq };
		}
		pthread_mutex_unlock(&sim->handler_lock);
		if (!n)
			break;
		for (unsigned int i = 0; i < n; i++) {
			handler_run(sim, &runs[i]);
			/* acq_rel RMW: the handler's effects before a drainer sees the drop. */
			hsaqm_fetch_sub(&sim->handlers_pending, 1u);
		}
	}
}

void sim_signal_handlers_drain(struct hsaqm_sim *sim, bool wait)
{
	if (!sim || sim->mode != HSAQM_SIM_TIME_VIRTUAL)
		return;
	for (;;) {
		/* Acquire: pairs with collect's and the runners' RMWs on the count. */
		if (!hsaqm_load_acquire(&sim->handlers_pending))
			return;
		/*
		 * One drainer at a time keeps the handlers serialized, as one handler thread
		 * (ROCr's, the model's in REAL mode) does. A waiter blocks for it (it wants the
		 * handlers' effects); anyone else leaves the work to the drainer, which looks
		 * again below.
		 */
		if (wait)
			pthread_mutex_lock(&sim->handler_run_lock);
		else if (pthread_mutex_trylock(&sim->handler_run_lock))
			return;
		/* As in the loop: a blocking model call from a handler is -EDEADLK. */
		sim_engine_enter();
		handlers_run_due(sim);
		sim_engine_leave();
		pthread_mutex_unlock(&sim->handler_run_lock);
		/*
		 * Store-load: our unlock before the re-read of the count, against "count raised,
		 * trylock failed" on another thread; one of us sees the other's write.
		 */
		hsaqm_smp_mb();
		if (wait)
			return;
	}
}

static void *handler_thread(void *arg)
{
	struct hsaqm_sim *sim = arg;
	struct sim_arena_hdr *h = sim->arena.hdr;

	/*
	 * acq_rel: announced as an epoch waiter; the fence below orders it before any value
	 * read.
	 */
	hsaqm_fetch_add(&h->epoch_waiters, 1u);
	/* Store-load: announced as an epoch waiter before reading any value. */
	hsaqm_smp_mb();
	for (;;) {
		/* Acquire: the values the poll reads are at least as new as this epoch. */
		uint32_t e = hsaqm_load_acquire(&h->epoch);

		/*
		 * Acquire: pairs with sim_signal_handlers_stop()'s release; the stopper's writes
		 * are seen.
		 */
		if (hsaqm_load_acquire(&sim->handler_stop))
			break;
		if (handlers_poll(sim))
			continue;
		sim_futex_wait(&h->epoch, e, UINT64_MAX);
	}
	/* acq_rel: this thread's reads are done before it stops being counted as a waiter. */
	hsaqm_fetch_sub(&h->epoch_waiters, 1u);
	return NULL;
}

int sim_signal_async_handler(struct hsaqm_sim *sim, struct sim_signal *s, enum sim_cond cond,
			     int64_t compare, sim_signal_handler_fn fn, void *arg)
{
	if (!sim || !s || !fn || (unsigned int)cond > SIM_COND_GTE)
		return -EINVAL;
	struct sim_handler *hd = calloc(1, sizeof(*hd));
	if (!hd)
		return -ENOMEM;
	hd->s = s;
	hd->cond = cond;
	hd->compare = compare;
	hd->fn = fn;
	hd->arg = arg;

	pthread_mutex_lock(&sim->handler_lock);
	if (sim->mode == HSAQM_SIM_TIME_REAL && !sim->handler_thread_started) {
		int err = pthread_create(&sim->handler_thread, NULL, handler_thread, sim);

		if (err) {
			pthread_mutex_unlock(&sim->handler_lock);
			free(hd);
			return -err;
		}
		sim->handler_thread_started = true;
	}
	if (sim->mode == HSAQM_SIM_TIME_REAL)
		hsaqm_fetch_add(&s->host_waiters, 1u); /* so writers bump the epoch for it */
	/* Append: handlers of one signal run in registration order. */
	struct sim_handler **pp = &sim->handlers;
	while (*pp)
		pp = &(*pp)->next;
	*pp = hd;
	pthread_mutex_unlock(&sim->handler_lock);

	if (sim->mode == HSAQM_SIM_TIME_REAL) {
		/* The condition may already hold: make the handler thread look now. */
		hsaqm_fetch_add(&sim->arena.hdr->epoch, 1u);
		sim_futex_wake(&sim->arena.hdr->epoch, INT_MAX);
	}
	return 0;
}

void sim_signal_handlers_stop(struct hsaqm_sim *sim)
{
	if (sim->handler_thread_started) {
		/*
		 * Release, then the epoch's acq_rel: the stop flag before the epoch the handler
		 * thread wakes on, so it sees the flag.
		 */
		hsaqm_store_release(&sim->handler_stop, 1u);
		hsaqm_fetch_add(&sim->arena.hdr->epoch, 1u);
		sim_futex_wake(&sim->arena.hdr->epoch, INT_MAX);
		pthread_join(sim->handler_thread, NULL);
		sim->handler_thread_started = false;
	}
	pthread_mutex_lock(&sim->handler_lock);
	while (sim->handlers) {
		struct sim_handler *h = sim->handlers;

		sim->handlers = h->next;
		free(h);
	}
	/* Due ones went with the rest: nothing is left for a drainer. */
	HSAQM_WRITE_ONCE(sim->handlers_pending, 0u);
	pthread_mutex_unlock(&sim->handler_lock);
}
