/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps that the tc stamper (tc/rxlat_tc.bpf.c) shares with rxlat's
 * hooks (collector/attach/hooks/hooks.bpf.c): one definition for both objects,
 * since rxlat hands the hooks' maps to the stamper (bpf_map__reuse_fd()),
 * which takes only a map of the same type, key and value.
 *
 * BPF: include after vmlinux.h and rxlat.h.
 */
#ifndef RXLAT_TC_MAPS_BPF_H
#define RXLAT_TC_MAPS_BPF_H

#include <bpf/bpf_helpers.h>

/*
 * The stamps of forwarded packets (include/rxlat.h, struct rxlat_fwd_slot):
 * fwd_mask + 1 slots, set by rxlat; with iproute2 alone the stamper has no
 * use for it (its mask is 0).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_fwd_slot);
} rxlat_tc_fwd SEC(".maps");

/* The offsets of the tc stamper's stamps, by epoch (include/rxlat.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_tc_offs);
} rxlat_tc_offs SEC(".maps");

/*
 * napi_wait's state (include/rxlat_napi.bpf.h), which the hooks keep and
 * rxlat's tc stamper reads for the packets it stamps: one entry each where
 * iproute2 loads the stamper, which then never reads them.
 *
 * Per NAPI instance, by its id (RXLAT_NAPI_SLOTS slots).
 */
struct rxlat_napi_sched {
	__u64 t;    /* when it was scheduled, 0: taken */
	__u64 napi; /* the struct napi_struct, for the busy-poll check */
	__u64 last; /* the newest stamp of it seen */
	__u64 from; /* the schedule of its newest poll seen, 0: none */
	__u32 id;   /* its napi_id: the slot's owner */
	__u32 full; /* its last poll used its whole budget */
	__u32 ends; /* its polls that ended */
	__u32 seen; /* ends + 1 when its newest poll's first packet was seen */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_napi_sched);
} rxlat_napi_sched SEC(".maps");

/* Per CPU: the NET_RX softirq's raise and round. */
struct rxlat_softirq_round {
	__u64 raised;  /* the first NET_RX raise since the last round began */
	__u64 round;   /* the raise the running round serves, 0: none or taken */
	__u64 from;    /* the raise the round's backlog packets were taken from, 0: none */
	__u8 pending;  /* raised is set and no round has begun since */
	__u8 in_round; /* a round runs: a poll now is no NAPI thread's */
	__u8 seen;     /* the round's first backlog packet was seen */
	__u8 pad[5];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_softirq_round);
} rxlat_softirq_round SEC(".maps");

/* The polls' waits by stamp (include/rxlat_napi.bpf.h), RXLAT_POLL_FROM_SLOTS slots. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} rxlat_poll_from SEC(".maps");

#endif /* RXLAT_TC_MAPS_BPF_H */
