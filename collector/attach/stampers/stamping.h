/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stamping.c: which stamper stamps each named interface (-i), XDP or tc,
 * and why. Decided once at start, from the command line, the interface's
 * what holds its XDP hook; never changed at run time (an XDP stamper that
 * finds no metadata ends the run: it was asked for). No other file keeps a
 * copy: ask here. The stampers themselves (stamper.c, tc.c)
 * attach where they are told and know nothing of these rules.
 *
 * Interfaces are named by their index i in the configuration, as in
 * stamper.h and tc.h: an ifindex changes when a named interface goes and
 * comes back (ifaces.c follows it), and repeats across namespaces.
 */
#ifndef RXLAT_STAMPING_H
#define RXLAT_STAMPING_H

#include <stdbool.h>
#include <stddef.h>
#include "config.h"

struct rxlat_stamper;
struct rxlat_stamping;

enum stamping_why {
	STAMPING_XDP, /* --xdp-mode: rxlat's XDP stamper, or (--no-xdp) one loaded without it */
	STAMPING_TC_ASKED,   /* --tc */
	STAMPING_TC_DEFAULT, /* no --xdp-mode: tc is rxlat's default */
};

/* What cfg says for each named interface (--tc): 0 or -ENOMEM (said). */
int stamping_new(struct rxlat_stamping **out, const struct rxlat_config *cfg);
void stamping_free(struct rxlat_stamping *s);

/* Does rxlat attach XDP stampers of its own (-i, without --tc or --no-xdp)? */
bool stamping_attaches_xdp(const struct rxlat_stamping *s);
/*
 * Where stamping_attaches_xdp(): decides each named interface (what holds
 * its XDP hook, its kind), each decision for tc said in one line, and
 * attaches rxlat's XDP stamper to the others (*st, NULL when none). 0 or
 * -errno (said); -EOPNOTSUPP when --xdp-mode asks for XDP where it cannot be.
 */
int stamping_attach_xdp(struct rxlat_stamping *s, struct rxlat_stamper **st);

/* Is named interface i stamped at tc? */
bool stamping_uses_tc(const struct rxlat_stamping *s, int i);
bool stamping_any_tc(const struct rxlat_stamping *s);
enum stamping_why stamping_why(const struct rxlat_stamping *s, int i);
/*
 * By default, where another program holds named interface i's XDP hook:
 * what holds it (and how to stamp in XDP all the same), said in the line
 * of the tc stamper instead of --xdp-mode; NULL where nothing does.
 */
const char *stamping_xdp_taken(const struct rxlat_stamping *s, int i);

/*
 * Named interface i cannot be stamped in XDP, for why (a phrase), where
 * --xdp-mode asks for it: said as an error with hint (how to stamp in XDP
 * all the same; NULL: none), -EOPNOTSUPP.
 */
int stamping_refuse_xdp(const struct rxlat_stamping *s, int i, const char *why, const char *hint);

/*
 * The driver of ifname as ethtool names it, sysfs where ethtool says
 * nothing: what decides whether XDP suits an interface.
 */
void stamping_driver(const char *ifname, char *out, size_t len);

#endif
