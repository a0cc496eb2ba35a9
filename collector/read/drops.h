/* SPDX-License-Identifier: GPL-2.0 */
/* --drops: reason names from the kernel's BTF, and the drop map's entries. */
#ifndef RXLAT_DROPS_H
#define RXLAT_DROPS_H

#include <stddef.h>
#include <linux/types.h>
#include "rxlat.h"

struct rxlat_drops;

/* The reason names of the running kernel: 0 or -errno. */
int drops_open(struct rxlat_drops **out);
void drops_close(struct rxlat_drops *d);
/* The kernel's name of a reason, without SKB_DROP_REASON_ ("reason N" if unknown). */
const char *drops_reason(struct rxlat_drops *d, __u32 reason);
/* The drop map's entries now: *keys and *vals malloc'ed; 0 or -ENOMEM. */
int drops_read(int map_fd, struct rxlat_drop_key **keys, struct rxlat_drop **vals, size_t *n);

#endif
