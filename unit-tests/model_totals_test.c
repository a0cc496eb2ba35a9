// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the model's totals (collector/read), the cursor /metrics
 * reads, across released slots: the label sets of a slot's old owner kept
 * under its name, the next owner from zero, the kept ones bounded and the
 * ones let go counted. The model reads plain memory (model_fixture.h).
 * One line per check; exit status 1 when any failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model_fixture.h"

/* The totals of one series label set (stage/ifname/queue "all"), through the totals cursor. */
static __u64 total_of(struct rxlat_model *m, const char *ifname, __u64 *none)
{
	struct model_iter *it = model_total_begin(m);
	struct rxlat_series s;
	struct rxlat_hist h;
	__u64 n = 0;

	*none = 0;
	while (it && model_total_next(it, &s, &h) > 0)
		if (!strcmp(ifname_of(&s), ifname)) {
			for (int b = 0; b < (int)RXLAT_HIST_BUCKETS; b++)
				n += h.buckets[b];
			*none += h.sources[RXLAT_SRC_NONE];
		}
	model_iter_free(it);
	return n;
}

/*
 * A released slot: its totals stay under its old name, its next owner
 * starts from zero in both cursors, and one of the same name adds to them.
 */
/*
 * The model of the retire tests: veth1 (IF_A) in slot 0 of slots, veth2
 * (IF_B) named for the slot's next owner; NULL (said as CHECK's setup)
 * without memory.
 */
static struct rxlat_model *retire_model(const char *check, struct rxlat_hist **live, __u32 *slots)
{
	struct rxlat_model *c = NULL;

	*live = calloc(rxlat_nr_series(DIMS), sizeof(**live));
	if (!*live || !(c = new_model(*live, false))) {
		check_failed(check, "out of memory");
		free(*live);
		return NULL;
	}
	name(IF_A, "veth1");
	name(IF_B, "veth2");
	memcpy(F.slots, slots, sizeof(F.slots));
	model_start(c);
	return c;
}

static void test_retire(void)
{
	__u32 slots[MAX_IFACES] = { IF_A, 0 };
	struct rxlat_hist *live;
	struct rxlat_model *c = retire_model("retire.setup", &live, slots);
	struct rxlat_series *s = NULL;
	size_t n = 0;
	__u64 none;

	if (!c)
		return;
	CHECK_U64("before", total_of(c, "veth1", &none), 0); /* a scrape came first */
	sample(series(live, RXLAT_STAGE_IP_RCV, 0, 1), 3, 4, 400, 100, 0);
	series(live, RXLAT_STAGE_IP_RCV, 0, 2)->sources[RXLAT_SRC_NONE] += 2;
	report_series(c, slots, 0, &s, &n);
	free(s);
	CHECK_U64("old owner's total", total_of(c, "veth1", &none), 4);
	model_retire_slot(c, 0);
	/* IF_B takes the slot */
	slots[0] = IF_B;
	memcpy(F.slots, slots, sizeof(slots));
	sample(series(live, RXLAT_STAGE_IP_RCV, 0, 1), 3, 3, 300, 100, 1);
	CHECK_U64("kept under the old name", total_of(c, "veth1", &none), 4);
	CHECK_U64("kept none", none, 2);
	CHECK_U64("new owner from zero", total_of(c, "veth2", &none), 3);
	CHECK_U64("new owner none", none, 0);
	if (report_series(c, slots, 1, &s, &n) || n != 1) {
		check_fail("report after release: want 1 series, got %zu", n);
	} else {
		check_str("report name", ifname_of(&s[0]), "veth2");
		CHECK_U64("report delta", s[0].st.count, 3);
	}
	free(s);
	/* a third owner under the first one's name adds to its kept totals */
	model_retire_slot(c, 0);
	slots[0] = IF_A + 10;
	name(IF_A + 10, "veth1");
	memcpy(F.slots, slots, sizeof(slots));
	sample(series(live, RXLAT_STAGE_IP_RCV, 0, 0), 3, 1, 100, 100, 0);
	CHECK_U64("same name adds", total_of(c, "veth1", &none), 5);
	CHECK_U64("veth2 kept", total_of(c, "veth2", &none), 3);
	check_done("retire.totals_kept_next_owner_from_zero");
	model_free(c);
	free(live);
}

/*
 * A slot released before any scrape: its totals are there at the first one
 * (a Prometheus scraping every 15 s would never see a pod that lived less).
 */
static void test_retire_before_scrape(void)
{
	__u32 slots[MAX_IFACES] = { IF_A, 0 };
	struct rxlat_hist *live;
	struct rxlat_model *c = retire_model("retire_unscraped.setup", &live, slots);
	struct rxlat_series *s = NULL;
	size_t n = 0;
	__u64 none;

	if (!c)
		return;
	sample(series(live, RXLAT_STAGE_IP_RCV, 0, 1), 3, 4, 400, 100, 0);
	report_series(c, slots, 0, &s, &n);
	free(s);
	model_retire_slot(c, 0);
	slots[0] = IF_B;
	memcpy(F.slots, slots, sizeof(slots));
	sample(series(live, RXLAT_STAGE_IP_RCV, 0, 1), 3, 3, 300, 100, 1);
	CHECK_U64("kept without a scrape before", total_of(c, "veth1", &none), 4);
	CHECK_U64("new owner from zero", total_of(c, "veth2", &none), 3);
	check_done("retire.kept_before_any_scrape");
	model_free(c);
	free(live);
}

/*
 * More released label sets than are kept: the oldest leave, counted; the
 * rest keep their totals. 16384 kept: docs/containers.md.
 */
static void test_retire_bound(void)
{
	const __u32 kept = 16384, extra = 3, base = 200000;
	__u32 slots[MAX_IFACES] = { 0 };
	struct rxlat_model *c = NULL;
	struct rxlat_hist *live = calloc(rxlat_nr_series(DIMS), sizeof(*live));
	struct model_iter *it;
	struct rxlat_series s;
	struct rxlat_hist h;
	__u64 n = 0, samples = 0, k, dropped, none;
	char first[RXLAT_IFNAME_LEN], last[RXLAT_IFNAME_LEN];

	if (!live || !(c = new_model(live, false))) {
		check_failed("retire_bound.setup", "out of memory");
		free(live);
		return;
	}
	model_start(c);
	for (__u32 i = 0; i < kept + extra; i++) {
		slots[0] = base + i;
		memcpy(F.slots, slots, sizeof(slots));
		sample(series(live, RXLAT_STAGE_IP_RCV, 0, 0), 3, 1, 100, 100, 0);
		model_retire_slot(c, 0);
	}
	slots[0] = 0;
	memcpy(F.slots, slots, sizeof(slots));
	model_total_gone(c, &k, &dropped);
	CHECK_U64("kept", k, kept);
	CHECK_U64("dropped", dropped, extra);
	it = model_total_begin(c);
	while (it && model_total_next(it, &s, &h) > 0) {
		n++;
		samples += h.buckets[3];
	}
	model_iter_free(it);
	CHECK_U64("series exported", n, kept);
	CHECK_U64("their samples", samples, kept);
	snprintf(first, sizeof(first), "if%u", base + extra - 1);
	snprintf(last, sizeof(last), "if%u", base + kept + extra - 1);
	CHECK_U64("the oldest gone", total_of(c, first, &none), 0);
	snprintf(first, sizeof(first), "if%u", base + extra);
	CHECK_U64("the oldest kept", total_of(c, first, &none), 1);
	CHECK_U64("the newest kept", total_of(c, last, &none), 1);
	check_done("retire.bounded_and_counted");
	model_free(c);
	free(live);
}

int main(int argc, char **argv)
{
	check_args(argc, argv);
	CHECK_RUN(test_retire);
	CHECK_RUN(test_retire_before_scrape);
	CHECK_RUN(test_retire_bound);
	return check_exit_status();
}
