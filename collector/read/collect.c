// SPDX-License-Identifier: GPL-2.0
/* Snapshots of the maps, and their deltas per report interval. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include "collect.h"

int collect_init(struct rxlat_collect *c, __u32 max_ifaces, __u32 max_queues, bool per_queue,
		 const __u32 *ifindexes, int nifaces)
{
	memset(c, 0, sizeof(*c));
	c->max_ifaces = max_ifaces;
	c->max_queues = max_queues;
	c->per_queue = per_queue;
	c->filter = nifaces > 0;
	c->nr_series = rxlat_nr_series(max_ifaces, max_queues);
	/* pointers only: a series' copy is made once it has a histogram */
	c->prev = calloc(c->nr_series, sizeof(*c->prev));
	if (!c->prev)
		return -ENOMEM;
	for (int i = 0; i < nifaces; i++)
		if (collect_want(c, ifindexes[i]))
			return -ENOMEM;
	return 0;
}

void collect_free(struct rxlat_collect *c)
{
	for (__u32 i = 0; c->prev && i < c->nr_series; i++)
		free(c->prev[i]);
	free(c->prev);
	free(c->xdp_prev_keys);
	free(c->xdp_prev_vals);
	free(c->wanted);
	free(c->names);
	memset(c, 0, sizeof(*c));
}

int collect_want(struct rxlat_collect *c, __u32 ifindex)
{
	__u32 *p = realloc(c->wanted, (c->nwanted + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	c->wanted = p;
	c->wanted[c->nwanted++] = ifindex;
	return 0;
}

int collect_name(struct rxlat_collect *c, __u32 ifindex, const char *name)
{
	struct rxlat_ifname *p;
	size_t i;

	for (i = 0; i < c->nnames && c->names[i].ifindex != ifindex; i++)
		;
	if (i == c->nnames) {
		p = realloc(c->names, (c->nnames + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		c->names = p;
		c->nnames++;
		c->names[i].ifindex = ifindex;
	}
	snprintf(c->names[i].name, sizeof(c->names[i].name), "%s", name);
	return 0;
}

/*
 * Series idx of live as of now, into *out: buckets first, then the sources,
 * less the samples in flight (see collect_start()); prev is the snapshot
 * before, whose sources the held-back ones are taken from.
 */
static void snapshot(const struct rxlat_hist *live, const struct rxlat_hist *prev,
		     struct rxlat_hist *out)
{
	__u64 count = 0, measured = 0, excess;

	/* acquire: no source is read before the buckets */
	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++) {
		out->buckets[b] = __atomic_load_n(&live->buckets[b], __ATOMIC_ACQUIRE);
		count += out->buckets[b];
	}
	out->sum_ns = __atomic_load_n(&live->sum_ns, __ATOMIC_ACQUIRE);
	for (int s = 0; s < RXLAT_NR_SOURCES; s++) {
		out->sources[s] = __atomic_load_n(&live->sources[s], __ATOMIC_ACQUIRE);
		if (s != RXLAT_SRC_NONE)
			measured += out->sources[s];
	}
	out->max_ns[0] = out->max_ns[1] = 0;
	excess = measured > count ? measured - count : 0;
	for (int s = 0; s < RXLAT_NR_SOURCES && excess; s++) {
		__u64 grew, held;

		if (s == RXLAT_SRC_NONE)
			continue;
		grew = out->sources[s] - prev->sources[s];
		held = grew < excess ? grew : excess;
		out->sources[s] -= held;
		excess -= held;
	}
}

/* The copy of series idx as of the last report, zero if it had none. */
static struct rxlat_hist *prev_of(struct rxlat_collect *c, __u32 idx)
{
	if (!c->prev[idx])
		c->prev[idx] = calloc(1, sizeof(struct rxlat_hist));
	return c->prev[idx];
}

int collect_start(struct rxlat_collect *c, const struct rxlat_live *live)
{
	static const struct rxlat_hist zero;

	for (__u32 i = 0; i < c->nr_series; i++) {
		struct rxlat_hist *h = live_at(live, i), *prev;

		if (!h)
			continue;
		prev = prev_of(c, i);
		if (!prev)
			return -ENOMEM;
		snapshot(h, &zero, prev);
		__atomic_store_n(&h->max_ns[0], 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&h->max_ns[1], 0, __ATOMIC_SEQ_CST);
	}
	return 0;
}

struct rxlat_hist *collect_prev_at(void *ctx, __u32 idx)
{
	const struct rxlat_collect *c = ctx;

	return idx < c->nr_series ? c->prev[idx] : NULL;
}

/*
 * An interface's name: the one last seen for its ifindex (it may be gone
 * by now), else the kernel's, "if<N>" when unknown, "other" for ifindex 0.
 */
static void if_name(struct rxlat_collect *c, __u32 ifindex, char name[RXLAT_IFNAME_LEN])
{
	if (!ifindex) {
		snprintf(name, RXLAT_IFNAME_LEN, "other");
		return;
	}
	for (size_t i = 0; i < c->nnames; i++)
		if (c->names[i].ifindex == ifindex) {
			memcpy(name, c->names[i].name, RXLAT_IFNAME_LEN);
			return;
		}
	/* remembered either way: a lookup opens a socket (without memory: again) */
	if (!if_indextoname(ifindex, name))
		snprintf(name, RXLAT_IFNAME_LEN, "if%u", ifindex);
	collect_name(c, ifindex, name);
}

static bool unchanged(const struct rxlat_hist *live, const struct rxlat_hist *prev)
{
	for (int s = 0; s < RXLAT_NR_SOURCES; s++)
		if (__atomic_load_n(&live->sources[s], __ATOMIC_ACQUIRE) != prev->sources[s])
			return false;
	return true;
}

/*
 * The interval's part of series idx; the live max for the ending epoch.
 * -ENOMEM, 0 when the series has nothing in the interval, else 1.
 */
static int take_delta(struct rxlat_collect *c, const struct rxlat_live *live, __u32 idx, int parity,
		      struct rxlat_stats *d)
{
	struct rxlat_hist cur, *prev, *h = live_at(live, idx);
	bool any = false;

	if (!h)
		return 0;
	prev = prev_of(c, idx);
	if (!prev)
		return -ENOMEM;
	/*
	 * The hooks count a sample's source first: sources as they were mean
	 * no sample since (none held back either), and the buckets need no
	 * reading. Most series of a large host are quiet in most intervals.
	 */
	if (unchanged(h, prev)) {
		__atomic_exchange_n(&h->max_ns[parity], 0, __ATOMIC_SEQ_CST);
		return 0;
	}
	snapshot(h, prev, &cur);
	memset(d, 0, sizeof(*d));
	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++) {
		d->buckets[b] = cur.buckets[b] - prev->buckets[b];
		d->count += d->buckets[b];
	}
	for (int s = 0; s < RXLAT_NR_SOURCES; s++) {
		d->sources[s] = cur.sources[s] - prev->sources[s];
		any |= d->sources[s] != 0;
	}
	d->sum_ns = cur.sum_ns - prev->sum_ns;
	/* BPF now writes the other parity: this one is the interval's */
	d->max_ns = __atomic_exchange_n(&h->max_ns[parity], 0, __ATOMIC_SEQ_CST);
	*prev = cur;
	return any || d->count;
}

void collect_series_begin(struct rxlat_series_iter *it, struct rxlat_collect *c,
			  const struct rxlat_live *live, const __u32 *slot_ifindex, int parity)
{
	*it = (struct rxlat_series_iter){
		.c = c, .live = live, .slot_ifindex = slot_ifindex, .parity = parity
	};
}

int collect_series_next(struct rxlat_series_iter *it, struct rxlat_series *out)
{
	struct rxlat_collect *c = it->c;
	struct rxlat_stats d;
	int got;

	while (it->stage < RXLAT_NR_STAGES) {
		__u32 slot = it->slot, q;
		__u32 ifindex = slot < c->max_ifaces ? it->slot_ifindex[slot] : 0;
		bool have = false;

		if (slot > c->max_ifaces) {
			it->stage++;
			it->slot = it->q = 0;
			continue;
		}
		if (slot < c->max_ifaces && !ifindex) {
			it->slot++;
			continue;
		}
		/* per queue: the next queue with samples; else the sum of all */
		for (q = it->q; q <= c->max_queues; q++) {
			__u32 idx =
			    rxlat_series_index(it->stage, slot, q, c->max_ifaces, c->max_queues);

			got = take_delta(c, it->live, idx, it->parity, have ? &d : &out->st);
			if (got < 0)
				return got;
			if (!got)
				continue;
			if (have) {
				rxlat_stats_add(&out->st, &d);
				continue;
			}
			have = true;
			if (c->per_queue)
				break;
		}
		if (c->per_queue && have) {
			it->q = q + 1;
		} else {
			it->slot++;
			it->q = 0;
		}
		if (!have)
			continue;
		out->stage = it->stage;
		out->ifindex = ifindex;
		if_name(c, ifindex, out->ifname);
		out->queue = !c->per_queue	  ? RXLAT_QUEUE_ALL
			     : q == c->max_queues ? RXLAT_QUEUE_OTHER
						  : (int)q;
		return 1;
	}
	return 0;
}

static bool iface_wanted(const struct rxlat_collect *c, __u32 ifindex)
{
	if (!c->filter)
		return true;
	for (size_t i = 0; i < c->nwanted; i++)
		if (c->wanted[i] == ifindex)
			return true;
	return false;
}

/* Subtracts from d the previous totals of key k, if there were any. */
static void xdp_delta(const struct rxlat_collect *c, const struct rxlat_xdp_key *k,
		      struct rxlat_xdp_counters *d)
{
	for (size_t j = 0; j < c->xdp_nprev; j++)
		if (c->xdp_prev_keys[j].ifindex == k->ifindex &&
		    c->xdp_prev_keys[j].rx_queue == k->rx_queue) {
			d->seen -= c->xdp_prev_vals[j].seen;
			d->stamped -= c->xdp_prev_vals[j].stamped;
			d->meta_refused -= c->xdp_prev_vals[j].meta_refused;
		}
}

int collect_xdp(struct rxlat_collect *c, const struct rxlat_xdp_key *keys,
		const struct rxlat_xdp_counters *vals, size_t n, struct rxlat_xdp_row **out,
		size_t *nout)
{
	struct rxlat_xdp_key *nk = malloc((n ? n : 1) * sizeof(*nk));
	struct rxlat_xdp_counters *nv = malloc((n ? n : 1) * sizeof(*nv));

	*nout = 0;
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out || !nk || !nv) {
		free(*out);
		*out = NULL;
		free(nk);
		free(nv);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct rxlat_xdp_counters d = vals[i];
		struct rxlat_xdp_row *r;

		if (keys[i].ifindex && !iface_wanted(c, keys[i].ifindex))
			continue;
		xdp_delta(c, &keys[i], &d);
		if (!d.seen && !d.stamped && !d.meta_refused)
			continue;
		r = &(*out)[(*nout)++];
		r->ifindex = keys[i].ifindex;
		r->queue = (int)keys[i].rx_queue;
		if_name(c, r->ifindex, r->ifname);
		r->seen = d.seen;
		r->stamped = d.stamped;
		r->meta_refused = d.meta_refused;
	}
	/* the totals, also of interfaces not reported, are the next baseline */
	if (n) {
		memcpy(nk, keys, n * sizeof(*nk));
		memcpy(nv, vals, n * sizeof(*nv));
	}
	free(c->xdp_prev_keys);
	free(c->xdp_prev_vals);
	c->xdp_prev_keys = nk;
	c->xdp_prev_vals = nv;
	c->xdp_nprev = n;
	return 0;
}

void collect_ifname(struct rxlat_collect *c, __u32 ifindex, char name[RXLAT_IFNAME_LEN])
{
	if_name(c, ifindex, name);
}

bool collect_wanted(const struct rxlat_collect *c, __u32 ifindex)
{
	return iface_wanted(c, ifindex);
}
