/* SPDX-License-Identifier: MIT */
/*
 * sockfile.c - whether what is at a Unix socket's path may be removed (hsaqm-common/sockfile.h).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "hsaqm-common/sockfile.h"

/* Whether somebody answers on @sa. Return: 0 nobody (ECONNREFUSED); -EADDRINUSE; -ENOENT (gone
 * meanwhile); another negative errno (cannot tell). */
static int probe(const struct sockaddr_un *sa, int type)
{
	int fd = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int rc;

	if (fd < 0)
		return -errno;
	rc = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0 ? -EADDRINUSE : -errno;
	close(fd);
	switch (rc) {
	case -ECONNREFUSED:
		return 0;
	case -EAGAIN:     /* a listener whose backlog is full: alive, and busy */
	case -EINPROGRESS:
	case -EPROTOTYPE: /* a live socket of another type */
		return -EADDRINUSE;
	default:
		return rc;
	}
}

int hsaqm_sockfile_clear(const char *path, int type, mode_t *found)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st, again;
	int rc;

	if (!path || !*path)
		return -EINVAL;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		if (found)
			*found = st.st_mode;
		return -EEXIST;
	}
	rc = probe(&sa, type);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0)
		return rc;
	/* The socket probed, not one somebody put there since. */
	if (lstat(path, &again) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (again.st_dev != st.st_dev || again.st_ino != st.st_ino)
		return -EADDRINUSE;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}
