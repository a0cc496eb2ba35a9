/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A network namespace's identity for --by: its cookie, which no later
 * namespace takes (struct net's u64 net_cookie, set when the namespace is
 * made, 5.12+). Before, net_cookie is an atomic64_t that the kernel sets
 * only when something first asks for it (net_gen_cookie()), 0 until then;
 * there rxlat takes the namespace's inode with the top bit set, which a
 * namespace made after this one is freed may have too. The hooks and the
 * cookie iterator (collector/attach/groups/netns_cookie.bpf.c) agree on it.
 *
 * BPF: include after vmlinux.h.
 */
#ifndef RXLAT_NET_BPF_H
#define RXLAT_NET_BPF_H

#include <bpf/bpf_core_read.h>

struct net___lazy_cookie {
	atomic64_t net_cookie;
} __attribute__((preserve_access_index));

#define rxlat_net_cookie_lazy(net) \
	bpf_core_field_exists(((struct net___lazy_cookie *)(net))->net_cookie.counter)
#define RXLAT_INODE_COOKIE(ino) (1ull << 63 | (__u64)(ino))

#endif /* RXLAT_NET_BPF_H */
