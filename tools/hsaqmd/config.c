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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon_internal.h"
#include "policy_internal.h"
#include "text_internal.h"

void hsaqmd_config_default(struct hsaqmd_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->socket_mode = 0666;
	cfg->socket_gid = -1;
	cfg->default_cap = HSAQM_PRIORITY_DEFAULT;
	cfg->root_cap = HSAQM_PRIORITY_MAX;
	cfg->policy.kind = HSAQM_POLICY_HPF;
	cfg->max_clients = HSAQMD_DEFAULT_MAX_CLIENTS;
}

int hsaqmd_config_cap(const struct hsaqmd_config *cfg, uint32_t uid)
{
	for (size_t i = 0; i < cfg->ncaps; i++)
		if (cfg->caps[i].uid == uid)
			return cfg->caps[i].cap;
	return uid == 0 ? cfg->root_cap : cfg->default_cap;
}

int hsaqmd_default_socket(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n;

	if (geteuid() == 0)
		n = snprintf(buf, size, "/run/hsaqm/hsaqmd.sock");
	else if (xdg && *xdg == '/')
		n = snprintf(buf, size, "%s/hsaqm/hsaqmd.sock", xdg);
	else
		n = snprintf(buf, size, "/tmp/hsaqm-%u/hsaqmd.sock", (unsigned int)geteuid());
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int seterr(char *err, size_t errlen, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int seterr(char *err, size_t errlen, int line, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (err && errlen) {
		n = snprintf(err, errlen, "line %d: ", line);
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
	int rc = hsaqm_parse_int(s, base, min, max, &v); /* the one rule: text_internal.h */

	if (!rc)
		*out = (long)v;
	return rc;
}

/* "hpf", "hpf PERIOD SLICE", "util", "util PERIOD", "none" (microseconds). */
static int parse_policy(char *v, struct hsaqm_policy_config *p)
{
	char *save = NULL, *kind = strtok_r(v, " \t", &save);
	char *a = strtok_r(NULL, " \t", &save), *b = strtok_r(NULL, " \t", &save);
	long x = 0, y = 0;

	if (!kind || strtok_r(NULL, " \t", &save))
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	if (!strcmp(kind, "hpf")) {
		p->kind = HSAQM_POLICY_HPF;
		if (a && (!b || parse_long(a, 10, 1, 100000000, &x) ||
			  parse_long(b, 10, 1, 100000000, &y)))
			return -EINVAL;
		p->floor_period_us = (uint32_t)x;
		p->floor_slice_us = (uint32_t)y;
	} else if (!strcmp(kind, "util")) {
		p->kind = HSAQM_POLICY_UTIL;
		if (b || (a && parse_long(a, 10, 1, 100000000, &x)))
			return -EINVAL;
		p->util_period_us = (uint32_t)x;
	} else if (!strcmp(kind, "none")) {
		p->kind = HSAQM_POLICY_NONE;
		if (a)
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	return hsaqm_policy_check(p);
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

static int apply_line(struct hsaqmd_config *cfg, char *key, char *val, int ln, char *err,
		      size_t errlen)
{
	long v;

	if (!strcmp(key, "socket")) {
		if (*val != '/' || strlen(val) >= sizeof(cfg->socket_path))
			return seterr(err, errlen, ln, "socket must be an absolute path under %zu bytes",
				      sizeof(cfg->socket_path));
		strcpy(cfg->socket_path, val);
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
	} else if (!strcmp(key, "max_clients")) {
		if (parse_long(val, 10, 1, 65536, &v))
			return seterr(err, errlen, ln, "max_clients must be 1..65536");
		cfg->max_clients = (unsigned int)v;
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

		if (parse_policy(val, &p))
			return seterr(err, errlen, ln,
				      "a policy is \"hpf [FLOOR_PERIOD_US FLOOR_SLICE_US]\", "
				      "\"util [PERIOD_US]\" or \"none\"");
		if (!strcmp(which, "default")) {
			cfg->policy = p;
			return 0;
		}
		if (parse_long(which, 0, 0, 0xfffffffeL, &v))
			return seterr(err, errlen, ln, "policy.GPU_ID: \"%s\" is not a gpu_id", which);
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
		return seterr(err, errlen, ln, "unknown key \"%s\"", key);
	}
	return 0;
}

int hsaqmd_config_parse(struct hsaqmd_config *cfg, const char *text, char *err, size_t errlen)
{
	char *copy, *line, *save = NULL;
	int ln = 0, rc = 0;

	if (!cfg || !text)
		return -EINVAL;
	copy = strdup(text);
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
	rc = hsaqmd_config_parse(cfg, text, err, errlen);
	free(text);
	return rc;
}
