/* SPDX-License-Identifier: MIT */
/* Queues (_transfer.c): llmem.Queue, its copies, fills, batches and dispatches. */
#ifndef LLMEM_PY_TRANSFER_H
#define LLMEM_PY_TRANSFER_H

#include "_base.h"

extern PyTypeObject pyl_QueueType;

#endif /* LLMEM_PY_TRANSFER_H */
