// SPDX-License-Identifier: MIT
/*
 * stop.c - the session every hardware-stop check runs (Lv3's DBG_TRAP suspend, UPDATE_QUEUE
 * percentage 0): the probe's own queue, the spin kernel filling every wave slot of the GPU (or
 * one wave), a stop a quarter into the kernel, a hold longer than what is left of it (a queue
 * that was not really stopped finishes during the hold), the restart, and every work-item's
 * result checked. What proves that waves were saved: the KFD's wave state of the stopped
 * queue, and that the kernel, stopped mid-way, still computes every LCG state exactly.
 *
 * How it measures (docs/probe-report.md, "How the stop checks measure"). Every time is read
 * from the runtime's clock (HSA_SYSTEM_INFO_TIMESTAMP, the domain of the dispatch timestamps),
 * and every wait is the runtime's (wait.c): on the model that is device time, and a
 * virtual-time model cannot be stretched by the host's load at all.
 *   stop, restart  the stopping and restarting call, from the clock just before to just after.
 *                  A call stamps the device's work with the time it is made, so the "before"
 *                  reading is exact; the "after" reading includes the caller's own wake-up
 *                  (on a real-time model: the engine's lateness and a futex wake).
 *   lost           the kernel's run (its dispatch timestamps) beyond its unstopped length,
 *                  less the hold between the stop and the restart: what the stop cost the
 *                  kernel (the remap and the CWSR restore). Only "before" readings and the
 *                  device's own timestamps enter it, so host wake-ups do not.
 *                  Under DBG_TRAP the process's other compute queues are stopped with the
 *                  probe's (the runtime's own: a restart unmaps every active queue before it
 *                  maps the runlist, so one left running would be in lost too).
 *   Per-wave costs are slopes between full occupancy and one wave, divided by the difference
 *   of the waves one CU holds (the CUs save and restore in parallel): 32 - 1 on an MI308X.
 *
 * Every stop is registered with the safety registry before its call, so the restart happens
 * on every path: errors, timeouts, interrupts (the waits look at the flag) and exit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_internal.h"

#define MS 1000000ull

static bool expired(const struct probe_session *s)
{
	return probe_now_ns() > s->deadline;
}

static void hook(struct probe_session *s, enum hsaqm_probe_event ev)
{
	const struct hsaqm_probe_env *env = s->c->env;

	if (env->test_hook && s->q.have_id)
		env->test_hook(env->test_hook_ctx, ev, s->c->kfd, s->q.queue_id);
}

bool probe_session_gates(struct probe_session *s)
{
	struct probe_ctx *c = s->c;

	if (!probe_hsa_ready(c)) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_rocm",
				  "install the ROCm runtime (libhsa-runtime64.so: Debian's "
				  "libhsa-runtime64-1, or ROCm from AMD)",
				  "%s", c->hsa_why);
		return false;
	}
	if (!s->g->have_kernel) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_device_kernel",
				  "rebuild with a clang that targets it: `meson setup --wipe "
				  "build -Dgpu_targets=<gfx>` with ROCm's clang or clang >= 17 "
				  "on PATH, or compile tools/probe/kernels/spin.cl yourself and "
				  "pass --kernel-dir",
				  "%s", s->g->kernel_text);
		return false;
	}
	return true;
}

void probe_session_close(struct probe_session *s)
{
	struct probe_ctx *c = s->c;

	if (s->hold.active) {
		if (probe_hold_release(&s->hold))
			c->r->failed = true;
	}
	hook(s, HSAQM_PROBE_EV_BEFORE_DESTROY);
	/* A kernel still running is let finish (bounded) so nothing is cut mid-write. */
	if (s->trial_pending && s->have_done)
		probe_wait(c, s->done, probe_clock(c) + 2 * s->kernel_ns + 1000 * MS);
	if (s->dbg_enabled)
		hsaqm_kfd_dbg_disable(c->kfd);
	if (s->have_q)
		probe_queue_destroy(c, &s->q);
	if (s->have_done)
		c->hsa.signal_destroy(s->done);
	probe_hsa_free(&c->hsa, s->args);
	probe_hsa_free(&c->hsa, s->out);
	if (s->have_kern)
		probe_kernel_unload(&c->hsa, &s->kern);
	free(s->ctl_stack);
}

/* Kernel, buffers and signal for @max_wg workgroups. false: the verdict is set. */
static bool session_buffers(struct probe_session *s, uint32_t max_wg)
{
	struct probe_ctx *c = s->c;
	struct hsaqm_probe_gpu *g = s->g;
	char why[256] = "";
	int err;

	err = probe_kernel_load(c->env, &c->hsa, s->agent, g->isa, c->o->kernel_dir,
				(c->o->quick ? 10 : 20) * MS, &s->kern, why, sizeof(why));
	if (err) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_device_kernel", "", "%s",
				  why);
		return false;
	}
	s->have_kern = true;
	s->full_wg = g->cu_count * g->simd_per_cu * g->max_waves_per_simd;
	if (!s->full_wg)
		s->full_wg = 1;
	if (s->full_wg > max_wg)
		s->full_wg = max_wg;
	s->args = probe_hsa_alloc(&c->hsa, s->agent, s->kern.kernarg_size, true);
	s->out = probe_hsa_alloc(&c->hsa, s->agent,
				 (size_t)s->full_wg * PROBE_SPIN_WG_SIZE * sizeof(uint32_t), true);
	if (!s->args || !s->out) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_memory", "",
				  "no kernel-argument memory from the HSA runtime");
		return false;
	}
	if (c->hsa.signal_create(1, 0, NULL, &s->done)) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_signal", "",
				  "hsa_signal_create failed");
		return false;
	}
	s->have_done = true;
	return true;
}

bool probe_session_open(struct probe_session *s, uint32_t max_wg)
{
	struct probe_ctx *c = s->c;
	struct hsaqm_probe_gpu *g = s->g;
	char why[256] = "";
	int err;

	if (c->env->runtime_enable && !c->runtime_enabled) {
		/* ROCr did it in hsa_init on hardware (EBUSY); the model's process needs it. */
		err = hsaqm_kfd_runtime_enable(c->kfd, 0, true);
		c->runtime_enable_err = err;
		c->runtime_enabled = err == 0 || err == -EBUSY;
	}
	if (probe_hsa_find_gpu(&c->hsa, g->node_id, g->index, &s->agent)) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_agent", "",
				  "the HSA runtime has no agent for KFD node %u", g->node_id);
		return false;
	}
	if (!session_buffers(s, max_wg))
		return false;
	err = probe_queue_create(c, s->agent, g, 256, &s->q, why, sizeof(why));
	if (err) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "queue_create_failed", "",
				  "%s", why);
		return false;
	}
	s->have_q = true;
	/* ROCr records dispatch timestamps only on a queue with profiling on. */
	if (s->q.hsa_queue && c->hsa.set_profiler_enabled)
		c->hsa.set_profiler_enabled(s->q.hsa_queue, 1);
	uint64_t create = s->q.create_ns;
	probe_add_figure(s->k, "queue_create", "ns", &create, 1);
	const struct hsaqm_topology_node *node = hsaqm_topology_find_gpu(c->topo, g->gpu_id);
	struct hsaqm_cwsr_sizes cw;
	/*
	 * GET_QUEUE_WAVE_STATE writes up to the control stack size the queue's creator chose. The
	 * node's is per XCC, and a runtime that knows no XCCs (ROCr 5.x on an MI308X) sizes one
	 * stack for every CU: room for all XCCs' here, more once the queue's save area is known.
	 */
	if (node && hsaqm_cwsr_sizes_get(node, &cw) == 0)
		s->ctl_stack_size = cw.ctl_stack_size * (g->num_xcc ? g->num_xcc : 1);
	if (s->ctl_stack_size < (1u << 16))
		s->ctl_stack_size = 1u << 16;
	s->ctl_stack = calloc(1, s->ctl_stack_size);
	return s->ctl_stack != NULL;
}

uint32_t probe_session_waves_per_cu(const struct probe_session *s)
{
	return s->g->cu_count ? s->full_wg / s->g->cu_count : s->full_wg;
}

int probe_dispatch_times(struct probe_ctx *c, struct hsaqm_hsa_agent agent,
			 struct hsaqm_hsa_signal done, uint64_t *start, uint64_t *end)
{
	struct hsaqm_hsa_amd_profiling_dispatch_time t = { 0, 0 };

	if (!c->hsa.get_dispatch_time || c->hsa.get_dispatch_time(agent, done, &t) || !t.end ||
	    t.end < t.start)
		return -EIO;
	*start = probe_hsa_ticks_ns(&c->hsa, t.start);
	*end = probe_hsa_ticks_ns(&c->hsa, t.end);
	return 0;
}

/* Launch the spin kernel with @nwg workgroups. */
static int launch(struct probe_session *s, uint32_t nwg, uint32_t iters, uint32_t seed)
{
	struct probe_ctx *c = s->c;

	memset(s->out, 0, (size_t)nwg * PROBE_SPIN_WG_SIZE * sizeof(uint32_t));
	*s->args = (struct probe_spin_args){ .out = (uint64_t)(uintptr_t)s->out, .iters = iters,
					     .seed = seed, .wg_size = PROBE_SPIN_WG_SIZE };
	c->hsa.signal_store(s->done, 1);
	return probe_queue_dispatch(c, &s->q, &s->kern, nwg, s->args, s->done);
}

/* Run one spin kernel to the end, unstopped: its length in the runtime's clock. */
static int run_plain(struct probe_session *s, uint32_t nwg, uint32_t iters, uint64_t *ns)
{
	struct probe_ctx *c = s->c;
	uint64_t t0 = probe_clock(c), st, en;
	int err = launch(s, nwg, iters, 1);

	if (err)
		return err;
	s->trial_pending = true;
	err = probe_wait(c, s->done, t0 + 10000 * MS);
	if (err <= 0)
		return err == -EINTR ? -EINTR : -ETIMEDOUT;
	s->trial_pending = false;
	/* The dispatch's own timestamps when the runtime gives them, else the clock around it. */
	s->timestamps = probe_dispatch_times(c, s->agent, s->done, &st, &en) == 0;
	*ns = s->timestamps ? en - st : probe_clock(c) - t0;
	return 0;
}

/* The unstopped length of @nwg workgroups: the median of three runs. */
static int plain_length(struct probe_session *s, uint32_t nwg, uint64_t *ns)
{
	uint64_t v[3];
	int err;

	for (int i = 0; i < 3; i++) {
		err = run_plain(s, nwg, s->iters, &v[i]);
		if (err)
			return err;
	}
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (v[j] < v[i]) {
				uint64_t t = v[i];

				v[i] = v[j];
				v[j] = t;
			}
	*ns = v[1];
	return 0;
}

int probe_session_calibrate(struct probe_session *s)
{
	uint64_t target = (s->c->o->quick ? 10 : 20) * MS, ns = 0;
	uint32_t iters = 1u << 16;
	int err;

	if (s->kern.model) {
		s->kernel_ns = s->kern.model_wg_ns;
		s->iters = 1000;
	} else {
		for (int round = 0; round < 6; round++) {
			err = run_plain(s, 1, iters, &ns);
			if (err)
				return err;
			if (ns >= target / 4 || iters >= (1u << 30))
				break;
			iters <<= 2;
		}
		double per_iter = (double)ns / iters;
		double want = per_iter > 0 ? (double)target / per_iter : (double)iters;
		s->iters = want > 4e9 ? 4000000000u : (uint32_t)want;
		if (s->iters < 1024)
			s->iters = 1024;
	}
	err = plain_length(s, s->full_wg, &s->plain_ns[0]);
	if (!err)
		err = plain_length(s, 1, &s->plain_ns[1]);
	if (!err && !s->kern.model)
		s->kernel_ns = s->plain_ns[0];
	return err;
}

static int stop_queue(struct probe_session *s, enum probe_stop_kind kind, struct probe_trial *t,
		      uint64_t *at)
{
	struct probe_ctx *c = s->c;
	uint32_t id = s->q.queue_id;
	int n;

	s->hold = (struct probe_hold){
		.kind = kind == PROBE_STOP_DBG ? PROBE_HOLD_DBG : PROBE_HOLD_UPDATE,
		.kfd = c->kfd, .queue_id = id, .ring_base = s->q.ring_base,
		.ring_bytes = s->q.ring_bytes, .priority = 7,
	};
	uint32_t ids[9] = { id };

	if (kind == PROBE_STOP_DBG) {
		s->hold.nothers = s->nothers;
		memcpy(s->hold.others, s->others, s->nothers * sizeof(uint32_t));
		memcpy(ids + 1, s->others, s->nothers * sizeof(uint32_t));
	}
	probe_hold_register(&s->hold);
	uint64_t h0 = probe_now_ns();
	*at = probe_clock(c);
	if (kind == PROBE_STOP_DBG)
		n = hsaqm_kfd_dbg_suspend_queues(c->kfd, ids, 1 + s->nothers, 0, 0);
	else
		n = hsaqm_kfd_queue_deactivate(c->kfd, id, s->q.ring_base, s->q.ring_bytes, 7);
	t->stop = probe_clock(c) - *at;
	t->stop_host = probe_now_ns() - h0;
	if (n < 0) {
		/* Nothing was stopped: forget the hold without a restart call. */
		probe_hold_forget(&s->hold);
		return n;
	}
	if (kind == PROBE_STOP_DBG) {
		int st = hsaqm_kfd_dbg_entry_status(ids[0]);

		if (n < 1 || st != HSAQM_KFD_DBG_ENTRY_OK) {
			probe_hold_release(&s->hold);
			return st == HSAQM_KFD_DBG_ENTRY_INVALID ? -ENOENT : -EIO;
		}
	}
	return 0;
}

/* Restart, wait for the kernel, take its figures and check its results. */
static int restart_and_finish(struct probe_session *s, uint32_t nwg, uint32_t seed,
			      uint64_t stopped_at, struct probe_trial *t)
{
	struct probe_ctx *c = s->c;
	uint64_t h0 = probe_now_ns(), r = probe_clock(c), st, en;
	int err = probe_hold_release(&s->hold);

	t->restart = probe_clock(c) - r;
	t->restart_host = probe_now_ns() - h0;
	if (err) {
		c->r->failed = true;
		t->err = err;
		return err;
	}
	err = probe_wait(c, s->done, r + 4 * s->kernel_ns + 2000 * MS);
	t->completed = err == 1;
	t->finish = probe_clock(c) - r;
	if (!t->completed)
		return err == -EINTR || hsaqm_probe_interrupted() ? -EINTR : 0;
	s->trial_pending = false;
	t->lost = INT64_MIN;
	if (s->timestamps && probe_dispatch_times(c, s->agent, s->done, &st, &en) == 0) {
		uint64_t plain = s->plain_ns[nwg == 1 ? 1 : 0];

		t->lost = (int64_t)(en - st) - (int64_t)plain - (int64_t)(r - stopped_at);
		t->finish = en - r;
	}
	for (uint32_t i = 0; i < nwg * PROBE_SPIN_WG_SIZE; i++)
		if (s->out[i] != probe_lcg_jump(seed ^ i, s->iters))
			t->wrong++;
	return 0;
}

/* One trial: launch, let it run a quarter, stop, hold, restart, wait, verify. */
static int stop_trial(struct probe_session *s, enum probe_stop_kind kind, uint32_t nwg,
		      uint32_t seed, bool pause, struct probe_trial *t)
{
	struct probe_ctx *c = s->c;
	uint64_t p = 0;
	int err;

	memset(t, 0, sizeof(*t));
	t->lost = INT64_MIN;
	err = launch(s, nwg, s->iters, seed);
	if (err)
		return err;
	s->trial_pending = true;
	if (!probe_wait_ns(c, s->kernel_ns / 4))
		return -EINTR;
	err = stop_queue(s, kind, t, &p);
	if (err) {
		t->err = err;
		return err;
	}
	/*
	 * Sampled once the stop has taken effect: a kernel that ended before (a late host, a
	 * short kernel) makes the trial inconclusive, not a queue that failed to stop.
	 */
	t->ran_before_stop = c->hsa.signal_load(s->done) != 0;
	hook(s, HSAQM_PROBE_EV_SUSPENDED);
	if (pause && c->o->test_pause_lv3_ms)
		probe_sleep_ns((uint64_t)c->o->test_pause_lv3_ms * MS);
	/* The control stack lies inside the queue's save area: a buffer that big holds it. */
	if (s->q.save_area_size > s->ctl_stack_size) {
		void *b = realloc(s->ctl_stack, s->q.save_area_size);

		if (b) {
			s->ctl_stack = b;
			s->ctl_stack_size = s->q.save_area_size;
		}
	}
	err = s->q.save_area_size > s->ctl_stack_size ? -ENOMEM :
	      hsaqm_kfd_queue_get_wave_state(c->kfd, s->q.queue_id, s->ctl_stack, &t->ctl_used,
					     &t->save_used);
	t->wave_state = err == 0;
	/* Hold longer than what is left of the kernel: a queue still running finishes now. */
	static const struct hsaqm_hsa_signal none = { 0 };
	bool held = probe_wait(c, none, p + s->kernel_ns) >= 0;

	t->completed_while_stopped = c->hsa.signal_load(s->done) == 0;
	err = restart_and_finish(s, nwg, seed, p, t);
	if (err)
		return err;
	return held ? 0 : -EINTR;
}

void probe_stop_refused(struct probe_session *s, enum probe_stop_kind kind, int err)
{
	struct hsaqm_kfd_lv3 d;
	const struct hsaqm_kfd_mech_verdict *v;

	if (err == -ENOENT) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "queue_invalid", "",
				  "the KFD marked the probe's queue invalid");
		return;
	}
	/* The same words the HSA backend uses: kfd-ioctl's decision, told of the refusal. */
	probe_lv3_decide(s->c, s->g, kind == PROBE_STOP_DBG ? err : 0,
			 kind == PROBE_STOP_UPDATE ? err : 0, &d);
	v = &d.each[kind == PROBE_STOP_DBG ? HSAQM_KFD_MECH_DBG_TRAP : HSAQM_KFD_MECH_UPDATE_QUEUE];
	probe_set_verdict(s->k, HSAQM_PROBE_NOT_SUPPORTED, v->code, v->remedy, "%s%s", v->why,
			  (err == -EPERM || err == -EACCES) && !s->c->runtime_enabled ?
				  " (the runtime is not enabled)" : "");
}

int probe_series_alloc(struct probe_series *x, uint32_t n)
{
	memset(x, 0, sizeof(*x));
	n = n ? n : 1;
	x->stop = calloc(n, sizeof(uint64_t));
	x->restart = calloc(n, sizeof(uint64_t));
	x->stop_host = calloc(n, sizeof(uint64_t));
	x->lost = calloc(n, sizeof(uint64_t));
	x->finish = calloc(n, sizeof(uint64_t));
	x->ctl = calloc(n, sizeof(uint64_t));
	x->save = calloc(n, sizeof(uint64_t));
	return x->stop && x->restart && x->stop_host && x->lost && x->finish && x->ctl &&
			       x->save ? 0 : -ENOMEM;
}

void probe_series_free(struct probe_series *x)
{
	free(x->stop);
	free(x->restart);
	free(x->stop_host);
	free(x->lost);
	free(x->finish);
	free(x->ctl);
	free(x->save);
	memset(x, 0, sizeof(*x));
}

/* Keep one conclusive trial's samples. */
static void series_add(struct probe_series *x, const struct probe_trial *t)
{
	if (t->wrong) {
		x->wrong += t->wrong;
		x->wrong_trials++;
	}
	x->stop[x->done] = t->stop;
	x->restart[x->done] = t->restart;
	x->stop_host[x->done] = t->stop_host;
	x->finish[x->done] = t->finish;
	x->ctl[x->done] = t->ctl_used;
	x->save[x->done] = t->save_used;
	if (t->lost != INT64_MIN)
		x->lost[x->nlost++] = t->lost > 0 ? (uint64_t)t->lost : 0;
	if (t->wave_state && t->ctl_used)
		x->wave_state++;
	x->done++;
}

int probe_stop_series(struct probe_session *s, enum probe_stop_kind kind, uint32_t nwg,
		      uint32_t n, const char *label, struct probe_series *out, bool first_series)
{
	struct probe_ctx *c = s->c;
	enum hsaqm_probe_check_id id = kind == PROBE_STOP_DBG ? HSAQM_PROBE_CHECK_LV3 :
								HSAQM_PROBE_CHECK_UPDATE_QUEUE;

	/* Inconclusive trials are tried again, up to 2 n more attempts in all. */
	for (uint32_t attempts = 0; out->done < n && attempts < 3 * n; attempts++) {
		struct probe_trial t;
		int err;

		if (expired(s))
			return -ETIMEDOUT;
		probe_progress_trial(c, "GPU %u %s: %s trial %u of %u", s->g->index,
				     hsaqm_probe_check_name(id), label, out->done + 1, n);
		err = stop_trial(s, kind, nwg, 0x9e3779b9u * (attempts + 1) + nwg,
				 first_series && attempts == 0, &t);
		if (err == -EINTR || hsaqm_probe_interrupted())
			return -EINTR;
		if (t.err)
			return t.err;
		if (err)
			return err;
		if (!t.ran_before_stop) {
			out->inconclusive++;
			continue;
		}
		if (t.completed_while_stopped)
			out->not_stopped++;
		if (!t.completed) {
			out->lost_work++;
			return 0; /* the queue holds a kernel that never ends: stop here */
		}
		series_add(out, &t);
	}
	return 0;
}

bool probe_series_verdict(struct probe_session *s, const struct probe_series *x,
			  const char *what)
{
	if (x->wrong) {
		probe_set_verdict(s->k, HSAQM_PROBE_NOT_SUPPORTED, "wrong_results",
				  "do not use mid-kernel preemption on this GPU (hsaqm falls back "
				  "to Lv2); report it with this output",
				  "%s: %u work-items computed wrong results after the restart: "
				  "waves were not restored faithfully", what, x->wrong);
		return false;
	}
	if (x->lost_work) {
		probe_set_verdict(s->k, HSAQM_PROBE_NOT_SUPPORTED, "lost_work", "",
				  "%s: the stopped kernel never finished after the restart", what);
		return false;
	}
	if (x->not_stopped) {
		probe_set_verdict(s->k, HSAQM_PROBE_NOT_SUPPORTED, "not_stopped", "",
				  "%s: the kernel went on running while its queue was stopped "
				  "(%u trials)", what, x->not_stopped);
		return false;
	}
	if (!x->done) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "kernel_too_short", "",
				  "the spin kernel finished before every stop");
		return false;
	}
	return true;
}

void probe_series_figures(struct probe_session *s, const struct probe_series *x,
			  const char *suffix)
{
	char name[48];

	snprintf(name, sizeof(name), "stop_%s", suffix);
	probe_add_figure(s->k, name, "ns", x->stop, x->done);
	if (!strcmp(suffix, "full"))
		probe_add_figure(s->k, "stop_host_full", "ns", x->stop_host, x->done);
	snprintf(name, sizeof(name), "restart_%s", suffix);
	probe_add_figure(s->k, name, "ns", x->restart, x->done);
	snprintf(name, sizeof(name), "lost_%s", suffix);
	probe_add_figure(s->k, name, "ns", x->lost, x->nlost);
	snprintf(name, sizeof(name), "finish_%s", suffix);
	probe_add_figure(s->k, name, "ns", x->finish, x->done);
}

void probe_series_waves_fact(struct probe_session *s, struct probe_series *x)
{
	if (x->wave_state) {
		/* Sorting in place is fine: the series is not read again. */
		probe_add_figure(s->k, "ctl_stack_used_full", "bytes", x->ctl, x->done);
		probe_add_figure(s->k, "save_area_used_full", "bytes", x->save, x->done);
		const struct hsaqm_probe_figure *f = probe_find_figure(s->k, "save_area_used_full");
		probe_add_fact(s->k, "waves_saved",
			       "yes: the KFD's wave state of the stopped queue shows a control "
			       "stack and %llu bytes of saved wave state (median) in %u of %u "
			       "trials",
			       (unsigned long long)(f ? f->median : 0), x->wave_state, x->done);
	} else {
		probe_add_fact(s->k, "waves_saved",
			       "inferred: no wave state from the KFD; the kernel (%u waves) was "
			       "running at the stop, did not finish while stopped, and finished "
			       "with exact results after the restart", s->full_wg);
	}
}
