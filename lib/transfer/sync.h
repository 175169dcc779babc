/* SPDX-License-Identifier: MIT */
/*
 * Binary semaphores with sync_file payloads (VK_KHR_external_semaphore_fd,
 * SYNC_FD handles), for whatever signals sync_files: a queue's
 * llmem_queue_signal_sync_file(), a converter's submissions.  Where the
 * device lacks LLMEM_CAP_SYNC_FD_EXPORT the callers refuse before these.
 */
#ifndef LLMEM_TRANSFER_SYNC_H
#define LLMEM_TRANSFER_SYNC_H

#include <stdbool.h>

#include <vulkan/vulkan.h>

struct llmem_session;

/* A binary semaphore whose payload can be a sync_file, exportable as one
 * when @exportable (VK_NULL_HANDLE on failure).  Return: 0, -ENOMEM or -EIO. */
int llmem_sync_fd_semaphore(struct llmem_session *s, bool exportable, VkSemaphore *out);

/*
 * The sync_file of @sem's signal, submitted and pending or done, in a new
 * close-on-exec @fd.  The export consumes the signal, as a wait would: @sem
 * may be signalled again.  The driver may give -1 for a signal already
 * done.  Return: 0 or -EIO.
 */
int llmem_sync_fd_export(struct llmem_session *s, VkSemaphore sem, int *fd);

#endif
