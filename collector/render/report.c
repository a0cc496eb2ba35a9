// SPDX-License-Identifier: GPL-2.0
/* What the text and JSON renderers and --heatmap share: the report's series. */
#include <errno.h>

#include "heatmap.h"
#include "model.h"
#include "report.h"

int rxlat_report_next(const struct rxlat_report *r, struct rxlat_series *s)
{
	int got;

	while ((got = model_report_next(r->series, s)) > 0) {
		if (rxlat_stats_empty(&s->st))
			continue;
		if (r->heatmap && heatmap_add(r->heatmap, s))
			return -ENOMEM;
		return 1;
	}
	return got;
}
