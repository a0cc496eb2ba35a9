// SPDX-License-Identifier: GPL-2.0
/*
 * The series store of the latency hooks: the histograms live in chunks of
 * RXLAT_CHUNK_SERIES, mmap'ed arrays created as the series in use fill
 * them, so that map memory follows the series in use; the interface slot
 * table that names the series; and the hooks' counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hooks_impl.h"
#include "log.h"
#include "hooks_bpf.skel.h"

#define CHUNK_BYTES ((size_t)RXLAT_CHUNK_SERIES * sizeof(struct rxlat_hist))

static int add_chunk(struct rxlat_hooks *h)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	__u32 i = h->nchunks;
	void *mem;
	int fd, err;

	if (i >= h->max_chunks)
		return -ENOSPC;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rxlat_hchunk", sizeof(__u32),
			    sizeof(struct rxlat_hist), RXLAT_CHUNK_SERIES, &opts);
	if (fd < 0)
		return -errno;
	mem = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	/* mapped before the hooks can see it: readers never find it half there */
	h->chunks[i] = mem;
	h->chunk_fds[i] = fd;
	__atomic_store_n(&h->nchunks, i + 1, __ATOMIC_RELEASE);
	if (bpf_map_update_elem(bpf_map__fd(h->skel->maps.rxlat_hist_chunks), &i, &fd, BPF_ANY)) {
		err = -errno;
		h->nchunks = i;
		munmap(mem, CHUNK_BYTES);
		close(fd);
		return err;
	}
	return 0;
}

int hooks_grow(struct rxlat_hooks *h)
{
	__u32 used = __atomic_load_n(&h->skel->bss->rxlat_state.series_used, __ATOMIC_ACQUIRE);
	int err = 0;

	/* one free chunk ahead of the hooks */
	while (!err && (__u64)h->nchunks * RXLAT_CHUNK_SERIES < (__u64)used + RXLAT_CHUNK_SERIES &&
	       h->nchunks < h->max_chunks)
		err = add_chunk(h);
	return err;
}

struct series_store hooks_series_store(const struct rxlat_hooks *h)
{
	return (struct series_store){ h->series_of, h->nr_series, h->chunks, &h->nchunks };
}

__u64 hooks_series_lost(const struct rxlat_hooks *h)
{
	return __atomic_load_n(&h->skel->bss->rxlat_state.series_lost, __ATOMIC_RELAXED);
}

/* ifindex of rxlat's namespace: slot (a key of the hash is 64 bits wide). */
static int set_ifslot(struct rxlat_hooks *h, __u32 ifindex, __u32 slot)
{
	struct rxlat_ifslot v = { .slot = slot };
	int fd = bpf_map__fd(h->skel->maps.rxlat_ifslots);
	__u64 key = ifindex;

	if (ifindex < RXLAT_IFINDEX_DIRECT) {
		__atomic_store_n(&h->skel->bss->rxlat_ifslot_of[ifindex], (__u16)(slot + 1),
				 __ATOMIC_RELEASE);
		return 0;
	}
	return bpf_map_update_elem(fd, &key, &v, BPF_ANY) ? -errno : 0;
}

int hooks_ifslots(const struct rxlat_hooks *h, __u64 *key_of_slot, __u32 nslots)
{
	const __u64 *owner = h->skel->bss->rxlat_slot_owner;
	int n = 0;

	for (__u32 i = 0; i < nslots; i++) {
		key_of_slot[i] =
		    i < RXLAT_MAX_IFACES_LIMIT ? __atomic_load_n(&owner[i], __ATOMIC_ACQUIRE) : 0;
		n += key_of_slot[i] != 0;
	}
	return n;
}

int hooks_move_ifslot(struct rxlat_hooks *h, __u32 from, __u32 to)
{
	int fd = bpf_map__fd(h->skel->maps.rxlat_ifslots), err;
	struct rxlat_ifslot v;
	__u64 key = from;

	if (from < RXLAT_IFINDEX_DIRECT) {
		__u16 d = __atomic_load_n(&h->skel->bss->rxlat_ifslot_of[from], __ATOMIC_ACQUIRE);

		if (!d || d == RXLAT_IFSLOT_SKIP)
			return -ENOENT;
		v.slot = d - 1u;
	} else if (bpf_map_lookup_elem(fd, &key, &v)) {
		return -errno;
	}
	err = set_ifslot(h, to, v.slot);
	if (err)
		return err;
	/* reports name the slot after its owner: the new ifindex from now on */
	if (v.slot < RXLAT_MAX_IFACES_LIMIT)
		__atomic_store_n(&h->skel->bss->rxlat_slot_owner[v.slot], to, __ATOMIC_RELEASE);
	/* the old ifindex is gone: nothing records under it any more */
	if (from < RXLAT_IFINDEX_DIRECT)
		__atomic_store_n(&h->skel->bss->rxlat_ifslot_of[from], 0, __ATOMIC_RELEASE);
	else
		bpf_map_delete_elem(fd, &key);
	return 0;
}

/* Forgets an interface key's cached slot, so that its next sample looks for one again. */
static void uncache(struct rxlat_hooks *h, int fd, __u64 key)
{
	if (key < RXLAT_IFINDEX_DIRECT)
		__atomic_store_n(&h->skel->bss->rxlat_ifslot_of[key], 0, __ATOMIC_RELEASE);
	else
		bpf_map_delete_elem(fd, &key);
}

int hooks_release_ifslot(struct rxlat_hooks *h, __u32 slot)
{
	int fd = bpf_map__fd(h->skel->maps.rxlat_ifslots);
	__u32 max = h->skel->rodata->rxlat_cfg.max_ifaces;
	__u64 key, next, *cur = NULL;
	__u16 *direct = h->skel->bss->rxlat_ifslot_of;
	struct rxlat_ifslot v;

	if (slot >= max || slot >= RXLAT_MAX_IFACES_LIMIT)
		return -EINVAL;
	uncache(h, fd, __atomic_load_n(&h->skel->bss->rxlat_slot_owner[slot], __ATOMIC_ACQUIRE));
	/* interfaces that found every slot taken were cached with the overflow */
	for (__u32 i = 1; i < RXLAT_IFINDEX_DIRECT; i++)
		if (__atomic_load_n(&direct[i], __ATOMIC_ACQUIRE) == max + 1)
			uncache(h, fd, i);
	while (!bpf_map_get_next_key(fd, cur, &next)) {
		key = next;
		cur = &key;
		if (!bpf_map_lookup_elem(fd, &key, &v) && v.slot == max)
			uncache(h, fd, key);
	}
	__atomic_store_n(&h->skel->bss->rxlat_slot_owner[slot], 0, __ATOMIC_RELEASE);
	return 0;
}

void hooks_groups(const struct rxlat_hooks *h, __u64 *token, __u32 *netns, __u32 n)
{
	const struct hooks_bpf__bss *bss = h->skel->bss;

	for (__u32 i = 0; i < n; i++) {
		bool in = i > 0 && i <= RXLAT_MAX_GROUPS_LIMIT;

		token[i] = in ? __atomic_load_n(&bss->rxlat_group_owner[i], __ATOMIC_ACQUIRE) : 0;
		netns[i] = in ? __atomic_load_n(&bss->rxlat_group_netns[i], __ATOMIC_ACQUIRE) : 0;
	}
}

bool hooks_group_key(const struct rxlat_hooks *h, __u32 slot, __u64 token,
		     struct rxlat_group_key *key)
{
	const struct hooks_bpf__bss *bss = h->skel->bss;
	__u32 v;

	if (slot == 0 || slot > RXLAT_MAX_GROUPS_LIMIT || !token)
		return false;
	*key = bss->rxlat_group_key[slot];
	return key->netns_cookie &&
	       !bpf_map_lookup_elem(bpf_map__fd(h->skel->maps.rxlat_groups), key, &v) &&
	       v == slot &&
	       __atomic_load_n(&bss->rxlat_group_owner[slot], __ATOMIC_ACQUIRE) == token;
}

/*
 * The order matters to the hooks (group_slot()): the key leaves the hash
 * first, the cached keys go stale with the generation, and the slot is
 * free last, so that no key finds a slot that another key now owns.
 */
int hooks_release_group(struct rxlat_hooks *h, __u32 slot)
{
	int fd = bpf_map__fd(h->skel->maps.rxlat_groups);
	__u32 max = h->skel->rodata->rxlat_cfg.max_groups, v;
	struct rxlat_group_key key, next, *cur = NULL;
	struct hooks_bpf__bss *bss = h->skel->bss;

	if (slot == 0 || slot > max || slot > RXLAT_MAX_GROUPS_LIMIT)
		return -EINVAL;
	key = bss->rxlat_group_key[slot];
	if (!bpf_map_lookup_elem(fd, &key, &v) && v == slot)
		bpf_map_delete_elem(fd, &key);
	/* groups that found every slot taken look for one again */
	while (!bpf_map_get_next_key(fd, cur, &next)) {
		key = next;
		cur = &key;
		if (!bpf_map_lookup_elem(fd, &key, &v) && v == max + 1)
			bpf_map_delete_elem(fd, &key);
	}
	__atomic_fetch_add(&bss->rxlat_state.group_gen, 1, __ATOMIC_SEQ_CST);
	memset(&bss->rxlat_group_key[slot], 0, sizeof(bss->rxlat_group_key[slot]));
	__atomic_store_n(&bss->rxlat_group_netns[slot], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&bss->rxlat_group_owner[slot], 0, __ATOMIC_RELEASE);
	return 0;
}

void hooks_new_epoch(struct rxlat_hooks *h, __u64 *old_epoch)
{
	*old_epoch = __atomic_fetch_add(&h->skel->bss->rxlat_state.epoch, 1, __ATOMIC_SEQ_CST);
}

/*
 * The per-CPU batch state (the stamper's rxlat_batch, which the poll-end
 * reset shares) counts too: it is a cost of batch stamping under rxlat.
 */
size_t hooks_map_bytes(const struct rxlat_hooks *h)
{
	int ncpu = libbpf_num_possible_cpus();

	return h->series_of_len + (size_t)h->nchunks * CHUNK_BYTES + h->max_chunks * sizeof(__u32) +
	       sizeof(h->skel->bss->rxlat_ifslot_of) +
	       bpf_map__max_entries(h->skel->maps.rxlat_ifslots) *
		   (sizeof(__u64) + sizeof(struct rxlat_ifslot)) +
	       bpf_map__max_entries(h->skel->maps.rxlat_groups) *
		   (sizeof(struct rxlat_group_key) + sizeof(__u32)) +
	       (size_t)(ncpu > 0 ? ncpu : 1) * sizeof(struct rxlat_batch) +
	       (size_t)bpf_map__max_entries(h->skel->maps.rxlat_tc_fwd) *
		   sizeof(struct rxlat_fwd_slot) +
	       (size_t)bpf_map__max_entries(h->skel->maps.rxlat_fwd_sock) *
		   sizeof(struct rxlat_fwd_sock_set) +
	       (h->plan.drops ? RXLAT_DROP_ENTRIES *
				    (sizeof(struct rxlat_drop_key) + sizeof(struct rxlat_drop))
			      : 0);
}

int hooks_drops_fd(const struct rxlat_hooks *h)
{
	return h->plan.drops ? bpf_map__fd(h->skel->maps.rxlat_drops) : -1;
}

__u64 hooks_drops_lost(const struct rxlat_hooks *h)
{
	return __atomic_load_n(&h->skel->bss->rxlat_state.drops_lost, __ATOMIC_RELAXED);
}

int hooks_slow_fd(const struct rxlat_hooks *h)
{
	return bpf_map__fd(h->skel->maps.rxlat_slow);
}

int hooks_slow_counts(const struct rxlat_hooks *h, __u64 *sent, __u64 *suppressed, __u64 *lost)
{
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct rxlat_slow_cpu *v;
	__u32 zero = 0;

	*sent = *suppressed = *lost = 0;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(h->skel->maps.rxlat_slow_cpus), &zero, v))
		err = -errno;
	for (int i = 0; i < ncpu && !err; i++) {
		*sent += v[i].sent;
		*suppressed += v[i].suppressed;
		*lost += v[i].lost;
	}
	free(v);
	return err;
}

int store_size(struct rxlat_hooks *h, const struct rxlat_config *cfg)
{
	h->nr_series = rxlat_nr_series(rxlat_config_dims(cfg));
	/* room for interfaces and groups cached with the overflow slot too */
	bpf_map__set_max_entries(h->skel->maps.rxlat_ifslots, cfg->bpf.max_ifaces + 64);
	bpf_map__set_max_entries(h->skel->maps.rxlat_groups, cfg->bpf.max_groups + 64);
	h->max_chunks = rxlat_nr_chunks(h->nr_series);
	if (h->max_chunks > RXLAT_HISTS_BYTES_LIMIT / CHUNK_BYTES)
		h->max_chunks = RXLAT_HISTS_BYTES_LIMIT / CHUNK_BYTES;
	bpf_map__set_max_entries(h->skel->maps.rxlat_series_of, h->nr_series);
	bpf_map__set_max_entries(h->skel->maps.rxlat_hist_chunks, h->max_chunks);
	h->chunks = calloc(h->max_chunks, sizeof(*h->chunks));
	h->chunk_fds = calloc(h->max_chunks, sizeof(*h->chunk_fds));
	if (!h->chunks || !h->chunk_fds) {
		rxlat_err("out of memory");
		return -ENOMEM;
	}
	return 0;
}

int store_start(struct rxlat_hooks *h, const struct rxlat_config *cfg)
{
	int err;

	for (int i = 0; i < cfg->nifaces; i++) {
		err = set_ifslot(h, cfg->ifindexes[i], i);
		if (err) {
			rxlat_err("cannot give %s its interface slot (map update): %s",
				  cfg->ifnames[i], strerror(-err));
			return err;
		}
		h->skel->bss->rxlat_slot_owner[i] = cfg->ifindexes[i];
	}

	h->series_of_len = (size_t)h->nr_series * sizeof(__u64);
	h->series_of = mmap(NULL, h->series_of_len, PROT_READ, MAP_SHARED,
			    bpf_map__fd(h->skel->maps.rxlat_series_of), 0);
	if (h->series_of == MAP_FAILED) {
		err = -errno;
		h->series_of = NULL;
		rxlat_err("cannot map the series table: %s", strerror(-err));
		return err;
	}
	err = hooks_grow(h);
	if (err)
		rxlat_err("cannot create the first histogram chunks: %s", strerror(-err));
	return err;
}

void store_unmap(struct rxlat_hooks *h)
{
	if (h->series_of)
		munmap(h->series_of, h->series_of_len);
	for (__u32 i = 0; i < h->nchunks; i++) {
		munmap(h->chunks[i], CHUNK_BYTES);
		close(h->chunk_fds[i]);
	}
	free(h->chunks);
	free(h->chunk_fds);
}
