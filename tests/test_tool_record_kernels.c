/* SPDX-License-Identifier: MIT */
/*
 * Per-kernel times (docs/replay.md "Per-kernel times"): HIP signals only the kernels a host
 * waits for, so the recorder gives every other kernel dispatch a completion signal of its own.
 * libhsaqm-tool.so loaded by the model's hsa_init as ROCr loads it, ROCclr-style submissions,
 * the file read back with the reader hsaqm-record-dump uses. Proves: at level 0 every kernel
 * has its own times, in queue order, each at least its kernel's model time, while the file
 * shows the packets as the application wrote them and the application's own signal fires
 * exactly once; a queue with more unsignalled kernels in flight than the recorder has signals
 * times as many as it has, counts the rest, and has more signals from then on; above level 0
 * nothing is added.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_cunit.h"
#include "t_record.h"
#include "t_time.h"
#include "t_tool.h"
#include "tool_internal.h"

static const struct hsaqm_sim_config g_cfg = { .num_devices = 1,
					       .time_mode = HSAQM_SIM_TIME_REAL,
					       .seed = 11 };

static char g_dir[256]; /* this run's files; removed at the end */

struct rec_run {
	char path[512], env_rec[600], env_level[64];
	const char *env[3];
	struct t_hsa h;
};

/* The tool loaded with HSAQM_RECORD=@name in this run's directory, at @level (NULL: default). */
static int rec_open(struct rec_run *r, const char *name, const char *level)
{
	snprintf(r->path, sizeof(r->path), "%s/%s", g_dir, name);
	snprintf(r->env_rec, sizeof(r->env_rec), "HSAQM_RECORD=%s", r->path);
	r->env[0] = r->env_rec;
	r->env[1] = NULL;
	if (level) {
		snprintf(r->env_level, sizeof(r->env_level), "HSAQM_LEVEL=%s", level);
		r->env[1] = r->env_level;
	}
	r->env[2] = NULL;
	return t_tool_open(&r->h, t_tool_path(), r->env, &g_cfg);
}

/* hsa_shut_down (the recording closed), then the file read into @f. */
static int rec_close_read(struct rec_run *r, struct hsaqm_record_file *f)
{
	char err[256];
	int rc;

	r->h.core->hsa_shut_down_fn();
	r->h.core = NULL;
	t_tool_close(&r->h, r->env);
	rc = hsaqm_record_file_read(r->path, f, err, sizeof(err));
	if (rc)
		fprintf(stderr, "reading %s: %s\n", r->path, err);
	return rc;
}

static void submit(struct t_hsa *h, struct hsaqm_hsa_queue *q, const union hsaqm_aql_packet *pk)
{
	t_rocclr_submit(h->core, q, pk, NULL, NULL);
}

/* The lib id of the (one) recorded queue, and the UNTIMED record's body (0 when none). */
static uint32_t only_queue(const struct hsaqm_record_file *f, struct hsaqm_rec_untimed_body *ub,
			   unsigned int *nuntimed)
{
	uint32_t qid = 0;

	memset(ub, 0, sizeof(*ub));
	*nuntimed = 0;
	for (size_t i = 0; i < f->nrecs; i++) {
		if (f->recs[i].kind == HSAQM_REC_QUEUE)
			qid = f->recs[i].queue;
		if (f->recs[i].kind == HSAQM_REC_UNTIMED) {
			memcpy(ub, f->recs[i].body, sizeof(*ub));
			(*nuntimed)++;
		}
	}
	return qid;
}

static uint64_t packet_signal(const struct hsaqm_rec_record *r)
{
	union hsaqm_aql_packet p;

	memcpy(&p, r->body, sizeof(p));
	return p.dispatch.completion_signal;
}

/*
 * Five kernels in order (barrier bit), short, long, short, long, then a short one with the
 * application's signal. Each has a TIMES record; the four the application left unsignalled
 * are marked and their packets still say 0; each lasted at least its kernel's time on the
 * model (50 and 400 us: a lower bound, whatever the load) and started no earlier than the one
 * before it ended (the barrier bit), which a time read from another dispatch's signal would
 * break; the application's signal went from 1 to 0 once (not below).
 */
static void test_record_times_each_kernel_the_application_left_unsignalled(void)
{
	struct rec_run r;
	struct hsaqm_record_file f;
	struct hsaqm_rec_untimed_body ub;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_hsa_signal cs;
	union hsaqm_aql_packet pk;
	uint64_t ks, kl, prev_end = 0;
	unsigned int nuntimed;
	uint32_t qid;

	CU_ASSERT_EQUAL_FATAL(rec_open(&r, "kernels.rec", NULL), 0);
	ks = t_hsa_kernel(&r.h, "short", 50 * T_US, 1, NULL);
	kl = t_hsa_kernel(&r.h, "long", 400 * T_US, 1, NULL);
	q = t_hsa_queue(&r.h, 256, HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	CU_ASSERT_FATAL(q && ks && kl);
	cs = t_hsa_signal(&r.h, 1);
	for (int i = 0; i < 4; i++) {
		pk = t_hsa_dispatch(i % 2 ? kl : ks, 1, 0, true, NULL);
		submit(&r.h, q, &pk);
	}
	pk = t_hsa_dispatch(ks, 1, cs.handle, true, NULL);
	submit(&r.h, q, &pk);
	CU_ASSERT(t_hsa_wait_le(&r.h, cs, 0, 10 * T_S));
	CU_ASSERT_EQUAL(r.h.core->hsa_signal_load_scacquire_fn(cs), 0);
	CU_ASSERT_EQUAL_FATAL(rec_close_read(&r, &f), 0);

	qid = only_queue(&f, &ub, &nuntimed);
	for (uint64_t i = 0; i < 5; i++) {
		const struct hsaqm_rec_record *p = t_record_find(&f, HSAQM_REC_PACKET, qid, i);
		const struct hsaqm_rec_record *t = t_record_times_of(&f, qid, i);
		struct hsaqm_rec_times_body b;
		uint64_t least = i % 2 ? 400 * T_US : 50 * T_US;

		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		if (!t)
			fprintf(stderr, "dispatch %llu of 5 has no times\n", (unsigned long long)i);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		memcpy(&b, t->body, sizeof(b));
		if (i < 4) {
			CU_ASSERT_EQUAL(p->aux & HSAQM_REC_PACKET_OWN_SIGNAL, HSAQM_REC_PACKET_OWN_SIGNAL);
			CU_ASSERT_EQUAL(packet_signal(p), 0u);
			CU_ASSERT(b.signal != 0 && b.signal != cs.handle);
		} else {
			CU_ASSERT_EQUAL(p->aux, 0u);
			CU_ASSERT_EQUAL(packet_signal(p), cs.handle);
			CU_ASSERT_EQUAL(b.signal, cs.handle);
		}
		if (b.end - b.start < least || b.start < prev_end)
			fprintf(stderr, "dispatch %llu: %llu..%llu (%llu ns, at least %llu), the one "
				"before ended at %llu\n", (unsigned long long)i,
				(unsigned long long)b.start, (unsigned long long)b.end,
				(unsigned long long)(b.end - b.start), (unsigned long long)least,
				(unsigned long long)prev_end);
		CU_ASSERT(b.end > b.start && b.end - b.start >= least);
		CU_ASSERT(b.start >= prev_end);
		prev_end = b.end;
	}
	CU_ASSERT_EQUAL(nuntimed, 1u);
	CU_ASSERT_EQUAL(ub.unsignalled, 0u);
	CU_ASSERT_EQUAL(ub.waiting, 0u);
	hsaqm_record_file_free(&f);
	unlink(r.path);
}

/* In the file as written so far: TIMES records, and PACKET records with the recorder's signal. */
static void file_counts(const char *path, unsigned int *times, unsigned int *own)
{
	struct hsaqm_record_file f;
	char err[256];

	*times = *own = 0;
	if (hsaqm_record_file_read(path, &f, err, sizeof(err)))
		return;
	for (size_t i = 0; i < f.nrecs; i++) {
		*times += f.recs[i].kind == HSAQM_REC_TIMES;
		*own += f.recs[i].kind == HSAQM_REC_PACKET &&
			(f.recs[i].aux & HSAQM_REC_PACKET_OWN_SIGNAL);
	}
	hsaqm_record_file_free(&f);
}

/* Packet @index of @qid has its TIMES record in the file as written so far. */
static bool timed_in_file(const char *path, uint32_t qid, uint64_t index)
{
	struct hsaqm_record_file f;
	char err[256];
	bool yes;

	if (hsaqm_record_file_read(path, &f, err, sizeof(err)))
		return false;
	yes = t_record_times_of(&f, qid, index) != NULL;
	hsaqm_record_file_free(&f);
	return yes;
}

/* A barrier-AND on @gate (held at 1 by the host), then @n unsignalled kernels, then one with @cs. */
static void gated_burst(struct t_hsa *h, struct hsaqm_hsa_queue *q, struct hsaqm_hsa_signal gate,
			uint64_t k, unsigned int n, struct hsaqm_hsa_signal cs)
{
	struct hsaqm_aql_barrier_desc d = { .dep_signals = &gate.handle, .num_deps = 1,
					    .barrier = true,
					    .acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
					    .release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM };
	union hsaqm_aql_packet pk;

	CU_ASSERT_EQUAL_FATAL(hsaqm_aql_barrier_and_build(&pk, &d), 0);
	submit(h, q, &pk);
	pk = t_hsa_dispatch(k, 1, 0, true, NULL);
	for (unsigned int i = 0; i < n; i++)
		submit(h, q, &pk);
	pk = t_hsa_dispatch(k, 1, cs.handle, true, NULL);
	submit(h, q, &pk);
	h->core->hsa_signal_store_screlease_fn(gate, 0);
	CU_ASSERT(t_hsa_wait_le(h, cs, 0, 20 * T_S));
}

/*
 * More unsignalled kernels in flight than a queue's first signals: a barrier-AND on a signal
 * the host holds at 1 keeps them all waiting (none comes back meanwhile), then the host opens
 * it. Every kernel is either timed or counted unsignalled, at least the first signals' worth
 * timed. Then, once the writer has had a round after that (two signalled probes, each seen
 * timed in the file, the second submitted after the first's round ended), the queue has more
 * signals: a second burst of 1000 is timed whole, and the count of unsignalled ones is the
 * first burst's alone.
 */
static void test_record_a_queue_out_of_signals_counts_the_rest_then_has_more(void)
{
	const unsigned int n1 = TOOL_RECORD_OWN_SIGNALS + 88, n2 = 1000;
	struct rec_run r;
	struct hsaqm_record_file f;
	struct hsaqm_rec_untimed_body ub;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_hsa_signal gate, cs;
	union hsaqm_aql_packet pk;
	unsigned int nuntimed, packets = 0, own1 = 0, own2 = 0, times, own, timed1 = 0, timed2 = 0;
	uint64_t ks, probe = n1 + 2, second;
	uint32_t qid;

	CU_ASSERT_EQUAL_FATAL(rec_open(&r, "out.rec", NULL), 0);
	ks = t_hsa_kernel(&r.h, "short", 5 * T_US, 1, NULL);
	q = t_hsa_queue(&r.h, 2048, HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	CU_ASSERT_FATAL(q && ks);
	gate = t_hsa_signal(&r.h, 1);
	cs = t_hsa_signal(&r.h, 1);
	gated_burst(&r.h, q, gate, ks, n1, cs);
	/* Every signal of the first burst read and given back. */
	CU_ASSERT(T_UNTIL_EVERY((file_counts(r.path, &times, &own),
				 own >= TOOL_RECORD_OWN_SIGNALS && times >= own + 1),
				10 * T_S, 10 * T_MS));
	qid = 1;
	for (int i = 0; i < 2; i++, probe++) {
		r.h.core->hsa_signal_store_screlease_fn(cs, 1);
		pk = t_hsa_dispatch(ks, 1, cs.handle, true, NULL);
		submit(&r.h, q, &pk);
		CU_ASSERT(t_hsa_wait_le(&r.h, cs, 0, 10 * T_S));
		CU_ASSERT(T_UNTIL_EVERY(timed_in_file(r.path, qid, probe), 10 * T_S, 10 * T_MS));
	}
	second = probe;
	r.h.core->hsa_signal_store_screlease_fn(gate, 1);
	r.h.core->hsa_signal_store_screlease_fn(cs, 1);
	gated_burst(&r.h, q, gate, ks, n2, cs);
	CU_ASSERT_EQUAL_FATAL(rec_close_read(&r, &f), 0);

	CU_ASSERT_EQUAL(only_queue(&f, &ub, &nuntimed), qid);
	for (size_t i = 0; i < f.nrecs; i++) {
		const struct hsaqm_rec_record *x = &f.recs[i];
		bool first = x->index < probe - 2;

		if (x->queue != qid)
			continue;
		if (x->kind == HSAQM_REC_PACKET) {
			packets++;
			if (x->aux & HSAQM_REC_PACKET_OWN_SIGNAL)
				*(first ? &own1 : &own2) += 1;
		}
		timed1 += x->kind == HSAQM_REC_TIMES && first;
		timed2 += x->kind == HSAQM_REC_TIMES && x->index > second;
	}
	if (own1 + ub.unsignalled != n1 || own2 != n2)
		fprintf(stderr, "first burst of %u: %u with the recorder's signal, %llu counted "
			"unsignalled; second of %u: %u with the recorder's signal\n", n1, own1,
			(unsigned long long)ub.unsignalled, n2, own2);
	CU_ASSERT_EQUAL(packets, (n1 + 2) + 2 + (n2 + 2));
	CU_ASSERT(own1 >= TOOL_RECORD_OWN_SIGNALS);
	CU_ASSERT_EQUAL(own1 + ub.unsignalled, n1);
	/* The recorder's and the application's kernel (a barrier without a signal has none). */
	CU_ASSERT_EQUAL(timed1, own1 + 1);
	CU_ASSERT_EQUAL(own2, n2);
	CU_ASSERT_EQUAL(timed2, n2 + 1);
	CU_ASSERT_EQUAL(nuntimed, 1u);
	hsaqm_record_file_free(&f);
	unlink(r.path);
}

/*
 * Above level 0 the scan notes every completion signal for the schedulers (hsa_dep.c): the
 * recorder adds none there. At lv1, two unsignalled kernels and a signalled one: no packet is
 * marked, the one signalled dispatch alone has times, and none is counted unsignalled.
 */
static void test_record_above_level_0_adds_no_signal(void)
{
	struct rec_run r;
	struct hsaqm_record_file f;
	struct hsaqm_rec_untimed_body ub;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_hsa_signal cs;
	union hsaqm_aql_packet pk;
	unsigned int nuntimed, own = 0, times = 0;
	uint64_t ks;
	uint32_t qid;

	CU_ASSERT_EQUAL_FATAL(rec_open(&r, "lv1.rec", "lv1"), 0);
	ks = t_hsa_kernel(&r.h, "short", 20 * T_US, 1, NULL);
	q = t_hsa_queue(&r.h, 256, HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	CU_ASSERT_FATAL(q && ks);
	cs = t_hsa_signal(&r.h, 1);
	pk = t_hsa_dispatch(ks, 1, 0, true, NULL);
	submit(&r.h, q, &pk);
	submit(&r.h, q, &pk);
	pk = t_hsa_dispatch(ks, 1, cs.handle, true, NULL);
	submit(&r.h, q, &pk);
	CU_ASSERT(t_hsa_wait_le(&r.h, cs, 0, 10 * T_S));
	CU_ASSERT_EQUAL_FATAL(rec_close_read(&r, &f), 0);

	qid = only_queue(&f, &ub, &nuntimed);
	for (size_t i = 0; i < f.nrecs; i++) {
		own += f.recs[i].kind == HSAQM_REC_PACKET &&
		       (f.recs[i].aux & HSAQM_REC_PACKET_OWN_SIGNAL);
		times += f.recs[i].kind == HSAQM_REC_TIMES;
	}
	CU_ASSERT_EQUAL(own, 0u);
	CU_ASSERT_EQUAL(times, 1u);
	CU_ASSERT_PTR_NOT_NULL(t_record_times_of(&f, qid, 2));
	CU_ASSERT_EQUAL(ub.unsignalled, 0u);
	hsaqm_record_file_free(&f);
	unlink(r.path);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	static struct t_case cases[] = {
		T_CASE(test_record_times_each_kernel_the_application_left_unsignalled),
		T_CASE(test_record_a_queue_out_of_signals_counts_the_rest_then_has_more),
		T_CASE(test_record_above_level_0_adds_no_signal),
		T_CASES_END,
	};
	static const struct t_suite suites[] = { { "record-kernels", NULL, NULL, cases },
						 T_SUITES_END };
	int rc;

	if (!t_tool_path())
		return t_skip("test-tool-record-kernels",
			      "HSAQM_TEST_TOOL_LIB not set (run it with meson test)");
	snprintf(g_dir, sizeof(g_dir), "%s/hsaqm-record-k-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(g_dir)) {
		perror("mkdtemp");
		return 1;
	}
	rc = t_run("test-tool-record-kernels", suites);
	rmdir(g_dir); /* each case removed its files */
	return rc;
}
