// SPDX-License-Identifier: MIT
/*
 * emit.c - what the probe writes for others to use:
 *
 *  - the model's timing file (--emit-sim-profile): the constants of sim/'s cost structure that
 *    the stop checks identify, each with the formula it came from. The model charges a
 *    DBG_TRAP suspend as  unmap(with the CWSR save of the busiest CU) + dbg_suspend_ns, an
 *    UPDATE_QUEUE 0 % as  default grace + save + hws_unmap_ns, a restart as  hws_map_ns +
 *    the CWSR restore  (docs/sim.md), so with w waves on a CU at full occupancy and 1 with
 *    one wave:
 *        cwsr_save_ns_per_wave    = (stop_full - stop_1wave) / (w - 1)          (DBG_TRAP)
 *        cwsr_restore_ns_per_wave = (lost_full - lost_1wave) / (w - 1)
 *        hws_map_ns               = DBG_TRAP lost_1wave - restore
 *        hws_unmap_ns             = UPDATE_QUEUE stop_1wave - save          (+ default grace)
 *                   or, with other queues of the process on the GPU (the runtime's own),
 *                                   UPDATE_QUEUE lost_1wave - restore - hws_map_ns
 *        dbg_suspend_ns           = DBG_TRAP stop_1wave - UPDATE_QUEUE stop_1wave
 *        dbg_resume_ns            = DBG_TRAP restart_1wave - UPDATE_QUEUE restart_1wave
 *                                   (+ hws_unmap_ns with other queues: UPDATE's waited for it)
 *    DBG_TRAP suspends the process's other compute queues with the probe's; the differences
 *    of the two checks' same calls leave out the path to the KFD, which is in both, and take
 *    each call's minimum over the trials (what delays a call only adds).
 *    The self-consistency test (test-probe-profile) loads a timing file of known costs into
 *    the model, runs the probe and checks that these come back.
 *  - the per-GPU profile the tool library reads (--write-profile): which stop mechanisms work
 *    on each GPU and their measured stop and restart (kfd-ioctl's file format).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_internal.h"

static bool supported(const struct hsaqm_probe_check *k)
{
	return k->ran && k->verdict == HSAQM_PROBE_SUPPORTED;
}

/* A figure's median, or false. */
static bool median(const struct hsaqm_probe_check *k, const char *name, uint64_t *v)
{
	const struct hsaqm_probe_figure *f = probe_find_figure(k, name);

	if (!f || !f->n)
		return false;
	*v = f->median;
	return true;
}

/* The number a fact's value starts with, or -1. */
static long fact_count(const struct hsaqm_probe_check *k, const char *key)
{
	for (uint32_t i = 0; i < k->nfacts; i++)
		if (!strcmp(k->facts[i].key, key))
			return k->facts[i].value[0] >= '0' && k->facts[i].value[0] <= '9' ?
				       strtol(k->facts[i].value, NULL, 10) : -1;
	return -1;
}

/*
 * A figure's minimum, or false. For the differences of two calls: what delays a call (the
 * host's scheduling, on the emulation the device process's wake-ups) only ever adds, so the
 * fastest of N trials is the call with the least of it, where a median keeps half of it.
 */
static bool minimum(const struct hsaqm_probe_check *k, const char *name, uint64_t *v)
{
	const struct hsaqm_probe_figure *f = probe_find_figure(k, name);

	if (!f || !f->n)
		return false;
	*v = f->min;
	return true;
}

struct emit {
	FILE *out;
	const char *source;
	unsigned int lines;
};

/* One constant line; a negative difference (noise) is written as 0 and said so. */
static void constant(struct emit *e, const char *name, int64_t v, const char *how)
{
	fprintf(e->out, "%s %" PRIu64 "  # %s, %s%s\n", name, v > 0 ? (uint64_t)v : 0, e->source,
		how, v < 0 ? " (came out negative: written as 0)" : "");
	e->lines++;
}

static void missing(struct emit *e, const char *name, const char *why)
{
	fprintf(e->out, "# %s not written: %s\n", name, why);
}

int hsaqm_probe_emit_sim_profile(const struct hsaqm_probe_report *r, uint32_t gpu,
				 const char *path)
{
	const struct hsaqm_probe_gpu *g;
	const struct hsaqm_probe_check *d, *u, *p;
	uint64_t sf, s1, lf, l1, r1, u1;
	int64_t save = -1, restore = -1, unmap = -1;
	char source[200], how[160];
	struct emit e = { 0 };

	if (!r || !path || gpu >= r->ngpus)
		return -EINVAL;
	g = &r->gpus[gpu];
	d = &g->checks[HSAQM_PROBE_CHECK_LV3];
	u = &g->checks[HSAQM_PROBE_CHECK_UPDATE_QUEUE];
	if (!supported(d) && !supported(u))
		return -ENODATA;
	p = supported(d) ? d : u;
	uint32_t w = g->simd_per_cu * g->max_waves_per_simd;

	snprintf(source, sizeof(source), "measured: hsa-queue-probe %s on %s %s, GPU %u %s%s",
		 r->tool_version, r->host, r->date, g->index, g->gfx,
		 r->is_model ? " (MODEL figures, not hardware)" : "");
	e.source = source;
	e.out = fopen(path, "w");
	if (!e.out)
		return -errno;
	fprintf(e.out, "# Timing constants measured by hsa-queue-probe (docs/probe-report.md).\n"
		       "# Load with hsaqm_sim_config.timing_path; each line: name value  # source\n");
	if (w > 1 && median(p, "stop_full", &sf) && median(p, "stop_1wave", &s1)) {
		save = ((int64_t)sf - (int64_t)s1) / (int64_t)(w - 1);
		snprintf(how, sizeof(how), "(%s stop_full - stop_1wave) / (%u - 1 waves per CU)",
			 p == d ? "DBG_TRAP" : "UPDATE_QUEUE", w);
		constant(&e, "cwsr_save_ns_per_wave", save, how);
	}
	if (w > 1 && median(p, "lost_full", &lf) && median(p, "lost_1wave", &l1)) {
		restore = ((int64_t)lf - (int64_t)l1) / (int64_t)(w - 1);
		snprintf(how, sizeof(how), "(lost_full - lost_1wave) / (%u - 1 waves per CU)", w);
		constant(&e, "cwsr_restore_ns_per_wave", restore, how);
	}
	/*
	 * DBG_TRAP suspends the process's other compute queues on the GPU with the probe's
	 * (check_lv3.c, fact process_queues), so its restart's remap is the map alone.
	 * UPDATE_QUEUE cannot stop them: its restart first unmaps those still running (the KFD
	 * unmaps every active queue before it maps the runlist), so with any, its lost_1wave is
	 * unmap + map + restore, all in the device's own timestamps: hws_unmap_ns comes from
	 * there, not from a call's length, which holds the path to the KFD too (on the emulation
	 * the device process's wake-ups, ~50-100 us).
	 */
	long others = supported(d) ? fact_count(d, "process_queues") : -1;
	int64_t map = -1;

	if (restore >= 0 && median(p, "lost_1wave", &l1))
		map = (int64_t)l1 - restore;
	if (others > 0 && p == d && map >= 0 && supported(u) && median(u, "lost_1wave", &u1)) {
		unmap = (int64_t)u1 - restore - map;
		constant(&e, "hws_unmap_ns", unmap,
			 "UPDATE_QUEUE lost_1wave - 1 wave's restore - hws_map_ns (its remap "
			 "unmapped the runtime's other queues first)");
	} else if (save >= 0 && supported(u) && median(u, "stop_1wave", &u1)) {
		unmap = (int64_t)u1 - save;
		constant(&e, "hws_unmap_ns", unmap,
			 "UPDATE_QUEUE stop_1wave - 1 wave's save (includes the default grace)");
	} else {
		missing(&e, "hws_unmap_ns", "needs the UPDATE_QUEUE check supported");
	}
	/* Differences of the two checks' same calls: the path to the KFD is in both. */
	if (supported(d) && supported(u) && minimum(d, "stop_1wave", &s1) &&
	    minimum(u, "stop_1wave", &u1))
		constant(&e, "dbg_suspend_ns", (int64_t)s1 - (int64_t)u1,
			 "DBG_TRAP stop_1wave - UPDATE_QUEUE stop_1wave, minima (both unmap, "
			 "save, and the path to the KFD)");
	else
		missing(&e, "dbg_suspend_ns", "needs both stop checks supported");
	if (supported(d) && median(d, "restart_1wave", &r1)) {
		if (supported(u) && minimum(d, "restart_1wave", &r1) &&
		    minimum(u, "restart_1wave", &u1) && (others <= 0 || unmap >= 0))
			constant(&e, "dbg_resume_ns",
				 (int64_t)r1 - (int64_t)u1 + (others > 0 ? unmap : 0),
				 others > 0 ? "DBG_TRAP restart_1wave - (UPDATE_QUEUE restart_1wave - "
					      "hws_unmap_ns: it waited for the other queues' unmap), "
					      "minima" :
					      "DBG_TRAP restart_1wave - UPDATE_QUEUE restart_1wave, minima");
		else
			constant(&e, "dbg_resume_ns", (int64_t)r1,
				 "DBG_TRAP restart_1wave, the probe's queue alone on the GPU "
				 "(no UPDATE_QUEUE restart to subtract)");
	}
	if (restore >= 0 && median(p, "lost_1wave", &l1))
		constant(&e, "hws_map_ns", map,
			 p == d ? "DBG_TRAP lost_1wave - 1 wave's restore" :
				  "UPDATE_QUEUE lost_1wave - 1 wave's restore (with other queues "
				  "of the process running, an unmap too)");
	if (fclose(e.out))
		return -errno;
	return e.lines ? 0 : -ENODATA;
}

/* One mechanism of the GPU profile from a check (nothing when it could not test). */
static bool profile_entry(struct hsaqm_kfd_profile_gpu *pg, enum hsaqm_kfd_mech m,
			  const struct hsaqm_probe_check *k, const char *stop, const char *restart)
{
	uint64_t v = 0;

	if (!k->ran || k->verdict == HSAQM_PROBE_COULD_NOT_TEST)
		return false;
	pg->verdict[m] = k->verdict == HSAQM_PROBE_SUPPORTED ? HSAQM_KFD_PROFILE_YES :
							       HSAQM_KFD_PROFILE_NO;
	if (median(k, stop, &v))
		pg->stop_ns[m] = v;
	if (restart && median(k, restart, &v))
		pg->restart_ns[m] = v;
	return true;
}

int hsaqm_probe_write_gpu_profile(const struct hsaqm_probe_report *r, const char *path)
{
	struct hsaqm_kfd_profile p;

	if (!r || !path)
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	snprintf(p.source, sizeof(p.source), "hsa-queue-probe %s on %s %s: %s", r->tool_version,
		 r->host, r->date, r->is_model ? "MODEL figures, not hardware" : "hardware");
	for (uint32_t i = 0; i < r->ngpus && p.ngpus < HSAQM_KFD_PROFILE_MAX_GPUS; i++) {
		const struct hsaqm_probe_gpu *g = &r->gpus[i];
		struct hsaqm_kfd_profile_gpu *pg = &p.gpu[p.ngpus];
		bool any = false;

		memset(pg, 0, sizeof(*pg));
		pg->gpu_id = g->gpu_id;
		for (int m = 0; m < HSAQM_KFD_NMECH; m++)
			pg->verdict[m] = HSAQM_KFD_PROFILE_UNKNOWN;
		any |= profile_entry(pg, HSAQM_KFD_MECH_DBG_TRAP, &g->checks[HSAQM_PROBE_CHECK_LV3],
				     "stop_full", "restart_full");
		any |= profile_entry(pg, HSAQM_KFD_MECH_UPDATE_QUEUE,
				     &g->checks[HSAQM_PROBE_CHECK_UPDATE_QUEUE], "stop_full",
				     "restart_full");
		any |= profile_entry(pg, HSAQM_KFD_MECH_CU_MASK,
				     &g->checks[HSAQM_PROBE_CHECK_CU_MASK], "mask_effect", NULL);
		if (any && g->gpu_id)
			p.ngpus++;
	}
	if (!p.ngpus)
		return -ENODATA;
	return hsaqm_kfd_profile_save(path, &p);
}
