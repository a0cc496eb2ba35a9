/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The groups of --by in the latency hooks (collector/attach/hooks.bpf.c,
 * which includes this file once): where a sample was taken, another
 * network namespace or the receiving socket's cgroup, as a slot of the
 * series index. User space names the groups and releases those that are
 * gone (collector/attach/groups.c).
 */
#ifndef RXLAT_GROUPS_BPF_H
#define RXLAT_GROUPS_BPF_H

/* Group key -> group slot (see group_slot()). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* set by user space */
	__type(key, __u64);
	__type(value, __u32);
} rxlat_groups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_group_last);
} rxlat_group_last SEC(".maps");

/*
 * Group slot -> group key and the namespace it was seen in, claimed as the
 * interface slots are (slot 0, rxlat's namespace, is never claimed). The
 * key -> slot direction is the hash rxlat_groups, and before it the key
 * this CPU saw last: a run of packets of one container costs two loads.
 * User space releases the slots of namespaces and cgroups that are gone
 * (collector/attach/groups.c): it deletes the hash entry, advances
 * group_gen, which every CPU's cached key is checked against, and frees the
 * slot last. A key that found every slot taken is cached with the overflow
 * slot until a slot is released.
 */
__u64 rxlat_group_owner[RXLAT_MAX_GROUPS_LIMIT + 1];
__u32 rxlat_group_netns[RXLAT_MAX_GROUPS_LIMIT + 1];

static __always_inline __u32 group_claim(__u64 key, __u32 netns)
{
	__u32 max = rxlat_cfg.max_groups;

	for (__u32 i = 1; i <= RXLAT_MAX_GROUPS_LIMIT && i <= max; i++) {
		__u64 owner = rxlat_group_owner[i];

		if (!owner)
			owner = __sync_val_compare_and_swap(&rxlat_group_owner[i], 0, key) ?: key;
		if (owner != key)
			continue;
		rxlat_group_netns[i] = netns;
		return i;
	}
	return max + 1;
}

/* The group of a sample taken in namespace netns, socket cgroup cgid (0: none). */
static __always_inline __u32 group_slot(__u32 netns, __u64 cgid)
{
	__u64 key = cgid ?: RXLAT_GROUP_NETNS | netns;
	__u32 zero = 0, gen = rxlat_state.group_gen, slot, *v;
	struct rxlat_group_last *last;

	if (netns == rxlat_cfg.netns_ino && !cgid)
		return 0;
	last = bpf_map_lookup_elem(&rxlat_group_last, &zero);
	if (last && last->key == key && last->gen == gen)
		return last->slot;
	v = bpf_map_lookup_elem(&rxlat_groups, &key);
	if (v) {
		slot = *v;
	} else {
		slot = group_claim(key, netns);
		bpf_map_update_elem(&rxlat_groups, &key, &slot, BPF_NOEXIST);
	}
	if (last) {
		last->key = key;
		last->slot = slot;
		last->gen = gen;
	}
	return slot;
}

#endif /* RXLAT_GROUPS_BPF_H */
