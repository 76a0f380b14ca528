/* SPDX-License-Identifier: MIT */
/*
 * The model's KFD face and its generated sysfs tree, tested THROUGH kfd-ioctl's public API
 * on hsaqm_sim_kfd_transport(): every rule checks the errno or result amdkfd gives
 * (docs/sim.md, "The KFD face", names the source of each). Raw hsaqm_kfd_ioctl() calls reach
 * the face with arguments the layer itself would refuse first.
 *
 * Built twice: test-sim-kfd (virtual time) and, with T_KFD_THREADED, test-sim-kfd-threaded
 * (real time, a second thread blocked in the KFD), which also runs under TSan.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"
#include "hsaqm/kfd.h"
#include "kfd_face_internal.h"
#include "t_cunit.h"
#include "t_sim.h"
#include "t_time.h"

#define DB_SLICE 8192u
#define EC(x) HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_##x)
#define INVALID HSAQM_KFD_DBG_QUEUE_INVALID_MASK
#define ERRBIT HSAQM_KFD_DBG_QUEUE_ERROR_MASK

struct env {
	struct hsaqm_sim *sim;
	const struct hsaqm_kfd_transport *tp;
	struct hsaqm_kfd *kfd;
	uint32_t gpu_id;
};

/* A queue as ROCr makes one: ring and indices in model memory, doorbell page mapped. */
struct mq {
	union hsaqm_aql_packet *ring;
	uint64_t *wr, *rd;
	uint32_t slots;
	uint32_t id;
	uint64_t doorbell_offset;
	volatile uint64_t *db;
};

/* Workgroup bookkeeping of a model kernel. */
struct rec {
	uint32_t count;
	uint32_t per_wg[256];
};

static void rec_cb(void *arg, uint64_t dispatch_id, uint32_t wg, void *kernarg)
{
	struct rec *r = arg;

	(void)dispatch_id, (void)kernarg;
	/* Engine thread in REAL mode: the test reads them after a completion-signal wait. */
	hsaqm_fetch_add(&r->count, 1u);
	if (wg < 256)
		hsaqm_fetch_add(&r->per_wg[wg], 1u);
}

__attribute__((unused)) static bool each_once(struct rec *r, uint32_t n)
{
	/* Acquire: pairs with the engine's increments (the callers waited for completion). */
	for (uint32_t i = 0; i < n; i++)
		if (hsaqm_load_acquire(&r->per_wg[i]) != 1)
			return false;
	return hsaqm_load_acquire(&r->count) == n;
}

static uint64_t kernel(struct hsaqm_sim *sim, uint64_t dur, uint32_t waves, struct rec *r)
{
	struct hsaqm_sim_kernel_desc d = { .name = "k", .duration_ns = dur, .waves_per_wg = waves,
					   .wg_callback = r ? rec_cb : NULL, .wg_callback_arg = r };
	uint64_t k = 0;

	if (r)
		memset(r, 0, sizeof(*r));
	CU_ASSERT_EQUAL(hsaqm_sim_kernel_register(sim, &d, &k), 0);
	return k;
}

static int env_open_cfg(struct env *e, const struct hsaqm_sim_config *cfg)
{
	int err;

	memset(e, 0, sizeof(*e));
	err = hsaqm_sim_create(cfg, &e->sim);
	if (err)
		return err;
	e->tp = hsaqm_sim_kfd_transport(e->sim);
	if (!e->tp)
		return -ENOMEM;
	e->gpu_id = sim_kfd_gpu_id(e->sim, 0);
	return hsaqm_kfd_open(e->tp, &e->kfd);
}

__attribute__((unused)) static int env_open(struct env *e)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL };

	return env_open_cfg(e, &cfg);
}

static void env_close(struct env *e)
{
	if (e->kfd)
		CU_ASSERT_EQUAL(hsaqm_kfd_close(e->kfd), 0);
	hsaqm_sim_destroy(e->sim);
	memset(e, 0, sizeof(*e));
}

static void mq_args(struct env *e, struct mq *q, uint32_t slots, uint32_t prio, uint32_t pct,
		    struct hsaqm_kfd_create_queue_args *a)
{
	memset(q, 0, sizeof(*q));
	q->slots = slots;
	q->ring = hsaqm_sim_mem_alloc(e->sim, (size_t)slots * 64, 64);
	q->wr = hsaqm_sim_mem_alloc(e->sim, 64, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q->ring);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q->wr);
	q->rd = q->wr + 1;
	for (uint32_t i = 0; i < slots; i++)
		q->ring[i].u32[0] = HSAQM_AQL_INVALID_WORD;
	memset(a, 0, sizeof(*a));
	a->ring_base_address = (uint64_t)(uintptr_t)q->ring;
	a->write_pointer_address = (uint64_t)(uintptr_t)q->wr;
	a->read_pointer_address = (uint64_t)(uintptr_t)q->rd;
	a->ring_size = slots * 64;
	a->gpu_id = e->gpu_id;
	a->queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL;
	a->queue_percentage = pct;
	a->queue_priority = prio;
	a->ctl_stack_size = 8192; /* the MI308X node's, per XCC (docs/kfd-ioctl.md) */
}

static int mq_create(struct env *e, struct mq *q, uint32_t slots, uint32_t prio)
{
	struct hsaqm_kfd_create_queue_args a;
	int err;

	mq_args(e, q, slots, prio, 100, &a);
	err = hsaqm_kfd_queue_create(e->kfd, &a);
	q->id = a.queue_id;
	q->doorbell_offset = a.doorbell_offset;
	return err;
}

/* Map the queue's doorbell page through the KFD handle, as libhsakmt does. */
static int mq_map(struct env *e, struct mq *q)
{
	void *page = NULL;
	int err = hsaqm_kfd_mmap(e->kfd, NULL, DB_SLICE, PROT_READ | PROT_WRITE, MAP_SHARED,
				 (off_t)(q->doorbell_offset & ~(uint64_t)(DB_SLICE - 1)), &page);

	if (!err)
		q->db = (volatile uint64_t *)((char *)page + (q->doorbell_offset & (DB_SLICE - 1)));
	return err;
}

/*
 * Reserve, publish with the ring protocol, ring the mapped doorbell, tell the model.
 * Returns the packet's index, or UINT64_MAX if the packet could not be published (no
 * CUnit assertion here: other threads submit too).
 */
static uint64_t mq_submit(struct env *e, struct mq *q, const union hsaqm_aql_packet *p)
{
	/* acq_rel: the reservation, as a producer makes it; the packet processor acquires it. */
	uint64_t idx = hsaqm_fetch_add(q->wr, 1ull);

	if (hsaqm_aql_publish(&q->ring[idx & (q->slots - 1)], p))
		return UINT64_MAX;
	/* Release: the published packet before the doorbell value that covers it. */
	hsaqm_store_release((uint64_t *)q->db, idx);
	e->tp->doorbell_written(e->tp->ctx, -1, q->db, idx);
	return idx;
}

__attribute__((unused)) static struct sim_hwq *hwq_of(struct env *e, const struct mq *q)
{
	/* The layer keeps its handle private; the face's first handle is its base, 1000. */
	return sim_kfd_face_hwq(e->sim, 1000, q->id);
}

/* Clear EC_QUEUE_NEW on every queue (a snapshot with the clear mask), as a debugger does. */
static void clear_new(struct env *e)
{
	uint32_t n = 0;

	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(e->kfd, EC(QUEUE_NEW), NULL, &n), 0);
	struct hsaqm_kfd_queue_snapshot_entry *ent = calloc(n ? n : 1, sizeof(*ent));
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(e->kfd, EC(QUEUE_NEW), ent, &n), 0);
	free(ent);
}

__attribute__((unused)) static int dbg_trap_raw(struct env *e, uint32_t op,
						struct hsaqm_kfd_dbg_trap_args *a)
{
	a->pid = (uint32_t)getpid();
	a->op = op;
	return hsaqm_kfd_ioctl(e->kfd, HSAQM_KFD_IOC_DBG_TRAP, a);
}

__attribute__((unused)) static struct hsaqm_kfd_queue_snapshot_entry snapshot_of(struct env *e,
										  uint32_t id)
{
	struct hsaqm_kfd_queue_snapshot_entry ent[8], none;
	uint32_t n = 8;

	memset(&none, 0xff, sizeof(none));
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(e->kfd, 0, ent, &n), 0);
	for (uint32_t i = 0; i < n && i < 8; i++)
		if (ent[i].queue_id == id)
			return ent[i];
	return none;
}

#ifndef T_KFD_THREADED

/* ==== interface version ==================================================================== */

static void test_get_version_reports_the_configured_minor_17_by_default(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL,
					.kfd_minor_version = 13 };
	struct env e;
	uint32_t major = 0, minor = 0;

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_STRING_EQUAL(e.tp->name, "sim");
	CU_ASSERT_EQUAL(hsaqm_kfd_get_version(e.kfd, &major, &minor), 0);
	CU_ASSERT_EQUAL(major, 1);
	CU_ASSERT_EQUAL(minor, 17);
	env_close(&e);

	CU_ASSERT_EQUAL_FATAL(env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_get_version(e.kfd, &major, &minor), 0);
	CU_ASSERT_EQUAL(minor, 13);
	env_close(&e);
}

static void test_kfd_1_11_refuses_the_debugger_as_an_unknown_ioctl(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL,
					.kfd_minor_version = 11 };
	struct hsaqm_kfd_runtime_enable_args rt = { .mode_mask = 1 };
	struct hsaqm_kfd_dbg_trap_args dbg = { 0 };
	struct hsaqm_kfd_create_queue_args a;
	struct env e;
	struct mq q;

	CU_ASSERT_EQUAL_FATAL(env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_FALSE(hsaqm_kfd_version_at_least(e.kfd, 1, 13));
	/* The layer does not even ask such a kernel. */
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), -EOPNOTSUPP);
	/* Asked anyway: the old kernel's kfd_ioctl() answer to a number past its table. */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_RUNTIME_ENABLE, &rt), -EINVAL);
	CU_ASSERT_EQUAL(dbg_trap_raw(&e, HSAQM_KFD_DBG_TRAP_ENABLE, &dbg), -EINVAL);
	/* Queues work, with the 88-byte create_queue; an engine-id SDMA type is unknown. */
	CU_ASSERT_EQUAL(mq_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, q.id), 0);
	mq_args(&e, &q, 16, 7, 100, &a);
	a.queue_type = HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_CREATE_QUEUE, &a), -524);
	env_close(&e);
}

static void test_ioctls_the_model_does_not_have_get_the_kernels_answers(void)
{
	struct env e;
	uint8_t buf[64] = { 0 };

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	/* 0x27 is newer than 1.18: unknown. */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOWR(0x27, 8), buf), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOWR(0x7f, 8), buf), -EINVAL);
	/* The deprecated debugger ioctls answer EPERM. */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOW(0x0D, 8), buf), -EPERM);
	/* Known to the KFD, not modelled (CRIU). */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOWR(0x22, 32), buf), -EOPNOTSUPP);
	/* Each of the four is counted as not modelled; a modelled one is not. */
	CU_ASSERT_EQUAL(sim_kfd_face_unmodelled(e.sim), 4);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_GET_VERSION, buf), 0);
	CU_ASSERT_EQUAL(sim_kfd_face_unmodelled(e.sim), 4);
	/* A handle that was never opened. */
	CU_ASSERT_EQUAL(e.tp->ioctl(e.tp->ctx, 5, HSAQM_KFD_IOC_GET_VERSION, buf), -EBADF);
	env_close(&e);
}

/* ==== queues ================================================================================ */

static void test_create_queue_validates_like_amdkfd(void)
{
	struct hsaqm_kfd_create_queue_args a;
	struct env e;
	struct mq q;
	uint64_t *host = calloc(512, 8);

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
#define TRY(field, value, err)                                                   \
	do {                                                                     \
		mq_args(&e, &q, 64, 7, 100, &a);                                 \
		a.field = value;                                                 \
		CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_CREATE_QUEUE, &a), err); \
	} while (0)
	TRY(queue_priority, 16, -EINVAL);
	TRY(queue_percentage, 101, -EINVAL);
	TRY(ring_size, 3000, -EINVAL);
	TRY(gpu_id, e.gpu_id ^ 0x5a5a, -EINVAL);
	TRY(queue_type, 9, -524); /* kernel-internal ENOTSUPP leaks out */
	TRY(queue_type, HSAQM_KFD_QUEUE_TYPE_SDMA, -EOPNOTSUPP); /* not modelled */
	TRY(ring_base_address, (uint64_t)(uintptr_t)host, -EFAULT);
	TRY(ring_base_address, 0, -EFAULT);
	TRY(write_pointer_address, (uint64_t)(uintptr_t)host, -EFAULT);
	TRY(read_pointer_address, 0, -EFAULT);
#undef TRY
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 0);

	/* A ring below 1 KiB is raised to KFD_MIN_QUEUE_RING_SIZE and the caller sees it. */
	mq_args(&e, &q, 16, 7, 100, &a);
	a.ring_size = 256;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(e.kfd, &a), 0);
	CU_ASSERT_EQUAL(a.ring_size, HSAQM_KFD_MIN_QUEUE_RING_SIZE);
	struct sim_hwq_info info;
	q.id = a.queue_id;
	CU_ASSERT_EQUAL(sim_hwq_get_info(hwq_of(&e, &q), &info), 0);
	CU_ASSERT_EQUAL(info.ring_size_bytes, HSAQM_KFD_MIN_QUEUE_RING_SIZE);
	env_close(&e);
	free(host);
}

static void test_queue_ids_are_the_lowest_free_and_doorbells_encode_the_gpu(void)
{
	struct env e;
	struct mq q[4];

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(mq_create(&e, &q[i], 16, 7), 0);
		CU_ASSERT_EQUAL(q[i].id, (uint32_t)i);
		CU_ASSERT_EQUAL(q[i].doorbell_offset >> 62, 3u); /* KFD_MMAP_TYPE_DOORBELL */
		CU_ASSERT_EQUAL((q[i].doorbell_offset >> 46) & 0xffff, e.gpu_id);
		CU_ASSERT_EQUAL(q[i].doorbell_offset & (DB_SLICE - 1), (uint64_t)i * 8);
	}
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, 1), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, 1), -EINVAL); /* gone */
	CU_ASSERT_EQUAL(mq_create(&e, &q[3], 16, 7), 0);
	CU_ASSERT_EQUAL(q[3].id, 1);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 3);
	env_close(&e);
}

static void test_unknown_queue_is_einval_for_destroy_and_efault_for_the_rest(void)
{
	struct env e;
	uint32_t mask[4] = { 0xffffffffu, 0xffffffffu, 0xffffffffu, 0 };
	uint8_t stack[64];

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, 42), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, 42, 0, 0, 100, 7), -EFAULT);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_set_cu_mask(e.kfd, 42, mask, 128), -EFAULT);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(e.kfd, 42, stack, NULL, NULL), -EFAULT);
	env_close(&e);
}

static void test_queue_runs_packets_rung_through_the_mapped_doorbell(void)
{
	struct env e;
	struct mq q;
	static struct rec r;
	void *page = NULL;

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(mq_map(&e, &q), 0);
	uint64_t k = kernel(e.sim, 100 * T_US, 4, &r);
	struct sim_signal *cs = sim_signal_create(e.sim, 2);
	union hsaqm_aql_packet p1 = t_dispatch(k, 20, t_handle(cs), false);
	union hsaqm_aql_packet p2 = t_dispatch(k, 20, t_handle(cs), false);

	CU_ASSERT_NOT_EQUAL(mq_submit(&e, &q, &p1), UINT64_MAX);
	CU_ASSERT_NOT_EQUAL(mq_submit(&e, &q, &p2), UINT64_MAX);
	CU_ASSERT_EQUAL(sim_signal_wait(e.sim, cs, SIM_COND_EQ, 0, T_S), 0);
	/* Acquire: pairs with rec_cb's adds and with the packet processor's release of rd. */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&r.count), 40);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(q.rd), 2); /* consumed */

	/* The doorbell page: exactly the process's slice, on a known GPU, page-aligned. */
	CU_ASSERT_EQUAL(hsaqm_kfd_mmap(e.kfd, NULL, 4096, PROT_WRITE, MAP_SHARED,
				       (off_t)(q.doorbell_offset & ~8191ull), &page), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_mmap(e.kfd, NULL, DB_SLICE, PROT_WRITE, MAP_SHARED,
				       (off_t)((3ull << 62) | ((uint64_t)(e.gpu_id ^ 1) << 46)),
				       &page), -ENODEV);
	CU_ASSERT_EQUAL(hsaqm_kfd_mmap(e.kfd, NULL, DB_SLICE, PROT_WRITE, MAP_SHARED,
				       (off_t)((q.doorbell_offset & ~8191ull) | 8), &page),
			-EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_mmap(e.kfd, NULL, 4096, PROT_READ, MAP_SHARED,
				       (off_t)(2ull << 62), &page), -EINVAL); /* no events page */
	sim_signal_destroy(e.sim, cs);
	env_close(&e);
}

static void test_update_queue_priority_reaches_the_hardware_queue(void)
{
	struct env e;
	struct mq q;
	struct sim_hwq_info info;

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 3), 0);
	CU_ASSERT_EQUAL(sim_hwq_get_info(hwq_of(&e, &q), &info), 0);
	CU_ASSERT_EQUAL(info.priority, 3);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, q.id, (uint64_t)(uintptr_t)q.ring, 1024, 100,
					       15), 0);
	CU_ASSERT_EQUAL(sim_hwq_get_info(hwq_of(&e, &q), &info), 0);
	CU_ASSERT_EQUAL(info.priority, 15);
	/* The face's own checks (the layer's are bypassed). */
	struct hsaqm_kfd_update_queue_args u = { .queue_id = q.id, .queue_percentage = 100,
						 .queue_priority = 16 };
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_UPDATE_QUEUE, &u), -EINVAL);
	u.queue_priority = 5;
	u.ring_size = 1000;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_UPDATE_QUEUE, &u), -EINVAL);
	u.ring_size = 1024;
	u.ring_base_address = (uint64_t)(uintptr_t)&u; /* not model memory */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_UPDATE_QUEUE, &u), -EFAULT);
	env_close(&e);
}

static void test_percentage_zero_deactivates_and_unmaps_every_queue_of_the_device(void)
{
	struct env e;
	struct mq a, b;
	static struct rec ra, rb;
	struct sim_hwq_stats before, after;
	struct sim_hwq_info info;

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &a, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &b, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(mq_map(&e, &a), 0);
	CU_ASSERT_EQUAL_FATAL(mq_map(&e, &b), 0);
	uint64_t ka = kernel(e.sim, 2 * T_MS, 8, &ra);
	uint64_t kb = kernel(e.sim, 2 * T_MS, 8, &rb);
	struct sim_signal *csa = sim_signal_create(e.sim, 1), *csb = sim_signal_create(e.sim, 1);
	union hsaqm_aql_packet pa = t_dispatch(ka, 4, t_handle(csa), false);
	union hsaqm_aql_packet pb = t_dispatch(kb, 4, t_handle(csb), false);

	CU_ASSERT_NOT_EQUAL(mq_submit(&e, &a, &pa), UINT64_MAX);
	CU_ASSERT_NOT_EQUAL(mq_submit(&e, &b, &pb), UINT64_MAX);
	hsaqm_sim_advance(e.sim, 500 * T_US);
	sim_hwq_get_stats(hwq_of(&e, &a), &before);
	/* B inactive: the KFD unmaps every dynamic queue to do it, A included. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, b.id, (uint64_t)(uintptr_t)b.ring, 1024, 0,
					       7), 0);
	sim_hwq_get_stats(hwq_of(&e, &a), &after);
	CU_ASSERT_EQUAL(after.unmaps, before.unmaps + 1);
	CU_ASSERT(after.waves_saved_total > before.waves_saved_total); /* A's waves were saved */
	CU_ASSERT_EQUAL(sim_hwq_get_info(hwq_of(&e, &b), &info), 0);
	CU_ASSERT_EQUAL(info.state, SIM_HWQ_SUSPENDED);
	/* A finishes; B does not move while inactive, and its wave state is readable. */
	CU_ASSERT_EQUAL(sim_signal_wait(e.sim, csa, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT(each_once(&ra, 4));
	hsaqm_sim_advance(e.sim, 10 * T_MS);
	CU_ASSERT_EQUAL(sim_signal_load(csb), 1);
	uint32_t used = 0, save = 0;
	uint8_t *stack = calloc(1, 8192);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(e.kfd, b.id, stack, &used, &save), 0);
	CU_ASSERT_EQUAL(used, 40 + 8 * 32);
	CU_ASSERT(save > 0);
	free(stack);
	/* Back to 100 %: B resumes and every workgroup still runs once. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, b.id, (uint64_t)(uintptr_t)b.ring, 1024, 100,
					       7), 0);
	CU_ASSERT_EQUAL(sim_signal_wait(e.sim, csb, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT(each_once(&rb, 4));
	/* A NULL ring (6.12+) deactivates too. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, a.id, 0, 0, 100, 7), 0);
	CU_ASSERT_EQUAL(sim_hwq_get_info(hwq_of(&e, &a), &info), 0);
	CU_ASSERT_EQUAL(info.state, SIM_HWQ_SUSPENDED);
	sim_signal_destroy(e.sim, csa);
	sim_signal_destroy(e.sim, csb);
	env_close(&e);
}

static uint64_t run_full_cu_kernel(struct env *e, const uint32_t *mask, uint32_t bits)
{
	struct mq q;
	static struct rec r;

	CU_ASSERT_EQUAL_FATAL(mq_create(e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(mq_map(e, &q), 0);
	if (mask)
		CU_ASSERT_EQUAL(hsaqm_kfd_queue_set_cu_mask(e->kfd, q.id, mask, bits), 0);
	/* A workgroup fills a CU (4 SIMDs x 8 waves): one CU runs one at a time. */
	uint64_t k = kernel(e->sim, 100 * T_US, 32, &r);
	struct sim_signal *cs = sim_signal_create(e->sim, 1);
	union hsaqm_aql_packet p = t_dispatch(k, 4, t_handle(cs), false);
	uint64_t t0 = hsaqm_sim_now_ns(e->sim);

	CU_ASSERT_NOT_EQUAL(mq_submit(e, &q, &p), UINT64_MAX);
	CU_ASSERT_EQUAL(sim_signal_wait(e->sim, cs, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT(each_once(&r, 4));
	sim_signal_destroy(e->sim, cs);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e->kfd, q.id), 0);
	return hsaqm_sim_now_ns(e->sim) - t0;
}

static void test_set_cu_mask_restricts_the_queue_and_checks_its_count(void)
{
	struct env e;
	uint32_t one_cu[32] = { 1 }; /* 1024 bits, CU 0 only */
	struct hsaqm_kfd_set_cu_mask_args m = { .num_cu_mask = 40 };
	struct mq q;

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	uint64_t all = run_full_cu_kernel(&e, NULL, 0);
	uint64_t one = run_full_cu_kernel(&e, one_cu, 1024);
	CU_ASSERT(all < 200 * T_US);
	CU_ASSERT(one >= 400 * T_US); /* four workgroups one after the other */

	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 7), 0);
	m.queue_id = q.id;
	m.cu_mask_ptr = (uint64_t)(uintptr_t)one_cu;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_CU_MASK, &m), -EINVAL);
	m.num_cu_mask = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_CU_MASK, &m), -EINVAL);
	m.num_cu_mask = 2048; /* bits past 1024 are dropped */
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_CU_MASK, &m), 0);
	m.cu_mask_ptr = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_SET_CU_MASK, &m), -EFAULT);
	env_close(&e);
}

static void test_wave_state_is_einval_while_active_or_without_cwsr(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .cwsr_disable = 1 };
	uint8_t *stack = calloc(1, 8192);
	struct env e;
	struct mq q;

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(e.kfd, q.id, stack, NULL, NULL), -EINVAL);
	env_close(&e);

	CU_ASSERT_EQUAL_FATAL(env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, q.id, (uint64_t)(uintptr_t)q.ring, 1024, 0,
					       7), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(e.kfd, q.id, stack, NULL, NULL), -EINVAL);
	env_close(&e);
	free(stack);
}

static void test_sched_policy_1_refuses_oversubscription_with_eperm(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .sched_policy = 1 };
	struct env e;
	struct mq q;
	uint32_t slots;

	CU_ASSERT_EQUAL_FATAL(env_open_cfg(&e, &cfg), 0);
	slots = sim_device_profile(e.sim, 0)->hqd_slots;
	for (uint32_t i = 0; i < slots; i++)
		CU_ASSERT_EQUAL(mq_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL(mq_create(&e, &q, 16, 7), -EPERM);
	/* An inactive queue does not count. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(e.kfd, 0, 0, 0, 0, 7), 0);
	CU_ASSERT_EQUAL(mq_create(&e, &q, 16, 7), 0);
	env_close(&e);
}

/* ==== runtime enable and the debugger ====================================================== */

static void test_runtime_enable_is_once_and_only_before_queues(void)
{
	struct env e;
	struct mq q;

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0x1234, true), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), -EBUSY);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_disable(e.kfd), 0);
	CU_ASSERT_EQUAL(mq_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), -EEXIST);
	env_close(&e);
}

static void test_dbg_trap_needs_enable_and_one_debugger_per_process(void)
{
	struct env e;
	struct hsaqm_kfd_dbg_trap_args a = { 0 };
	struct hsaqm_kfd_runtime_info ri;
	uint32_t ids[1] = { 0 };
	int fds[2];

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0xabc, false), 0);
	/* Before ENABLE every other op is EINVAL (DISABLE too, asked raw). */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(dbg_trap_raw(&e, HSAQM_KFD_DBG_TRAP_DISABLE, &a), -EINVAL);
	/* The KFD takes its own reference to the file: a closed descriptor is EBADF. */
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	close(fds[0]);
	close(fds[1]);
	memset(&a, 0, sizeof(a));
	a.enable.dbg_fd = (uint32_t)fds[1];
	CU_ASSERT_EQUAL(dbg_trap_raw(&e, HSAQM_KFD_DBG_TRAP_ENABLE, &a), -EBADF);
	/* Another process's pid: not a KFD process of this model. */
	memset(&a, 0, sizeof(a));
	a.pid = (uint32_t)getpid() + 1;
	a.op = HSAQM_KFD_DBG_TRAP_ENABLE;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(e.kfd, HSAQM_KFD_IOC_DBG_TRAP, &a), -ESRCH);

	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, EC(QUEUE_NEW), &ri), 0);
	CU_ASSERT_EQUAL(ri.r_debug, 0xabc);
	CU_ASSERT_EQUAL(ri.runtime_state, HSAQM_KFD_RUNTIME_STATE_ENABLED);
	/* A second debugger of the same process, asked raw past the layer's own check. */
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	memset(&a, 0, sizeof(a));
	a.enable.dbg_fd = (uint32_t)fds[1];
	CU_ASSERT_EQUAL(dbg_trap_raw(&e, HSAQM_KFD_DBG_TRAP_ENABLE, &a), -EALREADY);
	close(fds[0]);
	close(fds[1]);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(e.kfd), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0); /* free again after DISABLE */
	env_close(&e);
}

static void test_suspend_without_runtime_enable_is_eperm(void)
{
	struct env e;
	struct mq q;
	uint32_t ids[1];

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 7), 0);
	clear_new(&e);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), -EPERM);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), -EPERM);
	env_close(&e);
}

static void test_dbg_trap_with_sched_policy_2_is_einval(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .sched_policy = 2 };
	struct env e;
	struct mq q;

	CU_ASSERT_EQUAL_FATAL(env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0); /* not DBG_TRAP */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(mq_create(&e, &q, 16, 7), 0); /* queues still work without HWS */
	env_close(&e);
}

static void test_new_queue_is_invalid_for_suspend_until_ec_queue_new_is_cleared(void)
{
	struct env e;
	struct mq old, q, q2;
	uint64_t status = 0;
	uint32_t gpu = 0, qid = 99, ids[2];
	struct pollfd pfd;

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &old, 16, 7), 0); /* before the debugger: not new */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, EC(QUEUE_NEW), NULL), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(e.kfd, 0, &status, NULL, NULL), -EAGAIN);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 7), 0);

	/* The debugger hears of it: a byte on its file, the event with the queue. */
	pfd.fd = hsaqm_kfd_dbg_event_fd(e.kfd);
	pfd.events = POLLIN;
	CU_ASSERT_EQUAL(poll(&pfd, 1, 0), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(e.kfd, 0, &status, &gpu, &qid), 0);
	CU_ASSERT_EQUAL(status, EC(QUEUE_NEW));
	CU_ASSERT_EQUAL(qid, q.id);
	CU_ASSERT_EQUAL(gpu, e.gpu_id);
	CU_ASSERT_EQUAL(snapshot_of(&e, q.id).exception_status, EC(QUEUE_NEW));
	CU_ASSERT_EQUAL(snapshot_of(&e, old.id).exception_status, 0);

	/* Alone, the new queue is refused and nothing is suspended, so nothing is cleared. */
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, EC(QUEUE_NEW)), 0);
	CU_ASSERT_EQUAL(ids[0], q.id | INVALID);
	CU_ASSERT_EQUAL(snapshot_of(&e, q.id).exception_status, EC(QUEUE_NEW));
	/* With a queue that suspends, the clear mask reaches every listed queue of the device. */
	ids[0] = old.id;
	ids[1] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 2, 0, EC(QUEUE_NEW)), 1);
	CU_ASSERT_EQUAL(ids[0], old.id);
	CU_ASSERT_EQUAL(ids[1], q.id | INVALID);
	CU_ASSERT_EQUAL(snapshot_of(&e, q.id).exception_status, 0);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	CU_ASSERT_EQUAL(ids[0], q.id);

	/* The other way to clear it: a snapshot with the clear mask. */
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q2, 16, 7), 0);
	ids[0] = q2.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 0);
	clear_new(&e);
	ids[0] = q2.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	env_close(&e); /* closing with suspended queues resumes and destroys them */
}

static void test_suspend_resume_per_entry_bits_and_count(void)
{
	struct env e;
	struct mq a, b;
	uint32_t ids[3];

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &a, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &b, 16, 7), 0);
	clear_new(&e);
	ids[0] = a.id;
	ids[1] = 777;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 2, 0, 0), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_status(ids[0]), HSAQM_KFD_DBG_ENTRY_OK);
	CU_ASSERT_EQUAL(ids[1], 777u | INVALID);
	CU_ASSERT_EQUAL(t_q_state(&(struct t_q){ .hwq = hwq_of(&e, &a) }), SIM_HWQ_SUSPENDED);
	/* Already suspended counts as handled; an entry's stale INVALID bit is ignored. */
	ids[0] = a.id | INVALID;
	ids[1] = b.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 2, 0, 0), 2);
	CU_ASSERT_EQUAL(ids[0], a.id);
	CU_ASSERT_EQUAL(ids[1], b.id);
	/* An ERROR bit in the input is part of the id: no queue matches. */
	ids[0] = a.id | ERRBIT;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 0);
	CU_ASSERT_EQUAL(ids[0], a.id | ERRBIT | INVALID);
	ids[0] = a.id;
	ids[1] = 5;
	ids[2] = b.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 3), 2);
	CU_ASSERT_EQUAL(ids[0], a.id);
	CU_ASSERT_EQUAL(ids[1], 5u | INVALID);
	CU_ASSERT_EQUAL(ids[2], b.id);
	/* Resuming a running queue is handled too. */
	ids[0] = a.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 1);
	CU_ASSERT_EQUAL(ids[0], a.id);
	CU_ASSERT_NOT_EQUAL(t_q_state(&(struct t_q){ .hwq = hwq_of(&e, &a) }), SIM_HWQ_SUSPENDED);
	env_close(&e);
}

static void test_suspend_saves_waves_and_resume_finishes_every_workgroup_once(void)
{
	struct env e;
	struct mq q;
	static struct rec r;
	uint32_t ids[1], used = 0, save = 0;
	uint8_t *stack = calloc(1, 8192);

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(mq_map(&e, &q), 0);
	clear_new(&e);
	uint64_t k = kernel(e.sim, 5 * T_MS, 8, &r);
	struct sim_signal *cs = sim_signal_create(e.sim, 1);
	union hsaqm_aql_packet p = t_dispatch(k, 10, t_handle(cs), false);

	CU_ASSERT_NOT_EQUAL(mq_submit(&e, &q, &p), UINT64_MAX);
	hsaqm_sim_advance(e.sim, T_MS);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	/* 10 workgroups of 8 waves saved by CWSR: the control stack and save area show it. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(e.kfd, q.id, stack, &used, &save), 0);
	CU_ASSERT_EQUAL(used, 40 + 8 * 80);
	CU_ASSERT(save > 0);
	struct hsaqm_kfd_context_save_area_header *h = (void *)stack;
	CU_ASSERT_EQUAL(h->wave_state.control_stack_size, used);
	CU_ASSERT_EQUAL(h->wave_state.control_stack_offset, 8192 - used);
	CU_ASSERT_EQUAL(h->wave_state.wave_state_size, save);
	hsaqm_sim_advance(e.sim, 20 * T_MS);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&r.count), 0); /* pairs with rec_cb's add */
	CU_ASSERT_EQUAL(sim_signal_load(cs), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 1);
	CU_ASSERT_EQUAL(sim_signal_wait(e.sim, cs, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT(each_once(&r, 10));
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(e.kfd, q.id, stack, NULL, NULL), -EINVAL);
	sim_signal_destroy(e.sim, cs);
	env_close(&e);
	free(stack);
}

static void test_virtual_destroy_of_a_suspended_queue_fails_eintr_and_keeps_it(void)
{
	struct env e;
	struct mq q;
	uint32_t ids[1];
	struct timespec t0, t1;

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 7), 0);
	clear_new(&e);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	/* Nobody else can resume it: each wait ends as an interrupted one, the layer retries. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, q.id), -EINTR);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CU_ASSERT(t1.tv_sec - t0.tv_sec < 10);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 1);
	/* Not marked "being destroyed" any more: it still suspends and resumes. */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, q.id), 0);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 0);
	env_close(&e);
}

static void test_dbg_disable_and_close_resume_suspended_queues(void)
{
	struct env e;
	struct mq q;
	static struct rec r;
	uint32_t ids[1];

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, EC(QUEUE_NEW), NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(mq_map(&e, &q), 0);
	clear_new(&e);
	uint64_t k = kernel(e.sim, T_MS, 4, &r);
	struct sim_signal *cs = sim_signal_create(e.sim, 1);
	union hsaqm_aql_packet p = t_dispatch(k, 3, t_handle(cs), false);

	CU_ASSERT_NOT_EQUAL(mq_submit(&e, &q, &p), UINT64_MAX);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(e.kfd), 0);
	CU_ASSERT_EQUAL(sim_signal_wait(e.sim, cs, SIM_COND_EQ, 0, T_S), 0);
	CU_ASSERT(each_once(&r, 3));
	/* The exceptions went with the session. */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, EC(QUEUE_NEW), NULL), 0);
	CU_ASSERT_EQUAL(snapshot_of(&e, q.id).exception_status, 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	sim_signal_destroy(e.sim, cs);
	/* Process exit with a suspended queue: detach, resume, destroy. */
	CU_ASSERT_EQUAL(hsaqm_kfd_close(e.kfd), 0);
	e.kfd = NULL;
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 0);
	env_close(&e);
}

static void test_runtime_enable_under_a_debugger_waits_for_its_runtime_event(void)
{
	struct env e;
	struct hsaqm_kfd_dbg_trap_args a = { 0 };
	uint64_t status = 0;

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, EC(PROCESS_RUNTIME), NULL), 0);
	/* The runtime arrives after the debugger: it waits for the debugger's go (EINTR here). */
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 7, false), -EINTR);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(e.kfd, EC(PROCESS_RUNTIME), &status, NULL, NULL),
			0);
	CU_ASSERT_EQUAL(status, EC(PROCESS_RUNTIME));
	a.send_runtime_event.exception_mask = EC(PROCESS_RUNTIME);
	CU_ASSERT_EQUAL(dbg_trap_raw(&e, HSAQM_KFD_DBG_TRAP_SEND_RUNTIME_EVENT, &a), 0);
	/* The retry finds the semaphore up: enabled, not EBUSY. */
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 7, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 7, false), -EBUSY);
	env_close(&e);
}

static void test_queue_error_becomes_a_debugger_queue_event(void)
{
	struct env e;
	struct mq q;
	uint64_t status = 0;
	uint32_t qid = 99;

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, HSAQM_KFD_EC_MASK_QUEUE, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(mq_map(&e, &q), 0);
	clear_new(&e);
	union hsaqm_aql_packet p = t_dispatch(0x1234, 1, 0, false); /* no such kernel */

	CU_ASSERT_NOT_EQUAL(mq_submit(&e, &q, &p), UINT64_MAX);
	CU_ASSERT_EQUAL(hsaqm_sim_run_until_idle(e.sim, T_S), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(e.kfd, ~0ull, &status, NULL, &qid), 0);
	CU_ASSERT_EQUAL(status, EC(QUEUE_PACKET_DISPATCH_CODE_INVALID));
	CU_ASSERT_EQUAL(qid, q.id);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(e.kfd, 0, &status, NULL, NULL), -EAGAIN);
	env_close(&e);
}

static void test_snapshots_fill_entries_from_the_model(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .num_devices = 2 };
	struct hsaqm_kfd_queue_snapshot_entry qe[1];
	struct hsaqm_kfd_dbg_device_info_entry de[1];
	struct env e;
	struct mq a, b;
	uint32_t n = 0;

	CU_ASSERT_EQUAL_FATAL(env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &a, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &b, 32, 7), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(e.kfd, 0, NULL, &n), 0);
	CU_ASSERT_EQUAL(n, 2);
	n = 1; /* room for one: the newest, both counted */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(e.kfd, EC(QUEUE_NEW), qe, &n), 0);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(qe[0].queue_id, b.id);
	CU_ASSERT_EQUAL(qe[0].ring_base_address, (uint64_t)(uintptr_t)b.ring);
	CU_ASSERT_EQUAL(qe[0].read_pointer_address, (uint64_t)(uintptr_t)b.rd);
	CU_ASSERT_EQUAL(qe[0].ring_size, 2048);
	CU_ASSERT_EQUAL(qe[0].queue_type, HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL);
	CU_ASSERT_EQUAL(qe[0].gpu_id, e.gpu_id);
	CU_ASSERT_EQUAL(qe[0].exception_status, EC(QUEUE_NEW)); /* reported, then cleared */
	CU_ASSERT_EQUAL(snapshot_of(&e, b.id).exception_status, 0);
	CU_ASSERT_EQUAL(snapshot_of(&e, a.id).exception_status, EC(QUEUE_NEW)); /* not reached */

	n = 1;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_device_snapshot(e.kfd, 0, de, &n), 0);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(de[0].gpu_id, e.gpu_id);
	CU_ASSERT_EQUAL(de[0].gfx_target_version, 90402);
	CU_ASSERT_EQUAL(de[0].simd_count, 320);
	CU_ASSERT_EQUAL(de[0].num_xcc, 4);
	CU_ASSERT_EQUAL(de[0].array_count, 16);
	CU_ASSERT_EQUAL(de[0].capability, 0x2c77a280u);
	CU_ASSERT_EQUAL(de[0].location_id, 2560);
	CU_ASSERT_NOT_EQUAL(sim_kfd_gpu_id(e.sim, 1), e.gpu_id);
	env_close(&e);
}

/* ==== the generated sysfs tree ============================================================= */

static void test_topology_from_the_generated_sysfs_equals_the_profile(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .num_devices = 2 };
	struct hsaqm_topology *topo = NULL;
	struct hsaqm_cwsr_sizes sz;
	char decoded[512], path[PATH_MAX], name[64] = { 0 };
	struct env e;

	CU_ASSERT_EQUAL_FATAL(env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.tp->sysfs_root);
	CU_ASSERT_STRING_EQUAL(e.tp->sysfs_root, hsaqm_sim_sysfs_root(e.sim));
	CU_ASSERT_EQUAL_FATAL(hsaqm_topology_load(e.tp->sysfs_root, &topo), 0);
	CU_ASSERT_EQUAL(topo->n_nodes, 3);
	CU_ASSERT_FALSE(topo->nodes[0].is_gpu);
	CU_ASSERT(topo->nodes[0].cpu_cores_count > 0);
	for (unsigned int d = 0; d < 2; d++) {
		const struct hsaqm_topology_node *n = &topo->nodes[d + 1];

		CU_ASSERT(n->is_gpu);
		CU_ASSERT_EQUAL(n->gpu_id, sim_kfd_gpu_id(e.sim, d));
		CU_ASSERT_PTR_EQUAL(hsaqm_topology_find_gpu(topo, n->gpu_id), n);
		CU_ASSERT_EQUAL(n->cu_count, 80);
		CU_ASSERT_EQUAL(n->num_xcc, 4);
		CU_ASSERT_EQUAL(n->gfx_target_version, 90402);
		CU_ASSERT_EQUAL(n->capability, 0x2c77a280u);
		CU_ASSERT_EQUAL(n->num_cp_queues, 24);
	}
	CU_ASSERT_NOT_EQUAL(topo->nodes[1].gpu_id, topo->nodes[2].gpu_id);
	CU_ASSERT(hsaqm_topology_cap_decode(topo->nodes[1].capability, decoded,
					    sizeof(decoded)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(decoded, "TRAP_DEBUG_SUPPORT"));
	CU_ASSERT_PTR_NOT_NULL(strstr(decoded, "TRAP_DEBUG_FIRMWARE_SUPPORTED"));
	CU_ASSERT_PTR_NULL(strstr(decoded, "PER_QUEUE_RESET"));
	CU_ASSERT_EQUAL(hsaqm_cwsr_sizes_get(&topo->nodes[1], &sz), 0);
	CU_ASSERT_EQUAL(sz.cwsr_size, 12214272);
	CU_ASSERT_EQUAL(sz.ctl_stack_size, 8192);

	/* The properties file is the profile's, byte for byte; the name is the KFD's. */
	char *text = NULL;
	size_t len = 0;
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/topology/nodes/1/properties",
		 e.tp->sysfs_root);
	CU_ASSERT_EQUAL(hsaqm_debugfs_read(path, &text, &len), 0);
	CU_ASSERT_STRING_EQUAL(text, sim_device_profile(e.sim, 0)->properties_text);
	free(text);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/topology/nodes/1/name", e.tp->sysfs_root);
	FILE *f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(fgets(name, sizeof(name), f));
	fclose(f);
	CU_ASSERT_STRING_EQUAL(name, "ip discovery\n");
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/topology/generation_id", e.tp->sysfs_root);
	CU_ASSERT_EQUAL(access(path, R_OK), 0);
	hsaqm_topology_free(topo);
	env_close(&e);
}

static void test_module_parameters_follow_the_model_config(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .cwsr_disable = 1,
					.sched_policy = 2 };
	struct hsaqm_kfd_module_params mp;
	struct env e;

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_module_params(e.tp->sysfs_root, &mp), 0);
	CU_ASSERT_EQUAL(mp.present, 0x1f);
	CU_ASSERT_EQUAL(mp.cwsr_enable, 1);
	CU_ASSERT_EQUAL(mp.sched_policy, 0);
	CU_ASSERT_EQUAL(mp.hws_max_conc_proc, -1);
	CU_ASSERT_EQUAL(mp.queue_preemption_timeout_ms, 9000);
	CU_ASSERT_EQUAL(mp.mes, 0);
	env_close(&e);

	CU_ASSERT_EQUAL_FATAL(env_open_cfg(&e, &cfg), 0);
	CU_ASSERT_EQUAL(hsaqm_topology_module_params(e.tp->sysfs_root, &mp), 0);
	CU_ASSERT_EQUAL(mp.cwsr_enable, 0);
	CU_ASSERT_EQUAL(mp.sched_policy, 2);
	env_close(&e);
}

static void test_sysfs_tree_is_removed_at_model_destroy(void)
{
	struct hsaqm_sim *sim = t_sim_virtual(1);
	char root[PATH_MAX];

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_PTR_NOT_NULL_FATAL(hsaqm_sim_sysfs_root(sim));
	snprintf(root, sizeof(root), "%s", hsaqm_sim_sysfs_root(sim));
	CU_ASSERT_EQUAL(access(root, F_OK), 0);
	CU_ASSERT_PTR_EQUAL(hsaqm_sim_sysfs_root(sim), hsaqm_sim_sysfs_root(sim)); /* made once */
	hsaqm_sim_destroy(sim);
	CU_ASSERT_EQUAL(access(root, F_OK), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_PTR_NULL(hsaqm_sim_sysfs_root(NULL));
	CU_ASSERT_PTR_NULL(hsaqm_sim_kfd_transport(NULL));
}

/* ==== one KFD process per OS process, and the kfd/proc view ============================ */

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

/*
 * A second open in the same OS process reaches the same KFD process (kfd_create_process
 * finds it by mm): its queues, its runtime state and its debugger session are the first
 * open's; the process lives until its last handle closes.
 */
static void test_second_open_in_a_process_is_the_same_kfd_process(void)
{
	struct env e;
	struct hsaqm_kfd *k2 = NULL;
	struct mq q;
	uint32_t ids[1];

	CU_ASSERT_EQUAL_FATAL(env_open(&e), 0);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(e.tp, &k2), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(k2, 0, false), -EBUSY); /* already enabled */
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 64, 7), 0);
	/* The queue made on the first handle is the second's too: it updates and suspends it. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(k2, q.id, (uint64_t)(uintptr_t)q.ring, 64 * 64, 100,
					       9), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(k2, 0, NULL), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), -EALREADY); /* one session */
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(k2, ids, 1, 0, 0), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(e.kfd), 0);
	/* Closing one handle is not process exit: the queue stays, reachable from the other. */
	CU_ASSERT_EQUAL(hsaqm_kfd_close(k2), 0);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, q.id), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 64, 7), 0);
	/* The last close is: the queue goes with the process. */
	CU_ASSERT_EQUAL(hsaqm_kfd_close(e.kfd), 0);
	e.kfd = NULL;
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 0);
	/* A new open afterwards is a new process: the runtime is disabled again. */
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(e.tp, &e.kfd), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	env_close(&e);
}

/*
 * The kfd/proc tree lists the KFD process under its OS pid, with its pasid and a queues
 * folder even before it has a queue, and each queue (gpuid, size, type) on the GPU it is
 * on; a queue destroyed leaves the tree at the next sync, the process at its last close.
 * The listing comes from the face under its lock (sim_kfd_face_procs).
 */
static void test_kfd_proc_view_lists_the_process_under_its_pid(void)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_VIRTUAL, .num_devices = 2 };
	struct env e;
	struct hsaqm_kfd *k2 = NULL;
	struct mq q0, q1;
	char path[PATH_MAX], buf[64], want[32];
	const char *root;
	struct sim_proc_queue *v = NULL;
	unsigned int n = 0;

	CU_ASSERT_EQUAL_FATAL(env_open_cfg(&e, &cfg), 0);
	root = hsaqm_sim_sysfs_root(e.sim);
	CU_ASSERT_EQUAL_FATAL(sim_proc_view_sync(e.sim), 0);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/pasid", root, (int)getpid());
	CU_ASSERT_EQUAL_FATAL(read_small(path, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(strtoul(buf, NULL, 10), 0x8001);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/queues", root, (int)getpid());
	CU_ASSERT_EQUAL(access(path, F_OK), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q0, 64, 7), 0);
	e.gpu_id = sim_kfd_gpu_id(e.sim, 1);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(e.tp, &k2), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q1, 256, 7), 0);
	CU_ASSERT_EQUAL(q1.id, q0.id + 1); /* one process: one queue id space */
	CU_ASSERT_EQUAL_FATAL(sim_kfd_face_procs(e.sim, &v, &n), 0);
	CU_ASSERT_EQUAL(n, 3); /* the process, two queues */
	free(v);
	CU_ASSERT_EQUAL_FATAL(sim_proc_view_sync(e.sim), 0);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/queues/%u/gpuid", root,
		 (int)getpid(), q1.id);
	CU_ASSERT_EQUAL(read_small(path, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%u", sim_kfd_gpu_id(e.sim, 1));
	CU_ASSERT_STRING_EQUAL(buf, want);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d/queues/%u/size", root,
		 (int)getpid(), q1.id);
	CU_ASSERT_EQUAL(read_small(path, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "16384");
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(k2, q1.id), 0);
	CU_ASSERT_EQUAL_FATAL(sim_proc_view_sync(e.sim), 0);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_close(k2), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_close(e.kfd), 0);
	e.kfd = NULL;
	CU_ASSERT_EQUAL_FATAL(sim_proc_view_sync(e.sim), 0);
	snprintf(path, sizeof(path), "%s/class/kfd/kfd/proc/%d", root, (int)getpid());
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	env_close(&e);
}

static const struct t_case kfd_cases[] = {
	T_CASE(test_second_open_in_a_process_is_the_same_kfd_process),
	T_CASE(test_kfd_proc_view_lists_the_process_under_its_pid),
	T_CASE(test_get_version_reports_the_configured_minor_17_by_default),
	T_CASE(test_kfd_1_11_refuses_the_debugger_as_an_unknown_ioctl),
	T_CASE(test_ioctls_the_model_does_not_have_get_the_kernels_answers),
	T_CASE(test_create_queue_validates_like_amdkfd),
	T_CASE(test_queue_ids_are_the_lowest_free_and_doorbells_encode_the_gpu),
	T_CASE(test_unknown_queue_is_einval_for_destroy_and_efault_for_the_rest),
	T_CASE(test_queue_runs_packets_rung_through_the_mapped_doorbell),
	T_CASE(test_update_queue_priority_reaches_the_hardware_queue),
	T_CASE(test_percentage_zero_deactivates_and_unmaps_every_queue_of_the_device),
	T_CASE(test_set_cu_mask_restricts_the_queue_and_checks_its_count),
	T_CASE(test_wave_state_is_einval_while_active_or_without_cwsr),
	T_CASE(test_sched_policy_1_refuses_oversubscription_with_eperm),
	T_CASE(test_runtime_enable_is_once_and_only_before_queues),
	T_CASE(test_dbg_trap_needs_enable_and_one_debugger_per_process),
	T_CASE(test_suspend_without_runtime_enable_is_eperm),
	T_CASE(test_dbg_trap_with_sched_policy_2_is_einval),
	T_CASE(test_new_queue_is_invalid_for_suspend_until_ec_queue_new_is_cleared),
	T_CASE(test_suspend_resume_per_entry_bits_and_count),
	T_CASE(test_suspend_saves_waves_and_resume_finishes_every_workgroup_once),
	T_CASE(test_virtual_destroy_of_a_suspended_queue_fails_eintr_and_keeps_it),
	T_CASE(test_dbg_disable_and_close_resume_suspended_queues),
	T_CASE(test_runtime_enable_under_a_debugger_waits_for_its_runtime_event),
	T_CASE(test_queue_error_becomes_a_debugger_queue_event),
	T_CASE(test_snapshots_fill_entries_from_the_model),
	T_CASE(test_topology_from_the_generated_sysfs_equals_the_profile),
	T_CASE(test_module_parameters_follow_the_model_config),
	T_CASE(test_sysfs_tree_is_removed_at_model_destroy),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "sim-kfd", NULL, NULL, kfd_cases },
		T_SUITES_END,
	};
	return t_run("test-sim-kfd", suites);
}

#else /* T_KFD_THREADED */

/* ==== real time, a second thread blocked in the KFD ======================================== */

struct destroyer {
	struct env *e;
	uint32_t queue_id;
	int result;
	uint32_t done;
};

static void *destroy_thread(void *arg)
{
	struct destroyer *d = arg;

	d->result = hsaqm_kfd_queue_destroy(d->e->kfd, d->queue_id);
	/* Release: the result before the flag the main thread polls. */
	hsaqm_store_release(&d->done, 1u);
	return NULL;
}

static int real_env(struct env *e)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_REAL };

	return env_open_cfg(e, &cfg);
}

static void test_destroy_of_a_suspended_queue_waits_until_it_is_resumed(void)
{
	struct env e;
	struct mq q;
	static struct rec r;
	struct destroyer d = { 0 };
	pthread_t th;
	uint32_t ids[1];

	CU_ASSERT_EQUAL_FATAL(real_env(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(mq_map(&e, &q), 0);
	clear_new(&e);
	uint64_t k = kernel(e.sim, 500 * T_MS, 8, &r); /* far longer than any wake-up */
	struct sim_signal *cs = sim_signal_create(e.sim, 1);
	union hsaqm_aql_packet p = t_dispatch(k, 4, t_handle(cs), false);

	CU_ASSERT_NOT_EQUAL(mq_submit(&e, &q, &p), UINT64_MAX);
	t_sleep_ms(2);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	d.e = &e;
	d.queue_id = q.id;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, destroy_thread, &d), 0);
	t_sleep_ms(100);
	/* Still blocked in the KFD, and the queue is still there (acquire: pairs with done). */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&d.done), 0);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 1);
	/* A second destroy of the same queue meanwhile: the first one owns it. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(e.kfd, q.id), -EBUSY);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 1);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(d.result, 0);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 0);
	/* Destroyed with its work: the kernel never completes. */
	CU_ASSERT_EQUAL(sim_signal_load(cs), 1);
	sim_signal_destroy(e.sim, cs);
	env_close(&e);
}

static void test_debugger_detach_releases_a_blocked_destroy(void)
{
	struct env e;
	struct mq q;
	struct destroyer d = { 0 };
	pthread_t th;
	uint32_t ids[1];

	CU_ASSERT_EQUAL_FATAL(real_env(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 7), 0);
	clear_new(&e);
	ids[0] = q.id;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
	d.e = &e;
	d.queue_id = q.id;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, destroy_thread, &d), 0);
	t_sleep_ms(50);
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&d.done), 0); /* pairs with destroy_thread's release */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(e.kfd), 0); /* resumes everything */
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(d.result, 0);
	CU_ASSERT_EQUAL(sim_kfd_face_queue_count(e.sim), 0);
	env_close(&e);
}

struct ringer {
	struct env *e;
	struct mq *q;
	uint64_t kobj;
	struct sim_signal *cs;
	uint32_t n;
};

static void *ring_thread(void *arg)
{
	struct ringer *r = arg;

	for (uint32_t i = 0; i < r->n; i++) {
		union hsaqm_aql_packet p = t_dispatch(r->kobj, 2, t_handle(r->cs), false);

		/* Acquire: the read index the engine released; space before the next publish. */
		while (hsaqm_load_acquire(r->q->wr) - hsaqm_load_acquire(r->q->rd) >= r->q->slots)
			sched_yield();
		mq_submit(r->e, r->q, &p);
	}
	return NULL;
}

static void test_doorbells_from_one_thread_while_another_suspends_and_resumes(void)
{
	struct env e;
	struct mq q;
	static struct rec r;
	struct ringer rg;
	pthread_t th;
	uint32_t ids[1];

	CU_ASSERT_EQUAL_FATAL(real_env(&e), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(e.kfd, 0, false), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(e.kfd, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mq_create(&e, &q, 16, 7), 0);
	CU_ASSERT_EQUAL_FATAL(mq_map(&e, &q), 0);
	clear_new(&e);
	rg.e = &e;
	rg.q = &q;
	rg.kobj = kernel(e.sim, 200 * T_US, 4, &r);
	rg.n = 100;
	rg.cs = sim_signal_create(e.sim, rg.n);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, ring_thread, &rg), 0);
	ids[0] = q.id;
	for (int i = 0; i < 10; i++) {
		CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(e.kfd, ids, 1, 0, 0), 1);
		t_sleep_ms(1);
		CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(e.kfd, ids, 1), 1);
		t_sleep_ms(1);
	}
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(sim_signal_wait(e.sim, rg.cs, SIM_COND_EQ, 0, 10 * T_S), 0);
	/* Acquire: pairs with rec_cb's add on the engine thread, made before rg.cs reached 0. */
	CU_ASSERT_EQUAL(hsaqm_load_acquire(&r.count), 2 * rg.n);
	sim_signal_destroy(e.sim, rg.cs);
	env_close(&e);
}

static const struct t_case threaded_cases[] = {
	T_CASE(test_destroy_of_a_suspended_queue_waits_until_it_is_resumed),
	T_CASE(test_debugger_detach_releases_a_blocked_destroy),
	T_CASE(test_doorbells_from_one_thread_while_another_suspends_and_resumes),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "sim-kfd-threaded", NULL, NULL, threaded_cases },
		T_SUITES_END,
	};
	return t_run("test-sim-kfd-threaded", suites);
}

#endif /* T_KFD_THREADED */
