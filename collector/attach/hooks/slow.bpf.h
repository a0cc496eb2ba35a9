/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --slow: records of single slow samples (and, with --drops, of drops)
 * through a ring buffer. Included by hooks.bpf.c before record(). With
 * --slow off, slow_record() is empty once the verifier has read the
 * frozen rxlat_cfg.slow_ns.
 *
 * A record costs a ring buffer reservation and a read of the headers, so
 * a per-CPU token bucket (--slow-rate) caps how many a CPU sends; every
 * sample over the threshold is counted as sent, suppressed or lost, so
 * that nothing is hidden when user space falls behind. The datapath never
 * waits: a full ring buffer fails the reservation at once.
 */
#ifndef RXLAT_SLOW_BPF_H
#define RXLAT_SLOW_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096); /* set by user space */
} rxlat_slow SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_slow_cpu);
} rxlat_slow_cpus SEC(".maps");

/* A token of this CPU's bucket, else the suppression counted. */
static __always_inline bool slow_token(struct rxlat_slow_cpu *c, __u64 now)
{
	__u64 credit = c->credit_ns + (now - c->last_ns);

	c->last_ns = now;
	if (credit > 1000000000ull) /* a burst of at most one second's rate */
		credit = 1000000000ull;
	if (credit < rxlat_cfg.slow_cost_ns) {
		c->credit_ns = credit;
		c->suppressed++;
		return false;
	}
	c->credit_ns = credit - rxlat_cfg.slow_cost_ns;
	return true;
}

/*
 * The 5-tuple: ip_rcv runs before the network header is set (the IP header
 * starts at skb->data), later points have it set and skb->data moved on.
 */
static __always_inline void slow_tuple(const struct sk_buff *skb, struct rxlat_slow_rec *r, bool pr)
{
	unsigned char *head = KREAD(pr, skb, head), *nh = KREAD(pr, skb, data);
	__u16 mac = KREAD(pr, skb, mac_header), net = KREAD(pr, skb, network_header);
	__u8 ver;

	if (mac != (__u16)~0U && net > mac)
		nh = head + net;
	if (bpf_probe_read_kernel(&ver, 1, nh))
		return;
	if ((ver >> 4) == 4) {
		struct iphdr ip;

		if (bpf_probe_read_kernel(&ip, sizeof(ip), nh))
			return;
		r->family = 4;
		r->proto = ip.protocol;
		__builtin_memcpy(r->saddr, &ip.saddr, 4);
		__builtin_memcpy(r->daddr, &ip.daddr, 4);
		if (ip.frag_off & bpf_htons(0x1fff))
			return;
		nh += ip.ihl * 4;
	} else if ((ver >> 4) == 6) {
		struct ipv6hdr ip6;

		if (bpf_probe_read_kernel(&ip6, sizeof(ip6), nh))
			return;
		r->family = 6;
		r->proto = ip6.nexthdr;
		__builtin_memcpy(r->saddr, &ip6.saddr, 16);
		__builtin_memcpy(r->daddr, &ip6.daddr, 16);
		nh += sizeof(ip6);
	} else {
		return;
	}
	if (r->proto == IPPROTO_TCP_ || r->proto == IPPROTO_UDP_) {
		__be16 ports[2];

		if (!bpf_probe_read_kernel(ports, sizeof(ports), nh)) {
			r->sport = bpf_ntohs(ports[0]);
			r->dport = bpf_ntohs(ports[1]);
		}
	}
}

static __always_inline void slow_send(const struct sk_buff *skb, __u32 stage, __u64 lat, __u64 now,
				      __u32 ifindex, __u32 queue, __u32 src, __u32 reason,
				      __u32 if_netns, __u32 netns, bool pr)
{
	struct rxlat_slow_cpu *c;
	struct rxlat_slow_rec *r;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&rxlat_slow_cpus, &zero);
	if (!c || !slow_token(c, now))
		return;
	r = bpf_ringbuf_reserve(&rxlat_slow, sizeof(*r), 0);
	if (!r) {
		c->lost++;
		return;
	}
	__builtin_memset(r, 0, sizeof(*r));
	r->time_ns = now;
	r->latency_ns = lat;
	r->ifindex = ifindex;
	r->if_netns = if_netns;
	r->netns = netns;
	r->queue = queue;
	r->cpu = bpf_get_smp_processor_id();
	r->reason = reason;
	r->stage = stage;
	r->source = src;
	slow_tuple(skb, r, pr);
	bpf_ringbuf_submit(r, 0);
	c->sent++;
}

/* From record(), once the latency is known. */
static __always_inline void slow_record(const struct sk_buff *skb, __u32 stage, __u64 lat,
					__u64 now, __u32 ifindex, __u32 queue, __u32 src,
					__u32 if_netns, __u32 netns, bool pr)
{
	if (!rxlat_cfg.slow_ns || lat < rxlat_cfg.slow_ns)
		return;
	slow_send(skb, stage, lat, now, ifindex, queue, src, 0, if_netns, netns, pr);
}

#endif /* RXLAT_SLOW_BPF_H */
