/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The heatmap store (heatmap.c) as its drawing (heatmap_svg.c) reads it:
 * per panel its cells in the order they came, interval by interval.
 */
#ifndef RXLAT_HEATMAP_IMPL_H
#define RXLAT_HEATMAP_IMPL_H

#include <stddef.h>
#include <linux/types.h>
#include "heatmap.h"

struct hm_cell {
	__u64 seq; /* the interval's */
	__u64 count;
	__u32 b;
};

struct hm_panel {
	char *title; /* "ip_rcv h0 queue 2 netns=pod" */
	char *row;   /* the title without its queue: queues of one row side by side */
	unsigned int hash;
	int stage;  /* in RXLAT_STAGES order; RXLAT_NR_STAGES if unknown */
	long queue; /* -1: none; LONG_MAX: "other" */
	struct hm_cell *cells;
	size_t n, cap;
	__u64 samples;
};

struct hm_interval {
	__u64 seq;
	double end_s, len_s;
};

struct heatmap {
	unsigned int window; /* 0: every interval */
	struct hm_interval *iv;
	size_t niv, ivcap;
	__u64 seq; /* the current interval's */
	struct hm_panel *p;
	size_t np, pcap;
};

#endif
