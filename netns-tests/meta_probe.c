// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat-meta-probe --dev IF --seconds S: attaches meta_probe.bpf.o (tc
 * ingress on IF, tp_btf/napi_poll) for S seconds, then prints one summary
 * line of key=value pairs about the stamps the XDP stamper left:
 *
 *   packets           packets with an rxlat_meta right before the MAC header
 *   distinct_stamps   distinct (CPU, stamp) pairs among them
 *   polls_multi       NAPI polls that carried two packets or more
 *   polls_mixed       of those, polls whose packets had more than one stamp
 *   polls_multi_tickless, polls_mixed_tickless
 *                     the same two counts restricted to polls during which
 *                     jiffies did not move (see tick_free())
 *   no_meta, bad_magic, lost
 *                     packets without a usable struct, events the ring
 *                     buffer dropped (non-zero makes the rest unreliable)
 *
 * and a second line, the polls of IF's NAPI instances that took packets,
 * per receive queue (print_queue_polls()).
 *
 * --softirq-delay-us US instead only busy-waits US microseconds at the
 * entry of every NET_RX softirq (a known wait before the poll, for
 * napi_wait), and observes nothing: no tc program between the stamp and
 * the stages; its one line at the end is "delay_runs=N delay_mean_ns=M",
 * the waits it made and how long they took on average (a CPU taken away
 * meanwhile makes one longer).
 *
 * Distinct stamps are counted per CPU because two CPUs can read the same
 * nanosecond; the stamper's batch state is per CPU too.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rxlat.h"
#include "meta_probe.h"
#include "meta_probe.skel.h"

static const char *prog = "rxlat-meta-probe";
static volatile sig_atomic_t stop;

struct pkt {
	uint64_t poll;
	uint64_t stamp;
	uint32_t cpu;
};

/* jiffies at the end of each poll, per CPU, indexed by poll number */
struct poll_log {
	uint64_t *jiffies; /* 0: not seen */
	size_t len;
};

struct state {
	struct pkt *pkts;
	size_t npkts, cap;
	struct poll_log *polls;
	int ncpu;
	int err;
};

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char msg[512];

	if (level != LIBBPF_WARN)
		return 0;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* an existing clsact qdisc is fine: it is reused, and kept */
	if (strstr(msg, "Exclusivity flag on"))
		return 0;
	return fputs(msg, stderr);
}

static int log_poll(struct state *st, uint32_t cpu, uint64_t poll, uint64_t jiffies)
{
	struct poll_log *pl;

	if ((int)cpu >= st->ncpu)
		return -ERANGE;
	pl = &st->polls[cpu];
	if (poll >= pl->len) {
		size_t len = pl->len ? pl->len : 1024;
		uint64_t *n;

		while (len <= poll)
			len *= 2;
		n = realloc(pl->jiffies, len * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + pl->len, 0, (len - pl->len) * sizeof(*n));
		pl->jiffies = n;
		pl->len = len;
	}
	/* +1 so that 0 keeps meaning "not seen" even at jiffies 0 */
	pl->jiffies[poll] = jiffies + 1;
	return 0;
}

static int on_event(void *ctx, void *data, size_t len)
{
	const struct meta_probe_event *e = data;
	struct state *st = ctx;

	if (len < sizeof(*e))
		return 0;
	if (e->kind == META_PROBE_POLL) {
		st->err = log_poll(st, e->cpu, e->poll, e->jiffies);
		return st->err;
	}
	if (e->kind != META_PROBE_PACKET)
		return 0;
	if (st->npkts == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 4096;
		struct pkt *n = realloc(st->pkts, cap * sizeof(*n));

		if (!n) {
			st->err = -ENOMEM;
			return st->err;
		}
		st->pkts = n;
		st->cap = cap;
	}
	st->pkts[st->npkts++] = (struct pkt){ .poll = e->poll, .stamp = e->stamp, .cpu = e->cpu };
	return 0;
}

static int cmp_poll(const void *a, const void *b)
{
	const struct pkt *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->poll != y->poll)
		return x->poll < y->poll ? -1 : 1;
	if (x->stamp != y->stamp)
		return x->stamp < y->stamp ? -1 : 1;
	return 0;
}

static int cmp_stamp(const void *a, const void *b)
{
	const struct pkt *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->stamp != y->stamp)
		return x->stamp < y->stamp ? -1 : 1;
	return 0;
}

static uint64_t poll_jiffies(const struct state *st, uint32_t cpu, uint64_t poll)
{
	const struct poll_log *pl = &st->polls[cpu];

	return poll < pl->len ? pl->jiffies[poll] : 0;
}

/*
 * Packets tc saw between the ends of polls p and p+1 were stamped in poll
 * p+1, or, when GRO handed them up only after poll p had ended (a poll that
 * used its whole budget flushes GRO after the tracepoint), in poll p. Either
 * way their XDP runs fell between the ends of polls p-1 and p+1. Without
 * the collector's reset the stamper renews its batch stamp only when
 * jiffies move, so if jiffies were equal at both ends, one stamp is the
 * only correct outcome.
 */
static bool tick_free(const struct state *st, uint32_t cpu, uint64_t poll)
{
	uint64_t a, b;

	if (poll < 2)
		return false; /* poll 0 is the load, not a poll end */
	a = poll_jiffies(st, cpu, poll - 1);
	b = poll_jiffies(st, cpu, poll + 1);
	return a && b && a == b;
}

static void summarize(struct state *st, uint64_t no_meta, uint64_t bad_magic, uint64_t lost)
{
	size_t distinct = 0, multi = 0, mixed = 0, multi_tf = 0, mixed_tf = 0;
	size_t i, j;

	qsort(st->pkts, st->npkts, sizeof(*st->pkts), cmp_poll);
	for (i = 0; i < st->npkts; i = j) {
		size_t stamps = 1;
		bool tf;

		for (j = i + 1; j < st->npkts && st->pkts[j].cpu == st->pkts[i].cpu &&
				st->pkts[j].poll == st->pkts[i].poll;
		     j++) {
			if (st->pkts[j].stamp != st->pkts[j - 1].stamp)
				stamps++;
		}
		if (j - i < 2)
			continue;
		tf = tick_free(st, st->pkts[i].cpu, st->pkts[i].poll);
		multi++;
		multi_tf += tf;
		if (stamps > 1) {
			mixed++;
			mixed_tf += tf;
		}
	}

	qsort(st->pkts, st->npkts, sizeof(*st->pkts), cmp_stamp);
	for (i = 0; i < st->npkts; i++)
		if (!i || cmp_stamp(&st->pkts[i], &st->pkts[i - 1]))
			distinct++;

	printf("packets=%zu distinct_stamps=%zu polls_multi=%zu polls_mixed=%zu "
	       "polls_multi_tickless=%zu polls_mixed_tickless=%zu no_meta=%llu "
	       "bad_magic=%llu lost=%llu\n",
	       st->npkts, distinct, multi, mixed, multi_tf, mixed_tf, (unsigned long long)no_meta,
	       (unsigned long long)bad_magic, (unsigned long long)lost);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: %s --dev IF --seconds S [--softirq-delay-us US]\n", prog);
}

/* Parses the options: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, const char **dev, unsigned long *seconds,
		      unsigned long *delay_us)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'i' },
		{ "seconds", required_argument, NULL, 's' },
		{ "softirq-delay-us", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			*dev = optarg;
			break;
		case 's':
			errno = 0;
			*seconds = strtoul(optarg, &end, 10);
			if (errno || *end || !*seconds || *seconds > 3600) {
				fprintf(stderr, "%s: --seconds wants 1..3600, got '%s'\n", prog,
					optarg);
				return 2;
			}
			break;
		case 'd':
			errno = 0;
			*delay_us = strtoul(optarg, &end, 10);
			if (errno || *end || !*delay_us || *delay_us > 100000) {
				fprintf(stderr,
					"%s: --softirq-delay-us wants 1..100000, got '%s'\n", prog,
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!*dev || !*seconds) {
		usage(stderr);
		return 2;
	}
	return -1;
}

static void setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* no SA_RESTART: a signal must cut the ring buffer wait short */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* What the probe holds while it runs, released by probe_close(). */
struct probe {
	const char *dev;
	unsigned long delay_us;
	struct bpf_tc_hook hook;
	struct bpf_tc_opts tc_opts;
	bool hook_created, tc_attached;
	struct meta_probe *skel;
	struct ring_buffer *rb;
};

/* Loads and attaches the BPF side and opens the ring buffer: 0 or -errno. */
static int probe_load(struct probe *p, struct state *st)
{
	int err;

	struct stat ns;

	p->skel = meta_probe__open();
	if (!p->skel || stat("/proc/self/ns/net", &ns)) {
		err = -errno;
		fprintf(stderr, "%s: opening meta_probe.bpf.o failed: %s\n", prog, strerror(-err));
		return err;
	}
	p->skel->rodata->probe_ifindex = p->hook.ifindex;
	p->skel->rodata->probe_netns = (__u32)ns.st_ino;
	p->skel->rodata->delay_ns = p->delay_us * 1000;
	bpf_program__set_autoload(p->skel->progs.meta_probe_delay, p->delay_us > 0);
	bpf_program__set_autoload(p->skel->progs.meta_probe_poll, !p->delay_us);
	err = meta_probe__load(p->skel);
	if (err) {
		fprintf(stderr, "%s: loading meta_probe.bpf.o failed: %s; %s\n", prog,
			strerror(-err), "run as root on a kernel with BTF");
		return err;
	}
	err = meta_probe__attach(p->skel);
	if (err) {
		fprintf(stderr, "%s: attaching tp_btf/napi_poll failed: %s\n", prog,
			strerror(-err));
		return err;
	}
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.events), on_event, st, NULL);
	if (!p->rb) {
		err = -errno;
		fprintf(stderr, "%s: ring buffer: %s\n", prog, strerror(-err));
		return err;
	}
	return 0;
}

/* Attaches to tc ingress of p->dev, making the clsact qdisc if needed. */
static int probe_attach_tc(struct probe *p)
{
	int err;

	err = bpf_tc_hook_create(&p->hook);
	if (!err) {
		p->hook_created = true;
	} else if (err != -EEXIST) {
		fprintf(stderr, "%s: creating the clsact qdisc on %s failed: %s\n", prog, p->dev,
			strerror(-err));
		return err;
	}
	p->tc_opts.prog_fd = bpf_program__fd(p->skel->progs.meta_probe_tc);
	err = bpf_tc_attach(&p->hook, &p->tc_opts);
	if (err) {
		fprintf(stderr, "%s: attaching to tc ingress of %s failed: %s\n", prog, p->dev,
			strerror(-err));
		return err;
	}
	p->tc_attached = true;
	return 0;
}

/* Reads events for SECONDS or until a signal: 0 or -errno. */
static int record(struct probe *p, const struct state *st, unsigned long seconds)
{
	struct timespec t0, t;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop && !st->err) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((unsigned long)(t.tv_sec - t0.tv_sec) >= seconds && t.tv_nsec >= t0.tv_nsec)
			break;
		err = ring_buffer__poll(p->rb, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "%s: reading events: %s\n", prog, strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Detaches from tc and from the tracepoint; the events stay readable. */
static void probe_detach(struct probe *p)
{
	if (p->tc_attached) {
		/* the kernel wants only the handle and priority to find it */
		p->tc_opts.prog_fd = 0;
		p->tc_opts.prog_id = 0;
		p->tc_opts.flags = 0;
		if (bpf_tc_detach(&p->hook, &p->tc_opts))
			fprintf(stderr, "%s: detaching from %s failed\n", prog, p->dev);
	}
	if (p->hook_created) {
		/* both attach points: deletes the clsact qdisc itself */
		p->hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		if (bpf_tc_hook_destroy(&p->hook))
			fprintf(stderr,
				"%s: removing the clsact qdisc from %s failed; run: tc qdisc del "
				"dev %s clsact\n",
				prog, p->dev, p->dev);
	}
	if (p->skel)
		meta_probe__detach(p->skel);
}

/*
 * The polls of the interface's NAPI instances that took packets, per
 * receive queue (the one each instance's stamped packets came from; -1: no
 * stamped packet reached tc), in queue order:
 *   queue_polls=Q:POLLS,... queue_full=Q:POLLS,... queue_ksoftirqd=Q:POLLS,...
 * (full: polls that used their whole budget; ksoftirqd: run in ksoftirqd)
 */
static void print_queue_polls(const struct meta_probe *skel)
{
	int fd_p = bpf_map__fd(skel->maps.napi_polls), fd_q = bpf_map__fd(skel->maps.napi_queue);
	struct {
		long long q;
		struct meta_probe_polls v;
	} row[256];
	size_t n = 0;
	__u32 id, *prev = NULL;

	while (n < 256 && !bpf_map_get_next_key(fd_p, prev, &id)) {
		__u32 q;

		row[n].q = bpf_map_lookup_elem(fd_q, &id, &q) ? -1 : (long long)q;
		if (!bpf_map_lookup_elem(fd_p, &id, &row[n].v))
			n++;
		prev = &id;
	}
	for (size_t i = 1; i < n; i++) /* insertion sort: a handful of rows */
		for (size_t j = i; j > 0 && row[j].q < row[j - 1].q; j--) {
			__typeof__(row[0]) t = row[j];

			row[j] = row[j - 1];
			row[j - 1] = t;
		}
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
		{ "queue_polls", offsetof(struct meta_probe_polls, polls) },
		{ "queue_full", offsetof(struct meta_probe_polls, full) },
		{ "queue_ksoftirqd", offsetof(struct meta_probe_polls, ksoftirqd) },
	};

	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
		printf("%s%s=", f ? " " : "", fields[f].name);
		for (size_t i = 0; i < n; i++)
			printf(
			    "%s%lld:%llu", i ? "," : "", row[i].q,
			    *(const unsigned long long *)((const char *)&row[i].v + fields[f].off));
	}
	printf("\n");
}

static void state_free(struct state *st)
{
	for (int i = 0; i < st->ncpu; i++)
		free(st->polls[i].jiffies);
	free(st->polls);
	free(st->pkts);
}

int main(int argc, char **argv)
{
	struct probe p = {
		.hook = { .sz = sizeof(p.hook), .attach_point = BPF_TC_INGRESS },
		.tc_opts = { .sz = sizeof(p.tc_opts) },
	};
	struct state st = {};
	unsigned long seconds = 0;
	int err, ret = 1;

	err = parse_args(argc, argv, &p.dev, &seconds, &p.delay_us);
	if (err >= 0)
		return err;
	p.hook.ifindex = if_nametoindex(p.dev);
	if (!p.hook.ifindex) {
		fprintf(stderr, "%s: no interface %s in this network namespace; %s\n", prog, p.dev,
			"run it under nsenter --net");
		return 1;
	}
	setup_signals();
	libbpf_set_print(libbpf_quiet);

	st.ncpu = libbpf_num_possible_cpus();
	if (st.ncpu <= 0) {
		fprintf(stderr, "%s: cannot count possible CPUs\n", prog);
		return 1;
	}
	st.polls = calloc(st.ncpu, sizeof(*st.polls));
	if (!st.polls) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}

	err = probe_load(&p, &st);
	if (!err && !stop && p.delay_us) {
		printf("attached\n");
		fflush(stdout);
		while (!stop && seconds--)
			sleep(1);
		meta_probe__detach(p.skel);
		printf("delay_runs=%llu delay_mean_ns=%llu\n",
		       (unsigned long long)p.skel->bss->delay_runs,
		       (unsigned long long)(p.skel->bss->delay_runs ? p.skel->bss->delay_total_ns /
									  p.skel->bss->delay_runs
								    : 0));
		ret = 0;
	} else if (!err && !stop) {
		err = probe_attach_tc(&p);
		if (!err) {
			printf("attached\n");
			fflush(stdout);
			err = record(&p, &st, seconds);
		}
	}
	probe_detach(&p);
	if (!err && p.tc_attached && p.rb) {
		ring_buffer__consume(p.rb);
		if (st.err) {
			fprintf(stderr, "%s: recording events: %s\n", prog, strerror(-st.err));
		} else {
			summarize(&st, p.skel->bss->no_meta, p.skel->bss->bad_magic,
				  p.skel->bss->lost_events);
			print_queue_polls(p.skel);
			ret = 0;
		}
	}
	ring_buffer__free(p.rb);
	meta_probe__destroy(p.skel);
	state_free(&st);
	return ret;
}
