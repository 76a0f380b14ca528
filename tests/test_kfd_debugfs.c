/* SPDX-License-Identifier: MIT */
/*
 * The debugfs parsers on the real MI308X dumps (fixtures debugfs-kfd-hqds.txt and
 * debugfs-kfd-rls.txt, 8 GPUs): GPUs, XCCs, user HQD slots and which of them hold a queue, the
 * processes and queues each runlist maps, and the two dumps agreeing with each other. The
 * expected numbers were found by reading the files with grep/awk/python, not with this parser:
 *   - hqds: 8 "Node" sections; per node 4 "HIQ on MEC 2 Pipe 0 Queue 0" and 96 "CP Pipe"
 *     sections (Inst 0-3 x pipes 0-3 x queues 2-7), 64 "SDMA Engine" sections; the third
 *     register of every CP section (CP_HQD_ACTIVE) is 1 for exactly 5 slots per XCC: pipe 0
 *     queues 2 and 3, pipes 1-3 queue 2 (160 in all);
 *   - rls: node 2 maps pasid 0x800c (3 queues, none mapped) then pasid 0x8009 (7 queues:
 *     SDMA0 doorbell 0x1200, SDMA1 0x1214, compute 0x1008 0x1006 0x1004 0x1002 0x1000); every
 *     other node maps one process with the same 7 doorbells.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm-kfd/kfd.h"
#include "t_cunit.h"

static char *hqds_text, *rls_text;
static size_t hqds_len, rls_len;
static struct hsaqm_hqds *hqds;
static struct hsaqm_runlist *rl;

static const uint32_t node_ids[8] = { 2, 3, 4, 5, 6, 7, 8, 9 };
static const uint32_t gpu_ids[8] = { 0xf7bc, 0xf05b, 0xeb40, 0xc66d,
				     0xf220, 0xf5c7, 0xeedc, 0xc3f1 };
/* The process each node's runlist maps queues for, in node order. */
static const uint32_t mapped_pasids[8] = { 0x8009, 0x8039, 0x8012, 0x8025,
					   0x8024, 0x8019, 0x8042, 0x8033 };

static int read_fixture(const char *name, char **text, size_t *len)
{
	const char *dir = getenv("HSAQM_FIXTURES");
	char path[PATH_MAX];

	if (!dir || !*dir) {
		fprintf(stderr, "HSAQM_FIXTURES is not set\n");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/mi308x-sr18/%s", dir, name);
	if (hsaqm_debugfs_read(path, text, len)) {
		fprintf(stderr, "cannot read %s\n", path);
		return -1;
	}
	return 0;
}

static int suite_init(void)
{
	if (read_fixture("debugfs-kfd-hqds.txt", &hqds_text, &hqds_len) ||
	    read_fixture("debugfs-kfd-rls.txt", &rls_text, &rls_len))
		return -1;
	if (hsaqm_hqds_parse(hqds_text, hqds_len, &hqds) ||
	    hsaqm_runlist_parse(rls_text, rls_len, &rl))
		return -1;
	return 0;
}

static int suite_clean(void)
{
	hsaqm_hqds_free(hqds);
	hsaqm_runlist_free(rl);
	free(hqds_text);
	free(rls_text);
	return 0;
}

static bool is_expected_active(uint32_t pipe, uint32_t queue)
{
	return (pipe == 0 && (queue == 2 || queue == 3)) || (pipe >= 1 && pipe <= 3 && queue == 2);
}

static void test_hqds_eight_gpus_four_xcc_each(void)
{
	CU_ASSERT_EQUAL_FATAL(hqds->n_gpus, 8);
	for (uint32_t g = 0; g < 8; g++) {
		const struct hsaqm_hqds_gpu *gpu = &hqds->gpus[g];

		CU_ASSERT_EQUAL(gpu->node_id, node_ids[g]);
		CU_ASSERT_EQUAL(gpu->gpu_id, gpu_ids[g]);
		CU_ASSERT_FALSE(gpu->stopped);
		CU_ASSERT_EQUAL(gpu->n_xcc, 4);
		CU_ASSERT_EQUAL(gpu->n_sdma_queues, 64); /* 8 engines x 8 RLC queues */
		for (uint32_t x = 0; x < gpu->n_xcc; x++) {
			CU_ASSERT_EQUAL(gpu->xcc[x].inst, x);
			CU_ASSERT(gpu->xcc[x].has_hiq);
			CU_ASSERT(gpu->xcc[x].hiq_active);
			CU_ASSERT_EQUAL(gpu->xcc[x].hiq_mec, 2);
			CU_ASSERT_EQUAL(gpu->xcc[x].hiq_pipe, 0);
			CU_ASSERT_EQUAL(gpu->xcc[x].hiq_queue, 0);
		}
	}
}

static void test_hqds_24_user_slots_per_xcc(void)
{
	for (uint32_t g = 0; g < hqds->n_gpus; g++) {
		for (uint32_t x = 0; x < hqds->gpus[g].n_xcc; x++) {
			const struct hsaqm_hqd_xcc *xcc = &hqds->gpus[g].xcc[x];
			uint32_t seen[4] = { 0 };

			CU_ASSERT_EQUAL(xcc->n_slots, 24);
			for (uint32_t i = 0; i < xcc->n_slots; i++) {
				const struct hsaqm_hqd_slot *s = &xcc->slots[i];

				CU_ASSERT(s->pipe <= 3 && s->queue >= 2 && s->queue <= 7);
				if (s->pipe <= 3)
					seen[s->pipe] |= 1u << s->queue;
				/* gfx9 dump: CP_MQD_BASE_ADDR .. CP_HQD_PQ_WPTR_HI. */
				CU_ASSERT_EQUAL(s->n_regs, 56);
			}
			for (uint32_t p = 0; p < 4; p++)
				CU_ASSERT_EQUAL(seen[p], 0xfcu); /* queues 2-7 */
		}
	}
}

static void test_hqds_active_user_hqds_per_xcc(void)
{
	uint32_t total = 0;

	for (uint32_t g = 0; g < hqds->n_gpus; g++) {
		for (uint32_t x = 0; x < hqds->gpus[g].n_xcc; x++) {
			const struct hsaqm_hqd_xcc *xcc = &hqds->gpus[g].xcc[x];

			CU_ASSERT_EQUAL(hsaqm_hqd_xcc_active(xcc), 5);
			total += hsaqm_hqd_xcc_active(xcc);
			for (uint32_t i = 0; i < xcc->n_slots; i++) {
				const struct hsaqm_hqd_slot *s = &xcc->slots[i];

				CU_ASSERT_EQUAL(s->active, is_expected_active(s->pipe, s->queue));
				CU_ASSERT_EQUAL(s->active, s->regs[HSAQM_HQD_REG_ACTIVE] & 1);
			}
		}
	}
	CU_ASSERT_EQUAL(total, 160);
}

static void test_hqds_slot_registers_decoded(void)
{
	const struct hsaqm_hqd_xcc *xcc0 = &hqds->gpus[0].xcc[0];
	const struct hsaqm_hqd_slot *s = &xcc0->slots[0];

	/* Node 2, Inst 0, CP Pipe 0, Queue 2 (lines 10-17 of the file). */
	CU_ASSERT_EQUAL(s->pipe, 0);
	CU_ASSERT_EQUAL(s->queue, 2);
	CU_ASSERT_EQUAL(s->first_reg_addr, 0xc914); /* (0x2000 + 0x1245) x 4 */
	CU_ASSERT(s->active);
	CU_ASSERT_EQUAL(s->mqd_addr, 0x13c2000);
	CU_ASSERT_EQUAL(s->vmid, 4);
	CU_ASSERT_EQUAL(s->pq_base, 0x7f93c4400000ull); /* 0x0000007f:93c44000 << 8 */
	CU_ASSERT_EQUAL(s->doorbell_offset, 0x1008);
	CU_ASSERT(s->doorbell_enabled);
	CU_ASSERT_EQUAL(s->regs[HSAQM_HQD_REG_QUEUE_PRIORITY], 7);
	/* The save area the CP was given is the KFD formula's (test-kfd-topology). */
	CU_ASSERT_EQUAL(s->regs[HSAQM_HQD_REG_CTX_SAVE_SIZE], 0xba6000u);
	CU_ASSERT_EQUAL(s->regs[HSAQM_HQD_REG_CNTL_STACK_SIZE], 0x2000u);
	/* XCC 1's registers sit at another address; the register order is the same. */
	CU_ASSERT_EQUAL(hqds->gpus[0].xcc[1].slots[0].first_reg_addr, 0xcc914);
	CU_ASSERT_EQUAL(hqds->gpus[0].xcc[1].slots[0].mqd_addr, 0x13c5000);
	CU_ASSERT_EQUAL(hqds->gpus[0].xcc[1].slots[0].doorbell_offset, 0x1008);
	/* An inactive slot keeps the MQD address of an earlier queue. */
	CU_ASSERT_FALSE(xcc0->slots[2].active);
	CU_ASSERT_EQUAL(xcc0->slots[2].queue, 4);
	CU_ASSERT_EQUAL(xcc0->slots[2].mqd_addr, 0x139e000);
}

static void test_runlist_processes_and_queues(void)
{
	static const uint32_t doorbells[7] = { 0x1200, 0x1214, 0x1008, 0x1006,
					       0x1004, 0x1002, 0x1000 };
	static const uint32_t engines[7] = { 2, 3, 0, 0, 0, 0, 0 };

	CU_ASSERT_EQUAL_FATAL(rl->n_gpus, 8);
	for (uint32_t g = 0; g < 8; g++) {
		const struct hsaqm_rl_gpu *gpu = &rl->gpus[g];
		const struct hsaqm_rl_process *p;

		CU_ASSERT_EQUAL(gpu->node_id, node_ids[g]);
		CU_ASSERT_EQUAL(gpu->gpu_id, gpu_ids[g]);
		CU_ASSERT(gpu->has_runlist);
		CU_ASSERT_EQUAL(gpu->n_processes, g == 0 ? 2 : 1);
		CU_ASSERT_EQUAL(gpu->n_queues, 7);
		CU_ASSERT_EQUAL(gpu->n_other_packets, 0);
		if (gpu->n_processes == 0 || gpu->n_queues != 7)
			continue;
		p = &gpu->processes[gpu->n_processes - 1];
		CU_ASSERT_EQUAL(p->pasid, mapped_pasids[g]);
		CU_ASSERT_EQUAL(p->num_queues, 7);
		CU_ASSERT_EQUAL(p->n_mapped, 7);
		CU_ASSERT_EQUAL(p->first_queue, 0);
		CU_ASSERT_EQUAL(p->process_quantum, 10);
		for (uint32_t q = 0; q < 7; q++) {
			CU_ASSERT_EQUAL(gpu->queues[q].doorbell_offset, doorbells[q]);
			CU_ASSERT_EQUAL(gpu->queues[q].engine_sel, engines[q]);
			CU_ASSERT_EQUAL(gpu->queues[q].queue_type, 0);
		}
	}
	/* Node 2's first process has 3 queues on the GPU, none of them active. */
	CU_ASSERT_EQUAL(rl->gpus[0].processes[0].pasid, 0x800c);
	CU_ASSERT_EQUAL(rl->gpus[0].processes[0].num_queues, 3);
	CU_ASSERT_EQUAL(rl->gpus[0].processes[0].n_mapped, 0);
	CU_ASSERT_EQUAL(rl->gpus[0].queues[2].mqd_addr, 0x13c2000);
	CU_ASSERT_EQUAL(rl->gpus[0].queues[2].wptr_addr, 0x7f93f0006038ull);
}

/*
 * Two dumps taken independently, one from registers and one from the scheduler's packet
 * buffer: on every GPU and every XCC, the active HQDs are exactly the runlist's compute
 * queues (same doorbells), and on XCC 0 the HQDs hold the MQDs the runlist names.
 */
static void test_hqds_and_runlist_agree(void)
{
	CU_ASSERT_EQUAL_FATAL(rl->n_gpus, hqds->n_gpus);
	for (uint32_t g = 0; g < hqds->n_gpus; g++) {
		const struct hsaqm_hqds_gpu *hg = &hqds->gpus[g];
		const struct hsaqm_rl_gpu *rg = &rl->gpus[g];

		CU_ASSERT_EQUAL(hg->gpu_id, rg->gpu_id);
		for (uint32_t x = 0; x < hg->n_xcc; x++) {
			uint32_t matched = 0;

			for (uint32_t i = 0; i < hg->xcc[x].n_slots; i++) {
				const struct hsaqm_hqd_slot *s = &hg->xcc[x].slots[i];
				bool found = false;

				if (!s->active)
					continue;
				for (uint32_t q = 0; q < rg->n_queues; q++) {
					const struct hsaqm_rl_queue *rq = &rg->queues[q];

					if (rq->engine_sel != HSAQM_RL_ENGINE_COMPUTE ||
					    rq->doorbell_offset != s->doorbell_offset)
						continue;
					found = true;
					if (x == 0)
						CU_ASSERT_EQUAL(rq->mqd_addr, s->mqd_addr);
				}
				CU_ASSERT(found);
				matched += found;
			}
			CU_ASSERT_EQUAL(matched, 5);
		}
	}
}

static void test_parsers_reject_garbled_text(void)
{
	struct hsaqm_hqds *h = NULL;
	struct hsaqm_runlist *r = NULL;
	const char *s;

	/* Register line before any node or section. */
	s = "    0000c914: 006e3000 00000000\n";
	CU_ASSERT_EQUAL(hsaqm_hqds_parse(s, strlen(s), &h), -EBADMSG);
	s = "Node 2, gpu_id f7bc:\n    0000c914: 006e3000 00000000\n";
	CU_ASSERT_EQUAL(hsaqm_hqds_parse(s, strlen(s), &h), -EBADMSG);
	s = "Node 2, gpu_id f7bc:\n Inst 0,  CP Pipe 0, Queue 2\n    0000c914: 006e30zz\n";
	CU_ASSERT_EQUAL(hsaqm_hqds_parse(s, strlen(s), &h), -EBADMSG);
	s = "Node 2, gpu_id f7bc:\n Something else entirely\n";
	CU_ASSERT_EQUAL(hsaqm_hqds_parse(s, strlen(s), &h), -EBADMSG);
	s = "Node two\n";
	CU_ASSERT_EQUAL(hsaqm_hqds_parse(s, strlen(s), &h), -EBADMSG);
	CU_ASSERT_PTR_NULL(h);
	CU_ASSERT_EQUAL(hsaqm_hqds_parse(NULL, 0, &h), -EINVAL);

	/* A MAP_PROCESS cut short, an offset gap, MAP_QUEUES without a process, not type 3. */
	s = "Node 2, gpu_id f7bc:\n  00000000: c013a100 1400800c\n";
	CU_ASSERT_EQUAL(hsaqm_runlist_parse(s, strlen(s), &r), -EBADMSG);
	s = "Node 2, gpu_id f7bc:\n  00000020: c005a200 20000010 00004000 006ed000 0 0 0\n";
	CU_ASSERT_EQUAL(hsaqm_runlist_parse(s, strlen(s), &r), -EBADMSG);
	s = "Node 2, gpu_id f7bc:\n  00000000: c005a200 20000010 00004000 006ed000 00000000 "
	    "c4d91038 00007fb7\n";
	CU_ASSERT_EQUAL(hsaqm_runlist_parse(s, strlen(s), &r), -EBADMSG);
	s = "Node 2, gpu_id f7bc:\n  00000000: 0005a200\n";
	CU_ASSERT_EQUAL(hsaqm_runlist_parse(s, strlen(s), &r), -EBADMSG);
	CU_ASSERT_PTR_NULL(r);
}

static void test_parsers_accept_idle_devices(void)
{
	struct hsaqm_hqds *h = NULL;
	struct hsaqm_runlist *r = NULL;
	const char *s;

	s = "Node 2, gpu_id f7bc:\n Device is stopped\nNode 3, gpu_id f05b:\n Device is stopped\n";
	CU_ASSERT_EQUAL_FATAL(hsaqm_hqds_parse(s, strlen(s), &h), 0);
	CU_ASSERT_EQUAL(h->n_gpus, 2);
	CU_ASSERT(h->gpus[1].stopped);
	CU_ASSERT_EQUAL(h->gpus[1].n_xcc, 0);
	hsaqm_hqds_free(h);

	s = "Node 2, gpu_id f7bc:\n  No active runlist\n";
	CU_ASSERT_EQUAL_FATAL(hsaqm_runlist_parse(s, strlen(s), &r), 0);
	CU_ASSERT_EQUAL(r->n_gpus, 1);
	CU_ASSERT_FALSE(r->gpus[0].has_runlist);
	CU_ASSERT_EQUAL(r->gpus[0].n_processes, 0);
	hsaqm_runlist_free(r);

	/* An empty file parses to no GPU. */
	CU_ASSERT_EQUAL_FATAL(hsaqm_runlist_parse("", 0, &r), 0);
	CU_ASSERT_EQUAL(r->n_gpus, 0);
	hsaqm_runlist_free(r);
	{
		char *text = NULL;

		CU_ASSERT_EQUAL(hsaqm_debugfs_read("/nonexistent/kfd/hqds", &text, NULL), -ENOENT);
		CU_ASSERT_PTR_NULL(text);
	}
}

static const struct t_case debugfs_cases[] = {
	T_CASE(test_hqds_eight_gpus_four_xcc_each),
	T_CASE(test_hqds_24_user_slots_per_xcc),
	T_CASE(test_hqds_active_user_hqds_per_xcc),
	T_CASE(test_hqds_slot_registers_decoded),
	T_CASE(test_runlist_processes_and_queues),
	T_CASE(test_hqds_and_runlist_agree),
	T_CASE(test_parsers_reject_garbled_text),
	T_CASE(test_parsers_accept_idle_devices),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "kfd-debugfs", suite_init, suite_clean, debugfs_cases },
		T_SUITES_END,
	};

	return t_run("kfd-debugfs", suites);
}
