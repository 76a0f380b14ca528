/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-dclient/daemon_client.h - a process's side of hsaqmd (docs/daemon.md).
 *
 * The tool library of each process opens one client, registers its queues, and marks each
 * queue ready (it has work) or idle. The daemon decides across processes and tells the
 * client, through a callback on the client's own thread, to hold a queue (close its gates,
 * suspend it) or to let it go on. Marking a queue is a store in shared memory, plus one
 * eventfd write only when the daemon has not yet been told about an earlier change.
 *
 * Fail-open: when the daemon goes away (killed, stopped, crashed), the client calls back
 * RESUME for every queue it holds, then LOST, at once (it sees its socket hang up); the
 * process schedules locally. The client reconnects when the daemon returns (CONNECTED, then
 * PREEMPT for the queues the daemon holds). Queue handles stay valid throughout.
 *
 * Linked statically (hsaqm_dclient, daemon-client/) into the tool library, hsaqmd and
 * hsaqmctl; its symbols stay hidden (-fvisibility=hidden), so nothing here is exported by a
 * shared object. Not public API: not installed.
 *
 * A forked child must not use its parent's client (its memory and fds are the parent's
 * connection); open a new one in the child. Every fd is close-on-exec.
 *
 * Thread safety: every function may be called from any thread, also from the callback.
 * hsaqm_dclient_queue_mark() for one queue must not run concurrently with itself or with
 * hsaqm_dclient_queue_remove() of that queue (the tool library calls it under its own
 * per-device lock).
 */
#ifndef HSAQM_DAEMON_CLIENT_H
#define HSAQM_DAEMON_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "hsaqm/hsaqm.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hsaqm_dclient;
struct hsaqm_dclient_queue;

enum hsaqm_dclient_event {
	HSAQM_DCLIENT_PREEMPT = 1,   /* hold the queue at its level until RESUME */
	HSAQM_DCLIENT_RESUME = 2,    /* the queue may run again */
	HSAQM_DCLIENT_LOST = 3,      /* the daemon is gone; every held queue got RESUME first */
	HSAQM_DCLIENT_CONNECTED = 4, /* connected again after LOST; PREEMPTs may follow */
};

/**
 * typedef hsaqm_dclient_cb - what the daemon asks, on the client's thread.
 * @ev: the event; @q and @queue_arg are NULL for LOST and CONNECTED.
 * @queue_arg: the queue's hsaqm_dclient_queue_config.arg; @arg: the client's config.arg.
 *
 * The daemon counts a command as done (the queue's gates closed) when the callback
 * returns: keep it short (a gate store, a suspend ioctl). It may call any function of this
 * header, hsaqm_dclient_close() excepted.
 */
typedef void (*hsaqm_dclient_cb)(enum hsaqm_dclient_event ev, struct hsaqm_dclient_queue *q,
				 void *queue_arg, void *arg);

/* hsaqm_dclient_config.flags */
/* The daemon's socket exists but the connection fails (refused at a limit, reset, no answer):
 * open succeeds anyway, disconnected, and the client's thread keeps trying with back-off
 * (CONNECTED when it gets in). Without it open fails, as before. */
#define HSAQM_DCLIENT_RETRY (1u << 0)

struct hsaqm_dclient_config {
	/* The daemon's socket. NULL: $HSAQM_DAEMON; when that is unset, the user's daemon
	 * (where hsaqmd puts it for this user: $XDG_RUNTIME_DIR/hsaqm/hsaqmd.sock, else
	 * /tmp/hsaqm-UID/hsaqmd.sock) when it exists, then the node's (/run/hsaqm/hsaqmd.sock).
	 * HSAQM_DAEMON=off (or 0, none) means never. Every directory on the path is checked
	 * (docs/daemon.md "Security model"): owned by root or this user (any owner for a path
	 * named here or in HSAQM_DAEMON), writable by nobody else. */
	const char *socket_path;
	int priority;            /* the process's; the daemon caps it by uid */
	const char *name;        /* shown when /proc is not readable; NULL = the program's */
	hsaqm_dclient_cb callback; /* may be NULL (nothing is ever held then... but still acked) */
	void *arg;
	uint32_t reconnect_ms;   /* first retry after a loss, doubling to 2 s; 0 = 100 */
	uint32_t timeout_ms;     /* a request the daemon does not answer; 0 = 2000 */
	uint32_t flags;          /* HSAQM_DCLIENT_* */
};

/**
 * hsaqm_dclient_open() - connect to the daemon and register the process.
 * @out: receives the client; its thread runs until hsaqm_dclient_close().
 *
 * Return: 0 (with HSAQM_DCLIENT_RETRY also while the daemon refuses: connecting in the
 * background); -EINVAL for NULL arguments or a priority out of range; -ENOENT when no daemon
 * listens (or HSAQM_DAEMON=off): nothing is logged, the caller schedules locally; -EPERM when
 * a directory of the socket's path is not trustworthy (logged at warn, with why); -EPROTO
 * when the daemon speaks another protocol; -ETIMEDOUT; -ENOMEM; another negative errno from
 * the socket.
 */
int hsaqm_dclient_open(const struct hsaqm_dclient_config *cfg,
				 struct hsaqm_dclient **out);

/**
 * hsaqm_dclient_close() - leave: the daemon drops this process's queues and resumes whoever
 * they held back. Frees every queue handle still registered. NULL is a no-op. Must not be
 * called from the callback.
 */
void hsaqm_dclient_close(struct hsaqm_dclient *c);

/**
 * hsaqm_dclient_set_priority() - the process's priority.
 * @granted: when non-NULL, receives the priority in force after the call.
 * Return: 0 (also while disconnected: sent when connected again); -EINVAL for NULL or a
 * priority out of range; -EPERM above the uid's cap (nothing changes).
 */
int hsaqm_dclient_set_priority(struct hsaqm_dclient *c, int priority, int *granted);

/**
 * hsaqm_dclient_connected() - Return: 1 while connected, 0 while the daemon is lost,
 * -EINVAL for NULL.
 */
int hsaqm_dclient_connected(struct hsaqm_dclient *c);

struct hsaqm_dclient_queue_config {
	uint32_t gpu_id;         /* the KFD gpu_id; queues on one gpu_id compete */
	uint32_t kfd_queue_id;   /* UINT32_MAX when not known (yet) */
	uint64_t hsa_queue_id;   /* hsa_queue_t.id */
	enum hsaqm_level level;  /* effective level, for the registry */
	int prio_adj;            /* added to the process's priority, -200..200 */
	uint32_t group;          /* UTIL: 0 = the process is one group */
	uint32_t share_permille; /* UTIL: 0..1000 */
	void *arg;               /* given back in callbacks */
	/* How the level holds in this process ("dbg_trap", "cu_mask", ...: lower-case letters,
	 * digits, '_', under 16 bytes); NULL or "" = the level's own name. */
	const char *mechanism;
};

/**
 * hsaqm_dclient_queue_add() - register a queue (idle).
 * @held: receives 1 when the queue starts held (its process is preempted on that device:
 *        hold it before its first packet), 0 otherwise. No PREEMPT callback says so.
 *
 * Return: 0 (also while disconnected: registered when connected again); -EINVAL for NULL
 * arguments or a field out of range; -ENOSPC past 128 queues; -ENOMEM; a negative errno the
 * daemon answered with.
 */
int hsaqm_dclient_queue_add(struct hsaqm_dclient *c,
				      const struct hsaqm_dclient_queue_config *qc,
				      struct hsaqm_dclient_queue **out, int *held);

/**
 * hsaqm_dclient_queue_update() - change a queue's KFD queue id, level, priority
 * adjustment, group and share (gpu_id and hsa_queue_id stay).
 * Return: 0; -EINVAL for NULL or a field out of range.
 */
int hsaqm_dclient_queue_update(struct hsaqm_dclient_queue *q,
					 const struct hsaqm_dclient_queue_config *qc);

/**
 * hsaqm_dclient_queue_mark() - the queue has work (@ready) or has none.
 * The fast path: a store, and an eventfd write only if the daemon has not been kicked yet.
 * Return: 0; -EINVAL for NULL.
 */
int hsaqm_dclient_queue_mark(struct hsaqm_dclient_queue *q, bool ready);

/**
 * hsaqm_dclient_queue_progress() - the queue made progress (a doorbell rang, work completed).
 * A ready queue whose progress stops for the daemon's hold_progress_ms holds no other
 * process until it moves again (a stopped or hung process must not hold others). One
 * atomic add in shared memory; any thread.
 * Return: 0; -EINVAL for NULL.
 */
int hsaqm_dclient_queue_progress(struct hsaqm_dclient_queue *q);

/**
 * hsaqm_dclient_queue_dep_stalls() - publish how many times the queue's head waited past the
 * process's dependency bound (lib's dep_stalls), for hsaqmctl and the metrics. A store in the
 * shared page; nothing is sent.
 * Return: 0; -EINVAL for a NULL @q.
 */
int hsaqm_dclient_queue_dep_stalls(struct hsaqm_dclient_queue *q, uint32_t stalls);

/**
 * hsaqm_dclient_thread_realtime() - the client thread's real-time priority in force (SCHED_FIFO,
 * HSAQM_REALTIME), 0 when it runs SCHED_OTHER, -EPERM when it was asked for and not
 * permitted, -EINVAL for NULL.
 */
int hsaqm_dclient_thread_realtime(struct hsaqm_dclient *c);

/**
 * hsaqm_dclient_queue_held() - Return: 1 when the daemon holds the queue, 0 when not,
 * -EINVAL for NULL.
 */
int hsaqm_dclient_queue_held(struct hsaqm_dclient_queue *q);

/**
 * hsaqm_dclient_queue_id() - the daemon-wide id hsaqmctl shows (qN); 0 while never
 * registered. Return: the id, or 0 for NULL.
 */
uint32_t hsaqm_dclient_queue_id(struct hsaqm_dclient_queue *q);

/**
 * hsaqm_dclient_queue_remove() - unregister and free the queue (no callback for it after
 * this returns).
 * Return: 0; -EINVAL for NULL.
 */
int hsaqm_dclient_queue_remove(struct hsaqm_dclient_queue *q);

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_DAEMON_CLIENT_H */
