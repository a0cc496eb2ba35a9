// SPDX-License-Identifier: GPL-2.0
/* Reports and records to stdout (output.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "output.h"
#include "signals.h"

int out_write(struct rxlat_out *o, const char *buf, size_t len, bool final)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(STDOUT_FILENO, buf + done, len - done);

		if (n >= 0) {
			done += n;
			continue;
		}
		if (errno != EINTR)
			return -errno;
		if (final ? signals_deadline_passed() : signals_stop() != 0) {
			o->torn = done > 0;
			return -EINTR;
		}
	}
	o->torn = false;
	return 0;
}

static ssize_t outbuf_write(void *cookie, const char *data, size_t n)
{
	struct outbuf *o = cookie;

	if (o->len + n > o->cap) {
		size_t cap = o->cap + o->cap / 4 + n + 4096;
		char *p = realloc(o->p, cap);

		if (!p)
			return -1;
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->len, data, n);
	o->len += n;
	return (ssize_t)n;
}

int out_render(struct rxlat_out *o, const struct rxlat_report *r, char **buf, size_t *len)
{
	cookie_io_functions_t io = { .write = outbuf_write };
	FILE *m;
	int err;

	o->buf.len = 0;
	m = fopencookie(&o->buf, "w", io);
	if (!m)
		return -errno;
	if (o->torn)
		fputc('\n', m);
	err = o->json ? rxlat_report_json(m, r) : rxlat_report_text(m, r);
	if (fclose(m) && !err)
		err = -ENOMEM;
	*buf = o->buf.p;
	*len = o->buf.len;
	return err;
}

void out_free(struct rxlat_out *o)
{
	free(o->buf.p);
	o->buf = (struct outbuf){};
}
