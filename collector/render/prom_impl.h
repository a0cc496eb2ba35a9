/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What prom.c (the scrapes) and prom_metrics.c (the state they read) share;
 * nothing outside them uses it.
 */
#ifndef RXLAT_PROM_IMPL_H
#define RXLAT_PROM_IMPL_H

#include <stdbool.h>
#include <linux/types.h>
#include "prom.h"
#include "prom_pb.h"
#include "series.h"

struct prom_metrics {
	struct rxlat_model *model;
	unsigned int per_pow2;
	const char *attach[RXLAT_NR_STAGES];
	enum rxlat_from from;
	struct rxlat_coverage coverage[RXLAT_NR_STAGES];
	struct prom_bucket *buckets;
	unsigned int nbuckets;
	bool classic; /* a protobuf scrape sends the classic buckets too */
	const struct rxlat_unreached_set *unreached; /* NULL: none */
	const __u64 *auth_failures;		     /* NULL: no basic auth */
};

/* ns as seconds into b, exactly: "0.000001024" */
void prom_put_seconds(struct pbuf *b, __u64 ns);

#endif /* RXLAT_PROM_IMPL_H */
