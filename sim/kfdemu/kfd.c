// SPDX-License-Identifier: MIT
/*
 * kfd.c - /dev/kfd of the emulation: one handle of the model's KFD face (sim/kfd_face*.c) per
 * open(), every ioctl answered by the face with the KFD's own rules and errno. Two requests
 * also go through the front end (front.c), because the CP reads the runtime's rings and the
 * model runs its own: CREATE_QUEUE and DESTROY_QUEUE. WAIT_EVENTS first makes the front end
 * look at every ring, as a doorbell would have (a runtime about to sleep has just rung one).
 *
 * A lost GPU (a client whose device process hsaqm-simd died): what amdkfd does when a GPU
 * reset loses the device's memory. kfd_signal_reset_event() (kfd_events.c) sets every
 * HW_EXCEPTION event of every process with hw_exception_data {memory_lost = 1, reset_cause
 * GPU_HANG, gpu_id}; ROCr's exception thread (Signal::WaitAnyExceptions, runtime.cpp
 * HwExceptionHandler) returns on MemoryLost, prints "HW Exception by GPU node-N ... reason
 * :GPU Hang" and aborts the process unless a system event handler takes it. So once lost:
 *   - WAIT_EVENTS naming a HW_EXCEPTION event completes at once with that data (the event is
 *     manual-reset in ROCr, and the reset's set_event stays set); a wait already asleep in the
 *     face wakes within KFDEMU_LOST_POLL_MS, because in shared mode every wait sleeps in
 *     slices of that length and looks at the device between them;
 *   - the queue ioctls (CREATE/UPDATE_QUEUE, SET_CU_MASK, GET_QUEUE_WAVE_STATE, DBG_TRAP)
 *     answer -EIO, the device queue manager's answer while the HWS is hung (dqm is_hws_hang:
 *     execute_queues_cpsch / unmap_queues_cpsch return -EIO); DESTROY_QUEUE still releases
 *     what the process holds; the rest of the family (memory, events) is the process's side
 *     and keeps answering;
 *   - the front stops reading rings and the SDMA engines stop (front.c): nothing runs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#include "hsaqm-common/barrier.h"
#include "hsaqm-kfd/kfd_transport.h"
#include "hsaqm-kfd/kfd_uapi.h"
#include "kfd_face_internal.h"
#include "kfdemu_internal.h"
#include "hsaqm-common/log.h"
#include "shared_internal.h"

/*
 * How long a WAIT_EVENTS of a shared client sleeps in the face before it looks at the device
 * process again (assumption: the client's own signal waits use the same 100 ms,
 * sim/shared.c SIM_LOST_POLL_NS). Only a lost device shortens a wait: a slice that times out
 * with time left goes on sleeping, so a runtime sees the wait it asked for.
 */
#define KFDEMU_LOST_POLL_MS 100u
/* HW_EXCEPTION events a process may hold (amdkfd has no such limit; ROCr makes one). */
#define KFDEMU_MAX_HW_EVENTS 64u

static struct {
	pthread_mutex_t lock;
	uint32_t hw_event[KFDEMU_MAX_HW_EVENTS]; /* HW_EXCEPTION event ids of the process */
	unsigned int nhw;
	bool said;                               /* the loss was said on stderr */
} lost = { .lock = PTHREAD_MUTEX_INITIALIZER };

bool kfdemu_kfd_lost(void)
{
	struct hsaqm_sim *sim = kfdemu_sim();

	if (!sim || !sim_shared_lost(sim))
		return false;
	pthread_mutex_lock(&lost.lock);
	bool say = !lost.said;

	lost.said = true;
	pthread_mutex_unlock(&lost.lock);
	if (say)
		fprintf(stderr, "hsaqm: emulated GPU lost (its device process is gone): the KFD "
			"reports a GPU reset with memory lost to the runtime's HW exception events; "
			"queue ioctls answer EIO\n");
	return true;
}

/* A created or destroyed event: remember which are HW_EXCEPTION events. */
static void hw_event_note(uint32_t id, bool created)
{
	pthread_mutex_lock(&lost.lock);
	if (created && lost.nhw < KFDEMU_MAX_HW_EVENTS) {
		lost.hw_event[lost.nhw++] = id;
	} else if (!created) {
		for (unsigned int i = 0; i < lost.nhw; i++)
			if (lost.hw_event[i] == id) {
				lost.hw_event[i] = lost.hw_event[--lost.nhw];
				break;
			}
	}
	pthread_mutex_unlock(&lost.lock);
}

static bool is_hw_event(uint32_t id)
{
	bool hit = false;

	pthread_mutex_lock(&lost.lock);
	for (unsigned int i = 0; i < lost.nhw && !hit; i++)
		hit = lost.hw_event[i] == id;
	pthread_mutex_unlock(&lost.lock);
	return hit;
}

/*
 * After the loss: what kfd_signal_reset_event() left in each HW_EXCEPTION event of the wait
 * (struct kfd_hsa_hw_exception_data: reset_type, reset_cause, memory_lost, gpu_id). Returns
 * true when the wait named one (then it is complete).
 */
static bool lost_wait(struct hsaqm_kfd_wait_events_args *a)
{
	struct hsaqm_kfd_event_data *d = (void *)(uintptr_t)a->events_ptr;
	uint32_t hits = 0;

	/* The face refuses larger waits (signal events plus amdkfd's non-signal ones). */
	if (!d || !a->num_events || a->num_events > HSAQM_KFD_SIGNAL_EVENT_LIMIT + 256u)
		return false;
	for (uint32_t i = 0; i < a->num_events; i++)
		hits += is_hw_event(d[i].event_id);
	/* A wait for all of them also needs its other events: the face's wait decides. */
	if (!hits || (a->wait_for_all && hits != a->num_events))
		return false;
	for (uint32_t i = 0; i < a->num_events; i++) {
		if (!is_hw_event(d[i].event_id))
			continue;
		uint32_t hw[4] = {
			0, /* reset_type: "not set by KFD at the moment" (ROCr runtime.cpp) */
			0, /* reset_cause: KFD_HW_EXCEPTION_GPU_HANG (1 would be ECC) */
			1, /* memory_lost: a whole-GPU reset loses the device's memory */
			/* gpu_id: the first GPU's; every model GPU went with the device process */
			sim_kfd_gpu_id(kfdemu_sim(), 0),
		};

		memset(d[i].raw, 0, sizeof(d[i].raw));
		memcpy(d[i].raw, hw, sizeof(hw));
	}
	a->wait_result = HSAQM_KFD_WAIT_COMPLETE;
	return true;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/*
 * WAIT_EVENTS. In-process the face's wait as it is. A shared client's device may die while a
 * runtime thread sleeps here (ROCr's exception thread waits forever), so its wait sleeps in
 * slices of KFDEMU_LOST_POLL_MS: a slice that times out leaves each signal event's age
 * current (the face writes it back), so the next slice wakes for any signal since, exactly as
 * one long wait would.
 */
static int wait_events(const struct hsaqm_kfd_transport *tp, int handle, unsigned long request,
		       struct hsaqm_kfd_wait_events_args *a)
{
	uint32_t timeout = a->timeout;
	bool forever = timeout == 0xffffffffu;
	uint64_t end = now_ms() + timeout;
	int r;

	if (!kfdemu_shared())
		return tp->ioctl(tp->ctx, handle, request, a);
	for (;;) {
		if (kfdemu_kfd_lost() && lost_wait(a))
			return 0;
		uint64_t now = now_ms();
		uint64_t left = forever ? KFDEMU_LOST_POLL_MS : (end > now ? end - now : 0);

		a->timeout = (uint32_t)(left < KFDEMU_LOST_POLL_MS ? left : KFDEMU_LOST_POLL_MS);
		r = tp->ioctl(tp->ctx, handle, request, a);
		if (r || a->wait_result != HSAQM_KFD_WAIT_TIMEOUT || (!forever && a->timeout == left))
			break;
	}
	a->timeout = timeout;
	return r;
}

int kfdemu_kfd_open(void)
{
	const struct hsaqm_kfd_transport *tp = kfdemu_kfd();

	if (!tp)
		return -ENODEV;
	return tp->open(tp->ctx);
}

int kfdemu_kfd_close(int handle)
{
	const struct hsaqm_kfd_transport *tp = kfdemu_kfd();

	return tp ? tp->close(tp->ctx, handle) : -EBADF;
}

static int kfd_ioctl(const struct hsaqm_kfd_transport *tp, int handle, unsigned long request,
		     void *arg)
{
	unsigned long nr = HSAQM_KFD_IOC_NR(request);
	int r;

	switch (nr) {
	case 0x02: /* CREATE_QUEUE */
	case 0x07: /* UPDATE_QUEUE */
	case 0x1A: /* SET_CU_MASK */
	case 0x1B: /* GET_QUEUE_WAVE_STATE */
	case 0x26: /* DBG_TRAP */
		/* The HWS of a lost GPU takes no queue (dqm is_hws_hang: -EIO). */
		if (kfdemu_kfd_lost())
			return -EIO;
		if (nr == 0x02)
			return kfdemu_front_create(handle, request, arg);
		break;
	case 0x03: /* DESTROY_QUEUE */
		return kfdemu_front_destroy(handle, request, arg);
	case 0x08: /* CREATE_EVENT */
		r = tp->ioctl(tp->ctx, handle, request, arg);
		if (!r && arg && _IOC_SIZE(request) >= sizeof(struct hsaqm_kfd_create_event_args) &&
		    ((struct hsaqm_kfd_create_event_args *)arg)->event_type ==
			    HSAQM_KFD_EVENT_TYPE_HW_EXCEPTION)
			hw_event_note(((struct hsaqm_kfd_create_event_args *)arg)->event_id, true);
		return r;
	case 0x09: /* DESTROY_EVENT */
		r = tp->ioctl(tp->ctx, handle, request, arg);
		if (!r && arg)
			hw_event_note(((struct hsaqm_kfd_event_id_args *)arg)->event_id, false);
		return r;
	case 0x0C: /* WAIT_EVENTS */
		kfdemu_front_kick();
		if (!arg || _IOC_SIZE(request) < sizeof(struct hsaqm_kfd_wait_events_args))
			break;
		return wait_events(tp, handle, request, arg);
	default:
		break;
	}
	return tp->ioctl(tp->ctx, handle, request, arg);
}

int kfdemu_kfd_ioctl(int handle, unsigned long request, void *arg)
{
	const struct hsaqm_kfd_transport *tp = kfdemu_kfd();
	int r;

	if (!tp)
		return -EBADF;
	if (_IOC_TYPE(request) != HSAQM_KFD_IOCTL_BASE) {
		kfdemu_unknown_ioctl("kfd", request);
		return -ENOTTY;
	}
	r = kfd_ioctl(tp, handle, request, arg);
	unsigned long nr = HSAQM_KFD_IOC_NR(request);

	if (nr >= 0x80 && nr <= 0x86) {
		static uint32_t seen;

		/*
		 * ROCm's own driver's numbers (the face answers what an upstream KFD answers): the
		 * report names each once, so a reader sees which call a program's runtime made.
		 */
		if (!(hsaqm_fetch_or(&seen, 1u << (nr - 0x80)) & (1u << (nr - 0x80))))
			kfdemu_report_add("dkms-only-ioctl nr %#lx request %#lx -> %d", nr, request, r);
	}
	/* HSAQM_LOG=debug traces every request: what strace would show on a real KFD. */
	hsaqm_log_debug("kfdemu: kfd ioctl nr 0x%02lx -> %d", (unsigned long)HSAQM_KFD_IOC_NR(request),
			r);
	return r;
}

void *kfdemu_kfd_mmap(int handle, void *addr, size_t len, int prot, int flags, off_t offset)
{
	const struct hsaqm_kfd_transport *tp = kfdemu_kfd();

	if (!tp) {
		errno = EBADF;
		return MAP_FAILED;
	}
	return tp->mmap(tp->ctx, handle, addr, len, prot, flags, offset);
}
