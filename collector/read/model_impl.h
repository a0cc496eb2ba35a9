/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the model: its state, shared by model.c (series) and model_rows.c (rows). */
#ifndef RXLAT_MODEL_IMPL_H
#define RXLAT_MODEL_IMPL_H

#include "model.h"
#include "tally.h"

struct rxlat_model {
	__u32 max_ifaces, max_queues;
	bool per_queue;
	struct model_src src;
	__u32 nr_series;
	/* each series at the baseline and at the last report; NULL: zero */
	struct rxlat_hist **base, **prev;
	__u32 *slot_ifindex; /* max_ifaces, as of the cursor's begin */
	/* Prometheus: each interface slot under the name it was first seen with */
	char (*slot_name)[RXLAT_IFNAME_LEN];
	struct tally xdp, drops;
	__u64 slow_prev[3];
	/* Prometheus: the largest totals seen, also of keys a map no longer has */
	struct model_xdp_total *xdp_tot;
	size_t nxdp_tot;
	struct model_drop_total *drop_tot;
	size_t ndrop_tot;
};

/* The stamper's and the drop map's totals now (tally_read, ctx: the model). */
int model_read_xdp(void *ctx, void **keys, void **vals, size_t *n);
int model_read_drops(void *ctx, void **keys, void **vals, size_t *n);

#endif
