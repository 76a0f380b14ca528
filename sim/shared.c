/* SPDX-License-Identifier: MIT */
/*
 * Shared mode: the model runs in its own device process (hsaqm-simd, or any process calling
 * hsaqm_sim_serve()) and several client processes share it, each through the same HSA and
 * KFD faces as in-process mode. docs/sim.md, "Shared mode", is the design; in short:
 *
 *   - Memory. The device makes one arena (memfd) per client, maps it at an address of its
 *     choosing and passes the fd over the socket (SCM_RIGHTS); the client maps it at the
 *     same address (MAP_FIXED_NOREPLACE; -EADDRINUSE if it cannot), as SVM is one address
 *     on CPU and GPU. A client sees only its own arena, so it cannot touch another client's
 *     rings or signals, and a queue's packets may name only its own client's memory (the
 *     packet processor checks every handle against the queue's arena). The device page
 *     (another memfd, mapped by every client) holds the engines' wake words and the clock.
 *   - Data path. Doorbells go into a log in the queue's shared page plus the device's wake
 *     words; signal stores wake engines and waiters through shared futexes. Nothing of it
 *     goes through the socket.
 *   - Control path. The socket (SOCK_SEQPACKET) carries only the hello (version, memory),
 *     the profiles, and the hardware-queue control calls (create, destroy, update, CU mask,
 *     suspend, resume), which a connection thread of the device performs with the ordinary
 *     sim_hwq_* calls. The KFD and HSA faces run in the client on top of them, so each
 *     client process has its own KFD processes, as on a real machine.
 *   - Errors cross as memory: the device stores a failed queue's status in its shared page
 *     and bumps the client's error word; the client's error thread calls the callback.
 *   - A client's end (exit, crash, SIGKILL) closes its socket: the device destroys its
 *     queues (which also ends any suspension of them) and unmaps its arena; the other
 *     clients run on.
 *   - The device's end (SIGKILL, a crash) is a hang-up of every client's socket. A thread
 *     of each client watches for it: every queue then fails with HSA_STATUS_ERROR_FATAL
 *     (its error callback, as for a queue error), control calls fail at once, and host
 *     waits on signals return (sim_shared_lost()): nothing of the client hangs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"
#include "kfd_face_internal.h"
#include "hsaqm-common/log.h"
#include "shared_internal.h"
#include "hsaqm-common/sockfile.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define GIB (1ull << 30)
#define PAGE_BYTES 4096u
#define SIM_PAGE_MAGIC 0x44455650u /* "DEVP" */
#define SIM_MSG_MAGIC 0x53494d4du  /* "SIMM" */
#define SIM_MSG_MAX_Q 1024u        /* queues in one suspend/resume (KFD_MAX_QUEUES) */
#define SIM_MSG_MAX_MASK 32u       /* CU mask words (1024 CUs) */
#define SIM_PROFILE_NAME 48u
#define SIM_MSG_MAX_PROCS 256u     /* kfd/proc entries per reply */
#define SIM_PASID_BASE 0x8001u     /* KFD PASIDs start above the graphics ones */
#define SIM_STATUS_ERROR_FATAL 0x1026 /* HSA_STATUS_ERROR_FATAL: a queue of a lost device */
/* How long a client's host wait sleeps at most before it looks whether the device process
 * is gone (assumption: a tenth of a second to notice is soon enough, and ten wake-ups a
 * second of a thread waiting that long cost nothing). */
#define SIM_LOST_POLL_NS 100000000ull

/* The device page: what every process of a shared model must agree on. */
struct sim_shared_page {
	uint32_t magic;
	uint32_t version;
	uint64_t start_mono; /* the model's time 0 on CLOCK_MONOTONIC (system-wide) */
	struct sim_dev_wake dev[HSAQM_SIM_MAX_DEVICES];
};
_Static_assert(sizeof(struct sim_shared_page) <= PAGE_BYTES, "device page fits a page");

enum sim_op {
	SIM_OP_HELLO = 1,
	SIM_OP_PROFILE,
	SIM_OP_CREATE,
	SIM_OP_DESTROY,
	SIM_OP_UPDATE,
	SIM_OP_CU_MASK,
	SIM_OP_SUSPEND,
	SIM_OP_RESUME,
	SIM_OP_KFD_PROC,  /* a client's KFD process opens (gets its PASID) or ends */
	SIM_OP_PROCS,     /* every client's KFD processes and queues (kfd/proc) */
};

/*
 * One message each way per call. The first 16 bytes and the hello never change between
 * versions, so a client of another version still gets a readable -EPROTO.
 */
struct sim_msg {
	uint32_t magic;
	uint32_t op;
	int32_t result;
	uint32_t pad;
	union {
		struct {
			uint32_t version;
			int32_t pid;
		} hello;
		struct {
			uint32_t version;
			uint32_t ndev;
			uint64_t page_addr, page_size, arena_addr, arena_size;
			uint64_t start_mono;
			double scale;
			uint32_t kfd_minor_version;
			int32_t sched_policy;
			int32_t cwsr_disable;
			uint32_t client_id;
			uint64_t seed;
		} welcome;
		struct {
			uint32_t dev;
			uint32_t pad;
			struct sim_profile prof;
			char names[32][SIM_PROFILE_NAME];
		} profile;
		struct {
			uint32_t dev, ring_size, priority, active, pasid, queue_index;
			uint32_t kfd_qid1, pad; /* KFD queue id + 1; 0: not a KFD queue */
			uint64_t ring, wptr, rptr, shm, handle;
		} create;
		struct {
			uint32_t open, pasid;
		} kproc;
		struct {
			uint32_t start, n, total, pad;
			struct sim_proc_queue e[SIM_MSG_MAX_PROCS];
		} procs;
		struct {
			uint64_t handle, ring;
			uint32_t ring_size, priority, active, pad;
		} update;
		struct {
			uint64_t handle;
			uint32_t nbits, pad;
			uint32_t mask[SIM_MSG_MAX_MASK];
		} mask;
		struct {
			uint32_t n, grace;
			uint64_t handles[SIM_MSG_MAX_Q];
		} qs;
		uint64_t handle;
	} u;
	/*
	 * After the union, so that the hello keeps its place across versions. A call: its model
	 * time when the client made it. The device's request acts at that time, not when the
	 * device process got round to reading the socket: the socket and the connection
	 * thread's wake-up are the emulation's, which a KFD ioctl on a GPU does not have
	 * (sim_device_request_stamp()). A reply: the model time before which the client does
	 * not return (the device finished plus call_return_ns; 0: return at once).
	 */
	uint64_t at;
};

/* A client as the device sees it. */
struct sim_conn {
	struct hsaqm_sim *sim;
	int fd;
	int slot;                 /* region slot of its arena, -1 none */
	pid_t pid;
	struct sim_arena arena;   /* its arena, mapped here at the address it maps it at */
	pthread_t thread;
	uint32_t finished;        /* atomic: the thread is done, join it */
	struct sim_hwq **qs;      /* handle - 1 -> queue, NULL = free */
	uint32_t *qkfd;           /* handle - 1 -> KFD queue id + 1 (0: not a KFD queue) */
	uint32_t kfd_pasid;       /* its KFD process's PASID, 0 while it has none */
	uint32_t nqs;
	uint32_t capqs;
};

struct sim_shared {
	/* Both roles: the device page. */
	int page_fd;
	struct sim_shared_page *page;

	/* Device role. */
	int listen_fd;
	int stop_fd[2];
	uint32_t stop_requested;
	bool serving;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	size_t arena_size;
	uint64_t arena_stride;
	unsigned int nslots;
	pthread_mutex_t lock;
	struct sim_conn *conns[SIM_SHARED_MAX_CLIENTS];
	struct {
		uintptr_t base; /* atomic: 0 = free; the engine looks signals' arenas up here */
		uintptr_t size;
	} mem[SIM_SHARED_MAX_CLIENTS];
	uint32_t next_client_id;
	uint32_t next_pasid;      /* under lock */

	/* Client role. */
	int fd;
	uint64_t late_returns;    /* replies that came after their return time (return_at) */
	pthread_mutex_t rpc_lock;
	pthread_mutex_t qlock;
	struct sim_list queues;   /* client queues (sim_hwq.link) */
	pthread_t err_thread;
	bool err_started;
	uint32_t err_stop;
	pthread_t hup_thread;     /* watches the socket for the device's hang-up */
	bool hup_started;
	int hup_stop_fd;          /* eventfd: detaching stops the watcher */
	uint32_t lost;            /* atomic: the device process is gone */
	char names[HSAQM_SIM_MAX_DEVICES][32][SIM_PROFILE_NAME];
};

static struct sim_shared *shared_new(void)
{
	struct sim_shared *sh = calloc(1, sizeof(*sh));

	if (!sh)
		return NULL;
	sh->page_fd = -1;
	sh->listen_fd = -1;
	sh->stop_fd[0] = sh->stop_fd[1] = -1;
	sh->fd = -1;
	sh->hup_stop_fd = -1;
	pthread_mutex_init(&sh->lock, NULL);
	pthread_mutex_init(&sh->rpc_lock, NULL);
	pthread_mutex_init(&sh->qlock, NULL);
	sim_list_init(&sh->queues);
	return sh;
}

static void shared_free(struct sim_shared *sh)
{
	if (!sh)
		return;
	if (sh->page)
		munmap(sh->page, PAGE_BYTES);
	if (sh->page_fd >= 0)
		close(sh->page_fd);
	if (sh->stop_fd[0] >= 0)
		close(sh->stop_fd[0]);
	if (sh->stop_fd[1] >= 0)
		close(sh->stop_fd[1]);
	if (sh->listen_fd >= 0)
		close(sh->listen_fd);
	if (sh->fd >= 0)
		close(sh->fd);
	if (sh->hup_stop_fd >= 0)
		close(sh->hup_stop_fd);
	pthread_mutex_destroy(&sh->lock);
	pthread_mutex_destroy(&sh->rpc_lock);
	pthread_mutex_destroy(&sh->qlock);
	free(sh);
}

/* Map @fd (@size bytes) at exactly @addr. Returns 0 or -EADDRINUSE / -errno. */
static int map_exact(int fd, size_t size, uintptr_t addr, void **out)
{
	void *p = mmap((void *)addr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE,
		       fd, 0);

	if (p == MAP_FAILED)
		return errno == EEXIST ? -EADDRINUSE : -errno;
	/* A kernel before 4.17 takes the flag as a hint. */
	if ((uintptr_t)p != addr) {
		munmap(p, size);
		return -EADDRINUSE;
	}
	*out = p;
	return 0;
}

/* ------------------------------------------------------------------------------------
 * Messages. SOCK_SEQPACKET keeps message boundaries; a short or long message is a
 * protocol error.
 */
static ssize_t msg_recv(int fd, struct sim_msg *m, int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fds) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		for (int i = 0; i < nfds; i++)
			fds[i] = -1;
	}
	do {
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (fds) {
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			int got = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			int tmp[8];

			if (got > 8)
				got = 8;
			memcpy(tmp, CMSG_DATA(c), (size_t)got * sizeof(int));
			for (int i = 0; i < got; i++) {
				if (i < nfds)
					fds[i] = tmp[i];
				else
					close(tmp[i]);
			}
		}
	}
	return n;
}

static int msg_send(int fd, const struct sim_msg *m, const int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { (void *)m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (nfds) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	do {
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(*m) ? 0 : -EIO;
}

/* ------------------------------------------------------------------------------------
 * Device role.
 */
struct sim_arena_hdr *sim_shared_hdr_of(const struct hsaqm_sim *sim, const void *p)
{
	if (sim_arena_contains(&sim->arena, p, 1))
		return sim->arena.hdr;
	const struct sim_shared *sh = sim->shared;
	if (!sh)
		return NULL;
	uintptr_t a = (uintptr_t)p;
	for (unsigned int i = 0; i < SIM_SHARED_MAX_CLIENTS; i++) {
		/* Acquire: pairs with the release that published the mapping. */
		uintptr_t b = hsaqm_load_acquire(&((struct sim_shared *)sh)->mem[i].base);

		if (b && a >= b && a - b < sh->mem[i].size)
			return (struct sim_arena_hdr *)b;
	}
	return NULL;
}

unsigned int sim_shared_client_count(struct hsaqm_sim *sim)
{
	unsigned int n = 0;

	if (!sim || !sim->shared || sim->role != SIM_ROLE_DEVICE)
		return 0;
	pthread_mutex_lock(&sim->shared->lock);
	/* Acquire: pairs with conn_main's release of finished (its cleanup is done). */
	for (unsigned int i = 0; i < SIM_SHARED_MAX_CLIENTS; i++)
		n += sim->shared->conns[i] && !hsaqm_load_acquire(&sim->shared->conns[i]->finished);
	pthread_mutex_unlock(&sim->shared->lock);
	return n;
}

/* Engine thread of the device: a client's queue failed. Memory only: the client reacts. */
static void conn_queue_error(void *ctx, struct sim_hwq *q, int hsa_status)
{
	struct sim_conn *c = ctx;
	int32_t zero = 0;

	/* acq_rel CAS from 0: the first error stays; the client reads it after the bump below. */
	hsaqm_cas(&q->shm->error_status, &zero, (int32_t)hsa_status);
	/* acq_rel: the status before the bump the client's error thread waits for. */
	hsaqm_fetch_add(&c->arena.hdr->client_err_seq, 1u);
	sim_futex_wake(&c->arena.hdr->client_err_seq, INT_MAX);
}

static struct sim_hwq *conn_q(struct sim_conn *c, uint64_t handle)
{
	if (!handle || handle > c->nqs)
		return NULL;
	return c->qs[handle - 1];
}

/* The table changes under the server's lock (sim_shared_queue_count reads it); its own
 * connection thread, the only writer, reads it without. */
static int conn_q_add(struct sim_conn *c, struct sim_hwq *q, uint32_t kfd_qid1, uint64_t *handle)
{
	struct sim_shared *sh = c->sim->shared;
	int err = 0;

	pthread_mutex_lock(&sh->lock);
	for (uint32_t i = 0; i < c->nqs; i++) {
		if (!c->qs[i]) {
			c->qs[i] = q;
			c->qkfd[i] = kfd_qid1;
			*handle = i + 1;
			goto out;
		}
	}
	if (c->nqs == c->capqs) {
		uint32_t cap = c->capqs ? c->capqs * 2 : 16;
		struct sim_hwq **n = realloc(c->qs, cap * sizeof(*n));

		if (!n) {
			err = -ENOMEM;
			goto out;
		}
		c->qs = n;
		uint32_t *k = realloc(c->qkfd, cap * sizeof(*k));
		if (!k) {
			err = -ENOMEM;
			goto out;
		}
		c->qkfd = k;
		c->capqs = cap;
	}
	c->qkfd[c->nqs] = kfd_qid1;
	c->qs[c->nqs++] = q;
	*handle = c->nqs;
out:
	pthread_mutex_unlock(&sh->lock);
	return err;
}

/*
 * Take the queue out of the table before destroying it, so that a listing (op_procs, under
 * the lock) never reads a freed queue; put it back with conn_q_put() if the destroy fails.
 */
static struct sim_hwq *conn_q_take(struct sim_conn *c, uint64_t handle, uint32_t *kfd_qid1)
{
	struct sim_hwq *q;

	pthread_mutex_lock(&c->sim->shared->lock);
	q = conn_q(c, handle);
	if (q) {
		*kfd_qid1 = c->qkfd[handle - 1];
		c->qs[handle - 1] = NULL;
	}
	pthread_mutex_unlock(&c->sim->shared->lock);
	return q;
}

static void conn_q_put(struct sim_conn *c, uint64_t handle, struct sim_hwq *q, uint32_t kfd_qid1)
{
	pthread_mutex_lock(&c->sim->shared->lock);
	c->qs[handle - 1] = q;
	c->qkfd[handle - 1] = kfd_qid1;
	pthread_mutex_unlock(&c->sim->shared->lock);
}

unsigned int sim_shared_queue_count(struct hsaqm_sim *sim)
{
	unsigned int n = 0;

	if (!sim || !sim->shared || sim->role != SIM_ROLE_DEVICE)
		return 0;
	pthread_mutex_lock(&sim->shared->lock);
	for (unsigned int i = 0; i < SIM_SHARED_MAX_CLIENTS; i++) {
		struct sim_conn *c = sim->shared->conns[i];

		for (uint32_t j = 0; c && j < c->nqs; j++)
			n += c->qs[j] != NULL;
	}
	pthread_mutex_unlock(&sim->shared->lock);
	return n;
}

/* Make the client's arena at a free slot of the region, here, and publish it to the engine. */
static int conn_arena(struct sim_conn *c)
{
	struct sim_shared *sh = c->sim->shared;
	int err = -ENOSPC;

	pthread_mutex_lock(&sh->lock);
	for (unsigned int i = 0; i < sh->nslots; i++) {
		/* Acquire: pairs with conn_cleanup's release of 0 (the slot's arena is gone). */
		if (hsaqm_load_acquire(&sh->mem[i].base))
			continue;
		uintptr_t addr = (uintptr_t)(SIM_SHARED_CLIENT_BASE + i * sh->arena_stride);

		err = sim_arena_init_at(&c->arena, sh->arena_size, (void *)addr);
		if (err == -EADDRINUSE)
			continue; /* something of ours is there: the next slot */
		if (err)
			break;
		c->slot = (int)i;
		sh->mem[i].size = c->arena.size;
		/* Release: the mapping and its header before anyone finds it. */
		hsaqm_store_release(&sh->mem[i].base, addr);
		break;
	}
	pthread_mutex_unlock(&sh->lock);
	return err;
}

static void conn_cleanup(struct sim_conn *c)
{
	struct sim_shared *sh = c->sim->shared;
	unsigned int n = 0;

	/*
	 * Process exit, as the KFD does it: every queue goes. Destroying a suspended queue ends
	 * its suspension too (the core allows it; a client can only suspend its own queues).
	 */
	for (uint32_t i = 0; i < c->nqs; i++) {
		uint32_t kfd_qid1;
		struct sim_hwq *q = conn_q_take(c, i + 1, &kfd_qid1);

		if (!q)
			continue;
		int err = sim_hwq_destroy(q);

		if (err)
			hsaqm_log_err("client %d: destroying a queue: %s", (int)c->pid,
				      strerror(-err));
		n++;
	}
	if (n)
		hsaqm_log_info("client %d left with %u queues: destroyed", (int)c->pid, n);
	pthread_mutex_lock(&sh->lock);
	free(c->qs);
	free(c->qkfd);
	c->qs = NULL;
	c->qkfd = NULL;
	c->kfd_pasid = 0; /* its KFD process ends with it */
	c->nqs = c->capqs = 0;
	pthread_mutex_unlock(&sh->lock);
	if (c->slot >= 0) {
		pthread_mutex_lock(&sh->lock);
		/* Release: no queue of the client is left, nothing of the engine points into it. */
		hsaqm_store_release(&sh->mem[c->slot].base, (uintptr_t)0);
		pthread_mutex_unlock(&sh->lock);
		c->slot = -1;
	}
	sim_arena_fini(&c->arena);
}

static int op_profile(struct sim_conn *c, struct sim_msg *m)
{
	struct hsaqm_sim *sim = c->sim;
	uint32_t d = m->u.profile.dev;

	if (d >= sim->ndev)
		return -EINVAL;
	m->u.profile.prof = sim->dev[d]->prof;
	memset(m->u.profile.names, 0, sizeof(m->u.profile.names));
	for (unsigned int i = 0; i < m->u.profile.prof.nconsts && i < 32; i++) {
		const char *n = m->u.profile.prof.consts[i].name;

		snprintf(m->u.profile.names[i], SIM_PROFILE_NAME, "%s", n ? n : "");
		m->u.profile.prof.consts[i].name = NULL; /* a pointer of this process */
	}
	return 0;
}

static int op_create(struct sim_conn *c, struct sim_msg *m)
{
	struct sim_hwq_shm *shm = (struct sim_hwq_shm *)(uintptr_t)m->u.create.shm;
	struct sim_hwq *q;
	uint64_t handle;

	if ((m->u.create.shm & 63) || !sim_arena_contains(&c->arena, shm, sizeof(*shm)))
		return -EINVAL;
	struct sim_hwq_desc d = {
		.dev = m->u.create.dev,
		.ring_base = (void *)(uintptr_t)m->u.create.ring,
		.ring_size_bytes = m->u.create.ring_size,
		.write_ptr = (uint64_t *)(uintptr_t)m->u.create.wptr,
		.read_ptr = (uint64_t *)(uintptr_t)m->u.create.rptr,
		.priority = m->u.create.priority,
		.active = m->u.create.active != 0,
		.pasid = m->u.create.pasid,
		.error_fn = conn_queue_error,
		.error_ctx = c,
	};
	int err = sim_hwq_create_in(c->sim, &c->arena, shm, &d, &q);
	if (err)
		return err;
	err = conn_q_add(c, q, m->u.create.kfd_qid1, &handle);
	if (err) {
		sim_hwq_destroy(q);
		return err;
	}
	m->u.create.handle = handle;
	m->u.create.queue_index = q->queue_index;
	return 0;
}

static int op_queues(struct sim_conn *c, struct sim_msg *m, bool suspend)
{
	uint32_t n = m->u.qs.n;

	if (!n || n > SIM_MSG_MAX_Q)
		return -EINVAL;
	struct sim_hwq **qs = calloc(n, sizeof(*qs));
	if (!qs)
		return -ENOMEM;
	int err = 0;
	for (uint32_t i = 0; i < n && !err; i++) {
		qs[i] = conn_q(c, m->u.qs.handles[i]);
		if (!qs[i])
			err = -EINVAL;
	}
	if (!err)
		err = suspend ? sim_hwq_suspend(qs, n, m->u.qs.grace) : sim_hwq_resume(qs, n);
	free(qs);
	return err;
}

/*
 * The client's KFD process opens or ends. The device gives PASIDs so that they are distinct
 * across its clients (the KFD's are distinct across the node's processes).
 */
static int op_kfd_proc(struct sim_conn *c, struct sim_msg *m)
{
	struct sim_shared *sh = c->sim->shared;

	pthread_mutex_lock(&sh->lock);
	if (m->u.kproc.open) {
		if (sh->next_pasid < SIM_PASID_BASE || sh->next_pasid > 0xffff)
			sh->next_pasid = SIM_PASID_BASE; /* the KFD's PASIDs are 16 bits */
		c->kfd_pasid = sh->next_pasid++;
		m->u.kproc.pasid = c->kfd_pasid;
	} else if (c->kfd_pasid == m->u.kproc.pasid) {
		c->kfd_pasid = 0;
	}
	pthread_mutex_unlock(&sh->lock);
	return 0;
}

/* Entry @k of the node-wide list, if it is in the page [start, start + room) asked for. */
static void procs_put(struct sim_msg *m, uint32_t *k, const struct sim_proc_queue *e)
{
	uint32_t i = *k - m->u.procs.start;

	if (*k >= m->u.procs.start && i < SIM_MSG_MAX_PROCS) {
		m->u.procs.e[i] = *e;
		m->u.procs.n = i + 1;
	}
	(*k)++;
}

/*
 * Every client's KFD process (its pid, the PASID given above) and KFD queues, under the lock
 * that guards the queue tables: a queue being destroyed has already left its table.
 */
static int op_procs(struct sim_conn *self, struct sim_msg *m)
{
	struct hsaqm_sim *sim = self->sim;
	struct sim_shared *sh = sim->shared;
	uint32_t k = 0;

	m->u.procs.n = 0;
	pthread_mutex_lock(&sh->lock);
	for (unsigned int i = 0; i < SIM_SHARED_MAX_CLIENTS; i++) {
		struct sim_conn *c = sh->conns[i];

		/* Acquire: pairs with conn_main's release; a finished client is not listed. */
		if (!c || hsaqm_load_acquire(&c->finished) || !c->kfd_pasid)
			continue;
		struct sim_proc_queue e = { .pid = (uint32_t)c->pid, .pasid = c->kfd_pasid,
					    .queue_id = SIM_PROC_NO_QUEUE };

		procs_put(m, &k, &e);
		for (uint32_t j = 0; j < c->nqs; j++) {
			struct sim_hwq_info info;

			if (!c->qs[j] || !c->qkfd[j] || sim_hwq_get_info(c->qs[j], &info))
				continue;
			e.queue_id = c->qkfd[j] - 1;
			e.gpu_id = sim_kfd_gpu_id(sim, info.dev);
			e.type = 0; /* KFD_QUEUE_TYPE_COMPUTE: KFD faces make AQL queues only */
			e.size = info.ring_size_bytes;
			procs_put(m, &k, &e);
		}
	}
	pthread_mutex_unlock(&sh->lock);
	m->u.procs.total = k;
	return 0;
}

static uint64_t test_delay_suspend_ns;

void sim_shared_test_delay_suspend(uint64_t ns)
{
	test_delay_suspend_ns = ns;
}

static int conn_op(struct sim_conn *c, struct sim_msg *m)
{
	struct sim_hwq *q;
	int err;

	switch (m->op) {
	case SIM_OP_PROFILE:
		return op_profile(c, m);
	case SIM_OP_CREATE:
		return op_create(c, m);
	case SIM_OP_DESTROY: {
		uint32_t kfd_qid1 = 0;

		q = conn_q_take(c, m->u.handle, &kfd_qid1);
		if (!q)
			return -EINVAL;
		err = sim_hwq_destroy(q);
		if (err)
			conn_q_put(c, m->u.handle, q, kfd_qid1);
		return err;
	}
	case SIM_OP_UPDATE:
		q = conn_q(c, m->u.update.handle);
		if (!q)
			return -EINVAL;
		return sim_hwq_update(q, (void *)(uintptr_t)m->u.update.ring, m->u.update.ring_size,
				      m->u.update.priority, m->u.update.active != 0);
	case SIM_OP_CU_MASK:
		q = conn_q(c, m->u.mask.handle);
		if (!q || m->u.mask.nbits > 32 * SIM_MSG_MAX_MASK)
			return -EINVAL;
		return sim_hwq_set_cu_mask(q, m->u.mask.mask, m->u.mask.nbits);
	case SIM_OP_SUSPEND:
		if (test_delay_suspend_ns) {
			struct timespec ts = { (time_t)(test_delay_suspend_ns / 1000000000ull),
					       (long)(test_delay_suspend_ns % 1000000000ull) };

			nanosleep(&ts, NULL);
		}
		return op_queues(c, m, true);
	case SIM_OP_RESUME:
		return op_queues(c, m, false);
	case SIM_OP_KFD_PROC:
		return op_kfd_proc(c, m);
	case SIM_OP_PROCS:
		return op_procs(c, m);
	default:
		return -EOPNOTSUPP;
	}
}

static void *conn_main(void *arg)
{
	struct sim_conn *c = arg;
	struct hsaqm_sim *sim = c->sim;
	struct sim_shared *sh = sim->shared;
	struct sim_msg *m = calloc(1, sizeof(*m));
	ssize_t n;

	if (!m)
		goto out;
	n = msg_recv(c->fd, m, NULL, 0);
	if (n < 24 || m->magic != SIM_MSG_MAGIC || m->op != SIM_OP_HELLO)
		goto out;
	c->pid = m->u.hello.pid;
	if (m->u.hello.version != SIM_SHARED_PROTO_VERSION || n != (ssize_t)sizeof(*m)) {
		hsaqm_log_err("client %d speaks protocol %u, this device %u: refused", (int)c->pid,
			      m->u.hello.version, SIM_SHARED_PROTO_VERSION);
		memset(m, 0, sizeof(*m));
		m->magic = SIM_MSG_MAGIC;
		m->op = SIM_OP_HELLO;
		m->result = -EPROTO;
		m->u.welcome.version = SIM_SHARED_PROTO_VERSION;
		msg_send(c->fd, m, NULL, 0);
		goto out;
	}
	int err = conn_arena(c);
	memset(m, 0, sizeof(*m));
	m->magic = SIM_MSG_MAGIC;
	m->op = SIM_OP_HELLO;
	m->result = err;
	m->u.welcome.version = SIM_SHARED_PROTO_VERSION;
	if (err) {
		hsaqm_log_err("client %d: no arena for it: %s", (int)c->pid, strerror(-err));
		msg_send(c->fd, m, NULL, 0);
		goto out;
	}
	m->u.welcome.ndev = sim->ndev;
	m->u.welcome.page_addr = (uint64_t)(uintptr_t)sh->page;
	m->u.welcome.page_size = PAGE_BYTES;
	m->u.welcome.arena_addr = (uint64_t)(uintptr_t)c->arena.base;
	m->u.welcome.arena_size = c->arena.size;
	m->u.welcome.start_mono = sim->start_mono;
	m->u.welcome.scale = sim->scale;
	m->u.welcome.kfd_minor_version = sim->cfg.kfd_minor_version;
	m->u.welcome.sched_policy = sim->cfg.sched_policy;
	m->u.welcome.cwsr_disable = sim->cfg.cwsr_disable;
	m->u.welcome.seed = sim->cfg.seed;
	/* Only the number matters (distinct per client): nothing else rides on it. */
	m->u.welcome.client_id = hsaqm_fetch_add(&sh->next_client_id, 1u);
	int fds[2] = { sh->page_fd, c->arena.fd };
	if (msg_send(c->fd, m, fds, 2))
		goto out;
	hsaqm_log_info("client %d attached (arena at %p)", (int)c->pid, c->arena.base);

	for (;;) {
		n = msg_recv(c->fd, m, NULL, 0);
		if (n <= 0)
			break; /* the client closed, exited or died */
		if (n != (ssize_t)sizeof(*m) || m->magic != SIM_MSG_MAGIC) {
			hsaqm_log_err("client %d: malformed message (%zd bytes): disconnected",
				      (int)c->pid, n);
			break;
		}
		sim_device_request_stamp(m->at);
		m->result = conn_op(c, m);
		uint64_t done = sim_device_request_done_at();
		m->at = done && sim->cfg.call_return_ns ? done + sim->cfg.call_return_ns : 0;
		sim_device_request_stamp(0);
		if (msg_send(c->fd, m, NULL, 0))
			break;
	}
out:
	conn_cleanup(c);
	free(m);
	/* Release: everything above before the accept loop joins and frees us. */
	hsaqm_store_release(&c->finished, 1u);
	return NULL;
}

/* Join and free the connections whose thread ended (@all: every one, shutting down). */
static void reap(struct sim_shared *sh, bool all)
{
	for (unsigned int i = 0; i < SIM_SHARED_MAX_CLIENTS; i++) {
		pthread_mutex_lock(&sh->lock);
		struct sim_conn *c = sh->conns[i];
		/* Acquire: pairs with conn_main's release: its thread is done with @c. */
		bool go = c && (all || hsaqm_load_acquire(&c->finished));
		if (go)
			sh->conns[i] = NULL;
		pthread_mutex_unlock(&sh->lock);
		if (!go)
			continue;
		if (all)
			shutdown(c->fd, SHUT_RDWR); /* its recv returns 0: the thread cleans up */
		pthread_join(c->thread, NULL);
		close(c->fd);
		free(c);
	}
}

static void accept_one(struct hsaqm_sim *sim)
{
	struct sim_shared *sh = sim->shared;
	int fd = accept4(sh->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	struct sim_conn *c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return;
	}
	c->sim = sim;
	c->fd = fd;
	c->slot = -1;
	c->arena.fd = -1;
	pthread_mutex_lock(&sh->lock);
	int idx = -1;
	for (unsigned int i = 0; i < SIM_SHARED_MAX_CLIENTS; i++) {
		if (!sh->conns[i]) {
			idx = (int)i;
			break;
		}
	}
	if (idx >= 0 && pthread_create(&c->thread, NULL, conn_main, c) == 0)
		sh->conns[idx] = c;
	else
		idx = -1;
	pthread_mutex_unlock(&sh->lock);
	if (idx < 0) {
		hsaqm_log_err("no room for another client (%d at most)", SIM_SHARED_MAX_CLIENTS);
		close(fd);
		free(c);
	}
}

/*
 * Bind @path; a socket file nobody listens on (a device that died) is replaced, by lib's one
 * rule (hsaqm-common/sockfile.h): a live device's socket and a file that is not a socket never
 * are. Return: 0; -EEXIST (not a socket); -EADDRINUSE (a live device); another -errno.
 */
static int bind_path(int fd, const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int err;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
		return 0;
	if (errno != EADDRINUSE)
		return -errno;
	err = hsaqm_sockfile_clear(path, SOCK_SEQPACKET, NULL);
	if (err == -EEXIST)
		hsaqm_log_err("%s exists and is not a socket: refusing to replace it", path);
	if (err)
		return err;
	return bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 ? 0 : -errno;
}

/* The device page, mapped at the first free GiB of the region. */
static int page_create(struct sim_shared *sh)
{
	int fd = memfd_create("hsaqm-sim-device", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	int err = -EADDRINUSE;
	void *p = NULL;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, PAGE_BYTES) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	/* Every client holds the fd: none may shrink it under the engines (they would fault). */
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	for (uint64_t a = SIM_SHARED_REGION_BASE; a < SIM_SHARED_CLIENT_BASE; a += GIB) {
		err = map_exact(fd, PAGE_BYTES, (uintptr_t)a, &p);
		if (err != -EADDRINUSE)
			break;
	}
	if (err) {
		close(fd);
		return err;
	}
	sh->page_fd = fd;
	sh->page = p;
	return 0;
}

int hsaqm_sim_listen(struct hsaqm_sim *sim, const char *path)
{
	if (!sim || !path || !*path || sim->mode != HSAQM_SIM_TIME_REAL)
		return -EINVAL;
	if (sim->role != SIM_ROLE_LOCAL || sim->shared)
		return -EBUSY;
	if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -ENAMETOOLONG;
	struct sim_shared *sh = shared_new();
	if (!sh)
		return -ENOMEM;
	int err = page_create(sh);
	if (err)
		goto fail;
	sh->arena_size = sim->arena.size;
	sh->arena_stride = (sim->arena.size + GIB - 1) / GIB * GIB;
	sh->nslots = (unsigned int)((SIM_SHARED_REGION_END - SIM_SHARED_CLIENT_BASE) /
				    sh->arena_stride);
	if (sh->nslots > SIM_SHARED_MAX_CLIENTS)
		sh->nslots = SIM_SHARED_MAX_CLIENTS;
	if (!sh->nslots) {
		err = -ENOMEM;
		goto fail;
	}
	sh->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sh->listen_fd < 0 || pipe2(sh->stop_fd, O_CLOEXEC | O_NONBLOCK) < 0) {
		err = -errno;
		goto fail;
	}
	err = bind_path(sh->listen_fd, path);
	if (err)
		goto fail;
	if (listen(sh->listen_fd, 16) < 0) {
		err = -errno;
		unlink(path);
		goto fail;
	}
	snprintf(sh->path, sizeof(sh->path), "%s", path);

	/* The page: the clock every client computes model time from, the engines' wake words. */
	struct sim_shared_page *pg = sh->page;
	pg->start_mono = sim->start_mono;
	pg->version = SIM_SHARED_PROTO_VERSION;
	/*
	 * Each engine moves to the page's wake words (stopped meanwhile: it reads them in its
	 * loop). Both flags set, so the restarted engine looks at everything once.
	 */
	for (unsigned int d = 0; d < sim->ndev; d++) {
		struct sim_device *dev = sim->dev[d];

		sim_device_stop(dev);
		pg->dev[d].stim_time = 0;
		pg->dev[d].kicks = 1;
		pg->dev[d].sig_dirty = 1;
		/* Release: the page's wake words above before the engine, started below, reads
		 * its stop flag (and then the words) in its loop. */
		hsaqm_store_release(&dev->stop, 0u);
		dev->wake = &pg->dev[d];
	}
	/* Release: a client that sees the magic sees the page filled in. */
	hsaqm_store_release(&pg->magic, SIM_PAGE_MAGIC);
	sim->shared = sh;
	sim->role = SIM_ROLE_DEVICE;
	for (unsigned int d = 0; d < sim->ndev; d++) {
		err = sim_device_start(sim->dev[d]);
		if (err) {
			hsaqm_log_err("device %u: engine thread: %s", d, strerror(-err));
			return err; /* the model is unusable; hsaqm_sim_destroy() cleans up */
		}
	}
	return 0;

fail:
	shared_free(sh);
	return err;
}

static struct hsaqm_sim *volatile g_serve_sim;

static void serve_on_sigterm(int sig)
{
	(void)sig;
	hsaqm_sim_serve_stop(g_serve_sim);
}

int hsaqm_sim_serve(struct hsaqm_sim *sim, const char *path)
{
	if (!sim)
		return -EINVAL;
	struct sim_shared *sh = sim->shared;
	if (!sh || sim->role != SIM_ROLE_DEVICE) {
		int err = hsaqm_sim_listen(sim, path);

		if (err)
			return err;
		sh = sim->shared;
	} else if (path && strcmp(path, sh->path)) {
		return -EBUSY;
	}
	if (sh->serving || sh->listen_fd < 0)
		return -EBUSY;
	sh->serving = true;

	/* SIGTERM stops the device cleanly, unless the program handles it itself. */
	struct sigaction old, sa = { .sa_handler = serve_on_sigterm };
	bool own_sigterm = false;
	sigemptyset(&sa.sa_mask);
	if (!g_serve_sim && sigaction(SIGTERM, NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
		g_serve_sim = sim;
		own_sigterm = sigaction(SIGTERM, &sa, NULL) == 0;
		if (!own_sigterm)
			g_serve_sim = NULL;
	}

	/* Acquire: pairs with hsaqm_sim_serve_stop()'s release (from a signal handler too). */
	while (!hsaqm_load_acquire(&sh->stop_requested)) {
		struct pollfd pf[2] = { { sh->listen_fd, POLLIN, 0 },
					{ sh->stop_fd[0], POLLIN, 0 } };
		int r = poll(pf, 2, 200);

		if (r > 0 && (pf[1].revents & POLLIN))
			break;
		if (r > 0 && (pf[0].revents & POLLIN))
			accept_one(sim);
		reap(sh, false);
	}

	close(sh->listen_fd);
	sh->listen_fd = -1;
	unlink(sh->path);
	reap(sh, true);
	if (own_sigterm) {
		sigaction(SIGTERM, &old, NULL);
		g_serve_sim = NULL;
	}
	sh->serving = false;
	return 0;
}

void hsaqm_sim_serve_stop(struct hsaqm_sim *sim)
{
	/* Async-signal-safe: an atomic store and a write(2). */
	if (!sim)
		return;
	struct sim_shared *sh = HSAQM_READ_ONCE(sim->shared);
	if (!sh || sim->role != SIM_ROLE_DEVICE)
		return;
	/* Release: pairs with the accept loop's acquire; the pipe write below wakes it. */
	hsaqm_store_release(&sh->stop_requested, 1u);
	if (sh->stop_fd[1] >= 0) {
		char b = 1;
		ssize_t r = write(sh->stop_fd[1], &b, 1);

		(void)r; /* a full pipe already says "stop" */
	}
}

/* ------------------------------------------------------------------------------------
 * Client role.
 */
static _Thread_local uint64_t tl_call_at;

void sim_shared_call_stamp(const struct hsaqm_sim *sim, bool begin)
{
	tl_call_at = begin && sim && sim->shared ? sim_clock_now(sim) : 0;
}

void sim_shared_call_restamp(const struct hsaqm_sim *sim)
{
	if (tl_call_at)
		tl_call_at = sim_clock_now(sim);
}

/*
 * A reply that names a return time (the device's call_return_ns): wait for it, sleeping to
 * shortly before and spinning the rest, as the host's timers are tens of microseconds late.
 * A reply that came after it is counted: that call's length carries the host's lateness.
 */
#define RETURN_SPIN_NS 200000ull

static void return_at(struct hsaqm_sim *sim, uint64_t model_ns)
{
	uint64_t target = sim_clock_to_mono(sim, model_ns), now = sim_mono_ns();

	if (now > target) {
		hsaqm_fetch_add(&sim->shared->late_returns, 1ull);
		static int once;

		hsaqm_log_notice(&once, "a control call's reply came %llu us after its return time "
				 "(hsaqm-simd --call-return-us): its length holds the host's lateness",
				 (unsigned long long)((now - target) / 1000));
		return;
	}
	if (target - now > RETURN_SPIN_NS) {
		uint64_t wake = target - RETURN_SPIN_NS;
		struct timespec ts = { (time_t)(wake / 1000000000ull), (long)(wake % 1000000000ull) };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	while (sim_mono_ns() < target)
		;
}

uint64_t sim_shared_late_returns(const struct hsaqm_sim *sim)
{
	/* Acquire: a plain counter read. */
	return sim && sim->shared ? hsaqm_load_acquire(&sim->shared->late_returns) : 0;
}

static int rpc(struct hsaqm_sim *sim, struct sim_msg *m)
{
	struct sim_shared *sh = sim->shared;
	int err;

	m->magic = SIM_MSG_MAGIC;
	/* Acquire: pairs with the watcher's release; a device gone answers nothing more. */
	if (hsaqm_load_acquire(&sh->lost))
		return -ECONNRESET;
	/*
	 * Stamped with the KFD ioctl's time when one makes the call (sim_shared_call_stamp()),
	 * else now, and before the socket is ours: a call waiting for another thread's is made
	 * when its caller made it (the lock is the emulation's, not the KFD's).
	 */
	m->at = tl_call_at ? tl_call_at : sim_clock_now(sim);
	/* One call at a time on the socket: replies come back in order. */
	pthread_mutex_lock(&sh->rpc_lock);
	err = msg_send(sh->fd, m, NULL, 0);
	if (!err) {
		ssize_t n = msg_recv(sh->fd, m, NULL, 0);

		if (n == 0)
			err = -ECONNRESET;
		else if (n < 0)
			err = (int)n;
		else if (n != (ssize_t)sizeof(*m) || m->magic != SIM_MSG_MAGIC)
			err = -EPROTO;
	}
	pthread_mutex_unlock(&sh->rpc_lock);
	/* After the socket is free again: another thread's call does not wait for this one's. */
	if (!err && m->at)
		return_at(sim, m->at);
	if (err == -EPIPE || err == -ECONNRESET)
		hsaqm_log_err("the device process is gone");
	return err ? err : m->result;
}

static bool mem_ok(struct hsaqm_sim *sim, const void *p, size_t len, size_t align)
{
	return p && !((uintptr_t)p & (align - 1)) && sim_mem_contains(sim, p, len);
}

int sim_client_hwq_create(struct hsaqm_sim *sim, const struct sim_hwq_desc *d, struct sim_hwq **out)
{
	struct sim_shared *sh = sim->shared;

	if (!d || !out || d->dev >= sim->ndev || d->priority > 15 ||
	    !mem_ok(sim, d->ring_base, d->ring_size_bytes, 64) || d->ring_size_bytes < 64 ||
	    (d->ring_size_bytes & (d->ring_size_bytes - 1)) || !mem_ok(sim, d->write_ptr, 8, 8) ||
	    !mem_ok(sim, d->read_ptr, 8, 8))
		return -EINVAL;
	if (sim_in_engine())
		return -EDEADLK;
	struct sim_msg *m = calloc(1, sizeof(*m));
	struct sim_hwq *q = calloc(1, sizeof(*q));
	struct sim_hwq_shm *shm = sim_mem_alloc(sim, sizeof(*shm), 64);
	int err = -ENOMEM;
	if (!m || !q || !shm)
		goto fail;
	q->dev = sim->dev[d->dev];
	q->arena = &sim->arena;
	q->shm = shm;
	q->pub = &shm->pub;
	q->pasid = d->pasid;
	q->error_fn = d->error_fn;
	q->error_ctx = d->error_ctx;
	q->write_ptr = d->write_ptr;
	q->read_ptr = d->read_ptr;
	q->slot = -1;
	sim_list_init(&q->link);
	sim_list_init(&q->running);
	sim_list_init(&q->saved);
	sim_list_init(&q->restore);
	pthread_mutex_init(&q->db_lock, NULL);
	/* The doorbell's overrun check may run before the device wrote pub. */
	shm->pub.ring_slots = d->ring_size_bytes / HSAQM_AQL_PACKET_SIZE;

	m->op = SIM_OP_CREATE;
	m->u.create.dev = d->dev;
	m->u.create.ring = (uint64_t)(uintptr_t)d->ring_base;
	m->u.create.ring_size = d->ring_size_bytes;
	m->u.create.wptr = (uint64_t)(uintptr_t)d->write_ptr;
	m->u.create.rptr = (uint64_t)(uintptr_t)d->read_ptr;
	m->u.create.priority = d->priority;
	m->u.create.active = d->active;
	m->u.create.pasid = d->pasid;
	m->u.create.kfd_qid1 = d->kfd_queue ? d->kfd_queue_id + 1 : 0;
	m->u.create.shm = (uint64_t)(uintptr_t)shm;
	err = rpc(sim, m);
	if (err)
		goto fail;
	q->remote = m->u.create.handle;
	q->queue_index = m->u.create.queue_index;
	pthread_mutex_lock(&sh->qlock);
	sim_list_add_tail(&sh->queues, &q->link);
	pthread_mutex_unlock(&sh->qlock);
	free(m);
	*out = q;
	return 0;

fail:
	free(m);
	sim_mem_free(sim, shm);
	if (q) {
		pthread_mutex_destroy(&q->db_lock);
		free(q);
	}
	return err;
}

int sim_client_hwq_destroy(struct sim_hwq *q)
{
	struct hsaqm_sim *sim = q->dev->sim;
	struct sim_shared *sh = sim->shared;

	if (sim_in_engine())
		return -EDEADLK;
	struct sim_msg *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->op = SIM_OP_DESTROY;
	m->u.handle = q->remote;
	int err = rpc(sim, m);
	free(m);
	/* A device that is gone destroyed the queue already (client cleanup). */
	if (err && err != -ECONNRESET && err != -EPIPE)
		return err;
	pthread_mutex_lock(&sh->qlock);
	sim_list_del(&q->link);
	pthread_mutex_unlock(&sh->qlock);
	sim_mem_free(sim, q->shm);
	sim_hwq_free(q);
	return 0;
}

int sim_client_hwq_update(struct sim_hwq *q, void *ring_base, uint32_t ring_size_bytes,
			  uint32_t priority, bool active)
{
	struct hsaqm_sim *sim = q->dev->sim;

	if (ring_base && (!mem_ok(sim, ring_base, ring_size_bytes, 64) || ring_size_bytes < 64 ||
			  (ring_size_bytes & (ring_size_bytes - 1))))
		return -EINVAL;
	if (sim_in_engine())
		return -EDEADLK;
	struct sim_msg *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->op = SIM_OP_UPDATE;
	m->u.update.handle = q->remote;
	m->u.update.ring = (uint64_t)(uintptr_t)ring_base;
	m->u.update.ring_size = ring_size_bytes;
	m->u.update.priority = priority;
	m->u.update.active = active;
	int err = rpc(sim, m);
	free(m);
	return err;
}

int sim_client_hwq_set_cu_mask(struct sim_hwq *q, const uint32_t *mask, uint32_t nbits)
{
	struct hsaqm_sim *sim = q->dev->sim;

	if (sim_in_engine())
		return -EDEADLK;
	struct sim_msg *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	/* Bits past the device's CUs mean nothing: at most what the message holds is sent. */
	uint32_t bits = nbits > 32 * SIM_MSG_MAX_MASK ? 32 * SIM_MSG_MAX_MASK : nbits;
	m->op = SIM_OP_CU_MASK;
	m->u.mask.handle = q->remote;
	m->u.mask.nbits = bits;
	memcpy(m->u.mask.mask, mask, bits / 32 * sizeof(uint32_t));
	int err = rpc(sim, m);
	free(m);
	return err;
}

int sim_client_hwq_suspend_resume(struct sim_hwq *const *qs, uint32_t n, uint32_t grace_units,
				  bool suspend)
{
	struct hsaqm_sim *sim = qs[0]->dev->sim;

	if (n > SIM_MSG_MAX_Q)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (qs[i]->dev->sim != sim)
			return -EINVAL;
	if (sim_in_engine())
		return -EDEADLK;
	struct sim_msg *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->op = suspend ? SIM_OP_SUSPEND : SIM_OP_RESUME;
	m->u.qs.n = n;
	m->u.qs.grace = grace_units;
	for (uint32_t i = 0; i < n; i++)
		m->u.qs.handles[i] = qs[i]->remote;
	int err = rpc(sim, m);
	free(m);
	return err;
}

/* A futex lock in the shared page, taken only by the client's producer threads. */
int sim_shared_kfd_process(struct hsaqm_sim *sim, bool open, uint32_t pasid)
{
	struct sim_msg *m;
	int err;

	if (!sim || sim->role != SIM_ROLE_CLIENT || !sim->shared)
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m)
		return 0;
	m->op = SIM_OP_KFD_PROC;
	m->u.kproc.open = open;
	m->u.kproc.pasid = pasid;
	err = rpc(sim, m);
	pasid = !err && open ? m->u.kproc.pasid : 0;
	free(m);
	if (err)
		hsaqm_log_warn("sim: the device process did not take the KFD process: %s",
			       strerror(-err));
	return (int)pasid;
}

int sim_shared_proc_list(struct hsaqm_sim *sim, struct sim_proc_queue **out, unsigned int *n)
{
	struct sim_proc_queue *v = NULL;
	struct sim_msg *m;
	uint32_t have = 0, total = 1;
	int err = 0;

	if (!sim || sim->role != SIM_ROLE_CLIENT || !sim->shared || !out || !n)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	/* Page by page; a list that changes between pages is cut to what arrived. */
	while (have < total) {
		memset(m, 0, sizeof(*m));
		m->op = SIM_OP_PROCS;
		m->u.procs.start = have;
		err = rpc(sim, m);
		if (err)
			break;
		total = m->u.procs.total;
		if (!m->u.procs.n || m->u.procs.n > SIM_MSG_MAX_PROCS)
			break;
		struct sim_proc_queue *nv = realloc(v, (have + m->u.procs.n) * sizeof(*v));
		if (!nv) {
			err = -ENOMEM;
			break;
		}
		v = nv;
		memcpy(v + have, m->u.procs.e, m->u.procs.n * sizeof(*v));
		have += m->u.procs.n;
	}
	free(m);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*n = have;
	return 0;
}

static void shm_lock(uint32_t *l)
{
	uint32_t c = 0;

	/* acq_rel CAS: the log's previous writes before ours. */
	if (hsaqm_cas(l, &c, 1u))
		return;
	/* acq_rel exchanges, as the CAS above: taking the lock (with waiters marked, 2)
	 * orders the previous holder's log writes, released by shm_unlock(), before ours. */
	if (c != 2)
		c = hsaqm_exchange(l, 2u);
	while (c != 0) {
		sim_futex_wait(l, 2u, UINT64_MAX);
		c = hsaqm_exchange(l, 2u); /* the same exchange, after a wake-up */
	}
}

static void shm_unlock(uint32_t *l)
{
	/* Release (acq_rel exchange): our log writes before the next holder's. */
	if (hsaqm_exchange(l, 0u) == 2u)
		sim_futex_wake(l, 1);
}

void sim_client_hwq_doorbell(struct sim_hwq *q, uint64_t value)
{
	struct sim_device *dev = q->dev;
	struct sim_hwq_shm *m = q->shm;
	/* Acquire: the read index the device published (it only grows: a stale one errs safe). */
	uint64_t rd = hsaqm_load_acquire(q->read_ptr);
	uint32_t slots = HSAQM_READ_ONCE(m->pub.ring_slots);

	/* Release: pairs with the engine's acquire of the flag; it reports the overrun (no
	 * other data rides on it, but the engine may read the ring after it). */
	if (slots && value >= rd && value - rd >= slots)
		hsaqm_store_release(&m->overrun, 1u);

	shm_lock(&m->db_lock);
	/* Read under the lock: the log is in time order, as in-process (sim_hwq_doorbell). */
	uint64_t now = sim_clock_now(dev->sim);
	uint64_t tail = HSAQM_READ_ONCE(m->db_tail);
	uint64_t give_up = 0;
	/*
	 * Full: the engine takes entries as soon as their time has come, so it frees room at
	 * its next look (kicked below by whoever filled it). A device that never looks again
	 * (gone) must not hang us: after 1 s the doorbell is dropped, loudly.
	 */
	/* Acquire: the engine's reads of the slot before its head moved past it. */
	while (tail - hsaqm_load_acquire(&m->db_head) >= SIM_HWQ_SHM_LOG) {
		sim_device_stimulate(dev, now, &dev->wake->kicks);
		if (!give_up)
			give_up = sim_mono_ns() + 1000000000ull;
		/* A device known gone never takes it: no second of waiting. */
		if (sim_mono_ns() > give_up || sim_shared_lost(dev->sim)) {
			shm_unlock(&m->db_lock);
			hsaqm_log_err("queue %u: the device takes no doorbells: one dropped",
				      q->queue_index);
			return;
		}
		sched_yield();
	}
	HSAQM_WRITE_ONCE(m->db[tail % SIM_HWQ_SHM_LOG].value, value);
	HSAQM_WRITE_ONCE(m->db[tail % SIM_HWQ_SHM_LOG].time, now);
	/* Release: the entry before the tail that publishes it (the engine reads tail, acquire). */
	hsaqm_store_release(&m->db_tail, tail + 1);
	shm_unlock(&m->db_lock);
	/* Release: the log before the kick (S1 of "Requests and wake-ups"). */
	hsaqm_store_release(&m->kick, 1u);
	sim_device_stimulate(dev, now, &dev->wake->kicks);
}

/* The client's "interrupt" thread: a queue failed in the device; call its error callback. */
static void *client_err_main(void *arg)
{
	struct hsaqm_sim *sim = arg;
	struct sim_shared *sh = sim->shared;
	struct sim_arena_hdr *h = sim->arena.hdr;

	/* A callback context, as the engine thread is in-process: control calls return -EDEADLK. */
	sim_engine_enter();
	for (;;) {
		/* Acquire: pairs with the device's bump; the statuses stored before it are seen. */
		uint32_t seen = hsaqm_load_acquire(&h->client_err_seq);

		/* Acquire: pairs with sim_shared_detach()'s release before its bump. */
		if (hsaqm_load_acquire(&sh->err_stop))
			break;
		/* Under qlock: a queue is not destroyed (and freed) while its callback runs. */
		pthread_mutex_lock(&sh->qlock);
		for (struct sim_list *l = sh->queues.next; l != &sh->queues; l = l->next) {
			struct sim_hwq *q = sim_container_of(l, struct sim_hwq, link);
			/* Acquire: the status the device stored with its CAS. */
			int32_t st = hsaqm_load_acquire(&q->shm->error_status);

			if (st && !q->err_reported) {
				q->err_reported = true;
				if (q->error_fn)
					q->error_fn(q->error_ctx, q, st);
			}
		}
		pthread_mutex_unlock(&sh->qlock);
		sim_futex_wait(&h->client_err_seq, seen, UINT64_MAX);
	}
	sim_engine_leave();
	return NULL;
}

/* A device as a client sees it: its profile and the wake words; no engine, no queues. */
static int client_stub_device(struct hsaqm_sim *sim, unsigned int d, const struct sim_profile *p)
{
	struct sim_device *dev = calloc(1, sizeof(*dev));

	if (!dev)
		return -ENOMEM;
	dev->sim = sim;
	dev->index = d;
	dev->prof = *p;
	dev->wake = &sim->shared->page->dev[d];
	dev->ncu = p->cu_count;
	dev->waves_per_cu = p->simd_per_cu * p->max_waves_per_simd;
	sim_list_init(&dev->queues);
	sim_list_init(&dev->reqs);
	sim_list_init(&dev->reqs_taken);
	pthread_mutex_init(&dev->req_lock, NULL);
	sim_ev_init(&dev->ev_stim, SIM_EV_STIM, NULL);
	sim_ev_init(&dev->ev_quantum, SIM_EV_QUANTUM, dev);
	sim_ev_init(&dev->ev_req, SIM_EV_REQ, dev);
	sim->dev[d] = dev;
	return 0;
}

/* ---- the device's hang-up ------------------------------------------------------------ */

bool sim_shared_lost(const struct hsaqm_sim *sim)
{
	const struct sim_shared *sh = sim ? sim->shared : NULL;

	/* Acquire: pairs with the watcher's release; the queues' failed state is seen after. */
	return sh && sim->role == SIM_ROLE_CLIENT &&
	       hsaqm_load_acquire(&((struct sim_shared *)sh)->lost) != 0;
}

uint64_t sim_shared_wait_until(const struct hsaqm_sim *sim, uint64_t abs_mono_ns)
{
	uint64_t cap;

	if (!sim || sim->role != SIM_ROLE_CLIENT)
		return abs_mono_ns;
	cap = sim_mono_ns() + SIM_LOST_POLL_NS;
	return abs_mono_ns < cap ? abs_mono_ns : cap;
}

/*
 * The device process is gone: fail every queue as the device would have on a fatal error
 * (its status word, then its error callback, once), and wake the waiters of several signals
 * (those of one signal look at sim_shared_lost() within SIM_LOST_POLL_NS).
 */
static void device_lost(struct hsaqm_sim *sim)
{
	struct sim_shared *sh = sim->shared;
	struct sim_arena_hdr *h = sim->arena.hdr;
	unsigned int n = 0;

	/* Release: everything below is seen by whoever sees the flag (rpc, waits). */
	hsaqm_store_release(&sh->lost, 1u);
	/* Under qlock: a queue is not destroyed (and freed) while its callback runs; the error
	 * thread takes the same lock, so each queue's callback runs once (err_reported). */
	pthread_mutex_lock(&sh->qlock);
	for (struct sim_list *l = sh->queues.next; l != &sh->queues; l = l->next) {
		struct sim_hwq *q = sim_container_of(l, struct sim_hwq, link);
		int32_t zero = 0;

		/* acq_rel CAS from 0: an error the device stored before it died stays. */
		hsaqm_cas(&q->shm->error_status, &zero, (int32_t)SIM_STATUS_ERROR_FATAL);
		if (!q->err_reported) {
			q->err_reported = true;
			n++;
			/* As sim_pp_error(): the CP's write (the runtime's inactive signal, which
			 * calls the queue's callback), then the KFD's part. */
			sim_cp_report_error(q, SIM_STATUS_ERROR_FATAL, sim_clock_now(sim));
			if (q->error_fn)
				q->error_fn(q->error_ctx, q, SIM_STATUS_ERROR_FATAL);
		}
	}
	pthread_mutex_unlock(&sh->qlock);
	/* acq_rel: the failed queues before the epoch multi-signal waiters re-read after. */
	hsaqm_fetch_add(&h->epoch, 1u);
	sim_futex_wake(&h->epoch, INT_MAX);
	hsaqm_log_notice(NULL, "the device process is gone: %u queue%s failed with "
			 "HSA_STATUS_ERROR_FATAL, waits return", n, n == 1 ? "" : "s");
}

/* A client's watcher: the socket hangs up when the device process ends, however it ends. */
static void *client_hup_main(void *arg)
{
	struct hsaqm_sim *sim = arg;
	struct sim_shared *sh = sim->shared;

	/* A callback context, as the error thread: control calls from a callback return
	 * -EDEADLK instead of waiting for a device that will not answer. */
	sim_engine_enter();
	for (;;) {
		/* No POLLIN on the socket: replies belong to rpc(); only the hang-up is ours. */
		struct pollfd pf[2] = { { sh->fd, POLLRDHUP, 0 }, { sh->hup_stop_fd, POLLIN, 0 } };
		int r = poll(pf, 2, -1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (pf[1].revents & POLLIN))
			break;
		if (pf[0].revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)) {
			device_lost(sim);
			break;
		}
	}
	sim_engine_leave();
	return NULL;
}

/* ---- attaching to a device process ------------------------------------------------------ */

/*
 * Connect, say hello in protocol @version, and read the welcome into @m with its two fds
 * (the device page, the client's arena) in @fds. Return: 0; -EPROTO (another version, or not
 * a device process), the device's refusal, or a negative errno of the socket.
 */
static int attach_hello(struct sim_shared *sh, const char *path, uint32_t version,
			struct sim_msg *m, int fds[2])
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	ssize_t n;
	int err;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	sh->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sh->fd < 0 || connect(sh->fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		err = -errno;
		hsaqm_log_err("no device process at %s: %s", path, strerror(-err));
		return err;
	}
	m->magic = SIM_MSG_MAGIC;
	m->op = SIM_OP_HELLO;
	m->u.hello.version = version;
	m->u.hello.pid = (int32_t)getpid();
	err = msg_send(sh->fd, m, NULL, 0);
	if (err)
		return err;
	n = msg_recv(sh->fd, m, fds, 2);
	if (n <= 0)
		return n ? (int)n : -ECONNRESET;
	if (n < 24 || m->magic != SIM_MSG_MAGIC || m->op != SIM_OP_HELLO)
		return -EPROTO;
	if (m->result) {
		if (m->result == -EPROTO)
			hsaqm_log_err("device process at %s speaks protocol %u, this client %u", path,
				      m->u.welcome.version, version);
		return m->result;
	}
	if (n != (ssize_t)sizeof(*m) || fds[0] < 0 || fds[1] < 0 || !m->u.welcome.ndev ||
	    m->u.welcome.ndev > HSAQM_SIM_MAX_DEVICES || m->u.welcome.page_size != PAGE_BYTES)
		return -EPROTO;
	return 0;
}

/* Map the device page at the device's address; it takes @fd on success. */
static int attach_page(struct sim_shared *sh, int fd, uint64_t addr)
{
	void *page;
	int err = map_exact(fd, PAGE_BYTES, (uintptr_t)addr, &page);

	if (err) {
		hsaqm_log_err("cannot map the device page at 0x%llx (%s): this process uses that "
			      "address", (unsigned long long)addr, strerror(-err));
		return err;
	}
	sh->page = page;
	sh->page_fd = fd;
	/* Acquire: pairs with the device's release of the magic. */
	return hsaqm_load_acquire(&sh->page->magic) == SIM_PAGE_MAGIC ? 0 : -EPROTO;
}

/* A client-role model from the welcome: its arena (takes @arena_fd on success), its config. */
static int attach_model(struct sim_shared *sh, const struct sim_msg *m, int arena_fd,
			struct hsaqm_sim **out)
{
	struct hsaqm_sim *sim = calloc(1, sizeof(*sim));
	pthread_mutexattr_t attr;
	int err;

	if (!sim)
		return -ENOMEM;
	sim->arena.fd = -1;
	err = sim_arena_attach(&sim->arena, arena_fd, (size_t)m->u.welcome.arena_size,
			       (void *)(uintptr_t)m->u.welcome.arena_addr);
	if (err) {
		hsaqm_log_err("cannot map model memory at 0x%llx (%s): this process uses that address",
			      (unsigned long long)m->u.welcome.arena_addr, strerror(-err));
		free(sim);
		return err;
	}
	sim->role = SIM_ROLE_CLIENT;
	sim->shared = sh;
	sim->mode = HSAQM_SIM_TIME_REAL;
	sim->scale = m->u.welcome.scale;
	sim->start_mono = sh->page->start_mono;
	sim->cfg.num_devices = m->u.welcome.ndev;
	sim->cfg.time_mode = HSAQM_SIM_TIME_REAL;
	sim->cfg.time_scale = m->u.welcome.scale;
	sim->cfg.kfd_minor_version = m->u.welcome.kfd_minor_version;
	sim->cfg.sched_policy = m->u.welcome.sched_policy;
	sim->cfg.cwsr_disable = m->u.welcome.cwsr_disable;
	sim->cfg.seed = m->u.welcome.seed;
	pthread_mutex_init(&sim->vloop_lock, NULL);
	pthread_mutex_init(&sim->handler_lock, NULL);
	pthread_mutex_init(&sim->handler_run_lock, NULL); /* VIRTUAL only; destroy expects it */
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&sim->face_lock, &attr);
	pthread_mutexattr_destroy(&attr);
	*out = sim;
	return 0;
}

/* Each device's profile, as the device process has it, and a stub device for it. */
static int attach_profiles(struct hsaqm_sim *sim, struct sim_msg *m, unsigned int ndev)
{
	struct sim_shared *sh = sim->shared;

	for (unsigned int d = 0; d < ndev; d++) {
		int err;

		memset(m, 0, sizeof(*m));
		m->op = SIM_OP_PROFILE;
		m->u.profile.dev = d;
		err = rpc(sim, m);
		if (!err)
			err = client_stub_device(sim, d, &m->u.profile.prof);
		if (err)
			return err;
		sim->ndev = d + 1;
		struct sim_profile *p = &sim->dev[d]->prof;
		for (unsigned int i = 0; i < p->nconsts && i < 32; i++) {
			memcpy(sh->names[d][i], m->u.profile.names[i], SIM_PROFILE_NAME);
			sh->names[d][i][SIM_PROFILE_NAME - 1] = '\0';
			p->consts[i].name = sh->names[d][i];
		}
	}
	return 0;
}

/* The client's two threads: queue errors from the device, and the device's hang-up. */
static int attach_threads(struct hsaqm_sim *sim)
{
	struct sim_shared *sh = sim->shared;
	int err;

	sh->hup_stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (sh->hup_stop_fd < 0)
		return -errno;
	err = pthread_create(&sh->err_thread, NULL, client_err_main, sim);
	if (err)
		return -err;
	sh->err_started = true;
	err = pthread_create(&sh->hup_thread, NULL, client_hup_main, sim);
	if (err)
		return -err;
	sh->hup_started = true;
	return 0;
}

int sim_shared_connect_version(const char *path, uint32_t version, struct hsaqm_sim **out)
{
	struct hsaqm_sim *sim = NULL;
	struct sim_msg *m;
	struct sim_shared *sh;
	int fds[2] = { -1, -1 };
	int err;

	if (!path || !*path || !out)
		return -EINVAL;
	if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -ENAMETOOLONG;
	m = calloc(1, sizeof(*m));
	sh = shared_new();
	err = !m || !sh ? -ENOMEM : attach_hello(sh, path, version, m, fds);
	if (!err) {
		err = attach_page(sh, fds[0], m->u.welcome.page_addr);
		if (sh->page_fd == fds[0])
			fds[0] = -1; /* the page owns it */
	}
	if (!err) {
		err = attach_model(sh, m, fds[1], &sim);
		if (!err)
			fds[1] = -1; /* the arena owns it */
	}
	if (err) {
		if (fds[0] >= 0)
			close(fds[0]);
		if (fds[1] >= 0)
			close(fds[1]);
		free(m);
		shared_free(sh);
		return err;
	}
	err = attach_profiles(sim, m, m->u.welcome.ndev);
	if (!err)
		err = attach_threads(sim);
	free(m);
	if (err) {
		hsaqm_sim_destroy(sim); /* closes the socket: the device forgets us */
		return err;
	}
	*out = sim;
	return 0;
}

int hsaqm_sim_connect(const char *path, struct hsaqm_sim **out)
{
	return sim_shared_connect_version(path, SIM_SHARED_PROTO_VERSION, out);
}

int hsaqm_sim_open_env(const struct hsaqm_sim_config *cfg, struct hsaqm_sim **out)
{
	const char *path = getenv("HSAQM_SIM_DEVICE");

	if (!out)
		return -EINVAL;
	if (!path || !*path)
		return hsaqm_sim_create(cfg, out);
	int err = hsaqm_sim_connect(path, out);
	if (err)
		hsaqm_log_notice(NULL, "HSAQM_SIM_DEVICE=%s: cannot attach to a device process "
				 "(%s); start one with: hsaqm-simd --socket %s", path, strerror(-err), path);
	return err;
}

void sim_shared_detach(struct hsaqm_sim *sim)
{
	struct sim_shared *sh = sim->shared;

	if (!sh)
		return;
	if (sim->role == SIM_ROLE_CLIENT) {
		if (sh->err_started) {
			/* Release: the stop flag before the bump the thread wakes on (acq_rel RMW). */
			hsaqm_store_release(&sh->err_stop, 1u);
			hsaqm_fetch_add(&sim->arena.hdr->client_err_seq, 1u);
			sim_futex_wake(&sim->arena.hdr->client_err_seq, INT_MAX);
			pthread_join(sh->err_thread, NULL);
			sh->err_started = false;
		}
		if (sh->hup_started) {
			uint64_t one = 1;

			if (write(sh->hup_stop_fd, &one, sizeof(one)) != sizeof(one))
				hsaqm_log_err("stopping the hang-up watcher: %s", strerror(errno));
			pthread_join(sh->hup_thread, NULL);
			sh->hup_started = false;
		}
		/* Queues the caller left: the device destroys them when the socket closes. */
		pthread_mutex_lock(&sh->qlock);
		while (!sim_list_empty(&sh->queues)) {
			struct sim_hwq *q = sim_container_of(sh->queues.next, struct sim_hwq, link);

			sim_list_del(&q->link);
			sim_hwq_free(q);
		}
		pthread_mutex_unlock(&sh->qlock);
		if (sh->fd >= 0) {
			close(sh->fd);
			sh->fd = -1;
		}
	} else if (sh->listen_fd >= 0 && !sh->serving) {
		/* Listening, never served: nobody was accepted. */
		close(sh->listen_fd);
		sh->listen_fd = -1;
		unlink(sh->path);
	}
}

void sim_shared_release(struct hsaqm_sim *sim)
{
	shared_free(sim->shared);
	sim->shared = NULL;
}
