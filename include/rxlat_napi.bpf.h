/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which NAPI poll a stamped packet belongs to, and that poll's schedule:
 * the half of napi_wait (collector/attach/hooks/napi_wait.bpf.h) that both
 * stampers' packets need. The hooks ask it at ip_rcv for an XDP stamp (the
 * poll's own, taken at its start); rxlat's tc stamper asks it for each
 * packet it stamps (the poll's first packet seen at tc ingress, after GRO),
 * and leaves the answer in rxlat_poll_from for the first hook that reads
 * the packet: on the fallback set ip_rcv runs before tc ingress.
 *
 * A poll is told by its NAPI instance (skb->napi_id) and the ends of that
 * instance's polls (tp_btf napi_poll, in the hooks). A packet without an
 * instance came through a CPU's backlog (netif_rx(): a veth without NAPI,
 * loopback, RPS): its poll is the round of the NET_RX softirq that took it,
 * and its schedule the raise of that softirq (the first since the round
 * before). The schedule times are noted by the hooks' programs; here they
 * are only read and taken.
 *
 * BPF: include after vmlinux.h, rxlat.h and rxlat_tc_maps.bpf.h.
 */
#ifndef RXLAT_NAPI_BPF_H
#define RXLAT_NAPI_BPF_H

#include <bpf/bpf_helpers.h>

static __always_inline struct rxlat_napi_sched *napi_slot(__u32 id)
{
	__u32 k = id & (RXLAT_NAPI_SLOTS - 1);

	return bpf_map_lookup_elem(&rxlat_napi_sched, &k);
}

/* s for instance id: what an instance 1024 ids apart left there is not its */
static __always_inline void napi_slot_own(struct rxlat_napi_sched *s, __u32 id)
{
	if (s->id == id)
		return;
	s->t = 0;
	s->last = 0;
	s->from = 0;
	s->full = 0;
	s->ends = 0;
	s->seen = 0;
	s->napi = 0;
	s->id = id;
}

static __always_inline struct rxlat_softirq_round *softirq_round(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&rxlat_softirq_round, &zero);
}

/*
 * Busy polling owns the instance. The NAPI_STATE_* enum has no name for
 * CO-RE to relocate; IN_BUSY_POLL has been bit 6 since it came (4.11).
 */
static __always_inline bool napi_busy_polled(__u64 napi)
{
	unsigned long state = 0;

	if (!napi)
		return false;
	bpf_probe_read_kernel(&state, sizeof(state), &((struct napi_struct *)napi)->state);
	return state & (1ul << NAPI_STATE_IN_BUSY_POLL);
}

/*
 * The poll that took the packet at stamp, the first of its packets seen:
 * its wait from the schedule s holds, or why it has none (an
 * RXLAT_COUNT_UNSAMPLED_*). Without trampolines (mode
 * RXLAT_NAPI_WAIT_SOFTIRQ), in a NET_RX round, from the raise the round
 * serves instead; outside any (a NAPI thread's poll), from s too.
 */
static __always_inline int napi_wait_take(struct rxlat_napi_sched *s, __u64 stamp, __u8 mode,
					  __u64 *from)
{
	struct rxlat_softirq_round *r;
	__u64 t;

	if (mode == RXLAT_NAPI_WAIT_SOFTIRQ) {
		r = softirq_round();
		if (!r)
			return RXLAT_COUNT_UNSAMPLED_NONE;
		if (r->in_round) {
			t = r->round;
			if (t && t <= stamp) {
				r->round = 0;
				*from = t;
				return -1;
			}
			return s->full ? RXLAT_COUNT_UNSAMPLED_FULL : RXLAT_COUNT_UNSAMPLED_NONE;
		}
	}
	t = s->t;
	if (t && t <= stamp) {
		s->t = 0;
		*from = t;
		return napi_busy_polled(s->napi) ? RXLAT_COUNT_UNSAMPLED_BUSY : -1;
	}
	if (napi_busy_polled(s->napi))
		return RXLAT_COUNT_UNSAMPLED_BUSY;
	if (t) /* kept: the next poll's */
		return RXLAT_COUNT_UNSAMPLED_LATE;
	return s->full ? RXLAT_COUNT_UNSAMPLED_FULL : RXLAT_COUNT_UNSAMPLED_NONE;
}

/* napi_wait_poll(): the packet is not its poll's first */
#define RXLAT_NAPI_SEEN (-2)

/*
 * A packet of a CPU's backlog, stamped at stamp: the first of its NET_RX
 * round takes the round's raise. Outside a round (a backlog thread), no
 * poll is known: RXLAT_NAPI_SEEN without a schedule.
 */
static __always_inline int backlog_wait_poll(__u64 stamp, __u64 *from)
{
	struct rxlat_softirq_round *r = softirq_round();
	__u64 t;

	*from = 0;
	if (!r || !r->in_round)
		return RXLAT_NAPI_SEEN;
	if (r->seen) {
		*from = r->from;
		return RXLAT_NAPI_SEEN;
	}
	r->seen = 1;
	t = r->round;
	r->round = 0;
	r->from = t && t <= stamp ? t : 0;
	if (!r->from)
		return RXLAT_COUNT_UNSAMPLED_NONE;
	*from = t;
	return -1;
}

/*
 * The poll of a packet stamped at stamp, of NAPI instance id (0: none, the
 * backlog's), mode an RXLAT_NAPI_WAIT_*: -1 if it is the poll's first
 * packet seen and the poll has a schedule, in *from; an
 * RXLAT_COUNT_UNSAMPLED_* if first without one; RXLAT_NAPI_SEEN for a later
 * packet of the poll, with the poll's schedule in *from (0: none known).
 * A poll is known by its stamp, newer than the instance's last, after an
 * end of a poll of the instance: a packet with an older one (GRO held it
 * from an earlier poll, or RPS took it to another CPU) leaves the time to
 * the packet after it, and one whose poll was seen already (a later packet
 * stamped at tc, or the XDP stamper took a fresh stamp in the middle of the
 * poll) is not another poll. One array lookup per packet.
 */
static __always_inline int napi_wait_poll(__u32 id, __u64 stamp, __u8 mode, __u64 *from)
{
	struct rxlat_napi_sched *s;
	int why;

	*from = 0;
	if (!id)
		return backlog_wait_poll(stamp, from);
	s = napi_slot(id);
	if (!s)
		return RXLAT_NAPI_SEEN;
	napi_slot_own(s, id);
	if (stamp < s->last)
		return RXLAT_NAPI_SEEN;
	if (stamp == s->last || s->seen == s->ends + 1) {
		s->last = stamp;
		*from = s->from;
		return RXLAT_NAPI_SEEN;
	}
	s->last = stamp;
	s->seen = s->ends + 1;
	why = napi_wait_take(s, stamp, mode, from);
	s->from = why < 0 ? *from : 0;
	return why;
}

/*
 * rxlat_poll_from (include/rxlat_tc_maps.bpf.h): per packet (or per poll,
 * for an XDP stamp), what napi_wait_poll() found, for the stages after the
 * stamp on any CPU. Direct-mapped by a hash of the stamp (an XDP stamp's
 * with its interface and queue: a stamp per poll and CPU); a slot is one
 * 64-bit word, written and read whole, so that no reader sees half of
 * another packet's: the stamp's low 24 bits (the check), a byte of flags,
 * and the wait + 1 in ns (0: none known). A packet whose slot another one
 * took since, or whose wait is 4.29 s or more, has no schedule. At 100,000
 * stamps a second, one read 1 ms after it was written finds its slot with
 * a probability of 98.5%.
 *
 * The flags: RXLAT_POLL_FIRST on the first packet of a poll until a hook
 * has counted the poll's napi_wait sample (the tc stamper leaves it so),
 * and in RXLAT_POLL_WHY the poll's reason for having none (an
 * RXLAT_COUNT_UNSAMPLED_* - RXLAT_COUNT_UNSAMPLED_FULL + 1; 0: a sample).
 */
#define RXLAT_POLL_FIRST 0x80u
#define RXLAT_POLL_WHY	 0x07u

static __always_inline __u32 poll_from_slot(__u64 stamp, __u32 ifindex, __u32 queue)
{
	__u64 x = (stamp ^ ((__u64)ifindex << 40) ^ ((__u64)queue << 52)) * 0x9e3779b97f4a7c15ull;

	return (__u32)(x >> 48) & (RXLAT_POLL_FROM_SLOTS - 1);
}

static __always_inline __u64 poll_from_word(__u64 stamp, __u8 flags, __u64 wait)
{
	return (stamp & 0xffffffull) << 40 | (__u64)flags << 32 |
	       (wait < 0xffffffffull ? wait + 1 : 0);
}

static __always_inline void poll_from_note(__u64 stamp, __u32 ifindex, __u32 queue, __u8 flags,
					   __u64 wait)
{
	__u32 k = poll_from_slot(stamp, ifindex, queue);
	__u64 *v = bpf_map_lookup_elem(&rxlat_poll_from, &k);

	if (v)
		*v = poll_from_word(stamp, flags, wait);
}

/* The slot of the packet at stamp, and its word in *w: NULL if another's. */
static __always_inline __u64 *poll_from_find(__u64 stamp, __u32 ifindex, __u32 queue, __u64 *w)
{
	__u32 k = poll_from_slot(stamp, ifindex, queue);
	__u64 *v = bpf_map_lookup_elem(&rxlat_poll_from, &k);

	if (!v)
		return NULL;
	*w = *(volatile __u64 *)v;
	if (!*w || (*w >> 40) != (stamp & 0xffffffull))
		return NULL;
	return v;
}

/* The wait a slot's word holds: false if none is known. */
static __always_inline bool poll_from_wait(__u64 w, __u64 *wait)
{
	if (!(__u32)w)
		return false;
	*wait = (__u32)w - 1;
	return true;
}

#endif /* RXLAT_NAPI_BPF_H */
