// SPDX-License-Identifier: GPL-2.0
/*
 * Another user's tc ingress filter for the tc stamper tests: counts the
 * packets it sees and ends classification (TC_ACT_OK), as a
 * direct-action program usually does. A filter that rxlat must leave in
 * place and that must go on seeing every packet.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} tc_count_pkts SEC(".maps");

SEC("tc")
int tc_count(struct __sk_buff *skb)
{
	__u32 idx = 0;
	__u64 *n = bpf_map_lookup_elem(&tc_count_pkts, &idx);

	(void)skb;
	if (n)
		__sync_fetch_and_add(n, 1);
	return 0; /* TC_ACT_OK */
}
