// SPDX-License-Identifier: GPL-2.0
/* --slow records as text lines or JSON objects (slow_render.h). */
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <arpa/inet.h>
#include <json-c/json.h>
#include "slow_render.h"

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

static void time_str(__s64 t, char *buf, size_t len, bool iso)
{
	time_t sec = t / 1000000000;
	struct tm tm;
	size_t n = 0;

	if (iso ? gmtime_r(&sec, &tm) : localtime_r(&sec, &tm))
		n = strftime(buf, len, iso ? "%Y-%m-%dT%H:%M:%S" : "%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%06lld%s", (long long)(t % 1000000000) / 1000, iso ? "Z" : "");
}

static const char *stage_name(const struct rxlat_slow_rec *r)
{
	if (r->stage == RXLAT_SLOW_DROP)
		return "drop";
	return r->stage < RXLAT_NR_STAGES ? rxlat_stage_names[r->stage] : "?";
}

static const char *source_name(const struct rxlat_slow_rec *r)
{
	return rxlat_count_names[r->source < RXLAT_NR_SOURCES ? r->source : RXLAT_SRC_NONE];
}

static int json_record(FILE *f, const struct rxlat_slow_line *l)
{
	const struct rxlat_slow_rec *r = &l->rec;
	struct json_object *o = json_object_new_object();
	char ts[64], sa[INET6_ADDRSTRLEN], da[INET6_ADDRSTRLEN], pb[8];
	const char *line;
	int err = 0;

	if (!o)
		return -ENOMEM;
	time_str(l->realtime_ns, ts, sizeof(ts), true);
	addr_str(r, r->saddr, sa, sizeof(sa));
	addr_str(r, r->daddr, da, sizeof(da));
	/* json-c takes the values over; a failed add leaves the object short */
	json_object_object_add(o, "type", json_object_new_string("slow"));
	json_object_object_add(o, "time", json_object_new_string(ts));
	json_object_object_add(o, "stage", json_object_new_string(stage_name(r)));
	if (l->reason)
		json_object_object_add(o, "reason", json_object_new_string(l->reason));
	json_object_object_add(o, "ifname", json_object_new_string(l->ifname));
	json_object_object_add(o, "ifindex", json_object_new_uint64(r->ifindex));
	if (l->if_netns[0])
		json_object_object_add(o, "if_netns", json_object_new_string(l->if_netns));
	if (l->netns[0])
		json_object_object_add(o, "netns", json_object_new_string(l->netns));
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
	json_object_object_add(o, "source", json_object_new_string(source_name(r)));
	line = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!line || fprintf(f, "%s\n", line) < 0)
		err = -ENOMEM;
	json_object_put(o);
	return err;
}

int slow_render(FILE *f, const struct rxlat_slow_line *l, bool json)
{
	const struct rxlat_slow_rec *r = &l->rec;
	char ts[64], sa[INET6_ADDRSTRLEN], da[INET6_ADDRSTRLEN], pb[8];
	const char *reason = l->reason;
	bool v6 = r->family == 6;

	if (json)
		return json_record(f, l);
	time_str(l->realtime_ns, ts, sizeof(ts), false);
	addr_str(r, r->saddr, sa, sizeof(sa));
	addr_str(r, r->daddr, da, sizeof(da));
	/* a failed write shows when the stream is closed */
	fprintf(f,
		"slow %s %s%s%s%s%s  %.*s%s%s queue %u cpu %u  %s %s%s%s:%u -> %s%s%s:%u  %.3f %s "
		"(%s)\n",
		ts, stage_name(r), reason ? " " : "", reason ? reason : "",
		l->netns[0] ? " netns=" : "", l->netns, RXLAT_IFNAME_LEN, l->ifname,
		l->if_netns[0] ? " if_netns=" : "", l->if_netns, r->queue, r->cpu,
		proto_name(r->proto, pb, sizeof(pb)), v6 ? "[" : "", sa, v6 ? "]" : "", r->sport,
		v6 ? "[" : "", da, v6 ? "]" : "", r->dport,
		r->latency_ns >= 1000000 ? r->latency_ns / 1e6 : r->latency_ns / 1e3,
		r->latency_ns >= 1000000 ? "ms" : "us", source_name(r));
	return 0;
}
