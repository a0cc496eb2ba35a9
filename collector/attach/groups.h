/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The groups of --by: names of the network namespaces and cgroups where
 * samples were taken, and the release of the group slots of those that
 * are gone (groups.c).
 */
#ifndef RXLAT_GROUPS_H
#define RXLAT_GROUPS_H

#include <linux/types.h>
#include "config.h"
#include "model.h"

struct rxlat_hooks;
struct rxlat_groups;

/* rxlat's own network namespace: the inode of /proc/self/ns/net, 0 if unknown. */
__u32 netns_self(void);

/* 0 or -ENOMEM; a missing cgroup v2 root is said and cgroups named by id. */
int groups_new(struct rxlat_groups **out, const struct rxlat_config *cfg, struct rxlat_hooks *h);
void groups_free(struct rxlat_groups *g);

/* A namespace's name: under /run/netns or /var/run/docker/netns, else net:[ino]. */
void groups_netns_name(__u32 ino, char *name, size_t len);
/* The names of the group of key (RXLAT_GROUP_NETNS | inode, or a cgroup id). */
void groups_name(struct rxlat_groups *g, __u64 key, __u32 netns, struct model_group *out);

/*
 * At most every 2 s, after a report: the slots of groups found gone at the
 * check before (their last samples reported since) are released, retire()
 * called first for each; returns how many, or -errno.
 */
int groups_release_gone(struct rxlat_groups *g, void (*retire)(void *ctx, __u32 slot), void *ctx);

#endif
