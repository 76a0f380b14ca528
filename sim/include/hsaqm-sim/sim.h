/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-sim/sim.h - the device model: an MI308X-class compute front end in software.
 *
 * Tests, tools and experiments create a model, register model kernels, and then talk to it
 * only through its two faces, exactly as hsaqm talks to real hardware:
 *   - the HSA face: an HsaApiTable (hsa-layer's C mirror) filled with the model's functions,
 *     to hand to a tool's OnLoad or to call like ROCr;
 *   - the KFD face: a transport answering /dev/kfd ioctls with the real uapi structs and errno.
 * Everything the model reports is a model figure, never a hardware result. See docs/sim.md.
 *
 * Functions return 0 or a negative errno unless their comment says otherwise.
 */
#ifndef HSAQM_SIM_H
#define HSAQM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HSAQM_SIM_MAX_DEVICES 8

struct hsaqm_sim;

enum hsaqm_sim_time_mode {
	/* Model time = monotonic clock x scale; each device runs an engine thread. */
	HSAQM_SIM_TIME_REAL = 0,
	/* Model time moves only when the caller advances it; deterministic, no threads. */
	HSAQM_SIM_TIME_VIRTUAL = 1,
};

struct hsaqm_sim_config {
	unsigned int num_devices;      /* 1..HSAQM_SIM_MAX_DEVICES; 0 means 1 */
	const char *properties_path;   /* KFD topology properties file; NULL = built-in MI308X */
	const char *timing_path;       /* timing constants file (see docs/sim.md); NULL = defaults */
	enum hsaqm_sim_time_mode time_mode;
	double time_scale;             /* REAL mode: model ns per wall ns; 0 means 1.0 */
	const char *trace_path;        /* Chrome-trace JSON written at destroy; NULL = no trace */
	uint32_t kfd_minor_version;    /* KFD ioctl minor version to present, 11..18; 0 = 17 */
	int sched_policy;              /* KFD sched_policy: 0 HWS (default), 1, or 2 (no HWS) */
	int cwsr_disable;              /* 1 = module parameter cwsr_enable=0 */
	uint64_t seed;                 /* PRNG seed for duration distributions; 0 = fixed default */
	/*
	 * Serving (shared mode): a client's control call (suspend, resume, update, create,
	 * destroy, CU mask) returns this many model ns after the device finished it, however soon
	 * the reply reached the client; 0 = as soon as it does. The emulation's return path, an
	 * assumption, so that a call's length is the device's work plus a constant instead of the
	 * host's wake-ups (docs/sim.md, "Shared mode"). At most 100 ms.
	 */
	uint64_t call_return_ns;
};

/**
 * hsaqm_sim_create() - create an in-process model.
 * @cfg: configuration; NULL for all defaults (one MI308X, real time, scale 1).
 * @out: receives the model.
 *
 * Return: 0; -EINVAL for a bad configuration (the log says which field); -ENOENT when a
 * profile file does not exist; -ENOMEM.
 */
int hsaqm_sim_create(const struct hsaqm_sim_config *cfg, struct hsaqm_sim **out);

/**
 * hsaqm_sim_destroy() - stop the engines, write the trace, free everything. NULL is a no-op.
 */
void hsaqm_sim_destroy(struct hsaqm_sim *sim);

/**
 * hsaqm_sim_now_ns() - current model time in nanoseconds since the model was created.
 *
 * Return: model time (never an error).
 */
uint64_t hsaqm_sim_now_ns(const struct hsaqm_sim *sim);

/**
 * hsaqm_sim_advance() - VIRTUAL mode: process every event up to now + @ns, then set the
 * clock there.
 *
 * Return: 0; -EINVAL in REAL mode or for a NULL model.
 */
int hsaqm_sim_advance(struct hsaqm_sim *sim, uint64_t ns);

/**
 * hsaqm_sim_run_until_idle() - VIRTUAL mode: advance event by event until no queue has
 * work it can make progress on, or @max_ns of model time have passed.
 *
 * Return: 0 when idle; -ETIMEDOUT when @max_ns passed first (e.g. a barrier waits on a
 * signal nobody will set); -EINVAL in REAL mode.
 */
int hsaqm_sim_run_until_idle(struct hsaqm_sim *sim, uint64_t max_ns);

enum hsaqm_sim_dist {
	HSAQM_SIM_DIST_FIXED = 0,   /* every workgroup takes duration_ns */
	HSAQM_SIM_DIST_UNIFORM = 1, /* uniform in [duration_ns - spread_ns, duration_ns + spread_ns] */
	HSAQM_SIM_DIST_NORMAL = 2,  /* normal(duration_ns, spread_ns), clamped to >= 1 ns */
};

/*
 * Called once per workgroup when it finishes, on a model thread (in-process mode only:
 * a device process never calls into its clients).
 * @kernarg is the dispatch packet's kernarg address; @dispatch_id its ring index.
 */
typedef void (*hsaqm_sim_wg_fn)(void *arg, uint64_t dispatch_id, uint32_t wg_index, void *kernarg);

struct hsaqm_sim_kernel_desc {
	const char *name;              /* copied; shown in traces */
	uint64_t duration_ns;          /* per workgroup, model time; must be > 0 */
	uint64_t spread_ns;            /* for UNIFORM/NORMAL */
	enum hsaqm_sim_dist dist;
	uint32_t waves_per_wg;         /* occupancy: wave slots one workgroup takes on a CU; 0 = 1 */
	hsaqm_sim_wg_fn wg_callback;   /* optional */
	void *wg_callback_arg;
	/*
	 * Optional, works across processes: the model atomically increments
	 * counters[wg_index] (uint32_t, in model memory) once per finished workgroup.
	 */
	uint32_t *wg_counters;
	uint32_t wg_counters_len;
};

/**
 * hsaqm_sim_kernel_register() - make a model kernel; its handle goes in a dispatch
 * packet's kernel_object field.
 *
 * Return: 0 and *kernel_object; -EINVAL for NULL, a zero duration, waves_per_wg larger
 * than a CU holds, counters without a length or outside model memory, or a wg_callback on
 * a client of a device process (shared mode: use wg_counters); -ENOMEM.
 */
int hsaqm_sim_kernel_register(struct hsaqm_sim *sim, const struct hsaqm_sim_kernel_desc *desc,
			      uint64_t *kernel_object);

/**
 * hsaqm_sim_hsa_table() - the HSA face: a root HsaApiTable (hsa-layer/api_table.h layout
 * "ROCm 6.1+", root major 3) whose entries are the model's implementation. Hand it to a
 * tool's OnLoad as ROCr would. The pointer stays valid until hsaqm_sim_destroy().
 *
 * Return: the table, or NULL for a NULL model.
 */
void *hsaqm_sim_hsa_table(struct hsaqm_sim *sim);

struct hsaqm_kfd_transport;

/**
 * hsaqm_sim_kfd_transport() - the KFD face, as a kfd-ioctl transport (open, ioctl, mmap,
 * sysfs root). The pointer stays valid until hsaqm_sim_destroy().
 *
 * Return: the transport, or NULL for a NULL model.
 */
const struct hsaqm_kfd_transport *hsaqm_sim_kfd_transport(struct hsaqm_sim *sim);

/**
 * hsaqm_sim_sysfs_root() - the generated sysfs tree standing in for /sys (contains
 * class/kfd/kfd/topology/... and module/amdgpu/parameters/...).
 *
 * Return: an absolute path, or NULL for a NULL model.
 */
const char *hsaqm_sim_sysfs_root(const struct hsaqm_sim *sim);

/**
 * hsaqm_sim_proc_view_sync() - bring the tree's class/kfd/kfd/proc up to date with every KFD
 * process of the node and its queues, as the KFD keeps it current on its own (a snapshot;
 * hsa-queue-probe reads it to count other processes' queues).
 *
 * Return: 0; -EINVAL for a NULL model; -ENOMEM; -EPIPE, -EPROTO (shared mode: the device
 * process is gone); -errno of the file system.
 */
int hsaqm_sim_proc_view_sync(struct hsaqm_sim *sim);

/**
 * hsaqm_sim_profile_dump() - print the profile of device @dev: every constant with its
 * source ("captured: ...", "source: ...", or "assumption").
 *
 * Return: 0; -EINVAL for a NULL model/stream or an unknown device.
 */
int hsaqm_sim_profile_dump(const struct hsaqm_sim *sim, unsigned int dev, FILE *out);

/**
 * hsaqm_sim_mem_alloc() - model memory: host memory the simulated GPU can read (rings,
 * signals, kernel arguments, counters). In shared mode it is mapped at the same address in
 * the client and in the device process, as SVM is on a GPU; memory from malloc() is not.
 *
 * Return: the zeroed allocation, or NULL (errno ENOMEM, or EINVAL for a zero size or an
 * alignment that is not a power of two).
 */
void *hsaqm_sim_mem_alloc(struct hsaqm_sim *sim, size_t size, size_t align);

/** hsaqm_sim_mem_free() - release model memory; NULL is a no-op. */
void hsaqm_sim_mem_free(struct hsaqm_sim *sim, void *ptr);

/*
 * Shared mode: one device process (hsaqm-simd) serves several client processes. Each client
 * gets its own model memory, mapped at the same address in the client and in the device
 * (as SVM is on a GPU); doorbells, signals and waits go through that memory and shared
 * futexes, the socket carries only control calls. Real-time models only. docs/sim.md,
 * "Shared mode".
 */

/**
 * hsaqm_sim_listen() - make @sim a device process listening on the Unix socket @path, without
 * accepting clients yet (so the caller can announce the socket); hsaqm_sim_serve() then
 * serves it. A socket file at @path that nobody listens on (a device that died) is replaced.
 * From now on @sim is used only through its clients.
 *
 * Return: 0; -EINVAL for NULL, an empty path or a VIRTUAL-time model; -EBUSY when it already
 * listens or is a client; -ENAMETOOLONG; -EADDRINUSE when a live device listens at @path;
 * -EACCES and other -errno of socket/bind/listen; -ENOMEM.
 */
int hsaqm_sim_listen(struct hsaqm_sim *sim, const char *path);

/**
 * hsaqm_sim_serve() - run @sim as a device process on the Unix socket @path (listening first
 * unless hsaqm_sim_listen() did; @path may then be NULL) until hsaqm_sim_serve_stop(), or
 * SIGTERM when the process left SIGTERM at its default action (serve handles it meanwhile).
 * Clients still attached at the stop are disconnected and their queues destroyed.
 *
 * Return: 0 after a clean stop; the errors of hsaqm_sim_listen(); -EBUSY when already
 * serving or @path differs from the one listened on.
 */
int hsaqm_sim_serve(struct hsaqm_sim *sim, const char *path);

/**
 * hsaqm_sim_serve_stop() - make a running hsaqm_sim_serve() return. Async-signal-safe (a
 * signal handler may call it); a no-op for NULL or a model that does not listen.
 */
void hsaqm_sim_serve_stop(struct hsaqm_sim *sim);

/**
 * hsaqm_sim_connect() - attach to a device process as a client. The returned model has the
 * same faces as an in-process one (kernels must use wg_counters: callbacks cannot cross
 * processes); hsaqm_sim_destroy() detaches, and the device destroys every queue the client
 * left, as it does when a client dies.
 *
 * Return: 0; -ENOENT/-ECONNREFUSED when no device process listens at @path; -EPROTO on a
 * protocol version mismatch; -EADDRINUSE when this process has something mapped where the
 * device put the shared memory; -ENAMETOOLONG; -EINVAL for NULL; -ENOMEM.
 */
int hsaqm_sim_connect(const char *path, struct hsaqm_sim **out);

/**
 * hsaqm_sim_open_env() - connect to $HSAQM_SIM_DEVICE (a socket path) when it is set and not
 * empty, otherwise create an in-process model with @cfg. A failed connect prints one line
 * saying why, whatever HSAQM_LOG says (the user asked for that device).
 *
 * Return: as hsaqm_sim_connect() or hsaqm_sim_create(); -EINVAL for a NULL @out.
 */
int hsaqm_sim_open_env(const struct hsaqm_sim_config *cfg, struct hsaqm_sim **out);

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_SIM_H */
