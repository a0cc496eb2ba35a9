// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP stamper as rxlat sees it: attached by rxlat itself through a BPF
 * link (the kernel detaches it when rxlat exits, however it exits), or, with
 * --no-xdp, found among the loaded programs after xdp-loader attached it.
 * Either way, once rxlat has the stamper's batch map, the poll-end reset
 * (xdp/rxlat_reset.bpf.c) is attached beside it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include "collector.h"
#include "log.h"
#include "xdp_counters.h"
#include "rxlat_reset.skel.h"
#include "rxlat_xdp.skel.h"

#define MAX_STATS_MAPS 16

struct rxlat_stamper {
	struct rxlat_xdp *skel; /* NULL when found, not loaded */
	int link_fds[RXLAT_MAX_CLI_IFACES];
	int nlinks;
	/* rxlat_xdp_stats and rxlat_xdp_overflow of each stamper found */
	int stats_fds[MAX_STATS_MAPS], overflow_fds[MAX_STATS_MAPS];
	int nstats, noverflow;
	int batch_fd;
	struct rxlat_reset *reset; /* the poll-end reset, sharing batch_fd */
};

static int open_skel(struct rxlat_xdp **out, const struct rxlat_config *cfg, bool frags)
{
	struct rxlat_xdp *skel;
	struct bpf_map *map;
	int err;

	skel = rxlat_xdp__open();
	if (!skel)
		return -errno;
	skel->rodata->rxlat_stamp_mode = cfg->stamp;
	/* Pins are for stampers that xdp-loader loads; rxlat's own are private. */
	bpf_object__for_each_map (map, skel->obj)
		bpf_map__set_pin_path(map, NULL);
	if (!frags)
		bpf_program__set_flags(skel->progs.rxlat_xdp,
				       bpf_program__flags(skel->progs.rxlat_xdp) &
					   ~BPF_F_XDP_HAS_FRAGS);
	err = rxlat_xdp__load(skel);
	if (err) {
		rxlat_xdp__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}

static int describe_existing(__u32 ifindex, const char *ifname)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd;

	if (bpf_xdp_query(ifindex, 0, &q) || !q.prog_id)
		return 0;
	fd = bpf_prog_get_fd_by_id(q.prog_id);
	if (fd >= 0) {
		bpf_obj_get_info_by_fd(fd, &info, &len);
		close(fd);
	}
	rxlat_err("%s already has an XDP program attached (id %u, name '%s'): detach it "
		  "('xdp-loader unload -a %s'), or load rxlat_xdp.bpf.o beside it with "
		  "xdp-loader and run rxlat with --no-xdp",
		  ifname, q.prog_id, info.name, ifname);
	return -EBUSY;
}

/*
 * Share the stamper's per-CPU batch state with the poll-end reset, so that
 * the reset clears the stamp the stamper hands out.
 */
static int attach_reset(struct rxlat_stamper *st)
{
	int err;

	st->reset = rxlat_reset__open();
	if (!st->reset) {
		err = -errno;
		rxlat_err("cannot open the poll-end reset object: %s", strerror(-err));
		return err;
	}
	err = bpf_map__reuse_fd(st->reset->maps.rxlat_batch, st->batch_fd);
	if (err) {
		rxlat_err("cannot share the stamper's batch map: %s", strerror(-err));
		return err;
	}
	err = rxlat_reset__load(st->reset);
	if (err) {
		rxlat_err("cannot load the poll-end reset: %s (run with -v for the verifier log)",
			  strerror(-err));
		return err;
	}
	err = rxlat_reset__attach(st->reset);
	if (err)
		rxlat_err("cannot attach the poll-end reset: %s", strerror(-err));
	return err;
}

static struct rxlat_stamper *stamper_new(void)
{
	struct rxlat_stamper *st = calloc(1, sizeof(*st));

	if (st)
		st->batch_fd = -1;
	return st;
}

int stamper_attach(struct rxlat_stamper **out, const struct rxlat_config *cfg)
{
	__u32 flags = cfg->xdp_mode == RXLAT_XDP_SKB ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	const char *mode = cfg->xdp_mode == RXLAT_XDP_SKB ? "skb" : "native";
	struct rxlat_stamper *st;
	int err, i;

	for (i = 0; i < cfg->nifaces; i++) {
		err = describe_existing(cfg->ifindexes[i], cfg->ifnames[i]);
		if (err)
			return err;
	}
	st = stamper_new();
	if (!st)
		return -ENOMEM;

	/*
	 * Multi-buffer support (xdp.frags) leaves the interface's MTU limits as
	 * they are; kernels before 5.18 refuse the flag, so try without it.
	 */
	err = open_skel(&st->skel, cfg, true);
	if (err && err != -EPERM) {
		err = open_skel(&st->skel, cfg, false);
		if (!err)
			rxlat_info("XDP multi-buffer (frags) not supported here: stamper "
				   "loaded without it");
	}
	if (err) {
		if (err == -EPERM)
			rxlat_err("loading the XDP stamper was refused (EPERM): run as root "
				  "(needs CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN)");
		else
			rxlat_err("cannot load the XDP stamper: %s (run with -v for the "
				  "verifier log)",
				  strerror(-err));
		goto fail;
	}
	st->batch_fd = bpf_map__fd(st->skel->maps.rxlat_batch);
	st->stats_fds[st->nstats++] = bpf_map__fd(st->skel->maps.rxlat_xdp_stats);
	st->overflow_fds[st->noverflow++] = bpf_map__fd(st->skel->maps.rxlat_xdp_overflow);

	for (i = 0; i < cfg->nifaces; i++) {
		LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = flags);
		int fd;

		/* A link, not a netlink attach: the kernel detaches it when the
		 * last fd closes, so no exit path of rxlat leaves it behind. */
		fd = bpf_link_create(bpf_program__fd(st->skel->progs.rxlat_xdp), cfg->ifindexes[i],
				     BPF_XDP, &opts);
		if (fd < 0) {
			err = -errno;
			if ((err == -EBUSY || err == -EEXIST) &&
			    describe_existing(cfg->ifindexes[i], cfg->ifnames[i]))
				goto fail;
			rxlat_err("cannot attach the XDP stamper to %s in %s mode: %s%s",
				  cfg->ifnames[i], mode, strerror(-err),
				  cfg->xdp_mode == RXLAT_XDP_SKB
				      ? ""
				      : " (driver without native XDP? try --xdp-mode skb)");
			goto fail;
		}
		st->link_fds[st->nlinks++] = fd;
		rxlat_info("XDP stamper attached to %s in %s mode, %s stamps", cfg->ifnames[i],
			   mode, cfg->stamp == RXLAT_STAMP_PACKET ? "per-packet" : "per-poll");
	}
	err = attach_reset(st);
	if (err)
		goto fail;
	*out = st;
	return 0;
fail:
	stamper_destroy(st);
	return err ? err : -EINVAL;
}

static void take_map(struct rxlat_stamper *st, __u32 map_id)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_map_get_fd_by_id(map_id);

	if (fd < 0)
		return;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		goto drop;
	/* map names are cut to 15 characters */
	if (!strcmp(info.name, "rxlat_xdp_stats") && st->nstats < MAX_STATS_MAPS) {
		st->stats_fds[st->nstats++] = fd;
		return;
	}
	if (!strncmp(info.name, "rxlat_xdp_overf", 15) && st->noverflow < MAX_STATS_MAPS) {
		st->overflow_fds[st->noverflow++] = fd;
		return;
	}
	if (!strcmp(info.name, "rxlat_batch") && st->batch_fd < 0) {
		st->batch_fd = fd;
		return;
	}
drop:
	close(fd);
}

static bool seen_map(const struct rxlat_stamper *st, __u32 id)
{
	for (int i = 0; i < st->nstats; i++) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(st->stats_fds[i], &info, &len) && info.id == id)
			return true;
	}
	return false;
}

int stamper_find(struct rxlat_stamper **out, bool quiet)
{
	struct rxlat_stamper *st = stamper_new();
	__u32 id = 0;
	int found = 0;

	if (!st)
		return -ENOMEM;
	/*
	 * Whoever loaded the stamper (xdp-loader, with or without a pin path,
	 * directly or through libxdp's dispatcher), its program is called
	 * rxlat_xdp, and its maps hang off the program.
	 */
	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = {};
		__u32 map_ids[8], len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		info.nr_map_ids = 8;
		info.map_ids = (__u64)(unsigned long)map_ids;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, "rxlat_xdp")) {
			found++;
			for (__u32 i = 0; i < info.nr_map_ids && i < 8; i++)
				if (!seen_map(st, map_ids[i]))
					take_map(st, map_ids[i]);
		}
		close(fd);
	}
	if (errno == EPERM) {
		stamper_destroy(st);
		rxlat_err("listing BPF programs was refused (EPERM): run as root");
		return -EPERM;
	}
	if (!found || !st->nstats) {
		stamper_destroy(st);
		if (quiet)
			return -ENOENT;
		rxlat_err("--no-xdp: no XDP program named rxlat_xdp is loaded: attach one with "
			  "'xdp-loader load -p " RXLAT_PIN_DIR " IFACE rxlat_xdp.bpf.o', or "
			  "drop --no-xdp and name the interface with -i");
		return -ENOENT;
	}
	if (st->nstats > 1)
		rxlat_info("--no-xdp: %d stampers with separate maps found (loaded without a "
			   "shared pin path): per-poll stamps of only one are reset at poll end, "
			   "the others are bounded by one jiffy",
			   st->nstats);
	if (st->batch_fd >= 0) {
		int err = attach_reset(st);

		if (err) {
			stamper_destroy(st);
			return err;
		}
	}
	*out = st;
	return 0;
}

static int add_row(struct rxlat_xdp_key **keys, struct rxlat_xdp_counters **vals, size_t *n,
		   const struct rxlat_xdp_key *k, const struct rxlat_xdp_counters *c)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*keys)[i].ifindex == k->ifindex && (*keys)[i].rx_queue == k->rx_queue)
			break;
	if (i == *n) {
		void *nk = realloc(*keys, (*n + 1) * sizeof(**keys));
		void *nv;

		if (!nk)
			return -ENOMEM;
		*keys = nk;
		nv = realloc(*vals, (*n + 1) * sizeof(**vals));
		if (!nv)
			return -ENOMEM;
		*vals = nv;
		(*keys)[i] = *k;
		memset(&(*vals)[i], 0, sizeof(**vals));
		(*n)++;
	}
	xdp_counters_add(&(*vals)[i], c);
	return 0;
}

int stamper_counters(const struct rxlat_stamper *st, struct rxlat_xdp_key **keys,
		     struct rxlat_xdp_counters **vals, size_t *n)
{
	int err = 0;

	*keys = NULL;
	*vals = NULL;
	*n = 0;
	for (int m = 0; m < st->nstats && !err; m++) {
		struct rxlat_xdp_key k, *prev = NULL;

		while (!err && !bpf_map_get_next_key(st->stats_fds[m], prev, &k)) {
			struct rxlat_xdp_counters c = {};

			if (!xdp_counters_sum_percpu(st->stats_fds[m], &k, &c))
				err = add_row(keys, vals, n, &k, &c);
			prev = &k;
		}
	}
	/* the overflow of a full table: reported as ifindex 0 */
	for (int m = 0; m < st->noverflow && !err; m++) {
		struct rxlat_xdp_key k = {};
		struct rxlat_xdp_counters c = {};
		__u32 zero = 0;

		if (!xdp_counters_sum_percpu(st->overflow_fds[m], &zero, &c) && c.seen)
			err = add_row(keys, vals, n, &k, &c);
	}
	if (err) {
		free(*keys);
		free(*vals);
		*keys = NULL;
		*vals = NULL;
		*n = 0;
	}
	return err;
}

void stamper_destroy(struct rxlat_stamper *st)
{
	if (!st)
		return;
	rxlat_reset__destroy(st->reset);
	for (int i = 0; i < st->nlinks; i++)
		if (st->link_fds[i] >= 0)
			close(st->link_fds[i]);
	if (st->skel) {
		rxlat_xdp__destroy(st->skel);
	} else {
		for (int i = 0; i < st->nstats; i++)
			close(st->stats_fds[i]);
		for (int i = 0; i < st->noverflow; i++)
			close(st->overflow_fds[i]);
		if (st->batch_fd >= 0)
			close(st->batch_fd);
	}
	free(st);
}

void stamper_detach_iface(struct rxlat_stamper *st, int i)
{
	if (!st || i >= st->nlinks || st->link_fds[i] < 0)
		return;
	close(st->link_fds[i]);
	st->link_fds[i] = -1;
}

int stamper_reattach(struct rxlat_stamper *st, const struct rxlat_config *cfg, int i)
{
	__u32 flags = cfg->xdp_mode == RXLAT_XDP_SKB ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = flags);
	int fd;

	if (!st || !st->skel || i >= st->nlinks)
		return -EOPNOTSUPP;
	stamper_detach_iface(st, i);
	fd = bpf_link_create(bpf_program__fd(st->skel->progs.rxlat_xdp), cfg->ifindexes[i], BPF_XDP,
			     &opts);
	if (fd < 0)
		return -errno;
	st->link_fds[i] = fd;
	return 0;
}
