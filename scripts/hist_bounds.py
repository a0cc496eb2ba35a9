#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Prints the two tables of include/rxlat_hist.h, in integers only.

rxlat_hist_bounds: bound j is floor(1e9 * 2^((j - 192) / 8)) ns for
j = 0..224, the upper bounds of Prometheus' native histogram buckets of
schema 3 (8 per power of two) from 2^-24 s to 2^4 s rounded down to the
nanosecond: x is the bound when x^8 * 2^-k <= 10^72 < (x + 1)^8 * 2^-k
(k = j - 192 < 0), or x^8 <= 10^72 * 2^k < (x + 1)^8.

rxlat_hist_guess: entry k is 8 + ceil(8 * log2((64 + k) / 1e9)) + 184, so
that 8 * lg + entry - 8 is the bucket of (64 + k) * 2^(lg - 1) ns, the
lowest value of the 64th of a power of two that rxlat_hist_bucket() looks
up (see there); ceil(8 * log2(a / b)) is the smallest m with
2^m * b^8 >= a^8.
Usage: scripts/hist_bounds.py  (paste the output into the header)
"""
from math import isqrt

FIRST, N = -192, 225


def bound(k):
    num, den = (10**72 * 2**k, 1) if k >= 0 else (10**72, 2**-k)
    x = isqrt(isqrt(isqrt(num // den)))
    while (x + 1) ** 8 * den <= num:
        x += 1
    while x**8 * den > num:
        x -= 1
    return x


def ceil8log2(a, b):
    m = -400
    while not (2**m * b**8 >= a**8 if m >= 0 else b**8 >= a**8 * 2**-m):
        m += 1
    return m


def table(name, vals):
    print(name)
    line = "\t"
    for v in vals:
        item = f"{v}, "
        if len(line.expandtabs(8)) + len(item.rstrip()) > 100:
            print(line.rstrip())
            line = "\t"
        line += item
    print(line.rstrip())


table("rxlat_hist_bounds:", [bound(FIRST + j) for j in range(N)])
table("rxlat_hist_guess:", [8 + ceil8log2(64 + k, 10**9) + 184 for k in range(64)])
