// SPDX-License-Identifier: MIT
/*
 * debugfs.c - parsers for the KFD's debugfs views of the hardware queues (kfd/hqds) and of
 * the runlists the HWS runs (kfd/rls): which HQD slots hold a queue, per GPU, XCC and pipe,
 * and which queues of which process each runlist maps. Read as root from
 * /sys/kernel/debug/kfd/; both formats are printed by kfd_device_queue_manager.c and
 * kfd_packet_manager.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfd_internal.h"
#include "hsaqm-common/log.h"

#define DEBUGFS_READ_MAX (64u << 20)

/* ---- line scanning helpers ---------------------------------------------------------------- */

struct line_reader {
	const char *p, *end;
	unsigned int lineno;
};

/* Next line without its newline, leading blanks skipped; false at the end of the text. */
static bool next_line(struct line_reader *r, const char **s, size_t *n)
{
	const char *eol;

	if (r->p >= r->end)
		return false;
	eol = memchr(r->p, '\n', (size_t)(r->end - r->p));
	if (!eol)
		eol = r->end;
	*s = r->p;
	while (*s < eol && (**s == ' ' || **s == '\t'))
		(*s)++;
	*n = (size_t)(eol - *s);
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\r'))
		(*n)--;
	r->p = eol + 1;
	r->lineno++;
	return true;
}

/* Copy a line into a NUL-terminated buffer for sscanf; false if it does not fit. */
static bool line_copy(char *buf, size_t size, const char *s, size_t n)
{
	if (n >= size)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return true;
}

static bool starts_with(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* "Node N, gpu_id X:" */
static bool parse_node_header(const char *line, uint32_t *node, uint32_t *gpu_id)
{
	int used = -1;

	return sscanf(line, "Node %u, gpu_id %x:%n", node, gpu_id, &used) == 2 &&
	       used == (int)strlen(line);
}

/* "ADDR: V V V ..." with 8-digit hex fields. Returns the count of values, -1 if malformed. */
static int parse_hex_line(const char *s, size_t n, uint32_t *addr, uint32_t *vals, int max)
{
	const char *end = s + n;
	int count = 0;

	for (int field = 0; s < end; field++) {
		uint32_t v = 0;
		int digits = 0;

		while (s < end && *s == ' ')
			s++;
		if (s == end)
			break;
		for (; s < end && digits < 9; s++, digits++) {
			char c = *s;

			if (c >= '0' && c <= '9')
				v = v << 4 | (uint32_t)(c - '0');
			else if (c >= 'a' && c <= 'f')
				v = v << 4 | (uint32_t)(c - 'a' + 10);
			else if (c >= 'A' && c <= 'F')
				v = v << 4 | (uint32_t)(c - 'A' + 10);
			else
				break;
		}
		if (digits == 0 || digits > 8)
			return -1;
		if (field == 0) {
			if (s == end || *s != ':')
				return -1;
			s++;
			*addr = v;
			continue;
		}
		if (s < end && *s != ' ')
			return -1;
		if (count == max)
			return -1;
		vals[count++] = v;
	}
	return count;
}

/* ---- kfd/hqds ---------------------------------------------------------------------------- */

enum hqd_section { SEC_NONE, SEC_HIQ, SEC_CP, SEC_SDMA, SEC_OTHER };

struct hqds_state {
	struct hsaqm_hqds *dump;
	struct hsaqm_hqds_gpu *gpu;
	struct hsaqm_hqd_xcc *xcc;
	struct hsaqm_hqd_slot *slot;
	enum hqd_section sec;
	bool sec_started;     /* a register line was seen in this section */
	uint32_t sec_first;   /* address of its first register */
};

static struct hsaqm_hqd_xcc *hqds_xcc(struct hsaqm_hqds_gpu *gpu, uint32_t inst)
{
	for (uint32_t i = 0; i < gpu->n_xcc; i++)
		if (gpu->xcc[i].inst == inst)
			return &gpu->xcc[i];
	if (gpu->n_xcc == HSAQM_HQDS_MAX_XCC)
		return NULL;
	memset(&gpu->xcc[gpu->n_xcc], 0, sizeof(gpu->xcc[0]));
	gpu->xcc[gpu->n_xcc].inst = inst;
	return &gpu->xcc[gpu->n_xcc++];
}

static void hqd_slot_decode(struct hsaqm_hqd_slot *slot)
{
	const uint32_t *r = slot->regs;

	slot->active = slot->n_regs > HSAQM_HQD_REG_ACTIVE && (r[HSAQM_HQD_REG_ACTIVE] & 1);
	if (slot->n_regs > HSAQM_HQD_REG_VMID)
		slot->vmid = r[HSAQM_HQD_REG_VMID] & 0xf;
	if (slot->n_regs > HSAQM_HQD_REG_MQD_BASE_ADDR_HI)
		slot->mqd_addr = (uint64_t)r[HSAQM_HQD_REG_MQD_BASE_ADDR_HI] << 32 |
				 r[HSAQM_HQD_REG_MQD_BASE_ADDR];
	if (slot->n_regs > HSAQM_HQD_REG_PQ_BASE_HI)
		slot->pq_base = ((uint64_t)r[HSAQM_HQD_REG_PQ_BASE_HI] << 32 |
				 r[HSAQM_HQD_REG_PQ_BASE]) << 8;
	if (slot->n_regs > HSAQM_HQD_REG_PQ_DOORBELL_CONTROL) {
		uint32_t db = r[HSAQM_HQD_REG_PQ_DOORBELL_CONTROL];

		slot->doorbell_offset = (db >> 2) & 0x3ffffff;
		slot->doorbell_enabled = (db >> 30) & 1;
	}
}

/* A register line of the current section. */
static int hqds_regs(struct hqds_state *st, const char *s, size_t n)
{
	uint32_t addr, vals[16];
	int count = parse_hex_line(s, n, &addr, vals, 16);

	if (count < 0 || st->sec == SEC_NONE)
		return -EBADMSG;
	if (!st->sec_started) {
		st->sec_started = true;
		st->sec_first = addr;
		if (st->slot)
			st->slot->first_reg_addr = addr;
	}
	if (addr < st->sec_first || (addr - st->sec_first) % 4)
		return -EBADMSG;
	for (int i = 0; i < count; i++) {
		uint32_t idx = (addr - st->sec_first) / 4 + (uint32_t)i;

		if (st->sec == SEC_CP && idx < HSAQM_HQD_MAX_REGS) {
			st->slot->regs[idx] = vals[i];
			if (idx + 1 > st->slot->n_regs)
				st->slot->n_regs = idx + 1;
		} else if (st->sec == SEC_HIQ && idx == HSAQM_HQD_REG_ACTIVE) {
			st->xcc->hiq_active = vals[i] & 1;
		}
	}
	return 0;
}

static int hqds_line(struct hqds_state *st, const char *s, size_t n)
{
	char line[160];
	uint32_t a, b, c, d;
	int used = -1;

	if (n == 0)
		return 0;
	if (!starts_with(s, n, "Node ") && !starts_with(s, n, "Inst ") &&
	    !starts_with(s, n, "SDMA ") && !starts_with(s, n, "Device "))
		return hqds_regs(st, s, n);
	if (!line_copy(line, sizeof(line), s, n))
		return -EBADMSG;

	if (starts_with(s, n, "Node ")) {
		struct hsaqm_hqds_gpu *gpus;

		if (!parse_node_header(line, &a, &b))
			return -EBADMSG;
		gpus = realloc(st->dump->gpus, (st->dump->n_gpus + 1) * sizeof(*gpus));
		if (!gpus)
			return -ENOMEM;
		st->dump->gpus = gpus;
		st->gpu = &gpus[st->dump->n_gpus++];
		memset(st->gpu, 0, sizeof(*st->gpu));
		st->gpu->node_id = a;
		st->gpu->gpu_id = b;
		st->sec = SEC_NONE;
		st->xcc = NULL;
		st->slot = NULL;
		return 0;
	}
	if (!st->gpu)
		return -EBADMSG; /* anything before the first node */
	if (!strcmp(line, "Device is stopped")) {
		st->gpu->stopped = true;
		st->sec = SEC_NONE;
		return 0;
	}
	if (sscanf(line, "Inst %u, HIQ on MEC %u Pipe %u Queue %u%n", &a, &b, &c, &d, &used) ==
		    4 && used == (int)n) {
		st->xcc = hqds_xcc(st->gpu, a);
		if (!st->xcc)
			return -EBADMSG;
		st->xcc->has_hiq = true;
		st->xcc->hiq_mec = b;
		st->xcc->hiq_pipe = c;
		st->xcc->hiq_queue = d;
		st->slot = NULL;
		st->sec = SEC_HIQ;
		st->sec_started = false;
		return 0;
	}
	if (sscanf(line, "Inst %u, CP Pipe %u, Queue %u%n", &a, &b, &c, &used) == 3 &&
	    used == (int)n) {
		st->xcc = hqds_xcc(st->gpu, a);
		if (!st->xcc || st->xcc->n_slots == HSAQM_HQDS_MAX_SLOTS)
			return -EBADMSG;
		st->slot = &st->xcc->slots[st->xcc->n_slots++];
		memset(st->slot, 0, sizeof(*st->slot));
		st->slot->pipe = b;
		st->slot->queue = c;
		st->sec = SEC_CP;
		st->sec_started = false;
		return 0;
	}
	if (sscanf(line, "SDMA Engine %u, RLC %u%n", &a, &b, &used) == 2 && used == (int)n) {
		st->gpu->n_sdma_queues++;
		st->slot = NULL;
		st->sec = SEC_SDMA;
		st->sec_started = false;
		return 0;
	}
	return -EBADMSG;
}

int hsaqm_hqds_parse(const char *text, size_t len, struct hsaqm_hqds **out)
{
	struct line_reader r = { .p = text, .end = text ? text + len : NULL };
	struct hqds_state st = { 0 };
	const char *s;
	size_t n;
	int ret = 0;

	if (!text || !out)
		return -EINVAL;
	st.dump = calloc(1, sizeof(*st.dump));
	if (!st.dump)
		return -ENOMEM;
	while (next_line(&r, &s, &n)) {
		ret = hqds_line(&st, s, n);
		if (ret) {
			hsaqm_log_warn("kfd/hqds line %u: %s", r.lineno,
				       ret == -EBADMSG ? "not understood" : "out of memory");
			hsaqm_hqds_free(st.dump);
			return ret;
		}
	}
	for (uint32_t g = 0; g < st.dump->n_gpus; g++)
		for (uint32_t x = 0; x < st.dump->gpus[g].n_xcc; x++)
			for (uint32_t i = 0; i < st.dump->gpus[g].xcc[x].n_slots; i++)
				hqd_slot_decode(&st.dump->gpus[g].xcc[x].slots[i]);
	*out = st.dump;
	return 0;
}

void hsaqm_hqds_free(struct hsaqm_hqds *hqds)
{
	if (!hqds)
		return;
	free(hqds->gpus);
	free(hqds);
}

uint32_t hsaqm_hqd_xcc_active(const struct hsaqm_hqd_xcc *xcc)
{
	uint32_t n = 0;

	if (!xcc)
		return 0;
	for (uint32_t i = 0; i < xcc->n_slots; i++)
		n += xcc->slots[i].active;
	return n;
}

/* ---- kfd/rls ------------------------------------------------------------------------------ */

struct rl_words {
	uint32_t *w;
	size_t n, cap;
};

static int words_push(struct rl_words *words, uint32_t v)
{
	if (words->n == words->cap) {
		size_t cap = words->cap ? words->cap * 2 : 256;
		uint32_t *w = realloc(words->w, cap * sizeof(*w));

		if (!w)
			return -ENOMEM;
		words->w = w;
		words->cap = cap;
	}
	words->w[words->n++] = v;
	return 0;
}

static int rl_push_process(struct hsaqm_rl_gpu *gpu, const struct hsaqm_rl_process *p)
{
	struct hsaqm_rl_process *ps = realloc(gpu->processes,
					      (gpu->n_processes + 1) * sizeof(*ps));

	if (!ps)
		return -ENOMEM;
	gpu->processes = ps;
	ps[gpu->n_processes++] = *p;
	return 0;
}

static int rl_push_queue(struct hsaqm_rl_gpu *gpu, const struct hsaqm_rl_queue *q)
{
	struct hsaqm_rl_queue *qs = realloc(gpu->queues, (gpu->n_queues + 1) * sizeof(*qs));

	if (!qs)
		return -ENOMEM;
	gpu->queues = qs;
	qs[gpu->n_queues++] = *q;
	return 0;
}

/*
 * Walk a runlist's PM4 type-3 packets. Header: bits 30-31 type (3), 16-29 count (the packet
 * is count + 2 dwords), 8-15 opcode. MAP_PROCESS (gfx9, and its 21-dword gfx 9.4.2+ form):
 * dword 1 pasid (0-15) and quantum (25-31), dword 13 num_queues (22-31). MAP_QUEUES: dword 1
 * queue_type (21-23) and engine_sel (26-28), dword 2 doorbell offset (2-27), dwords 3-4 MQD
 * address, 5-6 write pointer address (kfd_pm4_headers_ai.h, kfd_pm4_headers_aldebaran.h).
 */
static int rl_decode(struct hsaqm_rl_gpu *gpu, const uint32_t *w, size_t n)
{
	size_t i = 0;
	int ret;

	while (i < n) {
		uint32_t h = w[i], op = (h >> 8) & 0xff;
		size_t len = ((h >> 16) & 0x3fff) + 2;

		if (h >> 30 != 3 || i + len > n)
			return -EBADMSG;
		if (op == HSAQM_PM4_OP_MAP_PROCESS) {
			struct hsaqm_rl_process p = { 0 };

			if (len < 16)
				return -EBADMSG;
			p.pasid = w[i + 1] & 0xffff;
			p.process_quantum = (w[i + 1] >> 25) & 0x7f;
			p.num_queues = w[i + 13] >> 22;
			p.first_queue = gpu->n_queues;
			ret = rl_push_process(gpu, &p);
			if (ret)
				return ret;
		} else if (op == HSAQM_PM4_OP_MAP_QUEUES) {
			struct hsaqm_rl_queue q = { 0 };

			if (len < 7 || gpu->n_processes == 0)
				return -EBADMSG;
			q.queue_type = (w[i + 1] >> 21) & 0x7;
			q.engine_sel = (w[i + 1] >> 26) & 0x7;
			q.doorbell_offset = (w[i + 2] >> 2) & 0x3ffffff;
			q.mqd_addr = (uint64_t)w[i + 4] << 32 | w[i + 3];
			q.wptr_addr = (uint64_t)w[i + 6] << 32 | w[i + 5];
			ret = rl_push_queue(gpu, &q);
			if (ret)
				return ret;
			gpu->processes[gpu->n_processes - 1].n_mapped++;
		} else {
			gpu->n_other_packets++;
		}
		i += len;
	}
	return 0;
}

static int rl_finish_gpu(struct hsaqm_rl_gpu *gpu, struct rl_words *words)
{
	int ret = 0;

	if (gpu && words->n)
		ret = rl_decode(gpu, words->w, words->n);
	words->n = 0;
	return ret;
}

int hsaqm_runlist_parse(const char *text, size_t len, struct hsaqm_runlist **out)
{
	struct line_reader r = { .p = text, .end = text ? text + len : NULL };
	struct hsaqm_runlist *rl;
	struct hsaqm_rl_gpu *gpu = NULL;
	struct rl_words words = { 0 };
	const char *s;
	size_t n;
	int ret = 0;

	if (!text || !out)
		return -EINVAL;
	rl = calloc(1, sizeof(*rl));
	if (!rl)
		return -ENOMEM;
	while (!ret && next_line(&r, &s, &n)) {
		char line[160];
		uint32_t node, gpu_id, addr, vals[16];
		int count;

		if (n == 0)
			continue;
		if (starts_with(s, n, "Node ")) {
			struct hsaqm_rl_gpu *gpus;

			ret = rl_finish_gpu(gpu, &words);
			if (ret)
				break;
			if (!line_copy(line, sizeof(line), s, n) ||
			    !parse_node_header(line, &node, &gpu_id)) {
				ret = -EBADMSG;
				break;
			}
			gpus = realloc(rl->gpus, (rl->n_gpus + 1) * sizeof(*gpus));
			if (!gpus) {
				ret = -ENOMEM;
				break;
			}
			rl->gpus = gpus;
			gpu = &gpus[rl->n_gpus++];
			memset(gpu, 0, sizeof(*gpu));
			gpu->node_id = node;
			gpu->gpu_id = gpu_id;
			continue;
		}
		if (!gpu) {
			ret = -EBADMSG;
			break;
		}
		if (n == strlen("No active runlist") && starts_with(s, n, "No active runlist")) {
			gpu->has_runlist = false;
			continue;
		}
		count = parse_hex_line(s, n, &addr, vals, 16);
		/* Offsets count the bytes dumped so far: a gap means a lost or foreign line. */
		if (count < 0 || addr != words.n * 4) {
			ret = -EBADMSG;
			break;
		}
		gpu->has_runlist = true;
		for (int i = 0; i < count && !ret; i++)
			ret = words_push(&words, vals[i]);
	}
	if (!ret)
		ret = rl_finish_gpu(gpu, &words);
	free(words.w);
	if (ret) {
		hsaqm_log_warn("kfd/rls line %u: %s", r.lineno,
			       ret == -EBADMSG ? "not understood" : "out of memory");
		hsaqm_runlist_free(rl);
		return ret;
	}
	*out = rl;
	return 0;
}

void hsaqm_runlist_free(struct hsaqm_runlist *rl)
{
	if (!rl)
		return;
	for (uint32_t i = 0; i < rl->n_gpus; i++) {
		free(rl->gpus[i].processes);
		free(rl->gpus[i].queues);
	}
	free(rl->gpus);
	free(rl);
}

/* ---- reading ------------------------------------------------------------------------------- */

int hsaqm_debugfs_read(const char *path, char **text, size_t *len)
{
	size_t cap = 1 << 16, got = 0;
	char *buf;
	int fd, ret = 0;

	if (!path || !text)
		return -EINVAL;
	do {
		fd = open(path, O_RDONLY | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n;

		if (got + 1 == cap) {
			char *bigger;

			if (cap >= DEBUGFS_READ_MAX) {
				ret = -EFBIG;
				break;
			}
			bigger = realloc(buf, cap * 2);
			if (!bigger) {
				ret = -ENOMEM;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
		n = read(fd, buf + got, cap - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[got] = '\0';
	*text = buf;
	if (len)
		*len = got;
	return 0;
}
