/* SPDX-License-Identifier: MIT */
/*
 * t_hsa.h - helpers for the HSA backend's tests and benchmarks: a client of the device
 * model's HSA face (hsa_init, agents), hsaqm's runtime on that table, proxy queues fed the
 * way ROCclr feeds a queue (reserve an index, write the body, release the header, ring the
 * doorbell with the packet's index), and the KFD shim Lv3 needs on the model for now.
 * Header-only: each binary includes it once.
 *
 * The KFD shim. On a real system, opening /dev/kfd twice in one process gives the same KFD
 * process, and ROCr enables the runtime (RUNTIME_ENABLE) before it creates any queue. The
 * model's KFD face makes each open() a process of its own, and its HSA face does not enable
 * the runtime. Until the model does both (requested in the backend's report), t_hsa_lv3_setup()
 * stands in: it makes the HSA face create its queues through the KFD face, enables the runtime
 * on the face's own KFD process the way ROCr would (before any queue the face keeps), and
 * installs as the default transport a thin transport whose open() returns the face's handle
 * and whose close() leaves it open. Nothing in hsa-layer/ knows about it.
 */
#ifndef T_HSA_H
#define T_HSA_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "hsa_face_internal.h"
#include "hsaqm/aql.h"
#include "hsaqm/barrier.h"
#include "hsaqm/hsa_backend.h"
#include "hsaqm/hsaqm.h"
#include "hsaqm/kfd.h"
#include "hsaqm/ring.h"
#include "hsaqm/sim.h"
#include "sim_internal.h"

#define T_HSA_US 1000ull
#define T_HSA_MS 1000000ull
#define T_HSA_S 1000000000ull

struct t_hsa {
	struct hsaqm_sim *sim;
	struct hsaqm_api_root_v3 *root;
	struct hsaqm_core_api_table *core;
	struct hsaqm_amd_ext_table_v2 *amd;
	struct hsaqm_hsa_agent gpu[HSAQM_SIM_MAX_DEVICES];
	unsigned int ngpu;
	struct hsaqm_hsa_runtime rt;
	bool rt_ok;
	struct hsaqm_ctx *ctx;
	/* The KFD shim (see above). */
	struct hsaqm_kfd_transport shim;
	const struct hsaqm_kfd_transport *model_tp;
	int face_handle;
	bool shim_installed;
};

static inline hsaqm_hsa_status_t t_hsa_collect_agent(struct hsaqm_hsa_agent a, void *data)
{
	struct t_hsa *h = data;
	uint32_t type = 99;

	h->core->hsa_agent_get_info_fn(a, SIM_HSA_AGENT_INFO_DEVICE, &type);
	if (type == SIM_HSA_DEVICE_TYPE_GPU && h->ngpu < HSAQM_SIM_MAX_DEVICES)
		h->gpu[h->ngpu++] = a;
	return HSAQM_HSA_STATUS_SUCCESS;
}

/* A model with its table, hsa_init done, the GPU agents found. 0 or -errno. */
static inline int t_hsa_open_cfg(struct t_hsa *h, const struct hsaqm_sim_config *cfg)
{
	int rc;

	memset(h, 0, sizeof(*h));
	h->face_handle = -1;
	rc = hsaqm_sim_create(cfg, &h->sim);
	if (rc)
		return rc;
	h->root = hsaqm_sim_hsa_table(h->sim);
	h->core = h->root->core;
	h->amd = h->root->amd_ext;
	if (h->core->hsa_init_fn() != HSAQM_HSA_STATUS_SUCCESS)
		return -EIO;
	h->core->hsa_iterate_agents_fn(t_hsa_collect_agent, h);
	return h->ngpu ? 0 : -ENODEV;
}

static inline int t_hsa_open(struct t_hsa *h, enum hsaqm_sim_time_mode mode, unsigned int ndev)
{
	struct hsaqm_sim_config cfg = { .num_devices = ndev, .time_mode = mode, .seed = 11 };

	return t_hsa_open_cfg(h, &cfg);
}

/* hsaqm's runtime on the face's table (saved before any wrapping) and a context. */
static inline int t_hsa_runtime(struct t_hsa *h, const struct hsaqm_kfd_transport *kfd)
{
	int rc = hsaqm_hsa_runtime_init(&h->rt, h->root, 3, kfd);

	if (rc)
		return rc;
	h->rt_ok = true;
	return hsaqm_ctx_create(&h->ctx);
}

static inline int t_shim_open(void *ctx)
{
	struct t_hsa *h = ctx;

	return h->face_handle;
}

static inline int t_shim_close(void *ctx, int handle)
{
	(void)ctx, (void)handle;
	return 0; /* the HSA face owns the KFD process */
}

static inline int t_shim_ioctl(void *ctx, int handle, unsigned long req, void *arg)
{
	struct t_hsa *h = ctx;

	return h->model_tp->ioctl(h->model_tp->ctx, handle, req, arg);
}

static inline void *t_shim_mmap(void *ctx, int handle, void *addr, size_t len, int prot, int flags,
				off_t off)
{
	struct t_hsa *h = ctx;

	return h->model_tp->mmap(h->model_tp->ctx, handle, addr, len, prot, flags, off);
}

static inline int t_shim_munmap(void *ctx, void *addr, size_t len)
{
	struct t_hsa *h = ctx;

	return h->model_tp->munmap(h->model_tp->ctx, addr, len);
}

/*
 * Lv3 on the model (see the header comment): call right after t_hsa_open(), before any
 * queue. Afterwards hsaqm_kfd_transport_default() is the shim. 0 or -errno.
 */
static inline int t_hsa_lv3_setup(struct t_hsa *h)
{
	struct hsa_face *f = (struct hsa_face *)((char *)h->root - offsetof(struct hsa_face, root));
	struct hsaqm_hsa_queue *q = NULL;
	struct hsaqm_kfd *k = NULL;
	int rc;

	rc = hsa_face_set_queue_path(h->sim, true);
	if (rc)
		return rc;
	/* The face opens its KFD with its first queue; that queue goes again at once. */
	if (h->core->hsa_queue_create_fn(h->gpu[0], 64, HSAQM_HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0,
					 0, &q) != HSAQM_HSA_STATUS_SUCCESS)
		return -EIO;
	h->core->hsa_queue_destroy_fn(q);
	pthread_mutex_lock(&f->lock);
	h->face_handle = f->kfd.kfd ? f->kfd.handle : -1;
	pthread_mutex_unlock(&f->lock);
	if (h->face_handle < 0)
		return -ENODEV;
	h->model_tp = hsaqm_sim_kfd_transport(h->sim);
	h->shim = *h->model_tp;
	h->shim.ctx = h;
	h->shim.open = t_shim_open;
	h->shim.close = t_shim_close;
	h->shim.ioctl = t_shim_ioctl;
	h->shim.mmap = h->model_tp->mmap ? t_shim_mmap : NULL;
	h->shim.munmap = h->model_tp->munmap ? t_shim_munmap : NULL;
	h->shim.doorbell_written = NULL;
	/* What ROCr does in every process before its first queue (EBUSY: the model did it). */
	rc = hsaqm_kfd_open(&h->shim, &k);
	if (rc)
		return rc;
	rc = hsaqm_kfd_runtime_enable(k, 0, false);
	hsaqm_kfd_close(k);
	if (rc && rc != -EBUSY)
		return rc;
	rc = hsaqm_kfd_transport_set_default(&h->shim);
	h->shim_installed = rc == 0;
	return rc;
}

/* Everything down, in the order a process would: proxies first (the caller), then this. */
static inline void t_hsa_close(struct t_hsa *h)
{
	if (h->ctx)
		hsaqm_ctx_destroy(h->ctx);
	if (h->rt_ok)
		hsaqm_hsa_runtime_fini(&h->rt);
	if (h->shim_installed)
		hsaqm_kfd_transport_set_default(NULL);
	if (h->core)
		h->core->hsa_shut_down_fn();
	hsaqm_sim_destroy(h->sim);
	memset(h, 0, sizeof(*h));
}

/* The model's hardware queue behind an HSA queue of the face (tests look at its state). */
static inline struct sim_hwq *t_hsa_sim_hwq(struct t_hsa *h, const struct hsaqm_hsa_queue *q)
{
	struct hsa_face *f = (struct hsa_face *)((char *)h->root - offsetof(struct hsa_face, root));
	struct sim_hwq *hwq = NULL;

	pthread_mutex_lock(&f->lock);
	for (struct hsa_face_queue *fq = f->queues; fq; fq = fq->next)
		if (&fq->amd->hsa_queue == q)
			hwq = fq->hwq;
	pthread_mutex_unlock(&f->lock);
	return hwq;
}

/* ---- The application's side of a proxy --------------------------------------------------- */

struct t_app {
	struct hsaqm_hsa_proxy *proxy;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_ring ring; /* the proxy ring, written as ROCclr writes a queue */
};

static inline void t_app_doorbell(void *ctx, uint64_t last_index)
{
	struct t_app *a = ctx;

	/* Where ROCclr would store to the doorbell signal (a tool's wrapper lands here). */
	hsaqm_hsa_proxy_doorbell(a->proxy, (hsaqm_hsa_signal_value_t)last_index);
}

static inline int t_app_init(struct t_app *a, struct hsaqm_hsa_proxy *p)
{
	struct hsaqm_amd_queue *amd;

	memset(a, 0, sizeof(*a));
	a->proxy = p;
	a->q = hsaqm_hsa_proxy_queue(p);
	amd = (struct hsaqm_amd_queue *)a->q;
	return hsaqm_ring_init(&a->ring, a->q->base_address, a->q->size,
			       (uint64_t *)(uintptr_t)&amd->write_dispatch_id,
			       (uint64_t *)(uintptr_t)&amd->read_dispatch_id, t_app_doorbell, a);
}

/* A proxy with the given xqueue settings on GPU @gpu, and its application side. */
static inline int t_hsa_proxy(struct t_hsa *h, unsigned int gpu, uint32_t size,
			      const struct hsaqm_xq_config *xq, struct t_app *app)
{
	struct hsaqm_hsa_proxy_config cfg = {
		.agent = h->gpu[gpu], .size = size, .type = HSAQM_HSA_QUEUE_TYPE_MULTI, .xq = *xq,
	};
	struct hsaqm_hsa_proxy *p = NULL;
	int rc = hsaqm_hsa_proxy_create(&h->rt, h->ctx, &cfg, &p);

	if (rc)
		return rc;
	return t_app_init(app, p);
}

/* A 1-D dispatch of @nwg workgroups of 64 work-items. */
static inline union hsaqm_aql_packet t_hsa_dispatch(uint64_t kobj, uint32_t nwg, uint64_t cs,
						    bool barrier, void *kernarg)
{
	union hsaqm_aql_packet p;
	struct hsaqm_aql_dispatch_desc d = {
		.dims = 1, .workgroup_size = { 64, 1, 1 }, .grid_size = { nwg * 64u, 1, 1 },
		.kernel_object = kobj, .kernarg_address = (uint64_t)(uintptr_t)kernarg,
		.completion_signal = cs, .barrier = barrier,
		.acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
		.release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
	};

	memset(&p, 0, sizeof(p));
	hsaqm_aql_dispatch_build(&p, &d);
	return p;
}

static inline struct hsaqm_hsa_signal t_hsa_signal(struct t_hsa *h, int64_t v)
{
	struct hsaqm_hsa_signal s = { 0 };

	h->core->hsa_signal_create_fn(v, 0, NULL, &s);
	return s;
}

static inline uint64_t t_hsa_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void t_hsa_sleep_us(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/*
 * Wait (real time) until @s is @v or less, at most @timeout_ns of wall time.
 * Returns true when it got there.
 */
static inline bool t_hsa_wait_le(struct t_hsa *h, struct hsaqm_hsa_signal s, int64_t v,
				 uint64_t timeout_ns)
{
	uint64_t end = t_hsa_mono_ns() + timeout_ns;

	while (h->core->hsa_signal_load_scacquire_fn(s) > v) {
		if (t_hsa_mono_ns() > end)
			return false;
		h->core->hsa_signal_wait_scacquire_fn(s, HSAQM_HSA_SIGNAL_CONDITION_LT, v + 1,
						      1000000, HSAQM_HSA_WAIT_STATE_BLOCKED);
	}
	return true;
}

#endif /* T_HSA_H */
