/* SPDX-License-Identifier: MIT */
/*
 * daemon_log.c - hsaqmd's messages through lib's logger (daemon_log_internal.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon_log_internal.h"

void hsaqmd_log_write(int level, const char *func, const char *fmt, ...)
{
	va_list ap;
	char *text = NULL;
	int n;

	/* Muted levels cost a comparison, as HSAQM_LOG() does. */
	if (level > HSAQM_LOG_ERROR && hsaqm_log_level() < level)
		return;
	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		/* Out of memory: the words without their values, rather than nothing. */
		text = NULL;
	}
	if (level <= HSAQM_LOG_ERROR)
		hsaqm_log_notice(NULL, "%s", text ? text : fmt); /* "hsaqmd: ": main() names it */
	else
		hsaqm_log_write(level, func, "%s", text ? text : fmt);
	free(text);
}
