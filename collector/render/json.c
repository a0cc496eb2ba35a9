// SPDX-License-Identifier: GPL-2.0
/* The JSON report: one line per report (see rxlat_report_json() in report.h). */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <json-c/json.h>

#include "rxlat_hist.h"
#include "report.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Adds val to o under key and owns val, whatever happens. */
static int put(struct json_object *o, const char *key, struct json_object *val)
{
	if (!val)
		return -ENOMEM;
	if (json_object_object_add(o, key, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

static int put_null(struct json_object *o, const char *key)
{
	return json_object_object_add(o, key, NULL) ? -ENOMEM : 0;
}

static int append(struct json_object *a, struct json_object *val)
{
	if (!val)
		return -ENOMEM;
	if (json_object_array_add(a, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

static int put_u64(struct json_object *o, const char *key, __u64 v)
{
	return put(o, key, json_object_new_uint64(v));
}

static int put_str(struct json_object *o, const char *key, const char *v)
{
	return put(o, key, json_object_new_string(v));
}

static int put_ifname(struct json_object *o, const char *ifname)
{
	return put(o, "ifname",
		   json_object_new_string_len(ifname, strnlen(ifname, RXLAT_IFNAME_LEN)));
}

static int put_queue(struct json_object *o, int queue)
{
	if (queue == RXLAT_QUEUE_ALL)
		return put_null(o, "queue");
	if (queue == RXLAT_QUEUE_OTHER)
		return put_str(o, "queue", "other");
	return put(o, "queue", json_object_new_int(queue));
}

/*
 * json-c prints doubles with 17 digits (0.10000000000000001); give it the
 * text instead: microsecond precision, trailing zeros dropped, and at least
 * one decimal so that the value always reads as a float.
 */
static struct json_object *new_seconds(double s)
{
	char buf[64];
	size_t n;

	if (!isfinite(s))
		s = 0;
	n = snprintf(buf, sizeof(buf), "%.6f", s);
	while (n > 1 && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	return json_object_new_double_s(strtod(buf, NULL), buf);
}

static struct json_object *json_buckets(const struct rxlat_stats *st)
{
	struct json_object *a = json_object_new_array(), *b;
	__u32 i;

	if (!a)
		return NULL;
	for (i = 0; i < RXLAT_HIST_BUCKETS; i++) {
		if (!st->buckets[i])
			continue;
		b = json_object_new_object();
		if (append(a, b))
			goto err;
		if (i == RXLAT_HIST_BUCKETS - 1) {
			if (put_str(b, "le_ns", "+Inf"))
				goto err;
		} else if (put_u64(b, "le_ns", rxlat_hist_le(i))) {
			goto err;
		}
		if (put_u64(b, "count", st->buckets[i]))
			goto err;
	}
	return a;
err:
	json_object_put(a);
	return NULL;
}

/*
 * A series' object, written straight into buf rather than built as a json-c
 * tree: at 5,000 series a second, json-c's objects (about 25 allocations
 * and hash inserts per series) and its printf per number were most of
 * rxlat's CPU time. The output is json-c's own, byte for byte: the same
 * members in the same order, numbers as json-c prints them, and the one
 * free-form string (the interface name) escaped by json-c unless it is
 * plain printable ASCII (report_json_test reparses and reprints every line
 * with json-c and compares).
 */
/* At most: members ~300 bytes, name 96, buckets 60 bytes each. */
#define SERIES_JSON_MAX                                                                \
	(1024 + RXLAT_MAX_LABELS * (6 * RXLAT_LABEL_LEN + 64) + RXLAT_NR_COUNTS * 64 + \
	 RXLAT_HIST_BUCKETS * 64)

static char *w_lit(char *p, const char *lit, size_t n)
{
	memcpy(p, lit, n);
	return p + n;
}

#define W(p, lit) w_lit(p, lit, sizeof(lit) - 1)

static char *w_u64(char *p, __u64 v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* A JSON string; NULL when json-c could not escape it. */
static char *w_str(char *p, const char *v, size_t n)
{
	struct json_object *o;
	const char *js;
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e || v[i] == '"' ||
		    v[i] == '\\')
			break;
	if (i == n) {
		*p++ = '"';
		p = w_lit(p, v, n);
		*p++ = '"';
		return p;
	}
	o = json_object_new_string_len(v, (int)n);
	js = o ? json_object_to_json_string_ext(o, JSON_FLAGS) : NULL;
	if (js)
		p = w_lit(p, js, strlen(js));
	json_object_put(o);
	return js ? p : NULL;
}

/* The series as one JSON object in buf (SERIES_JSON_MAX); its end or NULL. */
static char *w_series(char *p, const struct rxlat_series *s)
{
	const struct rxlat_stats *st = &s->st;
	__u32 i;

	*p++ = '{';
	for (i = 0; i < s->nlabels; i++) {
		const struct rxlat_label *l = &s->labels[i];

		if (i)
			*p++ = ',';
		p = w_str(p, l->key, strlen(l->key));
		if (!p)
			return NULL;
		*p++ = ':';
		if (l->kind == RXLAT_LABEL_NULL)
			p = W(p, "null");
		else if (l->kind == RXLAT_LABEL_NUM)
			p = w_u64(p, l->num);
		else
			p = w_str(p, l->str, strnlen(l->str, sizeof(l->str)));
		if (!p)
			return NULL;
	}
	p = w_u64(W(p, ",\"count\":"), st->count);
	p = w_u64(W(p, ",\"sum_ns\":"), st->sum_ns);
	p = w_u64(W(p, ",\"max_ns\":"), st->max_ns);
	for (i = 0; i < rxlat_npcts; i++) {
		p = w_lit(W(p, ",\""), rxlat_pcts[i].key, strlen(rxlat_pcts[i].key));
		p = w_u64(W(p, "\":"), rxlat_percentile(st, rxlat_pcts[i].q));
	}
	p = W(p, ",\"buckets\":[");
	for (i = 0; i < RXLAT_HIST_BUCKETS; i++) {
		if (!st->buckets[i])
			continue;
		if (p[-1] == '}')
			*p++ = ',';
		if (i == RXLAT_HIST_BUCKETS - 1)
			p = W(p, "{\"le_ns\":\"+Inf\"");
		else
			p = w_u64(W(p, "{\"le_ns\":"), rxlat_hist_le(i));
		p = w_u64(W(p, ",\"count\":"), st->buckets[i]);
		*p++ = '}';
	}
	*p++ = ']';
	for (int g = 0; g < RXLAT_NR_COUNT_GROUPS; g++) {
		const char *sep = "";

		*p++ = ',';
		p = w_str(p, rxlat_count_groups[g].name, strlen(rxlat_count_groups[g].name));
		p = W(p, ":{");
		for (i = 0; i < RXLAT_NR_COUNTS; i++) {
			const char *name = rxlat_count_names[i];

			if (rxlat_count_group_of[i] != (enum rxlat_count_group)g)
				continue;
			p = w_lit(p, sep, strlen(sep));
			*p++ = '"';
			p = w_lit(p, name, strlen(name));
			p = w_u64(W(p, "\":"), st->counts[i]);
			sep = ",";
		}
		*p++ = '}';
	}
	return W(p, "}");
}

static struct json_object *json_xdp(const struct rxlat_xdp_row *x)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (put_ifname(o, x->ifname) || put_u64(o, "ifindex", x->ifindex) || put_queue(o, x->queue))
		goto fail;
#define PUT_(f, ...)              \
	if (put_u64(o, #f, x->f)) \
		goto fail;
	RXLAT_XDP_COUNTERS(PUT_)
#undef PUT_
	/* the CPU of the last poll, where polls were counted */
	if (x->cpu >= 0 && put_u64(o, "poll_cpu", (__u64)x->cpu))
		goto fail;
	return o;
fail:
	json_object_put(o);
	return NULL;
}

static struct json_object *json_drop(const struct rxlat_drop_row *d)
{
	const struct rxlat_stats *st = &d->st;
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (put_ifname(o, d->ifname) || put_u64(o, "ifindex", d->ifindex) ||
	    put_queue(o, d->queue) || put_str(o, "reason", d->reason) ||
	    put_u64(o, "count", st->count) || put_u64(o, "sum_ns", st->sum_ns) ||
	    put_u64(o, "max_ns", st->max_ns))
		goto fail;
	for (size_t i = 0; i < rxlat_npcts; i++)
		if (rxlat_pcts[i].drops &&
		    put_u64(o, rxlat_pcts[i].key, rxlat_percentile(st, rxlat_pcts[i].q)))
			goto fail;
	if (put(o, "buckets", json_buckets(st)))
		goto fail;
	return o;
fail:
	json_object_put(o);
	return NULL;
}

/*
 * "measures": {stage: [proto, ...]} for every stage, and "not_measured":
 * {stage: {proto: reason}} for the stages that leave out a protocol of
 * theirs. 0 or -ENOMEM.
 */
static int json_coverage(struct json_object *o, const struct rxlat_report *r)
{
	struct json_object *measures = json_object_new_object(), *not_measured;

	if (put(o, "measures", measures))
		return -ENOMEM;
	not_measured = json_object_new_object();
	if (put(o, "not_measured", not_measured))
		return -ENOMEM;
	for (int s = 0; s < RXLAT_NR_STAGES; s++) {
		const struct rxlat_coverage *c = &r->coverage[s];
		struct json_object *a = json_object_new_array(), *why = NULL;

		if (put(measures, rxlat_stage_names[s], a))
			return -ENOMEM;
		for (int p = 0; p < RXLAT_NR_PROTOS; p++) {
			if (c->measured & RXLAT_PROTO_BIT(p)) {
				if (append(a, json_object_new_string(rxlat_proto_names[p])))
					return -ENOMEM;
				continue;
			}
			if (!c->why_not[p])
				continue;
			if (!why) {
				why = json_object_new_object();
				if (put(not_measured, rxlat_stage_names[s], why))
					return -ENOMEM;
			}
			if (put_str(why, rxlat_proto_names[p], c->why_not[p]))
				return -ENOMEM;
		}
	}
	return 0;
}

/* "unreached": [{"ifname", "kind"}, ...]. 0 or -ENOMEM. */
static int json_unreached(struct json_object *o, const struct rxlat_report *r)
{
	struct json_object *a = json_object_new_array();

	if (put(o, "unreached", a))
		return -ENOMEM;
	for (int i = 0; r->unreached && i < r->unreached->n; i++) {
		struct json_object *e = json_object_new_object();

		if (append(a, e) || put_str(e, "ifname", r->unreached->e[i].ifname) ||
		    put_str(e, "kind", r->unreached->e[i].kind))
			return -ENOMEM;
	}
	return 0;
}

/* The report's fields before its series. */
static struct json_object *json_head(const struct rxlat_report *r)
{
	struct json_object *o = json_object_new_object(), *attach, *unavail;
	char tbuf[64] = "";
	struct tm tm;
	int s;

	if (!o)
		return NULL;
	if (gmtime_r(&r->time.tv_sec, &tm)) {
		size_t n = strftime(tbuf, sizeof(tbuf), "%Y-%m-%dT%H:%M:%S", &tm);

		snprintf(tbuf + n, sizeof(tbuf) - n, ".%03ldZ", r->time.tv_nsec / 1000000);
	}
	if (put_str(o, "time", tbuf) || put(o, "interval_s", new_seconds(r->interval_s)) ||
	    put(o, "final", json_object_new_boolean(r->final)) ||
	    put_str(o, "from", RXLAT_FROM_NAME(r->from)))
		goto err;

	attach = json_object_new_object();
	if (put(o, "attach", attach))
		goto err;
	unavail = json_object_new_object();
	if (put(o, "unavailable", unavail))
		goto err;
	for (s = 0; s < RXLAT_NR_STAGES; s++) {
		const char *name = rxlat_stage_names[s];

		if (r->attach[s] ? put_str(attach, name, r->attach[s]) : put_null(attach, name))
			goto err;
		if (r->unavailable[s] && put_str(unavail, rxlat_stage_names[s], r->unavailable[s]))
			goto err;
	}
	if (json_coverage(o, r) || json_unreached(o, r))
		goto err;
	return o;
err:
	json_object_put(o);
	return NULL;
}

/* The report's fields after its series. */
static struct json_object *json_tail(const struct rxlat_report *r)
{
	struct json_object *o = json_object_new_object(), *a;

	if (!o)
		return NULL;
	a = json_object_new_array();
	if (put(o, "xdp", a))
		goto err;
	for (size_t i = 0; i < r->nxdp; i++)
		if (append(a, json_xdp(&r->xdp[i])))
			goto err;
	if (r->slow_on) {
		struct json_object *sl = json_object_new_object();

		if (put(o, "slow", sl) || put_u64(sl, "sent", r->slow_sent) ||
		    put_u64(sl, "suppressed", r->slow_suppressed) ||
		    put_u64(sl, "lost", r->slow_lost))
			goto err;
	}
	if (!r->drops_on)
		return o;
	a = json_object_new_array();
	if (put(o, "drops", a) || put_u64(o, "drops_lost", r->drops_lost))
		goto err;
	for (size_t i = 0; i < r->ndrops; i++)
		if (append(a, json_drop(&r->drops[i])))
			goto err;
	return o;
err:
	json_object_put(o);
	return NULL;
}

/*
 * Prints o's members, without its braces: "{...}" as "...". 0, -ENOMEM or
 * -EIO.
 */
static int print_members(FILE *f, struct json_object *o)
{
	const char *s = o ? json_object_to_json_string_ext(o, JSON_FLAGS) : NULL;
	size_t n = s ? strlen(s) : 0;

	if (n < 2)
		return -ENOMEM;
	return fwrite(s + 1, 1, n - 2, f) == n - 2 ? 0 : -EIO;
}

/*
 * One line. The series are written one at a time by w_series(): a json-c
 * tree of the whole report would take about 14 KB per series at once (70 MB
 * for 5,000 series). The head and tail are json-c objects.
 */
int rxlat_report_json(FILE *f, const struct rxlat_report *r)
{
	struct json_object *head = json_head(r), *tail = json_tail(r);
	struct rxlat_series ser;
	bool first = true;
	int err, got;

	fputc('{', f);
	err = print_members(f, head);
	if (!err && fputs(",\"series\":[", f) < 0)
		err = -EIO;
	while (!err && (got = rxlat_report_next(r, &ser)) != 0) {
		char line[SERIES_JSON_MAX], *end;

		if (got < 0) {
			err = got;
			break;
		}
		end = w_series(line, &ser);
		if (!end)
			err = -ENOMEM;
		else if ((!first && fputc(',', f) == EOF) ||
			 fwrite(line, 1, (size_t)(end - line), f) != (size_t)(end - line))
			err = -EIO;
		first = false;
	}
	if (!err && fputc(']', f) == EOF)
		err = -EIO;
	if (!err && !tail)
		err = -ENOMEM;
	if (!err && json_object_object_length(tail)) {
		if (fputc(',', f) == EOF)
			err = -EIO;
		else
			err = print_members(f, tail);
	}
	if (!err && (fputs("}\n", f) < 0 || fflush(f) || ferror(f)))
		err = -EIO;
	json_object_put(head);
	json_object_put(tail);
	return err;
}
