/* SPDX-License-Identifier: MIT */
/*
 * t_tool_model.h - the model and kernels of the tool library's tests (test-tool-*): a model
 * configuration, kernels that count their workgroups, GPU queues and a ROCclr-style submission.
 * Header-only; include once.
 */
#ifndef T_TOOL_MODEL_H
#define T_TOOL_MODEL_H

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_tool.h"
#include "t_cunit.h"
#include "t_json.h"
#include "t_stderr.h"
#include "t_tool.h"
#include "tool_internal.h"

#define T_TOOL_KERNEL_NS (20 * T_US)

struct t_kstat {
	uint32_t wgs; /* atomic: workgroups run */
};

static struct t_kstat t_k;

static inline void t_wg_count(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct t_kstat *k = arg;

	(void)dispatch_id, (void)wg, (void)kernarg;
	/* Engine thread; acq_rel: pairs with the test's acquire after the completion wait. */
	hsaqm_fetch_add(&k->wgs, 1u);
}

static const struct hsaqm_sim_config t_tool_cfg = { .num_devices = 1,
						    .time_mode = HSAQM_SIM_TIME_REAL,
						    .seed = 5 };

static inline uint64_t t_tool_kernel(struct t_hsa *h, uint64_t ns, uint32_t waves)
{
	struct hsaqm_sim_kernel_desc d = { .name = "k", .duration_ns = ns, .waves_per_wg = waves,
					   .wg_callback = t_wg_count, .wg_callback_arg = &t_k };
	uint64_t k = 0;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_kernel_register(h->sim, &d, &k), 0);
	return k;
}

static inline struct hsaqm_hsa_queue *t_tool_queue(struct t_hsa *h, uint32_t size)
{
	struct hsaqm_hsa_queue *q = NULL;

	CU_ASSERT_EQUAL(h->core->hsa_queue_create_fn(h->gpu[0], size, HSAQM_HSA_QUEUE_TYPE_MULTI,
						     NULL, NULL, 0, 0, &q),
			HSAQM_HSA_STATUS_SUCCESS);
	return q;
}

static inline void t_tool_submit(struct t_hsa *h, struct hsaqm_hsa_queue *q, uint64_t kobj,
				 uint32_t nwg, struct hsaqm_hsa_signal cs)
{
	union hsaqm_aql_packet pk = t_hsa_dispatch(kobj, nwg, cs.handle, true, NULL);

	t_rocclr_submit(h->core, q, &pk, NULL, NULL);
}

/* Run @fn with stderr going to a file (t_stderr.h); returns what was written (malloc'ed), or
 * NULL. */
static inline char *t_capture_stderr(int (*fn)(void *), void *arg, int *rc)
{
	struct t_stderr c;

	if (t_stderr_begin(&c))
		return NULL;
	*rc = fn(arg);
	return t_stderr_end(&c);
}

#endif /* T_TOOL_MODEL_H */
