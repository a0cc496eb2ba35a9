/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model: the one reader of rxlat's maps. It owns the snapshots of every
 * map (the series' histograms, the stamper's counters, the drops, the slow
 * records' counts), takes the baseline of them all in one place when
 * measuring starts, and gives each consumer a cursor of its own:
 *   - the reports: what changed since the last report (model_report_*);
 *   - Prometheus: the totals since the baseline, never going down
 *     (model_total_*).
 * The renderers (collector/render) only print what the cursors give.
 *
 * Nothing here touches BPF: the maps are read through struct model_src,
 * which a unit test fills with plain memory; the series' histograms are
 * read straight from the hooks' tables (series_store.h).
 *
 * A series is a point in the dimensions of the series index (stage, group
 * slot, interface slot, queue slot: rxlat_series_index()); the table
 * model_dims[] in model_dims.c says, per dimension, its size, its labels
 * and whether its slots are summed (the queues without --per-queue). A new
 * dimension is a name in enum model_dim_id, a line of that table and its
 * labeller.
 */
#ifndef RXLAT_MODEL_H
#define RXLAT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "rxlat.h"
#include "series.h"
#include "series_store.h"
#include "group_names.h"

/* Where the model reads from. */
struct model_src {
	/* the series' histograms: the hooks' tables, or a test's flat array */
	struct series_store store;
	void *ctx;
	/* the key (rxlat_if_key()) of each of n interface slots, 0 where free */
	void (*slots)(void *ctx, __u64 *slot_key, __u32 n);
	/* an interface's name, also once it is gone; "other" for ifindex 0 */
	void (*ifname)(void *ctx, __u32 ifindex, char name[RXLAT_IFNAME_LEN]);
	/* a network namespace's name, or net:[inode] */
	void (*netns_name)(void *ctx, __u32 ino, char *name, size_t len);
	/*
	 * each of n group slots' key and namespace, 0 where free (NULL: no
	 * groups); a key is never given to two groups, even in one slot
	 */
	void (*groups)(void *ctx, __u64 *key, __u32 *netns, __u32 n);
	/*
	 * the names of the group of key, seen in namespace netns: true, or
	 * false where they are not known yet (asked again at the next look)
	 */
	bool (*group_name)(void *ctx, __u64 key, __u32 netns, struct group_names *g);
	/* whether the stamper's counters of ifindex are reported (-i) */
	bool (*wanted)(void *ctx, __u32 ifindex);
	/* the stamper's totals per (ifindex, queue), malloc'ed; NULL: no stamper */
	int (*xdp)(void *ctx, struct rxlat_xdp_key **keys, struct rxlat_xdp_counters **vals,
		   size_t *n);
	/* --drops (NULL without): the drop map's totals, malloc'ed */
	int (*drops)(void *ctx, struct rxlat_drop_key **keys, struct rxlat_drop **vals, size_t *n);
	/* --drops: drops not counted since the hooks were loaded (the map was full) */
	__u64 (*drops_lost)(void *ctx);
	/* the kernel's name of a drop reason */
	const char *(*reason)(void *ctx, __u32 reason);
	/* --slow (NULL without): records sent, suppressed, lost */
	int (*slow)(void *ctx, __u64 counts[3]);
};

struct rxlat_model;

/*
 * 0 or -ENOMEM. totals: Prometheus reads the totals cursor, and so the
 * totals of released slots are kept from the start (model_retire_slot()).
 */
int model_new(struct rxlat_model **out, struct rxlat_dims d, bool per_queue, bool totals,
	      const struct model_src *src);
void model_free(struct rxlat_model *m);

/*
 * The baseline of every map, taken now: what was counted before (the
 * start-up's own traffic, a loaded stamper's history) is nobody's. Both
 * maxima of each series are cleared. 0 or -errno.
 *
 * Every snapshot of a series reads the buckets before the sources: the
 * hooks count a sample's source before its bucket, so the sources are never
 * behind. Samples whose source is counted but not yet their bucket are held
 * back for the next report (taken from the sources that grew): within one
 * report the count equals the sum of the sources other than none, and the
 * totals over the reports stay exact.
 */
int model_start(struct rxlat_model *m);

/* ---- the reports' cursor: what changed since the last report ---------- */

/*
 * The series of the report that ends now, one at a time, in index order;
 * parity is that of the report epoch that ends (its maxima are taken and
 * reset: BPF writes the other parity by now). Series without a sample are
 * left out. Each delta is taken when it is asked for, so a report that
 * formats each as it comes needs no copy of them all (about 10 MB at 5,000
 * series).
 */
struct model_iter;
struct model_iter *model_report_begin(struct rxlat_model *m, int parity);
/* The next series into *out: 1, 0 after the last, or -ENOMEM. */
int model_report_next(struct model_iter *it, struct rxlat_series *out);
void model_iter_free(struct model_iter *it);

/* The stamper's counters since the last report; rows without a change left out. */
int model_report_xdp(struct rxlat_model *m, struct rxlat_xdp_row **out, size_t *n);
/* --drops: the drops since the last report, per (ifindex, queue, reason). */
int model_report_drops(struct rxlat_model *m, struct rxlat_drop_row **out, size_t *n);
/* --drops: drops not counted since the hooks were loaded (the drop map was full). */
__u64 model_report_drops_lost(struct rxlat_model *m);
/* --slow: records sent, suppressed and lost since the last report. */
int model_report_slow(struct rxlat_model *m, __u64 counts[3]);

/*
 * The stamper's counters as they are now, since it was attached (no
 * baseline, no cursor moved), malloc'ed: what the check for drivers that
 * refuse XDP metadata (ifaces_check_meta()) reads.
 */
int model_stamper_now(struct rxlat_model *m, struct rxlat_xdp_key **keys,
		      struct rxlat_xdp_counters **vals, size_t *n);

/*
 * Interface slot slot is about to be released (its interface is gone): its
 * series start again from zero for the next owner, and what they counted
 * stays in Prometheus' totals under their labels (the last MODEL_FROZEN_MAX
 * label sets of released slots are kept: model_total_gone()).
 */
void model_retire_slot(struct rxlat_model *m, __u32 slot);
/* The same for group slot slot (its namespace or cgroup is gone). */
void model_retire_group(struct rxlat_model *m, __u32 slot);

/* ---- Prometheus' cursor: totals since the baseline -------------------- */

/*
 * Every series with samples since the baseline, summed over the slots that
 * carry the same labels (an interface deleted and re-created under its name
 * without -i has two slots and one series), queues summed without
 * --per-queue. Only labels that are not RXLAT_LABEL_JSON_ONLY are set. The
 * totals are the live counts less the baseline: they never go down.
 */
struct model_iter *model_total_begin(struct rxlat_model *m);
/* The next series: 1 with *out and *h set (h's max_ns unused), 0 after the last. */
int model_total_next(struct model_iter *it, struct rxlat_series *out, struct rxlat_hist *h);

/*
 * The dimensions of the series index, outermost first, as
 * rxlat_series_index() lays the series out (model_dims[] in model_dims.c).
 */
enum model_dim_id { MODEL_DIM_STAGE, MODEL_DIM_GROUP, MODEL_DIM_IFACE, MODEL_DIM_QUEUE, MODEL_ND };

/* The limit whose overflow slot dimension d has ("max_groups", ..), NULL if none. */
const char *model_overflow_limit(enum model_dim_id d);

/*
 * The label sets of released slots whose totals are kept now, and how many
 * left the totals (the oldest, past the bound, or kept without memory).
 */
void model_total_gone(const struct rxlat_model *m, __u64 *kept, __u64 *dropped);
/* Samples of one stage in the overflow slot of dimension d, 0 where it has none. */
__u64 model_total_overflow(struct rxlat_model *m, enum model_dim_id d, __u32 stage);

/* The stamper's totals per (ifindex, queue), the largest seen of each. */
struct model_xdp_total {
	__u32 ifindex, queue;
	bool wanted; /* reported (-i; always for the overflow, ifindex 0) */
	char ifname[RXLAT_IFNAME_LEN];
	struct rxlat_xdp_counters c;
};
int model_total_xdp(struct rxlat_model *m, const struct model_xdp_total **rows, size_t *n);

/* --drops: totals per (ifindex, queue, reason); *drops_on false without. */
struct model_drop_total {
	struct rxlat_drop_key key;
	char ifname[RXLAT_IFNAME_LEN];
	const char *reason;
	__u64 count;
};
int model_total_drops(struct rxlat_model *m, const struct model_drop_total **rows, size_t *n,
		      bool *drops_on);

#endif /* RXLAT_MODEL_H */
