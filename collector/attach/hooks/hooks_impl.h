/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the latency hooks, for their own files only: the loader
 * (hooks_load.c) carries the plan out, the series store (hooks_store.c)
 * holds what the hooks record: the histogram chunks, the interface slots,
 * the counters.
 */
#ifndef RXLAT_HOOKS_IMPL_H
#define RXLAT_HOOKS_IMPL_H

#include <stddef.h>
#include <linux/types.h>
#include "config.h"
#include "hooks.h"
#include "plan.h"

struct rxlat_hooks {
	struct hooks_bpf *skel;
	struct plan plan;
	__u64 *series_of; /* mapped rxlat_series_of: series -> 1 + place */
	size_t series_of_len;
	/* the chunks of histograms created so far, mapped, and their fds */
	struct rxlat_hist **chunks;
	int *chunk_fds;
	__u32 nchunks, max_chunks;
	int cgroup_fd;
	__u32 nr_series;
	/* the interfaces where rxlat's own tc stamper runs (hooks_tc_iface()) */
	__u32 tc_own[RXLAT_MAX_IFACES_LIMIT];
	__u32 ntc_own;
	/* hooks_clock.c: the offset tables of tc stampers that iproute2 loaded */
	int foreign_offs[8];
	int nforeign_offs;
	bool foreign_found;
	bool ooo_unknown; /* hooks_ooo_unknown() */
};

/*
 * hooks_store.c. Between open and load: the sizes of the store's maps, and room
 * for the chunks (0 or -ENOMEM). After load: the slots of the interfaces
 * named with -i, the series table mapped, the first chunks (0 or -errno,
 * said). store_unmap() undoes what there is of both.
 */
int store_size(struct rxlat_hooks *h, const struct rxlat_config *cfg);
int store_start(struct rxlat_hooks *h, const struct rxlat_config *cfg);
void store_unmap(struct rxlat_hooks *h);

#endif
