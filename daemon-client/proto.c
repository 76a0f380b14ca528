/* SPDX-License-Identifier: MIT */
/*
 * The hsaqmd message parser (hsaqm-dclient/proto.h). Both ends run every received datagram
 * through it; the daemon closes a client whose message it refuses. It is the fuzz target's
 * surface (fuzz_msg.c), so it reads only inside [buf, buf + n) and never trusts a length.
 */
#include <errno.h>
#include <string.h>

#include "hsaqm/hsaqm.h"
#include "hsaqm-dclient/proto.h"

/* Per-process priorities take the public range; a queue's adjustment may span it twice. */
#define PRIO_ADJ_MAX (2 * HSAQM_PRIORITY_MAX)

/* Known types by their name (a type without one is unknown), and their body sizes. */
static const struct {
	const char *name;
	int size;
} types[HSAQMD_TYPE_MAX + 1] = {
	[HSAQMD_HELLO] = { "hello", sizeof(struct hsaqmd_hello) },
	[HSAQMD_HELLO_OK] = { "hello-ok", sizeof(struct hsaqmd_hello_ok) },
	[HSAQMD_QUEUE_ADD] = { "queue-add", sizeof(struct hsaqmd_queue_add) },
	[HSAQMD_QUEUE_ADD_OK] = { "queue-add-ok", sizeof(struct hsaqmd_queue_add_ok) },
	[HSAQMD_QUEUE_DEL] = { "queue-del", sizeof(struct hsaqmd_queue_del) },
	[HSAQMD_QUEUE_SET] = { "queue-set", sizeof(struct hsaqmd_queue_set) },
	[HSAQMD_PROC_SET] = { "proc-set", sizeof(struct hsaqmd_proc_set) },
	[HSAQMD_RESULT] = { "result", sizeof(struct hsaqmd_result) },
	[HSAQMD_LIST] = { "list", 0 },
	[HSAQMD_LIST_PROC] = { "list-proc", sizeof(struct hsaqmd_list_proc) },
	[HSAQMD_LIST_QUEUE] = { "list-queue", sizeof(struct hsaqmd_list_queue) },
	[HSAQMD_END] = { "end", sizeof(struct hsaqmd_end) },
	[HSAQMD_CTL_SET_PRIO] = { "ctl-set-prio", sizeof(struct hsaqmd_ctl_set_prio) },
	[HSAQMD_STATS] = { "stats", 0 },
	[HSAQMD_STATS_OK] = { "stats-ok", sizeof(struct hsaqmd_stats_ok) },
	[HSAQMD_POLICY_GET] = { "policy-get", 0 },
	[HSAQMD_POLICY_ENTRY] = { "policy-entry", sizeof(struct hsaqmd_policy_entry) },
	[HSAQMD_POLICY_SET] = { "policy-set", sizeof(struct hsaqmd_policy_entry) },
	[HSAQMD_METRICS] = { "metrics", 0 },
	[HSAQMD_TEXT] = { "text", sizeof(struct hsaqmd_text) },
};

int hsaqmd_msg_body_size(unsigned int type)
{
	if (type == 0 || type > HSAQMD_TYPE_MAX || !types[type].name)
		return -1;
	return types[type].size;
}

static int prio_ok(int32_t p)
{
	return p >= HSAQM_PRIORITY_MIN && p <= HSAQM_PRIORITY_MAX;
}

static int adj_ok(int32_t a)
{
	return a >= -PRIO_ADJ_MAX && a <= PRIO_ADJ_MAX;
}

static int level_ok(uint32_t l)
{
	return l <= HSAQM_LEVEL_3;
}

static int str_ok(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

/* A mechanism name: NUL-terminated, lower-case letters, digits and '_' only (a label value). */
static int mech_ok(const char *s)
{
	if (!str_ok(s, HSAQMD_MECH_LEN))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static int policy_ok(const struct hsaqmd_policy_entry *p)
{
	if (p->kind > HSAQM_POLICY_NONE)
		return 0;
	if ((p->floor_period_us == 0) != (p->floor_slice_us == 0))
		return 0;
	if (p->floor_period_us && p->floor_slice_us >= p->floor_period_us)
		return 0;
	/* Longer than 100 s is a mistake, and keeps microsecond arithmetic far from overflow. */
	return p->floor_period_us <= 100000000u && p->util_period_us <= 100000000u;
}

/* Every field of a validated body is in range: the daemon and the client use them as is. */
static int body_ok(unsigned int type, const struct hsaqmd_msg *m)
{
	switch (type) {
	case HSAQMD_HELLO: {
		const struct hsaqmd_hello *h = &m->u.hello;

		return (h->role == HSAQMD_ROLE_CLIENT || h->role == HSAQMD_ROLE_CTL) &&
		       prio_ok(h->priority) && h->flags == 0 && str_ok(h->comm, sizeof(h->comm));
	}
	case HSAQMD_HELLO_OK: {
		const struct hsaqmd_hello_ok *h = &m->u.hello_ok;

		return prio_ok(h->priority) && h->slots <= HSAQMD_SLOTS &&
		       (h->shm_size == 0 || h->shm_size == HSAQMD_SHM_SIZE) && h->flags == 0;
	}
	case HSAQMD_QUEUE_ADD: {
		const struct hsaqmd_queue_add *q = &m->u.queue_add;

		return q->gpu_id != HSAQMD_ALL_GPUS && level_ok(q->level) && adj_ok(q->prio_adj) &&
		       q->share <= HSAQM_SHARE_MAX && q->slot < HSAQMD_SLOTS && q->pad == 0 &&
		       mech_ok(q->mech);
	}
	case HSAQMD_QUEUE_ADD_OK: {
		const struct hsaqmd_queue_add_ok *q = &m->u.queue_add_ok;

		return q->slot < HSAQMD_SLOTS && q->pad == 0;
	}
	case HSAQMD_QUEUE_DEL:
		return m->u.queue_del.slot < HSAQMD_SLOTS && m->u.queue_del.pad == 0;
	case HSAQMD_QUEUE_SET: {
		const struct hsaqmd_queue_set *q = &m->u.queue_set;

		if (q->slot >= HSAQMD_SLOTS || q->what == 0 || (q->what & ~HSAQMD_SET_ALL) ||
		    q->pad)
			return 0;
		if ((q->what & HSAQMD_SET_LEVEL) && !level_ok(q->level))
			return 0;
		if ((q->what & HSAQMD_SET_PRIO_ADJ) && !adj_ok(q->prio_adj))
			return 0;
		if ((q->what & HSAQMD_SET_SHARE) && q->share > HSAQM_SHARE_MAX)
			return 0;
		return mech_ok(q->mech);
	}
	case HSAQMD_PROC_SET:
		return prio_ok(m->u.proc_set.priority) && m->u.proc_set.pad == 0;
	case HSAQMD_RESULT:
		return m->u.result.status <= 0 && m->u.result.status > -4096;
	case HSAQMD_CTL_SET_PRIO: {
		const struct hsaqmd_ctl_set_prio *c = &m->u.ctl_set_prio;

		if (c->pad)
			return 0;
		if (c->target_kind == HSAQMD_TARGET_PID)
			return prio_ok(c->priority);
		return c->target_kind == HSAQMD_TARGET_QUEUE && adj_ok(c->priority);
	}
	case HSAQMD_LIST_PROC:
		return str_ok(m->u.list_proc.comm, sizeof(m->u.list_proc.comm));
	case HSAQMD_LIST_QUEUE:
		return str_ok(m->u.list_queue.mech, sizeof(m->u.list_queue.mech));
	case HSAQMD_TEXT:
		return m->u.text.len <= HSAQMD_TEXT_MAX && m->u.text.pad == 0;
	case HSAQMD_POLICY_SET:
		return policy_ok(&m->u.policy) && m->u.policy.nqueues == 0;
	case HSAQMD_POLICY_ENTRY:
		return policy_ok(&m->u.policy);
	default:
		/* Replies the client only displays, and bodiless requests. */
		return 1;
	}
}

int hsaqmd_msg_parse(const void *buf, size_t n, struct hsaqmd_msg *out)
{
	struct hsaqmd_hdr hdr;
	int size;

	if (!buf || !out)
		return -EINVAL;
	if (n < sizeof(hdr) || n > HSAQMD_MSG_MAX)
		return -EBADMSG;
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.magic != HSAQMD_MAGIC)
		return -EBADMSG;
	if (hdr.version != HSAQMD_PROTO_VERSION)
		return -EPROTONOSUPPORT;
	size = hsaqmd_msg_body_size(hdr.type);
	if (size < 0 || hdr.len != n || n != sizeof(hdr) + (size_t)size)
		return -EBADMSG;
	memset(out, 0, sizeof(*out));
	out->hdr = hdr;
	memcpy(&out->u, (const char *)buf + sizeof(hdr), (size_t)size);
	if (!body_ok(hdr.type, out))
		return -EBADMSG;
	return 0;
}

int hsaqmd_msg_build(void *buf, unsigned int type, uint32_t seq, const void *body)
{
	int size = hsaqmd_msg_body_size(type);
	struct hsaqmd_hdr hdr;

	if (!buf || size < 0 || (size > 0 && !body))
		return -EINVAL;
	hdr.magic = HSAQMD_MAGIC;
	hdr.version = HSAQMD_PROTO_VERSION;
	hdr.type = (uint16_t)type;
	hdr.len = (uint32_t)(sizeof(hdr) + (size_t)size);
	hdr.seq = seq;
	memcpy(buf, &hdr, sizeof(hdr));
	if (size)
		memcpy((char *)buf + sizeof(hdr), body, (size_t)size);
	return (int)hdr.len;
}
