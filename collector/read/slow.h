/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --slow: the ring buffer's records, each with its names found, rendered
 * by collector/render/slow_render.c as a text line or a JSON object.
 */
#ifndef RXLAT_SLOW_H
#define RXLAT_SLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct rxlat_ifaces;
struct rxlat_drops;
struct rxlat_slow;

/*
 * Reads the ring buffer map_fd; records are rendered as JSON objects
 * ("type": "slow") when json, else as lines. ifaces names interfaces, drops
 * (may be NULL) the drop reasons. 0 or -errno.
 */
int slow_open(struct rxlat_slow **out, int map_fd, bool json, struct rxlat_ifaces *ifaces,
	      struct rxlat_drops *drops);
/* For the main loop's epoll set: readable when records wait. */
int slow_fd(const struct rxlat_slow *s);
/* The waiting records, rendered into *buf (malloc'ed, *len bytes): 0 or -errno. */
int slow_consume(struct rxlat_slow *s, char **buf, size_t *len);
void slow_close(struct rxlat_slow *s);

#endif
