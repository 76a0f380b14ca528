/* SPDX-License-Identifier: MIT */
/*
 * The KFD handle and its ioctl wrapper: EINTR/EAGAIN retried (bounded), every other errno and
 * non-negative results passed through, fork children refused until they reopen, the debugger
 * API gated on interface 1.13, and the requests built as the uapi says.
 *
 * The KFD here is a scripted test transport: it answers GET_VERSION with a chosen version,
 * returns a scripted sequence of results for other requests and records what it was sent.
 */
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

#define SCRIPT_MAX 256

struct script {
	uint32_t major, minor;  /* what GET_VERSION answers */
	int open_result;        /* >= 0: the handle open() returns */
	int results[SCRIPT_MAX]; /* results of the next requests other than GET_VERSION */
	int n_results, next;
	int fallback;           /* result once the script is used up */
	/* What the transport saw. */
	int opens, closes, calls;
	unsigned long last_request;
	struct hsaqm_kfd_dbg_trap_args last_dbg;
	struct hsaqm_kfd_create_queue_args last_create;
	uint32_t dbg_ops[SCRIPT_MAX];
	int n_dbg_ops;
	bool poke_dbg_fd; /* on DBG_TRAP ENABLE, write a byte to dbg_fd as the KFD would */
};

static struct script sc;
static struct hsaqm_kfd_transport tp;

static int script_open(void *ctx)
{
	struct script *s = ctx;

	s->opens++;
	return s->open_result;
}

static int script_close(void *ctx, int handle)
{
	struct script *s = ctx;

	(void)handle;
	s->closes++;
	return 0;
}

/* SUSPEND/RESUME: the first id is handled, the second invalid, the third an error. */
static int script_queue_op(uint32_t *ids, uint32_t n)
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

static int script_ioctl(void *ctx, int handle, unsigned long request, void *arg)
{
	struct script *s = ctx;
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
		if (s->n_dbg_ops < SCRIPT_MAX)
			s->dbg_ops[s->n_dbg_ops++] = d->op;
		if (ret != 0)
			return ret;
		switch (d->op) {
		case HSAQM_KFD_DBG_TRAP_ENABLE:
			if (s->poke_dbg_fd && write((int)d->enable.dbg_fd, ".", 1) != 1)
				return -EBADF;
			break;
		case HSAQM_KFD_DBG_TRAP_SUSPEND_QUEUES:
			return script_queue_op(
				(uint32_t *)(uintptr_t)d->suspend_queues.queue_array_ptr,
				d->suspend_queues.num_queues);
		case HSAQM_KFD_DBG_TRAP_RESUME_QUEUES:
			return script_queue_op(
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

static void script_reset(uint32_t major, uint32_t minor)
{
	memset(&sc, 0, sizeof(sc));
	sc.major = major;
	sc.minor = minor;
	sc.open_result = 3;
	tp = (struct hsaqm_kfd_transport){
		.name = "script",
		.dev_path = "scripted-kfd",
		.sysfs_root = "/nonexistent",
		.ctx = &sc,
		.open = script_open,
		.close = script_close,
		.ioctl = script_ioctl,
	};
}

static void script_set(const int *results, int n)
{
	if (n)
		memcpy(sc.results, results, (size_t)n * sizeof(int));
	sc.n_results = n;
	sc.next = 0;
	sc.calls = 0;
}

static struct hsaqm_kfd *open_version(uint32_t major, uint32_t minor)
{
	struct hsaqm_kfd *kfd = NULL;

	script_reset(major, minor);
	CU_ASSERT_EQUAL_FATAL(hsaqm_kfd_open(&tp, &kfd), 0);
	return kfd;
}

/* ---- open and version ---------------------------------------------------------------------- */

static void test_open_reads_version_and_close_releases(void)
{
	struct hsaqm_kfd *kfd = open_version(1, 11);
	uint32_t major = 0, minor = 0;

	CU_ASSERT_EQUAL(hsaqm_kfd_get_version(kfd, &major, &minor), 0);
	CU_ASSERT_EQUAL(major, 1);
	CU_ASSERT_EQUAL(minor, 11);
	CU_ASSERT(hsaqm_kfd_version_at_least(kfd, 1, 11));
	CU_ASSERT_FALSE(hsaqm_kfd_version_at_least(kfd, 1, 13));
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_of(kfd), &tp);
	CU_ASSERT_EQUAL(sc.opens, 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_close(kfd), 0);
	CU_ASSERT_EQUAL(sc.closes, 1);
}

static void test_open_passes_transport_errno_and_refuses_unknown_major(void)
{
	struct hsaqm_kfd *kfd = NULL;

	script_reset(1, 13);
	sc.open_result = -EACCES;
	CU_ASSERT_EQUAL(hsaqm_kfd_open(&tp, &kfd), -EACCES);
	CU_ASSERT_PTR_NULL(kfd);

	script_reset(2, 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_open(&tp, &kfd), -EPROTO);
	CU_ASSERT_PTR_NULL(kfd);
	CU_ASSERT_EQUAL(sc.closes, 1); /* the handle opened for the version check is closed */

	CU_ASSERT_EQUAL(hsaqm_kfd_open(NULL, &kfd), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_open(&tp, NULL), -EINVAL);
	tp.ioctl = NULL;
	CU_ASSERT_EQUAL(hsaqm_kfd_open(&tp, &kfd), -EINVAL);
}

/* ---- the ioctl wrapper ----------------------------------------------------------------- */

static void test_ioctl_retries_eintr_and_eagain(void)
{
	struct hsaqm_kfd *kfd = open_version(1, 13);
	const int script[] = { -EINTR, -EAGAIN, -EINTR, 0 };
	struct hsaqm_kfd_destroy_queue_args args = { .queue_id = 1 };

	script_set(script, 4);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args), 0);
	CU_ASSERT_EQUAL(sc.calls, 4);
	CU_ASSERT_EQUAL(sc.last_request, HSAQM_KFD_IOC_DESTROY_QUEUE);
	hsaqm_kfd_close(kfd);
}

static void test_ioctl_retry_is_bounded(void)
{
	struct hsaqm_kfd *kfd = open_version(1, 13);
	struct hsaqm_kfd_destroy_queue_args args = { .queue_id = 1 };

	script_set(NULL, 0);
	sc.fallback = -EINTR;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args), -EINTR);
	CU_ASSERT_EQUAL(sc.calls, HSAQM_KFD_IOCTL_MAX_TRIES);

	sc.calls = 0;
	sc.fallback = -EAGAIN;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args), -EAGAIN);
	CU_ASSERT_EQUAL(sc.calls, HSAQM_KFD_IOCTL_MAX_TRIES);
	hsaqm_kfd_close(kfd);
}

static void test_ioctl_passes_other_errno_at_once(void)
{
	static const int errs[] = { -EPERM, -EINVAL, -EFAULT, -ENOTTY, -EBUSY, -ESRCH, -524 };
	struct hsaqm_kfd *kfd = open_version(1, 13);
	struct hsaqm_kfd_destroy_queue_args args = { .queue_id = 1 };

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		script_set(&errs[i], 1);
		sc.fallback = 0;
		CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args), errs[i]);
		CU_ASSERT_EQUAL(sc.calls, 1);
	}
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(NULL, HSAQM_KFD_IOC_DESTROY_QUEUE, &args), -EINVAL);
	hsaqm_kfd_close(kfd);
}

static void test_ioctl_passes_positive_results(void)
{
	struct hsaqm_kfd *kfd = open_version(1, 13);
	const int script[] = { -EINTR, 7 };
	struct hsaqm_kfd_dbg_trap_args args = { 0 };

	script_set(script, 2);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DBG_TRAP, &args), 7);
	CU_ASSERT_EQUAL(sc.calls, 2);
	hsaqm_kfd_close(kfd);
}

/* ---- fork -------------------------------------------------------------------------------- */

/* Exit codes of the child: 0 ok, 10+ which check failed. */
static int fork_child_checks(struct hsaqm_kfd *kfd)
{
	struct hsaqm_kfd_destroy_queue_args args = { .queue_id = 1 };
	int calls_before = sc.calls;
	char *said = NULL;
	size_t said_len = 0;
	FILE *sink = open_memstream(&said, &said_len);

	if (!hsaqm_kfd_is_stale(kfd))
		return 10;
	/* The child's mistake is said once, with what to do about it. */
	hsaqm_log_set_sink(sink);
	if (hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args) != -EBADF)
		return 11;
	hsaqm_log_set_sink(NULL);
	fclose(sink);
	if (!said || !strstr(said, "fork child") || !strstr(said, "hsaqm_kfd_reopen"))
		return 19;
	if (sc.calls != calls_before)
		return 12; /* the inherited handle must not reach the KFD */
	if (hsaqm_kfd_queue_destroy(kfd, 1) != -EBADF)
		return 13;
	if (hsaqm_kfd_reopen(kfd) != 0)
		return 14;
	if (hsaqm_kfd_is_stale(kfd))
		return 15;
	if (sc.opens != 2 || sc.closes != 1)
		return 16; /* the inherited handle dropped, a new one opened */
	if (hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args) != 0)
		return 17;
	if (hsaqm_kfd_close(kfd) != 0)
		return 18;
	return 0;
}

static void test_fork_child_must_reopen(void)
{
	struct hsaqm_kfd *kfd = open_version(1, 13);
	struct hsaqm_kfd_destroy_queue_args args = { .queue_id = 1 };
	int status = -1;
	pid_t pid;

	CU_ASSERT_FALSE(hsaqm_kfd_is_stale(kfd));
	CU_ASSERT_EQUAL(hsaqm_kfd_reopen(kfd), 0); /* nothing to do in the owner */
	CU_ASSERT_EQUAL(sc.opens, 1);
	fflush(NULL);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
		_exit(fork_child_checks(kfd));
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);

	/* The parent's handle is untouched by the child's reopen and close. */
	CU_ASSERT_FALSE(hsaqm_kfd_is_stale(kfd));
	script_set(NULL, 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args), 0);
	CU_ASSERT_EQUAL(sc.calls, 1);
	CU_ASSERT_EQUAL(sc.opens, 1);
	hsaqm_kfd_close(kfd);
}

/* ---- queues -------------------------------------------------------------------------------- */

static struct hsaqm_kfd_create_queue_args good_queue(void)
{
	return (struct hsaqm_kfd_create_queue_args){
		.ring_base_address = 0x7f0000000000,
		.write_pointer_address = 0x7f0000100000,
		.read_pointer_address = 0x7f0000100080,
		.ring_size = 1 << 20,
		.gpu_id = 0xf7bc,
		.queue_type = HSAQM_KFD_QUEUE_TYPE_COMPUTE_AQL,
		.queue_percentage = 100,
		.queue_priority = 7,
	};
}

static void test_queue_create_uses_the_kernel_struct_size(void)
{
	struct hsaqm_kfd *kfd = open_version(1, 11);
	struct hsaqm_kfd_create_queue_args q = good_queue();

	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), 0);
	CU_ASSERT_EQUAL(sc.last_request, HSAQM_KFD_IOC_CREATE_QUEUE_1_11);
	CU_ASSERT_EQUAL(q.queue_id, 5);
	CU_ASSERT_EQUAL(q.doorbell_offset, 0x1234);
	q = good_queue();
	q.queue_type = HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID;
	sc.calls = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EOPNOTSUPP);
	q = good_queue();
	q.sdma_engine_id = 3; /* a 1.11 kernel would drop it silently */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EINVAL);
	CU_ASSERT_EQUAL(sc.calls, 0);
	hsaqm_kfd_close(kfd);

	kfd = open_version(1, 17);
	q = good_queue();
	q.queue_type = HSAQM_KFD_QUEUE_TYPE_SDMA_BY_ENG_ID;
	q.sdma_engine_id = 3;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), 0);
	CU_ASSERT_EQUAL(sc.last_request, HSAQM_KFD_IOC_CREATE_QUEUE);
	CU_ASSERT_EQUAL(sc.last_create.sdma_engine_id, 3);
	hsaqm_kfd_close(kfd);
}

static void test_queue_calls_refuse_bad_arguments_before_the_kernel(void)
{
	struct hsaqm_kfd *kfd = open_version(1, 17);
	struct hsaqm_kfd_create_queue_args q;
	uint32_t mask[2] = { ~0u, ~0u };
	char stack[64];

	q = good_queue();
	q.queue_priority = 16;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EINVAL);
	q = good_queue();
	q.queue_percentage = 101;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EINVAL);
	q = good_queue();
	q.ring_size = 3000;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EINVAL);
	q = good_queue();
	q.queue_type = 9;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EINVAL);
	q = good_queue();
	q.metadata_ring_size = 100;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, &q), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_create(kfd, NULL), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(kfd, 1, 0, 4096, 100, 16), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(kfd, 1, 0, 4096, 101, 1), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_set_cu_mask(kfd, 1, mask, 48), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_set_cu_mask(kfd, 1, mask, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_set_cu_mask(kfd, 1, NULL, 64), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(kfd, 1, NULL, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(sc.calls, 0);

	/* And the good ones go through with the kernel's answer. */
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_set_cu_mask(kfd, 1, mask, 64), 0);
	CU_ASSERT_EQUAL(sc.last_request, HSAQM_KFD_IOC_SET_CU_MASK);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_update(kfd, 1, 0, 4096, 0, 15), 0);
	CU_ASSERT_EQUAL(sc.last_request, HSAQM_KFD_IOC_UPDATE_QUEUE);
	sc.fallback = -EFAULT;
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_get_wave_state(kfd, 1, stack, NULL, NULL), -EFAULT);
	CU_ASSERT_EQUAL(hsaqm_kfd_queue_destroy(kfd, 99), -EFAULT);
	hsaqm_kfd_close(kfd);
}

/* ---- the debugger API --------------------------------------------------------------------- */

static void test_debugger_api_refused_before_1_13(void)
{
	struct hsaqm_kfd *kfd = open_version(1, 11);
	struct hsaqm_kfd_queue_snapshot_entry e[2];
	struct hsaqm_kfd_dbg_device_info_entry d[1];
	uint32_t ids[1] = { 1 }, n = 2;
	uint64_t status;

	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(kfd, 0, false), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_disable(kfd), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(kfd, 0, NULL), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(kfd), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(kfd, ids, 1, 0, 0), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(kfd, ids, 1), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(kfd, 0, e, &n), -EOPNOTSUPP);
	n = 1;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_device_snapshot(kfd, 0, d, &n), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(kfd, 0, &status, NULL, NULL), -EOPNOTSUPP);
	/* A 1.11 kernel would answer ENOTTY: nothing may have been sent. */
	CU_ASSERT_EQUAL(sc.calls, 0);
	CU_ASSERT_EQUAL(ids[0], 1);
	hsaqm_kfd_close(kfd);
}

static void test_suspend_resume_send_self_and_decode_entries(void)
{
	struct hsaqm_kfd *kfd = open_version(1, 13);
	uint32_t ids[3] = { 2, 3, 4 };

	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(kfd, ids, 3, 100,
						     HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW)), 1);
	CU_ASSERT_EQUAL(sc.last_request, HSAQM_KFD_IOC_DBG_TRAP);
	CU_ASSERT_EQUAL(sc.last_dbg.pid, (uint32_t)getpid());
	CU_ASSERT_EQUAL(sc.last_dbg.op, HSAQM_KFD_DBG_TRAP_SUSPEND_QUEUES);
	CU_ASSERT_EQUAL(sc.last_dbg.suspend_queues.num_queues, 3);
	CU_ASSERT_EQUAL(sc.last_dbg.suspend_queues.grace_period, 100);
	CU_ASSERT_EQUAL(sc.last_dbg.suspend_queues.queue_array_ptr, (uint64_t)(uintptr_t)ids);
	CU_ASSERT_EQUAL(sc.last_dbg.suspend_queues.exception_mask, 1ull << 30);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_status(ids[0]), HSAQM_KFD_DBG_ENTRY_OK);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_status(ids[1]), HSAQM_KFD_DBG_ENTRY_INVALID);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_status(ids[2]), HSAQM_KFD_DBG_ENTRY_ERROR);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_queue_id(ids[1]), 3);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_entry_queue_id(ids[2]), 4);

	ids[0] = 2;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_resume_queues(kfd, ids, 1), 1);
	CU_ASSERT_EQUAL(sc.last_dbg.op, HSAQM_KFD_DBG_TRAP_RESUME_QUEUES);
	CU_ASSERT_EQUAL(sc.last_dbg.resume_queues.num_queues, 1);

	/* The kernel's refusal comes back as is (EPERM: runtime not enabled). */
	sc.fallback = -EPERM;
	ids[0] = 2;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(kfd, ids, 1, 0, 0), -EPERM);
	sc.fallback = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(kfd, NULL, 1, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_suspend_queues(kfd, ids, 0, 0, 0), -EINVAL);
	hsaqm_kfd_close(kfd);
}

static void test_dbg_enable_hands_kfd_a_writable_pipe(void)
{
	struct hsaqm_kfd *kfd = open_version(1, 13);
	struct hsaqm_kfd_runtime_info info;
	char byte = 0;
	int fd;

	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_event_fd(kfd), -ENOENT);
	sc.poke_dbg_fd = true;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(kfd, HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW), &info),
			0);
	CU_ASSERT_EQUAL(sc.last_dbg.op, HSAQM_KFD_DBG_TRAP_ENABLE);
	CU_ASSERT_EQUAL(sc.last_dbg.enable.exception_mask, 1ull << 30);
	CU_ASSERT_EQUAL(sc.last_dbg.enable.rinfo_size, sizeof(struct hsaqm_kfd_runtime_info));
	fd = hsaqm_kfd_dbg_event_fd(kfd);
	CU_ASSERT(fd >= 0);
	/* The byte the "KFD" wrote into dbg_fd arrives on the event fd. */
	CU_ASSERT_EQUAL(read(fd, &byte, 1), 1);
	CU_ASSERT_EQUAL(byte, '.');
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(kfd, 0, NULL), -EALREADY);

	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(kfd), 0);
	CU_ASSERT_EQUAL(sc.last_dbg.op, HSAQM_KFD_DBG_TRAP_DISABLE);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_event_fd(kfd), -ENOENT);
	CU_ASSERT_EQUAL(fcntl(fd, F_GETFD), -1); /* closed */

	/* A session still open at close is ended first: no queue stays suspended. */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(kfd, 0, NULL), 0);
	sc.n_dbg_ops = 0;
	hsaqm_kfd_close(kfd);
	CU_ASSERT_EQUAL(sc.n_dbg_ops, 1);
	CU_ASSERT_EQUAL(sc.dbg_ops[0], HSAQM_KFD_DBG_TRAP_DISABLE);
}

static void test_dbg_enable_failure_leaves_no_session(void)
{
	struct hsaqm_kfd *kfd = open_version(1, 13);

	sc.fallback = -EALREADY; /* rocgdb holds the process */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_enable(kfd, 0, NULL), -EALREADY);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_event_fd(kfd), -ENOENT);
	sc.n_dbg_ops = 0;
	/* No session of ours: nothing to end, and the kernel (EINVAL) is not asked. */
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_disable(kfd), 0);
	sc.fallback = 0;
	hsaqm_kfd_close(kfd);
	CU_ASSERT_EQUAL(sc.n_dbg_ops, 0);
}

static void test_snapshot_and_query_event(void)
{
	struct hsaqm_kfd *kfd = open_version(1, 13);
	struct hsaqm_kfd_queue_snapshot_entry e[2];
	uint32_t n = 2, gpu = 0, queue = 0;
	uint64_t status = 0;

	memset(e, 0xff, sizeof(e));
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(kfd, HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW),
						     e, &n), 0);
	CU_ASSERT_EQUAL(sc.last_dbg.op, HSAQM_KFD_DBG_TRAP_GET_QUEUE_SNAPSHOT);
	CU_ASSERT_EQUAL(sc.last_dbg.queue_snapshot.entry_size, 64);
	CU_ASSERT_EQUAL(sc.last_dbg.queue_snapshot.exception_mask, 1ull << 30);
	CU_ASSERT_EQUAL(n, 3); /* the process has more queues than the buffer */
	CU_ASSERT_EQUAL(e[0].queue_id, 9);
	CU_ASSERT_EQUAL(e[1].queue_id, 0); /* zeroed before the call */
	n = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(kfd, 0, NULL, &n), 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_queue_snapshot(kfd, 0, NULL, NULL), -EINVAL);

	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(kfd, 0, &status, &gpu, &queue), 0);
	CU_ASSERT_EQUAL(status, HSAQM_KFD_EC_MASK(HSAQM_KFD_EC_QUEUE_NEW));
	CU_ASSERT_EQUAL(gpu, 0xf7bc);
	CU_ASSERT_EQUAL(queue, 4);
	/* "Nothing raised" is one answer, not a reason to ask 64 times. */
	sc.fallback = -EAGAIN;
	sc.calls = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_dbg_query_event(kfd, 0, &status, NULL, NULL), -EAGAIN);
	CU_ASSERT_EQUAL(sc.calls, 1);
	sc.fallback = 0;
	hsaqm_kfd_close(kfd);
}

static void test_runtime_enable_modes(void)
{
	struct hsaqm_kfd *kfd = open_version(1, 14);
	const int script[] = { -EINTR, 0 };

	/* A RUNTIME_ENABLE waiting for a debugger is interrupted and must be re-issued. */
	script_set(script, 2);
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(kfd, 0x1000, true), 0);
	CU_ASSERT_EQUAL(sc.calls, 2);
	CU_ASSERT_EQUAL(sc.last_request, HSAQM_KFD_IOC_RUNTIME_ENABLE);
	sc.fallback = -EBUSY;
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_enable(kfd, 0, false), -EBUSY);
	sc.fallback = 0;
	CU_ASSERT_EQUAL(hsaqm_kfd_runtime_disable(kfd), 0);
	hsaqm_kfd_close(kfd);
}

static const struct t_case kfd_cases[] = {
	T_CASE(test_open_reads_version_and_close_releases),
	T_CASE(test_open_passes_transport_errno_and_refuses_unknown_major),
	T_CASE(test_ioctl_retries_eintr_and_eagain),
	T_CASE(test_ioctl_retry_is_bounded),
	T_CASE(test_ioctl_passes_other_errno_at_once),
	T_CASE(test_ioctl_passes_positive_results),
	T_CASE(test_fork_child_must_reopen),
	T_CASE(test_queue_create_uses_the_kernel_struct_size),
	T_CASE(test_queue_calls_refuse_bad_arguments_before_the_kernel),
	T_CASE(test_debugger_api_refused_before_1_13),
	T_CASE(test_suspend_resume_send_self_and_decode_entries),
	T_CASE(test_dbg_enable_hands_kfd_a_writable_pipe),
	T_CASE(test_dbg_enable_failure_leaves_no_session),
	T_CASE(test_snapshot_and_query_event),
	T_CASE(test_runtime_enable_modes),
	T_CASES_END,
};

int main(void)
{
	static const struct t_suite suites[] = {
		{ "kfd-ioctl", NULL, NULL, kfd_cases },
		T_SUITES_END,
	};

	return t_run("kfd-ioctl", suites);
}
