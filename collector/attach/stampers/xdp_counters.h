/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the XDP stamper's per-CPU counters from user space: rxlat itself
 * (collector/stamper.c) and the stamper's unit test (netns-tests/xdp_unit.c)
 * sum them the same way.
 */
#ifndef RXLAT_XDP_COUNTERS_H
#define RXLAT_XDP_COUNTERS_H

#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "rxlat.h"

static inline void xdp_counters_add(struct rxlat_xdp_counters *dst,
				    const struct rxlat_xdp_counters *src)
{
#define RXLAT_XDP_ADD_(f, ...) dst->f += src->f;
	RXLAT_XDP_COUNTERS(RXLAT_XDP_ADD_)
#undef RXLAT_XDP_ADD_
	/* the last poll, of whichever CPU ran it */
	if (src->last_poll > dst->last_poll) {
		dst->last_poll = src->last_poll;
		dst->cpu = src->cpu;
	}
}

/*
 * Adds the per-CPU values of KEY in the per-CPU map FD to *sum: 0, or a
 * negative errno (-ENOENT when the key is not in the map).
 */
static inline int xdp_counters_sum_percpu(int fd, const void *key, struct rxlat_xdp_counters *sum)
{
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct rxlat_xdp_counters *v;

	if (ncpu < 0)
		return ncpu;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, key, v))
		err = -errno;
	for (int c = 0; !err && c < ncpu; c++)
		xdp_counters_add(sum, &v[c]);
	free(v);
	return err;
}

/*
 * Calls fn(arg, key, counters) for every slot of the per-CPU slot array FD
 * (rxlat_xdp_slots) that a key holds on some CPU, once per CPU. Returns 0,
 * the first non-zero value of fn, or a negative errno.
 */
typedef int (*xdp_slot_fn)(void *arg, const struct rxlat_xdp_key *key,
			   const struct rxlat_xdp_counters *c);

static inline int xdp_slots_visit(int fd, xdp_slot_fn fn, void *arg)
{
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct rxlat_xdp_slot *v;

	if (ncpu < 0)
		return ncpu;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (__u32 i = 0; !err && i < RXLAT_XDP_SLOTS; i++) {
		if (bpf_map_lookup_elem(fd, &i, v)) {
			err = -errno;
			break;
		}
		for (int c = 0; !err && c < ncpu; c++) {
			struct rxlat_xdp_key k = { v[c].ifindex, v[c].rx_queue };

			if (k.ifindex)
				err = fn(arg, &k, &v[c].c);
		}
	}
	free(v);
	return err;
}

#endif /* RXLAT_XDP_COUNTERS_H */
