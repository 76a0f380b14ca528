/* SPDX-License-Identifier: MIT */
/*
 * log.c - the one logger, compiled into libhsaqm.so only. Every other object that logs (the
 * tool library, kfd-ioctl and hsa-layer inside it, the daemon client, the device model, the
 * programs) calls these functions in libhsaqm.so (exported under HSAQM_PRIVATE, libhsaqm.map),
 * so a process has one level, one sink and one reading of HSAQM_LOG, and "once" means once
 * in the process by construction (docs/lib.md, "Logging").
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hsaqm-common/barrier.h"
#include "hsaqm-common/log.h"

/* -1: HSAQM_LOG not read yet. Read racily-but-safely: every reader computes the same value. */
static int log_level = -1;
static FILE *log_sink;
static const char *log_program = "hsaqm"; /* under log_lock */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const level_names[] = { "none", "error", "warn", "info", "debug" };

int hsaqm_log_parse_level(const char *text, int *level)
{
	if (!text || !level)
		return -EINVAL;
	for (int i = 0; i <= HSAQM_LOG_DEBUG; i++) {
		if (!strcasecmp(text, level_names[i]) || (text[0] == '0' + i && text[1] == '\0')) {
			*level = i;
			return 0;
		}
	}
	if (!strcasecmp(text, "warning")) {
		*level = HSAQM_LOG_WARN;
		return 0;
	}
	return -EINVAL;
}

static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void log_read_env(void)
{
	const char *env = getenv("HSAQM_LOG");
	int level = HSAQM_LOG_NONE;

	if (env && *env && hsaqm_log_parse_level(env, &level) < 0) {
		/*
		 * A person wrote this value: say so whatever the level. Once per process: this
		 * runs once (env_once) in the process's one logger.
		 */
		fprintf(stderr, "hsaqm: HSAQM_LOG=\"%s\" is not one of none|error|warn|info|debug; "
			"logging stays off\n", env);
		level = HSAQM_LOG_NONE;
	}
	/*
	 * Publish only if no test override came first. acq_rel (barrier.h's one CAS): the level
	 * is a single int every reader loads relaxed; nothing else is published with it.
	 */
	int unset = -1;
	hsaqm_cas(&log_level, &unset, level);
}

int hsaqm_log_level(void)
{
	/* Relaxed is enough: the level is a single int and every writer stores a valid one. */
	int level = hsaqm_load_relaxed(&log_level);

	if (__builtin_expect(level >= 0, 1))
		return level;
	pthread_once(&env_once, log_read_env);
	return hsaqm_load_relaxed(&log_level);
}

void hsaqm_log_set_level(int level)
{
	if (level < HSAQM_LOG_NONE)
		level = HSAQM_LOG_NONE;
	if (level > HSAQM_LOG_DEBUG)
		level = HSAQM_LOG_DEBUG;
	/* Make a later first hsaqm_log_level() skip the environment. */
	pthread_once(&env_once, log_read_env);
	hsaqm_store_relaxed(&log_level, level);
}

void hsaqm_log_set_sink(FILE *sink)
{
	pthread_mutex_lock(&log_lock);
	log_sink = sink;
	pthread_mutex_unlock(&log_lock);
}

void hsaqm_log_set_program(const char *name)
{
	pthread_mutex_lock(&log_lock);
	log_program = name && *name ? name : "hsaqm";
	pthread_mutex_unlock(&log_lock);
}

static void log_vprint(const char *prefix, const char *func, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&log_lock);
	FILE *out = log_sink ? log_sink : stderr;

	/* One line per message, under the lock, so threads do not interleave. */
	if (func)
		fprintf(out, "%s[%s] %s: ", log_program, prefix, func);
	else
		fprintf(out, "%s: ", log_program);
	vfprintf(out, fmt, ap);
	size_t len = strlen(fmt);
	if (len == 0 || fmt[len - 1] != '\n')
		fputc('\n', out);
	fflush(out);
	pthread_mutex_unlock(&log_lock);
}

void hsaqm_log_write(int level, const char *func, const char *fmt, ...)
{
	va_list ap;

	if (level < HSAQM_LOG_ERROR || level > HSAQM_LOG_DEBUG)
		level = HSAQM_LOG_ERROR;
	va_start(ap, fmt);
	log_vprint(level_names[level], func, fmt, ap);
	va_end(ap);
}

void hsaqm_log_notice(int *once_flag, const char *fmt, ...)
{
	va_list ap;

	/* The exchange makes "once" hold across threads racing on the same flag. */
	if (once_flag && hsaqm_exchange(once_flag, 1) != 0)
		return;
	va_start(ap, fmt);
	log_vprint(NULL, NULL, fmt, ap);
	va_end(ap);
}
