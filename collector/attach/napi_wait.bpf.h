/* SPDX-License-Identifier: GPL-2.0 */
/*
 * napi_wait: the time from when a NAPI instance was scheduled (the
 * interrupt, or veth_xmit() of the sender) to the stamp of the poll that
 * takes its packets: the wait that every other stage starts after. The
 * schedule time is noted here; the ip_rcv programs read it with the first
 * XDP-stamped packet of the poll (napi_wait_note(), from record_sample()),
 * so that the sample lands under the interface, queue and group of that
 * packet. Two ways, chosen by user space (rxlat_cfg.napi_wait):
 *
 * RXLAT_NAPI_WAIT_FENTRY: fentry on __napi_schedule() and
 *   __napi_schedule_irqoff() (fexit on napi_schedule_prep() too, for an
 *   interrupt's schedule inside the first), through which drivers schedule
 *   their instances (and through which napi_complete_done() reschedules one that
 *   missed an interrupt, and the gro_flush_timeout timer one whose
 *   interrupts are deferred: the schedule is then the timer's expiry). Per
 *   instance, by skb->napi_id: a threaded instance, polled in its own
 *   thread and often on another CPU, is measured to the poll in that
 *   thread. The first stamp after the schedule takes the time; a later
 *   poll without a schedule of its own (one that went on after using its
 *   whole budget) has no sample. A busy poll (a socket polling the
 *   instance itself) is not a wait for the schedule: its sample is dropped.
 *
 * RXLAT_NAPI_WAIT_SOFTIRQ: without trampolines, per CPU: the raise of the
 *   NET_RX softirq that a round of net_rx_action() serves (the first raise
 *   after the previous round began), to the first stamp of that round.
 *   Instances polled later in the same round, and busy polls (outside any
 *   round), have no sample. A threaded instance is woken instead of
 *   raising the softirq: the wake-up of its thread (tp_btf sched_waking,
 *   per instance as with trampolines) is its schedule. A schedule while
 *   the thread still runs wakes nothing: that poll has no sample.
 *
 * A packet whose stamp is older than the schedule (GRO held it from an
 * earlier poll) leaves the schedule time for the packet after it. A poll
 * without a sample is counted in napi_wait's series, by reason
 * (RXLAT_GROUP_UNSAMPLED), so that samples and those add up to the polls.
 *
 * The programs' names are told apart by their first 15 characters, all
 * that bpf_prog_info keeps (bpftool, make bench).
 *
 * BPF: include in hooks.bpf.c after series_hist() and hist_add().
 */
#ifndef RXLAT_NAPI_WAIT_BPF_H
#define RXLAT_NAPI_WAIT_BPF_H

/* NAPI instance ids count up from NR_CPUS + 1: a slot per id below this many */
#define RXLAT_NAPI_SLOTS 1024

struct rxlat_napi_sched {
	__u64 t;    /* when it was scheduled, 0: taken */
	__u64 napi; /* the struct napi_struct, for the busy-poll check */
	__u64 last; /* the stamp of its newest poll seen at ip_rcv */
	__u32 id;   /* its napi_id: the slot's owner */
	__u32 full; /* its last poll used its whole budget */
	__u32 ends; /* its polls that ended */
	__u32 seen; /* ends + 1 when ip_rcv saw its newest poll's first packet */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RXLAT_NAPI_SLOTS);
	__type(key, __u32);
	__type(value, struct rxlat_napi_sched);
} rxlat_napi_sched SEC(".maps");

struct rxlat_softirq_round {
	__u64 raised;  /* the first NET_RX raise since the last round began */
	__u64 round;   /* the raise the running round serves, 0: none or taken */
	__u8 pending;  /* raised is set and no round has begun since */
	__u8 in_round; /* a round runs: a poll now is no NAPI thread's */
	__u8 pad[6];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_softirq_round);
} rxlat_softirq_round SEC(".maps");

static __always_inline struct rxlat_napi_sched *napi_slot(__u32 id)
{
	__u32 k = id & (RXLAT_NAPI_SLOTS - 1);

	return bpf_map_lookup_elem(&rxlat_napi_sched, &k);
}

/* s for instance id: what an instance 1024 ids apart left there is not its */
static __always_inline void napi_slot_own(struct rxlat_napi_sched *s, __u32 id)
{
	if (s->id == id)
		return;
	s->t = 0;
	s->last = 0;
	s->full = 0;
	s->ends = 0;
	s->seen = 0;
	s->napi = 0;
	s->id = id;
}

static __always_inline void napi_scheduled_id(const struct napi_struct *n, __u32 id)
{
	struct rxlat_napi_sched *s;

	if (!id) /* not in the NAPI hash: packets of it carry no id either */
		return;
	s = napi_slot(id);
	if (!s)
		return;
	napi_slot_own(s, id);
	s->napi = (__u64)n;
	s->t = bpf_ktime_get_ns();
}

static __always_inline void napi_scheduled(const struct napi_struct *n)
{
	napi_scheduled_id(n, n->napi_id);
}

SEC("fentry/__napi_schedule")
int BPF_PROG(rxlat_wait_sched, struct napi_struct *n)
{
	napi_scheduled(n);
	return 0;
}

SEC("fentry/__napi_schedule_irqoff")
int BPF_PROG(rxlat_wait_irqoff, struct napi_struct *n)
{
	napi_scheduled(n);
	return 0;
}

/*
 * The kernel runs a tracing program once per CPU at a time: an interrupt
 * that schedules an instance while rxlat_wait_sched runs on its CPU for a
 * schedule made with interrupts on (napi_complete_done()'s after a missed
 * interrupt, virtio_net's recheck after completing, its transmit
 * instances') is not run for (the program's recursion_misses), and that
 * instance's poll would have no schedule. Drivers call napi_schedule_prep()
 * first, whose exit notes the same schedule: of two programs, the one not
 * interrupted runs for the interrupt's. Seen under QEMU on arm64.
 */
SEC("fexit/napi_schedule_prep")
int BPF_PROG(rxlat_wait_prep, struct napi_struct *n, bool ret)
{
	if (ret)
		napi_scheduled(n);
	return 0;
}

static __always_inline struct rxlat_softirq_round *softirq_round(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&rxlat_softirq_round, &zero);
}

SEC("tp_btf/softirq_raise")
int BPF_PROG(rxlat_wait_raise, unsigned int vec)
{
	struct rxlat_softirq_round *r;

	if (vec != NET_RX_SOFTIRQ)
		return 0;
	r = softirq_round();
	if (!r || r->pending)
		return 0;
	r->raised = bpf_ktime_get_ns();
	r->pending = 1;
	return 0;
}

/* include/linux/sched.h: a kernel thread (a #define, not in BTF) */
#define RXLAT_PF_KTHREAD 0x00200000

/*
 * The fallback's threaded instances: the wake-up of a NAPI thread
 * ("napi/IF-ID", napi_threaded_poll() on the instance, the kthread's data)
 * is the schedule of its instance. Every wake-up of the host passes here:
 * anything else leaves at the flag or the name.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(rxlat_wait_wake, struct task_struct *p)
{
	const struct napi_struct *n;
	struct kthread *k;

	if (!(p->flags & RXLAT_PF_KTHREAD) || p->comm[0] != 'n' || p->comm[1] != 'a' ||
	    p->comm[2] != 'p' || p->comm[3] != 'i' || p->comm[4] != '/')
		return 0;
	if (!bpf_core_field_exists(p->worker_private))
		return 0;
	k = (struct kthread *)p->worker_private;
	n = BPF_CORE_READ(k, data);
	if (n)
		napi_scheduled_id(n, BPF_CORE_READ(n, napi_id));
	return 0;
}

/* A round of NET_RX begins: it serves the raise seen since the last one, if any. */
SEC("tp_btf/softirq_entry")
int BPF_PROG(rxlat_wait_entry, unsigned int vec)
{
	struct rxlat_softirq_round *r;

	if (vec != NET_RX_SOFTIRQ)
		return 0;
	r = softirq_round();
	if (!r)
		return 0;
	r->round = r->pending ? r->raised : 0;
	r->pending = 0;
	r->in_round = 1;
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(rxlat_wait_exit, unsigned int vec)
{
	struct rxlat_softirq_round *r;

	if (vec != NET_RX_SOFTIRQ)
		return 0;
	r = softirq_round();
	if (r) {
		r->round = 0;
		r->in_round = 0;
	}
	return 0;
}

/*
 * Busy polling owns the instance. The NAPI_STATE_* enum has no name for
 * CO-RE to relocate; IN_BUSY_POLL has been bit 6 since it came (4.11).
 */
static __always_inline bool napi_busy_polled(__u64 napi)
{
	unsigned long state = 0;

	bpf_probe_read_kernel(&state, sizeof(state), &((struct napi_struct *)napi)->state);
	return state & (1ul << NAPI_STATE_IN_BUSY_POLL);
}

/*
 * The end of a poll of an instance, counted so that ip_rcv knows a poll by
 * the kernel's bounds rather than by the stamp alone: the stamper takes a
 * fresh stamp in the middle of a poll that outlasts RXLAT_RESET_KEEP_J
 * (xdp/rxlat_xdp.bpf.c), as a poll does whose CPU the host stopped for a
 * while under emulation, and each packet after that carries a stamp of its
 * own. After a poll that used its whole budget the kernel polls the
 * instance again without a schedule: that poll's lack of a sample is
 * counted apart (after_full).
 */
SEC("tp_btf/napi_poll")
int BPF_PROG(rxlat_wait_poll, struct napi_struct *n, int work, int budget)
{
	__u32 id = n->napi_id;
	struct rxlat_napi_sched *s;
	bool full = work >= budget;

	if (!id)
		return 0;
	s = napi_slot(id);
	if (!s)
		return 0;
	napi_slot_own(s, id);
	s->ends++;
	if (s->full != full)
		s->full = full;
	return 0;
}

/*
 * --from schedule: the wait of each poll whose schedule was taken, found by
 * the poll's stamp at every stage after it, on any CPU. Direct-mapped by a
 * hash of the stamp, its interface and queue; a slot is one 64-bit word,
 * written and read whole, so that no reader sees half of another poll's:
 * the stamp's low 32 bits (the check), and the wait + 1 in ns (0: empty).
 * A poll whose slot another poll took since, or whose wait is 4.29 s or
 * more, has no schedule: its packets count under source none. At 100,000
 * polls a second, a packet read 1 ms after its poll finds its slot with a
 * probability of 99.4%. User space sizes it (RXLAT_POLL_FROM_SLOTS) for
 * --from schedule only.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RXLAT_POLL_FROM_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} rxlat_poll_from SEC(".maps");

static __always_inline __u32 poll_from_slot(__u64 stamp, __u32 ifindex, __u32 queue)
{
	__u64 x = (stamp ^ ((__u64)ifindex << 40) ^ ((__u64)queue << 52)) * 0x9e3779b97f4a7c15ull;

	return (__u32)(x >> 50) & (RXLAT_POLL_FROM_SLOTS - 1);
}

static __always_inline void poll_from_note(__u64 stamp, __u32 ifindex, __u32 queue, __u64 wait)
{
	__u32 k = poll_from_slot(stamp, ifindex, queue);
	__u64 *v = bpf_map_lookup_elem(&rxlat_poll_from, &k);

	if (v && wait < 0xffffffffull)
		*v = (stamp << 32) | (wait + 1);
}

/* The schedule of the poll that stamped the packet at stamp: false if not known. */
static __always_inline bool poll_from(__u64 stamp, __u32 ifindex, __u32 queue, __u64 *from)
{
	__u32 k = poll_from_slot(stamp, ifindex, queue);
	__u64 *v = bpf_map_lookup_elem(&rxlat_poll_from, &k), w;

	if (!v)
		return false;
	w = *v;
	if (!(__u32)w || (w >> 32) != (__u32)stamp)
		return false;
	*from = stamp - ((__u32)w - 1);
	return true;
}

/*
 * The poll that took the packet at stamp, the first of its packets seen at
 * ip_rcv: its wait from the schedule s holds, or why it has none (an
 * RXLAT_COUNT_UNSAMPLED_*). Without trampolines, in a NET_RX round, from
 * the raise the round serves instead; outside any (a NAPI thread's poll),
 * from s too.
 */
static __always_inline int napi_wait_take(struct rxlat_napi_sched *s, __u64 stamp, __u64 *from)
{
	struct rxlat_softirq_round *r;
	__u64 t;

	if (rxlat_cfg.napi_wait == RXLAT_NAPI_WAIT_SOFTIRQ) {
		r = softirq_round();
		if (!r)
			return RXLAT_COUNT_UNSAMPLED_NONE;
		if (r->in_round) {
			t = r->round;
			if (t && t <= stamp) {
				r->round = 0;
				*from = t;
				return -1;
			}
			return s->full ? RXLAT_COUNT_UNSAMPLED_FULL : RXLAT_COUNT_UNSAMPLED_NONE;
		}
	}
	t = s->t;
	if (t && t <= stamp) {
		s->t = 0;
		*from = t;
		return napi_busy_polled(s->napi) ? RXLAT_COUNT_UNSAMPLED_BUSY : -1;
	}
	if (napi_busy_polled(s->napi))
		return RXLAT_COUNT_UNSAMPLED_BUSY;
	if (t) /* kept: the next poll's */
		return RXLAT_COUNT_UNSAMPLED_LATE;
	return s->full ? RXLAT_COUNT_UNSAMPLED_FULL : RXLAT_COUNT_UNSAMPLED_NONE;
}

/*
 * At ip_rcv, a packet with an XDP stamp: the wait of its poll into series
 * idx (napi_wait's, of the packet's interface, queue and group), if it is
 * the first packet of its poll seen here, or the reason the poll has none
 * counted there; with --from schedule, noted for the stages after the
 * stamp. A poll is known by its stamp, newer than the instance's last,
 * after an end of a poll of the instance: a packet with an older one (GRO
 * held it from an earlier poll) leaves the time to the packet after it, and
 * one whose poll was seen already (the stamper took a fresh stamp in the
 * middle of it) is not another poll. One array lookup per packet.
 */
static __always_inline void napi_wait_note(const struct sk_buff *skb, __u64 stamp, __u32 ifindex,
					   __u32 queue, __u32 idx)
{
	__u32 id = skb->napi_id;
	struct rxlat_napi_sched *s;
	struct rxlat_hist *h;
	__u64 from = 0;
	int why;

	if (!id)
		return;
	s = napi_slot(id);
	if (!s)
		return;
	napi_slot_own(s, id);
	if (stamp <= s->last || s->seen == s->ends + 1)
		return;
	s->last = stamp;
	s->seen = s->ends + 1;
	why = napi_wait_take(s, stamp, &from);
	h = series_hist(idx);
	if (why >= 0) {
		if (h && (unsigned int)why < RXLAT_NR_COUNTS)
			__sync_fetch_and_add(&h->counts[why], 1);
		return;
	}
	if (rxlat_cfg.from == RXLAT_FROM_SCHEDULE)
		poll_from_note(stamp, ifindex, queue, stamp - from);
	if (!h)
		return;
	__sync_fetch_and_add(&h->sources[RXLAT_SRC_XDP], 1);
	hist_add(h, stamp - from);
}

#endif /* RXLAT_NAPI_WAIT_BPF_H */
