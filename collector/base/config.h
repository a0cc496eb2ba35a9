/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configuration of a run: what the command line asked for, each field
 * set from its option's entry in options_table.h.
 */
#ifndef RXLAT_CONFIG_H
#define RXLAT_CONFIG_H

#include <stdbool.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/types.h>
#include "rxlat.h"

/* Exported Prometheus buckets per power of two: 8 is the map's own resolution. */
#define PROM_BUCKETS_DEFAULT 2

#define RXLAT_MAX_CLI_IFACES 64
/*
 * rxlat's tick between reports, in seconds: new series get their chunks,
 * groups their names, and until each named interface has had packets, the
 * stamper's counters are checked for a driver that refuses metadata.
 */
#define RXLAT_TICK_S 0.2
/*
 * The series array is allocated whole at start-up, and user space keeps a
 * copy of it: past this size of map, the start is refused rather than the
 * host's memory taken (256 x 256 would be 616 MiB, twice).
 */
#define RXLAT_HISTS_BYTES_LIMIT (64u << 20)

enum rxlat_xdp_mode { RXLAT_XDP_NATIVE, RXLAT_XDP_SKB };
enum rxlat_attach_mode { RXLAT_ATTACH_AUTO, RXLAT_ATTACH_FENTRY, RXLAT_ATTACH_FALLBACK };
enum rxlat_output { RXLAT_OUT_TEXT, RXLAT_OUT_JSON, RXLAT_OUT_NONE };

struct rxlat_config {
	char ifnames[RXLAT_MAX_CLI_IFACES][IF_NAMESIZE];
	__u32 ifindexes[RXLAT_MAX_CLI_IFACES];
	int nifaces;
	enum rxlat_xdp_mode xdp_mode;
	/* --xdp-mode given: the XDP stamper or an error, never tc instead */
	bool xdp_forced;
	bool no_xdp;
	bool tc; /* --tc: the tc stamper instead of the XDP one */
	enum rxlat_stamp_mode stamp;
	bool per_queue;
	bool stages[RXLAT_NR_STAGES];
	enum rxlat_attach_mode attach;
	double interval_s;
	double duration_s;
	enum rxlat_output output;
	bool list_stages;
	bool verbose;
	/* --prometheus: the "[ADDR:]PORT" given, empty when off; prom.h */
	char prom_listen[64];
	struct sockaddr_storage prom_addr;
	unsigned int prom_buckets; /* exported buckets per power of two, PROM_BUCKETS_DEFAULT */
	bool prom_classic;	   /* --prometheus-classic: in protobuf too */
	/* --web-config: the file, read and checked as it was parsed (web_config.h) */
	char web_config[256];
	struct web_config *web;
	char cgroup_path[256];	     /* --cgroup, empty when off */
	bool drops;		     /* --drops: count stamped packets the kernel drops */
	bool include_ooo;	     /* --include-ooo: held reads are samples too */
	unsigned int slow_rate;	     /* --slow-rate: records a second per CPU */
	char heatmap_path[4096];     /* --heatmap, empty when off */
	unsigned int heatmap_window; /* --heatmap-window: reports kept */
	/*
	 * What the hooks read (include/rxlat.h), set here as the options are
	 * parsed and handed to BPF whole: --max-ifaces, --max-queues, the
	 * filters (--proto, --port, --cgroup), --slow. The loader adds only
	 * what it finds on the kernel (namespace, probes).
	 */
	struct rxlat_bpf_config bpf;
};

/* The sizes of the series index (include/rxlat.h). */
static inline struct rxlat_dims rxlat_config_dims(const struct rxlat_config *cfg)
{
	return (struct rxlat_dims){ cfg->bpf.max_groups, cfg->bpf.max_ifaces, cfg->bpf.max_queues };
}

#endif
