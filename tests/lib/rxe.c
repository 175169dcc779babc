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
		      "modprobe veth && ip link add " RXE_NETDEV
		      " type veth peer name " RXE_NETDEV_B " && "
		      "ip addr add " RXE_ADDRESS "/24 dev " RXE_NETDEV " && ip link set " RXE_NETDEV
		      " up && "
		      "ip link set " RXE_NETDEV_B " up && rdma link add " RXE_DEVICE
		      " type rxe netdev " RXE_NETDEV)
		       ? -ENODEV
		       : 0;
}

/*
 * Two local addresses reach each other through lo, where rxe would loop
 * the packets back on the sending device.  Locally sent packets (iif lo)
 * for the other address take tables 100 and 101 (out through the veth),
 * ahead of the local table; what arrives on a veth end still finds the
 * local table, so that ARP is answered and packets are delivered; a source
 * address of this host is accepted on input (accept_local).
 */
int rxe_two_devices(void)
{
	int ret = rxe_device();

	if (ret || !access("/sys/class/infiniband/" RXE_DEVICE_B, F_OK))
		return ret;
	return system("ip addr add " RXE_ADDRESS_B "/24 dev " RXE_NETDEV_B " && "
		      "for i in all " RXE_NETDEV " " RXE_NETDEV_B "; do "
		      "sysctl -qw net.ipv4.conf.$i.accept_local=1 net.ipv4.conf.$i.rp_filter=0 "
		      "|| exit 1; done && "
		      "ip route add " RXE_ADDRESS_B " dev " RXE_NETDEV " src " RXE_ADDRESS
		      " table 100 && "
		      "ip route add " RXE_ADDRESS " dev " RXE_NETDEV_B " src " RXE_ADDRESS_B
		      " table 101 && "
		      "ip rule add pref 10 iif lo to " RXE_ADDRESS_B " lookup 100 && "
		      "ip rule add pref 11 iif lo to " RXE_ADDRESS " lookup 101 && "
		      "ip rule add pref 1000 lookup local && ip rule del pref 0 lookup local && "
		      "rdma link add " RXE_DEVICE_B " type rxe netdev " RXE_NETDEV_B)
		       ? -ENODEV
		       : 0;
}
