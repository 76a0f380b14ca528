/* SPDX-License-Identifier: MIT */
/*
 * tool_internal.h - what the tool library's sources share: its settings from the HSAQM_*
 * environment variables (tool_config.c, also compiled into its tests) and the seam where a
 * node-wide scheduler client will plug in. docs/tool.md.
 */
#ifndef HSAQM_TOOL_INTERNAL_H
#define HSAQM_TOOL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hsaqm-common/barrier.h"
#include "hsaqm-tool/config.h"
#include "hsaqm/hsaqm.h"

struct hsaqm_hsa_proxy;
struct hsaqm_kfd_transport;

/* Named process priorities (HSAQM_PRIORITY); any integer in -100..100 is accepted too. */
#define HSAQM_TOOL_PRIORITY_IDLE (-90)
#define HSAQM_TOOL_PRIORITY_LOW (-50)
#define HSAQM_TOOL_PRIORITY_NORMAL 0
#define HSAQM_TOOL_PRIORITY_HIGH 50
#define HSAQM_TOOL_PRIORITY_REALTIME 90

/* What hsa_amd_queue_set_priority HIGH / LOW add to / take from the process priority. */
#define HSAQM_TOOL_PRIORITY_STEP_DEFAULT 10

/* The level a queue asks for unless HSAQM_LEVEL says otherwise: Lv2 needs nothing of the
 * KFD; Lv3 makes the process "debugged" (DBG_TRAP), which a user must choose. */
#define HSAQM_TOOL_LEVEL_DEFAULT HSAQM_LEVEL_2

#define HSAQM_TOOL_LAUNCH_MAX 65536u

struct hsaqm_tool_config {
	bool disabled;                 /* HSAQM_TOOL_DISABLE: install nothing */
	int priority;                  /* HSAQM_PRIORITY */
	int priority_step;             /* HSAQM_PRIORITY_STEP */
	enum hsaqm_level level;        /* HSAQM_LEVEL */
	uint32_t lv1_threshold;        /* HSAQM_LV1_THRESHOLD (0 = lib's default) */
	uint32_t lv1_batch;            /* HSAQM_LV1_BATCH (0 = lib's default) */
	uint32_t lv2_interval;         /* HSAQM_LV2_INTERVAL (0 = lib's default) */
	struct hsaqm_policy_config policy; /* HSAQM_POLICY, HSAQM_FLOOR */
	char stats_file[4096];         /* HSAQM_STATS_FILE ("" = none) */
	int lv3_mech;                  /* HSAQM_LV3_MECHANISM: enum hsaqm_kfd_mech_pref */
	/*
	 * HSAQM_GPU_PROFILE, else $XDG_CONFIG_HOME/hsaqm/gpu-profile, else
	 * $HOME/.config/hsaqm/gpu-profile: the probe's per-GPU profile. gpu_profile_asked: named
	 * by the variable (a missing file is then said once); a default path may simply be absent.
	 */
	char gpu_profile[4096];
	bool gpu_profile_asked;
	enum hsaqm_spatial spatial;    /* HSAQM_SPATIAL: off, auto, static, dynamic */
	uint32_t spatial_reserve;      /* ... its reserve, permille */
	bool level_asked;              /* HSAQM_LEVEL was given (valid or not) */
	char record[4096];             /* HSAQM_RECORD ("" = not recording) */
	uint32_t record_max_mb;        /* HSAQM_RECORD_MAX_MB */
	unsigned int bad;              /* how many variables were refused (each said once) */
};

/*
 * Read the HSAQM_* variables through @get (getenv, or a test's table). A bad value gets
 * one line on stderr naming the variable, what it accepts and the default it falls back to.
 */
void hsaqm_tool_config_read(struct hsaqm_tool_config *cfg, const char *(*get)(const char *name));

/* hsaqm_tool_parse_priority(), hsaqm_tool_parse_level(): hsaqm-tool/config.h. */
/* HSAQM_SPATIAL's syntax: off, or auto|static|dynamic[:PERMILLE] (1..999). 0 or -EINVAL. */
int hsaqm_tool_parse_spatial(const char *text, enum hsaqm_spatial *mode, uint32_t *reserve);

/* HSAQM_RECORD_MAX_MB: default and bounds (docs/replay.md, "Recording"). */
#define HSAQM_TOOL_RECORD_MAX_MB_DEFAULT 256u
#define HSAQM_TOOL_RECORD_MAX_MB_MAX (1024u * 1024u)

/*
 * Spatial defaults: off (as before spatial existed: the model's W1 light runs worse with
 * dynamic masks, docs/results.md), a quarter of the CUs when a mode is named without one.
 */
#define HSAQM_TOOL_SPATIAL_DEFAULT HSAQM_SPATIAL_OFF
#define HSAQM_TOOL_SPATIAL_RESERVE_DEFAULT 250u

/*
 * The node-wide seam (tool_node.c): the client of hsaqmd (docs/daemon.md). When a daemon
 * listens (HSAQM_DAEMON, else the default sockets), every queue the tool makes is registered
 * with it; the doorbell marks a queue ready, a watcher marks it idle once lib says so; the
 * daemon's PREEMPT holds the queue by hand at its level (hsaqm_xq_suspend), RESUME lets it
 * go; a daemon that dies resumes everything at once and leaves the process to its local
 * scheduling. Without a daemon nothing here is called but the first probe of each second.
 */
struct tool_node_queue; /* tool_node.c */

struct tool_queue {
	struct tool_queue *next;
	struct hsaqm_hsa_proxy *proxy;
	struct hsaqm_xq *xq;
	int hsa_prio; /* hsaqm_hsa_amd_queue_priority_t: what the application asked */
	bool hsa_prio_set; /* hsa_amd_queue_set_priority was called (under the tool's lock) */
	int conflict_once; /* a priority conflict was said (hsaqm_log_notice) */
	uint32_t device;
	struct tool_node_queue *node; /* atomic: the daemon's side, NULL when not registered */
	uint64_t daemon_holds_past; /* atomic: hsaqmd's holds of its registrations that ended */
	int spatial; /* enum hsaqm_spatial last given to the xqueue (lib starts OFF); g.lock */
};

/* The process-wide facts the node client reads from the tool (tool.c). */
struct tool_node_host {
	/* What @tq's HIP priority adds to the process priority (+-HSAQM_PRIORITY_STEP). */
	int (*queue_adjust)(const struct tool_queue *tq);
	/* Whether the process is suspended by hand (hsaqm.suspend()). Atomic read. */
	bool (*process_suspended)(void);
	const struct hsaqm_kfd_transport *kfd; /* for gpu_ids (sysfs), may be NULL */
};

/*
 * Connect when no client is open yet (at most one attempt a second; the caller holds no
 * lock); on success every live queue is registered (through tool_queues_foreach()).
 * Returns 1 when a client is open (connected, or reconnecting by itself), 0 when no daemon.
 */
int tool_node_start(const struct tool_node_host *host, int priority);
/* lib's idle hook for the tool's context: wakes the watcher that tells the daemon. */
void tool_node_idle_hook(void *arg);
/* Leave the daemon (its queues are dropped, whoever they held back resumes) and stop. */
void tool_node_stop(void);
/* Register @tq; when the process is held on that device, hold it before returning (TC3). */
void tool_node_queue_add(struct tool_queue *tq);
/* Unregister @tq: no callback names it after this returns. */
void tool_node_queue_remove(struct tool_queue *tq);
/* How many times hsaqmd held the queue, over all its registrations (kept after they end). */
uint64_t tool_node_queue_holds(const struct tool_queue *tq);
/* The queue's priority changed (HIP stream priority): its adjustment goes to the daemon. */
void tool_node_queue_update(struct tool_queue *tq);
/* The process priority changed. */
void tool_node_priority(int priority);
/* Re-apply @tq's hold after the process was suspended or resumed by hand. */
void tool_node_apply_hold(struct tool_queue *tq);
/*
 * The doorbell of proxy @p rang: mark the queue ready, before lib gets the packets and again
 * (@after) once it took them, unless they already completed. Without a daemon one relaxed
 * load; with one, a lookup and one load while the queue is marked already.
 */
extern uint32_t tool_node_on;
void tool_node_doorbell_proxy(struct hsaqm_hsa_proxy *p, bool after);
static inline void tool_node_doorbell(struct hsaqm_hsa_proxy *p, bool after)
{
	if (__builtin_expect(HSAQM_READ_ONCE(tool_node_on) != 0, 0))
		tool_node_doorbell_proxy(p, after);
}
struct hsaqm_json;
/* The member @key: the daemon connection's object (docs/tool.md), through @j. */
void tool_node_json(struct hsaqm_json *j, const char *key);
/* One queue's "daemon" member (the node client's view of it), when it is registered. */
void tool_node_queue_json(struct hsaqm_json *j, const struct tool_queue *tq);
/* Whether a client is open (the status line says "node-wide scheduling via hsaqmd"). */
bool tool_node_connected(void);

/*
 * The recorder (tool_record.c, docs/replay.md "Recording"): every packet each proxy's doorbell
 * brings, appended to the queue's buffer under the proxy's doorbell lock (no syscall), written
 * in checked blocks by a writer thread every 100 ms. All of it does nothing unless HSAQM_RECORD
 * named a file that could be opened.
 */
/* OnLoad, before tool_record_open: where the runtime's dispatch-time entry is (@root_table). */
struct hsaqm_api_layout;
void tool_record_bind(void *root_table, const struct hsaqm_api_layout *layout);
/* OnLoad: open @cfg->record and write its header. 0, or -errno (said once; not recording). */
int tool_record_open(const struct hsaqm_tool_config *cfg, int priority);
/* A proxy queue was made (@name as the stats say); its packets are recorded from now on. */
void tool_record_queue_add(struct hsaqm_hsa_proxy *p, uint32_t device, const char *name,
			   int priority, int hsa_prio);
/* The queue's xqueue priority or HIP priority changed: later packets carry it. */
void tool_record_queue_priority(struct hsaqm_hsa_proxy *p, int priority, int hsa_prio);
/* The queue is being destroyed: what it recorded is still written. */
void tool_record_queue_remove(struct hsaqm_hsa_proxy *p);
/*
 * The application's thread, holding no runtime lock, the runtime alive (before hsa_shut_down,
 * at exit): the rings drained and the dispatches still waiting for their times polled until
 * they are all timed or REC_FINISH_NS (250 ms) passed, a CLOCK record after them. Waits for the
 * writer at most 500 ms. Recording goes on afterwards.
 */
void tool_record_finish(void);
/*
 * The application's thread, before the runtime destroys @signal (no runtime lock held): when a
 * recorded dispatch may wait on a signal, the writer drains and polls once (times read while
 * the signals are valid) and no longer waits on @signal. Waits for the writer at most 500 ms.
 */
void tool_record_signal_destroy(uint64_t signal);
/* Flush, stop the writer, close (exit, OnUnload). Recording is off afterwards. */
void tool_record_close(void);
/* The doorbell of @p rang: record the packets its scan is about to read (before the scan). */
extern uint32_t tool_record_on;
void tool_record_doorbell_proxy(struct hsaqm_hsa_proxy *p);
/*
 * The recorder's own completion signals per queue (tool_record.c, per-kernel times): this many
 * made with the queue, as many more by the writer each time a doorbell found none free, up to
 * _MAX. A signal comes back once the writer read its dispatch's times, at most 5 ms (its poll)
 * after the dispatch ended; a dispatch that finds none free has no times, counted (the UNTIMED
 * record's unsignalled).
 */
#define TOOL_RECORD_OWN_SIGNALS 512u
#define TOOL_RECORD_OWN_SIGNALS_MAX 16384u

static inline void tool_record_doorbell(struct hsaqm_hsa_proxy *p)
{
	if (__builtin_expect(HSAQM_READ_ONCE(tool_record_on) != 0, 0))
		tool_record_doorbell_proxy(p);
}

/*
 * Kernel names (docs/replay.md "Kernel names"). hsa_executable_t and hsa_executable_symbol_t
 * as ROCr passes them: a struct of one 64-bit handle, by value.
 */
struct tool_hsa_executable {
	uint64_t handle;
};
struct tool_hsa_executable_symbol {
	uint64_t handle;
};
typedef uint32_t (*tool_executable_freeze_fn)(struct tool_hsa_executable exec,
					      const char *options);
/* hsa_shut_down's entry (tool.c wraps it: tool_record_finish() before the runtime's). */
typedef uint32_t (*tool_shut_down_fn)(void);
/*
 * After the application's hsa_executable_freeze succeeded: one KERNEL record per kernel
 * symbol of @exec (its kernel object and name) into the recording. On the application's
 * thread, never the doorbell's; does nothing unless recording.
 */
void tool_record_executable(struct tool_hsa_executable exec);

/* tool.c: call @fn for every live queue under the tool's lock (the node registers them). */
void tool_queues_foreach(void (*fn)(struct tool_queue *tq, void *arg), void *arg);

#endif /* HSAQM_TOOL_INTERNAL_H */
