/* SPDX-License-Identifier: MIT */
/*
 * arbitrate_internal.h - hsaqmd's decisions (arbitrate.c): who holds, per device, and the
 * command words that say so. On the daemon's one thread, as everything in registry_internal.h.
 */
#ifndef HSAQM_HSAQMD_ARBITRATE_INTERNAL_H
#define HSAQM_HSAQMD_ARBITRATE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "registry_internal.h"

/* Decide @dev at @now: lib's policy over its queues at their processes' priorities. */
void hsaqmd_dev_decide(struct hsaqmd *d, struct ddev *dev, uint64_t now);

/* Decide every dirty device (with @due_only, every due one too), kick the clients whose
 * command words changed, arm the timer for the next deadline. */
void hsaqmd_decide_all(struct hsaqmd *d, bool due_only);

/* Store @q's command word (hold or run) in its client's shared memory; the kick follows. */
void hsaqmd_queue_command(struct hsaqmd *d, struct dqueue *q, bool hold);

/* A pending hold loses its meaning (a new command, the queue goes): time it or count it. */
void hsaqmd_handoff_close(struct hsaqmd *d, struct dqueue *q);

/* Read @cl's state words into its queues. Return: true when one changed (its device dirty). */
bool hsaqmd_scan_states(struct dclient *cl);

/* The liveness rule for @cl's ready queues (docs/daemon.md "Liveness"); every heartbeat. */
void hsaqmd_check_progress(struct hsaqmd *d, struct dclient *cl, uint64_t now);

#endif /* HSAQM_HSAQMD_ARBITRATE_INTERNAL_H */
