/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The heatmap store (heatmap.c) as its drawing (heatmap_svg.c) reads it:
 * per panel its cells in the order they came, interval by interval.
 */
#ifndef RXLAT_HEATMAP_IMPL_H
#define RXLAT_HEATMAP_IMPL_H

#include <stdbool.h>
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

/* A series past the panel limit: named in the note, its cells not kept. */
struct hm_left {
	char *title;
	unsigned int hash;
	__u64 seq; /* the last interval it had samples in */
};

/* Series left out that are named; past it, "and more". */
#define HM_LEFT_MAX 1024

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
	struct hm_left *left; /* HM_LEFT_MAX of them */
	size_t nleft;
	bool left_more; /* more series left out than named */
};

#endif
