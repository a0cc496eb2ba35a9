// SPDX-License-Identifier: GPL-2.0
/* Interfaces: names, the named ones, and their going and coming back (ifaces.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "groups.h"
#include "hooks.h"
#include "ifaces.h"
#include "links.h"
#include "log.h"
#include "opt.h"
#include "stamper.h"
#include "stamping.h"
#include "tc.h"
#include "xdp_counters.h"
#include "xdp_device.h"

/*
 * Whether a named interface's driver leaves XDP programs room for metadata,
 * as the stamper's counters show it (ifaces_check_meta()).
 */
enum meta_room {
	META_UNKNOWN, /* no packet yet */
	META_CARRIED, /* stamped: watched for packets refused now and then */
	META_TOLD,    /* refused for some packets, said; or no tc to switch to */
};

struct ifname {
	__u32 ifindex;
	char name[RXLAT_IFNAME_LEN];
};

struct rxlat_ifaces {
	const struct rxlat_config *cfg;
	/* named interface i: where it is now, gone (its stamper: stamping.c) */
	__u32 ifindex[RXLAT_MAX_CLI_IFACES];
	bool gone[RXLAT_MAX_CLI_IFACES];
	enum meta_room meta[RXLAT_MAX_CLI_IFACES];
	/* With -i: the stamper counters of these ifindexes only (each one a
	 * named interface has had) */
	__u32 *wanted;
	size_t nwanted;
	/* the name of each interface once seen */
	struct ifname *names;
	size_t nnames;
	struct rxlat_hooks *hooks;
	struct rxlat_stamping *stamping;
	struct rxlat_stamper *stamper;
	struct rxlat_tc **tc; /* opened when the first interface needs it */
	struct rxlat_links *links;
	/*
	 * Without -i, interface slots are claimed by the hooks as interfaces
	 * record, and released once their interface is gone: per slot, its
	 * owner when the last check found it gone (released at the next one,
	 * which follows a report that has its last samples).
	 */
	__u64 *gone_owner, *owners;
	bool check;	    /* an interface was deleted, or link messages were lost */
	bool told_tc_netns; /* the tc stamper's limit with --by: said */
	/*
	 * The namespace's VXLAN and Geneve devices (from the link messages, and
	 * a dump once the tc stamper runs with --by): each is said once, and in
	 * unreached while it is there and the tc stamper stamps.
	 */
	struct tunnel {
		__u32 ifindex;
		char name[RXLAT_IFNAME_LEN];
		char kind[8];
		bool told;
	} tunnels[RXLAT_MAX_UNREACHED];
	int ntunnels;
	bool tunnels_known;
	struct rxlat_unreached_set unreached;
	bool told_foreign; /* stamps of another namespace measured here: said */
	/* --no-xdp: interfaces whose driver refuses the found stamper metadata, said */
	__u32 *meta_told;
	size_t nmeta_told;
};

static int ifaces_want(struct rxlat_ifaces *f, __u32 ifindex)
{
	__u32 *p = realloc(f->wanted, (f->nwanted + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	f->wanted = p;
	f->wanted[f->nwanted++] = ifindex;
	return 0;
}

int ifaces_new(struct rxlat_ifaces **out, const struct rxlat_config *cfg)
{
	struct rxlat_ifaces *f = calloc(1, sizeof(*f));
	int err = f ? 0 : -ENOMEM;

	for (int i = 0; f && i < cfg->nifaces && !err; i++) {
		f->ifindex[i] = cfg->ifindexes[i];
		err = ifaces_want(f, cfg->ifindexes[i]);
		if (!err)
			err = ifaces_set_name(f, cfg->ifindexes[i], cfg->ifnames[i]);
	}
	if (err) {
		rxlat_err("out of memory");
		ifaces_free(f);
		return err;
	}
	f->cfg = cfg;
	*out = f;
	return 0;
}

void ifaces_free(struct rxlat_ifaces *f)
{
	if (!f)
		return;
	free(f->gone_owner);
	free(f->owners);
	free(f->meta_told);
	free(f->wanted);
	free(f->names);
	free(f);
}

int ifaces_set_name(struct rxlat_ifaces *f, __u32 ifindex, const char *name)
{
	struct ifname *p;
	size_t i;

	for (i = 0; i < f->nnames && f->names[i].ifindex != ifindex; i++)
		;
	if (i == f->nnames) {
		p = realloc(f->names, (f->nnames + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		f->names = p;
		f->nnames++;
		f->names[i].ifindex = ifindex;
	}
	snprintf(f->names[i].name, sizeof(f->names[i].name), "%s", name);
	return 0;
}

void ifaces_ifname(struct rxlat_ifaces *f, __u32 ifindex, char name[RXLAT_IFNAME_LEN])
{
	if (!ifindex) {
		snprintf(name, RXLAT_IFNAME_LEN, "other");
		return;
	}
	for (size_t i = 0; i < f->nnames; i++)
		if (f->names[i].ifindex == ifindex) {
			memcpy(name, f->names[i].name, RXLAT_IFNAME_LEN);
			return;
		}
	/* remembered either way: a lookup opens a socket (without memory: again) */
	if (!if_indextoname(ifindex, name))
		snprintf(name, RXLAT_IFNAME_LEN, "if%u", ifindex);
	ifaces_set_name(f, ifindex, name);
}

bool ifaces_wanted(const struct rxlat_ifaces *f, __u32 ifindex)
{
	if (!f->cfg->nifaces)
		return true;
	for (size_t i = 0; i < f->nwanted; i++)
		if (f->wanted[i] == ifindex)
			return true;
	return false;
}

void ifaces_bind(struct rxlat_ifaces *f, struct rxlat_hooks *hooks, struct rxlat_stamping *stamping,
		 struct rxlat_stamper *st, struct rxlat_tc **tc, struct rxlat_links *links)
{
	f->hooks = hooks;
	f->stamping = stamping;
	f->stamper = st;
	f->tc = tc;
	f->links = links;
}

/* ---- tunnels: where the tc stamp does not reach containers ---------- */

/*
 * Are containers measured from the tc stamps of named interfaces, so that
 * the tunnels' matter?
 */
static bool tc_reaches_containers(const struct rxlat_ifaces *f)
{
	return f->cfg->bpf.by != RXLAT_BY_NONE && f->stamping && stamping_any_tc(f->stamping);
}

/* unreached from the tunnels, and each new one said. */
static void tunnels_update(struct rxlat_ifaces *f)
{
	bool on = f->tunnels_known && tc_reaches_containers(f);

	f->unreached.n = 0;
	for (int i = 0; on && i < f->ntunnels; i++) {
		struct tunnel *t = &f->tunnels[i];

		if (!t->told)
			rxlat_info(
			    "containers behind %s (%s) are not measured: the tc stamp does "
			    "not reach the packets a tunnel decapsulates, which count at the "
			    "stages of the interface they came in on (\"unreached\" in the "
			    "report)",
			    t->name, t->kind);
		t->told = true;
		memcpy(f->unreached.e[f->unreached.n].ifname, t->name, sizeof(t->name));
		memcpy(f->unreached.e[f->unreached.n].kind, t->kind, sizeof(t->kind));
		f->unreached.n++;
	}
}

static void tunnel_note(struct rxlat_ifaces *f, bool deleted, __u32 ifindex, const char *name,
			const char *kind)
{
	int i = 0;

	while (i < f->ntunnels && f->tunnels[i].ifindex != ifindex)
		i++;
	if (deleted) {
		if (i < f->ntunnels)
			f->tunnels[i] = f->tunnels[--f->ntunnels];
		return;
	}
	if (!kind || (strcmp(kind, "vxlan") && strcmp(kind, "geneve")))
		return;
	if (i == f->ntunnels) {
		if (i == RXLAT_MAX_UNREACHED)
			return;
		f->tunnels[f->ntunnels++] = (struct tunnel){ .ifindex = ifindex };
	}
	if (name)
		snprintf(f->tunnels[i].name, sizeof(f->tunnels[i].name), "%s", name);
	snprintf(f->tunnels[i].kind, sizeof(f->tunnels[i].kind), "%s", kind);
}

static void on_link(void *ctx, bool deleted, __u32 ifindex, const char *name, const char *kind)
{
	struct rxlat_ifaces *f = ctx;

	f->check |= deleted;
	/* without memory the name is looked up again at the next report */
	if (name)
		ifaces_set_name(f, ifindex, name);
	tunnel_note(f, deleted, ifindex, name, kind);
}

/*
 * The tunnels once the tc stamper stamps for containers: dumped (again
 * after lost link messages, which may have held a deletion), said.
 */
static void tunnels_find(struct rxlat_ifaces *f, bool again)
{
	if (again && f->tunnels_known) {
		struct tunnel old[RXLAT_MAX_UNREACHED];
		int n = f->ntunnels;

		memcpy(old, f->tunnels, sizeof(old));
		f->ntunnels = 0;
		links_dump(on_link, f);
		for (int i = 0; i < f->ntunnels; i++)
			for (int j = 0; j < n; j++)
				f->tunnels[i].told |=
				    old[j].told && old[j].ifindex == f->tunnels[i].ifindex;
	}
	if (!f->tunnels_known && tc_reaches_containers(f)) {
		if (links_dump(on_link, f))
			rxlat_warn("cannot list this namespace's interfaces (rtnetlink): "
				   "containers behind a VXLAN or Geneve device are not measured, "
				   "and not said");
		f->tunnels_known = true;
	}
	tunnels_update(f);
}

const struct rxlat_unreached_set *ifaces_unreached(const struct rxlat_ifaces *f)
{
	return &f->unreached;
}

static int named_left(const struct rxlat_ifaces *f)
{
	int n = 0;

	for (int i = 0; i < f->cfg->nifaces; i++)
		n += !f->gone[i];
	return n;
}

static void iface_gone(struct rxlat_ifaces *f, int i)
{
	bool tc = stamping_uses_tc(f->stamping, i);
	const char *what = f->cfg->no_xdp && !tc ? "" : ": its stamper was detached";

	f->gone[i] = true;
	if (tc) {
		tc_detach(*f->tc, i, true);
		hooks_tc_iface(f->hooks, f->ifindex[i], 0);
	} else {
		stamper_detach_iface(f->stamper, i);
	}
	if (named_left(f))
		rxlat_info("%s is gone%s; measuring the other interfaces", f->cfg->ifnames[i],
			   what);
	else
		rxlat_info("%s is gone%s; no named interface is left: waiting for one to come "
			   "back",
			   f->cfg->ifnames[i], what);
}

/*
 * The tc stamper on named interface i, now at ifindex, and the hooks told
 * that marked stamps there are its own: how it runs, or RXLAT_TC_NONE
 * (said, and nothing left attached).
 */
static enum rxlat_tc_how stamp_at_tc(struct rxlat_ifaces *f, int i, __u32 ifindex)
{
	const char *name = f->cfg->ifnames[i];
	enum rxlat_tc_how how = tc_attach(*f->tc, i, ifindex, name);
	int err;

	char drv[64];
	bool raw;

	if (how == RXLAT_TC_NONE)
		return how;
	/* a veth records no receive queue: its queue_mapping is the queue */
	stamping_driver(name, drv, sizeof(drv));
	raw = !strcmp(drv, "veth");
	tc_queue_raw(*f->tc, ifindex, raw);
	err = hooks_tc_iface(f->hooks, ifindex,
			     (how == RXLAT_TC_FOREIGN ? RXLAT_TC_IF_FOREIGN : RXLAT_TC_IF_OWN) |
				 (raw ? RXLAT_TC_IF_QUEUE_RAW : 0));
	if (err) {
		rxlat_err("cannot mark %s as tc-stamped: %s", name, strerror(-err));
		tc_detach(*f->tc, i, false);
		return RXLAT_TC_NONE;
	}
	return how;
}

static void iface_back(struct rxlat_ifaces *f, int i, __u32 ifindex)
{
	const struct rxlat_config *cfg = f->cfg;
	const char *name = cfg->ifnames[i];
	int err;

	err = hooks_move_ifslot(f->hooks, f->ifindex[i], ifindex);
	if (!err)
		err = ifaces_want(f, ifindex);
	if (!err)
		err = ifaces_set_name(f, ifindex, name);
	if (err) {
		rxlat_err("%s is back (ifindex %u) but cannot be followed: %s", name, ifindex,
			  strerror(-err));
		return; /* tried again at the next link message */
	}
	f->ifindex[i] = ifindex;
	f->gone[i] = false;
	if (stamping_uses_tc(f->stamping, i)) {
		if (stamp_at_tc(f, i, ifindex) == RXLAT_TC_NONE)
			rxlat_err(
			    "%s is back (ifindex %u) but the tc stamper cannot be attached to "
			    "it; measuring it without stamps",
			    name, ifindex);
		else
			rxlat_info("%s is back (ifindex %u): tc stamper attached again, reported "
				   "under the same name",
				   name, ifindex);
		return;
	}
	if (cfg->no_xdp) {
		rxlat_info("%s is back (ifindex %u): reported under its name again; %s: "
			   "rxlat attaches no stamper to it",
			   name, ifindex, opt(OPT_NO_XDP));
		return;
	}
	err = stamper_attach_iface(f->stamper, cfg, i, ifindex);
	f->meta[i] = META_UNKNOWN; /* perhaps another device, another driver */
	if (err)
		rxlat_err("%s is back (ifindex %u) but the stamper cannot be attached to it: %s; "
			  "measuring it without stamps",
			  name, ifindex, strerror(-err));
	else
		rxlat_info("%s is back (ifindex %u): stamper attached again, reported under the "
			   "same name",
			   name, ifindex);
}

/*
 * A named interface is followed by its name: gone when the name is gone or
 * names another ifindex (deleted, or renamed away), back when the name
 * exists again.
 */
static void follow_ifaces(struct rxlat_ifaces *f)
{
	for (int i = 0; i < f->cfg->nifaces; i++) {
		__u32 now = if_nametoindex(f->cfg->ifnames[i]);

		if (!f->gone[i] && now != f->ifindex[i])
			iface_gone(f, i);
		if (f->gone[i] && now)
			iface_back(f, i, now);
	}
}

int ifaces_handle_links(struct rxlat_ifaces *f)
{
	int err = links_read(f->links, on_link, f);

	if (err < 0)
		return err;
	f->check |= err > 0; /* messages lost: a deletion may be among them */
	follow_ifaces(f);
	tunnels_find(f, err > 0);
	return 0;
}

/* ---- drivers that refuse XDP metadata ---------------------------------- */

/* Is named interface i stamped by rxlat's own XDP stamper, and watched? */
static bool meta_watched(const struct rxlat_ifaces *f, int i)
{
	return !f->gone[i] && !stamping_uses_tc(f->stamping, i) && f->meta[i] != META_TOLD &&
	       stamper_attached(f->stamper, i);
}

/*
 * Named interface i's driver refused metadata for every packet so far: the
 * run, which asked for XDP (--xdp-mode), ends with an error (-EOPNOTSUPP).
 */
static int meta_refused(struct rxlat_ifaces *f, int i, __u64 refused)
{
	const struct rxlat_config *cfg = f->cfg;
	char drv[64], why[256], hint[64];

	stamping_driver(cfg->ifnames[i], drv, sizeof(drv));
	snprintf(why, sizeof(why),
		 "driver %s gives XDP programs no room for metadata (the stamper's first %llu "
		 "packets, none stamped)",
		 drv, (unsigned long long)refused);
	/* generic XDP builds its buffers with room for metadata */
	snprintf(hint, sizeof(hint), "%s skb stamps in generic XDP", opt(OPT_XDP_MODE));
	return stamping_refuse_xdp(f->stamping, i, why,
				   cfg->xdp_mode == RXLAT_XDP_NATIVE ? hint : NULL);
}

/* The stamper's counters of ifindex, summed over its queues. */
static struct rxlat_xdp_counters meta_totals(const struct rxlat_xdp_key *keys,
					     const struct rxlat_xdp_counters *vals, size_t n,
					     __u32 ifindex)
{
	struct rxlat_xdp_counters sum = {};

	for (size_t k = 0; k < n; k++)
		if (keys[k].ifindex == ifindex)
			xdp_counters_add(&sum, &vals[k]);
	return sum;
}

/*
 * A stamper loaded without rxlat (--no-xdp) on a driver that gives it no
 * room for metadata: rxlat cannot move it to tc, so it says so, once per
 * interface, with the way to stamp at tc instead.
 */
static void meta_found(struct rxlat_ifaces *f, const struct rxlat_xdp_key *keys,
		       const struct rxlat_xdp_counters *vals, size_t n)
{
	char name[RXLAT_IFNAME_LEN], drv[64];
	struct rxlat_xdp_counters c;
	size_t k, t;
	__u32 *p;

	for (k = 0; k < n; k++) {
		for (t = 0; t < f->nmeta_told && f->meta_told[t] != keys[k].ifindex; t++)
			;
		if (!keys[k].ifindex || t < f->nmeta_told)
			continue;
		c = meta_totals(keys, vals, n, keys[k].ifindex);
		if (!c.meta_refused || c.stamped)
			continue;
		p = realloc(f->meta_told, (f->nmeta_told + 1) * sizeof(*p));
		if (!p)
			return; /* said at the next report */
		f->meta_told = p;
		f->meta_told[f->nmeta_told++] = keys[k].ifindex;
		ifaces_ifname(f, keys[k].ifindex, name);
		stamping_driver(name, drv, sizeof(drv));
		rxlat_warn(
		    "%s: driver %s gives the XDP stamper loaded without rxlat no room for "
		    "metadata (%llu packets, none stamped): no stage gets its stamps; unload "
		    "it ('xdp-loader unload -a %s') and run 'rxlat %s %s' to stamp at tc "
		    "ingress",
		    name, drv, (unsigned long long)c.meta_refused, name, opt_short(OPT_INTERFACE),
		    name);
	}
}

bool ifaces_meta_watched(const struct rxlat_ifaces *f)
{
	for (int i = 0; i < f->cfg->nifaces; i++)
		if (meta_watched(f, i))
			return true;
	return stamper_found(f->stamper);
}

int ifaces_check_meta(struct rxlat_ifaces *f, const struct rxlat_xdp_key *keys,
		      const struct rxlat_xdp_counters *vals, size_t n)
{
	bool found = stamper_found(f->stamper);
	struct rxlat_xdp_counters c;
	int i, err = 0, pending = 0;
	char drv[64];

	if (found)
		meta_found(f, keys, vals, n);
	for (i = 0; i < f->cfg->nifaces && !err; i++) {
		if (!meta_watched(f, i))
			continue;
		c = meta_totals(keys, vals, n, f->ifindex[i]);
		if (!c.meta_refused) {
			if (c.stamped)
				f->meta[i] = META_CARRIED;
			else
				pending = 1;
		} else if (!c.stamped) {
			err = meta_refused(f, i, c.meta_refused);
		} else {
			stamping_driver(f->cfg->ifnames[i], drv, sizeof(drv));
			rxlat_warn(
			    "%s: driver %s gave XDP programs no room for metadata for %llu of "
			    "%llu packets: those are counted in meta_refused and measured "
			    "as source none (said once)",
			    f->cfg->ifnames[i], drv, (unsigned long long)c.meta_refused,
			    (unsigned long long)(c.meta_refused + c.stamped));
			f->meta[i] = META_TOLD;
		}
	}
	return err ? err : pending;
}

/* The tc stamper, with the hooks' table of forwarded stamps. */
static int tc_open_shared(struct rxlat_ifaces *f)
{
	struct rxlat_tc_share s = { .fwd_fd = -1,
				    .offs_fd = -1,
				    .napi_sched_fd = -1,
				    .softirq_round_fd = -1,
				    .poll_from_fd = -1 };

	if (f->hooks)
		hooks_tc_share(f->hooks, &s);
	return tc_open(f->tc, f->cfg->bpf.netns_ino, &s);
}

int ifaces_attach_tc(struct rxlat_ifaces *f)
{
	const struct rxlat_config *cfg = f->cfg;
	enum rxlat_tc_how how;
	char hint[1280];
	int err;

	for (int i = 0; i < cfg->nifaces; i++) {
		bool dflt = stamping_why(f->stamping, i) == STAMPING_TC_DEFAULT;

		if (!stamping_uses_tc(f->stamping, i))
			continue;
		if (!*f->tc && (err = tc_open_shared(f)))
			return err;
		how = stamp_at_tc(f, i, f->ifindex[i]);
		if (how == RXLAT_TC_NONE)
			return -EBUSY;
		if (dflt && stamping_xdp_taken(f->stamping, i))
			snprintf(hint, sizeof(hint), "%s", stamping_xdp_taken(f->stamping, i));
		else if (dflt)
			xdp_device_hint(cfg->ifnames[i], hint, sizeof(hint));
		if (dflt) {
			rxlat_info(
			    "%s: stamping at tc ingress, rxlat's default: it changes nothing "
			    "on the device; %s",
			    cfg->ifnames[i], hint);
		}
		switch (how) {
		case RXLAT_TC_NONE: /* returned above */
			break;
		case RXLAT_TC_TCX:
			rxlat_info("tc stamper attached to %s ingress through a tcx link",
				   cfg->ifnames[i]);
			break;
		case RXLAT_TC_FILTER:
			rxlat_info(
			    "tc stamper attached to %s ingress through a cls_bpf filter, pref "
			    "%d handle 0x%x",
			    cfg->ifnames[i], RXLAT_TC_PRIO, RXLAT_TC_HANDLE);
			break;
		case RXLAT_TC_FOREIGN: /* said by tc_attach() */
			break;
		}
		if (cfg->bpf.by != RXLAT_BY_NONE && !f->told_tc_netns && hooks_fwd_stamps()) {
			rxlat_info("containers behind %s are measured from its tc stamps up to "
				   "sock_read, but not behind a VXLAN or Geneve tunnel",
				   cfg->ifnames[i]);
			f->told_tc_netns = true;
		} else if (cfg->bpf.by != RXLAT_BY_NONE && !f->told_tc_netns) {
			rxlat_info("containers behind %s are not measured from its tc stamps: this "
				   "kernel clears them when it forwards a packet or moves it into "
				   "another namespace (a delivery time that lasts came with 5.18); "
				   "its XDP stamps reach them ('--xdp-mode native'), or run rxlat "
				   "in the container",
				   cfg->ifnames[i]);
			f->told_tc_netns = true;
		}
		tunnels_find(f, false);
	}
	return 0;
}

void ifaces_tell_foreign(struct rxlat_ifaces *f)
{
	__u32 n = f->cfg->bpf.max_ifaces, netns, ifindex;
	char ns[256];

	if (f->told_foreign)
		return;
	if (!f->owners)
		f->owners = calloc(n, sizeof(*f->owners));
	if (!f->owners)
		return; /* tried again at the next report */
	hooks_ifslots(f->hooks, f->owners, n);
	for (__u32 slot = 0; slot < n; slot++) {
		netns = f->owners[slot] >> 32;
		ifindex = (__u32)f->owners[slot];
		if (!netns)
			continue;
		groups_netns_name(netns, ns, sizeof(ns));
		rxlat_info("packets stamped in XDP in network namespace %s (its ifindex %u) arrive "
			   "here: stages where they carry no stamp of this rxlat's%s measure them "
			   "from that stamp, reported as ifname if%u with if_netns %s, never under "
			   "an interface of this namespace",
			   ns, ifindex, stamping_any_tc(f->stamping) ? " (before tc ingress)" : "",
			   ifindex, ns);
		f->told_foreign = true;
		return;
	}
}

void ifaces_warn_down(const struct rxlat_ifaces *f)
{
	const struct rxlat_config *cfg = f->cfg;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	for (int i = 0; i < cfg->nifaces; i++) {
		struct ifreq ifr = {};

		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", cfg->ifnames[i]);
		if (!ioctl(fd, SIOCGIFFLAGS, &ifr) && !(ifr.ifr_flags & IFF_UP))
			rxlat_info("%s is down: nothing is measured on it until it is up",
				   cfg->ifnames[i]);
	}
	close(fd);
}

int ifaces_release_gone(struct rxlat_ifaces *f, void (*retire)(void *ctx, __u32 slot), void *ctx)
{
	__u32 n = f->cfg->bpf.max_ifaces;
	char name[IF_NAMESIZE];
	bool pending = false;
	int released = 0;

	if (f->cfg->nifaces || !f->check)
		return 0;
	if (!f->gone_owner)
		f->gone_owner = calloc(n, sizeof(*f->gone_owner));
	if (!f->owners)
		f->owners = calloc(n, sizeof(*f->owners));
	if (!f->gone_owner || !f->owners)
		return -ENOMEM; /* tried again at the next report */
	hooks_ifslots(f->hooks, f->owners, n);
	for (__u32 slot = 0; slot < n; slot++) {
		__u64 owner = f->owners[slot];

		if (owner && owner == f->gone_owner[slot]) {
			retire(ctx, slot);
			hooks_release_ifslot(f->hooks, slot);
			released++;
			owner = 0;
		} else if (owner && owner >> 32) {
			owner = 0; /* stamped in another namespace: kept */
		} else if (owner && !if_indextoname((__u32)owner, name)) {
			pending = true;
		} else {
			owner = 0;
		}
		f->gone_owner[slot] = owner;
	}
	f->check = pending;
	return released;
}
