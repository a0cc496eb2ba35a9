/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency heatmaps: the reports of a run, one panel per series (stage,
 * interface, queue, group), time across in report intervals, rxlat's own
 * buckets up, each cell coloured by its count, written as one SVG file
 * with no script in it. rxlat --heatmap fills the store from its reports
 * as they are made, rxlat-heatmap from the lines of rxlat -o json; both
 * draw with heatmap_svg().
 */
#ifndef RXLAT_HEATMAP_H
#define RXLAT_HEATMAP_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

/*
 * Panels at most, given to the first series seen (in the window): the
 * cells of the others are not kept, which bounds the memory; a note under
 * the panels names them.
 */
#define HEATMAP_MAX_PANELS 64

struct heatmap;

/* A label of a series: val NULL where the label is null (JSON null). */
struct heatmap_label {
	const char *key;
	const char *val;
};

/* The last window intervals are kept (0: all of them). NULL: no memory. */
struct heatmap *heatmap_new(unsigned int window);
void heatmap_free(struct heatmap *h);
/*
 * The next report interval, ending at end_s (seconds since the epoch,
 * UTC) and interval_s long; the cells added next belong to it. The oldest
 * interval past the window goes, with its cells. 0 or -ENOMEM.
 */
int heatmap_interval(struct heatmap *h, double end_s, double interval_s);
/*
 * The panel of the series with these labels (a "stage" among them), made
 * on its first use: its index, -ENOSPC past the panel limit (the series is
 * named in the note, its cells are not kept), or -ENOMEM.
 */
int heatmap_series(struct heatmap *h, const struct heatmap_label *l, unsigned int n);
/* A series of rxlat's own report (series.h), labels and buckets. 0 or -errno. */
struct rxlat_series;
int heatmap_add(struct heatmap *h, const struct rxlat_series *s);
/* count samples in bucket b of panel p in the current interval. 0 or -errno. */
int heatmap_cell(struct heatmap *h, int p, __u32 b, __u64 count);
/* Intervals and samples held (in the window). */
unsigned int heatmap_intervals(const struct heatmap *h);
__u64 heatmap_samples(const struct heatmap *h);
/*
 * The picture into f; with no sample, a picture that says so. 0 or -EIO.
 * what names the input in the picture's heading (a file, "rxlat").
 */
int heatmap_svg(const struct heatmap *h, const char *what, FILE *f);
/*
 * The picture into path, through path.tmp and a rename, so that a reader
 * never finds half a file. 0 or a negative errno.
 */
int heatmap_write(const struct heatmap *h, const char *what, const char *path);
/* The bucket whose largest value is le_ns (~0: the overflow), or -1. */
int heatmap_bucket_of(__u64 le_ns);

#endif
