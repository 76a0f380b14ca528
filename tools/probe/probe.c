// SPDX-License-Identifier: MIT
/*
 * probe.c - one run of the probe: preflight of the host, inventory of the target's GPUs, the
 * live checks on the selected ones, then cleanup that restarts anything still stopped.
 * The target (a KFD transport, its sysfs, an HSA table) comes from the caller, so the same run
 * happens on /dev/kfd + ROCr and on the device model.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hsaqm/hsaqm.h"
#include "probe_internal.h"
#include "hsaqm-common/text.h"

/* ---- small helpers --------------------------------------------------------------------- */

void probe_strlcpy(char *dst, const char *src, size_t size)
{
	if (!size)
		return;
	snprintf(dst, size, "%s", src ? src : "");
}

const char *probe_errname(int err)
{
	static __thread char buf[96];
	char nbuf[24];
	int e = err < 0 ? -err : err;

	/* The name from the one errno namer (hsaqm-common/text.h), the C library's words beside it. */
	snprintf(buf, sizeof(buf), "%s (%s)", hsaqm_errno_name(e, nbuf, sizeof(nbuf)), strerror(e));
	return buf;
}

void probe_set_verdict(struct hsaqm_probe_check *k, enum hsaqm_probe_verdict v, const char *code,
		       const char *remedy, const char *fmt, ...)
{
	va_list ap;

	k->ran = true;
	k->verdict = v;
	probe_strlcpy(k->reason_code, code, sizeof(k->reason_code));
	probe_strlcpy(k->remedy, remedy, sizeof(k->remedy));
	va_start(ap, fmt);
	vsnprintf(k->reason, sizeof(k->reason), fmt, ap);
	va_end(ap);
}

void probe_add_fact(struct hsaqm_probe_check *k, const char *key, const char *fmt, ...)
{
	struct hsaqm_probe_fact *f = NULL;
	va_list ap;

	for (uint32_t i = 0; i < k->nfacts; i++)
		if (!strcmp(k->facts[i].key, key))
			f = &k->facts[i];
	if (!f) {
		if (k->nfacts >= HSAQM_PROBE_MAX_FACTS)
			return;
		f = &k->facts[k->nfacts++];
		probe_strlcpy(f->key, key, sizeof(f->key));
	}
	va_start(ap, fmt);
	vsnprintf(f->value, sizeof(f->value), fmt, ap);
	va_end(ap);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void probe_add_figure(struct hsaqm_probe_check *k, const char *name, const char *unit,
		      uint64_t *samples, uint32_t n)
{
	struct hsaqm_probe_figure *f;

	if (!n || k->nfig >= HSAQM_PROBE_MAX_FIGURES)
		return;
	f = &k->fig[k->nfig++];
	memset(f, 0, sizeof(*f));
	probe_strlcpy(f->name, name, sizeof(f->name));
	probe_strlcpy(f->unit, unit, sizeof(f->unit));
	f->n = n;
	f->first = samples[0];
	qsort(samples, n, sizeof(samples[0]), cmp_u64);
	f->min = samples[0];
	f->max = samples[n - 1];
	/* Nearest-rank percentiles: with few trials P99 is the maximum, said so in the docs. */
	f->median = samples[(n - 1) / 2];
	uint32_t r99 = (uint32_t)((99ull * n + 99) / 100);
	f->p99 = samples[(r99 ? r99 : 1) - 1];
}

const struct hsaqm_probe_figure *probe_find_figure(const struct hsaqm_probe_check *k,
						   const char *name)
{
	for (uint32_t i = 0; i < k->nfig; i++)
		if (!strcmp(k->fig[i].name, name))
			return &k->fig[i];
	return NULL;
}

static void progress_v(const struct probe_ctx *c, bool trial, const char *fmt, va_list ap)
{
	struct probe_ctx *m = (struct probe_ctx *)c; /* only the line state changes */
	FILE *f = c->env->progress;

	if (!f)
		return;
	if (m->progress_open_line)
		fputs("\r\033[K", f);
	fprintf(f, "hsa-queue-probe: ");
	vfprintf(f, fmt, ap);
	m->progress_open_line = trial && c->env->progress_tty;
	if (!m->progress_open_line)
		fputc('\n', f);
	fflush(f);
}

void probe_progress(const struct probe_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	progress_v(c, false, fmt, ap);
	va_end(ap);
}

void probe_progress_trial(const struct probe_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	progress_v(c, true, fmt, ap);
	va_end(ap);
}

void probe_add_finding(struct hsaqm_probe_report *r, enum hsaqm_probe_level level,
		       const char *what, const char *remedy, const char *fmt, ...)
{
	struct hsaqm_probe_finding *f;
	va_list ap;

	if (r->nfindings >= HSAQM_PROBE_MAX_FINDINGS)
		return;
	f = &r->findings[r->nfindings++];
	f->level = level;
	probe_strlcpy(f->what, what, sizeof(f->what));
	probe_strlcpy(f->remedy, remedy, sizeof(f->remedy));
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
}

const char *hsaqm_probe_verdict_name(enum hsaqm_probe_verdict v)
{
	switch (v) {
	case HSAQM_PROBE_SUPPORTED:
		return "supported";
	case HSAQM_PROBE_NOT_SUPPORTED:
		return "not supported";
	case HSAQM_PROBE_COULD_NOT_TEST:
		return "could not test";
	}
	return "?";
}

const char *hsaqm_probe_check_name(enum hsaqm_probe_check_id id)
{
	static const char *const n[HSAQM_PROBE_NCHECKS] = { "lv1", "lv2", "lv3", "update_queue",
							     "cu_mask" };

	return (unsigned int)id < HSAQM_PROBE_NCHECKS ? n[id] : "?";
}

int hsaqm_probe_gfx_name(uint32_t v, char *buf, size_t size)
{
	if (!buf || size < 8 || !v)
		return -EINVAL;
	snprintf(buf, size, "gfx%u%u%x", v / 10000, (v / 100) % 100, v % 100);
	return 0;
}

/* ---- the HSA runtime ---------------------------------------------------------------------- */

/* A runtime's string for the report: printable ASCII only, so the JSON stays valid UTF-8. */
static void copy_printable(char *dst, size_t n, const char *src)
{
	size_t i = 0;

	for (; i + 1 < n && src[i]; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

bool probe_hsa_ready(struct probe_ctx *c)
{
	void *root = c->env->hsa_root_table;
	char path[256] = "";
	int err;

	if (c->hsa_tried)
		return c->hsa_ok;
	c->hsa_tried = true;
	if (!root) {
		err = probe_rocr_load(&c->rocr, &root, path, sizeof(path), c->hsa_why,
				      sizeof(c->hsa_why));
		if (err) {
			snprintf(c->r->hsa_runtime, sizeof(c->r->hsa_runtime), "none: %.140s",
				 c->hsa_why);
			return false;
		}
	}
	err = probe_hsa_from_table(&c->hsa, root, c->hsa_why, sizeof(c->hsa_why));
	if (err) {
		snprintf(c->r->hsa_runtime, sizeof(c->r->hsa_runtime), "unusable: %.140s",
			 c->hsa_why);
		return false;
	}
	hsaqm_hsa_status_t st = c->hsa.init();
	if (st) {
		snprintf(c->hsa_why, sizeof(c->hsa_why), "hsa_init failed (status 0x%x)", st);
		snprintf(c->r->hsa_runtime, sizeof(c->r->hsa_runtime), "%.60s: %.90s",
			 *path ? path : "HSA runtime", c->hsa_why);
		return false;
	}
	c->hsa.initialized = true;
	/*
	 * The runtime enabled on the KFD before any check makes a queue, as hsaqm's tool does at
	 * OnLoad (hsaqm_hsa_lv3_prepare): ROCr from 5.5 did it in hsa_init (EBUSY here); ROCm
	 * 5.2's libhsakmt never does it the upstream way, and the KFD enables it only while the
	 * process has no queue (EEXIST), so Lv3's suspend would get EPERM where the tool's works.
	 */
	if (c->env->runtime_enable && c->kfd && !c->runtime_enabled) {
		err = hsaqm_kfd_runtime_enable(c->kfd, 0, true);
		c->runtime_enable_err = err;
		c->runtime_enabled = err == 0 || err == -EBUSY;
	}
	/* Waits in the runtime's clock sleep on a signal nothing ever stores to (wait.c). */
	c->have_never = c->hsa.signal_create(1, 0, NULL, &c->never) == HSAQM_HSA_STATUS_SUCCESS;
	uint16_t maj = 0, min = 0;
	char build[64] = "";
	const char *build_id = NULL;
	c->hsa.system_get_info(PROBE_HSA_SYSTEM_INFO_VERSION_MAJOR, &maj);
	c->hsa.system_get_info(PROBE_HSA_SYSTEM_INFO_VERSION_MINOR, &min);
	/*
	 * ROCr answers the build identifier with a pointer to its own string, not the characters
	 * (as the model's HSA face does): reading it as characters put the pointer's bytes, not
	 * UTF-8, into every report of a real ROCr.
	 */
	if (c->hsa.system_get_info(PROBE_HSA_AMD_SYSTEM_INFO_BUILD_VERSION, &build_id) == 0 &&
	    build_id)
		copy_printable(build, sizeof(build), build_id);
	if (c->env->is_model && !*path)
		snprintf(c->r->hsa_runtime, sizeof(c->r->hsa_runtime),
			 "model HSA face (HSA %u.%u, table %s)", maj, min, c->hsa.layout.name);
	else
		/* A real ROCr, possibly over the emulated /dev/kfd (then is_model, said there). */
		snprintf(c->r->hsa_runtime, sizeof(c->r->hsa_runtime),
			 "ROCr %s (HSA %u.%u%s%s)", *path ? path : "(table given)", maj, min,
			 *build ? ", build " : "", build);
	c->hsa_ok = true;
	return true;
}

/* ---- the run ------------------------------------------------------------------------------- */

static void fill_header(struct hsaqm_probe_report *r, const struct hsaqm_probe_env *env)
{
	time_t now = time(NULL);
	struct tm tm;

	r->schema_version = HSAQM_PROBE_SCHEMA_VERSION;
	probe_strlcpy(r->tool_version, hsaqm_version_string(), sizeof(r->tool_version));
	if (gethostname(r->host, sizeof(r->host)))
		probe_strlcpy(r->host, "unknown", sizeof(r->host));
	r->host[sizeof(r->host) - 1] = '\0';
	gmtime_r(&now, &tm);
	strftime(r->date, sizeof(r->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	r->is_model = env->is_model;
	probe_strlcpy(r->model_name, env->is_model ? (env->model_name ? env->model_name :
						       "hsaqm device model") : "",
		      sizeof(r->model_name));
	probe_strlcpy(r->target_kfd, env->tp && env->tp->dev_path ? env->tp->dev_path : "/dev/kfd",
		      sizeof(r->target_kfd));
	r->sched_policy = r->cwsr_enable = r->hws_max_conc_proc = -1;
	r->queue_preemption_timeout_ms = r->mes = -1;
}

static void read_params(struct probe_ctx *c)
{
	struct hsaqm_kfd_module_params p;
	struct hsaqm_probe_report *r = c->r;

	if (!c->env->sysfs_root || hsaqm_topology_module_params(c->env->sysfs_root, &p))
		return;
	if (p.present & HSAQM_KFD_PARAM_SCHED_POLICY)
		r->sched_policy = p.sched_policy;
	if (p.present & HSAQM_KFD_PARAM_CWSR_ENABLE)
		r->cwsr_enable = p.cwsr_enable;
	if (p.present & HSAQM_KFD_PARAM_HWS_MAX_CONC_PROC)
		r->hws_max_conc_proc = p.hws_max_conc_proc;
	if (p.present & HSAQM_KFD_PARAM_QUEUE_PREEMPTION_TIMEOUT_MS)
		r->queue_preemption_timeout_ms = p.queue_preemption_timeout_ms;
	if (p.present & HSAQM_KFD_PARAM_MES)
		r->mes = p.mes;
}

static void run_checks(struct probe_ctx *c, struct hsaqm_probe_gpu *g)
{
	static const char *const titles[HSAQM_PROBE_NCHECKS] = {
		"Lv1 progressive launch", "Lv2 guardian gate", "Lv3 DBG_TRAP suspend/resume",
		"Lv3 UPDATE_QUEUE percentage 0", "spatial: CU mask mid-kernel",
	};
	void (*const fns[HSAQM_PROBE_NCHECKS])(struct probe_ctx *, struct hsaqm_probe_gpu *,
					       struct hsaqm_probe_check *) = {
		probe_check_lv1, probe_check_lv2, probe_check_lv3, probe_check_update_queue,
		probe_check_cu_mask,
	};

	for (int i = 0; i < HSAQM_PROBE_NCHECKS; i++) {
		struct hsaqm_probe_check *k = &g->checks[i];

		if (hsaqm_probe_interrupted())
			return;
		if (c->o->checks && !(c->o->checks & (1u << i)))
			continue;
		probe_progress(c, "GPU %u (%s): %s", g->index, g->gfx, titles[i]);
		fns[i](c, g, k);
		k->ran = true;
		probe_progress(c, "GPU %u (%s): %s: %s%s%s", g->index, g->gfx, titles[i],
			       hsaqm_probe_verdict_name(k->verdict), *k->reason ? ": " : "",
			       k->reason);
	}
}

int hsaqm_probe_run(const struct hsaqm_probe_options *opt, const struct hsaqm_probe_env *env,
		    struct hsaqm_probe_report **out)
{
	static const struct hsaqm_probe_options defaults = { .device = -1 };
	const struct hsaqm_probe_options *o = opt ? opt : &defaults;
	struct probe_ctx c;
	struct hsaqm_probe_report *r;
	uint64_t t0 = probe_now_ns();
	int err;

	if (!env || !out || !env->tp)
		return -EINVAL;
	if (o->device < -1 || o->trials > HSAQM_PROBE_TRIALS_MAX ||
	    o->checks >= (1u << HSAQM_PROBE_NCHECKS) ||
	    o->lv2_interval > HSAQM_PROBE_LV2_INTERVAL_MAX)
		return -EINVAL;
	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.env = env;
	c.r = r;
	c.trials = o->trials ? o->trials :
		   (o->quick ? HSAQM_PROBE_TRIALS_QUICK : HSAQM_PROBE_TRIALS_DEFAULT);
	c.check_timeout_ns = (uint64_t)(o->check_timeout_ms ? o->check_timeout_ms :
					(o->quick ? 20000u : 60000u)) * 1000000ull;
	fill_header(r, env);
	r->trials = c.trials;
	r->quick = o->quick;
	r->allow_disruptive = o->allow_disruptive;
	r->force = o->force;
	r->device = o->device;
	r->lv2_interval = o->lv2_interval ? o->lv2_interval : 1;

	probe_preflight(&c);

	if (env->kfd) {
		c.kfd = env->kfd;
	} else {
		err = hsaqm_kfd_open(env->tp, &c.kfd);
		if (err) {
			c.kfd = NULL;
			r->kfd_open_errno = -err;
		} else {
			c.own_kfd = true;
		}
	}
	r->kfd_open = c.kfd != NULL;
	if (c.kfd)
		hsaqm_kfd_get_version(c.kfd, &r->kfd_major, &r->kfd_minor);
	read_params(&c);
	probe_preflight_target(&c);
	probe_strlcpy(r->hsa_runtime, "not loaded (no live check ran)", sizeof(r->hsa_runtime));

	err = probe_inventory(&c);
	if (!err && o->device >= 0 && (uint32_t)o->device >= r->ngpus)
		err = -ENODEV;
	if (err == -ENODEV && o->device >= 0) {
		/* Asking for a GPU the target does not have is the caller's error. */
		hsaqm_topology_free(c.topo);
		if (c.own_kfd)
			hsaqm_kfd_close(c.kfd);
		free(r);
		return -ENODEV;
	}

	if (c.kfd && !o->no_live) {
		for (uint32_t i = 0; i < r->ngpus && !hsaqm_probe_interrupted(); i++)
			if (o->device < 0 || (uint32_t)o->device == i)
				run_checks(&c, &r->gpus[i]);
	}

	/* Whatever a check could not restart gets another try here (and at exit). */
	if (probe_hold_release_all()) {
		r->failed = true;
		probe_strlcpy(r->failure,
			      "a queue the probe stopped could not be restarted: the KFD refused "
			      "the resume (see the log with HSAQM_LOG=warn)",
			      sizeof(r->failure));
	}
	if (c.have_never)
		c.hsa.signal_destroy(c.never);
	if (c.hsa.initialized)
		c.hsa.shut_down();
	probe_rocr_unload(c.rocr);
	hsaqm_topology_free(c.topo);
	if (c.own_kfd)
		hsaqm_kfd_close(c.kfd);
	r->interrupted = hsaqm_probe_interrupted() != 0;
	r->duration_ns = probe_now_ns() - t0;
	*out = r;
	return 0;
}

void hsaqm_probe_report_free(struct hsaqm_probe_report *r)
{
	free(r);
}

int hsaqm_probe_exit_code(const struct hsaqm_probe_report *r)
{
	if (!r || r->interrupted || r->failed)
		return HSAQM_PROBE_EXIT_FAILURE;
	return r->is_model ? HSAQM_PROBE_EXIT_MODEL : HSAQM_PROBE_EXIT_HARDWARE;
}

/*
 * The emulated /dev/kfd (sim/kfdemu/) says so in its topology, with a file no KFD has: the
 * real path then measures the model, and every figure is a model figure.
 */
static bool emulated_kfd(const char *sysfs_root)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/class/kfd/kfd/topology/hsaqm_model", sysfs_root);
	return access(path, F_OK) == 0;
}

int hsaqm_probe_env_system(struct hsaqm_probe_env *env)
{
	if (!env)
		return -EINVAL;
	memset(env, 0, sizeof(*env));
	env->tp = hsaqm_kfd_transport_system();
	env->sysfs_root = env->tp->sysfs_root ? env->tp->sysfs_root : "/sys";
	env->debugfs_root = "/sys/kernel/debug";
	env->queues_via_kfd = false;
	/* ROCr has enabled the runtime in hsa_init: the probe's own enable answers EBUSY. */
	env->runtime_enable = true;
	env->is_model = emulated_kfd(env->sysfs_root);
	if (env->is_model)
		env->model_name = "hsaqm device model behind an emulated /dev/kfd (libhsaqm-kfdemu)";
	return 0;
}
