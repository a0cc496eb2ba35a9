// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the model's reports (collector/read) without BPF: a plain
 * array of struct rxlat_hist laid out as the hooks' chunks (unit.h,
 * flat_store()), plain slot tables and counter totals for what the hooks
 * and the stamper read from their maps (model_fixture.h). Checks the
 * deltas between reports, the per-epoch maxima, the aggregation of queues,
 * the overflow series and the stamper's counter deltas; the totals across
 * released slots are model_totals_test.c's. One line per check; exit
 * status 1 when any failed.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model_fixture.h"

/* -i IFINDEX: only the wanted interfaces' stamper counters from now on. */
static void want(__u32 ifindex)
{
	F.filter = true;
	F.wanted[F.nwanted++] = ifindex;
}

/* The stamper rows of a report over the n counters keys and vals. */
static int report_xdp(struct rxlat_model *m, const struct rxlat_xdp_key *keys,
		      const struct rxlat_xdp_counters *vals, size_t n, struct rxlat_xdp_row **r,
		      size_t *nr)
{
	F.keys = keys;
	F.vals = vals;
	F.n = n;
	return model_report_xdp(m, r, nr);
}

/* A series' other labels as the fields they replace (ifname_of(): model_fixture.h). */
static __u64 num_of(const struct rxlat_series *s, const char *key)
{
	const struct rxlat_label *l = rxlat_label_of(s, key);

	return l && l->kind == RXLAT_LABEL_NUM ? l->num : ~0ull;
}

static int stage_of(const struct rxlat_series *s)
{
	const struct rxlat_label *l = rxlat_label_of(s, "stage");

	for (int i = 0; l && i < RXLAT_NR_STAGES; i++)
		if (!strcmp(rxlat_stage_names[i], l->str))
			return i;
	return -1;
}

static int queue_of(const struct rxlat_series *s)
{
	const struct rxlat_label *l = rxlat_label_of(s, "queue");

	if (!l)
		return -100;
	if (l->kind == RXLAT_LABEL_NULL)
		return RXLAT_QUEUE_ALL;
	if (l->kind == RXLAT_LABEL_STR && !strcmp(l->str, "other"))
		return RXLAT_QUEUE_OTHER;
	return (int)l->num;
}

static void test_deltas(void)
{
	__u32 slots[MAX_IFACES] = { IF_A, 0 };
	struct rxlat_model *c = NULL;
	struct rxlat_hist *live = calloc(rxlat_nr_series(DIMS), sizeof(*live));
	struct rxlat_series *s = NULL;
	size_t n = 0;

	if (!live || !(c = new_model(live, true))) {
		check_failed("deltas.setup", "out of memory");
		free(live);
		return;
	}
	/* seen while starting up: not part of the first report */
	sample(series(live, RXLAT_STAGE_IP_RCV, 0, 1), 3, 7, 700, 900, 0);
	model_start(c);
	CHECK_U64("start clears max_ns[0]", series(live, RXLAT_STAGE_IP_RCV, 0, 1)->max_ns[0], 0);
	check_done("deltas.start_baseline");

	sample(series(live, RXLAT_STAGE_IP_RCV, 0, 1), 3, 5, 500, 200, 0);
	if (report_series(c, slots, 0, &s, &n) || n != 1) {
		check_failed("deltas.first", "want 1 series, got %zu", n);
	} else {
		CHECK_U64("stage", stage_of(&s[0]), RXLAT_STAGE_IP_RCV);
		CHECK_U64("ifindex", num_of(&s[0], "ifindex"), IF_A);
		check_str("ifname", ifname_of(&s[0]), "if100001");
		CHECK_U64("queue", (__u64)queue_of(&s[0]), 1);
		CHECK_U64("count", s[0].st.count, 5);
		CHECK_U64("bucket 3", s[0].st.buckets[3], 5);
		CHECK_U64("sum_ns", s[0].st.sum_ns, 500);
		CHECK_U64("max_ns", s[0].st.max_ns, 200);
		CHECK_U64("sources.xdp", s[0].st.sources[RXLAT_SRC_XDP], 5);
		CHECK_U64("live max of the ended epoch", series(live, 0, 0, 1)->max_ns[0], 0);
		check_done("deltas.first");
	}
	free(s);

	/* the next epoch writes the other parity; nothing new elsewhere */
	sample(series(live, RXLAT_STAGE_IP_RCV, 0, 1), 4, 2, 300, 150, 1);
	if (report_series(c, slots, 1, &s, &n) || n != 1) {
		check_failed("deltas.second", "want 1 series, got %zu", n);
	} else {
		CHECK_U64("count", s[0].st.count, 2);
		CHECK_U64("bucket 3", s[0].st.buckets[3], 0);
		CHECK_U64("bucket 4", s[0].st.buckets[4], 2);
		CHECK_U64("sum_ns", s[0].st.sum_ns, 300);
		CHECK_U64("max_ns", s[0].st.max_ns, 150);
		CHECK_U64("sources.xdp", s[0].st.sources[RXLAT_SRC_XDP], 2);
		check_done("deltas.second");
	}
	free(s);

	if (report_series(c, slots, 0, &s, &n))
		check_failed("deltas.quiet", "collect_series failed");
	else if (n)
		check_failed("deltas.quiet", "%zu series in an interval without samples", n);
	else
		check_pass("deltas.quiet");
	free(s);

	/* samples without a start time are counted, not measured */
	series(live, RXLAT_STAGE_SOCK_READ, 0, 0)->sources[RXLAT_SRC_NONE] += 4;
	if (report_series(c, slots, 1, &s, &n) || n != 1) {
		check_failed("deltas.unstamped", "want 1 series, got %zu", n);
	} else {
		CHECK_U64("stage", stage_of(&s[0]), RXLAT_STAGE_SOCK_READ);
		CHECK_U64("count", s[0].st.count, 0);
		CHECK_U64("sources.none", s[0].st.sources[RXLAT_SRC_NONE], 4);
		check_done("deltas.unstamped");
	}
	free(s);
	model_free(c);
	free(live);
}

static void test_queues_and_overflow(bool per_queue)
{
	__u32 slots[MAX_IFACES] = { 1, 0 }; /* lo is ifindex 1 in every namespace */
	struct rxlat_model *c = NULL;
	struct rxlat_hist *live = calloc(rxlat_nr_series(DIMS), sizeof(*live));
	struct rxlat_series *s = NULL;
	size_t n = 0, want = per_queue ? 4 : 2;
	const char *name = per_queue ? "queues.per_queue" : "queues.aggregated";

	if (!live || !(c = new_model(live, per_queue))) {
		check_failed(name, "out of memory");
		free(live);
		return;
	}
	model_start(c);
	/* lo: queue 0, and a queue past --max-queues */
	sample(series(live, RXLAT_STAGE_UDP_QUEUE_RCV, 0, 0), 10, 3, 3000, 1100, 0);
	sample(series(live, RXLAT_STAGE_UDP_QUEUE_RCV, 0, MAX_QUEUES), 20, 1, 5000, 5000, 0);
	/* an interface past --max-ifaces, queues 1 and 2 */
	sample(series(live, RXLAT_STAGE_UDP_QUEUE_RCV, MAX_IFACES, 1), 5, 2, 200, 110, 0);
	sample(series(live, RXLAT_STAGE_UDP_QUEUE_RCV, MAX_IFACES, 2), 6, 1, 120, 120, 0);
	/* slot 1 is free: whatever its series hold is not reported */
	sample(series(live, RXLAT_STAGE_UDP_QUEUE_RCV, 1, 0), 6, 9, 900, 100, 0);

	if (report_series(c, slots, 0, &s, &n) || n != want) {
		check_failed(name, "want %zu series, got %zu", want, n);
		goto out;
	}
	check_str("first ifname", ifname_of(&s[0]), "lo");
	CHECK_U64("first ifindex", num_of(&s[0], "ifindex"), 1);
	check_str("last ifname", ifname_of(&s[n - 1]), "other");
	CHECK_U64("last ifindex", num_of(&s[n - 1], "ifindex"), 0);
	if (per_queue) {
		CHECK_U64("lo queue", (__u64)queue_of(&s[0]), 0);
		CHECK_U64("lo queue 0 count", s[0].st.count, 3);
		if (queue_of(&s[1]) != RXLAT_QUEUE_OTHER)
			check_fail("queue past --max-queues: got %d, want RXLAT_QUEUE_OTHER",
				   queue_of(&s[1]));
		CHECK_U64("lo other queues count", s[1].st.count, 1);
		CHECK_U64("other queue 1", (__u64)queue_of(&s[2]), 1);
		CHECK_U64("other queue 2", (__u64)queue_of(&s[3]), 2);
		CHECK_U64("other queue 2 max", s[3].st.max_ns, 120);
	} else {
		if (queue_of(&s[0]) != RXLAT_QUEUE_ALL || queue_of(&s[1]) != RXLAT_QUEUE_ALL)
			check_fail("queues %d, %d: want RXLAT_QUEUE_ALL", queue_of(&s[0]),
				   queue_of(&s[1]));
		CHECK_U64("lo count", s[0].st.count, 4);
		CHECK_U64("lo sum_ns", s[0].st.sum_ns, 8000);
		CHECK_U64("lo max_ns", s[0].st.max_ns, 5000);
		CHECK_U64("lo bucket 10", s[0].st.buckets[10], 3);
		CHECK_U64("lo bucket 20", s[0].st.buckets[20], 1);
		CHECK_U64("lo sources.xdp", s[0].st.sources[RXLAT_SRC_XDP], 4);
		CHECK_U64("other count", s[1].st.count, 3);
		CHECK_U64("other max_ns", s[1].st.max_ns, 120);
	}
	check_done(name);
out:
	free(s);
	model_free(c);
	free(live);
}

static void test_xdp(void)
{
	struct rxlat_xdp_key keys[] = { { IF_A, 0 }, { IF_B, 0 }, { IF_B, 3 }, { 0, 0 } };
	struct rxlat_xdp_counters vals[] = {
		XC(10, 9, 1), XC(20, 20, 0), XC(5, 5, 0), XC(2, 2, 0) /* overflow */
	};
	struct rxlat_model *c = NULL;
	struct rxlat_xdp_row *r = NULL;
	size_t n = 0;

	if (!(c = new_model(NULL, false))) {
		check_failed("xdp.setup", "out of memory");
		return;
	}
	want(IF_B);
	/* the first report has the totals so far, of the named interface only */
	if (report_xdp(c, keys, vals, 4, &r, &n) || n != 3) {
		check_failed("xdp.first", "want 3 rows, got %zu", n);
	} else {
		CHECK_U64("row 0 ifindex", r[0].ifindex, IF_B);
		check_str("row 0 ifname", r[0].ifname, "if100002");
		CHECK_U64("row 0 seen", r[0].seen, 20);
		CHECK_U64("row 1 queue", (__u64)r[1].queue, 3);
		CHECK_U64("row 1 stamped", r[1].stamped, 5);
		CHECK_U64("overflow ifindex", r[2].ifindex, 0);
		check_str("overflow ifname", r[2].ifname, "other");
		CHECK_U64("overflow seen", r[2].seen, 2);
		check_done("xdp.first");
	}
	free(r);

	/* then only what changed since */
	vals[0].seen += 100; /* not a named interface */
	vals[2].seen += 4;
	vals[2].stamped += 3;
	vals[2].meta_refused += 1;
	if (report_xdp(c, keys, vals, 4, &r, &n) || n != 1) {
		check_failed("xdp.delta", "want 1 row, got %zu", n);
	} else {
		CHECK_U64("ifindex", r[0].ifindex, IF_B);
		CHECK_U64("queue", (__u64)r[0].queue, 3);
		CHECK_U64("seen", r[0].seen, 4);
		CHECK_U64("stamped", r[0].stamped, 3);
		CHECK_U64("meta_refused", r[0].meta_refused, 1);
		check_done("xdp.delta");
	}
	free(r);

	/* a key new since the last report counts from zero */
	keys[3] = (struct rxlat_xdp_key){ IF_B, 1 };
	vals[3] = (struct rxlat_xdp_counters)XC(6, 6, 0);
	if (report_xdp(c, keys, vals, 4, &r, &n) || n != 1) {
		check_failed("xdp.new_key", "want 1 row, got %zu", n);
	} else {
		CHECK_U64("queue", (__u64)r[0].queue, 1);
		CHECK_U64("seen", r[0].seen, 6);
		check_done("xdp.new_key");
	}
	free(r);

	if (report_xdp(c, keys, vals, 0, &r, &n) || n)
		check_failed("xdp.none", "want no row, got %zu", n);
	else
		check_pass("xdp.none");
	free(r);
	model_free(c);
}

/*
 * A sample the hooks are recording while a report reads the series: its
 * source is counted, its bucket not yet (n of them, from source src).
 */
static void in_flight(struct rxlat_hist *h, int src, __u64 n)
{
	h->sources[src] += n;
}

static void land(struct rxlat_hist *h, __u32 bucket, __u64 n, __u64 sum)
{
	h->buckets[bucket] += n;
	h->sum_ns += sum;
}

/* The stamped count of one series in one report must equal its sources. */
static void check_torn(struct rxlat_model *c, const __u32 *slots, const char *name,
		       __u64 want_count, __u64 want_xdp, __u64 want_kernel, __u64 want_none)
{
	struct rxlat_series *s = NULL;
	size_t n = 0;

	if (report_series(c, slots, 0, &s, &n) || n != 1) {
		check_failed(name, "want 1 series, got %zu", n);
		free(s);
		return;
	}
	CHECK_U64("count", s[0].st.count, want_count);
	CHECK_U64("sources.xdp", s[0].st.sources[RXLAT_SRC_XDP], want_xdp);
	CHECK_U64("sources.kernel", s[0].st.sources[RXLAT_SRC_KERNEL], want_kernel);
	CHECK_U64("sources.none", s[0].st.sources[RXLAT_SRC_NONE], want_none);
	CHECK_U64("count == measured sources", s[0].st.count,
		  s[0].st.sources[RXLAT_SRC_XDP] + s[0].st.sources[RXLAT_SRC_KERNEL] +
		      s[0].st.sources[RXLAT_SRC_TC]);
	check_done(name);
	free(s);
}

static void test_torn(void)
{
	__u32 slots[MAX_IFACES] = { IF_A, 0 };
	struct rxlat_model *c = NULL;
	struct rxlat_hist *live = calloc(rxlat_nr_series(DIMS), sizeof(*live));
	struct rxlat_hist *h;

	if (!live || !(c = new_model(live, true))) {
		check_failed("torn.setup", "out of memory");
		free(live);
		return;
	}
	h = series(live, RXLAT_STAGE_IP_RCV, 0, 2);
	/* in flight at the baseline: belongs to the first interval */
	sample(h, 3, 4, 400, 100, 0);
	in_flight(h, RXLAT_SRC_XDP, 2);
	model_start(c);
	land(h, 3, 2, 200);
	sample(h, 3, 10, 1000, 100, 0);
	check_torn(c, slots, "torn.in_flight_at_start", 12, 12, 0, 0);

	/* three in flight at the report: held back, and the next has them */
	sample(h, 5, 7, 700, 100, 0);
	in_flight(h, RXLAT_SRC_XDP, 3);
	h->sources[RXLAT_SRC_NONE] += 2; /* no bucket: reported as read */
	check_torn(c, slots, "torn.held_back", 7, 7, 0, 2);
	land(h, 5, 3, 300);
	check_torn(c, slots, "torn.caught_up", 3, 3, 0, 0);

	/*
	 * Which source a sample in flight has is not known: held back from
	 * the first that grew; over both reports each source is exact.
	 */
	sample(h, 5, 5, 500, 100, 0);
	h->sources[RXLAT_SRC_KERNEL] += 1;
	land(h, 6, 1, 60);
	in_flight(h, RXLAT_SRC_KERNEL, 2);
	check_torn(c, slots, "torn.two_sources", 6, 3, 3, 0);
	land(h, 6, 2, 120);
	check_torn(c, slots, "torn.two_sources_caught_up", 2, 2, 0, 0);
	model_free(c);
	free(live);
}

/*
 * An interface that is gone keeps its name; one that came back under its
 * name has its new ifindex reported too, with -i.
 */
static void test_names(void)
{
	struct rxlat_xdp_key keys[] = { { IF_A, 0 }, { IF_B, 0 } };
	struct rxlat_xdp_counters vals[] = { XC(3, 3, 0), XC(4, 4, 0) };
	__u32 slots[MAX_IFACES] = { IF_A, 0 };
	struct rxlat_model *c = NULL;
	struct rxlat_hist *live = calloc(rxlat_nr_series(DIMS), sizeof(*live));
	struct rxlat_series *s = NULL;
	struct rxlat_xdp_row *r = NULL;
	size_t n = 0;

	if (!live || !(c = new_model(live, false))) {
		check_failed("names.setup", "out of memory");
		free(live);
		return;
	}
	want(IF_A);
	name(IF_A, "veth1");
	model_start(c);
	sample(series(live, RXLAT_STAGE_IP_RCV, 0, 0), 3, 2, 200, 100, 0);
	if (report_series(c, slots, 0, &s, &n) || n != 1)
		check_failed("names.gone_series", "want 1 series, got %zu", n);
	else if (strcmp(ifname_of(&s[0]), "veth1"))
		check_failed("names.gone_series", "got \"%s\", want \"veth1\"", ifname_of(&s[0]));
	else
		check_pass("names.gone_series");
	free(s);

	/* IF_B is veth1 come back: its rows are wanted now, under the name */
	want(IF_B);
	name(IF_B, "veth1");
	if (report_xdp(c, keys, vals, 2, &r, &n) || n != 2) {
		check_failed("names.back_rows", "want 2 rows, got %zu", n);
	} else {
		check_str("old ifindex", r[0].ifname, "veth1");
		check_str("new ifindex", r[1].ifname, "veth1");
		CHECK_U64("new ifindex seen", r[1].seen, 4);
		check_done("names.back_rows");
	}
	free(r);
	model_free(c);
	free(live);
}

/*
 * The hooks give a series its histogram with its first sample: a series
 * without one is left out, as is one whose place is in a chunk not mapped
 * yet, and one that gets it after the start counts from zero, everything
 * in it belonging to the interval.
 */
static void test_late_series(void)
{
	__u32 slots[MAX_IFACES] = { IF_A, 0 };
	__u32 idx = rxlat_series_index(RXLAT_STAGE_UDP_QUEUE_RCV, 0, 0, 2, DIMS);
	struct rxlat_hist *live = calloc(rxlat_nr_series(DIMS), sizeof(*live));
	struct rxlat_model *c = NULL;
	struct rxlat_series *s = NULL;
	size_t n = 1;

	if (!live || !(c = new_model(live, true))) {
		free(live);
		check_failed("late_series.setup", "out of memory");
		return;
	}
	/* no series has a place yet but idx, the first in the first chunk, not mapped */
	memset(store.series_of, 0, sizeof(store.series_of));
	store.series_of[idx] = 1;
	store.nchunks = 0;
	if (model_start(c))
		check_failed("late_series.setup", "out of memory");
	if (report_series(c, slots, 0, &s, &n) || n != 0)
		check_failed("late_series.none", "want no series, got %zu", n);
	else
		check_pass("late_series.none");
	free(s);
	s = NULL;
	store.nchunks = 1;
	sample(&live[0], 3, 4, 400, 150, 0);
	if (report_series(c, slots, 1, &s, &n) || n != 1) {
		check_failed("late_series.counted", "want 1 series, got %zu", n);
	} else {
		CHECK_U64("stage", stage_of(&s[0]), RXLAT_STAGE_UDP_QUEUE_RCV);
		CHECK_U64("queue", queue_of(&s[0]), 2);
		CHECK_U64("count", s[0].st.count, 4);
		CHECK_U64("sum", s[0].st.sum_ns, 400);
		check_done("late_series.counted");
	}
	free(s);
	model_free(c);
	free(live);
}

int main(int argc, char **argv)
{
	check_args(argc, argv);
	CHECK_RUN(test_deltas);
	CHECK_RUN(test_queues_and_overflow, true);
	CHECK_RUN(test_queues_and_overflow, false);
	CHECK_RUN(test_xdp);
	CHECK_RUN(test_torn);
	CHECK_RUN(test_names);
	CHECK_RUN(test_late_series);
	return check_exit_status();
}
