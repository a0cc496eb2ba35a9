/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the parts of the rxlat command. */
#ifndef RXLAT_COLLECTOR_H
#define RXLAT_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include "rxlat.h"

#define RXLAT_MAX_CLI_IFACES 64
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
	__u32 max_ifaces;
	__u32 max_queues;
	/* --prometheus: the "[ADDR:]PORT" given, empty when off; prom.h */
	char prom_listen[64];
	struct sockaddr_storage prom_addr;
	unsigned int prom_buckets; /* exported buckets per power of two */
	/* filters, applied in BPF (filters.c): 0 / empty when off */
	__u8 filter_proto;	     /* IPPROTO_TCP or IPPROTO_UDP */
	int nports;		     /* --port: how many local ports */
	__u64 port_bits[65536 / 64]; /* bit p: port p */
	__u64 cgroup_id;	     /* --cgroup: its cgroup v2 id */
	char cgroup_path[256];
	bool drops;		/* --drops: count stamped packets the kernel drops */
	__u64 slow_ns;		/* --slow: records of samples from here up, 0: off */
	unsigned int slow_rate; /* --slow-rate: records a second per CPU */
};

/*
 * stamper.c: the XDP stamper, attached by rxlat or found when --no-xdp, and
 * the poll-end reset of its batch stamps, attached whenever there is one.
 */
struct rxlat_stamper;
/*
 * Attaches the XDP stamper to the named interfaces; use_tc[i] is set for
 * each where another program holds XDP or the stamper cannot attach (said
 * in one line). *out is NULL when no interface has it.
 */
int stamper_attach(struct rxlat_stamper **out, const struct rxlat_config *cfg, bool use_tc[]);
int stamper_find(struct rxlat_stamper **out, bool quiet);
/* Sum the per-CPU counters per (ifindex, queue); *keys and *vals are malloc'ed. */
int stamper_counters(const struct rxlat_stamper *st, struct rxlat_xdp_key **keys,
		     struct rxlat_xdp_counters **vals, size_t *n);
void stamper_destroy(struct rxlat_stamper *st);
/*
 * Named interface i (of cfg) is gone: its link is closed. Attached again to
 * cfg->ifindexes[i] (the interface came back): 0, -EOPNOTSUPP when rxlat
 * did not attach the stamper itself (--no-xdp), or -errno.
 */
void stamper_detach_iface(struct rxlat_stamper *st, int i);
int stamper_reattach(struct rxlat_stamper *st, const struct rxlat_config *cfg, int i);

/* holders.c: a program's name by id ("" when gone), and which process
 * holds a BPF link or program (0: none). */
void prog_name(__u32 id, char name[BPF_OBJ_NAME_LEN]);
bool prog_is(__u32 id, const char *want);
__u32 for_each_link(__u32 (*fn)(const struct bpf_link_info *, const void *), const void *arg);
pid_t link_holder(__u32 link_id, char comm[16]);
pid_t prog_holder(__u32 prog_id, char comm[16]);

/*
 * tc.c: the tc ingress stamper, per named interface i of the config: a tcx
 * link, else a cls_bpf filter of rxlat's own, or a filter running the
 * stamper that iproute2 loaded (used, never touched).
 */
enum rxlat_tc_how { RXLAT_TC_NONE, RXLAT_TC_TCX, RXLAT_TC_FILTER, RXLAT_TC_FOREIGN };
struct rxlat_tc;
int tc_open(struct rxlat_tc **out);
/* RXLAT_TC_NONE when it cannot be attached (said). */
enum rxlat_tc_how tc_attach(struct rxlat_tc *t, int i, __u32 ifindex, const char *ifname);
/* gone: the interface was deleted, and its filter with it. */
void tc_detach(struct rxlat_tc *t, int i, bool gone);
/* Are filters attached through netlink (removing them needs CAP_NET_ADMIN)? */
bool tc_netlink(const struct rxlat_tc *t);
void tc_destroy(struct rxlat_tc *t);

/*
 * filters.c: --proto, --port and --cgroup into cfg; 0, or -1 with the error
 * printed.
 */
int filters_parse_proto(const char *val, struct rxlat_config *cfg);
int filters_parse_ports(const char *val, struct rxlat_config *cfg);
int filters_parse_cgroup(const char *path, struct rxlat_config *cfg);

/* hooks.c: the latency hooks, one attach point set per stage. */
struct rxlat_hooks;
struct rxlat_hooks_info {
	const char *attach[RXLAT_NR_STAGES];	   /* "fentry:tcp_v4_do_rcv,..." */
	const char *unavailable[RXLAT_NR_STAGES];  /* why a wanted stage is off */
	const char *fallback_why[RXLAT_NR_STAGES]; /* why fentry was not used */
	/* where the texts above are written: they live as long as the info */
	char attach_buf[RXLAT_NR_STAGES][96];
	char reason_buf[RXLAT_NR_STAGES][320];
};
/* Decide the attach points without attaching anything (--list-stages). */
int hooks_plan(const struct rxlat_config *cfg, struct rxlat_hooks_info *info);
int hooks_attach(struct rxlat_hooks **out, const struct rxlat_config *cfg,
		 struct rxlat_hooks_info *info);
/*
 * The histogram of series idx (rxlat_series_index()), mapped; NULL while it
 * has none. hooks_live_at() is the same for a struct rxlat_live (ctx: hooks).
 */
struct rxlat_hist *hooks_series(const struct rxlat_hooks *h, __u32 idx);
struct rxlat_hist *hooks_live_at(void *ctx, __u32 idx);
/*
 * Create histogram chunks while the series in use come close to filling
 * those there are; call it often (each report, each second). 0 or -errno.
 */
int hooks_grow(struct rxlat_hooks *h);
/* Samples that found no histogram (their chunk not created in time). */
__u64 hooks_series_lost(const struct rxlat_hooks *h);
/* ifindex of each interface slot in use, 0 where free; returns count */
int hooks_ifslots(const struct rxlat_hooks *h, __u32 *ifindex_of_slot, __u32 nslots);
void hooks_new_epoch(struct rxlat_hooks *h, __u64 *old_epoch);
/* Interface slot of ifindex from now belongs to ifindex to: 0 or -errno. */
int hooks_move_ifslot(struct rxlat_hooks *h, __u32 from, __u32 to);
size_t hooks_map_bytes(const struct rxlat_hooks *h);
/* Realtime stamps on ifindex with the tc mark are the tc stamper's (on) or not. */
int hooks_tc_iface(struct rxlat_hooks *h, __u32 ifindex, bool on);
/* --drops: the drop map's fd (-1 without), and drops it had no room for. */
int hooks_drops_fd(const struct rxlat_hooks *h);
__u64 hooks_drops_lost(const struct rxlat_hooks *h);
/* --slow: the ring buffer's fd, and its per-CPU counts summed. */
int hooks_slow_fd(const struct rxlat_hooks *h);
int hooks_slow_counts(const struct rxlat_hooks *h, __u64 *sent, __u64 *suppressed, __u64 *lost);
/* Steps of the realtime clock the hooks saw. */
__u64 hooks_clock_steps(const struct rxlat_hooks *h);
void hooks_destroy(struct rxlat_hooks *h);

#endif
