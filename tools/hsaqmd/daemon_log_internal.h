/* SPDX-License-Identifier: MIT */
/*
 * daemon_log_internal.h - how every operational message of hsaqmd is said (docs/daemon.md
 * "Messages"): one function over lib's one logger (hsaqm-common/log.h), so all of them share its
 * sink (stderr, which the systemd unit hands to the journal), its one-line-at-a-time writes
 * and its level (HSAQM_LOG).
 *
 * Two kinds. Said whatever HSAQM_LOG is, as "hsaqm: hsaqmd: TEXT": an error (the daemon cannot
 * start, or stops) and a notice (it runs, but not as the operator asked or expects: real-time
 * refused, a holder that makes no progress). Said only when HSAQM_LOG asks, as
 * "hsaqm[LEVEL] FUNCTION: TEXT": warnings (refused clients, malformed messages), info (every
 * client and policy change), debug. Usage errors of the command line (main.c, before the
 * daemon runs) are not operational messages: they stay on stderr as "hsaqmd: ...".
 */
#ifndef HSAQM_HSAQMD_DAEMON_LOG_INTERNAL_H
#define HSAQM_HSAQMD_DAEMON_LOG_INTERNAL_H

#include "hsaqm-common/log.h"

/* Said whatever HSAQM_LOG is, and not an error. Below lib's levels: HSAQM_LOG cannot mute it. */
#define HSAQMD_LOG_NOTICE HSAQM_LOG_NONE

/*
 * hsaqmd_log_write() - say one message at @level (HSAQMD_LOG_NOTICE or an HSAQM_LOG_* level),
 * from @func. No newline at the end of @fmt: one message is one line.
 */
void hsaqmd_log_write(int level, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define hsaqmd_log_err(...) hsaqmd_log_write(HSAQM_LOG_ERROR, __func__, __VA_ARGS__)
#define hsaqmd_log_notice(...) hsaqmd_log_write(HSAQMD_LOG_NOTICE, __func__, __VA_ARGS__)
#define hsaqmd_log_warn(...) hsaqmd_log_write(HSAQM_LOG_WARN, __func__, __VA_ARGS__)
#define hsaqmd_log_info(...) hsaqmd_log_write(HSAQM_LOG_INFO, __func__, __VA_ARGS__)
#define hsaqmd_log_debug(...) hsaqmd_log_write(HSAQM_LOG_DEBUG, __func__, __VA_ARGS__)

#endif /* HSAQM_HSAQMD_DAEMON_LOG_INTERNAL_H */
