/* SPDX-License-Identifier: MIT */
/*
 * hsa_backend_internal.h - what the HSA backend's sources share (hsa_runtime.c, proxy.c,
 * hsa_backend.c) and what its tests may reach: the proxy structure, the runtime's private
 * state, and two test hooks. docs/hsa-backend.md explains the design.
 */
#ifndef HSAQM_HSA_BACKEND_INTERNAL_H
#define HSAQM_HSA_BACKEND_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm/backend.h"
#include "hsaqm-hsa/hsa_backend.h"
#include "hsaqm-kfd/kfd_lv3.h"
#include "hsaqm-hsa/ring.h"

struct hsaqm_kfd;

/*
 * Marker signals start here and count down by one per completed marker; 2^62 markers are
 * never reached, so the count never wraps and no value ever needs resetting.
 */
#define HSAQM_HSA_MARKER_START (INT64_C(1) << 62)

/*
 * Lv3 grace period, in units of 1K GPU clocks (0.72 us at the MI308X's 1420 MHz): how long
 * running waves may go on before the CP saves them. 0 = save at once: Lv3 is about latency,
 * and a wave that would have finished within the grace costs one save and one restore
 * (about 2 us of the model's assumed 1 us each) instead of the wait. docs/hsa-backend.md.
 */
#define HSAQM_HSA_LV3_GRACE_UNITS 0u

/* How long destroy waits for the hardware queue to run what was released before it. */
#define HSAQM_HSA_DRAIN_TIMEOUT_NS (5ull * 1000 * 1000 * 1000)

/*
 * A marker signal with its async handler, owned by the runtime and reused by one proxy after
 * another. It is never destroyed while the runtime lives: an async handler may still be
 * about to run on it (see docs/hsa-backend.md, "Markers").
 */
struct hsaqm_hsa_mslot {
	struct hsaqm_hsa_mslot *next;     /* the runtime's list of every slot */
	struct hsaqm_hsa_mslot *next_free; /* free list */
	struct hsaqm_hsa_rt_private *rtp;
	struct hsaqm_hsa_signal signal;
	pthread_mutex_t lock;             /* proxy, reported; held around hsaqm_xq_marker_done() */
	struct hsaqm_hsa_proxy *proxy;    /* the owner, NULL while free or being given back */
	bool retiring;                    /* runtime fini: the handler must not re-arm */
	uint32_t retired;                 /* the handler saw retiring and did not re-arm */
	uint32_t rearm_failed;            /* atomic: re-arming the handler failed (logged once) */
};

/* Per-GPU facts Lv3 needs, read once from the transport's sysfs tree. */
struct hsaqm_hsa_lv3_node {
	uint32_t node_id;
	uint32_t gpu_id;      /* from the topology: the key of the probe's profile */
	bool checked;
	struct hsaqm_kfd_lv3_facts facts;
};

#define HSAQM_HSA_LV3_MAX_NODES 64

/*
 * Producers of completion signals (hsa_dep.c): which queue and packet will fire a signal.
 * 4096 slots (64 KiB per process): a wait finds its producer unless another signal took its
 * slot since, which only makes the wait unattributed (the bound applies). Assumption: enough
 * for the signals a process has in flight at once (HIP keeps a pool of a few hundred).
 */
#define HSAQM_HSA_DEP_SLOTS 4096u

/* A producer: the signal, and (packet index + 1) << HSAQM_HSA_DEP_ID_BITS | lib's queue id. */
#define HSAQM_HSA_DEP_ID_BITS 20u
#define HSAQM_HSA_DEP_ID_MAX ((1u << HSAQM_HSA_DEP_ID_BITS) - 1)

struct hsaqm_hsa_dep_slot {
	uint64_t handle;
	uint64_t packed;
};

/* A released waiting packet of a proxy, kept to tell whether the hardware queue stands at it. */
#define HSAQM_HSA_WAIT_RECS 8u

struct hsaqm_hsa_wait_rec {
	uint64_t hw_index;            /* its slot's index in the hardware queue */
	uint32_t type;                /* HSAQM_AQL_TYPE_* */
	uint32_t used;                /* the record holds a packet */
	union hsaqm_aql_packet pkt;   /* its body as released */
};

/* The runtime's mutable state (struct hsaqm_hsa_runtime is filled once and then read only). */
struct hsaqm_hsa_rt_private {
	const struct hsaqm_hsa_runtime *rt;
	pthread_mutex_t lock; /* the marker pool, the Lv3 state */

	struct hsaqm_hsa_mslot *mslots;
	struct hsaqm_hsa_mslot *mslots_free;

	/* Lv3, per runtime (one KFD per process). */
	bool lv3_checked;          /* the KFD was opened (or tried) */
	int kfd_err;               /* why it did not open */
	struct hsaqm_kfd *kfd;     /* opened by the checks */
	bool dbg_enabled;          /* DBG_TRAP ENABLE done on kfd */
	int dbg_err;               /* DBG_TRAP's refusal, once refused: later queues use the next */
	int update_err;            /* UPDATE_QUEUE's refusal, once refused */
	/*
	 * The user's settings (hsaqm_hsa_runtime_set_lv3), under settings_lock: a leaf lock,
	 * taken under rtp->lock by the decision and alone by the setter (the tool sets them from
	 * OnLoad, under the runtime's init lock, which rtp->lock may not be taken under).
	 */
	pthread_mutex_t settings_lock;
	int pref;                  /* enum hsaqm_kfd_mech_pref */
	bool have_profile;
	struct hsaqm_kfd_profile profile;
	struct hsaqm_hsa_lv3_node nodes[HSAQM_HSA_LV3_MAX_NODES];
	unsigned int nnodes;
	/*
	 * Serialises hardware queue creations of this runtime, so that the queue that appears in
	 * the KFD's sysfs kfd/proc between two listings is the one just made (queue ids without
	 * a debugger, hsaqm_kfd_proc_queue_new).
	 */
	pthread_mutex_t create_lock;
	/* Dependencies: the producers of completion signals (hsa_dep.c). */
	struct hsaqm_hsa_dep_slot producers[HSAQM_HSA_DEP_SLOTS];
};

enum hsaqm_hsa_lv3_state {
	HSAQM_HSA_LV3_UNRESOLVED = 0, /* the KFD queue not looked up yet */
	HSAQM_HSA_LV3_READY = 1,      /* kfd_queue_id known */
	HSAQM_HSA_LV3_REFUSED = 2,    /* lv3_err says why */
};

struct hsaqm_hsa_proxy {
	uint32_t magic;
	const struct hsaqm_hsa_runtime *rt;
	struct hsaqm_hsa_rt_private *rtp;
	struct hsaqm_ctx *ctx;
	struct hsaqm_xq *xq;

	/*
	 * What the application holds: an amd_queue_t at the start of HSAQM_PROXY_QUEUE_DESC_SIZE
	 * bytes (the rest zero: hsaqm-hsa/hsa_abi.h), its ring and its doorbell.
	 */
	struct hsaqm_amd_queue *amd;
	union hsaqm_aql_packet *ring;
	uint32_t size;
	uint32_t mask;
	struct hsaqm_hsa_signal doorbell;
	hsaqm_hsa_queue_callback_fn callback;
	void *callback_data;

	/* The doorbell side: scan_end is how far the ring holds valid packets. */
	pthread_mutex_t db_lock;
	uint64_t desc_gen;  /* under db_lock: the staleness generation last refreshed at */
	bool dead;          /* destroy started: doorbells no longer reach lib */
	bool detached;      /* lib forgot the queue (its context went): pass-through, no xq */
	uint64_t scan_end;  /* under db_lock */

	/* The release side (lib serialises it under its device lock). */
	uint64_t released;  /* proxy packets moved to the hardware ring */
	/* Dependencies (hsa_dep.c): lib's id of this queue; its released waiting packets. */
	uint32_t dep_id;
	uint32_t waits_next;
	struct hsaqm_hsa_wait_rec *waits; /* HSAQM_HSA_WAIT_RECS, allocated at the first wait */

	/* The hardware queue. */
	struct hsaqm_hsa_queue *hwq;
	struct hsaqm_amd_queue *hw_amd;
	struct hsaqm_ring hw_ring;
	uint32_t hw_error;  /* atomic: the status the hardware queue failed with, 0 if none */

	/* Guardians and markers. */
	struct hsaqm_hsa_signal gate;
	union hsaqm_aql_packet guard_pkt;
	union hsaqm_aql_packet marker_pkt;
	struct hsaqm_hsa_mslot *mslot;
	int64_t mk_base;       /* the marker signal's value when this proxy took it */
	uint64_t mk_first_seq; /* lib's sequence number of our first marker (0: none yet) */
	uint64_t mk_written;   /* markers written */
	uint64_t mk_reported;  /* markers reported to lib (under mslot->lock) */
	uint64_t guards_written;

	/* Lv3. */
	int max_level;
	char max_why[128];
	uint32_t gpu_node;
	enum hsaqm_hsa_lv3_state lv3_state;
	int lv3_err;
	uint32_t kfd_queue_id;
	bool suspended;
	enum hsaqm_kfd_mech mech;     /* how this queue is suspended (DBG_TRAP, UPDATE_QUEUE) */
	enum hsaqm_kfd_mech suspended_by;
	char mech_why[192];           /* why that mechanism */
	/* The KFD id the sysfs kfd/proc listing showed appear at creation (no debugger). */
	bool have_sysfs_id;
	uint32_t sysfs_id;
	int sysfs_err;                /* -ENOTSUP: not listed (created below Lv3, or no need) */
	bool sysfs_listing;           /* between _before() and _after(), create_lock held */
	struct hsaqm_kfd_proc_queue *sysfs_before; /* the listing before the creation */
	uint32_t sysfs_nbefore;
	/*
	 * The hardware queue's KFD priority as ROCr set it (UPDATE_QUEUE must pass it again),
	 * and an application priority change that waits while UPDATE_QUEUE holds the queue
	 * (ROCr's set_priority would reactivate it): lv3_lock guards both and `suspended`.
	 */
	pthread_mutex_t lv3_lock;
	uint32_t kfd_priority;
	int pending_prio;             /* hsaqm_hsa_amd_queue_priority_t, -1 none */
	/* Spatial (cu_confine): the mask the queue had before it was confined. */
	bool confined;
	uint32_t saved_mask[32];
	uint32_t saved_words;         /* 0: it had every CU */
	uint64_t n_confine;
	/* Backend operations that succeeded (under lib's device lock; tests and benches read). */
	uint64_t n_gate_close;
	uint64_t n_suspend;
	uint64_t n_resume;
};

#define HSAQM_HSA_PROXY_MAGIC 0x68717078u /* "hqpx" */

/*
 * Take @p's doorbell lock unless destroy has started (p->dead): true with the lock held, false
 * without it. Whoever reaches a proxy from outside (a doorbell, lib's detach) goes through it.
 */
static inline bool hsaqm_hsa_proxy_lock_live(struct hsaqm_hsa_proxy *p)
{
	pthread_mutex_lock(&p->db_lock);
	if (!p->dead)
		return true;
	pthread_mutex_unlock(&p->db_lock);
	return false;
}

/* hsa_runtime.c */
/*
 * One step of a bounded wait on @signal: the runtime's wait for up to @ticks of its clock, or
 * a short sleep when the runtime cannot say its clock's frequency (then ROCr's timeout would
 * be infinite: ROCm 7.x runs a tool's OnUnload after hsa_system_get_info already fails). The
 * caller's loop checks what it waits for and its own deadline.
 */
void hsaqm_hsa_wait_step(const struct hsaqm_hsa_runtime *rt, struct hsaqm_hsa_signal signal,
			 hsaqm_hsa_signal_condition_t cond, hsaqm_hsa_signal_value_t value,
			 uint64_t ticks);
int hsaqm_hsa_mslot_get(struct hsaqm_hsa_rt_private *rtp, struct hsaqm_hsa_proxy *p);
void hsaqm_hsa_mslot_put(struct hsaqm_hsa_rt_private *rtp, struct hsaqm_hsa_mslot *s,
			 bool reusable);
/*
 * Report the markers the slot's signal says completed now, as its async handler would when it
 * runs (it may not have yet): what hsaqm_hsa_proxy_settle() uses before statistics are read.
 */
void hsaqm_hsa_mslot_sync(struct hsaqm_hsa_mslot *s);
/*
 * The side-effect-free Lv3 decision for a GPU node (kfd-ioctl's, with the runtime's
 * preference, profile and what it learned): HSAQM_LEVEL_3, or 2 with @why filled.
 */
int hsaqm_hsa_lv3_check(struct hsaqm_hsa_rt_private *rtp, uint32_t node_id, char *why,
			size_t why_len);
/* The same decision in full (@node_id UINT32_MAX: no node facts). Lock not held. */
void hsaqm_hsa_lv3_decision(struct hsaqm_hsa_rt_private *rtp, uint32_t node_id,
			    struct hsaqm_kfd_lv3 *out);
/*
 * The mechanism of @p and its KFD queue id: DBG_TRAP (ENABLE once per runtime, the id by
 * ring address) or UPDATE_QUEUE (the id from sysfs kfd/proc); a DBG_TRAP refusal moves the
 * runtime on to UPDATE_QUEUE. 0 or -errno (a refusal lib falls back on).
 */
int hsaqm_hsa_lv3_resolve(struct hsaqm_hsa_proxy *p);
/*
 * The runtime has since learned that @p's mechanism is refused (another queue met the
 * refusal: EPERM and EALREADY hold for the whole process): it must be chosen again.
 */
bool hsaqm_hsa_lv3_stale(const struct hsaqm_hsa_proxy *p);
/* A refusal of @p's mechanism (@err): remember it and choose again. 0: retry with p->mech. */
int hsaqm_hsa_lv3_refused(struct hsaqm_hsa_proxy *p, int err);
/*
 * Around the hardware queue's creation (proxy.c): list the KFD's sysfs kfd/proc before and
 * after, under the runtime's create_lock, and keep the id that appeared (p->sysfs_id).
 * Only for a queue created at Lv3 (@lv3) whose mechanism may be UPDATE_QUEUE (the user's
 * preference is not DBG_TRAP alone or none): the listing costs every creation a lock and two
 * directory walks. _after() must follow every _before(), with @created false when the
 * creation failed.
 */
void hsaqm_hsa_lv3_before_create(struct hsaqm_hsa_proxy *p, bool lv3);
void hsaqm_hsa_lv3_after_create(struct hsaqm_hsa_proxy *p, bool created);
/*
 * The application's hsa_amd_queue_set_priority on the hardware queue: at once, or, while
 * UPDATE_QUEUE holds the queue, at the resume (ROCr's set_priority would reactivate it).
 */
int hsaqm_hsa_lv3_set_priority(struct hsaqm_hsa_proxy *p, hsaqm_hsa_amd_queue_priority_t prio);

/* hsa_backend.c */
extern const struct hsaqm_backend_ops hsaqm_hsa_backend_ops;

/*
 * After lib let go of the queue (detached): move the proxy packets up to @end straight to the
 * hardware ring, waiting for room (bounded). db_lock held. 0 or the release error.
 */
int hsaqm_hsa_pass_through(struct hsaqm_hsa_proxy *p, uint64_t end);

/* hsa_agent_info_t (hsa.h) and hsa_amd_agent_info_t (hsa_ext_amd.h) attributes hsaqm reads. */
#define HSAQM_HSA_AGENT_INFO_QUEUE_MIN_SIZE 13u
#define HSAQM_HSA_AGENT_INFO_QUEUE_MAX_SIZE 14u
#define HSAQM_HSA_AGENT_INFO_DEVICE 17u
#define HSAQM_HSA_AGENT_INFO_DRIVER_NODE_ID 0xA004u /* the agent's KFD topology node */
#define HSAQM_HSA_DEVICE_TYPE_GPU 1u

/* proxy.c: a 32-bit attribute of @agent through the runtime, @dflt when it will not say. */
uint32_t hsaqm_hsa_agent_u32(const struct hsaqm_hsa_runtime *rt, struct hsaqm_hsa_agent agent,
			     uint32_t attr, uint32_t dflt);

/* proxy.c: the lookup sets. */
int hsaqm_hsa_lookup_add(struct hsaqm_hsa_proxy *p);
void hsaqm_hsa_lookup_remove(struct hsaqm_hsa_proxy *p);

/*
 * Test hooks (NULL in production). Read with HSAQM_READ_ONCE, so a test may set or clear
 * them (HSAQM_WRITE_ONCE) while queues run; a hook must tolerate calls for any proxy.
 * release_hook: after release() published packets [hw_first, hw_first + n) on the hardware
 * ring (kinds: 0 application packet with its proxy index in @app_index[i], 1 guardian,
 * 2 marker).
 * gate_hook: right after a gate store (closed = true for a close).
 */
enum { HSAQM_HSA_SLOT_APP = 0, HSAQM_HSA_SLOT_GUARD = 1, HSAQM_HSA_SLOT_MARKER = 2 };
extern void (*hsaqm_hsa_release_hook)(struct hsaqm_hsa_proxy *p, uint64_t hw_first, uint32_t n,
				      const uint8_t *kinds, const uint64_t *app_index);
extern void (*hsaqm_hsa_gate_hook)(struct hsaqm_hsa_proxy *p, bool closed);

/* hsa_dep.c: dependencies between queues (docs/hsa-backend.md "Dependencies"). */
/* The packet that fires @signal is packet @upto - 1 of queue @xq_id (a scan saw it). */
void hsaqm_hsa_dep_note(struct hsaqm_hsa_rt_private *rtp, uint64_t signal, uint32_t xq_id,
			uint64_t upto);
/* Who fires @signal, if the table knows: true and *@xq_id, *@upto. */
bool hsaqm_hsa_dep_find(struct hsaqm_hsa_rt_private *rtp, uint64_t signal, uint32_t *xq_id,
			uint64_t *upto);
/* The dependencies of waiting packet @pkt (of @type) that do not hold yet: bit i = dep_signal[i]
 * (bit 0 for a barrier-value packet); 0 when it would not wait. */
uint32_t hsaqm_hsa_dep_pending(const struct hsaqm_hsa_runtime *rt, const union hsaqm_aql_packet *pkt,
			       uint32_t type);
/* The scan found waiting packet @pkt at proxy index @index: tell lib what it waits on. */
void hsaqm_hsa_dep_scan_wait(struct hsaqm_hsa_proxy *p, const union hsaqm_aql_packet *pkt,
			     uint32_t type, uint64_t index);
/* release() put application packet @pkt (header @word) at hardware index @hw_index. */
void hsaqm_hsa_dep_released(struct hsaqm_hsa_proxy *p, const union hsaqm_aql_packet *pkt,
			    uint32_t word, uint64_t hw_index);
/* lib's head_waits(): the hardware queue stands at a released waiting packet not satisfied. */
int hsaqm_hsa_dep_head_waits(struct hsaqm_hsa_proxy *p);

#endif /* HSAQM_HSA_BACKEND_INTERNAL_H */
