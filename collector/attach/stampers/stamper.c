// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP stamper (xdp/rxlat_xdp.bpf.c) as rxlat sees it: attached by
 * rxlat itself through a BPF link (the kernel detaches it when rxlat exits,
 * however it exits), or, with --no-xdp, found among the loaded programs
 * after xdp-loader attached it (stamper_find.c). Either way, once rxlat has
 * the stamper's batch map, the poll-end reset (xdp/rxlat_reset.bpf.c) is
 * attached beside it.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include "holders.h"
#include "objects.h"
#include "stamper.h"
#include "stamper_impl.h"
#include "xdp_device.h"
#include "log.h"
#include "opt.h"
#include "xdp_counters.h"
#include "rxlat_reset.skel.h"
#include "rxlat_xdp.skel.h"
#include "xdp_frags.h"

static int open_skel(struct rxlat_xdp **out, const struct rxlat_config *cfg, bool frags)
{
	struct rxlat_xdp *skel;
	struct bpf_map *map;
	int err;

	if (!frags && (err = rxlat_xdp_without_frags()))
		return err;
	skel = rxlat_xdp__open();
	if (!skel)
		return -errno;
	skel->rodata->rxlat_stamp_mode = cfg->stamp;
	skel->rodata->rxlat_netns = cfg->bpf.netns_ino;
	/* Pins are for stampers that xdp-loader loads; rxlat's own are private. */
	bpf_object__for_each_map (map, skel->obj)
		bpf_map__set_pin_path(map, NULL);
	err = rxlat_xdp__load(skel);
	if (err) {
		rxlat_xdp__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}

struct xdp_att {
	__u32 prog_id, ifindex;
};

static __u32 match_xdp_link(const struct bpf_link_info *l, const void *arg)
{
	const struct xdp_att *a = arg;

	/* ifindexes repeat across namespaces, program ids do not */
	if (l->type == BPF_LINK_TYPE_XDP && l->prog_id == a->prog_id &&
	    l->xdp.ifindex == a->ifindex)
		return l->id;
	return 0;
}

/*
 * libxdp runs its programs as freplace extensions of the dispatcher; the
 * tracing link of each names the dispatcher's program id as its target
 * (6.1 has target_obj_id already).
 */
static __u32 match_dispatched(const struct bpf_link_info *l, const void *arg)
{
	const __u32 *dispatcher_id = arg;

	if (l->type == BPF_LINK_TYPE_TRACING && l->tracing.target_obj_id == *dispatcher_id &&
	    prog_is(l->prog_id, STAMPER_NAME))
		return l->prog_id;
	return 0;
}

/*
 * Before 5.13 a tracing link does not name its target: there the stamper is
 * found where libxdp keeps each dispatcher's programs, in a bpffs that this
 * process sees: xdp/dispatch-IFINDEX-ID/progN-prog (N < 10, libxdp's most).
 */
static __u32 dispatched_in_bpffs(__u32 ifindex, __u32 dispatcher_id)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char dev[256], dir[PATH_MAX], type[32], path[PATH_MAX + 64];
	__u32 found = 0;

	while (f && !found && fscanf(f, "%255s %4095s %31s %*[^\n]", dev, dir, type) == 3) {
		if (strcmp(type, "bpf"))
			continue;
		for (int n = 0; n < 10 && !found; n++) {
			struct bpf_prog_info info = {};
			__u32 len = sizeof(info);
			int fd;

			snprintf(path, sizeof(path), "%s/xdp/dispatch-%u-%u/prog%d-prog", dir,
				 ifindex, dispatcher_id, n);
			fd = bpf_obj_get(path);
			if (fd < 0)
				continue;
			if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
			    !strcmp(info.name, STAMPER_NAME))
				found = info.id;
			close(fd);
		}
	}
	if (f)
		fclose(f);
	return found;
}

__u32 stamper_dispatched(__u32 ifindex, __u32 dispatcher_id)
{
	return for_each_link(match_dispatched, &dispatcher_id)
		   ?: dispatched_in_bpffs(ifindex, dispatcher_id);
}

/* The stamper object for xdp-loader, where rxlat loads its objects from. */
void stamper_object(char *path, size_t size)
{
	snprintf(path, size, "%s/rxlat_xdp.bpf.o", rxlat_objects_dir());
}

int stamper_xdp_progs(__u32 ifindex, struct xdp_mode_ids modes[3])
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int err = bpf_xdp_query(ifindex, 0, &q);

	if (err)
		return err;
	modes[0] = (struct xdp_mode_ids){ q.drv_prog_id, "native", "xdpdrv" };
	modes[1] = (struct xdp_mode_ids){ q.skb_prog_id, "skb", "xdpgeneric" };
	modes[2] = (struct xdp_mode_ids){ q.hw_prog_id, "hw", "xdpoffload" };
	return 0;
}

/*
 * Says what holds the interface's XDP hook, as stamping.c decides from it.
 * Another rxlat stamper there: an error with the way to read its stamps,
 * -EBUSY. Any other program: 1, with why it is taken in why, and in hint
 * how to stamp in XDP all the same ("" when there is no way), nothing said.
 * Free: 0. Each hint is one that works as written: a link cannot be removed
 * from outside (xdp-loader unload gets EBUSY), and libxdp adds programs
 * only beside its own dispatcher.
 */
int stamper_xdp_holder(__u32 ifindex, const char *ifname, char *why, size_t why_len, char *hint,
		       size_t hint_len)
{
	struct xdp_mode_ids modes[3], *m = NULL;
	char name[BPF_OBJ_NAME_LEN], comm[16], obj[PATH_MAX], read_cmd[64];
	struct xdp_att att;
	__u32 link_id;
	pid_t pid;
	int err;

	err = stamper_xdp_progs(ifindex, modes);
	if (err) {
		/* the attach that follows says what is wrong, if anything */
		rxlat_debug("%s: cannot query its XDP programs: %s", ifname, strerror(-err));
		return 0;
	}
	for (int i = 0; i < 3 && !m; i++)
		if (modes[i].id)
			m = &modes[i];
	if (!m)
		return 0;
	hint[0] = '\0';
	/* how to read the stamps of a stamper found there */
	snprintf(read_cmd, sizeof(read_cmd), "rxlat %s %s %s", opt(OPT_NO_XDP),
		 opt_short(OPT_INTERFACE), ifname);
	prog_name(m->id, name);
	att = (struct xdp_att){ m->id, ifindex };
	link_id = for_each_link(match_xdp_link, &att);
	if (link_id && !strcmp(name, STAMPER_NAME)) {
		pid = link_holder(link_id, comm);
		if (pid && !strcmp(comm, "rxlat"))
			rxlat_err("%s is measured by another rxlat (pid %d): stop it (kill %d), or "
				  "read its stamps with '%s'",
				  ifname, pid, pid, read_cmd);
		else if (pid)
			rxlat_err(
			    "%s has XDP program '%s' (id %u) attached through a BPF link held "
			    "by %s (pid %d): stop that process (kill %d), or read its stamps "
			    "with '%s'",
			    ifname, name, m->id, comm, pid, pid, read_cmd);
		else
			rxlat_err("%s has XDP program '%s' (id %u) attached through BPF link %u, "
				  "which no running process holds (a link pinned in a bpf "
				  "filesystem): read its stamps with '%s'",
				  ifname, name, m->id, link_id, read_cmd);
		return -EBUSY;
	}
	if (link_id) {
		pid = link_holder(link_id, comm);
		if (pid)
			snprintf(why, why_len,
				 "XDP is taken by program '%s' (id %u) through a BPF link held by "
				 "%s (pid %d)",
				 name, m->id, comm, pid);
		else
			snprintf(
			    why, why_len,
			    "XDP is taken by program '%s' (id %u) through BPF link %u, which no "
			    "running process holds",
			    name, m->id, link_id);
		return 1;
	}
	if (!strcmp(name, DISPATCHER_NAME)) {
		if (stamper_dispatched(ifindex, m->id)) {
			rxlat_err("%s already has an XDP program attached (libxdp's dispatcher, id "
				  "%u, running the rxlat stamper): read its stamps with '%s'",
				  ifname, m->id, read_cmd);
			return -EBUSY;
		}
		stamper_object(obj, sizeof(obj));
		snprintf(hint, hint_len,
			 "to stamp in XDP, stop rxlat, load the stamper beside its programs with "
			 "'xdp-loader load -m %s %s %s' (xdp-tools 1.5 or later on Linux 6.12 and "
			 "later), then run '%s'",
			 m->loader, ifname, obj, read_cmd);
		snprintf(why, why_len, "XDP is taken by libxdp's dispatcher (id %u, %s mode)",
			 m->id, m->loader);
		return 1;
	}
	if (!strcmp(name, STAMPER_NAME)) {
		rxlat_err("%s already has an XDP program attached (id %u, the rxlat stamper, "
			  "%s mode, loaded without rxlat): read its stamps with '%s', or detach it "
			  "with 'ip link set dev %s %s off'",
			  ifname, m->id, m->loader, read_cmd, ifname, m->ip);
		return -EBUSY;
	}
	snprintf(why, why_len,
		 "XDP is taken by program '%s' (id %u, %s mode, without libxdp's dispatcher, so "
		 "nothing can run beside it)",
		 name, m->id, m->loader);
	return 1;
}

/*
 * The reset arms a CPU's batch state at the end of a poll on that CPU.
 * Until the first one, a poll there would follow the stamper's standalone
 * rules, and take a second stamp if a tick came in its middle. Arm every
 * CPU that has nothing stamped as soon as the reset runs. The per-CPU
 * value is read and written whole: a CPU that takes its first stamp in the
 * microseconds between the two loses it, and that one poll gets two.
 */
static void arm_all_cpus(int fd)
{
	int n = libbpf_num_possible_cpus(), err = 0;
	struct rxlat_batch *v = NULL;
	bool any = false;
	__u32 key = 0;

	if (n <= 0)
		err = n ? n : -EINVAL;
	else if (!(v = calloc(n, sizeof(*v))))
		err = -ENOMEM;
	else if (bpf_map_lookup_elem(fd, &key, v))
		err = -errno;
	for (int i = 0; !err && i < n; i++) {
		/* and the next packet starts a poll, which the stamper counts */
		if (!v[i].poll_end) {
			v[i].poll_end = 1;
			any = true;
		}
		if (!v[i].stamp && !v[i].armed) {
			v[i].armed = 1;
			any = true;
		}
	}
	if (!err && any && bpf_map_update_elem(fd, &key, v, BPF_ANY))
		err = -errno;
	free(v);
	if (err)
		rxlat_warn("cannot arm the poll-end reset on every CPU: %s; until a CPU's first "
			   "poll end, a poll there may take two stamps",
			   strerror(-err));
}

/*
 * Share the stamper's per-CPU batch state with the poll-end reset, so that
 * the reset clears the stamp the stamper hands out, and its counters, where
 * the reset counts the polls that used their whole budget or ran in
 * ksoftirqd or a NAPI thread. A stamper found without its counters leaves
 * the reset its own, which nothing reads: those are then not reported.
 */
int stamper_attach_reset(struct rxlat_stamper *st)
{
	int err;

	st->reset = rxlat_reset__open();
	if (!st->reset) {
		err = -errno;
		rxlat_err("cannot open the poll-end reset object: %s", strerror(-err));
		return err;
	}
	err = bpf_map__reuse_fd(st->reset->maps.rxlat_batch, st->batch_fd);
	if (!err && st->nslots)
		err = bpf_map__reuse_fd(st->reset->maps.rxlat_xdp_slots, st->slots_fds[0]);
	if (!err && st->nstats)
		err = bpf_map__reuse_fd(st->reset->maps.rxlat_xdp_stats, st->stats_fds[0]);
	if (!err && st->noverflow)
		err = bpf_map__reuse_fd(st->reset->maps.rxlat_xdp_overflow, st->overflow_fds[0]);
	if (err) {
		rxlat_err("cannot share the stamper's maps with the poll-end reset: %s",
			  strerror(-err));
		return err;
	}
	err = rxlat_reset__load(st->reset);
	if (err) {
		rxlat_err("cannot load the poll-end reset: %s (run with %s for the verifier log)",
			  strerror(-err), opt_short(OPT_VERBOSE));
		return err;
	}
	err = rxlat_reset__attach(st->reset);
	if (err)
		rxlat_err("cannot attach the poll-end reset: %s", strerror(-err));
	else
		arm_all_cpus(st->batch_fd);
	return err;
}

struct rxlat_stamper *stamper_new(void)
{
	struct rxlat_stamper *st = calloc(1, sizeof(*st));

	if (st)
		st->batch_fd = -1;
	return st;
}

int stamper_load(struct rxlat_stamper **out, const struct rxlat_config *cfg)
{
	struct rxlat_stamper *st = stamper_new();
	int err;

	*out = NULL;
	if (!st) {
		rxlat_err("out of memory");
		return -ENOMEM;
	}

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
			rxlat_err("cannot load the XDP stamper: %s (run with %s for the "
				  "verifier log)",
				  strerror(-err), opt_short(OPT_VERBOSE));
		stamper_destroy(st);
		return err;
	}
	if (cfg->stamp == RXLAT_STAMP_PACKET)
		rxlat_warn(
		    "%s packet gives every packet its own stamp: GRO then "
		    "merges nothing and delivers TCP segments out of order (spurious "
		    "retransmits and TCP far slower; make bench part 1 counts them); use the "
		    "default %s batch for TCP",
		    opt(OPT_STAMP), opt(OPT_STAMP));
	st->batch_fd = bpf_map__fd(st->skel->maps.rxlat_batch);
	st->slots_fds[st->nslots++] = bpf_map__fd(st->skel->maps.rxlat_xdp_slots);
	st->stats_fds[st->nstats++] = bpf_map__fd(st->skel->maps.rxlat_xdp_stats);
	st->overflow_fds[st->noverflow++] = bpf_map__fd(st->skel->maps.rxlat_xdp_overflow);
	for (int i = 0; i < cfg->nifaces; i++)
		st->link_fds[st->nlinks++] = -1;
	*out = st;
	return 0;
}

static bool ifindex_here(const struct rxlat_stamper *st, __u32 ifindex)
{
	/* rxlat's own stamper: private maps, only on its own interfaces */
	if (st->skel || !ifindex)
		return true;
	for (size_t i = 0; i < st->nifindexes; i++)
		if (st->ifindexes[i] == ifindex)
			return true;
	return false;
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

struct slot_rows {
	const struct rxlat_stamper *st;
	struct rxlat_xdp_key **keys;
	struct rxlat_xdp_counters **vals;
	size_t *n;
};

static int add_slot_row(void *arg, const struct rxlat_xdp_key *k,
			const struct rxlat_xdp_counters *c)
{
	struct slot_rows *r = arg;

	return ifindex_here(r->st, k->ifindex) ? add_row(r->keys, r->vals, r->n, k, c) : 0;
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

			if (ifindex_here(st, k.ifindex) &&
			    !xdp_counters_sum_percpu(st->stats_fds[m], &k, &c))
				err = add_row(keys, vals, n, &k, &c);
			prev = &k;
		}
	}
	for (int m = 0; m < st->nslots && !err; m++) {
		struct slot_rows r = { st, keys, vals, n };

		err = xdp_slots_visit(st->slots_fds[m], add_slot_row, &r);
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
		stamper_detach_iface(st, i);
	if (st->skel) {
		rxlat_xdp__destroy(st->skel);
	} else {
		for (int i = 0; i < st->nslots; i++)
			close(st->slots_fds[i]);
		for (int i = 0; i < st->nstats; i++)
			close(st->stats_fds[i]);
		for (int i = 0; i < st->noverflow; i++)
			close(st->overflow_fds[i]);
		if (st->batch_fd >= 0)
			close(st->batch_fd);
	}
	free(st->ifindexes);
	free(st->xdp_ids);
	free(st);
}

bool stamper_attached(const struct rxlat_stamper *st, int i)
{
	return st && st->skel && i < st->nlinks && st->link_fds[i] >= 0;
}

bool stamper_restores(const struct rxlat_stamper *st)
{
	for (int i = 0; st && i < st->nlinks; i++)
		if (st->saved[i])
			return true;
	return false;
}

bool stamper_found(const struct rxlat_stamper *st)
{
	return st && !st->skel;
}

void stamper_detach_iface(struct rxlat_stamper *st, int i)
{
	if (!st || i >= st->nlinks || st->link_fds[i] < 0)
		return;
	/* detached now, not when the kernel gets to the closed link: then the offloads */
	bpf_link_detach(st->link_fds[i]);
	close(st->link_fds[i]);
	st->link_fds[i] = -1;
	xdp_device_after(st->link_ifindex[i], st->saved[i]);
	st->saved[i] = NULL;
}

int stamper_attach_iface(struct rxlat_stamper *st, const struct rxlat_config *cfg, int i,
			 __u32 ifindex)
{
	__u32 flags = cfg->xdp_mode == RXLAT_XDP_SKB ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = flags);
	struct xdp_device *saved;
	int fd, err;

	if (!st || !st->skel || i >= st->nlinks)
		return -EOPNOTSUPP;
	stamper_detach_iface(st, i);
	saved = xdp_device_before(cfg->ifnames[i], cfg->xdp_mode == RXLAT_XDP_SKB);
	/* A link, not a netlink attach: the kernel detaches it when the last
	 * fd closes, so no exit path of rxlat leaves it behind. */
	fd = bpf_link_create(bpf_program__fd(st->skel->progs.rxlat_xdp), ifindex, BPF_XDP, &opts);
	if (fd < 0) {
		err = -errno;
		xdp_device_after(ifindex, saved);
		return err;
	}
	st->link_fds[i] = fd;
	st->link_ifindex[i] = ifindex;
	st->saved[i] = saved;
	return 0;
}
