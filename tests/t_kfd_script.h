/* SPDX-License-Identifier: MIT */
/*
 * t_kfd_script.h - a scripted KFD for the KFD handle's tests (test-kfd-ioctl-*): a test transport
 * that answers GET_VERSION with a chosen version, returns a scripted sequence of results for
 * other requests and records what it was sent. Header-only; include once.
 */
#ifndef T_KFD_SCRIPT_H
#define T_KFD_SCRIPT_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hsaqm-kfd/kfd.h"
#include "hsaqm-common/log.h"
#include "t_cunit.h"

#define T_SCRIPT_MAX 256

struct t_script {
	uint32_t major, minor;  /* what GET_VERSION answers */
	int open_result;        /* >= 0: the handle open() returns */
	int results[T_SCRIPT_MAX]; /* results of the next requests other than GET_VERSION */
	int n_results, next;
	int fallback;           /* result once the script is used up */
	/* What the transport saw. */
	int opens, closes, calls;
	unsigned long last_request;
	struct hsaqm_kfd_dbg_trap_args last_dbg;
	struct hsaqm_kfd_create_queue_args last_create;
	uint32_t dbg_ops[T_SCRIPT_MAX];
	int n_dbg_ops;
	bool poke_dbg_fd; /* on DBG_TRAP ENABLE, write a byte to dbg_fd as the KFD would */
};

static struct t_script t_sc;
static struct hsaqm_kfd_transport t_tp;

static inline int t_script_open(void *ctx)
{
	struct t_script *s = ctx;

	s->opens++;
	return s->open_result;
}

static inline int t_script_close(void *ctx, int handle)
{
	struct t_script *s = ctx;

	(void)handle;
	s->closes++;
	return 0;
}

/* SUSPEND/RESUME: the first id is handled, the second invalid, the third an error. */
static inline int t_script_queue_op(uint32_t *ids, uint32_t n)
{
	int handled = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (i % 3 == 1) {
			ids[i] |= HSAQM_KFD_DBG_QUEUE_INVALID_MASK;
		} else if (i % 3 == 2) {
			ids[i] |= HSAQM_KFD_DBG_QUEUE_ERROR_MASK;
		} else {
			handled++;
		}
	}
	return handled;
}

static inline int t_script_ioctl(void *ctx, int handle, unsigned long request, void *arg)
{
	struct t_script *s = ctx;
	int ret;

	(void)handle;
	if (request == HSAQM_KFD_IOC_GET_VERSION) {
		struct hsaqm_kfd_get_version_args *v = arg;

		v->major_version = s->major;
		v->minor_version = s->minor;
		return 0;
	}
	s->calls++;
	s->last_request = request;
	ret = s->next < s->n_results ? s->results[s->next++] : s->fallback;
	if (request == HSAQM_KFD_IOC_CREATE_QUEUE || request == HSAQM_KFD_IOC_CREATE_QUEUE_1_11) {
		struct hsaqm_kfd_create_queue_args *c = arg;

		s->last_create = *c;
		if (ret == 0) {
			c->queue_id = 5;
			c->doorbell_offset = 0x1234;
		}
	}
	if (request == HSAQM_KFD_IOC_DBG_TRAP) {
		struct hsaqm_kfd_dbg_trap_args *d = arg;

		s->last_dbg = *d;
		if (s->n_dbg_ops < T_SCRIPT_MAX)
			s->dbg_ops[s->n_dbg_ops++] = d->op;
		if (ret != 0)
			return ret;
		switch (d->op) {
		case HSAQM_KFD_DBG_TRAP_ENABLE:
			if (s->poke_dbg_fd && write((int)d->enable.dbg_fd, ".", 1) != 1)
				return -EBADF;
			break;
		case HSAQM_KFD_DBG_TRAP_SUSPEND_QUEUES:
			return t_script_queue_op(
				(uint32_t *)(uintptr_t)d->suspend_queues.queue_array_ptr,
				d->suspend_queues.num_queues);
		case HSAQM_KFD_DBG_TRAP_RESUME_QUEUES:
			return t_script_queue_op(
				(uint32_t *)(uintptr_t)d->resume_queues.queue_array_ptr,
				d->resume_queues.num_queues);
		case HSAQM_KFD_DBG_TRAP_GET_QUEUE_SNAPSHOT: {
			struct hsaqm_kfd_queue_snapshot_entry *e =
				(void *)(uintptr_t)d->queue_snapshot.snapshot_buf_ptr;

			if (d->queue_snapshot.num_queues >= 1)
				e[0].queue_id = 9;
			d->queue_snapshot.num_queues = 3; /* more than the buffer held */
			break;
		}
		case HSAQM_KFD_DBG_TRAP_QUERY_DEBUG_EVENT:
			d->query_debug_event.exception_mask =
				HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW);
			d->query_debug_event.queue_id = 4;
			d->query_debug_event.gpu_id = 0xf7bc;
			break;
		default:
			break;
		}
	}
	return ret;
}

static inline void t_script_reset(uint32_t major, uint32_t minor)
{
	memset(&t_sc, 0, sizeof(t_sc));
	t_sc.major = major;
	t_sc.minor = minor;
	t_sc.open_result = 3;
	t_tp = (struct hsaqm_kfd_transport){
		.name = "script",
		.dev_path = "scripted-kfd",
		.sysfs_root = "/nonexistent",
		.ctx = &t_sc,
		.open = t_script_open,
		.close = t_script_close,
		.ioctl = t_script_ioctl,
	};
}

static inline void t_script_set(const int *results, int n)
{
	if (n)
		memcpy(t_sc.results, results, (size_t)n * sizeof(int));
	t_sc.n_results = n;
	t_sc.next = 0;
	t_sc.calls = 0;
}

static inline struct hsaqm_kfd *t_open_version(uint32_t major, uint32_t minor)
{
	struct hsaqm_kfd *kfd = NULL;

	t_script_reset(major, minor);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(&t_tp, &kfd), 0);
	return kfd;
}

#endif /* T_KFD_SCRIPT_H */
