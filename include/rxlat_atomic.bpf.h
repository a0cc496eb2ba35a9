/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read-modify-write with a result, on kernels whose verifier has no atomic
 * instruction that returns one (fetch-add and compare-and-swap came with
 * Linux 5.12; before, "BPF_STX uses reserved fields"). An atomic add whose
 * result is unused is the older XADD, which every kernel takes; the rest
 * is done under a lock: a key inserted into rxlat_locks with BPF_NOEXIST,
 * which the map's bucket lock gives to one CPU, and deleted after. The
 * lock never waits: a CPU that finds it taken tries RXLAT_LOCK_TRIES
 * times, then gives up, and each caller says what giving up costs (a lost
 * race, as with the instructions, or a sample counted as lost). The holder
 * may be the task that the CPU interrupted, which cannot go on before the
 * interrupt ends: waiting for it would never end.
 *
 * Which form: RXLAT_FETCH, fixed when the object is built, since a verifier
 * without the instructions refuses a program that holds one anywhere, even
 * where it can never run. The hooks are built both ways
 * (collector/collector.mk), and rxlat loads the one the kernel takes
 * (hooks_skel.c). An object that must load as it is everywhere (the tc
 * stamper, with iproute2) uses the lock alone, where it is rare.
 *
 * BPF: include after vmlinux.h.
 */
#ifndef RXLAT_ATOMIC_BPF_H
#define RXLAT_ATOMIC_BPF_H

#include <bpf/bpf_helpers.h>

#ifdef RXLAT_NO_FETCH
#define RXLAT_FETCH 0
#else
#define RXLAT_FETCH 1
#endif

#define RXLAT_LOCK_TRIES 64

/* What each lock guards: one key per kind of word, so that unrelated claims never meet. */
enum rxlat_lock {
	RXLAT_LOCK_IFACE = 1, /* interface slot owners */
	RXLAT_LOCK_GROUP,     /* group slot owners and their claim tokens */
	RXLAT_LOCK_SERIES,    /* series places */
	RXLAT_LOCK_POLL,      /* napi_wait's first packet of a poll */
	RXLAT_LOCK_SOCK,      /* forwarded stamps kept for sock_read */
	RXLAT_LOCK_EPOCH,     /* the tc stamper's clock offsets */
	RXLAT_NR_LOCKS,
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RXLAT_NR_LOCKS);
	__type(key, __u32);
	__type(value, __u8);
} rxlat_locks SEC(".maps");

/* Takes lock which: true once held, false when another holds it. */
static __always_inline bool rxlat_lock(__u32 which)
{
	__u8 one = 1;

	for (int i = 0; i < RXLAT_LOCK_TRIES; i++)
		if (!bpf_map_update_elem(&rxlat_locks, &which, &one, BPF_NOEXIST))
			return true;
	return false;
}

static __always_inline void rxlat_unlock(__u32 which)
{
	bpf_map_delete_elem(&rxlat_locks, &which);
}

/*
 * *p from old to new when it holds old, under lock which: the value it
 * held; give_up when the lock could not be had (a value the caller takes
 * for a race lost).
 */
static __always_inline __u64 rxlat_locked_cas(__u32 which, __u64 *p, __u64 old, __u64 new,
					      __u64 give_up)
{
	__u64 was;

	if (!rxlat_lock(which))
		return give_up;
	was = *(volatile __u64 *)p;
	if (was == old)
		*(volatile __u64 *)p = new;
	rxlat_unlock(which);
	return was;
}

#endif /* RXLAT_ATOMIC_BPF_H */
