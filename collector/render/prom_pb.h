/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What prom.c and prom_pb.c share: the output buffer, a label set, and the
 * protobuf exposition (delimited io.prometheus.client.MetricFamily
 * messages) that prom_pb.c encodes. prom.c decides what each family holds;
 * the two formats differ only in how a family, a value and a histogram are
 * written.
 */
#ifndef RXLAT_PROM_PB_H
#define RXLAT_PROM_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "rxlat.h"
#include "series.h"

/* ---- output buffer --------------------------------------------------- */

struct pbuf {
	char *p;
	size_t len, cap, off; /* off: what the reader already took */
	bool fixed;	      /* p is the caller's array: never grown */
	bool nomem;
};

void put(struct pbuf *b, const void *s, size_t n);

/* ---- one sample's labels ---------------------------------------------- */

/* a series' labels, and up to three of a family's own (le, source, ...) */
#define PROM_MAX_LABELS (RXLAT_MAX_LABELS + 3)

struct prom_labels {
	unsigned int n;
	const char *key[PROM_MAX_LABELS];
	const char *val[PROM_MAX_LABELS];
};

static inline void prom_label(struct prom_labels *l, const char *key, const char *val)
{
	if (l->n < PROM_MAX_LABELS) {
		l->key[l->n] = key;
		l->val[l->n++] = val;
	}
}

/* ---- the protobuf exposition ----------------------------------------- */

/* MetricType of metrics.proto: the values are the wire's */
enum prom_type { PROM_COUNTER = 0, PROM_GAUGE = 1, PROM_HISTOGRAM = 4 };

/*
 * An exported classic bucket: the last of rxlat's buckets it sums, and its
 * le label in the text exposition.
 */
struct prom_bucket {
	__u32 last;
	char le[24];
};

/*
 * A family's metrics are gathered in body and sent as one MetricFamily
 * message when the family ends, or earlier, as soon as body passes
 * PB_CHUNK bytes: then the family goes on in another message of the same
 * name, help and type, so that a scrape never holds more than that.
 */
#define PB_CHUNK (64 * 1024)

struct pb_writer {
	struct pbuf head; /* the family's name, help and type, encoded */
	struct pbuf body; /* its metrics since the last message */
	struct pbuf metric, inner;
};

void pb_family(struct pb_writer *w, const char *name, enum prom_type type, const char *help);
/* a counter's or a gauge's value, as the family's type says */
void pb_value(struct pb_writer *w, struct pbuf *out, enum prom_type type,
	      const struct prom_labels *l, __u64 v);
/* a native histogram (schema 3), and the first nclassic classic buckets */
void pb_hist(struct pb_writer *w, struct pbuf *out, const struct prom_labels *l,
	     const struct rxlat_hist *h, const struct prom_bucket *classic, unsigned int nclassic);
/* the family's last message, if it has metrics */
void pb_end(struct pb_writer *w, struct pbuf *out);
void pb_writer_free(struct pb_writer *w);

#endif /* RXLAT_PROM_PB_H */
