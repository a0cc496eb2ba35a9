/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one report interval of rxlat measured, independent of the maps it was
 * read from, and the renderers that print it. The collector fills a struct
 * rxlat_report with per-interval deltas; the series come from the model's
 * report cursor (collector/read/model.h); nothing here touches BPF.
 */
#ifndef RXLAT_REPORT_H
#define RXLAT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <linux/types.h>
#include "rxlat.h"
#include "series.h"

struct model_iter; /* model.h */
struct heatmap;	   /* heatmap.h */

struct rxlat_report {
	struct timespec time; /* CLOCK_REALTIME at the end of the interval */
	double interval_s;
	bool final; /* the report printed at exit */
	/* e.g. "fentry:tcp_v4_do_rcv,tcp_v6_do_rcv"; NULL: stage not attached */
	const char *attach[RXLAT_NR_STAGES];
	/* --from: where the stages after the stamp start */
	enum rxlat_from from;
	/* why a stage could not be attached, else NULL */
	const char *unavailable[RXLAT_NR_STAGES];
	/* per stage, the protocols it measures, and why not the others */
	struct rxlat_coverage coverage[RXLAT_NR_STAGES];
	/* tunnels behind which containers are not measured (NULL: none) */
	const struct rxlat_unreached_set *unreached;
	/*
	 * The series: the model's report cursor (model_report_begin()), which
	 * a renderer takes them from with model_report_next(), formatting each
	 * as it comes: no copy of them all (about 10 MB at 5,000 series).
	 */
	struct model_iter *series;
	/* --heatmap: each series a renderer takes is also added to it; NULL without */
	struct heatmap *heatmap;
	const struct rxlat_xdp_row *xdp;
	size_t nxdp;
	/* --drops: the drops section is printed (also when empty) */
	bool drops_on;
	const struct rxlat_drop_row *drops;
	size_t ndrops;
	__u64 drops_lost; /* not counted: the drop map was full */
	/* --slow: records over the interval, sent, held back by --slow-rate, lost */
	bool slow_on;
	__u64 slow_sent, slow_suppressed, slow_lost;
};

/*
 * The report's next series with samples from its cursor into *s, also
 * added to r->heatmap where set: 1, 0 after the last, or a negative errno.
 * The renderers take their series through it, and -o none's heatmap too.
 */
int rxlat_report_next(const struct rxlat_report *r, struct rxlat_series *s);
/*
 * Both return 0 or a negative errno (-EIO when the stream failed).
 * The text report of a run is one stream: its first line says which report
 * it is ("report at 10:00:01, covering the last 1.00 s"), the attach and
 * measures lines come with the first report and again only when they
 * change, each legend once, above the first series that needs it.
 */
int rxlat_report_text(FILE *f, const struct rxlat_report *r);
/* The next text report starts a stream anew: its lines and legends again. */
void rxlat_report_text_restart(void);
/*
 * One line of JSON per report:
 * {"time": "2026-11-22T10:00:01.123Z", "interval_s": 1.0, "final": false,
 *  "attach": {stage: point or null, ...}, "unavailable": {stage: reason},
 *  "measures": {stage: ["tcp", "udp"] or fewer, ...},
 *  "not_measured": {stage: {proto: reason}} (only stages with one),
 *  "unreached": [{"ifname", "kind"}] (tunnels hiding containers, or []),
 *  "series": [{"stage", "ifname", "ifindex" (the interface where the packet
 *    was stamped: in a series of another namespace, one of rxlat's),
 *    "queue" (null: all queues,
 *    "other", or a number), "count", "sum_ns", "max_ns", "p50_ns", "p90_ns",
 *    "p99_ns", "p999_ns", "buckets": [{"le_ns": largest value the bucket
 *    holds or "+Inf", "count"}] (non-empty buckets only),
 *    "sources": {"xdp", "kernel", "tc", "none"},
 *    "held": {"ooo": reads of skbs held behind out-of-order data, one per
 *    skb read, not segments}}],
 *  "xdp": [{"ifname", "ifindex", "queue", and the counters of
 *    RXLAT_XDP_COUNTERS ("seen", "stamped", "meta_refused", "polls", ...),
 *    "poll_cpu" where "polls" is not 0}]}
 * All counts cover the interval only. Series without any sample are left
 * out, in the text output as well.
 */
int rxlat_report_json(FILE *f, const struct rxlat_report *r);

#endif /* RXLAT_REPORT_H */
