// SPDX-License-Identifier: MIT
/*
 * check_lv3.c - the two hardware-stop checks: DBG_TRAP SUSPEND/RESUME_QUEUES (Lv3) and, only
 * when allowed, UPDATE_QUEUE with percentage 0.
 *
 * Both run the same session: the probe's own queue, the spin kernel filling every wave slot
 * of the GPU (and, for Lv3, a second series with one wave), a stop a quarter into the kernel,
 * a hold longer than what is left of it (a queue that was not really stopped finishes during
 * the hold), the restart, and a check of every work-item's result. What proves that waves were
 * saved: the KFD's wave state of the stopped queue (control stack and save area in use), and
 * that the kernel, stopped mid-way, still computes every LCG state exactly after the restart.
 *
 * Every stop is registered with the safety registry before its ioctl, so the restart happens
 * on every path: errors, timeouts, interrupts (the session's waits look at the flag) and exit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_internal.h"

#define MS 1000000ull

/* Remedies, one place each. */
#define REMEDY_KFD_OLD                                                                         \
	"DBG_TRAP needs KFD ioctl 1.13: Linux 6.4 or later, or the amdgpu-dkms of ROCm 6.x"
#define REMEDY_NO_HWS                                                                          \
	"reload amdgpu with sched_policy=0 (kernel command line amdgpu.sched_policy=0)"
#define REMEDY_CWSR "reload amdgpu with cwsr_enable=1 (kernel command line amdgpu.cwsr_enable=1)"
#define REMEDY_EPERM                                                                           \
	"the runtime must enable the KFD debugger interface (RUNTIME_ENABLE, done by ROCr 6.x " \
	"on Linux 6.4+ / amdgpu-dkms); on a kernel that forbids self-suspend, hsaqm uses Lv2"
#define REMEDY_EALREADY                                                                        \
	"detach the debugger or profiler holding DBG_TRAP (rocgdb, a rocprofiler tool) and run " \
	"again"
#define REMEDY_FW "update the GPU firmware (linux-firmware, or the amdgpu-dkms-firmware of ROCm)"

struct session {
	struct probe_ctx *c;
	struct hsaqm_probe_gpu *g;
	struct hsaqm_probe_check *k;
	struct hsaqm_hsa_agent agent;
	struct probe_queue q;
	bool have_q;
	struct probe_kernel kern;
	bool have_kern;
	struct hsaqm_hsa_signal done;
	bool have_done;
	struct probe_spin_args *args;
	uint32_t *out;
	uint32_t full_wg;     /* workgroups (one wave each) that fill every wave slot */
	uint32_t iters;
	uint64_t kernel_ns;   /* how long one spin kernel runs */
	bool dbg_enabled;     /* this session enabled DBG_TRAP (and disables it) */
	void *ctl_stack;      /* GET_QUEUE_WAVE_STATE buffer */
	uint32_t ctl_stack_size;
	uint64_t deadline;
	struct probe_hold hold;
	bool trial_pending;   /* a kernel may still be running */
};

enum stop_kind { STOP_DBG, STOP_UPDATE };

/* What one stop-and-restart trial found. */
struct trial {
	bool ran_before_stop;  /* the kernel was still running when stopped */
	bool completed_while_stopped;
	bool completed;
	bool wave_state;
	uint32_t ctl_used, save_used;
	uint64_t stop_ns, restart_ns;
	uint64_t finish_ns;    /* restart to the kernel's completion (restore + rest of the run) */
	uint32_t wrong;        /* work-items with a wrong result */
	int err;               /* the stop's or restart's error */
};

static bool expired(const struct session *s)
{
	return probe_now_ns() > s->deadline;
}

static void hook(struct session *s, enum hsaqm_probe_event ev)
{
	const struct hsaqm_probe_env *env = s->c->env;

	if (env->test_hook && s->q.have_id)
		env->test_hook(env->test_hook_ctx, ev, s->c->kfd, s->q.queue_id);
}

/* Wait until the completion signal reaches 0; false on timeout or interrupt. */
static bool wait_done(struct session *s, uint64_t timeout_ns)
{
	uint64_t end = probe_now_ns() + timeout_ns;

	while (s->c->hsa.signal_load(s->done) != 0) {
		if (probe_now_ns() > end)
			return false;
		if (!probe_sleep_ns(200000))
			return false;
	}
	return true;
}

/* Gates every hardware-stop check shares: the runtime, the device kernel. */
static bool common_gates(struct session *s)
{
	struct probe_ctx *c = s->c;

	if (!probe_hsa_ready(c)) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_rocm",
				  "install the ROCm runtime (libhsa-runtime64.so: Debian's "
				  "libhsa-runtime64-1, or ROCm from AMD)",
				  "could not test: %s", c->hsa_why);
		return false;
	}
	if (!s->g->have_kernel) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_device_kernel",
				  "rebuild with a clang that targets it: `meson setup --wipe "
				  "build -Dgpu_targets=<gfx>` with ROCm's clang or clang >= 17 "
				  "on PATH, or compile tools/probe/kernels/spin.cl yourself and "
				  "pass --kernel-dir",
				  "could not test: %s", s->g->kernel_text);
		return false;
	}
	return true;
}

static void free_session(struct session *s)
{
	struct probe_ctx *c = s->c;

	if (s->hold.active) {
		if (probe_hold_release(&s->hold))
			c->r->failed = true;
	}
	hook(s, HSAQM_PROBE_EV_BEFORE_DESTROY);
	/* A kernel still running is let finish (bounded) so nothing is cut mid-write. */
	if (s->trial_pending && s->have_done)
		wait_done(s, 2 * s->kernel_ns + 1000 * MS);
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

/* Runtime, agent, kernel, buffers, queue. Sets the verdict and returns false on failure. */
static bool session_open(struct session *s, uint32_t max_wg)
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
	err = probe_hsa_find_gpu(&c->hsa, g->node_id, g->index, &s->agent);
	if (err) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_agent", "",
				  "could not test: the HSA runtime has no agent for KFD node %u",
				  g->node_id);
		return false;
	}
	err = probe_kernel_load(c->env, &c->hsa, s->agent, g->gfx, c->o->kernel_dir,
				(c->o->quick ? 10 : 20) * MS, &s->kern, why, sizeof(why));
	if (err) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_device_kernel", "",
				  "could not test: %s", why);
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
				  "could not test: no kernel-argument memory from the HSA runtime");
		return false;
	}
	if (c->hsa.signal_create(1, 0, NULL, &s->done)) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "no_signal", "",
				  "could not test: hsa_signal_create failed");
		return false;
	}
	s->have_done = true;
	err = probe_queue_create(c, s->agent, g, 256, &s->q, why, sizeof(why));
	if (err) {
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "queue_create_failed", "",
				  "could not test: %s", why);
		return false;
	}
	s->have_q = true;
	uint64_t create = s->q.create_ns;
	probe_add_figure(s->k, "queue_create", "ns", &create, 1);
	const struct hsaqm_topology_node *node = hsaqm_topology_find_gpu(c->topo, g->gpu_id);
	struct hsaqm_cwsr_sizes cw;
	if (node && hsaqm_cwsr_sizes_get(node, &cw) == 0)
		s->ctl_stack_size = cw.ctl_stack_size;
	if (!s->ctl_stack_size)
		s->ctl_stack_size = 1u << 16;
	s->ctl_stack = calloc(1, s->ctl_stack_size);
	return s->ctl_stack != NULL;
}

/* Run one spin kernel to the end, unstopped: how long @iters take (hardware calibration). */
static int run_plain(struct session *s, uint32_t nwg, uint32_t iters, uint64_t *ns)
{
	struct probe_ctx *c = s->c;
	int err;

	*s->args = (struct probe_spin_args){ .out = (uint64_t)(uintptr_t)s->out, .iters = iters,
					     .seed = 1, .wg_size = PROBE_SPIN_WG_SIZE };
	c->hsa.signal_store(s->done, 1);
	uint64_t t0 = probe_now_ns();
	err = probe_queue_dispatch(c, &s->q, &s->kern, nwg, s->args, s->done);
	if (err)
		return err;
	s->trial_pending = true;
	if (!wait_done(s, 10000 * MS))
		return hsaqm_probe_interrupted() ? -EINTR : -ETIMEDOUT;
	s->trial_pending = false;
	*ns = probe_now_ns() - t0;
	return 0;
}

/* The spin kernel's length: fixed on the model, calibrated to ~target on hardware. */
static int calibrate(struct session *s)
{
	uint64_t target = (s->c->o->quick ? 10 : 20) * MS, ns = 0;
	uint32_t iters = 1u << 16;
	int err;

	if (s->kern.model) {
		s->kernel_ns = s->kern.model_wg_ns;
		s->iters = 1000;
		return 0;
	}
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
	err = run_plain(s, s->full_wg, s->iters, &s->kernel_ns);
	return err;
}

static int stop_queue(struct session *s, enum stop_kind kind, struct trial *t)
{
	struct probe_ctx *c = s->c;
	uint32_t id = s->q.queue_id;
	int n;

	s->hold = (struct probe_hold){
		.kind = kind == STOP_DBG ? PROBE_HOLD_DBG : PROBE_HOLD_UPDATE,
		.kfd = c->kfd, .queue_id = id, .ring_base = s->q.ring_base,
		.ring_bytes = s->q.ring_bytes, .priority = 7,
	};
	probe_hold_register(&s->hold);
	uint64_t t0 = probe_now_ns();
	if (kind == STOP_DBG)
		n = hsaqm_kfd_dbg_suspend_queues(c->kfd, &id, 1, 0, 0);
	else
		n = hsaqm_kfd_queue_update(c->kfd, id, s->q.ring_base, s->q.ring_bytes, 0, 7);
	t->stop_ns = probe_now_ns() - t0;
	if (n < 0) {
		/* Nothing was stopped: forget the hold without a restart call. */
		probe_hold_forget(&s->hold);
		return n;
	}
	if (kind == STOP_DBG) {
		int st = hsaqm_kfd_dbg_entry_status(id);

		if (n != 1 || st != HSAQM_KFD_DBG_ENTRY_OK) {
			probe_hold_release(&s->hold);
			return st == HSAQM_KFD_DBG_ENTRY_INVALID ? -ENOENT : -EIO;
		}
	}
	return 0;
}

/* One trial: launch, let it run a quarter, stop, hold, restart, wait, verify. */
static int trial(struct session *s, enum stop_kind kind, uint32_t nwg, uint32_t seed,
		 bool pause, struct trial *t)
{
	struct probe_ctx *c = s->c;
	int err;

	memset(t, 0, sizeof(*t));
	memset(s->out, 0, (size_t)nwg * PROBE_SPIN_WG_SIZE * sizeof(uint32_t));
	*s->args = (struct probe_spin_args){ .out = (uint64_t)(uintptr_t)s->out,
					     .iters = s->iters, .seed = seed,
					     .wg_size = PROBE_SPIN_WG_SIZE };
	c->hsa.signal_store(s->done, 1);
	err = probe_queue_dispatch(c, &s->q, &s->kern, nwg, s->args, s->done);
	if (err)
		return err;
	s->trial_pending = true;
	if (!probe_sleep_ns(s->kernel_ns / 4))
		return -EINTR;

	err = stop_queue(s, kind, t);
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
	err = hsaqm_kfd_queue_get_wave_state(c->kfd, s->q.queue_id, s->ctl_stack, &t->ctl_used,
					     &t->save_used);
	t->wave_state = err == 0;
	/* Hold longer than what is left of the kernel: a queue still running finishes now. */
	bool slept = probe_sleep_ns(s->kernel_ns);
	t->completed_while_stopped = c->hsa.signal_load(s->done) == 0;

	uint64_t t2 = probe_now_ns();
	err = probe_hold_release(&s->hold);
	t->restart_ns = probe_now_ns() - t2;
	if (err) {
		c->r->failed = true;
		t->err = err;
		return err;
	}
	if (!slept)
		return -EINTR;
	t->completed = wait_done(s, 4 * s->kernel_ns + 2000 * MS);
	t->finish_ns = probe_now_ns() - t2;
	if (!t->completed)
		return hsaqm_probe_interrupted() ? -EINTR : 0;
	s->trial_pending = false;
	for (uint32_t i = 0; i < nwg * PROBE_SPIN_WG_SIZE; i++)
		if (s->out[i] != probe_lcg_jump(seed ^ i, s->iters))
			t->wrong++;
	return 0;
}

/* The verdict for a stop the KFD refused. */
static void stop_refused(struct session *s, enum stop_kind kind, int err)
{
	const char *op = kind == STOP_DBG ? "DBG_TRAP SUSPEND_QUEUES" : "UPDATE_QUEUE 0 %";
	const struct hsaqm_probe_report *r = s->c->r;

	switch (err) {
	case -EPERM:
	case -EACCES:
		probe_set_verdict(s->k, HSAQM_PROBE_NOT_SUPPORTED, "eperm", REMEDY_EPERM,
				  "%s of the process's own queue refused with EPERM%s", op,
				  s->c->runtime_enabled ? "" : " (the runtime is not enabled)");
		break;
	case -EOPNOTSUPP:
	case -ENOTTY:
		probe_set_verdict(s->k, HSAQM_PROBE_NOT_SUPPORTED, "kfd_too_old", REMEDY_KFD_OLD,
				  "%s unknown to this KFD (%u.%u)", op, r->kfd_major, r->kfd_minor);
		break;
	case -EINVAL:
		if (r->sched_policy == 2)
			probe_set_verdict(s->k, HSAQM_PROBE_NOT_SUPPORTED, "no_hws", REMEDY_NO_HWS,
					  "%s refused: sched_policy 2 (no hardware scheduler)", op);
		else
			probe_set_verdict(s->k, HSAQM_PROBE_NOT_SUPPORTED, "kfd_refused", "",
					  "%s refused with EINVAL", op);
		break;
	case -ENOENT:
		probe_set_verdict(s->k, HSAQM_PROBE_COULD_NOT_TEST, "queue_invalid", "",
				  "could not test: the KFD marked the probe's queue invalid");
		break;
	default:
		probe_set_verdict(s->k, HSAQM_PROBE_NOT_SUPPORTED, "stop_failed", "",
				  "%s failed: %s", op, probe_errname(err));
	}
}

/* Run @n trials of @kind with @nwg workgroups; samples into the arrays (NULL = skip). */
struct series {
	uint64_t *stop, *restart, *finish, *ctl, *save;
	uint32_t done, inconclusive, not_stopped, lost, wrong, wrong_trials, wave_state;
};

static int run_series(struct session *s, enum stop_kind kind, uint32_t nwg, uint32_t n,
		      const char *label, struct series *out, bool first_series)
{
	struct probe_ctx *c = s->c;

	/* Inconclusive trials are tried again, up to 2 n more attempts in all. */
	for (uint32_t i = 0, attempts = 0; out->done < n && attempts < 3 * n; attempts++) {
		struct trial t;
		int err;

		i = out->done;
		if (expired(s))
			return -ETIMEDOUT;
		enum hsaqm_probe_check_id id = kind == STOP_DBG ? HSAQM_PROBE_CHECK_LV3 :
								  HSAQM_PROBE_CHECK_UPDATE_QUEUE;

		probe_progress_trial(c, "GPU %u %s: %s trial %u of %u", s->g->index,
				     hsaqm_probe_check_name(id), label, i + 1, n);
		err = trial(s, kind, nwg, 0x9e3779b9u * (attempts + 1) + nwg,
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
			out->lost++;
			return 0; /* the queue holds a kernel that never ends: stop here */
		}
		if (t.wrong) {
			out->wrong += t.wrong;
			out->wrong_trials++;
		}
		out->stop[out->done] = t.stop_ns;
		out->restart[out->done] = t.restart_ns;
		out->finish[out->done] = t.finish_ns;
		out->ctl[out->done] = t.ctl_used;
		out->save[out->done] = t.save_used;
		if (t.wave_state && t.ctl_used)
			out->wave_state++;
		out->done++;
	}
	return 0;
}

static bool series_verdict(struct session *s, const struct series *x, const char *what)
{
	if (x->wrong) {
		probe_set_verdict(s->k, HSAQM_PROBE_NOT_SUPPORTED, "wrong_results",
				  "do not use mid-kernel preemption on this GPU (hsaqm falls back "
				  "to Lv2); report it with this output",
				  "%s: %u work-items computed wrong results after the restart: "
				  "waves were not restored faithfully", what, x->wrong);
		return false;
	}
	if (x->lost) {
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
				  "could not test: the spin kernel finished before every stop");
		return false;
	}
	return true;
}

static void add_series_figures(struct session *s, const struct series *x, const char *suffix)
{
	char name[48];

	snprintf(name, sizeof(name), "stop_%s", suffix);
	probe_add_figure(s->k, name, "ns", x->stop, x->done);
	snprintf(name, sizeof(name), "restart_%s", suffix);
	probe_add_figure(s->k, name, "ns", x->restart, x->done);
	snprintf(name, sizeof(name), "finish_%s", suffix);
	probe_add_figure(s->k, name, "ns", x->finish, x->done);
}

static int alloc_series(struct series *x, uint32_t n)
{
	memset(x, 0, sizeof(*x));
	x->stop = calloc(n, sizeof(uint64_t));
	x->restart = calloc(n, sizeof(uint64_t));
	x->finish = calloc(n, sizeof(uint64_t));
	x->ctl = calloc(n, sizeof(uint64_t));
	x->save = calloc(n, sizeof(uint64_t));
	return x->stop && x->restart && x->finish && x->ctl && x->save ? 0 : -ENOMEM;
}

static void free_series(struct series *x)
{
	free(x->stop);
	free(x->restart);
	free(x->finish);
	free(x->ctl);
	free(x->save);
}

static void waves_fact(struct session *s, struct series *x, uint32_t waves)
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
			       "with exact results after the restart", waves);
	}
}

void probe_check_lv3(struct probe_ctx *c, struct hsaqm_probe_gpu *g, struct hsaqm_probe_check *k)
{
	const struct hsaqm_probe_report *r = c->r;
	struct session s = { .c = c, .g = g, .k = k };
	struct series full, one;
	int err;

	/* What the target says before anything runs. */
	if (r->kfd_major != 1 || r->kfd_minor < 13) {
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "kfd_too_old", REMEDY_KFD_OLD,
				  "KFD ioctl interface %u.%u has no DBG_TRAP (needs 1.13)",
				  r->kfd_major, r->kfd_minor);
		return;
	}
	if (r->sched_policy == 2) {
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "no_hws", REMEDY_NO_HWS,
				  "sched_policy 2 (no hardware scheduler): DBG_TRAP refuses it");
		return;
	}
	if (r->cwsr_enable == 0) {
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "cwsr_off", REMEDY_CWSR,
				  "cwsr_enable 0: running waves cannot be saved, a suspend waits "
				  "for them to finish");
		return;
	}
	if (!g->cap_trap_debug) {
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "no_trap_debug", "",
				  "the GPU does not report TRAP_DEBUG_SUPPORT");
		return;
	}
	if (!g->cap_trap_debug_fw) {
		probe_set_verdict(k, HSAQM_PROBE_NOT_SUPPORTED, "trap_debug_firmware", REMEDY_FW,
				  "the GPU's firmware lacks TRAP_DEBUG_FIRMWARE_SUPPORTED");
		return;
	}
	if (!common_gates(&s))
		return;
	s.deadline = probe_now_ns() + c->check_timeout_ns;
	if (alloc_series(&full, c->trials) || alloc_series(&one, c->trials)) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "no_memory", "", "out of memory");
		goto out;
	}
	if (!session_open(&s, 1u << 16))
		goto out;

	err = hsaqm_kfd_dbg_enable(c->kfd, 0, NULL);
	if (err == -EALREADY) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "debugger_attached",
				  REMEDY_EALREADY,
				  "could not test: another debugger holds DBG_TRAP on this process "
				  "(EALREADY)");
		goto out;
	}
	if (err) {
		stop_refused(&s, STOP_DBG, err);
		probe_add_fact(k, "failed_call", "DBG_TRAP ENABLE: %s", probe_errname(err));
		goto out;
	}
	s.dbg_enabled = true;
	err = probe_queue_find_id(c, &s.q);
	if (err) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "queue_not_found", "",
				  "could not test: GET_QUEUE_SNAPSHOT does not list the probe's "
				  "queue by its ring address (%s)", probe_errname(err));
		goto out;
	}
	probe_add_fact(k, "queue", "KFD queue %u (%s), ring 0x%llx, found by ring address",
		       s.q.queue_id,
		       s.q.via_kfd ? "made through the KFD" : "made by the HSA runtime",
		       (unsigned long long)s.q.ring_base);
	probe_add_fact(k, "kernel", "%s", s.kern.what);
	err = calibrate(&s);
	if (err) {
		if (err == -EINTR)
			goto interrupted;
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "kernel_failed", "",
				  "could not test: the spin kernel did not run (%s)",
				  probe_errname(err));
		goto out;
	}

	err = run_series(&s, STOP_DBG, s.full_wg, c->trials, "full occupancy", &full, true);
	if (!err && !full.lost)
		err = run_series(&s, STOP_DBG, 1, c->trials, "one wave", &one, false);
	if (err == -EINTR)
		goto interrupted;
	if (err == -ETIMEDOUT) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "timeout", "",
				  "could not test: the check ran out of time after %u trials",
				  full.done + one.done);
		goto figures;
	}
	if (err) {
		stop_refused(&s, STOP_DBG, err);
		goto out;
	}
	if (!series_verdict(&s, &full, "full occupancy") || !series_verdict(&s, &one, "one wave"))
		goto figures;
	probe_set_verdict(k, HSAQM_PROBE_SUPPORTED, "ok", "",
			  "suspended mid-kernel and resumed with exact results in %u trials",
			  full.done + one.done);
figures:
	k->trials = full.done + one.done;
	add_series_figures(&s, &full, "full");
	add_series_figures(&s, &one, "1wave");
	waves_fact(&s, &full, s.full_wg);
	probe_add_fact(k, "results", "%u of %u trials ran to exact LCG results (%u work-items "
		       "each at full occupancy)",
		       full.done + one.done - full.wrong_trials - one.wrong_trials,
		       full.done + one.done, s.full_wg * PROBE_SPIN_WG_SIZE);
	probe_add_fact(k, "stopped_while_suspended",
		       "%s: the kernel did not finish during a %llu ms hold longer than its rest",
		       full.not_stopped + one.not_stopped ? "no" : "yes",
		       (unsigned long long)(s.kernel_ns / MS));
	{
		/*
		 * Per-wave costs from the slope between one wave and a full GPU: the suspend ioctl
		 * returns once waves are saved; the resume ioctl returns before they are restored
		 * (the map goes on behind it), so restore shows in the time to finish instead.
		 * The CUs save and restore their waves at the same time, so the slope is per wave
		 * on one CU (the unit of sim/'s cwsr_*_ns_per_wave): a full GPU has full_wg /
		 * cu_count one-wave workgroups on each CU.
		 */
		const struct hsaqm_probe_figure *sf = probe_find_figure(k, "stop_full"),
						*s1 = probe_find_figure(k, "stop_1wave"),
						*ff = probe_find_figure(k, "finish_full"),
						*f1 = probe_find_figure(k, "finish_1wave");
		uint32_t per_cu = s.g->cu_count ? s.full_wg / s.g->cu_count : s.full_wg;

		if (sf && s1 && per_cu > 1 && sf->median > s1->median)
			probe_add_fact(k, "cwsr_save_ns_per_wave", "%llu",
				       (unsigned long long)((sf->median - s1->median) /
							    (per_cu - 1)));
		if (ff && f1 && per_cu > 1 && ff->median > f1->median)
			probe_add_fact(k, "cwsr_restore_ns_per_wave", "%llu",
				       (unsigned long long)((ff->median - f1->median) /
							    (per_cu - 1)));
	}
	if (full.inconclusive + one.inconclusive)
		probe_add_fact(k, "inconclusive", "%u trials ended before the stop",
			       full.inconclusive + one.inconclusive);
	goto out;
interrupted:
	probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "interrupted", "",
			  "could not test: interrupted by signal %d (the queue was resumed)",
			  hsaqm_probe_interrupted());
out:
	free_session(&s);
	free_series(&full);
	free_series(&one);
}

void probe_check_update_queue(struct probe_ctx *c, struct hsaqm_probe_gpu *g,
			      struct hsaqm_probe_check *k)
{
	struct session s = { .c = c, .g = g, .k = k };
	struct series x;
	uint32_t n = c->trials < 5 ? c->trials : 5;
	int err;

	if (!c->o->allow_disruptive) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "not_allowed",
				  "run with --allow-disruptive on a GPU no other process uses",
				  "not run: UPDATE_QUEUE with percentage 0 unmaps every queue "
				  "of the GPU and has been reported to wedge a shared GPU");
		return;
	}
	probe_others(c, g); /* again: processes come and go */
	if (!c->o->force && (!g->others.known || g->others.queues)) {
		if (g->others.known)
			probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "shared_gpu",
					  "run when the GPU is idle, or pass --force to accept "
					  "the risk",
					  "refused: %u other process(es) have %u KFD queue(s) on "
					  "this GPU (%s)", g->others.processes, g->others.queues,
					  g->others.source);
		else
			probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "shared_gpu",
					  "pass --force if you know the GPU is not shared",
					  "refused: whether other processes use this GPU is "
					  "unknown (%s)", g->others.source);
		return;
	}
	if (!common_gates(&s))
		return;
	s.deadline = probe_now_ns() + c->check_timeout_ns;
	if (alloc_series(&x, n ? n : 1)) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "no_memory", "", "out of memory");
		return;
	}
	if (!session_open(&s, 1u << 16))
		goto out;
	if (!s.q.have_id) {
		/* A runtime's queue: only the debugger snapshot tells its id. */
		err = hsaqm_kfd_dbg_enable(c->kfd, 0, NULL);
		if (!err)
			s.dbg_enabled = true;
		err = err ? err : probe_queue_find_id(c, &s.q);
		if (err) {
			probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "queue_id_unknown", "",
					  "could not test: the KFD queue id of the runtime's "
					  "queue is only known through DBG_TRAP (%s)",
					  probe_errname(err));
			goto out;
		}
	}
	err = calibrate(&s);
	if (!err)
		err = run_series(&s, STOP_UPDATE, s.full_wg, n, "full occupancy", &x, false);
	if (err == -EINTR) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "interrupted", "",
				  "could not test: interrupted by signal %d (the queue was "
				  "reactivated)", hsaqm_probe_interrupted());
		goto out;
	}
	if (err == -ETIMEDOUT) {
		probe_set_verdict(k, HSAQM_PROBE_COULD_NOT_TEST, "timeout", "",
				  "could not test: the check ran out of time");
		goto out;
	}
	if (err) {
		stop_refused(&s, STOP_UPDATE, err);
		goto out;
	}
	if (series_verdict(&s, &x, "UPDATE_QUEUE 0 %"))
		probe_set_verdict(k, HSAQM_PROBE_SUPPORTED, "ok", "",
				  "deactivated mid-kernel and reactivated with exact results in %u "
				  "trials (every queue of the GPU was unmapped each time)", x.done);
	k->trials = x.done;
	add_series_figures(&s, &x, "full");
	waves_fact(&s, &x, s.full_wg);
out:
	free_session(&s);
	free_series(&x);
}
