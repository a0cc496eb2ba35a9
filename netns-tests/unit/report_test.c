// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the histogram bucket scheme, the report arithmetic and both
 * renderers. One line per check, "PASS <name>" or "FAIL <name>: <reason>";
 * the exit status is 1 when any check failed.
 *
 * Expected values are written out or derived from a bucket table built here
 * the slow way, never from the functions under test.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>

#include "rxlat_hist.h"
#include "report.h"
#include "check.h"

#define NB   ((int)RXLAT_HIST_BUCKETS)
#define LAST (NB - 1)

/* ----- reference bucket table ----- */

static __u64 ref_lower[NB], ref_le[NB];

static void ref_init(void)
{
	int i = 0, k, s;

	ref_lower[0] = 0;
	for (k = 6; k < 34; k++)
		for (s = 0; s < 8; s++)
			ref_lower[++i] = (1ULL << k) + s * (1ULL << (k - 3));
	ref_lower[++i] = 1ULL << 34;
	for (i = 0; i < LAST; i++)
		ref_le[i] = ref_lower[i + 1] - 1;
	ref_le[LAST] = UINT64_MAX;
}

static __u32 ref_bucket(__u64 ns)
{
	__u32 lo = 0, hi = LAST, mid;

	/* largest i with ref_lower[i] <= ns */
	while (lo < hi) {
		mid = (lo + hi + 1) / 2;
		if (ref_lower[mid] <= ns)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static void test_hist_layout(void)
{
	/* the table of rxlat.h, written out */
	if (NB != 226)
		check_fail("RXLAT_HIST_BUCKETS is %d, want 226", NB);
	CHECK_U64("ref_lower[1]", ref_lower[1], 64);
	CHECK_U64("ref_lower[2]", ref_lower[2], 72);
	CHECK_U64("ref_lower[9]", ref_lower[9], 128);
	CHECK_U64("ref_lower[224]", ref_lower[224], 16106127360ULL);
	CHECK_U64("ref_lower[225]", ref_lower[225], 17179869184ULL);
	CHECK_U64("lower(0)", rxlat_hist_lower(0), 0);
	CHECK_U64("le(0)", rxlat_hist_le(0), 63);
	CHECK_U64("lower(1)", rxlat_hist_lower(1), 64);
	CHECK_U64("le(1)", rxlat_hist_le(1), 71);
	CHECK_U64("le(8)", rxlat_hist_le(8), 127);
	CHECK_U64("lower(9)", rxlat_hist_lower(9), 128);
	CHECK_U64("le(9)", rxlat_hist_le(9), 143);
	CHECK_U64("lower(224)", rxlat_hist_lower(224), 16106127360ULL);
	CHECK_U64("le(224)", rxlat_hist_le(224), 17179869183ULL);
	CHECK_U64("lower(225)", rxlat_hist_lower(225), 17179869184ULL);
	CHECK_U64("le(225)", rxlat_hist_le(225), UINT64_MAX);
	check_done("hist_layout");
}

static void test_hist_special(void)
{
	static const struct {
		__u64 ns;
		__u32 idx;
	} c[] = {
		{ 0, 0 },
		{ 1, 0 },
		{ 63, 0 },
		{ 64, 1 },
		{ 71, 1 },
		{ 72, 2 },
		{ 100, 5 },
		{ 127, 8 },
		{ 128, 9 },
		{ 1000, 32 },
		{ 1000000, 112 },
		{ 1000000000, 191 },
		{ 17179869183ULL, 224 },
		{ 17179869184ULL, 225 },
		{ 1ULL << 40, 225 },
		{ 1ULL << 63, 225 },
		{ UINT64_MAX - 1, 225 },
		{ UINT64_MAX, 225 },
	};
	char what[64];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(what, sizeof(what), "bucket(%" PRIu64 ")", (uint64_t)c[i].ns);
		CHECK_U64(what, rxlat_hist_bucket(c[i].ns), c[i].idx);
	}
	check_done("hist_bucket_special");
}

static void test_hist_boundaries(void)
{
	char what[64];
	__u32 i;

	for (i = 0; i < NB; i++) {
		snprintf(what, sizeof(what), "lower(%u)", i);
		CHECK_U64(what, rxlat_hist_lower(i), ref_lower[i]);
		snprintf(what, sizeof(what), "le(%u)", i);
		CHECK_U64(what, rxlat_hist_le(i), ref_le[i]);

		snprintf(what, sizeof(what), "bucket(lower(%u))", i);
		CHECK_U64(what, rxlat_hist_bucket(ref_lower[i]), i);
		snprintf(what, sizeof(what), "bucket(le(%u))", i);
		CHECK_U64(what, rxlat_hist_bucket(ref_le[i]), i);
		if (i > 0) {
			snprintf(what, sizeof(what), "bucket(lower(%u) - 1)", i);
			CHECK_U64(what, rxlat_hist_bucket(ref_lower[i] - 1), i - 1);
		}
		if (i < LAST) {
			snprintf(what, sizeof(what), "bucket(le(%u) + 1)", i);
			CHECK_U64(what, rxlat_hist_bucket(ref_le[i] + 1), i + 1);
			/* the middle too, in case only edges are special */
			snprintf(what, sizeof(what), "bucket(mid(%u))", i);
			CHECK_U64(what,
				  rxlat_hist_bucket(ref_lower[i] + (ref_le[i] - ref_lower[i]) / 2),
				  i);
		}
	}
	check_done("hist_bucket_boundaries");
}

/* le(i) is the largest value of bucket i: it maps to i, le(i) + 1 does not */
static void test_hist_le_exact(void)
{
	__u32 i;

	for (i = 0; i < LAST; i++) {
		if (rxlat_hist_bucket(rxlat_hist_le(i)) != i)
			check_fail("le(%u) = %" PRIu64 " is not in bucket %u", i,
				   (uint64_t)rxlat_hist_le(i), i);
		if (rxlat_hist_bucket(rxlat_hist_le(i) + 1) == i)
			check_fail("le(%u) + 1 still in bucket %u", i, i);
		if (rxlat_hist_le(i) + 1 != rxlat_hist_lower(i + 1))
			check_fail("gap or overlap between buckets %u and %u", i, i + 1);
	}
	if (rxlat_hist_le(LAST) != UINT64_MAX)
		check_fail("overflow le is not UINT64_MAX");
	check_done("hist_le_exact");
}

static void test_hist_width(void)
{
	__u64 w;
	__u32 i;

	for (i = 1; i < LAST; i++) {
		w = rxlat_hist_le(i) - rxlat_hist_lower(i) + 1;
		/* w <= 12.5% of lower */
		if (8 * w > rxlat_hist_lower(i))
			check_fail("bucket %u: width %" PRIu64 " > lower %" PRIu64 " / 8", i,
				   (uint64_t)w, (uint64_t)rxlat_hist_lower(i));
	}
	check_done("hist_width_le_12.5pct");
}

static void test_hist_cover(void)
{
	__u32 i;

	if (rxlat_hist_lower(1) != 64 || rxlat_hist_le(0) != 63)
		check_fail("first linear bucket does not start at 64 ns");
	for (i = 0; i < LAST; i++)
		if (rxlat_hist_lower(i + 1) != rxlat_hist_le(i) + 1)
			check_fail("buckets %u and %u not contiguous", i, i + 1);
	if (rxlat_hist_le(LAST - 1) < 10000000000ULL)
		check_fail("last linear bucket ends at %" PRIu64 " ns < 10 s",
			   (uint64_t)rxlat_hist_le(LAST - 1));
	if (rxlat_hist_lower(LAST) != rxlat_hist_le(LAST - 1) + 1)
		check_fail("overflow bucket not contiguous");
	check_done("hist_cover_64ns_to_10s");
}

static __u64 xorshift(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_hist_random(void)
{
	__u64 seed = 0x9e3779b97f4a7c15ULL, r, ns;
	int i;

	for (i = 0; i < 2000000; i++) {
		r = xorshift(&seed);
		/* spread over all magnitudes, not just the top ones */
		ns = r >> (xorshift(&seed) % 64);
		if (rxlat_hist_bucket(ns) != ref_bucket(ns)) {
			check_fail("bucket(%" PRIu64 ") = %u, want %u", (uint64_t)ns,
				   rxlat_hist_bucket(ns), ref_bucket(ns));
			break;
		}
	}
	check_done("hist_bucket_random");
}

/* ----- percentiles and merging ----- */

static void test_pct_empty(void)
{
	struct rxlat_stats st = { 0 };

	st.max_ns = 500; /* must not leak out of an empty series */
	CHECK_U64("p0", rxlat_percentile(&st, 0), 0);
	CHECK_U64("p50", rxlat_percentile(&st, 0.5), 0);
	CHECK_U64("p100", rxlat_percentile(&st, 1), 0);
	check_done("percentile_empty");
}

static void test_pct_two_buckets(void)
{
	struct rxlat_stats st = { 0 };

	/* 10 in [1024, 1151] (bucket 33), 10 in [2048, 2303] (bucket 41) */
	st.buckets[33] = 10;
	st.buckets[41] = 10;
	st.count = 20;
	st.max_ns = 2300;
	/* rank 1: 1024 + 127 * 1 / 10 */
	CHECK_U64("p0", rxlat_percentile(&st, 0), 1036);
	/* rank 5: 1024 + 127 * 5 / 10 = 1087.5, floored */
	CHECK_U64("p25", rxlat_percentile(&st, 0.25), 1087);
	/* rank 10: top of the first bucket, its le */
	CHECK_U64("p50", rxlat_percentile(&st, 0.5), 1151);
	/* rank 11: 2048 + 255 * 1 / 10 */
	CHECK_U64("p51", rxlat_percentile(&st, 0.51), 2073);
	/* rank 18: 2048 + 255 * 8 / 10 */
	CHECK_U64("p90", rxlat_percentile(&st, 0.9), 2252);
	/* rank 20 would be 2303: clamped to the max */
	CHECK_U64("p100", rxlat_percentile(&st, 1), 2300);
	CHECK_U64("p>1", rxlat_percentile(&st, 7), 2300);
	CHECK_U64("p<0", rxlat_percentile(&st, -1), 1036);
	check_done("percentile_interpolation");
}

static void test_pct_clamp(void)
{
	struct rxlat_stats st = { 0 };

	/* one sample of 100 ns: bucket [96, 103] would say 103 */
	st.buckets[5] = 1;
	st.count = 1;
	st.sum_ns = 100;
	st.max_ns = 100;
	CHECK_U64("p50", rxlat_percentile(&st, 0.5), 100);
	CHECK_U64("p99.9", rxlat_percentile(&st, 0.999), 100);
	check_done("percentile_clamp_to_max");
}

static void test_pct_rank_rounding(void)
{
	struct rxlat_stats st = { 0 };
	/* 0.9990000000000001, as an option parser would hand it over */
	double q = 99.9 / 100;

	/* q * 1000 = 999.0000000000001: still rank 999, not 1000 */
	st.buckets[9] = 999; /* [128, 143] */
	st.buckets[17] = 1;  /* [256, 287] */
	st.count = 1000;
	st.max_ns = 280;
	CHECK_U64("p99.9", rxlat_percentile(&st, q), 143);
	CHECK_U64("p99.9 literal", rxlat_percentile(&st, 0.999), 143);
	CHECK_U64("p100", rxlat_percentile(&st, 1), 280);

	/* a rank that is not an integer rounds up: 0.11 * 30 = 3.3 -> 4 */
	memset(&st, 0, sizeof(st));
	st.buckets[0] = 3;
	st.buckets[1] = 27;
	st.count = 30;
	st.max_ns = 71;
	CHECK_U64("p10", rxlat_percentile(&st, 0.1), 63);
	/* rank 4: 64 + 7 * 1 / 27 */
	CHECK_U64("p11", rxlat_percentile(&st, 0.11), 64);
	check_done("percentile_rank_rounding");
}

static void test_pct_overflow(void)
{
	struct rxlat_stats st = { 0 };

	/* no upper bound: interpolate up to the max */
	st.buckets[LAST] = 2;
	st.count = 2;
	st.max_ns = 1ULL << 35;
	CHECK_U64("p50", rxlat_percentile(&st, 0.5), (1ULL << 34) + (1ULL << 33));
	CHECK_U64("p100", rxlat_percentile(&st, 1), 1ULL << 35);

	/* width * rank does not fit in 64 bits */
	st.buckets[LAST] = 4;
	st.count = 4;
	st.max_ns = UINT64_MAX;
	/* 2^34 + floor((2^64 - 1 - 2^34) / 2) */
	CHECK_U64("p50 huge", rxlat_percentile(&st, 0.5), (1ULL << 63) + (1ULL << 33) - 1);
	/* rank 3: 2^34 + floor((2^64 - 1 - 2^34) * 3 / 4) */
	CHECK_U64("p75 huge", rxlat_percentile(&st, 0.75), 3 * (1ULL << 62) + (1ULL << 32) - 1);
	CHECK_U64("p100 huge", rxlat_percentile(&st, 1), UINT64_MAX);

	/* max below the bucket's lower bound: the max still wins */
	st.max_ns = 5;
	CHECK_U64("p50 stale max", rxlat_percentile(&st, 0.5), 5);
	check_done("percentile_overflow_bucket");
}

static void test_pct_inconsistent(void)
{
	struct rxlat_stats st = { 0 };

	/* count says 10, buckets hold 4: ranks past them give the max */
	st.buckets[9] = 4;
	st.count = 10;
	st.max_ns = 140;
	CHECK_U64("p10", rxlat_percentile(&st, 0.1), 131);
	CHECK_U64("p90", rxlat_percentile(&st, 0.9), 140);
	check_done("percentile_count_past_buckets");
}

static void test_stats_add(void)
{
	struct rxlat_stats a = { 0 }, b = { 0 }, c;
	int i;

	a.count = 3;
	a.sum_ns = 300;
	a.max_ns = 150;
	a.buckets[0] = 1;
	a.buckets[10] = 2;
	a.sources[RXLAT_SRC_XDP] = 3;
	a.sources[RXLAT_SRC_NONE] = 4;
	b.count = 5;
	b.sum_ns = 5000;
	b.max_ns = 2000;
	b.buckets[10] = 1;
	b.buckets[LAST] = 4;
	b.sources[RXLAT_SRC_KERNEL] = 2;
	b.sources[RXLAT_SRC_TC] = 3;
	b.sources[RXLAT_SRC_NONE] = 1;

	c = a;
	rxlat_stats_add(&c, &b);
	CHECK_U64("count", c.count, 8);
	CHECK_U64("sum_ns", c.sum_ns, 5300);
	CHECK_U64("max_ns", c.max_ns, 2000);
	for (i = 0; i < NB; i++) {
		__u64 want = i == 0 ? 1 : i == 10 ? 3 : i == LAST ? 4 : 0;

		if (c.buckets[i] != want)
			check_fail("bucket %d: %" PRIu64 ", want %" PRIu64, i,
				   (uint64_t)c.buckets[i], (uint64_t)want);
	}
	CHECK_U64("src xdp", c.sources[RXLAT_SRC_XDP], 3);
	CHECK_U64("src kernel", c.sources[RXLAT_SRC_KERNEL], 2);
	CHECK_U64("src tc", c.sources[RXLAT_SRC_TC], 3);
	CHECK_U64("src none", c.sources[RXLAT_SRC_NONE], 5);

	/* the max is kept whichever side holds it */
	c = b;
	rxlat_stats_add(&c, &a);
	CHECK_U64("max_ns reversed", c.max_ns, 2000);

	/* adding to a zeroed accumulator is a copy */
	memset(&c, 0, sizeof(c));
	rxlat_stats_add(&c, &a);
	if (memcmp(&c, &a, sizeof(a)))
		check_fail("0 + a != a");
	check_done("stats_add");
}

/* ----- renderers ----- */

static const char *const attach[RXLAT_NR_STAGES] = {
	"fentry:ip_rcv", "fentry:tcp_v4_do_rcv+tcp_v6_do_rcv", "fentry:tcp_data_queue", NULL, NULL,
};

static const char *const unavailable[RXLAT_NR_STAGES] = {
	[RXLAT_STAGE_UDP_QUEUE_RCV] = "no BTF for udp_queue_rcv_one_skb",
};

static void report_init(struct rxlat_report *r)
{
	memset(r, 0, sizeof(*r));
	r->time.tv_sec = 1795341601; /* 2026-11-22T10:00:01Z */
	r->time.tv_nsec = 123999999; /* the ms are truncated, not rounded */
	r->interval_s = 1.0;
	memcpy(r->attach, attach, sizeof(attach));
	memcpy(r->unavailable, unavailable, sizeof(unavailable));
}

/* Runs a renderer into a string; NULL on failure (reason set). */
static char *render(int (*fn)(FILE *, const struct rxlat_report *), const struct rxlat_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f) {
		check_fail("open_memstream: %s", strerror(errno));
		return NULL;
	}
	err = fn(f, r);
	if (fclose(f) || err) {
		check_fail("renderer returned %d", err);
		free(buf);
		return NULL;
	}
	return buf;
}

/* Points at the first difference, line by line, on one line of output. */
static void compare_text(const char *got, const char *want)
{
	int line = 1;
	size_t i = 0, start = 0;

	while (got[i] && got[i] == want[i]) {
		if (got[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	if (!got[i] && !want[i])
		return;
	check_fail("line %d differs: got \"%.*s\", want \"%.*s\"", line,
		   (int)strcspn(got + start, "\n"), got + start, (int)strcspn(want + start, "\n"),
		   want + start);
}

static void text_fixture(struct rxlat_series *s, size_t *n, struct rxlat_xdp_row *x, size_t *nx)
{
	memset(s, 0, 5 * sizeof(*s));

	/* the example of the familiar libbpf-tools look */
	s[0].stage = RXLAT_STAGE_IP_RCV;
	strcpy(s[0].ifname, "veth1");
	s[0].ifindex = 5;
	s[0].queue = 2;
	s[0].st.buckets[18] = 3;  /* 300 ns: [288, 319] */
	s[0].st.buckets[26] = 57; /* 600 ns: [576, 639] */
	s[0].st.count = 60;
	s[0].st.sum_ns = 3 * 300 + 57 * 600;
	s[0].st.max_ns = 630;
	s[0].st.sources[RXLAT_SRC_XDP] = 60;

	/* spans into ms: us rows, with the empty rows in between */
	s[1].stage = RXLAT_STAGE_TCP_DATA_QUEUE;
	strcpy(s[1].ifname, "other");
	s[1].queue = RXLAT_QUEUE_OTHER;
	s[1].st.buckets[35] = 3;  /* 1300 ns: [1280, 1407] */
	s[1].st.buckets[130] = 2; /* 5 ms: [4718592, 5242879] */
	s[1].st.count = 5;
	s[1].st.sum_ns = 3 * 1300 + 2 * 5000000;
	s[1].st.max_ns = 5000000;
	s[1].st.sources[RXLAT_SRC_XDP] = 3;
	s[1].st.sources[RXLAT_SRC_KERNEL] = 2;
	s[1].st.sources[RXLAT_SRC_NONE] = 7;

	/* packets seen, none with a start time */
	s[2].stage = RXLAT_STAGE_UDP_QUEUE_RCV;
	strcpy(s[2].ifname, "eth0");
	s[2].ifindex = 2;
	s[2].queue = RXLAT_QUEUE_ALL;
	s[2].st.sources[RXLAT_SRC_NONE] = 5;

	/* nothing at all: not printed */
	s[3].stage = RXLAT_STAGE_TCP_DO_RCV;
	strcpy(s[3].ifname, "veth1");
	s[3].ifindex = 5;
	s[3].queue = 1;

	/* unit rounding: 13311 ns reads 13.3 us, 999999 ns 1.00 ms */
	s[4].stage = RXLAT_STAGE_SOCK_READ;
	strcpy(s[4].ifname, "lo");
	s[4].ifindex = 1;
	s[4].queue = RXLAT_QUEUE_ALL;
	s[4].st.buckets[rxlat_hist_bucket(12345)] = 1;
	s[4].st.buckets[rxlat_hist_bucket(999999)] = 1;
	s[4].st.count = 2;
	s[4].st.sum_ns = 12345 + 999999;
	s[4].st.max_ns = 999999;
	s[4].st.sources[RXLAT_SRC_TC] = 2;
	*n = 5;

	memset(x, 0, 2 * sizeof(*x));
	strcpy(x[0].ifname, "veth1");
	x[0].ifindex = 5;
	x[0].queue = 0;
	x[0].seen = 100;
	x[0].stamped = 98;
	x[0].meta_refused = 2;
	strcpy(x[1].ifname, "eth0");
	x[1].ifindex = 2;
	x[1].queue = RXLAT_QUEUE_OTHER;
	x[1].seen = 123456789012ULL;
	x[1].stamped = 123456789012ULL;
	*nx = 2;
}

/* clang-format off: one literal per output line, rows kept readable */
static const char text_want[] =
    "10:00:01\n"
    "attach: ip_rcv=fentry:ip_rcv"
    "  tcp_do_rcv=fentry:tcp_v4_do_rcv+tcp_v6_do_rcv"
    "  tcp_data_queue=fentry:tcp_data_queue"
    "  udp_queue_rcv=unavailable (no BTF for udp_queue_rcv_one_skb)"
    "  sock_read=off\n"
    "\n"
    "ip_rcv  ifname=veth1 queue=2  (sources: xdp=60 kernel=0 tc=0 none=0)\n"
    "     nsecs               : count     distribution\n"
    "       256 -> 511        : 3        |**                               "
    "       |\n"
    "       512 -> 1023       : 57       "
    "|****************************************|\n"
    "count 60  mean 585 ns  p50 605 ns  p90 630 ns  p99 630 ns  p99.9 630 "
    "ns  max 630 ns\n"
    "\n"
    "tcp_data_queue  ifname=other queue=other  (sources: xdp=3 kernel=2 "
    "tc=0 none=7)\n"
    "     usecs               : count     distribution\n"
    "     1.024 -> 2.047      : 3        "
    "|****************************************|\n"
    "     2.048 -> 4.095      : 0        |                                 "
    "       |\n"
    "     4.096 -> 8.191      : 0        |                                 "
    "       |\n"
    "     8.192 -> 16.383     : 0        |                                 "
    "       |\n"
    "    16.384 -> 32.767     : 0        |                                 "
    "       |\n"
    "    32.768 -> 65.535     : 0        |                                 "
    "       |\n"
    "    65.536 -> 131.071    : 0        |                                 "
    "       |\n"
    "   131.072 -> 262.143    : 0        |                                 "
    "       |\n"
    "   262.144 -> 524.287    : 0        |                                 "
    "       |\n"
    "   524.288 -> 1048.575   : 0        |                                 "
    "       |\n"
    "  1048.576 -> 2097.151   : 0        |                                 "
    "       |\n"
    "  2097.152 -> 4194.303   : 0        |                                 "
    "       |\n"
    "  4194.304 -> 8388.607   : 2        |**************************       "
    "       |\n"
    "count 5  mean 2.00 ms  p50 1.41 us  p90 5.00 ms  p99 5.00 ms  p99.9 "
    "5.00 ms  max 5.00 ms\n"
    "\n"
    "udp_queue_rcv  ifname=eth0  (sources: xdp=0 kernel=0 tc=0 none=5)\n"
    "count 0\n"
    "\n"
    "sock_read  ifname=lo  (sources: xdp=0 kernel=0 tc=2 none=0)\n"
    "     usecs               : count     distribution\n"
    "     8.192 -> 16.383     : 1        "
    "|****************************************|\n"
    "    16.384 -> 32.767     : 0        |                                 "
    "       |\n"
    "    32.768 -> 65.535     : 0        |                                 "
    "       |\n"
    "    65.536 -> 131.071    : 0        |                                 "
    "       |\n"
    "   131.072 -> 262.143    : 0        |                                 "
    "       |\n"
    "   262.144 -> 524.287    : 0        |                                 "
    "       |\n"
    "   524.288 -> 1048.575   : 1        "
    "|****************************************|\n"
    "count 2  mean 506 us  p50 13.3 us  p90 1.00 ms  p99 1.00 ms  p99.9 "
    "1.00 ms  max 1.00 ms\n"
    "\n"
    "xdp stamper:\n"
    "ifname  queue          seen       stamped  meta_refused\n"
    "veth1       0           100            98             2\n"
    "eth0    other  123456789012  123456789012             0\n"
    "\n";
/* clang-format on */

static void test_text(void)
{
	struct rxlat_series s[5];
	struct rxlat_xdp_row x[2];
	struct rxlat_report r;
	char *got;

	report_init(&r);
	text_fixture(s, &r.nseries, x, &r.nxdp);
	r.series = s;
	r.xdp = x;
	got = render(rxlat_report_text, &r);
	if (got)
		compare_text(got, text_want);
	free(got);
	check_done("text_report");
}

static void test_text_final_empty(void)
{
	struct rxlat_report r;
	char *got;
	int s;

	report_init(&r);
	r.final = true;
	for (s = 0; s < RXLAT_NR_STAGES; s++) {
		r.attach[s] = NULL;
		r.unavailable[s] = NULL;
	}
	r.attach[RXLAT_STAGE_SOCK_READ] = "tp_btf:sock_recv_length";
	got = render(rxlat_report_text, &r);
	if (got)
		compare_text(got, "10:00:01 final\n"
				  "attach: ip_rcv=off  tcp_do_rcv=off"
				  "  tcp_data_queue=off  udp_queue_rcv=off"
				  "  sock_read=tp_btf:sock_recv_length\n"
				  "\n");
	free(got);
	check_done("text_report_final_empty");
}

/* ----- JSON, parsed back ----- */

static struct json_object *get(struct json_object *o, const char *key, enum json_type type)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v)) {
		check_fail("key \"%s\" missing", key);
		return NULL;
	}
	if (!json_object_is_type(v, type)) {
		check_fail("key \"%s\" has type %s, want %s", key,
			   json_type_to_name(json_object_get_type(v)), json_type_to_name(type));
		return NULL;
	}
	return v;
}

static void expect_u64(struct json_object *o, const char *key, __u64 want)
{
	struct json_object *v = get(o, key, json_type_int);

	if (v && json_object_get_uint64(v) != want)
		check_fail("\"%s\": got %" PRIu64 ", want %" PRIu64, key,
			   (uint64_t)json_object_get_uint64(v), (uint64_t)want);
}

static void expect_str(struct json_object *o, const char *key, const char *want)
{
	struct json_object *v = get(o, key, json_type_string);

	if (v && strcmp(json_object_get_string(v), want))
		check_fail("\"%s\": got \"%s\", want \"%s\"", key, json_object_get_string(v), want);
}

static void expect_keys(struct json_object *o, const char *what, int n)
{
	if (json_object_object_length(o) != n)
		check_fail("%s has %d keys, want %d", what, json_object_object_length(o), n);
}

/* Checks one series object; buckets as (le index, count) pairs. */
static void expect_series(struct json_object *o, const struct rxlat_series *s, const char *ifname,
			  const char *queue, const __u64 *pct)
{
	static const char *const pkey[] = { "p50_ns", "p90_ns", "p99_ns", "p999_ns" };
	struct json_object *b, *e, *src;
	size_t n = 0, j;
	__u32 i;

	expect_keys(o, "series", 13);
	expect_str(o, "stage", rxlat_stage_names[s->stage]);
	expect_str(o, "ifname", ifname);
	expect_u64(o, "ifindex", s->ifindex);
	if (!queue) {
		if (get(o, "queue", json_type_null))
			check_fail("queue not null");
	} else if (queue[0] >= '0' && queue[0] <= '9') {
		expect_u64(o, "queue", strtoull(queue, NULL, 10));
	} else {
		expect_str(o, "queue", queue);
	}
	expect_u64(o, "count", s->st.count);
	expect_u64(o, "sum_ns", s->st.sum_ns);
	expect_u64(o, "max_ns", s->st.max_ns);
	for (j = 0; j < 4; j++)
		expect_u64(o, pkey[j], pct[j]);

	b = get(o, "buckets", json_type_array);
	for (i = 0; b && i < NB; i++) {
		if (!s->st.buckets[i])
			continue;
		if (n >= json_object_array_length(b)) {
			check_fail("bucket array too short at bucket %u", i);
			break;
		}
		e = json_object_array_get_idx(b, n++);
		expect_keys(e, "bucket", 2);
		if (i == LAST)
			expect_str(e, "le_ns", "+Inf");
		else
			expect_u64(e, "le_ns", ref_le[i]);
		expect_u64(e, "count", s->st.buckets[i]);
	}
	if (b && n != json_object_array_length(b))
		check_fail("%zu buckets, want %zu", json_object_array_length(b), n);

	src = get(o, "sources", json_type_object);
	if (src) {
		expect_keys(src, "sources", 4);
		expect_u64(src, "xdp", s->st.sources[RXLAT_SRC_XDP]);
		expect_u64(src, "kernel", s->st.sources[RXLAT_SRC_KERNEL]);
		expect_u64(src, "tc", s->st.sources[RXLAT_SRC_TC]);
		expect_u64(src, "none", s->st.sources[RXLAT_SRC_NONE]);
	}
}

static void test_json(void)
{
	struct rxlat_series s[4];
	struct rxlat_xdp_row x[3];
	struct json_object *root = NULL, *o, *a;
	struct rxlat_report r;
	__u64 pct_a[4], pct_b[4] = { 0 }, pct_d[4];
	char *line;
	size_t len;
	__u32 i;

	memset(s, 0, sizeof(s));
	/* every kind of bucket, a name that needs escaping, all queues */
	s[0].stage = RXLAT_STAGE_IP_RCV;
	strcpy(s[0].ifname, "ve\"th\\1/");
	s[0].ifindex = 7;
	s[0].queue = RXLAT_QUEUE_ALL;
	s[0].st.buckets[0] = 2;
	s[0].st.buckets[33] = 3; /* [1024, 1151] */
	s[0].st.buckets[LAST] = 1;
	s[0].st.count = 6;
	s[0].st.sum_ns = 12345678901ULL;
	s[0].st.max_ns = 1ULL << 35;
	s[0].st.sources[RXLAT_SRC_XDP] = 4;
	s[0].st.sources[RXLAT_SRC_KERNEL] = 1;
	s[0].st.sources[RXLAT_SRC_TC] = 1;
	s[0].st.sources[RXLAT_SRC_NONE] = 9;
	pct_a[0] = 1024 + 127 / 3;		     /* rank 3: first of bucket 33 */
	pct_a[1] = pct_a[2] = pct_a[3] = 1ULL << 35; /* rank 6: the max */

	/* no sample with a start time: still reported, with zeros */
	s[1].stage = RXLAT_STAGE_TCP_DATA_QUEUE;
	strcpy(s[1].ifname, "other");
	s[1].queue = RXLAT_QUEUE_OTHER;
	s[1].st.sources[RXLAT_SRC_NONE] = 4;

	/* empty: left out */
	s[2].stage = RXLAT_STAGE_TCP_DO_RCV;
	strcpy(s[2].ifname, "eth0");
	s[2].ifindex = 2;
	s[2].queue = 0;

	/* all 226 buckets, to check every le_ns */
	s[3].stage = RXLAT_STAGE_UDP_QUEUE_RCV;
	strcpy(s[3].ifname, "eth0");
	s[3].ifindex = 2;
	s[3].queue = 3;
	for (i = 0; i < NB; i++) {
		s[3].st.buckets[i] = i + 1;
		s[3].st.count += i + 1;
	}
	s[3].st.sum_ns = 1000;
	s[3].st.max_ns = UINT64_MAX;
	s[3].st.sources[RXLAT_SRC_XDP] = s[3].st.count;
	/*
	 * p50: rank 12826 of 25651; buckets 0..158 hold 12720, so the 106th
	 * of bucket 159 = [58720256, 62914559]: + 4194303 * 106 / 160.
	 */
	pct_d[0] = 58720256 + 2778725;
	pct_d[1] = rxlat_percentile(&s[3].st, 0.9);
	pct_d[2] = rxlat_percentile(&s[3].st, 0.99);
	pct_d[3] = rxlat_percentile(&s[3].st, 0.999);

	memset(x, 0, sizeof(x));
	strcpy(x[0].ifname, "veth1");
	x[0].ifindex = 5;
	x[0].queue = 0;
	x[0].seen = 100;
	x[0].stamped = 98;
	x[0].meta_refused = 2;
	strcpy(x[1].ifname, "eth0");
	x[1].ifindex = 2;
	x[1].queue = RXLAT_QUEUE_OTHER;
	x[1].seen = UINT64_MAX;
	strcpy(x[2].ifname, "eth1");
	x[2].ifindex = 3;
	x[2].queue = RXLAT_QUEUE_ALL;

	report_init(&r);
	r.series = s;
	r.nseries = 4;
	r.xdp = x;
	r.nxdp = 3;

	line = render(rxlat_report_json, &r);
	if (!line)
		goto out;
	len = strlen(line);
	if (!len || line[len - 1] != '\n' || strchr(line, '\n') != line + len - 1)
		check_fail("not exactly one line");
	if (!strstr(line, "\"interval_s\":1.0,"))
		check_fail("interval_s not printed as 1.0");
	root = json_tokener_parse(line);
	if (!root || !json_object_is_type(root, json_type_object)) {
		check_fail("output does not parse as a JSON object");
		goto out;
	}

	expect_keys(root, "report", 7);
	expect_str(root, "time", "2026-11-22T10:00:01.123Z");
	o = get(root, "interval_s", json_type_double);
	if (o && json_object_get_double(o) != 1.0)
		check_fail("interval_s %g", json_object_get_double(o));
	o = get(root, "final", json_type_boolean);
	if (o && json_object_get_boolean(o))
		check_fail("final is true");

	o = get(root, "attach", json_type_object);
	if (o) {
		expect_keys(o, "attach", 5);
		expect_str(o, "ip_rcv", "fentry:ip_rcv");
		expect_str(o, "tcp_do_rcv", "fentry:tcp_v4_do_rcv+tcp_v6_do_rcv");
		expect_str(o, "tcp_data_queue", "fentry:tcp_data_queue");
		get(o, "udp_queue_rcv", json_type_null);
		get(o, "sock_read", json_type_null);
	}
	o = get(root, "unavailable", json_type_object);
	if (o) {
		expect_keys(o, "unavailable", 1);
		expect_str(o, "udp_queue_rcv", "no BTF for udp_queue_rcv_one_skb");
	}

	a = get(root, "series", json_type_array);
	if (a && json_object_array_length(a) != 3)
		check_fail("%zu series, want 3", json_object_array_length(a));
	else if (a) {
		expect_series(json_object_array_get_idx(a, 0), &s[0], "ve\"th\\1/", NULL, pct_a);
		expect_series(json_object_array_get_idx(a, 1), &s[1], "other", "other", pct_b);
		expect_series(json_object_array_get_idx(a, 2), &s[3], "eth0", "3", pct_d);
	}

	a = get(root, "xdp", json_type_array);
	if (a && json_object_array_length(a) != 3)
		check_fail("%zu xdp rows, want 3", json_object_array_length(a));
	else if (a) {
		o = json_object_array_get_idx(a, 0);
		expect_keys(o, "xdp row", 6);
		expect_str(o, "ifname", "veth1");
		expect_u64(o, "ifindex", 5);
		expect_u64(o, "queue", 0);
		expect_u64(o, "seen", 100);
		expect_u64(o, "stamped", 98);
		expect_u64(o, "meta_refused", 2);
		o = json_object_array_get_idx(a, 1);
		expect_str(o, "ifname", "eth0");
		expect_str(o, "queue", "other");
		expect_u64(o, "seen", UINT64_MAX);
		expect_u64(o, "stamped", 0);
		o = json_object_array_get_idx(a, 2);
		get(o, "queue", json_type_null);
	}
out:
	json_object_put(root);
	free(line);
	check_done("json_report");
}

static void test_json_final_empty(void)
{
	struct json_object *root = NULL, *o;
	struct rxlat_report r;
	char *line;

	report_init(&r);
	r.final = true;
	r.interval_s = 0.25;
	r.time.tv_nsec = 0;
	line = render(rxlat_report_json, &r);
	if (!line)
		goto out;
	root = json_tokener_parse(line);
	if (!root) {
		check_fail("output does not parse");
		goto out;
	}
	expect_str(root, "time", "2026-11-22T10:00:01.000Z");
	o = get(root, "final", json_type_boolean);
	if (o && !json_object_get_boolean(o))
		check_fail("final is false");
	o = get(root, "interval_s", json_type_double);
	if (o && json_object_get_double(o) != 0.25)
		check_fail("interval_s %g", json_object_get_double(o));
	o = get(root, "series", json_type_array);
	if (o && json_object_array_length(o))
		check_fail("series not empty");
	o = get(root, "xdp", json_type_array);
	if (o && json_object_array_length(o))
		check_fail("xdp not empty");
out:
	json_object_put(root);
	free(line);
	check_done("json_report_final_empty");
}

/* --drops and --slow: their sections, only when on */
static void test_drops_slow(void)
{
	struct rxlat_drop_row d = {
		.ifname = "veth1", .ifindex = 2, .queue = 3, .reason = "NETFILTER_DROP"
	};
	struct json_object *root = NULL, *a, *o;
	struct rxlat_report r;
	char *line = NULL, *text = NULL;

	report_init(&r);
	line = render(rxlat_report_json, &r);
	root = line ? json_tokener_parse(line) : NULL;
	if (!root || json_object_object_get_ex(root, "drops", NULL) ||
	    json_object_object_get_ex(root, "slow", NULL))
		check_fail("drops or slow in a report without them");
	json_object_put(root);
	free(line);

	d.st.buckets[rxlat_hist_bucket(1500)] = 7;
	d.st.count = 7;
	d.st.sum_ns = 7 * 1500;
	d.st.max_ns = 1500;
	r.drops_on = true;
	r.drops = &d;
	r.ndrops = 1;
	r.drops_lost = 2;
	r.slow_on = true;
	r.slow_sent = 5;
	r.slow_suppressed = 9;
	r.slow_lost = 1;
	line = render(rxlat_report_json, &r);
	root = line ? json_tokener_parse(line) : NULL;
	if (!root) {
		check_fail("output does not parse");
		goto out;
	}
	a = get(root, "drops", json_type_array);
	if (a && json_object_array_length(a) != 1)
		check_fail("%zu drop rows", json_object_array_length(a));
	if (a && json_object_array_length(a) == 1) {
		o = json_object_array_get_idx(a, 0);
		expect_str(o, "reason", "NETFILTER_DROP");
		expect_str(o, "ifname", "veth1");
		if (json_object_get_int(get(o, "queue", json_type_int)) != 3 ||
		    json_object_get_int(get(o, "count", json_type_int)) != 7)
			check_fail("queue or count of the drop row");
	}
	if (json_object_get_int(get(root, "drops_lost", json_type_int)) != 2)
		check_fail("drops_lost");
	o = get(root, "slow", json_type_object);
	if (o && (json_object_get_int(get(o, "sent", json_type_int)) != 5 ||
		  json_object_get_int(get(o, "suppressed", json_type_int)) != 9 ||
		  json_object_get_int(get(o, "lost", json_type_int)) != 1))
		check_fail("slow counts");
	text = render(rxlat_report_text, &r);
	if (text && !strstr(text, "drops (time from the stamp to the drop), 2 not counted: the "
				  "drop map is full:\n"))
		check_fail("text drops header: %s", text);
	if (text && !strstr(text, "veth1       3  NETFILTER_DROP      7     1.48 us     1.50 us\n"))
		check_fail("text drop row: %s", text);
	if (text && !strstr(text, "slow records: 5 written, 9 held back by --slow-rate, 1 lost "
				  "(ring buffer full)\n"))
		check_fail("text slow line: %s", text);
out:
	json_object_put(root);
	free(line);
	free(text);
	check_done("drops_and_slow_sections");
}

/* next_series over an array; fails with fail_at (when set) at that series */
struct series_feed {
	const struct rxlat_series *s;
	size_t n, i, fail_at;
};

static int feed_next(void *ctx, struct rxlat_series *out)
{
	struct series_feed *f = ctx;

	if (f->fail_at && f->i == f->fail_at)
		return -ENOMEM;
	if (f->i == f->n)
		return 0;
	*out = f->s[f->i++];
	return 1;
}

/*
 * The series are written without json-c's tree; what is written must be
 * what json-c itself prints for the same members: parse each line and print
 * it again with json-c, byte for byte the same. Names that json-c must
 * escape (quotes, backslash, control characters) and that it passes
 * through (slash, bytes above 0x7e), every kind of queue, and the extremes
 * of the numbers.
 */
static void test_json_as_json_c_prints(void)
{
	static const char *const names[] = {
		"eth0", "ve\"th", "b\\s/1", "a\tb\x01\x1f", "\xc3\xa9th\xff\x7f", "0123456789abcde",
		""
	};
	static const int queues[] = { RXLAT_QUEUE_ALL, RXLAT_QUEUE_OTHER, 0, 255 };
	struct rxlat_series s[7];
	struct json_object *root, *a;
	struct rxlat_report r;
	char *line;
	const char *again;
	size_t n;

	memset(s, 0, sizeof(s));
	for (size_t i = 0; i < 7; i++) {
		s[i].stage = (enum rxlat_stage)(i % RXLAT_NR_STAGES);
		strncpy(s[i].ifname, names[i], sizeof(s[i].ifname));
		s[i].ifindex = i ? (__u32)(UINT32_MAX - i) : 1;
		s[i].queue = queues[i % 4];
		for (int b = (int)i; b < NB; b += 7 + (int)i)
			s[i].st.buckets[b] = i == 5 ? UINT64_MAX : (__u64)b + 1;
		s[i].st.buckets[LAST] = i & 1;
		s[i].st.count = i == 5 ? UINT64_MAX : 1000 * i + 1;
		s[i].st.sum_ns = i == 5 ? UINT64_MAX : 99999 * i;
		s[i].st.max_ns = i == 5 ? UINT64_MAX : 1ULL << (20 + i);
		for (int k = 0; k < RXLAT_NR_SOURCES; k++)
			s[i].st.sources[k] = i == 5 ? UINT64_MAX : (__u64)(i * k);
	}
	report_init(&r);
	r.series = s;
	r.nseries = 7;

	line = render(rxlat_report_json, &r);
	if (!line)
		goto out;
	root = json_tokener_parse(line);
	a = root ? get(root, "series", json_type_array) : NULL;
	if (!a) {
		check_fail("output does not parse, or has no series: %s", line);
		goto free;
	}
	if (json_object_array_length(a) != 7)
		check_fail("%zu series, want 7", json_object_array_length(a));
	again = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	n = strlen(line) - 1;
	if (strlen(again) != n || strncmp(again, line, n))
		check_fail("json-c prints it otherwise:\n%s\nvs\n%s", again, line);
	if (!strstr(line, "\"ifname\":\"a\\tb\\u0001\\u001f\"") ||
	    !strstr(line, "\"ifname\":\"ve\\\"th\"") || !strstr(line, "\"ifname\":\"b\\\\s/1\"") ||
	    !strstr(line, "\"ifname\":\"\xc3\xa9th\xff\x7f\"") || !strstr(line, "\"ifname\":\"\""))
		check_fail("names not escaped as json-c does: %s", line);
free:
	json_object_put(root);
	free(line);
out:
	check_done("json_as_json_c_prints");
}

/*
 * Series handed over one at a time (as the collector takes them) render as
 * the same array does, in text and JSON; a failure to take one is the
 * renderer's failure.
 */
static void test_series_one_at_a_time(void)
{
	int (*fns[2])(FILE *, const struct rxlat_report *) = { rxlat_report_text,
							       rxlat_report_json };
	struct rxlat_series s[5];
	struct rxlat_xdp_row x[2];
	struct rxlat_report r, it;
	struct series_feed feed;

	report_init(&r);
	text_fixture(s, &r.nseries, x, &r.nxdp);
	r.series = s;
	r.xdp = x;
	for (int i = 0; i < 2; i++) {
		char *want = render(fns[i], &r), *got, *buf = NULL;
		size_t len = 0;
		FILE *f;

		feed = (struct series_feed){ .s = s, .n = r.nseries };
		it = r;
		it.series = NULL;
		it.nseries = 0;
		it.next_series = feed_next;
		it.series_ctx = &feed;
		got = render(fns[i], &it);
		if (want && got && strcmp(want, got))
			check_fail("%s: one at a time differs from the array:\n%s\nvs\n%s",
				   i ? "json" : "text", got, want);
		free(want);
		free(got);

		feed = (struct series_feed){ .s = s, .n = r.nseries, .fail_at = 2 };
		f = open_memstream(&buf, &len);
		if (f && fns[i](f, &it) != -ENOMEM)
			check_fail("%s: a series that cannot be taken must fail the report",
				   i ? "json" : "text");
		if (f)
			fclose(f);
		free(buf);
	}
	check_done("series_one_at_a_time");
}

int main(void)
{
	/* the text header is local time */
	setenv("TZ", "UTC", 1);
	tzset();
	ref_init();

	test_hist_layout();
	test_hist_special();
	test_hist_boundaries();
	test_hist_le_exact();
	test_hist_width();
	test_hist_cover();
	test_hist_random();
	test_pct_empty();
	test_pct_two_buckets();
	test_pct_clamp();
	test_pct_rank_rounding();
	test_pct_overflow();
	test_pct_inconsistent();
	test_stats_add();
	test_text();
	test_text_final_empty();
	test_json();
	test_json_final_empty();
	test_drops_slow();
	test_series_one_at_a_time();
	test_json_as_json_c_prints();
	return check_exit_status();
}
