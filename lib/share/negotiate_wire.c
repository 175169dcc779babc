// SPDX-License-Identifier: MIT
/*
 * Negotiation statements and results as bytes (share.h): every field
 * little-endian at a fixed offset behind a header with magic, version,
 * type, count and length, so that two processes of any build read the
 * same thing.  The encoding is canonical (padding and reserved fields
 * zero, nothing after the last field), and a peer's bytes are checked
 * whole, with the checks the encoder applies to the caller's structs,
 * before the caller sees a field.  docs/api.md has the table.
 *
 * Two versions: 1, and 2, which adds coded sizes (frame.h's padding) and
 * what participants state of them.  A message is sent in the lowest
 * version that holds it, so that a reader of version 1 reads every message
 * that says nothing of padding; one that does is version 2, which such a
 * reader refuses by its version rather than misread.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <llmem/negotiate.h>
#include <llmem/share.h>

#include "base/error.h"
#include "base/export.h"
#include "memory/frame.h"
#include "share/negotiate_wire.h"

#define WIRE_MAGIC "LLMEMNEG"
#define NAME_BYTES 64

/* What a version's records hold. */
struct wire_version {
	size_t constraints; /* bytes of a constraints record */
	size_t format; /* bytes of a format record before its modifiers */
	size_t layout; /* bytes of a result's layout */
	size_t num_fields; /* entries of constraint_fields[] it carries */
	uint32_t flags; /* LLMEM_CONSTRAINT_* bits it knows */
	uint32_t fields; /* LLMEM_C_* bits it knows */
};

/* Spelled out rather than "every bit": a flag or field added to
 * negotiate.h reaches the wire only with a new version. */
#define FLAGS_V1                                                       \
	(LLMEM_CONSTRAINT_CONTIGUOUS | LLMEM_CONSTRAINT_PLANE_PER_FD | \
	 LLMEM_CONSTRAINT_PLANES_IN_ONE_FD)
#define CROP_FLAGS (LLMEM_CONSTRAINT_NO_CROP_WIDTH | LLMEM_CONSTRAINT_NO_CROP_HEIGHT)

static const struct wire_version versions[] = {
	[1] = { 72, 24, 80, 16, FLAGS_V1, (LLMEM_C_BUFFERS << 1) - 1 },
	[2] = { 80, 48, 88, 18, FLAGS_V1 | CROP_FLAGS, (LLMEM_C_CODED_SIZE << 1) - 1 },
};

#define PARTICIPANT_BYTES(v) (NAME_BYTES + 8 + versions[v].constraints)
#define RESULT_BYTES(v) (versions[v].layout + versions[v].constraints + 8)
#define PARTICIPANT_MAX(v)      \
	(PARTICIPANT_BYTES(v) + \
	 LLMEM_NEGOTIATE_MAX_FORMATS * (versions[v].format + 8 * LLMEM_NEGOTIATE_MAX_MODIFIERS))

_Static_assert(LLMEM_NEGOTIATE_WIRE_MAX ==
		       LLMEM_NEGOTIATE_WIRE_HEADER +
			       LLMEM_NEGOTIATE_MAX_PARTICIPANTS *
				       (NAME_BYTES + 8 + 80 +
					LLMEM_NEGOTIATE_MAX_FORMATS *
						(48 + 8 * LLMEM_NEGOTIATE_MAX_MODIFIERS)),
	       "LLMEM_NEGOTIATE_WIRE_MAX is the largest statement");
_Static_assert(sizeof(((struct llmem_participant *)0)->name) == NAME_BYTES, "names of 64 bytes");
_Static_assert(LLMEM_NEGOTIATE_WIRE_VERSION == 2 && LLMEM_NEGOTIATE_WIRE_MIN_VERSION == 1,
	       "the versions versions[] describes");

/* struct llmem_constraints in wire order: version 1's sixteen fields,
 * then version 2's. */
static const struct {
	size_t offset;
	size_t bytes;
} constraint_fields[] = {
	{ offsetof(struct llmem_constraints, pitch_alignment), 4 },
	{ offsetof(struct llmem_constraints, pitch), 4 },
	{ offsetof(struct llmem_constraints, plane_alignment), 4 },
	{ offsetof(struct llmem_constraints, size_alignment), 4 },
	{ offsetof(struct llmem_constraints, min_size), 8 },
	{ offsetof(struct llmem_constraints, max_size), 8 },
	{ offsetof(struct llmem_constraints, min_width), 4 },
	{ offsetof(struct llmem_constraints, max_width), 4 },
	{ offsetof(struct llmem_constraints, min_height), 4 },
	{ offsetof(struct llmem_constraints, max_height), 4 },
	{ offsetof(struct llmem_constraints, max_pitch), 4 },
	{ offsetof(struct llmem_constraints, flags), 4 },
	{ offsetof(struct llmem_constraints, min_buffers), 4 },
	{ offsetof(struct llmem_constraints, probed), 4 },
	{ offsetof(struct llmem_constraints, assumed), 4 },
	{ offsetof(struct llmem_constraints, reserved), 4 },
	{ offsetof(struct llmem_constraints, column_alignment), 4 },
	{ offsetof(struct llmem_constraints, row_alignment), 4 },
};

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
	return p + 4;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	return put32(put32(p, (uint32_t)v), (uint32_t)(v >> 32));
}

static uint32_t get32(const uint8_t **p)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)(*p)[i] << 8 * i;
	*p += 4;
	return v;
}

static uint64_t get64(const uint8_t **p)
{
	uint64_t lo = get32(p);

	return lo | (uint64_t)get32(p) << 32;
}

static uint8_t *put_constraints(uint8_t *p, const struct llmem_constraints *c, uint32_t v)
{
	for (size_t i = 0; i < versions[v].num_fields; i++) {
		const char *f = (const char *)c + constraint_fields[i].offset;
		uint64_t v;
		uint32_t v32;

		if (constraint_fields[i].bytes == 8) {
			memcpy(&v, f, 8);
			p = put64(p, v);
		} else {
			memcpy(&v32, f, 4);
			p = put32(p, v32);
		}
	}
	return p;
}

static const uint8_t *get_constraints(const uint8_t *p, struct llmem_constraints *c, uint32_t v)
{
	for (size_t i = 0; i < versions[v].num_fields; i++) {
		char *f = (char *)c + constraint_fields[i].offset;
		uint64_t v;
		uint32_t v32;

		if (constraint_fields[i].bytes == 8) {
			v = get64(&p);
			memcpy(f, &v, 8);
		} else {
			v32 = get32(&p);
			memcpy(f, &v32, 4);
		}
	}
	return p;
}

/* Checked against the newest version: what an older one cannot carry only
 * makes the message a newer one. */
static int check_constraints(const struct llmem_constraints *c, int err, const char *what,
			     const char *who)
{
	const struct wire_version *w = &versions[LLMEM_NEGOTIATE_WIRE_VERSION];

	if (c->flags & ~w->flags)
		return llmem_error(err, "%s: %s: unknown constraint flags 0x%x", what, who,
				   c->flags & ~w->flags);
	if ((c->probed | c->assumed) & ~w->fields)
		return llmem_error(err, "%s: %s: unknown constraint fields 0x%x marked", what, who,
				   (c->probed | c->assumed) & ~w->fields);
	if (c->reserved)
		return llmem_error(err, "%s: %s: reserved field of the constraints not zero", what,
				   who);
	return 0;
}

/*
 * What the wire carries of a statement, checked the same on both sides
 * (@err: -EINVAL for the caller's, -EPROTO for a peer's).  Names reach
 * messages and logs, so a peer's may hold no control characters.
 */
static int check_participant(const struct llmem_participant *p, uint32_t index, int err,
			     const char *what)
{
	size_t len = strnlen(p->name, NAME_BYTES);

	if (len == NAME_BYTES)
		return llmem_error(err, "%s: participant %u: name not NUL-terminated", what, index);
	if (!len)
		return llmem_error(err, "%s: participant %u: empty name", what, index);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)p->name[i] < 0x20 || p->name[i] == 0x7f)
			return llmem_error(err,
					   "%s: participant %u: control character 0x%02x in its "
					   "name",
					   what, index, (unsigned char)p->name[i]);
	if (p->kind < LLMEM_PARTICIPANT_V4L2 || p->kind > LLMEM_PARTICIPANT_CUDA)
		return llmem_error(err, "%s: %s: unknown kind %u", what, p->name, p->kind);
	if (p->num_formats > LLMEM_NEGOTIATE_MAX_FORMATS)
		return llmem_error(err, "%s: %s: %u formats; at most %u", what, p->name,
				   p->num_formats, LLMEM_NEGOTIATE_MAX_FORMATS);
	for (uint32_t i = 0; i < p->num_formats; i++) {
		const struct llmem_format_caps *f = &p->formats[i];

		if (f->num_modifiers > LLMEM_NEGOTIATE_MAX_MODIFIERS)
			return llmem_error(err, "%s: %s: format %u has %u modifiers; at most %u",
					   what, p->name, i, f->num_modifiers,
					   LLMEM_NEGOTIATE_MAX_MODIFIERS);
		if (f->source < LLMEM_FACT_REPORTED || f->source > LLMEM_FACT_ASSUMED)
			return llmem_error(err, "%s: %s: format %u has unknown fact source %u",
					   what, p->name, i, f->source);
		if (f->pitch && p->constraints.pitch_alignment &&
		    f->pitch % p->constraints.pitch_alignment)
			return llmem_error(err,
					   "%s: %s: format %u's pitch %u is not a multiple of its "
					   "pitch alignment %u",
					   what, p->name, i, f->pitch,
					   p->constraints.pitch_alignment);
		if (f->flags & ~(uint32_t)CROP_FLAGS)
			return llmem_error(err, "%s: %s: format %u has unknown flags 0x%x", what,
					   p->name, i, f->flags & ~(uint32_t)CROP_FLAGS);
		if (f->reserved)
			return llmem_error(err, "%s: %s: format %u's reserved field not zero", what,
					   p->name, i);
		if (!f->coded_width != !f->coded_height)
			return llmem_error(err,
					   "%s: %s: format %u's coded size %ux%u has one side "
					   "only",
					   what, p->name, i, f->coded_width, f->coded_height);
	}
	return check_constraints(&p->constraints, err, what, p->name);
}

static size_t participant_bytes(const struct llmem_participant *p, uint32_t v)
{
	size_t n = PARTICIPANT_BYTES(v);

	for (uint32_t i = 0; i < p->num_formats; i++)
		n += versions[v].format + 8 * (size_t)p->formats[i].num_modifiers;
	return n;
}

/* The lowest version that carries @c: 1 unless it states alignments of
 * the coded size or its flags or marks are version 2's. */
static uint32_t constraints_version(const struct llmem_constraints *c)
{
	const struct wire_version *w = &versions[1];

	return c->column_alignment || c->row_alignment || (c->flags & ~w->flags) ||
			       ((c->probed | c->assumed) & ~w->fields)
		       ? 2
		       : 1;
}

static uint32_t participant_version(const struct llmem_participant *p)
{
	for (uint32_t i = 0; i < p->num_formats; i++) {
		const struct llmem_format_caps *f = &p->formats[i];

		if (f->coded_width || f->coded_height || f->column_alignment || f->row_alignment ||
		    f->flags)
			return 2;
	}
	return constraints_version(&p->constraints);
}

static uint32_t result_version(const struct llmem_negotiated *r)
{
	const struct llmem_frame_layout *l = &r->layout;

	return llmem_frame_coded_width(l) != l->width || llmem_frame_coded_height(l) != l->height ||
			       (r->flags & ~versions[1].flags)
		       ? 2
		       : constraints_version(&r->constraints);
}

static uint8_t *put_header(uint8_t *p, uint32_t version, uint32_t type, uint32_t count,
			   size_t length)
{
	memcpy(p, WIRE_MAGIC, 8);
	p = put32(p + 8, version);
	p = put32(p, type);
	p = put32(p, count);
	return put32(p, (uint32_t)length);
}

int llmem_negotiate_wire_header(const void *header, uint32_t type, uint32_t *version,
				uint32_t *count, uint32_t *length)
{
	static const char *const names[] = { "", "statement", "result" };
	const uint8_t *p = (const uint8_t *)header + 8;
	uint32_t v, got, n, len;

	if (memcmp(header, WIRE_MAGIC, 8))
		return llmem_error(-EPROTO, "negotiation %s: not a negotiation message",
				   names[type]);
	v = get32(&p);
	got = get32(&p);
	n = get32(&p);
	len = get32(&p);
	if (v < LLMEM_NEGOTIATE_WIRE_MIN_VERSION || v > LLMEM_NEGOTIATE_WIRE_VERSION)
		return llmem_error(-EPROTO,
				   "negotiation %s: the peer speaks version %u, not %u to %u",
				   names[type], v, LLMEM_NEGOTIATE_WIRE_MIN_VERSION,
				   LLMEM_NEGOTIATE_WIRE_VERSION);
	if (got != type)
		return llmem_error(-EPROTO, "negotiation %s: a message of type %u (%s)",
				   names[type], got,
				   got == LLMEM_NEGOTIATE_WIRE_STATEMENT ? "a statement"
				   : got == LLMEM_NEGOTIATE_WIRE_RESULT	 ? "a result"
									 : "unknown");
	if (type == LLMEM_NEGOTIATE_WIRE_RESULT && (n != 1 || len != RESULT_BYTES(v)))
		return llmem_error(-EPROTO,
				   "negotiation result: count %u and length %u; 1 and %zu expected "
				   "in version %u",
				   n, len, RESULT_BYTES(v), v);
	if (type == LLMEM_NEGOTIATE_WIRE_STATEMENT && (!n || n > LLMEM_NEGOTIATE_MAX_PARTICIPANTS))
		return llmem_error(-EPROTO, "negotiation statement: %u participants; 1 to %u", n,
				   LLMEM_NEGOTIATE_MAX_PARTICIPANTS);
	if (type == LLMEM_NEGOTIATE_WIRE_STATEMENT &&
	    (len < (uint64_t)n * PARTICIPANT_BYTES(v) || len > (uint64_t)n * PARTICIPANT_MAX(v)))
		return llmem_error(-EPROTO,
				   "negotiation statement: %u bytes cannot hold %u participants",
				   len, n);
	*version = v;
	*count = n;
	*length = len;
	return 0;
}

/* The header of a whole message of @len bytes at @buf. */
static int check_message(const void *buf, size_t len, uint32_t type, uint32_t *version,
			 uint32_t *count)
{
	uint32_t length;
	int ret;

	if (len < LLMEM_NEGOTIATE_WIRE_HEADER)
		return llmem_error(-EPROTO, "negotiation message: %zu bytes, shorter than a header",
				   len);
	ret = llmem_negotiate_wire_header(buf, type, version, count, &length);
	if (ret)
		return ret;
	if (length != len - LLMEM_NEGOTIATE_WIRE_HEADER)
		return llmem_error(-EPROTO,
				   "negotiation message: its header says %u bytes, %zu came",
				   length, len - LLMEM_NEGOTIATE_WIRE_HEADER);
	return 0;
}

LLMEM_PUBLIC int llmem_negotiate_encode_statement(const struct llmem_participant *ps,
						  uint32_t count, void *buf, size_t capacity)
{
	size_t size = LLMEM_NEGOTIATE_WIRE_HEADER;
	uint8_t *p = buf;
	uint32_t v = LLMEM_NEGOTIATE_WIRE_MIN_VERSION;
	int ret;

	if (!ps || (!buf && capacity))
		return llmem_error(-EINVAL, "encode statement: NULL %s",
				   ps ? "buffer" : "participants");
	if (!count || count > LLMEM_NEGOTIATE_MAX_PARTICIPANTS)
		return llmem_error(-EINVAL, "encode statement: %u participants; 1 to %u", count,
				   LLMEM_NEGOTIATE_MAX_PARTICIPANTS);
	for (uint32_t i = 0; i < count; i++) {
		ret = check_participant(&ps[i], i, -EINVAL, "encode statement");
		if (ret)
			return ret;
		if (participant_version(&ps[i]) > v)
			v = participant_version(&ps[i]);
	}
	for (uint32_t i = 0; i < count; i++)
		size += participant_bytes(&ps[i], v);
	if (!buf)
		return (int)size;
	if (capacity < size)
		return llmem_error(-ENOSPC, "encode statement: %zu bytes, room for %zu", size,
				   capacity);
	p = put_header(p, v, LLMEM_NEGOTIATE_WIRE_STATEMENT, count,
		       size - LLMEM_NEGOTIATE_WIRE_HEADER);
	for (uint32_t i = 0; i < count; i++) {
		size_t len = strlen(ps[i].name);

		memset(p, 0, NAME_BYTES);
		memcpy(p, ps[i].name, len);
		p = put32(p + NAME_BYTES, ps[i].kind);
		p = put32(p, ps[i].num_formats);
		p = put_constraints(p, &ps[i].constraints, v);
		for (uint32_t f = 0; f < ps[i].num_formats; f++) {
			const struct llmem_format_caps *c = &ps[i].formats[f];

			p = put32(p, c->fourcc);
			p = put32(p, c->num_modifiers);
			p = put32(p, c->source);
			p = put32(p, c->pitch);
			p = put64(p, c->min_size);
			if (v >= 2) {
				p = put32(p, c->coded_width);
				p = put32(p, c->coded_height);
				p = put32(p, c->column_alignment);
				p = put32(p, c->row_alignment);
				p = put32(p, c->flags);
				p = put32(p, c->reserved);
			}
			for (uint32_t m = 0; m < c->num_modifiers; m++)
				p = put64(p, c->modifiers[m]);
		}
	}
	return (int)size;
}

/* One participant from *@p, @left bytes on: *@p and @left advance past it. */
static int get_participant(const uint8_t **p, size_t *left, uint32_t index, uint32_t v,
			   struct llmem_participant *out)
{
	const char *what = "negotiation statement";
	const uint8_t *q = *p;
	size_t len;

	if (*left < PARTICIPANT_BYTES(v))
		return llmem_error(-EPROTO, "%s: participant %u is truncated", what, index);
	memset(out, 0, sizeof(*out));
	memcpy(out->name, q, NAME_BYTES);
	len = strnlen(out->name, NAME_BYTES);
	for (size_t i = len; i < NAME_BYTES; i++)
		if (q[i])
			return llmem_error(-EPROTO, "%s: participant %u: bytes past its name's NUL",
					   what, index);
	q += NAME_BYTES;
	out->kind = get32(&q);
	out->num_formats = get32(&q);
	q = get_constraints(q, &out->constraints, v);
	*left -= PARTICIPANT_BYTES(v);
	if (out->num_formats > LLMEM_NEGOTIATE_MAX_FORMATS)
		return llmem_error(-EPROTO, "%s: participant %u: %u formats; at most %u", what,
				   index, out->num_formats, LLMEM_NEGOTIATE_MAX_FORMATS);
	for (uint32_t f = 0; f < out->num_formats; f++) {
		struct llmem_format_caps *c = &out->formats[f];

		if (*left < versions[v].format)
			return llmem_error(-EPROTO, "%s: participant %u: format %u is truncated",
					   what, index, f);
		c->fourcc = get32(&q);
		c->num_modifiers = get32(&q);
		c->source = get32(&q);
		c->pitch = get32(&q);
		c->min_size = get64(&q);
		if (v >= 2) {
			c->coded_width = get32(&q);
			c->coded_height = get32(&q);
			c->column_alignment = get32(&q);
			c->row_alignment = get32(&q);
			c->flags = get32(&q);
			c->reserved = get32(&q);
		}
		*left -= versions[v].format;
		if (c->num_modifiers > LLMEM_NEGOTIATE_MAX_MODIFIERS)
			return llmem_error(-EPROTO,
					   "%s: participant %u: format %u has %u modifiers; "
					   "at most %u",
					   what, index, f, c->num_modifiers,
					   LLMEM_NEGOTIATE_MAX_MODIFIERS);
		if (*left < 8 * (size_t)c->num_modifiers)
			return llmem_error(-EPROTO,
					   "%s: participant %u: modifiers of format %u are "
					   "truncated",
					   what, index, f);
		for (uint32_t m = 0; m < c->num_modifiers; m++)
			c->modifiers[m] = get64(&q);
		*left -= 8 * (size_t)c->num_modifiers;
	}
	*p = q;
	return check_participant(out, index, -EPROTO, what);
}

LLMEM_PUBLIC int llmem_negotiate_decode_statement(const void *buf, size_t len,
						  struct llmem_participant *ps, uint32_t capacity,
						  uint32_t *count)
{
	const uint8_t *p;
	size_t left;
	uint32_t n, v, needs = LLMEM_NEGOTIATE_WIRE_MIN_VERSION;
	int ret;

	if (!buf || !ps || !count)
		return llmem_error(-EINVAL, "decode statement: NULL %s",
				   !buf	 ? "buffer"
				   : !ps ? "participants"
					 : "count");
	ret = check_message(buf, len, LLMEM_NEGOTIATE_WIRE_STATEMENT, &v, &n);
	if (ret)
		return ret;
	if (n > capacity)
		return llmem_error(-ENOSPC, "decode statement: %u participants, room for %u", n,
				   capacity);
	p = (const uint8_t *)buf + LLMEM_NEGOTIATE_WIRE_HEADER;
	left = len - LLMEM_NEGOTIATE_WIRE_HEADER;
	for (uint32_t i = 0; i < n; i++) {
		ret = get_participant(&p, &left, i, v, &ps[i]);
		if (ret)
			return ret;
		if (participant_version(&ps[i]) > needs)
			needs = participant_version(&ps[i]);
	}
	if (left)
		return llmem_error(-EPROTO,
				   "negotiation statement: %zu bytes past its last participant",
				   left);
	/* One encoding per statement: the lowest version that holds it. */
	if (needs != v)
		return llmem_error(-EPROTO,
				   "negotiation statement: version %u for what version %u holds", v,
				   needs);
	*count = n;
	return 0;
}

LLMEM_PUBLIC int llmem_negotiate_encode_result(const struct llmem_negotiated *r, void *buf,
					       size_t capacity)
{
	const struct llmem_frame_layout *l;
	uint8_t *p = buf;
	uint32_t v;
	int ret;

	if (!r || (!buf && capacity))
		return llmem_error(-EINVAL, "encode result: NULL %s", r ? "buffer" : "result");
	l = &r->layout;
	ret = llmem_frame_layout_check(l, "encode result");
	if (!ret)
		ret = check_constraints(&r->constraints, -EINVAL, "encode result", "the result");
	if (ret)
		return ret;
	if (r->flags & ~versions[LLMEM_NEGOTIATE_WIRE_VERSION].flags)
		return llmem_error(-EINVAL, "encode result: unknown flags 0x%x",
				   r->flags & ~versions[LLMEM_NEGOTIATE_WIRE_VERSION].flags);
	v = result_version(r);
	if (!buf)
		return (int)(LLMEM_NEGOTIATE_WIRE_HEADER + RESULT_BYTES(v));
	if (capacity < LLMEM_NEGOTIATE_WIRE_HEADER + RESULT_BYTES(v))
		return llmem_error(-ENOSPC, "encode result: %zu bytes, room for %zu",
				   LLMEM_NEGOTIATE_WIRE_HEADER + RESULT_BYTES(v), capacity);
	p = put_header(p, v, LLMEM_NEGOTIATE_WIRE_RESULT, 1, RESULT_BYTES(v));
	p = put32(p, l->fourcc);
	p = put32(p, l->width);
	p = put32(p, l->height);
	p = put32(p, l->num_planes);
	p = put64(p, l->modifier);
	for (uint32_t i = 0; i < LLMEM_FRAME_MAX_PLANES; i++)
		p = put64(p, i < l->num_planes ? l->offset[i] : 0);
	for (uint32_t i = 0; i < LLMEM_FRAME_MAX_PLANES; i++)
		p = put32(p, i < l->num_planes ? l->pitch[i] : 0);
	p = put64(p, l->size);
	if (v >= 2) {
		p = put32(p, llmem_frame_coded_width(l));
		p = put32(p, llmem_frame_coded_height(l));
	}
	p = put_constraints(p, &r->constraints, v);
	p = put32(p, r->flags);
	put32(p, r->min_buffers);
	return (int)(LLMEM_NEGOTIATE_WIRE_HEADER + RESULT_BYTES(v));
}

LLMEM_PUBLIC int llmem_negotiate_decode_result(const void *buf, size_t len,
					       struct llmem_negotiated *r)
{
	struct llmem_negotiated out = { 0 };
	struct llmem_frame_layout *l = &out.layout;
	const uint8_t *p;
	uint32_t n, v;
	int ret;

	if (!buf || !r)
		return llmem_error(-EINVAL, "decode result: NULL %s", buf ? "result" : "buffer");
	ret = check_message(buf, len, LLMEM_NEGOTIATE_WIRE_RESULT, &v, &n);
	if (ret)
		return ret;
	p = (const uint8_t *)buf + LLMEM_NEGOTIATE_WIRE_HEADER;
	l->fourcc = get32(&p);
	l->width = get32(&p);
	l->height = get32(&p);
	l->num_planes = get32(&p);
	l->modifier = get64(&p);
	for (uint32_t i = 0; i < LLMEM_FRAME_MAX_PLANES; i++)
		l->offset[i] = get64(&p);
	for (uint32_t i = 0; i < LLMEM_FRAME_MAX_PLANES; i++)
		l->pitch[i] = get32(&p);
	l->size = get64(&p);
	l->coded_width = v >= 2 ? get32(&p) : l->width;
	l->coded_height = v >= 2 ? get32(&p) : l->height;
	p = get_constraints(p, &out.constraints, v);
	out.flags = get32(&p);
	out.min_buffers = get32(&p);
	if (l->num_planes > LLMEM_FRAME_MAX_PLANES)
		return llmem_error(-EPROTO, "negotiation result: %u planes; at most %u",
				   l->num_planes, LLMEM_FRAME_MAX_PLANES);
	for (uint32_t i = l->num_planes; i < LLMEM_FRAME_MAX_PLANES; i++)
		if (l->offset[i] || l->pitch[i])
			return llmem_error(-EPROTO,
					   "negotiation result: plane %u past the %u planes "
					   "not zero",
					   i, l->num_planes);
	if (!l->coded_width || !l->coded_height)
		return llmem_error(-EPROTO, "negotiation result: a coded size of %ux%u",
				   l->coded_width, l->coded_height);
	if (llmem_frame_layout_check(l, "negotiation result"))
		return -EPROTO;
	ret = check_constraints(&out.constraints, -EPROTO, "negotiation result", "the result");
	if (ret)
		return ret;
	if (out.flags & ~versions[v].flags)
		return llmem_error(-EPROTO, "negotiation result: unknown flags 0x%x",
				   out.flags & ~versions[v].flags);
	if (result_version(&out) != v)
		return llmem_error(-EPROTO,
				   "negotiation result: version %u for what version %u holds", v,
				   result_version(&out));
	for (uint32_t i = 0; i < l->num_planes; i++)
		llmem_frame_layout_padding(l, i, &out.padding[i]);
	*r = out;
	return 0;
}
