/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-dclient/proto.h - the hsaqmd wire protocol (version 3, docs/daemon.md "Protocol") and the
 * layout of the per-client shared memory.
 *
 * The socket is SOCK_SEQPACKET: one send is one message, so a message's length is the
 * datagram's length and the header's `len` must equal it. Every body has a fixed size per
 * type; hsaqmd_msg_parse() checks the header, the size, and every field's range before the
 * daemon or a client looks at a value. Integers are in host order (the socket never leaves
 * the machine).
 *
 * The socket carries registration and control only. What changes per kernel (a queue became
 * ready or idle; a queue must stop or may go on) lives in shared memory the daemon creates
 * (a sealed memfd, so a client cannot shrink it under the daemon), with one eventfd each way
 * for wake-ups that coalesce through a "kick" word.
 */
#ifndef HSAQM_DCLIENT_PROTO_H
#define HSAQM_DCLIENT_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define HSAQMD_MAGIC 0x444d5148u /* "HQMD" in memory order on little-endian hosts */
/* 2: the hand-off stamps in shared memory and the hand-off figures in STATS_OK.
 * 3: each slot's progress word (a hold is earned by progress), the mechanism name of a queue,
 *    the hidden count of LIST's END (who sees whom), the refusal and liveness counters. */
#define HSAQMD_PROTO_VERSION 3
/* No message is larger; a datagram of more is malformed (received as truncated). */
#define HSAQMD_MSG_MAX 512
/* Queue slots per client: the tool library has at most a few queues per device. */
#define HSAQMD_SLOTS 128
/* Heartbeat period, and how long a holding client waits without one (20 periods: a loaded
 * host may delay a timer, it does not stop a process for seconds). */
#define HSAQMD_HEARTBEAT_MS 100u
#define HSAQMD_HEARTBEAT_STALE_MS 2000u
#define HSAQMD_COMM_LEN 16
/* A preemption mechanism's name ("lv2", "dbg_trap", "cu_mask"...), NUL-terminated. */
#define HSAQMD_MECH_LEN 16
#define HSAQMD_NO_KFD_QUEUE UINT32_MAX
#define HSAQMD_ALL_GPUS UINT32_MAX

struct hsaqmd_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t len; /* the whole message, header included */
	uint32_t seq; /* chosen by the requester, echoed in every reply */
};

enum hsaqmd_type {
	HSAQMD_HELLO = 1,        /* C->D, first message of every connection */
	HSAQMD_HELLO_OK = 2,     /* D->C; a client also gets 3 fds: memfd, kick-daemon, kick-client */
	HSAQMD_QUEUE_ADD = 3,    /* C->D */
	HSAQMD_QUEUE_ADD_OK = 4, /* D->C */
	HSAQMD_QUEUE_DEL = 5,    /* C->D -> RESULT */
	HSAQMD_QUEUE_SET = 6,    /* C->D -> RESULT */
	HSAQMD_PROC_SET = 7,     /* C->D: the process's own priority -> RESULT */
	HSAQMD_RESULT = 8,       /* D->C */
	HSAQMD_LIST = 9,         /* C->D -> LIST_PROC/LIST_QUEUE..., END */
	HSAQMD_LIST_PROC = 10,
	HSAQMD_LIST_QUEUE = 11,
	HSAQMD_END = 12,
	HSAQMD_CTL_SET_PRIO = 13, /* C->D: another process's or queue's priority -> RESULT */
	HSAQMD_STATS = 14,        /* C->D -> STATS_OK */
	HSAQMD_STATS_OK = 15,
	HSAQMD_POLICY_GET = 16,   /* C->D -> POLICY_ENTRY..., END */
	HSAQMD_POLICY_ENTRY = 17,
	HSAQMD_POLICY_SET = 18,   /* C->D -> RESULT */
	HSAQMD_METRICS = 19,      /* C->D -> TEXT..., END (the Prometheus text format) */
	HSAQMD_TEXT = 20,         /* D->C: a chunk of text */
	HSAQMD_TYPE_MAX = 20,
};

enum hsaqmd_role {
	HSAQMD_ROLE_CLIENT = 1, /* a process with queues: gets shared memory */
	HSAQMD_ROLE_CTL = 2,    /* hsaqmctl: queries and control only */
};

struct hsaqmd_hello {
	uint32_t role;
	int32_t priority; /* the process's; clamped to its uid's cap */
	uint32_t pid;     /* as the client sees itself (its pid namespace) */
	uint32_t flags;   /* 0 */
	char comm[HSAQMD_COMM_LEN]; /* NUL-terminated */
};

struct hsaqmd_hello_ok {
	uint32_t client_id;
	int32_t priority; /* granted */
	uint32_t slots;
	uint32_t shm_size;
	uint32_t daemon_pid;
	uint32_t flags; /* 0 */
};

struct hsaqmd_queue_add {
	uint32_t gpu_id;       /* KFD gpu_id; any value but HSAQMD_ALL_GPUS */
	uint32_t kfd_queue_id; /* HSAQMD_NO_KFD_QUEUE when unknown */
	uint64_t hsa_queue_id;
	uint32_t level;        /* enum hsaqm_level */
	int32_t prio_adj;      /* added to the process's priority, -200..200 */
	uint32_t group;        /* UTIL: 0 = the process is the group */
	uint32_t share;        /* UTIL: permille, 0..1000 */
	/* Chosen by the client and kept for the queue's life, across reconnections: the
	 * client's state word for it never moves. Its current value is read from memory. */
	uint32_t slot;
	uint32_t pad;
	/* The mechanism the level uses in this process; "" = the level's own name. */
	char mech[HSAQMD_MECH_LEN];
};

struct hsaqmd_queue_add_ok {
	uint32_t slot;
	uint32_t qid; /* daemon-wide queue id (hsaqmctl's qN) */
	uint32_t cmd; /* the initial command word (bit 0: preempted) */
	uint32_t pad;
};

struct hsaqmd_queue_del {
	uint32_t slot;
	uint32_t pad;
};

#define HSAQMD_SET_KFD_ID (1u << 0)
#define HSAQMD_SET_LEVEL (1u << 1)
#define HSAQMD_SET_PRIO_ADJ (1u << 2)
#define HSAQMD_SET_SHARE (1u << 3) /* group and share */
#define HSAQMD_SET_MECH (1u << 4)
#define HSAQMD_SET_ALL 0x1fu

struct hsaqmd_queue_set {
	uint32_t slot;
	uint32_t what; /* HSAQMD_SET_*, at least one */
	uint32_t kfd_queue_id;
	uint32_t level;
	int32_t prio_adj;
	uint32_t group;
	uint32_t share;
	uint32_t pad;
	char mech[HSAQMD_MECH_LEN];
};

struct hsaqmd_proc_set {
	int32_t priority;
	uint32_t pad;
};

struct hsaqmd_result {
	int32_t status; /* 0 or a negative errno */
	int32_t value;  /* PROC_SET, CTL_SET_PRIO: the priority now in force */
};

#define HSAQMD_TARGET_PID 1   /* the pid as the daemon sees it (its namespace) */
#define HSAQMD_TARGET_QUEUE 2 /* a qid */

struct hsaqmd_ctl_set_prio {
	uint32_t target_kind;
	uint32_t target;
	int32_t priority; /* a process: its priority; a queue: its adjustment */
	uint32_t pad;
};

struct hsaqmd_list_proc {
	uint32_t client_id;
	uint32_t pid;    /* in the client's namespace */
	uint32_t pid_ns; /* in the daemon's namespace (SO_PEERCRED) */
	uint32_t uid;
	int32_t priority;
	int32_t cap;
	uint32_t nqueues;
	uint32_t role;
	uint64_t connected_ns; /* CLOCK_MONOTONIC at accept */
	char comm[HSAQMD_COMM_LEN];
};

enum hsaqmd_qstate {
	HSAQMD_QSTATE_IDLE = 0,
	HSAQMD_QSTATE_READY = 1,
	HSAQMD_QSTATE_PREEMPTED = 2, /* commanded to hold (ready or idle) */
};

struct hsaqmd_list_queue {
	uint32_t client_id;
	uint32_t qid;
	uint32_t slot;
	uint32_t gpu_id;
	uint32_t kfd_queue_id;
	uint32_t level;
	uint64_t hsa_queue_id;
	int32_t priority; /* effective */
	int32_t prio_adj;
	uint32_t state;   /* enum hsaqmd_qstate */
	uint32_t acked;   /* 1 when the client applied the last command */
	uint32_t group;
	uint32_t share;
	uint64_t preemptions; /* commands to hold sent */
	uint64_t held_ns;     /* time spent commanded to hold, the current hold included */
	uint64_t stalls;      /* times its hold on others was released for want of progress */
	uint32_t stalled;     /* 1 while, not held itself, it lost its hold for want of progress */
	uint32_t dep_stalls;  /* the client's count: its head waited past the dependency bound */
	char mech[HSAQMD_MECH_LEN];
};

struct hsaqmd_end {
	uint32_t count;  /* entries sent before it */
	uint32_t hidden; /* LIST: processes of other users the requester may not see */
};

/* Percentiles of one hand-off segment; all 0 with count 0. */
struct hsaqmd_lat {
	uint64_t count;
	uint32_t p50_ns;
	uint32_t p90_ns;
	uint32_t p99_ns;
	uint32_t max_ns;
};

struct hsaqmd_stats_ok {
	uint64_t uptime_ns;
	uint64_t messages;
	uint64_t bad_messages;  /* each closed its connection */
	uint64_t decisions;
	uint64_t commands;      /* command-word changes written */
	uint64_t kicks_in;      /* wake-ups from clients */
	uint64_t kicks_out;     /* wake-ups sent to clients */
	uint64_t clients_total; /* connections accepted since start */
	uint64_t clients_lost;  /* clients that went away holding queues */
	uint64_t rss_kib;
	uint32_t clients;
	uint32_t ctls;
	uint32_t queues;
	uint32_t devices;
	uint32_t fds;
	uint32_t polling;       /* 1 while the daemon busy-polls the state words (busy_poll) */
	/* Hand-off timing (docs/daemon.md "Hand-off timing"), every hold the daemon commanded
	 * for a process because another process's queue became ready: */
	struct hsaqmd_lat ready_seen;  /* that queue's state store -> the daemon read it */
	struct hsaqmd_lat seen_sent;   /* -> the hold command stored (the decision) */
	struct hsaqmd_lat sent_acked;  /* -> the held process acknowledged: its gates closed */
	struct hsaqmd_lat ready_acked; /* the whole reaction, sample by sample */
	uint64_t holds_unacked;        /* holds replaced or dropped before their ack was seen */
	uint64_t stamps_discarded;     /* samples outside 0..1 s (another clock, or a bad stamp) */
	/* Security refusals (docs/daemon.md "Security model"), each a connection or request: */
	uint64_t refused_full;         /* no free connection slot (reserved ones excepted) */
	uint64_t refused_uid_limit;    /* the uid's connections at max_clients_per_uid */
	uint64_t refused_hello;        /* no HELLO within hello_timeout_ms */
	uint64_t refused_slow;         /* a reader too slow for its replies: dropped */
	uint64_t refused_device;       /* a gpu_id not in the node's topology */
	uint64_t refused_quota;        /* a uid's queue or device quota */
	uint64_t stalls;               /* holds released because the holder made no progress */
	uint32_t realtime;             /* the daemon's thread runs SCHED_FIFO at this priority; 0 no */
	uint32_t spinning;             /* 1 while it spins on the state words */
};

/* TEXT: up to HSAQMD_TEXT_MAX bytes of text, `len` of them used (no NUL). */
#define HSAQMD_TEXT_MAX 480
struct hsaqmd_text {
	uint32_t len;
	uint32_t pad;
	char text[HSAQMD_TEXT_MAX];
};

struct hsaqmd_policy_entry {
	uint32_t gpu_id; /* HSAQMD_ALL_GPUS: the default for devices without their own */
	uint32_t kind;   /* enum hsaqm_policy_kind */
	uint32_t floor_period_us;
	uint32_t floor_slice_us;
	uint32_t util_period_us;
	uint32_t nqueues;
};

/* POLICY_SET carries a hsaqmd_policy_entry (nqueues ignored, must be 0). */

/* A parsed and validated message: the header and a copy of its body. */
struct hsaqmd_msg {
	struct hsaqmd_hdr hdr;
	union {
		struct hsaqmd_hello hello;
		struct hsaqmd_hello_ok hello_ok;
		struct hsaqmd_queue_add queue_add;
		struct hsaqmd_queue_add_ok queue_add_ok;
		struct hsaqmd_queue_del queue_del;
		struct hsaqmd_queue_set queue_set;
		struct hsaqmd_proc_set proc_set;
		struct hsaqmd_result result;
		struct hsaqmd_ctl_set_prio ctl_set_prio;
		struct hsaqmd_list_proc list_proc;
		struct hsaqmd_list_queue list_queue;
		struct hsaqmd_end end;
		struct hsaqmd_stats_ok stats_ok;
		struct hsaqmd_policy_entry policy;
		struct hsaqmd_text text;
		uint8_t raw[HSAQMD_MSG_MAX];
	} u;
};

/*
 * hsaqmd_msg_parse() - check one received datagram and copy it into @out.
 * @buf, @n: the bytes as received (@n larger than HSAQMD_MSG_MAX means truncated).
 *
 * Checks the magic, the version, the type, that len == @n == the type's size, and every
 * field's range (priorities, levels, shares, roles, flags, padding zero, strings
 * NUL-terminated). Nothing is trusted after a failure.
 * Return: 0; -EINVAL for NULL arguments; -EBADMSG for any malformed message;
 * -EPROTONOSUPPORT for another protocol version (a well-formed header).
 */
int hsaqmd_msg_parse(const void *buf, size_t n, struct hsaqmd_msg *out);

/* hsaqmd_msg_body_size() - the body size of @type; 0 for a type without a body; -1 unknown. */
int hsaqmd_msg_body_size(unsigned int type);

/*
 * hsaqmd_msg_build() - a header and @body in @buf (at least HSAQMD_MSG_MAX bytes).
 * Return: the message length; -EINVAL for an unknown type or NULL arguments.
 */
int hsaqmd_msg_build(void *buf, unsigned int type, uint32_t seq, const void *body);

/* ---- Shared memory (one memfd per client, HSAQMD_SHM_SIZE bytes, sealed) ---- */

struct hsaqmd_shm_slot {
	uint32_t state; /* client writes: 1 ready (has work), 0 idle */
	uint32_t cmd;   /* daemon writes: sequence << 1 | 1 when the queue must hold */
	uint32_t ack;   /* client writes: the last cmd it applied (its callback returned) */
	/* Client adds 1 at each doorbell and each completion: a ready queue whose word stops
	 * changing for hold_progress_ms holds nobody (a stopped or hung process). */
	uint32_t progress;
};

/*
 * Hand-off stamps, written by the client and read by the daemon for its statistics only:
 * the low 32 bits of CLOCK_MONOTONIC in ns (a difference is right up to 4.29 s). A client
 * can only spoil its own samples with them; the daemon drops what falls outside 0..1 s.
 */
struct hsaqmd_shm_stamp {
	uint32_t ready_ns; /* stored before a state word goes 0 -> 1 */
	uint32_t ack_ns;   /* stored before an ack of a hold command */
};

struct hsaqmd_shm {
	uint32_t magic;
	uint32_t version;
	uint32_t slots;
	uint32_t size;
	/* Set to 1 by the side that changed words; the other side clears it before it reads
	 * them. Only the 0 -> 1 transition costs an eventfd write. */
	uint32_t kick_daemon;
	uint32_t kick_client;
	/*
	 * The daemon adds 1 every heartbeat_ms; 0 there: a daemon without a heartbeat. A client
	 * holding queues that sees no change for HSAQMD_HEARTBEAT_STALE_MS treats the daemon as
	 * gone (a stopped or hung daemon must not keep a process held: fail-open).
	 */
	uint32_t heartbeat;
	uint32_t heartbeat_ms;
	uint32_t pad[8];
	struct hsaqmd_shm_slot slot[HSAQMD_SLOTS];
	struct hsaqmd_shm_stamp stamp[HSAQMD_SLOTS];
	/*
	 * Client writes: how many times the queue's head waited past its process's dependency
	 * bound (lib's dep_stalls, docs/lib.md "Dependencies"): shown by list and the metrics,
	 * never used to decide. Last in the page, so the words before it keep their places.
	 */
	uint32_t dep_stalls[HSAQMD_SLOTS];
};

#define HSAQMD_SHM_SIZE 4096u
_Static_assert(sizeof(struct hsaqmd_shm) <= HSAQMD_SHM_SIZE, "shm fits its size");
_Static_assert(sizeof(struct hsaqmd_hdr) == 16, "header is 16 bytes");

#define HSAQMD_CMD_HOLD 1u

#endif /* HSAQM_DCLIENT_PROTO_H */
