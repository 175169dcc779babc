/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_BASE_EXPORT_H
#define LLMEM_BASE_EXPORT_H

/* The library builds with hidden visibility; only this marks the public API. */
#define LLMEM_PUBLIC __attribute__((visibility("default")))

#endif
