/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the parts of the rxlat command. */
#ifndef RXLAT_COLLECTOR_H
#define RXLAT_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <net/if.h>
#include <sys/socket.h>
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
};

/*
 * stamper.c: the XDP stamper, attached by rxlat or found when --no-xdp, and
 * the poll-end reset of its batch stamps, attached whenever there is one.
 */
struct rxlat_stamper;
int stamper_attach(struct rxlat_stamper **out, const struct rxlat_config *cfg);
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
/* The series array, mapped: rxlat_nr_series() entries. */
struct rxlat_hist *hooks_hists(const struct rxlat_hooks *h);
/* ifindex of each interface slot in use, 0 where free; returns count */
int hooks_ifslots(const struct rxlat_hooks *h, __u32 *ifindex_of_slot, __u32 nslots);
void hooks_new_epoch(struct rxlat_hooks *h, __u64 *old_epoch);
/* Interface slot of ifindex from now belongs to ifindex to: 0 or -errno. */
int hooks_move_ifslot(struct rxlat_hooks *h, __u32 from, __u32 to);
size_t hooks_map_bytes(const struct rxlat_hooks *h);
void hooks_destroy(struct rxlat_hooks *h);

#endif
