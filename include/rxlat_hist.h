/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bucket arithmetic of the rxlat histogram (scheme: see rxlat.h). The BPF
 * programs and user space include this same file, so the bucket a sample
 * lands in and the bounds the report prints for it cannot drift apart.
 *
 * BPF: include after vmlinux.h. User space: include after <linux/types.h>.
 */
#ifndef RXLAT_HIST_H
#define RXLAT_HIST_H

#include "rxlat.h"

/*
 * The bucket bounds, in ns: bound j is floor(1e9 * 2^((j - 192) / 8)), the
 * upper bound of native bucket j - 192 of schema 3 rounded down to the ns
 * (scripts/hist_bounds.py prints them, in integers only; the unit tests
 * recompute them). Bucket 0 holds 0..bound 0, bucket b in 1..224 holds
 * (bound b-1, bound b], the last one what is above bound 224 (16 s). Past
 * 224 the table is padded for the search: above any ns that reaches it,
 * below 2^63 for its sign trick.
 */
#define RXLAT_HIST_TABLE 256
#define RXLAT_HIST_PAD	 (1ULL << 62)

/* as scripts/hist_bounds.py prints it */
/* clang-format off */
static const __u64 rxlat_hist_bounds[RXLAT_HIST_TABLE] = {
	59, 64, 70, 77, 84, 91, 100, 109, 119, 129, 141, 154, 168, 183, 200, 218, 238, 259, 283,
	309, 337, 367, 400, 437, 476, 519, 567, 618, 674, 735, 801, 874, 953, 1039, 1134, 1236,
	1348, 1470, 1603, 1749, 1907, 2079, 2268, 2473, 2697, 2941, 3207, 3498, 3814, 4159, 4536,
	4947, 5394, 5883, 6415, 6996, 7629, 8319, 9072, 9894, 10789, 11766, 12831, 13992, 15258,
	16639, 18145, 19788, 21579, 23532, 25662, 27984, 30517, 33279, 36291, 39576, 43158, 47064,
	51324, 55969, 61035, 66559, 72583, 79152, 86316, 94129, 102648, 111938, 122070, 133118,
	145166, 158305, 172633, 188258, 205296, 223877, 244140, 266237, 290333, 316611, 345266,
	376516, 410593, 447755, 488281, 532474, 580667, 633222, 690533, 753032, 821187, 895511,
	976562, 1064948, 1161335, 1266444, 1381067, 1506065, 1642375, 1791023, 1953125, 2129897,
	2322670, 2532889, 2762135, 3012130, 3284751, 3582047, 3906250, 4259795, 4645340, 5065779,
	5524271, 6024261, 6569503, 7164094, 7812500, 8519591, 9290680, 10131559, 11048543, 12048522,
	13139006, 14328188, 15625000, 17039183, 18581361, 20263118, 22097086, 24097044, 26278012,
	28656376, 31250000, 34078366, 37162722, 40526236, 44194173, 48194088, 52556025, 57312752,
	62500000, 68156733, 74325444, 81052472, 88388347, 96388176, 105112051, 114625505, 125000000,
	136313466, 148650889, 162104944, 176776695, 192776353, 210224103, 229251010, 250000000,
	272626933, 297301778, 324209888, 353553390, 385552706, 420448207, 458502021, 500000000,
	545253866, 594603557, 648419777, 707106781, 771105412, 840896415, 917004043, 1000000000,
	1090507732, 1189207115, 1296839554, 1414213562, 1542210825, 1681792830, 1834008086,
	2000000000, 2181015465, 2378414230, 2593679109, 2828427124, 3084421650, 3363585661,
	3668016172, 4000000000, 4362030930, 4756828460, 5187358218, 5656854249, 6168843301,
	6727171322, 7336032345, 8000000000, 8724061861, 9513656920, 10374716437, 11313708498,
	12337686603, 13454342644, 14672064691, 16000000000,
	[RXLAT_HIST_LINEAR + 1 ... RXLAT_HIST_TABLE - 1] = RXLAT_HIST_PAD,
};
/* clang-format on */

_Static_assert(RXLAT_HIST_LINEAR + 1 <= RXLAT_HIST_TABLE, "the search covers every bound");

/*
 * Bucket of a latency in ns: the number of bounds below it, found by a
 * binary search of 8 steps over the padded table, one load and no branch
 * each (v > c written as (c - v) >> 63, both below 2^63), the index masked
 * so that the verifier sees every load inside the table. No loop and no
 * __builtin_clzll (Debian's clang crashes on it in the BPF backend).
 */
static inline __u32 rxlat_hist_bucket(__u64 ns)
{
	/* all __u64: a 32-bit pos gets its clamp done on a zero-extended copy */
	__u64 pos = 0;

	if (ns > rxlat_hist_bounds[RXLAT_HIST_LINEAR])
		return RXLAT_HIST_BUCKETS - 1;
#define RXLAT_HIST_STEP(s) \
	pos += (s) & -((rxlat_hist_bounds[(pos + (s)-1) & (RXLAT_HIST_TABLE - 1)] - ns) >> 63)
	RXLAT_HIST_STEP(128);
	RXLAT_HIST_STEP(64);
	RXLAT_HIST_STEP(32);
	RXLAT_HIST_STEP(16);
	RXLAT_HIST_STEP(8);
	RXLAT_HIST_STEP(4);
	RXLAT_HIST_STEP(2);
	RXLAT_HIST_STEP(1);
#undef RXLAT_HIST_STEP

#ifdef __BPF__
	/*
	 * The verifier only knows pos < 256. Hide pos from the optimiser,
	 * which could prove the clamp below redundant and drop the bound the
	 * verifier needs to index the buckets with it.
	 */
	__asm__ __volatile__("" : "+r"(pos));
#endif
	if (pos > RXLAT_HIST_BUCKETS - 1)
		pos = RXLAT_HIST_BUCKETS - 1;
	return (__u32)pos;
}

/* Smallest value of bucket i (i < RXLAT_HIST_BUCKETS). */
static inline __u64 rxlat_hist_lower(__u32 i)
{
	if (i == 0)
		return 0;
	if (i > RXLAT_HIST_BUCKETS - 1)
		i = RXLAT_HIST_BUCKETS - 1;
	return rxlat_hist_bounds[i - 1] + 1;
}

/*
 * Largest value of bucket i, i.e. the Prometheus "le" bound; ~0 (+Inf) for
 * the overflow bucket.
 */
static inline __u64 rxlat_hist_le(__u32 i)
{
	if (i >= RXLAT_HIST_BUCKETS - 1)
		return ~0ULL;
	return rxlat_hist_bounds[i];
}

/*
 * The native bucket (schema RXLAT_HIST_SCHEMA) of bucket b >= 1: the same
 * integer ns. The overflow (over 16 s) is native bucket 33, 16 to 17.4 s:
 * a native histogram has no +Inf bucket.
 */
static inline int rxlat_hist_native_index(__u32 b)
{
	return (int)b - (int)RXLAT_HIST_SUB * -RXLAT_HIST_FIRST_OCTAVE;
}

#endif /* RXLAT_HIST_H */
