// SPDX-License-Identifier: GPL-2.0
/*
 * The model's totals in the Prometheus text exposition format (version
 * 0.0.4) or the protobuf one (prom_pb.c writes its messages); see prom.h.
 * What each family holds is decided here once, for both: family() opens
 * one, value() and the histograms write its samples, family_end() closes
 * it. Every count is a total since the baseline that the reports start
 * from too, so it never goes down (collector/read/model.h says how the
 * totals are kept); this file only prints them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "opt.h"
#include "prom.h"
#include "prom_impl.h"
#include "prom_pb.h"
#include "rxlat_hist.h"

#define LAT   "rxlat_stage_latency_seconds"
#define OVER  "rxlat_overflow_samples_total"
#define PCPU  "rxlat_napi_poll_cpu"
#define GONE  "rxlat_gone_series"
#define BINFO "rxlat_build_info"
#define MEAS  "rxlat_stage_measured"
#define DROPS "rxlat_drops_total"
#define UNRE  "rxlat_unreached_interfaces"
#define AUTHF "rxlat_http_auth_failures_total"

/* ---- text ---------------------------------------------------------- */

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
void prom_put_seconds(struct pbuf *b, __u64 ns)
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

/* A sample's labels, escaped as the exposition format wants: k="v",... */
static void put_labels(struct pbuf *b, const struct prom_labels *l)
{
	for (unsigned int i = 0; i < l->n; i++) {
		if (i)
			put(b, ",", 1);
		put_label(b, l->key[i], l->val[i]);
	}
}

/* ---- one scrape ------------------------------------------------------ */

/* The histograms, then one family per counter group, then the rest. */
enum phase { PH_LAT_HEAD, PH_LAT, PH_COUNTS_HEAD, PH_COUNTS, PH_REST, PH_END };

struct prom_scrape {
	struct prom_metrics *m;
	enum prom_format fmt;
	struct pbuf out;
	enum phase phase;
	int group;	       /* the counter group of PH_COUNTS */
	struct model_iter *it; /* the series of the phase */
	enum prom_type type;   /* the family's */
	const char *name;      /* the family's */
	struct pb_writer pb;
	char prefix[RXLAT_MAX_LABELS * (2 * RXLAT_LABEL_LEN + 32)];
};

struct prom_scrape *prom_scrape_new(struct prom_metrics *m, enum prom_format fmt)
{
	struct prom_scrape *s = calloc(1, sizeof(*s));

	if (s) {
		s->m = m;
		s->fmt = fmt;
	}
	return s;
}

void prom_scrape_free(struct prom_scrape *s)
{
	if (!s)
		return;
	model_iter_free(s->it);
	pb_writer_free(&s->pb);
	free(s->out.p);
	free(s);
}

/* ---- what both formats write ------------------------------------------ */

static const char *const type_names[] = {
	[PROM_COUNTER] = "counter",
	[PROM_GAUGE] = "gauge",
	[PROM_HISTOGRAM] = "histogram",
};

static void family(struct prom_scrape *s, const char *name, enum prom_type type, const char *help)
{
	struct pbuf *b = &s->out;

	s->name = name;
	s->type = type;
	if (s->fmt == PROM_FORMAT_PROTOBUF) {
		pb_family(&s->pb, name, type, help);
		return;
	}
	puts_(b, "# HELP ");
	puts_(b, name);
	put(b, " ", 1);
	puts_(b, help);
	puts_(b, "\n# TYPE ");
	puts_(b, name);
	put(b, " ", 1);
	puts_(b, type_names[type]);
	put(b, "\n", 1);
}

/* after the family's last sample */
static void family_end(struct prom_scrape *s)
{
	if (s->fmt == PROM_FORMAT_PROTOBUF)
		pb_end(&s->pb, &s->out);
}

/* a counter's or a gauge's sample */
static void value(struct prom_scrape *s, const struct prom_labels *l, __u64 v)
{
	struct pbuf *b = &s->out;

	if (s->fmt == PROM_FORMAT_PROTOBUF) {
		pb_value(&s->pb, b, s->type, l, v);
		return;
	}
	puts_(b, s->name);
	if (l->n) {
		put(b, "{", 1);
		put_labels(b, l);
		put(b, "}", 1);
	}
	put(b, " ", 1);
	put_u64(b, v);
	put(b, "\n", 1);
}

/* the labels that Prometheus gets of a series (JSON-only ones left out) */
static void series_labels(struct prom_labels *l, const struct rxlat_series *ser)
{
	l->n = 0;
	for (unsigned int i = 0; i < ser->nlabels; i++)
		if (!(ser->labels[i].flags & RXLAT_LABEL_JSON_ONLY))
			prom_label(l, ser->labels[i].key, ser->labels[i].str);
}

static void text_hist(struct prom_scrape *s, const struct prom_labels *l,
		      const struct rxlat_hist *h)
{
	const struct prom_metrics *m = s->m;
	struct pbuf *b = &s->out;
	struct pbuf pre = { .p = s->prefix, .cap = sizeof(s->prefix) - 1, .fixed = true };
	__u64 cum = 0;
	__u32 fine = 0;

	/* labels are at most RXLAT_LABEL_LEN bytes, escaped twice that: pre never grows */
	put_labels(&pre, l);
	s->prefix[pre.nomem ? 0 : pre.len] = '\0';
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
	prom_put_seconds(b, h->sum_ns);
	puts_(b, "\n" LAT "_count{");
	puts_(b, s->prefix);
	put(b, "} ", 2);
	put_u64(b, cum);
	put(b, "\n", 1);
}

static void render_counts(struct prom_scrape *s, struct prom_labels *l, const struct rxlat_hist *h)
{
	const struct rxlat_count_group_def *g = &rxlat_count_groups[s->group];
	unsigned int n = l->n;

	for (int c = 0; c < RXLAT_NR_COUNTS; c++) {
		if (rxlat_count_group_of[c] != (enum rxlat_count_group)s->group)
			continue;
		l->n = n;
		prom_label(l, g->prom_label, rxlat_count_names[c]);
		value(s, l, h->counts[c]);
	}
}

/* Renders the next series of the phase; false at its end. */
static bool render_next(struct prom_scrape *s)
{
	struct rxlat_series ser;
	struct rxlat_hist h;
	struct prom_labels l;

	if (!s->it || model_total_next(s->it, &ser, &h) <= 0) {
		model_iter_free(s->it);
		s->it = NULL;
		return false;
	}
	series_labels(&l, &ser);
	if (s->phase != PH_LAT)
		render_counts(s, &l, &h);
	else if (s->fmt == PROM_FORMAT_PROTOBUF)
		/* +Inf left out: the histogram's count is that bucket */
		pb_hist(&s->pb, &s->out, &l, &h, s->m->buckets,
			s->m->classic ? s->m->nbuckets - 1 : 0);
	else
		text_hist(s, &l, &h);
	return true;
}

/* ---- the small families, rendered whole ------------------------------- */

static void render_overflow(struct prom_scrape *s)
{
	char help[200];

	snprintf(help, sizeof(help),
		 "Samples of a series past %s (netns \"other\"), %s (interface \"other\") or "
		 "%s (queue \"other\"): raise that limit to see them apart.",
		 opt(OPT_MAX_GROUPS), opt(OPT_MAX_IFACES), opt(OPT_MAX_QUEUES));
	family(s, OVER, PROM_COUNTER, help);
	for (__u32 st = 0; st < RXLAT_NR_STAGES; st++) {
		for (enum model_dim_id d = 0; d < MODEL_ND; d++) {
			struct prom_labels l = { 0 };

			if (!model_overflow_limit(d))
				continue;
			prom_label(&l, "stage", rxlat_stage_names[st]);
			prom_label(&l, "limit", model_overflow_limit(d));
			value(s, &l, model_total_overflow(s->m->model, d, st));
		}
	}
	family_end(s);
}

/*
 * The bound on what is kept of series whose interface, namespace or cgroup
 * is gone, told where Prometheus sees it: a series that leaves the
 * exposition past it is counted, never silent.
 */
static void render_gone(struct prom_scrape *s)
{
	struct prom_labels l = { 0 };
	__u64 kept, dropped;

	model_total_gone(s->m->model, &kept, &dropped);
	family(s, GONE, PROM_GAUGE,
	       "Label sets of series whose interface, network namespace or cgroup is gone, "
	       "exported with their last totals.");
	value(s, &l, kept);
	family_end(s);
	family(s, GONE "_dropped_total", PROM_COUNTER,
	       "Label sets of series whose interface, network namespace or cgroup is gone that "
	       "left the exposition: the oldest, past the number kept.");
	value(s, &l, dropped);
	family_end(s);
}

static int cmp_xdp_label(const void *a, const void *b)
{
	const struct model_xdp_total *x = a, *y = b;
	int c = strcmp(x->ifname, y->ifname);

	if (c)
		return c;
	/* the stamper's overflow ("other") after the queues */
	if (!x->ifindex != !y->ifindex)
		return !x->ifindex ? 1 : -1;
	return x->queue < y->queue ? -1 : x->queue > y->queue;
}

static bool same_label(const struct model_xdp_total *x, const struct model_xdp_total *y)
{
	return !cmp_xdp_label(x, y);
}

/* The stamper's counters by offset in struct rxlat_xdp_counters, in table order. */
#define XDP_OFF_(f, ...)	 offsetof(struct rxlat_xdp_counters, f),
#define XDP_NAME_(f, prom, ...)	 prom,
#define XDP_HELP_(f, prom, help) help,
static const size_t xdp_off[] = { RXLAT_XDP_COUNTERS(XDP_OFF_) };
static const char *const xdp_name[] = { RXLAT_XDP_COUNTERS(XDP_NAME_) };
static const char *const xdp_help[] = { RXLAT_XDP_COUNTERS(XDP_HELP_) };
#undef XDP_OFF_
#undef XDP_NAME_
#undef XDP_HELP_
#define NR_XDP_FAMILIES (sizeof(xdp_off) / sizeof(xdp_off[0]))

static __u64 xdp_value(const struct model_xdp_total *r, size_t which)
{
	return *(const __u64 *)((const char *)&r->c + xdp_off[which]);
}

/*
 * One family: counter WHICH of the table, or with WHICH NR_XDP_FAMILIES the
 * CPU of the last poll (a gauge, only for queues with polls).
 */
static void render_xdp_family(struct prom_scrape *s, const struct model_xdp_total *rows, size_t n,
			      size_t which)
{
	bool cpu = which == NR_XDP_FAMILIES;
	const char *name = cpu ? PCPU : xdp_name[which];

	family(s, name, cpu ? PROM_GAUGE : PROM_COUNTER,
	       cpu ? "The CPU that ran the queue's last poll counted in rxlat_napi_polls_total."
		   : xdp_help[which]);
	for (size_t i = 0; i < n;) {
		__u64 v = 0, polls = 0;
		size_t j = i;
		char q[16];
		struct prom_labels l = { 0 };

		for (; j < n && same_label(&rows[i], &rows[j]); j++) {
			polls += rows[j].c.polls;
			v = cpu ? rows[j].c.cpu : v + xdp_value(&rows[j], which);
		}
		if (cpu && !polls) {
			i = j;
			continue;
		}
		if (rows[i].ifindex)
			snprintf(q, sizeof(q), "%u", rows[i].queue);
		else
			snprintf(q, sizeof(q), "other");
		prom_label(&l, "ifname", rows[i].ifname);
		prom_label(&l, "queue", q);
		value(s, &l, v);
		i = j;
	}
	family_end(s);
}

static int render_xdp(struct prom_scrape *s)
{
	const struct model_xdp_total *all;
	struct model_xdp_total *rows;
	size_t n = 0, nall;
	int err = model_total_xdp(s->m->model, &all, &nall);

	rows = malloc((nall ? nall : 1) * sizeof(*rows));
	if (err || !rows) {
		free(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nall; i++)
		if (all[i].wanted)
			rows[n++] = all[i];
	qsort(rows, n, sizeof(*rows), cmp_xdp_label);
	for (size_t which = 0; which <= NR_XDP_FAMILIES; which++)
		render_xdp_family(s, rows, n, which);
	free(rows);
	return 0;
}

static int cmp_drop_label(const void *a, const void *b)
{
	const struct model_drop_total *x = a, *y = b;
	int c = strcmp(x->ifname, y->ifname);

	if (c)
		return c;
	if (x->key.queue != y->key.queue)
		return x->key.queue < y->key.queue ? -1 : 1;
	return strcmp(x->reason, y->reason);
}

/* rxlat_drops_total: entries of one name, queue and reason are summed. */
static int render_drops(struct prom_scrape *s, const struct model_drop_total *all, size_t n)
{
	struct model_drop_total *rows = malloc((n ? n : 1) * sizeof(*rows));
	char help[128];

	if (!rows)
		return -ENOMEM;
	memcpy(rows, all, n * sizeof(*rows));
	qsort(rows, n, sizeof(*rows), cmp_drop_label);
	snprintf(help, sizeof(help),
		 "Stamped packets the kernel dropped, per interface, receive queue and drop "
		 "reason (%s).",
		 opt(OPT_DROPS));
	family(s, DROPS, PROM_COUNTER, help);
	for (size_t i = 0; i < n;) {
		char q[16];
		struct prom_labels l = { 0 };
		size_t j = i;
		__u64 v = 0;

		for (; j < n && !cmp_drop_label(&rows[i], &rows[j]); j++)
			v += rows[j].count;
		snprintf(q, sizeof(q), "%u", rows[i].key.queue);
		prom_label(&l, "ifname", rows[i].ifname);
		prom_label(&l, "queue", q);
		prom_label(&l, "reason", rows[i].reason);
		if (v)
			value(s, &l, v);
		i = j;
	}
	family_end(s);
	free(rows);
	return 0;
}

static void render_info(struct prom_scrape *s)
{
	family(s, BINFO, PROM_GAUGE,
	       "rxlat's version and, per stage, the attach point in use (\"none\": not "
	       "attached); from: where the stages after the stamp start (--from).");
	for (int st = 0; st < RXLAT_NR_STAGES; st++) {
		struct prom_labels l = { 0 };
		const char *at = s->m->attach[st];

		prom_label(&l, "version", RXLAT_VERSION);
		prom_label(&l, "stage", rxlat_stage_names[st]);
		prom_label(&l, "attach", at ? at : "none");
		prom_label(&l, "from", RXLAT_FROM_NAME(s->m->from));
		value(s, &l, 1);
	}
	family_end(s);
}

/* Per tunnel device that hides containers from the tc stamp, a 1. */
static void render_unreached(struct prom_scrape *s)
{
	const struct rxlat_unreached_set *u = s->m->unreached;

	family(s, UNRE, PROM_GAUGE,
	       "Tunnel devices (VXLAN, Geneve) behind which containers are not measured: "
	       "the tc stamp does not reach the packets they decapsulate. 1 per device; "
	       "no sample while the stamps reach every container.");
	for (int i = 0; u && i < u->n; i++) {
		struct prom_labels l = { 0 };

		prom_label(&l, "ifname", u->e[i].ifname);
		prom_label(&l, "kind", u->e[i].kind);
		value(s, &l, 1);
	}
	family_end(s);
}

/*
 * Per stage, a sample for each protocol it is about: 1 measured, 0 not. The
 * reason is not a label: free text that would change the series' identity
 * with its wording, and it is in the JSON report and --list-stages.
 */
static void render_measured(struct prom_scrape *s)
{
	static char help[512];

	if (!help[0]) {
		char protos[256];

		snprintf(help, sizeof(help),
			 "Whether a stage measures a protocol's packets on this kernel with these "
			 "options: 1 yes, 0 no (why not: the JSON report's not_measured, or rxlat "
			 "--list-stages). Only the protocols a stage is about: %s.",
			 rxlat_stage_protos_str(protos, sizeof(protos)));
	}
	family(s, MEAS, PROM_GAUGE, help);
	for (int st = 0; st < RXLAT_NR_STAGES; st++) {
		const struct rxlat_coverage *c = &s->m->coverage[st];

		for (int p = 0; p < RXLAT_NR_PROTOS; p++) {
			struct prom_labels l = { 0 };
			bool yes = c->measured & RXLAT_PROTO_BIT(p);

			if (!yes && !c->why_not[p])
				continue;
			prom_label(&l, "stage", rxlat_stage_names[st]);
			prom_label(&l, "proto", rxlat_proto_names[p]);
			value(s, &l, yes);
		}
	}
	family_end(s);
}

/* The stamper's and the drops' families: 0 or -ENOMEM. */
static int render_rows(struct prom_scrape *s)
{
	const struct model_drop_total *drops;
	size_t n;
	bool drops_on;
	int err = render_xdp(s);

	if (!err)
		err = model_total_drops(s->m->model, &drops, &n, &drops_on);
	if (!err && drops_on)
		err = render_drops(s, drops, n);
	return err;
}

/* Fills s->out with the next part of the exposition; false at the end. */
static bool produce(struct prom_scrape *s)
{
	const struct rxlat_count_group_def *g = &rxlat_count_groups[s->group];

	switch (s->phase) {
	case PH_LAT_HEAD:
	case PH_COUNTS_HEAD:
		if (s->phase == PH_LAT_HEAD)
			family(s, LAT, PROM_HISTOGRAM,
			       "Time from a packet's stamp to the stage, per interface and "
			       "receive queue, since rxlat started measuring.");
		else
			family(s, g->prom_family, PROM_COUNTER, g->help);
		s->it = model_total_begin(s->m->model);
		if (!s->it)
			s->out.nomem = true;
		s->phase++;
		return true;
	case PH_LAT:
	case PH_COUNTS:
		if (render_next(s))
			return true;
		family_end(s);
		/* the next counter group, or the rest after the last */
		if (s->phase == PH_COUNTS && ++s->group < RXLAT_NR_COUNT_GROUPS)
			s->phase = PH_COUNTS_HEAD;
		else
			s->phase++;
		return true;
	case PH_REST:
		render_overflow(s);
		render_gone(s);
		if (render_rows(s))
			s->out.nomem = true;
		/* build_info last: a scrape that ends with it is whole */
		render_unreached(s);
		if (s->m->auth_failures) {
			family(s, AUTHF, PROM_COUNTER,
			       "Requests refused 401 by --web-config's basic_auth_users.");
			value(s, &(struct prom_labels){ 0 }, *s->m->auth_failures);
			family_end(s);
		}
		render_measured(s);
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
