// SPDX-License-Identifier: GPL-2.0
/*
 * Report arithmetic (merging, percentiles) and the text and JSON renderers.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <json-c/json.h>

#include "rxlat_hist.h"
#include "report.h"

#define STAGE_NAME(id, name, ...) [RXLAT_STAGE_##id] = name,
const char *const rxlat_stage_names[RXLAT_NR_STAGES] = { RXLAT_STAGES(STAGE_NAME) };
#undef STAGE_NAME

const char *const rxlat_source_names[RXLAT_NR_SOURCES] = {
	[RXLAT_SRC_XDP] = "xdp",
	[RXLAT_SRC_KERNEL] = "kernel",
	[RXLAT_SRC_TC] = "tc",
	[RXLAT_SRC_NONE] = "none",
};

#define COUNT_GROUP(id, name, family, label, help) \
	[RXLAT_GROUP_##id] = { name, family, label, help },
const struct rxlat_count_group_def rxlat_count_groups[RXLAT_NR_COUNT_GROUPS] = { RXLAT_COUNT_GROUPS(
    COUNT_GROUP) };
#undef COUNT_GROUP
#define COUNT_NAME(id, group, name) [RXLAT_COUNT_##id] = name,
const char *const rxlat_count_names[RXLAT_NR_COUNTS] = { RXLAT_COUNTS(COUNT_NAME) };
#undef COUNT_NAME
#define COUNT_GROUP_OF(id, group, name) [RXLAT_COUNT_##id] = RXLAT_GROUP_##group,
const enum rxlat_count_group rxlat_count_group_of[RXLAT_NR_COUNTS] = { RXLAT_COUNTS(
    COUNT_GROUP_OF) };
#undef COUNT_GROUP_OF

static struct rxlat_label *new_label(struct rxlat_series *s, const char *key, unsigned int flags,
				     enum rxlat_label_kind kind)
{
	struct rxlat_label *l;

	if (s->nlabels >= RXLAT_MAX_LABELS)
		return NULL;
	l = &s->labels[s->nlabels++];
	l->key = key;
	l->flags = flags;
	l->kind = kind;
	l->num = 0;
	l->str[0] = '\0';
	return l;
}

void rxlat_label_str(struct rxlat_series *s, const char *key, unsigned int flags, const char *fmt,
		     ...)
{
	struct rxlat_label *l = new_label(s, key, flags, RXLAT_LABEL_STR);
	va_list ap;

	if (!l)
		return;
	va_start(ap, fmt);
	vsnprintf(l->str, sizeof(l->str), fmt, ap);
	va_end(ap);
}

void rxlat_label_num(struct rxlat_series *s, const char *key, unsigned int flags, __u64 num)
{
	struct rxlat_label *l = new_label(s, key, flags, RXLAT_LABEL_NUM);

	if (!l)
		return;
	l->num = num;
	snprintf(l->str, sizeof(l->str), "%" PRIu64, (uint64_t)num);
}

void rxlat_label_null(struct rxlat_series *s, const char *key, const char *prom)
{
	struct rxlat_label *l = new_label(s, key, 0, RXLAT_LABEL_NULL);

	if (l)
		snprintf(l->str, sizeof(l->str), "%s", prom);
}

const struct rxlat_label *rxlat_label_of(const struct rxlat_series *s, const char *key)
{
	for (unsigned int i = 0; i < s->nlabels; i++)
		if (!strcmp(s->labels[i].key, key))
			return &s->labels[i];
	return NULL;
}

/* Power-of-two rows of the text histogram: underflow, 2^6 .. 2^33, overflow */
#define ROWS  (RXLAT_HIST_MAX_SHIFT - RXLAT_HIST_MIN_SHIFT + 2)
#define STARS 40
/* Above this the ns bounds of the rows get too long to read at a glance. */
#define TEXT_NS_MAX 999999ULL

void rxlat_stats_add(struct rxlat_stats *dst, const struct rxlat_stats *src)
{
	unsigned int i;

	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	for (i = 0; i < RXLAT_HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	for (i = 0; i < RXLAT_NR_COUNTS; i++)
		dst->counts[i] += src->counts[i];
}

/* floor(w * num / den) for num <= den: w * num may need 128 bits. */
static __u64 scale(__u64 w, __u64 num, __u64 den)
{
	if (!den)
		return 0;
#ifdef __SIZEOF_INT128__
	return (__u64)((unsigned __int128)w * num / den);
#else
	return (__u64)((long double)w * num / den);
#endif
}

__u64 rxlat_percentile(const struct rxlat_stats *st, double q)
{
	__u64 rank, cum = 0, lo, hi, v;
	double x;
	__u32 i;

	if (!st->count)
		return 0;
	if (!(q > 0)) /* also catches NaN */
		q = 0;
	if (q > 1)
		q = 1;

	/*
	 * q * count may come out a hair above the integer it stands for
	 * (99.9 / 100 * 1000 = 999.0000000000001); that must not push the
	 * rank up.
	 */
	x = q * (double)st->count;
	x = ceil(x - x * 1e-12);
	rank = x < 1 ? 1 : (__u64)x;
	if (rank > st->count)
		rank = st->count;

	for (i = 0; i < RXLAT_HIST_BUCKETS; i++) {
		if (st->buckets[i] >= rank - cum)
			break;
		cum += st->buckets[i];
	}
	/* count larger than the sum of the buckets: the rank is past them */
	if (i == RXLAT_HIST_BUCKETS)
		return st->max_ns;

	lo = rxlat_hist_lower(i);
	hi = rxlat_hist_le(i);
	if (i == RXLAT_HIST_BUCKETS - 1) /* no upper bound but the max */
		hi = st->max_ns > lo ? st->max_ns : lo;
	v = lo + scale(hi - lo, rank - cum, st->buckets[i]);
	return v < st->max_ns ? v : st->max_ns;
}

/* ----- text ----- */

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

/* A row bound, exact: ns as is, or us with all three decimals. */
static void fmt_bound(char *buf, size_t len, __u64 ns, bool usecs)
{
	if (ns == UINT64_MAX)
		snprintf(buf, len, "+Inf");
	else if (usecs)
		snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, (uint64_t)ns / 1000,
			 (uint64_t)ns % 1000);
	else
		snprintf(buf, len, "%" PRIu64, (uint64_t)ns);
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

static void print_hist(FILE *f, const struct rxlat_stats *st)
{
	char lo_s[32], hi_s[32], num[32];
	__u64 rows[ROWS], max = 0, lo, hi;
	int first = -1, last = -1, row, w = 10, cw = 8, stars, i;
	bool usecs;

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

	row_bounds(last, &lo, &hi);
	usecs = hi > TEXT_NS_MAX;
	for (row = first; row <= last; row++) {
		row_bounds(row, &lo, &hi);
		fmt_bound(lo_s, sizeof(lo_s), lo, usecs);
		fmt_bound(hi_s, sizeof(hi_s), hi, usecs);
		if ((int)strlen(lo_s) > w)
			w = strlen(lo_s);
		if ((int)strlen(hi_s) > w)
			w = strlen(hi_s);
	}
	snprintf(num, sizeof(num), "%" PRIu64, (uint64_t)max);
	if ((int)strlen(num) > cw)
		cw = strlen(num);

	fprintf(f, "%*s%-*s : %-*s distribution\n", w - 5, "", w + 9, usecs ? "usecs" : "nsecs",
		cw + 1, "count");
	for (row = first; row <= last; row++) {
		row_bounds(row, &lo, &hi);
		fmt_bound(lo_s, sizeof(lo_s), lo, usecs);
		fmt_bound(hi_s, sizeof(hi_s), hi, usecs);
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

/*
 * Series i of r, or r's next one: 1 with *s set (to buf when it comes from
 * next_series), 0 after the last, or a negative errno.
 */
static int series_at(const struct rxlat_report *r, size_t i, struct rxlat_series *buf,
		     const struct rxlat_series **s)
{
	if (r->next_series) {
		*s = buf;
		return r->next_series(r->series_ctx, buf);
	}
	if (i >= r->nseries)
		return 0;
	*s = &r->series[i];
	return 1;
}

static bool series_empty(const struct rxlat_stats *st)
{
	int i;

	if (st->count)
		return false;
	for (i = 0; i < RXLAT_NR_COUNTS; i++)
		if (st->counts[i])
			return false;
	return true;
}

static void print_series(FILE *f, const struct rxlat_series *s)
{
	static const struct {
		const char *name;
		double q;
	} pct[] = { { "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 }, { "p99.9", 0.999 } };
	const struct rxlat_stats *st = &s->st;
	char buf[32];
	size_t i;

	print_labels(f, s);
	for (int g = 0; g < RXLAT_NR_COUNT_GROUPS; g++) {
		fprintf(f, "  (%s:", rxlat_count_groups[g].name);
		for (i = 0; i < RXLAT_NR_COUNTS; i++)
			if (rxlat_count_group_of[i] == (enum rxlat_count_group)g)
				fprintf(f, " %s=%" PRIu64, rxlat_count_names[i],
					(uint64_t)st->counts[i]);
		fputc(')', f);
	}
	fputc('\n', f);

	print_hist(f, st);
	fprintf(f, "count %" PRIu64, (uint64_t)st->count);
	if (st->count) {
		fmt_dur(buf, sizeof(buf), (double)st->sum_ns / (double)st->count);
		fprintf(f, "  mean %s", buf);
		for (i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
			fmt_dur(buf, sizeof(buf), (double)rxlat_percentile(st, pct[i].q));
			fprintf(f, "  %s %s", pct[i].name, buf);
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
		if (x[i].queue == RXLAT_QUEUE_ALL)
			snprintf(q, sizeof(q), "-");
		else if (x[i].queue == RXLAT_QUEUE_OTHER)
			snprintf(q, sizeof(q), "other");
		else
			snprintf(q, sizeof(q), "%d", x[i].queue);
		fprintf(f, "%-*.*s  %*s", wn, (int)sizeof(x[i].ifname), x[i].ifname, wq, q);
		fprintf(f, "  %*" PRIu64 "  %*" PRIu64 "  %*" PRIu64 "\n", ws, (uint64_t)x[i].seen,
			wst, (uint64_t)x[i].stamped, wm, (uint64_t)x[i].meta_refused);
	}
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
		"count", "p50", "max");
	for (i = 0; i < r->ndrops; i++) {
		const struct rxlat_drop_row *d = &r->drops[i];

		snprintf(q, sizeof(q), "%d", d->queue);
		fmt_dur(p50, sizeof(p50), (double)rxlat_percentile(&d->st, 0.5));
		fmt_dur(max, sizeof(max), (double)d->st.max_ns);
		fprintf(f, "%-*.*s  %5s  %-*s  %*" PRIu64 "  %10s  %10s\n", wn,
			(int)sizeof(d->ifname), d->ifname, q, wr, d->reason, wc,
			(uint64_t)d->st.count, p50, max);
	}
}

int rxlat_report_text(FILE *f, const struct rxlat_report *r)
{
	char tbuf[16] = "??:??:??";
	const struct rxlat_series *ser;
	struct rxlat_series buf;
	struct tm tm;
	size_t i;
	int s, err;

	if (localtime_r(&r->time.tv_sec, &tm))
		strftime(tbuf, sizeof(tbuf), "%H:%M:%S", &tm);
	fprintf(f, "%s%s\n", tbuf, r->final ? " final" : "");

	fputs("attach:", f);
	for (s = 0; s < RXLAT_NR_STAGES; s++) {
		const char *state = r->attach[s];

		if (!state)
			state = r->unavailable[s] ? "unavailable" : "off";
		fprintf(f, "%s%s=%s", s ? "  " : " ", rxlat_stage_names[s], state);
		if (r->unavailable[s])
			fprintf(f, " (%s)", r->unavailable[s]);
	}
	fputc('\n', f);

	for (i = 0; (err = series_at(r, i, &buf, &ser)) > 0; i++) {
		if (series_empty(&ser->st))
			continue;
		fputc('\n', f);
		print_series(f, ser);
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
		fprintf(
		    f,
		    "\nslow records: %" PRIu64 " written, %" PRIu64 " held back by --slow-rate, "
		    "%" PRIu64 " lost (ring buffer full)\n",
		    (uint64_t)r->slow_sent, (uint64_t)r->slow_suppressed, (uint64_t)r->slow_lost);
	fputc('\n', f);

	/* reports are periodic: whoever reads the pipe wants each one now */
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}

/* ----- JSON ----- */

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Adds val to o under key and owns val, whatever happens. */
static int put(struct json_object *o, const char *key, struct json_object *val)
{
	if (!val)
		return -ENOMEM;
	if (json_object_object_add(o, key, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

static int put_null(struct json_object *o, const char *key)
{
	return json_object_object_add(o, key, NULL) ? -ENOMEM : 0;
}

static int append(struct json_object *a, struct json_object *val)
{
	if (!val)
		return -ENOMEM;
	if (json_object_array_add(a, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

static int put_u64(struct json_object *o, const char *key, __u64 v)
{
	return put(o, key, json_object_new_uint64(v));
}

static int put_str(struct json_object *o, const char *key, const char *v)
{
	return put(o, key, json_object_new_string(v));
}

static int put_ifname(struct json_object *o, const char *ifname)
{
	return put(o, "ifname",
		   json_object_new_string_len(ifname, strnlen(ifname, RXLAT_IFNAME_LEN)));
}

static int put_queue(struct json_object *o, int queue)
{
	if (queue == RXLAT_QUEUE_ALL)
		return put_null(o, "queue");
	if (queue == RXLAT_QUEUE_OTHER)
		return put_str(o, "queue", "other");
	return put(o, "queue", json_object_new_int(queue));
}

/*
 * json-c prints doubles with 17 digits (0.10000000000000001); give it the
 * text instead: microsecond precision, trailing zeros dropped, and at least
 * one decimal so that the value always reads as a float.
 */
static struct json_object *new_seconds(double s)
{
	char buf[64];
	size_t n;

	if (!isfinite(s))
		s = 0;
	n = snprintf(buf, sizeof(buf), "%.6f", s);
	while (n > 1 && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	return json_object_new_double_s(strtod(buf, NULL), buf);
}

static struct json_object *json_buckets(const struct rxlat_stats *st)
{
	struct json_object *a = json_object_new_array(), *b;
	__u32 i;

	if (!a)
		return NULL;
	for (i = 0; i < RXLAT_HIST_BUCKETS; i++) {
		if (!st->buckets[i])
			continue;
		b = json_object_new_object();
		if (append(a, b))
			goto err;
		if (i == RXLAT_HIST_BUCKETS - 1) {
			if (put_str(b, "le_ns", "+Inf"))
				goto err;
		} else if (put_u64(b, "le_ns", rxlat_hist_le(i))) {
			goto err;
		}
		if (put_u64(b, "count", st->buckets[i]))
			goto err;
	}
	return a;
err:
	json_object_put(a);
	return NULL;
}

/*
 * A series' object, written straight into buf rather than built as a json-c
 * tree: at 5,000 series a second, json-c's objects (about 25 allocations
 * and hash inserts per series) and its printf per number were most of
 * rxlat's CPU time. The output is json-c's own, byte for byte: the same
 * members in the same order, numbers as json-c prints them, and the one
 * free-form string (the interface name) escaped by json-c unless it is
 * plain printable ASCII (report_test reparses and reprints every line with
 * json-c and compares).
 */
/* At most: members ~300 bytes, name 96, buckets 60 bytes each. */
#define SERIES_JSON_MAX                                                                \
	(1024 + RXLAT_MAX_LABELS * (6 * RXLAT_LABEL_LEN + 64) + RXLAT_NR_COUNTS * 64 + \
	 RXLAT_HIST_BUCKETS * 64)

static char *w_lit(char *p, const char *lit, size_t n)
{
	memcpy(p, lit, n);
	return p + n;
}

#define W(p, lit) w_lit(p, lit, sizeof(lit) - 1)

static char *w_u64(char *p, __u64 v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* A JSON string; NULL when json-c could not escape it. */
static char *w_str(char *p, const char *v, size_t n)
{
	struct json_object *o;
	const char *js;
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e || v[i] == '"' ||
		    v[i] == '\\')
			break;
	if (i == n) {
		*p++ = '"';
		p = w_lit(p, v, n);
		*p++ = '"';
		return p;
	}
	o = json_object_new_string_len(v, (int)n);
	js = o ? json_object_to_json_string_ext(o, JSON_FLAGS) : NULL;
	if (js)
		p = w_lit(p, js, strlen(js));
	json_object_put(o);
	return js ? p : NULL;
}

/* The series as one JSON object in buf (SERIES_JSON_MAX); its end or NULL. */
static char *w_series(char *p, const struct rxlat_series *s)
{
	const struct rxlat_stats *st = &s->st;
	__u32 i;

	*p++ = '{';
	for (i = 0; i < s->nlabels; i++) {
		const struct rxlat_label *l = &s->labels[i];

		if (i)
			*p++ = ',';
		p = w_str(p, l->key, strlen(l->key));
		if (!p)
			return NULL;
		*p++ = ':';
		if (l->kind == RXLAT_LABEL_NULL)
			p = W(p, "null");
		else if (l->kind == RXLAT_LABEL_NUM)
			p = w_u64(p, l->num);
		else
			p = w_str(p, l->str, strnlen(l->str, sizeof(l->str)));
		if (!p)
			return NULL;
	}
	p = w_u64(W(p, ",\"count\":"), st->count);
	p = w_u64(W(p, ",\"sum_ns\":"), st->sum_ns);
	p = w_u64(W(p, ",\"max_ns\":"), st->max_ns);
	p = w_u64(W(p, ",\"p50_ns\":"), rxlat_percentile(st, 0.5));
	p = w_u64(W(p, ",\"p90_ns\":"), rxlat_percentile(st, 0.9));
	p = w_u64(W(p, ",\"p99_ns\":"), rxlat_percentile(st, 0.99));
	p = w_u64(W(p, ",\"p999_ns\":"), rxlat_percentile(st, 0.999));
	p = W(p, ",\"buckets\":[");
	for (i = 0; i < RXLAT_HIST_BUCKETS; i++) {
		if (!st->buckets[i])
			continue;
		if (p[-1] == '}')
			*p++ = ',';
		if (i == RXLAT_HIST_BUCKETS - 1)
			p = W(p, "{\"le_ns\":\"+Inf\"");
		else
			p = w_u64(W(p, "{\"le_ns\":"), rxlat_hist_le(i));
		p = w_u64(W(p, ",\"count\":"), st->buckets[i]);
		*p++ = '}';
	}
	*p++ = ']';
	for (int g = 0; g < RXLAT_NR_COUNT_GROUPS; g++) {
		const char *sep = "";

		*p++ = ',';
		p = w_str(p, rxlat_count_groups[g].name, strlen(rxlat_count_groups[g].name));
		p = W(p, ":{");
		for (i = 0; i < RXLAT_NR_COUNTS; i++) {
			const char *name = rxlat_count_names[i];

			if (rxlat_count_group_of[i] != (enum rxlat_count_group)g)
				continue;
			p = w_lit(p, sep, strlen(sep));
			*p++ = '"';
			p = w_lit(p, name, strlen(name));
			p = w_u64(W(p, "\":"), st->counts[i]);
			sep = ",";
		}
		*p++ = '}';
	}
	return W(p, "}");
}

static struct json_object *json_xdp(const struct rxlat_xdp_row *x)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (put_ifname(o, x->ifname) || put_u64(o, "ifindex", x->ifindex) ||
	    put_queue(o, x->queue) || put_u64(o, "seen", x->seen) ||
	    put_u64(o, "stamped", x->stamped) || put_u64(o, "meta_refused", x->meta_refused)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *json_drop(const struct rxlat_drop_row *d)
{
	const struct rxlat_stats *st = &d->st;
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (put_ifname(o, d->ifname) || put_u64(o, "ifindex", d->ifindex) ||
	    put_queue(o, d->queue) || put_str(o, "reason", d->reason) ||
	    put_u64(o, "count", st->count) || put_u64(o, "sum_ns", st->sum_ns) ||
	    put_u64(o, "max_ns", st->max_ns) || put_u64(o, "p50_ns", rxlat_percentile(st, 0.5)) ||
	    put_u64(o, "p99_ns", rxlat_percentile(st, 0.99)) ||
	    put(o, "buckets", json_buckets(st))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The report's fields before its series. */
static struct json_object *json_head(const struct rxlat_report *r)
{
	struct json_object *o = json_object_new_object(), *attach, *unavail;
	char tbuf[64] = "";
	struct tm tm;
	int s;

	if (!o)
		return NULL;
	if (gmtime_r(&r->time.tv_sec, &tm)) {
		size_t n = strftime(tbuf, sizeof(tbuf), "%Y-%m-%dT%H:%M:%S", &tm);

		snprintf(tbuf + n, sizeof(tbuf) - n, ".%03ldZ", r->time.tv_nsec / 1000000);
	}
	if (put_str(o, "time", tbuf) || put(o, "interval_s", new_seconds(r->interval_s)) ||
	    put(o, "final", json_object_new_boolean(r->final)))
		goto err;

	attach = json_object_new_object();
	if (put(o, "attach", attach))
		goto err;
	unavail = json_object_new_object();
	if (put(o, "unavailable", unavail))
		goto err;
	for (s = 0; s < RXLAT_NR_STAGES; s++) {
		const char *name = rxlat_stage_names[s];

		if (r->attach[s] ? put_str(attach, name, r->attach[s]) : put_null(attach, name))
			goto err;
		if (r->unavailable[s] && put_str(unavail, rxlat_stage_names[s], r->unavailable[s]))
			goto err;
	}
	return o;
err:
	json_object_put(o);
	return NULL;
}

/* The report's fields after its series. */
static struct json_object *json_tail(const struct rxlat_report *r)
{
	struct json_object *o = json_object_new_object(), *a;

	if (!o)
		return NULL;
	a = json_object_new_array();
	if (put(o, "xdp", a))
		goto err;
	for (size_t i = 0; i < r->nxdp; i++)
		if (append(a, json_xdp(&r->xdp[i])))
			goto err;
	if (r->slow_on) {
		struct json_object *sl = json_object_new_object();

		if (put(o, "slow", sl) || put_u64(sl, "sent", r->slow_sent) ||
		    put_u64(sl, "suppressed", r->slow_suppressed) ||
		    put_u64(sl, "lost", r->slow_lost))
			goto err;
	}
	if (!r->drops_on)
		return o;
	a = json_object_new_array();
	if (put(o, "drops", a) || put_u64(o, "drops_lost", r->drops_lost))
		goto err;
	for (size_t i = 0; i < r->ndrops; i++)
		if (append(a, json_drop(&r->drops[i])))
			goto err;
	return o;
err:
	json_object_put(o);
	return NULL;
}

/*
 * Prints o's members, without its braces: "{...}" as "...". 0, -ENOMEM or
 * -EIO.
 */
static int print_members(FILE *f, struct json_object *o)
{
	const char *s = o ? json_object_to_json_string_ext(o, JSON_FLAGS) : NULL;
	size_t n = s ? strlen(s) : 0;

	if (n < 2)
		return -ENOMEM;
	return fwrite(s + 1, 1, n - 2, f) == n - 2 ? 0 : -EIO;
}

/*
 * One line. The series are written one at a time by w_series(): a json-c
 * tree of the whole report would take about 14 KB per series at once (70 MB
 * for 5,000 series). The head and tail are json-c objects.
 */
int rxlat_report_json(FILE *f, const struct rxlat_report *r)
{
	struct json_object *head = json_head(r), *tail = json_tail(r);
	const struct rxlat_series *ser;
	struct rxlat_series buf;
	bool first = true;
	int err, got;

	fputc('{', f);
	err = print_members(f, head);
	if (!err && fputs(",\"series\":[", f) < 0)
		err = -EIO;
	for (size_t i = 0; !err && (got = series_at(r, i, &buf, &ser)) != 0; i++) {
		char line[SERIES_JSON_MAX], *end;

		if (got < 0) {
			err = got;
			break;
		}
		if (series_empty(&ser->st))
			continue;
		end = w_series(line, ser);
		if (!end)
			err = -ENOMEM;
		else if ((!first && fputc(',', f) == EOF) ||
			 fwrite(line, 1, (size_t)(end - line), f) != (size_t)(end - line))
			err = -EIO;
		first = false;
	}
	if (!err && fputc(']', f) == EOF)
		err = -EIO;
	if (!err && !tail)
		err = -ENOMEM;
	if (!err && json_object_object_length(tail)) {
		if (fputc(',', f) == EOF)
			err = -EIO;
		else
			err = print_members(f, tail);
	}
	if (!err && (fputs("}\n", f) < 0 || fflush(f) || ferror(f)))
		err = -EIO;
	json_object_put(head);
	json_object_put(tail);
	return err;
}
