// SPDX-License-Identifier: GPL-2.0
/* What the text and JSON renderers share: the series of a report, one at a time. */
#include "report.h"

int rxlat_report_series(const struct rxlat_report *r, size_t i, struct rxlat_series *buf,
			const struct rxlat_series **s)
{
	if (r->next_series) {
		*s = buf;
		return r->next_series(r->series_ctx, buf);
	}
	if (i >= r->nseries)
		return 0;
	*s = &r->series[i];
	return 1;
}
