// SPDX-License-Identifier: GPL-2.0
/*
 * The protobuf exposition: length-delimited io.prometheus.client.MetricFamily
 * messages, the format Prometheus asks for to get native histograms. A small
 * encoder of the few messages rxlat sends, no library: each message is
 * encoded once, inside out, into buffers that are reused (docs/prometheus.md
 * says why not protobuf-c).
 *
 * The field numbers are those of metrics.proto in prometheus/client_model
 * (io/prometheus/client/metrics.proto), proto2; each is named where used.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "prom_pb.h"
#include "rxlat_hist.h"

void put(struct pbuf *b, const void *s, size_t n)
{
	if (b->nomem)
		return;
	if (b->len + n > b->cap && b->fixed) {
		b->nomem = true;
		return;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->nomem = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

/* ---- wire format ------------------------------------------------------ */

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2 };

static void varint(struct pbuf *b, __u64 v)
{
	unsigned char t[10];
	size_t n = 0;

	do {
		t[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put(b, t, n);
}

static void key(struct pbuf *b, unsigned int field, unsigned int wire)
{
	varint(b, (__u64)field << 3 | wire);
}

static __u64 zigzag(__s64 v)
{
	return ((__u64)v << 1) ^ (__u64)(v >> 63);
}

static void f_uint(struct pbuf *b, unsigned int field, __u64 v)
{
	key(b, field, WIRE_VARINT);
	varint(b, v);
}

static void f_sint(struct pbuf *b, unsigned int field, __s64 v)
{
	key(b, field, WIRE_VARINT);
	varint(b, zigzag(v));
}

static void f_double(struct pbuf *b, unsigned int field, double v)
{
	unsigned char t[8];
	__u64 u;

	memcpy(&u, &v, sizeof(u));
	for (int i = 0; i < 8; i++)
		t[i] = (unsigned char)(u >> (8 * i)); /* little-endian on the wire */
	key(b, field, WIRE_I64);
	put(b, t, sizeof(t));
}

static void f_bytes(struct pbuf *b, unsigned int field, const void *p, size_t n)
{
	key(b, field, WIRE_LEN);
	varint(b, n);
	put(b, p, n);
}

static void f_string(struct pbuf *b, unsigned int field, const char *s)
{
	f_bytes(b, field, s, strlen(s));
}

/* an embedded message, encoded in m, which is emptied for its next use */
static void f_msg(struct pbuf *b, unsigned int field, struct pbuf *m)
{
	f_bytes(b, field, m->p, m->len);
	b->nomem |= m->nomem;
	m->len = 0;
	m->nomem = false;
}

/* ---- messages --------------------------------------------------------- */

/* MetricFamily: name = 1, help = 2, type = 3, metric = 4 */
enum { MF_NAME = 1, MF_HELP = 2, MF_TYPE = 3, MF_METRIC = 4 };
/* Metric: label = 1, gauge = 2, counter = 3, histogram = 7 */
enum { M_LABEL = 1, M_GAUGE = 2, M_COUNTER = 3, M_HISTOGRAM = 7 };
/* LabelPair: name = 1, value = 2; Gauge and Counter: value = 1 */
enum { LP_NAME = 1, LP_VALUE = 2, VALUE = 1 };
/*
 * Histogram: sample_count = 1, sample_sum = 2, bucket = 3, schema = 5,
 * zero_threshold = 6, zero_count = 7, positive_span = 12, positive_delta =
 * 13; Bucket: cumulative_count = 1, upper_bound = 2; BucketSpan: offset =
 * 1, length = 2.
 */
enum {
	H_COUNT = 1,
	H_SUM = 2,
	H_BUCKET = 3,
	H_SCHEMA = 5,
	H_ZERO_THRESHOLD = 6,
	H_ZERO_COUNT = 7,
	H_POS_SPAN = 12,
	H_POS_DELTA = 13,
};
enum { B_CUMULATIVE = 1, B_UPPER = 2, SPAN_OFFSET = 1, SPAN_LENGTH = 2 };

/*
 * A gap of up to this many empty buckets stays inside a span, as zero
 * deltas (a byte each): cheaper than a new span (4 bytes or more).
 */
#define SPAN_GAP_MAX 2

void pb_family(struct pb_writer *w, const char *name, enum prom_type type, const char *help)
{
	w->head.len = 0;
	w->body.len = 0;
	f_string(&w->head, MF_NAME, name);
	f_string(&w->head, MF_HELP, help);
	f_uint(&w->head, MF_TYPE, type);
}

/* body as a message of its own, when it holds metrics */
static void flush(struct pb_writer *w, struct pbuf *out)
{
	if (!w->body.len)
		return;
	varint(out, w->head.len + w->body.len);
	put(out, w->head.p, w->head.len);
	put(out, w->body.p, w->body.len);
	out->nomem |= w->head.nomem || w->body.nomem;
	w->body.len = 0;
}

/* the metric's labels into w->metric */
static void labels(struct pb_writer *w, const struct prom_labels *l)
{
	for (unsigned int i = 0; i < l->n; i++) {
		f_string(&w->inner, LP_NAME, l->key[i]);
		f_string(&w->inner, LP_VALUE, l->val[i]);
		f_msg(&w->metric, M_LABEL, &w->inner);
	}
}

/* w->metric, complete, into the family; a message out if body is full */
static void add_metric(struct pb_writer *w, struct pbuf *out)
{
	f_msg(&w->body, MF_METRIC, &w->metric);
	if (w->body.len >= PB_CHUNK)
		flush(w, out);
}

void pb_value(struct pb_writer *w, struct pbuf *out, enum prom_type type,
	      const struct prom_labels *l, __u64 v)
{
	labels(w, l);
	f_double(&w->inner, VALUE, (double)v);
	f_msg(&w->metric, type == PROM_GAUGE ? M_GAUGE : M_COUNTER, &w->inner);
	add_metric(w, out);
}

/* one BucketSpan of the positive buckets */
static void span(struct pbuf *inner, __s64 offset, __u32 len)
{
	char t[24];
	struct pbuf m = { .p = t, .cap = sizeof(t), .fixed = true };

	f_sint(&m, SPAN_OFFSET, offset);
	f_uint(&m, SPAN_LENGTH, len);
	f_msg(inner, H_POS_SPAN, &m);
}

/*
 * The native buckets: rxlat's bucket b >= 1 is native bucket
 * rxlat_hist_native_index(b) of schema RXLAT_HIST_SCHEMA, bound for bound,
 * and bucket 0 the zero bucket (include/rxlat_hist.h), so each count is
 * sent as it is. Spans of consecutive buckets (the first one's offset its
 * first index, the others' the gap after the previous one), then the
 * counts, packed, each as its difference from the previous one.
 */
static void native(struct pb_writer *w, const struct rxlat_hist *h)
{
	char t[RXLAT_HIST_BUCKETS * 10];
	struct pbuf deltas = { .p = t, .cap = sizeof(t), .fixed = true };
	__s64 prev = 0;
	int start = 0, end = 0, prev_end = 0; /* the open span is [start, end) */
	bool open = false, closed = false;

	f_sint(&w->inner, H_SCHEMA, RXLAT_HIST_SCHEMA);
	f_double(&w->inner, H_ZERO_THRESHOLD, ldexp(1.0, RXLAT_HIST_ZERO_LOG2));
	f_uint(&w->inner, H_ZERO_COUNT, h->buckets[0]);
	for (__u32 b = 1; b < RXLAT_HIST_BUCKETS; b++) {
		int i = rxlat_hist_native_index(b);

		if (!h->buckets[b])
			continue;
		if (open && i - end <= SPAN_GAP_MAX) {
			for (; end < i; end++, prev = 0)
				varint(&deltas, zigzag(-prev));
		} else {
			if (open) {
				span(&w->inner, closed ? start - prev_end : start, end - start);
				prev_end = end;
				closed = true;
			}
			start = i;
			open = true;
		}
		varint(&deltas, zigzag((__s64)h->buckets[b] - prev));
		prev = (__s64)h->buckets[b];
		end = i + 1;
	}
	if (open) {
		span(&w->inner, closed ? start - prev_end : start, end - start);
		f_bytes(&w->inner, H_POS_DELTA, deltas.p, deltas.len);
	}
	w->inner.nomem |= deltas.nomem;
}

void pb_hist(struct pb_writer *w, struct pbuf *out, const struct prom_labels *l,
	     const struct rxlat_hist *h, const struct prom_bucket *classic, unsigned int nclassic)
{
	__u64 cum = 0;
	__u32 fine = 0;

	__u64 count = 0;

	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++)
		count += h->buckets[b];
	labels(w, l);
	f_uint(&w->inner, H_COUNT, count);
	f_double(&w->inner, H_SUM, (double)h->sum_ns / 1e9);
	for (unsigned int e = 0; e < nclassic; e++) {
		char t[32];
		struct pbuf bucket = { .p = t, .cap = sizeof(t), .fixed = true };

		for (; fine <= classic[e].last; fine++)
			cum += h->buckets[fine];
		f_uint(&bucket, B_CUMULATIVE, cum);
		f_double(&bucket, B_UPPER, (double)rxlat_hist_le(classic[e].last) / 1e9);
		f_msg(&w->inner, H_BUCKET, &bucket);
	}
	native(w, h);
	f_msg(&w->metric, M_HISTOGRAM, &w->inner);
	add_metric(w, out);
}

void pb_end(struct pb_writer *w, struct pbuf *out)
{
	flush(w, out);
}

void pb_writer_free(struct pb_writer *w)
{
	free(w->head.p);
	free(w->body.p);
	free(w->metric.p);
	free(w->inner.p);
	memset(w, 0, sizeof(*w));
}
