// SPDX-License-Identifier: MIT
/*
 * The plugin's reference-counted Vulkan session.  Validation-layer messages
 * (LLMEM_VALIDATION=1) go to GStreamer's log, where they stay next to the
 * pipeline's own messages; the session counts them too.
 */
#include "session.h"

#include <llmem/llmem.h>

struct _GstLlmemSession {
	gint refs;
	struct llmem_session *session;
};

static void session_message(void *user, uint32_t severity, const char *message)
{
	(void)user;
	GST_CAT_WARNING(gst_llmem_debug, "validation (severity 0x%x): %s", severity, message);
}

int gst_llmem_session_new(const gchar *device, GstLlmemSession **out)
{
	struct llmem_session_create_info ci = {
		.device_name = device,
		.app_name = "gstllmem",
		.message_fn = session_message,
	};
	GstLlmemSession *s = g_new0(GstLlmemSession, 1);
	int ret = llmem_session_create(&ci, &s->session);

	if (ret) {
		g_free(s);
		return ret;
	}
	s->refs = 1;
	*out = s;
	return 0;
}

GstLlmemSession *gst_llmem_session_ref(GstLlmemSession *session)
{
	g_atomic_int_inc(&session->refs);
	return session;
}

void gst_llmem_session_unref(GstLlmemSession *session)
{
	if (!session || !g_atomic_int_dec_and_test(&session->refs))
		return;
	/* Every memory holds a reference: none is left to make this -EBUSY. */
	llmem_session_destroy(session->session);
	g_free(session);
}

struct llmem_session *gst_llmem_session_get(GstLlmemSession *session)
{
	return session->session;
}
