// SPDX-License-Identifier: GPL-2.0
/*
 * --slow on the user side: the records of the hooks' ring buffer, consumed
 * from the main loop's epoll set (never a thread, never a wait in the
 * datapath), each handed with its names to the renderer slow_open() is
 * given (collector/render/slow_render.c), which makes it one text line or
 * one JSON object in the same stream as the reports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "ifaces.h"
#include "drops.h"
#include "log.h"
#include "slow.h"
#include "groups.h"

struct rxlat_slow {
	struct ring_buffer *rb;
	slow_render_fn *render;
	bool json;
	struct rxlat_ifaces *ifaces;
	struct rxlat_drops *drops;
	__s64 realtime_offs; /* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	FILE *out;	     /* during slow_consume() */
	int err;
};

static int handle(void *ctx, void *data, size_t size)
{
	struct rxlat_slow *s = ctx;
	struct rxlat_slow_line l = {};

	if (size < sizeof(l.rec))
		return 0;
	memcpy(&l.rec, data, sizeof(l.rec));
	l.realtime_ns = (__s64)l.rec.time_ns + s->realtime_offs;
	if (l.rec.stage == RXLAT_SLOW_DROP)
		l.reason = s->drops ? drops_reason(s->drops, l.rec.reason) : "?";
	if (l.rec.if_netns) /* another namespace's interface: by its index */
		snprintf(l.ifname, sizeof(l.ifname), "if%u", l.rec.ifindex);
	else
		ifaces_ifname(s->ifaces, l.rec.ifindex, l.ifname);
	/* where the record was taken, when not in rxlat's namespace, and where stamped */
	if (l.rec.netns)
		groups_netns_name(l.rec.netns, l.netns, sizeof(l.netns));
	if (l.rec.if_netns)
		groups_netns_name(l.rec.if_netns, l.if_netns, sizeof(l.if_netns));
	s->err = s->render(s->out, &l, s->json);
	return s->err;
}

int slow_open(struct rxlat_slow **out, int map_fd, slow_render_fn *render, bool json,
	      struct rxlat_ifaces *ifaces, struct rxlat_drops *drops)
{
	struct rxlat_slow *s = calloc(1, sizeof(*s));
	struct timespec rt, mono;
	int err;

	if (!s)
		return -ENOMEM;
	s->render = render;
	s->json = json;
	s->ifaces = ifaces;
	s->drops = drops;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &rt);
	s->realtime_offs =
	    ((__s64)rt.tv_sec - mono.tv_sec) * 1000000000 + (rt.tv_nsec - mono.tv_nsec);
	s->rb = ring_buffer__new(map_fd, handle, s, NULL);
	if (!s->rb) {
		err = -errno;
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

int slow_fd(const struct rxlat_slow *s)
{
	return ring_buffer__epoll_fd(s->rb);
}

int slow_consume(struct rxlat_slow *s, char **buf, size_t *len)
{
	int n;

	*buf = NULL;
	*len = 0;
	s->out = open_memstream(buf, len);
	if (!s->out)
		return -errno;
	s->err = 0;
	n = ring_buffer__consume(s->rb);
	if (fclose(s->out) && !s->err)
		s->err = -ENOMEM;
	s->out = NULL;
	if (n < 0 && !s->err)
		s->err = n;
	return s->err;
}

void slow_close(struct rxlat_slow *s)
{
	if (!s)
		return;
	ring_buffer__free(s->rb);
	free(s);
}
