/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RXLAT_HOOKS_H
#define RXLAT_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "config.h"
#include "series.h"
#include "series_store.h"
#include "tc.h"

/*
 * The latency hooks, one attach point per stage: the plan (plan.h:
 * hooks_probe.c finds what the kernel offers, plan.c decides), the loader
 * (hooks_load.c) and the series store (hooks_store.c).
 */
struct rxlat_hooks;
struct rxlat_hooks_info {
	const char *attach[RXLAT_NR_STAGES];	   /* "fentry:tcp_v4_do_rcv,..." */
	const char *unavailable[RXLAT_NR_STAGES];  /* why a wanted stage is off */
	const char *fallback_why[RXLAT_NR_STAGES]; /* why fentry was not used */
	/* per stage, the protocols it measures, and why not the others */
	struct rxlat_coverage coverage[RXLAT_NR_STAGES];
	/* where the texts above are written: they live as long as the info */
	char attach_buf[RXLAT_NR_STAGES][96];
	char reason_buf[RXLAT_NR_STAGES][320];
};
/* The attach points decided and the hooks loaded, nothing attached (--list-stages). */
int hooks_plan(const struct rxlat_config *cfg, struct rxlat_hooks_info *info);
int hooks_attach(struct rxlat_hooks **out, const struct rxlat_config *cfg,
		 struct rxlat_hooks_info *info);
/*
 * Where the series' histograms are (series_store.h): the tables themselves,
 * valid until hooks_destroy(), read by the model.
 */
struct series_store hooks_series_store(const struct rxlat_hooks *h);
/*
 * Create histogram chunks while the series in use come close to filling
 * those there are; call it often (each report, each second). 0 or -errno.
 */
int hooks_grow(struct rxlat_hooks *h);
/*
 * Where BPF cannot read the kernel's realtime offset (hooks_clock.c), the
 * offset the programs convert with, taken again when it moved: call it
 * before attaching and every second. 0 or -errno.
 */
int hooks_clock(struct rxlat_hooks *h);
bool hooks_user_clock(void);
/*
 * Whether a tc stamp can outlive forwarding and a move into another
 * namespace: a monotonic delivery time (bpf_skb_set_tstamp(), 5.18).
 */
bool hooks_fwd_stamps(void);
/* Samples that found no histogram (their chunk not created in time). */
__u64 hooks_series_lost(const struct rxlat_hooks *h);
/* the key (rxlat_if_key()) of each interface slot in use, 0 where free; returns count */
int hooks_ifslots(const struct rxlat_hooks *h, __u64 *key_of_slot, __u32 nslots);
/* each of n group slots' claim token and namespace inode (--by), 0 where free */
void hooks_groups(const struct rxlat_hooks *h, __u64 *token, __u32 *netns, __u32 n);
/*
 * The key of group slot slot into *key: true once the claim with token is
 * complete (the hooks find the slot by that key), false while it is not,
 * or when the slot has another owner by now.
 */
bool hooks_group_key(const struct rxlat_hooks *h, __u32 slot, __u64 token,
		     struct rxlat_group_key *key);
/* Group slot slot (1 .. max_groups) is free again: 0 or -EINVAL. */
int hooks_release_group(struct rxlat_hooks *h, __u32 slot);
/*
 * Interface slot slot is free again for the next interface that records
 * (its owner is gone), and interfaces that had found every slot taken look
 * for one again. 0 or -EINVAL.
 */
int hooks_release_ifslot(struct rxlat_hooks *h, __u32 slot);
void hooks_new_epoch(struct rxlat_hooks *h, __u64 *old_epoch);
/* Interface slot of ifindex from now belongs to ifindex to: 0 or -errno. */
int hooks_move_ifslot(struct rxlat_hooks *h, __u32 from, __u32 to);
size_t hooks_map_bytes(const struct rxlat_hooks *h);
/*
 * Realtime stamps on ifindex with the tc mark are a tc stamper's, whose:
 * RXLAT_TC_IF_OWN, RXLAT_TC_IF_FOREIGN (include/rxlat.h), or 0: none.
 */
int hooks_tc_iface(struct rxlat_hooks *h, __u32 ifindex, __u8 whose);
/*
 * No out-of-order notes on this kernel (tracing programs have no socket
 * storage before 5.11): TCP reads held behind out-of-order data are
 * samples of sock_read, as with --include-ooo.
 */
bool hooks_ooo_unknown(const struct rxlat_hooks *h);
/* The tables the tc stamper shares with the hooks (tc.h). */
void hooks_tc_share(const struct rxlat_hooks *h, struct rxlat_tc_share *s);
/* --drops: the drop map's fd (-1 without), and drops it had no room for. */
int hooks_drops_fd(const struct rxlat_hooks *h);
__u64 hooks_drops_lost(const struct rxlat_hooks *h);
/* --slow: the ring buffer's fd, and its per-CPU counts summed. */
int hooks_slow_fd(const struct rxlat_hooks *h);
int hooks_slow_counts(const struct rxlat_hooks *h, __u64 *sent, __u64 *suppressed, __u64 *lost);
void hooks_destroy(struct rxlat_hooks *h);

#endif
