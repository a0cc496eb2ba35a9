/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hooks' series store as plain memory, as the model reads it
 * (collector/read/model.c, store_hist()): no function of the hooks' in
 * between, so that a unit test lays the same tables over a flat array.
 *
 * Series idx (rxlat_series_index()) has its histogram at place
 * series_of[idx] (1 + chunk * RXLAT_CHUNK_SERIES + slot), 0 until its first
 * sample claims one (hooks.bpf.c, series_hist()); the place is there once
 * its chunk is below *nchunks, which grows as hooks_grow() maps more
 * (hooks_store.c, add_chunk(): chunks[i] is written before nchunks with a
 * release store). A reader loads the place and nchunks with acquire.
 */
#ifndef RXLAT_SERIES_STORE_H
#define RXLAT_SERIES_STORE_H

#include <linux/types.h>
#include "rxlat.h"

struct series_store {
	const __u64 *series_of; /* nr_series places, written by the hooks */
	__u32 nr_series;
	/* RXLAT_CHUNK_SERIES histograms each, mapped; the first *nchunks are there */
	struct rxlat_hist *const *chunks;
	const __u32 *nchunks;
};

#endif
