/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-dclient/path.h - where hsaqmd's socket is, and whether its directories can be trusted
 * (docs/daemon.md "Security model"). One answer for the daemon, hsaqmctl and every client, so
 * that they find the same socket, and one check, as ssh-agent and gpg-agent make: a socket in a
 * directory another user can write to (or owns) can be replaced by that user's own daemon,
 * which would then hold the victim's queues.
 */
#ifndef HSAQM_DCLIENT_PATH_H
#define HSAQM_DCLIENT_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The node's daemon (root's, the systemd unit's). */
#define HSAQM_SOCK_NODE "/run/hsaqm/hsaqmd.sock"

/*
 * hsaqm_sock_default_daemon() - the socket a daemon without --socket listens on:
 * /run/hsaqm/hsaqmd.sock as root, else $XDG_RUNTIME_DIR/hsaqm/hsaqmd.sock, else
 * /tmp/hsaqm-UID/hsaqmd.sock.
 * Return: 0; -ENAMETOOLONG.
 */
int hsaqm_sock_default_daemon(char *buf, size_t size);

/*
 * hsaqm_sock_find() - the socket a client or hsaqmctl connects to without an explicit path:
 * $HSAQM_DAEMON when set (*@named true), else the user's own daemon (where
 * hsaqm_sock_default_daemon() puts it for this user) when that socket exists, else the node's.
 * HSAQM_DAEMON must be an absolute path with a socket or nothing at it: anything else (a
 * relative path, a file, a directory) is said once (hsaqm_log_notice, naming the value, why
 * and the default used) and the default search stands.
 * Return: 0; -ENOENT for HSAQM_DAEMON=off (or 0, none); -ENAMETOOLONG.
 */
int hsaqm_sock_find(char *buf, size_t size, bool *named);

/*
 * hsaqm_sock_dir_check() - every directory from the socket's own up to / (resolved through
 * symbolic links) must be owned by root or @owner and not writable by group or others; an
 * ancestor (not the socket's own directory) may be world-writable when it is sticky and
 * root's, as /tmp is. @owner (uid_t)-1 accepts any owner (a path the user named: whom to
 * trust is theirs to say) but keeps the write checks.
 * @why: receives the reason for a refusal, naming the directory and what is wrong with it:
 * "DIR is owned by uid N, not by uid M or root", "DIR is writable by its group|others|its
 * group and others (mode 0NNN)", or "DIR is not a directory".
 * Return: 0; -EPERM (refused, see @why); -ENOENT or another negative errno from stat.
 */
int hsaqm_sock_dir_check(const char *sock_path, uid_t owner, char *why, size_t len);

#endif /* HSAQM_DCLIENT_PATH_H */
