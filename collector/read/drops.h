/* SPDX-License-Identifier: GPL-2.0 */
/* --drops: reason names from the kernel's BTF, and the drop map's deltas. */
#ifndef RXLAT_DROPS_H
#define RXLAT_DROPS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "rxlat.h"
#include "report.h"

struct btf;
struct rxlat_collect;
struct rxlat_drops;

/* Does the kfree_skb tracepoint pass a drop reason here (5.17+)? */
bool drops_supported(const struct btf *vmlinux);
/* The reason names of the running kernel: 0 or -errno. */
int drops_open(struct rxlat_drops **out);
void drops_close(struct rxlat_drops *d);
/*
 * The drops of the interval that ends now, from the map's totals; the first
 * call takes the baseline. Rows without a drop are left out. *out is
 * malloc'ed; 0 or -ENOMEM.
 */
int drops_collect(struct rxlat_drops *d, int map_fd, struct rxlat_collect *col,
		  struct rxlat_drop_row **out, size_t *n);
/* The totals as of the last drops_collect(): up to max (key, count) pairs. */
int drops_totals(const struct rxlat_drops *d, struct rxlat_drop_key *keys, __u64 *counts,
		 size_t max);
const char *drops_reason(struct rxlat_drops *d, __u32 reason);
/* The map's totals now, per key: *keys and *counts malloc'ed; 0 or -ENOMEM. */
int drops_read(int map_fd, struct rxlat_drop_key **keys, __u64 **counts, size_t *n);

#endif
