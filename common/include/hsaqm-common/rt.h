/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-common/rt.h - real-time scheduling for hsaqm's control threads (docs/daemon.md "Under
 * load"): the daemon's thread, and in each process the daemon client's thread, the tool's
 * idle watcher and lib's timer thread. On a host whose cores are all taken (data loaders), a
 * SCHED_OTHER control thread waits behind them for milliseconds; a SCHED_FIFO one runs at its
 * wake-up. None of these threads spins without bound: each sleeps in poll, epoll or a
 * condition variable between events (a bounded spin at most, see hsaqmd's spin_us).
 *
 * HSAQM_REALTIME (and hsaqmd's `realtime` key) takes one syntax:
 *   auto (default)  SCHED_FIFO where permitted (root, CAP_SYS_NICE, an RLIMIT_RTPRIO), else
 *                   stay as started, quietly;
 *   on | yes        the same, and one line saying so when it is not permitted;
 *   off | no | 0    never;
 *   1..99           on, at that priority.
 * Header-only and not installed, as hsaqm-common/json.h: lib's timer thread (libhsaqm.so), the
 * tool and the daemon each include it; nothing of it is exported.
 */
#ifndef HSAQM_COMMON_RT_H
#define HSAQM_COMMON_RT_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum hsaqm_rt_mode { HSAQM_RT_AUTO = 0, HSAQM_RT_ON = 1, HSAQM_RT_OFF = 2 };

/* Default priorities: the daemon above its clients' threads, both above every SCHED_OTHER
 * thread and below the kernel's interrupt threads (50). Assumption, not measured. */
#define HSAQM_RT_PRIO_DAEMON 20
#define HSAQM_RT_PRIO_CLIENT 10

/*
 * hsaqm_rt_parse() - @text in the syntax above (NULL or "" = auto). *@prio is left alone
 * unless @text is a number. Return: 0; -EINVAL for anything else.
 */
static inline int hsaqm_rt_parse(const char *text, enum hsaqm_rt_mode *mode, int *prio)
{
	char *end;
	long v;

	if (!text || !*text || !strcasecmp(text, "auto")) {
		*mode = HSAQM_RT_AUTO;
		return 0;
	}
	if (!strcasecmp(text, "on") || !strcasecmp(text, "yes")) {
		*mode = HSAQM_RT_ON;
		return 0;
	}
	if (!strcasecmp(text, "off") || !strcasecmp(text, "no") || !strcmp(text, "0")) {
		*mode = HSAQM_RT_OFF;
		return 0;
	}
	v = strtol(text, &end, 10);
	if (end == text || *end || v < 1 || v > 99)
		return -EINVAL;
	*mode = HSAQM_RT_ON;
	*prio = (int)v;
	return 0;
}

/*
 * hsaqm_rt_self() - make the calling thread SCHED_FIFO at @prio unless @mode is off.
 * Return: the priority in force (> 0); 0 when off; -EPERM when not permitted; another
 * negative errno.
 */
static inline int hsaqm_rt_self(enum hsaqm_rt_mode mode, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int rc;

	if (mode == HSAQM_RT_OFF)
		return 0;
	rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	return rc ? -rc : prio;
}

/* The mode and priority HSAQM_REALTIME asks for; a bad value counts as auto (*@bad set). */
static inline enum hsaqm_rt_mode hsaqm_rt_from_env(int *prio, int *bad)
{
	enum hsaqm_rt_mode mode = HSAQM_RT_AUTO;

	if (hsaqm_rt_parse(getenv("HSAQM_REALTIME"), &mode, prio) < 0) {
		if (bad)
			*bad = 1;
		mode = HSAQM_RT_AUTO;
	}
	return mode;
}

#endif /* HSAQM_COMMON_RT_H */
