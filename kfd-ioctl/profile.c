// SPDX-License-Identifier: MIT
/*
 * profile.c - the per-GPU profile hsa-queue-probe writes and the tool reads (hsaqm-kfd/kfd_lv3.h,
 * docs/probe-report.md "The GPU profile"): which stop mechanisms work on each GPU and what
 * they cost. A small line format, so that a person can read and edit it:
 *
 *   # comments
 *   hsaqm-gpu-profile 1
 *   gpu 0x1a2b dbg_trap supported 131000 52000        <- gpu_id mechanism verdict stop restart
 *   gpu 0x1a2b update_queue not_supported 0 0
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-kfd/kfd_lv3.h"
#include "hsaqm-common/log.h"
#include "hsaqm-common/text.h"

#define PROFILE_MAGIC "hsaqm-gpu-profile"

static int mech_parse(const char *s, enum hsaqm_kfd_mech *m)
{
	for (int i = HSAQM_KFD_MECH_DBG_TRAP; i < HSAQM_KFD_NMECH; i++) {
		if (!strcmp(s, hsaqm_kfd_mech_name((enum hsaqm_kfd_mech)i))) {
			*m = (enum hsaqm_kfd_mech)i;
			return 0;
		}
	}
	return -EINVAL;
}

static struct hsaqm_kfd_profile_gpu *gpu_slot(struct hsaqm_kfd_profile *p, uint32_t gpu_id)
{
	for (uint32_t i = 0; i < p->ngpus; i++)
		if (p->gpu[i].gpu_id == gpu_id)
			return &p->gpu[i];
	if (p->ngpus >= HSAQM_KFD_PROFILE_MAX_GPUS)
		return NULL;
	struct hsaqm_kfd_profile_gpu *g = &p->gpu[p->ngpus++];

	memset(g, 0, sizeof(*g));
	g->gpu_id = gpu_id;
	for (int m = 0; m < HSAQM_KFD_NMECH; m++)
		g->verdict[m] = HSAQM_KFD_PROFILE_UNKNOWN;
	return g;
}

/*
 * A gpu_id: "0x" and hex digits, as hsaqm_kfd_profile_save() writes it, or decimal, as the
 * topology's gpu_id file has it. A leading 0 without the x is refused: read with base 0 it was
 * octal ("010" was 8), a GPU nobody meant.
 */
static int gpu_id_parse(const char *s, uint32_t *id)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	unsigned long long v;

	if (!hex && s[0] == '0')
		return -EINVAL;
	if (hsaqm_parse_uint(s, hex ? 16 : 10, 1, UINT32_MAX, &v))
		return -EINVAL;
	*id = (uint32_t)v;
	return 0;
}

/* One "gpu ..." line. 0, -EBADMSG (*bad: the field at fault, when one is), or -E2BIG. */
static int parse_gpu_line(struct hsaqm_kfd_profile *p, char *line, const char **bad)
{
	char *save = NULL, *tok[6];
	int n = 0;

	for (char *t = strtok_r(line, " \t", &save); t && n < 6; t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	if (n != 6 || strtok_r(NULL, " \t", &save) || strcmp(tok[0], "gpu"))
		return -EBADMSG;

	unsigned long long stop, restart;
	enum hsaqm_kfd_mech m;
	uint32_t id;
	int8_t v;

	*bad = tok[1];
	if (gpu_id_parse(tok[1], &id))
		return -EBADMSG;
	*bad = tok[2];
	if (mech_parse(tok[2], &m))
		return -EBADMSG;
	*bad = tok[3];
	if (!strcmp(tok[3], "supported"))
		v = HSAQM_KFD_PROFILE_YES;
	else if (!strcmp(tok[3], "not_supported"))
		v = HSAQM_KFD_PROFILE_NO;
	else
		return -EBADMSG;
	/* Nanoseconds: the one rule for numbers a person may have edited (hsaqm-common/text.h). */
	*bad = tok[4];
	if (hsaqm_parse_uint(tok[4], 10, 0, UINT64_MAX, &stop))
		return -EBADMSG;
	*bad = tok[5];
	if (hsaqm_parse_uint(tok[5], 10, 0, UINT64_MAX, &restart))
		return -EBADMSG;
	*bad = NULL;
	struct hsaqm_kfd_profile_gpu *g = gpu_slot(p, id);
	if (!g)
		return -E2BIG;
	g->verdict[m] = v;
	g->stop_ns[m] = stop;
	g->restart_ns[m] = restart;
	return 0;
}

int hsaqm_kfd_profile_load(const char *path, struct hsaqm_kfd_profile *out)
{
	char line[512], field[64] = "";
	unsigned int lineno = 0;
	bool magic = false;
	int err = 0;
	FILE *f;

	if (!path || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		char *s = line, *e;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			err = -EBADMSG;
			break;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			*--e = '\0';
		if (*s == '#') {
			/* The first comment line is the probe's: keep it as the source. */
			if (!out->source[0])
				snprintf(out->source, sizeof(out->source), "%s", s + 1 + (s[1] == ' '));
			continue;
		}
		if (!*s)
			continue;
		if (!magic) {
			char want[32];

			snprintf(want, sizeof(want), PROFILE_MAGIC " %d", HSAQM_KFD_PROFILE_VERSION);
			if (strcmp(s, want)) {
				err = -EBADMSG;
				break;
			}
			magic = true;
			continue;
		}
		const char *bad = NULL;

		err = parse_gpu_line(out, s, &bad);
		/* Copied: the line buffer is reused, the message comes after the loop. */
		if (err && bad)
			snprintf(field, sizeof(field), "\"%s\": ", bad);
	}
	fclose(f);
	if (!err && !magic)
		err = -EBADMSG;
	if (err == -EBADMSG)
		hsaqm_log_err("GPU profile %s:%u: %snot a line of an hsaqm-gpu-profile %d file "
			      "(docs/probe-report.md); profile ignored", path, lineno, field,
			      HSAQM_KFD_PROFILE_VERSION);
	else if (err == -E2BIG)
		hsaqm_log_err("GPU profile %s:%u: more than %d GPUs; profile ignored", path, lineno,
			      HSAQM_KFD_PROFILE_MAX_GPUS);
	if (err)
		memset(out, 0, sizeof(*out));
	return err;
}

int hsaqm_kfd_profile_save(const char *path, const struct hsaqm_kfd_profile *p)
{
	static const char *const v[] = { "not_supported", "supported" };
	FILE *f;
	int err = 0;

	if (!path || !p)
		return -EINVAL;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "# %s\n", p->source[0] ? p->source : "hsaqm GPU profile");
	fprintf(f, "# Read by the hsaqm tool library (HSAQM_GPU_PROFILE); docs/probe-report.md.\n");
	fprintf(f, "%s %d\n", PROFILE_MAGIC, HSAQM_KFD_PROFILE_VERSION);
	fprintf(f, "# gpu_id mechanism verdict stop_ns restart_ns\n");
	for (uint32_t i = 0; i < p->ngpus && i < HSAQM_KFD_PROFILE_MAX_GPUS; i++) {
		const struct hsaqm_kfd_profile_gpu *g = &p->gpu[i];

		for (int m = HSAQM_KFD_MECH_DBG_TRAP; m < HSAQM_KFD_NMECH; m++) {
			if (g->verdict[m] == HSAQM_KFD_PROFILE_UNKNOWN)
				continue;
			fprintf(f, "gpu 0x%04x %s %s %" PRIu64 " %" PRIu64 "\n", g->gpu_id,
				hsaqm_kfd_mech_name((enum hsaqm_kfd_mech)m),
				v[g->verdict[m] == HSAQM_KFD_PROFILE_YES], g->stop_ns[m],
				g->restart_ns[m]);
		}
	}
	if (ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

const struct hsaqm_kfd_profile_gpu *hsaqm_kfd_profile_find(const struct hsaqm_kfd_profile *p,
							    uint32_t gpu_id)
{
	if (!p)
		return NULL;
	for (uint32_t i = 0; i < p->ngpus && i < HSAQM_KFD_PROFILE_MAX_GPUS; i++)
		if (p->gpu[i].gpu_id == gpu_id)
			return &p->gpu[i];
	return NULL;
}

void hsaqm_kfd_lv3_facts_profile(struct hsaqm_kfd_lv3_facts *f,
				 const struct hsaqm_kfd_profile_gpu *g)
{
	if (!f || !g)
		return;
	for (int m = 0; m < HSAQM_KFD_NMECH; m++) {
		f->profile[m] = g->verdict[m];
		f->profile_stop_ns[m] = g->verdict[m] == HSAQM_KFD_PROFILE_YES ? g->stop_ns[m] : 0;
	}
}
