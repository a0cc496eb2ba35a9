// SPDX-License-Identifier: GPL-2.0
/*
 * The totals of series whose interface is gone and whose slot was released
 * (model_retire_slot()), kept under their labels: Prometheus goes on
 * getting them, and a new interface that takes the same name adds to them,
 * so that no exported counter ever goes down.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_impl.h"

void model_label_key(const struct rxlat_series *s, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < s->nlabels && used < len; i++)
		if (!(s->labels[i].flags & RXLAT_LABEL_JSON_ONLY))
			used += snprintf(buf + used, len - used, "%s=%s;", s->labels[i].key,
					 s->labels[i].str);
}

void model_hist_add(struct rxlat_hist *dst, const struct rxlat_hist *src)
{
	for (__u32 b = 0; b < RXLAT_HIST_BUCKETS; b++)
		dst->buckets[b] += src->buckets[b];
	dst->sum_ns += src->sum_ns;
	for (int c = 0; c < RXLAT_NR_COUNTS; c++)
		dst->counts[c] += src->counts[c];
}

struct model_frozen *model_frozen_at(struct rxlat_model *m, const struct rxlat_series *s)
{
	char key[MODEL_KEY_LEN];
	struct model_frozen *f;

	model_label_key(s, key, sizeof(key));
	for (size_t i = 0; i < m->nfrozen; i++)
		if (!strcmp(m->frozen[i].key, key))
			return &m->frozen[i];
	if (!m->frozen) {
		m->frozen = calloc(MODEL_FROZEN_MAX, sizeof(*m->frozen));
		if (!m->frozen)
			return NULL;
	}
	if (m->nfrozen == MODEL_FROZEN_MAX) {
		/* the oldest goes: its series leaves the exposition */
		memmove(m->frozen, m->frozen + 1, (MODEL_FROZEN_MAX - 1) * sizeof(*m->frozen));
		m->nfrozen--;
		m->frozen_dropped++;
	}
	f = &m->frozen[m->nfrozen++];
	memset(f, 0, sizeof(*f));
	memcpy(f->key, key, sizeof(key));
	memcpy(f->labels, s->labels, s->nlabels * sizeof(*s->labels));
	f->nlabels = s->nlabels;
	return f;
}
