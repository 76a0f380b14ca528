/* SPDX-License-Identifier: MIT */
/*
 * The process registry (hsaqm/process.h): the one integration that schedules this process's
 * queues (the tool library), reached by programs through libhsaqm.so.
 *
 * proc_lock is a leaf: it is never held while the integration is called, because the
 * integration takes its own locks and calls the runtime, and the tool registers from OnLoad,
 * under the runtime's init lock. A count of calls in progress lets unregister wait for them,
 * so an integration is never called after hsaqm_process_unregister() returned.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsaqm/hsaqm.h"
#include "hsaqm/process.h"
#include "hsaqm-common/log.h"

static pthread_mutex_t proc_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t proc_idle = PTHREAD_COND_INITIALIZER;
static const struct hsaqm_process_ops *proc_ops;
static void *proc_arg;
static unsigned int proc_calls; /* calls into the integration in progress */
/* A priority set before anything registered, applied at registration. */
static bool proc_pending_set;
static int proc_pending_priority;

int hsaqm_process_register(const struct hsaqm_process_ops *ops, void *arg)
{
	int rc = 0;

	if (!ops)
		return -EINVAL;
	pthread_mutex_lock(&proc_lock);
	if (proc_ops) {
		rc = -EBUSY;
	} else {
		proc_ops = ops;
		proc_arg = arg;
		/* The integration read the kept priority (get_priority) before registering. */
		proc_pending_set = false;
	}
	pthread_mutex_unlock(&proc_lock);
	return rc;
}

/* Take a reference on the integration; false when there is none. */
static bool enter(const struct hsaqm_process_ops **ops, void **arg)
{
	bool ok;

	pthread_mutex_lock(&proc_lock);
	ok = proc_ops != NULL;
	if (ok) {
		*ops = proc_ops;
		*arg = proc_arg;
		proc_calls++;
	}
	pthread_mutex_unlock(&proc_lock);
	return ok;
}

static void leave(void)
{
	pthread_mutex_lock(&proc_lock);
	if (--proc_calls == 0)
		pthread_cond_broadcast(&proc_idle);
	pthread_mutex_unlock(&proc_lock);
}

int hsaqm_process_unregister(const struct hsaqm_process_ops *ops, void *arg)
{
	int rc = 0;

	if (!ops)
		return -EINVAL;
	pthread_mutex_lock(&proc_lock);
	if (proc_ops != ops || proc_arg != arg) {
		rc = -ENOENT;
	} else {
		proc_ops = NULL;
		proc_arg = NULL;
		while (proc_calls)
			pthread_cond_wait(&proc_idle, &proc_lock);
	}
	pthread_mutex_unlock(&proc_lock);
	return rc;
}

int hsaqm_process_set_priority(int priority)
{
	const struct hsaqm_process_ops *ops;
	void *arg;
	int rc;

	if (priority < HSAQM_PRIORITY_MIN || priority > HSAQM_PRIORITY_MAX)
		return -EINVAL;
	if (!enter(&ops, &arg)) {
		pthread_mutex_lock(&proc_lock);
		proc_pending_set = true;
		proc_pending_priority = priority;
		pthread_mutex_unlock(&proc_lock);
		return 0;
	}
	rc = ops->set_priority ? ops->set_priority(arg, priority) : -EOPNOTSUPP;
	leave();
	return rc;
}

int hsaqm_process_get_priority(int *priority)
{
	const struct hsaqm_process_ops *ops;
	void *arg;
	int rc = 0;

	if (!priority)
		return -EINVAL;
	if (!enter(&ops, &arg)) {
		pthread_mutex_lock(&proc_lock);
		if (proc_pending_set)
			*priority = proc_pending_priority;
		else
			rc = -ENOENT;
		pthread_mutex_unlock(&proc_lock);
		return rc;
	}
	rc = ops->get_priority ? ops->get_priority(arg, priority) : -EOPNOTSUPP;
	leave();
	return rc;
}

static int call_simple(int (*pick)(const struct hsaqm_process_ops *ops, void *arg))
{
	const struct hsaqm_process_ops *ops;
	void *arg;
	int rc;

	if (!enter(&ops, &arg))
		return -ENOENT;
	rc = pick(ops, arg);
	leave();
	return rc;
}
static int do_suspend(const struct hsaqm_process_ops *ops, void *arg)
{
	return ops->suspend ? ops->suspend(arg) : -EOPNOTSUPP;
}

static int do_resume(const struct hsaqm_process_ops *ops, void *arg)
{
	return ops->resume ? ops->resume(arg) : -EOPNOTSUPP;
}

int hsaqm_process_suspend(void)
{
	return call_simple(do_suspend);
}

int hsaqm_process_resume(void)
{
	return call_simple(do_resume);
}

int hsaqm_process_stats_json(char *buf, size_t size, size_t *needed)
{
	const struct hsaqm_process_ops *ops;
	char *json = NULL;
	void *arg;
	size_t len;
	int rc;

	if (!buf && size)
		return -EINVAL;

	if (!enter(&ops, &arg))
		return -ENOENT;
	rc = ops->stats_json ? ops->stats_json(arg, &json) : -EOPNOTSUPP;
	leave();
	if (rc)
		return rc;
	if (!json)
		return -ENOMEM;
	len = strlen(json) + 1;
	if (needed)
		*needed = len;
	if (len > size) {
		rc = -ENOSPC;
	} else {
		memcpy(buf, json, len);
	}
	free(json);
	return rc;
}

int hsaqm_process_status(char *buf, size_t size)
{
	const struct hsaqm_process_ops *ops;
	void *arg;
	int rc = 0;

	if (!buf || !size)
		return -EINVAL;
	if (!enter(&ops, &arg)) {
		snprintf(buf, size, "not loaded");
		return 0;
	}
	if (!ops->status)
		snprintf(buf, size, "active: %s", ops->name ? ops->name : "integration");
	else
		rc = ops->status(arg, buf, size);
	leave();
	return rc;
}
