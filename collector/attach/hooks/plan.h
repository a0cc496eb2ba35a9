/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attach plan of the latency hooks: for each stage, the attach point
 * chosen on this kernel and why. Two halves:
 *   hooks_probe.c  what the kernel offers (struct plan_kernel), found by
 *                  trying: a function can be in BTF and still refuse a
 *                  trampoline, and some kernels refuse all trampolines
 *                  before the verifier runs;
 *   plan.c         the decisions, from the configuration and a struct
 *                  plan_kernel alone: no kernel, no BPF, no messages, so
 *                  that a unit test gives it any kernel it likes
 *                  (unit-tests/plan_test.c).
 * plan.c also holds the program table: which program of hooks.bpf.c
 * serves which attach point of the stage table, and when it loads.
 */
#ifndef RXLAT_PLAN_H
#define RXLAT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "config.h"
#include "hooks.h"

/*
 * P_BOTH: a program attached in either set, whenever its stage is;
 * P_KPROBE: the fentry targets by kprobe, where the fallback is missing or
 * cannot load
 */
enum point { P_NONE, P_FENTRY, P_FALLBACK, P_BOTH, P_KPROBE };

/*
 * What this kernel offers the hooks. The probes fill only what a decision
 * will read (each costs a trampoline, or a kallsyms read, or a program
 * load): plan_wants_fallback() says which.
 */
struct plan_kernel {
	/*
	 * Per stage, its fentry targets (IPv4, then the IPv6 twin): 0 when a
	 * program loads and attaches there, else -errno (-ENOENT: not in BTF,
	 * -EPERM: trampolines refused). Probed up to the first failure.
	 */
	int fentry[RXLAT_NR_STAGES][2];
	/* the kfunc bpf_cast_to_kern_ctx() (6.3+): the cgroup_skb fallback */
	bool cast_to_kern_ctx;
	/* the cgroup v2 root could be opened (0, else -errno), and how */
	int cgroup2;
	char cgroup2_how[160];
	/* the consume_skb tracepoint passes its caller's address (6.3+) */
	bool consume_skb_location;
	/* [lo, hi) of skb_consume_udp() from /proc/kallsyms: 0, or -errno */
	int udp_consume;
	__u64 udp_consume_lo, udp_consume_hi;
	/* the start-up check of the consume_skb fallback: NULL saw UDP reads */
	const char *udp_read;
	/*
	 * Per stage with a kprobe, a kprobe on each fentry target: 0 when it
	 * attaches, else -errno (-ENOENT: not in /proc/kallsyms). Probed
	 * where plan_wants_kprobe() says, up to the first failure.
	 */
	int kprobe[RXLAT_NR_STAGES][2];
};

/* What plan_decide() chose for each stage, and what attaching it needs. */
struct plan {
	enum point point[RXLAT_NR_STAGES];
	/* [lo, hi) of skb_consume_udp(), for the consume_skb fallback */
	__u64 udp_consume_lo, udp_consume_hi;
	bool udp_read_fallback; /* the consume_skb program can see UDP reads */
	bool drops;		/* --drops, on a kernel with drop reasons */
};

/* ---- plan.c: decisions, no kernel ---------------------------------- */

/* Whether stage s falls back, by the fentry results alone. */
bool plan_wants_fallback(const struct rxlat_config *cfg, const struct plan_kernel *k, int s);
/*
 * Whether stage s falls back to its kprobes, by the fentry results and the
 * fallback's needs (k->cast_to_kern_ctx, k->cgroup2).
 */
bool plan_wants_kprobe(const struct rxlat_config *cfg, const struct plan_kernel *k, int s);
/*
 * The plan and its description (attach points, reasons, and per stage the
 * protocols measured and why not the others). 0, or -EOPNOTSUPP when
 * --attach fentry finds a stage without fentry.
 */
int plan_decide(const struct rxlat_config *cfg, const struct plan_kernel *k, struct plan *plan,
		struct rxlat_hooks_info *info);

/*
 * The program table: one entry per attach point of the stage table
 * (include/rxlat.h), made from it, PLAN_PER_STAGE per stage in the order
 * fentry, fentry6, fallback, common, kprobe, kprobe6. Entries of attach
 * points a stage does not have are empty (plan_prog_section() false). The
 * program of an entry is the one whose section is that attach point.
 */
#define PLAN_PER_STAGE 6
struct plan_prog {
	enum rxlat_stage stage;
	enum point set;	     /* P_FENTRY, P_FALLBACK, P_BOTH (common) or P_KPROBE */
	const char *fentry;  /* fentry target function, or NULL */
	const char *point;   /* "type:target" of the stage table, or NULL */
	const char *kprobe;  /* kprobe target function, or NULL */
	unsigned int protos; /* what the program sees: RXLAT_STAGES' protos columns */
};
extern const struct plan_prog plan_progs[RXLAT_NR_STAGES * PLAN_PER_STAGE];
/* The section of pp's program ("fentry/ip_rcv_core"): false for an empty entry. */
bool plan_prog_section(const struct plan_prog *pp, char *buf, size_t len);
/* The entry whose program has section sec, NULL if none. */
const struct plan_prog *plan_prog_of(const char *sec);
/* Whether the program of pp loads under plan. */
bool plan_prog_loads(const struct plan *plan, const struct plan_prog *pp);
/* The protocols (RXLAT_PROTO_BIT()s) whose packets the program of pp sees. */
unsigned int plan_prog_protos(const struct plan_prog *pp);

/*
 * The programs of hooks.bpf.c outside the stage table, by name: the direct
 * read probe (loaded alone by hooks_probe.c, never with the hooks), --drops,
 * the out-of-order tracker of TCP's sock_read, and the two programs that
 * napi_wait's fallback needs besides its softirq_raise.
 */
struct plan_extra {
	const char *name;
	const char *section;
};
#define PLAN_PROBE_MEM "rxlat_probe_mem"
#define PLAN_DROP      "rxlat_tp_drop"
#define PLAN_OOO       "rxlat_tp_tcp_ooo" /* with sock_read: reads held behind ooo data */
/* napi_wait's fallback: a round of the NET_RX softirq begins and ends; a NAPI thread is woken */
#define PLAN_NAPI_ENTRY "rxlat_wait_entry"
#define PLAN_NAPI_EXIT	"rxlat_wait_exit"
#define PLAN_NAPI_WAKE	"rxlat_wait_wake"
/* napi_wait in both sets: a poll's end */
#define PLAN_NAPI_POLL "rxlat_wait_poll"
/* napi_wait with trampolines: an interrupt's schedule inside rxlat_wait_sched */
#define PLAN_NAPI_PREP "rxlat_wait_prep"
extern const struct plan_extra plan_extras[8];

/* ---- hooks_probe.c: what this kernel offers ------------------------ */

/*
 * Probe, then decide: the whole plan for cfg on this kernel, with the
 * reason of every refusal said in one line. 0 or -errno.
 */
int probe_and_decide(const struct rxlat_config *cfg, struct plan *plan,
		     struct rxlat_hooks_info *info);
/* --drops needs the kfree_skb tracepoint's drop reason: 0, or -EOPNOTSUPP said. */
int probe_drops(void);
/* Whether the kernel lets the hooks load through skb->head (direct_mem). */
bool probe_direct_mem(void);
/* Whether the verifier takes atomic instructions with a result (fetch-add, compare-and-swap). */
bool probe_fetch(void);
/* Whether tracing programs may use socket storage (bpf_sk_storage_get(), 5.11). */
bool probe_sk_storage(void);
/* hooks_skel.c: the hooks' object in the form the kernel takes, opened; NULL and errno */
struct hooks_bpf *hooks_skel_open(void);
struct btf;
/* Whether this kernel's BPF has helper name (an enumerator of enum bpf_func_id). */
bool plan_has_helper(const struct btf *vmlinux, const char *name);
/* An fd on the cgroup v2 root, *how says where from (or why not): fd or -errno. */
int cgroup2_root_open(char *how, size_t len);

#endif
