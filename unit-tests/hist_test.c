// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the histogram bucket scheme (rxlat_hist.h) and the
 * arithmetic of a series' statistics: percentiles and merging
 * (collector/base/series.c). One line per check, "PASS <name>" or "FAIL
 * <name>: <reason>"; the exit status is 1 when any check failed.
 *
 * Expected values are written out or derived from a bucket table built the
 * slow way (hist_ref.h), never from the functions under test.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rxlat_hist.h"
#include "series.h"
#include "check.h"
#include "hist_ref.h"

static void test_hist_layout(void)
{
	/* the table of rxlat.h, written out */
	if (NB != 226)
		check_fail("RXLAT_HIST_BUCKETS is %d, want 226", NB);
	CHECK_U64("ref_lower[1]", ref_lower[1], 60);
	CHECK_U64("ref_lower[2]", ref_lower[2], 65);
	CHECK_U64("ref_lower[9]", ref_lower[9], 120);
	CHECK_U64("ref_lower[224]", ref_lower[224], 14672064692ULL);
	CHECK_U64("ref_lower[225]", ref_lower[225], 16000000001ULL);
	CHECK_U64("lower(0)", rxlat_hist_lower(0), 0);
	CHECK_U64("le(0)", rxlat_hist_le(0), 59);
	CHECK_U64("lower(1)", rxlat_hist_lower(1), 60);
	CHECK_U64("le(1)", rxlat_hist_le(1), 64);
	CHECK_U64("le(8)", rxlat_hist_le(8), 119);
	CHECK_U64("lower(9)", rxlat_hist_lower(9), 120);
	CHECK_U64("le(9)", rxlat_hist_le(9), 129);
	CHECK_U64("le(192)", rxlat_hist_le(192), 1000000000ULL);
	CHECK_U64("lower(224)", rxlat_hist_lower(224), 14672064692ULL);
	CHECK_U64("le(224)", rxlat_hist_le(224), 16000000000ULL);
	CHECK_U64("lower(225)", rxlat_hist_lower(225), 16000000001ULL);
	CHECK_U64("le(225)", rxlat_hist_le(225), UINT64_MAX);
	/* native schema 3: bucket b is native bucket b - 192, the overflow 33 */
	CHECK_U64("native(1)", (__u64)(rxlat_hist_native_index(1) + 1000), 1000 - 191);
	CHECK_U64("native(192)", (__u64)rxlat_hist_native_index(192), 0);
	CHECK_U64("native(225)", (__u64)rxlat_hist_native_index(225), 33);
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
		{ 59, 0 },
		{ 60, 1 },
		{ 64, 1 },
		{ 65, 2 },
		{ 100, 6 },
		{ 119, 8 },
		{ 120, 9 },
		{ 1000, 33 },
		{ 999999, 113 },
		{ 1000000, 113 },
		{ 999999999, 192 },
		{ 1000000000, 192 },
		{ 1000000001, 193 },
		{ 16000000000ULL, 224 },
		{ 16000000001ULL, 225 },
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
		w = rxlat_hist_le(i) - rxlat_hist_lower(i);
		/* le / lower - 1 <= 2^(1/8) - 1 = 9.0508%: no wider than native buckets */
		if (100000 * w > 9051 * rxlat_hist_lower(i))
			check_fail("bucket %u: le - lower %" PRIu64 " > 9.051%% of %" PRIu64, i,
				   (uint64_t)w, (uint64_t)rxlat_hist_lower(i));
	}
	check_done("hist_width_le_9.05pct");
}

static void test_hist_cover(void)
{
	__u32 i;

	if (rxlat_hist_lower(1) != 60 || rxlat_hist_le(0) != 59)
		check_fail("the first bucket after the zero bucket does not start at 60 ns");
	for (i = 0; i < LAST; i++)
		if (rxlat_hist_lower(i + 1) != rxlat_hist_le(i) + 1)
			check_fail("buckets %u and %u not contiguous", i, i + 1);
	if (rxlat_hist_le(LAST - 1) != 16000000000ULL)
		check_fail("the last bucket before the overflow ends at %" PRIu64 " ns, not 16 s",
			   (uint64_t)rxlat_hist_le(LAST - 1));
	if (rxlat_hist_lower(LAST) != rxlat_hist_le(LAST - 1) + 1)
		check_fail("overflow bucket not contiguous");
	check_done("hist_cover_60ns_to_16s");
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

	/* 10 in [954, 1039] (bucket 33), 10 in [1908, 2079] (bucket 41) */
	st.buckets[33] = 10;
	st.buckets[41] = 10;
	st.count = 20;
	st.max_ns = 2070;
	/* rank 1: 954 + 85 * 1 / 10 */
	CHECK_U64("p0", rxlat_percentile(&st, 0), 962);
	/* rank 5: 954 + 85 * 5 / 10 = 996.5, floored */
	CHECK_U64("p25", rxlat_percentile(&st, 0.25), 996);
	/* rank 10: top of the first bucket, its le */
	CHECK_U64("p50", rxlat_percentile(&st, 0.5), 1039);
	/* rank 11: 1908 + 171 * 1 / 10 */
	CHECK_U64("p51", rxlat_percentile(&st, 0.51), 1925);
	/* rank 18: 1908 + 171 * 8 / 10 */
	CHECK_U64("p90", rxlat_percentile(&st, 0.9), 2044);
	/* rank 20 would be 2079: clamped to the max */
	CHECK_U64("p100", rxlat_percentile(&st, 1), 2070);
	CHECK_U64("p>1", rxlat_percentile(&st, 7), 2070);
	CHECK_U64("p<0", rxlat_percentile(&st, -1), 962);
	check_done("percentile_interpolation");
}

static void test_pct_clamp(void)
{
	struct rxlat_stats st = { 0 };

	/* one sample of 95 ns: bucket [92, 100] would say 100 */
	st.buckets[6] = 1;
	st.count = 1;
	st.sum_ns = 95;
	st.max_ns = 95;
	CHECK_U64("p50", rxlat_percentile(&st, 0.5), 95);
	CHECK_U64("p99.9", rxlat_percentile(&st, 0.999), 95);
	check_done("percentile_clamp_to_max");
}

static void test_pct_rank_rounding(void)
{
	struct rxlat_stats st = { 0 };
	/* 0.9990000000000001, as an option parser would hand it over */
	double q = 99.9 / 100;

	/* q * 1000 = 999.0000000000001: still rank 999, not 1000 */
	st.buckets[9] = 999; /* [120, 129] */
	st.buckets[17] = 1;  /* [239, 259] */
	st.count = 1000;
	st.max_ns = 250;
	CHECK_U64("p99.9", rxlat_percentile(&st, q), 129);
	CHECK_U64("p99.9 literal", rxlat_percentile(&st, 0.999), 129);
	CHECK_U64("p100", rxlat_percentile(&st, 1), 250);

	/* a rank that is not an integer rounds up: 0.11 * 30 = 3.3 -> 4 */
	memset(&st, 0, sizeof(st));
	st.buckets[0] = 3;
	st.buckets[1] = 27;
	st.count = 30;
	st.max_ns = 64;
	CHECK_U64("p10", rxlat_percentile(&st, 0.1), 59);
	/* rank 4: 60 + 4 * 1 / 27 */
	CHECK_U64("p11", rxlat_percentile(&st, 0.11), 60);
	check_done("percentile_rank_rounding");
}

static void test_pct_overflow(void)
{
	struct rxlat_stats st = { 0 };

	/* no upper bound: interpolate up to the max */
	st.buckets[LAST] = 2;
	st.count = 2;
	st.max_ns = 1ULL << 35;
	/* rank 1: 16e9 + 1 + (2^35 - 16e9 - 1) / 2 */
	CHECK_U64("p50", rxlat_percentile(&st, 0.5), 25179869184ULL);
	CHECK_U64("p100", rxlat_percentile(&st, 1), 1ULL << 35);

	/* width * rank does not fit in 64 bits */
	st.buckets[LAST] = 4;
	st.count = 4;
	st.max_ns = UINT64_MAX;
	/* L + floor((2^64 - 1 - L) / 2), L = 16e9 + 1 the bucket's lower bound */
	CHECK_U64("p50 huge", rxlat_percentile(&st, 0.5), 9223372044854775808ULL);
	/* rank 3: L + floor((2^64 - 1 - L) * 3 / 4) */
	CHECK_U64("p75 huge", rxlat_percentile(&st, 0.75), 13835058059282163711ULL);
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
	/* rank 1 of the 4 in [120, 129] */
	CHECK_U64("p10", rxlat_percentile(&st, 0.1), 122);
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

int main(int argc, char **argv)
{
	check_args(argc, argv);
	ref_init();
	CHECK_RUN(test_hist_layout);
	CHECK_RUN(test_hist_special);
	CHECK_RUN(test_hist_boundaries);
	CHECK_RUN(test_hist_le_exact);
	CHECK_RUN(test_hist_width);
	CHECK_RUN(test_hist_cover);
	CHECK_RUN(test_hist_random);
	CHECK_RUN(test_pct_empty);
	CHECK_RUN(test_pct_two_buckets);
	CHECK_RUN(test_pct_clamp);
	CHECK_RUN(test_pct_rank_rounding);
	CHECK_RUN(test_pct_overflow);
	CHECK_RUN(test_pct_inconsistent);
	CHECK_RUN(test_stats_add);
	return check_exit_status();
}
