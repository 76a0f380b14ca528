/* SPDX-License-Identifier: MIT */
/*
 * The device profile: what the model knows of the GPU it imitates. Structural facts come
 * from a KFD topology properties file (by default a built-in copy of the real MI308X
 * capture); timing constants from a table where every entry names its source, so that an
 * experiment can always tell a captured figure from an assumption.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-common/log.h"
#include "hsaqm-common/text.h"
#include "sim_internal.h"

/*
 * tests/fixtures/mi308x-sr18/node2.properties, captured 2026-02-17 on an MI308X node
 * (amdgpu DKMS 6.12.12). Kept verbatim: tests compare it with the fixture file.
 */
static const char mi308x_properties[] =
	"cpu_cores_count 0\n"
	"simd_count 320\n"
	"mem_banks_count 1\n"
	"caches_count 178\n"
	"io_links_count 8\n"
	"p2p_links_count 1\n"
	"cpu_core_id_base 0\n"
	"simd_id_base 2147490944\n"
	"max_waves_per_simd 8\n"
	"lds_size_in_kb 64\n"
	"gds_size_in_kb 0\n"
	"num_gws 64\n"
	"wave_front_size 64\n"
	"array_count 16\n"
	"simd_arrays_per_engine 1\n"
	"cu_per_simd_array 10\n"
	"simd_per_cu 4\n"
	"max_slots_scratch_cu 32\n"
	"gfx_target_version 90402\n"
	"vendor_id 4098\n"
	"device_id 29858\n"
	"location_id 2560\n"
	"domain 0\n"
	"drm_render_minor 128\n"
	"hive_id 11874769713031422079\n"
	"num_sdma_engines 2\n"
	"num_sdma_xgmi_engines 6\n"
	"num_sdma_queues_per_engine 8\n"
	"num_cp_queues 24\n"
	"max_engine_clk_fcompute 1420\n"
	"local_mem_size 0\n"
	"fw_version 165\n"
	"capability 746037888\n"
	"debug_prop 1511\n"
	"sdma_fw_version 21\n"
	"unique_id 11839909002616174243\n"
	"num_xcc 4\n"
	"max_engine_clk_ccompute 3800\n";

/* Timing and structural constants: default value and source. docs/sim.md mirrors this. */
struct const_default {
	const char *name;
	size_t offset; /* into struct sim_profile */
	int is_u32;
	uint64_t value;
	const char *source;
};

#define U64(field) offsetof(struct sim_profile, field), 0
#define U32(field) offsetof(struct sim_profile, field), 1

static const struct const_default const_defaults[] = {
	{ "hqd_slots", U32(hqd_slots), 24,
	  "captured: debugfs kfd/hqds, CP pipes 0-3 x queues 2-7 per XCC (num_cp_queues 24)" },
	{ "queue_create_ns", U64(queue_create_ns), 150000,
	  "captured: ~150 us in the KFD create_queue path (hardware-facts.md); listed, not charged (a creation costs its runlist change)" },
	{ "hws_quantum_ns", U64(hws_quantum_ns), 10000000, "assumption" },
	{ "hws_map_ns", U64(hws_map_ns), 20000, "assumption" },
	{ "hws_unmap_ns", U64(hws_unmap_ns), 20000, "assumption" },
	{ "dispatch_launch_ns", U64(dispatch_launch_ns), 5000, "assumption" },
	{ "max_inflight_dispatches", U32(max_inflight_dispatches), 8, "assumption" },
	{ "cwsr_save_ns_per_wave", U64(cwsr_save_ns_per_wave), 1000,
	  "assumption, per wave on one CU; CUs save in parallel (no MI300 measurement exists; hsa-queue-probe measures it)" },
	{ "cwsr_restore_ns_per_wave", U64(cwsr_restore_ns_per_wave), 1000,
	  "assumption, per wave on one CU; CUs restore in parallel (no MI300 measurement exists; hsa-queue-probe measures it)" },
	{ "dbg_suspend_ns", U64(dbg_suspend_ns), 50000,
	  "assumption: KFD work after the runlist change; the DBG_TRAP suspend ioctl returns this much later (RDNA3 report: ~0.5 ms in all)" },
	{ "dbg_resume_ns", U64(dbg_resume_ns), 50000,
	  "assumption: as dbg_suspend_ns, for the DBG_TRAP resume ioctl (RDNA3 report: ~0.5 ms in all)" },
	/* 1K GPU clocks, as DBG_TRAP's grace_period: runlist changes, time slicing, 0xffffffff. */
	{ "hws_default_grace_units", U32(hws_default_grace_units), 0,
	  "assumption (the KFD's USE_DEFAULT_GRACE_PERIOD is whatever CP_IQ_WAIT_TIME2 holds)" },
};

#define NCONST_DEFAULTS (sizeof(const_defaults) / sizeof(const_defaults[0]))

/* Record (or overwrite) a constant for the dump; the profile keeps its own copy of @source. */
static void const_note(struct sim_profile *p, const char *name, uint64_t v, const char *source)
{
	struct sim_const *c = NULL;

	for (unsigned int i = 0; i < p->nconsts; i++)
		if (!strcmp(p->consts[i].name, name))
			c = &p->consts[i];
	if (!c) {
		if (p->nconsts >= sizeof(p->consts) / sizeof(p->consts[0]))
			return;
		c = &p->consts[p->nconsts++];
		c->name = name;
	}
	c->value = v;
	snprintf(c->source, sizeof(c->source), "%s", source);
}

static void const_set(struct sim_profile *p, const struct const_default *d, uint64_t v,
		      const char *source)
{
	char *base = (char *)p;

	if (d->is_u32)
		*(uint32_t *)(base + d->offset) = (uint32_t)v;
	else
		*(uint64_t *)(base + d->offset) = v;
	const_note(p, d->name, v, source);
}


/* A value of a properties or timing file: decimal, spaces around it allowed
 * (hsaqm-common/text.h). */
static int parse_value(char *s, uint64_t *out)
{
	unsigned long long v;
	int rc = hsaqm_parse_uint(hsaqm_trim(s), 10, 0, UINT64_MAX, &v);

	if (!rc)
		*out = v;
	return rc;
}

int sim_profile_parse_properties(struct sim_profile *p, const char *text)
{
	uint64_t simd_count = 0;
	int have_simd = 0, have_per_cu = 0, have_gfx = 0;

	if (!p || !text)
		return -EINVAL;
	size_t len = strlen(text);
	if (len >= sizeof(p->properties_text)) {
		hsaqm_log_err("properties text is %zu bytes, more than the %zu a KFD node has", len,
			      sizeof(p->properties_text) - 1);
		return -EINVAL;
	}
	memcpy(p->properties_text, text, len + 1);

	const char *line = text;
	unsigned int lineno = 0;
	while (*line) {
		const char *eol = strchr(line, '\n');
		size_t n = eol ? (size_t)(eol - line) : strlen(line);
		char buf[128], key[64];
		uint64_t v;

		lineno++;
		if (n >= sizeof(buf)) {
			hsaqm_log_err("properties line %u is too long", lineno);
			return -EINVAL;
		}
		memcpy(buf, line, n);
		buf[n] = '\0';
		line = eol ? eol + 1 : line + n;
		if (!buf[0])
			continue;

		char *sp = strchr(buf, ' ');
		if (!sp || (size_t)(sp - buf) >= sizeof(key) || parse_value(sp + 1, &v) < 0) {
			hsaqm_log_err("properties line %u is not \"name value\": \"%s\"", lineno, buf);
			return -EINVAL;
		}
		memcpy(key, buf, (size_t)(sp - buf));
		key[sp - buf] = '\0';

		/* Unknown names are fine: newer kernels add properties. */
		if (!strcmp(key, "simd_count")) {
			simd_count = v;
			have_simd = 1;
		} else if (!strcmp(key, "simd_per_cu")) {
			p->simd_per_cu = (uint32_t)v;
			have_per_cu = 1;
		} else if (!strcmp(key, "gfx_target_version")) {
			p->gfx_target_version = (uint32_t)v;
			have_gfx = 1;
		} else if (!strcmp(key, "max_waves_per_simd")) {
			p->max_waves_per_simd = (uint32_t)v;
		} else if (!strcmp(key, "wave_front_size")) {
			p->wave_front_size = (uint32_t)v;
		} else if (!strcmp(key, "lds_size_in_kb")) {
			p->lds_size_kb = (uint32_t)v;
		} else if (!strcmp(key, "num_cp_queues")) {
			p->num_cp_queues = (uint32_t)v;
		} else if (!strcmp(key, "max_engine_clk_fcompute")) {
			p->max_engine_clk_mhz = (uint32_t)v;
		} else if (!strcmp(key, "fw_version")) {
			p->fw_version = (uint32_t)v;
		} else if (!strcmp(key, "capability")) {
			p->capability = v;
		} else if (!strcmp(key, "debug_prop")) {
			p->debug_prop = (uint32_t)v;
		} else if (!strcmp(key, "device_id")) {
			p->device_id = (uint32_t)v;
		} else if (!strcmp(key, "vendor_id")) {
			p->vendor_id = (uint32_t)v;
		} else if (!strcmp(key, "num_xcc")) {
			p->num_xcc = (uint32_t)v;
		} else if (!strcmp(key, "num_sdma_engines")) {
			p->num_sdma_engines = (uint32_t)v;
		} else if (!strcmp(key, "num_sdma_xgmi_engines")) {
			p->num_sdma_xgmi_engines = (uint32_t)v;
		} else if (!strcmp(key, "num_sdma_queues_per_engine")) {
			p->num_sdma_queues_per_engine = (uint32_t)v;
		} else if (!strcmp(key, "drm_render_minor")) {
			p->drm_render_minor = (uint32_t)v;
		} else if (!strcmp(key, "unique_id")) {
			p->unique_id = v;
		}
	}

	/* A CPU node (simd_count 0) or a truncated file cannot be a GPU profile. */
	if (!have_simd || !have_per_cu || !have_gfx || simd_count == 0 || p->simd_per_cu == 0 ||
	    p->gfx_target_version == 0) {
		hsaqm_log_err("properties describe no GPU (need simd_count, simd_per_cu, gfx_target_version)");
		return -EINVAL;
	}
	if (simd_count % p->simd_per_cu) {
		hsaqm_log_err("simd_count %" PRIu64 " is not a multiple of simd_per_cu %u", simd_count,
			      p->simd_per_cu);
		return -EINVAL;
	}
	p->cu_count = (uint32_t)(simd_count / p->simd_per_cu);
	if (p->num_xcc == 0) /* kernels before the XCC property: one XCC */
		p->num_xcc = 1;
	if (p->max_waves_per_simd == 0 || p->wave_front_size == 0 || p->max_engine_clk_mhz == 0) {
		hsaqm_log_err("properties lack max_waves_per_simd, wave_front_size or max_engine_clk_fcompute");
		return -EINVAL;
	}
	return 0;
}

static int read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	size_t n = fread(buf, 1, size - 1, f);
	int err = ferror(f) ? -EIO : 0;
	int more = !err && fgetc(f) != EOF;
	fclose(f);
	if (err)
		return err;
	if (more) {
		hsaqm_log_err("%s is larger than %zu bytes", path, size - 1);
		return -EFBIG;
	}
	buf[n] = '\0';
	return 0;
}

static int parse_timing(struct sim_profile *p, const char *path, const char *text)
{
	const char *line = text;
	unsigned int lineno = 0;

	while (*line) {
		const char *eol = strchr(line, '\n');
		size_t n = eol ? (size_t)(eol - line) : strlen(line);
		char buf[512], name[64];
		uint64_t v;

		lineno++;
		if (n >= sizeof(buf)) {
			hsaqm_log_err("%s:%u: line too long", path, lineno);
			return -EINVAL;
		}
		memcpy(buf, line, n);
		buf[n] = '\0';
		line = eol ? eol + 1 : line + n;

		/* "name value  # source"; the source is kept so dumps still say where it came from. */
		char *hash = strchr(buf, '#');
		const char *source = "calibration file (no source given)";
		if (hash) {
			*hash = '\0';
			const char *s = hash + 1;
			while (isspace((unsigned char)*s))
				s++;
			if (*s)
				source = s;
		}
		char *s = buf;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			continue;
		char *sp = s;
		while (*sp && !isspace((unsigned char)*sp))
			sp++;
		if (!*sp || (size_t)(sp - s) >= sizeof(name)) {
			hsaqm_log_err("%s:%u: expected \"name value  # source\"", path, lineno);
			return -EINVAL;
		}
		memcpy(name, s, (size_t)(sp - s));
		name[sp - s] = '\0';
		if (parse_value(sp, &v) < 0) {
			hsaqm_log_err("%s:%u: value of %s is not a non-negative integer", path, lineno, name);
			return -EINVAL;
		}

		const struct const_default *d = NULL;
		for (size_t i = 0; i < NCONST_DEFAULTS; i++)
			if (!strcmp(const_defaults[i].name, name))
				d = &const_defaults[i];
		if (!d) {
			hsaqm_log_err("%s:%u: unknown constant \"%s\"", path, lineno, name);
			return -EINVAL;
		}
		/* 32-bit constants must fit; 0xffffffff grace units means "the default" (uapi). */
		bool grace = d->offset == offsetof(struct sim_profile, hws_default_grace_units);
		if (d->is_u32 && (v > UINT32_MAX || (grace && v == UINT32_MAX))) {
			hsaqm_log_err("%s:%u: value of %s is out of range", path, lineno, name);
			return -EINVAL;
		}
		char where[160];
		snprintf(where, sizeof(where), "%s (%s)", source, path);
		const_set(p, d, v, where);
	}
	return 0;
}

int sim_profile_load(struct sim_profile *p, const char *properties_path, const char *timing_path)
{
	enum { FILE_MAX = 8192 };
	int err;

	if (!p)
		return -EINVAL;
	memset(p, 0, sizeof(*p));

	if (properties_path) {
		char *buf = malloc(FILE_MAX);
		if (!buf)
			return -ENOMEM;
		err = read_file(properties_path, buf, FILE_MAX);
		if (err == 0)
			err = sim_profile_parse_properties(p, buf);
		else
			hsaqm_log_err("cannot read properties file %s: %s", properties_path, strerror(-err));
		free(buf);
	} else {
		err = sim_profile_parse_properties(p, mi308x_properties);
	}
	if (err)
		return err;

	const char *prop_source = properties_path ? "properties file" : "captured: MI308X node2.properties";
	const_note(p, "cu_count", p->cu_count, prop_source);
	const_note(p, "num_xcc", p->num_xcc, prop_source);
	const_note(p, "simd_per_cu", p->simd_per_cu, prop_source);
	const_note(p, "max_waves_per_simd", p->max_waves_per_simd, prop_source);
	const_note(p, "wave_front_size", p->wave_front_size, prop_source);
	const_note(p, "max_engine_clk_fcompute_mhz", p->max_engine_clk_mhz, prop_source);
	const_note(p, "gfx_target_version", p->gfx_target_version, prop_source);
	const_note(p, "capability", p->capability, prop_source);

	for (size_t i = 0; i < NCONST_DEFAULTS; i++)
		const_set(p, &const_defaults[i], const_defaults[i].value, const_defaults[i].source);

	if (timing_path) {
		char *buf = malloc(FILE_MAX);
		if (!buf)
			return -ENOMEM;
		err = read_file(timing_path, buf, FILE_MAX);
		if (err == 0)
			err = parse_timing(p, timing_path, buf);
		else
			hsaqm_log_err("cannot read timing file %s: %s", timing_path, strerror(-err));
		free(buf);
		if (err)
			return err;
	}
	if (p->hqd_slots == 0 || p->max_inflight_dispatches == 0) {
		hsaqm_log_err("hqd_slots and max_inflight_dispatches must be at least 1");
		return -EINVAL;
	}
	return 0;
}

void sim_profile_dump(const struct sim_profile *p, FILE *out)
{
	fprintf(out, "# model profile: gfx_target_version %u, %u XCC x %u CU (model figures)\n",
		p->gfx_target_version, p->num_xcc, p->cu_count / p->num_xcc);
	for (unsigned int i = 0; i < p->nconsts; i++)
		fprintf(out, "%-28s %-12" PRIu64 " # %s\n", p->consts[i].name, p->consts[i].value,
			p->consts[i].source);
}
