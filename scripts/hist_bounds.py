#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Prints the bucket bounds of include/rxlat_hist.h (rxlat_hist_bounds).

Bound j is floor(1e9 * 2^((j - 192) / 8)) ns for j = 0..224: the upper
bounds of Prometheus' native histogram buckets of schema 3 (8 per power of
two) from 2^-24 s to 2^4 s, rounded down to the nanosecond, so that bucket
b of rxlat holds exactly the integer nanoseconds of native bucket b - 192.
Integers only: x is the bound when x^8 * 2^-k <= 10^72 < (x + 1)^8 * 2^-k
(k = j - 192 < 0), or x^8 <= 10^72 * 2^k < (x + 1)^8.
Usage: scripts/hist_bounds.py  (paste the output into the table)
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


vals = [bound(FIRST + j) for j in range(N)]
line = "\t"
for v in vals:
    item = f"{v}, "
    if len(line.expandtabs(8)) + len(item.rstrip()) > 100:
        print(line.rstrip())
        line = "\t"
    line += item
print(line.rstrip())
