/* SPDX-License-Identifier: MIT */
/*
 * One description, two renderings: a command describes what it found as
 * nested objects, arrays and scalars once, and the emitter writes it either
 * as JSON (--json) or as indented "key: value" lines for people, lists of
 * scalars on one line and objects in a list marked "- ".
 *
 * Keys are given inside objects and ignored inside arrays.  Nesting deeper
 * than EMIT_MAX_DEPTH is dropped silently: the commands' shapes are fixed
 * and shallower.
 */
#ifndef LLMEM_TOOLS_EMIT_H
#define LLMEM_TOOLS_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define EMIT_MAX_DEPTH 8

struct emit_level {
	bool array;
	/* Nothing written at this level yet. */
	bool empty;
	/* An array whose elements so far are scalars, on one line. */
	bool scalars;
	/* An object in an array whose "- " is still to be written. */
	bool dash;
};

struct emit {
	FILE *f;
	bool json;
	int depth;
	struct emit_level level[EMIT_MAX_DEPTH];
};

/* Starts the outermost object. */
void emit_begin(struct emit *e, FILE *f, bool json);
/* Ends every open object and array. */
void emit_finish(struct emit *e);

void emit_object(struct emit *e, const char *key);
void emit_array(struct emit *e, const char *key);
/* Ends the innermost object or array. */
void emit_end(struct emit *e);

void emit_string(struct emit *e, const char *key, const char *value);
void emit_uint(struct emit *e, const char *key, uint64_t value);
/* A V4L2 or DRM fourcc as its four characters. */
void emit_fourcc(struct emit *e, const char *key, uint32_t fourcc);
void emit_int(struct emit *e, const char *key, int64_t value);
/* @value with @digits after the point; a JSON null ("-") when it is not
 * finite, which JSON cannot spell. */
void emit_double(struct emit *e, const char *key, double value, int digits);
/* The same with @figures significant figures ("%g"). */
void emit_double_sig(struct emit *e, const char *key, double value, int figures);
void emit_bool(struct emit *e, const char *key, bool value);
/* A JSON null; "-" for people. */
void emit_null(struct emit *e, const char *key);

#endif
