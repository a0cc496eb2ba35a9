// SPDX-License-Identifier: GPL-2.0
/* The heatmap store: intervals, panels and their cells (heatmap.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rxlat_hist.h"
#include "series.h"
#include "heatmap_impl.h"

struct heatmap *heatmap_new(unsigned int window)
{
	struct heatmap *h = calloc(1, sizeof(*h));

	if (h)
		h->window = window;
	return h;
}

static void panel_free(struct hm_panel *p)
{
	free(p->title);
	free(p->row);
	free(p->cells);
}

void heatmap_free(struct heatmap *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->np; i++)
		panel_free(&h->p[i]);
	for (size_t i = 0; i < h->nleft; i++)
		free(h->left[i].title);
	free(h->left);
	free(h->p);
	free(h->iv);
	free(h);
}

/* The cells before interval seq go, and the panels left with none. */
static void drop_before(struct heatmap *h, __u64 seq)
{
	size_t kept = 0;

	for (size_t i = 0; i < h->np; i++) {
		struct hm_panel *p = &h->p[i];
		size_t k = 0;

		while (k < p->n && p->cells[k].seq < seq)
			p->samples -= p->cells[k++].count;
		memmove(p->cells, p->cells + k, (p->n - k) * sizeof(*p->cells));
		p->n -= k;
		if (!p->n) {
			panel_free(p);
			continue;
		}
		h->p[kept++] = *p;
	}
	h->np = kept;
	kept = 0;
	for (size_t i = 0; i < h->nleft; i++) {
		if (h->left[i].seq < seq)
			free(h->left[i].title);
		else
			h->left[kept++] = h->left[i];
	}
	h->left_more = h->left_more && kept == h->nleft;
	h->nleft = kept;
}

int heatmap_interval(struct heatmap *h, double end_s, double interval_s)
{
	if (h->window && h->niv == h->window) {
		memmove(h->iv, h->iv + 1, (h->niv - 1) * sizeof(*h->iv));
		h->niv--;
		drop_before(h, h->niv ? h->iv[0].seq : h->seq + 1);
	}
	if (h->niv == h->ivcap) {
		size_t cap = h->ivcap ? 2 * h->ivcap : 64;
		struct hm_interval *iv;

		if (h->window && cap > h->window)
			cap = h->window;
		iv = realloc(h->iv, cap * sizeof(*iv));
		if (!iv)
			return -ENOMEM;
		h->iv = iv;
		h->ivcap = cap;
	}
	h->seq++;
	h->iv[h->niv++] = (struct hm_interval){ h->seq, end_s, interval_s };
	return 0;
}

static unsigned int hash_str(const char *s)
{
	unsigned int x = 2166136261u;

	while (*s)
		x = (x ^ (unsigned char)*s++) * 16777619u;
	return x;
}

/* s + " " + t into a new string; NULL: no memory. */
static char *joined(const char *s, const char *t)
{
	size_t n = strlen(s), m = strlen(t);
	char *r = malloc(n + m + 2);

	if (!r)
		return NULL;
	memcpy(r, s, n);
	r[n] = ' ';
	memcpy(r + n + 1, t, m + 1);
	return r;
}

/*
 * The labels that JSON alone carries (RXLAT_LABEL_JSON_ONLY, model_dims.c):
 * numbers behind the names that are shown, left out of a title as the
 * text report leaves them out.
 */
static bool json_only(const char *key)
{
	return !strcmp(key, "ifindex") || !strcmp(key, "netns_ino") || !strcmp(key, "netns_cookie");
}

/* *s + " " + t, *s replaced: 0 or -ENOMEM */
static int append(char **s, const char *t)
{
	char *r = joined(*s, t);

	if (!r)
		return -ENOMEM;
	free(*s);
	*s = r;
	return 0;
}

/* The label with this key, NULL if none or null */
static const char *label(const struct heatmap_label *l, unsigned int n, const char *key)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(l[i].key, key))
			return l[i].val;
	return NULL;
}

/*
 * The panel's names from its labels, "stage ifname queue N others" as
 * title, the same without the queue as row: the queues of a series side by
 * side. A container's cgroup is its id, shortened as docker ps does.
 */
static int panel_names(struct hm_panel *p, const struct heatmap_label *l, unsigned int n)
{
	const char *stage = label(l, n, "stage"), *ifname = label(l, n, "ifname");
	const char *queue = label(l, n, "queue"), *container = label(l, n, "container");
	char part[2 * RXLAT_LABEL_LEN + 16];
	char *rest = strdup("");
	int err = 0;

	if (!rest)
		return -ENOMEM;
	p->stage = RXLAT_NR_STAGES;
	for (int s = 0; stage && s < RXLAT_NR_STAGES; s++)
		if (!strcmp(stage, rxlat_stage_names[s]))
			p->stage = s;
	p->queue = !queue ? -1 : strcmp(queue, "other") ? strtol(queue, NULL, 10) : LONG_MAX;
	for (unsigned int i = 0; !err && i < n; i++) {
		const char *k = l[i].key, *v = l[i].val;

		if (!v || !strcmp(k, "stage") || !strcmp(k, "queue") || !strcmp(k, "ifname") ||
		    json_only(k) || (container && !strcmp(k, "cgroup")))
			continue;
		if (!strcmp(k, "container"))
			snprintf(part, sizeof(part), "%s=%.12s", k, v);
		else
			snprintf(part, sizeof(part), "%s=%s", k, v);
		err = append(&rest, part);
	}
	snprintf(part, sizeof(part), "%s%s%s", stage ? stage : "?", ifname ? " " : "",
		 ifname ? ifname : "");
	p->row = strdup(part);
	if (queue)
		snprintf(part + strlen(part), sizeof(part) - strlen(part), " queue %s", queue);
	p->title = strdup(part);
	if (!err && (!p->row || !p->title ||
		     (rest[0] && (append(&p->row, rest + 1) || append(&p->title, rest + 1)))))
		err = -ENOMEM;
	free(rest);
	return err;
}

/* p past the panel limit: named for the note (p's names taken or freed). */
static int left_out(struct heatmap *h, struct hm_panel *p)
{
	struct hm_left *e = NULL;

	for (size_t i = 0; i < h->nleft && !e; i++)
		if (h->left[i].hash == p->hash && !strcmp(h->left[i].title, p->title))
			e = &h->left[i];
	if (!e && h->nleft < HM_LEFT_MAX) {
		if (!h->left)
			h->left = calloc(HM_LEFT_MAX, sizeof(*h->left));
		if (!h->left) {
			panel_free(p);
			return -ENOMEM;
		}
		e = &h->left[h->nleft++];
		*e = (struct hm_left){ p->title, p->hash, 0 };
		p->title = NULL;
	}
	if (e)
		e->seq = h->seq;
	else
		h->left_more = true;
	panel_free(p);
	return -ENOSPC;
}

int heatmap_series(struct heatmap *h, const struct heatmap_label *l, unsigned int n)
{
	struct hm_panel p = {};
	int err = panel_names(&p, l, n);

	if (err) {
		panel_free(&p);
		return err;
	}
	p.hash = hash_str(p.title);
	for (size_t i = 0; i < h->np; i++) {
		if (h->p[i].hash == p.hash && !strcmp(h->p[i].title, p.title)) {
			panel_free(&p);
			return (int)i;
		}
	}
	if (h->np == HEATMAP_MAX_PANELS)
		return left_out(h, &p);
	if (h->np == h->pcap) {
		size_t cap = h->pcap ? 2 * h->pcap : 16;
		/* the index is returned as an int */
		struct hm_panel *np = cap <= INT_MAX ? realloc(h->p, cap * sizeof(*np)) : NULL;

		if (!np) {
			panel_free(&p);
			return -ENOMEM;
		}
		h->p = np;
		h->pcap = cap;
	}
	h->p[h->np] = p;
	return (int)h->np++;
}

int heatmap_cell(struct heatmap *h, int i, __u32 b, __u64 count)
{
	struct hm_panel *p;

	if (i < 0 || (size_t)i >= h->np || b >= RXLAT_HIST_BUCKETS || !h->niv)
		return -EINVAL;
	if (!count)
		return 0;
	p = &h->p[i];
	if (p->n && p->cells[p->n - 1].seq == h->seq && p->cells[p->n - 1].b == b) {
		p->cells[p->n - 1].count += count;
		p->samples += count;
		return 0;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 32;
		struct hm_cell *c = realloc(p->cells, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		p->cells = c;
		p->cap = cap;
	}
	p->cells[p->n++] = (struct hm_cell){ h->seq, count, b };
	p->samples += count;
	return 0;
}

int heatmap_add(struct heatmap *h, const struct rxlat_series *s)
{
	struct heatmap_label l[RXLAT_MAX_LABELS];
	char num[RXLAT_MAX_LABELS][24];
	int p, err = 0;

	/* the labels as JSON gives them, so that both inputs name a panel alike */
	for (unsigned int i = 0; i < s->nlabels; i++) {
		const struct rxlat_label *sl = &s->labels[i];

		l[i].key = sl->key;
		l[i].val = sl->kind == RXLAT_LABEL_STR	 ? sl->str
			   : sl->kind == RXLAT_LABEL_NUM ? num[i]
							 : NULL;
		if (sl->kind == RXLAT_LABEL_NUM)
			snprintf(num[i], sizeof(num[i]), "%llu", (unsigned long long)sl->num);
	}
	p = heatmap_series(h, l, s->nlabels);
	if (p < 0)
		return p == -ENOSPC ? 0 : p;
	for (__u32 b = 0; !err && b < RXLAT_HIST_BUCKETS; b++)
		err = heatmap_cell(h, p, b, s->st.buckets[b]);
	return err;
}

unsigned int heatmap_intervals(const struct heatmap *h)
{
	return (unsigned int)h->niv;
}

__u64 heatmap_samples(const struct heatmap *h)
{
	__u64 n = 0;

	for (size_t i = 0; i < h->np; i++)
		n += h->p[i].samples;
	return n;
}

int heatmap_bucket_of(__u64 le_ns)
{
	int lo = 0, hi = RXLAT_HIST_BUCKETS - 2;

	if (le_ns == ~0ULL)
		return RXLAT_HIST_BUCKETS - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		__u64 le = rxlat_hist_le((__u32)mid);

		if (le == le_ns)
			return mid;
		if (le < le_ns)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}
