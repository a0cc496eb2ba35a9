// SPDX-License-Identifier: GPL-2.0
/*
 * The totals of series whose slot was released (model_retire_slot(),
 * model_retire_group()), kept under their labels: Prometheus goes on
 * getting them, and a new interface that takes the same name adds to them,
 * so that no exported counter ever goes down.
 *
 * A node churns pods all day, each leaving a label set per stage and queue
 * that had samples: an entry holds only what Prometheus prints (its labels
 * as one string, the buckets that are not empty) and is found by a hash of
 * its labels, so that a scrape of many live series over many gone ones
 * stays linear. Past MODEL_FROZEN_MAX the oldest goes, counted
 * (model_total_gone()), so that the exposition says what it no longer has.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_impl.h"

_Static_assert(RXLAT_HIST_BUCKETS <= 256, "a bucket's index is one byte");
_Static_assert((MODEL_FROZEN_MAX & (MODEL_FROZEN_MAX - 1)) == 0, "a power of two");

struct model_frozen {
	struct model_frozen *next; /* in its hash chain */
	__u64 seq;		   /* the ring's index: the order of their release */
	__u64 sum_ns, counts[RXLAT_NR_COUNTS];
	__u64 *bucket; /* nb counts, then their nb indexes, one byte each */
	__u32 hash;
	__u16 nb, klen, nlabels;
	char key[]; /* "name\0value\0" per label Prometheus gets */
};

void model_label_key(const struct rxlat_series *s, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < s->nlabels && used < len; i++)
		if (!(s->labels[i].flags & RXLAT_LABEL_JSON_ONLY))
			used += snprintf(buf + used, len - used, "%s=%s;", s->labels[i].key,
					 s->labels[i].str);
}

/* s's Prometheus labels packed into buf (the entries' key): its length, 0 if too long. */
static size_t pack(const struct rxlat_series *s, char *buf, size_t len, __u16 *nlabels)
{
	size_t used = 0;

	*nlabels = 0;
	for (unsigned int i = 0; i < s->nlabels; i++) {
		const struct rxlat_label *l = &s->labels[i];
		size_t k, v;

		if (l->flags & RXLAT_LABEL_JSON_ONLY)
			continue;
		k = strlen(l->key) + 1;
		v = strnlen(l->str, sizeof(l->str)) + 1;
		if (used + k + v > len)
			return 0;
		memcpy(buf + used, l->key, k);
		memcpy(buf + used + k, l->str, v - 1);
		buf[used + k + v - 1] = '\0';
		used += k + v;
		(*nlabels)++;
	}
	return used;
}

/* FNV-1a */
static __u32 hash_of(const char *p, size_t n)
{
	__u32 h = 2166136261u;

	while (n--)
		h = (h ^ (unsigned char)*p++) * 16777619u;
	return h;
}

static struct model_frozen *lookup(const struct rxlat_model *m, const char *key, size_t klen,
				   __u32 hash)
{
	struct model_frozen *f;

	if (!m->frozen_hash)
		return NULL;
	for (f = m->frozen_hash[hash & (MODEL_FROZEN_MAX - 1)]; f; f = f->next)
		if (f->hash == hash && f->klen == klen && !memcmp(f->key, key, klen))
			return f;
	return NULL;
}

const struct model_frozen *model_frozen_find(const struct rxlat_model *m,
					     const struct rxlat_series *s, __u64 *seq)
{
	char key[MODEL_KEY_LEN];
	__u16 nlabels;
	size_t klen = pack(s, key, sizeof(key), &nlabels);
	const struct model_frozen *f;

	if (!klen || !(f = lookup(m, key, klen, hash_of(key, klen))))
		return NULL;
	*seq = f->seq;
	return f;
}

const struct model_frozen *model_frozen_seq(const struct rxlat_model *m, __u64 seq)
{
	if (seq < m->frozen_first || seq >= m->frozen_next)
		return NULL;
	return m->frozen[seq & (MODEL_FROZEN_MAX - 1)];
}

void model_frozen_hist(const struct model_frozen *f, struct rxlat_hist *h)
{
	const unsigned char *idx = (const unsigned char *)(f->bucket + f->nb);

	for (__u16 i = 0; i < f->nb; i++)
		h->buckets[idx[i]] += f->bucket[i];
	h->sum_ns += f->sum_ns;
	for (int c = 0; c < RXLAT_NR_COUNTS; c++)
		h->counts[c] += f->counts[c];
}

void model_frozen_series(const struct model_frozen *f, struct rxlat_series *out)
{
	const char *p = f->key;

	out->nlabels = 0;
	for (__u16 i = 0; i < f->nlabels && i < RXLAT_MAX_LABELS; i++) {
		struct rxlat_label *l = &out->labels[out->nlabels++];

		memset(l, 0, sizeof(*l));
		l->key = p; /* lives as long as the entry: the renderer prints it at once */
		l->kind = RXLAT_LABEL_STR;
		p += strlen(p) + 1;
		snprintf(l->str, sizeof(l->str), "%s", p);
		p += strlen(p) + 1;
	}
}

static void drop_oldest(struct rxlat_model *m)
{
	struct model_frozen **at, *f = m->frozen[m->frozen_first & (MODEL_FROZEN_MAX - 1)];

	for (at = &m->frozen_hash[f->hash & (MODEL_FROZEN_MAX - 1)]; *at != f; at = &(*at)->next)
		;
	*at = f->next;
	m->frozen[m->frozen_first & (MODEL_FROZEN_MAX - 1)] = NULL;
	m->frozen_first++;
	m->frozen_dropped++;
	free(f->bucket);
	free(f);
}

/* f's buckets += h's, kept sparse: 0 or -ENOMEM (f unchanged). */
static int add_buckets(struct model_frozen *f, const struct rxlat_hist *h)
{
	__u64 all[RXLAT_HIST_BUCKETS] = { 0 }, *bucket;
	const unsigned char *idx = (const unsigned char *)(f->bucket + f->nb);
	unsigned char *out;
	__u16 nb = 0;

	for (__u16 i = 0; i < f->nb; i++)
		all[idx[i]] = f->bucket[i];
	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++) {
		all[b] += h->buckets[b];
		nb += all[b] != 0;
	}
	bucket = malloc(nb * (sizeof(*bucket) + 1) + 1);
	if (!bucket)
		return -ENOMEM;
	out = (unsigned char *)(bucket + nb);
	nb = 0;
	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++)
		if (all[b]) {
			bucket[nb] = all[b];
			out[nb++] = (unsigned char)b;
		}
	free(f->bucket);
	f->bucket = bucket;
	f->nb = nb;
	return 0;
}

int model_frozen_add(struct rxlat_model *m, const struct rxlat_series *s,
		     const struct rxlat_hist *h)
{
	char key[MODEL_KEY_LEN];
	__u16 nlabels;
	size_t klen = pack(s, key, sizeof(key), &nlabels);
	__u32 hash = hash_of(key, klen);
	struct model_frozen *f;

	if (!klen)
		return -E2BIG;
	if (!m->frozen) {
		m->frozen = calloc(MODEL_FROZEN_MAX, sizeof(*m->frozen));
		m->frozen_hash = calloc(MODEL_FROZEN_MAX, sizeof(*m->frozen_hash));
		if (!m->frozen || !m->frozen_hash) {
			free(m->frozen);
			free(m->frozen_hash);
			m->frozen = m->frozen_hash = NULL;
			return -ENOMEM;
		}
	}
	f = lookup(m, key, klen, hash);
	if (!f) {
		f = calloc(1, sizeof(*f) + klen);
		if (!f)
			return -ENOMEM;
		memcpy(f->key, key, klen);
		f->klen = (__u16)klen;
		f->nlabels = nlabels;
		f->hash = hash;
		if (add_buckets(f, h)) {
			free(f);
			return -ENOMEM;
		}
		if (m->frozen_next - m->frozen_first == MODEL_FROZEN_MAX)
			drop_oldest(m);
		f->seq = m->frozen_next++;
		m->frozen[f->seq & (MODEL_FROZEN_MAX - 1)] = f;
		f->next = m->frozen_hash[hash & (MODEL_FROZEN_MAX - 1)];
		m->frozen_hash[hash & (MODEL_FROZEN_MAX - 1)] = f;
	} else if (add_buckets(f, h)) {
		return -ENOMEM;
	}
	f->sum_ns += h->sum_ns;
	for (int c = 0; c < RXLAT_NR_COUNTS; c++)
		f->counts[c] += h->counts[c];
	return 0;
}

void model_frozen_free(struct rxlat_model *m)
{
	for (__u64 seq = m->frozen_first; m->frozen && seq < m->frozen_next; seq++) {
		struct model_frozen *f = m->frozen[seq & (MODEL_FROZEN_MAX - 1)];

		free(f->bucket);
		free(f);
	}
	free(m->frozen);
	free(m->frozen_hash);
}

void model_total_gone(const struct rxlat_model *m, __u64 *kept, __u64 *dropped)
{
	*kept = m->frozen_next - m->frozen_first;
	*dropped = m->frozen_dropped;
}
