/* SPDX-License-Identifier: MIT */
/*
 * HSA signals of the model's HSA face: creation, every load/store/read-modify-write variant
 * of the CoreApiTable, waits, wait-any and asynchronous handlers, on the core's signals
 * (sim_internal.h). A handle is the address of the core's struct sim_signal in model memory,
 * as ROCr's is the address of its amd_signal_t; the face whose model memory holds it owns it.
 *
 * Memory orders: the core's operations are release (store), acquire (load) or acq_rel
 * (read-modify-write). Each HSA variant maps to the core's operation, which is at least as
 * strong as the order it names; a relaxed load is the one variant that is weaker, and it
 * stays relaxed because a client that asks for relaxed must not be given a barrier's cost
 * where none is needed (the core's waits re-read with acquire anyway).
 *
 * A store to a queue's doorbell signal (kind SIM_SIGNAL_DOORBELL) rings that queue: the core's
 * signal writers call sim_hwq_doorbell() for it. That is how a client, and hsaqm's own layers,
 * ring the model.
 *
 * Silent stores are plain stores here: HSA allows a silent store not to wake waiters, it does
 * not forbid it, and waking them keeps waits exact.
 */
#include <errno.h>
#include <stdlib.h>

#include "hsa_face_internal.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-common/log.h"

struct sim_signal *hsa_face_signal(uint64_t handle, struct hsa_face **face)
{
	struct hsa_face *f = hsa_face_of_mem((const void *)(uintptr_t)handle,
					     sizeof(struct sim_signal));
	struct sim_signal *s = f ? sim_signal_from_handle(f->sim, handle) : NULL;

	if (face)
		*face = s ? f : NULL;
	return s;
}

hsaqm_hsa_status_t hsa_face_signal_create(struct hsa_face *f, int64_t initial,
					  uint32_t num_consumers,
					  const struct hsaqm_hsa_agent *consumers,
					  struct hsaqm_hsa_signal *out)
{
	if (!f || !hsa_face_is_open(f))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	if (!out || (num_consumers && !consumers))
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	for (uint32_t i = 0; i < num_consumers; i++) {
		struct hsa_face_agent *a = hsa_face_agent_from_handle(consumers[i].handle);

		if (!a || a->face != f)
			return HSAQM_HSA_STATUS_ERROR_INVALID_AGENT;
	}
	struct sim_signal *s = sim_signal_create(f->sim, initial);
	if (!s)
		return HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES;
	out->handle = (uint64_t)(uintptr_t)s;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t face_signal_destroy(struct hsaqm_hsa_signal signal)
{
	struct hsa_face *f;
	struct sim_signal *s = hsa_face_signal(signal.handle, &f);

	if (!signal.handle)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	if (!s)
		return HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL;
	if (!hsa_face_is_open(f))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	/* A queue's doorbell belongs to its queue: hsa_queue_destroy frees it. */
	if (HSAQM_READ_ONCE(s->kind) == SIM_SIGNAL_DOORBELL)
		return HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL;
	sim_signal_destroy(f->sim, s);
	return HSAQM_HSA_STATUS_SUCCESS;
}

/* ---- Loads and stores -------------------------------------------------------------------- */

static int64_t face_signal_load_relaxed(struct hsaqm_hsa_signal signal)
{
	struct sim_signal *s = hsa_face_signal(signal.handle, NULL);

	return s ? hsaqm_load_relaxed(&s->value) : 0;
}

static int64_t face_signal_load_scacquire(struct hsaqm_hsa_signal signal)
{
	struct sim_signal *s = hsa_face_signal(signal.handle, NULL);

	return s ? sim_signal_load(s) : 0;
}

static void face_signal_store(struct hsaqm_hsa_signal signal, int64_t value)
{
	struct hsa_face *f;
	struct sim_signal *s = hsa_face_signal(signal.handle, &f);

	if (s)
		sim_signal_store(f->sim, s, value);
}

/*
 * The read-modify-write variants. One function per table entry (a client may compare or
 * wrap entries one by one), each forwarding to the core's operation for its kind.
 */
enum rmw_op { RMW_AND, RMW_OR, RMW_XOR, RMW_ADD, RMW_SUB, RMW_XCHG };

static int64_t rmw(struct hsaqm_hsa_signal signal, enum rmw_op op, int64_t v)
{
	struct hsa_face *f;
	struct sim_signal *s = hsa_face_signal(signal.handle, &f);

	if (!s)
		return 0;
	switch (op) {
	case RMW_AND:
		return sim_signal_and(f->sim, s, v);
	case RMW_OR:
		return sim_signal_or(f->sim, s, v);
	case RMW_XOR:
		return sim_signal_xor(f->sim, s, v);
	case RMW_ADD:
		return sim_signal_add(f->sim, s, v);
	case RMW_SUB:
		/* Two's complement: subtracting INT64_MIN wraps like the hardware's atomic does. */
		return sim_signal_add(f->sim, s, (int64_t)(0 - (uint64_t)v));
	case RMW_XCHG:
		return sim_signal_exchange(f->sim, s, v);
	}
	return 0;
}

#define RMW_VOID(name, op)                                                       \
	static void face_signal_##name(struct hsaqm_hsa_signal signal, int64_t value) \
	{                                                                        \
		(void)rmw(signal, op, value);                                    \
	}
#define RMW_VALUE(name, op)                                                         \
	static int64_t face_signal_##name(struct hsaqm_hsa_signal signal, int64_t value) \
	{                                                                           \
		return rmw(signal, op, value);                                      \
	}
#define RMW_ORDERS(M, name, op) \
	M(name##_relaxed, op)   \
	M(name##_scacquire, op) M(name##_screlease, op) M(name##_scacq_screl, op)

RMW_ORDERS(RMW_VOID, and, RMW_AND)
RMW_ORDERS(RMW_VOID, or, RMW_OR)
RMW_ORDERS(RMW_VOID, xor, RMW_XOR)
RMW_ORDERS(RMW_VOID, add, RMW_ADD)
RMW_ORDERS(RMW_VOID, subtract, RMW_SUB)
RMW_ORDERS(RMW_VALUE, exchange, RMW_XCHG)

static int64_t face_signal_cas(struct hsaqm_hsa_signal signal, int64_t expected, int64_t value)
{
	struct hsa_face *f;
	struct sim_signal *s = hsa_face_signal(signal.handle, &f);

	return s ? sim_signal_cas(f->sim, s, expected, value) : 0;
}

#define CAS_ORDER(order)                                                                   \
	static int64_t face_signal_cas_##order(struct hsaqm_hsa_signal signal, int64_t expected, \
					       int64_t value)                               \
	{                                                                                  \
		return face_signal_cas(signal, expected, value);                           \
	}
CAS_ORDER(relaxed)
CAS_ORDER(scacquire)
CAS_ORDER(screlease)
CAS_ORDER(scacq_screl)

#define STORE_ORDER(name)                                                        \
	static void face_signal_##name(struct hsaqm_hsa_signal signal, int64_t value) \
	{                                                                        \
		face_signal_store(signal, value);                                \
	}
STORE_ORDER(store_relaxed)
STORE_ORDER(store_screlease)
STORE_ORDER(silent_store_relaxed)
STORE_ORDER(silent_store_screlease)

/* ---- Waits --------------------------------------------------------------------------------- */

static bool cond_ok(uint32_t cond)
{
	return cond <= HSAQM_HSA_SIGNAL_CONDITION_GTE; /* HSA and sim_cond share the values */
}

/*
 * Timeout in timestamp ticks = model nanoseconds (1 GHz); UINT64_MAX waits for ever. The
 * wait-state hint is ignored: the core never spins, it sleeps until a writer wakes it.
 */
static int64_t face_signal_wait(struct hsaqm_hsa_signal signal, uint32_t cond, int64_t compare,
				uint64_t timeout, uint32_t wait_hint)
{
	struct hsa_face *f;
	struct sim_signal *s = hsa_face_signal(signal.handle, &f);

	if (!s)
		return 0;
	if (!cond_ok(cond))
		return sim_signal_load(s);
	return sim_signal_wait(f->sim, s, (enum sim_cond)cond, compare, timeout);
}

static int64_t face_signal_wait_relaxed(struct hsaqm_hsa_signal signal, uint32_t cond,
					int64_t compare, uint64_t timeout, uint32_t wait_hint)
{
	return face_signal_wait(signal, cond, compare, timeout, wait_hint);
}

static int64_t face_signal_wait_scacquire(struct hsaqm_hsa_signal signal, uint32_t cond,
					  int64_t compare, uint64_t timeout, uint32_t wait_hint)
{
	return face_signal_wait(signal, cond, compare, timeout, wait_hint);
}

/* Index of the first signal whose condition holds, or UINT32_MAX on timeout or bad input (ROCr). */
static uint32_t face_signal_wait_any(uint32_t count, struct hsaqm_hsa_signal *signals,
				     uint32_t *conds, int64_t *values, uint64_t timeout,
				     uint32_t wait_hint, int64_t *satisfying_value)
{
	struct sim_signal *stack_s[16], **s = stack_s;
	enum sim_cond stack_c[16], *c = stack_c;
	struct hsa_face *f = NULL;
	uint32_t ret = UINT32_MAX;
	int64_t v = 0;

	if (!count || !signals || !conds || !values)
		return UINT32_MAX;
	if (count > 16) {
		s = malloc(count * sizeof(*s));
		c = malloc(count * sizeof(*c));
		if (!s || !c)
			goto out;
	}
	for (uint32_t i = 0; i < count; i++) {
		struct hsa_face *fi;

		s[i] = hsa_face_signal(signals[i].handle, &fi);
		/* Every signal must be live and of one model; conditions must be HSA's four. */
		if (!s[i] || (f && fi != f) || !cond_ok(conds[i]))
			goto out;
		f = fi;
		c[i] = (enum sim_cond)conds[i];
	}
	ret = sim_signal_wait_any(f->sim, count, s, c, values, timeout, &v);
	if (ret >= count)
		ret = UINT32_MAX;
	else if (satisfying_value)
		*satisfying_value = v;
out:
	if (s != stack_s)
		free(s);
	if (c != stack_c)
		free(c);
	return ret;
}

/*
 * hsa_amd_signal_async_handler: the core's handler thread (REAL mode), or the thread that ran
 * the event loop once it holds no lock (VIRTUAL), runs @handler when the condition holds;
 * returning true keeps it armed.
 */
static hsaqm_hsa_status_t face_signal_async_handler(struct hsaqm_hsa_signal signal, uint32_t cond,
						    int64_t value,
						    hsaqm_hsa_amd_signal_handler handler, void *arg)
{
	struct hsa_face *f;
	struct sim_signal *s = hsa_face_signal(signal.handle, &f);

	if (!s)
		return HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL;
	if (!hsa_face_is_open(f))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	if (!handler || !cond_ok(cond))
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	return hsa_face_status_from_errno(
		sim_signal_async_handler(f->sim, s, (enum sim_cond)cond, value, handler, arg));
}

/* hsa_amd_signal_value_pointer: where the value lives (the first member of the core's signal). */
static hsaqm_hsa_status_t face_signal_value_pointer(struct hsaqm_hsa_signal signal,
						    volatile int64_t **value_ptr)
{
	struct sim_signal *s = hsa_face_signal(signal.handle, NULL);

	if (!s)
		return HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL;
	if (!value_ptr)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	*value_ptr = &s->value;
	return HSAQM_HSA_STATUS_SUCCESS;
}

void hsa_face_signal_fill_tables(struct hsa_face *f)
{
	struct hsaqm_core_api_table *c = &f->core;
	struct hsaqm_amd_ext_table_v2 *a = &f->amd_ext;

	c->hsa_signal_destroy_fn = face_signal_destroy;
	c->hsa_signal_load_relaxed_fn = face_signal_load_relaxed;
	c->hsa_signal_load_scacquire_fn = face_signal_load_scacquire;
	c->hsa_signal_store_relaxed_fn = face_signal_store_relaxed;
	c->hsa_signal_store_screlease_fn = face_signal_store_screlease;
	c->hsa_signal_silent_store_relaxed_fn = face_signal_silent_store_relaxed;
	c->hsa_signal_silent_store_screlease_fn = face_signal_silent_store_screlease;
	c->hsa_signal_wait_relaxed_fn = face_signal_wait_relaxed;
	c->hsa_signal_wait_scacquire_fn = face_signal_wait_scacquire;
#define SET_RMW(name)                                                      \
	c->hsa_signal_##name##_relaxed_fn = face_signal_##name##_relaxed;     \
	c->hsa_signal_##name##_scacquire_fn = face_signal_##name##_scacquire; \
	c->hsa_signal_##name##_screlease_fn = face_signal_##name##_screlease; \
	c->hsa_signal_##name##_scacq_screl_fn = face_signal_##name##_scacq_screl;
	SET_RMW(and)
	SET_RMW(or)
	SET_RMW(xor)
	SET_RMW(add)
	SET_RMW(subtract)
	SET_RMW(exchange)
	SET_RMW(cas)
	a->hsa_amd_signal_async_handler_fn = face_signal_async_handler;
	a->hsa_amd_signal_wait_any_fn = face_signal_wait_any;
	a->hsa_amd_signal_value_pointer_fn = (hsaqm_api_fn)face_signal_value_pointer;
}
