/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps that the tc stamper (tc/rxlat_tc.bpf.c) shares with rxlat's
 * hooks (collector/attach/hooks.bpf.c): one definition for both objects,
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

#endif /* RXLAT_TC_MAPS_BPF_H */
