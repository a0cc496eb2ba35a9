/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --slow: the ring buffer's records, each with its names found, rendered
 * by the function slow_open() is given (collector/render/slow_render.c, a
 * layer above) as a text line or a JSON object.
 */
#ifndef RXLAT_SLOW_H
#define RXLAT_SLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "rxlat.h"
#include "series.h"

/* One record with its names found, as the renderer gets it. */
struct rxlat_slow_line {
	struct rxlat_slow_rec rec; /* as the hooks sent it */
	__s64 realtime_ns;	   /* rec.time_ns on CLOCK_REALTIME */
	const char *reason;	   /* a drop's reason by the kernel's name, else NULL */
	char ifname[RXLAT_IFNAME_LEN];
	/* the namespaces of the stage and of the stamp; empty: rxlat's own */
	char netns[256], if_netns[256];
};

/* l into f, as JSON when json: 0 or -errno. */
typedef int slow_render_fn(FILE *f, const struct rxlat_slow_line *l, bool json);

struct rxlat_ifaces;
struct rxlat_drops;
struct rxlat_slow;

/*
 * Reads the ring buffer map_fd; records are rendered by render, as JSON
 * objects ("type": "slow") when json, else as lines. ifaces names
 * interfaces, drops (may be NULL) the drop reasons. 0 or -errno.
 */
int slow_open(struct rxlat_slow **out, int map_fd, slow_render_fn *render, bool json,
	      struct rxlat_ifaces *ifaces, struct rxlat_drops *drops);
/* For the main loop's epoll set: readable when records wait. */
int slow_fd(const struct rxlat_slow *s);
/* The waiting records, rendered into *buf (malloc'ed, *len bytes): 0 or -errno. */
int slow_consume(struct rxlat_slow *s, char **buf, size_t *len);
void slow_close(struct rxlat_slow *s);

#endif
