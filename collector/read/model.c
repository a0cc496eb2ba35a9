// SPDX-License-Identifier: GPL-2.0
/* The model of rxlat's numbers: snapshots, the baseline, and the cursors (model.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "rxlat_hist.h"
#include "model_impl.h"

/* ---- snapshots ------------------------------------------------------- */

/*
 * Series idx of live as of now, into *out: buckets first, then the sum and
 * the counters, less the samples in flight (see model_start()); prev is the
 * snapshot before, whose sources the held-back ones are taken from.
 */
static void snapshot(const struct rxlat_hist *live, const struct rxlat_hist *prev,
		     struct rxlat_hist *out)
{
	__u64 count = 0, measured = 0, excess;

	/* acquire: no counter is read before the buckets */
	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++) {
		out->buckets[b] = __atomic_load_n(&live->buckets[b], __ATOMIC_ACQUIRE);
		count += out->buckets[b];
	}
	out->sum_ns = __atomic_load_n(&live->sum_ns, __ATOMIC_ACQUIRE);
	for (int c = 0; c < RXLAT_NR_COUNTS; c++)
		out->counts[c] = __atomic_load_n(&live->counts[c], __ATOMIC_ACQUIRE);
	for (int s = 0; s < RXLAT_NR_SOURCES; s++)
		if (s != RXLAT_SRC_NONE)
			measured += out->sources[s];
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

static const struct rxlat_hist zero;

/*
 * The histogram of series idx in the hooks' store (series_store.h), NULL
 * while it has none: its place and the chunks mapped, each loaded with
 * acquire, as the hooks publish them.
 */
static struct rxlat_hist *store_hist(const struct series_store *s, __u32 idx)
{
	__u64 place;
	__u32 chunk;

	if (idx >= s->nr_series)
		return NULL;
	place = __atomic_load_n(&s->series_of[idx], __ATOMIC_ACQUIRE);
	if (!place)
		return NULL;
	chunk = (place - 1) >> RXLAT_CHUNK_SHIFT;
	if (chunk >= __atomic_load_n(s->nchunks, __ATOMIC_ACQUIRE))
		return NULL;
	return &s->chunks[chunk][(place - 1) & (RXLAT_CHUNK_SERIES - 1)];
}

static struct rxlat_hist *kept(struct rxlat_hist **a, __u32 idx)
{
	if (!a[idx])
		a[idx] = calloc(1, sizeof(struct rxlat_hist));
	return a[idx];
}

int model_new(struct rxlat_model **out, struct rxlat_dims d, bool per_queue, bool totals,
	      const struct model_src *src)
{
	struct rxlat_model *m = calloc(1, sizeof(*m));
	__u32 ng = d.max_groups + 2;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->max_groups = d.max_groups;
	m->max_ifaces = d.max_ifaces;
	m->max_queues = d.max_queues;
	m->per_queue = per_queue;
	m->totals = totals;
	m->src = *src;
	m->nr_series = rxlat_nr_series(d);
	/* pointers only: a series' copy is made once it has a histogram */
	m->base = calloc(m->nr_series, sizeof(*m->base));
	m->prev = calloc(m->nr_series, sizeof(*m->prev));
	m->slot_key = calloc(d.max_ifaces, sizeof(*m->slot_key));
	m->slot_name = calloc(d.max_ifaces, sizeof(*m->slot_name));
	m->slot_netns = calloc(d.max_ifaces, sizeof(*m->slot_netns));
	m->group_key = calloc(ng, sizeof(*m->group_key));
	m->group_netns = calloc(ng, sizeof(*m->group_netns));
	m->group = calloc(ng, sizeof(*m->group));
	if (!m->base || !m->prev || !m->slot_key || !m->slot_name || !m->slot_netns ||
	    !m->group_key || !m->group_netns || !m->group) {
		model_free(m);
		return -ENOMEM;
	}
	tally_init(&m->xdp, sizeof(struct rxlat_xdp_key), sizeof(struct rxlat_xdp_counters));
	tally_init(&m->drops, sizeof(struct rxlat_drop_key), sizeof(struct rxlat_drop));
	*out = m;
	return 0;
}

void model_free(struct rxlat_model *m)
{
	if (!m)
		return;
	for (__u32 i = 0; i < m->nr_series; i++) {
		free(m->base ? m->base[i] : NULL);
		free(m->prev ? m->prev[i] : NULL);
	}
	free(m->base);
	free(m->prev);
	free(m->slot_key);
	free(m->slot_name);
	free(m->slot_netns);
	free(m->group_key);
	free(m->group_netns);
	free(m->group);
	tally_free(&m->xdp);
	tally_free(&m->drops);
	free(m->xdp_tot);
	free(m->drop_tot);
	model_frozen_free(m);
	free(m);
}

int model_start(struct rxlat_model *m)
{
	int err;

	for (__u32 i = 0; i < m->nr_series; i++) {
		struct rxlat_hist *h = store_hist(&m->src.store, i), *prev, *base;

		if (!h)
			continue;
		prev = kept(m->prev, i);
		base = kept(m->base, i);
		if (!prev || !base)
			return -ENOMEM;
		snapshot(h, &zero, prev);
		*base = *prev;
		__atomic_store_n(&h->max_ns[0], 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&h->max_ns[1], 0, __ATOMIC_SEQ_CST);
	}
	err = tally_start(&m->xdp, model_read_xdp, m);
	if (!err)
		err = tally_start(&m->drops, model_read_drops, m);
	if (!err && m->src.slow)
		m->src.slow(m->src.ctx, m->slow_prev);
	return err;
}

/* ---- iterating over the series --------------------------------------- */

struct model_iter {
	struct rxlat_model *m;
	bool total;
	int parity;
	__u32 pos[MODEL_ND];   /* the next series; SUMMED in summed dimensions */
	__u32 *lead[MODEL_ND]; /* per slot, the slot whose series it is part of */
	bool done;
	/*
	 * totals: the kept totals of released slots as of the begin, by
	 * sequence number from first; each added to a live series of its
	 * labels, or a series of its own after the live ones
	 */
	bool *matched;
	__u64 first, end, next_frozen;
};

/* The labels of the series at pos, as they are printed (exported only for totals). */
static void labels_at(const struct model_iter *it, const __u32 *pos, struct rxlat_series *s)
{
	s->nlabels = 0;
	for (int d = 0; d < MODEL_ND; d++)
		model_dims[d].label(it->m, pos[d], it->total, s);
}

/*
 * Leaders of dimension d: each valid slot leads itself for the reports;
 * for totals, the first slot whose labels read the same leads them all.
 */
static int leaders(struct model_iter *it, int d)
{
	const struct rxlat_model *m = it->m;
	__u32 n = model_dims[d].size(m);
	char(*keys)[MODEL_KEY_LEN] = NULL;

	it->lead[d] = calloc(n, sizeof(*it->lead[d]));
	if (it->total)
		keys = calloc(n, sizeof(*keys));
	if (!it->lead[d] || (it->total && !keys)) {
		free(keys);
		return -ENOMEM;
	}
	for (__u32 s = 0; s < n; s++) {
		struct rxlat_series ser;

		it->lead[d][s] = model_dims[d].valid(m, s, it->total) ? s : SUMMED;
		if (!keys || it->lead[d][s] == SUMMED)
			continue;
		ser.nlabels = 0;
		model_dims[d].label(m, s, true, &ser);
		model_label_key(&ser, keys[s], sizeof(keys[s]));
		for (__u32 j = 0; j < s; j++)
			if (it->lead[d][j] == j && !strcmp(keys[j], keys[s])) {
				it->lead[d][s] = j;
				break;
			}
	}
	free(keys);
	return 0;
}

static void name_slots(struct rxlat_model *m, bool total)
{
	m->src.slots(m->src.ctx, m->slot_key, m->max_ifaces);
	for (__u32 i = 0; total && i < m->max_ifaces; i++) {
		__u64 key = m->slot_key[i];

		if (!key || m->slot_name[i][0])
			continue;
		m->slot_netns[i] = key >> 32;
		if (key >> 32)
			snprintf(m->slot_name[i], sizeof(m->slot_name[i]), "if%u", (__u32)key);
		else
			m->src.ifname(m->src.ctx, (__u32)key, m->slot_name[i]);
	}
	if (!m->src.groups)
		return;
	m->src.groups(m->src.ctx, m->group_key, m->group_netns, m->max_groups + 1);
	for (__u32 i = 1; i <= m->max_groups; i++) {
		if (!m->group_key[i] || (m->group[i].named && m->group[i].key == m->group_key[i]))
			continue;
		m->group[i].named =
		    m->src.group_name(m->src.ctx, m->group_key[i], m->group_netns[i], &m->group[i]);
		m->group[i].key = m->group_key[i];
	}
}

/* Moves pos to the first leader at or after it, odometer style; false at the end. */
static bool settle(struct model_iter *it)
{
	const struct rxlat_model *m = it->m;

	for (int d = MODEL_ND - 1; d >= 0;) {
		if (model_dims[d].summed(m)) {
			d--;
			continue;
		}
		while (it->pos[d] < model_dims[d].size(m) && it->lead[d][it->pos[d]] != it->pos[d])
			it->pos[d]++;
		if (it->pos[d] < model_dims[d].size(m)) {
			d--;
			continue;
		}
		/* carry into the next outer dimension */
		it->pos[d] = 0;
		do
			d--;
		while (d >= 0 && model_dims[d].summed(m));
		if (d < 0)
			return false;
		it->pos[d]++;
		/* and settle every inner one again from 0 */
		for (int e = d + 1; e < MODEL_ND; e++)
			if (!model_dims[e].summed(m))
				it->pos[e] = 0;
		d = MODEL_ND - 1;
	}
	return true;
}

static void advance(struct model_iter *it)
{
	for (int d = MODEL_ND - 1; d >= 0; d--)
		if (!model_dims[d].summed(it->m)) {
			it->pos[d]++;
			return;
		}
}

static struct model_iter *iter_new(struct rxlat_model *m, bool total, int parity)
{
	struct model_iter *it = calloc(1, sizeof(*it));

	if (!it)
		return NULL;
	it->m = m;
	it->total = total;
	it->parity = parity;
	name_slots(m, total);
	for (int d = 0; d < MODEL_ND; d++) {
		if (model_dims[d].summed(m)) {
			it->pos[d] = SUMMED;
			continue;
		}
		if (leaders(it, d)) {
			model_iter_free(it);
			return NULL;
		}
	}
	it->done = !settle(it);
	return it;
}

void model_iter_free(struct model_iter *it)
{
	if (!it)
		return;
	for (int d = 0; d < MODEL_ND; d++)
		free(it->lead[d]);
	free(it->matched);
	free(it);
}

/* Whether slot s of dimension d is part of the series at it->pos. */
static bool part_of(const struct model_iter *it, int d, __u32 s)
{
	const struct rxlat_model *m = it->m;

	if (model_dims[d].summed(m))
		return model_dims[d].valid(m, s, it->total);
	return it->lead[d][s] == it->pos[d];
}

/* Where next_part() is among the series indexes of one series; zeroed to start. */
struct parts {
	__u32 slot[MODEL_ND];
	bool begun;
};

/*
 * The next series index of the series at it->pos into *idx, in index
 * order: each slot that pos leads in the other dimensions, and every valid
 * slot of a summed one (part_of()). False after the last.
 */
static bool next_part(const struct model_iter *it, struct parts *p, __u32 *idx)
{
	int d = 0;

	if (p->begun) {
		d = MODEL_ND - 1;
		p->slot[d]++;
	}
	p->begun = true;
	while (d >= 0 && d < MODEL_ND) {
		__u32 n = model_dims[d].size(it->m);

		while (p->slot[d] < n && !part_of(it, d, p->slot[d]))
			p->slot[d]++;
		if (p->slot[d] < n) {
			d++; /* inward, where the slots are 0: not begun, or carried */
			continue;
		}
		/* carry into the next outer dimension */
		p->slot[d] = 0;
		if (--d >= 0)
			p->slot[d]++;
	}
	if (d < 0)
		return false;
	*idx = 0;
	for (d = 0; d < MODEL_ND; d++)
		*idx = *idx * model_dims[d].size(it->m) + p->slot[d];
	return true;
}

/* ---- the reports' cursor --------------------------------------------- */

static bool unchanged(const struct rxlat_hist *live, const struct rxlat_hist *prev)
{
	for (int c = 0; c < RXLAT_NR_COUNTS; c++)
		if (__atomic_load_n(&live->counts[c], __ATOMIC_ACQUIRE) != prev->counts[c])
			return false;
	return true;
}

struct delta_sum {
	struct rxlat_stats *st;
	bool any;
};

/* st += the report's part of series idx; the live max of the ending epoch. */
static int add_delta(struct model_iter *it, __u32 idx, struct delta_sum *ds)
{
	struct rxlat_hist cur, *prev, *h = store_hist(&it->m->src.store, idx);
	struct rxlat_stats d = {};

	if (!h)
		return 0;
	prev = kept(it->m->prev, idx);
	if (!prev)
		return -ENOMEM;
	/*
	 * The hooks count a sample's source first: counters as they were mean
	 * no sample since (none held back either), and the buckets need no
	 * reading. Most series of a large host are quiet in most reports.
	 */
	if (unchanged(h, prev)) {
		__atomic_exchange_n(&h->max_ns[it->parity], 0, __ATOMIC_SEQ_CST);
		return 0;
	}
	snapshot(h, prev, &cur);
	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++) {
		d.buckets[b] = cur.buckets[b] - prev->buckets[b];
		d.count += d.buckets[b];
	}
	for (int c = 0; c < RXLAT_NR_COUNTS; c++) {
		d.counts[c] = cur.counts[c] - prev->counts[c];
		ds->any |= d.counts[c] != 0;
	}
	ds->any |= d.count != 0;
	d.sum_ns = cur.sum_ns - prev->sum_ns;
	/* BPF now writes the other parity: this one is the report's */
	d.max_ns = __atomic_exchange_n(&h->max_ns[it->parity], 0, __ATOMIC_SEQ_CST);
	*prev = cur;
	rxlat_stats_add(ds->st, &d);
	return 0;
}

struct model_iter *model_report_begin(struct rxlat_model *m, int parity)
{
	return iter_new(m, false, parity);
}

int model_report_next(struct model_iter *it, struct rxlat_series *out)
{
	while (!it->done) {
		struct delta_sum ds = { &out->st, false };
		__u32 idx;
		int err;

		memset(&out->st, 0, sizeof(out->st));
		for (struct parts p = {}; next_part(it, &p, &idx);) {
			err = add_delta(it, idx, &ds);
			if (err < 0)
				return err;
		}
		if (ds.any)
			labels_at(it, it->pos, out);
		advance(it);
		it->done = !settle(it);
		if (ds.any)
			return 1;
	}
	return 0;
}

/* ---- Prometheus' cursor ---------------------------------------------- */

/* h += live[idx] less its baseline; buckets before counters, as the reports read */
static void add_total(const struct rxlat_model *m, __u32 idx, struct rxlat_hist *h)
{
	const struct rxlat_hist *live = store_hist(&m->src.store, idx);
	const struct rxlat_hist *base = m->base[idx] ? m->base[idx] : &zero;

	if (!live)
		return;
	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++)
		h->buckets[b] +=
		    __atomic_load_n(&live->buckets[b], __ATOMIC_ACQUIRE) - base->buckets[b];
	h->sum_ns += __atomic_load_n(&live->sum_ns, __ATOMIC_ACQUIRE) - base->sum_ns;
	for (int c = 0; c < RXLAT_NR_COUNTS; c++)
		h->counts[c] +=
		    __atomic_load_n(&live->counts[c], __ATOMIC_ACQUIRE) - base->counts[c];
}

static bool hist_empty(const struct rxlat_hist *h)
{
	return !memcmp(h->buckets, zero.buckets, sizeof(h->buckets)) && !h->sum_ns &&
	       !memcmp(h->counts, zero.counts, sizeof(h->counts));
}

struct model_iter *model_total_begin(struct rxlat_model *m)
{
	struct model_iter *it;

	it = iter_new(m, true, 0);
	if (it && m->frozen_next > m->frozen_first) {
		it->first = it->next_frozen = m->frozen_first;
		it->end = m->frozen_next;
		it->matched = calloc(it->end - it->first, sizeof(*it->matched));
		if (!it->matched) {
			model_iter_free(it);
			return NULL;
		}
	}
	return it;
}

/* h += the kept totals of released slots with out's labels. */
static void add_frozen(struct model_iter *it, const struct rxlat_series *out, struct rxlat_hist *h)
{
	const struct model_frozen *f;
	__u64 seq;

	if (it->end == it->first || !(f = model_frozen_find(it->m, out, &seq)))
		return;
	/* one made since the begin is not this cursor's */
	if (seq < it->first || seq >= it->end || it->matched[seq - it->first])
		return;
	model_frozen_hist(f, h);
	it->matched[seq - it->first] = true;
}

/* The next kept series that no live one had: 1, or 0 after the last. */
static int next_frozen(struct model_iter *it, struct rxlat_series *out, struct rxlat_hist *h)
{
	while (it->next_frozen < it->end) {
		__u64 seq = it->next_frozen++;
		const struct model_frozen *f = model_frozen_seq(it->m, seq);

		/* dropped since the begin, or added to a live series */
		if (!f || it->matched[seq - it->first])
			continue;
		model_frozen_series(f, out);
		memset(h, 0, sizeof(*h));
		model_frozen_hist(f, h);
		return 1;
	}
	return 0;
}

int model_total_next(struct model_iter *it, struct rxlat_series *out, struct rxlat_hist *h)
{
	while (!it->done) {
		bool any;
		__u32 idx;

		memset(h, 0, sizeof(*h));
		for (struct parts p = {}; next_part(it, &p, &idx);)
			add_total(it->m, idx, h);
		labels_at(it, it->pos, out);
		add_frozen(it, out, h);
		any = !hist_empty(h);
		advance(it);
		it->done = !settle(it);
		if (any)
			return 1;
	}
	return next_frozen(it, out, h);
}

const char *model_overflow_limit(enum model_dim_id d)
{
	return d < MODEL_ND ? model_dims[d].limit : NULL;
}

/*
 * Calls fn(m, idx, pos, arg) on every series whose slot in dimension d is
 * at[d], for each d where at[d] is not SUMMED; pos is its slot in each.
 */
static void each_at(struct rxlat_model *m, const __u32 *at,
		    void (*fn)(struct rxlat_model *m, __u32 idx, const __u32 *pos, void *arg),
		    void *arg)
{
	__u32 n[MODEL_ND], pos[MODEL_ND];
	int d;

	for (d = 0; d < MODEL_ND; d++) {
		n[d] = model_dims[d].size(m);
		pos[d] = at[d] == SUMMED ? 0 : at[d];
	}
	for (;;) {
		__u32 idx = 0;

		for (d = 0; d < MODEL_ND; d++)
			idx = idx * n[d] + pos[d];
		fn(m, idx, pos, arg);
		for (d = MODEL_ND - 1; d >= 0; d--) {
			if (at[d] != SUMMED)
				continue;
			if (++pos[d] < n[d])
				break;
			pos[d] = 0;
		}
		if (d < 0)
			return;
	}
}

static void sum_sources(struct rxlat_model *m, __u32 idx, const __u32 *pos, void *arg)
{
	struct rxlat_hist h = {};

	(void)pos;
	add_total(m, idx, &h);
	for (int s = 0; s < RXLAT_NR_SOURCES; s++)
		*(__u64 *)arg += h.sources[s];
}

/* Samples (every counter of the sources) of stage in the overflow slot of dimension od. */
__u64 model_total_overflow(struct rxlat_model *m, enum model_dim_id od, __u32 stage)
{
	__u32 at[MODEL_ND];
	__u64 sum = 0;

	if (!model_overflow_limit(od))
		return 0;
	for (int d = 0; d < MODEL_ND; d++)
		at[d] = SUMMED;
	at[MODEL_DIM_STAGE] = stage;
	at[od] = model_dims[od].size(m) - 1;
	each_at(m, at, sum_sources, &sum);
	return sum;
}

/* ---- released slots -------------------------------------------------- */

/*
 * Series idx of a slot being released: its total so far is kept under its
 * labels (for Prometheus), and its baseline moves to now, so that the
 * slot's next owner starts from zero.
 */
static void retire_series(struct rxlat_model *m, __u32 idx, const __u32 *at, void *arg)
{
	struct rxlat_hist *h = store_hist(&m->src.store, idx), *base, tot = {};
	struct model_iter it = { .m = m, .total = true };
	struct rxlat_series s;

	(void)arg;
	if (!h || !(base = kept(m->base, idx)))
		return;
	add_total(m, idx, &tot);
	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++)
		base->buckets[b] += tot.buckets[b];
	base->sum_ns += tot.sum_ns;
	for (int c = 0; c < RXLAT_NR_COUNTS; c++)
		base->counts[c] += tot.counts[c];
	if (!m->totals || hist_empty(&tot))
		return;
	for (int d = 0; d < MODEL_ND; d++)
		it.pos[d] = model_dims[d].summed(m) ? SUMMED : at[d];
	labels_at(&it, it.pos, &s);
	if (model_frozen_add(m, &s, &tot))
		m->frozen_dropped++; /* no memory: gone like the oldest, and counted */
}

static void retire(struct rxlat_model *m, enum model_released which, __u32 slot)
{
	__u32 at[MODEL_ND];

	name_slots(m, m->totals);
	for (int d = 0; d < MODEL_ND; d++)
		at[d] = model_dims[d].released == which ? slot : SUMMED;
	each_at(m, at, retire_series, NULL);
}

void model_retire_slot(struct rxlat_model *m, __u32 slot)
{
	retire(m, MODEL_RELEASED_IFACE, slot);
	/* the next owner is named when it is first seen */
	if (slot < m->max_ifaces)
		m->slot_name[slot][0] = '\0';
}

void model_retire_group(struct rxlat_model *m, __u32 slot)
{
	if (slot == 0 || slot > m->max_groups)
		return;
	retire(m, MODEL_RELEASED_GROUP, slot);
	memset(&m->group[slot], 0, sizeof(m->group[slot]));
}
