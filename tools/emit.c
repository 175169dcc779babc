// SPDX-License-Identifier: MIT
/*
 * The emitter of emit.h.  People read lists of names (formats, memory
 * types, capabilities) best on one line, so an array that holds scalars is
 * written inline in both renderings; arrays of objects get one line per
 * key.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "emit.h"

static struct emit_level *top(struct emit *e)
{
	return &e->level[e->depth - 1];
}

static void indent(struct emit *e, int spaces)
{
	fprintf(e->f, "%*s", spaces, "");
}

static void json_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Separates what comes before, indents, and names @key inside an object. */
static void json_prefix(struct emit *e, const char *key, bool scalar)
{
	struct emit_level *l = top(e);

	if (l->array && l->empty)
		l->scalars = scalar;
	if (l->array && l->scalars) {
		fputs(l->empty ? "" : ", ", e->f);
	} else {
		fputs(l->empty ? "\n" : ",\n", e->f);
		indent(e, 2 * e->depth);
		if (!l->array) {
			json_quoted(e->f, key);
			fputs(": ", e->f);
		}
	}
	l->empty = false;
}

/* "key: " at the object's indent, after the "- " of a fresh list item. */
static void human_key(struct emit *e, const char *key)
{
	struct emit_level *l = top(e);
	int spaces = 2 * (e->depth - 1);

	if (l->dash) {
		indent(e, spaces - 2);
		fputs("- ", e->f);
		l->dash = false;
	} else {
		indent(e, spaces);
	}
	fprintf(e->f, "%s:", key);
	l->empty = false;
}

/* Writes what comes before a scalar; false where a list item begins. */
static void human_scalar_prefix(struct emit *e, const char *key)
{
	struct emit_level *l = top(e);

	if (l->array) {
		fputs(l->empty ? " " : ", ", e->f);
		l->scalars = true;
		l->empty = false;
	} else {
		human_key(e, key);
		fputc(' ', e->f);
	}
}

static void human_scalar_end(struct emit *e)
{
	if (!top(e)->array)
		fputc('\n', e->f);
}

static void push(struct emit *e, bool array, bool dash)
{
	if (e->depth >= EMIT_MAX_DEPTH) {
		e->depth++;
		return;
	}
	e->level[e->depth++] = (struct emit_level){ .array = array, .empty = true, .dash = dash };
}

static void open_container(struct emit *e, const char *key, bool array)
{
	struct emit_level *l;

	if (e->depth > EMIT_MAX_DEPTH) {
		e->depth++;
		return;
	}
	l = top(e);
	if (e->json) {
		json_prefix(e, key, false);
		fputc(array ? '[' : '{', e->f);
		push(e, array, false);
		return;
	}
	if (l->array) {
		/* A list of objects: each starts on its own line with "- ". */
		if (l->empty)
			fputc('\n', e->f);
		l->empty = false;
		l->scalars = false;
		push(e, array, true);
		return;
	}
	human_key(e, key);
	if (!array)
		fputc('\n', e->f);
	push(e, array, false);
}

void emit_begin(struct emit *e, FILE *f, bool json)
{
	*e = (struct emit){ .f = f, .json = json };
	if (json)
		fputc('{', f);
	push(e, false, false);
}

void emit_object(struct emit *e, const char *key)
{
	open_container(e, key, false);
}

void emit_array(struct emit *e, const char *key)
{
	open_container(e, key, true);
}

void emit_end(struct emit *e)
{
	struct emit_level l;

	if (e->depth > EMIT_MAX_DEPTH || e->depth == 0) {
		e->depth -= e->depth > 0;
		return;
	}
	l = *top(e);
	e->depth--;
	if (e->json) {
		if (!l.empty && !(l.array && l.scalars)) {
			fputc('\n', e->f);
			indent(e, 2 * e->depth);
		}
		fputc(l.array ? ']' : '}', e->f);
		return;
	}
	if (l.array && (l.empty || l.scalars))
		fputs(l.empty ? " none\n" : "\n", e->f);
	else if (!l.array && l.dash)
		fputs("-\n", e->f);
}

void emit_finish(struct emit *e)
{
	while (e->depth > 0)
		emit_end(e);
	if (e->json)
		fputc('\n', e->f);
}

/* Writes what comes before a scalar; false where it is nested too deep. */
static bool scalar_begin(struct emit *e, const char *key)
{
	if (e->depth > EMIT_MAX_DEPTH)
		return false;
	if (e->json)
		json_prefix(e, key, true);
	else
		human_scalar_prefix(e, key);
	return true;
}

static void scalar_end(struct emit *e)
{
	if (!e->json)
		human_scalar_end(e);
}

void emit_string(struct emit *e, const char *key, const char *value)
{
	if (!scalar_begin(e, key))
		return;
	if (e->json)
		json_quoted(e->f, value);
	else
		fputs(value, e->f);
	scalar_end(e);
}

void emit_fourcc(struct emit *e, const char *key, uint32_t fourcc)
{
	char name[5] = { 0 };

	memcpy(name, &fourcc, 4);
	emit_string(e, key, name);
}

void emit_uint(struct emit *e, const char *key, uint64_t value)
{
	if (!scalar_begin(e, key))
		return;
	fprintf(e->f, "%" PRIu64, value);
	scalar_end(e);
}

void emit_int(struct emit *e, const char *key, int64_t value)
{
	if (!scalar_begin(e, key))
		return;
	fprintf(e->f, "%" PRId64, value);
	scalar_end(e);
}

static void emit_word(struct emit *e, const char *key, const char *json, const char *human)
{
	if (!scalar_begin(e, key))
		return;
	fputs(e->json ? json : human, e->f);
	scalar_end(e);
}

void emit_bool(struct emit *e, const char *key, bool value)
{
	emit_word(e, key, value ? "true" : "false", value ? "yes" : "no");
}

void emit_null(struct emit *e, const char *key)
{
	emit_word(e, key, "null", "-");
}

static void number(struct emit *e, const char *key, const char *format, int digits, double value)
{
	if (!isfinite(value)) {
		emit_null(e, key);
		return;
	}
	if (!scalar_begin(e, key))
		return;
	fprintf(e->f, format, digits, value);
	scalar_end(e);
}

void emit_double(struct emit *e, const char *key, double value, int digits)
{
	number(e, key, "%.*f", digits, value);
}

void emit_double_sig(struct emit *e, const char *key, double value, int figures)
{
	number(e, key, "%.*g", figures, value);
}
