/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "hsaqm/barrier.h"
#include "log_internal.h"

/* -1: HSAQM_LOG not read yet. Read racily-but-safely: every reader computes the same value. */
static int log_level = -1;
static FILE *log_sink;
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

/*
 * Whether this copy of the logger is the first in the process to say @what. A process may hold
 * several copies of this file (libhsaqm.so's, the tool library's, a program's static one, the
 * device model's), each with its own statics, and all of them read the same environment: a
 * message about it must still come once. The claim is a name in the abstract socket namespace,
 * "hsaqm-<pid>-<what>", which one socket at a time can hold in the process's network namespace;
 * the winner keeps the socket open (close-on-exec) for the process's life. Only error paths
 * call this. Where no socket can be made, every copy says it (the old behaviour).
 */
static bool first_in_process(const char *what)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int n;

	if (fd < 0)
		return true;
	/* sun_path[0] = '\0': the abstract namespace, nothing in the file system. */
	n = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "hsaqm-%ld-%s", (long)getpid(), what);
	if (bind(fd, (struct sockaddr *)&a,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) == 0)
		return true; /* fd kept: the claim lasts as long as the process */
	n = errno;
	close(fd);
	return n != EADDRINUSE;
}

static void log_read_env(void)
{
	const char *env = getenv("HSAQM_LOG");
	int level = HSAQM_LOG_NONE;

	if (env && *env && hsaqm_log_parse_level(env, &level) < 0) {
		/* A person wrote this value: say so once per process, whatever the level. */
		if (first_in_process("log-env"))
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

static void log_vprint(const char *prefix, const char *func, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&log_lock);
	FILE *out = log_sink ? log_sink : stderr;

	/* One line per message, under the lock, so threads do not interleave. */
	if (func)
		fprintf(out, "hsaqm[%s] %s: ", prefix, func);
	else
		fprintf(out, "hsaqm: ");
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
