// SPDX-License-Identifier: GPL-2.0
/*
 * CLOCK_REALTIME - CLOCK_MONOTONIC for the BPF programs of a kernel that
 * cannot read the kernel's own copy (include/rxlat_clock.bpf.h: before
 * bpf_ktime_get_tai_ns(), 6.1): rxlat reads it, puts it in rxlat_tc_offs
 * as a new epoch when it moved, and the hooks and the tc stamper read the
 * newest one. Elsewhere the tc stamper keeps that table itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "hooks_impl.h"
#include "hooks_bpf.skel.h"
#include "log.h"

/* A move smaller than this is the reading's own error, not a step. */
#define CLOCK_STEP_NS 1000

static __s64 ns(const struct timespec *t)
{
	return (__s64)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* The offset now, from the closest of three brackets of a realtime read. */
static __s64 offset_now(void)
{
	__s64 best = 0, gap = -1;

	for (int i = 0; i < 3; i++) {
		struct timespec m1, r, m2;

		clock_gettime(CLOCK_MONOTONIC, &m1);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &m2);
		if (gap < 0 || ns(&m2) - ns(&m1) < gap) {
			gap = ns(&m2) - ns(&m1);
			best = ns(&r) - (ns(&m1) + ns(&m2)) / 2;
		}
	}
	return best;
}

/* Whether this kernel's BPF has helper name, by its BTF; *known caches it. */
static bool helper_known(int *known, const char *name)
{
	if (*known < 0) {
		struct btf *vmlinux = btf__load_vmlinux_btf();

		*known = vmlinux && plan_has_helper(vmlinux, name);
		btf__free(vmlinux);
	}
	return *known;
}

bool hooks_user_clock(void)
{
	static int tai = -1;

	return !helper_known(&tai, "BPF_FUNC_ktime_get_tai_ns");
}

bool hooks_fwd_stamps(void)
{
	static int set_tstamp = -1;

	return helper_known(&set_tstamp, "BPF_FUNC_skb_set_tstamp");
}

/*
 * A tc stamper that iproute2 loaded has offset tables of its own, which no
 * one else fills there: the tables of every such program loaded now (the
 * first call, before rxlat gives up the right to open programs by id), so
 * that rxlat keeps them too and they stamp. One loaded later stamps
 * nothing until the next rxlat.
 */
static void find_foreign(struct rxlat_hooks *h)
{
	struct bpf_map_info own = {};
	__u32 id = 0, len = sizeof(own);

	h->foreign_found = true;
	if (bpf_obj_get_info_by_fd(bpf_map__fd(h->skel->maps.rxlat_tc_offs), &own, &len))
		return;
	while (!bpf_prog_get_next_id(id, &id) && h->nforeign_offs < 8) {
		struct bpf_prog_info info = {};
		__u32 maps[16], n;
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		len = sizeof(info);
		info.nr_map_ids = 16;
		info.map_ids = (__u64)(unsigned long)maps;
		if (bpf_obj_get_info_by_fd(fd, &info, &len) || strcmp(info.name, TC_PROG_NAME))
			info.nr_map_ids = 0;
		close(fd);
		n = info.nr_map_ids < 16 ? info.nr_map_ids : 16;
		for (__u32 i = 0; i < n && h->nforeign_offs < 8; i++) {
			struct bpf_map_info m = {};
			int mfd = maps[i] == own.id ? -1 : bpf_map_get_fd_by_id(maps[i]);

			len = sizeof(m);
			if (mfd >= 0 && !bpf_obj_get_info_by_fd(mfd, &m, &len) &&
			    !strcmp(m.name, "rxlat_tc_offs") &&
			    m.value_size == sizeof(struct rxlat_tc_offs))
				h->foreign_offs[h->nforeign_offs++] = mfd;
			else if (mfd >= 0)
				close(mfd);
		}
	}
}

/* Table fd to t, the offset written before the epoch that names it. */
static int put(int fd, struct rxlat_tc_offs t, __u32 next)
{
	__u32 zero = 0;

	t.offs[next] = t.offs[0];
	t.offs[0] = 0;
	if (bpf_map_update_elem(fd, &zero, &t, BPF_ANY))
		return -errno;
	t.cur = next;
	return bpf_map_update_elem(fd, &zero, &t, BPF_ANY) ? -errno : 0;
}

int hooks_clock(struct rxlat_hooks *h)
{
	int fd = bpf_map__fd(h->skel->maps.rxlat_tc_offs), err;
	struct rxlat_tc_offs t;
	__u32 zero = 0, next;
	__s64 offs;

	if (!hooks_user_clock())
		return 0;
	if (!h->foreign_found)
		find_foreign(h);
	if (bpf_map_lookup_elem(fd, &zero, &t))
		return -errno;
	offs = offset_now();
	if (t.cur && llabs(offs - t.offs[t.cur]) < CLOCK_STEP_NS)
		return 0;
	next = t.cur < RXLAT_TC_EPOCHS - 1 ? t.cur + 1 : 1;
	if (t.cur)
		rxlat_debug("the realtime clock moved by %lld ns: epoch %u", offs - t.offs[t.cur],
			    next);
	t.offs[0] = offs; /* put() moves it to its epoch */
	err = put(fd, t, next);
	for (int i = 0; i < h->nforeign_offs; i++)
		put(h->foreign_offs[i], t, next);
	return err;
}
