// SPDX-License-Identifier: GPL-2.0
/*
 * Reference programs for bench/bench.sh, at the attach points of the
 * hooks' fallback set: per point an empty program (what running any
 * program there costs, bpf_stats included) and a floor program (one clock
 * read and one atomic add to an array slot: the least a latency hook can
 * do). A hook's net cost is its ns per run minus the empty program's; the
 * issue's target is at most 1.5x the floor's net cost. Beside them a stamp
 * floor: the floor plus reading the XDP stamp from the skb as the hooks do
 * where the kernel allows plain loads through skb->head (6.17+; elsewhere
 * rxlat-bench-floor leaves them out), which every hook must do and the
 * floor does not. bench/bench_floor.c loads and attaches them all.
 *
 * Program names stay within 15 characters, the kernel's limit, so that
 * bpftool and bpf_prog_info show them whole.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "rxlat.h"

char LICENSE[] SEC("license") = "GPL";

extern void *bpf_cast_to_kern_ctx(void *) __ksym;

/* one slot per program, a cache line apart, so the floors never share one */
#define SLOT_STRIDE 8

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 16 * SLOT_STRIDE);
	__type(key, __u32);
	__type(value, __u64);
} bench_floor_slots SEC(".maps");

static __always_inline void floor_add(__u32 slot)
{
	__u32 key = slot * SLOT_STRIDE;
	__u64 *v = bpf_map_lookup_elem(&bench_floor_slots, &key);

	if (v)
		__sync_fetch_and_add(v, bpf_ktime_get_ns());
}

/*
 * The clock, the stamp (metadata length, then the rxlat_meta before the
 * MAC header) and one atomic add of the latency.
 */
static __always_inline void stamp_add(const struct sk_buff *skb, __u32 slot)
{
	const unsigned char *head = skb->head;
	const struct skb_shared_info *shinfo = (const void *)(head + skb->end);
	const struct rxlat_meta *m;
	__u16 mac = skb->mac_header;
	__u64 now = bpf_ktime_get_ns(), *v;
	__u32 key = slot * SLOT_STRIDE;

	if (mac == (__u16)~0U || shinfo->meta_len < sizeof(*m))
		return;
	m = (const void *)(head + mac - sizeof(*m));
	if (m->magic != RXLAT_META_MAGIC)
		return;
	v = bpf_map_lookup_elem(&bench_floor_slots, &key);
	if (v)
		__sync_fetch_and_add(v, now - rxlat_meta_stamp(m));
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(stamp_ip_rcv, struct sk_buff *skb)
{
	stamp_add(skb, 8);
	return 0;
}

SEC("tp_btf/tcp_probe")
int BPF_PROG(stamp_tcp_do, struct sock *sk, struct sk_buff *skb)
{
	(void)sk;
	stamp_add(skb, 9);
	return 0;
}

SEC("cgroup_skb/ingress")
int stamp_udp_q(struct __sk_buff *ctx)
{
	stamp_add(bpf_cast_to_kern_ctx(ctx), 10);
	return 1;
}

SEC("tp_btf/consume_skb")
int BPF_PROG(stamp_udp_read, struct sk_buff *skb)
{
	stamp_add(skb, 11);
	return 0;
}

SEC("tp_btf/skb_copy_datagram_iovec")
int BPF_PROG(stamp_sock_rd, const struct sk_buff *skb)
{
	stamp_add(skb, 12);
	return 0;
}

/* ip_rcv fallback: tp_btf netif_receive_skb */
SEC("tp_btf/netif_receive_skb")
int empty_ip_rcv(void *ctx)
{
	(void)ctx;
	return 0;
}

SEC("tp_btf/netif_receive_skb")
int floor_ip_rcv(void *ctx)
{
	(void)ctx;
	floor_add(0);
	return 0;
}

/* tcp_do_rcv fallback: tp_btf tcp_probe */
SEC("tp_btf/tcp_probe")
int empty_tcp_do(void *ctx)
{
	(void)ctx;
	return 0;
}

SEC("tp_btf/tcp_probe")
int floor_tcp_do(void *ctx)
{
	(void)ctx;
	floor_add(1);
	return 0;
}

/* udp_queue_rcv fallback: cgroup_skb ingress (1: let the packet through) */
SEC("cgroup_skb/ingress")
int empty_udp_q(struct __sk_buff *skb)
{
	(void)skb;
	return 1;
}

SEC("cgroup_skb/ingress")
int floor_udp_q(struct __sk_buff *skb)
{
	(void)skb;
	floor_add(2);
	return 1;
}

/* sock_read fallback for UDP: tp_btf consume_skb */
SEC("tp_btf/consume_skb")
int empty_udp_read(void *ctx)
{
	(void)ctx;
	return 0;
}

SEC("tp_btf/consume_skb")
int floor_udp_read(void *ctx)
{
	(void)ctx;
	floor_add(3);
	return 0;
}

/* sock_read for TCP: tp_btf skb_copy_datagram_iovec */
SEC("tp_btf/skb_copy_datagram_iovec")
int empty_sock_rd(void *ctx)
{
	(void)ctx;
	return 0;
}

SEC("tp_btf/skb_copy_datagram_iovec")
int floor_sock_rd(void *ctx)
{
	(void)ctx;
	floor_add(4);
	return 0;
}

/* the classic tracepoint bpftrace attaches to, for its own empty figure */
SEC("tracepoint/net/netif_receive_skb")
int empty_tp_rcv(void *ctx)
{
	(void)ctx;
	return 0;
}
