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
	 * dropped past MODEL_FROZEN_MAX. Kept from the start, not from the
	 * first scrape: a pod that lives less than a scrape interval would
	 * never be seen at all.
	 */
	bool totals;
	struct model_frozen *frozen;
	size_t nfrozen;
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

#define MODEL_KEY_LEN	 (RXLAT_MAX_LABELS * (RXLAT_LABEL_LEN + 16))
#define MODEL_FROZEN_MAX 256

struct model_frozen {
	char key[MODEL_KEY_LEN]; /* model_label_key() */
	struct rxlat_label labels[RXLAT_MAX_LABELS];
	unsigned int nlabels;
	struct rxlat_hist h;
};

/* model_frozen.c: the labels Prometheus gets, as one string ("k=v;..."). */
void model_label_key(const struct rxlat_series *s, char *buf, size_t len);
/* The kept totals of s's labels, added when new: NULL without memory. */
struct model_frozen *model_frozen_at(struct rxlat_model *m, const struct rxlat_series *s);
void model_hist_add(struct rxlat_hist *dst, const struct rxlat_hist *src);

/* The stamper's and the drop map's totals now (tally_read, ctx: the model). */
int model_read_xdp(void *ctx, void **keys, void **vals, size_t *n);
int model_read_drops(void *ctx, void **keys, void **vals, size_t *n);

#endif
