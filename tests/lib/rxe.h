/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_TEST_RXE_H
#define LLMEM_TEST_RXE_H

/* The software RoCE device the RDMA tests use, and its veth's address. */
#define RXE_DEVICE "llmemrxe0"
#define RXE_ADDRESS "10.77.0.1"
#define RXE_NETDEV "llmemv0"
/* The second host's device, on the veth's other end. */
#define RXE_DEVICE_B "llmemrxe1"
#define RXE_ADDRESS_B "10.77.0.2"
#define RXE_NETDEV_B "llmemv1"

/*
 * Makes RXE_DEVICE once per boot: rdma_rxe (and crc32_generic, which rxe
 * asks the crypto API for and nothing loads first) on one end of a veth
 * pair that has RXE_ADDRESS.  Return: 0, or -ENODEV when a step failed.
 */
int rxe_device(void);

/*
 * Makes RXE_DEVICE and RXE_DEVICE_B once per boot, one on each end of the
 * veth pair, both in the initial network namespace (the only one Debian's
 * rxe receives in), with policy routing that sends what one address sends
 * to the other out through the veth rather than through lo.
 * Return: 0, or -ENODEV when a step failed.
 */
int rxe_two_devices(void);

#endif
