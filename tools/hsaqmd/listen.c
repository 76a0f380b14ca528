/* SPDX-License-Identifier: MIT */
/*
 * listen.c - hsaqmd's listening socket: its directory (made, then checked), what is at its
 * path (a stale socket replaced, anything else refused), its mode and group.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon_log_internal.h"
#include "listen_internal.h"
#include "hsaqm-dclient/path.h"
#include "registry_internal.h"
#include "hsaqm-common/sockfile.h"

/* The socket's directory: made when missing (one level), then checked like ssh-agent's. */
static int socket_dir(const struct hsaqmd *d, const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)], why[PATH_MAX + 96];
	char *slash;
	int rc;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		/* Others reach the socket through it (the socket's mode says who may connect);
		 * nobody but us may write in it. */
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			rc = -errno;
			hsaqmd_log_err("cannot create %s: %s", dir, strerror(-rc));
			return rc;
		}
	}
	rc = hsaqm_sock_dir_check(path, geteuid(), why, sizeof(why));
	if (rc == -EPERM)
		hsaqmd_log_err("refusing the socket %s%s%s: %s (another user could replace "
			       "the socket with their own daemon)", path,
			       d->cfg.socket_from[0] ? ", from " : " (the default)",
			       d->cfg.socket_from, why);
	else if (rc < 0)
		hsaqmd_log_err("the directory of %s: %s", path, strerror(-rc));
	return rc;
}

/*
 * A file or a directory at the socket's path is somebody's data: refused, never removed, with
 * advice naming where the path came from (that is where it must change).
 */
static int refuse_not_a_socket(const struct hsaqmd *d, const char *path, mode_t mode)
{
	const char *from = d->cfg.socket_from;
	char advice[400];

	if (!strcmp(from, "--socket"))
		snprintf(advice, sizeof(advice), "give --socket the path of the socket itself");
	else if (from[0])
		snprintf(advice, sizeof(advice), "the path is %s: make it the path of the socket "
			 "itself", from);
	else
		snprintf(advice, sizeof(advice), "the path is the default: move that away, or "
			 "give --socket or socket = in the configuration another path");
	hsaqmd_log_err("%s is %s, not a socket: refusing to replace it (%s)", path,
		       S_ISDIR(mode) ? "a directory" : "a file", advice);
	return -EEXIST;
}

/* Checked before the directory, so a file or directory named by mistake is said as such. */
static int socket_not_a_socket(const struct hsaqmd *d, const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0 || S_ISSOCK(st.st_mode))
		return 0;
	return refuse_not_a_socket(d, path, st.st_mode);
}

/*
 * A socket nobody answers on (a daemon that died) is removed, by lib's one rule
 * (hsaqm-common/sockfile.h); a listening one is another daemon's, and this one refuses to start.
 */
static int socket_clear(const struct hsaqmd *d, const char *path)
{
	mode_t mode = 0;
	int rc = hsaqm_sockfile_clear(path, SOCK_SEQPACKET, &mode);

	switch (rc) {
	case 0:
		return 0;
	case -EEXIST: /* put there since socket_not_a_socket() looked */
		return refuse_not_a_socket(d, path, mode);
	case -EADDRINUSE:
		hsaqmd_log_err("another daemon listens on %s", path);
		return rc;
	default:
		hsaqmd_log_err("cannot replace the stale socket %s: %s", path,
			       strerror(-rc));
		return rc;
	}
}

int hsaqmd_listen_socket(struct hsaqmd *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, rc;
	mode_t old;

	if (strlen(d->path) >= sizeof(sa.sun_path)) {
		hsaqmd_log_err("the socket path %s is longer than %zu bytes", d->path,
			       sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, d->path);
	/* What is at the path first: a file or directory named by mistake is said as such. */
	if ((rc = socket_not_a_socket(d, d->path)) < 0 || (rc = socket_dir(d, d->path)) < 0 ||
	    (rc = socket_clear(d, d->path)) < 0)
		return rc;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		hsaqmd_log_err("socket: %s", strerror(-rc));
		return rc;
	}
	/* Bound with no permission at all, then given its mode: never briefly too open. */
	old = umask(0777);
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0 || chmod(d->path, d->cfg.socket_mode) < 0 ||
	    (d->cfg.socket_gid >= 0 && chown(d->path, (uid_t)-1, (gid_t)d->cfg.socket_gid) < 0) ||
	    listen(fd, 128) < 0) {
		rc = -errno;
		hsaqmd_log_err("cannot listen on %s: %s", d->path, strerror(errno));
		close(fd);
		return rc;
	}
	d->lfd = fd;
	return 0;
}
