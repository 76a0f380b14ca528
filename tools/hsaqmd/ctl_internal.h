/* SPDX-License-Identifier: MIT */
/*
 * ctl_internal.h - what hsaqmctl's files share: one connection to the daemon, its requests,
 * and the snapshot `top` redraws from (ctl.c, ctl_top.c; docs/daemon.md "hsaqmctl").
 */
#ifndef HSAQM_HSAQMD_CTL_INTERNAL_H
#define HSAQM_HSAQMD_CTL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hsaqm-dclient/proto.h"

/* Exit codes: 0 done; 1 the daemon refused or went away; 2 usage; 3 no daemon. */
#define CTL_EXIT_REFUSED 1
#define CTL_EXIT_USAGE 2
#define CTL_EXIT_NO_DAEMON 3

/* Send one request. Return: 0; a negative errno. */
int ctl_send(unsigned int type, const void *body);
/* Receive one message (a reply) within the request timeout. Return: 0; a negative errno. */
int ctl_recv(struct hsaqmd_msg *m);

/* One registry snapshot: LIST's entries, STATS_OK. */
struct ctl_snapshot {
	struct hsaqmd_list_proc *procs;
	size_t nprocs;
	struct hsaqmd_list_queue *queues;
	size_t nqueues;
	unsigned int hidden;
	struct hsaqmd_stats_ok stats;
	uint64_t taken_ns; /* CLOCK_MONOTONIC */
};

/* Fill @s (freed first) from the daemon. Return: 0; a negative errno. */
int ctl_snapshot_take(struct ctl_snapshot *s);
void ctl_snapshot_free(struct ctl_snapshot *s);

/* "idle", "ready", "preempted". */
const char *ctl_state_name(uint32_t state);

/*
 * hsaqmctl top: a live view (ctl_top.c). @seconds 0: until `q` (or SIGINT/SIGTERM).
 * Return: an exit code.
 */
int ctl_top(unsigned int seconds);

#endif /* HSAQM_HSAQMD_CTL_INTERNAL_H */
