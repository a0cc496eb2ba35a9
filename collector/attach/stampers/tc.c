// SPDX-License-Identifier: GPL-2.0
/*
 * The tc ingress stamper (tc/rxlat_tc.bpf.c) as rxlat attaches it:
 * through a tcx link where the kernel has them (6.6 and later; the kernel
 * detaches it however rxlat exits), else as a cls_bpf filter of a clsact qdisc, at a priority and
 * handle of rxlat's own, deleted again at exit. A clsact qdisc that was
 * there before stays, with every filter in it; one that rxlat added goes
 * when rxlat leaves it empty. A filter a killed rxlat left behind (no
 * process holds its program) is replaced; one loaded with iproute2 alone
 * is used as it is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <libmnl/libmnl.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include "holders.h"
#include "links.h"
#include "tc.h"
#include "log.h"
#include "opt.h"
#include "rxlat_tc.skel.h"

/* Linux 6.6 uapi, newer than the headers rxlat builds with */
#define ATTACH_TCX_INGRESS 46
#define LINK_TYPE_TCX	   11

struct tc_iface {
	enum rxlat_tc_how how;
	int link_fd;	    /* RXLAT_TC_TCX */
	__u32 ifindex;	    /* where it was attached */
	bool added_qdisc;   /* RXLAT_TC_FILTER: the clsact qdisc is rxlat's */
	bool replaced;	    /* a killed rxlat's filter was taken over */
	__u32 foreign_prio; /* RXLAT_TC_FOREIGN: the filter found */
};

struct rxlat_tc {
	struct rxlat_tc_bpf *skel;
	struct tc_iface ifs[RXLAT_MAX_CLI_IFACES];
};

/* The stamping code in the program array that the entry tail-calls. */
static int live(struct rxlat_tc_bpf *skel)
{
	int fd = bpf_program__fd(skel->progs.rxlat_tc_stamp);
	__u32 zero = 0;

	if (bpf_map_update_elem(bpf_map__fd(skel->maps.rxlat_tc_live), &zero, &fd, BPF_ANY))
		return -errno;
	return 0;
}

/* napi_wait's maps, the hooks' (their sizes first: libbpf reuses only a match). */
static int share_napi_wait(struct rxlat_tc_bpf *skel, const struct rxlat_tc_share *share)
{
	int err;

	skel->rodata->rxlat_napi_wait = share->napi_wait;
	skel->rodata->rxlat_from = share->from;
	bpf_map__set_max_entries(skel->maps.rxlat_napi_sched, RXLAT_NAPI_SLOTS);
	bpf_map__set_max_entries(skel->maps.rxlat_poll_from, RXLAT_POLL_FROM_SLOTS);
	err = bpf_map__reuse_fd(skel->maps.rxlat_napi_sched, share->napi_sched_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.rxlat_softirq_round, share->softirq_round_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.rxlat_poll_from, share->poll_from_fd);
	return err;
}

int tc_open(struct rxlat_tc **out, __u32 netns, const struct rxlat_tc_share *share)
{
	int fwd_fd = share->fwd_fd;
	struct rxlat_tc *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return -ENOMEM;
	for (int i = 0; i < RXLAT_MAX_CLI_IFACES; i++)
		t->ifs[i].link_fd = -1;
	t->skel = rxlat_tc_bpf__open();
	if (t->skel) {
		/* an XDP stamp of another namespace does not stop this one */
		t->skel->rodata->rxlat_netns = netns;
		err = 0;
		if (fwd_fd >= 0) {
			t->skel->rodata->rxlat_fwd_mask = share->fwd_mask;
			t->skel->rodata->rxlat_fwd_tag = share->fwd_tag;
			bpf_map__set_max_entries(t->skel->maps.rxlat_tc_fwd, share->fwd_mask + 1);
			err = bpf_map__reuse_fd(t->skel->maps.rxlat_tc_fwd, fwd_fd);
		}
		if (!err && share->offs_fd >= 0)
			err = bpf_map__reuse_fd(t->skel->maps.rxlat_tc_offs, share->offs_fd);
		if (!err && share->napi_wait)
			err = share_napi_wait(t->skel, share);
		t->skel->rodata->rxlat_watched = 1;
		if (!err)
			err = rxlat_tc_bpf__load(t->skel);
		if (!err)
			err = live(t->skel);
		/* the addresses before the first packet: the rest is links.c's */
		if (!err && fwd_fd >= 0 &&
		    links_addrs_fill(bpf_map__fd(t->skel->maps.rxlat_tc_local)))
			rxlat_warn("cannot read this namespace's addresses (rtnetlink): packets "
				   "for it are taken as forwarded, and measured up to the socket");
		if (err) {
			rxlat_tc_bpf__destroy(t->skel);
			t->skel = NULL;
			errno = -err;
		}
	}
	if (!t->skel) {
		err = -errno;
		if (err == -EPERM)
			rxlat_err("loading the tc stamper was refused (EPERM): run as root (needs "
				  "CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN)");
		else
			rxlat_err("cannot load the tc stamper: %s (run with %s for the verifier "
				  "log)",
				  strerror(-err), opt_short(OPT_VERBOSE));
		free(t);
		return err;
	}
	*out = t;
	return 0;
}

/* ---- the filters of a clsact ingress hook, through rtnetlink -------- */

struct filter {
	__u32 prio, handle, prog_id;
	char kind[16];
};

struct dump {
	struct filter f[64];
	int n;
};

static int on_bpf_opt(const struct nlattr *a, void *data)
{
	struct filter *f = data;

	if (mnl_attr_get_type(a) == TCA_BPF_ID && !mnl_attr_validate(a, MNL_TYPE_U32))
		f->prog_id = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int on_filter_attr(const struct nlattr *a, void *data)
{
	struct filter *f = data;

	if (mnl_attr_get_type(a) == TCA_KIND && !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
		snprintf(f->kind, sizeof(f->kind), "%s", mnl_attr_get_str(a));
	else if (mnl_attr_get_type(a) == TCA_OPTIONS)
		mnl_attr_parse_nested(a, on_bpf_opt, f);
	return MNL_CB_OK;
}

static int on_filter(const struct nlmsghdr *nlh, void *data)
{
	const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	struct dump *d = data;
	struct filter f = {};

	if (nlh->nlmsg_type != RTM_NEWTFILTER || d->n >= (int)(sizeof(d->f) / sizeof(d->f[0])))
		return MNL_CB_OK;
	f.prio = TC_H_MAJ(tcm->tcm_info) >> 16;
	f.handle = tcm->tcm_handle;
	mnl_attr_parse(nlh, sizeof(*tcm), on_filter_attr, &f);
	if (f.handle) /* the per-priority header message has none */
		d->f[d->n++] = f;
	return MNL_CB_OK;
}

/* The filters at clsact ingress or egress (min) of ifindex; -ENOENT without clsact. */
static int dump_filters(__u32 ifindex, __u32 min, struct dump *d)
{
	char buf[16384]; /* a dump part; MNL_SOCKET_DUMP_SIZE in newer libmnl */
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	struct nlmsghdr *nlh;
	struct tcmsg *tcm;
	unsigned int seq = 1;
	int ret, err = 0;

	d->n = 0;
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID)) {
		err = -errno;
		goto out;
	}
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETTFILTER;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = (int)ifindex;
	tcm->tcm_parent = TC_H_MAKE(TC_H_CLSACT, min);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		err = -errno;
		goto out;
	}
	while ((ret = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
		ret = mnl_cb_run(buf, (size_t)ret, seq, mnl_socket_get_portid(nl), on_filter, d);
		if (ret <= 0)
			break;
	}
	if (ret < 0)
		err = errno == EINVAL ? -ENOENT : -errno;
out:
	if (nl)
		mnl_socket_close(nl);
	return err;
}

/* ---- attach and detach ---------------------------------------------- */

static __u32 match_tcx_link(const struct bpf_link_info *l, const void *arg)
{
	const __u32 *prog_id = arg;

	return l->type == LINK_TYPE_TCX && l->prog_id == *prog_id ? l->id : 0;
}

/*
 * Another rxlat's tcx link on ifindex: said, -EBUSY. The query names the
 * programs at this namespace's ifindex (the links' own ifindexes could be
 * another namespace's), and program ids are unique: its link is found by it.
 */
static int tcx_taken(__u32 ifindex, const char *ifname)
{
	__u32 ids[64], n = 64, link_id = 0, prog_id = 0;
	char comm[16];
	pid_t pid;

	if (bpf_prog_query((int)ifindex, ATTACH_TCX_INGRESS, 0, NULL, ids, &n))
		return 0; /* no tcx here: nothing can be taken */
	for (__u32 i = 0; i < n && !prog_id; i++)
		if (prog_is(ids[i], TC_PROG_NAME))
			prog_id = ids[i];
	if (!prog_id)
		return 0;
	link_id = for_each_link(match_tcx_link, &prog_id);
	pid = link_id ? link_holder(link_id, comm) : 0;
	if (pid)
		rxlat_err("%s already has the rxlat tc stamper attached by %s (pid %d): stop it "
			  "(kill %d), then run rxlat again",
			  ifname, comm, pid, pid);
	else
		rxlat_err("%s already has the rxlat tc stamper attached (program %u) through a "
			  "tcx link that no running process holds (one pinned in a bpf "
			  "filesystem): the interface stays taken while that pin exists",
			  ifname, prog_id);
	return -EBUSY;
}

static int attach_tcx(struct rxlat_tc *t, struct tc_iface *f, __u32 ifindex, const char *ifname)
{
	int fd, err = tcx_taken(ifindex, ifname);

	if (err)
		return err;
	fd = bpf_link_create(bpf_program__fd(t->skel->progs.rxlat_tc), (int)ifindex,
			     ATTACH_TCX_INGRESS, NULL);
	if (fd < 0)
		return -errno;
	f->how = RXLAT_TC_TCX;
	f->link_fd = fd;
	return 0;
}

static struct bpf_tc_hook hook_of(__u32 ifindex)
{
	return (struct bpf_tc_hook){ .sz = sizeof(struct bpf_tc_hook),
				     .ifindex = (int)ifindex,
				     .attach_point = BPF_TC_INGRESS };
}

/* rxlat's own filter already there: a killed rxlat's is taken over. */
static int take_over(struct rxlat_tc *t, struct tc_iface *f, __u32 ifindex, const char *ifname,
		     const struct filter *old)
{
	struct bpf_tc_hook hook = hook_of(ifindex);
	LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = bpf_program__fd(t->skel->progs.rxlat_tc),
		    .handle = RXLAT_TC_HANDLE, .priority = RXLAT_TC_PRIO,
		    .flags = BPF_TC_F_REPLACE);
	char comm[16];
	pid_t pid = prog_holder(old->prog_id, comm);
	int err;

	if (pid) {
		rxlat_err("%s already has the rxlat tc stamper attached by %s (pid %d): stop it "
			  "(kill %d), then run rxlat again",
			  ifname, comm, pid, pid);
		return -EBUSY;
	}
	err = bpf_tc_attach(&hook, &opts);
	if (err)
		return err;
	f->how = RXLAT_TC_FILTER;
	f->replaced = true;
	rxlat_info("%s: replaced the tc filter a stopped rxlat left behind (pref %d handle 0x%x)",
		   ifname, RXLAT_TC_PRIO, RXLAT_TC_HANDLE);
	return 0;
}

static int attach_filter(struct rxlat_tc *t, struct tc_iface *f, __u32 ifindex, const char *ifname,
			 const struct dump *d)
{
	struct bpf_tc_hook hook = hook_of(ifindex);
	LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = bpf_program__fd(t->skel->progs.rxlat_tc),
		    .handle = RXLAT_TC_HANDLE, .priority = RXLAT_TC_PRIO);
	int err;

	for (int i = 0; i < d->n; i++)
		if (d->f[i].prio == RXLAT_TC_PRIO && d->f[i].handle == RXLAT_TC_HANDLE)
			return take_over(t, f, ifindex, ifname, &d->f[i]);
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return err;
	f->added_qdisc = !err;
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		if (f->added_qdisc) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			bpf_tc_hook_destroy(&hook);
			f->added_qdisc = false;
		}
		return err;
	}
	f->how = RXLAT_TC_FILTER;
	return 0;
}

/* A filter with the rxlat tc program that iproute2 loaded: its pref, or 0. */
static __u32 standalone_filter(const struct dump *d)
{
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->f[i].kind, "bpf") && d->f[i].handle != RXLAT_TC_HANDLE &&
		    d->f[i].prog_id && prog_is(d->f[i].prog_id, TC_PROG_NAME))
			return d->f[i].prio;
	return 0;
}

void tc_queue_raw(struct rxlat_tc *t, __u32 ifindex, bool raw)
{
	__u8 one = 1;
	int fd;

	if (!t || !t->skel)
		return;
	fd = bpf_map__fd(t->skel->maps.rxlat_tc_queue_raw);
	if (raw)
		bpf_map_update_elem(fd, &ifindex, &one, BPF_ANY);
	else
		bpf_map_delete_elem(fd, &ifindex);
}

enum rxlat_tc_how tc_attach(struct rxlat_tc *t, int i, __u32 ifindex, const char *ifname)
{
	struct tc_iface *f = &t->ifs[i];
	struct dump d = {};
	int err = dump_filters(ifindex, TC_H_MIN_INGRESS, &d);

	memset(f, 0, sizeof(*f));
	f->link_fd = -1;
	f->ifindex = ifindex;
	if (err && err != -ENOENT)
		goto fail;
	f->foreign_prio = standalone_filter(&d);
	if (f->foreign_prio) {
		f->how = RXLAT_TC_FOREIGN;
		rxlat_info("%s: stamped by the rxlat tc program that a tc filter (pref %u) runs, "
			   "loaded without rxlat",
			   ifname, f->foreign_prio);
		return f->how;
	}
	err = attach_tcx(t, f, ifindex, ifname);
	if (err == -EBUSY)
		return RXLAT_TC_NONE;
	if (err) /* no tcx links before 6.6: a cls_bpf filter */
		err = attach_filter(t, f, ifindex, ifname, &d);
	if (err)
		goto fail;
	return f->how;
fail:
	if (err != -EBUSY)
		rxlat_err("cannot attach the tc stamper to %s: %s", ifname, strerror(-err));
	return RXLAT_TC_NONE;
}

/* Filters at clsact of ifindex, both sides, that are not rxlat's own. */
static int others_left(__u32 ifindex)
{
	__u32 sides[] = { TC_H_MIN_INGRESS, TC_H_MIN_EGRESS };
	struct dump d = {};
	int n = 0;

	for (int s = 0; s < 2; s++) {
		if (dump_filters(ifindex, sides[s], &d))
			return -1;
		for (int i = 0; i < d.n; i++)
			n += !(d.f[i].prio == RXLAT_TC_PRIO && d.f[i].handle == RXLAT_TC_HANDLE);
	}
	return n;
}

void tc_detach(struct rxlat_tc *t, int i, bool gone)
{
	struct tc_iface *f = &t->ifs[i];
	struct bpf_tc_hook hook = hook_of(f->ifindex);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = RXLAT_TC_HANDLE, .priority = RXLAT_TC_PRIO);

	if (f->link_fd >= 0)
		close(f->link_fd);
	f->link_fd = -1;
	if (f->how == RXLAT_TC_FILTER && !gone) {
		bpf_tc_detach(&hook, &opts);
		/* a qdisc rxlat added goes only when no filter of anyone is left */
		if (f->added_qdisc && others_left(f->ifindex) == 0) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			bpf_tc_hook_destroy(&hook);
		}
	}
	f->how = RXLAT_TC_NONE;
}

bool tc_has_tcx(__u32 ifindex)
{
	__u32 n = 0;

	/* kernels without tcx refuse the attach type */
	return !bpf_prog_query((int)ifindex, ATTACH_TCX_INGRESS, 0, NULL, NULL, &n);
}

bool tc_netlink(const struct rxlat_tc *t)
{
	for (int i = 0; t && i < RXLAT_MAX_CLI_IFACES; i++)
		if (t->ifs[i].how == RXLAT_TC_FILTER)
			return true;
	return false;
}

int tc_addrs_fd(const struct rxlat_tc *t)
{
	return t && t->skel->rodata->rxlat_fwd_mask ? bpf_map__fd(t->skel->maps.rxlat_tc_local)
						    : -1;
}

void tc_destroy(struct rxlat_tc *t)
{
	if (!t)
		return;
	for (int i = 0; i < RXLAT_MAX_CLI_IFACES; i++)
		tc_detach(t, i, false);
	rxlat_tc_bpf__destroy(t->skel);
	free(t);
}
