// SPDX-License-Identifier: MIT
#include "v4l2_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

int scratch_make(struct scratch *t, const char *name)
{
	snprintf(t->dir, sizeof(t->dir), "%s/%s-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
	if (!mkdtemp(t->dir))
		return -errno;
	snprintf(t->log, sizeof(t->log), "%s/v4l2-ctl.log", t->dir);
	return 0;
}

void scratch_remove(struct scratch *t)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (t->dir[0] && system(cmd))
		fprintf(stderr, "could not remove %s\n", t->dir);
}

const char *scratch_said(const struct scratch *t)
{
	static char text[2048];
	long n = read_file(t->log, text, sizeof(text) - 1);

	text[n > 0 ? n : 0] = '\0';
	return text;
}

long v4l2_ctl_stream(const struct scratch *t, const char *node, const char *in, const char *fmt_out,
		     const char *capture_fourcc, const char *const *extra, uint8_t *out, size_t max)
{
	char ref[300], fmt_cap[64];
	char *args[24] = { "v4l2-ctl", "-d", (char *)node, "--set-fmt-video-out", (char *)fmt_out };
	int n = 5;

	snprintf(ref, sizeof(ref), "%s/ref.out", t->dir);
	if (capture_fourcc) {
		snprintf(fmt_cap, sizeof(fmt_cap), "pixelformat=%s", capture_fourcc);
		args[n++] = "--set-fmt-video";
		args[n++] = fmt_cap;
	}
	for (int i = 0; extra && extra[i] && n < 14; i++)
		args[n++] = (char *)extra[i];
	args[n++] = "--stream-mmap";
	args[n++] = "--stream-out-mmap";
	args[n++] = "--stream-from";
	args[n++] = (char *)in;
	args[n++] = "--stream-to";
	args[n++] = ref;
	if (run_logged(t->log, args))
		return -1;
	return read_file(ref, out, max);
}
