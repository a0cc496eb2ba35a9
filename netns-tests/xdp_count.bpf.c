// SPDX-License-Identifier: GPL-2.0
/*
 * A second XDP program for the libxdp multi-program test: counts the frames
 * it sees and passes them on. It runs after the stamper in the dispatcher
 * (priority 20 > 5), so its count proves the chain goes on past rxlat_xdp.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdp_count_pkts SEC(".maps");

struct {
	__uint(priority, 20);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(xdp_count);

SEC("xdp")
int xdp_count(struct xdp_md *ctx)
{
	__u32 idx = 0;
	__u64 *n = bpf_map_lookup_elem(&xdp_count_pkts, &idx);

	if (n)
		__sync_fetch_and_add(n, 1);
	return XDP_PASS;
}
