// SPDX-License-Identifier: GPL-2.0
/*
 * The latency hooks: which attach point each stage uses on this kernel, and
 * attaching them. Every attach point is tried for real (a minimal fentry
 * program loaded and attached to each target function), because a function
 * can be in BTF and still refuse a trampoline, and some kernels refuse all
 * trampolines with EPERM before the verifier runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "holders.h"
#include "hooks.h"
#include "drops.h"
#include "log.h"
#include "opt.h"
#include "report.h"
#include "signals.h"
#include "hooks_bpf.skel.h"

/* P_BOTH: a program attached in either set, whenever its stage is */
enum point { P_NONE, P_FENTRY, P_FALLBACK, P_BOTH };

struct stage_def {
	const char *fentry[2];	 /* target functions, IPv4 and IPv6 twin */
	const char *fallback;	 /* fallback attach point, NULL if none */
	const char *no_fallback; /* why there is none */
	const char *common;	 /* attach point used in both sets */
};

#define STAGE_DEF(id, name, fentry4, fentry6, fb, no_fb, com)  \
	[RXLAT_STAGE_##id] = { .fentry = { fentry4, fentry6 }, \
			       .fallback = fb,                 \
			       .no_fallback = no_fb,           \
			       .common = com },
static const struct stage_def stage_defs[RXLAT_NR_STAGES] = { RXLAT_STAGES(STAGE_DEF) };
#undef STAGE_DEF

/* Every program of hooks.bpf.c: the stage it measures and its set. */
static const struct hook_prog {
	const char *name;
	enum rxlat_stage stage;
	enum point set;
} hook_progs[] = {
	{ "rxlat_fentry_ip_rcv", RXLAT_STAGE_IP_RCV, P_FENTRY },
	{ "rxlat_fentry_ip6_rcv", RXLAT_STAGE_IP_RCV, P_FENTRY },
	{ "rxlat_tp_ip_rcv", RXLAT_STAGE_IP_RCV, P_FALLBACK },
	{ "rxlat_fentry_tcp_v4_do_rcv", RXLAT_STAGE_TCP_DO_RCV, P_FENTRY },
	{ "rxlat_fentry_tcp_v6_do_rcv", RXLAT_STAGE_TCP_DO_RCV, P_FENTRY },
	{ "rxlat_tp_tcp_do_rcv", RXLAT_STAGE_TCP_DO_RCV, P_FALLBACK },
	{ "rxlat_fentry_tcp_data_queue", RXLAT_STAGE_TCP_DATA_QUEUE, P_FENTRY },
	{ "rxlat_fentry_udp_queue_rcv", RXLAT_STAGE_UDP_QUEUE_RCV, P_FENTRY },
	{ "rxlat_fentry_udpv6_queue_rcv", RXLAT_STAGE_UDP_QUEUE_RCV, P_FENTRY },
	{ "rxlat_cg_udp_queue_rcv", RXLAT_STAGE_UDP_QUEUE_RCV, P_FALLBACK },
	{ "rxlat_tp_sock_read", RXLAT_STAGE_SOCK_READ, P_BOTH },
	{ "rxlat_fentry_udp_read", RXLAT_STAGE_SOCK_READ, P_FENTRY },
	/* and only when it can see UDP reads: plan.udp_read_fallback */
	{ "rxlat_tp_udp_read", RXLAT_STAGE_SOCK_READ, P_FALLBACK },
};

/* What plan_all() decided for each stage, and what attaching it needs. */
struct plan {
	enum point point[RXLAT_NR_STAGES];
	/* [lo, hi) of skb_consume_udp(), for the consume_skb fallback */
	__u64 udp_consume_lo, udp_consume_hi;
	bool udp_read_fallback; /* the consume_skb program can see UDP reads */
	bool drops;		/* --drops, on a kernel with drop reasons */
};

struct rxlat_hooks {
	struct hooks_bpf *skel;
	struct plan plan;
	__u64 *series_of; /* mapped rxlat_series_of: series -> 1 + place */
	size_t series_of_len;
	/* the chunks of histograms created so far, mapped, and their fds */
	struct rxlat_hist **chunks;
	int *chunk_fds;
	__u32 nchunks, max_chunks;
	int cgroup_fd;
	__u32 nr_series;
};

#define CHUNK_BYTES ((size_t)RXLAT_CHUNK_SERIES * sizeof(struct rxlat_hist))

/* One more chunk of histograms, in the outer map for the hooks to find. */
static int add_chunk(struct rxlat_hooks *h)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	__u32 i = h->nchunks;
	void *mem;
	int fd, err;

	if (i >= h->max_chunks)
		return -ENOSPC;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rxlat_hchunk", sizeof(__u32),
			    sizeof(struct rxlat_hist), RXLAT_CHUNK_SERIES, &opts);
	if (fd < 0)
		return -errno;
	mem = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	/* mapped before the hooks can see it: readers never find it half there */
	h->chunks[i] = mem;
	h->chunk_fds[i] = fd;
	__atomic_store_n(&h->nchunks, i + 1, __ATOMIC_RELEASE);
	if (bpf_map_update_elem(bpf_map__fd(h->skel->maps.rxlat_hist_chunks), &i, &fd, BPF_ANY)) {
		err = -errno;
		h->nchunks = i;
		munmap(mem, CHUNK_BYTES);
		close(fd);
		return err;
	}
	return 0;
}

int hooks_grow(struct rxlat_hooks *h)
{
	__u32 used = __atomic_load_n(&h->skel->bss->rxlat_state.series_used, __ATOMIC_ACQUIRE);
	int err = 0;

	/* one free chunk ahead of the hooks */
	while (!err && (__u64)h->nchunks * RXLAT_CHUNK_SERIES < (__u64)used + RXLAT_CHUNK_SERIES &&
	       h->nchunks < h->max_chunks)
		err = add_chunk(h);
	return err;
}

struct rxlat_hist *hooks_series(const struct rxlat_hooks *h, __u32 idx)
{
	__u64 place;
	__u32 chunk;

	if (idx >= h->nr_series)
		return NULL;
	place = __atomic_load_n(&h->series_of[idx], __ATOMIC_ACQUIRE);
	if (!place)
		return NULL;
	chunk = (place - 1) >> RXLAT_CHUNK_SHIFT;
	if (chunk >= __atomic_load_n(&h->nchunks, __ATOMIC_ACQUIRE))
		return NULL;
	return &h->chunks[chunk][(place - 1) & (RXLAT_CHUNK_SERIES - 1)];
}

struct rxlat_hist *hooks_live_at(void *ctx, __u32 idx)
{
	return hooks_series(ctx, idx);
}

__u64 hooks_series_lost(const struct rxlat_hooks *h)
{
	return __atomic_load_n(&h->skel->bss->rxlat_state.series_lost, __ATOMIC_RELAXED);
}

/*
 * Stage s's reason becomes "CUR; MORE" (just MORE without CUR). CUR may
 * point into info->reason_buf[s] itself, so it is copied first.
 */
static const char *add_reason(struct rxlat_hooks_info *info, int s, const char *cur,
			      const char *more)
{
	char prev[160];

	snprintf(prev, sizeof(prev), "%s", cur ? cur : "");
	snprintf(info->reason_buf[s], sizeof(info->reason_buf[s]), "%s%s%.158s", prev,
		 prev[0] ? "; " : "", more);
	return info->reason_buf[s];
}

/*
 * Without CAP_BPF and CAP_PERFMON every tracing program load fails with
 * EPERM, which a kernel that refuses trampolines also returns: a raw
 * tracepoint program needs the same privileges and no trampoline, so its
 * EPERM is the privileges'. 0, or -EPERM with the error printed.
 */
static int check_privileges(void)
{
	const struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
		{ .code = 0x95 },			  /* exit */
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "rxlat_probe", "GPL", insns, 2, NULL);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno != EPERM)
		return 0; /* not a matter of privileges: the probes below say what */
	rxlat_err("loading BPF programs was refused (EPERM): run rxlat as root (it needs "
		  "CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)");
	return -EPERM;
}

/* Load and attach "return 0" as fentry of func: 0 or -errno. */
static int probe_fentry(const struct btf *vmlinux, const char *func)
{
	const struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
		{ .code = 0x95 },			  /* exit */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	int id, fd, link, err = 0;

	id = btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC);
	if (id < 0)
		return -ENOENT;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "rxlat_probe", "GPL", insns, 2, &opts);
	if (fd < 0)
		return -errno;
	link = bpf_link_create(fd, 0, BPF_TRACE_FENTRY, NULL);
	if (link < 0)
		err = -errno;
	else
		close(link);
	close(fd);
	return err;
}

static const char *probe_reason(int err, const char *func, char *buf, size_t len)
{
	if (err == -ENOENT)
		snprintf(buf, len, "%s is not in the kernel's BTF (inlined or renamed)", func);
	else if (err == -EPERM)
		snprintf(buf, len, "BPF trampolines refused (fentry on %s: EPERM)", func);
	else
		snprintf(buf, len, "fentry on %s failed: %s", func, strerror(-err));
	return buf;
}

/* The cgroup v2 mount, from mountinfo: its place differs between hosts. */
static int cgroup2_root(char *path, size_t len)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX], *sep = strstr(line, " - ");
		char fstype[64];

		if (!sep || sscanf(sep, " - %63s", fstype) != 1 || strcmp(fstype, "cgroup2"))
			continue;
		if (sscanf(line, "%*d %*d %*s %*s %4095s", mnt) == 1 && strlen(mnt) < len) {
			strcpy(path, mnt);
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

/*
 * An fd on the cgroup v2 root, the cgroup_skb fallback's attach target; *how
 * says where it came from. "ip netns exec" gives its command a mount
 * namespace with /sys remounted and no cgroup2 in it: then rxlat makes a
 * mount of its own with fsmount() and never attaches it anywhere, so that
 * nobody else sees it and it goes away with the fd. Its root is the root of
 * rxlat's cgroup namespace, as a mounted one would be. (fsopen() is 5.2+;
 * the cgroup_skb fallback needs 6.3+ anyway.)
 */
static int cgroup2_open(char *how, size_t len)
{
	char root[PATH_MAX];
	int fs = -1, mnt = -1, fd = -1, err;

	if (!cgroup2_root(root, sizeof(root))) {
		fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			snprintf(how, len, "the cgroup v2 mount %.100s", root);
			return fd;
		}
	}
	fs = fsopen("cgroup2", FSOPEN_CLOEXEC);
	if (fs < 0 || fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		goto fail;
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, 0);
	if (mnt < 0)
		goto fail;
	/* the mount fd is O_PATH: a real directory fd for the attach */
	fd = openat(mnt, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	snprintf(how, len, "a private cgroup2 mount (none in this mount namespace)");
	close(mnt);
	close(fs);
	return fd;
fail:
	err = -errno;
	if (mnt >= 0)
		close(mnt);
	if (fs >= 0)
		close(fs);
	snprintf(how, len, "no cgroup v2 mount here, and mounting one failed: %s", strerror(-err));
	return err;
}

/*
 * [start, start of the next symbol) of a kernel function. One read of
 * /proc/kallsyms (120,000 lines, not all in address order) with its
 * addresses kept: the kernel builds the file anew for every read, and
 * under emulation two reads parsed with sscanf took seconds of rxlat's
 * start.
 */
static int ksym_range(const char *name, __u64 *lo, __u64 *hi)
{
	size_t len = strlen(name), n = 0, cap = 0;
	__u64 *addrs = NULL, *grown;
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], *p;
	int err = 0;

	*lo = 0;
	*hi = ~0ULL;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* "ADDR TYPE NAME[\t[MODULE]]\n" */
		__u64 addr = strtoull(line, &p, 16);

		if (!addr || p[0] != ' ' || !p[1] || p[2] != ' ')
			continue;
		p += 3;
		if (!strncmp(p, name, len) && strchr(" \t\n", p[len]))
			*lo = addr;
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			grown = realloc(addrs, cap * sizeof(*addrs));
			if (!grown) {
				err = -ENOMEM;
				break;
			}
			addrs = grown;
		}
		addrs[n++] = addr;
	}
	fclose(f);
	for (size_t i = 0; *lo && i < n; i++)
		if (addrs[i] > *lo && addrs[i] < *hi)
			*hi = addrs[i];
	free(addrs);
	if (err)
		return err;
	return *lo && *hi != ~0ULL ? 0 : -ENOENT;
}

/* Since 6.3 the consume_skb tracepoint also passes the caller's address. */
static bool consume_skb_has_location(const struct btf *vmlinux)
{
	int id = btf__find_by_name_kind(vmlinux, "btf_trace_consume_skb", BTF_KIND_TYPEDEF);
	const struct btf_type *t;

	if (id < 0)
		return false;
	t = btf__type_by_id(vmlinux, btf__type_by_id(vmlinux, id)->type); /* pointer */
	t = btf__type_by_id(vmlinux, t->type);				  /* func proto */
	return btf_is_func_proto(t) && btf_vlen(t) >= 3;
}

/*
 * The check's datagram, in a child in a network namespace of its own: there
 * it creates no series (the hooks count only rxlat's namespace, the check's
 * counter counts every namespace), and it works whatever this namespace's lo
 * is. Exit status: 0 sent and read, 1 no namespace, 2 the datagram failed.
 */
static int udp_read_child(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct ifreq ifr = { .ifr_name = "lo", .ifr_flags = IFF_UP };
	struct timeval tv = { .tv_sec = 1 };
	socklen_t len = sizeof(a);
	char buf[8] = "rxlat";
	int fd;

	if (unshare(CLONE_NEWNET))
		return 1;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || ioctl(fd, SIOCSIFFLAGS, &ifr) || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&a, len) != sizeof(buf) ||
	    recv(fd, buf, sizeof(buf), 0) != sizeof(buf))
		return 2;
	return 0;
}

/*
 * Newer kernels free a read datagram through skb_attempt_defer_free(), which
 * passes no tracepoint: then the consume_skb fallback sees no UDP read at
 * all. The consume_skb program alone, loaded and attached, counts what one
 * datagram does, before the plan is final: a run and --list-stages then say
 * the same. NULL when it sees UDP reads, else why not.
 */
static const char *udp_read_probe(const struct plan *plan)
{
	const char *why = "UDP reads unverified: the start-up check could not load its program";
	struct hooks_bpf *skel = hooks_bpf__open();
	struct bpf_program *p;
	struct bpf_link *link = NULL;
	int status;
	pid_t pid;

	if (!skel)
		return why;
	bpf_object__for_each_program (p, skel->obj)
		bpf_program__set_autoload(p, p == skel->progs.rxlat_tp_udp_read);
	/* netns_ino 0 matches no namespace: the probe never records */
	skel->rodata->rxlat_cfg.udp_consume_lo = plan->udp_consume_lo;
	skel->rodata->rxlat_cfg.udp_consume_hi = plan->udp_consume_hi;
	bpf_map__set_max_entries(skel->maps.rxlat_ifslots, 1);
	bpf_map__set_max_entries(skel->maps.rxlat_drops, 1);
	if (hooks_bpf__load(skel))
		goto out;
	link = bpf_program__attach(skel->progs.rxlat_tp_udp_read);
	if (!link)
		goto out;
	why = "UDP reads unverified: the start-up check could not fork";
	pid = fork();
	if (pid == 0)
		_exit(udp_read_child());
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		goto out;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 1)
		why = "UDP reads unverified: the start-up check needs a network namespace of "
		      "its own (CAP_SYS_ADMIN)";
	else if (WEXITSTATUS(status))
		why = "UDP reads unverified: the start-up check's datagram over loopback failed";
	else if (!__atomic_load_n(&skel->bss->rxlat_state.udp_read_seen, __ATOMIC_SEQ_CST))
		why = "TCP only: this kernel frees read UDP datagrams without passing "
		      "consume_skb, only fentry sees them";
	else
		why = NULL;
out:
	bpf_link__destroy(link);
	hooks_bpf__destroy(skel);
	return why;
}

/*
 * Whether the kernel lets the hooks load through skb->head without a helper
 * call (read_meta_direct()): the probe program alone, loaded, never attached.
 */
static bool direct_mem_probe(void)
{
	struct hooks_bpf *skel = hooks_bpf__open();
	struct bpf_program *p;
	bool ok;

	if (!skel)
		return false;
	bpf_object__for_each_program (p, skel->obj)
		bpf_program__set_autoload(p, p == skel->progs.rxlat_probe_mem);
	bpf_map__set_max_entries(skel->maps.rxlat_ifslots, 1);
	ok = !hooks_bpf__load(skel);
	hooks_bpf__destroy(skel);
	return ok;
}

static enum point plan_stage(int s, const struct rxlat_config *cfg, const struct btf *vmlinux,
			     struct plan *plan, struct rxlat_hooks_info *info, const char **reason)
{
	const struct stage_def *d = &stage_defs[s];
	int err = 0;
	const char *failed = NULL;

	*reason = NULL;
	if (cfg->attach != RXLAT_ATTACH_FALLBACK) {
		for (int i = 0; i < 2 && d->fentry[i] && !err; i++) {
			err = vmlinux ? probe_fentry(vmlinux, d->fentry[i]) : -ENOENT;
			failed = d->fentry[i];
		}
		if (!err)
			return P_FENTRY;
		*reason =
		    probe_reason(err, failed, info->reason_buf[s], sizeof(info->reason_buf[s]));
		if (cfg->attach == RXLAT_ATTACH_FENTRY)
			return P_NONE;
	}
	if (!d->fallback) {
		*reason = add_reason(info, s, *reason, d->no_fallback);
		return P_NONE;
	}
	if (s == RXLAT_STAGE_UDP_QUEUE_RCV) {
		char how[160];
		int fd;

		if (!vmlinux ||
		    btf__find_by_name_kind(vmlinux, "bpf_cast_to_kern_ctx", BTF_KIND_FUNC) < 0) {
			*reason = "the cgroup_skb fallback needs bpf_cast_to_kern_ctx (Linux 6.3+)";
			return P_NONE;
		}
		fd = cgroup2_open(how, sizeof(how));
		if (fd < 0) {
			*reason = add_reason(info, s, *reason, how);
			return P_NONE;
		}
		close(fd);
	}
	/* without a way to see UDP reads, sock_read still has TCP's */
	if (s == RXLAT_STAGE_SOCK_READ) {
		const char *why = NULL;

		if (!vmlinux || !consume_skb_has_location(vmlinux))
			why = "TCP only: the consume_skb fallback for UDP needs the "
			      "tracepoint's caller argument (Linux 6.3+)";
		else if (ksym_range("skb_consume_udp", &plan->udp_consume_lo,
				    &plan->udp_consume_hi))
			why = "TCP only: skb_consume_udp not found in /proc/kallsyms";
		plan->udp_read_fallback = !why;
		if (why)
			*reason = add_reason(info, s, *reason, why);
	}
	return P_FALLBACK;
}

static void describe(int s, const struct plan *plan, struct rxlat_hooks_info *info)
{
	const struct stage_def *d = &stage_defs[s];

	const char *c = d->common ? d->common : "", *sep = d->common ? "," : "";
	char *buf = info->attach_buf[s];
	size_t len = sizeof(info->attach_buf[s]);
	enum point p = plan->point[s];

	if (p == P_FENTRY) {
		snprintf(buf, len, "%s%sfentry:%s%s%s", c, sep, d->fentry[0],
			 d->fentry[1] ? "," : "", d->fentry[1] ? d->fentry[1] : "");
		info->attach[s] = buf;
	} else if (p == P_FALLBACK && s == RXLAT_STAGE_SOCK_READ && !plan->udp_read_fallback) {
		snprintf(buf, len, "%s", c);
		info->attach[s] = buf;
	} else if (p == P_FALLBACK) {
		snprintf(buf, len, "%s%s%s", c, sep, d->fallback);
		info->attach[s] = buf;
	} else {
		info->attach[s] = NULL;
	}
}

static int plan_all(const struct rxlat_config *cfg, struct plan *plan,
		    struct rxlat_hooks_info *info)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int err = 0;

	if (!vmlinux) {
		rxlat_err("cannot read the kernel's BTF (/sys/kernel/btf/vmlinux): rxlat needs a "
			  "kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -ENOENT;
	}
	memset(info, 0, sizeof(*info));
	memset(plan, 0, sizeof(*plan));
	err = check_privileges();
	if (err) {
		btf__free(vmlinux);
		return err;
	}
	for (int s = 0; s < RXLAT_NR_STAGES; s++) {
		enum point *p = &plan->point[s];
		const char *reason;

		/* each probe attaches a trampoline: slow under emulation */
		if (signals_stop()) {
			btf__free(vmlinux);
			return -EINTR;
		}
		if (!cfg->stages[s])
			continue;
		*p = plan_stage(s, cfg, vmlinux, plan, info, &reason);
		describe(s, plan, info);
		if (*p == P_NONE)
			info->unavailable[s] = reason;
		else if (*p == P_FALLBACK && stage_defs[s].fentry[0])
			info->fallback_why[s] = reason;
		if (*p == P_NONE && cfg->attach == RXLAT_ATTACH_FENTRY && !err) {
			rxlat_err("%s fentry: stage %s: %s; use %s auto to fall back",
				  opt(OPT_ATTACH), rxlat_stage_names[s], reason, opt(OPT_ATTACH));
			err = -EOPNOTSUPP;
		}
	}
	btf__free(vmlinux);
	/* after the BTF is freed: the probe's object loads a copy of its own */
	if (plan->point[RXLAT_STAGE_SOCK_READ] == P_FALLBACK && plan->udp_read_fallback) {
		int s = RXLAT_STAGE_SOCK_READ;
		const char *why = udp_read_probe(plan);

		if (why) {
			plan->udp_read_fallback = false;
			info->fallback_why[s] = add_reason(
			    info, s, info->fallback_why[s] ? info->fallback_why[s] : "no fentry",
			    why);
			describe(s, plan, info);
		}
	}
	return err;
}

int hooks_plan(const struct rxlat_config *cfg, struct rxlat_hooks_info *info)
{
	struct plan plan;

	return plan_all(cfg, &plan, info);
}

static int set_autoload(struct hooks_bpf *skel, const struct plan *plan)
{
	struct bpf_program *p;

	bpf_object__for_each_program (p, skel->obj) {
		const char *name = bpf_program__name(p);
		const struct hook_prog *hp = NULL;
		enum point at;

		if (p == skel->progs.rxlat_probe_mem) {
			bpf_program__set_autoload(p, false);
			continue;
		}
		if (p == skel->progs.rxlat_tp_drop) {
			bpf_program__set_autoload(p, plan->drops);
			continue;
		}

		for (size_t i = 0; i < sizeof(hook_progs) / sizeof(hook_progs[0]) && !hp; i++)
			if (!strcmp(hook_progs[i].name, name))
				hp = &hook_progs[i];
		if (!hp) {
			rxlat_err("latency hook program %s belongs to no stage", name);
			return -EINVAL;
		}
		at = plan->point[hp->stage];
		bpf_program__set_autoload(p, at != P_NONE && (hp->set == P_BOTH || hp->set == at));
	}
	if (!plan->udp_read_fallback)
		bpf_program__set_autoload(skel->progs.rxlat_tp_udp_read, false);
	return 0;
}

/* --drops needs the kfree_skb tracepoint's drop reason: 0, or -EOPNOTSUPP said. */
static int drops_check(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	bool ok = vmlinux && drops_supported(vmlinux);

	btf__free(vmlinux);
	if (ok)
		return 0;
	rxlat_err("%s needs the drop reason of the kfree_skb tracepoint (Linux 5.17+), "
		  "which this kernel does not pass: run without %s",
		  opt(OPT_DROPS), opt(OPT_DROPS));
	return -EOPNOTSUPP;
}

static __u32 netns_ino(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : (__u32)st.st_ino;
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
	h->cgroup_fd = cgroup2_open(how, sizeof(how));
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

/* ifindex -> slot, where the hooks look it up (see iface_slot()) */
static int set_ifslot(struct rxlat_hooks *h, __u32 ifindex, __u32 slot)
{
	struct rxlat_ifslot v = { .slot = slot };
	int fd = bpf_map__fd(h->skel->maps.rxlat_ifslots);

	if (ifindex < RXLAT_IFINDEX_DIRECT) {
		__atomic_store_n(&h->skel->bss->rxlat_ifslot_of[ifindex], (__u16)(slot + 1),
				 __ATOMIC_RELEASE);
		return 0;
	}
	return bpf_map_update_elem(fd, &ifindex, &v, BPF_ANY) ? -errno : 0;
}

int hooks_attach(struct rxlat_hooks **out, const struct rxlat_config *cfg,
		 struct rxlat_hooks_info *info)
{
	struct rxlat_bpf_config *bc;
	struct rxlat_hooks *h;
	int err;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->cgroup_fd = -1;
	err = plan_all(cfg, &h->plan, info);
	if (!err && signals_stop())
		err = -EINTR;
	if (!err)
		err = check_any_stage(cfg, info);
	if (err)
		goto fail;
	h->nr_series = rxlat_nr_series(cfg->bpf.max_ifaces, cfg->bpf.max_queues);
	if (cfg->drops) {
		err = drops_check();
		if (err)
			goto fail;
		h->plan.drops = true;
	}

	h->skel = hooks_bpf__open();
	if (!h->skel) {
		err = -errno;
		rxlat_err("cannot open the latency hooks object: %s", strerror(-err));
		goto fail;
	}
	bc = &h->skel->rodata->rxlat_cfg;
	*bc = cfg->bpf;
	bc->ifaces_fixed = cfg->nifaces > 0;
	bc->direct_mem = direct_mem_probe();
	rxlat_debug("metadata read with %s",
		    bc->direct_mem ? "direct loads" : "bpf_probe_read_kernel()");
	bc->netns_ino = netns_ino();
	bc->udp_consume_lo = h->plan.udp_consume_lo;
	bc->udp_consume_hi = h->plan.udp_consume_hi;
	bc->filters = bc->filter_proto || bc->filter_ports || bc->filter_cgroup;
	bpf_map__set_max_entries(h->skel->maps.rxlat_drops, h->plan.drops ? RXLAT_DROP_ENTRIES : 1);
	/* 1 MiB: over 11000 records, more than 10 s of the default rate of one CPU */
	bpf_map__set_max_entries(h->skel->maps.rxlat_slow, cfg->bpf.slow_ns ? 1u << 20 : 4096);
	/* room for interfaces cached with the overflow slot too */
	bpf_map__set_max_entries(h->skel->maps.rxlat_ifslots, cfg->bpf.max_ifaces + 64);
	h->max_chunks = rxlat_nr_chunks(h->nr_series);
	if (h->max_chunks > RXLAT_HISTS_BYTES_LIMIT / CHUNK_BYTES)
		h->max_chunks = RXLAT_HISTS_BYTES_LIMIT / CHUNK_BYTES;
	bpf_map__set_max_entries(h->skel->maps.rxlat_series_of, h->nr_series);
	bpf_map__set_max_entries(h->skel->maps.rxlat_hist_chunks, h->max_chunks);
	h->chunks = calloc(h->max_chunks, sizeof(*h->chunks));
	h->chunk_fds = calloc(h->max_chunks, sizeof(*h->chunk_fds));
	if (!h->chunks || !h->chunk_fds) {
		err = -ENOMEM;
		rxlat_err("out of memory");
		goto fail;
	}
	err = set_autoload(h->skel, &h->plan);
	if (err)
		goto fail;

	err = hooks_bpf__load(h->skel);
	if (err && signals_stop())
		goto fail; /* the verifier gave up for the stop signal */
	if (!err && signals_stop())
		err = -EINTR;
	if (err == -EINTR)
		goto fail;
	if (err) {
		if (err == -EPERM)
			rxlat_err("loading the latency hooks was refused (EPERM): run as root "
				  "(needs CAP_BPF and CAP_PERFMON)");
		else
			rxlat_err("cannot load the latency hooks: %s (run with %s for the "
				  "verifier log)",
				  strerror(-err), opt_short(OPT_VERBOSE));
		goto fail;
	}

	for (int i = 0; i < cfg->nifaces; i++) {
		err = set_ifslot(h, cfg->ifindexes[i], i);
		if (err) {
			rxlat_err("cannot give %s its interface slot (map update): %s",
				  cfg->ifnames[i], strerror(-err));
			goto fail;
		}
		h->skel->bss->rxlat_slot_owner[i] = cfg->ifindexes[i];
	}

	h->series_of_len = (size_t)h->nr_series * sizeof(__u64);
	h->series_of = mmap(NULL, h->series_of_len, PROT_READ, MAP_SHARED,
			    bpf_map__fd(h->skel->maps.rxlat_series_of), 0);
	if (h->series_of == MAP_FAILED) {
		err = -errno;
		h->series_of = NULL;
		rxlat_err("cannot map the series table: %s", strerror(-err));
		goto fail;
	}
	err = hooks_grow(h);
	if (err) {
		rxlat_err("cannot create the first histogram chunks: %s", strerror(-err));
		goto fail;
	}

	err = attach_all(h);
	if (err)
		goto fail;
	*out = h;
	return 0;
fail:
	hooks_destroy(h);
	return err;
}

int hooks_ifslots(const struct rxlat_hooks *h, __u32 *ifindex_of_slot, __u32 nslots)
{
	const __u32 *owner = h->skel->bss->rxlat_slot_owner;
	int n = 0;

	for (__u32 i = 0; i < nslots; i++) {
		ifindex_of_slot[i] =
		    i < RXLAT_MAX_IFACES_LIMIT ? __atomic_load_n(&owner[i], __ATOMIC_ACQUIRE) : 0;
		n += ifindex_of_slot[i] != 0;
	}
	return n;
}

void hooks_new_epoch(struct rxlat_hooks *h, __u64 *old_epoch)
{
	*old_epoch = __atomic_fetch_add(&h->skel->bss->rxlat_state.epoch, 1, __ATOMIC_SEQ_CST);
}

/*
 * The per-CPU batch state (the stamper's rxlat_batch, which the poll-end
 * reset shares) counts too: it is a cost of batch stamping under rxlat.
 */
size_t hooks_map_bytes(const struct rxlat_hooks *h)
{
	int ncpu = libbpf_num_possible_cpus();

	return h->series_of_len + (size_t)h->nchunks * CHUNK_BYTES + h->max_chunks * sizeof(__u32) +
	       sizeof(h->skel->bss->rxlat_ifslot_of) +
	       bpf_map__max_entries(h->skel->maps.rxlat_ifslots) *
		   (sizeof(__u32) + sizeof(struct rxlat_ifslot)) +
	       (size_t)(ncpu > 0 ? ncpu : 1) * sizeof(struct rxlat_batch) +
	       (h->plan.drops ? RXLAT_DROP_ENTRIES *
				    (sizeof(struct rxlat_drop_key) + sizeof(struct rxlat_drop))
			      : 0);
}

void hooks_destroy(struct rxlat_hooks *h)
{
	if (!h)
		return;
	if (h->series_of)
		munmap(h->series_of, h->series_of_len);
	for (__u32 i = 0; i < h->nchunks; i++) {
		munmap(h->chunks[i], CHUNK_BYTES);
		close(h->chunk_fds[i]);
	}
	free(h->chunks);
	free(h->chunk_fds);
	hooks_bpf__destroy(h->skel);
	if (h->cgroup_fd >= 0)
		close(h->cgroup_fd);
	free(h);
}

int hooks_move_ifslot(struct rxlat_hooks *h, __u32 from, __u32 to)
{
	int fd = bpf_map__fd(h->skel->maps.rxlat_ifslots), err;
	struct rxlat_ifslot v;

	if (from < RXLAT_IFINDEX_DIRECT) {
		__u16 d = __atomic_load_n(&h->skel->bss->rxlat_ifslot_of[from], __ATOMIC_ACQUIRE);

		if (!d || d == RXLAT_IFSLOT_SKIP)
			return -ENOENT;
		v.slot = d - 1u;
	} else if (bpf_map_lookup_elem(fd, &from, &v)) {
		return -errno;
	}
	err = set_ifslot(h, to, v.slot);
	if (err)
		return err;
	/* reports name the slot after its owner: the new ifindex from now on */
	if (v.slot < RXLAT_MAX_IFACES_LIMIT)
		__atomic_store_n(&h->skel->bss->rxlat_slot_owner[v.slot], to, __ATOMIC_RELEASE);
	/* the old ifindex is gone: nothing records under it any more */
	if (from < RXLAT_IFINDEX_DIRECT)
		__atomic_store_n(&h->skel->bss->rxlat_ifslot_of[from], 0, __ATOMIC_RELEASE);
	else
		bpf_map_delete_elem(fd, &from);
	return 0;
}

int hooks_tc_iface(struct rxlat_hooks *h, __u32 ifindex, bool on)
{
	int fd = bpf_map__fd(h->skel->maps.rxlat_tc_ifaces);
	__u8 one = 1;

	if (on)
		return bpf_map_update_elem(fd, &ifindex, &one, BPF_ANY) ? -errno : 0;
	bpf_map_delete_elem(fd, &ifindex);
	return 0;
}

int hooks_drops_fd(const struct rxlat_hooks *h)
{
	return h->plan.drops ? bpf_map__fd(h->skel->maps.rxlat_drops) : -1;
}

__u64 hooks_drops_lost(const struct rxlat_hooks *h)
{
	return __atomic_load_n(&h->skel->bss->rxlat_state.drops_lost, __ATOMIC_RELAXED);
}

int hooks_slow_fd(const struct rxlat_hooks *h)
{
	return bpf_map__fd(h->skel->maps.rxlat_slow);
}

int hooks_slow_counts(const struct rxlat_hooks *h, __u64 *sent, __u64 *suppressed, __u64 *lost)
{
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct rxlat_slow_cpu *v;
	__u32 zero = 0;

	*sent = *suppressed = *lost = 0;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(h->skel->maps.rxlat_slow_cpus), &zero, v))
		err = -errno;
	for (int i = 0; i < ncpu && !err; i++) {
		*sent += v[i].sent;
		*suppressed += v[i].suppressed;
		*lost += v[i].lost;
	}
	free(v);
	return err;
}

__u64 hooks_clock_steps(const struct rxlat_hooks *h)
{
	return __atomic_load_n(&h->skel->bss->rxlat_state.clock.steps, __ATOMIC_RELAXED);
}
