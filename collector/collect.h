/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From the maps to the report model: the deltas of one report interval of
 * the shared series array and of the stamper's counters, as struct
 * rxlat_series and struct rxlat_xdp_row (report.h). Nothing here touches
 * BPF: the caller hands in the series array (mapped, or any array of
 * struct rxlat_hist), the ifindex of each interface slot and the counters'
 * current totals, so a test can feed it plain memory.
 */
#ifndef RXLAT_COLLECT_H
#define RXLAT_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "rxlat.h"
#include "report.h"

struct rxlat_collect {
	__u32 max_ifaces, max_queues;
	bool per_queue;
	/* with -i: only these interfaces' stamper counters are reported */
	const __u32 *ifindexes;
	int nifaces;
	__u32 nr_series;
	struct rxlat_hist *prev; /* the series as of the last report */
	struct rxlat_xdp_key *xdp_prev_keys;
	struct rxlat_xdp_counters *xdp_prev_vals;
	size_t xdp_nprev;
};

/*
 * Sets up c for max_ifaces x max_queues (interface and queue slots, plus one
 * overflow slot each); ifindexes (nifaces of them, may be 0) must outlive c.
 * 0 or -ENOMEM.
 */
int collect_init(struct rxlat_collect *c, __u32 max_ifaces, __u32 max_queues, bool per_queue,
		 const __u32 *ifindexes, int nifaces);
void collect_free(struct rxlat_collect *c);

/*
 * The first interval starts now: remembers the series of live (nr_series
 * entries) as they are and clears both of their maxima.
 */
void collect_start(struct rxlat_collect *c, struct rxlat_hist *live);

/*
 * The series of the interval that ends now, in stage, interface slot and
 * queue order; without per_queue one per (stage, interface), its queue
 * RXLAT_QUEUE_ALL. live is the series array, of which the maxima of the
 * ending epoch's parity are taken (and reset: the BPF side writes the other
 * parity by now); slot_ifindex the ifindex of each of the max_ifaces
 * interface slots, 0 where free. Series without a sample are left out.
 * *out is malloc'ed; 0 or -ENOMEM.
 */
int collect_series(struct rxlat_collect *c, struct rxlat_hist *live, const __u32 *slot_ifindex,
		   int parity, struct rxlat_series **out, size_t *n);

/*
 * The stamper's counters over the interval that ends now, from their
 * current totals (n keys and values, per (ifindex, queue); ifindex 0 is the
 * overflow). Rows without a change are left out. *out is malloc'ed; 0 or
 * -ENOMEM.
 */
int collect_xdp(struct rxlat_collect *c, const struct rxlat_xdp_key *keys,
		const struct rxlat_xdp_counters *vals, size_t n, struct rxlat_xdp_row **out,
		size_t *nout);

#endif
