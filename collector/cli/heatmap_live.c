// SPDX-License-Identifier: GPL-2.0
/* --heatmap (heatmap_live.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "heatmap.h"
#include "heatmap_live.h"
#include "log.h"
#include "opt.h"

struct heatmap_live {
	struct heatmap *h;
	const char *path;
	int err; /* of the last write, said once */
};

/* At start-up a failure ends the run; later it is said once, and retried. */
static int write_file(struct heatmap_live *hl, bool starting)
{
	int err = heatmap_write(hl->h, "rxlat --heatmap", hl->path);

	if (err && err != hl->err)
		rxlat_err("%s %s: cannot write it: %s%s", opt(OPT_HEATMAP), hl->path,
			  strerror(-err), starting ? "" : " (tried again after each report)");
	else if (!err && hl->err)
		rxlat_info("%s %s: written again", opt(OPT_HEATMAP), hl->path);
	hl->err = err;
	return err;
}

int heatmap_live_open(struct heatmap_live **hl, const struct rxlat_config *cfg)
{
	struct heatmap_live *n;

	*hl = NULL;
	if (!cfg->heatmap_path[0])
		return 0;
	n = calloc(1, sizeof(*n));
	if (n)
		n->h = heatmap_new(cfg->heatmap_window);
	if (!n || !n->h) {
		free(n);
		rxlat_err("out of memory");
		return -ENOMEM;
	}
	n->path = cfg->heatmap_path;
	if (write_file(n, true)) {
		heatmap_live_close(n);
		return -EIO;
	}
	*hl = n;
	return 0;
}

int heatmap_live_begin(struct heatmap_live *hl, struct rxlat_report *r)
{
	if (!hl)
		return 0;
	r->heatmap = hl->h;
	return heatmap_interval(hl->h, (double)r->time.tv_sec + r->time.tv_nsec / 1e9,
				r->interval_s);
}

int heatmap_live_end(struct heatmap_live *hl, struct rxlat_report *r)
{
	struct rxlat_series s;
	int got;

	if (!hl)
		return 0;
	/* -o none: no renderer took the series, and so none reached the heatmap */
	while ((got = rxlat_report_next(r, &s)) > 0)
		;
	if (got < 0)
		return got;
	/* a failed write is said, and the run goes on */
	write_file(hl, false);
	return 0;
}

void heatmap_live_close(struct heatmap_live *hl)
{
	if (!hl)
		return;
	heatmap_free(hl->h);
	free(hl);
}
