/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filters of the latency hooks (--proto, --port, --cgroup), included by
 * hooks.bpf.c after rxlat_cfg. Each stage program asks one of them before it
 * records anything. rxlat_cfg is read-only: with every filter off, each
 * function below is one load of rxlat_cfg.filters and "return true" by the
 * time the verifier is done with it (it drops dead branches, not the loads
 * that decide them: hence one flag rather than three).
 *
 * Stages with a socket take the protocol and the local port from it (exact
 * also for TCP skbs whose headers were pulled); ip_rcv has no socket yet and
 * reads the IP and transport headers; the consume_skb fallback of UDP reads
 * has lost the socket and reads the transport header.
 */
#ifndef RXLAT_FILTERS_BPF_H
#define RXLAT_FILTERS_BPF_H

static __always_inline bool filters_off(void)
{
	return !rxlat_cfg.filters;
}

/* One load and a mask: no loop, whatever the number of ports. */
static __always_inline bool port_wanted(__u16 port)
{
	return rxlat_cfg.port_bits[(port >> 6) & (65536 / 64 - 1)] & (1ull << (port & 63));
}

/* The socket's cgroup v2: the cgroup of the task that created it. */
static __always_inline bool cgroup_wanted(struct sock *sk)
{
	return BPF_CORE_READ(sk, sk_cgrp_data.cgroup, kn, id) == rxlat_cfg.cgroup_id;
}

/* For stages that have the receiving socket; pr: a kprobe's (KREAD()). */
static __always_inline bool filter_sk(struct sock *sk, bool pr)
{
	if (filters_off())
		return true;
	if (rxlat_cfg.filter_proto && KREAD(pr, sk, sk_protocol) != rxlat_cfg.filter_proto)
		return false;
	if (rxlat_cfg.filter_ports && !port_wanted(KREAD(pr, sk, __sk_common.skc_num)))
		return false;
	if (rxlat_cfg.filter_cgroup && !cgroup_wanted(sk))
		return false;
	return true;
}

/* Destination port at l4, or 0 when it cannot be read. */
static __always_inline __u16 l4_dport(const unsigned char *l4)
{
	__be16 ports[2];

	if (bpf_probe_read_kernel(ports, sizeof(ports), l4))
		return 0;
	return bpf_ntohs(ports[1]);
}

/*
 * ip_rcv: the IP header starts at skb->data. IPv6 extension headers are not
 * walked, and an IPv4 fragment other than the first has no port: with
 * --port they do not match.
 */
static __always_inline bool filter_ip(const struct sk_buff *skb)
{
	unsigned char *nh = skb->data;
	__u8 proto;
	__u16 port;

	if (filters_off())
		return true;
	if (rxlat_cfg.filter_cgroup) /* no socket yet */
		return false;
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		struct iphdr ip;

		if (bpf_probe_read_kernel(&ip, sizeof(ip), nh))
			return false;
		proto = ip.protocol;
		if (rxlat_cfg.filter_ports && (ip.frag_off & bpf_htons(0x1fff)))
			return false;
		nh += ip.ihl * 4;
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr ip6;

		if (bpf_probe_read_kernel(&ip6, sizeof(ip6), nh))
			return false;
		proto = ip6.nexthdr;
		nh += sizeof(ip6);
	} else {
		return false;
	}
	if (rxlat_cfg.filter_proto && proto != rxlat_cfg.filter_proto)
		return false;
	if (rxlat_cfg.filter_ports) {
		if (proto != IPPROTO_TCP_ && proto != IPPROTO_UDP_)
			return false;
		port = l4_dport(nh);
		if (!port || !port_wanted(port))
			return false;
	}
	return true;
}

/*
 * The consume_skb fallback of UDP reads: the skb no longer points to its
 * socket. The port comes from the UDP header, the cgroup is the reading
 * task's.
 */
static __always_inline bool filter_udp_read(const struct sk_buff *skb)
{
	__u16 port;

	if (filters_off())
		return true;
	if (rxlat_cfg.filter_proto && rxlat_cfg.filter_proto != IPPROTO_UDP_)
		return false;
	if (rxlat_cfg.filter_ports) {
		port = l4_dport(skb->head + skb->transport_header);
		if (!port || !port_wanted(port))
			return false;
	}
	if (rxlat_cfg.filter_cgroup && bpf_get_current_cgroup_id() != rxlat_cfg.cgroup_id)
		return false;
	return true;
}

#endif /* RXLAT_FILTERS_BPF_H */
