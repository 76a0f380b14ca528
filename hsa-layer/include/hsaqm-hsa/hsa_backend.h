/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-hsa/hsa_backend.h - lib/'s backend on an HSA runtime, and the proxy queues it serves.
 *
 * A proxy queue is what the application gets instead of the hardware queue it asked for
 * (design decision 1): a full amd_queue_t with its own ring, indices and doorbell signal,
 * whose fields mirror the hardware queue's (apertures, scratch, properties; dispatch ids
 * kept current), so clients that read amd_queue_t directly (ROCclr, rocprofiler) keep
 * working. When the application rings the proxy doorbell, the backend finds how far the
 * proxy ring holds valid packets and tells lib (hsaqm_xq_submitted); lib decides what to
 * release, and the backend's release() copies exactly those packets into the hardware ring
 * with the ring writer, adding guardians (barrier-AND on the queue's gate signal) and
 * completion markers (barrier-AND with the barrier bit and the queue's marker signal),
 * then marks the proxy slots INVALID and advances the proxy read index so the application
 * can reuse them. Lv3 suspends the hardware queue through kfd-ioctl: DBG_TRAP SUSPEND_QUEUES,
 * or UPDATE_QUEUE with percentage 0 where DBG_TRAP is unavailable (hsaqm_hsa_runtime_set_lv3),
 * and the spatial fallback shrinks its CU mask.
 *
 * Everything goes through the functions of an HsaApiTable saved before a tool replaced
 * them (struct hsaqm_hsa_runtime), so the same code runs on ROCr and on the device model's
 * HSA face, and the tool's own wrappers are never re-entered.
 *
 * Functions return 0 or a negative errno unless their comment says otherwise.
 */
#ifndef HSAQM_HSA_BACKEND_H
#define HSAQM_HSA_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "hsaqm-hsa/api_table.h"
#include "hsaqm-hsa/hsa_abi.h"
#include "hsaqm/hsaqm.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hsaqm_kfd_transport;
struct hsaqm_kfd_profile;
struct hsaqm_hsa_rt_private;

/*
 * The runtime functions hsaqm calls: copies of a table's entries taken before anything
 * was replaced. Entries the table lacks are NULL, and what needs them reports why.
 */
struct hsaqm_hsa_runtime {
	struct hsaqm_api_layout layout;
	hsaqm_hsa_system_get_info_fn system_get_info;
	hsaqm_hsa_iterate_agents_fn iterate_agents;
	hsaqm_hsa_agent_get_info_fn agent_get_info;
	hsaqm_hsa_queue_create_fn queue_create;
	hsaqm_hsa_queue_destroy_fn queue_destroy;
	hsaqm_hsa_queue_inactivate_fn queue_inactivate;
	hsaqm_hsa_signal_create_fn signal_create;
	hsaqm_hsa_signal_destroy_fn signal_destroy;
	hsaqm_hsa_signal_load_fn signal_load_scacquire;
	hsaqm_hsa_signal_load_fn signal_load_relaxed;
	hsaqm_hsa_signal_store_fn signal_store_screlease;
	hsaqm_hsa_signal_store_fn signal_store_relaxed;
	hsaqm_hsa_signal_wait_fn signal_wait_scacquire;
	hsaqm_hsa_amd_signal_async_handler_fn amd_signal_async_handler;
	hsaqm_hsa_amd_queue_set_priority_fn amd_queue_set_priority;
	hsaqm_hsa_amd_queue_cu_set_mask_fn amd_queue_cu_set_mask;
	hsaqm_hsa_amd_queue_cu_get_mask_fn amd_queue_cu_get_mask;
	hsaqm_hsa_amd_profiling_enable_fn amd_profiling_set_profiler_enabled;
	hsaqm_hsa_amd_queue_get_info_fn amd_queue_get_info; /* ROCm >= 6.2 */
	/* Lv3: the KFD the runtime's queues live on (NULL = Lv3 unavailable, with a reason). */
	const struct hsaqm_kfd_transport *kfd;
	/* hsaqm's state for this runtime (marker signals, the KFD handle); set by init. */
	struct hsaqm_hsa_rt_private *priv;
};

/**
 * hsaqm_hsa_runtime_init() - detect @root_table's layout and copy the entries hsaqm calls.
 * @rt: filled in.
 * @root_table: an HsaApiTable as OnLoad receives it, before any entry is replaced.
 * @runtime_version: OnLoad's second argument (a hint; the table decides).
 * @kfd: the KFD transport for Lv3 (hsaqm_kfd_transport_default()), or NULL.
 *
 * Return: 0; -EINVAL for NULL arguments; -ENOTSUP for a layout hsaqm does not know, or a
 * table without the queue and signal entries hsaqm cannot do without.
 */
int hsaqm_hsa_runtime_init(struct hsaqm_hsa_runtime *rt, void *root_table, uint64_t runtime_version,
			   const struct hsaqm_kfd_transport *kfd);

/**
 * hsaqm_hsa_lv3_prepare() - what Lv3 needs before the process's first queue: open the KFD
 * the runtime's queues live on and enable the process's runtime there (RUNTIME_ENABLE), which
 * the KFD allows only while the process has no queue and requires before it suspends any.
 * A runtime that enabled it already (ROCr >= 5.5, in hsa_init) answers EBUSY: nothing to do.
 * Call it from OnLoad when Lv3 is asked for; without it, a runtime whose thunk never enables
 * the runtime the upstream way (ROCm 5.2) gets EPERM at its first suspend. Only from OnLoad,
 * before any other thread uses @rt: it takes none of @rt's locks (OnLoad runs under the
 * runtime's own init lock, which @rt's locks are taken outside of).
 *
 * Return: 0; -EINVAL without an initialised @rt; -EOPNOTSUPP when Lv3 is unavailable (no
 * KFD, KFD < 1.13, no HWS or CWSR: the reason comes with the first queue); or the -errno of
 * RUNTIME_ENABLE (-EEXIST: a queue exists already).
 */
int hsaqm_hsa_lv3_prepare(struct hsaqm_hsa_runtime *rt);

/**
 * hsaqm_hsa_runtime_fini() - free hsaqm's state for a runtime: retire the async handlers of
 * its marker signals, end the DBG_TRAP session (which resumes anything still suspended) and
 * close the KFD. Call it after the last proxy of @rt is destroyed and while the runtime is
 * still up (before hsa_shut_down, or before the device model is destroyed). The marker
 * signals themselves are left to the runtime, which frees them at shutdown: a signal an
 * async handler was registered on is not destroyed while a handler may still touch it.
 * NULL, or a runtime never initialised, is a no-op.
 */
void hsaqm_hsa_runtime_fini(struct hsaqm_hsa_runtime *rt);

/**
 * hsaqm_hsa_runtime_set_lv3() - how this runtime's queues get Lv3: @pref
 * (HSAQM_KFD_PREF_AUTO: DBG_TRAP, else UPDATE_QUEUE; or one of them, or none) and the
 * per-GPU profile hsa-queue-probe wrote (@profile, copied; NULL: none). Each GPU's mechanism
 * is then kfd-ioctl's hsaqm_kfd_lv3_decide() on that GPU's facts, the profile's verdicts and
 * what the runtime learned (a DBG_TRAP refused moves every later queue to UPDATE_QUEUE).
 * Call it before the first proxy; without it: AUTO, no profile.
 *
 * Return: 0; -EINVAL for a runtime not initialised or an unknown preference.
 */
int hsaqm_hsa_runtime_set_lv3(struct hsaqm_hsa_runtime *rt, int pref,
			      const struct hsaqm_kfd_profile *profile);

/**
 * hsaqm_hsa_errno_from_status() - an HSA status as the -errno hsaqm's functions return:
 * SUCCESS 0, OUT_OF_RESOURCES -ENOMEM, INVALID_ARGUMENT -EINVAL, INVALID_QUEUE_CREATION
 * -EOPNOTSUPP, INVALID_AGENT -ENODEV, INVALID_QUEUE -EBADF, INVALID_SIGNAL -EBADMSG,
 * NOT_INITIALIZED -EPERM, anything else -EIO.
 *
 * Return: 0 or the negative errno.
 */
int hsaqm_hsa_errno_from_status(hsaqm_hsa_status_t status);

/**
 * hsaqm_hsa_status_from_errno() - the reverse of hsaqm_hsa_errno_from_status(), for a tool
 * that must answer the application with an HSA status: -EIO and any other errno give
 * HSA_STATUS_ERROR.
 *
 * Return: the status.
 */
hsaqm_hsa_status_t hsaqm_hsa_status_from_errno(int err);

struct hsaqm_hsa_proxy;

/* What hsa_queue_create was asked for, plus hsaqm's settings for the queue. */
struct hsaqm_hsa_proxy_config {
	struct hsaqm_hsa_agent agent;
	uint32_t size;                 /* packets, power of two: the proxy ring's size */
	hsaqm_hsa_queue_type32_t type;
	hsaqm_hsa_queue_callback_fn callback; /* the application's error callback, or NULL */
	void *callback_data;
	uint32_t private_segment_size;
	uint32_t group_segment_size;
	struct hsaqm_xq_config xq;     /* device, priority, level, launch parameters */
};

/**
 * hsaqm_hsa_proxy_create() - create the hardware queue (with rt->queue_create, sized for
 * the proxy ring plus guardians and markers), its gate and marker signals, the proxy
 * queue, and attach it to @ctx.
 * @out: receives the proxy; hsaqm_hsa_proxy_queue() gives the queue to hand the application.
 *
 * The hardware queue has twice the proxy's packets (room for a guardian before every packet
 * and the markers), capped at the agent's maximum queue size: a release that does not fit
 * is refused with -EAGAIN and lib releases fewer. The proxy's size is checked as the runtime
 * checks a queue's: a power of two from the agent's minimum (else -EINVAL) to its maximum
 * (else -ENOMEM, the runtime's OUT_OF_RESOURCES). Lv3 needs a transport in @rt: when the
 * queue asks for Lv3 the KFD queue is looked up here (DBG_TRAP ENABLE the first time), so
 * hsaqm_xq_get_info() says at once why Lv3 is not available; otherwise at the first suspend.
 *
 * Return: 0; -EINVAL for NULL arguments, a size that is not a power of two or below the
 * agent's minimum; -ENOMEM; the runtime's failure as -errno (hsaqm_hsa_errno_from_status())
 * — the tool then returns the runtime's HSA status to the application; the errors of
 * hsaqm_xq_attach().
 */
int hsaqm_hsa_proxy_create(const struct hsaqm_hsa_runtime *rt, struct hsaqm_ctx *ctx,
			   const struct hsaqm_hsa_proxy_config *cfg, struct hsaqm_hsa_proxy **out);

/**
 * hsaqm_hsa_proxy_settle() - bring lib's count of completed packets up to what really
 * completed before statistics are read: report the markers that completed but whose handler
 * has not run yet, and wait (at most @timeout_ns, woken by marker completions) for the markers
 * behind released packets. Work still running when the time is up stays uncounted.
 *
 * Return: 0 when every released packet is counted complete (or the queue cannot say more:
 * detached, failed); -ETIMEDOUT; -EINVAL for a NULL or foreign proxy.
 */
int hsaqm_hsa_proxy_settle(struct hsaqm_hsa_proxy *proxy, uint64_t timeout_ns);

/**
 * hsaqm_hsa_proxy_destroy() - detach from lib (which releases everything held, opens the
 * gate and resumes), wait until the hardware queue has run what was released (a barrier
 * packet behind it completes; at most HSAQM_HSA_DRAIN_TIMEOUT_NS, skipped when the queue is
 * in error), destroy the hardware queue, the gate and doorbell signals and the proxy. NULL
 * is a no-op. Doorbells rung during or after the call are ignored (using a queue while
 * destroying it is the application's bug, as in HSA).
 *
 * Return: 0; -ETIMEDOUT when the drain did not finish in time (the queue is destroyed
 * anyway, work still on it is discarded); the first error of hsaqm_xq_detach(); the
 * runtime's queue-destroy failure as -errno (the proxy is freed anyway).
 */
int hsaqm_hsa_proxy_destroy(struct hsaqm_hsa_proxy *proxy);

/**
 * The amd_queue_t (as an hsa_queue_t) the application uses. Never NULL for a live proxy.
 * It is the start of HSAQM_PROXY_QUEUE_DESC_SIZE bytes (hsaqm-hsa/hsa_abi.h): an amd_queue_v2_t
 * whose first 256 bytes mirror the hardware queue's and whose other bytes are zero, so that
 * a ROCr handed a proxy by mistake reads a NULL queue object and answers
 * HSA_STATUS_ERROR_INVALID_QUEUE.
 */
struct hsaqm_hsa_queue *hsaqm_hsa_proxy_queue(const struct hsaqm_hsa_proxy *proxy);

/**
 * hsaqm_hsa_proxy_refresh() - copy again into the proxy's descriptor the hardware queue's
 * fields the runtime may change over the queue's life: caps, scratch and alternate scratch
 * fields, queue_properties, apertures and limits (everything of the first 256 bytes but
 * the hsa_queue_t head, the dispatch ids and the legacy doorbell words, which are the
 * proxy's own). Word by word with relaxed loads and stores: a client reading a field
 * meanwhile sees its old or its new value. Call after the runtime changed the hardware
 * queue (profiling enabled; a scratch event). NULL is a no-op.
 */
void hsaqm_hsa_proxy_refresh(struct hsaqm_hsa_proxy *proxy);

/**
 * hsaqm_hsa_proxies_stale() - some hardware queue's scratch fields changed (the runtime's
 * scratch events do not say which proxy, and a tool cannot safely look one up from them):
 * every proxy refreshes its descriptor at its next doorbell, before scanning. Thread and
 * async-signal safe (one atomic increment).
 */
void hsaqm_hsa_proxies_stale(void);

/** The hardware queue behind a proxy (for pass-through calls such as CU masks). */
struct hsaqm_hsa_queue *hsaqm_hsa_proxy_hw_queue(const struct hsaqm_hsa_proxy *proxy);

/** The xqueue lib schedules the proxy with. */
struct hsaqm_xq *hsaqm_hsa_proxy_xq(const struct hsaqm_hsa_proxy *proxy);

/**
 * hsaqm_hsa_proxy_from_queue() - the proxy whose application queue is @queue, or NULL when
 * @queue is not a proxy (any other pointer, NULL included, is answered without being read).
 */
struct hsaqm_hsa_proxy *hsaqm_hsa_proxy_from_queue(const struct hsaqm_hsa_queue *queue);

/**
 * hsaqm_hsa_proxy_from_doorbell() - the proxy whose doorbell signal is @signal, or NULL.
 * This runs on every signal store of the process, so it costs a few nanoseconds for a
 * signal that is not a proxy doorbell (a lock-free hash of live doorbell handles).
 */
struct hsaqm_hsa_proxy *hsaqm_hsa_proxy_from_doorbell(struct hsaqm_hsa_signal signal);

/**
 * hsaqm_hsa_proxy_doorbell() - the application stored @value into the proxy doorbell.
 * Scans the proxy ring from the last valid packet seen while headers are valid (the
 * doorbell is a hint: with several producers an earlier packet may still be in writing)
 * and reports the valid end to lib, which may release and preempt inline (the reaction path
 * runs in the caller's thread). @value itself is not kept: a doorbell signal cannot be read
 * (ROCr's refuse loads and waits), so the signal is left as it is. Thread safe: several
 * producers may ring at once. NULL is a no-op.
 */
void hsaqm_hsa_proxy_doorbell(struct hsaqm_hsa_proxy *proxy, hsaqm_hsa_signal_value_t value);

/**
 * hsaqm_hsa_queue_priority() - the xqueue priority of a queue whose HSA priority is @prio in a
 * process of priority @base_priority: HIGH/NORMAL/LOW give @base_priority + @step /
 * @base_priority / @base_priority - @step, clamped to HSAQM_PRIORITY_MIN..MAX.
 * Return: that priority (an unknown @prio counts as NORMAL).
 */
int hsaqm_hsa_queue_priority(int base_priority, int prio, int step);

/**
 * hsaqm_hsa_proxy_set_priority() - the application's hsa_amd_queue_set_priority: passed to
 * the hardware queue and mapped onto the xqueue's priority (hsaqm_hsa_queue_priority()).
 * Return: 0; -EINVAL for NULL or an unknown HSA priority; -EOPNOTSUPP for a runtime without
 * the entry; the runtime's failure as -errno (the xqueue's priority is then unchanged).
 */
int hsaqm_hsa_proxy_set_priority(struct hsaqm_hsa_proxy *proxy, hsaqm_hsa_amd_queue_priority_t prio,
				 int base_priority, int step);

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_HSA_BACKEND_H */
