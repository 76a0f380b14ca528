/* SPDX-License-Identifier: MIT */
/*
 * libhsaqm-tool.so: the HSA_TOOLS_LIB tool library (design decision 1, docs/tool.md).
 *
 * ROCr loads it inside the first hsa_init and calls OnLoad() with its API table. OnLoad checks
 * the table's layout, saves every entry it replaces (a tool loaded before it is then called
 * through those saved pointers, one loaded after calls it through its own), and installs the
 * wrappers below: hsa_queue_create gives the application a proxy queue (hsa-layer's HSA
 * backend), every function taking a queue maps a proxy to what it stands for, and the signal
 * stores recognise a proxy doorbell and hand the new packets to lib. Nothing else changes.
 *
 * OnLoad runs under ROCr's non-recursive init lock: it never calls hsa_init, HIP, or any table
 * function; the scheduling context is created with the first queue.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hsa_backend_internal.h"
#include "hsaqm-hsa/api_table.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-hsa/hsa_backend.h"
#include "hsaqm/hsaqm.h"
#include "hsaqm-kfd/kfd_lv3.h"
#include "hsaqm-kfd/kfd_transport.h"
#include "hsaqm/process.h"
#include "hsaqm-common/json.h"
#include "hsaqm-common/log.h"
#include "hsaqm-common/stats_json.h"
#include "hsaqm-common/time.h"
#include "tool_internal.h"

#define TOOL_EXPORT __attribute__((visibility("default")))

enum tool_state {
	TOOL_OFF = 0,      /* never loaded, or unloaded */
	TOOL_ACTIVE = 1,   /* wrappers installed, queues are proxied */
	TOOL_INACTIVE = 2, /* loaded, nothing installed (why[] says why) */
};

/* Devices (KFD node ids) whose policy is set once; a higher id is set at each queue. */
#define TOOL_POLICY_DEVICES 256u

/* What the statistics show of a queue: lib's report, and the tool's own members. */
struct tool_queue_view {
	struct hsaqm_xq_report report;
	uint64_t queue_id;
	uint32_t size;
	int hsa_prio;
	uint64_t daemon_holds;
};

/* A destroyed queue's final view, kept for the stats document. */
struct tool_retired {
	struct tool_retired *next;
	struct tool_queue_view view;
};

static struct tool {
	uint32_t state; /* enum tool_state; atomic */
	char why[192];
	struct hsaqm_tool_config cfg;
	void *root;
	struct hsaqm_hsa_runtime rt;
	bool rt_ok;
	/* The table's entries as OnLoad found them: ROCr's, or the previous tool's wrappers. */
	void *next[HSAQM_API_ENTRY_COUNT];
	bool installed[HSAQM_API_ENTRY_COUNT];

	pthread_mutex_t lock; /* everything below */
	struct hsaqm_ctx *ctx;
	int ctx_err;
	struct tool_queue *queues;
	struct tool_retired *retired;
	uint32_t nretired;
	int priority;
	uint32_t suspended; /* atomic (the node client reads it without g.lock) */
	uint64_t created;
	uint64_t passed_through; /* queues left to the runtime (fail open, non-GPU agents) */
	bool stats_written;
	bool atexit_registered;
	uint64_t policy_set[TOOL_POLICY_DEVICES / 64]; /* devices whose policy is set */
	const char *profile_state; /* the GPU profile: "loaded", "absent", "unreadable", "none" */
} g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int fail_open_once, amd_create_once, stats_fail_once, second_table_once,
	spatial_once;

#define NEXT(e, type) ((type)g.next[(e)])

static bool active(void)
{
	/* Acquire: pairs with OnLoad's release, so the saved entries and the runtime are seen. */
	return hsaqm_load_acquire(&g.state) == TOOL_ACTIVE;
}

/* The xqueue priority of a queue: the process priority moved by the HIP stream priority. */
static int queue_priority(int base, int hsa_prio)
{
	return hsaqm_hsa_queue_priority(base, hsa_prio, g.cfg.priority_step);
}

/* ---- Lv3 mechanism and spatial (docs/tool.md, "Lv3 mechanism and spatial") --------------- */

/*
 * Read the probe's GPU profile (HSAQM_GPU_PROFILE or the per-user default) and tell the
 * runtime which Lv3 mechanism the user prefers; the runtime decides per GPU (kfd-ioctl's
 * hsaqm_kfd_lv3_decide()) when a queue of that GPU is made. Without a profile: today's
 * behaviour (DBG_TRAP, else UPDATE_QUEUE). Under ROCr's init lock: reads one file, no table
 * call.
 */
static void lv3_setup(void)
{
	static struct hsaqm_kfd_profile profile; /* copied by the runtime; OnLoad is serial */
	bool have = false;
	int rc;

	g.profile_state = "none";
	if (g.cfg.gpu_profile[0]) {
		rc = hsaqm_kfd_profile_load(g.cfg.gpu_profile, &profile);
		if (!rc) {
			have = true;
			g.profile_state = "loaded";
			hsaqm_log_info("GPU profile %s: %u GPUs (%s)", g.cfg.gpu_profile,
				       profile.ngpus, profile.source);
		} else if (rc == -ENOENT && !g.cfg.gpu_profile_asked) {
			g.profile_state = "absent"; /* the default path: no profile written yet */
		} else {
			g.profile_state = rc == -ENOENT ? "absent" : "unreadable";
			hsaqm_log_notice(NULL, "GPU profile %s: %s: Lv3 is decided without it",
					 g.cfg.gpu_profile, strerror(-rc));
		}
	}
	if (hsaqm_hsa_runtime_set_lv3(&g.rt, g.cfg.lv3_mech, have ? &profile : NULL))
		hsaqm_log_err("the runtime refused Lv3 mechanism %s",
			      hsaqm_kfd_mech_pref_name((enum hsaqm_kfd_mech_pref)g.cfg.lv3_mech));
}

/*
 * g.lock held. The spatial mode of @q at xqueue priority @priority: HSAQM_SPATIAL, where
 * static confines only queues at or below the default priority (the reserve is for the
 * queues raised above it); dynamic and auto confine a queue only while lib holds it.
 * Given to lib only when it changes (a change gives the CUs back and confines again).
 */
static void spatial_apply(struct tool_queue *q, int priority)
{
	enum hsaqm_spatial mode = g.cfg.spatial;
	int rc;

	if (mode == HSAQM_SPATIAL_STATIC && priority > HSAQM_PRIORITY_DEFAULT)
		mode = HSAQM_SPATIAL_OFF;
	if (q->spatial == (int)mode)
		return;
	rc = hsaqm_xq_set_spatial(q->xq, mode, g.cfg.spatial_reserve);
	if (rc)
		hsaqm_log_notice(&spatial_once, "spatial %s:%u not used: %s",
				 hsaqm_spatial_name(mode), g.cfg.spatial_reserve, strerror(-rc));
	q->spatial = rc ? (int)HSAQM_SPATIAL_OFF : (int)mode;
}

/* ---- Statistics -------------------------------------------------------------------------- */

static const char *hsa_priority_name(int prio)
{
	if (prio == HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH)
		return "high";
	if (prio == HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW)
		return "low";
	return "normal";
}

/* @q's view now. Return: 0; lib's error when it has no report of the queue. */
static int queue_view(const struct tool_queue *q, struct tool_queue_view *v)
{
	const struct hsaqm_hsa_queue *hq = hsaqm_hsa_proxy_queue(q->proxy);

	v->queue_id = hq->id;
	v->size = hq->size;
	v->hsa_prio = q->hsa_prio;
	v->daemon_holds = tool_node_queue_holds(q);
	return hsaqm_xq_get_report(q->xq, &v->report);
}

/*
 * One queue's object (docs/tool.md): lib's per-queue members (docs/stats.md), then the
 * tool's; @live, the queue while it exists (NULL once destroyed), adds the node client's view.
 */
static void queue_json(struct hsaqm_json *j, const struct tool_queue_view *v,
		       const struct tool_queue *live)
{
	hsaqm_json_begin_object(j, NULL);
	hsaqm_xq_report_members(j, &v->report);
	hsaqm_json_uint(j, "queue_id", v->queue_id);
	hsaqm_json_uint(j, "size", v->size);
	hsaqm_json_string(j, "hsa_priority", hsa_priority_name(v->hsa_prio));
	hsaqm_json_bool(j, "destroyed", !live);
	hsaqm_json_uint(j, "daemon_holds", v->daemon_holds);
	if (live)
		tool_node_queue_json(j, live);
	hsaqm_json_end_object(j);
}

static void status_line(char *buf, size_t size)
{
	/* Acquire: pairs with OnLoad's and inactive()'s release, so g.why and g.rt are seen. */
	uint32_t st = hsaqm_load_acquire(&g.state);

	if (st == TOOL_ACTIVE)
		snprintf(buf, size, "active: hsaqm %s, table %s, %s, level %s, "
			 "policy %s", hsaqm_version_string(), g.rt.layout.name,
			 tool_node_connected() ? "node-wide scheduling via hsaqmd"
					       : "in-process scheduling",
			 hsaqm_level_name(g.cfg.level), hsaqm_policy_name(g.cfg.policy.kind));
	else if (st == TOOL_INACTIVE)
		snprintf(buf, size, "inactive: %s", g.why);
	else
		snprintf(buf, size, "inactive: unloaded");
}

/* g.lock held. The whole document (docs/tool.md, "Statistics"). */
static int stats_json_locked(char **out)
{
	struct hsaqm_json j;
	char *buf = NULL, line[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -ENOMEM;
	status_line(line, sizeof(line));
	hsaqm_json_init(&j, f);
	hsaqm_json_begin_object(&j, NULL);
	hsaqm_json_string(&j, "hsaqm_version", hsaqm_version_string());
	hsaqm_json_int(&j, "pid", (long long)getpid());
	hsaqm_json_begin_object(&j, "tool");
	/* Acquire: as active(), the state OnLoad published with release. */
	hsaqm_json_bool(&j, "active", hsaqm_load_acquire(&g.state) == TOOL_ACTIVE);
	hsaqm_json_string(&j, "status", line);
	hsaqm_json_string(&j, "table_layout", g.rt_ok ? g.rt.layout.name : "unknown");
	hsaqm_json_int(&j, "priority", g.priority);
	hsaqm_json_int(&j, "priority_step", g.cfg.priority_step);
	hsaqm_json_string(&j, "level", hsaqm_level_name(g.cfg.level));
	hsaqm_json_string(&j, "policy", hsaqm_policy_name(g.cfg.policy.kind));
	hsaqm_json_bool(&j, "suspended", HSAQM_READ_ONCE(g.suspended) != 0);
	hsaqm_json_uint(&j, "queues_created", g.created);
	hsaqm_json_uint(&j, "queues_passed_through", g.passed_through);
	/* The Lv3 preference, the spatial setting and the GPU profile the tool read. */
	hsaqm_json_string(&j, "lv3_mechanism",
			  hsaqm_kfd_mech_pref_name((enum hsaqm_kfd_mech_pref)g.cfg.lv3_mech));
	hsaqm_json_string(&j, "spatial", hsaqm_spatial_name(g.cfg.spatial));
	hsaqm_json_uint(&j, "cu_reserve_permille", g.cfg.spatial_reserve);
	hsaqm_json_begin_object(&j, "gpu_profile");
	hsaqm_json_string(&j, "path", g.cfg.gpu_profile);
	hsaqm_json_string(&j, "state", g.profile_state ? g.profile_state : "none");
	hsaqm_json_end_object(&j);
	tool_node_json(&j, "daemon");
	hsaqm_json_end_object(&j);
	hsaqm_json_begin_array(&j, "queues");
	for (struct tool_queue *q = g.queues; q; q = q->next) {
		struct tool_queue_view v;

		/* Lib knows every queue the tool lists; an empty object would say it did not. */
		if (queue_view(q, &v) == 0) {
			queue_json(&j, &v, q);
		} else {
			hsaqm_json_begin_object(&j, NULL);
			hsaqm_json_end_object(&j);
		}
	}
	for (struct tool_retired *r = g.retired; r; r = r->next)
		queue_json(&j, &r->view, NULL);
	hsaqm_json_end_array(&j);
	hsaqm_json_end_object(&j);
	fputc('\n', f);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	return 0;
}

/* How long writing the stats file waits, in all, for released work to be counted complete. */
#define STATS_SETTLE_NS (200ull * 1000 * 1000)

/* HSAQM_STATS_FILE (hsaqm-run --stats): written once, at OnUnload or at exit. */
static void write_stats_file(void)
{
	char *json = NULL;
	char tmp[4200];
	FILE *f;

	pthread_mutex_lock(&g.lock);
	if (g.stats_written || !g.cfg.stats_file[0]) {
		pthread_mutex_unlock(&g.lock);
		return;
	}
	/*
	 * Work the program saw complete may not be counted yet (its marker's handler has not
	 * run, or the marker behind it is still on its way): settle every queue first, within
	 * STATS_SETTLE_NS in all. g.lock keeps the queues from being destroyed meanwhile.
	 */
	{
		uint64_t deadline = hsaqm_mono_ns() + STATS_SETTLE_NS;

		for (struct tool_queue *q = g.queues; q; q = q->next) {
			uint64_t now = hsaqm_mono_ns();

			hsaqm_hsa_proxy_settle(q->proxy, now < deadline ? deadline - now : 0);
		}
	}
	if (stats_json_locked(&json)) {
		pthread_mutex_unlock(&g.lock);
		return;
	}
	g.stats_written = true;
	pthread_mutex_unlock(&g.lock);
	/* Written beside and renamed: a reader never sees half a document. */
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", g.cfg.stats_file, (long)getpid());
	f = fopen(tmp, "w");
	if (!f || fputs(json, f) < 0 || fclose(f) || rename(tmp, g.cfg.stats_file)) {
		hsaqm_log_notice(&stats_fail_once, "cannot write the stats file %s: %s",
				 g.cfg.stats_file, strerror(errno));
		unlink(tmp);
	}
	free(json);
}

/* ---- The process registry (python/hsaqm.py reaches these through libhsaqm.so) ------------ */

static int reg_set_priority(void *arg, int priority)
{
	(void)arg;
	if (priority < HSAQM_PRIORITY_MIN || priority > HSAQM_PRIORITY_MAX)
		return -EINVAL;
	pthread_mutex_lock(&g.lock);
	g.priority = priority;
	for (struct tool_queue *q = g.queues; q; q = q->next) {
		hsaqm_xq_set_priority(q->xq, queue_priority(priority, q->hsa_prio));
		spatial_apply(q, queue_priority(priority, q->hsa_prio));
		tool_record_queue_priority(q->proxy, queue_priority(priority, q->hsa_prio),
					   q->hsa_prio);
	}
	pthread_mutex_unlock(&g.lock);
	/* Outside g.lock: a round trip to the daemon (when there is one). */
	tool_node_priority(priority);
	return 0;
}

static int reg_get_priority(void *arg, int *priority)
{
	(void)arg;
	pthread_mutex_lock(&g.lock);
	*priority = g.priority;
	pthread_mutex_unlock(&g.lock);
	return 0;
}

/* Hold (or release) every queue; a pass-through queue (level none) cannot be held: skipped. */
static int reg_hold(bool hold)
{
	int rc = 0;

	if (!active())
		return -ENOTSUP;
	pthread_mutex_lock(&g.lock);
	HSAQM_WRITE_ONCE(g.suspended, (uint32_t)hold);
	for (struct tool_queue *q = g.queues; q; q = q->next) {
		int err;

		/*
		 * Acquire: pairs with the node client's release of the queue's registration; its
		 * record is whole.
		 */
		if (hsaqm_load_acquire(&q->node)) {
			/* The daemon may hold it too: resumed only when neither holds it. */
			tool_node_apply_hold(q);
			continue;
		}
		err = hold ? hsaqm_xq_suspend(q->xq) : hsaqm_xq_resume(q->xq);
		if (err && err != -EOPNOTSUPP && !rc)
			rc = err;
	}
	pthread_mutex_unlock(&g.lock);
	return rc;
}

static int reg_suspend(void *arg)
{
	(void)arg;
	return reg_hold(true);
}

static int reg_resume(void *arg)
{
	(void)arg;
	return reg_hold(false);
}

static int reg_stats_json(void *arg, char **json)
{
	int rc;

	(void)arg;
	pthread_mutex_lock(&g.lock);
	rc = stats_json_locked(json);
	pthread_mutex_unlock(&g.lock);
	return rc;
}

static int reg_status(void *arg, char *buf, size_t size)
{
	(void)arg;
	status_line(buf, size);
	return 0;
}

static const struct hsaqm_process_ops reg_ops = {
	.name = "libhsaqm-tool",
	.set_priority = reg_set_priority,
	.get_priority = reg_get_priority,
	.suspend = reg_suspend,
	.resume = reg_resume,
	.stats_json = reg_stats_json,
	.status = reg_status,
};

/* ---- The node-wide scheduler's view of the tool (tool_node.c) ------------------------------ */

/* Lock-free: the node client asks under g.lock (a connection's sweep) and outside it. */
static int host_queue_adjust(const struct tool_queue *tq)
{
	/* The offset queue_priority() adds to the process priority (the step is at most 100). */
	return queue_priority(0, HSAQM_READ_ONCE(tq->hsa_prio));
}

static bool host_process_suspended(void)
{
	return HSAQM_READ_ONCE(g.suspended) != 0;
}

static struct tool_node_host node_host = {
	.queue_adjust = host_queue_adjust,
	.process_suspended = host_process_suspended,
};

void tool_queues_foreach(void (*fn)(struct tool_queue *tq, void *arg), void *arg)
{
	pthread_mutex_lock(&g.lock);
	for (struct tool_queue *q = g.queues; q; q = q->next)
		fn(q, arg);
	pthread_mutex_unlock(&g.lock);
}

/* ---- Queue creation and destruction ------------------------------------------------------ */

/* g.lock held. The context, created with the first queue (never from OnLoad). */
static struct hsaqm_ctx *tool_ctx(void)
{
	if (g.ctx || g.ctx_err)
		return g.ctx;
	g.ctx_err = hsaqm_ctx_create(&g.ctx);
	if (g.ctx_err) {
		g.ctx = NULL;
		return NULL;
	}
	/* Idle queues are reported to hsaqmd when they go idle, not polled (tool_node.c). */
	hsaqm_ctx_set_idle_hook(g.ctx, tool_node_idle_hook, NULL);
	return g.ctx;
}

/*
 * g.lock held, the context made. The configured policy on @device, set when its first queue
 * comes (lib makes devices on demand; setting all 64 possible ones up front said so 64 times).
 */
static void tool_device_policy(uint32_t device)
{
	if (device < TOOL_POLICY_DEVICES) {
		uint64_t bit = 1ull << (device % 64);

		if (g.policy_set[device / 64] & bit)
			return;
		g.policy_set[device / 64] |= bit;
	}
	hsaqm_ctx_set_policy(g.ctx, device, &g.cfg.policy);
}

/*
 * Whether a queue of this agent is one to proxy: a GPU, and a size the runtime would accept
 * (a bad size goes to the runtime, which answers with exactly its own status).
 */
static bool want_proxy(struct hsaqm_hsa_agent agent, uint32_t size, uint32_t *device)
{
	uint32_t qmin, qmax;

	if (hsaqm_hsa_agent_u32(&g.rt, agent, HSAQM_HSA_AGENT_INFO_DEVICE, 0xffffffffu) !=
	    HSAQM_HSA_DEVICE_TYPE_GPU)
		return false;
	qmin = hsaqm_hsa_agent_u32(&g.rt, agent, HSAQM_HSA_AGENT_INFO_QUEUE_MIN_SIZE, 1);
	qmax = hsaqm_hsa_agent_u32(&g.rt, agent, HSAQM_HSA_AGENT_INFO_QUEUE_MAX_SIZE,
				   HSAQM_RING_MAX_SIZE);
	if (!size || (size & (size - 1)) || size < qmin || size > qmax)
		return false;
	*device = hsaqm_hsa_agent_u32(&g.rt, agent, HSAQM_HSA_AGENT_INFO_DRIVER_NODE_ID, 0);
	return true;
}

static hsaqm_hsa_status_t w_queue_create(struct hsaqm_hsa_agent agent, uint32_t size,
					 hsaqm_hsa_queue_type32_t type,
					 hsaqm_hsa_queue_callback_fn callback, void *data,
					 uint32_t private_segment_size, uint32_t group_segment_size,
					 struct hsaqm_hsa_queue **queue)
{
	hsaqm_hsa_queue_create_fn next = NEXT(HSAQM_API_QUEUE_CREATE, hsaqm_hsa_queue_create_fn);
	struct hsaqm_hsa_proxy_config cfg = {
		.agent = agent, .size = size, .type = type, .callback = callback,
		.callback_data = data, .private_segment_size = private_segment_size,
		.group_segment_size = group_segment_size,
	};
	struct hsaqm_hsa_proxy *p = NULL;
	struct tool_queue *tq;
	struct hsaqm_ctx *ctx;
	char name[32];
	uint32_t device = 0;
	uint64_t seq;
	int rc, base;

	if (!active() || !queue || !want_proxy(agent, size, &device))
		goto pass;
	tq = calloc(1, sizeof(*tq));
	if (!tq)
		goto pass;
	/*
	 * g.lock is never held across a runtime call: the runtime's own locks (the model's face
	 * lock) are held while it calls OnLoad, which takes the registry's.
	 */
	pthread_mutex_lock(&g.lock);
	ctx = tool_ctx();
	if (ctx)
		tool_device_policy(device);
	base = g.priority;
	seq = g.created++;
	pthread_mutex_unlock(&g.lock);
	/* After the context (its exit handler must run after the node's): the daemon, if any.
	 * No lock held: a connection is a round trip. */
	if (ctx)
		tool_node_start(&node_host, base);
	if (!ctx) {
		free(tq);
		hsaqm_log_notice(&fail_open_once, "no scheduling context (%s): queues run "
				 "unscheduled", strerror(-g.ctx_err));
		goto pass;
	}
	snprintf(name, sizeof(name), "gpu%u-q%llu", device, (unsigned long long)seq);
	cfg.xq = (struct hsaqm_xq_config){
		.device = device,
		.priority = queue_priority(base, HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL),
		.level = g.cfg.level,
		.lv1_threshold = g.cfg.lv1_threshold,
		.lv1_batch = g.cfg.lv1_batch,
		.lv2_interval = g.cfg.lv2_interval,
		.name = name,
	};
	rc = hsaqm_hsa_proxy_create(&g.rt, ctx, &cfg, &p);
	if (rc) {
		free(tq);
		/* Fail open (decision 5): the application gets the queue it asked for, unscheduled. */
		hsaqm_log_notice(&fail_open_once, "a proxy queue could not be made (%s): such "
				 "queues run unscheduled", strerror(-rc));
		goto pass;
	}
	tq->proxy = p;
	tq->xq = hsaqm_hsa_proxy_xq(p);
	tq->hsa_prio = HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL;
	tq->device = device;
	tq->spatial = HSAQM_SPATIAL_OFF; /* lib's default: nothing to tell it while off */
	pthread_mutex_lock(&g.lock);
	tq->next = g.queues;
	g.queues = tq;
	/* A process-wide change made while the queue was being created applies to it too. */
	if (g.priority != base)
		hsaqm_xq_set_priority(tq->xq, queue_priority(g.priority, tq->hsa_prio));
	spatial_apply(tq, queue_priority(g.priority, tq->hsa_prio));
	if (HSAQM_READ_ONCE(g.suspended))
		hsaqm_xq_suspend(tq->xq);
	/* Recorded (HSAQM_RECORD) before the application has it, so from its first packet. */
	tool_record_queue_add(p, device, name, queue_priority(g.priority, tq->hsa_prio),
			      tq->hsa_prio);
	pthread_mutex_unlock(&g.lock);
	/* Registered (and held, when its process is held on that device: TC3) before the
	 * application has the queue, so before its first packet. */
	tool_node_queue_add(tq);
	*queue = hsaqm_hsa_proxy_queue(p);
	return HSAQM_HSA_STATUS_SUCCESS;

pass:
	if (active()) {
		pthread_mutex_lock(&g.lock);
		g.passed_through++;
		pthread_mutex_unlock(&g.lock);
	}
	return next(agent, size, type, callback, data, private_segment_size, group_segment_size,
		    queue);
}

/* g.lock held: take @p's record out of the list. */
static struct tool_queue *unlink_queue(struct hsaqm_hsa_proxy *p)
{
	for (struct tool_queue **pp = &g.queues; *pp; pp = &(*pp)->next) {
		if ((*pp)->proxy == p) {
			struct tool_queue *q = *pp;

			*pp = q->next;
			return q;
		}
	}
	return NULL;
}

/* Tear one proxy down, keeping its final statistics for the stats document. */
static void destroy_proxy(struct hsaqm_hsa_proxy *p)
{
	struct tool_queue *tq;
	struct tool_retired *r;
	int rc;

	/*
	 * The record kept for the statistics counts what completed: work already released may
	 * not be counted yet (its marker's handler has not run). The destroy drains the queue
	 * anyway, so waiting for it here costs nothing the destroy would not.
	 */
	hsaqm_hsa_proxy_settle(p, STATS_SETTLE_NS);
	pthread_mutex_lock(&g.lock);
	tq = unlink_queue(p);
	if (tq && (r = calloc(1, sizeof(*r)))) {
		if (queue_view(tq, &r->view) == 0) {
			r->next = g.retired;
			g.retired = r;
			g.nretired++;
		} else {
			free(r);
		}
	}
	pthread_mutex_unlock(&g.lock);
	/* Out of the daemon's registry first: no callback acts on the queue being torn down. */
	if (tq)
		tool_node_queue_remove(tq);
	tool_record_queue_remove(p);
	/*
	 * Outside g.lock: the drain waits for the hardware queue. lib lets go of everything held
	 * or gated first (decision 4), so no gate stays closed and nothing is lost.
	 */
	rc = hsaqm_hsa_proxy_destroy(p);
	if (rc)
		hsaqm_log_warn("queue destroy: %s (the queue is gone all the same)", strerror(-rc));
	free(tq);
}

static hsaqm_hsa_status_t w_queue_destroy(struct hsaqm_hsa_queue *queue)
{
	struct hsaqm_hsa_proxy *p = hsaqm_hsa_proxy_from_queue(queue);

	if (!p)
		return NEXT(HSAQM_API_QUEUE_DESTROY, hsaqm_hsa_queue_destroy_fn)(queue);
	destroy_proxy(p);
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t w_queue_inactivate(struct hsaqm_hsa_queue *queue)
{
	struct hsaqm_hsa_proxy *p = hsaqm_hsa_proxy_from_queue(queue);

	return NEXT(HSAQM_API_QUEUE_INACTIVATE, hsaqm_hsa_queue_inactivate_fn)(
		p ? hsaqm_hsa_proxy_hw_queue(p) : queue);
}

/*
 * hsa_amd_queue_create (descriptor-based, development ROCr only): its descriptor's layout is
 * not in any release hsaqm could read, so such queues are passed through unscheduled, and
 * the process is told once.
 */
static hsaqm_hsa_status_t w_amd_queue_create(struct hsaqm_hsa_agent agent,
					     struct hsaqm_hsa_amd_queue_create_desc *descs,
					     uint32_t num_descs)
{
	hsaqm_log_notice(&amd_create_once, "queues made with hsa_amd_queue_create run "
			 "unscheduled (its descriptor is not supported yet)");
	return NEXT(HSAQM_API_AMD_QUEUE_CREATE, hsaqm_hsa_amd_queue_create_fn)(agent, descs,
									      num_descs);
}

/* ---- The index functions: a proxy's indices are its own amd_queue_t's ------------------- */

static struct hsaqm_amd_queue *proxy_amd(const struct hsaqm_hsa_queue *q)
{
	return (struct hsaqm_amd_queue *)(uintptr_t)q;
}

#define W_LOAD(fn, entry, field, load)                                                 \
	static uint64_t fn(const struct hsaqm_hsa_queue *q)                            \
	{                                                                              \
		if (hsaqm_hsa_proxy_from_queue(q))                                     \
			return load(&proxy_amd(q)->field);                             \
		return NEXT(entry, hsaqm_hsa_queue_load_index_fn)(q);                  \
	}

/* Acquire loads pair with the release stores of the other side (backend or producers). */
W_LOAD(w_load_read_scacquire, HSAQM_API_QUEUE_LOAD_READ_INDEX_SCACQUIRE, read_dispatch_id,
       hsaqm_load_acquire)
W_LOAD(w_load_read_relaxed, HSAQM_API_QUEUE_LOAD_READ_INDEX_RELAXED, read_dispatch_id,
       hsaqm_load_relaxed)
W_LOAD(w_load_write_scacquire, HSAQM_API_QUEUE_LOAD_WRITE_INDEX_SCACQUIRE, write_dispatch_id,
       hsaqm_load_acquire)
W_LOAD(w_load_write_relaxed, HSAQM_API_QUEUE_LOAD_WRITE_INDEX_RELAXED, write_dispatch_id,
       hsaqm_load_relaxed)

#define W_STORE(fn, entry, field, store)                                               \
	static void fn(const struct hsaqm_hsa_queue *q, uint64_t v)                    \
	{                                                                              \
		if (hsaqm_hsa_proxy_from_queue(q))                                     \
			store(&proxy_amd(q)->field, v);                                \
		else                                                                   \
			NEXT(entry, hsaqm_hsa_queue_store_index_fn)(q, v);             \
	}

/* Release stores pair with the acquire loads of the reader of that index. */
W_STORE(w_store_write_relaxed, HSAQM_API_QUEUE_STORE_WRITE_INDEX_RELAXED, write_dispatch_id,
	hsaqm_store_relaxed)
W_STORE(w_store_write_screlease, HSAQM_API_QUEUE_STORE_WRITE_INDEX_SCRELEASE, write_dispatch_id,
	hsaqm_store_release)
W_STORE(w_store_read_relaxed, HSAQM_API_QUEUE_STORE_READ_INDEX_RELAXED, read_dispatch_id,
	hsaqm_store_relaxed)
W_STORE(w_store_read_screlease, HSAQM_API_QUEUE_STORE_READ_INDEX_SCRELEASE, read_dispatch_id,
	hsaqm_store_release)

/*
 * CAS and add: every memory-order variant is done acq_rel, the strongest of the four, which
 * satisfies each (barrier.h has one CAS and one fetch-add, both acq_rel): it orders the
 * producer's reservation against its later slot writes and against other producers'.
 */
#define W_CAS(fn, entry)                                                               \
	static uint64_t fn(const struct hsaqm_hsa_queue *q, uint64_t expected, uint64_t v) \
	{                                                                              \
		if (hsaqm_hsa_proxy_from_queue(q)) {                                   \
			uint64_t e = expected;                                         \
			hsaqm_cas(&proxy_amd(q)->write_dispatch_id, &e, v);            \
			return e;                                                      \
		}                                                                      \
		return NEXT(entry, hsaqm_hsa_queue_cas_index_fn)(q, expected, v);      \
	}

W_CAS(w_cas_write_scacq_screl, HSAQM_API_QUEUE_CAS_WRITE_INDEX_SCACQ_SCREL)
W_CAS(w_cas_write_scacquire, HSAQM_API_QUEUE_CAS_WRITE_INDEX_SCACQUIRE)
W_CAS(w_cas_write_relaxed, HSAQM_API_QUEUE_CAS_WRITE_INDEX_RELAXED)
W_CAS(w_cas_write_screlease, HSAQM_API_QUEUE_CAS_WRITE_INDEX_SCRELEASE)

/* hsa_queue_add_write_index_*: on a proxy, the write index is the proxy's (acq_rel RMW, as
 * ROCr's for every memory order: producers reserve slots against each other with it). */
#define W_ADD(fn, entry)                                                               \
	static uint64_t fn(const struct hsaqm_hsa_queue *q, uint64_t v)                \
	{                                                                              \
		if (hsaqm_hsa_proxy_from_queue(q))                                     \
			return hsaqm_fetch_add(&proxy_amd(q)->write_dispatch_id, v);   \
		return NEXT(entry, hsaqm_hsa_queue_add_index_fn)(q, v);                \
	}

W_ADD(w_add_write_scacq_screl, HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCACQ_SCREL)
W_ADD(w_add_write_scacquire, HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCACQUIRE)
W_ADD(w_add_write_relaxed, HSAQM_API_QUEUE_ADD_WRITE_INDEX_RELAXED)
W_ADD(w_add_write_screlease, HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCRELEASE)

/* ---- Signal stores: the doorbell ----------------------------------------------------------
 *
 * ROCr's doorbell signals accept only stores (the other operations are refused on them), so
 * the stores are the only way a proxy doorbell is rung. On any other signal the check is one
 * lock-free probe of the doorbell set (bench_tool measures it).
 */
#define W_SIGNAL_STORE(fn, entry)                                                      \
	static void fn(struct hsaqm_hsa_signal s, hsaqm_hsa_signal_value_t v)          \
	{                                                                              \
		struct hsaqm_hsa_proxy *p = hsaqm_hsa_proxy_from_doorbell(s);          \
		if (__builtin_expect(p == NULL, 1))                                    \
			NEXT(entry, hsaqm_hsa_signal_store_fn)(s, v);                  \
		else {                                                                 \
			/* The recorder reads what the scan is about to take. */       \
			tool_record_doorbell(p);                                       \
			/* Before: the daemon hears at once; after: lib's answer stands. */ \
			tool_node_doorbell(p, false);                                  \
			hsaqm_hsa_proxy_doorbell(p, v);                                \
			tool_node_doorbell(p, true);                                   \
		}                                                                      \
	}

W_SIGNAL_STORE(w_signal_store_relaxed, HSAQM_API_SIGNAL_STORE_RELAXED)
W_SIGNAL_STORE(w_signal_store_screlease, HSAQM_API_SIGNAL_STORE_SCRELEASE)
W_SIGNAL_STORE(w_signal_silent_store_relaxed, HSAQM_API_SIGNAL_SILENT_STORE_RELAXED)
W_SIGNAL_STORE(w_signal_silent_store_screlease, HSAQM_API_SIGNAL_SILENT_STORE_SCRELEASE)

/* ---- The AMD queue extensions ------------------------------------------------------------ */

/* How long a priority change waits for completed work to be counted before calling it busy. */
#define PRIORITY_SETTLE_NS (2ull * 1000 * 1000)

/*
 * A second priority for a queue that already had one, or a new one while it holds work:
 * streams of different priority sharing this HSA queue (HIP with GPU_MAX_HW_QUEUES=1), or a
 * program moving a busy queue. An xqueue has one priority, so all its work runs at the last
 * one asked for: counted in the stats and said once per queue on stderr, whatever HSAQM_LOG
 * says (as design decision 5's notices: the program does not get what it asked for, and the
 * person must be able to see it; a log level would hide it by default).
 */
static void priority_conflict_check(struct tool_queue *tq, int prio, bool was_set)
{
	int old = HSAQM_READ_ONCE(tq->hsa_prio);
	struct hsaqm_xq_stats st;
	struct hsaqm_xq_info info;
	bool busy = false;

	if (prio == old)
		return;
	if (hsaqm_xq_get_stats(tq->xq, &st) == 0 && st.submitted > st.completed) {
		/* Completed work may not be counted yet (its marker's handler): settle briefly. */
		hsaqm_hsa_proxy_settle(tq->proxy, PRIORITY_SETTLE_NS);
		busy = hsaqm_xq_get_stats(tq->xq, &st) == 0 && st.submitted > st.completed;
	}
	if (!busy && !was_set)
		return;
	hsaqm_xq_count_priority_conflict(tq->xq);
	if (hsaqm_xq_get_info(tq->xq, &info))
		snprintf(info.name, sizeof(info.name), "?");
	hsaqm_log_notice(&tq->conflict_once,
			 "queue %s (HSA queue %llu): priority %s asked for while it %s %s: "
			 "streams of different priority share this queue, and hsaqm schedules a "
			 "queue at one priority, so all its work now runs %s (counted in the stats: "
			 "priority_conflicts)",
			 info.name,
			 (unsigned long long)hsaqm_hsa_proxy_queue(tq->proxy)->id,
			 hsa_priority_name(prio), busy ? "held work of priority" : "had priority",
			 hsa_priority_name(old), hsa_priority_name(prio));
}

static hsaqm_hsa_status_t w_set_priority(struct hsaqm_hsa_queue *queue,
					 hsaqm_hsa_amd_queue_priority_t prio)
{
	struct hsaqm_hsa_proxy *p = hsaqm_hsa_proxy_from_queue(queue);
	struct tool_queue *tq = NULL;
	bool was_set = false;
	int rc, base;

	if (!p)
		return NEXT(HSAQM_API_AMD_QUEUE_SET_PRIORITY,
			    hsaqm_hsa_amd_queue_set_priority_fn)(queue, prio);
	if (prio > HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	/* The queue cannot be destroyed meanwhile: the application is using it here. */
	pthread_mutex_lock(&g.lock);
	base = g.priority;
	for (struct tool_queue *q = g.queues; q; q = q->next)
		if (q->proxy == p)
			tq = q;
	if (tq)
		was_set = tq->hsa_prio_set;
	pthread_mutex_unlock(&g.lock);
	if (tq)
		priority_conflict_check(tq, (int)prio, was_set);
	/* The real queue gets it too (hardware arbitration), then the xqueue; no lock held. */
	rc = hsaqm_hsa_proxy_set_priority(p, prio, base, g.cfg.priority_step);
	if (!rc && tq) {
		pthread_mutex_lock(&g.lock);
		for (struct tool_queue *q = g.queues; q; q = q->next) {
			if (q->proxy != p)
				continue;
			HSAQM_WRITE_ONCE(q->hsa_prio, (int)prio);
			q->hsa_prio_set = true;
			/* The process priority changed meanwhile: this queue follows it. */
			if (g.priority != base)
				hsaqm_xq_set_priority(q->xq, queue_priority(g.priority, prio));
			spatial_apply(q, queue_priority(g.priority, prio));
			tool_record_queue_priority(p, queue_priority(g.priority, prio), (int)prio);
		}
		pthread_mutex_unlock(&g.lock);
		/* The daemon learns the queue's new adjustment (a round trip, no lock held). */
		tool_node_queue_update(tq);
	}
	return rc ? hsaqm_hsa_status_from_errno(rc) : HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t w_cu_set_mask(const struct hsaqm_hsa_queue *queue, uint32_t count,
					const uint32_t *mask)
{
	struct hsaqm_hsa_proxy *p = hsaqm_hsa_proxy_from_queue(queue);

	return NEXT(HSAQM_API_AMD_QUEUE_CU_SET_MASK, hsaqm_hsa_amd_queue_cu_set_mask_fn)(
		p ? hsaqm_hsa_proxy_hw_queue(p) : queue, count, mask);
}

static hsaqm_hsa_status_t w_cu_get_mask(const struct hsaqm_hsa_queue *queue, uint32_t count,
					uint32_t *mask)
{
	struct hsaqm_hsa_proxy *p = hsaqm_hsa_proxy_from_queue(queue);

	return NEXT(HSAQM_API_AMD_QUEUE_CU_GET_MASK, hsaqm_hsa_amd_queue_cu_get_mask_fn)(
		p ? hsaqm_hsa_proxy_hw_queue(p) : queue, count, mask);
}

static hsaqm_hsa_status_t w_profiling_enable(struct hsaqm_hsa_queue *queue, int enable)
{
	struct hsaqm_hsa_proxy *p = hsaqm_hsa_proxy_from_queue(queue);
	hsaqm_hsa_status_t st;

	st = NEXT(HSAQM_API_AMD_PROFILING_SET_PROFILER_ENABLED,
		  hsaqm_hsa_amd_profiling_enable_fn)(p ? hsaqm_hsa_proxy_hw_queue(p) : queue,
						     enable);
	/* The runtime records profiling in the queue's properties: the proxy mirrors them. */
	if (p && st == HSAQM_HSA_STATUS_SUCCESS)
		hsaqm_hsa_proxy_refresh(p);
	return st;
}

/*
 * Every executable an application can dispatch from is frozen through the table after OnLoad
 * (OnLoad runs inside the first hsa_init, and no executable exists before it): the recorder
 * learns its kernels' names here, once per executable, off the doorbell path.
 */
static hsaqm_hsa_status_t w_executable_freeze(struct tool_hsa_executable exec,
					      const char *options)
{
	hsaqm_hsa_status_t st = NEXT(HSAQM_API_EXECUTABLE_FREEZE,
				     tool_executable_freeze_fn)(exec, options);

	if (st == HSAQM_HSA_STATUS_SUCCESS)
		tool_record_executable(exec);
	return st;
}

/*
 * hsa_shut_down: the last one runs OnUnload under the runtime's lock, where the recorder can no
 * longer wait for its writer inside the runtime (tool_record.c): the last dispatches' times are
 * read here first, on the application's thread, while the runtime is whole. An earlier one
 * (a library's hsa_init / hsa_shut_down pair) costs a poll: the recording goes on.
 */
static hsaqm_hsa_status_t w_shut_down(void)
{
	tool_record_finish();
	return NEXT(HSAQM_API_HSA_SHUT_DOWN, tool_shut_down_fn)();
}

/*
 * hsa_signal_destroy: a recorded dispatch's signal is read before the runtime frees it (ROCclr
 * destroys a stream's signals at hipStreamDestroy, right after its last synchronisation; a
 * debug ROCr asserts on a load of a destroyed signal, a release one reads freed memory).
 */
static hsaqm_hsa_status_t w_signal_destroy(struct hsaqm_hsa_signal signal)
{
	tool_record_signal_destroy(signal.handle);
	return NEXT(HSAQM_API_SIGNAL_DESTROY, hsaqm_hsa_signal_destroy_fn)(signal);
}

static hsaqm_hsa_status_t w_intercept_register(struct hsaqm_hsa_queue *queue,
					       hsaqm_hsa_amd_queue_intercept_handler cb,
					       void *data)
{
	struct hsaqm_hsa_proxy *p = hsaqm_hsa_proxy_from_queue(queue);

	/* A proxy of an intercept queue (made by a tool loaded before) registers on it. */
	return NEXT(HSAQM_API_AMD_QUEUE_INTERCEPT_REGISTER,
		    hsaqm_hsa_amd_queue_intercept_register_fn)(
		p ? hsaqm_hsa_proxy_hw_queue(p) : queue, cb, data);
}

static hsaqm_hsa_status_t w_queue_get_info(struct hsaqm_hsa_queue *queue,
					   hsaqm_hsa_amd_queue_info_attribute_t attr, void *value)
{
	struct hsaqm_hsa_proxy *p = hsaqm_hsa_proxy_from_queue(queue);

	return NEXT(HSAQM_API_AMD_QUEUE_GET_INFO, hsaqm_hsa_amd_queue_get_info_fn)(
		p ? hsaqm_hsa_proxy_hw_queue(p) : queue, attr, value);
}

/* ---- Scratch events (ToolsApiTable, ROCm >= 6.1) ---------------------------------------------
 *
 * ROCr calls these after it changed a hardware queue's scratch (grown on demand, freed,
 * reclaimed), with the hardware queue in the record. They may run on any thread, while that
 * queue's proxy is being destroyed, so nothing is looked up: every proxy mirrors its hardware
 * queue again at its next doorbell. Entries a tool loaded before hsaqm set are called next.
 */
#define W_TOOL_EVENT(fn, entry)                                                        \
	static hsaqm_hsa_status_t fn(hsaqm_hsa_amd_tool_event_t ev)                    \
	{                                                                              \
		hsaqm_hsa_amd_tool_event_fn next =                                     \
			NEXT(entry, hsaqm_hsa_amd_tool_event_fn);                      \
		if (active())                                                          \
			hsaqm_hsa_proxies_stale();                                     \
		return next ? next(ev) : HSAQM_HSA_STATUS_SUCCESS;                     \
	}

W_TOOL_EVENT(w_scratch_alloc_end, HSAQM_API_TOOLS_SCRATCH_ALLOC_END)
W_TOOL_EVENT(w_scratch_free_end, HSAQM_API_TOOLS_SCRATCH_FREE_END)
W_TOOL_EVENT(w_scratch_async_reclaim_end, HSAQM_API_TOOLS_SCRATCH_ASYNC_RECLAIM_END)

/* ---- Installation ------------------------------------------------------------------------ */

#define FN(f) ((void *)(uintptr_t)(f))

static const struct {
	enum hsaqm_api_entry entry;
	void *wrapper;
	bool required; /* without it the tool cannot keep proxies coherent: install nothing */
} wrappers[] = {
	{ HSAQM_API_QUEUE_CREATE, FN(w_queue_create), true },
	{ HSAQM_API_QUEUE_DESTROY, FN(w_queue_destroy), true },
	{ HSAQM_API_QUEUE_INACTIVATE, FN(w_queue_inactivate), true },
	{ HSAQM_API_QUEUE_LOAD_READ_INDEX_SCACQUIRE, FN(w_load_read_scacquire), true },
	{ HSAQM_API_QUEUE_LOAD_READ_INDEX_RELAXED, FN(w_load_read_relaxed), true },
	{ HSAQM_API_QUEUE_LOAD_WRITE_INDEX_SCACQUIRE, FN(w_load_write_scacquire), true },
	{ HSAQM_API_QUEUE_LOAD_WRITE_INDEX_RELAXED, FN(w_load_write_relaxed), true },
	{ HSAQM_API_QUEUE_STORE_WRITE_INDEX_RELAXED, FN(w_store_write_relaxed), true },
	{ HSAQM_API_QUEUE_STORE_WRITE_INDEX_SCRELEASE, FN(w_store_write_screlease), true },
	{ HSAQM_API_QUEUE_CAS_WRITE_INDEX_SCACQ_SCREL, FN(w_cas_write_scacq_screl), true },
	{ HSAQM_API_QUEUE_CAS_WRITE_INDEX_SCACQUIRE, FN(w_cas_write_scacquire), true },
	{ HSAQM_API_QUEUE_CAS_WRITE_INDEX_RELAXED, FN(w_cas_write_relaxed), true },
	{ HSAQM_API_QUEUE_CAS_WRITE_INDEX_SCRELEASE, FN(w_cas_write_screlease), true },
	{ HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCACQ_SCREL, FN(w_add_write_scacq_screl), true },
	{ HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCACQUIRE, FN(w_add_write_scacquire), true },
	{ HSAQM_API_QUEUE_ADD_WRITE_INDEX_RELAXED, FN(w_add_write_relaxed), true },
	{ HSAQM_API_QUEUE_ADD_WRITE_INDEX_SCRELEASE, FN(w_add_write_screlease), true },
	{ HSAQM_API_QUEUE_STORE_READ_INDEX_RELAXED, FN(w_store_read_relaxed), true },
	{ HSAQM_API_QUEUE_STORE_READ_INDEX_SCRELEASE, FN(w_store_read_screlease), true },
	{ HSAQM_API_SIGNAL_STORE_RELAXED, FN(w_signal_store_relaxed), true },
	{ HSAQM_API_SIGNAL_STORE_SCRELEASE, FN(w_signal_store_screlease), true },
	{ HSAQM_API_SIGNAL_SILENT_STORE_RELAXED, FN(w_signal_silent_store_relaxed), false },
	{ HSAQM_API_SIGNAL_SILENT_STORE_SCRELEASE, FN(w_signal_silent_store_screlease), false },
	{ HSAQM_API_AMD_QUEUE_SET_PRIORITY, FN(w_set_priority), false },
	{ HSAQM_API_AMD_QUEUE_CU_SET_MASK, FN(w_cu_set_mask), false },
	{ HSAQM_API_AMD_QUEUE_CU_GET_MASK, FN(w_cu_get_mask), false },
	{ HSAQM_API_AMD_PROFILING_SET_PROFILER_ENABLED, FN(w_profiling_enable), false },
	{ HSAQM_API_EXECUTABLE_FREEZE, FN(w_executable_freeze), false },
	{ HSAQM_API_HSA_SHUT_DOWN, FN(w_shut_down), false },
	{ HSAQM_API_SIGNAL_DESTROY, FN(w_signal_destroy), false },
	{ HSAQM_API_AMD_QUEUE_INTERCEPT_REGISTER, FN(w_intercept_register), false },
	{ HSAQM_API_AMD_QUEUE_GET_INFO, FN(w_queue_get_info), false },
	{ HSAQM_API_AMD_QUEUE_CREATE, FN(w_amd_queue_create), false },
	{ HSAQM_API_TOOLS_SCRATCH_ALLOC_END, FN(w_scratch_alloc_end), false },
	{ HSAQM_API_TOOLS_SCRATCH_FREE_END, FN(w_scratch_free_end), false },
	{ HSAQM_API_TOOLS_SCRATCH_ASYNC_RECLAIM_END, FN(w_scratch_async_reclaim_end), false },
};

#define NWRAPPERS (sizeof(wrappers) / sizeof(wrappers[0]))

static void inactive(const char *why, const char *what)
{
	snprintf(g.why, sizeof(g.why), "%s%s", why, what);
	/*
	 * Release: why[] above is visible to whoever reads the state with acquire (the status
	 * line).
	 */
	hsaqm_store_release(&g.state, (uint32_t)TOOL_INACTIVE);
}

static void tool_atexit(void)
{
	/*
	 * lib's own exit path has let go of every queue already (it registered later). A HIP
	 * program reaches here before HIP's static destructor calls hsa_shut_down (registered
	 * before this, at HIP's load): the runtime is whole, so the last times are read now.
	 */
	tool_record_finish();
	write_stats_file();
	tool_record_close(); /* the last records, to the file */
}

static const char *env_get(const char *name)
{
	return getenv(name);
}

/*
 * @runtime_version: the root table's major (ROCr passes hsa_api.version.major_id).
 * @failed_tool_count, @failed_tool_names: tools ROCr could not load before this one.
 * Returns true: hsaqm stays loaded, active or (unknown layout, disabled) inert and saying why.
 */
TOOL_EXPORT bool OnLoad(void *table, uint64_t runtime_version, uint64_t failed_tool_count,
			const char *const *failed_tool_names);
TOOL_EXPORT void OnUnload(void);

TOOL_EXPORT bool OnLoad(void *table, uint64_t runtime_version, uint64_t failed_tool_count,
			const char *const *failed_tool_names)
{
	void **slots[HSAQM_API_ENTRY_COUNT] = { 0 };
	struct hsaqm_api_layout layout;
	int rc;

	/* Acquire: pairs with the release of the state by an earlier OnLoad or OnUnload. */
	if (hsaqm_load_acquire(&g.state) != TOOL_OFF) {
		/*
		 * Loaded already. The same table: nothing to do, and it is scheduled (or inert for
		 * the reason the status gives). Another table (a second runtime in the process,
		 * which ROCr never makes): left alone, said once. true either way: false would make
		 * ROCr report hsaqm as a tool that failed to load, while it is working.
		 */
		if (table == g.root)
			hsaqm_log_info("OnLoad again with the table hsaqm already wraps: nothing to do");
		else
			hsaqm_log_notice(&second_table_once, "OnLoad with a second HSA API table: "
					 "that table is left unscheduled; the first stays as it is");
		return true;
	}
	for (uint64_t i = 0; i < failed_tool_count && failed_tool_names; i++)
		hsaqm_log_info("tool not loaded before hsaqm: %s",
			       failed_tool_names[i] ? failed_tool_names[i] : "?");
	memset(g.next, 0, sizeof(g.next));
	memset(g.installed, 0, sizeof(g.installed));
	g.root = table;
	g.rt_ok = false;
	g.ctx = NULL;
	g.ctx_err = 0;
	g.stats_written = false;
	memset(g.policy_set, 0, sizeof(g.policy_set));
	g.profile_state = "none";
	hsaqm_tool_config_read(&g.cfg, env_get);
	node_host.kfd = hsaqm_kfd_transport_default();
	g.priority = g.cfg.priority;
	HSAQM_WRITE_ONCE(g.suspended, 0u);
	if (!g.atexit_registered && atexit(tool_atexit) == 0)
		g.atexit_registered = true;

	/* A priority a program set before the runtime started (python/hsaqm.py) wins. */
	{
		int pending;

		if (hsaqm_process_get_priority(&pending) == 0)
			g.priority = pending;
	}
	/*
	 * Registered in every case, so that a program can ask why it is not active. Under the
	 * runtime's init lock: the registry takes only its own (leaf) lock here.
	 */
	if (hsaqm_process_register(&reg_ops, NULL))
		hsaqm_log_warn("another hsaqm integration is registered in this process");

	if (g.cfg.disabled) {
		inactive("disabled by HSAQM_TOOL_DISABLE", "");
		return true;
	}
	/*
	 * The layout first (reads three version headers, never a function pointer); then the
	 * entries hsaqm itself calls, copied before anything is replaced.
	 */
	rc = hsaqm_api_table_detect(table, runtime_version, &layout);
	if (rc) {
		hsaqm_log_notice(NULL, "unknown HSA API table layout (root version %u.%u): "
				 "hsaqm installs nothing, the application runs unscheduled",
				 layout.root.major_id, layout.root.minor_id);
		inactive("unknown HSA API table layout: nothing installed", "");
		return true;
	}
	rc = hsaqm_hsa_runtime_init(&g.rt, table, runtime_version, hsaqm_kfd_transport_default());
	if (rc) {
		hsaqm_log_notice(NULL, "the HSA API table (%s) lacks entries hsaqm needs (%s): "
				 "hsaqm installs nothing, the application runs unscheduled",
				 layout.name, strerror(-rc));
		inactive("the table lacks entries hsaqm needs: nothing installed", "");
		return true;
	}
	g.rt_ok = true;
	/*
	 * HSAQM_RECORD: a recording is pass-through unless a level was asked for; one that
	 * cannot be made leaves the process scheduled as without it.
	 */
	tool_record_bind(table, &g.rt.layout);
	if (tool_record_open(&g.cfg, g.priority) && !g.cfg.level_asked)
		g.cfg.level = HSAQM_TOOL_LEVEL_DEFAULT;
	lv3_setup();
	/* Before the runtime's first queue, or a ROCm 5.x process could never be suspended. */
	if (g.cfg.level >= HSAQM_LEVEL_3)
		hsaqm_hsa_lv3_prepare(&g.rt);
	for (size_t i = 0; i < NWRAPPERS; i++) {
		slots[wrappers[i].entry] = hsaqm_api_table_slot(table, &g.rt.layout,
								 wrappers[i].entry);
		/* An empty slot: nothing to chain to. Event slots are empty until a tool sets
		 * them (ROCr calls only those set), so hsaqm sets them all the same. */
		if (slots[wrappers[i].entry] && !*slots[wrappers[i].entry] &&
		    g.rt.layout.entry[wrappers[i].entry].table != HSAQM_API_TABLE_TOOLS)
			slots[wrappers[i].entry] = NULL;
		if (!slots[wrappers[i].entry] && wrappers[i].required) {
			hsaqm_log_notice(NULL, "the HSA API table (%s) lacks %s: hsaqm "
					 "installs nothing, the application runs unscheduled",
					 g.rt.layout.name, hsaqm_api_entry_name(wrappers[i].entry));
			hsaqm_hsa_runtime_fini(&g.rt);
			g.rt_ok = false;
			inactive("nothing installed: the table lacks ",
				 hsaqm_api_entry_name(wrappers[i].entry));
			return true;
		}
	}
	/* Save every entry before replacing any, then replace: the chain is complete at once. */
	for (size_t i = 0; i < NWRAPPERS; i++) {
		void **slot = slots[wrappers[i].entry];

		if (slot)
			g.next[wrappers[i].entry] = *slot;
	}
	/*
	 * Release: the saved entries and the runtime are visible to any thread that sees the
	 * state (wrappers load it with acquire). ROCr lets no other thread call through the
	 * table before OnLoad returns; the order matters for a test that shares the table.
	 */
	hsaqm_store_release(&g.state, (uint32_t)TOOL_ACTIVE);
	for (size_t i = 0; i < NWRAPPERS; i++) {
		void **slot = slots[wrappers[i].entry];

		if (slot) {
			*slot = wrappers[i].wrapper;
			g.installed[wrappers[i].entry] = true;
		}
	}
	hsaqm_log_info("active on table %s (runtime version %llu), level %s, priority %d",
		       g.rt.layout.name, (unsigned long long)runtime_version,
		       hsaqm_level_name(g.cfg.level), g.priority);
	return true;
}

/*
 * ROCr calls it at the last hsa_shut_down, before it resets the table; it may never run
 * (exit without hsa_shut_down): the atexit path and lib's own exit path cover that.
 */
TOOL_EXPORT void OnUnload(void)
{
	/* Acquire: pairs with OnLoad's release: the saved entries and the runtime are seen. */
	uint32_t st = hsaqm_load_acquire(&g.state);

	if (st == TOOL_OFF)
		return;
	if (st == TOOL_ACTIVE) {
		/* Queues the application left: drained and destroyed while the runtime is up. */
		for (;;) {
			struct hsaqm_hsa_proxy *p;

			pthread_mutex_lock(&g.lock);
			p = g.queues ? g.queues->proxy : NULL;
			pthread_mutex_unlock(&g.lock);
			if (!p)
				break;
			destroy_proxy(p);
		}
	}
	tool_node_stop();
	write_stats_file();
	tool_record_close();
	hsaqm_process_unregister(&reg_ops, NULL);
	/* Wrappers still installed until ROCr resets the table pass everything through. */
	hsaqm_store_release(&g.state, (uint32_t)TOOL_OFF);
	pthread_mutex_lock(&g.lock);
	if (g.ctx)
		hsaqm_ctx_destroy(g.ctx);
	g.ctx = NULL;
	while (g.retired) {
		struct tool_retired *r = g.retired;

		g.retired = r->next;
		free(r);
	}
	g.nretired = 0;
	g.created = 0;
	g.passed_through = 0;
	pthread_mutex_unlock(&g.lock);
	if (g.rt_ok)
		hsaqm_hsa_runtime_fini(&g.rt);
	g.rt_ok = false;
}
