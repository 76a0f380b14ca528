/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-common/policy_text.h - a scheduling policy as text: one syntax and one parser for every
 * place a person writes one (HSAQM_POLICY for the tool library, `policy.*` in hsaqmd.conf,
 * `hsaqmctl policy`), next to the policy itself (policy.c). docs/environment.md and
 * docs/daemon.md show it.
 *
 *   hpf                       highest priority first
 *   hpf PERIOD_US:SLICE_US    ... with a starvation floor: a held queue runs SLICE_US every PERIOD_US
 *   util                      turns by share (period: HSAQM_UTIL_PERIOD_DEFAULT_US)
 *   util PERIOD_US            ... over that period
 *   none                      nothing is held
 *
 * Names are case-insensitive, blanks separate; times are microseconds, 1..100000000 (100 s).
 * One older form stays accepted, flagged so the caller says it is deprecated:
 * "hpf PERIOD_US SLICE_US" (hsaqmd.conf and hsaqmctl before the syntaxes were one).
 *
 * Built as its own static PIC library (hsaqm_policy_text, lib/meson.build): libhsaqm.so does
 * not export it, and the tool library links it privately, as it does the logger.
 */
#ifndef HSAQM_COMMON_POLICY_TEXT_H
#define HSAQM_COMMON_POLICY_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hsaqm/hsaqm.h"

/* The longest time the syntax takes, in microseconds (a longer period is a mistake). */
#define HSAQM_POLICY_TEXT_MAX_US 100000000u

/*
 * hsaqm_policy_parse() - @text in the syntax above into @cfg (zeroed first).
 * @old_form: when non-NULL, set to true for the deprecated "hpf PERIOD SLICE".
 * @why: on -EINVAL, what is wrong (a sentence without the text itself).
 * Return: 0 (the result also passes hsaqm_policy_check()'s rules); -EINVAL for NULL
 * arguments or anything else.
 */
int hsaqm_policy_parse(const char *text, struct hsaqm_policy_config *cfg, bool *old_form,
		       char *why, size_t len);

/*
 * hsaqm_policy_parse_floor() - "PERIOD_US:SLICE_US" (the floor alone, as the deprecated
 * HSAQM_FLOOR took it). Return: 0; -EINVAL (0 < slice < period <= 100 s otherwise).
 */
int hsaqm_policy_parse_floor(const char *text, uint32_t *period_us, uint32_t *slice_us);

/*
 * hsaqm_policy_format() - @cfg in the syntax above ("hpf 100000:5000", "util 10000", "none").
 * Return: the length written (without the NUL), as snprintf; -EINVAL for NULL arguments.
 */
int hsaqm_policy_format(const struct hsaqm_policy_config *cfg, char *buf, size_t size);

#endif /* HSAQM_COMMON_POLICY_TEXT_H */
