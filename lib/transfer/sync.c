// SPDX-License-Identifier: MIT
/*
 * Queues and sync_files (explicit sync with other devices and processes).
 * Where the device takes sync_file payloads in binary semaphores
 * (VK_KHR_external_semaphore_fd with SYNC_FD handles), a queue's next
 * submission waits for a sync_file on the device, and a submission signals
 * one; elsewhere a sync_file is waited for on the CPU, as Mesa's window
 * system code does, and none can be signalled.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include <llmem/share.h>
#include <llmem/transfer.h>

#include "base/error.h"
#include "device/vk.h"
#include "transfer/queue.h"
#include "transfer/sync.h"

static int add_semaphore(struct llmem_semaphores *set, VkSemaphore sem)
{
	if (set->count == set->cap) {
		uint32_t cap = set->cap ? set->cap * 2 : 4;
		VkSemaphore *items = realloc(set->items, cap * sizeof(*items));

		if (!items)
			return llmem_error(-ENOMEM, "sync_file: out of memory");
		set->items = items;
		set->cap = cap;
	}
	set->items[set->count++] = sem;
	return 0;
}

int llmem_sync_fd_semaphore(struct llmem_session *s, bool exportable, VkSemaphore *out)
{
	VkExportSemaphoreCreateInfo export = {
		.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
	};
	VkSemaphoreCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
		.pNext = exportable ? &export : NULL,
	};
	VkResult r = vkCreateSemaphore(s->device, &ci, NULL, out);

	if (r == VK_SUCCESS)
		return 0;
	*out = VK_NULL_HANDLE;
	return llmem_vk_error(r, "sync_file: vkCreateSemaphore");
}

/* The device's wait: a semaphore holding a duplicate of @fd, for the queue's
 * next submission.  Context: the queue's lock held. */
static int wait_on_device(struct llmem_queue *q, int fd)
{
	struct llmem_session *s = q->session;
	PFN_vkImportSemaphoreFdKHR import = (PFN_vkImportSemaphoreFdKHR)vkGetDeviceProcAddr(
		s->device, "vkImportSemaphoreFdKHR");
	VkImportSemaphoreFdInfoKHR info = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR,
		.flags = VK_SEMAPHORE_IMPORT_TEMPORARY_BIT,
		.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
	};
	VkSemaphore sem;
	VkResult r;
	int ret;

	ret = llmem_sync_fd_semaphore(s, false, &sem);
	if (ret)
		return ret;
	info.semaphore = sem;
	/* A successful import takes the fd: hand it a duplicate. */
	info.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (info.fd < 0) {
		ret = llmem_error(-errno, "sync_file wait: dup: %s", strerror(errno));
		goto out_destroy;
	}
	r = import ? import(s->device, &info) : VK_ERROR_EXTENSION_NOT_PRESENT;
	if (r != VK_SUCCESS) {
		close(info.fd);
		ret = llmem_vk_error(r, "sync_file wait: vkImportSemaphoreFdKHR");
		goto out_destroy;
	}
	ret = add_semaphore(&q->waits, sem);
	if (!ret)
		return 0;
out_destroy:
	vkDestroySemaphore(s->device, sem, NULL);
	return ret;
}

LLMEM_PUBLIC int llmem_queue_wait_sync_file(struct llmem_queue *q, int fd)
{
	struct sync_file_info info = { 0 };
	int ret;

	if (!q)
		return llmem_error(-EINVAL, "sync_file wait: NULL queue");
	if (fd < 0 || fcntl(fd, F_GETFD) == -1)
		return llmem_error(-EBADF, "sync_file wait: fd %d is not open", fd);
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info) == -1)
		return llmem_error(-EINVAL, "sync_file wait: fd %d is not a sync_file", fd);
	if (!(q->session->info.caps & LLMEM_CAP_SYNC_FD_IMPORT))
		return llmem_sync_file_wait(fd, -1);
	pthread_mutex_lock(&q->lock);
	ret = wait_on_device(q, fd);
	llmem_queue_unlock(q);
	return ret;
}

int llmem_sync_fd_export(struct llmem_session *s, VkSemaphore sem, int *fd)
{
	PFN_vkGetSemaphoreFdKHR get =
		(PFN_vkGetSemaphoreFdKHR)vkGetDeviceProcAddr(s->device, "vkGetSemaphoreFdKHR");
	VkSemaphoreGetFdInfoKHR info = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
		.semaphore = sem,
		.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
	};
	VkResult r = get ? get(s->device, &info, fd) : VK_ERROR_EXTENSION_NOT_PRESENT;

	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "sync_file signal: vkGetSemaphoreFdKHR");
	/* The driver's fd may lack close-on-exec, as every fd llmem hands out has. */
	fcntl(*fd, F_SETFD, FD_CLOEXEC);
	return 0;
}

LLMEM_PUBLIC int llmem_queue_signal_sync_file(struct llmem_queue *q, int *fd)
{
	struct llmem_record *rec;
	VkSemaphore sem;
	int ret;

	if (!q || !fd)
		return llmem_error(-EINVAL, "sync_file signal: NULL %s", q ? "fd" : "queue");
	*fd = -1;
	if (!(q->session->info.caps & LLMEM_CAP_SYNC_FD_EXPORT))
		return llmem_error(-ENOTSUP,
				   "sync_file signal: %s cannot export sync_files from semaphores: "
				   "wait for an event instead",
				   q->session->info.device_name);
	ret = llmem_sync_fd_semaphore(q->session, true, &sem);
	if (ret)
		return ret;
	pthread_mutex_lock(&q->lock);
	if (q->batch) {
		ret = llmem_error(-EBUSY, "sync_file signal: a batch is open");
		goto out_destroy;
	}
	/* An empty record is a submission too: the queue is in order, so its
	 * semaphore signals after everything enqueued before it. */
	rec = llmem_queue_open_record(q);
	if (!rec) {
		ret = q->record_error;
		goto out_destroy;
	}
	rec->recorded = true;
	rec->signal = sem;
	ret = llmem_queue_submit_open(q);
	/* The record owns the semaphore now, submitted or dropped. */
	if (!ret)
		ret = llmem_sync_fd_export(q->session, sem, fd);
	llmem_queue_unlock(q);
	return ret;

out_destroy:
	llmem_queue_unlock(q);
	vkDestroySemaphore(q->session->device, sem, NULL);
	return ret;
}
