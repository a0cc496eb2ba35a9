/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RXLAT_TC_H
#define RXLAT_TC_H

#include <stdbool.h>
#include <linux/types.h>
#include "config.h"

/* the stamper's entry program, as iproute2 loads it too */
#define TC_PROG_NAME "rxlat_tc"

/*
 * tc.c: the tc ingress stamper, per named interface i of the config: a tcx
 * link, else a cls_bpf filter of rxlat's own, or a filter running the
 * stamper that iproute2 loaded (used, never touched).
 */
enum rxlat_tc_how { RXLAT_TC_NONE, RXLAT_TC_TCX, RXLAT_TC_FILTER, RXLAT_TC_FOREIGN };
struct rxlat_tc;
/*
 * The hooks' tables that the stamper shares (include/rxlat.h): the stamps
 * of forwarded packets (fwd_fd, fwd_mask, fwd_tag; fwd_fd -1: none), and
 * the clock offsets it stamps with (offs_fd; -1: its own), and napi_wait's
 * state (napi_wait: the hooks' RXLAT_NAPI_WAIT_*, 0: off, the fds -1; from:
 * --from), from which the stamper finds each packet's poll.
 */
struct rxlat_tc_share {
	int fwd_fd;
	__u32 fwd_mask;
	__u64 fwd_tag;
	int offs_fd;
	__u8 napi_wait;
	__u8 from;
	int napi_sched_fd;
	int softirq_round_fd;
	int poll_from_fd;
};

/* Loads the stamper for the interfaces of namespace netns (its inode). */
int tc_open(struct rxlat_tc **out, __u32 netns, const struct rxlat_tc_share *share);
/* RXLAT_TC_NONE when it cannot be attached (said). */
enum rxlat_tc_how tc_attach(struct rxlat_tc *t, int i, __u32 ifindex, const char *ifname);
/*
 * Whether ifindex's skb->queue_mapping is its receive queue itself (a
 * veth, include/rxlat.h RXLAT_TC_IF_QUEUE_RAW), for the stamps of
 * forwarded packets; nothing for a stamper iproute2 loaded.
 */
void tc_queue_raw(struct rxlat_tc *t, __u32 ifindex, bool raw);
/* gone: the interface was deleted, and its filter with it. */
void tc_detach(struct rxlat_tc *t, int i, bool gone);
/* Can the tc stamper be attached to ifindex through a tcx link (6.6+)? */
bool tc_has_tcx(__u32 ifindex);
/* Are filters attached through netlink (removing them needs CAP_NET_ADMIN)? */
bool tc_netlink(const struct rxlat_tc *t);
/* The stamper's set of the namespace's addresses (links_track_addrs()), or -1. */
int tc_addrs_fd(const struct rxlat_tc *t);
void tc_destroy(struct rxlat_tc *t);

#endif
