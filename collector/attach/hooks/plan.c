// SPDX-License-Identifier: GPL-2.0
/*
 * The decisions of the attach plan: for each stage the attach point and
 * the reason, from the configuration and what the kernel offers (struct
 * plan_kernel, filled by hooks_probe.c). Nothing here touches the kernel,
 * so a unit test can check every decision; and the program table, made
 * from the stage table of include/rxlat.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "plan.h"

struct stage_def {
	const char *fentry[2];	 /* target functions, IPv4 and IPv6 twin */
	const char *fallback;	 /* fallback attach point, NULL if none */
	const char *no_fallback; /* why there is none */
	bool kprobe;		 /* the fentry targets by kprobe, the last resort */
	const char *common;	 /* attach point used in both sets */
};

#define STAGE_DEF(id, name, fentry4, fentry6, fb, no_fb, kp, com, ...) \
	[RXLAT_STAGE_##id] = { .fentry = { fentry4, fentry6 },         \
			       .fallback = fb,                         \
			       .no_fallback = no_fb,                   \
			       .kprobe = kp,                           \
			       .common = com },
static const struct stage_def stage_defs[RXLAT_NR_STAGES] = { RXLAT_STAGES(STAGE_DEF) };
#undef STAGE_DEF

/* In the order of PLAN_PER_STAGE: fentry, fentry6, fallback, common, kprobe, kprobe6. */
// clang-format off
#define PLAN_PROGS(id, name, fentry4, fentry6, fb, no_fb, kp, com, pr, com_pr)	\
	{ RXLAT_STAGE_##id, P_FENTRY, fentry4, NULL, NULL, pr },		\
	{ RXLAT_STAGE_##id, P_FENTRY, fentry6, NULL, NULL, pr },		\
	{ RXLAT_STAGE_##id, P_FALLBACK, NULL, fb, NULL, pr },			\
	{ RXLAT_STAGE_##id, P_BOTH, NULL, com, NULL, com_pr },			\
	{ RXLAT_STAGE_##id, P_KPROBE, NULL, NULL, (kp) ? fentry4 : NULL, pr },	\
	{ RXLAT_STAGE_##id, P_KPROBE, NULL, NULL, (kp) ? fentry6 : NULL, pr },
// clang-format on
const struct plan_prog plan_progs[RXLAT_NR_STAGES * PLAN_PER_STAGE] = { RXLAT_STAGES(PLAN_PROGS) };
#undef PLAN_PROGS

const struct plan_extra plan_extras[8] = {
	{ PLAN_PROBE_MEM, "tp_btf/netif_receive_skb" },
	{ PLAN_DROP, "tp_btf/kfree_skb" },
	{ PLAN_OOO, "tp_btf/tcp_probe" },
	{ PLAN_NAPI_ENTRY, "tp_btf/softirq_entry" },
	{ PLAN_NAPI_EXIT, "tp_btf/softirq_exit" },
	{ PLAN_NAPI_WAKE, "tp_btf/sched_waking" },
	{ PLAN_NAPI_POLL, "tp_btf/napi_poll" },
	{ PLAN_NAPI_PREP, "fexit/napi_schedule_prep" },
};

bool plan_prog_section(const struct plan_prog *pp, char *buf, size_t len)
{
	const char *colon;

	if (pp->fentry || pp->kprobe) {
		snprintf(buf, len, "%s/%s", pp->fentry ? "fentry" : "kprobe",
			 pp->fentry ? pp->fentry : pp->kprobe);
		return true;
	}
	if (!pp->point)
		return false;
	colon = strchr(pp->point, ':');
	if (!colon)
		return false;
	snprintf(buf, len, "%.*s/%s", (int)(colon - pp->point), pp->point, colon + 1);
	return true;
}

const struct plan_prog *plan_prog_of(const char *sec)
{
	char buf[128];

	for (size_t i = 0; i < sizeof(plan_progs) / sizeof(plan_progs[0]); i++)
		if (plan_prog_section(&plan_progs[i], buf, sizeof(buf)) && !strcmp(buf, sec))
			return &plan_progs[i];
	return NULL;
}

bool plan_prog_loads(const struct plan *plan, const struct plan_prog *pp)
{
	enum point at = plan->point[pp->stage];

	/* napi_wait's raise: a backlog's schedule, in both sets */
	if (pp->stage == RXLAT_STAGE_NAPI_WAIT && pp->set == P_FALLBACK)
		return at != P_NONE;
	if (at == P_NONE || (pp->set != P_BOTH && pp->set != at))
		return false;
	/* sock_read's consume_skb program, only where it can see UDP reads */
	if (pp->stage == RXLAT_STAGE_SOCK_READ && pp->set == P_FALLBACK)
		return plan->udp_read_fallback;
	return true;
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

static const char *fentry_reason(int err, const char *func, char *buf, size_t len)
{
	if (err == -ENOENT)
		snprintf(buf, len, "%s is not in the kernel's BTF (inlined or renamed)", func);
	else if (err == -EPERM)
		snprintf(buf, len, "BPF trampolines refused (fentry on %s: EPERM)", func);
	else
		snprintf(buf, len, "fentry on %s failed: %s", func, strerror(-err));
	return buf;
}

/* 0 when every fentry target of s loads and attaches, else the first failure. */
static int fentry_result(const struct plan_kernel *k, int s, const char **failed)
{
	const struct stage_def *d = &stage_defs[s];
	int err = 0;

	*failed = NULL;
	for (int i = 0; i < 2 && d->fentry[i] && !err; i++) {
		err = k->fentry[s][i];
		*failed = d->fentry[i];
	}
	return err;
}

bool plan_wants_fallback(const struct rxlat_config *cfg, const struct plan_kernel *k, int s)
{
	const char *failed;

	if (!cfg->stages[s] || cfg->attach == RXLAT_ATTACH_FENTRY)
		return false;
	return cfg->attach == RXLAT_ATTACH_FALLBACK || fentry_result(k, s, &failed);
}

/* Why the fallback of stage s cannot serve here, NULL when it can. */
static const char *fallback_refused(int s, const struct plan_kernel *k)
{
	const struct stage_def *d = &stage_defs[s];

	if (!d->fallback)
		return d->no_fallback;
	if (s == RXLAT_STAGE_UDP_QUEUE_RCV) {
		if (!k->cast_to_kern_ctx)
			return "the cgroup_skb fallback needs bpf_cast_to_kern_ctx (Linux 6.3+)";
		if (k->cgroup2)
			return k->cgroup2_how;
	}
	return NULL;
}

bool plan_wants_kprobe(const struct rxlat_config *cfg, const struct plan_kernel *k, int s)
{
	return stage_defs[s].kprobe && plan_wants_fallback(cfg, k, s) && fallback_refused(s, k);
}

static const char *kprobe_reason(int err, const char *func, char *buf, size_t len)
{
	if (err == -ENOENT)
		snprintf(buf, len, "no kprobe either: %s is not in /proc/kallsyms (inlined)", func);
	else if (err == -EOPNOTSUPP)
		snprintf(buf, len, "no kprobe either: this kernel has no kprobes (CONFIG_KPROBES)");
	else
		snprintf(buf, len, "no kprobe either: on %s: %s", func, strerror(-err));
	return buf;
}

/*
 * The last resort of stage s, whose fallback cannot serve (*reason says
 * why): its kprobes where they attach, else nothing, *reason saying why.
 */
static enum point kprobe_or_none(int s, const struct plan_kernel *k, struct rxlat_hooks_info *info,
				 const char **reason)
{
	const struct stage_def *d = &stage_defs[s];
	char why[160];

	if (!d->kprobe)
		return P_NONE;
	for (int i = 0; i < 2 && d->fentry[i]; i++)
		if (k->kprobe[s][i]) {
			*reason = add_reason(
			    info, s, *reason,
			    kprobe_reason(k->kprobe[s][i], d->fentry[i], why, sizeof(why)));
			return P_NONE;
		}
	return P_KPROBE;
}

static enum point plan_stage(int s, const struct rxlat_config *cfg, const struct plan_kernel *k,
			     struct plan *plan, struct rxlat_hooks_info *info, const char **reason)
{
	const char *failed, *refused;
	int err;

	*reason = NULL;
	if (cfg->attach != RXLAT_ATTACH_FALLBACK) {
		err = fentry_result(k, s, &failed);
		if (!err)
			return P_FENTRY;
		*reason =
		    fentry_reason(err, failed, info->reason_buf[s], sizeof(info->reason_buf[s]));
		if (cfg->attach == RXLAT_ATTACH_FENTRY)
			return P_NONE;
	}
	refused = fallback_refused(s, k);
	if (refused) {
		*reason = add_reason(info, s, *reason, refused);
		return kprobe_or_none(s, k, info, reason);
	}
	/* without a way to see UDP reads, sock_read still has TCP's */
	if (s == RXLAT_STAGE_SOCK_READ) {
		const char *why = NULL;

		if (!k->consume_skb_location)
			why = "TCP only: the consume_skb fallback for UDP needs the "
			      "tracepoint's caller argument (Linux 6.3+)";
		else if (k->udp_consume)
			why = "TCP only: skb_consume_udp not found in /proc/kallsyms";
		if (why) {
			*reason = add_reason(info, s, *reason, why);
		} else if (k->udp_read) {
			/* the start-up check ran the consume_skb program and saw no read */
			*reason = add_reason(info, s, *reason ? *reason : "no fentry", k->udp_read);
		} else {
			plan->udp_read_fallback = true;
			plan->udp_consume_lo = k->udp_consume_lo;
			plan->udp_consume_hi = k->udp_consume_hi;
		}
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

	if (p == P_FENTRY || p == P_KPROBE) {
		/* napi_wait: and the raise, a backlog's schedule */
		snprintf(buf, len, "%s%s%s:%s%s%s%s", c, sep, p == P_FENTRY ? "fentry" : "kprobe",
			 d->fentry[0], d->fentry[1] ? "," : "", d->fentry[1] ? d->fentry[1] : "",
			 s == RXLAT_STAGE_NAPI_WAIT ? ",softirq_raise" : "");
		info->attach[s] = buf;
	} else if (p == P_FALLBACK && s == RXLAT_STAGE_SOCK_READ && !plan->udp_read_fallback) {
		snprintf(buf, len, "%s", c);
		info->attach[s] = buf;
	} else if (p == P_FALLBACK) {
		/* napi_wait's fallback: the raise, and a NAPI thread's wake-up (PLAN_NAPI_WAKE) */
		snprintf(buf, len, "%s%s%s%s", c, sep, d->fallback,
			 s == RXLAT_STAGE_NAPI_WAIT ? ",sched_waking" : "");
		info->attach[s] = buf;
	} else {
		info->attach[s] = NULL;
	}
}

/* The protocols the program of pp sees: its row's of RXLAT_STAGES. */
unsigned int plan_prog_protos(const struct plan_prog *pp)
{
	return pp->protos;
}

/*
 * What stage s measures under plan: the protocols of the programs that
 * load, and for each other protocol of the stage's programs the reason:
 * the stage's own when it is off or unavailable, else why (the one case:
 * sock_read's UDP program without a way to see UDP reads).
 */
static void cover(int s, const struct rxlat_config *cfg, const struct plan *plan,
		  struct rxlat_hooks_info *info, const char *why)
{
	struct rxlat_coverage *c = &info->coverage[s];
	unsigned int all = 0;
	char sec[128];

	for (int i = 0; i < PLAN_PER_STAGE; i++) {
		const struct plan_prog *pp = &plan_progs[s * PLAN_PER_STAGE + i];

		if (!plan_prog_section(pp, sec, sizeof(sec)))
			continue;
		all |= plan_prog_protos(pp);
		if (plan_prog_loads(plan, pp))
			c->measured |= plan_prog_protos(pp);
	}
	if (!cfg->stages[s])
		why = "stage not asked for (--stages)";
	else if (plan->point[s] == P_NONE)
		why = info->unavailable[s];
	for (int p = 0; p < RXLAT_NR_PROTOS; p++)
		if ((all & ~c->measured) & RXLAT_PROTO_BIT(p))
			c->why_not[p] = why ? why : "no attach point for it";
}

int plan_decide(const struct rxlat_config *cfg, const struct plan_kernel *k, struct plan *plan,
		struct rxlat_hooks_info *info)
{
	int err = 0;

	memset(info, 0, sizeof(*info));
	memset(plan, 0, sizeof(*plan));
	for (int s = 0; s < RXLAT_NR_STAGES; s++) {
		enum point *p = &plan->point[s];
		const char *reason;

		if (!cfg->stages[s]) {
			cover(s, cfg, plan, info, NULL);
			continue;
		}
		*p = plan_stage(s, cfg, k, plan, info, &reason);
		describe(s, plan, info);
		if (*p == P_NONE)
			info->unavailable[s] = reason;
		else if ((*p == P_FALLBACK || *p == P_KPROBE) && stage_defs[s].fentry[0])
			info->fallback_why[s] = reason;
		cover(s, cfg, plan, info, reason);
		if (*p == P_NONE && cfg->attach == RXLAT_ATTACH_FENTRY)
			err = -EOPNOTSUPP;
	}
	return err;
}
