/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-tool/config.h - the words of the tool's settings that hsaqm-run takes too (its -p and
 * -l say what HSAQM_PRIORITY and HSAQM_LEVEL say): one parser for each, in the tool's settings
 * library (hsa-layer/tool/tool_config.c, hsaqm_tool_config). Not installed (docs/style.md,
 * "Layout").
 */
#ifndef HSAQM_TOOL_CONFIG_H
#define HSAQM_TOOL_CONFIG_H

#include "hsaqm/hsaqm.h"

/* HSAQM_PRIORITY's syntax: a name or an integer. 0 and *out, or -EINVAL. */
int hsaqm_tool_parse_priority(const char *text, int *out);
/* HSAQM_LEVEL's syntax: none/lv1/lv2/lv3 or 0-3. 0 and *out, or -EINVAL. */
int hsaqm_tool_parse_level(const char *text, enum hsaqm_level *out);

#endif /* HSAQM_TOOL_CONFIG_H */
