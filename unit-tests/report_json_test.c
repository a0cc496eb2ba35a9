// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the JSON renderer, and of series handed to the renderers
 * one at a time. One line per check, "PASS <name>" or "FAIL <name>: <reason>";
 * the exit status is 1 when any check failed.
 *
 * Expected values are written out or derived from a bucket table built here
 * the slow way, never from the functions under test.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>

#include "rxlat_hist.h"
#include "report.h"
#include "check.h"
#include "report_fixture.h"
#include "heatmap.h"

/* ----- JSON, parsed back ----- */

static struct json_object *get(struct json_object *o, const char *key, enum json_type type)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v)) {
		check_fail("key \"%s\" missing", key);
		return NULL;
	}
	if (!json_object_is_type(v, type)) {
		check_fail("key \"%s\" has type %s, want %s", key,
			   json_type_to_name(json_object_get_type(v)), json_type_to_name(type));
		return NULL;
	}
	return v;
}

static void expect_u64(struct json_object *o, const char *key, __u64 want)
{
	struct json_object *v = get(o, key, json_type_int);

	if (v && json_object_get_uint64(v) != want)
		check_fail("\"%s\": got %" PRIu64 ", want %" PRIu64, key,
			   (uint64_t)json_object_get_uint64(v), (uint64_t)want);
}

static void expect_str(struct json_object *o, const char *key, const char *want)
{
	struct json_object *v = get(o, key, json_type_string);

	if (v && strcmp(json_object_get_string(v), want))
		check_fail("\"%s\": got \"%s\", want \"%s\"", key, json_object_get_string(v), want);
}

static void expect_keys(struct json_object *o, const char *what, int n)
{
	if (json_object_object_length(o) != n)
		check_fail("%s has %d keys, want %d", what, json_object_object_length(o), n);
}

/* "measures" and "not_measured" of the fixture's coverage, word for word. */
static void expect_coverage(struct json_object *root)
{
	static const char *const want[RXLAT_NR_STAGES] = {
		[RXLAT_STAGE_NAPI_WAIT] = "[]",		[RXLAT_STAGE_IP_RCV] = "[\"tcp\",\"udp\"]",
		[RXLAT_STAGE_TCP_DO_RCV] = "[\"tcp\"]", [RXLAT_STAGE_TCP_DATA_QUEUE] = "[\"tcp\"]",
		[RXLAT_STAGE_UDP_QUEUE_RCV] = "[]",	[RXLAT_STAGE_SOCK_READ] = "[]",
	};
	struct json_object *o = get(root, "measures", json_type_object), *w;

	if (o) {
		expect_keys(o, "measures", RXLAT_NR_STAGES);
		for (int s = 0; s < RXLAT_NR_STAGES; s++) {
			struct json_object *a = get(o, rxlat_stage_names[s], json_type_array);
			const char *got =
			    a ? json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN) : "";

			if (strcmp(got, want[s]))
				check_fail("measures.%s: %s, want %s", rxlat_stage_names[s], got,
					   want[s]);
		}
	}
	o = get(root, "not_measured", json_type_object);
	if (!o)
		return;
	expect_keys(o, "not_measured", 3);
	w = get(o, "udp_queue_rcv", json_type_object);
	if (w) {
		expect_keys(w, "not_measured.udp_queue_rcv", 1);
		expect_str(w, "udp", "no BTF for udp_queue_rcv_one_skb");
	}
	for (int i = 0; i < 2; i++) {
		const char *name = i ? "sock_read" : "napi_wait";

		w = get(o, name, json_type_object);
		if (w) {
			expect_keys(w, name, 2);
			expect_str(w, "tcp", NOT_ASKED);
			expect_str(w, "udp", NOT_ASKED);
		}
	}
}

/* Checks one series object; buckets as (le index, count) pairs. */
static void expect_series(struct json_object *o, const struct rxlat_series *s, const char *ifname,
			  const char *queue, const __u64 *pct)
{
	static const char *const pkey[] = { "p50_ns", "p90_ns", "p99_ns", "p999_ns" };
	struct json_object *b, *e, *src;
	size_t n = 0, j;
	__u32 i;

	expect_keys(o, "series", 15);
	expect_str(o, "stage", rxlat_label_of(s, "stage")->str);
	expect_str(o, "ifname", ifname);
	expect_u64(o, "ifindex", rxlat_label_of(s, "ifindex")->num);
	if (!queue) {
		if (get(o, "queue", json_type_null))
			check_fail("queue not null");
	} else if (queue[0] >= '0' && queue[0] <= '9') {
		expect_u64(o, "queue", strtoull(queue, NULL, 10));
	} else {
		expect_str(o, "queue", queue);
	}
	expect_u64(o, "count", s->st.count);
	expect_u64(o, "sum_ns", s->st.sum_ns);
	expect_u64(o, "max_ns", s->st.max_ns);
	for (j = 0; j < 4; j++)
		expect_u64(o, pkey[j], pct[j]);

	b = get(o, "buckets", json_type_array);
	for (i = 0; b && i < NB; i++) {
		if (!s->st.buckets[i])
			continue;
		if (n >= json_object_array_length(b)) {
			check_fail("bucket array too short at bucket %u", i);
			break;
		}
		e = json_object_array_get_idx(b, n++);
		expect_keys(e, "bucket", 2);
		if (i == LAST)
			expect_str(e, "le_ns", "+Inf");
		else
			expect_u64(e, "le_ns", ref_le[i]);
		expect_u64(e, "count", s->st.buckets[i]);
	}
	if (b && n != json_object_array_length(b))
		check_fail("%zu buckets, want %zu", json_object_array_length(b), n);

	src = get(o, "sources", json_type_object);
	if (src) {
		expect_keys(src, "sources", 4);
		expect_u64(src, "xdp", s->st.sources[RXLAT_SRC_XDP]);
		expect_u64(src, "kernel", s->st.sources[RXLAT_SRC_KERNEL]);
		expect_u64(src, "tc", s->st.sources[RXLAT_SRC_TC]);
		expect_u64(src, "none", s->st.sources[RXLAT_SRC_NONE]);
	}
	/* in every series, 0 included: JSON readers see a fixed shape */
	src = get(o, "held", json_type_object);
	if (src) {
		expect_keys(src, "held", 1);
		expect_u64(src, "ooo", s->st.counts[RXLAT_COUNT_HELD_OOO]);
	}
	src = get(o, "unsampled", json_type_object);
	if (src) {
		expect_keys(src, "unsampled", 4);
		expect_u64(src, "after_full", s->st.counts[RXLAT_COUNT_UNSAMPLED_FULL]);
		expect_u64(src, "unscheduled", s->st.counts[RXLAT_COUNT_UNSAMPLED_NONE]);
		expect_u64(src, "busy", s->st.counts[RXLAT_COUNT_UNSAMPLED_BUSY]);
		expect_u64(src, "late", s->st.counts[RXLAT_COUNT_UNSAMPLED_LATE]);
	}
}

static void test_json(void)
{
	struct rxlat_series s[4];
	struct rxlat_xdp_row x[3];
	struct json_object *root = NULL, *o, *a;
	struct rxlat_report r;
	struct model_iter it;
	__u64 pct_a[4], pct_b[4] = { 0 }, pct_d[4];
	char *line;
	size_t len;
	__u32 i;

	memset(s, 0, sizeof(s));
	/* every kind of bucket, a name that needs escaping, all queues */
	name_series(&s[0], RXLAT_STAGE_IP_RCV, "ve\"th\\1/", 7, RXLAT_QUEUE_ALL);
	s[0].st.buckets[0] = 2;
	s[0].st.buckets[33] = 3; /* [954, 1039] */
	s[0].st.buckets[LAST] = 1;
	s[0].st.count = 6;
	s[0].st.sum_ns = 12345678901ULL;
	s[0].st.max_ns = 1ULL << 35;
	s[0].st.sources[RXLAT_SRC_XDP] = 4;
	s[0].st.sources[RXLAT_SRC_KERNEL] = 1;
	s[0].st.sources[RXLAT_SRC_TC] = 1;
	s[0].st.sources[RXLAT_SRC_NONE] = 9;
	s[0].st.counts[RXLAT_COUNT_HELD_OOO] = 2;
	s[0].st.counts[RXLAT_COUNT_UNSAMPLED_FULL] = 5;
	s[0].st.counts[RXLAT_COUNT_UNSAMPLED_NONE] = 7;
	s[0].st.counts[RXLAT_COUNT_UNSAMPLED_BUSY] = 8;
	s[0].st.counts[RXLAT_COUNT_UNSAMPLED_LATE] = 10;
	pct_a[0] = 954 + 85 / 3;		     /* rank 3: first of bucket 33 */
	pct_a[1] = pct_a[2] = pct_a[3] = 1ULL << 35; /* rank 6: the max */

	/* no sample with a start time: still reported, with zeros */
	name_series(&s[1], RXLAT_STAGE_TCP_DATA_QUEUE, "other", 0, RXLAT_QUEUE_OTHER);
	s[1].st.sources[RXLAT_SRC_NONE] = 4;

	/* empty: left out */
	name_series(&s[2], RXLAT_STAGE_TCP_DO_RCV, "eth0", 2, 0);

	/* all 226 buckets, to check every le_ns */
	name_series(&s[3], RXLAT_STAGE_UDP_QUEUE_RCV, "eth0", 2, 3);
	for (i = 0; i < NB; i++) {
		s[3].st.buckets[i] = i + 1;
		s[3].st.count += i + 1;
	}
	s[3].st.sum_ns = 1000;
	s[3].st.max_ns = UINT64_MAX;
	s[3].st.sources[RXLAT_SRC_XDP] = s[3].st.count;
	/*
	 * p50: rank 12826 of 25651; buckets 0..158 hold 12720, so the 106th
	 * of bucket 159 = [52556026, 57312752]: + 4756726 * 106 / 160.
	 */
	pct_d[0] = 52556026 + 3151330;
	pct_d[1] = rxlat_percentile(&s[3].st, 0.9);
	pct_d[2] = rxlat_percentile(&s[3].st, 0.99);
	pct_d[3] = rxlat_percentile(&s[3].st, 0.999);

	xdp_row_veth1(&x[0]);
	xdp_row(&x[1], "eth0", 2, RXLAT_QUEUE_OTHER, UINT64_MAX, 0, 0);
	xdp_row(&x[2], "eth1", 3, RXLAT_QUEUE_ALL, 0, 0, 0);

	report_init(&r);
	report_series(&r, &it, s, 4);
	r.xdp = x;
	r.nxdp = 3;

	line = render(rxlat_report_json, &r);
	if (!line)
		goto out;
	len = strlen(line);
	if (!len || line[len - 1] != '\n' || strchr(line, '\n') != line + len - 1)
		check_fail("not exactly one line");
	if (!strstr(line, "\"interval_s\":1.0,"))
		check_fail("interval_s not printed as 1.0");
	root = json_tokener_parse(line);
	if (!root || !json_object_is_type(root, json_type_object)) {
		check_fail("output does not parse as a JSON object");
		goto out;
	}

	expect_keys(root, "report", 11);
	expect_str(root, "time", "2026-11-22T10:00:01.123Z");
	expect_str(root, "from", "stamp");
	o = get(root, "interval_s", json_type_double);
	if (o && json_object_get_double(o) != 1.0)
		check_fail("interval_s %g", json_object_get_double(o));
	o = get(root, "final", json_type_boolean);
	if (o && json_object_get_boolean(o))
		check_fail("final is true");

	o = get(root, "attach", json_type_object);
	if (o) {
		expect_keys(o, "attach", RXLAT_NR_STAGES);
		expect_str(o, "ip_rcv", "fentry:ip_rcv");
		expect_str(o, "tcp_do_rcv", "fentry:tcp_v4_do_rcv+tcp_v6_do_rcv");
		expect_str(o, "tcp_data_queue", "fentry:tcp_data_queue");
		get(o, "udp_queue_rcv", json_type_null);
		get(o, "sock_read", json_type_null);
	}
	o = get(root, "unavailable", json_type_object);
	if (o) {
		expect_keys(o, "unavailable", 1);
		expect_str(o, "udp_queue_rcv", "no BTF for udp_queue_rcv_one_skb");
	}
	expect_coverage(root);
	a = get(root, "unreached", json_type_array);
	if (a && json_object_array_length(a) != 1) {
		check_fail("%zu unreached, want 1", json_object_array_length(a));
	} else if (a) {
		o = json_object_array_get_idx(a, 0);
		expect_keys(o, "unreached[0]", 2);
		expect_str(o, "ifname", "flannel.1");
		expect_str(o, "kind", "vxlan");
	}

	a = get(root, "series", json_type_array);
	if (a && json_object_array_length(a) != 3)
		check_fail("%zu series, want 3", json_object_array_length(a));
	else if (a) {
		expect_series(json_object_array_get_idx(a, 0), &s[0], "ve\"th\\1/", NULL, pct_a);
		expect_series(json_object_array_get_idx(a, 1), &s[1], "other", "other", pct_b);
		expect_series(json_object_array_get_idx(a, 2), &s[3], "eth0", "3", pct_d);
	}

	a = get(root, "xdp", json_type_array);
	if (a && json_object_array_length(a) != 3)
		check_fail("%zu xdp rows, want 3", json_object_array_length(a));
	else if (a) {
		o = json_object_array_get_idx(a, 0);
		expect_keys(o, "xdp row", 11);
		expect_str(o, "ifname", "veth1");
		expect_u64(o, "ifindex", 5);
		expect_u64(o, "queue", 0);
		expect_u64(o, "seen", 100);
		expect_u64(o, "stamped", 98);
		expect_u64(o, "meta_refused", 2);
		expect_u64(o, "polls", 40);
		expect_u64(o, "polls_full", 1);
		expect_u64(o, "polls_ksoftirqd", 3);
		expect_u64(o, "polls_thread", 0);
		expect_u64(o, "poll_cpu", 2);
		o = json_object_array_get_idx(a, 1);
		expect_str(o, "ifname", "eth0");
		expect_str(o, "queue", "other");
		expect_u64(o, "seen", UINT64_MAX);
		expect_u64(o, "stamped", 0);
		expect_keys(o, "xdp row without polls", 10); /* no poll_cpu */
		o = json_object_array_get_idx(a, 2);
		get(o, "queue", json_type_null);
	}
out:
	json_object_put(root);
	free(line);
	check_done("json_report");
}

static void test_json_final_empty(void)
{
	struct json_object *root = NULL, *o;
	struct rxlat_report r;
	char *line;

	report_init(&r);
	r.final = true;
	r.interval_s = 0.25;
	r.time.tv_nsec = 0;
	r.from = RXLAT_FROM_SCHEDULE;
	line = render(rxlat_report_json, &r);
	if (!line)
		goto out;
	root = json_tokener_parse(line);
	if (!root) {
		check_fail("output does not parse");
		goto out;
	}
	expect_str(root, "time", "2026-11-22T10:00:01.000Z");
	expect_str(root, "from", "schedule");
	o = get(root, "final", json_type_boolean);
	if (o && !json_object_get_boolean(o))
		check_fail("final is false");
	o = get(root, "interval_s", json_type_double);
	if (o && json_object_get_double(o) != 0.25)
		check_fail("interval_s %g", json_object_get_double(o));
	o = get(root, "series", json_type_array);
	if (o && json_object_array_length(o))
		check_fail("series not empty");
	o = get(root, "xdp", json_type_array);
	if (o && json_object_array_length(o))
		check_fail("xdp not empty");
out:
	json_object_put(root);
	free(line);
	check_done("json_report_final_empty");
}

/* --drops and --slow: their sections, only when on */
static void test_drops_slow(void)
{
	struct rxlat_drop_row d = {
		.ifname = "veth1", .ifindex = 2, .queue = 3, .reason = "NETFILTER_DROP"
	};
	struct json_object *root = NULL, *a, *o;
	struct rxlat_report r;
	char *line = NULL, *text = NULL;

	report_init(&r);
	line = render(rxlat_report_json, &r);
	root = line ? json_tokener_parse(line) : NULL;
	if (!root || json_object_object_get_ex(root, "drops", NULL) ||
	    json_object_object_get_ex(root, "slow", NULL))
		check_fail("drops or slow in a report without them");
	json_object_put(root);
	free(line);

	d.st.buckets[rxlat_hist_bucket(1500)] = 7;
	d.st.count = 7;
	d.st.sum_ns = 7 * 1500;
	d.st.max_ns = 1500;
	r.drops_on = true;
	r.drops = &d;
	r.ndrops = 1;
	r.drops_lost = 2;
	r.slow_on = true;
	r.slow_sent = 5;
	r.slow_suppressed = 9;
	r.slow_lost = 1;
	line = render(rxlat_report_json, &r);
	root = line ? json_tokener_parse(line) : NULL;
	if (!root) {
		check_fail("output does not parse");
		goto out;
	}
	a = get(root, "drops", json_type_array);
	if (a && json_object_array_length(a) != 1)
		check_fail("%zu drop rows", json_object_array_length(a));
	if (a && json_object_array_length(a) == 1) {
		o = json_object_array_get_idx(a, 0);
		expect_str(o, "reason", "NETFILTER_DROP");
		expect_str(o, "ifname", "veth1");
		if (json_object_get_int(get(o, "queue", json_type_int)) != 3 ||
		    json_object_get_int(get(o, "count", json_type_int)) != 7)
			check_fail("queue or count of the drop row");
	}
	if (json_object_get_int(get(root, "drops_lost", json_type_int)) != 2)
		check_fail("drops_lost");
	o = get(root, "slow", json_type_object);
	if (o && (json_object_get_int(get(o, "sent", json_type_int)) != 5 ||
		  json_object_get_int(get(o, "suppressed", json_type_int)) != 9 ||
		  json_object_get_int(get(o, "lost", json_type_int)) != 1))
		check_fail("slow counts");
	text = render(rxlat_report_text, &r);
	if (text && !strstr(text, "drops (time from the stamp to the drop), 2 not counted: the "
				  "drop map is full:\n"))
		check_fail("text drops header: %s", text);
	if (text && !strstr(text, "veth1       3  NETFILTER_DROP      7     1.50 us     1.50 us\n"))
		check_fail("text drop row: %s", text);
	if (text && !strstr(text, "slow records: 5 written, 9 held back by --slow-rate, 1 lost "
				  "(ring buffer full)\n"))
		check_fail("text slow line: %s", text);
out:
	json_object_put(root);
	free(line);
	free(text);
	check_done("drops_and_slow_sections");
}

/*
 * The series are written without json-c's tree; what is written must be
 * what json-c itself prints for the same members: parse each line and print
 * it again with json-c, byte for byte the same. Names that json-c must
 * escape (quotes, backslash, control characters) and that it passes
 * through (slash, bytes above 0x7e), every kind of queue, and the extremes
 * of the numbers.
 */
static void test_json_as_json_c_prints(void)
{
	static const char *const names[] = {
		"eth0", "ve\"th", "b\\s/1", "a\tb\x01\x1f", "\xc3\xa9th\xff\x7f", "0123456789abcde",
		""
	};
	static const int queues[] = { RXLAT_QUEUE_ALL, RXLAT_QUEUE_OTHER, 0, 255 };
	struct rxlat_series s[7];
	struct json_object *root, *a;
	struct rxlat_report r;
	struct model_iter it;
	char *line;
	const char *again;
	size_t n;

	memset(s, 0, sizeof(s));
	for (size_t i = 0; i < 7; i++) {
		name_series(&s[i], (enum rxlat_stage)(i % RXLAT_NR_STAGES), names[i],
			    i ? (__u32)(UINT32_MAX - i) : 1, queues[i % 4]);
		for (int b = (int)i; b < NB; b += 7 + (int)i)
			s[i].st.buckets[b] = i == 5 ? UINT64_MAX : (__u64)b + 1;
		s[i].st.buckets[LAST] = i & 1;
		s[i].st.count = i == 5 ? UINT64_MAX : 1000 * i + 1;
		s[i].st.sum_ns = i == 5 ? UINT64_MAX : 99999 * i;
		s[i].st.max_ns = i == 5 ? UINT64_MAX : 1ULL << (20 + i);
		for (int k = 0; k < RXLAT_NR_SOURCES; k++)
			s[i].st.sources[k] = i == 5 ? UINT64_MAX : (__u64)(i * k);
	}
	report_init(&r);
	report_series(&r, &it, s, 7);

	line = render(rxlat_report_json, &r);
	if (!line)
		goto out;
	root = json_tokener_parse(line);
	a = root ? get(root, "series", json_type_array) : NULL;
	if (!a) {
		check_fail("output does not parse, or has no series: %s", line);
		goto free;
	}
	if (json_object_array_length(a) != 7)
		check_fail("%zu series, want 7", json_object_array_length(a));
	again = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	n = strlen(line) - 1;
	if (strlen(again) != n || strncmp(again, line, n))
		check_fail("json-c prints it otherwise:\n%s\nvs\n%s", again, line);
	if (!strstr(line, "\"ifname\":\"a\\tb\\u0001\\u001f\"") ||
	    !strstr(line, "\"ifname\":\"ve\\\"th\"") || !strstr(line, "\"ifname\":\"b\\\\s/1\"") ||
	    !strstr(line, "\"ifname\":\"\xc3\xa9th\xff\x7f\"") || !strstr(line, "\"ifname\":\"\""))
		check_fail("names not escaped as json-c does: %s", line);
free:
	json_object_put(root);
	free(line);
out:
	check_done("json_as_json_c_prints");
}

/*
 * Each series a renderer takes from the cursor is also added to the
 * report's heatmap (--heatmap), in text and JSON; a failure to take one
 * is the renderer's failure.
 */
static void test_series_from_cursor(void)
{
	int (*fns[2])(FILE *, const struct rxlat_report *) = { rxlat_report_text,
							       rxlat_report_json };
	struct rxlat_series s[5];
	struct rxlat_xdp_row x[2];
	struct rxlat_report r;
	struct model_iter it;

	text_fixture(&r, &it, s, x);
	for (int i = 0; i < 2; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f;

		rxlat_report_text_restart();
		r.heatmap = heatmap_new(0);
		if (!r.heatmap || heatmap_interval(r.heatmap, 1795341601.124, 1.0)) {
			check_fail("heatmap: out of memory");
			break;
		}
		free(render(fns[i], &r));
		/* the samples of the fixture's buckets: 60, 5 and 2 */
		if (heatmap_samples(r.heatmap) != 67)
			check_fail("%s: the heatmap has %llu samples, want 67", i ? "json" : "text",
				   (unsigned long long)heatmap_samples(r.heatmap));
		heatmap_free(r.heatmap);
		r.heatmap = NULL;

		report_series(&r, &it, s, 5);
		it.fail_at = 2;
		f = open_memstream(&buf, &len);
		if (f && fns[i](f, &r) != -ENOMEM)
			check_fail("%s: a series that cannot be taken must fail the report",
				   i ? "json" : "text");
		if (f)
			fclose(f);
		free(buf);
		it.fail_at = 0;
	}
	check_done("series_from_cursor");
}

int main(int argc, char **argv)
{
	check_args(argc, argv);
	ref_init();
	CHECK_RUN(test_json);
	CHECK_RUN(test_json_final_empty);
	CHECK_RUN(test_drops_slow);
	CHECK_RUN(test_series_from_cursor);
	CHECK_RUN(test_json_as_json_c_prints);
	return check_exit_status();
}
