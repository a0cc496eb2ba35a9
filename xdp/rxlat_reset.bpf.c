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
#include <bpf/bpf_core_read.h>
#include "rxlat.h"

char LICENSE[] SEC("license") = "GPL";

/* The stamper's maps; user space hands in the stamper's own (not pinned here). */
#include "rxlat_xdp_maps.bpf.h"

/* Kernels before 6.14 keep GRO's state in the napi_struct itself. */
struct napi_struct___gro_bitmask {
	unsigned long gro_bitmask;
} __attribute__((preserve_access_index));

/* Whether GRO still holds packets of this NAPI instance (per hash bucket). */
static __always_inline bool gro_holds(struct napi_struct *napi)
{
	struct napi_struct___gro_bitmask *old = (void *)napi;

	if (bpf_core_field_exists(napi->gro))
		return napi->gro.bitmask;
	if (bpf_core_field_exists(old->gro_bitmask))
		return old->gro_bitmask;
	return false;
}

/* ksoftirqd/N, from the task's name: its per-CPU pointer is data, which not
 * every kernel resolves for BPF (see include/rxlat_clock.bpf.h). */
static __always_inline bool in_ksoftirqd(const struct task_struct *t)
{
	/* "ksoftirq" and "d/" as little-endian words: a plain load each */
	return *(const __u64 *)t->comm == 0x71726974666f736bull &&
	       *(const __u16 *)&t->comm[8] == 0x2f64;
}

/*
 * The health of the poll that is ending, counted for the (interface,
 * queue) whose packet took this poll's stamp: one poll, its work, whether it
 * used its whole budget, and where it ran (struct rxlat_xdp_counters).
 */
static __always_inline void count_poll(const struct rxlat_batch *b, struct napi_struct *napi,
				       int work, int budget)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct rxlat_xdp_counters *c = rxlat_xdp_counters_of(b->ifindex, b->queue);

	if (!c)
		return;
	c->polls++;
	c->poll_packets += work;
	if (work >= budget)
		c->polls_full++;
	if (bpf_core_field_exists(napi->thread) && napi->thread == t)
		c->polls_thread++;
	else if (in_ksoftirqd(t))
		c->polls_ksoftirqd++;
	c->last_poll = b->stamp;
	c->cpu = bpf_get_smp_processor_id();
}

/*
 * The end of a NAPI poll: the next packet the stamper sees on this CPU
 * belongs to another poll and takes a fresh stamp. "armed" tells the
 * stamper that the reset runs, so that it keeps that stamp for the whole of
 * the poll (see batch_stamp() in xdp/rxlat_xdp.bpf.c).
 *
 * Except where GRO still holds packets when the poll ends (a poll that used
 * its whole budget keeps what GRO holds for the next one): those carry this
 * stamp, and a packet of their flow with another stamp would not merge with
 * them; GRO would hold it beside them and deliver a segment it must flush
 * (PSH, say) ahead of the older ones. The stamp then goes on into the next
 * poll, as long as it was taken in this jiffy: at the end of a full poll
 * GRO itself lets go of what it has held since an earlier jiffy.
 *
 * The state is per CPU, and so are the polls of other interfaces that run
 * between those of the one that took the stamp: only the end of that
 * interface's poll counts.
 */
SEC("tp_btf/napi_poll")
int BPF_PROG(rxlat_napi_reset, struct napi_struct *napi, int work, int budget)
{
	struct rxlat_batch *b;
	__u32 idx = 0;

	b = bpf_map_lookup_elem(&rxlat_batch, &idx);
	if (!b)
		return 0;
	if (!b->stamp) {
		/* nothing stamped since: the first packet of the next poll keeps
		 * its stamp, as after a clear (one store per CPU, not per poll) */
		if (!b->armed)
			b->armed = 1;
		return 0;
	}
	if (napi->dev && napi->dev->ifindex != b->ifindex)
		return 0;
	if (napi->dev)
		count_poll(b, napi, work, budget);
	if (gro_holds(napi) && b->jiffies == bpf_jiffies64()) {
		b->by_reset = 1; /* kept: the stamper keeps it too, from now on */
		return 0;
	}
	b->stamp = 0;
	b->armed = 1;
	return 0;
}
