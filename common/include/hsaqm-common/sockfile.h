/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-common/sockfile.h - the one rule for a Unix socket's path before bind(): what may be
 * removed there. hsaqm-simd's device socket (sim/shared.c) and hsaqmd's sockets (its own and
 * the metrics endpoint's, tools/hsaqmd/) follow it; both link lib's hsaqm_core, so it lives
 * here rather than in either program's folder.
 */
#ifndef HSAQM_COMMON_SOCKFILE_H
#define HSAQM_COMMON_SOCKFILE_H

#include <sys/types.h>

/*
 * hsaqm_sockfile_clear() - make @path free for a listener's bind(). Nothing there: done. A
 * socket nobody answers on (its listener died: connect() says ECONNREFUSED) is unlinked.
 * Anything else stays where it is: a listening socket is somebody's server, and a file, a
 * directory or a symbolic link is somebody's data.
 * @type: the socket type the caller will listen with (SOCK_SEQPACKET, SOCK_STREAM): the
 * probe connects with it, so a live listener of another type (EPROTOTYPE) counts as live.
 * @found: when not NULL and the result is -EEXIST, receives the st_mode of what is there.
 *
 * Races: between the probe and the unlink, the path is checked again (the same inode, still a
 * socket), so a socket replaced meanwhile is left alone. Two programs starting on one path
 * at the same moment can still lose one: the probe of the second can fall between the
 * first's bind() and its listen() (a bound socket that does not listen yet also refuses),
 * and unlink the first's fresh socket. The paths this serves belong to one instance each
 * (a user's daemon, a device process): what the rule guarantees is that a listening socket
 * and a file are never removed.
 *
 * Return: 0 (nothing at @path now); -EEXIST (not a socket: nothing removed); -EADDRINUSE
 * (somebody listens, or the socket changed under the probe); -EINVAL (NULL or "" @path);
 * -ENAMETOOLONG; another negative errno from lstat, socket, connect (EACCES: whether
 * somebody listens cannot be told, so nothing is removed) or unlink.
 */
int hsaqm_sockfile_clear(const char *path, int type, mode_t *found);

#endif /* HSAQM_COMMON_SOCKFILE_H */
