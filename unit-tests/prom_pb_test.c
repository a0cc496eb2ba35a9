// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of prom.c's protobuf exposition and of the content
 * negotiation that picks it, over the model (collector/read) without BPF
 * or HTTP (prom_fixture.h). Each delimited message of a protobuf scrape is
 * decoded by protoc against unit-tests/prom_metrics.proto, apart from
 * rxlat's encoder, and held to the text exposition of the same state;
 * each Accept header of Prometheus 2.42 and 3 gets the format it asks
 * for. One line per check.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "check.h"
#include "prom_fixture.h"

/* ---- the protobuf exposition, decoded by protoc ------------------------- */

#define PROTO "unit-tests/prom_metrics.proto"

/* Native bucket of ns at schema 3, from its definition: (2^((i-1)/8), 2^(i/8)] s. */
static int native_of(__u64 ns)
{
	int i = (int)ceill(8 * log2l((long double)ns / 1e9L));

	/* the float log may land one off at a bound: settle it on the integer ns */
	while (ns > floorl(1e9L * powl(2, (long double)i / 8)))
		i++;
	while (ns <= floorl(1e9L * powl(2, (long double)(i - 1) / 8)))
		i--;
	return i;
}

/* What protoc printed of the metric being read, and what is known so far. */
struct decoded {
	char family[64];
	char labels[512]; /* {k="v",... of the metric */
	long long count, zero, sum, running, idx;
	double value;
	bool hist, negative;
	int nb, nd, ncl;
	long long index[RXLAT_HIST_BUCKETS], counts[RXLAT_HIST_BUCKETS];
	long long cl_count[RXLAT_HIST_BUCKETS]; /* the classic buckets, if sent */
	double cl_upper[RXLAT_HIST_BUCKETS];
	int want_classic; /* classic buckets in every histogram: their number */
};

/* The classic buckets of a histogram against the text's _bucket lines. */
static void check_classic(struct decoded *d, const char *text, const char *series)
{
	char prefix[640];
	int i = 0;

	if (d->ncl != d->want_classic)
		check_fail("%s: %d classic buckets, want %d", series, d->ncl, d->want_classic);
	snprintf(prefix, sizeof(prefix), "\n%s_bucket%s,le=\"", d->family, d->labels);
	for (const char *p = strstr(text, prefix); p && i < d->ncl;
	     p = strstr(p + 1, prefix), i++) {
		const char *le = p + strlen(prefix);

		if (!strncmp(le, "+Inf", 4))
			break;
		if (strtod(le, NULL) != d->cl_upper[i] ||
		    atoll(strchr(le, ' ') + 1) != d->cl_count[i])
			check_fail("%s: classic bucket %d (%g, %lld) is not the text's %.40s",
				   series, i, d->cl_upper[i], d->cl_count[i], p + 1);
	}
	if (i != d->ncl)
		check_fail("%s: %d classic buckets in the text, %d in protobuf", series, i, d->ncl);
}

/* The samples that the test puts into one series: ns and how many. */
static const __u64 pb_samples[][2] = {
	{ 10, 2 },	   /* the zero bucket */
	{ 59, 1 },	   /* its top */
	{ 60, 3 },	   /* the first native bucket */
	{ 1000, 4 },	   /* 1 us */
	{ 953, 1 },	   /* the top of the bucket below */
	{ 1040, 1 },	   /* the next bucket */
	{ 1300, 2 },	   /* one empty bucket on: a gap inside a span */
	{ 5000000, 5 },	   /* 5 ms: a span of its own */
	{ 917004043, 1 },  /* the top of native bucket -1, under 1 s */
	{ 1000000000, 1 }, /* 1 s, a bound of every schema */
	{ 40000000000, 2 } /* 40 s: over the top, in the last native bucket */
};
#define NR_PB_SAMPLES (sizeof(pb_samples) / sizeof(pb_samples[0]))

/*
 * One decoded metric: a counter's or a gauge's value against the text
 * exposition's line of the same series; a histogram's count against zero
 * count + buckets and the text's _count; and, for the series with
 * pb_samples, every native bucket against the samples' own.
 */
static void check_metric(struct decoded *d, const char *text, int *nhist)
{
	char series[640];
	long long want_zero = 0;

	if (!d->hist) {
		/* a series without labels is its name alone */
		snprintf(series, sizeof(series), "%s%s%s", d->family, d->labels,
			 d->labels[0] ? "}" : "");
		if (value(text, series) != (long long)d->value)
			check_fail("%s: %.0f in protobuf, %lld in text", series, d->value,
				   value(text, series));
		return;
	}
	(*nhist)++;
	snprintf(series, sizeof(series), "%s_count%s}", d->family, d->labels);
	if (d->negative || d->nd != d->nb)
		check_fail("%s: %d deltas for %d buckets, or a count below zero", series, d->nd,
			   d->nb);
	if (d->count != d->zero + d->sum)
		check_fail("%s: count %lld, zero %lld + buckets %lld", series, d->count, d->zero,
			   d->sum);
	if (value(text, series) != d->count)
		check_fail("%s: count %lld, text %lld", series, d->count, value(text, series));
	check_classic(d, text, series);
	if (!strstr(d->labels, "stage=\"tcp_do_rcv\"") || !strstr(d->labels, "queue=\"1\""))
		return;
	for (size_t i = 0; i < NR_PB_SAMPLES; i++) {
		__u64 ns = pb_samples[i][0], n = pb_samples[i][1];
		long long got = 0;
		int want = native_of(ns > 16000000000ULL ? 16000000001ULL : ns);

		if (ns <= 59) {
			want_zero += (long long)n;
			continue;
		}
		for (int b = 0; b < d->nb; b++)
			if (d->index[b] == want)
				got = d->counts[b];
		if (got != (long long)n)
			check_fail("%llu ns: native bucket %d holds %lld, want %llu",
				   (unsigned long long)ns, want, got, (unsigned long long)n);
	}
	if (d->zero != want_zero)
		check_fail("zero count %lld, want %lld", d->zero, want_zero);
}

/* protoc's text form of a MetricFamily, line by line */
static void parse_decoded(FILE *f, struct decoded *d, const char *text, int *nhist)
{
	char line[1024], key[64], val[512];
	bool in_label = false;

	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " "), *v = val;
		size_t n;

		if (sscanf(p, "%63[a-z_]: %511[^\n]", key, val) != 2) {
			if (!strncmp(p, "label {", 7)) {
				in_label = true;
				strcat(d->labels, d->labels[0] ? "," : "{");
			} else if (!strncmp(p, "histogram {", 11)) {
				d->hist = true;
			} else if (!strncmp(p, "metric {", 8)) {
				char family[64];
				int want = d->want_classic;

				memcpy(family, d->family, sizeof(family));
				memset(d, 0, sizeof(*d));
				memcpy(d->family, family, sizeof(family));
				d->want_classic = want;
			} else if (*p == '}' && in_label) {
				in_label = false;
			} else if (*p == '}' && p == line) { /* the metric's own: column 0 */
				check_metric(d, text, nhist);
			}
			continue;
		}
		n = strlen(v);
		if (n >= 2 && v[0] == '"') {
			v[n - 1] = '\0';
			v++;
		}
		if (in_label) {
			n = strlen(d->labels);
			snprintf(d->labels + n, sizeof(d->labels) - n,
				 strcmp(key, "name") ? "\"%s\"" : "%s=", v);
		} else if (!strcmp(key, "name") && p == line) {
			snprintf(d->family, sizeof(d->family), "%.63s", v);
		} else if (!strcmp(key, "type") && p == line) {
			char want[128];

			/* the text's family of that name, of the same type */
			snprintf(want, sizeof(want), "\n# TYPE %s %.16s\n", d->family, v);
			for (char *c = want; *c; c++)
				*c = c > want + 8 + strlen(d->family) ? (char)tolower(*c) : *c;
			if (!strstr(text, want))
				check_fail("family %s of type %s: not in the text", d->family, v);
		} else if (!strcmp(key, "value")) {
			d->value = strtod(v, NULL);
		} else if (!strcmp(key, "sample_count")) {
			d->count = atoll(v);
		} else if (!strcmp(key, "zero_count")) {
			d->zero = atoll(v);
		} else if (!strcmp(key, "schema") && atoi(v) != 3) {
			check_fail("schema %s, want 3", v);
		} else if (!strcmp(key, "zero_threshold") && strtod(v, NULL) != ldexp(1, -24)) {
			check_fail("zero_threshold %s, want 2^-24", v);
		} else if (!strcmp(key, "cumulative_count") && d->ncl < (int)RXLAT_HIST_BUCKETS) {
			d->cl_count[d->ncl] = atoll(v);
		} else if (!strcmp(key, "upper_bound") && d->ncl < (int)RXLAT_HIST_BUCKETS) {
			d->cl_upper[d->ncl++] = strtod(v, NULL);
		} else if (!strcmp(key, "offset")) {
			d->idx += atoll(v);
		} else if (!strcmp(key, "length")) {
			for (long long k = atoll(v); k > 0 && d->nb < (int)RXLAT_HIST_BUCKETS; k--)
				d->index[d->nb++] = d->idx++;
		} else if (!strcmp(key, "positive_delta") && d->nd < (int)RXLAT_HIST_BUCKETS) {
			d->running += atoll(v);
			d->negative |= d->running < 0;
			d->sum += d->running;
			d->counts[d->nd++] = d->running;
		}
	}
}

/* The text exposition's families that have a sample line. */
static int families_with_samples(const char *text)
{
	int n = 0;

	for (const char *p = strstr(text, "# TYPE "); p; p = strstr(p + 1, "\n# TYPE ")) {
		const char *next = strchr(p + 1, '\n');

		n += next && next[1] && next[1] != '#';
	}
	return n;
}

/* Every delimited message of pb decoded by protoc and checked: verdict name. */
static void decode_all(const char *pb, size_t len, const char *out, const char *text,
		       struct decoded *d, const char *name)
{
	char cmd[256];
	size_t pos = 0;
	int nhist = 0, nmsg = 0;

	snprintf(cmd, sizeof(cmd), "protoc --decode=io.prometheus.client.MetricFamily %s >%s",
		 PROTO, out);
	while (pos < len) {
		__u64 n = 0;
		int shift = 0;
		FILE *p, *f;

		do {
			n |= (__u64)(pb[pos] & 0x7f) << shift;
			shift += 7;
		} while (pb[pos++] & 0x80 && pos < len);
		p = popen(cmd, "w");
		if (!p || n > len - pos) {
			check_fail("message %d: %s", nmsg, p ? "past the end" : "no protoc");
			if (p)
				pclose(p);
			break;
		}
		fwrite(pb + pos, 1, n, p);
		if (pclose(p)) {
			check_fail("message %d: protoc could not decode it", nmsg);
			break;
		}
		pos += n;
		nmsg++;
		f = fopen(out, "r");
		if (f) {
			parse_decoded(f, d, text, &nhist);
			fclose(f);
		}
	}
	/* ip_rcv and tcp_do_rcv of eth0: no other series has seen a sample */
	CHECK_U64("native histograms", (__u64)nhist, 2);
	/* a message per family that has samples in the text (none is this big) */
	CHECK_U64("messages", (__u64)nmsg, (__u64)families_with_samples(text));
	check_done(name);
}

/*
 * The protobuf scrape, each delimited message decoded by protoc on its own:
 * every message decodes, every family with samples in the text is there,
 * every value is the text's, the histograms are native with exact buckets,
 * and with the classic buckets asked for, those are the text's too.
 */
static void test_protobuf(void)
{
	static struct rxlat_hist live[NSERIES];
	struct prom_metrics *m;
	char *pb = NULL, *text, out[] = "/tmp/rxlat-prom-pb-test.XXXXXX";
	size_t len = 0;
	int fd;
	struct decoded *d;

	/* the QEMU kernels' initramfs has neither: the host run checks the encoder */
	if (access(PROTO, R_OK) || system("command -v protoc >/dev/null 2>&1")) {
		check_skip("protobuf_decoded_by_protoc", "no protoc or no " PROTO " here");
		check_skip("protobuf_with_classic_buckets", "no protoc or no " PROTO " here");
		return;
	}
	fd = mkstemp(out);
	d = calloc(1, sizeof(*d));
	memset(live, 0, sizeof(live));
	memset(slot_owner, 0, sizeof(slot_owner));
	slot_owner[0] = 1;
	names[1] = "eth0";
	for (size_t i = 0; i < NR_PB_SAMPLES; i++)
		sample(at(live, RXLAT_STAGE_TCP_DO_RCV, 0, 1), pb_samples[i][0], pb_samples[i][1]);
	sample(at(live, RXLAT_STAGE_IP_RCV, 0, 0), 3000, 7);
	m = new_metrics(live, 2, true);
	text = m ? scrape(m, 4096) : NULL;
	if (fd >= 0)
		close(fd);
	for (int classic = 0; classic < 2; classic++) {
		if (classic)
			prom_metrics_set_classic(m);
		free(pb);
		pb = m ? scrape_as(m, 4096, PROM_FORMAT_PROTOBUF, &len) : NULL;
		if (!pb || !text || fd < 0 || !d) {
			check_failed("protobuf_decoded_by_protoc", "setup failed");
			goto out;
		}
		d->want_classic = classic ? (int)prom_nr_buckets(2) - 1 : 0;
		decode_all(pb, len, out, text, d,
			   classic ? "protobuf_with_classic_buckets"
				   : "protobuf_decoded_by_protoc");
	}
out:
	unlink(out);
	free(d);
	free(pb);
	free(text);
	free_metrics(m);
}

/* Which format each Accept header gets. */
static void test_negotiate(void)
{
	static const struct {
		const char *accept;
		enum prom_format want;
	} cases[] = {
		{ NULL, PROM_FORMAT_TEXT },
		{ "", PROM_FORMAT_TEXT },
		{ "*/*", PROM_FORMAT_TEXT },
		{ "text/plain", PROM_FORMAT_TEXT },
		{ "text/plain;version=0.0.4;q=0.5,*/*;q=0.1", PROM_FORMAT_TEXT },
		/* Prometheus 2.42 without native histograms */
		{ "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		  "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		  PROM_FORMAT_TEXT },
		/* Prometheus 2.42 with --enable-feature=native-histograms */
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		  "encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,"
		  "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
		  "q=0.5,*/*;q=0.1",
		  PROM_FORMAT_PROTOBUF },
		/* Prometheus 3's protobuf first, text only after openmetrics */
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		  "encoding=delimited;q=0.5,application/openmetrics-text;version=1.0.0;q=0.4,"
		  "text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
		  PROM_FORMAT_PROTOBUF },
		{ "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; "
		  "encoding=delimited",
		  PROM_FORMAT_PROTOBUF },
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		  "encoding=delimited;q=0,text/plain;q=0.1",
		  PROM_FORMAT_TEXT },
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		  "encoding=delimited;q=0",
		  PROM_FORMAT_TEXT },
		/* an equal q: text, which every scraper reads */
		{ "text/plain;q=0.5,application/vnd.google.protobuf;"
		  "proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5",
		  PROM_FORMAT_TEXT },
		/* another message, or the text encoding of protobuf: not ours */
		{ "application/vnd.google.protobuf;proto=other.Message;encoding=delimited",
		  PROM_FORMAT_TEXT },
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		  "encoding=text",
		  PROM_FORMAT_TEXT },
		{ "TEXT/PLAIN;q=0.2, Application/Vnd.Google.Protobuf ; "
		  "proto=\"io.prometheus.client.MetricFamily\" ; encoding=delimited ; q=0.9",
		  PROM_FORMAT_PROTOBUF },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (prom_negotiate(cases[i].accept) != cases[i].want)
			check_fail("Accept \"%s\": %s",
				   cases[i].accept ? cases[i].accept : "(none)",
				   cases[i].want == PROM_FORMAT_TEXT ? "protobuf, want text"
								     : "text, want protobuf");
	check_done("content_negotiation");
}

int main(int argc, char **argv)
{
	check_args(argc, argv);
	CHECK_RUN(test_protobuf);
	CHECK_RUN(test_negotiate);
	return check_exit_status();
}
