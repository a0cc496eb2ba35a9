/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --drops: a packet rxlat stamped (in XDP, or the tc stamper's mark) that the
 * kernel frees with a drop reason is counted per interface, receive queue and
 * reason, with the time from its stamp to its drop. Included at the end of
 * hooks.bpf.c, after record() and its helpers.
 */
#ifndef RXLAT_DROPS_BPF_H
#define RXLAT_DROPS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RXLAT_DROP_ENTRIES); /* 1 without --drops */
	__type(key, struct rxlat_drop_key);
	__type(value, struct rxlat_drop);
} rxlat_drops SEC(".maps");

static __always_inline void count_drop(struct sk_buff *skb, int reason)
{
	struct rxlat_drop_key key = { .reason = reason };
	static const struct rxlat_drop zero;
	__u64 now, start = 0, lat;
	struct net_device *dev;
	struct rxlat_drop *d;
	__u32 src = RXLAT_SRC_XDP;
	struct rxlat_meta m;
	bool meta;

	/* since 6.3 consume_skb() passes here as well, as SKB_CONSUMED */
	if (bpf_core_enum_value_exists(enum skb_drop_reason, SKB_CONSUMED) &&
	    reason == bpf_core_enum_value(enum skb_drop_reason, SKB_CONSUMED))
		return;
	/*
	 * Only drops before a socket took the packet have the receiving device
	 * in skb->dev (UDP reuses the field once the datagram is queued).
	 */
	dev = skb->dev;
	if (!dev || dev->nd_net.net->ns.inum != rxlat_cfg.netns_ino)
		return;
	now = bpf_ktime_get_ns();
	/* probe reads on every kernel: drops are rare, and the program stays small */
	meta = rxlat_meta_skb(skb, &m, RXLAT_META_PROBE);
	if (!meta && fwd_stamp(skb, now, &m, false)) { /* a forwarded packet's tc stamp */
		if (m.flags & RXLAT_META_F_LOST)
			return; /* lost on the way: no time to measure the drop from */
		meta = true;
		src = RXLAT_SRC_TC;
	}
	if (meta) {
		start = rxlat_meta_stamp(&m);
		key.ifindex = m.ifindex;
		key.queue = m.rx_queue;
		if (m.netns != rxlat_cfg.netns_ino)
			key.if_netns = m.netns;
	} else {
		__u16 qm = skb->queue_mapping;
		__u8 tc;

		key.ifindex = skb->skb_iif ?: dev->ifindex;
		tc = tc_iface(key.ifindex);
		key.queue = rx_queue_of(qm, tc);
		src = packet_start(skb, now, tc, &start, false);
		if (src != RXLAT_SRC_TC)
			return; /* not stamped by rxlat */
	}
	lat = now > start ? now - start : 0;
	d = bpf_map_lookup_elem(&rxlat_drops, &key);
	if (!d) {
		bpf_map_update_elem(&rxlat_drops, &key, &zero, BPF_NOEXIST);
		d = bpf_map_lookup_elem(&rxlat_drops, &key);
		if (!d) {
			__sync_fetch_and_add(&rxlat_state.drops_lost, 1);
			return;
		}
	}
	__sync_fetch_and_add(&d->buckets[rxlat_hist_bucket(lat)], 1);
	__sync_fetch_and_add(&d->sum_ns, lat);
	update_max(&d->max_ns, lat);
	if (rxlat_cfg.slow_ns) /* --slow: a record for every drop */
		slow_send(skb, RXLAT_SLOW_DROP, lat, now, key.ifindex, key.queue, src, reason,
			  key.if_netns, 0, false);
}

#endif /* RXLAT_DROPS_BPF_H */
