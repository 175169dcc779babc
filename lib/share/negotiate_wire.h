/* SPDX-License-Identifier: MIT */
/*
 * The negotiation messages' header, for the socket calls that must know a
 * message's length before they read the rest of it.
 */
#ifndef LLMEM_SHARE_NEGOTIATE_WIRE_H
#define LLMEM_SHARE_NEGOTIATE_WIRE_H

#include <stdint.h>

#define LLMEM_NEGOTIATE_WIRE_HEADER 24

/* The header's type field; 0 is never sent. */
enum llmem_negotiate_wire_type {
	LLMEM_NEGOTIATE_WIRE_STATEMENT = 1,
	LLMEM_NEGOTIATE_WIRE_RESULT = 2,
};

/*
 * Checks the LLMEM_NEGOTIATE_WIRE_HEADER bytes at @header: magic, a
 * version spoken, @type, and a count and length within what that type can
 * have in that version.
 * Return: 0 with *@version, *@count and *@length (the bytes after the
 * header), or -EPROTO naming what is wrong.
 */
int llmem_negotiate_wire_header(const void *header, uint32_t type, uint32_t *version,
				uint32_t *count, uint32_t *length);

#endif
