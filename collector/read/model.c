// SPDX-License-Identifier: GPL-2.0
/* The model of rxlat's numbers: snapshots, the baseline, and the cursors (model.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "rxlat_hist.h"
#include "model_impl.h"

/* ---- the dimensions of the series index ------------------------------ */

#define SUMMED ((__u32)-1) /* the slot of a dimension whose slots are summed */

struct dim {
	__u32 (*size)(const struct rxlat_model *m);
	/* summed into one series (and labelled once, slot SUMMED) */
	bool (*summed)(const struct rxlat_model *m);
	/* does slot hold a series now (total: for Prometheus)? */
	bool (*valid)(const struct rxlat_model *m, __u32 slot, bool total);
	void (*label)(const struct rxlat_model *m, __u32 slot, bool total, struct rxlat_series *s);
	const char *limit; /* its last slot takes what is past this limit */
	bool released;	   /* its slots are released (model_retire_slot()) */
};

static __u32 stage_size(const struct rxlat_model *m)
{
	(void)m;
	return RXLAT_NR_STAGES;
}

static bool never(const struct rxlat_model *m)
{
	(void)m;
	return false;
}

static bool always(const struct rxlat_model *m, __u32 slot, bool total)
{
	(void)m, (void)slot, (void)total;
	return true;
}

static void stage_label(const struct rxlat_model *m, __u32 slot, bool total, struct rxlat_series *s)
{
	(void)m, (void)total;
	rxlat_label_str(s, "stage", RXLAT_LABEL_BARE, "%s", rxlat_stage_names[slot]);
}

static __u32 iface_size(const struct rxlat_model *m)
{
	return m->max_ifaces + 1;
}

static bool iface_valid(const struct rxlat_model *m, __u32 slot, bool total)
{
	if (slot == m->max_ifaces)
		return true;
	return total ? m->slot_name[slot][0] != '\0' : m->slot_ifindex[slot] != 0;
}

/*
 * The reports name a slot by its interface now (its last name once gone);
 * Prometheus by the name the slot was first seen with, for the whole run,
 * so that no exported series ever loses a part.
 */
static void iface_label(const struct rxlat_model *m, __u32 slot, bool total, struct rxlat_series *s)
{
	__u32 ifindex = slot < m->max_ifaces ? m->slot_ifindex[slot] : 0;
	char name[RXLAT_IFNAME_LEN];

	if (total && slot < m->max_ifaces)
		memcpy(name, m->slot_name[slot], sizeof(name));
	else if (ifindex)
		m->src.ifname(m->src.ctx, ifindex, name);
	else
		snprintf(name, sizeof(name), "other");
	rxlat_label_str(s, "ifname", 0, "%.*s", RXLAT_IFNAME_LEN, name);
	rxlat_label_num(s, "ifindex", RXLAT_LABEL_JSON_ONLY, ifindex);
}

static __u32 queue_size(const struct rxlat_model *m)
{
	return m->max_queues + 1;
}

static bool queue_summed(const struct rxlat_model *m)
{
	return !m->per_queue;
}

static void queue_label(const struct rxlat_model *m, __u32 slot, bool total, struct rxlat_series *s)
{
	(void)total;
	if (slot == SUMMED)
		rxlat_label_null(s, "queue", "all");
	else if (slot == m->max_queues)
		rxlat_label_str(s, "queue", 0, "other");
	else
		rxlat_label_num(s, "queue", 0, slot);
}

/* Outermost first, as rxlat_series_index() lays the series out. */
static const struct dim dims[] = {
	{ stage_size, never, always, stage_label, NULL, false },
	{ iface_size, never, iface_valid, iface_label, "max_ifaces", true },
	{ queue_size, queue_summed, always, queue_label, "max_queues", false },
};
#define ND ((int)(sizeof(dims) / sizeof(dims[0])))

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

static struct rxlat_hist *kept(struct rxlat_hist **a, __u32 idx)
{
	if (!a[idx])
		a[idx] = calloc(1, sizeof(struct rxlat_hist));
	return a[idx];
}

int model_new(struct rxlat_model **out, __u32 max_ifaces, __u32 max_queues, bool per_queue,
	      const struct model_src *src)
{
	struct rxlat_model *m = calloc(1, sizeof(*m));

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->max_ifaces = max_ifaces;
	m->max_queues = max_queues;
	m->per_queue = per_queue;
	m->src = *src;
	m->nr_series = rxlat_nr_series(max_ifaces, max_queues);
	/* pointers only: a series' copy is made once it has a histogram */
	m->base = calloc(m->nr_series, sizeof(*m->base));
	m->prev = calloc(m->nr_series, sizeof(*m->prev));
	m->slot_ifindex = calloc(max_ifaces, sizeof(*m->slot_ifindex));
	m->slot_name = calloc(max_ifaces, sizeof(*m->slot_name));
	if (!m->base || !m->prev || !m->slot_ifindex || !m->slot_name) {
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
	free(m->slot_ifindex);
	free(m->slot_name);
	tally_free(&m->xdp);
	tally_free(&m->drops);
	free(m->xdp_tot);
	free(m->drop_tot);
	free(m->frozen);
	free(m);
}

int model_start(struct rxlat_model *m)
{
	int err;

	for (__u32 i = 0; i < m->nr_series; i++) {
		struct rxlat_hist *h = live_at(&m->src.live, i), *prev, *base;

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
	__u32 pos[ND];	 /* the next series; SUMMED in summed dimensions */
	__u32 *lead[ND]; /* per slot, the slot whose series it is part of */
	bool done;
	/* totals: the kept totals of released slots, added to a live series */
	bool *matched;
	size_t nfrozen, next_frozen;
};

/* The labels of the series at pos, as they are printed (exported only for totals). */
static void labels_at(const struct model_iter *it, const __u32 *pos, struct rxlat_series *s)
{
	s->nlabels = 0;
	for (int d = 0; d < ND; d++)
		dims[d].label(it->m, pos[d], it->total, s);
}

/*
 * Leaders of dimension d: each valid slot leads itself for the reports;
 * for totals, the first slot whose labels read the same leads them all.
 */
static int leaders(struct model_iter *it, int d)
{
	const struct rxlat_model *m = it->m;
	__u32 n = dims[d].size(m);
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

		it->lead[d][s] = dims[d].valid(m, s, it->total) ? s : SUMMED;
		if (!keys || it->lead[d][s] == SUMMED)
			continue;
		ser.nlabels = 0;
		dims[d].label(m, s, true, &ser);
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
	m->src.slots(m->src.ctx, m->slot_ifindex, m->max_ifaces);
	for (__u32 i = 0; total && i < m->max_ifaces; i++)
		if (m->slot_ifindex[i] && !m->slot_name[i][0])
			m->src.ifname(m->src.ctx, m->slot_ifindex[i], m->slot_name[i]);
}

/* Moves pos to the first leader at or after it, odometer style; false at the end. */
static bool settle(struct model_iter *it)
{
	const struct rxlat_model *m = it->m;

	for (int d = ND - 1; d >= 0;) {
		if (dims[d].summed(m)) {
			d--;
			continue;
		}
		while (it->pos[d] < dims[d].size(m) && it->lead[d][it->pos[d]] != it->pos[d])
			it->pos[d]++;
		if (it->pos[d] < dims[d].size(m)) {
			d--;
			continue;
		}
		/* carry into the next outer dimension */
		it->pos[d] = 0;
		do
			d--;
		while (d >= 0 && dims[d].summed(m));
		if (d < 0)
			return false;
		it->pos[d]++;
		/* and settle every inner one again from 0 */
		for (int e = d + 1; e < ND; e++)
			if (!dims[e].summed(m))
				it->pos[e] = 0;
		d = ND - 1;
	}
	return true;
}

static void advance(struct model_iter *it)
{
	for (int d = ND - 1; d >= 0; d--)
		if (!dims[d].summed(it->m)) {
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
	for (int d = 0; d < ND; d++) {
		if (dims[d].summed(m)) {
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
	for (int d = 0; d < ND; d++)
		free(it->lead[d]);
	free(it->matched);
	free(it);
}

/*
 * Calls fn on every series index of the series at it->pos: each slot led
 * by pos in the other dimensions, and every slot of a summed one.
 */
static int each_index(struct model_iter *it, int d, __u32 idx,
		      int (*fn)(struct model_iter *it, __u32 idx, void *arg), void *arg)
{
	const struct rxlat_model *m = it->m;
	__u32 n;
	int err = 0;

	if (d == ND)
		return fn(it, idx, arg);
	n = dims[d].size(m);
	for (__u32 s = 0; s < n && err >= 0; s++) {
		if (dims[d].summed(m) ? !dims[d].valid(m, s, it->total)
				      : it->lead[d][s] != it->pos[d])
			continue;
		err = each_index(it, d + 1, idx * n + s, fn, arg);
	}
	return err;
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
static int add_delta(struct model_iter *it, __u32 idx, void *arg)
{
	struct delta_sum *ds = arg;
	struct rxlat_hist cur, *prev, *h = live_at(&it->m->src.live, idx);
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
		int err;

		memset(&out->st, 0, sizeof(out->st));
		err = each_index(it, 0, 0, add_delta, &ds);
		if (err < 0)
			return err;
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
static int add_total(struct model_iter *it, __u32 idx, void *arg)
{
	const struct rxlat_hist *live = live_at(&it->m->src.live, idx);
	const struct rxlat_hist *base = it->m->base[idx] ? it->m->base[idx] : &zero;
	struct rxlat_hist *h = arg;

	if (!live)
		return 0;
	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++)
		h->buckets[b] +=
		    __atomic_load_n(&live->buckets[b], __ATOMIC_ACQUIRE) - base->buckets[b];
	h->sum_ns += __atomic_load_n(&live->sum_ns, __ATOMIC_ACQUIRE) - base->sum_ns;
	for (int c = 0; c < RXLAT_NR_COUNTS; c++)
		h->counts[c] +=
		    __atomic_load_n(&live->counts[c], __ATOMIC_ACQUIRE) - base->counts[c];
	return 0;
}

static bool hist_empty(const struct rxlat_hist *h)
{
	return !memcmp(h->buckets, zero.buckets, sizeof(h->buckets)) && !h->sum_ns &&
	       !memcmp(h->counts, zero.counts, sizeof(h->counts));
}

struct model_iter *model_total_begin(struct rxlat_model *m)
{
	struct model_iter *it;

	m->scraped = true;
	it = iter_new(m, true, 0);
	if (it && m->nfrozen) {
		it->nfrozen = m->nfrozen;
		it->matched = calloc(m->nfrozen, sizeof(*it->matched));
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
	char key[MODEL_KEY_LEN];

	if (!it->nfrozen)
		return;
	model_label_key(out, key, sizeof(key));
	for (size_t i = 0; i < it->nfrozen; i++)
		if (!it->matched[i] && !strcmp(it->m->frozen[i].key, key)) {
			model_hist_add(h, &it->m->frozen[i].h);
			it->matched[i] = true;
		}
}

/* The next kept series that no live one had: 1, or 0 after the last. */
static int next_frozen(struct model_iter *it, struct rxlat_series *out, struct rxlat_hist *h)
{
	while (it->next_frozen < it->nfrozen) {
		const struct model_frozen *f = &it->m->frozen[it->next_frozen++];

		if (it->matched[it->next_frozen - 1])
			continue;
		memcpy(out->labels, f->labels, f->nlabels * sizeof(*f->labels));
		out->nlabels = f->nlabels;
		*h = f->h;
		return 1;
	}
	return 0;
}

int model_total_next(struct model_iter *it, struct rxlat_series *out, struct rxlat_hist *h)
{
	while (!it->done) {
		bool any;

		memset(h, 0, sizeof(*h));
		each_index(it, 0, 0, add_total, h);
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

unsigned int model_overflow_dims(void)
{
	unsigned int n = 0;

	for (int d = 0; d < ND; d++)
		n += dims[d].limit != NULL;
	return n;
}

static int overflow_dim(unsigned int i)
{
	for (int d = 0; d < ND; d++)
		if (dims[d].limit && !i--)
			return d;
	return -1;
}

const char *model_overflow_limit(unsigned int i)
{
	int d = overflow_dim(i);

	return d < 0 ? NULL : dims[d].limit;
}

/* Samples (every counter of the sources) of stage in the overflow slot of dimension i. */
/*
 * Calls fn(m, idx, pos, arg) on every series whose slot in dimension d is
 * at[d], for each d where at[d] is not SUMMED; pos is its slot in each.
 */
static void each_at(struct rxlat_model *m, const __u32 *at,
		    void (*fn)(struct rxlat_model *m, __u32 idx, const __u32 *pos, void *arg),
		    void *arg)
{
	__u32 n[ND], pos[ND];
	int d;

	for (d = 0; d < ND; d++) {
		n[d] = dims[d].size(m);
		pos[d] = at[d] == SUMMED ? 0 : at[d];
	}
	for (;;) {
		__u32 idx = 0;

		for (d = 0; d < ND; d++)
			idx = idx * n[d] + pos[d];
		fn(m, idx, pos, arg);
		for (d = ND - 1; d >= 0; d--) {
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
	add_total(&(struct model_iter){ .m = m }, idx, &h);
	for (int s = 0; s < RXLAT_NR_SOURCES; s++)
		*(__u64 *)arg += h.sources[s];
}

/* Samples (every counter of the sources) of stage in the overflow slot of dimension i. */
__u64 model_total_overflow(struct rxlat_model *m, unsigned int i, __u32 stage)
{
	int od = overflow_dim(i);
	__u32 at[ND];
	__u64 sum = 0;

	if (od < 0)
		return 0;
	for (int d = 0; d < ND; d++)
		at[d] = SUMMED;
	at[0] = stage;
	at[od] = dims[od].size(m) - 1;
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
	struct rxlat_hist *h = live_at(&m->src.live, idx), *base, tot = {};
	struct model_iter it = { .m = m, .total = true };
	struct rxlat_series s;
	struct model_frozen *f;

	(void)arg;
	if (!h || !(base = kept(m->base, idx)))
		return;
	add_total(&it, idx, &tot);
	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++)
		base->buckets[b] += tot.buckets[b];
	base->sum_ns += tot.sum_ns;
	for (int c = 0; c < RXLAT_NR_COUNTS; c++)
		base->counts[c] += tot.counts[c];
	if (!m->scraped || hist_empty(&tot))
		return;
	for (int d = 0; d < ND; d++)
		it.pos[d] = dims[d].summed(m) ? SUMMED : at[d];
	labels_at(&it, it.pos, &s);
	f = model_frozen_at(m, &s);
	if (f)
		model_hist_add(&f->h, &tot);
}

void model_retire_slot(struct rxlat_model *m, __u32 slot)
{
	__u32 at[ND];

	name_slots(m, m->scraped);
	for (int d = 0; d < ND; d++)
		at[d] = dims[d].released ? slot : SUMMED;
	each_at(m, at, retire_series, NULL);
	/* the next owner is named when it is first seen */
	if (slot < m->max_ifaces)
		m->slot_name[slot][0] = '\0';
}
