/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RXLAT_STAMPER_H
#define RXLAT_STAMPER_H

#include <stdbool.h>
#include <stddef.h>
#include "config.h"

/*
 * stamper.c: the XDP stamper, attached by rxlat or found when --no-xdp
 * (stamper_find.c), and the poll-end reset of its batch stamps, attached
 * whenever there is one.
 */
struct rxlat_stamper;
/*
 * Attaches the XDP stamper to the named interfaces; use_tc[i] is set for
 * each where another program holds XDP or the stamper cannot attach (said
 * in one line). *out is NULL when no interface has it.
 */
int stamper_attach(struct rxlat_stamper **out, const struct rxlat_config *cfg, bool use_tc[],
		   bool tc_default[]);
int stamper_find(struct rxlat_stamper **out, bool quiet);
/* Does rxlat's own stamper run on named interface i (not one found)? */
bool stamper_attached(const struct rxlat_stamper *st, int i);
/* Is st a stamper loaded without rxlat (--no-xdp)? */
bool stamper_found(const struct rxlat_stamper *st);
/*
 * A found stamper (--no-xdp): the first interface where the XDP program it
 * ran as is gone (its loader let go), with the id of what runs there now
 * in *now_id (0: nothing); 0 while they all run. stamper_found_adopt()
 * takes now_id as that interface's stamper from then on.
 */
__u32 stamper_found_gone(const struct rxlat_stamper *st, __u32 *now_id);
void stamper_found_adopt(struct rxlat_stamper *st, __u32 ifindex, __u32 xdp_id);
/* Sum the per-CPU counters per (ifindex, queue); *keys and *vals are malloc'ed. */
int stamper_counters(const struct rxlat_stamper *st, struct rxlat_xdp_key **keys,
		     struct rxlat_xdp_counters **vals, size_t *n);
void stamper_destroy(struct rxlat_stamper *st);
/*
 * Named interface i (of cfg) is gone: its link is closed. Attached again to
 * ifindex (the interface came back): 0, -EOPNOTSUPP when rxlat
 * did not attach the stamper itself (--no-xdp), or -errno.
 */
void stamper_detach_iface(struct rxlat_stamper *st, int i);
int stamper_reattach(struct rxlat_stamper *st, const struct rxlat_config *cfg, int i,
		     __u32 ifindex);

#endif
