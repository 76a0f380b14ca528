/* SPDX-License-Identifier: MIT */
/*
 * tool_internal.h - what the tool library's sources share: its settings from the HSAQM_*
 * environment variables (tool_config.c, also compiled into its tests) and the seam where a
 * node-wide scheduler client will plug in. docs/tool.md.
 */
#ifndef HSAQM_TOOL_INTERNAL_H
#define HSAQM_TOOL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hsaqm/hsaqm.h"

/* Named process priorities (HSAQM_PRIORITY); any integer in -100..100 is accepted too. */
#define HSAQM_TOOL_PRIORITY_IDLE (-90)
#define HSAQM_TOOL_PRIORITY_LOW (-50)
#define HSAQM_TOOL_PRIORITY_NORMAL 0
#define HSAQM_TOOL_PRIORITY_HIGH 50
#define HSAQM_TOOL_PRIORITY_REALTIME 90

/* What hsa_amd_queue_set_priority HIGH / LOW add to / take from the process priority. */
#define HSAQM_TOOL_PRIORITY_STEP_DEFAULT 10

/* The level a queue asks for unless HSAQM_LEVEL says otherwise: Lv2 needs nothing of the
 * KFD; Lv3 makes the process "debugged" (DBG_TRAP), which a user must choose. */
#define HSAQM_TOOL_LEVEL_DEFAULT HSAQM_LEVEL_2

#define HSAQM_TOOL_LAUNCH_MAX 65536u

struct hsaqm_tool_config {
	bool disabled;                 /* HSAQM_TOOL_DISABLE: install nothing */
	int priority;                  /* HSAQM_PRIORITY */
	int priority_step;             /* HSAQM_PRIORITY_STEP */
	enum hsaqm_level level;        /* HSAQM_LEVEL */
	uint32_t lv1_threshold;        /* HSAQM_LV1_THRESHOLD (0 = lib's default) */
	uint32_t lv1_batch;            /* HSAQM_LV1_BATCH (0 = lib's default) */
	uint32_t lv2_interval;         /* HSAQM_LV2_INTERVAL (0 = lib's default) */
	struct hsaqm_policy_config policy; /* HSAQM_POLICY, HSAQM_FLOOR */
	char stats_file[4096];         /* HSAQM_STATS_FILE ("" = none) */
	unsigned int bad;              /* how many variables were refused (each said once) */
};

/*
 * Read the HSAQM_* variables through @get (getenv, or a test's table). A bad value gets
 * one line on stderr naming the variable, what it accepts and the default it falls back to.
 */
void hsaqm_tool_config_read(struct hsaqm_tool_config *cfg, const char *(*get)(const char *name));

/* HSAQM_PRIORITY's syntax: a name or an integer. 0 and *out, or -EINVAL. */
int hsaqm_tool_parse_priority(const char *text, int *out);
/* HSAQM_LEVEL's syntax: none/lv1/lv2/lv3 or 0-3. 0 and *out, or -EINVAL. */
int hsaqm_tool_parse_level(const char *text, enum hsaqm_level *out);

/*
 * The node-wide seam. Scheduling in this version is within the process (all its queues, on
 * every device). A client of the node-wide daemon plugs in here: it is told of every queue
 * the tool creates and destroys and of priority changes, and may change a queue's priority
 * or hold it by hand through lib's public API. NULL members are skipped; with no client
 * installed (now) nothing is called.
 */
struct hsaqm_tool_node_client {
	int (*queue_created)(void *arg, struct hsaqm_xq *xq, uint32_t device, int priority);
	void (*queue_destroyed)(void *arg, struct hsaqm_xq *xq);
	void (*process_priority)(void *arg, int priority);
	void *arg;
};

#endif /* HSAQM_TOOL_INTERNAL_H */
