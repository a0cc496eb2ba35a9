// SPDX-License-Identifier: GPL-2.0
/*
 * The attach plan's decisions (collector/attach/hooks/plan.c) on kernels made up
 * for the test: what each stage attaches to, the reason it says, and which
 * programs load, and which protocols each stage measures (and why not the
 * others), for --attach auto, fentry and fallback on a kernel with
 * trampolines, one without (like the 6.18 host), and older or narrower
 * ones. No kernel, no BPF. One PASS or FAIL line per check.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "plan.h"

#define TRAMPOLINES_REFUSED "BPF trampolines refused (fentry on %s: EPERM)"
#define UDP_FREED_ELSEWHERE                                                            \
	"TCP only: this kernel frees read UDP datagrams without passing consume_skb, " \
	"only fentry sees them"

#define TARGETS(id, name, f4, f6, ...) [RXLAT_STAGE_##id] = { f4, f6 },
static const char *const fentry_targets[RXLAT_NR_STAGES][2] = { RXLAT_STAGES(TARGETS) };
#undef TARGETS

static struct rxlat_config config(enum rxlat_attach_mode attach)
{
	struct rxlat_config cfg = { .attach = attach };

	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		cfg.stages[s] = true;
	return cfg;
}

/* A kernel that offers everything: trampolines, 6.3+ fallbacks, UDP reads seen. */
static struct plan_kernel kernel_full(void)
{
	struct plan_kernel k = {
		.cast_to_kern_ctx = true,
		.consume_skb_location = true,
		.udp_consume_lo = 0xffffffff81000000ull,
		.udp_consume_hi = 0xffffffff81000100ull,
	};

	snprintf(k.cgroup2_how, sizeof(k.cgroup2_how), "the cgroup v2 mount /sys/fs/cgroup");
	return k;
}

/* The host: every trampoline refused, no kprobes, UDP reads freed past consume_skb. */
static struct plan_kernel kernel_host(void)
{
	struct plan_kernel k = kernel_full();

	for (int s = 0; s < RXLAT_NR_STAGES; s++) {
		k.fentry[s][0] = k.fentry[s][1] = -EPERM;
		k.kprobe[s][0] = k.kprobe[s][1] = -EOPNOTSUPP;
	}
	k.udp_read = UDP_FREED_ELSEWHERE;
	return k;
}

/* Debian 12's arm64 6.1: every trampoline refused, kprobes, none of the 6.3 fallbacks. */
static struct plan_kernel kernel_arm64_6_1(void)
{
	struct plan_kernel k = kernel_host();

	memset(k.kprobe, 0, sizeof(k.kprobe));
	k.cast_to_kern_ctx = false;
	k.consume_skb_location = false;
	k.udp_read = NULL;
	return k;
}

#define TDQ_NO_TP   "no tracepoint inside (static function)"
#define NO_KPROBES  "no kprobe either: this kernel has no kprobes (CONFIG_KPROBES)"
#define NO_CAST	    "the cgroup_skb fallback needs bpf_cast_to_kern_ctx (Linux 6.3+)"
#define UDP_KPROBES "kprobe:udp_queue_rcv_one_skb,udpv6_queue_rcv_one_skb"

static void expect_str(const char *what, const char *got, const char *want)
{
	if (got && want ? strcmp(got, want) != 0 : got != want)
		check_fail("%s: got \"%s\", want \"%s\"", what, got ? got : "(null)",
			   want ? want : "(null)");
}

/* Stage s attaches to want (NULL: unavailable), with reason why. */
static void expect_stage(const struct rxlat_hooks_info *info, int s, const char *want,
			 const char *why)
{
	char what[64];

	snprintf(what, sizeof(what), "stage %d attach", s);
	expect_str(what, info->attach[s], want);
	snprintf(what, sizeof(what), "stage %d reason", s);
	expect_str(what, want ? info->fallback_why[s] : info->unavailable[s], why);
	if (want && info->unavailable[s])
		check_fail("stage %d attaches and is unavailable: %s", s, info->unavailable[s]);
}

/*
 * What stage s measures, as "tcp,udp", or "tcp; udp: WHY" with the reason
 * of each protocol of the stage's not measured ("none" when it measures
 * none of them).
 */
static void expect_cover(const struct rxlat_hooks_info *info, int s, const char *want)
{
	const struct rxlat_coverage *c = &info->coverage[s];
	char got[1024] = "", what[64];
	size_t n = 0;

	for (int p = 0; p < 2; p++)
		if (c->measured & RXLAT_PROTO_BIT(p))
			n += snprintf(got + n, sizeof(got) - n, "%s%s", n ? "," : "",
				      p ? "udp" : "tcp");
	if (!n)
		n = snprintf(got, sizeof(got), "none");
	for (int p = 0; p < 2; p++) {
		if (c->why_not[p] && c->measured & RXLAT_PROTO_BIT(p))
			check_fail("stage %d: %s measured and not: %s", s, p ? "udp" : "tcp",
				   c->why_not[p]);
		if (c->why_not[p] && n < sizeof(got))
			n += snprintf(got + n, sizeof(got) - n, "; %s: %s", p ? "udp" : "tcp",
				      c->why_not[p]);
	}
	snprintf(what, sizeof(what), "stage %d measures", s);
	expect_str(what, got, want);
}

static const char *refused(int s, int i)
{
	static char buf[RXLAT_NR_STAGES][2][96];

	snprintf(buf[s][i], sizeof(buf[s][i]), TRAMPOLINES_REFUSED, fentry_targets[s][i]);
	return buf[s][i];
}

/*
 * Which programs load: one letter per attach point of plan_progs (F, f, b,
 * c, k, k), '-' if not.
 */
static void expect_loads(const struct plan *plan, const char *want)
{
	char got[RXLAT_NR_STAGES * (PLAN_PER_STAGE + 1) + 1];
	size_t n = 0;

	for (int s = 0; s < RXLAT_NR_STAGES; s++) {
		for (int i = 0; i < PLAN_PER_STAGE; i++) {
			const struct plan_prog *pp = &plan_progs[s * PLAN_PER_STAGE + i];
			char sec[128];

			if (!plan_prog_section(pp, sec, sizeof(sec)))
				got[n++] = '.';
			else
				got[n++] = plan_prog_loads(plan, pp) ? "Ffbckk"[i] : '-';
		}
		got[n++] = ' ';
	}
	got[n - 1] = '\0';
	expect_str("programs loaded", got, want);
}

static void test_fentry_all(void)
{
	struct rxlat_config cfg = config(RXLAT_ATTACH_AUTO);
	struct plan_kernel k = kernel_full();
	struct rxlat_hooks_info info;
	struct plan plan;

	CHECK_U64("plan_decide", plan_decide(&cfg, &k, &plan, &info), 0);
	expect_stage(&info, RXLAT_STAGE_NAPI_WAIT,
		     "fentry:__napi_schedule,__napi_schedule_irqoff,softirq_raise", NULL);
	expect_stage(&info, RXLAT_STAGE_IP_RCV, "fentry:ip_rcv_core,ip6_rcv_core", NULL);
	expect_stage(&info, RXLAT_STAGE_TCP_DO_RCV, "fentry:tcp_v4_do_rcv,tcp_v6_do_rcv", NULL);
	expect_stage(&info, RXLAT_STAGE_TCP_DATA_QUEUE, "fentry:tcp_data_queue", NULL);
	expect_stage(&info, RXLAT_STAGE_UDP_QUEUE_RCV,
		     "fentry:udp_queue_rcv_one_skb,udpv6_queue_rcv_one_skb", NULL);
	expect_stage(&info, RXLAT_STAGE_SOCK_READ,
		     "tp_btf:skb_copy_datagram_iovec,fentry:skb_consume_udp", NULL);
	expect_loads(&plan, "Ffb... Ff-... Ff-... F...-. Ff-.-- F.-c..");
	expect_cover(&info, RXLAT_STAGE_IP_RCV, "tcp,udp");
	expect_cover(&info, RXLAT_STAGE_TCP_DO_RCV, "tcp");
	expect_cover(&info, RXLAT_STAGE_TCP_DATA_QUEUE, "tcp");
	expect_cover(&info, RXLAT_STAGE_UDP_QUEUE_RCV, "udp");
	expect_cover(&info, RXLAT_STAGE_SOCK_READ, "tcp,udp");
	check_done("fentry_everywhere");
}

/* What --list-stages says on the 6.18 host, word for word. */
static void test_host(void)
{
	struct rxlat_config cfg = config(RXLAT_ATTACH_AUTO);
	struct plan_kernel k = kernel_host();
	struct rxlat_hooks_info info;
	struct plan plan;
	char why[320];

	CHECK_U64("plan_decide", plan_decide(&cfg, &k, &plan, &info), 0);
	expect_stage(&info, RXLAT_STAGE_NAPI_WAIT, "tp_btf:softirq_raise,sched_waking",
		     refused(RXLAT_STAGE_NAPI_WAIT, 0));
	expect_cover(&info, RXLAT_STAGE_NAPI_WAIT, "tcp,udp");
	expect_stage(&info, RXLAT_STAGE_IP_RCV, "tp_btf:netif_receive_skb",
		     refused(RXLAT_STAGE_IP_RCV, 0));
	expect_stage(&info, RXLAT_STAGE_TCP_DO_RCV, "tp_btf:tcp_probe",
		     refused(RXLAT_STAGE_TCP_DO_RCV, 0));
	snprintf(why, sizeof(why), "%s; " TDQ_NO_TP "; " NO_KPROBES,
		 refused(RXLAT_STAGE_TCP_DATA_QUEUE, 0));
	expect_stage(&info, RXLAT_STAGE_TCP_DATA_QUEUE, NULL, why);
	expect_stage(&info, RXLAT_STAGE_UDP_QUEUE_RCV, "cgroup_skb:ingress",
		     refused(RXLAT_STAGE_UDP_QUEUE_RCV, 0));
	snprintf(why, sizeof(why), "%s; " UDP_FREED_ELSEWHERE, refused(RXLAT_STAGE_SOCK_READ, 0));
	expect_stage(&info, RXLAT_STAGE_SOCK_READ, "tp_btf:skb_copy_datagram_iovec", why);
	if (plan.udp_read_fallback)
		check_fail("consume_skb program planned though it sees no UDP read");
	expect_loads(&plan, "--b... --b... --b... -...-. --b.-- -.-c..");
	/* sock_read is attached, and says that it leaves UDP out */
	snprintf(why, sizeof(why), "tcp; udp: %s; " UDP_FREED_ELSEWHERE,
		 refused(RXLAT_STAGE_SOCK_READ, 0));
	expect_cover(&info, RXLAT_STAGE_SOCK_READ, why);
	snprintf(why, sizeof(why), "none; tcp: %s; " TDQ_NO_TP "; " NO_KPROBES,
		 refused(RXLAT_STAGE_TCP_DATA_QUEUE, 0));
	expect_cover(&info, RXLAT_STAGE_TCP_DATA_QUEUE, why);
	expect_cover(&info, RXLAT_STAGE_IP_RCV, "tcp,udp");
	expect_cover(&info, RXLAT_STAGE_TCP_DO_RCV, "tcp");
	expect_cover(&info, RXLAT_STAGE_UDP_QUEUE_RCV, "udp");
	check_done("host_without_trampolines");
}

static void test_fentry_refused(void)
{
	struct rxlat_config cfg = config(RXLAT_ATTACH_FENTRY);
	struct plan_kernel k = kernel_host();
	struct rxlat_hooks_info info;
	struct plan plan;
	char why[640];

	CHECK_U64("plan_decide", (__u64)-plan_decide(&cfg, &k, &plan, &info), EOPNOTSUPP);
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		expect_stage(&info, s, NULL, refused(s, 0));
	expect_loads(&plan, "---... ---... ---... -...-. ---.-- -.--..");
	snprintf(why, sizeof(why), "none; tcp: %s; udp: %s", refused(RXLAT_STAGE_IP_RCV, 0),
		 refused(RXLAT_STAGE_IP_RCV, 0));
	expect_cover(&info, RXLAT_STAGE_IP_RCV, why);
	snprintf(why, sizeof(why), "none; tcp: %s; udp: %s", refused(RXLAT_STAGE_SOCK_READ, 0),
		 refused(RXLAT_STAGE_SOCK_READ, 0));
	expect_cover(&info, RXLAT_STAGE_SOCK_READ, why);
	check_done("attach_fentry_refused");
}

static void test_fallback_forced(void)
{
	struct rxlat_config cfg = config(RXLAT_ATTACH_FALLBACK);
	struct plan_kernel k = kernel_full();
	struct rxlat_hooks_info info;
	struct plan plan;

	CHECK_U64("plan_decide", plan_decide(&cfg, &k, &plan, &info), 0);
	expect_stage(&info, RXLAT_STAGE_IP_RCV, "tp_btf:netif_receive_skb", NULL);
	/* no tracepoint: its kprobe, at the same entry */
	expect_stage(&info, RXLAT_STAGE_TCP_DATA_QUEUE, "kprobe:tcp_data_queue", TDQ_NO_TP);
	expect_cover(&info, RXLAT_STAGE_TCP_DATA_QUEUE, "tcp");
	expect_stage(&info, RXLAT_STAGE_SOCK_READ,
		     "tp_btf:skb_copy_datagram_iovec,tp_btf:consume_skb", NULL);
	CHECK_U64("udp_consume_lo", plan.udp_consume_lo, k.udp_consume_lo);
	CHECK_U64("udp_consume_hi", plan.udp_consume_hi, k.udp_consume_hi);
	expect_loads(&plan, "--b... --b... --b... -...k. --b.-- -.bc..");
	expect_cover(&info, RXLAT_STAGE_SOCK_READ, "tcp,udp");
	expect_cover(&info, RXLAT_STAGE_UDP_QUEUE_RCV, "udp");
	check_done("attach_fallback");
}

static void test_fallback_no_udp_read(void)
{
	struct rxlat_config cfg = config(RXLAT_ATTACH_FALLBACK);
	struct plan_kernel k = kernel_full();
	struct rxlat_hooks_info info;
	struct plan plan;

	k.udp_read = UDP_FREED_ELSEWHERE;
	plan_decide(&cfg, &k, &plan, &info);
	expect_stage(&info, RXLAT_STAGE_SOCK_READ, "tp_btf:skb_copy_datagram_iovec",
		     "no fentry; " UDP_FREED_ELSEWHERE);
	expect_cover(&info, RXLAT_STAGE_SOCK_READ, "tcp; udp: no fentry; " UDP_FREED_ELSEWHERE);
	check_done("attach_fallback_udp_reads_unseen");
}

static void test_ipv6_twin(void)
{
	struct rxlat_config cfg = config(RXLAT_ATTACH_AUTO);
	struct plan_kernel k = kernel_full();
	struct rxlat_hooks_info info;
	struct plan plan;

	k.fentry[RXLAT_STAGE_IP_RCV][1] = -ENOENT;
	plan_decide(&cfg, &k, &plan, &info);
	expect_stage(&info, RXLAT_STAGE_IP_RCV, "tp_btf:netif_receive_skb",
		     "ip6_rcv_core is not in the kernel's BTF (inlined or renamed)");
	expect_stage(&info, RXLAT_STAGE_TCP_DO_RCV, "fentry:tcp_v4_do_rcv,tcp_v6_do_rcv", NULL);
	/* the fallback sees both families: nothing left out */
	expect_cover(&info, RXLAT_STAGE_IP_RCV, "tcp,udp");
	check_done("ipv6_twin_missing");
}

/* Before 6.3: no bpf_cast_to_kern_ctx, no caller in consume_skb. */
static void test_old_fallbacks(void)
{
	struct rxlat_config cfg = config(RXLAT_ATTACH_AUTO);
	struct plan_kernel k = kernel_host();
	struct rxlat_hooks_info info;
	struct plan plan;
	char why[320];

	k.cast_to_kern_ctx = false;
	k.consume_skb_location = false;
	k.udp_read = NULL;
	plan_decide(&cfg, &k, &plan, &info);
	snprintf(why, sizeof(why), "%s; " NO_CAST "; " NO_KPROBES,
		 refused(RXLAT_STAGE_UDP_QUEUE_RCV, 0));
	expect_stage(&info, RXLAT_STAGE_UDP_QUEUE_RCV, NULL, why);
	snprintf(why, sizeof(why),
		 "%s; TCP only: the consume_skb fallback for UDP needs the tracepoint's caller "
		 "argument (Linux 6.3+)",
		 refused(RXLAT_STAGE_SOCK_READ, 0));
	expect_stage(&info, RXLAT_STAGE_SOCK_READ, "tp_btf:skb_copy_datagram_iovec", why);
	snprintf(why, sizeof(why), "none; udp: %s; " NO_CAST "; " NO_KPROBES,
		 refused(RXLAT_STAGE_UDP_QUEUE_RCV, 0));
	expect_cover(&info, RXLAT_STAGE_UDP_QUEUE_RCV, why);
	snprintf(why, sizeof(why),
		 "tcp; udp: %s; TCP only: the consume_skb fallback for UDP needs the tracepoint's "
		 "caller argument (Linux 6.3+)",
		 refused(RXLAT_STAGE_SOCK_READ, 0));
	expect_cover(&info, RXLAT_STAGE_SOCK_READ, why);
	check_done("fallbacks_before_6_3");
}

static void test_no_cgroup2_no_kallsyms(void)
{
	struct rxlat_config cfg = config(RXLAT_ATTACH_AUTO);
	struct plan_kernel k = kernel_host();
	struct rxlat_hooks_info info;
	struct plan plan;
	char why[320];

	k.cgroup2 = -EPERM;
	snprintf(k.cgroup2_how, sizeof(k.cgroup2_how),
		 "no cgroup v2 mount here, and mounting one failed: %s", strerror(EPERM));
	k.udp_consume = -ENOENT;
	k.udp_read = NULL;
	plan_decide(&cfg, &k, &plan, &info);
	snprintf(why, sizeof(why), "%s; %s; " NO_KPROBES, refused(RXLAT_STAGE_UDP_QUEUE_RCV, 0),
		 k.cgroup2_how);
	expect_stage(&info, RXLAT_STAGE_UDP_QUEUE_RCV, NULL, why);
	/* with kprobes, they serve */
	memset(k.kprobe, 0, sizeof(k.kprobe));
	plan_decide(&cfg, &k, &plan, &info);
	snprintf(why, sizeof(why), "%s; %s", refused(RXLAT_STAGE_UDP_QUEUE_RCV, 0), k.cgroup2_how);
	expect_stage(&info, RXLAT_STAGE_UDP_QUEUE_RCV, UDP_KPROBES, why);
	snprintf(why, sizeof(why), "%s; TCP only: skb_consume_udp not found in /proc/kallsyms",
		 refused(RXLAT_STAGE_SOCK_READ, 0));
	expect_stage(&info, RXLAT_STAGE_SOCK_READ, "tp_btf:skb_copy_datagram_iovec", why);
	check_done("no_cgroup2_no_kallsyms");
}

static void test_stages_asked(void)
{
	struct rxlat_config cfg = config(RXLAT_ATTACH_AUTO);
	struct plan_kernel k = kernel_host();
	struct rxlat_hooks_info info;
	struct plan plan;

	memset(cfg.stages, 0, sizeof(cfg.stages));
	cfg.stages[RXLAT_STAGE_TCP_DO_RCV] = true;
	CHECK_U64("plan_decide", plan_decide(&cfg, &k, &plan, &info), 0);
	for (int s = 0; s < RXLAT_NR_STAGES; s++)
		if (s != RXLAT_STAGE_TCP_DO_RCV)
			expect_stage(&info, s, NULL, NULL);
	expect_stage(&info, RXLAT_STAGE_TCP_DO_RCV, "tp_btf:tcp_probe",
		     refused(RXLAT_STAGE_TCP_DO_RCV, 0));
	expect_loads(&plan, "---... ---... --b... -...-. ---.-- -.--..");
	expect_cover(&info, RXLAT_STAGE_TCP_DO_RCV, "tcp");
	expect_cover(&info, RXLAT_STAGE_UDP_QUEUE_RCV, "none; udp: stage not asked for (--stages)");
	expect_cover(
	    &info, RXLAT_STAGE_SOCK_READ,
	    "none; tcp: stage not asked for (--stages); udp: stage not asked for (--stages)");
	check_done("only_the_stages_asked");
}

/*
 * Debian 12 on arm64 (6.1): no trampolines, and neither 6.3 fallback of
 * udp_queue_rcv: its kprobes; tcp_data_queue's too, or the reason where it
 * was inlined.
 */
static void test_kprobes(void)
{
	struct rxlat_config cfg = config(RXLAT_ATTACH_AUTO);
	struct plan_kernel k = kernel_arm64_6_1();
	struct rxlat_hooks_info info;
	struct plan plan;
	char why[320];

	CHECK_U64("plan_decide", plan_decide(&cfg, &k, &plan, &info), 0);
	snprintf(why, sizeof(why), "%s; " NO_CAST, refused(RXLAT_STAGE_UDP_QUEUE_RCV, 0));
	expect_stage(&info, RXLAT_STAGE_UDP_QUEUE_RCV, UDP_KPROBES, why);
	expect_cover(&info, RXLAT_STAGE_UDP_QUEUE_RCV, "udp");
	snprintf(why, sizeof(why), "%s; " TDQ_NO_TP, refused(RXLAT_STAGE_TCP_DATA_QUEUE, 0));
	expect_stage(&info, RXLAT_STAGE_TCP_DATA_QUEUE, "kprobe:tcp_data_queue", why);
	expect_loads(&plan, "--b... --b... --b... -...k. ---.kk -.-c..");
	/* the IPv6 twin cannot be probed: neither is attached */
	k.kprobe[RXLAT_STAGE_UDP_QUEUE_RCV][1] = -ENOENT;
	k.kprobe[RXLAT_STAGE_TCP_DATA_QUEUE][0] = -ENOENT;
	plan_decide(&cfg, &k, &plan, &info);
	snprintf(why, sizeof(why),
		 "%s; " NO_CAST "; no kprobe either: udpv6_queue_rcv_one_skb is not in "
		 "/proc/kallsyms (inlined)",
		 refused(RXLAT_STAGE_UDP_QUEUE_RCV, 0));
	expect_stage(&info, RXLAT_STAGE_UDP_QUEUE_RCV, NULL, why);
	snprintf(why, sizeof(why),
		 "%s; " TDQ_NO_TP "; no kprobe either: tcp_data_queue is not in /proc/kallsyms "
		 "(inlined)",
		 refused(RXLAT_STAGE_TCP_DATA_QUEUE, 0));
	expect_stage(&info, RXLAT_STAGE_TCP_DATA_QUEUE, NULL, why);
	expect_loads(&plan, "--b... --b... --b... -...-. ---.-- -.-c..");
	/* --attach fentry takes no kprobe */
	cfg.attach = RXLAT_ATTACH_FENTRY;
	memset(k.kprobe, 0, sizeof(k.kprobe));
	plan_decide(&cfg, &k, &plan, &info);
	expect_loads(&plan, "---... ---... ---... -...-. ---.-- -.--..");
	check_done("kprobes_where_no_fallback_serves");
}

/* What hooks_probe.c probes for kprobes: only where the fallback cannot serve. */
static void test_wants_kprobe(void)
{
	struct rxlat_config cfg = config(RXLAT_ATTACH_AUTO);
	struct plan_kernel k = kernel_full();

	CHECK_U64("fentry works", plan_wants_kprobe(&cfg, &k, RXLAT_STAGE_TCP_DATA_QUEUE), 0);
	cfg.attach = RXLAT_ATTACH_FALLBACK;
	CHECK_U64("no fallback", plan_wants_kprobe(&cfg, &k, RXLAT_STAGE_TCP_DATA_QUEUE), 1);
	CHECK_U64("cgroup_skb serves", plan_wants_kprobe(&cfg, &k, RXLAT_STAGE_UDP_QUEUE_RCV), 0);
	CHECK_U64("stage has none", plan_wants_kprobe(&cfg, &k, RXLAT_STAGE_IP_RCV), 0);
	k.cast_to_kern_ctx = false;
	CHECK_U64("before 6.3", plan_wants_kprobe(&cfg, &k, RXLAT_STAGE_UDP_QUEUE_RCV), 1);
	k.cast_to_kern_ctx = true;
	k.cgroup2 = -EPERM;
	CHECK_U64("no cgroup2", plan_wants_kprobe(&cfg, &k, RXLAT_STAGE_UDP_QUEUE_RCV), 1);
	check_done("wants_kprobe");
}

/*
 * Every attach point of the stage table sees some protocol: a new stage or
 * attach point must say which (RXLAT_STAGES' protos columns).
 */
static void test_prog_protos(void)
{
	for (int s = 0; s < RXLAT_NR_STAGES; s++) {
		char sec[128];

		for (int i = 0; i < PLAN_PER_STAGE; i++) {
			const struct plan_prog *pp = &plan_progs[s * PLAN_PER_STAGE + i];

			if (!plan_prog_section(pp, sec, sizeof(sec)))
				continue;
			if (!plan_prog_protos(pp))
				check_fail("%s sees no protocol", sec);
		}
	}
	check_done("every_attach_point_sees_a_protocol");
}

/* What hooks_probe.c probes: a stage's fallback needs only where it falls back. */
static void test_wants_fallback(void)
{
	struct rxlat_config cfg = config(RXLAT_ATTACH_AUTO);
	struct plan_kernel k = kernel_full();

	k.fentry[RXLAT_STAGE_SOCK_READ][0] = -EPERM;
	CHECK_U64("auto, fentry works", plan_wants_fallback(&cfg, &k, RXLAT_STAGE_IP_RCV), 0);
	CHECK_U64("auto, fentry refused", plan_wants_fallback(&cfg, &k, RXLAT_STAGE_SOCK_READ), 1);
	cfg.attach = RXLAT_ATTACH_FALLBACK;
	CHECK_U64("fallback", plan_wants_fallback(&cfg, &k, RXLAT_STAGE_IP_RCV), 1);
	cfg.attach = RXLAT_ATTACH_FENTRY;
	CHECK_U64("fentry, refused", plan_wants_fallback(&cfg, &k, RXLAT_STAGE_SOCK_READ), 0);
	cfg.attach = RXLAT_ATTACH_AUTO;
	cfg.stages[RXLAT_STAGE_SOCK_READ] = false;
	CHECK_U64("not asked", plan_wants_fallback(&cfg, &k, RXLAT_STAGE_SOCK_READ), 0);
	check_done("wants_fallback");
}

int main(int argc, char **argv)
{
	check_args(argc, argv);
	CHECK_RUN(test_fentry_all);
	CHECK_RUN(test_host);
	CHECK_RUN(test_fentry_refused);
	CHECK_RUN(test_fallback_forced);
	CHECK_RUN(test_fallback_no_udp_read);
	CHECK_RUN(test_ipv6_twin);
	CHECK_RUN(test_old_fallbacks);
	CHECK_RUN(test_no_cgroup2_no_kallsyms);
	CHECK_RUN(test_stages_asked);
	CHECK_RUN(test_wants_fallback);
	CHECK_RUN(test_kprobes);
	CHECK_RUN(test_wants_kprobe);
	CHECK_RUN(test_prog_protos);
	return check_exit_status();
}
