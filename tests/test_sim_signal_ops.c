/* SPDX-License-Identifier: MIT */
/*
 * Model signals: every operation returns the old value, model memory is zeroed, aligned and
 * reusable, a handle lookup accepts only live model signals, and destroying a signal drops its
 * armed handlers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"
#include "t_sim_signal.h"

static void test_signal_ops_return_old_values(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct sim_signal *s = sim_signal_create(sim, 10);

	CU_ASSERT_EQUAL(sim_signal_load(s), 10);
	sim_signal_store(sim, s, 12);
	CU_ASSERT_EQUAL(sim_signal_load(s), 12);
	CU_ASSERT_EQUAL(sim_signal_exchange(sim, s, 5), 12);
	CU_ASSERT_EQUAL(sim_signal_cas(sim, s, 4, 9), 5); /* fails: returns the current value */
	CU_ASSERT_EQUAL(sim_signal_load(s), 5);
	CU_ASSERT_EQUAL(sim_signal_cas(sim, s, 5, 9), 5);
	CU_ASSERT_EQUAL(sim_signal_load(s), 9);
	CU_ASSERT_EQUAL(sim_signal_add(sim, s, -4), 9);
	CU_ASSERT_EQUAL(sim_signal_and(sim, s, 0x4), 5);
	CU_ASSERT_EQUAL(sim_signal_or(sim, s, 0x3), 4);
	CU_ASSERT_EQUAL(sim_signal_xor(sim, s, 0x1), 7);
	CU_ASSERT_EQUAL(sim_signal_load(s), 6);
	sim_signal_destroy(sim, s);
	hsaqm_sim_destroy(sim);
}

static void test_model_memory_is_zeroed_aligned_and_reusable(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	size_t big = 3u << 20; /* zeroed through the page cache */

	for (int round = 0; round < 2; round++) {
		unsigned char *a = hsaqm_sim_mem_alloc(sim, big, 4096);
		unsigned char *b = hsaqm_sim_mem_alloc(sim, 100, 256);
		int dirty = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_EQUAL((uintptr_t)a % 4096, 0);
		CU_ASSERT_EQUAL((uintptr_t)b % 256, 0);
		CU_ASSERT(sim_mem_contains(sim, a, big) && sim_mem_contains(sim, b, 100));
		for (size_t i = 0; i < big; i += 997)
			dirty |= a[i];
		for (int i = 0; i < 100; i++)
			dirty |= b[i];
		CU_ASSERT_EQUAL(dirty, 0); /* the second round reuses the first round's dirty blocks */
		memset(a, 0xa5, big);
		memset(b, 0x5a, 100);
		hsaqm_sim_mem_free(sim, a);
		hsaqm_sim_mem_free(sim, b);
	}
	errno = 0;
	CU_ASSERT_PTR_NULL(hsaqm_sim_mem_alloc(sim, 0, 64));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(hsaqm_sim_mem_alloc(sim, 64, 48));
	CU_ASSERT_PTR_NULL(hsaqm_sim_mem_alloc(sim, 64, 0));
	CU_ASSERT_PTR_NULL(hsaqm_sim_mem_alloc(NULL, 64, 64));
	errno = 0;
	CU_ASSERT_PTR_NULL(hsaqm_sim_mem_alloc(sim, (size_t)1 << 40, 64));
	CU_ASSERT_EQUAL(errno, ENOMEM);
	int on_stack;
	CU_ASSERT_FALSE(sim_mem_contains(sim, &on_stack, sizeof(on_stack)));
	hsaqm_sim_mem_free(sim, NULL);
	hsaqm_sim_destroy(sim);
}

static void test_handle_lookup_accepts_only_live_model_signals(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct sim_signal *s = sim_signal_create(sim, 0);
	struct sim_signal heap = { 0 };
	uint64_t *mem = hsaqm_sim_mem_alloc(sim, 128, 64);

	heap.magic = SIM_SIGNAL_MAGIC; /* right magic, but not model memory */
	CU_ASSERT_PTR_EQUAL(sim_signal_from_handle(sim, t_handle(s)), s);
	CU_ASSERT_PTR_NULL(sim_signal_from_handle(sim, 0));
	CU_ASSERT_PTR_NULL(sim_signal_from_handle(sim, t_handle(s) + 4));
	CU_ASSERT_PTR_NULL(sim_signal_from_handle(sim, (uint64_t)(uintptr_t)&heap));
	CU_ASSERT_PTR_NULL(sim_signal_from_handle(sim, (uint64_t)(uintptr_t)mem));
	sim_signal_destroy(sim, s);
	CU_ASSERT_PTR_NULL(sim_signal_from_handle(sim, t_handle(s)));
	hsaqm_sim_mem_free(sim, mem);
	hsaqm_sim_destroy(sim);
}

/*
 * Destroying a signal with an armed async handler drops the handler with it: the loop never
 * reads the freed signal (ASan would report it) and never runs the handler again, even once
 * the memory is reused by a new signal whose value satisfies the old condition.
 */
static void test_destroying_a_signal_drops_its_armed_handlers(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	struct sim_signal *s = sim_signal_create(sim, 1);
	struct t_hcount h = { .keep_for = 100 };

	CU_ASSERT_EQUAL(sim_signal_async_handler(sim, s, SIM_COND_LT, 1, t_count_handler, &h), 0);
	sim_signal_store(sim, s, 0);
	hsaqm_sim_advance(sim, 0);
	CU_ASSERT_EQUAL(h.runs, 1);
	sim_signal_destroy(sim, s);
	struct sim_signal *t = sim_signal_create(sim, 1); /* often the same memory */
	sim_signal_store(sim, t, -1);
	hsaqm_sim_advance(sim, T_MS);
	CU_ASSERT_EQUAL(h.runs, 1);
	sim_signal_destroy(sim, t);
	hsaqm_sim_destroy(sim);
}

static const struct t_case cases[] = {
	T_CASE(test_destroying_a_signal_drops_its_armed_handlers),
	T_CASE(test_signal_ops_return_old_values),
	T_CASE(test_model_memory_is_zeroed_aligned_and_reusable),
	T_CASE(test_handle_lookup_accepts_only_live_model_signals),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "sim-signal-ops", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("test-sim-signal-ops", suites);
}
