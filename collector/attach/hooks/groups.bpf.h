/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The groups of --by in the latency hooks (collector/attach/hooks/hooks.bpf.c,
 * which includes this file once): where a sample was taken, another
 * network namespace or the receiving socket's cgroup, as a slot of the
 * series index. User space names the groups and releases those that are
 * gone (collector/attach/groups/groups.c).
 */
#ifndef RXLAT_GROUPS_BPF_H
#define RXLAT_GROUPS_BPF_H

/* Group key -> group slot (see group_slot()). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* set by user space */
	__type(key, struct rxlat_group_key);
	__type(value, __u32);
} rxlat_groups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_group_last);
} rxlat_group_last SEC(".maps");

/*
 * Group slot -> the token of its claim, its key and the inode of its
 * namespace (slot 0, rxlat's namespace, is never claimed). A token is
 * never given out twice, so user space tells a slot's next owner from the
 * last one by it, whatever their keys. The key -> slot direction is the
 * hash rxlat_groups, and before it the key this CPU saw last: a run of
 * packets of one container costs two loads. User space releases the slots
 * of namespaces and cgroups that are gone (collector/attach/groups/groups.c): it
 * deletes the hash entry, advances group_gen, which every CPU's cached key
 * is checked against, clears the key and frees the slot last. A key that
 * found every slot taken is cached with the overflow slot until a slot is
 * released.
 */
__u64 rxlat_group_owner[RXLAT_MAX_GROUPS_LIMIT + 1];
struct rxlat_group_key rxlat_group_key[RXLAT_MAX_GROUPS_LIMIT + 1];
__u32 rxlat_group_netns[RXLAT_MAX_GROUPS_LIMIT + 1];

static __always_inline __u32 group_claim(const struct rxlat_group_key *key, __u32 netns)
{
	__u32 max = rxlat_cfg.max_groups;
	__u64 token;

	/* without the instructions, the claim under a lock; not had: the overflow, this once */
	if (!RXLAT_FETCH) {
		if (!rxlat_lock(RXLAT_LOCK_GROUP))
			return max + 1;
		token = ++rxlat_state.group_claims;
	} else {
		token = __sync_fetch_and_add(&rxlat_state.group_claims, 1) + 1;
	}
	for (__u32 i = 1; i <= RXLAT_MAX_GROUPS_LIMIT && i <= max; i++) {
		if (rxlat_group_owner[i])
			continue;
		if (!RXLAT_FETCH)
			rxlat_group_owner[i] = token;
		else if (__sync_val_compare_and_swap(&rxlat_group_owner[i], 0, token))
			continue;
		rxlat_group_key[i] = *key;
		rxlat_group_netns[i] = netns;
		if (!RXLAT_FETCH)
			rxlat_unlock(RXLAT_LOCK_GROUP);
		return i;
	}
	if (!RXLAT_FETCH)
		rxlat_unlock(RXLAT_LOCK_GROUP);
	return max + 1;
}

/* A slot claimed for a key that another CPU claimed a slot for first. */
static __always_inline void group_unclaim(__u32 slot)
{
	if (slot < 1 || slot > RXLAT_MAX_GROUPS_LIMIT)
		return;
	rxlat_group_key[slot].netns_cookie = 0;
	rxlat_group_key[slot].cgid = 0;
	rxlat_group_netns[slot] = 0;
	asm volatile("" ::: "memory"); /* the key is cleared before the slot is free */
	*(volatile __u64 *)&rxlat_group_owner[slot] = 0;
}

/*
 * The slot of a group seen for the first time: claimed and entered in the
 * hash. A function of its own, as rxlat_iface_claim(): the verifier walks
 * the claim's loop once for each program.
 */
__noinline __u32 rxlat_group_claim(__u64 netns_cookie, __u64 cgid, __u32 netns)
{
	struct rxlat_group_key key = { .netns_cookie = netns_cookie, .cgid = cgid };
	__u32 slot = group_claim(&key, netns), *v;

	if (bpf_map_update_elem(&rxlat_groups, &key, &slot, BPF_NOEXIST)) {
		/* another CPU's claim for this key won, or the hash is full */
		group_unclaim(slot);
		v = bpf_map_lookup_elem(&rxlat_groups, &key);
		slot = v ? *v : rxlat_cfg.max_groups + 1;
	}
	return slot;
}

/*
 * The group of a sample taken in namespace net (inode netns), socket cgroup
 * cgid (0: none).
 */
static __always_inline __u32 group_slot(const struct net *net, __u32 netns, __u64 cgid, bool pr)
{
	struct rxlat_group_key key = { .cgid = cgid };
	__u32 zero = 0, gen = rxlat_state.group_gen, slot, *v;
	struct rxlat_group_last *last;

	if (netns == rxlat_cfg.netns_ino && !cgid)
		return 0;
	if (rxlat_net_cookie_lazy(net)) {
		key.netns_cookie = RXLAT_INODE_COOKIE(netns);
	} else {
		barrier_var(net); /* the load stays on this side, where the field is a u64 */
		key.netns_cookie = KREAD(pr, net, net_cookie);
	}
	last = bpf_map_lookup_elem(&rxlat_group_last, &zero);
	if (last && last->key.netns_cookie == key.netns_cookie && last->key.cgid == cgid &&
	    last->gen == gen)
		return last->slot;
	v = bpf_map_lookup_elem(&rxlat_groups, &key);
	slot = v ? *v : rxlat_group_claim(key.netns_cookie, cgid, netns);
	if (last) {
		last->key = key;
		last->slot = slot;
		last->gen = gen;
	}
	return slot;
}

#endif /* RXLAT_GROUPS_BPF_H */
