/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-common/json.h - the one JSON writer of the project's C code: lib's statistics (and the
 * tool library's, which extends lib's per-queue objects), the device model's trace, the
 * workload runner's documents, the probe's report, hsaqmctl's. Header-only and not installed: a
 * writer is not worth an export of libhsaqm.so, and every user compiles the same code.
 *
 * A struct hsaqm_json writes one document to a stdio stream, compactly (no whitespace) unless
 * begun with hsaqm_json_init_pretty() (below). It
 * keeps the commas: every member call writes its own separator, so a field is added (or
 * left out) with one line, in any order, and an extension can append members to an object
 * it did not open.
 *
 *	struct hsaqm_json j;
 *
 *	hsaqm_json_init(&j, f);
 *	hsaqm_json_begin_object(&j, NULL);
 *	hsaqm_json_string(&j, "name", name);
 *	hsaqm_json_uint(&j, "submitted", n);
 *	hsaqm_json_begin_array(&j, "queues");
 *	...
 *	hsaqm_json_end_array(&j);
 *	hsaqm_json_end_object(&j);
 *
 * Inside an array the key is NULL. Nesting is limited to HSAQM_JSON_DEPTH_MAX levels; the
 * writer does not check that containers are closed in order (its callers are code, not data).
 *
 * Documents a person reads (the probe's report, hsaqmctl's) start with hsaqm_json_init_pretty()
 * instead: "key": value with a space, and with @indent > 0 every member on a line of its own,
 * @indent spaces deeper than its container, the container's end on a line at the container's
 * own depth ("[]" and "{}" when empty); with @indent 0 one line, members apart by ", ". A
 * short container inside an indented document stays on one line when begun with
 * hsaqm_json_begin_inline_object() or _array() ("active": [1, 2]), and so do its children.
 */
#ifndef HSAQM_COMMON_JSON_H
#define HSAQM_COMMON_JSON_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HSAQM_JSON_DEPTH_MAX 63u

struct hsaqm_json {
	FILE *f;
	unsigned int depth;
	uint64_t more; /* bit d: the container at depth d has a member already (a comma first) */
	/* Pretty documents only (hsaqm_json_init_pretty()); 0 for the compact form. */
	unsigned int indent; /* spaces per depth; 0: one line */
	bool spaced;         /* ": " and ", " rather than ":" and "," */
	uint64_t inline_;    /* bit d: the container at depth d stays on one line */
};

/* Writes @s as a JSON string: quotes, backslash escapes, control characters as \u00XX. */
static inline void hsaqm_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static inline void hsaqm_json_init(struct hsaqm_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->more = 0;
	j->indent = 0;
	j->spaced = false;
	j->inline_ = 0;
}

/* A document for people: see the top of this file. */
static inline void hsaqm_json_init_pretty(struct hsaqm_json *j, FILE *f, unsigned int indent)
{
	hsaqm_json_init(j, f);
	j->indent = indent;
	j->spaced = true;
}

/* A new line at @depth's indentation, in an indented document outside inline containers. */
static inline bool hsaqm_json_newline(struct hsaqm_json *j, unsigned int depth)
{
	if (!j->indent || (j->inline_ & (1ull << j->depth)))
		return false;
	fprintf(j->f, "\n%*s", (int)(j->indent * depth), "");
	return true;
}

/*
 * The start of a value in the current container: its comma when something came before, and
 * "key": inside an object (@key NULL inside an array, or at the top).
 */
static inline void hsaqm_json_key(struct hsaqm_json *j, const char *key)
{
	uint64_t bit = 1ull << j->depth;

	if (j->more & bit)
		fputc(',', j->f);
	/* The top-level value starts where the document does. */
	if (!(j->depth && hsaqm_json_newline(j, j->depth)) && (j->more & bit) && j->spaced)
		fputc(' ', j->f);
	j->more |= bit;
	if (key) {
		hsaqm_json_str(j->f, key);
		fputs(j->spaced ? ": " : ":", j->f);
	}
}

static inline void hsaqm_json_begin(struct hsaqm_json *j, const char *key, char open)
{
	bool in_line = j->inline_ & (1ull << j->depth);

	hsaqm_json_key(j, key);
	fputc(open, j->f);
	if (j->depth < HSAQM_JSON_DEPTH_MAX)
		j->depth++;
	j->more &= ~(1ull << j->depth);
	/* Inside an inline container everything stays on its line. */
	if (in_line)
		j->inline_ |= 1ull << j->depth;
	else
		j->inline_ &= ~(1ull << j->depth);
}

static inline void hsaqm_json_end(struct hsaqm_json *j, char close)
{
	/* An empty container ends where it began: "[]", "{}". */
	if (j->depth && (j->more & (1ull << j->depth)))
		hsaqm_json_newline(j, j->depth - 1);
	fputc(close, j->f);
	if (j->depth)
		j->depth--;
}

static inline void hsaqm_json_begin_object(struct hsaqm_json *j, const char *key)
{
	hsaqm_json_begin(j, key, '{');
}

static inline void hsaqm_json_end_object(struct hsaqm_json *j)
{
	hsaqm_json_end(j, '}');
}

static inline void hsaqm_json_begin_array(struct hsaqm_json *j, const char *key)
{
	hsaqm_json_begin(j, key, '[');
}

static inline void hsaqm_json_end_array(struct hsaqm_json *j)
{
	hsaqm_json_end(j, ']');
}

/* Containers kept on one line in an indented document (the same as the above otherwise). */
static inline void hsaqm_json_begin_inline_object(struct hsaqm_json *j, const char *key)
{
	hsaqm_json_begin(j, key, '{');
	j->inline_ |= 1ull << j->depth;
}

static inline void hsaqm_json_begin_inline_array(struct hsaqm_json *j, const char *key)
{
	hsaqm_json_begin(j, key, '[');
	j->inline_ |= 1ull << j->depth;
}

/* A string member (NULL is written as ""). */
static inline void hsaqm_json_string(struct hsaqm_json *j, const char *key, const char *s)
{
	hsaqm_json_key(j, key);
	hsaqm_json_str(j->f, s);
}

static inline void hsaqm_json_uint(struct hsaqm_json *j, const char *key, unsigned long long v)
{
	hsaqm_json_key(j, key);
	fprintf(j->f, "%llu", v);
}

static inline void hsaqm_json_int(struct hsaqm_json *j, const char *key, long long v)
{
	hsaqm_json_key(j, key);
	fprintf(j->f, "%lld", v);
}

static inline void hsaqm_json_bool(struct hsaqm_json *j, const char *key, bool v)
{
	hsaqm_json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

/* A null member: a value that is unknown or absent ("hqds": null). */
static inline void hsaqm_json_null(struct hsaqm_json *j, const char *key)
{
	hsaqm_json_key(j, key);
	fputs("null", j->f);
}

/*
 * Numbers that are not integers: with @decimals digits after the point ("%.*f"), or with
 * @significant digits ("%.*g"). NaN and the infinities, which JSON cannot hold, are null.
 */
static inline void hsaqm_json_fixed(struct hsaqm_json *j, const char *key, double v, int decimals)
{
	hsaqm_json_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.*f", decimals, v);
	else
		fputs("null", j->f);
}

static inline void hsaqm_json_number(struct hsaqm_json *j, const char *key, double v,
				     int significant)
{
	hsaqm_json_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.*g", significant, v);
	else
		fputs("null", j->f);
}

/* A value already written as JSON by someone else (NULL: null), e.g. a trace event's arguments. */
static inline void hsaqm_json_raw(struct hsaqm_json *j, const char *key, const char *json)
{
	hsaqm_json_key(j, key);
	fputs(json ? json : "null", j->f);
}

#endif /* HSAQM_COMMON_JSON_H */
