// SPDX-License-Identifier: MIT
/*
 * check_lv3.c - the two hardware-stop checks: Lv3's DBG_TRAP SUSPEND/RESUME_QUEUES and
 * UPDATE_QUEUE with percentage 0 / 100 (ROCr's own way of suspending a queue, no debugger).
 * Both run the session of stop.c at full occupancy and with one wave, so that the per-wave
 * costs are slopes and the fixed costs what is left.
 *
 * Both are treated alike: on HWS the KFD unmaps every dynamic queue of the device for either
 * (kfd_device_queue_manager.c: suspend_queues() and update_queue() both go through the
 * dynamic-queue unmap and map the runlist again), so either disturbs another process's queues
 * on the GPU the same way: each runs by default on a GPU no other process uses and needs
 * --force on a shared one.
 *
 * DBG_TRAP suspends the process's other compute queues on the GPU (the runtime's own) with the
 * probe's, so that its restart's remap is the map alone (others_fact()); UPDATE_QUEUE cannot, so
 * its restart's remap is their unmap too. --emit-sim-profile reads both (emit.c).
 *
 * Prerequisites come from kfd-ioctl's one Lv3 decision (hsaqm_kfd_lv3_decide()), the one the
 * HSA backend takes, so the probe and the tool say the same thing in the same words.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe_internal.h"

#define MS 1000000ull

void probe_lv3_decide(struct probe_ctx *c, struct hsaqm_probe_gpu *g, int dbg_err,
		      int update_err, struct hsaqm_kfd_lv3 *out)
{
	struct hsaqm_kfd_lv3_facts f;

	hsaqm_kfd_lv3_facts_read(c->kfd, c->kfd ? 0 : -c->r->kfd_open_errno, c->env->sysfs_root,
				 g->node_id, &f);
	f.dbg_err = dbg_err;
	f.update_err = update_err;
	hsaqm_kfd_lv3_decide(&f, HSAQM_KFD_PREF_AUTO, out);
}

void probe_lv3_note(struct probe_ctx *c, struct hsaqm_probe_gpu *g)
{
	struct hsaqm_kfd_lv3 d;
	uint32_t i = g->index < HSAQM_PROBE_MAX_GPUS ? g->index : 0;

	probe_lv3_decide(c, g, c->dbg_err[i], c->update_err[i], &d);
	g->lv3.level = d.level;
	probe_strlcpy(g->lv3.mechanism, hsaqm_kfd_mech_name(d.mech), sizeof(g->lv3.mechanism));
	probe_strlcpy(g->lv3.reason, d.reason, sizeof(g->lv3.reason));
}

/* The mechanism's prerequisites; false with the verdict set. */
static bool mech_gate(struct probe_ctx *c, struct hsaqm_probe_gpu *g, struct hsaqm_probe_check *k,
		      enum hsaqm_kfd_mech m)
{
	struct hsaqm_kfd_lv3 d;
	const struct hsaqm_kfd_mech_verdict *v;

	probe_lv3_decide(c, g, 0, 0, &d);
	v = &d.each[m];
	if (v->ok)
		return true;
	probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, v->code, v->remedy, "%s", v->why);
	return false;
}

/* A stop unmaps every queue of the GPU: refused where others have queues, unless --force. */
static bool shared_gpu_gate(struct probe_ctx *c, struct hsaqm_probe_gpu *g,
			    struct hsaqm_probe_check *k)
{
	probe_others(c, g); /* again: processes come and go */
	if (c->o->force || (g->others.known && !g->others.queues))
		return true;
	if (g->others.known)
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "shared_gpu",
				  "run when the GPU is idle, or pass --force to accept that "
				  "their queues are unmapped and mapped again",
				  "refused: %u other process(es) have %u KFD queue(s) on this "
				  "GPU (%s), and a stop unmaps every queue of the GPU",
				  g->others.processes, g->others.queues, g->others.source);
	else
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "shared_gpu",
				  "pass --force if you know the GPU is not shared",
				  "refused: whether other processes use this GPU is unknown (%s)",
				  g->others.source);
	return false;
}

/* DBG_TRAP ENABLE on the probe's own process; false with the verdict set. */
static bool dbg_enable(struct probe_session *s, int *dbg_err)
{
	int err = hsaqm_kfd_dbg_enable(s->c->kfd, 0, NULL);

	if (err) {
		*dbg_err = err;
		probe_stop_refused(s, PROBE_STOP_DBG, err);
		if (err == -EALREADY)
			s->k->verdict = HSAQM_PROBE_COULD_NOT_TEST; /* somebody else's session */
		else
			probe_add_fact(s->k, "failed_call", "DBG_TRAP ENABLE: %s",
				       probe_errname(err));
		return false;
	}
	s->dbg_enabled = true;
	return true;
}

/* The KFD id of the session's queue by ring address (DBG_TRAP snapshot, clears QUEUE_NEW). */
static bool find_by_snapshot(struct probe_session *s)
{
	int err = probe_queue_find_id(s->c, &s->q);

	if (err) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "queue_not_found", "",
				  "GET_QUEUE_SNAPSHOT does not list the probe's queue by its ring "
				  "address (%s)", probe_errname(err));
		return false;
	}
	return true;
}

static void queue_fact(struct probe_session *s, const char *how)
{
	probe_add_fact(s->k, "queue", "KFD queue %u (%s), ring 0x%llx, %s", s->q.queue_id,
		       s->q.via_kfd ? "made through the KFD" : "made by the HSA runtime",
		       (unsigned long long)s->q.ring_base, how);
}

/* Calibrate the kernel; false with the verdict set (-EINTR: interrupted). */
static int calibrated(struct probe_session *s)
{
	int err = probe_session_calibrate(s);

	if (err && err != -EINTR)
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "kernel_failed", "",
				  "the spin kernel did not run (%s)", probe_errname(err));
	probe_add_fact(s->k, "kernel", "%s", s->kern.what);
	return err;
}

/*
 * The per-wave slopes between full occupancy and one wave: a CU holds waves_per_cu of the
 * queue's waves at full occupancy and 1 with one wave, and the CUs save and restore in
 * parallel, so the divisor is waves_per_cu - 1 (31 on an MI308X), the unit of sim/'s
 * cwsr_*_ns_per_wave.
 */
static void slope_facts(struct probe_session *s)
{
	const struct hsaqm_probe_check *k = s->k;
	const struct hsaqm_probe_figure *sf = probe_find_figure(k, "stop_full"),
					*s1 = probe_find_figure(k, "stop_1wave"),
					*lf = probe_find_figure(k, "lost_full"),
					*l1 = probe_find_figure(k, "lost_1wave");
	uint32_t w = probe_session_waves_per_cu(s);

	if (w <= 1)
		return;
	probe_add_fact(s->k, "waves_per_cu", "%u at full occupancy, 1 with one wave: per-wave "
		       "costs are slopes divided by %u", w, w - 1);
	if (sf && s1 && sf->median > s1->median)
		probe_add_fact(s->k, "cwsr_save_ns_per_wave", "%llu",
			       (unsigned long long)((sf->median - s1->median) / (w - 1)));
	if (lf && l1 && lf->median > l1->median)
		probe_add_fact(s->k, "cwsr_restore_ns_per_wave", "%llu",
			       (unsigned long long)((lf->median - l1->median) / (w - 1)));
}

static void common_facts(struct probe_session *s, struct probe_series *full,
			 struct probe_series *one)
{
	struct hsaqm_probe_check *k = s->k;

	k->trials = full->done + one->done;
	probe_series_figures(s, full, "full");
	probe_series_figures(s, one, "1wave");
	probe_series_waves_fact(s, full);
	probe_add_fact(k, "results", "%u of %u trials ran to exact LCG results (%u work-items "
		       "each at full occupancy)",
		       full->done + one->done - full->wrong_trials - one->wrong_trials,
		       full->done + one->done, s->full_wg * PROBE_SPIN_WG_SIZE);
	probe_add_fact(k, "stopped_while_suspended",
		       "%s: the kernel did not finish during a %llu ms hold longer than its rest",
		       full->not_stopped + one->not_stopped ? "no" : "yes",
		       (unsigned long long)(s->kernel_ns / MS));
	slope_facts(s);
	probe_add_fact(k, "clock", "%s; lost_* from dispatch timestamps%s",
		       s->c->env->is_model ? "model time (the model's HSA system clock)" :
		       "the HSA system clock",
		       s->timestamps ? "" : " (none given: lost_* missing)");
	if (full->inconclusive + one->inconclusive)
		probe_add_fact(k, "inconclusive", "%u trials ended before the stop",
			       full->inconclusive + one->inconclusive);
}

/* Both series of a stop kind; the verdict from what they found. Returns the stop's error. */
static int measure(struct probe_session *s, enum probe_stop_kind kind, const char *what)
{
	struct probe_ctx *c = s->c;
	struct hsaqm_probe_check *k = s->k;
	struct probe_series full, one;
	int err;

	if (probe_series_alloc(&full, c->trials) || probe_series_alloc(&one, c->trials)) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "no_memory", "", "out of memory");
		probe_series_free(&full);
		probe_series_free(&one);
		return 0;
	}
	err = probe_stop_series(s, kind, s->full_wg, c->trials, "full occupancy", &full, true);
	if (!err && !full.lost_work)
		err = probe_stop_series(s, kind, 1, c->trials, "one wave", &one, false);
	if (err == -EINTR)
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "interrupted", "",
				  "interrupted by signal %d (the queue was restarted)",
				  hsaqm_probe_interrupted());
	else if (err == -ETIMEDOUT)
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "timeout", "",
				  "the check ran out of time after %u trials",
				  full.done + one.done);
	else if (err)
		probe_stop_refused(s, kind, err);
	else if (probe_series_verdict(s, &full, "full occupancy") &&
		 probe_series_verdict(s, &one, "one wave"))
		probe_set_verdict(k, HSAQM_PROBE_SUPPORTED, "ok", "", "%s mid-kernel and restarted "
				  "with exact results in %u trials", what,
				  full.done + one.done);
	if (!err || err == -ETIMEDOUT)
		common_facts(s, &full, &one);
	probe_series_free(&full);
	probe_series_free(&one);
	return err == -EINTR || err == -ETIMEDOUT ? 0 : err;
}

/*
 * The process's other compute queues on the GPU (the runtime's own) are suspended and resumed
 * with the probe's: the KFD unmaps every active queue before it maps the runlist again, so with
 * one of them running the restart's remap would be their unmap too, and lost_* would hold it.
 * Stopped with it, the remap is the map alone (--emit-sim-profile reads the count).
 */
static void others_fact(struct probe_session *s)
{
	int err = probe_queue_others(s->c, &s->q, s->g->gpu_id, s->others, 8, &s->nothers);

	if (err) {
		s->nothers = 0;
		probe_add_fact(s->k, "process_queues", "unknown (%s): only the probe's queue is "
			       "suspended", probe_errname(err));
		return;
	}
	probe_add_fact(s->k, "process_queues", "%u other compute queue(s) of this process on the "
		       "GPU (the runtime's own), suspended and resumed with the probe's", s->nothers);
}

void probe_check_lv3(struct probe_ctx *c, struct hsaqm_probe_gpu *g, struct hsaqm_probe_check *k)
{
	struct probe_session s = { .c = c, .g = g, .k = k };
	int dbg_err = 0, err;

	if (!mech_gate(c, g, k, HSAQM_KFD_MECH_DBG_TRAP) || !shared_gpu_gate(c, g, k) ||
	    !probe_session_gates(&s))
		return;
	s.deadline = probe_now_ns() + c->check_timeout_ns;
	if (!probe_session_open(&s, 1u << 16) || !dbg_enable(&s, &dbg_err) ||
	    !find_by_snapshot(&s))
		goto out;
	queue_fact(&s, "found by ring address (GET_QUEUE_SNAPSHOT)");
	err = calibrated(&s);
	if (err == -EINTR)
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "interrupted", "",
				  "interrupted by signal %d (the queue was restarted)",
				  hsaqm_probe_interrupted());
	else if (!err) {
		others_fact(&s);
		dbg_err = measure(&s, PROBE_STOP_DBG, "suspended");
	}
out:
	probe_session_close(&s);
	if (g->index < HSAQM_PROBE_MAX_GPUS)
		c->dbg_err[g->index] = dbg_err;
	probe_lv3_note(c, g);
}

/*
 * The KFD id of the runtime's queue without a debugger: the one the KFD's sysfs kfd/proc
 * listing showed appear at its creation (pqueue.c). Only when that is unknown, DBG_TRAP's
 * snapshot (which a debugger elsewhere can refuse).
 */
static bool update_queue_id(struct probe_session *s)
{
	struct probe_ctx *c = s->c;
	int err;

	if (s->q.have_id) {
		queue_fact(s, "made with this id");
		return true;
	}
	if (s->q.have_sysfs_id) {
		s->q.queue_id = s->q.sysfs_id;
		s->q.have_id = true;
		queue_fact(s, "found in the KFD's sysfs kfd/proc at its creation (no debugger)");
		return true;
	}
	err = hsaqm_kfd_dbg_enable(c->kfd, 0, NULL);
	if (!err)
		s->dbg_enabled = true;
	err = err ? err : probe_queue_find_id(c, &s->q);
	if (err) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "queue_id_unknown", "",
				  "the KFD id of the runtime's queue is unknown: sysfs kfd/proc "
				  "(%s), DBG_TRAP (%s)", probe_errname(s->q.sysfs_err),
				  probe_errname(err));
		return false;
	}
	queue_fact(s, "found by ring address (GET_QUEUE_SNAPSHOT)");
	return true;
}

void probe_check_update_queue(struct probe_ctx *c, struct hsaqm_probe_gpu *g,
			      struct hsaqm_probe_check *k)
{
	struct probe_session s = { .c = c, .g = g, .k = k };
	int update_err = 0, err;

	if (!mech_gate(c, g, k, HSAQM_KFD_MECH_UPDATE_QUEUE) || !shared_gpu_gate(c, g, k) ||
	    !probe_session_gates(&s))
		return;
	s.deadline = probe_now_ns() + c->check_timeout_ns;
	if (!probe_session_open(&s, 1u << 16) || !update_queue_id(&s))
		goto out;
	err = calibrated(&s);
	if (err == -EINTR)
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "interrupted", "",
				  "interrupted by signal %d (the queue was reactivated)",
				  hsaqm_probe_interrupted());
	else if (!err)
		update_err = measure(&s, PROBE_STOP_UPDATE, "deactivated (every queue of the GPU "
				     "unmapped each time)");
out:
	probe_session_close(&s);
	if (g->index < HSAQM_PROBE_MAX_GPUS)
		c->update_err[g->index] = update_err;
	probe_lv3_note(c, g);
}
