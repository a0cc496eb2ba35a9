// SPDX-License-Identifier: GPL-2.0
/* The text report: libbpf-tools' histograms, with percentiles, per series. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxlat_hist.h"
#include "opt.h"
#include "report.h"

/* Rows of the text histogram: the zero bucket, a power of two of seconds each, overflow */
#define ROWS  (RXLAT_HIST_OCTAVES + 2)
#define STARS 40

/*
 * 3 significant digits in the largest unit that keeps the number >= 1,
 * choosing the unit after rounding so that 999.7 us reads 1.00 ms.
 */
static void fmt_dur(char *buf, size_t len, double ns)
{
	static const char *const unit[] = { "us", "ms", "s" };
	double v = ns;
	int u;

	if (ns < 999.5) {
		snprintf(buf, len, "%.0f ns", ns);
		return;
	}
	for (u = 0; u < 3; u++) {
		v /= 1000;
		if (v < 9.995)
			snprintf(buf, len, "%.2f %s", v, unit[u]);
		else if (v < 99.95)
			snprintf(buf, len, "%.1f %s", v, unit[u]);
		else if (v < 999.5 || u == 2)
			snprintf(buf, len, "%.0f %s", v, unit[u]);
		else
			continue;
		return;
	}
}

/*
 * A row bound in us with all three decimals, exact to the ns. One unit for
 * every series of every report: a unit chosen by the samples (ns for fast
 * ones, us past a millisecond) changes between reports, however it is
 * kept afterwards, and a reader comparing two then misreads the rows.
 */
static void fmt_bound(char *buf, size_t len, __u64 ns)
{
	if (ns == UINT64_MAX)
		snprintf(buf, len, "+Inf");
	else
		snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, (uint64_t)ns / 1000,
			 (uint64_t)ns % 1000);
}

/* Fine buckets [*first, *last] make up text row row. */
static void row_buckets(int row, __u32 *first, __u32 *last)
{
	if (row == 0) {
		*first = *last = 0;
	} else if (row == ROWS - 1) {
		*first = *last = RXLAT_HIST_BUCKETS - 1;
	} else {
		*first = 1 + (row - 1) * RXLAT_HIST_SUB;
		*last = *first + RXLAT_HIST_SUB - 1;
	}
}

static void row_bounds(int row, __u64 *lo, __u64 *hi)
{
	__u32 first, last;

	row_buckets(row, &first, &last);
	*lo = rxlat_hist_lower(first);
	*hi = rxlat_hist_le(last);
}

static __u64 row_count(const struct rxlat_stats *st, int row)
{
	__u32 i, first, last;
	__u64 n = 0;

	row_buckets(row, &first, &last);
	for (i = first; i <= last; i++)
		n += st->buckets[i];
	return n;
}

static void print_hist(FILE *f, const struct rxlat_series *s)
{
	const struct rxlat_stats *st = &s->st;
	char lo_s[32], hi_s[32], num[32];
	__u64 rows[ROWS], max = 0, lo, hi;
	int first = -1, last = -1, row, w = 10, cw = 8, stars, i;

	for (row = 0; row < ROWS; row++) {
		rows[row] = row_count(st, row);
		if (!rows[row])
			continue;
		if (first < 0)
			first = row;
		last = row;
		if (rows[row] > max)
			max = rows[row];
	}
	if (first < 0)
		return;

	for (row = first; row <= last; row++) {
		row_bounds(row, &lo, &hi);
		fmt_bound(lo_s, sizeof(lo_s), lo);
		fmt_bound(hi_s, sizeof(hi_s), hi);
		if ((int)strlen(lo_s) > w)
			w = strlen(lo_s);
		if ((int)strlen(hi_s) > w)
			w = strlen(hi_s);
	}
	snprintf(num, sizeof(num), "%" PRIu64, (uint64_t)max);
	if ((int)strlen(num) > cw)
		cw = strlen(num);

	fprintf(f, "%*s%-*s : %-*s distribution\n", w - 5, "", w + 9, "usecs", cw + 1, "count");
	for (row = first; row <= last; row++) {
		row_bounds(row, &lo, &hi);
		fmt_bound(lo_s, sizeof(lo_s), lo);
		fmt_bound(hi_s, sizeof(hi_s), hi);
		stars = (int)((double)rows[row] * STARS / (double)max);
		fprintf(f, "%*s -> %-*s : %-*" PRIu64 " |", w, lo_s, w, hi_s, cw,
			(uint64_t)rows[row]);
		for (i = 0; i < STARS; i++)
			fputc(i < stars ? '*' : ' ', f);
		fputs("|\n", f);
	}
}

/* "ip_rcv  ifname=eth0 queue=3": the bare label, then key=value of the others */
static void print_labels(FILE *f, const struct rxlat_series *s)
{
	const char *sep = "";

	for (unsigned int i = 0; i < s->nlabels; i++)
		if (s->labels[i].flags & RXLAT_LABEL_BARE) {
			fputs(s->labels[i].str, f);
			sep = "  ";
		}
	for (unsigned int i = 0; i < s->nlabels; i++) {
		const struct rxlat_label *l = &s->labels[i];

		if (l->flags & (RXLAT_LABEL_BARE | RXLAT_LABEL_JSON_ONLY) ||
		    l->kind == RXLAT_LABEL_NULL)
			continue;
		fprintf(f, "%s%s=%s", sep, l->key, l->str);
		sep = " ";
	}
}

static void print_series(FILE *f, const struct rxlat_series *s)
{
	const struct rxlat_stats *st = &s->st;
	char buf[32];
	size_t i;

	print_labels(f, s);
	for (int g = 0; g < RXLAT_NR_COUNT_GROUPS; g++) {
		bool any = g == RXLAT_GROUP_SOURCES;

		/* the groups after the sources only where they counted something */
		for (i = 0; i < RXLAT_NR_COUNTS && !any; i++)
			any = rxlat_count_group_of[i] == (enum rxlat_count_group)g && st->counts[i];
		if (!any)
			continue;
		fprintf(f, "  (%s:", rxlat_count_groups[g].name);
		for (i = 0; i < RXLAT_NR_COUNTS; i++)
			if (rxlat_count_group_of[i] == (enum rxlat_count_group)g)
				fprintf(f, " %s=%" PRIu64, rxlat_count_names[i],
					(uint64_t)st->counts[i]);
		fputc(')', f);
	}
	fputc('\n', f);

	print_hist(f, s);
	fprintf(f, "count %" PRIu64, (uint64_t)st->count);
	if (st->count) {
		fmt_dur(buf, sizeof(buf), (double)st->sum_ns / (double)st->count);
		fprintf(f, "  mean %s", buf);
		for (i = 0; i < rxlat_npcts; i++) {
			fmt_dur(buf, sizeof(buf), (double)rxlat_percentile(st, rxlat_pcts[i].q));
			fprintf(f, "  %s %s", rxlat_pcts[i].name, buf);
		}
		fmt_dur(buf, sizeof(buf), (double)st->max_ns);
		fprintf(f, "  max %s", buf);
	}
	fputc('\n', f);
}

static int num_width(__u64 v, int min)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)v);

	return n > min ? n : min;
}

static void queue_name(char *q, size_t len, int queue)
{
	if (queue == RXLAT_QUEUE_ALL)
		snprintf(q, len, "-");
	else if (queue == RXLAT_QUEUE_OTHER)
		snprintf(q, len, "other");
	else
		snprintf(q, len, "%d", queue);
}

/*
 * The NAPI polls of the XDP-stamped queues: how many, stamped packets per poll,
 * polls that used their whole budget, and where they ran; a queue whose
 * polls run in ksoftirqd, or fill their budget, is a queue whose CPU is
 * too busy for it.
 */
static void print_polls(FILE *f, const struct rxlat_xdp_row *x, size_t n)
{
	int wn = 6, wp = 5, wf = 4, wk = 9, wt = 6, len;
	bool any = false;
	char q[16];
	size_t i;

	for (i = 0; i < n; i++) {
		if (!x[i].polls)
			continue;
		any = true;
		len = strnlen(x[i].ifname, sizeof(x[i].ifname));
		wn = len > wn ? len : wn;
		wp = num_width(x[i].polls, wp);
		wf = num_width(x[i].polls_full, wf);
		wk = num_width(x[i].polls_ksoftirqd, wk);
		wt = num_width(x[i].polls_thread, wt);
	}
	if (!any)
		return;
	fprintf(f, "napi polls:\n%-*s  %5s  %*s  %9s  %*s  %*s  %*s  %3s\n", wn, "ifname", "queue",
		wp, "polls", "pkts/poll", wf, "full", wk, "ksoftirqd", wt, "thread", "cpu");
	for (i = 0; i < n; i++) {
		if (!x[i].polls)
			continue;
		queue_name(q, sizeof(q), x[i].queue);
		fprintf(f,
			"%-*.*s  %5s  %*" PRIu64 "  %9.1f  %*" PRIu64 "  %*" PRIu64 "  %*" PRIu64
			"  %3d\n",
			wn, (int)sizeof(x[i].ifname), x[i].ifname, q, wp, (uint64_t)x[i].polls,
			(double)x[i].stamped / (double)x[i].polls, wf, (uint64_t)x[i].polls_full,
			wk, (uint64_t)x[i].polls_ksoftirqd, wt, (uint64_t)x[i].polls_thread,
			x[i].cpu);
	}
}

static void print_xdp(FILE *f, const struct rxlat_xdp_row *x, size_t n)
{
	int wn = 6, wq = 5, ws = 4, wst = 7, wm = 12, len;
	char q[16];
	size_t i;

	for (i = 0; i < n; i++) {
		len = strnlen(x[i].ifname, sizeof(x[i].ifname));
		if (len > wn)
			wn = len;
		ws = num_width(x[i].seen, ws);
		wst = num_width(x[i].stamped, wst);
		wm = num_width(x[i].meta_refused, wm);
	}
	fprintf(f, "xdp stamper:\n%-*s  %*s  %*s  %*s  %*s\n", wn, "ifname", wq, "queue", ws,
		"seen", wst, "stamped", wm, "meta_refused");
	for (i = 0; i < n; i++) {
		queue_name(q, sizeof(q), x[i].queue);
		fprintf(f, "%-*.*s  %*s", wn, (int)sizeof(x[i].ifname), x[i].ifname, wq, q);
		fprintf(f, "  %*" PRIu64 "  %*" PRIu64 "  %*" PRIu64 "\n", ws, (uint64_t)x[i].seen,
			wst, (uint64_t)x[i].stamped, wm, (uint64_t)x[i].meta_refused);
	}
	print_polls(f, x, n);
}

/* --drops: one line per (interface, queue, reason), stamp-to-drop times */
static void print_drops(FILE *f, const struct rxlat_report *r)
{
	int wn = 6, wr = 6, wc = 5, len;
	char q[16], p50[32], max[32];
	size_t i;

	for (i = 0; i < r->ndrops; i++) {
		len = strnlen(r->drops[i].ifname, sizeof(r->drops[i].ifname));
		wn = len > wn ? len : wn;
		len = (int)strlen(r->drops[i].reason);
		wr = len > wr ? len : wr;
		wc = num_width(r->drops[i].st.count, wc);
	}
	fputs("drops (time from the stamp to the drop)", f);
	if (r->drops_lost)
		fprintf(f, ", %" PRIu64 " not counted: the drop map is full",
			(uint64_t)r->drops_lost);
	fprintf(f, ":\n%-*s  queue  %-*s  %*s  %10s  %10s\n", wn, "ifname", wr, "reason", wc,
		"count", rxlat_pcts[0].name, "max");
	for (i = 0; i < r->ndrops; i++) {
		const struct rxlat_drop_row *d = &r->drops[i];

		snprintf(q, sizeof(q), "%d", d->queue);
		fmt_dur(p50, sizeof(p50), (double)rxlat_percentile(&d->st, rxlat_pcts[0].q));
		fmt_dur(max, sizeof(max), (double)d->st.max_ns);
		fprintf(f, "%-*.*s  %5s  %-*s  %*" PRIu64 "  %10s  %10s\n", wn,
			(int)sizeof(d->ifname), d->ifname, q, wr, d->reason, wc,
			(uint64_t)d->st.count, p50, max);
	}
}

/*
 * "measures: ip_rcv=tcp,udp  ...  sock_read=tcp (udp not measured: why)":
 * the reasons of stages that are attached (an unattached stage's reason is
 * on the attach line already).
 */
static void print_coverage(FILE *f, const struct rxlat_report *r)
{
	fputs("measures:", f);
	for (int s = 0; s < RXLAT_NR_STAGES; s++) {
		const struct rxlat_coverage *c = &r->coverage[s];
		char protos[32];

		rxlat_protos_str(c->measured, protos, sizeof(protos));
		fprintf(f, "%s%s=%s", s ? "  " : " ", rxlat_stage_names[s],
			protos[0] ? protos : "none");
		for (int p = 0; r->attach[s] && p < RXLAT_NR_PROTOS; p++)
			if (c->why_not[p])
				fprintf(f, " (%s not measured: %s)", rxlat_proto_names[p],
					c->why_not[p]);
	}
	fputc('\n', f);
}

static void print_attach(FILE *f, const struct rxlat_report *r)
{
	fputs("attach:", f);
	for (int s = 0; s < RXLAT_NR_STAGES; s++) {
		const char *state = r->attach[s];

		if (!state)
			state = r->unavailable[s] ? "unavailable" : "off";
		fprintf(f, "%s%s=%s", s ? "  " : " ", rxlat_stage_names[s], state);
		if (r->unavailable[s])
			fprintf(f, " (%s)", r->unavailable[s]);
	}
	fputc('\n', f);
}

/*
 * What a reader needs once, not in every report of a run: the attach and
 * measures lines (two long lines that stay the same), printed with the
 * first report and again only when they change, and each legend above the
 * first series that shows what it explains.
 */
static struct {
	char *head; /* the attach and measures lines last printed */
	bool told_group[RXLAT_NR_COUNT_GROUPS];
	bool told_netns;
} shown;

void rxlat_report_text_restart(void)
{
	free(shown.head);
	memset(&shown, 0, sizeof(shown));
}

/* The attach and measures lines, where they differ from the last printed. */
static int print_head(FILE *f, const struct rxlat_report *r)
{
	char *head = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&head, &len);

	if (!m)
		return -errno;
	print_attach(m, r);
	print_coverage(m, r);
	if (r->from == RXLAT_FROM_SCHEDULE)
		fputs(
		    "from: the schedule of each packet's poll (napi_wait's start), not its stamp; "
		    "source none: no schedule known\n",
		    m);
	if (fclose(m)) {
		free(head);
		return -ENOMEM;
	}
	if (shown.head && !strcmp(shown.head, head)) {
		free(head);
		return 0;
	}
	fputs(head, f);
	free(shown.head);
	shown.head = head;
	return 0;
}

/*
 * The legends s is the first series to need: a counter group's (held reads
 * are not segments, as nstat counts them), and that a series of another
 * namespace (a pod's) is named by the interface where its packets were
 * stamped, rxlat's own: the series key keeps no trace of the pod's.
 */
static void print_legends(FILE *f, const struct rxlat_series *s)
{
	const struct rxlat_stats *st = &s->st;

	for (int g = 0; g < RXLAT_NR_COUNT_GROUPS; g++) {
		const struct rxlat_count_group_def *d = &rxlat_count_groups[g];
		bool any = false;
		size_t i;

		for (i = 0; i < RXLAT_NR_COUNTS && !any; i++)
			any = rxlat_count_group_of[i] == (enum rxlat_count_group)g && st->counts[i];
		if (!any || !d->legend || shown.told_group[g])
			continue;
		fprintf(f, "(%s:", d->name);
		for (i = 0; i < RXLAT_NR_COUNTS; i++)
			if (rxlat_count_group_of[i] == (enum rxlat_count_group)g)
				fprintf(f, " %s=N", rxlat_count_names[i]);
		fprintf(f, ") counts %s\n", d->legend);
		shown.told_group[g] = true;
	}
	if (!shown.told_netns && rxlat_label_of(s, "netns")) {
		fputs(
		    "ifname= is where a packet was stamped: in a series with netns=, an interface "
		    "of rxlat's own namespace, not one of that namespace's\n",
		    f);
		shown.told_netns = true;
	}
}

int rxlat_report_text(FILE *f, const struct rxlat_report *r)
{
	char tbuf[16] = "??:??:??", dur[32];
	struct rxlat_series ser;
	struct tm tm;
	int err;

	if (localtime_r(&r->time.tv_sec, &tm))
		strftime(tbuf, sizeof(tbuf), "%H:%M:%S", &tm);
	fmt_dur(dur, sizeof(dur), r->interval_s * 1e9);
	fprintf(f, "%sreport at %s, covering the last %s\n", r->final ? "final " : "", tbuf, dur);
	err = print_head(f, r);
	if (err)
		return err;

	while ((err = rxlat_report_next(r, &ser)) > 0) {
		fputc('\n', f);
		print_legends(f, &ser);
		print_series(f, &ser);
	}
	if (err < 0)
		return err;
	if (r->nxdp) {
		fputc('\n', f);
		print_xdp(f, r->xdp, r->nxdp);
	}
	if (r->drops_on) {
		fputc('\n', f);
		print_drops(f, r);
	}
	if (r->slow_on)
		fprintf(f,
			"\nslow records: %" PRIu64 " written, %" PRIu64 " held back by %s, "
			"%" PRIu64 " lost (ring buffer full)\n",
			(uint64_t)r->slow_sent, (uint64_t)r->slow_suppressed, opt(OPT_SLOW_RATE),
			(uint64_t)r->slow_lost);
	fputc('\n', f);

	/* reports are periodic: whoever reads the pipe wants each one now */
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}
