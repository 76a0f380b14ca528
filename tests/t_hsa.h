/* SPDX-License-Identifier: MIT */
/*
 * t_hsa.h - helpers for the HSA backend's tests and benchmarks: a client of the device
 * model's HSA face (hsa_init, agents), hsaqm's runtime on that table, proxy queues fed the
 * way ROCclr feeds a queue (reserve an index, write the body, release the header, ring the
 * doorbell with the packet's index), and Lv3 on the model.
 * Header-only: each binary includes it once.
 *
 * Lv3 on the model needs nothing but what a real process has: the model's KFD, like the real
 * one, has one KFD process per OS process, so hsaqm's own open of the KFD reaches the process
 * the HSA face made its queues in; and the HSA face enables the runtime (RUNTIME_ENABLE) when
 * it opens its KFD, as ROCr does in hsa_init. t_hsa_lv3_setup() only points hsaqm's default
 * transport at the model's KFD (the machine's /dev/kfd, so to speak) and makes sure the HSA
 * face creates its queues through it.
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
#include "hsaqm-hsa/aql.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-hsa/hsa_backend.h"
#include "hsaqm/hsaqm.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-hsa/ring.h"
#include "hsaqm-sim/sim.h"
#include "sim_internal.h"
#include "t_time.h"


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
	bool tp_installed;  /* the model's KFD is hsaqm's default transport */
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

/* An opened model's table in @h, hsa_init done, the GPU agents found. 0 or -errno. */
static inline int t_hsa_attach(struct t_hsa *h, struct hsaqm_sim *sim)
{
	h->sim = sim;
	h->root = hsaqm_sim_hsa_table(sim);
	h->core = h->root->core;
	h->amd = h->root->amd_ext;
	if (h->core->hsa_init_fn() != HSAQM_HSA_STATUS_SUCCESS)
		return -EIO;
	h->core->hsa_iterate_agents_fn(t_hsa_collect_agent, h);
	return h->ngpu ? 0 : -ENODEV;
}

/* A model with its table, hsa_init done, the GPU agents found. 0 or -errno. */
static inline int t_hsa_open_cfg(struct t_hsa *h, const struct hsaqm_sim_config *cfg)
{
	struct hsaqm_sim *sim;
	int rc;

	memset(h, 0, sizeof(*h));
	rc = hsaqm_sim_create(cfg, &sim);
	if (rc)
		return rc;
	return t_hsa_attach(h, sim);
}

/* A model kernel @name of @ns per workgroup, @waves waves each, @fn per workgroup; 0 on failure. */
static inline uint64_t t_hsa_kernel(struct t_hsa *h, const char *name, uint64_t ns, uint32_t waves,
				    hsaqm_sim_wg_fn fn)
{
	struct hsaqm_sim_kernel_desc d = { .name = name, .duration_ns = ns, .waves_per_wg = waves,
					   .wg_callback = fn };
	uint64_t k = 0;

	return hsaqm_sim_kernel_register(h->sim, &d, &k) ? 0 : k;
}

/* A plain HSA queue of @size packets on the first GPU, at HSA priority @prio; NULL on failure. */
static inline struct hsaqm_hsa_queue *t_hsa_queue(struct t_hsa *h, uint32_t size, int prio)
{
	struct hsaqm_hsa_queue *q = NULL;

	if (h->core->hsa_queue_create_fn(h->gpu[0], size, HSAQM_HSA_QUEUE_TYPE_MULTI, NULL, NULL,
					 0, 0, &q) != HSAQM_HSA_STATUS_SUCCESS)
		return NULL;
	h->amd->hsa_amd_queue_set_priority_fn(q, (hsaqm_hsa_amd_queue_priority_t)prio);
	return q;
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

/*
 * Lv3 on the model (see the header comment): call right after t_hsa_open(), before any
 * queue. Afterwards hsaqm_kfd_transport_default() is the model's KFD. 0 or -errno.
 */
static inline int t_hsa_lv3_setup(struct t_hsa *h)
{
	int rc = hsa_face_set_queue_path(h->sim, true);

	if (rc)
		return rc;
	rc = hsaqm_kfd_transport_set_default(hsaqm_sim_kfd_transport(h->sim));
	h->tp_installed = rc == 0;
	return rc;
}

/* Everything down, in the order a process would: proxies first (the caller), then this. */
static inline void t_hsa_close(struct t_hsa *h)
{
	if (h->ctx)
		hsaqm_ctx_destroy(h->ctx);
	if (h->rt_ok)
		hsaqm_hsa_runtime_fini(&h->rt);
	if (h->tp_installed)
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

/* What lib says of @a's xqueue (zeros if it cannot say). */
static inline struct hsaqm_xq_info t_app_xinfo(struct t_app *a)
{
	struct hsaqm_xq_info i;

	memset(&i, 0, sizeof(i));
	hsaqm_xq_get_info(hsaqm_hsa_proxy_xq(a->proxy), &i);
	return i;
}

/* What the model says of @a's hardware queue (zeros if it cannot say). */
static inline struct sim_hwq_info t_app_hwinfo(struct t_hsa *h, struct t_app *a)
{
	struct sim_hwq_info hi;

	memset(&hi, 0, sizeof(hi));
	sim_hwq_get_info(t_hsa_sim_hwq(h, hsaqm_hsa_proxy_hw_queue(a->proxy)), &hi);
	return hi;
}

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

/*
 * The usual start of a backend test: a virtual-time model with one GPU, hsaqm's runtime on its
 * table (no KFD transport: Lv2 at most) and a context, and one proxy of @size packets asking
 * for @xq. 0, or the first error. t_hsa_close() undoes it all.
 */
static inline int t_hsa_open_proxy(struct t_hsa *h, uint32_t size, const struct hsaqm_xq_config *xq,
				   struct t_app *app)
{
	int rc = t_hsa_open(h, HSAQM_SIM_TIME_VIRTUAL, 1);

	if (!rc)
		rc = t_hsa_runtime(h, NULL);
	return rc ? rc : t_hsa_proxy(h, 0, size, xq, app);
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

/*
 * Wait (real time) until @s is @v or less, at most @timeout_ns of wall time.
 * Returns true when it got there.
 */
static inline bool t_hsa_wait_le(struct t_hsa *h, struct hsaqm_hsa_signal s, int64_t v,
				 uint64_t timeout_ns)
{
	uint64_t end = t_mono_ns() + timeout_ns;

	while (h->core->hsa_signal_load_scacquire_fn(s) > v) {
		if (t_mono_ns() > end)
			return false;
		h->core->hsa_signal_wait_scacquire_fn(s, HSAQM_HSA_SIGNAL_CONDITION_LT, v + 1,
						      1000000, HSAQM_HSA_WAIT_STATE_BLOCKED);
	}
	return true;
}

#endif /* T_HSA_H */
