/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --slow: one record as a text line or a JSON object ("type": "slow"), in
 * the same stream as the reports. collector/read/slow.c reads the ring
 * buffer and hands each record here with its names found; nothing here
 * touches BPF.
 */
#ifndef RXLAT_SLOW_RENDER_H
#define RXLAT_SLOW_RENDER_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "series.h"

struct rxlat_slow_line {
	struct rxlat_slow_rec rec; /* as the hooks sent it */
	__s64 realtime_ns;	   /* rec.time_ns on CLOCK_REALTIME */
	const char *reason;	   /* a drop's reason by the kernel's name, else NULL */
	char ifname[RXLAT_IFNAME_LEN];
	/* the namespaces of the stage and of the stamp; empty: rxlat's own */
	char netns[256], if_netns[256];
};

/* l into f, as JSON when json: 0, or -ENOMEM when JSON could not be made. */
int slow_render(FILE *f, const struct rxlat_slow_line *l, bool json);

#endif
