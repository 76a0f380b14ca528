// SPDX-License-Identifier: MIT
/*
 * inventory.c - per GPU of the target: marketing name, gfx target, XCCs, CUs, HQD slots,
 * firmware, the capability bits that decide preemption (trap debug, its firmware support,
 * per-queue reset), what debugfs shows of the HQDs and runlists when readable, the KFD queues
 * other processes have, and whether a device kernel exists for the checks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HSAQM_PROBE_HAVE_LIBDRM
#include <amdgpu.h>
#endif

#include "probe_internal.h"

/* libdrm's table of marketing names: "device_id,\trevision_id,\tname" lines (hex ids). */
static bool ids_lookup(uint32_t device_id, int revision, char *name, size_t len)
{
	static const char *const paths[] = { "/usr/share/libdrm/amdgpu.ids",
					     "/opt/amdgpu/share/libdrm/amdgpu.ids",
					     "/usr/local/share/libdrm/amdgpu.ids" };
	bool found = false;

	for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]) && !found; p++) {
		FILE *f = fopen(paths[p], "r");
		char line[256];

		if (!f)
			continue;
		while (!found && fgets(line, sizeof(line), f)) {
			unsigned int did, rev;
			char n[160];

			if (line[0] == '#' ||
			    sscanf(line, "%x ,%x , %159[^\n]", &did, &rev, n) != 3)
				continue;
			/* Without a revision (the model), the first entry of the device answers. */
			if (did == device_id && (revision < 0 || (unsigned int)revision == rev)) {
				probe_strlcpy(name, n, len);
				found = true;
			}
		}
		fclose(f);
	}
	return found;
}

static int read_revision(const char *sysfs, uint32_t minor)
{
	char path[PATH_MAX], buf[32];
	FILE *f;
	int rev = -1;

	snprintf(path, sizeof(path), "%s/class/drm/renderD%u/device/revision", sysfs, minor);
	f = fopen(path, "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			rev = (int)strtol(buf, NULL, 0);
		fclose(f);
	}
	return rev;
}

#ifdef HSAQM_PROBE_HAVE_LIBDRM
static bool libdrm_name(uint32_t minor, char *name, size_t len)
{
	char path[64];
	amdgpu_device_handle dev;
	uint32_t maj, min;
	bool ok = false;
	int fd;

	snprintf(path, sizeof(path), "/dev/dri/renderD%u", minor);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (amdgpu_device_initialize(fd, &maj, &min, &dev) == 0) {
		const char *n = amdgpu_get_marketing_name(dev);

		if (n && *n) {
			probe_strlcpy(name, n, len);
			ok = true;
		}
		amdgpu_device_deinitialize(dev);
	}
	close(fd);
	return ok;
}
#endif

struct agent_name {
	const struct probe_hsa *h;
	uint32_t node_id;
	char *name;
	size_t len;
	bool found;
};

static hsaqm_hsa_status_t agent_name_cb(struct hsaqm_hsa_agent agent, void *data)
{
	struct agent_name *a = data;
	uint32_t node = UINT32_MAX, type = 0;
	char n[64];

	if (a->h->agent_get_info(agent, PROBE_HSA_AGENT_INFO_DEVICE, &type) ||
	    type != PROBE_HSA_DEVICE_TYPE_GPU ||
	    a->h->agent_get_info(agent, PROBE_HSA_AMD_AGENT_INFO_DRIVER_NODE_ID, &node) ||
	    node != a->node_id)
		return HSAQM_HSA_STATUS_SUCCESS;
	memset(n, 0, sizeof(n));
	if (a->h->agent_get_info(agent, PROBE_HSA_AMD_AGENT_INFO_PRODUCT_NAME, n) == 0 && n[0]) {
		n[sizeof(n) - 1] = '\0';
		probe_strlcpy(a->name, n, a->len);
		a->found = true;
	}
	return HSAQM_HSA_STATUS_INFO_BREAK;
}

static void gpu_name(struct probe_ctx *c, struct hsaqm_probe_gpu *g)
{
	const struct hsaqm_probe_env *env = c->env;

#ifdef HSAQM_PROBE_HAVE_LIBDRM
	if (!env->sim && libdrm_name(g->drm_render_minor, g->name, sizeof(g->name))) {
		probe_strlcpy(g->name_source, "libdrm", sizeof(g->name_source));
		return;
	}
#endif
	if (ids_lookup(g->device_id,
		       env->sim ? -1 : read_revision(env->sysfs_root, g->drm_render_minor),
		       g->name, sizeof(g->name))) {
		probe_strlcpy(g->name_source, "amdgpu.ids", sizeof(g->name_source));
		return;
	}
	/* The HSA agent's product name, when a table is at hand (the model's always is). */
	if (env->hsa_root_table && probe_hsa_ready(c)) {
		struct agent_name a = { .h = &c->hsa, .node_id = g->node_id, .name = g->name,
					.len = sizeof(g->name) };

		c->hsa.iterate_agents(agent_name_cb, &a);
		if (a.found) {
			probe_strlcpy(g->name_source, "hsa agent", sizeof(g->name_source));
			return;
		}
	}
	char gfx[sizeof(g->gfx)];

	probe_strlcpy(gfx, g->gfx, sizeof(gfx));
	snprintf(g->name, sizeof(g->name), "AMD GPU %s (device 0x%04x, not in amdgpu.ids)", gfx,
		 g->device_id);
	probe_strlcpy(g->name_source, "none", sizeof(g->name_source));
}

static void fill_debugfs(struct hsaqm_probe_gpu *g, const struct hsaqm_hqds *hq,
			 const struct hsaqm_runlist *rl)
{
	for (uint32_t i = 0; hq && i < hq->n_gpus; i++) {
		const struct hsaqm_hqds_gpu *h = &hq->gpus[i];

		if (h->gpu_id != g->gpu_id)
			continue;
		g->have_hqds = true;
		g->hqds_xcc = h->n_xcc;
		for (uint32_t x = 0; x < h->n_xcc && x < HSAQM_PROBE_MAX_XCC; x++) {
			g->hqds_active[x] = hsaqm_hqd_xcc_active(&h->xcc[x]);
			if (h->xcc[x].n_slots > g->hqds_slots_per_xcc)
				g->hqds_slots_per_xcc = h->xcc[x].n_slots;
		}
	}
	for (uint32_t i = 0; rl && i < rl->n_gpus; i++) {
		const struct hsaqm_rl_gpu *r = &rl->gpus[i];

		if (r->gpu_id != g->gpu_id)
			continue;
		g->have_rls = true;
		g->rls_active = r->has_runlist;
		for (uint32_t p = 0; p < r->n_processes && g->rl_nprocs < HSAQM_PROBE_MAX_RL_PROCS;
		     p++) {
			g->rl_procs[g->rl_nprocs].pasid = r->processes[p].pasid;
			g->rl_procs[g->rl_nprocs].num_queues = r->processes[p].num_queues;
			g->rl_procs[g->rl_nprocs].mapped = r->processes[p].n_mapped;
			g->rl_nprocs++;
		}
	}
}

/* <sysfs>/class/kfd/kfd/proc/<pid>/queues/<qid>/gpuid: every KFD process's queues. */
void probe_scan_proc(const char *sysfs, uint32_t gpu_id, long self,
		     struct hsaqm_probe_others *o)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc", sysfs);
	d = opendir(path);
	if (!d) {
		snprintf(o->source, sizeof(o->source), "unknown: no kfd/proc in sysfs");
		return;
	}
	o->known = true;
	probe_strlcpy(o->source, "sysfs kfd/proc", sizeof(o->source));
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		uint32_t nq = 0;

		if (*end || pid <= 0 || pid == self)
			continue;
		char qpath[PATH_MAX + 32];
		snprintf(qpath, sizeof(qpath), "%s/%ld/queues", path, pid);
		DIR *qd = opendir(qpath);
		struct dirent *qe;

		while (qd && (qe = readdir(qd))) {
			char gpath[PATH_MAX + 300], buf[32];
			FILE *f;

			if (qe->d_name[0] == '.')
				continue;
			snprintf(gpath, sizeof(gpath), "%s/%s/gpuid", qpath, qe->d_name);
			f = fopen(gpath, "r");
			if (!f)
				continue;
			if (fgets(buf, sizeof(buf), f) && strtoul(buf, NULL, 10) == gpu_id)
				nq++;
			fclose(f);
		}
		if (qd)
			closedir(qd);
		if (nq) {
			if (o->processes < sizeof(o->pids) / sizeof(o->pids[0]))
				o->pids[o->processes] = (uint32_t)pid;
			o->processes++;
			o->queues += nq;
		}
	}
	closedir(d);
}

void probe_others(struct probe_ctx *c, struct hsaqm_probe_gpu *g)
{
	memset(&g->others, 0, sizeof(g->others));
	if (c->env->others) {
		if (c->env->others(c->env->others_ctx, g->gpu_id, &g->others) < 0)
			g->others.known = false;
		return;
	}
	probe_scan_proc(c->env->sysfs_root, g->gpu_id, (long)getpid(), &g->others);
}

/*
 * libhsakmt presents every GPU as HSA_OVERRIDE_GFX_VERSION (major.minor.stepping) when it is
 * set, and ROCr then loads code objects of that target only. The model's own HSA face is no
 * libhsakmt and ignores it.
 */
static void runtime_isa(struct probe_ctx *c, struct hsaqm_probe_gpu *g)
{
	const char *o = c->env->sim ? NULL : getenv("HSA_OVERRIDE_GFX_VERSION");
	unsigned int major, minor, step;
	char end;

	probe_strlcpy(g->isa, g->gfx, sizeof(g->isa));
	if (!o || sscanf(o, "%u.%u.%u%c", &major, &minor, &step, &end) != 3 || major > 99 ||
	    minor > 99 || step > 99)
		return;
	if (hsaqm_probe_gfx_name(major * 10000 + minor * 100 + step, g->isa, sizeof(g->isa)))
		probe_strlcpy(g->isa, g->gfx, sizeof(g->isa));
}

static void fill_gpu(struct probe_ctx *c, const struct hsaqm_topology_node *n,
		     struct hsaqm_probe_gpu *g)
{
	struct hsaqm_cwsr_sizes cw;

	g->node_id = n->node_id;
	g->gpu_id = n->gpu_id;
	g->gfx_target_version = n->gfx_target_version;
	if (hsaqm_probe_gfx_name(n->gfx_target_version, g->gfx, sizeof(g->gfx)))
		probe_strlcpy(g->gfx, "gfx?", sizeof(g->gfx));
	g->device_id = n->device_id;
	g->location_id = n->location_id;
	g->drm_render_minor = n->drm_render_minor;
	g->num_xcc = n->num_xcc ? n->num_xcc : 1;
	g->cu_count = n->cu_count;
	g->simd_per_cu = n->simd_per_cu;
	g->max_waves_per_simd = n->max_waves_per_simd;
	g->wave_front_size = n->wave_front_size;
	g->hqd_slots_per_xcc = n->num_cp_queues;
	g->max_engine_clk_mhz = n->max_engine_clk_fcompute;
	g->fw_version = n->fw_version;
	g->sdma_fw_version = n->sdma_fw_version;
	g->capability = n->capability;
	g->debug_prop = n->debug_prop;
	g->cap_trap_debug = n->capability & HSAQM_KFD_CAP_TRAP_DEBUG_SUPPORT;
	g->cap_trap_debug_fw = n->capability & HSAQM_KFD_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED;
	g->cap_per_queue_reset = n->capability & HSAQM_KFD_CAP_PER_QUEUE_RESET_SUPPORTED;
	if (hsaqm_topology_cap_decode(n->capability, g->capability_text,
				      sizeof(g->capability_text)) < 0)
		g->capability_text[sizeof(g->capability_text) - 1] = '\0';
	if (hsaqm_cwsr_sizes_get(n, &cw) == 0)
		g->cwsr_bytes_per_queue = cw.total_size;
	gpu_name(c, g);
	runtime_isa(c, g);
	g->have_kernel = probe_kernel_available(c->env, c->o->kernel_dir, g->isa, g->kernel_text,
						sizeof(g->kernel_text));
	if (strcmp(g->isa, g->gfx)) {
		char text[sizeof(g->kernel_text)];

		snprintf(text, sizeof(text), "%s (HSA_OVERRIDE_GFX_VERSION: the runtime presents "
			 "%s)", g->kernel_text, g->isa);
		probe_strlcpy(g->kernel_text, text, sizeof(g->kernel_text));
	}
	probe_others(c, g);
	probe_lv3_note(c, g);
}

int probe_inventory(struct probe_ctx *c)
{
	struct hsaqm_probe_report *r = c->r;
	struct hsaqm_hqds *hq = NULL;
	struct hsaqm_runlist *rl = NULL;
	int err;

	if (!c->env->sysfs_root)
		return -ENOENT;
	err = hsaqm_topology_load(c->env->sysfs_root, &c->topo);
	if (err) {
		c->topo = NULL;
		return err;
	}
	if (c->env->debugfs_root && *c->env->debugfs_root) {
		char path[PATH_MAX], *text = NULL;
		size_t len = 0;

		snprintf(path, sizeof(path), "%s/kfd/hqds", c->env->debugfs_root);
		if (hsaqm_debugfs_read(path, &text, &len) == 0 && hsaqm_hqds_parse(text, len, &hq))
			hq = NULL;
		free(text);
		text = NULL;
		snprintf(path, sizeof(path), "%s/kfd/rls", c->env->debugfs_root);
		if (hsaqm_debugfs_read(path, &text, &len) == 0 &&
		    hsaqm_runlist_parse(text, len, &rl))
			rl = NULL;
		free(text);
	}
	for (uint32_t i = 0; i < c->topo->n_nodes && r->ngpus < HSAQM_PROBE_MAX_GPUS; i++) {
		const struct hsaqm_topology_node *n = &c->topo->nodes[i];
		struct hsaqm_probe_gpu *g;

		if (!n->is_gpu)
			continue;
		g = &r->gpus[r->ngpus];
		g->index = r->ngpus++;
		fill_gpu(c, n, g);
		fill_debugfs(g, hq, rl);
	}
	hsaqm_hqds_free(hq);
	hsaqm_runlist_free(rl);
	return 0;
}
