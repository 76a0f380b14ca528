/* SPDX-License-Identifier: MIT */
/*
 * t_probe.h - the setup of the probe's in-process tests (test-probe-*): hsa-queue-probe
 * (tools/probe/probe.h) run against the device model, its options, and the checks' bits.
 * Header-only; include once.
 */
#ifndef T_PROBE_H
#define T_PROBE_H

#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hsaqm-hsa/aql.h"
#include "hsaqm-kfd/kfd.h"
#include "hsaqm-sim/sim.h"
#include "kfd_face_internal.h"
#include "probe.h"
#include "probe_internal.h"
#include "t_cunit.h"

#define T_PROBE_LV3 (1u << HSAQM_PROBE_CHECK_LV3)

#define T_PROBE_UPD (1u << HSAQM_PROBE_CHECK_UPDATE_QUEUE)

static inline struct hsaqm_sim *t_probe_sim_real(const struct hsaqm_sim_config *over)
{
	struct hsaqm_sim_config cfg = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_REAL };
	struct hsaqm_sim *sim = NULL;

	if (over) {
		cfg = *over;
		cfg.time_mode = HSAQM_SIM_TIME_REAL;
	}
	if (hsaqm_sim_create(&cfg, &sim))
		return NULL;
	return sim;
}

/* The host preflight looks at paths that do not exist: tests must not depend on the machine. */
static inline void t_probe_quiet_host(struct hsaqm_probe_env *env)
{
	env->host_sysfs_root = "/nonexistent-hsaqm-sys";
	env->host_dev_kfd = "/nonexistent-hsaqm-kfd";
	env->host_debugfs_root = "/nonexistent-hsaqm-debug";
}

static inline struct hsaqm_probe_report *t_probe_run_model(struct hsaqm_sim *sim,
							   struct hsaqm_probe_options *o,
							   struct hsaqm_probe_env *env_out)
{
	struct hsaqm_probe_env env;
	struct hsaqm_probe_report *r = NULL;

	if (!env_out) {
		CU_ASSERT_EQUAL_FATAL(hsaqm_probe_env_sim(&env, sim), 0);
		t_probe_quiet_host(&env);
		env_out = &env;
	}
	CU_ASSERT_EQUAL(hsaqm_probe_run(o, env_out, &r), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	return r;
}

/* Says why a check did not give the verdict a test wanted (CUnit's assertions cannot). */
static inline void t_probe_explain(const struct hsaqm_probe_check *k, enum hsaqm_probe_verdict want)
{
	if (k->verdict != want)
		fprintf(stderr, "check verdict %s (%s): %s\n", hsaqm_probe_verdict_name(k->verdict),
			k->reason_code, k->reason);
}

static inline const struct hsaqm_probe_check *t_probe_lv3(const struct hsaqm_probe_report *r)
{
	return &r->gpus[0].checks[HSAQM_PROBE_CHECK_LV3];
}

/* The report in @fmt, malloc'ed (free() it). */
static inline char *t_probe_render(const struct hsaqm_probe_report *r, enum hsaqm_probe_format fmt,
				   bool color)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_EQUAL(hsaqm_probe_report_write(r, fmt, f, color), 0);
	fclose(f);
	return buf;
}

#endif /* T_PROBE_H */
