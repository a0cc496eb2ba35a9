/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interfaces: their names (also once gone), which ones -i named and where
 * each of those is now, and what follows when a named one goes and comes
 * back (from rtnetlink's link messages). The configuration keeps what the
 * command line said; this module keeps what is found at run time. Which
 * stamper each named one has, and why, is stamping.c's.
 */
#ifndef RXLAT_IFACES_H
#define RXLAT_IFACES_H

#include <stdbool.h>
#include <linux/types.h>
#include "config.h"
#include "series.h"

struct rxlat_hooks;
struct rxlat_stamping;
struct rxlat_stamper;
struct rxlat_tc;
struct rxlat_links;
struct rxlat_ifaces;

/* The named interfaces of cfg, each under its name: 0 or -ENOMEM (said). */
int ifaces_new(struct rxlat_ifaces **out, const struct rxlat_config *cfg);
void ifaces_free(struct rxlat_ifaces *f);

/* Remembers name for ifindex: used from now on, also once it is gone. 0 or -ENOMEM. */
int ifaces_set_name(struct rxlat_ifaces *f, __u32 ifindex, const char *name);
/* The name last seen for ifindex, else the kernel's, "if<N>" when unknown, "other" for 0. */
void ifaces_ifname(struct rxlat_ifaces *f, __u32 ifindex, char name[RXLAT_IFNAME_LEN]);
/* Are ifindex's stamper counters reported (all without -i, else the named ones)? */
bool ifaces_wanted(const struct rxlat_ifaces *f, __u32 ifindex);

/* What an interface that goes or comes back touches; set once attached. */
void ifaces_bind(struct rxlat_ifaces *f, struct rxlat_hooks *hooks, struct rxlat_stamping *stamping,
		 struct rxlat_stamper *st, struct rxlat_tc **tc, struct rxlat_links *links);
/* The tc stamper on the named interfaces stamping.c gives it: 0 or -errno (said). */
int ifaces_attach_tc(struct rxlat_ifaces *f);
/*
 * Drivers that give XDP programs no room for metadata (vmxnet3, ENA, gve's
 * GQI format, hv_netvsc, ...): from the stamper's counters (keys, vals: n
 * rows per (ifindex, queue) since it was attached, as the model reads them),
 * a named interface whose packets were all refused ends the run with an
 * error (rxlat attaches XDP only when --xdp-mode asks for it), -EOPNOTSUPP;
 * one where some were refused is said once. A stamper loaded without rxlat
 * (--no-xdp) whose packets were all refused is said once per interface,
 * with the way to stamp at tc. 1 while an interface has had no packet yet
 * (check again soon), 0 when every one is known, or -errno.
 */
int ifaces_check_meta(struct rxlat_ifaces *f, const struct rxlat_xdp_key *keys,
		      const struct rxlat_xdp_counters *vals, size_t n);
/* Is there anything left for ifaces_check_meta() to check (no read without)? */
bool ifaces_meta_watched(const struct rxlat_ifaces *f);
/*
 * The tunnel devices behind which containers are not measured (the tc
 * stamper stamps, with --by), kept up to date as links come and go.
 */
const struct rxlat_unreached_set *ifaces_unreached(const struct rxlat_ifaces *f);
/* Reads the link messages, and follows the named interfaces: 0 or -errno. */
int ifaces_handle_links(struct rxlat_ifaces *f);
/*
 * Without -i: the interface slots of interfaces that are gone, released one
 * check after they were first found gone (call it after each report: the
 * report between the two has their last samples), so that a host that
 * creates and deletes interfaces all day keeps giving new ones a slot.
 * retire(ctx, slot) comes first, for the model. How many were released, or
 * -ENOMEM.
 */
int ifaces_release_gone(struct rxlat_ifaces *f, void (*retire)(void *ctx, __u32 slot), void *ctx);
/*
 * After a report: the first interface slot taken by a stamp of another
 * namespace (the host's XDP stamp, seen by an rxlat inside a container),
 * said once in a line.
 */
void ifaces_tell_foreign(struct rxlat_ifaces *f);
/* A named interface that is down is measured once it comes up: say so. */
void ifaces_warn_down(const struct rxlat_ifaces *f);

#endif
