// SPDX-License-Identifier: GPL-2.0
/*
 * The loader of the latency hooks: carries the plan (plan.h) out. Opens
 * hooks.bpf.c's skeleton, writes the configuration into its read-only
 * rxlat_cfg, switches off the programs the plan does not use, loads,
 * attaches (the tracing programs through the skeleton, cgroup_skb on the
 * cgroup v2 root), and takes it all down again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hooks_impl.h"
#include "log.h"
#include "opt.h"
#include "series.h"
#include "signals.h"
#include "hooks_bpf.skel.h"

/*
 * Where out-of-order segments are noted for sock_read (ooo.bpf.h): in the
 * tcp_do_rcv programs where they run anyway, else in a program of its own.
 */
enum ooo_where { OOO_NONE, OOO_OWN, OOO_AT_DO_RCV };

static enum ooo_where ooo_where(const struct plan *plan, __u8 proto)
{
	if (plan->point[RXLAT_STAGE_SOCK_READ] == P_NONE || proto == IPPROTO_UDP ||
	    !probe_sk_storage())
		return OOO_NONE;
	return plan->point[RXLAT_STAGE_TCP_DO_RCV] == P_NONE ? OOO_OWN : OOO_AT_DO_RCV;
}

/*
 * Every program of hooks.bpf.c is one of the stage table's attach points,
 * found by its section (plan_prog_of()), or one of plan_extras by name:
 * unit-tests/progs_test.c checks the object against both tables.
 */
static int set_autoload(struct hooks_bpf *skel, const struct plan *plan, __u8 proto)
{
	struct bpf_program *p;

	bpf_object__for_each_program (p, skel->obj) {
		const char *name = bpf_program__name(p);
		const struct plan_prog *pp;

		/* by name: rxlat_probe_mem's section is also ip_rcv's fallback */
		if (!strcmp(name, PLAN_PROBE_MEM)) {
			bpf_program__set_autoload(p, false);
			continue;
		}
		if (!strcmp(name, PLAN_DROP)) {
			bpf_program__set_autoload(p, plan->drops);
			continue;
		}
		/* TCP's sock_read needs it to tell held reads, unless tcp_do_rcv does */
		if (!strcmp(name, PLAN_OOO)) {
			bpf_program__set_autoload(p, ooo_where(plan, proto) == OOO_OWN);
			continue;
		}
		if (!strcmp(name, PLAN_NAPI_WAKE)) {
			bpf_program__set_autoload(p,
						  plan->point[RXLAT_STAGE_NAPI_WAIT] == P_FALLBACK);
			continue;
		}
		/* the NET_RX rounds: a backlog's polls in both sets */
		if (!strcmp(name, PLAN_NAPI_POLL) || !strcmp(name, PLAN_NAPI_ENTRY) ||
		    !strcmp(name, PLAN_NAPI_EXIT)) {
			bpf_program__set_autoload(p, plan->point[RXLAT_STAGE_NAPI_WAIT] != P_NONE);
			continue;
		}
		if (!strcmp(name, PLAN_NAPI_PREP)) {
			bpf_program__set_autoload(p,
						  plan->point[RXLAT_STAGE_NAPI_WAIT] == P_FENTRY);
			continue;
		}
		pp = plan_prog_of(bpf_program__section_name(p));
		if (!pp) {
			rxlat_err("latency hook program %s belongs to no stage", name);
			return -EINVAL;
		}
		bpf_program__set_autoload(p, plan_prog_loads(plan, pp));
	}
	return 0;
}

/*
 * Slots of the forwarded stamps' table: RXLAT_FWD_SLOTS_CPU for each
 * possible CPU, rounded up to a power of two.
 */
static __u32 fwd_slots(void)
{
	int ncpu = libbpf_num_possible_cpus();
	__u32 want = (ncpu > 0 ? (__u32)ncpu : 1) * RXLAT_FWD_SLOTS_CPU, n = 1;

	while (n < want)
		n <<= 1;
	return n;
}

/* This run's tag of forwarded stamps' keys (include/rxlat.h), at random. */
static __u64 fwd_tag(__u32 mask)
{
	__u8 tag = 0;

	if (getrandom(&tag, 1, 0) != 1)
		tag = (__u8)getpid();
	return (__u64)tag * ((__u64)mask + 1);
}

static int attach_all(struct rxlat_hooks *h)
{
	struct bpf_program *cg = h->skel->progs.rxlat_cg_udp_queue_rcv;
	char how[160];
	int err;

	/* The skeleton attaches the tracing programs; cgroup_skb needs a target. */
	err = hooks_bpf__attach(h->skel);
	if (err) {
		rxlat_err("cannot attach the latency hooks: %s", strerror(-err));
		return err;
	}
	if (!bpf_program__autoload(cg))
		return 0;
	h->cgroup_fd = cgroup2_root_open(how, sizeof(how));
	if (h->cgroup_fd < 0) {
		rxlat_err("udp_queue_rcv fallback: %s", how);
		return h->cgroup_fd;
	}
	rxlat_debug("udp_queue_rcv: cgroup_skb attached through %s", how);
	/* a link: multi-attach, and detached when rxlat exits */
	h->skel->links.rxlat_cg_udp_queue_rcv = bpf_program__attach_cgroup(cg, h->cgroup_fd);
	if (!h->skel->links.rxlat_cg_udp_queue_rcv) {
		err = -errno;
		rxlat_err("cannot attach cgroup_skb ingress through %s: %s", how, strerror(-err));
		return err;
	}
	return 0;
}

/*
 * One line when not one requested stage has an attach point here: a run
 * that measures nothing is an error, not an empty report.
 */
static int check_any_stage(const struct rxlat_config *cfg, const struct rxlat_hooks_info *info)
{
	char list[1024];
	size_t used = 0;

	for (int s = 0; s < RXLAT_NR_STAGES; s++) {
		if (!cfg->stages[s])
			continue;
		if (info->attach[s])
			return 0;
		if (used < sizeof(list))
			used +=
			    snprintf(list + used, sizeof(list) - used, "%s%s: %s", used ? "; " : "",
				     rxlat_stage_names[s], info->unavailable[s]);
	}
	rxlat_err("none of the stages asked for can be attached on this kernel (%s): choose "
		  "others with %s, see rxlat %s",
		  list, opt(OPT_STAGES), opt(OPT_LIST_STAGES));
	return -EOPNOTSUPP;
}

/*
 * What the kernel offers and what the options ask (the plan, in h), and
 * whether that leaves a stage to attach: 0, or -errno said.
 */
static int decide(struct rxlat_hooks *h, const struct rxlat_config *cfg,
		  struct rxlat_hooks_info *info)
{
	int err = probe_and_decide(cfg, &h->plan, info);

	if (!err && signals_stop())
		err = -EINTR;
	if (!err)
		err = check_any_stage(cfg, info);
	if (!err && cfg->drops) {
		err = probe_drops();
		h->plan.drops = !err;
	}
	return err;
}

static __u8 napi_wait_how(enum point p)
{
	switch (p) {
	case P_FENTRY:
		return RXLAT_NAPI_WAIT_FENTRY;
	case P_FALLBACK:
		return RXLAT_NAPI_WAIT_SOFTIRQ;
	default:
		return RXLAT_NAPI_WAIT_OFF;
	}
}

/* The programs' configuration (rodata) for the plan: 0, or -EINVAL said. */
static int configure(struct rxlat_hooks *h, const struct rxlat_config *cfg,
		     const struct rxlat_hooks_info *info)
{
	struct rxlat_bpf_config *bc = &h->skel->rodata->rxlat_cfg;
	int n = libbpf_num_possible_cpus();

	*bc = cfg->bpf;
	bc->ifaces_fixed = cfg->nifaces > 0;
	bc->direct_mem = probe_direct_mem();
	rxlat_debug("metadata read with %s",
		    bc->direct_mem ? "direct loads" : "bpf_probe_read_kernel()");
	bc->udp_consume_lo = h->plan.udp_consume_lo;
	bc->udp_consume_hi = h->plan.udp_consume_hi;
	bc->include_ooo = cfg->include_ooo;
	if (!cfg->include_ooo && ooo_where(&h->plan, bc->filter_proto) == OOO_NONE &&
	    h->plan.point[RXLAT_STAGE_SOCK_READ] != P_NONE && bc->filter_proto != IPPROTO_UDP) {
		/* without the notes no read is known to be held: each is a sample */
		bc->include_ooo = 1;
		h->ooo_unknown = true;
	}
	bc->ooo_at_do_rcv = ooo_where(&h->plan, bc->filter_proto) == OOO_AT_DO_RCV;
	bc->ooo_notes = ooo_where(&h->plan, bc->filter_proto) != OOO_NONE;
	bc->filters = bc->filter_proto || bc->filter_ports || bc->filter_cgroup;
	bc->napi_wait = napi_wait_how(h->plan.point[RXLAT_STAGE_NAPI_WAIT]);
	if (bc->from == RXLAT_FROM_SCHEDULE && bc->napi_wait == RXLAT_NAPI_WAIT_OFF) {
		rxlat_err("%s schedule: stage %s cannot be attached on this kernel (%s)",
			  opt(OPT_FROM), rxlat_stage_names[RXLAT_STAGE_NAPI_WAIT],
			  info->unavailable[RXLAT_STAGE_NAPI_WAIT] ?: "no attach point");
		return -EINVAL;
	}
	bc->nr_cpus = n > 0 ? (__u32)n : 0;
	/* the tc stamper's table of forwarded stamps, when rxlat may run one */
	bc->fwd_mask = cfg->nifaces ? fwd_slots() - 1 : 0;
	bc->fwd_tag = fwd_tag(bc->fwd_mask);
	return 0;
}

/* The maps' sizes: what the configuration uses, one entry where it uses none. */
static void size_maps(struct hooks_bpf *skel, const struct rxlat_config *cfg, bool drops)
{
	const struct rxlat_bpf_config *bc = &skel->rodata->rxlat_cfg;

	/* napi_wait's state, which rxlat's tc stamper reads too */
	bpf_map__set_max_entries(skel->maps.rxlat_napi_sched, bc->napi_wait ? RXLAT_NAPI_SLOTS : 1);
	bpf_map__set_max_entries(skel->maps.rxlat_poll_from,
				 bc->napi_wait ? RXLAT_POLL_FROM_SLOTS : 1);
	bpf_map__set_max_entries(skel->maps.rxlat_tc_fwd, bc->fwd_mask + 1);
	bpf_map__set_max_entries(skel->maps.rxlat_fwd_sock, bc->fwd_mask ? RXLAT_FWD_SOCK_SETS : 1);
	bpf_map__set_max_entries(skel->maps.rxlat_carry_tcp, bc->fwd_mask ? RXLAT_CARRY_TCP : 1);
	bpf_map__set_max_entries(skel->maps.rxlat_drops, drops ? RXLAT_DROP_ENTRIES : 1);
	/* 1 MiB: over 11000 records, more than 10 s of the default rate of one CPU */
	bpf_map__set_max_entries(skel->maps.rxlat_slow, cfg->bpf.slow_ns ? 1u << 20 : 4096);
}

/* The object into the kernel: 0, -EINTR on a stop signal, or -errno said. */
static int load(struct hooks_bpf *skel)
{
	int err = hooks_bpf__load(skel);

	if (signals_stop())
		return -EINTR; /* the verifier may have given up for it */
	if (err == -EPERM)
		rxlat_err("loading the latency hooks was refused (EPERM): run as root "
			  "(needs CAP_BPF and CAP_PERFMON)");
	else if (err)
		rxlat_err("cannot load the latency hooks: %s (run with %s for the verifier log)",
			  strerror(-err), opt_short(OPT_VERBOSE));
	return err;
}

/* The plan, and the hooks loaded as planned (nothing attached): 0, or -errno said. */
static int hooks_load(struct rxlat_hooks **out, const struct rxlat_config *cfg,
		      struct rxlat_hooks_info *info)
{
	struct rxlat_hooks *h = calloc(1, sizeof(*h));
	int err;

	if (!h) {
		rxlat_err("out of memory");
		return -ENOMEM;
	}
	h->cgroup_fd = -1;
	err = decide(h, cfg, info);
	if (err)
		goto fail;
	h->skel = hooks_skel_open();
	if (!h->skel) {
		err = -errno;
		rxlat_err("cannot open the latency hooks object: %s", strerror(-err));
		goto fail;
	}
	err = configure(h, cfg, info);
	if (err)
		goto fail;
	size_maps(h->skel, cfg, h->plan.drops);
	err = store_size(h, cfg);
	if (!err)
		err = set_autoload(h->skel, &h->plan, h->skel->rodata->rxlat_cfg.filter_proto);
	if (!err)
		err = load(h->skel);
	if (err)
		goto fail;
	*out = h;
	return 0;
fail:
	hooks_destroy(h);
	return err;
}

int hooks_attach(struct rxlat_hooks **out, const struct rxlat_config *cfg,
		 struct rxlat_hooks_info *info)
{
	struct rxlat_hooks *h;
	int err = hooks_load(&h, cfg, info);

	if (err)
		return err;
	err = store_start(h, cfg);
	if (!err) {
		err = hooks_clock(h);
		if (err)
			rxlat_err("cannot give the hooks the realtime clock's offset: %s",
				  strerror(-err));
	}
	if (!err)
		err = attach_all(h);
	if (err) {
		hooks_destroy(h);
		return err;
	}
	*out = h;
	return 0;
}

/*
 * --list-stages: the plan, proven by loading every program it names as a
 * run with the same options would (the verifier's word, not the probes'
 * alone); nothing is attached.
 */
int hooks_plan(const struct rxlat_config *cfg, struct rxlat_hooks_info *info)
{
	struct rxlat_hooks *h;
	int err = hooks_load(&h, cfg, info);

	if (!err)
		hooks_destroy(h);
	return err;
}

void hooks_destroy(struct rxlat_hooks *h)
{
	if (!h)
		return;
	store_unmap(h);
	for (int i = 0; i < h->nforeign_offs; i++)
		close(h->foreign_offs[i]);
	hooks_bpf__destroy(h->skel);
	if (h->cgroup_fd >= 0)
		close(h->cgroup_fd);
	free(h);
}

bool hooks_ooo_unknown(const struct rxlat_hooks *h)
{
	return h->ooo_unknown;
}

void hooks_tc_share(const struct rxlat_hooks *h, struct rxlat_tc_share *s)
{
	s->fwd_mask = h->skel->rodata->rxlat_cfg.fwd_mask;
	s->fwd_tag = h->skel->rodata->rxlat_cfg.fwd_tag;
	s->fwd_fd = s->fwd_mask ? bpf_map__fd(h->skel->maps.rxlat_tc_fwd) : -1;
	s->offs_fd = bpf_map__fd(h->skel->maps.rxlat_tc_offs);
	s->napi_wait = h->skel->rodata->rxlat_cfg.napi_wait;
	s->from = h->skel->rodata->rxlat_cfg.from;
	s->napi_sched_fd = s->napi_wait ? bpf_map__fd(h->skel->maps.rxlat_napi_sched) : -1;
	s->softirq_round_fd = s->napi_wait ? bpf_map__fd(h->skel->maps.rxlat_softirq_round) : -1;
	s->poll_from_fd = s->napi_wait ? bpf_map__fd(h->skel->maps.rxlat_poll_from) : -1;
}

/*
 * A stamp lost on the way into a container is counted under the one
 * interface where rxlat stamps at tc, where there is one (hooks.bpf.c).
 */
static void tc_own_set(struct rxlat_hooks *h, __u32 ifindex, bool own)
{
	__u32 i = 0;

	while (i < h->ntc_own && h->tc_own[i] != ifindex)
		i++;
	if (own && i == h->ntc_own && i < RXLAT_MAX_IFACES_LIMIT)
		h->tc_own[h->ntc_own++] = ifindex;
	else if (!own && i < h->ntc_own)
		h->tc_own[i] = h->tc_own[--h->ntc_own];
	__atomic_store_n(&h->skel->bss->rxlat_fwd_lost_ifindex, h->ntc_own == 1 ? h->tc_own[0] : 0,
			 __ATOMIC_RELAXED);
}

int hooks_tc_iface(struct rxlat_hooks *h, __u32 ifindex, __u8 whose)
{
	int fd = bpf_map__fd(h->skel->maps.rxlat_tc_ifaces);

	tc_own_set(h, ifindex, (whose & RXLAT_TC_IF_WHOSE) == RXLAT_TC_IF_OWN);

	if (ifindex < RXLAT_IFINDEX_DIRECT) {
		__atomic_store_n(&h->skel->bss->rxlat_tc_of[ifindex], whose, __ATOMIC_RELAXED);
		return 0;
	}
	if (whose)
		return bpf_map_update_elem(fd, &ifindex, &whose, BPF_ANY) ? -errno : 0;
	bpf_map_delete_elem(fd, &ifindex);
	return 0;
}
