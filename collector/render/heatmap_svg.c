// SPDX-License-Identifier: GPL-2.0
/* The heatmap drawn as SVG (heatmap.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rxlat_hist.h"
#include "heatmap_impl.h"

/*
 * Yellow to dark red, for counts on a log scale (ColorBrewer's YlOrRd
 * without its two palest, which a lone sample's cell, often the one to
 * see, would all but hide in).
 */
static const char *const colours[] = { "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a",
				       "#e31a1c", "#bd0026", "#800026", "#4a0014" };
#define NCOLOURS ((int)(sizeof(colours) / sizeof(colours[0])))

/* The colour of count c of at most max: its step on a log scale. */
static int level(__u64 c, __u64 max)
{
	int k;

	if (max <= 1 || c <= 1)
		return 0;
	k = (int)(log((double)c) / log((double)max) * (NCOLOURS - 0.001));
	return k < NCOLOURS ? k : NCOLOURS - 1;
}

/* ns as people read it: 59 ns, 1.04 us, 12.3 ms, 2 s */
static void fmt_ns(char *buf, size_t n, double ns)
{
	if (ns < 1e3)
		snprintf(buf, n, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, n, "%.3g us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, n, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, n, "%.3g s", ns / 1e9);
}

/* bucket b's range: "1.04 us to 1.13 us", "over 16 s" */
static void fmt_bucket(char *buf, size_t n, __u32 b)
{
	char lo[32], hi[32];

	if (b == RXLAT_HIST_BUCKETS - 1) {
		fmt_ns(hi, sizeof(hi), (double)rxlat_hist_le(b - 1));
		snprintf(buf, n, "over %s", hi);
		return;
	}
	fmt_ns(lo, sizeof(lo), (double)rxlat_hist_lower(b));
	fmt_ns(hi, sizeof(hi), (double)rxlat_hist_le(b));
	snprintf(buf, n, "%s to %s", lo, hi);
}

/* "15:00:01.123" (UTC), or with the date "2026-12-02 15:00:01" */
static void fmt_clock(char *buf, size_t n, double s, bool date, bool ms)
{
	/*
	 * in whole ms, truncated as the JSON's time is; the 1 us added makes
	 * up for a decimal fraction that a double holds a little low (.123
	 * as .12299999...), far above a double's error at 2e12 ms
	 */
	long long total = (long long)floor(s * 1000 + 1e-3);
	time_t t = (time_t)(total / 1000);
	struct tm tm;
	size_t k;

	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, n, "?");
		return;
	}
	k = strftime(buf, n, date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
	if (ms && k)
		snprintf(buf + k, n - k, ".%03lld", total % 1000);
}

static void put_char(FILE *f, char c)
{
	switch (c) {
	case '<':
		fputs("&lt;", f);
		break;
	case '>':
		fputs("&gt;", f);
		break;
	case '&':
		fputs("&amp;", f);
		break;
	case '"':
		fputs("&quot;", f);
		break;
	default:
		/* control characters are not allowed in XML 1.0 */
		fputc((unsigned char)c < 0x20 ? '?' : c, f);
	}
}

/*
 * s, XML-escaped, cut to max characters where longer: "..." in the middle,
 * so that both the stage, interface and queue at its start and the end of
 * a long label (a pod's namespace "...-pod-dns") still show.
 */
static void put_cut(FILE *f, const char *s, size_t max)
{
	size_t n = strlen(s), head = n, tail = 0;

	if (n > max && max > 3) {
		tail = (max - 3) / 3;
		head = max - 3 - tail;
	} else if (n > max) {
		head = 0;
	}
	for (size_t i = 0; i < head; i++)
		put_char(f, s[i]);
	if (head == n)
		return;
	fputs("...", f);
	for (size_t i = n - tail; i < n; i++)
		put_char(f, s[i]);
}

static void put_escaped(FILE *f, const char *s)
{
	put_cut(f, s, SIZE_MAX);
}

static int by_stage(const void *a, const void *b)
{
	const struct hm_panel *x = *(struct hm_panel *const *)a, *y = *(struct hm_panel *const *)b;
	int c;

	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	c = strcmp(x->row, y->row);
	if (c)
		return c;
	return x->queue < y->queue ? -1 : x->queue > y->queue;
}

/* What every panel shares: its size, its buckets, its time, its colours. */
struct layout {
	const struct heatmap *h;
	int ylo, yhi;		 /* buckets drawn */
	double cw, rh, pw, ph;	 /* a cell's width and height, a plot's */
	double panel_w, panel_h; /* a panel, axes and title included */
	__u64 max;		 /* the largest cell */
};

#define AXIS_W	64
#define TITLE_H 36
#define XAXIS_H 30
#define HEAD_H	84
#define MARGIN	12
#define ROW_MAX 1600.0 /* a row of panels at most this wide */
#define PLOT_W	640.0
#define PLOT_H	240.0

static void layout_of(struct layout *L, const struct heatmap *h, struct hm_panel **p, size_t np)
{
	int nrows;

	L->h = h;
	L->ylo = RXLAT_HIST_BUCKETS - 1;
	L->yhi = 0;
	L->max = 1;
	for (size_t i = 0; i < np; i++) {
		for (size_t k = 0; k < p[i]->n; k++) {
			const struct hm_cell *c = &p[i]->cells[k];

			L->ylo = (int)c->b < L->ylo ? (int)c->b : L->ylo;
			L->yhi = (int)c->b > L->yhi ? (int)c->b : L->yhi;
			L->max = c->count > L->max ? c->count : L->max;
		}
	}
	/* a quarter of a power of two of room each side, inside the buckets */
	L->ylo = L->ylo > 2 ? L->ylo - 2 : 0;
	L->yhi = L->yhi < (int)RXLAT_HIST_BUCKETS - 3 ? L->yhi + 2 : (int)RXLAT_HIST_BUCKETS - 1;
	nrows = L->yhi - L->ylo + 1;
	L->cw = fmin(40, PLOT_W / (double)h->niv);
	L->rh = fmax(2, fmin(8, PLOT_H / nrows));
	L->pw = L->cw * (double)h->niv;
	L->ph = L->rh * nrows;
	L->panel_w = AXIS_W + fmax(L->pw, 200) + MARGIN;
	L->panel_h = TITLE_H + L->ph + XAXIS_H;
}

/* The y of latency ns in a plot whose bottom is at y0, inside its bucket. */
static double y_of(const struct layout *L, double y0, double ns)
{
	__u32 b = rxlat_hist_bucket((__u64)ns);
	double lo = (double)rxlat_hist_lower(b), hi = (double)rxlat_hist_le(b);
	double in = (log(ns) - log(lo)) / (log(hi + 1) - log(lo));

	return y0 - ((double)((int)b - L->ylo) + in) * L->rh;
}

static void y_ticks(FILE *f, const struct layout *L, double x0, double y0)
{
	/* decades, and 2 and 5 between them where the buckets span few */
	bool fine = L->yhi - L->ylo < 2 * 27;
	double lo = (double)rxlat_hist_lower((__u32)L->ylo),
	       hi = (double)rxlat_hist_le((__u32)L->yhi);
	char t[32];

	if (L->ylo == 0)
		lo = (double)rxlat_hist_bounds[0] + 1;
	if (L->yhi == RXLAT_HIST_BUCKETS - 1)
		hi = (double)rxlat_hist_bounds[RXLAT_HIST_BUCKETS - 2];
	for (double dec = 1; dec <= 1e11; dec *= 10) {
		for (int m = 1; m <= 5; m++) {
			double v = dec * m, y;

			if ((m != 1 && m != 2 && m != 5) || (!fine && m != 1) || v < lo || v > hi)
				continue;
			y = y_of(L, y0, v);
			fmt_ns(t, sizeof(t), v);
			fprintf(f,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#555\"/>"
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
				x0 - 4, y, x0, y, x0 - 6, y + 4, t);
		}
	}
}

static void x_ticks(FILE *f, const struct layout *L, double x0, double y0)
{
	size_t every = (size_t)ceil(70 / L->cw);
	char t[32];

	for (size_t i = 0; i < L->h->niv; i += every) {
		double x = x0 + L->cw * (double)(i + 1);

		fmt_clock(t, sizeof(t), L->h->iv[i].end_s, false, false);
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			x, y0, x, y0 + 4, x, y0 + 16, t);
	}
}

static void panel_svg(FILE *f, const struct layout *L, const struct hm_panel *p, double x, double y)
{
	double x0 = x + AXIS_W, y0 = y + TITLE_H + L->ph;
	char range[80], t0[32], t1[32];
	size_t iv = 0;

	/* the title over the whole panel, about 7 px a character; its count below */
	fprintf(f, "<g class=\"panel\">\n<text class=\"title\" x=\"%.1f\" y=\"%.1f\">", x, y + 14);
	put_cut(f, p->title, (size_t)((L->panel_w - MARGIN) / 7));
	fputs("<title>", f);
	put_escaped(f, p->title);
	fprintf(f,
		"</title></text>\n<text class=\"total\" x=\"%.1f\" y=\"%.1f\" fill=\"#555\">%llu "
		"samples</text>\n",
		x, y + 28, (unsigned long long)p->samples);
	fprintf(f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fcfcfc\" "
		"stroke=\"#bbb\"/>\n",
		x0, y0 - L->ph, L->pw, L->ph);
	for (size_t k = 0; k < p->n; k++) {
		const struct hm_cell *c = &p->cells[k];
		const struct hm_interval *in;

		while (iv < L->h->niv && L->h->iv[iv].seq < c->seq)
			iv++;
		if (iv == L->h->niv)
			break;
		in = &L->h->iv[iv];
		fmt_bucket(range, sizeof(range), c->b);
		fmt_clock(t0, sizeof(t0), in->end_s - in->len_s, false, true);
		fmt_clock(t1, sizeof(t1), in->end_s, false, true);
		fprintf(f,
			"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
			"<title>%s-%s UTC, %s: %llu samples</title></rect>\n",
			x0 + L->cw * (double)iv, y0 - L->rh * (c->b - L->ylo + 1), L->cw, L->rh,
			colours[level(c->count, L->max)], t0, t1, range,
			(unsigned long long)c->count);
	}
	y_ticks(f, L, x0, y0);
	x_ticks(f, L, x0, y0);
	fputs("</g>\n", f);
}

/* The colours and the counts they stand for, from x, y. */
static void legend_svg(FILE *f, const struct layout *L, double x, double y)
{
	__u64 lo[NCOLOURS + 1];
	int k;

	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">samples per cell:</text>\n", x, y + 13);
	x += 120;
	/* lo[k]: the smallest count of colour k */
	for (k = 0; k < NCOLOURS; k++) {
		double v = k ? exp(k / (NCOLOURS - 0.001) * log((double)L->max)) : 1;

		lo[k] = (__u64)floor(v);
		while (lo[k] <= L->max && level(lo[k], L->max) < k)
			lo[k]++;
	}
	lo[NCOLOURS] = L->max + 1;
	for (k = 0; k < NCOLOURS; k++) {
		__u64 hi = lo[k + 1] - 1;

		if (lo[k] > L->max || hi < lo[k])
			continue;
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"16\" fill=\"%s\" "
			"stroke=\"#888\"/>",
			x, y, colours[k]);
		if (hi == lo[k])
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%llu</text>\n", x + 20, y + 13,
				(unsigned long long)lo[k]);
		else
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%llu-%llu</text>\n", x + 20, y + 13,
				(unsigned long long)lo[k], (unsigned long long)hi);
		x += 110;
	}
}

static void head_svg(FILE *f, const struct heatmap *h, const char *what, double w, double hgt)
{
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\">rxlat latency "
		"heatmap: ",
		w, hgt, w, hgt, MARGIN);
	put_escaped(f, what);
	fputs("</text>\n", f);
	if (h->niv) {
		char t0[40], t1[40];

		fmt_clock(t0, sizeof(t0), h->iv[0].end_s - h->iv[0].len_s, true, false);
		fmt_clock(t1, sizeof(t1), h->iv[h->niv - 1].end_s, false, false);
		fprintf(
		    f,
		    "<text x=\"%d\" y=\"44\">%zu report%s, %s to %s UTC; time across, one column "
		    "per report interval; latency up (log scale, rxlat's buckets); hover a cell "
		    "for its numbers</text>\n",
		    MARGIN, h->niv, h->niv == 1 ? "" : "s", t0, t1);
	}
}

/* Whether panel i starts a row: per-queue series of one name side by side. */
static bool new_row(struct hm_panel **p, size_t i, size_t col, int perrow)
{
	return col == (size_t)perrow || (i && p[i]->queue >= 0 && strcmp(p[i]->row, p[i - 1]->row));
}

/* The series past the panel limit, under the panels at y. */
static void note_svg(FILE *f, const struct heatmap *h, double y)
{
	fprintf(f,
		"<text class=\"note\" x=\"%d\" y=\"%.1f\">%s%zu more series not drawn (%d panels "
		"at most, for the first series seen): ",
		MARGIN, y, h->left_more ? "over " : "", h->nleft, HEATMAP_MAX_PANELS);
	for (size_t i = 0; i < h->nleft; i++) {
		if (i == 8) {
			fputs(", ...", f);
			break;
		}
		fputs(i ? ", " : "", f);
		put_escaped(f, h->left[i].title);
	}
	fputs("</text>\n", f);
}

int heatmap_svg(const struct heatmap *h, const char *what, FILE *f)
{
	struct hm_panel **p = malloc((h->np ? h->np : 1) * sizeof(*p));
	double x = MARGIN, y = HEAD_H, w, hgt, rowmax = 0;
	size_t np = 0, col = 0;
	struct layout L;
	int perrow;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < h->np; i++)
		if (h->p[i].samples)
			p[np++] = &h->p[i];
	if (!np) {
		head_svg(f, h, what, 720, 100);
		fprintf(f,
			"<text class=\"empty\" x=\"%d\" y=\"74\">no samples: the %u report%s read "
			"measured nothing to draw</text>\n</svg>\n",
			MARGIN, heatmap_intervals(h), h->niv == 1 ? "" : "s");
		free(p);
		return fflush(f) || ferror(f) ? -EIO : 0;
	}
	qsort(p, np, sizeof(*p), by_stage);
	layout_of(&L, h, p, np);
	perrow = (int)fmax(1, floor(ROW_MAX / L.panel_w));
	hgt = HEAD_H;
	for (size_t i = 0; i < np; i++, col++) {
		if (new_row(p, i, col, perrow)) {
			col = 0;
			hgt += L.panel_h;
		}
		rowmax = fmax(rowmax, (double)(col + 1) * L.panel_w);
	}
	hgt += L.panel_h + (h->nleft ? 40 : 0) + MARGIN;
	w = fmax(rowmax + 2 * MARGIN, 1180);
	head_svg(f, h, what, w, hgt);
	legend_svg(f, &L, MARGIN, 56);
	col = 0;
	for (size_t i = 0; i < np; i++, col++) {
		if (new_row(p, i, col, perrow)) {
			col = 0;
			x = MARGIN;
			y += L.panel_h;
		}
		panel_svg(f, &L, p[i], x, y);
		x += L.panel_w;
	}
	if (h->nleft)
		note_svg(f, h, y + L.panel_h + 20);
	fputs("</svg>\n", f);
	free(p);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

int heatmap_write(const struct heatmap *h, const char *what, const char *path)
{
	size_t n = strlen(path) + 5;
	char *tmp = malloc(n);
	FILE *f;
	int err;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, n, "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		err = -errno;
		free(tmp);
		return err;
	}
	err = heatmap_svg(h, what, f);
	if (fclose(f) && !err)
		err = -EIO;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
