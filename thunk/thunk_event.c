/* SPDX-License-Identifier: MIT */
/*
 * KFD events of the libhsakmt face. A signal event has an id and a mailbox slot (HWData2,
 * HWData1 = id), which ROCr copies into an interrupt signal's amd_signal_t; the face's
 * translator, completing a packet whose completion signal names a mailbox, writes the id
 * there and fires the event, as the CP's end-of-pipe interrupt makes the KFD do.
 *
 * Semantics (amdkfd kfd_events.c): an auto-reset event stays signaled until a wait consumes
 * it; a wait that returns resets the auto-reset events it saw signaled. Waits sleep on one
 * condition variable; a wait that is about to sleep first kicks the translator, so doorbells
 * rung just before a blocking wait are seen without waiting for the next poll.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hsaqm/barrier.h"
#include "log_internal.h"
#include "thunk_internal.h"

/* KFD_SIGNAL_EVENT_LIMIT: the events page holds 4096 8-byte slots (amdkfd kfd_events.c). */
#define THUNK_EVENTS 4096u

struct thunk_ev {
	HsaEvent pub; /* first: ROCr holds &pub */
	bool used;
	bool manual_reset;
	bool signaled;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool cond_ready;
	struct thunk_ev ev[THUNK_EVENTS];
	/* The events page: mailbox slot i belongs to event id i. */
	uint64_t mailbox[THUNK_EVENTS];
	uint32_t next_id;
} evs = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Called with evs.lock held. */
static void cond_init(void)
{
	pthread_condattr_t a;

	if (evs.cond_ready)
		return;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&evs.cond, &a);
	pthread_condattr_destroy(&a);
	evs.cond_ready = true;
}

static struct thunk_ev *from_pub(HsaEvent *e)
{
	uintptr_t p = (uintptr_t)e, base = (uintptr_t)evs.ev;

	if (!e || p < base || p >= base + sizeof(evs.ev) || (p - base) % sizeof(evs.ev[0]))
		return NULL;
	return (struct thunk_ev *)e;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtCreateEvent(HsaEventDescriptor *desc, bool manual_reset,
					  bool signaled, HsaEvent **out)
{
	if (!desc || !out)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	if (!thunk_sim())
		return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	pthread_mutex_lock(&evs.lock);
	cond_init();
	/* Ids from 1: ROCr reads event id 0 with a NULL mailbox as "no event". */
	for (uint32_t k = 0; k < THUNK_EVENTS - 1; k++) {
		uint32_t id = 1 + (evs.next_id + k) % (THUNK_EVENTS - 1);
		struct thunk_ev *e = &evs.ev[id];

		if (e->used)
			continue;
		memset(e, 0, sizeof(*e));
		e->used = true;
		e->manual_reset = manual_reset;
		e->signaled = signaled;
		e->pub.EventId = id;
		e->pub.EventData.EventType = desc->EventType;
		e->pub.EventData.HWData1 = id;
		if (desc->EventType == HSA_EVENTTYPE_SIGNAL) {
			evs.mailbox[id] = 0;
			e->pub.EventData.HWData2 = (HSAuint64)(uintptr_t)&evs.mailbox[id];
		}
		evs.next_id = id;
		*out = &e->pub;
		pthread_mutex_unlock(&evs.lock);
		return HSAKMT_STATUS_SUCCESS;
	}
	pthread_mutex_unlock(&evs.lock);
	return HSAKMT_STATUS_OUT_OF_RESOURCES;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyEvent(HsaEvent *pub)
{
	struct thunk_ev *e = from_pub(pub);

	if (!e)
		return HSAKMT_STATUS_INVALID_HANDLE;
	pthread_mutex_lock(&evs.lock);
	e->used = false;
	pthread_mutex_unlock(&evs.lock);
	return HSAKMT_STATUS_SUCCESS;
}

static HSAKMT_STATUS set_state(HsaEvent *pub, bool signaled)
{
	struct thunk_ev *e = from_pub(pub);

	if (!e)
		return HSAKMT_STATUS_INVALID_HANDLE;
	pthread_mutex_lock(&evs.lock);
	e->signaled = signaled;
	if (signaled && evs.cond_ready)
		pthread_cond_broadcast(&evs.cond);
	pthread_mutex_unlock(&evs.lock);
	return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetEvent(HsaEvent *pub)
{
	return set_state(pub, true);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtResetEvent(HsaEvent *pub)
{
	return set_state(pub, false);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtQueryEventState(HsaEvent *pub)
{
	struct thunk_ev *e = from_pub(pub);
	bool s;

	if (!e)
		return HSAKMT_STATUS_INVALID_HANDLE;
	pthread_mutex_lock(&evs.lock);
	s = e->signaled;
	pthread_mutex_unlock(&evs.lock);
	return s ? HSAKMT_STATUS_SUCCESS : HSAKMT_STATUS_WAIT_TIMEOUT;
}

void thunk_event_fire(uint64_t mailbox, uint32_t id)
{
	/* Only the face's own events page: a foreign address is never written. */
	if (id == 0 || id >= THUNK_EVENTS || mailbox != (uint64_t)(uintptr_t)&evs.mailbox[id])
		return;
	/* Release: what completed before the event before the id in its mailbox. */
	hsaqm_store_release(&evs.mailbox[id], (uint64_t)id);
	pthread_mutex_lock(&evs.lock);
	if (evs.ev[id].used) {
		evs.ev[id].signaled = true;
		if (evs.cond_ready)
			pthread_cond_broadcast(&evs.cond);
	}
	pthread_mutex_unlock(&evs.lock);
}

void thunk_event_interrupt(uint32_t id)
{
	if (id == 0 || id >= THUNK_EVENTS)
		return;
	pthread_mutex_lock(&evs.lock);
	if (evs.ev[id].used) {
		evs.ev[id].signaled = true;
		if (evs.cond_ready)
			pthread_cond_broadcast(&evs.cond);
	}
	pthread_mutex_unlock(&evs.lock);
}

bool thunk_event_page(const void *p, uint64_t len)
{
	uintptr_t a = (uintptr_t)p, base = (uintptr_t)evs.mailbox;

	return a >= base && len <= sizeof(evs.mailbox) && a - base <= sizeof(evs.mailbox) - len;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnMultipleEvents(HsaEvent *pubs[], HSAuint32 n, bool all,
						   HSAuint32 ms)
{
	struct timespec deadline;
	bool kicked = false;

	if (!pubs || !n)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	for (HSAuint32 i = 0; i < n; i++)
		if (!from_pub(pubs[i]))
			return HSAKMT_STATUS_INVALID_HANDLE;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += ms / 1000;
	deadline.tv_nsec += (long)(ms % 1000) * 1000000l;
	if (deadline.tv_nsec >= 1000000000l) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000l;
	}
	pthread_mutex_lock(&evs.lock);
	cond_init();
	for (;;) {
		HSAuint32 nsig = 0;

		for (HSAuint32 i = 0; i < n; i++)
			nsig += ((struct thunk_ev *)pubs[i])->signaled;
		if (all ? nsig == n : nsig > 0) {
			for (HSAuint32 i = 0; i < n; i++) {
				struct thunk_ev *e = (struct thunk_ev *)pubs[i];

				if (e->signaled && !e->manual_reset)
					e->signaled = false;
			}
			pthread_mutex_unlock(&evs.lock);
			return HSAKMT_STATUS_SUCCESS;
		}
		if (ms == 0)
			break;
		if (!kicked) {
			/* Outside the lock: the translator's completions take it. */
			pthread_mutex_unlock(&evs.lock);
			thunk_translator_kick();
			kicked = true;
			pthread_mutex_lock(&evs.lock);
			continue;
		}
		if (ms == HSA_EVENTTIMEOUT_INFINITE) {
			pthread_cond_wait(&evs.cond, &evs.lock);
		} else if (pthread_cond_timedwait(&evs.cond, &evs.lock, &deadline) == ETIMEDOUT) {
			ms = 0; /* one last look, then time out */
		}
	}
	pthread_mutex_unlock(&evs.lock);
	return HSAKMT_STATUS_WAIT_TIMEOUT;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEvent(HsaEvent *pub, HSAuint32 ms)
{
	return hsaKmtWaitOnMultipleEvents(&pub, 1, true, ms);
}

void thunk_event_fini(void)
{
	pthread_mutex_lock(&evs.lock);
	for (uint32_t i = 0; i < THUNK_EVENTS; i++)
		evs.ev[i].used = false;
	pthread_mutex_unlock(&evs.lock);
}
