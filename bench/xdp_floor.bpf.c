// SPDX-License-Identifier: GPL-2.0
/*
 * Floor of the XDP stamper for bench/bench.sh: the least a metadata
 * stamper can do, grow the metadata area by 24 bytes and write them, with
 * no clock read and no map. The stamper's net cost (minus XDP_PASS, the
 * empty program) is compared with this program's.
 *
 * Built a second time with -DXDP_FLOOR_CLOCK (xdp_clock.bpf.o): the same
 * plus one clock read whose value goes into the metadata, the least a
 * stamper can do, since it must read the clock at least once per NAPI poll
 * and under small UDP nearly every datagram is a poll of its own.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define FLOOR_META_LEN 24

#ifdef XDP_FLOOR_CLOCK
#define FLOOR_PROG  xdp_clock
#define FLOOR_NOW() bpf_ktime_get_ns()
#else
#define FLOOR_PROG  xdp_floor
#define FLOOR_NOW() 0x500000004ULL
#endif

SEC("xdp")
int FLOOR_PROG(struct xdp_md *ctx)
{
	__u32 *meta;
	__u64 now;

	if (bpf_xdp_adjust_meta(ctx, -FLOOR_META_LEN))
		return XDP_PASS;
	meta = (void *)(long)ctx->data_meta;
	if ((void *)(meta + FLOOR_META_LEN / 4) > (void *)(long)ctx->data)
		return XDP_PASS;
	now = FLOOR_NOW();
	meta[0] = 1;
	meta[1] = 2;
	meta[2] = 3;
	meta[3] = (__u32)now;
	meta[4] = (__u32)(now >> 32);
	return XDP_PASS;
}
