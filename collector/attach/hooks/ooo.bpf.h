/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP reads behind out-of-order data. After a lost segment, the segments
 * that follow it wait in the socket's out-of-order queue until the
 * retransmission fills the hole: their sock_read latency is the time the
 * loss took to recover, not the stack's. Such a read is "held" (counter
 * held{ooo}) and, unless --include-ooo, left out of the histogram.
 *
 * Where the kernel decides (tcp_data_queue()), a segment goes to the
 * out-of-order queue when it starts after rcv_nxt. ooo_arrival() sees
 * every segment of an established socket before that, with rcv_nxt as
 * tcp_data_queue() will find it (at the tcp_probe tracepoint in
 * tcp_rcv_established(), or in the tcp_do_rcv programs) and, for the few
 * that start after rcv_nxt, notes their sequence range in the socket's
 * storage. The read of an skb whose first byte lies in a noted
 * range was held. The retransmission itself starts at rcv_nxt and is not
 * noted: it did not wait. Ranges that touch are merged; a range is given up
 * once the reads have passed its end.
 *
 * Cost: a few plain loads per segment (about 60 ns more per segment as a
 * program of its own, measured with bpf_stats: the tracepoint's floor), a
 * socket storage update per out-of-order segment. The read hook looks up the
 * storage only for sockets whose tp->rcv_ooopack (5.4+, a plain load on
 * 6.2+) says they ever had out-of-order data.
 *
 * Included by hooks.bpf.c after record_sk() and the filters.
 */
#ifndef RXLAT_OOO_BPF_H
#define RXLAT_OOO_BPF_H

/*
 * Disjoint ranges a socket's reads have not passed yet: one per hole, in
 * practice. More holes at once than slots: the latest range grows over the
 * in-order data in between, which then counts as held too.
 */
#define RXLAT_OOO_RANGES 4

struct rxlat_ooo {
	__u32 lo[RXLAT_OOO_RANGES];
	__u32 hi[RXLAT_OOO_RANGES]; /* lo == hi: slot free */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rxlat_ooo);
} rxlat_ooo_ranges SEC(".maps");

#define TCP_ESTABLISHED_ 1

/*
 * Per CPU: the socket whose last read found none of its ranges ahead, and
 * its rcv_ooopack then. While that count stays, no segment of it went to
 * the out-of-order queue since, and its reads skip the storage lookup: a
 * busy socket that once lost a segment would pay one per read for good.
 * The ports are in the key because a socket's memory is soon another's.
 */
struct rxlat_ooo_idle {
	__u64 sk;
	__u32 ports;
	__u32 ooopack;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_ooo_idle);
} rxlat_ooo_idle SEC(".maps");

/* Sequence number order, with wrap-around (the kernel's before()). */
static __always_inline bool seq_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

/* A field of the TCP control block in skb->cb: a plain load. */
#define TCP_CB_U32(skb, field) \
	(*(__u32 *)((void *)(skb)->cb + bpf_core_field_offset(struct tcp_skb_cb, field)))

/*
 * A u32 field of the socket as a tcp_sock: a plain load through
 * bpf_rdonly_cast() (6.2+), a probe read before.
 */
#define TCP_SK_U32(sk, field)                                                    \
	(bpf_rdonly_cast ? ((struct tcp_sock *)bpf_rdonly_cast(                  \
				(sk), bpf_core_type_id_kernel(struct tcp_sock))) \
			       ->field                                           \
			 : BPF_CORE_READ((struct tcp_sock *)(sk), field))

static __always_inline void ooo_note(struct rxlat_ooo *o, __u32 seq, __u32 end, __u32 copied)
{
	int free = -1, last = 0;

	for (int i = 0; i < RXLAT_OOO_RANGES; i++) {
		__u32 lo = o->lo[i], hi = o->hi[i];

		if (lo == hi || !seq_before(copied, hi)) { /* free, or read past */
			if (free < 0)
				free = i;
			continue;
		}
		if (!seq_before(hi, seq) && !seq_before(end, lo)) { /* touches: merge */
			if (seq_before(seq, lo))
				o->lo[i] = seq;
			if (seq_before(hi, end))
				o->hi[i] = end;
			return;
		}
		if (seq_before(o->hi[last], hi))
			last = i;
	}
	if (free >= 0 && free < RXLAT_OOO_RANGES) {
		o->lo[free] = seq;
		o->hi[free] = end;
	} else if (seq_before(o->hi[last & (RXLAT_OOO_RANGES - 1)], end)) {
		o->hi[last & (RXLAT_OOO_RANGES - 1)] = end;
	}
}

/*
 * A segment of an established socket before tcp_data_queue() sees it: at
 * the tcp_probe tracepoint or the entry of tcp_v{4,6}_do_rcv(), where
 * rcv_nxt is what tcp_data_queue() will find.
 */
static __always_inline void ooo_arrival(struct sock *sk, struct sk_buff *skb)
{
	__u32 seq = TCP_CB_U32(skb, seq), end = TCP_CB_U32(skb, end_seq);
	struct rxlat_ooo *o;

	if (seq == end || !seq_before(TCP_SK_U32(sk, rcv_nxt), seq))
		return; /* no data, or in order */
	/* tcp_v4_do_rcv() also takes the segments of other states */
	if (sk->__sk_common.skc_state != TCP_ESTABLISHED_ || !filter_sk(sk, false) ||
	    !netns_wanted(net_sk(sk, false), false))
		return;
	o = bpf_sk_storage_get(&rxlat_ooo_ranges, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);
	if (o)
		ooo_note(o, seq, end, TCP_SK_U32(sk, copied_seq));
}

/*
 * Attached with sock_read when tcp_do_rcv is not (in both sets: the
 * tracepoint needs no trampoline); else the tcp_do_rcv programs call
 * ooo_arrival() themselves (rxlat_cfg.ooo_at_do_rcv), one program less
 * per segment.
 */
SEC("tp_btf/tcp_probe")
int BPF_PROG(rxlat_tp_tcp_ooo, struct sock *sk, struct sk_buff *skb)
{
	ooo_arrival(sk, skb);
	return 0;
}

/*
 * Whether the read that starts at seq, the first byte of its skb, was held
 * behind out-of-order data. Ranges the reads have passed are given up here.
 */
static __always_inline bool ooo_held(struct sock *sk, __u32 seq)
{
	__u32 pack = 0, zero = 0, ports = sk->__sk_common.skc_portpair;
	struct rxlat_ooo_idle *idle = NULL;
	bool held = false, ahead = false;
	struct rxlat_ooo *o;

	if (bpf_core_field_exists(struct tcp_sock, rcv_ooopack)) {
		pack = TCP_SK_U32(sk, rcv_ooopack);
		if (!pack)
			return false; /* never had out-of-order data */
		idle = bpf_map_lookup_elem(&rxlat_ooo_idle, &zero);
		if (idle && idle->sk == (__u64)sk && idle->ports == ports && idle->ooopack == pack)
			return false;
	}
	o = bpf_sk_storage_get(&rxlat_ooo_ranges, sk, NULL, 0);
	if (o) {
		for (int i = 0; i < RXLAT_OOO_RANGES; i++) {
			__u32 lo = o->lo[i], hi = o->hi[i];

			if (lo == hi)
				continue;
			if (!seq_before(seq, hi)) {
				o->lo[i] = o->hi[i] = 0;
				continue;
			}
			ahead = true;
			if (!seq_before(seq, lo))
				held = true;
		}
	}
	if (idle && !ahead) {
		idle->sk = (__u64)sk;
		idle->ports = ports;
		idle->ooopack = pack;
	}
	return held;
}

#endif /* RXLAT_OOO_BPF_H */
