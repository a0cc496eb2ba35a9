// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat: how long received packets spend inside the network stack, per
 * stage, interface and receive queue.
 *
 * One epoll set drives the run: a signalfd for a clean shutdown (the final
 * report is printed on SIGINT/SIGTERM too), a timerfd for reports and one
 * for the run time.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "collect.h"
#include "collector.h"
#include "log.h"
#include "options.h"
#include "report.h"

struct collector {
	const struct rxlat_config *cfg;
	struct rxlat_hooks *hooks;
	struct rxlat_stamper *stamper;
	struct rxlat_hooks_info info;
	struct rxlat_collect col;
	__u32 *slot_ifindex;  /* max_ifaces */
	struct timespec last; /* CLOCK_MONOTONIC of the last report */
};

/* The stamper's counters over the interval; none without a stamper. */
static int collect_stamper(struct collector *c, struct rxlat_xdp_row **out, size_t *nout)
{
	struct rxlat_xdp_key *keys;
	struct rxlat_xdp_counters *vals;
	size_t n;
	int err;

	*out = NULL;
	*nout = 0;
	if (!c->stamper)
		return 0;
	err = stamper_counters(c->stamper, &keys, &vals, &n);
	if (err)
		return err;
	err = collect_xdp(&c->col, keys, vals, n, out, nout);
	free(keys);
	free(vals);
	return err;
}

static int report(struct collector *c, bool final)
{
	struct rxlat_report r = { .final = final };
	struct rxlat_series *series = NULL;
	struct rxlat_xdp_row *xdp = NULL;
	struct timespec now;
	__u64 old_epoch;
	int err;

	hooks_new_epoch(c->hooks, &old_epoch);
	clock_gettime(CLOCK_MONOTONIC, &now);
	clock_gettime(CLOCK_REALTIME, &r.time);
	r.interval_s = (now.tv_sec - c->last.tv_sec) + (now.tv_nsec - c->last.tv_nsec) / 1e9;
	c->last = now;

	hooks_ifslots(c->hooks, c->slot_ifindex, c->cfg->max_ifaces);
	err = collect_series(&c->col, hooks_hists(c->hooks), c->slot_ifindex, old_epoch & 1,
			     &series, &r.nseries);
	if (!err)
		err = collect_stamper(c, &xdp, &r.nxdp);
	if (err) {
		rxlat_err("reading the maps failed: %s", strerror(-err));
		goto out;
	}
	r.series = series;
	r.xdp = xdp;
	memcpy(r.attach, c->info.attach, sizeof(r.attach));
	memcpy(r.unavailable, c->info.unavailable, sizeof(r.unavailable));
	err = c->cfg->output == RXLAT_OUT_JSON ? rxlat_report_json(stdout, &r)
					       : rxlat_report_text(stdout, &r);
	fflush(stdout);
out:
	free(series);
	free(xdp);
	return err;
}

/* ---- setup and the main loop ---------------------------------------- */

static void print_plan(const struct rxlat_config *cfg, const struct rxlat_hooks_info *info, FILE *f,
		       const char *prefix)
{
	for (int s = 0; s < RXLAT_NR_STAGES; s++) {
		if (!cfg->stages[s])
			continue;
		if (info->attach[s] && info->fallback_why[s])
			fprintf(f, "%s%-15s %s (fallback: %s)\n", prefix, rxlat_stage_names[s],
				info->attach[s], info->fallback_why[s]);
		else if (info->attach[s])
			fprintf(f, "%s%-15s %s\n", prefix, rxlat_stage_names[s], info->attach[s]);
		else
			fprintf(f, "%s%-15s unavailable: %s\n", prefix, rxlat_stage_names[s],
				info->unavailable[s]);
	}
}

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

static int run_loop(struct collector *c)
{
	int ep = -1, sfd = -1, tick = -1, stop = -1, err;
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	/* blocked, the signals wait in the signalfd for the loop to read them */
	if (sigprocmask(SIG_BLOCK, &mask, NULL)) {
		err = -errno;
		rxlat_err("sigprocmask: %s", strerror(-err));
		return err;
	}

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0) {
		err = -errno;
		rxlat_err("epoll_create1: %s", strerror(-err));
		goto out;
	}
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		err = -errno;
		rxlat_err("signalfd: %s", strerror(-err));
		goto out;
	}
	tick = new_timer(c->cfg->interval_s, true);
	if (tick < 0) {
		err = tick;
		goto out;
	}
	err = watch(ep, sfd);
	if (!err)
		err = watch(ep, tick);
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

	for (bool done = false; !done;) {
		struct epoll_event evs[4];
		int n = epoll_wait(ep, evs, 4, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			rxlat_err("epoll_wait: %s", strerror(-err));
			goto out;
		}
		for (int i = 0; i < n && !err; i++) {
			struct signalfd_siginfo si;
			__u64 ticks;

			if (evs[i].data.fd == tick) {
				err = drain(tick, &ticks, sizeof(ticks), "report timer");
				if (!err)
					err = report(c, false);
			} else if (evs[i].data.fd == sfd) {
				/* SIGINT, SIGTERM, SIGHUP: all end the run with a report */
				err = drain(sfd, &si, sizeof(si), "signalfd");
				done = true;
			} else {
				/* the run time is over */
				err = drain(stop, &ticks, sizeof(ticks), "run timer");
				done = true;
			}
		}
		if (err)
			goto out;
	}
	err = report(c, true);
out:
	if (stop >= 0)
		close(stop);
	if (tick >= 0)
		close(tick);
	if (sfd >= 0)
		close(sfd);
	if (ep >= 0)
		close(ep);
	return err;
}

int main(int argc, char **argv)
{
	struct rxlat_config cfg = {};
	struct collector c = {};
	int err;

	err = options_parse(argc, argv, &cfg);
	if (err)
		return err > 0 ? 0 : 1;
	rxlat_log_init(cfg.verbose);
	c.cfg = &cfg;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		rxlat_err("/sys/kernel/btf/vmlinux is missing: rxlat needs a kernel built with "
			  "CONFIG_DEBUG_INFO_BTF=y");
		return 1;
	}
	if (cfg.list_stages) {
		err = hooks_plan(&cfg, &c.info);
		if (err == -ENOENT || err == -EPERM)
			return 1;
		print_plan(&cfg, &c.info, stdout, "");
		return 0;
	}
	if (geteuid() != 0)
		rxlat_info("not running as root: loading BPF programs will likely be refused");

	/* first: a run that could measure nothing is refused before any XDP */
	err = hooks_attach(&c.hooks, &cfg, &c.info);
	if (err)
		goto out;
	if (cfg.nifaces && !cfg.no_xdp)
		err = stamper_attach(&c.stamper, &cfg);
	else if (cfg.no_xdp)
		err = stamper_find(&c.stamper, false);
	else if (stamper_find(&c.stamper, true))
		rxlat_info("no XDP stamper attached (no -i given and none loaded): only "
			   "kernel receive timestamps can be measured");
	if (err)
		goto out;
	print_plan(&cfg, &c.info, stderr, "rxlat: stage ");
	rxlat_info("map memory: %.1f KiB (%u series: %d stages x %u interface slots x %u "
		   "queue slots, %zu bytes each)",
		   hooks_map_bytes(c.hooks) / 1024.0,
		   rxlat_nr_series(cfg.max_ifaces, cfg.max_queues), RXLAT_NR_STAGES,
		   cfg.max_ifaces + 1, cfg.max_queues + 1, sizeof(struct rxlat_hist));

	err = collect_init(&c.col, cfg.max_ifaces, cfg.max_queues, cfg.per_queue, cfg.ifindexes,
			   cfg.nifaces);
	c.slot_ifindex = calloc(cfg.max_ifaces, sizeof(*c.slot_ifindex));
	if (err || !c.slot_ifindex) {
		err = -ENOMEM;
		goto out;
	}
	/*
	 * The first report starts here: what the hooks saw while starting (the
	 * loopback datagram of the UDP read check, say) is not the user's.
	 */
	collect_start(&c.col, hooks_hists(c.hooks));
	clock_gettime(CLOCK_MONOTONIC, &c.last);
	err = run_loop(&c);
out:
	/* links are closed here; the kernel detaches them even if we die */
	hooks_destroy(c.hooks);
	stamper_destroy(c.stamper);
	collect_free(&c.col);
	free(c.slot_ifindex);
	return err ? 1 : 0;
}
