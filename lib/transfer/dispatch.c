// SPDX-License-Identifier: MIT
/*
 * The dispatch state of a session (dispatch.h), in a slot of the session
 * that this tier owns: the device tier keeps it without knowing what it is.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/error.h"
#include "device/session.h"
#include "transfer/dispatch.h"

static int state_create(struct llmem_session *s, void **out)
{
	struct llmem_dispatch_state *state = calloc(1, sizeof(*state));

	(void)s;
	if (!state)
		return llmem_error(-ENOMEM, "dispatch: out of memory");
	atomic_init(&state->refs, 1);
	*out = state;
	return 0;
}

static void state_destroy(void *object)
{
	llmem_dispatch_state_put(object);
}

static const struct llmem_session_slot_key state_key = {
	.create = state_create,
	.destroy = state_destroy,
};

int llmem_dispatch_state_get(struct llmem_session *s, struct llmem_dispatch_state **out)
{
	void *object;
	int ret = llmem_session_slot(s, &state_key, &object);

	*out = object;
	if (!ret)
		atomic_fetch_add(&(*out)->refs, 1);
	return ret;
}

void llmem_dispatch_state_put(struct llmem_dispatch_state *state)
{
	if (state && atomic_fetch_sub(&state->refs, 1) == 1)
		free(state);
}
