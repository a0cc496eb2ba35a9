/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one contract between rxlat's BPF programs and user space: the XDP
 * metadata layout, the stage and source enums, map keys and values, the
 * histogram bucket scheme and the size limits. Both sides include this file;
 * nothing here may depend on anything but fixed-width types.
 */
#ifndef RXLAT_H
#define RXLAT_H

#ifdef __BPF__
/* vmlinux.h provides __u8 .. __u64 */
#else
#include <linux/types.h>
#endif

/*
 * XDP metadata written by xdp/rxlat_xdp.bpf.c, 24 bytes. The kernel wants a
 * multiple of 4, and kernels like 6.1 cap the area at 32 bytes: 24 leave 8
 * for another program of a libxdp chain. The stamp sits right before the MAC
 * header when the stamper ran alone or before the others, and at the start of
 * the area when another program ran first and left metadata of its own:
 * readers look at both places (the one reader: include/rxlat_meta.bpf.h).
 * The magic word carries the layout version in its low byte, so that a
 * later layout is never misread as this one, and bytes another program put
 * there are not taken for a stamp.
 *
 * The metadata stays with the packet when it is forwarded or bridged into
 * another network namespace (a container's), where interface indexes name
 * other interfaces: netns says in which namespace ifindex is (the inode of
 * /proc/PID/ns/net). rxlat's loader sets it; a stamper loaded by another
 * loader (xdp-loader) writes 0, "not known", and its stamps are taken for
 * the namespace where a hook sees the packet.
 */
#define RXLAT_META_MAGIC 0x52584c02u /* "RXL" + layout version 2 */

struct rxlat_meta {
	__u32 magic;
	__u32 ifindex;
	__u32 netns; /* namespace of ifindex, 0: not known */
	__u16 rx_queue;
	__u16 flags;	/* RXLAT_META_F_* */
	__u32 stamp_lo; /* CLOCK_MONOTONIC ns, split so that the struct needs */
	__u32 stamp_hi; /* only 4-byte alignment, as the meta area gives */
};

#define RXLAT_META_F_BATCH 0x1 /* stamp shared by the packets of one poll */

static inline __u64 rxlat_meta_stamp(const struct rxlat_meta *m)
{
	return ((__u64)m->stamp_hi << 32) | m->stamp_lo;
}

/* Stamp modes of the XDP stamper (config rxlat_stamp_mode). */
enum rxlat_stamp_mode {
	RXLAT_STAMP_BATCH = 0, /* default: one clock read per NAPI poll */
	RXLAT_STAMP_PACKET = 1,
};

/* Per (interface, queue) counters of the XDP stamper. */
struct rxlat_xdp_key {
	__u32 ifindex;
	__u32 rx_queue;
};

/*
 * The counters, in the one table from which the value's fields, user
 * space's sums and deltas, and every output are made:
 *   X(field, Prometheus family, help)
 * All are the stamper's, per packet or per NAPI poll, but for polls_full
 * .. polls_thread, which the poll-end reset (xdp/rxlat_reset.bpf.c) counts
 * where such a poll ends: a poll is known by its batch stamp, so polls are
 * counted only in batch mode with the reset running (rxlat).
 */
#define RXLAT_XDP_COUNTERS(X)                                                                  \
	X(seen, "rxlat_xdp_packets_seen_total",                                                \
	  "Packets the XDP stamper saw, per interface and receive queue.")                     \
	X(stamped, "rxlat_xdp_packets_stamped_total",                                          \
	  "Packets the XDP stamper wrote a stamp into.")                                       \
	X(meta_refused, "rxlat_xdp_meta_refused_total",                                        \
	  "Packets without room for metadata (bpf_xdp_adjust_meta failed): the driver has no " \
	  "XDP metadata support.")                                                             \
	X(polls, "rxlat_napi_polls_total",                                                     \
	  "NAPI polls that took stamped packets of the queue (XDP stamper, batch stamps); "    \
	  "rxlat_xdp_packets_stamped_total over it: packets per poll.")                        \
	X(polls_full, "rxlat_napi_polls_full_total",                                           \
	  "Polls that used their whole budget: the queue had more, and was polled again.")     \
	X(polls_ksoftirqd, "rxlat_napi_polls_ksoftirqd_total",                                 \
	  "Polls run in ksoftirqd: the NET_RX softirq was deferred to the CPU's thread.")      \
	X(polls_thread, "rxlat_napi_polls_thread_total",                                       \
	  "Polls run in the instance's own kernel thread (threaded NAPI). The others ran "     \
	  "where the softirq runs inline: on interrupt exit, where bottom halves are enabled " \
	  "again, or busy polling.")

#define RXLAT_XDP_FIELD_(f, ...) __u64 f;
struct rxlat_xdp_counters {
	RXLAT_XDP_COUNTERS(RXLAT_XDP_FIELD_)
	__u64 last_poll; /* CLOCK_MONOTONIC stamp of the last poll counted here */
	__u32 cpu;	 /* the CPU of that poll */
	__u32 pad;
};
#undef RXLAT_XDP_FIELD_

/*
 * The stamper's per-CPU counter slots (map rxlat_xdp_slots): a slot counts
 * for the key it holds on that CPU; ifindex 0 means free (no interface has
 * index 0). Keys that find their slot taken count in rxlat_xdp_stats.
 */
#define RXLAT_XDP_SLOTS 256

struct rxlat_xdp_slot {
	__u32 ifindex;
	__u32 rx_queue;
	struct rxlat_xdp_counters c;
};

static inline __u32 rxlat_xdp_slot_of(__u32 ifindex, __u32 queue)
{
	/* Fibonacci hashing: the top 8 bits of the product */
	return ((ifindex * 0x9e3779b1u) >> 24 ^ queue) & (RXLAT_XDP_SLOTS - 1);
}

/* Per-CPU state of batch stamping, shared by the stamper and the reset. */
struct rxlat_batch {
	__u64 stamp;	/* 0: the next packet takes a fresh stamp */
	__u64 jiffies;	/* jiffies when stamp was taken */
	__u64 last;	/* CLOCK_MONOTONIC of the last packet, without the reset */
	__u32 armed;	/* set by the poll-end reset when it clears stamp */
	__u32 by_reset; /* stamp taken after the reset cleared the last one */
	__u32 ifindex;	/* interface whose packet took the stamp */
	__u32 queue;	/* the queue of the poll that began last on this CPU */
	/*
	 * Set by the reset at every poll end on this CPU, cleared by the next
	 * stamped packet, which so starts a poll (counted in its counters'
	 * polls); still set at a poll's end: that poll stamped nothing.
	 */
	__u32 poll_end;
	__u32 pad;
};

/*
 * A stamp taken after the reset cleared the previous one is kept until the
 * reset clears it too, for at most this many jiffies, should the reset go
 * away meanwhile (64 to 256 ms: longer than any poll, also under emulation
 * on a loaded machine).
 */
#define RXLAT_RESET_KEEP_J 64
/* Without the reset: a gap this long between packets starts a new batch. */
#define RXLAT_BATCH_GAP_NS 20000

/*
 * Names of the stamper's pinned maps, under RXLAT_PIN_DIR when xdp-loader
 * loads the object with "-p /sys/fs/bpf/rxlat" (libbpf pins by map name).
 */
#define RXLAT_PIN_DIR "/sys/fs/bpf/rxlat"

/*
 * The stages, in the order a packet reaches them: the one table from which
 * the stage enum, the stage names, the --help text and the collector's attach
 * table are generated. BPF expands only the enum. Per stage:
 *
 *   X(ID, name, fentry, fentry6, fallback, no_fallback, kprobe, common,
 *     protos, common_protos)
 *
 * fentry, fentry6: the function whose entry is hooked where the kernel allows
 *   BPF trampolines, and its IPv6 twin or second entry (NULL when there is
 *   none);
 * fallback: the attach point without trampolines, "type:target", or NULL;
 * no_fallback: why there is no fallback (NULL when there is one);
 * kprobe: 1 when the fentry targets take a kprobe where the fallback is
 *   missing or cannot load (the same entry: the same sample, dearer), else 0;
 * common: an attach point used in both sets, or NULL;
 * protos: the protocols the fentry and fallback programs see (RXLAT_TCP,
 *   RXLAT_UDP), common_protos those the common one sees: the stage is about
 *   both together, and each is either measured or has a reason why not.
 * A stage's name is the name in every output; the man page and docs/design.md
 * list the same stages and attach points (unit-tests/stages_test.c checks).
 */
enum rxlat_proto { RXLAT_PROTO_TCP, RXLAT_PROTO_UDP, RXLAT_NR_PROTOS };
#define RXLAT_PROTO_BIT(p) (1u << (p))
#define RXLAT_TCP	   RXLAT_PROTO_BIT(RXLAT_PROTO_TCP)
#define RXLAT_UDP	   RXLAT_PROTO_BIT(RXLAT_PROTO_UDP)

// clang-format off
#define RXLAT_STAGES(X)								\
	/* before the stamp: schedule to the poll's stamp, read at ip_rcv */	\
	X(NAPI_WAIT, "napi_wait", "__napi_schedule", "__napi_schedule_irqoff",	\
	  "tp_btf:softirq_raise", NULL, 0, NULL, RXLAT_TCP | RXLAT_UDP, 0)	\
	X(IP_RCV, "ip_rcv", "ip_rcv_core", "ip6_rcv_core",			\
	  "tp_btf:netif_receive_skb", NULL, 0, NULL, RXLAT_TCP | RXLAT_UDP, 0)	\
	X(TCP_DO_RCV, "tcp_do_rcv", "tcp_v4_do_rcv", "tcp_v6_do_rcv",		\
	  "tp_btf:tcp_probe", NULL, 0, NULL, RXLAT_TCP, 0)			\
	X(TCP_DATA_QUEUE, "tcp_data_queue", "tcp_data_queue", NULL, NULL,	\
	  "no tracepoint inside (static function)", 1, NULL, RXLAT_TCP, 0)	\
	X(UDP_QUEUE_RCV, "udp_queue_rcv", "udp_queue_rcv_one_skb",		\
	  "udpv6_queue_rcv_one_skb", "cgroup_skb:ingress", NULL, 1, NULL,	\
	  RXLAT_UDP, 0)								\
	/* TCP at the copy tracepoint in both sets; UDP where it is consumed */	\
	X(SOCK_READ, "sock_read", "skb_consume_udp", NULL, "tp_btf:consume_skb",	\
	  NULL, 0, "tp_btf:skb_copy_datagram_iovec", RXLAT_UDP, RXLAT_TCP)
// clang-format on

#define RXLAT_STAGE_ENUM_(id, ...) RXLAT_STAGE_##id,
enum rxlat_stage {
	RXLAT_STAGES(RXLAT_STAGE_ENUM_) /* RXLAT_STAGE_IP_RCV = 0, ... */
	RXLAT_NR_STAGES,
};
#undef RXLAT_STAGE_ENUM_

/*
 * napi_wait is not among the stages measured by default: its programs run
 * for every NAPI schedule of the host (the fallback set: for every NET_RX
 * softirq), measured interface or not. It is read at ip_rcv, and so needs
 * that stage.
 */
#define RXLAT_STAGE_OPT_IN(s) ((s) == RXLAT_STAGE_NAPI_WAIT)

/* rxlat_bpf_config.napi_wait: where the schedule time of napi_wait comes from */
enum {
	RXLAT_NAPI_WAIT_OFF = 0,
	RXLAT_NAPI_WAIT_FENTRY,	 /* __napi_schedule*(), per NAPI instance */
	RXLAT_NAPI_WAIT_SOFTIRQ, /* the NET_RX softirq's raise, per CPU */
};

/*
 * --from: where every stage after the stamp starts. RXLAT_FROM_SCHEDULE: at
 * the schedule of the poll that stamped the packet (napi_wait's start), so
 * that a stage's latency is the time since the interrupt; a packet whose
 * poll has no known schedule is counted under source none.
 */
enum rxlat_from { RXLAT_FROM_STAMP = 0, RXLAT_FROM_SCHEDULE };
/* their names, in --from's choices and every output */
#define RXLAT_FROM_NAMES [RXLAT_FROM_STAMP] = "stamp", [RXLAT_FROM_SCHEDULE] = "schedule"
#define RXLAT_FROM_NAME(f)                                                                         \
	((unsigned int)(f) <= RXLAT_FROM_SCHEDULE ? ((const char *const[]){ RXLAT_FROM_NAMES })[f] \
						  : "?")
/* the slots of rxlat_poll_from (include/rxlat_napi.bpf.h): a power of two */
#define RXLAT_POLL_FROM_SLOTS (1u << 16)
/* NAPI instance ids count up from NR_CPUS + 1: a slot per id below this many */
#define RXLAT_NAPI_SLOTS 1024

/* Where a sample's start time came from. */
enum rxlat_source {
	RXLAT_SRC_XDP = 0, /* rxlat_meta stamp, same clock as the hook */
	RXLAT_SRC_KERNEL,  /* skb->tstamp holding a realtime receive time */
	RXLAT_SRC_TC,	   /* stamp written by the tc ingress program */
	RXLAT_SRC_NONE,	   /* no usable start time: counted, not measured */
	RXLAT_NR_SOURCES,
};

/*
 * The counters of a series besides its histogram: the one table from which
 * the BPF side's indexes (enum rxlat_count), the model's deltas and totals
 * and every output (text, JSON, Prometheus) are made, so that a counter is
 * added here and where BPF counts it. Counters come in groups; a group is
 * one JSON object, one part of the text line, one Prometheus family with
 * one label:
 *
 *   RXLAT_COUNT_GROUPS: X(ID, name, prom_family, prom_label, help, legend)
 *   RXLAT_COUNTS:       X(ID, group ID, name)
 *
 * legend: what the text report says once, above the first series to show
 * the group, where its numbers are not what a reader would take them for
 * ("(held: ooo=N) counts LEGEND"; NULL: none).
 *
 * The samples per start-time source come first, in enum rxlat_source order
 * (each sample counts under exactly one source); the hooks count a sample's
 * source before its bucket, which the model relies on (collector/read).
 * The held counters come after them: a held read (collector/attach/hooks/ooo.bpf.h)
 * is counted there, and is a sample (a source and a bucket) only with
 * --include-ooo. The unsampled ones are napi_wait's only: a poll without a
 * sample, counted where its sample would be (collector/attach/hooks/napi_wait.bpf.h),
 * so that a queue's samples and those add up to its polls.
 */
#define RXLAT_COUNT_GROUPS(X)                                                                   \
	X(SOURCES, "sources", "rxlat_stage_samples_total", "source",                            \
	  "Samples per start-time source: xdp (the XDP stamp), kernel (skb->tstamp), tc, none " \
	  "(counted, not measured).",                                                           \
	  NULL)                                                                                 \
	X(HELD, "held", "rxlat_stage_held_total", "reason",                                     \
	  "Reads of TCP skbs held behind out-of-order data (ooo), one per skb read, not "       \
	  "segments: not in the histogram nor the sources unless --include-ooo.",               \
	  "reads of skbs held behind out-of-order data, one per skb read, not segments")        \
	X(UNSAMPLED, "unsampled", "rxlat_stage_unsampled_total", "reason",                      \
	  "napi_wait: NAPI polls without a sample, by reason: after_full (the poll went on "    \
	  "after one that used its whole budget), unscheduled (no schedule of the instance "    \
	  "seen), busy (a busy poll), late (the schedule seen last is later than the poll's "   \
	  "stamp).",                                                                            \
	  "polls without a napi_wait sample")

#define RXLAT_COUNTS(X)                             \
	X(SRC_XDP, SOURCES, "xdp")                  \
	X(SRC_KERNEL, SOURCES, "kernel")            \
	X(SRC_TC, SOURCES, "tc")                    \
	X(SRC_NONE, SOURCES, "none")                \
	X(HELD_OOO, HELD, "ooo")                    \
	X(UNSAMPLED_FULL, UNSAMPLED, "after_full")  \
	X(UNSAMPLED_NONE, UNSAMPLED, "unscheduled") \
	X(UNSAMPLED_BUSY, UNSAMPLED, "busy")        \
	X(UNSAMPLED_LATE, UNSAMPLED, "late")

#define RXLAT_COUNT_GROUP_ENUM_(id, ...) RXLAT_GROUP_##id,
enum rxlat_count_group { RXLAT_COUNT_GROUPS(RXLAT_COUNT_GROUP_ENUM_) RXLAT_NR_COUNT_GROUPS };
#undef RXLAT_COUNT_GROUP_ENUM_
#define RXLAT_COUNT_ENUM_(id, ...) RXLAT_COUNT_##id,
enum rxlat_count { RXLAT_COUNTS(RXLAT_COUNT_ENUM_) RXLAT_NR_COUNTS };
#undef RXLAT_COUNT_ENUM_

_Static_assert((int)RXLAT_COUNT_SRC_XDP == RXLAT_SRC_XDP &&
		   (int)RXLAT_COUNT_SRC_KERNEL == RXLAT_SRC_KERNEL &&
		   (int)RXLAT_COUNT_SRC_TC == RXLAT_SRC_TC &&
		   (int)RXLAT_COUNT_SRC_NONE == RXLAT_SRC_NONE,
	       "the source counters are the first, in enum rxlat_source order");

/*
 * Histogram buckets: exponential, 8 per power of two, each 2^(1/8) = 9.05%
 * wider than the one before it: the buckets of Prometheus' native
 * histograms at schema 3, rounded down to the ns, from 2^-24 s (59.6 ns) to
 * 2^4 s (16 s) in 28 powers of two of seconds. Bucket 0 holds 0..59 ns (the
 * native zero bucket), the last one everything above 16 s (overflow). The
 * bounds are one table (rxlat_hist.h), for BPF and user space alike.
 */
#define RXLAT_HIST_SCHEMA	3
#define RXLAT_HIST_SUB		(1u << RXLAT_HIST_SCHEMA) /* buckets per power of two */
#define RXLAT_HIST_FIRST_OCTAVE (-24)			  /* 2^-24 s: the zero bucket's top */
#define RXLAT_HIST_ZERO_LOG2	RXLAT_HIST_FIRST_OCTAVE
#define RXLAT_HIST_OCTAVES	28
#define RXLAT_HIST_LINEAR	(RXLAT_HIST_OCTAVES * RXLAT_HIST_SUB)
#define RXLAT_HIST_BUCKETS	(RXLAT_HIST_LINEAR + 2) /* + zero bucket + overflow */

/* Size limits; interfaces, queues and groups past them share an overflow slot. */
#define RXLAT_MAX_IFACES_DEFAULT 16
#define RXLAT_MAX_QUEUES_DEFAULT 16
#define RXLAT_MAX_GROUPS_DEFAULT 32
#define RXLAT_MAX_IFACES_LIMIT	 256
#define RXLAT_MAX_QUEUES_LIMIT	 256
#define RXLAT_MAX_GROUPS_LIMIT	 256
/*
 * The most series (stages x groups x interfaces x queues) a run may have:
 * the series table takes 8 bytes a series (4 MiB), the model walks it.
 */
#define RXLAT_MAX_SERIES (1u << 19)

/*
 * --by: where a sample was taken, besides the interface and queue where its
 * packet was stamped. A packet stamped on an interface of rxlat's namespace
 * and forwarded or bridged into another namespace (a container's) is also
 * measured there, in a group of its own:
 *   NONE:   only the stages of rxlat's own namespace;
 *   NETNS:  also the stages of the other namespaces, one group per namespace;
 *   CGROUP: as NETNS, and the socket stages grouped by the receiving
 *           socket's cgroup v2 (the container), in every namespace.
 * Group slot 0 is rxlat's own namespace; slots 1 .. max_groups are claimed
 * by the hooks with a group key; slot max_groups + 1 takes the overflow.
 * With NONE, max_groups is 0 and slot 0 is the only one.
 */
enum rxlat_by {
	RXLAT_BY_NONE = 0,
	RXLAT_BY_NETNS = 1,
	RXLAT_BY_CGROUP = 2,
};

/*
 * A group's key: the namespace's cookie, and with --by cgroup the receiving
 * socket's cgroup id (0 at the stages without a socket). The cookie, not
 * the inode: the kernel gives a freed namespace inode to the next
 * namespace at once, while a cookie is never given out twice. A cgroup
 * shared by sockets of several namespaces is one group per namespace.
 */
struct rxlat_group_key {
	__u64 netns_cookie;
	__u64 cgid;
};

/* One record of the namespace cookie iterator (collector/attach/groups/netns_cookie.bpf.c). */
struct rxlat_netns_fd {
	__u32 fd;
	__u32 ino;
	__u64 cookie;
};

/* Per-CPU: the group key a hook saw last, and its slot (see group_slot()). */
struct rxlat_group_last {
	struct rxlat_group_key key;
	__u32 slot;
	__u32 gen; /* rxlat_bpf_state.group_gen when it was cached */
};

/*
 * An interface slot's key: the ifindex, and in the upper half the namespace
 * of a stamp taken in another namespace than rxlat's (0 for its own).
 */
static inline __u64 rxlat_if_key(__u32 ifindex, __u32 netns)
{
	return (__u64)netns << 32 | ifindex;
}

/*
 * One latency series: (stage, group slot, interface slot, queue slot), index
 * rxlat_series_index(). The histograms are shared, mmap-able arrays (chunks,
 * see RXLAT_CHUNK_SERIES) rather than per-CPU ones: their size does not grow
 * with the number of CPUs (a per-CPU copy costs 1.9 KB per series per CPU),
 * user space reads them without a syscall,
 * and a per-queue series is mostly written by the one CPU that polls that
 * queue, so the atomic adds rarely contend (docs/output.md).
 */
struct rxlat_hist {
	__u64 buckets[RXLAT_HIST_BUCKETS];
	__u64 sum_ns;
	union {
		__u64 counts[RXLAT_NR_COUNTS];	 /* RXLAT_COUNTS */
		__u64 sources[RXLAT_NR_SOURCES]; /* the first of them */
	};
	__u64 max_ns[2]; /* largest sample, by parity of the report epoch */
};

/* The sizes of the series index's dimensions after the stage. */
struct rxlat_dims {
	__u32 max_groups, max_ifaces, max_queues;
};

/* Group slots: rxlat's namespace, max_groups more and the overflow; 1 with none. */
static inline __u32 rxlat_group_slots(__u32 max_groups)
{
	return max_groups ? max_groups + 2 : 1;
}

static inline __u32 rxlat_series_index(__u32 stage, __u32 gslot, __u32 ifslot, __u32 qslot,
				       struct rxlat_dims d)
{
	/* one extra interface slot and queue slot each take the overflow */
	return ((stage * rxlat_group_slots(d.max_groups) + gslot) * (d.max_ifaces + 1) + ifslot) *
		   (d.max_queues + 1) +
	       qslot;
}

static inline __u32 rxlat_nr_series(struct rxlat_dims d)
{
	return RXLAT_NR_STAGES * rxlat_group_slots(d.max_groups) * (d.max_ifaces + 1) *
	       (d.max_queues + 1);
}

/*
 * The series' histograms live in chunks of RXLAT_CHUNK_SERIES (117 KiB),
 * created as series come into use. Places claimed in a race and left empty
 * cost one each at most per series: twice the series cover them.
 */
#define RXLAT_CHUNK_SHIFT  6
#define RXLAT_CHUNK_SERIES (1u << RXLAT_CHUNK_SHIFT)

static inline __u32 rxlat_nr_chunks(__u32 nr_series)
{
	return (2 * nr_series + RXLAT_CHUNK_SERIES - 1) / RXLAT_CHUNK_SERIES;
}

/*
 * Configuration of the latency hooks (collector/attach/hooks/hooks.bpf.c), written by user
 * space between open and load into the one read-only instance rxlat_cfg: the
 * verifier sees the frozen values, and the hot path reads each field with one
 * load, as it read the separate variables this struct replaces.
 */
struct rxlat_bpf_config {
	__u32 max_ifaces;
	__u32 max_queues;
	__u32 max_groups; /* group slots besides rxlat's own namespace's */
	/*
	 * rxlat's own network namespace (its inode number). Interface indexes
	 * are per namespace: a stamp of another namespace (rxlat_meta.netns)
	 * is never taken for an interface of this one.
	 */
	__u32 netns_ino;
	/* With -i: only the interfaces user space put in rxlat_ifslots count. */
	__u8 ifaces_fixed;
	/*
	 * The kernel lets BPF load from memory reached through skb->head as
	 * a kernel type (bpf_rdonly_cast(), 6.2+: read-only untrusted memory,
	 * loads that cannot fault): the metadata is read without a helper
	 * call.
	 */
	__u8 direct_mem;
	__u8 by; /* enum rxlat_by: --by */
	/* --include-ooo: reads held behind out-of-order data are samples too */
	__u8 include_ooo;
	/* Address range of skb_consume_udp(), for the consume_skb fallback. */
	__u64 udp_consume_lo;
	__u64 udp_consume_hi;
	/*
	 * Filters (--proto, --port, --cgroup), applied before any map update:
	 * a field left 0 turns its filter off, and as the instance is read-only
	 * the verifier removes the code of a filter that is off.
	 */
	__u8 filter_proto;  /* IPPROTO_TCP or IPPROTO_UDP, 0: any */
	__u8 filter_ports;  /* only the local ports set in port_bits */
	__u8 filter_cgroup; /* only sockets of cgroup v2 cgroup_id */
	__u8 filters;	    /* any of the three: one load when all are off */
	/*
	 * The tcp_do_rcv programs also note out-of-order segments for
	 * sock_read (collector/attach/hooks/ooo.bpf.h), sparing a program per
	 * segment; 0: rxlat_tp_tcp_ooo does, or nothing needs it.
	 */
	__u8 ooo_at_do_rcv;
	/* napi_wait: RXLAT_NAPI_WAIT_* (the set its schedule programs are of) */
	__u8 napi_wait;
	__u8 from; /* enum rxlat_from: --from */
	/* out-of-order segments are noted (ooo_at_do_rcv or their own program) */
	__u8 ooo_notes;
	__u64 cgroup_id;
	__u64 port_bits[65536 / 64]; /* bit p: local port p wanted */
	/*
	 * --slow: samples from slow_ns up (0: off), and with --drops every drop,
	 * go to the ring buffer rxlat_slow as struct rxlat_slow_rec, at most
	 * 1e9 / slow_cost_ns a second per CPU (--slow-rate).
	 */
	__u64 slow_ns;
	__u64 slow_cost_ns;
	/*
	 * rxlat_tc_fwd has fwd_mask + 1 slots, shared with rxlat's tc stamper;
	 * 0: no tc stamper of rxlat's runs, no table to read. fwd_tag: this
	 * run's tag, in the RXLAT_FWD_TAG_BITS of a key above the slot bits.
	 */
	__u32 fwd_mask;
	/* possible CPUs: a napi_id up to this many is a sender's CPU + 1 (sender_cpu) */
	__u32 nr_cpus;
	__u64 fwd_tag;
};

/*
 * CLOCK_REALTIME - CLOCK_MONOTONIC as the hooks last saw it, and the value
 * before the last step of the realtime clock: a realtime stamp taken before
 * a step and read after it is converted with the offset it was taken with
 * (see realtime_start() in collector/attach/hooks/hooks.bpf.c).
 */
struct rxlat_clock {
	__s64 offs;	  /* offset seen last */
	__s64 prev;	  /* offset before the last step */
	__u64 prev_until; /* CLOCK_MONOTONIC when the step was first seen */
	__u64 steps;	  /* steps seen (realtime or TAI offset changes) */
};

/* What the latency hooks and user space both write: one instance in .bss. */
struct rxlat_bpf_state {
	/* Report epoch, advanced by user space at every report (see max_ns[]). */
	__u64 epoch;
	struct rxlat_clock clock; /* written by the hooks only */
	/* consume_skb calls from skb_consume_udp(): start-up check of the fallback */
	__u64 udp_read_seen;
	/* series places claimed (see series_hist()), and samples without one */
	__u32 series_used;
	__u32 pad;
	__u64 series_lost;
	/* --drops: drops not counted because rxlat_drops was full */
	__u64 drops_lost;
	/* advanced by user space when it releases a group slot */
	__u32 group_gen;
	__u32 pad2;
	/* group slots claimed so far: each claim's token (rxlat_group_owner[]) */
	__u64 group_claims;
};

/*
 * The tc ingress stamper (tc/rxlat_tc.bpf.c) keeps its stamp in skb->tstamp
 * as a CLOCK_REALTIME value, the type the socket layer expects there, with
 * the lowest nanosecond bit set; a kernel receive stamp it passes gets that
 * bit cleared. Where rxlat knows the tc stamper runs (rxlat_tc_ifaces), an
 * odd realtime stamp is the tc stamper's (see tc/README.md).
 */
#define RXLAT_TC_MARK 1ull

/*
 * The offset CLOCK_REALTIME - CLOCK_MONOTONIC that rxlat's tc stamper
 * wrote a stamp with, so that a hook turns the stamp back into its
 * monotonic time with one load, where converting it with the offset of
 * the moment takes three clock reads: the stamper puts the offsets it
 * stamps with in rxlat_tc_offs, which it shares with the hooks, and the
 * offset's index (its epoch, 1..7) in bits 1-3 of the stamp. The stamp
 * loses its lowest 4 bits of nanoseconds to the mark and the epoch: it
 * lies within 15 ns of the time it was taken. Epoch 0: the stamper had
 * no index for its offset (another CPU was adding one), and the hooks
 * convert the stamp as a kernel receive stamp. A new epoch is taken when
 * the offset changes (a step of the realtime clock); a stamp read after
 * seven more steps is converted with the offset of the last of them.
 */
#define RXLAT_TC_EPOCH_SHIFT 1
#define RXLAT_TC_EPOCHS	     8
#define RXLAT_TC_LOW_BITS    15ull /* the mark and the epoch */

struct rxlat_tc_offs {
	__s64 offs[RXLAT_TC_EPOCHS]; /* by epoch; [0] unused */
	__u32 cur;		     /* the newest epoch, 0 before the first stamp */
	__u32 pad;
};

/*
 * What the hooks know of a tc stamper on an interface (rxlat_tc_of[],
 * rxlat_tc_ifaces): marked stamps there are a stamper's, rxlat's own
 * (its offsets shared) or one that iproute2 loaded (converted with the
 * offset of the moment).
 */
#define RXLAT_TC_IF_FOREIGN 1
#define RXLAT_TC_IF_OWN	    2
#define RXLAT_TC_IF_WHOSE   3
/*
 * ... and a flag: a veth, whose skb->queue_mapping is the receive queue
 * itself (veth_xmit() records no receive queue, so the value is the
 * sender's transmit queue, the same index), not queue + 1 as
 * skb_record_rx_queue() leaves it.
 */
#define RXLAT_TC_IF_QUEUE_RAW 4

/*
 * A forwarded packet (one that leaves rxlat's namespace: routed or bridged
 * into a container, or out again) loses a realtime skb->tstamp at
 * ip_forward and at the namespace crossing. For such a packet the tc stamper writes a
 * monotonic delivery time instead, which both keep (until the receiving
 * namespace's ip_local_deliver), and puts the stamp itself, with the
 * interface and queue, in a table the hooks share (rxlat_tc_fwd): slot
 * key & fwd_mask holds the rxlat_meta of the packet whose skb->tstamp is
 * key. A key is a time before the stamp whose low bits name the slot
 * (below), so that it never lies in the future: a qdisc that reads
 * skb->tstamp as a departure time (fq) sends the packet at once, as it
 * would with no stamp. Each CPU takes the slots of its own range in turn,
 * RXLAT_FWD_SLOTS_CPU of them, so a slot is reused after that many
 * forwarded packets of one CPU, not when two stamps share low bits.
 */
#define RXLAT_FWD_SLOTS_CPU 2048u

/*
 * Above the slot bits a key holds a tag that rxlat picks at random for
 * each run (rxlat_cfg.fwd_tag): a monotonic delivery time that is not the
 * stamper's (a sender's departure time, over veth) has the tag's bits
 * by chance once in 256, and only then is the table read for it.
 */
#define RXLAT_FWD_TAG_BITS 8

static inline __u64 rxlat_fwd_tag_mask(__u32 fwd_mask)
{
	return ((__u64)fwd_mask + 1) * ((1u << RXLAT_FWD_TAG_BITS) - 1);
}

/*
 * A key is the latest time, RXLAT_FWD_KEY_AGE (8.6 s) or more before the
 * stamp, whose low bits hold the tag and the slot: at most 256 *
 * (fwd_mask + 1) ns more. No departure time that a sender sets is that
 * old when the packet arrives (a sender's lies around the moment it
 * sends, or after it), so a delivery time of this run's tag and of that
 * age is the stamper's for certain: one whose slot holds another key is a
 * stamp lost on the way (its slot reused while it waited), never a
 * sender's time taken for one. 0: no key can be had (the first seconds
 * after boot).
 */
#define RXLAT_FWD_KEY_AGE (1ull << 33)

static inline __u64 rxlat_fwd_key(__u64 now, __u64 tag_slot, __u32 fwd_mask)
{
	__u64 span = (__u64)fwd_mask | rxlat_fwd_tag_mask(fwd_mask), base;

	if (now <= RXLAT_FWD_KEY_AGE + span)
		return 0;
	base = now - RXLAT_FWD_KEY_AGE;
	return base - ((base - tag_slot) & span);
}

/* Whether the monotonic delivery time ts, seen at now, is a key of tag's. */
static inline int rxlat_fwd_is_key(__u64 ts, __u64 now, __u64 tag, __u32 fwd_mask)
{
	return (ts & rxlat_fwd_tag_mask(fwd_mask)) == tag && ts < now &&
	       now - ts >= RXLAT_FWD_KEY_AGE;
}

/*
 * sock_read of a forwarded packet: ip_local_deliver took its stamp from the
 * skb, and the application reads it whenever it likes, on any CPU. The
 * stage that queues it to the socket (udp_queue_rcv, tcp_do_rcv) keeps its
 * stamp in rxlat_fwd_sock, in a way of the set of the skb's address, for
 * sock_read, which frees the way. A set of 4 holds the packets of as many
 * slab pages whose addresses fall on the same set (a socket with thousands
 * of skbs queued spans hundreds of pages); past that, the way with the
 * oldest stamp is taken. Every packet of another namespace passes that
 * stage before it is read, and frees a way that an earlier skb at its
 * address left; a way that another skb took since gives sock_read no
 * stamp, never a wrong one.
 */
/*
 * The notes of forwarded TCP segments between ip_rcv and their TCP stages
 * (rxlat_carry_tcp in collector/attach/hooks/hooks.bpf.c): an LRU hash that
 * holds the segments of as many waiting in sockets' backlogs at once
 * (about 100 bytes each: 3 MiB).
 */
#define RXLAT_CARRY_TCP 32768

#define RXLAT_FWD_SOCK_WAYS 4
#define RXLAT_FWD_SOCK_SETS (1u << 12)

struct rxlat_fwd_sock { /* 32 bytes */
	__u64 skb;	/* 0: a free way */
	__u32 head;	/* low bits of skb->head */
	__u32 ifindex;	/* the stamp's, as struct rxlat_meta has them */
	__u32 netns;
	__u16 rx_queue;
	__u16 flags;
	__u64 stamp;
};

struct rxlat_fwd_sock_set { /* 128 bytes, two cache lines: 512 KiB in all */
	struct rxlat_fwd_sock way[RXLAT_FWD_SOCK_WAYS];
};

/*
 * Whether a packet is forwarded, the tc stamper tells from its destination:
 * one of the namespace's own addresses (rxlat_tc_local, kept by rxlat from
 * rtnetlink), a multicast or the limited broadcast address, is delivered
 * here; any other is routed on, bridged to a container, or dropped. IPv4
 * addresses are keyed as IPv4-mapped IPv6 (::ffff:a.b.c.d). Room for a
 * node whose kube-proxy puts every service address on a dummy interface;
 * allocated as addresses come.
 */
#define RXLAT_LOCAL_ADDRS 65536

struct rxlat_addr_key {
	__u8 a[16];
};

struct rxlat_fwd_slot {
	__u64 key; /* skb->tstamp of the packet */
	struct rxlat_meta m;
};

/*
 * rxlat's own tc filter (netlink attach, kernels without tcx links): one
 * priority and handle, so that rxlat finds it again and never touches a
 * filter it did not create.
 */
#define RXLAT_TC_PRIO	1
#define RXLAT_TC_HANDLE 0x52584c54u /* "RXLT" */

/*
 * Interface indexes below this find their slot in a flat array of the hooks
 * (rxlat_ifslot_of[], 8 KiB), the others in the hash rxlat_ifslots.
 */
#define RXLAT_IFINDEX_DIRECT 4096
#define RXLAT_IFSLOT_SKIP    0xffff /* an interface -i leaves out */

/*
 * --drops: stamped packets of rxlat's namespace that the kernel freed with a
 * drop reason (tracepoint kfree_skb), per interface, queue and reason, with
 * the time from the stamp to the drop. A hash map of RXLAT_DROP_ENTRIES; the
 * reason is the kernel's enum skb_drop_reason value, named from its BTF.
 */
#define RXLAT_DROP_ENTRIES 1024

struct rxlat_drop_key {
	__u32 ifindex;
	__u32 queue;
	__u32 reason;
	__u32 if_netns; /* the stamp's namespace when not rxlat's, else 0 */
};

struct rxlat_drop { /* the count is the sum of the buckets */
	__u64 sum_ns;
	__u64 max_ns;
	__u64 buckets[RXLAT_HIST_BUCKETS];
};

/*
 * --slow: one record per slow sample or drop. Addresses in network order
 * (IPv4 in the first 4 bytes), ports in host order; family 0 when the
 * headers could not be read.
 */
#define RXLAT_SLOW_DROP 0xff /* stage of a drop record */

struct rxlat_slow_rec {
	__u64 time_ns;	  /* CLOCK_MONOTONIC when the hook ran */
	__u64 latency_ns; /* from the stamp to the stage (or the drop) */
	__u32 ifindex;
	__u32 if_netns; /* the stamp's namespace when not rxlat's, else 0 */
	__u32 netns;	/* where the stage ran when not rxlat's namespace, else 0 */
	__u32 queue;
	__u32 cpu;
	__u32 reason; /* drops: the kernel's drop reason */
	__u8 stage;   /* enum rxlat_stage, or RXLAT_SLOW_DROP */
	__u8 source;  /* enum rxlat_source */
	__u8 family;  /* 4, 6, or 0 */
	__u8 proto;
	__u16 sport;
	__u16 dport;
	__u8 saddr[16];
	__u8 daddr[16];
};

/*
 * Per-CPU token bucket of --slow-rate and its exact counts: every sample
 * over the threshold is either sent, suppressed (no token) or lost (ring
 * buffer full: user space fell behind).
 */
struct rxlat_slow_cpu {
	__u64 last_ns;	 /* when credit was last topped up */
	__u64 credit_ns; /* tokens, in ns of refill time; at most 1 s */
	__u64 sent;
	__u64 suppressed;
	__u64 lost;
};

/* Interface slot table value (key: rxlat_if_key()). */
struct rxlat_ifslot {
	__u32 slot;
	__u32 pad;
};

#endif /* RXLAT_H */
