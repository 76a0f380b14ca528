/* SPDX-License-Identifier: MIT */
/*
 * The KFD handle and its ioctl wrapper: open reads the version (an unknown major and the
 * transport's errno refused), close releases; EINTR/EAGAIN retried (bounded), every other errno
 * and non-negative results passed through; fork children refused until they reopen.
 *
 * The KFD here is a scripted test transport (t_kfd_script.h).
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
#include "t_kfd_script.h"

/* ---- open and version ---------------------------------------------------------------------- */

static void test_open_reads_version_and_close_releases(void)
{
	struct hsaqm_kfd *kfd = t_open_version(1, 11);
	uint32_t major = 0, minor = 0;

	CU_ASSERT_EQUAL(hsaqm_kfd_get_version(kfd, &major, &minor), 0);
	CU_ASSERT_EQUAL(major, 1);
	CU_ASSERT_EQUAL(minor, 11);
	CU_ASSERT(hsaqm_kfd_version_at_least(kfd, 1, 11));
	CU_ASSERT_FALSE(hsaqm_kfd_version_at_least(kfd, 1, 13));
	CU_ASSERT_PTR_EQUAL(hsaqm_kfd_transport_of(kfd), &t_tp);
	CU_ASSERT_EQUAL(t_sc.opens, 1);
	CU_ASSERT_EQUAL(hsaqm_kfd_close(kfd), 0);
	CU_ASSERT_EQUAL(t_sc.closes, 1);
}

static void test_open_passes_transport_errno_and_refuses_unknown_major(void)
{
	struct hsaqm_kfd *kfd = NULL;

	t_script_reset(1, 13);
	t_sc.open_result = -EACCES;
	CU_ASSERT_EQUAL(hsaqm_kfd_open(&t_tp, &kfd), -EACCES);
	CU_ASSERT_PTR_NULL(kfd);

	t_script_reset(2, 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_open(&t_tp, &kfd), -EPROTO);
	CU_ASSERT_PTR_NULL(kfd);
	CU_ASSERT_EQUAL(t_sc.closes, 1); /* the handle opened for the version check is closed */

	CU_ASSERT_EQUAL(hsaqm_kfd_open(NULL, &kfd), -EINVAL);
	CU_ASSERT_EQUAL(hsaqm_kfd_open(&t_tp, NULL), -EINVAL);
	t_tp.ioctl = NULL;
	CU_ASSERT_EQUAL(hsaqm_kfd_open(&t_tp, &kfd), -EINVAL);
}

/* ---- the ioctl wrapper ----------------------------------------------------------------- */

static void test_ioctl_retries_eintr_and_eagain(void)
{
	struct hsaqm_kfd *kfd = t_open_version(1, 13);
	const int script[] = { -EINTR, -EAGAIN, -EINTR, 0 };
	struct hsaqm_kfd_destroy_queue_args args = { .queue_id = 1 };

	t_script_set(script, 4);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args), 0);
	CU_ASSERT_EQUAL(t_sc.calls, 4);
	CU_ASSERT_EQUAL(t_sc.last_request, HSAQM_KFD_IOC_DESTROY_QUEUE);
	hsaqm_kfd_close(kfd);
}

static void test_ioctl_retry_is_bounded(void)
{
	struct hsaqm_kfd *kfd = t_open_version(1, 13);
	struct hsaqm_kfd_destroy_queue_args args = { .queue_id = 1 };

	t_script_set(NULL, 0);
	t_sc.fallback = -EINTR;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args), -EINTR);
	CU_ASSERT_EQUAL(t_sc.calls, HSAQM_KFD_IOCTL_MAX_TRIES);

	t_sc.calls = 0;
	t_sc.fallback = -EAGAIN;
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args), -EAGAIN);
	CU_ASSERT_EQUAL(t_sc.calls, HSAQM_KFD_IOCTL_MAX_TRIES);
	hsaqm_kfd_close(kfd);
}

static void test_ioctl_passes_other_errno_at_once(void)
{
	static const int errs[] = { -EPERM, -EINVAL, -EFAULT, -ENOTTY, -EBUSY, -ESRCH, -524 };
	struct hsaqm_kfd *kfd = t_open_version(1, 13);
	struct hsaqm_kfd_destroy_queue_args args = { .queue_id = 1 };

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		t_script_set(&errs[i], 1);
		t_sc.fallback = 0;
		CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args), errs[i]);
		CU_ASSERT_EQUAL(t_sc.calls, 1);
	}
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(NULL, HSAQM_KFD_IOC_DESTROY_QUEUE, &args), -EINVAL);
	hsaqm_kfd_close(kfd);
}

static void test_ioctl_passes_positive_results(void)
{
	struct hsaqm_kfd *kfd = t_open_version(1, 13);
	const int script[] = { -EINTR, 7 };
	struct hsaqm_kfd_dbg_trap_args args = { 0 };

	t_script_set(script, 2);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DBG_TRAP, &args), 7);
	CU_ASSERT_EQUAL(t_sc.calls, 2);
	hsaqm_kfd_close(kfd);
}

/* ---- fork -------------------------------------------------------------------------------- */

/* Exit codes of the child: 0 ok, 10+ which check failed. */
static int fork_child_checks(struct hsaqm_kfd *kfd)
{
	struct hsaqm_kfd_destroy_queue_args args = { .queue_id = 1 };
	int calls_before = t_sc.calls;
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
	if (t_sc.calls != calls_before)
		return 12; /* the inherited handle must not reach the KFD */
	if (hsaqm_kfd_queue_destroy(kfd, 1) != -EBADF)
		return 13;
	if (hsaqm_kfd_reopen(kfd) != 0)
		return 14;
	if (hsaqm_kfd_is_stale(kfd))
		return 15;
	if (t_sc.opens != 2 || t_sc.closes != 1)
		return 16; /* the inherited handle dropped, a new one opened */
	if (hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args) != 0)
		return 17;
	if (hsaqm_kfd_close(kfd) != 0)
		return 18;
	return 0;
}

static void test_fork_child_must_reopen(void)
{
	struct hsaqm_kfd *kfd = t_open_version(1, 13);
	struct hsaqm_kfd_destroy_queue_args args = { .queue_id = 1 };
	int status = -1;
	pid_t pid;

	CU_ASSERT_FALSE(hsaqm_kfd_is_stale(kfd));
	CU_ASSERT_EQUAL(hsaqm_kfd_reopen(kfd), 0); /* nothing to do in the owner */
	CU_ASSERT_EQUAL(t_sc.opens, 1);
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
	t_script_set(NULL, 0);
	CU_ASSERT_EQUAL(hsaqm_kfd_ioctl(kfd, HSAQM_KFD_IOC_DESTROY_QUEUE, &args), 0);
	CU_ASSERT_EQUAL(t_sc.calls, 1);
	CU_ASSERT_EQUAL(t_sc.opens, 1);
	hsaqm_kfd_close(kfd);
}

static const struct t_case cases[] = {
	T_CASE(test_open_reads_version_and_close_releases),
	T_CASE(test_open_passes_transport_errno_and_refuses_unknown_major),
	T_CASE(test_ioctl_retries_eintr_and_eagain),
	T_CASE(test_ioctl_retry_is_bounded),
	T_CASE(test_ioctl_passes_other_errno_at_once),
	T_CASE(test_ioctl_passes_positive_results),
	T_CASE(test_fork_child_must_reopen),
	T_CASES_END,
};

static const struct t_suite suites[] = {
	{ "kfd-ioctl-handle", NULL, NULL, cases },
	T_SUITES_END,
};

int main(void)
{
	return t_run("kfd-ioctl-handle", suites);
}
