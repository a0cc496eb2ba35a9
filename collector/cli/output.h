/* SPDX-License-Identifier: GPL-2.0 */
/* Reports and records to stdout, rendered into memory first. */
#ifndef RXLAT_OUTPUT_H
#define RXLAT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include "report.h"

/*
 * The report is rendered into memory first (see write_out()). A memory
 * stream doubles its buffer as it grows, copying as it goes: for a report
 * of several MB that is twice its size at once. This buffer grows by a
 * quarter and is kept for the next report, which is about as large: taken
 * anew each time, its pages would be faulted in again each time.
 */
struct outbuf {
	char *p;
	size_t len, cap;
};

struct rxlat_out {
	struct outbuf buf;
	bool json;
	bool torn; /* a report was cut short: the next starts on a new line */
};

/* r rendered (text, or JSON with o->json) into *buf (o's, *len bytes): 0 or -errno. */
int out_render(struct rxlat_out *o, const struct rxlat_report *r, char **buf, size_t *len);
/*
 * buf to stdout. A stop signal cuts a blocked write short (EINTR): then a
 * report of the loop gives way to the final one, and the final one gives
 * up once the deadline passed. 0, -EINTR when given up, or -errno.
 */
int out_write(struct rxlat_out *o, const char *buf, size_t len, bool final);
void out_free(struct rxlat_out *o);

#endif
