/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-kfd/kfd_lv3.h - Lv3 decided once: which mid-kernel suspension the KFD offers for a GPU,
 * why, and what would fix it; the two ways of suspending a queue; how a process finds the
 * KFD id of a queue its runtime created without a debugger session; and the per-GPU profile
 * hsa-queue-probe writes for the tool. The HSA backend, the probe's preflight and its Lv3
 * checks all ask hsaqm_kfd_lv3_decide(), so they give the same verdict in the same words.
 *
 * The mechanisms (docs/kfd-ioctl.md, "Lv3 mechanisms"):
 *   DBG_TRAP      SUSPEND_QUEUES / RESUME_QUEUES of the debugger API (interface 1.13+). One
 *                 debugger per process: EALREADY when rocgdb or a profiler holds it; EPERM
 *                 when the runtime did not enable the debugger interface.
 *   UPDATE_QUEUE  percentage 0 deactivates the queue, 100 activates it again, the way ROCr
 *                 suspends its own queues (AqlQueue::Suspend/Resume). No debugger, any
 *                 interface version; needs the queue's KFD id, ring, size and priority.
 * On HWS both unmap every dynamic queue of the device and map the runlist again (amdkfd
 * kfd_device_queue_manager.c: suspend_queues() and update_queue() both go through the
 * dynamic-queue unmap), so they disturb a shared GPU alike.
 *
 * Functions return 0 or a negative errno unless their comment says otherwise.
 */
#ifndef HSAQM_KFD_LV3_H
#define HSAQM_KFD_LV3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hsaqm_kfd;
struct hsaqm_kfd_transport;

/* How a queue is stopped (and, for the probe's profile, the CU-mask change it measures). */
enum hsaqm_kfd_mech {
	HSAQM_KFD_MECH_NONE = 0,         /* no mid-kernel suspension: Lv2 at most */
	HSAQM_KFD_MECH_DBG_TRAP = 1,     /* DBG_TRAP SUSPEND_QUEUES / RESUME_QUEUES */
	HSAQM_KFD_MECH_UPDATE_QUEUE = 2, /* UPDATE_QUEUE percentage 0 / 100 */
	HSAQM_KFD_MECH_CU_MASK = 3,      /* SET_CU_MASK (spatial; never an Lv3 choice) */
};
#define HSAQM_KFD_NMECH 4

/* What a user asks for (HSAQM_LV3_MECHANISM). */
enum hsaqm_kfd_mech_pref {
	HSAQM_KFD_PREF_AUTO = 0,         /* DBG_TRAP, else UPDATE_QUEUE (or the profile's cheaper) */
	HSAQM_KFD_PREF_DBG_TRAP = 1,     /* DBG_TRAP or nothing */
	HSAQM_KFD_PREF_UPDATE_QUEUE = 2, /* UPDATE_QUEUE or nothing */
	HSAQM_KFD_PREF_NONE = 3,         /* no Lv3 */
};

/** hsaqm_kfd_mech_name() - "none", "dbg_trap", "update_queue", "cu_mask"; "?" else. */
const char *hsaqm_kfd_mech_name(enum hsaqm_kfd_mech m);

/**
 * hsaqm_kfd_mech_pref_parse() - "auto", "dbg_trap", "update_queue" or "none".
 * Return: 0 and *@out; -EINVAL for NULL or anything else.
 */
int hsaqm_kfd_mech_pref_parse(const char *text, enum hsaqm_kfd_mech_pref *out);

/** hsaqm_kfd_mech_pref_name() - the text hsaqm_kfd_mech_pref_parse() takes; "?" else. */
const char *hsaqm_kfd_mech_pref_name(enum hsaqm_kfd_mech_pref p);

/* A verdict of the per-GPU profile: measured and supported, measured and not, or unknown. */
enum { HSAQM_KFD_PROFILE_UNKNOWN = -1, HSAQM_KFD_PROFILE_NO = 0, HSAQM_KFD_PROFILE_YES = 1 };

/* What the decision is made from; hsaqm_kfd_lv3_facts_init() sets every field to "unknown". */
struct hsaqm_kfd_lv3_facts {
	int kfd_err;           /* 0: the KFD opened; else why not (-errno): nothing else is known */
	char kfd_path[64];     /* for messages ("/dev/kfd") */
	uint32_t kfd_major, kfd_minor;
	int sched_policy;      /* amdgpu module parameter; -1 unknown */
	int cwsr_enable;       /* -1 unknown */
	bool node_known;       /* the GPU's topology node was read */
	uint32_t node_id;
	uint32_t capability;   /* the node's capability word (kfd_sysfs.h) */
	/* Learned at run time (0: nothing): the refusal of DBG_TRAP ENABLE or SUSPEND_QUEUES,
	 * and of UPDATE_QUEUE. */
	int dbg_err;
	int update_err;
	/* From hsa-queue-probe's profile of this GPU: HSAQM_KFD_PROFILE_*, and what it measured. */
	int8_t profile[HSAQM_KFD_NMECH];
	uint64_t profile_stop_ns[HSAQM_KFD_NMECH];
};

/* One mechanism's verdict for a GPU. */
struct hsaqm_kfd_mech_verdict {
	bool ok;
	char code[32];     /* "ok", or the probe's reason code (docs/probe-report.md) */
	char why[192];     /* a sentence */
	char remedy[192];  /* what would fix it; "" when nothing would */
};

/* The decision. */
struct hsaqm_kfd_lv3 {
	int level;                /* 3: a mechanism is available; 2: none is */
	enum hsaqm_kfd_mech mech; /* DBG_TRAP or UPDATE_QUEUE; NONE with level 2 */
	char reason[256];         /* why this mechanism, or why none (a sentence) */
	struct hsaqm_kfd_mech_verdict each[HSAQM_KFD_NMECH]; /* DBG_TRAP and UPDATE_QUEUE */
};

/** hsaqm_kfd_lv3_facts_init() - every fact unknown, the KFD not tried (kfd_err -ENODEV). */
void hsaqm_kfd_lv3_facts_init(struct hsaqm_kfd_lv3_facts *f);

/**
 * hsaqm_kfd_lv3_facts_read() - the facts of GPU node @node_id: @kfd's interface version,
 * the amdgpu parameters and the node's capability under @sysfs_root.
 * @kfd:     an open handle, or NULL when the KFD did not open (then @kfd_err says why).
 * @node_id: UINT32_MAX when unknown (the node's checks are then left to run time).
 *
 * Return: 0 (missing files leave their facts unknown); -EINVAL for a NULL @f.
 */
int hsaqm_kfd_lv3_facts_read(struct hsaqm_kfd *kfd, int kfd_err, const char *sysfs_root,
			     uint32_t node_id, struct hsaqm_kfd_lv3_facts *f);

/**
 * hsaqm_kfd_lv3_decide() - which mechanism, and why. Each mechanism's prerequisites:
 *   DBG_TRAP: the KFD, interface >= 1.13, sched_policy != 2, cwsr_enable != 0, the node's
 *             TRAP_DEBUG_SUPPORT and TRAP_DEBUG_FIRMWARE_SUPPORTED, no refusal seen (EALREADY:
 *             another debugger; EPERM: the runtime is not enabled), not refused by a profile;
 *   UPDATE_QUEUE: the KFD, cwsr_enable != 0 (without CWSR a deactivation waits for the
 *             running waves: not mid-kernel), no refusal seen, not refused by a profile.
 * @pref AUTO takes DBG_TRAP when it is available, else UPDATE_QUEUE (the reason says why
 * DBG_TRAP was passed over); when a profile measured both, the one with the shorter stop.
 * A preference for one mechanism takes that one or none: a user's choice is not
 * second-guessed (the reason says so).
 *
 * Return: 0; -EINVAL for NULL arguments or an unknown @pref.
 */
int hsaqm_kfd_lv3_decide(const struct hsaqm_kfd_lv3_facts *f, enum hsaqm_kfd_mech_pref pref,
			 struct hsaqm_kfd_lv3 *out);

/* ---- UPDATE_QUEUE suspension --------------------------------------------------------------- */

/**
 * hsaqm_kfd_queue_deactivate() / hsaqm_kfd_queue_activate() - UPDATE_QUEUE with percentage
 * 0 / 100 and the queue's own ring, size and priority, as ROCr suspends and resumes its
 * queues. The KFD saves the running waves (CWSR) when it unmaps the inactive queue and
 * restores them when it maps it again.
 *
 * Return: 0; -EINVAL for a NULL handle, a priority above 15 or a size that is not a power of
 * two; the kernel's errno (-EFAULT no such queue).
 */
int hsaqm_kfd_queue_deactivate(struct hsaqm_kfd *kfd, uint32_t queue_id, uint64_t ring_base,
			       uint32_t ring_size, uint32_t priority);
int hsaqm_kfd_queue_activate(struct hsaqm_kfd *kfd, uint32_t queue_id, uint64_t ring_base,
			     uint32_t ring_size, uint32_t priority);

/* ---- queues of a process, as the KFD's sysfs lists them ------------------------------------ */

/* One queue of <sysfs>/class/kfd/kfd/proc/<pid>/queues/<id>/ (amdkfd kfd_procfs_add_queue). */
struct hsaqm_kfd_proc_queue {
	uint32_t pid;
	uint32_t queue_id;
	uint32_t gpu_id;
	uint32_t type;  /* the KFD's queue type: 0 compute */
	uint64_t size;  /* ring bytes */
};

/**
 * hsaqm_kfd_proc_queues() - every queue the KFD lists in <@tp's sysfs>/class/kfd/kfd/proc,
 * of process @pid (or of every process with @pid < 0). The transport's proc_refresh() runs
 * first (a model writes the tree when asked; the real KFD keeps it current).
 * @out: malloc'ed array (free() it), NULL when *@n is 0.
 *
 * Return: 0; -EINVAL for NULL arguments; -ENOENT when there is no kfd/proc folder (a kernel
 * before 5.9); -ENOMEM.
 */
int hsaqm_kfd_proc_queues(const struct hsaqm_kfd_transport *tp, long pid,
			  struct hsaqm_kfd_proc_queue **out, uint32_t *n);

/**
 * hsaqm_kfd_proc_queue_new() - the KFD id of the queue that appeared between two listings:
 * in @after, not in @before, on @gpu_id with a ring of @size bytes.
 *
 * This is how a process finds the id of a queue its runtime made (ROCr keeps it private)
 * without a debugger session: list before creating, create, list again. It fails safe: two
 * candidates (another thread made a queue of the same size on the same GPU meanwhile) give
 * -EEXIST, never a guess.
 * Return: 0 and *@id; -ENOENT no candidate; -EEXIST more than one; -EINVAL for NULL.
 */
int hsaqm_kfd_proc_queue_new(const struct hsaqm_kfd_proc_queue *before, uint32_t nbefore,
			     const struct hsaqm_kfd_proc_queue *after, uint32_t nafter,
			     uint32_t gpu_id, uint64_t size, uint32_t *id);

/* ---- the per-GPU profile hsa-queue-probe writes ---------------------------------------------- */

#define HSAQM_KFD_PROFILE_MAX_GPUS 16
#define HSAQM_KFD_PROFILE_VERSION 1

/* What the probe found on one GPU, per mechanism (enum hsaqm_kfd_mech; NONE unused). */
struct hsaqm_kfd_profile_gpu {
	uint32_t gpu_id;
	int8_t verdict[HSAQM_KFD_NMECH];      /* HSAQM_KFD_PROFILE_* */
	uint64_t stop_ns[HSAQM_KFD_NMECH];    /* the stop's median (CU mask: until it takes effect) */
	uint64_t restart_ns[HSAQM_KFD_NMECH]; /* the restart's median */
};

struct hsaqm_kfd_profile {
	char source[160]; /* the probe's comment line: version, host, date, model or hardware */
	uint32_t ngpus;
	struct hsaqm_kfd_profile_gpu gpu[HSAQM_KFD_PROFILE_MAX_GPUS];
};

/**
 * hsaqm_kfd_profile_load() - read a profile file ("hsaqm-gpu-profile 1", then one line per
 * GPU and mechanism: "gpu 0x<id> <mechanism> supported|not_supported <stop_ns> <restart_ns>",
 * "#" comments). A bad line is one message naming the file and line (log level error).
 *
 * Return: 0; -EINVAL for NULL; -ENOENT (or another open errno) when the file cannot be read;
 * -EBADMSG for a malformed file; -E2BIG for more GPUs than HSAQM_KFD_PROFILE_MAX_GPUS.
 */
int hsaqm_kfd_profile_load(const char *path, struct hsaqm_kfd_profile *out);

/**
 * hsaqm_kfd_profile_save() - write @p to @path in the format the loader reads.
 * Return: 0; -EINVAL for NULL; -errno of fopen/fprintf/fclose.
 */
int hsaqm_kfd_profile_save(const char *path, const struct hsaqm_kfd_profile *p);

/** hsaqm_kfd_profile_find() - the entry of @gpu_id, or NULL. */
const struct hsaqm_kfd_profile_gpu *hsaqm_kfd_profile_find(const struct hsaqm_kfd_profile *p,
							    uint32_t gpu_id);

/** hsaqm_kfd_lv3_facts_profile() - copy @g's verdicts and stops into @f (NULL @g: no change). */
void hsaqm_kfd_lv3_facts_profile(struct hsaqm_kfd_lv3_facts *f,
				 const struct hsaqm_kfd_profile_gpu *g);

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_KFD_LV3_H */
