/* SPDX-License-Identifier: MIT */
/*
 * t_stderr.h - what a stretch of a test writes on stderr (fd 2), for the tests that prove a
 * message is said, and said once. Header-only.
 */
#ifndef T_STDERR_H
#define T_STDERR_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct t_stderr {
	int saved; /* the real stderr */
	FILE *tmp; /* where fd 2 goes meanwhile (an unlinked file: nothing is left behind) */
};

/* Send stderr to a temporary file. 0 or -1. */
static inline int t_stderr_begin(struct t_stderr *c)
{
	c->saved = -1;
	c->tmp = tmpfile();
	if (!c->tmp)
		return -1;
	fflush(stderr);
	c->saved = dup(2);
	if (c->saved < 0 || dup2(fileno(c->tmp), 2) < 0) {
		fclose(c->tmp);
		return -1;
	}
	return 0;
}

/* Restore stderr; returns what was written meanwhile (malloc'ed, never NULL but on ENOMEM). */
static inline char *t_stderr_end(struct t_stderr *c)
{
	char *buf = calloc(1, 65536);
	size_t n = 0;

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	if (buf) {
		rewind(c->tmp);
		n = fread(buf, 1, 65535, c->tmp);
		buf[n] = '\0';
	}
	fclose(c->tmp);
	return buf;
}

#endif /* T_STDERR_H */
