// SPDX-License-Identifier: GPL-2.0
/*
 * Floor of the XDP stamper for netns-tests/bench.sh: the least a metadata
 * stamper can do, grow the metadata area by 20 bytes and write them, with
 * no clock read and no map. The stamper's net cost (minus XDP_PASS, the
 * empty program) is compared with this program's.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define FLOOR_META_LEN 20

SEC("xdp")
int xdp_floor(struct xdp_md *ctx)
{
	__u32 *meta;

	if (bpf_xdp_adjust_meta(ctx, -FLOOR_META_LEN))
		return XDP_PASS;
	meta = (void *)(long)ctx->data_meta;
	if ((void *)(meta + FLOOR_META_LEN / 4) > (void *)(long)ctx->data)
		return XDP_PASS;
	meta[0] = 1;
	meta[1] = 2;
	meta[2] = 3;
	meta[3] = 4;
	meta[4] = 5;
	return XDP_PASS;
}
