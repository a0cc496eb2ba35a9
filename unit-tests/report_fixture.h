/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the renderers' unit tests share: a bucket table built the slow way
 * (hist_ref.h), a report and its series as the model fills them, the
 * model's report cursor over an array of them, and a renderer run into a
 * string.
 */
#ifndef RXLAT_REPORT_FIXTURE_H
#define RXLAT_REPORT_FIXTURE_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "hist_ref.h"
#include "model.h"
#include "report.h"
#include "rxlat_hist.h"

/* ----- the model's report cursor ----- */

/*
 * The renderers take a report's series with model_report_next(); their
 * tests link this one in place of collector/read/model.c's, a cursor over
 * the series as the test wrote them, labels and counts exactly (the
 * model's own cursor is tested in model_test.c). fail_at: taking the
 * series at that index fails with -ENOMEM (0: never).
 */
struct model_iter {
	const struct rxlat_series *s;
	size_t n, i, fail_at;
};

int model_report_next(struct model_iter *it, struct rxlat_series *out)
{
	if (it->fail_at && it->i == it->fail_at)
		return -ENOMEM;
	if (it->i == it->n)
		return 0;
	*out = it->s[it->i++];
	return 1;
}

/* r's series: the n of s, through it. */
static inline void report_series(struct rxlat_report *r, struct model_iter *it,
				 const struct rxlat_series *s, size_t n)
{
	*it = (struct model_iter){ .s = s, .n = n };
	r->series = it;
}

/* ----- renderers ----- */

static const char *const attach[RXLAT_NR_STAGES] = {
	[RXLAT_STAGE_IP_RCV] = "fentry:ip_rcv",
	[RXLAT_STAGE_TCP_DO_RCV] = "fentry:tcp_v4_do_rcv+tcp_v6_do_rcv",
	[RXLAT_STAGE_TCP_DATA_QUEUE] = "fentry:tcp_data_queue",
};

static const char *const unavailable[RXLAT_NR_STAGES] = {
	[RXLAT_STAGE_UDP_QUEUE_RCV] = "no BTF for udp_queue_rcv_one_skb",
};

#define TCP_	  RXLAT_PROTO_BIT(RXLAT_PROTO_TCP)
#define UDP_	  RXLAT_PROTO_BIT(RXLAT_PROTO_UDP)
#define NOT_ASKED "stage not asked for (--stages)"

/* As the plan gives it for the attach points above (sock_read off). */
static const struct rxlat_coverage coverage[RXLAT_NR_STAGES] = {
	[RXLAT_STAGE_NAPI_WAIT] = { 0, { NOT_ASKED, NOT_ASKED } },
	[RXLAT_STAGE_IP_RCV] = { TCP_ | UDP_, { NULL } },
	[RXLAT_STAGE_TCP_DO_RCV] = { TCP_, { NULL } },
	[RXLAT_STAGE_TCP_DATA_QUEUE] = { TCP_, { NULL } },
	[RXLAT_STAGE_UDP_QUEUE_RCV] = { 0,
					{ [RXLAT_PROTO_UDP] =
					      "no BTF for udp_queue_rcv_one_skb" } },
	[RXLAT_STAGE_SOCK_READ] = { 0, { NOT_ASKED, NOT_ASKED } },
};

/* A series' labels, as the model gives them (collector/read/model.c). */
static inline void name_series(struct rxlat_series *s, enum rxlat_stage stage, const char *ifname,
			       __u32 ifindex, int queue)
{
	s->nlabels = 0;
	rxlat_label_str(s, "stage", RXLAT_LABEL_BARE, "%s", rxlat_stage_names[stage]);
	rxlat_label_str(s, "ifname", 0, "%.*s", RXLAT_IFNAME_LEN, ifname);
	rxlat_label_num(s, "ifindex", RXLAT_LABEL_JSON_ONLY, ifindex);
	if (queue == RXLAT_QUEUE_ALL)
		rxlat_label_null(s, "queue", "all");
	else if (queue == RXLAT_QUEUE_OTHER)
		rxlat_label_str(s, "queue", 0, "other");
	else
		rxlat_label_num(s, "queue", 0, (__u64)queue);
}

static const struct rxlat_unreached_set unreached = { 1, { { "flannel.1", "vxlan" } } };

/* A report without series, as of 2026-11-22T10:00:01.123Z. */
static inline void report_init(struct rxlat_report *r)
{
	static struct model_iter none;

	memset(r, 0, sizeof(*r));
	r->series = &none;
	r->time.tv_sec = 1795341601; /* 2026-11-22T10:00:01Z */
	r->time.tv_nsec = 123999999; /* the ms are truncated, not rounded */
	r->interval_s = 1.0;
	memcpy(r->attach, attach, sizeof(attach));
	memcpy(r->unavailable, unavailable, sizeof(unavailable));
	memcpy(r->coverage, coverage, sizeof(coverage));
	r->unreached = &unreached;
}

/*
 * Runs a renderer into a string; NULL on failure (reason set). The series
 * are taken from the first again: each report of a run has a cursor of its
 * own.
 */
static inline char *render(int (*fn)(FILE *, const struct rxlat_report *),
			   const struct rxlat_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	r->series->i = 0;
	if (!f) {
		check_fail("open_memstream: %s", strerror(errno));
		return NULL;
	}
	err = fn(f, r);
	if (fclose(f) || err) {
		check_fail("renderer returned %d", err);
		free(buf);
		return NULL;
	}
	return buf;
}

/* Points at the first difference, line by line, on one line of output. */
static inline void compare_text(const char *got, const char *want)
{
	int line = 1;
	size_t i = 0, start = 0;

	while (got[i] && got[i] == want[i]) {
		if (got[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	if (!got[i] && !want[i])
		return;
	check_fail("line %d differs: got \"%.*s\", want \"%.*s\"", line,
		   (int)strcspn(got + start, "\n"), got + start, (int)strcspn(want + start, "\n"),
		   want + start);
}

/* One row of the stamper's counters. */
static inline void xdp_row(struct rxlat_xdp_row *x, const char *ifname, __u32 ifindex, int queue,
			   __u64 seen, __u64 stamped, __u64 meta_refused)
{
	memset(x, 0, sizeof(*x));
	snprintf(x->ifname, sizeof(x->ifname), "%s", ifname);
	x->ifindex = ifindex;
	x->queue = queue;
	x->seen = seen;
	x->stamped = stamped;
	x->meta_refused = meta_refused;
	x->cpu = -1;
}

/* The veth1 row, the first of both the text and the JSON report. */
static inline void xdp_row_veth1(struct rxlat_xdp_row *x)
{
	xdp_row(x, "veth1", 5, 0, 100, 98, 2);
	x->polls = 40;
	x->polls_full = 1;
	x->polls_ksoftirqd = 3;
	x->cpu = 2;
}

/*
 * The report of the text tests, with its 5 series s (through it) and 2
 * stamper rows x (as the text renderer's tests and the cursor's test want
 * them).
 */
static inline void text_fixture(struct rxlat_report *r, struct model_iter *it,
				struct rxlat_series s[5], struct rxlat_xdp_row x[2])
{
	report_init(r);
	memset(s, 0, 5 * sizeof(*s));

	/* the example of the familiar libbpf-tools look */
	name_series(&s[0], RXLAT_STAGE_IP_RCV, "veth1", 5, 2);
	s[0].st.buckets[rxlat_hist_bucket(300)] = 3;  /* [284, 309] */
	s[0].st.buckets[rxlat_hist_bucket(600)] = 57; /* [568, 618] */
	s[0].st.count = 60;
	s[0].st.sum_ns = 3 * 300 + 57 * 600;
	s[0].st.max_ns = 630;
	s[0].st.sources[RXLAT_SRC_XDP] = 60;

	/* spans into ms: us rows, with the empty rows in between */
	name_series(&s[1], RXLAT_STAGE_TCP_DATA_QUEUE, "other", 0, RXLAT_QUEUE_OTHER);
	s[1].st.buckets[rxlat_hist_bucket(1300)] = 3;	 /* [1237, 1348] */
	s[1].st.buckets[rxlat_hist_bucket(5000000)] = 2; /* [4645341, 5065779] */
	s[1].st.count = 5;
	s[1].st.sum_ns = 3 * 1300 + 2 * 5000000;
	s[1].st.max_ns = 5000000;
	s[1].st.sources[RXLAT_SRC_XDP] = 3;
	s[1].st.sources[RXLAT_SRC_KERNEL] = 2;
	s[1].st.sources[RXLAT_SRC_NONE] = 7;

	/* packets seen, none with a start time */
	name_series(&s[2], RXLAT_STAGE_UDP_QUEUE_RCV, "eth0", 2, RXLAT_QUEUE_ALL);
	s[2].st.sources[RXLAT_SRC_NONE] = 5;

	/* nothing at all: not printed */
	name_series(&s[3], RXLAT_STAGE_TCP_DO_RCV, "veth1", 5, 1);

	/* unit rounding: 13311 ns reads 13.3 us, 999999 ns 1.00 ms */
	name_series(&s[4], RXLAT_STAGE_SOCK_READ, "lo", 1, RXLAT_QUEUE_ALL);
	s[4].st.buckets[rxlat_hist_bucket(12345)] = 1;
	s[4].st.buckets[rxlat_hist_bucket(999999)] = 1;
	s[4].st.count = 2;
	s[4].st.sum_ns = 12345 + 999999;
	s[4].st.max_ns = 999999;
	s[4].st.sources[RXLAT_SRC_TC] = 2;
	s[4].st.counts[RXLAT_COUNT_HELD_OOO] = 3; /* printed: not 0 */
	report_series(r, it, s, 5);

	xdp_row_veth1(&x[0]);
	xdp_row(&x[1], "eth0", 2, RXLAT_QUEUE_OTHER, 123456789012ULL, 123456789012ULL, 0);
	r->xdp = x;
	r->nxdp = 2;
}

#endif
