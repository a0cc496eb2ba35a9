/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What rxlat measures and how every part of it names that: a series (its
 * labels and its counts over an interval), the stage, protocol and counter
 * names, the rows of the stamper's counters and of the drops, and the
 * arithmetic on them (merging, percentiles). The attach plan, the model and
 * the renderers all speak it; nothing here touches BPF or prints.
 */
#ifndef RXLAT_SERIES_H
#define RXLAT_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "rxlat.h"

/* Queue values of the stamper's and the drops' rows that are not a number. */
#define RXLAT_QUEUE_ALL	  -1 /* all queues of the interface (no --per-queue) */
#define RXLAT_QUEUE_OTHER -2 /* the queues past the --max-queues limit */

#define RXLAT_IFNAME_LEN 16 /* IF_NAMESIZE, without pulling in <net/if.h> */

/* One series over one report interval. */
struct rxlat_stats {
	__u64 count; /* samples with a start time: the sum of buckets[] */
	__u64 sum_ns;
	__u64 max_ns;
	__u64 buckets[RXLAT_HIST_BUCKETS];
	union {
		__u64 counts[RXLAT_NR_COUNTS]; /* RXLAT_COUNTS of include/rxlat.h */
		/* per source; RXLAT_SRC_NONE samples are counted here only */
		__u64 sources[RXLAT_NR_SOURCES];
	};
};

/*
 * A series is named by its labels, in the order of the model's dimensions
 * (collector/read/model.c): the renderers print whatever labels a series
 * has, so a new dimension needs no change here or in them.
 *   text:        the RXLAT_LABEL_BARE label's value, then key=value of the
 *                others ("ip_rcv  ifname=eth0 queue=3"); null ones left out
 *   JSON:        "key": string, number or null
 *   Prometheus:  key="str" (str is also set for numbers and null: "all")
 * RXLAT_LABEL_JSON_ONLY labels (the ifindex) are in JSON only.
 */
#define RXLAT_MAX_LABELS 12
#define RXLAT_LABEL_LEN	 256

enum rxlat_label_kind { RXLAT_LABEL_STR, RXLAT_LABEL_NUM, RXLAT_LABEL_NULL };
#define RXLAT_LABEL_BARE      0x1
#define RXLAT_LABEL_JSON_ONLY 0x2

struct rxlat_label {
	const char *key;
	enum rxlat_label_kind kind;
	unsigned int flags;
	__u64 num;
	char str[RXLAT_LABEL_LEN];
};

struct rxlat_series {
	struct rxlat_label labels[RXLAT_MAX_LABELS];
	unsigned int nlabels;
	struct rxlat_stats st;
};

/* Appends a label to s (ignored past RXLAT_MAX_LABELS); its str is printf'ed. */
void rxlat_label_str(struct rxlat_series *s, const char *key, unsigned int flags, const char *fmt,
		     ...) __attribute__((format(printf, 4, 5)));
void rxlat_label_num(struct rxlat_series *s, const char *key, unsigned int flags, __u64 num);
/* A label with no value in text and JSON (null), prom in Prometheus. */
void rxlat_label_null(struct rxlat_series *s, const char *key, const char *prom);
/* The label of s with this key, NULL when it has none. */
const struct rxlat_label *rxlat_label_of(const struct rxlat_series *s, const char *key);

/*
 * The transport protocols whose packets a stage can measure (enum
 * rxlat_proto, include/rxlat.h), as the outputs name them
 * (rxlat_proto_names): "tcp", "udp".
 */

/*
 * What one stage measures of each protocol on this kernel, as the attach
 * plan decided (collector/attach/hooks/plan.c). A stage is about some protocols
 * by nature (the protos columns of RXLAT_STAGES, rxlat_stage_protos[]):
 * each of them is either measured or has its reason
 * in why_not; a protocol the stage is not about is neither. Both IP
 * families are measured wherever a protocol is.
 */
struct rxlat_coverage {
	unsigned int measured;		      /* RXLAT_PROTO_BIT()s */
	const char *why_not[RXLAT_NR_PROTOS]; /* NULL: measured, or not the stage's */
};

/*
 * XDP stamper counters of one (interface, queue) over the interval
 * (RXLAT_XDP_COUNTERS), and the CPU that ran the last poll counted (-1:
 * no poll counted).
 */
#define RXLAT_XDP_ROW_FIELD_(f, ...) __u64 f;
struct rxlat_xdp_row {
	char ifname[RXLAT_IFNAME_LEN];
	__u32 ifindex;
	int queue; /* as in struct rxlat_series */
	RXLAT_XDP_COUNTERS(RXLAT_XDP_ROW_FIELD_)
	int cpu;
};
#undef RXLAT_XDP_ROW_FIELD_

/*
 * Tunnel devices (VXLAN, Geneve) behind which the containers are not
 * measured: the tc stamp of the host's interfaces does not reach the
 * packets they decapsulate (docs/tc-stamper.md). Kept up to date by
 * collector/attach/ifaces/ifaces.c; the reports and the Prometheus endpoint read it.
 */
#define RXLAT_MAX_UNREACHED 16

struct rxlat_unreached_set {
	int n;
	struct {
		char ifname[RXLAT_IFNAME_LEN];
		char kind[8]; /* "vxlan", "geneve" */
	} e[RXLAT_MAX_UNREACHED];
};

/* --drops: stamped packets dropped on one (interface, queue) for one reason. */
struct rxlat_drop_row {
	char ifname[RXLAT_IFNAME_LEN];
	__u32 ifindex;
	int queue;
	const char *reason;    /* the kernel's name, without SKB_DROP_REASON_ */
	struct rxlat_stats st; /* time from the stamp to the drop */
};

extern const char *const rxlat_stage_names[RXLAT_NR_STAGES];
extern const char *const rxlat_proto_names[RXLAT_NR_PROTOS];
/* The protocols each stage is about (RXLAT_PROTO_BIT()s, RXLAT_STAGES). */
extern const unsigned int rxlat_stage_protos[RXLAT_NR_STAGES];
/*
 * The same as words, into buf: "napi_wait, ip_rcv and sock_read tcp and udp,
 * tcp_do_rcv and tcp_data_queue tcp, udp_queue_rcv udp".
 */
const char *rxlat_stage_protos_str(char *buf, size_t len);
/* The protocols of mask (RXLAT_PROTO_BIT()s) into buf: "tcp,udp", "" for none. */
const char *rxlat_protos_str(unsigned int mask, char *buf, size_t len);

/* The counters' and their groups' names (RXLAT_COUNTS, RXLAT_COUNT_GROUPS). */
struct rxlat_count_group_def {
	const char *name, *prom_family, *prom_label, *help, *legend;
};
extern const struct rxlat_count_group_def rxlat_count_groups[RXLAT_NR_COUNT_GROUPS];
extern const char *const rxlat_count_names[RXLAT_NR_COUNTS];
extern const enum rxlat_count_group rxlat_count_group_of[RXLAT_NR_COUNTS];

/* No sample at all: left out of every report. */
bool rxlat_stats_empty(const struct rxlat_stats *st);

/* dst += src; the max is the larger of both. */
void rxlat_stats_add(struct rxlat_stats *dst, const struct rxlat_stats *src);

/*
 * Estimate of the q-quantile (0 <= q <= 1) in ns: the sample of rank
 * ceil(q * count) (at least 1), placed by linear interpolation inside its
 * bucket and clamped to max_ns. 0 when count is 0.
 *
 * Error bound: the estimate lies in the same bucket as the true sample, so
 * it is off by less than one bucket width, which is at most 12.5% of the
 * bucket's lower bound and so of the true value (under 64 ns absolute in
 * the underflow bucket). In the overflow bucket (>= 2^34 ns) it is only
 * known to lie between 2^34 ns and max_ns.
 */
__u64 rxlat_percentile(const struct rxlat_stats *st, double q);

/*
 * The percentiles the reports give, each once: X(text name, JSON key, q,
 * drops), drops 1 where the --drops rows give it too (the text's drops
 * table, narrower, the first of those only).
 */
#define RXLAT_PERCENTILES(X)        \
	X("p50", "p50_ns", 0.5, 1)  \
	X("p90", "p90_ns", 0.9, 0)  \
	X("p99", "p99_ns", 0.99, 1) \
	X("p99.9", "p999_ns", 0.999, 0)
/* their text names as one string, "p50, p90, p99, p99.9, " */
#define RXLAT_PCT_TEXT(name, key, q, drops) name ", "
#define RXLAT_PERCENTILE_NAMES		    RXLAT_PERCENTILES(RXLAT_PCT_TEXT)

struct rxlat_pct {
	const char *name, *key;
	double q;
	bool drops;
};
extern const struct rxlat_pct rxlat_pcts[];
extern const size_t rxlat_npcts;

#endif /* RXLAT_SERIES_H */
