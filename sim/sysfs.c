// SPDX-License-Identifier: MIT
/*
 * sysfs.c - the generated sysfs tree that stands in for /sys: what the KFD publishes about
 * its topology and what amdgpu publishes about its module parameters, for the model's
 * devices. Created in a temporary folder on first use, removed at hsaqm_sim_destroy(), and
 * never outliving its process (see "Lifetime" below sysfs_init's helpers).
 *
 * Layout (amdkfd kfd_topology.c, amdgpu_drv.c), under the root:
 *   class/kfd/kfd/topology/generation_id       "%u\n"
 *   class/kfd/kfd/topology/system_properties   platform_oem / platform_id / platform_rev
 *   class/kfd/kfd/topology/nodes/0/            the CPU node: gpu_id 0, empty name
 *   class/kfd/kfd/topology/nodes/N/            device N-1: properties (the profile's file as
 *                                              read, verbatim), gpu_id (decimal), name
 *   module/amdgpu/parameters/{cwsr_enable, sched_policy, hws_max_conc_proc,
 *                             queue_preemption_timeout_ms, mes}
 *   class/kfd/kfd/proc/<pid>/pasid             "%u\n"        (amdkfd kfd_process.c)
 *   class/kfd/kfd/proc/<pid>/queues/<id>/{size, type, gpuid}  "%llu" "%d" "%u", no newline
 *                                              one folder per KFD process with its queues,
 *                                              written by sim_sysfs_proc_write() (proc_view.c
 *                                              fills it with every KFD process of the node)
 * Every node also gets the empty io_links, mem_banks and caches folders a real node has;
 * the counts in a GPU's properties stay those of the capture.
 *
 * The runtime topology (sim_kfd_face_set_runtime_topology(), for the emulated /dev/kfd):
 * what a runtime's thunk reads must hold together, so each GPU node's properties are the
 * capture's with the counts matching folders written beside them (kfd_topology.c's sysfs
 * layout): one memory bank (the model's memory, as local memory), an L1 and an L2 cache, one
 * PCIe link to the CPU node (and the CPU node one to each GPU); no xGMI hive or peers, no
 * GWS, and the SVM API bit cleared (the model has no SVM ranges). module/amdgpu/initstate
 * says "live", as for a loaded module (rocminfo checks it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kfd_face_internal.h"
#include "hsaqm-common/log.h"

/*
 * The KFD names a GPU node after amdgpu_asic_name[asic_type] in lower case; every part
 * found by IP discovery (all gfx9.4+ parts, MI300 included) is CHIP_IP_DISCOVERY, printed
 * "ip discovery" (kfd_topology.c kfd_topology_add_device). CPU nodes have no name.
 */
#define SYSFS_GPU_NAME "ip discovery"

/* amdgpu module defaults the model does not change (amdgpu_drv.c). */
#define SYSFS_HWS_MAX_CONC_PROC (-1)          /* -1: as many as the KFD has VMIDs */
#define SYSFS_QUEUE_PREEMPTION_TIMEOUT_MS 9000
#define SYSFS_MES 0                           /* gfx9 has no MES */

struct sysfs_state {
	char root[PATH_MAX];
	int owner_fd;              /* the tree's owner file, locked while this process lives */
	pid_t pid;                 /* the process that made the tree (a forked child did not) */
	struct sysfs_state *next;  /* the process's live trees (sysfs_live) */
};

uint32_t sim_kfd_gpu_id(const struct hsaqm_sim *sim, unsigned int dev)
{
	uint32_t ids[HSAQM_SIM_MAX_DEVICES];
	unsigned int n = sim_device_count(sim);

	if (dev >= n)
		return 0;
	/*
	 * FNV-1a of the PCI device id, the device index and the unique id, folded to 16 bits
	 * like the KFD's crc16; a clash with an earlier device moves on to the next value.
	 */
	for (unsigned int d = 0; d <= dev; d++) {
		const struct sim_profile *p = sim_device_profile(sim, d);
		uint64_t words[3] = { p->device_id, d, p->unique_id };
		uint32_t h = 0x811c9dc5u, id;
		bool clash;

		for (unsigned int w = 0; w < 3; w++)
			for (unsigned int b = 0; b < 8; b++)
				h = (h ^ (uint32_t)((words[w] >> (8 * b)) & 0xff)) * 0x01000193u;
		id = ((h >> 16) ^ h) & 0xffffu;
		do {
			if (id == 0)
				id = 1;
			clash = false;
			for (unsigned int e = 0; e < d; e++)
				clash |= ids[e] == id;
			if (clash)
				id = (id + 1) & 0xffffu;
		} while (clash || id == 0);
		ids[d] = id;
	}
	return ids[dev];
}

int sim_kfd_gpu_dev(const struct hsaqm_sim *sim, uint32_t gpu_id)
{
	unsigned int n = sim_device_count(sim);

	if (gpu_id == 0)
		return -1;
	for (unsigned int d = 0; d < n; d++)
		if (sim_kfd_gpu_id(sim, d) == gpu_id)
			return (int)d;
	return -1;
}

static int __attribute__((format(printf, 3, 4)))
write_file(const char *root, const char *rel, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	FILE *f;
	int n, err = 0;

	n = snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "we");
	if (!f)
		return -errno;
	va_start(ap, fmt);
	if (vfprintf(f, fmt, ap) < 0)
		err = -EIO;
	va_end(ap);
	if (fclose(f) != 0 && !err)
		err = -errno;
	return err;
}

static int make_dir(const char *root, const char *rel)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/%s", root, rel);

	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* mkdir -p of a relative path under @root. */
static int make_dirs(const char *root, const char *rel)
{
	char part[PATH_MAX];
	size_t len = strlen(rel);
	int err;

	if (len >= sizeof(part))
		return -ENAMETOOLONG;
	memcpy(part, rel, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (part[i] != '/' && part[i] != '\0')
			continue;
		char c = part[i];

		part[i] = '\0';
		err = make_dir(root, part);
		if (err)
			return err;
		part[i] = c;
	}
	return 0;
}

static int write_node(const char *root, unsigned int node, uint32_t gpu_id, const char *name,
		      const char *properties)
{
	static const char *const subdirs[] = { "io_links", "mem_banks", "caches" };
	char rel[128];
	int err;

	snprintf(rel, sizeof(rel), "class/kfd/kfd/topology/nodes/%u", node);
	err = make_dirs(root, rel);
	for (unsigned int i = 0; !err && i < 3; i++) {
		char sub[160];

		snprintf(sub, sizeof(sub), "%s/%s", rel, subdirs[i]);
		err = make_dir(root, sub);
	}
	if (!err) {
		char file[160];

		snprintf(file, sizeof(file), "%s/gpu_id", rel);
		err = write_file(root, file, "%u\n", gpu_id);
		snprintf(file, sizeof(file), "%s/name", rel);
		if (!err)
			err = write_file(root, file, "%s\n", name);
		snprintf(file, sizeof(file), "%s/properties", rel);
		if (!err)
			err = write_file(root, file, "%s", properties);
	}
	return err;
}

/* ---- the runtime topology ---------------------------------------------------------------- */

/* HSA heap and link types (hsakmttypes.h: HSA_HEAPTYPE_*, HSA_IOLINKTYPE_PCIEXPRESS). */
#define TOPO_HEAP_SYSTEM 0
#define TOPO_HEAP_FB_PUBLIC 1
#define TOPO_IOLINK_PCIE 2
/* CRAT cache flags as the KFD prints them in "type": enabled, data, SIMD cache (kfd_crat.h). */
#define TOPO_CACHE_TYPE_GPU_DATA 0x9u
/* DRM render node minors start here (drm_render_minor); device d gets base + d. */
#define SYSFS_RENDER_MINOR_BASE 128u
/* CRAT_IOLINK_FLAGS_ENABLED. */
#define TOPO_IOLINK_ENABLED 1u
/* SVMAPI_SUPPORTED in a node's capability (kfd_sysfs.h). */
#define TOPO_CAP_SVMAPI 0x08000000ull

/* @text with each "key value" line whose key is in @keys replaced by the matching value. */
static char *props_rewrite(const char *text, const char *const *keys, const uint64_t *vals,
			   unsigned int nkeys)
{
	size_t cap = strlen(text) + 64u * nkeys + 1, len = 0;
	char *out = malloc(cap);
	const char *line = text;

	if (!out)
		return NULL;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t llen = nl ? (size_t)(nl - line) : strlen(line);
		unsigned int k;

		for (k = 0; k < nkeys; k++) {
			size_t kl = strlen(keys[k]);

			if (llen > kl && !strncmp(line, keys[k], kl) && line[kl] == ' ')
				break;
		}
		if (k < nkeys)
			len += (size_t)snprintf(out + len, cap - len, "%s %llu\n", keys[k],
						(unsigned long long)vals[k]);
		else
			len += (size_t)snprintf(out + len, cap - len, "%.*s\n", (int)llen, line);
		line = nl ? nl + 1 : NULL;
	}
	return out;
}

/* A property of the profile's properties file (0 when absent). */
static uint64_t prop_of(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *s = text; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
		if (!strncmp(s, key, kl) && s[kl] == ' ')
			return strtoull(s + kl + 1, NULL, 10);
	return 0;
}

static int write_sub(const char *root, unsigned int node, const char *kind, unsigned int i,
		     const char *props)
{
	char rel[160];
	int err;

	snprintf(rel, sizeof(rel), "class/kfd/kfd/topology/nodes/%u/%s/%u", node, kind, i);
	err = make_dirs(root, rel);
	if (!err) {
		snprintf(rel, sizeof(rel), "class/kfd/kfd/topology/nodes/%u/%s/%u/properties", node,
			 kind, i);
		err = write_file(root, rel, "%s", props);
	}
	return err;
}

static int write_link(const char *root, unsigned int from, unsigned int to, unsigned int i)
{
	char props[512];

	/* PCIe 5 x16 (assumption: the MI308X's host link; bandwidths in MB/s as the KFD prints). */
	snprintf(props, sizeof(props),
		 "type %u\nversion_major 0\nversion_minor 0\nnode_from %u\nnode_to %u\n"
		 "weight 20\nmin_latency 0\nmax_latency 0\nmin_bandwidth 312\n"
		 "max_bandwidth 64000\nrecommended_transfer_size 0\nflags %u\n",
		 TOPO_IOLINK_PCIE, from, to, TOPO_IOLINK_ENABLED);
	return write_sub(root, from, "io_links", i, props);
}

/*
 * The render node's sysfs, as libdrm looks at it: /sys/dev/char/226:<minor>/device holds the
 * PCI device's ids and a drm/ folder naming its card and render nodes (drmNodeIsDRM,
 * drmGetMinorNameForFD, drmParsePciDeviceInfo); /sys/class/drm/renderD<minor>/device the same.
 * The PCI slot comes from the topology's location_id (bus << 8 | device << 3 | function).
 */
static int write_drm_device(const char *root, const char *dir, unsigned int d, const char *text)
{
	unsigned int minor = SYSFS_RENDER_MINOR_BASE + d;
	uint64_t loc = prop_of(text, "location_id") + 256u * d;
	char rel[192];
	int err;

	snprintf(rel, sizeof(rel), "%s/device/drm/renderD%u", dir, minor);
	err = make_dirs(root, rel);
	snprintf(rel, sizeof(rel), "%s/device/drm/card%u", dir, d);
	if (!err)
		err = make_dirs(root, rel);
	snprintf(rel, sizeof(rel), "%s/device/vendor", dir);
	if (!err)
		err = write_file(root, rel, "0x%04llx\n",
				 (unsigned long long)prop_of(text, "vendor_id"));
	snprintf(rel, sizeof(rel), "%s/device/device", dir);
	if (!err)
		err = write_file(root, rel, "0x%04llx\n",
				 (unsigned long long)prop_of(text, "device_id"));
	snprintf(rel, sizeof(rel), "%s/device/subsystem_vendor", dir);
	if (!err)
		err = write_file(root, rel, "0x%04llx\n",
				 (unsigned long long)prop_of(text, "vendor_id"));
	snprintf(rel, sizeof(rel), "%s/device/subsystem_device", dir);
	if (!err)
		err = write_file(root, rel, "0x0000\n");
	snprintf(rel, sizeof(rel), "%s/device/revision", dir);
	if (!err)
		err = write_file(root, rel, "0x00\n");
	snprintf(rel, sizeof(rel), "%s/device/uevent", dir);
	if (!err)
		err = write_file(root, rel,
				 "DRIVER=amdgpu\nPCI_ID=%04llX:%04llX\n"
				 "PCI_SLOT_NAME=%04llx:%02llx:%02llx.%llx\n",
				 (unsigned long long)prop_of(text, "vendor_id"),
				 (unsigned long long)prop_of(text, "device_id"),
				 (unsigned long long)prop_of(text, "domain"),
				 (unsigned long long)(loc >> 8) & 0xff,
				 (unsigned long long)(loc >> 3) & 0x1f,
				 (unsigned long long)loc & 7);
	return err;
}

static int write_drm_node(const char *root, unsigned int d, const char *text)
{
	unsigned int minor = SYSFS_RENDER_MINOR_BASE + d;
	char dir[64];
	int err;

	snprintf(dir, sizeof(dir), "dev/char/226:%u", minor);
	err = write_drm_device(root, dir, d, text);
	snprintf(dir, sizeof(dir), "class/drm/renderD%u", minor);
	if (!err)
		err = write_drm_device(root, dir, d, text);
	return err;
}

static int write_runtime_gpu(struct hsaqm_sim *sim, const char *root, unsigned int d)
{
	const struct sim_profile *pr = sim_device_profile(sim, d);
	const char *text = pr->properties_text;
	uint64_t mem = sim_mem_size(sim);
	uint64_t simd_base = prop_of(text, "simd_id_base");
	static const char *const keys[] = {
		"mem_banks_count", "caches_count", "io_links_count", "p2p_links_count", "hive_id",
		"num_gws", "num_sdma_xgmi_engines", "local_mem_size", "capability",
		"drm_render_minor", "location_id",
	};
	uint64_t vals[] = {
		1, 2, 1, 0, 0, 0, 0, mem, prop_of(text, "capability") & ~TOPO_CAP_SVMAPI,
		SYSFS_RENDER_MINOR_BASE + d, prop_of(text, "location_id") + 256u * d,
	};
	char props[512], *p;
	unsigned int node = d + 1;
	int err;

	p = props_rewrite(text, keys, vals, sizeof(keys) / sizeof(keys[0]));
	if (!p)
		return -ENOMEM;
	err = write_node(root, node, sim_kfd_gpu_id(sim, d), SYSFS_GPU_NAME, p);
	free(p);
	/* HBM3, 8 stacks x 1024 bits (MI308X: captured width of the product); clock: assumption. */
	snprintf(props, sizeof(props),
		 "heap_type %u\nsize_in_bytes %llu\nflags 0\nwidth 8192\nmem_clk_max 1300\n",
		 TOPO_HEAP_FB_PUBLIC, (unsigned long long)mem);
	if (!err)
		err = write_sub(root, node, "mem_banks", 0, props);
	/* L1 16 KiB per CU, L2 4 MiB per XCC: assumptions (caches are not modelled). */
	snprintf(props, sizeof(props),
		 "processor_id_low %llu\nlevel 1\nsize 16\ncache_line_size 64\n"
		 "cache_lines_per_tag 1\nassociation 64\nlatency 1\ntype %u\n",
		 (unsigned long long)simd_base, TOPO_CACHE_TYPE_GPU_DATA);
	if (!err)
		err = write_sub(root, node, "caches", 0, props);
	snprintf(props, sizeof(props),
		 "processor_id_low %llu\nlevel 2\nsize 4096\ncache_line_size 128\n"
		 "cache_lines_per_tag 1\nassociation 16\nlatency 1\ntype %u\n",
		 (unsigned long long)simd_base, TOPO_CACHE_TYPE_GPU_DATA);
	if (!err)
		err = write_sub(root, node, "caches", 1, props);
	if (!err)
		err = write_link(root, node, 0, 0);
	if (!err)
		err = write_drm_node(root, d, text);
	return err;
}

/* The CPU node of the runtime topology: system memory and a link to each GPU. */
static int write_runtime_cpu(struct hsaqm_sim *sim, const char *root)
{
	unsigned int n = sim_device_count(sim);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	char props[1024];
	int err;

	snprintf(props, sizeof(props),
		 "cpu_cores_count %ld\nsimd_count 0\nmem_banks_count 1\ncaches_count 0\n"
		 "io_links_count %u\np2p_links_count 0\ncpu_core_id_base 0\nsimd_id_base 0\n"
		 "max_waves_per_simd 0\nlds_size_in_kb 0\ngds_size_in_kb 0\nnum_gws 0\n"
		 "wave_front_size 0\narray_count 0\nsimd_arrays_per_engine 0\n"
		 "cu_per_simd_array 0\nsimd_per_cu 0\nmax_slots_scratch_cu 0\n"
		 "gfx_target_version 0\nvendor_id 0\ndevice_id 0\nlocation_id 0\ndomain 0\n"
		 "drm_render_minor 0\nhive_id 0\nnum_sdma_engines 0\nnum_sdma_xgmi_engines 0\n"
		 "num_sdma_queues_per_engine 0\nnum_cp_queues 0\nmax_engine_clk_fcompute 0\n"
		 "local_mem_size 0\nfw_version 0\ncapability 0\ndebug_prop 0\n"
		 "sdma_fw_version 0\nunique_id 0\nnum_xcc 0\nmax_engine_clk_ccompute 0\n",
		 cores > 0 ? cores : 1, n);
	err = write_node(root, 0, 0, "", props);
	snprintf(props, sizeof(props),
		 "heap_type %u\nsize_in_bytes %llu\nflags 0\nwidth 64\nmem_clk_max 0\n",
		 TOPO_HEAP_SYSTEM,
		 (unsigned long long)(pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize :
							       0));
	if (!err)
		err = write_sub(root, 0, "mem_banks", 0, props);
	for (unsigned int d = 0; !err && d < n; d++)
		err = write_link(root, 0, d + 1, d);
	return err;
}

int sim_kfd_face_set_runtime_topology(struct hsaqm_sim *sim)
{
	if (!sim)
		return -EINVAL;
	if (sim_face_state(sim, SIM_FACE_SYSFS, NULL, NULL))
		return -EBUSY;
	sim_set_runtime_topology(sim);
	return 0;
}

/* The CPU node: a host with the cores of this machine and no SIMDs (kfd_crat.c). */
static int write_cpu_node(const char *root)
{
	char props[1024];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	snprintf(props, sizeof(props),
		 "cpu_cores_count %ld\nsimd_count 0\nmem_banks_count 1\ncaches_count 0\n"
		 "io_links_count 0\np2p_links_count 0\ncpu_core_id_base 0\nsimd_id_base 0\n"
		 "max_waves_per_simd 0\nlds_size_in_kb 0\ngds_size_in_kb 0\nnum_gws 0\n"
		 "wave_front_size 0\narray_count 0\nsimd_arrays_per_engine 0\n"
		 "cu_per_simd_array 0\nsimd_per_cu 0\nmax_slots_scratch_cu 0\n"
		 "gfx_target_version 0\nvendor_id 0\ndevice_id 0\nlocation_id 0\ndomain 0\n"
		 "drm_render_minor 0\nhive_id 0\nnum_sdma_engines 0\nnum_sdma_xgmi_engines 0\n"
		 "num_sdma_queues_per_engine 0\nnum_cp_queues 0\nmax_engine_clk_ccompute 0\n",
		 cores > 0 ? cores : 1);
	return write_node(root, 0, 0, "", props);
}

static int write_tree(struct hsaqm_sim *sim, const char *root)
{
	const struct hsaqm_sim_config *cfg = sim_config(sim);
	unsigned int n = sim_device_count(sim);
	int err;

	err = make_dirs(root, "class/kfd/kfd/topology/nodes");
	if (!err)
		err = write_file(root, "class/kfd/kfd/topology/generation_id", "%u\n", 1u);
	if (!err)
		err = write_file(root, "class/kfd/kfd/topology/system_properties",
				 "platform_oem 0\nplatform_id 0\nplatform_rev 0\n");
	if (!err)
		err = make_dirs(root, "class/kfd/kfd/proc");
	/*
	 * The emulated /dev/kfd says what it is where a reader of the topology can see it: a file
	 * the KFD never has. hsa-queue-probe reads it and labels its figures model figures.
	 */
	if (!err && sim_runtime_topology(sim))
		err = write_file(root, "class/kfd/kfd/topology/hsaqm_model",
				 "emulated by libhsaqm-kfdemu: the hsaqm device model (sim/), not a GPU\n");
	if (!err)
		err = sim_runtime_topology(sim) ? write_runtime_cpu(sim, root) : write_cpu_node(root);
	for (unsigned int d = 0; !err && d < n; d++)
		err = sim_runtime_topology(sim) ?
			      write_runtime_gpu(sim, root, d) :
			      write_node(root, d + 1, sim_kfd_gpu_id(sim, d), SYSFS_GPU_NAME,
					 sim_device_profile(sim, d)->properties_text);
	if (!err)
		err = make_dirs(root, "module/amdgpu/parameters");
	if (!err)
		err = write_file(root, "module/amdgpu/initstate", "live\n");
	if (!err)
		err = write_file(root, "module/amdgpu/parameters/cwsr_enable", "%d\n",
				 cfg->cwsr_disable ? 0 : 1);
	if (!err)
		err = write_file(root, "module/amdgpu/parameters/sched_policy", "%d\n",
				 cfg->sched_policy);
	if (!err)
		err = write_file(root, "module/amdgpu/parameters/hws_max_conc_proc", "%d\n",
				 SYSFS_HWS_MAX_CONC_PROC);
	if (!err)
		err = write_file(root, "module/amdgpu/parameters/queue_preemption_timeout_ms",
				 "%d\n", SYSFS_QUEUE_PREEMPTION_TIMEOUT_MS);
	if (!err)
		err = write_file(root, "module/amdgpu/parameters/mes", "%d\n", SYSFS_MES);
	return err;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	/* Best effort: a file the user added or removed does not stop the rest. */
	if (remove(path) != 0)
		hsaqm_log_debug("sysfs tree: remove %s: %d", path, errno);
	return 0;
}

static void remove_tree(const char *root)
{
	nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * Rewrite class/kfd/kfd/proc from @q: the old folders go, one folder per pid comes, with the
 * files the KFD creates for a process and for each of its queues (kfd_procfs_add_queue).
 */
int sim_sysfs_proc_write(struct hsaqm_sim *sim, const struct sim_proc_queue *q, unsigned int n)
{
	const char *root = hsaqm_sim_sysfs_root(sim);
	char path[PATH_MAX], rel[192];
	int err = 0;

	if (!root || (n && !q))
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc", root) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	remove_tree(path);
	err = make_dirs(root, "class/kfd/kfd/proc");
	for (unsigned int i = 0; !err && i < n; i++) {
		/* The KFD makes the pid folder, its pasid and an empty queues folder at once. */
		snprintf(rel, sizeof(rel), "class/kfd/kfd/proc/%u/queues", q[i].pid);
		err = make_dirs(root, rel);
		if (!err) {
			snprintf(rel, sizeof(rel), "class/kfd/kfd/proc/%u/pasid", q[i].pid);
			err = write_file(root, rel, "%u\n", q[i].pasid);
		}
		if (q[i].queue_id == SIM_PROC_NO_QUEUE)
			continue;
		if (!err) {
			snprintf(rel, sizeof(rel), "class/kfd/kfd/proc/%u/queues/%u", q[i].pid,
				 q[i].queue_id);
			err = make_dirs(root, rel);
		}
		/* The queue attributes are printed without a newline, as the KFD does. */
		if (!err) {
			snprintf(rel, sizeof(rel), "class/kfd/kfd/proc/%u/queues/%u/size", q[i].pid,
				 q[i].queue_id);
			err = write_file(root, rel, "%llu", (unsigned long long)q[i].size);
		}
		if (!err) {
			snprintf(rel, sizeof(rel), "class/kfd/kfd/proc/%u/queues/%u/type", q[i].pid,
				 q[i].queue_id);
			err = write_file(root, rel, "%u", q[i].type);
		}
		if (!err) {
			snprintf(rel, sizeof(rel), "class/kfd/kfd/proc/%u/queues/%u/gpuid",
				 q[i].pid, q[i].queue_id);
			err = write_file(root, rel, "%u", q[i].gpu_id);
		}
	}
	return err;
}

/*
 * Lifetime. A tree must not outlive its process: the model is rarely destroyed before a
 * process exits (a HIP program never closes the KFD, tests exit with the model running), and
 * a day of tests used to leave a thousand folders in /tmp. Readers open paths under the root
 * for as long as the model lives (the emulated /dev/kfd redirects /sys there, the probe and
 * kfd-ioctl read topology and kfd/proc), so the tree cannot be unlinked early. Two ways out:
 *  - at exit, an ELF destructor removes the trees this process made and still has. It runs in
 *    _dl_fini, after every atexit handler (a runtime's own exit path may still read /sys
 *    through the emulation), and skips the trees of the parent in a forked child (pid);
 *  - when a process dies without exit handlers (SIGKILL, a crash, _exit), its tree stays; the
 *    next process that makes a tree sweeps it. Each tree holds an owner file whose flock its
 *    process keeps until it dies (the kernel drops it even on SIGKILL), so "nobody holds the
 *    lock" means "the owner is gone", whatever pid namespace or pid reuse says. The file is
 *    locked before it gets its name (rename), so a tree being made is never swept; a tree
 *    without the file (an older build's, or one on a file system without flock) is left
 *    alone.
 */
#define SYSFS_PREFIX "hsaqm-sim-sysfs-"
#define SYSFS_OWNER "hsaqm-owner.lock"

static pthread_mutex_t sysfs_live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sysfs_state *sysfs_live;
static bool sysfs_swept;   /* under sysfs_live_lock */
static pthread_once_t sysfs_once = PTHREAD_ONCE_INIT;

/* fork() while another thread holds the list's lock must not leave it locked in the child. */
static void sysfs_fork_prepare(void)
{
	pthread_mutex_lock(&sysfs_live_lock);
}

static void sysfs_fork_after(void)
{
	pthread_mutex_unlock(&sysfs_live_lock);
}

/* Remove the trees under @tmp whose owner is gone (see "Lifetime"). */
static void sysfs_sweep(const char *tmp)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat sb;
	DIR *d = opendir(tmp);
	int fd;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, SYSFS_PREFIX, strlen(SYSFS_PREFIX)))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s/" SYSFS_OWNER, tmp, de->d_name) >=
		    (int)sizeof(path))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		/* Only our own trees (another user's cannot be removed from a sticky /tmp). */
		if (fstat(fd, &sb) == 0 && sb.st_uid == geteuid() &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0) {
			snprintf(path, sizeof(path), "%s/%s", tmp, de->d_name);
			hsaqm_log_debug("sim sysfs: removing %s, left by a process that is gone", path);
			remove_tree(path);
		}
		close(fd);
	}
	closedir(d);
}

static void sysfs_once_init(void)
{
	pthread_atfork(sysfs_fork_prepare, sysfs_fork_after, sysfs_fork_after);
}

/* The owner file, locked, then named: -errno. */
static int sysfs_own(struct sysfs_state *st)
{
	char tmp_name[PATH_MAX], name[PATH_MAX];
	int fd;

	if (snprintf(tmp_name, sizeof(tmp_name), "%s/.owner.tmp", st->root) >=
		    (int)sizeof(tmp_name) ||
	    snprintf(name, sizeof(name), "%s/" SYSFS_OWNER, st->root) >= (int)sizeof(name))
		return -ENAMETOOLONG;
	fd = open(tmp_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_SH) || rename(tmp_name, name)) {
		int err = -errno;

		unlink(tmp_name);
		close(fd);
		return err;
	}
	st->owner_fd = fd;
	return 0;
}

static void *sysfs_init(struct hsaqm_sim *sim)
{
	const char *tmp = getenv("TMPDIR");
	struct sysfs_state *st = calloc(1, sizeof(*st));
	bool sweep;
	int n, err;

	if (!st)
		return NULL;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	pthread_once(&sysfs_once, sysfs_once_init);
	/* Once per process: the leftovers of killed processes go before this one adds its own. */
	pthread_mutex_lock(&sysfs_live_lock);
	sweep = !sysfs_swept;
	sysfs_swept = true;
	pthread_mutex_unlock(&sysfs_live_lock);
	if (sweep)
		sysfs_sweep(tmp);
	st->owner_fd = -1;
	n = snprintf(st->root, sizeof(st->root), "%s/" SYSFS_PREFIX "XXXXXX", tmp);
	if (n < 0 || (size_t)n >= sizeof(st->root) || !mkdtemp(st->root)) {
		hsaqm_log_err("sim sysfs: cannot make a folder under %s: %s", tmp,
			      n > 0 ? strerror(errno) : "path too long");
		free(st);
		return NULL;
	}
	err = write_tree(sim, st->root);
	if (err) {
		hsaqm_log_err("sim sysfs: writing %s failed: %s", st->root, strerror(-err));
		remove_tree(st->root);
		free(st);
		return NULL;
	}
	/* Without an owner file the tree still works; only a SIGKILL would leave it behind. */
	err = sysfs_own(st);
	if (err)
		hsaqm_log_debug("sim sysfs: no owner lock in %s (%s): not swept if killed",
				st->root, strerror(-err));
	st->pid = getpid();
	pthread_mutex_lock(&sysfs_live_lock);
	st->next = sysfs_live;
	sysfs_live = st;
	pthread_mutex_unlock(&sysfs_live_lock);
	hsaqm_log_debug("sim sysfs tree at %s", st->root);
	return st;
}

static void sysfs_fini(struct hsaqm_sim *sim, void *state)
{
	struct sysfs_state *st = state;

	(void)sim;
	pthread_mutex_lock(&sysfs_live_lock);
	for (struct sysfs_state **pp = &sysfs_live; *pp; pp = &(*pp)->next) {
		if (*pp == st) {
			*pp = st->next;
			break;
		}
	}
	pthread_mutex_unlock(&sysfs_live_lock);
	/* A forked child destroying its copy of the parent's model leaves the parent's tree. */
	if (st->pid == getpid())
		remove_tree(st->root);
	if (st->owner_fd >= 0)
		close(st->owner_fd);
	free(st);
}

/*
 * Process exit with models alive: remove their trees (see "Lifetime"). The states stay
 * allocated: a thread still running reads only their paths, and finds them gone.
 */
__attribute__((destructor)) static void sysfs_at_exit(void)
{
	pthread_mutex_lock(&sysfs_live_lock);
	for (struct sysfs_state *st = sysfs_live; st; st = st->next) {
		if (st->pid == getpid())
			remove_tree(st->root);
	}
	pthread_mutex_unlock(&sysfs_live_lock);
}

const char *hsaqm_sim_sysfs_root(const struct hsaqm_sim *sim)
{
	struct sysfs_state *st;

	if (!sim)
		return NULL;
	/*
	 * Created on first use, so the const model gains state: the tree is a cache of what
	 * the model already is, like the KFD's sysfs is of its topology.
	 */
	st = sim_face_state((struct hsaqm_sim *)sim, SIM_FACE_SYSFS, sysfs_init, sysfs_fini);
	return st ? st->root : NULL;
}
