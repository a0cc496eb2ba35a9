// SPDX-License-Identifier: GPL-2.0
/*
 * The other half of batch stamping (xdp/rxlat_xdp.bpf.c): at the end of a
 * NAPI poll, clear the stamp that the stamper hands out on this CPU, so that
 * the first packet of the next poll takes a fresh one. rxlat loads it beside
 * every stamper whose batch map it has, its own or one xdp-loader attached,
 * and hands in that map before load.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "rxlat.h"

char LICENSE[] SEC("license") = "GPL";

/* The stamper's per-CPU batch state; user space hands in the stamper's map. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_batch);
} rxlat_batch SEC(".maps");

/*
 * The end of a NAPI poll: the next packet the stamper sees on this CPU
 * belongs to another poll and takes a fresh stamp. "armed" tells the
 * stamper that the reset runs, so that it keeps that stamp for the whole of
 * the poll (see batch_stamp() in xdp/rxlat_xdp.bpf.c).
 */
SEC("tp_btf/napi_poll")
int BPF_PROG(rxlat_napi_reset, struct napi_struct *napi, int work, int budget)
{
	struct rxlat_batch *b;
	__u32 idx = 0;

	b = bpf_map_lookup_elem(&rxlat_batch, &idx);
	if (b) {
		b->stamp = 0;
		b->armed = 1;
	}
	return 0;
}
