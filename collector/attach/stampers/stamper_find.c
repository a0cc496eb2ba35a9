// SPDX-License-Identifier: GPL-2.0
/*
 * --no-xdp: the XDP stamper found among the loaded programs, however it
 * was loaded (xdp-loader with or without a pin path, directly or through
 * libxdp's dispatcher), and its maps taken from the program: only those of
 * stampers that run on an interface of this network namespace.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <net/if.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "holders.h"
#include "stamper.h"
#include "stamper_impl.h"
#include "log.h"
#include "opt.h"
#include "xdp_meta.h"

#define MAX_PROG_MAPS 8

/* counters: the per-interface maps too, not only the batch stamp */
static void take_map(struct rxlat_stamper *st, __u32 map_id, bool counters)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_map_get_fd_by_id(map_id);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		/* its counters, or the batch map that the reset needs, may be missing */
		rxlat_warn("%s: cannot open map %u of the stamper: %s", opt(OPT_NO_XDP), map_id,
			   strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	/* a stamper of another rxlat version: its counters would be misread */
	if (counters && !strncmp(info.name, "rxlat_xdp_", 10) &&
	    info.value_size != (strcmp(info.name, "rxlat_xdp_slots")
				    ? sizeof(struct rxlat_xdp_counters)
				    : sizeof(struct rxlat_xdp_slot))) {
		rxlat_warn("%s: the stamper's map %s is of another rxlat version (values of %u "
			   "bytes): its counters are not reported; load the stamper of this "
			   "version (docs/tc-stamper.md, \"Pin path\")",
			   opt(OPT_NO_XDP), info.name, info.value_size);
		close(fd);
		return;
	}
	/* map names are cut to 15 characters */
	if (counters && !strcmp(info.name, "rxlat_xdp_stats") && st->nstats < MAX_STATS_MAPS) {
		st->stats_fds[st->nstats++] = fd;
		return;
	}
	if (counters && !strcmp(info.name, "rxlat_xdp_slots") && st->nslots < MAX_STATS_MAPS) {
		st->slots_fds[st->nslots++] = fd;
		return;
	}
	if (counters && !strncmp(info.name, "rxlat_xdp_overf", 15) &&
	    st->noverflow < MAX_STATS_MAPS) {
		st->overflow_fds[st->noverflow++] = fd;
		return;
	}
	if (!strcmp(info.name, "rxlat_batch") && st->batch_fd < 0) {
		/* the reset of this version would write past an older value */
		if (info.value_size != sizeof(struct rxlat_batch)) {
			rxlat_warn("%s: the stamper's map rxlat_batch is of another rxlat "
				   "version (values of %u bytes): its stamps are not reset at "
				   "poll end (it finds poll boundaries itself) and its polls are "
				   "not counted; load the stamper of this version "
				   "(docs/tc-stamper.md, \"Pin path\")",
				   opt(OPT_NO_XDP), info.value_size);
			close(fd);
			return;
		}
		st->batch_fd = fd;
		return;
	}
	close(fd);
}

static bool fd_is_map(const int *fds, int n, __u32 id)
{
	for (int i = 0; i < n; i++) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(fds[i], &info, &len) && info.id == id)
			return true;
	}
	return false;
}

/* maps shared by several programs (one pin path) are taken once */
static bool seen_map(const struct rxlat_stamper *st, __u32 id)
{
	return fd_is_map(st->stats_fds, st->nstats, id) ||
	       fd_is_map(st->slots_fds, st->nslots, id) ||
	       fd_is_map(st->overflow_fds, st->noverflow, id) ||
	       (st->batch_fd >= 0 && fd_is_map(&st->batch_fd, 1, id));
}

/* A loaded stamper program, and whether it runs in this namespace. */
struct found_prog {
	__u32 id;
	__u32 map_ids[MAX_PROG_MAPS];
	__u32 nmaps;
	__u32 ifindex; /* an interface of this namespace it runs on, 0: none */
};

static int list_stampers(struct found_prog **out, int *n)
{
	struct found_prog *progs = NULL;
	__u32 id = 0;
	int err;

	*n = 0;
	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		struct found_prog p = { .id = id };
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		info.nr_map_ids = MAX_PROG_MAPS;
		info.map_ids = (__u64)(unsigned long)p.map_ids;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, STAMPER_NAME)) {
			void *np = realloc(progs, (*n + 1) * sizeof(*progs));

			if (!np) {
				close(fd);
				free(progs);
				return -ENOMEM;
			}
			progs = np;
			p.nmaps = info.nr_map_ids < MAX_PROG_MAPS ? info.nr_map_ids : MAX_PROG_MAPS;
			progs[(*n)++] = p;
		}
		close(fd);
	}
	err = errno == ENOENT ? 0 : -errno;
	if (err) {
		free(progs);
		*n = 0;
		return err;
	}
	*out = progs;
	return 0;
}

/* ifindex runs the stamper as XDP program xdp_id (itself, or libxdp's dispatcher). */
static int add_ifindex(struct rxlat_stamper *st, __u32 ifindex, __u32 xdp_id)
{
	void *n;

	for (size_t i = 0; i < st->nifindexes; i++)
		if (st->ifindexes[i] == ifindex)
			return 0;
	n = realloc(st->ifindexes, (st->nifindexes + 1) * sizeof(*st->ifindexes));
	if (!n)
		return -ENOMEM;
	st->ifindexes = n;
	n = realloc(st->xdp_ids, (st->nifindexes + 1) * sizeof(*st->xdp_ids));
	if (!n)
		return -ENOMEM;
	st->xdp_ids = n;
	st->xdp_ids[st->nifindexes] = xdp_id;
	st->ifindexes[st->nifindexes++] = ifindex;
	return 0;
}

/*
 * Ifindexes are per network namespace, program ids are not: a stamper is
 * this namespace's if it runs on one of its interfaces, attached directly
 * (any mode) or as an extension of libxdp's dispatcher there.
 */
static int mark_here(struct rxlat_stamper *st, struct found_prog *progs, int nprogs)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	int err = 0;

	if (!ifs)
		return -errno;
	for (i = ifs; i->if_index && !err; i++) {
		struct xdp_mode_ids modes[3];

		if (stamper_xdp_progs(i->if_index, modes))
			continue;
		for (int m = 0; m < 3 && !err; m++) {
			__u32 id = modes[m].id;

			if (!id)
				continue;
			if (prog_is(id, DISPATCHER_NAME))
				id = stamper_dispatched(i->if_index, id);
			for (int p = 0; p < nprogs && id; p++) {
				if (progs[p].id != id)
					continue;
				if (!progs[p].ifindex)
					progs[p].ifindex = i->if_index;
				err = add_ifindex(st, i->if_index, modes[m].id);
			}
		}
	}
	if_freenameindex(ifs);
	return err;
}

/* Is map_id also a map of a stamper that does not run here? */
static bool map_elsewhere(const struct found_prog *progs, int nprogs, __u32 map_id)
{
	for (int p = 0; p < nprogs; p++) {
		if (progs[p].ifindex)
			continue;
		for (__u32 m = 0; m < progs[p].nmaps; m++)
			if (progs[p].map_ids[m] == map_id)
				return true;
	}
	return false;
}

/*
 * xdp-loader's pin option as a hint can give it: "ip netns exec" runs its
 * command with a /sys of its own, where no bpf filesystem is mounted and
 * "-p" fails ("No bpffs found"); without a pin path the stamper loads
 * there too, and rxlat finds it by its program name.
 */
static const char *pin_arg(bool own_name)
{
	struct statfs fs;

	if (statfs("/sys/fs/bpf", &fs) || fs.f_type != BPF_FS_MAGIC)
		return "";
	return own_name ? "-p " RXLAT_PIN_DIR "-NAME " : "-p " RXLAT_PIN_DIR " ";
}

int stamper_find(struct rxlat_stamper **out, bool quiet)
{
	struct rxlat_stamper *st = stamper_new();
	struct found_prog *progs = NULL;
	int nprogs = 0, nhere = 0, err;
	char obj[PATH_MAX];

	if (!st) {
		rxlat_err("out of memory");
		return -ENOMEM;
	}
	/*
	 * Whoever loaded the stamper (xdp-loader, with or without a pin path,
	 * directly or through libxdp's dispatcher), its program is called
	 * rxlat_xdp, and its maps hang off the program.
	 */
	err = list_stampers(&progs, &nprogs);
	if (!err)
		err = mark_here(st, progs, nprogs);
	if (err == -EPERM) {
		rxlat_err("listing BPF programs was refused (EPERM): run as root");
		goto fail;
	}
	if (err) {
		rxlat_err("cannot list the loaded XDP stampers: %s", strerror(-err));
		goto fail;
	}
	for (int p = 0; p < nprogs; p++) {
		bool shared = false;
		char ifname[IF_NAMESIZE];

		if (!progs[p].ifindex)
			continue;
		nhere++;
		for (__u32 m = 0; m < progs[p].nmaps; m++)
			shared |= map_elsewhere(progs, nprogs, progs[p].map_ids[m]);
		for (__u32 m = 0; m < progs[p].nmaps; m++)
			if (!seen_map(st, progs[p].map_ids[m]))
				take_map(st, progs[p].map_ids[m], !shared);
		if (!shared)
			continue;
		if (!if_indextoname(progs[p].ifindex, ifname))
			snprintf(ifname, sizeof(ifname), "if%u", progs[p].ifindex);
		stamper_object(obj, sizeof(obj));
		rxlat_info("no XDP counters for the stamper on %s: its maps are shared with a "
			   "stamper outside this network namespace (one xdp-loader pin path in "
			   "both: the bpf filesystem is global), so they cannot be told apart; "
			   "load each namespace's stamper with a pin path of its own or without "
			   "one ('xdp-loader load %s%s %s')",
			   ifname, pin_arg(true), ifname, obj);
	}
	if (!nhere) {
		err = -ENOENT;
		if (quiet)
			goto fail;
		stamper_object(obj, sizeof(obj));
		if (!nprogs && rxlat_xdp_meta_refused())
			rxlat_err("%s: no XDP program named rxlat_xdp is loaded, and none can be: "
				  "%s; drop %s and name the interface with %s to stamp at tc "
				  "ingress",
				  opt(OPT_NO_XDP), RXLAT_XDP_META_REFUSED, opt(OPT_NO_XDP),
				  opt_short(OPT_INTERFACE));
		else if (!nprogs)
			rxlat_err("%s: no XDP program named rxlat_xdp is loaded: attach one "
				  "with 'xdp-loader load %sIFACE %s', or drop %s and name the "
				  "interface with %s",
				  opt(OPT_NO_XDP), pin_arg(false), obj, opt(OPT_NO_XDP),
				  opt_short(OPT_INTERFACE));
		else
			rxlat_err("%s: no rxlat_xdp program runs on an interface of this "
				  "network namespace (%d loaded run elsewhere or nowhere): attach "
				  "one here with a pin path of its own or without one, as the bpf "
				  "filesystem is shared by all namespaces ('xdp-loader load "
				  "%sIFACE %s'), or drop %s and name the interface with %s",
				  opt(OPT_NO_XDP), nprogs, pin_arg(true), obj, opt(OPT_NO_XDP),
				  opt_short(OPT_INTERFACE));
		goto fail;
	}
	if (st->nstats > 1)
		rxlat_info("%s: %d stampers with separate maps found (loaded without a "
			   "shared pin path): per-poll stamps of only one are reset at poll end, "
			   "the others find poll boundaries themselves (a gap between packets, or "
			   "a new jiffy)",
			   opt(OPT_NO_XDP), st->nstats);
	if (st->batch_fd >= 0) {
		err = stamper_attach_reset(st);
		if (err)
			goto fail;
	}
	free(progs);
	*out = st;
	return 0;
fail:
	free(progs);
	stamper_destroy(st);
	return err;
}

/*
 * By XDP program id only, from the interface's netlink attributes: once
 * started, rxlat holds no capability that would let it open a program by
 * id to read its name.
 */
__u32 stamper_found_gone(const struct rxlat_stamper *st, __u32 *now_id)
{
	*now_id = 0;
	for (size_t i = 0; st && !st->skel && i < st->nifindexes; i++) {
		struct xdp_mode_ids modes[3];
		bool runs = false;

		if (stamper_xdp_progs(st->ifindexes[i], modes))
			return st->ifindexes[i]; /* the interface is gone */
		for (int m = 0; m < 3; m++) {
			runs |= modes[m].id == st->xdp_ids[i];
			*now_id = *now_id ?: modes[m].id;
		}
		if (!runs)
			return st->ifindexes[i];
		*now_id = 0;
	}
	return 0;
}

void stamper_found_adopt(struct rxlat_stamper *st, __u32 ifindex, __u32 xdp_id)
{
	for (size_t i = 0; st && i < st->nifindexes; i++)
		if (st->ifindexes[i] == ifindex)
			st->xdp_ids[i] = xdp_id;
}
