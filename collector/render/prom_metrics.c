// SPDX-License-Identifier: GPL-2.0
/*
 * What every scrape of the Prometheus endpoint reads besides the model: the
 * exported buckets, each stage's attach point and coverage, and the state
 * the run hands over (prom.h). prom.c writes the scrapes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "prom.h"
#include "prom_impl.h"
#include "rxlat_hist.h"

unsigned int prom_nr_buckets(unsigned int per_pow2)
{
	/* the underflow, per_pow2 per power of two, +Inf */
	return 2 + RXLAT_HIST_OCTAVES * per_pow2;
}

/*
 * Exported bucket e sums fine buckets up to .last; its le is the largest
 * value the last of them holds, which is exact whatever the grouping, as
 * the groups never split a fine bucket.
 */
static int make_buckets(struct prom_metrics *m)
{
	unsigned int k = m->per_pow2, group, e = 0;

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

		prom_put_seconds(&b, rxlat_hist_le(m->buckets[e].last));
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

int prom_metrics_new(struct prom_metrics **out, struct rxlat_model *model, unsigned int per_pow2,
		     const char *const attach[RXLAT_NR_STAGES],
		     const struct rxlat_coverage coverage[RXLAT_NR_STAGES])
{
	struct prom_metrics *m = calloc(1, sizeof(*m));
	int err;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->model = model;
	m->per_pow2 = per_pow2;
	for (int s = 0; s < RXLAT_NR_STAGES; s++) {
		m->attach[s] = attach ? attach[s] : NULL;
		if (coverage)
			m->coverage[s] = coverage[s];
	}
	err = make_buckets(m);
	if (err) {
		prom_metrics_free(m);
		return err;
	}
	*out = m;
	return 0;
}

void prom_metrics_set_unreached(struct prom_metrics *m, const struct rxlat_unreached_set *u)
{
	m->unreached = u;
}

void prom_metrics_set_from(struct prom_metrics *m, enum rxlat_from from)
{
	m->from = from;
}

void prom_metrics_set_auth_failures(struct prom_metrics *m, const __u64 *failures)
{
	m->auth_failures = failures;
}

void prom_metrics_set_classic(struct prom_metrics *m)
{
	m->classic = true;
}

void prom_metrics_free(struct prom_metrics *m)
{
	if (!m)
		return;
	free(m->buckets);
	free(m);
}
