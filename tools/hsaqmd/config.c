/* SPDX-License-Identifier: MIT */
/*
 * hsaqmd's configuration file (docs/daemon.md "Configuration"): `key = value` lines, `#`
 * comments. A bad line stops the daemon at start with the line's number: a typo in a cap
 * must not silently give a user more than intended.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon_internal.h"
#include "hsaqm-common/policy.h"
#include "hsaqm-common/policy_text.h"
#include "hsaqm-common/rt.h"
#include "hsaqm-common/text.h"

void hsaqmd_config_default(struct hsaqmd_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->socket_mode = 0666;
	cfg->socket_gid = -1;
	cfg->default_cap = HSAQM_PRIORITY_DEFAULT;
	cfg->root_cap = HSAQM_PRIORITY_MAX;
	cfg->policy.kind = HSAQM_POLICY_HPF;
	cfg->max_clients = HSAQMD_DEFAULT_MAX_CLIENTS;
	cfg->max_clients_per_uid = HSAQMD_DEFAULT_MAX_CLIENTS_PER_UID;
	cfg->reserved_clients = HSAQMD_DEFAULT_RESERVED_CLIENTS;
	cfg->hello_timeout_ms = HSAQMD_DEFAULT_HELLO_TIMEOUT_MS;
	cfg->max_queues_per_uid = HSAQMD_DEFAULT_MAX_QUEUES_PER_UID;
	cfg->max_devices_per_uid = HSAQMD_DEFAULT_MAX_DEVICES_PER_UID;
	cfg->hold_progress_ms = HSAQMD_DEFAULT_HOLD_PROGRESS_MS;
	cfg->gpu_ids_mode = HSAQMD_GPU_IDS_AUTO;
	snprintf(cfg->topology, sizeof(cfg->topology), "%s", HSAQMD_DEFAULT_TOPOLOGY);
	cfg->realtime_mode = HSAQM_RT_AUTO;
	cfg->realtime_prio = HSAQM_RT_PRIO_DAEMON;
}

int hsaqmd_config_cap(const struct hsaqmd_config *cfg, uint32_t uid)
{
	for (size_t i = 0; i < cfg->ncaps; i++)
		if (cfg->caps[i].uid == uid)
			return cfg->caps[i].cap;
	return uid == 0 ? cfg->root_cap : cfg->default_cap;
}

static int seterr(char *err, size_t errlen, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int seterr(char *err, size_t errlen, int line, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (err && errlen) {
		n = snprintf(err, errlen, "%d: ", line);
		if (n < 0 || (size_t)n >= errlen)
			n = 0;
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int parse_long(const char *s, int base, long min, long max, long *out)
{
	long long v;
	int rc = hsaqm_parse_int(s, base, min, max, &v); /* the one rule: hsaqm-common/text.h */

	if (!rc)
		*out = (long)v;
	return rc;
}


static int parse_uid(const char *s, uint32_t *uid)
{
	long v;

	if (!parse_long(s, 10, 0, 0x7fffffffL, &v)) {
		*uid = (uint32_t)v;
		return 0;
	}
	struct passwd *pw = getpwnam(s);

	if (!pw)
		return -ENOENT;
	*uid = (uint32_t)pw->pw_uid;
	return 0;
}

/* "auto", "any", or gpu_ids (decimal or 0x hex) separated by commas or blanks. */
static int parse_gpu_ids(struct hsaqmd_config *cfg, char *val)
{
	char *save = NULL;

	if (!strcmp(val, "auto") || !strcmp(val, "any")) {
		cfg->gpu_ids_mode = val[1] == 'u' ? HSAQMD_GPU_IDS_AUTO : HSAQMD_GPU_IDS_ANY;
		return 0;
	}
	cfg->ngpu_ids = 0;
	for (char *t = strtok_r(val, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
		uint32_t id;

		if (hsaqm_parse_gpu_id(t, &id) || !id || cfg->ngpu_ids == HSAQMD_MAX_GPU_IDS)
			return -EINVAL;
		cfg->gpu_ids[cfg->ngpu_ids++] = id;
	}
	if (!cfg->ngpu_ids)
		return -EINVAL;
	cfg->gpu_ids_mode = HSAQMD_GPU_IDS_LIST;
	return 0;
}

/* One unsigned key in [min, max]: the value, or -1 with the error set. */
static const struct {
	const char *key;
	long min, max;
	size_t off;
} uint_keys[] = {
	{ "max_clients", 1, 65536, offsetof(struct hsaqmd_config, max_clients) },
	{ "max_clients_per_uid", 1, 65536, offsetof(struct hsaqmd_config, max_clients_per_uid) },
	{ "reserved_clients", 0, 65535, offsetof(struct hsaqmd_config, reserved_clients) },
	{ "hello_timeout_ms", 10, 60000, offsetof(struct hsaqmd_config, hello_timeout_ms) },
	{ "max_queues_per_uid", 1, 1 << 20, offsetof(struct hsaqmd_config, max_queues_per_uid) },
	{ "max_devices_per_uid", 1, 1024, offsetof(struct hsaqmd_config, max_devices_per_uid) },
	{ "hold_progress_ms", 0, 3600000, offsetof(struct hsaqmd_config, hold_progress_ms) },
	{ "spin_us", 0, 10000, offsetof(struct hsaqmd_config, spin_us) },
};

static int apply_line(struct hsaqmd_config *cfg, char *key, char *val, int ln, char *err,
		      size_t errlen)
{
	long v;

	if (!strcmp(key, "socket")) {
		if (*val != '/' || strlen(val) >= sizeof(cfg->socket_path))
			return seterr(err, errlen, ln, "socket must be an absolute path under %zu bytes",
				      sizeof(cfg->socket_path));
		strcpy(cfg->socket_path, val);
		cfg->socket_line = ln;
	} else if (!strcmp(key, "socket_mode")) {
		if (parse_long(val, 8, 0, 0777, &v))
			return seterr(err, errlen, ln, "socket_mode must be octal, 0..0777");
		cfg->socket_mode = (unsigned int)v;
	} else if (!strcmp(key, "socket_group")) {
		if (parse_long(val, 10, 0, 0x7fffffffL, &v)) {
			struct group *gr = getgrnam(val);

			if (!gr)
				return seterr(err, errlen, ln, "no group \"%s\"", val);
			v = (long)gr->gr_gid;
		}
		cfg->socket_gid = v;
	} else if (!strcmp(key, "gpu_ids")) {
		if (parse_gpu_ids(cfg, val))
			return seterr(err, errlen, ln, "gpu_ids is auto, any, or up to %d gpu_ids "
				      "(decimal or 0x hex) separated by commas", HSAQMD_MAX_GPU_IDS);
	} else if (!strcmp(key, "topology")) {
		if (*val != '/' || strlen(val) >= sizeof(cfg->topology))
			return seterr(err, errlen, ln, "topology must be an absolute path under %zu "
				      "bytes (the KFD's: %s)", sizeof(cfg->topology),
				      HSAQMD_DEFAULT_TOPOLOGY);
		strcpy(cfg->topology, val);
	} else if (!strcmp(key, "realtime")) {
		enum hsaqm_rt_mode mode;

		if (hsaqm_rt_parse(val, &mode, &cfg->realtime_prio))
			return seterr(err, errlen, ln, "realtime is auto, on, off or a priority 1..99");
		cfg->realtime_mode = (int)mode;
	} else if (!strcmp(key, "realtime_priority")) {
		if (parse_long(val, 10, 1, 99, &v))
			return seterr(err, errlen, ln, "realtime_priority must be 1..99");
		cfg->realtime_prio = (int)v;
	} else if (!strcmp(key, "metrics_listen")) {
		if (strlen(val) >= sizeof(cfg->metrics_listen))
			return seterr(err, errlen, ln, "metrics_listen is too long");
		strcpy(cfg->metrics_listen, !strcmp(val, "off") ? "" : val);
	} else if (!strcmp(key, "busy_poll")) {
		if (!strcmp(val, "yes"))
			cfg->busy_poll = true;
		else if (!strcmp(val, "no"))
			cfg->busy_poll = false;
		else
			return seterr(err, errlen, ln, "busy_poll must be yes or no");
	} else if (!strncmp(key, "cap.", 4)) {
		const char *who = key + 4;
		uint32_t uid;

		if (parse_long(val, 10, HSAQM_PRIORITY_MIN, HSAQM_PRIORITY_MAX, &v))
			return seterr(err, errlen, ln, "a cap is a priority, %d..%d",
				      HSAQM_PRIORITY_MIN, HSAQM_PRIORITY_MAX);
		if (!strcmp(who, "default")) {
			cfg->default_cap = (int)v;
			return 0;
		}
		if (parse_uid(who, &uid))
			return seterr(err, errlen, ln, "no user \"%s\"", who);
		if (uid == 0)
			cfg->root_cap = (int)v;
		for (size_t i = 0; i < cfg->ncaps; i++) {
			if (cfg->caps[i].uid == uid) {
				cfg->caps[i].cap = (int)v;
				return 0;
			}
		}
		if (cfg->ncaps == HSAQMD_MAX_CAPS)
			return seterr(err, errlen, ln, "more than %d cap lines", HSAQMD_MAX_CAPS);
		cfg->caps[cfg->ncaps].uid = uid;
		cfg->caps[cfg->ncaps++].cap = (int)v;
	} else if (!strncmp(key, "policy.", 7)) {
		struct hsaqm_policy_config p;
		const char *which = key + 7;
		char why[128];
		bool old;

		/* One syntax with HSAQM_POLICY and hsaqmctl (hsaqm-common/policy_text.h). */
		if (hsaqm_policy_parse(val, &p, &old, why, sizeof(why)))
			return seterr(err, errlen, ln,
				      "\"%s\": %s (a policy is hpf, hpf PERIOD_US:SLICE_US, util, "
				      "util PERIOD_US or none)", val, why);
		if (old && !cfg->deprecated_line)
			cfg->deprecated_line = ln;
		if (!strcmp(which, "default")) {
			cfg->policy = p;
			return 0;
		}
		uint32_t id;

		if (hsaqm_parse_gpu_id(which, &id))
			return seterr(err, errlen, ln, "policy.GPU_ID: \"%s\" is not a gpu_id "
				      "(decimal, or hex with 0x)", which);
		v = id;
		for (size_t i = 0; i < cfg->npolicies; i++) {
			if (cfg->policies[i].gpu_id == (uint32_t)v) {
				cfg->policies[i].cfg = p;
				return 0;
			}
		}
		if (cfg->npolicies == HSAQMD_MAX_POLICIES)
			return seterr(err, errlen, ln, "more than %d policy lines",
				      HSAQMD_MAX_POLICIES);
		cfg->policies[cfg->npolicies].gpu_id = (uint32_t)v;
		cfg->policies[cfg->npolicies++].cfg = p;
	} else {
		for (size_t i = 0; i < sizeof(uint_keys) / sizeof(uint_keys[0]); i++) {
			if (strcmp(key, uint_keys[i].key))
				continue;
			if (parse_long(val, 10, uint_keys[i].min, uint_keys[i].max, &v))
				return seterr(err, errlen, ln, "%s must be %ld..%ld", key,
					      uint_keys[i].min, uint_keys[i].max);
			*(unsigned int *)((char *)cfg + uint_keys[i].off) = (unsigned int)v;
			return 0;
		}
		return seterr(err, errlen, ln, "unknown key \"%s\"", key);
	}
	return 0;
}

int hsaqmd_config_parse(struct hsaqmd_config *cfg, const char *text, size_t len, char *err,
			size_t errlen)
{
	char *copy, *line, *save = NULL;
	const char *nul;
	int ln = 0, rc = 0;

	if (!cfg || !text)
		return -EINVAL;
	/* A NUL would end the text early: every line after it dropped, silently (a cap line
	 * among them, and a user gets more than the administrator meant). */
	nul = memchr(text, '\0', len);
	if (nul) {
		int at = 1;

		for (const char *p = text; p < nul; p++)
			at += *p == '\n';
		return seterr(err, errlen, at, "a NUL byte (this is not a text file)");
	}
	copy = strndup(text, len);
	if (!copy)
		return -ENOMEM;
	/* strtok_r would merge empty lines and shift the numbers: split by hand. */
	line = copy;
	while (line && !rc) {
		char *nl = strchr(line, '\n'), *hash, *eq;

		(void)save;
		if (nl)
			*nl = '\0';
		ln++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		line = hsaqm_trim(line);
		if (*line) {
			eq = strchr(line, '=');
			if (!eq) {
				rc = seterr(err, errlen, ln, "expected key = value");
			} else {
				*eq = '\0';
				rc = apply_line(cfg, hsaqm_trim(line), hsaqm_trim(eq + 1), ln, err, errlen);
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	free(copy);
	if (!rc && cfg->reserved_clients >= cfg->max_clients)
		rc = seterr(err, errlen, ln, "reserved_clients (%u) must be below max_clients (%u)",
			    cfg->reserved_clients, cfg->max_clients);
	return rc;
}

int hsaqmd_config_load(struct hsaqmd_config *cfg, const char *path, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0, cap = 0;
	int fd, rc;

	if (!cfg || !path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *n;

			if (cap > (1u << 20)) { /* a configuration is a few lines */
				free(text);
				close(fd);
				return -EFBIG;
			}
			cap = cap ? cap * 2 : 8192;
			n = realloc(text, cap);
			if (!n) {
				free(text);
				close(fd);
				return -ENOMEM;
			}
			text = n;
		}
		ssize_t r = read(fd, text + len, 4096);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			free(text);
			close(fd);
			return rc;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	text[len] = '\0';
	rc = hsaqmd_config_parse(cfg, text, len, err, errlen);
	free(text);
	if (rc == -EINVAL && err && errlen) {
		char line[256];

		snprintf(line, sizeof(line), "%s", err);
		snprintf(err, errlen, "%s:%s", path, line);
	}
	return rc;
}
