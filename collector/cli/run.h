/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of one run of rxlat (collector/cli/rxlat.c), and the sources the
 * model reads it through (sources.c).
 */
#ifndef RXLAT_RUN_H
#define RXLAT_RUN_H

#include <stdbool.h>
#include <time.h>
#include <linux/types.h>
#include "config.h"
#include "hooks.h"
#include "output.h"

struct rxlat_run {
	const struct rxlat_config *cfg;
	struct rxlat_hooks *hooks;
	struct rxlat_stamping *stamping; /* XDP or tc per named interface, and why */
	struct rxlat_stamper *stamper;
	struct rxlat_tc *tc;
	struct rxlat_hooks_info info;
	struct rxlat_ifaces *ifaces;
	struct rxlat_model *model;
	struct timespec last; /* CLOCK_MONOTONIC of the last report */
	struct rxlat_links *links;
	struct prom_server *prom;    /* --prometheus, else NULL */
	struct rxlat_drops *drops;   /* --drops, else NULL */
	struct rxlat_slow *slow;     /* --slow, else NULL */
	__u64 lost_told;	     /* samples without a histogram, said so far */
	bool told_full;		     /* every interface slot taken: said */
	bool told_groups_full;	     /* every group slot taken: said */
	bool meta_pending;	     /* an interface has shown no metadata yet */
	__u32 stamps_gone;	     /* --no-xdp: where the found stamper went away, said */
	struct rxlat_groups *groups; /* --by netns or cgroup, else NULL */
	struct rxlat_out out;	     /* stdout */
	struct heatmap_live *heat;   /* --heatmap, else NULL */
};

/* The model of the run, reading the maps of c: 0 or -ENOMEM (said). */
int new_model(struct rxlat_run *c);

#endif
