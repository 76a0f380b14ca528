// SPDX-License-Identifier: MIT
/*
 * topology.c - what the KFD publishes in sysfs: topology nodes and their properties, the
 * capability word decoded by name, and the amdgpu module parameters.
 *
 * Layout read (kfd_topology.c): <root>/class/kfd/kfd/topology/nodes/<N>/properties holds one
 * "name value" line per property, <N>/gpu_id the node's GPU id (0 for a CPU node). Module
 * parameters are one value per file under <root>/module/amdgpu/parameters.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfd_internal.h"
#include "hsaqm-common/log.h"

#define TOPOLOGY_NODES "class/kfd/kfd/topology/nodes"
#define AMDGPU_PARAMS "module/amdgpu/parameters"
/* A GPU node's properties run to ~1 KiB; leave room for kernels that print more. */
#define PROPERTIES_MAX 16384
/* More nodes than any machine has (CPU sockets + GPUs/partitions); stops a runaway scan. */
#define TOPOLOGY_MAX_NODES 1024

int hsaqm_sysfs_read_small(const char *path, char *buf, size_t size, size_t *len)
{
	size_t got = 0;
	int fd, ret = 0;

	if (!path || !buf || size < 2)
		return -EINVAL;
	do {
		fd = open(path, O_RDONLY | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + got, size - 1 - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got == size - 1) {
			char extra;

			/* Full buffer: only fine if the file ends exactly here. */
			if (read(fd, &extra, 1) > 0)
				ret = -EFBIG;
			break;
		}
	}
	close(fd);
	if (ret)
		return ret;
	buf[got] = '\0';
	if (len)
		*len = got;
	return 0;
}

static int join_path(char *out, size_t size, const char *root, const char *rel)
{
	int n = snprintf(out, size, "%s/%s", root, rel);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Parse an unsigned decimal that must fill [s, end) (no sign, no junk). */
static int parse_u64(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;

	if (s == end)
		return -EBADMSG;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EBADMSG;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -EBADMSG;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

/* The properties the node struct names, with where they go. */
struct prop_field {
	const char *name;
	size_t offset;
	bool wide;
};

#define U32_FIELD(f) { #f, offsetof(struct hsaqm_topology_node, f), false }
#define U64_FIELD(f) { #f, offsetof(struct hsaqm_topology_node, f), true }

static const struct prop_field prop_fields[] = {
	U32_FIELD(cpu_cores_count), U32_FIELD(simd_count), U32_FIELD(simd_per_cu),
	U32_FIELD(array_count), U32_FIELD(simd_arrays_per_engine), U32_FIELD(cu_per_simd_array),
	U32_FIELD(max_waves_per_simd), U32_FIELD(wave_front_size), U32_FIELD(lds_size_in_kb),
	U32_FIELD(gfx_target_version), U32_FIELD(vendor_id), U32_FIELD(device_id),
	U32_FIELD(location_id), U32_FIELD(domain), U32_FIELD(drm_render_minor),
	U32_FIELD(num_xcc), U32_FIELD(num_cp_queues), U32_FIELD(num_sdma_engines),
	U32_FIELD(num_sdma_xgmi_engines), U32_FIELD(num_sdma_queues_per_engine),
	U32_FIELD(fw_version), U32_FIELD(sdma_fw_version), U32_FIELD(max_engine_clk_fcompute),
	U32_FIELD(capability), U32_FIELD(capability2), U32_FIELD(debug_prop),
	U32_FIELD(cwsr_size), U32_FIELD(ctl_stack_size), U64_FIELD(hive_id), U64_FIELD(unique_id),
};

static void store_field(struct hsaqm_topology_node *node, const char *name, uint64_t value)
{
	for (size_t i = 0; i < sizeof(prop_fields) / sizeof(prop_fields[0]); i++) {
		char *dst = (char *)node + prop_fields[i].offset;

		if (strcmp(prop_fields[i].name, name))
			continue;
		if (prop_fields[i].wide) {
			memcpy(dst, &value, sizeof(uint64_t));
		} else {
			uint32_t v32 = (uint32_t)value;

			memcpy(dst, &v32, sizeof(v32));
		}
		if (!strcmp(name, "cwsr_size"))
			node->has_cwsr_size = true;
		else if (!strcmp(name, "ctl_stack_size"))
			node->has_ctl_stack_size = true;
		return;
	}
}

int hsaqm_topology_parse_properties(const char *text, size_t len, struct hsaqm_topology_node *node)
{
	const char *p, *end;
	uint32_t node_id, gpu_id;

	if (!text || !node)
		return -EINVAL;
	node_id = node->node_id;
	gpu_id = node->gpu_id;
	memset(node, 0, sizeof(*node));
	node->node_id = node_id;
	node->gpu_id = gpu_id;

	for (p = text, end = text + len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *sp, *val;
		size_t name_len;
		uint64_t value;
		char name[HSAQM_TOPOLOGY_PROP_NAME_MAX];

		if (!eol)
			eol = end;
		if (eol == p || (eol - p == 1 && *p == '\0')) {
			p = eol + 1;
			continue;
		}
		sp = memchr(p, ' ', (size_t)(eol - p));
		if (!sp || sp == p)
			return -EBADMSG;
		name_len = (size_t)(sp - p);
		if (name_len >= sizeof(name))
			return -EBADMSG;
		memcpy(name, p, name_len);
		name[name_len] = '\0';
		for (val = sp; val < eol && *val == ' '; val++)
			;
		if (parse_u64(val, eol, &value))
			return -EBADMSG;

		if (node->n_props < HSAQM_TOPOLOGY_MAX_PROPS) {
			struct hsaqm_topology_prop *prop = &node->props[node->n_props++];

			memcpy(prop->name, name, name_len + 1);
			prop->value = value;
		} else {
			hsaqm_log_debug("property %s past the first %d: not kept", name,
					HSAQM_TOPOLOGY_MAX_PROPS);
		}
		store_field(node, name, value);
		p = eol + 1;
	}
	if (node->n_props == 0)
		return -ENODATA;
	if (node->num_xcc == 0)
		node->num_xcc = 1; /* kernels before multi-XCC parts do not print it */
	if (node->simd_per_cu)
		node->cu_count = node->simd_count / node->simd_per_cu;
	return 0;
}

int hsaqm_topology_node_load(const char *sysfs_root, uint32_t node_id,
			     struct hsaqm_topology_node *node)
{
	char path[PATH_MAX], rel[128];
	char *text;
	char small[64];
	uint64_t gpu_id = 0;
	size_t len;
	int ret;

	if (!sysfs_root || !node)
		return -EINVAL;
	text = malloc(PROPERTIES_MAX);
	if (!text)
		return -ENOMEM;

	snprintf(rel, sizeof(rel), TOPOLOGY_NODES "/%u/properties", node_id);
	ret = join_path(path, sizeof(path), sysfs_root, rel);
	if (!ret)
		ret = hsaqm_sysfs_read_small(path, text, PROPERTIES_MAX, &len);
	if (!ret) {
		node->node_id = node_id;
		node->gpu_id = 0;
		ret = hsaqm_topology_parse_properties(text, len, node);
		if (ret == -ENODATA)
			ret = -EBADMSG; /* an empty properties file is not a node */
		if (ret)
			hsaqm_log_warn("%s: %s", path, ret == -EBADMSG ? "garbled" : "unreadable");
	}
	free(text);
	if (ret)
		return ret;

	snprintf(rel, sizeof(rel), TOPOLOGY_NODES "/%u/gpu_id", node_id);
	ret = join_path(path, sizeof(path), sysfs_root, rel);
	if (!ret)
		ret = hsaqm_sysfs_read_small(path, small, sizeof(small), &len);
	if (ret == -ENOENT) {
		/* Some kernels omit gpu_id on CPU nodes: a CPU node has no SIMDs. */
		ret = node->simd_count ? -ENOENT : 0;
	} else if (!ret) {
		while (len && (small[len - 1] == '\n' || small[len - 1] == ' '))
			len--;
		if (parse_u64(small, small + len, &gpu_id) || gpu_id > UINT32_MAX)
			ret = -EBADMSG;
	}
	if (ret) {
		hsaqm_log_warn("%s: %s", path, ret == -EBADMSG ? "garbled" : "unreadable");
		return ret;
	}
	node->gpu_id = (uint32_t)gpu_id;
	node->is_gpu = node->gpu_id != 0;
	return 0;
}

int hsaqm_topology_load(const char *sysfs_root, struct hsaqm_topology **out)
{
	struct hsaqm_topology *topo;
	char path[PATH_MAX], rel[64];
	uint32_t n = 0;
	int ret;

	if (!sysfs_root || !out)
		return -EINVAL;
	/* Nodes are numbered 0..N-1: count them by their directories. */
	for (; n < TOPOLOGY_MAX_NODES; n++) {
		snprintf(rel, sizeof(rel), TOPOLOGY_NODES "/%u", n);
		ret = join_path(path, sizeof(path), sysfs_root, rel);
		if (ret)
			return ret;
		if (access(path, F_OK) != 0)
			break;
	}
	if (n == 0) {
		hsaqm_log_info("no KFD topology under %s (is the amdgpu module loaded?)",
			       sysfs_root);
		return -ENOENT;
	}
	topo = calloc(1, sizeof(*topo));
	if (!topo)
		return -ENOMEM;
	topo->nodes = calloc(n, sizeof(*topo->nodes));
	if (!topo->nodes) {
		free(topo);
		return -ENOMEM;
	}
	topo->n_nodes = n;
	for (uint32_t i = 0; i < n; i++) {
		ret = hsaqm_topology_node_load(sysfs_root, i, &topo->nodes[i]);
		if (ret) {
			hsaqm_topology_free(topo);
			return ret;
		}
	}
	*out = topo;
	return 0;
}

void hsaqm_topology_free(struct hsaqm_topology *topo)
{
	if (!topo)
		return;
	free(topo->nodes);
	free(topo);
}

const struct hsaqm_topology_node *hsaqm_topology_find_gpu(const struct hsaqm_topology *topo,
							   uint32_t gpu_id)
{
	if (!topo || gpu_id == 0)
		return NULL;
	for (uint32_t i = 0; i < topo->n_nodes; i++)
		if (topo->nodes[i].is_gpu && topo->nodes[i].gpu_id == gpu_id)
			return &topo->nodes[i];
	return NULL;
}

int hsaqm_topology_node_prop(const struct hsaqm_topology_node *node, const char *name,
			     uint64_t *value)
{
	if (!node || !name || !value)
		return -EINVAL;
	for (uint32_t i = 0; i < node->n_props; i++) {
		if (!strcmp(node->props[i].name, name)) {
			*value = node->props[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- capability bits ------------------------------------------------------------------- */

static const struct {
	uint32_t bit;
	const char *name;
} cap_names[] = {
	{ HSAQM_KFD_CAP_HOT_PLUGGABLE, "HOT_PLUGGABLE" },
	{ HSAQM_KFD_CAP_ATS_PRESENT, "ATS_PRESENT" },
	{ HSAQM_KFD_CAP_SHARED_WITH_GRAPHICS, "SHARED_WITH_GRAPHICS" },
	{ HSAQM_KFD_CAP_QUEUE_SIZE_POW2, "QUEUE_SIZE_POW2" },
	{ HSAQM_KFD_CAP_QUEUE_SIZE_32BIT, "QUEUE_SIZE_32BIT" },
	{ HSAQM_KFD_CAP_QUEUE_IDLE_EVENT, "QUEUE_IDLE_EVENT" },
	{ HSAQM_KFD_CAP_VA_LIMIT, "VA_LIMIT" },
	{ HSAQM_KFD_CAP_WATCH_POINTS_SUPPORTED, "WATCH_POINTS_SUPPORTED" },
	{ HSAQM_KFD_CAP_AQL_QUEUE_DOUBLE_MAP, "AQL_QUEUE_DOUBLE_MAP" },
	{ HSAQM_KFD_CAP_TRAP_DEBUG_SUPPORT, "TRAP_DEBUG_SUPPORT" },
	{ HSAQM_KFD_CAP_TRAP_DEBUG_WAVE_LAUNCH_TRAP_OVERRIDE_SUPPORTED,
	  "TRAP_DEBUG_WAVE_LAUNCH_TRAP_OVERRIDE_SUPPORTED" },
	{ HSAQM_KFD_CAP_TRAP_DEBUG_WAVE_LAUNCH_MODE_SUPPORTED,
	  "TRAP_DEBUG_WAVE_LAUNCH_MODE_SUPPORTED" },
	{ HSAQM_KFD_CAP_TRAP_DEBUG_PRECISE_MEMORY_OPERATIONS_SUPPORTED,
	  "TRAP_DEBUG_PRECISE_MEMORY_OPERATIONS_SUPPORTED" },
	{ HSAQM_KFD_CAP_RESERVED_WAS_SRAM_EDCSUPPORTED, "RESERVED_WAS_SRAM_EDCSUPPORTED" },
	{ HSAQM_KFD_CAP_MEM_EDCSUPPORTED, "MEM_EDCSUPPORTED" },
	{ HSAQM_KFD_CAP_RASEVENTNOTIFY, "RASEVENTNOTIFY" },
	{ HSAQM_KFD_CAP_SRAM_EDCSUPPORTED, "SRAM_EDCSUPPORTED" },
	{ HSAQM_KFD_CAP_SVMAPI_SUPPORTED, "SVMAPI_SUPPORTED" },
	{ HSAQM_KFD_CAP_FLAGS_COHERENTHOSTACCESS, "FLAGS_COHERENTHOSTACCESS" },
	{ HSAQM_KFD_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED, "TRAP_DEBUG_FIRMWARE_SUPPORTED" },
	{ HSAQM_KFD_CAP_TRAP_DEBUG_PRECISE_ALU_OPERATIONS_SUPPORTED,
	  "TRAP_DEBUG_PRECISE_ALU_OPERATIONS_SUPPORTED" },
	{ HSAQM_KFD_CAP_PER_QUEUE_RESET_SUPPORTED, "PER_QUEUE_RESET_SUPPORTED" },
};

const char *hsaqm_topology_cap_name(uint32_t bit)
{
	for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
		if (cap_names[i].bit == bit)
			return cap_names[i].name;
	return NULL;
}

/* Append to buf at *pos; on overflow remember it and keep the text cut but terminated. */
static void __attribute__((format(printf, 5, 6)))
append(char *buf, size_t size, size_t *pos, bool *overflow, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, size - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *pos) {
		*overflow = true;
		*pos = size - 1;
		return;
	}
	*pos += (size_t)n;
}

int hsaqm_topology_cap_decode(uint32_t capability, char *buf, size_t size)
{
	size_t pos = 0;
	bool overflow = false, first = true;

	if (!buf || !size)
		return -EINVAL;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++) {
		if (!(capability & cap_names[i].bit))
			continue;
		append(buf, size, &pos, &overflow, "%s%s", first ? "" : "|", cap_names[i].name);
		first = false;
	}
	append(buf, size, &pos, &overflow,
	       "%swatch_points_bits=%u doorbell_type=%u asic_revision=%u", first ? "" : " ",
	       (capability & HSAQM_KFD_CAP_WATCH_POINTS_TOTALBITS_MASK) >>
		       HSAQM_KFD_CAP_WATCH_POINTS_TOTALBITS_SHIFT,
	       (capability & HSAQM_KFD_CAP_DOORBELL_TYPE_TOTALBITS_MASK) >>
		       HSAQM_KFD_CAP_DOORBELL_TYPE_TOTALBITS_SHIFT,
	       (capability & HSAQM_KFD_CAP_ASIC_REVISION_MASK) >>
		       HSAQM_KFD_CAP_ASIC_REVISION_SHIFT);
	return overflow ? -ENOSPC : (int)pos;
}

/* ---- amdgpu module parameters -------------------------------------------------------------- */

int hsaqm_topology_module_param(const char *sysfs_root, const char *name, long *value)
{
	char path[PATH_MAX], rel[128], buf[64];
	char *endp;
	size_t len;
	long v;
	int ret;

	if (!sysfs_root || !name || !*name || strchr(name, '/') || !value ||
	    strlen(name) > sizeof(rel) - sizeof(AMDGPU_PARAMS) - 2)
		return -EINVAL;
	snprintf(rel, sizeof(rel), AMDGPU_PARAMS "/%s", name);
	ret = join_path(path, sizeof(path), sysfs_root, rel);
	if (!ret)
		ret = hsaqm_sysfs_read_small(path, buf, sizeof(buf), &len);
	if (ret)
		return ret;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	/* bool parameters print Y or N. */
	if (len == 1 && (buf[0] == 'Y' || buf[0] == 'N')) {
		*value = buf[0] == 'Y';
		return 0;
	}
	if (len == 0)
		return -EBADMSG;
	errno = 0;
	v = strtol(buf, &endp, 10);
	if (errno || *endp)
		return -EBADMSG;
	*value = v;
	return 0;
}

int hsaqm_topology_module_params(const char *sysfs_root, struct hsaqm_kfd_module_params *out)
{
	static const struct {
		const char *name;
		size_t offset;
		uint32_t flag;
	} params[] = {
		{ "cwsr_enable", offsetof(struct hsaqm_kfd_module_params, cwsr_enable),
		  HSAQM_KFD_PARAM_CWSR_ENABLE },
		{ "sched_policy", offsetof(struct hsaqm_kfd_module_params, sched_policy),
		  HSAQM_KFD_PARAM_SCHED_POLICY },
		{ "hws_max_conc_proc", offsetof(struct hsaqm_kfd_module_params, hws_max_conc_proc),
		  HSAQM_KFD_PARAM_HWS_MAX_CONC_PROC },
		{ "queue_preemption_timeout_ms",
		  offsetof(struct hsaqm_kfd_module_params, queue_preemption_timeout_ms),
		  HSAQM_KFD_PARAM_QUEUE_PREEMPTION_TIMEOUT_MS },
		{ "mes", offsetof(struct hsaqm_kfd_module_params, mes), HSAQM_KFD_PARAM_MES },
	};
	char path[PATH_MAX];
	int ret;

	if (!sysfs_root || !out)
		return -EINVAL;
	ret = join_path(path, sizeof(path), sysfs_root, AMDGPU_PARAMS);
	if (ret)
		return ret;
	if (access(path, F_OK) != 0) {
		hsaqm_log_info("%s missing: amdgpu is not loaded", path);
		return -ENOENT;
	}
	out->present = 0;
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		int *dst = (int *)(void *)((char *)out + params[i].offset);
		long v;

		*dst = -1;
		ret = hsaqm_topology_module_param(sysfs_root, params[i].name, &v);
		if (ret == -ENOENT)
			continue; /* an amdgpu without this parameter */
		if (ret == 0 && (v < INT_MIN || v > INT_MAX))
			ret = -EBADMSG;
		if (ret) {
			hsaqm_log_warn("amdgpu parameter %s: %s", params[i].name,
				       ret == -EBADMSG ? "garbled" : "unreadable");
			return ret;
		}
		*dst = (int)v;
		out->present |= params[i].flag;
	}
	return 0;
}
