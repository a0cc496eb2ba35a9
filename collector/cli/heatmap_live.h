/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --heatmap: the picture of render/heatmap.h, fed with each report's series
 * as the report is rendered, rewritten after every report.
 */
#ifndef RXLAT_HEATMAP_LIVE_H
#define RXLAT_HEATMAP_LIVE_H

#include "config.h"
#include "report.h"

struct heatmap_live;

/*
 * Without --heatmap, *hl is NULL and 0 is returned. Else the file is
 * written once (no report yet): 0, or -errno with the error said.
 */
int heatmap_live_open(struct heatmap_live **hl, const struct rxlat_config *cfg);
/*
 * The next interval of the heatmap, and r->heatmap set: the renderer adds
 * each series to it as it takes it (NULL hl: nothing). 0 or -errno.
 */
int heatmap_live_begin(struct heatmap_live *hl, struct rxlat_report *r);
/*
 * The series no renderer took (-o none) taken from r's cursor into the
 * heatmap, and the file rewritten: 0 or -errno.
 */
int heatmap_live_end(struct heatmap_live *hl, struct rxlat_report *r);
void heatmap_live_close(struct heatmap_live *hl);

#endif
