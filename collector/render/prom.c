// SPDX-License-Identifier: GPL-2.0
/*
 * The series array and the stamper's counters in the Prometheus text
 * exposition format (version 0.0.4); see prom.h.
 *
 * Why the counters never go down:
 *  - every count is the live map's absolute value less the baseline taken
 *    when the first interval began; the BPF side only ever adds to it, and
 *    interface slots are never freed nor handed to another interface (a
 *    named interface that comes back takes its old slot);
 *  - an interface slot is exported under the name it had when first seen,
 *    for the whole run, and slots of one name are summed into one series,
 *    so that no series ever loses a part (two slots can share a name: an
 *    interface deleted and re-created under its name without -i);
 *  - the stamper's counters are kept per (ifindex, queue) at the largest
 *    value seen, also for a key the map no longer holds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prom.h"
#include "rxlat_hist.h"

#define LAT   "rxlat_stage_latency_seconds"
#define SAMP  "rxlat_stage_samples_total"
#define OVER  "rxlat_overflow_samples_total"
#define XSEEN "rxlat_xdp_packets_seen_total"
#define XSTMP "rxlat_xdp_packets_stamped_total"
#define XREF  "rxlat_xdp_meta_refused_total"
#define BINFO "rxlat_build_info"
#define DROPS "rxlat_drops_total"

/* The exported buckets: the last fine bucket of each, and its le label. */
struct prom_bucket {
	__u32 last;
	char le[24];
};

/* Base of one series that was not empty when the first interval began. */
struct prom_base {
	__u32 idx;
	struct rxlat_hist h;
};

/* The stamper's counters of one (ifindex, queue), since the baseline. */
struct prom_xdp {
	__u32 ifindex, queue;
	char name[RXLAT_IFNAME_LEN];
	struct rxlat_xdp_counters base, last;
};

/* --drops: one (ifindex, queue, reason), since the baseline. */
struct prom_drop {
	struct rxlat_drop_key key;
	char name[RXLAT_IFNAME_LEN];
	const char *reason;
	__u64 base, last;
};

struct prom_metrics {
	struct prom_layout l;
	struct prom_ops ops;
	__u32 nr_series;
	struct prom_bucket *buckets;
	unsigned int nbuckets;
	struct prom_base *base; /* sorted by idx */
	size_t nbase;
	/* per interface slot (+1: the overflow slot): the name it is exported as */
	char (*slot_name)[RXLAT_IFNAME_LEN];
	__u32 *slot_ifindex;
	struct prom_xdp *xdp; /* sorted by (ifindex, queue) */
	size_t nxdp;
	bool drops_on;
	struct prom_drop *drops;
	size_t ndrops;
};

/* ---- output buffer --------------------------------------------------- */

struct pbuf {
	char *p;
	size_t len, cap, off; /* off: what the reader already took */
	bool fixed;	      /* p is the caller's array: never grown */
	bool nomem;
};

static void put(struct pbuf *b, const char *s, size_t n)
{
	if (b->nomem)
		return;
	if (b->len + n > b->cap && b->fixed) {
		b->nomem = true;
		return;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->nomem = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void puts_(struct pbuf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void put_u64(struct pbuf *b, __u64 v)
{
	char tmp[24], *e = tmp + sizeof(tmp), *p = e;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(b, p, e - p);
}

/* ns as seconds, exactly: the decimal fraction of an integer ns has 9 digits */
static void put_seconds(struct pbuf *b, __u64 ns)
{
	char frac[10];
	int n = 9;

	put_u64(b, ns / 1000000000u);
	snprintf(frac, sizeof(frac), "%09llu", (unsigned long long)(ns % 1000000000u));
	while (n > 0 && frac[n - 1] == '0')
		n--;
	if (n) {
		put(b, ".", 1);
		put(b, frac, n);
	}
}

/* A label value, escaped as the exposition format wants. */
static void put_label(struct pbuf *b, const char *name, const char *v)
{
	puts_(b, name);
	put(b, "=\"", 2);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			put(b, "\\", 1);
		if (*v == '\n')
			put(b, "\\n", 2);
		else
			put(b, v, 1);
	}
	put(b, "\"", 1);
}

static void put_family(struct pbuf *b, const char *name, const char *type, const char *help)
{
	puts_(b, "# HELP ");
	puts_(b, name);
	put(b, " ", 1);
	puts_(b, help);
	puts_(b, "\n# TYPE ");
	puts_(b, name);
	put(b, " ", 1);
	puts_(b, type);
	put(b, "\n", 1);
}

/* ---- the metrics' state ---------------------------------------------- */

unsigned int prom_nr_buckets(unsigned int per_pow2)
{
	/* the underflow, per_pow2 per power of two, +Inf */
	return 2 + (RXLAT_HIST_MAX_SHIFT - RXLAT_HIST_MIN_SHIFT) * per_pow2;
}

/*
 * Exported bucket e sums fine buckets up to .last; its le is the largest
 * value the last of them holds, which is exact whatever the grouping, as
 * the groups never split a fine bucket.
 */
static int make_buckets(struct prom_metrics *m)
{
	unsigned int k = m->l.per_pow2, group, e = 0;

	if (k != 1 && k != 2 && k != 4 && k != 8)
		return -EINVAL;
	group = RXLAT_HIST_SUB / k;
	m->nbuckets = prom_nr_buckets(k);
	m->buckets = calloc(m->nbuckets, sizeof(*m->buckets));
	if (!m->buckets)
		return -ENOMEM;
	m->buckets[e++].last = 0;
	for (__u32 last = group; last <= RXLAT_HIST_LINEAR; last += group)
		m->buckets[e++].last = last;
	m->buckets[e].last = RXLAT_HIST_BUCKETS - 1;
	for (e = 0; e + 1 < m->nbuckets; e++) {
		struct pbuf b = {};

		put_seconds(&b, rxlat_hist_le(m->buckets[e].last));
		if (b.nomem || b.len >= sizeof(m->buckets[e].le)) {
			free(b.p);
			return -ENOMEM;
		}
		memcpy(m->buckets[e].le, b.p, b.len);
		free(b.p);
	}
	strcpy(m->buckets[e].le, "+Inf");
	return 0;
}

int prom_metrics_new(struct prom_metrics **out, const struct prom_layout *l,
		     const struct prom_ops *ops)
{
	struct prom_metrics *m = calloc(1, sizeof(*m));
	int err;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->l = *l;
	m->ops = *ops;
	m->nr_series = rxlat_nr_series(l->max_ifaces, l->max_queues);
	m->slot_name = calloc(l->max_ifaces + 1, sizeof(*m->slot_name));
	m->slot_ifindex = calloc(l->max_ifaces, sizeof(*m->slot_ifindex));
	err = m->slot_name && m->slot_ifindex ? make_buckets(m) : -ENOMEM;
	if (err) {
		prom_metrics_free(m);
		return err;
	}
	snprintf(m->slot_name[l->max_ifaces], RXLAT_IFNAME_LEN, "other");
	*out = m;
	return 0;
}

void prom_metrics_free(struct prom_metrics *m)
{
	if (!m)
		return;
	free(m->buckets);
	free(m->base);
	free(m->slot_name);
	free(m->slot_ifindex);
	free(m->xdp);
	free(m->drops);
	free(m);
}

static bool hist_empty(const struct rxlat_hist *h)
{
	static const struct rxlat_hist zero;

	return !memcmp(h->buckets, zero.buckets, sizeof(h->buckets)) && !h->sum_ns &&
	       !memcmp(h->sources, zero.sources, sizeof(h->sources));
}

static int cmp_xdp(const void *a, const void *b)
{
	const struct prom_xdp *x = a, *y = b;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	return x->queue < y->queue ? -1 : x->queue > y->queue;
}

/* The entry of (ifindex, queue), added with a zero base when new; NULL: no memory. */
static struct prom_xdp *xdp_entry(struct prom_metrics *m, __u32 ifindex, __u32 queue)
{
	struct prom_xdp key = { .ifindex = ifindex, .queue = queue }, *e, *p;

	e = bsearch(&key, m->xdp, m->nxdp, sizeof(*m->xdp), cmp_xdp);
	if (e)
		return e;
	p = realloc(m->xdp, (m->nxdp + 1) * sizeof(*p));
	if (!p)
		return NULL;
	m->xdp = p;
	if (ifindex)
		m->ops.ifname(m->ops.ctx, ifindex, key.name);
	else
		snprintf(key.name, sizeof(key.name), "other");
	m->xdp[m->nxdp++] = key;
	qsort(m->xdp, m->nxdp, sizeof(*m->xdp), cmp_xdp);
	return bsearch(&key, m->xdp, m->nxdp, sizeof(*m->xdp), cmp_xdp);
}

int prom_metrics_baseline(struct prom_metrics *m, const struct rxlat_live *start,
			  const struct rxlat_xdp_key *keys, const struct rxlat_xdp_counters *vals,
			  size_t n)
{
	for (__u32 i = 0; i < m->nr_series; i++) {
		const struct rxlat_hist *h = live_at(start, i);
		struct prom_base *p;

		if (!h || hist_empty(h))
			continue;
		p = realloc(m->base, (m->nbase + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		m->base = p;
		m->base[m->nbase].idx = i;
		m->base[m->nbase++].h = *h;
	}
	for (size_t i = 0; i < n; i++) {
		struct prom_xdp *e = xdp_entry(m, keys[i].ifindex, keys[i].rx_queue);

		if (!e)
			return -ENOMEM;
		e->base = vals[i];
	}
	return 0;
}

/* The entry of key, added with a zero base when new; NULL: no memory. */
static struct prom_drop *drop_entry(struct prom_metrics *m, const struct rxlat_drop_key *key)
{
	struct prom_drop *p;

	for (size_t i = 0; i < m->ndrops; i++)
		if (m->drops[i].key.ifindex == key->ifindex &&
		    m->drops[i].key.queue == key->queue && m->drops[i].key.reason == key->reason)
			return &m->drops[i];
	p = realloc(m->drops, (m->ndrops + 1) * sizeof(*p));
	if (!p)
		return NULL;
	m->drops = p;
	p = &m->drops[m->ndrops++];
	memset(p, 0, sizeof(*p));
	p->key = *key;
	m->ops.ifname(m->ops.ctx, key->ifindex, p->name);
	p->reason = m->ops.reason(m->ops.ctx, key->reason);
	return p;
}

int prom_metrics_drops(struct prom_metrics *m, const struct rxlat_drop_key *keys,
		       const __u64 *counts, size_t n)
{
	m->drops_on = true;
	for (size_t i = 0; i < n; i++) {
		struct prom_drop *e = drop_entry(m, &keys[i]);

		if (!e)
			return -ENOMEM;
		e->base = counts[i];
	}
	return 0;
}

static int cmp_base(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = ((const struct prom_base *)b)->idx;

	return x < y ? -1 : x > y;
}

/* out += live[idx] - its baseline; buckets before sources, as the reports read */
static void add_series(const struct prom_metrics *m, __u32 idx, struct rxlat_hist *out)
{
	const struct rxlat_hist *live = live_at(&m->l.live, idx);
	const struct prom_base *pb;
	static const struct rxlat_hist zero;
	const struct rxlat_hist *base;

	if (!live)
		return;
	pb = bsearch(&idx, m->base, m->nbase, sizeof(*m->base), cmp_base);
	base = pb ? &pb->h : &zero;

	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++)
		out->buckets[b] +=
		    __atomic_load_n(&live->buckets[b], __ATOMIC_ACQUIRE) - base->buckets[b];
	out->sum_ns += __atomic_load_n(&live->sum_ns, __ATOMIC_ACQUIRE) - base->sum_ns;
	for (int s = 0; s < RXLAT_NR_SOURCES; s++)
		out->sources[s] +=
		    __atomic_load_n(&live->sources[s], __ATOMIC_ACQUIRE) - base->sources[s];
}

/* ---- one scrape ------------------------------------------------------ */

enum phase { PH_LAT_HEAD, PH_LAT, PH_SAMP_HEAD, PH_SAMP, PH_REST, PH_END };

struct prom_scrape {
	struct prom_metrics *m;
	struct pbuf out;
	enum phase phase;
	__u32 stage, slot, queue; /* the next series */
	/* per slot: the first slot of its name, -1 when it has none yet */
	int *leader;
	char prefix[160];
};

/* Names the slots seen since the last scrape, and groups the slots by name. */
static void name_slots(struct prom_scrape *s)
{
	struct prom_metrics *m = s->m;
	__u32 n = m->l.max_ifaces;

	m->ops.slots(m->ops.ctx, m->slot_ifindex, n);
	for (__u32 i = 0; i < n; i++)
		if (m->slot_ifindex[i] && !m->slot_name[i][0])
			m->ops.ifname(m->ops.ctx, m->slot_ifindex[i], m->slot_name[i]);
	for (__u32 i = 0; i <= n; i++) {
		s->leader[i] = -1;
		for (__u32 j = 0; j <= i && s->leader[i] < 0; j++)
			if (m->slot_name[i][0] && !strcmp(m->slot_name[j], m->slot_name[i]))
				s->leader[i] = (int)j;
	}
}

struct prom_scrape *prom_scrape_new(struct prom_metrics *m)
{
	struct prom_scrape *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->m = m;
	s->leader = calloc(m->l.max_ifaces + 1, sizeof(*s->leader));
	if (!s->leader) {
		free(s);
		return NULL;
	}
	name_slots(s);
	return s;
}

void prom_scrape_free(struct prom_scrape *s)
{
	if (!s)
		return;
	free(s->out.p);
	free(s->leader);
	free(s);
}

/* The series the scrape is at, summed over its slots (and queues): false if empty. */
static bool gather(const struct prom_scrape *s, struct rxlat_hist *h)
{
	const struct prom_metrics *m = s->m;
	__u32 q0 = m->l.per_queue ? s->queue : 0;
	__u32 q1 = m->l.per_queue ? s->queue : m->l.max_queues;

	memset(h, 0, sizeof(*h));
	for (__u32 slot = s->slot; slot <= m->l.max_ifaces; slot++) {
		if (s->leader[slot] != (int)s->slot)
			continue;
		for (__u32 q = q0; q <= q1; q++)
			add_series(
			    m,
			    rxlat_series_index(s->stage, slot, q, m->l.max_ifaces, m->l.max_queues),
			    h);
	}
	return !hist_empty(h);
}

/* Moves to the next series; false after the last one. */
static bool next_series(struct prom_scrape *s)
{
	const struct prom_metrics *m = s->m;
	__u32 qmax = m->l.per_queue ? m->l.max_queues : 0;

	if (++s->queue <= qmax)
		return true;
	s->queue = 0;
	do
		s->slot++;
	while (s->slot <= m->l.max_ifaces && s->leader[s->slot] != (int)s->slot);
	if (s->slot <= m->l.max_ifaces)
		return true;
	s->slot = 0;
	while (s->slot <= m->l.max_ifaces && s->leader[s->slot] != (int)s->slot)
		s->slot++;
	return ++s->stage < RXLAT_NR_STAGES;
}

static void first_series(struct prom_scrape *s)
{
	s->stage = s->queue = s->slot = 0;
	while (s->slot <= s->m->l.max_ifaces && s->leader[s->slot] != (int)s->slot)
		s->slot++;
}

/* stage="...",ifname="...",queue="..." of the current series */
static void make_prefix(struct prom_scrape *s)
{
	const struct prom_metrics *m = s->m;
	struct pbuf b = { .p = s->prefix, .cap = sizeof(s->prefix) - 1, .fixed = true };
	char q[16];

	if (!m->l.per_queue)
		snprintf(q, sizeof(q), "all");
	else if (s->queue == m->l.max_queues)
		snprintf(q, sizeof(q), "other");
	else
		snprintf(q, sizeof(q), "%u", s->queue);
	/* the names are at most 15 bytes, escaped 30: b never grows */
	put_label(&b, "stage", rxlat_stage_names[s->stage]);
	put(&b, ",", 1);
	put_label(&b, "ifname", s->m->slot_name[s->slot]);
	put(&b, ",", 1);
	put_label(&b, "queue", q);
	s->prefix[b.len] = '\0';
}

static void put_sample(struct pbuf *b, const char *name, const char *prefix, const char *extra,
		       __u64 v)
{
	puts_(b, name);
	put(b, "{", 1);
	puts_(b, prefix);
	puts_(b, extra);
	put(b, "} ", 2);
	put_u64(b, v);
	put(b, "\n", 1);
}

static void render_hist(struct prom_scrape *s, const struct rxlat_hist *h)
{
	const struct prom_metrics *m = s->m;
	struct pbuf *b = &s->out;
	__u64 cum = 0;
	__u32 fine = 0;

	for (unsigned int e = 0; e < m->nbuckets; e++) {
		for (; fine <= m->buckets[e].last; fine++)
			cum += h->buckets[fine];
		puts_(b, LAT "_bucket{");
		puts_(b, s->prefix);
		puts_(b, ",le=\"");
		puts_(b, m->buckets[e].le);
		put(b, "\"} ", 3);
		put_u64(b, cum);
		put(b, "\n", 1);
	}
	puts_(b, LAT "_sum{");
	puts_(b, s->prefix);
	put(b, "} ", 2);
	put_seconds(b, h->sum_ns);
	put(b, "\n", 1);
	put_sample(b, LAT "_count", s->prefix, "", cum);
}

static void render_sources(struct prom_scrape *s, const struct rxlat_hist *h)
{
	for (int src = 0; src < RXLAT_NR_SOURCES; src++) {
		char extra[32];

		snprintf(extra, sizeof(extra), ",source=\"%s\"", rxlat_source_names[src]);
		put_sample(&s->out, SAMP, s->prefix, extra, h->sources[src]);
	}
}

/* Renders the next series with samples of the current phase; false at the end. */
static bool render_next(struct prom_scrape *s)
{
	struct rxlat_hist h;

	for (;;) {
		bool any = gather(s, &h);

		if (any)
			make_prefix(s);
		if (any && s->phase == PH_LAT)
			render_hist(s, &h);
		else if (any)
			render_sources(s, &h);
		if (!next_series(s))
			return false;
		if (any)
			return true;
	}
}

/* ---- the small families, rendered whole ------------------------------- */

static __u64 sources_sum(const struct rxlat_hist *h)
{
	__u64 n = 0;

	for (int src = 0; src < RXLAT_NR_SOURCES; src++)
		n += h->sources[src];
	return n;
}

static void render_overflow(struct prom_scrape *s)
{
	const struct prom_metrics *m = s->m;
	__u32 ni = m->l.max_ifaces, nq = m->l.max_queues;

	put_family(&s->out, OVER, "counter",
		   "Samples of a series past --max-ifaces (interface \"other\") or "
		   "--max-queues (queue \"other\"): raise that limit to see them apart.");
	for (__u32 st = 0; st < RXLAT_NR_STAGES; st++) {
		struct rxlat_hist ifs = {}, qs = {};
		char prefix[64];

		for (__u32 q = 0; q <= nq; q++)
			add_series(m, rxlat_series_index(st, ni, q, ni, nq), &ifs);
		for (__u32 slot = 0; slot < ni; slot++)
			add_series(m, rxlat_series_index(st, slot, nq, ni, nq), &qs);
		snprintf(prefix, sizeof(prefix), "stage=\"%s\"", rxlat_stage_names[st]);
		put_sample(&s->out, OVER, prefix, ",limit=\"max_ifaces\"", sources_sum(&ifs));
		put_sample(&s->out, OVER, prefix, ",limit=\"max_queues\"", sources_sum(&qs));
	}
}

/* Takes the stamper's current totals into the kept ones; 0 or -ENOMEM. */
static int update_xdp(struct prom_metrics *m)
{
	struct rxlat_xdp_key *keys = NULL;
	struct rxlat_xdp_counters *vals = NULL;
	size_t n = 0;
	int err = 0;

	if (!m->ops.xdp || m->ops.xdp(m->ops.ctx, &keys, &vals, &n))
		return 0; /* no stamper, or unreadable now: the kept values stand */
	for (size_t i = 0; i < n && !err; i++) {
		struct prom_xdp *e = xdp_entry(m, keys[i].ifindex, keys[i].rx_queue);
		struct rxlat_xdp_counters d;

		if (!e) {
			err = -ENOMEM;
			break;
		}
		d.seen = vals[i].seen - e->base.seen;
		d.stamped = vals[i].stamped - e->base.stamped;
		d.meta_refused = vals[i].meta_refused - e->base.meta_refused;
		/* the largest seen: per-CPU sums are read CPU by CPU */
		e->last.seen = d.seen > e->last.seen ? d.seen : e->last.seen;
		e->last.stamped = d.stamped > e->last.stamped ? d.stamped : e->last.stamped;
		e->last.meta_refused =
		    d.meta_refused > e->last.meta_refused ? d.meta_refused : e->last.meta_refused;
	}
	free(keys);
	free(vals);
	return err;
}

static int cmp_xdp_label(const void *a, const void *b)
{
	const struct prom_xdp *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	/* the stamper's overflow ("other") after the queues */
	if (!x->ifindex != !y->ifindex)
		return !x->ifindex ? 1 : -1;
	return x->queue < y->queue ? -1 : x->queue > y->queue;
}

static bool same_label(const struct prom_xdp *x, const struct prom_xdp *y)
{
	return !cmp_xdp_label(x, y);
}

static void render_xdp_family(struct prom_scrape *s, const struct prom_xdp *rows, size_t n,
			      int which)
{
	static const char *const names[] = { XSEEN, XSTMP, XREF };
	static const char *const helps[] = {
		"Packets the XDP stamper saw, per interface and receive queue.",
		"Packets the XDP stamper wrote a stamp into.",
		"Packets without room for metadata (bpf_xdp_adjust_meta failed): the driver "
		"has no XDP metadata support.",
	};

	put_family(&s->out, names[which], "counter", helps[which]);
	for (size_t i = 0; i < n;) {
		__u64 v = 0;
		size_t j = i;
		char prefix[96], q[16];
		struct pbuf b = { .p = prefix, .cap = sizeof(prefix) - 1, .fixed = true };

		for (; j < n && same_label(&rows[i], &rows[j]); j++)
			v += which == 0	  ? rows[j].last.seen
			     : which == 1 ? rows[j].last.stamped
					  : rows[j].last.meta_refused;
		if (rows[i].ifindex)
			snprintf(q, sizeof(q), "%u", rows[i].queue);
		else
			snprintf(q, sizeof(q), "other");
		put_label(&b, "ifname", rows[i].name);
		put(&b, ",", 1);
		put_label(&b, "queue", q);
		prefix[b.len] = '\0';
		put_sample(&s->out, names[which], prefix, "", v);
		i = j;
	}
}

static int render_xdp(struct prom_scrape *s)
{
	struct prom_metrics *m = s->m;
	struct prom_xdp *rows;
	size_t n = 0;
	int err = update_xdp(m);

	rows = malloc((m->nxdp ? m->nxdp : 1) * sizeof(*rows));
	if (err || !rows) {
		free(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->nxdp; i++)
		if (!m->xdp[i].ifindex || m->ops.wanted(m->ops.ctx, m->xdp[i].ifindex))
			rows[n++] = m->xdp[i];
	qsort(rows, n, sizeof(*rows), cmp_xdp_label);
	for (int which = 0; which < 3; which++)
		render_xdp_family(s, rows, n, which);
	free(rows);
	return 0;
}

static int cmp_drop_label(const void *a, const void *b)
{
	const struct prom_drop *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->key.queue != y->key.queue)
		return x->key.queue < y->key.queue ? -1 : 1;
	return strcmp(x->reason, y->reason);
}

/* rxlat_drops_total: entries of one name, queue and reason are summed. */
static int render_drops(struct prom_scrape *s)
{
	struct prom_metrics *m = s->m;
	struct rxlat_drop_key *keys = NULL;
	struct prom_drop *rows;
	__u64 *counts = NULL;
	size_t n = 0;
	int err = 0;

	if (!m->ops.drops(m->ops.ctx, &keys, &counts, &n)) {
		for (size_t i = 0; i < n && !err; i++) {
			struct prom_drop *e = drop_entry(m, &keys[i]);

			if (!e)
				err = -ENOMEM;
			else if (counts[i] - e->base > e->last)
				e->last = counts[i] - e->base;
		}
	}
	free(keys);
	free(counts);
	rows = malloc((m->ndrops ? m->ndrops : 1) * sizeof(*rows));
	if (err || !rows) {
		free(rows);
		return -ENOMEM;
	}
	memcpy(rows, m->drops, m->ndrops * sizeof(*rows));
	qsort(rows, m->ndrops, sizeof(*rows), cmp_drop_label);
	put_family(&s->out, DROPS, "counter",
		   "Stamped packets the kernel dropped, per interface, receive queue and drop "
		   "reason (--drops).");
	for (size_t i = 0; i < m->ndrops;) {
		char prefix[160], q[16];
		struct pbuf b = { .p = prefix, .cap = sizeof(prefix) - 1, .fixed = true };
		size_t j = i;
		__u64 v = 0;

		for (; j < m->ndrops && !cmp_drop_label(&rows[i], &rows[j]); j++)
			v += rows[j].last;
		snprintf(q, sizeof(q), "%u", rows[i].key.queue);
		put_label(&b, "ifname", rows[i].name);
		put(&b, ",", 1);
		put_label(&b, "queue", q);
		put(&b, ",", 1);
		put_label(&b, "reason", rows[i].reason);
		prefix[b.nomem ? 0 : b.len] = '\0';
		if (v)
			put_sample(&s->out, DROPS, prefix, "", v);
		i = j;
	}
	free(rows);
	return 0;
}

static void render_info(struct prom_scrape *s)
{
	put_family(&s->out, BINFO, "gauge",
		   "rxlat's version and, per stage, the attach point in use (\"none\": not "
		   "attached).");
	for (int st = 0; st < RXLAT_NR_STAGES; st++) {
		char prefix[160];
		struct pbuf b = { .p = prefix, .cap = sizeof(prefix) - 1, .fixed = true };
		const char *at = s->m->l.attach[st];

		put_label(&b, "version", RXLAT_VERSION);
		put(&b, ",", 1);
		put_label(&b, "stage", rxlat_stage_names[st]);
		put(&b, ",", 1);
		put_label(&b, "attach", at ? at : "none");
		/* an attach point too long for the buffer: cut, still well-formed */
		if (b.nomem)
			snprintf(prefix, sizeof(prefix), "version=\"%s\",stage=\"%s\",attach=\"?\"",
				 RXLAT_VERSION, rxlat_stage_names[st]);
		else
			prefix[b.len] = '\0';
		put_sample(&s->out, BINFO, prefix, "", 1);
	}
}

/* Fills s->out with the next part of the exposition; false at the end. */
static bool produce(struct prom_scrape *s)
{
	switch (s->phase) {
	case PH_LAT_HEAD:
	case PH_SAMP_HEAD:
		if (s->phase == PH_LAT_HEAD)
			put_family(&s->out, LAT, "histogram",
				   "Time from a packet's stamp to the stage, per interface and "
				   "receive queue, since rxlat started measuring.");
		else
			put_family(&s->out, SAMP, "counter",
				   "Samples per start-time source: xdp (the XDP stamp), kernel "
				   "(skb->tstamp), tc, none (counted, not measured).");
		first_series(s);
		s->phase++;
		return true;
	case PH_LAT:
	case PH_SAMP:
		if (!render_next(s))
			s->phase++;
		return true;
	case PH_REST:
		render_overflow(s);
		if (render_xdp(s))
			s->out.nomem = true;
		if (s->m->drops_on && render_drops(s))
			s->out.nomem = true;
		render_info(s);
		s->phase++;
		return true;
	case PH_END:
		break;
	}
	return false;
}

ssize_t prom_scrape_read(struct prom_scrape *s, char *buf, size_t max)
{
	size_t done = 0;

	while (done < max) {
		size_t n;

		if (s->out.off == s->out.len) {
			s->out.off = s->out.len = 0;
			if (!produce(s))
				break;
			if (s->out.nomem)
				return -ENOMEM;
			continue;
		}
		n = s->out.len - s->out.off;
		if (n > max - done)
			n = max - done;
		memcpy(buf + done, s->out.p + s->out.off, n);
		s->out.off += n;
		done += n;
	}
	return (ssize_t)done;
}
