// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the BPF build of rxlat_hist.h (hist_bpf_test.bpf.c) through
 * BPF_PROG_TEST_RUN and checks it against the user-space build, value for
 * value: both sides must bucket every sample alike or the report would label
 * the kernel's counts wrongly. Needs root. Prints PASS/FAIL lines like
 * hist_test; the BPF object is $BUILD/hist_bpf_test.bpf.o (run.sh sets
 * BUILD), else build/hist_bpf_test.bpf.o.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rxlat_hist.h"
#include "check.h"

struct hist_probe {
	__u64 ns;
	__u64 lower;
	__u64 le;
	__u32 idx;
	__u32 pad;
};

static int run(int fd, __u64 ns, struct hist_probe *p)
{
	struct bpf_test_run_opts opts = {
		.sz = sizeof(opts),
		.ctx_in = p,
		.ctx_size_in = sizeof(*p),
	};

	memset(p, 0, sizeof(*p));
	p->ns = ns;
	/* syscall programs hand the context back in ctx_in */
	return bpf_prog_test_run_opts(fd, &opts) ? -errno : 0;
}

/* 0 if the BPF results for ns match user space, else prints why. */
static int check(int fd, __u64 ns)
{
	struct hist_probe p;
	__u32 idx = rxlat_hist_bucket(ns);
	int err = run(fd, ns, &p);

	if (err) {
		check_failed("hist_bpf_equals_user", "test run: %s", strerror(-err));
		return err;
	}
	if (p.idx != idx || p.lower != rxlat_hist_lower(idx) || p.le != rxlat_hist_le(idx)) {
		check_failed("hist_bpf_equals_user",
			     "ns %" PRIu64 ": bpf %u [%" PRIu64 ", %" PRIu64 "], user %u",
			     (uint64_t)ns, p.idx, (uint64_t)p.lower, (uint64_t)p.le, idx);
		return -EINVAL;
	}
	return 0;
}

static int check_all(int fd)
{
	__u64 seed = 0x9e3779b97f4a7c15ULL, ns;
	__u32 i;
	int err = 0;

	for (i = 0; i < RXLAT_HIST_BUCKETS && !err; i++) {
		ns = rxlat_hist_lower(i);
		err = check(fd, ns);
		if (!err)
			err = check(fd, rxlat_hist_le(i));
		if (!err && i)
			err = check(fd, ns - 1);
		if (!err && i < RXLAT_HIST_BUCKETS - 1)
			err = check(fd, rxlat_hist_le(i) + 1);
	}
	for (i = 0; i < 100000 && !err; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		err = check(fd, seed >> (seed % 64));
	}
	return err;
}

int main(int argc, char **argv)
{
	const char *build = getenv("BUILD"); /* run.sh's, also inside the test VM */
	char path[4096] = "build/hist_bpf_test.bpf.o";
	struct bpf_program *prog;
	struct bpf_object *obj;
	int err;

	check_args(argc, argv); /* one case, hist_bpf */
	if (!check_case("hist_bpf"))
		return check_exit_status();
	if (build && *build)
		snprintf(path, sizeof(path), "%s/hist_bpf_test.bpf.o", build);
	libbpf_set_print(NULL);
	obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		check_failed("hist_bpf_load", "open %s: %s", path, strerror(errno));
		return 1;
	}
	err = bpf_object__load(obj);
	prog = bpf_object__find_program_by_name(obj, "hist_probe");
	if (err || !prog) {
		check_failed("hist_bpf_load", "%s", err ? strerror(-err) : "no program hist_probe");
		bpf_object__close(obj);
		return 1;
	}
	check_pass("hist_bpf_load");

	err = check_all(bpf_program__fd(prog));
	if (!err)
		check_pass("hist_bpf_equals_user");
	bpf_object__close(obj);
	return check_exit_status();
}
