/* SPDX-License-Identifier: MIT */
/*
 * session_internal.h - hsaqmd's connections (session.c), the replies it sends them (send.c)
 * and the requests it answers (requests.c). On the daemon's one thread.
 */
#ifndef HSAQM_HSAQMD_SESSION_INTERNAL_H
#define HSAQM_HSAQMD_SESSION_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hsaqm-dclient/proto.h"
#include "registry_internal.h"

/* ---- session.c ---- */

/* Accept every pending connection; a refused one is closed at once (one warning line). */
void hsaqmd_clients_accept(struct hsaqmd *d);

/* HELLO: the client's priority (capped), for a process its shared memory and eventfds.
 * Return: 0; a negative errno (the client goes). */
int hsaqmd_client_hello(struct hsaqmd *d, struct dclient *cl, const struct hsaqmd_msg *m);

/* The client's socket has @events: send what waits, read and answer what it sent. */
void hsaqmd_client_sock(struct hsaqmd *d, struct dclient *cl, uint32_t events);

/* The client kicked: read its state words, decide the devices that changed. */
void hsaqmd_client_kicked(struct hsaqmd *d, struct dclient *cl);

/* The client goes (@why said at info): its queues go, the others resume at once. Freed by
 * hsaqmd_free_zombies() after the batch of events. */
void hsaqmd_client_drop(struct hsaqmd *d, struct dclient *cl, const char *why);

/* A queue goes: its device decides at once, and is forgotten when nothing keeps it. */
void hsaqmd_queue_free(struct hsaqmd *d, struct dqueue *q);

/* Every 100 ms: the heartbeat word, the deadlines of connections, the liveness rule. */
void hsaqmd_heartbeat(struct hsaqmd *d);

/* Free the clients (and metrics connections) dropped during the batch just handled. */
void hsaqmd_free_zombies(struct hsaqmd *d);

/* ---- send.c ---- */

bool hsaqmd_outq_empty(const struct outq *o);
void hsaqmd_outq_free(struct outq *o);

/* Send what waits, in order, until the socket is full. Return: 0; -errno (the client goes). */
int hsaqmd_outq_flush(struct hsaqmd *d, struct dclient *cl);

/* One message with @nfds fds (SCM_RIGHTS), now. Return: 0; -EAGAIN; another -errno. */
int hsaqmd_send_fds(struct dclient *cl, const void *buf, size_t len, const int *fds, int nfds);

/* Build and send (or queue) one message. Return: 0; -ENOBUFS (a slow reader); -errno. */
int hsaqmd_send_msg(struct hsaqmd *d, struct dclient *cl, unsigned int type, uint32_t seq,
		    const void *body);
int hsaqmd_send_result(struct hsaqmd *d, struct dclient *cl, uint32_t seq, int status, int value);

/* ---- requests.c ---- */

/* Parse and answer one message of @cl. Return: 0; < 0 when the client must go (-EBADMSG,
 * -EPROTONOSUPPORT: a malformed message; another errno: its socket failed). */
int hsaqmd_request_handle(struct hsaqmd *d, struct dclient *cl, const void *buf, size_t n);

#endif /* HSAQM_HSAQMD_SESSION_INTERNAL_H */
