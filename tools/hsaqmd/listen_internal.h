/* SPDX-License-Identifier: MIT */
/*
 * listen_internal.h - hsaqmd's listening socket (listen.c).
 */
#ifndef HSAQM_HSAQMD_LISTEN_INTERNAL_H
#define HSAQM_HSAQMD_LISTEN_INTERNAL_H

#include "registry_internal.h"

/*
 * hsaqmd_listen_socket() - listen on d->path: its directory made and checked, what is at the
 * path replaced only when it is a stale socket, the socket's mode and group set.
 * Return: 0 (d->lfd set); a negative errno, with one line said.
 */
int hsaqmd_listen_socket(struct hsaqmd *d);

#endif /* HSAQM_HSAQMD_LISTEN_INTERNAL_H */
