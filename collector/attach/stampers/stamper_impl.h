/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the XDP stamper, for its own files only: stamper.c attaches it and
 * reads its counters, stamper_find.c finds one loaded elsewhere (--no-xdp).
 */
#ifndef RXLAT_STAMPER_IMPL_H
#define RXLAT_STAMPER_IMPL_H

#include <stddef.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include "config.h"

struct xdp_device;

#define MAX_STATS_MAPS 16

/* program names as the kernel keeps them (cut to 15 characters) */
#define STAMPER_NAME	"rxlat_xdp"
#define DISPATCHER_NAME "xdp_dispatcher"

struct rxlat_stamper {
	struct rxlat_xdp *skel; /* NULL when found, not loaded */
	int link_fds[RXLAT_MAX_CLI_IFACES];
	int nlinks;
	/* per link, its interface and the offloads it had before (xdp_device.h) */
	__u32 link_ifindex[RXLAT_MAX_CLI_IFACES];
	struct xdp_device *saved[RXLAT_MAX_CLI_IFACES];
	/* rxlat_xdp_slots, rxlat_xdp_stats and rxlat_xdp_overflow of each stamper */
	int slots_fds[MAX_STATS_MAPS], stats_fds[MAX_STATS_MAPS], overflow_fds[MAX_STATS_MAPS];
	int nslots, nstats, noverflow;
	int batch_fd;
	struct rxlat_reset *reset; /* the poll-end reset, sharing batch_fd */
	/* found stampers only: the interfaces of this namespace they run on */
	__u32 *ifindexes;
	__u32 *xdp_ids; /* the XDP program each ran as then (the stamper, or a dispatcher) */
	size_t nifindexes;
};

/* The program ids attached to an interface, per XDP mode. */
struct xdp_mode_ids {
	__u32 id;
	const char *loader; /* xdp-loader -m */
	const char *ip;	    /* ip link set dev IFACE <ip> off */
};

/* A stamper with nothing yet; NULL when out of memory (not said). */
struct rxlat_stamper *stamper_new(void);
/* Where the stamper object for xdp-loader is. */
void stamper_object(char *path, size_t size);
/* modes[]: native, skb, hw. 0 or -errno. */
int stamper_xdp_progs(__u32 ifindex, struct xdp_mode_ids modes[3]);
/* The id of the stamper that libxdp's dispatcher dispatcher_id on ifindex runs, 0: none. */
__u32 stamper_dispatched(__u32 ifindex, __u32 dispatcher_id);

#endif
