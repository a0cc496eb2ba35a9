/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What several unit tests share: the stage table as plain data, stamper
 * counters, and a file read whole.
 */
#ifndef RXLAT_UNIT_H
#define RXLAT_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include "rxlat.h"

struct stage {
	const char *name;
	const char *fentry[2];
	const char *fallback; /* "type:target" or NULL */
	const char *common;   /* "type:target" or NULL */
};

#define STAGE(id, name, f4, f6, fb, no_fb, com, ...) { name, { f4, f6 }, fb, com },
static const struct stage stages[RXLAT_NR_STAGES] __attribute__((unused)) = { RXLAT_STAGES(STAGE) };
#undef STAGE

/* The XDP stamper's counters seen, stamped, meta_refused, without polls. */
#define XC(a, b, c)                                              \
	{                                                        \
		.seen = (a), .stamped = (b), .meta_refused = (c) \
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
