// SPDX-License-Identifier: MIT
/*
 * The values an option takes, read whole (cli.h): numbers, sizes with their
 * units and WIDTHxHEIGHT; apart from the parser, which only picks which to
 * call, because commands and the fuzzer call them on operands of their own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* K, M, G and T, with or without "iB": powers of 1024; "B" or nothing: none. */
static int unit_of(const char *s, uint64_t bare, uint64_t *unit)
{
	static const char prefixes[] = "KMGT";
	const char *p;

	if (!*s) {
		*unit = bare;
		return 0;
	}
	if (!strcmp(s, "B")) {
		*unit = 1;
		return 0;
	}
	p = strchr(prefixes, s[0]);
	if (!p || (s[1] && strcmp(s + 1, "iB")))
		return -1;
	*unit = 1ull << (10 * (p - prefixes + 1));
	return 0;
}

int cli_parse_size(const char *s, uint64_t bare, uint64_t *out)
{
	size_t whole = strspn(s, "0123456789"), frac = 0;
	uint64_t number = 0, scale = 1, unit, bytes;
	const char *p = s;

	if (!whole)
		return -1;
	for (; p < s + whole; p++)
		if (__builtin_mul_overflow(number, 10, &number) ||
		    __builtin_add_overflow(number, (uint64_t)(*p - '0'), &number))
			return -1;
	if (*p == '.') {
		frac = strspn(++p, "0123456789");
		if (!frac || frac > 9)
			return -1;
		for (size_t i = 0; i < frac; i++, p++) {
			if (__builtin_mul_overflow(number, 10, &number) ||
			    __builtin_add_overflow(number, (uint64_t)(*p - '0'), &number))
				return -1;
			scale *= 10;
		}
	}
	if (unit_of(p, bare, &unit) || __builtin_mul_overflow(number, unit, &bytes) ||
	    bytes % scale)
		return -1;
	*out = bytes / scale;
	return 0;
}

int cli_parse_wxh(const char *s, uint64_t min, uint64_t max, uint32_t out[2])
{
	const char *x = strchr(s, 'x');
	char side[24];
	uint64_t w, h;

	if (!x || (size_t)(x - s) >= sizeof(side))
		return -1;
	memcpy(side, s, (size_t)(x - s));
	side[x - s] = '\0';
	if (cli_parse_uint(side, min, max, &w) || cli_parse_uint(x + 1, min, max, &h))
		return -1;
	out[0] = (uint32_t)w;
	out[1] = (uint32_t)h;
	return 0;
}
