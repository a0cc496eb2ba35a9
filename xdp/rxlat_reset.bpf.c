// SPDX-License-Identifier: GPL-2.0
/*
 * The other half of batch stamping (xdp/rxlat_xdp.bpf.c): at the end of a
 * NAPI poll, clear the stamp that the stamper hands out on this CPU, so that
 * the first packet of the next poll takes a fresh one, and starts a poll
 * that the stamper counts; count where a poll that stamped ran and whether
 * it used its whole budget. rxlat loads it beside every stamper whose batch
 * map it has, its own or one xdp-loader attached, and hands in that map and
 * the stamper's counters before load.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "rxlat.h"

char LICENSE[] SEC("license") = "GPL";

/* The stamper's maps; user space hands in the stamper's own (not pinned here). */
#include "rxlat_xdp_maps.bpf.h"

/* Both layouts spelled out, so that the object builds against either
 * kernel's vmlinux.h: 6.14 moved GRO's state into a struct gro_node in the
 * napi_struct; before, the napi_struct held the bitmask itself. */
struct gro_node___new {
	unsigned long bitmask;
} __attribute__((preserve_access_index));
struct napi_struct___gro_node {
	struct gro_node___new gro;
} __attribute__((preserve_access_index));
struct napi_struct___gro_bitmask {
	unsigned long gro_bitmask;
} __attribute__((preserve_access_index));

/* Whether GRO still holds packets of this NAPI instance (per hash bucket). */
static __always_inline bool gro_holds(struct napi_struct *napi)
{
	struct napi_struct___gro_node *cur = (void *)napi;
	struct napi_struct___gro_bitmask *old = (void *)napi;

	if (bpf_core_field_exists(cur->gro))
		return cur->gro.bitmask;
	if (bpf_core_field_exists(old->gro_bitmask))
		return old->gro_bitmask;
	return false;
}

/* ksoftirqd/N, from the task's name: its per-CPU pointer is data, which not
 * every kernel resolves for BPF (see include/rxlat_clock.bpf.h). */
#define PF_KTHREAD_ 0x00200000 /* include/linux/sched.h, unchanged since 2.6 */

static __always_inline bool in_ksoftirqd(const struct task_struct *t)
{
	/* "ksoftirq" and "d/" as little-endian words: a plain load each, and
	 * only of a kernel thread's name (the flags are on a hot line) */
	return (t->flags & PF_KTHREAD_) && *(const __u64 *)t->comm == 0x71726974666f736bull &&
	       *(const __u16 *)&t->comm[8] == 0x2f64;
}

/*
 * The poll that is ending, which stamped packets of (b->ifindex, b->queue)
 * (the stamper counted it when it began): where it used its whole budget,
 * or ran in ksoftirqd or in the instance's thread, counted there. A healthy
 * poll, on interrupt exit or where bottom halves are enabled, with budget
 * to spare, costs no lookup.
 */
static __always_inline void count_poll(const struct rxlat_batch *b, struct napi_struct *napi,
				       int work, int budget)
{
	bool full = work >= budget, thread = false, ksoftirqd = false;
	struct rxlat_xdp_counters *c;
	struct task_struct *t;
	__u64 comm[2];

	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf)) {
		/* before 5.11 (and threaded NAPI), the name by a helper call */
		ksoftirqd = !bpf_get_current_comm(comm, sizeof(comm)) &&
			    comm[0] == 0x71726974666f736bull && (__u16)comm[1] == 0x2f64;
	} else {
		t = bpf_get_current_task_btf();
		if (bpf_core_field_exists(napi->thread) && napi->thread == t)
			thread = true;
		else
			ksoftirqd = in_ksoftirqd(t);
	}
	if (!full && !thread && !ksoftirqd)
		return;
	c = rxlat_xdp_counters_of(b->ifindex, b->queue);
	if (!c)
		return;
	c->polls_full += full;
	c->polls_thread += thread;
	c->polls_ksoftirqd += ksoftirqd;
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
	bool polled;

	b = bpf_map_lookup_elem(&rxlat_batch, &idx);
	if (!b)
		return 0;
	/* a packet of this poll cleared it, and so took the poll's stamp;
	 * stored only then: one store per poll that stamped, not per poll */
	polled = !b->poll_end;
	if (polled)
		b->poll_end = 1;
	if (!b->stamp) {
		/* nothing stamped since: the first packet of the next poll keeps
		 * its stamp, as after a clear (one store per CPU, not per poll) */
		if (!b->armed)
			b->armed = 1;
		return 0;
	}
	if (napi->dev && napi->dev->ifindex != b->ifindex)
		return 0;
	if (napi->dev && polled)
		count_poll(b, napi, work, budget);
	if (gro_holds(napi) && b->jiffies == bpf_jiffies64()) {
		b->by_reset = 1; /* kept: the stamper keeps it too, from now on */
		return 0;
	}
	b->stamp = 0;
	b->armed = 1;
	return 0;
}
