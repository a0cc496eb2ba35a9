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
 * Where the XDP stamper goes is stamping.c's decision; this module loads
 * it, attaches it where it is told, and says what it finds.
 *
 * Loads rxlat's XDP stamper, attached to no interface yet: 0 or -errno
 * (said).
 */
int stamper_load(struct rxlat_stamper **out, const struct rxlat_config *cfg);
/*
 * What holds ifindex's XDP hook: 0 free; 1 another program, why it is
 * taken in why, and how to stamp in XDP all the same in hint ("": no way),
 * nothing said; -EBUSY another rxlat stamper (said, with the way to read
 * its stamps).
 */
int stamper_xdp_holder(__u32 ifindex, const char *ifname, char *why, size_t why_len, char *hint,
		       size_t hint_len);
/*
 * Attaches the poll-end reset beside st's batch map, once the stamper is
 * attached or found: 0 or -errno, said.
 */
int stamper_attach_reset(struct rxlat_stamper *st);
int stamper_find(struct rxlat_stamper **out, bool quiet);
/* Does rxlat's own stamper run on named interface i (not one found)? */
bool stamper_attached(const struct rxlat_stamper *st, int i);
/* Is st a stamper loaded without rxlat (--no-xdp)? */
bool stamper_found(const struct rxlat_stamper *st);
/* May a detach turn offloads back on (xdp_device.h), which takes CAP_NET_ADMIN? */
bool stamper_restores(const struct rxlat_stamper *st);
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
 * Named interface i (of cfg) is gone: its link is closed. Attached to
 * ifindex (at start, or the interface came back): 0, -EOPNOTSUPP when rxlat
 * did not load the stamper itself (--no-xdp), or -errno (not said).
 */
void stamper_detach_iface(struct rxlat_stamper *st, int i);
int stamper_attach_iface(struct rxlat_stamper *st, const struct rxlat_config *cfg, int i,
			 __u32 ifindex);

#endif
