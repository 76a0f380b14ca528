/* SPDX-License-Identifier: MIT */
/*
 * The model as a whole: creation and destruction, time, the VIRTUAL event loop, model
 * memory entry points, and the little the faces need from the core (configuration, per-model
 * face state).
 *
 * VIRTUAL mode has no threads. Time moves only inside hsaqm_sim_advance(),
 * hsaqm_sim_run_until_idle() and the calls that must wait (signal waits, queue control):
 * each runs the loop itself, under vloop_lock, processing every device's events in time
 * order (ties by device index, then by each device's event sequence), so a run is fully
 * determined by its inputs and the seed.
 *
 * Lock order (docs/sim.md, "Locks and callbacks"): HSA face lock -> KFD face lock ->
 * vloop_lock -> the core's own locks (handler_lock, request and doorbell locks, the arena's).
 * The loop never runs async handlers itself: it marks them due, and the thread that ran it
 * runs them once it has released vloop_lock and holds no face lock (sim_vloop_drain(), and
 * sim_face_unlock() when its last face lock goes). A handler may so take any face lock.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "hsaqm-common/log.h"
#include "hsaqm-common/text.h"

/* Model memory reserved per model (sparse: only touched pages cost memory). */
#define SIM_ARENA_DEFAULT_MB 4096u

static size_t arena_size(void)
{
	static int once;
	const char *s = getenv("HSAQM_SIM_ARENA_MB");
	unsigned long long mb;

	if (!s || !*s)
		return (size_t)SIM_ARENA_DEFAULT_MB << 20;
	if (hsaqm_parse_uint(s, 10, 16, 1ull << 20, &mb)) { /* the one rule: hsaqm-common/text.h */
		hsaqm_log_notice(&once, "HSAQM_SIM_ARENA_MB=\"%s\" is not 16..1048576, using %u", s,
				 SIM_ARENA_DEFAULT_MB);
		return (size_t)SIM_ARENA_DEFAULT_MB << 20;
	}
	return (size_t)mb << 20;
}

static int check_config(const struct hsaqm_sim_config *in, struct hsaqm_sim_config *out)
{
	if (in)
		*out = *in;
	else
		memset(out, 0, sizeof(*out));
	if (!out->num_devices)
		out->num_devices = 1;
	if (out->num_devices > HSAQM_SIM_MAX_DEVICES) {
		hsaqm_log_err("num_devices %u: the model has 1..%d devices", out->num_devices,
			      HSAQM_SIM_MAX_DEVICES);
		return -EINVAL;
	}
	if (out->time_mode != HSAQM_SIM_TIME_REAL && out->time_mode != HSAQM_SIM_TIME_VIRTUAL) {
		hsaqm_log_err("time_mode %d is neither REAL nor VIRTUAL", (int)out->time_mode);
		return -EINVAL;
	}
	if (out->time_scale == 0)
		out->time_scale = 1.0;
	if (!isfinite(out->time_scale) || out->time_scale < 1e-6 || out->time_scale > 1e6) {
		hsaqm_log_err("time_scale %g is not in 1e-6..1e6", out->time_scale);
		return -EINVAL;
	}
	if (!out->kfd_minor_version)
		out->kfd_minor_version = 17;
	if (out->kfd_minor_version < 11 || out->kfd_minor_version > 18) {
		hsaqm_log_err("kfd_minor_version %u is not 11..18", out->kfd_minor_version);
		return -EINVAL;
	}
	if (out->sched_policy < 0 || out->sched_policy > 2) {
		hsaqm_log_err("sched_policy %d is not 0, 1 or 2", out->sched_policy);
		return -EINVAL;
	}
	if (out->cwsr_disable != 0 && out->cwsr_disable != 1) {
		hsaqm_log_err("cwsr_disable %d is not 0 or 1", out->cwsr_disable);
		return -EINVAL;
	}
	if (out->call_return_ns > 100000000ull) {
		hsaqm_log_err("call_return_ns %llu is over 100 ms",
			      (unsigned long long)out->call_return_ns);
		return -EINVAL;
	}
	return 0;
}

int hsaqm_sim_create(const struct hsaqm_sim_config *cfg, struct hsaqm_sim **out)
{
	struct hsaqm_sim *sim;
	int err;

	if (!out)
		return -EINVAL;
	sim = calloc(1, sizeof(*sim));
	if (!sim)
		return -ENOMEM;
	err = check_config(cfg, &sim->cfg);
	if (err) {
		free(sim);
		return err;
	}
	/* The paths are the caller's; only the trace path is used after creation, at open. */
	sim->cfg.properties_path = NULL;
	sim->cfg.timing_path = NULL;
	sim->cfg.trace_path = NULL;
	sim->mode = sim->cfg.time_mode;
	sim->scale = sim->cfg.time_scale;
	pthread_mutex_init(&sim->vloop_lock, NULL);
	pthread_mutex_init(&sim->handler_lock, NULL);
	pthread_mutex_init(&sim->handler_run_lock, NULL);
	/* Recursive: a face's init may ask for another face (the HSA face uses the KFD face). */
	pthread_mutexattr_t attr;
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&sim->face_lock, &attr);
	pthread_mutexattr_destroy(&attr);

	err = sim_arena_init(&sim->arena, arena_size());
	if (err)
		goto fail;
	sim->ndev = sim->cfg.num_devices;
	for (unsigned int d = 0; d < sim->ndev; d++) {
		err = sim_device_create(sim, d, cfg ? cfg->properties_path : NULL,
					cfg ? cfg->timing_path : NULL, &sim->dev[d]);
		if (err) {
			sim->ndev = d;
			goto fail;
		}
	}
	if (cfg && cfg->trace_path) {
		err = sim_trace_open(sim, cfg->trace_path);
		if (err)
			goto fail;
	}
	sim->start_mono = sim_mono_ns();
	if (sim->mode == HSAQM_SIM_TIME_REAL) {
		for (unsigned int d = 0; d < sim->ndev; d++) {
			err = sim_device_start(sim->dev[d]);
			if (err)
				goto fail;
		}
	}
	*out = sim;
	return 0;

fail:
	hsaqm_sim_destroy(sim);
	return err;
}

void hsaqm_sim_destroy(struct hsaqm_sim *sim)
{
	static const enum sim_face order[] = { SIM_FACE_HSA, SIM_FACE_KFD, SIM_FACE_SYSFS };

	if (!sim)
		return;
	/* Faces first, while the engines still run: they may destroy their queues. */
	for (unsigned int i = 0; i < 3; i++) {
		enum sim_face f = order[i];

		if (sim->face_state[f] && sim->face_fini[f])
			sim->face_fini[f](sim, sim->face_state[f]);
		sim->face_state[f] = NULL;
	}
	sim_signal_handlers_stop(sim);
	/* A client stops its error thread and hangs up (the device destroys what it left). */
	sim_shared_detach(sim);
	for (unsigned int d = 0; d < sim->ndev; d++)
		sim_device_stop(sim->dev[d]);
	for (unsigned int d = 0; d < sim->ndev; d++)
		sim_device_destroy(sim->dev[d]);
	sim_trace_close(sim);
	sim_arena_fini(&sim->arena);
	/* Last: a device's engines woke on the device page until they stopped. */
	sim_shared_release(sim);
	pthread_mutex_destroy(&sim->vloop_lock);
	pthread_mutex_destroy(&sim->handler_lock);
	pthread_mutex_destroy(&sim->handler_run_lock);
	pthread_mutex_destroy(&sim->face_lock);
	free(sim);
}

uint64_t hsaqm_sim_now_ns(const struct hsaqm_sim *sim)
{
	return sim ? sim_clock_now(sim) : 0;
}

/* ------------------------------------------------------------------------------------
 * The VIRTUAL loop.
 */
bool sim_vloop_step(struct hsaqm_sim *sim, uint64_t limit)
{
	/*
	 * Acquire: pairs with the release of vnow by the loop's last step (another thread may
	 * have run it).
	 */
	uint64_t t = hsaqm_load_acquire(&sim->vnow);
	bool did = false;

	/* Everything due now, on every device, until nothing moves (a signal may cross devices). */
	for (;;) {
		bool any = false;

		for (unsigned int d = 0; d < sim->ndev; d++)
			any |= sim_device_run(sim->dev[d], t);
		any |= sim_signal_handlers_collect(sim);
		if (!any)
			break;
		did = true;
	}
	/* Work done: the caller looks at its condition before time moves on (exact instants). */
	if (did)
		return true;
	uint64_t next = UINT64_MAX;
	for (unsigned int d = 0; d < sim->ndev; d++) {
		uint64_t n = sim_device_next_event(sim->dev[d]);

		if (n < next)
			next = n;
	}
	if (next == UINT64_MAX || next > limit)
		return false;
	/*
	 * Release: the events run up to @next are visible to whoever reads the new time with
	 * acquire.
	 */
	if (next > t)
		hsaqm_store_release(&sim->vnow, next);
	return true;
}

/* ------------------------------------------------------------------------------------
 * Face locks. A thread's count of face locks held tells the loop whether it may run the due
 * handlers (none held) or must leave them to the face's unlock (any held).
 */
static _Thread_local unsigned int face_locks_held;

void sim_face_lock(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
	face_locks_held++;
}

void sim_face_unlock(struct hsaqm_sim *sim, pthread_mutex_t *m)
{
	face_locks_held--;
	pthread_mutex_unlock(m);
	/*
	 * The last face lock gone: handlers a loop run under it left due run now, in the thread
	 * that ran it, before its call returns (not inside a model callback: those never drain).
	 */
	if (!face_locks_held && !sim_in_engine())
		sim_signal_handlers_drain(sim, false);
}

bool sim_vloop_drain(struct hsaqm_sim *sim)
{
	/* Acquire: pairs with the RMWs on the count (signal.c). */
	if (face_locks_held || !hsaqm_load_acquire(&sim->handlers_pending))
		return false;
	pthread_mutex_unlock(&sim->vloop_lock);
	sim_signal_handlers_drain(sim, true);
	pthread_mutex_lock(&sim->vloop_lock);
	return true;
}

int sim_vloop_until(struct hsaqm_sim *sim, const uint32_t *done)
{
	int err = 0;

	pthread_mutex_lock(&sim->vloop_lock);
	sim_engine_enter();
	/*
	 * Acquire, each look: pairs with the event's release of @done; what it produced is seen
	 * after the loop.
	 */
	while (!hsaqm_load_acquire(done)) {
		if (sim_vloop_drain(sim))
			continue;
		if (!sim_vloop_step(sim, UINT64_MAX) && !hsaqm_load_acquire(done)) {
			/* Every request finishes through events: this is a model bug, not a caller error. */
			hsaqm_log_err("virtual loop ran dry before a request finished");
			err = -EDEADLK;
			break;
		}
	}
	sim_engine_leave();
	pthread_mutex_unlock(&sim->vloop_lock);
	return err;
}

/*
 * The caller-driven steps of VIRTUAL mode take the loop; a caller already inside the engine
 * (code the loop itself runs) would deadlock on it, hence -EDEADLK instead.
 */
static int vloop_enter(struct hsaqm_sim *sim)
{
	if (!sim || sim->mode != HSAQM_SIM_TIME_VIRTUAL)
		return -EINVAL;
	if (sim_in_engine())
		return -EDEADLK;
	pthread_mutex_lock(&sim->vloop_lock);
	sim_engine_enter();
	return 0;
}

/* Runs every event of the next @ns of model time (loop held); returns the instant it ran to. */
static uint64_t vloop_run_for(struct hsaqm_sim *sim, uint64_t ns)
{
	/* Acquire: as in sim_vloop_step(): the loop's last time and what ran up to it. */
	uint64_t now = hsaqm_load_acquire(&sim->vnow);
	uint64_t end = ns > UINT64_MAX - 1 - now ? UINT64_MAX - 1 : now + ns;

	/* Handlers due at an instant run before time moves on, as when the loop ran them. */
	while (sim_vloop_drain(sim) || sim_vloop_step(sim, end))
		;
	return end;
}

int hsaqm_sim_advance(struct hsaqm_sim *sim, uint64_t ns)
{
	int err = vloop_enter(sim);

	if (err)
		return err;
	uint64_t target = vloop_run_for(sim, ns);
	/*
	 * Acquire, then release: the time moves forward only, and what ran before it is
	 * published with it.
	 */
	if (hsaqm_load_acquire(&sim->vnow) < target)
		hsaqm_store_release(&sim->vnow, target);
	sim_engine_leave();
	pthread_mutex_unlock(&sim->vloop_lock);
	return 0;
}

int hsaqm_sim_run_until_idle(struct hsaqm_sim *sim, uint64_t max_ns)
{
	int err = vloop_enter(sim);

	if (err)
		return err;
	uint64_t limit = vloop_run_for(sim, max_ns);
	for (unsigned int d = 0; d < sim->ndev; d++) {
		if (!sim_device_idle(sim->dev[d])) {
			err = -ETIMEDOUT;
			break;
		}
	}
	/* Acquire, then release: as above, at the caller's limit. */
	if (err && hsaqm_load_acquire(&sim->vnow) < limit)
		hsaqm_store_release(&sim->vnow, limit);
	sim_engine_leave();
	pthread_mutex_unlock(&sim->vloop_lock);
	return err;
}

/* ------------------------------------------------------------------------------------
 * Memory, profile, face support.
 */
void *hsaqm_sim_mem_alloc(struct hsaqm_sim *sim, size_t size, size_t align)
{
	return sim_mem_alloc(sim, size, align); /* checks: 0 or EINVAL/ENOMEM in errno */
}

void hsaqm_sim_mem_free(struct hsaqm_sim *sim, void *ptr)
{
	sim_mem_free(sim, ptr);
}

int hsaqm_sim_profile_dump(const struct hsaqm_sim *sim, unsigned int dev, FILE *out)
{
	if (!sim || !out || dev >= sim->ndev)
		return -EINVAL;
	sim_profile_dump(&sim->dev[dev]->prof, out);
	return 0;
}

const struct sim_profile *sim_device_profile(const struct hsaqm_sim *sim, unsigned int dev)
{
	return sim && dev < sim->ndev ? &sim->dev[dev]->prof : NULL;
}

unsigned int sim_device_count(const struct hsaqm_sim *sim)
{
	return sim ? sim->ndev : 0;
}

bool sim_runtime_topology(const struct hsaqm_sim *sim)
{
	return sim && sim->runtime_topology;
}

void sim_set_runtime_topology(struct hsaqm_sim *sim)
{
	sim->runtime_topology = true;
}

const struct hsaqm_sim_config *sim_config(const struct hsaqm_sim *sim)
{
	return sim ? &sim->cfg : NULL;
}

void *sim_face_state(struct hsaqm_sim *sim, enum sim_face face, sim_face_init_fn init,
		     sim_face_fini_fn fini)
{
	void *st;

	if (!sim || (unsigned int)face >= SIM_FACE_SLOTS)
		return NULL;
	pthread_mutex_lock(&sim->face_lock);
	st = sim->face_state[face];
	if (!st && init) {
		st = init(sim);
		if (st) {
			sim->face_state[face] = st;
			sim->face_fini[face] = fini;
		}
	}
	pthread_mutex_unlock(&sim->face_lock);
	return st;
}
