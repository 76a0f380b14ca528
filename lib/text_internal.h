/* SPDX-License-Identifier: MIT */
/*
 * text_internal.h - how hsaqm reads what a person wrote (numbers in environment variables,
 * command lines, configuration and workload files) and how it names an errno: decided once,
 * here, for every folder. Header-only and private, as json_internal.h.
 *
 * Numbers: the whole string is the number, in the base given (10, or 8 for a file mode),
 * written as digits with at most a '-' in front for a signed one: no spaces (a file syntax
 * that allows them trims first, hsaqm_trim()), no '+', no "0x" or leading-zero surprises, no
 * trailing junk. -EINVAL when it is not such a number, -ERANGE when it is one outside
 * [min, max]: the caller says which to the person, naming the input.
 */
#ifndef HSAQM_TEXT_INTERNAL_H
#define HSAQM_TEXT_INTERNAL_H

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Unsigned: digits only. 0 and *out; -EINVAL; -ERANGE. */
static inline int hsaqm_parse_uint(const char *s, int base, unsigned long long min,
				   unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s) || (base != 10 && base != 8))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* Signed: an optional '-', then digits. 0 and *out; -EINVAL; -ERANGE. */
static inline int hsaqm_parse_int(const char *s, int base, long long min, long long max,
				  long long *out)
{
	long long v;
	char *end;

	if (!s || !isdigit((unsigned char)(*s == '-' ? s[1] : *s)) || (base != 10 && base != 8))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, base);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* @s without the white space around it: the end is cut in place, the start skipped. */
static inline char *hsaqm_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * The name of an errno value, either sign ("EPERM"; glibc's table, so every errno has one),
 * or "errno N" written into @buf for a number the C library does not name.
 */
static inline const char *hsaqm_errno_name(int err, char *buf, size_t len)
{
	const char *name;

	if (err < 0)
		err = -err;
	name = strerrorname_np(err);
	if (name)
		return name;
	snprintf(buf, len, "errno %d", err);
	return buf;
}

#endif /* HSAQM_TEXT_INTERNAL_H */
