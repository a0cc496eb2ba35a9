// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat XDP stamper: puts a struct rxlat_meta (CLOCK_MONOTONIC stamp,
 * ingress ifindex, rx queue) in the XDP metadata area of every packet, so
 * that later hooks can tell how long the packet has been in the stack.
 * It never touches packet bytes and always returns XDP_PASS.
 *
 * Loadable on its own by xdp-loader (libxdp multiprog: XDP_RUN_CONFIG below,
 * BTF in the object) as well as by rxlat.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>
#include "rxlat.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Set by rxlat before load; xdp-loader keeps the default, so the build makes
 * a packet-mode object with -DRXLAT_XDP_STAMP_MODE=RXLAT_STAMP_PACKET.
 */
#ifndef RXLAT_XDP_STAMP_MODE
#define RXLAT_XDP_STAMP_MODE RXLAT_STAMP_BATCH
#endif
const volatile __u32 rxlat_stamp_mode = RXLAT_XDP_STAMP_MODE;
/*
 * The network namespace of the interfaces this instance stamps (inode), set
 * by rxlat, which attaches it in its own namespace only; 0 (not known) for
 * xdp-loader. The XDP context gives no cheap way to the device's namespace
 * on every kernel rxlat supports (bpf_cast_to_kern_ctx() is 6.3+).
 */
const volatile __u32 rxlat_netns = 0;

/*
 * The maps (include/rxlat_xdp_maps.bpf.h) are pinned by name, so that every
 * interface xdp-loader attaches the object to shares them and rxlat finds
 * them (see docs/tc-stamper.md, "Pin path"). rxlat's own loader switches
 * pinning off.
 */
#define RXLAT_XDP_PIN __uint(pinning, LIBBPF_PIN_BY_NAME);
#include "rxlat_xdp_maps.bpf.h"

/*
 * Run first in a libxdp chain (low priority value), so that the stamp is
 * taken before other programs spend time on the packet, and go on to the
 * next program on XDP_PASS, the only action this program returns.
 */
struct {
	__uint(priority, 5);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(rxlat_xdp);

/*
 * A unique stamp per packet makes every packet's metadata differ, and GRO
 * never merges packets whose metadata differs (skb_metadata_differs()): with
 * per-packet stamps a TCP receiver loses GRO and, worse, segments that GRO
 * holds apart are delivered out of order (spurious retransmits). Batch mode
 * hands out one stamp per NAPI poll and CPU instead: the first packet of a
 * poll reads the clock, the others reuse it.
 *
 * Where a poll ends, rxlat_napi_reset (xdp/rxlat_reset.bpf.c, tp_btf
 * napi_poll) clears the stamp and arms the batch state. The first packet
 * after that takes a fresh stamp and keeps it for the rest of the poll,
 * until the reset clears it again: the stamp never changes in the middle of
 * a poll, where a change would split what GRO holds and reorder TCP. Should
 * the reset go away, such a stamp is kept for at most RXLAT_RESET_KEEP_J
 * jiffies (bpf_jiffies64() is inlined to one load).
 *
 * Without the reset (the stamper loaded by xdp-loader alone, or rxlat gone)
 * the stamper finds batches itself, from the clock it then reads for every
 * packet: a packet more than RXLAT_BATCH_GAP_NS after the previous one on
 * this CPU starts a new batch, and so does the first packet of a new jiffy,
 * so that a stamp is never older than one tick.
 */
static __always_inline __u64 batch_stamp(__u32 ifindex, __u32 queue, struct rxlat_xdp_counters *c)
{
	struct rxlat_batch *b;
	__u32 idx = 0;
	__u64 now_j, now;
	bool start;

	b = bpf_map_lookup_elem(&rxlat_batch, &idx);
	if (!b)
		return bpf_ktime_get_ns();
	/* the first packet since a poll ended on this CPU: a poll starts, and
	 * serves this packet's queue (a NAPI instance polls one queue) */
	start = b->poll_end;
	if (start) {
		b->poll_end = 0;
		b->queue = queue;
	}
	now_j = bpf_jiffies64();
	if (!b->stamp || !b->by_reset || now_j - b->jiffies > RXLAT_RESET_KEEP_J) {
		now = bpf_ktime_get_ns();
		if (!b->stamp || b->jiffies != now_j || now - b->last > RXLAT_BATCH_GAP_NS) {
			b->by_reset = !b->stamp && b->armed;
			b->armed = 0;
			b->stamp = now;
			b->jiffies = now_j;
			b->ifindex = ifindex;
		}
		b->last = now;
	}
	if (start && c) {
		c->polls++;
		c->last_poll = b->stamp;
		c->cpu = bpf_get_smp_processor_id();
	}
	return b->stamp;
}

SEC("xdp.frags")
int rxlat_xdp(struct xdp_md *ctx)
{
	__u32 ifindex = ctx->ingress_ifindex, queue = ctx->rx_queue_index;
	struct rxlat_xdp_counters *c = rxlat_xdp_counters_of(ifindex, queue);
	struct rxlat_meta *m;
	void *data;
	__u64 stamp;

	if (c)
		c->seen++;

	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(*m)))
		goto refused;
	m = (void *)(long)ctx->data_meta;
	data = (void *)(long)ctx->data;
	if ((void *)(m + 1) > data)
		goto refused;

	stamp = rxlat_stamp_mode == RXLAT_STAMP_PACKET ? bpf_ktime_get_ns()
						       : batch_stamp(ifindex, queue, c);
	m->magic = RXLAT_META_MAGIC;
	m->ifindex = ifindex;
	m->netns = rxlat_netns;
	m->rx_queue = queue > 0xffff ? 0xffff : queue;
	m->flags = rxlat_stamp_mode == RXLAT_STAMP_PACKET ? 0 : RXLAT_META_F_BATCH;
	m->stamp_lo = (__u32)stamp;
	m->stamp_hi = (__u32)(stamp >> 32);
	if (c)
		c->stamped++;
	return XDP_PASS;

refused:
	if (c)
		c->meta_refused++;
	return XDP_PASS;
}
