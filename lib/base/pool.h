/* SPDX-License-Identifier: MIT */
/*
 * What the pool (pool.c, llmem/pool.h) offers lib/ beyond its public API.
 */
#ifndef LLMEM_BASE_POOL_H
#define LLMEM_BASE_POOL_H

#include <stdint.h>

#include <llmem/pool.h>

/*
 * Releases page @index that llmem_pool_add_page() added, through
 * page_destroy, while no object lies in it: undoes an add whose caller then
 * failed.  Return: 0; -EINVAL for no such added page; -EBUSY when it holds
 * objects.
 */
int llmem_pool_remove_page(struct llmem_pool *pool, uint32_t index);

#endif
