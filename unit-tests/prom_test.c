// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of prom.c's text exposition over the model (collector/read)
 * without BPF or HTTP: a plain array stands in for the series array, plain
 * tables for the slots, names and stamper counters (prom_fixture.h).
 * Checks that every le is exactly the largest value of its bucket at each
 * export resolution, that coarse buckets are exact sums of the fine ones,
 * the baseline, that no counter goes down when slots share a name or a
 * stamper key goes away, label escaping, and that the exposition is the
 * same read in 1-byte pieces as in one; the protobuf exposition and the
 * content negotiation are prom_pb_test.c's. One line per check.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "prom_fixture.h"

static struct rxlat_model *model_of(const struct prom_metrics *m)
{
	for (int i = 0; i < 4; i++)
		if (made[i].m && made[i].m == m)
			return made[i].model;
	return NULL;
}

/* "0.000000064" -> 64: the label's decimal seconds as ns, exactly */
static __u64 le_ns(const char *s)
{
	__u64 ns = 0;
	int frac = -1;

	for (; *s && *s != '"'; s++) {
		if (*s == '.') {
			frac = 0;
			continue;
		}
		ns = ns * 10 + (__u64)(*s - '0');
		if (frac >= 0)
			frac++;
	}
	for (frac = frac < 0 ? 0 : frac; frac < 9; frac++)
		ns *= 10;
	return ns;
}

/* Every exported le holds its bucket's largest value and the next one not. */
static void test_le_exact(void)
{
	static struct rxlat_hist live[NSERIES];
	unsigned int ks[] = { 1, 2, 4, 8 };

	memset(live, 0, sizeof(live));
	slot_owner[0] = 1;
	names[1] = "eth0";
	sample(at(live, RXLAT_STAGE_IP_RCV, 0, 0), 1000, 1);
	for (int i = 0; i < 4; i++) {
		struct prom_metrics *m = new_metrics(live, ks[i], true);
		char *text = m ? scrape(m, 4096) : NULL, name[32];
		unsigned int nle = 0;
		__u32 prev = 0;

		for (const char *p = text ? strstr(text, "le=\"") : NULL; p;
		     p = strstr(p + 1, "le=\"")) {
			__u64 ns;
			__u32 b;

			nle++;
			if (!strncmp(p + 4, "+Inf", 4))
				continue;
			ns = le_ns(p + 4);
			b = rxlat_hist_bucket(ns);
			if (rxlat_hist_bucket(ns + 1) == b || rxlat_hist_le(b) != ns)
				check_fail("le %llu ns is not the top of bucket %u",
					   (unsigned long long)ns, b);
			if (nle > 1 && b - prev != RXLAT_HIST_SUB / ks[i])
				check_fail(
				    "le %llu ns: %u fine buckets after the previous, want %u",
				    (unsigned long long)ns, b - prev, RXLAT_HIST_SUB / ks[i]);
			prev = b;
		}
		CHECK_U64("exported buckets", nle, prom_nr_buckets(ks[i]));
		if (!text)
			check_fail("no exposition");
		snprintf(name, sizeof(name), "le_exact_%u_per_pow2", ks[i]);
		check_done(name);
		free(text);
		free_metrics(m);
	}
}

/* Coarse buckets are the fine ones summed: equal at each shared le. */
static void test_coarse_sums(void)
{
	static struct rxlat_hist live[NSERIES];
	struct prom_metrics *fine, *coarse;
	char *ft, *ct;
	unsigned int shared = 0;

	memset(live, 0, sizeof(live));
	srand(7);
	for (int i = 0; i < 5000; i++)
		sample(at(live, RXLAT_STAGE_TCP_DO_RCV, 0, 1), (__u64)rand() % 3000000,
		       (__u64)(rand() % 3 + 1));
	fine = new_metrics(live, 8, true);
	coarse = new_metrics(live, 2, true);
	ft = fine ? scrape(fine, 1 << 16) : NULL;
	ct = coarse ? scrape(coarse, 1 << 16) : NULL;
	for (const char *p = ct ? strstr(ct, "rxlat_stage_latency_seconds_bucket{") : NULL; p;
	     p = strstr(p + 1, "rxlat_stage_latency_seconds_bucket{")) {
		char series[256];
		size_t n = strcspn(p, " ");

		snprintf(series, sizeof(series), "%.*s", (int)n, p);
		CHECK_U64(series, value(ft, series), value(ct, series));
		shared++;
	}
	CHECK_U64(
	    "count, coarse vs fine",
	    value(ct, "rxlat_stage_latency_seconds_count{stage=\"tcp_do_rcv\",ifname=\"eth0\","
		      "queue=\"1\"}"),
	    value(ft, "rxlat_stage_latency_seconds_count{stage=\"tcp_do_rcv\",ifname=\"eth0\","
		      "queue=\"1\"}"));
	CHECK_U64("le values of the coarse export", shared, prom_nr_buckets(2));
	check_done("coarse_buckets_are_exact_sums");
	free(ft);
	free(ct);
	free_metrics(fine);
	free_metrics(coarse);
}

/*
 * The baseline is left out; two slots of one name are one series that only
 * grows; a slot keeps its first name; the overflow slot is "other".
 */
static void test_never_down(void)
{
	static struct rxlat_hist live[NSERIES];
	const char *cnt = "rxlat_stage_latency_seconds_count{stage=\"ip_rcv\",ifname=\"veth1\","
			  "queue=\"all\"}";
	struct prom_metrics *m;
	char *t1, *t2, *t3;

	memset(live, 0, sizeof(live));
	memset(slot_owner, 0, sizeof(slot_owner));
	slot_owner[0] = 1;
	names[1] = "veth1";
	sample(at(live, RXLAT_STAGE_IP_RCV, 0, 0), 500, 10); /* before the first interval */
	m = new_metrics(live, 2, false);
	if (!m || model_start(model_of(m))) {
		check_failed("never_down", "setup failed");
		free_metrics(m);
		return;
	}
	sample(at(live, RXLAT_STAGE_IP_RCV, 0, 1), 500, 3);
	t1 = scrape(m, 100);
	/* veth1 deleted, made again without -i: a new slot of the same name */
	slot_owner[1] = 2;
	names[2] = "veth1";
	sample(at(live, RXLAT_STAGE_IP_RCV, 1, 0), 700, 4);
	sample(at(live, RXLAT_STAGE_IP_RCV, MAX_IFACES, 2), 900, 5); /* the overflow slot */
	t2 = scrape(m, 100);
	names[1] = "renamed"; /* a slot keeps its first name */
	sample(at(live, RXLAT_STAGE_IP_RCV, 0, 0), 500, 1);
	t3 = scrape(m, 1);
	CHECK_U64("count after the baseline", value(t1, cnt), 3);
	CHECK_U64("two slots of one name", value(t2, cnt), 7);
	CHECK_U64("after a rename", value(t3, cnt), 8);
	CHECK_U64("overflow series",
		  value(t3, "rxlat_stage_latency_seconds_count{stage=\"ip_rcv\",ifname=\"other\","
			    "queue=\"all\"}"),
		  5);
	CHECK_U64("overflow counter",
		  value(t3, "rxlat_overflow_samples_total{stage=\"ip_rcv\",limit=\"max_ifaces\"}"),
		  5);
	CHECK_U64("sum in seconds, exact",
		  (__u64) !!strstr(t3, "_sum{stage=\"ip_rcv\",ifname=\"veth1\",queue=\"all\"} "
				       "0.0000048\n"),
		  1);
	check_done("never_down_slots_merged_by_name");
	free(t1);
	free(t2);
	free(t3);
	free_metrics(m);
}

/* Stamper counters: baseline, kept when a key goes, summed per label, -i filter. */
static void test_xdp(void)
{
	static struct rxlat_hist live[NSERIES];
	const char *seen = "rxlat_xdp_packets_seen_total{ifname=\"veth1\",queue=\"0\"}";
	struct rxlat_xdp_key k0[] = { { 1, 0 } };
	struct rxlat_xdp_counters v0[] = { XC(100, 100, 0) };
	struct prom_metrics *m;
	char *t1, *t2;

	memset(live, 0, sizeof(live));
	names[1] = "veth1";
	names[2] = "veth1";
	names[3] = "eth9";
	m = new_metrics(live, 2, true);
	memcpy(xkeys, k0, sizeof(k0));
	memcpy(xvals, v0, sizeof(v0));
	nx = 1;
	if (!m || model_start(model_of(m))) {
		check_failed("xdp", "setup failed");
		free_metrics(m);
		return;
	}
	xkeys[0] = (struct rxlat_xdp_key){ 1, 0 };
	xvals[0] = (struct rxlat_xdp_counters)XC(130, 120, 0);
	xvals[0].polls = 12;
	xvals[0].polls_ksoftirqd = 2;
	xvals[0].cpu = 3;
	xkeys[1] = (struct rxlat_xdp_key){ 3, 0 }; /* not named with -i */
	xvals[1] = (struct rxlat_xdp_counters)XC(9, 9, 0);
	xkeys[2] = (struct rxlat_xdp_key){ 0, 0 }; /* the stamper's own overflow */
	xvals[2] = (struct rxlat_xdp_counters)XC(4, 4, 4);
	nx = 3;
	t1 = scrape(m, 7);
	/* veth1 back under a new ifindex; the old key gone from the map */
	xkeys[0] = (struct rxlat_xdp_key){ 2, 0 };
	xvals[0] = (struct rxlat_xdp_counters)XC(5, 5, 0);
	nx = 1;
	t2 = scrape(m, 7);
	CHECK_U64("seen after the baseline", value(t1, seen), 30);
	CHECK_U64("kept and summed", value(t2, seen), 35);
	CHECK_U64("stamper overflow",
		  value(t2, "rxlat_xdp_meta_refused_total{ifname=\"other\",queue=\"other\"}"), 4);
	CHECK_U64("filtered out", (__u64) !!strstr(t1, "eth9"), 0);
	CHECK_U64("polls", value(t1, "rxlat_napi_polls_total{ifname=\"veth1\",queue=\"0\"}"), 12);
	CHECK_U64("polls in ksoftirqd",
		  value(t1, "rxlat_napi_polls_ksoftirqd_total{ifname=\"veth1\",queue=\"0\"}"), 2);
	CHECK_U64("the CPU of the last poll",
		  value(t1, "rxlat_napi_poll_cpu{ifname=\"veth1\",queue=\"0\"}"), 3);
	CHECK_U64("no CPU where no polls",
		  (__u64) !!strstr(t1, "rxlat_napi_poll_cpu{ifname=\"other\""), 0);
	check_done("xdp_counters_kept_and_summed");
	free(t1);
	free(t2);
	free_metrics(m);
	nx = 0;
}

static const struct rxlat_unreached_set unreached = {
	2, { { "flannel.1", "vxlan" }, { "t\"0", "geneve" } }
};

static void test_escaping_and_pieces(void)
{
	static struct rxlat_hist live[NSERIES];
	struct prom_metrics *m;
	char *whole, *bytes;

	memset(live, 0, sizeof(live));
	memset(slot_owner, 0, sizeof(slot_owner));
	slot_owner[2] = 3;
	names[3] = "a\"b\\c";
	sample(at(live, RXLAT_STAGE_SOCK_READ, 2, 1), 12345, 2);
	m = new_metrics(live, 4, true);
	if (m) {
		prom_metrics_set_unreached(m, &unreached);
		prom_metrics_set_from(m, RXLAT_FROM_SCHEDULE);
	}
	whole = m ? scrape(m, 1 << 20) : NULL;
	bytes = m ? scrape(m, 1) : NULL;
	if (!whole || !bytes || strcmp(whole, bytes))
		check_fail("1-byte reads differ from one read");
	/* a sample per tunnel that hides containers, escaped like any name */
	if (whole &&
	    !strstr(whole, "\n# TYPE rxlat_unreached_interfaces gauge\n"
			   "rxlat_unreached_interfaces{ifname=\"flannel.1\",kind=\"vxlan\"} 1\n"
			   "rxlat_unreached_interfaces{ifname=\"t\\\"0\",kind=\"geneve\"} 1\n"
			   "# HELP rxlat_stage_measured "))
		check_fail("rxlat_unreached_interfaces not as wanted");
	if (whole && !strstr(whole, "ifname=\"a\\\"b\\\\c\",queue=\"1\""))
		check_fail("ifname not escaped");
	if (whole &&
	    !strstr(whole, "rxlat_build_info{version=\"" RXLAT_VERSION
			   "\",stage=\"ip_rcv\",attach=\"tp_btf:x\",from=\"schedule\"} 1\n"))
		check_fail("build_info missing");
	/* a sample per protocol the stage is about, the reason in no label */
	if (whole && !strstr(whole, "\n# TYPE rxlat_stage_measured gauge\n"
				    "rxlat_stage_measured{stage=\"ip_rcv\",proto=\"tcp\"} 1\n"
				    "rxlat_stage_measured{stage=\"ip_rcv\",proto=\"udp\"} 0\n"
				    "# HELP rxlat_build_info "))
		check_fail("rxlat_stage_measured not as wanted");
	/* held reads are not segments: nstat's out-of-order counters never match */
	if (whole &&
	    !strstr(whole, "\n# HELP rxlat_stage_held_total Reads of TCP skbs held behind "
			   "out-of-order data (ooo), one per skb read, not segments: not in "
			   "the histogram nor the sources unless --include-ooo.\n"
			   "# TYPE rxlat_stage_held_total counter\n"))
		check_fail("rxlat_stage_held_total's HELP not as wanted");
		/* build_info last: a scrape that ends with it is whole */
#define LAST_LINE_END "stage=\"sock_read\",attach=\"none\",from=\"schedule\"} 1\n"
	if (whole && !strstr(whole, LAST_LINE_END))
		check_fail("no build_info line of sock_read");
	else if (whole && strcmp(strstr(whole, LAST_LINE_END), LAST_LINE_END))
		check_fail("build_info is not the last family");
#undef LAST_LINE_END
	check_done("escaping_and_piecewise_reads");
	free(whole);
	free(bytes);
	free_metrics(m);
}

int main(int argc, char **argv)
{
	check_args(argc, argv);
	CHECK_RUN(test_le_exact);
	CHECK_RUN(test_coarse_sums);
	CHECK_RUN(test_never_down);
	CHECK_RUN(test_xdp);
	CHECK_RUN(test_escaping_and_pieces);
	return check_exit_status();
}
