// SPDX-License-Identifier: GPL-2.0
/*
 * --drops on the user side: the names of the kernel's drop reasons, taken
 * from its own BTF (enum skb_drop_reason grows with every release, and its
 * values move: no table here could be right for every kernel), and the
 * drop map's entries as the model reads them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "drops.h"
#include "log.h"
#include "rxlat_hist.h"

#define REASON_PREFIX "SKB_DROP_REASON_"

struct rxlat_drops {
	char **names; /* by reason value, NULL where the enum has none */
	__u32 nnames;
	char unknown[64][24]; /* "reason N" for values this kernel's BTF lacks */
};

int drops_open(struct rxlat_drops **out)
{
	struct rxlat_drops *d = calloc(1, sizeof(*d));
	struct btf *vmlinux = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_enum *e;
	int id, err = -ENOENT;

	if (!d || !vmlinux) {
		err = d ? -errno : -ENOMEM;
		goto fail;
	}
	id = btf__find_by_name_kind(vmlinux, "skb_drop_reason", BTF_KIND_ENUM);
	if (id < 0)
		goto fail;
	t = btf__type_by_id(vmlinux, id);
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t); i++)
		if ((__u32)e[i].val < 4096 && (__u32)e[i].val >= d->nnames)
			d->nnames = (__u32)e[i].val + 1;
	d->names = calloc(d->nnames ? d->nnames : 1, sizeof(*d->names));
	if (!d->names) {
		err = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(vmlinux, e[i].name_off);

		if ((__u32)e[i].val >= d->nnames || !name)
			continue;
		if (!strncmp(name, REASON_PREFIX, strlen(REASON_PREFIX)))
			name += strlen(REASON_PREFIX);
		d->names[e[i].val] = strdup(name);
		if (!d->names[e[i].val]) {
			err = -ENOMEM;
			goto fail;
		}
	}
	btf__free(vmlinux);
	*out = d;
	return 0;
fail:
	btf__free(vmlinux);
	drops_close(d);
	return err;
}

void drops_close(struct rxlat_drops *d)
{
	if (!d)
		return;
	for (__u32 i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	free(d);
}

const char *drops_reason(struct rxlat_drops *d, __u32 reason)
{
	if (reason < d->nnames && d->names[reason])
		return d->names[reason];
	/* a value past this kernel's enum (a subsystem's reason): its number */
	snprintf(d->unknown[reason % 64], sizeof(d->unknown[0]), "reason %u", reason);
	return d->unknown[reason % 64];
}

int drops_read(int fd, struct rxlat_drop_key **keys, struct rxlat_drop **vals, size_t *n)
{
	struct rxlat_drop_key k, next, *cur = NULL;

	*n = 0;
	*keys = calloc(RXLAT_DROP_ENTRIES, sizeof(**keys));
	*vals = calloc(RXLAT_DROP_ENTRIES, sizeof(**vals));
	if (!*keys || !*vals)
		return -ENOMEM;
	while (*n < RXLAT_DROP_ENTRIES && !bpf_map_get_next_key(fd, cur, &next)) {
		k = next;
		cur = &k;
		if (bpf_map_lookup_elem(fd, &k, &(*vals)[*n]))
			continue; /* entries are never deleted: cannot happen */
		(*keys)[(*n)++] = k;
	}
	return 0;
}
