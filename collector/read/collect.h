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
#include "live.h"

struct rxlat_ifname {
	__u32 ifindex;
	char name[RXLAT_IFNAME_LEN];
};

struct rxlat_collect {
	__u32 max_ifaces, max_queues;
	bool per_queue;
	/*
	 * With -i: only these interfaces' stamper counters are reported; an
	 * interface that came back under its name adds its new ifindex.
	 */
	__u32 *wanted;
	size_t nwanted;
	bool filter;
	/*
	 * The name of each interface once seen: an interface that is gone
	 * keeps its name in the reports of its last intervals.
	 */
	struct rxlat_ifname *names;
	size_t nnames;
	__u32 nr_series;
	/* each series as of the last report; NULL while it has no histogram */
	struct rxlat_hist **prev;
	struct rxlat_xdp_key *xdp_prev_keys;
	struct rxlat_xdp_counters *xdp_prev_vals;
	size_t xdp_nprev;
};

/*
 * Sets up c for max_ifaces x max_queues (interface and queue slots, plus one
 * overflow slot each); ifindexes (nifaces of them, may be 0) are copied.
 * 0 or -ENOMEM.
 */
int collect_init(struct rxlat_collect *c, __u32 max_ifaces, __u32 max_queues, bool per_queue,
		 const __u32 *ifindexes, int nifaces);
void collect_free(struct rxlat_collect *c);

/* The stamper counters of ifindex are reported too (with -i): 0 or -ENOMEM. */
int collect_want(struct rxlat_collect *c, __u32 ifindex);

/*
 * Remembers name for ifindex (from rtnetlink, or -i): used for its series
 * and rows from now on, also once the interface is gone. 0 or -ENOMEM.
 */
int collect_name(struct rxlat_collect *c, __u32 ifindex, const char *name);

/*
 * The first interval starts now: remembers the series of live as they are
 * and clears both of their maxima. 0 or -ENOMEM.
 *
 * Every snapshot of a series, this one and those of collect_series(), reads
 * the buckets before the sources: the hooks count a sample's source before
 * its bucket, so the sources are never behind. Samples whose source is
 * counted but not yet their bucket are held back for the next interval
 * (taken from the sources that grew): within one report the count equals
 * the sum of the sources other than none, and the totals over the reports
 * stay exact. A none sample has no bucket and is reported as read.
 */
int collect_start(struct rxlat_collect *c, const struct rxlat_live *live);

/* For a struct rxlat_live over the copies of collect_start() (ctx: c). */
struct rxlat_hist *collect_prev_at(void *ctx, __u32 idx);

/*
 * The series of the interval that ends now, one at a time, in stage,
 * interface slot and queue order; without per_queue one per (stage,
 * interface), its queue RXLAT_QUEUE_ALL. live gives the series, of which
 * the maxima of the ending epoch's parity are taken (and reset: the BPF
 * side writes the other parity by now); slot_ifindex the ifindex of each of
 * the max_ifaces interface slots, 0 where free. Series without a sample
 * are left out. Each delta is taken when it is asked for: a report that
 * formats each as it comes needs no copy of them all (about 10 MB at 5,000
 * series). The arguments must stay valid until the end.
 */
struct rxlat_series_iter {
	struct rxlat_collect *c;
	const struct rxlat_live *live;
	const __u32 *slot_ifindex;
	int parity;
	__u32 stage, slot, q; /* where the next one is looked for */
};

void collect_series_begin(struct rxlat_series_iter *it, struct rxlat_collect *c,
			  const struct rxlat_live *live, const __u32 *slot_ifindex, int parity);
/* The next series into *out: 1, 0 after the last, or -ENOMEM. */
int collect_series_next(struct rxlat_series_iter *it, struct rxlat_series *out);

/*
 * The stamper's counters over the interval that ends now, from their
 * current totals (n keys and values, per (ifindex, queue); ifindex 0 is the
 * overflow). Rows without a change are left out. *out is malloc'ed; 0 or
 * -ENOMEM.
 */
int collect_xdp(struct rxlat_collect *c, const struct rxlat_xdp_key *keys,
		const struct rxlat_xdp_counters *vals, size_t n, struct rxlat_xdp_row **out,
		size_t *nout);

/*
 * For the Prometheus endpoint: the name the reports give ifindex ("other"
 * for 0), and whether its stamper counters are reported (-i).
 */
void collect_ifname(struct rxlat_collect *c, __u32 ifindex, char name[RXLAT_IFNAME_LEN]);
bool collect_wanted(const struct rxlat_collect *c, __u32 ifindex);

#endif
