/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interfaces that come and go while rxlat runs, from rtnetlink's link
 * group (RTMGRP_LINK) of rxlat's network namespace; and the namespace's
 * own addresses, kept in the tc stamper's set (include/rxlat.h,
 * RXLAT_LOCAL_ADDRS) from its address groups.
 */
#ifndef RXLAT_LINKS_H
#define RXLAT_LINKS_H

#include <stdbool.h>
#include <linux/types.h>

struct rxlat_links;

/*
 * Called for each link message: new (or changed) or deleted, with its name
 * and kind ("veth", "vxlan", ...; NULL: a physical device), if the message
 * has them.
 */
typedef void (*links_cb)(void *ctx, bool deleted, __u32 ifindex, const char *name,
			 const char *kind);

/* Subscribes to link messages: 0 or -errno, printed. */
int links_open(struct rxlat_links **out);
int links_fd(const struct rxlat_links *l);
/*
 * Reads what is queued, calling cb for each link message. 1 when messages
 * were lost (the socket's buffer overflowed: look the interfaces up again),
 * else 0, or -errno.
 */
int links_read(struct rxlat_links *l, links_cb cb, void *ctx);
void links_close(struct rxlat_links *l);
/* cb for every link of the namespace, as they are now: 0 or -errno. */
int links_dump(links_cb cb, void *ctx);
/* Puts every address of the namespace into the set fd: 0 or -errno. */
int links_addrs_fill(int fd);
/* From now on links_read() keeps the set fd (-1: none) up to date. */
void links_track_addrs(struct rxlat_links *l, int fd);

#endif
