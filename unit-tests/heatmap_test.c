// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the heatmap store and its SVG (collector/render/heatmap.h):
 * cells that add up to what was put in, tooltips in readable units, the
 * window that drops the oldest interval, the empty picture, escaping, the
 * panel limit and its note, a long title cut in its middle, and the buckets found by their bounds.
 * One line per check; exit status 1 when one failed. Bucket bounds expected here are worked out
 * from their definition (rxlat_hist.h), not from its table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "rxlat_hist.h"
#include "series.h"
#include "heatmap.h"
#include "check.h"

/* The picture of h, as a string (free it). */
static char *svg_of(const struct heatmap *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (heatmap_svg(h, "test & <run>", f))
		check_fail("heatmap_svg failed");
	fclose(f);
	return buf;
}

static int occurrences(const char *s, const char *what)
{
	int n = 0;

	for (s = strstr(s, what); s; s = strstr(s + 1, what))
		n++;
	return n;
}

/* The sum of the "N samples</title>" of the cells. */
static unsigned long long cell_sum(const char *s)
{
	unsigned long long n = 0;

	for (const char *p = strstr(s, " samples</title>"); p;
	     p = strstr(p + 1, " samples</title>")) {
		const char *q = p;

		while (q > s && q[-1] >= '0' && q[-1] <= '9')
			q--;
		n += strtoull(q, NULL, 10);
	}
	return n;
}

static int series(struct heatmap *h, const char *stage, const char *queue)
{
	struct heatmap_label l[] = {
		{ "stage", stage }, { "ifname", "eth0" }, { "ifindex", "2" }, { "queue", queue }
	};

	return heatmap_series(h, l, 4);
}

static void test_cells_add_up(void)
{
	struct heatmap *h = heatmap_new(0);
	char *s;
	int p, q;

	heatmap_interval(h, 1796220000.5, 1);
	p = series(h, "ip_rcv", "0");
	q = series(h, "sock_read", "1");
	if (p < 0 || q < 0 || series(h, "ip_rcv", "0") != p)
		check_fail("the same labels give another panel");
	heatmap_cell(h, p, 40, 3);
	heatmap_cell(h, p, 41, 5);
	heatmap_interval(h, 1796220001.5, 1);
	heatmap_cell(h, p, 40, 7);
	heatmap_cell(h, q, RXLAT_HIST_BUCKETS - 1, 2);
	heatmap_cell(h, q, 0, 0); /* nothing */
	if (heatmap_samples(h) != 17 || heatmap_intervals(h) != 2)
		check_fail("samples %llu, intervals %u; want 17, 2",
			   (unsigned long long)heatmap_samples(h), heatmap_intervals(h));
	s = svg_of(h);
	if (!s || cell_sum(s) != 17)
		check_fail("cells add up to %llu, want 17", s ? cell_sum(s) : 0);
	else if (occurrences(s, "<title>") != 4 + 2)
		check_fail("%d titles, want 4 cells and 2 panels", occurrences(s, "<title>"));
	else if (!strstr(s, "13:59:59.500-14:00:00.500 UTC, ") ||
		 !strstr(s, "over 16 s: 2 samples"))
		check_fail("tooltip times or the overflow's range missing");
	else if (!strstr(s, ">ip_rcv eth0 queue 0<") || strstr(s, "ifindex"))
		check_fail("panel title not \"ip_rcv eth0 queue 0\" (or the ifindex in it)");
	else if (!strstr(s, "test &amp; &lt;run&gt;"))
		check_fail("heading not escaped");
	/* ip_rcv before sock_read: the stage order */
	else if (strstr(s, ">sock_read eth0") < strstr(s, ">ip_rcv eth0"))
		check_fail("panels not in stage order");
	free(s);
	heatmap_free(h);
	check_done("heatmap_cells_add_up");
}

/* A cell's range: bucket 41 is (bound 40, bound 41] from the definition. */
static void test_tooltip_range(void)
{
	struct heatmap *h = heatmap_new(0);
	double lo = floor(1e9 * pow(2, (40 - 192) / 8.0)) + 1,
	       hi = floor(1e9 * pow(2, (41 - 192) / 8.0));
	char want[96], *s;

	snprintf(want, sizeof(want), "%.3g us to %.3g us: 5 samples", lo / 1e3, hi / 1e3);
	heatmap_interval(h, 1796220000, 1);
	heatmap_cell(h, series(h, "ip_rcv", "0"), 41, 5);
	s = svg_of(h);
	if (!s || !strstr(s, want))
		check_fail("no tooltip \"%s\"", want);
	free(s);
	heatmap_free(h);
	check_done("heatmap_tooltip_range");
}

static void test_window(void)
{
	struct heatmap *h = heatmap_new(2);
	char *s;
	int p;

	for (int i = 0; i < 3; i++) {
		heatmap_interval(h, 1796220000 + i, 1);
		/* a series seen in the first interval only goes with it */
		p = series(h, i ? "ip_rcv" : "udp_queue_rcv", "0");
		heatmap_cell(h, p, 50, (__u64)(i + 1));
	}
	s = svg_of(h);
	if (heatmap_intervals(h) != 2 || heatmap_samples(h) != 5)
		check_fail("%u intervals, %llu samples; want 2 and 5 (the first dropped)",
			   heatmap_intervals(h), (unsigned long long)heatmap_samples(h));
	else if (!s || strstr(s, "udp_queue_rcv"))
		check_fail("the dropped interval's series still drawn");
	free(s);
	heatmap_free(h);
	check_done("heatmap_window");
}

static void test_empty(void)
{
	struct heatmap *h = heatmap_new(0);
	char *s;

	heatmap_interval(h, 1796220000, 1);
	series(h, "ip_rcv", "0"); /* a series without samples is left out */
	s = svg_of(h);
	if (!s || !strstr(s, "no samples") || strstr(s, "class=\"panel\"") || !strstr(s, "</svg>"))
		check_fail("the empty picture does not say so: %s", s ? s : "");
	free(s);
	heatmap_free(h);
	check_done("heatmap_empty");
}

static void test_panel_limit(void)
{
	struct heatmap *h = heatmap_new(0);
	char q[16], *s;

	heatmap_interval(h, 1796220000, 1);
	for (int i = 0; i < HEATMAP_MAX_PANELS + 3; i++) {
		snprintf(q, sizeof(q), "%d", i);
		heatmap_cell(h, series(h, "ip_rcv", q), 60, 1);
	}
	s = svg_of(h);
	/* the cells of the series left out are not kept: the memory's bound */
	if (heatmap_samples(h) != HEATMAP_MAX_PANELS)
		check_fail("%llu samples kept, want %d", (unsigned long long)heatmap_samples(h),
			   HEATMAP_MAX_PANELS);
	else if (!s || occurrences(s, "class=\"panel\"") != HEATMAP_MAX_PANELS)
		check_fail("%d panels, want %d", s ? occurrences(s, "class=\"panel\"") : 0,
			   HEATMAP_MAX_PANELS);
	/* the first series seen have the panels: the last three are left out */
	else if (!strstr(s, "3 more series not drawn") || !strstr(s, "queue 66</text>"))
		check_fail("no note naming the series left out");
	free(s);
	heatmap_free(h);
	check_done("heatmap_panel_limit");
}

/* A title longer than its panel: cut in the middle, both ends shown, whole on hover. */
static void test_title_cut(void)
{
	struct heatmap *h = heatmap_new(0);
	const char *ns = "rxlat-demo1066-a-namespace-name-long-enough-to-cut-pod-dns";
	struct heatmap_label l[] = { { "stage", "napi_wait" },
				     { "ifname", "h0" },
				     { "ifindex", "2" },
				     { "queue", "3" },
				     { "netns", ns } };
	char want[160], *s, *t;

	heatmap_interval(h, 1796220000, 1);
	heatmap_cell(h, heatmap_series(h, l, 5), 41, 5);
	s = svg_of(h);
	t = s ? strstr(s, "<text class=\"title\"") : NULL;
	t = t ? strchr(t, '>') : NULL;
	if (!t || strncmp(t + 1, "napi_wait h0 queue 3", 20))
		check_fail("the title does not start with the stage, interface and queue");
	if (!t || !strstr(t, "...") || !strstr(t, "-pod-dns<title>"))
		check_fail("the cut title does not end with the label's end");
	snprintf(want, sizeof(want), "<title>napi_wait h0 queue 3 netns=%s", ns);
	if (!s || !strstr(s, want))
		check_fail("the whole title is not the hover text");
	free(s);
	heatmap_free(h);
	check_done("heatmap_title_cut");
}

static void test_bucket_of(void)
{
	for (__u32 b = 0; b + 1 < RXLAT_HIST_BUCKETS; b++) {
		__u64 le = (__u64)floor(1e9 * pow(2, ((double)b - 192) / 8));

		if (heatmap_bucket_of(le) != (int)b)
			check_fail("bound %llu: bucket %d, want %u", (unsigned long long)le,
				   heatmap_bucket_of(le), b);
		if (heatmap_bucket_of(le + 1) != -1 &&
		    le + 1 != (__u64)floor(1e9 * pow(2, ((double)b - 191) / 8)))
			check_fail("%llu is no bound, found as one", (unsigned long long)le + 1);
	}
	if (heatmap_bucket_of(~0ULL) != RXLAT_HIST_BUCKETS - 1)
		check_fail("+Inf is not the overflow bucket");
	check_done("heatmap_bucket_of");
}

int main(int argc, char **argv)
{
	check_args(argc, argv);
	CHECK_RUN(test_cells_add_up);
	CHECK_RUN(test_tooltip_range);
	CHECK_RUN(test_window);
	CHECK_RUN(test_empty);
	CHECK_RUN(test_panel_limit);
	CHECK_RUN(test_title_cut);
	CHECK_RUN(test_bucket_of);
	return check_exit_status();
}
