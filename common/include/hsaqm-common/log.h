/* SPDX-License-Identifier: MIT */
/*
 * The one logger of hsaqm. Silent by default: HSAQM_LOG=error|warn|info|debug turns it on
 * (read once, on first use). Messages a person must see whatever the level (a bad
 * setting they wrote, a fail-open fallback) go through hsaqm_log_notice().
 *
 * Its code and state are in libhsaqm.so alone (log.c), exported for hsaqm's own objects under
 * HSAQM_PRIVATE: whoever includes this header links libhsaqm.so, so a process holds one
 * logger whatever else it loads (docs/lib.md, "Logging").
 */
#ifndef HSAQM_COMMON_LOG_H
#define HSAQM_COMMON_LOG_H

#include <stdio.h>

#include "hsaqm-common/shared_state.h"

enum hsaqm_log_level {
	HSAQM_LOG_NONE = 0,
	HSAQM_LOG_ERROR = 1,
	HSAQM_LOG_WARN = 2,
	HSAQM_LOG_INFO = 3,
	HSAQM_LOG_DEBUG = 4,
};

/* Current level; reads HSAQM_LOG on the first call. */
HSAQM_PRIVATE_API int hsaqm_log_level(void);

/*
 * Parse a level name ("none", "error", "warn", "info", "debug", or 0-4).
 * Returns 0 and stores the level, or -EINVAL for anything else.
 */
HSAQM_PRIVATE_API int hsaqm_log_parse_level(const char *text, int *level);

/* Override the level and the sink (tests; NULL sink = stderr). Thread safe. */
HSAQM_PRIVATE_API void hsaqm_log_set_level(int level);
HSAQM_PRIVATE_API void hsaqm_log_set_sink(FILE *sink);
/*
 * The name each line starts with ("hsaqm" unless a program says otherwise: hsaqmd's lines
 * are its own, "hsaqmd: ..."). @name must outlive the process's logging (a string literal).
 */
HSAQM_PRIVATE_API void hsaqm_log_set_program(const char *name);

HSAQM_PRIVATE_API void hsaqm_log_write(int level, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Always printed, once per call site's `flag` when flag is non-NULL. */
HSAQM_PRIVATE_API void hsaqm_log_notice(int *once_flag, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define HSAQM_LOG(level, ...)                                   \
	do {                                                    \
		if (hsaqm_log_level() >= (level))               \
			hsaqm_log_write((level), __func__, __VA_ARGS__); \
	} while (0)

#define hsaqm_log_err(...) HSAQM_LOG(HSAQM_LOG_ERROR, __VA_ARGS__)
#define hsaqm_log_warn(...) HSAQM_LOG(HSAQM_LOG_WARN, __VA_ARGS__)
#define hsaqm_log_info(...) HSAQM_LOG(HSAQM_LOG_INFO, __VA_ARGS__)
#define hsaqm_log_debug(...) HSAQM_LOG(HSAQM_LOG_DEBUG, __VA_ARGS__)

#endif /* HSAQM_COMMON_LOG_H */
