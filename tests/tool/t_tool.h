/* SPDX-License-Identifier: MIT */
/*
 * t_tool.h - helpers of the tool library's tests: the model opened the way ROCr would start
 * with HSA_TOOLS_LIB set (its HSA face loads the tools in hsa_init), and libhsaqm.so's process
 * registry reached the way python/hsaqm.py reaches it (the instance the tool linked, found by
 * its soname). Header-only.
 */
#ifndef T_TOOL_H
#define T_TOOL_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_hsa.h"
#include "t_json.h"
#include "t_rocclr.h"

/* The registry functions of the libhsaqm.so the tool loaded (hsaqm/process.h). */
struct t_proc {
	void *lib;
	int (*set_priority)(int priority);
	int (*get_priority)(int *priority);
	int (*suspend)(void);
	int (*resume)(void);
	int (*stats_json)(char *buf, size_t size, size_t *needed);
	int (*status)(char *buf, size_t size);
};

/* The tool library of this build tree (meson passes it in HSAQM_TEST_TOOL_LIB). */
static inline const char *t_tool_path(void)
{
	const char *p = getenv("HSAQM_TEST_TOOL_LIB");

	return p && *p ? p : NULL;
}

/* 0, or -ENOENT when no libhsaqm.so is loaded (the tool is not). */
static inline int t_proc_bind(struct t_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->lib = dlopen("libhsaqm.so.0", RTLD_NOW | RTLD_NOLOAD);
	if (!p->lib)
		return -ENOENT;
	*(void **)&p->set_priority = dlsym(p->lib, "hsaqm_process_set_priority");
	*(void **)&p->get_priority = dlsym(p->lib, "hsaqm_process_get_priority");
	*(void **)&p->suspend = dlsym(p->lib, "hsaqm_process_suspend");
	*(void **)&p->resume = dlsym(p->lib, "hsaqm_process_resume");
	*(void **)&p->stats_json = dlsym(p->lib, "hsaqm_process_stats_json");
	*(void **)&p->status = dlsym(p->lib, "hsaqm_process_status");
	if (!p->set_priority || !p->suspend || !p->stats_json || !p->status)
		return -ENOENT;
	return 0;
}

static inline void t_proc_unbind(struct t_proc *p)
{
	if (p->lib)
		dlclose(p->lib);
	memset(p, 0, sizeof(*p));
}

/* The stats document, malloc'ed (free it), or NULL. */
static inline char *t_proc_stats(struct t_proc *p)
{
	size_t need = 0;
	char *buf;

	if (p->stats_json(NULL, 0, &need) != -ENOSPC || !need)
		return NULL;
	buf = malloc(need + 4096); /* queues may change between the two calls */
	if (buf && p->stats_json(buf, need + 4096, NULL)) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

/* How many times @needle occurs in @hay. */
static inline unsigned int t_count(const char *hay, const char *needle)
{
	unsigned int n = 0;

	for (const char *s = hay; hay && (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

/*
 * A model with HSA_TOOLS_LIB=@tools (NULL: unset) and the HSAQM_* settings of @env ("K=V"
 * strings, NULL-terminated; each is set before hsa_init, unset by t_tool_close()).
 */
static inline int t_tool_open(struct t_hsa *h, const char *tools, const char *const *env,
			      const struct hsaqm_sim_config *cfg)
{
	for (const char *const *e = env; e && *e; e++) {
		char k[128];
		const char *eq = strchr(*e, '=');

		if (!eq || (size_t)(eq - *e) >= sizeof(k))
			return -EINVAL;
		memcpy(k, *e, (size_t)(eq - *e));
		k[eq - *e] = '\0';
		setenv(k, eq + 1, 1);
	}
	if (tools)
		setenv("HSA_TOOLS_LIB", tools, 1);
	else
		unsetenv("HSA_TOOLS_LIB");
	return t_hsa_open_cfg(h, cfg);
}

static inline void t_tool_close(struct t_hsa *h, const char *const *env)
{
	t_hsa_close(h);
	for (const char *const *e = env; e && *e; e++) {
		char k[128];
		const char *eq = strchr(*e, '=');

		if (eq && (size_t)(eq - *e) < sizeof(k)) {
			memcpy(k, *e, (size_t)(eq - *e));
			k[eq - *e] = '\0';
			unsetenv(k);
		}
	}
	unsetenv("HSA_TOOLS_LIB");
}

/* Whether @q is a proxy: the model's HSA face has no hardware queue behind that address. */
static inline bool t_tool_is_proxy(struct t_hsa *h, const struct hsaqm_hsa_queue *q)
{
	return t_hsa_sim_hwq(h, q) == NULL;
}

/* The stats object (t_proc_stats()) of the queue whose HSA priority is @prio ("low", "high"). */
static inline bool t_tool_queue_json(const char *js, const char *prio, char *out, size_t size)
{
	char key[64];

	snprintf(key, sizeof(key), "\"hsa_priority\":\"%s\"", prio);
	return t_json_object_with(js, key, out, size);
}

#endif /* T_TOOL_H */
