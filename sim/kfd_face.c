// SPDX-License-Identifier: MIT
/*
 * kfd_face.c - the model's KFD: a kfd-ioctl transport (hsaqm-kfd/kfd_transport.h) that answers
 * the ioctls hsaqm issues with the real uapi structs and the errno amdkfd gives, and drives
 * the hardware model only through the sim_hwq_* calls of sim_internal.h.
 *
 * One KFD process (amdkfd's struct kfd_process: its queue ids, doorbells, runtime-enable state
 * and debugger session) per OS process, as the KFD keys its processes by mm: a second open()
 * in the same process gets the same one (kfd_process.c kfd_create_process, "A prior open of
 * /dev/kfd could have already created the process"), with a reference per open; the process
 * ends when its last handle closes (the KFD: when the process exits; the model sees no exit).
 * The rules are amdkfd's, read in (facts only):
 *   kfd_chardev.c                 ioctl dispatch and argument copy, create/update/destroy,
 *                                 CU mask, wave state, RUNTIME_ENABLE, DBG_TRAP checks
 *   kfd_process_queue_manager.c   queue ids, EFAULT for an unknown queue, queue snapshot,
 *                                 sched_policy=1 oversubscription
 *   kfd_device_queue_manager.c    suspend/resume with per-entry bits, destroy waiting for
 *                                 resume, wave state only for an inactive queue
 *   kfd_debug.c                   enable/disable, events, query, device snapshot
 * docs/sim.md ("The KFD face") lists every errno with its source.
 *
 * Locking: one mutex per model (the KFD's p->mutex and dqm lock together) held for a whole
 * ioctl, released only by the two waits the KFD also sleeps in (destroy of a suspended queue,
 * RUNTIME_ENABLE while a debugger attaches). It comes after the HSA face's lock and before the
 * core's (docs/sim.md, "Locks and callbacks"); in VIRTUAL time the async handlers a control
 * call's loop finds run after the ioctl let go of it (kfd_unlock). doorbell_written() takes
 * no lock: it runs on every doorbell, possibly from a model callback, and finds its queue
 * through atomically published pointers; whoever retires a queue or a process unpublishes it
 * and waits until no doorbell_written() is in flight (db_users) before freeing.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hsaqm-common/barrier.h"
#include "hsaqm-kfd/kfd_transport.h"
#include "hsaqm-kfd/kfd_uapi.h"
#include "kfd_face_state_internal.h"
#include "shared_internal.h"
#include "hsaqm-common/log.h"

/* ---- helpers ----------------------------------------------------------------------------- */

/*
 * The face's lock, taken through the core (sim_face_lock) so that a VIRTUAL loop run under it
 * leaves the async handlers it finds for after the unlock: a handler may take the HSA face's
 * lock, which is taken before this one.
 */
void kfd_face_lock(struct kfd_face *f)
{
	sim_face_lock(&f->lock);
}

void kfd_face_unlock(struct kfd_face *f)
{
	sim_face_unlock(f->sim, &f->lock);
}

static unsigned int ndev(const struct kfd_face *f)
{
	return sim_device_count(f->sim);
}

static struct kfd_queue *find_queue(struct kfd_proc *p, uint32_t id)
{
	for (struct kfd_queue *q = p->queues; q; q = q->next)
		if (q->id == id)
			return q;
	return NULL;
}

/* Wait until no doorbell_written() can still see a pointer just unpublished. */
static void db_quiesce(struct kfd_face *f)
{
	/* Full barrier: the unpublishing store before the read of db_users (Dekker with
	 * doorbell_written's increment, barrier, pointer load). */
	hsaqm_smp_mb();
	while (hsaqm_load_acquire(&f->db_users))
		sched_yield();
}

/* One byte to the debugger's file per reported event (kfd_debug.c kernel_write). */
static void dbg_poke(struct kfd_proc *p)
{
	static const char dot = '.';

	if (p->dbg_fd >= 0) {
		ssize_t r = write(p->dbg_fd, &dot, 1);

		(void)r; /* a full non-blocking pipe already tells the debugger to look */
	}
}

/* kfd_dbg_ev_raise(): record @mask on the device, the process or the queue; tell the debugger. */
static void raise_ev(struct kfd_proc *p, uint64_t mask, int dev, struct kfd_queue *q)
{
	if (!p->dbg_enabled)
		return;
	if (mask & HSAQM_KFD_EC_MASK_DEVICE) {
		if (dev >= 0)
			p->pdd[dev].exception_status |= mask & HSAQM_KFD_EC_MASK_DEVICE;
	} else if (mask & HSAQM_KFD_EC_MASK_PROCESS) {
		p->exception_status |= mask & HSAQM_KFD_EC_MASK_PROCESS;
	} else if (q) {
		q->exception_status |= mask;
	}
	if (p->exception_enable_mask & mask)
		dbg_poke(p);
}

/* The exception code the CP reports for the HSA status the model's queue error carries. */
static int ec_of_status(int hsa_status)
{
	switch (hsa_status) {
	case 0x100D: return HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_DIM_INVALID;
	case 0x1003: return HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID;
	case 0x1010: return HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_CODE_INVALID;
	case 0x1001: return HSAQM_KFD_EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID;
	case 0x1006: return HSAQM_KFD_EC_QUEUE_WAVE_MEMORY_VIOLATION;
	default: return HSAQM_KFD_EC_QUEUE_PACKET_UNSUPPORTED;
	}
}

/* Engine thread, no model lock: only an atomic. The face folds it in under its lock. */
static void queue_error_cb(void *ctx, struct sim_hwq *hwq, int hsa_status)
{
	struct kfd_queue *q = ctx;

	(void)hwq;
	/* The face reads it with an exchange under its lock: no other data to order. */
	hsaqm_fetch_or(&q->hw_exception, HSAQM_KFD_EC_MASK(ec_of_status(hsa_status)));
	/* The front end reports the error to its runtime as the CP would (its own ring). */
	if (q->front_error_fn)
		q->front_error_fn(q->front_error_ctx, hwq, hsa_status);
}

/* Hardware exceptions become debugger events (kfd_set_dbg_ev_from_interrupt). */
static void fold_hw_exceptions(struct kfd_proc *p)
{
	for (struct kfd_queue *q = p->queues; q; q = q->next) {
		/* Pairs with the callback's fetch_or: each bit is taken exactly once. */
		uint64_t bits = hsaqm_exchange(&q->hw_exception, 0ull);

		if (bits)
			raise_ev(p, bits, (int)q->dev, q);
	}
}

/*
 * Sleep on the face's condition (lock held). REAL: until woken. VIRTUAL: until @deadline
 * (CLOCK_MONOTONIC), then -ETIMEDOUT. Callers re-check their condition either way.
 */
int kfd_face_wait(struct kfd_face *f, const struct timespec *deadline)
{
	if (!f->virtual_time) {
		pthread_cond_wait(&f->cond, &f->lock);
		/* What the ioctl does next is done now, not when it was made (a DESTROY_QUEUE
		 * that waited for a resume). */
		sim_shared_call_restamp(f->sim);
		return 0;
	}
	return pthread_cond_timedwait(&f->cond, &f->lock, deadline) == ETIMEDOUT ? -ETIMEDOUT : 0;
}

static struct timespec virtual_deadline(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += (long)KFD_VIRTUAL_WAIT_NS;
	while (ts.tv_nsec >= 1000000000L) {
		ts.tv_nsec -= 1000000000L;
		ts.tv_sec++;
	}
	return ts;
}

/* ---- suspend and resume (kfd_device_queue_manager.c) ---------------------------------- */

static int find_entry(const uint32_t *ids, uint32_t n, uint32_t queue_id)
{
	/* Entries match with their INVALID bit ignored (q_array_get_index). */
	for (uint32_t i = 0; i < n; i++)
		if ((ids[i] & ~HSAQM_KFD_DBG_QUEUE_INVALID_MASK) == queue_id)
			return (int)i;
	return -1;
}

static int suspend_queues(struct kfd_face *f, struct kfd_proc *p, uint32_t n, uint32_t grace,
			  uint64_t clear, uint32_t *user_ids)
{
	struct sim_hwq *hw[KFD_MAX_QUEUES];
	uint32_t *ids;
	int total = 0;

	if (n && !user_ids)
		return -EFAULT;
	ids = calloc(n ? n : 1, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	if (n)
		memcpy(ids, user_ids, (size_t)n * sizeof(*ids));
	for (uint32_t i = 0; i < n; i++)
		ids[i] |= HSAQM_KFD_DBG_QUEUE_INVALID_MASK;
	/* USE_DEFAULT_GRACE_PERIOD: the device's default (profile: hws_default_grace_units). */
	if (grace == HSAQM_KFD_GRACE_PERIOD_DEFAULT)
		grace = SIM_HWQ_GRACE_DEFAULT;

	for (unsigned int d = 0; d < ndev(f); d++) {
		uint32_t nhw = 0;
		int r;

		for (struct kfd_queue *q = p->queues; q; q = q->next) {
			int idx = q->dev == d ? find_entry(ids, n, q->id) : -1;

			if (idx < 0)
				continue;
			/* suspend_single_queue(): a new or dying queue is skipped (-EBUSY). */
			if (!q->suspended &&
			    ((q->exception_status & HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW)) ||
			     q->being_destroyed))
				continue;
			q->suspended = true;
			ids[idx] &= ~HSAQM_KFD_DBG_QUEUE_INVALID_MASK;
			/* Already suspended ones count and ride the runlist update again. A front
			 * end's SDMA queue has no hardware queue in the model: it only counts. */
			if (q->hwq)
				hw[nhw++] = q->hwq;
			else
				total++;
		}
		if (!nhw)
			continue;
		r = sim_hwq_suspend(hw, nhw, grace);
		if (!r)
			total += (int)nhw;
		else
			hsaqm_log_err("sim KFD: suspend on device %u failed: %d", d, r);
		for (struct kfd_queue *q = p->queues; q; q = q->next) {
			int idx = q->dev == d ? find_entry(ids, n, q->id) : -1;

			if (idx < 0)
				continue;
			/* Every listed queue of the device, the skipped new ones too. */
			if (r)
				ids[idx] |= HSAQM_KFD_DBG_QUEUE_ERROR_MASK;
			else if (clear)
				q->exception_status &= ~clear;
		}
	}
	if (n)
		memcpy(user_ids, ids, (size_t)n * sizeof(*ids));
	free(ids);
	return total;
}

/* @user_ids NULL: every queue of the process (debugger detach, process exit). */
static int resume_queues(struct kfd_face *f, struct kfd_proc *p, uint32_t n, uint32_t *user_ids)
{
	struct sim_hwq *hw[KFD_MAX_QUEUES];
	uint32_t *ids = NULL;
	int total = 0;

	if (user_ids) {
		ids = calloc(n ? n : 1, sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		if (n)
			memcpy(ids, user_ids, (size_t)n * sizeof(*ids));
		for (uint32_t i = 0; i < n; i++)
			ids[i] |= HSAQM_KFD_DBG_QUEUE_INVALID_MASK;
	}
	for (unsigned int d = 0; d < ndev(f); d++) {
		uint32_t nhw = 0, handled = 0;
		int r = 0;

		for (struct kfd_queue *q = p->queues; q; q = q->next) {
			int idx = ids && q->dev == d ? find_entry(ids, n, q->id) : -1;

			if (q->dev != d || (ids && idx < 0))
				continue;
			if (q->suspended) {
				q->suspended = false;
				if (q->hwq)
					hw[nhw++] = q->hwq;
			}
			if (ids)
				ids[idx] &= ~HSAQM_KFD_DBG_QUEUE_INVALID_MASK;
			handled++;
		}
		if (!handled)
			continue;
		/*
		 * The KFD refreshes the runlist even when every listed queue was running; the
		 * model only has a call for queues that were suspended.
		 */
		if (nhw)
			r = sim_hwq_resume(hw, nhw);
		if (r) {
			hsaqm_log_err("sim KFD: resume on device %u failed: %d", d, r);
			for (struct kfd_queue *q = p->queues; ids && q; q = q->next) {
				int idx = q->dev == d ? find_entry(ids, n, q->id) : -1;

				if (idx >= 0)
					ids[idx] |= HSAQM_KFD_DBG_QUEUE_ERROR_MASK;
			}
		} else {
			total += (int)handled;
		}
	}
	/* wake_up_all(&dqm->destroy_wait): only destroys wait for a resume. */
	if (f->destroy_waiters)
		pthread_cond_broadcast(&f->cond);
	if (ids) {
		if (n)
			memcpy(user_ids, ids, (size_t)n * sizeof(*ids));
		free(ids);
	}
	return total;
}

/* ---- the debugger session (kfd_debug.c) -------------------------------------------------- */

static void dbg_clean_exceptions(struct kfd_proc *p)
{
	for (struct kfd_queue *q = p->queues; q; q = q->next) {
		q->exception_status = 0;
		/* Drop pending hardware exceptions too (pairs with the callback's fetch_or). */
		hsaqm_exchange(&q->hw_exception, 0ull);
	}
	for (unsigned int d = 0; d < HSAQM_SIM_MAX_DEVICES; d++)
		p->pdd[d].exception_status = 0;
	p->exception_status = 0;
}

/* kfd_dbg_trap_deactivate(): resume everything, drop watch points, flags, launch mode. */
static void dbg_deactivate(struct kfd_face *f, struct kfd_proc *p)
{
	resume_queues(f, p, 0, NULL);
	for (unsigned int d = 0; d < HSAQM_SIM_MAX_DEVICES; d++)
		p->pdd[d].watch_ids = 0;
	p->dbg_flags = 0;
}

static int dbg_disable(struct kfd_face *f, struct kfd_proc *p)
{
	if (!p->dbg_enabled)
		return 0;
	if (p->runtime_state == HSAQM_KFD_RUNTIME_STATE_ENABLED)
		dbg_deactivate(f, p);
	else if (p->runtime_state != HSAQM_KFD_RUNTIME_STATE_DISABLED)
		p->runtime_state = HSAQM_KFD_RUNTIME_STATE_ENABLED;
	if (p->dbg_fd >= 0)
		close(p->dbg_fd);
	p->dbg_fd = -1;
	p->dbg_enabled = false;
	/* A destroy waiting for the resume waits no more once the debugger is gone. */
	if (f->destroy_waiters)
		pthread_cond_broadcast(&f->cond);
	dbg_clean_exceptions(p);
	return 0;
}

static int dbg_enable(struct kfd_proc *p, struct hsaqm_kfd_dbg_trap_enable_args *a)
{
	struct hsaqm_kfd_runtime_info info;
	uint32_t copy;
	int fd;

	if (p->dbg_enabled)
		return -EALREADY;
	copy = a->rinfo_size < sizeof(info) ? a->rinfo_size : (uint32_t)sizeof(info);
	/* fget(): the KFD keeps its own reference to the file; a bad descriptor is EBADF. */
	fd = fcntl((int)a->dbg_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -EBADF;
	p->dbg_fd = fd;
	p->dbg_enabled = true;
	a->rinfo_size = sizeof(info);
	memset(&info, 0, sizeof(info));
	info.r_debug = p->r_debug;
	info.runtime_state = p->runtime_state;
	info.ttmp_setup = p->ttmp_setup;
	if (copy && !a->rinfo_ptr) {
		/* The KFD deactivates but leaves the session enabled and reports the fault. */
		return -EFAULT;
	}
	if (copy)
		memcpy((void *)(uintptr_t)a->rinfo_ptr, &info, copy);
	p->exception_enable_mask = a->exception_mask;
	return 0;
}

static int query_debug_event(struct kfd_face *f, struct kfd_proc *p,
			     struct hsaqm_kfd_dbg_trap_query_debug_event_args *a)
{
	uint64_t clear = a->exception_mask;

	a->exception_mask = 0;
	a->queue_id = 0;
	a->gpu_id = 0;
	for (struct kfd_queue *q = p->queues; q; q = q->next) {
		if (!(p->exception_enable_mask & q->exception_status))
			continue;
		a->exception_mask = q->exception_status;
		a->queue_id = q->id;
		a->gpu_id = sim_kfd_gpu_id(f->sim, q->dev);
		q->exception_status &= ~clear;
		return 0;
	}
	for (unsigned int d = 0; d < ndev(f); d++) {
		if (!(p->exception_enable_mask & p->pdd[d].exception_status))
			continue;
		a->exception_mask = p->pdd[d].exception_status;
		a->gpu_id = sim_kfd_gpu_id(f->sim, d);
		p->pdd[d].exception_status &= ~clear;
		return 0;
	}
	if (p->exception_enable_mask & p->exception_status) {
		a->exception_mask = p->exception_status;
		p->exception_status &= ~clear;
		return 0;
	}
	return -EAGAIN;
}

static int queue_snapshot(struct kfd_face *f, struct kfd_proc *p,
			  struct hsaqm_kfd_dbg_trap_queue_snapshot_args *a)
{
	uint32_t stride = a->entry_size, room = a->num_queues, count = 0;
	char *buf = (char *)(uintptr_t)a->snapshot_buf_ptr;

	a->num_queues = 0;
	if (!stride)
		return -EINVAL;
	a->entry_size = stride < sizeof(struct hsaqm_kfd_queue_snapshot_entry) ?
				stride : (uint32_t)sizeof(struct hsaqm_kfd_queue_snapshot_entry);
	for (struct kfd_queue *q = p->queues; q; q = q->next) {
		if (count < room) {
			struct hsaqm_kfd_queue_snapshot_entry e = {
				.exception_status = q->exception_status,
				.ring_base_address = q->ring_base,
				.write_pointer_address = q->wptr,
				.read_pointer_address = q->rptr,
				.ctx_save_restore_address = q->ctx_save_addr,
				.queue_id = q->id,
				.gpu_id = sim_kfd_gpu_id(f->sim, q->dev),
				.ring_size = q->ring_size,
				.queue_type = q->type,
				.ctx_save_restore_area_size = q->ctx_save_size,
			};

			/* Reported before the clear, as set_queue_snapshot_entry() does. */
			q->exception_status &= ~a->exception_mask;
			if (!buf) {
				a->num_queues = count;
				return -EFAULT;
			}
			memcpy(buf, &e, a->entry_size);
			buf += stride;
		}
		count++;
		a->num_queues = count;
	}
	return 0;
}

/* A property of the profile's KFD properties file (0 when it does not print it). */
static uint64_t profile_prop(const struct sim_profile *prof, const char *name)
{
	size_t len = strlen(name);

	for (const char *s = prof->properties_text; *s;) {
		const char *eol = strchr(s, '\n');

		if (!strncmp(s, name, len) && s[len] == ' ')
			return strtoull(s + len + 1, NULL, 10);
		if (!eol)
			break;
		s = eol + 1;
	}
	return 0;
}

static int device_snapshot(struct kfd_face *f, struct kfd_proc *p,
			   struct hsaqm_kfd_dbg_trap_device_snapshot_args *a)
{
	/* The entry grew capability2 + pad after the first debugger kernels (see docs/sim.md). */
	uint32_t kernel_entry = f->minor >= 18 ? sizeof(struct hsaqm_kfd_dbg_device_info_entry) :
						 HSAQM_KFD_DBG_DEVICE_INFO_ENTRY_SIZE_1_13;
	uint32_t stride = a->entry_size, n = ndev(f);
	uint32_t todo = a->num_devices < n ? a->num_devices : n;
	char *buf = (char *)(uintptr_t)a->snapshot_buf_ptr;

	if (!buf)
		return -EINVAL;
	a->num_devices = n;
	a->entry_size = stride < kernel_entry ? stride : kernel_entry;
	for (uint32_t d = 0; d < todo; d++) {
		const struct sim_profile *prof = sim_device_profile(f->sim, d);
		struct hsaqm_kfd_dbg_device_info_entry e = {
			.exception_status = p->pdd[d].exception_status,
			.gpu_id = sim_kfd_gpu_id(f->sim, d),
			.location_id = (uint32_t)profile_prop(prof, "location_id"),
			.vendor_id = prof->vendor_id,
			.device_id = prof->device_id,
			.fw_version = prof->fw_version,
			.gfx_target_version = prof->gfx_target_version,
			.simd_count = prof->cu_count * prof->simd_per_cu,
			.max_waves_per_simd = prof->max_waves_per_simd,
			.array_count = (uint32_t)profile_prop(prof, "array_count"),
			.simd_arrays_per_engine =
				(uint32_t)profile_prop(prof, "simd_arrays_per_engine"),
			.num_xcc = prof->num_xcc,
			.capability = (uint32_t)prof->capability,
			.debug_prop = prof->debug_prop,
			.capability2 = (uint32_t)profile_prop(prof, "capability2"),
		};

		if (a->exception_mask)
			p->pdd[d].exception_status &= ~a->exception_mask;
		memcpy(buf, &e, a->entry_size);
		buf += stride;
	}
	return 0;
}

static int query_exception_info(struct kfd_face *f, struct kfd_proc *p,
				struct hsaqm_kfd_dbg_trap_query_exception_info_args *a)
{
	uint32_t ec = a->exception_code, actual = 0;
	uint64_t *status;

	if (!a->info_ptr)
		return -EINVAL;
	if (ec == 0 || ec >= 64)
		return -EINVAL;
	if (HSAQM_KFD_EC_MASK(ec) & HSAQM_KFD_EC_MASK_QUEUE) {
		struct kfd_queue *q = find_queue(p, a->source_id);

		if (!q)
			return -EINVAL;
		status = &q->exception_status;
	} else if (HSAQM_KFD_EC_MASK(ec) & HSAQM_KFD_EC_MASK_DEVICE) {
		int d = sim_kfd_gpu_dev(f->sim, a->source_id);

		if (d < 0)
			return -EINVAL;
		status = &p->pdd[d].exception_status;
	} else if (HSAQM_KFD_EC_MASK(ec) & HSAQM_KFD_EC_MASK_PROCESS) {
		status = &p->exception_status;
	} else {
		return -EINVAL;
	}
	if (!(*status & HSAQM_KFD_EC_MASK(ec)))
		return -ENODATA;
	if (ec == HSAQM_KFD_EC_PROCESS_RUNTIME) {
		struct hsaqm_kfd_runtime_info info = {
			.r_debug = p->r_debug, .runtime_state = p->runtime_state,
			.ttmp_setup = p->ttmp_setup,
		};
		uint32_t copy = a->info_size < sizeof(info) ? a->info_size : (uint32_t)sizeof(info);

		memcpy((void *)(uintptr_t)a->info_ptr, &info, copy);
		actual = sizeof(info);
	}
	a->info_size = actual;
	if (a->clear_exception)
		*status &= ~HSAQM_KFD_EC_MASK(ec);
	return 0;
}

static int set_flags(struct kfd_face *f, struct kfd_proc *p, uint32_t *flags)
{
	uint32_t prev = p->dbg_flags;

	for (unsigned int d = 0; d < ndev(f); d++) {
		uint64_t cap = sim_device_profile(f->sim, d)->capability;

		if (((*flags & KFD_DBG_FLAG_SINGLE_MEM_OP) &&
		     !(cap & HSAQM_KFD_CAP_TRAP_DEBUG_PRECISE_MEMORY_OPERATIONS_SUPPORTED)) ||
		    ((*flags & KFD_DBG_FLAG_SINGLE_ALU_OP) &&
		     !(cap & HSAQM_KFD_CAP_TRAP_DEBUG_PRECISE_ALU_OPERATIONS_SUPPORTED)) ||
		    (*flags & KFD_DBG_FLAG_LDS_OUT_OF_ADDR_RANGE)) {
			*flags = prev;
			return -EACCES;
		}
	}
	p->dbg_flags = *flags;
	*flags = prev;
	return 0;
}

static int sema_down(struct kfd_face *f, struct kfd_proc *p)
{
	struct timespec deadline = virtual_deadline();

	while (!p->runtime_sema) {
		if (kfd_face_wait(f, &deadline) == -ETIMEDOUT && !p->runtime_sema)
			return -EINTR;
	}
	p->runtime_sema--;
	return 0;
}

static int dbg_trap(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_dbg_trap_args *a = arg;
	uint32_t op = a->op;
	int d = -1;

	if (f->sched_policy == 2)
		return -EINVAL; /* "Debugging does not support sched_policy 2" */
	/* The model holds no other process: any pid but the opener's is not a KFD process. */
	if ((pid_t)a->pid != p->owner)
		return -ESRCH;
	if (op != HSAQM_KFD_DBG_TRAP_ENABLE && !p->dbg_enabled)
		return -EINVAL;
	if (p->runtime_state != HSAQM_KFD_RUNTIME_STATE_ENABLED &&
	    (op == HSAQM_KFD_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE ||
	     op == HSAQM_KFD_DBG_TRAP_SET_WAVE_LAUNCH_MODE ||
	     op == HSAQM_KFD_DBG_TRAP_SUSPEND_QUEUES || op == HSAQM_KFD_DBG_TRAP_RESUME_QUEUES ||
	     op == HSAQM_KFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH ||
	     op == HSAQM_KFD_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH ||
	     op == HSAQM_KFD_DBG_TRAP_SET_FLAGS))
		return -EPERM;
	if (op == HSAQM_KFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH ||
	    op == HSAQM_KFD_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH) {
		d = sim_kfd_gpu_dev(f->sim, op == HSAQM_KFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH ?
						    a->set_node_address_watch.gpu_id :
						    a->clear_node_address_watch.gpu_id);
		if (d < 0)
			return -ENODEV;
	}
	fold_hw_exceptions(p);

	switch (op) {
	case HSAQM_KFD_DBG_TRAP_ENABLE:
		return dbg_enable(p, &a->enable);
	case HSAQM_KFD_DBG_TRAP_DISABLE:
		return dbg_disable(f, p);
	case HSAQM_KFD_DBG_TRAP_SEND_RUNTIME_EVENT: {
		uint64_t reason = a->send_runtime_event.exception_mask;

		if (reason & HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_DEVICE_MEMORY_VIOLATION)) {
			if (sim_kfd_gpu_dev(f->sim, a->send_runtime_event.gpu_id) < 0)
				return -ENODEV;
			reason &= ~HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_DEVICE_MEMORY_VIOLATION);
		}
		if (reason & HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_PROCESS_RUNTIME)) {
			/* up(&p->runtime_enable_sema): a blocked RUNTIME_ENABLE goes on. */
			p->runtime_sema++;
			pthread_cond_broadcast(&f->cond);
			reason &= ~HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_PROCESS_RUNTIME);
		}
		/* The runtime's own exception event is not modelled; the queue must exist. */
		if (reason && !find_queue(p, a->send_runtime_event.queue_id))
			return -EINVAL;
		return 0;
	}
	case HSAQM_KFD_DBG_TRAP_SET_EXCEPTIONS_ENABLED: {
		uint64_t found = p->exception_status;

		for (struct kfd_queue *q = p->queues; q; q = q->next)
			found |= q->exception_status;
		for (unsigned int i = 0; i < ndev(f); i++)
			found |= p->pdd[i].exception_status;
		if (a->set_exceptions_enabled.exception_mask & found)
			dbg_poke(p);
		p->exception_enable_mask = a->set_exceptions_enabled.exception_mask;
		return 0;
	}
	case HSAQM_KFD_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE:
		/* Trap overrides are programmed per ASIC; the model has no shader traps. */
		return -EOPNOTSUPP;
	case HSAQM_KFD_DBG_TRAP_SET_WAVE_LAUNCH_MODE: {
		uint32_t m = a->launch_mode.launch_mode & 0xff; /* a uint8_t in the KFD */

		return m == KFD_WAVE_LAUNCH_NORMAL || m == KFD_WAVE_LAUNCH_HALT ||
		       m == KFD_WAVE_LAUNCH_DEBUG ? 0 : -EINVAL;
	}
	case HSAQM_KFD_DBG_TRAP_SUSPEND_QUEUES:
		return suspend_queues(f, p, a->suspend_queues.num_queues,
				      a->suspend_queues.grace_period,
				      a->suspend_queues.exception_mask,
				      (uint32_t *)(uintptr_t)a->suspend_queues.queue_array_ptr);
	case HSAQM_KFD_DBG_TRAP_RESUME_QUEUES: {
		uint32_t *ids = (uint32_t *)(uintptr_t)a->resume_queues.queue_array_ptr;

		return resume_queues(f, p, a->resume_queues.num_queues, ids);
	}
	case HSAQM_KFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH:
		for (uint32_t i = 0; i < KFD_MAX_WATCH; i++) {
			if (p->pdd[d].watch_ids & (1u << i))
				continue;
			p->pdd[d].watch_ids |= 1u << i;
			a->set_node_address_watch.id = i;
			return 0;
		}
		return -ENOMEM;
	case HSAQM_KFD_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH: {
		uint32_t id = a->clear_node_address_watch.id;

		if (id >= KFD_MAX_WATCH || !(p->pdd[d].watch_ids & (1u << id)))
			return -EINVAL;
		p->pdd[d].watch_ids &= ~(1u << id);
		return 0;
	}
	case HSAQM_KFD_DBG_TRAP_SET_FLAGS:
		return set_flags(f, p, &a->set_flags.flags);
	case HSAQM_KFD_DBG_TRAP_QUERY_DEBUG_EVENT:
		return query_debug_event(f, p, &a->query_debug_event);
	case HSAQM_KFD_DBG_TRAP_QUERY_EXCEPTION_INFO:
		return query_exception_info(f, p, &a->query_exception_info);
	case HSAQM_KFD_DBG_TRAP_GET_QUEUE_SNAPSHOT:
		return queue_snapshot(f, p, &a->queue_snapshot);
	case HSAQM_KFD_DBG_TRAP_GET_DEVICE_SNAPSHOT:
		return device_snapshot(f, p, &a->device_snapshot);
	default:
		return -EINVAL;
	}
}

static int runtime_enable(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_runtime_enable_args *a = arg;
	int ret;

	if (a->mode_mask & HSAQM_KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK) {
		if (!p->runtime_retry) {
			if (p->runtime_state != HSAQM_KFD_RUNTIME_STATE_DISABLED)
				return -EBUSY;
			for (unsigned int d = 0; d < ndev(f); d++)
				if (p->pdd[d].nqueues)
					return -EEXIST;
			p->runtime_state = HSAQM_KFD_RUNTIME_STATE_ENABLED;
			p->r_debug = a->r_debug;
			p->ttmp_setup =
				!!(a->mode_mask & HSAQM_KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK);
		}
		if (!p->dbg_enabled)
			return 0;
		/* A debugger is attached: tell it, and wait until it lets the runtime go on. */
		if (!p->runtime_retry)
			raise_ev(p, HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_PROCESS_RUNTIME), -1, NULL);
		ret = sema_down(f, p);
		p->runtime_retry = ret != 0;
		return ret;
	}

	bool was_enabled = p->runtime_state == HSAQM_KFD_RUNTIME_STATE_ENABLED;

	p->runtime_state = HSAQM_KFD_RUNTIME_STATE_DISABLED;
	p->r_debug = 0;
	if (p->dbg_enabled) {
		if (was_enabled)
			dbg_deactivate(f, p);
		if (!p->runtime_retry)
			raise_ev(p, HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_PROCESS_RUNTIME), -1, NULL);
		ret = sema_down(f, p);
		p->runtime_retry = ret != 0;
		if (ret)
			return ret;
	}
	p->ttmp_setup = 0;
	return 0;
}

/* ---- queues ------------------------------------------------------------------------------ */

static uint32_t active_queues_on(struct kfd_face *f, unsigned int d, uint32_t *nprocs)
{
	uint32_t n = 0, np = 0;

	for (unsigned int h = 0; h < KFD_MAX_PROCS; h++) {
		struct kfd_proc *p = f->procs[h];

		if (!p)
			continue;
		np += p->pdd[d].nqueues != 0;
		for (struct kfd_queue *q = p->queues; q; q = q->next)
			n += q->dev == d && !q->suspended && q->percentage && q->ring_base;
	}
	*nprocs = np;
	return n;
}

static void *doorbells_of(struct kfd_face *f, struct kfd_proc *p, unsigned int d)
{
	void *page = p->pdd[d].doorbells;

	if (!page) {
		page = sim_mem_alloc(f->sim, KFD_DOORBELL_SLICE, KFD_PAGE_SIZE);
		/* Release: a zeroed page before doorbell_written() can find it. */
		if (page)
			hsaqm_store_release(&p->pdd[d].doorbells, page);
	}
	return page;
}

/* The front of the next CREATE_QUEUE of this thread (sim_kfd_face_front_next()), or NULL. */
static _Thread_local const struct sim_kfd_front *tl_front;

void sim_kfd_face_front_next(const struct sim_kfd_front *front)
{
	tl_front = front;
}

static int create_queue(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_create_queue_args *a = arg;
	uint32_t pct = a->queue_percentage & HSAQM_KFD_QUEUE_PERCENTAGE_MASK;
	uint32_t id, db;
	struct kfd_queue *q;
	int dev, err;

	/* set_queue_properties_from_user() */
	if (pct > HSAQM_KFD_MAX_QUEUE_PERCENTAGE ||
	    a->queue_priority > HSAQM_KFD_MAX_QUEUE_PRIORITY)
		return -EINVAL;
	if (a->ring_size & (a->ring_size - 1))
		return -EINVAL;
	if (a->ring_size < HSAQM_KFD_MIN_QUEUE_RING_SIZE)
		a->ring_size = HSAQM_KFD_MIN_QUEUE_RING_SIZE; /* written back to the caller */
	/* A type this kernel does not know (SDMA_BY_ENG_ID is 1.17). */
	if (a->queue_type > HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID ||
	    (a->queue_type == HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID && f->minor < 17))
		return -KFD_ENOTSUPP;
	dev = sim_kfd_gpu_dev(f->sim, a->gpu_id);
	if (dev < 0)
		return -EINVAL;
	const struct sim_kfd_front *fr = tl_front;
	bool sdma = a->queue_type == HSAQM_KFD_QUEUE_TYPE_SDMA ||
		    a->queue_type == HSAQM_KFD_QUEUE_TYPE_SDMA_XGMI ||
		    a->queue_type == HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID;

	/*
	 * The model's packet processors run AQL. SDMA engines are not in the model: a front end
	 * that runs them itself (the emulated /dev/kfd's) gets the KFD queue, id and doorbell,
	 * with no hardware queue behind it. PM4 compute queues are not modelled at all.
	 */
	if (a->queue_type != HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL && !(sdma && fr && fr->runs_all)) {
		hsaqm_log_info("sim KFD: queue type %u is not modelled", a->queue_type);
		return -EOPNOTSUPP;
	}
	if (f->sched_policy == 1) {
		uint32_t nprocs, active = active_queues_on(f, (unsigned int)dev, &nprocs);

		if (nprocs >= KFD_VMIDS ||
		    active >= sim_device_profile(f->sim, (unsigned int)dev)->hqd_slots)
			return -EPERM; /* no oversubscription with sched_policy=1 */
	}
	/* What the CP reads and writes must be memory the model's GPU sees: a bad user pointer. */
	if (!kfd_face_mem_ok(f, p, a->ring_base_address, a->ring_size) ||
	    !kfd_face_mem_ok(f, p, a->write_pointer_address, sizeof(uint64_t)) ||
	    !kfd_face_mem_ok(f, p, a->read_pointer_address, sizeof(uint64_t)))
		return -EFAULT;
	/* A front end's own ring must be model memory, of the queue's size. */
	if (fr && !fr->runs_all &&
	    (!sim_mem_contains(f->sim, fr->ring, a->ring_size) ||
	     !sim_mem_contains(f->sim, fr->write_ptr, sizeof(uint64_t)) ||
	     !sim_mem_contains(f->sim, fr->read_ptr, sizeof(uint64_t))))
		return -EFAULT;
	for (id = 0; id < KFD_MAX_QUEUES && p->qid_used[id]; id++)
		;
	if (id == KFD_MAX_QUEUES)
		return -ENOMEM;
	for (db = 0; db < KFD_MAX_QUEUES && p->pdd[dev].db_used[db]; db++)
		;
	if (db == KFD_MAX_QUEUES)
		return -EBUSY;
	if (!doorbells_of(f, p, (unsigned int)dev))
		return -ENOMEM;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->proc = p;
	q->id = id;
	q->dev = (unsigned int)dev;
	q->doorbell_id = db;
	q->type = a->queue_type;
	q->ring_base = a->ring_base_address;
	q->ring_size = a->ring_size;
	q->wptr = a->write_pointer_address;
	q->rptr = a->read_pointer_address;
	q->ctx_save_addr = a->ctx_save_restore_address;
	q->ctx_save_size = a->ctx_save_restore_size;
	q->ctl_stack_size = a->ctl_stack_size;
	q->percentage = pct;
	q->priority = a->queue_priority;
	if (fr) {
		q->front_only = fr->runs_all;
		q->front_ring = fr->ring;
		q->front_error_fn = fr->error_fn;
		q->front_error_ctx = fr->error_ctx;
	}
	if (q->front_only)
		goto created;

	struct sim_hwq_desc desc = {
		.dev = (unsigned int)dev,
		.ring_base = fr ? fr->ring : (void *)(uintptr_t)a->ring_base_address,
		.ring_size_bytes = a->ring_size,
		.write_ptr = fr ? fr->write_ptr : (uint64_t *)(uintptr_t)a->write_pointer_address,
		.read_ptr = fr ? fr->read_ptr : (uint64_t *)(uintptr_t)a->read_pointer_address,
		.priority = a->queue_priority,
		.active = pct > 0,
		.pasid = p->pasid,
		.kfd_queue = true,
		.kfd_queue_id = id,
		.error_fn = queue_error_cb,
		.error_ctx = q,
	};
	err = sim_hwq_create(f->sim, &desc, &q->hwq);
	if (err) {
		free(q);
		return err;
	}
created:
	p->qid_used[id] = 1;
	p->pdd[dev].db_used[db] = 1;
	p->pdd[dev].nqueues++;
	q->next = p->queues;
	p->queues = q;
	/* Release: the queue is complete before a doorbell can reach it. */
	hsaqm_store_release(&p->pdd[dev].db_hwq[db], q->hwq);
	a->queue_id = id;
	a->doorbell_offset = KFD_MMAP_TYPE_DOORBELL |
			     (((uint64_t)a->gpu_id << KFD_MMAP_GPU_ID_SHIFT) &
			      KFD_MMAP_GPU_ID_MASK) |
			     (uint64_t)db * KFD_DOORBELL_BYTES;
	raise_ev(p, HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW), dev, q);
	return 0;
}

/* Take @q off every list and the hardware, and free it (lock held). */
static int retire_queue(struct kfd_face *f, struct kfd_proc *p, struct kfd_queue *q)
{
	struct kfd_pdd *pdd = &p->pdd[q->dev];
	int err;

	/* Release: unpublish before waiting out the doorbell_written() calls that saw it. */
	hsaqm_store_release(&pdd->db_hwq[q->doorbell_id], (struct sim_hwq *)NULL);
	db_quiesce(f);
	err = q->hwq ? sim_hwq_destroy(q->hwq) : 0;
	if (err) {
		/* Only -EDEADLK from a model callback: the queue lives on, reachable again. */
		hsaqm_store_release(&pdd->db_hwq[q->doorbell_id], q->hwq);
		return err;
	}
	for (struct kfd_queue **pp = &p->queues; *pp; pp = &(*pp)->next) {
		if (*pp == q) {
			*pp = q->next;
			break;
		}
	}
	p->qid_used[q->id] = 0;
	pdd->db_used[q->doorbell_id] = 0;
	pdd->nqueues--;
	free(q);
	return 0;
}

static int destroy_queue(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_destroy_queue_args *a = arg;
	struct kfd_queue *q = find_queue(p, a->queue_id);
	struct timespec deadline;
	unsigned int dev;
	int err;

	if (!q)
		return -EINVAL;
	/* A destroy already waiting on this queue owns it (wait_on_destroy_queue). */
	if (q->being_destroyed)
		return -EBUSY;
	q->being_destroyed = true;
	deadline = virtual_deadline();
	/* A queue suspended by the debugger is destroyed only once it is resumed. */
	f->destroy_waiters++;
	while (p->dbg_enabled && q->suspended) {
		if (kfd_face_wait(f, &deadline) == -ETIMEDOUT && p->dbg_enabled && q->suspended) {
			q->being_destroyed = false;
			f->destroy_waiters--;
			return -EINTR;
		}
	}
	f->destroy_waiters--;
	dev = q->dev;
	err = retire_queue(f, p, q);
	if (err) {
		q->being_destroyed = false;
		return err;
	}
	raise_ev(p, HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_DEVICE_QUEUE_DELETE), (int)dev, NULL);
	return 0;
}

static int update_queue(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_update_queue_args *a = arg;
	uint32_t pct = a->queue_percentage & HSAQM_KFD_QUEUE_PERCENTAGE_MASK;
	uint32_t size = a->ring_size;
	struct kfd_queue *q;
	bool active;
	int err;

	if (pct > HSAQM_KFD_MAX_QUEUE_PERCENTAGE ||
	    a->queue_priority > HSAQM_KFD_MAX_QUEUE_PRIORITY)
		return -EINVAL;
	if (size & (size - 1))
		return -EINVAL;
	if (size < HSAQM_KFD_MIN_QUEUE_RING_SIZE)
		size = HSAQM_KFD_MIN_QUEUE_RING_SIZE;
	q = find_queue(p, a->queue_id);
	if (!q)
		return -EFAULT;
	if (a->ring_base_address && !kfd_face_mem_ok(f, p, a->ring_base_address, size))
		return -EFAULT;
	/* QUEUE_IS_ACTIVE: a ring, a size and a percentage; a NULL ring (6.12+) deactivates. */
	active = pct > 0 && a->ring_base_address;
	/*
	 * A front end's queue keeps running the front's ring: the runtime names its own ring
	 * again (a priority change, an inactivation), which the front translates from.
	 */
	void *ring = (void *)(uintptr_t)a->ring_base_address;

	if (q->front_ring && ring)
		ring = q->front_ring;
	err = q->hwq ? sim_hwq_update(q->hwq, ring, size, a->queue_priority, active) : 0;
	if (err)
		return err;
	q->ring_base = a->ring_base_address;
	q->ring_size = size;
	q->percentage = pct;
	q->priority = a->queue_priority;
	return 0;
}

static int set_cu_mask(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_set_cu_mask_args *a = arg;
	uint32_t bits = a->num_cu_mask;
	struct kfd_queue *q;

	(void)f;
	if (bits % 32 || bits == 0)
		return -EINVAL;
	if (bits > HSAQM_KFD_MAX_CU_MASK_BITS)
		bits = HSAQM_KFD_MAX_CU_MASK_BITS; /* the rest is ignored */
	if (!a->cu_mask_ptr)
		return -EFAULT;
	q = find_queue(p, a->queue_id);
	if (!q)
		return -EFAULT;
	if (!q->hwq)
		return -EINVAL; /* an SDMA queue has no CUs */
	return sim_hwq_set_cu_mask(q->hwq, (const uint32_t *)(uintptr_t)a->cu_mask_ptr, bits);
}

static int get_wave_state(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_get_queue_wave_state_args *a = arg;
	struct hsaqm_kfd_context_save_area_header hdr;
	struct sim_hwq_info info;
	struct kfd_queue *q = find_queue(p, a->queue_id);
	uint32_t used, offset;
	int err;

	if (!q || !q->hwq)
		return -EFAULT;
	/* Only the saved state of a queue that is off the hardware, and only with CWSR. */
	if ((!q->suspended && q->percentage && q->ring_base) || !f->cwsr)
		return -EINVAL;
	err = sim_hwq_get_info(q->hwq, &info);
	if (err)
		return err;
	used = (uint32_t)info.ctl_stack_used_bytes;
	a->ctl_stack_used_size = used;
	a->save_area_used_size = (uint32_t)info.save_area_used_bytes;
	if (!a->ctl_stack_address)
		return -EFAULT;
	/* The control stack grows down from the end of its area (v9 get_wave_state). */
	offset = q->ctl_stack_size > used ? q->ctl_stack_size - used : 0;
	memset(&hdr, 0, sizeof(hdr));
	hdr.wave_state.control_stack_offset = offset;
	hdr.wave_state.control_stack_size = used;
	hdr.wave_state.wave_state_offset = q->ctl_stack_size + a->save_area_used_size;
	hdr.wave_state.wave_state_size = a->save_area_used_size;
	memcpy((void *)(uintptr_t)a->ctl_stack_address, &hdr.wave_state, sizeof(hdr.wave_state));
	/* The model keeps no per-wave records: the stack copied out is zeros. */
	if (used && offset >= sizeof(hdr.wave_state) && offset + used <= q->ctl_stack_size)
		memset((char *)(uintptr_t)a->ctl_stack_address + offset, 0, used);
	return 0;
}

static int get_version(struct kfd_face *f, struct kfd_proc *p, void *arg)
{
	struct hsaqm_kfd_get_version_args *a = arg;

	(void)p;
	a->major_version = 1;
	a->minor_version = f->minor;
	return 0;
}

/* ---- the ioctl table ----------------------------------------------------------------------- */

typedef int (*kfd_ioctl_fn)(struct kfd_face *f, struct kfd_proc *p, void *arg);

struct kfd_ioctl_desc {
	uint32_t since_minor;   /* the interface version that added it */
	uint32_t dir;           /* the kernel's own _IOC direction */
	uint32_t size;          /* the kernel's argument size (0: per version, create_queue) */
	kfd_ioctl_fn fn;        /* NULL: known to the kernel, not modelled (see err) */
	int err;
};

#define R _IOC_READ
#define W _IOC_WRITE

/*
 * Every request number up to the newest interface the model presents (1.18), with the
 * version that added it (kfd_ioctl.h history). Numbers past the table, or newer than the
 * configured version, are unknown to the kernel: EINVAL (kfd_ioctl(); kernels from late 2025
 * answer ENOTTY instead).
 */
static const struct kfd_ioctl_desc kfd_ioctls[] = {
	[0x01] = { 1, R, sizeof(struct hsaqm_kfd_get_version_args), get_version, 0 },
	[0x02] = { 1, R | W, 0, create_queue, 0 },
	[0x03] = { 1, R | W, sizeof(struct hsaqm_kfd_destroy_queue_args), destroy_queue, 0 },
	[0x04] = { 1, W, sizeof(struct hsaqm_kfd_set_memory_policy_args),
		   kfd_face_set_memory_policy, 0 },
	[0x05] = { 1, R | W, sizeof(struct hsaqm_kfd_get_clock_counters_args),
		   kfd_face_get_clock_counters, 0 },
	[0x06] = { 1, R, sizeof(struct hsaqm_kfd_get_process_apertures_args),
		   kfd_face_get_process_apertures, 0 },
	[0x07] = { 1, W, sizeof(struct hsaqm_kfd_update_queue_args), update_queue, 0 },
	[0x08] = { 1, R | W, sizeof(struct hsaqm_kfd_create_event_args), kfd_face_create_event,
		   0 },
	[0x09] = { 1, W, sizeof(struct hsaqm_kfd_event_id_args), kfd_face_destroy_event, 0 },
	[0x0A] = { 1, W, sizeof(struct hsaqm_kfd_event_id_args), kfd_face_set_event, 0 },
	[0x0B] = { 1, W, sizeof(struct hsaqm_kfd_event_id_args), kfd_face_reset_event, 0 },
	[0x0C] = { 1, R | W, sizeof(struct hsaqm_kfd_wait_events_args), kfd_face_wait_events, 0 },
	[0x0D] = { 1, W, 0, NULL, -EPERM },          /* the deprecated debugger: EPERM */
	[0x0E] = { 1, W, 0, NULL, -EPERM },
	[0x0F] = { 1, W, 0, NULL, -EPERM },
	[0x10] = { 1, W, 0, NULL, -EPERM },
	[0x11] = { 1, R | W, sizeof(struct hsaqm_kfd_set_scratch_backing_va_args),
		   kfd_face_set_scratch_backing_va, 0 },
	[0x12] = { 1, R | W, sizeof(struct hsaqm_kfd_get_tile_config_args),
		   kfd_face_get_tile_config, 0 },
	[0x13] = { 1, W, sizeof(struct hsaqm_kfd_set_trap_handler_args),
		   kfd_face_set_trap_handler, 0 },
	[0x14] = { 1, R | W, sizeof(struct hsaqm_kfd_get_process_apertures_new_args),
		   kfd_face_get_process_apertures_new, 0 },
	[0x15] = { 1, W, sizeof(struct hsaqm_kfd_acquire_vm_args), kfd_face_acquire_vm, 0 },
	[0x16] = { 1, R | W, sizeof(struct hsaqm_kfd_alloc_memory_of_gpu_args),
		   kfd_face_alloc_memory, 0 },
	[0x17] = { 1, W, sizeof(struct hsaqm_kfd_free_memory_of_gpu_args), kfd_face_free_memory,
		   0 },
	[0x18] = { 1, R | W, sizeof(struct hsaqm_kfd_map_memory_to_gpu_args),
		   kfd_face_map_memory, 0 },
	[0x19] = { 1, R | W, sizeof(struct hsaqm_kfd_map_memory_to_gpu_args),
		   kfd_face_unmap_memory, 0 },
	[0x1A] = { 1, W, sizeof(struct hsaqm_kfd_set_cu_mask_args), set_cu_mask, 0 },
	[0x1B] = { 1, R | W, sizeof(struct hsaqm_kfd_get_queue_wave_state_args), get_wave_state,
		   0 },
	/* GET_DMABUF_INFO, IMPORT_DMABUF, ALLOC_QUEUE_GWS, SMI_EVENTS, SVM: not modelled (the
	 * model presents no GWS, no SVM API, no IPC); the errno a runtime then falls back on. */
	[0x1C] = { 1, R | W, 0, NULL, -EINVAL },
	[0x1D] = { 1, R | W, 0, NULL, -EINVAL },
	[0x1E] = { 1, R | W, 0, NULL, -EINVAL },
	[0x1F] = { 3, R | W, 0, NULL, -EOPNOTSUPP },
	[0x20] = { 5, R | W, 0, NULL, -EOPNOTSUPP },
	[0x21] = { 5, R | W, sizeof(struct hsaqm_kfd_set_xnack_mode_args), kfd_face_set_xnack_mode,
		   0 },
	[0x22] = { 7, R | W, 0, NULL, -EOPNOTSUPP }, /* CRIU */
	[0x23] = { 9, R | W, sizeof(struct hsaqm_kfd_get_available_memory_args),
		   kfd_face_available_memory, 0 },
	[0x24] = { 12, R | W, 0, NULL, -EOPNOTSUPP }, /* EXPORT_DMABUF */
	[0x25] = { 13, R | W, sizeof(struct hsaqm_kfd_runtime_enable_args), runtime_enable, 0 },
	[0x26] = { 13, R | W, sizeof(struct hsaqm_kfd_dbg_trap_args), dbg_trap, 0 },
};

#undef R
#undef W

/* ---- the transport ------------------------------------------------------------------------- */

struct kfd_proc *kfd_face_proc(struct kfd_face *f, int handle)
{
	int slot = handle - KFD_HANDLE_BASE;

	if (slot < 0 || slot >= KFD_MAX_HANDLES)
		return NULL;
	/* Acquire: pairs with face_open's release, the process is complete when seen. */
	return hsaqm_load_acquire(&f->handles[slot]);
}

struct kfd_proc *kfd_face_proc_of_caller(struct kfd_face *f)
{
	for (unsigned int s = 0; s < KFD_MAX_PROCS; s++)
		if (f->procs[s] && f->procs[s]->owner == getpid() && !f->procs[s]->closing)
			return f->procs[s];
	return NULL;
}

/*
 * A new KFD process of @pid (lock held). Its PASID: in shared mode the device process gives
 * it, so PASIDs stay distinct across client processes; in-process the face counts.
 */
static struct kfd_proc *proc_new(struct kfd_face *f, pid_t pid)
{
	struct kfd_proc *p;
	int slot, pasid;

	for (slot = 0; slot < KFD_MAX_PROCS && f->procs[slot]; slot++)
		;
	if (slot == KFD_MAX_PROCS)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->face = f;
	p->slot = slot;
	p->owner = pid;
	pasid = sim_shared_kfd_process(f->sim, true, 0);
	p->shared_pasid = pasid > 0;
	p->pasid = pasid > 0 ? (uint32_t)pasid : f->next_pasid++;
	p->dbg_fd = -1;
	p->runtime_state = HSAQM_KFD_RUNTIME_STATE_DISABLED;
	/* Release: the process is complete before doorbell_written() can find it. */
	hsaqm_store_release(&f->procs[slot], p);
	return p;
}

static int face_open(void *ctx)
{
	struct kfd_face *f = ctx;
	struct kfd_proc *p = NULL;
	pid_t pid = getpid();
	int slot;

	kfd_face_lock(f);
	for (slot = 0; slot < KFD_MAX_HANDLES && f->handles[slot]; slot++)
		;
	if (slot == KFD_MAX_HANDLES) {
		kfd_face_unlock(f);
		return -EMFILE;
	}
	/* kfd_create_process(): the process of this mm if one exists, else a new one. */
	for (int s = 0; s < KFD_MAX_PROCS && !p; s++)
		if (f->procs[s] && f->procs[s]->owner == pid && !f->procs[s]->closing)
			p = f->procs[s];
	if (!p)
		p = proc_new(f, pid);
	if (!p) {
		kfd_face_unlock(f);
		return -ENOMEM;
	}
	p->refs++;
	/* Release: pairs with kfd_face_proc()'s acquire. */
	hsaqm_store_release(&f->handles[slot], p);
	kfd_face_unlock(f);
	return KFD_HANDLE_BASE + slot;
}

/* Process exit (lock held, no ioctl of @p in flight): detach the debugger, drop the queues. */
static void proc_teardown(struct kfd_face *f, struct kfd_proc *p)
{
	dbg_disable(f, p); /* resumes every suspended queue first */
	/* Release: unpublish the process; db_quiesce() then waits out those who saw it. */
	hsaqm_store_release(&f->procs[p->slot], (struct kfd_proc *)NULL);
	db_quiesce(f);
	while (p->queues) {
		struct kfd_queue *q = p->queues;

		if (q->suspended) {
			/* Only when the debugger session never existed (cannot happen): resume. */
			q->suspended = false;
			if (q->hwq)
				sim_hwq_resume(&q->hwq, 1);
		}
		if (retire_queue(f, p, q)) {
			hsaqm_log_err("sim KFD: queue %u of process %d could not be destroyed",
				      q->id, (int)p->owner);
			p->queues = q->next; /* leak it rather than loop */
		}
	}
	kfd_face_event_teardown(f, p);
	kfd_face_mem_teardown(f, p);
	for (unsigned int d = 0; d < HSAQM_SIM_MAX_DEVICES; d++) {
		sim_mem_free(f->sim, p->pdd[d].doorbells);
		sim_mem_free(f->sim, p->pdd[d].mmio_page);
	}
	if (p->shared_pasid)
		sim_shared_kfd_process(f->sim, false, p->pasid);
	free(p);
}

static int face_close(void *ctx, int handle)
{
	struct kfd_face *f = ctx;
	struct kfd_proc *p;

	kfd_face_lock(f);
	p = kfd_face_proc(f, handle);
	if (!p || p->closing) {
		kfd_face_unlock(f);
		return -EBADF;
	}
	if (p->owner != getpid()) {
		/* A fork child drops its inherited reference; the process lives on in the
		 * parent. */
		kfd_face_unlock(f);
		return 0;
	}
	/* Release: the handle is gone; a late ioctl on it is EBADF. */
	hsaqm_store_release(&f->handles[handle - KFD_HANDLE_BASE], (struct kfd_proc *)NULL);
	if (--p->refs) {
		/* Another open of this process is still there: the process lives on. */
		kfd_face_unlock(f);
		return 0;
	}
	p->closing = true;
	/* Detach first: that resumes a suspended queue a destroy may be waiting on. */
	dbg_disable(f, p);
	pthread_cond_broadcast(&f->cond);
	while (p->busy) {
		struct timespec forever = { .tv_sec = 0 };

		if (f->virtual_time) {
			/* A RUNTIME_ENABLE may wait for the semaphore: its bounded wait ends it. */
			forever = virtual_deadline();
		}
		kfd_face_wait(f, &forever);
	}
	proc_teardown(f, p);
	kfd_face_unlock(f);
	return 0;
}

/*
 * An ioctl the face does not model: counted (sim_kfd_face_unmodelled(); the emulated
 * /dev/kfd's tests require none) and logged once per number (HSAQM_LOG=warn), because a
 * runtime that needs it may then misbehave in ways that are hard to trace back.
 */
static void unmodelled(struct kfd_face *f, unsigned int nr, unsigned long request)
{
	static uint64_t said[4]; /* one bit per nr (0..255) */

	/* A counter the report reads at exit; orders nothing. */
	hsaqm_fetch_add(&f->unmodelled, 1ull);
	nr &= 0xffu;
	/* Relaxed is enough: a line said twice by two racing threads is harmless. */
	if (!(hsaqm_fetch_or(&said[nr / 64], 1ull << (nr % 64)) & (1ull << (nr % 64))))
		hsaqm_log_warn("sim KFD: ioctl nr 0x%02x (request %#lx) is not modelled (answered "
			       "with an error)", nr, request);
}

uint64_t sim_kfd_face_dkms_only(struct hsaqm_sim *sim)
{
	struct kfd_face *f = sim ? kfd_face_of(sim) : NULL;

	/* Acquire: nothing else to order; a plain atomic read. */
	return f ? hsaqm_load_acquire(&f->dkms_only) : 0;
}

uint64_t sim_kfd_face_unmodelled(struct hsaqm_sim *sim)
{
	struct kfd_face *f = sim ? kfd_face_of(sim) : NULL;

	/* Acquire: nothing else to order; a plain atomic read. */
	return f ? hsaqm_load_acquire(&f->unmodelled) : 0;
}

static int face_ioctl(void *ctx, int handle, unsigned long request, void *arg)
{
	struct kfd_face *f = ctx;
	unsigned int nr = HSAQM_KFD_IOC_NR(request);
	size_t usize = _IOC_SIZE(request), asize, ksize;
	const struct kfd_ioctl_desc *d = NULL;
	struct kfd_proc *p;
	unsigned char *kdata;
	int ret;

	if (nr < sizeof(kfd_ioctls) / sizeof(kfd_ioctls[0]) && kfd_ioctls[nr].since_minor &&
	    kfd_ioctls[nr].since_minor <= f->minor)
		d = &kfd_ioctls[nr];
	if (!d && nr >= KFD_DKMS_IOCTL_FIRST && nr <= KFD_DKMS_IOCTL_LAST) {
		/*
		 * ROCm's out-of-tree driver numbered its own ioctls from 0x80 (IPC handles, the
		 * old DBG_TRAP, SPM, PC sampling); a thunk of that era probes them and copes
		 * with the upstream answer. This face is an upstream KFD: -EINVAL, as
		 * kfd_ioctl() gives for a number past its table, counted apart.
		 */
		hsaqm_fetch_add(&f->dkms_only, 1ull);
		hsaqm_log_info("sim KFD: ROCm-driver-only ioctl %#lx: -EINVAL (upstream KFD)",
			       request);
		return -EINVAL;
	}
	if (!d) {
		unmodelled(f, nr, request);
		return -EINVAL;
	}

	kfd_face_lock(f);
	p = kfd_face_proc(f, handle);
	/* Only the process that opened the file may use it ("Using KFD FD in wrong process"). */
	if (!p || p->closing || p->owner != getpid()) {
		kfd_face_unlock(f);
		return -EBADF;
	}
	if (!d->fn) {
		kfd_face_unlock(f);
		unmodelled(f, nr, request);
		return d->err;
	}
	p->busy++;
	kfd_face_unlock(f);

	/* The kernel copies the caller's size in and out, over a buffer of at least its own. */
	ksize = d->size ? d->size :
		(f->minor >= 17 ? sizeof(struct hsaqm_kfd_create_queue_args) :
				  HSAQM_KFD_CREATE_QUEUE_ARGS_SIZE_1_11);
	asize = usize > ksize ? usize : ksize;
	if (asize < sizeof(struct hsaqm_kfd_create_queue_args))
		asize = sizeof(struct hsaqm_kfd_create_queue_args);
	kdata = calloc(1, asize);
	if (!kdata) {
		ret = -ENOMEM;
		goto out;
	}
	if (d->dir & _IOC_WRITE) {
		if (usize && !arg) {
			ret = -EFAULT;
			goto out;
		}
		memcpy(kdata, arg, usize);
	}
	if (nr == 0x02 && f->minor < 17) {
		/* This kernel's struct ends at ctl_stack_size: it never sees the later fields. */
		struct hsaqm_kfd_create_queue_args *a = (void *)kdata;
		uint32_t keep[2] = { a->sdma_engine_id, a->metadata_ring_size };

		a->sdma_engine_id = 0;
		a->metadata_ring_size = 0;
		sim_shared_call_stamp(f->sim, true);
		kfd_face_lock(f);
		ret = d->fn(f, p, kdata);
		kfd_face_unlock(f);
		sim_shared_call_stamp(f->sim, false);
		a->sdma_engine_id = keep[0];
		a->metadata_ring_size = keep[1];
	} else {
		/* A shared client's control calls act when the ioctl was made (docs/sim.md). */
		sim_shared_call_stamp(f->sim, true);
		kfd_face_lock(f);
		ret = d->fn(f, p, kdata);
		kfd_face_unlock(f);
		sim_shared_call_stamp(f->sim, false);
	}
	if (d->dir & _IOC_READ) {
		if (usize && !arg)
			ret = -EFAULT;
		else
			memcpy(arg, kdata, usize);
	}
out:
	free(kdata);
	kfd_face_lock(f);
	p->busy--;
	if (p->closing)
		pthread_cond_broadcast(&f->cond);
	kfd_face_unlock(f);
	return ret;
}

/*
 * mmap of the KFD file (kfd_mmap()): the type in the offset's top bits says what. Doorbells:
 * exactly the process's doorbell slice of a device. Events: the page the KFD allocated when
 * the runtime gave none. MMIO: the remap page of a memory object allocated with the
 * MMIO_REMAP flag (kfd_face_mem.c). Model memory can be mapped again at a chosen address
 * (the runtime reserves its address space and maps with MAP_FIXED), so it is the same
 * memory the face writes, as a device page is the same behind every mapping.
 */
static void *face_mmap(void *ctx, int handle, void *addr, size_t len, int prot, int flags,
		       off_t offset)
{
	struct kfd_face *f = ctx;
	uint64_t off = (uint64_t)offset, type = off & KFD_MMAP_TYPE_MASK;
	struct kfd_proc *p;
	void *page = NULL, *ret = MAP_FAILED;
	size_t have = 0;
	int dev, err = 0;

	kfd_face_lock(f);
	p = kfd_face_proc(f, handle);
	dev = sim_kfd_gpu_dev(f->sim, (uint32_t)((off & KFD_MMAP_GPU_ID_MASK) >>
						 KFD_MMAP_GPU_ID_SHIFT));
	if (!p || p->closing || p->owner != getpid())
		err = EBADF;
	else if (!len || (off & (KFD_PAGE_SIZE - 1)))
		err = EINVAL;
	else if (type == KFD_MMAP_TYPE_EVENTS) {
		page = kfd_face_events_page(p, &have);
		if (!page || len > have)
			err = EINVAL; /* kfd_event_mmap(): no page, or a size beyond it */
	} else if (dev < 0)
		err = ENODEV; /* a type that needs a device, an unknown gpu_id */
	else if (type == KFD_MMAP_TYPE_MMIO) {
		kfd_face_unlock(f);
		return kfd_face_bo_mmap(f, p, addr, len, prot, flags, off, false);
	} else if (type != KFD_MMAP_TYPE_DOORBELL)
		err = EINVAL; /* reserved memory is not modelled */
	else if (len != KFD_DOORBELL_SLICE)
		err = EINVAL; /* kfd_doorbell_mmap(): exactly the process's doorbell slice */
	else if (!(page = doorbells_of(f, p, (unsigned int)dev)))
		err = ENOMEM;
	if (!err) {
		if ((flags & MAP_FIXED) && addr) {
			ret = sim_mem_map_at(f->sim, page, len, addr, prot);
			if (ret == MAP_FAILED)
				err = errno;
		} else {
			ret = page; /* model memory is already mapped: that mapping serves */
		}
	}
	kfd_face_unlock(f);
	if (err) {
		errno = err;
		return MAP_FAILED;
	}
	return ret;
}

static int face_munmap(void *ctx, void *addr, size_t len)
{
	(void)ctx;
	/* Doorbell pages stay model memory until the handle closes; munmap(2)'s own checks. */
	if (!len || ((uintptr_t)addr & (KFD_PAGE_SIZE - 1)))
		return -EINVAL;
	return 0;
}

static bool ring_in(struct kfd_proc *p, unsigned int nd, volatile void *doorbell, uint64_t value)
{
	for (unsigned int d = 0; d < nd; d++) {
		/* Acquire: pairs with doorbells_of()'s release of the zeroed page. */
		char *page = hsaqm_load_acquire(&p->pdd[d].doorbells);
		uintptr_t off = (uintptr_t)doorbell - (uintptr_t)page;

		if (!page || (uintptr_t)doorbell < (uintptr_t)page || off >= KFD_DOORBELL_SLICE ||
		    off % KFD_DOORBELL_BYTES)
			continue;
		/* Acquire: pairs with create_queue's release of a complete queue. */
		struct sim_hwq *hwq =
			hsaqm_load_acquire(&p->pdd[d].db_hwq[off / KFD_DOORBELL_BYTES]);

		if (hwq)
			sim_hwq_doorbell(hwq, value);
		return true;
	}
	return false;
}

/*
 * The doorbell address alone names the queue (model memory is one address space), so
 * @handle is only where to look first.
 */
static void face_doorbell_written(void *ctx, int handle, volatile void *doorbell, uint64_t value)
{
	struct kfd_face *f = ctx;
	unsigned int nd = ndev(f);
	struct kfd_proc *p;

	hsaqm_fetch_add(&f->db_users, 1u);
	/* Full barrier: announce ourselves before reading pointers a retirer may clear. */
	hsaqm_smp_mb();
	p = kfd_face_proc(f, handle);
	if (!p || !ring_in(p, nd, doorbell, value)) {
		for (unsigned int s = 0; s < KFD_MAX_PROCS; s++) {
			/* Acquire: as kfd_face_proc(). */
			p = hsaqm_load_acquire(&f->procs[s]);
			if (p && ring_in(p, nd, doorbell, value))
				break;
		}
	}
	/* Release: our reads of the queue pointers are done. */
	hsaqm_fetch_sub(&f->db_users, 1u);
}

/* ---- per-model state ------------------------------------------------------------------------ */

/* The transport's proc_refresh: the generated kfd/proc tree is written when asked. */
static int face_proc_refresh(void *ctx)
{
	struct kfd_face *f = ctx;

	return sim_proc_view_sync(f->sim);
}

static void *kfd_face_init(struct hsaqm_sim *sim)
{
	const struct hsaqm_sim_config *cfg = sim_config(sim);
	struct kfd_face *f = calloc(1, sizeof(*f));
	pthread_condattr_t ca;

	if (!f)
		return NULL;
	f->sim = sim;
	f->minor = cfg->kfd_minor_version;
	f->virtual_time = cfg->time_mode == HSAQM_SIM_TIME_VIRTUAL;
	f->cwsr = !cfg->cwsr_disable;
	f->sched_policy = cfg->sched_policy;
	f->next_pasid = KFD_PASID_BASE;
	pthread_mutex_init(&f->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&f->cond, &ca);
	pthread_condattr_destroy(&ca);
	f->tp.name = "sim";
	f->tp.dev_path = "/dev/kfd (hsaqm sim)";
	f->tp.sysfs_root = hsaqm_sim_sysfs_root(sim);
	f->tp.ctx = f;
	f->tp.open = face_open;
	f->tp.close = face_close;
	f->tp.ioctl = face_ioctl;
	f->tp.mmap = face_mmap;
	f->tp.munmap = face_munmap;
	f->tp.doorbell_written = face_doorbell_written;
	f->tp.proc_refresh = face_proc_refresh;
	return f;
}

static void kfd_face_fini(struct hsaqm_sim *sim, void *state)
{
	struct kfd_face *f = state;

	(void)sim;
	kfd_face_lock(f);
	for (unsigned int h = 0; h < KFD_MAX_HANDLES; h++)
		f->handles[h] = NULL;
	for (unsigned int s = 0; s < KFD_MAX_PROCS; s++) {
		struct kfd_proc *p = f->procs[s];

		if (!p)
			continue;
		if (p->busy)
			hsaqm_log_err("sim KFD: model destroyed during an ioctl of process %d",
				      (int)p->owner);
		proc_teardown(f, p);
	}
	kfd_face_unlock(f);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

struct kfd_face *kfd_face_of(struct hsaqm_sim *sim)
{
	return sim_face_state(sim, SIM_FACE_KFD, kfd_face_init, kfd_face_fini);
}

const struct hsaqm_kfd_transport *hsaqm_sim_kfd_transport(struct hsaqm_sim *sim)
{
	struct kfd_face *f = sim ? kfd_face_of(sim) : NULL;

	return f ? &f->tp : NULL;
}

struct sim_hwq *sim_kfd_face_hwq(struct hsaqm_sim *sim, int handle, uint32_t queue_id)
{
	struct kfd_face *f = sim ? kfd_face_of(sim) : NULL;
	struct sim_hwq *hwq = NULL;
	struct kfd_proc *p;

	if (!f)
		return NULL;
	kfd_face_lock(f);
	p = kfd_face_proc(f, handle);
	if (p) {
		struct kfd_queue *q = find_queue(p, queue_id);

		hwq = q ? q->hwq : NULL;
	}
	kfd_face_unlock(f);
	return hwq;
}

unsigned int sim_kfd_face_queue_count(struct hsaqm_sim *sim)
{
	struct kfd_face *f = sim ? kfd_face_of(sim) : NULL;
	unsigned int n = 0;

	if (!f)
		return 0;
	kfd_face_lock(f);
	for (unsigned int s = 0; s < KFD_MAX_PROCS; s++)
		for (struct kfd_queue *q = f->procs[s] ? f->procs[s]->queues : NULL; q; q = q->next)
			n++;
	kfd_face_unlock(f);
	return n;
}

int sim_kfd_face_procs(struct hsaqm_sim *sim, struct sim_proc_queue **out, unsigned int *n)
{
	struct kfd_face *f = sim ? kfd_face_of(sim) : NULL;
	struct sim_proc_queue *v = NULL;
	unsigned int cap = 0, k = 0;
	int err = 0;

	if (!f || !out || !n)
		return -EINVAL;
	kfd_face_lock(f);
	/* One entry per queue, one more per process: the bound is known under the lock. */
	for (unsigned int s = 0; s < KFD_MAX_PROCS; s++) {
		if (!f->procs[s])
			continue;
		cap++;
		for (struct kfd_queue *q = f->procs[s]->queues; q; q = q->next)
			cap++;
	}
	v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v)
		err = -ENOMEM;
	for (unsigned int s = 0; !err && s < KFD_MAX_PROCS; s++) {
		struct kfd_proc *p = f->procs[s];

		if (!p || p->closing)
			continue;
		v[k++] = (struct sim_proc_queue){ .pid = (uint32_t)p->owner, .pasid = p->pasid,
						  .queue_id = SIM_PROC_NO_QUEUE };
		for (struct kfd_queue *q = p->queues; q; q = q->next)
			v[k++] = (struct sim_proc_queue){
				.pid = (uint32_t)p->owner,
				.pasid = p->pasid,
				.queue_id = q->id,
				.gpu_id = sim_kfd_gpu_id(f->sim, q->dev),
				/* kfd/proc's type is the KFD's internal one: 0 compute, 1 SDMA. */
				.type = q->front_only ? 1 : 0,
				.size = q->ring_size,
			};
	}
	kfd_face_unlock(f);
	if (err)
		return err;
	*out = v;
	*n = k;
	return 0;
}
