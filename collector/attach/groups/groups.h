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
#include "group_names.h"

struct rxlat_hooks;
struct rxlat_groups;

/* rxlat's own network namespace: the inode of /proc/self/ns/net, 0 if unknown. */
__u32 netns_self(void);

/* 0 or -ENOMEM; a missing cgroup v2 root is said and cgroups named by id. */
int groups_new(struct rxlat_groups **out, const struct rxlat_config *cfg, struct rxlat_hooks *h);
void groups_free(struct rxlat_groups *g);

/* A namespace's name: under /run/netns or /var/run/docker/netns, else net:[ino]. */
void groups_netns_name(__u32 ino, char *name, size_t len);

/*
 * Names the groups claimed since the last call (call it every 0.2 s), so
 * that a namespace gets its name while it is there.
 */
void groups_tend(struct rxlat_groups *g);
/*
 * The names of the group of the claim token (hooks_groups()), in namespace
 * netns: true, or false while the claim is not complete (ask again).
 */
bool groups_name(struct rxlat_groups *g, __u64 token, __u32 netns, struct group_names *out);

/*
 * At most every 2 s, after a report: the slots of groups found gone at the
 * check before (their last samples reported since) are released, retire()
 * called first for each; returns how many, or -errno. A namespace is gone
 * when no namespace with its cookie is left, even where its inode now
 * names another.
 */
int groups_release_gone(struct rxlat_groups *g, void (*retire)(void *ctx, __u32 slot), void *ctx);

#endif
