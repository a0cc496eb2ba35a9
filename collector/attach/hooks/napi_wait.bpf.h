/* SPDX-License-Identifier: GPL-2.0 */
/*
 * napi_wait: the time from when a NAPI instance was scheduled (the
 * interrupt, or veth_xmit() of the sender) to the stamp of the poll that
 * takes its packets: the wait that every other stage starts after. The
 * schedule time is noted here. Which poll a packet belongs to is
 * include/rxlat_napi.bpf.h's: for an XDP stamp the ip_rcv programs ask it
 * (napi_wait_note(), from record_sample()), and the wait ends at the XDP
 * stamp, the poll's start; for rxlat's tc stamp the tc stamper asks it, and
 * the wait ends at the poll's first packet seen at tc ingress, after GRO
 * (the first hook that reads the packet counts it: napi_wait_claim()). The
 * sample lands under the interface, queue and group of that packet. Two
 * ways, chosen by user space (rxlat_cfg.napi_wait):
 *
 * RXLAT_NAPI_WAIT_FENTRY: fentry on __napi_schedule() and
 *   __napi_schedule_irqoff() (fexit on napi_schedule_prep() too, for an
 *   interrupt's schedule inside the first), through which drivers schedule
 *   their instances (and through which napi_complete_done() reschedules one that
 *   missed an interrupt, and the gro_flush_timeout timer one whose
 *   interrupts are deferred: the schedule is then the timer's expiry). Per
 *   instance, by skb->napi_id: a threaded instance, polled in its own
 *   thread and often on another CPU, is measured to the poll in that
 *   thread. The first stamp after the schedule takes the time; a later
 *   poll without a schedule of its own (one that went on after using its
 *   whole budget) has no sample. A busy poll (a socket polling the
 *   instance itself) is not a wait for the schedule: its sample is dropped.
 *
 * RXLAT_NAPI_WAIT_SOFTIRQ: without trampolines, per CPU: the raise of the
 *   NET_RX softirq that a round of net_rx_action() serves (the first raise
 *   after the previous round began), to the first stamp of that round.
 *   Instances polled later in the same round, and busy polls (outside any
 *   round), have no sample. A threaded instance is woken instead of
 *   raising the softirq: the wake-up of its thread (tp_btf sched_waking,
 *   per instance as with trampolines) is its schedule. A schedule while
 *   the thread still runs wakes nothing: that poll has no sample.
 *
 * In both, a packet of no NAPI instance (a CPU's backlog: a veth without
 * NAPI, RPS) is measured from the raise of the NET_RX round that took it:
 * the raise and the rounds are followed in both sets.
 *
 * A packet whose stamp is older than the schedule (GRO held it from an
 * earlier poll) leaves the schedule time for the packet after it. A poll
 * without a sample is counted in napi_wait's series, by reason
 * (RXLAT_GROUP_UNSAMPLED), so that samples and those add up to the polls.
 *
 * The programs' names are told apart by their first 15 characters, all
 * that bpf_prog_info keeps (bpftool, make bench).
 *
 * BPF: include in hooks.bpf.c after series_hist() and hist_add().
 */
#ifndef RXLAT_NAPI_WAIT_BPF_H
#define RXLAT_NAPI_WAIT_BPF_H

#include "rxlat_napi.bpf.h"

static __always_inline void napi_scheduled_id(const struct napi_struct *n, __u32 id)
{
	struct rxlat_napi_sched *s;

	if (!id) /* not in the NAPI hash: packets of it carry no id either */
		return;
	s = napi_slot(id);
	if (!s)
		return;
	napi_slot_own(s, id);
	s->napi = (__u64)n;
	s->t = bpf_ktime_get_ns();
}

static __always_inline void napi_scheduled(const struct napi_struct *n)
{
	napi_scheduled_id(n, n->napi_id);
}

SEC("fentry/__napi_schedule")
int BPF_PROG(rxlat_wait_sched, struct napi_struct *n)
{
	napi_scheduled(n);
	return 0;
}

SEC("fentry/__napi_schedule_irqoff")
int BPF_PROG(rxlat_wait_irqoff, struct napi_struct *n)
{
	napi_scheduled(n);
	return 0;
}

/*
 * The kernel runs a tracing program once per CPU at a time: an interrupt
 * that schedules an instance while rxlat_wait_sched runs on its CPU for a
 * schedule made with interrupts on (napi_complete_done()'s after a missed
 * interrupt, virtio_net's recheck after completing, its transmit
 * instances') is not run for (the program's recursion_misses), and that
 * instance's poll would have no schedule. Drivers call napi_schedule_prep()
 * first, whose exit notes the same schedule: of two programs, the one not
 * interrupted runs for the interrupt's. Seen under QEMU on arm64.
 */
SEC("fexit/napi_schedule_prep")
int BPF_PROG(rxlat_wait_prep, struct napi_struct *n, bool ret)
{
	if (ret)
		napi_scheduled(n);
	return 0;
}

SEC("tp_btf/softirq_raise")
int BPF_PROG(rxlat_wait_raise, unsigned int vec)
{
	struct rxlat_softirq_round *r;

	if (vec != NET_RX_SOFTIRQ)
		return 0;
	r = softirq_round();
	if (!r || r->pending)
		return 0;
	r->raised = bpf_ktime_get_ns();
	r->pending = 1;
	return 0;
}

/* include/linux/sched.h: a kernel thread (a #define, not in BTF) */
#define RXLAT_PF_KTHREAD 0x00200000

/*
 * The fallback's threaded instances: the wake-up of a NAPI thread
 * ("napi/IF-ID", napi_threaded_poll() on the instance, the kthread's data)
 * is the schedule of its instance. Every wake-up of the host passes here:
 * anything else leaves at the flag or the name.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(rxlat_wait_wake, struct task_struct *p)
{
	const struct napi_struct *n;
	struct kthread *k;

	if (!(p->flags & RXLAT_PF_KTHREAD) || p->comm[0] != 'n' || p->comm[1] != 'a' ||
	    p->comm[2] != 'p' || p->comm[3] != 'i' || p->comm[4] != '/')
		return 0;
	if (!bpf_core_field_exists(p->worker_private))
		return 0;
	k = (struct kthread *)p->worker_private;
	n = BPF_CORE_READ(k, data);
	if (n)
		napi_scheduled_id(n, BPF_CORE_READ(n, napi_id));
	return 0;
}

/* A round of NET_RX begins: it serves the raise seen since the last one, if any. */
SEC("tp_btf/softirq_entry")
int BPF_PROG(rxlat_wait_entry, unsigned int vec)
{
	struct rxlat_softirq_round *r;

	if (vec != NET_RX_SOFTIRQ)
		return 0;
	r = softirq_round();
	if (!r)
		return 0;
	r->round = r->pending ? r->raised : 0;
	r->pending = 0;
	r->in_round = 1;
	r->seen = 0;
	r->from = 0;
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(rxlat_wait_exit, unsigned int vec)
{
	struct rxlat_softirq_round *r;

	if (vec != NET_RX_SOFTIRQ)
		return 0;
	r = softirq_round();
	if (r) {
		r->round = 0;
		r->in_round = 0;
	}
	return 0;
}

/*
 * The end of a poll of an instance, counted so that ip_rcv knows a poll by
 * the kernel's bounds rather than by the stamp alone: the stamper takes a
 * fresh stamp in the middle of a poll that outlasts RXLAT_RESET_KEEP_J
 * (xdp/rxlat_xdp.bpf.c), as a poll does whose CPU the host stopped for a
 * while under emulation, and each packet after that carries a stamp of its
 * own. After a poll that used its whole budget the kernel polls the
 * instance again without a schedule: that poll's lack of a sample is
 * counted apart (after_full).
 */
SEC("tp_btf/napi_poll")
int BPF_PROG(rxlat_wait_poll, struct napi_struct *n, int work, int budget)
{
	__u32 id = n->napi_id;
	struct rxlat_napi_sched *s;
	bool full = work >= budget;

	if (!id)
		return 0;
	s = napi_slot(id);
	if (!s)
		return 0;
	napi_slot_own(s, id);
	s->ends++;
	if (s->full != full)
		s->full = full;
	return 0;
}

/*
 * The NAPI instance of skb, 0 for none: skb->napi_id shares its place with
 * sender_cpu, a CPU + 1 that a sender's transmit left (a veth without
 * NAPI, loopback: the packet came through a backlog).
 */
static __always_inline __u32 skb_napi_id(const struct sk_buff *skb)
{
	__u32 id = skb->napi_id;

	return id > rxlat_cfg.nr_cpus ? id : 0;
}

/* A poll's sample or its reason for none (why >= 0) into napi_wait's series idx. */
static __always_inline void napi_wait_count(__u32 idx, int why, __u32 src, __u64 wait)
{
	struct rxlat_hist *h = series_hist(idx);

	if (!h)
		return;
	if (why >= 0) {
		__u64 c = (unsigned int)why;

		/*
		 * The bound checked on the register that indexes: 6.1's verifier
		 * loses it when clang checks a 32-bit copy and indexes with another.
		 */
		barrier_var(c);
		if (c < RXLAT_NR_COUNTS)
			__sync_fetch_and_add(&h->counts[c], 1);
		return;
	}
	__sync_fetch_and_add(&h->sources[src & (RXLAT_NR_SOURCES - 1)], 1);
	hist_add(h, wait);
}

/*
 * At ip_rcv, a packet with an XDP stamp: the wait of its poll into series
 * idx (napi_wait's, of the packet's interface, queue and group), if it is
 * the first packet of its poll seen here, or the reason the poll has none
 * counted there; with --from schedule, noted for the stages after the
 * stamp (once per poll: its packets share the stamp).
 */
static __always_inline void napi_wait_note(const struct sk_buff *skb, __u64 stamp, __u32 ifindex,
					   __u32 queue, __u32 idx)
{
	__u64 from = 0;
	int why = napi_wait_poll(skb_napi_id(skb), stamp, rxlat_cfg.napi_wait, &from);

	if (why == RXLAT_NAPI_SEEN)
		return;
	if (why < 0 && rxlat_cfg.from == RXLAT_FROM_SCHEDULE)
		poll_from_note(stamp, ifindex, queue, 0, stamp - from);
	napi_wait_count(idx, why, RXLAT_SRC_XDP, stamp - from);
}

/*
 * A packet with rxlat's tc stamp at stamp, read by a hook: the first packet
 * of its poll carries its poll's napi_wait sample (or reason) from the tc
 * stamper, counted here into series idx by the first hook that reads it,
 * on any CPU. With --from schedule, the packet's start moves back to its
 * poll's schedule, or false: none is known.
 */
static __always_inline bool napi_wait_claim(__u64 *stamp, __u32 idx)
{
	__u64 w, nw, wait = 0, *v = poll_from_find(*stamp, 0, 0, &w);
	bool known;
	__u8 f;

	if (!v)
		return rxlat_cfg.from != RXLAT_FROM_SCHEDULE;
	known = poll_from_wait(w, &wait);
	f = w >> 32;
	if (f & RXLAT_POLL_FIRST) {
		nw = w & ~((__u64)RXLAT_POLL_FIRST << 32);
		if ((RXLAT_FETCH ? __sync_val_compare_and_swap(v, w, nw)
				 : rxlat_locked_cas(RXLAT_LOCK_POLL, v, w, nw, ~w)) == w)
			napi_wait_count(idx,
					(f & RXLAT_POLL_WHY) ? (int)(f & RXLAT_POLL_WHY) - 1 +
								   RXLAT_COUNT_UNSAMPLED_FULL
							     : -1,
					RXLAT_SRC_TC, wait);
	}
	if (rxlat_cfg.from != RXLAT_FROM_SCHEDULE)
		return true;
	if (!known)
		return false;
	*stamp -= wait;
	return true;
}

/* --from schedule, an XDP stamp: the schedule of its poll, false if not known. */
static __always_inline bool poll_from(__u64 stamp, __u32 ifindex, __u32 queue, __u64 *from)
{
	__u64 w, wait;

	if (!poll_from_find(stamp, ifindex, queue, &w) || !poll_from_wait(w, &wait))
		return false;
	*from = stamp - wait;
	return true;
}

#endif /* RXLAT_NAPI_WAIT_BPF_H */
