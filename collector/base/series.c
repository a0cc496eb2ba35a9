// SPDX-License-Identifier: GPL-2.0
/*
 * The names of stages, protocols and counters, the labels of a series, and
 * the arithmetic on its counts (merging, percentiles).
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "rxlat_hist.h"
#include "series.h"

#define STAGE_NAME(id, name, ...) [RXLAT_STAGE_##id] = name,
const char *const rxlat_stage_names[RXLAT_NR_STAGES] = { RXLAT_STAGES(STAGE_NAME) };
#define STAGE_PROTOS(id, name, f4, f6, fb, no_fb, kp, com, pr, com_pr) \
	[RXLAT_STAGE_##id] = (pr) | (com_pr),
const unsigned int rxlat_stage_protos[RXLAT_NR_STAGES] = { RXLAT_STAGES(STAGE_PROTOS) };
#undef STAGE_PROTOS
#undef STAGE_NAME

const char *const rxlat_proto_names[RXLAT_NR_PROTOS] = {
	[RXLAT_PROTO_TCP] = "tcp", [RXLAT_PROTO_UDP] = "udp"
};

#define COUNT_GROUP(id, name, family, label, help, legend) \
	[RXLAT_GROUP_##id] = { name, family, label, help, legend },
const struct rxlat_count_group_def rxlat_count_groups[RXLAT_NR_COUNT_GROUPS] = { RXLAT_COUNT_GROUPS(
    COUNT_GROUP) };
#undef COUNT_GROUP
#define COUNT_NAME(id, group, name) [RXLAT_COUNT_##id] = name,
const char *const rxlat_count_names[RXLAT_NR_COUNTS] = { RXLAT_COUNTS(COUNT_NAME) };
#undef COUNT_NAME
#define COUNT_GROUP_OF(id, group, name) [RXLAT_COUNT_##id] = RXLAT_GROUP_##group,
const enum rxlat_count_group rxlat_count_group_of[RXLAT_NR_COUNTS] = { RXLAT_COUNTS(
    COUNT_GROUP_OF) };
#undef COUNT_GROUP_OF

#define PCT_ROW(name, key, q, drops) { name, key, q, drops },
const struct rxlat_pct rxlat_pcts[] = { RXLAT_PERCENTILES(PCT_ROW) };
const size_t rxlat_npcts = sizeof(rxlat_pcts) / sizeof(rxlat_pcts[0]);
#undef PCT_ROW

const char *rxlat_protos_str(unsigned int mask, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int p = 0; p < RXLAT_NR_PROTOS; p++)
		if ((mask & RXLAT_PROTO_BIT(p)) && n < len)
			n += snprintf(buf + n, len - n, "%s%s", n ? "," : "", rxlat_proto_names[p]);
	return buf;
}

/* " and " before the last of n items, ", " before the others, "" before the first */
static const char *joint(int i, int n)
{
	return !i ? "" : i == n - 1 ? " and " : ", ";
}

const char *rxlat_stage_protos_str(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int s = 0; s < RXLAT_NR_STAGES; s++) {
		unsigned int mask = rxlat_stage_protos[s];
		int ns = 0, np = 0, i = 0, first = s;

		for (int t = 0; t < s && first == s; t++) /* listed with its first stage */
			if (rxlat_stage_protos[t] == mask)
				first = t;
		if (first != s)
			continue;
		for (int t = s; t < RXLAT_NR_STAGES; t++)
			ns += rxlat_stage_protos[t] == mask;
		for (int p = 0; p < RXLAT_NR_PROTOS; p++)
			np += !!(mask & RXLAT_PROTO_BIT(p));
		for (int t = s; t < RXLAT_NR_STAGES && n < len; t++, i++)
			if (rxlat_stage_protos[t] != mask)
				i--;
			else
				n += snprintf(buf + n, len - n, "%s%s",
					      i	  ? joint(i, ns)
					      : n ? ", "
						  : "",
					      rxlat_stage_names[t]);
		for (int p = 0, j = 0; p < RXLAT_NR_PROTOS && n < len; p++)
			if (mask & RXLAT_PROTO_BIT(p))
				n += snprintf(buf + n, len - n, "%s%s",
					      j++ ? joint(j - 1, np) : " ", rxlat_proto_names[p]);
	}
	return buf;
}

static struct rxlat_label *new_label(struct rxlat_series *s, const char *key, unsigned int flags,
				     enum rxlat_label_kind kind)
{
	struct rxlat_label *l;

	if (s->nlabels >= RXLAT_MAX_LABELS)
		return NULL;
	l = &s->labels[s->nlabels++];
	l->key = key;
	l->flags = flags;
	l->kind = kind;
	l->num = 0;
	l->str[0] = '\0';
	return l;
}

void rxlat_label_str(struct rxlat_series *s, const char *key, unsigned int flags, const char *fmt,
		     ...)
{
	struct rxlat_label *l = new_label(s, key, flags, RXLAT_LABEL_STR);
	va_list ap;

	if (!l)
		return;
	va_start(ap, fmt);
	vsnprintf(l->str, sizeof(l->str), fmt, ap);
	va_end(ap);
}

void rxlat_label_num(struct rxlat_series *s, const char *key, unsigned int flags, __u64 num)
{
	struct rxlat_label *l = new_label(s, key, flags, RXLAT_LABEL_NUM);

	if (!l)
		return;
	l->num = num;
	snprintf(l->str, sizeof(l->str), "%" PRIu64, (uint64_t)num);
}

void rxlat_label_null(struct rxlat_series *s, const char *key, const char *prom)
{
	struct rxlat_label *l = new_label(s, key, 0, RXLAT_LABEL_NULL);

	if (l)
		snprintf(l->str, sizeof(l->str), "%s", prom);
}

const struct rxlat_label *rxlat_label_of(const struct rxlat_series *s, const char *key)
{
	for (unsigned int i = 0; i < s->nlabels; i++)
		if (!strcmp(s->labels[i].key, key))
			return &s->labels[i];
	return NULL;
}

void rxlat_stats_add(struct rxlat_stats *dst, const struct rxlat_stats *src)
{
	unsigned int i;

	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	for (i = 0; i < RXLAT_HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	for (i = 0; i < RXLAT_NR_COUNTS; i++)
		dst->counts[i] += src->counts[i];
}

/* floor(w * num / den) for num <= den: w * num may need 128 bits. */
static __u64 scale(__u64 w, __u64 num, __u64 den)
{
	if (!den)
		return 0;
#ifdef __SIZEOF_INT128__
	return (__u64)((unsigned __int128)w * num / den);
#else
	return (__u64)((long double)w * num / den);
#endif
}

__u64 rxlat_percentile(const struct rxlat_stats *st, double q)
{
	__u64 rank, cum = 0, lo, hi, v;
	double x;
	__u32 i;

	if (!st->count)
		return 0;
	if (!(q > 0)) /* also catches NaN */
		q = 0;
	if (q > 1)
		q = 1;

	/*
	 * q * count may come out a hair above the integer it stands for
	 * (99.9 / 100 * 1000 = 999.0000000000001); that must not push the
	 * rank up.
	 */
	x = q * (double)st->count;
	x = ceil(x - x * 1e-12);
	rank = x < 1 ? 1 : (__u64)x;
	if (rank > st->count)
		rank = st->count;

	for (i = 0; i < RXLAT_HIST_BUCKETS; i++) {
		if (st->buckets[i] >= rank - cum)
			break;
		cum += st->buckets[i];
	}
	/* count larger than the sum of the buckets: the rank is past them */
	if (i == RXLAT_HIST_BUCKETS)
		return st->max_ns;

	lo = rxlat_hist_lower(i);
	hi = rxlat_hist_le(i);
	if (i == RXLAT_HIST_BUCKETS - 1) /* no upper bound but the max */
		hi = st->max_ns > lo ? st->max_ns : lo;
	v = lo + scale(hi - lo, rank - cum, st->buckets[i]);
	return v < st->max_ns ? v : st->max_ns;
}

bool rxlat_stats_empty(const struct rxlat_stats *st)
{
	int i;

	if (st->count)
		return false;
	for (i = 0; i < RXLAT_NR_COUNTS; i++)
		if (st->counts[i])
			return false;
	return true;
}
