/* SPDX-License-Identifier: MIT */
/*
 * The recorder (HSAQM_RECORD, docs/replay.md "Recording"): libhsaqm-tool.so loaded by the
 * model's hsa_init as ROCr loads it, ROCclr-style clients, the file read back with the reader
 * hsaqm-record-dump uses. Proves: a recording of known work (three queues at three HIP
 * priorities, kernels of known sizes, a barrier-AND on another queue's completion signal, a
 * barrier-value on a third queue's) lists exactly those packets with their sizes, queues,
 * priorities and dependencies, and the dump resolves each dependency to the packet that fires
 * it and writes a trace Perfetto opens (valid JSON); HSAQM_RECORD_MAX_MB stops the recording
 * with one message and the program goes on; a recording cut by SIGKILL reads, without error,
 * up to its last flushed block, and a torn or corrupted last block is where the reader stops;
 * bad HSAQM_RECORD / HSAQM_RECORD_MAX_MB values are said once and nothing is recorded; each
 * dispatch of a kernel whose executable was frozen is named by its symbol (a name longer than a
 * record's piece included), one of no executable has no name.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record_read.h"
#include "t_cunit.h"
#include "t_record.h"
#include "t_stderr.h"
#include "t_time.h"
#include "t_tool.h"
#include "tool_internal.h"

static const struct hsaqm_sim_config g_cfg = { .num_devices = 1,
					       .time_mode = HSAQM_SIM_TIME_REAL,
					       .seed = 7 };

static char g_dir[256]; /* this run's files; removed at the end */

static void path_in_dir(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", g_dir, name);
}

static struct hsaqm_hsa_queue *queue(struct t_hsa *h, uint32_t size, int prio)
{
	struct hsaqm_hsa_queue *q = t_hsa_queue(h, size, prio);

	CU_ASSERT_PTR_NOT_NULL(q);
	return q;
}

static void submit(struct t_hsa *h, struct hsaqm_hsa_queue *q, const union hsaqm_aql_packet *pk)
{
	t_rocclr_submit(h->core, q, pk, NULL, NULL);
}

/* hsa_shut_down (OnUnload: the queues left are destroyed, the recording closed). */
static void shut_down(struct t_hsa *h, const char *const *env)
{
	h->core->hsa_shut_down_fn();
	h->core = NULL;
	t_tool_close(h, env);
}

/* ---- A recording of known work ------------------------------------------------------------ */

struct known {
	uint32_t id[3];          /* the recorded queue of ql, qh, qn */
	uint64_t hsa_id[3];
	unsigned int packets[3];
	unsigned int queues, gone, other;
	unsigned int times[3], clocks, untimed;
};

/* TIMES records in @path so far (the file is read while it is written: whole blocks only). */
static unsigned int times_in(const char *path)
{
	struct hsaqm_record_file f;
	unsigned int n = 0;
	char err[256];

	if (hsaqm_record_file_read(path, &f, err, sizeof(err)))
		return 0;
	for (size_t i = 0; i < f.nrecs; i++)
		n += f.recs[i].kind == HSAQM_REC_TIMES;
	hsaqm_record_file_free(&f);
	return n;
}

static int which(const struct known *k, uint32_t queue)
{
	for (int i = 0; i < 3; i++)
		if (k->id[i] == queue)
			return i;
	return -1;
}

/* Run @cmd, returning its stdout (malloc'ed) or NULL. */
static char *run_capture(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);

	if (!p || !buf) {
		if (p)
			pclose(p);
		free(buf);
		return NULL;
	}
	for (size_t got; (got = fread(buf + n, 1, cap - n - 1, p)) > 0;) {
		n += got;
		if (n + 1 == cap) {
			char *b = realloc(buf, cap * 2);

			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
	}
	buf[n] = '\0';
	if (pclose(p) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void test_record_lists_exactly_the_known_work(void)
{
	char path[512], env_rec[600], cmd[1400], needle[256], *out, *line;
	const char *env[] = { env_rec, NULL };
	struct hsaqm_hsa_queue *ql, *qh, *qn;
	struct hsaqm_hsa_signal cs_l, cs_h, cs_n;
	struct hsaqm_record_file f;
	union hsaqm_aql_packet pk;
	struct known k;
	uint64_t k1, k2, t_end, last_t[3] = { 0 };
	struct t_hsa h;
	char err[256];

	memset(&k, 0, sizeof(k));
	path_in_dir(path, sizeof(path), "known.rec");
	snprintf(env_rec, sizeof(env_rec), "HSAQM_RECORD=%s", path);
	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), env, &g_cfg), 0);
	k1 = t_hsa_kernel(&h, "k1", 20 * T_US, 1, NULL);
	k2 = t_hsa_kernel(&h, "k2", 30 * T_US, 1, NULL);
	ql = queue(&h, 256, HSAQM_HSA_AMD_QUEUE_PRIORITY_LOW);
	qh = queue(&h, 256, HSAQM_HSA_AMD_QUEUE_PRIORITY_HIGH);
	qn = queue(&h, 256, HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	CU_ASSERT_FATAL(ql && qh && qn && k1 && k2);
	cs_l = t_hsa_signal(&h, 2);
	cs_h = t_hsa_signal(&h, 1);
	cs_n = t_hsa_signal(&h, 1);

	/* Low: two kernels of 3 workgroups; high: one of 5. */
	pk = t_hsa_dispatch(k1, 3, cs_l.handle, true, NULL);
	submit(&h, ql, &pk);
	submit(&h, ql, &pk);
	pk = t_hsa_dispatch(k2, 5, cs_h.handle, true, NULL);
	submit(&h, qh, &pk);
	/* Normal: waits on high's completion (barrier-AND), on low's (barrier-value), then runs. */
	{
		struct hsaqm_aql_barrier_desc d = { .dep_signals = &cs_h.handle, .num_deps = 1,
						    .barrier = true,
						    .acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
						    .release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM };
		struct hsaqm_aql_barrier_value_desc v = { .signal = cs_l.handle, .value = 0,
							  .mask = -1, .cond = HSAQM_AQL_COND_EQ,
							  .barrier = true,
							  .acquire_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM,
							  .release_scope = HSAQM_AQL_FENCE_SCOPE_SYSTEM };

		CU_ASSERT_EQUAL_FATAL(hsaqm_aql_barrier_and_build(&pk, &d), 0);
		submit(&h, qn, &pk);
		CU_ASSERT_EQUAL_FATAL(hsaqm_aql_barrier_value_build(&pk, &v), 0);
		submit(&h, qn, &pk);
	}
	pk = t_hsa_dispatch(k1, 2, cs_n.handle, true, NULL);
	submit(&h, qn, &pk);
	CU_ASSERT(t_hsa_wait_le(&h, cs_n, 0, 10 * T_S));
	CU_ASSERT(t_hsa_wait_le(&h, cs_l, 0, 10 * T_S));
	/*
	 * The writer reads each dispatch's times once it sees its signal at 0 (within a drain,
	 * 100 ms, and a poll, 5 ms): three signals, so three TIMES records, the two low kernels
	 * sharing cs_l (counted from 2) timed as the second, whose completion brings it to 0.
	 */
	CU_ASSERT(T_UNTIL_EVERY(times_in(path) >= 3, 5 * T_S, 10 * T_MS));
	k.hsa_id[0] = ql->id;
	k.hsa_id[1] = qh->id;
	k.hsa_id[2] = qn->id;
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(ql), HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(qh), HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(qn), HSAQM_HSA_STATUS_SUCCESS);
	shut_down(&h, env);
	t_end = t_mono_ns();

	CU_ASSERT_EQUAL_FATAL(hsaqm_record_file_read(path, &f, err, sizeof(err)), 0);
	CU_ASSERT_FALSE(f.torn);
	CU_ASSERT_EQUAL(f.hdr.version, HSAQM_REC_VERSION);
	CU_ASSERT_EQUAL(f.hdr.pid, (uint32_t)getpid());
	CU_ASSERT_EQUAL(f.hdr.clock_id, 1u);
	CU_ASSERT_EQUAL(f.hdr.level, (uint32_t)HSAQM_LEVEL_NONE); /* pass-through by default */
	CU_ASSERT_EQUAL(f.hdr.max_mb, HSAQM_TOOL_RECORD_MAX_MB_DEFAULT);
	CU_ASSERT_NOT_EQUAL(f.hdr.boot_id[0], '\0');

	/* The queues first (each queue's records are in its order), then every packet. */
	for (size_t i = 0; i < f.nrecs; i++) {
		const struct hsaqm_rec_record *r = &f.recs[i];

		if (r->kind != HSAQM_REC_QUEUE)
			continue;
		for (int q = 0; q < 3; q++)
			if (r->index == k.hsa_id[q])
				k.id[q] = r->queue;
		k.queues++;
	}
	CU_ASSERT_EQUAL_FATAL(k.queues, 3u);
	CU_ASSERT_FATAL(k.id[0] && k.id[1] && k.id[2]);
	for (size_t i = 0; i < f.nrecs; i++) {
		const struct hsaqm_rec_record *r = &f.recs[i];
		const union hsaqm_aql_packet pkt = hsaqm_record_packet(r), *p = &pkt;
		int q = which(&k, r->queue);

		if (r->kind == HSAQM_REC_CLOCK) {
			struct hsaqm_rec_clock_body cb;

			memcpy(&cb, r->body, sizeof(cb));
			CU_ASSERT(cb.system_hz > 0 && cb.system_ts > 0);
			k.clocks++;
			continue;
		}
		if (r->kind == HSAQM_REC_UNTIMED) {
			struct hsaqm_rec_untimed_body ub;

			/*
			 * The close says what has no times: low's first kernel, whose signal its
			 * second took over before it reached 0 (given up as "reused").
			 */
			memcpy(&ub, r->body, sizeof(ub));
			CU_ASSERT(ub.waiting == 0 && ub.reused == 1 && ub.full == 0 && r->aux == 0);
			CU_ASSERT_EQUAL(i, f.nrecs - 1);
			k.untimed++;
			continue;
		}
		CU_ASSERT(q >= 0);
		if (r->kind == HSAQM_REC_TIMES && q >= 0) {
			struct hsaqm_rec_times_body tb;

			memcpy(&tb, r->body, sizeof(tb));
			/* Of the dispatch whose signal reached 0: low's second, high's, normal's. */
			CU_ASSERT_EQUAL(r->index, q == 0 ? 1u : q == 1 ? 0u : 2u);
			CU_ASSERT_EQUAL(tb.signal, q == 0 ? cs_l.handle : q == 1 ? cs_h.handle
									 : cs_n.handle);
			/* Model ns: k2 is 30 us a workgroup, k1 20 us (5 and 2-3 WGs run at once). */
			CU_ASSERT(tb.start > 0 && tb.end > tb.start);
			CU_ASSERT(tb.end - tb.start >= (q == 1 ? 30u : 20u) * 1000u);
			CU_ASSERT(tb.end - tb.start < 10u * 1000 * 1000);
			k.times[q]++;
			continue;
		}
		CU_ASSERT(r->t_ns >= f.hdr.start_mono_ns && r->t_ns <= t_end);
		if (q < 0)
			continue;
		/* Each queue's records in time order. */
		CU_ASSERT(r->t_ns >= last_t[q]);
		last_t[q] = r->t_ns;
		if (r->kind == HSAQM_REC_QUEUE_GONE) {
			CU_ASSERT_EQUAL(r->index, q == 1 ? 1u : q == 0 ? 2u : 3u); /* packets seen */
			k.gone++;
			continue;
		}
		if (r->kind != HSAQM_REC_PACKET) {
			if (r->kind != HSAQM_REC_QUEUE)
				k.other++;
			continue;
		}
		CU_ASSERT_EQUAL(r->index, k.packets[q]);
		k.packets[q]++;
		/* Process priority 0, HIP step 10: low -10, high +10, normal 0. */
		CU_ASSERT_EQUAL(r->priority, q == 0 ? -10 : q == 1 ? 10 : 0);
		CU_ASSERT_EQUAL(r->hsa_prio, q == 0 ? 0u : q == 1 ? 2u : 1u);
		if (q == 0) {
			CU_ASSERT_STRING_EQUAL(hsaqm_record_packet_kind(r), "kernel_dispatch");
			CU_ASSERT_EQUAL(p->dispatch.kernel_object, k1);
			CU_ASSERT_EQUAL(p->dispatch.grid_size_x, 3u * 64);
			CU_ASSERT_EQUAL(p->dispatch.workgroup_size_x, 64u);
			CU_ASSERT_EQUAL(p->dispatch.completion_signal, cs_l.handle);
		} else if (q == 1) {
			CU_ASSERT_STRING_EQUAL(hsaqm_record_packet_kind(r), "kernel_dispatch");
			CU_ASSERT_EQUAL(p->dispatch.kernel_object, k2);
			CU_ASSERT_EQUAL(p->dispatch.grid_size_x, 5u * 64);
			CU_ASSERT_EQUAL(p->dispatch.completion_signal, cs_h.handle);
		} else if (r->index == 0) {
			CU_ASSERT_STRING_EQUAL(hsaqm_record_packet_kind(r), "barrier_and");
			CU_ASSERT_EQUAL(p->barrier.dep_signal[0], cs_h.handle);
			for (int d = 1; d < 5; d++)
				CU_ASSERT_EQUAL(p->barrier.dep_signal[d], 0u);
		} else if (r->index == 1) {
			CU_ASSERT_STRING_EQUAL(hsaqm_record_packet_kind(r), "barrier_value");
			CU_ASSERT_EQUAL(p->barrier_value.signal, cs_l.handle);
			CU_ASSERT_EQUAL(p->barrier_value.value, 0);
			CU_ASSERT_EQUAL(p->barrier_value.cond, HSAQM_AQL_COND_EQ);
		} else {
			CU_ASSERT_STRING_EQUAL(hsaqm_record_packet_kind(r), "kernel_dispatch");
			CU_ASSERT_EQUAL(p->dispatch.kernel_object, k1);
			CU_ASSERT_EQUAL(p->dispatch.grid_size_x, 2u * 64);
			CU_ASSERT_EQUAL(p->dispatch.completion_signal, cs_n.handle);
		}
	}
	CU_ASSERT_EQUAL(k.packets[0], 2u);
	CU_ASSERT_EQUAL(k.packets[1], 1u);
	CU_ASSERT_EQUAL(k.packets[2], 3u);
	CU_ASSERT_EQUAL(k.gone, 3u);
	CU_ASSERT_EQUAL(k.other, 0u); /* nothing lost, no limit */
	CU_ASSERT(k.times[0] == 1 && k.times[1] == 1 && k.times[2] == 1);
	CU_ASSERT(k.clocks >= 1);
	CU_ASSERT_EQUAL(k.untimed, 1u);
	CU_ASSERT_EQUAL(f.nrecs, 3u + 6u + 3u + 3u + k.clocks + 1u);
	hsaqm_record_file_free(&f);

	/* The dump: a valid object a line, the barrier-AND's dependency resolved to high's packet. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s'", getenv("HSAQM_TEST_RECORD_DUMP"), path);
	out = run_capture(cmd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(t_count(out, "\n"), 1u + 16u + k.clocks);
	for (char *save = NULL, *s = out; (line = strtok_r(s, "\n", &save)); s = NULL)
		CU_ASSERT(t_json_valid(line));
	free(out);
	out = run_capture(cmd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	snprintf(needle, sizeof(needle), "\"kind\":\"barrier_and\"");
	CU_ASSERT_EQUAL(t_count(out, needle), 1u);
	snprintf(needle, sizeof(needle), "\"deps\":[{\"signal\":\"0x%llx\",\"queue\":%u,\"index\":0}]",
		 (unsigned long long)cs_h.handle, k.id[1]);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, needle));
	snprintf(needle, sizeof(needle), "\"deps\":[{\"signal\":\"0x%llx\",\"queue\":%u,\"index\":1}]",
		 (unsigned long long)cs_l.handle, k.id[0]);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, needle));
	CU_ASSERT_EQUAL(t_count(out, "\"grid\":[192,1,1],\"workgroup\":[64,1,1]"), 2u);
	CU_ASSERT_EQUAL(t_count(out, "\"kind\":\"times\""), 3u);
	CU_ASSERT_EQUAL(t_count(out, "\"kind\":\"untimed\",\"waiting\":0,\"reused\":1,\"full\":0,"
				     "\"destroyed\":0"), 1u);
	snprintf(needle, sizeof(needle), "\"index\":0,\"start\":");
	CU_ASSERT_PTR_NOT_NULL(strstr(out, needle));
	free(out);
	/* The Perfetto trace: one JSON document, a track named per queue. */
	snprintf(cmd, sizeof(cmd), "'%s' --perfetto '%s'", getenv("HSAQM_TEST_RECORD_DUMP"), path);
	out = run_capture(cmd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT(t_json_valid(out));
	CU_ASSERT_EQUAL(t_count(out, "\"name\":\"thread_name\""), 3u);
	CU_ASSERT_EQUAL(t_count(out, "\"ph\":\"i\""), 16u + k.clocks);
	CU_ASSERT_EQUAL(t_count(out, "\"ph\":\"X\""), 3u); /* the timed dispatches as slices */
	free(out);
	unlink(path);
}

/* ---- The last dispatches, timed before hsa_shut_down ------------------------------------- */

/*
 * A program that ends right after its last synchronisation: a kernel waited for and its signal
 * destroyed at once (as hipStreamDestroy does), a kernel still running, and two dispatches
 * whose signals never reach 0 (counted from 2, one dispatch each), one of those signals
 * destroyed, then hsa_shut_down at once. The first two have their TIMES records (the writer
 * would have polled them only 5-105 ms later, the first after its signal was gone), a CLOCK
 * record follows the last TIMES, and the other two are counted in the UNTIMED record the close
 * writes (one waiting, one destroyed), which the dump prints; the shut-down waited a bounded
 * time.
 */
static void test_record_times_the_last_dispatches_before_shut_down(void)
{
	char path[512], env_rec[600], err[256], cmd[1200], *out;
	const char *env[] = { env_rec, NULL };
	const struct hsaqm_rec_record *ta, *tb;
	struct hsaqm_hsa_signal cs_a, cs_b, cs_c, cs_d;
	struct hsaqm_rec_untimed_body ub;
	struct hsaqm_record_file f;
	struct hsaqm_hsa_queue *q;
	union hsaqm_aql_packet pk;
	unsigned int untimed = 0;
	uint64_t k, k_long, t0, took, last_times_t = 0, last_clock_t = 0;
	uint32_t qid = 0;
	struct t_hsa h;

	memset(&ub, 0, sizeof(ub));
	path_in_dir(path, sizeof(path), "last.rec");
	snprintf(env_rec, sizeof(env_rec), "HSAQM_RECORD=%s", path);
	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), env, &g_cfg), 0);
	k = t_hsa_kernel(&h, "k", 2 * T_MS, 1, NULL);
	k_long = t_hsa_kernel(&h, "long", 30 * T_MS, 1, NULL);
	q = queue(&h, 256, HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	CU_ASSERT_FATAL(q && k && k_long);
	cs_a = t_hsa_signal(&h, 1);
	cs_b = t_hsa_signal(&h, 1);
	cs_c = t_hsa_signal(&h, 2);
	cs_d = t_hsa_signal(&h, 2);
	/* Let the writer's first poll pass: what follows must be timed by the shut-down. */
	usleep(20 * 1000);
	pk = t_hsa_dispatch(k, 1, cs_a.handle, true, NULL);
	submit(&h, q, &pk);
	CU_ASSERT(t_hsa_wait_le(&h, cs_a, 0, 5 * T_S));
	CU_ASSERT_EQUAL(h.core->hsa_signal_destroy_fn(cs_a), HSAQM_HSA_STATUS_SUCCESS);
	pk = t_hsa_dispatch(k_long, 1, cs_b.handle, true, NULL); /* still running at the shut-down */
	submit(&h, q, &pk);
	pk = t_hsa_dispatch(k, 1, cs_c.handle, true, NULL);
	submit(&h, q, &pk);
	pk = t_hsa_dispatch(k, 1, cs_d.handle, true, NULL);
	submit(&h, q, &pk);
	CU_ASSERT(t_hsa_wait_le(&h, cs_d, 1, 5 * T_S));
	CU_ASSERT_EQUAL(h.core->hsa_signal_destroy_fn(cs_d), HSAQM_HSA_STATUS_SUCCESS);
	t0 = t_mono_ns();
	shut_down(&h, env);
	took = t_mono_ns() - t0;
	/* The wait for dispatches still running is bounded (docs/replay.md): 250 ms, and margin. */
	CU_ASSERT(took < 2 * T_S);

	CU_ASSERT_EQUAL_FATAL(hsaqm_record_file_read(path, &f, err, sizeof(err)), 0);
	for (size_t i = 0; i < f.nrecs; i++) {
		const struct hsaqm_rec_record *r = &f.recs[i];

		if (r->kind == HSAQM_REC_QUEUE)
			qid = r->queue;
		if (r->kind == HSAQM_REC_TIMES)
			last_times_t = r->t_ns;
		if (r->kind == HSAQM_REC_CLOCK)
			last_clock_t = r->t_ns;
		if (r->kind == HSAQM_REC_UNTIMED) {
			untimed++;
			memcpy(&ub, r->body, sizeof(ub));
		}
	}
	ta = t_record_times_of(&f, qid, 0);
	tb = t_record_times_of(&f, qid, 1);
	if (!ta || !tb)
		fprintf(stderr, "last dispatches: times of the waited one %s, of the running one %s\n",
			ta ? "recorded" : "MISSING", tb ? "recorded" : "MISSING");
	CU_ASSERT_PTR_NOT_NULL(ta);
	CU_ASSERT_PTR_NOT_NULL(tb);
	CU_ASSERT_PTR_NULL(t_record_times_of(&f, qid, 2));
	CU_ASSERT_PTR_NULL(t_record_times_of(&f, qid, 3));
	if (tb) {
		struct hsaqm_rec_times_body b;

		memcpy(&b, tb->body, sizeof(b));
		CU_ASSERT(b.end > b.start && b.end - b.start >= 30 * T_MS);
	}
	/* A CLOCK record read with the last times places them on the records' clock. */
	CU_ASSERT(last_clock_t && last_clock_t >= last_times_t);
	/* Said once: one dispatch still waiting for its signal, one whose signal was destroyed. */
	CU_ASSERT_EQUAL(untimed, 1u);
	CU_ASSERT_EQUAL(ub.waiting, 1u);
	CU_ASSERT_EQUAL(ub.destroyed, 1u);
	CU_ASSERT_EQUAL(ub.reused, 0u);
	CU_ASSERT_EQUAL(ub.full, 0u);
	hsaqm_record_file_free(&f);
	snprintf(cmd, sizeof(cmd), "'%s' '%s'", getenv("HSAQM_TEST_RECORD_DUMP"), path);
	out = run_capture(cmd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(t_count(out, "\"kind\":\"untimed\",\"waiting\":1,\"reused\":0,"
				     "\"full\":0,\"destroyed\":1"), 1u);
	free(out);
	unlink(path);
}

/* ---- Kernel names ------------------------------------------------------------------------ */

/*
 * The model runs kernels it registered by name but has no code objects, so its HSA face has no
 * executables: the test gives the table ROCr's executable entries for one executable whose
 * kernel symbols are the model's kernels (ROCr's contract: TYPE, NAME_LENGTH, NAME without a
 * terminator, KERNEL_OBJECT; a kernel symbol named "<kernel>.kd"), and one variable symbol.
 */
#define T_EXEC 0x5eed0001u
#define T_LONG_NAME                                                                        \
	"_ZN5hsaqm4test27a_kernel_whose_name_is_longerIfLi128EEEvPKT_PS1_"                   \
	"mN6detail14with_a_templateIiEE"

static struct t_sym {
	uint32_t type; /* 0 variable, 1 kernel */
	const char *name;
	uint64_t object;
} g_syms[3];
static unsigned int g_freezes;

static hsaqm_hsa_status_t t_exec_freeze(struct tool_hsa_executable exec, const char *options)
{
	(void)options;
	g_freezes++;
	return exec.handle == T_EXEC ? HSAQM_HSA_STATUS_SUCCESS : HSAQM_HSA_STATUS_ERROR;
}

static hsaqm_hsa_status_t t_exec_iterate(struct tool_hsa_executable exec,
					 hsaqm_hsa_status_t (*cb)(struct tool_hsa_executable,
								  struct tool_hsa_executable_symbol,
								  void *),
					 void *data)
{
	for (uint64_t i = 0; i < 3 && exec.handle == T_EXEC; i++) {
		hsaqm_hsa_status_t st = cb(exec, (struct tool_hsa_executable_symbol){ i + 1 }, data);

		if (st != HSAQM_HSA_STATUS_SUCCESS)
			return st;
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t t_sym_info(struct tool_hsa_executable_symbol sym, uint32_t attr,
				     void *value)
{
	const struct t_sym *s = sym.handle >= 1 && sym.handle <= 3 ? &g_syms[sym.handle - 1] : NULL;
	uint32_t len;

	if (!s)
		return HSAQM_HSA_STATUS_ERROR;
	len = (uint32_t)strlen(s->name);
	switch (attr) {
	case 0: /* TYPE */
		memcpy(value, &s->type, 4);
		return HSAQM_HSA_STATUS_SUCCESS;
	case 1: /* NAME_LENGTH */
		memcpy(value, &len, 4);
		return HSAQM_HSA_STATUS_SUCCESS;
	case 2: /* NAME: its bytes, no terminator */
		memcpy(value, s->name, len);
		return HSAQM_HSA_STATUS_SUCCESS;
	case 22: /* KERNEL_OBJECT: kernels only */
		if (s->type != 1)
			return HSAQM_HSA_STATUS_ERROR;
		memcpy(value, &s->object, 8);
		return HSAQM_HSA_STATUS_SUCCESS;
	default:
		return HSAQM_HSA_STATUS_ERROR;
	}
}

static void test_record_names_each_dispatch_by_its_kernel_symbol(void)
{
	char path[512], env_rec[600], cmd[1400], needle[512], *out;
	struct hsaqm_sim *sim;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_hsa_signal cs[6];
	union hsaqm_aql_packet pk;
	uint64_t ka, kb, kc;
	struct t_hsa h;

	path_in_dir(path, sizeof(path), "names.rec");
	snprintf(env_rec, sizeof(env_rec), "%s", path);
	/* Before the model's engine threads start: they read the environment (getenv races setenv). */
	setenv("HSAQM_RECORD", path, 1);
	setenv("HSA_TOOLS_LIB", t_tool_path(), 1);
	CU_ASSERT_EQUAL_FATAL(hsaqm_sim_create(&g_cfg, &sim), 0);
	{
		struct hsaqm_api_root_v3 *root = hsaqm_sim_hsa_table(sim);

		CU_ASSERT_PTR_NOT_NULL_FATAL(root);
		root->core->hsa_executable_freeze_fn = (hsaqm_api_fn)t_exec_freeze;
		root->core->hsa_executable_iterate_symbols_fn = (hsaqm_api_fn)t_exec_iterate;
		root->core->hsa_executable_symbol_get_info_fn = (hsaqm_api_fn)t_sym_info;
	}
	memset(&h, 0, sizeof(h));
	CU_ASSERT_EQUAL_FATAL(t_hsa_attach(&h, sim), 0);
	ka = t_hsa_kernel(&h, "alpha", 10 * T_US, 1, NULL);
	kb = t_hsa_kernel(&h, "beta", 10 * T_US, 1, NULL);
	kc = t_hsa_kernel(&h, "gamma", 10 * T_US, 1, NULL);
	CU_ASSERT_FATAL(ka && kb && kc);
	g_syms[0] = (struct t_sym){ 1, "hsaqm_t_alpha.kd", ka };
	g_syms[1] = (struct t_sym){ 0, "hsaqm_t_variable", 0 };
	g_syms[2] = (struct t_sym){ 1, T_LONG_NAME ".kd", kb };
	/* Through the table, as HIP freezes what it loaded: the tool's wrapper, then the runtime. */
	CU_ASSERT_EQUAL(((tool_executable_freeze_fn)h.core->hsa_executable_freeze_fn)(
				(struct tool_hsa_executable){ T_EXEC }, ""),
			HSAQM_HSA_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(g_freezes, 1u);
	q = queue(&h, 256, HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	/* alpha 3 times, beta twice, gamma (in no executable) once: each with its own signal. */
	for (int i = 0; i < 6; i++) {
		cs[i] = t_hsa_signal(&h, 1);
		pk = t_hsa_dispatch(i < 3 ? ka : i < 5 ? kb : kc, 1, cs[i].handle, true, NULL);
		submit(&h, q, &pk);
		CU_ASSERT(t_hsa_wait_le(&h, cs[i], 0, 10 * T_S));
	}
	CU_ASSERT(T_UNTIL_EVERY(times_in(path) >= 6, 5 * T_S, 10 * T_MS));
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), HSAQM_HSA_STATUS_SUCCESS);
	{
		const char *env[] = { "HSAQM_RECORD=x", NULL };

		shut_down(&h, env);
	}

	snprintf(cmd, sizeof(cmd), "'%s' '%s'", getenv("HSAQM_TEST_RECORD_DUMP"), path);
	out = run_capture(cmd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(t_count(out, "\"kind\":\"kernel_dispatch\""), 6u);
	CU_ASSERT_EQUAL(t_count(out, "\"kernel_name\":\"hsaqm_t_alpha\",\"grid\""), 3u);
	CU_ASSERT_EQUAL(t_count(out, "\"kernel_name\":\"" T_LONG_NAME "\",\"grid\""), 2u);
	/* gamma's dispatch: its object, and no name. */
	snprintf(needle, sizeof(needle), "\"kernel_object\":\"0x%llx\",\"grid\"",
		 (unsigned long long)kc);
	CU_ASSERT_EQUAL(t_count(out, needle), 1u);
	/* One "kernel" line per kernel symbol (not the variable), however many pieces. */
	CU_ASSERT_EQUAL(t_count(out, "\"kind\":\"kernel\""), 2u);
	CU_ASSERT_EQUAL(t_count(out, "hsaqm_t_variable"), 0u);
	CU_ASSERT_EQUAL(t_count(out, ".kd\""), 0u);
	if (t_count(out, "\"kernel_name\":\"hsaqm_t_alpha\",\"grid\"") != 3u)
		fprintf(stderr, "the dump of %s:\n%s", path, out);
	free(out);
	/* Perfetto: the dispatches' instants and slices are named by their kernels. */
	snprintf(cmd, sizeof(cmd), "'%s' --perfetto '%s'", getenv("HSAQM_TEST_RECORD_DUMP"), path);
	out = run_capture(cmd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT(t_json_valid(out));
	CU_ASSERT_EQUAL(t_count(out, "\"ph\":\"X\",\"name\":\"hsaqm_t_alpha\""), 3u);
	CU_ASSERT_EQUAL(t_count(out, "\"ph\":\"X\",\"name\":\"" T_LONG_NAME "\""), 2u);
	CU_ASSERT_EQUAL(t_count(out, "\"ph\":\"i\",\"s\":\"t\",\"name\":\"hsaqm_t_alpha\""), 3u);
	CU_ASSERT_EQUAL(t_count(out, "\"ph\":\"i\",\"s\":\"t\",\"name\":\"" T_LONG_NAME "\""),
			2u);
	free(out);
	unlink(path);
}

/* ---- The size limit ----------------------------------------------------------------------- */

static void test_record_limit_stops_with_one_message_and_the_program_goes_on(void)
{
	char path[512], env_rec[600], *said = NULL, err[256];
	const char *env[] = { env_rec, "HSAQM_RECORD_MAX_MB=1", NULL };
	const char *msg = "reached HSAQM_RECORD_MAX_MB=1";
	struct hsaqm_record_file f;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_hsa_signal cs;
	union hsaqm_aql_packet pk;
	struct t_stderr cap;
	struct stat st;
	struct t_hsa h;
	unsigned int batches = 0, after = 0, packets = 0;
	uint64_t k, expect = 0;
	bool limited = false, ordered = true;

	path_in_dir(path, sizeof(path), "limit.rec");
	snprintf(env_rec, sizeof(env_rec), "HSAQM_RECORD=%s", path);
	CU_ASSERT_EQUAL_FATAL(t_stderr_begin(&cap), 0);
	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), env, &g_cfg), 0);
	k = t_hsa_kernel(&h, "tiny", 1 * T_US, 1, NULL);
	q = queue(&h, 1024, HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	CU_ASSERT_FATAL(q && k);
	/*
	 * Batches of 2000 dispatches until the limit is said, and two batches more: the program
	 * goes on. 1 MB holds about 10900 records: 6 batches at least, 30 at most.
	 */
	cs = t_hsa_signal(&h, 0);
	while (batches < 30 && after < 2) {
		h.core->hsa_signal_store_relaxed_fn(cs, 2000);
		pk = t_hsa_dispatch(k, 1, cs.handle, true, NULL);
		for (int i = 0; i < 2000; i++)
			submit(&h, q, &pk);
		expect += 2000;
		CU_ASSERT_FATAL(t_hsa_wait_le(&h, cs, 0, 30 * T_S));
		batches++;
		if (limited) {
			after++;
			continue;
		}
		/* The writer drains within 100 ms; the message is on the captured stderr then. */
		T_UNTIL(fstat(fileno(cap.tmp), &st) == 0 && st.st_size > 0, 200 * T_MS);
		{
			char buf[4096];
			ssize_t n = pread(fileno(cap.tmp), buf, sizeof(buf) - 1, 0);

			buf[n > 0 ? n : 0] = '\0';
			limited = strstr(buf, msg) != NULL;
		}
	}
	CU_ASSERT_EQUAL(h.core->hsa_queue_load_read_index_scacquire_fn(q), expect);
	CU_ASSERT_EQUAL(h.core->hsa_queue_destroy_fn(q), HSAQM_HSA_STATUS_SUCCESS);
	shut_down(&h, env);
	said = t_stderr_end(&cap);
	printf("\n    limit said after %u batches of 2000, %u more ran\n", batches - after, after);
	CU_ASSERT(limited);
	CU_ASSERT_EQUAL(after, 2u);
	CU_ASSERT_PTR_NOT_NULL_FATAL(said);
	CU_ASSERT_EQUAL(t_count(said, msg), 1u);
	CU_ASSERT_EQUAL(t_count(said, "hsaqm:"), 1u); /* nothing else said */
	free(said);

	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
	CU_ASSERT(st.st_size <= 1024 * 1024);
	CU_ASSERT(st.st_size > 1024 * 1024 - 2 * 24 - 2 * HSAQM_REC_RECORD_SIZE);
	CU_ASSERT_EQUAL_FATAL(hsaqm_record_file_read(path, &f, err, sizeof(err)), 0);
	CU_ASSERT_FALSE(f.torn);
	CU_ASSERT_FATAL(f.nrecs > 0);
	CU_ASSERT_EQUAL(f.recs[f.nrecs - 1].kind, HSAQM_REC_LIMIT);
	CU_ASSERT_EQUAL(f.recs[f.nrecs - 1].aux, 1u);
	/* Each packet once, in order (the last block is cut to fit, never padded). */
	for (size_t i = 0, next = 0; i < f.nrecs; i++) {
		if (f.recs[i].kind == HSAQM_REC_LOST)
			next += f.recs[i].aux;
		if (f.recs[i].kind != HSAQM_REC_PACKET)
			continue;
		if (f.recs[i].index != next)
			ordered = false;
		next = f.recs[i].index + 1;
		packets++;
	}
	CU_ASSERT(ordered);
	CU_ASSERT(packets > 10000 && packets < expect);
	hsaqm_record_file_free(&f);
	unlink(path);
}

/* ---- SIGKILL ------------------------------------------------------------------------------ */

#define KILL_FIRST 200u

/* The child: records KILL_FIRST dispatches, tells the parent once they are on disk, goes on. */
static void child_record(const char *path, int ready)
{
	char env_rec[600];
	const char *env[] = { env_rec, NULL };
	uint64_t want = HSAQM_REC_HEADER_SIZE + 24 + (KILL_FIRST + 1) * HSAQM_REC_RECORD_SIZE;
	struct hsaqm_hsa_queue *q;
	struct hsaqm_hsa_signal cs;
	union hsaqm_aql_packet pk;
	struct stat st;
	struct t_hsa h;
	uint64_t k;

	snprintf(env_rec, sizeof(env_rec), "HSAQM_RECORD=%s", path);
	if (t_tool_open(&h, t_tool_path(), env, &g_cfg))
		_exit(10);
	k = t_hsa_kernel(&h, "k", 2 * T_US, 1, NULL);
	q = t_hsa_queue(&h, 256, HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	if (!k || !q)
		_exit(11);
	cs = t_hsa_signal(&h, KILL_FIRST);
	pk = t_hsa_dispatch(k, 1, cs.handle, true, NULL);
	for (unsigned int i = 0; i < KILL_FIRST; i++)
		submit(&h, q, &pk);
	if (!t_hsa_wait_le(&h, cs, 0, 30 * T_S))
		_exit(12);
	if (!T_UNTIL(stat(path, &st) == 0 && (uint64_t)st.st_size >= want, 30 * T_S))
		_exit(13);
	if (write(ready, "r", 1) != 1)
		_exit(14);
	/* Until killed: more blocks, one of them perhaps being written at the kill. */
	h.core->hsa_signal_store_relaxed_fn(cs, INT64_MAX / 2);
	pk = t_hsa_dispatch(k, 1, cs.handle, true, NULL);
	for (;;)
		submit(&h, q, &pk);
}

/* @src's first @len bytes into @dst, with byte @flip (if below len) inverted. */
static int copy_cut(const char *src, const char *dst, uint64_t len, uint64_t flip)
{
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	int rc = 0;

	for (uint64_t i = 0; in && out && i < len; i++) {
		int c = fgetc(in);

		if (c == EOF) {
			rc = -1;
			break;
		}
		fputc(i == flip ? c ^ 0xff : c, out);
	}
	if (!in || !out)
		rc = -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	return rc;
}

static void test_record_cut_by_sigkill_reads_to_the_last_flush(void)
{
	char path[512], cut[512], err[256], c = 0;
	struct hsaqm_record_file f, g;
	struct pollfd pfd;
	int fds[2], status = 0;
	uint64_t usable, next = 0;
	unsigned int packets = 0, lost = 0;
	bool ordered = true;
	pid_t pid;

	path_in_dir(path, sizeof(path), "killed.rec");
	path_in_dir(cut, sizeof(cut), "killed-cut.rec");
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		child_record(path, fds[1]);
		_exit(15);
	}
	close(fds[1]);
	pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	CU_ASSERT_EQUAL(poll(&pfd, 1, 60000), 1);
	CU_ASSERT_EQUAL(read(fds[0], &c, 1), 1);
	CU_ASSERT_EQUAL(c, 'r');
	close(fds[0]);
	t_sleep_us(250 * 1000); /* on purpose: a few more flushes before the kill */
	kill(pid, SIGKILL);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	CU_ASSERT_EQUAL_FATAL(hsaqm_record_file_read(path, &f, err, sizeof(err)), 0);
	printf("\n    killed: %llu blocks, %zu records, %s\n", (unsigned long long)f.blocks, f.nrecs,
	       f.torn ? "a torn tail" : "no torn tail");
	CU_ASSERT_EQUAL(f.hdr.pid, (uint32_t)pid);
	CU_ASSERT_FATAL(f.nrecs >= KILL_FIRST + 1 && f.blocks >= 2);
	CU_ASSERT_EQUAL(f.recs[0].kind, HSAQM_REC_QUEUE);
	/* Every packet once, in order, from 0 (a LOST record would say how many are missing). */
	for (size_t i = 1; i < f.nrecs; i++) {
		if (f.recs[i].kind == HSAQM_REC_TIMES || f.recs[i].kind == HSAQM_REC_CLOCK)
			continue; /* the dispatches' times, when their signals reached 0 */
		if (f.recs[i].kind == HSAQM_REC_LOST) {
			next += f.recs[i].aux;
			lost += f.recs[i].aux;
			continue;
		}
		CU_ASSERT_EQUAL(f.recs[i].kind, HSAQM_REC_PACKET);
		if (f.recs[i].index != next) {
			ordered = false;
			break;
		}
		next++;
		packets++;
	}
	printf("    %u packets in order from 0, %u lost (a ring full)\n", packets, lost);
	CU_ASSERT(ordered);
	CU_ASSERT(packets >= KILL_FIRST);
	CU_ASSERT_EQUAL(f.recs[1].index, 0u); /* the first KILL_FIRST are there, none lost */
	CU_ASSERT_EQUAL(f.recs[KILL_FIRST].index, KILL_FIRST - 1);

	/* Torn: the last whole block cut short; then one byte of it changed. */
	usable = f.torn_offset;
	if (!f.torn) {
		struct stat st;

		CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
		usable = (uint64_t)st.st_size;
	}
	CU_ASSERT_EQUAL_FATAL(copy_cut(path, cut, usable - 40, UINT64_MAX), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_record_file_read(cut, &g, err, sizeof(err)), 0);
	CU_ASSERT(g.torn);
	CU_ASSERT_EQUAL(g.blocks, f.blocks - 1);
	CU_ASSERT(g.nrecs < f.nrecs);
	CU_ASSERT_EQUAL(memcmp(g.recs, f.recs, g.nrecs * sizeof(*g.recs)), 0);
	hsaqm_record_file_free(&g);
	CU_ASSERT_EQUAL_FATAL(copy_cut(path, cut, usable, usable - 40), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_record_file_read(cut, &g, err, sizeof(err)), 0);
	CU_ASSERT(g.torn);
	CU_ASSERT_EQUAL(g.blocks, f.blocks - 1);
	hsaqm_record_file_free(&g);
	/* The blocks' CRC is the common CRC-32 (zlib's): its check value. */
	CU_ASSERT_EQUAL(hsaqm_rec_crc32(0, "123456789", 9), 0xcbf43926u);
	/* Not a recording at all; a version this reader does not know. */
	CU_ASSERT_EQUAL(hsaqm_record_file_read("/proc/self/status", &g, err, sizeof(err)), -EINVAL);
	{
		struct hsaqm_rec_file_header hdr = f.hdr;
		FILE *o = fopen(cut, "wb");

		hdr.version = 99;
		hdr.crc = hsaqm_rec_crc32(0, &hdr, offsetof(struct hsaqm_rec_file_header, crc));
		CU_ASSERT_FATAL(o != NULL);
		fwrite(&hdr, sizeof(hdr), 1, o);
		fclose(o);
		CU_ASSERT_EQUAL(hsaqm_record_file_read(cut, &g, err, sizeof(err)), -ENOTSUP);
	}
	hsaqm_record_file_free(&f);
	unlink(cut);
	unlink(path);
}

/* ---- Bad values --------------------------------------------------------------------------- */

static const char *const *g_table;

static const char *table_get(const char *name)
{
	size_t n = strlen(name);

	for (const char *const *e = g_table; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static void config(const char *const *table, struct hsaqm_tool_config *c)
{
	g_table = table;
	hsaqm_tool_config_read(c, table_get);
}

/* The tool loaded with @env: a queue runs 10 dispatches; what stderr said (malloc'ed). */
static char *run_with(const char *const *env, char *level, size_t level_size)
{
	struct hsaqm_hsa_queue *q;
	struct hsaqm_hsa_signal cs;
	union hsaqm_aql_packet pk;
	struct t_stderr cap;
	struct t_proc p;
	struct t_hsa h;
	char *js;
	uint64_t k;

	if (t_stderr_begin(&cap))
		return NULL;
	CU_ASSERT_EQUAL_FATAL(t_tool_open(&h, t_tool_path(), env, &g_cfg), 0);
	k = t_hsa_kernel(&h, "k", 5 * T_US, 1, NULL);
	q = queue(&h, 256, HSAQM_HSA_AMD_QUEUE_PRIORITY_NORMAL);
	cs = t_hsa_signal(&h, 10);
	pk = t_hsa_dispatch(k, 1, cs.handle, true, NULL);
	for (int i = 0; i < 10; i++)
		submit(&h, q, &pk);
	CU_ASSERT(t_hsa_wait_le(&h, cs, 0, 10 * T_S));
	level[0] = '\0';
	if (t_proc_bind(&p) == 0) {
		js = t_proc_stats(&p);
		if (js && strstr(js, "\"effective_level\":\""))
			snprintf(level, level_size, "%.3s",
				 strstr(js, "\"effective_level\":\"") + strlen("\"effective_level\":\""));
		free(js);
		t_proc_unbind(&p);
	}
	shut_down(&h, env);
	return t_stderr_end(&cap);
}

static void test_record_bad_values_are_said_once_and_nothing_is_recorded(void)
{
	struct hsaqm_tool_config c;
	char path[512], bad_dir[600], good[600], level[8], *said;
	struct stat st;
	static const char *const empty[] = { "HSAQM_RECORD=", NULL };
	static const char *const zero[] = { "HSAQM_RECORD=/tmp/x.rec", "HSAQM_RECORD_MAX_MB=0", NULL };
	static const char *const word[] = { "HSAQM_RECORD=/tmp/x.rec", "HSAQM_RECORD_MAX_MB=lots",
					     NULL };
	static const char *const huge[] = { "HSAQM_RECORD=/tmp/x.rec",
					     "HSAQM_RECORD_MAX_MB=1048577", NULL };
	static const char *const fine[] = { "HSAQM_RECORD=/tmp/x.rec", "HSAQM_RECORD_MAX_MB=5",
					     NULL };
	static const char *const lv1[] = { "HSAQM_RECORD=/tmp/x.rec", "HSAQM_LEVEL=lv1", NULL };

	/* The syntax: each bad value refused (one message each), recording off, level default. */
	config(empty, &c);
	CU_ASSERT(c.bad == 1 && !c.record[0] && c.level == HSAQM_TOOL_LEVEL_DEFAULT);
	config(zero, &c);
	CU_ASSERT(c.bad == 1 && !c.record[0] && c.level == HSAQM_TOOL_LEVEL_DEFAULT);
	config(word, &c);
	CU_ASSERT(c.bad == 1 && !c.record[0]);
	config(huge, &c);
	CU_ASSERT(c.bad == 1 && !c.record[0]);
	config(fine, &c);
	CU_ASSERT(c.bad == 0 && !strcmp(c.record, "/tmp/x.rec") && c.record_max_mb == 5);
	CU_ASSERT_EQUAL(c.level, HSAQM_LEVEL_NONE); /* pass-through unless a level is asked */
	config(lv1, &c);
	CU_ASSERT(c.bad == 0 && c.level == HSAQM_LEVEL_1 &&
		  c.record_max_mb == HSAQM_TOOL_RECORD_MAX_MB_DEFAULT);

	/* A file that cannot be made: said once, the program runs scheduled as without it. */
	path_in_dir(path, sizeof(path), "no-such-dir/x.rec");
	snprintf(bad_dir, sizeof(bad_dir), "HSAQM_RECORD=%s", path);
	{
		const char *env[] = { bad_dir, NULL };

		said = run_with(env, level, sizeof(level));
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(said);
	CU_ASSERT_EQUAL(t_count(said, "HSAQM_RECORD="), 1u);
	CU_ASSERT_EQUAL(t_count(said, "not recording"), 1u);
	CU_ASSERT_EQUAL(t_count(said, "hsaqm:"), 1u);
	CU_ASSERT_STRING_EQUAL(level, "lv2");
	free(said);

	/* A bad limit with a good file: said once, no file made. */
	path_in_dir(path, sizeof(path), "bad-limit.rec");
	snprintf(good, sizeof(good), "HSAQM_RECORD=%s", path);
	{
		const char *env[] = { good, "HSAQM_RECORD_MAX_MB=lots", NULL };

		said = run_with(env, level, sizeof(level));
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(said);
	CU_ASSERT_EQUAL(t_count(said, "HSAQM_RECORD_MAX_MB=\"lots\""), 1u);
	CU_ASSERT_EQUAL(t_count(said, "hsaqm:"), 1u);
	CU_ASSERT_STRING_EQUAL(level, "lv2");
	CU_ASSERT_NOT_EQUAL(stat(path, &st), 0);
	free(said);
}

/* ---- Format versions --------------------------------------------------------------------- */

/* A header of @version (valid CRC, no block) written to @path. */
static void write_header_only(const char *path, uint32_t version)
{
	struct hsaqm_rec_file_header hdr;
	FILE *out = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, HSAQM_REC_MAGIC, sizeof(hdr.magic));
	hdr.version = version;
	hdr.header_size = HSAQM_REC_HEADER_SIZE;
	hdr.record_size = HSAQM_REC_RECORD_SIZE;
	hdr.clock_id = 1;
	hdr.crc = hsaqm_rec_crc32(0, &hdr, offsetof(struct hsaqm_rec_file_header, crc));
	CU_ASSERT_EQUAL(fwrite(&hdr, sizeof(hdr), 1, out), 1u);
	fclose(out);
}

/* Versions 2 to 5 added records: a version 1 file (before dispatch times), a version 2 file
 * (before kernel names), a version 3 file (before the UNTIMED record) and a version 4 file
 * (before per-kernel times) still read; a
 * later version, which may change a record, is refused with a sentence naming the file. */
static void test_record_reader_takes_older_versions_and_refuses_newer(void)
{
	struct hsaqm_record_file f;
	char path[512], err[600];

	path_in_dir(path, sizeof(path), "v.rec");
	for (uint32_t v = 1; v < HSAQM_REC_VERSION; v++) {
		write_header_only(path, v);
		CU_ASSERT_EQUAL(hsaqm_record_file_read(path, &f, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL(f.hdr.version, v);
		CU_ASSERT_EQUAL(f.nrecs, 0u);
		CU_ASSERT_FALSE(f.torn);
		hsaqm_record_file_free(&f);
	}
	CU_ASSERT_EQUAL(HSAQM_REC_VERSION, 5u);
	write_header_only(path, HSAQM_REC_VERSION + 1);
	CU_ASSERT_EQUAL(hsaqm_record_file_read(path, &f, err, sizeof(err)), -ENOTSUP);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "v.rec"));
	write_header_only(path, 0);
	CU_ASSERT_EQUAL(hsaqm_record_file_read(path, &f, err, sizeof(err)), -ENOTSUP);
	unlink(path);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	static struct t_case cases[] = {
		/* First: the child of the fork is made before this process ran any model. */
		T_CASE(test_record_cut_by_sigkill_reads_to_the_last_flush),
		T_CASE(test_record_lists_exactly_the_known_work),
		T_CASE(test_record_names_each_dispatch_by_its_kernel_symbol),
		T_CASE(test_record_times_the_last_dispatches_before_shut_down),
		T_CASE(test_record_limit_stops_with_one_message_and_the_program_goes_on),
		T_CASE(test_record_bad_values_are_said_once_and_nothing_is_recorded),
		T_CASE(test_record_reader_takes_older_versions_and_refuses_newer),
		T_CASES_END,
	};
	static const struct t_suite suites[] = { { "record", NULL, NULL, cases }, T_SUITES_END };
	int rc;

	if (!t_tool_path())
		return t_skip("test-tool-record", "HSAQM_TEST_TOOL_LIB not set (run it with meson test)");
	snprintf(g_dir, sizeof(g_dir), "%s/hsaqm-record-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(g_dir)) {
		perror("mkdtemp");
		return 1;
	}
	rc = t_run("test-tool-record", suites);
	rmdir(g_dir); /* each case removed its files */
	return rc;
}
