/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A map's entries as read at one moment: keys and values, each a fixed
 * size, in the order the map gave them. The model keeps two per map (the
 * baseline, and the totals of the last report) and finds a key's value in
 * them.
 */
#ifndef RXLAT_TALLY_H
#define RXLAT_TALLY_H

#include <stddef.h>

struct tally_set {
	void *keys, *vals; /* malloc'ed */
	size_t n;
};

struct tally {
	size_t ksize, vsize;
	struct tally_set base, prev;
};

/* Reads a map's entries into malloc'ed arrays: 0 or -errno. */
typedef int (*tally_read)(void *ctx, void **keys, void **vals, size_t *n);

void tally_init(struct tally *t, size_t ksize, size_t vsize);
void tally_free(struct tally *t);
/* The baseline, which is also the last report's: 0 or -errno. */
int tally_start(struct tally *t, tally_read read, void *ctx);
/* The value of key in s, NULL when s has none. */
const void *tally_find(const struct tally *t, const struct tally_set *s, const void *key);
void tally_set_free(struct tally_set *s);
/* s now holds now's arrays (its old ones freed); now is emptied. */
void tally_take(struct tally_set *s, struct tally_set *now);

#endif
