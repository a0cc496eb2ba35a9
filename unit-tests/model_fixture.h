/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the model's unit tests share (model_test.c, model_totals_test.c):
 * the plain memory the model reads in place of the maps (the series'
 * histograms as unit.h's flat store, the slots, names and stamper
 * counters), a model over it, a report's series taken through its cursor,
 * and samples written as the hooks write them.
 */
#ifndef RXLAT_MODEL_FIXTURE_H
#define RXLAT_MODEL_FIXTURE_H

#include <errno.h>
#include <stdio.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "unit.h"
#include "model.h"

#define MAX_IFACES 2
#define MAX_QUEUES 3
#define MAX_GROUPS 2
#define DIMS	   ((struct rxlat_dims){ MAX_GROUPS, MAX_IFACES, MAX_QUEUES })
/* interface indexes that no namespace has this early: named "if<N>" */
#define IF_A 100001
#define IF_B 100002

/* What the model reads, as plain memory: the series' histograms ... */
static struct flat_store store;

/* ... and the slots, names and stamper counters */
static struct {
	__u32 slots[MAX_IFACES];
	const struct rxlat_xdp_key *keys;
	const struct rxlat_xdp_counters *vals;
	size_t n;
	bool filter; /* -i: only the wanted ifindexes' stamper counters */
	__u32 wanted[4];
	size_t nwanted;
	struct {
		__u32 ifindex;
		char name[RXLAT_IFNAME_LEN];
	} names[4];
	size_t nnames;
} F;

static inline void f_slots(void *ctx, __u64 *out, __u32 n)
{
	(void)ctx;
	for (__u32 i = 0; i < n; i++)
		out[i] = F.slots[i];
}

/* as the interfaces module names them: known, the kernel's, or "if<N>" */
static inline void f_ifname(void *ctx, __u32 ifindex, char name[RXLAT_IFNAME_LEN])
{
	(void)ctx;
	for (size_t i = F.nnames; i-- > 0;)
		if (F.names[i].ifindex == ifindex) {
			memcpy(name, F.names[i].name, RXLAT_IFNAME_LEN);
			return;
		}
	if (!if_indextoname(ifindex, name))
		snprintf(name, RXLAT_IFNAME_LEN, "if%u", ifindex);
}

static inline bool f_wanted(void *ctx, __u32 ifindex)
{
	(void)ctx;
	for (size_t i = 0; i < F.nwanted; i++)
		if (F.wanted[i] == ifindex)
			return true;
	return !F.filter;
}

static inline int f_xdp(void *ctx, struct rxlat_xdp_key **keys, struct rxlat_xdp_counters **vals,
			size_t *n)
{
	(void)ctx;
	*keys = malloc((F.n ? F.n : 1) * sizeof(**keys));
	*vals = malloc((F.n ? F.n : 1) * sizeof(**vals));
	if (!*keys || !*vals)
		return -ENOMEM;
	memcpy(*keys, F.keys, F.n * sizeof(**keys));
	memcpy(*vals, F.vals, F.n * sizeof(**vals));
	*n = F.n;
	return 0;
}

static inline void name(__u32 ifindex, const char *n)
{
	F.names[F.nnames].ifindex = ifindex;
	snprintf(F.names[F.nnames++].name, RXLAT_IFNAME_LEN, "%s", n);
}

/* The model of a flat array of every series (NULL: none has a histogram). */
static inline struct rxlat_model *new_model(struct rxlat_hist *live, bool per_queue)
{
	struct model_src src = { .store = flat_store(&store, live, rxlat_nr_series(DIMS)),
				 .slots = f_slots,
				 .ifname = f_ifname,
				 .wanted = f_wanted,
				 .xdp = f_xdp };
	struct rxlat_model *m;

	memset(&F, 0, sizeof(F));
	return model_new(&m, DIMS, per_queue, true, &src) ? NULL : m;
}

/*
 * Every series of the report, through model_report_next() as the collector
 * takes them, into a malloc'ed array: 0 or a negative errno.
 */
static inline int report_series(struct rxlat_model *m, const __u32 *slot_ifindex, int parity,
				struct rxlat_series **out, size_t *n)
{
	__u32 nr = rxlat_nr_series(DIMS);
	struct model_iter *it;
	int got = 0;

	*n = 0;
	memcpy(F.slots, slot_ifindex, sizeof(F.slots));
	*out = malloc(nr * sizeof(**out));
	it = model_report_begin(m, parity);
	if (!*out || !it) {
		model_iter_free(it);
		return -ENOMEM;
	}
	while (*n < nr && (got = model_report_next(it, &(*out)[*n])) > 0)
		(*n)++;
	model_iter_free(it);
	return got < 0 ? got : 0;
}

/* A series' labels as the fields they replace. */
static inline const char *ifname_of(const struct rxlat_series *s)
{
	const struct rxlat_label *l = rxlat_label_of(s, "ifname");

	return l ? l->str : "?";
}

static inline struct rxlat_hist *series(struct rxlat_hist *live, int stage, int slot, int q)
{
	return &live[rxlat_series_index(stage, 0, slot, q, DIMS)];
}

static inline void sample(struct rxlat_hist *h, __u32 bucket, __u64 n, __u64 sum, __u64 max,
			  int parity)
{
	h->buckets[bucket] += n;
	h->sum_ns += sum;
	h->sources[RXLAT_SRC_XDP] += n;
	if (max > h->max_ns[parity])
		h->max_ns[parity] = max;
}

static inline void check_str(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want))
		check_fail("%s: got \"%s\", want \"%s\"", what, got, want);
}

#endif
