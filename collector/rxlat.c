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
#include <argtable2.h>
#include <bpf/libbpf.h>
#include "collector.h"
#include "log.h"
#include "report.h"

/* ---- options: one table drives parsing and --help ------------------- */

struct opts {
	struct arg_str *iface, *xdp_mode, *stamp, *stages, *attach, *output;
	struct arg_lit *no_xdp, *per_queue, *list_stages, *verbose, *help, *version;
	struct arg_dbl *interval, *duration;
	struct arg_int *max_ifaces, *max_queues;
	struct arg_end *end;
};

static int parse_choice(const char *opt, const char *val, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(val, names[i]))
			return i;
	rxlat_err("invalid value '%s' for %s: choose one of %s%s%s%s%s", val, opt, names[0],
		  n > 1 ? ", " : "", n > 1 ? names[1] : "", n > 2 ? ", " : "",
		  n > 2 ? names[2] : "");
	return -1;
}

static int parse_stages(const char *list, bool *stages)
{
	char buf[256], *tok, *save = NULL;

	if (strlen(list) >= sizeof(buf)) {
		rxlat_err("--stages: list too long");
		return -1;
	}
	strcpy(buf, list);
	memset(stages, 0, RXLAT_NR_STAGES * sizeof(*stages));
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int s = 0;

		while (s < RXLAT_NR_STAGES && strcmp(tok, rxlat_stage_names[s]))
			s++;
		if (s == RXLAT_NR_STAGES) {
			rxlat_err("unknown stage '%s' in --stages: see rxlat --list-stages", tok);
			return -1;
		}
		stages[s] = true;
	}
	return 0;
}

static void usage(FILE *f, void **table)
{
	fputs("Usage: rxlat", f);
	arg_print_syntaxv(f, table, "\n");
	fputs("Measure how long received packets spend in the network stack, per stage, "
	      "interface and receive queue.\n\n",
	      f);
	arg_print_glossary_gnu(f, table);
	fputs("\nStages:", f);
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		fprintf(f, "%s %s", s ? "," : "", rxlat_stage_names[s]);
	fputs(".\nBPF objects for xdp-loader and tc: " RXLAT_LIBDIR "\n"
	      "See rxlat(8).\n",
	      f);
}

/* 0: run; 1: exit 0 (help, version); -1: exit 1 */
static int parse_args(int argc, char **argv, struct rxlat_config *cfg)
{
	static const char *const xdp_modes[] = { "native", "skb" };
	static const char *const stamps[] = { "batch", "packet" };
	static const char *const attaches[] = { "auto", "fentry", "fallback" };
	static const char *const outputs[] = { "text", "json" };
	struct opts o = {
		.iface =
		    arg_strn("i", "interface", "IFACE", 0, RXLAT_MAX_CLI_IFACES,
			     "attach the XDP stamper to IFACE and report only it (repeatable)"),
		.xdp_mode =
		    arg_str0(NULL, "xdp-mode", "native|skb", "XDP attach mode (default: native)"),
		.no_xdp =
		    arg_lit0(NULL, "no-xdp", "use a stamper that xdp-loader attached, attach none"),
		.stamp = arg_str0(NULL, "stamp", "batch|packet",
				  "one stamp per NAPI poll (default, keeps GRO) or per packet"),
		.per_queue = arg_lit0(NULL, "per-queue", "one series per receive queue"),
		.stages = arg_str0(NULL, "stages", "LIST",
				   "comma-separated stages to attach (default: all)"),
		.attach = arg_str0(NULL, "attach", "auto|fentry|fallback",
				   "auto (default): fentry where the kernel allows it, else "
				   "the fallback; fentry: fentry only; fallback: no trampolines"),
		.interval = arg_dbl0("r", "interval", "SECONDS",
				     "report interval, fractions allowed (default: 1)"),
		.duration = arg_dbl0("d", "duration", "SECONDS",
				     "run time; 0 runs until SIGINT/SIGTERM (default: 0)"),
		.output = arg_str0("o", "output", "text|json",
				   "terminal histograms or JSON lines (default: text)"),
		.max_ifaces = arg_int0(NULL, "max-ifaces", "N",
				       "interfaces with a series of their own (default: 16)"),
		.max_queues = arg_int0(NULL, "max-queues", "N",
				       "queues with a series of their own (default: 16)"),
		.list_stages = arg_lit0(NULL, "list-stages",
					"print each stage's attach point on this kernel and exit"),
		.verbose = arg_lit0("v", "verbose", "print libbpf and verifier messages"),
		.help = arg_lit0("h", "help", "print this help and exit"),
		.version = arg_lit0("V", "version", "print the version and exit"),
		.end = arg_end(10),
	};
	void *table[] = { o.iface,	o.xdp_mode,   o.no_xdp,	     o.stamp,	 o.per_queue,
			  o.stages,	o.attach,     o.interval,    o.duration, o.output,
			  o.max_ifaces, o.max_queues, o.list_stages, o.verbose,	 o.help,
			  o.version,	o.end };
	const int ntable = sizeof(table) / sizeof(table[0]);
	int ret = -1, v;

	if (arg_nullcheck(table)) {
		rxlat_err("out of memory");
		goto out;
	}
	if (arg_parse(argc, argv, table) > 0) {
		fputs("rxlat: error: ", stderr);
		arg_print_errors(stderr, o.end, "");
		fputs("rxlat: see rxlat --help\n", stderr);
		goto out;
	}
	if (o.help->count) {
		usage(stdout, table);
		ret = 1;
		goto out;
	}
	if (o.version->count) {
		printf("rxlat %s (libbpf %s)\n", RXLAT_VERSION, libbpf_version_string());
		ret = 1;
		goto out;
	}

	cfg->verbose = o.verbose->count > 0;
	cfg->no_xdp = o.no_xdp->count > 0;
	cfg->per_queue = o.per_queue->count > 0;
	cfg->list_stages = o.list_stages->count > 0;
	cfg->interval_s = o.interval->count ? o.interval->dval[0] : 1.0;
	cfg->duration_s = o.duration->count ? o.duration->dval[0] : 0.0;
	cfg->max_ifaces =
	    o.max_ifaces->count ? (__u32)o.max_ifaces->ival[0] : RXLAT_MAX_IFACES_DEFAULT;
	cfg->max_queues =
	    o.max_queues->count ? (__u32)o.max_queues->ival[0] : RXLAT_MAX_QUEUES_DEFAULT;
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		cfg->stages[s] = true;

	if (!(cfg->interval_s >= 0.01 && cfg->interval_s <= 86400)) {
		rxlat_err("-r %g: the report interval must be between 0.01 and 86400 seconds",
			  cfg->interval_s);
		goto out;
	}
	if (!(cfg->duration_s >= 0 && cfg->duration_s <= 1e9)) {
		rxlat_err("-d %g: the run time must be 0 (until a signal) or a positive number "
			  "of seconds",
			  cfg->duration_s);
		goto out;
	}
	if (o.max_ifaces->count &&
	    (o.max_ifaces->ival[0] < 1 || o.max_ifaces->ival[0] > RXLAT_MAX_IFACES_LIMIT)) {
		rxlat_err("--max-ifaces must be between 1 and %d", RXLAT_MAX_IFACES_LIMIT);
		goto out;
	}
	if (o.max_queues->count &&
	    (o.max_queues->ival[0] < 1 || o.max_queues->ival[0] > RXLAT_MAX_QUEUES_LIMIT)) {
		rxlat_err("--max-queues must be between 1 and %d", RXLAT_MAX_QUEUES_LIMIT);
		goto out;
	}
	if (o.xdp_mode->count) {
		if ((v = parse_choice("--xdp-mode", o.xdp_mode->sval[0], xdp_modes, 2)) < 0)
			goto out;
		cfg->xdp_mode = v;
	}
	if (o.stamp->count) {
		if ((v = parse_choice("--stamp", o.stamp->sval[0], stamps, 2)) < 0)
			goto out;
		cfg->stamp = v == 1 ? RXLAT_STAMP_PACKET : RXLAT_STAMP_BATCH;
	}
	if (o.attach->count) {
		if ((v = parse_choice("--attach", o.attach->sval[0], attaches, 3)) < 0)
			goto out;
		cfg->attach = v;
	}
	if (o.output->count) {
		if ((v = parse_choice("-o", o.output->sval[0], outputs, 2)) < 0)
			goto out;
		cfg->output = v;
	}
	if (o.stages->count && parse_stages(o.stages->sval[0], cfg->stages))
		goto out;
	if (cfg->no_xdp && (o.xdp_mode->count || o.stamp->count)) {
		rxlat_err("--no-xdp uses a stamper loaded elsewhere: --xdp-mode and --stamp "
			  "do not apply");
		goto out;
	}
	for (int i = 0; i < o.iface->count; i++) {
		const char *name = o.iface->sval[i];

		if (strlen(name) >= IF_NAMESIZE || !(cfg->ifindexes[i] = if_nametoindex(name))) {
			rxlat_err("unknown interface '%s': see 'ip link' for the interfaces of "
				  "this network namespace",
				  name);
			goto out;
		}
		for (int j = 0; j < i; j++)
			if (cfg->ifindexes[j] == cfg->ifindexes[i]) {
				rxlat_err("interface '%s' named twice", name);
				goto out;
			}
		strcpy(cfg->ifnames[i], name);
		cfg->nifaces++;
	}
	if ((__u32)cfg->nifaces > cfg->max_ifaces) {
		rxlat_err("%d interfaces named but --max-ifaces is %u", cfg->nifaces,
			  cfg->max_ifaces);
		goto out;
	}
	ret = 0;
out:
	arg_freetable(table, ntable);
	return ret;
}

/* ---- reading the maps into reports ---------------------------------- */

struct collector {
	const struct rxlat_config *cfg;
	struct rxlat_hooks *hooks;
	struct rxlat_stamper *stamper;
	struct rxlat_hooks_info info;
	__u32 nr_series;
	struct rxlat_hist *prev; /* the maps as of the last report */
	__u32 *slot_ifindex;	 /* max_ifaces + 1 */
	struct rxlat_xdp_key *xdp_prev_keys;
	struct rxlat_xdp_counters *xdp_prev_vals;
	size_t xdp_nprev;
	struct timespec last; /* CLOCK_MONOTONIC of the last report */
};

static void series_name(const struct collector *c, __u32 slot, char *name, __u32 *ifindex)
{
	*ifindex = slot < c->cfg->max_ifaces ? c->slot_ifindex[slot] : 0;
	if (!*ifindex || !if_indextoname(*ifindex, name))
		snprintf(name, RXLAT_IFNAME_LEN, *ifindex ? "if%u" : "other", *ifindex);
}

/* The interval's part of series idx; the map's max for the ending epoch. */
static bool take_delta(struct collector *c, __u32 idx, int parity, struct rxlat_stats *d)
{
	struct rxlat_hist *live = &hooks_hists(c->hooks)[idx], cur, *prev = &c->prev[idx];
	bool any = false;

	memcpy(&cur, live, sizeof(cur));
	memset(d, 0, sizeof(*d));
	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++) {
		d->buckets[b] = cur.buckets[b] - prev->buckets[b];
		d->count += d->buckets[b];
	}
	for (int s = 0; s < RXLAT_NR_SOURCES; s++) {
		d->sources[s] = cur.sources[s] - prev->sources[s];
		any |= d->sources[s] != 0;
	}
	d->sum_ns = cur.sum_ns - prev->sum_ns;
	/* BPF now writes the other parity: this one is the interval's */
	d->max_ns = __atomic_exchange_n(&live->max_ns[parity], 0, __ATOMIC_SEQ_CST);
	*prev = cur;
	return any || d->count;
}

static int add_series(struct rxlat_series **v, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *p = realloc(*v, ncap * sizeof(**v));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = ncap;
	}
	memset(&(*v)[*n], 0, sizeof(**v));
	(*n)++;
	return 0;
}

static int collect_series(struct collector *c, int parity, struct rxlat_series **out, size_t *n)
{
	const struct rxlat_config *cfg = c->cfg;
	size_t cap = 0;
	int err = 0;

	*out = NULL;
	*n = 0;
	hooks_ifslots(c->hooks, c->slot_ifindex, cfg->max_ifaces);
	for (__u32 s = 0; s < RXLAT_NR_STAGES && !err; s++) {
		for (__u32 slot = 0; slot <= cfg->max_ifaces && !err; slot++) {
			struct rxlat_series *agg = NULL;

			if (slot < cfg->max_ifaces && !c->slot_ifindex[slot])
				continue;
			for (__u32 q = 0; q <= cfg->max_queues && !err; q++) {
				__u32 idx = rxlat_series_index(s, slot, q, cfg->max_ifaces,
							       cfg->max_queues);
				struct rxlat_stats d;
				struct rxlat_series *ser;

				if (!take_delta(c, idx, parity, &d))
					continue;
				if (!cfg->per_queue && agg) {
					rxlat_stats_add(&agg->st, &d);
					continue;
				}
				err = add_series(out, n, &cap);
				if (err)
					break;
				ser = &(*out)[*n - 1];
				ser->stage = s;
				series_name(c, slot, ser->ifname, &ser->ifindex);
				ser->queue = !cfg->per_queue	    ? RXLAT_QUEUE_ALL
					     : q == cfg->max_queues ? RXLAT_QUEUE_OTHER
								    : (int)q;
				ser->st = d;
				if (!cfg->per_queue)
					agg = ser;
			}
		}
	}
	return err;
}

static bool iface_wanted(const struct rxlat_config *cfg, __u32 ifindex)
{
	if (!cfg->nifaces)
		return true;
	for (int i = 0; i < cfg->nifaces; i++)
		if (cfg->ifindexes[i] == ifindex)
			return true;
	return false;
}

static int collect_xdp(struct collector *c, struct rxlat_xdp_row **out, size_t *nout)
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
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out) {
		err = -ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		struct rxlat_xdp_counters d = vals[i];
		struct rxlat_xdp_row *r;

		if (keys[i].ifindex && !iface_wanted(c->cfg, keys[i].ifindex))
			continue;
		for (size_t j = 0; j < c->xdp_nprev; j++)
			if (c->xdp_prev_keys[j].ifindex == keys[i].ifindex &&
			    c->xdp_prev_keys[j].rx_queue == keys[i].rx_queue) {
				d.seen -= c->xdp_prev_vals[j].seen;
				d.stamped -= c->xdp_prev_vals[j].stamped;
				d.meta_refused -= c->xdp_prev_vals[j].meta_refused;
			}
		if (!d.seen && !d.stamped && !d.meta_refused)
			continue;
		r = &(*out)[(*nout)++];
		r->ifindex = keys[i].ifindex;
		r->queue = (int)keys[i].rx_queue;
		if (!r->ifindex || !if_indextoname(r->ifindex, r->ifname))
			snprintf(r->ifname, sizeof(r->ifname), r->ifindex ? "if%u" : "other",
				 r->ifindex);
		r->seen = d.seen;
		r->stamped = d.stamped;
		r->meta_refused = d.meta_refused;
	}
done:
	free(c->xdp_prev_keys);
	free(c->xdp_prev_vals);
	c->xdp_prev_keys = keys;
	c->xdp_prev_vals = vals;
	c->xdp_nprev = n;
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

	err = collect_series(c, old_epoch & 1, &series, &r.nseries);
	if (!err)
		err = collect_xdp(c, &xdp, &r.nxdp);
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

static int run_loop(struct collector *c)
{
	int ep = -1, sfd = -1, tick = -1, stop = -1, err;
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	ep = epoll_create1(EPOLL_CLOEXEC);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	tick = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (ep < 0 || sfd < 0 || tick < 0) {
		err = -errno;
		goto out;
	}
	err = arm_timer(tick, c->cfg->interval_s, true);
	if (err)
		goto out;
	ev.data.fd = sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.fd = tick;
	epoll_ctl(ep, EPOLL_CTL_ADD, tick, &ev);
	if (c->cfg->duration_s > 0) {
		stop = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (stop < 0 || (err = arm_timer(stop, c->cfg->duration_s, false))) {
			err = err ? err : -errno;
			goto out;
		}
		ev.data.fd = stop;
		epoll_ctl(ep, EPOLL_CTL_ADD, stop, &ev);
	}

	for (;;) {
		struct epoll_event evs[4];
		int n = epoll_wait(ep, evs, 4, -1);
		bool done = false;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		for (int i = 0; i < n; i++) {
			__u64 ticks;

			if (evs[i].data.fd == tick) {
				if (read(tick, &ticks, sizeof(ticks)) < 0)
					continue;
				err = report(c, false);
				if (err)
					done = true;
			} else {
				done = true; /* signal or run time over */
			}
		}
		if (done)
			break;
	}
	if (!err)
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

	err = parse_args(argc, argv, &cfg);
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
		if (err == -ENOENT)
			return 1;
		print_plan(&cfg, &c.info, stdout, "");
		return 0;
	}
	if (geteuid() != 0)
		rxlat_info("not running as root: loading BPF programs will likely be refused");

	if (cfg.nifaces && !cfg.no_xdp)
		err = stamper_attach(&c.stamper, &cfg);
	else if (cfg.no_xdp)
		err = stamper_find(&c.stamper, false);
	else if (stamper_find(&c.stamper, true))
		rxlat_info("no XDP stamper attached (no -i given and none loaded): only "
			   "kernel receive timestamps can be measured");
	if (err)
		goto out;

	err = hooks_attach(&c.hooks, &cfg, &c.info);
	if (err)
		goto out;
	print_plan(&cfg, &c.info, stderr, "rxlat: stage ");
	rxlat_info("map memory: %.1f KiB (%u series: %d stages x %u interface slots x %u "
		   "queue slots, %zu bytes each)",
		   hooks_map_bytes(c.hooks) / 1024.0,
		   rxlat_nr_series(cfg.max_ifaces, cfg.max_queues), RXLAT_NR_STAGES,
		   cfg.max_ifaces + 1, cfg.max_queues + 1, sizeof(struct rxlat_hist));

	c.nr_series = rxlat_nr_series(cfg.max_ifaces, cfg.max_queues);
	c.prev = calloc(c.nr_series, sizeof(*c.prev));
	c.slot_ifindex = calloc(cfg.max_ifaces + 1, sizeof(*c.slot_ifindex));
	if (!c.prev || !c.slot_ifindex) {
		err = -ENOMEM;
		goto out;
	}
	/*
	 * The first report starts here: what the hooks saw while starting (the
	 * loopback datagram of the UDP read check, say) is not the user's.
	 */
	for (__u32 i = 0; i < c.nr_series; i++) {
		struct rxlat_hist *h = &hooks_hists(c.hooks)[i];

		memcpy(&c.prev[i], h, sizeof(*h));
		__atomic_store_n(&h->max_ns[0], 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&h->max_ns[1], 0, __ATOMIC_SEQ_CST);
	}
	clock_gettime(CLOCK_MONOTONIC, &c.last);
	err = run_loop(&c);
out:
	/* links are closed here; the kernel detaches them even if we die */
	hooks_destroy(c.hooks);
	stamper_destroy(c.stamper);
	free(c.prev);
	free(c.slot_ifindex);
	free(c.xdp_prev_keys);
	free(c.xdp_prev_vals);
	return err ? 1 : 0;
}
