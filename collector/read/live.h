/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the reports and the Prometheus export find the live histogram of a
 * series (index rxlat_series_index()): through the hooks' chunks in rxlat
 * (hooks_live_at()), through a flat array in the unit tests. A series that
 * has held no sample yet may have no histogram: NULL.
 */
#ifndef RXLAT_LIVE_H
#define RXLAT_LIVE_H

#include <linux/types.h>
#include "rxlat.h"

struct rxlat_live {
	struct rxlat_hist *(*at)(void *ctx, __u32 idx);
	void *ctx;
};

static inline struct rxlat_hist *live_at(const struct rxlat_live *l, __u32 idx)
{
	return l->at(l->ctx, idx);
}

/* A flat array of every series (ctx), as the unit tests build it. */
static inline struct rxlat_hist *live_flat_at(void *ctx, __u32 idx)
{
	return &((struct rxlat_hist *)ctx)[idx];
}

#endif /* RXLAT_LIVE_H */
