// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat latency hooks. Each program reads the start time a packet carries
 * (the XDP stamp, else a realtime skb->tstamp written by the tc stamper or
 * the kernel) at the entry of one point of
 * the receive path and adds now - start to the series of its stage,
 * interface and receive queue. The skb is only read at function entry:
 * by the time tcp_data_queue() or udp_queue_rcv_one_skb() return, it may
 * have been freed.
 *
 * Two program sets, chosen per stage by user space (collector/attach/hooks/plan.c):
 * fentry where the kernel allows BPF trampolines, and a fallback of
 * tracepoints and cgroup_skb where it does not; where a stage has no such
 * fallback, or it cannot load, a kprobe on the fentry target.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "rxlat.h"
#include "rxlat_hist.h"
#include "rxlat_clock.bpf.h"
#include "rxlat_meta.bpf.h"
#include "rxlat_tc_maps.bpf.h"
#include "rxlat_atomic.bpf.h"
#include "rxlat_net.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define ETH_P_IP     0x0800
#define ETH_P_IPV6   0x86DD
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17

/* Set by user space between open and load. */
const volatile struct rxlat_bpf_config rxlat_cfg = {
	.max_ifaces = RXLAT_MAX_IFACES_DEFAULT,
	.max_queues = RXLAT_MAX_QUEUES_DEFAULT,
};

struct rxlat_bpf_state rxlat_state;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RXLAT_MAX_IFACES_DEFAULT); /* set by user space */
	__type(key, __u64);			       /* rxlat_if_key() */
	__type(value, struct rxlat_ifslot);
} rxlat_ifslots SEC(".maps");

/*
 * The series live in chunks of RXLAT_CHUNK_SERIES histograms, which user
 * space creates as they fill up: map memory follows the series in use, not
 * the configured number of interfaces x queues. rxlat_series_of maps a
 * series (rxlat_series_index()) to its place, 1 + chunk * CHUNK + slot,
 * 0 before its first sample claims one.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* set by user space: rxlat_nr_series() */
	__type(key, __u32);
	__type(value, __u64); /* array elements take 8 bytes anyway */
} rxlat_series_of SEC(".maps");

struct rxlat_hist_chunk {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, RXLAT_CHUNK_SERIES);
	/* sizes, not types: user space creates the chunks without BTF */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct rxlat_hist));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1); /* set by user space: rxlat_nr_chunks() */
	__type(key, __u32);
	__array(values, struct rxlat_hist_chunk);
} rxlat_hist_chunks SEC(".maps");

/*
 * Interfaces where rxlat knows a tc stamper runs, and whose it is
 * (RXLAT_TC_IF_*), by ifindex: below RXLAT_IFINDEX_DIRECT in a flat array,
 * the others in a hash (user space fills both).
 */
__u8 rxlat_tc_of[RXLAT_IFINDEX_DIRECT];

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RXLAT_MAX_IFACES_LIMIT);
	__type(key, __u32); /* ifindex */
	__type(value, __u8);
} rxlat_tc_ifaces SEC(".maps");

static __always_inline __u8 tc_iface(__u32 ifindex)
{
	__u8 *v;

	if (ifindex < RXLAT_IFINDEX_DIRECT)
		return rxlat_tc_of[ifindex];
	v = bpf_map_lookup_elem(&rxlat_tc_ifaces, &ifindex);
	return v ? *v : 0;
}

/*
 * The receive queue of a packet without metadata, from its queue_mapping,
 * tc what rxlat knows of its interface (tc_iface()).
 */
static __always_inline __u32 rx_queue_of(__u16 qm, __u8 tc)
{
	if (tc & RXLAT_TC_IF_QUEUE_RAW)
		return qm;
	return qm ? qm - 1 : 0; /* skb_get_rx_queue() */
}

/* Kernel layouts that changed: CO-RE picks the one this kernel has. */
struct sk_buff___tstamp_type { /* 6.11+ */
	__u8 tstamp_type : 2;
} __attribute__((preserve_access_index));

struct sk_buff___mono_delivery { /* 5.18 .. 6.10 */
	__u8 mono_delivery_time : 1;
} __attribute__((preserve_access_index));

extern void *bpf_cast_to_kern_ctx(void *) __ksym __weak;

/*
 * Field f of kernel object p, on the path of a program whose arguments are
 * BTF pointers (pr false: a plain load) or a kprobe's, which are numbers to
 * the verifier (pr true: a probe read, CO-RE relocated). pr is a constant
 * on every path, so that each program keeps one of the two: the kprobe set
 * pays a helper call per field, the others nothing.
 */
#define KREAD(pr, p, f) ((pr) ? BPF_CORE_READ(p, f) : (p)->f)

#include "filters.bpf.h"
#include "slow.bpf.h"

/*
 * make bench part C's breakdown (bench/part_vmcost.sh) builds the hooks with
 * one feature off in turn, -DRXLAT_COST_OFF=RXLAT_COST_OFF_*, to tell what
 * each adds per run: such a build measures nothing right. rxlat's own
 * build has none off.
 */
#define RXLAT_COST_OFF_STAMP 1 /* the stamp read: a made-up stamp instead */
#define RXLAT_COST_OFF_GROUP 2 /* the group lookup: every sample in group 0 */
#define RXLAT_COST_OFF_OOO   4 /* the out-of-order notes and check */
#define RXLAT_COST_OFF_HIST  8 /* the histogram adds */
#ifndef RXLAT_COST_OFF
#define RXLAT_COST_OFF 0
#endif
#define COST_OFF(f) ((RXLAT_COST_OFF & RXLAT_COST_OFF_##f) != 0)

/*
 * Every program here gets the skb as a BTF pointer (fentry and tp_btf
 * arguments, bpf_cast_to_kern_ctx()), so its fields are read with plain
 * loads; only memory reached through computed addresses (the shared info,
 * the metadata bytes, the TCP control block) goes through
 * bpf_probe_read_kernel(), or plain loads where the kernel allows them
 * (rxlat_cfg.direct_mem: bpf_rdonly_cast(), 6.2+). Each helper call saved
 * is 10-15 ns per packet and stage on a host, and on the fentry set in the
 * 6.12 VM up to a third of a TCP hook's run (make bench part C). The metadata
 * reader is include/rxlat_meta.bpf.h; with the direct reads second, clang
 * lays them out without a jump (bpftool prog dump xlated: 2 instructions
 * fewer on their path).
 */
static __always_inline bool read_meta(const struct sk_buff *skb, struct rxlat_meta *m, bool pr)
{
	if (COST_OFF(STAMP)) {
		*m = (struct rxlat_meta){ .magic = RXLAT_META_MAGIC,
					  .ifindex = KREAD(pr, skb, skb_iif),
					  .netns = rxlat_cfg.netns_ino,
					  .stamp_lo = 1 };
		return true;
	}
	if (pr)
		return rxlat_meta_skb(skb, m, RXLAT_META_KPROBE);
	if (!rxlat_cfg.direct_mem)
		return rxlat_meta_skb(skb, m, RXLAT_META_PROBE);
	return rxlat_meta_skb(skb, m, RXLAT_META_DIRECT);
}

/*
 * Loaded alone at start-up (collector/attach/hooks/hooks_probe.c): whether this
 * kernel takes the direct metadata reads. Never attached.
 */
SEC("tp_btf/netif_receive_skb")
int BPF_PROG(rxlat_probe_mem, struct sk_buff *skb)
{
	struct rxlat_meta m;

	/* a store, so that the read stays: an atomic add of 0 becomes an atomic or (5.12) */
	if (rxlat_meta_skb(skb, &m, RXLAT_META_DIRECT))
		*(volatile __u32 *)&m.magic = 0;
	return 0;
}

/*
 * skb->tstamp is a receive time only when it holds CLOCK_REALTIME. Since 5.18
 * it may instead carry the sender's monotonic delivery time (veth, for one):
 * read as a receive time that gives "years of latency".
 */
static __always_inline bool tstamp_is_realtime(const struct sk_buff *skb, bool pr)
{
	struct sk_buff___tstamp_type *n = (void *)skb;
	struct sk_buff___mono_delivery *o = (void *)skb;

	if (bpf_core_field_exists(n->tstamp_type))
		return (pr ? BPF_CORE_READ_BITFIELD_PROBED(n, tstamp_type)
			   : BPF_CORE_READ_BITFIELD(n, tstamp_type)) == 0;
	if (bpf_core_field_exists(o->mono_delivery_time))
		return (pr ? BPF_CORE_READ_BITFIELD_PROBED(o, mono_delivery_time)
			   : BPF_CORE_READ_BITFIELD(o, mono_delivery_time)) == 0;
	/* before 5.18: a departure time of a sender here, below 2^60 ns (2006), is none */
	return (__u64)KREAD(pr, skb, tstamp) >= 1ull << 60;
}

/*
 * The stamp of a forwarded packet: a monotonic delivery time that is the
 * key of a slot of rxlat_tc_fwd. It lasts until the receiving namespace's
 * ip_local_deliver, which turns it into a receive time or 0.
 *
 * A key of this run's tag whose slot holds another key is a stamp that was
 * lost on the way: the packet waited (in a shaping qdisc on the way into a
 * pod, say) while its CPU stamped RXLAT_FWD_SLOTS_CPU more. It is taken
 * as a stamp of rxlat's namespace with no interface and no time
 * (RXLAT_META_F_LOST): counted at every stage as none, so that samples
 * and none add up to the packets received. The
 * key's age tells it from a sender's departure time (include/rxlat.h).
 */
#define RXLAT_META_F_LOST 0x8000 /* the hooks' own: a forwarded stamp lost on the way */

/*
 * The interface of a lost stamp: rxlat's one tc-stamped interface where
 * it stamps on one (set by user space), else 0 (the overflow interface).
 * Its queue is not known: the overflow queue.
 */
__u32 rxlat_fwd_lost_ifindex;

static __always_inline bool fwd_stamp(const struct sk_buff *skb, __u64 now, struct rxlat_meta *m,
				      bool pr)
{
	__u64 ts = KREAD(pr, skb, tstamp);
	struct rxlat_fwd_slot *e;
	__u32 k;

	if (!rxlat_cfg.fwd_mask ||
	    !rxlat_fwd_is_key(ts, now, rxlat_cfg.fwd_tag, rxlat_cfg.fwd_mask) ||
	    tstamp_is_realtime(skb, pr))
		return false;
	k = ts & rxlat_cfg.fwd_mask;
	e = bpf_map_lookup_elem(&rxlat_tc_fwd, &k);
	if (!e)
		return false;
	if (e->key == ts) {
		*m = e->m;
		return true;
	}
	*m = (struct rxlat_meta){ .magic = RXLAT_META_MAGIC,
				  .ifindex = rxlat_fwd_lost_ifindex,
				  .netns = rxlat_cfg.netns_ino,
				  .rx_queue = 0xffff,
				  .flags = RXLAT_META_F_LOST };
	return true;
}

/*
 * Past ip_local_deliver the forwarded stamp is gone from the skb: the
 * ip_rcv programs note it, by skb address, for the stages after it. A
 * list of packets (GRO's) passes ip_rcv before the first reaches
 * ip_local_deliver, and an sk_buff takes 256 bytes: the skbs of a list
 * are told apart by their addresses. sock_read runs whenever the
 * application reads: it takes the stamp from rxlat_fwd_sock (below).
 *
 * A UDP datagram reaches udp_queue_rcv on the CPU that ran its ip_rcv,
 * in the same softirq, right after it: its note is kept per CPU, in a slot
 * chosen by the address, and taken there. Every packet passes ip_rcv
 * before that stage and forgets what an earlier skb at its address left
 * on this CPU; a slot another skb took since means no stamp, never a
 * wrong one.
 */
#define RXLAT_CARRY_SLOTS 64

struct rxlat_carry {
	__u64 skb;
	struct rxlat_meta m;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RXLAT_CARRY_SLOTS);
	__type(key, __u32);
	__type(value, struct rxlat_carry);
} rxlat_carry SEC(".maps");

/*
 * A TCP segment waits in the socket's backlog while the application holds
 * the socket, and its stages then run on the application's CPU, in
 * process context (__release_sock()): a note kept per CPU is not found
 * there (the segment went uncounted), or an older skb's at the same
 * address is (a sample of many seconds, the note of a segment whose
 * ip_rcv ran on that CPU under RPS). So a TCP segment's note is shared by
 * all CPUs, keyed by the skb's address, and proven to be the segment's by
 * its data buffer and its sequence number, which a later skb at the same
 * address and buffer has only as a retransmission of the same segment
 * (and that passes ip_rcv, which writes its own note, if it came stamped).
 * Notes are never deleted: an LRU hash lets the oldest go, and those of
 * segments in a backlog are the newest (RXLAT_CARRY_TCP segments of the
 * host's containers waiting at once; rxlat sizes the map).
 */
struct rxlat_carry_tcp {
	__u32 head; /* low bits of skb->head */
	__u32 seq;  /* the segment's sequence number */
	struct rxlat_meta m;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1); /* set by user space: RXLAT_CARRY_TCP with a tc stamper */
	__type(key, __u64);	/* the skb's address */
	__type(value, struct rxlat_carry_tcp);
} rxlat_carry_tcp SEC(".maps");

/*
 * The low 32 bits of skb's address, as a number. The verifier refuses any
 * ALU operation on a pointer but a move, and the compiler may otherwise
 * fold the narrowing into the shift of a hash: a 32-bit move, written
 * out, makes the verifier take the value as a scalar (privileged only).
 */
static __always_inline __u32 addr32(const void *p)
{
	__u32 a;

	asm volatile("%0 = %1" : "=w"(a) : "w"((__u32)(__u64)p));
	return a;
}

static __always_inline __u32 skb_addr32(const struct sk_buff *skb)
{
	return addr32(skb);
}

static __always_inline struct rxlat_carry *carry_slot(const struct sk_buff *skb)
{
	__u32 k = (skb_addr32(skb) >> 8) & (RXLAT_CARRY_SLOTS - 1);

	return bpf_map_lookup_elem(&rxlat_carry, &k);
}

/*
 * At ip_rcv, the sequence number of a TCP segment (skb->data is its IP
 * header): false for any other packet, and for one whose headers cannot
 * be read (IPv6 extension headers: its TCP stages get no stamp).
 */
static __always_inline bool ip_rcv_tcp_seq(const struct sk_buff *skb, __u32 *seq)
{
	const unsigned char *nh = skb->data;
	__u8 ip[10];
	__u32 off;

	if (bpf_probe_read_kernel(ip, sizeof(ip), nh))
		return false;
	if (ip[0] >> 4 == 4 && ip[9] == IPPROTO_TCP_)
		off = (ip[0] & 0xf) * 4;
	else if (ip[0] >> 4 == 6 && ip[6] == IPPROTO_TCP_)
		off = 40;
	else
		return false;
	if (bpf_probe_read_kernel(seq, sizeof(*seq), nh + (off & 0x3f) + 4))
		return false;
	*seq = bpf_ntohl(*seq);
	return true;
}

/*
 * At ip_rcv: note the packet's forwarded stamp m, or (m NULL: it has none)
 * forget what an earlier skb at its address left on this CPU. In another
 * namespace a TCP segment's note goes to the shared map. rxlat's own
 * namespace, which every forwarded packet passes, reads no header for it:
 * a forwarded segment leaves it, its TCP stages look for no note
 * (where it was taken for forwarded by mistake they count none), and the
 * per-CPU note it gets is read by UDP's stage alone.
 */
static __always_inline void carry_note(const struct sk_buff *skb, const struct rxlat_meta *m,
				       bool here)
{
	struct rxlat_carry_tcp t;
	struct rxlat_carry *c;
	__u64 key;

	if (!rxlat_cfg.fwd_mask)
		return;
	if (m && !here && ip_rcv_tcp_seq(skb, &t.seq)) {
		key = (__u64)skb;
		t.head = addr32(skb->head);
		t.m = *m;
		bpf_map_update_elem(&rxlat_carry_tcp, &key, &t, BPF_ANY);
		return;
	}
	c = carry_slot(skb);
	if (!c)
		return;
	if (m) {
		c->m = *m;
		c->skb = (__u64)skb;
	} else if (c->skb == (__u64)skb) {
		c->skb = 0;
	}
}

/*
 * After ip_local_deliver: the stamp noted for skb at ip_rcv. A TCP stage
 * of rxlat's own namespace (here) looks for none: only another namespace's
 * ip_rcv notes one, and that costs a hash lookup per segment and stage.
 */
static __always_inline bool carried_stamp(const struct sk_buff *skb, __u32 stage, bool here,
					  struct rxlat_meta *m, bool pr)
{
	__u32 off = bpf_core_field_offset(struct tcp_skb_cb, seq), seq;
	struct rxlat_carry_tcp *t;
	struct rxlat_carry *c;
	__u64 key = (__u64)skb;

	if (!rxlat_cfg.fwd_mask || stage == RXLAT_STAGE_SOCK_READ)
		return false;
	if (stage != RXLAT_STAGE_UDP_QUEUE_RCV) { /* a TCP stage: the control block is TCP's */
		if (here)
			return false;
		t = bpf_map_lookup_elem(&rxlat_carry_tcp, &key);
		if (!t || t->head != addr32(KREAD(pr, skb, head)))
			return false;
		if (!pr)
			seq = *(__u32 *)((void *)skb->cb + off);
		else if (bpf_probe_read_kernel(&seq, sizeof(seq),
					       (void *)skb + bpf_core_field_offset(skb->cb) + off))
			return false;
		if (t->seq != seq)
			return false;
		*m = t->m;
		return true;
	}
	c = carry_slot(skb);
	if (!c || c->skb != (__u64)skb)
		return false;
	*m = c->m;
	c->skb = 0; /* the last stage that takes it */
	return true;
}

/* The stamps of forwarded packets queued to a socket (include/rxlat.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* set by user space */
	__type(key, __u32);
	__type(value, struct rxlat_fwd_sock_set);
} rxlat_fwd_sock SEC(".maps");

/* The set of skb's address: the skbs of one slab page in distinct sets. */
static __always_inline struct rxlat_fwd_sock_set *sock_set(const struct sk_buff *skb)
{
	__u32 k = (skb_addr32(skb) >> 8) & (RXLAT_FWD_SOCK_SETS - 1);

	return bpf_map_lookup_elem(&rxlat_fwd_sock, &k);
}

/* The way of set that names skb, NULL if none does. */
static __always_inline struct rxlat_fwd_sock *sock_way(struct rxlat_fwd_sock_set *set,
						       const struct sk_buff *skb)
{
#pragma unroll
	for (__u32 i = 0; i < RXLAT_FWD_SOCK_WAYS; i++)
		if (set->way[i].skb == (__u64)skb)
			return &set->way[i];
	return NULL;
}

/*
 * Where a packet of another namespace is queued to its socket: keep its
 * forwarded stamp m for sock_read, or (m NULL) free the way that an
 * earlier skb at its address left. A stamp takes that way, else a free
 * one, else the one with the oldest stamp. The skb goes last, so that a
 * reader that finds it finds the stamp written.
 */
static __always_inline void sock_note(const struct sk_buff *skb, const struct rxlat_meta *m,
				      bool pr)
{
	struct rxlat_fwd_sock_set *set;
	struct rxlat_fwd_sock *s;
	__u64 oldest = ~0ULL;
	__u32 pick = 0;

	if (!rxlat_cfg.fwd_mask)
		return;
	set = sock_set(skb);
	if (!set)
		return;
	s = sock_way(set, skb);
	if (!m) {
		if (s)
			s->skb = 0;
		return;
	}
	if (!s) {
#pragma unroll
		for (__u32 i = 0; i < RXLAT_FWD_SOCK_WAYS; i++) {
			__u64 at = set->way[i].stamp;

			if (!set->way[i].skb)
				at = 0;
			if (at < oldest) {
				oldest = at;
				pick = i;
			}
		}
		s = &set->way[pick & (RXLAT_FWD_SOCK_WAYS - 1)];
	}
	s->skb = 0;
	s->head = (__u32)(__u64)KREAD(pr, skb, head);
	s->ifindex = m->ifindex;
	s->netns = m->netns;
	s->rx_queue = m->rx_queue;
	s->flags = m->flags;
	s->stamp = rxlat_meta_stamp(m);
	*(volatile __u64 *)&s->skb = (__u64)skb;
}

/*
 * At sock_read: the stamp kept for skb, and its way freed. Its data buffer
 * must be the one noted too: an skb that reached the socket past the stage
 * (a TCP segment that completes a handshake) may find the way of another.
 */
static __always_inline bool sock_stamp(const struct sk_buff *skb, struct rxlat_meta *m)
{
	struct rxlat_fwd_sock_set *set;
	struct rxlat_fwd_sock *s;

	if (!rxlat_cfg.fwd_mask)
		return false;
	set = sock_set(skb);
	if (!set)
		return false;
	s = sock_way(set, skb);
	if (!s || s->head != (__u32)(__u64)skb->head)
		return false;
	m->magic = RXLAT_META_MAGIC;
	m->ifindex = s->ifindex;
	m->netns = s->netns;
	m->rx_queue = s->rx_queue;
	m->flags = s->flags;
	m->stamp_lo = s->stamp;
	m->stamp_hi = s->stamp >> 32;
	/* not rewritten meanwhile, and freed for the next */
	if (!RXLAT_FETCH)
		return rxlat_locked_cas(RXLAT_LOCK_SOCK, &s->skb, (__u64)skb, 0, 0) == (__u64)skb;
	return __sync_val_compare_and_swap(&s->skb, (__u64)skb, 0) == (__u64)skb;
}

/*
 * Slot -> interface key (rxlat_if_key()), claimed with compare-and-swap: the
 * one record of which interface owns which slot (user space reads it for
 * names). The key -> slot direction is cached so that a known interface
 * costs one load: in rxlat_ifslot_of[] for the indexes of rxlat's namespace
 * below RXLAT_IFINDEX_DIRECT (slot + 1; RXLAT_IFSLOT_SKIP for an interface
 * that -i leaves out), in the hash rxlat_ifslots for the others. A failed
 * cache insert (two CPUs adding the same interface) loses nothing. An
 * interface that finds every slot taken is cached with the overflow slot,
 * so it never scans the owners again.
 */
__u64 rxlat_slot_owner[RXLAT_MAX_IFACES_LIMIT];
__u16 rxlat_ifslot_of[RXLAT_IFINDEX_DIRECT];

static __always_inline void cache_slot(__u64 key, __u32 slot)
{
	struct rxlat_ifslot new = { .slot = slot };

	if (key < RXLAT_IFINDEX_DIRECT)
		rxlat_ifslot_of[key] = slot + 1;
	else
		bpf_map_update_elem(&rxlat_ifslots, &key, &new, BPF_NOEXIST);
}

/*
 * The slot of interface key, claimed at its first sample. A function of its
 * own, so that the verifier walks the loop once per program, not once per
 * path into it; only a new interface pays for the call.
 */
__noinline __s32 rxlat_iface_claim(__u64 key)
{
	__u32 max = rxlat_cfg.max_ifaces;

	/* without compare-and-swap, the scan under a lock; not had: the overflow, this once */
	if (!RXLAT_FETCH && !rxlat_lock(RXLAT_LOCK_IFACE))
		return max;
	for (__u32 i = 0; i < RXLAT_MAX_IFACES_LIMIT && i < max; i++) {
		__u64 owner = rxlat_slot_owner[i];

		if (!owner && !RXLAT_FETCH)
			owner = rxlat_slot_owner[i] = key;
		else if (!owner)
			owner = __sync_val_compare_and_swap(&rxlat_slot_owner[i], 0, key) ?: key;
		if (owner != key)
			continue;
		if (!RXLAT_FETCH)
			rxlat_unlock(RXLAT_LOCK_IFACE);
		cache_slot(key, i);
		return i;
	}
	if (!RXLAT_FETCH)
		rxlat_unlock(RXLAT_LOCK_IFACE);
	cache_slot(key, max);
	return max;
}

/* The slot of ifindex of namespace netns (0: rxlat's); -1: not counted. */
static __always_inline __s32 iface_slot(__u32 ifindex, __u32 netns)
{
	__u64 key = rxlat_if_key(ifindex, netns);
	struct rxlat_ifslot *s;
	__u32 max = rxlat_cfg.max_ifaces;

	if (!ifindex) /* not known: the overflow series, never a slot of its own */
		return max;
	if (key < RXLAT_IFINDEX_DIRECT) {
		__u16 v = rxlat_ifslot_of[key];

		if (v == RXLAT_IFSLOT_SKIP)
			return -1;
		if (v)
			return v - 1;
	} else {
		s = bpf_map_lookup_elem(&rxlat_ifslots, &key);
		if (s)
			return s->slot;
	}
	/*
	 * With -i only the named interfaces of rxlat's namespace count; a key
	 * of another namespace gets here only for a packet that came in on a
	 * named interface (record_sample() checks), and claims a slot.
	 */
	if (rxlat_cfg.ifaces_fixed && !netns) {
		if (key < RXLAT_IFINDEX_DIRECT)
			rxlat_ifslot_of[key] = RXLAT_IFSLOT_SKIP;
		return -1;
	}
	return rxlat_iface_claim(key);
}

#include "groups.bpf.h"

static __always_inline void update_max(__u64 *slot, __u64 lat)
{
	__u64 cur = *slot, old;

	/* without compare-and-swap, a larger maximum stored at the same moment may be lost */
	if (!RXLAT_FETCH) {
		if (lat > cur)
			*slot = lat;
		return;
	}
	/* Bounded for the verifier; four lost races in a row are not seen. */
	for (int i = 0; i < 4 && lat > cur; i++) {
		old = __sync_val_compare_and_swap(slot, cur, lat);
		if (old == cur)
			break;
		cur = old;
	}
}

static __always_inline struct net *net_dev(const struct sk_buff *skb)
{
	return skb->dev->nd_net.net;
}

static __always_inline struct net *net_sk(const struct sock *sk, bool pr)
{
	return KREAD(pr, sk, __sk_common.skc_net.net);
}

/*
 * Whether a stage that runs in namespace net is measured: rxlat's own
 * always, the others with --by netns or cgroup (where only packets stamped
 * on rxlat's interfaces count, see record()).
 */
static __always_inline bool netns_wanted(const struct net *net, bool pr)
{
	return rxlat_cfg.by != RXLAT_BY_NONE || KREAD(pr, net, ns.inum) == rxlat_cfg.netns_ino;
}

/*
 * The receiving socket's cgroup v2, with --by cgroup: plain loads from a
 * BTF pointer, where probe reads cost a helper call each.
 */
static __always_inline __u64 sk_group(const struct sock *sk, bool pr)
{
	struct cgroup *cg;

	if (rxlat_cfg.by != RXLAT_BY_CGROUP)
		return 0;
	if (pr)
		return BPF_CORE_READ(sk, sk_cgrp_data.cgroup, kn, id);
	cg = sk->sk_cgrp_data.cgroup;
	return cg ? cg->kn->id : 0;
}

/*
 * The start, in CLOCK_MONOTONIC, of a realtime stamp ts; false when the
 * kernel's offset is being refreshed right now. The offset is the one of
 * this moment, unless the realtime clock stepped since the stamp was taken:
 * a stamp taken before the step the hooks saw last is converted with the
 * offset before it. Which one: the start that lies before now and before
 * the step (for the old offset), the later of the two if both do. A step
 * smaller than the time the packet spent in between can be mistaken by
 * at most its own size.
 */
static __always_inline bool realtime_start(__s64 ts, __u64 now, __u64 *start)
{
	struct rxlat_clock *c = &rxlat_state.clock;
	__u64 cur, old;
	__s64 offs;

	if (!rxlat_realtime_offset(now, &offs))
		return false;
	if (offs != c->offs) { /* a step, or the first realtime stamp (prev 0) */
		if (c->offs)
			__sync_fetch_and_add(&c->steps, 1);
		c->prev = c->offs;
		c->prev_until = now;
		c->offs = offs;
	}
	cur = ts - offs;
	old = ts - c->prev;
	*start = cur;
	if (old <= now && old < c->prev_until && (cur > now || old > cur))
		*start = old;
	return true;
}

/*
 * Where a packet's start time comes from, and that time; tc: what rxlat
 * knows of the packet's interface (tc_iface()).
 */
static __always_inline __u32 packet_start(const struct sk_buff *skb, __u64 now, __u8 tc,
					  __u64 *start, bool pr)
{
	__s64 ts = KREAD(pr, skb, tstamp);
	__u32 src = RXLAT_SRC_KERNEL;

	if (ts <= 0 || !tstamp_is_realtime(skb, pr))
		return RXLAT_SRC_NONE;
	if (ts & RXLAT_TC_MARK) {
		if (tc)
			src = RXLAT_SRC_TC;
		/* rxlat's own stamp: the offset it was taken with, by its epoch */
		if ((tc & RXLAT_TC_IF_WHOSE) == RXLAT_TC_IF_OWN) {
			__u32 zero = 0, e = (ts >> RXLAT_TC_EPOCH_SHIFT) & (RXLAT_TC_EPOCHS - 1);
			struct rxlat_tc_offs *t = bpf_map_lookup_elem(&rxlat_tc_offs, &zero);
			__s64 offs = t && e ? t->offs[e] : 0;

			if (offs) {
				*start = ts - offs;
				return src;
			}
		}
	}
	if (!realtime_start(ts, now, start))
		return RXLAT_SRC_NONE;
	return src;
}

/*
 * Whether the skb carries rxlat's own tc stamp: a marked realtime stamp on
 * ifindex, where rxlat runs the tc stamper.
 */
static __always_inline bool own_tc_stamp(const struct sk_buff *skb, __u32 ifindex, bool pr)
{
	__s64 ts = KREAD(pr, skb, tstamp);

	return ts > 0 && (ts & RXLAT_TC_MARK) && tstamp_is_realtime(skb, pr) && tc_iface(ifindex);
}

/*
 * The histogram of series idx; its place is claimed by its first sample. A
 * sample whose chunk user space has not created yet is counted as lost (user
 * space keeps a free chunk ahead, so that takes more than a chunk of new
 * series between two of its checks).
 */
static __always_inline struct rxlat_hist *series_hist(__u32 idx)
{
	__u64 *at = bpf_map_lookup_elem(&rxlat_series_of, &idx), place;
	__u32 chunk, slot;
	struct rxlat_hist *h = NULL;
	void *c;

	if (!at)
		return NULL;
	place = *at;
	if (!place && !RXLAT_FETCH) {
		/* without the instructions, under a lock; not had: counted as lost */
		if (rxlat_lock(RXLAT_LOCK_SERIES)) {
			place = *(volatile __u64 *)at;
			if (!place)
				*at = place = ++rxlat_state.series_used;
			rxlat_unlock(RXLAT_LOCK_SERIES);
		}
	} else if (!place) {
		place = __sync_fetch_and_add(&rxlat_state.series_used, 1) + 1;
		/* another CPU claimed one first: use that, this place stays empty */
		place = __sync_val_compare_and_swap(at, 0, place) ?: place;
	}
	chunk = place ? (place - 1) >> RXLAT_CHUNK_SHIFT : ~0u;
	slot = (place - 1) & (RXLAT_CHUNK_SERIES - 1);
	c = bpf_map_lookup_elem(&rxlat_hist_chunks, &chunk);
	if (c)
		h = bpf_map_lookup_elem(c, &slot);
	if (!h)
		__sync_fetch_and_add(&rxlat_state.series_lost, 1);
	return h;
}

/* One sample of lat ns into h (its source counted by the caller). */
static __always_inline void hist_add(struct rxlat_hist *h, __u64 lat)
{
	__sync_fetch_and_add(&h->buckets[rxlat_hist_bucket(lat)], 1);
	__sync_fetch_and_add(&h->sum_ns, lat);
	update_max(&h->max_ns[rxlat_state.epoch & 1], lat);
}

#include "napi_wait.bpf.h"

/*
 * The tc stamp of a forwarded packet, at stage: in the skb up to
 * ip_local_deliver, noted at ip_rcv for the stages after it, kept where
 * the packet is queued to a socket of another namespace for sock_read.
 */
static __always_inline bool fwd_meta(const struct sk_buff *skb, __u32 stage, bool here, __u64 now,
				     struct rxlat_meta *m, bool pr)
{
	if (stage == RXLAT_STAGE_IP_RCV)
		return fwd_stamp(skb, now, m, pr);
	if (stage == RXLAT_STAGE_SOCK_READ)
		return !here && sock_stamp(skb, m);
	return carried_stamp(skb, stage, here, m, pr) || fwd_stamp(skb, now, m, pr);
}

/*
 * A sample on its way: when it is taken (now), in which namespace, and
 * where its packet was stamped and when, from what (RXLAT_SRC_*), in which
 * series slots.
 */
struct rx_sample {
	__u64 now, start;
	__u32 own, netns, ifindex, queue, src, if_netns, qslot, gslot;
	__s32 slot;
	bool here;
	bool pr; /* the program is a kprobe (KREAD()) */
};

/* The skb's interface; at_dev: skb->dev, not skb_iif (record_sample()). */
static __always_inline __u32 skb_ifindex(const struct sk_buff *skb, bool at_dev, bool pr)
{
	__u32 iif;

	if (!pr)
		return at_dev ? skb->dev->ifindex : skb->skb_iif ?: skb->dev->ifindex;
	iif = at_dev ? 0 : BPF_CORE_READ(skb, skb_iif);
	return iif ?: BPF_CORE_READ(skb, dev, ifindex);
}

/*
 * The packet's stamp in metadata, into m, from XDP or (*src RXLAT_SRC_TC)
 * a forwarded packet's tc stamp, which reads as a stamp of the same kind:
 * in the skb up to ip_local_deliver, noted at ip_rcv for the stages after
 * it. Only a packet without metadata looks in the table (a sender's
 * departure time that it holds would cost a cache miss). Leaves the notes
 * that later stages read.
 */
static __always_inline bool sample_meta(const struct sk_buff *skb, __u32 stage,
					const struct rx_sample *s, struct rxlat_meta *m, __u32 *src)
{
	bool meta = read_meta(skb, m, s->pr);

	*src = RXLAT_SRC_XDP;
	if (!meta && fwd_meta(skb, stage, s->here, s->now, m, s->pr)) {
		meta = true;
		*src = RXLAT_SRC_TC;
	}
	if (stage == RXLAT_STAGE_IP_RCV)
		carry_note(skb, *src == RXLAT_SRC_TC ? m : NULL, s->here);
	else if (!s->here &&
		 (stage == RXLAT_STAGE_UDP_QUEUE_RCV || stage == RXLAT_STAGE_TCP_DO_RCV))
		sock_note(skb, *src == RXLAT_SRC_TC ? m : NULL, s->pr);
	return meta;
}

/*
 * Where and when the packet was stamped, into s: its metadata's stamp, or
 * without one what the skb says (packet_start()). False when the sample is
 * not rxlat's: neither stamped nor measured here, or in on an interface
 * that -i leaves out.
 */
static __always_inline bool sample_stamp(const struct sk_buff *skb, __u32 stage, bool at_dev,
					 struct rx_sample *s)
{
	struct rxlat_meta m;
	__u32 src;
	bool meta = sample_meta(skb, stage, s, &m, &src);
	__u8 tc;

	if (meta && s->here && m.netns && m.netns != s->own) { /* stamped in another namespace */
		__u32 ifindex = skb_ifindex(skb, at_dev, s->pr);

		if (own_tc_stamp(skb, ifindex, s->pr))
			meta = false; /* rxlat's own stamp wins */
		else if (rxlat_cfg.ifaces_fixed && iface_slot(ifindex, 0) < 0)
			return false;
	}
	if (meta) {
		if (!s->here && m.netns != s->own)
			return false;
		s->start = rxlat_meta_stamp(&m);
		s->ifindex = m.ifindex;
		s->queue = m.rx_queue;
		/* (an XDP stamp's flags are not read: only the table's are known) */
		s->src =
		    src == RXLAT_SRC_TC && (m.flags & RXLAT_META_F_LOST) ? RXLAT_SRC_NONE : src;
		if (m.netns != s->own && m.netns) /* here, stamped elsewhere */
			s->if_netns = m.netns;
		return true;
	}
	if (!s->here)
		return false;
	s->ifindex = skb_ifindex(skb, at_dev, s->pr);
	tc = tc_iface(s->ifindex);
	s->queue = rx_queue_of(KREAD(s->pr, skb, queue_mapping), tc);
	s->src = packet_start(skb, s->now, tc, &s->start, s->pr);
	return true;
}

/* The index of the sample's series of stage. */
static __always_inline __u32 sample_index(__u32 stage, const struct rx_sample *s)
{
	const struct rxlat_dims dims = { rxlat_cfg.max_groups, rxlat_cfg.max_ifaces,
					 rxlat_cfg.max_queues };

	return rxlat_series_index(stage, s->gslot, s->slot, s->qslot, dims);
}

/*
 * The slots of the sample's series: its interface's (false when it has
 * none), its queue's and its group's.
 */
static __always_inline bool sample_slots(const struct net *net, __u64 cgid, struct rx_sample *s)
{
	s->slot = iface_slot(s->ifindex, s->if_netns);
	if (s->slot < 0)
		return false;
	s->qslot = s->queue < rxlat_cfg.max_queues ? s->queue : rxlat_cfg.max_queues;
	s->gslot = COST_OFF(GROUP) ? 0 : group_slot(net, s->netns, cgid, s->pr);
	return true;
}

/*
 * The wait before the stamp: an XDP stamp's poll, noted at ip_rcv; rxlat's
 * tc stamp carries its poll's from the stamper, to the first hook that
 * reads it. --from schedule: the sample starts at its poll's schedule, and
 * only a poll's stamp can have one. A sample left without a start becomes
 * RXLAT_SRC_NONE.
 */
static __always_inline void sample_from(const struct sk_buff *skb, __u32 stage, struct rx_sample *s)
{
	if (rxlat_cfg.napi_wait && stage == RXLAT_STAGE_IP_RCV && s->src == RXLAT_SRC_XDP)
		napi_wait_note(skb, s->start, s->ifindex, s->queue,
			       sample_index(RXLAT_STAGE_NAPI_WAIT, s));
	if (rxlat_cfg.napi_wait && s->src == RXLAT_SRC_TC) {
		if (!napi_wait_claim(&s->start, sample_index(RXLAT_STAGE_NAPI_WAIT, s)))
			s->src = RXLAT_SRC_NONE;
	} else if (rxlat_cfg.from == RXLAT_FROM_SCHEDULE &&
		   (s->src != RXLAT_SRC_XDP ||
		    !poll_from(s->start, s->ifindex, s->queue, &s->start))) {
		s->src = RXLAT_SRC_NONE;
	}
}

/*
 * The sample counted in h: its source, and with a start its latency, in
 * the histogram and the slow record. A read held behind out-of-order data
 * (ooo.bpf.h) is counted apart, and a sample only with --include-ooo, so
 * that the percentiles are the stack's own unless asked otherwise.
 */
static __always_inline void sample_count(const struct sk_buff *skb, __u32 stage,
					 const struct rx_sample *s, struct rxlat_hist *h, bool held)
{
	__u64 lat;

	if (held) {
		__sync_fetch_and_add(&h->counts[RXLAT_COUNT_HELD_OOO], 1);
		if (!rxlat_cfg.include_ooo)
			return;
	}
	__sync_fetch_and_add(&h->sources[s->src & (RXLAT_NR_SOURCES - 1)], 1);
	if (s->src == RXLAT_SRC_NONE)
		return;
	/* A start after now (a step the conversion could not undo) counts as 0 ns. */
	lat = s->now > s->start ? s->now - s->start : 0;
	slow_record(skb, stage, lat, s->now, s->ifindex, s->queue, s->src, s->if_netns,
		    s->here ? 0 : s->netns, s->pr);
	hist_add(h, lat);
}

/*
 * A sample of stage, taken in namespace net, for a socket of cgroup cgid
 * (0: no socket, or not grouped by cgroup). Counted when the stage runs in
 * rxlat's namespace, or when the packet was stamped on an interface of it
 * (the stamp crossed into a container's namespace). The series is the one
 * of the interface and queue where the packet was stamped, a stamp of
 * another namespace keyed by that namespace too, in the group of where the
 * sample was taken.
 *
 * A stamp of another namespace seen in rxlat's own (the host's XDP stamp,
 * for an rxlat inside a container) gives way to rxlat's own tc stamp where
 * the packet has one: the container's interface is then measured as if the
 * host stamped nothing. Without it (a stage before tc ingress, or an
 * interface rxlat stamps in XDP where its stamper has not run yet) the
 * sample is the foreign stamp's, under that interface and namespace; with
 * -i, for packets that came in on a named interface.
 *
 * at_dev: the skb's interface is skb->dev, not skb_iif. At the
 * netif_receive_skb tracepoint skb_iif is not yet this round's device: it
 * is 0, or what an earlier round left (a bridge port's, for a frame the
 * bridge passes up to its own device). Later stages read skb_iif, the last
 * device __netif_receive_skb_core() ran for.
 *
 * pr: skb and net are a kprobe's arguments, numbers to the verifier (KREAD()).
 */
static __always_inline void record_sample(const struct sk_buff *skb, __u32 stage, bool at_dev,
					  const struct net *net, __u64 cgid, bool held, bool pr)
{
	struct rx_sample s = { .now = bpf_ktime_get_ns(),
			       .own = rxlat_cfg.netns_ino,
			       .netns = KREAD(pr, net, ns.inum),
			       .pr = pr };
	struct rxlat_hist *h;

	s.here = s.netns == s.own;
	if (!sample_stamp(skb, stage, at_dev, &s) || !sample_slots(net, cgid, &s))
		return;
	sample_from(skb, stage, &s);
	h = series_hist(sample_index(stage, &s));
	if (h && !COST_OFF(HIST))
		sample_count(skb, stage, &s, h, held);
}

/* record_sample() of a sample that no out-of-order data held back. */
static __always_inline void record(const struct sk_buff *skb, __u32 stage, bool at_dev,
				   const struct net *net, __u64 cgid)
{
	record_sample(skb, stage, at_dev, net, cgid, false, false);
}

/* A stage with a socket; pr: a kprobe's (KREAD()). */
static __always_inline void record_sk(const struct sk_buff *skb, __u32 stage, const struct sock *sk,
				      bool pr)
{
	struct net *net = net_sk(sk, pr);

	if (netns_wanted(net, pr))
		record_sample(skb, stage, false, net, sk_group(sk, pr), false, pr);
}

#include "ooo.bpf.h"

/* tcp_do_rcv: a sample, and where sock_read needs it, out-of-order segments noted. */
static __always_inline void tcp_do_rcv(struct sock *sk, struct sk_buff *skb)
{
	if (!filter_sk(sk, false))
		return;
	record_sk(skb, RXLAT_STAGE_TCP_DO_RCV, sk, false);
	if (rxlat_cfg.ooo_at_do_rcv && !COST_OFF(OOO))
		ooo_arrival(sk, skb);
}

/*
 * ip_rcv: a sample, or for a packet that is filtered out, the note of an
 * earlier skb at its address forgotten. A namespace that is not measured
 * reads no note at its later stages either: nothing to forget there.
 */
static __always_inline void ip_rcv(struct sk_buff *skb)
{
	struct net *net = net_dev(skb);

	if (!netns_wanted(net, false))
		return;
	if (filter_ip(skb))
		record(skb, RXLAT_STAGE_IP_RCV, false, net, 0);
	else
		carry_note(skb, NULL, false);
}

/* ---- fentry set ---------------------------------------------------- */

SEC("fentry/ip_rcv_core")
int BPF_PROG(rxlat_fentry_ip_rcv, struct sk_buff *skb)
{
	ip_rcv(skb);
	return 0;
}

SEC("fentry/ip6_rcv_core")
int BPF_PROG(rxlat_fentry_ip6_rcv, struct sk_buff *skb)
{
	ip_rcv(skb);
	return 0;
}

SEC("fentry/tcp_v4_do_rcv")
int BPF_PROG(rxlat_fentry_tcp_v4_do_rcv, struct sock *sk, struct sk_buff *skb)
{
	tcp_do_rcv(sk, skb);
	return 0;
}

SEC("fentry/tcp_v6_do_rcv")
int BPF_PROG(rxlat_fentry_tcp_v6_do_rcv, struct sock *sk, struct sk_buff *skb)
{
	tcp_do_rcv(sk, skb);
	return 0;
}

SEC("fentry/tcp_data_queue")
int BPF_PROG(rxlat_fentry_tcp_data_queue, struct sock *sk, struct sk_buff *skb)
{
	if (filter_sk(sk, false))
		record_sk(skb, RXLAT_STAGE_TCP_DATA_QUEUE, sk, false);
	return 0;
}

SEC("fentry/udp_queue_rcv_one_skb")
int BPF_PROG(rxlat_fentry_udp_queue_rcv, struct sock *sk, struct sk_buff *skb)
{
	if (filter_sk(sk, false))
		record_sk(skb, RXLAT_STAGE_UDP_QUEUE_RCV, sk, false);
	return 0;
}

SEC("fentry/udpv6_queue_rcv_one_skb")
int BPF_PROG(rxlat_fentry_udpv6_queue_rcv, struct sock *sk, struct sk_buff *skb)
{
	if (filter_sk(sk, false))
		record_sk(skb, RXLAT_STAGE_UDP_QUEUE_RCV, sk, false);
	return 0;
}

/* ---- fallback set: no BPF trampolines ------------------------------ */

/*
 * A port of a bridge or of Open vSwitch: its rx_handler takes every frame.
 * A frame for this host comes back through netif_receive_skb() under the
 * bridge (br_pass_frame_up()) or the internal port, and the tracepoint
 * fires again for that device; a frame forwarded out of another port (into
 * a container's veth) never reaches IP in this namespace. The other
 * rx_handlers (macvlan, ipvlan, bonding, team) hand a frame to their own
 * device with RX_HANDLER_ANOTHER, a round that does not pass the tracepoint
 * again: those frames count at the lower device, where it fires. One load:
 * priv_flags is a plain field before 6.12, a bitfield since.
 */
static __always_inline bool dev_passes_up(const struct net_device *dev)
{
	__u64 ports = bpf_core_enum_value(enum netdev_priv_flags, IFF_BRIDGE_PORT) |
		      bpf_core_enum_value(enum netdev_priv_flags, IFF_OVS_DATAPATH);

	return BPF_CORE_READ_BITFIELD(dev, priv_flags) & ports;
}

/*
 * Fires at the top of __netif_receive_skb_core() for every protocol, once
 * per call, with skb->dev the receiving device and before the IP layer; in
 * skb (generic) XDP mode it fires before the stamper runs.
 */
SEC("tp_btf/netif_receive_skb")
int BPF_PROG(rxlat_tp_ip_rcv, struct sk_buff *skb)
{
	__u16 proto = bpf_ntohs(skb->protocol);
	struct net *net = net_dev(skb);

	if (filter_ip(skb) && (proto == ETH_P_IP || proto == ETH_P_IPV6) &&
	    !dev_passes_up(skb->dev) && netns_wanted(net, false))
		record(skb, RXLAT_STAGE_IP_RCV, true, net, 0);
	else
		carry_note(skb, NULL, false);
	return 0;
}

/* Fires at the start of tcp_rcv_established(), under tcp_v{4,6}_do_rcv(). */
SEC("tp_btf/tcp_probe")
int BPF_PROG(rxlat_tp_tcp_do_rcv, struct sock *sk, struct sk_buff *skb)
{
	tcp_do_rcv(sk, skb);
	return 0;
}

/*
 * cgroup_skb ingress on the cgroup v2 root runs from sk_filter_trim_cap(),
 * which udp_queue_rcv_one_skb() calls for every datagram; TCP passes here
 * too and is left out. Always lets the packet through.
 */
SEC("cgroup_skb/ingress")
int rxlat_cg_udp_queue_rcv(struct __sk_buff *ctx)
{
	struct sk_buff *skb;
	struct sock *sk;

	if (!bpf_cast_to_kern_ctx)
		return 1;
	skb = bpf_cast_to_kern_ctx(ctx);
	sk = skb->sk;
	if (sk && !filter_sk(sk, false))
		return 1;
	if (sk && sk->sk_protocol == IPPROTO_UDP_)
		record_sk(skb, RXLAT_STAGE_UDP_QUEUE_RCV, sk, false);
	return 1;
}

/*
 * The last resort of a stage whose fallback is missing or cannot load: a
 * kprobe on its fentry target, at the same entry, so the same sample. Its
 * arguments are numbers to the verifier: every field is a probe read
 * (KREAD()), dearer than a trampoline's plain load.
 */
SEC("kprobe/tcp_data_queue")
int BPF_KPROBE(rxlat_kprobe_tcp_data_queue, struct sock *sk, struct sk_buff *skb)
{
	if (filter_sk(sk, true))
		record_sk(skb, RXLAT_STAGE_TCP_DATA_QUEUE, sk, true);
	return 0;
}

SEC("kprobe/udp_queue_rcv_one_skb")
int BPF_KPROBE(rxlat_kprobe_udp_queue_rcv, struct sock *sk, struct sk_buff *skb)
{
	if (filter_sk(sk, true))
		record_sk(skb, RXLAT_STAGE_UDP_QUEUE_RCV, sk, true);
	return 0;
}

SEC("kprobe/udpv6_queue_rcv_one_skb")
int BPF_KPROBE(rxlat_kprobe_udpv6_queue_rcv, struct sock *sk, struct sk_buff *skb)
{
	if (filter_sk(sk, true))
		record_sk(skb, RXLAT_STAGE_UDP_QUEUE_RCV, sk, true);
	return 0;
}

/* ---- both sets ------------------------------------------------------ */

/*
 * The copy to the application, for TCP. An skb may be copied in several
 * reads: only the read that starts at its first byte counts, so that the
 * stage has one sample per skb. UDP is counted where the datagram is
 * consumed (below): udp_recvmsg() copies linear skbs with copy_linear_skb(),
 * which does not pass this tracepoint.
 */
SEC("tp_btf/skb_copy_datagram_iovec")
int BPF_PROG(rxlat_tp_sock_read, const struct sk_buff *skb, int len)
{
	struct sock *sk = skb->sk;
	struct net *net;
	__u32 seq;

	if (!sk || sk->sk_protocol != IPPROTO_TCP_)
		return 0;
	net = net_sk(sk, false);
	if (!netns_wanted(net, false) || !filter_sk(sk, false))
		return 0;
	/*
	 * Plain loads where the kernel allows them: the control block lies
	 * inside the skb, and bpf_rdonly_cast() (6.2+) makes the socket a
	 * tcp_sock to read from; a probe read before.
	 */
	seq = TCP_CB_U32(skb, seq);
	if (TCP_SK_U32(sk, copied_seq) != seq)
		return 0;
	record_sample(skb, RXLAT_STAGE_SOCK_READ, false, net, sk_group(sk, false),
		      !COST_OFF(OOO) && rxlat_cfg.ooo_notes && ooo_held(sk, seq), false);
	return 0;
}

/*
 * UDP: the datagram was copied and udp_recvmsg() lets go of it. A peek keeps
 * a reference, so only the last reference counts: one sample per datagram.
 */
SEC("fentry/skb_consume_udp")
int BPF_PROG(rxlat_fentry_udp_read, struct sock *sk, struct sk_buff *skb)
{
	if (!filter_sk(sk, false))
		return 0;
	if (skb->users.refs.counter == 1)
		record_sk(skb, RXLAT_STAGE_SOCK_READ, sk, false);
	return 0;
}

/*
 * Without trampolines: skb_consume_udp() frees the datagram through
 * __consume_stateless_skb(), whose consume_skb tracepoint names the caller.
 * The skb no longer points to its socket; the reading task's namespace
 * stands in for the socket's.
 */
SEC("tp_btf/consume_skb")
int BPF_PROG(rxlat_tp_udp_read, struct sk_buff *skb, void *location)
{
	__u64 loc = (__u64)location;
	struct task_struct *t;
	struct net *net;

	if (loc < rxlat_cfg.udp_consume_lo || loc >= rxlat_cfg.udp_consume_hi)
		return 0;
	__sync_fetch_and_add(&rxlat_state.udp_read_seen, 1);
	if (!filter_udp_read(skb))
		return 0;
	t = bpf_get_current_task_btf();
	net = t->nsproxy->net_ns;
	if (netns_wanted(net, false))
		record(skb, RXLAT_STAGE_SOCK_READ, false, net,
		       rxlat_cfg.by == RXLAT_BY_CGROUP ? bpf_get_current_cgroup_id() : 0);
	return 0;
}

/* ---- drops (--drops) ------------------------------------------------- */

#include "drops.bpf.h"

/*
 * Every skb freed with a drop reason (5.17+; user space loads this only
 * where the tracepoint has the reason). 6.12 added an rx_sk argument after
 * the reason: the first three are the same everywhere.
 */
SEC("tp_btf/kfree_skb")
int BPF_PROG(rxlat_tp_drop, struct sk_buff *skb, void *location, int reason)
{
	count_drop(skb, reason);
	return 0;
}
