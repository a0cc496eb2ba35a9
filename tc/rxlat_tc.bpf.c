// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat tc ingress stamper: for a packet that carries no XDP stamp, it
 * records when the packet reached tc ingress, so that the latency hooks can
 * measure it where the XDP stamper cannot run. It never drops, redirects or
 * changes packet bytes, and lets the next filter run (TC_ACT_UNSPEC, which
 * is TCX_NEXT under tcx).
 *
 * The stamp lives in skb->tstamp, as a CLOCK_REALTIME value: the type the
 * socket layer reports to SO_TIMESTAMP* users, and the one forwarding
 * clears (why this slot, and what it changes: docs/tc-stamper.md). Its
 * lowest bit is set; a kernel receive stamp passing here gets that bit
 * cleared, which moves it by at most 1 ns, so that the hooks can tell the
 * two apart. The next three bits name the clock offset it was taken with
 * (include/rxlat.h, struct rxlat_tc_offs). A packet this namespace
 * forwards (into a routed container) gets a monotonic delivery time
 * instead, which outlives the forwarding, and its stamp goes to a table
 * that rxlat's hooks read (include/rxlat.h, struct rxlat_fwd_slot).
 *
 * Loads with iproute2 alone:
 *   tc qdisc add dev IF clsact
 *   tc filter add dev IF ingress bpf da obj rxlat_tc.bpf.o sec tc
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "rxlat.h"
#include "rxlat_clock.bpf.h"
#include "rxlat_meta.bpf.h"
#include "rxlat_tc_maps.bpf.h"
#include "rxlat_napi.bpf.h"
#include "rxlat_atomic.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define TC_ACT_UNSPEC_ (-1)

/*
 * The network namespace of the interfaces this instance stamps (inode), set
 * by rxlat; 0 (not known) when iproute2 loads the object.
 */
const volatile __u32 rxlat_netns = 0;

/*
 * The stamps of forwarded packets (include/rxlat.h, struct rxlat_fwd_slot),
 * which rxlat shares with its hooks and sizes: fwd_mask + 1 slots. With
 * iproute2 alone the mask is 0, and forwarded packets are stamped like
 * the others.
 */
const volatile __u32 rxlat_fwd_mask = 0;
const volatile __u64 rxlat_fwd_tag = 0; /* this run's tag, above the slot bits */

/*
 * napi_wait (include/rxlat_napi.bpf.h), set by rxlat when it measures the
 * stage: the hooks' RXLAT_NAPI_WAIT_* (0: off, as with iproute2), and its
 * --from. Each packet stamped here is told its poll, and the first packet
 * of a poll leaves the poll's wait, from the schedule to it, for the hooks.
 */
const volatile __u8 rxlat_napi_wait = 0;
const volatile __u8 rxlat_from = 0;

static __always_inline void napi_wait_mark(struct __sk_buff *skb, __u64 stamp)
{
	__u64 from;
	int why;

	if (!rxlat_napi_wait)
		return;
	/* the context's napi_id: 0 below the first instance id (a sender's CPU) */
	why = napi_wait_poll(skb->napi_id, stamp, rxlat_napi_wait, &from);
	if (why == RXLAT_NAPI_SEEN) {
		if (rxlat_from == RXLAT_FROM_SCHEDULE && from && from <= stamp)
			poll_from_note(stamp, 0, 0, 0, stamp - from);
		return;
	}
	if (why >= 0)
		poll_from_note(stamp, 0, 0,
			       RXLAT_POLL_FIRST |
				   ((why - RXLAT_COUNT_UNSAMPLED_FULL + 1) & RXLAT_POLL_WHY),
			       ~0ull);
	else
		poll_from_note(stamp, 0, 0, RXLAT_POLL_FIRST, stamp - from);
}

/*
 * The interfaces whose skb->queue_mapping is the receive queue itself
 * (a veth: include/rxlat.h, RXLAT_TC_IF_QUEUE_RAW), set by rxlat.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RXLAT_MAX_IFACES_LIMIT);
	__type(key, __u32); /* ifindex */
	__type(value, __u8);
} rxlat_tc_queue_raw SEC(".maps");

static __always_inline __u32 rx_queue(struct __sk_buff *skb)
{
	__u32 ifindex = skb->ingress_ifindex;
	__u16 qm = skb->queue_mapping;

	if (bpf_map_lookup_elem(&rxlat_tc_queue_raw, &ifindex))
		return qm;
	return qm ? qm - 1 : 0; /* skb_get_rx_queue() */
}

/* Each CPU's next slot in its own range of rxlat_tc_fwd. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} rxlat_tc_fwd_next SEC(".maps");

/*
 * The epoch of offs: the one that holds it, else a new one (the realtime
 * clock stepped) that this CPU takes and fills; 0 when another CPU took
 * one at the same moment.
 */
static __always_inline __u32 offs_epoch(__s64 offs)
{
	__u32 zero = 0, cur, next;
	struct rxlat_tc_offs *t = bpf_map_lookup_elem(&rxlat_tc_offs, &zero);

	if (!t)
		return 0;
	for (__u32 e = 1; e < RXLAT_TC_EPOCHS; e++)
		if (t->offs[e] == offs)
			return e;
	cur = *(volatile __u32 *)&t->cur & (RXLAT_TC_EPOCHS - 1);
	next = cur < RXLAT_TC_EPOCHS - 1 ? cur + 1 : 1;
	/* under a lock, not compare-and-swap: iproute2 loads this object as it is, on every kernel
	 */
	if (!rxlat_lock(RXLAT_LOCK_EPOCH))
		return 0;
	if (*(volatile __u32 *)&t->cur != cur) {
		rxlat_unlock(RXLAT_LOCK_EPOCH);
		return 0;
	}
	t->offs[next & (RXLAT_TC_EPOCHS - 1)] = offs;
	*(volatile __u32 *)&t->cur = next;
	rxlat_unlock(RXLAT_LOCK_EPOCH);
	return next;
}

/*
 * What this CPU keeps between packets, in one per-CPU slot: the offset
 * CLOCK_REALTIME - CLOCK_MONOTONIC it read last, its epoch, and until when
 * it stamps with them without looking at the offset again (the read takes
 * three clock reads and a walk to the kernel's copy,
 * include/rxlat_clock.bpf.h, more than the rest of the stamper); and the
 * last IPv4 and IPv6 destination it looked up in the namespace's
 * addresses, with the answer and until when it holds.
 *
 * After a step of the realtime clock a CPU stamps with the old offset for
 * up to RXLAT_TC_KEEP_NS: its stamps are that much off as realtime, while
 * the hooks, which convert each stamp with the offset it was taken with,
 * measure them right. After an address comes or goes, a CPU takes packets
 * to it the old way for up to as long: one that is taken for forwarded by
 * mistake is measured at ip_rcv and counted as none after it, one that is
 * taken for delivered by mistake gets a realtime stamp that the forwarding
 * clears (none in the pod).
 */
#define RXLAT_TC_KEEP_NS 1000000ull

/* an address as the table's key, and as two words to compare */
union tc_addr {
	struct rxlat_addr_key k;
	__u64 w[2];
};

struct tc_dst {
	union tc_addr a;
	__u64 until;
	__u8 forwarded;
	__u8 pad[7];
};

struct tc_cpu {
	__s64 offs;
	__u64 until;
	__u32 epoch;
	__u32 pad;
	struct tc_dst dst[2]; /* the last IPv4 and IPv6 destination */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tc_cpu);
} rxlat_tc_cpu SEC(".maps");

/*
 * The offset to stamp with at now, and its epoch: false while the kernel
 * updates it. Past RXLAT_TC_KEEP_NS, a kernel copy that still holds this
 * CPU's offset keeps it for as long again (rxlat_realtime_copy()): the
 * full read and check run only when the clock stepped, and not once per
 * millisecond on a CPU that takes a GRO packet every millisecond or so.
 */
static __always_inline bool stamp_offs(struct tc_cpu *c, __u64 now, __s64 *offs, __u32 *epoch)
{
	__s64 copy;

	if (!rxlat_kernel_clock())
		return rxlat_user_offset(offs, epoch);
	if (c && c->until && (now < c->until || (rxlat_realtime_copy(&copy) && copy == c->offs))) {
		if (now >= c->until)
			c->until = now + RXLAT_TC_KEEP_NS;
		*offs = c->offs;
		*epoch = c->epoch;
		return true;
	}
	if (!rxlat_realtime_offset(now, offs))
		return false;
	*epoch = offs_epoch(*offs);
	if (c) {
		c->offs = *offs;
		c->epoch = *epoch;
		/* no epoch (another CPU was taking one): the next packet tries again */
		c->until = *epoch ? now + RXLAT_TC_KEEP_NS : 0;
	}
	return true;
}

/* The namespace's own addresses (include/rxlat.h), kept by rxlat. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, RXLAT_LOCAL_ADDRS);
	__type(key, struct rxlat_addr_key);
	__type(value, __u8);
} rxlat_tc_local SEC(".maps");

/*
 * Whether destination k is none of the namespace's addresses: the answer
 * this CPU had for it last (d), while it holds, else the table's. A TCP
 * flow's segments, a CPU's in a row, pay one lookup per RXLAT_TC_KEEP_NS.
 */
static __always_inline bool not_local(struct tc_dst *d, const union tc_addr *a, __u64 now)
{
	bool fwd;

	if (!d)
		return !bpf_map_lookup_elem(&rxlat_tc_local, &a->k);
	if (now < d->until && a->w[0] == d->a.w[0] && a->w[1] == d->a.w[1])
		return d->forwarded;
	fwd = !bpf_map_lookup_elem(&rxlat_tc_local, &a->k);
	d->a = *a;
	d->forwarded = fwd;
	d->until = now + RXLAT_TC_KEEP_NS;
	return fwd;
}

/*
 * Whether the packet leaves this namespace: routed on (into a routed
 * container), bridged to a container's port, or dropped, rather than
 * delivered to a socket here. Its destination says so: one of the
 * namespace's addresses, a multicast or the limited broadcast address is
 * delivered here (and keeps a realtime stamp, which reaches every stage).
 */
static __always_inline bool forwarded(struct __sk_buff *skb, struct tc_cpu *c, __u64 now)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	union tc_addr k = {};

	if (skb->protocol == bpf_htons(0x0800)) {
		struct iphdr *ip = data + sizeof(struct ethhdr);

		if ((void *)(ip + 1) > end)
			return false;
		if ((ip->daddr & bpf_htonl(0xf0000000)) == bpf_htonl(0xe0000000) ||
		    ip->daddr == 0xffffffff)
			return false;
		k.k.a[10] = k.k.a[11] = 0xff;
		__builtin_memcpy(&k.k.a[12], &ip->daddr, 4);
		return not_local(c ? &c->dst[0] : NULL, &k, now);
	}
	if (skb->protocol == bpf_htons(0x86DD)) {
		struct ipv6hdr *ip6 = data + sizeof(struct ethhdr);

		if ((void *)(ip6 + 1) > end)
			return false;
		if (ip6->daddr.in6_u.u6_addr8[0] == 0xff)
			return false;
		__builtin_memcpy(k.k.a, &ip6->daddr, 16);
		return not_local(c ? &c->dst[1] : NULL, &k, now);
	}
	return false;
}

/*
 * A forwarded packet's stamp: now, in the next slot of this CPU, and the
 * slot's key as a monotonic delivery time (include/rxlat.h). False when no
 * slot could be had: the caller stamps it as any other packet.
 */
static __always_inline bool stamp_forwarded(struct __sk_buff *skb, __u64 now)
{
	__u32 zero = 0, *next = bpf_map_lookup_elem(&rxlat_tc_fwd_next, &zero), slot, k;
	struct rxlat_fwd_slot *e;
	__u64 key;

	if (!next)
		return false;
	slot =
	    (bpf_get_smp_processor_id() * RXLAT_FWD_SLOTS_CPU + (*next)++ % RXLAT_FWD_SLOTS_CPU) &
	    rxlat_fwd_mask;
	key = rxlat_fwd_key(now, rxlat_fwd_tag | slot, rxlat_fwd_mask);
	k = slot;
	e = bpf_map_lookup_elem(&rxlat_tc_fwd, &k);
	if (!e || !key)
		return false;
	e->key = 0; /* a reader never takes a half-written slot for the packet's */
	e->m.magic = RXLAT_META_MAGIC;
	e->m.ifindex = skb->ingress_ifindex;
	e->m.netns = rxlat_netns;
	e->m.rx_queue = rx_queue(skb);
	e->m.flags = 0;
	e->m.stamp_lo = now;
	e->m.stamp_hi = now >> 32;
	e->key = key;
	if (bpf_skb_set_tstamp(skb, key, BPF_SKB_TSTAMP_DELIVERY_MONO))
		return false;
	napi_wait_mark(skb, now); /* the hooks' start: the slot's stamp */
	return true;
}

/*
 * A delivery time of its own clock in skb->tstamp, and bpf_skb_set_tstamp()
 * to write one (5.18): without, skb->tstamp holds a realtime receive time,
 * or on the way out a monotonic departure time that crossing into another
 * namespace clears, and a forwarded packet keeps no stamp (ip_forward()
 * clears it too).
 */
#define has_tstamp_type() bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_skb_set_tstamp)

/* Below 2^60 ns (2006), a stamp is no realtime one: a departure time of a sender here. */
#define RXLAT_REALTIME_MIN (1ull << 60)

static __always_inline int stamp(struct __sk_buff *skb)
{
	__u64 ts = skb->tstamp, now;
	__u8 type = has_tstamp_type()		    ? skb->tstamp_type
		    : ts && ts < RXLAT_REALTIME_MIN ? BPF_SKB_TSTAMP_DELIVERY_MONO
						    : BPF_SKB_TSTAMP_UNSPEC;
	struct rxlat_meta m;
	struct tc_cpu *c;
	__u32 epoch, zero = 0;
	__s64 offs;

	/*
	 * An XDP stamp wins over this one (nothing to add), unless it was taken
	 * in another namespace: the host's stamp reaches a container's
	 * interfaces, and an rxlat in the container measures from its own
	 * (the hooks prefer this stamp to a foreign one).
	 */
	if (rxlat_meta_tc(skb, &m) && (m.netns == rxlat_netns || !m.netns || !rxlat_netns))
		return TC_ACT_UNSPEC_;
	now = bpf_ktime_get_ns();
	c = bpf_map_lookup_elem(&rxlat_tc_cpu, &zero);
	/*
	 * Forwarded: a realtime stamp would not outlive ip_forward, the
	 * kernel's own receive stamp no more than this one.
	 */
	if (rxlat_fwd_mask && has_tstamp_type() &&
	    (!ts || type == BPF_SKB_TSTAMP_UNSPEC ||
	     (type == BPF_SKB_TSTAMP_DELIVERY_MONO && ts <= now)) &&
	    forwarded(skb, c, now) && stamp_forwarded(skb, now))
		return TC_ACT_UNSPEC_;
	if (ts && type == BPF_SKB_TSTAMP_UNSPEC) {
		/* the kernel's receive stamp (realtime): kept, marked as such */
		if (ts & RXLAT_TC_MARK)
			skb->tstamp = ts & ~RXLAT_TC_MARK;
		return TC_ACT_UNSPEC_;
	}
	/*
	 * A monotonic delivery time (the sender's departure time, over veth)
	 * that has passed can no longer hold the packet back anywhere; one in
	 * the future, or another clock's, is left to whoever set it.
	 */
	if (ts && (type != BPF_SKB_TSTAMP_DELIVERY_MONO || ts > now || !has_tstamp_type()))
		return TC_ACT_UNSPEC_;
	if (!stamp_offs(c, now, &offs, &epoch))
		return TC_ACT_UNSPEC_;
	if (ts && has_tstamp_type())
		bpf_skb_set_tstamp(skb, 0, BPF_SKB_TSTAMP_UNSPEC); /* realtime from here */
	ts = ((now + offs) & ~RXLAT_TC_LOW_BITS) | (__u64)epoch << RXLAT_TC_EPOCH_SHIFT |
	     RXLAT_TC_MARK;
	skb->tstamp = ts;
	/* the hooks' start: the stamp less its epoch's offset (without one, not known) */
	if (epoch)
		napi_wait_mark(skb, ts - offs);
	return TC_ACT_UNSPEC_;
}

/*
 * Loaded by rxlat, the stamper stamps only while rxlat lives: it reaches
 * the code that stamps through a tail call, and the kernel empties a
 * program array when the last file that user space held of it is closed.
 * A filter that a killed rxlat leaves behind (cls_bpf, kernels without tcx
 * links) then changes no packet.
 */
const volatile __u8 rxlat_watched = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} rxlat_tc_live SEC(".maps");

/* the entry: first in the section, the one iproute2 attaches */
SEC("tc")
int rxlat_tc(struct __sk_buff *skb)
{
	if (!rxlat_watched)
		return stamp(skb);
	bpf_tail_call(skb, &rxlat_tc_live, 0);
	return TC_ACT_UNSPEC_; /* rxlat is gone */
}

SEC("tc")
int rxlat_tc_stamp(struct __sk_buff *skb)
{
	return stamp(skb);
}
