// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the text renderer (the JSON one: report_json_test.c; the
 * histogram and the percentiles both print: hist_test.c). One line per
 * check, "PASS <name>" or "FAIL <name>: <reason>"; the exit status is 1
 * when any check failed.
 *
 * Expected values are written out, never derived from the functions under
 * test.
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

/* clang-format off: one literal per output line, rows kept readable */
#define TEXT_HEAD                                                                      \
	"attach: napi_wait=off  ip_rcv=fentry:ip_rcv"                                  \
	"  tcp_do_rcv=fentry:tcp_v4_do_rcv+tcp_v6_do_rcv"                              \
	"  tcp_data_queue=fentry:tcp_data_queue"                                       \
	"  udp_queue_rcv=unavailable (no BTF for udp_queue_rcv_one_skb)"               \
	"  sock_read=off\n"                                                            \
	"measures: napi_wait=none  ip_rcv=tcp,udp  tcp_do_rcv=tcp  tcp_data_queue=tcp" \
	"  udp_queue_rcv=none"                                                         \
	"  sock_read=none\n"
#define HELD_LEGEND                                                                            \
	"(held: ooo=N) counts reads of skbs held behind out-of-order data, one per skb read, " \
	"not segments\n"
#define NETNS_LEGEND                                                                       \
	"ifname= is where a packet was stamped: in a series with netns=, an interface of " \
	"rxlat's own namespace, not one of that namespace's\n"

/* The series of the fixture, as every report of a run prints them. */
#define TEXT_SERIES(held_legend)                                                                 \
	"ip_rcv  ifname=veth1 queue=2  (sources: xdp=60 kernel=0 tc=0 none=0)\n"                 \
	"     usecs               : count     distribution\n"                                    \
	"     0.239 -> 0.476      : 3        |**                                      |\n"       \
	"     0.477 -> 0.953      : 57       |****************************************|\n"       \
	"count 60  mean 585 ns  p50 591 ns  p90 612 ns  p99 618 ns  p99.9 618 ns  max 630 ns\n"  \
	"\n"                                                                                     \
	"tcp_data_queue  ifname=other queue=other  (sources: xdp=3 kernel=2 tc=0 none=7)\n"      \
	"     usecs               : count     distribution\n"                                    \
	"     0.954 -> 1.907      : 3        |****************************************|\n"       \
	"     1.908 -> 3.814      : 0        |                                        |\n"       \
	"     3.815 -> 7.629      : 0        |                                        |\n"       \
	"     7.630 -> 15.258     : 0        |                                        |\n"       \
	"    15.259 -> 30.517     : 0        |                                        |\n"       \
	"    30.518 -> 61.035     : 0        |                                        |\n"       \
	"    61.036 -> 122.070    : 0        |                                        |\n"       \
	"   122.071 -> 244.140    : 0        |                                        |\n"       \
	"   244.141 -> 488.281    : 0        |                                        |\n"       \
	"   488.282 -> 976.562    : 0        |                                        |\n"       \
	"   976.563 -> 1953.125   : 0        |                                        |\n"       \
	"  1953.126 -> 3906.250   : 0        |                                        |\n"       \
	"  3906.251 -> 7812.500   : 2        |**************************              |\n"       \
	"count 5  mean 2.00 ms  p50 1.35 us  p90 5.00 ms  p99 5.00 ms  p99.9 5.00 ms  max 5.00 " \
	"ms\n"                                                                                   \
	"\n"                                                                                     \
	"udp_queue_rcv  ifname=eth0  (sources: xdp=0 kernel=0 tc=0 none=5)\n"                    \
	"count 0\n"                                                                              \
	"\n" held_legend                                                                         \
	"sock_read  ifname=lo  (sources: xdp=0 kernel=0 tc=2 none=0)  (held: ooo=3)\n"           \
	"     usecs               : count     distribution\n"                                    \
	"     7.630 -> 15.258     : 1        |****************************************|\n"       \
	"    15.259 -> 30.517     : 0        |                                        |\n"       \
	"    30.518 -> 61.035     : 0        |                                        |\n"       \
	"    61.036 -> 122.070    : 0        |                                        |\n"       \
	"   122.071 -> 244.140    : 0        |                                        |\n"       \
	"   244.141 -> 488.281    : 0        |                                        |\n"       \
	"   488.282 -> 976.562    : 0        |                                        |\n"       \
	"   976.563 -> 1953.125   : 1        |****************************************|\n"       \
	"count 2  mean 506 us  p50 12.8 us  p90 1.00 ms  p99 1.00 ms  p99.9 1.00 ms  max 1.00 "  \
	"ms\n"                                                                                   \
	"\n"                                                                                     \
	"xdp stamper:\n"                                                                         \
	"ifname  queue          seen       stamped  meta_refused\n"                              \
	"veth1       0           100            98             2\n"                              \
	"eth0    other  123456789012  123456789012             0\n"                              \
	"napi polls:\n"                                                                          \
	"ifname  queue  polls  pkts/poll  full  ksoftirqd  thread  cpu\n"                        \
	"veth1       0     40        2.5     1          3       0    2\n"                        \
	"\n"

/* The first report of a run: the attach and measures lines, the legend. */
static const char text_want[] =
    "report at 10:00:01, covering the last 1.00 s\n" TEXT_HEAD "\n" TEXT_SERIES(HELD_LEGEND);
/* clang-format on */

static void test_text(void)
{
	struct rxlat_series s[5];
	struct rxlat_xdp_row x[2];
	struct rxlat_report r;
	struct model_iter it;
	char *got;

	rxlat_report_text_restart();
	text_fixture(&r, &it, s, x);
	got = render(rxlat_report_text, &r);
	if (got)
		compare_text(got, text_want);
	free(got);
	check_done("text_report");
}

/*
 * The reports after the first: their own first line, no attach and
 * measures lines nor legends while nothing changed, both lines again after
 * a change (a stage unavailable from now on), once.
 */
static void test_text_head_once(void)
{
	struct rxlat_series s[5];
	struct rxlat_xdp_row x[2];
	struct rxlat_report r;
	struct model_iter it;
	char *got;

	rxlat_report_text_restart();
	text_fixture(&r, &it, s, x);
	free(render(rxlat_report_text, &r));

	r.time.tv_sec += 1;
	r.interval_s = 0.25;
	got = render(rxlat_report_text, &r);
	if (got)
		compare_text(got, "report at 10:00:02, covering the last 250 ms\n"
				  "\n" TEXT_SERIES(""));
	free(got);

	r.time.tv_sec += 1;
	r.interval_s = 1;
	r.attach[RXLAT_STAGE_TCP_DATA_QUEUE] = NULL;
	r.unavailable[RXLAT_STAGE_TCP_DATA_QUEUE] = "gone";
	r.coverage[RXLAT_STAGE_TCP_DATA_QUEUE] =
	    (struct rxlat_coverage){ 0, { [RXLAT_PROTO_TCP] = "gone" } };
	got = render(rxlat_report_text, &r);
	if (got)
		compare_text(got, "report at 10:00:03, covering the last 1.00 s\n"
				  "attach: napi_wait=off  ip_rcv=fentry:ip_rcv"
				  "  tcp_do_rcv=fentry:tcp_v4_do_rcv+tcp_v6_do_rcv"
				  "  tcp_data_queue=unavailable (gone)"
				  "  udp_queue_rcv=unavailable (no BTF for udp_queue_rcv_one_skb)"
				  "  sock_read=off\n"
				  "measures: napi_wait=none  ip_rcv=tcp,udp  tcp_do_rcv=tcp"
				  "  tcp_data_queue=none"
				  "  udp_queue_rcv=none  sock_read=none\n"
				  "\n" TEXT_SERIES(""));
	free(got);

	r.time.tv_sec += 1;
	r.final = true;
	got = render(rxlat_report_text, &r);
	if (got)
		compare_text(got, "final report at 10:00:04, covering the last 1.00 s\n"
				  "\n" TEXT_SERIES(""));
	free(got);

	/* --from schedule: said under the measures line */
	rxlat_report_text_restart();
	r.from = RXLAT_FROM_SCHEDULE;
	got = render(rxlat_report_text, &r);
	if (got && !strstr(got, "  sock_read=none\n"
				"from: the schedule of each packet's poll (napi_wait's start), not "
				"its stamp; source none: no schedule known\n\n"))
		check_fail("no from line under the measures line:\n%s", got);
	free(got);
	check_done("text_report_head_once");
}

/*
 * A series of another namespace is named by the interface where its
 * packets were stamped, rxlat's: said once, above the first of them.
 */
static void test_text_netns_legend(void)
{
	struct rxlat_series s[3] = {};
	struct rxlat_report r;
	struct model_iter it;
	char *got;

	rxlat_report_text_restart();
	report_init(&r);
	name_series(&s[0], RXLAT_STAGE_IP_RCV, "eth0", 2, RXLAT_QUEUE_ALL);
	s[0].st.sources[RXLAT_SRC_NONE] = 1;
	for (int i = 1; i < 3; i++) {
		s[i].nlabels = 0;
		rxlat_label_str(
		    &s[i], "stage", RXLAT_LABEL_BARE, "%s",
		    rxlat_stage_names[i == 1 ? RXLAT_STAGE_IP_RCV : RXLAT_STAGE_SOCK_READ]);
		rxlat_label_str(&s[i], "netns", 0, "pod1");
		rxlat_label_num(&s[i], "netns_ino", RXLAT_LABEL_JSON_ONLY, 4026532577);
		rxlat_label_str(&s[i], "ifname", 0, "eth0");
		rxlat_label_num(&s[i], "ifindex", RXLAT_LABEL_JSON_ONLY, 2);
		rxlat_label_null(&s[i], "queue", "all");
		s[i].st.sources[RXLAT_SRC_NONE] = 1;
	}
	report_series(&r, &it, s, 3);
	got = render(rxlat_report_text, &r);
	if (got)
		compare_text(
		    got, "report at 10:00:01, covering the last 1.00 s\n" TEXT_HEAD "\n"
			 "ip_rcv  ifname=eth0  (sources: xdp=0 kernel=0 tc=0 none=1)\n"
			 "count 0\n"
			 "\n" NETNS_LEGEND
			 "ip_rcv  netns=pod1 ifname=eth0  (sources: xdp=0 kernel=0 tc=0 none=1)\n"
			 "count 0\n"
			 "\n"
			 "sock_read  netns=pod1 ifname=eth0  (sources: xdp=0 kernel=0 tc=0 "
			 "none=1)\n"
			 "count 0\n"
			 "\n");
	free(got);
	report_series(&r, &it, &s[1], 1);
	got = render(rxlat_report_text, &r);
	if (got)
		compare_text(
		    got, "report at 10:00:01, covering the last 1.00 s\n"
			 "\n"
			 "ip_rcv  netns=pod1 ifname=eth0  (sources: xdp=0 kernel=0 tc=0 none=1)\n"
			 "count 0\n"
			 "\n");
	free(got);
	check_done("text_report_netns_legend");
}

/* One series at ns or samples at ns, rendered alone; its histogram's unit line. */
static char *render_one(const char *ifname, __u64 ns, __u64 n)
{
	struct rxlat_series s = {};
	struct rxlat_report r;
	struct model_iter it;

	report_init(&r);
	rxlat_label_str(&s, "stage", RXLAT_LABEL_BARE, "ip_rcv");
	rxlat_label_str(&s, "ifname", 0, "%s", ifname);
	s.st.buckets[rxlat_hist_bucket(ns)] = n;
	s.st.count = n;
	s.st.sum_ns = ns * n;
	s.st.max_ns = ns;
	s.st.sources[RXLAT_SRC_XDP] = n;
	report_series(&r, &it, &s, 1);
	return render(rxlat_report_text, &r);
}

/* The unit line of a text histogram: "     usecs  ..." as its word */
static const char *unit_of(const char *text)
{
	if (!text)
		return "none";
	if (strstr(text, " usecs "))
		return "usecs";
	if (strstr(text, " nsecs "))
		return "nsecs";
	return "none";
}

/*
 * One unit for every series in every report of a run: a series whose
 * samples cross a microsecond between reports, or a new one of fast
 * samples beside slow ones, never reads in another unit than before.
 */
static void test_text_unit_kept(void)
{
	char *a = render_one("unitx", 300, 3), *b = render_one("unitx", 5000000, 3),
	     *c = render_one("unitx", 300, 3), *d = render_one("unity", 300, 3);

	if (strcmp(unit_of(a), unit_of(b)))
		check_fail("300 ns, then 5 ms samples of one series: %s, then %s", unit_of(a),
			   unit_of(b));
	if (strcmp(unit_of(b), unit_of(c)))
		check_fail("5 ms, then 300 ns samples of one series: %s, then %s", unit_of(b),
			   unit_of(c));
	if (strcmp(unit_of(d), unit_of(b)))
		check_fail("300 ns samples of a new series: %s, the others' %s", unit_of(d),
			   unit_of(b));
	if (!a || !strstr(a, "     usecs               : count     distribution\n"
			     "     0.239 -> 0.476      : 3 "))
		check_fail("300 ns samples not as rows of exact usecs: %s", a ? a : "(none)");
	if (!b || !strstr(b, "  3906.251 -> 7812.500   : 3 "))
		check_fail("5 ms samples not as rows of exact usecs: %s", b ? b : "(none)");
	free(a);
	free(b);
	free(c);
	free(d);
	check_done("text_unit_kept");
}

static void test_text_final_empty(void)
{
	struct rxlat_report r;
	char *got;
	int s;

	report_init(&r);
	r.final = true;
	for (s = 0; s < RXLAT_NR_STAGES; s++) {
		r.attach[s] = NULL;
		r.unavailable[s] = NULL;
		r.coverage[s] = coverage[RXLAT_STAGE_SOCK_READ]; /* off */
	}
	/* attached, and a protocol of its own not measured: the reason is said */
	r.attach[RXLAT_STAGE_SOCK_READ] = "tp_btf:sock_recv_length";
	r.coverage[RXLAT_STAGE_SOCK_READ] =
	    (struct rxlat_coverage){ TCP_, { [RXLAT_PROTO_UDP] = "no UDP read hook here" } };
	rxlat_report_text_restart();
	got = render(rxlat_report_text, &r);
	if (got)
		compare_text(got, "final report at 10:00:01, covering the last 1.00 s\n"
				  "attach: napi_wait=off  ip_rcv=off  tcp_do_rcv=off"
				  "  tcp_data_queue=off  udp_queue_rcv=off"
				  "  sock_read=tp_btf:sock_recv_length\n"
				  "measures: napi_wait=none  ip_rcv=none  tcp_do_rcv=none"
				  "  tcp_data_queue=none  udp_queue_rcv=none"
				  "  sock_read=tcp (udp not measured: no UDP read hook here)\n"
				  "\n");
	free(got);
	check_done("text_report_final_empty");
}

/*
 * Threaded polls under thread, in both sets (the fallback sees the wake-up
 * of the thread): no line under the table, whatever napi_wait's attach.
 */
static void test_text_napi_wait_threads(void)
{
	static const char table[] =
	    "napi polls:\n"
	    "ifname  queue  polls  pkts/poll  full  ksoftirqd  thread  cpu\n"
	    "veth1       0     40        2.5     1          3       5    2\n";
	struct rxlat_series s[5];
	struct rxlat_xdp_row x[2];
	struct rxlat_report r;
	struct model_iter it;
	char *got;

	for (int i = 0; i < 3; i++) {
		static const char *const how[3] = { "tp_btf:softirq_raise,sched_waking",
						    "fentry:__napi_schedule,__napi_schedule_irqoff",
						    NULL };
		const char *after;

		rxlat_report_text_restart();
		text_fixture(&r, &it, s, x);
		x[0].polls_thread = 5;
		r.attach[RXLAT_STAGE_NAPI_WAIT] = how[i];
		got = render(rxlat_report_text, &r);
		after = got ? strstr(got, table) : NULL;
		if (got && !after)
			check_fail("%s: no polls table with a thread column of 5",
				   how[i] ? how[i] : "off");
		else if (after && after[sizeof(table) - 1] == '(')
			check_fail("%s: a line under the polls table: %s", how[i] ? how[i] : "off",
				   after + sizeof(table) - 1);
		free(got);
	}
	check_done("text_napi_wait_threads");
}

int main(int argc, char **argv)
{
	check_args(argc, argv);
	CHECK_RUN(test_text);
	CHECK_RUN(test_text_head_once);
	CHECK_RUN(test_text_netns_legend);
	CHECK_RUN(test_text_final_empty);
	CHECK_RUN(test_text_napi_wait_threads);
	CHECK_RUN(test_text_unit_kept);
	return check_exit_status();
}
