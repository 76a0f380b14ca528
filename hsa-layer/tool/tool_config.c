/* SPDX-License-Identifier: MIT */
/*
 * The tool library's settings, from HSAQM_* environment variables (design decision 6: a bad
 * value gets one clear message and the default). docs/tool.md lists every variable.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hsaqm-common/log.h"
#include "hsaqm-common/policy_text.h"
#include "hsaqm-common/text.h"
#include "hsaqm-kfd/kfd_lv3.h"
#include "tool_internal.h"

static const struct {
	const char *name;
	int value;
} priority_names[] = {
	{ "idle", HSAQM_TOOL_PRIORITY_IDLE },
	{ "low", HSAQM_TOOL_PRIORITY_LOW },
	{ "offline", HSAQM_TOOL_PRIORITY_LOW },
	{ "normal", HSAQM_TOOL_PRIORITY_NORMAL },
	{ "default", HSAQM_TOOL_PRIORITY_NORMAL },
	{ "high", HSAQM_TOOL_PRIORITY_HIGH },
	{ "online", HSAQM_TOOL_PRIORITY_HIGH },
	{ "realtime", HSAQM_TOOL_PRIORITY_REALTIME },
};

int hsaqm_tool_parse_priority(const char *text, int *out)
{
	long long v;

	if (!text || !out)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(priority_names) / sizeof(priority_names[0]); i++) {
		if (!strcasecmp(text, priority_names[i].name)) {
			*out = priority_names[i].value;
			return 0;
		}
	}
	if (hsaqm_parse_int(text, 10, HSAQM_PRIORITY_MIN, HSAQM_PRIORITY_MAX, &v))
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int hsaqm_tool_parse_level(const char *text, enum hsaqm_level *out)
{
	static const char *const names[][2] = {
		{ "none", "off" }, { "lv1", "1" }, { "lv2", "2" }, { "lv3", "3" },
	};

	if (!text || !out)
		return -EINVAL;
	for (int i = 0; i < 4; i++) {
		if (!strcasecmp(text, names[i][0]) || !strcasecmp(text, names[i][1]) ||
		    (i == 0 && !strcmp(text, "0"))) {
			*out = (enum hsaqm_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

static void refuse(struct hsaqm_tool_config *cfg, const char *var, const char *value,
		   const char *accepts, const char *dflt)
{
	cfg->bad++;
	hsaqm_log_notice(NULL, "%s=\"%s\" is not valid (%s): using %s", var, value, accepts,
			 dflt);
}

static uint32_t read_launch(struct hsaqm_tool_config *cfg, const char *(*get)(const char *),
			    const char *var, unsigned int dflt)
{
	const char *s = get(var);
	char d[32];
	long long v;

	if (!s)
		return 0;
	if (hsaqm_parse_int(s, 10, 1, HSAQM_TOOL_LAUNCH_MAX, &v) == 0)
		return (uint32_t)v;
	snprintf(d, sizeof(d), "%u", dflt);
	refuse(cfg, var, s, "an integer from 1 to 65536", d);
	return 0;
}

int hsaqm_tool_parse_spatial(const char *text, enum hsaqm_spatial *mode, uint32_t *reserve)
{
	static const struct {
		const char *name;
		enum hsaqm_spatial mode;
	} modes[] = { { "auto", HSAQM_SPATIAL_AUTO }, { "static", HSAQM_SPATIAL_STATIC },
		      { "dynamic", HSAQM_SPATIAL_DYNAMIC } };
	const char *colon;
	unsigned long long v = HSAQM_TOOL_SPATIAL_RESERVE_DEFAULT;

	if (!text || !mode || !reserve)
		return -EINVAL;
	if (!strcasecmp(text, "off")) {
		*mode = HSAQM_SPATIAL_OFF;
		*reserve = 0;
		return 0;
	}
	colon = strchr(text, ':');
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		size_t n = strlen(modes[i].name);

		if (strncasecmp(text, modes[i].name, n) || (text[n] && text[n] != ':'))
			continue;
		if (colon && hsaqm_parse_uint(colon + 1, 10, 1, 999, &v))
			return -EINVAL;
		*mode = modes[i].mode;
		*reserve = (uint32_t)v;
		return 0;
	}
	return -EINVAL;
}

/* The GPU profile's path: HSAQM_GPU_PROFILE, else the per-user default (which may not exist). */
static void gpu_profile_path(struct hsaqm_tool_config *cfg, const char *(*get)(const char *name))
{
	const char *s = get("HSAQM_GPU_PROFILE"), *base;
	int n;

	if (s && *s) {
		if (strlen(s) < sizeof(cfg->gpu_profile)) {
			strcpy(cfg->gpu_profile, s);
			cfg->gpu_profile_asked = true;
		} else {
			refuse(cfg, "HSAQM_GPU_PROFILE", "(too long)", "a path shorter than 4096",
			       "no GPU profile");
		}
		return;
	}
	base = get("XDG_CONFIG_HOME");
	if (base && *base)
		n = snprintf(cfg->gpu_profile, sizeof(cfg->gpu_profile), "%s/hsaqm/gpu-profile",
			     base);
	else if ((base = get("HOME")) && *base)
		n = snprintf(cfg->gpu_profile, sizeof(cfg->gpu_profile),
			     "%s/.config/hsaqm/gpu-profile", base);
	else
		n = -1;
	if (n < 0 || (size_t)n >= sizeof(cfg->gpu_profile))
		cfg->gpu_profile[0] = '\0';
}

/* A switch: 1/yes/true/on, 0/no/false/off (any case); 0 and *on, or -EINVAL. */
static int parse_switch(const char *s, bool *on)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*on = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * HSAQM_RECORD and HSAQM_RECORD_MAX_MB (docs/replay.md, "Recording"). A bad value of either
 * turns recording off (a recording the person did not ask for, or of a size they did not
 * choose, is worse than none), said once. Recording is pass-through unless a level is asked
 * for: it then does not change the timing it records.
 */
static void record_read(struct hsaqm_tool_config *cfg, const char *(*get)(const char *name))
{
	const char *s = get("HSAQM_RECORD"), *m = get("HSAQM_RECORD_MAX_MB");
	bool ok = true;
	long long v;

	cfg->record[0] = '\0';
	cfg->record_max_mb = HSAQM_TOOL_RECORD_MAX_MB_DEFAULT;
	if (m) {
		if (hsaqm_parse_int(m, 10, 1, HSAQM_TOOL_RECORD_MAX_MB_MAX, &v) == 0) {
			cfg->record_max_mb = (uint32_t)v;
		} else {
			refuse(cfg, "HSAQM_RECORD_MAX_MB", m, "an integer from 1 to 1048576 (MB)",
			       s && *s ? "no recording" : "256");
			ok = false;
		}
	}
	if (!s)
		return;
	if (!*s || strlen(s) >= sizeof(cfg->record)) {
		refuse(cfg, "HSAQM_RECORD", *s ? "(too long)" : "",
		       "a file path shorter than 4096", "no recording");
		return;
	}
	if (!ok)
		return;
	strcpy(cfg->record, s);
	if (!cfg->level_asked)
		cfg->level = HSAQM_LEVEL_NONE;
}

void hsaqm_tool_config_read(struct hsaqm_tool_config *cfg, const char *(*get)(const char *name))
{
	const char *s;
	long long v;

	memset(cfg, 0, sizeof(*cfg));
	cfg->priority = HSAQM_TOOL_PRIORITY_NORMAL;
	cfg->priority_step = HSAQM_TOOL_PRIORITY_STEP_DEFAULT;
	cfg->level = HSAQM_TOOL_LEVEL_DEFAULT;
	cfg->policy.kind = HSAQM_POLICY_HPF;

	s = get("HSAQM_TOOL_DISABLE");
	if (s && *s && parse_switch(s, &cfg->disabled))
		refuse(cfg, "HSAQM_TOOL_DISABLE", s, "1, yes, true or on to disable; 0, no, false or off",
		       "not disabled");

	s = get("HSAQM_PRIORITY");
	if (s && hsaqm_tool_parse_priority(s, &cfg->priority))
		refuse(cfg, "HSAQM_PRIORITY", s,
		       "idle, low, offline, normal, high, online, realtime or -100..100", "normal (0)");

	s = get("HSAQM_PRIORITY_STEP");
	if (s) {
		if (hsaqm_parse_int(s, 10, 0, HSAQM_PRIORITY_MAX, &v) == 0)
			cfg->priority_step = (int)v;
		else
			refuse(cfg, "HSAQM_PRIORITY_STEP", s, "an integer from 0 to 100", "10");
	}

	s = get("HSAQM_LEVEL");
	cfg->level_asked = s != NULL;
	if (s && hsaqm_tool_parse_level(s, &cfg->level))
		refuse(cfg, "HSAQM_LEVEL", s, "none, lv1, lv2, lv3 or 0-3", "lv2");

	cfg->lv1_threshold = read_launch(cfg, get, "HSAQM_LV1_THRESHOLD",
					 HSAQM_LV1_THRESHOLD_DEFAULT);
	cfg->lv1_batch = read_launch(cfg, get, "HSAQM_LV1_BATCH", HSAQM_LV1_BATCH_DEFAULT);
	cfg->lv2_interval = read_launch(cfg, get, "HSAQM_LV2_INTERVAL", HSAQM_LV2_INTERVAL_DEFAULT);
	/* lib refuses a batch above the threshold: say so here, once, and drop the batch. */
	if (cfg->lv1_batch) {
		uint32_t thr = cfg->lv1_threshold ? cfg->lv1_threshold : HSAQM_LV1_THRESHOLD_DEFAULT;

		if (cfg->lv1_batch > thr) {
			char val[32];

			snprintf(val, sizeof(val), "%u", cfg->lv1_batch);
			refuse(cfg, "HSAQM_LV1_BATCH", val, "at most HSAQM_LV1_THRESHOLD",
			       "lib's default batch");
			cfg->lv1_batch = 0;
		}
	}

	/* One syntax with hsaqmd.conf and hsaqmctl (hsaqm-common/policy_text.h). */
	s = get("HSAQM_POLICY");
	if (s) {
		struct hsaqm_policy_config p;
		bool old;

		if (hsaqm_policy_parse(s, &p, &old, NULL, 0) == 0 && !old)
			cfg->policy = p;
		else
			refuse(cfg, "HSAQM_POLICY", s,
			       "hpf, hpf PERIOD_US:SLICE_US, util, util PERIOD_US or none", "hpf");
	}

	/* The floor's own variable, from before HSAQM_POLICY took it: still read, said once. */
	s = get("HSAQM_FLOOR");
	if (s) {
		uint32_t period, slice;

		if (cfg->policy.floor_period_us) {
			refuse(cfg, "HSAQM_FLOOR", s, "nothing: HSAQM_POLICY has a floor already",
			       "HSAQM_POLICY's");
		} else if (hsaqm_policy_parse_floor(s, &period, &slice) == 0) {
			cfg->policy.floor_period_us = period;
			cfg->policy.floor_slice_us = slice;
			hsaqm_log_notice(NULL, "HSAQM_FLOOR is deprecated: write HSAQM_POLICY=\"hpf "
					 "%u:%u\" (taken as that)", period, slice);
		} else {
			refuse(cfg, "HSAQM_FLOOR", s, "PERIOD_US:SLICE_US with 0 < slice < period",
			       "no starvation floor");
		}
	}

	s = get("HSAQM_STATS_FILE");
	if (s && *s) {
		if (strlen(s) < sizeof(cfg->stats_file))
			strcpy(cfg->stats_file, s);
		else
			refuse(cfg, "HSAQM_STATS_FILE", "(too long)", "a path shorter than 4096",
			       "no stats file");
	}

	cfg->lv3_mech = HSAQM_KFD_PREF_AUTO;
	s = get("HSAQM_LV3_MECHANISM");
	if (s && *s) {
		enum hsaqm_kfd_mech_pref pref;

		if (hsaqm_kfd_mech_pref_parse(s, &pref) == 0)
			cfg->lv3_mech = pref;
		else
			refuse(cfg, "HSAQM_LV3_MECHANISM", s, "auto, dbg_trap, update_queue or none",
			       "auto");
	}
	gpu_profile_path(cfg, get);

	cfg->spatial = HSAQM_TOOL_SPATIAL_DEFAULT;
	cfg->spatial_reserve = HSAQM_TOOL_SPATIAL_RESERVE_DEFAULT;
	s = get("HSAQM_SPATIAL");
	if (s && *s && hsaqm_tool_parse_spatial(s, &cfg->spatial, &cfg->spatial_reserve)) {
		cfg->spatial = HSAQM_TOOL_SPATIAL_DEFAULT;
		cfg->spatial_reserve = HSAQM_TOOL_SPATIAL_RESERVE_DEFAULT;
		refuse(cfg, "HSAQM_SPATIAL", s,
		       "off, or auto, static or dynamic with an optional :PERMILLE (1..999)",
		       "off");
	}

	record_read(cfg, get);
}
