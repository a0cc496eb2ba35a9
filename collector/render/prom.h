/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus endpoint (--prometheus).
 *
 * prom.c turns the shared series array and the stamper's counters into the
 * text exposition format: cumulative counts since the first interval began
 * (the baseline the reports start from), never reset, never going down.
 * It touches neither BPF nor HTTP: the caller hands in the series array and
 * a few callbacks, so a test feeds it plain memory (prom_test.c).
 *
 * prom_http.c serves it over HTTP with libmicrohttpd, driven from rxlat's
 * own epoll loop (see the README for why not a thread of its own).
 */
#ifndef RXLAT_PROM_H
#define RXLAT_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "rxlat.h"
#include "report.h"
#include "live.h"

/* Exported buckets per power of two: 8 is the map's own resolution. */
#define PROM_BUCKETS_DEFAULT 2

/* Where a scrape gets what is not in the series array. */
struct prom_ops {
	void *ctx;
	/* ifindex of each of n interface slots, 0 where free */
	void (*slots)(void *ctx, __u32 *slot_ifindex, __u32 n);
	/* name of an interface, also once it is gone */
	void (*ifname)(void *ctx, __u32 ifindex, char name[RXLAT_IFNAME_LEN]);
	/* whether the stamper's counters of ifindex are exported (-i) */
	bool (*wanted)(void *ctx, __u32 ifindex);
	/* current totals of the stamper's counters, malloc'ed (stamper_counters()) */
	int (*xdp)(void *ctx, struct rxlat_xdp_key **keys, struct rxlat_xdp_counters **vals,
		   size_t *n);
	/* --drops (NULL without): current totals per key, malloc'ed */
	int (*drops)(void *ctx, struct rxlat_drop_key **keys, __u64 **counts, size_t *n);
	/* the kernel's name of a drop reason */
	const char *(*reason)(void *ctx, __u32 reason);
};

struct prom_layout {
	struct rxlat_live live; /* the live series */
	__u32 max_ifaces, max_queues;
	bool per_queue;
	unsigned int per_pow2; /* 1, 2, 4 or 8 */
	/* each stage's attach point, NULL where not attached */
	const char *attach[RXLAT_NR_STAGES];
};

struct prom_metrics;

/* 0, -EINVAL (per_pow2 not 1, 2, 4 or 8) or -ENOMEM. */
int prom_metrics_new(struct prom_metrics **out, const struct prom_layout *l,
		     const struct prom_ops *ops);
void prom_metrics_free(struct prom_metrics *m);

/*
 * The counts from which the exported ones start: the series (rxlat_nr_series()
 * of them) and the stamper's totals as the first report interval began, so
 * that a scrape and the reports count the same samples. 0 or -ENOMEM.
 */
int prom_metrics_baseline(struct prom_metrics *m, const struct rxlat_live *start,
			  const struct rxlat_xdp_key *keys, const struct rxlat_xdp_counters *vals,
			  size_t n);

/*
 * --drops: rxlat_drops_total from now on, counted from the reports' baseline
 * (n keys and totals); ops->drops and ops->reason must be set. 0 or -ENOMEM.
 */
int prom_metrics_drops(struct prom_metrics *m, const struct rxlat_drop_key *keys,
		       const __u64 *counts, size_t n);

/* Exported buckets per histogram, +Inf included. */
unsigned int prom_nr_buckets(unsigned int per_pow2);

/*
 * One scrape, rendered as it is read, so that a large exposition is never
 * whole in memory: each series is read from the live array when its turn
 * comes. The scrape uses m, which must outlive it.
 */
struct prom_scrape;
struct prom_scrape *prom_scrape_new(struct prom_metrics *m);
/* Up to max bytes of the exposition: their number, 0 at the end, or -ENOMEM. */
ssize_t prom_scrape_read(struct prom_scrape *s, char *buf, size_t max);
void prom_scrape_free(struct prom_scrape *s);

/*
 * prom_http.c: the HTTP server. prom_open() binds the listening socket (so
 * that a port in use is refused before anything is attached), prom_start()
 * takes the baseline once measuring starts, prom_fd() goes into the main
 * loop's epoll set and prom_handle() serves whatever is ready on it.
 */
struct rxlat_config;
struct rxlat_hooks;
struct rxlat_stamper;
struct rxlat_collect;
struct rxlat_hooks_info;
struct prom_server;

/*
 * "[ADDR:]PORT" (ADDR numeric IPv4 or [IPv6]; a bare port binds 127.0.0.1)
 * into cfg; 0, or -EINVAL with the error printed.
 */
int prom_parse_listen(const char *arg, struct rxlat_config *cfg);
int prom_open(struct prom_server **out, const struct rxlat_config *cfg);
int prom_start(struct prom_server *p, struct rxlat_hooks *hooks, struct rxlat_stamper *st,
	       struct rxlat_collect *col, const struct rxlat_hooks_info *info);
/* --drops: export the drops counted in d's map, from its baseline on. */
struct rxlat_drops;
int prom_drops(struct prom_server *p, struct rxlat_drops *d);
int prom_fd(const struct prom_server *p);
int prom_handle(struct prom_server *p);
void prom_close(struct prom_server *p);

#endif /* RXLAT_PROM_H */
