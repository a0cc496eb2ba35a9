/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one reader of the XDP stamper's struct rxlat_meta (include/rxlat.h),
 * for every BPF object of rxlat that looks for it: the latency hooks
 * (collector/attach/hooks.bpf.c) in a kernel sk_buff, the tc stamper
 * (tc/rxlat_tc.bpf.c) in its __sk_buff.
 *
 * The metadata area is the bytes right before the packet's MAC header. The
 * rxlat_meta is its last 24 bytes when the stamper ran alone or before the
 * other programs of a libxdp chain, and its first 24 when another program
 * ran before it and left metadata of its own (the stamper's were then
 * prepended): look at the end, then at the start. The magic word tells an
 * rxlat_meta of this layout from anything else there.
 *
 * How the bytes are read is the caller's, as a constant the compiler folds,
 * so that only the reads of one kind are in a program.
 */
#ifndef RXLAT_META_BPF_H
#define RXLAT_META_BPF_H

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "rxlat.h"

enum rxlat_meta_mem {
	/* kernel memory, through bpf_probe_read_kernel() */
	RXLAT_META_PROBE,
	/*
	 * kernel memory that BPF may load from (6.17+: loads through skb->head
	 * are read-only untrusted memory, which the JIT guards against faults
	 * as a probe read would): two helper calls fewer per packet
	 */
	RXLAT_META_DIRECT,
	/* packet memory of a __sk_buff, data_meta .. data */
	RXLAT_META_PACKET,
};

/* Whether p holds an rxlat_meta; probe reads copy it into *m on the way. */
static __always_inline bool rxlat_meta_is(const struct rxlat_meta *p, struct rxlat_meta *m,
					  enum rxlat_meta_mem mem)
{
	if (mem == RXLAT_META_PROBE)
		return !bpf_probe_read_kernel(m, sizeof(*m), p) && m->magic == RXLAT_META_MAGIC;
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
	if (mem != RXLAT_META_PROBE) {
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
 * A kernel sk_buff's metadata (a BTF pointer: fentry and tp_btf arguments,
 * bpf_cast_to_kern_ctx()): skb_shinfo(skb)->meta_len bytes, ending at the
 * MAC header, where XDP left them (the shared info is at head + end).
 */
static __always_inline bool rxlat_meta_skb(const struct sk_buff *skb, struct rxlat_meta *m,
					   enum rxlat_meta_mem mem)
{
	const unsigned char *head = skb->head, *end;
	const struct skb_shared_info *shinfo;
	__u16 mac = skb->mac_header;
	__u8 len;

	if (mac == (__u16)~0U) /* no MAC header set */
		return false;
	shinfo = (const void *)(head + skb->end);
	end = head + mac;
	len = mem == RXLAT_META_DIRECT ? shinfo->meta_len : BPF_CORE_READ(shinfo, meta_len);
	return rxlat_meta_read(end - len, len, end, m, mem);
}

/* A __sk_buff's metadata (tc): data_meta .. data. */
static __always_inline bool rxlat_meta_tc(const struct __sk_buff *skb, struct rxlat_meta *m)
{
	const void *area = (const void *)(long)skb->data_meta;
	const void *end = (const void *)(long)skb->data;

	return rxlat_meta_read(area, end - area, end, m, RXLAT_META_PACKET);
}

#endif /* RXLAT_META_BPF_H */
