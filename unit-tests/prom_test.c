// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of prom.c over the model (collector/read) without BPF or HTTP:
 * a plain array stands in for the series array, plain tables for the
 * slots, names and stamper counters.
 * Checks that every le is exactly the largest value of its bucket at each
 * export resolution, that coarse buckets are exact sums of the fine ones,
 * the baseline, that no counter goes down when slots share a name or a
 * stamper key goes away, label escaping, and that the exposition is the
 * same read in 1-byte pieces as in one. One line per check.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "check.h"
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

static void f_slots(void *ctx, __u64 *out, __u32 n)
{
	(void)ctx;
	for (__u32 i = 0; i < n; i++)
		out[i] = slot_owner[i];
}

static void f_ifname(void *ctx, __u32 ifindex, char name[RXLAT_IFNAME_LEN])
{
	(void)ctx;
	snprintf(name, RXLAT_IFNAME_LEN, "%s", ifindex < 4 ? names[ifindex] : "?");
}

static bool f_wanted(void *ctx, __u32 ifindex)
{
	(void)ctx;
	return ifindex != 3;
}

static int f_xdp(void *ctx, struct rxlat_xdp_key **k, struct rxlat_xdp_counters **v, size_t *n)
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

static struct rxlat_hist *at(struct rxlat_hist *live, int stage, int slot, int q)
{
	return &live[rxlat_series_index(stage, 0, slot, q, DIMS)];
}

static void sample(struct rxlat_hist *h, __u64 ns, __u64 n)
{
	h->buckets[rxlat_hist_bucket(ns)] += n;
	h->sum_ns += ns * n;
	h->sources[RXLAT_SRC_XDP] += n;
}

/* The whole exposition in fmt, read max bytes at a time; malloc'ed, *len its length. */
static char *scrape_as(struct prom_metrics *m, size_t max, enum prom_format fmt, size_t *lenp)
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

static char *scrape(struct prom_metrics *m, size_t max)
{
	return scrape_as(m, max, PROM_FORMAT_TEXT, NULL);
}

/* The value of the line that starts with series (name{labels}), or -1. */
static long long value(const char *text, const char *series)
{
	size_t n = strlen(series);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, series, n) && p[n] == ' ')
			return atoll(p + n + 1);
	return -1;
}

static struct prom_metrics *new_metrics(struct rxlat_hist *live, unsigned int k, bool per_queue)
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

static struct rxlat_model *model_of(const struct prom_metrics *m)
{
	for (int i = 0; i < 4; i++)
		if (made[i].m && made[i].m == m)
			return made[i].model;
	return NULL;
}

static void free_metrics(struct prom_metrics *m)
{
	for (int i = 0; m && i < 4; i++)
		if (made[i].m == m) {
			model_free(made[i].model);
			made[i].m = NULL;
		}
	prom_metrics_free(m);
}

/* "0.000000064" -> 64: the label's decimal seconds as ns, exactly */
static __u64 le_ns(const char *s)
{
	__u64 ns = 0;
	int frac = -1;

	for (; *s && *s != '"'; s++) {
		if (*s == '.') {
			frac = 0;
			continue;
		}
		ns = ns * 10 + (__u64)(*s - '0');
		if (frac >= 0)
			frac++;
	}
	for (frac = frac < 0 ? 0 : frac; frac < 9; frac++)
		ns *= 10;
	return ns;
}

/* Every exported le holds its bucket's largest value and the next one not. */
static void test_le_exact(void)
{
	static struct rxlat_hist live[NSERIES];
	unsigned int ks[] = { 1, 2, 4, 8 };

	memset(live, 0, sizeof(live));
	slot_owner[0] = 1;
	names[1] = "eth0";
	sample(at(live, RXLAT_STAGE_IP_RCV, 0, 0), 1000, 1);
	for (int i = 0; i < 4; i++) {
		struct prom_metrics *m = new_metrics(live, ks[i], true);
		char *text = m ? scrape(m, 4096) : NULL, name[32];
		unsigned int nle = 0;
		__u32 prev = 0;

		for (const char *p = text ? strstr(text, "le=\"") : NULL; p;
		     p = strstr(p + 1, "le=\"")) {
			__u64 ns;
			__u32 b;

			nle++;
			if (!strncmp(p + 4, "+Inf", 4))
				continue;
			ns = le_ns(p + 4);
			b = rxlat_hist_bucket(ns);
			if (rxlat_hist_bucket(ns + 1) == b || rxlat_hist_le(b) != ns)
				check_fail("le %llu ns is not the top of bucket %u",
					   (unsigned long long)ns, b);
			if (nle > 1 && b - prev != RXLAT_HIST_SUB / ks[i])
				check_fail(
				    "le %llu ns: %u fine buckets after the previous, want %u",
				    (unsigned long long)ns, b - prev, RXLAT_HIST_SUB / ks[i]);
			prev = b;
		}
		CHECK_U64("exported buckets", nle, prom_nr_buckets(ks[i]));
		if (!text)
			check_fail("no exposition");
		snprintf(name, sizeof(name), "le_exact_%u_per_pow2", ks[i]);
		check_done(name);
		free(text);
		free_metrics(m);
	}
}

/* Coarse buckets are the fine ones summed: equal at each shared le. */
static void test_coarse_sums(void)
{
	static struct rxlat_hist live[NSERIES];
	struct prom_metrics *fine, *coarse;
	char *ft, *ct;
	unsigned int shared = 0;

	memset(live, 0, sizeof(live));
	srand(7);
	for (int i = 0; i < 5000; i++)
		sample(at(live, RXLAT_STAGE_TCP_DO_RCV, 0, 1), (__u64)rand() % 3000000,
		       (__u64)(rand() % 3 + 1));
	fine = new_metrics(live, 8, true);
	coarse = new_metrics(live, 2, true);
	ft = fine ? scrape(fine, 1 << 16) : NULL;
	ct = coarse ? scrape(coarse, 1 << 16) : NULL;
	for (const char *p = ct ? strstr(ct, "rxlat_stage_latency_seconds_bucket{") : NULL; p;
	     p = strstr(p + 1, "rxlat_stage_latency_seconds_bucket{")) {
		char series[256];
		size_t n = strcspn(p, " ");

		snprintf(series, sizeof(series), "%.*s", (int)n, p);
		CHECK_U64(series, value(ft, series), value(ct, series));
		shared++;
	}
	CHECK_U64(
	    "count, coarse vs fine",
	    value(ct, "rxlat_stage_latency_seconds_count{stage=\"tcp_do_rcv\",ifname=\"eth0\","
		      "queue=\"1\"}"),
	    value(ft, "rxlat_stage_latency_seconds_count{stage=\"tcp_do_rcv\",ifname=\"eth0\","
		      "queue=\"1\"}"));
	CHECK_U64("le values of the coarse export", shared, prom_nr_buckets(2));
	check_done("coarse_buckets_are_exact_sums");
	free(ft);
	free(ct);
	free_metrics(fine);
	free_metrics(coarse);
}

/*
 * The baseline is left out; two slots of one name are one series that only
 * grows; a slot keeps its first name; the overflow slot is "other".
 */
static void test_never_down(void)
{
	static struct rxlat_hist live[NSERIES];
	const char *cnt = "rxlat_stage_latency_seconds_count{stage=\"ip_rcv\",ifname=\"veth1\","
			  "queue=\"all\"}";
	struct prom_metrics *m;
	char *t1, *t2, *t3;

	memset(live, 0, sizeof(live));
	memset(slot_owner, 0, sizeof(slot_owner));
	slot_owner[0] = 1;
	names[1] = "veth1";
	sample(at(live, RXLAT_STAGE_IP_RCV, 0, 0), 500, 10); /* before the first interval */
	m = new_metrics(live, 2, false);
	if (!m || model_start(model_of(m))) {
		check_failed("never_down", "setup failed");
		free_metrics(m);
		return;
	}
	sample(at(live, RXLAT_STAGE_IP_RCV, 0, 1), 500, 3);
	t1 = scrape(m, 100);
	/* veth1 deleted, made again without -i: a new slot of the same name */
	slot_owner[1] = 2;
	names[2] = "veth1";
	sample(at(live, RXLAT_STAGE_IP_RCV, 1, 0), 700, 4);
	sample(at(live, RXLAT_STAGE_IP_RCV, MAX_IFACES, 2), 900, 5); /* the overflow slot */
	t2 = scrape(m, 100);
	names[1] = "renamed"; /* a slot keeps its first name */
	sample(at(live, RXLAT_STAGE_IP_RCV, 0, 0), 500, 1);
	t3 = scrape(m, 1);
	CHECK_U64("count after the baseline", value(t1, cnt), 3);
	CHECK_U64("two slots of one name", value(t2, cnt), 7);
	CHECK_U64("after a rename", value(t3, cnt), 8);
	CHECK_U64("overflow series",
		  value(t3, "rxlat_stage_latency_seconds_count{stage=\"ip_rcv\",ifname=\"other\","
			    "queue=\"all\"}"),
		  5);
	CHECK_U64("overflow counter",
		  value(t3, "rxlat_overflow_samples_total{stage=\"ip_rcv\",limit=\"max_ifaces\"}"),
		  5);
	CHECK_U64("sum in seconds, exact",
		  (__u64) !!strstr(t3, "_sum{stage=\"ip_rcv\",ifname=\"veth1\",queue=\"all\"} "
				       "0.0000048\n"),
		  1);
	check_done("never_down_slots_merged_by_name");
	free(t1);
	free(t2);
	free(t3);
	free_metrics(m);
}

/* Stamper counters: baseline, kept when a key goes, summed per label, -i filter. */
static void test_xdp(void)
{
	static struct rxlat_hist live[NSERIES];
	const char *seen = "rxlat_xdp_packets_seen_total{ifname=\"veth1\",queue=\"0\"}";
	struct rxlat_xdp_key k0[] = { { 1, 0 } };
	struct rxlat_xdp_counters v0[] = { XC(100, 100, 0) };
	struct prom_metrics *m;
	char *t1, *t2;

	memset(live, 0, sizeof(live));
	names[1] = "veth1";
	names[2] = "veth1";
	names[3] = "eth9";
	m = new_metrics(live, 2, true);
	memcpy(xkeys, k0, sizeof(k0));
	memcpy(xvals, v0, sizeof(v0));
	nx = 1;
	if (!m || model_start(model_of(m))) {
		check_failed("xdp", "setup failed");
		free_metrics(m);
		return;
	}
	xkeys[0] = (struct rxlat_xdp_key){ 1, 0 };
	xvals[0] = (struct rxlat_xdp_counters)XC(130, 120, 0);
	xvals[0].polls = 12;
	xvals[0].polls_ksoftirqd = 2;
	xvals[0].cpu = 3;
	xkeys[1] = (struct rxlat_xdp_key){ 3, 0 }; /* not named with -i */
	xvals[1] = (struct rxlat_xdp_counters)XC(9, 9, 0);
	xkeys[2] = (struct rxlat_xdp_key){ 0, 0 }; /* the stamper's own overflow */
	xvals[2] = (struct rxlat_xdp_counters)XC(4, 4, 4);
	nx = 3;
	t1 = scrape(m, 7);
	/* veth1 back under a new ifindex; the old key gone from the map */
	xkeys[0] = (struct rxlat_xdp_key){ 2, 0 };
	xvals[0] = (struct rxlat_xdp_counters)XC(5, 5, 0);
	nx = 1;
	t2 = scrape(m, 7);
	CHECK_U64("seen after the baseline", value(t1, seen), 30);
	CHECK_U64("kept and summed", value(t2, seen), 35);
	CHECK_U64("stamper overflow",
		  value(t2, "rxlat_xdp_meta_refused_total{ifname=\"other\",queue=\"other\"}"), 4);
	CHECK_U64("filtered out", (__u64) !!strstr(t1, "eth9"), 0);
	CHECK_U64("polls", value(t1, "rxlat_napi_polls_total{ifname=\"veth1\",queue=\"0\"}"), 12);
	CHECK_U64("polls in ksoftirqd",
		  value(t1, "rxlat_napi_polls_ksoftirqd_total{ifname=\"veth1\",queue=\"0\"}"), 2);
	CHECK_U64("the CPU of the last poll",
		  value(t1, "rxlat_napi_poll_cpu{ifname=\"veth1\",queue=\"0\"}"), 3);
	CHECK_U64("no CPU where no polls",
		  (__u64) !!strstr(t1, "rxlat_napi_poll_cpu{ifname=\"other\""), 0);
	check_done("xdp_counters_kept_and_summed");
	free(t1);
	free(t2);
	free_metrics(m);
	nx = 0;
}

static const struct rxlat_unreached_set unreached = {
	2, { { "flannel.1", "vxlan" }, { "t\"0", "geneve" } }
};

static void test_escaping_and_pieces(void)
{
	static struct rxlat_hist live[NSERIES];
	struct prom_metrics *m;
	char *whole, *bytes;

	memset(live, 0, sizeof(live));
	memset(slot_owner, 0, sizeof(slot_owner));
	slot_owner[2] = 3;
	names[3] = "a\"b\\c";
	sample(at(live, RXLAT_STAGE_SOCK_READ, 2, 1), 12345, 2);
	m = new_metrics(live, 4, true);
	if (m) {
		prom_metrics_set_unreached(m, &unreached);
		prom_metrics_set_from(m, RXLAT_FROM_SCHEDULE);
	}
	whole = m ? scrape(m, 1 << 20) : NULL;
	bytes = m ? scrape(m, 1) : NULL;
	if (!whole || !bytes || strcmp(whole, bytes))
		check_fail("1-byte reads differ from one read");
	/* a sample per tunnel that hides containers, escaped like any name */
	if (whole &&
	    !strstr(whole, "\n# TYPE rxlat_unreached_interfaces gauge\n"
			   "rxlat_unreached_interfaces{ifname=\"flannel.1\",kind=\"vxlan\"} 1\n"
			   "rxlat_unreached_interfaces{ifname=\"t\\\"0\",kind=\"geneve\"} 1\n"
			   "# HELP rxlat_stage_measured "))
		check_fail("rxlat_unreached_interfaces not as wanted");
	if (whole && !strstr(whole, "ifname=\"a\\\"b\\\\c\",queue=\"1\""))
		check_fail("ifname not escaped");
	if (whole &&
	    !strstr(whole, "rxlat_build_info{version=\"" RXLAT_VERSION
			   "\",stage=\"ip_rcv\",attach=\"tp_btf:x\",from=\"schedule\"} 1\n"))
		check_fail("build_info missing");
	/* a sample per protocol the stage is about, the reason in no label */
	if (whole && !strstr(whole, "\n# TYPE rxlat_stage_measured gauge\n"
				    "rxlat_stage_measured{stage=\"ip_rcv\",proto=\"tcp\"} 1\n"
				    "rxlat_stage_measured{stage=\"ip_rcv\",proto=\"udp\"} 0\n"
				    "# HELP rxlat_build_info "))
		check_fail("rxlat_stage_measured not as wanted");
	/* held reads are not segments: nstat's out-of-order counters never match */
	if (whole &&
	    !strstr(whole, "\n# HELP rxlat_stage_held_total Reads of TCP skbs held behind "
			   "out-of-order data (ooo), one per skb read, not segments: not in "
			   "the histogram nor the sources unless --include-ooo.\n"
			   "# TYPE rxlat_stage_held_total counter\n"))
		check_fail("rxlat_stage_held_total's HELP not as wanted");
		/* build_info last: a scrape that ends with it is whole */
#define LAST_LINE_END "stage=\"sock_read\",attach=\"none\",from=\"schedule\"} 1\n"
	if (whole && !strstr(whole, LAST_LINE_END))
		check_fail("no build_info line of sock_read");
	else if (whole && strcmp(strstr(whole, LAST_LINE_END), LAST_LINE_END))
		check_fail("build_info is not the last family");
#undef LAST_LINE_END
	check_done("escaping_and_piecewise_reads");
	free(whole);
	free(bytes);
	free_metrics(m);
}

/* ---- the protobuf exposition, decoded by protoc ------------------------- */

#define PROTO "unit-tests/prom_metrics.proto"

/* Native bucket of ns at schema 3, from its definition: (2^((i-1)/8), 2^(i/8)] s. */
static int native_of(__u64 ns)
{
	int i = (int)ceill(8 * log2l((long double)ns / 1e9L));

	/* the float log may land one off at a bound: settle it on the integer ns */
	while (ns > floorl(1e9L * powl(2, (long double)i / 8)))
		i++;
	while (ns <= floorl(1e9L * powl(2, (long double)(i - 1) / 8)))
		i--;
	return i;
}

/* What protoc printed of the metric being read, and what is known so far. */
struct decoded {
	char family[64];
	char labels[512]; /* {k="v",... of the metric */
	long long count, zero, sum, running, idx;
	double value;
	bool hist, negative;
	int nb, nd, ncl;
	long long index[RXLAT_HIST_BUCKETS], counts[RXLAT_HIST_BUCKETS];
	long long cl_count[RXLAT_HIST_BUCKETS]; /* the classic buckets, if sent */
	double cl_upper[RXLAT_HIST_BUCKETS];
	int want_classic; /* classic buckets in every histogram: their number */
};

/* The classic buckets of a histogram against the text's _bucket lines. */
static void check_classic(struct decoded *d, const char *text, const char *series)
{
	char prefix[640];
	int i = 0;

	if (d->ncl != d->want_classic)
		check_fail("%s: %d classic buckets, want %d", series, d->ncl, d->want_classic);
	snprintf(prefix, sizeof(prefix), "\n%s_bucket%s,le=\"", d->family, d->labels);
	for (const char *p = strstr(text, prefix); p && i < d->ncl;
	     p = strstr(p + 1, prefix), i++) {
		const char *le = p + strlen(prefix);

		if (!strncmp(le, "+Inf", 4))
			break;
		if (strtod(le, NULL) != d->cl_upper[i] ||
		    atoll(strchr(le, ' ') + 1) != d->cl_count[i])
			check_fail("%s: classic bucket %d (%g, %lld) is not the text's %.40s",
				   series, i, d->cl_upper[i], d->cl_count[i], p + 1);
	}
	if (i != d->ncl)
		check_fail("%s: %d classic buckets in the text, %d in protobuf", series, i, d->ncl);
}

/* The samples that the test puts into one series: ns and how many. */
static const __u64 pb_samples[][2] = {
	{ 10, 2 },	   /* the zero bucket */
	{ 59, 1 },	   /* its top */
	{ 60, 3 },	   /* the first native bucket */
	{ 1000, 4 },	   /* 1 us */
	{ 953, 1 },	   /* the top of the bucket below */
	{ 1040, 1 },	   /* the next bucket */
	{ 1300, 2 },	   /* one empty bucket on: a gap inside a span */
	{ 5000000, 5 },	   /* 5 ms: a span of its own */
	{ 917004043, 1 },  /* the top of native bucket -1, under 1 s */
	{ 1000000000, 1 }, /* 1 s, a bound of every schema */
	{ 40000000000, 2 } /* 40 s: over the top, in the last native bucket */
};
#define NR_PB_SAMPLES (sizeof(pb_samples) / sizeof(pb_samples[0]))

/*
 * One decoded metric: a counter's or a gauge's value against the text
 * exposition's line of the same series; a histogram's count against zero
 * count + buckets and the text's _count; and, for the series with
 * pb_samples, every native bucket against the samples' own.
 */
static void check_metric(struct decoded *d, const char *text, int *nhist)
{
	char series[640];
	long long want_zero = 0;

	if (!d->hist) {
		/* a series without labels is its name alone */
		snprintf(series, sizeof(series), "%s%s%s", d->family, d->labels,
			 d->labels[0] ? "}" : "");
		if (value(text, series) != (long long)d->value)
			check_fail("%s: %.0f in protobuf, %lld in text", series, d->value,
				   value(text, series));
		return;
	}
	(*nhist)++;
	snprintf(series, sizeof(series), "%s_count%s}", d->family, d->labels);
	if (d->negative || d->nd != d->nb)
		check_fail("%s: %d deltas for %d buckets, or a count below zero", series, d->nd,
			   d->nb);
	if (d->count != d->zero + d->sum)
		check_fail("%s: count %lld, zero %lld + buckets %lld", series, d->count, d->zero,
			   d->sum);
	if (value(text, series) != d->count)
		check_fail("%s: count %lld, text %lld", series, d->count, value(text, series));
	check_classic(d, text, series);
	if (!strstr(d->labels, "stage=\"tcp_do_rcv\"") || !strstr(d->labels, "queue=\"1\""))
		return;
	for (size_t i = 0; i < NR_PB_SAMPLES; i++) {
		__u64 ns = pb_samples[i][0], n = pb_samples[i][1];
		long long got = 0;
		int want = native_of(ns > 16000000000ULL ? 16000000001ULL : ns);

		if (ns <= 59) {
			want_zero += (long long)n;
			continue;
		}
		for (int b = 0; b < d->nb; b++)
			if (d->index[b] == want)
				got = d->counts[b];
		if (got != (long long)n)
			check_fail("%llu ns: native bucket %d holds %lld, want %llu",
				   (unsigned long long)ns, want, got, (unsigned long long)n);
	}
	if (d->zero != want_zero)
		check_fail("zero count %lld, want %lld", d->zero, want_zero);
}

/* protoc's text form of a MetricFamily, line by line */
static void parse_decoded(FILE *f, struct decoded *d, const char *text, int *nhist)
{
	char line[1024], key[64], val[512];
	bool in_label = false;

	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " "), *v = val;
		size_t n;

		if (sscanf(p, "%63[a-z_]: %511[^\n]", key, val) != 2) {
			if (!strncmp(p, "label {", 7)) {
				in_label = true;
				strcat(d->labels, d->labels[0] ? "," : "{");
			} else if (!strncmp(p, "histogram {", 11)) {
				d->hist = true;
			} else if (!strncmp(p, "metric {", 8)) {
				char family[64];
				int want = d->want_classic;

				memcpy(family, d->family, sizeof(family));
				memset(d, 0, sizeof(*d));
				memcpy(d->family, family, sizeof(family));
				d->want_classic = want;
			} else if (*p == '}' && in_label) {
				in_label = false;
			} else if (*p == '}' && p == line) { /* the metric's own: column 0 */
				check_metric(d, text, nhist);
			}
			continue;
		}
		n = strlen(v);
		if (n >= 2 && v[0] == '"') {
			v[n - 1] = '\0';
			v++;
		}
		if (in_label) {
			n = strlen(d->labels);
			snprintf(d->labels + n, sizeof(d->labels) - n,
				 strcmp(key, "name") ? "\"%s\"" : "%s=", v);
		} else if (!strcmp(key, "name") && p == line) {
			snprintf(d->family, sizeof(d->family), "%.63s", v);
		} else if (!strcmp(key, "type") && p == line) {
			char want[128];

			/* the text's family of that name, of the same type */
			snprintf(want, sizeof(want), "\n# TYPE %s %.16s\n", d->family, v);
			for (char *c = want; *c; c++)
				*c = c > want + 8 + strlen(d->family) ? (char)tolower(*c) : *c;
			if (!strstr(text, want))
				check_fail("family %s of type %s: not in the text", d->family, v);
		} else if (!strcmp(key, "value")) {
			d->value = strtod(v, NULL);
		} else if (!strcmp(key, "sample_count")) {
			d->count = atoll(v);
		} else if (!strcmp(key, "zero_count")) {
			d->zero = atoll(v);
		} else if (!strcmp(key, "schema") && atoi(v) != 3) {
			check_fail("schema %s, want 3", v);
		} else if (!strcmp(key, "zero_threshold") && strtod(v, NULL) != ldexp(1, -24)) {
			check_fail("zero_threshold %s, want 2^-24", v);
		} else if (!strcmp(key, "cumulative_count") && d->ncl < (int)RXLAT_HIST_BUCKETS) {
			d->cl_count[d->ncl] = atoll(v);
		} else if (!strcmp(key, "upper_bound") && d->ncl < (int)RXLAT_HIST_BUCKETS) {
			d->cl_upper[d->ncl++] = strtod(v, NULL);
		} else if (!strcmp(key, "offset")) {
			d->idx += atoll(v);
		} else if (!strcmp(key, "length")) {
			for (long long k = atoll(v); k > 0 && d->nb < (int)RXLAT_HIST_BUCKETS; k--)
				d->index[d->nb++] = d->idx++;
		} else if (!strcmp(key, "positive_delta") && d->nd < (int)RXLAT_HIST_BUCKETS) {
			d->running += atoll(v);
			d->negative |= d->running < 0;
			d->sum += d->running;
			d->counts[d->nd++] = d->running;
		}
	}
}

/* The text exposition's families that have a sample line. */
static int families_with_samples(const char *text)
{
	int n = 0;

	for (const char *p = strstr(text, "# TYPE "); p; p = strstr(p + 1, "\n# TYPE ")) {
		const char *next = strchr(p + 1, '\n');

		n += next && next[1] && next[1] != '#';
	}
	return n;
}

/* Every delimited message of pb decoded by protoc and checked: verdict name. */
static void decode_all(const char *pb, size_t len, const char *out, const char *text,
		       struct decoded *d, const char *name)
{
	char cmd[256];
	size_t pos = 0;
	int nhist = 0, nmsg = 0;

	snprintf(cmd, sizeof(cmd), "protoc --decode=io.prometheus.client.MetricFamily %s >%s",
		 PROTO, out);
	while (pos < len) {
		__u64 n = 0;
		int shift = 0;
		FILE *p, *f;

		do {
			n |= (__u64)(pb[pos] & 0x7f) << shift;
			shift += 7;
		} while (pb[pos++] & 0x80 && pos < len);
		p = popen(cmd, "w");
		if (!p || n > len - pos) {
			check_fail("message %d: %s", nmsg, p ? "past the end" : "no protoc");
			if (p)
				pclose(p);
			break;
		}
		fwrite(pb + pos, 1, n, p);
		if (pclose(p)) {
			check_fail("message %d: protoc could not decode it", nmsg);
			break;
		}
		pos += n;
		nmsg++;
		f = fopen(out, "r");
		if (f) {
			parse_decoded(f, d, text, &nhist);
			fclose(f);
		}
	}
	/* ip_rcv and tcp_do_rcv of eth0: no other series has seen a sample */
	CHECK_U64("native histograms", (__u64)nhist, 2);
	/* a message per family that has samples in the text (none is this big) */
	CHECK_U64("messages", (__u64)nmsg, (__u64)families_with_samples(text));
	check_done(name);
}

/*
 * The protobuf scrape, each delimited message decoded by protoc on its own:
 * every message decodes, every family with samples in the text is there,
 * every value is the text's, the histograms are native with exact buckets,
 * and with the classic buckets asked for, those are the text's too.
 */
static void test_protobuf(void)
{
	static struct rxlat_hist live[NSERIES];
	struct prom_metrics *m;
	char *pb = NULL, *text, out[] = "/tmp/rxlat-prom-test.XXXXXX";
	size_t len = 0;
	int fd;
	struct decoded *d;

	/* the QEMU kernels' initramfs has neither: the host run checks the encoder */
	if (access(PROTO, R_OK) || system("command -v protoc >/dev/null 2>&1")) {
		check_skip("protobuf_decoded_by_protoc", "no protoc or no " PROTO " here");
		check_skip("protobuf_with_classic_buckets", "no protoc or no " PROTO " here");
		return;
	}
	fd = mkstemp(out);
	d = calloc(1, sizeof(*d));
	memset(live, 0, sizeof(live));
	memset(slot_owner, 0, sizeof(slot_owner));
	slot_owner[0] = 1;
	names[1] = "eth0";
	for (size_t i = 0; i < NR_PB_SAMPLES; i++)
		sample(at(live, RXLAT_STAGE_TCP_DO_RCV, 0, 1), pb_samples[i][0], pb_samples[i][1]);
	sample(at(live, RXLAT_STAGE_IP_RCV, 0, 0), 3000, 7);
	m = new_metrics(live, 2, true);
	text = m ? scrape(m, 4096) : NULL;
	if (fd >= 0)
		close(fd);
	for (int classic = 0; classic < 2; classic++) {
		if (classic)
			prom_metrics_set_classic(m);
		free(pb);
		pb = m ? scrape_as(m, 4096, PROM_FORMAT_PROTOBUF, &len) : NULL;
		if (!pb || !text || fd < 0 || !d) {
			check_failed("protobuf_decoded_by_protoc", "setup failed");
			goto out;
		}
		d->want_classic = classic ? (int)prom_nr_buckets(2) - 1 : 0;
		decode_all(pb, len, out, text, d,
			   classic ? "protobuf_with_classic_buckets"
				   : "protobuf_decoded_by_protoc");
	}
out:
	unlink(out);
	free(d);
	free(pb);
	free(text);
	free_metrics(m);
}
/* Which format each Accept header gets. */
static void test_negotiate(void)
{
	static const struct {
		const char *accept;
		enum prom_format want;
	} cases[] = {
		{ NULL, PROM_FORMAT_TEXT },
		{ "", PROM_FORMAT_TEXT },
		{ "*/*", PROM_FORMAT_TEXT },
		{ "text/plain", PROM_FORMAT_TEXT },
		{ "text/plain;version=0.0.4;q=0.5,*/*;q=0.1", PROM_FORMAT_TEXT },
		/* Prometheus 2.42 without native histograms */
		{ "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		  "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		  PROM_FORMAT_TEXT },
		/* Prometheus 2.42 with --enable-feature=native-histograms */
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		  "encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,"
		  "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
		  "q=0.5,*/*;q=0.1",
		  PROM_FORMAT_PROTOBUF },
		/* Prometheus 3's protobuf first, text only after openmetrics */
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		  "encoding=delimited;q=0.5,application/openmetrics-text;version=1.0.0;q=0.4,"
		  "text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
		  PROM_FORMAT_PROTOBUF },
		{ "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; "
		  "encoding=delimited",
		  PROM_FORMAT_PROTOBUF },
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		  "encoding=delimited;q=0,text/plain;q=0.1",
		  PROM_FORMAT_TEXT },
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		  "encoding=delimited;q=0",
		  PROM_FORMAT_TEXT },
		/* an equal q: text, which every scraper reads */
		{ "text/plain;q=0.5,application/vnd.google.protobuf;"
		  "proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5",
		  PROM_FORMAT_TEXT },
		/* another message, or the text encoding of protobuf: not ours */
		{ "application/vnd.google.protobuf;proto=other.Message;encoding=delimited",
		  PROM_FORMAT_TEXT },
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		  "encoding=text",
		  PROM_FORMAT_TEXT },
		{ "TEXT/PLAIN;q=0.2, Application/Vnd.Google.Protobuf ; "
		  "proto=\"io.prometheus.client.MetricFamily\" ; encoding=delimited ; q=0.9",
		  PROM_FORMAT_PROTOBUF },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (prom_negotiate(cases[i].accept) != cases[i].want)
			check_fail("Accept \"%s\": %s",
				   cases[i].accept ? cases[i].accept : "(none)",
				   cases[i].want == PROM_FORMAT_TEXT ? "protobuf, want text"
								     : "text, want protobuf");
	check_done("content_negotiation");
}

int main(int argc, char **argv)
{
	check_args(argc, argv);
	CHECK_RUN(test_le_exact);
	CHECK_RUN(test_coarse_sums);
	CHECK_RUN(test_never_down);
	CHECK_RUN(test_xdp);
	CHECK_RUN(test_escaping_and_pieces);
	CHECK_RUN(test_protobuf);
	CHECK_RUN(test_negotiate);
	return check_exit_status();
}
