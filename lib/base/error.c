// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <llmem/error.h>

#include "base/error.h"

static _Thread_local char last_error[512];

int llmem_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return err;
}

LLMEM_PUBLIC const char *llmem_last_error(void)
{
	return last_error;
}

LLMEM_PUBLIC const char *llmem_strerror(int err)
{
	static _Thread_local char buf[128];

	if (err >= 0)
		return "success";
	/* strerror_r is the GNU variant here: it may return a static string. */
	return strerror_r(-err, buf, sizeof(buf));
}
