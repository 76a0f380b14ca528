// SPDX-License-Identifier: MIT
/*
 * kfd_face_event.c - the model KFD's events (amdkfd kfd_events.c, facts only): CREATE,
 * DESTROY, SET, RESET and WAIT_EVENTS, the signal events' page, and the end-of-pipe
 * interrupt that signals them.
 *
 * A signal event owns one 64-bit slot of the process's events page; its id is the slot
 * index (the KFD allocates signal ids from 0 below the page's slot count) and the CP's
 * "trigger data" is the id too. A runtime gives the page as a memory object at its first
 * signal event (libhsakmt allocates it itself) or lets the KFD allocate one and mmap()s it.
 * When a packet whose completion signal names an event completes, the CP writes the id into
 * the slot and raises an interrupt carrying the id; the KFD signals the event if the slot
 * was written (it is reset to "unsignaled", all ones, when the event is created and after).
 * Here the emulated /dev/kfd's front end plays the CP and calls
 * sim_kfd_face_signal_interrupt().
 *
 * Waits: WAIT_EVENTS sleeps on the face's condition (the face lock is the KFD's p->event_mutex
 * here) until any, or all, of its events are signaled, or the timeout (ms) passes. As in the
 * KFD, a signal goes to the waiters there are: a wait that starts on a signaled event takes
 * it (an auto-reset event is consumed then), and a signal while waits are registered on an
 * event activates every one of them and leaves an auto-reset event unsignaled; only a signal
 * nobody waits for stays for the next wait. (A flag that the first waker consumed lost the
 * signal for the others: ROCr's queue destructor sets the queue's inactive signal while its
 * async handler thread waits on that event, and then waits on the same event itself; if it
 * took the flag first, the handler slept on and the destructor waited for it for ever.) Each
 * signal bumps the event's age; a waiter that passes the age it last saw is woken at once
 * when the age moved since (1.9's fix for a signal that lands between a runtime's check and
 * its wait).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hsaqm-common/barrier.h"
#include "kfd_face_state_internal.h"
#include "hsaqm-common/log.h"

#define KFD_UNSIGNALED_SLOT UINT64_MAX
/* Non-signal events' ids (kfd_events.c KFD_FIRST_NONSIGNAL_EVENT_ID). */
#define KFD_FIRST_NONSIGNAL_ID 0x80000000u
#define KFD_MAX_NONSIGNAL 256u
#define KFD_WAIT_INFINITE 0xffffffffu

struct kfd_event {
	uint32_t id;
	uint32_t type;
	bool auto_reset;
	bool signaled;
	uint64_t age;
	uint32_t waiters; /* waits registered on it now (the KFD's waitqueue_active) */
};

struct kfd_events {
	uint64_t *page;      /* the slots */
	uint32_t nslots;
	bool page_owned;     /* the face allocated it (model memory), else a memory object's */
	struct kfd_event *signal[HSAQM_KFD_SIGNAL_EVENT_LIMIT];
	struct kfd_event *other[KFD_MAX_NONSIGNAL];
};

static struct kfd_events *events_of(struct kfd_proc *p)
{
	if (!p->ev)
		p->ev = calloc(1, sizeof(*p->ev));
	return p->ev;
}

static struct kfd_event *find_event(struct kfd_proc *p, uint32_t id)
{
	struct kfd_events *e = p->ev;

	if (!e)
		return NULL;
	if (id < HSAQM_KFD_SIGNAL_EVENT_LIMIT)
		return e->signal[id];
	if (id >= KFD_FIRST_NONSIGNAL_ID && id - KFD_FIRST_NONSIGNAL_ID < KFD_MAX_NONSIGNAL)
		return e->other[id - KFD_FIRST_NONSIGNAL_ID];
	return NULL;
}

/* The page of signal slots: the runtime's memory object, or one of the face's own. */
static int events_page(struct kfd_face *f, struct kfd_proc *p, struct kfd_events *e,
		       struct hsaqm_kfd_create_event_args *a)
{
	if (e->page)
		return 0;
	if (a->event_page_offset) {
		struct kfd_bo *bo = kfd_face_bo(p, a->event_page_offset);
		uint64_t size;
		void *mem = bo ? kfd_face_bo_mem(bo, &size) : NULL;

		/* kfd_event_page_set(): a memory object the KFD can write (VRAM/GTT). */
		if (!mem)
			return -EINVAL;
		e->page = mem;
		e->nslots = (uint32_t)(size / sizeof(uint64_t) < HSAQM_KFD_SIGNAL_EVENT_LIMIT ?
					       size / sizeof(uint64_t) :
					       HSAQM_KFD_SIGNAL_EVENT_LIMIT);
		/* Every slot unsignaled (kfd_event_page_set fills the page with ones). */
		memset(e->page, 0xff, (size_t)e->nslots * sizeof(uint64_t));
		return 0;
	}
	e->page = sim_mem_alloc(f->sim, HSAQM_KFD_SIGNAL_EVENT_LIMIT * sizeof(uint64_t),
				KFD_PAGE_SIZE);
	if (!e->page)
		return -ENOMEM;
	e->nslots = HSAQM_KFD_SIGNAL_EVENT_LIMIT;
	e->page_owned = true;
	memset(e->page, 0xff, HSAQM_KFD_SIGNAL_EVENT_LIMIT * sizeof(uint64_t));
	return 0;
}

void *kfd_face_events_page(struct kfd_proc *p, size_t *len)
{
	if (!p->ev || !p->ev->page)
		return NULL;
	if (len)
		*len = p->ev->page_owned ? HSAQM_KFD_SIGNAL_EVENT_LIMIT * sizeof(uint64_t) : 0;
	return p->ev->page;
}

int kfd_face_create_event(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_create_event_args *a = arg;
	struct kfd_events *e = events_of(p);
	struct kfd_event *ev;
	uint32_t id;
	int err;

	if (!e)
		return -ENOMEM;
	/*
	 * A page given with any event type becomes the signal page (kfd_ioctl_create_event maps
	 * it before it looks at the type: libhsakmt gives it with its first event, which may be
	 * a memory-exception event). A second one is refused, as the KFD does.
	 */
	if (a->event_page_offset) {
		if (e->page)
			return -EINVAL; /* "Event page is already set" */
		err = events_page(f, p, e, a);
		if (err)
			return err;
	}
	if (a->event_type == HSAQM_KFD_EVENT_TYPE_SIGNAL ||
	    a->event_type == HSAQM_KFD_EVENT_TYPE_DEBUG) {
		err = events_page(f, p, e, a);
		if (err)
			return err;
		for (id = 0; id < e->nslots && e->signal[id]; id++)
			;
		if (id == e->nslots)
			return -ENOSPC;
		ev = calloc(1, sizeof(*ev));
		if (!ev)
			return -ENOMEM;
		e->signal[id] = ev;
		/* Release: a reset slot before the id is handed out (a CP may write it next). */
		hsaqm_store_release(&e->page[id], KFD_UNSIGNALED_SLOT);
		/*
		 * Every signal event gets the events page's mmap offset back (kfd_event_create),
		 * whoever allocated the page: a thunk takes a non-zero offset to mean "the slot
		 * index is valid" and points the event's mailbox at it.
		 */
		a->event_page_offset = KFD_MMAP_TYPE_EVENTS;
		a->event_slot_index = id;
	} else {
		for (id = 0; id < KFD_MAX_NONSIGNAL && e->other[id]; id++)
			;
		if (id == KFD_MAX_NONSIGNAL)
			return -ENOSPC;
		ev = calloc(1, sizeof(*ev));
		if (!ev)
			return -ENOMEM;
		e->other[id] = ev;
		id += KFD_FIRST_NONSIGNAL_ID;
		a->event_page_offset = 0;
		a->event_slot_index = 0;
	}
	ev->id = id;
	ev->age = 1; /* 0 in a wait means "no age known" */
	ev->type = a->event_type;
	ev->auto_reset = a->auto_reset != 0;
	a->event_id = id;
	a->event_trigger_data = id;
	return 0;
}

int kfd_face_destroy_event(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_event_id_args *a = arg;
	struct kfd_event *ev = find_event(p, a->event_id);

	if (!ev)
		return -EINVAL;
	if (a->event_id < HSAQM_KFD_SIGNAL_EVENT_LIMIT)
		p->ev->signal[a->event_id] = NULL;
	else
		p->ev->other[a->event_id - KFD_FIRST_NONSIGNAL_ID] = NULL;
	free(ev);
	/* A waiter on it fails its wait (the KFD's destroy wakes and errors them). */
	pthread_cond_broadcast(&f->cond);
	return 0;
}

/* kfd_events.c set_event(): the waiters registered now are activated (their age moves). */
static void signal_event(struct kfd_face *f, struct kfd_event *ev)
{
	ev->signaled = !ev->auto_reset || !ev->waiters;
	ev->age++;
	if (!ev->age)
		ev->age = 1; /* 0 means "no age known" to a waiter */
	pthread_cond_broadcast(&f->cond);
}

int kfd_face_set_event(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_event_id_args *a = arg;
	struct kfd_event *ev = find_event(p, a->event_id);

	/* Only signal events may be set from user space (kfd_set_event). */
	if (!ev || ev->type != HSAQM_KFD_EVENT_TYPE_SIGNAL)
		return -EINVAL;
	signal_event(f, ev);
	return 0;
}

int kfd_face_reset_event(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_event_id_args *a = arg;
	struct kfd_event *ev = find_event(p, a->event_id);

	(void)f;
	if (!ev)
		return -EINVAL;
	ev->signaled = false;
	return 0;
}

int sim_kfd_face_signal_interrupt(struct hsaqm_sim *sim, uint32_t event_id)
{
	struct kfd_face *f = sim ? kfd_face_of(sim) : NULL;
	struct kfd_proc *p = NULL;
	struct kfd_event *ev;
	int err = 0;

	if (!f)
		return -ENODEV;
	kfd_face_lock(f);
	p = kfd_face_proc_of_caller(f);
	ev = p ? find_event(p, event_id) : NULL;
	if (!ev || event_id >= p->ev->nslots) {
		err = -ENOENT;
	} else {
		/* Acquire: the CP's slot write (the front end's release store) happened first. */
		uint64_t slot = hsaqm_load_acquire(&p->ev->page[event_id]);

		if (slot != KFD_UNSIGNALED_SLOT) {
			/* Release: the slot consumed (as the KFD resets it) before the event is set. */
			hsaqm_store_release(&p->ev->page[event_id], KFD_UNSIGNALED_SLOT);
			signal_event(f, ev);
		}
	}
	kfd_face_unlock(f);
	return err;
}

int sim_kfd_face_event_waiters(struct hsaqm_sim *sim, uint32_t event_id)
{
	struct kfd_face *f = sim ? kfd_face_of(sim) : NULL;
	struct kfd_proc *p = NULL;
	struct kfd_event *ev;
	int n;

	if (!f)
		return -ENODEV;
	kfd_face_lock(f);
	p = kfd_face_proc_of_caller(f);
	ev = p ? find_event(p, event_id) : NULL;
	n = ev ? (int)ev->waiters : -ENOENT;
	kfd_face_unlock(f);
	return n;
}

/*
 * One wait's view of one of its events (kfd_event_waiter): activated at registration by a
 * signal already there, or later by any signal (the event's age moved past @seen).
 */
struct waiter {
	struct kfd_event *ev; /* the event registered on (an id may be reused after a destroy) */
	bool activated;
	uint64_t seen;
};

/* init_event_waiter(): take a signal already there (consuming an auto-reset one), register. */
static void waiter_init(struct kfd_proc *p, const struct hsaqm_kfd_event_data *d,
			struct waiter *w)
{
	struct kfd_event *ev = find_event(p, d->event_id);

	w->activated = ev->signaled;
	if (ev->auto_reset)
		ev->signaled = false;
	/* A runtime's age from an earlier wait: a signal since then counts (the 1.9 fix). */
	if (ev->type == HSAQM_KFD_EVENT_TYPE_SIGNAL && d->last_event_age &&
	    ev->age != d->last_event_age)
		w->activated = true;
	w->seen = ev->age;
	w->ev = ev;
	ev->waiters++;
}

static bool waiter_activated(struct kfd_proc *p, const struct hsaqm_kfd_event_data *d,
			     struct waiter *w, int *gone)
{
	struct kfd_event *ev = find_event(p, d->event_id);

	if (!ev || ev != w->ev) {
		*gone = 1;
		return false;
	}
	if (ev->age != w->seen)
		w->activated = true;
	return w->activated;
}

static bool wait_done(struct kfd_proc *p, struct hsaqm_kfd_event_data *d, struct waiter *w,
		      uint32_t n, bool all, int *gone)
{
	uint32_t hit = 0;

	for (uint32_t i = 0; i < n; i++)
		hit += waiter_activated(p, &d[i], &w[i], gone);
	return all ? hit == n : hit > 0;
}

int kfd_face_wait_events(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_wait_events_args *a = arg;
	struct hsaqm_kfd_event_data *d = (void *)(uintptr_t)a->events_ptr;
	struct timespec deadline;
	struct waiter *w;
	int gone = 0;

	if (!a->num_events || a->num_events > HSAQM_KFD_SIGNAL_EVENT_LIMIT + KFD_MAX_NONSIGNAL)
		return -EINVAL;
	if (!d)
		return -EFAULT;
	for (uint32_t i = 0; i < a->num_events; i++)
		if (!find_event(p, d[i].event_id))
			return -EINVAL;
	w = calloc(a->num_events, sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->num_events; i++)
		waiter_init(p, &d[i], &w[i]);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += a->timeout / 1000;
	deadline.tv_nsec += (long)(a->timeout % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	a->wait_result = HSAQM_KFD_WAIT_TIMEOUT;
	for (;;) {
		if (wait_done(p, d, w, a->num_events, a->wait_for_all != 0, &gone)) {
			a->wait_result = HSAQM_KFD_WAIT_COMPLETE;
			break;
		}
		if (gone || p->closing) {
			a->wait_result = HSAQM_KFD_WAIT_ERROR;
			break;
		}
		if (!a->timeout)
			break;
		if (a->timeout == KFD_WAIT_INFINITE)
			pthread_cond_wait(&f->cond, &f->lock);
		else if (pthread_cond_timedwait(&f->cond, &f->lock, &deadline) == ETIMEDOUT &&
			 !wait_done(p, d, w, a->num_events, a->wait_for_all != 0, &gone))
			break;
	}
	/* Unregister (free_waiters) and hand back each signal event's age. */
	for (uint32_t i = 0; i < a->num_events; i++) {
		struct kfd_event *ev = find_event(p, d[i].event_id);

		if (!ev || ev != w[i].ev)
			continue;
		if (ev->waiters)
			ev->waiters--;
		if (ev->type == HSAQM_KFD_EVENT_TYPE_SIGNAL)
			d[i].last_event_age = ev->age;
	}
	free(w);
	return a->wait_result == HSAQM_KFD_WAIT_ERROR ? -EINVAL : 0;
}

void kfd_face_event_teardown(struct kfd_face *f, struct kfd_proc *p)
{
	struct kfd_events *e = p->ev;

	if (!e)
		return;
	for (uint32_t i = 0; i < HSAQM_KFD_SIGNAL_EVENT_LIMIT; i++)
		free(e->signal[i]);
	for (uint32_t i = 0; i < KFD_MAX_NONSIGNAL; i++)
		free(e->other[i]);
	if (e->page_owned)
		sim_mem_free(f->sim, e->page);
	free(e);
	p->ev = NULL;
}
