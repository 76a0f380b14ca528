/* SPDX-License-Identifier: MIT */
/*
 * The HSA face of the model: an HsaApiTable whose entries are the model's implementation of
 * what ROCr offers (docs/sim.md, "HSA face"). This file holds the tables, the registry that
 * lets a context-free HSA call find its model, init/shut-down, system information, and a
 * named stub for every entry the model does not implement. Agents, regions and memory pools
 * are in hsa_face_agent.c, signals in hsa_face_signal.c, queues in hsa_face_queue.c.
 *
 * Calling convention. The tables hold function pointers of the types of hsa-layer's mirror;
 * where the mirror types a slot as the generic hsaqm_api_fn, the face stores its function
 * cast to that type, and a client calls it through the HSA prototype, as it would call ROCr's.
 * Converting a function pointer to another function-pointer type and back is defined C; the
 * call is made with the real prototype, so each function here is defined with exactly the
 * parameters and return type of its HSA entry. The stubs of unsupported entries are the one
 * exception: they take no parameters and return HSA_STATUS_ERROR, and are called through
 * prototypes with parameters. That is undefined in ISO C but well defined by the x86-64 and
 * AArch64 calling conventions hsa_abi.h restricts hsaqm to (the caller owns its arguments,
 * the status returns in a register), which is how every tool chain of these ABIs behaves.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsa_face_internal.h"
#include "hsa_face_tools.h"
#include "kfd_face_internal.h"
#include "hsaqm-common/barrier.h"
#include "hsaqm-common/log.h"

/* ------------------------------------------------------------------------------------
 * Registry.
 */
static struct hsa_face *registry[HSA_FACE_MAX_MODELS];
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

static struct hsa_face *face_at(unsigned int slot)
{
	/* Acquire: pairs with the release that published a fully built face. */
	return hsaqm_load_acquire(&registry[slot]);
}

struct hsa_face *hsa_face_of_mem(const void *p, size_t len)
{
	if (!p)
		return NULL;
	for (unsigned int i = 0; i < HSA_FACE_MAX_MODELS; i++) {
		struct hsa_face *f = face_at(i);

		if (f && sim_mem_contains(f->sim, p, len))
			return f;
	}
	return NULL;
}

/* @h is the address of one of the @n elements, @size bytes each, of the array at @base. */
static bool handle_in(uintptr_t h, const void *base, unsigned int n, size_t size)
{
	uintptr_t lo = (uintptr_t)base, hi = lo + (uintptr_t)n * size;

	return h >= lo && h < hi && (h - lo) % size == 0;
}

struct hsa_face_agent *hsa_face_agent_from_handle(uint64_t handle)
{
	uintptr_t h = (uintptr_t)handle;

	for (unsigned int i = 0; h && i < HSA_FACE_MAX_MODELS; i++) {
		struct hsa_face *f = face_at(i);

		if (f && handle_in(h, f->agents, f->nagents, sizeof(f->agents[0])))
			return (struct hsa_face_agent *)h;
	}
	return NULL;
}

struct hsa_face_pool *hsa_face_pool_from_handle(uint64_t handle)
{
	uintptr_t h = (uintptr_t)handle;

	for (unsigned int i = 0; h && i < HSA_FACE_MAX_MODELS; i++) {
		struct hsa_face *f = face_at(i);

		if (f && handle_in(h, f->pools, f->npools, sizeof(f->pools[0])))
			return (struct hsa_face_pool *)h;
	}
	return NULL;
}

bool hsa_face_is_open(struct hsa_face *f)
{
	bool open;

	hsa_face_lock(f);
	open = f->init_count > 0;
	hsa_face_unlock(f);
	return open;
}

hsaqm_hsa_status_t hsa_face_status_from_errno(int err)
{
	switch (err) {
	case 0:
		return HSAQM_HSA_STATUS_SUCCESS;
	case -EINVAL:
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	case -ENOMEM:
	case -EBUSY:
	case -ENOSPC:
		return HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES;
	case -EDEADLK:
		/* A blocking call from a model callback (sim_internal.h) would hang. */
		return HSAQM_HSA_STATUS_ERROR_INVALID_RUNTIME_STATE;
	default:
		return HSAQM_HSA_STATUS_ERROR;
	}
}

/* ------------------------------------------------------------------------------------
 * Init, shut-down, system information.
 */
static hsaqm_hsa_status_t face_init(struct hsa_face *f)
{
	if (!f)
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	hsa_face_lock(f);
	if (f->init_count == INT32_MAX) {
		hsa_face_unlock(f);
		return HSAQM_HSA_STATUS_ERROR_REFCOUNT_OVERFLOW;
	}
	if (f->init_count++ == 0)
		hsa_face_tools_load(f); /* as ROCr, under its init lock */
	hsa_face_unlock(f);
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t face_shut_down(struct hsa_face *f)
{
	bool last;

	if (!f)
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	hsa_face_lock(f);
	if (f->init_count == 0) {
		hsa_face_unlock(f);
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	}
	last = f->init_count == 1;
	hsa_face_unlock(f);
	/* As ROCr: the tools' OnUnload while the runtime is still open, before the queues go. */
	if (last)
		hsa_face_tools_unload(f);
	hsa_face_lock(f);
	last = f->init_count > 0 && --f->init_count == 0;
	hsa_face_unlock(f);
	/* As ROCr unloading: the runtime's last reference takes its queues with it. */
	if (last)
		hsa_face_queues_destroy_all(f);
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t face_system_get_info(struct hsa_face *f, uint32_t attribute, void *value)
{
	if (!f || !hsa_face_is_open(f))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	if (!value)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	switch (attribute) {
	case SIM_HSA_SYSTEM_INFO_VERSION_MAJOR:
		*(uint16_t *)value = 1;
		break;
	case SIM_HSA_SYSTEM_INFO_VERSION_MINOR:
		*(uint16_t *)value = 1;
		break;
	case SIM_HSA_SYSTEM_INFO_TIMESTAMP:
		/* 1 GHz: one tick per model nanosecond. */
		*(uint64_t *)value = hsaqm_sim_now_ns(f->sim);
		break;
	case SIM_HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY:
		*(uint64_t *)value = HSA_FACE_TIMESTAMP_HZ;
		break;
	case SIM_HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT:
		*(uint64_t *)value = UINT64_MAX;
		break;
	case SIM_HSA_SYSTEM_INFO_ENDIANNESS:
		*(uint32_t *)value = SIM_HSA_ENDIANNESS_LITTLE;
		break;
	case SIM_HSA_SYSTEM_INFO_MACHINE_MODEL:
		*(uint32_t *)value = SIM_HSA_MACHINE_MODEL_LARGE;
		break;
	case SIM_HSA_SYSTEM_INFO_EXTENSIONS:
		memset(value, 0, 128); /* no extension (finalizer, images...) is modelled */
		break;
	case SIM_HSA_AMD_SYSTEM_INFO_BUILD_VERSION:
		*(const char **)value = "hsaqm-sim";
		break;
	case SIM_HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED:
	case SIM_HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT:
		*(bool *)value = true; /* model memory is the same address in host and device */
		break;
	default:
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t
face_iterate_agents(struct hsa_face *f, hsaqm_hsa_status_t (*cb)(struct hsaqm_hsa_agent, void *),
		    void *data)
{
	if (!f || !hsa_face_is_open(f))
		return HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED;
	if (!cb)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	for (unsigned int i = 0; i < f->nagents; i++) {
		struct hsaqm_hsa_agent a = { hsa_face_agent_handle(&f->agents[i]) };
		hsaqm_hsa_status_t st = cb(a, data);

		/* Any status but SUCCESS stops the walk and is returned (INFO_BREAK included). */
		if (st != HSAQM_HSA_STATUS_SUCCESS)
			return st;
	}
	return HSAQM_HSA_STATUS_SUCCESS;
}

/*
 * The entries that carry no handle exist once per registry slot: a model's table points at
 * the copies of its own slot, so two models in one process keep apart.
 */
#define FACE_SLOT_FNS(n)                                                                          \
	static hsaqm_hsa_status_t slot##n##_init(void)                                            \
	{                                                                                         \
		return face_init(face_at(n));                                                     \
	}                                                                                         \
	static hsaqm_hsa_status_t slot##n##_shut_down(void)                                       \
	{                                                                                         \
		return face_shut_down(face_at(n));                                                \
	}                                                                                         \
	static hsaqm_hsa_status_t slot##n##_system_get_info(uint32_t attribute, void *value)      \
	{                                                                                         \
		return face_system_get_info(face_at(n), attribute, value);                        \
	}                                                                                         \
	static hsaqm_hsa_status_t slot##n##_iterate_agents(                                       \
		hsaqm_hsa_status_t (*cb)(struct hsaqm_hsa_agent, void *), void *data)             \
	{                                                                                         \
		return face_iterate_agents(face_at(n), cb, data);                                 \
	}                                                                                         \
	static hsaqm_hsa_status_t slot##n##_signal_create(int64_t initial, uint32_t nconsumers,   \
							  const struct hsaqm_hsa_agent *consumers, \
							  struct hsaqm_hsa_signal *signal)         \
	{                                                                                         \
		return hsa_face_signal_create(face_at(n), initial, nconsumers, consumers, signal); \
	}                                                                                         \
	static hsaqm_hsa_status_t slot##n##_amd_signal_create(                                    \
		int64_t initial, uint32_t nconsumers, const struct hsaqm_hsa_agent *consumers,    \
		uint64_t attributes, struct hsaqm_hsa_signal *signal)                             \
	{                                                                                         \
		(void)attributes; /* GPU_ONLY and IPC change nothing in one address space */      \
		return hsa_face_signal_create(face_at(n), initial, nconsumers, consumers, signal); \
	}

FACE_SLOT_FNS(0)
FACE_SLOT_FNS(1)
FACE_SLOT_FNS(2)
FACE_SLOT_FNS(3)
FACE_SLOT_FNS(4)
FACE_SLOT_FNS(5)
FACE_SLOT_FNS(6)
FACE_SLOT_FNS(7)
FACE_SLOT_FNS(8)
FACE_SLOT_FNS(9)
FACE_SLOT_FNS(10)
FACE_SLOT_FNS(11)
FACE_SLOT_FNS(12)
FACE_SLOT_FNS(13)
FACE_SLOT_FNS(14)
FACE_SLOT_FNS(15)

struct slot_fns {
	hsaqm_hsa_init_fn init;
	hsaqm_hsa_shut_down_fn shut_down;
	hsaqm_hsa_status_t (*system_get_info)(uint32_t, void *);
	hsaqm_hsa_iterate_agents_fn iterate_agents;
	hsaqm_hsa_signal_create_fn signal_create;
	hsaqm_hsa_status_t (*amd_signal_create)(int64_t, uint32_t, const struct hsaqm_hsa_agent *,
						uint64_t, struct hsaqm_hsa_signal *);
};

#define SLOT_ENTRY(n)                                                           \
	{                                                                       \
		slot##n##_init, slot##n##_shut_down, slot##n##_system_get_info, \
			slot##n##_iterate_agents, slot##n##_signal_create,      \
			slot##n##_amd_signal_create                             \
	}

static const struct slot_fns slot_fns[HSA_FACE_MAX_MODELS] = {
	SLOT_ENTRY(0),	SLOT_ENTRY(1),	SLOT_ENTRY(2),	SLOT_ENTRY(3),
	SLOT_ENTRY(4),	SLOT_ENTRY(5),	SLOT_ENTRY(6),	SLOT_ENTRY(7),
	SLOT_ENTRY(8),	SLOT_ENTRY(9),	SLOT_ENTRY(10), SLOT_ENTRY(11),
	SLOT_ENTRY(12), SLOT_ENTRY(13), SLOT_ENTRY(14), SLOT_ENTRY(15),
};

HSAQM_STATIC_ASSERT(HSA_FACE_MAX_MODELS == 16, "one SLOT_ENTRY per registry slot");

static hsaqm_hsa_status_t face_status_string(hsaqm_hsa_status_t status, const char **out)
{
	/* Each status's name, then a short description (the model's words). */
	static const struct {
		hsaqm_hsa_status_t st;
		const char *text;
	} strings[] = {
		{ HSAQM_HSA_STATUS_SUCCESS, "HSA_STATUS_SUCCESS: success" },
		{ HSAQM_HSA_STATUS_INFO_BREAK,
		  "HSA_STATUS_INFO_BREAK: the callback stopped the iteration" },
		{ HSAQM_HSA_STATUS_ERROR, "HSA_STATUS_ERROR: generic error" },
		{ HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT,
		  "HSA_STATUS_ERROR_INVALID_ARGUMENT: an argument is out of its range" },
		{ HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE_CREATION,
		  "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION: this queue cannot be created" },
		{ HSAQM_HSA_STATUS_ERROR_INVALID_ALLOCATION,
		  "HSA_STATUS_ERROR_INVALID_ALLOCATION: this allocation cannot be made" },
		{ HSAQM_HSA_STATUS_ERROR_INVALID_AGENT,
		  "HSA_STATUS_ERROR_INVALID_AGENT: not an agent" },
		{ HSAQM_HSA_STATUS_ERROR_INVALID_REGION,
		  "HSA_STATUS_ERROR_INVALID_REGION: not a memory region" },
		{ HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL,
		  "HSA_STATUS_ERROR_INVALID_SIGNAL: not a signal" },
		{ HSAQM_HSA_STATUS_ERROR_INVALID_QUEUE,
		  "HSA_STATUS_ERROR_INVALID_QUEUE: not a queue" },
		{ HSAQM_HSA_STATUS_ERROR_OUT_OF_RESOURCES,
		  "HSA_STATUS_ERROR_OUT_OF_RESOURCES: out of resources" },
		{ HSAQM_HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
		  "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: malformed AQL packet" },
		{ HSAQM_HSA_STATUS_ERROR_RESOURCE_FREE,
		  "HSA_STATUS_ERROR_RESOURCE_FREE: a resource could not be released" },
		{ HSAQM_HSA_STATUS_ERROR_NOT_INITIALIZED,
		  "HSA_STATUS_ERROR_NOT_INITIALIZED: hsa_init has not been called" },
		{ HSAQM_HSA_STATUS_ERROR_REFCOUNT_OVERFLOW,
		  "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW: reference count overflow" },
		{ HSAQM_HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS,
		  "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: arguments that do not fit together" },
		{ HSAQM_HSA_STATUS_ERROR_INVALID_INDEX,
		  "HSA_STATUS_ERROR_INVALID_INDEX: index out of range" },
		{ HSAQM_HSA_STATUS_ERROR_INVALID_ISA, "HSA_STATUS_ERROR_INVALID_ISA: not an ISA" },
		{ 0x1010,
		  "HSA_STATUS_ERROR_INVALID_CODE_OBJECT: not a valid code object (kernel object)" },
		{ HSAQM_HSA_STATUS_ERROR_EXCEPTION,
		  "HSA_STATUS_ERROR_EXCEPTION: hardware exception" },
		{ HSAQM_HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP,
		  "HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP: not a signal group" },
		{ HSAQM_HSA_STATUS_ERROR_INVALID_RUNTIME_STATE,
		  "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE: not possible in the runtime's current "
		  "state" },
		{ HSAQM_HSA_STATUS_ERROR_FATAL, "HSA_STATUS_ERROR_FATAL: fatal queue error" },
		{ HSAQM_HSA_STATUS_ERROR_INVALID_MEMORY_POOL,
		  "HSA_STATUS_ERROR_INVALID_MEMORY_POOL: not a memory pool" },
		{ HSAQM_HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION,
		  "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: access outside the address "
		  "apertures" },
		{ HSAQM_HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION,
		  "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: illegal shader instruction" },
		{ HSAQM_HSA_STATUS_ERROR_MEMORY_FAULT,
		  "HSA_STATUS_ERROR_MEMORY_FAULT: memory fault" },
		{ HSAQM_HSA_STATUS_CU_MASK_REDUCED,
		  "HSA_STATUS_CU_MASK_REDUCED: CU mask set without CUs the device lacks" },
		{ HSAQM_HSA_STATUS_ERROR_OUT_OF_REGISTERS,
		  "HSA_STATUS_ERROR_OUT_OF_REGISTERS: not enough registers" },
		{ HSAQM_HSA_STATUS_ERROR_RESOURCE_BUSY,
		  "HSA_STATUS_ERROR_RESOURCE_BUSY: resource busy" },
		{ HSAQM_HSA_STATUS_ERROR_NOT_SUPPORTED,
		  "HSA_STATUS_ERROR_NOT_SUPPORTED: not supported" },
	};

	if (!out)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		if (strings[i].st == status) {
			*out = strings[i].text;
			return HSAQM_HSA_STATUS_SUCCESS;
		}
	}
	return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

/* No extension (finalizer, images, AMD loader...) is modelled: "not supported", successfully. */
static hsaqm_hsa_status_t face_system_extension_supported(uint16_t extension, uint16_t major,
							  uint16_t minor, bool *result)
{
	if (!result)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	*result = false;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t face_system_major_extension_supported(uint16_t extension,
								uint16_t major,
								uint16_t *minor, bool *result)
{
	if (!result || !minor)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	*result = false;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t face_agent_extension_supported(uint16_t extension,
							 struct hsaqm_hsa_agent agent,
							 uint16_t major, uint16_t minor,
							 bool *result)
{
	if (!hsa_face_agent_from_handle(agent.handle))
		return HSAQM_HSA_STATUS_ERROR_INVALID_AGENT;
	if (!result)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	*result = false;
	return HSAQM_HSA_STATUS_SUCCESS;
}

static hsaqm_hsa_status_t face_agent_major_extension_supported(uint16_t extension,
							       struct hsaqm_hsa_agent agent,
							       uint16_t major, uint16_t *minor,
							       bool *result)
{
	if (!hsa_face_agent_from_handle(agent.handle))
		return HSAQM_HSA_STATUS_ERROR_INVALID_AGENT;
	if (!result || !minor)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	*result = false;
	return HSAQM_HSA_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------------------------
 * Small AMD extensions that need no model support.
 */

/* GPU ticks and system ticks are both model nanoseconds. */
static hsaqm_hsa_status_t face_profiling_convert_tick(struct hsaqm_hsa_agent agent,
						      uint64_t agent_tick, uint64_t *system_tick)
{
	struct hsa_face_agent *a = hsa_face_agent_from_handle(agent.handle);

	if (!a || !a->is_gpu)
		return HSAQM_HSA_STATUS_ERROR_INVALID_AGENT;
	if (!system_tick)
		return HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
	*system_tick = agent_tick;
	return HSAQM_HSA_STATUS_SUCCESS;
}

/* The model raises no system events (memory faults, GPU hangs): the handler is never called. */
static hsaqm_hsa_status_t face_register_system_event_handler(void *callback, void *data)
{
	return callback ? HSAQM_HSA_STATUS_SUCCESS : HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

/* The model's runtime creates no queues of its own: the callback is never called. */
static hsaqm_hsa_status_t face_runtime_queue_create_register(void *callback, void *data)
{
	return callback ? HSAQM_HSA_STATUS_SUCCESS : HSAQM_HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

/* ToolsApiTable: ROCr calls these on scratch events; the defaults do nothing. */
static hsaqm_hsa_status_t face_tool_event_noop(const void *event)
{
	return HSAQM_HSA_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------------------------
 * Unsupported entries: one named stub each (the log says which one a client called).
 */
static hsaqm_hsa_status_t unsupported(const char *name)
{
	hsaqm_log_info("%s is not modelled by the device model's HSA face", name);
	return HSAQM_HSA_STATUS_ERROR;
}

#define UNSUPPORTED_CORE(X)                                                                       \
	X(hsa_system_get_extension_table) X(hsa_soft_queue_create)                                \
	X(hsa_agent_get_exception_policies) X(hsa_isa_from_name) X(hsa_isa_get_info)              \
	X(hsa_isa_compatible) X(hsa_code_object_serialize) X(hsa_code_object_deserialize)         \
	X(hsa_code_object_destroy) X(hsa_code_object_get_info) X(hsa_code_object_get_symbol)      \
	X(hsa_code_symbol_get_info) X(hsa_code_object_iterate_symbols) X(hsa_executable_create)   \
	X(hsa_executable_destroy) X(hsa_executable_load_code_object) X(hsa_executable_freeze)     \
	X(hsa_executable_get_info) X(hsa_executable_global_variable_define)                       \
	X(hsa_executable_agent_global_variable_define) X(hsa_executable_readonly_variable_define) \
	X(hsa_executable_validate) X(hsa_executable_get_symbol) X(hsa_executable_symbol_get_info) \
	X(hsa_executable_iterate_symbols) X(hsa_extension_get_name)                               \
	X(hsa_system_get_major_extension_table) X(hsa_cache_get_info) X(hsa_agent_iterate_caches) \
	X(hsa_signal_group_create) X(hsa_signal_group_destroy)                                    \
	X(hsa_signal_group_wait_any_scacquire) X(hsa_signal_group_wait_any_relaxed)               \
	X(hsa_agent_iterate_isas) X(hsa_isa_get_info_alt) X(hsa_isa_get_exception_policies)       \
	X(hsa_isa_get_round_method) X(hsa_wavefront_get_info) X(hsa_isa_iterate_wavefronts)       \
	X(hsa_code_object_get_symbol_from_name) X(hsa_code_object_reader_create_from_file)        \
	X(hsa_code_object_reader_create_from_memory) X(hsa_code_object_reader_destroy)            \
	X(hsa_executable_create_alt) X(hsa_executable_load_program_code_object)                   \
	X(hsa_executable_load_agent_code_object) X(hsa_executable_validate_alt)                   \
	X(hsa_executable_get_symbol_by_name) X(hsa_executable_iterate_agent_symbols)              \
	X(hsa_executable_iterate_program_symbols)

#define UNSUPPORTED_AMD(X)                                                                        \
	X(hsa_amd_coherency_get_type) X(hsa_amd_coherency_set_type)                               \
	X(hsa_amd_profiling_async_copy_enable) X(hsa_amd_profiling_get_async_copy_time)           \
	X(hsa_amd_async_function) X(hsa_amd_memory_async_copy)                                    \
	X(hsa_amd_memory_async_copy_on_engine) X(hsa_amd_memory_copy_engine_status)               \
	X(hsa_amd_memory_pool_can_migrate) X(hsa_amd_memory_migrate) X(hsa_amd_memory_lock)       \
	X(hsa_amd_memory_unlock) X(hsa_amd_memory_fill) X(hsa_amd_interop_map_buffer)             \
	X(hsa_amd_interop_unmap_buffer) X(hsa_amd_image_create) X(hsa_amd_pointer_info)           \
	X(hsa_amd_pointer_info_set_userdata) X(hsa_amd_ipc_memory_create)                         \
	X(hsa_amd_ipc_memory_attach) X(hsa_amd_ipc_memory_detach) X(hsa_amd_ipc_signal_create)    \
	X(hsa_amd_ipc_signal_attach) X(hsa_amd_memory_async_copy_rect)                            \
	X(hsa_amd_memory_lock_to_pool) X(hsa_amd_register_deallocation_callback)                  \
	X(hsa_amd_deregister_deallocation_callback) X(hsa_amd_svm_attributes_set)                 \
	X(hsa_amd_svm_attributes_get) X(hsa_amd_svm_prefetch_async) X(hsa_amd_spm_acquire)        \
	X(hsa_amd_spm_release) X(hsa_amd_spm_set_dest_buffer) X(hsa_amd_portable_export_dmabuf)   \
	X(hsa_amd_portable_close_dmabuf) X(hsa_amd_vmem_address_reserve)                          \
	X(hsa_amd_vmem_address_free) X(hsa_amd_vmem_handle_create) X(hsa_amd_vmem_handle_release) \
	X(hsa_amd_vmem_map) X(hsa_amd_vmem_unmap) X(hsa_amd_vmem_set_access)                      \
	X(hsa_amd_vmem_get_access) X(hsa_amd_vmem_export_shareable_handle)                        \
	X(hsa_amd_vmem_import_shareable_handle) X(hsa_amd_vmem_retain_alloc_handle)               \
	X(hsa_amd_vmem_get_alloc_properties_from_handle) X(hsa_amd_agent_set_async_scratch_limit) \
	X(hsa_amd_vmem_address_reserve_align) X(hsa_amd_enable_logging)                           \
	/* past the 584 bytes presented: never reached by a client that reads minor_id */        \
	X(hsa_amd_signal_wait_all) X(hsa_amd_memory_get_preferred_copy_engine)                    \
	X(hsa_amd_portable_export_dmabuf_v2) X(hsa_amd_ais_file_write) X(hsa_amd_ais_file_read)   \
	X(hsa_amd_memory_async_batch_copy) X(hsa_amd_agent_preload)                               \
	X(hsa_amd_svm_discard_batch_async) X(hsa_amd_signal_get_event_id)                         \
	X(hsa_amd_external_semaphore_handle_open) X(hsa_amd_external_semaphore_handle_close)      \
	X(hsa_amd_vmem_export_fabric_handle) X(hsa_amd_vmem_import_fabric_handle)                 \
	X(hsa_amd_queue_signal_external_semaphore) X(hsa_amd_queue_wait_external_semaphore)       \
	X(hsa_amd_image_create_v2) X(hsa_amd_interop_map_buffer_with_size)                        \
	X(hsa_amd_svm_discard_and_prefetch_batch_async) X(hsa_amd_agent_set_attribute)            \
	X(hsa_amd_enable_high_precision_timestamps)

#define DEFINE_STUB(name)                          \
	static hsaqm_hsa_status_t stub_##name(void) \
	{                                           \
		return unsupported(#name);          \
	}
UNSUPPORTED_CORE(DEFINE_STUB)
UNSUPPORTED_AMD(DEFINE_STUB)

/* The names of what the face leaves unsupported, for docs and tests. */
#define STUB_NAME(name) #name,
static const char *const unsupported_names[] = {
	UNSUPPORTED_CORE(STUB_NAME) UNSUPPORTED_AMD(STUB_NAME)
};

/* ------------------------------------------------------------------------------------
 * The tables.
 */
#define FN(f) ((hsaqm_api_fn)(f))

static void fill_tables(struct hsa_face *f)
{
	const struct slot_fns *s = &slot_fns[f->slot];
	struct hsaqm_core_api_table *c = &f->core;
	struct hsaqm_amd_ext_table_v2 *a = &f->amd_ext;

	/* Version headers as ROCr writes them: major, minor_id = sizeof, step. */
	f->root.version = (struct hsaqm_api_table_version){ HSA_FACE_ROOT_MAJOR,
							    HSAQM_ROOT_SIZE_V3_ROCM_6_2,
							    HSA_FACE_ROOT_STEP, 0 };
	f->root.core = c;
	f->root.amd_ext = a;
	f->root.finalizer_ext = NULL; /* ROCr sets these when the extension library loads */
	f->root.image_ext = NULL;
	f->root.tools = &f->tools;
	f->root.pc_sampling_ext = NULL;
	c->version = (struct hsaqm_api_table_version){ HSA_FACE_SUB_MAJOR,
						       HSAQM_CORE_API_TABLE_SIZE, 0, 0 };
	a->version = (struct hsaqm_api_table_version){ HSA_FACE_SUB_MAJOR, HSA_FACE_AMD_EXT_SIZE,
						       HSA_FACE_AMD_EXT_STEP, 0 };
	f->tools.version = (struct hsaqm_api_table_version){ HSA_FACE_TOOLS_MAJOR,
							     sizeof(f->tools), 0, 0 };
	f->tools.scratch_event_alloc_start_fn = FN(face_tool_event_noop);
	f->tools.scratch_event_alloc_end_fn = FN(face_tool_event_noop);
	f->tools.scratch_event_free_start_fn = FN(face_tool_event_noop);
	f->tools.scratch_event_free_end_fn = FN(face_tool_event_noop);
	f->tools.scratch_event_async_reclaim_start_fn = FN(face_tool_event_noop);
	f->tools.scratch_event_async_reclaim_end_fn = FN(face_tool_event_noop);

#define SET_STUB_CORE(name) c->name##_fn = FN(stub_##name);
#define SET_STUB_AMD(name) a->name##_fn = FN(stub_##name);
	UNSUPPORTED_CORE(SET_STUB_CORE)
	UNSUPPORTED_AMD(SET_STUB_AMD)

	c->hsa_init_fn = s->init;
	c->hsa_shut_down_fn = s->shut_down;
	c->hsa_system_get_info_fn = FN(s->system_get_info);
	c->hsa_system_extension_supported_fn = FN(face_system_extension_supported);
	c->hsa_iterate_agents_fn = s->iterate_agents;
	c->hsa_agent_extension_supported_fn = FN(face_agent_extension_supported);
	c->hsa_status_string_fn = FN(face_status_string);
	c->hsa_system_major_extension_supported_fn = FN(face_system_major_extension_supported);
	c->hsa_agent_major_extension_supported_fn = FN(face_agent_major_extension_supported);
	c->hsa_signal_create_fn = s->signal_create;

	a->hsa_amd_profiling_convert_tick_to_system_domain_fn = FN(face_profiling_convert_tick);
	a->hsa_amd_signal_create_fn = FN(s->amd_signal_create);
	a->hsa_amd_register_system_event_handler_fn = FN(face_register_system_event_handler);
	a->hsa_amd_runtime_queue_create_register_fn = FN(face_runtime_queue_create_register);

	hsa_face_agent_fill_tables(f);
	hsa_face_signal_fill_tables(f);
	hsa_face_queue_fill_tables(f);
}

/* How much model memory there is past a fresh allocation: what the pools report as their size. */
static size_t probe_mem_size(struct hsaqm_sim *sim)
{
	void *p = sim_mem_alloc(sim, 64, 64);
	size_t lo = 64, hi = (size_t)1 << 44;

	if (!p)
		return 0;
	/* sim_mem_contains checks a range: the longest one it accepts ends at the arena's end. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;

		if (sim_mem_contains(sim, p, mid))
			lo = mid;
		else
			hi = mid - 1;
	}
	sim_mem_free(sim, p);
	return lo & ~(size_t)(HSA_FACE_POOL_GRANULE - 1);
}

/*
 * The process's KFD, as kfd-ioctl's default transport asks for it (docs/kfd-ioctl.md, "The
 * default transport"): in a process that embeds the model, the process's KFD is the model's
 * KFD face, the one the HSA face makes its queues on, so a tool loaded by hsa_init (with its
 * own copy of kfd-ioctl) reaches the queues it must suspend. Several models with an HSA face
 * at once have no single KFD: NULL, and kfd-ioctl uses /dev/kfd. The transport lives as long
 * as its model. Registered while any HSA face exists (face_create, face_fini), so a process
 * that never makes one (the emulated /dev/kfd) has no provider.
 */
static const struct hsaqm_kfd_transport *kfd_provider(void)
{
	struct hsaqm_sim *sim = NULL;
	unsigned int n = 0;

	pthread_mutex_lock(&registry_lock);
	for (unsigned int i = 0; i < HSA_FACE_MAX_MODELS; i++) {
		if (registry[i]) {
			sim = registry[i]->sim;
			n++;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	return n == 1 ? hsaqm_sim_kfd_transport(sim) : NULL;
}

/* Under registry_lock: the provider is registered exactly while a face is. */
static void kfd_provider_update(void)
{
	bool any = false;

	for (unsigned int i = 0; i < HSA_FACE_MAX_MODELS; i++)
		any = any || registry[i];
	hsaqm_kfd_transport_set_provider(any ? kfd_provider : NULL);
}

static void face_fini(struct hsaqm_sim *sim, void *state)
{
	struct hsa_face *f = state;

	hsa_face_queues_destroy_all(f);
	hsa_face_kfd_close(f);
	/* Allocations die with the arena; only their records are ours. */
	for (unsigned int b = 0; b < HSA_FACE_ALLOC_BUCKETS; b++) {
		while (f->allocs[b]) {
			struct hsa_face_alloc *r = f->allocs[b];

			f->allocs[b] = r->next;
			free(r);
		}
	}
	pthread_mutex_lock(&registry_lock);
	/* Release: nothing of this face is read through the registry after it is gone. */
	hsaqm_store_release(&registry[f->slot], (struct hsa_face *)NULL);
	kfd_provider_update();
	pthread_mutex_unlock(&registry_lock);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

static void *face_create(struct hsaqm_sim *sim)
{
	struct hsa_face *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->sim = sim;
	pthread_mutex_init(&f->lock, NULL);
	f->via_kfd = HSA_FACE_QUEUES_VIA_KFD;
	f->kfd.handle = -1;
	f->mem_size = probe_mem_size(sim);

	hsa_face_agents_init(f);

	pthread_mutex_lock(&registry_lock);
	unsigned int slot = HSA_FACE_MAX_MODELS;
	for (unsigned int i = 0; i < HSA_FACE_MAX_MODELS && slot == HSA_FACE_MAX_MODELS; i++)
		if (!registry[i])
			slot = i;
	if (slot == HSA_FACE_MAX_MODELS) {
		pthread_mutex_unlock(&registry_lock);
		hsaqm_log_err("more than %d models with an HSA face at once", HSA_FACE_MAX_MODELS);
		pthread_mutex_destroy(&f->lock);
		free(f);
		return NULL;
	}
	f->slot = slot;
	fill_tables(f);
	/* Release: a thread that finds the face in the registry sees it fully built. */
	hsaqm_store_release(&registry[slot], f);
	kfd_provider_update();
	pthread_mutex_unlock(&registry_lock);
	return f;
}

void *hsaqm_sim_hsa_table(struct hsaqm_sim *sim)
{
	struct hsa_face *f;

	if (!sim)
		return NULL;
	f = sim_face_state(sim, SIM_FACE_HSA, face_create, face_fini);
	return f ? &f->root : NULL;
}

const char *const *hsa_face_unsupported_names(size_t *n)
{
	*n = sizeof(unsupported_names) / sizeof(unsupported_names[0]);
	return unsupported_names;
}
