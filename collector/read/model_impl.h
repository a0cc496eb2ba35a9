/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the model: its state, shared by model.c (series) and model_rows.c (rows). */
#ifndef RXLAT_MODEL_IMPL_H
#define RXLAT_MODEL_IMPL_H

#include "model.h"
#include "tally.h"

struct rxlat_model {
	__u32 max_groups, max_ifaces, max_queues;
	bool per_queue;
	struct model_src src;
	__u32 nr_series;
	/* each series at the baseline and at the last report; NULL: zero */
	struct rxlat_hist **base, **prev;
	__u64 *slot_key; /* max_ifaces, as of the cursor's begin: rxlat_if_key() */
	/* Prometheus: each interface slot under the name it was first seen with */
	char (*slot_name)[RXLAT_IFNAME_LEN];
	__u32 *slot_netns; /* and the namespace of its stamps, 0: rxlat's */
	/* group slots (--by), max_groups + 2: key as of the cursor's begin, names */
	__u64 *group_key;
	__u32 *group_netns;
	struct group_names *group;
	struct tally xdp, drops;
	__u64 slow_prev[3];
	/* Prometheus: the largest totals seen, also of keys a map no longer has */
	struct model_xdp_total *xdp_tot;
	size_t nxdp_tot;
	struct model_drop_total *drop_tot;
	size_t ndrop_tot;
	/*
	 * Prometheus: the totals of series whose slot was released (its
	 * interface, namespace or cgroup gone), by their labels, the oldest
	 * dropped past MODEL_FROZEN_MAX (model_frozen.c). Kept from the
	 * start, not from the first scrape: a pod that lives less than a
	 * scrape interval would never be seen at all.
	 */
	bool totals;
	struct model_frozen **frozen;	   /* a ring, by sequence number */
	struct model_frozen **frozen_hash; /* chains, by a hash of their labels */
	__u64 frozen_first, frozen_next;   /* the oldest entry's sequence number, the next's */
	__u64 frozen_dropped;
};

/* ---- the dimensions of the series index (model_dims.c) --------------- */

#define SUMMED ((__u32)-1) /* the slot of a dimension whose slots are summed */

enum model_released { MODEL_RELEASED_NONE, MODEL_RELEASED_GROUP, MODEL_RELEASED_IFACE };

struct model_dim {
	__u32 (*size)(const struct rxlat_model *m);
	/* summed into one series (and labelled once, slot SUMMED) */
	bool (*summed)(const struct rxlat_model *m);
	/* does slot hold a series now (total: for Prometheus)? */
	bool (*valid)(const struct rxlat_model *m, __u32 slot, bool total);
	void (*label)(const struct rxlat_model *m, __u32 slot, bool total, struct rxlat_series *s);
	const char *limit;	      /* its last slot takes what is past this limit */
	enum model_released released; /* which of its slots model_retire() releases */
};

extern const struct model_dim model_dims[MODEL_ND];

#define MODEL_KEY_LEN (RXLAT_MAX_LABELS * (RXLAT_LABEL_LEN + 16))
/*
 * Label sets of released slots kept (docs/containers.md): a power of two.
 * A pod is one per stage, stamping interface and queue that had samples.
 */
#define MODEL_FROZEN_MAX 16384

/* model_frozen.c: the labels Prometheus gets, as one string ("k=v;..."). */
void model_label_key(const struct rxlat_series *s, char *buf, size_t len);
/* Adds h to the kept totals of s's labels, a new entry when none: 0 or -errno. */
int model_frozen_add(struct rxlat_model *m, const struct rxlat_series *s,
		     const struct rxlat_hist *h);
/* The kept totals of s's labels and their sequence number; NULL if none. */
const struct model_frozen *model_frozen_find(const struct rxlat_model *m,
					     const struct rxlat_series *s, __u64 *seq);
/* The entry of sequence number seq, NULL once dropped (or not made yet). */
const struct model_frozen *model_frozen_seq(const struct rxlat_model *m, __u64 seq);
/* h += f's totals. */
void model_frozen_hist(const struct model_frozen *f, struct rxlat_hist *h);
/* f's labels into out (its label names point into f). */
void model_frozen_series(const struct model_frozen *f, struct rxlat_series *out);
void model_frozen_free(struct rxlat_model *m);

/* The stamper's and the drop map's totals now (tally_read, ctx: the model). */
int model_read_xdp(void *ctx, void **keys, void **vals, size_t *n);
int model_read_drops(void *ctx, void **keys, void **vals, size_t *n);

#endif
