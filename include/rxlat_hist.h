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
 * The log2 below searches 32 bits, and every power of two must split into
 * RXLAT_HIST_SUB sub-buckets of at least 1 ns.
 */
_Static_assert(RXLAT_HIST_MAX_SHIFT - RXLAT_HIST_MIN_SHIFT <= 32,
	       "rxlat_hist_bucket() searches at most 32 bits");
_Static_assert(RXLAT_HIST_MIN_SHIFT >= RXLAT_HIST_SUB_SHIFT, "sub-buckets narrower than 1 ns");
_Static_assert(RXLAT_HIST_MAX_SHIFT < 64, "bucket bounds must fit in __u64");

/*
 * Bucket of a latency in ns. Bucket 1 + 8 * (k - 6) + s holds the values
 * [2^k + s * 2^(k-3), 2^k + (s + 1) * 2^(k-3)) for 6 <= k < 34, 0 <= s < 8.
 *
 * No __builtin_clzll: Debian's clang crashes on it in the BPF backend. The
 * log2 is a four-step binary search without a loop, each step's v > c
 * written as (c - v) >> 63 (v < 2^63 after the range checks); clang may
 * still emit a compare-and-jump per step, which costs the verifier nothing.
 */
static inline __u32 rxlat_hist_bucket(__u64 ns)
{
	/* all __u64: a 32-bit idx gets its clamp done on a zero-extended copy */
	__u64 v, step, lg, idx;

	if (ns < (1ULL << RXLAT_HIST_MIN_SHIFT))
		return 0;
	if (ns >= (1ULL << RXLAT_HIST_MAX_SHIFT))
		return RXLAT_HIST_BUCKETS - 1;

	/* 1 <= v < 2^(MAX_SHIFT - MIN_SHIFT) <= 2^32; lg = floor(log2(v)) */
	v = ns >> RXLAT_HIST_MIN_SHIFT;
	step = ((0xffffULL - v) >> 63) << 4;
	v >>= step;
	lg = step;
	step = ((0xffULL - v) >> 63) << 3;
	v >>= step;
	lg |= step;
	step = ((0xfULL - v) >> 63) << 2;
	v >>= step;
	lg |= step;
	step = ((0x3ULL - v) >> 63) << 1;
	v >>= step;
	lg |= step;
	lg |= (v >> 1) & 1;

	/* the SUB_SHIFT bits right below the leading one pick the sub-bucket */
	idx = 1 + (lg << RXLAT_HIST_SUB_SHIFT) +
	      ((ns >> (lg + RXLAT_HIST_MIN_SHIFT - RXLAT_HIST_SUB_SHIFT)) & (RXLAT_HIST_SUB - 1));

#ifdef __BPF__
	/*
	 * However much of the search the verifier follows, the clamp below
	 * bounds idx for it. Hide idx from the optimiser, which could prove
	 * the clamp redundant and drop the bound the verifier needs to index
	 * an array with it.
	 */
	__asm__ __volatile__("" : "+r"(idx));
#endif
	if (idx > RXLAT_HIST_BUCKETS - 1)
		idx = RXLAT_HIST_BUCKETS - 1;
	return (__u32)idx;
}

/* Smallest value of bucket i (i < RXLAT_HIST_BUCKETS). */
static inline __u64 rxlat_hist_lower(__u32 i)
{
	__u32 k, s;

	if (i == 0)
		return 0;
	if (i >= RXLAT_HIST_BUCKETS - 1)
		return 1ULL << RXLAT_HIST_MAX_SHIFT;
	k = RXLAT_HIST_MIN_SHIFT + (i - 1) / RXLAT_HIST_SUB;
	s = (i - 1) % RXLAT_HIST_SUB;
	return (__u64)(RXLAT_HIST_SUB + s) << (k - RXLAT_HIST_SUB_SHIFT);
}

/*
 * Largest value of bucket i, i.e. the Prometheus "le" bound; ~0 (+Inf) for
 * the overflow bucket.
 */
static inline __u64 rxlat_hist_le(__u32 i)
{
	if (i >= RXLAT_HIST_BUCKETS - 1)
		return ~0ULL;
	return rxlat_hist_lower(i + 1) - 1;
}

#endif /* RXLAT_HIST_H */
