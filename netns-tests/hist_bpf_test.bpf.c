// SPDX-License-Identifier: GPL-2.0
/*
 * BPF side of the histogram test, built with clang -target bpf: proves that
 * rxlat_hist.h compiles for BPF and that the verifier accepts its bucket as
 * an array index, and lets hist_bpf_run_test compare the BPF results with
 * the user-space ones through BPF_PROG_TEST_RUN.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rxlat_hist.h"

char LICENSE[] SEC("license") = "GPL";

/* The program's context, in and out: same layout in hist_bpf_run_test.c. */
struct hist_probe {
	__u64 ns;    /* in */
	__u64 lower; /* out: rxlat_hist_lower(idx) */
	__u64 le;    /* out: rxlat_hist_le(idx) */
	__u32 idx;   /* out: rxlat_hist_bucket(ns) */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rxlat_hist);
} hist_probe_hist SEC(".maps");

SEC("syscall")
int hist_probe(struct hist_probe *p)
{
	struct rxlat_hist *h;
	__u32 zero = 0, idx;

	idx = rxlat_hist_bucket(p->ns);
	p->idx = idx;
	p->lower = rxlat_hist_lower(idx);
	p->le = rxlat_hist_le(idx);

	/* the way the collector uses it: unchecked index into a map value */
	h = bpf_map_lookup_elem(&hist_probe_hist, &zero);
	if (h)
		h->buckets[idx]++;
	return 0;
}
