// SPDX-License-Identifier: GPL-2.0
/*
 * For make bench part C's "tcpnic" load (netns-tests/vm/cost_guest.sh):
 * at the TCP sender's veth egress, takes off the departure time that TCP
 * puts on every segment. That time is a monotonic delivery time, which a
 * veth carries into the receiving namespace; netstacklat reads no skb that
 * has one, and a NIC never delivers one. Without it the segment arrives as
 * from a NIC: no skb->tstamp, or the kernel's realtime receive stamp where
 * a socket asked for receive timestamps (netstacklat does).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tc")
int tstamp_clear(struct __sk_buff *skb)
{
	if (skb->tstamp)
		bpf_skb_set_tstamp(skb, 0, BPF_SKB_TSTAMP_UNSPEC);
	return 0; /* TC_ACT_OK */
}
