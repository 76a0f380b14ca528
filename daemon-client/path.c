/* SPDX-License-Identifier: MIT */
/* Where hsaqmd's socket is and whether its directories can be trusted (hsaqm-dclient/path.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "hsaqm-common/log.h"
#include "hsaqm-dclient/path.h"

static int put(char *buf, size_t size, int n)
{
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int hsaqm_sock_default_daemon(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	if (geteuid() == 0)
		return put(buf, size, snprintf(buf, size, "%s", HSAQM_SOCK_NODE));
	if (xdg && *xdg == '/')
		return put(buf, size, snprintf(buf, size, "%s/hsaqm/hsaqmd.sock", xdg));
	return put(buf, size, snprintf(buf, size, "/tmp/hsaqm-%u/hsaqmd.sock", (unsigned int)geteuid()));
}

/*
 * Why @env cannot name a daemon's socket, or NULL when it can: an absolute path short enough
 * for a socket address, at which there is a socket or nothing yet (a daemon that starts
 * later; the client then finds no daemon, quietly). Anything else there (a file, a
 * directory) is a typo, never a daemon.
 */
static const char *env_not_a_socket(const char *env)
{
	struct stat st;

	if (*env != '/')
		return "not an absolute path";
	if (strlen(env) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return "longer than a socket's path may be";
	if (stat(env, &st) < 0)
		return errno == ENOTDIR ? "a part of it is not a directory" : NULL;
	if (S_ISSOCK(st.st_mode))
		return NULL;
	return S_ISDIR(st.st_mode) ? "a directory, not a socket"
	       : S_ISREG(st.st_mode) ? "a file, not a socket" : "not a socket";
}

/* The user's own daemon first (where it would listen), then the node's. */
static int default_search(char *buf, size_t size)
{
	struct stat st;

	if (geteuid() != 0 && hsaqm_sock_default_daemon(buf, size) == 0 && stat(buf, &st) == 0 &&
	    S_ISSOCK(st.st_mode))
		return 0;
	return put(buf, size, snprintf(buf, size, "%s", HSAQM_SOCK_NODE));
}

int hsaqm_sock_find(char *buf, size_t size, bool *named)
{
	static int said;
	const char *env = getenv("HSAQM_DAEMON"), *why;
	int rc;

	*named = false;
	if (!env || !*env)
		return default_search(buf, size);
	if (!strcmp(env, "off") || !strcmp(env, "0") || !strcmp(env, "none"))
		return -ENOENT;
	why = env_not_a_socket(env);
	if (!why) {
		*named = true;
		return put(buf, size, snprintf(buf, size, "%s", env));
	}
	/* As every other variable: one line naming it and its value, and the default stands. */
	rc = default_search(buf, size);
	hsaqm_log_notice(&said, "HSAQM_DAEMON=\"%s\" is not valid (%s; a socket's absolute path, or "
			 "off, 0, none): using the default, %s", env, why,
			 rc ? HSAQM_SOCK_NODE : buf);
	return rc;
}

static int refuse(char *why, size_t len, const char *dir, const char *what)
{
	if (why && len)
		snprintf(why, len, "%s %s", dir, what);
	return -EPERM;
}

int hsaqm_sock_dir_check(const char *sock_path, uid_t owner, char *why, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX], *slash;
	bool own = true; /* the socket's own directory first, then its ancestors */

	if (why && len)
		why[0] = '\0';
	if (!sock_path || snprintf(dir, sizeof(dir), "%s", sock_path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (!realpath(dir, real))
		return -errno;
	for (;;) {
		struct stat st;
		char msg[96];

		if (lstat(real, &st) < 0)
			return -errno;
		if (!S_ISDIR(st.st_mode))
			return refuse(why, len, real, "is not a directory");
		/* Each refusal says its own reason: whose it is, or who else can write in it. */
		if (st.st_uid != 0 && (owner == (uid_t)-1 ? false : st.st_uid != owner)) {
			if (owner == 0)
				snprintf(msg, sizeof(msg), "is owned by uid %u, not by root",
					 (unsigned int)st.st_uid);
			else
				snprintf(msg, sizeof(msg), "is owned by uid %u, not by uid %u or root",
					 (unsigned int)st.st_uid, (unsigned int)owner);
			return refuse(why, len, real, msg);
		}
		if (st.st_mode & (S_IWGRP | S_IWOTH)) {
			/* A sticky directory of root's (/tmp): others cannot rename or remove what we
			 * keep in it. The socket's own directory must be ours alone. */
			if (own || !(st.st_mode & S_ISVTX) || st.st_uid != 0) {
				snprintf(msg, sizeof(msg), "is writable by %s (mode %04o)",
					 (st.st_mode & (S_IWGRP | S_IWOTH)) == (S_IWGRP | S_IWOTH)
						 ? "its group and others"
					 : st.st_mode & S_IWOTH ? "others" : "its group",
					 (unsigned int)(st.st_mode & 07777));
				return refuse(why, len, real, msg);
			}
		}
		if (!strcmp(real, "/"))
			return 0;
		slash = strrchr(real, '/');
		if (slash == real)
			real[1] = '\0';
		else
			*slash = '\0';
		own = false;
	}
}
