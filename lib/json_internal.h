/* SPDX-License-Identifier: MIT */
/*
 * json_internal.h - the one JSON string writer of the project's C code (lib's statistics, the
 * tool library's statistics, the workload runner's dump). Header-only and private: a string
 * helper is not worth an export of libhsaqm.so.
 */
#ifndef HSAQM_JSON_INTERNAL_H
#define HSAQM_JSON_INTERNAL_H

#include <stdio.h>

/* Writes @s as a JSON string: quotes, backslash escapes, control characters as \u00XX. */
static inline void hsaqm_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

#endif /* HSAQM_JSON_INTERNAL_H */
