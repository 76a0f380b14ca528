// SPDX-License-Identifier: MIT
/*
 * safety.c - nothing the probe stops stays stopped, or masked. A check registers a hold before
 * the call that stops a queue (DBG_TRAP suspend, UPDATE_QUEUE 0 %) or shrinks its CU mask, and
 * releases it after the one that undoes it; cleanup and an atexit handler undo whatever is
 * still registered.
 *
 * Signals only set a flag. Restarting a queue from a signal handler is not possible safely:
 * the KFD call may need a lock the interrupted thread holds (the model's face does), and a
 * queue must also outlive the restart to be destroyed. So every wait of a check is a short
 * sleep that looks at the flag, and a check that sees it unwinds through its normal cleanup.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe_internal.h"

#define MAX_HOLDS 16

static pthread_mutex_t holds_lock = PTHREAD_MUTEX_INITIALIZER;
static struct probe_hold *holds[MAX_HOLDS];
static pthread_once_t atexit_once = PTHREAD_ONCE_INIT;

static volatile sig_atomic_t interrupted_sig;
static volatile sig_atomic_t extra_signals;

static void release_at_exit(void)
{
	probe_hold_release_all();
}

static void install_atexit(void)
{
	atexit(release_at_exit);
}

void probe_hold_register(struct probe_hold *h)
{
	pthread_once(&atexit_once, install_atexit);
	pthread_mutex_lock(&holds_lock);
	h->active = true;
	for (unsigned int i = 0; i < MAX_HOLDS; i++) {
		if (!holds[i]) {
			holds[i] = h;
			break;
		}
	}
	pthread_mutex_unlock(&holds_lock);
}

void probe_hold_forget(struct probe_hold *h)
{
	pthread_mutex_lock(&holds_lock);
	h->active = false;
	for (unsigned int i = 0; i < MAX_HOLDS; i++)
		if (holds[i] == h)
			holds[i] = NULL;
	pthread_mutex_unlock(&holds_lock);
}

static int restart(struct probe_hold *h)
{
	if (h->kind == PROBE_HOLD_CU_MASK) {
		uint32_t all[32];
		uint32_t words = h->cu_words && h->cu_words <= 32 ? h->cu_words : 32;

		/* Every CU again (bits past the GPU's CUs are dropped by the runtime). */
		memset(all, 0xff, sizeof(all));
		hsaqm_hsa_status_t st = h->cu_set_mask(h->hsa_queue, words * 32, all);

		return st && st != HSAQM_HSA_STATUS_CU_MASK_REDUCED ? -EIO : 0;
	}
	if (h->kind == PROBE_HOLD_DBG) {
		uint32_t ids[9] = { h->queue_id };
		uint32_t k = h->nothers <= 8 ? h->nothers : 8;

		memcpy(ids + 1, h->others, k * sizeof(uint32_t));
		int n = hsaqm_kfd_dbg_resume_queues(h->kfd, ids, 1 + k);

		if (n < 0)
			return n;
		/* An INVALID entry means the queue is gone (or never was suspended by us). */
		if (hsaqm_kfd_dbg_entry_status(ids[0]) == HSAQM_KFD_DBG_ENTRY_ERROR)
			return -EIO;
		return 0;
	}
	return hsaqm_kfd_queue_update(h->kfd, h->queue_id, h->ring_base, h->ring_bytes, 100,
				      h->priority);
}

int probe_hold_release(struct probe_hold *h)
{
	int err = 0;

	pthread_mutex_lock(&holds_lock);
	if (h->active) {
		err = restart(h);
		/* A failed restart stays registered: cleanup and exit try again. */
		if (!err) {
			h->active = false;
			for (unsigned int i = 0; i < MAX_HOLDS; i++)
				if (holds[i] == h)
					holds[i] = NULL;
		}
	}
	pthread_mutex_unlock(&holds_lock);
	return err;
}

int probe_hold_release_all(void)
{
	int failures = 0;

	pthread_mutex_lock(&holds_lock);
	for (unsigned int i = 0; i < MAX_HOLDS; i++) {
		struct probe_hold *h = holds[i];

		if (!h)
			continue;
		if (h->active && restart(h)) {
			failures++;
			continue;
		}
		h->active = false;
		holds[i] = NULL;
	}
	pthread_mutex_unlock(&holds_lock);
	return failures;
}

static void on_signal(int sig)
{
	if (interrupted_sig)
		extra_signals = extra_signals + 1;
	else
		interrupted_sig = sig;
}

int hsaqm_probe_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocking wait should come back and look at the flag. */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	return 0;
}

int hsaqm_probe_interrupted(void)
{
	return interrupted_sig;
}

void hsaqm_probe_interrupt_reset(void)
{
	interrupted_sig = 0;
	extra_signals = 0;
}

uint64_t probe_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool probe_sleep_ns(uint64_t ns)
{
	const uint64_t step = 5000000; /* 5 ms: how late an interrupt may be noticed */
	uint64_t end = probe_now_ns() + ns;

	for (;;) {
		if (interrupted_sig)
			return false;
		uint64_t now = probe_now_ns();
		if (now >= end)
			return true;
		uint64_t d = end - now < step ? end - now : step;
		struct timespec ts = { .tv_sec = (time_t)(d / 1000000000ull),
				       .tv_nsec = (long)(d % 1000000000ull) };
		nanosleep(&ts, NULL);
	}
}
