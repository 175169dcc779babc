/* SPDX-License-Identifier: MIT */
/*
 * What the shader dispatches of one session share, kept in a slot of the
 * session: how many were recorded, which tests read, and limits on the size
 * of one dispatch, which tests set so that a small fill takes several.
 */
#ifndef LLMEM_TRANSFER_DISPATCH_H
#define LLMEM_TRANSFER_DISPATCH_H

#include <stdatomic.h>
#include <stdint.h>

struct llmem_session;

struct llmem_dispatch_state {
	/* Every dispatch a kernel of the session records (kernel.c). */
	atomic_uint_fast64_t count;
	/* fill.c: a dispatch's bytes, and its groups per dimension, at most
	 * (0: only the device's limits). */
	uint64_t piece_max;
	uint32_t groups_max;
	/*
	 * The session's slot holds one, each kernel another: a kernel may
	 * outlive the slot when llmem_session_destroy() fails with -EBUSY,
	 * which destroys the slots first and keeps the session.
	 */
	atomic_uint refs;
};

/* @s's state, with a reference the caller drops.  Return: 0 or -ENOMEM. */
int llmem_dispatch_state_get(struct llmem_session *s, struct llmem_dispatch_state **out);

/* Drops a reference; accepts NULL. */
void llmem_dispatch_state_put(struct llmem_dispatch_state *state);

#endif
