// SPDX-License-Identifier: GPL-2.0
/* A map's entries as read at one moment (tally.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tally.h"

void tally_init(struct tally *t, size_t ksize, size_t vsize)
{
	memset(t, 0, sizeof(*t));
	t->ksize = ksize;
	t->vsize = vsize;
}

void tally_set_free(struct tally_set *s)
{
	free(s->keys);
	free(s->vals);
	memset(s, 0, sizeof(*s));
}

void tally_free(struct tally *t)
{
	tally_set_free(&t->base);
	tally_set_free(&t->prev);
}

static int set_copy(struct tally_set *dst, const struct tally_set *src, size_t ks, size_t vs)
{
	dst->keys = malloc(src->n ? src->n * ks : 1);
	dst->vals = malloc(src->n ? src->n * vs : 1);
	dst->n = src->n;
	if (!dst->keys || !dst->vals) {
		tally_set_free(dst);
		return -1;
	}
	if (src->n) {
		memcpy(dst->keys, src->keys, src->n * ks);
		memcpy(dst->vals, src->vals, src->n * vs);
	}
	return 0;
}

int tally_start(struct tally *t, tally_read read, void *ctx)
{
	struct tally_set now = {};
	int err = read(ctx, &now.keys, &now.vals, &now.n);

	if (err) {
		tally_set_free(&now);
		return err;
	}
	tally_set_free(&t->base);
	if (set_copy(&t->base, &now, t->ksize, t->vsize)) {
		tally_set_free(&now);
		return -ENOMEM;
	}
	tally_take(&t->prev, &now);
	return 0;
}

const void *tally_find(const struct tally *t, const struct tally_set *s, const void *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (!memcmp((const char *)s->keys + i * t->ksize, key, t->ksize))
			return (const char *)s->vals + i * t->vsize;
	return NULL;
}

void tally_take(struct tally_set *s, struct tally_set *now)
{
	tally_set_free(s);
	*s = *now;
	memset(now, 0, sizeof(*now));
}
