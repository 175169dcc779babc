// SPDX-License-Identifier: MIT
/*
 * Negotiation statements and results as bytes (share.h): every field
 * little-endian at a fixed offset behind a header with magic, version,
 * type, count and length, so that two processes of any build read the
 * same thing.  The encoding is canonical (padding and reserved fields
 * zero, nothing after the last field), and a peer's bytes are checked
 * whole, with the checks the encoder applies to the caller's structs,
 * before the caller sees a field.  docs/api.md has the table.
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
#define CONSTRAINTS_BYTES 72
#define PARTICIPANT_BYTES (NAME_BYTES + 8 + CONSTRAINTS_BYTES)
#define FORMAT_BYTES 24
#define LAYOUT_BYTES 80
#define RESULT_BYTES (LAYOUT_BYTES + CONSTRAINTS_BYTES + 8)
#define PARTICIPANT_MAX      \
	(PARTICIPANT_BYTES + \
	 LLMEM_NEGOTIATE_MAX_FORMATS * (FORMAT_BYTES + 8 * LLMEM_NEGOTIATE_MAX_MODIFIERS))

_Static_assert(LLMEM_NEGOTIATE_WIRE_MAX ==
		       LLMEM_NEGOTIATE_WIRE_HEADER +
			       LLMEM_NEGOTIATE_MAX_PARTICIPANTS * PARTICIPANT_MAX,
	       "LLMEM_NEGOTIATE_WIRE_MAX is the largest statement");
_Static_assert(sizeof(((struct llmem_participant *)0)->name) == NAME_BYTES, "names of 64 bytes");

/* Spelled out rather than "every bit": a flag or field added to
 * negotiate.h reaches the wire only with a new version. */
#define KNOWN_FLAGS                                                    \
	(LLMEM_CONSTRAINT_CONTIGUOUS | LLMEM_CONSTRAINT_PLANE_PER_FD | \
	 LLMEM_CONSTRAINT_PLANES_IN_ONE_FD)
#define KNOWN_FIELDS ((LLMEM_C_BUFFERS << 1) - 1)

/* struct llmem_constraints in wire order, which is the struct's. */
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

static uint8_t *put_constraints(uint8_t *p, const struct llmem_constraints *c)
{
	for (size_t i = 0; i < sizeof(constraint_fields) / sizeof(*constraint_fields); i++) {
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

static const uint8_t *get_constraints(const uint8_t *p, struct llmem_constraints *c)
{
	for (size_t i = 0; i < sizeof(constraint_fields) / sizeof(*constraint_fields); i++) {
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

static int check_constraints(const struct llmem_constraints *c, int err, const char *what,
			     const char *who)
{
	if (c->flags & ~KNOWN_FLAGS)
		return llmem_error(err, "%s: %s: unknown constraint flags 0x%x", what, who,
				   c->flags & ~KNOWN_FLAGS);
	if ((c->probed | c->assumed) & ~KNOWN_FIELDS)
		return llmem_error(err, "%s: %s: unknown constraint fields 0x%x marked", what, who,
				   (c->probed | c->assumed) & ~KNOWN_FIELDS);
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
	}
	return check_constraints(&p->constraints, err, what, p->name);
}

static size_t participant_bytes(const struct llmem_participant *p)
{
	size_t n = PARTICIPANT_BYTES;

	for (uint32_t i = 0; i < p->num_formats; i++)
		n += FORMAT_BYTES + 8 * (size_t)p->formats[i].num_modifiers;
	return n;
}

static uint8_t *put_header(uint8_t *p, uint32_t type, uint32_t count, size_t length)
{
	memcpy(p, WIRE_MAGIC, 8);
	p = put32(p + 8, LLMEM_NEGOTIATE_WIRE_VERSION);
	p = put32(p, type);
	p = put32(p, count);
	return put32(p, (uint32_t)length);
}

int llmem_negotiate_wire_header(const void *header, uint32_t type, uint32_t *count,
				uint32_t *length)
{
	static const char *const names[] = { "", "statement", "result" };
	const uint8_t *p = (const uint8_t *)header + 8;
	uint32_t version, got, n, len;

	if (memcmp(header, WIRE_MAGIC, 8))
		return llmem_error(-EPROTO, "negotiation %s: not a negotiation message",
				   names[type]);
	version = get32(&p);
	got = get32(&p);
	n = get32(&p);
	len = get32(&p);
	if (version != LLMEM_NEGOTIATE_WIRE_VERSION)
		return llmem_error(-EPROTO, "negotiation %s: the peer speaks version %u, not %u",
				   names[type], version, LLMEM_NEGOTIATE_WIRE_VERSION);
	if (got != type)
		return llmem_error(-EPROTO, "negotiation %s: a message of type %u (%s)",
				   names[type], got,
				   got == LLMEM_NEGOTIATE_WIRE_STATEMENT ? "a statement"
				   : got == LLMEM_NEGOTIATE_WIRE_RESULT	 ? "a result"
									 : "unknown");
	if (type == LLMEM_NEGOTIATE_WIRE_RESULT && (n != 1 || len != RESULT_BYTES))
		return llmem_error(-EPROTO,
				   "negotiation result: count %u and length %u; 1 and %u expected",
				   n, len, RESULT_BYTES);
	if (type == LLMEM_NEGOTIATE_WIRE_STATEMENT && (!n || n > LLMEM_NEGOTIATE_MAX_PARTICIPANTS))
		return llmem_error(-EPROTO, "negotiation statement: %u participants; 1 to %u", n,
				   LLMEM_NEGOTIATE_MAX_PARTICIPANTS);
	if (type == LLMEM_NEGOTIATE_WIRE_STATEMENT &&
	    (len < (uint64_t)n * PARTICIPANT_BYTES || len > (uint64_t)n * PARTICIPANT_MAX))
		return llmem_error(-EPROTO,
				   "negotiation statement: %u bytes cannot hold %u participants",
				   len, n);
	*count = n;
	*length = len;
	return 0;
}

/* The header of a whole message of @len bytes at @buf. */
static int check_message(const void *buf, size_t len, uint32_t type, uint32_t *count)
{
	uint32_t length;
	int ret;

	if (len < LLMEM_NEGOTIATE_WIRE_HEADER)
		return llmem_error(-EPROTO, "negotiation message: %zu bytes, shorter than a header",
				   len);
	ret = llmem_negotiate_wire_header(buf, type, count, &length);
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
		size += participant_bytes(&ps[i]);
	}
	if (!buf)
		return (int)size;
	if (capacity < size)
		return llmem_error(-ENOSPC, "encode statement: %zu bytes, room for %zu", size,
				   capacity);
	p = put_header(p, LLMEM_NEGOTIATE_WIRE_STATEMENT, count,
		       size - LLMEM_NEGOTIATE_WIRE_HEADER);
	for (uint32_t i = 0; i < count; i++) {
		size_t len = strlen(ps[i].name);

		memset(p, 0, NAME_BYTES);
		memcpy(p, ps[i].name, len);
		p = put32(p + NAME_BYTES, ps[i].kind);
		p = put32(p, ps[i].num_formats);
		p = put_constraints(p, &ps[i].constraints);
		for (uint32_t f = 0; f < ps[i].num_formats; f++) {
			const struct llmem_format_caps *c = &ps[i].formats[f];

			p = put32(p, c->fourcc);
			p = put32(p, c->num_modifiers);
			p = put32(p, c->source);
			p = put32(p, c->pitch);
			p = put64(p, c->min_size);
			for (uint32_t m = 0; m < c->num_modifiers; m++)
				p = put64(p, c->modifiers[m]);
		}
	}
	return (int)size;
}

/* One participant from *@p, @left bytes on: *@p and @left advance past it. */
static int get_participant(const uint8_t **p, size_t *left, uint32_t index,
			   struct llmem_participant *out)
{
	const char *what = "negotiation statement";
	const uint8_t *q = *p;
	size_t len;

	if (*left < PARTICIPANT_BYTES)
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
	q = get_constraints(q, &out->constraints);
	*left -= PARTICIPANT_BYTES;
	if (out->num_formats > LLMEM_NEGOTIATE_MAX_FORMATS)
		return llmem_error(-EPROTO, "%s: participant %u: %u formats; at most %u", what,
				   index, out->num_formats, LLMEM_NEGOTIATE_MAX_FORMATS);
	for (uint32_t f = 0; f < out->num_formats; f++) {
		struct llmem_format_caps *c = &out->formats[f];

		if (*left < FORMAT_BYTES)
			return llmem_error(-EPROTO, "%s: participant %u: format %u is truncated",
					   what, index, f);
		c->fourcc = get32(&q);
		c->num_modifiers = get32(&q);
		c->source = get32(&q);
		c->pitch = get32(&q);
		c->min_size = get64(&q);
		*left -= FORMAT_BYTES;
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
	uint32_t n;
	int ret;

	if (!buf || !ps || !count)
		return llmem_error(-EINVAL, "decode statement: NULL %s",
				   !buf	 ? "buffer"
				   : !ps ? "participants"
					 : "count");
	ret = check_message(buf, len, LLMEM_NEGOTIATE_WIRE_STATEMENT, &n);
	if (ret)
		return ret;
	if (n > capacity)
		return llmem_error(-ENOSPC, "decode statement: %u participants, room for %u", n,
				   capacity);
	p = (const uint8_t *)buf + LLMEM_NEGOTIATE_WIRE_HEADER;
	left = len - LLMEM_NEGOTIATE_WIRE_HEADER;
	for (uint32_t i = 0; i < n; i++) {
		ret = get_participant(&p, &left, i, &ps[i]);
		if (ret)
			return ret;
	}
	if (left)
		return llmem_error(-EPROTO,
				   "negotiation statement: %zu bytes past its last participant",
				   left);
	*count = n;
	return 0;
}

LLMEM_PUBLIC int llmem_negotiate_encode_result(const struct llmem_negotiated *r, void *buf,
					       size_t capacity)
{
	const struct llmem_frame_layout *l;
	uint8_t *p = buf;
	int ret;

	if (!r || (!buf && capacity))
		return llmem_error(-EINVAL, "encode result: NULL %s", r ? "buffer" : "result");
	l = &r->layout;
	ret = llmem_frame_layout_check(l, "encode result");
	if (!ret)
		ret = check_constraints(&r->constraints, -EINVAL, "encode result", "the result");
	if (ret)
		return ret;
	if (r->flags & ~KNOWN_FLAGS)
		return llmem_error(-EINVAL, "encode result: unknown flags 0x%x",
				   r->flags & ~KNOWN_FLAGS);
	if (!buf)
		return LLMEM_NEGOTIATE_WIRE_HEADER + RESULT_BYTES;
	if (capacity < LLMEM_NEGOTIATE_WIRE_HEADER + RESULT_BYTES)
		return llmem_error(-ENOSPC, "encode result: %d bytes, room for %zu",
				   LLMEM_NEGOTIATE_WIRE_HEADER + RESULT_BYTES, capacity);
	p = put_header(p, LLMEM_NEGOTIATE_WIRE_RESULT, 1, RESULT_BYTES);
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
	p = put_constraints(p, &r->constraints);
	p = put32(p, r->flags);
	put32(p, r->min_buffers);
	return LLMEM_NEGOTIATE_WIRE_HEADER + RESULT_BYTES;
}

LLMEM_PUBLIC int llmem_negotiate_decode_result(const void *buf, size_t len,
					       struct llmem_negotiated *r)
{
	struct llmem_negotiated out = { 0 };
	struct llmem_frame_layout *l = &out.layout;
	const uint8_t *p;
	uint32_t n;
	int ret;

	if (!buf || !r)
		return llmem_error(-EINVAL, "decode result: NULL %s", buf ? "result" : "buffer");
	ret = check_message(buf, len, LLMEM_NEGOTIATE_WIRE_RESULT, &n);
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
	p = get_constraints(p, &out.constraints);
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
	if (llmem_frame_layout_check(l, "negotiation result"))
		return -EPROTO;
	ret = check_constraints(&out.constraints, -EPROTO, "negotiation result", "the result");
	if (ret)
		return ret;
	if (out.flags & ~KNOWN_FLAGS)
		return llmem_error(-EPROTO, "negotiation result: unknown flags 0x%x",
				   out.flags & ~KNOWN_FLAGS);
	*r = out;
	return 0;
}
