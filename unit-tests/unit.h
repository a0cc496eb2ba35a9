/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What several unit tests share: the stage table as plain data, stamper
 * counters, the hooks' series store over a flat array, and a file read
 * whole.
 */
#ifndef RXLAT_UNIT_H
#define RXLAT_UNIT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rxlat.h"
#include "series_store.h"

struct stage {
	const char *name;
	const char *fentry[2];
	const char *fallback; /* "type:target" or NULL */
	const char *common;   /* "type:target" or NULL */
	bool kprobe;	      /* the fentry targets by kprobe, where the fallback fails */
};

#define STAGE(id, name, f4, f6, fb, no_fb, kp, com, ...) { name, { f4, f6 }, fb, com, kp },
static const struct stage stages[RXLAT_NR_STAGES] __attribute__((unused)) = { RXLAT_STAGES(STAGE) };
#undef STAGE

/* The XDP stamper's counters seen, stamped, meta_refused, without polls. */
#define XC(a, b, c)                                              \
	{                                                        \
		.seen = (a), .stamped = (b), .meta_refused = (c) \
	}

/*
 * The hooks' series store (series_store.h) laid over live, a flat array of
 * n series, as if the hooks had claimed them in index order: series idx at
 * place idx + 1, chunk c at live + c * RXLAT_CHUNK_SERIES, every chunk
 * mapped. live NULL: no series has a histogram. f holds the tables, and
 * outlives the model that reads them.
 */
#define FLAT_MAX_SERIES 1024
struct flat_store {
	__u64 series_of[FLAT_MAX_SERIES];
	struct rxlat_hist *chunks[FLAT_MAX_SERIES / RXLAT_CHUNK_SERIES];
	__u32 nchunks;
};

static inline struct series_store flat_store(struct flat_store *f, struct rxlat_hist *live, __u32 n)
{
	memset(f, 0, sizeof(*f));
	for (__u32 i = 0; live && i < n && i < FLAT_MAX_SERIES; i++)
		f->series_of[i] = i + 1;
	while (live && f->nchunks * RXLAT_CHUNK_SERIES < n &&
	       f->nchunks < FLAT_MAX_SERIES / RXLAT_CHUNK_SERIES) {
		f->chunks[f->nchunks] = live + f->nchunks * RXLAT_CHUNK_SERIES;
		f->nchunks++;
	}
	return (struct series_store){ f->series_of, n < FLAT_MAX_SERIES ? n : FLAT_MAX_SERIES,
				      f->chunks, &f->nchunks };
}

/* The whole file at path, malloc'ed and NUL-terminated; NULL when unreadable. */
static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

#endif
