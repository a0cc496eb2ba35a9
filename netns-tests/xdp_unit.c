// SPDX-License-Identifier: GPL-2.0
/*
 * rxlat-xdp-unit: runs the XDP stamper on crafted frames with
 * BPF_PROG_TEST_RUN and checks the metadata it leaves, the packet bytes, the
 * verdict and the counters. Prints one verdict line per check (check.h);
 * exits 0 iff nothing failed.
 *
 * How the kernel reports metadata in a test run (net/bpf/test_run.c): the
 * output buffer is copied from data_meta, so data_out holds the metadata
 * followed by the packet, and ctx_out.data is the offset of the packet in
 * data_out, i.e. the metadata length. Input metadata is passed the same way:
 * its bytes first in data_in and their length in ctx_in.data. Both views
 * are checked below.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "check.h"
#include "frame.h"
#include "rxlat.h"
#include "rxlat_xdp.skel.h"
#include "xdp_counters.h"
#include "xdp_frags.h"
#include "xdp_meta.h"

#define META_LEN     ((unsigned int)sizeof(struct rxlat_meta))
#define LO_IFINDEX   1
#define FOREIGN_META 8 /* what the layout leaves for another program */
#define BATCH_RUNS   64

#define check(cond, name, ...)                           \
	do {                                             \
		if (cond)                                \
			check_pass(name);                \
		else                                     \
			check_failed(name, __VA_ARGS__); \
	} while (0)

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* Warnings explain load failures; info and debug only add noise. */
	if (level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The two frames every mode is tried on: UDP over IPv4 and over IPv6. */
static size_t frame_v4(uint8_t *p)
{
	struct frame_spec f = {
		.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
		.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
		.src.family = AF_INET,
		.dst.family = AF_INET,
		.sport = 10000,
		.dport = 7000,
	};
	uint8_t payload[64];

	inet_pton(AF_INET, "10.11.0.1", &f.src.v4);
	inet_pton(AF_INET, "10.11.0.2", &f.dst.v4);
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = i * 7 + 3;
	return frame_udp(p, &f, payload, sizeof(payload));
}

static size_t frame_v6(uint8_t *p)
{
	struct frame_spec f = {
		.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
		.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
		.src.family = AF_INET6,
		.dst.family = AF_INET6,
		.sport = 10001,
		.dport = 7000,
	};
	uint8_t payload[100];

	inet_pton(AF_INET6, "fd11::1", &f.src.v6);
	inet_pton(AF_INET6, "fd11::2", &f.dst.v6);
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = i * 13 + 1;
	return frame_udp(p, &f, payload, sizeof(payload));
}

struct run {
	uint8_t out[2048];
	struct xdp_md ctx_out;
	uint32_t out_len;
	uint32_t retval;
	uint64_t before, after;
	int err;
};

/* data_in may start with meta_in bytes of metadata, as ctx_in.data says. */
static void test_run(int prog_fd, const uint8_t *data_in, uint32_t len, uint32_t meta_in,
		     struct run *r)
{
	struct xdp_md ctx_in = {
		.data = meta_in,
		.data_end = len,
		.ingress_ifindex = LO_IFINDEX,
		.rx_queue_index = 0,
	};
	struct bpf_test_run_opts opts = {
		.sz = sizeof(opts),
		.data_in = data_in,
		.data_size_in = len,
		.data_out = r->out,
		.data_size_out = sizeof(r->out),
		.ctx_in = &ctx_in,
		.ctx_size_in = sizeof(ctx_in),
		.ctx_out = &r->ctx_out,
		.ctx_size_out = sizeof(r->ctx_out),
		.repeat = 1,
	};

	memset(&r->ctx_out, 0, sizeof(r->ctx_out));
	r->before = mono_ns();
	r->err = bpf_prog_test_run_opts(prog_fd, &opts) ? -errno : 0;
	r->after = mono_ns();
	r->out_len = opts.data_size_out;
	r->retval = opts.retval;
}

static void meta_at(const struct run *r, uint32_t off, struct rxlat_meta *m)
{
	memcpy(m, r->out + off, sizeof(*m));
}

static uint64_t stamp_at_front(const struct run *r)
{
	struct rxlat_meta m;

	meta_at(r, 0, &m);
	return rxlat_meta_stamp(&m);
}

static int sum_slot(void *arg, const struct rxlat_xdp_key *k, const struct rxlat_xdp_counters *c)
{
	if (k->ifindex == LO_IFINDEX && k->rx_queue == 0)
		xdp_counters_add(arg, c);
	return 0;
}

static int read_counters(struct rxlat_xdp *skel, struct rxlat_xdp_counters *sum)
{
	struct rxlat_xdp_key key = { .ifindex = LO_IFINDEX, .rx_queue = 0 };
	int err;

	memset(sum, 0, sizeof(*sum));
	err = xdp_slots_visit(bpf_map__fd(skel->maps.rxlat_xdp_slots), sum_slot, sum);
	if (err)
		return err;
	/* counted in a slot: not in the hash table, which is for collisions */
	err = xdp_counters_sum_percpu(bpf_map__fd(skel->maps.rxlat_xdp_stats), &key, sum);
	return err == -ENOENT ? 0 : err;
}

static struct rxlat_xdp *open_stamper(enum rxlat_stamp_mode mode, const char *tag)
{
	struct rxlat_xdp *skel;
	struct bpf_map *map;
	char name[64];
	int err;

	snprintf(name, sizeof(name), "xdp_unit.%s.load", tag);
	/* as rxlat does: without multi-buffer support (xdp.frags, 5.18) where the kernel has none
	 */
	for (int frags = 1; frags >= 0; frags--) {
		if (!frags)
			rxlat_xdp_without_frags();
		skel = rxlat_xdp__open();
		if (!skel) {
			check_failed(name, "opening the skeleton failed: %s", strerror(errno));
			return NULL;
		}
		skel->rodata->rxlat_stamp_mode = mode;
		/* a unit test must not share or leave maps in bpffs */
		for (map = bpf_object__next_map(skel->obj, NULL); map;
		     map = bpf_object__next_map(skel->obj, map))
			bpf_map__set_pin_path(map, NULL);
		err = rxlat_xdp__load(skel);
		if (!err || !frags)
			break;
		rxlat_xdp__destroy(skel);
	}
	if (err) {
		check_failed(name,
			     "loading the stamper failed: %s (run as root on a kernel with BTF)",
			     strerror(-err));
		rxlat_xdp__destroy(skel);
		return NULL;
	}
	check_pass(name);
	return skel;
}

/*
 * The checks every stamped run must pass. Returns the stamp, or 0 when the
 * metadata is unusable.
 */
static uint64_t check_stamped(const char *tag, const struct run *r, const uint8_t *frame,
			      uint32_t len, uint16_t flags, bool check_window)
{
	struct rxlat_meta m;
	char name[96];
	uint64_t stamp;

#define NAME(what) (snprintf(name, sizeof(name), "xdp_unit.%s.%s", tag, what), name)
	check(!r->err, NAME("test_run"), "bpf_prog_test_run failed: %s", strerror(-r->err));
	if (r->err)
		return 0;
	check(r->retval == XDP_PASS, NAME("retval"), "returned %u, want XDP_PASS (%u)", r->retval,
	      XDP_PASS);
	check(r->out_len == len + META_LEN, NAME("data_out_len"),
	      "data_out is %u bytes, want frame %u + meta %u", r->out_len, len, META_LEN);
	check(r->ctx_out.data == META_LEN, NAME("ctx_out_data"),
	      "ctx_out.data (metadata length) is %u, want %u", r->ctx_out.data, META_LEN);
	check(r->ctx_out.data_end == len + META_LEN, NAME("ctx_out_data_end"),
	      "ctx_out.data_end is %u, want %u", r->ctx_out.data_end, len + META_LEN);
	if (r->out_len != len + META_LEN)
		return 0;

	check(!memcmp(r->out + META_LEN, frame, len), NAME("packet_unchanged"),
	      "packet bytes after the metadata differ from the input frame");
	meta_at(r, 0, &m);
	check(m.magic == RXLAT_META_MAGIC, NAME("magic"), "magic 0x%08x, want 0x%08x", m.magic,
	      RXLAT_META_MAGIC);
	check(m.ifindex == LO_IFINDEX, NAME("ifindex"), "ifindex %u, want %u", m.ifindex,
	      LO_IFINDEX);
	check(m.rx_queue == 0, NAME("queue"), "rx_queue %u, want 0", m.rx_queue);
	check(m.flags == flags, NAME("flags"), "flags 0x%x, want 0x%x", m.flags, flags);
	stamp = rxlat_meta_stamp(&m);
	if (check_window)
		check(stamp >= r->before && stamp <= r->after, NAME("stamp_window"),
		      "stamp %llu outside [%llu, %llu] (CLOCK_MONOTONIC around the run)",
		      (unsigned long long)stamp, (unsigned long long)r->before,
		      (unsigned long long)r->after);
#undef NAME
	return stamp;
}

static void check_counters(struct rxlat_xdp *skel, const char *tag, uint64_t seen, uint64_t stamped,
			   uint64_t refused)
{
	struct rxlat_xdp_counters c;
	char name[96];
	int err;

	snprintf(name, sizeof(name), "xdp_unit.%s.counters", tag);
	err = read_counters(skel, &c);
	if (err) {
		check_failed(name, "no counters for ifindex %d queue 0: %s", LO_IFINDEX,
			     strerror(-err));
		return;
	}
	check(c.seen == seen && c.stamped == stamped && c.meta_refused == refused, name,
	      "seen %llu stamped %llu meta_refused %llu, want %llu %llu %llu",
	      (unsigned long long)c.seen, (unsigned long long)c.stamped,
	      (unsigned long long)c.meta_refused, (unsigned long long)seen,
	      (unsigned long long)stamped, (unsigned long long)refused);
}

/*
 * Metadata another program left. With 12 bytes there the area still fits
 * every kernel's limit, and the stamper's struct goes in front of those
 * bytes, not next to the packet: bpf_xdp_adjust_meta() grows the area at
 * its start. With as much metadata as the kernel accepts the stamper's 20
 * bytes cannot fit (6.1 caps the area at 32 bytes; later kernels allow more,
 * bounded by the headroom): the frame must pass untouched and count as
 * meta_refused. test_run checks its input metadata the way adjust_meta
 * checks the grown area, so the largest input it accepts is that limit.
 */
static void test_foreign_meta(struct rxlat_xdp *skel, const uint8_t *frame, uint32_t len,
			      uint16_t flags, uint64_t *seen, uint64_t *stamped, uint64_t *refused)
{
	int prog_fd = bpf_program__fd(skel->progs.rxlat_xdp);
	static uint8_t in[2048];
	uint32_t max_meta = 0;
	struct rxlat_meta m;
	struct run r = { 0 };

	for (int i = 0; i < FOREIGN_META; i++)
		in[i] = 0xa0 + i;
	memcpy(in + FOREIGN_META, frame, len);
	test_run(prog_fd, in, FOREIGN_META + len, FOREIGN_META, &r);
	(*seen)++;
	(*stamped)++;
	meta_at(&r, 0, &m);
	check(!r.err && r.retval == XDP_PASS && r.ctx_out.data == META_LEN + FOREIGN_META &&
		  r.out_len == META_LEN + FOREIGN_META + len && m.magic == RXLAT_META_MAGIC &&
		  m.flags == flags && !memcmp(r.out + META_LEN, in, FOREIGN_META + len),
	      "xdp_unit.foreign_meta_8.layout",
	      "err %d retval %u meta length %u (want %u), magic 0x%08x at the front of the area, "
	      "foreign bytes and frame %s",
	      r.err, r.retval, r.ctx_out.data, META_LEN + FOREIGN_META, m.magic,
	      !memcmp(r.out + META_LEN, in, FOREIGN_META + len) ? "kept" : "changed");

	for (uint32_t meta = 256; meta >= 32 && !max_meta; meta -= 4) {
		for (uint32_t i = 0; i < meta; i++)
			in[i] = 0xb0 + i;
		memcpy(in + meta, frame, len);
		test_run(prog_fd, in, meta + len, meta, &r);
		if (r.err == -EINVAL)
			continue;
		max_meta = meta;
	}
	if (!max_meta) {
		check_failed("xdp_unit.foreign_meta_max.refused",
			     "test_run accepted no metadata length between 32 and 256 bytes");
		return;
	}
	(*seen)++;
	(*refused)++;
	check(!r.err && r.retval == XDP_PASS && r.ctx_out.data == max_meta &&
		  r.out_len == max_meta + len && !memcmp(r.out, in, max_meta + len),
	      "xdp_unit.foreign_meta_max.refused",
	      "with %u bytes of metadata present: err %d retval %u meta length %u out %u bytes; "
	      "want XDP_PASS and the input unchanged",
	      max_meta, r.err, r.retval, r.ctx_out.data, r.out_len);
	printf("# kernel metadata limit seen by test_run: %u bytes\n", max_meta);
}

static void test_packet_mode(void)
{
	uint8_t v4[256], v6[256];
	uint32_t l4 = frame_v4(v4), l6 = frame_v6(v6);
	uint64_t stamps[5], seen = 0, stamped = 0, refused = 0;
	struct rxlat_xdp *skel;
	bool distinct = true;
	struct run r = { 0 };
	int prog_fd;

	skel = open_stamper(RXLAT_STAMP_PACKET, "packet");
	if (!skel)
		return;
	prog_fd = bpf_program__fd(skel->progs.rxlat_xdp);

	test_run(prog_fd, v4, l4, 0, &r);
	check_stamped("packet.v4", &r, v4, l4, 0, true);
	seen++, stamped++;
	test_run(prog_fd, v6, l6, 0, &r);
	check_stamped("packet.v6", &r, v6, l6, 0, true);
	seen++, stamped++;
	check_counters(skel, "packet", seen, stamped, refused);

	for (int i = 0; i < 5; i++) {
		test_run(prog_fd, v4, l4, 0, &r);
		seen++, stamped++;
		stamps[i] = 0;
		if (!r.err && r.retval == XDP_PASS && r.out_len == l4 + META_LEN &&
		    !memcmp(r.out + META_LEN, v4, l4)) {
			stamps[i] = stamp_at_front(&r);
			if (stamps[i] < r.before || stamps[i] > r.after)
				stamps[i] = 0;
		}
		if (!stamps[i] || (i && stamps[i] <= stamps[i - 1]))
			distinct = false;
	}
	check(distinct, "xdp_unit.packet.distinct_stamps",
	      "five runs did not give five increasing stamps, each within its run");

	test_foreign_meta(skel, v4, l4, 0, &seen, &stamped, &refused);
	check_counters(skel, "packet.final", seen, stamped, refused);
	rxlat_xdp__destroy(skel);
}

/*
 * Batch mode keeps one stamp per CPU in rxlat_batch. Without the collector's
 * poll-end reset (not loaded here; a test run is no NAPI poll anyway) the
 * stamper finds batches itself: a run more than RXLAT_BATCH_GAP_NS after the
 * previous one, or in a new jiffy, takes a fresh stamp, the others reuse it.
 * The process is pinned to one CPU because the state is per CPU.
 */
static void test_batch_mode(void)
{
	uint8_t v4[256], v6[256];
	uint32_t l4 = frame_v4(v4), l6 = frame_v6(v6);
	uint64_t seen = 0, stamped = 0, refused = 0, t0, t1;
	static uint64_t stamps[BATCH_RUNS], befores[BATCH_RUNS], afters[BATCH_RUNS];
	unsigned int distinct = 0, repeats = 0, bad = 0, unexplained = 0, close_pairs = 0;
	struct rxlat_xdp *skel;
	struct run r = { 0 };
	int prog_fd;

	skel = open_stamper(RXLAT_STAMP_BATCH, "batch");
	if (!skel)
		return;
	prog_fd = bpf_program__fd(skel->progs.rxlat_xdp);

	/* the first run after load has no stamp to reuse: it must be fresh */
	test_run(prog_fd, v4, l4, 0, &r);
	check_stamped("batch.v4", &r, v4, l4, RXLAT_META_F_BATCH, true);
	seen++, stamped++;
	test_run(prog_fd, v6, l6, 0, &r);
	check_stamped("batch.v6", &r, v6, l6, RXLAT_META_F_BATCH, false);
	seen++, stamped++;
	check_counters(skel, "batch", seen, stamped, refused);

	t0 = mono_ns();
	for (int i = 0; i < BATCH_RUNS; i++) {
		test_run(prog_fd, v4, l4, 0, &r);
		seen++, stamped++;
		befores[i] = r.before;
		afters[i] = r.after;
		stamps[i] = r.err || r.out_len != l4 + META_LEN ? 0 : stamp_at_front(&r);
	}
	t1 = mono_ns();

	/*
	 * A stamp seen for the first time must have been read during that
	 * run; a repeated one must be older than the run that reuses it, and
	 * follow the previous run by less than the gap (its clock read was at
	 * most afters[i] - befores[i - 1] after the previous one). A fresh
	 * stamp that no gap can explain must be a new jiffy: at most one a
	 * millisecond for any HZ up to 1000.
	 */
	for (int i = 0; i < BATCH_RUNS; i++) {
		if (!stamps[i]) {
			bad++;
		} else if (i && stamps[i] == stamps[i - 1]) {
			repeats++;
			if (stamps[i] >= befores[i] ||
			    befores[i] - afters[i - 1] > RXLAT_BATCH_GAP_NS)
				bad++;
		} else {
			distinct++;
			if (stamps[i] < befores[i] && i)
				bad++;
			if (stamps[i] > afters[i])
				bad++;
			if (i && afters[i] - befores[i - 1] <= RXLAT_BATCH_GAP_NS)
				unexplained++;
		}
		if (i && afters[i] - befores[i - 1] <= RXLAT_BATCH_GAP_NS)
			close_pairs++;
	}
	check(!bad, "xdp_unit.batch.stamp_origin",
	      "%u of %d runs had a missing stamp, a fresh stamp outside its run or a reused stamp "
	      "not older than its run or after a gap",
	      bad, BATCH_RUNS);
	/*
	 * Runs that followed each other within the gap must have shared the
	 * stamp (unless the jiffy moved); under emulation a run may take
	 * longer than the gap, and then nothing here is close enough to tell.
	 */
	if (!close_pairs)
		check_skip("xdp_unit.batch.shared_stamp",
			   "no two of %d runs within %d us of each other (slow machine): reuse not "
			   "observable",
			   BATCH_RUNS, RXLAT_BATCH_GAP_NS / 1000);
	else
		check(
		    repeats > 0 && unexplained <= (t1 - t0) / 1000000 + 2,
		    "xdp_unit.batch.shared_stamp",
		    "%u distinct stamps (%u within the gap) and %u reuses over %d runs in %llu us "
		    "(%u close pairs); want the stamp reused while runs follow each other "
		    "closely within a jiffy",
		    distinct, unexplained, repeats, BATCH_RUNS,
		    (unsigned long long)(t1 - t0) / 1000, close_pairs);

	test_foreign_meta(skel, v4, l4, RXLAT_META_F_BATCH, &seen, &stamped, &refused);
	check_counters(skel, "batch.final", seen, stamped, refused);
	rxlat_xdp__destroy(skel);
}

/*
 * A key whose counter slot another key holds on this CPU counts in the hash
 * table: take LO's slot for another interface on every CPU, run once, and
 * find the packet in the hash table and the slot's owner untouched.
 */
static void test_slot_taken(void)
{
	uint8_t v4[256];
	uint32_t l4 = frame_v4(v4);
	struct rxlat_xdp_key key = { .ifindex = LO_IFINDEX, .rx_queue = 0 };
	struct rxlat_xdp_counters in_hash = { 0 };
	int ncpu = libbpf_num_possible_cpus(), err;
	__u32 idx = rxlat_xdp_slot_of(LO_IFINDEX, 0);
	struct rxlat_xdp_slot *slots;
	struct rxlat_xdp *skel;
	struct run r = { 0 };

	skel = open_stamper(RXLAT_STAMP_PACKET, "slot_taken");
	if (!skel)
		return;
	slots = ncpu > 0 ? calloc(ncpu, sizeof(*slots)) : NULL;
	if (!slots) {
		check_failed("xdp_unit.slot_taken.setup", "out of memory");
		goto out;
	}
	for (int c = 0; c < ncpu; c++)
		slots[c].ifindex = 0x7fff0000;
	err = bpf_map_update_elem(bpf_map__fd(skel->maps.rxlat_xdp_slots), &idx, slots, BPF_ANY);
	if (err) {
		check_failed("xdp_unit.slot_taken.setup", "cannot take the slot: %s",
			     strerror(errno));
		goto out;
	}
	test_run(bpf_program__fd(skel->progs.rxlat_xdp), v4, l4, 0, &r);
	check_stamped("slot_taken", &r, v4, l4, 0, true);
	err = xdp_counters_sum_percpu(bpf_map__fd(skel->maps.rxlat_xdp_stats), &key, &in_hash);
	check(!err && in_hash.seen == 1 && in_hash.stamped == 1, "xdp_unit.slot_taken.in_hash",
	      "hash table holds seen %llu stamped %llu (%s), want 1 and 1",
	      (unsigned long long)in_hash.seen, (unsigned long long)in_hash.stamped,
	      err ? strerror(-err) : "found");
	check_counters(skel, "slot_taken", 1, 1, 0);
	memset(slots, 0, ncpu * sizeof(*slots));
	err = bpf_map_lookup_elem(bpf_map__fd(skel->maps.rxlat_xdp_slots), &idx, slots);
	check(!err && slots[sched_getcpu()].ifindex == 0x7fff0000 && !slots[sched_getcpu()].c.seen,
	      "xdp_unit.slot_taken.owner_kept", "the slot's owner or counts changed");
out:
	free(slots);
	rxlat_xdp__destroy(skel);
}

/* Per-CPU state (batch stamps, counters) must be read on one CPU. */
static int pin_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return -errno;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int main(int argc, char **argv)
{
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(libbpf_quiet);
	/* for the test scripts: whether the stamper can load here at all */
	if (argc == 2 && !strcmp(argv[1], "--meta")) {
		puts(rxlat_xdp_meta_refused() ? "refused" : "ok");
		return 0;
	}
	if (geteuid() != 0) {
		check_failed(
		    "xdp_unit.setup",
		    "must run as root (BPF_PROG_TEST_RUN needs CAP_BPF and CAP_NET_ADMIN)");
		return 1;
	}
	err = pin_cpu();
	if (err) {
		check_failed("xdp_unit.setup", "cannot pin to one CPU: %s", strerror(-err));
		return 1;
	}
	if (rxlat_xdp_meta_refused()) {
		/* the stamper cannot load here: the kernels under QEMU run these */
		check_skip("xdp_unit", "%s", RXLAT_XDP_META_REFUSED);
		return check_exit_status();
	}
	test_packet_mode();
	test_batch_mode();
	test_slot_taken();
	return check_exit_status() || !check_npassed ? 1 : 0;
}
