// SPDX-License-Identifier: GPL-2.0
/*
 * The model's rows: the stamper's counters per (interface, queue) and the
 * drops per (interface, queue, reason), for both cursors (model.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_impl.h"
#include "rxlat_hist.h"

int model_read_xdp(void *ctx, void **keys, void **vals, size_t *n)
{
	struct rxlat_model *m = ctx;

	*keys = *vals = NULL;
	*n = 0;
	return m->src.xdp ? m->src.xdp(m->src.ctx, (struct rxlat_xdp_key **)keys,
				       (struct rxlat_xdp_counters **)vals, n)
			  : 0;
}

int model_read_drops(void *ctx, void **keys, void **vals, size_t *n)
{
	struct rxlat_model *m = ctx;

	*keys = *vals = NULL;
	*n = 0;
	return m->src.drops ? m->src.drops(m->src.ctx, (struct rxlat_drop_key **)keys,
					   (struct rxlat_drop **)vals, n)
			    : 0;
}

static bool wanted(const struct rxlat_model *m, __u32 ifindex)
{
	return !ifindex || !m->src.wanted || m->src.wanted(m->src.ctx, ifindex);
}

/* if_netns: the interface is another namespace's, named by its index */
static void ifname_in(const struct rxlat_model *m, __u32 ifindex, __u32 if_netns,
		      char name[RXLAT_IFNAME_LEN])
{
	if (ifindex && if_netns)
		snprintf(name, RXLAT_IFNAME_LEN, "if%u", ifindex);
	else if (ifindex)
		m->src.ifname(m->src.ctx, ifindex, name);
	else
		snprintf(name, RXLAT_IFNAME_LEN, "other");
}

/*
 * A map's totals now into *now, and room for as many report rows in *rows
 * (size bytes each, zeroed): 0, or -errno with nothing left allocated.
 */
static int read_rows(struct rxlat_model *m, tally_read read, struct tally_set *now, void **rows,
		     size_t size)
{
	int err = read(m, &now->keys, &now->vals, &now->n);

	*rows = err ? NULL : calloc(now->n ? now->n : 1, size);
	if (!err && !*rows)
		err = -ENOMEM;
	if (err)
		tally_set_free(now);
	return err;
}

int model_report_xdp(struct rxlat_model *m, struct rxlat_xdp_row **out, size_t *nout)
{
	struct tally_set now = {};
	const struct rxlat_xdp_key *keys;
	const struct rxlat_xdp_counters *vals;
	int err = read_rows(m, model_read_xdp, &now, (void **)out, sizeof(**out));

	*nout = 0;
	if (err)
		return err;
	keys = now.keys;
	vals = now.vals;
	for (size_t i = 0; i < now.n; i++) {
		const struct rxlat_xdp_counters *p = tally_find(&m->xdp, &m->xdp.prev, &keys[i]);
		struct rxlat_xdp_row *r = &(*out)[*nout];

		if (!wanted(m, keys[i].ifindex))
			continue;
#define DELTA_(f, ...) r->f = vals[i].f - (p ? p->f : 0);
		RXLAT_XDP_COUNTERS(DELTA_)
#undef DELTA_
		if (!r->seen && !r->stamped && !r->meta_refused && !r->polls)
			continue;
		r->cpu = r->polls ? (int)vals[i].cpu : -1;
		r->ifindex = keys[i].ifindex;
		r->queue = (int)keys[i].rx_queue;
		ifname_in(m, r->ifindex, 0, r->ifname);
		(*nout)++;
	}
	/* the totals, also of interfaces not reported, are the next report's start */
	tally_take(&m->xdp.prev, &now);
	return 0;
}

int model_report_drops(struct rxlat_model *m, struct rxlat_drop_row **out, size_t *nout)
{
	struct tally_set now = {};
	const struct rxlat_drop_key *keys;
	const struct rxlat_drop *vals;
	int err = read_rows(m, model_read_drops, &now, (void **)out, sizeof(**out));

	*nout = 0;
	if (err)
		return err;
	keys = now.keys;
	vals = now.vals;
	for (size_t i = 0; i < now.n; i++) {
		const struct rxlat_drop *p = tally_find(&m->drops, &m->drops.prev, &keys[i]);
		struct rxlat_drop_row *r = &(*out)[*nout];
		int top = -1;

		memset(r, 0, sizeof(*r));
		for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++) {
			r->st.buckets[b] = vals[i].buckets[b] - (p ? p->buckets[b] : 0);
			r->st.count += r->st.buckets[b];
			if (r->st.buckets[b])
				top = b;
		}
		if (!r->st.count)
			continue;
		r->st.sum_ns = vals[i].sum_ns - (p ? p->sum_ns : 0);
		/*
		 * The map keeps the largest time since the start: the report's
		 * is at most that, and at most its highest bucket's bound.
		 */
		r->st.max_ns = vals[i].max_ns;
		if (top >= 0 && top < (int)RXLAT_HIST_BUCKETS - 1 &&
		    rxlat_hist_le(top) < r->st.max_ns)
			r->st.max_ns = rxlat_hist_le(top);
		r->ifindex = keys[i].ifindex;
		r->queue = (int)keys[i].queue;
		r->reason = m->src.reason(m->src.ctx, keys[i].reason);
		ifname_in(m, keys[i].ifindex, keys[i].if_netns, r->ifname);
		(*nout)++;
	}
	tally_take(&m->drops.prev, &now);
	return 0;
}

int model_report_slow(struct rxlat_model *m, __u64 counts[3])
{
	__u64 now[3];
	int err = m->src.slow ? m->src.slow(m->src.ctx, now) : -ENOENT;

	if (err)
		return err;
	for (int i = 0; i < 3; i++) {
		counts[i] = now[i] - m->slow_prev[i];
		m->slow_prev[i] = now[i];
	}
	return 0;
}

__u64 model_report_drops_lost(struct rxlat_model *m)
{
	return m->src.drops_lost ? m->src.drops_lost(m->src.ctx) : 0;
}

int model_stamper_now(struct rxlat_model *m, struct rxlat_xdp_key **keys,
		      struct rxlat_xdp_counters **vals, size_t *n)
{
	return model_read_xdp(m, (void **)keys, (void **)vals, n);
}

static __u64 larger(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

/* The kept total of (ifindex, queue), added when new; NULL: no memory. */
static struct model_xdp_total *xdp_total(struct rxlat_model *m, const struct rxlat_xdp_key *k)
{
	struct model_xdp_total *p;

	for (size_t i = 0; i < m->nxdp_tot; i++)
		if (m->xdp_tot[i].ifindex == k->ifindex && m->xdp_tot[i].queue == k->rx_queue)
			return &m->xdp_tot[i];
	p = realloc(m->xdp_tot, (m->nxdp_tot + 1) * sizeof(*p));
	if (!p)
		return NULL;
	m->xdp_tot = p;
	p = &p[m->nxdp_tot++];
	memset(p, 0, sizeof(*p));
	p->ifindex = k->ifindex;
	p->queue = k->rx_queue;
	ifname_in(m, k->ifindex, 0, p->ifname);
	return p;
}

int model_total_xdp(struct rxlat_model *m, const struct model_xdp_total **rows, size_t *n)
{
	struct tally_set now = {};
	const struct rxlat_xdp_key *keys;
	const struct rxlat_xdp_counters *vals;
	int err = 0;

	/* no stamper, or unreadable now: the kept values stand */
	if (!model_read_xdp(m, &now.keys, &now.vals, &now.n)) {
		keys = now.keys;
		vals = now.vals;
		for (size_t i = 0; i < now.n && !err; i++) {
			const struct rxlat_xdp_counters *b =
			    tally_find(&m->xdp, &m->xdp.base, &keys[i]);
			struct model_xdp_total *t = xdp_total(m, &keys[i]);

			if (!t) {
				err = -ENOMEM;
				break;
			}
			/* the largest seen: per-CPU sums are read CPU by CPU */
#define LARGER_(f, ...) t->c.f = larger(t->c.f, vals[i].f - (b ? b->f : 0));
			RXLAT_XDP_COUNTERS(LARGER_)
#undef LARGER_
			t->c.cpu = vals[i].cpu;
		}
	}
	tally_set_free(&now);
	for (size_t i = 0; i < m->nxdp_tot; i++)
		m->xdp_tot[i].wanted = wanted(m, m->xdp_tot[i].ifindex);
	*rows = m->xdp_tot;
	*n = m->nxdp_tot;
	return err;
}

static struct model_drop_total *drop_total(struct rxlat_model *m, const struct rxlat_drop_key *k)
{
	struct model_drop_total *p;

	for (size_t i = 0; i < m->ndrop_tot; i++)
		if (!memcmp(&m->drop_tot[i].key, k, sizeof(*k)))
			return &m->drop_tot[i];
	p = realloc(m->drop_tot, (m->ndrop_tot + 1) * sizeof(*p));
	if (!p)
		return NULL;
	m->drop_tot = p;
	p = &p[m->ndrop_tot++];
	memset(p, 0, sizeof(*p));
	p->key = *k;
	ifname_in(m, k->ifindex, k->if_netns, p->ifname);
	p->reason = m->src.reason(m->src.ctx, k->reason);
	return p;
}

static __u64 drop_count(const struct rxlat_drop *d)
{
	__u64 n = 0;

	for (__u32 b = 0; d && b < RXLAT_HIST_BUCKETS; b++)
		n += d->buckets[b];
	return n;
}

int model_total_drops(struct rxlat_model *m, const struct model_drop_total **rows, size_t *n,
		      bool *drops_on)
{
	struct tally_set now = {};
	const struct rxlat_drop_key *keys;
	const struct rxlat_drop *vals;
	int err = 0;

	*drops_on = m->src.drops != NULL;
	if (*drops_on && !model_read_drops(m, &now.keys, &now.vals, &now.n)) {
		keys = now.keys;
		vals = now.vals;
		for (size_t i = 0; i < now.n && !err; i++) {
			const struct rxlat_drop *b =
			    tally_find(&m->drops, &m->drops.base, &keys[i]);
			struct model_drop_total *t = drop_total(m, &keys[i]);

			if (!t)
				err = -ENOMEM;
			else
				t->count = larger(t->count, drop_count(&vals[i]) - drop_count(b));
		}
	}
	tally_set_free(&now);
	*rows = m->drop_tot;
	*n = m->ndrop_tot;
	return err;
}
