// SPDX-License-Identifier: GPL-2.0
/*
 * What this kernel offers the latency hooks (struct plan_kernel), found by
 * trying each thing for real: a minimal fentry program loaded and attached
 * to each target function, because a function can be in BTF and still
 * refuse a trampoline, and some kernels refuse all trampolines with EPERM
 * before the verifier runs. Only what a decision will read is probed;
 * plan.c decides.
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
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "cgroup2.h"
#include "plan.h"
#include "log.h"
#include "opt.h"
#include "series.h"
#include "signals.h"
#include "hooks_bpf.skel.h"

/* The program of every probe below: returns 0 at once. */
static const struct bpf_insn ret0[] = {
	{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
	{ .code = 0x95 },			  /* exit */
};

/*
 * Without CAP_BPF and CAP_PERFMON every tracing program load fails with
 * EPERM, which a kernel that refuses trampolines also returns: a raw
 * tracepoint program needs the same privileges and no trampoline, so its
 * EPERM is the privileges'. 0, or -EPERM with the error printed.
 */
static int check_privileges(void)
{
	int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "rxlat_probe", "GPL", ret0, 2, NULL);

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

/* Whether this kernel's BPF has helper name (an enumerator of enum bpf_func_id). */
bool plan_has_helper(const struct btf *vmlinux, const char *name)
{
	int id = btf__find_by_name_kind(vmlinux, "bpf_func_id", BTF_KIND_ENUM);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(vmlinux, id);
	const struct btf_enum *e = t ? btf_enum(t) : NULL;

	for (int i = 0; e && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(vmlinux, e[i].name_off), name))
			return true;
	return false;
}

static bool probe_fetch_insn(void)
{
	/* r1 = 0; *(u64 *)(r10 - 8) = r1; r1 = 1; fetch_add(r10 - 8, r1); r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 1, .imm = 0 },
		{ .code = 0x7b, .dst_reg = 10, .src_reg = 1, .off = -8 },
		{ .code = 0xb7, .dst_reg = 1, .imm = 1 },
		{ .code = 0xdb, .dst_reg = 10, .src_reg = 1, .off = -8, .imm = 1 },
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },
		{ .code = 0x95 },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "rxlat_probe", "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	if (fd < 0)
		return errno == EPERM; /* not the instruction's: check_privileges() says */
	close(fd);
	return true;
}

bool probe_fetch(void)
{
	static int known = -1;

	if (known < 0)
		known = probe_fetch_insn();
	return known;
}

/*
 * rxlat's floor, Linux 5.10 (the oldest kernel its tests boot), by what its
 * objects use rather than by the version: the BPF ring buffer (5.8) for
 * --slow and --drops, and probe reads of kernel memory by name
 * (bpf_probe_read_kernel(), 5.5) in every hook. Below it the load would
 * end in a verifier error; this says it in one line. 0, or -ENOSYS said.
 */
static int check_floor(const struct btf *vmlinux)
{
	bool ring = plan_has_helper(vmlinux, "BPF_FUNC_ringbuf_reserve"),
	     kread = plan_has_helper(vmlinux, "BPF_FUNC_probe_read_kernel");
	struct utsname u;

	if (ring && kread)
		return 0;
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	rxlat_err("this kernel (%s) is older than rxlat's floor, Linux 5.10: its BPF lacks %s%s%s; "
		  "see docs/design.md, \"Kernels\"",
		  u.release, ring ? "" : "the ring buffer (5.8)", !ring && !kread ? " and " : "",
		  kread ? "" : "bpf_probe_read_kernel() (5.5)");
	return -ENOSYS;
}

/*
 * Whether tracing programs may call bpf_sk_storage_get() (5.11), which the
 * hooks' out-of-order notes need (ooo.bpf.h): a program that calls it
 * with no arguments, refused for them where it may, and as an unknown
 * function where it may not. Cached.
 */
static bool probe_sk_storage_insn(void)
{
	const struct bpf_insn insns[] = {
		{ .code = 0x85, .imm = 107 },		  /* call bpf_sk_storage_get */
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
		{ .code = 0x95 },			  /* exit */
	};
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id = vmlinux ? btf__find_by_name_kind(vmlinux, "tcp_v4_do_rcv", BTF_KIND_FUNC) : -1;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	char log[4096] = "";
	int fd;

	btf__free(vmlinux);
	if (id < 0)
		return false;
	opts.attach_btf_id = id;
	opts.log_buf = log;
	opts.log_size = sizeof(log);
	opts.log_level = 1;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "rxlat_probe", "GPL", insns, 3, &opts);
	if (fd >= 0)
		close(fd);
	return !strstr(log, "unknown func");
}

bool probe_sk_storage(void)
{
	static int known = -1;

	if (known < 0)
		known = probe_sk_storage_insn();
	return known;
}

static int probe_fentry(const struct btf *vmlinux, const char *func)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	int id, fd, link, err = 0;

	id = btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC);
	if (id < 0)
		return -ENOENT;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "rxlat_probe", "GPL", ret0, 2, &opts);
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

/*
 * A kprobe on func, attached as the hooks' kprobes are (libbpf: a perf event
 * of the kprobe PMU, the program set on it) with a program that returns at
 * once, and taken down: 0, or -errno (-ENOENT: func is not in kallsyms).
 */
static int probe_kprobe(const char *func)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	static int type = -2; /* the kprobe PMU's, read once: -1 none */
	int fd, pfd, err = 0;
	FILE *f;

	if (type == -2) {
		f = fopen("/sys/bus/event_source/devices/kprobe/type", "re");
		if (!f || fscanf(f, "%d", &type) != 1)
			type = -1;
		if (f)
			fclose(f);
	}
	if (type < 0)
		return -EOPNOTSUPP;
	attr.type = type;
	attr.config1 = (__u64)(unsigned long)func;
	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "rxlat_probe", "GPL", ret0, 2, NULL);
	if (fd < 0)
		return -errno;
	pfd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0) {
		err = -errno;
	} else {
		if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, fd))
			err = -errno;
		close(pfd);
	}
	close(fd);
	return err;
}

/*
 * An fd on the cgroup v2 root, the cgroup_skb fallback's attach target; *how
 * says where it came from. "ip netns exec" gives its command a mount
 * namespace with /sys remounted and no cgroup2 in it: then rxlat makes a
 * mount of its own (cgroup2_private_open()). (fsopen() is 5.2+; the
 * cgroup_skb fallback needs 6.3+ anyway.)
 */
int cgroup2_root_open(char *how, size_t len)
{
	char root[PATH_MAX];
	int fd;

	if (!cgroup2_mount_find(0, NULL, root, sizeof(root), NULL, 0)) {
		fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			snprintf(how, len, "the cgroup v2 mount %.100s", root);
			return fd;
		}
	}
	fd = cgroup2_private_open();
	if (fd >= 0)
		snprintf(how, len, "a private cgroup2 mount (none in this mount namespace)");
	else
		snprintf(how, len, "no cgroup v2 mount here, and mounting one failed: %s",
			 strerror(-fd));
	return fd;
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
				rxlat_warn("out of memory reading /proc/kallsyms");
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

/* The kfree_skb tracepoint passes a drop reason (5.17+). */
static bool drops_supported(const struct btf *vmlinux)
{
	int id = btf__find_by_name_kind(vmlinux, "btf_trace_kfree_skb", BTF_KIND_TYPEDEF);
	const struct btf_type *t;

	if (id < 0)
		return false;
	t = btf__type_by_id(vmlinux, btf__type_by_id(vmlinux, id)->type); /* pointer */
	t = btf__type_by_id(vmlinux, t->type);				  /* func proto */
	/* void *ctx, skb, location, reason [, rx_sk since 6.12] */
	return btf_is_func_proto(t) && btf_vlen(t) >= 4;
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
static const char *udp_read_probe(const struct plan_kernel *k)
{
	const char *why = "UDP reads unverified: the start-up check could not load its program";
	struct hooks_bpf *skel = hooks_skel_open();
	struct bpf_program *p;
	struct bpf_link *link = NULL;
	int status;
	pid_t pid;

	if (!skel)
		return why;
	bpf_object__for_each_program (p, skel->obj)
		bpf_program__set_autoload(p, p == skel->progs.rxlat_tp_udp_read);
	/* netns_ino 0 matches no namespace: the probe never records */
	skel->rodata->rxlat_cfg.udp_consume_lo = k->udp_consume_lo;
	skel->rodata->rxlat_cfg.udp_consume_hi = k->udp_consume_hi;
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
 * call (RXLAT_META_DIRECT in include/rxlat_meta.bpf.h): the probe program
 * alone, loaded, never attached.
 */
bool probe_direct_mem(void)
{
	struct hooks_bpf *skel = hooks_skel_open();
	struct bpf_program *p;
	bool ok;

	if (!skel) {
		rxlat_debug("direct metadata reads not tried: cannot open the hooks object: %s",
			    strerror(errno));
		return false;
	}
	bpf_object__for_each_program (p, skel->obj)
		bpf_program__set_autoload(p, p == skel->progs.rxlat_probe_mem);
	bpf_map__set_max_entries(skel->maps.rxlat_ifslots, 1);
	ok = !hooks_bpf__load(skel);
	hooks_bpf__destroy(skel);
	return ok;
}

int probe_drops(void)
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

/*
 * Fills k with what the decisions will read, stage by stage: the fentry
 * targets unless --attach fallback, and a fallback's needs only where the
 * stage falls back. 0, -EINTR on a stop signal, or -errno said.
 */
static int probe_kernel(const struct rxlat_config *cfg, struct plan_kernel *k)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int s, err;

	if (!vmlinux) {
		rxlat_err("cannot read the kernel's BTF (/sys/kernel/btf/vmlinux): rxlat needs a "
			  "kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -ENOENT;
	}
	memset(k, 0, sizeof(*k));
	err = check_privileges();
	if (!err)
		err = check_floor(vmlinux);
	for (s = 0; s < RXLAT_NR_STAGES && !err; s++) {
		const struct plan_prog *fentry = &plan_progs[s * PLAN_PER_STAGE];

		/* each probe attaches a trampoline: slow under emulation */
		if (signals_stop()) {
			err = -EINTR;
			break;
		}
		if (!cfg->stages[s])
			continue;
		if (cfg->attach != RXLAT_ATTACH_FALLBACK)
			for (int i = 0; i < 2 && fentry[i].fentry && !(i && k->fentry[s][0]); i++)
				k->fentry[s][i] = probe_fentry(vmlinux, fentry[i].fentry);
		if (!plan_wants_fallback(cfg, k, s))
			continue;
		if (s == RXLAT_STAGE_UDP_QUEUE_RCV) {
			k->cast_to_kern_ctx =
			    btf__find_by_name_kind(vmlinux, "bpf_cast_to_kern_ctx",
						   BTF_KIND_FUNC) >= 0;
			if (k->cast_to_kern_ctx) {
				int fd = cgroup2_root_open(k->cgroup2_how, sizeof(k->cgroup2_how));

				k->cgroup2 = fd < 0 ? fd : 0;
				if (fd >= 0)
					close(fd);
			}
		}
		if (plan_wants_kprobe(cfg, k, s))
			for (int i = 0; i < 2 && fentry[i].fentry && !(i && k->kprobe[s][0]); i++)
				k->kprobe[s][i] = probe_kprobe(fentry[i].fentry);
		if (s == RXLAT_STAGE_SOCK_READ) {
			k->consume_skb_location = consume_skb_has_location(vmlinux);
			if (k->consume_skb_location)
				k->udp_consume = ksym_range("skb_consume_udp", &k->udp_consume_lo,
							    &k->udp_consume_hi);
		}
	}
	btf__free(vmlinux);
	if (err)
		return err;
	/* after the BTF is freed: the check's object loads a copy of its own */
	if (plan_wants_fallback(cfg, k, RXLAT_STAGE_SOCK_READ) && k->consume_skb_location &&
	    !k->udp_consume)
		k->udp_read = udp_read_probe(k);
	return 0;
}

int probe_and_decide(const struct rxlat_config *cfg, struct plan *plan,
		     struct rxlat_hooks_info *info)
{
	struct plan_kernel k;
	int err = probe_kernel(cfg, &k);

	if (err) {
		memset(info, 0, sizeof(*info));
		memset(plan, 0, sizeof(*plan));
		return err;
	}
	err = plan_decide(cfg, &k, plan, info);
	for (int s = 0; s < RXLAT_NR_STAGES && err; s++)
		if (cfg->stages[s] && !info->attach[s]) {
			rxlat_err("%s fentry: stage %s: %s; use %s auto to fall back",
				  opt(OPT_ATTACH), rxlat_stage_names[s], info->unavailable[s],
				  opt(OPT_ATTACH));
			break;
		}
	return err;
}
