// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat tc ingress stamper: for a packet that carries no XDP stamp, it
 * records when the packet reached tc ingress, so that the latency hooks can
 * measure it where the XDP stamper cannot run. It never drops, redirects or
 * changes packet bytes, and lets the next filter run (TC_ACT_UNSPEC, which
 * is TCX_NEXT under tcx).
 *
 * The stamp lives in skb->tstamp, as a CLOCK_REALTIME value: the type the
 * socket layer reports to SO_TIMESTAMP* users, and the one forwarding
 * clears (why this slot, and what it changes: tc/README.md). Its lowest bit
 * is set; a kernel receive stamp passing here gets that bit cleared, which
 * moves it by at most 1 ns, so that the hooks can tell the two apart.
 *
 * Loads with iproute2 alone:
 *   tc qdisc add dev IF clsact
 *   tc filter add dev IF ingress bpf da obj rxlat_tc.bpf.o sec tc
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rxlat.h"
#include "rxlat_clock.bpf.h"
#include "rxlat_meta.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define TC_ACT_UNSPEC_ (-1)

/*
 * The network namespace of the interfaces this instance stamps (inode), set
 * by rxlat; 0 (not known) when iproute2 loads the object.
 */
const volatile __u32 rxlat_netns = 0;

SEC("tc")
int rxlat_tc(struct __sk_buff *skb)
{
	__u64 ts = skb->tstamp, now;
	__u8 type = skb->tstamp_type;
	struct rxlat_meta m;
	__s64 offs;

	/*
	 * An XDP stamp wins over this one (nothing to add), unless it was taken
	 * in another namespace: the host's stamp reaches a container's
	 * interfaces, and an rxlat in the container measures from its own
	 * (the hooks prefer this stamp to a foreign one).
	 */
	if (rxlat_meta_tc(skb, &m) && (m.netns == rxlat_netns || !m.netns || !rxlat_netns))
		return TC_ACT_UNSPEC_;
	if (ts && type == BPF_SKB_TSTAMP_UNSPEC) {
		/* the kernel's receive stamp (realtime): kept, marked as such */
		if (ts & RXLAT_TC_MARK)
			skb->tstamp = ts & ~RXLAT_TC_MARK;
		return TC_ACT_UNSPEC_;
	}
	now = bpf_ktime_get_ns();
	/*
	 * A monotonic delivery time (the sender's departure time, over veth)
	 * that has passed can no longer hold the packet back anywhere; one in
	 * the future, or another clock's, is left to whoever set it.
	 */
	if (ts && (type != BPF_SKB_TSTAMP_DELIVERY_MONO || ts > now))
		return TC_ACT_UNSPEC_;
	if (!rxlat_realtime_offset(now, &offs))
		return TC_ACT_UNSPEC_; /* the kernel is updating its offsets */
	if (ts)
		bpf_skb_set_tstamp(skb, 0, BPF_SKB_TSTAMP_UNSPEC); /* realtime from here */
	skb->tstamp = (now + offs) | RXLAT_TC_MARK;
	return TC_ACT_UNSPEC_;
}
