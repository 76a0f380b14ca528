/* SPDX-License-Identifier: MIT */
/*
 * The model's hardware scheduler's runlist: deactivate unmaps every queue once and maps the
 * others again, a priority update preempts every queue as the KFD's does, a destroy discards
 * running workgroups while other queues run on; bad control arguments are -EINVAL; the trace
 * is valid Chrome JSON even after an early destroy.
 *
 * Virtual time, default MI308X profile: map/unmap 20 us, launch 5 us, CWSR 1 us per wave each
 * way, quantum 10 ms, 80 CUs x 32 wave slots, grace unit 1024 clocks at 1420 MHz.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_internal.h"
#include "t_cunit.h"
#include "t_json.h"
#include "t_sim.h"
#include "t_sim_hws.h"

static void test_deactivate_unmaps_every_queue_once_and_remaps_the_others(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q q[3];
	static struct t_hws_rec r[3];
	struct sim_signal *cs[3];
	struct sim_hwq_stats before[3], after[3];

	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL_FATAL(t_q_create(&q[i], sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	for (int i = 0; i < 3; i++) {
		uint64_t k = t_hws_kernel(sim, 2 * T_MS, 4, &r[i]);
		union hsaqm_aql_packet p;

		cs[i] = sim_signal_create(sim, 1);
		p = t_dispatch(k, 10, t_handle(cs[i]), false);
		t_q_submit(&q[i], &p);
	}
	hsaqm_sim_advance(sim, 100 * T_US);
	for (int i = 0; i < 3; i++)
		sim_hwq_get_stats(q[i].hwq, &before[i]);
	uint64_t t_u = hsaqm_sim_now_ns(sim);
	CU_ASSERT_EQUAL(sim_hwq_update(q[2].hwq, q[2].ring, q[2].slots * 64, 7, false), 0);
	/* Returned after the unmap of all: default grace 0, save (10 workgroups of 4 waves on
	 * ten CUs per queue: 4 waves x 1 us), unmap. */
	CU_ASSERT_EQUAL(hsaqm_sim_now_ns(sim), t_u + 4 * T_US + T_HWS_UNMAP);
	for (int i = 0; i < 3; i++) {
		sim_hwq_get_stats(q[i].hwq, &after[i]);
		CU_ASSERT_EQUAL(after[i].unmaps, before[i].unmaps + 1);
	}
	CU_ASSERT_EQUAL(t_q_state(&q[2]), SIM_HWQ_SUSPENDED);
	hsaqm_sim_advance(sim, 10 * T_MS);
	for (int i = 0; i < 2; i++) {
		sim_hwq_get_stats(q[i].hwq, &after[i]);
		CU_ASSERT_EQUAL(after[i].maps, before[i].maps + 1);
		CU_ASSERT_EQUAL(sim_signal_load(cs[i]), 0);
		CU_ASSERT(t_each_once(&r[i], 10));
	}
	/* The inactive queue keeps its saved waves and does not run. */
	sim_hwq_get_stats(q[2].hwq, &after[2]);
	CU_ASSERT_EQUAL(after[2].maps, before[2].maps);
	CU_ASSERT_EQUAL(r[2].count, 0);
	CU_ASSERT_EQUAL(sim_signal_load(cs[2]), 1);
	CU_ASSERT_EQUAL(sim_hwq_update(q[2].hwq, q[2].ring, q[2].slots * 64, 7, true), 0);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	CU_ASSERT(t_each_once(&r[2], 10));
	CU_ASSERT_EQUAL(sim_signal_load(cs[2]), 0);
	for (int i = 0; i < 3; i++)
		t_q_destroy(&q[i]);
	hsaqm_sim_destroy(sim);
}

static void test_priority_update_preempts_every_queue_like_the_kfd(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q a, b;
	struct sim_hwq_stats sa, sb;
	struct sim_hwq_info info;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&a, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&b, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	sim_hwq_get_stats(b.hwq, &sb);
	CU_ASSERT_EQUAL(sim_hwq_update(a.hwq, a.ring, a.slots * 64, 15, true), 0);
	sim_hwq_get_info(a.hwq, &info);
	CU_ASSERT_EQUAL(info.priority, 15);
	sim_hwq_get_stats(b.hwq, &sa);
	CU_ASSERT_EQUAL(sa.unmaps, sb.unmaps + 1); /* the other queue paid an unmap too */
	CU_ASSERT_EQUAL(sim_hwq_update(a.hwq, a.ring, a.slots * 64, 16, true), -EINVAL);
	t_q_destroy(&a);
	t_q_destroy(&b);
	hsaqm_sim_destroy(sim);
}

static void test_destroy_discards_running_workgroups_and_other_queues_run_on(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q a, b;
	static struct t_hws_rec ra, rb;

	CU_ASSERT_EQUAL_FATAL(t_q_create(&a, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&b, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	uint64_t ka = t_hws_kernel(sim, T_MS, 4, &ra), kb = t_hws_kernel(sim, T_MS, 4, &rb);
	struct sim_signal *csa = sim_signal_create(sim, 1), *csb = sim_signal_create(sim, 1);
	union hsaqm_aql_packet pa = t_dispatch(ka, 8, t_handle(csa), false);
	union hsaqm_aql_packet pb = t_dispatch(kb, 8, t_handle(csb), false);

	t_q_submit(&a, &pa);
	t_q_submit(&b, &pb);
	hsaqm_sim_advance(sim, 200 * T_US);
	t_q_destroy(&a);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(sim, T_S), 0);
	CU_ASSERT_EQUAL(ra.count, 0);
	CU_ASSERT_EQUAL(sim_signal_load(csa), 1); /* never completes */
	CU_ASSERT(t_each_once(&rb, 8));
	CU_ASSERT_EQUAL(sim_signal_load(csb), 0);
	t_q_destroy(&b);
	hsaqm_sim_destroy(sim);
}

static void test_bad_control_arguments_are_einval(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct t_q q;
	uint64_t *idx = hsaqm_sim_mem_alloc(sim, 64, 64);
	void *ring = hsaqm_sim_mem_alloc(sim, 4096, 64);
	static uint64_t heap_idx[2];
	struct sim_hwq *h = NULL;

	struct sim_hwq_desc d = { .ring_base = ring, .ring_size_bytes = 4096, .write_ptr = idx,
				  .read_ptr = idx + 1, .priority = 7, .active = true };
	struct sim_hwq_desc bad = d;
	bad.ring_size_bytes = 3000;
	CU_ASSERT_EQUAL(sim_hwq_create(sim, &bad, &h), -EINVAL);
	bad = d;
	bad.write_ptr = heap_idx; /* not model memory */
	CU_ASSERT_EQUAL(sim_hwq_create(sim, &bad, &h), -EINVAL);
	bad = d;
	bad.priority = 16;
	CU_ASSERT_EQUAL(sim_hwq_create(sim, &bad, &h), -EINVAL);
	bad = d;
	bad.dev = 1;
	CU_ASSERT_EQUAL(sim_hwq_create(sim, &bad, &h), -EINVAL);
	CU_ASSERT_EQUAL(sim_hwq_create(sim, NULL, &h), -EINVAL);
	CU_ASSERT_EQUAL(sim_hwq_suspend(NULL, 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(sim_hwq_resume(NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(sim_hwq_destroy(NULL), -EINVAL);
	CU_ASSERT_EQUAL(sim_hwq_get_info(NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL(sim_hwq_update(q.hwq, (char *)q.ring + 8, 1024, 7, true), -EINVAL);
	t_q_destroy(&q);
	hsaqm_sim_destroy(sim);
}

/* ---- trace ---- */


static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_trace_is_valid_chrome_json_even_after_an_early_destroy(void)
{
	char path[] = "/tmp/hsaqm-sim-trace-XXXXXX";
	int fd = mkstemp(path);
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .trace_path = path };
	struct hsaqm_sim *sim = NULL;
	struct t_q q, g, e;

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&cfg, &sim), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&q, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&g, sim, 0, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(t_q_create(&e, sim, 0, 16, 7), 0);
	hsaqm_sim_run_until_idle(sim, T_S);
	struct hsaqm_sim_kernel_desc kd = { .name = "gemm \"big\"", .duration_ns = 300 * T_US, .waves_per_wg = 4 };
	uint64_t k;
	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(sim, &kd, &k), 0);
	struct sim_signal *gate = sim_signal_create(sim, 1);
	uint64_t dep = t_handle(gate);
	union hsaqm_aql_packet p = t_dispatch(k, 100, 0, false), b = t_barrier_and(&dep, 1, 0, false);

	/* A reserved packet type: a queue error, whose reason goes into the trace escaped. */
	union hsaqm_aql_packet bad = p;

	bad.dispatch.header = (uint16_t)((bad.dispatch.header & ~0xffu) | 7u);
	t_q_submit(&q, &p);
	t_q_submit(&g, &b);
	t_q_submit(&g, &p);
	uint64_t bad_idx = t_q_reserve(&e);

	t_q_publish_raw(&e, bad_idx, &bad);
	sim_hwq_doorbell(e.hwq, bad_idx);
	hsaqm_sim_advance(sim, 100 * T_US);
	sim_signal_store(sim, gate, 0);
	CU_ASSERT_EQUAL(sim_hwq_suspend(&q.hwq, 1, 10), 0);
	hsaqm_sim_advance(sim, 100 * T_US);
	sim_trace_instant(sim, 0, 7, "face event", "{\"x\":1}");
	/* Destroyed with work in flight, a queue suspended and a kernel half done. */
	hsaqm_sim_destroy(sim);

	char *text = slurp(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT(t_json_valid(text));
	CU_ASSERT(text[0] == '[');
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"ph\":\"X\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"ph\":\"i\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"map\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"preempt\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"suspend\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"barrier-and wait\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "gemm \\\"big\\\" (saved)")); /* escaped, CWSR-saved batch */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"face event\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"queue error\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"why\":\"reserved packet type\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"thread_name\""));
	
	free(text);
	unlink(path);
}

static const struct t_case cases[] = {
	T_CASE(test_deactivate_unmaps_every_queue_once_and_remaps_the_others),
	T_CASE(test_priority_update_preempts_every_queue_like_the_kfd),
	T_CASE(test_destroy_discards_running_workgroups_and_other_queues_run_on),
	T_CASE(test_bad_control_arguments_are_einval),
	T_CASE(test_trace_is_valid_chrome_json_even_after_an_early_destroy),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-hws-runlist", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-sim-hws-runlist", suites);
}
