/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_BASE_ERROR_H
#define LLMEM_BASE_ERROR_H

#include <llmem/error.h>

#include "base/export.h"

/*
 * Records a message for llmem_last_error() and returns err, so that failure
 * paths read "return llmem_error(-EINVAL, "size is 0");".
 */
int llmem_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
