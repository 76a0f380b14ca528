/* SPDX-License-Identifier: MIT */
/* The test backend (t_backend.h): a FIFO ring model with gates, suspension and markers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_backend.h"

static void violation(struct t_bq *bq, const char *fmt, ...)
{
	va_list ap;

	if (bq->violations++ == 0) {
		va_start(ap, fmt);
		vsnprintf(bq->first_violation, sizeof(bq->first_violation), fmt, ap);
		va_end(ap);
		fprintf(stderr, "t_backend: contract violation: %s\n", bq->first_violation);
	}
}

void t_bq_init(struct t_bq *bq, int max_level)
{
	memset(bq, 0, sizeof(*bq));
	pthread_mutex_init(&bq->lock, NULL);
	bq->max_level = max_level;
	snprintf(bq->max_why, sizeof(bq->max_why), "test backend limited to %d", max_level);
}

void t_bq_fini(struct t_bq *bq)
{
	free(bq->ring);
	pthread_mutex_destroy(&bq->lock);
}

static void ring_push(struct t_bq *bq, uint8_t kind, uint64_t val, uint64_t cover)
{
	if (bq->tail == bq->alloc) {
		/* Drop what has run, then grow. */
		uint64_t live = bq->tail - bq->head;

		if (live && bq->head)
			memmove(bq->ring, bq->ring + bq->head, live * sizeof(*bq->ring));
		bq->tail = live;
		bq->head = 0;
		if (bq->tail == bq->alloc) {
			bq->alloc = bq->alloc ? bq->alloc * 2 : 256;
			bq->ring = realloc(bq->ring, bq->alloc * sizeof(*bq->ring));
			if (!bq->ring)
				abort();
		}
	}
	bq->ring[bq->tail++] = (struct t_entry){ .kind = kind, .val = val, .cover = cover };
}

static int t_release(void *p, const struct hsaqm_release *rel)
{
	struct t_bq *bq = p;
	uint64_t guards = 0, need;
	int rc = 0;

	pthread_mutex_lock(&bq->lock);
	bq->n_release++;
	if (bq->detached)
		violation(bq, "release after detached");
	if (rel->first != bq->released)
		violation(bq, "release starts at %llu, %llu released so far",
			  (unsigned long long)rel->first, (unsigned long long)bq->released);
	if (bq->released + rel->n > bq->submitted)
		violation(bq, "release of %u beyond submitted (%llu released of %llu)", rel->n,
			  (unsigned long long)bq->released, (unsigned long long)bq->submitted);
	if (rel->n == 0 && rel->flags != HSAQM_RELEASE_MARKER)
		violation(bq, "release of 0 packets with flags %#x", rel->flags);
	if (rel->flags & ~(uint32_t)(HSAQM_RELEASE_GUARDED | HSAQM_RELEASE_MARKER))
		violation(bq, "unknown release flags %#x", rel->flags);
	if (rel->flags & HSAQM_RELEASE_GUARDED) {
		if (rel->guard_interval == 0 || rel->guard_skip >= rel->guard_interval)
			violation(bq, "guard interval %u skip %u", rel->guard_interval, rel->guard_skip);
		else if (rel->n > rel->guard_skip)
			guards = (rel->n - rel->guard_skip + rel->guard_interval - 1) / rel->guard_interval;
	}
	if ((rel->flags & HSAQM_RELEASE_MARKER) && rel->marker_seq != bq->marker_seq + 1)
		violation(bq, "marker %llu after %llu", (unsigned long long)rel->marker_seq,
			  (unsigned long long)bq->marker_seq);
	need = rel->n + guards + ((rel->flags & HSAQM_RELEASE_MARKER) ? 1 : 0);
	if (bq->release_err) {
		rc = bq->release_err;
		goto out;
	}
	if (bq->eagain_next > 0 || (bq->ring_cap && bq->tail - bq->head + need > bq->ring_cap)) {
		if (bq->eagain_next > 0)
			bq->eagain_next--;
		bq->n_eagain++;
		rc = -EAGAIN;
		goto out;
	}
	if (bq->lv1_bound && bq->released + rel->n - bq->covered_done > bq->lv1_bound)
		violation(bq, "lv1 bound %u exceeded: %llu in flight", bq->lv1_bound,
			  (unsigned long long)(bq->released + rel->n - bq->covered_done));
	for (uint32_t i = 0; i < rel->n; i++) {
		if ((rel->flags & HSAQM_RELEASE_GUARDED) && i >= rel->guard_skip &&
		    (i - rel->guard_skip) % rel->guard_interval == 0) {
			ring_push(bq, T_GUARD, 0, 0);
			bq->guards++;
		}
		ring_push(bq, T_KERNEL, bq->released + i, 0);
	}
	bq->released += rel->n;
	if (rel->flags & HSAQM_RELEASE_MARKER) {
		ring_push(bq, T_MARKER, rel->marker_seq, bq->released);
		bq->marker_seq = rel->marker_seq;
		bq->markers++;
	}
	bq->last_flags = rel->flags;
	bq->last_interval = rel->guard_interval;
out:
	pthread_mutex_unlock(&bq->lock);
	return rc;
}

static int t_gate_close(void *p)
{
	struct t_bq *bq = p;
	int rc;

	pthread_mutex_lock(&bq->lock);
	if (bq->detached)
		violation(bq, "gate_close after detached");
	rc = bq->gate_close_err;
	if (!rc) {
		bq->gate_closed = true;
		bq->ran_after_close = 0;
		bq->n_gate_close++;
	}
	pthread_mutex_unlock(&bq->lock);
	return rc;
}

static int t_gate_open(void *p)
{
	struct t_bq *bq = p;
	int rc;

	pthread_mutex_lock(&bq->lock);
	if (bq->detached)
		violation(bq, "gate_open after detached");
	rc = bq->gate_open_err;
	if (!rc) {
		bq->gate_closed = false;
		bq->n_gate_open++;
	}
	pthread_mutex_unlock(&bq->lock);
	return rc;
}

static int t_suspend(void *p)
{
	struct t_bq *bq = p;
	int rc;

	pthread_mutex_lock(&bq->lock);
	if (bq->detached)
		violation(bq, "suspend after detached");
	if (bq->suspended)
		violation(bq, "suspend of a suspended queue");
	rc = bq->suspend_err;
	if (!rc) {
		bq->suspended = true;
		bq->n_suspend++;
	}
	pthread_mutex_unlock(&bq->lock);
	return rc;
}

static int t_resume(void *p)
{
	struct t_bq *bq = p;
	int rc;

	pthread_mutex_lock(&bq->lock);
	if (bq->detached)
		violation(bq, "resume after detached");
	if (!bq->suspended)
		violation(bq, "resume of a queue not suspended");
	rc = bq->resume_err;
	if (!rc) {
		bq->suspended = false;
		bq->n_resume++;
	}
	pthread_mutex_unlock(&bq->lock);
	return rc;
}

static int t_max_level(void *p, char *why, uint32_t len)
{
	struct t_bq *bq = p;
	int level;

	pthread_mutex_lock(&bq->lock);
	snprintf(why, len, "%s", bq->max_why);
	level = bq->max_level;
	pthread_mutex_unlock(&bq->lock);
	return level;
}

static void t_detached(void *p)
{
	struct t_bq *bq = p;

	pthread_mutex_lock(&bq->lock);
	if (bq->detached)
		violation(bq, "detached twice");
	if (bq->gate_closed)
		violation(bq, "detached with the gate closed");
	if (bq->suspended)
		violation(bq, "detached while suspended");
	if (bq->confined)
		violation(bq, "detached while confined to part of the CUs");
	bq->detached = true;
	pthread_mutex_unlock(&bq->lock);
}

static int t_cu_confine(void *p, uint32_t reserve)
{
	struct t_bq *bq = p;
	int rc;

	pthread_mutex_lock(&bq->lock);
	if (bq->detached)
		violation(bq, "cu_confine after detached");
	if (reserve > 999)
		violation(bq, "cu_confine with a reserve of %u permille", reserve);
	rc = bq->confine_err;
	if (!rc) {
		bq->confined = reserve;
		bq->n_confine++;
	}
	pthread_mutex_unlock(&bq->lock);
	return rc;
}

static int t_mechanism(void *p, char *why, uint32_t len)
{
	struct t_bq *bq = p;
	int m;

	pthread_mutex_lock(&bq->lock);
	if (why && len)
		snprintf(why, len, "%s", bq->mech_why);
	m = bq->mech ? bq->mech : HSAQM_MECH_DBG_TRAP;
	pthread_mutex_unlock(&bq->lock);
	return m;
}

static bool wait_blocks(const struct t_bq *bq, const struct t_entry *e)
{
	if (!bq->wait_set || e->kind != T_KERNEL || e->val != bq->wait_index)
		return false;
	return bq->wait_on ? bq->wait_on->ran < bq->wait_upto : !bq->wait_host_done;
}

/* The packet processor stands at the waiting packet (open guardians in front are passed). */
static int t_head_waits(void *q)
{
	struct t_bq *bq = q;
	int waits = 0;

	pthread_mutex_lock(&bq->lock);
	for (uint64_t i = bq->head; i < bq->tail; i++) {
		const struct t_entry *e = &bq->ring[i];

		if (e->kind == T_GUARD && !bq->gate_closed)
			continue;
		waits = !bq->suspended && wait_blocks(bq, e);
		break;
	}
	pthread_mutex_unlock(&bq->lock);
	return waits;
}

int t_bq_wait(struct t_bq *bq, uint64_t index, struct t_bq *on, uint64_t upto)
{
	struct hsaqm_dep dep = { .index = index, .upto = upto };

	pthread_mutex_lock(&bq->lock);
	bq->wait_set = true;
	bq->wait_index = index;
	bq->wait_on = on;
	bq->wait_upto = upto;
	bq->wait_host_done = false;
	pthread_mutex_unlock(&bq->lock);
	dep.on_id = on ? hsaqm_xq_get_id(on->xq) : 0;
	return hsaqm_xq_depend(bq->xq, &dep);
}

const struct hsaqm_backend_ops t_backend_ops_spatial = {
	.release = t_release,
	.gate_close = t_gate_close,
	.gate_open = t_gate_open,
	.suspend = t_suspend,
	.resume = t_resume,
	.max_level = t_max_level,
	.detached = t_detached,
	.mechanism = t_mechanism,
	.cu_confine = t_cu_confine,
	.head_waits = t_head_waits,
};

const struct hsaqm_backend_ops t_backend_ops = {
	.release = t_release,
	.gate_close = t_gate_close,
	.gate_open = t_gate_open,
	.suspend = t_suspend,
	.resume = t_resume,
	.max_level = t_max_level,
	.detached = t_detached,
	.head_waits = t_head_waits,
};

int t_bq_submit(struct t_bq *bq, uint64_t n)
{
	uint64_t end;

	pthread_mutex_lock(&bq->lock);
	bq->submitted += n;
	end = bq->submitted;
	pthread_mutex_unlock(&bq->lock);
	return hsaqm_xq_submitted(bq->xq, end);
}

uint64_t t_bq_run(struct t_bq *bq, uint64_t max_kernels)
{
	uint64_t ran = 0;

	pthread_mutex_lock(&bq->lock);
	while (bq->head < bq->tail && !bq->suspended) {
		struct t_entry e = bq->ring[bq->head];

		if (e.kind == T_GUARD) {
			if (bq->gate_closed)
				break;
			bq->head++;
		} else if (e.kind == T_KERNEL) {
			if (ran == max_kernels || wait_blocks(bq, &e))
				break;
			if (e.val != bq->ran)
				violation(bq, "kernel %llu ran after %llu", (unsigned long long)e.val,
					  (unsigned long long)bq->ran);
			bq->head++;
			bq->ran++;
			bq->ran_after_close++;
			ran++;
		} else {
			bq->head++;
			if (e.val != bq->marker_done + 1)
				violation(bq, "marker %llu done after %llu", (unsigned long long)e.val,
					  (unsigned long long)bq->marker_done);
			bq->marker_done = e.val;
			bq->covered_done = e.cover;
			/* A detached queue's handle is gone: the backend no longer reports. */
			if (bq->detached)
				continue;
			/* lib takes its device lock and may call release(): never under ours. */
			pthread_mutex_unlock(&bq->lock);
			int rc = hsaqm_xq_marker_done(bq->xq, e.val);
			pthread_mutex_lock(&bq->lock);
			if (rc)
				violation(bq, "hsaqm_xq_marker_done(%llu) returned %d",
					  (unsigned long long)e.val, rc);
		}
	}
	pthread_mutex_unlock(&bq->lock);
	return ran;
}

uint64_t t_bq_pending(struct t_bq *bq)
{
	uint64_t n;

	pthread_mutex_lock(&bq->lock);
	n = bq->released - bq->ran;
	pthread_mutex_unlock(&bq->lock);
	return n;
}

void t_bq_snapshot(struct t_bq *bq, struct t_bq *copy)
{
	pthread_mutex_lock(&bq->lock);
	*copy = *bq;
	pthread_mutex_unlock(&bq->lock);
}

/* -- helpers shared by the lib tests ------------------------------------------------- */

#include "xq_internal.h"

uint64_t t_clock_ns;

static uint64_t t_clock(void *arg)
{
	(void)arg;
	return __atomic_load_n(&t_clock_ns, __ATOMIC_RELAXED);
}

struct hsaqm_ctx *t_ctx_manual(void)
{
	struct hsaqm_ctx_opts opts = { .clock = t_clock };
	struct hsaqm_ctx *ctx = NULL;

	__atomic_store_n(&t_clock_ns, 1000000000ull, __ATOMIC_RELAXED);
	if (hsaqm_ctx_create_opts(&ctx, &opts))
		abort();
	return ctx;
}

uint64_t t_clock_set(struct hsaqm_ctx *ctx, uint64_t now_ns)
{
	__atomic_store_n(&t_clock_ns, now_ns, __ATOMIC_RELAXED);
	return hsaqm_ctx_timer_poll(ctx);
}

struct hsaqm_xq *t_bq_attach(struct hsaqm_ctx *ctx, struct t_bq *bq, uint32_t device,
			     int priority, enum hsaqm_level level)
{
	struct hsaqm_xq_config cfg = { .device = device, .priority = priority, .level = level };

	if (hsaqm_xq_attach(ctx, &cfg, &t_backend_ops, bq, &bq->xq))
		return NULL;
	return bq->xq;
}

void t_bq_run_all(struct t_bq **bqs, int n)
{
	uint64_t ran;

	do {
		ran = 0;
		for (int i = 0; i < n; i++) {
			uint64_t before = bqs[i]->marker_done;

			ran += t_bq_run(bqs[i], UINT64_MAX);
			ran += bqs[i]->marker_done != before;
		}
	} while (ran);
}

enum hsaqm_xq_state t_state(struct hsaqm_xq *xq)
{
	struct hsaqm_xq_info info;

	if (hsaqm_xq_get_info(xq, &info))
		return (enum hsaqm_xq_state)-1;
	return info.state;
}
