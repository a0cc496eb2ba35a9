// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only observer of the XDP stamper's metadata on real traffic: a tc
 * ingress program reports every packet's stamp together with the NAPI poll
 * it arrived in, so that a test can tell which packets shared a poll and
 * whether they shared a stamp. A poll is identified by (CPU, number of polls
 * that ended on that CPU so far); tp_btf/napi_poll fires as a poll ends.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "rxlat.h"
#include "meta_probe.h"

char LICENSE[] SEC("license") = "GPL";

#define TC_ACT_OK 0
/* how far before data the scan for the struct may start: 256 B of headroom */
#define META_SCAN_STEPS 64

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} polls SEC(".maps");

/* The probed interface (its index and namespace inode), set by the loader. */
const volatile __u32 probe_ifindex;
const volatile __u32 probe_netns;

/* Its NAPI instances: polls that took packets, by napi_id ... */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct meta_probe_polls);
} napi_polls SEC(".maps");

/* ... and the receive queue that each served (from the stamps at tc). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u32);
} napi_queue SEC(".maps");

/* Read by the loader; a lost event would make the summary lie. */
__u64 lost_events;
__u64 no_meta;	 /* metadata area too small or absent */
__u64 bad_magic; /* bytes before data that are not an rxlat_meta */

static __always_inline __u64 poll_count(void)
{
	__u32 idx = 0;
	__u64 *n = bpf_map_lookup_elem(&polls, &idx);

	return n ? *n : 0;
}

static __always_inline bool is_ksoftirqd(const char *comm)
{
	const char want[] = "ksoftirqd/";

	for (int i = 0; i < (int)sizeof(want) - 1; i++)
		if (comm[i] != want[i])
			return false;
	return true;
}

SEC("tp_btf/napi_poll")
int BPF_PROG(meta_probe_poll, struct napi_struct *napi, int work, int budget)
{
	struct meta_probe_event *e;
	__u32 idx = 0;
	__u64 *n;

	if (work > 0 && napi->dev && napi->dev->ifindex == probe_ifindex &&
	    napi->dev->nd_net.net->ns.inum == probe_netns) {
		struct meta_probe_polls zero = {}, *p;
		__u32 id = napi->napi_id;

		bpf_map_update_elem(&napi_polls, &id, &zero, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&napi_polls, &id);
		if (p) {
			char comm[16];

			/*
			 * Atomic: the tracepoint fires after the driver's poll
			 * returned, which may have completed the instance, so
			 * that its next poll's event runs on another CPU at the
			 * same time (two senders on two CPUs).
			 */
			__sync_fetch_and_add(&p->polls, 1);
			if (work >= budget)
				__sync_fetch_and_add(&p->full, 1);
			/* the name as the helper copies it, not as rxlat reads it */
			if (!bpf_get_current_comm(comm, sizeof(comm)) && is_ksoftirqd(comm))
				__sync_fetch_and_add(&p->ksoftirqd, 1);
		}
	}

	n = bpf_map_lookup_elem(&polls, &idx);
	if (!n)
		return 0;
	*n += 1;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lost_events, 1);
		return 0;
	}
	e->kind = META_PROBE_POLL;
	e->cpu = bpf_get_smp_processor_id();
	e->poll = *n;
	e->jiffies = bpf_jiffies64();
	e->stamp = 0;
	e->ifindex = 0;
	e->rx_queue = 0;
	e->flags = 0;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tc")
int meta_probe_tc(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *meta = (void *)(long)skb->data_meta;
	struct meta_probe_event *e;
	struct rxlat_meta *m = meta;
	bool found = false;

	/*
	 * The struct must end exactly at data. A packet pointer can only be
	 * dereferenced after a bounds comparison, so walk the area in the
	 * 4-byte steps its length comes in instead of computing data - 20.
	 */
	for (int i = 0; i < META_SCAN_STEPS; i++) {
		if ((void *)(m + 1) > data)
			break;
		if ((void *)(m + 1) == data) {
			found = true;
			break;
		}
		m = (void *)m + 4;
	}
	if (!found) {
		__sync_fetch_and_add(&no_meta, 1);
		return TC_ACT_OK;
	}
	if (m->magic != RXLAT_META_MAGIC) {
		__sync_fetch_and_add(&bad_magic, 1);
		return TC_ACT_OK;
	}

	if (skb->napi_id) {
		__u32 id = skb->napi_id, q = m->rx_queue;

		bpf_map_update_elem(&napi_queue, &id, &q, BPF_ANY);
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lost_events, 1);
		return TC_ACT_OK;
	}
	e->kind = META_PROBE_PACKET;
	e->cpu = bpf_get_smp_processor_id();
	e->poll = poll_count();
	e->jiffies = bpf_jiffies64();
	e->stamp = rxlat_meta_stamp(m);
	e->ifindex = m->ifindex;
	e->rx_queue = m->rx_queue;
	e->flags = m->flags;
	bpf_ringbuf_submit(e, 0);
	return TC_ACT_OK;
}

/*
 * --softirq-delay-us: a known wait between the schedule and the poll. Busy
 * waits delay_ns at the entry of every NET_RX softirq, which runs the polls
 * after it. Loaded only with the option.
 */
const volatile __u64 delay_ns;
/* the waits it made, and how long they took: at least delay_ns each, more
 * where the CPU was taken away meanwhile (a vCPU its host preempts) */
__u64 delay_runs, delay_total_ns;

static long delay_step(__u64 i, __u64 *until)
{
	(void)i;
	return bpf_ktime_get_ns() >= *until; /* 1: stop */
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(meta_probe_delay, unsigned int vec)
{
	__u64 start = bpf_ktime_get_ns(), until = start + delay_ns;

	if (vec != NET_RX_SOFTIRQ)
		return 0;
	bpf_loop(1 << 23, delay_step, &until, 0);
	__sync_fetch_and_add(&delay_total_ns, bpf_ktime_get_ns() - start);
	__sync_fetch_and_add(&delay_runs, 1);
	return 0;
}
