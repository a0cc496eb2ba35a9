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
 * The maps are pinned by name, so that every interface xdp-loader attaches
 * the object to shares them and rxlat finds them (see docs/tc-stamper.md, "Pin path").
 * rxlat's own loader switches pinning off.
 *
 * Counters per (interface, queue) live in a per-CPU array of slots, each
 * slot holding the key it counts for: found by a multiplicative hash of the
 * key, claimed by the first key that lands on it on this CPU (per-CPU, so
 * without a race), one array lookup per packet. A key whose slot another
 * key holds on this CPU counts in the hash table instead, and once that is
 * full in the overflow array: nothing is ever dropped.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RXLAT_XDP_SLOTS);
	__type(key, __u32);
	__type(value, struct rxlat_xdp_slot);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rxlat_xdp_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct rxlat_xdp_key);
	__type(value, struct rxlat_xdp_counters);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rxlat_xdp_stats SEC(".maps");

/* Where the counters go once rxlat_xdp_stats is full: never dropped. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_xdp_counters);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rxlat_xdp_overflow SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_batch);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rxlat_batch SEC(".maps");

/*
 * Run first in a libxdp chain (low priority value), so that the stamp is
 * taken before other programs spend time on the packet, and go on to the
 * next program on XDP_PASS, the only action this program returns.
 */
struct {
	__uint(priority, 5);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(rxlat_xdp);

static __always_inline struct rxlat_xdp_counters *counters(__u32 ifindex, __u32 queue)
{
	struct rxlat_xdp_key key = { .ifindex = ifindex, .rx_queue = queue };
	struct rxlat_xdp_counters zero = {}, *c;
	struct rxlat_xdp_slot *s;
	__u32 idx = rxlat_xdp_slot_of(ifindex, queue);

	s = bpf_map_lookup_elem(&rxlat_xdp_slots, &idx);
	if (s) {
		if (s->ifindex == ifindex && s->rx_queue == queue)
			return &s->c;
		if (!s->ifindex) {
			s->ifindex = ifindex;
			s->rx_queue = queue;
			return &s->c;
		}
	}
	c = bpf_map_lookup_elem(&rxlat_xdp_stats, &key);
	if (c)
		return c;
	bpf_map_update_elem(&rxlat_xdp_stats, &key, &zero, BPF_NOEXIST);
	c = bpf_map_lookup_elem(&rxlat_xdp_stats, &key);
	if (c)
		return c;
	idx = 0;
	return bpf_map_lookup_elem(&rxlat_xdp_overflow, &idx);
}

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
static __always_inline __u64 batch_stamp(__u32 ifindex)
{
	struct rxlat_batch *b;
	__u32 idx = 0;
	__u64 now_j, now;

	b = bpf_map_lookup_elem(&rxlat_batch, &idx);
	if (!b)
		return bpf_ktime_get_ns();
	now_j = bpf_jiffies64();
	if (b->stamp && b->by_reset && now_j - b->jiffies <= RXLAT_RESET_KEEP_J)
		return b->stamp;
	now = bpf_ktime_get_ns();
	if (!b->stamp || b->jiffies != now_j || now - b->last > RXLAT_BATCH_GAP_NS) {
		b->by_reset = !b->stamp && b->armed;
		b->armed = 0;
		b->stamp = now;
		b->jiffies = now_j;
		b->ifindex = ifindex;
	}
	b->last = now;
	return b->stamp;
}

SEC("xdp.frags")
int rxlat_xdp(struct xdp_md *ctx)
{
	__u32 ifindex = ctx->ingress_ifindex, queue = ctx->rx_queue_index;
	struct rxlat_xdp_counters *c = counters(ifindex, queue);
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

	stamp = rxlat_stamp_mode == RXLAT_STAMP_PACKET ? bpf_ktime_get_ns() : batch_stamp(ifindex);
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
