/* SPDX-License-Identifier: MIT */
/*
 * t_hsa_backend.h - the rig of the HSA backend's virtual-time tests (test-hsa-backend-*):
 * kernels that count their workgroups, a submission through the application's ring, a record
 * of the layout release() writes (what each hardware slot holds, the Lv1 bound it keeps), and
 * the hardware queue's slots and read index. Header-only; include once.
 */
#ifndef T_HSA_BACKEND_H
#define T_HSA_BACKEND_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsa_backend_internal.h"
#include "hsaqm-kfd/kfd_lv3.h"
#include "t_cunit.h"
#include "t_hsa.h"

/* ---- Kernels that count their workgroups ---------------------------------------------------- */

struct t_krec {
	uint32_t nwg;
	uint32_t done_wgs; /* workgroup callbacks seen */
	uint32_t proxy_id;
	uint64_t index;    /* the packet's index in the proxy */
};

static uint64_t t_kernels_done[8]; /* per test queue: kernels whose every workgroup finished */

static inline void t_count_wg(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct t_krec *r = kernarg;

	(void)arg, (void)dispatch_id, (void)wg;
	/*
	 * acq_rel: a kernel is counted once, after its last workgroup; the second add pairs
	 * with the test's acquire loads of t_kernels_done.
	 */
	if (hsaqm_fetch_add(&r->done_wgs, 1u) + 1 == r->nwg)
		hsaqm_fetch_add(&t_kernels_done[r->proxy_id], 1ull);
}

static inline uint64_t t_kernel(struct t_hsa *h, uint64_t ns, uint32_t waves)
{
	struct hsaqm_sim_kernel_desc kd = { .name = "k", .duration_ns = ns, .waves_per_wg = waves,
					    .wg_callback = t_count_wg };
	uint64_t k = 0;

	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(h->sim, &kd, &k), 0);
	return k;
}

/* Publish @n dispatches on @a (one doorbell for all); returns the first index. */
static inline uint64_t t_submit(struct t_app *a, uint64_t kobj, uint32_t n,
				struct hsaqm_hsa_signal cs, bool barrier, struct t_krec *recs,
				uint32_t qid)
{
	union hsaqm_aql_packet *pk = calloc(n, sizeof(*pk));
	uint64_t first = 0;

	for (uint32_t i = 0; i < n; i++) {
		recs[i].nwg = 1;
		recs[i].proxy_id = qid;
		pk[i] = t_hsa_dispatch(kobj, 1, cs.handle, barrier, &recs[i]);
	}
	CU_ASSERT_EQUAL(hsaqm_ring_submit(&a->ring, pk, n, 0), 0);
	first = HSAQM_READ_ONCE(*a->ring.write_index) - n;
	for (uint32_t i = 0; i < n; i++)
		recs[i].index = first + i;
	free(pk);
	return first;
}

/* ---- Proxies ------------------------------------------------------------------------------- */

static const struct hsaqm_xq_config t_lv2 = { .level = HSAQM_LEVEL_2 };

#endif /* T_HSA_BACKEND_H */
