// SPDX-License-Identifier: GPL-2.0
/*
 * --slow on the user side: the records of the hooks' ring buffer, consumed
 * from the main loop's epoll set (never a thread, never a wait in the
 * datapath), as one text line or one JSON object each, in the same stream
 * as the reports.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>
#include "ifaces.h"
#include "drops.h"
#include "log.h"
#include "report.h"
#include "slow.h"
#include "groups.h"

struct rxlat_slow {
	struct ring_buffer *rb;
	bool json;
	struct rxlat_ifaces *ifaces;
	struct rxlat_drops *drops;
	__s64 realtime_offs; /* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	FILE *out;	     /* during slow_consume() */
	int err;
};

static const char *proto_name(__u8 p, char *buf, size_t len)
{
	if (p == 6)
		return "tcp";
	if (p == 17)
		return "udp";
	snprintf(buf, len, "%u", p);
	return buf;
}

static void addr_str(const struct rxlat_slow_rec *r, const __u8 *a, char *buf, size_t len)
{
	if (!r->family || !inet_ntop(r->family == 4 ? AF_INET : AF_INET6, a, buf, len))
		snprintf(buf, len, "?");
}

static void time_str(const struct rxlat_slow *s, __u64 mono, char *buf, size_t len, bool iso)
{
	__s64 t = (__s64)mono + s->realtime_offs;
	time_t sec = t / 1000000000;
	struct tm tm;
	size_t n = 0;

	if (iso ? gmtime_r(&sec, &tm) : localtime_r(&sec, &tm))
		n = strftime(buf, len, iso ? "%Y-%m-%dT%H:%M:%S" : "%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%06lld%s", (long long)(t % 1000000000) / 1000, iso ? "Z" : "");
}

/* Where the record was taken, when not in rxlat's namespace, and where stamped. */
struct where {
	char netns[256], if_netns[256];
};

static void where_of(const struct rxlat_slow_rec *r, struct where *w)
{
	w->netns[0] = w->if_netns[0] = '\0';
	if (r->netns)
		groups_netns_name(r->netns, w->netns, sizeof(w->netns));
	if (r->if_netns)
		groups_netns_name(r->if_netns, w->if_netns, sizeof(w->if_netns));
}

static int json_record(struct rxlat_slow *s, const struct rxlat_slow_rec *r, const char *stage,
		       const char *ifname, const char *reason, const struct where *w)
{
	struct json_object *o = json_object_new_object();
	char ts[64], sa[INET6_ADDRSTRLEN], da[INET6_ADDRSTRLEN], pb[8];
	const char *line;
	int err = 0;

	if (!o)
		return -ENOMEM;
	time_str(s, r->time_ns, ts, sizeof(ts), true);
	addr_str(r, r->saddr, sa, sizeof(sa));
	addr_str(r, r->daddr, da, sizeof(da));
	/* json-c takes the values over; a failed add leaves the object short */
	json_object_object_add(o, "type", json_object_new_string("slow"));
	json_object_object_add(o, "time", json_object_new_string(ts));
	json_object_object_add(o, "stage", json_object_new_string(stage));
	if (reason)
		json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_object_add(o, "ifname", json_object_new_string(ifname));
	json_object_object_add(o, "ifindex", json_object_new_uint64(r->ifindex));
	if (w->if_netns[0])
		json_object_object_add(o, "if_netns", json_object_new_string(w->if_netns));
	if (w->netns[0])
		json_object_object_add(o, "netns", json_object_new_string(w->netns));
	json_object_object_add(o, "queue", json_object_new_uint64(r->queue));
	json_object_object_add(o, "cpu", json_object_new_uint64(r->cpu));
	json_object_object_add(o, "family", json_object_new_int(r->family));
	json_object_object_add(o, "proto",
			       json_object_new_string(proto_name(r->proto, pb, sizeof(pb))));
	json_object_object_add(o, "saddr", json_object_new_string(sa));
	json_object_object_add(o, "sport", json_object_new_int(r->sport));
	json_object_object_add(o, "daddr", json_object_new_string(da));
	json_object_object_add(o, "dport", json_object_new_int(r->dport));
	json_object_object_add(o, "latency_ns", json_object_new_uint64(r->latency_ns));
	json_object_object_add(
	    o, "source",
	    json_object_new_string(
		rxlat_count_names[r->source < RXLAT_NR_SOURCES ? r->source : RXLAT_SRC_NONE]));
	line = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!line || fprintf(s->out, "%s\n", line) < 0)
		err = -ENOMEM;
	json_object_put(o);
	return err;
}

static int handle(void *ctx, void *data, size_t size)
{
	struct rxlat_slow *s = ctx;
	const struct rxlat_slow_rec *r = data;
	char ifname[RXLAT_IFNAME_LEN], ts[64], sa[INET6_ADDRSTRLEN], da[INET6_ADDRSTRLEN], pb[8];
	const char *stage, *reason = NULL;
	struct where w;
	bool v6;

	if (size < sizeof(*r))
		return 0;
	if (r->stage == RXLAT_SLOW_DROP) {
		stage = "drop";
		reason = s->drops ? drops_reason(s->drops, r->reason) : "?";
	} else {
		stage = r->stage < RXLAT_NR_STAGES ? rxlat_stage_names[r->stage] : "?";
	}
	if (r->if_netns) /* another namespace's interface: by its index */
		snprintf(ifname, sizeof(ifname), "if%u", r->ifindex);
	else
		ifaces_ifname(s->ifaces, r->ifindex, ifname);
	where_of(r, &w);
	if (s->json) {
		s->err = json_record(s, r, stage, ifname, reason, &w);
		return s->err;
	}
	time_str(s, r->time_ns, ts, sizeof(ts), false);
	addr_str(r, r->saddr, sa, sizeof(sa));
	addr_str(r, r->daddr, da, sizeof(da));
	v6 = r->family == 6;
	fprintf(s->out,
		"slow %s %s%s%s%s%s  %.*s%s%s queue %u cpu %u  %s %s%s%s:%u -> %s%s%s:%u  %.3f %s "
		"(%s)\n",
		ts, stage, reason ? " " : "", reason ? reason : "", w.netns[0] ? " netns=" : "",
		w.netns, RXLAT_IFNAME_LEN, ifname, w.if_netns[0] ? " if_netns=" : "", w.if_netns,
		r->queue, r->cpu, proto_name(r->proto, pb, sizeof(pb)), v6 ? "[" : "", sa,
		v6 ? "]" : "", r->sport, v6 ? "[" : "", da, v6 ? "]" : "", r->dport,
		r->latency_ns >= 1000000 ? r->latency_ns / 1e6 : r->latency_ns / 1e3,
		r->latency_ns >= 1000000 ? "ms" : "us",
		rxlat_count_names[r->source < RXLAT_NR_SOURCES ? r->source : RXLAT_SRC_NONE]);
	return 0;
}

int slow_open(struct rxlat_slow **out, int map_fd, bool json, struct rxlat_ifaces *ifaces,
	      struct rxlat_drops *drops)
{
	struct rxlat_slow *s = calloc(1, sizeof(*s));
	struct timespec rt, mono;
	int err;

	if (!s)
		return -ENOMEM;
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
