/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one reader of the XDP stamper's struct rxlat_meta (include/rxlat.h),
 * for every BPF object of rxlat that looks for it: the latency hooks
 * (collector/attach/hooks/hooks.bpf.c) in a kernel sk_buff, the tc stamper
 * (tc/rxlat_tc.bpf.c) in its __sk_buff.
 *
 * The metadata area is the bytes right before the packet's MAC header. The
 * rxlat_meta is its last 24 bytes when the stamper ran alone or before the
 * other programs of a libxdp chain, and its first 24 when another program
 * ran before it and left metadata of its own (the stamper's were then
 * prepended): look at the end, then at the start. The magic word tells an
 * rxlat_meta of this layout from anything else there.
 *
 * After a VXLAN or Geneve device decapsulated the packet, the area is no
 * longer before the MAC header: see rxlat_meta_outer().
 *
 * How the bytes are read is the caller's, as a constant the compiler folds,
 * so that only the reads of one kind are in a program.
 */
#ifndef RXLAT_META_BPF_H
#define RXLAT_META_BPF_H

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include "rxlat.h"

enum rxlat_meta_mem {
	/* kernel memory, through bpf_probe_read_kernel() */
	RXLAT_META_PROBE,
	/*
	 * kernel memory loaded from as a kernel type that bpf_rdonly_cast()
	 * (6.2+) names: read-only untrusted memory, whose loads the JIT guards
	 * against faults as a probe read would, without the helper call (the
	 * verifier turns the kfunc into a register move): two helper calls
	 * fewer per packet
	 */
	RXLAT_META_DIRECT,
	/* packet memory of a __sk_buff, data_meta .. data */
	RXLAT_META_PACKET,
	/*
	 * as RXLAT_META_PROBE, from an skb that is a number to the verifier
	 * (a kprobe's argument): its own fields are probe reads too
	 */
	RXLAT_META_KPROBE,
};

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/* Kernel memory at addr as a const type *, for RXLAT_META_DIRECT. */
#define RXLAT_KMEM(type, addr) \
	((const type *)bpf_rdonly_cast((const void *)(addr), bpf_core_type_id_kernel(type)))

/*
 * An rxlat_meta as kernel memory, for RXLAT_META_DIRECT: its 24 bytes are
 * those of a struct xdp_md, six __u32 words, a type every kernel's BTF has
 * (the verifier's context types). Which word is which: wants the layout of
 * include/rxlat.h.
 */
_Static_assert(sizeof(struct rxlat_meta) == 6 * sizeof(__u32), "rxlat_meta is six words");
#define RXLAT_KMETA(p)	       RXLAT_KMEM(struct xdp_md, p)
#define RXLAT_KMETA_MAGIC      data
#define RXLAT_KMETA_IFINDEX    data_end
#define RXLAT_KMETA_NETNS      data_meta
#define RXLAT_KMETA_QUEUE_FLAG ingress_ifindex
#define RXLAT_KMETA_STAMP_LO   rx_queue_index
#define RXLAT_KMETA_STAMP_HI   egress_ifindex

/* Whether p holds an rxlat_meta; probe reads copy it into *m on the way. */
static __always_inline bool rxlat_meta_is(const struct rxlat_meta *p, struct rxlat_meta *m,
					  enum rxlat_meta_mem mem)
{
	if (mem == RXLAT_META_PROBE)
		return !bpf_probe_read_kernel(m, sizeof(*m), p) && m->magic == RXLAT_META_MAGIC;
	if (mem == RXLAT_META_DIRECT)
		return RXLAT_KMETA(p)->RXLAT_KMETA_MAGIC == RXLAT_META_MAGIC;
	return p->magic == RXLAT_META_MAGIC;
}

/*
 * The end place p, then the start of the area when that is another place
 * (more): true with *m filled in (magic and flags aside).
 */
static __always_inline bool rxlat_meta_places(const struct rxlat_meta *p, const void *area,
					      bool more, struct rxlat_meta *m,
					      enum rxlat_meta_mem mem)
{
	if (rxlat_meta_is(p, m, mem))
		goto found;
	if (!more)
		return false;
	p = area;
	if (!rxlat_meta_is(p, m, mem))
		return false;
found:
	if (mem == RXLAT_META_DIRECT) {
		const struct xdp_md *w = RXLAT_KMETA(p);
		__u32 qf = w->RXLAT_KMETA_QUEUE_FLAG;

		m->ifindex = w->RXLAT_KMETA_IFINDEX;
		m->netns = w->RXLAT_KMETA_NETNS;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		m->rx_queue = qf;
#else
		m->rx_queue = qf >> 16;
#endif
		m->stamp_lo = w->RXLAT_KMETA_STAMP_LO;
		m->stamp_hi = w->RXLAT_KMETA_STAMP_HI;
	} else if (mem != RXLAT_META_PROBE) {
		m->ifindex = p->ifindex;
		m->netns = p->netns;
		m->rx_queue = p->rx_queue;
		m->stamp_lo = p->stamp_lo;
		m->stamp_hi = p->stamp_hi;
	}
	return true;
}

/*
 * The rxlat_meta of the metadata area [area, end) of len bytes, end being
 * the MAC header: true with *m filled in, false when it has none.
 */
static __always_inline bool rxlat_meta_read(const void *area, __u32 len, const void *end,
					    struct rxlat_meta *m, enum rxlat_meta_mem mem)
{
	if (mem == RXLAT_META_PACKET) {
		/*
		 * Packet memory is addressed from the start of the area at
		 * constant offsets, each bounded against end before its place
		 * is read (an offset computed from the length is folded by
		 * the compiler into data - 24, which the verifier refuses).
		 * The area is a multiple of 4 bytes and at most 32 long.
		 */
		for (unsigned int off = 0; off <= 32 - sizeof(*m); off += 4) {
			const struct rxlat_meta *p = area + off;

			if ((const void *)(p + 1) > end)
				return false;
			if ((const void *)(p + 1) == end)
				return rxlat_meta_places(p, area, off, m, mem);
		}
		return false;
	}
	if (len < sizeof(*m))
		return false;
	return rxlat_meta_places(end - sizeof(*m), area, len > sizeof(*m), m, mem);
}

/*
 * The outer headers a UDP tunnel leaves in the buffer before the inner MAC
 * header mac, Ethernet + IPv6 + UDP + an 8-byte tunnel header at most: 70
 * bytes. With IPv4 outside they are its last 50, at these offsets.
 */
enum rxlat_outer {
	RXLAT_OUTER_MAX = 70,
	RXLAT_OUTER_UDP_LEN = 58, /* the UDP length, for either family */
	RXLAT_OUTER4_ETH_TYPE = 32,
	RXLAT_OUTER4_IP = 34,
	RXLAT_OUTER4_TOT_LEN = 36,
	RXLAT_OUTER4_PROTO = 43,
	RXLAT_OUTER4_LEN = 50,
	RXLAT_OUTER6_ETH_TYPE = 12,
	RXLAT_OUTER6_IP = 14,
	RXLAT_OUTER6_PAYLOAD_LEN = 18,
	RXLAT_OUTER6_NEXTHDR = 20,
	RXLAT_OUTER6_LEN = 70,
};

/*
 * The rxlat_meta of a packet that a VXLAN or Geneve device decapsulated,
 * the area of len bytes having been found elsewhere than before the MAC
 * header mac: true with *m filled in.
 *
 * vxlan_rcv() and geneve_rx() pull the outer headers and reset the MAC and
 * network headers to the inner packet, which is where the kernel (up to
 * 6.18 at least) expects the metadata from then on; the bytes XDP wrote
 * stay in the buffer, right before the outer Ethernet header, and
 * skb_shinfo(skb)->meta_len keeps their length. No skb field keeps the
 * outer offset for the later stages: the transport header names the outer
 * UDP header only until the inner ip_rcv_core() sets it, and the inner_*
 * offsets are set on receive by GRO alone. So the outer headers are
 * recognised where they have to be: Ethernet, IPv4 without options or IPv6
 * without extension headers, UDP, and an 8-byte tunnel header (VXLAN, or
 * Geneve without options, as Linux's own geneve devices send), checked by
 * the Ethernet type, the IP version and protocol, and the IP payload length
 * against the UDP length (GRO keeps both up to date when it merges); then
 * the rxlat_meta is looked for at the end of the area before them, and at
 * its start. Bytes before the outer headers are only taken for a stamp
 * when those headers are there and the magic is: a stale stamp of an
 * earlier use of the buffer, at another offset, is never read. Geneve
 * options, IPv4 options, IPv6 extension headers and an outer VLAN tag left
 * in the frame move the area further: not found (source none).
 *
 * Cost: reached only with metadata that is not rxlat's where it should be
 * (meta_len 0 returns before); one more copy of 70 bytes (a probe read:
 * no kernel type lays them out as bytes), and the reads of
 * rxlat_meta_places().
 */
static __always_inline bool rxlat_meta_outer(const unsigned char *mac, __u32 len,
					     struct rxlat_meta *m, enum rxlat_meta_mem mem)
{
	union {
		__u8 b[RXLAT_OUTER_MAX];
		__u16 align;
	} copy;
	const __u8 *w = copy.b;
	const unsigned char *outer;
	__u16 udp_len;

	if (bpf_probe_read_kernel(&copy, sizeof(copy), mac - RXLAT_OUTER_MAX))
		return false;
	udp_len = bpf_ntohs(*(const __u16 *)(w + RXLAT_OUTER_UDP_LEN));
	if (*(const __u16 *)(w + RXLAT_OUTER4_ETH_TYPE) == bpf_htons(0x0800) &&
	    w[RXLAT_OUTER4_IP] == 0x45 && w[RXLAT_OUTER4_PROTO] == 17 &&
	    bpf_ntohs(*(const __u16 *)(w + RXLAT_OUTER4_TOT_LEN)) == udp_len + 20)
		outer = mac - RXLAT_OUTER4_LEN;
	else if (*(const __u16 *)(w + RXLAT_OUTER6_ETH_TYPE) == bpf_htons(0x86dd) &&
		 w[RXLAT_OUTER6_IP] >> 4 == 6 && w[RXLAT_OUTER6_NEXTHDR] == 17 &&
		 bpf_ntohs(*(const __u16 *)(w + RXLAT_OUTER6_PAYLOAD_LEN)) == udp_len)
		outer = mac - RXLAT_OUTER6_LEN;
	else
		return false;
	return rxlat_meta_places((const void *)(outer - sizeof(*m)), outer - len, len > sizeof(*m),
				 m, mem);
}

/*
 * A kernel sk_buff's metadata (a BTF pointer: fentry and tp_btf arguments,
 * bpf_cast_to_kern_ctx()): skb_shinfo(skb)->meta_len bytes, ending at the
 * MAC header, where XDP left them (the shared info is at head + end), or
 * before the outer headers of a decapsulated packet.
 */
static __always_inline bool rxlat_meta_skb(const struct sk_buff *skb, struct rxlat_meta *m,
					   enum rxlat_meta_mem mem)
{
	const unsigned char *head, *end;
	const struct skb_shared_info *shinfo;
	__u32 skb_end;
	__u16 mac;
	__u8 len;

	if (mem == RXLAT_META_KPROBE) {
		head = BPF_CORE_READ(skb, head);
		mac = BPF_CORE_READ(skb, mac_header);
		skb_end = BPF_CORE_READ(skb, end);
		mem = RXLAT_META_PROBE;
	} else {
		head = skb->head;
		mac = skb->mac_header;
		skb_end = skb->end;
	}
	if (mac == (__u16)~0U) /* no MAC header set */
		return false;
	shinfo = (const void *)(head + skb_end);
	end = head + mac;
	len = mem == RXLAT_META_DIRECT ? RXLAT_KMEM(struct skb_shared_info, shinfo)->meta_len
				       : BPF_CORE_READ(shinfo, meta_len);
	if (len < sizeof(*m)) /* no metadata (or not rxlat's): nothing more to read */
		return false;
	if (rxlat_meta_read(end - len, len, end, m, mem))
		return true;
	return rxlat_meta_outer(end, len, m, mem);
}

/* A __sk_buff's metadata (tc): data_meta .. data. */
static __always_inline bool rxlat_meta_tc(const struct __sk_buff *skb, struct rxlat_meta *m)
{
	const void *area = (const void *)(long)skb->data_meta;
	const void *end = (const void *)(long)skb->data;

	return rxlat_meta_read(area, end - area, end, m, RXLAT_META_PACKET);
}

#endif /* RXLAT_META_BPF_H */
