/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The XDP stamper's maps (xdp/rxlat_xdp.bpf.c), which the poll-end reset
 * (xdp/rxlat_reset.bpf.c) shares: one definition for both objects, since
 * rxlat hands the stamper's maps to the reset (bpf_map__reuse_fd()), which
 * takes only a map of the same type, key and value.
 *
 * Counters per (interface, queue) live in a per-CPU array of slots, each
 * slot holding the key it counts for: found by a multiplicative hash of the
 * key, claimed by the first key that lands on it on this CPU (per-CPU, so
 * without a race), one array lookup per packet. A key whose slot another
 * key holds on this CPU counts in the hash table instead, and once that is
 * full in the overflow array: nothing is ever dropped.
 *
 * BPF: include after vmlinux.h and rxlat.h. RXLAT_XDP_PIN is the maps'
 * pinning attribute: the stamper's are pinned by name (so that every
 * interface xdp-loader attaches it to shares them); the reset's are handed
 * in and must not be pinned.
 */
#ifndef RXLAT_XDP_MAPS_BPF_H
#define RXLAT_XDP_MAPS_BPF_H

#include <bpf/bpf_helpers.h>

#ifndef RXLAT_XDP_PIN
#define RXLAT_XDP_PIN
#endif

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RXLAT_XDP_SLOTS);
	__type(key, __u32);
	__type(value, struct rxlat_xdp_slot);
	RXLAT_XDP_PIN
} rxlat_xdp_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct rxlat_xdp_key);
	__type(value, struct rxlat_xdp_counters);
	RXLAT_XDP_PIN
} rxlat_xdp_stats SEC(".maps");

/* Where the counters go once rxlat_xdp_stats is full: never dropped. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_xdp_counters);
	RXLAT_XDP_PIN
} rxlat_xdp_overflow SEC(".maps");

/* The per-CPU state of batch stamping (struct rxlat_batch). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_batch);
	RXLAT_XDP_PIN
} rxlat_batch SEC(".maps");

/* The counters of (ifindex, queue) on this CPU; NULL only should a lookup fail. */
static __always_inline struct rxlat_xdp_counters *rxlat_xdp_counters_of(__u32 ifindex, __u32 queue)
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

#endif /* RXLAT_XDP_MAPS_BPF_H */
