/* SPDX-License-Identifier: MIT */
/*
 * The HSA face's tool loader: what ROCr does with HSA_TOOLS_LIB, so that a tool library (hsaqm's
 * libhsaqm-tool.so, a test's fake profiler) is loaded by the model exactly as by the real
 * runtime. The facts, read from ROCr's runtime.cpp and flag.h (docs/tool.md):
 *
 *   - at the first hsa_init (under the runtime's init lock, after the agents exist) every name
 *     in HSA_TOOLS_LIB is opened with dlopen(RTLD_LAZY), in order; the list is split at spaces,
 *     "double quotes" group, a backslash escapes the next character;
 *   - the same library named twice is loaded once;
 *   - each library's OnLoad(table, root major, failed count, failed names) is called; a library
 *     that cannot be opened, has no OnLoad, or whose OnLoad returns false is closed and added
 *     to the failed list the next tools receive; HSA_TOOLS_REPORT_LOAD_FAILURE=1 prints
 *     "Tool lib "NAME" failed to load." for one that cannot be opened;
 *   - at the last hsa_shut_down, OnUnload of each loaded tool in reverse order, then the table is
 *     reset to the runtime's own entries, then the libraries are closed.
 *
 * (ROCr also adopts tools already in the process that export HSA_AMD_TOOL_PRIORITY, and skips
 * HSA_TOOLS_LIB when a rocprofiler-sdk tool registered unless HSA_TOOLS_ROCPROFILER_V1_TOOLS is
 * set; the model has neither kind of tool.)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsa_face_internal.h"
#include "hsa_face_tools.h"

#define MAX_TOOLS 16

typedef bool (*tool_onload_fn)(void *table, uint64_t runtime_version, uint64_t failed_count,
			       const char *const *failed_names);
typedef void (*tool_onunload_fn)(void);

/* Per face (registry slot): the tools loaded and the tables as they were before them. */
static struct tools_slot {
	void *handles[MAX_TOOLS];
	unsigned int n;
	bool saved;
	struct hsaqm_api_root_v3 root;
	struct hsaqm_core_api_table core;
	struct hsaqm_amd_ext_table_v2 amd_ext;
	struct hsa_face_tools_table tools;
} tool_slots[HSA_FACE_MAX_MODELS];

/* Split HSA_TOOLS_LIB as ROCr does. Returns the count; names point into @buf. */
static unsigned int split_names(char *buf, char **names, unsigned int max)
{
	unsigned int n = 0;
	char *r = buf, *w = buf, *start = buf;
	bool quoted = false, any = false;

	while (*r) {
		char c = *r++;

		if (c == '\\' && *r) {
			*w++ = *r++;
			any = true;
		} else if (c == '"') {
			if (quoted) {
				*w++ = '\0';
				if (n < max)
					names[n++] = start;
				start = w;
				any = false;
			}
			quoted = !quoted;
		} else if (c == ' ' && !quoted) {
			*w++ = '\0';
			if (any && n < max)
				names[n++] = start;
			start = w;
			any = false;
		} else {
			*w++ = c;
			any = true;
		}
	}
	*w = '\0';
	if (any && n < max)
		names[n++] = start;
	return n;
}

void hsa_face_tools_load(struct hsa_face *f)
{
	struct tools_slot *s = &tool_slots[f->slot];
	const char *env = getenv("HSA_TOOLS_LIB");
	const char *report = getenv("HSA_TOOLS_REPORT_LOAD_FAILURE");
	const char *failed[MAX_TOOLS];
	char *names[MAX_TOOLS], *buf;
	unsigned int nnames, nfailed = 0;

	if (!env || !*env)
		return;
	buf = strdup(env);
	if (!buf)
		return;
	nnames = split_names(buf, names, MAX_TOOLS);
	/* What the runtime resets the table to after the last OnUnload. */
	s->root = f->root;
	s->core = f->core;
	s->amd_ext = f->amd_ext;
	s->tools = f->tools;
	s->saved = true;
	s->n = 0;
	for (unsigned int i = 0; i < nnames; i++) {
		void *h = dlopen(names[i], RTLD_LAZY);
		tool_onload_fn onload;
		bool dup = false;

		if (!h) {
			failed[nfailed++] = names[i];
			if (report && !strcmp(report, "1"))
				fprintf(stderr, "Tool lib \"%s\" failed to load.\n", names[i]);
			continue;
		}
		for (unsigned int j = 0; j < s->n; j++)
			dup |= s->handles[j] == h;
		if (dup) {
			dlclose(h); /* the same library named twice is loaded once */
			continue;
		}
		onload = (tool_onload_fn)dlsym(h, "OnLoad");
		if (!onload || !onload(&f->root, f->root.version.major_id, nfailed, failed)) {
			failed[nfailed++] = names[i];
			dlclose(h);
			continue;
		}
		s->handles[s->n++] = h;
	}
	free(buf);
}

void hsa_face_tools_unload(struct hsa_face *f)
{
	struct tools_slot *s = &tool_slots[f->slot];

	for (unsigned int i = s->n; i > 0; i--) {
		tool_onunload_fn onunload = (tool_onunload_fn)dlsym(s->handles[i - 1], "OnUnload");

		if (onunload)
			onunload();
	}
	if (s->saved) {
		/* Reset, in case a tool did not restore what it replaced. */
		f->root = s->root;
		f->core = s->core;
		f->amd_ext = s->amd_ext;
		f->tools = s->tools;
		s->saved = false;
	}
	for (unsigned int i = s->n; i > 0; i--)
		dlclose(s->handles[i - 1]);
	s->n = 0;
}
