/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-common/text.h - how hsaqm reads what a person wrote (numbers in environment variables,
 * command lines, configuration and workload files) and how it names an errno: decided once,
 * here, for every folder. Header-only and not installed, as hsaqm-common/json.h.
 *
 * Numbers: the whole string is the number, in the base given (10, or 8 for a file mode, or
 * 16 for an id that hsaqm itself writes as "0x..."), written as digits with at most a '-' in
 * front for a signed one: no spaces (a file syntax that allows them trims first,
 * hsaqm_trim()), no '+', no "0x" or leading-zero surprises (base 16 needs its "0x", so "10"
 * is never sixteen), no trailing junk. -EINVAL when it is not such a number, -ERANGE when it
 * is one outside [min, max]: the caller says which to the person, naming the input.
 *
 * Fractional numbers (hsaqm_parse_double()): decimal only, the same rule, an exponent
 * allowed ("2.5", "1e-3", ".5"), and finite: no "inf", "nan" or hex floats, nothing that
 * overflows or underflows a double.
 */
#ifndef HSAQM_COMMON_TEXT_H
#define HSAQM_COMMON_TEXT_H

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Unsigned: digits only ("0x" and hex digits in base 16). 0 and *out; -EINVAL; -ERANGE. */
static inline int hsaqm_parse_uint(const char *s, int base, unsigned long long min,
				   unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || (base != 10 && base != 8 && base != 16))
		return -EINVAL;
	if (base == 16 && (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') ||
			   !isxdigit((unsigned char)s[2])))
		return -EINVAL;
	if (base != 16 && !isdigit((unsigned char)*s))
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

/*
 * A fractional number at the start of @s, and *unit pointing at what follows it (a unit such
 * as "ms"; it must not start with 'e' or 'E', which would read as an exponent): 0 and *out;
 * -EINVAL when @s does not start with a decimal number or the number runs into more number
 * characters ("1.2.3", "5e"); -ERANGE when it overflows, underflows or is outside [min, max].
 */
static inline int hsaqm_parse_double_unit(const char *s, double min, double max, double *out,
					  const char **unit)
{
	const char *p;
	char *end;
	double v;

	if (!s)
		return -EINVAL;
	p = s + (*s == '-');
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	/*
	 * strtod stops early inside what a person meant as one number ("5e", "1.2.3"): only the
	 * characters a decimal number is made of count, so the rest is not silently a unit.
	 */
	if (end != s + strspn(s, "0123456789.eE+-"))
		return -EINVAL;
	if (errno == ERANGE || !isfinite(v) || v < min || v > max)
		return -ERANGE;
	*out = v;
	if (unit)
		*unit = end;
	return 0;
}

/*
 * A KFD gpu_id: decimal, or hexadecimal with its "0x" (how the topology and hsaqmd write
 * them), below UINT32_MAX. A leading zero otherwise is refused rather than read ("010" was
 * eight to strtoul's base 0 and would be ten here: a device nobody meant is worse than a
 * refusal). 0 and *out; -EINVAL; -ERANGE.
 */
static inline int hsaqm_parse_gpu_id(const char *s, uint32_t *out)
{
	unsigned long long v;
	bool hex = s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	int rc;

	if (!s || (s[0] == '0' && s[1] && !hex))
		return -EINVAL;
	rc = hsaqm_parse_uint(s, hex ? 16 : 10, 0, UINT32_MAX - 1ull, &v);
	if (rc)
		return rc;
	*out = (uint32_t)v;
	return 0;
}

/* A fractional number that is the whole of @s. 0 and *out; -EINVAL; -ERANGE. */
static inline int hsaqm_parse_double(const char *s, double min, double max, double *out)
{
	const char *unit;
	double v;
	int rc = hsaqm_parse_double_unit(s, min, max, &v, &unit);

	if (rc)
		return rc;
	if (*unit)
		return -EINVAL;
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

#endif /* HSAQM_COMMON_TEXT_H */
