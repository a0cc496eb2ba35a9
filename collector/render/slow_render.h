/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --slow: one record as a text line or a JSON object ("type": "slow"), in
 * the same stream as the reports. collector/read/slow.c reads the ring
 * buffer and hands each record here with its names found; nothing here
 * touches BPF.
 */
#ifndef RXLAT_SLOW_RENDER_H
#define RXLAT_SLOW_RENDER_H

#include <stdbool.h>
#include <stdio.h>
#include "slow.h"

/*
 * l into f, as JSON when json: 0, or -ENOMEM when JSON could not be made.
 * A slow_render_fn, handed to slow_open().
 */
int slow_render(FILE *f, const struct rxlat_slow_line *l, bool json);

#endif
