/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_TEST_RXE_H
#define LLMEM_TEST_RXE_H

/* The software RoCE device the RDMA tests use, and its veth's address. */
#define RXE_DEVICE "llmemrxe0"
#define RXE_ADDRESS "10.77.0.1"

/*
 * Makes RXE_DEVICE once per boot: rdma_rxe (and crc32_generic, which rxe
 * asks the crypto API for and nothing loads first) on one end of a veth
 * pair that has RXE_ADDRESS.  Return: 0, or -ENODEV when a step failed.
 */
int rxe_device(void);

#endif
