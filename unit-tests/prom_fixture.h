/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the exposition's unit tests share (prom_test.c, prom_pb_test.c):
 * plain tables for the slots, names and stamper counters the model reads,
 * a metrics over a model of a plain series array (unit.h's flat store),
 * samples written into it, and a scrape read into a string in either
 * format, with the value of one of its text lines.
 */
#ifndef RXLAT_PROM_FIXTURE_H
#define RXLAT_PROM_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "unit.h"
#include "model.h"
#include "prom.h"
#include "rxlat_hist.h"

#define MAX_IFACES 3
#define MAX_QUEUES 2
#define MAX_GROUPS 2
#define DIMS	   ((struct rxlat_dims){ MAX_GROUPS, MAX_IFACES, MAX_QUEUES })
#define NSERIES	   (RXLAT_NR_STAGES * (MAX_GROUPS + 2) * (MAX_IFACES + 1) * (MAX_QUEUES + 1))

static __u32 slot_owner[MAX_IFACES];
static const char *names[4]; /* by ifindex 1..3 */
static struct rxlat_xdp_key xkeys[4];
static struct rxlat_xdp_counters xvals[4];
static size_t nx;

static inline void f_slots(void *ctx, __u64 *out, __u32 n)
{
	(void)ctx;
	for (__u32 i = 0; i < n; i++)
		out[i] = slot_owner[i];
}

static inline void f_ifname(void *ctx, __u32 ifindex, char name[RXLAT_IFNAME_LEN])
{
	(void)ctx;
	snprintf(name, RXLAT_IFNAME_LEN, "%s", ifindex < 4 ? names[ifindex] : "?");
}

static inline bool f_wanted(void *ctx, __u32 ifindex)
{
	(void)ctx;
	return ifindex != 3;
}

static inline int f_xdp(void *ctx, struct rxlat_xdp_key **k, struct rxlat_xdp_counters **v,
			size_t *n)
{
	(void)ctx;
	*k = malloc(sizeof(xkeys));
	*v = malloc(sizeof(xvals));
	if (!*k || !*v)
		return -1;
	memcpy(*k, xkeys, sizeof(xkeys));
	memcpy(*v, xvals, sizeof(xvals));
	*n = nx;
	return 0;
}

/* the model of each metrics made by new_metrics() */
static struct {
	struct prom_metrics *m;
	struct rxlat_model *model;
	struct flat_store store; /* the series' histograms it reads */
} made[4];

static inline struct rxlat_hist *at(struct rxlat_hist *live, int stage, int slot, int q)
{
	return &live[rxlat_series_index(stage, 0, slot, q, DIMS)];
}

static inline void sample(struct rxlat_hist *h, __u64 ns, __u64 n)
{
	h->buckets[rxlat_hist_bucket(ns)] += n;
	h->sum_ns += ns * n;
	h->sources[RXLAT_SRC_XDP] += n;
}

/* The whole exposition in fmt, read max bytes at a time; malloc'ed, *len its length. */
static inline char *scrape_as(struct prom_metrics *m, size_t max, enum prom_format fmt,
			      size_t *lenp)
{
	struct prom_scrape *s = prom_scrape_new(m, fmt);
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap + 1);
	ssize_t n;

	if (!s || !out) {
		prom_scrape_free(s);
		free(out);
		return NULL;
	}
	do {
		if (len + max > cap) {
			char *p = realloc(out, 2 * cap + max + 1);

			if (!p)
				break;
			out = p;
			cap = 2 * cap + max;
		}
		n = prom_scrape_read(s, out + len, max);
		len += n > 0 ? (size_t)n : 0;
	} while (n > 0);
	out[len] = '\0';
	prom_scrape_free(s);
	if (lenp)
		*lenp = len;
	return out;
}

static inline char *scrape(struct prom_metrics *m, size_t max)
{
	return scrape_as(m, max, PROM_FORMAT_TEXT, NULL);
}

/* The value of the line that starts with series (name{labels}), or -1. */
static inline long long value(const char *text, const char *series)
{
	size_t n = strlen(series);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, series, n) && p[n] == ' ')
			return atoll(p + n + 1);
	return -1;
}

static inline struct prom_metrics *new_metrics(struct rxlat_hist *live, unsigned int k,
					       bool per_queue)
{
	static const char *const attach[RXLAT_NR_STAGES] = { [RXLAT_STAGE_IP_RCV] = "tp_btf:x" };
	/* ip_rcv measures TCP, not UDP; tcp_do_rcv is about no protocol here */
	static const struct rxlat_coverage coverage[RXLAT_NR_STAGES] = {
		[RXLAT_STAGE_IP_RCV] = { RXLAT_PROTO_BIT(RXLAT_PROTO_TCP),
					 { [RXLAT_PROTO_UDP] = "why \"not\"" } },
	};
	struct model_src src = {
		.slots = f_slots, .ifname = f_ifname, .wanted = f_wanted, .xdp = f_xdp
	};
	struct rxlat_model *model;
	struct prom_metrics *m;
	int i = 0;

	while (i < 4 && made[i].m)
		i++;
	if (i == 4)
		return NULL;
	src.store = flat_store(&made[i].store, live, NSERIES);
	if (model_new(&model, DIMS, per_queue, true, &src))
		return NULL;
	if (prom_metrics_new(&m, model, k, attach, coverage)) {
		model_free(model);
		return NULL;
	}
	made[i].m = m;
	made[i].model = model;
	return m;
}

static inline void free_metrics(struct prom_metrics *m)
{
	for (int i = 0; m && i < 4; i++)
		if (made[i].m == m) {
			model_free(made[i].model);
			made[i].m = NULL;
		}
	prom_metrics_free(m);
}

#endif
