// SPDX-License-Identifier: GPL-2.0
/*
 * Baseline for bench/bench.sh: an XDP program that does nothing but
 * return XDP_PASS. Attaching any XDP program to a veth changes its receive
 * path (the veth XDP path, NAPI), so the stamper's cost is measured against
 * this program on the same interface rather than against no XDP at all.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_PASS;
}
