/* SPDX-License-Identifier: MIT */
/*
 * registry_internal.h - hsaqmd's state: the registry of clients, their queues and the devices
 * (registry.c), the event loop's watches (daemon.c), and what the metrics (metrics.c) and the
 * metrics endpoint (http.c) read of it. Everything here lives on the daemon's one thread.
 */
#ifndef HSAQM_HSAQMD_REGISTRY_INTERNAL_H
#define HSAQM_HSAQMD_REGISTRY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon_internal.h"
#include "hsaqm-common/hist.h"
#include "hsaqm-common/policy.h"
#include "hsaqm-dclient/proto.h"

/*
 * Replies a client has not read yet wait in its own buffer, never in the daemon's thread: at
 * most OUT_MAX bytes (a root LIST of a large node fits; a user sees only its own processes),
 * and a reader that takes nothing for SLOW_READER_MS is dropped.
 */
#define OUT_MAX (4u << 20)
#define SLOW_READER_MS 5000u
#define MAX_DEVICES 1024
/* Busy-polling looks at the sockets, timer and signals this often (their latency bound). */
#define POLL_EPOLL_NS 50000ull

enum watch_kind { W_LISTEN, W_SOCK, W_KICK, W_TIMER, W_SIGNAL, W_BEAT, W_HTTP_LISTEN, W_HTTP };

/*
 * A histogram in the Prometheus sense (metrics.c): counts of samples at or below fixed
 * bounds, their sum. lib's log-linear histogram gives the percentiles of `stats`; these
 * bounds are what a `histogram_quantile()` over many nodes needs, exact at each bound.
 */
#define PROM_BUCKETS 12
extern const uint64_t prom_bounds_ns[PROM_BUCKETS];
struct prom_hist {
	uint64_t le[PROM_BUCKETS]; /* samples <= prom_bounds_ns[i] (not cumulative here) */
	uint64_t count;
	uint64_t sum_ns;
};
void prom_hist_record(struct prom_hist *h, uint64_t ns);

struct dclient;

struct http_conn;

struct watch {
	enum watch_kind kind;
	struct dclient *cl;    /* W_SOCK, W_KICK */
	struct http_conn *hc;  /* W_HTTP */
};

struct ddev;

struct dqueue {
	struct dclient *cl;
	struct ddev *dev;
	size_t dev_idx;
	uint32_t slot;
	uint32_t qid;
	uint32_t gpu_id;
	uint32_t kfd_qid;
	uint32_t level;
	uint64_t hsa_qid;
	int32_t prio_adj;
	uint32_t group;
	uint32_t share;
	bool active; /* the client's state word says ready */
	bool hold;   /* the last command said hold */
	uint32_t cmd;
	uint64_t preemptions;
	/* A hold commanded for another process's ready queue, timed once its ack is seen. */
	bool pend;
	uint32_t pend_cmd;
	uint32_t pend_ready; /* the ready queue's stamp (hsaqm-dclient/proto.h: ns, low 32 bits) */
	uint64_t pend_seen_ns;
	uint64_t pend_sent_ns;
	/* Liveness: a ready queue holds others only while its progress word moves. */
	uint32_t progress;   /* the word when last seen changing (or at the last release) */
	uint64_t progress_ns;
	/* Ready, not held, holding others' ready queues, and no progress for hold_progress_ms:
	 * treated as idle until the word moves. Never set for a queue we hold. */
	bool stalled;
	uint64_t stalls;     /* times it was found so (hsaqmd_check_progress()) */
	uint64_t held_ns;    /* time commanded to hold, closed holds */
	uint64_t hold_since_ns;
	char mech[HSAQMD_MECH_LEN];
	struct prom_hist handoff; /* its timed holds, ready -> acked (metrics) */
};

struct ddev {
	uint32_t gpu_id;
	bool own_policy;
	bool dirty;
	struct hsaqm_policy_config cfg;
	struct hsaqm_policy_state st;
	struct dqueue **q;
	struct hsaqm_policy_queue *pq;
	size_t n, cap;
	uint64_t deadline;
	/* A queue here went ready since the last decision: the hand-off's trigger. */
	bool trig;
	uint32_t trig_ready;
	uint64_t trig_seen_ns;
};

/* Messages waiting for a slow reader: [u32 length][bytes]... */
struct outq {
	char *buf;
	size_t len, off, cap;
	uint64_t progress_ns; /* when the reader last took something (or the queue started) */
};

/* What one uid holds: connections, queues. */
struct duid {
	uint32_t uid;
	unsigned int conns;
	unsigned int queues;
};

struct dclient {
	struct dclient *next, *prev;
	struct watch sock_w, kick_w;
	int fd;
	int efd_in;  /* the client kicks the daemon */
	int efd_out; /* the daemon kicks the client */
	bool hello;
	bool dead;
	bool need_kick;
	bool privileged; /* root or the daemon's uid: sees everyone, no per-uid limits */
	struct duid *u;
	struct outq out;
	uint32_t role;
	uint32_t id;
	uint32_t pid, pid_ns, uid;
	int priority, cap;
	char comm[HSAQMD_COMM_LEN];
	uint64_t connected_ns;
	struct hsaqmd_shm *shm;
	struct dqueue *slot[HSAQMD_SLOTS];
	uint32_t slot_seq[HSAQMD_SLOTS]; /* command sequence per slot, kept across reuse */
	unsigned int nqueues;
	/* hsaqmd_dev_decide() scratch: the highest priority among its ready queues on that device. */
	bool arb_set;
	int arb_prio;
};

struct hsaqmd {
	struct hsaqmd_config cfg;
	const char *path;
	int lfd, epfd, tfd, sfd, hbfd;
	struct watch listen_w, timer_w, signal_w, beat_w;
	struct dclient *clients;
	struct dclient *zombies;
	unsigned int nclients, nctls;
	struct duid *uids;
	size_t nuids, capuids;
	/* The node's gpu_ids (gpu_ids = auto): none read = not checked. */
	uint32_t *topo_ids;
	size_t ntopo;
	uint64_t topo_read_ns;
	uint64_t last_change_ns;  /* a state word changed, or a client kicked (spin_us) */
	uint64_t notice_ns;       /* the last stall line said (one a second at most) */
	int rt_prio;              /* SCHED_FIFO priority in force, 0 none */
	struct ddev **devs;
	size_t ndevs;
	uint32_t next_client_id, next_qid;
	uint64_t start_ns;
	uint64_t armed;
	struct hsaqmd_stats_ok st;
	bool stop;
	bool polling; /* busy-polling now (cfg.busy_poll and two or more clients) */
	/* Hand-off timing, one sample per timed hold (docs/daemon.md "Hand-off timing"). */
	struct hsaqm_hist h_ready_seen, h_seen_sent, h_sent_acked, h_ready_acked;
	struct prom_hist p_ready_seen, p_seen_sent, p_sent_acked, p_ready_acked;
	/* The metrics endpoint (metrics_listen; http.c). */
	int http_fd;
	struct watch http_w;
	struct http_conn *http;
	struct http_conn *http_zombies;
	unsigned int nhttp;
	uint64_t http_served, http_dropped;
};

struct http_conn;

/* CLOCK_MONOTONIC in ns. */
uint64_t hsaqmd_now_ns(void);

/* ---- registry.c: devices, uids, gpu_ids ---- */

/* The device of @gpu_id, or NULL; hsaqmd_dev_get() makes it (NULL: out of memory, or
 * MAX_DEVICES reached). */
struct ddev *hsaqmd_dev_find(struct hsaqmd *d, uint32_t gpu_id);
struct ddev *hsaqmd_dev_get(struct hsaqmd *d, uint32_t gpu_id);

/* A device without queues and without a policy of its own is forgotten. */
void hsaqmd_dev_maybe_free(struct hsaqmd *d, struct ddev *dev);

/* Add @q to @dev's queues (and the policy's input beside them). Return: 0; -ENOMEM. */
int hsaqmd_dev_add_queue(struct ddev *dev, struct dqueue *q);
void hsaqmd_dev_remove_queue(struct ddev *dev, struct dqueue *q);

/* Root and the daemon's own user: no per-uid limit, the reserved slots, everyone in LIST. */
bool hsaqmd_uid_privileged(uint32_t uid);

/* Whether a new connection of @uid may have a slot (*@u its uid's entry): NULL, or why not
 * (the refusal counted). */
const char *hsaqmd_uid_admit(struct hsaqmd *d, uint32_t uid, struct duid **u);

/* Whether @cl's uid may add a queue on @gpu_id. Return: 0; -EDQUOT. */
int hsaqmd_uid_quota(struct hsaqmd *d, struct dclient *cl, uint32_t gpu_id);

/* The gpu_ids of the node's GPUs, read from the KFD topology (cfg.topology). */
void hsaqmd_topo_load(struct hsaqmd *d);

/* Whether a queue may name @gpu_id (cfg.gpu_ids). */
bool hsaqmd_gpu_id_allowed(struct hsaqmd *d, uint32_t gpu_id);

/* Time every hold acked since its command (the figures read next include it). */
void hsaqmd_harvest_all(struct hsaqmd *d);

/* The effective priority of @q (the process's plus its adjustment, within the cap). */
int hsaqmd_queue_priority(const struct dqueue *q);

/* Whether @req may see @t: root and the daemon's uid see everyone, a user its own. */
bool hsaqmd_may_see(const struct dclient *req, const struct dclient *t);

/*
 * The Prometheus text exposition of @d (docs/daemon.md "Metrics"), what @req may see
 * (NULL: everything, the endpoint's view). Return: a malloc'ed NUL-terminated text, or NULL.
 */
char *hsaqmd_metrics_text(struct hsaqmd *d, const struct dclient *req, size_t *len);

/* The metrics endpoint (http.c). Setup: 0, or a negative errno with one line said. */
int hsaqmd_http_setup(struct hsaqmd *d);
void hsaqmd_http_accept(struct hsaqmd *d);
void hsaqmd_http_event(struct hsaqmd *d, struct http_conn *c, uint32_t events);
/* Every 100 ms: connections past their deadlines go. */
void hsaqmd_http_tick(struct hsaqmd *d, uint64_t now);
/* Free what was closed during the batch of events just handled. */
void hsaqmd_http_reap(struct hsaqmd *d);
void hsaqmd_http_teardown(struct hsaqmd *d);

#endif /* HSAQM_HSAQMD_REGISTRY_INTERNAL_H */
