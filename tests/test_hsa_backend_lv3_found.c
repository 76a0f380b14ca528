/* SPDX-License-Identifier: MIT */
/*
 * Whether the HSA backend finds Lv3, and why not: every reason Lv3 can be unavailable is said
 * (no trap debug support on the node, another debugger holding the process, ...), and it is
 * found with no setup as in a real process, and on the KFD path.
 *
 * In virtual time (deterministic, no engine threads), on the device model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsa_backend_internal.h"
#include "hsaqm-kfd/kfd_lv3.h"
#include "t_cunit.h"
#include "t_hsa.h"
#include "t_hsa_backend.h"

/* ---- Why Lv3 is not available ---------------------------------------------------------------- */

static void lv3_reason_case(const struct hsaqm_sim_config *scfg, bool give_transport,
			    bool direct, const char *needle)
{
	struct t_hsa h;
	struct t_app a;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_3 };
	struct hsaqm_xq_info info;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_cfg(&h, scfg), 0);
	if (direct)
		CU_ASSERT_EQUAL_FATAL(hsa_face_set_queue_path(h.sim, false), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, give_transport ? hsaqm_sim_kfd_transport(h.sim)
							       : NULL), 0);
	/* DBG_TRAP's own prerequisites (auto would take UPDATE_QUEUE: test-hsa-backend-lv3). */
	CU_ASSERT_EQUAL_FATAL(hsaqm_hsa_runtime_set_lv3(&h.rt, HSAQM_KFD_PREF_DBG_TRAP, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &cfg, &a), 0);
	info = t_app_xinfo(&a);
	CU_ASSERT_EQUAL(info.requested_level, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_2);
	if (!strstr(info.level_reason, needle))
		printf("\n  reason \"%s\" lacks \"%s\"\n", info.level_reason, needle);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, needle));
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	t_hsa_close(&h);
}

static void test_lv3_unavailable_says_why(void)
{
	struct hsaqm_sim_config c = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL };

	lv3_reason_case(&c, false, false, "cannot open the KFD");
	/* Queues made directly on the core: the KFD never heard of this ring. */
	lv3_reason_case(&c, true, true, "the KFD has no queue with this ring");
	c.kfd_minor_version = 12;
	lv3_reason_case(&c, true, false, "has no DBG_TRAP (needs 1.13)");
	c.kfd_minor_version = 0;
	c.sched_policy = 2;
	lv3_reason_case(&c, true, false, "sched_policy=2");
	c.sched_policy = 0;
	c.cwsr_disable = 1;
	lv3_reason_case(&c, true, false, "cwsr_enable=0");
}

/* A GPU whose KFD node lacks TRAP_DEBUG_SUPPORT: the model's own properties, that bit cleared. */
static void test_lv3_unavailable_on_a_node_without_trap_debug_support(void)
{
	struct hsaqm_sim_config c = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct hsaqm_sim *sim = NULL;
	char src[512], dst[] = "/tmp/hsaqm-test-props-XXXXXX", line[256];
	FILE *in, *out;
	int fd;

	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&c, &sim), 0);
	snprintf(src, sizeof(src), "%s/class/kfd/kfd/topology/nodes/1/properties",
		 hsaqm_sim_sysfs_root(sim));
	in = fopen(src, "r");
	fd = mkstemp(dst);
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(in);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	while (fgets(line, sizeof(line), in)) {
		unsigned long long cap;

		if (sscanf(line, "capability %llu", &cap) == 1)
			fprintf(out, "capability %llu\n",
				cap & ~(unsigned long long)HSAQM_KFD_CAP_TRAP_DEBUG_SUPPORT);
		else
			fputs(line, out);
	}
	fclose(in);
	fclose(out);
	hsaqm_sim_destroy(sim);
	c.properties_path = dst;
	lv3_reason_case(&c, true, false, "lacks TRAP_DEBUG_SUPPORT");
	unlink(dst);
}

static void test_lv3_unavailable_when_another_debugger_holds_the_process(void)
{
	struct hsaqm_sim_config c = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct t_hsa h;
	struct t_app a;
	struct hsaqm_kfd *dbg = NULL;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_3 };
	struct hsaqm_xq_info info;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_cfg(&h, &c), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_lv3_setup(&h), 0);
	/* ROCr's hsa_init: the runtime is enabled before any debugger attaches. */
	CU_ASSERT_EQUAL_FATAL(hsa_face_kfd_ready(h.sim), 0);
	/*
	 * "rocgdb": a debugger session on this process's KFD process before hsaqm asks for one.
	 * The KFD keeps the session per KFD process, one per OS process: this open reaches the
	 * same process as the HSA face's and hsaqm's. (A real rocgdb is another OS process that
	 * ptrace-attached and names our pid; the model cannot host that: each client process of
	 * a shared device runs its own KFD face. The session is the same KFD state either way.)
	 */
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(hsaqm_sim_kfd_transport(h.sim), &dbg), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_dbg_enable(dbg, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, hsaqm_kfd_transport_default()), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_hsa_runtime_set_lv3(&h.rt, HSAQM_KFD_PREF_DBG_TRAP, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &cfg, &a), 0);
	info = t_app_xinfo(&a);
	CU_ASSERT_EQUAL(info.effective_level, HSAQM_LEVEL_2);
	CU_ASSERT_PTR_NOT_NULL(strstr(info.level_reason, "another debugger"));
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	hsaqm_kfd_close(dbg);
	t_hsa_close(&h);
}

/*
 * No test help at all: hsaqm's runtime opens the model's KFD itself, and finds the HSA face's
 * queue there because the KFD has one process per OS process and the face enabled the
 * runtime when it opened its KFD (as ROCr in hsa_init). Suspend and resume then work.
 */
static void test_lv3_found_with_no_setup_as_in_a_real_process(void)
{
	struct hsaqm_sim_config c = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct t_hsa h;
	struct t_app a;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_3 };
	struct hsaqm_kfd *k = NULL;

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_cfg(&h, &c), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, hsaqm_sim_kfd_transport(h.sim)), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &cfg, &a), 0);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).effective_level, HSAQM_LEVEL_3);
	CU_ASSERT_STRING_EQUAL(t_app_xinfo(&a).level_reason, "");
	CU_ASSERT_EQUAL(a.proxy->lv3_state, HSAQM_HSA_LV3_READY);
	/* The runtime was enabled once, by the face: another enable in this process is EBUSY. */
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(hsaqm_sim_kfd_transport(h.sim), &k), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(k, 0, false), -EBUSY);
	hsaqm_kfd_close(k);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	t_hsa_close(&h);
}

static void test_lv3_found_on_the_kfd_path(void)
{
	struct hsaqm_sim_config c = { .num_devices = 1, .time_mode = HSAQM_SIM_TIME_VIRTUAL };
	struct t_hsa h;
	struct t_app a, b;
	struct hsaqm_xq_config cfg = { .level = HSAQM_LEVEL_3 };
	struct hsaqm_xq_config lazy = { .level = HSAQM_LEVEL_2 };

	CU_ASSERT_EQUAL_FATAL(t_hsa_open_cfg(&h, &c), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_lv3_setup(&h), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_runtime(&h, hsaqm_kfd_transport_default()), 0);
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &cfg, &a), 0);
	CU_ASSERT_EQUAL(t_app_xinfo(&a).effective_level, HSAQM_LEVEL_3);
	CU_ASSERT_STRING_EQUAL(t_app_xinfo(&a).level_reason, "");
	CU_ASSERT_EQUAL(a.proxy->lv3_state, HSAQM_HSA_LV3_READY);
	/* Asked for less: the KFD queue is looked up only when a suspend needs it. */
	CU_ASSERT_EQUAL_FATAL(t_hsa_proxy(&h, 0, 64, &lazy, &b), 0);
	CU_ASSERT_EQUAL(b.proxy->max_level, HSAQM_LEVEL_3);
	CU_ASSERT_EQUAL(b.proxy->lv3_state, HSAQM_HSA_LV3_UNRESOLVED);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(a.proxy), 0);
	CU_ASSERT_EQUAL(hsaqm_hsa_proxy_destroy(b.proxy), 0);
	t_hsa_close(&h);
}

static const struct t_case cases[] = {
	T_CASE(test_lv3_unavailable_says_why),
	T_CASE(test_lv3_unavailable_on_a_node_without_trap_debug_support),
	T_CASE(test_lv3_unavailable_when_another_debugger_holds_the_process),
	T_CASE(test_lv3_found_with_no_setup_as_in_a_real_process),
	T_CASE(test_lv3_found_on_the_kfd_path),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "hsa-backend-lv3-found", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("hsa-backend-lv3-found", suites);
}
