/* SPDX-License-Identifier: MIT */
/*
 * hsaqm/process.h - the process registry: how a program reaches the hsaqm integration that
 * schedules its own queues.
 *
 * The tool library (libhsaqm-tool.so, loaded by ROCr from HSA_TOOLS_LIB) exports only OnLoad
 * and OnUnload, so nothing can call into it by name. Instead it links libhsaqm.so and
 * registers itself here; a program (python/hsaqm.py through ctypes, or C) calls the
 * hsaqm_process_*() functions of the same libhsaqm.so instance and reaches it. One
 * integration at a time per process (one HSA runtime per process).
 *
 * Every function returns 0 or a negative errno.
 */
#ifndef HSAQM_PROCESS_H
#define HSAQM_PROCESS_H

#include <stddef.h>

#include "hsaqm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What an integration offers. Every member may be NULL (the call then returns -EOPNOTSUPP).
 * Members may be called from several threads at once, never under the registry's lock, and
 * never after hsaqm_process_unregister() returned.
 */
struct hsaqm_process_ops {
	const char *name; /* e.g. "libhsaqm-tool" */
	/* The process priority (HSAQM_PRIORITY_MIN..MAX): every queue's base. */
	int (*set_priority)(void *arg, int priority);
	int (*get_priority)(void *arg, int *priority);
	/* Hold / release every queue of the process by hand (hsaqm_xq_suspend()). */
	int (*suspend)(void *arg);
	int (*resume)(void *arg);
	/* Per-queue statistics as one JSON document, malloc'ed into *json. */
	int (*stats_json)(void *arg, char **json);
	/* One line saying whether scheduling is active, and why not. */
	int (*status)(void *arg, char *buf, size_t size);
};

/**
 * hsaqm_process_register() - make @ops the process's integration. It may be called under the
 * runtime's init lock: it takes only the registry's own lock and calls nothing of @ops. A
 * priority set with hsaqm_process_set_priority() before anything registered is the
 * integration's to apply: it reads it with hsaqm_process_get_priority() before registering.
 * Return: 0; -EINVAL for a NULL @ops; -EBUSY when another integration is registered.
 */
HSAQM_API int hsaqm_process_register(const struct hsaqm_process_ops *ops, void *arg);

/**
 * hsaqm_process_unregister() - undo hsaqm_process_register(); waits for a call in progress.
 * Return: 0; -EINVAL for NULL; -ENOENT when @ops/@arg is not the registered integration.
 */
HSAQM_API int hsaqm_process_unregister(const struct hsaqm_process_ops *ops, void *arg);

/**
 * hsaqm_process_set_priority() - the process priority. With no integration registered yet,
 * it is kept for the integration to take when it registers (so a Python program may set it
 * before the GPU runtime starts).
 * Return: 0; -EINVAL for a priority outside HSAQM_PRIORITY_MIN..MAX; the integration's error.
 */
HSAQM_API int hsaqm_process_set_priority(int priority);

/**
 * hsaqm_process_get_priority() - the process priority (the kept one when nothing is registered).
 * Return: 0; -EINVAL for NULL; -ENOENT when nothing is registered and nothing was set.
 */
HSAQM_API int hsaqm_process_get_priority(int *priority);

/**
 * hsaqm_process_suspend() / hsaqm_process_resume() - hold or release every queue of the
 * process (those created later while suspended are held too).
 * Return: 0; -ENOENT when nothing is registered; the integration's error.
 */
HSAQM_API int hsaqm_process_suspend(void);
HSAQM_API int hsaqm_process_resume(void);

/**
 * hsaqm_process_stats_json() - the per-queue statistics as JSON (schema in docs/tool.md),
 * copied into @buf with its terminating NUL when it fits.
 * @needed: receives the size the document needs, NUL included (may be NULL).
 * Return: 0; -EINVAL for a NULL @buf with a non-zero @size; -ENOSPC when it does not fit
 * (*@needed says how much to give); -ENOENT when nothing is registered; -ENOMEM.
 */
HSAQM_API int hsaqm_process_stats_json(char *buf, size_t size, size_t *needed);

/**
 * hsaqm_process_status() - one line: "active: ..." or "inactive: <why>", or
 * "not loaded" when nothing is registered (return value 0 in every case).
 * Return: 0; -EINVAL for a NULL @buf or a zero @size.
 */
HSAQM_API int hsaqm_process_status(char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_PROCESS_H */
