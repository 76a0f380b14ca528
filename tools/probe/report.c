// SPDX-License-Identifier: MIT
/*
 * report.c - the report in three forms: text for a terminal (colour only when the caller says
 * so), JSON (schema in docs/probe-report.md and report-schema.json), Markdown for sharing;
 * and the measured constants in the timing format sim/ loads.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hsaqm-common/json.h"
#include "probe_internal.h"

#define C_RESET "\033[0m"
#define C_GREEN "\033[32m"
#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_BOLD "\033[1m"

static const char *check_title(int id)
{
	static const char *const t[HSAQM_PROBE_NCHECKS] = {
		"Lv1 progressive launch", "Lv2 guardian gate", "Lv3 DBG_TRAP suspend/resume",
		"Lv3 UPDATE_QUEUE percentage 0", "spatial: CU mask mid-kernel",
	};

	return id >= 0 && id < HSAQM_PROBE_NCHECKS ? t[id] : "?";
}

static const char *verdict_id(const struct hsaqm_probe_check *k)
{
	if (!k->ran)
		return "not_run";
	switch (k->verdict) {
	case HSAQM_PROBE_SUPPORTED:
		return "supported";
	case HSAQM_PROBE_NOT_SUPPORTED:
		return "not_supported";
	case HSAQM_PROBE_COULD_NOT_TEST:
		return "could_not_test";
	}
	return "?";
}

/* A readable label for a figure of check @id. */
static void figure_label(int id, const struct hsaqm_probe_figure *f, uint32_t full_waves,
			 char *buf, size_t len)
{
	const char *stop = id == HSAQM_PROBE_CHECK_UPDATE_QUEUE ? "deactivate (0 %)" :
								 "suspend ioctl";
	const char *restart = id == HSAQM_PROBE_CHECK_UPDATE_QUEUE ? "reactivate (100 %)" :
								    "resume ioctl";

	if (!strcmp(f->name, "queue_create"))
		snprintf(buf, len, "queue creation");
	else if (!strcmp(f->name, "stop_full"))
		snprintf(buf, len, "%s, %u waves", stop, full_waves);
	else if (!strcmp(f->name, "stop_1wave"))
		snprintf(buf, len, "%s, 1 wave", stop);
	else if (!strcmp(f->name, "restart_full"))
		snprintf(buf, len, "%s, %u waves", restart, full_waves);
	else if (!strcmp(f->name, "restart_1wave"))
		snprintf(buf, len, "%s, 1 wave", restart);
	else if (!strcmp(f->name, "finish_full"))
		snprintf(buf, len, "restart -> kernel done, %u waves", full_waves);
	else if (!strcmp(f->name, "finish_1wave"))
		snprintf(buf, len, "restart -> kernel done, 1 wave");
	else if (!strcmp(f->name, "stop_host_full"))
		snprintf(buf, len, "%s, host clock, %u waves", stop, full_waves);
	else if (!strcmp(f->name, "lost_full"))
		snprintf(buf, len, "time lost to the stop, %u waves", full_waves);
	else if (!strcmp(f->name, "lost_1wave"))
		snprintf(buf, len, "time lost to the stop, 1 wave");
	else if (!strcmp(f->name, "mask_effect"))
		snprintf(buf, len, "mask -> reserved CUs serve queue 2");
	else if (!strcmp(f->name, "reserve_kept"))
		snprintf(buf, len, "reserve kept: submit -> running");
	else if (!strcmp(f->name, "mask_call"))
		snprintf(buf, len, "cu_set_mask call");
	else if (!strcmp(f->name, "mask_call_host"))
		snprintf(buf, len, "cu_set_mask call, host clock");
	else if (!strcmp(f->name, "ctl_stack_used_full"))
		snprintf(buf, len, "control stack in use (stopped)");
	else if (!strcmp(f->name, "save_area_used_full"))
		snprintf(buf, len, "wave save area in use (stopped)");
	else if (!strcmp(f->name, "drain"))
		snprintf(buf, len, id == HSAQM_PROBE_CHECK_LV2 ? "gate closed -> queue dry" :
							      "hold -> released work done");
	else if (!strcmp(f->name, "inflight_at_hold"))
		snprintf(buf, len, "kernels in flight at the hold");
	else if (!strcmp(f->name, "launches_stop"))
		snprintf(buf, len, "gate closed -> last launch");
	else if (!strcmp(f->name, "launched_after_close"))
		snprintf(buf, len, "launched after the close");
	else if (!strcmp(f->name, "launches_resume"))
		snprintf(buf, len, id == HSAQM_PROBE_CHECK_LV2 ? "gate open -> next launch" :
							      "release -> next launch");
	else
		snprintf(buf, len, "%s", f->name);
}

static void fmt_value(uint64_t v, const char *unit, char *buf, size_t len)
{
	if (!strcmp(unit, "ns")) {
		if (v < 1000)
			snprintf(buf, len, "%" PRIu64 " ns", v);
		else if (v < 1000000)
			snprintf(buf, len, "%.1f us", v / 1e3);
		else if (v < 1000000000)
			snprintf(buf, len, "%.2f ms", v / 1e6);
		else
			snprintf(buf, len, "%.2f s", v / 1e9);
	} else if (!strcmp(unit, "bytes")) {
		if (v < 10240)
			snprintf(buf, len, "%" PRIu64 " B", v);
		else if (v < 10485760)
			snprintf(buf, len, "%.1f KiB", v / 1024.0);
		else
			snprintf(buf, len, "%.1f MiB", v / 1048576.0);
	} else {
		snprintf(buf, len, "%" PRIu64 " %s", v, unit);
	}
}

static uint32_t full_waves(const struct hsaqm_probe_gpu *g)
{
	uint32_t w = g->cu_count * g->simd_per_cu * g->max_waves_per_simd;

	return w ? w : 1;
}

static const char *param_text(int v)
{
	static __thread char b[4][16];
	static __thread int i;

	if (v < 0)
		return "?";
	i = (i + 1) % 4;
	snprintf(b[i], sizeof(b[i]), "%d", v);
	return b[i];
}

/* ---- text and Markdown -------------------------------------------------------------------- */

struct out {
	FILE *f;
	bool color;
	bool md;
};

static const char *col(const struct out *o, const char *c)
{
	return o->color ? c : "";
}

static const char *verdict_color(const struct hsaqm_probe_check *k)
{
	if (!k->ran)
		return "";
	return k->verdict == HSAQM_PROBE_SUPPORTED ? C_GREEN :
	       k->verdict == HSAQM_PROBE_NOT_SUPPORTED ? C_RED : C_YELLOW;
}

static void write_check_text(const struct out *o, const struct hsaqm_probe_report *r,
			     const struct hsaqm_probe_gpu *g, int id)
{
	const struct hsaqm_probe_check *k = &g->checks[id];
	const char *model = r->is_model ? " (model)" : "";

	if (o->md) {
		fprintf(o->f, "\n#### %s: **%s**\n\n", check_title(id),
			k->ran ? hsaqm_probe_verdict_name(k->verdict) : "not run");
		if (*k->reason)
			fprintf(o->f, "%s\n\n", k->reason);
		if (*k->remedy)
			fprintf(o->f, "Fix: %s\n\n", k->remedy);
		if (k->nfig) {
			fprintf(o->f, "| figure%s | median | P99 | min | max | n | first |\n",
				model);
			fprintf(o->f, "| --- | --- | --- | --- | --- | --- | --- |\n");
		}
	} else {
		fprintf(o->f, "  %-30s %s%s%-15s%s %s\n", check_title(id), col(o, verdict_color(k)),
			col(o, C_BOLD), k->ran ? hsaqm_probe_verdict_name(k->verdict) : "not run",
			col(o, C_RESET), k->reason);
		if (*k->remedy)
			fprintf(o->f, "  %30s fix: %s\n", "", k->remedy);
		if (k->nfig)
			fprintf(o->f, "      %-40s %10s %10s %10s %10s %4s %10s\n",
				r->is_model ? "figure (MODEL, not hardware)" : "figure", "median",
				"P99", "min", "max", "n", "first");
	}
	for (uint32_t i = 0; i < k->nfig; i++) {
		const struct hsaqm_probe_figure *f = &k->fig[i];
		char label[64], v[5][24];

		figure_label(id, f, full_waves(g), label, sizeof(label));
		fmt_value(f->median, f->unit, v[0], sizeof(v[0]));
		fmt_value(f->p99, f->unit, v[1], sizeof(v[1]));
		fmt_value(f->min, f->unit, v[2], sizeof(v[2]));
		fmt_value(f->max, f->unit, v[3], sizeof(v[3]));
		fmt_value(f->first, f->unit, v[4], sizeof(v[4]));
		if (o->md)
			fprintf(o->f, "| %s | %s | %s | %s | %s | %u | %s |\n", label, v[0], v[1],
				v[2], v[3], f->n, v[4]);
		else
			fprintf(o->f, "      %-40s %10s %10s %10s %10s %4u %10s\n", label, v[0],
				v[1], v[2], v[3], f->n, v[4]);
	}
	if (o->md && k->nfacts)
		fputc('\n', o->f);
	for (uint32_t i = 0; i < k->nfacts; i++) {
		if (o->md)
			fprintf(o->f, "- %s: %s\n", k->facts[i].key, k->facts[i].value);
		else
			fprintf(o->f, "      %s: %s\n", k->facts[i].key, k->facts[i].value);
	}
}

static void write_gpu_text(const struct out *o, const struct hsaqm_probe_report *r,
			   const struct hsaqm_probe_gpu *g)
{
	const char *h = o->md ? "\n### " : "\n";
	const char *li = o->md ? "- " : "  ";
	char cwsr[24];

	fprintf(o->f, "%s%sGPU %u: %s%s [%s]\n", h, col(o, C_BOLD), g->index, g->name,
		col(o, C_RESET), g->name_source);
	if (o->md)
		fputc('\n', o->f);
	fprintf(o->f, "%snode %u, gpu_id 0x%04x, %s (gfx_target_version %u), device 0x%04x\n", li,
		g->node_id, g->gpu_id, g->gfx, g->gfx_target_version, g->device_id);
	fprintf(o->f, "%s%u XCC x %u CU = %u CU, %u SIMD/CU, %u waves/SIMD, wave%u, %u MHz\n", li,
		g->num_xcc, g->num_xcc ? g->cu_count / g->num_xcc : 0, g->cu_count, g->simd_per_cu,
		g->max_waves_per_simd, g->wave_front_size, g->max_engine_clk_mhz);
	fprintf(o->f, "%sHQD slots: %u per XCC (num_cp_queues)\n", li, g->hqd_slots_per_xcc);
	fprintf(o->f, "%sfirmware: MEC %u, SDMA %u\n", li, g->fw_version, g->sdma_fw_version);
	fprintf(o->f, "%scapabilities: trap debug %s, trap debug firmware %s, per-queue reset %s\n",
		li, g->cap_trap_debug ? "yes" : "no", g->cap_trap_debug_fw ? "yes" : "no",
		g->cap_per_queue_reset ? "yes" : "no");
	if (o->md) {
		fprintf(o->f, "  0x%08x: %s\n", g->capability, g->capability_text);
	} else {
		/* The flags, wrapped at '|' so the line stays readable in 100 columns. */
		const char *p = g->capability_text;
		int col = fprintf(o->f, "    0x%08x: ", g->capability);

		while (*p) {
			size_t n = strcspn(p + 1, "| ") + 1;

			if (col + (int)n > 98) {
				fputs("\n                ", o->f);
				col = 16;
			}
			col += (int)fwrite(p, 1, n, o->f);
			p += n;
		}
		fputc('\n', o->f);
	}
	fmt_value(g->cwsr_bytes_per_queue, "bytes", cwsr, sizeof(cwsr));
	fprintf(o->f, "%sCWSR save area per queue: %s\n", li, cwsr);
	if (g->have_hqds) {
		fprintf(o->f, "%sdebugfs hqds: %u XCC, %u user slots each, active per XCC:", li,
			g->hqds_xcc, g->hqds_slots_per_xcc);
		for (uint32_t x = 0; x < g->hqds_xcc && x < HSAQM_PROBE_MAX_XCC; x++)
			fprintf(o->f, " %u", g->hqds_active[x]);
		fputc('\n', o->f);
	} else {
		fprintf(o->f, "%sdebugfs hqds: not available\n", li);
	}
	if (g->have_rls) {
		fprintf(o->f, "%sdebugfs rls: %s", li,
			g->rls_active ? "runlist" : "no active runlist");
		for (uint32_t p = 0; p < g->rl_nprocs; p++)
			fprintf(o->f, "%s pasid 0x%x (%u queues, %u mapped)", p ? "," : ":",
				g->rl_procs[p].pasid, g->rl_procs[p].num_queues,
				g->rl_procs[p].mapped);
		fputc('\n', o->f);
	}
	if (!g->others.known)
		fprintf(o->f, "%sother KFD processes: %s\n", li, g->others.source);
	else if (!g->others.processes)
		fprintf(o->f, "%sother KFD processes: none (%s)\n", li, g->others.source);
	else {
		fprintf(o->f, "%sother KFD processes: %u with %u queues (%s)", li,
			g->others.processes, g->others.queues, g->others.source);
		for (uint32_t p = 0; p < g->others.processes && p < 8; p++)
			if (g->others.pids[p])
				fprintf(o->f, "%s%u", p ? ", " : ": pids ", g->others.pids[p]);
		fputc('\n', o->f);
	}
	fprintf(o->f, "%sdevice kernel: %s\n", li, g->kernel_text);
	fprintf(o->f, "%sLv3: %s (%s): %s\n", li,
		g->lv3.level >= 3 ? "available" : "not available", g->lv3.mechanism,
		g->lv3.reason);
	if (!o->md)
		fputc('\n', o->f);
	for (int i = 0; i < HSAQM_PROBE_NCHECKS; i++)
		if (g->checks[i].ran)
			write_check_text(o, r, g, i);
}

static void write_text(const struct out *o, const struct hsaqm_probe_report *r)
{
	static const char *const lv[] = { "ok", "warn", "FAIL" };
	static const char *const lvc[] = { C_GREEN, C_YELLOW, C_RED };
	const char *h2 = o->md ? "\n## " : "\n";

	if (o->md)
		fprintf(o->f, "# hsa-queue-probe report\n\n");
	fprintf(o->f, "%shsa-queue-probe %s%s: preemption levels of AMD GPUs (report schema %d)\n",
		o->md ? "" : col(o, C_BOLD), r->tool_version, o->md ? "" : col(o, C_RESET),
		r->schema_version);
	fprintf(o->f, "%shost %s, %s, run took %.1f s\n", o->md ? "\n" : "", r->host, r->date,
		r->duration_ns / 1e9);
	if (r->is_model)
		fprintf(o->f, "%s%s%sTARGET: %s -- MODEL FIGURES, NOT HARDWARE%s\n",
			o->md ? "\n" : "", col(o, C_YELLOW), o->md ? "**" : "", r->model_name,
			o->md ? "**" : col(o, C_RESET));
	else
		fprintf(o->f, "%sTARGET: this machine's GPUs (%s)\n", o->md ? "\n" : "",
			r->target_kfd);
	if (r->interrupted)
		fprintf(o->f, "%s%sINTERRUPTED: the run stopped early; every queue it stopped was "
			"restarted%s\n", o->md ? "\n" : "", col(o, C_RED), col(o, C_RESET));
	if (r->failed)
		fprintf(o->f, "%s%sFAILURE: %s%s\n", o->md ? "\n" : "", col(o, C_RED), r->failure,
			col(o, C_RESET));

	fprintf(o->f, "%sPreflight (this host)\n", h2);
	if (o->md)
		fputc('\n', o->f);
	for (uint32_t i = 0; i < r->nfindings; i++) {
		const struct hsaqm_probe_finding *f = &r->findings[i];

		if (o->md) {
			fprintf(o->f, "- **%s** %s%s%s\n", lv[f->level], f->text,
				*f->remedy ? ". Fix: " : "", f->remedy);
		} else {
			fprintf(o->f, "  %s%-4s%s  %s\n", col(o, lvc[f->level]), lv[f->level],
				col(o, C_RESET), f->text);
			if (*f->remedy)
				fprintf(o->f, "        fix: %s\n", f->remedy);
		}
	}

	fprintf(o->f, "%sKFD%s\n", h2, r->is_model ? " (the model's)" : "");
	if (o->md)
		fputc('\n', o->f);
	if (r->kfd_open)
		fprintf(o->f, "%s%s: ioctl interface %u.%u, sched_policy %s, cwsr_enable %s, "
			"hws_max_conc_proc %s, queue_preemption_timeout_ms %s, mes %s\n",
			o->md ? "- " : "  ", r->target_kfd, r->kfd_major, r->kfd_minor,
			param_text(r->sched_policy), param_text(r->cwsr_enable),
			param_text(r->hws_max_conc_proc),
			param_text(r->queue_preemption_timeout_ms), param_text(r->mes));
	else
		fprintf(o->f, "%s%s could not be opened: %s\n", o->md ? "- " : "  ", r->target_kfd,
			strerror(r->kfd_open_errno));
	fprintf(o->f, "%sHSA runtime: %s\n", o->md ? "- " : "  ", r->hsa_runtime);
	if (!r->ngpus)
		fprintf(o->f, "%sno GPU node in the KFD topology\n", o->md ? "\n" : "\n  ");
	for (uint32_t i = 0; i < r->ngpus; i++)
		write_gpu_text(o, r, &r->gpus[i]);
	if (r->is_model)
		fprintf(o->f, "\n%sEvery figure above comes from the hsaqm device model (sim/): "
			"model figures, not hardware results.%s\n", o->md ? "_" : "",
			o->md ? "_" : "");
}

/* ---- JSON ------------------------------------------------------------------------------------ */

/*
 * Through the project's one JSON writer (hsaqm-common/json.h), indented by two spaces; short
 * lists stay on one line. Strings: NULL as "".
 */

/* An integer, or null when negative (unknown). */
static void js_opt(struct hsaqm_json *j, const char *k, int v)
{
	if (v < 0)
		hsaqm_json_null(j, k);
	else
		hsaqm_json_int(j, k, v);
}

static void js_check(struct hsaqm_json *j, const struct hsaqm_probe_report *r, const char *key,
		     const struct hsaqm_probe_check *k)
{
	hsaqm_json_begin_object(j, key);
	hsaqm_json_bool(j, "ran", k->ran);
	hsaqm_json_string(j, "verdict", verdict_id(k));
	hsaqm_json_string(j, "reason_code", k->reason_code);
	hsaqm_json_string(j, "reason", k->reason);
	hsaqm_json_string(j, "remedy", k->remedy);
	hsaqm_json_uint(j, "trials", k->trials);
	hsaqm_json_begin_array(j, "figures");
	for (uint32_t i = 0; i < k->nfig; i++) {
		const struct hsaqm_probe_figure *g = &k->fig[i];

		hsaqm_json_begin_object(j, NULL);
		hsaqm_json_string(j, "name", g->name);
		hsaqm_json_string(j, "unit", g->unit);
		hsaqm_json_uint(j, "n", g->n);
		hsaqm_json_uint(j, "median", g->median);
		hsaqm_json_uint(j, "p99", g->p99);
		hsaqm_json_uint(j, "min", g->min);
		hsaqm_json_uint(j, "max", g->max);
		hsaqm_json_uint(j, "first", g->first);
		hsaqm_json_string(j, "source", r->is_model ? "model" : "hardware");
		hsaqm_json_end_object(j);
	}
	hsaqm_json_end_array(j);
	hsaqm_json_begin_object(j, "facts");
	for (uint32_t i = 0; i < k->nfacts; i++)
		hsaqm_json_string(j, k->facts[i].key, k->facts[i].value);
	hsaqm_json_end_object(j);
	hsaqm_json_end_object(j);
}

static void js_gpu(struct hsaqm_json *j, const struct hsaqm_probe_report *r,
		   const struct hsaqm_probe_gpu *g)
{
	hsaqm_json_begin_object(j, NULL);
	hsaqm_json_uint(j, "index", g->index);
	hsaqm_json_uint(j, "node_id", g->node_id);
	hsaqm_json_uint(j, "gpu_id", g->gpu_id);
	hsaqm_json_string(j, "name", g->name);
	hsaqm_json_string(j, "name_source", g->name_source);
	hsaqm_json_string(j, "gfx", g->gfx);
	hsaqm_json_uint(j, "gfx_target_version", g->gfx_target_version);
	hsaqm_json_uint(j, "device_id", g->device_id);
	hsaqm_json_uint(j, "num_xcc", g->num_xcc);
	hsaqm_json_uint(j, "cu_count", g->cu_count);
	hsaqm_json_uint(j, "simd_per_cu", g->simd_per_cu);
	hsaqm_json_uint(j, "max_waves_per_simd", g->max_waves_per_simd);
	hsaqm_json_uint(j, "wave_front_size", g->wave_front_size);
	hsaqm_json_uint(j, "hqd_slots_per_xcc", g->hqd_slots_per_xcc);
	hsaqm_json_uint(j, "max_engine_clk_mhz", g->max_engine_clk_mhz);
	hsaqm_json_uint(j, "fw_version", g->fw_version);
	hsaqm_json_uint(j, "sdma_fw_version", g->sdma_fw_version);
	hsaqm_json_uint(j, "capability", g->capability);
	hsaqm_json_string(j, "capability_text", g->capability_text);
	hsaqm_json_bool(j, "trap_debug", g->cap_trap_debug);
	hsaqm_json_bool(j, "trap_debug_firmware", g->cap_trap_debug_fw);
	hsaqm_json_bool(j, "per_queue_reset", g->cap_per_queue_reset);
	hsaqm_json_uint(j, "cwsr_bytes_per_queue", g->cwsr_bytes_per_queue);

	hsaqm_json_begin_object(j, "debugfs");
	if (g->have_hqds) {
		hsaqm_json_begin_object(j, "hqds");
		hsaqm_json_uint(j, "xcc", g->hqds_xcc);
		hsaqm_json_uint(j, "slots_per_xcc", g->hqds_slots_per_xcc);
		hsaqm_json_begin_inline_array(j, "active");
		for (uint32_t x = 0; x < g->hqds_xcc && x < HSAQM_PROBE_MAX_XCC; x++)
			hsaqm_json_uint(j, NULL, g->hqds_active[x]);
		hsaqm_json_end_array(j);
		hsaqm_json_end_object(j);
	} else {
		hsaqm_json_null(j, "hqds");
	}
	if (g->have_rls) {
		hsaqm_json_begin_object(j, "rls");
		hsaqm_json_bool(j, "active", g->rls_active);
		hsaqm_json_begin_inline_array(j, "processes");
		for (uint32_t p = 0; p < g->rl_nprocs; p++) {
			hsaqm_json_begin_object(j, NULL);
			hsaqm_json_uint(j, "pasid", g->rl_procs[p].pasid);
			hsaqm_json_uint(j, "queues", g->rl_procs[p].num_queues);
			hsaqm_json_uint(j, "mapped", g->rl_procs[p].mapped);
			hsaqm_json_end_object(j);
		}
		hsaqm_json_end_array(j);
		hsaqm_json_end_object(j);
	} else {
		hsaqm_json_null(j, "rls");
	}
	hsaqm_json_end_object(j);

	hsaqm_json_begin_object(j, "other_processes");
	hsaqm_json_bool(j, "known", g->others.known);
	hsaqm_json_uint(j, "processes", g->others.processes);
	hsaqm_json_uint(j, "queues", g->others.queues);
	hsaqm_json_begin_inline_array(j, "pids");
	for (uint32_t p = 0; p < g->others.processes && p < 8; p++)
		if (g->others.pids[p])
			hsaqm_json_uint(j, NULL, g->others.pids[p]);
	hsaqm_json_end_array(j);
	hsaqm_json_string(j, "source", g->others.source);
	hsaqm_json_end_object(j);

	hsaqm_json_begin_object(j, "lv3");
	hsaqm_json_int(j, "level", g->lv3.level);
	hsaqm_json_string(j, "mechanism", g->lv3.mechanism);
	hsaqm_json_string(j, "reason", g->lv3.reason);
	hsaqm_json_end_object(j);

	hsaqm_json_begin_object(j, "device_kernel");
	hsaqm_json_bool(j, "available", g->have_kernel);
	hsaqm_json_string(j, "text", g->kernel_text);
	hsaqm_json_end_object(j);

	hsaqm_json_begin_object(j, "checks");
	for (int i = 0; i < HSAQM_PROBE_NCHECKS; i++)
		js_check(j, r, hsaqm_probe_check_name(i), &g->checks[i]);
	hsaqm_json_end_object(j);
	hsaqm_json_end_object(j);
}

static void write_json(FILE *f, const struct hsaqm_probe_report *r)
{
	static const char *const lv[] = { "ok", "warn", "fail" };
	struct hsaqm_json js, *j = &js;

	hsaqm_json_init_pretty(j, f, 2);
	hsaqm_json_begin_object(j, NULL);
	hsaqm_json_string(j, "schema", HSAQM_PROBE_SCHEMA_NAME);
	hsaqm_json_int(j, "schema_version", r->schema_version);
	hsaqm_json_string(j, "tool_version", r->tool_version);
	hsaqm_json_string(j, "host", r->host);
	hsaqm_json_string(j, "date", r->date);
	hsaqm_json_uint(j, "duration_ns", r->duration_ns);
	hsaqm_json_string(j, "figures_are", r->is_model ? "model" : "hardware");
	hsaqm_json_int(j, "exit_code", hsaqm_probe_exit_code(r));
	hsaqm_json_bool(j, "interrupted", r->interrupted);
	hsaqm_json_bool(j, "failed", r->failed);
	hsaqm_json_string(j, "failure", r->failure);

	hsaqm_json_begin_object(j, "options");
	hsaqm_json_uint(j, "trials", r->trials);
	hsaqm_json_bool(j, "quick", r->quick);
	hsaqm_json_bool(j, "allow_disruptive", r->allow_disruptive);
	hsaqm_json_bool(j, "force", r->force);
	hsaqm_json_int(j, "device", r->device);
	hsaqm_json_uint(j, "lv2_interval", r->lv2_interval);
	hsaqm_json_end_object(j);

	hsaqm_json_begin_array(j, "preflight");
	for (uint32_t i = 0; i < r->nfindings; i++) {
		const struct hsaqm_probe_finding *x = &r->findings[i];

		hsaqm_json_begin_object(j, NULL);
		hsaqm_json_string(j, "level", lv[x->level]);
		hsaqm_json_string(j, "what", x->what);
		hsaqm_json_string(j, "text", x->text);
		hsaqm_json_string(j, "remedy", x->remedy);
		hsaqm_json_end_object(j);
	}
	hsaqm_json_end_array(j);

	hsaqm_json_begin_object(j, "target");
	hsaqm_json_string(j, "kind", r->is_model ? "model" : "hardware");
	hsaqm_json_string(j, "model_name", r->model_name);
	hsaqm_json_string(j, "kfd_device", r->target_kfd);
	hsaqm_json_bool(j, "kfd_open", r->kfd_open);
	hsaqm_json_string(j, "kfd_open_error", r->kfd_open ? "" : strerror(r->kfd_open_errno));
	hsaqm_json_uint(j, "kfd_major", r->kfd_major);
	hsaqm_json_uint(j, "kfd_minor", r->kfd_minor);
	js_opt(j, "sched_policy", r->sched_policy);
	js_opt(j, "cwsr_enable", r->cwsr_enable);
	js_opt(j, "hws_max_conc_proc", r->hws_max_conc_proc);
	js_opt(j, "queue_preemption_timeout_ms", r->queue_preemption_timeout_ms);
	js_opt(j, "mes", r->mes);
	hsaqm_json_string(j, "hsa_runtime", r->hsa_runtime);
	hsaqm_json_end_object(j);

	hsaqm_json_begin_array(j, "gpus");
	for (uint32_t i = 0; i < r->ngpus; i++)
		js_gpu(j, r, &r->gpus[i]);
	hsaqm_json_end_array(j);
	hsaqm_json_end_object(j);
	fputc('\n', f);
}

int hsaqm_probe_report_write(const struct hsaqm_probe_report *r, enum hsaqm_probe_format fmt,
			     FILE *f, bool color)
{
	struct out o = { .f = f, .color = color };

	if (!r || !f)
		return -EINVAL;
	switch (fmt) {
	case HSAQM_PROBE_FORMAT_TEXT:
		write_text(&o, r);
		break;
	case HSAQM_PROBE_FORMAT_MARKDOWN:
		o.md = true;
		o.color = false;
		write_text(&o, r);
		break;
	case HSAQM_PROBE_FORMAT_JSON:
		write_json(f, r);
		break;
	default:
		return -EINVAL;
	}
	return fflush(f) || ferror(f) ? -EIO : 0;
}

