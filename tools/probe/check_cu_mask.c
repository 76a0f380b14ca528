// SPDX-License-Identifier: MIT
/*
 * check_cu_mask.c - the spatial check: whether, and how fast, shrinking a running queue's CU
 * mask (hsa_amd_queue_cu_set_mask: public, no debugger, no KFD queue id) frees CUs for another
 * queue in the middle of a running kernel. hsaqm's spatial fallback keeps a share of the CUs
 * for high-priority work this way when Lv3 is unavailable (docs/lib.md, "Spatial").
 *
 * Per trial: the low queue runs the spin kernel on every wave slot of the GPU; a quarter in,
 * the high queue gets a kernel of one workgroup per reserved CU (a quarter of the CUs), which
 * cannot start (no slot is free); then the low queue's mask shrinks to the other CUs.
 *   mask_effect     from the mask call to the high kernel's workgroups running (its end less
 *                   its unstopped length), runtime clock: how fast the reserve is free;
 *   reserve_kept    a second high kernel submitted once the first ended: from its submission
 *                   to its workgroups running. Small when the low queue's waves stay off the
 *                   reserved CUs (the mask held), about a low workgroup's rest when they came
 *                   back;
 *   mask_call       the mask call itself (runtime clock), and mask_call_host (host clock).
 * Then the low queue's mask is restored, and both kernels' results are checked: nothing lost.
 * On HWS the KFD applies a mask with the same unmap of every queue of the device as
 * UPDATE_QUEUE (kfd_chardev.c set_cu_mask -> pqm_update_mqd -> the dqm's update_queue), so the
 * check is refused on a GPU other processes use, like the stop checks, unless --force.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_internal.h"

#define MS 1000000ull
#define MAX_MASK_WORDS 32u /* 1024 CUs */

/* The high queue: its own queue, kernel arguments, results and completion signal. */
struct high {
	struct probe_queue q;
	bool have_q;
	struct probe_spin_args *args;
	uint32_t *out;
	struct hsaqm_hsa_signal done;
	bool have_done;
	uint32_t nwg;      /* one per reserved CU */
	uint64_t plain_ns; /* its unstopped length on an idle GPU */
};

static bool high_open(struct probe_session *s, struct high *h)
{
	struct probe_ctx *c = s->c;
	char why[256] = "";

	h->nwg = s->g->cu_count / 4 ? s->g->cu_count / 4 : 1;
	h->args = probe_hsa_alloc(&c->hsa, s->agent, s->kern.kernarg_size, true);
	h->out = probe_hsa_alloc(&c->hsa, s->agent,
				 (size_t)h->nwg * PROBE_SPIN_WG_SIZE * sizeof(uint32_t), true);
	if (!h->args || !h->out || c->hsa.signal_create(1, 0, NULL, &h->done)) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_memory", "",
				  "no memory or signal for the second queue");
		return false;
	}
	h->have_done = true;
	if (probe_queue_create(c, s->agent, s->g, 64, &h->q, why, sizeof(why))) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "queue_create_failed", "",
				  "the second queue: %s", why);
		return false;
	}
	h->have_q = true;
	if (h->q.hsa_queue && c->hsa.set_profiler_enabled)
		c->hsa.set_profiler_enabled(h->q.hsa_queue, 1);
	return true;
}

static void high_close(struct probe_session *s, struct high *h)
{
	struct probe_ctx *c = s->c;

	if (h->have_q)
		probe_queue_destroy(c, &h->q);
	if (h->have_done)
		c->hsa.signal_destroy(h->done);
	probe_hsa_free(&c->hsa, h->args);
	probe_hsa_free(&c->hsa, h->out);
}

static int high_launch(struct probe_session *s, struct high *h, uint32_t seed)
{
	struct probe_ctx *c = s->c;

	*h->args = (struct probe_spin_args){ .out = (uint64_t)(uintptr_t)h->out, .iters = s->iters,
					     .seed = seed, .wg_size = PROBE_SPIN_WG_SIZE };
	c->hsa.signal_store(h->done, 1);
	return probe_queue_dispatch(c, &h->q, &s->kern, h->nwg, h->args, h->done);
}

/* When the high kernel's workgroups started: its end less its unstopped length. */
static int high_started(struct probe_session *s, struct high *h, uint64_t *at)
{
	uint64_t st, en;
	int err = probe_dispatch_times(s->c, s->agent, h->done, &st, &en);

	if (!err)
		*at = en > h->plain_ns ? en - h->plain_ns : 0;
	return err;
}

/* The high kernel's length alone on the GPU, from its dispatch timestamps. */
static int high_plain(struct probe_session *s, struct high *h)
{
	struct probe_ctx *c = s->c;
	uint64_t t0 = probe_clock(c), st, en;
	int err = high_launch(s, h, 3);

	if (err)
		return err;
	err = probe_wait(c, h->done, t0 + 10000 * MS);
	if (err != 1)
		return err == -EINTR ? -EINTR : -ETIMEDOUT;
	err = probe_dispatch_times(c, s->agent, h->done, &st, &en);
	if (!err)
		h->plain_ns = en - st;
	return err;
}

static uint32_t wrong_results(const uint32_t *out, uint32_t nwg, uint32_t seed, uint32_t iters)
{
	uint32_t wrong = 0;

	for (uint32_t i = 0; i < nwg * PROBE_SPIN_WG_SIZE; i++)
		if (out[i] != probe_lcg_jump(seed ^ i, iters))
			wrong++;
	return wrong;
}

/* The mask of every CU but the first @reserve of @ncu, in 32-bit words. */
static uint32_t mask_words(uint32_t ncu, uint32_t reserve, uint32_t *m)
{
	uint32_t words = (ncu + 31) / 32;

	if (words > MAX_MASK_WORDS)
		words = MAX_MASK_WORDS;
	memset(m, 0, MAX_MASK_WORDS * sizeof(*m));
	for (uint32_t cu = reserve; cu < ncu && cu < words * 32; cu++)
		m[cu / 32] |= 1u << (cu % 32);
	return words;
}

struct cu_trial {
	uint64_t effect, kept, call, call_host;
	uint32_t wrong;
	bool ok;
};

/* The low queue confined to the non-reserved CUs, held in the safety registry. */
static int confine(struct probe_session *s, struct cu_trial *t, uint64_t *at)
{
	struct probe_ctx *c = s->c;
	uint32_t m[MAX_MASK_WORDS];
	uint32_t words = mask_words(s->g->cu_count, s->g->cu_count / 4 ? s->g->cu_count / 4 : 1, m);

	s->hold = (struct probe_hold){ .kind = PROBE_HOLD_CU_MASK, .cu_set_mask = c->hsa.cu_set_mask,
				       .hsa_queue = s->q.hsa_queue, .cu_words = words };
	probe_hold_register(&s->hold);
	uint64_t h0 = probe_now_ns();
	*at = probe_clock(c);
	hsaqm_hsa_status_t st = c->hsa.cu_set_mask(s->q.hsa_queue, words * 32, m);
	t->call = probe_clock(c) - *at;
	t->call_host = probe_now_ns() - h0;
	/* CU_MASK_REDUCED: bits past the GPU's CUs were dropped, the mask is set (ROCr). */
	if (st && st != HSAQM_HSA_STATUS_CU_MASK_REDUCED) {
		probe_hold_forget(&s->hold);
		return -EIO;
	}
	return 0;
}

static int cu_trial(struct probe_session *s, struct high *h, uint32_t seed, struct cu_trial *t)
{
	struct probe_ctx *c = s->c;
	uint64_t p = 0, started, sub;
	int err;

	memset(t, 0, sizeof(*t));
	memset(s->out, 0, (size_t)s->full_wg * PROBE_SPIN_WG_SIZE * sizeof(uint32_t));
	*s->args = (struct probe_spin_args){ .out = (uint64_t)(uintptr_t)s->out, .iters = s->iters,
					     .seed = seed, .wg_size = PROBE_SPIN_WG_SIZE };
	c->hsa.signal_store(s->done, 1);
	err = probe_queue_dispatch(c, &s->q, &s->kern, s->full_wg, s->args, s->done);
	if (err)
		return err;
	s->trial_pending = true;
	if (!probe_wait_ns(c, s->kernel_ns / 4))
		return -EINTR;
	err = high_launch(s, h, seed + 1);
	if (!err)
		err = confine(s, t, &p);
	if (err)
		return err;
	err = probe_wait(c, h->done, p + 4 * s->kernel_ns + 2000 * MS);
	if (err != 1)
		goto restore;
	t->wrong += wrong_results(h->out, h->nwg, seed + 1, s->iters);
	if (high_started(s, h, &started) == 0)
		t->effect = started > p ? started - p : 0;
	/* Again while the low kernel still runs confined: do its waves stay off the reserve? */
	sub = probe_clock(c);
	err = high_launch(s, h, seed + 2);
	if (!err)
		err = probe_wait(c, h->done, sub + 4 * s->kernel_ns + 2000 * MS);
	if (err == 1) {
		t->wrong += wrong_results(h->out, h->nwg, seed + 2, s->iters);
		if (high_started(s, h, &started) == 0)
			t->kept = started > sub ? started - sub : 0;
	}
restore:
	if (probe_hold_release(&s->hold)) {
		c->r->failed = true;
		return -EIO;
	}
	if (err != 1)
		return err == -EINTR ? -EINTR : -ETIME;
	err = probe_wait(c, s->done, probe_clock(c) + 8 * s->kernel_ns + 2000 * MS);
	if (err != 1)
		return err == -EINTR ? -EINTR : -ETIME;
	s->trial_pending = false;
	t->wrong += wrong_results(s->out, s->full_wg, seed, s->iters);
	t->ok = true;
	return 0;
}

/* Gates of this check; false with the verdict set. */
static bool cu_gates(struct probe_session *s)
{
	struct probe_ctx *c = s->c;

	if (!probe_session_gates(s))
		return false;
	if (!c->hsa.cu_set_mask || !c->hsa.get_dispatch_time) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_cu_mask", "",
				  "the HSA runtime has no %s",
				  c->hsa.cu_set_mask ? "dispatch timestamps" :
						       "hsa_amd_queue_cu_set_mask");
		return false;
	}
	if (c->env->queues_via_kfd || s->g->cu_count < 4) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_cu_mask", "",
				  "%s", c->env->queues_via_kfd ?
				  "the check queues are not the runtime's (no CU-mask call)" :
				  "fewer than 4 CUs: nothing to reserve");
		return false;
	}
	return true;
}

/* The trials, their figures and the verdict. */
static void cu_measure(struct probe_session *s, struct high *h)
{
	struct probe_ctx *c = s->c;
	struct hsaqm_probe_check *k = s->k;
	uint32_t n = c->trials, done = 0, wrong = 0;
	uint64_t *v = calloc(4 * (size_t)n, sizeof(uint64_t));
	int err = 0;

	if (!v) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "no_memory", "", "out of memory");
		return;
	}
	for (uint32_t i = 0; i < n && !err; i++) {
		struct cu_trial t;

		if (probe_now_ns() > s->deadline) {
			err = -ETIMEDOUT;
			break;
		}
		probe_progress_trial(c, "GPU %u cu_mask: trial %u of %u", s->g->index, i + 1, n);
		err = cu_trial(s, h, 0x2545f491u * (i + 1), &t);
		if (err)
			break;
		wrong += t.wrong;
		v[done] = t.effect;
		v[n + done] = t.kept;
		v[2 * n + done] = t.call;
		v[3 * n + done] = t.call_host;
		done++;
	}
	k->trials = done;
	probe_add_figure(k, "mask_effect", "ns", v, done);
	probe_add_figure(k, "reserve_kept", "ns", v + n, done);
	probe_add_figure(k, "mask_call", "ns", v + 2 * n, done);
	probe_add_figure(k, "mask_call_host", "ns", v + 3 * n, done);
	free(v);

	const struct hsaqm_probe_figure *fe = probe_find_figure(k, "mask_effect"),
					*fk = probe_find_figure(k, "reserve_kept");
	/* Mid-kernel: well inside what is left of a low workgroup (3/4 of a kernel). */
	uint64_t bound = s->kernel_ns * 3 / 8;

	probe_add_fact(k, "reserve", "CUs 0-%u of %u kept for the second queue; the first queue's "
		       "kernel on every wave slot", (h->nwg ? h->nwg : 1) - 1, s->g->cu_count);
	if (err == -EINTR)
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "interrupted", "",
				  "interrupted by signal %d (the mask was restored)",
				  hsaqm_probe_interrupted());
	else if (err == -ETIMEDOUT)
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "timeout", "",
				  "the check ran out of time after %u trials", done);
	else if (err == -ETIME)
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "lost_work", "",
				  "a kernel never finished after the mask changed");
	else if (err)
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "stop_failed", "",
				  "hsa_amd_queue_cu_set_mask failed: %s", probe_errname(err));
	else if (wrong)
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "wrong_results", "",
				  "%u work-items computed wrong results around a mask change",
				  wrong);
	else if (fe && fk && fe->median < bound && fk->median < bound)
		probe_set_verdict(k, HSAQM_PROBE_SUPPORTED, "ok", "",
				  "a mask change freed the reserved CUs mid-kernel (median %llu us) "
				  "and they stayed free, in %u trials",
				  (unsigned long long)(fe->median / 1000), done);
	else
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "mask_after_kernel",
				  "a static reservation (HSAQM_SPATIAL=static:...) still keeps CUs "
				  "free for high-priority work",
				  "the mask did not free the reserved CUs mid-kernel: the second "
				  "queue waited %llu us (median) for the running workgroups",
				  (unsigned long long)((fe ? fe->median : 0) / 1000));
}

void probe_check_cu_mask(struct probe_ctx *c, struct hsaqm_probe_gpu *g,
			 struct hsaqm_probe_check *k)
{
	struct probe_session s = { .c = c, .g = g, .k = k };
	struct high h;
	int err;

	memset(&h, 0, sizeof(h));
	if (!cu_gates(&s))
		return;
	probe_others(c, g);
	if (!c->o->force && (!g->others.known || g->others.queues)) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "shared_gpu",
				  "run when the GPU is idle, or pass --force",
				  "refused: a mask change unmaps every queue of the GPU, and other "
				  "processes use it (or that is unknown: %s)", g->others.source);
		return;
	}
	s.deadline = probe_now_ns() + c->check_timeout_ns;
	if (!probe_session_open(&s, 1u << 16) || !high_open(&s, &h))
		goto out;
	err = probe_session_calibrate(&s);
	if (!err)
		err = high_plain(&s, &h);
	if (err) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, err == -EINTR ? "interrupted" :
				  "kernel_failed", "", "the spin kernel did not run (%s)",
				  probe_errname(err));
		goto out;
	}
	probe_add_fact(k, "kernel", "%s", s.kern.what);
	cu_measure(&s, &h);
out:
	high_close(&s, &h);
	probe_session_close(&s);
}
