/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events of the test-only metadata observer (meta_probe.bpf.c), shared with
 * its loader (meta_probe.c).
 */
#ifndef RXLAT_META_PROBE_H
#define RXLAT_META_PROBE_H

#ifndef __BPF__
#include <linux/types.h>
#endif

enum meta_probe_kind {
	META_PROBE_PACKET = 1, /* a packet with an rxlat stamp reached tc ingress */
	META_PROBE_POLL = 2,   /* a NAPI poll ended on this CPU */
};

/*
 * poll is the CPU's count of ended NAPI polls when the event happened: for a
 * packet, the polls that ended before tc saw it; for a poll end, the count
 * including this poll. jiffies lets the reader tell whether a tick could
 * have changed the stamper's batch stamp inside a poll.
 */
struct meta_probe_event {
	__u64 stamp;
	__u64 poll;
	__u64 jiffies;
	__u32 cpu;
	__u32 kind;
	__u32 ifindex; /* from the metadata */
	__u16 rx_queue;
	__u16 flags;
};

/* The polls of the probed interface's NAPI instance NAPI_ID that took packets. */
struct meta_probe_polls {
	__u64 polls;
	__u64 full;	 /* that used their whole budget */
	__u64 ksoftirqd; /* run in ksoftirqd (by the task's name) */
};

#endif /* RXLAT_META_PROBE_H */
