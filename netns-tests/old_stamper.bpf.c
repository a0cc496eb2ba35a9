// SPDX-License-Identifier: GPL-2.0
/*
 * A stamper of an earlier rxlat, as rxlat --no-xdp finds it: the program
 * and its maps have the stamper's names, the maps the value sizes of that
 * version (the per-CPU batch state before it had the poll-end mark, 40
 * bytes; counters of two fields). It stamps nothing and passes every frame.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct old_batch {
	__u64 stamp, jiffies, last;
	__u32 armed, by_reset, ifindex, queue;
};

struct old_counters {
	__u64 stamped, stamp_shared;
};

struct old_key {
	__u32 ifindex, rx_queue;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct old_batch);
} rxlat_batch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 64);
	__type(key, struct old_key);
	__type(value, struct old_counters);
} rxlat_xdp_stats SEC(".maps");

SEC("xdp")
int rxlat_xdp(struct xdp_md *ctx)
{
	struct old_key key = { .ifindex = ctx->ingress_ifindex, .rx_queue = ctx->rx_queue_index };
	struct old_counters *c = bpf_map_lookup_elem(&rxlat_xdp_stats, &key);
	__u32 zero = 0;
	struct old_batch *b = bpf_map_lookup_elem(&rxlat_batch, &zero);

	if (b)
		b->last = bpf_ktime_get_ns();
	if (c)
		c->stamped++;
	return XDP_PASS;
}
