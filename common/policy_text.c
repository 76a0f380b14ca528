/* SPDX-License-Identifier: MIT */
/* A scheduling policy as text: its one syntax and parser (hsaqm-common/policy_text.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hsaqm-common/policy_text.h"

static int fail(char *why, size_t len, const char *msg)
{
	if (why && len)
		snprintf(why, len, "%s", msg);
	return -EINVAL;
}

/* A whole decimal number of microseconds, 1..HSAQM_POLICY_TEXT_MAX_US. */
static int parse_us(const char *s, size_t n, uint32_t *out)
{
	unsigned long v = 0;

	if (!n || n > 9)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v < 1 || v > HSAQM_POLICY_TEXT_MAX_US)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int hsaqm_policy_parse_floor(const char *text, uint32_t *period_us, uint32_t *slice_us)
{
	const char *colon;
	uint32_t p, s;

	if (!text || !period_us || !slice_us)
		return -EINVAL;
	colon = strchr(text, ':');
	if (!colon || parse_us(text, (size_t)(colon - text), &p) ||
	    parse_us(colon + 1, strlen(colon + 1), &s) || s >= p)
		return -EINVAL;
	*period_us = p;
	*slice_us = s;
	return 0;
}

/* The next blank-separated word of @s at *@pos: its start and length (0 at the end). */
static const char *word(const char *s, size_t *pos, size_t *n)
{
	while (s[*pos] == ' ' || s[*pos] == '\t')
		(*pos)++;
	const char *w = s + *pos;

	while (s[*pos] && s[*pos] != ' ' && s[*pos] != '\t')
		(*pos)++;
	*n = (size_t)(s + *pos - w);
	return w;
}

static bool is(const char *w, size_t n, const char *name)
{
	return strlen(name) == n && !strncasecmp(w, name, n);
}

int hsaqm_policy_parse(const char *text, struct hsaqm_policy_config *cfg, bool *old_form,
		       char *why, size_t len)
{
	const char *w[4];
	size_t n[4], pos = 0, nw = 0;

	if (!text || !cfg)
		return fail(why, len, "no policy given");
	if (old_form)
		*old_form = false;
	memset(cfg, 0, sizeof(*cfg));
	for (;;) {
		size_t wl;
		const char *ww = word(text, &pos, &wl);

		if (!wl)
			break;
		if (nw == 4)
			return fail(why, len, "too many words");
		w[nw] = ww;
		n[nw++] = wl;
	}
	if (!nw)
		return fail(why, len, "empty: hpf, util or none");
	if (is(w[0], n[0], "none")) {
		cfg->kind = HSAQM_POLICY_NONE;
		return nw == 1 ? 0 : fail(why, len, "none takes nothing after it");
	}
	if (is(w[0], n[0], "util")) {
		cfg->kind = HSAQM_POLICY_UTIL;
		if (nw > 2)
			return fail(why, len, "util takes one period at most: util PERIOD_US");
		if (nw == 2 && parse_us(w[1], n[1], &cfg->util_period_us))
			return fail(why, len, "util's period is microseconds, 1..100000000");
		return 0;
	}
	if (!is(w[0], n[0], "hpf"))
		return fail(why, len, "the policy is hpf, util or none");
	cfg->kind = HSAQM_POLICY_HPF;
	if (nw == 1)
		return 0;
	if (nw == 2) {
		char floor[24];

		if (n[1] >= sizeof(floor))
			return fail(why, len, "hpf's floor is PERIOD_US:SLICE_US");
		memcpy(floor, w[1], n[1]);
		floor[n[1]] = '\0';
		if (hsaqm_policy_parse_floor(floor, &cfg->floor_period_us, &cfg->floor_slice_us))
			return fail(why, len, "hpf's floor is PERIOD_US:SLICE_US, microseconds, "
				    "0 < slice < period <= 100000000");
		return 0;
	}
	/* The form of before the syntaxes were one: "hpf PERIOD SLICE". */
	if (nw == 3 && !parse_us(w[1], n[1], &cfg->floor_period_us) &&
	    !parse_us(w[2], n[2], &cfg->floor_slice_us) &&
	    cfg->floor_slice_us < cfg->floor_period_us) {
		if (old_form)
			*old_form = true;
		return 0;
	}
	memset(cfg, 0, sizeof(*cfg));
	return fail(why, len, "hpf's floor is PERIOD_US:SLICE_US, microseconds, "
		    "0 < slice < period <= 100000000");
}

int hsaqm_policy_format(const struct hsaqm_policy_config *cfg, char *buf, size_t size)
{
	if (!cfg || !buf)
		return -EINVAL;
	switch (cfg->kind) {
	case HSAQM_POLICY_HPF:
		if (cfg->floor_period_us)
			return snprintf(buf, size, "hpf %u:%u", cfg->floor_period_us,
					cfg->floor_slice_us);
		return snprintf(buf, size, "hpf");
	case HSAQM_POLICY_UTIL:
		if (cfg->util_period_us)
			return snprintf(buf, size, "util %u", cfg->util_period_us);
		return snprintf(buf, size, "util");
	default:
		return snprintf(buf, size, "none");
	}
}
