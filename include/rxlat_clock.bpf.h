/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CLOCK_REALTIME in BPF, for the tc stamper and the latency hooks alike.
 * BPF has no realtime clock, and an offset that user space reads and hands
 * down is wrong from the moment the clock steps until the next refresh.
 * The kernel keeps its own offset CLOCK_REALTIME - CLOCK_MONOTONIC in every
 * CPU's hrtimer bases, and clock_was_set() refreshes the copies of all
 * online CPUs right after a step, an adjtimex() or a leap second.
 *
 * The bases are per-CPU data that BPF could name through BTF, but the
 * kernel resolves such a name through kallsyms, which holds no data symbols
 * without CONFIG_KALLSYMS_ALL (the case on some hosts). So the bases are
 * reached through a pointer every task has, the idle tasks included: its
 * deadline scheduler's hrtimer (dl.dl_timer), set up when the task is
 * created, with the bases of the CPU it was created on. The current task
 * comes as a BTF pointer (bpf_get_current_task_btf(), which the tc and
 * cgroup_skb programs may call too), so the walk is plain loads, which
 * the JIT guards as it would probe reads: no helper call on the way.
 *
 * In the moment between the timekeeper's update and the refresh, a copy is
 * stale; so it is checked against the live clocks: the TAI offset copied
 * with it must equal bpf_ktime_get_tai_ns() - bpf_ktime_get_ns(), which
 * reads the timekeeper itself. A TAI offset change and a realtime step both
 * move it, so a copy that passes is current; one that fails is not used.
 *
 * A kernel without bpf_ktime_get_tai_ns() (before 6.1), and whose tc
 * programs cannot reach a task as a BTF pointer, has neither the check nor
 * the walk: there rxlat itself keeps the offset, in rxlat_tc_offs (its
 * newest epoch), reads it again every second and takes a new epoch when it
 * moved (collector/attach/hooks/hooks_clock.c). A stamp converted with the
 * offset it was taken with is as exact; the kernel's own receive stamps,
 * and SO_TIMESTAMP readers of the tc stamper's, are off by a step of the
 * realtime clock for up to the second that rxlat takes to see it.
 */
#ifndef RXLAT_CLOCK_BPF_H
#define RXLAT_CLOCK_BPF_H

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "rxlat_tc_maps.bpf.h"

/* Whether the kernel's offset can be read and checked here (above), by CO-RE. */
#define rxlat_kernel_clock() bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_ktime_get_tai_ns)

/* The offset rxlat keeps, and its epoch: false before it has one. */
static __always_inline bool rxlat_user_offset(__s64 *offs, __u32 *epoch)
{
	__u32 zero = 0, e;
	struct rxlat_tc_offs *t = bpf_map_lookup_elem(&rxlat_tc_offs, &zero);

	if (!t)
		return false;
	e = *(volatile __u32 *)&t->cur & (RXLAT_TC_EPOCHS - 1);
	if (!e)
		return false;
	*offs = t->offs[e];
	*epoch = e;
	return true;
}

/* Slack of the check: a TAI offset moves by whole seconds, and a realtime
 * step smaller than this is an error smaller than this. */
#define RXLAT_CLOCK_SLACK_NS 1000000ll

/* The hrtimer bases of some CPU; NULL should a task have none. */
static __always_inline const struct hrtimer_cpu_base *rxlat_hrtimer_bases(void)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct hrtimer_clock_base *base = t->dl.dl_timer.base;

	return base ? base->cpu_base : NULL;
}

/*
 * *offs = CLOCK_REALTIME - CLOCK_MONOTONIC now; mono is the caller's
 * bpf_ktime_get_ns(), read before. False while the kernel's copy is being
 * refreshed: the caller then has no realtime for this packet. The TAI clock
 * is read between mono and a second monotonic read, so that the live offset
 * is bracketed however long this CPU was away in between (a vCPU that its
 * host preempts, for one).
 */
static __always_inline bool rxlat_realtime_offset(__u64 mono, __s64 *offs)
{
	const struct hrtimer_cpu_base *b;
	__s64 copy, lo, hi;
	__u64 tai, m2;
	__u32 e;

	if (!rxlat_kernel_clock())
		return rxlat_user_offset(offs, &e);
	b = rxlat_hrtimer_bases();
	if (!b)
		return false;
	/* base indexes unchanged since 4.16; CO-RE relocates the field offsets */
	copy = b->clock_base[HRTIMER_BASE_TAI].offset;
	tai = bpf_ktime_get_tai_ns();
	m2 = bpf_ktime_get_ns();
	lo = (__s64)(tai - m2) - RXLAT_CLOCK_SLACK_NS;
	hi = (__s64)(tai - mono) + RXLAT_CLOCK_SLACK_NS;
	if (copy < lo || copy > hi)
		return false;
	*offs = b->clock_base[HRTIMER_BASE_REALTIME].offset;
	return true;
}

/*
 * The kernel's copy of CLOCK_REALTIME - CLOCK_MONOTONIC, unchecked: four
 * loads. An offset that rxlat_realtime_offset() checked stays right while
 * the copy holds it: the offset moves only when the clock steps (a slew
 * moves both clocks alike), and clock_was_set() refreshes every copy right
 * after a step. False should the task have no bases.
 */
static __always_inline bool rxlat_realtime_copy(__s64 *offs)
{
	const struct hrtimer_cpu_base *b = rxlat_hrtimer_bases();

	if (!b)
		return false;
	*offs = b->clock_base[HRTIMER_BASE_REALTIME].offset;
	return true;
}

#endif /* RXLAT_CLOCK_BPF_H */
