/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The histogram's bucket table built the slow way, in floating point: what
 * the bucket scheme's tests (hist_test.c) and the JSON renderer's
 * (report_json_test.c) hold rxlat_hist.h's bounds to.
 */
#ifndef RXLAT_HIST_REF_H
#define RXLAT_HIST_REF_H

#include <math.h>
#include <stdint.h>
#include "rxlat_hist.h"

#define NB   ((int)RXLAT_HIST_BUCKETS)
#define LAST (NB - 1)

static __u64 ref_lower[NB], ref_le[NB] __attribute__((unused));

/*
 * floor(1e9 * 2^((j - 192) / 8)) in long double, apart from the integer
 * table of rxlat_hist.h: native schema 3's bounds from 2^-24 s to 16 s.
 */
static inline void ref_init(void)
{
	ref_lower[0] = 0;
	for (int j = 0; j < LAST; j++) {
		ref_le[j] = (__u64)floorl(1e9L * powl(2.0L, (long double)(j - 192) / 8));
		ref_lower[j + 1] = ref_le[j] + 1;
	}
	ref_le[LAST] = UINT64_MAX;
}

static inline __u32 ref_bucket(__u64 ns)
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

#endif
