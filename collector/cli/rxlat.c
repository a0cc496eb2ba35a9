// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat: how long received packets spend inside the network stack, per
 * stage, interface and receive queue.
 *
 * One epoll set drives the run: an eventfd the stop signals write (the
 * final report is printed on SIGINT/SIGTERM too), a timerfd for reports and
 * one for the run time, and rtnetlink's link messages, to follow the named
 * interfaces when they go and come back.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "caps.h"
#include "ifaces.h"
#include "config.h"
#include "model.h"
#include "hooks.h"
#include "stamper.h"
#include "stamping.h"
#include "tc.h"
#include "drops.h"
#include "heatmap_live.h"
#include "startup.h"
#include "links.h"
#include "log.h"
#include "options.h"
#include "output.h"
#include "prom.h"
#include "report.h"
#include "signals.h"
#include "slow.h"
#include "slow_render.h"
#include "groups.h"
#include "run.h"

/*
 * Histogram chunks ahead of the series the hooks claim, and a word when
 * samples found none (past the memory limit, or many new series at once).
 */
static void grow(struct rxlat_run *c)
{
	int err = hooks_grow(c->hooks);
	__u64 lost = hooks_series_lost(c->hooks);

	if (err && err != -ENOSPC)
		rxlat_err("cannot create a histogram chunk: %s", strerror(-err));
	err = hooks_clock(c->hooks);
	if (err)
		rxlat_err("cannot give the hooks the realtime clock's offset: %s", strerror(-err));
	if (lost > c->lost_told) {
		rxlat_info("%llu samples found no histogram (series past the %u MiB map memory "
			   "limit, or many new ones at once): not in any report",
			   (unsigned long long)lost, RXLAT_HISTS_BYTES_LIMIT >> 20);
		c->lost_told = lost;
	}
}

/* --slow: the records waiting in the ring buffer, to stdout. */
static int flush_slow(struct rxlat_run *c, bool final)
{
	char *buf = NULL;
	size_t len = 0;
	int err;

	if (!c->slow)
		return 0;
	err = slow_consume(c->slow, &buf, &len);
	if (!err && len)
		err = out_write(&c->out, buf, len, final);
	free(buf);
	if (err == -EINTR)
		return 0; /* a stop signal: the final report comes next */
	if (err)
		rxlat_err("cannot write the slow records to stdout: %s", strerror(-err));
	return err;
}

/* --slow: the interval's counts into r */
static void slow_counts(struct rxlat_run *c, struct rxlat_report *r)
{
	__u64 n[3];

	if (!c->slow || model_report_slow(c->model, n))
		return;
	r->slow_on = true;
	r->slow_sent = n[0];
	r->slow_suppressed = n[1];
	r->slow_lost = n[2];
}

static int report_out(struct rxlat_run *c, bool final)
{
	struct rxlat_report r = { .final = final };
	struct rxlat_xdp_row *xdp = NULL;
	struct rxlat_drop_row *drops = NULL;
	struct timespec now;
	char *buf = NULL;
	size_t len = 0;
	__u64 old_epoch;
	int err;

	grow(c);
	hooks_new_epoch(c->hooks, &old_epoch);
	/* -o none: the epoch still advances, which refreshes the clock offset */
	if (c->cfg->output == RXLAT_OUT_NONE && !c->heat)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	clock_gettime(CLOCK_REALTIME, &r.time);
	r.interval_s = (now.tv_sec - c->last.tv_sec) + (now.tv_nsec - c->last.tv_nsec) / 1e9;
	c->last = now;

	/* the interval's records before its report, and the counts after them */
	err = flush_slow(c, final);
	if (err)
		return err;
	slow_counts(c, &r);
	/* the series are taken as the report is rendered: see model_report_next() */
	r.series = model_report_begin(c->model, old_epoch & 1);
	err = r.series ? model_report_xdp(c->model, &xdp, &r.nxdp) : -ENOMEM;
	if (!err && c->drops) {
		err = model_report_drops(c->model, &drops, &r.ndrops);
		r.drops_on = true;
		r.drops_lost = model_report_drops_lost(c->model);
	}
	if (err) {
		rxlat_err("reading the maps failed: %s", strerror(-err));
		goto out;
	}
	r.xdp = xdp;
	r.drops = drops;
	memcpy(r.attach, c->info.attach, sizeof(r.attach));
	r.from = c->cfg->bpf.from;
	memcpy(r.unavailable, c->info.unavailable, sizeof(r.unavailable));
	memcpy(r.coverage, c->info.coverage, sizeof(r.coverage));
	r.unreached = ifaces_unreached(c->ifaces);
	err = heatmap_live_begin(c->heat, &r);
	if (!err && c->cfg->output == RXLAT_OUT_NONE) {
		err = heatmap_live_end(c->heat, &r);
		goto out;
	}
	if (!err)
		err = out_render(&c->out, &r, &buf, &len);
	if (err) {
		rxlat_err("cannot format the report: %s", strerror(-err));
		goto out;
	}
	err = out_write(&c->out, buf, len, final);
	if (err == -EINTR) {
		if (final)
			rxlat_info("the final report was not written: stdout took nothing for 1 s");
		err = 0;
	} else if (err) {
		rxlat_err("cannot write the report to stdout: %s", strerror(-err));
	}
	if (!err)
		err = heatmap_live_end(c->heat, &r);
out:
	model_iter_free(r.series);
	free(xdp);
	free(drops);
	return err;
}

static void retire(void *ctx, __u32 slot)
{
	struct rxlat_run *c = ctx;

	model_retire_slot(c->model, slot);
}

/*
 * After each report (its series have the last samples of interfaces gone
 * by then): the slots of interfaces that are gone are released, and a word
 * once when interfaces found every slot taken.
 */
static void retire_group(void *ctx, __u32 slot)
{
	struct rxlat_run *c = ctx;

	model_retire_group(c->model, slot);
}

/* Samples in the overflow slot of dimension d, all stages. */
static __u64 overflow(const struct rxlat_run *c, enum model_dim_id d)
{
	__u64 other = 0;

	for (__u32 st = 0; st < RXLAT_NR_STAGES; st++)
		other += model_total_overflow(c->model, d, st);
	return other;
}

static void tend_slots(struct rxlat_run *c)
{
	__u64 other;

	if (ifaces_release_gone(c->ifaces, retire, c) < 0)
		rxlat_debug("out of memory releasing the slots of deleted interfaces");
	if (groups_release_gone(c->groups, retire_group, c) < 0)
		rxlat_debug("cannot list the network namespaces in use: no group released");
	if (c->groups && !c->told_groups_full && overflow(c, MODEL_DIM_GROUP)) {
		rxlat_warn("every group slot is taken: namespaces or cgroups past %s %u are "
			   "reported as netns=\"other\" until one of theirs is gone; raise %s",
			   opt(OPT_MAX_GROUPS), c->cfg->bpf.max_groups, opt(OPT_MAX_GROUPS));
		c->told_groups_full = true;
	}
	ifaces_tell_foreign(c->ifaces);
	if (c->told_full)
		return;
	other = overflow(c, MODEL_DIM_IFACE);
	if (!other)
		return;
	c->told_full = true;
	if (c->cfg->nifaces) { /* only stamps of other namespaces claim slots */
		rxlat_warn("every interface slot is taken: stamps of other network namespaces "
			   "past %s %u are reported as \"other\"; raise %s",
			   opt(OPT_MAX_IFACES), c->cfg->bpf.max_ifaces, opt(OPT_MAX_IFACES));
		return;
	}
	rxlat_warn("every interface slot is taken: interfaces past %s %u are reported as "
		   "\"other\" until one of theirs is deleted; raise %s",
		   opt(OPT_MAX_IFACES), c->cfg->bpf.max_ifaces, opt(OPT_MAX_IFACES));
}

/*
 * Drivers that refuse XDP metadata (ifaces_check_meta()), from the
 * stamper's counters as the model reads them: checked every tick until
 * each named interface has had packets, at each report after that.
 * CAP_NET_ADMIN, kept for a switch to a cls_bpf filter, goes once no
 * interface is left to switch.
 */
static int check_meta(struct rxlat_run *c)
{
	struct rxlat_xdp_key *keys = NULL;
	struct rxlat_xdp_counters *vals = NULL;
	size_t n = 0;
	int r = 0;

	if (ifaces_meta_watched(c->ifaces)) {
		if (model_stamper_now(c->model, &keys, &vals, &n))
			r = 1; /* out of memory, or a map read failed: at the next check */
		else
			r = ifaces_check_meta(c->ifaces, keys, vals, n);
		free(keys);
		free(vals);
	}

	if (r < 0)
		return r;
	c->meta_pending = r > 0;
	return 0;
}

/*
 * --no-xdp reads a stamper that someone else attached: when it goes away
 * (that rxlat or xdp-loader let go), the samples lose their XDP stamps. Said
 * once when it happens, and once when an XDP program runs there again.
 */
static void tend_found_stamper(struct rxlat_run *c)
{
	__u32 now = 0, gone = c->cfg->no_xdp ? stamper_found_gone(c->stamper, &now) : 0;
	char name[IF_NAMESIZE];

	if (!gone)
		return;
	if (!if_indextoname(gone, name))
		snprintf(name, sizeof(name), "if%u", gone);
	if (gone != c->stamps_gone) {
		rxlat_warn(
		    "the XDP stamper on %s is gone (whoever attached it let go): from now "
		    "on its packets have no XDP stamp; stop this rxlat and run 'rxlat %s %s' "
		    "to attach one of its own",
		    name, opt_short(OPT_INTERFACE), name);
		c->stamps_gone = gone;
	}
	if (!now)
		return;
	rxlat_info("an XDP program runs on %s again (id %u): when it is an rxlat stamper, "
		   "its stamps are measured again",
		   name, now);
	stamper_found_adopt(c->stamper, gone, now);
	c->stamps_gone = 0;
}

static int report(struct rxlat_run *c, bool final)
{
	int err = report_out(c, final);

	tend_slots(c);
	tend_found_stamper(c);
	return err || final ? err : check_meta(c);
}

/* ---- setup and the main loop ---------------------------------------- */

static int arm_timer(int fd, double seconds, bool repeat)
{
	struct itimerspec its = {};

	its.it_value.tv_sec = (time_t)seconds;
	its.it_value.tv_nsec = (long)((seconds - floor(seconds)) * 1e9);
	if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
		its.it_value.tv_nsec = 1;
	if (repeat)
		its.it_interval = its.it_value;
	return timerfd_settime(fd, 0, &its, NULL) ? -errno : 0;
}

/* Adds fd to the epoll set; 0, or -errno with the error printed. */
static int watch(int ep, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)) {
		int err = -errno;

		rxlat_err("epoll_ctl: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* A new timerfd armed for seconds, or -errno with the error printed. */
static int new_timer(double seconds, bool repeat)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC), err;

	if (fd < 0) {
		err = -errno;
		rxlat_err("timerfd_create: %s", strerror(-err));
		return err;
	}
	err = arm_timer(fd, seconds, repeat);
	if (err) {
		rxlat_err("timerfd_settime: %s", strerror(-err));
		close(fd);
		return err;
	}
	return fd;
}

/* Consumes a readable fd's event (timer expirations, signal info): 0 or -errno. */
static int drain(int fd, void *buf, size_t len, const char *what)
{
	ssize_t n = read(fd, buf, len);

	if (n == (ssize_t)len)
		return 0;
	if (n < 0 && errno == EINTR)
		return 0;
	rxlat_err("reading the %s: %s", what, n < 0 ? strerror(errno) : "short read");
	return n < 0 ? -errno : -EIO;
}

static int run_loop(struct rxlat_run *c)
{
	int ep = -1, tick = -1, stop = -1, sfd = signals_fd(), lfd = links_fd(c->links), err;
	int grow_tick = -1;
	int pfd = prom_fd(c->prom);

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0) {
		err = -errno;
		rxlat_err("epoll_create1: %s", strerror(-err));
		goto out;
	}
	tick = new_timer(c->cfg->interval_s, true);
	if (tick < 0) {
		err = tick;
		goto out;
	}
	/* new series between reports get their chunks within a tick */
	grow_tick = new_timer(RXLAT_TICK_S, true);
	if (grow_tick < 0) {
		err = grow_tick;
		goto out;
	}
	err = watch(ep, sfd);
	if (!err)
		err = watch(ep, grow_tick);
	if (!err)
		err = watch(ep, lfd);
	if (!err)
		err = watch(ep, tick);
	if (!err && pfd >= 0)
		err = watch(ep, pfd);
	if (!err && c->slow)
		err = watch(ep, slow_fd(c->slow));
	if (err)
		goto out;
	if (c->cfg->duration_s > 0) {
		stop = new_timer(c->cfg->duration_s, false);
		if (stop < 0) {
			err = stop;
			goto out;
		}
		err = watch(ep, stop);
		if (err)
			goto out;
	}

	for (bool done = false; !done && !signals_stop();) {
		struct epoll_event evs[4];
		int n = epoll_wait(ep, evs, 4, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			rxlat_err("epoll_wait: %s", strerror(-err));
			goto out;
		}
		for (int i = 0; i < n && !err && !signals_stop(); i++) {
			__u64 ticks;

			if (evs[i].data.fd == tick) {
				err = drain(tick, &ticks, sizeof(ticks), "report timer");
				if (!err)
					err = report(c, false);
			} else if (evs[i].data.fd == grow_tick) {
				err = drain(grow_tick, &ticks, sizeof(ticks), "chunk timer");
				if (!err)
					grow(c);
				groups_tend(c->groups);
				if (!err && c->meta_pending)
					err = check_meta(c);
			} else if (evs[i].data.fd == lfd) {
				err = ifaces_handle_links(c->ifaces);
			} else if (evs[i].data.fd == pfd) {
				err = prom_handle(c->prom);
			} else if (c->slow && evs[i].data.fd == slow_fd(c->slow)) {
				err = flush_slow(c, false);
			} else if (evs[i].data.fd == stop) {
				/* the run time is over */
				err = drain(stop, &ticks, sizeof(ticks), "run timer");
				done = true;
			}
			/* sfd: a stop signal, seen by signals_stop() */
		}
		if (err)
			goto out;
	}
	/* a stop signal: stdout gets a second to take the final report */
	if (signals_stop())
		signals_deadline(1);
	err = report(c, true);
	alarm(0);
out:
	if (stop >= 0)
		close(stop);
	if (tick >= 0)
		close(tick);
	if (grow_tick >= 0)
		close(grow_tick);
	if (ep >= 0)
		close(ep);
	return err;
}

/* Between the steps of start-up: true (and said) when a stop signal came. */
static bool stopped(void)
{
	if (!signals_stop())
		return false;
	rxlat_info("SIG%s during start-up: stopped before the first report",
		   sigabbrev_np(signals_stop()));
	return true;
}

/* Everything attached: from here every report covers its own interval. */
static int start_measuring(struct rxlat_run *c)
{
	int err;

	/*
	 * removing a cls_bpf filter at exit takes CAP_NET_ADMIN, adding one
	 * too, and so does turning back on an offload that XDP turned off
	 */
	c->meta_pending = true;
	err = caps_drop(tc_netlink(c->tc) || stamper_restores(c->stamper));
	if (err)
		return err;
	/* interfaces deleted while rxlat started */
	err = ifaces_handle_links(c->ifaces);
	if (err)
		return err;
	/*
	 * Every map's baseline at the same moment: what was seen while
	 * starting (the loopback datagram of the UDP read check, packets
	 * stamped before the hooks were attached, a loaded stamper's history)
	 * is not the user's.
	 */
	err = new_model(c);
	if (err)
		return err;
	err = model_start(c->model);
	if (err) {
		rxlat_err("reading the maps failed: %s", strerror(-err));
		return err;
	}
	if (c->slow) {
		char *buf = NULL;
		size_t len;

		/* records of the start-up belong to nobody's interval */
		slow_consume(c->slow, &buf, &len);
		free(buf);
	}
	if (c->prom) {
		err = prom_start(c->prom, c->model, c->info.attach, c->info.coverage,
				 ifaces_unreached(c->ifaces));
		if (err)
			return err;
	}
	clock_gettime(CLOCK_MONOTONIC, &c->last);
	return 0;
}

/* The readers beside the hooks: --by's groups, --drops' reasons, --slow's ring. */
static int open_readers(struct rxlat_run *c)
{
	const struct rxlat_config *cfg = c->cfg;
	int err;

	if (cfg->bpf.by != RXLAT_BY_NONE && groups_new(&c->groups, cfg, c->hooks)) {
		rxlat_err("out of memory");
		return -ENOMEM;
	}
	if (cfg->drops) {
		err = drops_open(&c->drops);
		if (err) {
			rxlat_err("%s: cannot read the kernel's drop reasons from its BTF (enum "
				  "skb_drop_reason): %s",
				  opt(OPT_DROPS), strerror(-err));
			return err;
		}
	}
	if (cfg->bpf.slow_ns) {
		err = slow_open(&c->slow, hooks_slow_fd(c->hooks), slow_render,
				cfg->output == RXLAT_OUT_JSON, c->ifaces, c->drops);
		if (err) {
			rxlat_err("%s: cannot read the ring buffer: %s", opt(OPT_SLOW),
				  strerror(-err));
			return err;
		}
	}
	return 0;
}

/* A step of start-up's outcome: err, or -EINTR when a stop signal came (said). */
static int step(int err)
{
	return stopped() && !err ? -EINTR : err;
}

/*
 * The stampers: XDP on the interfaces that get it (or the one xdp-loader
 * attached), tc on the others, bound to their interfaces.
 */
static int attach_stampers(struct rxlat_run *c)
{
	int err = 0;

	if (stamping_attaches_xdp(c->stamping))
		err = stamping_attach_xdp(c->stamping, &c->stamper);
	else if (c->cfg->no_xdp)
		err = stamper_find(&c->stamper, false);
	else if (stamper_find(&c->stamper, true) && !stamping_any_tc(c->stamping))
		no_stamper(c->cfg, &c->info);
	/* a load cut short by the signal (EAGAIN, EINTR) is no error of its own */
	err = step(err);
	if (err)
		return err;
	ifaces_bind(c->ifaces, c->hooks, c->stamping, c->stamper, &c->tc, c->links);
	err = step(ifaces_attach_tc(c->ifaces));
	if (err)
		return err;
	links_track_addrs(c->links, tc_addrs_fd(c->tc));
	ifaces_warn_down(c->ifaces);
	return 0;
}

/*
 * Everything attached, in the order that refuses a run before it touches a
 * device: the links subscribed first (a named interface deleted while
 * starting is seen), then the hooks (a run that could measure nothing is
 * refused before any XDP), the readers, the stampers.
 */
static int start(struct rxlat_run *c)
{
	int err = step(links_open(&c->links));

	if (!err)
		err = step(hooks_attach(&c->hooks, c->cfg, &c->info));
	if (!err && skb_mode_wait(c->cfg, &c->info))
		err = -EOPNOTSUPP;
	if (!err)
		err = open_readers(c);
	if (!err)
		err = attach_stampers(c);
	if (!err)
		err = step(start_measuring(c));
	return err;
}

/* Said once everything is attached: the plan as it came out, and the map memory. */
static void say_started(const struct rxlat_run *c)
{
	const struct rxlat_config *cfg = c->cfg;

	print_plan(cfg, &c->info, stderr, "rxlat: stage ", NULL);
	if (stamping_any_tc(c->stamping) && c->info.attach[RXLAT_STAGE_IP_RCV] &&
	    strstr(c->info.attach[RXLAT_STAGE_IP_RCV], "netif_receive_skb"))
		rxlat_info("ip_rcv is measured before tc ingress here (its fallback, tp_btf "
			   "netif_receive_skb): packets stamped at tc count there as none, and "
			   "are measured from the next stage on");
	if (hooks_ooo_unknown(c->hooks))
		rxlat_info("this kernel's tracing programs have no socket storage (5.11): %s "
			   "counts TCP reads held behind out-of-order data, as with %s",
			   rxlat_stage_names[RXLAT_STAGE_SOCK_READ], opt(OPT_INCLUDE_OOO));
	rxlat_info("map memory: %.1f KiB (%u series: %d stages x %u group slots x %u interface "
		   "slots x %u queue slots, %zu bytes each, made as they come into use, in chunks "
		   "of %u)",
		   hooks_map_bytes(c->hooks) / 1024.0, rxlat_nr_series(rxlat_config_dims(cfg)),
		   RXLAT_NR_STAGES, rxlat_group_slots(cfg->bpf.max_groups), cfg->bpf.max_ifaces + 1,
		   cfg->bpf.max_queues + 1, sizeof(struct rxlat_hist), RXLAT_CHUNK_SERIES);
}

/* Everything closed, whatever was opened; the exit status of err. */
static int finish(struct rxlat_run *c, int err)
{
	/* links are closed here; the kernel detaches them even if we die */
	prom_close(c->prom);
	slow_close(c->slow);
	drops_close(c->drops);
	hooks_destroy(c->hooks);
	tc_destroy(c->tc);
	stamper_destroy(c->stamper);
	links_close(c->links);
	groups_free(c->groups);
	model_free(c->model);
	ifaces_free(c->ifaces);
	stamping_free(c->stamping);
	out_free(&c->out);
	heatmap_live_close(c->heat);
	return err && !signals_stop() ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct rxlat_config cfg = {};
	struct rxlat_run c = {};
	int err;

	if (check_std_fds() || signals_init())
		return 1;
	err = options_parse(argc, argv, &cfg);
	if (err)
		return err > 0 ? 0 : 1;
	rxlat_log_init(cfg.verbose);
	cfg.bpf.netns_ino = netns_self();
	c.cfg = &cfg;
	c.out.json = cfg.output == RXLAT_OUT_JSON;
	if (ifaces_new(&c.ifaces, &cfg) || stamping_new(&c.stamping, &cfg)) {
		ifaces_free(c.ifaces);
		return 1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		rxlat_err("/sys/kernel/btf/vmlinux is missing: rxlat needs a kernel built with "
			  "CONFIG_DEBUG_INFO_BTF=y");
		return 1;
	}
	if (cfg.list_stages)
		return list_stages(&cfg, &c.info);
	if (caps_check())
		return 1;
	/* the port first: one in use is refused before anything is attached */
	err = prom_open(&c.prom, &cfg);
	if (err || heatmap_live_open(&c.heat, &cfg)) {
		prom_close(c.prom);
		return 1;
	}
	err = start(&c);
	if (!err) {
		say_started(&c);
		err = run_loop(&c);
	}
	return finish(&c, err);
}
