/* SPDX-License-Identifier: MIT */
/*
 * hsaqm/backend.h - what lib/ needs from the hardware side, and nothing more.
 *
 * lib/ never sees a packet. An xqueue counts packets: the application has *submitted*
 * packets up to some index (they wait in a source the backend owns: for the tool library,
 * the proxy ring the application writes), lib decides how many to *release*, and the
 * backend moves exactly that many, in order, into the hardware queue, adding what the
 * level needs (guardians for Lv2, completion markers). Completions come back as marker
 * sequence numbers. Preemption is one of three backend actions: stop releasing (Lv1),
 * close the gate (Lv2), suspend the hardware queue (Lv3).
 *
 * The HSA backend (hsa-layer/) implements this on an HSA queue through an HsaApiTable, so
 * the same code runs on ROCr and on the device model.
 *
 * Threads: every operation may be called from any thread, but lib serialises the
 * operations of all queues of one device (it holds that device's lock while calling them).
 * Operations must not block for long (release() returns -EAGAIN when the hardware ring is
 * full instead of waiting) and must not call back into lib: hsaqm_xq_submitted() or
 * hsaqm_xq_marker_done() from inside an operation would deadlock. The backend may call
 * those two from any thread otherwise, but must stop before hsaqm_xq_detach() (or
 * hsaqm_ctx_destroy()) for the queue: a handle is not valid during or after its detach.
 */
#ifndef HSAQM_BACKEND_H
#define HSAQM_BACKEND_H

#include <stdint.h>

#include "hsaqm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hsaqm_xq;

/* Flags of struct hsaqm_release. */
enum {
	/*
	 * Lv2: put guardians (barrier-AND on the queue's gate signal, no barrier bit, no
	 * completion signal) among the released packets, where struct hsaqm_release says, so
	 * a closed gate stops the packet processor within `guard_interval` kernels.
	 */
	HSAQM_RELEASE_GUARDED = 1u << 0,
	/*
	 * Append a completion marker after the released packets: a packet that completes only
	 * when everything before it in the hardware queue has completed. Its completion is
	 * reported with hsaqm_xq_marker_done(xq, marker_seq).
	 */
	HSAQM_RELEASE_MARKER = 1u << 1,
};

/*
 * One release: the next @n submitted packets, in order.
 *
 * Guardians: lib owns the guardian rhythm across releases (an application that rings the
 * doorbell once per kernel still gets one guardian per `guard_interval` kernels, and lib
 * counts exactly what was written). With HSAQM_RELEASE_GUARDED, a guardian goes right
 * before the packets at offsets guard_skip, guard_skip + guard_interval,
 * guard_skip + 2 * guard_interval, ... (< n) of this release; guard_skip < guard_interval.
 */
struct hsaqm_release {
	uint64_t first;          /* index of the first packet (= packets released before) */
	uint32_t n;              /* packets to move; 0 only with HSAQM_RELEASE_MARKER alone */
	uint32_t flags;          /* HSAQM_RELEASE_* */
	uint32_t guard_interval; /* GUARDED: >= 1 */
	uint32_t guard_skip;     /* GUARDED: packets before the first guardian of this release */
	uint64_t marker_seq;     /* MARKER: reported back by hsaqm_xq_marker_done(); from 1, +1 each */
};

struct hsaqm_backend_ops {
	/*
	 * Move the packets @rel describes into the hardware queue with what it asks. The
	 * backend rings the hardware doorbell itself.
	 * Return: 0; -EAGAIN when the hardware ring has no room for all of them (nothing was
	 * released; lib retries with fewer, and again after the next marker completes or a
	 * short timer); another -errno on failure (nothing was released; lib then fails open:
	 * the queue is set to pass-through and told so once).
	 */
	int (*release)(void *bq, const struct hsaqm_release *rel);
	/* Lv2: make the queue's guardians block (gate signal != 0) / pass (== 0). 0 or -errno. */
	int (*gate_close)(void *bq);
	int (*gate_open)(void *bq);
	/*
	 * Lv3: suspend / resume the hardware queue (CWSR saves running waves). 0 or -errno.
	 * suspend() refusing with -EPERM (self-suspend forbidden), -EALREADY (a debugger holds
	 * DBG_TRAP), -EOPNOTSUPP, -ENOTTY or -ENOSYS (no DBG_TRAP), or -EINVAL (the KFD refuses
	 * this queue) makes lib fall back to Lv2 for this queue and record why; any other error
	 * makes it fail open. A resume() error always makes it fail open.
	 */
	int (*suspend)(void *bq);
	int (*resume)(void *bq);
	/*
	 * The highest level this queue can really have (HSAQM_LEVEL_*), with the reason it
	 * cannot have more in @why (a sentence, NUL-terminated, at most @why_len bytes).
	 * A negative errno counts as HSAQM_LEVEL_NONE.
	 */
	int (*max_level)(void *bq, char *why, uint32_t why_len);
	/* lib has forgotten the queue (detach or context destroy): the gate is open, the queue
	 * resumed, and lib will make no further call. Optional (may be NULL). */
	void (*detached)(void *bq);
	/*
	 * Lv3: how suspend() stops this queue (HSAQM_MECH_DBG_TRAP or HSAQM_MECH_UPDATE_QUEUE),
	 * with why in @why (a sentence, NUL-terminated, at most @why_len bytes). The backend
	 * may change it as it learns (a DBG_TRAP refused, UPDATE_QUEUE in its place). Must be
	 * cheap (called under the device lock). Optional: without it Lv3 is DBG_TRAP.
	 */
	int (*mechanism)(void *bq, char *why, uint32_t why_len);
	/*
	 * Spatial: confine the queue to the CUs outside the first @reserve_permille of the
	 * device's CUs; 0 gives it back every CU it had. A mask change in the middle of a kernel
	 * moves its running waves off the reserved CUs where the hardware does so (the probe's
	 * cu_mask check measures it). 0 or -errno: lib then stops using spatial for the queue
	 * and says why (a failed give-back is logged, and retried when lib lets go). Optional.
	 */
	int (*cu_confine)(void *bq, uint32_t reserve_permille);
	/*
	 * Dependencies: whether the queue's packet processor stands at a packet of the
	 * application that waits (a barrier-AND, barrier-OR or barrier-value packet) whose
	 * condition does not hold yet. lib asks only while the queue has waits it was told of
	 * (hsaqm_xq_depend()), to apply the bound on waits it cannot attribute (docs/lib.md
	 * "Dependencies and priority inheritance"). Must be cheap (loads; called under the device
	 * lock by the timer). Return: 1 yes, 0 no, or -errno (counts as no). Optional: without it
	 * a queue with a live wait is taken to stand at it.
	 */
	int (*head_waits)(void *bq);
};

/*
 * What a waiting packet waits for, as hsaqm_xq_depend() is told: "packet @index of this
 * queue waits on queue @on_id up to its packet @upto". lib keeps no signal, value or packet:
 * the backend, which reads the packets, turns its runtime's dependencies (a completion signal
 * another of its queues will decrement) into this form.
 */
struct hsaqm_dep {
	uint64_t index; /* the waiting packet's index in this queue (as hsaqm_xq_submitted counts) */
	uint64_t upto;  /* with @on_id: the wait ends once that queue completed every packet below @upto */
	uint32_t on_id; /* the queue whose packet ends the wait (hsaqm_xq_get_id()), or 0: none hsaqm
			 * schedules on this device (a signal the host sets, memory a kernel writes,
			 * another process or device): only the bound applies */
	uint32_t reserved; /* 0 */
};

/**
 * hsaqm_xq_submitted() - the backend saw the application publish packets up to (not
 * including) @end_index (the packet count since the queue was created). Called at the
 * doorbell. lib decides at once, in the calling thread, whether to release them and
 * whether lower-priority queues must be preempted (the reaction path).
 *
 * Return: 0 (also for an index already reported); -EINVAL for a NULL or foreign queue or
 * an index behind one already reported.
 */
HSAQM_API int hsaqm_xq_submitted(struct hsaqm_xq *xq, uint64_t end_index);

/**
 * hsaqm_xq_depend() - the backend saw that packet @dep->index of @xq, not yet reported with
 * hsaqm_xq_submitted() or reported already, waits on something that has not happened yet.
 * Call it before reporting the packet: lib decides at once, so a lower queue the wait needs
 * runs (priority inheritance: only as far as @dep->upto where the level can hold the rest),
 * and a wait nobody scheduled here can end is bounded (hsaqm_ctx_set_dep_bound()). A wait
 * lib has no room for (more than HSAQM_XQ_DEPS live at once) is kept as "some wait": only the
 * bound applies to it. docs/lib.md "Dependencies and priority inheritance".
 *
 * Return: 0; -EINVAL for a NULL or foreign queue, a NULL @dep, a waiting packet already
 * known complete, or @dep->on_id naming @xq itself (a queue never waits on itself: its
 * packets run in order).
 */
HSAQM_API int hsaqm_xq_depend(struct hsaqm_xq *xq, const struct hsaqm_dep *dep);

/**
 * hsaqm_xq_marker_done() - the marker released with @marker_seq has completed: every
 * packet released before it has completed. Markers complete in release order; a later
 * sequence number implies the earlier ones, and reporting an earlier one again is a
 * harmless no-op (completion watchers may race).
 *
 * Return: 0; -EINVAL for a NULL or foreign queue or a sequence number never released.
 */
HSAQM_API int hsaqm_xq_marker_done(struct hsaqm_xq *xq, uint64_t marker_seq);

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_BACKEND_H */
