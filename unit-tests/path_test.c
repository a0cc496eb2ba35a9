// SPDX-License-Identifier: GPL-2.0
/*
 * One series from its samples in the hooks' store to every output, through
 * the code rxlat runs: the store laid over a flat array (unit.h), the model
 * (collector/read), and the text and JSON reports and the Prometheus
 * exposition (collector/render). The renderers' own tests give them series
 * as they please; this one checks that what the hooks counted is what each
 * output says. One line per check; exit status 1 when any failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "unit.h"
#include "model.h"
#include "prom.h"
#include "report.h"
#include "rxlat_hist.h"

#define DIMS ((struct rxlat_dims){ 0, 1, 1 })
#define VETH 100001 /* an ifindex no namespace has this early */

static void f_slots(void *ctx, __u64 *out, __u32 n)
{
	(void)ctx;
	for (__u32 i = 0; i < n; i++)
		out[i] = i ? 0 : VETH;
}

static void f_ifname(void *ctx, __u32 ifindex, char name[RXLAT_IFNAME_LEN])
{
	(void)ctx;
	snprintf(name, RXLAT_IFNAME_LEN, ifindex == VETH ? "veth1" : "if%u", ifindex);
}

/* What a renderer wrote into a string; NULL on failure (said). */
static char *render(int (*fn)(FILE *, const struct rxlat_report *), struct rxlat_model *m,
		    int parity)
{
	struct rxlat_report r = { .interval_s = 1.0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err = -ENOMEM;

	r.series = model_report_begin(m, parity);
	if (f && r.series)
		err = fn(f, &r);
	model_iter_free(r.series);
	if (!f || fclose(f) || err) {
		check_fail("renderer returned %d", err);
		free(buf);
		return NULL;
	}
	return buf;
}

/* The whole text exposition of one scrape; NULL on failure. */
static char *scrape(struct rxlat_model *model)
{
	struct prom_metrics *pm = NULL;
	struct prom_scrape *s = NULL;
	char *out = NULL;
	size_t len = 0;
	ssize_t n = 1;

	if (!prom_metrics_new(&pm, model, 1, NULL, NULL))
		s = prom_scrape_new(pm, PROM_FORMAT_TEXT);
	out = s ? calloc(1, 1 << 20) : NULL;
	while (out && n > 0 && len < (1 << 20) - 1) {
		n = prom_scrape_read(s, out + len, (1 << 20) - 1 - len);
		len += n > 0 ? (size_t)n : 0;
	}
	prom_scrape_free(s);
	prom_metrics_free(pm);
	return out;
}

static void expect(const char *what, const char *got, const char *want)
{
	if (got && !strstr(got, want))
		check_fail("%s: no \"%s\" in:\n%s", what, want, got);
}

/*
 * 3 samples of 300 ns and 57 of 600 ns (the largest 630 ns) more in h, from
 * XDP stamps, as the hooks count them in report epoch parity.
 */
static void add_samples(struct rxlat_hist *h, int parity)
{
	h->sources[RXLAT_SRC_XDP] += 60;
	h->buckets[rxlat_hist_bucket(300)] += 3;
	h->buckets[rxlat_hist_bucket(600)] += 57;
	h->sum_ns += 3 * 300 + 57 * 600;
	h->max_ns[parity] = 630;
}

/* The same samples in two reports (text, then JSON) and in Prometheus' totals. */
static void test_udp_p99(void)
{
	static struct rxlat_hist live[RXLAT_NR_STAGES * 2 * 2];
	struct flat_store store;
	const struct model_src src = { .store = flat_store(&store, live, rxlat_nr_series(DIMS)),
				       .slots = f_slots,
				       .ifname = f_ifname };
	struct rxlat_hist *h = &live[rxlat_series_index(RXLAT_STAGE_UDP_QUEUE_RCV, 0, 0, 0, DIMS)];
	struct rxlat_model *m = NULL;
	char *text, *json, *prom;

	if (model_new(&m, DIMS, false, true, &src) || model_start(m)) {
		check_failed("udp_p99", "out of memory");
		model_free(m);
		return;
	}
	add_samples(h, 0);
	text = render(rxlat_report_text, m, 0);
	add_samples(h, 1);
	json = render(rxlat_report_json, m, 1);
	prom = scrape(m);
	expect("text", text,
	       "udp_queue_rcv  ifname=veth1  (sources: xdp=60 kernel=0 tc=0 none=0)\n");
	expect("text", text,
	       "\ncount 60  mean 585 ns  p50 591 ns  p90 612 ns  p99 618 ns  p99.9 618 ns  "
	       "max 630 ns\n");
	expect("json", json, "\"count\":60,");
	expect("json", json, "\"p99_ns\":618,");
	/* the totals since the start, both reports', in buckets of 1 per power of two */
	expect("prometheus", prom,
	       "rxlat_stage_latency_seconds_bucket{stage=\"udp_queue_rcv\",ifname=\"veth1\","
	       "queue=\"all\",le=\"0.000000476\"} 6\n");
	expect("prometheus", prom,
	       "rxlat_stage_latency_seconds_count{stage=\"udp_queue_rcv\",ifname=\"veth1\","
	       "queue=\"all\"} 120\n");
	if (!text || !json || !prom)
		check_fail("an output is missing");
	free(text);
	free(json);
	free(prom);
	model_free(m);
	check_done("udp_p99");
}

int main(int argc, char **argv)
{
	check_args(argc, argv);
	CHECK_RUN(test_udp_p99);
	return check_exit_status();
}
