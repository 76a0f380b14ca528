/* SPDX-License-Identifier: MIT */
/*
 * t_json.h - JSON in tests: a strict checker (RFC 8259 grammar, no semantic checks) for the
 * documents hsaqm writes, and the small lookups tests make in them (the object holding a
 * member, an integer member). Header-only.
 */
#ifndef T_JSON_H
#define T_JSON_H

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline const char *t_json_value(const char *p, int depth);

static inline const char *t_json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static inline const char *t_json_string_tok(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)p[i]))
						return NULL;
				p += 4;
			} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
				return NULL;
			}
		}
		p++;
	}
	return p + 1;
}

static inline const char *t_json_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (isdigit((unsigned char)*p))
		while (isdigit((unsigned char)*p))
			p++;
	else
		return NULL;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p;
}

static inline const char *t_json_container(const char *p, int depth, char close, bool object)
{
	p = t_json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (object) {
			p = t_json_string_tok(t_json_ws(p));
			if (!p)
				return NULL;
			p = t_json_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		p = t_json_value(p, depth + 1);
		if (!p)
			return NULL;
		p = t_json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static inline const char *t_json_value(const char *p, int depth)
{
	if (depth > 32)
		return NULL;
	p = t_json_ws(p);
	switch (*p) {
	case '{':
		return t_json_container(p, depth, '}', true);
	case '[':
		return t_json_container(p, depth, ']', false);
	case '"':
		return t_json_string_tok(p);
	case 't':
		return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f':
		return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n':
		return strncmp(p, "null", 4) ? NULL : p + 4;
	default:
		return t_json_number(p);
	}
}

static inline bool t_json_valid(const char *text)
{
	const char *end = t_json_value(text, 0);

	return end && *t_json_ws(end) == '\0';
}

/*
 * The innermost object that holds the first occurrence of @needle (e.g. "\"hsa_priority\":\"high\""),
 * copied into @out. Strings are skipped while looking for braces, so a brace inside a name
 * does not count. false when @needle is not there, is not inside an object, or @out is small.
 */
static inline bool t_json_object_with(const char *js, const char *needle, char *out, size_t size)
{
	const char *hit = strstr(js, needle), *open[64], *end;
	unsigned int depth = 0;

	if (!hit)
		return false;
	for (const char *p = js; p < hit; p++) {
		if (*p == '"') {
			p = t_json_string_tok(p);
			if (!p || p > hit)
				return false;
			p--;
		} else if (*p == '{' && depth < 64) {
			open[depth++] = p;
		} else if (*p == '}' && depth) {
			depth--;
		}
	}
	if (!depth)
		return false;
	end = t_json_value(open[depth - 1], 0);
	if (!end || (size_t)(end - open[depth - 1]) >= size)
		return false;
	memcpy(out, open[depth - 1], (size_t)(end - open[depth - 1]));
	out[end - open[depth - 1]] = '\0';
	return true;
}

/* The first integer member @field of @obj ("\"field\":N"), or ~0 when there is none. */
static inline unsigned long long t_json_u64(const char *obj, const char *field)
{
	char key[96];
	const char *s;

	snprintf(key, sizeof(key), "\"%s\":", field);
	s = strstr(obj, key);
	return s ? strtoull(s + strlen(key), NULL, 10) : ~0ull;
}

#endif /* T_JSON_H */
