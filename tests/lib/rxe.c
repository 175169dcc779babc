// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "rxe.h"

int rxe_device(void)
{
	if (!access("/sys/class/infiniband/" RXE_DEVICE, F_OK))
		return 0;
	return system("modprobe crc32_generic && modprobe rdma_rxe && modprobe ib_uverbs && "
		      "modprobe veth && ip link add llmemv0 type veth peer name llmemv1 && "
		      "ip addr add " RXE_ADDRESS "/24 dev llmemv0 && ip link set llmemv0 up && "
		      "ip link set llmemv1 up && rdma link add " RXE_DEVICE
		      " type rxe netdev llmemv0")
		       ? -ENODEV
		       : 0;
}
